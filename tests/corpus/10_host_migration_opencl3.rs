//! Moving a shared buffer between two devices with `clEnqueueMigrateMemObjects`, the way
//! the original forum answer first wrote it (through the host) and the way it should be.

use opencl3::command_queue::CommandQueue;
use opencl3::context::Context;
use opencl3::kernel::{ExecuteKernel, Kernel};
use opencl3::memory::{Buffer, CL_MIGRATE_MEM_OBJECT_HOST};
use opencl3::types::{cl_float, CL_BLOCKING};

/// The buffer goes to host memory although the next user is device 1's kernel.
pub fn hand_over(q0: &CommandQueue, q1: &CommandQueue, k0: &Kernel, k1: &Kernel, shared: &Buffer<cl_float>, n: usize) -> opencl3::Result<()> {
    unsafe {
        let produced = ExecuteKernel::new(k0).set_arg(shared).set_global_work_size(n).enqueue_nd_range(q0)?;
        let moved = q1.enqueue_migrate_mem_object(1, &shared.get(), CL_MIGRATE_MEM_OBJECT_HOST, &[produced.get()])?; //~ CLM002
        ExecuteKernel::new(k1).set_arg(shared).set_global_work_size(n).set_wait_event(&moved).enqueue_nd_range(q1)?;
    }
    q1.finish()
}

/// OK: the flag is what a read-back wants.
pub fn bring_home(q0: &CommandQueue, k0: &Kernel, shared: &Buffer<cl_float>, out: &mut [cl_float]) -> opencl3::Result<()> {
    unsafe {
        let produced = ExecuteKernel::new(k0).set_arg(shared).set_global_work_size(out.len()).enqueue_nd_range(q0)?;
        let home = q0.enqueue_migrate_mem_object(1, &shared.get(), CL_MIGRATE_MEM_OBJECT_HOST, &[produced.get()])?;
        q0.enqueue_read_buffer(shared, CL_BLOCKING, 0, out, &[home.get()])?;
    }
    Ok(())
}

/// OK: flags 0 move the buffer to the queue's device.
pub fn hand_over_direct(q0: &CommandQueue, q1: &CommandQueue, k0: &Kernel, k1: &Kernel, shared: &Buffer<cl_float>, n: usize) -> opencl3::Result<()> {
    unsafe {
        let produced = ExecuteKernel::new(k0).set_arg(shared).set_global_work_size(n).enqueue_nd_range(q0)?;
        let moved = q1.enqueue_migrate_mem_object(1, &shared.get(), 0, &[produced.get()])?;
        ExecuteKernel::new(k1).set_arg(shared).set_global_work_size(n).set_wait_event(&moved).enqueue_nd_range(q1)?;
    }
    q1.finish()
}

/// To the host, and then the next use is a kernel on the same queue: still a round trip.
pub fn park_then_reuse(q0: &CommandQueue, k0: &Kernel, shared: &Buffer<cl_float>, n: usize) -> opencl3::Result<()> {
    unsafe {
        q0.enqueue_migrate_mem_object(1, &shared.get(), CL_MIGRATE_MEM_OBJECT_HOST, &[])?; //~ CLM002
        ExecuteKernel::new(k0).set_arg(shared).set_global_work_size(n).enqueue_nd_range(q0)?;
    }
    q0.finish()
}
