//! What C and C++ declarations say about a variable: its [`TypeHint`] from the type as
//! written (`cl_mem`, `cl::CommandQueue&`, `float a[N]`, `std::vector<cl::Event>`).

use crate::ir::{HostKind, TypeHint};

/// The hint of an OpenCL handle or wrapper type (`cl_mem`, `cl::Buffer`), by its name
/// without namespace.
pub fn handle_hint(name: &str) -> TypeHint {
    match name {
        "cl_command_queue" | "CommandQueue" => TypeHint::Queue,
        "cl_mem" | "Buffer" | "Memory" | "BufferGL" | "BufferRenderGL" => TypeHint::Buffer,
        "cl_kernel" | "Kernel" => TypeHint::Kernel,
        "cl_event" | "Event" | "UserEvent" => TypeHint::Event,
        "cl_context" | "Context" => TypeHint::Context,
        "cl_device_id" | "Device" => TypeHint::Device,
        "cl_program" | "Program" => TypeHint::Program,
        _ => TypeHint::Unknown,
    }
}

/// Element types of host data: C scalars, OpenCL's host scalar and vector types, and the
/// fixed-width integers.
pub fn is_host_elem(name: &str) -> bool {
    const PLAIN: &[&str] = &[
        "float", "double", "char", "short", "int", "long", "unsigned", "signed", "half", "size_t",
        "uint8_t", "uint16_t", "uint32_t", "uint64_t", "int8_t", "int16_t", "int32_t", "int64_t",
        "bool", "void",
    ];
    PLAIN.contains(&name)
        || name.strip_prefix("cl_").is_some_and(|rest| {
            let base = rest.trim_end_matches(|c: char| c.is_ascii_digit());
            matches!(
                base,
                "float"
                    | "double"
                    | "char"
                    | "uchar"
                    | "short"
                    | "ushort"
                    | "int"
                    | "uint"
                    | "long"
                    | "ulong"
                    | "half"
            )
        })
}

/// Scalar types: values that are neither objects nor host data.
pub fn is_scalar(name: &str) -> bool {
    is_host_elem(name) && name != "void"
        || matches!(
            name,
            "cl_bool"
                | "cl_bitfield"
                | "cl_mem_flags"
                | "cl_mem_migration_flags"
                | "cl_command_queue_properties"
                | "cl_queue_properties"
                | "cl_map_flags"
                | "cl_device_type"
                | "cl_platform_id"
        )
}

/// A type as written without its template arguments: `Runner<2>` → `Runner`,
/// `std::vector<cl::Event>` → `std::vector`.
pub fn without_template_args(ty: &str) -> &str {
    ty.split('<').next().unwrap_or(ty).trim()
}

/// The last identifier of a type as written: `cl::Buffer` → `Buffer`, `struct halo` →
/// `halo`, `const cl_mem` → `cl_mem`.
pub fn last_name(ty: &str) -> &str {
    let ty = ty.trim();
    let ty = ty.rsplit("::").next().unwrap_or(ty);
    ty.rsplit(|c: char| c.is_whitespace()).next().unwrap_or(ty)
}

/// The hint of a declared variable: `ty` is the type as written (without declarator),
/// `array` the array length when the declarator is an array (`Some(None)` when not a known
/// constant), `pointers` how many `*` the declarator has.
pub fn declared_hint(ty: &str, array: Option<Option<u64>>, pointers: usize) -> TypeHint {
    let ty = ty.trim();
    if let Some(args) = template_arg(ty, "vector") {
        // `std::vector<int, aligned_allocator<int>>`: the element type comes first.
        let elem = last_name(first_arg(args));
        return match handle_hint(elem) {
            TypeHint::Event if array.is_none() && pointers == 0 => TypeHint::EventList,
            TypeHint::Unknown if is_host_elem(elem) && array.is_none() && pointers == 0 => {
                TypeHint::Host(HostKind::Vec)
            }
            _ => TypeHint::Unknown,
        };
    }
    if let Some(args) = template_arg(ty, "array") {
        let mut parts = args.splitn(2, ',');
        let elem = last_name(parts.next().unwrap_or(""));
        let len = parts.next().and_then(|n| n.trim().parse().ok());
        if is_host_elem(elem) && array.is_none() && pointers == 0 {
            return TypeHint::Host(HostKind::Array { len });
        }
        // `std::array<cl_event, 2>`, as `cl_event[2]`.
        if handle_hint(elem) == TypeHint::Event && array.is_none() && pointers == 0 {
            return TypeHint::EventList;
        }
        return TypeHint::Unknown;
    }
    if ty.contains('<') {
        return TypeHint::Unknown;
    }
    let name = last_name(ty);
    let handle = handle_hint(name);
    match (array, pointers) {
        (None, 0) if handle != TypeHint::Unknown => handle,
        (None, 0) if is_scalar(name) => TypeHint::Scalar,
        (Some(_), 0) if handle == TypeHint::Event => TypeHint::EventList,
        (Some(len), 0) if is_host_elem(name) && name != "void" => {
            TypeHint::Host(HostKind::Array { len })
        }
        // `void *` points to anything: a struct a thread is given, host data, a handle.
        (None, 1) if is_host_elem(name) && name != "void" => TypeHint::Host(HostKind::Pointer),
        // `int *iS[MAX_GPU]`: host data, one piece per member (`iS[d] = malloc(..)`).
        (Some(len), 1) if is_host_elem(name) && name != "void" => {
            TypeHint::Host(HostKind::Array { len })
        }
        _ => TypeHint::Unknown,
    }
}

/// The type of the members of a `std::vector` or `std::array` (`std::vector<float>` of
/// `std::array<std::vector<float>, 2>`).
pub fn container_elem(ty: &str) -> Option<&str> {
    let ty = ty.trim();
    template_arg(ty, "vector")
        .or_else(|| template_arg(ty, "array"))
        .map(first_arg)
}

/// What the members of an array, pointer or `std::vector` of OpenCL handles are
/// (`cl_mem parts[MAX_DEV]`, `cl_command_queue *queues`): `None` for anything else, and for
/// events, whose lists are wait lists.
pub fn member_hint(ty: &str, array: Option<Option<u64>>, pointers: usize) -> Option<TypeHint> {
    let elem = match template_arg(ty.trim(), "vector") {
        Some(args) if array.is_none() && pointers == 0 => last_name(first_arg(args)),
        Some(_) => return None,
        None if matches!((array, pointers), (Some(_), 0) | (None, 1)) => last_name(ty.trim()),
        None => return None,
    };
    match handle_hint(elem) {
        TypeHint::Unknown | TypeHint::Event => None,
        h => Some(h),
    }
}

/// The first of a template's arguments (`int` of `int, alloc<int>`).
fn first_arg(args: &str) -> &str {
    let mut depth = 0i32;
    for (i, c) in args.char_indices() {
        match c {
            '<' | '(' => depth += 1,
            '>' | ')' => depth -= 1,
            ',' if depth == 0 => return args[..i].trim(),
            _ => {}
        }
    }
    args.trim()
}

/// The length of a `std::array<T, N>` as written (`N`).
pub fn std_array_len(ty: &str) -> Option<&str> {
    let args = template_arg(ty.trim(), "array")?;
    Some(args.split_once(',')?.1.trim())
}

/// The text between `<` and the matching `>` of a template named `name`
/// (`std::vector<cl::Event>` → `cl::Event`).
fn template_arg<'t>(ty: &'t str, name: &str) -> Option<&'t str> {
    let open = ty.find('<')?;
    if last_name(&ty[..open]) != name {
        return None;
    }
    let close = ty.rfind('>')?;
    (close > open).then(|| ty[open + 1..close].trim())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn members_of_containers() {
        assert_eq!(
            container_elem("std::array<std::vector<cl_uchar>, 2>"),
            Some("std::vector<cl_uchar>")
        );
        assert_eq!(
            container_elem("std::vector<cl::Buffer>"),
            Some("cl::Buffer")
        );
        assert_eq!(container_elem("cl_mem"), None);
    }

    #[test]
    fn declarations_give_hints() {
        assert_eq!(declared_hint("cl_mem", None, 0), TypeHint::Buffer);
        assert_eq!(declared_hint("const cl::Buffer", None, 0), TypeHint::Buffer);
        assert_eq!(
            declared_hint("cl_event", Some(Some(2)), 0),
            TypeHint::EventList
        );
        assert_eq!(
            declared_hint("float", Some(Some(1024)), 0),
            TypeHint::Host(HostKind::Array { len: Some(1024) })
        );
        assert_eq!(
            declared_hint("cl_float", None, 1),
            TypeHint::Host(HostKind::Pointer)
        );
        assert_eq!(
            declared_hint("std::vector<cl::Event>", None, 0),
            TypeHint::EventList
        );
        assert_eq!(
            declared_hint("std::vector<float>", None, 0),
            TypeHint::Host(HostKind::Vec)
        );
        assert_eq!(
            declared_hint("std::vector<cl::CommandQueue>", None, 0),
            TypeHint::Unknown
        );
        assert_eq!(declared_hint("cl_mem", Some(Some(2)), 0), TypeHint::Unknown);
        assert_eq!(declared_hint("cl_int", None, 0), TypeHint::Scalar);
        assert_eq!(declared_hint("size_t", None, 0), TypeHint::Scalar);
        assert_eq!(declared_hint("halo_t", None, 1), TypeHint::Unknown);
        assert_eq!(declared_hint("void", None, 1), TypeHint::Unknown);
        assert_eq!(
            declared_hint("std::vector<int, aligned_allocator<int> >", None, 0),
            TypeHint::Host(HostKind::Vec)
        );
    }
}
