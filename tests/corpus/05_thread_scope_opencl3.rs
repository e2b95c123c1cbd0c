//! Two host threads, one per device queue, each accumulating its half of a histogram into
//! one shared output buffer (the "one host thread per GPU" layout of multi-GPU samples).

use std::ptr;
use std::thread;

use opencl3::command_queue::CommandQueue;
use opencl3::context::Context;
use opencl3::kernel::{ExecuteKernel, Kernel};
use opencl3::memory::{Buffer, CL_MEM_COPY_HOST_PTR, CL_MEM_READ_ONLY, CL_MEM_READ_WRITE};
use opencl3::program::Program;
use opencl3::types::{cl_uint, CL_BLOCKING};

const HIST: &str = r#"
__kernel void hist(__global const uint* data, __global uint* bins, uint offset) {
    uint v = data[get_global_id(0) + offset];
    atomic_inc(&bins[v & 255]);
}
"#;

/// Both threads launch `hist` into `bins` with nothing ordering the two launches; the
/// atomics make each launch correct alone, but the read on `q0` does not wait for `q1`.
pub fn histogram(context: &Context, q0: &CommandQueue, q1: &CommandQueue, data: &mut [cl_uint]) -> opencl3::Result<Vec<cl_uint>> {
    let program = Program::create_and_build_from_source(context, HIST, "").unwrap();
    let kernel = Kernel::create(&program, "hist")?;
    let half = data.len() / 2;
    let mut bins_host = vec![0u32; 256];
    let src = unsafe { Buffer::<cl_uint>::create(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, data.len(), data.as_mut_ptr().cast())? };
    let bins = unsafe { Buffer::<cl_uint>::create(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, 256, bins_host.as_mut_ptr().cast())? };
    thread::scope(|s| {
        s.spawn(|| unsafe {
            ExecuteKernel::new(&kernel)
                .set_arg(&src)
                .set_arg(&bins)
                .set_arg(&0u32)
                .set_global_work_size(half)
                .enqueue_nd_range(q0)
                .map(|_| ())
        });
        s.spawn(|| unsafe {
            ExecuteKernel::new(&kernel) //~ CLM003
                .set_arg(&src)
                .set_arg(&bins)
                .set_arg(&(half as u32))
                .set_global_work_size(half)
                .enqueue_nd_range(q1)
                .map(|_| ())
        });
    });
    unsafe { q0.enqueue_read_buffer(&bins, CL_BLOCKING, 0, &mut bins_host, &[])? }; //~ CLM003
    Ok(bins_host)
}

/// OK: each thread owns its bins buffer, and each thread finishes its queue before the
/// scope ends.
pub fn histogram_private(context: &Context, q0: &CommandQueue, q1: &CommandQueue, data: &mut [cl_uint]) -> opencl3::Result<Vec<cl_uint>> {
    let program = Program::create_and_build_from_source(context, HIST, "").unwrap();
    let kernel = Kernel::create(&program, "hist")?;
    let half = data.len() / 2;
    let src = unsafe { Buffer::<cl_uint>::create(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, data.len(), data.as_mut_ptr().cast())? };
    let (h0, h1) = thread::scope(|s| {
        let t0 = s.spawn(|| -> opencl3::Result<Vec<cl_uint>> {
            let mut host = vec![0u32; 256];
            unsafe {
                let bins = Buffer::<cl_uint>::create(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, 256, host.as_mut_ptr().cast())?;
                ExecuteKernel::new(&kernel).set_arg(&src).set_arg(&bins).set_arg(&0u32).set_global_work_size(half).enqueue_nd_range(q0)?;
                q0.enqueue_read_buffer(&bins, CL_BLOCKING, 0, &mut host, &[])?;
            }
            Ok(host)
        });
        let t1 = s.spawn(|| -> opencl3::Result<Vec<cl_uint>> {
            let mut host = vec![0u32; 256];
            unsafe {
                let bins = Buffer::<cl_uint>::create(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, 256, host.as_mut_ptr().cast())?;
                ExecuteKernel::new(&kernel).set_arg(&src).set_arg(&bins).set_arg(&(half as u32)).set_global_work_size(half).enqueue_nd_range(q1)?;
                q1.enqueue_read_buffer(&bins, CL_BLOCKING, 0, &mut host, &[])?;
            }
            Ok(host)
        });
        (t0.join().unwrap(), t1.join().unwrap())
    });
    let (h0, h1) = (h0?, h1?);
    Ok(h0.iter().zip(&h1).map(|(a, b)| a + b).collect())
}
