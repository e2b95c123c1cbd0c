//! Buffers created from host data, then "initialized" again on the device that uses them.

use std::ffi::c_void;
use std::ptr;

use opencl3::command_queue::CommandQueue;
use opencl3::context::Context;
use opencl3::memory::{Buffer, CL_MEM_COPY_HOST_PTR, CL_MEM_READ_ONLY, CL_MEM_READ_WRITE};
use opencl3::types::{cl_float, CL_BLOCKING, CL_NON_BLOCKING};

/// `weights` is copied into the buffer at creation; the upload repeats it.
pub fn load_weights(context: &Context, q1: &CommandQueue, mut weights: Vec<cl_float>) -> opencl3::Result<Buffer<cl_float>> {
    let n = weights.len();
    let mut buf = unsafe {
        Buffer::<cl_float>::create(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, n, weights.as_mut_ptr() as *mut c_void)?
    };
    unsafe { q1.enqueue_write_buffer(&mut buf, CL_BLOCKING, 0, &weights, &[])? }; //~ CLM004
    Ok(buf)
}

/// OK: a fill is an initialization too, and the write after it puts different data there.
pub fn clear_then_load(context: &Context, q: &CommandQueue, data: &[cl_float]) -> opencl3::Result<Buffer<cl_float>> {
    let mut buf = unsafe { Buffer::<cl_float>::create(context, CL_MEM_READ_WRITE, data.len(), ptr::null_mut())? };
    unsafe {
        q.enqueue_fill_buffer(&mut buf, &[0.0f32], 0, data.len() * 4, &[])?;
        q.enqueue_write_buffer(&mut buf, CL_NON_BLOCKING, 0, data, &[])?;
    }
    q.finish()?;
    Ok(buf)
}

/// OK: the host data changes between the creation and the upload.
pub fn refresh(context: &Context, q: &CommandQueue, mut state: Vec<cl_float>) -> opencl3::Result<Buffer<cl_float>> {
    let n = state.len();
    let mut buf = unsafe {
        Buffer::<cl_float>::create(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n, state.as_mut_ptr() as *mut c_void)?
    };
    for x in state.iter_mut() {
        *x *= 0.5;
    }
    unsafe { q.enqueue_write_buffer(&mut buf, CL_BLOCKING, 0, &state, &[])? };
    Ok(buf)
}

/// The same weights uploaded once per device queue.
pub fn replicate(context: &Context, q0: &CommandQueue, q1: &CommandQueue, weights: &[cl_float]) -> opencl3::Result<()> {
    let mut buf = unsafe { Buffer::<cl_float>::create(context, CL_MEM_READ_ONLY, weights.len(), ptr::null_mut())? };
    unsafe {
        let a = q0.enqueue_write_buffer(&mut buf, CL_NON_BLOCKING, 0, weights, &[])?;
        let b = q1.enqueue_write_buffer(&mut buf, CL_NON_BLOCKING, 0, weights, &[a.get()])?; //~ CLM004
        b.wait()?;
    }
    Ok(())
}
