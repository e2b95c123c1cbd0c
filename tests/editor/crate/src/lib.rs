//! Uploads on one device and reads back on the other.

mod gpu;
mod other;

use std::error::Error;

use opencl3::command_queue::CommandQueue;
use opencl3::memory::Buffer;
use opencl3::types::{cl_float, CL_BLOCKING};

/// The upload `gpu::upload` enqueues on `q0` is not waited for by the read on `q1`.
pub fn round_trip(
    q0: &CommandQueue,
    q1: &CommandQueue,
    buf: &mut Buffer<cl_float>,
    data: &[cl_float],
) -> Result<Vec<cl_float>, Box<dyn Error>> {
    let mut back: Vec<cl_float> = vec![0.0; data.len()];
    gpu::upload(q0, buf, data)?;
    unsafe { q1.enqueue_read_buffer(buf, CL_BLOCKING, 0, &mut back, &[])? };
    Ok(back)
}
