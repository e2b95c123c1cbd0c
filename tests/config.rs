//! Configuration, suppression comments and baselines, through the command line on small
//! packages made in temporary directories.

use std::fs;
use std::path::Path;
use std::process::{Command, Output};

fn run_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cargo-clmigrate-lint"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("the binary runs")
}

fn out(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn err(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A package with the seed program as `src/host.rs` and the given `Cargo.toml` extra text.
fn package(cargo_extra: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    fs::write(
        dir.path().join("Cargo.toml"),
        format!(
            "[package]\nname = \"host\"\nversion = \"0.1.0\"\nedition = \"2021\"\n{cargo_extra}"
        ),
    )
    .unwrap();
    fs::create_dir_all(dir.path().join("src")).unwrap();
    fs::copy("fixtures/seed/buggy.rs", dir.path().join("src/host.rs")).unwrap();
    dir
}

fn codes(short: &str) -> Vec<String> {
    short
        .lines()
        .filter_map(|l| l.split_once('[').and_then(|(_, r)| r.split_once(']')))
        .map(|(c, _)| c.to_string())
        .collect()
}

#[test]
fn levels_from_package_metadata_by_code_and_name() {
    let dir = package(
        "\n[package.metadata.clmigrate-lint.levels]\nCLM001 = \"allow\"\nmissing-wait-list = \"warn\"\nCLM004 = \"deny\"\n",
    );
    let o = run_in(dir.path(), &["--format", "short", "."]);
    let s = out(&o);
    assert!(!s.contains("[CLM001]"), "{s}");
    assert!(
        s.contains("warning[CLM003]") && s.contains("error[CLM004]"),
        "{s}"
    );
    assert_eq!(o.status.code(), Some(1), "CLM004 is an error now");
}

#[test]
fn deny_warnings_fails_on_warnings() {
    let dir = package(
        "\n[workspace.metadata.clmigrate-lint.levels]\nCLM001 = \"allow\"\nCLM003 = \"allow\"\n",
    );
    let o = run_in(dir.path(), &["--format", "short", "."]);
    assert_eq!(o.status.code(), Some(0), "{}", out(&o));
    assert!(out(&o).contains("warning[CLM002]"));
    let denied = run_in(dir.path(), &["--deny", "warnings", "."]);
    assert_eq!(denied.status.code(), Some(1));
}

#[test]
fn the_config_file_wins_over_cargo_toml_and_excludes_paths() {
    let dir = package("\n[package.metadata.clmigrate-lint.levels]\nCLM001 = \"allow\"\n");
    fs::write(
        dir.path().join("clmigrate-lint.toml"),
        "exclude = [\"generated\", \"src/skip_*.rs\"]\n[levels]\nCLM002 = \"allow\"\n",
    )
    .unwrap();
    fs::create_dir_all(dir.path().join("src/generated")).unwrap();
    fs::copy(
        "fixtures/seed/buggy.rs",
        dir.path().join("src/generated/g.rs"),
    )
    .unwrap();
    fs::copy("fixtures/seed/buggy.rs", dir.path().join("src/skip_me.rs")).unwrap();
    let o = run_in(dir.path(), &["--format", "short", "."]);
    let s = out(&o);
    // Only src/host.rs is checked, with CLM002 off and CLM001 (from Cargo.toml) on.
    assert!(s.contains("in 1 file checked"), "{s}");
    assert!(s.contains("[CLM001]") && !s.contains("[CLM002]"), "{s}");
    // `--config` names another file.
    fs::write(
        dir.path().join("other.toml"),
        "[levels]\nCLM004 = \"allow\"\n",
    )
    .unwrap();
    let s = out(&run_in(
        dir.path(),
        &["--config", "other.toml", "--format", "short", "."],
    ));
    assert!(s.contains("in 3 files checked"), "{s}");
    assert!(s.contains("[CLM002]") && !s.contains("[CLM004]"), "{s}");
}

#[test]
fn a_workspace_member_uses_the_workspace_table() {
    let dir = package("");
    let root = dir.path().parent().unwrap().join(format!(
        "{}-ws",
        dir.path().file_name().unwrap().to_string_lossy()
    ));
    fs::create_dir_all(&root).unwrap();
    fs::write(
        root.join("Cargo.toml"),
        "[workspace]\nmembers = [\"member\"]\n[workspace.metadata.clmigrate-lint.levels]\nCLM003 = \"allow\"\n",
    )
    .unwrap();
    let member = root.join("member");
    fs::rename(dir.path(), &member).unwrap();
    let s = out(&run_in(&member, &["--format", "short", "."]));
    fs::remove_dir_all(&root).unwrap();
    assert!(s.contains("[CLM001]") && !s.contains("[CLM003]"), "{s}");
}

#[test]
fn invalid_configs_name_the_file_and_the_key() {
    let cases = [
        ("[levels]\nCLM009 = \"deny\"\n", "error: clmigrate-lint.toml: levels.CLM009: no such rule"),
        (
            "[levels]\nCLM003 = \"error\"\n",
            "error: clmigrate-lint.toml: levels.CLM003: expected \"allow\", \"warn\" or \"deny\", found \"error\"",
        ),
        ("exclude = \"src\"\n", "error: clmigrate-lint.toml: exclude: expected an array of globs"),
        ("exclude = [\"src/[\"]\n", "error: clmigrate-lint.toml: exclude[0]: invalid glob"),
        ("level = {}\n", "error: clmigrate-lint.toml: level: unknown key; expected `levels` or `exclude`"),
        ("[levels\n", "error: clmigrate-lint.toml: invalid TOML"),
    ];
    for (text, want) in cases {
        let dir = package("");
        fs::write(dir.path().join("clmigrate-lint.toml"), text).unwrap();
        let o = run_in(dir.path(), &["."]);
        assert_eq!(o.status.code(), Some(2), "{text}");
        assert!(err(&o).starts_with(want), "{text}: {}", err(&o));
    }
    let dir = package("\n[package.metadata.clmigrate-lint.levels]\nnot-a-rule = \"allow\"\n");
    let o = run_in(dir.path(), &["."]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        err(&o).starts_with(
            "error: Cargo.toml: package.metadata.clmigrate-lint.levels.not-a-rule: no such rule"
        ),
        "{}",
        err(&o)
    );
}

#[test]
fn file_wide_suppression_and_a_disabled_rule_is_never_unused() {
    let dir = package("\n[package.metadata.clmigrate-lint.levels]\nCLM001 = \"allow\"\n");
    let host = dir.path().join("src/host.rs");
    let text = fs::read_to_string(&host).unwrap();
    fs::write(
        &host,
        format!(
            "// clmigrate-lint: allow-file(CLM002, missing-wait-list, CLM001) -- reviewed\n{text}"
        ),
    )
    .unwrap();
    let s = out(&run_in(dir.path(), &["--format", "short", "."]));
    assert_eq!(codes(&s), ["CLM004"], "{s}");
    assert!(s.contains("(5 suppressed)"), "{s}");
}

#[test]
fn a_baseline_hides_old_findings_across_unrelated_edits() {
    let dir = package("");
    let host = dir.path().join("src/host.rs");
    let o = run_in(dir.path(), &["--write-baseline", "baseline.json", "."]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    assert!(err(&o).contains("recorded 7 findings in baseline.json"));
    let b: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(dir.path().join("baseline.json")).unwrap())
            .unwrap();
    assert_eq!(b["findings"].as_array().unwrap().len(), 7);
    let o = run_in(
        dir.path(),
        &["--baseline", "baseline.json", "--format", "short", "."],
    );
    assert_eq!(o.status.code(), Some(0));
    assert!(out(&o).contains("(7 in the baseline)"), "{}", out(&o));
    // Lines inserted above, a reformatted argument list and a new comment inside a command do
    // not resurrect old findings; a new copy of a buggy command is new.
    let text = fs::read_to_string(&host).unwrap();
    let edited = text
        .replacen(
            "use std::ptr;",
            "use std::ptr;\n\n// a new comment\nconst _X: u8 = 1;\n",
            1,
        )
        .replacen(
            "                1,\n                &common_buf.get(),",
            "                1, &common_buf.get(), // moved",
            1,
        );
    let extra = "        kernel0.set_arg(1, &common_arr)?; //~ CLM001";
    assert!(edited.contains(extra));
    let edited = edited.replacen(
        extra,
        &format!("{extra}\n        kernel0.set_arg(1, &common_arr)?;"),
        1,
    );
    fs::write(&host, edited).unwrap();
    let o = run_in(
        dir.path(),
        &["--baseline", "baseline.json", "--format", "short", "."],
    );
    let s = out(&o);
    assert_eq!(codes(&s), ["CLM001"], "{s}");
    assert!(s.contains("(7 in the baseline)"), "{s}");
    assert_eq!(o.status.code(), Some(1));
    // A file that is not a baseline is a usage error.
    fs::write(dir.path().join("bad.json"), "{}").unwrap();
    let o = run_in(dir.path(), &["--baseline", "bad.json", "."]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        err(&o).starts_with("error: bad.json: not a baseline file"),
        "{}",
        err(&o)
    );
}

/// A finding whose command sits in a closure and whose cause is the closure's call: the
/// call line is where a suppression goes and what a baseline remembers; the closure's own
/// line suppresses nothing.
#[test]
fn suppressions_and_baselines_follow_the_call_line_of_a_closure() {
    let dir = package("");
    let host = dir.path().join("src/host.rs");
    let text = fs::read_to_string("fixtures/host-shapes/closure_calls.rs").unwrap();
    let call = "    let b = launch(q1)?; //~ CLM003";
    let command = "        unsafe { ExecuteKernel::new(scale).set_arg(&field).set_global_work_size(N).enqueue_nd_range(q) }\n    };\n    let a";
    assert!(text.contains(call) && text.contains(command));
    let check = |text: &str| {
        fs::write(&host, text).unwrap();
        out(&run_in(dir.path(), &["--format", "short", "."]))
    };
    let on_call = text.replacen(
        call,
        "    // clmigrate-lint: allow(CLM003) -- the launches write disjoint halves\n    let b = launch(q1)?;",
        1,
    );
    let s = check(&on_call);
    assert_eq!(codes(&s), ["CLM003"; 3], "{s}");
    assert!(!s.contains(":32:") && s.contains("(1 suppressed)"), "{s}");
    let in_closure = text.replacen(
        command,
        &command.replacen(
            "        unsafe",
            "        // clmigrate-lint: allow(CLM003) -- reviewed\n        unsafe",
            1,
        ),
        1,
    );
    let s = check(&in_closure);
    assert!(s.contains(":32:") && s.contains("CLM900"), "{s}");

    fs::write(&host, &text).unwrap();
    let o = run_in(dir.path(), &["--write-baseline", "baseline.json", "."]);
    assert!(err(&o).contains("recorded 4 findings"), "{}", err(&o));
    // Lines above and a changed command in the closure leave the call's finding, which the
    // baseline knows by the call, in the baseline.
    let edited = text
        .replacen(
            "const N: usize = 4096;",
            "// blocks of 4096\nconst N: usize = 4096;",
            1,
        )
        .replacen(
            ".set_global_work_size(N).enqueue_nd_range(q) }\n    };\n    let a",
            ".set_global_work_size(N / 2 * 2).enqueue_nd_range(q) }\n    };\n    let a",
            1,
        );
    assert_ne!(edited, text);
    fs::write(&host, &edited).unwrap();
    let o = run_in(
        dir.path(),
        &["--baseline", "baseline.json", "--format", "short", "."],
    );
    let s = out(&o);
    assert_eq!(codes(&s), Vec::<String>::new(), "{s}");
    assert!(s.contains("(4 in the baseline)"), "{s}");
}

/// The ```toml blocks of the README's "Configuration" section (others configure editors).
fn readme_toml_blocks() -> Vec<String> {
    let readme = fs::read_to_string("README.md").unwrap();
    let section = readme
        .split("\n## ")
        .find(|s| s.starts_with("Configuration\n"))
        .expect("the README has a Configuration section");
    let mut blocks = Vec::new();
    let mut current: Option<String> = None;
    for line in section.lines() {
        match &mut current {
            None if line.trim() == "```toml" => current = Some(String::new()),
            Some(b) if line.trim() == "```" => {
                blocks.push(std::mem::take(b));
                current = None;
            }
            Some(b) => {
                b.push_str(line);
                b.push('\n');
            }
            None => {}
        }
    }
    blocks
}

#[test]
fn the_readme_configuration_works_when_copied() {
    let blocks = readme_toml_blocks();
    assert!(!blocks.is_empty());
    for block in &blocks {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        fs::write(d.join("clmigrate-lint.toml"), block).unwrap();
        for f in [
            "host.rs",
            "generated/a.rs",
            "deep/generated/b.rs",
            "src/bindings/c.rs",
            "src/bindings/sub/d.rs",
        ] {
            fs::create_dir_all(d.join(f).parent().unwrap()).unwrap();
            fs::copy("fixtures/seed/buggy.rs", d.join(f)).unwrap();
        }
        let o = run_in(d, &["--format", "short", "."]);
        assert_ne!(o.status.code(), Some(2), "{block}\n{}", err(&o));
        if !block.contains("[levels]") {
            continue;
        }
        // What the README says of the example: CLM002 an error, CLM004 off, `generated`
        // matched as a name anywhere below, `*` not crossing `/`.
        let short = out(&o);
        assert!(short.ends_with("in 2 files checked\n"), "{block}\n{short}");
        let mut files: Vec<&str> = short
            .lines()
            .filter(|l| l.contains("[CLM"))
            .filter_map(|l| l.split(':').next())
            .collect();
        files.dedup();
        assert_eq!(files, ["host.rs", "src/bindings/sub/d.rs"]);
        let mut levels: Vec<&str> = short
            .lines()
            .filter(|l| l.starts_with("host.rs:"))
            .filter_map(|l| l.split(": ").nth(1)?.split(' ').next())
            .collect();
        levels.sort();
        levels.dedup();
        assert_eq!(levels, ["error[CLM001]", "error[CLM002]", "error[CLM003]"]);
    }
}
