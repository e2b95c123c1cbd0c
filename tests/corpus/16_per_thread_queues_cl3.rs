//! One host thread per device, each driving its own queue through `cl3` raw handles that
//! are wrapped to cross the thread boundary (raw pointers are not `Send`).

use std::mem;
use std::ptr;
use std::thread;

use cl3::command_queue::{enqueue_nd_range_kernel, enqueue_read_buffer, enqueue_write_buffer, finish};
use cl3::event::release_event;
use cl3::kernel::set_kernel_arg;
use cl3::types::{cl_command_queue, cl_float, cl_kernel, cl_mem, CL_BLOCKING, CL_NON_BLOCKING};

#[derive(Clone, Copy)]
struct Handles {
    queue: cl_command_queue,
    kernel: cl_kernel,
}
unsafe impl Send for Handles {}

#[derive(Clone, Copy)]
struct Mem(cl_mem);
unsafe impl Send for Mem {}

/// Each thread runs the kernel on the shared buffer on its own device; the threads are
/// joined, but joining a thread waits for its enqueues, not for its commands.
///
/// # Safety
/// Valid handles of one context; the kernel accumulates into its argument.
pub unsafe fn per_thread(devs: Vec<Handles>, shared: cl_mem, n: usize) -> Vec<cl_float> {
    let shared = Mem(shared);
    let workers: Vec<_> = devs
        .iter()
        .copied()
        .map(|h| {
            thread::spawn(move || unsafe {
                let s = shared;
                set_kernel_arg(h.kernel, 0, mem::size_of::<cl_mem>(), &s.0 as *const cl_mem as *const _).unwrap();
                let global = [n];
                let ev = enqueue_nd_range_kernel(h.queue, h.kernel, 1, ptr::null(), global.as_ptr(), ptr::null(), 0, ptr::null()).unwrap();
                release_event(ev).unwrap();
            })
        })
        .collect();
    for w in workers {
        w.join().unwrap();
    }
    let mut out = vec![0.0; n];
    let rd = enqueue_read_buffer(devs[0].queue, shared.0, CL_BLOCKING, 0, n * 4, out.as_mut_ptr().cast(), 0, ptr::null()).unwrap(); //~ CLM003
    release_event(rd).unwrap();
    out
}

/// OK: each thread owns its buffer, uploads, runs and reads back on its own queue, and
/// finishes it before returning.
///
/// # Safety
/// Valid handles.
pub unsafe fn per_thread_private(devs: Vec<(Handles, Mem)>, input: Vec<cl_float>) -> Vec<Vec<cl_float>> {
    let handles: Vec<thread::JoinHandle<Vec<cl_float>>> = devs
        .into_iter()
        .map(|(h, m)| {
            let input = input.clone();
            thread::spawn(move || unsafe {
                let n = input.len();
                let mut out = vec![0.0; n];
                let w = enqueue_write_buffer(h.queue, m.0, CL_NON_BLOCKING, 0, n * 4, input.as_ptr().cast(), 0, ptr::null()).unwrap();
                set_kernel_arg(h.kernel, 0, mem::size_of::<cl_mem>(), &m.0 as *const cl_mem as *const _).unwrap();
                let global = [n];
                let k = enqueue_nd_range_kernel(h.queue, h.kernel, 1, ptr::null(), global.as_ptr(), ptr::null(), 0, ptr::null()).unwrap();
                let r = enqueue_read_buffer(h.queue, m.0, CL_BLOCKING, 0, n * 4, out.as_mut_ptr().cast(), 0, ptr::null()).unwrap();
                finish(h.queue).unwrap();
                for e in [w, k, r] {
                    release_event(e).unwrap();
                }
                out
            })
        })
        .collect();
    handles.into_iter().map(|t| t.join().unwrap()).collect()
}
