// Every modeled ocl API. Read by `debug ir` only.
use ocl::builders::{BufferBuilder, KernelBuilder, ProQueBuilder, ProgramBuilder};
use ocl::{Buffer, Event, EventList, Kernel, ProQue, Program, Queue};

fn objects(context: &Context, device: Device, data: &[f32]) {
    let q = Queue::new(context, device, None)?;
    let program = Program::builder().src(SRC).devices(device).cmplr_opt("-O2").cmplr_def("N", 4).bo(opt).build(context)?;
    let buffer = Buffer::<f32>::builder()
        .queue(q.clone())
        .flags(flags::MEM_READ_WRITE)
        .len(64)
        .dims(64)
        .copy_host_slice(data)
        .build()?;
    let mut filled = Event::empty();
    let zeros = Buffer::<f32>::builder().queue(q.clone()).len(64).fill_val(0.0).fill_event(&mut filled).build()?;
    let mut kernel = Kernel::builder()
        .program(&program)
        .name("k")
        .queue(q.clone())
        .global_work_size(64)
        .local_work_size(8)
        .global_work_offset(0)
        .arg(&buffer)
        .arg_buf(&zeros)
        .arg_img(&image)
        .arg_scl(1.0f32)
        .arg_vec(v)
        .arg_loc::<f32>(16)
        .arg_local::<f32>(16)
        .arg_smp(&sampler)
        .arg_sampler(&sampler)
        .arg_named("n", 4u32)
        .arg_buf_named("b", Some(&buffer))
        .arg_img_named("i", None::<&Image<f32>>)
        .arg_scl_named("s", 1.0f32)
        .arg_vec_named("v", v)
        .arg_smp_named("m", None)
        .arg_sampler_named("x", None)
        .build()?;
    kernel.set_arg("n", 8u32)?;
    let by_new = KernelBuilder::new().program(&program).name("k").queue(q.clone()).arg(&buffer).build()?;
    by_new.cmd().enq()?;
    let made = BufferBuilder::<f32>::new().queue(q.clone()).len(64).copy_host_slice(data).build()?;
    let built = ProgramBuilder::new().src(SRC).devices(device).build(context)?;
    let pq = ProQueBuilder::new().src(SRC).dims(64).build()?;
    kernel.set_default_queue(q.clone());
    let pro_que = ProQue::builder().platform(platform).device(device).context(context.clone()).queue_properties(props).src(SRC).dims(64).build()?;
    let pq_queue = pro_que.queue();
    let pq_buffer = pro_que.create_buffer::<f32>()?;
    let bb = pro_que.buffer_builder::<f32>().len(64).build()?;
    let pk = pro_que.kernel_builder("k").arg(&pq_buffer).build()?;
    let gate = Event::user(context)?;
    gate.set_complete()?;
}

fn commands(q: &Queue, other: &Queue, buffer: &Buffer<f32>, dst: &Buffer<f32>, kernel: &Kernel, data: &mut Vec<f32>) {
    let mut ev = Event::empty();
    let mut list = EventList::new();
    buffer.write(&data[..]).queue(q).enew(&mut ev).enq()?;
    buffer.read(data).queue(other).ewait(&ev).enq()?;
    unsafe { buffer.cmd().write(&data[..]).block(false).enew(&mut list).enq()? };
    buffer.cmd().fill(0.0, None).queue(q).enq()?;
    buffer.cmd().copy(dst, None, None).offset(0).src_offset(0).dst_offset(0).enq()?;
    unsafe { kernel.cmd().queue(q).gws(64).lws(8).gwo(0).ewait(&list).enq()? };
    unsafe { kernel.enq()? };
    let read_map = unsafe { buffer.map().queue(other).read().enq()? };
    let write_map = unsafe { buffer.map().write().enq_async()? };
    let overwrite = unsafe { buffer.map().write_invalidate().queue(q).enq()? };
    overwrite.unmap().queue(q).ewait(&ev).enew(&mut ev).enq()?;
    let future_read = buffer.read(data).queue(other).enq_async()?;
    buffer.read(&mut data[8..16]).offset(8).queue(q).enq()?;
    let version = q.device_version();
    ev.wait_for()?;
    list.wait_for()?;
    q.finish()?;
}

fn devices(context: &Context, platform: Platform) {
    let gpus = Device::list(platform, Some(DeviceType::GPU))?;
    let all = Device::list_all(platform)?;
    for &d in gpus.iter() {
        let q = Queue::new(context, d, None)?;
    }
}

#[derive(Default)]
struct LaneBuilder {
    len: usize,
    data: Vec<f32>,
}

struct Lane {
    queue: Queue,
    buf: Buffer<f32>,
}

impl LaneBuilder {
    fn new(len: usize) -> Self {
        LaneBuilder { len, ..Self::default() }
    }

    fn data(mut self, d: &[f32]) -> Self {
        self.data = d.to_vec();
        self
    }

    fn build(self, queue: Queue) -> Result<Lane> {
        let buf = Buffer::<f32>::builder().queue(queue.clone()).len(self.len).copy_host_slice(&self.data).build()?;
        Ok(Lane { queue, buf })
    }
}

impl Lane {
    fn flush(&self) -> Result<()> {
        self.queue.finish()
    }
}

fn lanes(queue: Queue, d: &[f32]) -> Result<()> {
    let lane = LaneBuilder::new(64).data(d).build(queue)?;
    lane.flush()
}

extern "C" fn on_done(_: cl_event, _: i32, _: *mut c_void) {}

fn callbacks(buffer: &Buffer<f32>, host: &mut Vec<f32>) -> Result<()> {
    let mut rd = Event::empty();
    unsafe {
        buffer.read(host).block(false).enew(&mut rd).enq()?;
        rd.set_callback(on_done, ptr::null_mut())?;
    }
    Ok(())
}

fn make_signal(n: usize) -> Vec<f32> {
    vec![0.0; n]
}

// A local made by a function of the file that returns host data is host data, walked in
// pieces by `chunks`.
fn pieces(buffer: &Buffer<f32>) -> Result<()> {
    let signal = make_signal(1024);
    for chunk in signal.chunks(256) {
        buffer.write(chunk).enq()?;
    }
    Ok(())
}

// A message received from another thread over a channel.
fn received(buffer: &Buffer<f32>, rx: &std::sync::mpsc::Receiver<Vec<f32>>) -> Result<()> {
    let rows = rx.recv().expect("worker gone");
    buffer.write(&rows).enq()?;
    Ok(())
}

struct Tile {
    width: usize,
}

fn strided(kernel: &Kernel, tiles: &[Tile], first: usize, stride: usize) -> ocl::Result<()> {
    for t in tiles.iter().skip(first).step_by(stride) {
        kernel.set_arg(0, &t.width)?;
    }
    Ok(())
}

struct Dealer {
    queues: Vec<Queue>,
    next: usize,
}

impl Dealer {
    // Arithmetic on a field: the next member in turn.
    fn deal(&mut self) -> usize {
        let i = self.next;
        self.next = (self.next + 1) % self.queues.len();
        i
    }
}

fn pairs_of_neighbours(queues: &[Queue]) {
    let n = queues.len();
    for d in 0..n.saturating_sub(1) {
        queues[d + 1].finish().unwrap();
    }
}

// A slice of `ProQue`s is a list of them, not host data.
fn lanes_of(lanes: &[ProQue]) -> ocl::Result<()> {
    lanes[0].queue().finish()
}

// A constant array is one piece of host memory, whichever function names it.
const WEIGHTS: [f32; 4] = [0.1, 0.2, 0.3, 0.4];

fn upload_weights(queue: &Queue, weights: &Buffer<f32>) -> ocl::Result<()> {
    weights.write(&WEIGHTS[..]).queue(queue).enq()
}

// A kernel taken out of a map by a literal key (`get_mut("render")`): that member.
fn map_member(kernels: &mut std::collections::HashMap<&'static str, Kernel>) -> ocl::Result<()> {
    let k = kernels.get_mut("render").unwrap();
    k.set_arg("time", 0.5f32)
}

// A launch from a global work offset that is not zero: its work-items from there.
fn band_from(kernel: &Kernel, q: &Queue, row0: usize) -> ocl::Result<()> {
    unsafe { kernel.cmd().queue(q).global_work_offset(row0).global_work_size(64).enq() }
}
