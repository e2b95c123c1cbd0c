//! CLM001: a kernel argument is host data where a buffer object is expected.

use super::{Applicability, Edit, Fix, Label, Level, Rule, Spelling};
use crate::analysis::Fact;
use crate::ir::HostKind;
use crate::rules::Finding;

pub const RULE: Rule = Rule {
    code: "CLM001",
    name: "host-pointer-kernel-arg",
    level: Level::Error,
    summary: "a kernel argument is host memory where a buffer object is expected",
    doc: include_str!("../../rules/CLM001-host-pointer-kernel-arg.md"),
    check,
};

fn check(fact: &Fact, spelling: Spelling) -> Option<Finding> {
    // Only host data bound as a kernel argument.
    let Fact::HostArg {
        set_arg,
        arg,
        kernel,
        index,
        host,
        param,
        suggestion,
        ..
    } = fact
    else {
        return None;
    };
    let mut f = RULE.finding(
        format!(
            "kernel argument {index} of `{kernel}` is {}, not a buffer object",
            match (host, spelling) {
                (HostKind::Vec, Spelling::Cpp) => "a host `std::vector`",
                _ => host.describe(),
            }
        ),
        *set_arg,
        Label {
            span: arg.span,
            message: format!("`{}` is host memory", arg.text),
        },
    );
    f.note = Some(match param {
        Some(p) => format!(
            "the kernel source declares parameter {index} `{p}` as a pointer to device memory"
        ),
        None => format!(
            "`{}` passes the bytes of the value itself, not a buffer handle",
            match spelling {
                Spelling::Rust => "set_arg",
                Spelling::C => "clSetKernelArg",
                Spelling::Cpp => "setArg",
            }
        ),
    });
    match suggestion {
        Some(b) => {
            f.help = Some(format!("did you mean `{b}`?"));
            f.fix = Some(Fix {
                message: format!("pass the buffer `{b}`"),
                applicability: Applicability::MaybeIncorrect,
                edits: vec![Edit {
                    span: arg.span,
                    replacement: buffer_arg(&arg.text, b, spelling),
                }],
            });
        }
        None => {
            let write = match spelling {
                Spelling::Rust => "enqueue_write_buffer",
                Spelling::C => "clEnqueueWriteBuffer",
                Spelling::Cpp => "enqueueWriteBuffer",
            };
            f.help = Some(format!(
                "create a buffer holding this data (`CL_MEM_COPY_HOST_PTR` or `{write}`) and pass the buffer"
            ));
        }
    }
    Some(f)
}

/// The argument passing buffer `b`, spelled like the argument it replaces: ocl-core's
/// `ArgVal::mem(&b)` (under the path `ArgVal` was named by); in C++, whose `setArg` takes
/// the object by reference, `b` (`&b` where the argument was a pointer); else `&b`.
fn buffer_arg(arg: &str, b: &str, spelling: Spelling) -> String {
    let callee = arg.split('(').next().unwrap_or("");
    match callee.rfind("ArgVal::") {
        Some(i) => format!("{}ArgVal::mem(&{b})", &callee[..i]),
        None if spelling == Spelling::Cpp && !arg.starts_with('&') => b.to_string(),
        None => format!("&{b}"),
    }
}

#[cfg(test)]
mod tests {
    use super::{buffer_arg, Spelling};

    #[test]
    fn the_buffer_is_passed_the_way_the_host_data_was() {
        let rust = |a| buffer_arg(a, "buf", Spelling::Rust);
        assert_eq!(rust("host.as_ptr()"), "&buf");
        assert_eq!(rust("&host"), "&buf");
        assert_eq!(
            rust("ArgVal::from_raw(8, host.as_ptr() as *const c_void, true)"),
            "ArgVal::mem(&buf)"
        );
        assert_eq!(
            rust("core::ArgVal::from_raw(n, p, false)"),
            "core::ArgVal::mem(&buf)"
        );
        // `clSetKernelArg` takes a pointer to the handle, in C and in C++.
        assert_eq!(buffer_arg("&host_arr", "buf", Spelling::C), "&buf");
        assert_eq!(buffer_arg("&host_arr", "buf", Spelling::Cpp), "&buf");
        // `cl::Kernel::setArg` takes the `cl::Buffer` itself.
        assert_eq!(buffer_arg("host", "buf", Spelling::Cpp), "buf");
    }
}
