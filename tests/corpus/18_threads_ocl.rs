//! The shape of `ocl`'s own `examples/threads.rs`: each spawned thread builds a buffer and
//! a `+=` kernel, and launches it on three queues of one device.

use std::thread::{self, JoinHandle};

use ocl::{Buffer, Context, Device, EventList, Kernel, Platform, Program, Queue};

static SRC: &str = r#"
    __kernel void add(__global float* buffer, float addend) {
        buffer[get_global_id(0)] += addend;
    }
"#;

pub fn threads() -> ocl::Result<()> {
    let work_size = 1 << 10;
    let platform = Platform::default();
    let device = Device::first(platform)?;
    let context = Context::builder().platform(platform).devices(device).build()?;
    let program = Program::builder().src(SRC).devices(device).build(&context)?;
    let queueball = vec![
        Queue::new(&context, device, None)?,
        Queue::new(&context, device, None)?,
        Queue::new(&context, device, None)?,
    ];
    let mut threads: Vec<JoinHandle<ocl::Result<f32>>> = Vec::new();
    for i in 0..5 {
        let program_th = program.clone();
        let queueball_th = queueball.clone();
        let th = thread::Builder::new()
            .name(format!("worker-{i}"))
            .spawn(move || {
                let buffer = Buffer::<f32>::builder().queue(queueball_th[0].clone()).len(work_size).build()?;
                let mut vec = vec![0.0f32; buffer.len()];
                let mut kernel = Kernel::builder()
                    .program(&program_th)
                    .name("add")
                    .queue(queueball_th[0].clone())
                    .global_work_size(work_size)
                    .arg(&buffer)
                    .arg(1000.0f32)
                    .build()?;
                let mut event_list = EventList::new();
                unsafe {
                    kernel.cmd().enew(&mut event_list).enq()?;
                    kernel.set_default_queue(queueball_th[1].clone()).enq()?; //~ CLM003
                    kernel.cmd().queue(&queueball_th[2]).enq()?; //~ CLM003 CLM003
                }
                event_list.wait_for()?;
                buffer.read(&mut vec).queue(&queueball_th[0]).enq()?; //~ CLM003 CLM003
                Ok(vec[work_size / 2])
            })
            .expect("spawn");
        threads.push(th);
    }
    for th in threads {
        println!("{:?}", th.join().expect("join")?);
    }
    Ok(())
}

/// OK: the same three launches, each waiting on the one before it.
pub fn threads_chained(context: &Context, device: Device) -> ocl::Result<Vec<f32>> {
    let program = Program::builder().src(SRC).devices(device).build(context)?;
    let qs: Vec<Queue> = (0..3).map(|_| Queue::new(context, device, None)).collect::<ocl::Result<_>>()?;
    let handle = thread::spawn(move || -> ocl::Result<Vec<f32>> {
        let buffer = Buffer::<f32>::builder().queue(qs[0].clone()).len(1024).build()?;
        let kernel = Kernel::builder().program(&program).name("add").queue(qs[0].clone()).global_work_size(1024).arg(&buffer).arg(1.0f32).build()?;
        let mut e0 = ocl::Event::empty();
        let mut e1 = ocl::Event::empty();
        let mut e2 = ocl::Event::empty();
        unsafe {
            kernel.cmd().queue(&qs[0]).enew(&mut e0).enq()?;
            kernel.cmd().queue(&qs[1]).ewait(&e0).enew(&mut e1).enq()?;
            kernel.cmd().queue(&qs[2]).ewait(&e1).enew(&mut e2).enq()?;
        }
        let mut vec = vec![0.0f32; 1024];
        buffer.read(&mut vec).queue(&qs[2]).ewait(&e2).enq()?;
        Ok(vec)
    });
    handle.join().expect("join")
}
