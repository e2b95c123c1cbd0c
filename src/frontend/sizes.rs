//! The sizes in bytes of the host types a kernel argument is passed as: `clSetKernelArg`
//! answers `CL_INVALID_ARG_SIZE` "if arg_size does not match the size of the data type for
//! an argument that is not a memory object" (OpenCL 3.0). Hosts are taken to be 64-bit
//! (`size_t`, `usize`: 8 bytes); `long`, whose size differs between 64-bit platforms, has
//! none.

use crate::kernel_src::vector_type_size;

/// The size of an OpenCL host scalar or vector type (`cl_float4`: 16), by its name.
fn cl_type_size(name: &str) -> Option<u64> {
    match name.strip_prefix("cl_")? {
        "bool" => Some(4),
        rest => vector_type_size(rest),
    }
}

/// The size of a C or C++ host type as written (`unsigned int`, `const cl_float`,
/// `std::size_t`).
pub fn c_type_size(ty: &str) -> Option<u64> {
    let words: Vec<&str> = ty
        .split_whitespace()
        .filter(|w| !matches!(*w, "const" | "volatile" | "signed"))
        .map(|w| w.rsplit("::").next().unwrap_or(w))
        .collect();
    match words.as_slice() {
        ["char"] | ["unsigned", "char"] | ["int8_t"] | ["uint8_t"] => Some(1),
        ["short"]
        | ["short", "int"]
        | ["unsigned", "short"]
        | ["unsigned", "short", "int"]
        | ["int16_t"]
        | ["uint16_t"] => Some(2),
        ["int"] | ["unsigned"] | ["unsigned", "int"] | ["float"] | ["int32_t"] | ["uint32_t"] => {
            Some(4)
        }
        ["double"]
        | ["long", "long"]
        | ["long", "long", "int"]
        | ["unsigned", "long", "long"]
        | ["int64_t"]
        | ["uint64_t"]
        | ["size_t"]
        | ["ptrdiff_t"] => Some(8),
        [name] => cl_type_size(name),
        _ => None,
    }
}

/// The size of a Rust type as written (`u32`, `f64`, `usize`, `cl_float`, `cl_sys::cl_int`).
pub fn rust_type_size(ty: &str) -> Option<u64> {
    let name = ty.rsplit("::").next().unwrap_or(ty).trim();
    match name {
        "u8" | "i8" | "bool" => Some(1),
        "u16" | "i16" => Some(2),
        "u32" | "i32" | "f32" => Some(4),
        "u64" | "i64" | "f64" | "usize" | "isize" | "size_t" => Some(8),
        _ => cl_type_size(name),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_sizes() {
        assert_eq!(c_type_size("sizeof_not_a_type"), None);
        assert_eq!(c_type_size("double"), Some(8));
        assert_eq!(c_type_size("const unsigned int"), Some(4));
        assert_eq!(c_type_size("std::size_t"), Some(8));
        assert_eq!(c_type_size("cl_float3"), Some(16));
        assert_eq!(c_type_size("cl_int2"), Some(8));
        assert_eq!(c_type_size("long"), None);
        assert_eq!(c_type_size("my_struct"), None);
        assert_eq!(rust_type_size("f64"), Some(8));
        assert_eq!(rust_type_size("cl_sys::cl_uint"), Some(4));
        assert_eq!(rust_type_size("usize"), Some(8));
        assert_eq!(rust_type_size("Vec<f32>"), None);
    }
}
