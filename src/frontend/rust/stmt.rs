//! Statements and control flow: blocks and their scopes, `let` and its patterns, branches
//! (the value of an `if` or `match` whose arms differ) and conditions.

use std::collections::HashMap;

use syn::{Expr, Pat, Stmt as SynStmt};

use super::apply::asks_out_of_order;
use super::syntax::{int_lit, member_name, pat_idents, pat_type, strip, strip_pat_type};
use super::types::{first_type_arg, member_hint, type_bytes, unwrapped};
use super::{floats, spans, Lowerer};
use crate::ir::*;

impl Lowerer<'_, '_> {
    /// Lowers a block into the current statement list, in a new scope; returns the value of
    /// its tail expression.
    pub(super) fn block_inline(&mut self, b: &syn::Block) -> Value {
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
    pub(super) fn block_separate(&mut self, b: &syn::Block) -> Vec<Stmt> {
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
            SynStmt::Local(l) if self.bind_closure_list(l) => Value::Unknown,
            SynStmt::Local(l) if self.bind_split(l) => Value::Unknown,
            SynStmt::Local(l) if self.bind_shared(l) => Value::Unknown,
            SynStmt::Local(l) => {
                self.event_outs.clear();
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
                let outs = std::mem::take(&mut self.event_outs);
                // `let b: Vec<f32> = (0..n).map(|i| if .. { 0.9 } else { 0.0 }).collect();`:
                // the type says what the passes' values are, host data.
                let value = match (pat_type(&l.pat).map(|t| self.hint_of(t)), value) {
                    (Some(TypeHint::Host(kind)), Value::Place(p))
                        if p.proj.is_empty() && self.mapped.contains(&p.var) =>
                    {
                        Value::Host { kind, base: None }
                    }
                    (Some(TypeHint::Host(kind)), Value::Unknown)
                        if l.init.as_ref().is_some_and(|i| ends_in_collect(&i.expr)) =>
                    {
                        Value::Host { kind, base: None }
                    }
                    (_, v) => v,
                };
                let value_of_init = value.clone();
                let bytes = match pat_type(&l.pat) {
                    Some(t) => type_bytes(t),
                    None => l.init.as_ref().and_then(|i| self.typed_bytes(&i.expr)),
                };
                // `let gain = 0.75;` that nothing makes an `f32`: an `f64`.
                let bytes = bytes.or_else(|| match (strip_pat_type(&l.pat), &l.init) {
                    (Pat::Ident(pi), Some(init))
                        if floats::is_default_float(&init.expr)
                            && self.f64_locals.contains(&pi.ident.to_string()) =>
                    {
                        Some(8)
                    }
                    _ => None,
                });
                // Before the pattern binds: `let barrier = barrier.clone();` shadows.
                let barrier = l.init.as_ref().and_then(|i| self.barrier_made(&i.expr));
                self.let_pattern(&l.pat, value, span);
                // `let signal = make_signal(n);` of a function of the file that returns host
                // data (`-> Vec<f32>`): the local is host data, walked in pieces by `chunks`.
                // So are the host data of `let (xs, ws) = make_samples(n);` of one that
                // returns `(Vec<f32>, Vec<f32>)`.
                let parts: Vec<(&Pat, Option<&syn::Type>)> = match (&l.pat, &l.init) {
                    (Pat::Ident(_), Some(init)) => vec![(&l.pat, self.returned_type(&init.expr))],
                    (Pat::Tuple(pt), Some(init)) => match self.returned_type(&init.expr) {
                        Some(syn::Type::Tuple(tt)) if tt.elems.len() == pt.elems.len() => {
                            pt.elems.iter().zip(tt.elems.iter().map(Some)).collect()
                        }
                        _ => Vec::new(),
                    },
                    _ => Vec::new(),
                };
                let hints: Vec<(String, TypeHint)> = (parts.into_iter())
                    .filter_map(|(pat, ty)| match (pat, ty) {
                        (Pat::Ident(pi), Some(ty)) => {
                            Some((pi.ident.to_string(), self.hint_of(ty)))
                        }
                        _ => None,
                    })
                    .collect();
                for (name, hint) in hints {
                    if let (h @ TypeHint::Host(_), Some(v)) = (hint, self.lookup(&name)) {
                        if self.vars[v].hint == TypeHint::Unknown {
                            self.vars[v].hint = h;
                        }
                    }
                }
                if let (Some(n), Pat::Ident(pi)) = (bytes, strip_pat_type(&l.pat)) {
                    if let Some(v) = self.lookup(&pi.ident.to_string()) {
                        self.scalar_sizes.insert(v, n);
                    }
                }
                if let Pat::Ident(pi) = strip_pat_type(&l.pat) {
                    if let Some(v) = self.lookup(&pi.ident.to_string()) {
                        self.note_status(v, outs);
                        if let Some(root) = barrier {
                            self.barriers.insert(v, root.unwrap_or(v));
                        }
                    }
                }
                if let (Some(init), Pat::Ident(pi)) = (&l.init, strip_pat_type(&l.pat)) {
                    if let Some(v) = self.lookup(&pi.ident.to_string()) {
                        // `let solver = Solver::new(..)?;`: its methods are the crate's.
                        let made = self
                            .made_struct(&init.expr)
                            .or_else(|| self.place_struct(&value_of_init));
                        if let Some(ty) = made {
                            self.struct_of.insert(v, ty);
                        }
                        if let Expr::Range(_) = strip(&init.expr) {
                            self.ranges.insert(v);
                        }
                        // `let parts = make_parts(..)?;` of `fn make_parts(..) ->
                        // Result<Vec<Part>, E>`; `let bands = devices.iter().map(|&d|
                        // Band::new(d)).collect::<..>()?;`.
                        let members = (self.returned_list_of(&init.expr))
                            .or_else(|| self.listed_struct(&init.expr))
                            .or_else(|| match &value_of_init {
                                Value::Place(from) => self.members_struct.get(&from.var).cloned(),
                                _ => None,
                            });
                        if let Some(ty) = members {
                            self.members_struct.insert(v, ty);
                        }
                    }
                }
                if let (Some(init), Pat::Ident(pi)) = (&l.init, strip_pat_type(&l.pat)) {
                    if let (None, Some(v)) = (&init.diverge, self.lookup(&pi.ident.to_string())) {
                        self.note_const_local(&l.pat, v, &init.expr);
                    }
                    // `let props = CommandQueueProperties::new().out_of_order();`
                    if let Some(v) = self.lookup(&pi.ident.to_string()) {
                        if asks_out_of_order(&init.expr) {
                            self.out_of_order_props.insert(v);
                        }
                    }
                }
                if let (Some(t), [(name, true)]) = (text, pat_idents(&l.pat).as_slice()) {
                    if let Some(v) = self.lookup(name) {
                        self.strs.insert(v, t);
                    }
                }
                // `let names = [CString::new("scan").unwrap(), ..];`: `names[0].as_ptr()`.
                if let (Some(Expr::Array(a)), [(name, true)]) = (
                    l.init.as_ref().map(|i| strip(&i.expr)),
                    pat_idents(&l.pat).as_slice(),
                ) {
                    let items: Vec<Option<String>> =
                        a.elems.iter().map(|x| self.str_value(x)).collect();
                    if let (true, Some(v)) = (items.iter().any(Option::is_some), self.lookup(name))
                    {
                        self.str_lists.insert(v, items);
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

    /// The value of a branch whose arms end in `values` (an arm that leaves it, by `return`,
    /// `break` or `continue`, does not count): one new queue or buffer when every arm makes
    /// one with the same properties, else a temporary each arm sets, which keeps a value
    /// only where the arms agree.
    pub(super) fn arms_value(&mut self, arms: &mut [Vec<Stmt>], values: Vec<Value>) -> Value {
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
            // A new buffer either way (`match init { Some(h) => Buffer::create(.., h),
            // None => Buffer::create(.., null) }`): one buffer, made from what no arm
            // alone says.
            (Value::New(NewObject::Buffer { .. }), Value::New(NewObject::Buffer { .. })) => true,
            _ => false,
        };
        if live.iter().all(|(_, v)| agree(v)) {
            let buffers: Vec<&Value> = live.iter().map(|(_, v)| v).collect();
            return match first {
                Value::New(NewObject::Buffer { .. }) if buffers.iter().any(|v| *v != first) => {
                    Value::New(NewObject::Buffer {
                        host_init: None,
                        undefined: false,
                        in_place: buffers.iter().any(|v| {
                            matches!(v, Value::New(NewObject::Buffer { in_place: true, .. }))
                        }),
                        read_only: buffers.iter().all(|v| {
                            matches!(v, Value::New(NewObject::Buffer { read_only: true, .. }))
                        }),
                    })
                }
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
        // A temporary for arms that name places, or point into them (`ptr::null()` or
        // `waits.as_ptr()`), or are tuples of places (`(&field_a, &field_b)`), or are
        // constants (`if b % 2 == 0 { Side::A } else { Side::B }`: the arm a known `b` takes).
        let names_place = |v: &Value| match v {
            Value::Place(_) | Value::Host { base: Some(_), .. } | Value::Int(_) => true,
            Value::Struct(fields) => fields.iter().any(|(_, f)| matches!(f, Value::Place(_))),
            _ => false,
        };
        if !live.iter().any(|(_, v)| names_place(v)) {
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
                self.note_member_struct(v, value);
                // `let (program, cfg) = (&program, &cfg);`: the struct the local is.
                if let Some(ty) = self.place_struct(value) {
                    self.struct_of.insert(v, ty);
                }
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
                    // `let (a, b) = unsafe { ..; (x, y) };`: a tuple a block ends with.
                    Value::Place(_) | Value::Struct(_) => (0..t.elems.len())
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
            // `let [q0, q1, q2] = self.queues;`: each member its own binding.
            Pat::Slice(s) if !s.elems.iter().any(|e| matches!(e, Pat::Rest(_))) => {
                let parts: Vec<Value> = match value {
                    Value::List(items) if items.len() == s.elems.len() => items.clone(),
                    Value::Place(p) => (0..s.elems.len())
                        .map(|i| {
                            let mut member = p.clone();
                            member.proj.push(Proj::Index(i as u64));
                            Value::Place(member)
                        })
                        .collect(),
                    _ => return false,
                };
                s.elems
                    .iter()
                    .zip(&parts)
                    .all(|(e, v)| self.destructure(e, v, span))
            }
            Pat::Struct(ps) => ps.fields.iter().all(|f| {
                let name = member_name(&f.member);
                match field(value, name) {
                    Some(v) => self.destructure(&f.pat, &v, span),
                    None => false,
                }
            }),
            _ => false,
        }
    }

    /// The struct of the crate whose list a call of a free function of the file returns
    /// (`-> Vec<Part>`, `-> Result<Vec<Part>, E>`), through `?` and `unwrap`.
    fn returned_list_of(&self, e: &Expr) -> Option<String> {
        let Expr::Call(call) = unwrapped(strip(e)) else {
            return None;
        };
        let Expr::Path(p) = &*call.func else {
            return None;
        };
        let name = p.path.segments.last()?.ident.to_string();
        let f = self.cx.free_fns.get(&name)?;
        let syn::ReturnType::Type(_, t) = &f.sig.output else {
            return None;
        };
        let mut t: &syn::Type = t;
        // `Result<Vec<Part>, E>`, `Option<Vec<Part>>`, then `Vec<Part>`.
        for wrapper in ["Result", "Option", "Vec"] {
            let syn::Type::Path(tp) = t else { return None };
            let last = tp.path.segments.last()?;
            if last.ident != wrapper {
                continue;
            }
            let inner = first_type_arg(last)?;
            if wrapper == "Vec" {
                let syn::Type::Path(ip) = inner else {
                    return None;
                };
                let ty = ip.path.segments.last()?.ident.to_string();
                return self.cx.structs.contains_key(&ty).then_some(ty);
            }
            t = inner;
        }
        None
    }

    pub(super) fn let_pattern(&mut self, pat: &Pat, value: Value, span: Span) {
        let hint = pat_type(pat).map_or(TypeHint::Unknown, |t| self.hint_of(t));
        // `let mut wait = vec![first];` of raw events: a wait list.
        let hint = match &value {
            Value::List(items)
                if hint == TypeHint::Unknown
                    && !items.is_empty()
                    && items.iter().all(|x| {
                        matches!(x, Value::Place(p)
                            if p.proj.is_empty() && self.vars[p.var].hint == TypeHint::Event)
                    }) =>
            {
                TypeHint::EventList
            }
            // `let read = queue.enqueue_read_buffer(..)?;`: the command's event.
            Value::Place(p)
                if hint == TypeHint::Unknown
                    && p.proj.is_empty()
                    && self.vars[p.var].hint == TypeHint::Event
                    && self.vars[p.var].name.starts_with('%') =>
            {
                TypeHint::Event
            }
            _ => hint,
        };
        let idents = pat_idents(pat);
        // `let (n, wait): (cl_uint, *const cl_event) = ..`: the pattern inside the type.
        let shape = strip_pat_type(pat);
        if matches!(shape, Pat::Tuple(_) | Pat::Struct(_) | Pat::Slice(_)) {
            // Bound in order; on a pattern it cannot follow, what was bound is rebound
            // below to an unknown value.
            if self.destructure(shape, &value, span) {
                return;
            }
        }
        // `let _ = ev;` of a place binds nothing and moves nothing: a raw event stays
        // where it was, to be released or leaked.
        if matches!(pat, Pat::Wild(_)) && matches!(value, Value::Place(_)) {
            return;
        }
        if idents.len() != 1 || !idents[0].1 {
            self.forget(vec![value.clone()], span);
        }
        // `let mut queues: [cl_command_queue; 2] = [ptr::null_mut(); 2];`: a list of
        // handles by its type, whose members are stored one by one.
        let members = pat_type(pat).map_or(TypeHint::Unknown, member_hint);
        for (name, whole) in idents {
            let v = self.bind(&name, hint);
            if whole {
                self.note_member_struct(v, &value);
                if members != TypeHint::Unknown {
                    self.vars[v].fields.push((members_of(""), members));
                }
            }
            let value = if whole { value.clone() } else { Value::Unknown };
            self.out.push(Stmt::Assign {
                dst: Place::var(v),
                value,
                span,
            });
        }
    }

    /// The type a call of a function of the file returns, through `Result` and `Option`.
    fn returned_type(&self, e: &Expr) -> Option<&syn::Type> {
        let Expr::Call(c) = strip(e) else {
            return None;
        };
        let Expr::Path(p) = &*c.func else {
            return None;
        };
        let name = p.path.get_ident()?.to_string();
        let f = self
            .cx
            .free_fns
            .get(&super::index::qualify(self.prefix.as_deref(), &name))?;
        match &f.sig.output {
            syn::ReturnType::Type(_, t) => Some(super::ok_type(t)),
            syn::ReturnType::Default => None,
        }
    }

    /// The struct of the crate a local or a field of one holds (`cfg`, `self.grading`),
    /// where its type is known.
    pub(super) fn place_struct(&self, value: &Value) -> Option<String> {
        let Value::Place(p) = value else {
            return None;
        };
        let mut ty = self.var_struct(p.var)?;
        for x in &p.proj {
            let Proj::Field(f) = x else {
                return None;
            };
            ty = self.cx.field_types.get(&(ty, f.clone())).cloned()?;
        }
        Some(ty)
    }

    /// The struct of the crate a member of a list is (`let h0 = &mut halves[0]` of a list
    /// of `Half`s): its methods are followed on `v` as on the member.
    fn note_member_struct(&mut self, v: Var, value: &Value) {
        if let Some(ty) = self.member_struct(value) {
            self.struct_of.insert(v, ty);
        }
    }

    /// The struct of the crate `value` is a member of a list of, where known.
    pub(super) fn member_struct(&self, value: &Value) -> Option<String> {
        let Value::Place(p) = value else {
            return None;
        };
        let member = |x: &Proj| {
            matches!(
                x,
                Proj::Index(_) | Proj::AnyIndex | Proj::Var(_) | Proj::Last
            )
        };
        match p.proj.as_slice() {
            [m] if member(m) => self.members_struct.get(&p.var).cloned(),
            // `&self.stages[i]` of `stages: Vec<Stage>` in a struct the file defines.
            [Proj::Field(f), m] if member(m) => {
                let ty = self.var_struct(p.var)?;
                self.cx.member_structs.get(&(ty, f.clone())).cloned()
            }
            _ => None,
        }
    }

    /// The place an assignment target names, if it is one.
    pub(super) fn place_of(&mut self, e: &Expr) -> Option<Place> {
        match self.expr(e) {
            Value::Place(p) => Some(p),
            _ => None,
        }
    }

    /// Records that `status` holds the result of calls whose events went to `outs`.
    pub(super) fn note_status(&mut self, status: Var, outs: Vec<Place>) {
        if outs.is_empty() {
            self.statuses.remove(&status);
        } else {
            self.statuses.insert(status, outs);
        }
    }

    /// The events of the calls a condition finds failed (`status != CL_SUCCESS`), and whether
    /// that is where the condition holds (else where it does not: `status == CL_SUCCESS`).
    pub(super) fn failed_calls(&self, cond: &Expr) -> Option<(Vec<Place>, bool)> {
        let (Expr::Path(status), failed_then) = status_test(cond)? else {
            return None;
        };
        let v = self.lookup(&status.path.get_ident()?.to_string())?;
        Some((self.statuses.get(&v)?.clone(), failed_then))
    }

    /// Lowers a condition in place: the raw events its calls make (out-parameters of the
    /// API's commands, and events given by `&mut` to the program's functions), and, where
    /// it compares a call's status with success (`launch(..) != CL_SUCCESS`), whether it
    /// holds where the call failed.
    pub(super) fn tested_calls(&mut self, cond: &Expr) -> (Vec<Place>, Option<bool>) {
        self.event_outs.clear();
        let from = self.out.len();
        self.cond(cond);
        let mut events = std::mem::take(&mut self.event_outs);
        for s in &self.out[from..] {
            if let Stmt::Call { args, .. } = s {
                for a in args {
                    let Value::Place(p) = a else { continue };
                    let hint = self.vars[p.var].hint;
                    if (hint == TypeHint::Event && p.proj.is_empty())
                        || (hint == TypeHint::EventList && !p.proj.is_empty())
                    {
                        events.push(p.clone());
                    }
                }
            }
        }
        let failed_then = status_test(cond)
            .filter(|(e, _)| matches!(e, Expr::Call(_) | Expr::MethodCall(_)))
            .map(|(_, f)| f);
        (events, failed_then)
    }

    /// An `if`/`while` condition: `let` bindings are visible in the following block.
    pub(super) fn cond(&mut self, e: &Expr) {
        self.expr(e);
    }

    /// Binds a `match` arm's pattern; returns the variable bound to the whole scrutinee.
    /// A pattern `Some(..)` or `None` matched against `value`: the path goes on where the
    /// value is that.
    pub(super) fn assume_option(&mut self, pat: &Pat, value: &Value) {
        if let (Some(some), Value::Place(_)) = (option_pattern(pat), value) {
            self.out.push(Stmt::Assume {
                value: value.clone(),
                some,
            });
        }
    }

    /// `Err(_) => ..`: on this arm the call that made `value` failed.
    pub(super) fn assume_failed(&mut self, pat: &Pat, value: &Value) {
        if let (Pat::TupleStruct(t), Value::Place(_)) = (strip_pat_type(pat), value) {
            if t.path.segments.last().is_some_and(|s| s.ident == "Err") {
                self.out.push(Stmt::Failed {
                    value: value.clone(),
                    commands: Vec::new(),
                });
            }
        }
    }

    pub(super) fn let_pattern_unknown(&mut self, pat: &Pat, scrutinee: &Value) -> Option<Place> {
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
}

/// Whether a pattern is `Some(..)` (true) or `None` (false).
pub(super) fn option_pattern(pat: &Pat) -> Option<bool> {
    let last = |p: &syn::Path| p.segments.last().map(|s| s.ident.to_string());
    match strip_pat_type(pat) {
        Pat::TupleStruct(t) if last(&t.path).as_deref() == Some("Some") => Some(true),
        Pat::Ident(i) if i.ident == "None" && i.subpat.is_none() => Some(false),
        Pat::Path(p) if last(&p.path).as_deref() == Some("None") => Some(false),
        _ => None,
    }
}

/// Whether an expression is a `collect()` (through `?`, `unwrap` and `expect`).
fn ends_in_collect(e: &Expr) -> bool {
    matches!(unwrapped(e), Expr::MethodCall(m) if m.method == "collect")
}

/// `x != CL_SUCCESS` (or `!= 0`), `x == CL_SUCCESS`: the status tested, and whether the
/// condition holds where it is a failure.
fn status_test(cond: &Expr) -> Option<(&Expr, bool)> {
    let Expr::Binary(b) = strip(cond) else {
        return None;
    };
    let failed_then = match b.op {
        syn::BinOp::Ne(_) => true,
        syn::BinOp::Eq(_) => false,
        _ => return None,
    };
    let success = |e: &Expr| {
        int_lit(e) == Some(0)
            || matches!(strip(e), Expr::Path(p) if p.path.segments.last().is_some_and(|s| s.ident == "CL_SUCCESS"))
    };
    match (strip(&b.left), strip(&b.right)) {
        (l, r) if success(r) => Some((l, failed_then)),
        (l, r) if success(l) => Some((r, failed_then)),
        _ => None,
    }
}
