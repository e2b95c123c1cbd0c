//! The upload helper.

use std::error::Error;

use opencl3::command_queue::CommandQueue;
use opencl3::memory::Buffer;
use opencl3::types::{cl_float, CL_NON_BLOCKING};

/// Uploads `data` without blocking.
pub fn upload(
    queue: &CommandQueue,
    buf: &mut Buffer<cl_float>,
    data: &[cl_float],
) -> Result<(), Box<dyn Error>> {
    unsafe { queue.enqueue_write_buffer(buf, CL_NON_BLOCKING, 0, data, &[])? };
    Ok(())
}
