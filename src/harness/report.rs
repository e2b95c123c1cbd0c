//! Verdicts, the table and the JSON report.

use serde::{Deserialize, Serialize};

use super::devices::DeviceSet;
use super::scenarios::{Evidence, Scenario};
use super::variant::{Outcome, VariantRecord};

/// Whether a scenario's bug and fix showed on a device set.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// The bug showed and the fixed variant matched the reference.
    Confirmed,
    /// The device set cannot show the difference; the fixed variant matched the reference.
    NotObservable,
    /// The bug did not show, or the fixed variant failed.
    NotConfirmed,
}

impl Verdict {
    fn text(self) -> &'static str {
        match self {
            Verdict::Confirmed => "confirmed",
            Verdict::NotObservable => "not observable",
            Verdict::NotConfirmed => "NOT CONFIRMED",
        }
    }
}

/// One scenario on one device set.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ScenarioResult {
    pub scenario: String,
    pub rules: Vec<String>,
    pub device_set: String,
    pub buggy: VariantRecord,
    pub fixed: VariantRecord,
    pub verdict: Verdict,
    /// Why the verdict is what it is.
    pub reason: String,
    /// Buggy over fixed, for the timing scenarios.
    pub migrate_ratio: Option<f64>,
    pub step_ratio: Option<f64>,
    /// Whether this result makes `confirm` exit non-zero.
    pub fails_run: bool,
}

/// Everything `confirm --json` prints.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Report {
    pub hold_ms: u64,
    pub device_sets: Vec<DeviceSet>,
    pub results: Vec<ScenarioResult>,
    /// No fixed variant failed and every deterministic bug reproduced.
    pub ok: bool,
}

/// Judges one scenario from its two records.
pub fn judge(
    scenario: &Scenario,
    set: &DeviceSet,
    buggy: VariantRecord,
    fixed: VariantRecord,
) -> ScenarioResult {
    let ratio = |b: Option<f64>, f: Option<f64>| match (b, f) {
        (Some(b), Some(f)) if f > 0.0 => Some(b / f),
        _ => None,
    };
    let migrate_ratio = ratio(buggy.migrate_ms, fixed.migrate_ms);
    let step_ratio = ratio(buggy.step_ms, fixed.step_ms);
    let (verdict, reason) = if fixed.outcome != Outcome::Matches {
        (
            Verdict::NotConfirmed,
            "the fixed variant does not match the reference".to_string(),
        )
    } else {
        match scenario.evidence {
            Evidence::Failure if buggy.outcome != Outcome::Matches => (
                Verdict::Confirmed,
                "the buggy variant fails, the fixed one matches".into(),
            ),
            Evidence::Failure => (
                Verdict::NotConfirmed,
                "the buggy variant matches the reference".into(),
            ),
            Evidence::StaleData if matches!(buggy.outcome, Outcome::Differs { .. }) => (
                Verdict::Confirmed,
                "with the producer's queue held back the buggy variant reads stale data".into(),
            ),
            Evidence::StaleData => (
                Verdict::NotConfirmed,
                "the buggy variant read no stale data while the producer was held back".into(),
            ),
            Evidence::Clobber { .. } => match (buggy.uploaded_bytes, fixed.uploaded_bytes) {
                (Some(b), Some(f)) if b > f && buggy.outcome != Outcome::Matches => (
                    Verdict::Confirmed,
                    format!(
                        "the second upload clobbered the result while its queue was held back; \
                         the buggy variant uploads {b} bytes, the fixed one {f}"
                    ),
                ),
                (Some(b), Some(f)) if b > f => (
                    Verdict::NotConfirmed,
                    "the second upload did not clobber the result while its queue was held back"
                        .into(),
                ),
                _ => (
                    Verdict::NotConfirmed,
                    "the buggy variant uploads no more than the fixed one".into(),
                ),
            },
            Evidence::Timing {
                host_round_trip: true,
            } if set.devices.len() < 2 && !set.devices.iter().all(|d| d.host_unified_memory) => {
                round_trip_verdict(&buggy, &fixed)
            }
            Evidence::Timing { .. } => match set.why_moves_unobservable() {
                Some(why) => (Verdict::NotObservable, why.into()),
                None if step_ratio.is_some_and(|r| r > 1.05) => (
                    Verdict::Confirmed,
                    "the buggy variant's time step is slower".into(),
                ),
                None => (
                    Verdict::NotConfirmed,
                    "the buggy variant's time step is not measurably slower".into(),
                ),
            },
        }
    };
    let fails_run = fixed.outcome != Outcome::Matches
        || (scenario.evidence.is_deterministic() && verdict == Verdict::NotConfirmed);
    ScenarioResult {
        scenario: scenario.name.into(),
        rules: scenario.rules.iter().map(|r| r.to_string()).collect(),
        device_set: set.label(),
        buggy,
        fixed,
        verdict,
        reason,
        migrate_ratio,
        step_ratio,
        fails_run,
    }
}

/// The table: one row per scenario and device set, then the device sets and a summary line.
pub fn table(report: &Report) -> String {
    let header = ["scenario", "device set", "buggy", "fixed", "verdict"].map(String::from);
    let rows: Vec<[String; 5]> = report
        .results
        .iter()
        .map(|r| {
            let verdict = match r.verdict {
                Verdict::Confirmed => r.verdict.text().to_string(),
                _ => format!("{} ({})", r.verdict.text(), r.reason),
            };
            [
                format!("{} ({})", r.scenario, r.rules.join(" ")),
                r.device_set.clone(),
                cell(&r.buggy, r.migrate_ratio, r.step_ratio),
                cell(&r.fixed, None, None),
                verdict,
            ]
        })
        .collect();
    let mut widths = header.clone().map(|h| h.chars().count());
    for row in &rows {
        for (width, text) in widths.iter_mut().zip(row) {
            *width = (*width).max(text.chars().count());
        }
    }
    let mut out = String::new();
    for row in std::iter::once(&header).chain(&rows) {
        let line = row
            .iter()
            .zip(widths)
            .map(|(text, width)| format!("{text:<width$}"))
            .collect::<Vec<_>>()
            .join("  ");
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out.push('\n');
    for set in &report.device_sets {
        out.push_str(&format!("{}: {}", set.label(), set.platform));
        for d in &set.devices {
            out.push_str(&format!(
                "; {} {} ({}, driver {}, host-unified memory: {})",
                d.kind,
                d.name,
                d.version,
                d.driver_version,
                if d.host_unified_memory { "yes" } else { "no" }
            ));
        }
        out.push('\n');
    }
    let failing = report.results.iter().filter(|r| r.fails_run).count();
    out.push_str(&if failing == 0 {
        format!(
            "ok: every fix matches the reference and every deterministic bug reproduced \
             (queue held back {} ms)\n",
            report.hold_ms
        )
    } else {
        format!("FAILED: {failing} scenario result(s) above are not confirmed\n")
    });
    out
}

fn cell(record: &VariantRecord, migrate_ratio: Option<f64>, step_ratio: Option<f64>) -> String {
    let mut text = match &record.outcome {
        Outcome::Matches => "matches reference".to_string(),
        Outcome::Differs {
            mismatched,
            of,
            first_index,
            got,
            expected,
        } => format!(
            "{mismatched}/{of} values differ ([{first_index}] = {got}, expected {expected})"
        ),
        Outcome::Error {
            code: Some(code),
            message,
        } => format!("error {message} ({code})"),
        Outcome::Error {
            code: None,
            message,
        } => format!("error: {message}"),
        Outcome::Crashed { detail } => format!("crashed: {detail}"),
        Outcome::TimedOut { after_s } => format!("hung: killed after {after_s} s"),
    };
    if let Some(bytes) = record.uploaded_bytes {
        text.push_str(&format!("; uploaded {} KiB", bytes / 1024));
    }
    let with_ratio = |ms: f64, ratio: Option<f64>| match ratio {
        Some(r) => format!("{} (x{r:.2})", duration(ms)),
        None => duration(ms),
    };
    if let Some(ms) = record.migrate_ms {
        text.push_str(&format!("; migrate {}", with_ratio(ms, migrate_ratio)));
    }
    if let Some(ms) = record.step_ms {
        text.push_str(&format!("; step {}", with_ratio(ms, step_ratio)));
    }
    text
}

/// Runs of each variant a cost must show in to be confirmed.
const MIN_RUNS: usize = 3;

/// On one device with its own memory, a migration to the host and back costs a round trip
/// through host memory: confirmed when every run of the buggy variant was slower than every
/// run of the fixed one, by more than 5 %, over at least [`MIN_RUNS`] runs each.
fn round_trip_verdict(buggy: &VariantRecord, fixed: &VariantRecord) -> (Verdict, String) {
    let range = |runs: &[f64]| {
        let min = runs.iter().copied().fold(f64::INFINITY, f64::min);
        let max = runs.iter().copied().fold(0.0, f64::max);
        (min, max)
    };
    let (b, f) = (&buggy.step_ms_runs, &fixed.step_ms_runs);
    if b.len() < MIN_RUNS || f.len() < MIN_RUNS {
        return (
            Verdict::NotConfirmed,
            format!("fewer than {MIN_RUNS} timed runs of each variant"),
        );
    }
    let ((b_min, b_max), (f_min, f_max)) = (range(b), range(f));
    if b_min > f_max * 1.05 {
        (
            Verdict::Confirmed,
            format!(
                "one device: the round trip through host memory that \
                 `CL_MIGRATE_MEM_OBJECT_HOST` forces costs {} per step; each of the buggy \
                 variant's {} runs ({} to {}) is slower than each of the fixed variant's {} \
                 ({} to {})",
                duration(b_min - f_max),
                b.len(),
                duration(b_min),
                duration(b_max),
                f.len(),
                duration(f_min),
                duration(f_max)
            ),
        )
    } else {
        (
            Verdict::NotConfirmed,
            format!(
                "one device: the buggy variant's steps ({} to {}) are not all slower than the \
                 fixed variant's ({} to {})",
                duration(b_min),
                duration(b_max),
                duration(f_min),
                duration(f_max)
            ),
        )
    }
}

/// Milliseconds, or microseconds below a tenth of a millisecond.
fn duration(ms: f64) -> String {
    if ms < 0.1 {
        format!("{:.1} us", ms * 1e3)
    } else {
        format!("{ms:.3} ms")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::devices::DeviceInfo;
    use crate::harness::scenarios;

    fn timed(step_ms_runs: &[f64]) -> VariantRecord {
        VariantRecord {
            step_ms: step_ms_runs.iter().copied().reduce(f64::min),
            step_ms_runs: step_ms_runs.to_vec(),
            runs: step_ms_runs.len(),
            ..VariantRecord::without_result(Outcome::Matches)
        }
    }

    fn one_gpu(host_unified_memory: bool) -> DeviceSet {
        DeviceSet {
            platform_index: 0,
            platform: "GPU".into(),
            platform_version: "OpenCL 3.0".into(),
            devices: vec![DeviceInfo {
                name: "GPU".into(),
                vendor: "vendor".into(),
                kind: "GPU".into(),
                version: "OpenCL 3.0".into(),
                driver_version: "1".into(),
                host_unified_memory,
            }],
        }
    }

    #[test]
    fn a_host_round_trip_on_one_gpu_is_a_confirmed_cost() {
        let scenario = scenarios::find("CLM002").expect("the scenario");
        let r = judge(
            scenario,
            &one_gpu(false),
            timed(&[16.1, 16.4, 16.2]),
            timed(&[0.046, 0.045, 0.047]),
        );
        assert_eq!(r.verdict, Verdict::Confirmed, "{}", r.reason);
        assert!(
            r.reason.contains("each of the buggy variant's 3 runs"),
            "{}",
            r.reason
        );
        let overlap = judge(
            scenario,
            &one_gpu(false),
            timed(&[1.0, 3.0, 1.1]),
            timed(&[1.0, 1.2, 2.0]),
        );
        assert_eq!(overlap.verdict, Verdict::NotConfirmed, "{}", overlap.reason);
        let few = judge(scenario, &one_gpu(false), timed(&[16.1]), timed(&[0.05]));
        assert_eq!(few.verdict, Verdict::NotConfirmed, "{}", few.reason);
        let shared = judge(
            scenario,
            &one_gpu(true),
            timed(&[16.1, 16.4, 16.2]),
            timed(&[0.046, 0.045, 0.047]),
        );
        assert_eq!(shared.verdict, Verdict::NotObservable, "{}", shared.reason);
    }
}
