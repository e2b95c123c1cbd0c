//! An image-processing pipeline that owns its queues: uploads go through a transfer queue
//! and kernels run on a compute queue of the same device, so copies overlap compute (the
//! "separate copy engine" pattern of the CUDA-to-OpenCL ports).

use std::ptr;

use opencl3::command_queue::CommandQueue;
use opencl3::context::Context;
use opencl3::device::Device;
use opencl3::event::Event;
use opencl3::kernel::{ExecuteKernel, Kernel};
use opencl3::memory::{Buffer, CL_MEM_READ_ONLY, CL_MEM_WRITE_ONLY};
use opencl3::program::Program;
use opencl3::types::{cl_uchar, CL_BLOCKING, CL_NON_BLOCKING};

const BLUR: &str = r#"
__kernel void blur(__global const uchar* src, __global uchar* dst, int w) {
    int x = get_global_id(0);
    int l = max(x - 1, 0);
    int r = min(x + 1, w - 1);
    dst[x] = (src[l] + src[x] + src[r]) / 3;
}
"#;

pub struct Pipeline {
    context: Context,
    transfer: CommandQueue,
    compute: CommandQueue,
    blur: Kernel,
    width: usize,
}

impl Pipeline {
    pub fn new(device: &Device, width: usize) -> opencl3::Result<Self> {
        let context = Context::from_device(device)?;
        let transfer = CommandQueue::create_default_with_properties(&context, 0, 0)?;
        let compute = CommandQueue::create_default_with_properties(&context, 0, 0)?;
        let program = Program::create_and_build_from_source(&context, BLUR, "").expect("build");
        let blur = Kernel::create(&program, "blur")?;
        Ok(Pipeline { context, transfer, compute, blur, width })
    }

    /// The upload is non-blocking on the transfer queue and the kernel on the compute queue
    /// does not wait for it.
    pub fn process(&self, frame: &[cl_uchar]) -> opencl3::Result<Vec<cl_uchar>> {
        let mut out = vec![0u8; self.width];
        unsafe {
            let mut src = Buffer::<cl_uchar>::create(&self.context, CL_MEM_READ_ONLY, self.width, ptr::null_mut())?;
            let dst = Buffer::<cl_uchar>::create(&self.context, CL_MEM_WRITE_ONLY, self.width, ptr::null_mut())?;
            self.transfer.enqueue_write_buffer(&mut src, CL_NON_BLOCKING, 0, frame, &[])?;
            let done = ExecuteKernel::new(&self.blur) //~ CLM003
                .set_arg(&src)
                .set_arg(&dst)
                .set_arg(&(self.width as i32))
                .set_global_work_size(self.width)
                .enqueue_nd_range(&self.compute)?;
            self.transfer.enqueue_read_buffer(&dst, CL_BLOCKING, 0, &mut out, &[done.get()])?;
        }
        Ok(out)
    }

    /// OK: the kernel waits on the upload's event, the download on the kernel's.
    pub fn process_ordered(&self, frame: &[cl_uchar]) -> opencl3::Result<Vec<cl_uchar>> {
        let mut out = vec![0u8; self.width];
        unsafe {
            let mut src = Buffer::<cl_uchar>::create(&self.context, CL_MEM_READ_ONLY, self.width, ptr::null_mut())?;
            let dst = Buffer::<cl_uchar>::create(&self.context, CL_MEM_WRITE_ONLY, self.width, ptr::null_mut())?;
            let up: Event = self.transfer.enqueue_write_buffer(&mut src, CL_NON_BLOCKING, 0, frame, &[])?;
            let done = ExecuteKernel::new(&self.blur)
                .set_arg(&src)
                .set_arg(&dst)
                .set_arg(&(self.width as i32))
                .set_global_work_size(self.width)
                .set_wait_event(&up)
                .enqueue_nd_range(&self.compute)?;
            self.transfer.enqueue_read_buffer(&dst, CL_BLOCKING, 0, &mut out, &[done.get()])?;
        }
        Ok(out)
    }
}

/// A caller that builds the pipeline and runs a few frames.
pub fn run_frames(device: &Device, frames: &[Vec<cl_uchar>]) -> opencl3::Result<Vec<Vec<cl_uchar>>> {
    let pipeline = Pipeline::new(device, 1920)?;
    frames.iter().map(|f| pipeline.process_ordered(f)).collect()
}
