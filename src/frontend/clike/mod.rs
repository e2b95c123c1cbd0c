//! The C and C++ frontend: a tree-sitter syntax tree to the host IR, one [`Function`] per
//! function or method definition.
//!
//! tree-sitter reads any text: a missing header or an unknown macro leaves the rest of the
//! file readable, and a piece it cannot make sense of is an `ERROR` node, local to itself.
//! What is in such a node is forgotten (every variable it names). Both sides of an `#if`
//! are read, as the two arms of a branch. A call of a macro or function the binding
//! tables do not name has its arguments read as code (`OCL_CHECK(err, err = clFinish(q))`
//! lowers the `clFinish`), and an argument that is no expression (a declaration in
//! `OCL_CHECK(err, cl::Buffer b(ctx, flags, n, p, &err))`) is parsed again as a statement.
//! Calls the tables do not model forget what is known of their arguments.

mod apply;
mod functor;
mod omp;
mod stringify;
use apply::strip;
pub mod comments;
pub mod types;

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::OnceLock;

use tree_sitter::{Node, Parser, Tree};

use super::Lang;
use crate::frontend::bindings::{Bindings, Role};
use crate::frontend::sizes::c_type_size;
use crate::frontend::{failed_exit, list_or_host, swap, Const, Fields, FileIr};
use crate::ir::*;
use crate::source::SourceFile;
use types::{
    container_elem, declared_hint, handle_hint, last_name, member_hint, std_array_len,
    without_template_args,
};

/// The embedded tables of the C API and of the C++ wrapper.
const TABLES: &[(&str, &str)] = &[
    ("ffi", include_str!("../../../rules/bindings/ffi.toml")),
    ("c", include_str!("../../../rules/bindings/c.toml")),
    ("cpp", include_str!("../../../rules/bindings/cpp.toml")),
];

/// The binding tables C and C++ code is read with: the C API (shared with raw FFI) and
/// `opencl.hpp`. They are checked by a test, so a bad row never ships.
pub fn bindings() -> &'static Bindings {
    static B: OnceLock<Bindings> = OnceLock::new();
    B.get_or_init(|| Bindings::from_tables(TABLES).unwrap_or_default())
}

/// The table texts, for tests.
pub fn tables() -> &'static [(&'static str, &'static str)] {
    TABLES
}

/// How deep macro arguments parsed again as statements may nest.
const MAX_REPARSE: usize = 4;

/// How many loops around each other may each be lowered once per arm of an `if` they pick
/// on a condition they never change.
const MAX_UNSWITCHED: usize = 2;

/// Functions that return new host memory.
const ALLOCATING_CALLS: &[&str] = &[
    "malloc",
    "calloc",
    "aligned_alloc",
    "memalign",
    "valloc",
    "_mm_malloc",
    "_aligned_malloc",
];

/// Functions that only read their arguments (printing, asserting, error checks).
const READING_CALLS: &[&str] = &[
    "printf",
    "fprintf",
    "puts",
    "assert",
    "strlen",
    "sizeof",
    "test_error",
    "checkError",
    "check_error",
    "CHECK_CL_ERROR",
    "CHECK_ERROR",
    "CL_CHECK",
    "OCL_CHECK",
    "CHECK",
];

fn parse(text: &str, lang: Lang) -> Option<Tree> {
    thread_local! {
        static PARSERS: std::cell::RefCell<[Option<Parser>; 2]> = const {
            std::cell::RefCell::new([None, None])
        };
    }
    PARSERS.with(|p| {
        let mut p = p.borrow_mut();
        let slot = &mut p[lang as usize];
        if slot.is_none() {
            let mut parser = Parser::new();
            let language: tree_sitter::Language = match lang {
                Lang::C => tree_sitter_c::LANGUAGE.into(),
                Lang::Cpp => tree_sitter_cpp::LANGUAGE.into(),
            };
            parser.set_language(&language).ok()?;
            *slot = Some(parser);
        }
        slot.as_mut()?.parse(text, None)
    })
}

/// The named children of a node.
/// Records in `out` the fields `n` stores into, increments or takes the address of.
fn written_fields(n: Node<'_>, text: &str, out: &mut HashSet<String>) {
    let target = match n.kind() {
        "assignment_expression" => n.child_by_field_name("left"),
        "update_expression" => n.child_by_field_name("argument"),
        "pointer_expression"
            if n.child(0).is_some_and(|o| o.kind() == "&") && !read_only(n, text) =>
        {
            n.child_by_field_name("argument")
        }
        _ => None,
    };
    if let Some(f) = target
        .filter(|t| t.kind() == "field_expression")
        .and_then(|t| t.child_by_field_name("field"))
    {
        out.insert(text[f.byte_range()].to_string());
    }
    let mut c = n.walk();
    for child in n.named_children(&mut c) {
        written_fields(child, text, out);
    }
}

/// Whether an address is an argument of an API call that only reads through it, as the
/// binding tables say: a kernel argument's value, the data of a write, a fill's pattern.
fn read_only(n: Node<'_>, text: &str) -> bool {
    let Some(list) = n.parent().filter(|p| p.kind() == "argument_list") else {
        return false;
    };
    let args: Vec<Node<'_>> = named(list)
        .into_iter()
        .filter(|c| c.kind() != "comment")
        .collect();
    let (Some(at), Some(f)) = (
        args.iter().position(|a| a.id() == n.id()),
        list.parent()
            .and_then(|c| c.child_by_field_name("function")),
    ) else {
        return false;
    };
    let api = bindings().function(&path_segments(&text[f.byte_range()]), args.len());
    api.is_some_and(|api| {
        matches!(
            api.args.get(at),
            Some(Role::ArgValue | Role::Host { written: false } | Role::Pattern)
        )
    })
}

fn named(n: Node<'_>) -> Vec<Node<'_>> {
    let mut c = n.walk();
    n.named_children(&mut c).collect()
}

/// Whether `after` (`before` with fixes applied) reads as well as `before`: it has no more
/// pieces tree-sitter cannot parse.
pub fn still_parses(before: &str, after: &str, lang: Lang) -> Result<(), String> {
    let errors = |text: &str| {
        let tree = parse(text, lang).ok_or("could not be parsed")?;
        let mut c = tree.walk();
        let mut n = 0usize;
        loop {
            let node = c.node();
            if node.is_error() || node.is_missing() {
                n += 1;
            }
            if c.goto_first_child() {
                continue;
            }
            while !c.goto_next_sibling() {
                if !c.goto_parent() {
                    return Ok::<usize, String>(n);
                }
            }
        }
    };
    let (b, a) = (errors(before)?, errors(after)?);
    match a > b {
        true => Err(format!("{} more syntax errors", a - b)),
        false => Ok(()),
    }
}

/// How deep a syntax tree may nest: the lowering recurses once per level.
pub const MAX_DEPTH: usize = crate::nesting::MAX_NESTING;

/// The depth of a syntax tree, walked without recursion.
fn depth(tree: &Tree) -> usize {
    let mut c = tree.walk();
    let (mut d, mut max) = (0usize, 0usize);
    loop {
        if c.goto_first_child() {
            d += 1;
            max = max.max(d);
            continue;
        }
        while !c.goto_next_sibling() {
            if !c.goto_parent() {
                return max;
            }
            d -= 1;
        }
    }
}

/// Lowers every function and method definition of a C or C++ file. A file nested too
/// deeply to lower safely is refused with the reason.
pub fn lower_file(file_id: usize, src: &SourceFile, lang: Lang) -> Result<FileIr, String> {
    let stringified = stringify::stringified(&src.text);
    let parsed = stringified
        .as_ref()
        .map_or(src.text.as_str(), |s| s.text.as_str());
    let tree = parse(parsed, lang).ok_or("could not be parsed; the file was not checked")?;
    if depth(&tree) > MAX_DEPTH {
        return Err(format!(
            "nested more than {MAX_DEPTH} levels deep; the file was not checked"
        ));
    }
    let text: Rc<str> = Rc::from(parsed);
    let mut cx = FileCx {
        file: file_id,
        lang,
        text: text.clone(),
        consts: HashMap::new(),
        const_sizes: HashMap::new(),
        exiting_macros: HashSet::new(),
        checking_macros: HashMap::new(),
        value_macros: HashSet::new(),
        member_only_params: HashMap::new(),
        defined: HashSet::new(),
        returns: HashMap::new(),
        indexed: HashSet::new(),
        releasing: HashSet::new(),
        variadic: HashMap::new(),
        status_params: HashSet::new(),
        structs: HashMap::new(),
        field_types: HashMap::new(),
        globals: HashMap::new(),
        aliases: HashMap::new(),
        wrappers: HashMap::new(),
        next_cmd: 0,
        functions: Vec::new(),
    };
    for (name, value) in stringified.into_iter().flat_map(|s| s.strings) {
        cx.consts.insert(name, Const::Str(value));
    }
    let root = tree.root_node();
    // The program's own headers first (`#include "halo.h"`): their constants and structs;
    // the file's own come after and win.
    for (header_text, header) in headers(&src.path, root, &text, lang) {
        cx.text = header_text;
        cx.collect(header.root_node(), None);
    }
    cx.text = text.clone();
    cx.collect(root, None);
    cx.items(root, None);
    let mut structs: Vec<(String, Fields)> = cx.structs.into_iter().collect();
    structs.sort_by(|a, b| a.0.cmp(&b.0));
    // `static const char *conv_src = "__kernel void conv_rows(..)"`: a program's source,
    // whichever function builds it.
    let mut sources: Vec<String> = (cx.consts.into_values())
        .filter_map(|c| match c {
            Const::Str(s) if s.contains("kernel") => Some(s),
            _ => None,
        })
        .collect();
    sources.sort();
    Ok(FileIr {
        functions: cx.functions,
        structs,
        sources,
    })
}

/// Headers read for their constants and structs, at most this many per file, each at most
/// this large.
const MAX_HEADERS: usize = 32;
const MAX_HEADER_BYTES: u64 = 1 << 20;

/// The headers a file includes with quotes (`#include "halo.h"`), found beside it (or
/// beside the header that includes them), and the ones they include, each once.
fn headers(path: &Path, root: Node<'_>, text: &str, lang: Lang) -> Vec<(Rc<str>, Tree)> {
    let mut out: Vec<(Rc<str>, Tree)> = Vec::new();
    let mut seen: HashSet<PathBuf> = HashSet::new();
    let mut todo: Vec<PathBuf> = Vec::new();
    let dir = path.parent().unwrap_or(Path::new("."));
    quoted_includes(root, text, dir, &mut todo);
    while let Some(h) = todo.pop() {
        if out.len() >= MAX_HEADERS || !seen.insert(h.clone()) || h == path {
            continue;
        }
        let Ok(bytes) = crate::source::read_regular(&h, MAX_HEADER_BYTES) else {
            continue;
        };
        let t = crate::source::c_text(bytes);
        let Some(tree) = parse(&t, lang).filter(|t| depth(t) <= MAX_DEPTH) else {
            continue;
        };
        let here = h.parent().unwrap_or(Path::new(".")).to_path_buf();
        quoted_includes(tree.root_node(), &t, &here, &mut todo);
        out.push((Rc::from(t.as_str()), tree));
    }
    out
}

/// The files of the `#include "..."` lines under `n`, relative to `dir`.
fn quoted_includes(n: Node<'_>, text: &str, dir: &Path, out: &mut Vec<PathBuf>) {
    for c in named(n) {
        match c.kind() {
            "preproc_include" => {
                let Some(p) = c.child_by_field_name("path") else {
                    continue;
                };
                if p.kind() == "string_literal" {
                    let name = unescape(text.get(p.byte_range()).unwrap_or(""));
                    out.push(dir.join(name));
                }
            }
            "preproc_if"
            | "preproc_ifdef"
            | "preproc_else"
            | "preproc_elif"
            | "preproc_elifdef"
            | "linkage_specification"
            | "declaration_list" => quoted_includes(c, text, dir, out),
            _ => {}
        }
    }
}

struct FileCx {
    file: usize,
    lang: Lang,
    text: Rc<str>,
    /// `#define N 1024`, `const char *src = "..."`: integers and strings.
    consts: HashMap<String, Const>,
    /// The bytes of the declared type of each file-level constant of a scalar type
    /// (`constexpr size_t kSlots = ..;`: 8), where the type says.
    const_sizes: HashMap<String, u64>,
    /// Function-like macros whose body returns (`#define FAIL(..) do { ..; return NULL; }
    /// while (0)`).
    exiting_macros: HashSet<String>,
    /// Function-like macros whose body returns where a test of one parameter holds
    /// (`#define test_error(e, msg) do { if ((e) != CL_SUCCESS) { ..; return -1; } } while
    /// (0)`).
    checking_macros: HashMap<String, CheckingMacro>,
    /// Function-like macros of one parameter that check and give its value
    /// (`#define CL_CHECK_ERR(e) ({ .. __typeof__(e) _ret = e; .. _ret; })`).
    value_macros: HashSet<String>,
    /// Per function-like macro of the file, by position: where its body uses the parameter
    /// only to reach members (`(w)->status`), the members it writes; what the argument
    /// points to does not leave the function through it.
    member_only_params: HashMap<String, Vec<Option<Vec<String>>>>,
    /// Functions and methods (`Class::method`) defined in the file.
    defined: HashSet<String>,
    /// The type each of them returns, as written without qualifiers and template
    /// arguments (`DeviceSlot` of `DeviceSlot &dev(size_t i)`).
    returns: HashMap<String, String>,
    /// The parameters, by position, that a defined function's body indexes (`ev[1]`).
    indexed: HashSet<(String, usize)>,
    /// Defined functions that release their first parameter (an event callback doing
    /// `clReleaseEvent(ev)`).
    releasing: HashSet<String>,
    /// Functions of the program that take variable arguments (`log(const char *fmt, ...)`),
    /// with the number of their named parameters.
    variadic: HashMap<String, usize>,
    /// The parameters, by position, through which a defined function reports the status of
    /// an OpenCL call (`*err = clEnqueueNDRangeKernel(..)` of `cl_int *err`).
    status_params: HashSet<(String, usize)>,
    structs: HashMap<String, Fields>,
    /// The declared type of each field of a class or struct, by `Class::field`.
    field_types: HashMap<String, String>,
    /// Variables declared at file level (`static cl_command_queue q[2];`), by name.
    globals: HashMap<String, Global>,
    /// Type aliases (`typedef cl_mem buffer_t;`, `using avec = std::vector<int, ..>;`).
    aliases: HashMap<String, String>,
    /// C++ classes that only own one handle (RAII wrappers), by name.
    wrappers: HashMap<String, Wrapper>,
    next_cmd: usize,
    functions: Vec<Function>,
}

/// How a defined function's body uses its parameters, by position.
#[derive(Default)]
struct ParamUses {
    /// Indexed (`ev[1]`).
    indexed: Vec<usize>,
    /// Written through with an OpenCL call's status (`*err = clEnqueueNDRangeKernel(..)`).
    status: Vec<usize>,
    /// The first is released (`clReleaseEvent(ev)`).
    releases_first: bool,
}

/// A C++ class that owns one handle and hands it out (`template <class T> class Handle {
/// explicit Handle(T h) : h_(h) {} T get() const { return h_; } T *out() { return &h_; }
/// ~Handle() { .. } T h_; }`): a value of it is a struct whose one field is the handle, and
/// its methods that return the handle or its address name that field.
#[derive(Clone, Debug, Default)]
struct Wrapper {
    member: String,
    /// Methods that return the handle (`get`) or its address (`addr`, `out`).
    methods: HashSet<String>,
}

/// A variable declared at file level: its type as written, its declarator's shape, and the
/// key every function names it by (a `static` one is its file's own).
#[derive(Clone)]
struct Global {
    ty: String,
    pointers: usize,
    array: Option<Option<u64>>,
    key: String,
}

/// The text of a string literal, escapes resolved.
fn unescape(lit: &str) -> String {
    let body = lit.trim_start_matches(|c: char| c.is_ascii_alphanumeric());
    let body = body.strip_prefix('"').unwrap_or(body);
    let body = body.strip_suffix('"').unwrap_or(body);
    let mut out = String::with_capacity(body.len());
    let mut chars = body.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('0') => {}
            Some('\n') => {}
            Some(o) => out.push(o),
            None => {}
        }
    }
    out
}

/// An integer literal's value (`1024`, `0x10`, `4u`, `8UL`).
fn int_text(t: &str) -> Option<u64> {
    let t = t.trim_end_matches(['u', 'U', 'l', 'L']);
    match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        Some(h) => u64::from_str_radix(h, 16).ok(),
        None => t.parse().ok(),
    }
}

impl FileCx {
    fn txt(&self, n: Node<'_>) -> &str {
        self.text.get(n.byte_range()).unwrap_or("")
    }

    /// Collects the file's constants, struct fields and defined functions, in every arm
    /// of every `#if`.
    fn collect(&mut self, n: Node<'_>, class: Option<&str>) {
        for c in named(n) {
            match c.kind() {
                // `#define FAIL(w, e, what) do { ..; return NULL; } while (0)`: a statement
                // made of it leaves the function.
                "preproc_function_def" => {
                    if let (Some(name), Some(value)) = (
                        c.child_by_field_name("name"),
                        c.child_by_field_name("value"),
                    ) {
                        // Only a body that returns on every path: no test in it
                        // (`if ((cmd) != CL_SUCCESS) { ..; return ..; }` returns on failure).
                        let body = self.txt(value).to_string();
                        let words: Vec<&str> = (body
                            .split(|ch: char| !ch.is_ascii_alphanumeric() && ch != '_'))
                        .filter(|w| !w.is_empty())
                        .collect();
                        // `do { .. } while (0)` is one statement, not a loop.
                        let once = body.trim_end().ends_with("while (0)");
                        let tests = words.iter().any(|w| match *w {
                            "if" | "goto" | "switch" | "for" => true,
                            "while" => !once,
                            _ => false,
                        });
                        if words.contains(&"return") && !tests && !body.contains('?') {
                            self.exiting_macros.insert(self.txt(name).to_string());
                        }
                        let params: Vec<String> = c
                            .child_by_field_name("parameters")
                            .map(|p| named(p).iter().map(|x| self.txt(*x).to_string()).collect())
                            .unwrap_or_default();
                        if let Some(m) = checking_macro(&body, &params, self.lang) {
                            self.checking_macros.insert(self.txt(name).to_string(), m);
                        }
                        if let [param] = params.as_slice() {
                            if gives_param(&body, param) {
                                self.value_macros.insert(self.txt(name).to_string());
                            }
                        }
                        let member_only = params.iter().map(|p| member_only(&body, p)).collect();
                        self.member_only_params
                            .insert(self.txt(name).to_string(), member_only);
                    }
                }
                "preproc_def" => {
                    let (Some(name), Some(value)) = (
                        c.child_by_field_name("name"),
                        c.child_by_field_name("value"),
                    ) else {
                        continue;
                    };
                    let v = self.txt(value).trim().trim_matches(['(', ')']).trim();
                    let k = if v.starts_with('"') {
                        Some(Const::Str(unescape(v)))
                    } else {
                        int_text(v).map(Const::Int)
                    };
                    if let Some(k) = k {
                        self.consts.insert(self.txt(name).to_string(), k);
                    }
                }
                "declaration" if class.is_none() => {
                    if let Some(t) = c.child_by_field_name("type") {
                        self.enum_consts(t);
                    }
                    self.global_const(c);
                    self.global_vars(c);
                }
                "enum_specifier" => self.enum_consts(c),
                "function_definition" => {
                    if let Some(name) = self.function_name(c, class) {
                        let uses = self.param_uses(c);
                        for k in uses.indexed {
                            self.indexed.insert((name.clone(), k));
                        }
                        for k in uses.status {
                            self.status_params.insert((name.clone(), k));
                        }
                        if uses.releases_first {
                            self.releasing.insert(name.clone());
                        }
                        if let Some(n) = named_params_of_variadic(c) {
                            self.variadic.insert(name.clone(), n);
                        }
                        self.note_return(c, &name);
                        self.defined.insert(name);
                    }
                }
                "struct_specifier" | "class_specifier" => self.record(c, None),
                "type_definition" => {
                    let alias = c
                        .child_by_field_name("declarator")
                        .map(|d| self.txt(d).to_string());
                    if let Some(t) = c.child_by_field_name("type") {
                        self.enum_consts(t);
                        if matches!(t.kind(), "struct_specifier" | "class_specifier") {
                            self.record(t, alias);
                        } else if let (Some(a), true) = (
                            alias,
                            c.child_by_field_name("declarator")
                                .is_some_and(|d| d.kind() == "type_identifier"),
                        ) {
                            // `typedef cl_mem buffer_t;`
                            let target = self.txt(t).to_string();
                            self.aliases.insert(a, target);
                        }
                    }
                }
                // `using avec = std::vector<int, aligned_allocator<int>>;`
                "alias_declaration" => {
                    if let (Some(name), Some(t)) =
                        (c.child_by_field_name("name"), c.child_by_field_name("type"))
                    {
                        let (name, target) = (self.txt(name).to_string(), self.txt(t).to_string());
                        self.aliases.insert(name, target);
                    }
                }
                "template_declaration"
                | "linkage_specification"
                | "namespace_definition"
                | "declaration_list"
                | "preproc_if"
                | "preproc_ifdef"
                | "preproc_else"
                | "preproc_elif"
                | "preproc_elifdef" => self.collect(c, class),
                _ => {}
            }
        }
    }

    /// The enumerators of `enum { EV_WRITE, EV_RUN = 4, EV_READ }`: 0, 4 and 5. An
    /// enumerator whose value is not a literal or an earlier constant, and those after it,
    /// are not known.
    fn enum_consts(&mut self, e: Node<'_>) {
        if e.kind() != "enum_specifier" {
            return;
        }
        let Some(body) = e.child_by_field_name("body") else {
            return;
        };
        let mut next = Some(0u64);
        for item in named(body).into_iter().filter(|c| c.kind() == "enumerator") {
            let Some(name) = item.child_by_field_name("name") else {
                continue;
            };
            if let Some(value) = item.child_by_field_name("value") {
                next = match self.consts.get(self.txt(value).trim()) {
                    Some(Const::Int(v)) => Some(*v),
                    _ => int_text(self.txt(value).trim()),
                };
            }
            if let Some(v) = next {
                self.consts
                    .insert(self.txt(name).to_string(), Const::Int(v));
            }
            next = next.and_then(|v| v.checked_add(1));
        }
    }

    /// `static const int N = 4;`, `const char *src = "...";` at file level.
    fn global_const(&mut self, d: Node<'_>) {
        // `constexpr int kN = 1 << 10;`, `static const size_t N = 4 * 256;`: a value no
        // code can change, so an expression of constants is one too.
        let konst = named(d).iter().any(|c| {
            matches!(c.kind(), "type_qualifier" | "storage_class_specifier")
                && matches!(self.txt(*c), "const" | "constexpr")
        });
        let mut cur = d.walk();
        for decl in d.children_by_field_name("declarator", &mut cur) {
            if decl.kind() != "init_declarator" {
                continue;
            }
            let (Some(name), Some(value)) = (
                decl.child_by_field_name("declarator")
                    .map(declarator_name_node),
                decl.child_by_field_name("value"),
            ) else {
                continue;
            };
            let k = match value.kind() {
                "string_literal" | "concatenated_string" | "raw_string_literal" => {
                    Some(Const::Str(self.string_of_in(&self.text, value)))
                }
                "number_literal" => self.int_of_in(&self.text, value).map(Const::Int),
                // `static const char *sources[] = { "__kernel void a(..) ..", ".." };`, given
                // whole to `clCreateProgramWithSource(ctx, 2, sources, ..)`: their text.
                "initializer_list" => {
                    let parts: Vec<Node<'_>> = (named(value).into_iter())
                        .filter(|c| c.kind() != "comment")
                        .collect();
                    let strings = parts.iter().all(|c| {
                        matches!(
                            c.kind(),
                            "string_literal" | "concatenated_string" | "raw_string_literal"
                        )
                    });
                    (strings && !parts.is_empty()).then(|| {
                        Const::Str(
                            (parts.iter())
                                .map(|c| self.string_of_in(&self.text, *c))
                                .collect::<Vec<_>>()
                                .join("\n"),
                        )
                    })
                }
                // `STRINGIFY(..)`, replaced before parsing by the name of its string.
                "identifier" => match self.consts.get(self.txt(value)) {
                    Some(Const::Str(s)) => Some(Const::Str(s.clone())),
                    _ if konst => self.int_of_in(&self.text, value).map(Const::Int),
                    _ => None,
                },
                _ if konst => self.int_of_in(&self.text, value).map(Const::Int),
                _ => None,
            };
            if let (Some(k), Some(name)) = (k, name) {
                let name = self.txt(name).to_string();
                let scalar = decl
                    .child_by_field_name("declarator")
                    .is_some_and(|d| matches!(d.kind(), "identifier" | "field_identifier"));
                let size = (d.child_by_field_name("type"))
                    .filter(|_| scalar && matches!(k, Const::Int(_)))
                    .and_then(|t| c_type_size(&self.real_type(self.txt(t))));
                if let Some(n) = size {
                    self.const_sizes.insert(name.clone(), n);
                }
                self.consts.insert(name, k);
            }
        }
    }

    /// A type with its aliases resolved (`avec` of `using avec = std::vector<..>`), where
    /// it is one name.
    fn real_type(&self, ty: &str) -> String {
        let mut ty = ty.trim().to_string();
        for _ in 0..4 {
            let (konst, name) = match ty.strip_prefix("const ") {
                Some(rest) => ("const ", rest.trim()),
                None => ("", ty.as_str()),
            };
            match self.aliases.get(name) {
                Some(t) => ty = format!("{konst}{t}"),
                None => break,
            }
        }
        ty
    }

    /// The variables a file-level declaration declares (not its constants nor functions).
    fn global_vars(&mut self, d: Node<'_>) {
        let ty = d.child_by_field_name("type").map_or("", |t| self.txt(t));
        let ty = ty.to_string();
        let is_static = named(d)
            .iter()
            .any(|c| c.kind() == "storage_class_specifier" && self.txt(*c) == "static");
        let mut cur = d.walk();
        let decls: Vec<Node<'_>> = d.children_by_field_name("declarator", &mut cur).collect();
        for decl in decls {
            let shape = self.declarator(&self.text, decl);
            let Some(name) = shape.name.map(|n| self.txt(n).to_string()) else {
                continue;
            };
            if self.consts.contains_key(&name) {
                continue;
            }
            let key = global_key(self.file, &name, is_static);
            let global = Global {
                ty: ty.clone(),
                pointers: shape.pointers,
                array: shape.array,
                key,
            };
            self.globals.insert(name, global);
        }
    }

    /// The fields of a struct or class with a body (and its methods, as defined names).
    fn record(&mut self, s: Node<'_>, alias: Option<String>) {
        let Some(body) = s.child_by_field_name("body") else {
            return;
        };
        let name = s
            .child_by_field_name("name")
            .map(|n| self.txt(n).to_string())
            .or(alias);
        let Some(name) = name else { return };
        let record = name.clone();
        let mut fields = Vec::new();
        for f in named(body) {
            match f.kind() {
                "field_declaration" => {
                    let ty = f.child_by_field_name("type").map_or("", |t| self.txt(t));
                    let ty = ty.to_string();
                    let mut cur = f.walk();
                    for d in f.children_by_field_name("declarator", &mut cur) {
                        let shape = self.declarator(&self.text, d);
                        if let Some(n) = shape.name {
                            let real = self.real_type(&ty);
                            let name = self.txt(n).to_string();
                            if shape.pointers == 0 && shape.array.is_none() {
                                (self.field_types).insert(format!("{record}::{name}"), ty.clone());
                            }
                            if let Some(h) = member_hint(&real, shape.array, shape.pointers) {
                                fields.push((members_of(&name), h));
                            }
                            fields.push((name, declared_hint(&real, shape.array, shape.pointers)));
                        }
                    }
                }
                "function_definition" => {
                    if let Some(m) = self.function_name(f, Some(&name)) {
                        self.note_return(f, &m);
                        self.defined.insert(m);
                    }
                }
                _ => {}
            }
        }
        if let Some(w) = self.wrapper(body, &name, &fields) {
            self.wrappers.insert(name.clone(), w);
        }
        self.structs.insert(name, fields);
    }

    /// The class as a wrapper of one handle: one data member and a constructor of one
    /// parameter that initializes it (`: h_(h)`); its methods whose last statement returns
    /// the member or its address hand the handle out, as the member itself does where it is
    /// public (`a0.m`).
    fn wrapper(&self, body: Node<'_>, class: &str, fields: &Fields) -> Option<Wrapper> {
        let data: Vec<&String> = (fields.iter())
            .map(|(f, _)| f)
            .filter(|f| !f.ends_with("[]"))
            .collect();
        let [member] = data.as_slice() else {
            return None;
        };
        let member = member.to_string();
        let mut wraps = false;
        let mut methods = HashSet::new();
        for f in named(body)
            .into_iter()
            .filter(|f| f.kind() == "function_definition")
        {
            // `T *out()`, `const T &ref()`: the function declarator under the pointer.
            let mut decl = f.child_by_field_name("declarator");
            while let Some(d) =
                decl.filter(|d| matches!(d.kind(), "pointer_declarator" | "reference_declarator"))
            {
                decl = d
                    .child_by_field_name("declarator")
                    .or_else(|| named(d).pop());
            }
            let Some(decl) = decl else {
                continue;
            };
            let fname = decl
                .child_by_field_name("declarator")
                .map_or("", |n| self.txt(n));
            let params = decl
                .child_by_field_name("parameters")
                .map_or(0, |p| named(p).len());
            let inits = named(f)
                .into_iter()
                .find(|c| c.kind() == "field_initializer_list");
            if fname == class && params == 1 {
                wraps |= inits.is_some_and(|l| {
                    named(l).into_iter().any(|i| {
                        // `h_(h)`, `h_{h}`
                        self.txt(i).split(['(', '{']).next().map(str::trim) == Some(member.as_str())
                    })
                });
                continue;
            }
            let last = f
                .child_by_field_name("body")
                .and_then(|b| named(b).into_iter().rev().find(|s| s.kind() != "comment"));
            let returned = last
                .filter(|s| s.kind() == "return_statement")
                .map(|s| {
                    self.txt(s)
                        .trim_start_matches("return")
                        .trim_end_matches(';')
                })
                .map(|e| e.trim().trim_start_matches('&').trim().to_string());
            if params == 0 && returned.as_deref() == Some(member.as_str()) {
                methods.insert(fname.to_string());
            }
        }
        wraps.then_some(Wrapper { member, methods })
    }

    /// The wrapper class a type names (`Mem` of `using Mem = Handle<cl_mem, ..>`).
    fn wrapper_of(&self, ty: &str) -> Option<String> {
        let real = self.real_type(ty);
        let base = without_template_args(real.trim_start_matches("const "));
        let name = last_name(base);
        self.wrappers.contains_key(name).then(|| name.to_string())
    }

    /// Records the type a function definition returns.
    fn note_return(&mut self, def: Node<'_>, name: &str) {
        if let Some(t) = def.child_by_field_name("type") {
            let ty = self.txt(t).trim_start_matches("const ");
            let ty = last_name(without_template_args(ty)).to_string();
            self.returns.insert(name.to_string(), ty);
        }
    }

    /// The name a function definition is known by: `f`, `Class::method`.
    fn function_name(&self, def: Node<'_>, class: Option<&str>) -> Option<String> {
        let name = function_declarator(def)?.child_by_field_name("declarator")?;
        // `void CL_CALLBACK done(..)`: C++ takes the calling-convention macro into the
        // declarator's name.
        let name = match self.txt(name).rsplit_once(char::is_whitespace) {
            Some((_, last)) if !self.txt(name).contains("operator") => last,
            _ => self.txt(name),
        };
        let text: String = name
            .split("::")
            .map(without_template_args)
            .collect::<Vec<_>>()
            .join("::");
        Some(match class {
            Some(c) => format!("{c}::{text}"),
            None => text,
        })
    }

    /// The positions of the parameters a function's body indexes (`ev[1]` of `cl_event *ev`),
    /// and of those it stores an OpenCL call's status through (`*err = clEnqueue..(..)`).
    fn param_uses(&self, def: Node<'_>) -> ParamUses {
        let (Some(params), Some(body)) = (
            function_declarator(def).and_then(|d| d.child_by_field_name("parameters")),
            def.child_by_field_name("body"),
        ) else {
            return ParamUses::default();
        };
        let names: Vec<Option<&str>> = named(params)
            .into_iter()
            .filter(|p| p.kind() == "parameter_declaration")
            .map(|p| {
                let d = p.child_by_field_name("declarator")?;
                Some(self.txt(self.declarator(&self.text, d).name?))
            })
            .collect();
        let param = |b: Option<Node<'_>>| {
            b.map(strip)
                .filter(|b| b.kind() == "identifier")
                .and_then(|b| names.iter().position(|n| *n == Some(self.txt(b))))
        };
        let mut uses = ParamUses::default();
        let mut stack = vec![body];
        while let Some(x) = stack.pop() {
            match x.kind() {
                "subscript_expression" => {
                    (uses.indexed).extend(param(x.child_by_field_name("argument")));
                }
                "call_expression" => {
                    let releases = (x.child_by_field_name("function"))
                        .is_some_and(|f| self.txt(f) == "clReleaseEvent");
                    let first = (x.child_by_field_name("arguments"))
                        .and_then(|a| named(a).into_iter().next());
                    uses.releases_first |= releases && param(first) == Some(0);
                }
                "assignment_expression" => {
                    let left = x.child_by_field_name("left").map(strip);
                    let through = left
                        .filter(|l| {
                            l.kind() == "pointer_expression"
                                && l.child(0).is_some_and(|o| self.txt(o) == "*")
                        })
                        .and_then(|l| param(l.child_by_field_name("argument")));
                    let of_cl = x
                        .child_by_field_name("right")
                        .map(strip)
                        .filter(|r| r.kind() == "call_expression")
                        .and_then(|r| r.child_by_field_name("function"))
                        .is_some_and(|f| self.txt(f).starts_with("cl"));
                    if let (Some(k), true) = (through, of_cl) {
                        uses.status.push(k);
                    }
                }
                _ => {}
            }
            stack.extend(named(x));
        }
        uses
    }

    /// What a declarator declares: the name node, pointer depth, array length.
    fn declarator<'t>(&self, text: &str, d: Node<'t>) -> Shape<'t> {
        let mut shape = Shape::default();
        let mut d = Some(d);
        while let Some(n) = d {
            match n.kind() {
                "identifier" | "field_identifier" => {
                    shape.name = Some(n);
                    break;
                }
                "pointer_declarator" => shape.pointers += 1,
                "array_declarator" => {
                    let len = n
                        .child_by_field_name("size")
                        .and_then(|s| self.int_of_in(text, s));
                    shape.array = Some(len);
                    shape.dims += 1;
                }
                "init_declarator" => shape.init = n.child_by_field_name("value"),
                "function_declarator" => return Shape::default(),
                "reference_declarator" | "parenthesized_declarator" => {
                    shape.reference |= n.kind() == "reference_declarator";
                    d = named(n).into_iter().next();
                    continue;
                }
                _ => break,
            }
            d = n.child_by_field_name("declarator");
        }
        shape
    }

    /// Lowers the function definitions under `n`.
    fn items(&mut self, n: Node<'_>, class: Option<&str>) {
        for c in named(n) {
            match c.kind() {
                "function_definition" => self.function(c, class),
                "struct_specifier" | "class_specifier" => {
                    let name = c
                        .child_by_field_name("name")
                        .map(|n| self.txt(n).to_string());
                    if let (Some(name), Some(body)) = (name, c.child_by_field_name("body")) {
                        self.items(body, Some(&name));
                    }
                }
                "template_declaration"
                | "linkage_specification"
                | "namespace_definition"
                | "declaration_list"
                | "field_declaration_list"
                | "preproc_if"
                | "preproc_ifdef"
                | "preproc_else"
                | "preproc_elif"
                | "preproc_elifdef" => self.items(c, class),
                _ => {}
            }
        }
    }

    fn function(&mut self, def: Node<'_>, class: Option<&str>) {
        let (Some(name), Some(body)) = (
            self.function_name(def, class),
            def.child_by_field_name("body"),
        ) else {
            return;
        };
        // A method defined outside its class: `void Halo::step() {..}`.
        let owner = class
            .map(str::to_string)
            .or_else(|| name.rsplit_once("::").map(|(c, _)| c.to_string()))
            .filter(|c| self.structs.contains_key(c));
        let text = self.text.clone();
        let mut l = Lowerer {
            cx: self,
            text,
            base: 0,
            reparse_depth: 0,
            macro_span: None,
            class: owner.clone(),
            strs: HashMap::new(),
            vars: Vec::new(),
            scopes: vec![HashMap::new()],
            out: Vec::new(),
            in_switch: Vec::new(),
            event_elems: Vec::new(),
            outs: Outs::default(),
            statuses: HashMap::new(),
            field_statuses: HashMap::new(),
            elem_types: HashMap::new(),
            declaring: None,
            handle_ptrs: HashMap::new(),
            scalar_sizes: HashMap::new(),
            int_vars: HashSet::new(),
            n_params: 0,
            refs: HashMap::new(),
            dims: HashMap::new(),
            lens: HashMap::new(),
            wrapped: HashMap::new(),
            unswitching: HashSet::new(),
            unswitched: HashMap::new(),
            init_names: HashMap::new(),
            const_locals: HashMap::new(),
            in_cleanup: false,
            macro_tail: None,
            made_status: None,
            pointer_result: None,
            omp: Vec::new(),
            spawn_iterations: false,
            spawned_iterations: false,
            range_vars: HashSet::new(),
            futures: HashSet::new(),
            written_fields: HashSet::new(),
            lambdas: HashMap::new(),
            chain_exit: None,
            in_main: name == "main",
        };
        written_fields(body, &l.text, &mut l.written_fields);
        let mut params = Vec::new();
        // A method's receiver is its first parameter, as `self` is in Rust.
        if let Some(c) = &owner {
            let v = l.bind("this", TypeHint::Unknown);
            l.type_var(v, c, 0);
            l.vars[v].member = Member::Implicit;
            params.push(v);
        }
        if let Some(list) =
            function_declarator(def).and_then(|f| f.child_by_field_name("parameters"))
        {
            for p in named(list) {
                let Some((v, shape, ty)) = l.bind_param(p) else {
                    continue;
                };
                l.type_members(v, &ty, shape.array, shape.pointers);
                // `std::vector<std::unique_ptr<Slot>>& slots`: its members' type.
                if let (Some(e), 0) = (vector_elem(&ty), shape.pointers) {
                    l.elem_types.insert(v, e.to_string());
                }
                if shape.reference {
                    l.vars[v].member = Member::Ref;
                }
                if shape.dims > 1 {
                    l.dims.insert(v, shape.dims);
                }
                params.push(v);
            }
        }
        l.n_params = l.vars.len();
        if let Some(inits) = named(def)
            .into_iter()
            .find(|c| c.kind() == "field_initializer_list")
        {
            l.member_inits(inits);
        }
        l.stmt(body);
        let span = l.span(def);
        let function = Function {
            name,
            span,
            vars: l.vars,
            params,
            body: l.out,
            returns_host: None,
        };
        self.functions.push(function);
    }
}

/// What a declarator declares.
#[derive(Default)]
struct Shape<'t> {
    name: Option<Node<'t>>,
    pointers: usize,
    /// `Some(len)` for an array (`len` when it is a known constant).
    array: Option<Option<u64>>,
    /// A C++ reference (`T &x`).
    reference: bool,
    /// How many array dimensions (`cl_event w[N][3]`: 2).
    dims: usize,
    init: Option<Node<'t>>,
}

/// The identifier a declarator declares.
fn declarator_name_node(d: Node<'_>) -> Option<Node<'_>> {
    match d.kind() {
        "identifier" | "field_identifier" => Some(d),
        _ => d
            .child_by_field_name("declarator")
            .or_else(|| named(d).into_iter().next())
            .and_then(declarator_name_node),
    }
}

struct Lowerer<'c> {
    cx: &'c mut FileCx,
    /// The text the nodes being lowered come from: the file's, or a macro argument's
    /// wrapped to be parsed again.
    text: Rc<str>,
    /// Where `text` starts in the file (negative for a wrapper's prefix).
    base: isize,
    reparse_depth: usize,
    /// While a checking macro's test is lowered from text made for it: the span of the
    /// argument it tests and of the whole call, in the file. A piece of the made text
    /// outside the argument has the call's span.
    macro_span: Option<(Span, Span)>,
    /// The class of a method: bare names of its fields are `this`'s.
    class: Option<String>,
    /// Locals bound to a known string (kernel names and sources).
    strs: HashMap<Var, String>,
    vars: Vec<VarInfo>,
    scopes: Vec<HashMap<String, Var>>,
    out: Vec<Stmt>,
    /// For each enclosing loop or switch, whether it is a switch (`break` leaves it).
    in_switch: Vec<bool>,
    /// Elements of arrays (`ev[0]`) that commands wrote their events to.
    event_elems: Vec<Place>,
    /// The commands lowered since the last statement began.
    outs: Outs,
    /// Status variables (`err = clEnqueue..(.., &ev)`) and the commands of those calls.
    statuses: HashMap<Var, Outs>,
    /// Likewise for a status kept in a field (`p.status = clEnqueue..(.., &up)`), by the
    /// field as written.
    field_statuses: HashMap<String, Outs>,
    /// The element type of each `std::vector` variable (`cl::CommandQueue`).
    elem_types: HashMap<Var, String>,
    /// The local a declaration being lowered makes (`sample` of `Sample sample(1, 2);`).
    declaring: Option<String>,
    /// Variables declared as pointers to a handle, with its type: `cl_event *done` (an event
    /// out-parameter, `*done` an event), `cl_program *out`.
    handle_ptrs: HashMap<Var, TypeHint>,
    /// The size in bytes of each variable declared with a host scalar type (`size_t dim`:
    /// 8): what `setArg(i, dim)` and `sizeof(dim)` pass.
    scalar_sizes: HashMap<Var, u64>,
    /// The variables of those whose type is an integer type (`int dim`, `size_t n`).
    int_vars: HashSet<Var>,
    /// The function's parameters are its first variables.
    n_params: usize,
    /// Local C++ references (`Gpu &g = gpu[d]`): the place each one names.
    refs: HashMap<Var, Place>,
    /// Arrays of more than one dimension, with their count (`cl_event w[N][3]`: 2).
    dims: HashMap<Var, usize>,
    /// Local arrays of a constant length (`DevPlan plan[NDEV]`, `std::array<DevPlan, 2>`).
    lens: HashMap<Var, u64>,
    /// Variables of a wrapper class, and lists of them (`std::vector<Mem>`), by the class.
    wrapped: HashMap<Var, String>,
    /// Loops being lowered once per arm of an `if` in them, and the arm each such `if`
    /// takes in the copy being lowered.
    unswitching: HashSet<Span>,
    unswitched: HashMap<Span, usize>,
    /// The identifiers of each local's initializer (`props[] = {.., CL_QUEUE_..}`).
    init_names: HashMap<Var, Vec<String>>,
    /// `const` locals bound to a constant (`const float zero = 0.0f`): the constant's key,
    /// so that fills naming them compare by value.
    const_locals: HashMap<Var, String>,
    /// Fields the function stores into, increments or takes the address of, whatever
    /// their struct (`s->n = 0`, `++d.count`, `&cfg->n`).
    written_fields: HashSet<String>,
    /// Lowering the statements a `goto` jumps to: a jump in them leaves the function.
    in_cleanup: bool,
    /// The statements a checking macro's `goto cleanup;` runs, lowered from the function
    /// the macro is used in (the macro's own text has no label to find).
    macro_tail: Option<Vec<Stmt>>,
    /// The status variable the user event just made reports to (`&err`).
    made_status: Option<Var>,
    /// The call just lowered returns a pointer, not a status (`clEnqueueMapBuffer`), and
    /// reports to this variable where it is given one (`&err`).
    pointer_result: Option<Option<Var>>,
    /// The OpenMP parallel regions being lowered, innermost last.
    omp: Vec<omp::Region>,
    /// The next `for` loop is a `parallel for`: each iteration runs in a thread; set once
    /// its iterations were made threads.
    spawn_iterations: bool,
    spawned_iterations: bool,
    /// Locals declared as ranges (`cl::NDRange global(n)`).
    range_vars: HashSet<Var>,
    /// Locals that hold a `std::future` (declared as one, or made by `std::async`), or
    /// the item of a loop over a list of them: `get()` and `wait()` join the task.
    futures: HashSet<Var>,
    /// The `if`s (by where they start) of a run on one status that the function returns
    /// right after it, and that status.
    chain_exit: Option<(HashSet<usize>, Value)>,
    /// Locals bound to a lambda (`auto release_all = [&]() {..};`, `auto launch = [](cl::
    /// CommandQueue &q, ..) {..}`), with its parameters and body: a call of one binds the
    /// parameters and runs the body there.
    lambdas: HashMap<Var, (Vec<Var>, Vec<Stmt>)>,
    /// Lowering `main`: a `return` of a failure status ends the program.
    in_main: bool,
}

/// Statements a cleanup label's tail may have and still be copied at each jump to it.
const MAX_CLEANUP_STMTS: usize = 48;

/// The most handles an array of null handles (`cl_event ev[N] = {0}`) is lowered to one by
/// one; a larger one stays a value not known.
const MAX_NULL_SLOTS: u64 = 64;

impl Lowerer<'_> {
    /// The arguments of a statement that calls a function-like macro of the file whose body
    /// returns (`FAIL(w, err, "what");`).
    fn exiting_macro<'t>(&self, n: Node<'t>) -> Option<Node<'t>> {
        let call = named(n)
            .into_iter()
            .next()
            .filter(|c| c.kind() == "call_expression")?;
        let f = call.child_by_field_name("function")?;
        (f.kind() == "identifier" && self.cx.exiting_macros.contains(self.txt(f)))
            .then(|| call.child_by_field_name("arguments"))
            .flatten()
    }

    /// Lowers a statement that calls a checking macro of the file (`test_error(err,
    /// "what");`) as the test its body makes: `if ((err) != CL_SUCCESS) { return -1; }`,
    /// the argument read where it is written. `false` where the statement is no such call.
    fn checking_call(&mut self, n: Node<'_>) -> bool {
        let Some(call) = named(n)
            .into_iter()
            .next()
            .filter(|c| c.kind() == "call_expression")
        else {
            return false;
        };
        let (Some(f), Some(args)) = (
            call.child_by_field_name("function"),
            call.child_by_field_name("arguments"),
        ) else {
            return false;
        };
        let Some(m) = (f.kind() == "identifier")
            .then(|| self.cx.checking_macros.get(self.txt(f)).cloned())
            .flatten()
        else {
            return false;
        };
        let args: Vec<Node<'_>> = (named(args).into_iter())
            .filter(|a| a.kind() != "comment")
            .collect();
        let Some(tested) = args.get(m.param).copied() else {
            return false;
        };
        for (i, a) in args.iter().enumerate() {
            if i != m.param {
                self.expr(*a);
            }
        }
        let spans = (self.span(tested), self.span(n));
        let outer = self.macro_span.replace(spans);
        // `CHECK_GOTO(err)` with a `goto cleanup;`: the cleanup of this function.
        let tail = (m.label.as_deref())
            .filter(|_| !self.in_cleanup)
            .and_then(|label| self.cleanup_tail(n, label))
            .map(|tail| self.separate(|l| l.cleanup(&tail)));
        let outer_tail = std::mem::replace(&mut self.macro_tail, tail);
        let code = self.txt(tested).to_string();
        self.with_reparsed((&m.lead, &m.tail), &code, tested.start_byte(), |l, body| {
            for s in named(body) {
                l.stmt(s);
            }
        });
        self.macro_tail = outer_tail;
        self.macro_span = outer;
        true
    }

    /// The operand of a C++ named cast (`static_cast`, `const_cast`, `reinterpret_cast`) or
    /// of a functional cast to a number type (`size_t(c)`, `float(i)`).
    fn cpp_cast<'t>(&self, n: Node<'t>) -> Option<Node<'t>> {
        let f = n.child_by_field_name("function")?;
        let named_cast = || {
            f.child_by_field_name("name").is_some_and(|name| {
                f.kind() == "template_function"
                    && matches!(
                        self.txt(name),
                        "static_cast" | "const_cast" | "reinterpret_cast"
                    )
            })
        };
        let number_type = || {
            f.kind() == "primitive_type"
                || (f.kind() == "identifier"
                    && self.lookup(self.txt(f)).is_none()
                    && !self.cx.defined.contains(self.txt(f))
                    && c_type_size(&self.cx.real_type(self.txt(f))).is_some())
        };
        let cast = self.cx.lang == Lang::Cpp && (named_cast() || number_type());
        let args = named(n.child_by_field_name("arguments")?);
        match (cast, args.as_slice()) {
            (true, [x]) => Some(*x),
            _ => None,
        }
    }

    /// The statements a jump to a cleanup label runs, where a jump in them leaves the
    /// function.
    fn cleanup(&mut self, tail: &[Node<'_>]) {
        self.in_cleanup = true;
        for t in tail {
            self.stmt(*t);
        }
        self.in_cleanup = false;
    }

    /// The statements from `label`, which a jump at `goto` names, to the end of the
    /// function's body, when the label is a statement of the body itself, after the jump,
    /// and the tail is short (`out: if (ev) clReleaseEvent(ev); return err;`).
    fn cleanup_tail<'t>(&self, goto: Node<'t>, label: &str) -> Option<Vec<Node<'t>>> {
        // The innermost block around the jump that has the label after it: the function's
        // body, or a block in it (a thread's or an iteration's own cleanup, whose tail is
        // followed to its end).
        let mut body = goto.parent()?;
        loop {
            if body.kind() == "compound_statement" {
                let stmts = named(body);
                let at = stmts.iter().position(|s| {
                    s.kind() == "labeled_statement"
                        && s.start_byte() > goto.start_byte()
                        && (s.child_by_field_name("label")).is_some_and(|l| self.txt(l) == label)
                });
                if let Some(at) = at {
                    let tail = stmts[at..].to_vec();
                    return (tail.len() <= MAX_CLEANUP_STMTS).then_some(tail);
                }
            }
            if body.kind() == "function_definition" {
                return None;
            }
            body = body.parent()?;
        }
    }

    fn txt(&self, n: Node<'_>) -> &str {
        self.text.get(n.byte_range()).unwrap_or("")
    }

    fn span(&self, n: Node<'_>) -> Span {
        let at = |b: usize| (b as isize + self.base).max(0) as usize;
        let span = Span {
            file: self.cx.file,
            start: at(n.start_byte()),
            end: at(n.end_byte()),
        };
        match self.macro_span {
            Some((arg, call)) if span.start < arg.start || span.end > arg.end => call,
            _ => span,
        }
    }

    fn arg_span(&self, n: Node<'_>) -> ArgSpan {
        ArgSpan {
            span: self.span(n),
            text: self.txt(n).to_string(),
        }
    }

    fn bind(&mut self, name: &str, hint: TypeHint) -> Var {
        let v = self.vars.len();
        self.vars.push(VarInfo {
            name: name.to_string(),
            hint,
            fields: Vec::new(),
            ty: None,
            member: Member::Dot,
            global: None,
        });
        if let Some(s) = self.scopes.last_mut() {
            s.insert(name.to_string(), v);
        }
        v
    }

    /// Gives a variable of a struct type of the file its fields.
    /// Gives an array, pointer or vector of OpenCL handles its members' kind.
    fn type_members(&mut self, v: Var, ty: &str, array: Option<Option<u64>>, pointers: usize) {
        if let Some(h) = member_hint(&self.cx.real_type(ty), array, pointers) {
            self.vars[v].fields.push((members_of(""), h));
        }
    }

    fn note_scalar_type(&mut self, v: Var, ty: &str) {
        let real = self.cx.real_type(ty);
        if let Some(n) = c_type_size(&real) {
            self.scalar_sizes.insert(v, n);
            if is_int_type(&real) {
                self.int_vars.insert(v);
            }
        }
    }

    /// The length `sizeof(a) / sizeof(a[0])` (or `sizeof a / sizeof *a`) computes, for an
    /// array of the function whose length is known.
    fn array_count(&self, n: Node<'_>) -> Option<u64> {
        let operand = |side: &str| -> Option<Node<'_>> {
            let s = strip(n.child_by_field_name(side)?);
            (s.kind() == "sizeof_expression")
                .then(|| s.child_by_field_name("value"))
                .flatten()
                .map(strip)
        };
        let (whole, one) = (operand("left")?, operand("right")?);
        if whole.kind() != "identifier" {
            return None;
        }
        let element_of = match one.kind() {
            "subscript_expression" | "pointer_expression" => one.child_by_field_name("argument"),
            _ => None,
        }
        .map(strip)?;
        if self.txt(element_of) != self.txt(whole) {
            return None;
        }
        let v = self.lookup(self.txt(whole))?;
        self.lens.get(&v).copied()
    }

    /// Whether a condition says a status is an error code: `err == CL_INVALID_VALUE`,
    /// either way round (`CL_SUCCESS` aside).
    fn asserts_failure(&self, cond: Node<'_>) -> bool {
        let cond = strip(cond);
        if cond.kind() != "binary_expression"
            || cond.child_by_field_name("operator").map(|o| self.txt(o)) != Some("==")
        {
            return false;
        }
        let (Some(l), Some(r)) = (
            cond.child_by_field_name("left").map(strip),
            cond.child_by_field_name("right").map(strip),
        ) else {
            return false;
        };
        let status = |x: Node<'_>| {
            x.kind() == "identifier"
                && self
                    .lookup(self.txt(x))
                    .is_some_and(|v| self.statuses.contains_key(&v))
        };
        let error = |x: Node<'_>| {
            x.kind() == "identifier"
                && self.txt(x).starts_with("CL_")
                && self.txt(x) != "CL_SUCCESS"
        };
        (status(l) && error(r)) || (error(l) && status(r))
    }

    /// `v.size()`, `s.length()` of a standard container or string: a `size_t`.
    fn container_size(&self, n: Node<'_>) -> bool {
        let Some(f) = n.child_by_field_name("function") else {
            return false;
        };
        let no_args = n
            .child_by_field_name("arguments")
            .is_some_and(|a| a.named_child_count() == 0);
        f.kind() == "field_expression"
            && no_args
            && f.child_by_field_name("field")
                .is_some_and(|x| matches!(self.txt(x), "size" | "length"))
    }

    /// Whether a value is of an integer type, where its declaration or its literal says.
    fn integral(&self, n: Node<'_>) -> bool {
        let n = strip(n);
        match n.kind() {
            "identifier" => self
                .lookup(self.txt(n))
                .is_some_and(|v| self.int_vars.contains(&v)),
            "number_literal" => !floating_literal(&self.txt(n).to_ascii_lowercase()),
            "sizeof_expression" => true,
            "call_expression" => self.container_size(n),
            "cast_expression" => n
                .child_by_field_name("type")
                .is_some_and(|t| is_int_type(&self.cx.real_type(self.txt(t)))),
            "binary_expression" => {
                match (
                    n.child_by_field_name("left"),
                    n.child_by_field_name("right"),
                ) {
                    (Some(l), Some(r)) => self.integral(l) && self.integral(r),
                    _ => false,
                }
            }
            _ => false,
        }
    }

    /// The bytes a kernel argument passes: `sizeof(T)` or `sizeof(x)` given as its size,
    /// else the type of the value itself (`kernel.setArg(4, count[d])`).
    fn arg_bytes(&self, size: Option<Node<'_>>, value: Option<Node<'_>>) -> Option<u64> {
        match size {
            Some(s) => {
                let s = strip(s);
                if s.kind() != "sizeof_expression" {
                    return None;
                }
                match s.child_by_field_name("type") {
                    Some(t) => c_type_size(&self.cx.real_type(self.txt(t))),
                    None => self.value_bytes(s.child_by_field_name("value")?),
                }
            }
            None => self.value_bytes(value?),
        }
    }

    /// The bytes of a value's type, where its declaration or its literal says.
    fn value_bytes(&self, n: Node<'_>) -> Option<u64> {
        let n = strip(n);
        match n.kind() {
            "identifier" => match self.lookup(self.txt(n)) {
                Some(v) => self.scalar_sizes.get(&v).copied(),
                // `setArg(2, kSlots)` of a `constexpr size_t kSlots`, or `sizeof(n_)` of a
                // member of the method's class.
                None => (self.cx.const_sizes.get(self.txt(n)).copied())
                    .or_else(|| c_type_size(&self.cx.real_type(self.member_type(self.txt(n))?))),
            },
            // `count[d]` of a `std::vector<size_t>`.
            "subscript_expression" => {
                let base = strip(n.child_by_field_name("argument")?);
                let v = self.lookup(self.txt(base))?;
                c_type_size(&self.cx.real_type(self.elem_types.get(&v)?))
            }
            "number_literal" => {
                let t = self.txt(n).to_ascii_lowercase();
                if floating_literal(&t) {
                    return Some(if t.ends_with('f') { 4 } else { 8 });
                }
                let suffix = t.trim_start_matches(|c: char| c.is_ascii_hexdigit() || c == 'x');
                match suffix {
                    "" | "u" => Some(4),
                    "ll" | "ull" | "llu" => Some(8),
                    _ => None,
                }
            }
            "cast_expression" => {
                c_type_size(&self.cx.real_type(self.txt(n.child_by_field_name("type")?)))
            }
            // `sizeof(x)`, `v.size()` of a standard container: a `size_t`.
            "sizeof_expression" => Some(8),
            "call_expression" if self.container_size(n) => Some(8),
            // `d->rows`, `devs[i].rows`: the field's declared type.
            "field_expression" => {
                let mut base = strip(n.child_by_field_name("argument")?);
                if base.kind() == "subscript_expression" {
                    base = strip(base.child_by_field_name("argument")?);
                }
                if base.kind() != "identifier" {
                    return None;
                }
                // A local's type, or a member's of the method's class (`cfg_.dt` of a
                // `const Config& cfg_`).
                let ty = match self.lookup(self.txt(base)) {
                    Some(v) => self.vars[v].ty.clone()?,
                    None => {
                        let member = self.member_type(self.txt(base))?;
                        last_name(&self.cx.real_type(member)).to_string()
                    }
                };
                let field = self.txt(n.child_by_field_name("field")?);
                let declared = self.cx.field_types.get(&format!("{ty}::{field}"))?;
                c_type_size(&self.cx.real_type(declared))
            }
            // `base + m`: the usual arithmetic conversions, where they give one size whatever
            // the operands are (integers or floating): operands of one size, or of sizes up
            // to an `int`'s, promoted to at least an `int`. A comparison is an `int`.
            "binary_expression" => {
                let op = self.txt(n.child_by_field_name("operator")?);
                if matches!(op, "==" | "!=" | "<" | ">" | "<=" | ">=" | "&&" | "||") {
                    return Some(4);
                }
                // `1.0 / std::sqrt(ss)`: a `double` literal makes the result a `double`,
                // whatever the other operand is (a `long double` aside).
                let double_literal = |x: Node<'_>| {
                    let x = strip(x);
                    let t = self.txt(x).to_ascii_lowercase();
                    x.kind() == "number_literal"
                        && floating_literal(&t)
                        && !t.ends_with('f')
                        && !t.ends_with('l')
                };
                let (l, r) = (
                    n.child_by_field_name("left")?,
                    n.child_by_field_name("right")?,
                );
                if !matches!(op, "<<" | ">>" | "%" | "&" | "|" | "^")
                    && (double_literal(l) || double_literal(r))
                {
                    return Some(8);
                }
                let left = self.value_bytes(l)?;
                if matches!(op, "<<" | ">>") {
                    return Some(left.max(4));
                }
                let right = self.value_bytes(r)?;
                // Two integers (`centroids.size() / dim`): the wider, at least an `int`.
                let integers = self.integral(l) && self.integral(r);
                (left == right || left.max(right) <= 4 || integers)
                    .then_some(left.max(right).max(4))
            }
            _ => None,
        }
    }

    /// Whether `v` is declared as a pointer to one event (`cl_event *done`).
    fn event_ptr(&self, v: Var) -> bool {
        self.handle_ptrs.get(&v) == Some(&TypeHint::Event)
    }

    fn type_var(&mut self, v: Var, ty: &str, pointers: usize) {
        if pointers > 1 {
            return;
        }
        let pointee = handle_hint(last_name(ty));
        if pointers == 1
            && matches!(
                pointee,
                TypeHint::Event
                    | TypeHint::Program
                    | TypeHint::Context
                    | TypeHint::Queue
                    | TypeHint::Kernel
                    | TypeHint::Buffer
            )
        {
            self.handle_ptrs.insert(v, pointee);
        }
        if path_segments(ty).last().is_some_and(|l| l == "NDRange") {
            self.range_vars.insert(v);
        }
        if is_future(ty) {
            self.futures.insert(v);
        }
        // A struct, or a `std::vector`/`std::array` of them.
        let elem = ty.find('<').map(|open| {
            let inner = &ty[open + 1..];
            let end = inner.find([',', '>']).unwrap_or(inner.len());
            inner[..end].trim()
        });
        let name = match elem {
            Some(e)
                if matches!(
                    last_name(&ty[..ty.find('<').unwrap_or(0)]),
                    "vector" | "array"
                ) =>
            {
                last_name(e)
            }
            // `Runner<2>` of a class template: the class.
            _ => last_name(without_template_args(ty)),
        };
        if let Some(fields) = self.cx.structs.get(name) {
            self.vars[v].fields = fields.clone();
            self.vars[v].ty = Some(name.to_string());
        }
        if pointers == 1 {
            self.vars[v].member = Member::Arrow;
        }
    }

    /// The variable standing for the file-level variable `name` in this function, made
    /// where the function first names it.
    fn global(&mut self, name: &str) -> Option<Var> {
        let g = self.cx.globals.get(name)?.clone();
        let v = self.vars.len();
        self.vars.push(VarInfo {
            name: name.to_string(),
            hint: declared_hint(&self.cx.real_type(&g.ty), g.array, g.pointers),
            fields: Vec::new(),
            ty: None,
            member: Member::Dot,
            global: Some(g.key),
        });
        self.type_var(v, &g.ty, g.pointers);
        self.type_members(v, &g.ty, g.array, g.pointers);
        // `sizeof(g_scale)` of `static double g_scale;`.
        if g.array.is_none() && g.pointers == 0 {
            self.note_scalar_type(v, &g.ty);
        }
        if let Some(e) = vector_elem(&g.ty) {
            self.elem_types.insert(v, e.to_string());
        }
        if g.array.is_some() && g.pointers == 0 {
            self.elem_types.insert(v, g.ty.to_string());
        }
        if let Some(s) = self.scopes.first_mut() {
            s.insert(name.to_string(), v);
        }
        Some(v)
    }

    fn lookup(&self, name: &str) -> Option<Var> {
        self.scopes.iter().rev().find_map(|s| s.get(name).copied())
    }

    fn new_temp(&mut self, hint: TypeHint) -> Var {
        let t = self.vars.len();
        self.vars.push(VarInfo::temp(t, hint));
        t
    }

    fn forget(&mut self, values: Vec<Value>, span: Span) {
        self.out.extend(crate::ir::forget(values, span));
    }

    /// Forgets every variable named in `n`: what an `ERROR` node or a lambda does with them
    /// is not known.
    fn forget_named(&mut self, n: Node<'_>) {
        let mut names = Vec::new();
        let mut stack = vec![n];
        while let Some(x) = stack.pop() {
            if x.kind() == "identifier" {
                names.push(self.txt(x).to_string());
            }
            stack.extend(named(x));
        }
        // An `ERROR` node can hold bare tokens: the words of its text count too.
        if n.is_error() || n.has_error() {
            names.extend(
                self.txt(n)
                    .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                    .filter(|w| !w.is_empty())
                    .map(str::to_string),
            );
        }
        names.sort();
        names.dedup();
        let values: Vec<Value> = names
            .iter()
            .filter_map(|i| self.lookup(i))
            .map(|v| Value::Place(Place::var(v)))
            .collect();
        let span = self.span(n);
        self.forget(values, span);
    }

    fn separate(&mut self, f: impl FnOnce(&mut Self)) -> Vec<Stmt> {
        let saved = std::mem::take(&mut self.out);
        self.scopes.push(HashMap::new());
        f(self);
        self.scopes.pop();
        std::mem::replace(&mut self.out, saved)
    }

    fn stmt(&mut self, n: Node<'_>) {
        // tree-sitter-c reads `CHECK(clEnqueueCopyBuffer(q, a, b, off, off, n * sizeof(float),
        // nwait, wait, ev));` as the type `CHECK(..)` of a declaration when every argument
        // can be read as a parameter declaration (`n * sizeof(float)`: a pointer to a
        // function): a statement in the shape of a macro call all the same.
        if (n.has_error() || n.kind() == "macro_type_specifier") && self.macro_statement(n) {
            return;
        }
        self.stmt_kind(n);
        // A simple statement tree-sitter could only partly read: what it does to the names
        // in it is not known.
        if n.has_error()
            && matches!(
                n.kind(),
                "expression_statement" | "declaration" | "return_statement"
            )
        {
            self.forget_named(n);
        }
    }

    fn stmt_kind(&mut self, n: Node<'_>) {
        if self.unswitch(n) {
            return;
        }
        match n.kind() {
            "compound_statement" => {
                self.scopes.push(HashMap::new());
                self.stmts(&named(n));
                self.scopes.pop();
            }
            "declaration" => self.declaration(n),
            // `FAIL(w, err, "setup");` of a macro that returns: its arguments are read, and
            // the function ends here (nothing is given to unknown code).
            // `test_error(err, "what");` of a macro that returns where `err` fails: that
            // test, lowered as the `if` it is.
            "expression_statement" if self.checking_call(n) => {}
            "expression_statement" if self.exiting_macro(n).is_some() => {
                if let Some(args) = self.exiting_macro(n) {
                    for a in named(args) {
                        self.expr(a);
                    }
                }
                self.out.push(Stmt::Return {
                    value: Value::Unknown,
                    span: Some(self.span(n)),
                });
            }
            "expression_statement" => {
                for c in named(n) {
                    self.expr(c);
                }
            }
            "if_statement" if self.unswitched.contains_key(&self.span(n)) => {
                // An arm chosen for a copy of the loop around it.
                if self.unswitched.get(&self.span(n)) == Some(&0) {
                    if let Some(t) = n.child_by_field_name("consequence") {
                        self.scopes.push(HashMap::new());
                        self.stmt(t);
                        self.scopes.pop();
                    }
                } else if let Some(e) = n.child_by_field_name("alternative") {
                    self.scopes.push(HashMap::new());
                    for c in named(e) {
                        self.stmt(c);
                    }
                    if e.kind() != "else_clause" {
                        self.stmt(e);
                    }
                    self.scopes.pop();
                }
            }
            "if_statement" => self.guarded_run(&[n]),
            "for_statement" => {
                // A `parallel for`'s loop, not one in its body.
                let spawn = std::mem::take(&mut self.spawn_iterations);
                self.scopes.push(HashMap::new());
                if let Some(i) = n.child_by_field_name("initializer") {
                    self.stmt_or_expr(i);
                }
                if let Some((counter, source)) = self.counted(n) {
                    // `for (i = 0; i < n; i++)`: once per value of `i` where `n` is known.
                    self.in_switch.push(false);
                    let mut body = self.separate(|l| {
                        if let Some(b) = n.child_by_field_name("body") {
                            l.stmt(b);
                        }
                    });
                    self.in_switch.pop();
                    if spawn {
                        body = self.spawned(body, self.span(n));
                    }
                    self.out.push(Stmt::ForEach {
                        sources: vec![source],
                        binds: vec![(Place::var(counter), EachPart::Member(0))],
                        body,
                        tail: Value::Unknown,
                        dst: None,
                    });
                    self.scopes.pop();
                    return;
                }
                self.in_switch.push(false);
                // One iteration: the condition, then the body and the update where it holds,
                // else the loop's end (`for (d = n - 1; d-- > 0; )` ends where `d` is known
                // to be 0). `guarded` is false for an iteration known to run.
                let iteration = |l: &mut Self, guarded: bool| {
                    l.separate(|l| {
                        let cond = n.child_by_field_name("condition").map(|c| l.expr(c));
                        let pass = l.separate(|l| {
                            if let Some(b) = n.child_by_field_name("body") {
                                l.stmt(b);
                            }
                            if let Some(u) = n.child_by_field_name("update") {
                                l.expr(u);
                            }
                        });
                        match cond {
                            Some(cond) if guarded => l.exit_unless(&cond, pass),
                            _ => l.out.extend(pass),
                        }
                    })
                };
                // `for (i = 0; i < 4; i++)`: the first iteration always runs; it is lowered
                // on its own, before the loop, when nothing in it leaves the loop early.
                if self.runs_once(n) {
                    let first = iteration(self, false);
                    if !jumps(&first) {
                        self.out.extend(first);
                    }
                }
                let body = iteration(self, true);
                self.in_switch.pop();
                self.out.push(Stmt::Loop(body));
                self.scopes.pop();
            }
            "for_range_loop" => {
                // `for (cl_event e : {a, b, c})`: the listed values.
                let list = n.child_by_field_name("right").map(|r| match r.kind() {
                    "initializer_list" => {
                        Value::List(named(r).into_iter().map(|x| self.expr(x)).collect())
                    }
                    _ => self.expr(r),
                });
                let ty = n
                    .child_by_field_name("type")
                    .map_or(String::new(), |t| self.txt(t).to_string());
                let shape = n
                    .child_by_field_name("declarator")
                    .map(|d| self.cx.declarator(&self.text, d))
                    .unwrap_or_default();
                let body = n.child_by_field_name("body");
                let name = shape.name.map(|x| self.txt(x).to_string());
                // A reference the body stores through writes the members themselves.
                let writes = shape.reference
                    && name
                        .as_ref()
                        .zip(body)
                        .is_some_and(|(nm, b)| stores_through(b, nm, &self.text));
                self.in_switch.push(false);
                self.scopes.push(HashMap::new());
                let hint = declared_hint(&self.cx.real_type(&ty), None, shape.pointers);
                let var = name.map(|nm| self.bind(&nm, hint));
                // The member of a list of a wrapper class is a value of that class.
                if let (Some(Value::Place(l)), Some(v)) = (&list, var) {
                    if let Some(w) = self.wrapped.get(&l.var).cloned() {
                        self.wrapped.insert(v, w);
                    }
                    // `for (auto& dc : devs_)` of a `std::vector<std::unique_ptr<Dev>>`: a
                    // `Dev`, whose methods are followed (`dc->step(cur)`).
                    if last_name(ty.trim()) == "auto" {
                        if let Some(elem) = self.elem_type(l) {
                            let real = self.cx.real_type(&elem);
                            let class = smart_pointee(&real).unwrap_or(&real).to_string();
                            self.type_var(v, &class, 0);
                        }
                    }
                }
                // A list the function was given (a parameter, a global): each member an
                // object of its own, as Rust's `for x in &list` takes them.
                // So is one a parameter holds (`tiles_` of `this`, `cfg->devs`).
                let given = |p: &Place| {
                    p.proj.iter().all(|x| matches!(x, Proj::Field(_)))
                        && (p.var < self.n_params || self.vars[p.var].global.is_some())
                };
                // Walked member by member: the listed values, a list the function was given,
                // or a list of events.
                let walked = match &list {
                    Some(Value::List(_)) => true,
                    Some(Value::Place(l)) => {
                        given(l)
                            || hint == TypeHint::Event
                            || (l.proj.is_empty() && self.vars[l.var].hint == TypeHint::EventList)
                            // `for (auto &q : queues) clFinish(q.get())` over a local list of
                            // a wrapper class.
                            || (l.proj.is_empty() && self.wrapped.contains_key(&l.var))
                            // `for (auto &q : queues)` over a local `std::vector` of handles
                            // (`cl::CommandQueue`, `cl::Device`), of structs of the file
                            // that hold handles (`std::vector<Stage>`), or of threads.
                            || (l.proj.is_empty()
                                && (self.elem_types.get(&l.var)).is_some_and(|t| {
                                    let real = self.cx.real_type(t);
                                    declared_hint(&real, None, 0).is_handle()
                                        || is_thread(&path_segments(&real))
                                        || is_future(&real)
                                        // of lists of events (`for (auto &l : ready)`)
                                        || vector_elem(&real).is_some_and(|e| {
                                            declared_hint(&self.cx.real_type(e), None, 0)
                                                == TypeHint::Event
                                        })
                                        || (self.cx.structs.get(last_name(&real))).is_some_and(
                                            |fields| fields.iter().any(|(_, h)| h.is_handle()),
                                        )
                                }))
                    }
                    _ => false,
                };
                // `for (auto &f : pending) f.get();` over a list of futures.
                if let (Some(Value::Place(l)), Some(v)) = (&list, var) {
                    if (self.elem_types.get(&l.var)).is_some_and(|t| is_future(t)) {
                        self.futures.insert(v);
                    }
                }
                match (list, var) {
                    (Some(list), Some(v)) if walked && !writes => {
                        let body = self.separate(|l| {
                            if let Some(b) = body {
                                l.stmt(b);
                            }
                        });
                        self.out.push(Stmt::ForEach {
                            sources: vec![EachSource::Members(list)],
                            binds: vec![(Place::var(v), EachPart::Member(0))],
                            body,
                            tail: Value::Unknown,
                            dst: None,
                        });
                    }
                    // `for (DevPlan &pl : plan)` over a local array of a constant length, or
                    // `for (Band &b : bands) b.q.enqueue..(.., &b.done)` storing through the
                    // members of a list walked member by member: a loop over its indices,
                    // `pl` the member at each.
                    (Some(Value::Place(l)), Some(v))
                        if (l.proj.is_empty()
                            && self.lens.get(&l.var).is_some_and(|n| *n <= MAX_WALKED_LEN))
                            || (walked && shape.reference) =>
                    {
                        let count = match self.lens.get(&l.var).filter(|_| l.proj.is_empty()) {
                            Some(&len) if len <= MAX_WALKED_LEN => {
                                EachSource::Upto(Value::Int(len))
                            }
                            _ => EachSource::UptoLen(0, Value::Place(l.clone())),
                        };
                        let i = self.new_temp(TypeHint::Scalar);
                        let mut member = l.clone();
                        member.proj.push(Proj::Var(i));
                        let span = self.span(n);
                        let body = self.separate(|lw| {
                            if shape.reference {
                                lw.refs.insert(v, member);
                            } else {
                                lw.out.push(Stmt::Assign {
                                    dst: Place::var(v),
                                    value: Value::Place(member),
                                    span,
                                });
                            }
                            if let Some(b) = body {
                                lw.stmt(b);
                            }
                        });
                        self.out.push(Stmt::ForEach {
                            sources: vec![count],
                            binds: vec![(Place::var(i), EachPart::Member(0))],
                            body,
                            tail: Value::Unknown,
                            dst: None,
                        });
                    }
                    (list, var) => {
                        let member = match list {
                            Some(Value::Place(mut p)) => {
                                p.proj.push(Proj::AnyIndex);
                                Value::Place(p)
                            }
                            _ => Value::Unknown,
                        };
                        let span = self.span(n);
                        let body = self.separate(|l| {
                            match (var, shape.reference, member) {
                                // `for (auto &b : list) b = ..`: some member itself.
                                (Some(v), true, Value::Place(p)) => {
                                    l.refs.insert(v, p);
                                }
                                (Some(v), _, member) => l.out.push(Stmt::Assign {
                                    dst: Place::var(v),
                                    value: member,
                                    span,
                                }),
                                (None, _, _) => {}
                            }
                            if let Some(b) = body {
                                l.stmt(b);
                            }
                        });
                        self.out.push(Stmt::Loop(body));
                    }
                }
                self.scopes.pop();
                self.in_switch.pop();
            }
            "while_statement" => {
                self.in_switch.push(false);
                let body = self.separate(|l| {
                    let cond = l.loop_condition(n);
                    let inner = match n.child_by_field_name("body") {
                        Some(b) => l.separate(|l| l.stmt(b)),
                        None => Vec::new(),
                    };
                    l.exit_unless(&cond, inner);
                });
                self.in_switch.pop();
                self.out.push(Stmt::Loop(body));
            }
            "do_statement" => {
                // The body runs once, then as long as the condition holds.
                let body = n.child_by_field_name("body");
                self.in_switch.push(false);
                if let Some(b) = body {
                    let first = self.separate(|l| l.stmt(b));
                    self.out
                        .push(Stmt::Loop(first.into_iter().chain([Stmt::Break]).collect()));
                }
                let rest = self.separate(|l| {
                    let cond = l.loop_condition(n);
                    if let Some(b) = body {
                        let inner = l.separate(|l| l.stmt(b));
                        l.exit_unless(&cond, inner);
                    }
                });
                self.in_switch.pop();
                self.out.push(Stmt::Loop(rest));
            }
            "switch_statement" => {
                let subject = n
                    .child_by_field_name("condition")
                    .map(|c| self.condition(c));
                self.in_switch.push(true);
                let mut arms = Vec::new();
                // Each arm's label: `Some(Some(1))` for `case 1:`, `Some(None)` for a case
                // whose value is not a constant, `None` for `default:`.
                let mut labels: Vec<Option<Option<u64>>> = Vec::new();
                if let Some(body) = n.child_by_field_name("body") {
                    for case in named(body) {
                        if case.kind() != "case_statement" {
                            continue;
                        }
                        let value = case.child_by_field_name("value");
                        labels.push(value.map(|v| self.cx.int_of_in(&self.text, v)));
                        arms.push(self.separate(|l| {
                            for s in named(case) {
                                if Some(s) != value {
                                    l.stmt(s);
                                }
                            }
                        }));
                    }
                }
                self.in_switch.pop();
                if !labels.iter().any(Option::is_none) {
                    labels.push(None);
                    arms.push(Vec::new());
                }
                // On a subject the analysis knows (`switch (s)` in the pass where `s` is 2),
                // only the arm of its value runs: a case where the value is its constant,
                // `default` where it is none of them. Not where a case is not a constant.
                let cases: Option<Vec<u64>> = labels.iter().flatten().copied().collect();
                if let (Some(subject), Some(cases)) = (subject, cases) {
                    let is = |k: u64, some: bool| Stmt::Assume {
                        value: Value::Arith {
                            op: ArithOp::Eq,
                            lhs: Box::new(subject.clone()),
                            rhs: Box::new(Value::Int(k)),
                        },
                        some,
                    };
                    for (arm, label) in arms.iter_mut().zip(&labels) {
                        let assumes: Vec<Stmt> = match label {
                            Some(Some(k)) => vec![is(*k, true)],
                            _ => cases.iter().map(|&k| is(k, false)).collect(),
                        };
                        arm.splice(0..0, assumes);
                    }
                }
                self.out.push(Stmt::Branch(arms));
            }
            "return_statement" => {
                let returned = named(n).into_iter().next();
                let value = match returned {
                    Some(e) => self.expr(e),
                    None => Value::Unknown,
                };
                // `return 1;`, `return EXIT_FAILURE;` from `main`: the program gives up.
                let failure = |l: &Self, e: Node<'_>| match l.txt(strip(e)) {
                    "EXIT_FAILURE" => true,
                    t => int_text(t).is_some_and(|v| v != 0),
                };
                // `return CL_DEVICE_NOT_FOUND;` from any function: it reports a failure.
                // So does `return SDK_FAILURE;` or `return -1;` (a macro that names a
                // failure, a negative code).
                let error_code = |l: &Self, e: Node<'_>| {
                    let t = l.txt(strip(e));
                    let macro_name = !t.is_empty()
                        && t.bytes()
                            .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_')
                        && l.lookup(t).is_none();
                    (t.starts_with("CL_") && t != "CL_SUCCESS" && macro_name)
                        || (macro_name && (t.contains("FAIL") || t.contains("ERROR")))
                        || t.strip_prefix('-')
                            .is_some_and(|n| int_text(n.trim()).is_some_and(|v| v != 0))
                };
                if returned
                    .is_some_and(|e| (self.in_main && failure(self, e)) || error_code(self, e))
                {
                    self.out.push(Stmt::ErrorExit);
                }
                self.out.push(Stmt::Return {
                    value,
                    span: Some(self.span(n)),
                });
            }
            // A jump forward to a label of the function's body (`goto cleanup;`) runs the
            // statements from the label on; a throw or another jump leaves the straight path.
            "goto_statement" | "throw_statement" => {
                for c in named(n) {
                    self.expr(c);
                }
                let label = (n.kind() == "goto_statement" && !self.in_cleanup)
                    .then(|| n.child_by_field_name("label"))
                    .flatten();
                let tail = label.and_then(|l| self.cleanup_tail(n, self.txt(l)));
                if let Some(tail) = tail {
                    self.cleanup(&tail);
                } else if let (Some(_), Some(tail)) = (label, &self.macro_tail) {
                    self.out.extend(tail.iter().cloned());
                }
                // A throw leaves by the error path, as a failed status check's return does:
                // a caller goes on only where the function returns.
                if n.kind() == "throw_statement" {
                    self.out.push(Stmt::ErrorExit);
                }
                self.out.push(Stmt::Return {
                    value: Value::Unknown,
                    span: None,
                });
            }
            "break_statement" => {
                if self.in_switch.last() == Some(&false) {
                    self.out.push(Stmt::Break);
                }
            }
            "continue_statement" => self.out.push(Stmt::Continue),
            "labeled_statement" => {
                for c in named(n) {
                    if c.kind() != "statement_identifier" {
                        self.stmt(c);
                    }
                }
            }
            "try_statement" => {
                if let Some(b) = n.child_by_field_name("body") {
                    self.stmt(b);
                }
                for c in named(n) {
                    if c.kind() == "catch_clause" {
                        let arm = self.separate(|l| {
                            if let Some(b) = c.child_by_field_name("body") {
                                l.stmt(b);
                            }
                        });
                        self.out.push(Stmt::Branch(vec![arm, Vec::new()]));
                    }
                }
            }
            "preproc_if" | "preproc_ifdef" | "preproc_elif" | "preproc_elifdef" => {
                let arms = self.preproc_arms(n);
                self.out.push(Stmt::Branch(arms));
            }
            "preproc_else" => {
                for c in named(n) {
                    self.stmt(c);
                }
            }
            "ERROR" => self.forget_named(n),
            "comment"
            | "type_definition"
            | "struct_specifier"
            | "class_specifier"
            | "enum_specifier"
            | "preproc_include"
            | "preproc_def"
            | "preproc_function_def"
            | "preproc_call"
            | "function_definition"
            | "empty_statement"
            | "using_declaration"
            | "alias_declaration"
            | "namespace_alias_definition"
            | "static_assert_declaration" => {}
            _ => {
                self.expr(n);
            }
        }
    }

    /// Whether a `for` loop counts up from a constant below a constant bound
    /// (`for (int i = 0; i < N; i++)`), so its body runs at least once.
    /// A counted loop, `for (i = S; i < E; i++)` (`<=`, `++i`, `i += 1` too), whose body
    /// does not change `i`: the counter, and the values it takes. From a constant to any `E`
    /// the analysis evaluates (a constant, a local known to hold one, a count); between
    /// constants, at most 64 values.
    fn counted(&mut self, n: Node<'_>) -> Option<(Var, EachSource)> {
        let text = self.text.clone();
        let txt = |x: Node<'_>| text.get(x.byte_range()).unwrap_or("");
        let init = n.child_by_field_name("initializer")?;
        let (name, start) = for_init(init)?;
        if init.kind() == "assignment_expression" {
            (txt(init.child_by_field_name("operator")?) == "=").then_some(())?;
        }
        (name.kind() == "identifier").then_some(())?;
        let name = txt(name).to_string();
        let start = self.cx.int_of_in(&text, start)?;
        let mut cond = n.child_by_field_name("condition")?;
        // `i < n && err == CL_SUCCESS`: the count, which the other test can only cut short
        // on a failure.
        while cond.kind() == "binary_expression"
            && (cond.child_by_field_name("operator")).is_some_and(|o| txt(o) == "&&")
        {
            cond = cond.child_by_field_name("left")?;
        }
        (cond.kind() == "binary_expression").then_some(())?;
        let left = cond.child_by_field_name("left")?;
        let mut right = cond.child_by_field_name("right")?;
        // `d < (int)nd`: the count, whatever its type.
        while right.kind() == "cast_expression" {
            right = right.child_by_field_name("value")?;
        }
        // `i + 1 < n` (every device with a right-hand neighbour): up to `n - 1`.
        let ahead = match left.kind() {
            "identifier" if txt(left) == name => 0,
            "binary_expression"
                if (left.child_by_field_name("operator")).is_some_and(|o| txt(o) == "+")
                    && (left.child_by_field_name("left"))
                        .is_some_and(|l| l.kind() == "identifier" && txt(l) == name) =>
            {
                self.cx
                    .int_of_in(&text, left.child_by_field_name("right")?)?
            }
            _ => return None,
        };
        let op = txt(cond.child_by_field_name("operator")?);
        let update = n.child_by_field_name("update")?;
        let step = txt(update).split_whitespace().collect::<String>();
        let steps = [
            format!("{name}++"),
            format!("++{name}"),
            format!("{name}+=1"),
            format!("{name}={name}+1"),
        ];
        (steps.contains(&step) && !changes(n.child_by_field_name("body")?, &name, &text))
            .then_some(())?;
        let counter = self.lookup(&name)?;
        // `i < sizeof(evs) / sizeof(evs[0])`: once per member of the array.
        if let (0, "<", Some(array)) = (ahead, op, array_count(txt(right))) {
            if let Some(v) = self.lookup(&array) {
                return Some((
                    counter,
                    EachSource::UptoLen(start, Value::Place(Place::var(v))),
                ));
            }
        }
        // `d < dev.size()`: once per member of the vector.
        if let (0, "<", Some(list)) = (ahead, op, size_of_vector(right, &text)) {
            if let Some(v) = self.lookup(list) {
                return Some((
                    counter,
                    EachSource::UptoLen(start, Value::Place(Place::var(v))),
                ));
            }
        }
        let constant = self.cx.int_of_in(&text, right);
        let end = match (op, constant) {
            (_, Some(b)) => end_of(op, b)?.checked_sub(ahead)?,
            ("<" | "<=", None) if matches!(right.kind(), "identifier" | "field_expression") => {
                let bound = self.expr(right);
                let end = match op {
                    "<" => bound,
                    _ => Value::Arith {
                        op: ArithOp::Add,
                        lhs: Box::new(bound),
                        rhs: Box::new(Value::Int(1)),
                    },
                };
                let end = match ahead {
                    0 => end,
                    k => Value::Arith {
                        op: ArithOp::Sub,
                        lhs: Box::new(end),
                        rhs: Box::new(Value::Int(k)),
                    },
                };
                // From 1 (`for (d = 1; d < ndev; d++)`): the devices after the first.
                return Some(match start {
                    0 => (counter, EachSource::Upto(end)),
                    s => (counter, EachSource::Range(Value::Int(s), end)),
                });
            }
            _ => return None,
        };
        if start == 0 {
            return Some((counter, EachSource::Upto(Value::Int(end))));
        }
        (end.saturating_sub(start) <= 64).then_some(())?;
        let values = (start..end).map(Value::Int).collect();
        Some((counter, EachSource::Members(Value::List(values))))
    }

    fn runs_once(&self, n: Node<'_>) -> bool {
        let text = self.text.clone();
        let int = |x: Node<'_>| self.cx.int_of_in(&text, x);
        let start = n
            .child_by_field_name("initializer")
            .and_then(for_init)
            .and_then(|(_, value)| int(value));
        let bound = n.child_by_field_name("condition").and_then(|c| {
            let op = c.child_by_field_name("operator")?;
            let right = c.child_by_field_name("right")?;
            end_of(text.get(op.byte_range())?, int(right)?)
        });
        matches!((start, bound), (Some(s), Some(b)) if s < b)
    }

    /// The arms of an `#if`: its own lines, then each `#elif`/`#else`; an `#if` without
    /// `#else` has an empty arm.
    fn preproc_arms(&mut self, n: Node<'_>) -> Vec<Vec<Stmt>> {
        let alternative = n.child_by_field_name("alternative");
        let skip = [
            n.child_by_field_name("condition"),
            n.child_by_field_name("name"),
        ];
        let own = self.separate(|l| {
            for c in named(n) {
                if Some(c) != alternative && !skip.contains(&Some(c)) {
                    l.stmt(c);
                }
            }
        });
        let mut arms = vec![own];
        match alternative {
            Some(a) if a.kind() == "preproc_else" => arms.push(self.separate(|l| l.stmt(a))),
            Some(a) => arms.extend(self.preproc_arms(a)),
            None => arms.push(Vec::new()),
        }
        arms
    }

    fn stmt_or_expr(&mut self, n: Node<'_>) {
        if n.kind() == "declaration" {
            self.declaration(n);
        } else {
            self.expr(n);
        }
    }

    /// A loop whose body picks an arm on a condition the loop never changes (`if (strcmp(mode,
    /// "timed") == 0) .. else ..`) takes the same arm on every pass: it is lowered once per
    /// arm, as a branch of loops (in at most [`MAX_UNSWITCHED`] loops around each other, so
    /// the copies do not multiply). Returns whether `n` was such a loop.
    fn unswitch(&mut self, n: Node<'_>) -> bool {
        const LOOPS: &[&str] = &[
            "for_statement",
            "for_range_loop",
            "while_statement",
            "do_statement",
        ];
        if !LOOPS.contains(&n.kind())
            || self.unswitching.contains(&self.span(n))
            || self.unswitching.len() >= MAX_UNSWITCHED
        {
            return false;
        }
        let Some(body) = n.child_by_field_name("body") else {
            return false;
        };
        let top = match body.kind() {
            "compound_statement" => named(body),
            _ => vec![body],
        };
        let Some(first) = top
            .into_iter()
            .find(|s| s.kind() == "if_statement" && self.invariant_if(*s, n))
        else {
            return false;
        };
        let choices = self.arm_choices(first, n, 7);
        // The `if`s of the chain, for what each copy of the loop knows of their conditions.
        let mut ifs = HashMap::new();
        let mut at = Some(first);
        while let Some(i) = at {
            ifs.insert(self.span(i), i);
            at = i
                .child_by_field_name("alternative")
                .and_then(|e| match named(e)[..] {
                    [x] if x.kind() == "if_statement" => Some(x),
                    _ => None,
                });
        }
        let key = self.span(n);
        self.unswitching.insert(key);
        let mut arms = Vec::new();
        for choice in choices {
            self.unswitched.extend(choice.iter().copied());
            arms.push(self.separate(|l| {
                // The copy for an arm runs where its condition has that outcome (`t == 0`
                // in the first pass of a time loop only).
                for &(k, arm) in &choice {
                    let Some(c) = ifs.get(&k).and_then(|i| i.child_by_field_name("condition"))
                    else {
                        continue;
                    };
                    let mut cond = Value::Unknown;
                    let made = l.separate(|l| cond = l.condition(c));
                    if made.is_empty() {
                        let mut both = [Vec::new(), Vec::new()];
                        l.guard(&cond, &mut both);
                        l.out.extend(std::mem::take(&mut both[arm.min(1)]));
                    }
                }
                l.stmt_kind(n)
            }));
            for (k, _) in choice {
                self.unswitched.remove(&k);
            }
        }
        self.unswitching.remove(&key);
        self.out.push(Stmt::Branch(arms));
        true
    }

    /// The arms an `if` chain (`if .. else if .. else`) of conditions the loop `lp` does not
    /// change can take, up to `more` more `if`s of it: for each, the arm each `if` takes.
    fn arm_choices(&self, first: Node<'_>, lp: Node<'_>, more: usize) -> Vec<Vec<(Span, usize)>> {
        let key = self.span(first);
        let mut out = vec![vec![(key, 0)]];
        let nested = first.child_by_field_name("alternative").and_then(|e| {
            let inner = named(e);
            match inner.as_slice() {
                [i] if more > 0 && i.kind() == "if_statement" && self.invariant_if(*i, lp) => {
                    Some(*i)
                }
                _ => None,
            }
        });
        match nested {
            Some(i) => out.extend(self.arm_choices(i, lp, more - 1).into_iter().map(|mut c| {
                c.insert(0, (key, 1));
                c
            })),
            None => out.push(vec![(key, 1)]),
        }
        out
    }

    /// Whether an `if`'s condition reads only locals the loop `lp` does not store into,
    /// constants, and pure functions of them (`strcmp`).
    fn invariant_if(&self, i: Node<'_>, lp: Node<'_>) -> bool {
        const PURE: &[&str] = &["strcmp", "strncmp", "strcasecmp", "memcmp", "strlen"];
        let Some(cond) = i.child_by_field_name("condition") else {
            return false;
        };
        let mut stack = vec![cond];
        while let Some(x) = stack.pop() {
            match x.kind() {
                "assignment_expression" | "update_expression" | "lambda_expression" => {
                    return false
                }
                "call_expression" => {
                    let f = x.child_by_field_name("function");
                    if !f.is_some_and(|f| PURE.contains(&self.txt(f))) {
                        return false;
                    }
                    if let Some(a) = x.child_by_field_name("arguments") {
                        stack.push(a);
                    }
                    continue;
                }
                "identifier" => {
                    let name = self.txt(x);
                    if self.cx.globals.contains_key(name) && self.lookup(name).is_none() {
                        return false;
                    }
                    if stores_through(lp, name, &self.text) {
                        return false;
                    }
                }
                _ => {}
            }
            stack.extend(named(x));
        }
        true
    }

    /// Consecutive `if`s on one status with no `else` (`if (err == CL_SUCCESS) err =
    /// clSetKernelArg(..);` then `if (err == CL_SUCCESS) err = clEnqueue..(..);`): once the
    /// status reports a failure, every later test of the run fails too, so each `if` after
    /// the first is lowered in the `then` arm of the one before it, and a path on which a
    /// call failed takes none of the later ones.
    fn guarded_run(&mut self, run: &[Node<'_>]) {
        let Some((first, rest)) = run.split_first() else {
            return;
        };
        self.fresh_statement();
        let cond = first.child_by_field_name("condition");
        self.if_statement(*first, cond, rest);
    }

    /// `if (n > 0) clWaitForEvents(n, evs);`, `if (!evs.empty()) cl::Event::waitForEvents(evs);`:
    /// a wait skipped only where its list is empty (`clWaitForEvents` rejects a count of
    /// 0), and so the same as the wait itself.
    fn count_guarded_wait(&self, cond: Node<'_>, body: Node<'_>) -> bool {
        let mut s = body;
        while s.kind() == "compound_statement" {
            match named(s).as_slice() {
                [one] => s = *one,
                _ => return false,
            }
        }
        let Some(mut call) = (s.kind() == "expression_statement")
            .then(|| named(s).into_iter().next())
            .flatten()
        else {
            return false;
        };
        // `err = clWaitForEvents(..)`
        if call.kind() == "assignment_expression" {
            match call.child_by_field_name("right") {
                Some(r) => call = r,
                None => return false,
            }
        }
        let call = strip(call);
        let (Some(f), Some(args)) = (
            call.child_by_field_name("function"),
            call.child_by_field_name("arguments"),
        ) else {
            return false;
        };
        let args = named(args);
        let squash = |t: &str| t.split_whitespace().collect::<String>();
        let counted = match (self.txt(f).rsplit("::").next(), args.as_slice()) {
            (Some("clWaitForEvents"), [n, _]) => squash(self.txt(*n)),
            (Some("waitForEvents" | "WaitForEvents"), [list]) => {
                format!("{}.size()", squash(self.txt(*list)))
            }
            _ => return false,
        };
        self.tested_nonzero(cond).is_some_and(|t| t == counted)
    }

    /// What a condition tests for being other than zero or empty, as written without
    /// spaces: `n` of `n > 0`, `n != 0`, `n >= 1` or `n`; `v.size()` of `!v.empty()` or
    /// `v.size() > 0`.
    fn tested_nonzero(&self, cond: Node<'_>) -> Option<String> {
        let c = condition_expr(cond)?;
        let squash = |n: Node<'_>| self.txt(n).split_whitespace().collect::<String>();
        match c.kind() {
            "identifier" | "field_expression" | "subscript_expression" => Some(squash(c)),
            "binary_expression" => {
                let (l, r) = (
                    strip(c.child_by_field_name("left")?),
                    strip(c.child_by_field_name("right")?),
                );
                let op = self.txt(c.child_by_field_name("operator")?);
                match (op, self.txt(l), self.txt(r)) {
                    (">" | "!=", _, "0") | (">=", _, "1") => Some(squash(l)),
                    ("<" | "!=", "0", _) => Some(squash(r)),
                    _ => None,
                }
            }
            "unary_expression" if self.txt(c.child_by_field_name("operator")?) == "!" => {
                let call = strip(c.child_by_field_name("argument")?);
                let f = call.child_by_field_name("function")?;
                let args = call.child_by_field_name("arguments")?;
                if f.kind() != "field_expression" || !named(args).is_empty() {
                    return None;
                }
                let obj = f.child_by_field_name("argument")?;
                (self.txt(f.child_by_field_name("field")?) == "empty")
                    .then(|| format!("{}.size()", squash(obj)))
            }
            _ => None,
        }
    }

    /// The status an `if` with no `else` tests for success (`err` of `if (err ==
    /// CL_SUCCESS)`), as written.
    pub(super) fn success_guard(&self, n: Node<'_>) -> Option<String> {
        if n.kind() != "if_statement" || n.child_by_field_name("alternative").is_some() {
            return None;
        }
        let c = n.child_by_field_name("condition")?;
        if self.status_failed_arm(c) != Some(1) {
            return None;
        }
        let c = condition_expr(c)?;
        [
            c.child_by_field_name("left")?,
            c.child_by_field_name("right")?,
        ]
        .into_iter()
        .map(|s| self.txt(strip(s)))
        .find(|t| *t != "CL_SUCCESS")
        .map(str::to_string)
    }

    /// An `if` on `cond` (the statement's condition, or the right side of one split at a
    /// `||` or `&&`). `if (rc != CL_SUCCESS || collect(..) != CL_SUCCESS) return 1;`: the
    /// call runs only where the left side did not decide, so the path that goes on past the
    /// `if` is one where it ran. The arm both sides lead to is lowered on both paths.
    /// `rest`: the later `if`s of a run (`guarded_run`), lowered in its `then` arm.
    fn if_statement(&mut self, n: Node<'_>, cond: Option<Node<'_>>, rest: &[Node<'_>]) {
        let consequence = n.child_by_field_name("consequence");
        let alternative = n.child_by_field_name("alternative");
        if let (Some(c), Some(t), None, []) = (cond, consequence, alternative, rest) {
            if self.count_guarded_wait(c, t) {
                self.stmt(t);
                return;
            }
        }
        if let Some((or, ops)) = cond.and_then(|c| self.short_circuit(c, n)) {
            self.short_circuit_if(n, or, &ops);
            return;
        }
        let cond_value = cond.map_or(Value::Unknown, |c| self.condition(c));
        let checked = cond.map_or(Outs::default(), |c| self.checked_commands(c));
        let then_arm = self.separate(|l| {
            if let Some(t) = consequence {
                l.stmt(t);
            }
            l.guarded_run(rest);
        });
        let else_arm = self.separate(|l| l.else_arm(alternative));
        let span = cond.map_or(self.span(n), |c| self.span(c));
        let mut arms = [then_arm, else_arm].map(|arm| failed_exit(arm, &checked.events, span));
        // `if (ev) clReleaseEvent(ev);`: on the arm where `ev` is null, no event
        // exists to release.
        if let Some((ev, null_arm)) = cond.and_then(|c| self.null_test(c)) {
            let none = Stmt::Release {
                events: Value::Place(ev),
                span,
            };
            arms[null_arm].insert(0, none);
        }
        self.guard(&cond_value, &mut arms);
        let failed_arm = cond.and_then(|c| {
            self.status_failed_arm(c)
                .or_else(|| (!checked.commands.is_empty()).then(|| self.truth_failed_arm(c))?)
        });
        if let Some(failed) = failed_arm {
            let arm_node = match failed {
                0 => consequence,
                _ => alternative,
            };
            let goes_on = arm_node.is_none_or(|a| self.goes_on(a));
            let arm = &mut arms[failed];
            match error_exit_at_return(arm) {
                true => {}
                // The program goes on where the commands failed (an error it
                // provoked on purpose, a fallback, a `break` out of a worker's loop): they
                // did nothing, and made no events.
                false if goes_on && !(checked.commands.is_empty() && checked.events.is_empty()) => {
                    arm.insert(
                        0,
                        Stmt::Failed {
                            value: Value::List(
                                checked.events.iter().cloned().map(Value::Place).collect(),
                            ),
                            commands: checked.commands.clone(),
                        },
                    )
                }
                // An `if` of a run on one status that the function then returns: where an
                // earlier call failed, it skips the rest of the run and returns that
                // failure.
                false
                    if (self.chain_exit.as_ref())
                        .is_some_and(|(ifs, _)| ifs.contains(&n.start_byte())) =>
                {
                    let value =
                        (self.chain_exit.as_ref()).map_or(Value::Unknown, |(_, v)| v.clone());
                    arm.extend([Stmt::ErrorExit, Stmt::Return { value, span: None }]);
                }
                false => {}
            }
        }
        self.out.push(Stmt::Branch(arms.into()));
    }

    /// The statements of an `if`'s `else` (an `else_clause`, or the statement itself).
    fn else_arm(&mut self, alternative: Option<Node<'_>>) {
        if let Some(e) = alternative {
            for c in named(e) {
                self.stmt(c);
            }
            if e.kind() != "else_clause" {
                self.stmt(e);
            }
        }
    }

    /// An `if` whose condition is a run of one operator, `||` or `&&`, over `ops` (at least
    /// two): the first decides (lowered once, before the choice, calls and all: `(err =
    /// init(&c)) != CL_SUCCESS || ..`), else the rest run as an `if` of their own. With `||`
    /// the `then` arm is lowered on each path that takes it; with `&&` the `else` arm.
    fn short_circuit_if(&mut self, n: Node<'_>, or: bool, ops: &[Node<'_>]) {
        let (left, others) = (ops[0], &ops[1..]);
        let consequence = n.child_by_field_name("consequence");
        let alternative = n.child_by_field_name("alternative");
        let cond_value = self.condition(left);
        let rest = |l: &mut Self| match others {
            [one] => l.if_statement(n, Some(*one), &[]),
            _ => l.short_circuit_if(n, or, others),
        };
        let decided = self.separate(|l| match (or, consequence) {
            (true, Some(t)) => l.stmt(t),
            (false, _) => rest(l),
            (true, None) => {}
        });
        let undecided = self.separate(|l| match or {
            true => rest(l),
            false => l.else_arm(alternative),
        });
        let mut arms = [decided, undecided];
        self.guard(&cond_value, &mut arms);
        // `rc != CL_SUCCESS || ..`: where the left side says a call failed and the arm
        // returns, the function leaves on an error, as for a whole condition.
        if let Some(failed) = self.status_failed_arm(left) {
            error_exit_at_return(&mut arms[failed]);
        }
        self.out.push(Stmt::Branch(arms.into()));
    }

    /// A condition that is a run of `||` (or of `&&`) whose operands after the first make
    /// calls: the operator, and the operands in order (`(err = a()) || (err = b()) || ..`
    /// flattened), where the arm lowered once per operand stays short.
    fn short_circuit<'t>(&self, c: Node<'t>, n: Node<'t>) -> Option<(bool, Vec<Node<'t>>)> {
        let mut c = c;
        while matches!(c.kind(), "condition_clause" | "parenthesized_expression") {
            let [inner] = named(c)[..] else {
                return None;
            };
            c = inner;
        }
        if c.kind() != "binary_expression" {
            return None;
        }
        let or = match c.child_by_field_name("operator").map(|o| self.txt(o)) {
            Some("||") => true,
            Some("&&") => false,
            _ => None?,
        };
        let op = |x: Node<'_>| {
            (x.kind() == "binary_expression")
                .then(|| x.child_by_field_name("operator"))
                .flatten()
                .map(|o| self.txt(o) == if or { "||" } else { "&&" })
        };
        // The operands, left to right, through parentheses of the same operator.
        let mut ops = Vec::new();
        let mut stack = vec![c];
        while let Some(x) = stack.pop() {
            let mut y = x;
            while y.kind() == "parenthesized_expression" && named(y).len() == 1 {
                y = named(y)[0];
            }
            if op(y) == Some(true) {
                stack.push(y.child_by_field_name("right")?);
                stack.push(y.child_by_field_name("left")?);
            } else {
                ops.push(x);
            }
        }
        let calls = |x: Node<'_>| {
            let mut cur = x.walk();
            let mut stack = vec![x];
            while let Some(y) = stack.pop() {
                if y.kind() == "call_expression" {
                    return true;
                }
                stack.extend(y.named_children(&mut cur));
            }
            false
        };
        let twice = match or {
            true => n.child_by_field_name("consequence"),
            false => n.child_by_field_name("alternative"),
        };
        let lowered = twice.map_or(0, |t| t.byte_range().len()) * (ops.len() - 1);
        (lowered <= MAX_LOWERED_TWICE && ops[1..].iter().any(|x| calls(*x))).then_some((or, ops))
    }

    /// An `if`, `while` or `switch` condition (C++ allows a declaration in it); its value
    /// where it is an expression.
    fn condition(&mut self, c: Node<'_>) -> Value {
        if !matches!(c.kind(), "condition_clause" | "parenthesized_expression") {
            return self.expr(c);
        }
        let mut value = Value::Unknown;
        for x in named(c) {
            value = match x.kind() {
                "declaration" => {
                    self.declaration(x);
                    Value::Unknown
                }
                "comment" => continue,
                _ => self.expr(x),
            };
        }
        value
    }

    /// The value of a `while` or `do` loop's condition, lowered where it stands.
    fn loop_condition(&mut self, n: Node<'_>) -> Value {
        match n.child_by_field_name("condition") {
            Some(c) => self.condition(c),
            None => Value::Unknown,
        }
    }

    /// A loop's test: `pass` where `cond` holds, else the loop's end; a pass where the
    /// analysis knows the outcome takes only its arm.
    fn exit_unless(&mut self, cond: &Value, pass: Vec<Stmt>) {
        let mut arms = [pass, vec![Stmt::Break]];
        self.guard(cond, &mut arms);
        self.out.push(Stmt::Branch(arms.into()));
    }

    /// The arms of a two-way choice on `cond`, each taken only where the condition can
    /// have its outcome: a comparison or an integer the analysis knows decides the choice.
    fn guard(&self, cond: &Value, arms: &mut [Vec<Stmt>; 2]) {
        let decides = match cond {
            Value::Arith { .. } => true,
            Value::Place(p) => match self.vars[p.var].hint {
                TypeHint::Scalar => p.proj.is_empty(),
                // `if (ev)`, `if (events[d])`: an event where one was made, else null.
                TypeHint::Event | TypeHint::EventList => true,
                // `if (slot.done)`, `if (d->up)`: an event field of a struct.
                _ if self.event_place(p) => true,
                // `if (mapped)` of a `float *mapped = NULL` set by a map that may not have
                // run (a `goto cleanup` before it).
                TypeHint::Host(HostKind::Pointer) => p.proj.is_empty(),
                _ => false,
            },
            _ => false,
        };
        if decides {
            for (arm, some) in arms.iter_mut().zip([true, false]) {
                arm.insert(
                    0,
                    Stmt::Assume {
                        value: cond.clone(),
                        some,
                    },
                );
            }
        }
    }

    /// A statement tree-sitter could not read that has the shape of a macro call,
    /// `NAME(arg, ...);`: each argument is read as a statement of its own. Returns whether
    /// it had that shape.
    fn macro_statement(&mut self, n: Node<'_>) -> bool {
        if self.reparse_depth >= MAX_REPARSE {
            return false;
        }
        let whole = self.text.clone();
        let text = whole
            .get(n.byte_range())
            .unwrap_or("")
            .trim_end()
            .trim_end_matches(';')
            .trim_end();
        let Some(open) = text.find('(') else {
            return false;
        };
        let name = text[..open].trim();
        if name.is_empty()
            || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            || !text.ends_with(')')
        {
            return false;
        }
        let inner_start = n.start_byte() + open + 1;
        let inner = &text[open + 1..text.len() - 1];
        let mut parts = Vec::new();
        let (mut depth, mut start) = (0i32, 0usize);
        let mut in_str: Option<char> = None;
        let mut prev = ' ';
        for (i, c) in inner.char_indices() {
            match (in_str, c) {
                (Some(q), c) if c == q && prev != '\\' => in_str = None,
                (Some(_), _) => {}
                (None, '"' | '\'') => in_str = Some(c),
                (None, '(' | '[' | '{') => depth += 1,
                (None, ')' | ']' | '}') => depth -= 1,
                (None, ',') if depth == 0 => {
                    parts.push((start, i));
                    start = i + 1;
                }
                _ => {}
            }
            prev = if prev == '\\' && c == '\\' { ' ' } else { c };
        }
        parts.push((start, inner.len()));
        for (s, e) in parts {
            let arg = inner[s..e].to_string();
            if arg.trim().is_empty() {
                continue;
            }
            self.reparse(&arg, inner_start + s);
        }
        true
    }

    /// Parses `code` (found at byte `at` of the current text) as statements and lowers them
    /// in the current scope.
    fn reparse(&mut self, code: &str, at: usize) {
        self.with_reparsed(("", ""), code, at, |l, body| {
            for s in named(body) {
                l.stmt(s);
            }
        });
    }

    /// Parses `lead` and `code` (`code` found at byte `at` of the current text) as the body
    /// of a function, and runs `f` on it with the spans of `code` mapped back to the file.
    fn with_reparsed(
        &mut self,
        (lead, tail): (&str, &str),
        code: &str,
        at: usize,
        f: impl FnOnce(&mut Self, Node<'_>),
    ) {
        if self.reparse_depth >= MAX_REPARSE {
            return;
        }
        let prefix = format!("void m(void){{{lead}");
        let wrapped = format!("{prefix}{code}{tail};}}");
        let Some(tree) = parse(&wrapped, self.cx.lang) else {
            return;
        };
        let body = named(tree.root_node())
            .into_iter()
            .find(|f| f.kind() == "function_definition")
            .and_then(|f| f.child_by_field_name("body"));
        let Some(body) = body else { return };
        let saved = (
            std::mem::replace(&mut self.text, Rc::from(wrapped.as_str())),
            self.base,
        );
        self.base = saved.1 + at as isize - prefix.len() as isize;
        self.reparse_depth += 1;
        f(self, body);
        self.reparse_depth -= 1;
        self.text = saved.0;
        self.base = saved.1;
    }

    /// `T x(a, b);` read as C++ reads it in a function body: a variable constructed from
    /// `a` and `b` (tree-sitter takes it for the declaration of a function `x`).
    fn vexing(&mut self, ty: &str, decl: Node<'_>, n: Node<'_>) -> bool {
        let (Some(name), Some(params)) = (
            decl.child_by_field_name("declarator"),
            decl.child_by_field_name("parameters"),
        ) else {
            return false;
        };
        if name.kind() != "identifier" || named(params).is_empty() {
            return false;
        }
        let name = self.txt(name).to_string();
        let code = self.txt(params).to_string();
        let span = self.span(n);
        let mut value = Value::Unknown;
        self.with_reparsed(("m", ""), &code, params.start_byte(), |l, body| {
            let call = named(body)
                .into_iter()
                .next()
                .and_then(|s| named(s).into_iter().next())
                .filter(|c| c.kind() == "call_expression");
            if let Some(args) = call.and_then(|c| c.child_by_field_name("arguments")) {
                value = l.construct(ty, args, span);
            }
        });
        let v = self.bind(&name, declared_hint(&self.cx.real_type(ty), None, 0));
        self.type_var(v, ty, 0);
        if let Some(e) = vector_elem(ty) {
            self.elem_types.insert(v, e.to_string());
        }
        self.out.push(Stmt::Assign {
            dst: Place::var(v),
            value,
            span,
        });
        true
    }

    fn declaration(&mut self, n: Node<'_>) {
        let ty = match n.child_by_field_name("type") {
            // `struct { const float *c; int n; } cases[] = { { cubic, 4 }, .. }`: a struct of
            // this declaration only, by a name of its place in the file.
            Some(t)
                if t.kind() == "struct_specifier" && t.child_by_field_name("name").is_none() =>
            {
                let name = format!("struct@{}", t.start_byte());
                if !self.cx.structs.contains_key(&name) {
                    self.cx.record(t, Some(name.clone()));
                }
                name
            }
            Some(t) => self.txt(t).to_string(),
            None => String::new(),
        };
        let mut cur = n.walk();
        let decls: Vec<Node<'_>> = n.children_by_field_name("declarator", &mut cur).collect();
        for d in decls {
            let shape = self.cx.declarator(&self.text, d);
            let Some(name_node) = shape.name else {
                if !(d.kind() == "function_declarator" && self.vexing(&ty, d, n)) {
                    self.expr(d);
                }
                continue;
            };
            let name = self.txt(name_node).to_string();
            let hint = declared_hint(&self.cx.real_type(&ty), shape.array, shape.pointers);
            let span = self.span(n);
            let mut text = None;
            self.fresh_statement();
            // `Mem dB(clCreateBuffer(..))`, `Event done;` of a wrapper class: the handle it
            // owns, in its one field. `std::vector<Mem> parts;`: a list of them.
            let wrapper = (shape.array.is_none() && shape.pointers == 0)
                .then(|| self.cx.wrapper_of(&ty))
                .flatten();
            let wrapped_elems = vector_elem(&ty).and_then(|e| self.cx.wrapper_of(e));
            // `auto launch = [&](int c) { .. };`: run where it is called, so what it names is
            // not forgotten where it is made.
            let lambda = shape.init.and_then(|i| self.lambda_body(i));
            self.declaring = Some(name.clone());
            let value = match (shape.init, &wrapper) {
                (Some(_), _) if lambda.is_some() => Value::Unknown,
                (init, Some(_)) => {
                    let inner = init
                        .filter(|i| matches!(i.kind(), "argument_list" | "initializer_list"))
                        .map(named);
                    let handle = match (init, inner.as_deref()) {
                        (None, _) => Value::Null,
                        (Some(_), Some([arg])) => self.expr(*arg),
                        (Some(i), _) => {
                            self.expr(i);
                            Value::Unknown
                        }
                    };
                    Value::Struct(vec![(HANDLE_FIELD.to_string(), handle)])
                }
                (Some(init), None) if init.kind() == "argument_list" => {
                    self.construct(&ty, init, span)
                }
                // `cl::Buffer b{ctx, flags, n}`; not `cl_event deps[2] = { a, b }`, a list.
                (Some(init), None)
                    if init.kind() == "initializer_list"
                        && shape.array.is_none()
                        && shape.pointers == 0
                        && handle_hint(last_name(&ty)) != TypeHint::Unknown =>
                {
                    self.construct(&ty, init, span)
                }
                // `unique_event e{raw}` of `std::unique_ptr<.., EventDeleter>`: an object of a
                // class template made from the values, not a list of them.
                (Some(init), None)
                    if init.kind() == "initializer_list"
                        && self.cx.lang == Lang::Cpp
                        && shape.array.is_none()
                        && shape.pointers == 0
                        && class_template(&self.cx.real_type(&ty)) =>
                {
                    self.construct(&ty, init, span)
                }
                // `struct stage stages[3] = { { "blur", NULL }, .. }` of a struct of the file:
                // its members are structs with those fields.
                (Some(init), None)
                    if init.kind() == "initializer_list"
                        && shape.pointers == 0
                        && (shape.array.is_none() || shape.dims == 1)
                        && self.struct_fields(&ty).is_some() =>
                {
                    self.struct_init(&ty, init, shape.array.is_some())
                        .unwrap_or_else(|| self.expr(init))
                }
                (Some(init), None) => {
                    text = self.str_value(init);
                    self.expr(init)
                }
                // `std::vector<cl::CommandQueue> queues;`: an empty list of its elements.
                (None, None)
                    if vector_elem(&ty).is_some() && !matches!(hint, TypeHint::Host(_)) =>
                {
                    Value::List(Vec::new())
                }
                // `worker_t wk[MAX_DEV];` of a struct of the file: storage of this function,
                // its members not set yet. What is stored into them stays the function's.
                (None, None)
                    if shape.pointers == 0
                        && shape.dims == 1
                        && self.cx.lang == Lang::C
                        && self
                            .cx
                            .structs
                            .contains_key(last_name(&self.cx.real_type(&ty))) =>
                {
                    match shape.array {
                        Some(Some(len)) if len <= MAX_NULL_SLOTS => {
                            Value::List(vec![Value::Unknown; len as usize])
                        }
                        _ => Value::Unknown,
                    }
                }
                // `Sample s;` of a class of the file with a constructor.
                (None, None)
                    if shape.pointers == 0
                        && shape.array.is_none()
                        && self.constructor_of(&ty).is_some() =>
                {
                    self.construct_from(&ty, &[], span)
                }
                // `Worker w;` of a C++ struct of the file without one: a value of its own,
                // whose members the function sets one by one (`w.q = cl::CommandQueue(..)`).
                (None, None)
                    if shape.pointers == 0
                        && shape.array.is_none()
                        && self.cx.lang == Lang::Cpp
                        && self
                            .cx
                            .structs
                            .contains_key(last_name(&self.cx.real_type(&ty))) =>
                {
                    Value::Struct(Vec::new())
                }
                // `cl_mem in[2];` of handles other than events: storage of this function, its
                // members not set yet, filled one by one (`in[n] = blk[d - 1].edges; n++;`)
                // and then handed to a command as a list. (An array of events not set yet is
                // left unknown: it is told apart as the function's own storage of events.)
                (None, None)
                    if shape.pointers == 0
                        && shape.dims == 1
                        && !matches!(
                            handle_hint(last_name(&ty)),
                            TypeHint::Unknown | TypeHint::Event
                        ) =>
                {
                    match shape.array {
                        Some(Some(len)) if len <= MAX_NULL_SLOTS => {
                            Value::List(vec![Value::Unknown; len as usize])
                        }
                        _ => Value::Unknown,
                    }
                }
                (None, None) => Value::Unknown,
            };
            self.declaring = None;
            // `float coef[2] = { 1.0f - 2.0f * alpha, alpha }`: host data, whatever its
            // initial values are computed from.
            let value = match (value, hint) {
                (Value::List(_), TypeHint::Host(kind)) => Value::Host { kind, base: None },
                (v, _) => v,
            };
            // `cl_event ev[NDEV] = {0}`: handles not made yet, every one null (the members
            // not written in the braces are zero too).
            let value = match (shape.array, shape.init) {
                (Some(Some(len)), Some(init))
                    if shape.dims == 1
                        && shape.pointers == 0
                        && len <= MAX_NULL_SLOTS
                        && handle_hint(last_name(&ty)) != TypeHint::Unknown
                        && self.all_null(init) =>
                {
                    Value::List(vec![Value::Null; len as usize])
                }
                _ => value,
            };
            let v = self.bind(&name, hint);
            if let Some(w) = wrapper.or(wrapped_elems) {
                self.wrapped.insert(v, w);
            }
            if shape.array.is_none() && shape.pointers == 0 {
                self.note_scalar_type(v, &ty);
            }
            if let Some(body) = lambda {
                self.lambdas.insert(v, body);
            }
            self.type_var(v, &ty, shape.pointers);
            // `auto done = std::async(..)`.
            if (shape
                .init
                .and_then(|i| strip(i).child_by_field_name("function")))
            .is_some_and(|f| self.txt(f).split_whitespace().collect::<String>() == "std::async")
            {
                self.futures.insert(v);
            }
            self.type_members(v, &ty, shape.array, shape.pointers);
            if shape.dims > 1 {
                self.dims.insert(v, shape.dims);
            }
            let len = match shape.array {
                Some(Some(len)) if shape.dims == 1 => Some(len),
                // `cl_event all[] = { a, b, c }`: as many as it lists.
                Some(None) if shape.dims == 1 => (shape.init)
                    .filter(|i| i.kind() == "initializer_list")
                    .map(|i| i.named_child_count() as u64),
                None => std_array_len(&ty).and_then(|n| match self.cx.consts.get(n) {
                    Some(Const::Int(v)) => Some(*v),
                    _ => n.parse().ok(),
                }),
                _ => None,
            };
            if let Some(len) = len.filter(|_| shape.pointers == 0) {
                self.lens.insert(v, len);
            }
            if let Some(init) = shape.init.filter(|i| i.kind() == "initializer_list") {
                let names = certain_identifiers(init, &self.text);
                self.init_names.insert(v, names);
            }
            let konst = named(n)
                .iter()
                .any(|c| c.kind() == "type_qualifier" && self.txt(*c) == "const");
            if let Some(k) = shape
                .init
                .filter(|_| konst && shape.pointers == 0)
                .and_then(|i| self.const_key(i))
            {
                self.const_locals.insert(v, k);
            }
            if let (true, Value::Place(p)) = (shape.reference, &value) {
                let p = self.frozen(p.clone(), span);
                // `Slot &s = dev(i);`: what the call gives is a `Slot`, whose methods are
                // followed on `s`.
                if p.proj.is_empty() && self.vars[p.var].ty.is_none() {
                    self.vars[p.var].ty = self.vars[v].ty.clone();
                }
                self.refs.insert(v, p);
                continue;
            }
            if let Some(e) = vector_elem(&ty) {
                self.elem_types.insert(v, e.to_string());
            }
            // `size_t count[MAX_GPU]`: its members are `size_t`s.
            if shape.array.is_some() && shape.dims == 1 && shape.pointers == 0 {
                self.elem_types.insert(v, ty.to_string());
            }
            self.note_status(v);
            if let Some(t) = text {
                self.strs.insert(v, t);
            }
            // `clEventWrapper e = clCreateUserEvent(..)`: the object owns the event.
            let value = match value {
                Value::New(NewObject::UserEvent { raw: true }) if self.owned(&Place::var(v)) => {
                    Value::New(NewObject::UserEvent { raw: false })
                }
                v => v,
            };
            self.out.push(Stmt::Assign {
                dst: Place::var(v),
                value,
                span,
            });
        }
    }

    /// A place with each index a local holds (`gpu[d]`) taken as it is now: the local's
    /// value copied to a temporary that nothing changes.
    fn frozen(&mut self, mut p: Place, span: Span) -> Place {
        for x in &mut p.proj {
            if let Proj::Var(v) = x {
                // Shown as the index it copies (`workers[d].k`).
                let t = self.new_temp(TypeHint::Scalar);
                self.vars[t].name = self.vars[*v].name.clone();
                self.out.push(Stmt::Assign {
                    dst: Place::var(t),
                    value: Value::Place(Place::var(*v)),
                    span,
                });
                *v = t;
            }
        }
        p
    }

    /// The constructor of a class of the file (`LutSample::LutSample`), where it has one.
    /// A class template's instance (`Runner<2>`) is its class: the template's constructor.
    fn constructor_of(&self, ty: &str) -> Option<String> {
        let class = without_template_args(ty);
        Some(format!("{class}::{}", last_name(class))).filter(|c| self.cx.defined.contains(c))
    }

    /// `T x(args)` / `T x{args}`: a constructor call of the class `T`.
    fn construct(&mut self, ty: &str, args: Node<'_>, span: Span) -> Value {
        self.construct_from(ty, &named(args), span)
    }

    fn construct_from(&mut self, ty: &str, items: &[Node<'_>], span: Span) -> Value {
        let segs = path_segments(ty.trim_start_matches("const ").trim());
        if is_thread(&segs) {
            if let Some(v) = self.thread_start(items, false, span) {
                return v;
            }
        }
        if let Some(v) = self.iterator_buffer(&segs, items) {
            return v;
        }
        // `std::vector<float> h(n)`: host data; `std::vector<cl::Event> ev(2)`: that many
        // events not made yet. The count is read once, here, whatever the vector becomes.
        let mut read = None;
        // `std::vector<float> bias(rows, 0.01f)`, `std::vector<float> v(a.begin(), a.end())`:
        // host data too.
        if let (Some(_), [_, _]) = (vector_elem(ty), items) {
            if let TypeHint::Host(kind) = declared_hint(&self.cx.real_type(ty), None, 0) {
                for a in items {
                    self.expr(*a);
                }
                return Value::Host { kind, base: None };
            }
        }
        // `std::vector<cl_event> mig(nd, nullptr)`: as many empty slots as `nd`, where the
        // analysis finds it (at most as many as a loop up to a count not known runs).
        if let (Some(elem), [count, rest @ ..]) = (vector_elem(ty), items) {
            let real = self.cx.real_type(ty);
            let handles = handle_hint(last_name(elem)) != TypeHint::Unknown;
            if rest.len() <= 1 && (rest.is_empty() || handles) {
                let n = self.expr(*count);
                let fill = rest.first().map(|f| self.expr(*f));
                let empty = handles && fill.as_ref().is_none_or(|f| *f == Value::Null);
                // Only where the null fill is written out: `std::vector<cl::Event> ev(n)` is
                // filled by commands and threads in ways not all followed.
                let nulls = handles && fill == Some(Value::Null);
                match (declared_hint(&real, None, 0), n) {
                    (TypeHint::Host(kind), _) => return Value::Host { kind, base: None },
                    (_, Value::Int(n @ 0..=MAX_NULL_SLOTS)) if empty => {
                        return Value::List(vec![Value::Null; n as usize]);
                    }
                    (_, n @ (Value::Place(_) | Value::Len(_) | Value::Arith { .. })) if nulls => {
                        return Value::Slots(Box::new(n));
                    }
                    (_, n) => read = Some([Some(n), fill].into_iter().flatten().collect()),
                }
            }
        }
        match self.cx_bindings().function(&segs, items.len()) {
            Some(api) => self.apply(api, None, items, span),
            None => match self.constructor_of(ty).filter(|_| read.is_none()) {
                Some(ctor) => self.construct_class(ty, ctor, items, span),
                None => {
                    let vals: Vec<Value> = match read {
                        Some(read) => read,
                        None => items.iter().map(|a| self.expr(*a)).collect(),
                    };
                    self.forget(vals, span);
                    Value::Unknown
                }
            },
        }
    }

    /// `MultiGPUStencil sample(1024, 1024);` of a class the file defines with a constructor:
    /// a value of its own, whose vectors of handles start empty, given to the constructor
    /// `ctor` as `this`.
    fn construct_class(&mut self, ty: &str, ctor: String, items: &[Node<'_>], span: Span) -> Value {
        let ty = without_template_args(ty);
        let prefix = format!("{ty}::");
        let mut fields: Vec<(String, Value)> = (self.cx.field_types.iter())
            .filter_map(|(k, t)| Some((k.strip_prefix(&prefix)?, t)))
            .filter(|(_, t)| {
                vector_elem(&self.cx.real_type(t))
                    .is_some_and(|e| handle_hint(last_name(e)) != TypeHint::Unknown)
            })
            .map(|(f, _)| (f.to_string(), Value::List(Vec::new())))
            .collect();
        fields.sort_by(|a, b| a.0.cmp(&b.0));
        // Named as the local it is made for, so what the constructor makes is named by that
        // local's fields (`sample.input`).
        let t = self.new_temp(TypeHint::Unknown);
        self.vars[t].ty = Some(last_name(ty).to_string());
        if let Some(name) = self.declaring.take() {
            self.vars[t].name = name;
        }
        self.out.push(Stmt::Assign {
            dst: Place::var(t),
            value: Value::Struct(fields),
            span,
        });
        let args = items.iter().map(|a| self.expr(*a)).collect();
        self.emit_call(ctor, Some(Value::Place(Place::var(t))), args, span);
        Value::Place(Place::var(t))
    }

    /// A constructor's member initializers (`: queue_(ctx, dev), pixels_(ctx, b, e, false)`),
    /// in order: a member given one value is that value (`ctx_(ctx)`); one given several is
    /// made by its class's constructor, as a declaration with those arguments makes it.
    fn member_inits(&mut self, list: Node<'_>) {
        for init in named(list) {
            let kids = named(init);
            let (Some(field), Some(args)) = (
                kids.iter().find(|c| c.kind() == "field_identifier"),
                (kids.iter()).find(|c| matches!(c.kind(), "argument_list" | "initializer_list")),
            ) else {
                continue;
            };
            let name = self.txt(*field).to_string();
            let Some(dst) = self.member_of_this(&name) else {
                continue;
            };
            let span = self.span(init);
            self.fresh_statement();
            let items = named(*args);
            let ty = self.member_type(&name).cloned();
            // One value of the member's own kind (`ctx_(ctx)`) is a copy of it.
            let copy = |l: &Self, one: Node<'_>, ty: &str| {
                let hint = declared_hint(&l.cx.real_type(ty), None, 0);
                match l.expr_hint(one) {
                    Some(h) => h == hint,
                    None => !hint.is_handle(),
                }
            };
            let value = match (items.as_slice(), ty) {
                ([one], Some(ty)) if !copy(self, *one, &ty) => {
                    self.construct_from(&ty, &items, span)
                }
                ([one], _) => self.expr(*one),
                (_, Some(ty)) => self.construct_from(&ty, &items, span),
                _ => {
                    let vals = items.iter().map(|a| self.expr(*a)).collect();
                    self.forget(vals, span);
                    Value::Unknown
                }
            };
            self.out.push(Stmt::Assign { dst, value, span });
        }
    }

    /// Whether a place is a `std::vector`: a variable declared as one, or a field of the
    /// class of the method being lowered (`queues_`).
    fn is_vector(&self, p: &Place) -> bool {
        self.elem_type(p).is_some()
    }

    /// The member of `base` at `index` (`q[i]`, `queues_.at(d)`), `n` the expression.
    fn member_at(&mut self, base: Option<Value>, index: Option<Node<'_>>, n: Node<'_>) -> Value {
        let constant = index.and_then(|i| self.cx.int_of_in(&self.text, i));
        let index_value = index.map(|i| self.expr(i));
        // `q[i]` for a local `i`: the analysis takes the element when it knows `i`.
        let local = index
            .filter(|i| i.kind() == "identifier")
            .and_then(|i| self.lookup(self.txt(i)));
        // `g[1 - d]`: the member the arithmetic gives where the analysis knows it.
        let computed = match index_value {
            Some(v @ Value::Arith { .. }) if constant.is_none() && local.is_none() => {
                let t = self.new_temp(TypeHint::Scalar);
                let span = self.span(n);
                self.out.push(Stmt::Assign {
                    dst: Place::var(t),
                    value: v,
                    span,
                });
                Some(t)
            }
            // `prev[n++]`: the local holding what `n` was.
            Some(Value::Place(t)) if constant.is_none() && local.is_none() && t.proj.is_empty() => {
                Some(t.var)
            }
            _ => None,
        };
        match base {
            Some(Value::Place(mut p)) => {
                p.proj.push(match (constant, local.or(computed)) {
                    (Some(k), _) => Proj::Index(k),
                    (None, Some(v)) => Proj::Var(v),
                    (None, None) => Proj::AnyIndex,
                });
                Value::Place(p)
            }
            Some(Value::List(items)) => match constant {
                Some(k) => items.get(k as usize).cloned().unwrap_or(Value::Unknown),
                None => Value::Unknown,
            },
            _ => Value::Unknown,
        }
    }

    /// The declared type of a member of the class whose method this is.
    fn member_type(&self, name: &str) -> Option<&String> {
        let class = self.class.as_ref()?;
        self.cx.field_types.get(&format!("{class}::{name}"))
    }

    /// The element type of a `std::vector` a place is: a local's, or a member's of the
    /// class whose method this is (`queues` of `std::vector<cl::CommandQueue> queues;`).
    fn elem_type(&self, p: &Place) -> Option<String> {
        match p.proj.as_slice() {
            [] => self.elem_types.get(&p.var).cloned(),
            // `ready[d]` of a `std::vector<std::vector<cl::Event>>`: a vector too.
            [Proj::Index(_) | Proj::Var(_) | Proj::At(_) | Proj::AnyIndex] => {
                let outer = self.elem_types.get(&p.var)?;
                vector_elem(&self.cx.real_type(outer)).map(str::to_string)
            }
            [Proj::Field(f)] if self.vars[p.var].name == "this" => self
                .member_type(f)
                .and_then(|ty| vector_elem(&self.cx.real_type(ty)).map(str::to_string)),
            _ => None,
        }
    }

    /// The fields of a struct of the file that holds OpenCL handles, in declaration order.
    fn struct_fields(&self, ty: &str) -> Option<Vec<String>> {
        let fields = (self.cx.structs).get(last_name(&self.cx.real_type(ty)))?;
        if !(fields.iter()).any(|(_, h)| h.is_handle() || matches!(h, TypeHint::Host(_))) {
            return None;
        }
        Some(
            (fields.iter())
                .filter(|(f, _)| !f.ends_with("[]"))
                .map(|(f, _)| f.clone())
                .collect(),
        )
    }

    /// The value of `{ "blur", 1.0f, NULL }` or `{ .queue = q }` initializing a struct of
    /// the file (a list of them where `list`): the fields it names, by position or by
    /// designator. `None` where it is not one the lowering can read field by field (more
    /// values than fields, positions after designators, nested designators).
    fn struct_init<'t>(&mut self, ty: &str, init: Node<'t>, list: bool) -> Option<Value> {
        let fields = self.struct_fields(ty)?;
        let pairs = |n: Node<'t>| -> Option<Vec<(String, Node<'t>)>> {
            let items: Vec<Node<'t>> = (named(n).into_iter())
                .filter(|c| c.kind() != "comment")
                .collect();
            let designated = items.iter().any(|c| c.kind() == "initializer_pair");
            // `= {0}`: every field zero, whatever its type; not read field by field.
            let zero = matches!(items.as_slice(), [c] if self.txt(*c) == "0");
            if (items.len() > fields.len() || items.is_empty() || zero) && !designated {
                return None;
            }
            (items.into_iter().enumerate())
                .map(|(k, c)| match (designated, c.kind()) {
                    (false, _) => Some((fields[k].clone(), c)),
                    (true, "initializer_pair") => {
                        let d = c.child_by_field_name("designator")?;
                        let name = (d.kind() == "field_designator")
                            .then(|| self.txt(d).trim_start_matches('.').trim().to_string())?;
                        Some((name, c.child_by_field_name("value")?))
                    }
                    (true, _) => None,
                })
                .collect()
        };
        let members: Vec<Vec<(String, Node<'t>)>> = if list {
            (named(init).into_iter())
                .filter(|c| c.kind() != "comment")
                .map(|c| (c.kind() == "initializer_list").then(|| pairs(c)).flatten())
                .collect::<Option<_>>()?
        } else {
            vec![pairs(init)?]
        };
        let hints = self.field_hints(ty);
        let mut values: Vec<Value> = (members.into_iter())
            .map(|m| {
                Value::Struct(
                    (m.into_iter())
                        .map(|(f, x)| {
                            let v = self.field_init(hints.get(&f).copied(), x);
                            (f, v)
                        })
                        .collect(),
                )
            })
            .collect();
        Some(if list {
            Value::List(values)
        } else {
            values.pop()?
        })
    }

    /// An element pushed into `list`: `{d, cl::CommandQueue(ctx, d), kernel}` of a
    /// `std::vector<Stage>` is a `Stage` with its fields in declaration order.
    fn aggregate(&mut self, list: &Place, arg: Node<'_>) -> Value {
        let ty = (arg.kind() == "initializer_list")
            .then(|| self.elem_type(list))
            .flatten();
        let fields: Option<Vec<String>> = (ty.as_deref())
            .and_then(|ty| self.cx.structs.get(last_name(&self.cx.real_type(ty))))
            .map(|fields| {
                (fields.iter())
                    .filter(|(f, _)| !f.ends_with("[]"))
                    .map(|(f, _)| f.clone())
                    .collect()
            });
        let items: Vec<Node<'_>> = named(arg)
            .into_iter()
            .filter(|c| c.kind() != "comment")
            .collect();
        let hints = (ty.as_deref()).map_or_else(HashMap::new, |ty| self.field_hints(ty));
        match fields {
            Some(fields) if fields.len() == items.len() => Value::Struct(
                fields
                    .into_iter()
                    .zip(items)
                    .map(|(f, x)| {
                        let v = self.field_init(hints.get(&f).copied(), x);
                        (f, v)
                    })
                    .collect(),
            ),
            _ => self.expr(arg),
        }
    }

    /// The declared hints of the fields of a struct of the file, by name.
    fn field_hints(&self, ty: &str) -> HashMap<String, TypeHint> {
        (self.cx.structs.get(last_name(&self.cx.real_type(ty))))
            .map(|fields| fields.iter().cloned().collect())
            .unwrap_or_default()
    }

    /// A field's value in a struct's initializer: `{}` for a `cl::Event` field is no event
    /// yet (`Node n{"upload", {}}`), not an empty list of them.
    fn field_init(&mut self, hint: Option<TypeHint>, x: Node<'_>) -> Value {
        let empty =
            x.kind() == "initializer_list" && named(x).iter().all(|c| c.kind() == "comment");
        match (hint, empty) {
            (Some(TypeHint::Event), true) => Value::Null,
            _ => self.expr(x),
        }
    }

    /// The declared hint of a variable an expression names bare (`ctx`).
    fn expr_hint(&self, n: Node<'_>) -> Option<TypeHint> {
        let n = strip(n);
        (n.kind() == "identifier")
            .then(|| self.lookup(self.txt(n)))
            .flatten()
            .map(|v| self.vars[v].hint)
    }

    /// `cl::Buffer(ctx, v.begin(), v.end(), readOnly[, useHostPtr[, &err]])`, also with a
    /// queue first or with neither: a buffer made from the host data the iterators walk,
    /// copied in (or used in place), as `CL_MEM_COPY_HOST_PTR` makes one.
    fn iterator_buffer(&mut self, segs: &[String], items: &[Node<'_>]) -> Option<Value> {
        if segs.last().map(String::as_str) != Some("Buffer") {
            return None;
        }
        let (at, data) =
            (items.iter().enumerate()).find_map(|(i, a)| self.iterated(*a).map(|d| (i, d)))?;
        if at > 1 || items.len() < at + 3 || items.len() > at + 5 {
            return None;
        }
        // The end iterator only bounds the walk.
        for (i, a) in items.iter().enumerate() {
            if i != at && i != at + 1 {
                self.expr(*a);
            }
        }
        let host = self.expr(data);
        Some(Value::New(NewObject::Buffer {
            undefined: false,
            host_init: Some(Box::new(host)),
            in_place: false,
            read_only: false,
        }))
    }

    /// The container an iterator to its start walks: `v` of `v.begin()`, `v.cbegin()`,
    /// `std::begin(v)`.
    fn iterated<'t>(&self, n: Node<'t>) -> Option<Node<'t>> {
        let n = strip(n);
        if n.kind() != "call_expression" {
            return None;
        }
        let func = n.child_by_field_name("function")?;
        let args = named(n.child_by_field_name("arguments")?);
        match func.kind() {
            "field_expression" => {
                let field = self.txt(func.child_by_field_name("field")?);
                (matches!(field, "begin" | "cbegin") && args.is_empty())
                    .then(|| func.child_by_field_name("argument"))?
            }
            _ => {
                let path = path_segments(self.txt(func));
                let std_begin = path.len() == 2 && path[0] == "std" && path[1] == "begin";
                match args.as_slice() {
                    [one] if std_begin => Some(*one),
                    _ => None,
                }
            }
        }
    }

    /// The wrapper class a data member is declared as (`Queue queue_;` of `using Queue =
    /// Handle<cl_command_queue, ..>`), where `p` names that member of a class of the file.
    /// So is a member of a data member that is an array or vector of them (`edge_[0]` of
    /// `std::array<Mem, 2> edge_`).
    fn member_wrapper(&self, p: &Place) -> Option<&Wrapper> {
        let (Proj::Field(f), indices) = p.proj.split_first()? else {
            return None;
        };
        if !(indices.iter()).all(|x| matches!(x, Proj::Index(_) | Proj::Var(_) | Proj::AnyIndex)) {
            return None;
        }
        let class = self.vars[p.var].ty.as_ref()?;
        let mut ty = self.cx.field_types.get(&format!("{class}::{f}"))?.as_str();
        for _ in indices {
            ty = container_elem(ty)?;
        }
        self.cx.wrappers.get(&self.cx.wrapper_of(ty)?)
    }

    /// The wrapper class `v` is a value of, or a list of values of.
    fn wrapper_of_var(&self, v: Var) -> Option<&Wrapper> {
        self.cx.wrappers.get(self.wrapped.get(&v)?)
    }

    /// The field holding the handle where `recv` is a value of a wrapper class, or a member of
    /// a list of them, and `method` hands the handle out.
    fn wrapped_handle(&self, recv: &Value, method: &str, args: usize) -> Option<Place> {
        let Value::Place(p) = recv else {
            return None;
        };
        let direct = p.proj.is_empty()
            || matches!(
                p.proj.as_slice(),
                [Proj::Index(_) | Proj::Var(_) | Proj::AnyIndex]
            );
        let w = match self.wrapper_of_var(p.var).filter(|_| direct) {
            Some(w) => w,
            None => self.member_wrapper(p)?,
        };
        if args != 0 || !w.methods.contains(method) {
            return None;
        }
        let mut p = p.clone();
        p.proj.push(Proj::Field(HANDLE_FIELD.to_string()));
        Some(p)
    }

    fn cx_bindings(&self) -> &'static Bindings {
        bindings()
    }

    /// Binds a parameter (`cl::CommandQueue &q`, `size_t n`) as a local of its declared type:
    /// the local, its declarator's shape and the type as written; `None` when it names no
    /// local.
    fn bind_param<'t>(&mut self, p: Node<'t>) -> Option<(Var, Shape<'t>, String)> {
        let shape = self
            .cx
            .declarator(&self.text, p.child_by_field_name("declarator")?);
        let name = self.txt(shape.name?).to_string();
        let ty = p
            .child_by_field_name("type")
            .map_or(String::new(), |t| self.txt(t).to_string());
        let hint = declared_hint(&self.cx.real_type(&ty), shape.array, shape.pointers);
        let v = self.bind(&name, hint);
        if shape.array.is_none() && shape.pointers == 0 {
            self.note_scalar_type(v, &ty);
        }
        self.type_var(v, &ty, shape.pointers);
        Some((v, shape, ty))
    }

    /// The parameters and body of a lambda, lowered to run where a call of the local bound to
    /// it runs it (what it captures by reference is the function's own). Each call binds
    /// the parameters to its arguments first.
    fn lambda_body(&mut self, n: Node<'_>) -> Option<(Vec<Var>, Vec<Stmt>)> {
        if n.kind() != "lambda_expression" {
            return None;
        }
        let params = n
            .child_by_field_name("declarator")
            .and_then(|d| d.child_by_field_name("parameters"))
            .map_or(Vec::new(), named);
        let body = n.child_by_field_name("body")?;
        self.scopes.push(HashMap::new());
        let mut vars = Vec::new();
        for p in params {
            let bound = (p.kind() == "parameter_declaration")
                .then(|| self.bind_param(p))
                .flatten();
            let Some((v, _, _)) = bound else {
                self.scopes.pop();
                return None;
            };
            vars.push(v);
        }
        let stmts = self.separate(|l| l.stmt(body));
        self.scopes.pop();
        Some((vars, stmts))
    }

    /// Whether a field expression (`cur.packed`, `s->done`) names a field that is an array
    /// of handles or of events, as its struct declares it.
    fn handle_array_field(&self, b: Node<'_>) -> bool {
        let Some(field) = b.child_by_field_name("field").map(|f| self.txt(f)) else {
            return false;
        };
        let Some(base) = (b.child_by_field_name("argument"))
            .filter(|a| a.kind() == "identifier")
            .and_then(|a| self.lookup(self.txt(a)))
        else {
            return false;
        };
        (self.vars[base].fields.iter()).any(|(n, h)| {
            (*n == members_of(field) && h.is_handle()) || (n == field && *h == TypeHint::EventList)
        })
    }

    /// The place an assignment target names, if it is one.
    fn place_of(&mut self, n: Node<'_>) -> Option<Place> {
        match self.expr(n) {
            Value::Place(p) => Some(p),
            _ => None,
        }
    }

    fn expr(&mut self, n: Node<'_>) -> Value {
        match n.kind() {
            "identifier" | "field_identifier" => {
                let name = self.txt(n).to_string();
                if let Some(v) = self.lookup(&name) {
                    return Value::Place(self.refs.get(&v).cloned().unwrap_or(Place::var(v)));
                }
                if let Some(this) = self.member_of_this(&name) {
                    return Value::Place(this);
                }
                if let Some(v) = self.global(&name) {
                    return Value::Place(Place::var(v));
                }
                match self.cx.consts.get(&name) {
                    Some(Const::Int(v)) => Value::Int(*v),
                    Some(Const::Str(s)) => Value::Str(s.clone()),
                    None if name == "NULL" => Value::Null,
                    None => migration_flag(&name).map_or(Value::Unknown, Value::Int),
                }
            }
            "null" | "nullptr" => Value::Null,
            "number_literal" => int_text(self.txt(n)).map_or(Value::Scalar, Value::Int),
            // `Lane(ctx, dev, prog, false)`: a flag a callee's `if (ooo)` can decide on.
            "true" => Value::Int(1),
            "false" => Value::Int(0),
            "char_literal" | "sizeof_expression" | "alignof_expression" => Value::Scalar,
            "string_literal" | "concatenated_string" | "raw_string_literal" => {
                Value::Str(self.cx.string_of_in(&self.text, n))
            }
            "this" => match self.lookup("this") {
                Some(v) => Value::Place(Place::var(v)),
                None => Value::Unknown,
            },
            // `(worker_t){0}` of a struct of the file: a struct with nothing set yet.
            "compound_literal_expression"
                if self.cx.lang == Lang::C
                    && n.child_by_field_name("type").is_some_and(|t| {
                        self.cx
                            .structs
                            .contains_key(last_name(&self.cx.real_type(self.txt(t))))
                    })
                    && n.child_by_field_name("value")
                        .is_some_and(|i| self.all_null(i)) =>
            {
                Value::Struct(Vec::new())
            }
            "parenthesized_expression" | "compound_literal_expression" => {
                let mut v = Value::Unknown;
                for c in named(n) {
                    if c.kind() != "type_descriptor" {
                        v = self.expr(c);
                    }
                }
                v
            }
            "pointer_expression" => match n.child_by_field_name("argument") {
                // `&h_part[d]` of host data: one member of it, which could be a value passed
                // by value as much as a pointer into host memory.
                Some(a)
                    if a.kind() == "subscript_expression"
                        && n.child(0).is_some_and(|o| self.txt(o) == "&") =>
                {
                    match self.expr(a) {
                        Value::Place(p)
                            if matches!(
                                p.proj.as_slice(),
                                [Proj::Index(_) | Proj::Var(_) | Proj::AnyIndex]
                            ) && matches!(self.vars[p.var].hint, TypeHint::Host(_)) =>
                        {
                            Value::Host {
                                kind: HostKind::Array { len: Some(1) },
                                base: Some(Place::var(p.var)),
                            }
                        }
                        v => v,
                    }
                }
                Some(a) => self.expr(a),
                None => Value::Unknown,
            },
            "cast_expression" => match n.child_by_field_name("value") {
                Some(a) => self.expr(a),
                None => Value::Unknown,
            },
            "field_expression" => {
                let base = n.child_by_field_name("argument").map(|a| self.expr(a));
                let field = n
                    .child_by_field_name("field")
                    .map(|f| self.txt(f).to_string());
                match (base, field) {
                    (Some(Value::Place(mut p)), Some(f)) => {
                        // `a0.m` of a wrapper whose member is public: its handle.
                        let handle = self.wrapper_of_var(p.var).is_some_and(|w| w.member == f);
                        p.proj.push(Proj::Field(match handle {
                            true => HANDLE_FIELD.to_string(),
                            false => f,
                        }));
                        Value::Place(p)
                    }
                    _ => Value::Unknown,
                }
            }
            "subscript_expression" => {
                let base = n.child_by_field_name("argument").map(|a| self.expr(a));
                // C++ writes the index in an argument list (`gpu[d]`).
                let index = n
                    .child_by_field_name("index")
                    .or_else(|| n.child_by_field_name("indices"))
                    .and_then(|i| match i.kind() {
                        "subscript_argument_list" => named(i).into_iter().next(),
                        _ => Some(i),
                    });
                self.member_at(base, index, n)
            }
            // `const_cast<float *>(x)`, `static_cast<..>(x)`: what `x` is.
            "call_expression" if self.cpp_cast(n).is_some() => match self.cpp_cast(n) {
                Some(x) => self.expr(x),
                None => Value::Unknown,
            },
            // `prev = std::move(done)` of a `std::vector<cl::Event>`: the local itself, not a
            // call that may do anything with it. A class of the program may move as it
            // likes (`Event(Event &&o) : h(std::exchange(o.h, nullptr))`).
            "call_expression" => match self.moved_local(n).filter(|x| !self.of_program_class(*x)) {
                Some(x) => self.expr(x),
                None => self.call(n),
            },
            "assignment_expression" => self.assign(n),
            "binary_expression" => {
                let op = n
                    .child_by_field_name("operator")
                    .map(|o| self.txt(o).to_string());
                // `sizeof(all) / sizeof(all[0])`: the array's length.
                if let Some(len) = (op.as_deref() == Some("/"))
                    .then(|| self.array_count(n))
                    .flatten()
                {
                    return Value::Int(len);
                }
                let lhs = n
                    .child_by_field_name("left")
                    .map_or(Value::Unknown, |l| self.expr(l));
                let Some(r) = n.child_by_field_name("right") else {
                    return Value::Scalar;
                };
                if matches!(op.as_deref(), Some("&&" | "||")) {
                    // The right side runs only on one outcome of the left.
                    let arm = self.separate(|l| {
                        l.expr(r);
                    });
                    self.out.push(Stmt::Branch(vec![arm, Vec::new()]));
                    return Value::Scalar;
                }
                let rhs = self.expr(r);
                // `h + off`: a pointer into the same host data.
                if matches!(op.as_deref(), Some("+" | "-")) {
                    if let Some(host) = self.host_pointer(&lhs) {
                        return match (lhs, op.as_deref()) {
                            (Value::Place(base), Some("+")) if base.proj.is_empty() => {
                                Value::HostAt {
                                    base,
                                    offset: Box::new(rhs),
                                    text: self.txt(n).to_string(),
                                }
                            }
                            _ => host,
                        };
                    }
                }
                if op.as_deref() == Some("+") {
                    if let Some(host) = self.host_pointer(&rhs) {
                        return host;
                    }
                }
                match op.as_deref().and_then(ArithOp::of) {
                    Some(op) => Value::Arith {
                        op,
                        lhs: Box::new(lhs),
                        rhs: Box::new(rhs),
                    },
                    None => Value::Scalar,
                }
            }
            "update_expression" => self.update(n),
            "unary_expression" => {
                let op = n
                    .child_by_field_name("operator")
                    .map(|o| self.txt(o) == "!");
                let arg = n
                    .child_by_field_name("argument")
                    .map_or(Value::Unknown, |a| self.expr(a));
                match op {
                    // `!x`: whether `x` is zero.
                    Some(true) => Value::Arith {
                        op: ArithOp::Eq,
                        lhs: Box::new(arg),
                        rhs: Box::new(Value::Int(0)),
                    },
                    _ => Value::Scalar,
                }
            }
            "conditional_expression" => {
                let cond = match n.child_by_field_name("condition") {
                    Some(c) => self.expr(c),
                    None => Value::Unknown,
                };
                let t = self.new_temp(TypeHint::Unknown);
                let span = self.span(n);
                let mut arms = ["consequence", "alternative"].map(|f| {
                    let arm = n.child_by_field_name(f);
                    self.separate(|l| {
                        let value = arm.map_or(Value::Unknown, |a| l.expr(a));
                        l.out.push(Stmt::Assign {
                            dst: Place::var(t),
                            value,
                            span,
                        });
                    })
                });
                self.guard(&cond, &mut arms);
                self.out.push(Stmt::Branch(arms.into()));
                Value::Place(Place::var(t))
            }
            "comma_expression" => {
                let mut v = Value::Unknown;
                for c in named(n) {
                    v = self.expr(c);
                }
                v
            }
            "initializer_list" => {
                let items: Vec<Value> = named(n)
                    .into_iter()
                    .filter(|c| c.kind() != "comment")
                    .map(|c| self.expr(c))
                    .collect();
                let len = items.len() as u64;
                list_or_host(items, HostKind::Array { len: Some(len) })
            }
            "lambda_expression" => {
                self.forget_named(n);
                Value::Unknown
            }
            "ERROR" => {
                self.forget_named(n);
                Value::Unknown
            }
            "comment" => Value::Unknown,
            _ => {
                let vals: Vec<Value> = named(n).into_iter().map(|c| self.expr(c)).collect();
                let span = self.span(n);
                self.forget(vals, span);
                Value::Unknown
            }
        }
    }

    /// `x + n` for host data `x`: a pointer into that data, to other bytes than `x` (a
    /// slice of it, another one in each pass of a loop).
    fn host_pointer(&self, v: &Value) -> Option<Value> {
        let host = match v {
            Value::Host { .. } => true,
            Value::Place(p) => {
                let var = &self.vars[p.var];
                match p.proj.as_slice() {
                    [] => matches!(var.hint, TypeHint::Host(_)),
                    [Proj::Field(f)] | [_, Proj::Field(f)] => var
                        .fields
                        .iter()
                        .any(|(n, h)| n == f && matches!(h, TypeHint::Host(_))),
                    _ => false,
                }
            }
            _ => false,
        };
        host.then_some(Value::Host {
            kind: HostKind::Pointer,
            base: None,
        })
    }

    /// `i++`, `--i`: an integer local counts up or down (the value is the local's before,
    /// or after for the prefix forms); anything else is only read.
    fn update(&mut self, n: Node<'_>) -> Value {
        let arg = n.child_by_field_name("argument");
        let value = arg.map_or(Value::Unknown, |a| self.expr(a));
        let op = n
            .child_by_field_name("operator")
            .map_or("", |o| self.txt(o))
            .to_string();
        let Value::Place(p) = &value else {
            return Value::Scalar;
        };
        // `(*nevts)++` of a count a helper is given by pointer: the caller's count.
        let deref = arg.is_some_and(|a| {
            let a = strip(a);
            a.kind() == "pointer_expression"
                && a.child_by_field_name("operator")
                    .is_some_and(|o| self.txt(o) == "*")
        });
        // A counter, bare or a struct's (`ds->nmarks++` indexing an array of events); not
        // a pointer stepped along host data.
        let counter = match p.proj.as_slice() {
            [] if deref => self.vars[p.var].hint == TypeHint::Host(HostKind::Pointer),
            [] => self.vars[p.var].hint == TypeHint::Scalar,
            [.., Proj::Field(f)] => (self.vars[p.var].fields.iter())
                .find(|(name, _)| name == f)
                .is_some_and(|(_, h)| *h == TypeHint::Scalar),
            _ => false,
        };
        if !counter {
            return Value::Scalar;
        }
        let prefix = n.child(0).is_some_and(|c| !c.is_named());
        let span = self.span(n);
        let before = self.new_temp(TypeHint::Scalar);
        self.out.push(Stmt::Assign {
            dst: Place::var(before),
            value: value.clone(),
            span,
        });
        self.out.push(Stmt::Assign {
            dst: p.clone(),
            value: Value::Arith {
                op: if op == "--" {
                    ArithOp::Sub
                } else {
                    ArithOp::Add
                },
                lhs: Box::new(Value::Place(Place::var(before))),
                rhs: Box::new(Value::Int(1)),
            },
            span,
        });
        match prefix {
            true => value,
            false => Value::Place(Place::var(before)),
        }
    }

    /// Whether an initializer list holds only zeros and null pointers (`{0}`, `{NULL}`,
    /// `{}`).
    fn all_null(&self, init: Node<'_>) -> bool {
        init.kind() == "initializer_list"
            && named(init)
                .into_iter()
                .filter(|c| c.kind() != "comment")
                .all(|c| matches!(self.txt(c), "0" | "NULL" | "nullptr"))
    }

    /// The key of a constant expression (two fills whose pattern and range have equal keys
    /// write the same bytes); `None` when it is not provably constant: literals, named
    /// constants, `sizeof`, `const` locals bound to one, with casts, `&`, and arithmetic.
    pub(super) fn const_key(&self, n: Node<'_>) -> Option<String> {
        let text = |x: Node<'_>| -> String {
            self.txt(x).chars().filter(|c| !c.is_whitespace()).collect()
        };
        Some(match n.kind() {
            "number_literal" | "char_literal" | "string_literal" | "true" | "false" | "null"
            | "nullptr" | "sizeof_expression" => text(n),
            "identifier" => {
                let name = self.txt(n);
                if let Some(v) = self.lookup(name) {
                    return self.const_locals.get(&v).cloned();
                }
                match self.cx.consts.get(name) {
                    Some(Const::Int(i)) => i.to_string(),
                    Some(Const::Str(_)) => text(n),
                    None if name
                        .chars()
                        .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_') =>
                    {
                        text(n)
                    }
                    None => return None,
                }
            }
            "parenthesized_expression" => self.const_key(named(n).into_iter().next()?)?,
            // A field of a parameter that the function never changes (`s->n` of a
            // `Sim *s`): the same value wherever the function reads it.
            "field_expression" => {
                let base = n.child_by_field_name("argument")?;
                let field = self.txt(n.child_by_field_name("field")?);
                let param = base.kind() == "identifier"
                    && self
                        .lookup(self.txt(base))
                        .is_some_and(|v| v < self.n_params);
                if !param || self.written_fields.contains(field) {
                    return None;
                }
                text(n)
            }
            "cast_expression" => format!(
                "({}){}",
                text(n.child_by_field_name("type")?),
                self.const_key(n.child_by_field_name("value")?)?
            ),
            "pointer_expression" | "unary_expression" => format!(
                "{}{}",
                text(n.child_by_field_name("operator")?),
                self.const_key(n.child_by_field_name("argument")?)?
            ),
            "binary_expression" => format!(
                "({}{}{})",
                self.const_key(n.child_by_field_name("left")?)?,
                text(n.child_by_field_name("operator")?),
                self.const_key(n.child_by_field_name("right")?)?
            ),
            // `static_cast<cl_uint>(0)`, `cl_uint(0)`.
            "call_expression" => {
                let args = named(n.child_by_field_name("arguments")?);
                let f = n.child_by_field_name("function")?;
                let cast = matches!(f.kind(), "template_function" | "primitive_type")
                    && (text(f).starts_with("static_cast<") || f.kind() == "primitive_type");
                match args.as_slice() {
                    [a] if cast => format!("{}({})", text(f), self.const_key(*a)?),
                    _ => return None,
                }
            }
            _ => return None,
        })
    }

    /// Whether an event written to `p` is owned by a C++ object (its variable is no
    /// `cl_event` nor a struct of the file).
    fn owned(&self, p: &Place) -> bool {
        let v = &self.vars[p.var];
        self.cx.lang == Lang::Cpp
            && !matches!(v.hint, TypeHint::Event | TypeHint::EventList)
            // `cl_event *copied`: where a raw event goes.
            && !self.event_ptr(p.var)
            && v.fields.is_empty()
            && !v.name.starts_with('%')
    }

    /// A statement that may store a status begins: what the calls before it made and
    /// reported no longer goes to the variable it stores.
    fn fresh_statement(&mut self) {
        self.outs = Outs::default();
        self.made_status = None;
        self.pointer_result = None;
    }

    /// Records that `status` holds the result of the calls lowered since `outs` was
    /// emptied: when it says they failed, their commands did nothing.
    fn note_status(&mut self, status: Var) {
        let outs = std::mem::take(&mut self.outs);
        // `ptr = clEnqueueMapBuffer(.., &ev, &err)`: `ptr` is no status; `err` is the map's.
        if let Some(err) = self.pointer_result.take() {
            self.statuses.remove(&status);
            if let Some(e) = err.filter(|_| !outs.commands.is_empty()) {
                self.statuses.insert(e, outs);
            }
            return;
        }
        // A user event stored in `status` whose creation reported to `err`: when `err` says
        // it failed, there is no event to release.
        if let Some(err) = self.made_status.take() {
            let made = Outs {
                events: vec![Place::var(status)],
                commands: Vec::new(),
            };
            self.statuses.insert(err, made);
            return;
        }
        if outs.commands.is_empty() && outs.events.is_empty() {
            self.statuses.remove(&status);
        } else {
            self.statuses.insert(status, outs);
        }
    }

    /// The commands of a condition that tests a status (`err != CL_SUCCESS`) or an enqueue
    /// itself (`if (clEnqueue..(.., &ev) != CL_SUCCESS)`).
    fn checked_commands(&mut self, cond: Node<'_>) -> Outs {
        let mut outs = std::mem::take(&mut self.outs);
        let mut stack = vec![cond];
        while let Some(x) = stack.pop() {
            if x.kind() == "identifier" {
                if let Some(o) = self.lookup(self.txt(x)).and_then(|v| self.statuses.get(&v)) {
                    outs.events.extend(o.events.iter().cloned());
                    outs.commands.extend(o.commands.iter().copied());
                }
            }
            if x.kind() == "field_expression" {
                if let Some(o) = self.field_statuses.get(self.txt(x)) {
                    outs.events.extend(o.events.iter().cloned());
                    outs.commands.extend(o.commands.iter().copied());
                    continue;
                }
            }
            stack.extend(named(x));
        }
        outs
    }

    /// Whether the code of `n` surely goes on past its end: the calls it makes as
    /// statements are of functions that print (any other may be one that exits: `exit(1)`,
    /// a helper that reports and aborts; a call whose value is used, such as the message of
    /// `printf("%s", err_str(e))`, returns), and it has no `throw` or `goto`.
    fn goes_on(&self, n: Node<'_>) -> bool {
        let mut stack = vec![n];
        while let Some(x) = stack.pop() {
            match x.kind() {
                "throw_statement" | "throw_expression" | "goto_statement" => return false,
                "call_expression"
                    if x.parent()
                        .is_some_and(|p| p.kind() == "expression_statement") =>
                {
                    let f = x
                        .child_by_field_name("function")
                        .map_or("", |f| self.txt(f));
                    let printing = matches!(
                        f.strip_prefix("std::").unwrap_or(f),
                        "printf" | "fprintf" | "puts" | "fputs" | "putchar" | "perror"
                    );
                    if !printing {
                        return false;
                    }
                }
                _ => {}
            }
            stack.extend(named(x));
        }
        true
    }

    /// The arm of an `if` that tests a status for truth taken when it reports a failure
    /// (every error code is nonzero, and negative): `if (err)`, `if ((err = clEnqueue..(..)))`,
    /// `if (err < 0)` and `if (err != 0)` take the `then` arm (0), `if (!err)` and
    /// `if (err == 0)` the `else` arm (1).
    fn truth_failed_arm(&self, c: Node<'_>) -> Option<usize> {
        let c = condition_expr(c)?;
        match c.kind() {
            "identifier" | "assignment_expression" | "call_expression" => Some(0),
            "unary_expression" if c.child(0).is_some_and(|o| self.txt(o) == "!") => {
                Some(1 - self.truth_failed_arm(c.child_by_field_name("argument")?)?)
            }
            "binary_expression" => {
                let zero = |n: Option<Node<'_>>| n.is_some_and(|n| self.txt(strip(n)) == "0");
                if !zero(c.child_by_field_name("right")) {
                    return None;
                }
                match self.txt(c.child_by_field_name("operator")?) {
                    "!=" | "<" => Some(0),
                    "==" => Some(1),
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// The arm of an `if` on a status (`err != CL_SUCCESS`: 0, the `then` arm;
    /// `err == CL_SUCCESS`: 1) taken when it reports a failure.
    fn status_failed_arm(&self, c: Node<'_>) -> Option<usize> {
        let c = condition_expr(c)?;
        // `!(err == CL_INVALID_VALUE)` (an assertion macro's test): the other arm.
        if c.kind() == "unary_expression" && c.child(0).is_some_and(|o| self.txt(o) == "!") {
            return self
                .status_failed_arm(c.child_by_field_name("argument")?)
                .map(|arm| 1 - arm);
        }
        // `err == CL_INVALID_VALUE`: where it holds the call failed.
        if self.asserts_failure(c) {
            return Some(0);
        }
        // `(err = clSetKernelArg(..))`: the status is not zero where the call failed.
        if c.kind() == "assignment_expression" {
            let call = strip(c.child_by_field_name("right")?);
            let callee = self.txt(
                call.child_by_field_name("function")
                    .filter(|_| call.kind() == "call_expression")?,
            );
            let status_api = callee.starts_with("cl")
                && !callee.starts_with("clCreate")
                && !callee.contains("Map")
                && !callee.starts_with("clSVMAlloc")
                && !callee.starts_with("clGetExtensionFunctionAddress");
            return (status_api || self.cx.defined.contains(callee)).then_some(0);
        }
        if c.kind() != "binary_expression" {
            return None;
        }
        let success = |n: Option<Node<'_>>| n.is_some_and(|n| self.txt(strip(n)) == "CL_SUCCESS");
        if !(success(c.child_by_field_name("left")) || success(c.child_by_field_name("right"))) {
            return None;
        }
        match self.txt(c.child_by_field_name("operator")?) {
            "!=" => Some(0),
            "==" => Some(1),
            _ => None,
        }
    }

    /// A condition that tests whether an event variable is null (`ev`, `ev != NULL`,
    /// `!ev`, `ev == NULL`, `ev == 0`): the event's place and the arm (0: then, 1: else)
    /// where it is null.
    fn null_test(&mut self, c: Node<'_>) -> Option<(Place, usize)> {
        let c = strip(c);
        let (x, null_arm) = match c.kind() {
            "unary_expression" if c.child(0).is_some_and(|o| self.txt(o) == "!") => {
                (c.child_by_field_name("argument")?, 0)
            }
            "binary_expression" => {
                let op = c.child_by_field_name("operator")?;
                let (l, r) = (
                    c.child_by_field_name("left")?,
                    c.child_by_field_name("right")?,
                );
                let null = |n: Node<'_>| matches!(self.txt(strip(n)), "NULL" | "0" | "nullptr");
                let x = match (null(l), null(r)) {
                    (false, true) => l,
                    (true, false) => r,
                    _ => return None,
                };
                match self.txt(op) {
                    "==" => (x, 0),
                    "!=" => (x, 1),
                    _ => return None,
                }
            }
            _ => (c, 1),
        };
        let x = strip(x);
        // `if (*ev)` of a `cl_event *ev`.
        if x.kind() == "pointer_expression" && x.child(0).is_some_and(|o| self.txt(o) == "*") {
            let arg = strip(x.child_by_field_name("argument")?);
            let v = self.lookup(self.txt(arg)).filter(|&v| self.event_ptr(v))?;
            return (arg.kind() == "identifier").then(|| (Place::var(v), null_arm));
        }
        if !matches!(
            x.kind(),
            "identifier" | "field_expression" | "subscript_expression"
        ) {
            return None;
        }
        let Value::Place(p) = self.expr(x) else {
            return None;
        };
        self.event_place(&p).then_some((p, null_arm))
    }

    /// Whether a place holds one event: an event variable, a member of an event array
    /// (`ev[i]`, `c.ev[s]`) or an event field of a struct (`w[i].done`, `d->done`).
    fn event_place(&self, p: &Place) -> bool {
        let hint = self.vars[p.var].hint;
        match p.proj.last() {
            None => hint == TypeHint::Event,
            // `ev[i]` of `cl_event ev[N]`, or of a `cl_event *ev` a helper is given.
            Some(Proj::Index(_) | Proj::Var(_)) => match p.proj.as_slice() {
                [_] => hint == TypeHint::EventList || self.event_ptr(p.var),
                // `c.ev[s]`, `dv[i].up[0]` of a struct's `cl_event ev[N]`.
                [.., Proj::Field(f), _] => (self.vars[p.var].fields.iter())
                    .any(|(n, h)| n == f && *h == TypeHint::EventList),
                _ => false,
            },
            // `w[i].done`, `d->done`: an event field of a struct.
            Some(Proj::Field(f)) => self.vars[p.var]
                .fields
                .iter()
                .any(|(n, h)| n == f && *h == TypeHint::Event),
            _ => false,
        }
    }

    /// A field of the class of the method being lowered, named bare.
    fn member_of_this(&self, name: &str) -> Option<Place> {
        let this = self.lookup("this")?;
        self.vars[this]
            .fields
            .iter()
            .any(|(f, _)| f == name)
            .then(|| Place {
                var: this,
                proj: vec![Proj::Field(name.to_string())],
            })
    }

    fn assign(&mut self, n: Node<'_>) -> Value {
        let op = n
            .child_by_field_name("operator")
            .map_or("=", |o| self.txt(o))
            .to_string();
        let right = n.child_by_field_name("right");
        let text = right.and_then(|r| self.str_value(r));
        self.fresh_statement();
        let v = right.map_or(Value::Unknown, |r| self.expr(r));
        let Some(left) = n.child_by_field_name("left") else {
            return v;
        };
        let span = self.span(n);
        if op != "=" {
            let target = self.expr(left);
            let arith = ArithOp::of(op.trim_end_matches('='));
            match (&target, arith) {
                // `x += n` of an integer local.
                (Value::Place(p), Some(arith))
                    if p.proj.is_empty() && self.vars[p.var].hint == TypeHint::Scalar =>
                {
                    // `err |= clEnqueue..(..)`: a failure the status reports may be of any
                    // of the calls it gathers.
                    let outs = std::mem::take(&mut self.outs);
                    if matches!(arith, ArithOp::BitOr | ArithOp::Add) && !outs.commands.is_empty() {
                        let status = self.statuses.entry(p.var).or_default();
                        status.events.extend(outs.events);
                        status.commands.extend(outs.commands);
                    }
                    self.out.push(Stmt::Assign {
                        dst: p.clone(),
                        value: Value::Arith {
                            op: arith,
                            lhs: Box::new(target.clone()),
                            rhs: Box::new(v),
                        },
                        span,
                    });
                    return target;
                }
                (Value::Place(p), _) if self.vars[p.var].hint == TypeHint::Scalar => {}
                (Value::Place(p), _) if element_base(p).is_some() => {
                    let base = element_base(p).map(Value::Place);
                    self.forget(base.into_iter().collect(), span);
                }
                _ => self.forget(vec![target], span),
            }
            return Value::Scalar;
        }
        // A handle stored into an element (`q[i] = clCreateCommandQueue(..)`) is that
        // element's; any other store through a pointer or into an element changes what the
        // base holds (host data written element by element).
        let handle = matches!(v, Value::New(_))
            || matches!(&v, Value::Place(p) if self.vars[p.var].hint.is_handle())
            // `cur[d] = nxt[d]` of `cl_mem cur[N], nxt[N]`: a member of an array of handles.
            || matches!(&v, Value::Place(p)
                if matches!(p.proj.as_slice(), [Proj::Index(_) | Proj::Var(_)])
                    && self.vars[p.var].fields.iter().any(|(n, h)| *n == members_of("") && h.is_handle()));
        // `wk[d] = (worker_t){0}` into an array of structs: that element, reset. So is an
        // object of a class of the file made by its constructor (`slots_[i] =
        // std::make_unique<Slot>(..)`).
        let handle = handle
            || matches!(v, Value::Struct(_))
            || matches!(&v, Value::Place(p) if p.proj.is_empty()
                && self.vars[p.var].name.starts_with('%')
                && (self.vars[p.var].ty.as_deref()).is_some_and(|t| self.constructor_of(t).is_some()));
        // `wait[nw++] = ev` into an array of events, or through a `cl_event *` a helper is
        // given (`prev[d] = next[d]`): that element.
        let handle = handle
            || (left.kind() == "subscript_expression"
                && left
                    .child_by_field_name("argument")
                    .filter(|b| b.kind() == "identifier")
                    .and_then(|b| self.lookup(self.txt(b)))
                    .is_some_and(|b| {
                        self.vars[b].hint == TypeHint::EventList
                            || self.event_ptr(b)
                            // `in[n++] = blk[d - 1].edges` into a `cl_mem in[2]`.
                            || (self.elem_types.get(&b))
                                .is_some_and(|t| handle_hint(last_name(t)).is_handle())
                    }))
            // `cur.packed[d] = launch(..)` into a field that is an array of handles.
            || (left.kind() == "subscript_expression"
                && left
                    .child_by_field_name("argument")
                    .filter(|b| b.kind() == "field_expression")
                    .is_some_and(|b| self.handle_array_field(b)));
        // `*finished = last;` of an event through a `cl_event *` parameter, or `*out = prog;`
        // of a program a helper built through a `cl_program *` one: a store into the
        // caller's handle, as one through a C++ reference parameter is.
        if left.kind() == "pointer_expression" {
            let param = (left.child_by_field_name("argument"))
                .filter(|a| a.kind() == "identifier")
                .and_then(|a| self.lookup(self.txt(a)))
                .filter(|&p| p < self.n_params);
            let pointee = param.and_then(|p| self.handle_ptrs.get(&p)).copied();
            let handle = match (&v, pointee) {
                (Value::Place(e), Some(TypeHint::Event)) => {
                    self.vars[e.var].hint == TypeHint::Event
                }
                (Value::Null, Some(TypeHint::Event)) => true,
                (Value::Place(e), Some(h)) => e.proj.is_empty() && self.vars[e.var].hint == h,
                // `*out = clCreateBuffer(..)`: made in place.
                (Value::New(o), Some(h)) => matches!(
                    (o, h),
                    (NewObject::Program { .. }, TypeHint::Program)
                        | (NewObject::Context, TypeHint::Context)
                        | (NewObject::Queue { .. }, TypeHint::Queue)
                        | (NewObject::Kernel { .. }, TypeHint::Kernel)
                        | (
                            NewObject::Buffer { .. } | NewObject::SubBuffer { .. },
                            TypeHint::Buffer
                        )
                ),
                _ => false,
            };
            if let (Some(p), true) = (param, handle) {
                self.vars[p].member = Member::Ref;
                self.out.push(Stmt::Assign {
                    dst: Place::var(p),
                    value: v.clone(),
                    span,
                });
                return v;
            }
        }
        match left.kind() {
            "subscript_expression" if !handle => {
                let base = left
                    .child_by_field_name("argument")
                    .map_or(Value::Unknown, |b| self.expr(b));
                // `h[n++] = x`: the index's own effects happen.
                if let Some(i) = left.child_by_field_name("index") {
                    self.expr(i);
                }
                self.forget(vec![base], span);
            }
            "pointer_expression" => {
                let base = left
                    .child_by_field_name("argument")
                    .map_or(Value::Unknown, |b| self.expr(b));
                self.forget(vec![base], span);
            }
            _ => {
                if let Some(dst) = self.place_of(left) {
                    // An element through a reference (`for (auto &x : host) x = ..`).
                    if let (Some(base), false) = (element_base(&dst), handle) {
                        self.forget(vec![Value::Place(base)], span);
                        return v;
                    }
                    if dst.proj.is_empty() {
                        self.note_status(dst.var);
                    } else if left.kind() == "field_expression" {
                        let outs = std::mem::take(&mut self.outs);
                        let key = self.txt(left).to_string();
                        match outs.commands.is_empty() && outs.events.is_empty() {
                            true => self.field_statuses.remove(&key),
                            false => self.field_statuses.insert(key, outs),
                        };
                    }
                    if let (Some(t), true) = (text, dst.proj.is_empty()) {
                        self.strs.insert(dst.var, t);
                    }
                    self.out.push(Stmt::Assign {
                        dst,
                        value: v.clone(),
                        span,
                    });
                }
            }
        }
        v
    }

    fn call(&mut self, n: Node<'_>) -> Value {
        let span = self.span(n);
        let args: Vec<Node<'_>> = n
            .child_by_field_name("arguments")
            .map(|a| {
                named(a)
                    .into_iter()
                    .filter(|c| c.kind() != "comment")
                    .collect()
            })
            .unwrap_or_default();
        let Some(func) = n.child_by_field_name("function") else {
            return self.unknown_call(None, &args, span);
        };
        // `TEST_ASSERT(err == CL_INVALID_EVENT_WAIT_LIST)`, `assert(rc == CL_INVALID_VALUE)`
        // after a command: the program goes on only where it failed, so it made no event.
        if let [arg] = args.as_slice() {
            if self.asserts_failure(*arg) {
                let checked = self.checked_commands(*arg);
                if !checked.commands.is_empty() {
                    self.out.push(Stmt::Failed {
                        value: Value::List(checked.events.into_iter().map(Value::Place).collect()),
                        commands: checked.commands,
                    });
                }
            }
        }
        // `CL_CHECK_ERR(clCreateBuffer(..))`: the value of the call it checks.
        if let ([arg], "identifier") = (args.as_slice(), func.kind()) {
            if self.cx.value_macros.contains(self.txt(func)) {
                return self.expr(*arg);
            }
        }
        // `WCHECK(w, clEnqueue..(..))` of a macro that only reaches members through `w`
        // (`(w)->status = e_`): `w` does not escape; the members it writes change.
        if func.kind() == "identifier" {
            if let Some(member_only) = self.cx.member_only_params.get(self.txt(func)).cloned() {
                if member_only.len() == args.len() && member_only.iter().any(Option::is_some) {
                    let mut forgotten = Vec::new();
                    for (a, only) in args.iter().zip(member_only) {
                        let v = self.expr(*a);
                        match (only, v) {
                            (Some(written), Value::Place(p)) => {
                                forgotten.extend(written.into_iter().map(|f| {
                                    let mut m = p.clone();
                                    m.proj.push(Proj::Field(f));
                                    Value::Place(m)
                                }));
                            }
                            (Some(_), _) => {}
                            (None, v) => forgotten.push(v),
                        }
                    }
                    self.forget(forgotten, span);
                    return Value::Unknown;
                }
            }
        }
        // `(cl_uint)(d + 1)`, read as a call of a parenthesized name: a cast to a scalar type.
        if let ([arg], "parenthesized_expression") = (args.as_slice(), func.kind()) {
            let inner = named(func);
            if let [name] = inner.as_slice() {
                if matches!(name.kind(), "identifier" | "type_identifier")
                    && c_type_size(&self.cx.real_type(self.txt(*name))).is_some()
                {
                    return self.expr(*arg);
                }
            }
        }
        // `queue()` of a `cl::CommandQueue queue` (a local, or a member in a method): a C++
        // wrapper's `operator()` gives the handle it wraps, for a call of the C API
        // (`clEnqueueNDRangeKernel(queue(), ..)`).
        if args.is_empty() && func.kind() == "identifier" {
            let name = self.txt(func);
            let hint = match self.lookup(name) {
                Some(v) => Some(self.vars[v].hint),
                None => self.lookup("this").and_then(|this| {
                    (self.vars[this].fields.iter())
                        .find(|(f, _)| f == name)
                        .map(|(_, h)| *h)
                }),
            };
            if hint.is_some_and(TypeHint::is_handle) {
                return self.expr(func);
            }
        }
        // `std::swap(pl.src, pl.dst)`: the two places trade what they hold.
        if let ([a, b], "swap" | "std::swap") = (args.as_slice(), self.txt(func)) {
            if let (Value::Place(a), Value::Place(b)) = (self.expr(*a), self.expr(*b)) {
                let t = self.new_temp(TypeHint::Unknown);
                self.out.extend(swap(a, b, t, span));
                return Value::Scalar;
            }
        }
        let b = self.cx_bindings();
        if func.kind() == "field_expression" {
            let recv = func.child_by_field_name("argument");
            let method = func
                .child_by_field_name("field")
                .map(|f| without_template_args(self.txt(f)).to_string())
                .unwrap_or_default();
            let Some(recv) = recv else {
                return self.unknown_call(None, &args, span);
            };
            let rv = self.expr(recv);
            // `parts[d].get()`, `done.out()` of a wrapper: the handle's field.
            if let Some(field) = self.wrapped_handle(&rv, &method, args.len()) {
                return Value::Place(field);
            }
            if let Some(api) = b.method(&method, args.len()) {
                return self.apply(api, Some((rv, recv)), &args, span);
            }
            // `g.queue()` of an `opencl.hpp` object in a struct: its raw handle.
            if let (Value::Place(p), true) = (&rv, args.is_empty()) {
                let field = self.vars[p.var]
                    .fields
                    .iter()
                    .find(|(f, _)| *f == method)
                    .map(|(_, h)| *h);
                if field.is_some_and(TypeHint::is_handle)
                    && !p.proj.iter().any(|x| matches!(x, Proj::Field(_)))
                {
                    let mut p = p.clone();
                    p.proj.push(Proj::Field(method));
                    return Value::Place(p);
                }
            }
            match (method.as_str(), &rv) {
                // `kernels.back()`, `queues.front()` of a vector: its last or first member.
                ("back" | "front", Value::Place(list))
                    if args.is_empty() && self.is_vector(list) =>
                {
                    let mut p = list.clone();
                    p.proj.push(match method.as_str() {
                        "back" => Proj::Last,
                        _ => Proj::Index(0),
                    });
                    return Value::Place(p);
                }
                // `ready[d].clear()` of a vector: empty again.
                ("clear", Value::Place(list)) if args.is_empty() && self.is_vector(list) => {
                    self.out.push(Stmt::Assign {
                        dst: list.clone(),
                        value: Value::List(Vec::new()),
                        span,
                    });
                    return Value::Scalar;
                }
                // `queues_.at(d)`: the member at `d`, as `queues_[d]` is.
                ("at", Value::Place(list)) if args.len() == 1 && self.is_vector(list) => {
                    return self.member_at(Some(rv.clone()), Some(args[0]), n);
                }
                // `workers.emplace_back([&, d] {..})` of a `std::vector<std::thread>`.
                ("emplace_back", Value::Place(list))
                    if self
                        .elem_type(list)
                        .is_some_and(|t| is_thread(&path_segments(&t))) =>
                {
                    if let Some(item) = self.thread_start(&args, false, span) {
                        self.out.push(Stmt::Push {
                            list: list.clone(),
                            item,
                        });
                        return Value::Scalar;
                    }
                }
                // `f.get()`, `pending[d].wait()` of a future: the task it holds, and what it
                // returned.
                ("get" | "wait", Value::Place(p))
                    if args.is_empty()
                        && (self.futures.contains(&p.var)
                            || (self.elem_types.get(&p.var)).is_some_and(|t| is_future(t))
                                && p.proj.len() == 1) =>
                {
                    let dst = Place::var(self.new_temp(TypeHint::Unknown));
                    self.out.push(Stmt::Join {
                        handle: rv,
                        dst: dst.clone(),
                    });
                    return Value::Place(dst);
                }
                // `t.join()`, `w.join()` of a loop's item: the thread it holds (every thread
                // started so far where that is not known).
                ("join", Value::Place(_)) if args.is_empty() => {
                    let dst = Place::var(self.new_temp(TypeHint::Unknown));
                    self.out.push(Stmt::Join { handle: rv, dst });
                    return Value::Scalar;
                }
                ("push_back" | "emplace_back", Value::Place(list)) if args.len() == 1 => {
                    // `slices.push_back(std::move(s))`: the local moved in is the member.
                    let arg = self.moved_local(args[0]).unwrap_or(args[0]);
                    let item = self.aggregate(list, arg);
                    // `parts.emplace_back(clCreateBuffer(..))` into a list of a wrapper.
                    let item = match self.wrapped.get(&list.var) {
                        Some(_) if list.proj.is_empty() && !matches!(item, Value::Struct(_)) => {
                            Value::Struct(vec![(HANDLE_FIELD.to_string(), item)])
                        }
                        _ => item,
                    };
                    self.out.push(Stmt::Push {
                        list: list.clone(),
                        item,
                    });
                    return Value::Scalar;
                }
                // `after.assign(1, done)`: the vector holds that many copies of the item now,
                // and nothing is waited for.
                ("assign", Value::Place(list)) if args.len() == 2 => {
                    if let Value::Int(n @ 0..=MAX_ASSIGNED) = self.expr(args[0]) {
                        let item = self.expr(args[1]);
                        self.out.push(Stmt::Assign {
                            dst: list.clone(),
                            value: Value::List(vec![item; n as usize]),
                            span,
                        });
                        return Value::Scalar;
                    }
                }
                // `platform.getDevices(CL_DEVICE_TYPE_GPU, &devices)`: the vector holds the
                // platform's devices, as many as there are.
                ("getDevices", _) if args.len() == 2 => {
                    let out = Some(args[1])
                        .filter(|a| {
                            a.kind() == "pointer_expression"
                                && a.child(0).is_some_and(|o| self.txt(o) == "&")
                        })
                        .and_then(|a| a.child_by_field_name("argument"));
                    if let Some(dst) = out.and_then(|a| self.place_of(a)) {
                        self.expr(args[0]);
                        self.out.push(Stmt::Assign {
                            dst,
                            value: Value::New(NewObject::Devices),
                            span,
                        });
                        return Value::Scalar;
                    }
                }
                // `queues.emplace_back(ctx, device)`: a new element made from the arguments.
                ("emplace_back", Value::Place(list)) => {
                    if let Some(ty) = self.elem_type(list) {
                        let item = self.construct_from(&ty, &args, span);
                        self.out.push(Stmt::Push {
                            list: list.clone(),
                            item,
                        });
                        return Value::Scalar;
                    }
                }
                // The host data itself, read: a vector field's (`d.h_dist.data()`) is host
                // data even where the struct's value is not known.
                ("data", Value::Place(p)) if args.is_empty() => {
                    return self.host_field(p).unwrap_or(rv);
                }
                ("data", _) if args.is_empty() => return rv,
                ("size" | "empty" | "begin" | "end" | "cbegin" | "cend", _) if args.is_empty() => {
                    return Value::Scalar
                }
                _ => {}
            }
            // A method of a class of the file, on a local of that class, or on a reference
            // of that class bound to a member of a list (`Dev& upper = *devs_[d];
            // upper.rowBytes()`).
            let declared = (strip(recv).kind() == "identifier")
                .then(|| self.lookup(self.txt(strip(recv))))
                .flatten()
                .and_then(|v| self.vars[v].ty.clone());
            if let Value::Place(p) = &rv {
                let ty = match p.proj.is_empty() {
                    true => self.vars[p.var].ty.clone(),
                    false => declared,
                };
                if let Some(ty) = ty {
                    let callee = format!("{ty}::{method}");
                    if self.cx.defined.contains(&callee) {
                        let vals = args.iter().map(|a| self.expr(*a)).collect();
                        return self.emit_call(callee, Some(rv), vals, span);
                    }
                }
            }
            return self.unknown_call(Some(rv), &args, span);
        }
        // `release_all()`, `launch(q, k, n)` of a local bound to a lambda: its body, run
        // here with its parameters bound to the arguments.
        if func.kind() == "identifier" {
            let lambda = (self.lookup(self.txt(func))).and_then(|v| {
                (self.lambdas.get(&v))
                    .filter(|(params, _)| params.len() == args.len())
                    .map(|b| (v, b.clone()))
            });
            if let Some((v, (params, body))) = lambda {
                let name = Some(self.vars[v].name.clone());
                let (run, dst) = self.lambda_run(name, params, body, &args, span);
                self.out.push(run);
                return Value::Place(dst);
            }
        }
        // `q()` of an `opencl.hpp` object: its raw handle.
        if func.kind() == "identifier" && args.is_empty() {
            if let Some(v) = self.lookup(self.txt(func)) {
                if self.vars[v].hint.is_handle() {
                    return self.expr(func);
                }
            }
        }
        let path = self.txt(func).to_string();
        let segs = path_segments(&path);
        // `Queue(clCreateCommandQueueWithProperties(..))` of a wrapper class: the handle it
        // owns, in its one field.
        if let ([_, ..], [one]) = (segs.as_slice(), args.as_slice()) {
            if self.cx.wrapper_of(&path).is_some() {
                let handle = self.expr(*one);
                return Value::Struct(vec![(HANDLE_FIELD.to_string(), handle)]);
            }
        }
        // `std::make_unique<Slot>(ctx, dev)`: a `Slot` made by its constructor, which the
        // pointer owns and `*p`, `p->` reach.
        if let ([s, f], Some((_, rest))) = (segs.as_slice(), path.split_once('<')) {
            if s == "std" && matches!(f.as_str(), "make_unique" | "make_shared") {
                let ty = rest
                    .rsplit_once('>')
                    .map_or(rest, |(t, _)| t)
                    .trim()
                    .to_string();
                return self.construct_from(&ty, &args, span);
            }
        }
        // `std::ref(q)`, `std::cref(prog)`: a reference to the object itself.
        if let ([s, f], [one]) = (segs.as_slice(), args.as_slice()) {
            if s == "std" && matches!(f.as_str(), "ref" | "cref") {
                return self.expr(*one);
            }
        }
        if let Some(v) = self.iterator_buffer(&segs, &args) {
            return v;
        }
        // `cl::copy(queue, v.begin(), v.end(), buf)`: a write of `v` into the buffer (the
        // table's row) that is done when the call returns: it maps the buffer, copies and
        // waits for the unmap, after all the queue had before it. The other direction
        // (`cl::copy(queue, buf, first, last)`) is not followed.
        if segs.last().map(String::as_str) == Some("copy") && args.len() == 4 {
            match self.iterated(args[1]) {
                Some(data) => {
                    if let Some(api) = b.function(&segs, 4) {
                        let v = self.apply(api, None, &[args[0], data, args[2], args[3]], span);
                        let queue = self.expr(args[0]);
                        self.out.push(Stmt::Finish { queue, span });
                        return v;
                    }
                }
                None => return self.unknown_call(None, &args, span),
            }
        }
        // A function of the file named as a namespaced API of the tables (a C program's own
        // `make_kernel(name)`, not opencl.hpp's `cl::make_kernel`) is the file's.
        let own = |api: &crate::frontend::bindings::Api| {
            segs.len() == 1 && api.name.contains("::") && self.cx.defined.contains(&segs[0])
        };
        if let Some(api) = b.function(&segs, args.len()).filter(|api| !own(api)) {
            return self.apply(api, None, &args, span);
        }
        let name = segs.join("::");
        if let Some(class) = &self.class {
            let callee = format!("{class}::{name}");
            if self.cx.defined.contains(&callee) {
                let this = self.lookup("this").map(|v| Value::Place(Place::var(v)));
                let vals = args.iter().map(|a| self.expr(*a)).collect();
                return self.emit_call(callee, this, vals, span);
            }
        }
        if self.cx.defined.contains(&name) {
            return self.helper_call(name, &args, span);
        }
        if let Some(v) = self.thread_call(&name, &args, span) {
            return v;
        }
        if func.kind() == "identifier" {
            if let Some(v) = self.functor_call(func, &args, span) {
                return v;
            }
        }
        // The number of the thread of the OpenMP team running the region.
        if name == "omp_get_thread_num" && args.is_empty() {
            return (self.omp.last()).map_or(Value::Scalar, |r| Value::Place(Place::var(r.thread)));
        }
        // `clGetEventProfilingInfo(ev, ..)` and the other `clGet*Info` queries read the
        // object they are given and write only their out-parameters.
        if name.starts_with("clGet") && name.ends_with("Info") && !args.is_empty() {
            self.expr(args[0]);
            return self.unknown_call(None, &args[1..], span);
        }
        // `printf(..)` and `std::printf(..)` alike.
        let std_name = name.strip_prefix("std::").unwrap_or(&name);
        if READING_CALLS.contains(&std_name) {
            for a in &args {
                self.expr(*a);
            }
            return Value::Scalar;
        }
        // `malloc(n)`, `calloc(n, size)`: new host memory.
        if ALLOCATING_CALLS.contains(&name.as_str()) {
            for a in &args {
                self.expr(*a);
            }
            return Value::Host {
                kind: HostKind::Pointer,
                base: None,
            };
        }
        // A function of another file of the program (`upload(q, buf)` declared in a
        // header): the analysis follows it where the program defines it once. A name in
        // capitals is a macro's.
        if func.kind() == "identifier" && name.chars().any(|c| c.is_ascii_lowercase()) {
            return self.helper_call(name, &args, span);
        }
        self.unknown_call(None, &args, span)
    }

    /// A call of a function of the program, followed where the program defines it.
    fn helper_call(&mut self, name: String, args: &[Node<'_>], span: Span) -> Value {
        // `shrLog(fmt, i, name, plan[i].n)` of a function taking `...`: it is called with
        // its named parameters; the others are read here, and what they point to may change.
        let args = match self.cx.variadic.get(&name) {
            Some(&n) if args.len() > n => {
                let passed: Vec<Node<'_>> = (args[n..].iter())
                    .copied()
                    .filter(|a| !self.expr_is_scalar_var(*a))
                    .collect();
                let extra: Vec<Value> = passed.into_iter().map(|a| self.expr(a)).collect();
                self.forget(extra, span);
                &args[..n]
            }
            _ => args,
        };
        // An OpenCL function the tables do not model (`clBuildProgram(prog, ndev, ..)`)
        // takes its integers by value: it cannot change `ndev`.
        let api = name.starts_with("cl") && !self.cx.defined.contains(&name);
        let vals = (args.iter().enumerate())
            .map(|(k, a)| match self.expr_is_scalar_var(*a) {
                true if api => Value::Scalar,
                _ => self.helper_arg(&name, k, *a),
            })
            .collect();
        // `ev = run(q, k, &w->err)` of a helper that stores its enqueue's status through
        // `err`: where `w->err` says it failed, `ev` is no event.
        self.made_status = (args.iter().enumerate())
            .filter(|(k, _)| self.cx.status_params.contains(&(name.clone(), *k)))
            .find_map(|(_, a)| self.status_target(*a));
        self.emit_call(name, None, vals, span)
    }

    /// Whether an argument is a local integer variable itself, passed by value (`ndev`).
    fn expr_is_scalar_var(&self, a: Node<'_>) -> bool {
        let a = strip(a);
        a.kind() == "identifier"
            && self
                .lookup(self.txt(a))
                .is_some_and(|v| self.vars[v].hint == TypeHint::Scalar)
    }

    /// The variable a status argument writes: `err` of `&err`, `w` of `&w->err`, `dev` of
    /// `&dev[d].status`.
    fn status_target(&self, a: Node<'_>) -> Option<Var> {
        let a = strip(a);
        if a.kind() != "pointer_expression" || a.child(0).is_none_or(|o| self.txt(o) != "&") {
            return None;
        }
        let mut x = a.child_by_field_name("argument").map(strip)?;
        while matches!(x.kind(), "field_expression" | "subscript_expression") {
            x = x.child_by_field_name("argument").map(strip)?;
        }
        (x.kind() == "identifier").then(|| self.lookup(self.txt(x)))?
    }

    /// `pthread_create(&t, attr, worker, arg)`: a host thread runs `worker(arg)`, a function
    /// of the program; `pthread_join(t, ..)` waits for it; `pthread_barrier_wait(&b)` meets
    /// the other threads at `b`. Returns `None` for other calls.
    fn thread_call(&mut self, name: &str, args: &[Node<'_>], span: Span) -> Option<Value> {
        if is_thread(&path_segments(name)) {
            return self.thread_start(args, false, span);
        }
        // `std::async(std::launch::async, work, d)`: a task run by a host thread, whose
        // future gives what the callable returns.
        if matches!(path_segments(name).as_slice(), [s, a] if s == "std" && a == "async") {
            let skip = usize::from(
                (args.first()).is_some_and(|p| self.txt(*p).trim_start().contains("launch::")),
            );
            return self.thread_start(&args[skip..], true, span);
        }
        // (function, arity, handle, start routine, its argument)
        const STARTS: &[(&str, usize, usize, usize, usize)] =
            &[("pthread_create", 4, 0, 2, 3), ("thrd_create", 3, 0, 1, 2)];
        const JOINS: &[&str] = &["pthread_join", "thrd_join"];
        if name == "pthread_barrier_wait" && args.len() == 1 {
            let barrier = self.expr(args[0]);
            self.out.push(Stmt::Rendezvous { barrier });
            return Some(Value::Scalar);
        }
        if JOINS.contains(&name) && !args.is_empty() {
            let handle = self.expr(args[0]);
            for a in &args[1..] {
                self.expr(*a);
            }
            let dst = Place::var(self.new_temp(TypeHint::Unknown));
            self.out.push(Stmt::Join { handle, dst });
            return Some(Value::Scalar);
        }
        let &(_, _, h, f, a) = STARTS.iter().find(|s| s.0 == name && s.1 == args.len())?;
        let Value::Place(handle) = self.expr(args[h]) else {
            return None;
        };
        let callee = self.program_function(args[f])?;
        let arg = self.expr(args[a]);
        let call = self.call_stmt(callee, vec![arg], span);
        self.out.push(Stmt::Spawn {
            body: vec![call],
            value: Value::Unknown,
            handle,
            span,
        });
        Some(Value::Scalar)
    }

    /// A field declared as host data (`float *h_x`, `std::vector<float> h_dist`) as that
    /// host data, even where the struct's value is not known.
    pub(super) fn host_field(&self, p: &Place) -> Option<Value> {
        // `solidHost_[d]` of a member `std::array<std::vector<cl_uchar>, 2> solidHost_`.
        let declared = match p.proj.as_slice() {
            [Proj::Field(f), Proj::Index(_) | Proj::AnyIndex | Proj::Var(_) | Proj::At(_) | Proj::Last] => {
                (self.vars[p.var].name == "this")
                    .then(|| self.member_type(f))
                    .flatten()
                    .and_then(|ty| container_elem(&self.cx.real_type(ty)).map(str::to_string))
                    .map(|e| declared_hint(&self.cx.real_type(&e), None, 0))
            }
            [.., Proj::Field(f)] => (self.vars[p.var].fields.iter())
                .find(|(n, _)| n == f)
                .map(|(_, h)| *h),
            _ => None,
        };
        match declared {
            Some(TypeHint::Host(kind)) => Some(Value::Host {
                kind,
                base: Some(p.clone()),
            }),
            _ => None,
        }
    }

    /// The function of the program an expression names (`worker` given to `pthread_create`
    /// or `std::thread`).
    fn program_function(&self, n: Node<'_>) -> Option<String> {
        let n = strip(n);
        let name = self.txt(n).to_string();
        (n.kind() == "identifier" && self.cx.defined.contains(&name)).then_some(name)
    }

    /// Whether a local's type is a class or struct the program defines.
    fn of_program_class(&self, x: Node<'_>) -> bool {
        (self.lookup(self.txt(x))).is_some_and(|v| {
            (self.vars[v].ty.as_deref()).is_some_and(|t| self.cx.structs.contains_key(t))
        })
    }

    /// `x` of `std::move(x)` for a local `x`.
    fn moved_local<'t>(&self, n: Node<'t>) -> Option<Node<'t>> {
        let n = strip(n);
        if n.kind() != "call_expression"
            || self.txt(n.child_by_field_name("function")?) != "std::move"
        {
            return None;
        }
        let [x] = named(n.child_by_field_name("arguments")?)[..] else {
            return None;
        };
        (x.kind() == "identifier" && self.lookup(self.txt(x)).is_some()).then_some(x)
    }

    /// A call of `callee` with `args`, its value in a new temporary: the body of a thread
    /// that runs it.
    fn call_stmt(&mut self, callee: String, args: Vec<Value>, span: Span) -> Stmt {
        let dst = Place::var(self.new_temp(TypeHint::Unknown));
        Stmt::Call {
            callee,
            recv: None,
            args,
            dst,
            span,
        }
    }

    /// A lambda's body run with its parameters bound to `args`, which are read here (before
    /// the body): the binding is emitted, the run is returned with where its value goes.
    fn lambda_run(
        &mut self,
        name: Option<String>,
        params: Vec<Var>,
        body: Vec<Stmt>,
        args: &[Node<'_>],
        span: Span,
    ) -> (Stmt, Place) {
        let mut body = body;
        for (p, a) in params.iter().zip(args) {
            // `timed("step", [&] { .. })` of a lambda that calls its parameter `fn()`: the
            // argument's body runs where the parameter is called.
            if let Some((lp, lbody)) = self.lambda_body(*a) {
                let callee = self.vars[*p].name.clone();
                body = run_where_called(body, &callee, &lp, &lbody);
                continue;
            }
            let value = self.expr(*a);
            self.out.push(Stmt::Assign {
                dst: Place::var(*p),
                value,
                span,
            });
        }
        let dst = Place::var(self.new_temp(TypeHint::Unknown));
        let run = Stmt::Closure {
            name,
            params,
            body,
            value: Value::Unknown,
            dst: dst.clone(),
            span,
        };
        (run, dst)
    }

    /// `std::thread t(work, d)`, `std::thread([&] {..})`, `workers.emplace_back(worker, &ctx[i])`:
    /// a host thread runs the callable with the arguments, which are read here, by the
    /// starting thread. The callable is a lambda, a local bound to one, or a function of the
    /// program. Returns the thread's handle; `None` (nothing lowered) for another callable.
    fn thread_start(&mut self, items: &[Node<'_>], returns: bool, span: Span) -> Option<Value> {
        let (&f, rest) = items.split_first()?;
        let f = strip(f);
        let lambda = match f.kind() {
            "lambda_expression" => Some((None, self.lambda_body(f)?)),
            "identifier" => (self.lookup(self.txt(f)))
                .and_then(|v| Some((Some(v), self.lambdas.get(&v)?.clone()))),
            _ => None,
        };
        let (body, value) = match lambda {
            Some((v, (params, body))) => {
                if params.len() != rest.len() {
                    return None;
                }
                let name = v.map(|v| self.vars[v].name.clone());
                let (run, dst) = self.lambda_run(name, params, body, rest, span);
                (vec![run], Value::Place(dst))
            }
            None => {
                let callee = self.program_function(f)?;
                let args = rest.iter().map(|a| self.expr(*a)).collect();
                let call = self.call_stmt(callee, args, span);
                let value = match &call {
                    Stmt::Call { dst, .. } => Value::Place(dst.clone()),
                    _ => Value::Unknown,
                };
                (vec![call], value)
            }
        };
        let handle = Place::var(self.new_temp(TypeHint::Unknown));
        self.out.push(Stmt::Spawn {
            body,
            value: if returns { value } else { Value::Unknown },
            handle: handle.clone(),
            span,
        });
        Some(Value::Place(handle))
    }

    /// The `k`th argument of a call of the program's own function `callee`. `&events[i]` is
    /// a pointer into a list of events, which the function may index on from there (`ev[1]`
    /// is `events[i + 1]`), where `events[i]` is the member itself: both read `events[i]`.
    /// Where the function indexes it and `i` is not 0, which members it reaches is not
    /// known: it is given some member of the list. (`&devs[d]` of a list of structs is taken
    /// to point at the one member.)
    fn helper_arg(&mut self, callee: &str, k: usize, a: Node<'_>) -> Value {
        let element = (a.kind() == "pointer_expression")
            .then(|| a.child_by_field_name("argument"))
            .flatten()
            .map(strip)
            .filter(|x| x.kind() == "subscript_expression");
        let offset = element.and_then(|x| x.child_by_field_name("index"));
        let v = self.expr(a);
        match (offset, &v) {
            (Some(i), Value::Place(p))
                if self.txt(strip(i)) != "0"
                    && self.cx.indexed.contains(&(callee.to_string(), k))
                    && p.proj.len() == 1
                    && self.vars[p.var].hint == TypeHint::EventList =>
            {
                let mut some = p.clone();
                some.proj.pop();
                some.proj.push(Proj::AnyIndex);
                Value::Place(some)
            }
            _ => v,
        }
    }

    /// A call nothing models: its arguments are read as code, then forgotten.
    fn unknown_call(&mut self, recv: Option<Value>, args: &[Node<'_>], span: Span) -> Value {
        let mut vals: Vec<Value> = args.iter().map(|a| self.expr(*a)).collect();
        vals.extend(recv);
        self.forget(vals, span);
        Value::Unknown
    }

    fn emit_call(
        &mut self,
        callee: String,
        recv: Option<Value>,
        args: Vec<Value>,
        span: Span,
    ) -> Value {
        // `run_tile(q, k, &ev)`: the events it is given to write are what its status
        // reports on (`if (run_tile(..) != CL_SUCCESS) break;` made none).
        for a in &args {
            if let Value::Place(p) = a {
                let hint = self.vars[p.var].hint;
                if (hint == TypeHint::Event && p.proj.is_empty())
                    || (hint == TypeHint::EventList && p.proj.len() == 1 && p.is_definite())
                {
                    self.outs.events.push(p.clone());
                }
            }
        }
        let t = self.new_temp(TypeHint::Unknown);
        // What a method returns of a class of the file (`dev(0).queue()` of `DeviceSlot
        // &dev(..)`): that class, whose methods are followed on it.
        if let Some(ty) = self.cx.returns.get(&callee) {
            self.type_var(t, &ty.clone(), 0);
        }
        self.out.push(Stmt::Call {
            callee,
            recv,
            args,
            dst: Place::var(t),
            span,
        });
        Value::Place(Place::var(t))
    }

    /// A string the expression is known to hold: a literal, a constant, a local bound to
    /// one, through `&`, casts and parentheses; a braced list of strings, joined.
    /// What a string argument is written around: `src` of `&src`, `(const char **)&src`,
    /// `(src)`, `src.c_str()`.
    fn string_operand<'t>(&self, n: Node<'t>) -> Node<'t> {
        let inner = match n.kind() {
            "pointer_expression" | "cast_expression" | "parenthesized_expression" => n
                .child_by_field_name("argument")
                .or_else(|| n.child_by_field_name("value"))
                .or_else(|| named(n).into_iter().last()),
            "call_expression" => n
                .child_by_field_name("function")
                .filter(|f| f.kind() == "field_expression")
                .filter(|f| {
                    (f.child_by_field_name("field"))
                        .is_some_and(|m| matches!(self.txt(m), "c_str" | "data"))
                })
                .and_then(|f| f.child_by_field_name("argument")),
            _ => None,
        };
        inner.map_or(n, |i| self.string_operand(i))
    }

    /// The local a string argument names (`src` of `&src`, `src.c_str()`).
    fn string_var(&self, n: Node<'_>) -> Option<Var> {
        let n = self.string_operand(n);
        (n.kind() == "identifier")
            .then(|| self.lookup(self.txt(n)))
            .flatten()
    }

    fn str_value(&self, n: Node<'_>) -> Option<String> {
        match n.kind() {
            "string_literal" | "concatenated_string" | "raw_string_literal" => {
                Some(self.cx.string_of_in(&self.text, n))
            }
            "identifier" => {
                let name = self.txt(n);
                if let Some(v) = self.lookup(name) {
                    return self.strs.get(&v).cloned();
                }
                match self.cx.consts.get(name) {
                    Some(Const::Str(s)) => Some(s.clone()),
                    _ => None,
                }
            }
            "pointer_expression" | "cast_expression" | "parenthesized_expression" => {
                let inner = self.string_operand(n);
                (inner != n).then(|| self.str_value(inner)).flatten()
            }
            "initializer_list" => {
                let parts: Option<Vec<String>> =
                    named(n).into_iter().map(|c| self.str_value(c)).collect();
                parts.map(|p| p.join("\n"))
            }
            "call_expression" => {
                // `std::string(SRC)`, `src.c_str()`.
                let func = n.child_by_field_name("function")?;
                let args = named(n.child_by_field_name("arguments")?);
                match func.kind() {
                    "field_expression" => {
                        let inner = self.string_operand(n);
                        (inner != n).then(|| self.str_value(inner)).flatten()
                    }
                    _ if args.len() == 1 && last_name(self.txt(func)) == "string" => {
                        self.str_value(args[0])
                    }
                    _ => None,
                }
            }
            _ => None,
        }
    }
}

impl FileCx {
    fn string_of_in(&self, text: &str, n: Node<'_>) -> String {
        let t = |x: Node<'_>| text.get(x.byte_range()).unwrap_or("").to_string();
        match n.kind() {
            // `"#define TILE " STR(TILE)`: a name of a string constant is that string; any
            // other (`PRIu64`) is left out.
            "concatenated_string" => named(n)
                .into_iter()
                .map(|p| match p.kind() {
                    "identifier" => match self.consts.get(&t(p)) {
                        Some(Const::Str(s)) => s.clone(),
                        _ => String::new(),
                    },
                    _ => self.string_of_in(text, p),
                })
                .collect(),
            "raw_string_literal" => {
                let s = t(n);
                let open = s.find('(').map_or(0, |i| i + 1);
                let close = s.rfind(')').unwrap_or(s.len());
                s.get(open..close).unwrap_or("").to_string()
            }
            _ => unescape(&t(n)),
        }
    }

    fn int_of_in(&self, text: &str, n: Node<'_>) -> Option<u64> {
        let t = text.get(n.byte_range()).unwrap_or("");
        match n.kind() {
            "number_literal" => int_text(t),
            "identifier" => match self.consts.get(t) {
                Some(Const::Int(v)) => Some(*v),
                _ => None,
            },
            "parenthesized_expression" => self.int_of_in(text, named(n).into_iter().next()?),
            // `sizeof(float)`
            "sizeof_expression" => {
                let ty = n.child_by_field_name("type")?;
                c_type_size(&self.real_type(text.get(ty.byte_range())?))
            }
            // `2 * NBATCH`, `MAX_DEV + 1`.
            "binary_expression" => {
                let op = n.child_by_field_name("operator")?;
                let op = ArithOp::of(text.get(op.byte_range())?)?;
                let l = self.int_of_in(text, n.child_by_field_name("left")?)?;
                let r = self.int_of_in(text, n.child_by_field_name("right")?)?;
                op.apply(l, r)
            }
            _ => None,
        }
    }
}

/// An `if` split at `||` or `&&` lowers one of its arms twice, where that arm is at most
/// this many bytes of source.
const MAX_LOWERED_TWICE: usize = 2_000;

/// A vector's `assign(n, item)` of at most this many copies makes a list of them; a longer
/// one is a call the analysis does not follow.
const MAX_ASSIGNED: u64 = 16;

/// A range `for` over a local array of at most this many members walks it by index.
const MAX_WALKED_LEN: u64 = 16;

/// An arm of an `if` that tests whether enqueues failed: when the arm leaves the function
/// (a `return`, `goto` or `throw` at its top level), the enqueues failed on it, so their
/// events do not exist: they are complete and released as far as the analysis goes.
/// Calls lowered in one statement or tested by one condition: their event out-parameters
/// and their commands (by id).
#[derive(Clone, Debug, Default)]
struct Outs {
    events: Vec<Place>,
    commands: Vec<usize>,
}

/// The expression a condition tests, without parentheses or the C++ `condition_clause`
/// around it.
fn condition_expr(c: Node<'_>) -> Option<Node<'_>> {
    let c = strip(c);
    match c.kind() {
        "condition_clause" => Some(strip(named(c).into_iter().last()?)),
        _ => Some(c),
    }
}

/// Marks the arm's `return` (at its top level) as leaving on an error; whether it has one.
fn error_exit_at_return(arm: &mut Vec<Stmt>) -> bool {
    match arm.iter().position(|s| matches!(s, Stmt::Return { .. })) {
        Some(at) => {
            arm.insert(at, Stmt::ErrorExit);
            true
        }
        None => false,
    }
}

/// A `for` loop's initializer, `int i = S` or `i = S`: the counter and the start's node.
fn for_init(init: Node<'_>) -> Option<(Node<'_>, Node<'_>)> {
    match init.kind() {
        "declaration" => {
            let d = init.child_by_field_name("declarator")?;
            (d.kind() == "init_declarator").then_some(())?;
            Some((
                d.child_by_field_name("declarator")?,
                d.child_by_field_name("value")?,
            ))
        }
        "assignment_expression" => Some((
            init.child_by_field_name("left")?,
            init.child_by_field_name("right")?,
        )),
        _ => None,
    }
}

/// The first value past a counter's end for `i < bound` or `i <= bound`.
fn end_of(op: &str, bound: u64) -> Option<u64> {
    match op {
        "<" => Some(bound),
        "<=" => bound.checked_add(1),
        _ => None,
    }
}

/// Whether `n` assigns, increments or takes the address of the variable `name`.
fn changes(n: Node<'_>, name: &str, text: &str) -> bool {
    writes(n, name, text, false)
}

/// Whether `n` stores into the variable `name` or through it: assigns it or a part of it
/// (`name = ..`, `name.f = ..`, `name[i] = ..`), counts it up or down, or takes its address.
fn stores_through(n: Node<'_>, name: &str, text: &str) -> bool {
    writes(n, name, text, true)
}

/// Whether `n` assigns, counts up or down or takes the address of `name`, or, with
/// `parts`, of a field, element or pointee of it.
fn writes(n: Node<'_>, name: &str, text: &str, parts: bool) -> bool {
    fn root<'t>(mut x: Node<'t>) -> Node<'t> {
        loop {
            let inner = match x.kind() {
                "field_expression" | "subscript_expression" | "pointer_expression" => {
                    x.child_by_field_name("argument")
                }
                "parenthesized_expression" => named(x).into_iter().next(),
                _ => None,
            };
            match inner {
                Some(i) => x = i,
                None => return x,
            }
        }
    }
    let is_name = |x: Option<Node<'_>>| {
        x.map(|x| if parts { root(x) } else { x })
            .is_some_and(|x| x.kind() == "identifier" && text.get(x.byte_range()) == Some(name))
    };
    let own = match n.kind() {
        "assignment_expression" => is_name(n.child_by_field_name("left")),
        "update_expression" => is_name(n.child_by_field_name("argument")),
        "pointer_expression" => {
            n.child_by_field_name("operator")
                .is_some_and(|o| text.get(o.byte_range()) == Some("&"))
                && is_name(n.child_by_field_name("argument"))
        }
        // A variable declared in the loop takes a new value each pass: `cl_event e =
        // evs[i];` in its body, `for (cl_event e : evs)` as its own.
        // `DevPlan *p = &plan[d];`: through pointer, reference and array declarators.
        "init_declarator" | "for_range_loop" => {
            let mut d = n.child_by_field_name("declarator");
            while let Some(x) = d.filter(|x| x.kind().ends_with("_declarator")) {
                d = x
                    .child_by_field_name("declarator")
                    .or_else(|| named(x).into_iter().find(|c| c.kind() == "identifier"));
            }
            is_name(d)
        }
        _ => false,
    };
    own || named(n).into_iter().any(|c| writes(c, name, text, parts))
}

/// The vector `v` of a call `v.size()`.
fn size_of_vector<'t>(n: Node<'_>, text: &'t str) -> Option<&'t str> {
    if n.kind() != "call_expression" || !named(n.child_by_field_name("arguments")?).is_empty() {
        return None;
    }
    let f = n.child_by_field_name("function")?;
    let (recv, method) = (
        f.child_by_field_name("argument")?,
        f.child_by_field_name("field")?,
    );
    (f.kind() == "field_expression"
        && recv.kind() == "identifier"
        && text.get(method.byte_range()) == Some("size"))
    .then(|| text.get(recv.byte_range()))
    .flatten()
}

/// The type a `std::unique_ptr<T>` or `std::shared_ptr<T>` points at: `T`.
fn smart_pointee(ty: &str) -> Option<&str> {
    let open = ty.find('<')?;
    let outer = last_name(ty[..open].trim());
    if !matches!(outer, "unique_ptr" | "shared_ptr") {
        return None;
    }
    let inner = ty[open + 1..].trim_end().strip_suffix('>')?;
    Some(inner.split(',').next()?.trim())
}

/// Whether a type is an instance of a class template other than the lists
/// (`std::unique_ptr<T, D>`, not `std::vector<cl_event>` or `std::array<cl_mem, 2>`).
fn class_template(ty: &str) -> bool {
    ty.contains('<') && vector_elem(ty).is_none() && std_array_len(ty).is_none()
}

/// The identifiers under `n`, by their last segment.
fn identifiers(n: Node<'_>, text: &str) -> Vec<String> {
    names_in(n, text, false)
}

/// The identifiers `n` certainly names: of a choice (`ooo ?
/// CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE : 0`), those of its test and those both arms name.
fn certain_identifiers(n: Node<'_>, text: &str) -> Vec<String> {
    names_in(n, text, true)
}

fn names_in(n: Node<'_>, text: &str, certain: bool) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![n];
    while let Some(x) = stack.pop() {
        if matches!(x.kind(), "identifier" | "qualified_identifier") {
            let t = text.get(x.byte_range()).unwrap_or("");
            out.push(types::last_name(t).to_string());
        }
        if certain && x.kind() == "conditional_expression" {
            stack.extend(x.child_by_field_name("condition"));
            let arm = |f| x.child_by_field_name(f).map(|a| names_in(a, text, true));
            if let (Some(a), Some(b)) = (arm("consequence"), arm("alternative")) {
                out.extend(a.into_iter().filter(|w| b.contains(w)));
            }
            continue;
        }
        stack.extend(named(x));
    }
    out
}

/// The list an element place is a member of (`host` of `host[_]`).
fn element_base(p: &Place) -> Option<Place> {
    let (last, rest) = p.proj.split_last()?;
    matches!(last, Proj::Index(_) | Proj::AnyIndex | Proj::Var(_)).then(|| Place {
        var: p.var,
        proj: rest.to_vec(),
    })
}

/// The members a macro body writes through `param` (`(w)->status = e_`), where every use of
/// the parameter reaches a member (`->` or `.` follows it, after a closing parenthesis if
/// any); `None` where the body passes the parameter itself anywhere.
fn member_only(body: &str, param: &str) -> Option<Vec<String>> {
    let b = body.as_bytes();
    let word = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let mut written = Vec::new();
    let mut found = false;
    let mut from = 0;
    while let Some(i) = body[from..].find(param).map(|i| i + from) {
        from = i + param.len();
        let before = i.checked_sub(1).map(|j| b[j]);
        let after = b.get(from).copied();
        if before.is_some_and(word) || after.is_some_and(word) || before == Some(b'#') {
            continue;
        }
        found = true;
        let rest = body[from..].trim_start();
        let rest = rest.strip_prefix(')').map_or(rest, str::trim_start);
        let rest = match (rest.strip_prefix("->"), rest.strip_prefix('.')) {
            (Some(r), _) => r,
            (None, Some(r)) if !r.starts_with('.') => r,
            _ => return None,
        };
        let rest = rest.trim_start();
        let field: String = rest
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        let after_field = rest[field.len()..].trim_start();
        if after_field.starts_with('=') && !after_field.starts_with("==") {
            written.push(field);
        }
    }
    found.then_some(written)
}

/// A macro whose body returns where a test of one of its parameters holds: the `if` it
/// makes of a call, as text before and after that argument.
#[derive(Clone, Debug)]
struct CheckingMacro {
    param: usize,
    lead: String,
    tail: String,
    /// The label its failure jumps to (`goto cleanup;`), where it jumps.
    label: Option<String>,
}

/// The checking macro a function-like macro's body makes: `do { if (TEST) { ..; return X;
/// } } while (0)`, `if (TEST) return X;` or `{ if (TEST) { .. return X; } }` (or `goto
/// cleanup;` for the return), with no `else`, a test naming one parameter once, and a
/// return that names none.
fn checking_macro(body: &str, params: &[String], lang: Lang) -> Option<CheckingMacro> {
    let body = body.replace("\\\n", "  ").replace("\\\r\n", "   ");
    let text = format!("void m(void){{{body};}}");
    let tree = parse(&text, lang)?;
    let txt = |n: Node<'_>| text.get(n.byte_range()).unwrap_or("");
    let f = named(tree.root_node())
        .into_iter()
        .find(|f| f.kind() == "function_definition")?;
    let stmts: Vec<Node<'_>> = (named(f.child_by_field_name("body")?).into_iter())
        .filter(|s| !matches!(s.kind(), "comment" | "expression_statement") || txt(*s) != ";")
        .collect();
    let mut only = match stmts.as_slice() {
        [s] => *s,
        _ => return None,
    };
    loop {
        match only.kind() {
            "do_statement" => {
                let cond = only.child_by_field_name("condition")?;
                if txt(cond).trim_matches(|c: char| c == '(' || c == ')' || c.is_whitespace())
                    != "0"
                {
                    return None;
                }
                only = only.child_by_field_name("body")?;
            }
            "compound_statement" => match named(only).as_slice() {
                [s] => only = *s,
                _ => return None,
            },
            _ => break,
        }
    }
    if only.kind() != "if_statement" || only.child_by_field_name("alternative").is_some() {
        return None;
    }
    let cond = only.child_by_field_name("condition")?;
    let then = only.child_by_field_name("consequence")?;
    // The way out: a `return`, or a `goto` to the function's cleanup.
    let exit = |s: &Node<'_>| matches!(s.kind(), "return_statement" | "goto_statement");
    let ret = match then.kind() {
        _ if exit(&then) => then,
        "compound_statement" => named(then)
            .into_iter()
            .rfind(|s| s.kind() != "comment")
            .filter(exit)?,
        _ => return None,
    };
    let ret_text = txt(ret);
    let mentions = |t: &str, p: &str| {
        t.split(|c: char| !c.is_ascii_alphanumeric() && c != '_')
            .filter(|w| *w == p)
            .count()
    };
    if params.iter().any(|p| mentions(ret_text, p) > 0) {
        return None;
    }
    let cond_text = txt(cond);
    let tested: Vec<usize> = (0..params.len())
        .filter(|&i| mentions(cond_text, &params[i]) > 0)
        .collect();
    let [param] = tested.as_slice() else {
        return None;
    };
    if mentions(cond_text, &params[*param]) != 1 {
        return None;
    }
    let name = &params[*param];
    let at = (cond_text.match_indices(name.as_str())).find_map(|(i, _)| {
        let before = cond_text[..i].chars().next_back();
        let after = cond_text[i + name.len()..].chars().next();
        let word = |c: Option<char>| c.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_');
        (!word(before) && !word(after)).then_some(i)
    })?;
    Some(CheckingMacro {
        param: *param,
        lead: format!("if {}", &cond_text[..at]),
        tail: format!("{} {{ {} }}", &cond_text[at + name.len()..], ret_text),
        label: (ret.child_by_field_name("label")).map(|l| txt(l).to_string()),
    })
}

/// Whether a macro body gives the value of its parameter: `(e)`, or a statement
/// expression that keeps it in a local and ends with that local
/// (`({ .. __typeof__(e) _ret = e; if (..) abort(); _ret; })`).
fn gives_param(body: &str, param: &str) -> bool {
    let body: String = (body.split_whitespace())
        .filter(|w| *w != "\\")
        .collect::<Vec<_>>()
        .join(" ");
    if body == format!("({param})") || body == param {
        return true;
    }
    let Some(inner) = body.strip_prefix("({").and_then(|b| b.strip_suffix("})")) else {
        return false;
    };
    let Some(last) = inner.trim().strip_suffix(';') else {
        return false;
    };
    let local = (last.rsplit([';', '{', '}']).next()).unwrap_or("").trim();
    !local.is_empty()
        && local.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && inner.contains(&format!("{local} = {param};"))
}

/// The element type of a `std::vector<T>` type: `T`.
fn vector_elem(ty: &str) -> Option<&str> {
    let ty = ty.trim().trim_start_matches("const ").trim();
    let inner = ty
        .strip_prefix("std::vector<")
        .or_else(|| ty.strip_prefix("vector<"))?
        .strip_suffix('>')?
        .trim();
    (!inner.contains(',')).then_some(inner)
}

fn jumps(body: &[Stmt]) -> bool {
    body.iter().any(|s| match s {
        Stmt::Break | Stmt::Continue | Stmt::Return { .. } => true,
        Stmt::Branch(arms) => arms.iter().any(|a| jumps(a)),
        _ => false,
    })
}

/// The array whose count `sizeof(a) / sizeof(a[0])` (or `sizeof a / sizeof *a`) is.
fn array_count(text: &str) -> Option<String> {
    let t: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    let (whole, one) = t.split_once('/')?;
    let name = |s: &str| {
        let s = s.strip_prefix("sizeof")?;
        let s = s
            .strip_prefix('(')
            .and_then(|x| x.strip_suffix(')'))
            .unwrap_or(s);
        Some(s.to_string())
    };
    let array = name(whole)?;
    let elem = name(one)?;
    let is_ident =
        !array.is_empty() && array.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    (is_ident && (elem == format!("{array}[0]") || elem == format!("*{array}"))).then_some(array)
}

/// A C++ path's segments without template arguments: `cl::Buffer` → `["cl", "Buffer"]`,
/// `::clFinish` → `["clFinish"]`.
fn path_segments(path: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut depth = 0;
    let mut cur = String::new();
    for c in path.chars() {
        match c {
            '<' => depth += 1,
            '>' => depth -= 1,
            _ if depth > 0 => {}
            ':' => {
                if !cur.trim().is_empty() {
                    out.push(cur.trim().to_string());
                }
                cur.clear();
            }
            _ => cur.push(c),
        }
    }
    if !cur.trim().is_empty() {
        out.push(cur.trim().to_string());
    }
    out
}

/// Whether a number literal's text (lowercase) is a floating one (`1.5f`, `2e3`); a hex
/// literal is an integer.
fn floating_literal(t: &str) -> bool {
    !t.starts_with("0x") && (t.contains('.') || t.contains('e'))
}

/// Whether a scalar type is an integer type (not `float`, `double`, `half` or their
/// OpenCL names).
fn is_int_type(ty: &str) -> bool {
    let last = ty.split_whitespace().last().unwrap_or("");
    let last = last.rsplit("::").next().unwrap_or(last);
    c_type_size(ty).is_some()
        && !matches!(
            last,
            "float" | "double" | "half" | "cl_float" | "cl_double" | "cl_half"
        )
        && !last.ends_with(|c: char| c.is_ascii_digit())
}

/// `std::future<T>`, `std::shared_future<T>`.
fn is_future(ty: &str) -> bool {
    let base = ty.split('<').next().unwrap_or("");
    matches!(
        path_segments(base).as_slice(),
        [s, f] if s == "std" && (f == "future" || f == "shared_future")
    )
}

/// `std::thread` (`thread` after `using namespace std`): a thread that the program joins
/// (`std::jthread` joins where it goes out of scope, which is not followed).
fn is_thread(segs: &[String]) -> bool {
    matches!(segs, [t] if t == "thread") || matches!(segs, [s, t] if s == "std" && t == "thread")
}

/// The `function_declarator` of a function definition, under its pointer and reference
/// declarators (`cl_event *make(..)`).
fn function_declarator(def: Node<'_>) -> Option<Node<'_>> {
    let mut d = def.child_by_field_name("declarator")?;
    while d.kind() != "function_declarator" {
        d = match d.kind() {
            // `Slot &dev(size_t i)`: C++'s reference declarator names no field.
            "reference_declarator" => named(d).last().copied()?,
            _ => d.child_by_field_name("declarator")?,
        };
    }
    Some(d)
}

/// The number of named parameters of a function definition that takes variable arguments
/// (`void log(const char *fmt, ...)`); `None` for one that does not.
fn named_params_of_variadic(def: Node<'_>) -> Option<usize> {
    let params = named(function_declarator(def)?.child_by_field_name("parameters")?);
    params
        .iter()
        .any(|p| p.kind() == "variadic_parameter")
        .then(|| {
            (params.iter())
                .filter(|p| p.kind() == "parameter_declaration")
                .count()
        })
}

/// `body` with each call of `callee` (a lambda's parameter) replaced by a run of the lambda
/// given for it (`params`, `lambda`), its parameters bound to the call's arguments.
fn run_where_called(body: Vec<Stmt>, callee: &str, params: &[Var], lambda: &[Stmt]) -> Vec<Stmt> {
    let each = |b: Vec<Stmt>| run_where_called(b, callee, params, lambda);
    let mut out = Vec::with_capacity(body.len());
    for s in body {
        match s {
            Stmt::Call {
                callee: c,
                recv: None,
                args,
                dst,
                span,
            } if c == callee && args.len() == params.len() => {
                for (p, value) in params.iter().zip(args) {
                    out.push(Stmt::Assign {
                        dst: Place::var(*p),
                        value,
                        span,
                    });
                }
                out.push(Stmt::Closure {
                    name: None,
                    params: params.to_vec(),
                    body: lambda.to_vec(),
                    value: Value::Unknown,
                    dst,
                    span,
                });
            }
            Stmt::Branch(arms) => out.push(Stmt::Branch(arms.into_iter().map(each).collect())),
            Stmt::Loop(b) => out.push(Stmt::Loop(each(b))),
            Stmt::ForEach {
                sources,
                binds,
                body,
                tail,
                dst,
            } => out.push(Stmt::ForEach {
                sources,
                binds,
                body: each(body),
                tail,
                dst,
            }),
            Stmt::Closure {
                name,
                params: p,
                body,
                value,
                dst,
                span,
            } => out.push(Stmt::Closure {
                name,
                params: p,
                body: each(body),
                value,
                dst,
                span,
            }),
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn value_macros_give_their_parameter() {
        let check_err = "({ \\\n cl_int _err = CL_INVALID_VALUE; \\\n \
            __typeof__(_expr) _ret = _expr; \\\n if (_err != CL_SUCCESS) { abort(); } \\\n \
            _ret; \\\n })";
        assert!(gives_param(check_err, "_expr"));
        assert!(gives_param("(x)", "x"));
        assert!(!gives_param("({ int r = x; r + 1; })", "x"));
        assert!(!gives_param("({ int r = y; r; })", "x"));
        assert!(!gives_param("do { check(x); } while (0)", "x"));
    }

    #[test]
    fn the_tables_parse() {
        let b = Bindings::from_tables(TABLES).unwrap();
        assert!(b
            .function(&["clEnqueueMigrateMemObjects".into()], 7)
            .is_some());
        assert!(b.method("enqueueMigrateMemObjects", 4).is_some());
        assert!(b.function(&["cl".into(), "Buffer".into()], 4).is_some());
        assert!(b.function(&["Buffer".into()], 3).is_some());
    }

    #[test]
    fn paths_lose_their_template_arguments() {
        assert_eq!(path_segments("cl::Buffer"), ["cl", "Buffer"]);
        assert_eq!(path_segments("::clFinish"), ["clFinish"]);
        assert_eq!(
            path_segments("std::vector<cl::Event>::size"),
            ["std", "vector", "size"]
        );
    }

    #[test]
    fn literals() {
        assert_eq!(int_text("1024"), Some(1024));
        assert_eq!(int_text("0x10"), Some(16));
        assert_eq!(int_text("8UL"), Some(8));
        assert_eq!(unescape(r#""a\n\"b\"""#), "a\n\"b\"");
    }
}
