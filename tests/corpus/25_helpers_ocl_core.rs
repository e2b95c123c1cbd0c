//! `ocl-core` helpers that take the queue, kernel and buffers as parameters, called once
//! per device.

use ocl_core as core;
use ocl_core::{ArgVal, CommandQueue, Context, Event, Kernel, Mem};

/// Uploads `data` into `buf` on `queue`, without blocking; returns the event.
fn upload(queue: &CommandQueue, buf: &Mem, data: &[f32]) -> core::Result<Event> {
    let mut ev = Event::null();
    unsafe { core::enqueue_write_buffer(queue, buf, false, 0, data, None::<Event>, Some(&mut ev))? };
    Ok(ev)
}

/// Runs `kernel` over `buf` on `queue`, after `after` when given.
fn launch(queue: &CommandQueue, kernel: &Kernel, buf: &Mem, n: usize, after: Option<&Event>) -> core::Result<Event> {
    core::set_kernel_arg(kernel, 0, ArgVal::mem(buf))?;
    let mut ev = Event::null();
    unsafe { core::enqueue_kernel(queue, kernel, 1, None, &[n, 1, 1], None, after, Some(&mut ev))? };
    Ok(ev)
}

/// The upload on device 0's queue is not waited on by device 1's launch.
pub fn two_devices(context: &Context, q0: &CommandQueue, q1: &CommandQueue, kernel: &Kernel, data: &[f32]) -> core::Result<()> {
    let buf = unsafe { core::create_buffer::<_, f32>(context, core::MEM_READ_WRITE, data.len(), None)? };
    let _up = upload(q0, &buf, data)?;
    let done = launch(q1, kernel, &buf, data.len(), None)?; //~ CLM003
    core::wait_for_event(&done)?;
    Ok(())
}

/// OK: the launch waits on the upload.
pub fn two_devices_ok(context: &Context, q0: &CommandQueue, q1: &CommandQueue, kernel: &Kernel, data: &[f32]) -> core::Result<()> {
    let buf = unsafe { core::create_buffer::<_, f32>(context, core::MEM_READ_WRITE, data.len(), None)? };
    let up = upload(q0, &buf, data)?;
    let done = launch(q1, kernel, &buf, data.len(), Some(&up))?;
    core::wait_for_event(&done)?;
    Ok(())
}

/// The same data uploaded through the helper for each device.
pub fn upload_each(context: &Context, queues: &[CommandQueue; 2], data: &[f32]) -> core::Result<Mem> {
    let buf = unsafe { core::create_buffer::<_, f32>(context, core::MEM_READ_WRITE, data.len(), None)? };
    let a = upload(&queues[0], &buf, data)?;
    let b = upload(&queues[1], &buf, data)?; //~ CLM004
    core::wait_for_event(&a)?;
    core::wait_for_event(&b)?;
    Ok(buf)
}
