//! Expressions: each syn expression to a value, macros (whose arguments are read as code),
//! and the string a kernel name or program source evaluates to.

use std::collections::HashMap;
use std::path::Path;

use syn::{Expr, Type};

use super::each::{filtered_loop, EachBody};
use super::stmt::option_pattern;
use super::syntax::{
    api_bool, closure_of, empty_or_pointer, expr_idents, int_lit, is_assign_op, macro_args,
    member_name, path_segments, strip, strip_pat_type, token_idents,
};
use super::{spans, Lowerer};
use crate::frontend::{arith, comparison, list_or_host, Const};
use crate::ir::*;
use crate::source::{read_regular, MAX_FILE_BYTES};

/// Methods that give the same string in another form.
const STRING_VIEWS: &[&str] = &[
    "as_ptr",
    "unwrap",
    "expect",
    "as_c_str",
    "as_str",
    "as_bytes",
    "to_string",
    "to_owned",
    "into_raw",
];

/// `CString::new`, `String::from` and the like: the same string, made anew.
pub(super) fn string_ctor(func: &Expr) -> bool {
    path_segments(func).is_some_and(|segs| {
        let n = segs.len();
        n >= 2
            && matches!(
                (segs[n - 2].as_str(), segs[n - 1].as_str()),
                ("CString" | "String", "new" | "from")
            )
    })
}

/// The longest `[x; N]` of null handles read slot by slot.
const MAX_SLOTS: u64 = 64;

/// How deep calls of the file's macros are expanded inside one another.
const MAX_EXPANSION_DEPTH: usize = 8;

/// How many calls of the file's macros one function expands, all depths together (a
/// macro that calls itself four times, eight deep, would otherwise expand 65,536 times).
const MAX_EXPANSIONS: usize = 256;

/// Macros that only read their arguments.
pub(super) const READING_MACROS: &[&str] = &[
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

impl Lowerer<'_, '_> {
    /// The value an `if let` or `match` takes apart, at a place both arms can name.
    fn scrutinee(&mut self, e: &Expr) -> Value {
        match self.expr(e) {
            v @ Value::Place(_) => v,
            v => Value::Place(Place::var(self.temp_holding(v, TypeHint::Unknown, e))),
        }
    }

    /// What the else arm of `if let pat = v` knows of `v`: `None` where `pat` is `Some(..)`,
    /// `Some` where it is `None`, a failure where it is `Ok(..)`.
    fn complement(&self, pat: &syn::Pat, v: &Value) -> Option<Stmt> {
        if let Some(some) = option_pattern(pat) {
            return Some(Stmt::Assume {
                value: v.clone(),
                some: !some,
            });
        }
        match strip_pat_type(pat) {
            syn::Pat::TupleStruct(t) if t.path.segments.last().is_some_and(|s| s.ident == "Ok") => {
                Some(Stmt::Failed {
                    value: v.clone(),
                    commands: Vec::new(),
                })
            }
            _ => None,
        }
    }

    /// The position of a unit variant of one of the file's enums (`Side::B`: 1).
    fn variant_index(&self, path: &syn::Path) -> Option<u64> {
        let segs: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
        let [.., ty, variant] = segs.as_slice() else {
            return None;
        };
        let ty = match ty.as_str() {
            "Self" => self.self_ty.clone()?,
            t => t.to_string(),
        };
        let variants = (self.cx.enums).get(&super::index::qualify(self.prefix.as_deref(), &ty))?;
        variants.iter().position(|v| v == variant).map(|i| i as u64)
    }

    /// A comparison of integers as a condition (`i == 0`, `d + 1 < n`): what each arm knows.
    fn compared(&self, cond: &Expr) -> Option<[Stmt; 2]> {
        // `if finish { .. }` of a `bool` local or parameter, `if !finish`: taken where it
        // holds 1 (`true`), or 0.
        match strip(cond) {
            Expr::Path(_) => {
                return comparison(ArithOp::Ne, self.pure_int(cond)?, Value::Int(0));
            }
            Expr::Unary(u)
                if matches!(u.op, syn::UnOp::Not(_)) && matches!(strip(&u.expr), Expr::Path(_)) =>
            {
                return comparison(ArithOp::Eq, self.pure_int(&u.expr)?, Value::Int(0));
            }
            // `if !events.is_empty()`: whether the list has members.
            Expr::MethodCall(m) if m.method == "is_empty" => {
                return comparison(ArithOp::Eq, self.local_len(m)?, Value::Int(0));
            }
            Expr::Unary(u) if matches!(u.op, syn::UnOp::Not(_)) => {
                if let Expr::MethodCall(m) = strip(&u.expr) {
                    if m.method == "is_empty" {
                        return comparison(ArithOp::Ne, self.local_len(m)?, Value::Int(0));
                    }
                }
            }
            _ => {}
        }
        let Expr::Binary(b) = strip(cond) else {
            return None;
        };
        let op = match b.op {
            syn::BinOp::Eq(_) => ArithOp::Eq,
            syn::BinOp::Ne(_) => ArithOp::Ne,
            syn::BinOp::Lt(_) => ArithOp::Lt,
            syn::BinOp::Le(_) => ArithOp::Le,
            syn::BinOp::Gt(_) => ArithOp::Gt,
            syn::BinOp::Ge(_) => ArithOp::Ge,
            _ => return None,
        };
        comparison(op, self.pure_int(&b.left)?, self.pure_int(&b.right)?)
    }

    /// An integer expression without effects, as a value: a local, a literal, arithmetic.
    fn pure_int(&self, e: &Expr) -> Option<Value> {
        match strip(e) {
            Expr::Lit(_) => int_lit(e).map(Value::Int),
            Expr::Path(p) => {
                let last = p.path.segments.last()?.ident.to_string();
                if let Some(n) = api_bool(&last) {
                    return Some(Value::Int(n));
                }
                let v = self.lookup(&p.path.get_ident()?.to_string())?;
                Some(Value::Place(Place::var(v)))
            }
            Expr::Cast(c) => self.pure_int(&c.expr),
            Expr::MethodCall(m) if m.method == "len" => self.local_len(m),
            Expr::Binary(b) => {
                let v = arith(
                    arith_op(&b.op),
                    self.pure_int(&b.left)?,
                    self.pure_int(&b.right)?,
                );
                matches!(v, Value::Arith { .. }).then_some(v)
            }
            _ => None,
        }
    }

    /// The parameter a `&mut` to events names (`ready` of `ready: &mut EventList`).
    fn events_param(&self, e: &Expr) -> Option<Var> {
        let Expr::Path(p) = strip(e) else {
            return None;
        };
        let v = self.lookup(&p.path.get_ident()?.to_string())?;
        (self.vars[v].member == Member::Ref).then_some(v)
    }

    /// How many members a local list has, for `x.len()` or `x.is_empty()` without arguments.
    fn local_len(&self, m: &syn::ExprMethodCall) -> Option<Value> {
        let Expr::Path(p) = strip(&m.receiver) else {
            return None;
        };
        if !m.args.is_empty() {
            return None;
        }
        let v = self.lookup(&p.path.get_ident()?.to_string())?;
        Some(Value::Len(Box::new(Value::Place(Place::var(v)))))
    }

    /// A condition `x.is_null()` or `!x.is_null()` on a local, or on a field or member of
    /// one at an index without effects (`evs[slot]`): that place, and whether the then-arm
    /// is where it is null.
    fn null_test(&mut self, cond: &Expr) -> Option<(Value, bool)> {
        let (call, null_then) = match strip(cond) {
            Expr::Unary(u) if matches!(u.op, syn::UnOp::Not(_)) => (strip(&u.expr), false),
            c => (c, true),
        };
        let Expr::MethodCall(m) = call else {
            return None;
        };
        if m.method != "is_null" || !m.args.is_empty() || !self.pure_place(&m.receiver) {
            return None;
        }
        match self.expr(&m.receiver) {
            v @ Value::Place(_) => Some((v, null_then)),
            _ => None,
        }
    }

    /// A local, or a field or member of one at an index without effects.
    fn pure_place(&self, e: &Expr) -> bool {
        match strip(e) {
            Expr::Path(p) => p
                .path
                .get_ident()
                .is_some_and(|i| self.lookup(&i.to_string()).is_some()),
            Expr::Field(f) => self.pure_place(&f.base),
            Expr::Index(i) => self.pure_place(&i.expr) && self.pure_int(&i.index).is_some(),
            _ => false,
        }
    }

    /// The member of list `p` at index `idx` (written as `index`).
    fn member(&mut self, mut p: Place, idx: Value, index: &Expr) -> Value {
        p.proj.push(match idx {
            Value::Int(n) => Proj::Index(n),
            // `kernels["gain"]`: the value kept for that key.
            Value::Str(k) => Proj::Key(k),
            Value::Place(i) if i.proj.is_empty() => Proj::Var(i.var),
            // `state[self.cur]`: the member at what the field holds.
            Value::Place(i) if i.is_definite() => Proj::At(Box::new(i)),
            // `queues[(i + 1) % n]`: the member at what the index comes to.
            a @ Value::Arith { .. } => Proj::Var(self.temp_holding(a, TypeHint::Scalar, index)),
            _ => Proj::AnyIndex,
        });
        Value::Place(p)
    }

    /// A temporary holding `value`, what `e` comes to.
    fn temp_holding(&mut self, value: Value, hint: TypeHint, e: &Expr) -> Var {
        let t = self.new_temp(hint);
        let span = self.span(spans::expr(e));
        self.out.push(Stmt::Assign {
            dst: Place::var(t),
            value,
            span,
        });
        t
    }

    /// The list and first index a local view of a list stands for.
    pub(super) fn view_of(&self, e: &Expr) -> Option<(Place, Value)> {
        let Expr::Path(p) = strip(e) else {
            return None;
        };
        let v = self.lookup(&p.path.get_ident()?.to_string())?;
        self.views.get(&v).cloned()
    }

    /// `let events = Arc::clone(&events);`, `let (q, log) = (&q, Arc::clone(&log));`: each
    /// name is another pointer to the same local, so a push through one is seen through the
    /// other. Only where every part is such a pointer and at least one is a shared one.
    pub(super) fn bind_shared(&mut self, l: &syn::Local) -> bool {
        let Some(init) = l.init.as_ref().filter(|i| i.diverge.is_none()) else {
            return false;
        };
        let pairs: Vec<(&syn::Pat, &Expr)> = match (strip_pat_type(&l.pat), strip(&init.expr)) {
            (syn::Pat::Tuple(pt), Expr::Tuple(t)) if pt.elems.len() == t.elems.len() => {
                pt.elems.iter().zip(&t.elems).collect()
            }
            (syn::Pat::Tuple(_), _) => return false,
            (p, _) => vec![(p, &*init.expr)],
        };
        let mut shared = false;
        let mut binds = Vec::new();
        for (pat, e) in pairs {
            let (syn::Pat::Ident(pi), Some((of, is_shared))) =
                (strip_pat_type(pat), self.pointer_to(e))
            else {
                return false;
            };
            if pi.subpat.is_some() {
                return false;
            }
            shared |= is_shared;
            binds.push((pi.ident.to_string(), of));
        }
        if !shared {
            return false;
        }
        if let Some(scope) = self.scopes.last_mut() {
            scope.extend(binds);
        }
        true
    }

    /// The local `e` points to: `Arc::clone(&x)`, `Rc::clone(&x)` (shared: `true`), `&x`,
    /// `&mut x`.
    fn pointer_to(&self, e: &Expr) -> Option<(Var, bool)> {
        fn bare(e: &Expr) -> &Expr {
            match e {
                Expr::Paren(p) => bare(&p.expr),
                Expr::Group(g) => bare(&g.expr),
                _ => e,
            }
        }
        let local = |e: &Expr| match bare(e) {
            Expr::Path(p) if p.qself.is_none() => self.lookup(&p.path.get_ident()?.to_string()),
            _ => None,
        };
        match bare(e) {
            Expr::Reference(r) => local(&r.expr).map(|v| (v, false)),
            Expr::RawAddr(r) => local(&r.expr).map(|v| (v, false)),
            Expr::Call(c) if c.args.len() == 1 => {
                let segs = path_segments(&c.func)?;
                let [.., ty, f] = segs.as_slice() else {
                    return None;
                };
                let Expr::Reference(r) = bare(&c.args[0]) else {
                    return None;
                };
                (matches!(ty.as_str(), "Arc" | "Rc") && f == "clone")
                    .then(|| local(&r.expr))
                    .flatten()
                    .map(|v| (v, true))
            }
            _ => None,
        }
    }

    /// `let (left, right) = list.split_at_mut(m);`: `left[i]` is `list[i]` and `right[j]` is
    /// `list[m + j]` (two members of one list borrowed at once, as a halo exchange does).
    pub(super) fn bind_split(&mut self, l: &syn::Local) -> bool {
        let (syn::Pat::Tuple(pt), Some(init)) = (strip_pat_type(&l.pat), &l.init) else {
            return false;
        };
        let Expr::MethodCall(m) = strip(&init.expr) else {
            return false;
        };
        let names: Vec<String> = (pt.elems.iter())
            .filter_map(|p| match strip_pat_type(p) {
                syn::Pat::Ident(i) => Some(i.ident.to_string()),
                _ => None,
            })
            .collect();
        if !matches!(m.method.to_string().as_str(), "split_at_mut" | "split_at")
            || m.args.len() != 1
            || names.len() != 2
            || init.diverge.is_some()
        {
            return false;
        }
        let Value::Place(list) = self.expr(&m.receiver) else {
            return false;
        };
        let mid = match self.expr(&m.args[0]) {
            v @ (Value::Int(_) | Value::Place(_)) => v,
            a => Value::Place(Place::var(self.temp_holding(
                a,
                TypeHint::Scalar,
                &m.args[0],
            ))),
        };
        for (name, from) in names.iter().zip([Value::Int(0), mid]) {
            let v = self.bind(name, TypeHint::Unknown);
            self.views.insert(v, (list.clone(), from));
        }
        true
    }

    /// Whether `e` is a local of no known type and `v` a handle of the program's: a list
    /// that holds what is stored into it.
    fn takes_handle(&self, e: &Expr, v: &Value) -> bool {
        let p = match strip(e) {
            Expr::Path(p) => p,
            // `blk[s][t] = ..` of rows of slots.
            Expr::Index(ix) => return self.takes_handle(&ix.expr, v),
            _ => return false,
        };
        let local = (p.path.get_ident()).and_then(|i| self.lookup(&i.to_string()));
        let handle = match v {
            Value::Place(h) => h.proj.is_empty() && self.vars[h.var].hint.is_handle(),
            Value::New(_) => true,
            _ => false,
        };
        handle && local.is_some_and(|l| self.vars[l].hint == TypeHint::Unknown)
    }

    /// `Ok(job)` of `rx.recv()` (or `try_recv`, `recv_timeout`) on a receiver of a struct
    /// of the crate: `job` is that struct, with its fields' types.
    fn type_received(&mut self, pat: &syn::Pat, e: &Expr) {
        let Expr::MethodCall(mc) = strip(e) else {
            return;
        };
        if !matches!(
            mc.method.to_string().as_str(),
            "recv" | "try_recv" | "recv_timeout"
        ) {
            return;
        }
        let Expr::Path(rx) = strip(&mc.receiver) else {
            return;
        };
        let Some(msg) = (rx.path.get_ident())
            .and_then(|i| self.lookup(&i.to_string()))
            .and_then(|v| self.received.get(&v).cloned())
        else {
            return;
        };
        let syn::Pat::TupleStruct(t) = pat else {
            return;
        };
        let [syn::Pat::Ident(pi)] = (t.elems.iter().collect::<Vec<_>>())[..] else {
            return;
        };
        if let Some(v) = self.lookup(&pi.ident.to_string()) {
            self.type_var(v, Some(msg));
        }
    }

    /// Whether `e` names a local list of events by its type (`[cl_event; MAX_DEV]`).
    pub(super) fn holds_events(&self, e: &Expr) -> bool {
        let Expr::Path(p) = strip(e) else {
            return false;
        };
        (p.path.get_ident())
            .and_then(|i| self.lookup(&i.to_string()))
            .is_some_and(|v| self.vars[v].hint == TypeHint::EventList)
    }

    /// Whether `e` names a variable, or a field of one, that is a collection of OpenCL
    /// handles by its type (`out: [cl_event; 2]`, `queues: &[CommandQueue]`, `self.done`).
    pub(super) fn holds_handles(&self, e: &Expr) -> bool {
        let (base, field) = match strip(e) {
            Expr::Path(p) => (p, None),
            // `blk[s]` of rows of handles.
            Expr::Index(ix) => return self.holds_handles(&ix.expr),
            // `self.done[slot]`: a field whose type is a list of handles.
            Expr::Field(f) => match (strip(&f.base), &f.member) {
                (Expr::Path(p), syn::Member::Named(name)) => (p, Some(name.to_string())),
                _ => return false,
            },
            _ => return false,
        };
        let Some(v) = base
            .path
            .get_ident()
            .and_then(|i| self.lookup(&i.to_string()))
        else {
            return false;
        };
        let info = &self.vars[v];
        match field {
            None => {
                info.hint == TypeHint::EventList
                    || info.fields.iter().any(|(n, _)| *n == members_of(""))
            }
            Some(f) => info
                .fields
                .iter()
                .any(|(n, h)| (*n == f && *h == TypeHint::EventList) || *n == members_of(&f)),
        }
    }

    /// The error path of a `?` whose operand was lowered from `start` on, in a function that
    /// makes raw events: the function returns its error there, and the raw events the
    /// operand's own commands would have made were not made (the command failed), nor those
    /// of the calls whose status it checks (`check(err, "upload")?` of `let err =
    /// clEnqueueWriteBuffer(.., &mut ev)`). Not in a closure, whose caller takes its error on.
    fn try_exit(&mut self, operand: &Expr, start: usize, at: proc_macro2::Span) {
        if !self.raw_events
            || self.closure_calls > 0
            || self.expanding > 0
            || !self.status_check(operand)
        {
            return;
        }
        let span = self.span(at);
        let checked: Vec<Place> = (expr_idents(operand).iter())
            .filter_map(|i| self.statuses.get(&self.lookup(i)?))
            .flatten()
            .cloned()
            .collect();
        let made: Vec<Place> = (self.out[start..].iter())
            .filter_map(|s| match s {
                Stmt::Enqueue {
                    cmd,
                    event: Some(p),
                } if cmd.raw_event => Some(p.clone()),
                _ => None,
            })
            .chain(checked)
            .collect();
        let exit = vec![
            Stmt::ErrorExit,
            Stmt::Return {
                value: Value::Unknown,
                span: Some(span),
            },
        ];
        let failed = crate::frontend::failed_exit(exit, &made, span);
        self.out.push(Stmt::Branch(vec![failed, Vec::new()]));
    }

    /// Whether `e` is the program's own check of a C API status, the C idiom in Rust:
    /// `check(clFlush(q), "flush")`, or `check(err, "upload")` of a status a command's call
    /// returned. A `?` on the bindings' own calls (`enqueue_nd_range_kernel(..)?`) is Rust's
    /// ordinary propagation, and the analysis follows the path where they succeed.
    fn status_check(&self, e: &Expr) -> bool {
        let Expr::Call(c) = strip(e) else {
            return false;
        };
        c.args.iter().any(|a| match strip(a) {
            Expr::Call(inner) => path_segments(&inner.func)
                .and_then(|s| s.last().cloned())
                .is_some_and(|f| {
                    f.strip_prefix("cl")
                        .is_some_and(|rest| rest.starts_with(|ch: char| ch.is_ascii_uppercase()))
                }),
            Expr::Path(p) => (p.path.get_ident())
                .and_then(|i| self.lookup(&i.to_string()))
                .is_some_and(|v| self.statuses.contains_key(&v)),
            _ => false,
        })
    }

    pub(super) fn expr(&mut self, e: &Expr) -> Value {
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
                        if self.closures.contains_key(&v) || self.closure_lists.contains_key(&v) {
                            let closures = (self.closures.get(&v).into_iter())
                                .chain(self.closure_lists.get(&v).into_iter().flatten());
                            let captured: Vec<Value> = closures
                                .flat_map(|c| c.captured.values())
                                .map(|x| Value::Place(Place::var(*x)))
                                .collect();
                            let span = self.span(spans::expr(e));
                            self.forget(captured, span);
                        }
                        return Value::Place(Place::var(v));
                    }
                    // `TAPS` of `const TAPS: [f32; 5] = [..]`: the same host memory in every
                    // function.
                    if let Some(&kind) = self.cx.consts.host.get(&name) {
                        return Value::Place(Place::var(self.host_const(&name, kind)));
                    }
                    // `STAGES` of `const STAGES: [&str; 3] = ["shift", "gain", "clip"]`.
                    if let Some(strs) = self.cx.consts.str_arrays.get(&name) {
                        return Value::List(strs.iter().cloned().map(Value::Str).collect());
                    }
                    match self.cx.consts.values.get(&name) {
                        Some(Const::Int(n)) => return Value::Int(*n),
                        // A kernel source or name handed to a helper.
                        Some(Const::Str(s)) => return Value::Str(s.clone()),
                        _ => {}
                    }
                }
                // `Side::B` of the file's `enum Side { A, B }`: its position.
                if let Some(n) = self.variant_index(&p.path) {
                    return Value::Int(n);
                }
                // `flags::MIGRATE_MEM_OBJECT_HOST`, handed to a helper that migrates; the API's
                // booleans (`CL_BLOCKING` handed to a helper that tests it).
                let last = p.path.segments.last().map(|s| s.ident.to_string());
                let flag = |l: &str| api_bool(l).or_else(|| migration_flag(l));
                last.as_deref()
                    .and_then(flag)
                    .map_or(Value::Scalar, Value::Int)
            }
            Expr::Lit(l) => match &l.lit {
                syn::Lit::Int(i) => i.base10_parse().map_or(Value::Scalar, Value::Int),
                syn::Lit::Bool(b) => Value::Int(u64::from(b.value)),
                // A kernel's name handed to a helper that makes it.
                syn::Lit::Str(s) => Value::Str(s.value()),
                _ => Value::Scalar,
            },
            Expr::Reference(r) => self.expr(&r.expr),
            // `&raw const x`, `&raw mut x`: a pointer to the same place.
            Expr::RawAddr(r) => self.expr(&r.expr),
            Expr::Paren(p) => self.expr(&p.expr),
            Expr::Group(g) => self.expr(&g.expr),
            Expr::Unary(u) => {
                let v = self.expr(&u.expr);
                match u.op {
                    syn::UnOp::Deref(_) => v,
                    _ => Value::Scalar,
                }
            }
            Expr::Try(t) => {
                let start = self.out.len();
                let v = self.expr(&t.expr);
                self.try_exit(&t.expr, start, spans::expr(e));
                v
            }
            Expr::Await(a) => self.expr(&a.base),
            Expr::Cast(c) => {
                let v = self.expr(&c.expr);
                match &*c.ty {
                    Type::Ptr(_) | Type::Infer(_) | Type::Reference(_) => v,
                    Type::Path(p) if p.path.is_ident("cl_mem") || p.path.is_ident("cl_event") => v,
                    // `i as cl_uint` of a loop's count: the same number.
                    Type::Path(p)
                        if INT_TYPES.iter().any(|t| p.path.is_ident(t))
                            && matches!(&v, Value::Place(pl) if pl.proj.is_empty()
                                && self.vars[pl.var].hint == TypeHint::Unknown
                                && matches!(strip(&c.expr), Expr::Path(_))) =>
                    {
                        v
                    }
                    // `(frame_no % 2) as usize`: the same number.
                    Type::Path(p)
                        if INT_TYPES.iter().any(|t| p.path.is_ident(t))
                            && matches!(v, Value::Arith { .. }) =>
                    {
                        v
                    }
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
                        let name = member_name(&f.member);
                        p.proj.push(Proj::Field(name));
                        Value::Place(p)
                    }
                    _ => Value::Unknown,
                }
            }
            Expr::Index(ix) => {
                // `right[0]` of a view: the member of its list from where the view starts.
                if let Some((list, from)) = self.view_of(&ix.expr) {
                    let idx = self.expr(&ix.index);
                    let at = match from {
                        Value::Int(0) => idx,
                        from => arith(Some(ArithOp::Add), from, idx),
                    };
                    return self.member(list, at, &ix.index);
                }
                let base = self.expr(&ix.expr);
                if let Expr::Range(r) = &*ix.index {
                    for x in r.start.iter().chain(r.end.iter()) {
                        self.expr(x);
                    }
                    let bounded = r.start.is_some() || r.end.is_some();
                    let base = match base {
                        // `&samples[off..off + n]` of host data: other bytes than the
                        // whole, another piece in each pass of a loop.
                        Value::Place(p)
                            if bounded
                                && p.proj.is_empty()
                                && matches!(self.vars[p.var].hint, TypeHint::Host(_)) =>
                        {
                            None
                        }
                        Value::Place(p) => Some(p),
                        // `&[e0, e1][..]`: the list itself (a wait list of events).
                        Value::List(items) if !bounded => return Value::List(items),
                        _ => None,
                    };
                    return Value::Host {
                        kind: HostKind::Slice,
                        base,
                    };
                }
                let idx = self.expr(&ix.index);
                match base {
                    // `&a_full[span]` of host data by a range held in a local: a piece of
                    // that host data, as `&a_full[off..off + n]` is: other bytes than the
                    // whole, another piece in each pass of a loop.
                    Value::Place(p)
                        if p.proj.is_empty()
                            && matches!(self.vars[p.var].hint, TypeHint::Host(_))
                            && matches!(&idx, Value::Place(i) if i.proj.is_empty() && self.ranges.contains(&i.var)) =>
                    {
                        Value::Host {
                            kind: HostKind::Slice,
                            base: None,
                        }
                    }
                    Value::Place(p) => self.member(p, idx, &ix.index),
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
                let item = self.expr(&r.expr);
                let len = match self.expr(&r.len) {
                    Value::Int(n) => Some(n),
                    _ => None,
                };
                // `[ptr::null_mut(); 2]`: slots for handles, filled in later; `[[ptr::null_mut();
                // 2]; 2]` rows of them.
                if let Some(n) = len.filter(|&n| n * slots(&item).unwrap_or(MAX_SLOTS) <= MAX_SLOTS)
                {
                    return Value::List(vec![item; n as usize]);
                }
                Value::Host {
                    kind: HostKind::Array { len },
                    base: None,
                }
            }
            // `(bufs, events)`: a struct of fields `0`, `1`, .. as `let (a, b) = ..` and
            // `pair.1` name them.
            Expr::Tuple(t) if !t.elems.is_empty() => Value::Struct(
                (t.elems.iter().enumerate())
                    .map(|(i, x)| (i.to_string(), self.expr(x)))
                    .collect(),
            ),
            Expr::Struct(s) => {
                let declared = (s.path.segments.last())
                    .and_then(|t| self.cx.structs.get(&t.ident.to_string()))
                    .cloned()
                    .unwrap_or_default();
                let fields = s
                    .fields
                    .iter()
                    .map(|f| {
                        let name = member_name(&f.member);
                        let v = self.expr(&f.expr);
                        // A field declared as host data (`vals: Vec<f32>`) given a list of
                        // numbers built here holds host data.
                        let host = declared.iter().find_map(|(n, h)| match h {
                            TypeHint::Host(kind) if *n == name => Some(*kind),
                            _ => None,
                        });
                        let v = match (host, v) {
                            (Some(kind), Value::List(items))
                                if items.iter().all(|x| {
                                    matches!(x, Value::Scalar | Value::Int(_) | Value::Unknown)
                                }) =>
                            {
                                Value::Host { kind, base: None }
                            }
                            // A local moved in (`init`, or `let mut vals = Vec::new()` pushed
                            // in a loop): the local's host data.
                            (Some(kind), Value::Place(p))
                                if p.proj.is_empty()
                                    && self.vars[p.var].hint == TypeHint::Unknown =>
                            {
                                Value::Host {
                                    kind,
                                    base: Some(p),
                                }
                            }
                            (_, v) => v,
                        };
                        (name, v)
                    })
                    .collect::<Vec<_>>();
                let Some(rest) = &s.rest else {
                    return Value::Struct(fields);
                };
                // `Stage { len, ..Self::default() }`: the base's value with these fields set.
                let span = self.span(spans::expr(e));
                match self.expr(rest) {
                    base @ (Value::Place(_) | Value::Struct(_)) => {
                        let t = self.new_temp(TypeHint::Unknown);
                        self.out.push(Stmt::Assign {
                            dst: Place::var(t),
                            value: base,
                            span,
                        });
                        for (name, value) in fields {
                            let mut dst = Place::var(t);
                            dst.proj.push(Proj::Field(name));
                            self.out.push(Stmt::Assign { dst, value, span });
                        }
                        Value::Place(Place::var(t))
                    }
                    base => {
                        let mut items: Vec<Value> = fields.into_iter().map(|(_, v)| v).collect();
                        items.push(base);
                        self.forget(items, span);
                        Value::Unknown
                    }
                }
            }
            Expr::Binary(b) => {
                let l = self.expr(&b.left);
                let r = self.expr(&b.right);
                if is_assign_op(&b.op) {
                    let span = self.span(spans::expr(e));
                    self.forget(vec![l], span);
                    return Value::Scalar;
                }
                arith(arith_op(&b.op), l, r)
            }
            Expr::Assign(a) => {
                self.event_outs.clear();
                let v = self.expr(&a.right);
                // `status = clEnqueue..(.., &mut ev)`: a status of those calls.
                let outs = std::mem::take(&mut self.event_outs);
                if let Expr::Path(p) = strip(&a.left) {
                    if let Some(var) = p.path.get_ident().and_then(|i| self.lookup(&i.to_string()))
                    {
                        self.note_status(var, outs);
                    }
                }
                let span = self.span(spans::expr(e));
                // `*b = clCreateBuffer(..)` of an item of a list walked mutably: that member
                // of the list.
                let slot = match &*a.left {
                    Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => {
                        self.item_slot(&u.expr)
                    }
                    _ => None,
                };
                if let Some(dst) = slot {
                    self.out.push(Stmt::Assign {
                        dst,
                        value: v,
                        span,
                    });
                    return Value::Unknown;
                }
                match &*a.left {
                    // `out[d] = ev` into a list of handles, or of a list of no known type
                    // given a handle (`reads[slot] = Some(read)` of `vec![None, None]`):
                    // that member.
                    Expr::Index(ix)
                        if self.holds_handles(&ix.expr) || self.takes_handle(&ix.expr, &v) =>
                    {
                        if let Some(dst) = self.place_of(&a.left) {
                            self.out.push(Stmt::Assign {
                                dst,
                                value: v,
                                span,
                            });
                        }
                    }
                    // Into a list the lowering does not follow: what is stored goes where the
                    // list goes, which is not known.
                    Expr::Index(ix) => {
                        let base = self.expr(&ix.expr);
                        self.expr(&ix.index);
                        self.forget(vec![base], span);
                        if !matches!(v, Value::Unknown | Value::Scalar | Value::Int(_)) {
                            self.out.push(Stmt::Release { events: v, span });
                        }
                    }
                    // `*ready = done` of a `ready: &mut EventList` parameter: the caller's
                    // events are these now.
                    Expr::Unary(u)
                        if matches!(u.op, syn::UnOp::Deref(_))
                            && self.events_param(&u.expr).is_some() =>
                    {
                        if let Some(v_param) = self.events_param(&u.expr) {
                            self.out.push(Stmt::Assign {
                                dst: Place::var(v_param),
                                value: v,
                                span,
                            });
                        }
                    }
                    // `*slot = Some(ev)`: stored where whoever holds the pointee (the
                    // caller, through a `&mut` it passed) has it, and is theirs.
                    Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => {
                        let base = self.expr(&u.expr);
                        self.forget(vec![base], span);
                        if !matches!(v, Value::Unknown | Value::Scalar | Value::Int(_)) {
                            self.out.push(Stmt::Release { events: v, span });
                        }
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
                // `if wait.is_empty() { ptr::null() } else { wait.as_ptr() }`: the list's
                // pointer either way (an empty list's names no event, as the null pointer
                // does).
                if let Some(ptr) = empty_or_pointer(i) {
                    return self.expr(ptr);
                }
                // `if let P = v`: `v` is evaluated before either arm (what it hands on, it
                // hands on either way); the else arm is where `v` is not `P`: `None` for
                // `Some(..)`, a failure for `Ok(..)`.
                let scrutinee = match &*i.cond {
                    Expr::Let(l) => Some(self.scrutinee(&l.expr)),
                    _ => None,
                };
                let otherwise = match (&*i.cond, &scrutinee) {
                    (Expr::Let(l), Some(v)) => self.complement(&l.pat, v),
                    _ => None,
                };
                // `if i == 0 { .. }`: each arm goes on only where the comparison comes out so.
                let compared = self.compared(&i.cond);
                let otherwise = otherwise.or(compared.as_ref().map(|[_, no]| no.clone()));
                // `if !prev.is_null() { .. }`: each arm goes on only where the handle is what
                // the condition says.
                let null_test = self.null_test(&i.cond);
                let otherwise =
                    otherwise.or(null_test.clone().map(|(v, null_then)| Stmt::Assume {
                        value: v,
                        some: null_then,
                    }));
                // A condition with effects (`if launch(q, k, &mut ev) != 0 { .. }`) runs
                // before either arm; the events of the calls it tests for failure exist only
                // on the arm where they succeeded.
                let tested = match (&*i.cond, &null_test) {
                    (Expr::Let(_), _) | (_, Some(_)) => None,
                    _ => Some(self.tested_calls(&i.cond)),
                };
                self.scopes.push(HashMap::new());
                let saved = std::mem::take(&mut self.out);
                if let (Expr::Let(l), Some(v)) = (&*i.cond, scrutinee) {
                    self.assume_option(&l.pat, &v);
                    self.assume_failed(&l.pat, &v);
                    let span = self.span(spans::pat(&l.pat));
                    self.let_pattern(&l.pat, v, span);
                    self.type_received(&l.pat, &l.expr);
                }
                if let Some((v, null_then)) = null_test {
                    self.out.push(Stmt::Assume {
                        value: v,
                        some: !null_then,
                    });
                }
                if let Some([yes, _]) = compared {
                    self.out.push(yes);
                }
                let then_value = self.block_inline(&i.then_branch);
                let then_arm = std::mem::replace(&mut self.out, saved);
                self.scopes.pop();
                let (else_arm, else_value) = match &i.else_branch {
                    Some((_, e)) => {
                        let saved = std::mem::take(&mut self.out);
                        self.out.extend(otherwise);
                        self.scopes.push(HashMap::new());
                        let v = self.expr(e);
                        self.scopes.pop();
                        (std::mem::replace(&mut self.out, saved), v)
                    }
                    None => (otherwise.into_iter().collect(), Value::Unknown),
                };
                let mut arms = vec![then_arm, else_arm];
                // `if status != CL_SUCCESS { return .. }`: on the arm that leaves, the calls
                // behind `status` failed and made no events.
                let failed = (self.failed_calls(&i.cond)).or_else(|| {
                    let (events, failed_then) = tested?;
                    (!events.is_empty()).then_some((events, failed_then?))
                });
                if let Some((events, failed_then)) = failed {
                    let arm = &mut arms[usize::from(!failed_then)];
                    if leaves(arm) {
                        for e in events.into_iter().rev() {
                            arm.insert(
                                0,
                                Stmt::Failed {
                                    value: Value::Place(e),
                                    commands: Vec::new(),
                                },
                            );
                        }
                    }
                }
                // `if failed { Err(status) } else { Ok(event) }`: the value is the `Ok` arm's;
                // the other hands its caller an error, no object.
                let then_err = block_is_err(&i.then_branch);
                let else_err = (i.else_branch.as_ref()).is_some_and(|(_, e)| expr_is_err(e));
                let v = match (then_err, else_err) {
                    (true, false) => else_value,
                    (false, true) => then_value,
                    _ => self.arms_value(&mut arms, vec![then_value, else_value]),
                };
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
                    self.assume_option(&arm.pat, &scrutinee);
                    self.assume_failed(&arm.pat, &scrutinee);
                    // `Side::A => ..` of the file's enum: the arm taken when it holds `A`.
                    if let syn::Pat::Path(pp) = strip_pat_type(&arm.pat) {
                        if let Some(n) = self.variant_index(&pp.path) {
                            let arm_test =
                                comparison(ArithOp::Eq, scrutinee.clone(), Value::Int(n));
                            if let Some([taken, _]) = arm_test {
                                self.out.push(taken);
                            }
                        }
                    }
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
                if let Some(filtered) = filtered_loop(f) {
                    return self.expr(&Expr::ForLoop(filtered));
                }
                if self.walk_closure_list(f) {
                    return Value::Unknown;
                }
                let helper = self.iterator_helper(&f.expr);
                let iterable = helper.as_ref().unwrap_or(&f.expr);
                self.each(iterable, &f.pat, EachBody::Block(&f.body), false);
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
                // A closure's `return Err(..)`: its caller's `?` takes it on, and the
                // analysis follows the path where calls succeed, as it does for `?`. So for
                // the `return Err(..)` of a checking macro of the file (`cl_try!(err)`),
                // which is the `?` of that code.
                let error = r.expr.as_deref().is_some_and(|x| {
                    matches!(strip(x), Expr::Call(c) if path_segments(&c.func).is_some_and(|s| s == ["Err"]))
                });
                if error && (self.closure_calls > 0 || self.expanding > 0) {
                    self.out.push(Stmt::Branch(Vec::new()));
                } else {
                    // A function's `return Err(..)`: a caller that follows it goes on from
                    // its other exits, as its `?` does.
                    if error {
                        self.out.push(Stmt::ErrorExit);
                    }
                    let span = Some(self.span(spans::expr(e)));
                    self.out.push(Stmt::Return { value, span });
                }
                Value::Unknown
            }
            Expr::Closure(c) => {
                let captured: Vec<Value> = expr_idents(&c.body)
                    .iter()
                    .filter_map(|i| self.lookup(i))
                    .map(|v| Value::Place(Place::var(v)))
                    .collect();
                let span = self.span(spans::expr(e));
                self.forget(captured, span);
                Value::Unknown
            }
            Expr::Macro(m) => self.mac(&m.mac),
            Expr::MethodCall(mc) => self.method_call(mc),
            Expr::Call(c) => self.call(c),
            Expr::Let(l) => {
                let v = self.expr(&l.expr);
                self.assume_option(&l.pat, &v);
                let span = self.span(spans::expr(e));
                self.let_pattern(&l.pat, v, span);
                self.type_received(&l.pat, &l.expr);
                Value::Scalar
            }
            _ => Value::Unknown,
        }
    }

    pub(super) fn mac(&mut self, m: &syn::Macro) -> Value {
        /// `vec![None; n]` of at most this many is a list of empty slots.
        const MAX_EMPTY_SLOTS: u64 = 16;
        let name = m
            .path
            .segments
            .last()
            .map(|s| s.ident.to_string())
            .unwrap_or_default();
        let span = self.span(spans::mac(m));
        // Its tokens as expressions separated by commas, where they are.
        let args = macro_args(m);
        if name == "vec" {
            let repeat = |input: syn::parse::ParseStream| -> syn::Result<(Expr, Expr)> {
                let e: Expr = input.parse()?;
                input.parse::<syn::Token![;]>()?;
                Ok((e, input.parse()?))
            };
            if let Ok((e, n)) = m.parse_body_with(repeat) {
                let item = self.expr(&e);
                let count = self.expr(&n);
                // `vec![None; SLOTS]`: that many empty slots, for events or objects; as many as
                // the analysis finds for `vec![ptr::null_mut(); queues.len()]`.
                match (&item, count) {
                    (Value::Null, Value::Int(k)) if k <= MAX_EMPTY_SLOTS => {
                        return Value::List(vec![Value::Null; k as usize]);
                    }
                    (
                        Value::Null,
                        count @ (Value::Len(_) | Value::Place(_) | Value::Arith { .. }),
                    ) => {
                        return Value::Slots(Box::new(count));
                    }
                    _ => {}
                }
                return Value::Host {
                    kind: HostKind::Vec,
                    base: None,
                };
            }
            if let Some(items) = &args {
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
            if let Some(items) = &args {
                for x in items {
                    self.expr(x);
                }
                return Value::Unknown;
            }
        }
        // A checking macro around one call (`cl!(clEnqueueWriteBuffer(..))`, `check!(f(..)?)`,
        // `cl!(unsafe { enqueue_..(..) }, "what")`), the others its message: the call is code
        // of this function, run once.
        if let Some(items) = &args {
            let message = |x: &Expr| matches!(strip(x), Expr::Lit(_) | Expr::Path(_));
            if let Some((first, rest)) = items.split_first() {
                if checked_call(first) && rest.iter().all(message) {
                    return self.expr(first);
                }
            }
        }
        // Any other macro of the file (`arg!(kernel, 2, &value)` around `clSetKernelArg`):
        // what it expands to.
        if self.expanding < MAX_EXPANSION_DEPTH && self.expansions < MAX_EXPANSIONS {
            let expanded = (self.cx.macros.get(&name))
                .and_then(|rules| super::macros::expand(rules, m, spans::path_first(&m.path)?));
            if let Some(e) = expanded {
                self.expansions += 1;
                self.expanding += 1;
                let v = self.expr(&e);
                self.expanding -= 1;
                return v;
            }
        }
        // A macro handed closures (`program_closures!(|p, ..| ..)`): their bodies are code
        // of this function, run once each.
        if let Some(items) = &args {
            if items.iter().any(|x| closure_of(x).is_some()) {
                for x in items {
                    match closure_of(x) {
                        Some(c) => {
                            let args = vec![Value::Unknown; c.inputs.len()];
                            if self.inline_closure(c, None, args, None).is_none() {
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

    /// The local a string expression reads, through the calls `str_value` looks through
    /// (`cname.as_ptr()`, `CString::new(name)?`): where the string is not known here, the
    /// analysis may know what the local holds (a helper's parameter, given a literal).
    pub(super) fn str_place(&self, e: &Expr) -> Option<Place> {
        match strip(e) {
            Expr::Path(p) => {
                let v = self.lookup(&p.path.get_ident()?.to_string())?;
                Some(Place::var(v))
            }
            Expr::MethodCall(m) if STRING_VIEWS.contains(&m.method.to_string().as_str()) => {
                self.str_place(&m.receiver)
            }
            Expr::Try(t) => self.str_place(&t.expr),
            Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => self.str_place(&u.expr),
            Expr::Call(c) if c.args.len() == 1 && string_ctor(&c.func) => {
                self.str_place(&c.args[0])
            }
            _ => None,
        }
    }

    /// A string the expression is known to hold: a literal, a constant, a local bound to one,
    /// or one of these through `CString::new`, `as_ptr`, `unwrap`, `?`.
    pub(super) fn str_value(&mut self, e: &Expr) -> Option<String> {
        match strip(e) {
            Expr::Index(ix) => {
                let Expr::Path(p) = strip(&ix.expr) else {
                    return None;
                };
                let v = self.lookup(&p.path.get_ident()?.to_string())?;
                let k = int_lit(&ix.index)?;
                self.str_lists
                    .get(&v)?
                    .get(usize::try_from(k).ok()?)?
                    .clone()
            }
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
                match self.cx.consts.values.get(&name) {
                    Some(Const::Str(s)) => Some(s.clone()),
                    _ => None,
                }
            }
            Expr::MethodCall(m) if STRING_VIEWS.contains(&m.method.to_string().as_str()) => {
                self.str_value(&m.receiver)
            }
            Expr::Try(t) => self.str_value(&t.expr),
            Expr::Call(c) if c.args.len() == 1 && string_ctor(&c.func) => {
                self.str_value(&c.args[0])
            }
            _ => None,
        }
    }

    /// OpenCL C source text of an expression: a literal, a constant, or `include_str!`.
    pub(super) fn source_text(&mut self, e: &Expr) -> Option<String> {
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

    /// The local one program source reads (`&[src]`, `&text.as_ptr()`), as `str_place`.
    pub(super) fn sources_place(&self, e: &Expr) -> Option<Place> {
        match strip(e) {
            Expr::Array(a) if a.elems.len() == 1 => self.str_place(&a.elems[0]),
            other => self.str_place(other),
        }
    }

    pub(super) fn sources_text(&mut self, e: &Expr) -> Option<String> {
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

fn arith_op(op: &syn::BinOp) -> Option<ArithOp> {
    match op {
        syn::BinOp::Add(_) => Some(ArithOp::Add),
        syn::BinOp::Sub(_) => Some(ArithOp::Sub),
        syn::BinOp::Mul(_) => Some(ArithOp::Mul),
        syn::BinOp::Div(_) => Some(ArithOp::Div),
        syn::BinOp::Rem(_) => Some(ArithOp::Rem),
        _ => None,
    }
}

/// Whether a lowered arm leaves what it is in at its top level: a `return`, `break` or
/// `continue`.
fn leaves(arm: &[Stmt]) -> bool {
    arm.iter()
        .any(|s| matches!(s, Stmt::Return { .. } | Stmt::Break | Stmt::Continue))
}

/// Whether an expression's value is `Err(..)` (directly, or as its block's tail).
fn expr_is_err(e: &Expr) -> bool {
    match strip(e) {
        Expr::Call(c) => path_segments(&c.func).is_some_and(|s| s == ["Err"]),
        Expr::Block(b) => block_is_err(&b.block),
        _ => false,
    }
}

fn block_is_err(b: &syn::Block) -> bool {
    matches!(b.stmts.last(), Some(syn::Stmt::Expr(e, None)) if expr_is_err(e))
}

/// Integer types a count is cast to (`i as cl_uint`).
const INT_TYPES: &[&str] = &[
    "u8", "u16", "u32", "u64", "usize", "i8", "i16", "i32", "i64", "isize", "cl_uint", "cl_int",
    "cl_ulong", "cl_long", "size_t",
];

/// Whether `e` is a call, through `?`, parentheses and an `unsafe` block around it alone.
fn checked_call(e: &Expr) -> bool {
    match e {
        Expr::Try(t) => checked_call(&t.expr),
        Expr::Paren(p) => checked_call(&p.expr),
        Expr::Unsafe(u) => match u.block.stmts.as_slice() {
            [syn::Stmt::Expr(x, None)] => checked_call(x),
            _ => false,
        },
        Expr::Call(_) | Expr::MethodCall(_) => true,
        _ => false,
    }
}

/// How many handle slots `v` is, as `[ptr::null_mut(); n]` (nested) makes them: `None` for
/// anything else.
fn slots(v: &Value) -> Option<u64> {
    match v {
        Value::Null => Some(1),
        Value::List(items) => items.iter().try_fold(0, |n, x| Some(n + slots(x)?)),
        _ => None,
    }
}
