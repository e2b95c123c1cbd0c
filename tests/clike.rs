//! C and C++ files through everything a Rust file goes through: the plain `clmigrate-lint`
//! binary on a directory, suppression comments in both comment styles, `--fix`, baselines,
//! every output format, and the language server's check of an unsaved buffer.

use std::fs;
use std::path::Path;
use std::process::{Command, Output};

use clmigrate_lint::{check, check_source, report, Settings};

fn plain(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_clmigrate-lint"))
        .args(args)
        .output()
        .expect("the binary runs")
}

fn codes(path: &Path) -> Vec<&'static str> {
    let mut c: Vec<&str> = check(&[path.to_path_buf()], &Settings::default())
        .findings
        .iter()
        .map(|f| f.code)
        .collect();
    c.sort();
    c
}

#[test]
fn the_plain_binary_checks_a_directory_of_c_and_cpp() {
    let out = plain(&["--format", "short", "fixtures/seed"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    for f in ["buggy.c:", "buggy.cpp:", "buggy.rs:"] {
        assert!(text.contains(f), "{f} missing:\n{text}");
    }
    assert!(!text.contains("fixed."), "{text}");
}

#[test]
fn suppression_comments_in_both_styles() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("seed.c");
    let text = fs::read_to_string("fixtures/seed/buggy.c").unwrap();
    let text = text
        .replace("//~ CLM004", "// clmigrate-lint: allow(CLM004) -- one upload per queue")
        .replace(
            "    status |= clSetKernelArg(kernel0, 0, sizeof(cl_mem), &dev0_arr); //~ CLM001",
            "    /* clmigrate-lint: allow(host-pointer-kernel-arg) */\n    status |= clSetKernelArg(kernel0, 0, sizeof(cl_mem), &dev0_arr);",
        )
        .replace("int main(void)", "/* clmigrate-lint: allow(CLM005) */\nint main(void)");
    fs::write(&path, text).unwrap();
    let report = check(std::slice::from_ref(&path), &Settings::default());
    assert_eq!(report.suppressed, 2);
    assert_eq!(
        codes(&path),
        ["CLM001", "CLM002", "CLM002", "CLM003", "CLM003", "CLM003", "CLM900"]
    );
}

#[test]
fn fix_applies_the_safe_fixes_to_c_and_cpp_and_a_second_run_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    for name in ["buggy.c", "buggy.cpp"] {
        let path = dir.path().join(name);
        fs::copy(Path::new("fixtures/seed").join(name), &path).unwrap();
        let first = plain(&["--fix", "--format", "short", path.to_str().unwrap()]);
        assert!(first.status.code() == Some(1), "{first:?}");
        let fixed = fs::read_to_string(&path).unwrap();
        // The migrations pass flags 0; the rest needs a person.
        assert!(!fixed.contains("CL_MIGRATE_MEM_OBJECT_HOST"), "{fixed}");
        assert!(!codes(&path).contains(&"CLM002"));
        plain(&["--fix", path.to_str().unwrap()]);
        assert_eq!(fs::read_to_string(&path).unwrap(), fixed);
    }
}

/// CLM001's suggested buffer is passed the way each API takes it: `clSetKernelArg` a
/// pointer to the handle, `cl::Kernel::setArg` the `cl::Buffer` itself.
#[test]
fn unsafe_fixes_pass_the_buffer_as_each_api_takes_it() {
    let dir = tempfile::tempdir().unwrap();
    for (name, want) in [
        ("buggy.c", "sizeof(cl_mem), &dev0_buf);"),
        ("buggy.cpp", "kernel0.setArg(0, dev0_buf);"),
    ] {
        let path = dir.path().join(name);
        fs::copy(Path::new("fixtures/seed").join(name), &path).unwrap();
        plain(&["--fix", "--unsafe", path.to_str().unwrap()]);
        let fixed = fs::read_to_string(&path).unwrap();
        assert!(fixed.contains(want), "{name}:\n{fixed}");
        assert!(!codes(&path).contains(&"CLM001"), "{name}:\n{fixed}");
    }
}

#[test]
fn a_baseline_records_c_findings() {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().join("baseline.json");
    let seed = "fixtures/seed/buggy.cpp";
    plain(&["--write-baseline", base.to_str().unwrap(), seed]);
    let out = plain(&[
        "--baseline",
        base.to_str().unwrap(),
        "--format",
        "short",
        seed,
    ]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
}

#[test]
fn every_format_renders_c_findings() {
    let report = check(
        &[Path::new("fixtures/seed/buggy.c").to_path_buf()],
        &Settings::default(),
    );
    // The seed's four bugs as seven findings (two host arguments, two host migrations, two
    // missing waits, the duplicate upload) and the race of that blocking upload, which only
    // lets the host reuse its data, with device 0's first kernel.
    assert_eq!(report.findings.len(), 8);
    for rendered in [
        report::json::render(&report),
        report::sarif::render(&report),
        report::github::render(&report),
        report::short::render(&report),
    ] {
        assert!(rendered.contains("buggy.c"), "{rendered}");
        assert!(rendered.contains("CLM003"), "{rendered}");
    }
}

#[test]
fn an_unsaved_cpp_buffer_is_checked_as_cpp() {
    let text = fs::read_to_string("fixtures/seed/buggy.cpp").unwrap();
    let report = check_source(Path::new("src/halo.cpp"), &text, &Settings::default());
    // The seed's four bugs as seven findings (two host arguments, two host migrations, two
    // missing waits, the duplicate upload) and the race of that blocking upload, which only
    // lets the host reuse its data, with device 0's first kernel.
    assert_eq!(report.findings.len(), 8);
    let fixed = fs::read_to_string("fixtures/seed/fixed.cpp").unwrap();
    let report = check_source(Path::new("src/halo.cpp"), &fixed, &Settings::default());
    assert!(report.findings.is_empty());
}

#[test]
fn bytes_that_are_not_utf8_in_a_c_comment_are_read_in_place() {
    // Latin-1 in a comment, as older C code has it: the C file is checked with every finding
    // where it was; the same bytes make a Rust file one that is not checked, as rustc would.
    let dir = tempfile::tempdir().unwrap();
    let mut bytes = fs::read("fixtures/seed/buggy.c").unwrap();
    let at = bytes.windows(6).position(|w| w == b"origin").unwrap();
    bytes[at + 4] = 0xe9;
    assert!(String::from_utf8(bytes.clone()).is_err());
    fs::write(dir.path().join("buggy.c"), &bytes).unwrap();
    let plain_out = plain(&["--format", "short", "fixtures/seed/buggy.c"]);
    let latin1_out = plain(&[
        "--format",
        "short",
        dir.path().join("buggy.c").to_str().unwrap(),
    ]);
    let lines = |o: &Output| -> Vec<String> {
        String::from_utf8_lossy(&o.stdout)
            .lines()
            .filter_map(|l| l.split_once("buggy.c:").map(|(_, rest)| rest.to_string()))
            .collect()
    };
    assert_eq!(lines(&plain_out).len(), 8, "{plain_out:?}");
    assert_eq!(lines(&plain_out), lines(&latin1_out));
    fs::write(
        dir.path().join("lib.rs"),
        b"// r\xe9sum\xe9\nuse opencl3::memory::Buffer;\nfn main() {}\n",
    )
    .unwrap();
    let rust = plain(&[
        "--format",
        "short",
        dir.path().join("lib.rs").to_str().unwrap(),
    ]);
    let text =
        String::from_utf8_lossy(&rust.stderr).to_string() + &String::from_utf8_lossy(&rust.stdout);
    assert!(text.contains("not valid UTF-8"), "{text}");
}
