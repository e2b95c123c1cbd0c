//! The layer against a stub driver: this file plays the ICD loader. It loads the layer with
//! `dlopen`, gives `clInitLayer` a dispatch table of stub functions that hand out handles
//! and complete nothing, and calls the table the layer returns as a program's calls would
//! arrive. Each case then reads what the layer wrote at `clDeinitLayer`.

use std::ffi::{c_char, c_void, CString};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

type H = *mut c_void;

const ENTRIES: usize = 149;
const CTX: usize = 0x30;
const DEV0: usize = 0x10;
const DEV1: usize = 0x20;

const GET_CONTEXT_INFO: usize = 8;
const CREATE_COMMAND_QUEUE: usize = 9;
const GET_QUEUE_INFO: usize = 12;
const CREATE_BUFFER: usize = 14;
const RELEASE_MEM: usize = 18;
const CREATE_KERNEL: usize = 34;
const SET_KERNEL_ARG: usize = 38;
const GET_KERNEL_INFO: usize = 39;
const WAIT_FOR_EVENTS: usize = 41;
const RELEASE_EVENT: usize = 44;
const FINISH: usize = 47;
const READ_BUFFER: usize = 48;
const WRITE_BUFFER: usize = 49;
const ND_RANGE_KERNEL: usize = 59;
const CREATE_SUB_BUFFER: usize = 82;
const CREATE_USER_EVENT: usize = 84;
const SET_USER_EVENT_STATUS: usize = 85;
const GET_KERNEL_ARG_INFO: usize = 101;
const MIGRATE: usize = 104;
const MARKER: usize = 105;
const BARRIER: usize = 106;

static NEXT: AtomicUsize = AtomicUsize::new(0x1000);
static QUEUES: Mutex<Vec<(usize, usize, u64)>> = Mutex::new(Vec::new());

fn handle() -> H {
    NEXT.fetch_add(0x10, Ordering::Relaxed) as H
}

unsafe fn answer(bytes: &[u8], size: usize, value: *mut c_void, ret: *mut usize) -> i32 {
    if !value.is_null() {
        if size < bytes.len() {
            return -30;
        }
        std::ptr::copy_nonoverlapping(bytes.as_ptr(), value.cast::<u8>(), bytes.len());
    }
    if !ret.is_null() {
        *ret = bytes.len();
    }
    0
}

unsafe fn out_event(event: *mut H) -> i32 {
    if !event.is_null() {
        *event = handle();
    }
    0
}

// The stub driver's entries.

unsafe extern "C" fn context_info(
    _: H,
    param: u32,
    size: usize,
    v: *mut c_void,
    r: *mut usize,
) -> i32 {
    match param {
        0x1081 => answer(
            &[DEV0.to_ne_bytes(), DEV1.to_ne_bytes()].concat(),
            size,
            v,
            r,
        ),
        _ => -30,
    }
}
unsafe extern "C" fn create_queue(_: H, device: H, props: u64, _: *mut i32) -> H {
    let q = handle();
    QUEUES
        .lock()
        .unwrap()
        .push((q as usize, device as usize, props));
    q
}
unsafe extern "C" fn queue_info(
    q: H,
    param: u32,
    size: usize,
    v: *mut c_void,
    r: *mut usize,
) -> i32 {
    let queues = QUEUES.lock().unwrap();
    let Some(&(_, device, props)) = queues.iter().find(|(h, _, _)| *h == q as usize) else {
        return -36;
    };
    match param {
        0x1090 => answer(&CTX.to_ne_bytes(), size, v, r),
        0x1091 => answer(&device.to_ne_bytes(), size, v, r),
        0x1093 => answer(&props.to_ne_bytes(), size, v, r),
        _ => -30,
    }
}
unsafe extern "C" fn create_buffer(_: H, _: u64, _: usize, _: H, _: *mut i32) -> H {
    handle()
}
unsafe extern "C" fn create_sub_buffer(_: H, _: u64, _: u32, _: *const c_void, _: *mut i32) -> H {
    handle()
}
unsafe extern "C" fn success1(_: H) -> i32 {
    0
}
unsafe extern "C" fn create_kernel(_: H, _: *const c_char, _: *mut i32) -> H {
    handle()
}
unsafe extern "C" fn set_kernel_arg(_: H, _: u32, _: usize, _: *const c_void) -> i32 {
    0
}
/// Every kernel is `k(__global float* out, __global const float* in)`.
unsafe extern "C" fn kernel_info(
    _: H,
    param: u32,
    size: usize,
    v: *mut c_void,
    r: *mut usize,
) -> i32 {
    match param {
        0x1190 => answer(b"k\0", size, v, r),
        0x1191 => answer(&2u32.to_ne_bytes(), size, v, r),
        0x1193 => answer(&CTX.to_ne_bytes(), size, v, r),
        _ => -30,
    }
}
unsafe extern "C" fn kernel_arg_info(
    _: H,
    index: u32,
    param: u32,
    size: usize,
    v: *mut c_void,
    r: *mut usize,
) -> i32 {
    match (param, index) {
        (0x1196, _) => answer(&0x119Bu32.to_ne_bytes(), size, v, r),
        (0x1198, _) => answer(b"float*\0", size, v, r),
        (0x1199, 0) => answer(&0u64.to_ne_bytes(), size, v, r),
        (0x1199, _) => answer(&1u64.to_ne_bytes(), size, v, r),
        (0x119A, 0) => answer(b"out\0", size, v, r),
        (0x119A, _) => answer(b"in\0", size, v, r),
        _ => -30,
    }
}
unsafe extern "C" fn wait_for_events(_: u32, _: *const H) -> i32 {
    0
}
unsafe extern "C" fn transfer(
    _: H,
    _: H,
    _: u32,
    _: usize,
    _: usize,
    _: H,
    _: u32,
    _: *const H,
    e: *mut H,
) -> i32 {
    out_event(e)
}
unsafe extern "C" fn nd_range(
    _: H,
    _: H,
    _: u32,
    _: *const usize,
    _: *const usize,
    _: *const usize,
    _: u32,
    _: *const H,
    e: *mut H,
) -> i32 {
    out_event(e)
}
unsafe extern "C" fn create_user_event(_: H, _: *mut i32) -> H {
    handle()
}
unsafe extern "C" fn set_user_event_status(_: H, _: i32) -> i32 {
    0
}
unsafe extern "C" fn migrate(
    _: H,
    _: u32,
    _: *const H,
    _: u64,
    _: u32,
    _: *const H,
    e: *mut H,
) -> i32 {
    out_event(e)
}
unsafe extern "C" fn marker(_: H, _: u32, _: *const H, e: *mut H) -> i32 {
    out_event(e)
}

/// The stub driver's table, as a loader would pass it.
fn driver() -> Vec<usize> {
    let mut t = vec![0usize; ENTRIES];
    t[GET_CONTEXT_INFO] = context_info as *const () as usize;
    t[CREATE_COMMAND_QUEUE] = create_queue as *const () as usize;
    t[GET_QUEUE_INFO] = queue_info as *const () as usize;
    t[CREATE_BUFFER] = create_buffer as *const () as usize;
    t[CREATE_SUB_BUFFER] = create_sub_buffer as *const () as usize;
    t[RELEASE_MEM] = success1 as *const () as usize;
    t[CREATE_KERNEL] = create_kernel as *const () as usize;
    t[SET_KERNEL_ARG] = set_kernel_arg as *const () as usize;
    t[GET_KERNEL_INFO] = kernel_info as *const () as usize;
    t[GET_KERNEL_ARG_INFO] = kernel_arg_info as *const () as usize;
    t[WAIT_FOR_EVENTS] = wait_for_events as *const () as usize;
    t[RELEASE_EVENT] = success1 as *const () as usize;
    t[FINISH] = success1 as *const () as usize;
    t[READ_BUFFER] = transfer as *const () as usize;
    t[WRITE_BUFFER] = transfer as *const () as usize;
    t[ND_RANGE_KERNEL] = nd_range as *const () as usize;
    t[CREATE_USER_EVENT] = create_user_event as *const () as usize;
    t[SET_USER_EVENT_STATUS] = set_user_event_status as *const () as usize;
    t[MIGRATE] = migrate as *const () as usize;
    t[MARKER] = marker as *const () as usize;
    t[BARRIER] = marker as *const () as usize;
    t
}

type InitFn = unsafe extern "C" fn(u32, *const c_void, *mut u32, *mut *const c_void) -> i32;
type DeinitFn = unsafe extern "C" fn() -> i32;
type LayerInfoFn = unsafe extern "C" fn(u32, usize, *mut c_void, *mut usize) -> i32;

/// The layer, loaded once.
struct Layer {
    init: InitFn,
    deinit: DeinitFn,
    info: LayerInfoFn,
}

fn load() -> Layer {
    let path = PathBuf::from(super::BIN).with_file_name("libclmigrate_layer.so");
    let c = CString::new(path.to_string_lossy().as_bytes()).expect("a path");
    unsafe {
        let lib = libc::dlopen(c.as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL);
        assert!(!lib.is_null(), "dlopen {}", path.display());
        let sym = |name: &str| {
            let n = CString::new(name).expect("a name");
            let f = libc::dlsym(lib, n.as_ptr());
            assert!(!f.is_null(), "the layer exports {name}");
            f as usize
        };
        Layer {
            init: std::mem::transmute::<usize, InitFn>(sym("clInitLayer")),
            deinit: std::mem::transmute::<usize, DeinitFn>(sym("clDeinitLayer")),
            info: std::mem::transmute::<usize, LayerInfoFn>(sym("clGetLayerInfo")),
        }
    }
}

/// A program's view of the layer: its table, and the objects of two devices in one context.
struct App {
    table: &'static [usize],
    q0: H,
    q1: H,
    kernel: H,
}

impl App {
    unsafe fn f<F: Copy>(&self, index: usize) -> F {
        std::mem::transmute_copy::<usize, F>(&self.table[index])
    }
    fn queue(&self, device: usize, props: u64) -> H {
        unsafe {
            self.f::<unsafe extern "C" fn(H, H, u64, *mut i32) -> H>(CREATE_COMMAND_QUEUE)(
                CTX as H,
                device as H,
                props,
                std::ptr::null_mut(),
            )
        }
    }
    fn buffer(&self, size: usize) -> H {
        unsafe {
            self.f::<unsafe extern "C" fn(H, u64, usize, H, *mut i32) -> H>(CREATE_BUFFER)(
                CTX as H,
                1,
                size,
                std::ptr::null_mut(),
                std::ptr::null_mut(),
            )
        }
    }
    fn sub_buffer(&self, parent: H, origin: usize, size: usize) -> H {
        let region = [origin, size];
        unsafe {
            self.f::<unsafe extern "C" fn(H, u64, u32, *const c_void, *mut i32) -> H>(
                CREATE_SUB_BUFFER,
            )(
                parent,
                1,
                0x1220,
                region.as_ptr().cast(),
                std::ptr::null_mut(),
            )
        }
    }
    fn write(&self, q: H, mem: H, blocking: bool, data: &[u8], waits: &[H]) -> H {
        let mut e: H = std::ptr::null_mut();
        unsafe {
            self.f::<unsafe extern "C" fn(
                H,
                H,
                u32,
                usize,
                usize,
                *const c_void,
                u32,
                *const H,
                *mut H,
            ) -> i32>(WRITE_BUFFER)(
                q,
                mem,
                blocking as u32,
                0,
                data.len(),
                data.as_ptr().cast(),
                waits.len() as u32,
                waits.as_ptr(),
                &mut e,
            );
        }
        e
    }
    fn read(&self, q: H, mem: H, blocking: bool, size: usize, waits: &[H]) -> H {
        let mut back = vec![0u8; size];
        let mut e: H = std::ptr::null_mut();
        unsafe {
            self.f::<unsafe extern "C" fn(H, H, u32, usize, usize, H, u32, *const H, *mut H) -> i32>(READ_BUFFER)(
                q, mem, blocking as u32, 0, size, back.as_mut_ptr().cast(), waits.len() as u32, waits.as_ptr(), &mut e,
            );
        }
        e
    }
    /// `clSetKernelArg` with these bytes.
    fn arg(&self, index: u32, bytes: &[u8]) {
        unsafe {
            self.f::<unsafe extern "C" fn(H, u32, usize, *const c_void) -> i32>(SET_KERNEL_ARG)(
                self.kernel,
                index,
                bytes.len(),
                bytes.as_ptr().cast(),
            );
        }
    }
    /// Launches `k(out, in)`.
    fn kernel(&self, q: H, out: H, input: H, waits: &[H]) -> H {
        self.arg(0, &(out as usize).to_ne_bytes());
        self.arg(1, &(input as usize).to_ne_bytes());
        let global = [16usize];
        let mut e: H = std::ptr::null_mut();
        unsafe {
            self.f::<unsafe extern "C" fn(
                H,
                H,
                u32,
                *const usize,
                *const usize,
                *const usize,
                u32,
                *const H,
                *mut H,
            ) -> i32>(ND_RANGE_KERNEL)(
                q,
                self.kernel,
                1,
                std::ptr::null(),
                global.as_ptr(),
                std::ptr::null(),
                waits.len() as u32,
                waits.as_ptr(),
                &mut e,
            );
        }
        e
    }
    fn migrate(&self, q: H, mem: H, flags: u64, waits: &[H]) -> H {
        let mut e: H = std::ptr::null_mut();
        unsafe {
            self.f::<unsafe extern "C" fn(H, u32, *const H, u64, u32, *const H, *mut H) -> i32>(
                MIGRATE,
            )(
                q,
                1,
                &mem,
                flags,
                waits.len() as u32,
                waits.as_ptr(),
                &mut e,
            );
        }
        e
    }
    fn marker(&self, q: H, index: usize, waits: &[H]) -> H {
        let mut e: H = std::ptr::null_mut();
        unsafe {
            self.f::<unsafe extern "C" fn(H, u32, *const H, *mut H) -> i32>(index)(
                q,
                waits.len() as u32,
                waits.as_ptr(),
                &mut e,
            );
        }
        e
    }
    fn finish(&self, q: H) {
        unsafe { self.f::<unsafe extern "C" fn(H) -> i32>(FINISH)(q) };
    }
    fn wait(&self, events: &[H]) {
        unsafe {
            self.f::<unsafe extern "C" fn(u32, *const H) -> i32>(WAIT_FOR_EVENTS)(
                events.len() as u32,
                events.as_ptr(),
            )
        };
    }
    fn user_event(&self) -> H {
        unsafe {
            self.f::<unsafe extern "C" fn(H, *mut i32) -> H>(CREATE_USER_EVENT)(
                CTX as H,
                std::ptr::null_mut(),
            )
        }
    }
    fn complete(&self, e: H) {
        unsafe { self.f::<unsafe extern "C" fn(H, i32) -> i32>(SET_USER_EVENT_STATUS)(e, 0) };
    }
    fn release(&self, events: &[H]) {
        for e in events {
            unsafe { self.f::<unsafe extern "C" fn(H) -> i32>(RELEASE_EVENT)(*e) };
        }
    }
}

/// Runs `case` against a fresh layer and returns the codes it reported, in order.
fn case(layer: &Layer, entries: usize, body: impl FnOnce(&App)) -> Vec<String> {
    let out = std::env::temp_dir().join(format!(
        "clmigrate-stub-{}-{}.jsonl",
        std::process::id(),
        NEXT.load(Ordering::Relaxed)
    ));
    let _ = std::fs::remove_file(&out);
    std::env::set_var("CLMIGRATE_LAYER_OUTPUT", &out);
    let target = driver();
    let mut n = 0u32;
    let mut table: *const c_void = std::ptr::null();
    let r = unsafe { (layer.init)(entries as u32, target.as_ptr().cast(), &mut n, &mut table) };
    assert_eq!(r, 0, "clInitLayer");
    assert_eq!(
        n as usize, entries,
        "the layer's table is as long as the loader's"
    );
    let table = unsafe { std::slice::from_raw_parts(table.cast::<usize>(), n as usize) };
    let app = App {
        table,
        q0: std::ptr::null_mut(),
        q1: std::ptr::null_mut(),
        kernel: std::ptr::null_mut(),
    };
    let q0 = app.queue(DEV0, 0);
    let q1 = app.queue(DEV1, 0);
    let kernel = unsafe {
        app.f::<unsafe extern "C" fn(H, *const c_char, *mut i32) -> H>(CREATE_KERNEL)(
            handle(),
            c"k".as_ptr(),
            std::ptr::null_mut(),
        )
    };
    let app = App {
        q0,
        q1,
        kernel,
        ..app
    };
    body(&app);
    unsafe { (layer.deinit)() };
    let text = std::fs::read_to_string(&out).expect("the layer's output");
    let _ = std::fs::remove_file(&out);
    text.lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter_map(|v| v["code"].as_str().map(str::to_string))
        .collect()
}

/// A case's calls.
type Body = Box<dyn FnOnce(&App)>;

/// Every case; one test, since the layer is one per process.
pub fn all() {
    super::layer_built();
    let layer = load();
    let mut version = 0u32;
    let r = unsafe {
        (layer.info)(
            0x4240,
            4,
            (&mut version as *mut u32).cast(),
            std::ptr::null_mut(),
        )
    };
    assert_eq!((r, version), (0, 100), "CL_LAYER_API_VERSION");

    let cases: Vec<(&str, Vec<&str>, Body)> = vec![
        (
            "same in-order queue",
            vec![],
            Box::new(|a: &App| {
                let b = a.buffer(64);
                let e = a.write(a.q0, b, false, &[1; 64], &[]);
                let k = a.kernel(a.q0, b, b, &[]);
                a.release(&[e, k]);
            }),
        ),
        (
            "two queues, no wait list",
            vec!["CLM003"],
            Box::new(|a: &App| {
                let b = a.buffer(64);
                let e = a.write(a.q0, b, false, &[1; 64], &[]);
                let k = a.kernel(a.q1, b, b, &[]);
                a.release(&[e, k]);
            }),
        ),
        (
            "two queues, waited on",
            vec![],
            Box::new(|a: &App| {
                let b = a.buffer(64);
                let e = a.write(a.q0, b, false, &[1; 64], &[]);
                let k = a.kernel(a.q1, b, b, &[e]);
                a.release(&[e, k]);
            }),
        ),
        (
            "a blocking write does not complete the write",
            vec!["CLM003"],
            Box::new(|a: &App| {
                let b = a.buffer(64);
                let e = a.write(a.q0, b, true, &[1; 64], &[]);
                let k = a.kernel(a.q1, b, b, &[]);
                a.release(&[e, k]);
            }),
        ),
        (
            "a blocking read completes it and what came before",
            vec![],
            Box::new(|a: &App| {
                let b = a.buffer(64);
                let k = a.kernel(a.q0, b, b, &[]);
                let r = a.read(a.q0, b, true, 64, &[]);
                let w = a.write(a.q1, b, false, &[1; 64], &[]);
                a.release(&[k, r, w]);
            }),
        ),
        (
            "clFinish",
            vec![],
            Box::new(|a: &App| {
                let b = a.buffer(64);
                let k = a.kernel(a.q0, b, b, &[]);
                a.finish(a.q0);
                let w = a.write(a.q1, b, false, &[1; 64], &[]);
                a.release(&[k, w]);
            }),
        ),
        (
            "clWaitForEvents",
            vec![],
            Box::new(|a: &App| {
                let b = a.buffer(64);
                let k = a.kernel(a.q0, b, b, &[]);
                a.wait(&[k]);
                let w = a.write(a.q1, b, false, &[1; 64], &[]);
                a.release(&[k, w]);
            }),
        ),
        (
            "a marker's event",
            vec![],
            Box::new(|a: &App| {
                let b = a.buffer(64);
                let k = a.kernel(a.q0, b, b, &[]);
                let m = a.marker(a.q0, MARKER, &[]);
                let w = a.write(a.q1, b, false, &[1; 64], &[m]);
                a.release(&[k, m, w]);
            }),
        ),
        (
            "a completed user event orders only what waits on it",
            vec!["CLM003"],
            Box::new(|a: &App| {
                let b = a.buffer(64);
                let gate = a.user_event();
                let k = a.kernel(a.q0, b, b, &[]);
                a.complete(gate);
                let w = a.write(a.q1, b, false, &[1; 64], &[gate]);
                a.release(&[gate, k, w]);
            }),
        ),
        (
            "out-of-order queue",
            vec!["CLM003"],
            Box::new(|a: &App| {
                let q = a.queue(DEV0, 1);
                let b = a.buffer(64);
                let k1 = a.kernel(q, b, b, &[]);
                let k2 = a.kernel(q, b, b, &[]);
                a.release(&[k1, k2]);
            }),
        ),
        (
            "out-of-order queue with a barrier",
            vec![],
            Box::new(|a: &App| {
                let q = a.queue(DEV0, 1);
                let b = a.buffer(64);
                let k1 = a.kernel(q, b, b, &[]);
                let m = a.marker(q, BARRIER, &[]);
                let k2 = a.kernel(q, b, b, &[]);
                a.release(&[k1, m, k2]);
            }),
        ),
        (
            "disjoint sub-buffers",
            vec![],
            Box::new(|a: &App| {
                let b = a.buffer(128);
                let lo = a.sub_buffer(b, 0, 64);
                let hi = a.sub_buffer(b, 64, 64);
                let e = a.write(a.q0, lo, false, &[1; 64], &[]);
                let f = a.write(a.q1, hi, false, &[1; 64], &[]);
                a.release(&[e, f]);
            }),
        ),
        (
            "overlapping sub-buffer and parent",
            vec!["CLM003"],
            Box::new(|a: &App| {
                let b = a.buffer(128);
                let hi = a.sub_buffer(b, 64, 64);
                let e = a.write(a.q0, hi, false, &[1; 64], &[]);
                let r = a.read(a.q1, b, false, 128, &[]);
                a.release(&[e, r]);
            }),
        ),
        (
            "two readers of a const parameter",
            vec![],
            Box::new(|a: &App| {
                let input = a.buffer(64);
                let (o0, o1) = (a.buffer(64), a.buffer(64));
                let k0 = a.kernel(a.q0, o0, input, &[]);
                let k1 = a.kernel(a.q1, o1, input, &[]);
                a.release(&[k0, k1]);
            }),
        ),
        (
            "bytes that are no buffer",
            vec!["CLM001"],
            Box::new(|a: &App| {
                a.arg(0, &[7u8; 8]);
            }),
        ),
        (
            "a size that is no cl_mem",
            vec!["CLM001"],
            Box::new(|a: &App| {
                let b = a.buffer(64);
                let mut bytes = (b as usize).to_ne_bytes().to_vec();
                bytes.extend([0u8; 16]);
                a.arg(0, &bytes);
            }),
        ),
        (
            "migrated to the host, then used on a device",
            vec!["CLM002"],
            Box::new(|a: &App| {
                let b = a.buffer(64);
                let k = a.kernel(a.q0, b, b, &[]);
                let m = a.migrate(a.q1, b, 1, &[k]);
                let k1 = a.kernel(a.q1, b, b, &[m]);
                a.release(&[k, m, k1]);
            }),
        ),
        (
            "migrated to the host, then read by the host",
            vec![],
            Box::new(|a: &App| {
                let b = a.buffer(64);
                let k = a.kernel(a.q0, b, b, &[]);
                let m = a.migrate(a.q1, b, 1, &[k]);
                let r = a.read(a.q1, b, true, 64, &[m]);
                a.release(&[k, m, r]);
            }),
        ),
        (
            "the same bytes uploaded twice",
            vec!["CLM004"],
            Box::new(|a: &App| {
                let b = a.buffer(64);
                let e = a.write(a.q0, b, true, &[3; 64], &[]);
                let f = a.write(a.q0, b, true, &[3; 64], &[]);
                a.release(&[e, f]);
            }),
        ),
        (
            "uploaded again after a kernel wrote it",
            vec![],
            Box::new(|a: &App| {
                let b = a.buffer(64);
                let e = a.write(a.q0, b, true, &[3; 64], &[]);
                let k = a.kernel(a.q0, b, b, &[]);
                let f = a.write(a.q0, b, true, &[3; 64], &[]);
                a.release(&[e, k, f]);
            }),
        ),
        (
            "migrated on the queue of the device that holds it",
            vec!["CLM005"],
            Box::new(|a: &App| {
                let b = a.buffer(64);
                let k = a.kernel(a.q0, b, b, &[]);
                let m = a.migrate(a.q0, b, 0, &[]);
                let k1 = a.kernel(a.q1, b, b, &[m]);
                a.release(&[k, m, k1]);
            }),
        ),
        (
            "migrated on the destination's queue",
            vec![],
            Box::new(|a: &App| {
                let b = a.buffer(64);
                let k = a.kernel(a.q0, b, b, &[]);
                let m = a.migrate(a.q1, b, 0, &[k]);
                let k1 = a.kernel(a.q1, b, b, &[m]);
                a.release(&[k, m, k1]);
            }),
        ),
        (
            "an event never released",
            vec!["CLM006"],
            Box::new(|a: &App| {
                let b = a.buffer(64);
                let e = a.write(a.q0, b, false, &[1; 64], &[]);
                a.wait(&[e]);
            }),
        ),
    ];
    for (name, want, run) in cases {
        let got = case(&layer, ENTRIES, run);
        assert_eq!(got, want, "{name}");
    }
    // A loader with a shorter table (an older ocl-icd): the layer wraps what is there.
    let got = case(&layer, 120, |a: &App| {
        let b = a.buffer(64);
        let e = a.write(a.q0, b, false, &[1; 64], &[]);
        let k = a.kernel(a.q1, b, b, &[]);
        a.release(&[e, k]);
    });
    assert_eq!(got, vec!["CLM003"], "a table of 120 entries");
}
