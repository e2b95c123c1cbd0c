//! A frame loop where the host gates device work on a user event (set when the camera
//! frame has arrived), in the style of the user-event samples.

use std::ptr;

use opencl3::command_queue::CommandQueue;
use opencl3::context::Context;
use opencl3::event::{Event, UserEvent};
use opencl3::kernel::{ExecuteKernel, Kernel};
use opencl3::memory::{Buffer, CL_MEM_READ_WRITE};
use opencl3::types::{cl_float, CL_BLOCKING, CL_COMPLETE, CL_NON_BLOCKING};

/// The kernel on `q1` waits on the gate, but the gate says nothing about the upload on
/// `q0`: it is completed by the host, not by the upload.
pub fn gated(context: &Context, q0: &CommandQueue, q1: &CommandQueue, k: &Kernel, frame: &[cl_float]) -> opencl3::Result<()> {
    let gate = UserEvent::create(context)?;
    unsafe {
        let mut img = Buffer::<cl_float>::create(context, CL_MEM_READ_WRITE, frame.len(), ptr::null_mut())?;
        q0.enqueue_write_buffer(&mut img, CL_NON_BLOCKING, 0, frame, &[])?;
        let done = ExecuteKernel::new(k) //~ CLM003
            .set_arg(&img)
            .set_global_work_size(frame.len())
            .set_event_wait_list(&[gate.get()])
            .enqueue_nd_range(q1)?;
        gate.set_user_event_status(CL_COMPLETE)?;
        done.wait()?;
    }
    Ok(())
}

/// OK: the gate is completed only after the upload's event has completed on the host.
pub fn gated_after_upload(context: &Context, q0: &CommandQueue, q1: &CommandQueue, k: &Kernel, frame: &[cl_float]) -> opencl3::Result<()> {
    let gate = UserEvent::create(context)?;
    unsafe {
        let mut img = Buffer::<cl_float>::create(context, CL_MEM_READ_WRITE, frame.len(), ptr::null_mut())?;
        let up: Event = q0.enqueue_write_buffer(&mut img, CL_NON_BLOCKING, 0, frame, &[])?;
        let done = ExecuteKernel::new(k)
            .set_arg(&img)
            .set_global_work_size(frame.len())
            .set_event_wait_list(&[gate.get(), up.get()])
            .enqueue_nd_range(q1)?;
        gate.set_user_event_status(CL_COMPLETE)?;
        done.wait()?;
    }
    Ok(())
}

/// OK: both commands wait on one gate and use different buffers; the read on `q1` is
/// after the kernel on its own queue.
pub fn two_frames(context: &Context, q0: &CommandQueue, q1: &CommandQueue, k: &Kernel, frame: &[cl_float]) -> opencl3::Result<Vec<cl_float>> {
    let gate = UserEvent::create(context)?;
    let mut out = vec![0.0f32; frame.len()];
    unsafe {
        let mut a = Buffer::<cl_float>::create(context, CL_MEM_READ_WRITE, frame.len(), ptr::null_mut())?;
        let b = Buffer::<cl_float>::create(context, CL_MEM_READ_WRITE, frame.len(), ptr::null_mut())?;
        q0.enqueue_write_buffer(&mut a, CL_NON_BLOCKING, 0, frame, &[gate.get()])?;
        ExecuteKernel::new(k).set_arg(&b).set_global_work_size(frame.len()).set_wait_event(&gate).enqueue_nd_range(q1)?;
        gate.set_user_event_status(CL_COMPLETE)?;
        q1.enqueue_read_buffer(&b, CL_BLOCKING, 0, &mut out, &[])?;
        q0.finish()?;
    }
    Ok(out)
}
