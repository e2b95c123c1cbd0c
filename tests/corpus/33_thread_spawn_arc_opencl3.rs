//! A worker thread owns the generator queue and fills a shared buffer while the main
//! thread reads results back (`opencl3`, queue, kernel and buffer shared through `Arc`).

use std::ptr;
use std::sync::Arc;
use std::thread;

use opencl3::command_queue::CommandQueue;
use opencl3::context::Context;
use opencl3::kernel::{ExecuteKernel, Kernel};
use opencl3::memory::{Buffer, CL_MEM_READ_WRITE};
use opencl3::types::{cl_float, CL_BLOCKING};

/// The read is enqueued while the spawned thread's generator may still be running: the
/// thread is joined only afterwards, and joining does not wait for its commands anyway.
pub fn stream(context: &Context, gen_q: Arc<CommandQueue>, read_q: &CommandQueue, generate: Arc<Kernel>, n: usize) -> opencl3::Result<Vec<cl_float>> {
    let buf = Arc::new(unsafe { Buffer::<cl_float>::create(context, CL_MEM_READ_WRITE, n, ptr::null_mut())? });
    let buf_th = Arc::clone(&buf);
    let q_th = Arc::clone(&gen_q);
    let worker = thread::spawn(move || -> opencl3::Result<()> {
        unsafe {
            ExecuteKernel::new(&generate).set_arg(&*buf_th).set_global_work_size(n).enqueue_nd_range(&q_th)?;
        }
        Ok(())
    });
    let mut out = vec![0.0; n];
    unsafe { read_q.enqueue_read_buffer(&buf, CL_BLOCKING, 0, &mut out, &[])? }; //~ CLM003
    worker.join().expect("join")?;
    Ok(out)
}

/// OK: the thread finishes its queue before it returns, and the read is enqueued after the
/// join.
pub fn stream_joined(context: &Context, gen_q: Arc<CommandQueue>, read_q: &CommandQueue, generate: Arc<Kernel>, n: usize) -> opencl3::Result<Vec<cl_float>> {
    let buf = Arc::new(unsafe { Buffer::<cl_float>::create(context, CL_MEM_READ_WRITE, n, ptr::null_mut())? });
    let buf_th = Arc::clone(&buf);
    let q_th = Arc::clone(&gen_q);
    thread::spawn(move || -> opencl3::Result<()> {
        unsafe {
            ExecuteKernel::new(&generate).set_arg(&*buf_th).set_global_work_size(n).enqueue_nd_range(&q_th)?;
        }
        q_th.finish()
    })
    .join()
    .expect("join")?;
    let mut out = vec![0.0; n];
    unsafe { read_q.enqueue_read_buffer(&buf, CL_BLOCKING, 0, &mut out, &[])? };
    Ok(out)
}
