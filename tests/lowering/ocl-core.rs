// Every modeled ocl-core API, one call per row. Read by `debug ir` only.
extern crate ocl_core as core;

use core::{ArgVal, CommandQueue, Context, DeviceId, Event, Kernel, Mem, MemFlags, MemMigrationFlags};
use std::ffi::CString;

const SRC: &str = "__kernel void k(__global float* a, float s, __local float* t, __global float* b) {}";

fn objects(device: DeviceId, host: &mut Vec<f32>, n: usize) -> core::Result<()> {
    let context = core::create_context(None, &[device], None, None)?;
    let other = core::create_context_from_type(None, core::DEVICE_TYPE_ALL, None, None)?;
    let q0 = core::create_command_queue(&context, &device, None)?;
    let q1 = core::create_command_queue(&context, &device, Some(core::QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE))?;
    let a = unsafe { core::create_buffer::<_, f32>(&context, core::MEM_READ_WRITE, n, None)? };
    let b = unsafe { core::create_buffer(&context, MemFlags::new().read_write().copy_host_ptr(), n, Some(&host))? };
    let half = core::create_sub_buffer::<f32>(&a, MemFlags::new().read_write(), &core::BufferRegion::new(0, n / 2))?;
    let p = core::create_program_with_source(&context, &[CString::new(SRC)?])?;
    let built = core::create_build_program(&context, &[CString::new(SRC)?], None::<&[DeviceId]>, &CString::new("")?)?;
    core::build_program(&p, None::<&[DeviceId]>, &CString::new("")?, None, None)?;
    let k = core::create_kernel(&p, "k")?;
    core::set_kernel_arg(&k, 0, ArgVal::mem(&a))?;
    core::set_kernel_arg(&k, 1, ArgVal::scalar(&2.0f32))?;
    core::set_kernel_arg(&k, 2, ArgVal::local::<f32>(&n))?;
    core::set_kernel_arg(&k, 3, ArgVal::mem_null())?;
    core::set_kernel_arg(&k, 1, ArgVal::vector(&core::Float4::new(1.0, 2.0, 3.0, 4.0)))?;
    core::set_kernel_arg(&k, 1, ArgVal::primitive(&3u32))?;
    core::set_kernel_arg(&k, 3, unsafe { ArgVal::from_raw(8, host.as_ptr() as *const c_void, true) })?;
    let user = core::create_user_event(&context)?;
    core::set_user_event_status(&user, core::CommandExecutionStatus::Complete)?;
    let other_user = Event::user(&context)?;
    let empty = Event::null();
    Ok(())
}

unsafe fn commands(q: &CommandQueue, a: &Mem, b: &Mem, k: &Kernel, host: &mut [f32], waits: &[Event]) -> core::Result<()> {
    let mut w = Event::null();
    core::enqueue_write_buffer(q, a, false, 0, host, None::<Event>, Some(&mut w))?;
    let mut r = Event::null();
    core::enqueue_read_buffer(q, b, true, 0, host, Some(&w), Some(&mut r))?;
    core::enqueue_write_buffer_rect(q, a, true, [0, 0, 0], [0, 0, 0], [4, 4, 1], 0, 0, 0, 0, host, None::<Event>, None::<&mut Event>)?;
    core::enqueue_read_buffer_rect(q, b, false, [0, 0, 0], [0, 0, 0], [4, 4, 1], 0, 0, 0, 0, host, Some(&r), None::<&mut Event>)?;
    let mut f = Event::null();
    core::enqueue_fill_buffer(q, a, 0.0f32, 0, 256, None::<Event>, Some(&mut f), None)?;
    let mut c = Event::null();
    core::enqueue_copy_buffer::<f32, _, _, _>(q, b, a, 0, 0, 256, Some(&[f, r][..]), Some(&mut c))?;
    core::enqueue_copy_buffer_rect::<f32, _, _, _>(q, b, a, [0, 0, 0], [0, 0, 0], [4, 4, 1], 0, 0, 0, 0, Some(&c), None::<&mut Event>)?;
    let mut m = Event::null();
    core::enqueue_migrate_mem_objects(q, std::slice::from_ref(a), MemMigrationFlags::OBJECT_HOST, Some(&waits[..]), Some(&mut m), None)?;
    let mut n = Event::null();
    core::enqueue_kernel(q, k, 1, None, &[256, 1, 1], None, Some(&m), Some(&mut n))?;
    let mut t = Event::null();
    core::enqueue_task(q, k, None::<Event>, Some(&mut t), None)?;
    let mut mk = Event::null();
    core::enqueue_marker_with_wait_list(q, Some(&n), Some(&mut mk), None)?;
    let mut br = Event::null();
    core::enqueue_barrier_with_wait_list(q, None::<Event>, Some(&mut br), None)?;
    let map = core::enqueue_map_buffer::<f32, _, _, _>(q, b, true, core::MAP_READ, 0, 256, None::<Event>, None::<&mut Event>)?;
    core::enqueue_unmap_mem_object(q, b, &map, None::<Event>, None::<&mut Event>)?;
    let for_writing = core::enqueue_map_buffer::<f32, _, _, _>(q, b, false, core::MAP_WRITE, 0, 256, None::<Event>, None::<&mut Event>)?;
    core::flush(q)?;
    core::finish(q)?;
    core::wait_for_event(&t)?;
    core::wait_for_events(2, &[mk, br][..])?;
    core::retain_event(&w)?;
    core::release_event(&w)?;
    Ok(())
}

// The crate's own name, `ocl::core`, and a glob import pick the same rows.
fn spellings(q: &ocl_core::CommandQueue, q2: &ocl::core::CommandQueue) {
    ocl_core::finish(q).unwrap();
    ocl::core::finish(q2).unwrap();
}

mod glob {
    use ocl_core::*;

    fn bare(q: &CommandQueue) {
        finish(q).unwrap();
    }
}

// Not ocl-core's `finish`: another arity.
fn not_ocl_core(q: &CommandQueue, a: &Mem) {
    core::finish(q, a);
}

fn devices(context: &Context, platform: PlatformId) {
    let ids = core::get_device_ids(&platform, Some(core::DEVICE_TYPE_GPU), None)?;
    for &d in ids.iter() {
        let q = core::create_command_queue(context, &d, None)?;
    }
}

fn backwards(queues: &[CommandQueue], k: &Kernel, data: &[f32], buf: &Mem) {
    let damping = 0.5;
    set_kernel_arg(k, 1, ArgVal::scalar(&damping))?;
    for d in (1..queues.len()).rev() {
        finish(&queues[d])?;
    }
    let span = 0..4;
    enqueue_write_buffer(&queues[0], buf, true, 0, &data[span.clone()], None::<Event>, None::<&mut Event>)?;
}

extern "C" fn on_done(_: cl_event, _: i32, _: *mut c_void) {}

fn callbacks(queue: &CommandQueue, buf: &Mem, data: &mut [f32]) -> Result<()> {
    let mut rd = Event::null();
    unsafe {
        enqueue_read_buffer(queue, buf, false, 0, data, None::<Event>, Some(&mut rd))?;
        set_event_callback(&rd, CommandExecutionStatus::Complete, Some(on_done), ptr::null_mut())?;
    }
    Ok(())
}

// `MemMigrationFlags::empty()` is no flag: a move between devices, handed to a helper.
fn prefetch(q: &CommandQueue, mems: &[Mem], flags: MemMigrationFlags) -> Result<()> {
    core::enqueue_migrate_mem_objects(q, mems, flags, None::<Event>, None::<&mut Event>, None)
}

fn to_peer(q: &CommandQueue, a: &Mem) -> Result<()> {
    prefetch(q, &[a.clone()], MemMigrationFlags::empty())
}
