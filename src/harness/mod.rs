//! `confirm`: runs every scenario of `fixtures/`, buggy and fixed, on the OpenCL devices found,
//! and reports whether each bug shows and each fix works.
//!
//! Every variant runs in a child process (this same executable, `confirm-child`), so a driver
//! crash or hang is an outcome in the report, not the end of the run. See `docs/harness.md`.

pub mod devices;
pub mod report;
pub mod scenarios;
pub mod variant;

use std::io::Read;
use std::path::PathBuf;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use devices::{discover, DeviceSet, DiscoveryError};
use report::{judge, table, Report};
use scenarios::{Scenario, SCENARIOS};
use variant::{run_variant, Outcome, Variant, VariantRecord};

/// Exit code when the run completed and something is not confirmed.
pub const EXIT_NOT_CONFIRMED: i32 = 1;
/// Exit code when nothing could be run: no platform, bad arguments.
pub const EXIT_CANNOT_RUN: i32 = 2;

/// Arguments of `cargo clmigrate-lint confirm`.
#[derive(Clone, Debug, clap::Args)]
pub struct ConfirmArgs {
    /// Print the report as JSON instead of a table.
    #[arg(long)]
    pub json: bool,
    /// Use only platforms whose name or vendor contains NAME (case-insensitive).
    #[arg(long, value_name = "NAME")]
    pub platform: Option<String>,
    /// Run only this scenario (a fixture name such as `missing-wait-list`, or a rule code).
    #[arg(long, value_name = "NAME")]
    pub scenario: Vec<String>,
    /// How long a held-back queue waits before it may start, in milliseconds.
    #[arg(long, value_name = "N", default_value_t = 200)]
    pub hold_ms: u64,
    /// Runs of each timing scenario; the fastest is reported.
    #[arg(long, value_name = "N", default_value_t = 5)]
    pub runs: usize,
    /// Seconds a variant may take before it is killed and reported as hung.
    #[arg(long, value_name = "N", default_value_t = 120)]
    pub timeout_s: u64,
}

/// Arguments of the hidden `confirm-child` command: one variant on one device set.
#[derive(Clone, Debug, clap::Args)]
pub struct ChildArgs {
    #[arg(long)]
    pub platform_index: usize,
    #[arg(long)]
    pub devices: usize,
    #[arg(long)]
    pub scenario: String,
    #[arg(long, value_enum)]
    pub variant: Variant,
    #[arg(long)]
    pub hold_ms: u64,
    #[arg(long)]
    pub runs: usize,
}

/// The name of the hidden command that runs one variant.
pub const CHILD_COMMAND: &str = "confirm-child";

/// Runs `confirm` and returns the process's exit code: 0 when every fixed variant matches the
/// reference and every deterministic bug reproduced, 1 when not, 2 when nothing could run.
pub fn confirm(args: &ConfirmArgs) -> i32 {
    let selected: Vec<&'static Scenario> = if args.scenario.is_empty() {
        SCENARIOS.iter().collect()
    } else {
        let mut selected = Vec::new();
        for name in &args.scenario {
            match scenarios::find(name) {
                Some(s) => selected.push(s),
                None => {
                    let known: Vec<_> = SCENARIOS.iter().map(|s| s.name).collect();
                    eprintln!(
                        "error: no scenario `{name}`; the scenarios are: {}",
                        known.join(", ")
                    );
                    return EXIT_CANNOT_RUN;
                }
            }
        }
        // Report order is the table's order whatever the order of the flags.
        selected.sort_by_key(|s| SCENARIOS.iter().position(|t| t.name == s.name));
        selected.dedup_by_key(|s| s.name);
        selected
    };
    let sets = match discover(args.platform.as_deref()) {
        Ok(sets) => sets,
        Err(DiscoveryError::NoPlatform(why)) => {
            eprintln!("error: no OpenCL platform found: {why}");
            eprintln!(
                "help: install an OpenCL driver, e.g. `apt-get install pocl-opencl-icd \
                 ocl-icd-libopencl1` for a CPU device (POCL_DEVICES=\"pthread pthread\" makes \
                 it two devices)"
            );
            return EXIT_CANNOT_RUN;
        }
        Err(DiscoveryError::Query(why)) => {
            eprintln!("error: {why}");
            return EXIT_CANNOT_RUN;
        }
    };
    let exe = match std::env::current_exe() {
        Ok(exe) => exe,
        Err(e) => {
            eprintln!("error: cannot find this executable to run the scenarios: {e}");
            return EXIT_CANNOT_RUN;
        }
    };
    let mut results = Vec::new();
    for set in &sets {
        for scenario in &selected {
            let buggy = spawn_variant(&exe, set, scenario, Variant::Buggy, args);
            let fixed = spawn_variant(&exe, set, scenario, Variant::Fixed, args);
            results.push(judge(scenario, set, buggy, fixed));
        }
    }
    let report = Report {
        hold_ms: args.hold_ms,
        ok: results.iter().all(|r| !r.fails_run),
        device_sets: sets,
        results,
    };
    if args.json {
        match serde_json::to_string_pretty(&report) {
            Ok(json) => println!("{json}"),
            Err(e) => {
                eprintln!("error: writing the report: {e}");
                return EXIT_CANNOT_RUN;
            }
        }
    } else {
        print!("{}", table(&report));
    }
    if report.ok {
        0
    } else {
        EXIT_NOT_CONFIRMED
    }
}

/// Runs one variant and prints its record as one line of JSON on stdout.
pub fn child(args: &ChildArgs) -> i32 {
    let Some(scenario) = scenarios::find(&args.scenario) else {
        eprintln!("error: no scenario `{}`", args.scenario);
        return EXIT_CANNOT_RUN;
    };
    let record = run_variant(
        scenario,
        args.variant,
        args.platform_index,
        args.devices,
        Duration::from_millis(args.hold_ms),
        args.runs,
    );
    match serde_json::to_string(&record) {
        Ok(json) => {
            println!("{json}");
            0
        }
        Err(e) => {
            eprintln!("error: writing the record: {e}");
            EXIT_CANNOT_RUN
        }
    }
}

/// Runs one variant in a child process and turns whatever happens to it into a record.
fn spawn_variant(
    exe: &PathBuf,
    set: &DeviceSet,
    scenario: &Scenario,
    variant: Variant,
    args: &ConfirmArgs,
) -> VariantRecord {
    let variant_name = match variant {
        Variant::Buggy => "buggy",
        Variant::Fixed => "fixed",
    };
    let spawned = Command::new(exe)
        .arg(CHILD_COMMAND)
        .args(["--platform-index", &set.platform_index.to_string()])
        .args(["--devices", &set.devices.len().to_string()])
        .args(["--scenario", scenario.name])
        .args(["--variant", variant_name])
        .args(["--hold-ms", &args.hold_ms.to_string()])
        .args(["--runs", &args.runs.to_string()])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn();
    let mut child = match spawned {
        Ok(child) => child,
        Err(e) => {
            return VariantRecord::without_result(Outcome::Crashed {
                detail: format!("could not start the child process: {e}"),
            })
        }
    };
    let stdout = drain(child.stdout.take());
    let stderr = drain(child.stderr.take());
    let status = wait_with_timeout(&mut child, Duration::from_secs(args.timeout_s));
    let stdout = stdout.join().unwrap_or_default();
    let stderr = stderr.join().unwrap_or_default();
    match status {
        None => VariantRecord::without_result(Outcome::TimedOut {
            after_s: args.timeout_s,
        }),
        Some(status) => match serde_json::from_str::<VariantRecord>(stdout.trim()) {
            Ok(record) if status.success() => record,
            _ => VariantRecord::without_result(Outcome::Crashed {
                detail: describe_exit(status, &stderr),
            }),
        },
    }
}

/// Reads a pipe to its end on a thread of its own, so a full pipe never blocks the child.
fn drain<R: Read + Send + 'static>(pipe: Option<R>) -> thread::JoinHandle<String> {
    thread::spawn(move || {
        let mut text = String::new();
        if let Some(mut pipe) = pipe {
            let mut bytes = Vec::new();
            if pipe.read_to_end(&mut bytes).is_ok() {
                text = String::from_utf8_lossy(&bytes).into_owned();
            }
        }
        text
    })
}

/// Waits for `child`; kills it and returns `None` once `timeout` has passed.
fn wait_with_timeout(child: &mut Child, timeout: Duration) -> Option<ExitStatus> {
    let deadline = Instant::now() + timeout;
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return Some(status),
            Ok(None) if Instant::now() < deadline => thread::sleep(Duration::from_millis(20)),
            _ => {
                // The child may have exited just now; either way it is reaped below.
                let _ = child.kill();
                let _ = child.wait();
                return None;
            }
        }
    }
}

/// "SIGSEGV" or "exit status 3", with the last line the child wrote to stderr.
fn describe_exit(status: ExitStatus, stderr: &str) -> String {
    let how = signal_name(status).unwrap_or_else(|| match status.code() {
        Some(code) => format!("exit status {code}"),
        None => "ended without a status".into(),
    });
    match stderr.lines().rev().find(|l| !l.trim().is_empty()) {
        Some(line) => format!("{how}: {}", line.trim()),
        None => how,
    }
}

#[cfg(unix)]
fn signal_name(status: ExitStatus) -> Option<String> {
    use std::os::unix::process::ExitStatusExt;
    status.signal().map(|signal| match signal {
        4 => "SIGILL".to_string(),
        6 => "SIGABRT".to_string(),
        7 => "SIGBUS".to_string(),
        8 => "SIGFPE".to_string(),
        9 => "SIGKILL".to_string(),
        11 => "SIGSEGV".to_string(),
        other => format!("signal {other}"),
    })
}

#[cfg(not(unix))]
fn signal_name(_: ExitStatus) -> Option<String> {
    None
}
