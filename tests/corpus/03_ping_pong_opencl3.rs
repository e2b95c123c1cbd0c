//! A 1-D heat equation split between two devices: each owns half of the rod and they trade
//! the boundary cells through one shared halo buffer every time step (the shape of the
//! two-GPU Jacobi and stencil examples).

use std::ptr;

use opencl3::command_queue::CommandQueue;
use opencl3::context::Context;
use opencl3::kernel::{ExecuteKernel, Kernel};
use opencl3::memory::{Buffer, CL_MEM_COPY_HOST_PTR, CL_MEM_READ_WRITE};
use opencl3::program::Program;
use opencl3::types::{cl_float, CL_BLOCKING};

const HEAT: &str = r#"
__kernel void left(__global float* own, __global float* halo) {
    size_t i = get_global_id(0);
    own[i] = 0.25f * own[i] + 0.5f * halo[0];
    if (i == 0) halo[0] = own[i];
}
__kernel void right(__global float* own, __global float* halo) {
    size_t i = get_global_id(0);
    own[i] = 0.25f * own[i] + 0.5f * halo[0];
    if (i == 0) halo[0] = own[i];
}
"#;

const CELLS: usize = 1 << 14;
const STEPS: usize = 100;

pub struct Rod {
    pub left: Vec<cl_float>,
    pub right: Vec<cl_float>,
}

/// Each step waits for the other side's previous update, except the migration back to the
/// left device: it can move the halo while the right kernel still writes it.
pub fn simulate(context: &Context, dev0: &CommandQueue, dev1: &CommandQueue, rod: &mut Rod) -> opencl3::Result<()> {
    let program = Program::create_and_build_from_source(context, HEAT, "-cl-fast-relaxed-math")?;
    let left = Kernel::create(&program, "left")?;
    let right = Kernel::create(&program, "right")?;
    let mut halo_init = [0.0f32; 1];
    unsafe {
        let l = Buffer::<cl_float>::create(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, CELLS, rod.left.as_mut_ptr().cast())?;
        let r = Buffer::<cl_float>::create(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, CELLS, rod.right.as_mut_ptr().cast())?;
        let halo = Buffer::<cl_float>::create(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, 1, halo_init.as_mut_ptr().cast())?;
        for _t in 0..STEPS {
            let left_done = ExecuteKernel::new(&left)
                .set_arg(&l)
                .set_arg(&halo)
                .set_global_work_size(CELLS)
                .enqueue_nd_range(dev0)?;
            let to_right = dev1.enqueue_migrate_mem_object(1, &halo.get(), 0, &[left_done.get()])?;
            ExecuteKernel::new(&right)
                .set_arg(&r)
                .set_arg(&halo)
                .set_global_work_size(CELLS)
                .set_wait_event(&to_right)
                .enqueue_nd_range(dev1)?;
            dev0.enqueue_migrate_mem_object(1, &halo.get(), 0, &[])?; //~ CLM003
        }
        dev0.enqueue_read_buffer(&l, CL_BLOCKING, 0, &mut rod.left, &[])?;
        dev1.enqueue_read_buffer(&r, CL_BLOCKING, 0, &mut rod.right, &[])?;
    }
    Ok(())
}

/// OK: the corrected time step of the seed program: every hand-off waits on the event of
/// the command before it.
pub fn simulate_chained(context: &Context, dev0: &CommandQueue, dev1: &CommandQueue, rod: &mut Rod) -> opencl3::Result<()> {
    let program = Program::create_and_build_from_source(context, HEAT, "")?;
    let left = Kernel::create(&program, "left")?;
    let right = Kernel::create(&program, "right")?;
    let mut halo_init = [0.0f32; 1];
    unsafe {
        let l = Buffer::<cl_float>::create(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, CELLS, rod.left.as_mut_ptr().cast())?;
        let r = Buffer::<cl_float>::create(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, CELLS, rod.right.as_mut_ptr().cast())?;
        let halo = Buffer::<cl_float>::create(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, 1, halo_init.as_mut_ptr().cast())?;
        let mut to_left = dev0.enqueue_marker_with_wait_list(&[])?;
        for _t in 0..STEPS {
            let left_done = ExecuteKernel::new(&left)
                .set_arg(&l)
                .set_arg(&halo)
                .set_global_work_size(CELLS)
                .set_wait_event(&to_left)
                .enqueue_nd_range(dev0)?;
            let to_right = dev1.enqueue_migrate_mem_object(1, &halo.get(), 0, &[left_done.get()])?;
            let right_done = ExecuteKernel::new(&right)
                .set_arg(&r)
                .set_arg(&halo)
                .set_global_work_size(CELLS)
                .set_wait_event(&to_right)
                .enqueue_nd_range(dev1)?;
            to_left = dev0.enqueue_migrate_mem_object(1, &halo.get(), 0, &[right_done.get()])?;
        }
        dev0.enqueue_read_buffer(&l, CL_BLOCKING, 0, &mut rod.left, &[to_left.get()])?;
        dev1.enqueue_read_buffer(&r, CL_BLOCKING, 0, &mut rod.right, &[])?;
    }
    Ok(())
}
