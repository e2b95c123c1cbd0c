//! Host-side synchronisation as people write it: a blocking upload, a `flush` "to make
//! sure the other queue sees it", a blocking read, and a marker.

use std::ptr;

use opencl3::command_queue::CommandQueue;
use opencl3::context::Context;
use opencl3::kernel::{ExecuteKernel, Kernel};
use opencl3::memory::{Buffer, CL_MEM_READ_WRITE};
use opencl3::program::Program;
use opencl3::types::{cl_int, CL_BLOCKING, CL_NON_BLOCKING};

const SRC: &str = r#"
__kernel void inc(__global int* v) { v[get_global_id(0)] += 1; }
"#;

const N: usize = 1024;

/// A blocking write returns once `init` may be reused; the write command itself need not
/// have completed, so the kernel on the other queue is not ordered after it.
pub fn blocking_upload(context: &Context, upload_q: &CommandQueue, compute_q: &CommandQueue) -> opencl3::Result<()> {
    let program = Program::create_and_build_from_source(context, SRC, "").unwrap();
    let inc = Kernel::create(&program, "inc")?;
    let init = vec![0 as cl_int; N];
    unsafe {
        let mut v = Buffer::<cl_int>::create(context, CL_MEM_READ_WRITE, N, ptr::null_mut())?;
        upload_q.enqueue_write_buffer(&mut v, CL_BLOCKING, 0, &init, &[])?;
        ExecuteKernel::new(&inc).set_arg(&v).set_global_work_size(N).enqueue_nd_range(compute_q)?; //~ CLM003
    }
    compute_q.finish()
}

/// `flush` submits the kernel to the device and returns; it does not wait for it.
pub fn flushed(context: &Context, q0: &CommandQueue, q1: &CommandQueue) -> opencl3::Result<Vec<cl_int>> {
    let program = Program::create_and_build_from_source(context, SRC, "").unwrap();
    let inc = Kernel::create(&program, "inc")?;
    let mut out = vec![0 as cl_int; N];
    unsafe {
        let v = Buffer::<cl_int>::create(context, CL_MEM_READ_WRITE, N, ptr::null_mut())?;
        ExecuteKernel::new(&inc).set_arg(&v).set_global_work_size(N).enqueue_nd_range(q0)?;
        q0.flush()?;
        q1.enqueue_read_buffer(&v, CL_BLOCKING, 0, &mut out, &[])?; //~ CLM003
    }
    Ok(out)
}

/// OK: a blocking read on the kernel's own queue completes, so the other queue's upload of
/// the next input is ordered after the kernel.
pub fn read_then_reuse(context: &Context, q0: &CommandQueue, q1: &CommandQueue) -> opencl3::Result<Vec<cl_int>> {
    let program = Program::create_and_build_from_source(context, SRC, "").unwrap();
    let inc = Kernel::create(&program, "inc")?;
    let next = vec![7 as cl_int; N];
    let mut out = vec![0 as cl_int; N];
    unsafe {
        let mut v = Buffer::<cl_int>::create(context, CL_MEM_READ_WRITE, N, ptr::null_mut())?;
        ExecuteKernel::new(&inc).set_arg(&v).set_global_work_size(N).enqueue_nd_range(q0)?;
        q0.enqueue_read_buffer(&v, CL_BLOCKING, 0, &mut out, &[])?;
        q1.enqueue_write_buffer(&mut v, CL_NON_BLOCKING, 0, &next, &[])?;
        q1.finish()?;
    }
    Ok(out)
}

/// OK: a marker with an empty wait list completes after everything enqueued before it on
/// its queue; waiting on it on the host orders the upload after the kernel.
pub fn marker_then_wait(context: &Context, q0: &CommandQueue, q1: &CommandQueue) -> opencl3::Result<()> {
    let program = Program::create_and_build_from_source(context, SRC, "").unwrap();
    let inc = Kernel::create(&program, "inc")?;
    let next = vec![7 as cl_int; N];
    unsafe {
        let mut v = Buffer::<cl_int>::create(context, CL_MEM_READ_WRITE, N, ptr::null_mut())?;
        ExecuteKernel::new(&inc).set_arg(&v).set_global_work_size(N).enqueue_nd_range(q0)?;
        let all_done = q0.enqueue_marker_with_wait_list(&[])?;
        q1.enqueue_write_buffer(&mut v, CL_NON_BLOCKING, 0, &next, &[all_done.get()])?;
        q1.finish()?;
    }
    Ok(())
}

/// OK: the same upload made blocking and followed by work on its own queue only.
pub fn blocking_upload_same_queue(context: &Context, q: &CommandQueue) -> opencl3::Result<()> {
    let program = Program::create_and_build_from_source(context, SRC, "").unwrap();
    let inc = Kernel::create(&program, "inc")?;
    let init = vec![0 as cl_int; N];
    unsafe {
        let mut v = Buffer::<cl_int>::create(context, CL_MEM_READ_WRITE, N, ptr::null_mut())?;
        q.enqueue_write_buffer(&mut v, CL_BLOCKING, 0, &init, &[])?;
        ExecuteKernel::new(&inc).set_arg(&v).set_global_work_size(N).enqueue_nd_range(q)?;
    }
    q.finish()
}
