//! Vector addition split across the first two GPUs of a platform, in the shape of the
//! classic "multi-device vadd" samples: each device gets half of the input, its own
//! queue, and the host gathers both halves at the end.

use std::ptr;

use opencl3::command_queue::{CommandQueue, CL_QUEUE_PROFILING_ENABLE};
use opencl3::context::Context;
use opencl3::device::{get_all_devices, Device, CL_DEVICE_TYPE_GPU};
use opencl3::kernel::{ExecuteKernel, Kernel};
use opencl3::memory::{Buffer, CL_MEM_READ_ONLY, CL_MEM_READ_WRITE, CL_MEM_WRITE_ONLY};
use opencl3::program::Program;
use opencl3::types::{cl_float, CL_BLOCKING, CL_NON_BLOCKING};
use opencl3::Result;

const VADD: &str = r#"
__kernel void vadd(__global const float* a, __global const float* b, __global float* c) {
    int i = get_global_id(0);
    c[i] = a[i] + b[i];
}
__kernel void scale(__global float* c, float s) {
    int i = get_global_id(0);
    c[i] *= s;
}
"#;

const LEN: usize = 1 << 20;

pub fn main() -> Result<()> {
    let ids = get_all_devices(CL_DEVICE_TYPE_GPU)?;
    let devices: Vec<Device> = ids.iter().take(2).map(|id| Device::new(*id)).collect();
    let context = Context::from_devices(&ids[..2], &[], None, ptr::null_mut())?;
    let q0 = CommandQueue::create_with_properties(&context, devices[0].id(), CL_QUEUE_PROFILING_ENABLE, 0)?;
    let q1 = CommandQueue::create_with_properties(&context, devices[1].id(), CL_QUEUE_PROFILING_ENABLE, 0)?;
    let program = Program::create_and_build_from_source(&context, VADD, "")?;
    let vadd = Kernel::create(&program, "vadd")?;
    let scale = Kernel::create(&program, "scale")?;

    let half = LEN / 2;
    let a: Vec<cl_float> = (0..LEN).map(|i| i as cl_float).collect();
    let b: Vec<cl_float> = (0..LEN).map(|i| (2 * i) as cl_float).collect();
    let mut c = vec![0.0 as cl_float; LEN];

    unsafe {
        let mut a0 = Buffer::<cl_float>::create(&context, CL_MEM_READ_ONLY, half, ptr::null_mut())?;
        let mut b0 = Buffer::<cl_float>::create(&context, CL_MEM_READ_ONLY, half, ptr::null_mut())?;
        let c0 = Buffer::<cl_float>::create(&context, CL_MEM_WRITE_ONLY, half, ptr::null_mut())?;
        let mut a1 = Buffer::<cl_float>::create(&context, CL_MEM_READ_ONLY, half, ptr::null_mut())?;
        let mut b1 = Buffer::<cl_float>::create(&context, CL_MEM_READ_ONLY, half, ptr::null_mut())?;
        let c1 = Buffer::<cl_float>::create(&context, CL_MEM_READ_WRITE, half, ptr::null_mut())?;

        // uploads on each device's own queue: the in-order queue orders them before the kernel
        q0.enqueue_write_buffer(&mut a0, CL_NON_BLOCKING, 0, &a[..half], &[])?;
        q0.enqueue_write_buffer(&mut b0, CL_NON_BLOCKING, 0, &b[..half], &[])?;
        q1.enqueue_write_buffer(&mut a1, CL_NON_BLOCKING, 0, &a[half..], &[])?;
        q1.enqueue_write_buffer(&mut b1, CL_NON_BLOCKING, 0, &b[half..], &[])?;

        let k0 = ExecuteKernel::new(&vadd)
            .set_arg(&a0)
            .set_arg(&b0)
            .set_arg(&c0)
            .set_global_work_size(half)
            .enqueue_nd_range(&q0)?;
        let _k1 = ExecuteKernel::new(&vadd)
            .set_arg(&a1)
            .set_arg(&b1)
            .set_arg(&c1)
            .set_global_work_size(half)
            .enqueue_nd_range(&q1)?;

        // the second half is post-processed on device 0, which is idle by now; nothing waits
        // for device 1's vadd
        ExecuteKernel::new(&scale) //~ CLM003
            .set_arg(&c1)
            .set_arg(&0.5f32)
            .set_global_work_size(half)
            .set_wait_event(&k0)
            .enqueue_nd_range(&q0)?;

        // OK: blocking reads on each half's last queue
        q0.enqueue_read_buffer(&c0, CL_BLOCKING, 0, &mut c[..half], &[])?;
        q0.enqueue_read_buffer(&c1, CL_BLOCKING, 0, &mut c[half..], &[])?;
    }
    println!("c[1] = {}", c[1]);
    Ok(())
}

/// OK: the same split, with the cross-device step waiting on the other device's kernel.
pub fn split_waited(context: &Context, q0: &CommandQueue, q1: &CommandQueue) -> Result<Vec<cl_float>> {
    let program = Program::create_and_build_from_source(context, VADD, "")?;
    let vadd = Kernel::create(&program, "vadd")?;
    let scale = Kernel::create(&program, "scale")?;
    let half = LEN / 2;
    let a: Vec<cl_float> = vec![1.0; half];
    let mut out = vec![0.0 as cl_float; half];
    unsafe {
        let mut x = Buffer::<cl_float>::create(context, CL_MEM_READ_ONLY, half, ptr::null_mut())?;
        let y = Buffer::<cl_float>::create(context, CL_MEM_READ_WRITE, half, ptr::null_mut())?;
        q1.enqueue_write_buffer(&mut x, CL_BLOCKING, 0, &a, &[])?;
        let sum = ExecuteKernel::new(&vadd)
            .set_arg(&x)
            .set_arg(&x)
            .set_arg(&y)
            .set_global_work_size(half)
            .enqueue_nd_range(q1)?;
        let scaled = ExecuteKernel::new(&scale)
            .set_arg(&y)
            .set_arg(&2.0f32)
            .set_global_work_size(half)
            .set_wait_event(&sum)
            .enqueue_nd_range(q0)?;
        q0.enqueue_read_buffer(&y, CL_BLOCKING, 0, &mut out, &[scaled.get()])?;
    }
    Ok(out)
}
