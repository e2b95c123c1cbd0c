//! The frontends: host code to the host IR ([`crate::ir`]), one [`Function`] per function.
//! Rust is read with syn ([`rust`]), C and C++ with tree-sitter ([`clike`]); both look calls
//! up in binding tables of the same shape ([`bindings`]) and give a [`FileIr`]. The analysis
//! does not know which language a function came from; the rules only spell their messages
//! in the file's language ([`Spelling`](crate::rules::Spelling)).

pub mod bindings;
pub mod clike;
pub mod rust;
pub mod sizes;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::frontend::bindings::Role;
use crate::ir::{
    Access, ArithOp, CommandKind, Function, HostKind, Place, Span, Stmt, TypeHint, Value, Var,
};

/// An arm where checked commands failed, `arm`, that leaves the function: the events those
/// commands would have made (`events`) were not made, so none is held there.
pub(crate) fn failed_exit(arm: Vec<Stmt>, events: &[Place], span: Span) -> Vec<Stmt> {
    let exits = arm.iter().any(|s| matches!(s, Stmt::Return { .. }));
    if events.is_empty() || !exits {
        return arm;
    }
    let list = Value::List(events.iter().cloned().map(Value::Place).collect());
    [
        Stmt::Wait {
            events: list.clone(),
            span,
        },
        Stmt::Release { events: list, span },
    ]
    .into_iter()
    .chain(arm)
    .collect()
}

/// Constants of a file the lowering can read: integers and strings.
#[derive(Clone, Debug)]
pub enum Const {
    Int(u64),
    Str(String),
}

/// The fields of a struct: their names and types.
pub type Fields = Vec<(String, TypeHint)>;

/// The lowered functions of one file, and the structs it defines.
#[derive(Debug, Default)]
pub struct FileIr {
    pub functions: Vec<Function>,
    /// By the struct's name.
    pub structs: Vec<(String, Fields)>,
    /// Strings the file keeps in constants that may be OpenCL C program sources
    /// (`const SRC: &str = "__kernel void scale(..) { .. }";`), built or not.
    pub sources: Vec<String>,
}

/// Gives each `self` and parameter whose struct another file of the crate defines the
/// fields of that struct. `structs` are the structs of every file of the crate; a name
/// that two of them define gives nothing.
pub fn link<'f>(
    functions: impl IntoIterator<Item = &'f mut Function>,
    structs: &[(String, Fields)],
) {
    let mut by_name: HashMap<&str, Option<&Fields>> = HashMap::new();
    for (name, fields) in structs {
        by_name
            .entry(name)
            .and_modify(|e| *e = None)
            .or_insert(Some(fields));
    }
    for f in functions {
        for v in &mut f.vars {
            if let Some(Some(fields)) = v.ty.as_deref().and_then(|t| by_name.get(t)) {
                if v.fields.is_empty() {
                    v.fields = (*fields).clone();
                }
            }
        }
    }
}

/// The longest wait list read element by element (`n, events` of a pointer and count).
pub(crate) const MAX_WAIT_ELEMS: u64 = 64;

/// `l op r` of integers: arithmetic the analysis can do where both are known (locals,
/// constants, a list's length, or arithmetic of them); anything else is a scalar.
pub(crate) fn arith(op: Option<ArithOp>, l: Value, r: Value) -> Value {
    let operand = |v: &Value| match v {
        Value::Int(_) | Value::Arith { .. } | Value::Len(_) => true,
        // A local, or a field of one (`self.next + 1`).
        Value::Place(p) => p
            .proj
            .iter()
            .all(|x| matches!(x, crate::ir::Proj::Field(_))),
        _ => false,
    };
    match op {
        Some(op) if operand(&l) && operand(&r) => Value::Arith {
            op,
            lhs: Box::new(l),
            rhs: Box::new(r),
        },
        _ => Value::Scalar,
    }
}

/// A comparison `l op r` as what each arm of a branch on it knows: that it holds on one,
/// that it does not on the other, for operands that can be integers.
pub(crate) fn comparison(op: ArithOp, l: Value, r: Value) -> Option<[Stmt; 2]> {
    let cmp = arith(Some(op), l, r);
    matches!(cmp, Value::Arith { .. }).then(|| {
        [true, false].map(|some| Stmt::Assume {
            value: cmp.clone(),
            some,
        })
    })
}

/// A list literal (an array, `vec!`, a C or C++ braced list): a list of values, which may be
/// events (a wait list); a list of numbers is host data.
fn list_or_host(items: Vec<Value>, kind: HostKind) -> Value {
    if !items.is_empty()
        && items
            .iter()
            .all(|v| matches!(v, Value::Int(_) | Value::Scalar | Value::Arith { .. }))
    {
        Value::Host { kind, base: None }
    } else {
        Value::List(items)
    }
}

/// `swap(a, b)` (`std::swap`, `std::mem::swap`): the assignments through the temporary `tmp`
/// that trade what the two places hold.
fn swap(a: Place, b: Place, tmp: Var, span: Span) -> [Stmt; 3] {
    [
        (Place::var(tmp), a.clone()),
        (a, b.clone()),
        (b, Place::var(tmp)),
    ]
    .map(|(dst, from)| Stmt::Assign {
        dst,
        value: Value::Place(from),
        span,
    })
}

/// A source language other than Rust.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lang {
    C,
    Cpp,
}

impl Lang {
    /// The language of a file by its extension: `.c` and `.h` are C; `.cpp`, `.cc`,
    /// `.cxx`, `.hpp`, `.hh` and `.hxx` are C++. Anything else is Rust's.
    pub fn of(path: &Path) -> Option<Lang> {
        match path.extension()?.to_str()? {
            "c" | "h" => Some(Lang::C),
            "cpp" | "cc" | "cxx" | "hpp" | "hh" | "hxx" => Some(Lang::Cpp),
            _ => None,
        }
    }
}

/// Files of a C or C++ build: the directory of the nearest build file above a file
/// (`CMakeLists.txt`, a makefile, `meson.build`, ..), not above the repository root (a
/// directory holding `.git`); the file's own directory when there is none. C and C++ files
/// of one program call each other's functions.
#[derive(Default)]
pub struct Programs {
    by_dir: HashMap<PathBuf, PathBuf>,
}

const BUILD_FILES: &[&str] = &[
    "CMakeLists.txt",
    "Makefile",
    "makefile",
    "GNUmakefile",
    "meson.build",
    "configure.ac",
    "SConstruct",
    "BUILD",
    "BUILD.bazel",
];

impl Programs {
    /// The program directory of the C or C++ file `abs` (an absolute path).
    pub fn of(&mut self, abs: &Path) -> PathBuf {
        let own = abs.parent().unwrap_or(abs).to_path_buf();
        if let Some(p) = self.by_dir.get(&own) {
            return p.clone();
        }
        let mut found = None;
        for d in own.ancestors().take(8) {
            if BUILD_FILES.iter().any(|b| d.join(b).is_file()) {
                found = Some(d.to_path_buf());
                break;
            }
            if d.join(".git").exists() {
                break;
            }
        }
        let p = found.unwrap_or_else(|| own.clone());
        self.by_dir.insert(own, p.clone());
        p
    }
}

/// The argument that gives the offset of the region a command's access of one buffer
/// covers: a copy's source or destination offset, else the command's offset.
pub(crate) fn region_role(kind: CommandKind, access: Access) -> Role {
    match access {
        Access::Read if kind == CommandKind::Copy => Role::SrcOffset,
        Access::Write if kind == CommandKind::Copy => Role::DstOffset,
        _ => Role::Offset,
    }
}

/// Whether a launch's global work offset, as written, is none (a null pointer,
/// `cl::NullRange`, `None`) or zero in every dimension (`0`, `[0, 0]`, `&[0, 0, 0]`).
pub(crate) fn no_offset(text: &str) -> bool {
    let t: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    if (t.chars()).all(|c| matches!(c, '0' | '[' | ']' | '(' | ')' | ',' | '&')) {
        return true;
    }
    let t = t.trim_start_matches("std::").trim_start_matches("core::");
    matches!(
        t,
        "NULL"
            | "nullptr"
            | "0"
            | "ptr::null()"
            | "ptr::null_mut()"
            | "None"
            | "cl::NullRange"
            | "NullRange"
            | "(size_t*)NULL"
            | "(constsize_t*)NULL"
    )
}
