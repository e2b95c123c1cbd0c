//! The edition a file is read as comes from its package's manifest: `edition`, or
//! `edition.workspace = true` and the workspace's `[workspace.package]`, and edition 2015
//! when the package names none. Only a file whose edition no manifest says is read as
//! edition 2015 code after it failed to parse as current code.

use std::path::Path;

use clmigrate_lint::{check, Report, Settings};

/// Edition 2015 code: a trait method with anonymous parameters, `async` as a name, and a
/// read on `q1` that does not wait for the write on `q0`.
const LEGACY: &str = r#"
use opencl3::command_queue::CommandQueue;
use opencl3::memory::Buffer;
use opencl3::types::{cl_float, CL_BLOCKING, CL_NON_BLOCKING};

pub trait Transfer {
    fn send(&self, &CommandQueue, &mut Buffer<cl_float>, &[cl_float]) -> bool;
    fn names(&self, q: &CommandQueue, std::collections::HashMap<u8, Vec<u8>>, self::Local);
}

pub unsafe fn hand_over(q0: &CommandQueue, q1: &CommandQueue, buf: &mut Buffer<cl_float>, async: &[cl_float]) {
    let mut back = vec![0.0; async.len()];
    q0.enqueue_write_buffer(buf, CL_NON_BLOCKING, 0, async, &[]).unwrap();
    q1.enqueue_read_buffer(buf, CL_BLOCKING, 0, &mut back, &[]).unwrap();
}
"#;

fn package(dir: &Path, manifest: &str) {
    std::fs::create_dir_all(dir.join("src")).unwrap();
    std::fs::write(dir.join("Cargo.toml"), manifest).unwrap();
    std::fs::write(dir.join("src/lib.rs"), LEGACY).unwrap();
}

fn checked(path: &Path) -> Report {
    check(&[path.to_path_buf()], &Settings::default())
}

fn parses_with_its_finding(r: &Report) -> bool {
    r.problems.is_empty() && r.findings.iter().filter(|f| f.code == "CLM003").count() == 1
}

fn not_parsed(r: &Report) -> bool {
    r.findings.is_empty()
        && r.problems.len() == 1
        && r.problems[0].message.contains("could not parse")
}

#[test]
fn no_edition_key_is_2015() {
    let dir = tempfile::tempdir().unwrap();
    package(
        dir.path(),
        "[package]\nname = \"old\"\nversion = \"0.1.0\"\n\n[workspace]\n",
    );
    let r = checked(dir.path());
    assert!(
        parses_with_its_finding(&r),
        "{:?} {:?}",
        r.problems,
        r.findings
    );
}

#[test]
fn a_later_edition_is_not_retried_as_2015() {
    for edition in ["2018", "2021", "2024"] {
        let dir = tempfile::tempdir().unwrap();
        let manifest = format!(
            "[package]\nname = \"new\"\nversion = \"0.1.0\"\nedition = \"{edition}\"\n\n[workspace]\n"
        );
        package(dir.path(), &manifest);
        let r = checked(dir.path());
        assert!(
            not_parsed(&r),
            "{edition}: {:?} {:?}",
            r.problems,
            r.findings
        );
    }
}

#[test]
fn the_workspace_says_the_edition() {
    for (edition, parses) in [("2015", true), ("2021", false)] {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("Cargo.toml"),
            format!("[workspace]\nmembers = [\"member\"]\n\n[workspace.package]\nedition = \"{edition}\"\n"),
        )
        .unwrap();
        package(
            &dir.path().join("member"),
            "[package]\nname = \"member\"\nversion = \"0.1.0\"\nedition.workspace = true\n",
        );
        let r = checked(dir.path());
        let ok = if parses {
            parses_with_its_finding(&r)
        } else {
            not_parsed(&r)
        };
        assert!(ok, "{edition}: {:?} {:?}", r.problems, r.findings);
    }
}

/// Checks a file of no package holding `text`: it parses and has its one CLM003; where that
/// finding is (line, column).
fn loose_finding(dir: &Path, text: &str) -> (usize, usize) {
    let file = dir.join("loose.rs");
    std::fs::write(&file, text).unwrap();
    let r = checked(&file);
    assert!(
        parses_with_its_finding(&r),
        "{:?} {:?}",
        r.problems,
        r.findings
    );
    let f = r.findings.iter().find(|f| f.code == "CLM003").unwrap();
    r.files[f.anchor.file].line_col(f.anchor.start)
}

#[test]
fn a_file_of_no_package_is_retried_as_2015() {
    let dir = tempfile::tempdir().unwrap();
    // The finding points at the read, in the file as written (the inserted `_: ` and `r#`
    // do not move it).
    assert_eq!(loose_finding(dir.path(), LEGACY), (14, 5));
}

/// A byte-order mark before edition 2015 code on the same line as the finding: the
/// finding is where it is without the mark.
#[test]
fn a_byte_order_mark_moves_no_finding_of_2015_code() {
    let line = "pub unsafe fn hand_over(q0: &CommandQueue, q1: &CommandQueue, buf: &mut Buffer<cl_float>, async: &[cl_float]) { let mut back = vec![0.0; async.len()]; q0.enqueue_write_buffer(buf, CL_NON_BLOCKING, 0, async, &[]).unwrap(); q1.enqueue_read_buffer(buf, CL_BLOCKING, 0, &mut back, &[]).unwrap(); }";
    let uses = "\nuse opencl3::command_queue::CommandQueue;\nuse opencl3::memory::Buffer;\nuse opencl3::types::{cl_float, CL_BLOCKING, CL_NON_BLOCKING};\n";
    let read = line.find("q1.enqueue_read_buffer").unwrap() + 1;
    let dir = tempfile::tempdir().unwrap();
    for bom in ["", "\u{feff}"] {
        let at = loose_finding(dir.path(), &format!("{bom}{line}{uses}"));
        assert_eq!(at, (1, read), "mark {bom:?}");
    }
}
