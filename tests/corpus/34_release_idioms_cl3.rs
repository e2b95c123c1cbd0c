//! A two-device upload, compute and read-back (`cl3`) whose events are released the ways
//! real code releases them: a loop over an array, a `Vec` drained at the end, an iterator
//! adapter, a helper that releases what it is given. One event is leaked on an early path.

use std::ptr;

use cl3::command_queue::{enqueue_nd_range_kernel, enqueue_read_buffer, enqueue_write_buffer, finish};
use cl3::event::{release_event, wait_for_events};
use cl3::types::{cl_command_queue, cl_event, cl_float, cl_int, cl_kernel, cl_mem, CL_BLOCKING, CL_NON_BLOCKING};

/// Releases every event it is handed.
unsafe fn release_all(events: &[cl_event]) -> Result<(), cl_int> {
    for &e in events {
        release_event(e)?;
    }
    Ok(())
}

/// OK: the three events of the step are released in a loop over an array.
///
/// # Safety
/// Valid handles of one context.
pub unsafe fn step(q: cl_command_queue, k: cl_kernel, buf: cl_mem, host: &mut [cl_float]) -> Result<(), cl_int> {
    let n = host.len();
    let global = [n];
    let up = enqueue_write_buffer(q, buf, CL_NON_BLOCKING, 0, n * 4, host.as_ptr().cast(), 0, ptr::null())?;
    let ran = enqueue_nd_range_kernel(q, k, 1, ptr::null(), global.as_ptr(), ptr::null(), 1, &up)?;
    let down = enqueue_read_buffer(q, buf, CL_BLOCKING, 0, n * 4, host.as_mut_ptr().cast(), 1, &ran)?;
    for ev in [up, ran, down] {
        release_event(ev)?;
    }
    Ok(())
}

/// OK: one launch per device queue; the events are kept in a `Vec`, waited for, then
/// released through an iterator adapter.
///
/// # Safety
/// Valid handles; one kernel per queue.
pub unsafe fn fan_out(queues: &[cl_command_queue], kernels: &[cl_kernel], n: usize) -> Result<(), cl_int> {
    let global = [n];
    let mut done: Vec<cl_event> = Vec::with_capacity(queues.len());
    for (q, k) in queues.iter().zip(kernels) {
        done.push(enqueue_nd_range_kernel(*q, *k, 1, ptr::null(), global.as_ptr(), ptr::null(), 0, ptr::null())?);
    }
    wait_for_events(&done)?;
    done.iter().for_each(|e| {
        let _ = release_event(*e);
    });
    Ok(())
}

/// OK: a helper releases the events of both devices' uploads.
///
/// # Safety
/// Valid handles; `a` and `b` are buffers of one context.
pub unsafe fn upload_both(q0: cl_command_queue, q1: cl_command_queue, a: cl_mem, b: cl_mem, data: &[cl_float]) -> Result<(), cl_int> {
    let bytes = data.len() * 4;
    let ea = enqueue_write_buffer(q0, a, CL_NON_BLOCKING, 0, bytes, data.as_ptr().cast(), 0, ptr::null())?;
    let eb = enqueue_write_buffer(q1, b, CL_NON_BLOCKING, 0, bytes, data.as_ptr().cast(), 0, ptr::null())?;
    wait_for_events(&[ea, eb])?;
    release_all(&[ea, eb])
}

/// The launch's event is released only when the caller asks for the result.
///
/// # Safety
/// Valid handles.
pub unsafe fn maybe_read(q: cl_command_queue, k: cl_kernel, buf: cl_mem, out: &mut [cl_float], read: bool) -> Result<(), cl_int> {
    let global = [out.len()];
    let ran = enqueue_nd_range_kernel(q, k, 1, ptr::null(), global.as_ptr(), ptr::null(), 0, ptr::null())?; //~ CLM006
    if !read {
        return finish(q);
    }
    let rd = enqueue_read_buffer(q, buf, CL_BLOCKING, 0, out.len() * 4, out.as_mut_ptr().cast(), 1, &ran)?;
    release_all(&[ran, rd])
}
