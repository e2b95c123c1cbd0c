//! A two-stage `ocl` pipeline kept in a struct: a decoder on one queue, a filter on
//! another, a staging buffer between them.

use ocl::{Buffer, Context, Device, Event, Kernel, Program, Queue};

const STAGES: &str = r#"
__kernel void decode(__global const uchar* raw, __global float* px) { size_t i = get_global_id(0); px[i] = raw[i] / 255.0f; }
__kernel void filter(__global float* px) { size_t i = get_global_id(0); px[i] = px[i] * px[i]; }
"#;

pub struct Stages {
    decode_q: Queue,
    filter_q: Queue,
    raw: Buffer<u8>,
    px: Buffer<f32>,
    decode: Kernel,
    filter: Kernel,
}

impl Stages {
    pub fn new(context: &Context, device: Device, n: usize) -> ocl::Result<Stages> {
        let decode_q = Queue::new(context, device, None)?;
        let filter_q = Queue::new(context, device, None)?;
        let program = Program::builder().src(STAGES).devices(device).build(context)?;
        let raw = Buffer::<u8>::builder().queue(decode_q.clone()).len(n).build()?;
        let px = Buffer::<f32>::builder().queue(filter_q.clone()).len(n).build()?;
        let decode = Kernel::builder().program(&program).name("decode").queue(decode_q.clone()).global_work_size(n).arg(&raw).arg(&px).build()?;
        let filter = Kernel::builder().program(&program).name("filter").queue(filter_q.clone()).global_work_size(n).arg(&px).build()?;
        Ok(Stages { decode_q, filter_q, raw, px, decode, filter })
    }

    /// The filter does not wait for the decoder, which writes `px` on the other queue.
    pub fn frame(&self, bytes: &[u8], out: &mut [f32]) -> ocl::Result<()> {
        self.raw.write(bytes).queue(&self.decode_q).enq()?;
        unsafe {
            self.decode.enq()?;
            self.filter.enq()?; //~ CLM003
        }
        self.px.read(out).queue(&self.filter_q).enq()?;
        Ok(())
    }

    /// OK: the filter waits on the decoder's event.
    pub fn frame_ordered(&self, bytes: &[u8], out: &mut [f32]) -> ocl::Result<()> {
        self.raw.write(bytes).queue(&self.decode_q).enq()?;
        let mut decoded = Event::empty();
        unsafe {
            self.decode.cmd().enew(&mut decoded).enq()?;
            self.filter.cmd().ewait(&decoded).enq()?;
        }
        self.px.read(out).queue(&self.filter_q).enq()?;
        Ok(())
    }
}

pub fn run(context: &Context, device: Device, frames: &[Vec<u8>]) -> ocl::Result<Vec<Vec<f32>>> {
    let stages = Stages::new(context, device, 640 * 480)?;
    let mut outs = Vec::new();
    for f in frames {
        let mut out = vec![0.0; f.len()];
        stages.frame_ordered(f, &mut out)?;
        outs.push(out);
    }
    Ok(outs)
}
