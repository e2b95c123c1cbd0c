//! Running one variant of a scenario, in the process that will report it: the hold-back, the
//! comparison with the reference, and what the events say.

use std::error::Error;
use std::thread;
use std::time::{Duration, Instant};

use opencl3::command_queue::CommandQueue;
use opencl3::error_codes::ClError;
use opencl3::event::{
    create_user_event, set_user_event_status, Event, CL_COMMAND_MIGRATE_MEM_OBJECTS,
    CL_COMMAND_NDRANGE_KERNEL, CL_COMMAND_WRITE_BUFFER, CL_COMPLETE,
};
use opencl3::program::Program;
use opencl3::types::cl_float;
use serde::{Deserialize, Serialize};

use super::devices::Environment;
use super::scenarios::{Evidence, QueueSlot, RunFn, RunOutput, Scenario};

/// Which of a scenario's two versions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "snake_case")]
pub enum Variant {
    Buggy,
    Fixed,
}

/// What one run of a variant did.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Outcome {
    /// Every value matches the CPU reference.
    Matches,
    /// Some values differ from the reference.
    Differs {
        mismatched: usize,
        of: usize,
        first_index: usize,
        got: cl_float,
        expected: cl_float,
    },
    /// An OpenCL call returned an error (`code` when it is an OpenCL error code).
    Error { code: Option<i32>, message: String },
    /// The child process died.
    Crashed { detail: String },
    /// The child process did not finish in time and was killed.
    TimedOut { after_s: u64 },
}

/// What the harness reports for one variant on one device set.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct VariantRecord {
    pub outcome: Outcome,
    /// Bytes written from the host, counted from the events (uploads scenarios only).
    pub uploaded_bytes: Option<u64>,
    /// Device time of the migrations per time step, in milliseconds (timing scenarios only).
    pub migrate_ms: Option<f64>,
    /// Device time from the first kernel or migration to the last, per time step.
    pub step_ms: Option<f64>,
    /// `step_ms` of every run, in the order they ran (timing scenarios only).
    #[serde(default)]
    pub step_ms_runs: Vec<f64>,
    /// Host time spent in the scenario's `run`, hold-back included.
    pub wall_ms: f64,
    /// Runs measured; timings are the fastest run's.
    pub runs: usize,
}

impl VariantRecord {
    /// A record for a variant that produced no result of its own.
    pub fn without_result(outcome: Outcome) -> Self {
        VariantRecord {
            outcome,
            uploaded_bytes: None,
            migrate_ms: None,
            step_ms: None,
            step_ms_runs: Vec::new(),
            wall_ms: 0.0,
            runs: 0,
        }
    }
}

/// Runs `variant` of `scenario` on the device set `(platform_index, devices)`: `runs` times for
/// timing scenarios (keeping the fastest), once otherwise.
pub fn run_variant(
    scenario: &Scenario,
    variant: Variant,
    platform_index: usize,
    devices: usize,
    hold: Duration,
    runs: usize,
) -> VariantRecord {
    let env = match Environment::open(platform_index, devices) {
        Ok(env) => env,
        Err(message) => {
            return VariantRecord::without_result(Outcome::Error {
                code: None,
                message,
            })
        }
    };
    let run = match variant {
        Variant::Buggy => scenario.buggy,
        Variant::Fixed => scenario.fixed,
    };
    let reference = (scenario.reference)();
    // A first build fills the driver's compiler cache; its errors show again in the run.
    let _ = Program::create_and_build_from_source(&env.context, scenario.source, "");
    let runs = if !scenario.evidence.is_deterministic() {
        runs.max(1)
    } else {
        1
    };
    let mut best: Option<VariantRecord> = None;
    let mut done = 0;
    let mut step_ms_runs = Vec::new();
    while done < runs {
        let record = run_once(&env, scenario, run, &reference, hold);
        done += 1;
        step_ms_runs.extend(record.step_ms);
        if record.outcome != Outcome::Matches {
            best = Some(record);
            break;
        }
        best = match best {
            Some(b) if b.step_ms <= record.step_ms => Some(b),
            _ => Some(record),
        };
    }
    let mut best = best.expect("at least one run");
    best.runs = done;
    best.step_ms_runs = step_ms_runs;
    best
}

fn run_once(
    env: &Environment,
    scenario: &Scenario,
    run: RunFn,
    reference: &[cl_float],
    hold: Duration,
) -> VariantRecord {
    let held = scenario
        .hold
        .filter(|_| !hold.is_zero())
        .map(|slot| match slot {
            QueueSlot::Dev0 => &env.cmdq_dev0,
            QueueSlot::Dev1 => &env.cmdq_dev1,
        });
    let started = Instant::now();
    let result = match held {
        Some(queue) => run_held(env, queue, hold, run),
        None => run(&env.context, &env.cmdq_dev0, &env.cmdq_dev1).map_err(error_outcome),
    };
    let wall_ms = started.elapsed().as_secs_f64() * 1e3;
    // Whatever the scenario left queued finishes before its events are read.
    let finished = env.cmdq_dev0.finish().and(env.cmdq_dev1.finish());
    let (values, events) = match (result, finished) {
        (Err(outcome), _) => {
            let mut record = VariantRecord::without_result(outcome);
            record.wall_ms = wall_ms;
            return record;
        }
        (Ok(_), Err(e)) => {
            let mut record = VariantRecord::without_result(Outcome::Error {
                code: Some(e.0),
                message: format!("clFinish: {e}"),
            });
            record.wall_ms = wall_ms;
            return record;
        }
        (Ok(output), Ok(())) => output,
    };
    let (migrate_ms, step_ms) = if !scenario.evidence.is_deterministic() {
        timings(&events, scenario.steps)
    } else {
        (None, None)
    };
    VariantRecord {
        outcome: compare(&values, reference),
        uploaded_bytes: match scenario.evidence {
            Evidence::Clobber { bytes_per_write } => {
                Some(count_commands(&events, CL_COMMAND_WRITE_BUFFER) * bytes_per_write)
            }
            _ => None,
        },
        migrate_ms,
        step_ms,
        step_ms_runs: Vec::new(),
        wall_ms,
        runs: 1,
    }
}

/// Runs the scenario with `queue` held behind a user event that a timer thread completes after
/// `hold`. The queue is in order, so every command the scenario puts on it waits.
fn run_held(
    env: &Environment,
    queue: &CommandQueue,
    hold: Duration,
    run: RunFn,
) -> Result<RunOutput, Outcome> {
    let gate = Event::new(create_user_event(env.context.get()).map_err(cl_outcome)?);
    // SAFETY: `gate` outlives the barrier: it is released only after both queues finished.
    let barrier = unsafe { queue.enqueue_barrier_with_wait_list(&[gate.get()]) }
        .map_err(|e| cl_outcome(e.0))?;
    queue.flush().map_err(|e| cl_outcome(e.0))?;
    let result = thread::scope(|scope| {
        let release = scope.spawn(|| {
            thread::sleep(hold);
            set_user_event_status(gate.get(), CL_COMPLETE)
        });
        let result = run(&env.context, &env.cmdq_dev0, &env.cmdq_dev1).map_err(error_outcome);
        match release.join() {
            Ok(Ok(())) => result,
            Ok(Err(code)) => result.and(Err(cl_outcome(code))),
            Err(_) => result.and(Err(Outcome::Error {
                code: None,
                message: "the thread releasing the held queue panicked".into(),
            })),
        }
    });
    barrier.wait().map_err(|e| cl_outcome(e.0))?;
    result
}

fn cl_outcome(code: i32) -> Outcome {
    Outcome::Error {
        code: Some(code),
        message: ClError(code).to_string(),
    }
}

fn error_outcome(error: Box<dyn Error>) -> Outcome {
    Outcome::Error {
        code: error.downcast_ref::<ClError>().map(|e| e.0),
        message: error.to_string(),
    }
}

/// Values equal up to float rounding count as matching.
fn compare(values: &[cl_float], reference: &[cl_float]) -> Outcome {
    if values.len() != reference.len() {
        return Outcome::Error {
            code: None,
            message: format!(
                "{} values read back, {} expected",
                values.len(),
                reference.len()
            ),
        };
    }
    let differs = |(got, expected): &(&cl_float, &cl_float)| {
        (*got - *expected).abs() > 1e-5 * expected.abs().max(1.0) || got.is_nan()
    };
    let mut mismatches = values
        .iter()
        .zip(reference)
        .enumerate()
        .filter(|(_, p)| differs(p));
    match mismatches.next() {
        None => Outcome::Matches,
        Some((first_index, (&got, &expected))) => Outcome::Differs {
            mismatched: 1 + mismatches.count(),
            of: values.len(),
            first_index,
            got,
            expected,
        },
    }
}

fn count_commands(events: &[Event], command_type: u32) -> u64 {
    events
        .iter()
        .filter(|e| e.command_type().is_ok_and(|t| t.0 == command_type))
        .count() as u64
}

/// Migration time and step time per step, in milliseconds, from the profiling timestamps of
/// the kernels and migrations. Commands without timestamps (some drivers give migrations
/// start = end = 0) are left out of the step; the migration time is `None` when any
/// migration has none.
fn timings(events: &[Event], steps: usize) -> (Option<f64>, Option<f64>) {
    let mut migrate_ns = Some(0u64);
    let mut first_start = u64::MAX;
    let mut last_end = 0u64;
    for event in events {
        let Ok(command_type) = event.command_type().map(|t| t.0) else {
            continue;
        };
        let is_migration = command_type == CL_COMMAND_MIGRATE_MEM_OBJECTS;
        if !is_migration && command_type != CL_COMMAND_NDRANGE_KERNEL {
            continue;
        }
        let span = event
            .profiling_command_start()
            .and_then(|start| Ok((start, event.profiling_command_end()?)))
            .ok()
            .filter(|&(start, end)| start > 0 && end >= start);
        match span {
            Some((start, end)) => {
                if is_migration {
                    migrate_ns = migrate_ns.map(|ns| ns + (end - start));
                }
                first_start = first_start.min(start);
                last_end = last_end.max(end);
            }
            None if is_migration => migrate_ns = None,
            None => {}
        }
    }
    let per_step = |ns: u64| ns as f64 / 1e6 / steps.max(1) as f64;
    (
        migrate_ns.map(per_step),
        (last_end > first_start).then(|| per_step(last_end - first_start)),
    )
}
