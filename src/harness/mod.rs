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
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use devices::{discover, DeviceSet, DiscoveryError};
use report::{judge, table, Report};
use scenarios::{Scenario, SCENARIOS};
use serde::{Deserialize, Serialize};
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
    /// How long a held-back queue waits before it may start, in milliseconds; 0 holds none.
    #[arg(long, value_name = "N", default_value_t = 200)]
    pub hold_ms: u64,
    /// Runs of each timing scenario; the fastest is reported.
    #[arg(long, value_name = "N", default_value_t = 5)]
    pub runs: usize,
    /// Seconds a variant may take before it is killed and reported as hung.
    #[arg(long, value_name = "N", default_value_t = 120)]
    pub timeout_s: u64,
}

/// Arguments of the hidden `confirm-child` command, which does the OpenCL work of `confirm`
/// in a process of its own.
#[derive(Clone, Debug, clap::Args)]
pub struct ChildArgs {
    #[command(subcommand)]
    pub task: ChildTask,
}

/// What a child process does.
#[derive(Clone, Debug, clap::Subcommand)]
pub enum ChildTask {
    /// Print the device sets as JSON.
    List {
        #[arg(long)]
        platform: Option<String>,
    },
    /// Run one variant on one device set and print its record as JSON.
    Run {
        #[arg(long)]
        platform_index: usize,
        #[arg(long)]
        devices: usize,
        #[arg(long)]
        scenario: String,
        #[arg(long, value_enum)]
        variant: Variant,
        #[arg(long)]
        hold_ms: u64,
        #[arg(long)]
        runs: usize,
    },
}

/// What `confirm-child list` prints.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum Listing {
    Sets { sets: Vec<DeviceSet> },
    NoPlatform { why: String },
    QueryFailed { why: String },
}

/// The name of the hidden command that runs one variant.
pub const CHILD_COMMAND: &str = "confirm-child";

/// The longest hold-back a retry of a deterministic scenario uses.
const MAX_HOLD_MS: u64 = 4000;

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
    let exe = match std::env::current_exe() {
        Ok(exe) => exe,
        Err(e) => {
            eprintln!("error: cannot find this executable to run the scenarios: {e}");
            return EXIT_CANNOT_RUN;
        }
    };
    let sets = match list_device_sets(&exe, args) {
        Ok(Listing::Sets { sets }) => sets,
        Ok(Listing::NoPlatform { why }) => {
            eprintln!("error: no OpenCL platform found: {why}");
            eprintln!(
                "help: install an OpenCL driver, e.g. `apt-get install pocl-opencl-icd \
                 ocl-icd-libopencl1` for a CPU device (POCL_DEVICES=\"pthread pthread\" makes \
                 it two devices)"
            );
            return EXIT_CANNOT_RUN;
        }
        Ok(Listing::QueryFailed { why }) => {
            eprintln!("error: {why}");
            return EXIT_CANNOT_RUN;
        }
        Err(why) => {
            eprintln!("error: listing the OpenCL platforms failed: {why}");
            return EXIT_CANNOT_RUN;
        }
    };
    let mut results = Vec::new();
    for set in &sets {
        for scenario in &selected {
            let buggy = spawn_variant(&exe, set, scenario, Variant::Buggy, args);
            let mut fixed = spawn_variant(&exe, set, scenario, Variant::Fixed, args);
            let mut result = judge(scenario, set, buggy, fixed.clone());
            let mut hold = args.hold_ms;
            // Some drivers deadlock when a queue held behind a user event has to wait on
            // another queue's event (NVIDIA's, with two queues on one GPU): then run the
            // pair without holding anything back, and say so.
            if matches!(result.fixed.outcome, Outcome::TimedOut { .. }) && args.hold_ms > 0 {
                let unheld = ConfirmArgs {
                    hold_ms: 0,
                    ..args.clone()
                };
                let buggy = spawn_variant(&exe, set, scenario, Variant::Buggy, &unheld);
                let unheld_fixed = spawn_variant(&exe, set, scenario, Variant::Fixed, &unheld);
                if unheld_fixed.outcome == Outcome::Matches {
                    fixed = unheld_fixed;
                    hold = 0;
                    result = judge(scenario, set, buggy, fixed.clone());
                    result.reason = format!(
                        "{} (run without a hold-back: with a queue held behind a user event the \
                         driver hung)",
                        result.reason
                    );
                }
            }
            // On a loaded machine the held queue may be released before the buggy consumer
            // ran: hold it longer before calling a deterministic bug not reproduced.
            while result.fails_run
                && scenario.evidence.is_deterministic()
                && result.fixed.outcome == Outcome::Matches
                && hold > 0
                && hold < MAX_HOLD_MS
            {
                hold *= 4;
                let longer = ConfirmArgs {
                    hold_ms: hold,
                    ..args.clone()
                };
                let buggy = spawn_variant(&exe, set, scenario, Variant::Buggy, &longer);
                result = judge(scenario, set, buggy, fixed.clone());
                result.reason = format!("{} (queue held back {hold} ms)", result.reason);
            }
            results.push(result);
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

/// Does one child task and prints its result as one line of JSON on stdout.
pub fn child(args: &ChildArgs) -> i32 {
    let json = match &args.task {
        ChildTask::List { platform } => {
            let listing = match discover(platform.as_deref()) {
                Ok(sets) => Listing::Sets { sets },
                Err(DiscoveryError::NoPlatform(why)) => Listing::NoPlatform { why },
                Err(DiscoveryError::Query(why)) => Listing::QueryFailed { why },
            };
            serde_json::to_string(&listing)
        }
        ChildTask::Run {
            platform_index,
            devices,
            scenario,
            variant,
            hold_ms,
            runs,
        } => {
            let Some(scenario) = scenarios::find(scenario) else {
                eprintln!("error: no scenario `{scenario}`");
                return EXIT_CANNOT_RUN;
            };
            let record = run_variant(
                scenario,
                *variant,
                *platform_index,
                *devices,
                Duration::from_millis(*hold_ms),
                *runs,
            );
            serde_json::to_string(&record)
        }
    };
    match json {
        Ok(json) => {
            println!("{json}");
            0
        }
        Err(e) => {
            eprintln!("error: writing the result: {e}");
            EXIT_CANNOT_RUN
        }
    }
}

/// Lists the device sets in a child process: this process never loads an OpenCL driver, so
/// no driver state it would leave (environment, open files) reaches the children.
fn list_device_sets(exe: &Path, args: &ConfirmArgs) -> Result<Listing, String> {
    let mut command = Command::new(exe);
    command.args([CHILD_COMMAND, "list"]);
    if let Some(platform) = &args.platform {
        command.args(["--platform", platform]);
    }
    match run_child(command, Duration::from_secs(args.timeout_s)) {
        ChildEnd::Done(stdout) => serde_json::from_str(stdout.trim())
            .map_err(|e| format!("unreadable answer from the child process: {e}")),
        ChildEnd::Died(detail) => Err(detail),
        ChildEnd::TimedOut => Err(format!("no answer in {} s", args.timeout_s)),
    }
}

/// Runs one variant in a child process and turns whatever happens to it into a record.
fn spawn_variant(
    exe: &Path,
    set: &DeviceSet,
    scenario: &Scenario,
    variant: Variant,
    args: &ConfirmArgs,
) -> VariantRecord {
    let variant_name = match variant {
        Variant::Buggy => "buggy",
        Variant::Fixed => "fixed",
    };
    let mut command = Command::new(exe);
    command
        .args([CHILD_COMMAND, "run"])
        .args(["--platform-index", &set.platform_index.to_string()])
        .args(["--devices", &set.devices.len().to_string()])
        .args(["--scenario", scenario.name])
        .args(["--variant", variant_name])
        .args(["--hold-ms", &args.hold_ms.to_string()])
        .args(["--runs", &args.runs.to_string()]);
    match run_child(command, Duration::from_secs(args.timeout_s)) {
        ChildEnd::Done(stdout) => match serde_json::from_str::<VariantRecord>(stdout.trim()) {
            Ok(record) => record,
            Err(e) => VariantRecord::without_result(Outcome::Crashed {
                detail: format!("unreadable record from the child process: {e}"),
            }),
        },
        ChildEnd::Died(detail) => VariantRecord::without_result(Outcome::Crashed { detail }),
        ChildEnd::TimedOut => VariantRecord::without_result(Outcome::TimedOut {
            after_s: args.timeout_s,
        }),
    }
}

/// How a child process ended.
enum ChildEnd {
    /// It exited with status 0; what it printed on stdout.
    Done(String),
    /// It could not start, died by a signal or exited with an error; how.
    Died(String),
    /// It was killed after the timeout.
    TimedOut,
}

fn run_child(mut command: Command, timeout: Duration) -> ChildEnd {
    let spawned = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn();
    let mut child = match spawned {
        Ok(child) => child,
        Err(e) => return ChildEnd::Died(format!("could not start the child process: {e}")),
    };
    let stdout = drain(child.stdout.take());
    let stderr = drain(child.stderr.take());
    let status = wait_with_timeout(&mut child, timeout);
    let stdout = stdout.join().unwrap_or_default();
    let stderr = stderr.join().unwrap_or_default();
    match status {
        None => ChildEnd::TimedOut,
        Some(status) if status.success() => ChildEnd::Done(stdout),
        Some(status) => ChildEnd::Died(describe_exit(status, &stderr)),
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
