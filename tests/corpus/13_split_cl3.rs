//! The two-device split on `cl3`'s raw handles: each device computes half of a SAXPY, and
//! device 1's half is moved to device 0 for the final reduction.

use std::mem;
use std::ptr;

use cl3::command_queue::{enqueue_migrate_mem_object, enqueue_nd_range_kernel, enqueue_read_buffer, enqueue_write_buffer, finish};
use cl3::event::{release_event, wait_for_events};
use cl3::kernel::set_kernel_arg;
use cl3::memory::{create_buffer, CL_MEM_READ_WRITE};
use cl3::types::{cl_command_queue, cl_context, cl_event, cl_float, cl_int, cl_kernel, cl_mem, CL_BLOCKING, CL_NON_BLOCKING};

/// # Safety
/// Valid handles of one context; `saxpy` is `y = a * x + y`, `reduce` folds `y` into `sum`.
pub unsafe fn saxpy_split(ctx: cl_context, q0: cl_command_queue, q1: cl_command_queue, saxpy: cl_kernel, reduce: cl_kernel, x: &[cl_float]) -> Result<cl_float, cl_int> {
    let n = x.len() / 2;
    let bytes = n * mem::size_of::<cl_float>();
    let x0 = create_buffer(ctx, CL_MEM_READ_WRITE, bytes, ptr::null_mut())?;
    let x1 = create_buffer(ctx, CL_MEM_READ_WRITE, bytes, ptr::null_mut())?;
    let y1 = create_buffer(ctx, CL_MEM_READ_WRITE, bytes, ptr::null_mut())?;
    let sum = create_buffer(ctx, CL_MEM_READ_WRITE, mem::size_of::<cl_float>(), ptr::null_mut())?;

    let w0 = enqueue_write_buffer(q0, x0, CL_NON_BLOCKING, 0, bytes, x.as_ptr().cast(), 0, ptr::null())?;
    let w1 = enqueue_write_buffer(q1, x1, CL_NON_BLOCKING, 0, bytes, x[n..].as_ptr().cast(), 0, ptr::null())?;

    let global = [n];
    set_kernel_arg(saxpy, 0, mem::size_of::<cl_mem>(), &x1 as *const cl_mem as *const _)?;
    set_kernel_arg(saxpy, 1, mem::size_of::<cl_mem>(), &y1 as *const cl_mem as *const _)?;
    let k1 = enqueue_nd_range_kernel(q1, saxpy, 1, ptr::null(), global.as_ptr(), ptr::null(), 1, &w1)?;

    // y1 moves to device 0, enqueued on device 1's queue: the source's, not the destination's
    let waits: [cl_event; 1] = [k1];
    let m = enqueue_migrate_mem_object(q1, 1, &y1, 0, 1, waits.as_ptr())?; //~ CLM005

    set_kernel_arg(reduce, 0, mem::size_of::<cl_mem>(), &y1 as *const cl_mem as *const _)?;
    set_kernel_arg(reduce, 1, mem::size_of::<cl_mem>(), &sum as *const cl_mem as *const _)?;
    let r = enqueue_nd_range_kernel(q0, reduce, 1, ptr::null(), global.as_ptr(), ptr::null(), 1, &m)?;

    let mut out = [0.0 as cl_float];
    let rd = enqueue_read_buffer(q0, sum, CL_BLOCKING, 0, mem::size_of::<cl_float>(), out.as_mut_ptr().cast(), 1, &r)?;
    wait_for_events(&[w0])?;
    release_event(w0)?;
    release_event(w1)?;
    release_event(k1)?;
    release_event(m)?;
    release_event(r)?;
    release_event(rd)?;
    finish(q1)?;
    Ok(out[0])
}

/// OK: the migration is on the destination's queue and waits on the producer.
///
/// # Safety
/// Valid handles of one context.
pub unsafe fn move_to_dev0(q0: cl_command_queue, q1: cl_command_queue, k: cl_kernel, y: cl_mem, n: usize) -> Result<(), cl_int> {
    let global = [n];
    set_kernel_arg(k, 0, mem::size_of::<cl_mem>(), &y as *const cl_mem as *const _)?;
    let produced = enqueue_nd_range_kernel(q1, k, 1, ptr::null(), global.as_ptr(), ptr::null(), 0, ptr::null())?;
    let moved = enqueue_migrate_mem_object(q0, 1, &y, 0, 1, &produced)?;
    wait_for_events(&[moved])?;
    release_event(produced)?;
    release_event(moved)?;
    Ok(())
}

/// The kernel's event is waited on and never released.
///
/// # Safety
/// Valid handles.
pub unsafe fn run_once(q: cl_command_queue, k: cl_kernel, n: usize) -> Result<(), cl_int> {
    let global = [n];
    let ev = enqueue_nd_range_kernel(q, k, 1, ptr::null(), global.as_ptr(), ptr::null(), 0, ptr::null())?; //~ CLM006
    wait_for_events(&[ev])?;
    Ok(())
}
