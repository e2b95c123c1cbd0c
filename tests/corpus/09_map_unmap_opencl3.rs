//! Results read back by mapping the output buffer instead of copying it, as the
//! zero-copy samples for integrated GPUs recommend.

use std::ptr;

use opencl3::command_queue::CommandQueue;
use opencl3::context::Context;
use opencl3::kernel::{ExecuteKernel, Kernel};
use opencl3::memory::{Buffer, CL_MAP_READ, CL_MAP_WRITE, CL_MEM_ALLOC_HOST_PTR, CL_MEM_READ_WRITE};
use opencl3::program::Program;
use opencl3::types::{cl_float, cl_mem, CL_BLOCKING, CL_NON_BLOCKING};

const SQUARE: &str = r#"
__kernel void square(__global float* x) { size_t i = get_global_id(0); x[i] = x[i] * x[i]; }
"#;

const N: usize = 1 << 12;

/// The map on the host queue does not wait for the kernel on the device queue.
pub fn map_result(context: &Context, device_q: &CommandQueue, host_q: &CommandQueue) -> opencl3::Result<f32> {
    let program = Program::create_and_build_from_source(context, SQUARE, "").unwrap();
    let square = Kernel::create(&program, "square")?;
    let mut sum = 0.0;
    unsafe {
        let x = Buffer::<cl_float>::create(context, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, N, ptr::null_mut())?;
        ExecuteKernel::new(&square).set_arg(&x).set_global_work_size(N).enqueue_nd_range(device_q)?;
        let mut mapped: cl_mem = ptr::null_mut();
        host_q.enqueue_map_buffer(&x, CL_BLOCKING, CL_MAP_READ, 0, N * 4, &mut mapped, &[])?; //~ CLM003
        let values = std::slice::from_raw_parts(mapped as *const f32, N);
        sum += values.iter().sum::<f32>();
        host_q.enqueue_unmap_mem_object(x.get(), mapped, &[])?.wait()?;
    }
    Ok(sum)
}

/// OK: the map waits on the kernel's event, and the unmap is waited on before the kernel
/// runs again.
pub fn map_after_kernel(context: &Context, device_q: &CommandQueue, host_q: &CommandQueue) -> opencl3::Result<f32> {
    let program = Program::create_and_build_from_source(context, SQUARE, "").unwrap();
    let square = Kernel::create(&program, "square")?;
    let mut sum = 0.0;
    unsafe {
        let x = Buffer::<cl_float>::create(context, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, N, ptr::null_mut())?;
        let done = ExecuteKernel::new(&square).set_arg(&x).set_global_work_size(N).enqueue_nd_range(device_q)?;
        let mut mapped: cl_mem = ptr::null_mut();
        host_q.enqueue_map_buffer(&x, CL_BLOCKING, CL_MAP_READ, 0, N * 4, &mut mapped, &[done.get()])?;
        sum += std::slice::from_raw_parts(mapped as *const f32, N).iter().sum::<f32>();
        let unmapped = host_q.enqueue_unmap_mem_object(x.get(), mapped, &[])?;
        ExecuteKernel::new(&square).set_arg(&x).set_global_work_size(N).set_wait_event(&unmapped).enqueue_nd_range(device_q)?;
        device_q.finish()?;
    }
    Ok(sum)
}

/// The input is written through a mapping on one queue and the kernel on the other queue
/// does not wait for the unmap that publishes it.
pub fn fill_through_map(context: &Context, device_q: &CommandQueue, host_q: &CommandQueue) -> opencl3::Result<()> {
    let program = Program::create_and_build_from_source(context, SQUARE, "").unwrap();
    let square = Kernel::create(&program, "square")?;
    unsafe {
        let x = Buffer::<cl_float>::create(context, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, N, ptr::null_mut())?;
        let mut mapped: cl_mem = ptr::null_mut();
        host_q.enqueue_map_buffer(&x, CL_BLOCKING, CL_MAP_WRITE, 0, N * 4, &mut mapped, &[])?;
        std::slice::from_raw_parts_mut(mapped as *mut f32, N).fill(2.0);
        host_q.enqueue_unmap_mem_object(x.get(), mapped, &[])?;
        ExecuteKernel::new(&square).set_arg(&x).set_global_work_size(N).enqueue_nd_range(device_q)?; //~ CLM003
        device_q.finish()?;
    }
    Ok(())
}

/// OK: a non-blocking map on the kernel's own in-order queue, waited on before use.
pub fn map_same_queue(context: &Context, q: &CommandQueue) -> opencl3::Result<f32> {
    let program = Program::create_and_build_from_source(context, SQUARE, "").unwrap();
    let square = Kernel::create(&program, "square")?;
    unsafe {
        let x = Buffer::<cl_float>::create(context, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, N, ptr::null_mut())?;
        ExecuteKernel::new(&square).set_arg(&x).set_global_work_size(N).enqueue_nd_range(q)?;
        let mut mapped: cl_mem = ptr::null_mut();
        let m = q.enqueue_map_buffer(&x, CL_NON_BLOCKING, CL_MAP_READ, 0, N * 4, &mut mapped, &[])?;
        m.wait()?;
        let first = *(mapped as *const f32);
        q.enqueue_unmap_mem_object(x.get(), mapped, &[])?;
        q.finish()?;
        Ok(first)
    }
}
