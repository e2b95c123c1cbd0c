//! The crate index of a file: its constants, `use` imports, functions, modules and structs, and
//! how a call's path resolves against them and against the binding tables.

use std::collections::{HashMap, HashSet};

use syn::Expr;

use super::types::{
    array_len, elem_type, first_type_arg, member_hint, type_bytes, type_hint, type_name,
};
use super::Lowerer;
use crate::frontend::bindings::{Api, Bindings};
use crate::frontend::{Const, Fields};
use crate::ir::{member_field, members_of, nested_field, HostKind, TypeHint};

/// What the file's `const` and `static` items give.
#[derive(Default)]
pub(super) struct Consts {
    /// Those with a literal value.
    pub(super) values: HashMap<String, Const>,
    /// Those that are one element's size (`const F: usize = size_of::<f32>()`).
    pub(super) elements: HashSet<String>,
    /// The size in bytes of each of a scalar or array type (`const ALPHA: f32`).
    pub(super) sizes: HashMap<String, u64>,
    /// Arrays of strings (`const STAGES: [&str; 3] = ["shift", "gain", "clip"]`).
    pub(super) str_arrays: HashMap<String, Vec<String>>,
    /// Host data of numbers (`const TAPS: [f32; 5] = [..]`, `static W: &[f32] = &[..]`): one
    /// piece of host memory every function that names it reads.
    pub(super) host: HashMap<String, HostKind>,
}

/// Collects the file's constants, in every module.
pub(super) fn collect_consts(items: &[syn::Item], out: &mut Consts) {
    for item in items {
        match item {
            syn::Item::Const(c) => {
                let name = c.ident.to_string();
                if let Some(n) = type_bytes(&c.ty) {
                    out.sizes.insert(name.clone(), n);
                }
                if let Some(v) = const_value(&c.expr) {
                    out.values.insert(name.clone(), v);
                }
                if is_size_of(&c.expr) {
                    out.elements.insert(name.clone());
                }
                if let Some(strs) = str_array(&c.expr) {
                    out.str_arrays.insert(name.clone(), strs);
                }
                if let Some(kind) = host_data_type(&c.ty) {
                    out.host.insert(name, kind);
                }
            }
            syn::Item::Static(s) => {
                let name = s.ident.to_string();
                if let Some(v) = const_value(&s.expr) {
                    out.values.insert(name.clone(), v);
                }
                if let Some(kind) = host_data_type(&s.ty) {
                    out.host.insert(name, kind);
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

/// What host data a constant's type is: an array or a slice of numbers.
fn host_data_type(t: &syn::Type) -> Option<HostKind> {
    let numbers = |elem: &syn::Type| type_bytes(elem).is_some();
    match t {
        syn::Type::Array(a) if numbers(&a.elem) => Some(HostKind::Array {
            len: array_len(&a.len),
        }),
        syn::Type::Reference(r) => match &*r.elem {
            syn::Type::Slice(s) if numbers(&s.elem) => Some(HostKind::Slice),
            inner => host_data_type(inner),
        },
        _ => None,
    }
}

/// What a file defines.
#[derive(Default)]
pub(super) struct Defs {
    /// Functions and methods, by qualified name (`helper`, `Halo::step`).
    pub(super) functions: std::collections::HashSet<String>,
    /// Structs: their fields' types.
    pub(super) structs: HashMap<String, Fields>,
    /// Modules declared (`mod a;` or `mod a { .. }`), by qualified name.
    pub(super) modules: std::collections::HashSet<String>,
    /// Fields that are collections of a type, by struct: (struct, field, member type).
    member_types: Vec<(String, String, String)>,
    /// The size in bytes of each field of a scalar type, by struct and field.
    pub(super) field_sizes: HashMap<(String, String), u64>,
    /// The struct the members of a collection field are, by struct and field
    /// (`stages: Vec<Stage>`: `Stage`), where the file defines it.
    pub(super) member_structs: HashMap<(String, String), String>,
    /// The type a field names by a plain path, by struct and field (`settings: Settings`:
    /// `Settings`).
    pub(super) field_types: HashMap<(String, String), String>,
    /// `macro_rules!` macros that can be expanded, by name.
    pub(super) macros: HashMap<String, Vec<super::macros::Rule>>,
    /// Enums without explicit discriminants: their variants, in order (`Side::B` is 1).
    pub(super) enums: HashMap<String, Vec<String>>,
    /// The types that implement each trait the file implements (`Backend`: `TwoGpu`).
    pub(super) implementors: HashMap<String, Vec<String>>,
    /// The type each function and method returns, by qualified name, through `Result`,
    /// `Option` and `Box`, with `Self` its impl's (`PipelineBuilder::build`: `Pipeline`).
    pub(super) returns: HashMap<String, String>,
}

/// The type a signature returns through `Result`, `Option`, `Box` and references, with
/// `Self` as `self_ty`.
fn returned_type(sig: &syn::Signature, self_ty: Option<&str>) -> Option<String> {
    let syn::ReturnType::Type(_, t) = &sig.output else {
        return None;
    };
    let mut t: &syn::Type = t;
    loop {
        match t {
            syn::Type::Reference(r) => t = &r.elem,
            syn::Type::Paren(p) => t = &p.elem,
            syn::Type::Path(tp) => {
                let last = tp.path.segments.last()?;
                let name = last.ident.to_string();
                if !matches!(name.as_str(), "Result" | "Option" | "Box") {
                    return match (name.as_str(), self_ty) {
                        ("Self", Some(ty)) => Some(ty.to_string()),
                        ("Self", None) => None,
                        _ => Some(name),
                    };
                }
                t = first_type_arg(last)?;
            }
            _ => return None,
        }
    }
}

impl Defs {
    /// Gives each field that is a collection of a struct the file defines the fields of its
    /// members (`devs: Vec<Dev>`: `devs[].queue`).
    pub(super) fn link_members(&mut self) {
        for (owner, field, ty) in std::mem::take(&mut self.member_types) {
            let Some(inner) = self.structs.get(&ty).cloned() else {
                continue;
            };
            self.member_structs
                .insert((owner.clone(), field.clone()), ty.clone());
            if let Some(fields) = self.structs.get_mut(&owner) {
                for (g, h) in inner.iter().filter(|(g, _)| !g.contains("[].")) {
                    fields.push((member_field(&field, g), *h));
                }
                // A `Vec` of structs that hold OpenCL objects is no host data: its members
                // are followed part by part (`lanes[1].queue`).
                let holds_objects = (inner.iter()).any(|(_, h)| {
                    !matches!(h, TypeHint::Unknown | TypeHint::Scalar | TypeHint::Host(_))
                });
                if holds_objects {
                    for (g, h) in fields.iter_mut() {
                        if *g == field && matches!(h, TypeHint::Host(_)) {
                            *h = TypeHint::Unknown;
                        }
                    }
                }
            }
        }
        // A field that is a struct of the file (`cfg: Config`): its fields are the owner's
        // too (`cfg.class_weights`, a host array).
        let mut nested: Vec<(String, String, String)> = (self.field_types.iter())
            .map(|((owner, field), ty)| (owner.clone(), field.clone(), ty.clone()))
            .collect();
        nested.sort();
        for (owner, field, ty) in nested {
            let Some(inner) = self.structs.get(&ty).cloned() else {
                continue;
            };
            if let Some(fields) = self.structs.get_mut(&owner) {
                for (g, h) in inner
                    .iter()
                    .filter(|(g, _)| !g.contains('.') && !g.ends_with("[]"))
                {
                    fields.push((nested_field(&field, g), *h));
                }
            }
        }
    }
}

/// The functions, methods, structs and modules a file defines.
pub(super) fn collect_defs(items: &[syn::Item], prefix: Option<&str>, defs: &mut Defs) {
    for item in items {
        match item {
            syn::Item::Fn(f) => {
                let name = qualify(prefix, &f.sig.ident.to_string());
                if let Some(t) = returned_type(&f.sig, None) {
                    defs.returns.insert(name.clone(), t);
                }
                defs.functions.insert(name);
            }
            syn::Item::Impl(imp) => {
                let ty = type_name(&imp.self_ty).unwrap_or_else(|| "_".into());
                if let Some(tr) = (imp.trait_.as_ref()).and_then(|(_, p, _)| p.segments.last()) {
                    defs.implementors
                        .entry(tr.ident.to_string())
                        .or_default()
                        .push(ty.clone());
                }
                for ii in &imp.items {
                    if let syn::ImplItem::Fn(m) = ii {
                        let name = qualify(prefix, &format!("{ty}::{}", m.sig.ident));
                        if let Some(t) = returned_type(&m.sig, Some(&ty)) {
                            defs.returns.insert(name.clone(), t);
                        }
                        defs.functions.insert(name);
                    }
                }
            }
            syn::Item::Enum(en) if en.variants.iter().all(|v| v.discriminant.is_none()) => {
                let variants = en.variants.iter().map(|v| v.ident.to_string()).collect();
                defs.enums
                    .insert(qualify(prefix, &en.ident.to_string()), variants);
            }
            syn::Item::Macro(m) => {
                let rules = super::macros::rules(m);
                if let (Some(name), false) = (&m.ident, rules.is_empty()) {
                    defs.macros.insert(name.to_string(), rules);
                }
            }
            syn::Item::Struct(st) => {
                let mut fields = Vec::new();
                for (i, f) in st.fields.iter().enumerate() {
                    let name = f
                        .ident
                        .as_ref()
                        .map_or_else(|| i.to_string(), |n| n.to_string());
                    let members = member_hint(&f.ty);
                    if members != TypeHint::Unknown {
                        fields.push((members_of(&name), members));
                    }
                    if let Some(ty) = elem_type(&f.ty) {
                        defs.member_types
                            .push((st.ident.to_string(), name.clone(), ty));
                    }
                    if let Some(n) = type_bytes(&f.ty) {
                        defs.field_sizes
                            .insert((st.ident.to_string(), name.clone()), n);
                    }
                    if let syn::Type::Path(tp) = &f.ty {
                        if let Some(seg) = tp.path.segments.last().filter(|s| s.arguments.is_none())
                        {
                            defs.field_types.insert(
                                (st.ident.to_string(), name.clone()),
                                seg.ident.to_string(),
                            );
                        }
                    }
                    fields.push((name, type_hint(&f.ty)));
                }
                defs.structs.insert(st.ident.to_string(), fields);
            }
            // `type Part = (CommandQueue, Buffer<f32>, Event)`: a tuple whose fields are
            // named by position, as a tuple struct's are.
            syn::Item::Type(t) => {
                if let syn::Type::Tuple(tuple) = &*t.ty {
                    let fields = (tuple.elems.iter().enumerate())
                        .map(|(i, ty)| (i.to_string(), type_hint(ty)))
                        .collect();
                    defs.structs.insert(t.ident.to_string(), fields);
                }
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
pub(super) struct Uses {
    /// `use a::b::{c, d as e}` → `c` ↦ `[a, b, c]`, `e` ↦ `[a, b, d]`.
    pub(super) names: HashMap<String, Vec<String>>,
    /// `use a::b::*` → `[a, b]`, in file order.
    pub(super) globs: Vec<Vec<String>>,
}

pub(super) fn collect_uses(items: &[syn::Item], out: &mut Uses) {
    fn walk(t: &syn::UseTree, prefix: &mut Vec<String>, out: &mut Uses) {
        match t {
            syn::UseTree::Path(p) => {
                prefix.push(p.ident.to_string());
                walk(&p.tree, prefix, out);
                prefix.pop();
            }
            // `use ocl_core::{self, ..}`: the module itself.
            syn::UseTree::Name(n) if n.ident == "self" => {
                if let Some(last) = prefix.last() {
                    out.names.insert(last.clone(), prefix.clone());
                }
            }
            syn::UseTree::Name(n) => {
                let mut full = prefix.clone();
                full.push(n.ident.to_string());
                out.names.insert(n.ident.to_string(), full);
            }
            // `use ocl_core::{self as core, ..}`.
            syn::UseTree::Rename(r) if r.ident == "self" => {
                out.names.insert(r.rename.to_string(), prefix.clone());
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
    // Every `use` of the file, those inside modules and function bodies included
    // (`fn f() { use cl3::event::set_user_event_status; .. }`).
    struct Imports<'o>(&'o mut Uses);
    impl<'ast> syn::visit::Visit<'ast> for Imports<'_> {
        fn visit_item_use(&mut self, u: &'ast syn::ItemUse) {
            walk(&u.tree, &mut Vec::new(), self.0);
        }
    }
    let mut imports = Imports(out);
    for item in items {
        syn::visit::Visit::visit_item(&mut imports, item);
    }
}

/// `size_of::<T>()`, `mem::size_of::<T>()`.
pub(super) fn is_size_of(e: &Expr) -> bool {
    match e {
        Expr::Call(c) if c.args.is_empty() => matches!(&*c.func, Expr::Path(p)
            if p.path.segments.last().is_some_and(|s| s.ident == "size_of")),
        Expr::Paren(p) => is_size_of(&p.expr),
        Expr::Group(g) => is_size_of(&g.expr),
        _ => false,
    }
}

/// The strings of an array of string literals (`["shift", "gain"]`, `&["a", "b"]`).
fn str_array(e: &Expr) -> Option<Vec<String>> {
    match e {
        Expr::Reference(r) => str_array(&r.expr),
        Expr::Array(a) if !a.elems.is_empty() => (a.elems.iter())
            .map(|x| match const_value(x) {
                Some(Const::Str(s)) => Some(s),
                _ => None,
            })
            .collect(),
        _ => None,
    }
}

fn const_value(e: &Expr) -> Option<Const> {
    match e {
        Expr::Lit(l) => match &l.lit {
            syn::Lit::Int(i) => i.base10_parse().ok().map(Const::Int),
            syn::Lit::Str(s) => Some(Const::Str(s.value())),
            // `const SRC: &CStr = c"__kernel void ..";`
            syn::Lit::CStr(c) => c.value().to_str().ok().map(|s| Const::Str(s.to_string())),
            syn::Lit::ByteStr(b) => String::from_utf8(b.value()).ok().map(Const::Str),
            _ => None,
        },
        Expr::Paren(p) => const_value(&p.expr),
        Expr::Group(g) => const_value(&g.expr),
        _ => None,
    }
}

pub(super) fn qualify(prefix: Option<&str>, name: &str) -> String {
    match prefix {
        Some(p) => format!("{p}::{name}"),
        None => name.to_string(),
    }
}

impl Lowerer<'_, '_> {
    /// The path in the crate of a call's path (after `use` imports) that may name a
    /// function of another file of the crate: `crate::a::f`, `self::f`, `super::f`, `m::f`
    /// for a module `m` this file declares, `Self::f` and `Type::f`. Other paths (other
    /// crates, variables) give `None`.
    pub(super) fn crate_path(&self, segs: &[String]) -> Option<String> {
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
    pub(super) fn function_api(&self, segs: &[String], arity: usize) -> Option<&'static Api> {
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
}
