//! The same tree gives the same bytes, human and JSON, with one worker or eight, and
//! whatever order its files were created in (so whatever order the directory lists them).

use std::path::Path;
use std::process::Command;

use crate::fuzz::ProgramGen;
use crate::support::{announce, scratch, seed};

/// Human and JSON output of the binary run in `dir` on `.` with `jobs` workers.
fn outputs(dir: &Path, jobs: &str) -> [Vec<u8>; 2] {
    ["human", "json"].map(|format| {
        let o = Command::new(env!("CARGO_BIN_EXE_cargo-clmigrate-lint"))
            .current_dir(dir)
            .args([
                "--color",
                "never",
                "--message-format",
                format,
                "--jobs",
                jobs,
                ".",
            ])
            .output()
            .unwrap();
        assert!(o.status.code().is_some_and(|c| c < 2), "{:?}", o);
        o.stdout
    })
}

/// The fixtures plus generated programs (some unparseable), as `(relative path, text)`.
fn tree() -> Vec<(String, String)> {
    let mut files = Vec::new();
    for e in walkdir::WalkDir::new("fixtures").sort_by_file_name() {
        let e = e.unwrap();
        if e.path().extension().is_some_and(|x| x == "rs") {
            let text = std::fs::read_to_string(e.path()).unwrap();
            files.push((e.path().display().to_string(), text));
        }
    }
    let mut g = ProgramGen::new(seed() ^ 4);
    for i in 0..150usize {
        let mut text = g.program();
        if i.is_multiple_of(10) {
            text.truncate(text.len() / 2);
        }
        files.push((format!("gen/m{}/p{i:03}.rs", i % 7), text));
    }
    files
}

fn write(dir: &Path, files: &[(String, String)]) {
    for (rel, text) in files {
        let p = dir.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
}

#[test]
fn output_is_the_same_in_any_thread_count_and_file_order() {
    let files = tree();
    let forward = scratch("order-forward");
    write(&forward, &files);
    let backward = scratch("order-backward");
    let mut reversed = files.clone();
    reversed.reverse();
    write(&backward, &reversed);

    let reference = outputs(&forward, "1");
    assert!(String::from_utf8_lossy(&reference[0]).contains("error[CLM003]"));
    for (dir, jobs) in [
        (&forward, "8"),
        (&backward, "1"),
        (&backward, "8"),
        (&forward, "2"),
    ] {
        let got = outputs(dir, jobs);
        for (want, got) in reference.iter().zip(&got) {
            assert!(want == got, "{} --jobs {jobs} differs", dir.display());
        }
    }
    announce(&format!(
        "determinism: {} files, {} bytes of human output, identical in 5 runs",
        files.len(),
        reference[0].len()
    ));
    std::fs::remove_dir_all(&forward).unwrap();
    std::fs::remove_dir_all(&backward).unwrap();
}
