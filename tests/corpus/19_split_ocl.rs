//! Two-device matrix-vector product on `ocl`: rows split between two devices' queues, one
//! shared input vector.

use ocl::{flags, Buffer, Context, Event, Kernel, Program, Queue};

const MV: &str = r#"
__kernel void mv(__global const float* m, __global const float* x, __global float* y, int cols) {
    int r = get_global_id(0);
    float acc = 0.0f;
    for (int c = 0; c < cols; ++c) acc += m[r * cols + c] * x[c];
    y[r] = acc;
}
__kernel void normalize(__global float* x, int n) {
    int i = get_global_id(0);
    x[i] = x[i] / (float)n;
}
"#;

/// The vector is normalized on device 0 without blocking, and device 1's product reads it
/// without waiting.
pub fn matvec(context: &Context, qs: &[Queue; 2], m: &[f32], x: &[f32], rows: usize) -> ocl::Result<Vec<f32>> {
    let cols = x.len();
    let program = Program::builder().src(MV).build(context)?;
    let xb = Buffer::<f32>::builder().queue(qs[0].clone()).flags(flags::MEM_READ_WRITE).len(cols).copy_host_slice(x).build()?;
    let half = rows / 2;
    let m0 = Buffer::<f32>::builder().queue(qs[0].clone()).len(half * cols).copy_host_slice(&m[..half * cols]).build()?;
    let m1 = Buffer::<f32>::builder().queue(qs[1].clone()).len(half * cols).copy_host_slice(&m[half * cols..]).build()?;
    let y0 = Buffer::<f32>::builder().queue(qs[0].clone()).len(half).build()?;
    let y1 = Buffer::<f32>::builder().queue(qs[1].clone()).len(half).build()?;
    let norm = Kernel::builder().program(&program).name("normalize").queue(qs[0].clone()).global_work_size(cols).arg(&xb).arg(cols as i32).build()?;
    let k0 = Kernel::builder().program(&program).name("mv").queue(qs[0].clone()).global_work_size(half).arg(&m0).arg(&xb).arg(&y0).arg(cols as i32).build()?;
    let k1 = Kernel::builder().program(&program).name("mv").queue(qs[1].clone()).global_work_size(half).arg(&m1).arg(&xb).arg(&y1).arg(cols as i32).build()?;
    let mut normalized = Event::empty();
    unsafe {
        norm.cmd().enew(&mut normalized).enq()?;
        k0.enq()?;
        k1.enq()?; //~ CLM003
    }
    let mut y = vec![0.0f32; rows];
    y0.read(&mut y[..half]).enq()?;
    y1.read(&mut y[half..]).enq()?;
    Ok(y)
}

/// OK: device 1's product waits on the normalization.
pub fn matvec_waited(context: &Context, qs: &[Queue; 2], x: &[f32], m1: &[f32]) -> ocl::Result<Vec<f32>> {
    let cols = x.len();
    let rows = m1.len() / cols;
    let program = Program::builder().src(MV).build(context)?;
    let xb = Buffer::<f32>::builder().queue(qs[0].clone()).len(cols).copy_host_slice(x).build()?;
    let mb = Buffer::<f32>::builder().queue(qs[1].clone()).len(m1.len()).copy_host_slice(m1).build()?;
    let yb = Buffer::<f32>::builder().queue(qs[1].clone()).len(rows).build()?;
    let norm = Kernel::builder().program(&program).name("normalize").queue(qs[0].clone()).global_work_size(cols).arg(&xb).arg(cols as i32).build()?;
    let k1 = Kernel::builder().program(&program).name("mv").queue(qs[1].clone()).global_work_size(rows).arg(&mb).arg(&xb).arg(&yb).arg(cols as i32).build()?;
    let mut normalized = Event::empty();
    unsafe {
        norm.cmd().enew(&mut normalized).enq()?;
        k1.cmd().ewait(&normalized).enq()?;
    }
    let mut y = vec![0.0f32; rows];
    yb.read(&mut y).enq()?;
    Ok(y)
}
