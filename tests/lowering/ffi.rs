// Every modeled raw FFI (cl-sys, opencl-sys) API. Read by `debug ir` only.
use cl_sys::*;
use std::sync::{Arc, Mutex};

unsafe fn objects(platform_props: *const cl_context_properties, device: cl_device_id, host: &mut Vec<f32>) {
    let mut err = 0;
    let context = clCreateContext(platform_props, 1, &device, None, ptr::null_mut(), &mut err);
    let q0 = clCreateCommandQueue(context, device, 0, &mut err);
    let q1 = clCreateCommandQueueWithProperties(context, device, OUT_OF_ORDER_PROPS.as_ptr(), &mut err);
    let a = clCreateBuffer(context, CL_MEM_READ_WRITE, 256, ptr::null_mut(), &mut err);
    let b = clCreateBuffer(context, CL_MEM_USE_HOST_PTR, 256, host.as_mut_ptr() as *mut c_void, &mut err);
    let half = clCreateSubBuffer(a, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &region as *const cl_buffer_region as *const c_void, &mut err);
    let src = SRC.as_ptr() as *const c_char;
    let p = clCreateProgramWithSource(context, 1, &src, ptr::null(), &mut err);
    let name = CString::new("k").unwrap();
    let k = clCreateKernel(p, name.as_ptr(), &mut err);
    clSetKernelArg(k, 0, mem::size_of::<cl_mem>(), &a as *const cl_mem as *const c_void);
    clSetKernelArg(k, 1, mem::size_of::<cl_mem>(), &host as *const _ as *const c_void);
    let user = clCreateUserEvent(context, &mut err);
    clSetUserEventStatus(user, CL_COMPLETE);
    clReleaseEvent(user);
}

unsafe fn commands(q: cl_command_queue, a: cl_mem, b: cl_mem, k: cl_kernel, host: &mut [f32]) {
    let mut w: cl_event = ptr::null_mut();
    let mut r: cl_event = ptr::null_mut();
    let mut m: cl_event = ptr::null_mut();
    let mut n: cl_event = ptr::null_mut();
    let mut mapped_ev: cl_event = ptr::null_mut();
    let mut err = clEnqueueWriteBuffer(q, a, CL_FALSE, 0, 256, host.as_ptr() as *const c_void, 0, ptr::null(), &mut w);
    err |= clEnqueueReadBuffer(q, b, CL_TRUE, 0, 256, host.as_mut_ptr() as *mut c_void, 1, &w, &mut r);
    err |= clEnqueueFillBuffer(q, a, pattern.as_ptr(), 4, 0, 256, 0, ptr::null(), ptr::null_mut());
    err |= clEnqueueCopyBuffer(q, b, a, 0, 0, 256, 1, &r, ptr::null_mut());
    err |= clEnqueueMigrateMemObjects(q, 2, [a, b].as_ptr(), 0, 0, ptr::null(), &mut m);
    err |= clEnqueueNDRangeKernel(q, k, 1, ptr::null(), gws.as_ptr(), ptr::null(), 1, &m, &mut n);
    err |= clEnqueueTask(q, k, 0, ptr::null(), ptr::null_mut());
    err |= clEnqueueMarkerWithWaitList(q, 1, &n, ptr::null_mut());
    err |= clEnqueueBarrierWithWaitList(q, 0, ptr::null(), ptr::null_mut());
    let mapped = clEnqueueMapBuffer(q, b, CL_TRUE, CL_MAP_READ, 0, 256, 0, ptr::null(), &mut mapped_ev, &mut err);
    err |= clEnqueueUnmapMemObject(q, b, mapped, 1, &mapped_ev, ptr::null_mut());
    let for_writing = clEnqueueMapBuffer(q, b, CL_FALSE, CL_MAP_WRITE_INVALIDATE_REGION, 0, 256, 0, ptr::null(), ptr::null_mut(), &mut err);
    err |= clFlush(q);
    err |= clFinish(q);
    err |= clWaitForEvents(2, [w, r].as_ptr());
    let mut end: cl_ulong = 0;
    let mut status: cl_int = 0;
    err |= clGetEventProfilingInfo(n, CL_PROFILING_COMMAND_END, 8, &mut end as *mut cl_ulong as *mut c_void, ptr::null_mut());
    err |= clGetEventInfo(n, CL_EVENT_COMMAND_EXECUTION_STATUS, 4, &mut status as *mut cl_int as *mut c_void, ptr::null_mut());
    err |= clRetainEvent(n);
    err |= clReleaseEvent(n);
}

#[derive(Clone, Copy)]
struct Handle<T>(T);

impl<T: Copy> Handle<T> {
    fn get(self) -> T {
        self.0
    }
}

unsafe fn wrappers(q: Handle<cl_command_queue>, shared: Arc<Mutex<Vec<Handle<cl_event>>>>) {
    let raw = q.get();
    let log = Arc::clone(&shared);
    let mut ev: cl_event = ptr::null_mut();
    clEnqueueBarrierWithWaitList(raw, 0, ptr::null(), &mut ev);
    log.lock().unwrap().push(Handle(ev));
    let taken = std::mem::take(&mut *shared.lock().unwrap());
    let old = std::mem::replace(&mut ev, ptr::null_mut());
    clReleaseEvent(old);
    drop(taken);
}

// A generic helper that passes `size_of::<T>()` is lowered where it is called, with the
// size of what each call gives it.
fn arg<T>(k: cl_kernel, i: cl_uint, v: &T) {
    unsafe { clSetKernelArg(k, i, std::mem::size_of::<T>(), v as *const T as *const c_void) };
}

fn generic_args(k: cl_kernel, m: cl_mem, dt: f64, n: usize) {
    arg(k, 0, &m);
    arg(k, 1, &dt);
    arg(k, 2, &(n as u32));
}

// `.is_null()` only reads the handle: a test of a member at an index without effects
// assumes that member on each arm; a typed tuple pattern binds each part.
unsafe fn null_tests(q: cl_command_queue, k: cl_kernel, slot: usize) {
    let mut done: [cl_event; 2] = [ptr::null_mut(); 2];
    let gws = [64usize];
    let (nwait, wait): (cl_uint, *const cl_event) = if done[slot].is_null() {
        (0, ptr::null())
    } else {
        (1, &done[slot])
    };
    clEnqueueNDRangeKernel(q, k, 1, ptr::null(), gws.as_ptr(), ptr::null(), nwait, wait, &mut done[slot]);
    if !done[slot].is_null() {
        clReleaseEvent(done[slot]);
    }
}

extern "C" fn on_done(_: cl_event, _: cl_int, _: *mut c_void) {}

unsafe fn callbacks(q: cl_command_queue, m: cl_mem, host: &mut [f32]) {
    let mut rd: cl_event = ptr::null_mut();
    clEnqueueReadBuffer(q, m, CL_FALSE, 0, 64, host.as_mut_ptr().cast(), 0, ptr::null(), &mut rd);
    clSetEventCallback(rd, CL_COMPLETE, Some(on_done), ptr::null_mut());
    clReleaseEvent(rd);
}

// A macro of the file is expanded where it is called; its `return Err(..)` is the `?` of
// that code.
macro_rules! set {
    ($k:expr, $i:expr, $v:expr) => {{
        let status = clSetKernelArg($k, $i, std::mem::size_of_val($v), $v as *const _ as *const c_void);
        if status != CL_SUCCESS {
            return Err(status);
        }
    }};
}

unsafe fn macro_args(k: cl_kernel, buf: cl_mem, host: &Vec<f32>) -> Result<(), cl_int> {
    set!(k, 0, &buf);
    set!(k, 1, host);
    Ok(())
}

// A build and the queries take their handles by value; what a query writes through its
// out-parameters is forgotten.
unsafe fn queried(ctx: cl_context, q: cl_command_queue, m: cl_mem, p: cl_program, dev: cl_device_id, k: cl_kernel, ev: cl_event) {
    let mut devs = [dev];
    clBuildProgram(p, 1, devs.as_mut_ptr(), c"".as_ptr(), None, ptr::null_mut());
    let mut wg: usize = 0;
    clGetKernelWorkGroupInfo(k, dev, CL_KERNEL_WORK_GROUP_SIZE, size_of::<usize>(), &mut wg as *mut usize as *mut c_void, ptr::null_mut());
    let mut status: cl_int = 0;
    clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, size_of::<cl_int>(), &mut status as *mut cl_int as *mut c_void, ptr::null_mut());
    clSetKernelArg(k, 0, size_of::<usize>(), &wg as *const usize as *const c_void);
    let mut n: usize = 0;
    clCompileProgram(p, 1, devs.as_mut_ptr(), c"".as_ptr(), 0, ptr::null(), ptr::null_mut(), None, ptr::null_mut());
    clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_LOG, 0, ptr::null_mut(), &mut n);
    clGetProgramInfo(p, CL_PROGRAM_NUM_DEVICES, 0, ptr::null_mut(), &mut n);
    clGetKernelInfo(k, CL_KERNEL_NUM_ARGS, 0, ptr::null_mut(), &mut n);
    clGetKernelArgInfo(k, 0, CL_KERNEL_ARG_NAME, 0, ptr::null_mut(), &mut n);
    clGetDeviceInfo(dev, CL_DEVICE_NAME, 0, ptr::null_mut(), &mut n);
    clGetMemObjectInfo(m, CL_MEM_SIZE, 0, ptr::null_mut(), &mut n);
    clGetCommandQueueInfo(q, CL_QUEUE_PROPERTIES, 0, ptr::null_mut(), &mut n);
    clGetContextInfo(ctx, CL_CONTEXT_NUM_DEVICES, 0, ptr::null_mut(), &mut n);
}

// A callback that releases the event it is called with takes it over.
extern "C" fn release_when_done(ev: cl_event, _: cl_int, _: *mut c_void) {
    unsafe { clReleaseEvent(ev) };
}

unsafe fn callback_releases(q: cl_command_queue, m: cl_mem, host: &mut [f32]) {
    let mut rd: cl_event = ptr::null_mut();
    clEnqueueReadBuffer(q, m, CL_FALSE, 0, 64, host.as_mut_ptr().cast(), 0, ptr::null(), &mut rd);
    clSetEventCallback(rd, CL_COMPLETE, Some(release_when_done), ptr::null_mut());
}

unsafe fn by_value(k: cl_kernel, tint: &[cl_float; 4]) {
    clSetKernelArg(k, 0, mem::size_of_val(tint), tint.as_ptr() as *const c_void);
    clSetKernelArg(k, 1, 4 * mem::size_of::<cl_float>(), tint.as_ptr() as *const c_void);
}

unsafe fn slot_buffer(ctx: cl_context, bytes: usize) -> cl_mem {
    let mut err = 0;
    clCreateBuffer(ctx, CL_MEM_READ_WRITE, bytes, ptr::null_mut(), &mut err)
}

// A handle from a helper of the file, by its return type, stored into a list of no type.
unsafe fn helper_slots(ctx: cl_context) {
    let mut slots = [ptr::null_mut(); 2];
    for s in 0..2 {
        slots[s] = slot_buffer(ctx, 64);
    }
}

unsafe fn typed_queue_array(context: cl_context, devices: &[cl_device_id]) {
    let mut err: cl_int = 0;
    let mut queues: [cl_command_queue; 2] = [ptr::null_mut(); 2];
    let mut kernels = vec![ptr::null_mut(); 2];
    for d in 0..2 {
        queues[d] = clCreateCommandQueue(context, devices[d], 0, &mut err);
        kernels[d] = clCreateKernel(ptr::null_mut(), c"step".as_ptr(), &mut err);
    }
}

unsafe fn tested_in_if(q: cl_command_queue, k: cl_kernel, n: usize) -> cl_int {
    let mut done: [cl_event; 4] = [ptr::null_mut(); 4];
    let gws = [64usize];
    if clEnqueueNDRangeKernel(q, k, 1, ptr::null(), gws.as_ptr(), ptr::null(), 0, ptr::null(), &mut done[0]) != CL_SUCCESS {
        return -1;
    }
    for ev in &done[..n] {
        clReleaseEvent(*ev);
    }
    0
}

unsafe fn events_through_items(qs: &[cl_command_queue], k: cl_kernel) {
    let mut done: [cl_event; 2] = [ptr::null_mut(); 2];
    let gws = [64usize];
    for (q, e) in qs.iter().zip(done.iter_mut()) {
        clEnqueueNDRangeKernel(*q, k, 1, ptr::null(), gws.as_ptr(), ptr::null(), 0, ptr::null(), e);
    }
}

// A method with a type parameter whose size the call gives: lowered where it is called,
// with `self` the receiver and the argument's size.
struct Arg(cl_kernel);

impl Arg {
    fn set<T: Copy>(&self, index: cl_uint, value: &T) -> cl_int {
        unsafe { clSetKernelArg(self.0, index, size_of::<T>(), value as *const T as *const c_void) }
    }
}

fn generic_method(k: Arg) {
    let wide = 1.0f64;
    k.set(3, &wide);
}

// The C idiom in Rust: each status checked by the program's own helper. Its `?` returns the
// error, where the upload that failed made no event.
fn check(status: cl_int) -> Result<(), cl_int> {
    if status == CL_SUCCESS { Ok(()) } else { Err(status) }
}

fn checked(q: cl_command_queue, b: cl_mem, host: &[f32]) -> Result<(), cl_int> {
    let mut ev: cl_event = ptr::null_mut();
    let err = clEnqueueWriteBuffer(q, b, CL_FALSE, 0, 64, host.as_ptr() as *const c_void, 0, ptr::null(), &mut ev);
    check(err)?;
    check(clWaitForEvents(1, &ev))?;
    clReleaseEvent(ev);
    Ok(())
}
