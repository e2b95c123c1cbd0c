//! A solver object owning its raw handles (`cl3`), releasing them in `Drop`, with a step
//! method that moves the halo between its two devices.

use std::mem;
use std::ptr;

use cl3::command_queue::{enqueue_migrate_mem_object, enqueue_nd_range_kernel, enqueue_write_buffer, finish, release_command_queue};
use cl3::event::release_event;
use cl3::kernel::set_kernel_arg;
use cl3::memory::{create_buffer, release_mem_object, CL_MEM_READ_WRITE, CL_MIGRATE_MEM_OBJECT_HOST};
use cl3::types::{cl_command_queue, cl_context, cl_float, cl_int, cl_kernel, cl_mem, CL_BLOCKING};

pub struct Solver {
    q0: cl_command_queue,
    q1: cl_command_queue,
    k0: cl_kernel,
    k1: cl_kernel,
    halo: cl_mem,
    n: usize,
}

impl Solver {
    /// # Safety
    /// Valid handles of one context.
    pub unsafe fn new(ctx: cl_context, q0: cl_command_queue, q1: cl_command_queue, k0: cl_kernel, k1: cl_kernel, init: &[cl_float]) -> Result<Self, cl_int> {
        let n = init.len();
        let halo = create_buffer(ctx, CL_MEM_READ_WRITE, n * 4, ptr::null_mut())?;
        let e0 = enqueue_write_buffer(q0, halo, CL_BLOCKING, 0, n * 4, init.as_ptr().cast(), 0, ptr::null())?;
        release_event(e0)?;
        let e1 = enqueue_write_buffer(q1, halo, CL_BLOCKING, 0, n * 4, init.as_ptr().cast(), 0, ptr::null())?; //~ CLM004
        release_event(e1)?;
        Ok(Solver { q0, q1, k0, k1, halo, n })
    }

    /// One time step: device 0 updates the halo, it moves to device 1 through the host.
    ///
    /// # Safety
    /// The handles are still valid.
    pub unsafe fn step(&self) -> Result<(), cl_int> {
        let global = [self.n];
        set_kernel_arg(self.k0, 0, mem::size_of::<cl_mem>(), &self.halo as *const cl_mem as *const _)?;
        set_kernel_arg(self.k1, 0, mem::size_of::<cl_mem>(), &self.halo as *const cl_mem as *const _)?;
        let a = enqueue_nd_range_kernel(self.q0, self.k0, 1, ptr::null(), global.as_ptr(), ptr::null(), 0, ptr::null())?;
        let m = enqueue_migrate_mem_object(self.q1, 1, &self.halo, CL_MIGRATE_MEM_OBJECT_HOST, 1, &a)?; //~ CLM002
        let b = enqueue_nd_range_kernel(self.q1, self.k1, 1, ptr::null(), global.as_ptr(), ptr::null(), 1, &m)?;
        let back = enqueue_migrate_mem_object(self.q0, 1, &self.halo, 0, 1, &b)?;
        finish(self.q0)?;
        release_event(a)?;
        release_event(m)?;
        release_event(b)?;
        release_event(back)?;
        Ok(())
    }
}

impl Drop for Solver {
    fn drop(&mut self) {
        unsafe {
            let _ = release_mem_object(self.halo);
            let _ = release_command_queue(self.q0);
            let _ = release_command_queue(self.q1);
        }
    }
}
