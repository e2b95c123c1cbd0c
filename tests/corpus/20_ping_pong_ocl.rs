//! Game of Life with two grids swapped every generation, the generations alternating
//! between two devices' queues (`ocl`).

use ocl::{Buffer, Context, Event, EventList, Kernel, Program, Queue};

const LIFE: &str = r#"
__kernel void life(__global const uchar* cur, __global uchar* next, int w, int h) {
    int x = get_global_id(0), y = get_global_id(1);
    int n = 0;
    for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx)
            if (dx || dy) n += cur[((y + dy + h) % h) * w + (x + dx + w) % w];
    uchar c = cur[y * w + x];
    next[y * w + x] = (n == 3 || (n == 2 && c)) ? 1 : 0;
}
"#;

/// Generation `g` runs on `queues[g % 2]` and does not wait for generation `g - 1`, which
/// wrote its input on the other queue.
pub fn run(context: &Context, queues: [Queue; 2], seed: &[u8], w: usize, h: usize, gens: usize) -> ocl::Result<Vec<u8>> {
    let program = Program::builder().src(LIFE).build(context)?;
    let a = Buffer::<u8>::builder().queue(queues[0].clone()).len(w * h).copy_host_slice(seed).build()?;
    let b = Buffer::<u8>::builder().queue(queues[0].clone()).len(w * h).build()?;
    let even = Kernel::builder().program(&program).name("life").queue(queues[0].clone()).global_work_size([w, h]).arg(&a).arg(&b).arg(w as i32).arg(h as i32).build()?;
    let odd = Kernel::builder().program(&program).name("life").queue(queues[1].clone()).global_work_size([w, h]).arg(&b).arg(&a).arg(w as i32).arg(h as i32).build()?;
    for _ in 0..gens / 2 {
        unsafe {
            even.enq()?; //~ CLM003
            odd.enq()?; //~ CLM003
        }
    }
    let mut out = vec![0u8; w * h];
    a.read(&mut out).queue(&queues[1]).enq()?;
    Ok(out)
}

/// OK: each generation waits on the previous one's event.
pub fn run_chained(context: &Context, queues: [Queue; 2], seed: &[u8], w: usize, h: usize, gens: usize) -> ocl::Result<Vec<u8>> {
    let program = Program::builder().src(LIFE).build(context)?;
    let a = Buffer::<u8>::builder().queue(queues[0].clone()).len(w * h).copy_host_slice(seed).build()?;
    let b = Buffer::<u8>::builder().queue(queues[0].clone()).len(w * h).build()?;
    let even = Kernel::builder().program(&program).name("life").queue(queues[0].clone()).global_work_size([w, h]).arg(&a).arg(&b).arg(w as i32).arg(h as i32).build()?;
    let odd = Kernel::builder().program(&program).name("life").queue(queues[1].clone()).global_work_size([w, h]).arg(&b).arg(&a).arg(w as i32).arg(h as i32).build()?;
    let mut last = EventList::new();
    for _ in 0..gens / 2 {
        let mut e = Event::empty();
        let mut o = Event::empty();
        unsafe {
            even.cmd().ewait(&last).enew(&mut e).enq()?;
            odd.cmd().ewait(&e).enew(&mut o).enq()?;
        }
        last.clear()?;
        last.push(o);
    }
    let mut out = vec![0u8; w * h];
    a.read(&mut out).queue(&queues[1]).enq()?;
    Ok(out)
}
