// Every modeled cl3 API. Read by `debug ir` only.
use cl3::command_queue::*;
use cl3::context::{create_context, create_context_from_type, get_context_info};
use cl3::device::{get_device_ids, get_device_info};
use cl3::event::{
    create_user_event, get_event_info, get_event_profiling_info, release_event, retain_event, set_event_callback, set_user_event_status, wait_for_events,
};
use cl3::kernel::{create_kernel, get_kernel_arg_info, get_kernel_info, get_kernel_work_group_info, set_kernel_arg};
use cl3::memory::{create_buffer, get_mem_object_info};
use cl3::memory::create_sub_buffer;
use cl3::program::{build_program, compile_program, create_program_with_source, get_program_build_info, get_program_info};

unsafe fn objects(context: cl_context, device: cl_device_id, host: &mut Vec<f32>) {
    let q0 = create_command_queue(context, device, 0)?;
    let q1 = create_command_queue_with_properties(context, device, props_with_out_of_order.as_ptr())?;
    let a = create_buffer(context, CL_MEM_READ_WRITE, 256, ptr::null_mut())?;
    let b = create_buffer(context, CL_MEM_COPY_HOST_PTR, 256, host.as_mut_ptr().cast())?;
    let half = create_sub_buffer(a, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &region as *const cl_buffer_region as *const c_void)?;
    let p = create_program_with_source(context, &[SRC])?;
    let k = create_kernel(p, c"k")?;
    set_kernel_arg(k, 0, mem::size_of::<cl_mem>(), &a as *const cl_mem as *const c_void)?;
    set_kernel_arg(k, 1, mem::size_of::<cl_mem>(), host.as_ptr() as *const c_void)?;
    let user = create_user_event(context)?;
    set_user_event_status(user, CL_COMPLETE)?;
    release_event(user)?;
}

unsafe fn commands(q: cl_command_queue, a: cl_mem, b: cl_mem, k: cl_kernel, host: &mut [f32], waits: &[cl_event]) {
    let w = enqueue_write_buffer(q, a, CL_NON_BLOCKING, 0, 256, host.as_ptr().cast(), 0, ptr::null())?;
    let r = enqueue_read_buffer(q, b, CL_BLOCKING, 0, 256, host.as_mut_ptr().cast(), 1, &w)?;
    let f = enqueue_fill_buffer(q, a, pattern.as_ptr(), 4, 0, 256, 0, ptr::null())?;
    let c = enqueue_copy_buffer(q, b, a, 0, 0, 256, 2, [f, r].as_ptr())?;
    let m = enqueue_migrate_mem_object(q, 1, &a, CL_MIGRATE_MEM_OBJECT_HOST, waits.len() as cl_uint, waits.as_ptr())?;
    let n = enqueue_nd_range_kernel(q, k, 1, ptr::null(), gws.as_ptr(), ptr::null(), 1, &m)?;
    let t = enqueue_task(q, k, 0, ptr::null())?;
    let mk = enqueue_marker_with_wait_list(q, 1, &n)?;
    let br = enqueue_barrier_with_wait_list(q, 0, ptr::null())?;
    let mut mapped: cl_mem = ptr::null_mut();
    let mp = enqueue_map_buffer(q, a, CL_BLOCKING, CL_MAP_WRITE, 0, 256, &mut mapped, 1, &br)?;
    let um = enqueue_unmap_mem_object(q, a, mapped as *mut c_void, 0, ptr::null())?;
    let rr = enqueue_read_buffer_rect(q, b, CL_BLOCKING, o.as_ptr(), o.as_ptr(), rg.as_ptr(), 0, 0, 0, 0, host.as_mut_ptr().cast(), 1, &um)?;
    let wr = enqueue_write_buffer_rect(q, a, CL_NON_BLOCKING, o.as_ptr(), o.as_ptr(), rg.as_ptr(), 0, 0, 0, 0, host.as_ptr().cast(), 0, ptr::null())?;
    let cr = enqueue_copy_buffer_rect(q, a, b, o.as_ptr(), o.as_ptr(), rg.as_ptr(), 0, 0, 0, 0, 1, &wr)?;
    let _status = get_event_info(mp, CL_EVENT_COMMAND_EXECUTION_STATUS)?;
    let _end = get_event_profiling_info(rr, CL_PROFILING_COMMAND_END)?;
    release_event(mp)?;
    release_event(rr)?;
    release_event(cr)?;
    flush(q)?;
    finish(q)?;
    wait_for_events(&[t, mk])?;
    retain_event(br)?;
    release_event(w)?;
    // Empty event slots, as many as there are events given.
    let slots: Vec<cl_event> = vec![ptr::null_mut(); waits.len()];
}

unsafe fn devices(context: cl_context, platform: cl_platform_id) {
    let ids = get_device_ids(platform, CL_DEVICE_TYPE_GPU)?;
    for &d in ids.iter() {
        let q = create_command_queue(context, d, 0)?;
    }
}

// A program and a kernel made from what a helper's parameters hold: their caller's strings.
fn build(context: cl_context, src: &str) -> cl_program {
    create_program_with_source(context, &[src]).unwrap()
}

fn kernel(program: cl_program, name: &str) -> cl_kernel {
    let cname = CString::new(name).unwrap();
    create_kernel(program, &cname).unwrap()
}

const STAGES: &str = "__kernel void scale(__global float* x) {} __kernel void shift(__global float* x) {}";

// A list of boxed closures walked in order: each member's body where the walk calls it.
unsafe fn stages(context: cl_context, q: cl_command_queue, x: cl_mem) {
    let p = build(context, STAGES);
    let (scale, shift) = (kernel(p, "scale"), kernel(p, "shift"));
    let steps: Vec<Box<dyn Fn() -> cl_event>> = vec![
        Box::new(move || enqueue_nd_range_kernel(q, scale, 1, ptr::null(), [64].as_ptr(), ptr::null(), 0, ptr::null()).unwrap()),
        Box::new(move || enqueue_nd_range_kernel(q, shift, 1, ptr::null(), [64].as_ptr(), ptr::null(), 0, ptr::null()).unwrap()),
    ];
    for step in &steps {
        release_event(step()).unwrap();
    }
    set_kernel_arg(scale, 0, 8, &x as *const cl_mem as *const c_void).unwrap();
}

extern "C" fn on_done(_: cl_event, _: cl_int, _: *mut c_void) {}

unsafe fn callbacks(q: cl_command_queue, m: cl_mem, host: &mut [f32]) {
    let rd = enqueue_read_buffer(q, m, CL_NON_BLOCKING, 0, 64, host.as_mut_ptr().cast(), 0, ptr::null()).unwrap();
    set_event_callback(rd, CL_COMPLETE, on_done, ptr::null_mut()).unwrap();
    release_event(rd).unwrap();
}

/// `&raw const` arguments, a wait list given as a slice, an event chained through
/// `Option::replace`, a `vec!` of one event as a wait list, `ok_or`.
unsafe fn raw_chain(queue: cl_command_queue, kernel: cl_kernel, buf: cl_mem, wait: &[cl_event], first: cl_event) -> Result<cl_event, cl_int> {
    let global = [64usize];
    set_kernel_arg(kernel, 0, size_of::<cl_mem>(), (&raw const buf).cast::<c_void>())?;
    let mut last: Option<cl_event> = None;
    let mut own = vec![first];
    let ev = enqueue_nd_range_kernel(queue, kernel, 1, ptr::null(), global.as_ptr(), ptr::null(), wait.len() as cl_uint, wait.as_ptr())?;
    let again = enqueue_nd_range_kernel(queue, kernel, 1, ptr::null(), global.as_ptr(), ptr::null(), own.len() as cl_uint, own.as_ptr())?;
    own.clear();
    last.replace(ev);
    if let Some(old) = last.replace(again) {
        release_event(old)?;
    }
    last.ok_or(-1)
}

/// A build and the queries take their handles by value: the program and the kernel stay
/// known; a context is made.
unsafe fn built(devices: &[cl_device_id], queue: cl_command_queue, buf: cl_mem) -> Result<(), cl_int> {
    let pair = [devices[0], devices[1]];
    let ctx = create_context(&pair, ptr::null(), None, ptr::null_mut())?;
    let p = create_program_with_source(ctx, &[SRC])?;
    build_program(p, &pair, c"", None, ptr::null_mut())?;
    let log = get_program_build_info(p, pair[0], CL_PROGRAM_BUILD_LOG)?;
    let k = create_kernel(p, c"k")?;
    let wg = get_kernel_work_group_info(k, pair[0], CL_KERNEL_WORK_GROUP_SIZE)?;
    let name = get_device_info(pair[1], CL_DEVICE_NAME)?;
    let props = get_command_queue_info(queue, CL_QUEUE_PROPERTIES)?;
    compile_program(p, &pair, c"", &[], &[], None, ptr::null_mut())?;
    let binaries = get_program_info(p, CL_PROGRAM_BINARIES)?;
    let args = get_kernel_info(k, CL_KERNEL_NUM_ARGS)?;
    let access = get_kernel_arg_info(k, 0, CL_KERNEL_ARG_ACCESS_QUALIFIER)?;
    let other = create_context_from_type(CL_DEVICE_TYPE_GPU, ptr::null(), None, ptr::null_mut())?;
    let count = get_context_info(other, CL_CONTEXT_NUM_DEVICES)?;
    let size = get_mem_object_info(buf, CL_MEM_SIZE)?;
    Ok(())
}

// A callback that releases the event it is called with takes it over.
extern "C" fn release_when_done(ev: cl_event, _: cl_int, _: *mut c_void) {
    unsafe { release_event(ev).ok() };
}

unsafe fn callback_releases(q: cl_command_queue, m: cl_mem, host: &mut [f32]) {
    let rd = enqueue_read_buffer(q, m, CL_NON_BLOCKING, 0, 64, host.as_mut_ptr().cast(), 0, ptr::null()).unwrap();
    set_event_callback(rd, CL_COMPLETE, release_when_done, ptr::null_mut()).unwrap();
}

fn drained(events: &mut Vec<cl_event>) -> Result<(), cl_int> {
    for ev in events.drain(..) {
        unsafe { release_event(ev)? };
    }
    Ok(())
}

fn empty_slots(q: cl_command_queue) -> Result<(), cl_int> {
    let mut slots: Vec<Option<cl_event>> = vec![None; 4];
    slots[1] = Some(unsafe { enqueue_marker_with_wait_list(q, 0, ptr::null())? });
    Ok(())
}

// A launch from a global work offset: the rows of one band.
fn band_launch(q: cl_command_queue, k: cl_kernel, row0: usize) -> Result<cl_event, cl_int> {
    let offset = [0usize, row0];
    let global = [64usize, 64];
    unsafe { enqueue_nd_range_kernel(q, k, 2, offset.as_ptr(), global.as_ptr(), ptr::null(), 0, ptr::null()) }
}

// Events a block ends with as a tuple, bound by a tuple pattern: each its own.
fn tuple_from_block(q: cl_command_queue, k: cl_kernel) -> Result<(), cl_int> {
    let (a, b): (cl_event, cl_event) = unsafe {
        let a = enqueue_task(q, k, 0, ptr::null())?;
        let b = enqueue_task(q, k, 0, ptr::null())?;
        (a, b)
    };
    wait_for_events(&[a, b])
}

// A 2-D array of handle slots, filled by index and by a nested mutable walk: each member.
unsafe fn blocks(context: cl_context) {
    let mut by_index: [[cl_mem; 2]; 2] = [[ptr::null_mut(); 2]; 2];
    for s in 0..2 {
        for t in 0..2 {
            by_index[s][t] = create_buffer(context, CL_MEM_READ_WRITE, 256, ptr::null_mut())?;
        }
    }
    let mut walked: [[cl_mem; 2]; 2] = [[ptr::null_mut(); 2]; 2];
    for row in walked.iter_mut() {
        for b in row.iter_mut() {
            *b = create_buffer(context, CL_MEM_READ_WRITE, 256, ptr::null_mut())?;
        }
    }
}
