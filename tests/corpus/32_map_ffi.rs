//! Zero-copy access through `clEnqueueMapBuffer` on raw FFI (`cl-sys`).

use std::ffi::c_void;
use std::mem;
use std::ptr;

use cl_sys::*;

/// The map on the host queue overlaps the kernel still running on the device queue.
///
/// # Safety
/// Valid handles of one context; `k` writes its argument.
pub unsafe fn map_while_running(dq: cl_command_queue, hq: cl_command_queue, k: cl_kernel, buf: cl_mem, n: usize) -> f32 {
    let mut err = 0;
    clSetKernelArg(k, 0, mem::size_of::<cl_mem>(), &buf as *const cl_mem as *const c_void);
    clEnqueueNDRangeKernel(dq, k, 1, ptr::null(), &n, ptr::null(), 0, ptr::null(), ptr::null_mut());
    let p = clEnqueueMapBuffer(hq, buf, CL_TRUE, CL_MAP_READ, 0, n * 4, 0, ptr::null(), ptr::null_mut(), &mut err) as *const f32; //~ CLM003
    let first = *p;
    clEnqueueUnmapMemObject(hq, buf, p as *mut c_void, 0, ptr::null(), ptr::null_mut());
    clFinish(hq);
    first
}

/// OK: the blocking map on the kernel's own queue completes after the kernel, and the
/// data is read once the call returns.
///
/// # Safety
/// As above.
pub unsafe fn map_same_queue(dq: cl_command_queue, k: cl_kernel, buf: cl_mem, n: usize) -> f32 {
    let mut err = 0;
    clSetKernelArg(k, 0, mem::size_of::<cl_mem>(), &buf as *const cl_mem as *const c_void);
    clEnqueueNDRangeKernel(dq, k, 1, ptr::null(), &n, ptr::null(), 0, ptr::null(), ptr::null_mut());
    let p = clEnqueueMapBuffer(dq, buf, CL_TRUE, CL_MAP_READ, 0, n * 4, 0, ptr::null(), ptr::null_mut(), &mut err) as *const f32;
    let first = *p;
    clEnqueueUnmapMemObject(dq, buf, p as *mut c_void, 0, ptr::null(), ptr::null_mut());
    clFinish(dq);
    first
}

/// OK: a blocking map completes the map command; a kernel on another queue enqueued after
/// the unmap has completed (`clFinish`) is ordered after both.
///
/// # Safety
/// As above.
pub unsafe fn write_through_map(dq: cl_command_queue, hq: cl_command_queue, k: cl_kernel, buf: cl_mem, n: usize) {
    let mut err = 0;
    let p = clEnqueueMapBuffer(hq, buf, CL_TRUE, CL_MAP_WRITE_INVALIDATE_REGION, 0, n * 4, 0, ptr::null(), ptr::null_mut(), &mut err) as *mut f32;
    std::slice::from_raw_parts_mut(p, n).fill(1.0);
    clEnqueueUnmapMemObject(hq, buf, p as *mut c_void, 0, ptr::null(), ptr::null_mut());
    clFinish(hq);
    clSetKernelArg(k, 0, mem::size_of::<cl_mem>(), &buf as *const cl_mem as *const c_void);
    clEnqueueNDRangeKernel(dq, k, 1, ptr::null(), &n, ptr::null(), 0, ptr::null(), ptr::null_mut());
    clFinish(dq);
}
