//! A bug of its own: two uploads of one buffer on two queues, unordered.

use std::error::Error;

use opencl3::command_queue::CommandQueue;
use opencl3::memory::Buffer;
use opencl3::types::{cl_float, CL_NON_BLOCKING};

pub fn twice(
    q0: &CommandQueue,
    q1: &CommandQueue,
    buf: &mut Buffer<cl_float>,
    a: &[cl_float],
    b: &[cl_float],
) -> Result<(), Box<dyn Error>> {
    unsafe { q0.enqueue_write_buffer(buf, CL_NON_BLOCKING, 0, a, &[])? };
    unsafe { q1.enqueue_write_buffer(buf, CL_NON_BLOCKING, 0, b, &[])? };
    Ok(())
}
