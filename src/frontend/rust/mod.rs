//! The Rust frontend: a syn AST to the host IR, one [`Function`] per function or method.
//!
//! Calls are looked up in the binding tables ([`bindings`](super::bindings)); a call that
//! is not modeled forgets what is known about every value it receives. Lowering never
//! fails: what it cannot follow becomes `Value::Unknown` or a `Forget`.
//!
//! This module walks a file's items ([`lower_file`]) and holds the lowering's state (scopes,
//! variables, the statements so far). The rest, by concern:
//! - `index`: the file's constants, imports, functions, modules and structs; paths resolved
//!   against them and against the binding tables;
//! - `stmt`: blocks, `let` and patterns, branches; `expr`: expressions and macros;
//! - `calls`: method and function calls, and the commands they enqueue; `apply`: a
//!   binding-table row applied to a call's arguments;
//! - `closures`: closures lowered where they run, host threads; `each`: loops over lists;
//! - `types`: type hints from declared types; `syntax`: small readings of syn nodes;
//!   `spans`: the spans of nodes.

mod apply;
mod calls;
mod closures;
mod each;
mod expr;
mod fills;
mod floats;
mod index;
mod macros;
mod spans;
mod stmt;
mod syntax;
mod types;

use std::collections::{HashMap, HashSet};

use syn::Expr;

use super::{Const, Fields, FileIr};
use crate::ir::*;
use crate::source::SourceFile;
use closures::Closure;
use index::{collect_consts, collect_defs, collect_uses, qualify, Consts, Defs, Uses};
use syntax::pat_idents;
use types::{
    elem_bytes, elem_type, first_type_arg, hint_from_name, member_hint, received_struct,
    type_bytes, type_hint, type_name, STD_TYPES,
};

/// Lowers every function and method of a parsed file that is module `module` of its crate
/// (empty for a crate root, or a file on its own): functions are named by their path in
/// the crate.
pub fn lower_file(file_id: usize, src: &SourceFile, ast: &syn::File, module: &[String]) -> FileIr {
    let mut consts = Consts::default();
    collect_consts(&ast.items, &mut consts);
    let mut uses = Uses::default();
    collect_uses(&ast.items, &mut uses);
    let root = (!module.is_empty()).then(|| module.join("::"));
    let mut defs = Defs::default();
    collect_defs(&ast.items, root.as_deref(), &mut defs);
    defs.link_members();
    let mut structs: Vec<(String, Fields)> = defs
        .structs
        .iter()
        .map(|(n, f)| (n.clone(), f.clone()))
        .collect();
    structs.sort_by(|a, b| a.0.cmp(&b.0));
    // The file's own extension methods on `Result` (`impl Ctx for Result<..> { fn ctx }`).
    let result_methods = (defs.functions.iter())
        .filter_map(|d| d.strip_prefix("Result::"))
        .filter(|n| !n.contains("::"))
        .map(str::to_string)
        .collect();
    let newtype_methods = newtype_methods(&defs.functions, &defs.structs);
    let methods = type_methods(&defs.functions);
    let sole_impls = (defs.implementors.into_iter())
        .filter_map(|(tr, tys)| match tys.as_slice() {
            [ty] if defs.structs.contains_key(ty) => Some((tr, ty.clone())),
            _ => None,
        })
        .collect();
    let returns = (defs.returns.into_iter())
        .filter(|(_, t)| defs.structs.contains_key(t))
        .collect();
    let mut cx = FileCx {
        file: file_id,
        newtype_methods,
        src,
        consts,
        uses,
        defined: defs.functions,
        methods,
        result_methods,
        modules: defs.modules,
        structs: defs.structs,
        field_sizes: defs.field_sizes,
        field_types: defs.field_types,
        macros: defs.macros,
        member_structs: defs.member_structs,
        sole_impls,
        returns,
        enums: defs.enums,
        next_cmd: 0,
        functions: Vec::new(),
        free_fns: (ast.items.iter())
            .filter_map(|i| match i {
                syn::Item::Fn(f) => Some((qualify(root.as_deref(), &f.sig.ident.to_string()), f)),
                _ => None,
            })
            .collect(),
        generic_methods: generic_methods(&ast.items, root.as_deref()),
        unwrap_fns: std::collections::HashSet::new(),
    };
    cx.unwrap_fns = (cx.free_fns.iter())
        .filter(|(_, f)| unwraps_result(f))
        .map(|(n, _)| n.clone())
        .collect();
    cx.items(&ast.items, root.as_deref());
    let mut sources: Vec<String> = (cx.consts.values.into_values())
        .filter_map(|c| match c {
            Const::Str(s) if s.contains("kernel") => Some(s),
            _ => None,
        })
        .collect();
    sources.sort();
    FileIr {
        functions: cx.functions,
        structs,
        sources,
    }
}

struct FileCx<'a> {
    file: usize,
    src: &'a SourceFile,
    consts: Consts,
    /// The size in bytes of each field of a scalar type, by struct and field.
    field_sizes: HashMap<(String, String), u64>,
    /// The type a field names by a plain path (`Pipeline.settings`: `Settings`).
    field_types: HashMap<(String, String), String>,
    /// The file's `macro_rules!` macros that can be expanded, by name.
    macros: HashMap<String, Vec<macros::Rule>>,
    /// The struct the members of a collection field are (`Pipeline.stages`: `Stage`).
    member_structs: HashMap<(String, String), String>,
    uses: Uses,
    /// Functions and methods defined in the file, by qualified name (`helper`, `Halo::step`).
    defined: std::collections::HashSet<String>,
    /// The methods of the file, by type and name (`ClDevice::queue`), where one module
    /// alone defines that type's method: its qualified name (`gpu::ClDevice::queue`).
    methods: HashMap<String, String>,
    /// The methods of the file's tuple structs (`Handle::get` of `struct Handle<T>(T)`, a
    /// `Send` wrapper of a raw handle), by name, where no other struct of the file has a
    /// method of that name: a call on a value whose type is not known is theirs.
    newtype_methods: HashMap<String, String>,
    /// The file's enums without explicit discriminants, by name: their variants in order.
    enums: HashMap<String, Vec<String>>,
    /// Traits the file implements for one struct of its own only, by name: that struct
    /// (`Backend`: `TwoGpu`). A value of a type bounded by the trait (`be: &mut B` of
    /// `fn run<B: Backend>`, `&mut dyn Backend`) is that struct.
    sole_impls: HashMap<String, String>,
    /// The struct of the file each function and method returns, by qualified name.
    returns: HashMap<String, String>,
    /// The methods of `defined` on `Result`, by name (`ctx` of `Result::ctx`).
    result_methods: std::collections::HashSet<String>,
    /// Modules declared in the file, by qualified name.
    modules: std::collections::HashSet<String>,
    /// Structs defined in the file: their fields' types.
    structs: HashMap<String, Fields>,
    next_cmd: usize,
    functions: Vec<Function>,
    /// The file's free functions at its top level, by qualified name: a call that hands
    /// one a closure is lowered with the function's body where it is called.
    free_fns: HashMap<String, &'a syn::ItemFn>,
    /// The methods of the file's top-level `impl` blocks that have type parameters, by
    /// qualified name (`Kernel::scalar`), with their type: a call giving a type parameter a
    /// size is lowered with the method's body where it is called.
    generic_methods: HashMap<String, (&'a syn::ImplItemFn, String)>,
    /// The file's free functions `fn ok<T>(r: Result<T, E>, ..) -> T`: whatever they do,
    /// they give the value `r` holds or do not return (`ok(create_kernel(..), "what")`).
    unwrap_fns: std::collections::HashSet<String>,
}

/// How many fields a tuple struct has: its fields (not the members of its collections,
/// `0[]`) are named `0`, `1`, .. in order; `None` for a struct with named fields or none.
fn tuple_arity(fields: &Fields) -> Option<usize> {
    let mut n = 0;
    for (f, _) in fields.iter().filter(|(f, _)| !f.ends_with("[]")) {
        if *f != n.to_string() {
            return None;
        }
        n += 1;
    }
    (n > 0).then_some(n)
}

/// The methods of tuple structs among `functions` whose name no other struct's method has.
fn newtype_methods(
    functions: &std::collections::HashSet<String>,
    structs: &HashMap<String, Fields>,
) -> HashMap<String, String> {
    sole_by_key(functions.iter().filter_map(|f| {
        let (ty, name) = f.rsplit_once("::")?;
        let tuple = tuple_arity(structs.get(ty)?).is_some();
        Some((name.to_string(), tuple.then(|| f.clone())))
    }))
}

/// The methods among `functions` by type and name, where one module alone defines them.
fn type_methods(functions: &std::collections::HashSet<String>) -> HashMap<String, String> {
    sole_by_key(functions.iter().filter_map(|f| {
        let mut parts = f.rsplitn(3, "::");
        let (name, ty) = (parts.next()?, parts.next()?);
        Some((format!("{ty}::{name}"), Some(f.clone())))
    }))
}

/// The value of each key that only one pair has, where that value is given.
fn sole_by_key(pairs: impl Iterator<Item = (String, Option<String>)>) -> HashMap<String, String> {
    let mut by_key: HashMap<String, Option<String>> = HashMap::new();
    for (k, v) in pairs {
        by_key.entry(k).and_modify(|e| *e = None).or_insert(v);
    }
    by_key
        .into_iter()
        .filter_map(|(k, v)| Some((k, v?)))
        .collect()
}

/// Whether `f` is `fn f<T>(r: Result<T, E>, ..) -> T` with `T` unbounded: it can only give
/// back the value `r` holds, or not return.
fn unwraps_result(f: &syn::ItemFn) -> bool {
    let sig = &f.sig;
    let [syn::GenericParam::Type(t)] = sig.generics.params.iter().collect::<Vec<_>>()[..] else {
        return false;
    };
    if !t.bounds.is_empty() || sig.generics.where_clause.is_some() {
        return false;
    }
    let is_t = |ty: &syn::Type| matches!(ty, syn::Type::Path(p) if p.qself.is_none() && p.path.is_ident(&t.ident));
    let syn::ReturnType::Type(_, ret) = &sig.output else {
        return false;
    };
    let Some(syn::FnArg::Typed(first)) = sig.inputs.first() else {
        return false;
    };
    let syn::Type::Path(p) = &*first.ty else {
        return false;
    };
    let Some(last) = p.path.segments.last() else {
        return false;
    };
    let ok_type = first_type_arg(last).filter(|_| last.ident == "Result");
    is_t(ret) && ok_type.is_some_and(is_t)
}

impl FileCx<'_> {
    /// The struct a parameter of type `t` is where its trait has one implementor: `t` a
    /// type parameter bounded by the trait (in `generics` or their `where` clause), or a
    /// trait object or `impl` of it, behind references and `Box`.
    fn sole_impl(&self, generics: &syn::Generics, t: &syn::Type) -> Option<String> {
        match t {
            syn::Type::Reference(r) => self.sole_impl(generics, &r.elem),
            syn::Type::Paren(p) => self.sole_impl(generics, &p.elem),
            syn::Type::TraitObject(o) => self.bounded(&o.bounds),
            syn::Type::ImplTrait(i) => self.bounded(&i.bounds),
            syn::Type::Path(p) => {
                let seg = p.path.segments.last()?;
                if let Some(inner) = first_type_arg(seg).filter(|_| seg.ident == "Box") {
                    return self.sole_impl(generics, inner);
                }
                let name = p.path.get_ident()?;
                let params = generics.type_params().filter(|tp| tp.ident == *name);
                let predicates = (generics.where_clause.iter())
                    .flat_map(|w| &w.predicates)
                    .filter_map(|wp| match wp {
                        syn::WherePredicate::Type(pt)
                            if type_name(&pt.bounded_ty).as_ref() == Some(&name.to_string()) =>
                        {
                            Some(&pt.bounds)
                        }
                        _ => None,
                    });
                self.bounded(params.flat_map(|tp| &tp.bounds).chain(predicates.flatten()))
            }
            _ => None,
        }
    }

    /// The sole implementor of the first of `bounds` that has one.
    fn bounded<'b>(
        &self,
        bounds: impl IntoIterator<Item = &'b syn::TypeParamBound>,
    ) -> Option<String> {
        bounds.into_iter().find_map(|b| match b {
            syn::TypeParamBound::Trait(tb) => (tb.path.segments.last())
                .and_then(|s| self.sole_impls.get(&s.ident.to_string()).cloned()),
            _ => None,
        })
    }

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
        let f64_locals = floats::default_f64_locals(block, &|name| {
            let f = self.free_fns.get(&qualify(prefix, name))?;
            let params: HashSet<String> = f
                .sig
                .generics
                .type_params()
                .map(|tp| tp.ident.to_string())
                .collect();
            Some(
                (f.sig.inputs.iter())
                    .map(|input| match input {
                        syn::FnArg::Typed(pt) => {
                            let t = match &*pt.ty {
                                syn::Type::Reference(r) => &*r.elem,
                                t => t,
                            };
                            matches!(t, syn::Type::Path(p) if p.path.get_ident().is_some_and(|i| params.contains(&i.to_string())))
                        }
                        syn::FnArg::Receiver(_) => false,
                    })
                    .collect(),
            )
        });
        let mut lw = Lowerer {
            cx: self,
            strs: HashMap::new(),
            str_lists: HashMap::new(),
            const_locals: HashMap::new(),
            vars: Vec::new(),
            scopes: vec![HashMap::new()],
            out: Vec::new(),
            self_ty: self_ty.map(str::to_string),
            prefix: prefix.map(str::to_string),
            closures: HashMap::new(),
            closure_lists: HashMap::new(),
            inlining: 0,
            expanding: 0,
            expansions: 0,
            closure_calls: 0,
            raw_events: false,
            inlined_fns: Vec::new(),
            mut_refs: HashMap::new(),
            borrows: Vec::new(),
            inline_budget: 0,
            generic_sizes: HashMap::new(),
            generic_call: None,
            mapped: std::collections::HashSet::new(),
            item_slots: HashMap::new(),
            barriers: HashMap::new(),
            received: HashMap::new(),
            scalar_sizes: HashMap::new(),
            elem_sizes: HashMap::new(),
            struct_of: HashMap::new(),
            members_struct: HashMap::new(),
            ranges: HashSet::new(),
            views: HashMap::new(),
            event_outs: Vec::new(),
            statuses: HashMap::new(),
            out_of_order_props: std::collections::HashSet::new(),
            f64_locals,
        };
        let body_span = lw.span(block.brace_token.span.join());
        lw.inline_budget = 4 * (body_span.end - body_span.start) + 4_096;
        let mut params = Vec::new();
        // Parameters taken apart by a pattern (`(kd, nd): (usize, usize)`, `_`): one
        // parameter each, whose parts the pattern binds when the body starts.
        let mut patterns = Vec::new();
        for input in &sig.inputs {
            match input {
                syn::FnArg::Typed(pt)
                    if !matches!(syntax::strip_pat_type(&pt.pat), syn::Pat::Ident(_)) =>
                {
                    let v = lw.bind(&format!("%param{}", params.len()), TypeHint::Unknown);
                    params.push(v);
                    patterns.push((&*pt.pat, v));
                }
                syn::FnArg::Receiver(_) => {
                    let hint = self_ty.map_or(TypeHint::Unknown, hint_from_name);
                    let v = lw.bind("self", hint);
                    lw.type_var(v, self_ty.map(str::to_string));
                    params.push(v);
                }
                syn::FnArg::Typed(pt) => {
                    let ty = (lw.cx.sole_impl(&sig.generics, &pt.ty))
                        .or_else(|| type_name(types::pointee(&pt.ty)));
                    // A list of trait objects whose trait one struct implements
                    // (`backends: &[Box<dyn GpuBackend>]`): a list of that struct.
                    let dyn_members = (types::member_type(&pt.ty))
                        .and_then(|m| lw.cx.sole_impl(&sig.generics, m))
                        .filter(|s| lw.cx.structs.contains_key(s));
                    let hint = match dyn_members {
                        Some(_) => TypeHint::Unknown,
                        None => lw.hint_of(&pt.ty),
                    };
                    // A list of structs: its members' fields (`devs[1].queue`), or their
                    // sizes (`frames: &[Frame]` of plain data).
                    let member_struct = match hint {
                        TypeHint::Unknown | TypeHint::Host(_) => dyn_members.or_else(|| {
                            elem_type(&pt.ty).filter(|e| lw.cx.structs.contains_key(e))
                        }),
                        _ => None,
                    };
                    let member_fields = (member_struct.as_ref())
                        .and_then(|e| lw.cx.structs.get(e))
                        .cloned();
                    let members = member_hint(&pt.ty);
                    let bytes = type_bytes(&pt.ty);
                    // `ready: &mut EventList`: the caller's events, which `*ready = done`
                    // replaces.
                    let events_out = matches!(&*pt.ty, syn::Type::Reference(r) if r.mutability.is_some())
                        && matches!(hint, TypeHint::Event | TypeHint::EventList);
                    for (ident, _) in pat_idents(&pt.pat) {
                        let v = lw.bind(&ident, hint);
                        lw.type_var(v, ty.clone());
                        if events_out {
                            lw.vars[v].member = Member::Ref;
                        }
                        // `rx: mpsc::Receiver<Job>`: what `rx.recv()` gives is a `Job`.
                        if let Some(msg) = received_struct(&pt.ty) {
                            lw.received.insert(v, msg);
                        }
                        // `ready: &Barrier`: the caller's barrier, which its threads meet at.
                        if ty.as_deref() == Some("Barrier") {
                            lw.barriers.insert(v, v);
                        }
                        if let Some(n) = bytes {
                            lw.scalar_sizes.insert(v, n);
                        }
                        if let Some(n) = elem_bytes(&pt.ty) {
                            lw.elem_sizes.insert(v, n);
                        }
                        if let Some(fields) = &member_fields {
                            lw.vars[v].fields.clone_from(fields);
                        }
                        // `slabs: &mut [Slab]`: its members have the struct's methods.
                        if let Some(s) = member_struct.as_ref().filter(|s| Some(*s) != ty.as_ref())
                        {
                            lw.members_struct.insert(v, s.clone());
                        }
                        if members != TypeHint::Unknown {
                            lw.vars[v].fields.push((members_of(""), members));
                        }
                        // `done: &mut Event`: the caller's event, which a command given
                        // `Some(done)` writes; so is `out: *mut cl_event` of raw FFI, which
                        // the caller gives as `&mut ev`.
                        let out = match &*pt.ty {
                            syn::Type::Reference(r) => {
                                hint == TypeHint::Event && r.mutability.is_some()
                            }
                            syn::Type::Ptr(p) => {
                                p.mutability.is_some()
                                    && type_name(&p.elem).as_deref() == Some("cl_event")
                            }
                            _ => false,
                        };
                        if out {
                            lw.vars[v].hint = TypeHint::Event;
                            lw.vars[v].member = Member::Ref;
                            lw.mut_refs.insert(v, Place::var(v));
                        }
                        // `events: &mut Vec<cl_event>`: the caller's list, which the
                        // function fills or empties (`events.drain(..)`).
                        if hint == TypeHint::EventList
                            && matches!(&*pt.ty, syn::Type::Reference(r) if r.mutability.is_some())
                        {
                            lw.vars[v].member = Member::Ref;
                        }
                        params.push(v);
                    }
                }
            }
        }
        for (pat, v) in patterns {
            lw.let_pattern(pat, Value::Place(Place::var(v)), body_span);
        }
        let tail = lw.block_inline(block);
        lw.out.push(Stmt::Return {
            value: tail,
            span: None,
        });
        let returns_host = match &sig.output {
            syn::ReturnType::Type(_, ty) => match lw.hint_of(ok_type(ty)) {
                TypeHint::Host(kind) => Some(kind),
                _ => None,
            },
            syn::ReturnType::Default => None,
        };
        let span = lw.cx.src.span(lw.cx.file, sig.ident.span());
        let body = std::mem::take(&mut lw.out);
        let vars = std::mem::take(&mut lw.vars);
        self.functions.push(Function {
            name,
            span,
            vars,
            params,
            body,
            returns_host,
        });
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
    /// Locals bound to an array of known strings (`let names = [CString::new("a")?, ..]`).
    str_lists: HashMap<Var, Vec<Option<String>>>,
    /// Immutable locals bound to a constant: its key (see `fills`).
    const_locals: HashMap<Var, String>,
    vars: Vec<VarInfo>,
    scopes: Vec<HashMap<String, Var>>,
    out: Vec<Stmt>,
    /// Closures bound to locals (`let f = |..| ..`), with the variables they capture.
    closures: HashMap<Var, Closure>,
    /// Lists of closures bound to a local (`vec![Box::new(|..| ..), ..]`).
    closure_lists: HashMap<Var, Vec<Closure>>,
    /// Closure bodies being lowered where they are called, innermost last.
    inlining: usize,
    /// Closure bodies being lowered as a [`Stmt::Closure`], whose `return`s they end.
    closure_calls: usize,
    /// A command that makes a raw event (`cl_event`) has been lowered in the function: the
    /// error paths of its `?`s may leave one held.
    raw_events: bool,
    /// Calls of the file's own macros being expanded, innermost last.
    expanding: usize,
    /// Calls of the file's own macros expanded in the function so far.
    expansions: usize,
    /// The free functions being lowered where they are called, innermost last.
    inlined_fns: Vec<String>,
    /// Locals bound to a `&mut place` handed to a closure (`f(&mut ev)` of `|e| ..`): what
    /// an out-parameter `e` receives goes to that place. `borrows` are the places the
    /// arguments of the closure call being lowered borrow.
    mut_refs: HashMap<Var, Place>,
    borrows: Vec<Option<Place>>,
    /// Bytes of closure bodies that may still be lowered where they are called: each
    /// call lowers its closure's body again, so this keeps a function's lowering linear.
    inline_budget: usize,
    /// The sizes of the type parameters of a generic helper lowered where it is called
    /// (`T` of `fn arg<T>(.., v: &T)` called with `&ntaps`).
    generic_sizes: HashMap<String, u64>,
    /// The call of such a helper being lowered.
    generic_call: Option<Span>,
    /// Temporaries holding what a `map` over a list yields, one value per member.
    mapped: std::collections::HashSet<Var>,
    /// Items of a loop over a list walked mutably, each with the member it is in the
    /// current pass (`b` of `for b in bufs.iter_mut()`: `bufs[pass]`): `*b = ..` stores there.
    item_slots: HashMap<Var, Place>,
    /// Channel receivers given as parameters (`rx: mpsc::Receiver<Job>`): the struct of the
    /// crate each message is.
    received: HashMap<Var, String>,
    /// Locals holding a `std::sync::Barrier` (or a shared handle to one), each with the
    /// local that made it: every thread's `wait()` on it meets at that one.
    barriers: HashMap<Var, Var>,
    /// The size in bytes of each local of a known scalar type (`n: u32`, `let n = c.len()`):
    /// what `set_arg(&n)` passes.
    scalar_sizes: HashMap<Var, u64>,
    /// The size of a member of a parameter that is a slice of scalars (`gains: &[f64]`).
    elem_sizes: HashMap<Var, u64>,
    /// Variables whose type is a struct of the crate, by the struct's name.
    struct_of: HashMap<Var, String>,
    /// Lists whose members a constructor of a struct of the crate made, by that struct
    /// (`devices.iter().map(|&d| Band::new(d)).collect()`).
    members_struct: HashMap<Var, String>,
    /// Locals bound to a range (`let span = a..b;`).
    ranges: HashSet<Var>,
    /// Locals that are a list seen from an index on: `left` and `right` of
    /// `let (left, right) = slabs.split_at_mut(k + 1)` are `slabs` from 0 and from `k + 1`.
    views: HashMap<Var, (Place, Value)>,
    /// The `&mut event` out-parameters of the calls lowered since the last status binding.
    event_outs: Vec<Place>,
    /// Status variables (`let status = clEnqueue..(.., &mut ev)`) and the events of those
    /// calls: where the status says the calls failed, the events do not exist.
    statuses: HashMap<Var, Vec<Place>>,
    /// Locals holding queue properties that ask for out-of-order execution.
    out_of_order_props: std::collections::HashSet<Var>,
    /// Locals bound to unsuffixed float literals whose uses leave the type open: `f64`s.
    f64_locals: HashSet<String>,
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
            member: Member::Dot,
            global: None,
        });
        if let Some(s) = self.scopes.last_mut() {
            s.insert(name.to_string(), v);
        }
        v
    }

    /// The variable of a constant of host data, made on its first use in the function.
    fn host_const(&mut self, name: &str, kind: HostKind) -> Var {
        let v = self.vars.len();
        self.vars.push(VarInfo {
            name: name.to_string(),
            hint: TypeHint::Host(kind),
            fields: Vec::new(),
            ty: None,
            member: Member::Dot,
            global: Some(global_key(self.cx.file, name, true)),
        });
        if let Some(s) = self.scopes.first_mut() {
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

    /// The hint a declared type gives: a list of structs of the file that hold OpenCL
    /// objects (`&mut [Dev; 2]`) is no host data, but values whose parts are objects.
    fn hint_of(&self, t: &syn::Type) -> TypeHint {
        let hint = type_hint(t);
        let holds_objects = |e: String| {
            self.cx.structs.get(&e).is_some_and(|fields| {
                fields.iter().any(|(_, h)| {
                    !matches!(h, TypeHint::Unknown | TypeHint::Scalar | TypeHint::Host(_))
                })
            })
        };
        match hint {
            TypeHint::Host(_) if elem_type(t).is_some_and(holds_objects) => TypeHint::Unknown,
            _ => hint,
        }
    }

    /// The struct of the crate a variable holds: its declared type (`self`, a typed
    /// parameter), or the one it was made or bound as.
    fn var_struct(&self, v: Var) -> Option<String> {
        (self.vars[v].ty.clone()).or_else(|| self.struct_of.get(&v).cloned())
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
}

/// The type a `Result<T, E>` or `Option<T>` holds on success: `T`; any other type itself.
pub(super) fn ok_type(t: &syn::Type) -> &syn::Type {
    if let syn::Type::Path(p) = t {
        if let Some(seg) = p.path.segments.last() {
            if matches!(seg.ident.to_string().as_str(), "Result" | "Option") {
                if let syn::PathArguments::AngleBracketed(a) = &seg.arguments {
                    if let Some(syn::GenericArgument::Type(inner)) = a.args.first() {
                        return inner;
                    }
                }
            }
        }
    }
    t
}
/// The methods with type parameters of the top-level `impl` blocks, for
/// [`FileCx::generic_methods`].
fn generic_methods<'a>(
    items: &'a [syn::Item],
    root: Option<&str>,
) -> HashMap<String, (&'a syn::ImplItemFn, String)> {
    let mut out = HashMap::new();
    for item in items {
        let syn::Item::Impl(imp) = item else { continue };
        let Some(ty) = type_name(&imp.self_ty) else {
            continue;
        };
        for ii in &imp.items {
            if let syn::ImplItem::Fn(m) = ii {
                if m.sig.generics.type_params().next().is_some() {
                    let name = qualify(root, &format!("{ty}::{}", m.sig.ident));
                    out.insert(name, (m, ty.clone()));
                }
            }
        }
    }
    out
}
