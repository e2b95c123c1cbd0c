//! An OpenCL layer (`cl_loader_layers`) that checks a running program for the bugs that
//! `clmigrate-lint` finds in source: it wraps the enqueue, kernel-argument, event, finish,
//! map, marker/barrier, user-event and release entry points, keeps happens-before between
//! commands from the API's ordering rules (see [`model`]), and writes each finding as one
//! JSON line with the host call stack, for `cargo clmigrate-lint run` to report.
//!
//! The ICD loader loads it when `OPENCL_LAYERS` names it, calls `clInitLayer` with its own
//! dispatch table (of any size: Debian's ocl-icd 2.3.1 passes 149 entries), and from then on
//! calls the table this layer returns; each wrapper calls on into the loader's table.
//! Findings go to the file `CLMIGRATE_LAYER_OUTPUT` names (appended as they are found, so a
//! crash of the program loses none), or to standard error.

mod ffi;
pub mod model;
pub mod site;

use std::ffi::c_void;
use std::fs::File;
use std::io::Write;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{LazyLock, Mutex, MutexGuard};

use model::{Finding, Model};
use site::{frames_json, json_str};

/// The most dispatch entries the layer keeps (OpenCL 3.0 has 149).
const MAX_ENTRIES: usize = 256;

/// The loader's table: the functions each wrapper calls on into.
static TARGET: [AtomicUsize; MAX_ENTRIES] = [const { AtomicUsize::new(0) }; MAX_ENTRIES];

static MODEL: LazyLock<Mutex<Model>> = LazyLock::new(|| Mutex::new(Model::default()));
static OUTPUT: Mutex<Option<File>> = Mutex::new(None);
static REPORTED_EXIT: AtomicBool = AtomicBool::new(false);
static AT_EXIT: AtomicBool = AtomicBool::new(false);

/// `CL_LAYER_API_VERSION`, `CL_LAYER_NAME` and the version this layer implements.
const CL_LAYER_API_VERSION: u32 = 0x4240;
const CL_LAYER_NAME: u32 = 0x4241;
const CL_LAYER_API_VERSION_100: u32 = 100;
const CL_SUCCESS: i32 = 0;
const CL_INVALID_VALUE: i32 = -30;
const LAYER_NAME: &[u8] = b"clmigrate-lint layer\0";

fn model() -> MutexGuard<'static, Model> {
    MODEL.lock().unwrap_or_else(|e| e.into_inner())
}

/// The loader's entry `index`, as a function of type `F`, when the loader has one.
///
/// # Safety
/// `F` must be the function pointer type of dispatch entry `index`.
unsafe fn target<F: Copy>(index: usize) -> Option<F> {
    let addr = TARGET.get(index)?.load(Ordering::Relaxed);
    (addr != 0).then(|| std::mem::transmute_copy::<usize, F>(&addr))
}

/// Writes one line to the output.
fn emit(line: &str) {
    let mut out = OUTPUT.lock().unwrap_or_else(|e| e.into_inner());
    match out.as_mut() {
        Some(file) => {
            let _ = file.write_all(format!("{line}\n").as_bytes());
        }
        None => eprintln!("clmigrate-layer: {line}"),
    }
}

/// Writes findings, with their call stacks resolved.
fn report(findings: Vec<Finding>) {
    for f in findings {
        let related: Vec<String> = f
            .related
            .iter()
            .map(|(label, site)| {
                format!(
                    "{{\"label\":{},\"stack\":{}}}",
                    json_str(label),
                    frames_json(&site.frames())
                )
            })
            .collect();
        emit(&format!(
            "{{\"code\":{},\"message\":{},\"label\":{},\"help\":{},\"stack\":{},\"related\":[{}]}}",
            json_str(f.code),
            json_str(&f.message),
            json_str(&f.label),
            json_str(&f.help),
            frames_json(&f.site.frames()),
            related.join(",")
        ));
    }
}

/// The events never released, once, at exit or when the loader unloads the layer.
fn report_exit() {
    if REPORTED_EXIT.swap(true, Ordering::SeqCst) {
        return;
    }
    let findings = model().unreleased_events();
    report(findings);
    emit("{\"layer\":\"exit\"}");
}

extern "C" fn at_exit() {
    report_exit();
}

extern "C" {
    fn atexit(f: extern "C" fn()) -> i32;
}

/// Reads the loader's table, builds this layer's and starts a fresh model and output.
///
/// # Safety
/// `target` points to `num_entries` dispatch entries.
unsafe fn init(num_entries: u32, target_dispatch: *const usize) -> &'static [usize] {
    let n = (num_entries as usize).min(MAX_ENTRIES);
    let entries = std::slice::from_raw_parts(target_dispatch, n);
    for (slot, addr) in TARGET.iter().zip(entries) {
        slot.store(*addr, Ordering::Relaxed);
    }
    for slot in TARGET.iter().skip(n) {
        slot.store(0, Ordering::Relaxed);
    }
    let mut table = entries.to_vec();
    for (index, wrapper) in ffi::wrappers() {
        if index < n && table[index] != 0 {
            table[index] = wrapper;
        }
    }
    *model() = Model::default();
    *OUTPUT.lock().unwrap_or_else(|e| e.into_inner()) = std::env::var_os("CLMIGRATE_LAYER_OUTPUT")
        .and_then(|p| {
            std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(p)
                .ok()
        });
    REPORTED_EXIT.store(false, Ordering::SeqCst);
    if !AT_EXIT.swap(true, Ordering::SeqCst) {
        atexit(at_exit);
    }
    emit(&format!("{{\"layer\":\"init\",\"entries\":{num_entries}}}"));
    Box::leak(table.into_boxed_slice())
}

/// `clGetLayerInfo`: the layer API version and the layer's name.
///
/// # Safety
/// The pointers are null or valid for the sizes given, as the extension requires.
#[no_mangle]
pub unsafe extern "C" fn clGetLayerInfo(
    param_name: u32,
    param_value_size: usize,
    param_value: *mut c_void,
    param_value_size_ret: *mut usize,
) -> i32 {
    let bytes: &[u8] = match param_name {
        CL_LAYER_API_VERSION => &CL_LAYER_API_VERSION_100.to_ne_bytes(),
        CL_LAYER_NAME => LAYER_NAME,
        _ => return CL_INVALID_VALUE,
    };
    if !param_value.is_null() {
        if param_value_size < bytes.len() {
            return CL_INVALID_VALUE;
        }
        std::ptr::copy_nonoverlapping(bytes.as_ptr(), param_value.cast::<u8>(), bytes.len());
    }
    if !param_value_size_ret.is_null() {
        *param_value_size_ret = bytes.len();
    }
    CL_SUCCESS
}

/// `clInitLayer`: takes the loader's table of `num_entries` entries and returns this layer's
/// table of the same size.
///
/// # Safety
/// `target_dispatch` points to `num_entries` entries; the out-pointers are valid.
#[no_mangle]
pub unsafe extern "C" fn clInitLayer(
    num_entries: u32,
    target_dispatch: *const c_void,
    num_entries_ret: *mut u32,
    layer_dispatch_ret: *mut *const c_void,
) -> i32 {
    if target_dispatch.is_null() || num_entries_ret.is_null() || layer_dispatch_ret.is_null() {
        return CL_INVALID_VALUE;
    }
    let table = init(num_entries, target_dispatch.cast());
    *num_entries_ret = table.len() as u32;
    *layer_dispatch_ret = table.as_ptr().cast();
    CL_SUCCESS
}

/// `clInitLayerWithProperties` (newer loaders): the same, with properties (none are defined).
///
/// # Safety
/// As [`clInitLayer`].
#[no_mangle]
pub unsafe extern "C" fn clInitLayerWithProperties(
    num_entries: u32,
    target_dispatch: *const c_void,
    num_entries_ret: *mut u32,
    layer_dispatch_ret: *mut *const c_void,
    _properties: *const isize,
) -> i32 {
    clInitLayer(
        num_entries,
        target_dispatch,
        num_entries_ret,
        layer_dispatch_ret,
    )
}

/// `clDeinitLayer` (newer loaders, when they unload the layer): reports what is still
/// unreleased.
#[no_mangle]
pub extern "C" fn clDeinitLayer() -> i32 {
    report_exit();
    CL_SUCCESS
}
