//! CLM001: a kernel argument is host data where a buffer object is expected.

use super::{Applicability, Edit, Fix, Label, Level, Rule};
use crate::analysis::Fact;
use crate::rules::Finding;

pub const RULE: Rule = Rule {
    code: "CLM001",
    name: "host-pointer-kernel-arg",
    level: Level::Error,
    summary: "a kernel argument is host memory where a buffer object is expected",
    doc: include_str!("../../rules/CLM001-host-pointer-kernel-arg.md"),
    check,
};

fn check(fact: &Fact) -> Option<Finding> {
    // Only host data bound as a kernel argument.
    let Fact::HostArg {
        set_arg,
        arg,
        kernel,
        index,
        host,
        param,
        suggestion,
    } = fact
    else {
        return None;
    };
    let mut f = RULE.finding(
        format!(
            "kernel argument {index} of `{kernel}` is {}, not a buffer object",
            host.describe()
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
        None => "`set_arg` passes the bytes of the value itself, not a buffer handle".into(),
    });
    match suggestion {
        Some(b) => {
            f.help = Some(format!("did you mean `{b}`?"));
            f.fix = Some(Fix {
                message: format!("pass the buffer `{b}`"),
                applicability: Applicability::MaybeIncorrect,
                edits: vec![Edit {
                    span: arg.span,
                    replacement: buffer_arg(&arg.text, b),
                }],
            });
        }
        None => {
            f.help = Some(
                "create a buffer holding this data (`CL_MEM_COPY_HOST_PTR` or `enqueue_write_buffer`) and pass the buffer"
                    .into(),
            );
        }
    }
    Some(f)
}

/// The argument passing buffer `b`, spelled like the argument it replaces: ocl-core's
/// `ArgVal::mem(&b)` (under the path `ArgVal` was named by), else `&b`.
fn buffer_arg(arg: &str, b: &str) -> String {
    let callee = arg.split('(').next().unwrap_or("");
    match callee.rfind("ArgVal::") {
        Some(i) => format!("{}ArgVal::mem(&{b})", &callee[..i]),
        None => format!("&{b}"),
    }
}

#[cfg(test)]
mod tests {
    use super::buffer_arg;

    #[test]
    fn the_buffer_is_passed_the_way_the_host_data_was() {
        assert_eq!(buffer_arg("host.as_ptr()", "buf"), "&buf");
        assert_eq!(buffer_arg("&host", "buf"), "&buf");
        assert_eq!(
            buffer_arg(
                "ArgVal::from_raw(8, host.as_ptr() as *const c_void, true)",
                "buf"
            ),
            "ArgVal::mem(&buf)"
        );
        assert_eq!(
            buffer_arg("core::ArgVal::from_raw(n, p, false)", "buf"),
            "core::ArgVal::mem(&buf)"
        );
    }
}
