//! A Jacobi iteration split across two devices on `opencl-sys`, with two buffers swapped
//! every iteration and the boundary rows exchanged through a halo buffer, as in the C
//! multi-GPU Jacobi samples.

use std::ffi::c_void;
use std::mem;
use std::ptr;

use opencl_sys::*;

pub struct Dev {
    pub queue: cl_command_queue,
    pub jacobi: cl_kernel,
    pub cur: cl_mem,
    pub next: cl_mem,
}

unsafe fn set_mem(k: cl_kernel, i: cl_uint, m: &cl_mem) -> cl_int {
    clSetKernelArg(k, i, mem::size_of::<cl_mem>(), m as *const cl_mem as *const c_void)
}

/// Each iteration's halo copy on device 1 waits for its own kernel only; device 0's kernel
/// of the same iteration writes the halo.
///
/// # Safety
/// Valid handles of one context.
pub unsafe fn jacobi(d: &mut [Dev; 2], halo: cl_mem, rows: usize, iters: usize) -> cl_int {
    let mut err = 0;
    let global = rows;
    for _ in 0..iters {
        let mut done0: cl_event = ptr::null_mut();
        let mut done1: cl_event = ptr::null_mut();
        set_mem(d[0].jacobi, 0, &d[0].cur);
        set_mem(d[0].jacobi, 1, &d[0].next);
        set_mem(d[0].jacobi, 2, &halo);
        err |= clEnqueueNDRangeKernel(d[0].queue, d[0].jacobi, 1, ptr::null(), &global, ptr::null(), 0, ptr::null(), &mut done0);
        set_mem(d[1].jacobi, 0, &d[1].cur);
        set_mem(d[1].jacobi, 1, &d[1].next);
        set_mem(d[1].jacobi, 2, &halo);
        err |= clEnqueueNDRangeKernel(d[1].queue, d[1].jacobi, 1, ptr::null(), &global, ptr::null(), 0, ptr::null(), &mut done1);
        // device 1 takes device 0's boundary row from the halo once its own kernel is done
        err |= clEnqueueCopyBuffer(d[1].queue, halo, d[1].next, 0, 0, 4 * 64, 1, &done1, ptr::null_mut()); //~ CLM003
        clWaitForEvents(1, &done1);
        clReleaseEvent(done0);
        clReleaseEvent(done1);
        for dev in d.iter_mut() {
            mem::swap(&mut dev.cur, &mut dev.next);
        }
    }
    clFinish(d[0].queue);
    err
}

/// OK: the iteration waits for both devices on the host before the next one.
///
/// # Safety
/// Valid handles of one context; each device's kernel only touches its own buffers.
pub unsafe fn jacobi_private(d: &mut [Dev; 2], rows: usize, iters: usize) -> cl_int {
    let mut err = 0;
    let global = rows;
    for _ in 0..iters {
        let mut evs: [cl_event; 2] = [ptr::null_mut(); 2];
        for (i, dev) in d.iter().enumerate() {
            set_mem(dev.jacobi, 0, &dev.cur);
            set_mem(dev.jacobi, 1, &dev.next);
            err |= clEnqueueNDRangeKernel(dev.queue, dev.jacobi, 1, ptr::null(), &global, ptr::null(), 0, ptr::null(), &mut evs[i]);
        }
        clWaitForEvents(2, evs.as_ptr());
        for e in evs {
            clReleaseEvent(e);
        }
        for dev in d.iter_mut() {
            mem::swap(&mut dev.cur, &mut dev.next);
        }
    }
    err
}
