//! CLM007: a kernel argument that cannot match the kernel's signature in its source.

use super::{Label, Level, Rule, Spelling};
use crate::analysis::{Fact, Mismatch};
use crate::rules::Finding;

pub const RULE: Rule = Rule {
    code: "CLM007",
    name: "kernel-arg-mismatch",
    level: Level::Error,
    summary: "a kernel argument cannot match the parameter the kernel's source declares",
    doc: include_str!("../../rules/CLM007-kernel-arg-mismatch.md"),
    check,
};

fn check(fact: &Fact, _: Spelling) -> Option<Finding> {
    // Only arguments checked against a visible signature.
    let Fact::ArgMismatch {
        set_arg,
        arg,
        kernel,
        index,
        problem,
        ..
    } = fact
    else {
        return None;
    };
    let (message, label, help) = match problem {
        Mismatch::PastEnd { count } => (
            format!("kernel `{kernel}` has {count} parameters, but argument {index} is set"),
            format!("index {index} is past the last parameter"),
            "check the argument order against the kernel's parameter list".to_string(),
        ),
        Mismatch::BufferByValue { param, decl } => (
            format!("argument {index} of `{kernel}` is a buffer, but parameter `{param}` is `{decl}` by value"),
            format!("`{}` is a buffer object", arg.text),
            format!("pass a value of the type of `{param}`, or declare it as a `__global` pointer"),
        ),
        Mismatch::BufferForLocal { param, decl } => (
            format!("argument {index} of `{kernel}` is a buffer, but parameter `{param}` is `{decl}`"),
            format!("`{}` is a buffer object", arg.text),
            "`__local` memory is given as its size in bytes and a null value; pass the buffer to a `__global` parameter".to_string(),
        ),
        Mismatch::ScalarForPointer { param, decl } => (
            format!("argument {index} of `{kernel}` is a scalar, but parameter `{param}` is `{decl}`"),
            format!("`{}` is not a buffer object", arg.text),
            format!("pass the buffer that `{param}` points into"),
        ),
        Mismatch::ScalarSize { param, decl, size, expected } => (
            format!("argument {index} of `{kernel}` passes {size} bytes, but parameter `{param}` is `{decl}`, {expected} bytes"),
            format!("{size} bytes are passed here"),
            format!("pass a value of the type of `{param}` ({expected} bytes): `clSetKernelArg` fails with `CL_INVALID_ARG_SIZE`"),
        ),
    };
    let mut f = RULE.finding(
        message,
        *set_arg,
        Label {
            span: arg.span,
            message: label,
        },
    );
    f.help = Some(help);
    Some(f)
}
