//! The NVIDIA-SDK-style "oclSimpleMultiGPU" on raw `cl-sys`: the input is cut into one
//! slice per device, each device reduces its slice on its own queue, and the host waits for
//! all kernels with one `clWaitForEvents`.

use std::ffi::c_void;
use std::mem;
use std::ptr;

use cl_sys::*;

pub const MAX_GPU: usize = 8;

/// # Safety
/// Valid handles of one context; `queues.len() == kernels.len()`.
pub unsafe fn simple_multi_gpu(ctx: cl_context, queues: &[cl_command_queue], kernels: &[cl_kernel], input: &[f32]) -> Result<f32, cl_int> {
    let ndev = queues.len();
    let per = input.len() / ndev;
    let mut err: cl_int = 0;
    let mut d_in: [cl_mem; MAX_GPU] = [ptr::null_mut(); MAX_GPU];
    let mut d_out: [cl_mem; MAX_GPU] = [ptr::null_mut(); MAX_GPU];
    let mut events: [cl_event; MAX_GPU] = [ptr::null_mut(); MAX_GPU];
    let mut partial = vec![0.0f32; ndev];
    for i in 0..ndev {
        d_in[i] = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, per * 4, input[i * per..].as_ptr() as *mut c_void, &mut err);
        d_out[i] = clCreateBuffer(ctx, CL_MEM_WRITE_ONLY, 4, ptr::null_mut(), &mut err);
        clSetKernelArg(kernels[i], 0, mem::size_of::<cl_mem>(), &d_in[i] as *const cl_mem as *const c_void);
        clSetKernelArg(kernels[i], 1, mem::size_of::<cl_mem>(), &d_out[i] as *const cl_mem as *const c_void);
        let global = per;
        err |= clEnqueueNDRangeKernel(queues[i], kernels[i], 1, ptr::null(), &global, ptr::null(), 0, ptr::null(), &mut events[i]);
    }
    clWaitForEvents(ndev as cl_uint, events.as_ptr());
    for i in 0..ndev {
        err |= clEnqueueReadBuffer(queues[i], d_out[i], CL_TRUE, 0, 4, partial[i..].as_mut_ptr() as *mut c_void, 0, ptr::null(), ptr::null_mut());
        clReleaseEvent(events[i]);
        clReleaseMemObject(d_in[i]);
        clReleaseMemObject(d_out[i]);
    }
    if err != CL_SUCCESS {
        return Err(err);
    }
    Ok(partial.iter().sum())
}

/// Two devices written out by hand, with one shared output: device 1's kernel is enqueued
/// without waiting for device 0's, and both write `out`.
///
/// # Safety
/// Valid handles of one context; `acc` accumulates into its second argument.
pub unsafe fn shared_output(ctx: cl_context, q0: cl_command_queue, q1: cl_command_queue, acc: cl_kernel, a: cl_mem, b: cl_mem) -> cl_int {
    let mut err = 0;
    let out = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 4096, ptr::null_mut(), &mut err);
    let global: usize = 1024;
    let mut e0: cl_event = ptr::null_mut();
    clSetKernelArg(acc, 0, mem::size_of::<cl_mem>(), &a as *const cl_mem as *const c_void);
    clSetKernelArg(acc, 1, mem::size_of::<cl_mem>(), &out as *const cl_mem as *const c_void);
    err |= clEnqueueNDRangeKernel(q0, acc, 1, ptr::null(), &global, ptr::null(), 0, ptr::null(), &mut e0);
    clSetKernelArg(acc, 0, mem::size_of::<cl_mem>(), &b as *const cl_mem as *const c_void);
    err |= clEnqueueNDRangeKernel(q1, acc, 1, ptr::null(), &global, ptr::null(), 0, ptr::null(), ptr::null_mut()); //~ CLM003
    clFinish(q1);
    clWaitForEvents(1, &e0);
    clReleaseEvent(e0);
    clReleaseMemObject(out);
    err
}
