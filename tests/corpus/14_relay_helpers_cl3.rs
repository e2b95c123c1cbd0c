//! A relay over N devices on `cl3`, with the hop factored into a helper that takes raw
//! handles, the way C code is usually ported.

use std::mem;
use std::ptr;

use cl3::command_queue::{enqueue_migrate_mem_object, enqueue_nd_range_kernel, finish};
use cl3::event::release_event;
use cl3::kernel::set_kernel_arg;
use cl3::types::{cl_command_queue, cl_event, cl_int, cl_kernel, cl_mem};

/// One hop: migrate `buf` to `to`'s device after `after`, and run `k` there.
///
/// # Safety
/// Valid handles.
unsafe fn hop(to: cl_command_queue, k: cl_kernel, buf: cl_mem, n: usize, after: &[cl_event]) -> Result<cl_event, cl_int> {
    let moved = enqueue_migrate_mem_object(to, 1, &buf, 0, after.len() as u32, if after.is_empty() { ptr::null() } else { after.as_ptr() })?;
    set_kernel_arg(k, 0, mem::size_of::<cl_mem>(), &buf as *const cl_mem as *const _)?;
    let global = [n];
    let ran = enqueue_nd_range_kernel(to, k, 1, ptr::null(), global.as_ptr(), ptr::null(), 1, &moved)?;
    release_event(moved)?;
    Ok(ran)
}

/// The second hop is called with no event: device 1 may start before device 0 is done.
///
/// # Safety
/// Valid handles of one context, `k` writes its argument.
pub unsafe fn two_hops(q0: cl_command_queue, q1: cl_command_queue, k: cl_kernel, buf: cl_mem, n: usize) -> Result<(), cl_int> {
    let first = hop(q0, k, buf, n, &[])?;
    let second = hop(q1, k, buf, n, &[])?; //~ CLM003
    release_event(first)?;
    release_event(second)?;
    finish(q1)?;
    Ok(())
}

/// OK: every hop waits on the previous one.
///
/// # Safety
/// Valid handles of one context.
pub unsafe fn relay(queues: &[cl_command_queue], k: cl_kernel, buf: cl_mem, n: usize) -> Result<(), cl_int> {
    let mut last: Option<cl_event> = None;
    for &q in queues {
        let waits: Vec<cl_event> = last.into_iter().collect();
        let ev = hop(q, k, buf, n, &waits)?;
        if let Some(prev) = last {
            release_event(prev)?;
        }
        last = Some(ev);
    }
    if let Some(ev) = last {
        cl3::event::wait_for_events(&[ev])?;
        release_event(ev)?;
    }
    Ok(())
}
