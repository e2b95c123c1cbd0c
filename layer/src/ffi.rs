//! The wrapped entry points: each calls on into the loader's table and tells the model what
//! happened. Indices are those of `cl_icd_dispatch` (`CL/cl_icd.h`).

use std::ffi::{c_char, c_void, CStr, CString};

use crate::model::{hash_bytes, Access, Command, Handle, Kind, Mode, Param, Signature};
use crate::site::Site;
use crate::{model, report, target, CL_SUCCESS};

type H = *mut c_void;
type Ev = *mut c_void;
type Notify = *const c_void;

const CREATE_BUFFER: usize = 14;
const RETAIN_MEM: usize = 17;
const RELEASE_MEM: usize = 18;
const GET_MEM_INFO: usize = 20;
const CREATE_COMMAND_QUEUE: usize = 9;
const GET_CONTEXT_INFO: usize = 8;
const GET_QUEUE_INFO: usize = 12;
const BUILD_PROGRAM: usize = 30;
const CREATE_KERNEL: usize = 34;
const CREATE_KERNELS_IN_PROGRAM: usize = 35;
const SET_KERNEL_ARG: usize = 38;
const GET_KERNEL_INFO: usize = 39;
const WAIT_FOR_EVENTS: usize = 41;
const RETAIN_EVENT: usize = 43;
const RELEASE_EVENT: usize = 44;
const FINISH: usize = 47;
const READ_BUFFER: usize = 48;
const WRITE_BUFFER: usize = 49;
const COPY_BUFFER: usize = 50;
const MAP_BUFFER: usize = 56;
const UNMAP: usize = 58;
const ND_RANGE_KERNEL: usize = 59;
const TASK: usize = 60;
const MARKER: usize = 62;
const WAIT_FOR_EVENTS_ENQUEUED: usize = 63;
const BARRIER: usize = 64;
const CREATE_FROM_GL_BUFFER: usize = 66;
const CREATE_SUB_BUFFER: usize = 82;
const CREATE_USER_EVENT: usize = 84;
const SET_USER_EVENT_STATUS: usize = 85;
const READ_BUFFER_RECT: usize = 86;
const WRITE_BUFFER_RECT: usize = 87;
const COPY_BUFFER_RECT: usize = 88;
const COMPILE_PROGRAM: usize = 98;
const GET_KERNEL_ARG_INFO: usize = 101;
const FILL_BUFFER: usize = 102;
const MIGRATE: usize = 104;
const MARKER_WITH_WAIT_LIST: usize = 105;
const BARRIER_WITH_WAIT_LIST: usize = 106;
const GET_EXTENSION_FUNCTION_ADDRESS_FOR_PLATFORM: usize = 107;
const CREATE_COMMAND_QUEUE_WITH_PROPERTIES: usize = 123;
const CLONE_KERNEL: usize = 137;
const CREATE_BUFFER_WITH_PROPERTIES: usize = 146;

const CL_MEM_USE_HOST_PTR: u64 = 1 << 3;
const CL_MEM_COPY_HOST_PTR: u64 = 1 << 5;
const CL_MEM_SIZE: u32 = 0x1102;
const CL_MEM_CONTEXT: u32 = 0x1106;
const CL_QUEUE_CONTEXT: u32 = 0x1090;
const CL_QUEUE_DEVICE: u32 = 0x1091;
const CL_CONTEXT_DEVICES: u32 = 0x1081;
const CL_QUEUE_PROPERTIES: u32 = 0x1093;
const CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE: u64 = 1;
const CL_KERNEL_FUNCTION_NAME: u32 = 0x1190;
const CL_KERNEL_NUM_ARGS: u32 = 0x1191;
const CL_KERNEL_CONTEXT: u32 = 0x1193;
const CL_KERNEL_ARG_ADDRESS_QUALIFIER: u32 = 0x1196;
const CL_KERNEL_ARG_TYPE_NAME: u32 = 0x1198;
const CL_KERNEL_ARG_TYPE_QUALIFIER: u32 = 0x1199;
const CL_KERNEL_ARG_NAME: u32 = 0x119A;
const CL_KERNEL_ARG_ADDRESS_GLOBAL: u32 = 0x119B;
const CL_KERNEL_ARG_ADDRESS_CONSTANT: u32 = 0x119D;
const CL_KERNEL_ARG_TYPE_CONST: u64 = 1;
const CL_MAP_READ: u64 = 1;
const CL_BUFFER_CREATE_TYPE_REGION: u32 = 0x1220;
const CL_COMPLETE: i32 = 0;
const KERNEL_ARG_INFO: &str = "-cl-kernel-arg-info";

/// `(dispatch index, wrapper address)` of every wrapped entry point.
pub fn wrappers() -> Vec<(usize, usize)> {
    vec![
        (CREATE_BUFFER, create_buffer as *const () as usize),
        (
            CREATE_BUFFER_WITH_PROPERTIES,
            create_buffer_with_properties as *const () as usize,
        ),
        (CREATE_SUB_BUFFER, create_sub_buffer as *const () as usize),
        (
            CREATE_FROM_GL_BUFFER,
            create_from_gl_buffer as *const () as usize,
        ),
        (RETAIN_MEM, retain_mem as *const () as usize),
        (RELEASE_MEM, release_mem as *const () as usize),
        (
            CREATE_COMMAND_QUEUE,
            create_command_queue as *const () as usize,
        ),
        (
            CREATE_COMMAND_QUEUE_WITH_PROPERTIES,
            create_command_queue_with_properties as *const () as usize,
        ),
        (BUILD_PROGRAM, build_program as *const () as usize),
        (COMPILE_PROGRAM, compile_program as *const () as usize),
        (CREATE_KERNEL, create_kernel as *const () as usize),
        (
            CREATE_KERNELS_IN_PROGRAM,
            create_kernels_in_program as *const () as usize,
        ),
        (CLONE_KERNEL, clone_kernel as *const () as usize),
        (SET_KERNEL_ARG, set_kernel_arg as *const () as usize),
        (WAIT_FOR_EVENTS, wait_for_events as *const () as usize),
        (RETAIN_EVENT, retain_event as *const () as usize),
        (RELEASE_EVENT, release_event as *const () as usize),
        (FINISH, finish as *const () as usize),
        (READ_BUFFER, read_buffer as *const () as usize),
        (WRITE_BUFFER, write_buffer as *const () as usize),
        (COPY_BUFFER, copy_buffer as *const () as usize),
        (READ_BUFFER_RECT, read_buffer_rect as *const () as usize),
        (WRITE_BUFFER_RECT, write_buffer_rect as *const () as usize),
        (COPY_BUFFER_RECT, copy_buffer_rect as *const () as usize),
        (FILL_BUFFER, fill_buffer as *const () as usize),
        (MAP_BUFFER, map_buffer as *const () as usize),
        (UNMAP, unmap as *const () as usize),
        (ND_RANGE_KERNEL, nd_range_kernel as *const () as usize),
        (TASK, task as *const () as usize),
        (MARKER, marker as *const () as usize),
        (
            WAIT_FOR_EVENTS_ENQUEUED,
            enqueue_wait_for_events as *const () as usize,
        ),
        (BARRIER, barrier as *const () as usize),
        (
            MARKER_WITH_WAIT_LIST,
            marker_with_wait_list as *const () as usize,
        ),
        (
            BARRIER_WITH_WAIT_LIST,
            barrier_with_wait_list as *const () as usize,
        ),
        (MIGRATE, migrate as *const () as usize),
        (CREATE_USER_EVENT, create_user_event as *const () as usize),
        (
            SET_USER_EVENT_STATUS,
            set_user_event_status as *const () as usize,
        ),
        (
            GET_EXTENSION_FUNCTION_ADDRESS_FOR_PLATFORM,
            get_extension_function_address_for_platform as *const () as usize,
        ),
    ]
}

/// Calls on into the loader's entry `$index` of type `$ty`; a missing entry (the wrapper is
/// only installed where the loader has one) is `CL_INVALID_OPERATION`.
macro_rules! down {
    ($index:expr, $ty:ty, $($arg:expr),* $(,)?) => {
        match target::<$ty>($index) {
            Some(f) => f($($arg),*),
            None => return invalid(),
        }
    };
}

/// What a wrapper returns when the loader has no such entry.
trait Invalid {
    fn invalid() -> Self;
}
impl Invalid for i32 {
    fn invalid() -> i32 {
        -59
    }
}
impl Invalid for H {
    fn invalid() -> H {
        std::ptr::null_mut()
    }
}
fn invalid<T: Invalid>() -> T {
    T::invalid()
}

type InfoFn = unsafe extern "C" fn(H, u32, usize, *mut c_void, *mut usize) -> i32;
type ArgInfoFn = unsafe extern "C" fn(H, u32, u32, usize, *mut c_void, *mut usize) -> i32;

/// A fixed-size value from a `clGet*Info` entry.
unsafe fn info<T: Copy + Default>(index: usize, object: H, param: u32) -> Option<T> {
    let f = target::<InfoFn>(index)?;
    let mut value = T::default();
    let size = std::mem::size_of::<T>();
    (f(
        object,
        param,
        size,
        (&mut value as *mut T).cast(),
        std::ptr::null_mut(),
    ) == CL_SUCCESS)
        .then_some(value)
}

/// A string from a `clGet*Info`-like call.
unsafe fn info_string(query: impl Fn(usize, *mut c_void, *mut usize) -> i32) -> Option<String> {
    let mut size = 0usize;
    if query(0, std::ptr::null_mut(), &mut size) != CL_SUCCESS || size == 0 {
        return None;
    }
    let mut buf = vec![0u8; size];
    if query(size, buf.as_mut_ptr().cast(), std::ptr::null_mut()) != CL_SUCCESS {
        return None;
    }
    let end = buf.iter().position(|b| *b == 0).unwrap_or(buf.len());
    Some(String::from_utf8_lossy(&buf[..end]).into_owned())
}

/// Makes sure the model knows the queue's device and properties.
unsafe fn know_queue(queue: H) {
    if model().queue_known(queue as Handle) {
        return;
    }
    let device: Handle = info(GET_QUEUE_INFO, queue, CL_QUEUE_DEVICE).unwrap_or(0);
    let properties: u64 = info(GET_QUEUE_INFO, queue, CL_QUEUE_PROPERTIES).unwrap_or(0);
    let context: Handle = info(GET_QUEUE_INFO, queue, CL_QUEUE_CONTEXT).unwrap_or(0);
    let devices = target::<InfoFn>(GET_CONTEXT_INFO)
        .map(|f| {
            let mut size = 0usize;
            let query = |s: usize, v: *mut c_void, r: *mut usize| {
                f(context as H, CL_CONTEXT_DEVICES, s, v, r)
            };
            if query(0, std::ptr::null_mut(), &mut size) != CL_SUCCESS {
                return Vec::new();
            }
            let mut ids = vec![0 as Handle; size / std::mem::size_of::<Handle>()];
            if query(size, ids.as_mut_ptr().cast(), std::ptr::null_mut()) != CL_SUCCESS {
                return Vec::new();
            }
            ids
        })
        .unwrap_or_default();
    let index = devices.iter().position(|d| *d == device).unwrap_or(0);
    model().add_queue(
        queue as Handle,
        device,
        (index, devices.len()),
        properties & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE != 0,
    );
}

/// Makes sure the model knows the kernel's signature (from `clGetKernelArgInfo`, which the
/// layer enables with `-cl-kernel-arg-info` at build).
unsafe fn know_kernel(kernel: H) {
    if model().signature(kernel as Handle).is_some() {
        return;
    }
    let name = target::<InfoFn>(GET_KERNEL_INFO)
        .and_then(|f| info_string(|s, v, r| f(kernel, CL_KERNEL_FUNCTION_NAME, s, v, r)))
        .unwrap_or_default();
    let context: Handle = info(GET_KERNEL_INFO, kernel, CL_KERNEL_CONTEXT).unwrap_or(0);
    let params = info::<u32>(GET_KERNEL_INFO, kernel, CL_KERNEL_NUM_ARGS)
        .and_then(|n| (0..n).map(|i| param(kernel, i)).collect());
    model().set_signature(
        kernel as Handle,
        Signature {
            name,
            context,
            params,
        },
    );
}

unsafe fn param(kernel: H, index: u32) -> Option<Param> {
    let f = target::<ArgInfoFn>(GET_KERNEL_ARG_INFO)?;
    let fixed = |param: u32, out: &mut [u8]| {
        f(
            kernel,
            index,
            param,
            out.len(),
            out.as_mut_ptr().cast(),
            std::ptr::null_mut(),
        ) == CL_SUCCESS
    };
    let mut address = [0u8; 4];
    let mut qualifier = [0u8; 8];
    if !fixed(CL_KERNEL_ARG_ADDRESS_QUALIFIER, &mut address)
        || !fixed(CL_KERNEL_ARG_TYPE_QUALIFIER, &mut qualifier)
    {
        return None;
    }
    let address = u32::from_ne_bytes(address);
    let qualifier = u64::from_ne_bytes(qualifier);
    let type_name = info_string(|s, v, r| f(kernel, index, CL_KERNEL_ARG_TYPE_NAME, s, v, r))?;
    let name =
        info_string(|s, v, r| f(kernel, index, CL_KERNEL_ARG_NAME, s, v, r)).unwrap_or_default();
    let pointer = type_name.trim_end().ends_with('*');
    Some(Param {
        buffer: pointer
            && (address == CL_KERNEL_ARG_ADDRESS_GLOBAL
                || address == CL_KERNEL_ARG_ADDRESS_CONSTANT),
        read_only: qualifier & CL_KERNEL_ARG_TYPE_CONST != 0
            || address == CL_KERNEL_ARG_ADDRESS_CONSTANT,
        name,
        type_name,
    })
}

unsafe fn wait_list<'a>(n: u32, list: *const Ev) -> &'a [Handle] {
    if n == 0 || list.is_null() {
        &[]
    } else {
        std::slice::from_raw_parts(list.cast::<Handle>(), n as *const () as usize)
    }
}

/// Records an enqueued command, its event and findings.
unsafe fn enqueued(
    queue: H,
    kind: Kind,
    accesses: Vec<Option<Access>>,
    waits: &[Handle],
    event: *mut Ev,
    created_by: &'static str,
    site: Site,
) -> usize {
    let (node, findings) = {
        let mut m = model();
        let (node, findings) = m.enqueue(Command {
            queue: queue as Handle,
            kind,
            accesses: accesses.into_iter().flatten().collect(),
            waits,
            site: site.clone(),
        });
        if !event.is_null() && !(*event).is_null() && node != usize::MAX {
            m.add_event(*event as Handle, Some(node), created_by, &site);
        }
        (node, findings)
    };
    report(findings);
    node
}

unsafe fn host_hash(ptr: *const c_void, size: usize) -> Option<u64> {
    (!ptr.is_null() && size > 0)
        .then(|| hash_bytes(std::slice::from_raw_parts(ptr.cast::<u8>(), size)))
}

unsafe extern "C" fn create_buffer(ctx: H, flags: u64, size: usize, host: H, err: *mut i32) -> H {
    let mem = down!(
        CREATE_BUFFER,
        unsafe extern "C" fn(H, u64, usize, H, *mut i32) -> H,
        ctx,
        flags,
        size,
        host,
        err
    );
    new_buffer(mem, ctx, flags, size, host);
    mem
}

unsafe extern "C" fn create_buffer_with_properties(
    ctx: H,
    props: *const u64,
    flags: u64,
    size: usize,
    host: H,
    err: *mut i32,
) -> H {
    let mem = down!(
        CREATE_BUFFER_WITH_PROPERTIES,
        unsafe extern "C" fn(H, *const u64, u64, usize, H, *mut i32) -> H,
        ctx,
        props,
        flags,
        size,
        host,
        err
    );
    new_buffer(mem, ctx, flags, size, host);
    mem
}

unsafe fn new_buffer(mem: H, ctx: H, flags: u64, size: usize, host: H) {
    if mem.is_null() {
        return;
    }
    let host_init = if flags & (CL_MEM_COPY_HOST_PTR | CL_MEM_USE_HOST_PTR) == CL_MEM_COPY_HOST_PTR
    {
        host_hash(host, size)
    } else {
        None
    };
    let site = Site::capture();
    model().add_buffer(mem as Handle, ctx as Handle, size, host_init, &site);
}

unsafe extern "C" fn create_from_gl_buffer(ctx: H, flags: u64, object: u32, err: *mut i32) -> H {
    let mem = down!(
        CREATE_FROM_GL_BUFFER,
        unsafe extern "C" fn(H, u64, u32, *mut i32) -> H,
        ctx,
        flags,
        object,
        err
    );
    if !mem.is_null() {
        let size: usize = info(GET_MEM_INFO, mem, CL_MEM_SIZE).unwrap_or(0);
        let context: Handle = info(GET_MEM_INFO, mem, CL_MEM_CONTEXT).unwrap_or(ctx as Handle);
        model().add_buffer(mem as Handle, context, size, None, &Site::capture());
    }
    mem
}

unsafe extern "C" fn create_sub_buffer(
    parent: H,
    flags: u64,
    create_type: u32,
    create_info: *const c_void,
    err: *mut i32,
) -> H {
    let mem = down!(
        CREATE_SUB_BUFFER,
        unsafe extern "C" fn(H, u64, u32, *const c_void, *mut i32) -> H,
        parent,
        flags,
        create_type,
        create_info,
        err
    );
    if !mem.is_null() && create_type == CL_BUFFER_CREATE_TYPE_REGION && !create_info.is_null() {
        let region = std::slice::from_raw_parts(create_info.cast::<usize>(), 2);
        model().add_sub_buffer(mem as Handle, parent as Handle, region[0], region[1]);
    }
    mem
}

unsafe extern "C" fn retain_mem(mem: H) -> i32 {
    let r = down!(RETAIN_MEM, unsafe extern "C" fn(H) -> i32, mem);
    if r == CL_SUCCESS {
        model().retain_mem(mem as Handle);
    }
    r
}

unsafe extern "C" fn release_mem(mem: H) -> i32 {
    let r = down!(RELEASE_MEM, unsafe extern "C" fn(H) -> i32, mem);
    if r == CL_SUCCESS {
        model().release_mem(mem as Handle);
    }
    r
}

unsafe extern "C" fn create_command_queue(ctx: H, device: H, props: u64, err: *mut i32) -> H {
    let q = down!(
        CREATE_COMMAND_QUEUE,
        unsafe extern "C" fn(H, H, u64, *mut i32) -> H,
        ctx,
        device,
        props,
        err
    );
    if !q.is_null() {
        model().new_queue(q as Handle);
    }
    q
}

unsafe extern "C" fn create_command_queue_with_properties(
    ctx: H,
    device: H,
    props: *const u64,
    err: *mut i32,
) -> H {
    let q = down!(
        CREATE_COMMAND_QUEUE_WITH_PROPERTIES,
        unsafe extern "C" fn(H, H, *const u64, *mut i32) -> H,
        ctx,
        device,
        props,
        err
    );
    if !q.is_null() {
        model().new_queue(q as Handle);
    }
    q
}

/// The build options with `-cl-kernel-arg-info` added, when they lack it.
unsafe fn with_arg_info(options: *const c_char) -> Option<CString> {
    let given = if options.is_null() {
        String::new()
    } else {
        CStr::from_ptr(options).to_string_lossy().into_owned()
    };
    if given.split_whitespace().any(|o| o == KERNEL_ARG_INFO) {
        return None;
    }
    CString::new(format!("{given} {KERNEL_ARG_INFO}")).ok()
}

type BuildFn = unsafe extern "C" fn(H, u32, *const H, *const c_char, Notify, H) -> i32;

/// `clBuildProgram` with `-cl-kernel-arg-info`, so that the layer learns which kernel
/// parameters take buffers and which only read them; built as given when the driver refuses.
unsafe extern "C" fn build_program(
    program: H,
    n: u32,
    devices: *const H,
    options: *const c_char,
    notify: Notify,
    data: H,
) -> i32 {
    if let Some(opts) = with_arg_info(options) {
        if notify.is_null() {
            let r = down!(
                BUILD_PROGRAM,
                BuildFn,
                program,
                n,
                devices,
                opts.as_ptr(),
                notify,
                data
            );
            if r == CL_SUCCESS {
                return r;
            }
        }
    }
    down!(
        BUILD_PROGRAM,
        BuildFn,
        program,
        n,
        devices,
        options,
        notify,
        data
    )
}

type CompileFn = unsafe extern "C" fn(
    H,
    u32,
    *const H,
    *const c_char,
    u32,
    *const H,
    *const *const c_char,
    Notify,
    H,
) -> i32;

unsafe extern "C" fn compile_program(
    program: H,
    n: u32,
    devices: *const H,
    options: *const c_char,
    headers: u32,
    header_programs: *const H,
    header_names: *const *const c_char,
    notify: Notify,
    data: H,
) -> i32 {
    if let Some(opts) = with_arg_info(options) {
        if notify.is_null() {
            let r = down!(
                COMPILE_PROGRAM,
                CompileFn,
                program,
                n,
                devices,
                opts.as_ptr(),
                headers,
                header_programs,
                header_names,
                notify,
                data
            );
            if r == CL_SUCCESS {
                return r;
            }
        }
    }
    down!(
        COMPILE_PROGRAM,
        CompileFn,
        program,
        n,
        devices,
        options,
        headers,
        header_programs,
        header_names,
        notify,
        data
    )
}

unsafe extern "C" fn create_kernel(program: H, name: *const c_char, err: *mut i32) -> H {
    let k = down!(
        CREATE_KERNEL,
        unsafe extern "C" fn(H, *const c_char, *mut i32) -> H,
        program,
        name,
        err
    );
    if !k.is_null() {
        model().new_kernel(k as Handle);
    }
    k
}

unsafe extern "C" fn create_kernels_in_program(
    program: H,
    n: u32,
    kernels: *mut H,
    n_ret: *mut u32,
) -> i32 {
    let r = down!(
        CREATE_KERNELS_IN_PROGRAM,
        unsafe extern "C" fn(H, u32, *mut H, *mut u32) -> i32,
        program,
        n,
        kernels,
        n_ret
    );
    if r == CL_SUCCESS && !kernels.is_null() {
        let mut m = model();
        for k in std::slice::from_raw_parts(kernels, n as *const () as usize) {
            m.new_kernel(*k as Handle);
        }
    }
    r
}

unsafe extern "C" fn clone_kernel(source: H, err: *mut i32) -> H {
    let k = down!(
        CLONE_KERNEL,
        unsafe extern "C" fn(H, *mut i32) -> H,
        source,
        err
    );
    if !k.is_null() {
        model().clone_kernel(source as Handle, k as Handle);
    }
    k
}

unsafe extern "C" fn set_kernel_arg(
    kernel: H,
    index: u32,
    size: usize,
    value: *const c_void,
) -> i32 {
    know_kernel(kernel);
    let handle = (size == std::mem::size_of::<Handle>() && !value.is_null())
        .then(|| value.cast::<Handle>().read_unaligned());
    let site = Site::capture();
    let finding = model().set_kernel_arg(kernel as Handle, index, size, handle, &site);
    report(finding.into_iter().collect());
    down!(
        SET_KERNEL_ARG,
        unsafe extern "C" fn(H, u32, usize, *const c_void) -> i32,
        kernel,
        index,
        size,
        value
    )
}

unsafe extern "C" fn wait_for_events(n: u32, list: *const Ev) -> i32 {
    let r = down!(
        WAIT_FOR_EVENTS,
        unsafe extern "C" fn(u32, *const Ev) -> i32,
        n,
        list
    );
    if r == CL_SUCCESS {
        model().events_done(wait_list(n, list));
    }
    r
}

unsafe extern "C" fn retain_event(event: Ev) -> i32 {
    let r = down!(RETAIN_EVENT, unsafe extern "C" fn(Ev) -> i32, event);
    if r == CL_SUCCESS {
        model().retain_event(event as Handle);
    }
    r
}

unsafe extern "C" fn release_event(event: Ev) -> i32 {
    let r = down!(RELEASE_EVENT, unsafe extern "C" fn(Ev) -> i32, event);
    if r == CL_SUCCESS {
        model().release_event(event as Handle);
    }
    r
}

unsafe extern "C" fn finish(queue: H) -> i32 {
    let r = down!(FINISH, unsafe extern "C" fn(H) -> i32, queue);
    if r == CL_SUCCESS {
        model().finish(queue as Handle);
    }
    r
}

type ReadFn = unsafe extern "C" fn(H, H, u32, usize, usize, H, u32, *const Ev, *mut Ev) -> i32;
type WriteFn =
    unsafe extern "C" fn(H, H, u32, usize, usize, *const c_void, u32, *const Ev, *mut Ev) -> i32;

unsafe extern "C" fn read_buffer(
    queue: H,
    mem: H,
    blocking: u32,
    offset: usize,
    size: usize,
    ptr: H,
    n: u32,
    list: *const Ev,
    event: *mut Ev,
) -> i32 {
    let site = Site::capture();
    let r = down!(
        READ_BUFFER,
        ReadFn,
        queue,
        mem,
        blocking,
        offset,
        size,
        ptr,
        n,
        list,
        event
    );
    if r == CL_SUCCESS {
        know_queue(queue);
        let access = model().access(mem as Handle, offset, size, Mode::Read);
        let node = enqueued(
            queue,
            Kind::Read,
            vec![access],
            wait_list(n, list),
            event,
            "clEnqueueReadBuffer",
            site,
        );
        if blocking != 0 {
            model().done(node);
        }
    }
    r
}

unsafe extern "C" fn write_buffer(
    queue: H,
    mem: H,
    blocking: u32,
    offset: usize,
    size: usize,
    ptr: *const c_void,
    n: u32,
    list: *const Ev,
    event: *mut Ev,
) -> i32 {
    let site = Site::capture();
    let hash = host_hash(ptr, size);
    let r = down!(
        WRITE_BUFFER,
        WriteFn,
        queue,
        mem,
        blocking,
        offset,
        size,
        ptr,
        n,
        list,
        event
    );
    if r == CL_SUCCESS {
        know_queue(queue);
        let access = model().access(mem as Handle, offset, size, Mode::Write);
        let upload = match (&access, hash) {
            (Some(a), Some(h)) => model().upload(a, h, &site),
            _ => None,
        };
        report(upload.into_iter().collect());
        // A blocking write only lets the host reuse `ptr`: the command need not have
        // completed, so it orders nothing.
        enqueued(
            queue,
            Kind::Write,
            vec![access],
            wait_list(n, list),
            event,
            "clEnqueueWriteBuffer",
            site,
        );
    }
    r
}

unsafe extern "C" fn copy_buffer(
    queue: H,
    src: H,
    dst: H,
    src_offset: usize,
    dst_offset: usize,
    size: usize,
    n: u32,
    list: *const Ev,
    event: *mut Ev,
) -> i32 {
    let site = Site::capture();
    let r = down!(
        COPY_BUFFER,
        unsafe extern "C" fn(H, H, H, usize, usize, usize, u32, *const Ev, *mut Ev) -> i32,
        queue,
        src,
        dst,
        src_offset,
        dst_offset,
        size,
        n,
        list,
        event
    );
    if r == CL_SUCCESS {
        know_queue(queue);
        let accesses = {
            let m = model();
            vec![
                m.access(src as Handle, src_offset, size, Mode::Read),
                m.access(dst as Handle, dst_offset, size, Mode::Write),
            ]
        };
        enqueued(
            queue,
            Kind::Copy,
            accesses,
            wait_list(n, list),
            event,
            "clEnqueueCopyBuffer",
            site,
        );
    }
    r
}

/// The bytes a rectangle covers in a buffer: `(offset, size)`.
unsafe fn rect(
    origin: *const usize,
    region: *const usize,
    row: usize,
    slice: usize,
) -> Option<(usize, usize)> {
    if origin.is_null() || region.is_null() {
        return None;
    }
    let o = std::slice::from_raw_parts(origin, 3);
    let r = std::slice::from_raw_parts(region, 3);
    let row = if row == 0 { r[0] } else { row };
    let slice = if slice == 0 { r[1] * row } else { slice };
    let start = o[2] * slice + o[1] * row + o[0];
    let size = r[2].saturating_sub(1) * slice + r[1].saturating_sub(1) * row + r[0];
    Some((start, size))
}

type RectFn = unsafe extern "C" fn(
    H,
    H,
    u32,
    *const usize,
    *const usize,
    *const usize,
    usize,
    usize,
    usize,
    usize,
    H,
    u32,
    *const Ev,
    *mut Ev,
) -> i32;

unsafe extern "C" fn read_buffer_rect(
    queue: H,
    mem: H,
    blocking: u32,
    buffer_origin: *const usize,
    host_origin: *const usize,
    region: *const usize,
    buffer_row: usize,
    buffer_slice: usize,
    host_row: usize,
    host_slice: usize,
    ptr: H,
    n: u32,
    list: *const Ev,
    event: *mut Ev,
) -> i32 {
    let site = Site::capture();
    let r = down!(
        READ_BUFFER_RECT,
        RectFn,
        queue,
        mem,
        blocking,
        buffer_origin,
        host_origin,
        region,
        buffer_row,
        buffer_slice,
        host_row,
        host_slice,
        ptr,
        n,
        list,
        event
    );
    if r == CL_SUCCESS {
        know_queue(queue);
        let access = rect(buffer_origin, region, buffer_row, buffer_slice)
            .and_then(|(o, s)| model().access(mem as Handle, o, s, Mode::Read));
        let node = enqueued(
            queue,
            Kind::Read,
            vec![access],
            wait_list(n, list),
            event,
            "clEnqueueReadBufferRect",
            site,
        );
        if blocking != 0 {
            model().done(node);
        }
    }
    r
}

unsafe extern "C" fn write_buffer_rect(
    queue: H,
    mem: H,
    blocking: u32,
    buffer_origin: *const usize,
    host_origin: *const usize,
    region: *const usize,
    buffer_row: usize,
    buffer_slice: usize,
    host_row: usize,
    host_slice: usize,
    ptr: H,
    n: u32,
    list: *const Ev,
    event: *mut Ev,
) -> i32 {
    let site = Site::capture();
    let r = down!(
        WRITE_BUFFER_RECT,
        RectFn,
        queue,
        mem,
        blocking,
        buffer_origin,
        host_origin,
        region,
        buffer_row,
        buffer_slice,
        host_row,
        host_slice,
        ptr,
        n,
        list,
        event
    );
    if r == CL_SUCCESS {
        know_queue(queue);
        let access = rect(buffer_origin, region, buffer_row, buffer_slice)
            .and_then(|(o, s)| model().access(mem as Handle, o, s, Mode::Write));
        enqueued(
            queue,
            Kind::Write,
            vec![access],
            wait_list(n, list),
            event,
            "clEnqueueWriteBufferRect",
            site,
        );
    }
    r
}

unsafe extern "C" fn copy_buffer_rect(
    queue: H,
    src: H,
    dst: H,
    src_origin: *const usize,
    dst_origin: *const usize,
    region: *const usize,
    src_row: usize,
    src_slice: usize,
    dst_row: usize,
    dst_slice: usize,
    n: u32,
    list: *const Ev,
    event: *mut Ev,
) -> i32 {
    let site = Site::capture();
    let r = down!(
        COPY_BUFFER_RECT,
        unsafe extern "C" fn(
            H,
            H,
            H,
            *const usize,
            *const usize,
            *const usize,
            usize,
            usize,
            usize,
            usize,
            u32,
            *const Ev,
            *mut Ev,
        ) -> i32,
        queue,
        src,
        dst,
        src_origin,
        dst_origin,
        region,
        src_row,
        src_slice,
        dst_row,
        dst_slice,
        n,
        list,
        event
    );
    if r == CL_SUCCESS {
        know_queue(queue);
        let accesses = {
            let m = model();
            vec![
                rect(src_origin, region, src_row, src_slice)
                    .and_then(|(o, s)| m.access(src as Handle, o, s, Mode::Read)),
                rect(dst_origin, region, dst_row, dst_slice)
                    .and_then(|(o, s)| m.access(dst as Handle, o, s, Mode::Write)),
            ]
        };
        enqueued(
            queue,
            Kind::Copy,
            accesses,
            wait_list(n, list),
            event,
            "clEnqueueCopyBufferRect",
            site,
        );
    }
    r
}

unsafe extern "C" fn fill_buffer(
    queue: H,
    mem: H,
    pattern: *const c_void,
    pattern_size: usize,
    offset: usize,
    size: usize,
    n: u32,
    list: *const Ev,
    event: *mut Ev,
) -> i32 {
    let site = Site::capture();
    let r = down!(
        FILL_BUFFER,
        unsafe extern "C" fn(
            H,
            H,
            *const c_void,
            usize,
            usize,
            usize,
            u32,
            *const Ev,
            *mut Ev,
        ) -> i32,
        queue,
        mem,
        pattern,
        pattern_size,
        offset,
        size,
        n,
        list,
        event
    );
    if r == CL_SUCCESS {
        know_queue(queue);
        let access = model().access(mem as Handle, offset, size, Mode::Write);
        enqueued(
            queue,
            Kind::Fill,
            vec![access],
            wait_list(n, list),
            event,
            "clEnqueueFillBuffer",
            site,
        );
    }
    r
}

unsafe extern "C" fn map_buffer(
    queue: H,
    mem: H,
    blocking: u32,
    flags: u64,
    offset: usize,
    size: usize,
    n: u32,
    list: *const Ev,
    event: *mut Ev,
    err: *mut i32,
) -> H {
    let site = Site::capture();
    let ptr = down!(
        MAP_BUFFER,
        unsafe extern "C" fn(H, H, u32, u64, usize, usize, u32, *const Ev, *mut Ev, *mut i32) -> H,
        queue,
        mem,
        blocking,
        flags,
        offset,
        size,
        n,
        list,
        event,
        err
    );
    if !ptr.is_null() {
        know_queue(queue);
        let mode = if flags == CL_MAP_READ {
            Mode::Read
        } else {
            Mode::ReadWrite
        };
        let access = {
            let mut m = model();
            m.map(ptr as usize, mem as Handle, mode);
            m.access(mem as Handle, offset, size, mode)
        };
        let node = enqueued(
            queue,
            Kind::Map,
            vec![access],
            wait_list(n, list),
            event,
            "clEnqueueMapBuffer",
            site,
        );
        if blocking != 0 {
            model().done(node);
        }
    }
    ptr
}

unsafe extern "C" fn unmap(
    queue: H,
    mem: H,
    ptr: H,
    n: u32,
    list: *const Ev,
    event: *mut Ev,
) -> i32 {
    let site = Site::capture();
    let r = down!(
        UNMAP,
        unsafe extern "C" fn(H, H, H, u32, *const Ev, *mut Ev) -> i32,
        queue,
        mem,
        ptr,
        n,
        list,
        event
    );
    if r == CL_SUCCESS {
        know_queue(queue);
        let access = {
            let mut m = model();
            let mode = m
                .unmap(ptr as *const () as usize)
                .map_or(Mode::ReadWrite, |(_, mode)| mode);
            m.whole(mem as Handle, mode)
        };
        enqueued(
            queue,
            Kind::Unmap,
            vec![access],
            wait_list(n, list),
            event,
            "clEnqueueUnmapMemObject",
            site,
        );
    }
    r
}

unsafe fn kernel_launch(
    queue: H,
    kernel: H,
    n: u32,
    list: *const Ev,
    event: *mut Ev,
    created_by: &'static str,
    site: Site,
) {
    know_queue(queue);
    know_kernel(kernel);
    let (name, accesses) = {
        let m = model();
        (
            m.kernel_name(kernel as Handle),
            m.kernel_accesses(kernel as Handle),
        )
    };
    enqueued(
        queue,
        Kind::Kernel(name),
        accesses.into_iter().map(Some).collect(),
        wait_list(n, list),
        event,
        created_by,
        site,
    );
}

unsafe extern "C" fn nd_range_kernel(
    queue: H,
    kernel: H,
    dim: u32,
    offset: *const usize,
    global: *const usize,
    local: *const usize,
    n: u32,
    list: *const Ev,
    event: *mut Ev,
) -> i32 {
    let site = Site::capture();
    let r = down!(
        ND_RANGE_KERNEL,
        unsafe extern "C" fn(
            H,
            H,
            u32,
            *const usize,
            *const usize,
            *const usize,
            u32,
            *const Ev,
            *mut Ev,
        ) -> i32,
        queue,
        kernel,
        dim,
        offset,
        global,
        local,
        n,
        list,
        event
    );
    if r == CL_SUCCESS {
        kernel_launch(
            queue,
            kernel,
            n,
            list,
            event,
            "clEnqueueNDRangeKernel",
            site,
        );
    }
    r
}

unsafe extern "C" fn task(queue: H, kernel: H, n: u32, list: *const Ev, event: *mut Ev) -> i32 {
    let site = Site::capture();
    let r = down!(
        TASK,
        unsafe extern "C" fn(H, H, u32, *const Ev, *mut Ev) -> i32,
        queue,
        kernel,
        n,
        list,
        event
    );
    if r == CL_SUCCESS {
        kernel_launch(queue, kernel, n, list, event, "clEnqueueTask", site);
    }
    r
}

unsafe extern "C" fn marker(queue: H, event: *mut Ev) -> i32 {
    let site = Site::capture();
    let r = down!(
        MARKER,
        unsafe extern "C" fn(H, *mut Ev) -> i32,
        queue,
        event
    );
    if r == CL_SUCCESS {
        know_queue(queue);
        enqueued(
            queue,
            Kind::Marker,
            Vec::new(),
            &[],
            event,
            "clEnqueueMarker",
            site,
        );
    }
    r
}

unsafe extern "C" fn enqueue_wait_for_events(queue: H, n: u32, list: *const Ev) -> i32 {
    let site = Site::capture();
    let r = down!(
        WAIT_FOR_EVENTS_ENQUEUED,
        unsafe extern "C" fn(H, u32, *const Ev) -> i32,
        queue,
        n,
        list
    );
    if r == CL_SUCCESS {
        know_queue(queue);
        enqueued(
            queue,
            Kind::Barrier,
            Vec::new(),
            wait_list(n, list),
            std::ptr::null_mut(),
            "",
            site,
        );
    }
    r
}

unsafe extern "C" fn barrier(queue: H) -> i32 {
    let site = Site::capture();
    let r = down!(BARRIER, unsafe extern "C" fn(H) -> i32, queue);
    if r == CL_SUCCESS {
        know_queue(queue);
        enqueued(
            queue,
            Kind::Barrier,
            Vec::new(),
            &[],
            std::ptr::null_mut(),
            "",
            site,
        );
    }
    r
}

unsafe extern "C" fn marker_with_wait_list(
    queue: H,
    n: u32,
    list: *const Ev,
    event: *mut Ev,
) -> i32 {
    let site = Site::capture();
    let r = down!(
        MARKER_WITH_WAIT_LIST,
        unsafe extern "C" fn(H, u32, *const Ev, *mut Ev) -> i32,
        queue,
        n,
        list,
        event
    );
    if r == CL_SUCCESS {
        know_queue(queue);
        enqueued(
            queue,
            Kind::Marker,
            Vec::new(),
            wait_list(n, list),
            event,
            "clEnqueueMarkerWithWaitList",
            site,
        );
    }
    r
}

unsafe extern "C" fn barrier_with_wait_list(
    queue: H,
    n: u32,
    list: *const Ev,
    event: *mut Ev,
) -> i32 {
    let site = Site::capture();
    let r = down!(
        BARRIER_WITH_WAIT_LIST,
        unsafe extern "C" fn(H, u32, *const Ev, *mut Ev) -> i32,
        queue,
        n,
        list,
        event
    );
    if r == CL_SUCCESS {
        know_queue(queue);
        enqueued(
            queue,
            Kind::Barrier,
            Vec::new(),
            wait_list(n, list),
            event,
            "clEnqueueBarrierWithWaitList",
            site,
        );
    }
    r
}

type MigrateFn = unsafe extern "C" fn(H, u32, *const H, u64, u32, *const Ev, *mut Ev) -> i32;

unsafe extern "C" fn migrate(
    queue: H,
    n_mems: u32,
    mems: *const H,
    flags: u64,
    n: u32,
    list: *const Ev,
    event: *mut Ev,
) -> i32 {
    let site = Site::capture();
    let r = down!(MIGRATE, MigrateFn, queue, n_mems, mems, flags, n, list, event);
    if r == CL_SUCCESS {
        migrated(
            queue,
            n_mems,
            mems,
            flags,
            n,
            list,
            event,
            "clEnqueueMigrateMemObjects",
            site,
        );
    }
    r
}

#[allow(clippy::too_many_arguments)]
unsafe fn migrated(
    queue: H,
    n_mems: u32,
    mems: *const H,
    flags: u64,
    n: u32,
    list: *const Ev,
    event: *mut Ev,
    created_by: &'static str,
    site: Site,
) {
    know_queue(queue);
    let accesses = if mems.is_null() {
        Vec::new()
    } else {
        let m = model();
        std::slice::from_raw_parts(mems, n_mems as *const () as usize)
            .iter()
            .map(|mem| m.whole(*mem as Handle, Mode::Read))
            .collect()
    };
    enqueued(
        queue,
        Kind::Migrate { flags },
        accesses,
        wait_list(n, list),
        event,
        created_by,
        site,
    );
}

/// The driver's `clEnqueueMigrateMemObjectEXT` (`cl_ext_migrate_memobject`), which the
/// wrapper returned by `clGetExtensionFunctionAddressForPlatform` calls on into.
static MIGRATE_EXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

unsafe extern "C" fn migrate_ext(
    queue: H,
    n_mems: u32,
    mems: *const H,
    flags: u64,
    n: u32,
    list: *const Ev,
    event: *mut Ev,
) -> i32 {
    let site = Site::capture();
    let addr = MIGRATE_EXT.load(std::sync::atomic::Ordering::Relaxed);
    if addr == 0 {
        return invalid();
    }
    let f = std::mem::transmute::<usize, MigrateFn>(addr);
    let r = f(queue, n_mems, mems, flags, n, list, event);
    if r == CL_SUCCESS {
        migrated(
            queue,
            n_mems,
            mems,
            flags,
            n,
            list,
            event,
            "clEnqueueMigrateMemObjectEXT",
            site,
        );
    }
    r
}

unsafe extern "C" fn get_extension_function_address_for_platform(
    platform: H,
    name: *const c_char,
) -> H {
    let f = down!(
        GET_EXTENSION_FUNCTION_ADDRESS_FOR_PLATFORM,
        unsafe extern "C" fn(H, *const c_char) -> H,
        platform,
        name
    );
    if f.is_null() || name.is_null() {
        return f;
    }
    match CStr::from_ptr(name).to_bytes() {
        b"clEnqueueMigrateMemObjectEXT" => {
            MIGRATE_EXT.store(f as usize, std::sync::atomic::Ordering::Relaxed);
            migrate_ext as *const () as H
        }
        _ => f,
    }
}

unsafe extern "C" fn create_user_event(ctx: H, err: *mut i32) -> Ev {
    let e = down!(
        CREATE_USER_EVENT,
        unsafe extern "C" fn(H, *mut i32) -> Ev,
        ctx,
        err
    );
    if !e.is_null() {
        model().add_user_event(e as Handle, &Site::capture());
    }
    e
}

unsafe extern "C" fn set_user_event_status(event: Ev, status: i32) -> i32 {
    let r = down!(
        SET_USER_EVENT_STATUS,
        unsafe extern "C" fn(Ev, i32) -> i32,
        event,
        status
    );
    if r == CL_SUCCESS && status <= CL_COMPLETE {
        model().events_done(&[event as Handle]);
    }
    r
}
