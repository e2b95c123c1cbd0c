//! Per-device work written with iterator adapters over a `Vec` of queues.

use std::ptr;

use opencl3::command_queue::CommandQueue;
use opencl3::context::Context;
use opencl3::event::Event;
use opencl3::kernel::{ExecuteKernel, Kernel};
use opencl3::memory::{Buffer, CL_MEM_READ_ONLY, CL_MEM_READ_WRITE};
use opencl3::program::Program;
use opencl3::types::{cl_float, CL_BLOCKING, CL_NON_BLOCKING};

const ACC: &str = "__kernel void acc(__global float* a) { a[get_global_id(0)] += 1.0f; }";

/// Every queue uploads the same table into the one shared buffer.
pub fn broadcast_table(context: &Context, queues: &[CommandQueue], table: &[cl_float]) -> opencl3::Result<Buffer<cl_float>> {
    let mut lut = unsafe { Buffer::<cl_float>::create(context, CL_MEM_READ_ONLY, table.len(), ptr::null_mut())? };
    let uploads: Vec<Event> = queues
        .iter()
        .map(|q| unsafe { q.enqueue_write_buffer(&mut lut, CL_BLOCKING, 0, table, &[]) }) //~ CLM004
        .collect::<Result<_, _>>()?;
    drop(uploads);
    Ok(lut)
}

/// Each queue runs the kernel on its own slice buffer, then the results are gathered on
/// the host with blocking reads: OK.
pub fn map_reduce(context: &Context, queues: &[CommandQueue], k: &Kernel, parts: &[Vec<cl_float>]) -> opencl3::Result<f32> {
    let bufs: Vec<Buffer<cl_float>> = parts
        .iter()
        .map(|p| unsafe { Buffer::<cl_float>::create(context, CL_MEM_READ_WRITE, p.len(), ptr::null_mut()) })
        .collect::<Result<_, _>>()?;
    let mut total = 0.0;
    for ((q, b), p) in queues.iter().zip(&bufs).zip(parts) {
        let mut host = p.clone();
        unsafe {
            let mut b2 = Buffer::<cl_float>::create(context, CL_MEM_READ_WRITE, p.len(), ptr::null_mut())?;
            q.enqueue_write_buffer(&mut b2, CL_NON_BLOCKING, 0, p, &[])?;
            ExecuteKernel::new(k).set_arg(&b2).set_arg(b).set_global_work_size(p.len()).enqueue_nd_range(q)?;
            q.enqueue_read_buffer(b, CL_BLOCKING, 0, &mut host, &[])?;
        }
        total += host.iter().sum::<f32>();
    }
    Ok(total)
}

/// Two devices' queues taken from the `Vec`, both running the accumulating kernel on one
/// buffer with nothing between them.
pub fn first_two(context: &Context, queues: Vec<CommandQueue>, n: usize) -> opencl3::Result<()> {
    let program = Program::create_and_build_from_source(context, ACC, "").unwrap();
    let k = &Kernel::create(&program, "acc")?;
    let acc = unsafe { Buffer::<cl_float>::create(context, CL_MEM_READ_WRITE, n, ptr::null_mut())? };
    let (qa, qb) = (&queues[0], &queues[1]);
    unsafe {
        ExecuteKernel::new(k).set_arg(&acc).set_global_work_size(n).enqueue_nd_range(qa)?;
        ExecuteKernel::new(k).set_arg(&acc).set_global_work_size(n).enqueue_nd_range(qb)?; //~ CLM003
    }
    queues.iter().try_for_each(|q| q.finish())
}
