//! `confirm` on PoCL's CPU devices (`POCL_DEVICES="pthread pthread"`: two devices in one
//! context) and with no OpenCL platform at all.

use std::path::PathBuf;
use std::process::{Command, Output};

use serde_json::Value;

fn binary() -> Command {
    Command::new(env!("CARGO_BIN_EXE_cargo-clmigrate-lint"))
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// `confirm --json` on PoCL with two devices; the report and the process's output.
fn confirm_on_pocl(extra: &[&str]) -> (Value, Output) {
    let output = binary()
        .args(["confirm", "--json", "--platform", "pocl", "--runs", "2"])
        .args(extra)
        .env("POCL_DEVICES", "pthread pthread")
        .output()
        .expect("run cargo-clmigrate-lint");
    let report = serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "no JSON report ({e}); is PoCL installed (apt-get install pocl-opencl-icd \
             ocl-icd-libopencl1)?\nstdout:\n{}\nstderr:\n{}",
            text(&output.stdout),
            text(&output.stderr)
        )
    });
    (report, output)
}

fn result<'a>(report: &'a Value, scenario: &str) -> &'a Value {
    report["results"]
        .as_array()
        .expect("results")
        .iter()
        .find(|r| r["scenario"] == scenario)
        .unwrap_or_else(|| panic!("no result for {scenario} in {report:#}"))
}

#[test]
fn every_scenario_is_confirmed_on_two_pocl_devices() {
    let (report, output) = confirm_on_pocl(&[]);
    assert!(output.status.success(), "{report:#}");
    assert_eq!(report["ok"], true);

    let sets = report["device_sets"].as_array().expect("device_sets");
    assert_eq!(sets.len(), 1, "{report:#}");
    assert_eq!(sets[0]["devices"].as_array().map(Vec::len), Some(2));

    let names: Vec<&str> = report["results"]
        .as_array()
        .expect("results")
        .iter()
        .map(|r| r["scenario"].as_str().expect("scenario name"))
        .collect();
    assert_eq!(
        names,
        [
            "seed",
            "host-pointer-kernel-arg",
            "host-migration-between-devices",
            "missing-wait-list",
            "duplicate-shared-buffer-init",
            "migration-on-source-queue",
        ]
    );
    for r in report["results"].as_array().expect("results") {
        assert_eq!(r["fixed"]["outcome"]["kind"], "matches", "{r:#}");
    }

    let seed = result(&report, "seed");
    assert_eq!(seed["verdict"], "confirmed", "{seed:#}");
    // The host `Vec` passed as a kernel argument fails first: its size is not a `cl_mem`'s.
    assert_eq!(seed["buggy"]["outcome"]["kind"], "error", "{seed:#}");
    assert_eq!(seed["buggy"]["outcome"]["code"], -51, "CL_INVALID_ARG_SIZE");

    let host_arg = result(&report, "host-pointer-kernel-arg");
    assert_eq!(host_arg["verdict"], "confirmed", "{host_arg:#}");
    assert_ne!(host_arg["buggy"]["outcome"]["kind"], "matches");

    let stale = result(&report, "missing-wait-list");
    assert_eq!(stale["verdict"], "confirmed", "{stale:#}");
    assert_eq!(stale["buggy"]["outcome"]["kind"], "differs", "{stale:#}");

    let duplicate = result(&report, "duplicate-shared-buffer-init");
    assert_eq!(duplicate["verdict"], "confirmed", "{duplicate:#}");
    assert_eq!(
        duplicate["buggy"]["outcome"]["kind"], "differs",
        "{duplicate:#}"
    );
    let bytes = 4 * (1 << 16);
    assert_eq!(duplicate["buggy"]["uploaded_bytes"], 2 * bytes);
    assert_eq!(duplicate["fixed"]["uploaded_bytes"], bytes);

    // PoCL's CPU devices work in host memory: how a buffer moves between them costs nothing.
    for name in [
        "host-migration-between-devices",
        "migration-on-source-queue",
    ] {
        let r = result(&report, name);
        assert_eq!(r["verdict"], "not_observable", "{r:#}");
        assert_eq!(r["buggy"]["outcome"]["kind"], "matches", "{r:#}");
        assert!(r["buggy"]["step_ms"].as_f64().is_some(), "{r:#}");
        assert!(r["fixed"]["step_ms"].as_f64().is_some(), "{r:#}");
    }
}

#[test]
fn the_table_lists_scenarios_in_order_with_their_verdicts() {
    let output = binary()
        .args(["clmigrate-lint", "confirm", "--platform", "pocl"])
        .args([
            "--scenario",
            "CLM003",
            "--scenario",
            "CLM002",
            "--runs",
            "1",
        ])
        .env("POCL_DEVICES", "pthread pthread")
        .output()
        .expect("run cargo-clmigrate-lint");
    let stdout = text(&output.stdout);
    assert!(output.status.success(), "{stdout}{}", text(&output.stderr));
    let rows: Vec<&str> = stdout.lines().collect();
    assert!(rows[0].starts_with("scenario"), "{stdout}");
    // Table order, not flag order.
    assert!(rows[1].starts_with("host-migration-between-devices (CLM002)"));
    assert!(rows[1].contains("not observable (devices share host memory)"));
    assert!(rows[2].starts_with("missing-wait-list (CLM003)"));
    assert!(rows[2].trim_end().ends_with("confirmed"), "{stdout}");
}

#[test]
fn without_an_opencl_platform_confirm_says_so_and_fails() {
    let empty = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("no-opencl-vendors");
    std::fs::create_dir_all(&empty).expect("create an empty vendors directory");
    let output = binary()
        .arg("confirm")
        .env("OCL_ICD_VENDORS", &empty)
        .env_remove("OCL_ICD_FILENAMES")
        .output()
        .expect("run cargo-clmigrate-lint");
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("no OpenCL platform found"), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(output.stdout.is_empty());
}

#[test]
fn an_unknown_scenario_is_a_usage_error() {
    let output = binary()
        .args(["confirm", "--scenario", "no-such-scenario"])
        .output()
        .expect("run cargo-clmigrate-lint");
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("missing-wait-list"), "{stderr}");
}
