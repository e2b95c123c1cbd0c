//! A two-device reduction on `ocl-core`: each device sums half of the input into its own
//! partial, device 0 then folds device 1's partial into the total.

use std::ffi::CString;

use ocl_core as core;
use ocl_core::{ArgVal, CommandQueue, Context, Event, Mem, MemMigrationFlags, Program};

const SUM: &str = r#"
__kernel void partial(__global const float* x, __global float* part) {
    size_t i = get_global_id(0);
    part[i] = x[2 * i] + x[2 * i + 1];
}
__kernel void fold(__global const float* other, __global float* mine) {
    size_t i = get_global_id(0);
    mine[i] += other[i];
}
"#;

fn program(context: &Context) -> core::Result<Program> {
    let p = core::create_program_with_source(context, &[CString::new(SUM)?])?;
    core::build_program(&p, None::<&[core::DeviceId]>, &CString::new("")?, None, None)?;
    Ok(p)
}

/// Device 1's partial moves to device 0 with the host flag, and is folded there next.
pub fn reduce(context: &Context, q0: &CommandQueue, q1: &CommandQueue, x: &[f32]) -> core::Result<Vec<f32>> {
    let p = program(context)?;
    let n = x.len() / 4;
    let x0 = unsafe { core::create_buffer(context, core::MEM_READ_ONLY | core::MEM_COPY_HOST_PTR, 2 * n, Some(&x[..2 * n]))? };
    let x1 = unsafe { core::create_buffer(context, core::MEM_READ_ONLY | core::MEM_COPY_HOST_PTR, 2 * n, Some(&x[2 * n..]))? };
    let p0: Mem = unsafe { core::create_buffer::<_, f32>(context, core::MEM_READ_WRITE, n, None)? };
    let p1: Mem = unsafe { core::create_buffer::<_, f32>(context, core::MEM_READ_WRITE, n, None)? };
    let k0 = core::create_kernel(&p, "partial")?;
    core::set_kernel_arg(&k0, 0, ArgVal::mem(&x0))?;
    core::set_kernel_arg(&k0, 1, ArgVal::mem(&p0))?;
    let k1 = core::create_kernel(&p, "partial")?;
    core::set_kernel_arg(&k1, 0, ArgVal::mem(&x1))?;
    core::set_kernel_arg(&k1, 1, ArgVal::mem(&p1))?;
    let fold = core::create_kernel(&p, "fold")?;
    core::set_kernel_arg(&fold, 0, ArgVal::mem(&p1))?;
    core::set_kernel_arg(&fold, 1, ArgVal::mem(&p0))?;
    let mut e1 = Event::null();
    let mut moved = Event::null();
    let mut out = vec![0.0f32; n];
    unsafe {
        core::enqueue_kernel(q0, &k0, 1, None, &[n, 1, 1], None, None::<Event>, None::<&mut Event>)?;
        core::enqueue_kernel(q1, &k1, 1, None, &[n, 1, 1], None, None::<Event>, Some(&mut e1))?;
        core::enqueue_migrate_mem_objects(q0, &[p1.clone()], MemMigrationFlags::OBJECT_HOST, Some(&e1), Some(&mut moved), None)?; //~ CLM002
        core::enqueue_kernel(q0, &fold, 1, None, &[n, 1, 1], None, Some(&moved), None::<&mut Event>)?;
        core::enqueue_read_buffer(q0, &p0, true, 0, &mut out, None::<Event>, None::<&mut Event>)?;
    }
    Ok(out)
}

/// The fold on device 0 reads device 1's partial without waiting for it.
pub fn reduce_unwaited(context: &Context, q0: &CommandQueue, q1: &CommandQueue, x: &[f32]) -> core::Result<Vec<f32>> {
    let p = program(context)?;
    let n = x.len() / 2;
    let x1 = unsafe { core::create_buffer(context, core::MEM_READ_ONLY | core::MEM_COPY_HOST_PTR, x.len(), Some(x))? };
    let p0: Mem = unsafe { core::create_buffer::<_, f32>(context, core::MEM_READ_WRITE, n, None)? };
    let p1: Mem = unsafe { core::create_buffer::<_, f32>(context, core::MEM_READ_WRITE, n, None)? };
    let k1 = core::create_kernel(&p, "partial")?;
    core::set_kernel_arg(&k1, 0, ArgVal::mem(&x1))?;
    core::set_kernel_arg(&k1, 1, ArgVal::mem(&p1))?;
    let fold = core::create_kernel(&p, "fold")?;
    core::set_kernel_arg(&fold, 0, ArgVal::mem(&p1))?;
    core::set_kernel_arg(&fold, 1, ArgVal::mem(&p0))?;
    let mut out = vec![0.0f32; n];
    unsafe {
        core::enqueue_fill_buffer(q0, &p0, 0.0f32, 0, n, None::<Event>, None::<&mut Event>, None)?;
        core::enqueue_kernel(q1, &k1, 1, None, &[n, 1, 1], None, None::<Event>, None::<&mut Event>)?;
        core::enqueue_kernel(q0, &fold, 1, None, &[n, 1, 1], None, None::<Event>, None::<&mut Event>)?; //~ CLM003
        core::enqueue_read_buffer(q0, &p0, true, 0, &mut out, None::<Event>, None::<&mut Event>)?;
    }
    Ok(out)
}

/// OK: the fold waits on device 1's event, and the move has flags 0.
pub fn reduce_ok(context: &Context, q0: &CommandQueue, q1: &CommandQueue, x: &[f32]) -> core::Result<Vec<f32>> {
    let p = program(context)?;
    let n = x.len() / 2;
    let x1 = unsafe { core::create_buffer(context, core::MEM_READ_ONLY | core::MEM_COPY_HOST_PTR, x.len(), Some(x))? };
    let p0: Mem = unsafe { core::create_buffer::<_, f32>(context, core::MEM_READ_WRITE, n, None)? };
    let p1: Mem = unsafe { core::create_buffer::<_, f32>(context, core::MEM_READ_WRITE, n, None)? };
    let k1 = core::create_kernel(&p, "partial")?;
    core::set_kernel_arg(&k1, 0, ArgVal::mem(&x1))?;
    core::set_kernel_arg(&k1, 1, ArgVal::mem(&p1))?;
    let fold = core::create_kernel(&p, "fold")?;
    core::set_kernel_arg(&fold, 0, ArgVal::mem(&p1))?;
    core::set_kernel_arg(&fold, 1, ArgVal::mem(&p0))?;
    let mut e1 = Event::null();
    let mut moved = Event::null();
    let mut out = vec![0.0f32; n];
    unsafe {
        core::enqueue_fill_buffer(q0, &p0, 0.0f32, 0, n, None::<Event>, None::<&mut Event>, None)?;
        core::enqueue_kernel(q1, &k1, 1, None, &[n, 1, 1], None, None::<Event>, Some(&mut e1))?;
        core::enqueue_migrate_mem_objects(q0, &[p1.clone()], MemMigrationFlags::empty(), Some(&e1), Some(&mut moved), None)?;
        core::enqueue_kernel(q0, &fold, 1, None, &[n, 1, 1], None, Some(&moved), None::<&mut Event>)?;
        core::enqueue_read_buffer(q0, &p0, true, 0, &mut out, None::<Event>, None::<&mut Event>)?;
    }
    Ok(out)
}
