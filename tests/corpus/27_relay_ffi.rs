//! A token relayed through every device of the context (raw `cl-sys`), in the shape of
//! the C "ring" examples: device `d` increments the token, then it migrates to `d + 1`.

use std::ffi::c_void;
use std::mem;
use std::ptr;

use cl_sys::*;

pub const SRC: &str = "__kernel void bump(__global int* t) { t[0] += 1; }";

/// # Safety
/// Valid handles of one context, one queue per device.
pub unsafe fn ring(ctx: cl_context, queues: &[cl_command_queue; 3], bump: cl_kernel) -> Result<i32, cl_int> {
    let mut err = 0;
    let mut token = [0i32];
    let t = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, 4, token.as_mut_ptr() as *mut c_void, &mut err);
    clSetKernelArg(bump, 0, mem::size_of::<cl_mem>(), &t as *const cl_mem as *const c_void);
    let one: usize = 1;
    let mut k0: cl_event = ptr::null_mut();
    let mut m1: cl_event = ptr::null_mut();
    let mut k1: cl_event = ptr::null_mut();
    let mut m2: cl_event = ptr::null_mut();
    err |= clEnqueueNDRangeKernel(queues[0], bump, 1, ptr::null(), &one, ptr::null(), 0, ptr::null(), &mut k0);
    err |= clEnqueueMigrateMemObjects(queues[1], 1, &t, 0, 1, &k0, &mut m1);
    err |= clEnqueueNDRangeKernel(queues[1], bump, 1, ptr::null(), &one, ptr::null(), 1, &m1, &mut k1);
    // the hop to device 2 waits on the migration to device 1 instead of device 1's kernel
    err |= clEnqueueMigrateMemObjects(queues[2], 1, &t, 0, 1, &m1, &mut m2); //~ CLM003
    err |= clEnqueueNDRangeKernel(queues[2], bump, 1, ptr::null(), &one, ptr::null(), 1, &m2, ptr::null_mut());
    err |= clEnqueueReadBuffer(queues[2], t, CL_TRUE, 0, 4, token.as_mut_ptr() as *mut c_void, 0, ptr::null(), ptr::null_mut());
    clReleaseEvent(k0);
    clReleaseEvent(m1);
    clReleaseEvent(k1);
    clReleaseEvent(m2);
    clReleaseMemObject(t);
    if err != CL_SUCCESS {
        return Err(err);
    }
    Ok(token[0])
}

/// OK: each hop waits on the previous device's kernel.
///
/// # Safety
/// Valid handles of one context.
pub unsafe fn ring_ok(ctx: cl_context, queues: &[cl_command_queue; 3], bump: cl_kernel) -> Result<i32, cl_int> {
    let mut err = 0;
    let mut token = [0i32];
    let t = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, 4, token.as_mut_ptr() as *mut c_void, &mut err);
    clSetKernelArg(bump, 0, mem::size_of::<cl_mem>(), &t as *const cl_mem as *const c_void);
    let one: usize = 1;
    let mut k0: cl_event = ptr::null_mut();
    let mut m1: cl_event = ptr::null_mut();
    let mut k1: cl_event = ptr::null_mut();
    err |= clEnqueueNDRangeKernel(queues[0], bump, 1, ptr::null(), &one, ptr::null(), 0, ptr::null(), &mut k0);
    err |= clEnqueueMigrateMemObjects(queues[1], 1, &t, 0, 1, &k0, &mut m1);
    err |= clEnqueueNDRangeKernel(queues[1], bump, 1, ptr::null(), &one, ptr::null(), 1, &m1, &mut k1);
    err |= clEnqueueReadBuffer(queues[1], t, CL_TRUE, 0, 4, token.as_mut_ptr() as *mut c_void, 1, &k1, ptr::null_mut());
    clReleaseEvent(k0);
    clReleaseEvent(m1);
    clReleaseEvent(k1);
    clReleaseMemObject(t);
    if err != CL_SUCCESS {
        return Err(err);
    }
    Ok(token[0])
}
