//! A relay across every device of a context: stage `d` runs on device `d` and hands the
//! shared buffer to device `d + 1` with `clEnqueueMigrateMemObjects`, as in the pipelined
//! multi-GPU samples. The queues live in a `Vec`, one per device.

use std::ptr;

use opencl3::command_queue::CommandQueue;
use opencl3::context::Context;
use opencl3::event::Event;
use opencl3::kernel::{ExecuteKernel, Kernel};
use opencl3::memory::{Buffer, CL_MEM_READ_WRITE};
use opencl3::program::Program;
use opencl3::types::{cl_float, CL_BLOCKING, CL_NON_BLOCKING};

const SRC: &str = r#"
__kernel void stage(__global float* data, int d) {
    size_t i = get_global_id(0);
    data[i] = data[i] * 1.5f + (float)d;
}
"#;

const N: usize = 4096;

/// Builds one in-order queue per device of the context.
fn queues_for(context: &Context) -> opencl3::Result<Vec<CommandQueue>> {
    context
        .devices()
        .iter()
        .map(|d| CommandQueue::create_default_with_properties(context, 0, 0).or_else(|_| CommandQueue::create(context, *d, 0)))
        .collect()
}

/// The first two stages written out by hand: stage 1 moves the buffer to device 1 but does
/// not wait for stage 0 to finish writing it.
pub fn two_stages(context: &Context) -> Result<Vec<cl_float>, Box<dyn std::error::Error>> {
    let program = Program::create_and_build_from_source(context, SRC, "")?;
    let stage = Kernel::create(&program, "stage")?;
    let cmdq = queues_for(context)?;
    let init = vec![1.0f32; N];
    let mut out = vec![0.0f32; N];
    unsafe {
        let mut data = Buffer::<cl_float>::create(context, CL_MEM_READ_WRITE, N, ptr::null_mut())?;
        cmdq[0].enqueue_write_buffer(&mut data, CL_NON_BLOCKING, 0, &init, &[])?;
        let s0 = ExecuteKernel::new(&stage)
            .set_arg(&data)
            .set_arg(&0i32)
            .set_global_work_size(N)
            .enqueue_nd_range(&cmdq[0])?;
        let moved = cmdq[1].enqueue_migrate_mem_object(1, &data.get(), 0, &[])?; //~ CLM003
        let s1 = ExecuteKernel::new(&stage)
            .set_arg(&data)
            .set_arg(&1i32)
            .set_global_work_size(N)
            .set_wait_event(&moved)
            .enqueue_nd_range(&cmdq[1])?;
        cmdq[1].enqueue_read_buffer(&data, CL_BLOCKING, 0, &mut out, &[s1.get()])?;
        s0.wait()?;
    }
    Ok(out)
}

/// OK: the relay over all devices, each hop waiting on the previous stage's event.
pub fn relay(context: &Context) -> Result<Vec<cl_float>, Box<dyn std::error::Error>> {
    let program = Program::create_and_build_from_source(context, SRC, "")?;
    let stage = Kernel::create(&program, "stage")?;
    let cmdq = queues_for(context)?;
    let init = vec![1.0f32; N];
    let mut out = vec![0.0f32; N];
    unsafe {
        let mut data = Buffer::<cl_float>::create(context, CL_MEM_READ_WRITE, N, ptr::null_mut())?;
        let mut last: Event = cmdq[0].enqueue_write_buffer(&mut data, CL_NON_BLOCKING, 0, &init, &[])?;
        for (d, q) in cmdq.iter().enumerate() {
            let moved = q.enqueue_migrate_mem_object(1, &data.get(), 0, &[last.get()])?;
            last = ExecuteKernel::new(&stage)
                .set_arg(&data)
                .set_arg(&(d as i32))
                .set_global_work_size(N)
                .set_wait_event(&moved)
                .enqueue_nd_range(q)?;
        }
        let tail = cmdq.last().unwrap();
        tail.enqueue_read_buffer(&data, CL_BLOCKING, 0, &mut out, &[last.get()])?;
    }
    Ok(out)
}

/// OK: an index loop over the queues; each hop waits for the one before it.
pub fn relay_indexed(context: &Context, cmdq: &[CommandQueue]) -> Result<(), Box<dyn std::error::Error>> {
    let program = Program::create_and_build_from_source(context, SRC, "")?;
    let stage = Kernel::create(&program, "stage")?;
    unsafe {
        let data = Buffer::<cl_float>::create(context, CL_MEM_READ_WRITE, N, ptr::null_mut())?;
        let mut prev = ExecuteKernel::new(&stage)
            .set_arg(&data)
            .set_arg(&0i32)
            .set_global_work_size(N)
            .enqueue_nd_range(&cmdq[0])?;
        for d in 1..cmdq.len() {
            let moved = cmdq[d].enqueue_migrate_mem_object(1, &data.get(), 0, &[prev.get()])?;
            prev = ExecuteKernel::new(&stage)
                .set_arg(&data)
                .set_arg(&(d as i32))
                .set_global_work_size(N)
                .set_wait_event(&moved)
                .enqueue_nd_range(&cmdq[d])?;
        }
        prev.wait()?;
    }
    Ok(())
}
