//! Markers and barriers (`cl-sys`) used to join the work of one queue before another
//! queue starts, including on an out-of-order queue.

use std::ffi::c_void;
use std::mem;
use std::ptr;

use cl_sys::*;

unsafe fn arg(k: cl_kernel, m: &cl_mem) {
    clSetKernelArg(k, 0, mem::size_of::<cl_mem>(), m as *const cl_mem as *const c_void);
}

/// On an out-of-order queue, a marker with a wait list waits for the listed events only:
/// the second kernel is not covered, and the read on the other queue races with it.
///
/// # Safety
/// Valid handles of one context; `ctx`'s first device runs `k`, which writes its argument.
pub unsafe fn ooo_marker(ctx: cl_context, dev: cl_device_id, other: cl_command_queue, k: cl_kernel, a: cl_mem, b: cl_mem, out: &mut [f32]) -> cl_int {
    let mut err = 0;
    let q = clCreateCommandQueue(ctx, dev, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, &mut err);
    let n: usize = out.len();
    let mut ka: cl_event = ptr::null_mut();
    let mut mark: cl_event = ptr::null_mut();
    arg(k, &a);
    err |= clEnqueueNDRangeKernel(q, k, 1, ptr::null(), &n, ptr::null(), 0, ptr::null(), &mut ka);
    arg(k, &b);
    err |= clEnqueueNDRangeKernel(q, k, 1, ptr::null(), &n, ptr::null(), 0, ptr::null(), ptr::null_mut());
    err |= clEnqueueMarkerWithWaitList(q, 1, &ka, &mut mark);
    err |= clEnqueueReadBuffer(other, a, CL_TRUE, 0, n * 4, out.as_mut_ptr() as *mut c_void, 1, &mark, ptr::null_mut());
    err |= clEnqueueReadBuffer(other, b, CL_TRUE, 0, n * 4, out.as_mut_ptr() as *mut c_void, 1, &mark, ptr::null_mut()); //~ CLM003
    clReleaseEvent(ka);
    clReleaseEvent(mark);
    clFinish(q);
    clReleaseCommandQueue(q);
    err
}

/// OK: a marker with an empty wait list waits for everything enqueued before it, even on
/// an out-of-order queue.
///
/// # Safety
/// As above.
pub unsafe fn ooo_marker_all(ctx: cl_context, dev: cl_device_id, other: cl_command_queue, k: cl_kernel, a: cl_mem, b: cl_mem, out: &mut [f32]) -> cl_int {
    let mut err = 0;
    let q = clCreateCommandQueue(ctx, dev, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, &mut err);
    let n: usize = out.len();
    let mut mark: cl_event = ptr::null_mut();
    arg(k, &a);
    err |= clEnqueueNDRangeKernel(q, k, 1, ptr::null(), &n, ptr::null(), 0, ptr::null(), ptr::null_mut());
    arg(k, &b);
    err |= clEnqueueNDRangeKernel(q, k, 1, ptr::null(), &n, ptr::null(), 0, ptr::null(), ptr::null_mut());
    err |= clEnqueueMarkerWithWaitList(q, 0, ptr::null(), &mut mark);
    err |= clEnqueueReadBuffer(other, b, CL_TRUE, 0, n * 4, out.as_mut_ptr() as *mut c_void, 1, &mark, ptr::null_mut());
    clReleaseEvent(mark);
    clReleaseCommandQueue(q);
    err
}

/// OK: a barrier on the out-of-order queue orders the kernels after it behind the ones
/// before it.
///
/// # Safety
/// As above.
pub unsafe fn ooo_barrier(ctx: cl_context, dev: cl_device_id, k: cl_kernel, a: cl_mem, out: &mut [f32]) -> cl_int {
    let mut err = 0;
    let q = clCreateCommandQueue(ctx, dev, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, &mut err);
    let n: usize = out.len();
    let data = vec![1.0f32; n];
    err |= clEnqueueWriteBuffer(q, a, CL_FALSE, 0, n * 4, data.as_ptr() as *const c_void, 0, ptr::null(), ptr::null_mut());
    err |= clEnqueueBarrierWithWaitList(q, 0, ptr::null(), ptr::null_mut());
    arg(k, &a);
    err |= clEnqueueNDRangeKernel(q, k, 1, ptr::null(), &n, ptr::null(), 0, ptr::null(), ptr::null_mut());
    clFinish(q);
    clReleaseCommandQueue(q);
    err
}

/// Without the barrier the write and the kernel of the out-of-order queue are unordered.
///
/// # Safety
/// As above.
pub unsafe fn ooo_no_barrier(ctx: cl_context, dev: cl_device_id, k: cl_kernel, a: cl_mem, out: &mut [f32]) -> cl_int {
    let mut err = 0;
    let q = clCreateCommandQueue(ctx, dev, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, &mut err);
    let n: usize = out.len();
    let data = vec![1.0f32; n];
    err |= clEnqueueWriteBuffer(q, a, CL_FALSE, 0, n * 4, data.as_ptr() as *const c_void, 0, ptr::null(), ptr::null_mut());
    arg(k, &a);
    err |= clEnqueueNDRangeKernel(q, k, 1, ptr::null(), &n, ptr::null(), 0, ptr::null(), ptr::null_mut()); //~ CLM003
    clFinish(q);
    clReleaseCommandQueue(q);
    err
}
