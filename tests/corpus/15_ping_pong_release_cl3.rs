//! Ping-pong time steps between two buffers on two devices (`cl3`), with the events of each
//! step released as soon as the next step holds what it needs.

use std::mem;
use std::ptr;

use cl3::command_queue::{enqueue_migrate_mem_object, enqueue_nd_range_kernel, enqueue_read_buffer};
use cl3::event::{release_event, wait_for_events};
use cl3::kernel::set_kernel_arg;
use cl3::types::{cl_command_queue, cl_event, cl_float, cl_int, cl_kernel, cl_mem, CL_BLOCKING};

const STEPS: usize = 16;

unsafe fn bind(k: cl_kernel, src: cl_mem, dst: cl_mem) -> Result<(), cl_int> {
    set_kernel_arg(k, 0, mem::size_of::<cl_mem>(), &src as *const cl_mem as *const _)?;
    set_kernel_arg(k, 1, mem::size_of::<cl_mem>(), &dst as *const cl_mem as *const _)
}

/// OK: each step runs on device `t % 2`, waits for the migration, which waits for the
/// previous step; all events of a step are released in one loop.
///
/// # Safety
/// Valid handles of one context.
pub unsafe fn ping_pong(q: [cl_command_queue; 2], k: cl_kernel, mut a: cl_mem, mut b: cl_mem, n: usize, out: &mut [cl_float]) -> Result<(), cl_int> {
    let global = [n];
    let mut prev: cl_event = ptr::null_mut();
    for t in 0..STEPS {
        let queue = q[t % 2];
        let objs = [a, b];
        let moved = if prev.is_null() {
            enqueue_migrate_mem_object(queue, 2, objs.as_ptr(), 0, 0, ptr::null())?
        } else {
            enqueue_migrate_mem_object(queue, 2, objs.as_ptr(), 0, 1, &prev)?
        };
        bind(k, a, b)?;
        let ran = enqueue_nd_range_kernel(queue, k, 1, ptr::null(), global.as_ptr(), ptr::null(), 1, &moved)?;
        release_event(moved)?;
        if !prev.is_null() {
            release_event(prev)?;
        }
        prev = ran;
        mem::swap(&mut a, &mut b);
    }
    wait_for_events(&[prev])?;
    release_event(prev)?;
    let rd = enqueue_read_buffer(q[0], a, CL_BLOCKING, 0, n * 4, out.as_mut_ptr().cast(), 0, ptr::null())?;
    release_event(rd)?;
    Ok(())
}

/// OK: the step's kernel events are kept for one wait, then released together.
///
/// # Safety
/// Valid handles.
pub unsafe fn keep_last(q: cl_command_queue, k: cl_kernel, n: usize) -> Result<(), cl_int> {
    let global = [n];
    let mut evs: Vec<cl_event> = Vec::new();
    for _ in 0..STEPS {
        evs.push(enqueue_nd_range_kernel(q, k, 1, ptr::null(), global.as_ptr(), ptr::null(), 0, ptr::null())?);
    }
    wait_for_events(&evs)?;
    evs.iter().for_each(|&e| {
        let _ = release_event(e);
    });
    Ok(())
}
