//! The binding fixtures are real programs. This crate compiles every one of them (the
//! opencl3 rule fixtures are compiled into the harness, the edition 2015 one cannot be), and runs
//! the corrected variants on PoCL's two CPU devices against the CPU reference, so a fixture
//! cannot drift from what the bindings accept and do.

#[rustfmt::skip]
#[path = "../fixtures/seed-cl3/buggy.rs"]
#[allow(dead_code)]
mod cl3_buggy;
#[rustfmt::skip]
#[path = "../fixtures/seed-cl3/fixed.rs"]
mod cl3_fixed;
#[rustfmt::skip]
#[path = "../fixtures/seed-ffi/buggy.rs"]
#[allow(dead_code)]
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
#[path = "../fixtures/kernel-arg-mismatch/case.rs"]
#[allow(dead_code)]
mod mismatch_case;
#[rustfmt::skip]
#[path = "../fixtures/kernel-arg-mismatch/fixed.rs"]
#[allow(dead_code)]
mod mismatch_fixed;
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
mod ocl_core_fixed;
#[rustfmt::skip]
#[path = "../fixtures/unreleased-event/case.rs"]
#[allow(dead_code)]
mod unreleased_case;
#[rustfmt::skip]
#[path = "../fixtures/unreleased-event/fixed.rs"]
#[allow(dead_code)]
mod unreleased_fixed;

use opencl3::command_queue::CommandQueue;
use opencl3::context::Context;
use opencl3::device::{Device, CL_DEVICE_TYPE_ALL};
use opencl3::platform::get_platforms;

/// Two PoCL CPU devices in one context, with a queue on each.
fn two_devices() -> (Context, CommandQueue, CommandQueue) {
    // Before the first OpenCL call in this process: PoCL reads it once.
    std::env::set_var("POCL_DEVICES", "pthread pthread");
    let platform = get_platforms()
        .expect("an OpenCL platform (install pocl-opencl-icd)")
        .into_iter()
        .find(|p| p.name().is_ok_and(|n| n.contains("Portable")))
        .expect("the PoCL platform");
    let ids = platform
        .get_devices(CL_DEVICE_TYPE_ALL)
        .expect("PoCL devices");
    assert!(
        ids.len() >= 2,
        "POCL_DEVICES=\"pthread pthread\" gives two devices"
    );
    let context =
        Context::from_devices(&ids[..2], &[], None, std::ptr::null_mut()).expect("a context");
    let q0 = CommandQueue::create_default_with_properties(&context, 0, 0).expect("queue 0");
    let q1 =
        unsafe { CommandQueue::create_with_properties(&context, Device::new(ids[1]).id(), 0, 0) }
            .expect("queue 1");
    (context, q0, q1)
}

/// The seed's result: each step, device 0 then device 1 update the halo.
fn reference(n: usize, steps: usize) -> Vec<f32> {
    (0..n)
        .map(|i| {
            let mut h = 1.0f32;
            for _ in 0..steps {
                h = h * 0.5 + i as f32;
                h += (n - i) as f32 * 2.0;
            }
            h
        })
        .collect()
}

/// One test, so that the environment is set before any thread loads the OpenCL driver.
#[test]
fn fixed_variants_compute_the_reference_on_two_devices() {
    let (context, q0, q1) = two_devices();
    let got = unsafe { cl3_fixed::run(context.get(), q0.get(), q1.get()) }.expect("cl3 seed runs");
    assert_eq!(got, reference(cl3_fixed::N, cl3_fixed::STEPS), "cl3 seed");
    let got = unsafe { ffi_fixed::run(context.get(), q0.get(), q1.get()) }.expect("ffi seed runs");
    assert_eq!(got, reference(ffi_fixed::N, ffi_fixed::STEPS), "ffi seed");
    ocl_fixed_reads_what_the_kernel_produced();
    ocl_core_fixed_computes_the_reference();
}

fn ocl_fixed_reads_what_the_kernel_produced() {
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
    let out = ocl_fixed::read_after_produced(&context, &q0, &q1).expect("runs");
    let want: Vec<f32> = (0..ocl_fixed::N).map(|i| 2.0 * i as f32).collect();
    assert_eq!(out, want);
    ocl_fixed::fill_waited(&context, &q0, &q1).expect("runs");
}

fn ocl_core_fixed_computes_the_reference() {
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
    let n = ocl_core_fixed::N;
    let doubled: Vec<f32> = (0..n).map(|i| 2.0 * i as f32).collect();
    let consumed: Vec<f32> = doubled.iter().map(|x| x + 1.0).collect();
    let read = ocl_core_fixed::read_after_produced(&context, &q0, &q1).expect("runs");
    assert_eq!(read, doubled, "read after the kernel");
    let migrated = ocl_core_fixed::migrate_after_produced(&context, &q0, &q1).expect("runs");
    assert_eq!(migrated, consumed, "consumed on the other device");
    let arg = ocl_core_fixed::buffer_as_kernel_arg(&context, &q0).expect("runs");
    assert_eq!(arg, doubled, "the buffer as the kernel's argument");
    // The case's near-misses are correct programs too.
    let waited = ocl_core_case::ok_wait_list(&context, &q0, &q1).expect("runs");
    assert_eq!(waited, doubled, "ordered by the wait list");
}
