//! Hostile directory trees: symbolic links (to a file, in a loop, dangling), a FIFO, files
//! that cannot be read, files that vanish during the walk, names with spaces and bytes that
//! are not UTF-8. Each is reported once, and every other file is still checked.

use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{symlink, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::Duration;

use clmigrate_lint::{check, Report, Settings};

use crate::support::{announce, scratch};

/// Checks with a deadline: a hang (a FIFO read, a link followed forever) fails the test.
fn check_within(paths: Vec<PathBuf>, secs: u64) -> Report {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(check(&paths, &Settings::default()));
    });
    rx.recv_timeout(Duration::from_secs(secs))
        .expect("the check finishes")
}

fn problems_about<'a>(r: &'a Report, name: &str) -> Vec<&'a str> {
    r.problems
        .iter()
        .filter(|p| {
            p.path
                .file_name()
                .is_some_and(|n| n.as_bytes() == name.as_bytes())
        })
        .map(|p| p.message.as_str())
        .collect()
}

fn mkfifo(p: &Path) {
    let c = std::ffi::CString::new(p.as_os_str().as_bytes()).unwrap();
    // SAFETY: `c` is a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
}

#[test]
fn hostile_tree_is_reported_entry_by_entry() {
    let dir = scratch("tree");
    let seed = std::fs::read_to_string("fixtures/seed/buggy.rs").unwrap();
    let alone = check(
        &[PathBuf::from("fixtures/seed/buggy.rs")],
        &Settings::default(),
    );
    let per_copy = alone.findings.len();
    assert!(per_copy > 0);

    std::fs::write(dir.join("buggy.rs"), &seed).unwrap();
    std::fs::create_dir_all(dir.join("dir with spaces")).unwrap();
    std::fs::write(dir.join("dir with spaces/a b.rs"), &seed).unwrap();
    let odd = dir.join(std::ffi::OsStr::from_bytes(b"caf\xe9-\xff.rs"));
    std::fs::write(&odd, &seed).unwrap();
    symlink(dir.join("buggy.rs"), dir.join("link.rs")).unwrap();
    symlink(&dir, dir.join("loop")).unwrap();
    symlink(dir.join("nowhere.rs"), dir.join("dangling.rs")).unwrap();
    symlink(dir.join("nowhere"), dir.join("dangling-dir")).unwrap();
    mkfifo(&dir.join("pipe.rs"));
    std::fs::create_dir_all(dir.join("locked")).unwrap();
    std::fs::write(dir.join("locked/inner.rs"), &seed).unwrap();
    std::fs::write(dir.join("secret.rs"), &seed).unwrap();
    std::fs::set_permissions(dir.join("secret.rs"), PermissionsExt::from_mode(0o000)).unwrap();
    std::fs::set_permissions(dir.join("locked"), PermissionsExt::from_mode(0o000)).unwrap();
    // Permission bits do not stop root (CI runs tests as root).
    let bits_hold = std::fs::File::open(dir.join("secret.rs")).is_err();

    let r = check_within(vec![dir.clone()], 60);
    std::fs::set_permissions(dir.join("locked"), PermissionsExt::from_mode(0o755)).unwrap();

    assert_eq!(
        problems_about(&r, "loop"),
        ["symbolic link loop, not followed"]
    );
    assert_eq!(
        problems_about(&r, "dangling.rs"),
        ["dangling symbolic link, not followed"]
    );
    assert!(problems_about(&r, "dangling-dir").is_empty());
    assert_eq!(
        problems_about(&r, "pipe.rs"),
        ["not a regular file; it was not read"]
    );
    // `link.rs` is `buggy.rs`: read once, under the first name.
    let names: Vec<String> = r.files.iter().map(|f| f.display.clone()).collect();
    assert!(!names.iter().any(|n| n.ends_with("link.rs")), "{names:?}");
    assert!(names.iter().any(|n| n.ends_with("dir with spaces/a b.rs")));
    assert!(names.iter().any(|n| n.contains("caf")), "{names:?}");
    let checked = if bits_hold {
        assert_eq!(problems_about(&r, "secret.rs").len(), 1);
        assert_eq!(problems_about(&r, "locked").len(), 1);
        3
    } else {
        announce("trees: running as root, so permission bits do not stop reads; the unreadable-file assertions are replaced by the FIFO and link ones");
        5
    };
    assert_eq!(r.findings.len(), per_copy * checked, "{:?}", r.problems);
    let expected_problems = if bits_hold { 5 } else { 3 };
    assert_eq!(r.problems.len(), expected_problems, "{:?}", r.problems);
    assert!(r.problems.iter().all(|p| !p.internal));
    std::fs::set_permissions(dir.join("secret.rs"), PermissionsExt::from_mode(0o644)).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_fifo_or_a_directory_named_on_the_command_line_is_reported() {
    let dir = scratch("named");
    mkfifo(&dir.join("pipe.rs"));
    let r = check_within(vec![dir.join("pipe.rs")], 60);
    assert_eq!(
        problems_about(&r, "pipe.rs"),
        ["not a regular file; it was not read"]
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn hostile_include_str_targets_are_not_read() {
    let dir = scratch("include");
    mkfifo(&dir.join("kernel.cl"));
    let text = std::fs::read_to_string("fixtures/seed/buggy.rs")
        .unwrap()
        .replace(
            "Program::create_and_build_from_source(context, SOURCE, \"\")",
            "Program::create_and_build_from_source(context, &[include_str!(\"kernel.cl\"), include_str!(\"/dev/zero\"), include_str!(\"/dev/stdin\")], \"\")",
        );
    std::fs::write(dir.join("host.rs"), text).unwrap();
    let r = check_within(vec![dir.join("host.rs")], 60);
    assert!(r.problems.is_empty(), "{:?}", r.problems);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn files_vanishing_during_the_walk_are_reported_not_fatal() {
    let dir = scratch("churn");
    std::fs::write(dir.join("stable.rs"), "fn f() {}").unwrap();
    let churn = dir.join("churn");
    std::fs::create_dir_all(&churn).unwrap();
    let stop = std::sync::Arc::new(AtomicBool::new(false));
    let writer = {
        let (stop, churn) = (stop.clone(), churn.clone());
        std::thread::spawn(move || {
            let mut i = 0u64;
            while !stop.load(Ordering::Relaxed) {
                let sub = churn.join(format!("d{}", i % 4));
                let _ = std::fs::create_dir_all(&sub);
                let _ = std::fs::write(sub.join(format!("f{}.rs", i % 16)), "fn g() {}");
                if i.is_multiple_of(3) {
                    let _ = std::fs::remove_dir_all(churn.join(format!("d{}", (i / 3) % 4)));
                }
                i += 1;
            }
        })
    };
    let mut vanished = 0;
    for _ in 0..200 {
        let r = check_within(vec![dir.clone()], 60);
        assert!(r.files.iter().any(|f| f.display.ends_with("stable.rs")));
        for p in &r.problems {
            assert!(!p.internal, "{p:?}");
            assert!(p.path.starts_with(&churn), "{p:?}");
            assert!(p.message.starts_with("could not read"), "{p:?}");
        }
        vanished += r.problems.len();
    }
    stop.store(true, Ordering::Relaxed);
    writer.join().unwrap();
    announce(&format!(
        "trees: 200 walks of a changing tree, {vanished} vanished entries reported"
    ));
    std::fs::remove_dir_all(&dir).unwrap();
}
