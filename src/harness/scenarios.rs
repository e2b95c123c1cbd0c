//! The scenarios: the fixtures themselves, compiled in, each with a CPU reference and what the
//! harness looks at to tell whether its bug shows.

use std::error::Error;

use opencl3::command_queue::CommandQueue;
use opencl3::context::Context;
use opencl3::event::Event;
use opencl3::types::cl_float;

#[rustfmt::skip]
#[path = "../../fixtures/seed/buggy.rs"]
pub mod seed_buggy;
#[rustfmt::skip]
#[path = "../../fixtures/seed/fixed.rs"]
pub mod seed_fixed;

#[rustfmt::skip]
#[path = "../../fixtures/host-pointer-kernel-arg/case.rs"]
pub mod host_pointer_kernel_arg_case;
#[rustfmt::skip]
#[path = "../../fixtures/host-pointer-kernel-arg/fixed.rs"]
pub mod host_pointer_kernel_arg_fixed;

#[rustfmt::skip]
#[path = "../../fixtures/host-migration-between-devices/case.rs"]
pub mod host_migration_between_devices_case;
#[rustfmt::skip]
#[path = "../../fixtures/host-migration-between-devices/fixed.rs"]
pub mod host_migration_between_devices_fixed;

#[rustfmt::skip]
#[path = "../../fixtures/missing-wait-list/case.rs"]
pub mod missing_wait_list_case;
#[rustfmt::skip]
#[path = "../../fixtures/missing-wait-list/fixed.rs"]
pub mod missing_wait_list_fixed;

#[rustfmt::skip]
#[path = "../../fixtures/duplicate-shared-buffer-init/case.rs"]
pub mod duplicate_shared_buffer_init_case;
#[rustfmt::skip]
#[path = "../../fixtures/duplicate-shared-buffer-init/fixed.rs"]
pub mod duplicate_shared_buffer_init_fixed;

#[rustfmt::skip]
#[path = "../../fixtures/migration-on-source-queue/case.rs"]
pub mod migration_on_source_queue_case;
#[rustfmt::skip]
#[path = "../../fixtures/migration-on-source-queue/fixed.rs"]
pub mod migration_on_source_queue_fixed;

/// What a scenario's `run` returns: the values it read back and the events of its commands.
pub type RunOutput = (Vec<cl_float>, Vec<Event>);

/// A scenario's entry point, buggy or fixed.
pub type RunFn = fn(&Context, &CommandQueue, &CommandQueue) -> Result<RunOutput, Box<dyn Error>>;

/// The queue a scenario is handed as `cmdq_dev0` or `cmdq_dev1`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QueueSlot {
    Dev0,
    Dev1,
}

/// What shows a scenario's bug.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Evidence {
    /// The buggy variant fails: the driver returns an error, the process crashes or hangs,
    /// or the result differs from the reference.
    Failure,
    /// The buggy variant's result differs from the reference while a queue is held back.
    StaleData,
    /// The buggy variant's second upload of the same data lands, while its queue is held
    /// back, over a result the other device already computed (the result differs from the
    /// reference), and it uploads more bytes than the fixed one; every upload of the
    /// scenario writes `bytes_per_write` bytes.
    Clobber { bytes_per_write: u64 },
    /// Both variants are correct; the buggy one moves memory the slow way. Compared by time.
    /// With `host_round_trip`, the slow way goes through host memory, which costs time on
    /// one device too (unless the device works in host memory).
    Timing { host_round_trip: bool },
}

impl Evidence {
    /// Whether the bug shows on every run, so that not seeing it is a failure of the harness.
    pub fn is_deterministic(self) -> bool {
        !matches!(self, Evidence::Timing { .. })
    }
}

/// One buggy/fixed pair.
pub struct Scenario {
    /// The fixture directory's name.
    pub name: &'static str,
    /// The rules whose bugs the buggy variant has.
    pub rules: &'static [&'static str],
    pub buggy: RunFn,
    pub fixed: RunFn,
    pub reference: fn() -> Vec<cl_float>,
    /// The kernels' OpenCL C source, built once before the variant runs so that compiling it
    /// does not eat into the hold-back.
    pub source: &'static str,
    /// The queue held behind a user event while the scenario starts.
    pub hold: Option<QueueSlot>,
    pub evidence: Evidence,
    /// Time steps per run, to report timings per step.
    pub steps: usize,
}

/// All scenarios, in the order they are run and reported.
pub const SCENARIOS: &[Scenario] = &[
    Scenario {
        name: "seed",
        rules: &["CLM001", "CLM002", "CLM003", "CLM004"],
        buggy: seed_buggy_run,
        fixed: seed_fixed_run,
        reference: seed_reference,
        source: seed_fixed::SOURCE,
        hold: Some(QueueSlot::Dev0),
        evidence: Evidence::Failure,
        steps: seed_fixed::STEPS,
    },
    Scenario {
        name: "host-pointer-kernel-arg",
        rules: &["CLM001"],
        buggy: host_pointer_kernel_arg_case::run,
        fixed: host_pointer_kernel_arg_fixed::run,
        reference: host_pointer_kernel_arg_reference,
        source: host_pointer_kernel_arg_fixed::SOURCE,
        hold: None,
        evidence: Evidence::Failure,
        steps: 1,
    },
    Scenario {
        name: "host-migration-between-devices",
        rules: &["CLM002"],
        buggy: host_migration_between_devices_case::run,
        fixed: host_migration_between_devices_fixed::run,
        reference: host_migration_between_devices_reference,
        source: host_migration_between_devices_fixed::SOURCE,
        hold: None,
        evidence: Evidence::Timing {
            host_round_trip: true,
        },
        steps: host_migration_between_devices_fixed::STEPS,
    },
    Scenario {
        name: "missing-wait-list",
        rules: &["CLM003"],
        buggy: missing_wait_list_case::run,
        fixed: missing_wait_list_fixed::run,
        reference: missing_wait_list_reference,
        source: missing_wait_list_fixed::SOURCE,
        hold: Some(QueueSlot::Dev0),
        evidence: Evidence::StaleData,
        steps: 1,
    },
    Scenario {
        name: "duplicate-shared-buffer-init",
        rules: &["CLM004", "CLM003"],
        buggy: duplicate_shared_buffer_init_case::run,
        fixed: duplicate_shared_buffer_init_fixed::run,
        reference: duplicate_shared_buffer_init_reference,
        source: duplicate_shared_buffer_init_fixed::SOURCE,
        hold: Some(QueueSlot::Dev1),
        evidence: Evidence::Clobber {
            bytes_per_write: (duplicate_shared_buffer_init_fixed::N * size_of::<cl_float>()) as u64,
        },
        steps: 1,
    },
    Scenario {
        name: "migration-on-source-queue",
        rules: &["CLM005"],
        buggy: migration_on_source_queue_case::run,
        fixed: migration_on_source_queue_fixed::run,
        reference: migration_on_source_queue_reference,
        source: migration_on_source_queue_fixed::SOURCE,
        hold: None,
        evidence: Evidence::Timing {
            host_round_trip: false,
        },
        steps: migration_on_source_queue_fixed::STEPS,
    },
];

/// The scenario named `name`, or the one for rule code `name`.
pub fn find(name: &str) -> Option<&'static Scenario> {
    SCENARIOS
        .iter()
        .find(|s| s.name == name || (s.rules.len() == 1 && s.rules[0].eq_ignore_ascii_case(name)))
}

fn seed_buggy_run(
    context: &Context,
    cmdq_dev0: &CommandQueue,
    cmdq_dev1: &CommandQueue,
) -> Result<RunOutput, Box<dyn Error>> {
    seed_buggy::run(context, cmdq_dev0, cmdq_dev1).map(|values| (values, Vec::new()))
}

fn seed_fixed_run(
    context: &Context,
    cmdq_dev0: &CommandQueue,
    cmdq_dev1: &CommandQueue,
) -> Result<RunOutput, Box<dyn Error>> {
    seed_fixed::run(context, cmdq_dev0, cmdq_dev1).map(|values| (values, Vec::new()))
}

/// The halo exchange: `STEPS` times `halo * 0.5 + own0`, then `halo + own1 * 2`.
fn seed_reference() -> Vec<cl_float> {
    let n = seed_fixed::N;
    (0..n)
        .map(|i| {
            let own0 = i as cl_float;
            let own1 = (n - i) as cl_float;
            (0..seed_fixed::STEPS).fold(1.0, |halo, _| (halo * 0.5 + own0) + own1 * 2.0)
        })
        .collect()
}

fn host_pointer_kernel_arg_reference() -> Vec<cl_float> {
    (0..host_pointer_kernel_arg_fixed::N)
        .map(|i| i as cl_float * 2.0 + 1.0)
        .collect()
}

/// `steps` time steps of `halo * 0.5 + 1`, then `halo + 2`, from `i % 1024`.
fn halo_steps(n: usize, steps: usize) -> Vec<cl_float> {
    (0..n)
        .map(|i| (0..steps).fold((i % 1024) as cl_float, |halo, _| (halo * 0.5 + 1.0) + 2.0))
        .collect()
}

fn host_migration_between_devices_reference() -> Vec<cl_float> {
    halo_steps(
        host_migration_between_devices_fixed::N,
        host_migration_between_devices_fixed::STEPS,
    )
}

fn missing_wait_list_reference() -> Vec<cl_float> {
    (0..missing_wait_list_fixed::N)
        .map(|i| ((i % 1024) as cl_float * 2.0 + 1.0) + 10.0)
        .collect()
}

fn duplicate_shared_buffer_init_reference() -> Vec<cl_float> {
    halo_steps(duplicate_shared_buffer_init_fixed::N, 1)
}

fn migration_on_source_queue_reference() -> Vec<cl_float> {
    halo_steps(
        migration_on_source_queue_fixed::N,
        migration_on_source_queue_fixed::STEPS,
    )
}
