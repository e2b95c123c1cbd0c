//! One `ocl` queue per device in a `Vec`, walked with `enumerate` and `zip`.

use ocl::{Buffer, Context, Device, Event, Kernel, Program, Queue};

const SRC: &str = r#"
__kernel void add_one(__global float* v) { v[get_global_id(0)] += 1.0f; }
"#;

/// Every device adds one to the same buffer, each on its own queue, unordered.
pub fn all_devices_one_buffer(context: &Context, devices: &[Device], n: usize) -> ocl::Result<Vec<f32>> {
    let program = Program::builder().src(SRC).build(context)?;
    let queues: Vec<Queue> = devices.iter().map(|d| Queue::new(context, *d, None)).collect::<ocl::Result<_>>()?;
    let shared = Buffer::<f32>::builder().queue(queues[0].clone()).len(n).fill_val(0.0).build()?;
    for (i, q) in queues.iter().enumerate() {
        let k = Kernel::builder().program(&program).name("add_one").queue(q.clone()).global_work_size(n).arg(&shared).build()?;
        println!("launching on device {i}");
        unsafe { k.enq()? }; //~ CLM003
    }
    let mut out = vec![0.0; n];
    shared.read(&mut out).enq()?; //~ CLM003
    Ok(out)
}

/// OK: each device has its own buffer; results are read back on the same queue.
pub fn per_device_buffers(context: &Context, devices: &[Device], n: usize) -> ocl::Result<Vec<Vec<f32>>> {
    let program = Program::builder().src(SRC).build(context)?;
    let queues: Vec<Queue> = devices.iter().map(|d| Queue::new(context, *d, None)).collect::<ocl::Result<_>>()?;
    let bufs: Vec<Buffer<f32>> = queues.iter().map(|q| Buffer::<f32>::builder().queue(q.clone()).len(n).fill_val(0.0).build()).collect::<ocl::Result<_>>()?;
    let mut outs = Vec::new();
    for (q, b) in queues.iter().zip(&bufs) {
        let k = Kernel::builder().program(&program).name("add_one").queue(q.clone()).global_work_size(n).arg(b).build()?;
        unsafe { k.enq()? };
        let mut out = vec![0.0; n];
        b.read(&mut out).queue(q).enq()?;
        outs.push(out);
    }
    Ok(outs)
}

/// OK: each launch waits for the previous device's launch.
pub fn chained(context: &Context, queues: &[Queue], n: usize) -> ocl::Result<()> {
    let program = Program::builder().src(SRC).build(context)?;
    let shared = Buffer::<f32>::builder().queue(queues[0].clone()).len(n).fill_val(0.0).build()?;
    let mut prev: Option<Event> = None;
    for q in queues {
        let k = Kernel::builder().program(&program).name("add_one").queue(q.clone()).global_work_size(n).arg(&shared).build()?;
        let mut ev = Event::empty();
        unsafe {
            match &prev {
                Some(p) => k.cmd().ewait(p).enew(&mut ev).enq()?,
                None => k.cmd().enew(&mut ev).enq()?,
            }
        }
        prev = Some(ev);
    }
    if let Some(p) = prev {
        p.wait_for()?;
    }
    Ok(())
}
