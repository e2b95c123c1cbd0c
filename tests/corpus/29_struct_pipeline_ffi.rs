//! A producer/consumer pair of devices owned by a struct (`cl-sys`), with its handles
//! released in `Drop`, and the hand-off in a method.

use std::ffi::c_void;
use std::mem;
use std::ptr;

use cl_sys::*;

pub struct Pair {
    producer_q: cl_command_queue,
    consumer_q: cl_command_queue,
    produce: cl_kernel,
    consume: cl_kernel,
    shared: cl_mem,
    n: usize,
}

impl Pair {
    /// # Safety
    /// The handles are valid and of one context.
    pub unsafe fn new(ctx: cl_context, producer_q: cl_command_queue, consumer_q: cl_command_queue, produce: cl_kernel, consume: cl_kernel, n: usize) -> Pair {
        let mut err = 0;
        let shared = clCreateBuffer(ctx, CL_MEM_READ_WRITE, n * 4, ptr::null_mut(), &mut err);
        Pair { producer_q, consumer_q, produce, consume, shared, n }
    }

    /// The migration is enqueued on the producer's queue: the buffer is already there.
    ///
    /// # Safety
    /// The handles are still valid.
    pub unsafe fn hand_off(&self) -> cl_int {
        let mut err = 0;
        let mut produced: cl_event = ptr::null_mut();
        let mut moved: cl_event = ptr::null_mut();
        clSetKernelArg(self.produce, 0, mem::size_of::<cl_mem>(), &self.shared as *const cl_mem as *const c_void);
        clSetKernelArg(self.consume, 0, mem::size_of::<cl_mem>(), &self.shared as *const cl_mem as *const c_void);
        err |= clEnqueueNDRangeKernel(self.producer_q, self.produce, 1, ptr::null(), &self.n, ptr::null(), 0, ptr::null(), &mut produced);
        err |= clEnqueueMigrateMemObjects(self.producer_q, 1, &self.shared, 0, 1, &produced, &mut moved); //~ CLM005
        err |= clEnqueueNDRangeKernel(self.consumer_q, self.consume, 1, ptr::null(), &self.n, ptr::null(), 1, &moved, ptr::null_mut());
        clFinish(self.consumer_q);
        clReleaseEvent(produced);
        clReleaseEvent(moved);
        err
    }

    /// OK: the migration is on the consumer's queue.
    ///
    /// # Safety
    /// The handles are still valid.
    pub unsafe fn hand_off_ok(&self) -> cl_int {
        let mut err = 0;
        let mut produced: cl_event = ptr::null_mut();
        let mut moved: cl_event = ptr::null_mut();
        clSetKernelArg(self.produce, 0, mem::size_of::<cl_mem>(), &self.shared as *const cl_mem as *const c_void);
        clSetKernelArg(self.consume, 0, mem::size_of::<cl_mem>(), &self.shared as *const cl_mem as *const c_void);
        err |= clEnqueueNDRangeKernel(self.producer_q, self.produce, 1, ptr::null(), &self.n, ptr::null(), 0, ptr::null(), &mut produced);
        err |= clEnqueueMigrateMemObjects(self.consumer_q, 1, &self.shared, 0, 1, &produced, &mut moved);
        err |= clEnqueueNDRangeKernel(self.consumer_q, self.consume, 1, ptr::null(), &self.n, ptr::null(), 1, &moved, ptr::null_mut());
        clFinish(self.consumer_q);
        clReleaseEvent(produced);
        clReleaseEvent(moved);
        err
    }
}

impl Drop for Pair {
    fn drop(&mut self) {
        unsafe {
            clReleaseMemObject(self.shared);
            clReleaseKernel(self.produce);
            clReleaseKernel(self.consume);
        }
    }
}
