// Every modeled opencl3 API, one function per group. Read by `debug ir` only.

fn objects(device: &Device, devices: &[cl_device_id]) {
    let context = Context::from_devices(devices, &[], None, ptr::null_mut())?;
    let single = Context::from_device(device)?;
    let typed = Context::from_device_type(CL_DEVICE_TYPE_GPU)?;
    let q0 = CommandQueue::create_with_properties(&context, devices[0], CL_QUEUE_PROFILING_ENABLE, 0)?;
    let q1 = CommandQueue::create_with_properties(&context, devices[1], CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, 0)?;
    let q2 = CommandQueue::create(&context, devices[0], 0)?;
    let q3 = CommandQueue::create_default_with_properties(&context, 0, 0)?;
    let q4 = CommandQueue::create_default(&context, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE)?;
    for d in 0..2 {
        let props = if d == 0 { CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE } else { 0 };
        let either = CommandQueue::create_with_properties(&context, devices[d], props, 0)?;
        let both = CommandQueue::create_with_properties(&context, devices[d], if d == 0 { CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE } else { CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | CL_QUEUE_PROFILING_ENABLE }, 0)?;
    }
    let mut host: Vec<f32> = vec![0.0; 64];
    let a = Buffer::<f32>::create(&context, CL_MEM_READ_WRITE, 64, ptr::null_mut())?;
    let b = Buffer::<f32>::create(&context, CL_MEM_COPY_HOST_PTR, 64, host.as_mut_ptr() as *mut c_void)?;
    let c = Buffer::<f32>::create_with_properties(&context, ptr::null(), CL_MEM_USE_HOST_PTR, 64, host.as_mut_ptr() as *mut c_void)?;
    let half = a.create_sub_buffer(CL_MEM_READ_WRITE, 32, 32)?;
    let p = Program::create_and_build_from_source(&context, "__kernel void k(__global float* x) { x[0] = 1.0f; }", "")?;
    let p2 = Program::create_and_build_from_sources(&context, &[SRC_A, SRC_B], "")?;
    let p3 = Program::create_from_source(&context, include_str!("missing.cl"))?;
    let p4 = Program::create_from_sources(&context, &[SRC_A])?;
    let k = Kernel::create(&p, "k")?;
    let gate = UserEvent::create(&context)?;
    gate.set_user_event_status(CL_COMPLETE)?;
}

fn commands(q: &CommandQueue, a: &mut Buffer<f32>, b: &Buffer<f32>, k: &Kernel, host: &mut Vec<f32>, ev: &Event) {
    let w = q.enqueue_write_buffer(a, CL_NON_BLOCKING, 0, host, &[])?;
    let r = q.enqueue_read_buffer(b, CL_BLOCKING, 0, host, &[w.get()])?;
    let wr = q.enqueue_write_buffer_rect(a, CL_TRUE, o, o, reg, 0, 0, 0, 0, host.as_mut_ptr() as *mut c_void, &[])?;
    let rr = q.enqueue_read_buffer_rect(b, CL_FALSE, o, o, reg, 0, 0, 0, 0, host.as_mut_ptr() as *mut c_void, &[])?;
    let f = q.enqueue_fill_buffer(a, &[0.0], 0, 256, &[r.get()])?;
    let c = q.enqueue_copy_buffer(b, a, 0, 0, 256, &[])?;
    let cr = q.enqueue_copy_buffer_rect(b, a, o, o, reg, 0, 0, 0, 0, &[])?;
    let m = q.enqueue_migrate_mem_object(1, &a.get(), CL_MIGRATE_MEM_OBJECT_HOST, &[f.get(), c.get()])?;
    let m2 = q.enqueue_migrate_mem_object(2, [a.get(), b.get()].as_ptr(), 0, &[])?;
    let n = q.enqueue_nd_range_kernel(k.get(), 1, ptr::null(), gws.as_ptr(), ptr::null(), &[m.get()])?;
    let t = q.enqueue_task(k.get(), &[])?;
    let mk = q.enqueue_marker_with_wait_list(&[n.get()])?;
    let br = q.enqueue_barrier_with_wait_list(&[])?;
    let mut mapped = ptr::null_mut();
    let mp = q.enqueue_map_buffer(b, CL_BLOCKING, CL_MAP_READ, 0, 256, &mut mapped, &[])?;
    let um = q.enqueue_unmap_mem_object(b.get(), mapped, &[mp.get()])?;
    let mw = q.enqueue_map_buffer(a, CL_NON_BLOCKING, CL_MAP_WRITE, 0, 256, &mut mapped, &[um.get()])?;
    q.flush()?;
    q.finish()?;
    ev.wait()?;
    wait_for_events(&[t.get(), mk.get()])?;
    let owned = Event::new(raw_event);
}

fn kernel_args(q: &CommandQueue, k: &Kernel, a: &Buffer<f32>, host: &[f32], n: u32, ev: &Event) {
    k.set_arg(0, a)?;
    k.set_arg(1, &n)?;
    k.set_arg_local_buffer(2, 1024)?;
    let e = ExecuteKernel::new(k)
        .set_arg(a)
        .set_arg(&host)
        .set_arg_local_buffer(256)
        .set_global_work_size(64)
        .set_global_work_sizes(&[64, 1])
        .set_global_work_offset(0)
        .set_global_work_offsets(&[0, 0])
        .set_local_work_size(8)
        .set_local_work_sizes(&[8, 1])
        .set_wait_event(ev)
        .set_event_wait_list(&[ev.get()])
        .enqueue_nd_range(q)?;
}

fn wait_lists(q0: &CommandQueue, q1: &CommandQueue, a: &Buffer<f32>, host: &mut [f32]) {
    let mut waits: Vec<cl_event> = Vec::new();
    let mut ready = q0.enqueue_marker_with_wait_list(&[])?;
    for i in 0..4 {
        waits.push(ready.get());
        ready = q1.enqueue_read_buffer(a, CL_NON_BLOCKING, 0, host, &waits)?;
        if i == 2 {
            q1.finish()?;
        } else {
            unknown_helper(q0);
        }
    }
}

fn devices(platform: &Platform) {
    let gpus = get_all_devices(CL_DEVICE_TYPE_GPU)?;
    let all = platform.get_devices(CL_DEVICE_TYPE_ALL)?;
    for &d in gpus.iter() {
        let q = CommandQueue::create_with_properties(&context, d, 0, 0)?;
    }
}

// A unit variant of the file's own enum is its position; a `match` arm on one is taken
// only where the value is that variant.
enum Side {
    Left,
    Right,
}

fn pick<'a>(side: Side, left: &'a CommandQueue, right: &'a CommandQueue) -> &'a CommandQueue {
    match side {
        Side::Left => left,
        Side::Right => right,
    }
}

fn sides(left: &CommandQueue, right: &CommandQueue) -> Result<()> {
    pick(Side::Right, left, right).finish()?;
    Ok(())
}

fn alternate(left: &CommandQueue, right: &CommandQueue, frames: usize) -> Result<()> {
    for frame in 0..frames {
        let side = if frame % 2 == 0 { Side::Left } else { Side::Right };
        pick(side, left, right).finish()?;
    }
    Ok(())
}

trait Sweep {
    fn sweep(&mut self) -> Result<()>;
}

struct Lanes {
    queues: Vec<CommandQueue>,
    grids: Vec<Buffer<f32>>,
    pairs: Vec<[Buffer<f32>; 2]>,
    done: Vec<Event>,
}

impl Sweep for Lanes {
    fn sweep(&mut self) -> Result<()> {
        self.done.clear();
        self.grids.swap(0, 1);
        for q in self.queues.iter().take(2) {
            q.finish()?;
        }
        Ok(())
    }
}

fn drive<S: Sweep>(s: &mut S, again: &mut dyn Sweep) -> Result<()> {
    s.sweep()?;
    again.sweep()
}

fn after_first(queues: &[CommandQueue]) -> Result<()> {
    for (i, q) in queues.iter().enumerate().skip(1) {
        q.finish()?;
        queues[i - 1].finish()?;
    }
    Ok(())
}

fn shared(ctx: &Context, ids: &[cl_device_id], finish: bool) -> Result<()> {
    let queues: Vec<Arc<CommandQueue>> = ids
        .iter()
        .map(|id| CommandQueue::create_with_properties(ctx, *id, 0, 0).map(Arc::new))
        .collect::<Result<_>>()?;
    if finish {
        queues[0].finish()?;
    }
    Ok(())
}

extern "C" fn on_done(_: cl_event, _: cl_int, _: *mut c_void) {}

fn callbacks(q: &CommandQueue, b: &Buffer<f32>, host: &mut [f32]) -> Result<()> {
    let rd = unsafe { q.enqueue_read_buffer(b, CL_NON_BLOCKING, 0, host, &[])? };
    rd.set_callback(CL_COMPLETE, on_done, ptr::null_mut())?;
    Ok(())
}

/// A list collected unchanged is the list; a closure mapped over one `Result` runs once.
fn collected(ctx: &Context, p: &Program) -> Result<()> {
    let ids: Vec<cl_device_id> = get_all_devices(CL_DEVICE_TYPE_GPU)?.into_iter().take(2).collect();
    let same: Vec<cl_device_id> = ids.iter().copied().collect();
    let q = unsafe { CommandQueue::create_with_properties(ctx, same[1], 0, 0)? };
    let named = Kernel::create(p, "k").map(|k| ("k", k))?;
    q.finish()?;
    drop(named);
    Ok(())
}

/// `deps.to_vec()` of a slice of raw events is those events.
fn copied_waits(q: &CommandQueue, k: &Kernel, deps: &[cl_event]) -> Result<()> {
    let waits: Vec<cl_event> = deps.to_vec();
    let ev = unsafe { ExecuteKernel::new(k).set_global_work_size(64).set_event_wait_list(&waits).enqueue_nd_range(q)? };
    ev.wait()?;
    Ok(())
}

// The API's booleans are 1 and 0: a helper's test of its `blocking` parameter takes the
// caller's arm.
fn refresh(q: &CommandQueue, w: &mut Buffer<cl_float>, host: &[f32], blocking: cl_bool) -> Result<Option<Event>> {
    let ev = unsafe { q.enqueue_write_buffer(w, blocking, 0, host, &[])? };
    Ok(if blocking == CL_BLOCKING { None } else { Some(ev) })
}

fn refreshed(q: &CommandQueue, w: &mut Buffer<cl_float>, host: &[f32]) -> Result<Option<Event>> {
    refresh(q, w, host, CL_BLOCKING)
}

// A helper returning an iterator over its parameters is walked as that iterator.
fn paired<'a>(qs: &'a [CommandQueue], bufs: &'a [Buffer<cl_float>]) -> impl Iterator<Item = (&'a CommandQueue, &'a Buffer<cl_float>)> + 'a {
    qs.iter().zip(bufs.iter())
}

fn walked(qs: &[CommandQueue], bufs: &[Buffer<cl_float>], host: &mut [f32]) -> Result<()> {
    for (q, b) in paired(qs, bufs) {
        unsafe { q.enqueue_read_buffer(b, CL_BLOCKING, 0, host, &[])? };
    }
    Ok(())
}

fn slots(q: &CommandQueue, b: &Buffer<cl_float>, host: &mut [f32]) -> Result<()> {
    let mut last: [Option<Event>; 2] = [None, None];
    let mut reads = vec![None, None];
    for f in 0..4 {
        if let Some(prev) = last[f % 2].take() {
            prev.wait()?;
        }
        let read = unsafe { q.enqueue_read_buffer(b, CL_NON_BLOCKING, 0, host, &[])? };
        reads[f % 2] = Some(read);
    }
    Ok(())
}

struct Lane {
    queue: CommandQueue,
}

impl Lane {
    fn new(context: &Context) -> Result<Lane> {
        Ok(Lane { queue: CommandQueue::create_default(context, 0)? })
    }

    fn sync(&self) -> Result<()> {
        self.queue.finish()?;
        Ok(())
    }
}

fn listed(context: &Context) -> Result<()> {
    let lanes = vec![Lane::new(context)?, Lane::new(context)?];
    for lane in lanes.iter() {
        lane.sync()?;
    }
    Ok(())
}

// A tuple of host data from a function of the file: each part is host data, cut in pieces.
fn samples(n: usize) -> (Vec<f32>, Vec<f32>) {
    (vec![0.0; n], vec![1.0; n])
}

fn split_tuple(context: &Context) -> Result<()> {
    let (xs, ws) = samples(1024);
    for (x, w) in xs.chunks(512).zip(ws.chunks(512)) {
        let _b = Buffer::<f32>::create(context, CL_MEM_READ_ONLY, x.len() + w.len(), ptr::null_mut())?;
    }
    Ok(())
}

#[derive(Clone, Copy)]
enum Side {
    Left,
    Right,
}

impl Side {
    fn index(self) -> usize {
        match self {
            Side::Left => 0,
            Side::Right => 1,
        }
    }
}

struct Pair {
    queues: Vec<CommandQueue>,
}

impl Pair {
    fn queue(&self, s: Side) -> &CommandQueue {
        &self.queues[s.index()]
    }
}

struct Router {
    pair: Pair,
}

impl Router {
    // A method of an enum's variant, one of a field's struct, and a cast of arithmetic.
    fn route(&self, n: u64) -> Result<()> {
        let q = self.pair.queue(Side::Right);
        let slot = (n % 2) as usize;
        let side = Side::Left.index();
        q.finish()?;
        Ok(())
    }
}

// A new buffer in either arm of a match is one new buffer; `None` binds nothing.
fn made_either_way(context: &Context, init: Option<&[cl_float]>, n: usize) -> Result<Buffer<cl_float>> {
    let buf = match init {
        Some(h) => unsafe { Buffer::create(context, CL_MEM_COPY_HOST_PTR, h.len(), h.as_ptr() as *mut c_void)? },
        None => unsafe { Buffer::create(context, CL_MEM_READ_WRITE, n, ptr::null_mut())? },
    };
    Ok(buf)
}

// A barrier handed by reference is one the caller's threads meet at.
fn meet(q: &CommandQueue, ready: &std::sync::Barrier) -> Result<()> {
    q.finish()?;
    ready.wait();
    Ok(())
}

// A method handed to an iterator adapter by its path: called on each member.
struct Lane {
    queue: CommandQueue,
}

impl Lane {
    fn drain(&self) -> Result<()> {
        self.queue.finish()
    }
}

fn drain_all(lanes: &[Lane]) -> Result<()> {
    lanes.iter().map(Lane::drain).collect::<Result<Vec<()>>>()?;
    Ok(())
}

pub fn shared_setup(context: &Context) -> CommandQueue {
    CommandQueue::create_default(context, 0).unwrap()
}

// A launch from a global work offset that is not zero: its work-items from there.
fn band_from(q: &CommandQueue, k: &Kernel, v: &Buffer<cl_float>, row0: usize) -> Result<Event> {
    unsafe { ExecuteKernel::new(k).set_arg(v).set_global_work_offset(row0).set_global_work_size(64).enqueue_nd_range(q) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn through_the_parent_helper() {
        let context: Context = unimplemented!();
        let q = shared_setup(&context);
        q.finish().unwrap();
    }
}

// `(0..n).filter(|&d| d != root)`: the walk of the range, each pass first skipping the
// items the closure rejects.
fn others(queues: &[CommandQueue], b: &Buffer<f32>, root: usize) {
    for d in (0..queues.len()).filter(|&d| d != root) {
        queues[d].enqueue_migrate_mem_object(1, &b.get(), 0, &[])?;
    }
}
