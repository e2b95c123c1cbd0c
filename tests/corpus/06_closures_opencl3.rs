//! Small closures do the repetitive parts: one launches the smoothing kernel on a given
//! queue, one uploads a tile. The same closure is called for both devices.

use std::ptr;

use opencl3::command_queue::CommandQueue;
use opencl3::context::Context;
use opencl3::event::Event;
use opencl3::kernel::{ExecuteKernel, Kernel};
use opencl3::memory::{Buffer, CL_MEM_READ_WRITE};
use opencl3::program::Program;
use opencl3::types::{cl_float, CL_BLOCKING, CL_NON_BLOCKING};

const SMOOTH: &str = r#"
__kernel void smooth(__global float* field, float w) {
    size_t i = get_global_id(0);
    field[i] = field[i] * (1.0f - w) + w;
}
"#;

const N: usize = 1 << 16;

/// The closure launches on whichever queue it is given: device 1's launch is not ordered
/// after device 0's, and both write `field`.
pub fn smooth_twice(context: &Context, q0: &CommandQueue, q1: &CommandQueue) -> Result<Vec<cl_float>, Box<dyn std::error::Error>> {
    let program = Program::create_and_build_from_source(context, SMOOTH, "")?;
    let smooth = Kernel::create(&program, "smooth")?;
    let field = unsafe { Buffer::<cl_float>::create(context, CL_MEM_READ_WRITE, N, ptr::null_mut())? };
    let launch = |q: &CommandQueue, w: f32| -> opencl3::Result<Event> {
        unsafe {
            ExecuteKernel::new(&smooth)
                .set_arg(&field)
                .set_arg(&w)
                .set_global_work_size(N)
                .enqueue_nd_range(q)
        }
    };
    let first = launch(q0, 0.25)?;
    let second = launch(q1, 0.5)?; //~ CLM003
    let mut out = vec![0.0f32; N];
    unsafe { q1.enqueue_read_buffer(&field, CL_BLOCKING, 0, &mut out, &[first.get(), second.get()])? };
    Ok(out)
}

/// An upload closure called in place for the second device, after the first device's
/// non-blocking upload of the same data: the buffer is one object of the context.
pub fn upload_per_device(context: &Context, q0: &CommandQueue, q1: &CommandQueue, init: &[cl_float]) -> Result<(), Box<dyn std::error::Error>> {
    let mut field = unsafe { Buffer::<cl_float>::create(context, CL_MEM_READ_WRITE, N, ptr::null_mut())? };
    unsafe {
        q0.enqueue_write_buffer(&mut field, CL_BLOCKING, 0, init, &[])?;
        (|| q1.enqueue_write_buffer(&mut field, CL_BLOCKING, 0, init, &[]))()?; //~ CLM004
    }
    q0.finish()?;
    q1.finish()?;
    Ok(())
}

/// OK: the closure takes the event to wait on, and each call passes the previous one.
pub fn smooth_chained(context: &Context, q0: &CommandQueue, q1: &CommandQueue) -> Result<Vec<cl_float>, Box<dyn std::error::Error>> {
    let program = Program::create_and_build_from_source(context, SMOOTH, "")?;
    let smooth = Kernel::create(&program, "smooth")?;
    let field = unsafe { Buffer::<cl_float>::create(context, CL_MEM_READ_WRITE, N, ptr::null_mut())? };
    let launch = |q: &CommandQueue, w: f32, after: &[opencl3::types::cl_event]| -> opencl3::Result<Event> {
        unsafe {
            ExecuteKernel::new(&smooth)
                .set_arg(&field)
                .set_arg(&w)
                .set_global_work_size(N)
                .set_event_wait_list(after)
                .enqueue_nd_range(q)
        }
    };
    let first = launch(q0, 0.25, &[])?;
    let second = launch(q1, 0.5, &[first.get()])?;
    let mut out = vec![0.0f32; N];
    unsafe { q1.enqueue_read_buffer(&field, CL_BLOCKING, 0, &mut out, &[second.get()])? };
    Ok(out)
}

/// OK: one upload, then the other device waits on it instead of uploading again.
pub fn upload_once(context: &Context, q0: &CommandQueue, q1: &CommandQueue, init: &[cl_float]) -> Result<(), Box<dyn std::error::Error>> {
    let program = Program::create_and_build_from_source(context, SMOOTH, "")?;
    let smooth = Kernel::create(&program, "smooth")?;
    let mut field = unsafe { Buffer::<cl_float>::create(context, CL_MEM_READ_WRITE, N, ptr::null_mut())? };
    let up = unsafe { q0.enqueue_write_buffer(&mut field, CL_NON_BLOCKING, 0, init, &[])? };
    let run = |q: &CommandQueue| unsafe {
        ExecuteKernel::new(&smooth).set_arg(&field).set_arg(&0.1f32).set_global_work_size(N).set_wait_event(&up).enqueue_nd_range(q)
    };
    let done = run(q1)?;
    done.wait()?;
    Ok(())
}
