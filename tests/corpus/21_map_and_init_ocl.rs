//! `ocl` buffers initialised from host slices, read back through mappings.

use ocl::{Buffer, Context, Event, Kernel, Program, Queue};

const SRC: &str = r#"
__kernel void relu(__global float* x) { size_t i = get_global_id(0); x[i] = fmax(x[i], 0.0f); }
"#;

/// The buffer is built from `init`, and the same slice is written again on the second
/// device's queue.
pub fn init_twice(context: &Context, q0: &Queue, q1: &Queue, init: &[f32]) -> ocl::Result<Buffer<f32>> {
    let buf = Buffer::<f32>::builder().queue(q0.clone()).len(init.len()).copy_host_slice(init).build()?;
    buf.write(init).queue(q1).enq()?; //~ CLM004
    Ok(buf)
}

/// The map on `q1` does not wait for the kernel on `q0`.
pub fn map_before_kernel_done(context: &Context, q0: &Queue, q1: &Queue, init: &[f32]) -> ocl::Result<f32> {
    let program = Program::builder().src(SRC).build(context)?;
    let buf = Buffer::<f32>::builder().queue(q0.clone()).len(init.len()).copy_host_slice(init).build()?;
    let relu = Kernel::builder().program(&program).name("relu").queue(q0.clone()).global_work_size(init.len()).arg(&buf).build()?;
    unsafe {
        relu.enq()?;
        let mapped = buf.map().queue(q1).read().enq()?; //~ CLM003
        Ok(mapped.iter().sum())
    }
}

/// OK: the map waits on the kernel's event.
pub fn map_after_kernel(context: &Context, q0: &Queue, q1: &Queue, init: &[f32]) -> ocl::Result<f32> {
    let program = Program::builder().src(SRC).build(context)?;
    let buf = Buffer::<f32>::builder().queue(q0.clone()).len(init.len()).copy_host_slice(init).build()?;
    let relu = Kernel::builder().program(&program).name("relu").queue(q0.clone()).global_work_size(init.len()).arg(&buf).build()?;
    let mut done = Event::empty();
    unsafe {
        relu.cmd().enew(&mut done).enq()?;
        let mapped = buf.map().queue(q1).ewait(&done).read().enq()?;
        Ok(mapped.iter().sum())
    }
}

/// OK: a fill, then a write of host data: two different initialisations, one queue.
pub fn clear_then_write(q0: &Queue, init: &[f32]) -> ocl::Result<Buffer<f32>> {
    let buf = Buffer::<f32>::builder().queue(q0.clone()).len(init.len()).fill_val(0.0).build()?;
    buf.write(init).enq()?;
    Ok(buf)
}

/// A future-based map (`enq_async`) on the second queue while the kernel on the first may
/// still be writing.
pub fn map_async(context: &Context, q0: &Queue, q1: &Queue, init: &[f32]) -> ocl::Result<f32> {
    let program = Program::builder().src(SRC).build(context)?;
    let buf = Buffer::<f32>::builder().queue(q0.clone()).len(init.len()).copy_host_slice(init).build()?;
    let relu = Kernel::builder().program(&program).name("relu").queue(q0.clone()).global_work_size(init.len()).arg(&buf).build()?;
    unsafe { relu.enq()? };
    let future = buf.map().queue(q1).read().enq_async()?; //~ CLM003
    let mapped = future.wait()?;
    Ok(mapped.iter().sum())
}
