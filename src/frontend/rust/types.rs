//! Types as the lowering reads them: the hint a declared type gives a variable (a queue, a
//! buffer, host data, a scalar) and the type a constructor call builds.

use crate::frontend::sizes::rust_type_size;
use syn::{Expr, Type};

use super::syntax::path_segments;
use crate::ir::*;

/// Standard types that parameters often have: never structs of the crate.
pub(super) const STD_TYPES: &[&str] = &[
    "Vec", "String", "str", "Option", "Result", "Box", "Rc", "Arc", "RefCell", "Cell", "Mutex",
    "RwLock", "HashMap", "HashSet", "BTreeMap", "BTreeSet", "VecDeque", "Path", "PathBuf",
    "Duration", "Instant",
];

/// The size in bytes of a scalar type as written (`u32`, `f64`, `cl_float`), through
/// references.
pub(super) fn type_bytes(t: &Type) -> Option<u64> {
    match t {
        // `[cl_float; 4]` (a `float4` by value): its members' bytes.
        Type::Array(a) => type_bytes(&a.elem)?.checked_mul(array_len(&a.len)?),
        Type::Reference(r) => type_bytes(&r.elem),
        Type::Paren(p) => type_bytes(&p.elem),
        _ => type_name(t).as_deref().and_then(rust_type_size),
    }
}

/// The size of a member of a slice, array or `Vec` of scalars (`&[f64]`: 8).
pub(super) fn elem_bytes(t: &Type) -> Option<u64> {
    match t {
        Type::Reference(r) => elem_bytes(&r.elem),
        Type::Group(g) => elem_bytes(&g.elem),
        Type::Paren(p) => elem_bytes(&p.elem),
        Type::Slice(s) => type_bytes(&s.elem),
        Type::Array(a) => type_bytes(&a.elem),
        Type::Path(_) if type_name(t).as_deref() == Some("Vec") => {
            elem_name(t).as_deref().and_then(rust_type_size)
        }
        _ => None,
    }
}

pub(super) fn type_name(t: &Type) -> Option<String> {
    match t {
        Type::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()),
        Type::Reference(r) => type_name(&r.elem),
        Type::Group(g) => type_name(&g.elem),
        Type::Paren(p) => type_name(&p.elem),
        _ => None,
    }
}

const SCALAR_TYPES: &[&str] = &[
    "f32",
    "f64",
    "i8",
    "i16",
    "i32",
    "i64",
    "i128",
    "u8",
    "u16",
    "u32",
    "u64",
    "u128",
    "usize",
    "isize",
    "bool",
    "char",
    "cl_float",
    "cl_double",
    "cl_half",
    "cl_int",
    "cl_uint",
    "cl_long",
    "cl_ulong",
    "cl_short",
    "cl_ushort",
    "cl_char",
    "cl_uchar",
    "cl_bool",
    "size_t",
];

const HANDLE_TYPES: &[&str] = &[
    "cl_mem",
    "cl_event",
    "cl_kernel",
    "cl_command_queue",
    "cl_context",
    "cl_program",
    "cl_device_id",
    "cl_platform_id",
    "cl_sampler",
    "Buffer",
    "CommandQueue",
    "Kernel",
    "Event",
    "Context",
    "Program",
    "Device",
    "Queue",
    "EventList",
    "Mem",
    "DeviceId",
    // ocl's queue and program in one (`lanes: &[ProQue]`).
    "ProQue",
];

pub(super) fn hint_from_name(name: &str) -> TypeHint {
    match name {
        "CommandQueue" | "cl_command_queue" | "Queue" => TypeHint::Queue,
        "Buffer" | "cl_mem" | "Mem" => TypeHint::Buffer,
        "Kernel" | "cl_kernel" => TypeHint::Kernel,
        "Event" | "cl_event" => TypeHint::Event,
        "Context" | "cl_context" => TypeHint::Context,
        "Device" | "cl_device_id" | "DeviceId" => TypeHint::Device,
        "Program" | "cl_program" => TypeHint::Program,
        n if SCALAR_TYPES.contains(&n) => TypeHint::Scalar,
        _ => TypeHint::Unknown,
    }
}

/// The OpenCL object the members of a collection are, through nested collections
/// (`Vec<[Buffer<f32>; 2]>`: a buffer, for `u[1][0]`), or `Unknown`.
pub(super) fn member_hint(t: &Type) -> TypeHint {
    match t {
        Type::Reference(r) => member_hint(&r.elem),
        Type::Group(g) => member_hint(&g.elem),
        Type::Paren(p) => member_hint(&p.elem),
        Type::Slice(s) => elem_hint(&s.elem),
        Type::Array(a) => elem_hint(&a.elem),
        Type::Path(p) => {
            let Some(seg) = p.path.segments.last() else {
                return TypeHint::Unknown;
            };
            let Some(inner) = first_type_arg(seg) else {
                return TypeHint::Unknown;
            };
            match seg.ident.to_string().as_str() {
                "Vec" | "VecDeque" => elem_hint(inner),
                "Box" | "Rc" | "Arc" | "Option" => member_hint(inner),
                // `HashMap<&'static str, Kernel>`: the values, by key.
                "HashMap" | "BTreeMap" => second_type_arg(seg).map_or(TypeHint::Unknown, elem_hint),
                _ => TypeHint::Unknown,
            }
        }
        _ => TypeHint::Unknown,
    }
}

/// The second type argument of a path segment (`Kernel` of `HashMap<&str, Kernel>`).
fn second_type_arg(seg: &syn::PathSegment) -> Option<&Type> {
    let syn::PathArguments::AngleBracketed(a) = &seg.arguments else {
        return None;
    };
    (a.args.iter())
        .filter_map(|x| match x {
            syn::GenericArgument::Type(t) => Some(t),
            _ => None,
        })
        .nth(1)
}

/// The OpenCL object a member of a collection is: itself one, or a collection of them.
fn elem_hint(t: &Type) -> TypeHint {
    match member_hint(t) {
        TypeHint::Unknown => match type_hint(t) {
            h @ (TypeHint::Queue
            | TypeHint::Buffer
            | TypeHint::Kernel
            | TypeHint::Event
            | TypeHint::Context
            | TypeHint::Device
            | TypeHint::Program) => h,
            _ => TypeHint::Unknown,
        },
        h => h,
    }
}

/// The element type of `Vec<T>`, `[T]`, `[T; N]`: `array` for nested lists of host data
/// (`Vec<[f32; 4]>`), `handles` for nested lists of handles (`Vec<[Buffer<f32>; 2]>`).
fn elem_name(t: &Type) -> Option<String> {
    // `Vec<Arc<CommandQueue>>`: the shared object's type.
    let type_name = |t: &Type| type_name(shared_inner(t));
    let nested = |t: &Type| match elem_name(t) {
        Some(e) if !is_host_elem(&e) => "handles".to_string(),
        _ => "array".to_string(),
    };
    match t {
        Type::Path(p) => {
            let t = first_type_arg(p.path.segments.last()?)?;
            type_name(t).or_else(|| elem_name(t).map(|_| nested(t)))
        }
        Type::Slice(s) => type_name(&s.elem).or_else(|| Some(nested(&s.elem))),
        Type::Array(a) => type_name(&a.elem).or_else(|| Some(nested(&a.elem))),
        _ => None,
    }
}

/// The first type argument of a path segment: `T` of `Vec<T>`, `Result<T, E>`.
pub(super) fn first_type_arg(seg: &syn::PathSegment) -> Option<&Type> {
    match &seg.arguments {
        syn::PathArguments::AngleBracketed(a) => match a.args.first()? {
            syn::GenericArgument::Type(t) => Some(t),
            _ => None,
        },
        _ => None,
    }
}

/// The type a reference, `Arc`, `Rc` or `Box` points to, whose fields it reaches
/// (`shared.lut` of `shared: Arc<Shared>`).
pub(super) fn pointee(t: &Type) -> &Type {
    match t {
        Type::Reference(r) => pointee(&r.elem),
        Type::Paren(p) => pointee(&p.elem),
        Type::Path(p) => match p.path.segments.last() {
            Some(seg) if matches!(seg.ident.to_string().as_str(), "Arc" | "Rc" | "Box") => {
                first_type_arg(seg).map_or(t, pointee)
            }
            _ => t,
        },
        _ => t,
    }
}

/// The type behind `Arc`, `Rc`, `Box`, `Mutex`, `RefCell` and `Option`: what they share or
/// hold (`Vec<Option<Event>>`, a slot per frame, is a list of events).
fn shared_inner(t: &Type) -> &Type {
    if let Type::Path(p) = t {
        if let Some(seg) = p.path.segments.last() {
            if matches!(
                seg.ident.to_string().as_str(),
                "Arc" | "Rc" | "Box" | "Mutex" | "RefCell" | "Option"
            ) {
                if let Some(inner) = first_type_arg(seg) {
                    return shared_inner(inner);
                }
            }
        }
    }
    t
}

/// The type of the members of `Vec<T>`, `[T]`, `[T; N]`, behind references: `T`.
pub(super) fn member_type(t: &Type) -> Option<&Type> {
    match t {
        Type::Reference(r) => member_type(&r.elem),
        Type::Group(g) => member_type(&g.elem),
        Type::Paren(p) => member_type(&p.elem),
        Type::Slice(s) => Some(&s.elem),
        Type::Array(a) => Some(&a.elem),
        Type::Path(p) => {
            let seg = p.path.segments.last()?;
            (seg.ident == "Vec").then(|| first_type_arg(seg)).flatten()
        }
        _ => None,
    }
}

/// The element type of `Vec<T>`, `[T]`, `[T; N]`, behind references.
pub(super) fn elem_type(t: &Type) -> Option<String> {
    match t {
        Type::Reference(r) => elem_type(&r.elem),
        Type::Group(g) => elem_type(&g.elem),
        Type::Paren(p) => elem_type(&p.elem),
        _ => elem_name(t),
    }
}

fn is_host_elem(name: &str) -> bool {
    !HANDLE_TYPES.contains(&name) && name != "handles"
}

pub(super) fn type_hint(t: &Type) -> TypeHint {
    match t {
        Type::Reference(r) => match &*r.elem {
            Type::Slice(_) => slice_hint(&r.elem),
            other => type_hint(other),
        },
        Type::Group(g) => type_hint(&g.elem),
        Type::Paren(p) => type_hint(&p.elem),
        Type::Slice(_) => slice_hint(t),
        Type::Array(a) => match type_name(shared_inner(&a.elem)) {
            Some(n) if n == "cl_event" || n == "Event" => TypeHint::EventList,
            Some(n) if !is_host_elem(&n) => TypeHint::Unknown,
            _ => TypeHint::Host(HostKind::Array {
                len: array_len(&a.len),
            }),
        },
        Type::Path(p) => {
            let Some(seg) = p.path.segments.last() else {
                return TypeHint::Unknown;
            };
            let name = seg.ident.to_string();
            match name.as_str() {
                "Vec" => match elem_name(t) {
                    Some(e) if e == "cl_event" || e == "Event" => TypeHint::EventList,
                    Some(e) if is_host_elem(&e) => TypeHint::Host(HostKind::Vec),
                    _ => TypeHint::Unknown,
                },
                "Box" | "Rc" | "Arc" | "Option" => {
                    first_type_arg(seg).map_or(TypeHint::Unknown, type_hint)
                }
                "EventList" => TypeHint::EventList,
                _ => hint_from_name(&name),
            }
        }
        _ => TypeHint::Unknown,
    }
}

fn slice_hint(t: &Type) -> TypeHint {
    match elem_name(t) {
        Some(e) if e == "cl_event" || e == "Event" => TypeHint::EventList,
        Some(e) if is_host_elem(&e) => TypeHint::Host(HostKind::Slice),
        _ => TypeHint::Unknown,
    }
}

pub(super) fn array_len(e: &Expr) -> Option<u64> {
    match e {
        Expr::Lit(l) => match &l.lit {
            syn::Lit::Int(i) => i.base10_parse().ok(),
            _ => None,
        },
        _ => None,
    }
}

/// The expression a value comes from through `?`, parentheses, `unwrap` and `expect`.
pub(super) fn unwrapped(e: &Expr) -> &Expr {
    match e {
        Expr::Try(t) => unwrapped(&t.expr),
        Expr::Paren(p) => unwrapped(&p.expr),
        Expr::MethodCall(m) if matches!(m.method.to_string().as_str(), "unwrap" | "expect") => {
            unwrapped(&m.receiver)
        }
        _ => e,
    }
}

/// The type whose associated function a call is (`DeviceSlice` of `DeviceSlice::new(..)?`),
/// through `?`, `unwrap` and `expect`: a constructor's where the type is a struct of the file.
pub(super) fn callee_type(e: &Expr) -> Option<String> {
    match unwrapped(e) {
        Expr::Call(c) => match path_segments(&c.func)?.as_slice() {
            [t, _] => Some(t.clone()),
            _ => None,
        },
        _ => None,
    }
}

/// The struct a constructor call makes: `Solver::new(..)`, `Solver::create(..)?`,
/// `Solver::new(..).unwrap()`.
pub(super) fn constructed_type(e: &Expr) -> Option<String> {
    match unwrapped(e) {
        Expr::Call(c) => match path_segments(&c.func)?.as_slice() {
            [t, _]
                if t.starts_with(|c: char| c.is_ascii_uppercase())
                    && hint_from_name(t) == TypeHint::Unknown
                    && !STD_TYPES.contains(&t.as_str())
                    && t != "Self" =>
            {
                Some(t.clone())
            }
            _ => None,
        },
        // `Self { context, queues, .. }`, `Halo { .. }`: `Self` is the caller's to resolve.
        Expr::Struct(s) => {
            let t = s.path.segments.last()?.ident.to_string();
            (t.starts_with(|c: char| c.is_ascii_uppercase()) && !STD_TYPES.contains(&t.as_str()))
                .then_some(t)
        }
        _ => None,
    }
}

/// The message type of a channel receiver (`mpsc::Receiver<Job>`, `&Receiver<Job>`):
/// `Job`.
pub(super) fn received_struct(t: &Type) -> Option<String> {
    match t {
        Type::Reference(r) => received_struct(&r.elem),
        Type::Path(p) => {
            let seg = p.path.segments.last()?;
            (seg.ident == "Receiver").then_some(())?;
            type_name(first_type_arg(seg)?)
        }
        _ => None,
    }
}
