//! The Rust frontend: a syn AST to the host IR, one [`Function`] per function or method.
//!
//! Calls are looked up in the binding tables ([`bindings`](super::bindings)); a call that is not modeled
//! forgets what is known about every value it receives. Lowering never fails: what it
//! cannot follow becomes `Value::Unknown` or a `Forget`.

mod spans;

use std::collections::HashMap;
use std::path::Path;

use proc_macro2::{TokenStream, TokenTree};
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::visit::{self, Visit};
use syn::{Expr, Pat, Stmt as SynStmt, Type};

use super::bindings::{Api, Bindings, Effect, NewKind, Role};
use super::{Const, Fields, FileIr};
use crate::ir::*;
use crate::source::{read_regular, SourceFile, MAX_FILE_BYTES};

/// Methods on host data that only read it.
const READ_ONLY_METHODS: &[&str] = &[
    "len",
    "is_empty",
    "iter",
    "as_slice",
    "first",
    "last",
    "contains",
    "capacity",
    "chunks",
    "chunks_exact",
    "windows",
    "split_at",
    "starts_with",
    "ends_with",
    "to_vec",
    "get",
];

/// Macros that only read their arguments.
const READING_MACROS: &[&str] = &[
    "println",
    "print",
    "eprintln",
    "eprint",
    "format",
    "write",
    "writeln",
    "assert",
    "assert_eq",
    "assert_ne",
    "debug_assert",
    "debug_assert_eq",
    "debug_assert_ne",
    "panic",
    "dbg",
    "info",
    "debug",
    "warn",
    "error",
    "trace",
    "unreachable",
    "todo",
];

/// Standard types that parameters often have: never structs of the crate.
const STD_TYPES: &[&str] = &[
    "Vec", "String", "str", "Option", "Result", "Box", "Rc", "Arc", "RefCell", "Cell", "Mutex",
    "RwLock", "HashMap", "HashSet", "BTreeMap", "BTreeSet", "VecDeque", "Path", "PathBuf",
    "Duration", "Instant",
];

/// Lowers every function and method of a parsed file that is module `module` of its crate
/// (empty for a crate root, or a file on its own): functions are named by their path in
/// the crate.
pub fn lower_file(file_id: usize, src: &SourceFile, ast: &syn::File, module: &[String]) -> FileIr {
    let mut consts = HashMap::new();
    collect_consts(&ast.items, &mut consts);
    let mut uses = Uses::default();
    collect_uses(&ast.items, &mut uses);
    let root = (!module.is_empty()).then(|| module.join("::"));
    let mut defs = Defs::default();
    collect_defs(&ast.items, root.as_deref(), &mut defs);
    let mut structs: Vec<(String, Fields)> = defs
        .structs
        .iter()
        .map(|(n, f)| (n.clone(), f.clone()))
        .collect();
    structs.sort_by(|a, b| a.0.cmp(&b.0));
    let mut cx = FileCx {
        file: file_id,
        src,
        consts,
        uses,
        defined: defs.functions,
        modules: defs.modules,
        structs: defs.structs,
        next_cmd: 0,
        functions: Vec::new(),
    };
    cx.items(&ast.items, root.as_deref());
    FileIr {
        functions: cx.functions,
        structs,
    }
}

fn collect_consts(items: &[syn::Item], out: &mut HashMap<String, Const>) {
    for item in items {
        match item {
            syn::Item::Const(c) => {
                if let Some(v) = const_value(&c.expr) {
                    out.insert(c.ident.to_string(), v);
                }
            }
            syn::Item::Static(s) => {
                if let Some(v) = const_value(&s.expr) {
                    out.insert(s.ident.to_string(), v);
                }
            }
            syn::Item::Mod(m) => {
                if let Some((_, items)) = &m.content {
                    collect_consts(items, out);
                }
            }
            _ => {}
        }
    }
}

/// What a file defines.
#[derive(Default)]
struct Defs {
    /// Functions and methods, by qualified name (`helper`, `Halo::step`).
    functions: std::collections::HashSet<String>,
    /// Structs: their fields' types.
    structs: HashMap<String, Fields>,
    /// Modules declared (`mod a;` or `mod a { .. }`), by qualified name.
    modules: std::collections::HashSet<String>,
}

/// The functions, methods, structs and modules a file defines.
fn collect_defs(items: &[syn::Item], prefix: Option<&str>, defs: &mut Defs) {
    for item in items {
        match item {
            syn::Item::Fn(f) => {
                defs.functions
                    .insert(qualify(prefix, &f.sig.ident.to_string()));
            }
            syn::Item::Impl(imp) => {
                let ty = type_name(&imp.self_ty).unwrap_or_else(|| "_".into());
                for ii in &imp.items {
                    if let syn::ImplItem::Fn(m) = ii {
                        defs.functions
                            .insert(qualify(prefix, &format!("{ty}::{}", m.sig.ident)));
                    }
                }
            }
            syn::Item::Struct(st) => {
                let fields = st
                    .fields
                    .iter()
                    .enumerate()
                    .map(|(i, f)| {
                        let name = f
                            .ident
                            .as_ref()
                            .map_or_else(|| i.to_string(), |n| n.to_string());
                        (name, type_hint(&f.ty))
                    })
                    .collect();
                defs.structs.insert(st.ident.to_string(), fields);
            }
            syn::Item::Mod(m) => {
                let p = qualify(prefix, &m.ident.to_string());
                if let Some((_, items)) = &m.content {
                    collect_defs(items, Some(&p), defs);
                }
                defs.modules.insert(p);
            }
            _ => {}
        }
    }
}

/// Names brought in by `use`, and the modules of glob imports.
#[derive(Default)]
struct Uses {
    /// `use a::b::{c, d as e}` → `c` ↦ `[a, b, c]`, `e` ↦ `[a, b, d]`.
    names: HashMap<String, Vec<String>>,
    /// `use a::b::*` → `[a, b]`, in file order.
    globs: Vec<Vec<String>>,
}

fn collect_uses(items: &[syn::Item], out: &mut Uses) {
    fn walk(t: &syn::UseTree, prefix: &mut Vec<String>, out: &mut Uses) {
        match t {
            syn::UseTree::Path(p) => {
                prefix.push(p.ident.to_string());
                walk(&p.tree, prefix, out);
                prefix.pop();
            }
            syn::UseTree::Name(n) => {
                let mut full = prefix.clone();
                full.push(n.ident.to_string());
                out.names.insert(n.ident.to_string(), full);
            }
            syn::UseTree::Rename(r) => {
                let mut full = prefix.clone();
                full.push(r.ident.to_string());
                out.names.insert(r.rename.to_string(), full);
            }
            syn::UseTree::Group(g) => g.items.iter().for_each(|i| walk(i, prefix, out)),
            syn::UseTree::Glob(_) => out.globs.push(prefix.clone()),
        }
    }
    for item in items {
        match item {
            syn::Item::Use(u) => walk(&u.tree, &mut Vec::new(), out),
            syn::Item::Mod(m) => {
                if let Some((_, items)) = &m.content {
                    collect_uses(items, out);
                }
            }
            _ => {}
        }
    }
}

fn const_value(e: &Expr) -> Option<Const> {
    match e {
        Expr::Lit(l) => match &l.lit {
            syn::Lit::Int(i) => i.base10_parse().ok().map(Const::Int),
            syn::Lit::Str(s) => Some(Const::Str(s.value())),
            _ => None,
        },
        Expr::Paren(p) => const_value(&p.expr),
        Expr::Group(g) => const_value(&g.expr),
        _ => None,
    }
}

struct FileCx<'a> {
    file: usize,
    src: &'a SourceFile,
    consts: HashMap<String, Const>,
    uses: Uses,
    /// Functions and methods defined in the file, by qualified name (`helper`, `Halo::step`).
    defined: std::collections::HashSet<String>,
    /// Modules declared in the file, by qualified name.
    modules: std::collections::HashSet<String>,
    /// Structs defined in the file: their fields' types.
    structs: HashMap<String, Fields>,
    next_cmd: usize,
    functions: Vec<Function>,
}

impl FileCx<'_> {
    fn items(&mut self, items: &[syn::Item], prefix: Option<&str>) {
        for item in items {
            match item {
                syn::Item::Fn(f) => {
                    let name = qualify(prefix, &f.sig.ident.to_string());
                    self.function(name, &f.sig, &f.block, None, prefix);
                }
                syn::Item::Impl(imp) => {
                    let ty = type_name(&imp.self_ty).unwrap_or_else(|| "_".into());
                    for ii in &imp.items {
                        if let syn::ImplItem::Fn(m) = ii {
                            let name = qualify(prefix, &format!("{ty}::{}", m.sig.ident));
                            self.function(name, &m.sig, &m.block, Some(&ty), prefix);
                        }
                    }
                }
                syn::Item::Trait(t) => {
                    for ti in &t.items {
                        if let syn::TraitItem::Fn(m) = ti {
                            if let Some(block) = &m.default {
                                let name =
                                    qualify(prefix, &format!("{}::{}", t.ident, m.sig.ident));
                                self.function(name, &m.sig, block, None, prefix);
                            }
                        }
                    }
                }
                syn::Item::Mod(m) => {
                    if let Some((_, items)) = &m.content {
                        let p = qualify(prefix, &m.ident.to_string());
                        self.items(items, Some(&p));
                    }
                }
                _ => {}
            }
        }
    }

    fn function(
        &mut self,
        name: String,
        sig: &syn::Signature,
        block: &syn::Block,
        self_ty: Option<&str>,
        prefix: Option<&str>,
    ) {
        let mut lw = Lowerer {
            cx: self,
            strs: HashMap::new(),
            vars: Vec::new(),
            scopes: vec![HashMap::new()],
            out: Vec::new(),
            self_ty: self_ty.map(str::to_string),
            prefix: prefix.map(str::to_string),
            closures: HashMap::new(),
            inlining: 0,
            inline_budget: 0,
            mapped: std::collections::HashSet::new(),
            struct_of: HashMap::new(),
        };
        let body_span = lw.span(block.span());
        lw.inline_budget = 4 * (body_span.end - body_span.start) + 4_096;
        let mut params = Vec::new();
        for input in &sig.inputs {
            match input {
                syn::FnArg::Receiver(_) => {
                    let hint = self_ty.map_or(TypeHint::Unknown, hint_from_name);
                    let v = lw.bind("self", hint);
                    lw.type_var(v, self_ty.map(str::to_string));
                    params.push(v);
                }
                syn::FnArg::Typed(pt) => {
                    let hint = type_hint(&pt.ty);
                    let ty = type_name(&pt.ty);
                    for (ident, _) in pat_idents(&pt.pat) {
                        let v = lw.bind(&ident, hint);
                        lw.type_var(v, ty.clone());
                        params.push(v);
                    }
                }
            }
        }
        let tail = lw.block_inline(block);
        lw.out.push(Stmt::Return { value: tail });
        let span = lw.cx.src.span(lw.cx.file, sig.ident.span());
        let body = std::mem::take(&mut lw.out);
        let vars = std::mem::take(&mut lw.vars);
        self.functions.push(Function {
            name,
            span,
            vars,
            params,
            body,
        });
    }
}

fn qualify(prefix: Option<&str>, name: &str) -> String {
    match prefix {
        Some(p) => format!("{p}::{name}"),
        None => name.to_string(),
    }
}

fn type_name(t: &Type) -> Option<String> {
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
];

fn hint_from_name(name: &str) -> TypeHint {
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

/// The element type of `Vec<T>`, `[T]`, `[T; N]`.
fn elem_name(t: &Type) -> Option<String> {
    match t {
        Type::Path(p) => {
            let seg = p.path.segments.last()?;
            if let syn::PathArguments::AngleBracketed(a) = &seg.arguments {
                if let Some(syn::GenericArgument::Type(t)) = a.args.first() {
                    return type_name(t).or_else(|| elem_name(t).map(|_| "array".into()));
                }
            }
            None
        }
        Type::Slice(s) => type_name(&s.elem).or_else(|| Some("array".into())),
        Type::Array(a) => type_name(&a.elem).or_else(|| Some("array".into())),
        _ => None,
    }
}

fn is_host_elem(name: &str) -> bool {
    !HANDLE_TYPES.contains(&name)
}

fn type_hint(t: &Type) -> TypeHint {
    match t {
        Type::Reference(r) => match &*r.elem {
            Type::Slice(_) => slice_hint(&r.elem),
            other => type_hint(other),
        },
        Type::Group(g) => type_hint(&g.elem),
        Type::Paren(p) => type_hint(&p.elem),
        Type::Slice(_) => slice_hint(t),
        Type::Array(a) => match type_name(&a.elem) {
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
                "Box" | "Rc" | "Arc" | "Option" => match &seg.arguments {
                    syn::PathArguments::AngleBracketed(a) => match a.args.first() {
                        Some(syn::GenericArgument::Type(inner)) => type_hint(inner),
                        _ => TypeHint::Unknown,
                    },
                    _ => TypeHint::Unknown,
                },
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

fn array_len(e: &Expr) -> Option<u64> {
    match e {
        Expr::Lit(l) => match &l.lit {
            syn::Lit::Int(i) => i.base10_parse().ok(),
            _ => None,
        },
        _ => None,
    }
}

/// Identifiers bound by a pattern, with whether the pattern is a plain binding
/// (`x`, `mut x`, `Ok(x)`, `Some(x)`) that takes the whole value.
fn pat_idents(p: &Pat) -> Vec<(String, bool)> {
    let mut out = Vec::new();
    fn walk(p: &Pat, whole: bool, out: &mut Vec<(String, bool)>) {
        match p {
            Pat::Ident(i) => {
                out.push((i.ident.to_string(), whole));
                if let Some((_, sub)) = &i.subpat {
                    walk(sub, false, out);
                }
            }
            Pat::Type(t) => walk(&t.pat, whole, out),
            Pat::Reference(r) => walk(&r.pat, whole, out),
            Pat::Paren(pp) => walk(&pp.pat, whole, out),
            Pat::TupleStruct(ts) => {
                let wrapper = ts
                    .path
                    .segments
                    .last()
                    .is_some_and(|s| matches!(s.ident.to_string().as_str(), "Ok" | "Some"));
                for e in &ts.elems {
                    walk(e, whole && wrapper && ts.elems.len() == 1, out);
                }
            }
            Pat::Tuple(t) => t.elems.iter().for_each(|e| walk(e, false, out)),
            Pat::Struct(s) => s.fields.iter().for_each(|f| walk(&f.pat, false, out)),
            Pat::Slice(s) => s.elems.iter().for_each(|e| walk(e, false, out)),
            Pat::Or(o) => o.cases.iter().for_each(|c| walk(c, false, out)),
            _ => {}
        }
    }
    walk(p, true, &mut out);
    out
}

/// The struct a constructor call makes: `Solver::new(..)`, `Solver::create(..)?`,
/// `Solver::new(..).unwrap()`.
fn constructed_type(e: &Expr) -> Option<String> {
    match e {
        Expr::Try(t) => constructed_type(&t.expr),
        Expr::Paren(p) => constructed_type(&p.expr),
        Expr::MethodCall(m) if matches!(m.method.to_string().as_str(), "unwrap" | "expect") => {
            constructed_type(&m.receiver)
        }
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
        _ => None,
    }
}

fn strip_pat_type(p: &Pat) -> &Pat {
    match p {
        Pat::Type(t) => strip_pat_type(&t.pat),
        _ => p,
    }
}

fn pat_type(p: &Pat) -> Option<&Type> {
    match p {
        Pat::Type(t) => Some(&t.ty),
        _ => None,
    }
}

/// Path segments of a call target, without generics: `Buffer::<f32>::create` → `[Buffer, create]`.
fn path_segments(e: &Expr) -> Option<Vec<String>> {
    match e {
        Expr::Path(p) => Some(
            p.path
                .segments
                .iter()
                .map(|s| s.ident.to_string())
                .collect(),
        ),
        _ => None,
    }
}

/// Identifiers in a token stream (for macros and closures the lowering does not follow).
fn token_idents(ts: TokenStream, out: &mut Vec<String>) {
    for tt in ts {
        match tt {
            TokenTree::Ident(i) => out.push(i.to_string()),
            TokenTree::Group(g) => token_idents(g.stream(), out),
            _ => {}
        }
    }
}

/// Collects the identifiers of a syntax tree in source order, those inside macro and
/// attribute tokens included: the identifiers its printed tokens would have, without
/// printing it.
struct Idents(Vec<String>);

impl<'ast> Visit<'ast> for Idents {
    fn visit_ident(&mut self, i: &'ast proc_macro2::Ident) {
        self.0.push(i.to_string());
    }

    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        visit::visit_macro(self, m);
        token_idents(m.tokens.clone(), &mut self.0);
    }

    fn visit_meta_list(&mut self, m: &'ast syn::MetaList) {
        visit::visit_meta_list(self, m);
        token_idents(m.tokens.clone(), &mut self.0);
    }

    fn visit_expr(&mut self, e: &'ast Expr) {
        match e {
            Expr::Verbatim(ts) => token_idents(ts.clone(), &mut self.0),
            _ => visit::visit_expr(self, e),
        }
    }

    fn visit_type(&mut self, t: &'ast Type) {
        match t {
            Type::Verbatim(ts) => token_idents(ts.clone(), &mut self.0),
            _ => visit::visit_type(self, t),
        }
    }

    fn visit_pat(&mut self, p: &'ast Pat) {
        match p {
            Pat::Verbatim(ts) => token_idents(ts.clone(), &mut self.0),
            _ => visit::visit_pat(self, p),
        }
    }

    fn visit_item(&mut self, i: &'ast syn::Item) {
        match i {
            syn::Item::Verbatim(ts) => token_idents(ts.clone(), &mut self.0),
            _ => visit::visit_item(self, i),
        }
    }
}

fn expr_idents(e: &Expr) -> Vec<String> {
    let mut ids = Idents(Vec::new());
    ids.visit_expr(e);
    ids.0
}

/// Whether the expression mentions one of these identifiers.
fn mentions_any(e: &Expr, names: &[&str]) -> bool {
    expr_idents(e).iter().any(|i| names.contains(&i.as_str()))
}

/// The out-of-order queue property, as each binding spells it (ocl-core: the constant, the
/// bitflag and the builder method).
const OUT_OF_ORDER: &[&str] = &[
    "CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE",
    "QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE",
    "OUT_OF_ORDER_EXEC_MODE_ENABLE",
    "out_of_order",
];

/// Map flags that let the host write the mapped region (its contents reach the buffer at
/// the unmap), as each binding spells them.
const MAP_WRITE: &[&str] = &[
    "CL_MAP_WRITE",
    "CL_MAP_WRITE_INVALIDATE_REGION",
    "MAP_WRITE",
    "MAP_WRITE_INVALIDATE_REGION",
    "WRITE",
    "WRITE_INVALIDATE_REGION",
    "write",
    "write_invalidate_region",
];

/// Buffer flags that make a buffer from host data, as each binding spells them.
const FROM_HOST: &[&str] = &[
    "CL_MEM_COPY_HOST_PTR",
    "CL_MEM_USE_HOST_PTR",
    "MEM_COPY_HOST_PTR",
    "MEM_USE_HOST_PTR",
    "COPY_HOST_PTR",
    "USE_HOST_PTR",
    "copy_host_ptr",
    "use_host_ptr",
];

/// The migration flag to host memory, as each binding spells it (ocl-core: the constant and
/// `MemMigrationFlags::OBJECT_HOST`).
const TO_HOST: &[&str] = &[
    "CL_MIGRATE_MEM_OBJECT_HOST",
    "MIGRATE_MEM_OBJECT_HOST",
    "OBJECT_HOST",
];

fn strip(e: &Expr) -> &Expr {
    match e {
        Expr::Paren(p) => strip(&p.expr),
        Expr::Group(g) => strip(&g.expr),
        Expr::Reference(r) => strip(&r.expr),
        Expr::Cast(c) => strip(&c.expr),
        _ => e,
    }
}

fn int_lit(e: &Expr) -> Option<u64> {
    match strip(e) {
        Expr::Lit(l) => match &l.lit {
            syn::Lit::Int(i) => i.base10_parse().ok(),
            _ => None,
        },
        _ => None,
    }
}

struct Lowerer<'c, 'a> {
    cx: &'c mut FileCx<'a>,
    /// The type of `self` in a method.
    self_ty: Option<String>,
    /// The module path of the function, for resolving calls of its siblings.
    prefix: Option<String>,
    /// Locals bound to a known string (kernel names and sources for FFI calls).
    strs: HashMap<Var, String>,
    vars: Vec<VarInfo>,
    scopes: Vec<HashMap<String, Var>>,
    out: Vec<Stmt>,
    /// Closures bound to locals (`let f = |..| ..`), with the variables they capture.
    closures: HashMap<Var, Closure>,
    /// Closure bodies being lowered where they are called, innermost last.
    inlining: usize,
    /// Bytes of closure bodies that may still be lowered where they are called: each
    /// call lowers its closure's body again, so this keeps a function's lowering linear.
    inline_budget: usize,
    /// Temporaries holding what a `map` over a list yields, one value per member.
    mapped: std::collections::HashSet<Var>,
    /// Variables whose type is a struct of the crate, by the struct's name.
    struct_of: HashMap<Var, String>,
}

/// The body of a loop: a `for` loop's block or an iterator adapter's closure body.
enum EachBody<'e> {
    Block(&'e syn::Block),
    Closure(&'e Expr),
}

/// A closure bound to a local.
#[derive(Clone)]
struct Closure {
    expr: syn::ExprClosure,
    /// The variables its body names, as they were where it was defined.
    captured: HashMap<String, Var>,
}

/// How deep closures called in closures are lowered where they are called.
const MAX_INLINE_DEPTH: usize = 4;

/// Methods that walk an iterator with a closure, once per item, in order.
const EACH_ADAPTERS: &[&str] = &["for_each", "try_for_each", "map"];

/// What an iterator yields, per item: the member of a source, the item's number, or a
/// pair of those (`enumerate`, `zip`).
enum Shape {
    Member(usize),
    Count,
    Pair(Box<Shape>, Box<Shape>),
}

/// Whether a loop body assigns through one of its items (`*x = ..`, `x[0] += ..`, `x.f = ..`).
struct ItemWrites<'i> {
    items: &'i [String],
    found: bool,
}

impl ItemWrites<'_> {
    fn through_item(&self, lhs: &Expr) -> bool {
        match lhs {
            Expr::Unary(u) => self.through_item(&u.expr),
            Expr::Index(i) => self.through_item(&i.expr),
            Expr::Field(f) => self.through_item(&f.base),
            Expr::Paren(p) => self.through_item(&p.expr),
            Expr::Path(p) => p
                .path
                .get_ident()
                .is_some_and(|i| self.items.iter().any(|n| i == n)),
            _ => false,
        }
    }
}

impl<'ast> Visit<'ast> for ItemWrites<'_> {
    fn visit_expr_assign(&mut self, a: &'ast syn::ExprAssign) {
        self.found |= self.through_item(&a.left);
        visit::visit_expr_assign(self, a);
    }

    fn visit_expr_binary(&mut self, b: &'ast syn::ExprBinary) {
        self.found |= is_assign_op(&b.op) && self.through_item(&b.left);
        visit::visit_expr_binary(self, b);
    }
}

/// The places a loop walks mutably (`v.iter_mut()`, `&mut v`), through iterator adapters.
fn walked_mutably<'e>(e: &'e Expr, out: &mut Vec<&'e Expr>) {
    match e {
        Expr::Reference(r) if r.mutability.is_some() => out.push(&r.expr),
        Expr::Reference(r) => walked_mutably(&r.expr, out),
        Expr::Paren(p) => walked_mutably(&p.expr, out),
        Expr::MethodCall(mc) => match mc.method.to_string().as_str() {
            "iter_mut" => out.push(&mc.receiver),
            "enumerate" | "by_ref" | "into_iter" => walked_mutably(&mc.receiver, out),
            "zip" => {
                walked_mutably(&mc.receiver, out);
                for a in &mc.args {
                    walked_mutably(a, out);
                }
            }
            _ => {}
        },
        _ => {}
    }
}

/// Whether a closure body leaves the closure early: it is not lowered where it is called.
fn has_return(e: &Expr) -> bool {
    struct Find(bool);
    impl<'ast> Visit<'ast> for Find {
        fn visit_expr_return(&mut self, _: &'ast syn::ExprReturn) {
            self.0 = true;
        }
        fn visit_expr_closure(&mut self, _: &'ast syn::ExprClosure) {}
        fn visit_expr_async(&mut self, _: &'ast syn::ExprAsync) {}
        fn visit_item(&mut self, _: &'ast syn::Item) {}
    }
    let mut f = Find(false);
    f.visit_expr(e);
    f.0
}

fn closure_of(e: &Expr) -> Option<&syn::ExprClosure> {
    match e {
        Expr::Closure(c) => Some(c),
        Expr::Paren(p) => closure_of(&p.expr),
        Expr::Group(g) => closure_of(&g.expr),
        _ => None,
    }
}

impl Lowerer<'_, '_> {
    fn span(&self, s: proc_macro2::Span) -> Span {
        self.cx.src.span(self.cx.file, s)
    }

    fn arg_span(&self, e: &Expr) -> ArgSpan {
        let span = self.span(spans::expr(e));
        ArgSpan {
            span,
            text: self.cx.src.slice(span).to_string(),
        }
    }

    fn bind(&mut self, name: &str, hint: TypeHint) -> Var {
        // `r#try` is the variable `try`.
        let name = name.trim_start_matches("r#");
        let v = self.vars.len();
        self.vars.push(VarInfo {
            name: name.to_string(),
            hint,
            fields: Vec::new(),
            ty: None,
        });
        if let Some(s) = self.scopes.last_mut() {
            s.insert(name.to_string(), v);
        }
        v
    }

    fn lookup(&self, name: &str) -> Option<Var> {
        let name = name.trim_start_matches("r#");
        self.scopes.iter().rev().find_map(|s| s.get(name).copied())
    }

    /// A temporary holding a value, so later uses refer to one place.
    fn temp(&mut self, value: Value) -> Value {
        match value {
            Value::Place(_) | Value::Unknown | Value::Scalar | Value::Int(_) | Value::Null => value,
            v => {
                let t = self.new_temp(TypeHint::Unknown);
                self.out.push(Stmt::Assign {
                    dst: Place::var(t),
                    value: v,
                    span: Span::default(),
                });
                Value::Place(Place::var(t))
            }
        }
    }

    /// Records the struct type of a parameter: its fields when the file defines it, else
    /// its name for [`link`](super::link).
    fn type_var(&mut self, v: Var, ty: Option<String>) {
        match ty.as_deref().and_then(|t| self.cx.structs.get(t)) {
            Some(fields) => {
                self.vars[v].fields = fields.clone();
                self.struct_of.insert(v, ty.unwrap_or_default());
            }
            // A binding's type (`CommandQueue`) or a standard one (`Vec`) is no struct of
            // the crate.
            None if ty.as_deref().is_some_and(|t| {
                hint_from_name(t) != TypeHint::Unknown || STD_TYPES.contains(&t)
            }) => {}
            None => self.vars[v].ty = ty,
        }
    }

    /// A fresh temporary variable (`%n`).
    fn new_temp(&mut self, hint: TypeHint) -> Var {
        let t = self.vars.len();
        self.vars.push(VarInfo::temp(t, hint));
        t
    }

    fn forget(&mut self, values: Vec<Value>, span: Span) {
        self.out.extend(crate::ir::forget(values, span));
    }

    /// Lowers a block into the current statement list, in a new scope; returns the value of
    /// its tail expression.
    fn block_inline(&mut self, b: &syn::Block) -> Value {
        self.scopes.push(HashMap::new());
        let mut last = Value::Unknown;
        let n = b.stmts.len();
        for (i, s) in b.stmts.iter().enumerate() {
            let v = self.stmt(s);
            if i + 1 == n {
                last = v;
            }
        }
        self.scopes.pop();
        last
    }

    /// Lowers a block into its own statement list.
    fn block_separate(&mut self, b: &syn::Block) -> Vec<Stmt> {
        let saved = std::mem::take(&mut self.out);
        self.block_inline(b);
        std::mem::replace(&mut self.out, saved)
    }

    fn expr_separate(&mut self, e: &Expr) -> Vec<Stmt> {
        let saved = std::mem::take(&mut self.out);
        self.scopes.push(HashMap::new());
        self.expr(e);
        self.scopes.pop();
        std::mem::replace(&mut self.out, saved)
    }

    fn stmt(&mut self, s: &SynStmt) -> Value {
        match s {
            SynStmt::Local(l) if self.bind_closure(l) => Value::Unknown,
            SynStmt::Local(l) => {
                let text = l.init.as_ref().and_then(|i| self.source_text(&i.expr));
                // `let (q0, q1) = (&qs[0], &qs[1]);`: each part its own binding.
                let tuple = match (strip_pat_type(&l.pat), l.init.as_ref().map(|i| &*i.expr)) {
                    (Pat::Tuple(pt), Some(Expr::Tuple(t))) if pt.elems.len() == t.elems.len() => {
                        Some(t)
                    }
                    _ => None,
                };
                let value = match &l.init {
                    Some(init) if init.diverge.is_none() && tuple.is_some() => Value::List(
                        tuple
                            .iter()
                            .flat_map(|t| t.elems.iter())
                            .map(|x| self.expr(x))
                            .collect(),
                    ),
                    Some(init) => {
                        let v = self.expr(&init.expr);
                        if let Some((_, diverge)) = &init.diverge {
                            let arm = self.expr_separate(diverge);
                            self.out.push(Stmt::Branch(vec![arm, Vec::new()]));
                        }
                        v
                    }
                    None => Value::Unknown,
                };
                let span = self.span(spans::local(l));
                self.let_pattern(&l.pat, value, span);
                // `let solver = Solver::new(..)?;`: its methods are the crate's.
                if let (Some(init), Pat::Ident(pi)) = (&l.init, strip_pat_type(&l.pat)) {
                    if let Some(ty) = constructed_type(&init.expr) {
                        if let Some(v) = self.lookup(&pi.ident.to_string()) {
                            self.struct_of.insert(v, ty);
                        }
                    }
                }
                if let (Some(t), [(name, true)]) = (text, pat_idents(&l.pat).as_slice()) {
                    if let Some(v) = self.lookup(name) {
                        self.strs.insert(v, t);
                    }
                }
                Value::Unknown
            }
            SynStmt::Expr(e, semi) => {
                let v = self.expr(e);
                if semi.is_some() {
                    Value::Unknown
                } else {
                    v
                }
            }
            SynStmt::Macro(m) => {
                self.mac(&m.mac);
                Value::Unknown
            }
            SynStmt::Item(item) => {
                self.cx.items(std::slice::from_ref(item), None);
                Value::Unknown
            }
        }
    }

    /// `let f = |..| ..;`: the closure is lowered where it is called.
    fn bind_closure(&mut self, l: &syn::Local) -> bool {
        let (Some(init), Pat::Ident(pi)) = (&l.init, strip_pat_type(&l.pat)) else {
            return false;
        };
        let Some(c) = closure_of(&init.expr) else {
            return false;
        };
        if init.diverge.is_some() || pi.subpat.is_some() {
            return false;
        }
        let captured = expr_idents(&c.body)
            .into_iter()
            .filter_map(|i| self.lookup(&i).map(|v| (i, v)))
            .collect();
        let v = self.bind(&pi.ident.to_string(), TypeHint::Unknown);
        let span = self.span(spans::local(l));
        self.out.push(Stmt::Assign {
            dst: Place::var(v),
            value: Value::Unknown,
            span,
        });
        self.closures.insert(
            v,
            Closure {
                expr: c.clone(),
                captured,
            },
        );
        true
    }

    /// Whether a closure's body is lowered where it is called: not too deep, within the
    /// function's budget, and without an early `return`.
    fn can_inline(&mut self, c: &syn::ExprClosure) -> bool {
        let span = self.span(spans::expr(&c.body));
        let cost = span.end.saturating_sub(span.start).max(1);
        if self.inlining >= MAX_INLINE_DEPTH || cost > self.inline_budget || has_return(&c.body) {
            return false;
        }
        self.inline_budget -= cost;
        true
    }

    /// Lowers a closure's body here with its parameters bound to `args`, seeing the
    /// variables it captured where it was defined; `None` when it is not followed.
    fn inline_closure(
        &mut self,
        c: &syn::ExprClosure,
        captured: Option<&HashMap<String, Var>>,
        args: Vec<Value>,
    ) -> Option<Value> {
        if !self.can_inline(c) {
            return None;
        }
        self.scopes.push(captured.cloned().unwrap_or_default());
        self.scopes.push(HashMap::new());
        let span = self.span(c.span());
        for (i, input) in c.inputs.iter().enumerate() {
            let v = args.get(i).cloned().unwrap_or(Value::Unknown);
            self.let_pattern(input, v, span);
        }
        self.inlining += 1;
        let v = self.expr(&c.body);
        self.inlining -= 1;
        self.scopes.pop();
        self.scopes.pop();
        Some(v)
    }

    /// What a closure that is not followed does: its captures are forgotten.
    fn closure_escapes(&mut self, e: &Expr) -> Value {
        self.expr(e);
        Value::Unknown
    }

    /// A host thread running a closure.
    fn spawn(&mut self, c: &syn::ExprClosure, e: &Expr, span: Span) -> Value {
        let saved = std::mem::take(&mut self.out);
        let v = self.inline_closure(c, None, Vec::new());
        let body = std::mem::replace(&mut self.out, saved);
        let Some(value) = v else {
            return self.closure_escapes(e);
        };
        let t = self.new_temp(TypeHint::Unknown);
        self.out.push(Stmt::Spawn {
            body,
            value,
            handle: Place::var(t),
            span,
        });
        Value::Place(Place::var(t))
    }

    /// Joins a thread; `Unknown` joins every thread spawned so far.
    fn join(&mut self, handle: Value) -> Value {
        let t = self.new_temp(TypeHint::Unknown);
        self.out.push(Stmt::Join {
            handle,
            dst: Place::var(t),
        });
        Value::Place(Place::var(t))
    }

    /// The value of a branch whose arms end in `values` (an arm that leaves it, by `return`,
    /// `break` or `continue`, does not count): one new queue or buffer when every arm makes
    /// one with the same properties, else a temporary each arm sets, which keeps a value
    /// only where the arms agree.
    fn arms_value(&mut self, arms: &mut [Vec<Stmt>], values: Vec<Value>) -> Value {
        let live: Vec<(usize, Value)> = values
            .into_iter()
            .enumerate()
            .filter(|(i, _)| {
                !matches!(
                    arms[*i].last(),
                    Some(Stmt::Return { .. } | Stmt::Break | Stmt::Continue)
                )
            })
            .collect();
        let Some((_, first)) = live.first() else {
            return Value::Unknown;
        };
        let agree = |x: &Value| match (first, x) {
            (
                Value::New(NewObject::Queue {
                    out_of_order: a, ..
                }),
                Value::New(NewObject::Queue {
                    out_of_order: b, ..
                }),
            ) => a == b,
            (
                Value::New(NewObject::Buffer { host_init: None }),
                Value::New(NewObject::Buffer { host_init: None }),
            ) => true,
            _ => false,
        };
        if live.iter().all(|(_, v)| agree(v)) {
            return match first {
                Value::New(NewObject::Queue {
                    device,
                    out_of_order,
                }) => Value::New(NewObject::Queue {
                    device: live
                        .iter()
                        .all(|(_, v)| matches!(v, Value::New(NewObject::Queue { device: d, .. }) if d == device))
                        .then(|| device.clone())
                        .flatten(),
                    out_of_order: *out_of_order,
                }),
                other => other.clone(),
            };
        }
        if live.iter().all(|(_, v)| !matches!(v, Value::Place(_))) {
            return Value::Unknown;
        }
        let t = self.new_temp(TypeHint::Unknown);
        for (i, v) in live {
            arms[i].push(Stmt::Assign {
                dst: Place::var(t),
                value: v,
                span: Span::default(),
            });
        }
        Value::Place(Place::var(t))
    }

    /// Whether an expression is an iterator over a list or a range, item by item.
    fn is_iter_chain(&self, e: &Expr) -> bool {
        match e {
            Expr::MethodCall(mc) => matches!(
                mc.method.to_string().as_str(),
                "iter" | "iter_mut" | "into_iter" | "enumerate" | "zip" | "copied" | "cloned"
            ),
            Expr::Range(_) => true,
            Expr::Paren(p) => self.is_iter_chain(&p.expr),
            Expr::Path(p) => p
                .path
                .get_ident()
                .and_then(|i| self.lookup(&i.to_string()))
                .is_some_and(|v| self.mapped.contains(&v)),
            _ => false,
        }
    }

    /// `a.or_else(|_| b)`, `a.unwrap_or_else(|_| b)`: either value. Two new objects of one
    /// kind and properties are one new object whichever is made.
    fn or_else(&mut self, recv: Value, c: &syn::ExprClosure, e: &Expr) -> Value {
        let saved = std::mem::take(&mut self.out);
        let v = self.inline_closure(c, None, vec![Value::Unknown]);
        let mut arm = std::mem::replace(&mut self.out, saved);
        let Some(v) = v else {
            self.forget(vec![recv], Span::default());
            return self.closure_escapes(e);
        };
        let same = match (&recv, &v) {
            (
                Value::New(NewObject::Queue {
                    device: a,
                    out_of_order: x,
                }),
                Value::New(NewObject::Queue {
                    device: b,
                    out_of_order: y,
                }),
            ) if x == y => Some(Value::New(NewObject::Queue {
                device: if a == b { a.clone() } else { None },
                out_of_order: *x,
            })),
            (
                Value::New(NewObject::Buffer { host_init: None }),
                Value::New(NewObject::Buffer { host_init: None }),
            ) => Some(v.clone()),
            _ => None,
        };
        if let Some(one) = same {
            self.out.push(Stmt::Branch(vec![arm, Vec::new()]));
            return one;
        }
        let t = self.new_temp(TypeHint::Unknown);
        arm.push(Stmt::Assign {
            dst: Place::var(t),
            value: v,
            span: Span::default(),
        });
        let first = vec![Stmt::Assign {
            dst: Place::var(t),
            value: recv,
            span: Span::default(),
        }];
        self.out.push(Stmt::Branch(vec![first, arm]));
        Value::Place(Place::var(t))
    }

    /// What an iterable walks: its sources and the shape of each item.
    fn iter_shape(&mut self, e: &Expr, sources: &mut Vec<EachSource>) -> Shape {
        match e {
            Expr::Reference(r) => return self.iter_shape(&r.expr, sources),
            Expr::Paren(p) => return self.iter_shape(&p.expr, sources),
            Expr::MethodCall(mc) => match (mc.method.to_string().as_str(), mc.args.len()) {
                ("iter" | "iter_mut" | "into_iter" | "copied" | "cloned" | "by_ref", 0) => {
                    return self.iter_shape(&mc.receiver, sources)
                }
                ("enumerate", 0) => {
                    let s = self.iter_shape(&mc.receiver, sources);
                    return Shape::Pair(Box::new(Shape::Count), Box::new(s));
                }
                ("zip", 1) => {
                    let a = self.iter_shape(&mc.receiver, sources);
                    let b = self.iter_shape(&mc.args[0], sources);
                    return Shape::Pair(Box::new(a), Box::new(b));
                }
                _ => {}
            },
            Expr::Range(r)
                if matches!(r.limits, syn::RangeLimits::HalfOpen(_))
                    && r.start.as_deref().is_none_or(|x| int_lit(x) == Some(0))
                    && r.end.is_some() =>
            {
                if let Some(end) = &r.end {
                    let src = match strip(end) {
                        Expr::MethodCall(m) if m.method == "len" && m.args.is_empty() => {
                            EachSource::UptoLen(self.expr(&m.receiver))
                        }
                        _ => EachSource::Upto(self.expr(end)),
                    };
                    sources.push(src);
                    return Shape::Member(sources.len() - 1);
                }
            }
            _ => {}
        }
        let v = self.expr(e);
        sources.push(EachSource::Members(v));
        Shape::Member(sources.len() - 1)
    }

    /// Binds a loop pattern to the shape of the items.
    fn bind_each(&mut self, pat: &Pat, shape: Option<&Shape>, binds: &mut Vec<(Place, EachPart)>) {
        match (pat, shape) {
            (Pat::Ident(pi), _) if pi.subpat.is_none() => {
                let part = match shape {
                    Some(Shape::Member(i)) => EachPart::Member(*i),
                    Some(Shape::Count) => EachPart::Count,
                    _ => EachPart::Unknown,
                };
                let v = self.bind(&pi.ident.to_string(), TypeHint::Unknown);
                binds.push((Place::var(v), part));
            }
            (Pat::Type(t), _) => self.bind_each(&t.pat, shape, binds),
            (Pat::Reference(r), _) => self.bind_each(&r.pat, shape, binds),
            (Pat::Paren(p), _) => self.bind_each(&p.pat, shape, binds),
            (Pat::Tuple(t), Some(Shape::Pair(a, b))) if t.elems.len() == 2 => {
                self.bind_each(&t.elems[0], Some(a), binds);
                self.bind_each(&t.elems[1], Some(b), binds);
            }
            _ => {
                for (name, _) in pat_idents(pat) {
                    let v = self.bind(&name, TypeHint::Unknown);
                    binds.push((Place::var(v), EachPart::Unknown));
                }
            }
        }
    }

    /// A loop over an iterable, with `pat` bound to each item; its body is a block or a
    /// closure's body. With `collect`, the body's values go to a temporary, returned.
    fn each(&mut self, iterable: &Expr, pat: &Pat, body: EachBody, collect: bool) -> Value {
        let items: Vec<String> = pat_idents(pat).into_iter().map(|(n, _)| n).collect();
        let writes_items = {
            let mut w = ItemWrites {
                items: &items,
                found: false,
            };
            match body {
                EachBody::Block(b) => w.visit_block(b),
                EachBody::Closure(e) => w.visit_expr(e),
            }
            w.found
        };
        let mut sources = Vec::new();
        let shape = self.iter_shape(iterable, &mut sources);
        let saved = std::mem::take(&mut self.out);
        self.scopes.push(HashMap::new());
        let mut binds = Vec::new();
        self.bind_each(pat, Some(&shape), &mut binds);
        let tail = match body {
            EachBody::Block(b) => {
                self.block_inline(b);
                Value::Unknown
            }
            EachBody::Closure(e) => {
                self.inlining += 1;
                let v = self.expr(e);
                self.inlining -= 1;
                v
            }
        };
        self.scopes.pop();
        let body = std::mem::replace(&mut self.out, saved);
        let dst = collect.then(|| self.new_temp(TypeHint::Unknown));
        // Host values collected are host data, as before; objects and events are a list.
        if let Some(d) =
            dst.filter(|_| !matches!(tail, Value::Scalar | Value::Int(_) | Value::Host { .. }))
        {
            self.mapped.insert(d);
        }
        self.out.push(Stmt::ForEach {
            sources,
            binds,
            body,
            tail,
            dst: dst.map(Place::var),
        });
        // Items walked mutably and written in the body (`*x *= 0.5`): after the loop, what
        // was known of the host data walked (its contents, for CLM004) no longer holds.
        let mut walked = Vec::new();
        if writes_items {
            walked_mutably(iterable, &mut walked);
        }
        for w in walked {
            if !matches!(strip(w), Expr::Path(_) | Expr::Field(_)) {
                continue;
            }
            if let Some(p) = self.place_of(w) {
                let hint = self.vars[p.var].hint;
                if matches!(hint, TypeHint::Unknown | TypeHint::Host(_)) {
                    self.forget(vec![Value::Place(p)], Span::default());
                }
            }
        }
        dst.map_or(Value::Unknown, |d| Value::Place(Place::var(d)))
    }

    /// Binds the parts of a value a pattern takes apart: tuples, struct fields, `Ok(x)`,
    /// `&x`. `false` (nothing bound) for a pattern it cannot follow.
    fn destructure(&mut self, pat: &Pat, value: &Value, span: Span) -> bool {
        let field = |value: &Value, f: String| match value {
            Value::Place(p) => {
                let mut p = p.clone();
                p.proj.push(Proj::Field(f));
                Some(Value::Place(p))
            }
            Value::Struct(fields) => fields.iter().find(|(n, _)| *n == f).map(|(_, v)| v.clone()),
            _ => None,
        };
        match pat {
            Pat::Ident(pi) if pi.subpat.is_none() => {
                let v = self.bind(&pi.ident.to_string(), TypeHint::Unknown);
                self.out.push(Stmt::Assign {
                    dst: Place::var(v),
                    value: value.clone(),
                    span,
                });
                true
            }
            Pat::Wild(_) => true,
            Pat::Reference(r) => self.destructure(&r.pat, value, span),
            Pat::Paren(p) => self.destructure(&p.pat, value, span),
            Pat::Tuple(t) => {
                let parts: Option<Vec<Value>> = match value {
                    Value::List(items) if items.len() == t.elems.len() => Some(items.clone()),
                    Value::Place(_) => (0..t.elems.len())
                        .map(|i| field(value, i.to_string()))
                        .collect(),
                    _ => None,
                };
                let Some(parts) =
                    parts.filter(|_| !t.elems.iter().any(|e| matches!(e, Pat::Rest(_))))
                else {
                    return false;
                };
                t.elems
                    .iter()
                    .zip(&parts)
                    .all(|(e, v)| self.destructure(e, v, span))
            }
            Pat::Struct(ps) => ps.fields.iter().all(|f| {
                let name = match &f.member {
                    syn::Member::Named(i) => i.to_string(),
                    syn::Member::Unnamed(i) => i.index.to_string(),
                };
                match field(value, name) {
                    Some(v) => self.destructure(&f.pat, &v, span),
                    None => false,
                }
            }),
            _ => false,
        }
    }

    fn let_pattern(&mut self, pat: &Pat, value: Value, span: Span) {
        let hint = pat_type(pat).map_or(TypeHint::Unknown, type_hint);
        let idents = pat_idents(pat);
        if matches!(pat, Pat::Tuple(_) | Pat::Struct(_)) {
            // Bound in order; on a pattern it cannot follow, what was bound is rebound
            // below to an unknown value.
            if self.destructure(pat, &value, span) {
                return;
            }
        }
        if idents.len() != 1 || !idents[0].1 {
            self.forget(vec![value.clone()], span);
        }
        for (name, whole) in idents {
            let v = self.bind(&name, hint);
            let value = if whole { value.clone() } else { Value::Unknown };
            self.out.push(Stmt::Assign {
                dst: Place::var(v),
                value,
                span,
            });
        }
    }

    /// The place an assignment target names, if it is one.
    fn place_of(&mut self, e: &Expr) -> Option<Place> {
        match self.expr(e) {
            Value::Place(p) => Some(p),
            _ => None,
        }
    }

    fn expr(&mut self, e: &Expr) -> Value {
        match e {
            Expr::Path(p) => {
                // `None`, `None::<&Buffer<f32>>`: no object (ocl's placeholder argument).
                if p.path.segments.len() == 1 && p.path.segments[0].ident == "None" {
                    return Value::Null;
                }
                if p.path.segments.len() == 1 && p.qself.is_none() {
                    let name = p.path.segments[0].ident.to_string();
                    if let Some(v) = self.lookup(&name) {
                        // A closure handed on: what it captures may be used anywhere.
                        if let Some(c) = self.closures.get(&v) {
                            let captured = c
                                .captured
                                .values()
                                .map(|x| Value::Place(Place::var(*x)))
                                .collect();
                            let span = self.span(spans::expr(e));
                            self.forget(captured, span);
                        }
                        return Value::Place(Place::var(v));
                    }
                    if let Some(Const::Int(n)) = self.cx.consts.get(&name) {
                        return Value::Int(*n);
                    }
                }
                Value::Scalar
            }
            Expr::Lit(l) => match &l.lit {
                syn::Lit::Int(i) => i.base10_parse().map_or(Value::Scalar, Value::Int),
                syn::Lit::Bool(b) => Value::Int(u64::from(b.value)),
                _ => Value::Scalar,
            },
            Expr::Reference(r) => self.expr(&r.expr),
            Expr::Paren(p) => self.expr(&p.expr),
            Expr::Group(g) => self.expr(&g.expr),
            Expr::Unary(u) => {
                let v = self.expr(&u.expr);
                match u.op {
                    syn::UnOp::Deref(_) => v,
                    _ => Value::Scalar,
                }
            }
            Expr::Try(t) => self.expr(&t.expr),
            Expr::Await(a) => self.expr(&a.base),
            Expr::Cast(c) => {
                let v = self.expr(&c.expr);
                match &*c.ty {
                    Type::Ptr(_) | Type::Infer(_) => v,
                    Type::Path(p) if p.path.is_ident("cl_mem") || p.path.is_ident("cl_event") => v,
                    _ => match v {
                        Value::Int(n) => Value::Int(n),
                        _ => Value::Scalar,
                    },
                }
            }
            Expr::Field(f) => {
                let base = self.expr(&f.base);
                match base {
                    Value::Place(mut p) => {
                        let name = match &f.member {
                            syn::Member::Named(i) => i.to_string(),
                            syn::Member::Unnamed(i) => i.index.to_string(),
                        };
                        p.proj.push(Proj::Field(name));
                        Value::Place(p)
                    }
                    _ => Value::Unknown,
                }
            }
            Expr::Index(ix) => {
                let base = self.expr(&ix.expr);
                if let Expr::Range(r) = &*ix.index {
                    for x in r.start.iter().chain(r.end.iter()) {
                        self.expr(x);
                    }
                    let base = match base {
                        Value::Place(p) => Some(p),
                        // `&[e0, e1][..]`: the list itself (a wait list of events).
                        Value::List(items) if r.start.is_none() && r.end.is_none() => {
                            return Value::List(items)
                        }
                        _ => None,
                    };
                    return Value::Host {
                        kind: HostKind::Slice,
                        base,
                    };
                }
                let idx = self.expr(&ix.index);
                match base {
                    Value::Place(mut p) => {
                        p.proj.push(match idx {
                            Value::Int(n) => Proj::Index(n),
                            Value::Place(i) if i.proj.is_empty() => Proj::Var(i.var),
                            _ => Proj::AnyIndex,
                        });
                        Value::Place(p)
                    }
                    _ => Value::Unknown,
                }
            }
            Expr::Array(a) => {
                let items: Vec<Value> = a.elems.iter().map(|x| self.expr(x)).collect();
                list_or_host(
                    items,
                    HostKind::Array {
                        len: Some(a.elems.len() as u64),
                    },
                )
            }
            Expr::Repeat(r) => {
                self.expr(&r.expr);
                let len = match self.expr(&r.len) {
                    Value::Int(n) => Some(n),
                    _ => None,
                };
                Value::Host {
                    kind: HostKind::Array { len },
                    base: None,
                }
            }
            Expr::Tuple(t) => {
                let items: Vec<Value> = t.elems.iter().map(|x| self.expr(x)).collect();
                let span = self.span(spans::expr(e));
                self.forget(items, span);
                Value::Unknown
            }
            Expr::Struct(s) if s.rest.is_none() => {
                let fields = s
                    .fields
                    .iter()
                    .map(|f| {
                        let name = match &f.member {
                            syn::Member::Named(i) => i.to_string(),
                            syn::Member::Unnamed(i) => i.index.to_string(),
                        };
                        (name, self.expr(&f.expr))
                    })
                    .collect();
                Value::Struct(fields)
            }
            Expr::Struct(s) => {
                let items: Vec<Value> = s.fields.iter().map(|f| self.expr(&f.expr)).collect();
                if let Some(r) = &s.rest {
                    self.expr(r);
                }
                let span = self.span(s.span());
                self.forget(items, span);
                Value::Unknown
            }
            Expr::Binary(b) => {
                let l = self.expr(&b.left);
                self.expr(&b.right);
                if is_assign_op(&b.op) {
                    let span = self.span(spans::expr(e));
                    self.forget(vec![l], span);
                }
                Value::Scalar
            }
            Expr::Assign(a) => {
                let v = self.expr(&a.right);
                let span = self.span(spans::expr(e));
                match &*a.left {
                    Expr::Index(ix) => {
                        let base = self.expr(&ix.expr);
                        self.expr(&ix.index);
                        self.forget(vec![base], span);
                    }
                    Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => {
                        let base = self.expr(&u.expr);
                        self.forget(vec![base], span);
                    }
                    Expr::Infer(_) => {}
                    left => {
                        if let Some(dst) = self.place_of(left) {
                            self.out.push(Stmt::Assign {
                                dst,
                                value: v,
                                span,
                            });
                        }
                    }
                }
                Value::Unknown
            }
            Expr::Range(r) => {
                for x in r.start.iter().chain(r.end.iter()) {
                    self.expr(x);
                }
                Value::Scalar
            }
            Expr::Block(b) => self.block_inline(&b.block),
            Expr::Unsafe(u) => self.block_inline(&u.block),
            Expr::Const(c) => self.block_inline(&c.block),
            Expr::If(i) => {
                self.scopes.push(HashMap::new());
                let saved = std::mem::take(&mut self.out);
                self.cond(&i.cond);
                let then_value = self.block_inline(&i.then_branch);
                let then_arm = std::mem::replace(&mut self.out, saved);
                self.scopes.pop();
                let (else_arm, else_value) = match &i.else_branch {
                    Some((_, e)) => {
                        let saved = std::mem::take(&mut self.out);
                        self.scopes.push(HashMap::new());
                        let v = self.expr(e);
                        self.scopes.pop();
                        (std::mem::replace(&mut self.out, saved), v)
                    }
                    None => (Vec::new(), Value::Unknown),
                };
                // The condition is evaluated before either arm; a `let` in it binds in the
                // then-arm only, so the condition is lowered inside that arm.
                let mut arms = vec![then_arm, else_arm];
                let v = self.arms_value(&mut arms, vec![then_value, else_value]);
                self.out.push(Stmt::Branch(arms));
                v
            }
            Expr::Match(m) => {
                let scrutinee = self.expr(&m.expr);
                let mut arms = Vec::new();
                let mut values = Vec::new();
                for arm in &m.arms {
                    let saved = std::mem::take(&mut self.out);
                    self.scopes.push(HashMap::new());
                    let whole = self.let_pattern_unknown(&arm.pat, &scrutinee);
                    if let Some((_, g)) = &arm.guard {
                        self.expr(g);
                    }
                    let v = self.expr(&arm.body);
                    // `Ok(q) => q`: the scrutinee itself.
                    let v = match (&v, &scrutinee) {
                        (Value::Place(p), Value::New(_))
                            if whole == Some(Place::var(p.var)) && p.proj.is_empty() =>
                        {
                            scrutinee.clone()
                        }
                        _ => v,
                    };
                    values.push(v);
                    self.scopes.pop();
                    arms.push(std::mem::replace(&mut self.out, saved));
                }
                if arms.is_empty() {
                    arms.push(Vec::new());
                    values.push(Value::Unknown);
                }
                let v = self.arms_value(&mut arms, values);
                self.out.push(Stmt::Branch(arms));
                v
            }
            Expr::ForLoop(f) => {
                self.each(&f.expr, &f.pat, EachBody::Block(&f.body), false);
                Value::Unknown
            }
            Expr::While(w) => {
                let saved = std::mem::take(&mut self.out);
                self.scopes.push(HashMap::new());
                self.cond(&w.cond);
                let body = self.block_separate(&w.body);
                self.out.push(Stmt::Branch(vec![body, vec![Stmt::Break]]));
                self.scopes.pop();
                let body = std::mem::replace(&mut self.out, saved);
                self.out.push(Stmt::Loop(body));
                Value::Unknown
            }
            Expr::Loop(l) => {
                let body = self.block_separate(&l.body);
                self.out.push(Stmt::Loop(body));
                Value::Unknown
            }
            Expr::Break(b) => {
                if let Some(x) = &b.expr {
                    self.expr(x);
                }
                self.out.push(Stmt::Break);
                Value::Unknown
            }
            Expr::Continue(_) => {
                self.out.push(Stmt::Continue);
                Value::Unknown
            }
            Expr::Return(r) => {
                let value = match &r.expr {
                    Some(x) => self.expr(x),
                    None => Value::Unknown,
                };
                self.out.push(Stmt::Return { value });
                Value::Unknown
            }
            Expr::Closure(c) => {
                let captured: Vec<Value> = expr_idents(&c.body)
                    .iter()
                    .filter_map(|i| self.lookup(i))
                    .map(|v| Value::Place(Place::var(v)))
                    .collect();
                let span = self.span(c.span());
                self.forget(captured, span);
                Value::Unknown
            }
            Expr::Macro(m) => self.mac(&m.mac),
            Expr::MethodCall(mc) => self.method_call(mc),
            Expr::Call(c) => self.call(c),
            Expr::Let(l) => {
                let v = self.expr(&l.expr);
                let span = self.span(l.span());
                self.let_pattern(&l.pat, v, span);
                Value::Scalar
            }
            _ => Value::Unknown,
        }
    }

    /// An `if`/`while` condition: `let` bindings are visible in the following block.
    fn cond(&mut self, e: &Expr) {
        self.expr(e);
    }

    /// Binds a `match` arm's pattern; returns the variable bound to the whole scrutinee.
    fn let_pattern_unknown(&mut self, pat: &Pat, scrutinee: &Value) -> Option<Place> {
        let span = self.span(spans::pat(pat));
        let mut whole_var = None;
        for (name, whole) in pat_idents(pat) {
            let v = self.bind(&name, TypeHint::Unknown);
            if whole {
                whole_var = Some(Place::var(v));
            }
            let value = if whole {
                scrutinee.clone()
            } else {
                Value::Unknown
            };
            self.out.push(Stmt::Assign {
                dst: Place::var(v),
                value,
                span,
            });
        }
        whole_var
    }

    fn mac(&mut self, m: &syn::Macro) -> Value {
        let name = m
            .path
            .segments
            .last()
            .map(|s| s.ident.to_string())
            .unwrap_or_default();
        let span = self.span(spans::mac(m));
        if name == "vec" {
            let repeat = |input: syn::parse::ParseStream| -> syn::Result<(Expr, Expr)> {
                let e: Expr = input.parse()?;
                input.parse::<syn::Token![;]>()?;
                Ok((e, input.parse()?))
            };
            if let Ok((e, n)) = m.parse_body_with(repeat) {
                self.expr(&e);
                self.expr(&n);
                return Value::Host {
                    kind: HostKind::Vec,
                    base: None,
                };
            }
            if let Ok(items) =
                m.parse_body_with(Punctuated::<Expr, syn::Token![,]>::parse_terminated)
            {
                let items: Vec<Value> = items.iter().map(|x| self.expr(x)).collect();
                return list_or_host(items, HostKind::Vec);
            }
        }
        if name == "include_str" {
            return Value::Scalar;
        }
        // Edition 2015's `try!(x)` is `x?`.
        if name == "r#try" {
            if let Ok(e) = m.parse_body::<Expr>() {
                return self.expr(&e);
            }
        }
        if READING_MACROS.contains(&name.as_str()) {
            if let Ok(items) =
                m.parse_body_with(Punctuated::<Expr, syn::Token![,]>::parse_terminated)
            {
                for x in &items {
                    self.expr(x);
                }
                return Value::Unknown;
            }
        }
        // A macro handed closures (`program_closures!(|p, ..| ..)`): their bodies are code
        // of this function, run once each.
        if let Ok(items) = m.parse_body_with(Punctuated::<Expr, syn::Token![,]>::parse_terminated) {
            if items.iter().any(|x| closure_of(x).is_some()) {
                for x in &items {
                    match closure_of(x) {
                        Some(c) => {
                            let args = vec![Value::Unknown; c.inputs.len()];
                            if self.inline_closure(c, None, args).is_none() {
                                self.closure_escapes(x);
                            }
                        }
                        None => {
                            self.expr(x);
                        }
                    }
                }
            }
        }
        let mut ids = Vec::new();
        token_idents(m.tokens.clone(), &mut ids);
        let touched: Vec<Value> = ids
            .iter()
            .filter_map(|i| self.lookup(i))
            .map(|v| Value::Place(Place::var(v)))
            .collect();
        self.forget(touched, span);
        Value::Unknown
    }

    fn method_call(&mut self, mc: &syn::ExprMethodCall) -> Value {
        let name = mc.method.to_string();
        let args: Vec<&Expr> = mc.args.iter().collect();
        let span = self.span(spans::method_call(mc));
        // `list.iter().for_each(|q| ..)`, `.map(|q| ..)`: a loop over the list.
        if let (true, [arg]) = (EACH_ADAPTERS.contains(&name.as_str()), args.as_slice()) {
            if let Some(c) = closure_of(arg).filter(|c| c.inputs.len() == 1) {
                if self.is_iter_chain(&mc.receiver) && self.can_inline(c) {
                    return self.each(
                        &mc.receiver,
                        &c.inputs[0],
                        EachBody::Closure(&c.body),
                        name == "map",
                    );
                }
            }
        }
        let recv = self.expr(&mc.receiver);
        match (name.as_str(), args.as_slice()) {
            // `thread::Builder::new().spawn(|| ..)`, a scope's `s.spawn(|| ..)`.
            ("spawn", [arg]) => {
                if let Some(c) = closure_of(arg) {
                    return self.spawn(c, arg, span);
                }
            }
            ("join", []) => return self.join(recv),
            ("or_else" | "unwrap_or_else", [arg]) => {
                if let Some(c) = closure_of(arg).filter(|c| c.inputs.len() <= 1) {
                    return self.or_else(recv, c, arg);
                }
            }
            _ => {}
        }
        match (name.as_str(), args.len()) {
            (
                "get" | "get_mut" | "clone" | "as_ref" | "as_mut" | "borrow" | "borrow_mut"
                | "unwrap" | "unwrap_unchecked" | "deref" | "deref_mut" | "as_core" | "cast"
                | "cast_mut" | "cast_const",
                0,
            )
            | ("expect", 1) => {
                for a in &args {
                    self.expr(a);
                }
                return recv;
            }
            ("as_ptr" | "as_mut_ptr", 0) if matches!(recv, Value::List(_)) => return recv,
            ("as_ptr" | "as_mut_ptr", 0) => {
                return Value::Host {
                    kind: HostKind::Pointer,
                    base: match recv {
                        Value::Place(p) => Some(p),
                        _ => None,
                    },
                };
            }
            ("to_vec", 0) => {
                return Value::Host {
                    kind: HostKind::Vec,
                    base: None,
                }
            }
            // What a `map` over a list yields.
            ("collect", 0) if matches!(&recv, Value::Place(p) if p.proj.is_empty() && self.mapped.contains(&p.var)) =>
            {
                return recv;
            }
            ("collect", 0) => {
                let is_vec = mc.turbofish.as_ref().is_some_and(|t| {
                    t.args.iter().any(|a| matches!(a, syn::GenericArgument::Type(Type::Path(p)) if p.path.segments.last().is_some_and(|s| s.ident == "Vec")))
                });
                return if is_vec {
                    Value::Host {
                        kind: HostKind::Vec,
                        base: None,
                    }
                } else {
                    Value::Unknown
                };
            }
            ("push", 1) => {
                let item = self.expr(args[0]);
                if let Value::Place(list) = recv {
                    self.out.push(Stmt::Push { list, item });
                }
                return Value::Unknown;
            }
            ("len" | "is_empty", 0) => return Value::Scalar,
            _ => {}
        }
        // A method of this file's impl, called on `self`.
        if let (Expr::Path(p), Some(ty)) = (&*mc.receiver, &self.self_ty) {
            if p.path.is_ident("self") {
                let callee = qualify(self.prefix.as_deref(), &format!("{ty}::{name}"));
                if self.cx.defined.contains(&callee) {
                    let vals = args.iter().map(|a| self.expr(a)).collect();
                    return self.emit_call(callee, Some(recv), vals, span);
                }
            }
        }
        if let Some(api) = Bindings::get().method(&name, args.len()) {
            return self.apply(api, Some((recv, &mc.receiver)), &args, span);
        }
        let arg_vals: Vec<Value> = args.iter().map(|a| self.expr(a)).collect();
        if READ_ONLY_METHODS.contains(&name.as_str()) {
            return Value::Unknown;
        }
        // A method of a struct of the crate, called on `self` or on a parameter of that
        // type: another file may define it.
        let recv_ty = match &recv {
            Value::Place(p) if p.proj.is_empty() => self.vars[p.var]
                .ty
                .clone()
                .or_else(|| self.struct_of.get(&p.var).cloned()),
            _ => None,
        };
        if let Some(ty) = recv_ty {
            let callee = qualify(self.prefix.as_deref(), &format!("{ty}::{name}"));
            return self.emit_call(callee, Some(recv), arg_vals, span);
        }
        let mut all = vec![recv];
        all.extend(arg_vals);
        self.forget(all, span);
        Value::Unknown
    }

    fn call(&mut self, c: &syn::ExprCall) -> Value {
        let span = self.span(spans::call(c));
        let args: Vec<&Expr> = c.args.iter().collect();
        // A closure called in place, or a local bound to one.
        let bound = match &*c.func {
            Expr::Path(p) if p.path.segments.len() == 1 && p.qself.is_none() => self
                .lookup(&p.path.segments[0].ident.to_string())
                .and_then(|v| self.closures.get(&v).cloned()),
            _ => None,
        };
        let closure = match (&bound, closure_of(&c.func)) {
            (Some(b), _) => Some((&b.expr, Some(&b.captured))),
            (None, Some(x)) => Some((x, None)),
            _ => None,
        };
        if let Some((x, captured)) = closure {
            let vals: Vec<Value> = args.iter().map(|a| self.expr(a)).collect();
            if let Some(v) = self.inline_closure(x, captured, vals.clone()) {
                return v;
            }
            let f = self.expr(&c.func);
            let mut all = vals;
            all.push(f);
            self.forget(all, span);
            return Value::Unknown;
        }
        let Some(segs) = path_segments(&c.func) else {
            let f = self.expr(&c.func);
            let mut all: Vec<Value> = args.iter().map(|a| self.expr(a)).collect();
            all.push(f);
            self.forget(all, span);
            return Value::Unknown;
        };
        let last = segs.last().map(String::as_str).unwrap_or("");
        match (last, args.len()) {
            // `ptr::null()`, not a constructor such as ocl-core's `Event::null()`.
            ("null" | "null_mut", 0) if segs.len() == 1 || segs[segs.len() - 2] == "ptr" => {
                return Value::Null
            }
            ("Some" | "Ok", 1) if segs.len() == 1 => return self.expr(args[0]),
            // `slice::from_ref(&buf)`: a list of one (ocl-core's buffers to migrate).
            ("from_ref" | "from_mut", 1) if segs.len() >= 2 && segs[segs.len() - 2] == "slice" => {
                return Value::List(vec![self.expr(args[0])]);
            }
            ("new", 1)
                if segs.len() >= 2
                    && matches!(segs[segs.len() - 2].as_str(), "Box" | "Rc" | "Arc") =>
            {
                return self.expr(args[0]);
            }
            ("new" | "with_capacity", _) if segs.len() >= 2 && segs[segs.len() - 2] == "Vec" => {
                for a in &args {
                    self.expr(a);
                }
                return Value::List(Vec::new());
            }
            _ => {}
        }
        let segs: Vec<String> = match self.cx.uses.names.get(&segs[0]) {
            Some(full) => full.iter().chain(&segs[1..]).cloned().collect(),
            None => segs,
        };
        // `thread::spawn(|| ..)`, `thread::scope(|s| ..)`.
        let in_thread = segs.len() >= 2 && segs[segs.len() - 2] == "thread";
        if let (true, [arg]) = (in_thread, args.as_slice()) {
            if let Some(x) = closure_of(arg) {
                match segs[segs.len() - 1].as_str() {
                    "spawn" => return self.spawn(x, arg, span),
                    "scope" => {
                        if let Some(v) = self.inline_closure(x, None, vec![Value::Unknown]) {
                            // The scope joins every thread spawned in it.
                            self.join(Value::Unknown);
                            return v;
                        }
                        return self.closure_escapes(arg);
                    }
                    _ => {}
                }
            }
        }
        // A function of this file: `helper(..)`, `Self::helper(..)`, `Halo::helper(..)`.
        let local = match segs.as_slice() {
            [f] => Some(f.clone()),
            [t, f] if t == "Self" => self.self_ty.as_ref().map(|ty| format!("{ty}::{f}")),
            [t, f] => Some(format!("{t}::{f}")),
            _ => None,
        }
        .map(|n| qualify(self.prefix.as_deref(), &n))
        .filter(|n| self.cx.defined.contains(n));
        if let Some(callee) = local {
            let vals = args.iter().map(|a| self.expr(a)).collect();
            return self.emit_call(callee, None, vals, span);
        }
        if let Some(api) = self.function_api(&segs, args.len()) {
            return self.apply(api, None, &args, span);
        }
        let all: Vec<Value> = args.iter().map(|a| self.expr(a)).collect();
        if let Some(callee) = self.crate_path(&segs) {
            return self.emit_call(callee, None, all, span);
        }
        self.forget(all, span);
        Value::Unknown
    }

    /// The path in the crate of a call's path (after `use` imports) that may name a
    /// function of another file of the crate: `crate::a::f`, `self::f`, `super::f`, `m::f`
    /// for a module `m` this file declares, `Self::f` and `Type::f`. Other paths (other
    /// crates, variables) give `None`.
    fn crate_path(&self, segs: &[String]) -> Option<String> {
        let module: Vec<&str> = self
            .prefix
            .as_deref()
            .map_or_else(Vec::new, |p| p.split("::").collect());
        let first = segs.first()?.as_str();
        let (base, rest): (&[&str], Vec<&str>) = match first {
            "crate" => (&[], segs[1..].iter().map(String::as_str).collect()),
            "self" => (&module, segs[1..].iter().map(String::as_str).collect()),
            "super" => {
                let up = segs.iter().take_while(|s| *s == "super").count();
                let keep = module.len().checked_sub(up)?;
                (
                    &module[..keep],
                    segs[up..].iter().map(String::as_str).collect(),
                )
            }
            "Self" => {
                let ty = self.self_ty.as_deref()?;
                let rest = std::iter::once(ty).chain(segs[1..].iter().map(String::as_str));
                (&module, rest.collect())
            }
            _ if self
                .cx
                .modules
                .contains(&qualify(self.prefix.as_deref(), first))
                || (segs.len() == 2 && first.starts_with(|c: char| c.is_ascii_uppercase())) =>
            {
                (&module, segs.iter().map(String::as_str).collect())
            }
            _ => return None,
        };
        if rest.is_empty()
            || rest
                .iter()
                .any(|s| matches!(*s, "crate" | "self" | "super"))
        {
            return None;
        }
        Some(
            base.iter()
                .copied()
                .chain(rest)
                .collect::<Vec<_>>()
                .join("::"),
        )
    }

    /// The modeled function a call path names. A bare name is looked up first under the
    /// modules of the file's glob imports, so that `use cl3::command_queue::*` and
    /// `use ocl_core::*` each pick their own binding's function of that name; a row that
    /// holds only under its crate's modules is found only that way.
    fn function_api(&self, segs: &[String], arity: usize) -> Option<&'static Api> {
        let b = Bindings::get();
        if let [name] = segs {
            let under_glob = self.cx.uses.globs.iter().find_map(|g| {
                let full: Vec<String> = g.iter().chain([name]).cloned().collect();
                b.function(&full, arity).filter(|a| a.name.contains("::"))
            });
            if under_glob.is_some() {
                return under_glob;
            }
        }
        b.function(segs, arity)
    }

    /// Lowers a call to a modeled API.
    fn apply(
        &mut self,
        api: &Api,
        recv: Option<(Value, &Expr)>,
        args: &[&Expr],
        span: Span,
    ) -> Value {
        let mut vals: Vec<Value> = args.iter().map(|a| self.expr(a)).collect();
        vals.resize(api.args.len().max(vals.len()), Value::Unknown);
        let role_arg = |role: Role| api.arg_index(role).and_then(|i| args.get(i).copied());
        let role_val = |role: Role| {
            api.arg_index(role)
                .map_or(Value::Unknown, |i| vals[i].clone())
        };
        let recv_val = recv.as_ref().map_or(Value::Unknown, |(v, _)| v.clone());
        match api.effect {
            Effect::Command(kind) => {
                let (queue, queue_expr) = match (&api.receiver, &recv) {
                    (Some(Role::Queue), Some((v, e))) => (v.clone(), Some(*e)),
                    _ => (role_val(Role::Queue), role_arg(Role::Queue)),
                };
                let flags_expr = role_arg(Role::MigrateFlags);
                let to_host = flags_expr.is_some_and(is_host_flag);
                // A mapping for writing is a write of the buffer: "If a memory object is
                // currently mapped for writing, the application must ensure that the memory
                // object is unmapped before any enqueued kernels or commands that read from or
                // write to this memory object [..] begin execution" (OpenCL 3.0, 5.5.3).
                let map_write = role_arg(Role::MapFlags).is_some_and(|e| {
                    mentions_any(e, MAP_WRITE) || int_lit(e).is_some_and(|f| f & 6 != 0)
                });
                let whole = role_arg(Role::Offset).is_some_and(|e| int_lit(e) == Some(0));
                let host = api
                    .args
                    .iter()
                    .position(|r| matches!(r, Role::Host { .. }))
                    .map(|i| vals[i].clone());
                let mut buffers = Vec::new();
                for (i, role) in api.args.iter().enumerate() {
                    match role {
                        Role::Buffer(access) => buffers.push(BufferUse {
                            buffer: vals[i].clone(),
                            access: if map_write { Access::Write } else { *access },
                            whole,
                            host: host.clone(),
                        }),
                        Role::Buffers(_) => {
                            let items = match &vals[i] {
                                Value::List(items) => items.clone(),
                                v => vec![v.clone()],
                            };
                            for b in items {
                                buffers.push(BufferUse {
                                    buffer: b,
                                    access: Access::Migrate { to_host },
                                    whole: true,
                                    host: None,
                                });
                            }
                        }
                        _ => {}
                    }
                }
                let blocking = match role_arg(Role::Blocking) {
                    Some(e) => blocking_of(e),
                    None if api.blocks => Blocking::Yes,
                    None => Blocking::No,
                };
                let (waits, wait_expr) = if let Some(i) = api.arg_index(Role::WaitPtr) {
                    // A pointer-and-count pair: a zero count or a null pointer is no wait list.
                    let none = role_arg(Role::WaitCount).is_some_and(|e| int_lit(e) == Some(0))
                        || vals[i] == Value::Null;
                    let w = if none {
                        Vec::new()
                    } else {
                        vec![vals[i].clone()]
                    };
                    (Some(w), args.get(i).copied())
                } else {
                    match api.arg_index(Role::Waits) {
                        Some(i) if i < args.len() => {
                            (Some(vec![vals[i].clone()]), args.get(i).copied())
                        }
                        Some(_) => (None, None),
                        None => (Some(Vec::new()), None),
                    }
                };
                // An `&mut event` out-parameter receives the event; the call returns a status.
                // A pointer handed in by the caller writes the event where the caller keeps
                // it: it is not this function's to release.
                let out = api
                    .arg_index(Role::EventOut)
                    .map(|i| match (&vals[i], args.get(i)) {
                        (Value::Place(p), Some(e)) if is_mut_borrow(e) => Some(p.clone()),
                        _ => None,
                    });
                let id = self.cx.next_cmd;
                self.cx.next_cmd += 1;
                let cmd = Command {
                    id,
                    api: api
                        .name
                        .rsplit("::")
                        .next()
                        .unwrap_or(&api.name)
                        .to_string(),
                    binding: api.binding.clone(),
                    kind,
                    queue,
                    queue_arg: queue_expr.map(|e| self.arg_span(e)),
                    buffers,
                    kernel: api.arg_index(Role::Kernel).map(|i| vals[i].clone()),
                    waits,
                    wait_arg: wait_expr.map(|e| self.arg_span(e)),
                    blocking,
                    flags_arg: flags_expr.map(|e| self.arg_span(e)),
                    raw_event: api.raw_event,
                    span,
                };
                match out {
                    Some(event) => {
                        self.out.push(Stmt::Enqueue { cmd, event });
                        if kind == CommandKind::Read {
                            self.forget(host.into_iter().collect(), span);
                        }
                        Value::Scalar
                    }
                    None => self.enqueue(cmd, host, kind),
                }
            }
            Effect::LaunchEnqueue => {
                let id = self.cx.next_cmd;
                self.cx.next_cmd += 1;
                let queue_expr = role_arg(Role::Queue);
                let cmd = Command {
                    id,
                    api: api.name.clone(),
                    binding: api.binding.clone(),
                    kind: CommandKind::Kernel,
                    queue: role_val(Role::Queue),
                    queue_arg: queue_expr.map(|e| self.arg_span(e)),
                    buffers: Vec::new(),
                    kernel: Some(recv_val),
                    waits: Some(Vec::new()),
                    wait_arg: None,
                    blocking: Blocking::No,
                    flags_arg: None,
                    raw_event: false,
                    span,
                };
                self.enqueue(cmd, None, CommandKind::Kernel)
            }
            Effect::New(kind) => {
                let obj = match kind {
                    NewKind::Context => NewObject::Context,
                    NewKind::Queue => NewObject::Queue {
                        device: api
                            .arg_index(Role::Device)
                            .map(|i| Box::new(vals[i].clone())),
                        out_of_order: role_arg(Role::QueueProps)
                            .is_some_and(|e| mentions_any(e, OUT_OF_ORDER)),
                    },
                    NewKind::Buffer => {
                        let copies =
                            role_arg(Role::MemFlags).is_some_and(|e| mentions_any(e, FROM_HOST));
                        NewObject::Buffer {
                            host_init: if copies {
                                Some(Box::new(role_val(Role::HostPtr)))
                            } else {
                                None
                            },
                        }
                    }
                    NewKind::Program => NewObject::Program {
                        source: role_arg(Role::Source)
                            .and_then(|e| self.source_text(e))
                            .or_else(|| role_arg(Role::Sources).and_then(|e| self.sources_text(e))),
                    },
                    NewKind::Kernel => NewObject::Kernel {
                        program: Box::new(role_val(Role::Program)),
                        name: role_arg(Role::KernelName).and_then(|e| self.str_value(e)),
                    },
                    NewKind::Launch => NewObject::Launch {
                        kernel: Box::new(role_val(Role::Kernel)),
                    },
                    NewKind::UserEvent => NewObject::UserEvent { raw: api.raw_event },
                    NewKind::Event => NewObject::EmptyEvent,
                    NewKind::EventList => return Value::List(Vec::new()),
                };
                Value::New(obj)
            }
            Effect::Finish => {
                let queue = match &api.receiver {
                    Some(Role::Queue) => recv_val,
                    _ => role_val(Role::Queue),
                };
                self.out.push(Stmt::Finish { queue, span });
                Value::Scalar
            }
            Effect::Wait => {
                let events = match &api.receiver {
                    Some(Role::Event) => recv_val,
                    _ => role_val(Role::Events),
                };
                self.out.push(Stmt::Wait { events, span });
                Value::Scalar
            }
            Effect::SetArg => {
                let kernel = match &api.receiver {
                    Some(Role::Kernel) => recv_val,
                    _ => role_val(Role::Kernel),
                };
                let index = match role_val(Role::ArgIndex) {
                    Value::Int(n) => Some(n),
                    _ => None,
                };
                let name = role_arg(Role::ArgIndex).and_then(|e| self.str_value(e));
                let (value, arg) = match role_arg(Role::ArgValue) {
                    Some(e) => (role_val(Role::ArgValue), self.arg_span(e)),
                    None => (
                        Value::Scalar,
                        ArgSpan {
                            span,
                            text: String::new(),
                        },
                    ),
                };
                self.out.push(Stmt::SetArg {
                    kernel,
                    index,
                    name,
                    value,
                    arg,
                    span,
                });
                Value::Scalar
            }
            Effect::LaunchArg => {
                // In a chain, the argument's own call: `.set_arg(&x)`, not the whole chain.
                let span = self.method_span(recv.as_ref().map(|(_, e)| *e), args, span);
                let launch = self.temp(recv_val);
                let (value, arg) = match role_arg(Role::ArgValue) {
                    Some(e) => (role_val(Role::ArgValue), self.arg_span(e)),
                    None => (
                        Value::Scalar,
                        ArgSpan {
                            span,
                            text: String::new(),
                        },
                    ),
                };
                self.out.push(Stmt::LaunchArg {
                    launch: launch.clone(),
                    value,
                    arg,
                    span,
                });
                launch
            }
            Effect::LaunchWait => {
                let launch = self.temp(recv_val);
                let events = if api.arg_index(Role::Event).is_some() {
                    Value::List(vec![role_val(Role::Event)])
                } else {
                    role_val(Role::Events)
                };
                self.out.push(Stmt::LaunchWait {
                    launch: launch.clone(),
                    events,
                });
                launch
            }
            Effect::Same => recv_val,
            Effect::Alias => match api.arg_index(Role::ArgValue) {
                Some(i) => vals[i].clone(),
                None => vals.first().cloned().unwrap_or(Value::Unknown),
            },
            Effect::Null => Value::Null,
            Effect::ByValue => Value::Scalar,
            Effect::Release => {
                self.out.push(Stmt::Release {
                    events: role_val(Role::Event),
                    span,
                });
                Value::Scalar
            }
            Effect::Wrap => {
                let v = vals.first().cloned().unwrap_or(Value::Unknown);
                self.out.push(Stmt::Release {
                    events: v.clone(),
                    span,
                });
                v
            }
            Effect::Op(op) => {
                let arg_spans: Vec<ArgSpan> = args.iter().map(|e| self.arg_span(e)).collect();
                // Strings (kernel names, sources) are read here; the analysis has no syn.
                let args: Vec<Value> = api
                    .args
                    .iter()
                    .zip(args)
                    .zip(vals)
                    .map(|((role, e), v)| match role {
                        Role::Source => self.source_text(e).map_or(Value::Unknown, Value::Str),
                        Role::KernelName => self.str_value(e).map_or(Value::Unknown, Value::Str),
                        _ => v,
                    })
                    .collect();
                let t = self.new_temp(TypeHint::Unknown);
                let id = self.cx.next_cmd;
                self.cx.next_cmd += 1;
                self.out.push(Stmt::Op {
                    op,
                    recv: recv_val,
                    args,
                    arg_spans,
                    dst: Place::var(t),
                    id,
                    span,
                });
                Value::Place(Place::var(t))
            }
        }
    }

    /// A call of a function defined in this file; its result goes to a temporary.
    fn emit_call(
        &mut self,
        callee: String,
        recv: Option<Value>,
        args: Vec<Value>,
        span: Span,
    ) -> Value {
        let t = self.new_temp(TypeHint::Unknown);
        self.out.push(Stmt::Call {
            callee,
            recv,
            args,
            dst: Place::var(t),
            span,
        });
        Value::Place(Place::var(t))
    }

    /// Emits an enqueue; a read fills its host data, which then changes.
    fn enqueue(&mut self, cmd: Command, host: Option<Value>, kind: CommandKind) -> Value {
        let span = cmd.span;
        let t = self.new_temp(TypeHint::Event);
        self.out.push(Stmt::Enqueue {
            cmd,
            event: Some(Place::var(t)),
        });
        if kind == CommandKind::Read {
            if let Some(h) = host {
                self.forget(vec![h], span);
            }
        }
        Value::Place(Place::var(t))
    }

    /// From the end of the receiver to the end of the call, for a method in a chain.
    fn method_span(&self, recv: Option<&Expr>, args: &[&Expr], whole: Span) -> Span {
        let start = recv.map_or(whole.start, |r| self.span(spans::expr_end(r)).end);
        let end = args
            .last()
            .map_or(whole.end, |a| self.span(spans::expr_end(a)).end + 1)
            .min(whole.end);
        let text = &self.cx.src.text;
        // Skip the whitespace and the `.` between the receiver and the method.
        let skip = text.get(start..end).map_or(0, |t| {
            t.len()
                - t.trim_start_matches(|c: char| c.is_whitespace() || c == '.')
                    .len()
        });
        Span {
            file: whole.file,
            start: start + skip,
            end: whole.end,
        }
    }

    /// A string the expression is known to hold: a literal, a constant, a local bound to one,
    /// or one of these through `CString::new`, `as_ptr`, `unwrap`, `?`.
    fn str_value(&mut self, e: &Expr) -> Option<String> {
        match strip(e) {
            Expr::Lit(l) => match &l.lit {
                syn::Lit::Str(s) => Some(s.value()),
                syn::Lit::CStr(c) => c.value().to_str().ok().map(str::to_string),
                syn::Lit::ByteStr(b) => String::from_utf8(b.value())
                    .ok()
                    .map(|s| s.trim_end_matches('\0').to_string()),
                _ => None,
            },
            Expr::Path(p) => {
                let name = p.path.segments.last()?.ident.to_string();
                if p.path.segments.len() == 1 {
                    if let Some(v) = self.lookup(&name) {
                        return self.strs.get(&v).cloned();
                    }
                }
                match self.cx.consts.get(&name) {
                    Some(Const::Str(s)) => Some(s.clone()),
                    _ => None,
                }
            }
            Expr::MethodCall(m)
                if matches!(
                    m.method.to_string().as_str(),
                    "as_ptr"
                        | "unwrap"
                        | "expect"
                        | "as_c_str"
                        | "as_str"
                        | "as_bytes"
                        | "to_string"
                        | "to_owned"
                        | "into_raw"
                ) =>
            {
                self.str_value(&m.receiver)
            }
            Expr::Try(t) => self.str_value(&t.expr),
            Expr::Call(c) if c.args.len() == 1 => {
                let segs = path_segments(&c.func)?;
                let n = segs.len();
                let ctor = n >= 2
                    && matches!(
                        (segs[n - 2].as_str(), segs[n - 1].as_str()),
                        ("CString" | "String", "new" | "from")
                    );
                if ctor {
                    self.str_value(&c.args[0])
                } else {
                    None
                }
            }
            _ => None,
        }
    }

    /// OpenCL C source text of an expression: a literal, a constant, or `include_str!`.
    fn source_text(&mut self, e: &Expr) -> Option<String> {
        if let Expr::Macro(m) = strip(e) {
            if m.mac.path.is_ident("include_str") {
                let lit: syn::LitStr = m.mac.parse_body().ok()?;
                let dir = self.cx.src.path.parent().unwrap_or(Path::new("."));
                let bytes = read_regular(&dir.join(lit.value()), MAX_FILE_BYTES).ok()?;
                return String::from_utf8(bytes).ok();
            }
        }
        self.str_value(e)
    }

    fn sources_text(&mut self, e: &Expr) -> Option<String> {
        match strip(e) {
            Expr::Array(a) => {
                let parts: Option<Vec<String>> =
                    a.elems.iter().map(|x| self.source_text(x)).collect();
                parts.map(|p| p.join("\n"))
            }
            other => self.source_text(other),
        }
    }
}

fn is_assign_op(op: &syn::BinOp) -> bool {
    use syn::BinOp::*;
    matches!(
        op,
        AddAssign(_)
            | SubAssign(_)
            | MulAssign(_)
            | DivAssign(_)
            | RemAssign(_)
            | BitXorAssign(_)
            | BitAndAssign(_)
            | BitOrAssign(_)
            | ShlAssign(_)
            | ShrAssign(_)
    )
}

/// Array and `vec!` literals: a list of places may be events (a wait list); a list of
/// numbers is host data.
fn list_or_host(items: Vec<Value>, kind: HostKind) -> Value {
    if !items.is_empty()
        && items
            .iter()
            .all(|v| matches!(v, Value::Int(_) | Value::Scalar))
    {
        Value::Host { kind, base: None }
    } else {
        Value::List(items)
    }
}

/// `&mut x`, possibly cast to a raw pointer or in `Some(..)` (ocl-core's `new_event`).
fn is_mut_borrow(e: &Expr) -> bool {
    match e {
        Expr::Reference(r) => r.mutability.is_some(),
        Expr::Cast(c) => is_mut_borrow(&c.expr),
        Expr::Paren(p) => is_mut_borrow(&p.expr),
        Expr::Call(c)
            if c.args.len() == 1 && path_segments(&c.func).is_some_and(|s| s == ["Some"]) =>
        {
            is_mut_borrow(&c.args[0])
        }
        Expr::Macro(m) => m
            .mac
            .path
            .segments
            .last()
            .is_some_and(|s| s.ident == "addr_of_mut"),
        _ => false,
    }
}

fn is_host_flag(e: &Expr) -> bool {
    mentions_any(e, TO_HOST) || int_lit(e) == Some(1)
}

fn blocking_of(e: &Expr) -> Blocking {
    let e = strip(e);
    if let Expr::Lit(l) = e {
        return match &l.lit {
            syn::Lit::Bool(b) => {
                if b.value {
                    Blocking::Yes
                } else {
                    Blocking::No
                }
            }
            syn::Lit::Int(i) => match i.base10_parse::<u64>() {
                Ok(0) => Blocking::No,
                Ok(_) => Blocking::Yes,
                Err(_) => Blocking::Unknown,
            },
            _ => Blocking::Unknown,
        };
    }
    if let Expr::Path(p) = e {
        if let Some(s) = p.path.segments.last() {
            return match s.ident.to_string().as_str() {
                "CL_BLOCKING" | "CL_TRUE" => Blocking::Yes,
                "CL_NON_BLOCKING" | "CL_FALSE" => Blocking::No,
                _ => Blocking::Unknown,
            };
        }
    }
    Blocking::Unknown
}
