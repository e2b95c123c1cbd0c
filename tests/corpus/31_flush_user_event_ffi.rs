//! Host-driven ordering on raw FFI (`cl-sys`): `clFlush` used as if it were a fence, and a
//! user event that releases work on two queues.

use std::ffi::c_void;
use std::mem;
use std::ptr;

use cl_sys::*;

/// `clFlush` only submits: the read on `q1` is not ordered after the kernel on `q0`.
///
/// # Safety
/// Valid handles of one context; `k` writes its argument.
pub unsafe fn flush_is_not_a_fence(q0: cl_command_queue, q1: cl_command_queue, k: cl_kernel, buf: cl_mem, out: &mut [f32]) -> cl_int {
    let n = out.len();
    let mut err = clSetKernelArg(k, 0, mem::size_of::<cl_mem>(), &buf as *const cl_mem as *const c_void);
    err |= clEnqueueNDRangeKernel(q0, k, 1, ptr::null(), &n, ptr::null(), 0, ptr::null(), ptr::null_mut());
    err |= clFlush(q0);
    err |= clEnqueueReadBuffer(q1, buf, CL_TRUE, 0, n * 4, out.as_mut_ptr() as *mut c_void, 0, ptr::null(), ptr::null_mut()); //~ CLM003
    err
}

/// OK: `clFinish` waits for the kernel.
///
/// # Safety
/// As above.
pub unsafe fn finish_is(q0: cl_command_queue, q1: cl_command_queue, k: cl_kernel, buf: cl_mem, out: &mut [f32]) -> cl_int {
    let n = out.len();
    let mut err = clSetKernelArg(k, 0, mem::size_of::<cl_mem>(), &buf as *const cl_mem as *const c_void);
    err |= clEnqueueNDRangeKernel(q0, k, 1, ptr::null(), &n, ptr::null(), 0, ptr::null(), ptr::null_mut());
    err |= clFinish(q0);
    err |= clEnqueueReadBuffer(q1, buf, CL_TRUE, 0, n * 4, out.as_mut_ptr() as *mut c_void, 0, ptr::null(), ptr::null_mut());
    err
}

/// A user event gates both queues' work; the two gated commands write one buffer and are
/// not ordered with each other.
///
/// # Safety
/// Valid handles of one context.
pub unsafe fn one_gate_two_writers(ctx: cl_context, q0: cl_command_queue, q1: cl_command_queue, buf: cl_mem, data: &[f32]) -> cl_int {
    let mut err = 0;
    let gate = clCreateUserEvent(ctx, &mut err);
    let zero = 0.0f32;
    err |= clEnqueueFillBuffer(q0, buf, &zero as *const f32 as *const c_void, 4, 0, data.len() * 4, 1, &gate, ptr::null_mut());
    err |= clEnqueueWriteBuffer(q1, buf, CL_FALSE, 0, data.len() * 4, data.as_ptr() as *const c_void, 1, &gate, ptr::null_mut()); //~ CLM003
    err |= clSetUserEventStatus(gate, CL_COMPLETE);
    clFinish(q0);
    clFinish(q1);
    clReleaseEvent(gate);
    err
}

/// OK: the write waits on the fill's event as well as on the gate.
///
/// # Safety
/// Valid handles of one context.
pub unsafe fn gate_then_chain(ctx: cl_context, q0: cl_command_queue, q1: cl_command_queue, buf: cl_mem, data: &[f32]) -> cl_int {
    let mut err = 0;
    let gate = clCreateUserEvent(ctx, &mut err);
    let zero = 0.0f32;
    let mut filled: cl_event = ptr::null_mut();
    err |= clEnqueueFillBuffer(q0, buf, &zero as *const f32 as *const c_void, 4, 0, data.len() * 4, 1, &gate, &mut filled);
    let waits = [gate, filled];
    err |= clEnqueueWriteBuffer(q1, buf, CL_FALSE, 0, data.len() * 4, data.as_ptr() as *const c_void, 2, waits.as_ptr(), ptr::null_mut());
    err |= clSetUserEventStatus(gate, CL_COMPLETE);
    clFinish(q1);
    clReleaseEvent(filled);
    clReleaseEvent(gate);
    err
}

/// The user event is never released.
///
/// # Safety
/// Valid handles.
pub unsafe fn gate_leaked(ctx: cl_context, q0: cl_command_queue) -> cl_int {
    let mut err = 0;
    let gate = clCreateUserEvent(ctx, &mut err); //~ CLM006
    err |= clEnqueueMarkerWithWaitList(q0, 1, &gate, ptr::null_mut());
    err |= clSetUserEventStatus(gate, CL_COMPLETE);
    clFinish(q0);
    err
}
