//! The OpenCL layer of `cargo clmigrate-lint run`, tested two ways:
//!
//! - on PoCL's two CPU devices, through `run`: every rule fixture's buggy and fixed variant
//!   (the programs `confirm` runs, compiled into the binary) and the binding fixtures (compiled
//!   into this test, which runs one of them when called as `layer program NAME`). Each buggy
//!   program reports its rule, each fixed one reports nothing. PoCL orders every command on a
//!   buffer internally, so a race computes the right numbers there: what is checked is what
//!   the layer concludes from the API calls;
//! - against a stub driver: a dispatch table of functions in this file that hand out handles
//!   and do nothing, given to the layer's `clInitLayer` as a loader would, so each ordering
//!   rule of the API is checked on its own, with no driver in the way.
//!
//! It has its own `main` (`harness = false`) so that it can be the program `run` runs.

#[rustfmt::skip]
#[path = "../fixtures/seed-cl3/buggy.rs"]
mod cl3_buggy;
#[rustfmt::skip]
#[path = "../fixtures/seed-cl3/fixed.rs"]
mod cl3_fixed;
#[rustfmt::skip]
#[path = "../fixtures/seed-ffi/buggy.rs"]
mod ffi_buggy;
#[rustfmt::skip]
#[path = "../fixtures/seed-ffi/fixed.rs"]
mod ffi_fixed;
#[rustfmt::skip]
#[path = "../fixtures/interprocedural/case.rs"]
#[allow(dead_code)]
mod interprocedural_case;
#[rustfmt::skip]
#[path = "../fixtures/interprocedural/fixed.rs"]
#[allow(dead_code)]
mod interprocedural_fixed;
#[rustfmt::skip]
#[path = "../fixtures/ocl/case.rs"]
#[allow(dead_code)]
mod ocl_case;
#[rustfmt::skip]
#[path = "../fixtures/ocl/fixed.rs"]
mod ocl_fixed;
#[rustfmt::skip]
#[path = "../fixtures/ocl-core/case.rs"]
#[allow(dead_code)]
mod ocl_core_case;
#[rustfmt::skip]
#[path = "../fixtures/ocl-core/fixed.rs"]
#[allow(dead_code)]
mod ocl_core_fixed;
#[rustfmt::skip]
#[path = "../fixtures/unreleased-event/case.rs"]
#[allow(dead_code)]
mod unreleased_case;
#[rustfmt::skip]
#[path = "../fixtures/unreleased-event/fixed.rs"]
#[allow(dead_code)]
mod unreleased_fixed;

#[path = "layer/stub.rs"]
mod stub;

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::process::Command;

use opencl3::command_queue::CommandQueue;
use opencl3::context::Context;
use opencl3::device::{Device, CL_DEVICE_TYPE_ALL};
use opencl3::kernel::Kernel;
use opencl3::platform::get_platforms;
use opencl3::program::Program;

const BIN: &str = env!("CARGO_BIN_EXE_cargo-clmigrate-lint");

/// Two PoCL CPU devices in one context, with a queue on each.
fn two_devices() -> (Context, CommandQueue, CommandQueue) {
    let platform = get_platforms()
        .expect("an OpenCL platform (install pocl-opencl-icd)")
        .into_iter()
        .find(|p| p.name().is_ok_and(|n| n.contains("Portable")))
        .expect("the PoCL platform");
    let ids = platform.get_devices(CL_DEVICE_TYPE_ALL).expect("devices");
    assert!(ids.len() >= 2, "POCL_DEVICES=\"pthread pthread\"");
    let context =
        Context::from_devices(&ids[..2], &[], None, std::ptr::null_mut()).expect("a context");
    let q0 = CommandQueue::create_default_with_properties(&context, 0, 0).expect("queue 0");
    let q1 =
        unsafe { CommandQueue::create_with_properties(&context, Device::new(ids[1]).id(), 0, 0) }
            .expect("queue 1");
    (context, q0, q1)
}

fn ocl_devices() -> (ocl::Context, ocl::Queue, ocl::Queue) {
    let platform = ocl::Platform::list()
        .into_iter()
        .find(|p| p.name().is_ok_and(|n| n.contains("Portable")))
        .expect("the PoCL platform");
    let devices = ocl::Device::list_all(platform).expect("PoCL devices");
    let context = ocl::Context::builder()
        .platform(platform)
        .devices(&devices[..2])
        .build()
        .expect("a context");
    let q0 = ocl::Queue::new(&context, devices[0], None).expect("queue 0");
    let q1 = ocl::Queue::new(&context, devices[1], None).expect("queue 1");
    (context, q0, q1)
}

fn ocl_core_devices() -> (
    ocl_core::Context,
    ocl_core::CommandQueue,
    ocl_core::CommandQueue,
) {
    use ocl_core::{ContextProperties, PlatformInfo, DEVICE_TYPE_ALL};
    let platform = ocl_core::get_platform_ids()
        .expect("OpenCL platforms")
        .into_iter()
        .find(|p| {
            ocl_core::get_platform_info(p, PlatformInfo::Name)
                .is_ok_and(|n| n.to_string().contains("Portable"))
        })
        .expect("the PoCL platform");
    let devices =
        ocl_core::get_device_ids(platform, Some(DEVICE_TYPE_ALL), None).expect("PoCL devices");
    let properties = ContextProperties::new().platform(platform);
    let context =
        ocl_core::create_context(Some(&properties), &devices[..2], None, None).expect("a context");
    let q0 = ocl_core::create_command_queue(&context, devices[0], None).expect("queue 0");
    let q1 = ocl_core::create_command_queue(&context, devices[1], None).expect("queue 1");
    (context, q0, q1)
}

/// A kernel of no arguments, for the fixtures that take one.
fn empty_kernel(context: &Context) -> Kernel {
    let program = Program::create_and_build_from_source(context, "__kernel void nothing() {}", "")
        .expect("builds");
    Kernel::create(&program, "nothing").expect("the kernel")
}

/// The binding fixtures' programs: name, the rule its bug is reported under (`None`: the
/// corrected program) and what it runs. Results are left to `binding_fixtures.rs`; here a
/// failing call is fine (the buggy seeds fail at their first bug).
type Case = (&'static str, Option<&'static str>, fn());

const PROGRAMS: &[Case] = &[
    ("cl3-buggy", Some("CLM001"), || {
        let (c, q0, q1) = two_devices();
        let _ = unsafe { cl3_buggy::run(c.get(), q0.get(), q1.get()) };
    }),
    ("cl3-fixed", None, || {
        let (c, q0, q1) = two_devices();
        unsafe { cl3_fixed::run(c.get(), q0.get(), q1.get()) }.expect("runs");
    }),
    ("ffi-buggy", Some("CLM001"), || {
        let (c, q0, q1) = two_devices();
        let _ = unsafe { ffi_buggy::run(c.get(), q0.get(), q1.get()) };
    }),
    ("ffi-fixed", None, || {
        let (c, q0, q1) = two_devices();
        unsafe { ffi_fixed::run(c.get(), q0.get(), q1.get()) }.expect("runs");
    }),
    ("interprocedural-case", Some("CLM003"), || {
        let (c, q0, q1) = two_devices();
        interprocedural_case::caller_does_not_wait(&c, &q0, &q1).expect("runs");
    }),
    ("interprocedural-fixed", None, || {
        let (c, q0, q1) = two_devices();
        interprocedural_fixed::caller_waits(&c, &q0, &q1).expect("runs");
    }),
    ("ocl-read-case", Some("CLM003"), || {
        let (c, q0, q1) = ocl_devices();
        ocl_case::read_before_produced(&c, &q0, &q1).expect("runs");
    }),
    ("ocl-fill-case", Some("CLM003"), || {
        let (c, q0, q1) = ocl_devices();
        ocl_case::fill_not_waited(&c, &q0, &q1).expect("runs");
    }),
    ("ocl-fixed", None, || {
        let (c, q0, q1) = ocl_devices();
        ocl_fixed::read_after_produced(&c, &q0, &q1).expect("runs");
        ocl_fixed::fill_waited(&c, &q0, &q1).expect("runs");
    }),
    ("ocl-core-read-case", Some("CLM003"), || {
        let (c, q0, q1) = ocl_core_devices();
        ocl_core_case::read_before_produced(&c, &q0, &q1).expect("runs");
    }),
    ("ocl-core-migrate-case", Some("CLM003"), || {
        let (c, q0, q1) = ocl_core_devices();
        ocl_core_case::migrate_before_produced(&c, &q0, &q1).expect("runs");
    }),
    ("ocl-core-host-migration-case", Some("CLM002"), || {
        let (c, q0, q1) = ocl_core_devices();
        ocl_core_case::migrate_through_host(&c, &q0, &q1).expect("runs");
    }),
    ("ocl-core-fixed", None, || {
        let (c, q0, q1) = ocl_core_devices();
        ocl_core_fixed::read_after_produced(&c, &q0, &q1).expect("runs");
        ocl_core_fixed::migrate_after_produced(&c, &q0, &q1).expect("runs");
        ocl_core_fixed::buffer_as_kernel_arg(&c, &q0).expect("runs");
    }),
    ("unreleased-event-case", Some("CLM006"), || {
        let (c, q0, _) = two_devices();
        let k = empty_kernel(&c);
        unsafe {
            unreleased_case::user_event(c.get()).expect("runs");
            unreleased_case::launch(q0.get(), k.get(), 16).expect("runs");
            unreleased_case::ffi_out_param(q0.get(), k.get(), 16);
        }
    }),
    ("unreleased-event-fixed", None, || {
        let (c, q0, _) = two_devices();
        let k = empty_kernel(&c);
        unsafe {
            unreleased_fixed::user_event(c.get()).expect("runs");
            unreleased_fixed::launch(q0.get(), k.get(), 16).expect("runs");
            unreleased_fixed::ffi_out_param(q0.get(), k.get(), 16);
        }
    }),
];

/// The rule fixtures `confirm` runs, with the rule each buggy variant is reported under.
const SCENARIOS: &[(&str, &str)] = &[
    ("seed", "CLM001"),
    ("host-pointer-kernel-arg", "CLM001"),
    ("host-migration-between-devices", "CLM002"),
    ("missing-wait-list", "CLM003"),
    ("duplicate-shared-buffer-init", "CLM004"),
    ("migration-on-source-queue", "CLM005"),
];

/// `run --format json -- ARGS`: the rule codes reported, and the human output for messages.
fn run_under_layer(args: &[&str]) -> (BTreeSet<String>, String) {
    let out = Command::new(BIN)
        .args(["run", "--format", "json", "--"])
        .args(args)
        .env("POCL_DEVICES", "pthread pthread")
        .output()
        .expect("runs");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let mut codes = BTreeSet::new();
    let mut rendered = String::new();
    for line in stdout.lines() {
        let Ok(v) = serde_json::from_str::<serde_json::Value>(line) else {
            continue;
        };
        if let Some(code) = v["message"]["code"]["code"].as_str() {
            codes.insert(code.to_string());
            rendered.push_str(v["message"]["rendered"].as_str().unwrap_or(""));
        }
    }
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !stderr.contains("the layer did not start"),
        "{args:?}: the layer did not start: {stderr}"
    );
    (codes, format!("{rendered}\n{stderr}"))
}

/// Runs `f` on each item on two threads (two cores; each program is mostly waiting on
/// PoCL's compiler).
fn in_parallel<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let chunks: Vec<&[T]> = items.chunks(items.len().div_ceil(2).max(1)).collect();
    std::thread::scope(|s| {
        let handles: Vec<_> = chunks
            .iter()
            .map(|chunk| s.spawn(|| chunk.iter().map(&f).collect::<Vec<R>>()))
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("no panic"))
            .collect()
    })
}

/// `cargo test` does not build a `cdylib`: the layer must be built, and newer than its
/// sources (`scripts/test.sh` builds it).
fn layer_built() {
    let layer = PathBuf::from(BIN).with_file_name("libclmigrate_layer.so");
    let built = std::fs::metadata(&layer)
        .and_then(|m| m.modified())
        .unwrap_or_else(|_| {
            panic!(
                "{} is missing: run `cargo build -p clmigrate-layer`",
                layer.display()
            )
        });
    let sources = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("layer/src");
    for entry in std::fs::read_dir(&sources).expect("the layer's sources") {
        let path = entry.expect("an entry").path();
        let changed = std::fs::metadata(&path)
            .and_then(|m| m.modified())
            .expect("a time");
        assert!(
            changed <= built,
            "{} is older than {}: run `cargo build -p clmigrate-layer`",
            layer.display(),
            path.display()
        );
    }
}

fn rule_fixtures_report_their_rule_and_fixes_nothing() {
    layer_built();
    let mut runs = Vec::new();
    for (scenario, code) in SCENARIOS {
        runs.push((*scenario, "buggy", Some(*code)));
        runs.push((*scenario, "fixed", None));
    }
    let results = in_parallel(&runs, |(scenario, variant, _)| {
        run_under_layer(&[
            BIN,
            "confirm-child",
            "run",
            "--platform-index",
            &pocl_index(),
            "--devices",
            "2",
            "--scenario",
            scenario,
            "--variant",
            variant,
            "--hold-ms",
            "0",
            "--runs",
            "1",
        ])
    });
    for ((scenario, variant, code), (codes, text)) in runs.iter().zip(results) {
        match code {
            Some(code) => assert!(
                codes.contains(*code),
                "{scenario} {variant}: expected {code}, got {codes:?}\n{text}"
            ),
            None => assert!(
                codes.is_empty(),
                "{scenario} {variant}: expected nothing, got {codes:?}\n{text}"
            ),
        }
    }
}

/// PoCL's position in the platform list, as `confirm-child run` takes it.
fn pocl_index() -> String {
    let out = Command::new(BIN)
        .args(["confirm-child", "list", "--platform", "Portable"])
        .env("POCL_DEVICES", "pthread pthread")
        .output()
        .expect("lists");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("a JSON listing");
    v["sets"][0]["platform_index"]
        .as_u64()
        .expect("the PoCL platform")
        .to_string()
}

fn binding_fixtures_report_their_rule_and_fixes_nothing() {
    layer_built();
    let me = std::env::current_exe().expect("this test's path");
    let me = me.to_string_lossy();
    let results = in_parallel(PROGRAMS, |(name, _, _)| {
        run_under_layer(&[&me, "program", name])
    });
    for ((name, code, _), (codes, text)) in PROGRAMS.iter().zip(results) {
        match code {
            Some(code) => assert!(
                codes.contains(*code),
                "{name}: expected {code}, got {codes:?}\n{text}"
            ),
            None => assert!(
                codes.is_empty(),
                "{name}: expected nothing, got {codes:?}\n{text}"
            ),
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("program") {
        let name = args.get(2).map(String::as_str).unwrap_or("");
        let (_, _, program) = PROGRAMS
            .iter()
            .find(|(n, _, _)| *n == name)
            .unwrap_or_else(|| panic!("no program `{name}`"));
        program();
        return;
    }
    let tests: &[(&str, fn())] = &[
        ("stub_driver", stub::all),
        (
            "rule_fixtures_report_their_rule_and_fixes_nothing",
            rule_fixtures_report_their_rule_and_fixes_nothing,
        ),
        (
            "binding_fixtures_report_their_rule_and_fixes_nothing",
            binding_fixtures_report_their_rule_and_fixes_nothing,
        ),
    ];
    let filter = args.iter().skip(1).find(|a| !a.starts_with('-'));
    let mut ran = 0;
    for (name, test) in tests {
        if filter.is_some_and(|f| !name.contains(f.as_str())) {
            continue;
        }
        println!("test {name} ...");
        test();
        println!("test {name} ... ok");
        ran += 1;
    }
    println!("test result: ok. {ran} passed");
}
