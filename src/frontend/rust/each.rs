//! Loops over collections: a `for` loop or an iterator adapter (`for_each`, `map`) over a
//! list, with what each item is (a member, its number, a pair of those).

use std::collections::HashMap;

use syn::visit::{self, Visit};
use syn::{Expr, Pat};

use super::index::qualify;
use super::syntax::{
    has_break, has_return, int_lit, is_assign_op, macro_args, member_name, pat_idents,
    path_segments, same_members_adapter, strip, strip_pat_type,
};
use super::{spans, Lowerer};
use crate::frontend::arith;
use crate::ir::*;

/// The body of a loop: a `for` loop's block or an iterator adapter's closure body, or a
/// `fold`'s closure body with its accumulator's pattern and the variable holding it.
#[derive(Clone, Copy)]
pub(super) enum EachBody<'e> {
    Block(&'e syn::Block),
    Closure(&'e Expr),
    Fold(&'e Expr, &'e Pat, Var),
}

/// Methods that walk an iterator with a closure, once per item, in order.
pub(super) const EACH_ADAPTERS: &[&str] = &["for_each", "try_for_each", "map"];

/// What an iterator yields, per item: the member of a source, the item's number, or a
/// pair of those (`enumerate`, `zip`).
enum Shape {
    Member(usize),
    Count,
    Pair(Box<Shape>, Box<Shape>),
    /// `list.windows(2)`: the members of two sources, the second one ahead.
    Window(usize, usize),
}

/// The assignments a loop body makes through its items (`*x = ..`, `x[0] += ..`, `x.f = ..`):
/// each item so written, with the field where the assignment is only to a named field of
/// it (`w.last = done`).
struct ItemWrites<'i> {
    items: &'i [String],
    writes: Vec<(String, Option<String>)>,
    /// Items only ever stored whole (`*b = ..`), and items updated in place (`*x *= 0.5`).
    stores: Vec<String>,
    updates: Vec<String>,
    /// Items the body walks mutably in turn (`for b in row.iter_mut() { *b = .. }`).
    rows: Vec<String>,
}

impl ItemWrites<'_> {
    fn item(&self, e: &Expr) -> Option<String> {
        match e {
            Expr::Paren(p) => self.item(&p.expr),
            Expr::Path(p) => {
                let i = p.path.get_ident()?;
                self.items.iter().find(|n| i == n).cloned()
            }
            _ => None,
        }
    }

    fn through_item(&self, lhs: &Expr) -> Option<String> {
        match lhs {
            Expr::Unary(u) => self.through_item(&u.expr),
            Expr::Index(i) => self.through_item(&i.expr),
            Expr::Field(f) => self.through_item(&f.base),
            Expr::Paren(p) => self.through_item(&p.expr),
            e => self.item(e),
        }
    }

    fn written(&mut self, lhs: &Expr) {
        let Some(item) = self.through_item(lhs) else {
            return;
        };
        let field = match lhs {
            Expr::Field(f) if self.item(&f.base).is_some() => Some(member_name(&f.member)),
            _ => None,
        };
        self.writes.push((item, field));
    }
}

impl<'ast> Visit<'ast> for ItemWrites<'_> {
    fn visit_expr_assign(&mut self, a: &'ast syn::ExprAssign) {
        self.written(&a.left);
        match &*a.left {
            Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => {
                self.stores.extend(self.item(&u.expr));
            }
            left => self.updates.extend(self.through_item(left)),
        }
        visit::visit_expr_assign(self, a);
    }

    fn visit_expr_binary(&mut self, b: &'ast syn::ExprBinary) {
        if is_assign_op(&b.op) {
            self.written(&b.left);
            self.updates.extend(self.through_item(&b.left));
        }
        visit::visit_expr_binary(self, b);
    }

    /// `clEnqueueNDRangeKernel(.., e)` of an item `e: &mut cl_event`: the command stores
    /// its event through the item, as `*e = ..` does.
    fn visit_expr_call(&mut self, c: &'ast syn::ExprCall) {
        let enqueue = matches!(&*c.func, Expr::Path(p) if p.path.segments.last().is_some_and(|s| {
            let f = s.ident.to_string();
            f.starts_with("clEnqueue") || f.starts_with("enqueue_")
        }));
        if let (true, Some(last)) = (enqueue, c.args.last()) {
            self.stores.extend(self.item(last));
        }
        visit::visit_expr_call(self, c);
    }

    fn visit_expr_method_call(&mut self, mc: &'ast syn::ExprMethodCall) {
        if mc.method == "iter_mut" {
            self.rows.extend(self.item(&mc.receiver));
        }
        visit::visit_expr_method_call(self, mc);
    }

    /// A checking macro around the call (`check!(clEnqueueNDRangeKernel(.., ev), "what")`):
    /// its arguments, where they are expressions.
    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        for a in macro_args(m).unwrap_or_default() {
            self.visit_expr(&a);
        }
    }
}

/// The place of the list a source walks the members of (`queues`, `self.queues`).
fn walked_list(src: &EachSource) -> Option<&Place> {
    match src {
        EachSource::Members(Value::Place(l))
        | EachSource::MembersFrom(Value::Place(l), _)
        | EachSource::Among(Value::Place(l)) => Some(l),
        _ => None,
    }
}

/// The list a walk takes every member out of (`evs` of `evs.drain(..).rev()`).
fn drained_list(e: &Expr) -> Option<&Expr> {
    match strip(e) {
        Expr::MethodCall(mc) if mc.method == "drain" && mc.args.len() == 1 => {
            matches!(strip(&mc.args[0]), Expr::Range(r) if r.start.is_none() && r.end.is_none())
                .then_some(&*mc.receiver)
        }
        Expr::MethodCall(mc) => drained_list(&mc.receiver),
        _ => None,
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

impl Lowerer<'_, '_> {
    /// The member of the list an item of a loop walking it mutably is in this pass, where
    /// the expression names that item bare.
    pub(super) fn item_slot(&self, e: &Expr) -> Option<Place> {
        let Expr::Path(p) = strip(e) else {
            return None;
        };
        let v = self.lookup(&p.path.get_ident()?.to_string())?;
        self.item_slots.get(&v).cloned()
    }

    /// The iterator a call of a helper of the file returns, where its body is that one
    /// expression over its parameters (`fn lanes(qs: &[Queue], bufs: &mut [Buf]) -> impl
    /// Iterator<..> { qs.iter().zip(bufs.iter_mut()) }`): the expression with the call's
    /// arguments in place of the parameters.
    pub(super) fn iterator_helper(&self, e: &Expr) -> Option<Expr> {
        let Expr::Call(call) = strip(e) else {
            return None;
        };
        let Expr::Path(p) = &*call.func else {
            return None;
        };
        let name = qualify(self.prefix.as_deref(), &p.path.get_ident()?.to_string());
        let f = self.cx.free_fns.get(&name)?;
        let syn::ReturnType::Type(_, ty) = &f.sig.output else {
            return None;
        };
        let ([syn::Stmt::Expr(tail, None)], syn::Type::ImplTrait(_)) =
            (f.block.stmts.as_slice(), &**ty)
        else {
            return None;
        };
        if f.sig.inputs.len() != call.args.len() {
            return None;
        }
        let mut params = HashMap::new();
        for (input, arg) in f.sig.inputs.iter().zip(&call.args) {
            let syn::FnArg::Typed(pt) = input else {
                return None;
            };
            let Pat::Ident(pi) = &*pt.pat else {
                return None;
            };
            params.insert(pi.ident.to_string(), arg);
        }
        let mut walk = tail.clone();
        syn::visit_mut::VisitMut::visit_expr_mut(&mut Substitute(params), &mut walk);
        self.is_iter_chain(&walk).then_some(walk)
    }

    /// Whether an expression is an iterator over a list or a range, item by item.
    pub(super) fn is_iter_chain(&self, e: &Expr) -> bool {
        match e {
            Expr::MethodCall(mc) => matches!(
                mc.method.to_string().as_str(),
                "iter"
                    | "iter_mut"
                    | "into_iter"
                    | "enumerate"
                    | "zip"
                    | "copied"
                    | "cloned"
                    | "skip"
                    | "step_by"
                    | "take"
                    | "rev"
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

    /// A walk of a list's members made a walk of some of them (which, not known); of
    /// anything else, a walk of what is not known.
    fn among(&self, shape: Shape, sources: &mut Vec<EachSource>) -> Shape {
        if let Shape::Member(i) = shape {
            if let EachSource::Members(v @ Value::Place(_))
            | EachSource::MembersFrom(v @ Value::Place(_), _)
            | EachSource::Among(v @ Value::Place(_)) = &sources[i]
            {
                sources[i] = EachSource::Among(v.clone());
                return shape;
            }
        }
        sources.push(EachSource::Members(Value::Unknown));
        Shape::Member(sources.len() - 1)
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
                // `evs.drain(..)`: every member, taken out.
                ("drain", 1) if matches!(strip(&mc.args[0]), Expr::Range(r) if r.start.is_none() && r.end.is_none()) => {
                    return self.iter_shape(&mc.receiver, sources)
                }
                // `.filter(|e| !e.is_null())`: null members hold no object, so the walk of
                // the others is the walk of all.
                ("filter", 1) if is_non_null_test(&mc.args[0]) => {
                    return self.iter_shape(&mc.receiver, sources)
                }
                // `data.chunks_mut(n)` of host data: a piece of it per item.
                (
                    "chunks" | "chunks_mut" | "chunks_exact" | "chunks_exact_mut" | "rchunks"
                    | "rchunks_mut",
                    1,
                ) => {
                    if let Some(v) = self.host_data(&mc.receiver) {
                        // The call itself as before: `chunks_mut` may change the data.
                        self.expr(e);
                        sources.push(EachSource::Pieces(v));
                        return Shape::Member(sources.len() - 1);
                    }
                }
                // `queues.windows(2)`: each member with the next one.
                ("windows", 1) if int_lit(&mc.args[0]) == Some(2) => {
                    if let Shape::Member(i) = self.iter_shape(&mc.receiver, sources) {
                        let ahead = match &sources[i] {
                            EachSource::Members(v) => Some(EachSource::MembersFrom(v.clone(), 1)),
                            EachSource::MembersFrom(v, from) => {
                                Some(EachSource::MembersFrom(v.clone(), from + 1))
                            }
                            _ => None,
                        };
                        if let Some(ahead) = ahead {
                            sources.push(ahead);
                            return Shape::Window(i, sources.len() - 1);
                        }
                    }
                    sources.push(EachSource::Members(Value::Unknown));
                    return Shape::Member(sources.len() - 1);
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
                // `(1..n).rev()`, `queues.iter().rev()`: the same walk, last first.
                ("rev", 0) => {
                    if let Shape::Member(i) = self.iter_shape(&mc.receiver, sources) {
                        sources[i] = EachSource::Rev(Box::new(sources[i].clone()));
                        return Shape::Member(i);
                    }
                    sources.push(EachSource::Members(Value::Unknown));
                    return Shape::Member(sources.len() - 1);
                }
                // `ids.iter().take(2)`: as many members as both allow, as a zip with `0..2`
                // walks.
                ("take", 1) => {
                    let shape = self.iter_shape(&mc.receiver, sources);
                    let n = self.expr(&mc.args[0]);
                    sources.push(EachSource::Upto(n));
                    return shape;
                }
                // `queues.iter().skip(1)`: the members after the first.
                ("skip", 1) if int_lit(&mc.args[0]).is_some() => {
                    let n = int_lit(&mc.args[0]).unwrap_or(0);
                    let shape = self.iter_shape(&mc.receiver, sources);
                    // `gpus.iter().enumerate().skip(1)`: the members after the first, each
                    // with its own index (from 1), as `(1..).zip(&gpus[1..])` walks them.
                    if let Shape::Pair(count, member) = &shape {
                        if let (Shape::Count, Shape::Member(i)) = (&**count, &**member) {
                            let from = match &sources[*i] {
                                EachSource::Members(v) => {
                                    Some(EachSource::MembersFrom(v.clone(), n))
                                }
                                EachSource::MembersFrom(v, f) => {
                                    Some(EachSource::MembersFrom(v.clone(), f + n))
                                }
                                _ => None,
                            };
                            if let Some(from) = from {
                                sources[*i] = from;
                                sources.push(EachSource::Range(Value::Int(n), Value::Unknown));
                                let index = Shape::Member(sources.len() - 1);
                                return Shape::Pair(Box::new(index), Box::new(Shape::Member(*i)));
                            }
                        }
                    }
                    if let Shape::Member(i) = shape {
                        match &sources[i] {
                            EachSource::Members(v) => {
                                sources[i] = EachSource::MembersFrom(v.clone(), n);
                                return Shape::Member(i);
                            }
                            EachSource::MembersFrom(v, from) => {
                                sources[i] = EachSource::MembersFrom(v.clone(), from + n);
                                return Shape::Member(i);
                            }
                            _ => {}
                        }
                    }
                    // Skipped from a walk of some members: some of the list's members;
                    // anything else skipped: what is walked is not known.
                    return self.among(shape, sources);
                }
                // `frames.iter().step_by(stride)`, `.skip(first)`: some of the list's
                // members.
                ("step_by" | "skip", 1) => {
                    let shape = self.iter_shape(&mc.receiver, sources);
                    self.expr(&mc.args[0]);
                    return self.among(shape, sources);
                }
                _ => {}
            },
            // `std::iter::once(&ev)`: that one item.
            Expr::Call(c)
                if c.args.len() == 1
                    && path_segments(&c.func)
                        .is_some_and(|s| s.last().is_some_and(|l| l == "once")) =>
            {
                let v = self.expr(&c.args[0]);
                sources.push(EachSource::Members(Value::List(vec![v])));
                return Shape::Member(sources.len() - 1);
            }
            // `&queues[1..]`: the members from the second on.
            Expr::Index(ix) => {
                if let Expr::Range(r) = strip(&ix.index) {
                    if let (Some(from), None) = (r.start.as_deref().and_then(int_lit), &r.end) {
                        let v = self.expr(&ix.expr);
                        sources.push(EachSource::MembersFrom(v, from));
                        return Shape::Member(sources.len() - 1);
                    }
                    // `&evs[..launched]` of a list of events, up to a count not known (those
                    // made so far): each event it may hold, as releasing or waiting on a
                    // prefix is done for the events made.
                    if r.start.as_deref().is_none_or(|x| int_lit(x) == Some(0))
                        && r.end.as_deref().is_some_and(|x| int_lit(x).is_none())
                        && self.holds_events(&ix.expr)
                    {
                        for x in r.end.iter() {
                            self.expr(x);
                        }
                        let v = self.expr(&ix.expr);
                        sources.push(EachSource::Members(v));
                        return Shape::Member(sources.len() - 1);
                    }
                }
            }
            // `0..n`, `0..list.len()`, `1..list.len()`: the indices up to a count, or those
            // of a list's members from a constant on.
            Expr::Range(r)
                if matches!(r.limits, syn::RangeLimits::HalfOpen(_))
                    && r.start.as_deref().is_none_or(|x| int_lit(x).is_some())
                    && r.end.as_deref().is_some_and(|e| {
                        len_receiver(e).is_some()
                            || r.start.as_deref().is_none_or(|x| int_lit(x) == Some(0))
                    }) =>
            {
                let from = r.start.as_deref().and_then(int_lit).unwrap_or(0);
                if let Some(end) = r.end.as_deref() {
                    let src = match len_receiver(end) {
                        Some(list) => EachSource::UptoLen(from, self.expr(list)),
                        None => EachSource::Upto(self.expr(end)),
                    };
                    sources.push(src);
                    return Shape::Member(sources.len() - 1);
                }
            }
            // `1..n`, `a..=b`: from the start to the end.
            Expr::Range(r) if r.start.is_some() && r.end.is_some() => {
                if let (Some(start), Some(end)) = (&r.start, &r.end) {
                    let from = self.expr(start);
                    let mut to = self.expr(end);
                    if matches!(r.limits, syn::RangeLimits::Closed(_)) {
                        to = arith(Some(ArithOp::Add), to, Value::Int(1));
                    }
                    sources.push(EachSource::Range(from, to));
                    return Shape::Member(sources.len() - 1);
                }
            }
            _ => {}
        }
        // `right` of `let (left, right) = parts.split_at_mut(1)`: `parts` from 1 on.
        if let Some((list, Value::Int(from))) = self.view_of(e) {
            sources.push(EachSource::MembersFrom(Value::Place(list), from));
            return Shape::Member(sources.len() - 1);
        }
        let v = self.expr(e);
        sources.push(EachSource::Members(v));
        Shape::Member(sources.len() - 1)
    }

    /// The host data a variable or field holds (`data`, `self.out`), as a value.
    fn host_data(&mut self, e: &Expr) -> Option<Value> {
        let e = strip(e);
        if !matches!(e, Expr::Path(_) | Expr::Field(_)) {
            return None;
        }
        match self.expr(e) {
            v @ Value::Host { .. } => Some(v),
            Value::Place(p)
                if p.proj.is_empty() && matches!(self.vars[p.var].hint, TypeHint::Host(_)) =>
            {
                Some(Value::Place(p))
            }
            _ => None,
        }
    }

    /// Binds a loop pattern to the shape of the items.
    fn bind_each(&mut self, pat: &Pat, shape: Option<&Shape>, binds: &mut Vec<(Place, EachPart)>) {
        match (pat, shape) {
            // `pair` of `windows(2)`: the two members, as a list (`pair[0]`, `pair[1]`).
            (Pat::Ident(pi), Some(&Shape::Window(a, b))) if pi.subpat.is_none() => {
                let members = [a, b].map(|i| {
                    let t = self.new_temp(TypeHint::Unknown);
                    binds.push((Place::var(t), EachPart::Member(i)));
                    Value::Place(Place::var(t))
                });
                let v = self.bind(&pi.ident.to_string(), TypeHint::Unknown);
                self.out.push(Stmt::Assign {
                    dst: Place::var(v),
                    value: Value::List(members.into()),
                    span: Span::default(),
                });
            }
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
            // `(queue, buf, _)` of a list of tuples: the member's fields by position.
            (Pat::Tuple(_), Some(&Shape::Member(i))) => {
                let t = self.new_temp(TypeHint::Unknown);
                binds.push((Place::var(t), EachPart::Member(i)));
                self.let_pattern(pat, Value::Place(Place::var(t)), Span::default());
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
    pub(super) fn each(
        &mut self,
        iterable: &Expr,
        pat: &Pat,
        body: EachBody,
        collect: bool,
    ) -> Value {
        // `for e in a.iter().chain(once(&b))`: the walk of `a`, then the walk of the rest.
        let splits = match body {
            EachBody::Block(b) => !has_break(b),
            EachBody::Closure(e) => !has_return(e),
            EachBody::Fold(..) => false,
        };
        if let (Some((first, rest)), false, true) = (chained(iterable), collect, splits) {
            self.each(first, pat, body, false);
            return self.each(rest, pat, body, false);
        }
        let items: Vec<String> = pat_idents(pat).into_iter().map(|(n, _)| n).collect();
        let writes = {
            let mut w = ItemWrites {
                items: &items,
                writes: Vec::new(),
                stores: Vec::new(),
                updates: Vec::new(),
                rows: Vec::new(),
            };
            match body {
                EachBody::Block(b) => w.visit_block(b),
                EachBody::Closure(e) | EachBody::Fold(e, ..) => w.visit_expr(e),
            }
            w
        };
        // What each pass makes, where it is a struct of the crate (`Band::new(d)`).
        let made = match body {
            EachBody::Closure(e) => tail_expr(e).and_then(|t| self.made_struct(t)),
            _ => None,
        };
        let mut sources = Vec::new();
        let shape = self.iter_shape(iterable, &mut sources);
        // `for ev in evs.drain(..)`: the list is empty after the loop.
        let drained = drained_list(iterable).and_then(|l| self.place_of(l));
        // The lists walked mutably (`v.iter_mut()`, `&mut v`), named plainly.
        let mut walked = Vec::new();
        walked_mutably(iterable, &mut walked);
        let mutable: Vec<Place> = (walked.into_iter())
            .filter(|w| matches!(strip(w), Expr::Path(_) | Expr::Field(_)))
            .filter_map(|w| self.place_of(w))
            .collect();
        let saved = std::mem::take(&mut self.out);
        self.scopes.push(HashMap::new());
        let mut binds = Vec::new();
        self.bind_each(pat, Some(&shape), &mut binds);
        // `for b in bufs.iter_mut() { *b = .. }`: each item is the member of its pass.
        let mut slotted = Vec::new();
        for (p, part) in binds.clone() {
            let EachPart::Member(s) = part else { continue };
            let Some(EachSource::Members(Value::Place(l))) = sources.get(s) else {
                continue;
            };
            let name = &self.vars[p.var].name;
            let stored = (writes.stores.contains(name) || writes.rows.contains(name))
                && !writes.updates.contains(name);
            if !stored || !mutable.contains(l) {
                continue;
            }
            let pass = self.new_temp(TypeHint::Scalar);
            binds.push((Place::var(pass), EachPart::Count));
            // A row of an outer loop walking rows mutably: the member of that row.
            let mut slot = match self.item_slots.get(&l.var) {
                Some(row) if l.proj.is_empty() => row.clone(),
                _ => l.clone(),
            };
            slot.proj.push(Proj::Var(pass));
            self.item_slots.insert(p.var, slot);
            slotted.push(self.vars[p.var].name.clone());
        }
        // A member of a list of structs of the crate has their methods; one of a slice of
        // scalars (`&g` of `gains: &[f64]`) their size.
        for (p, part) in &binds {
            let EachPart::Member(s) = part else { continue };
            let Some(l) = sources.get(*s).and_then(walked_list) else {
                continue;
            };
            // A field of a struct of the crate (`shared.frames` of `frames: Vec<Frame>`).
            if let [Proj::Field(_)] = l.proj.as_slice() {
                let mut member = l.clone();
                member.proj.push(Proj::AnyIndex);
                if let Some(ty) = self.member_struct(&Value::Place(member)) {
                    self.struct_of.insert(p.var, ty);
                }
                continue;
            }
            // Of a variable of its own (`queues`, not `self.queues`).
            if !l.proj.is_empty() {
                continue;
            }
            if let Some(ty) = self.members_struct.get(&l.var) {
                self.struct_of.insert(p.var, ty.clone());
            }
            if let Some(&n) = self.elem_sizes.get(&l.var) {
                self.scalar_sizes.insert(p.var, n);
            }
        }
        // `for stage in 0..total` of a `total: usize`: the counter has the range's type.
        if let (Expr::Range(r), [(p, EachPart::Member(_))]) = (strip(iterable), binds.as_slice()) {
            let bytes = (r.end.as_deref().and_then(|e| self.typed_bytes(e)))
                .or_else(|| r.start.as_deref().and_then(|e| self.typed_bytes(e)));
            if let Some(n) = bytes {
                self.scalar_sizes.insert(p.var, n);
            }
        }
        let tail = match body {
            EachBody::Block(b) => {
                self.block_inline(b);
                Value::Unknown
            }
            // `iter.fold(init, |acc, x| ..)`: the accumulator is what the last pass gave.
            EachBody::Fold(e, acc, var) => {
                let span = self.span(spans::expr(e));
                self.let_pattern(acc, Value::Place(Place::var(var)), span);
                self.inlining += 1;
                let v = self.closure_call(e, None, span);
                self.inlining -= 1;
                self.out.push(Stmt::Assign {
                    dst: Place::var(var),
                    value: v,
                    span,
                });
                Value::Unknown
            }
            EachBody::Closure(e) => {
                self.inlining += 1;
                // A `return` in the closure ends this item's pass.
                let v = if has_return(e) {
                    let span = self.span(spans::expr(e));
                    self.closure_call(e, None, span)
                } else {
                    self.expr(e)
                };
                self.inlining -= 1;
                v
            }
        };
        self.scopes.pop();
        for (p, _) in &binds {
            self.item_slots.remove(&p.var);
        }
        let body = std::mem::replace(&mut self.out, saved);
        let dst = collect.then(|| self.new_temp(TypeHint::Unknown));
        if let (Some(d), Some(ty)) = (dst, made) {
            self.members_struct.insert(d, ty);
        }
        // Host values collected are host data, as before; objects and events are a list.
        if let Some(d) =
            dst.filter(|_| !matches!(tail, Value::Scalar | Value::Int(_) | Value::Host { .. }))
        {
            self.mapped.insert(d);
        }
        // The items bound to each source's members (`lane` and `slot` of
        // `lanes.iter_mut().zip(last.iter_mut())`).
        let bound: Vec<(usize, String)> = (binds.iter())
            .filter_map(|(b, part)| match part {
                EachPart::Member(i) => Some((*i, self.vars[b.var].name.clone())),
                _ => None,
            })
            .collect();
        let source_items = |l: &Place| -> Option<Vec<&String>> {
            let s = (sources.iter()).position(|src| walked_list(src) == Some(l))?;
            Some(
                bound
                    .iter()
                    .filter(|(i, _)| *i == s)
                    .map(|(_, n)| n)
                    .collect(),
            )
        };
        // Items walked mutably and written in the body (`*x *= 0.5`): after the loop, what
        // was known of the host data walked (its contents, for CLM004) no longer holds. Of
        // a list of structs whose items only have fields set (`w.last = done`), those fields
        // of every member; the queues and buffers the members hold stay known. A list whose
        // own items the body does not write (`lanes` where only `*slot = ..` is written)
        // stays known.
        let mut forgotten = Vec::new();
        for p in mutable.into_iter().filter(|_| !writes.writes.is_empty()) {
            let own = source_items(&p);
            let of_this: Vec<&Option<String>> = (writes.writes.iter())
                .filter(|(n, f)| !(f.is_none() && slotted.contains(n)))
                .filter(|(n, _)| own.as_ref().is_none_or(|own| own.contains(&n)))
                .map(|(_, f)| f)
                .collect();
            if !of_this.is_empty() {
                forgotten.push((p, of_this));
            }
        }
        self.out.push(Stmt::ForEach {
            sources,
            binds,
            body,
            tail,
            dst: dst.map(Place::var),
        });
        if let Some(list) = drained {
            self.out.push(Stmt::Assign {
                dst: list,
                value: Value::List(Vec::new()),
                span: Span::default(),
            });
        }
        for (p, of_this) in forgotten {
            let hint = self.vars[p.var].hint;
            if hint == TypeHint::Unknown && of_this.iter().all(|f| f.is_some()) {
                let fields = of_this.into_iter().flatten().map(|f| {
                    let mut member = p.clone();
                    member.proj.push(Proj::AnyIndex);
                    member.proj.push(Proj::Field(f.clone()));
                    Value::Place(member)
                });
                self.forget(fields.collect(), Span::default());
            } else if matches!(hint, TypeHint::Unknown | TypeHint::Host(_)) {
                self.forget(vec![Value::Place(p)], Span::default());
            }
        }
        dst.map_or(Value::Unknown, |d| Value::Place(Place::var(d)))
    }
}

/// A closure `|e| !e.is_null()` (through references and derefs of its parameter).
/// Replaces the variables named in it with the expressions given for them, each in
/// parentheses.
struct Substitute<'p>(HashMap<String, &'p Expr>);

impl syn::visit_mut::VisitMut for Substitute<'_> {
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        let arg = match e {
            Expr::Path(p) => p.path.get_ident().and_then(|i| self.0.get(&i.to_string())),
            _ => None,
        };
        match arg {
            Some(arg) => {
                *e = Expr::Paren(syn::ExprParen {
                    attrs: Vec::new(),
                    paren_token: Default::default(),
                    expr: Box::new((*arg).clone()),
                })
            }
            None => syn::visit_mut::visit_expr_mut(self, e),
        }
    }
}

/// `for d in (0..n).filter(|&d| d != root) { .. }` as the walk of what is filtered, whose
/// body first skips the items the closure rejects (`if !(d != root) { continue; }`), so
/// that each pass knows its item passed the test. Only for a closure of one parameter and
/// a loop variable that is one name; not for `.filter(|e| !e.is_null())`, which the walk
/// reads as the walk of all.
pub(super) fn filtered_loop(f: &syn::ExprForLoop) -> Option<syn::ExprForLoop> {
    let Expr::MethodCall(mc) = strip(&f.expr) else {
        return None;
    };
    if mc.method != "filter" || mc.args.len() != 1 || is_non_null_test(&mc.args[0]) {
        return None;
    }
    let Expr::Closure(c) = strip(&mc.args[0]) else {
        return None;
    };
    let (Some(param), 1) = (c.inputs.first(), c.inputs.len()) else {
        return None;
    };
    let Pat::Ident(item) = strip_pat_type(&f.pat) else {
        return None;
    };
    let item = &item.ident;
    let (name, arg): (String, Expr) = match strip_pat_type(param) {
        // `|&d|`: the item itself.
        Pat::Reference(r) => match strip_pat_type(&r.pat) {
            Pat::Ident(x) => (x.ident.to_string(), syn::parse_quote!(#item)),
            _ => return None,
        },
        // `|d|`: a reference to it.
        Pat::Ident(x) => (x.ident.to_string(), syn::parse_quote!(&#item)),
        _ => return None,
    };
    let mut test = (*c.body).clone();
    syn::visit_mut::VisitMut::visit_expr_mut(
        &mut Substitute(HashMap::from([(name, &arg)])),
        &mut test,
    );
    let mut out = f.clone();
    out.expr = mc.receiver.clone();
    out.body
        .stmts
        .insert(0, syn::parse_quote!(if !(#test) { continue; }));
    Some(out)
}

fn is_non_null_test(e: &Expr) -> bool {
    let Expr::Closure(c) = strip(e) else {
        return false;
    };
    let Expr::Unary(u) = strip(&c.body) else {
        return false;
    };
    if !matches!(u.op, syn::UnOp::Not(_)) {
        return false;
    }
    let Expr::MethodCall(m) = strip(&u.expr) else {
        return false;
    };
    let mut recv = strip(&m.receiver);
    while let Expr::Unary(d) = recv {
        if !matches!(d.op, syn::UnOp::Deref(_)) {
            return false;
        }
        recv = strip(&d.expr);
    }
    let param = c
        .inputs
        .first()
        .and_then(|p| pat_idents(p).into_iter().next());
    m.method == "is_null"
        && m.args.is_empty()
        && c.inputs.len() == 1
        && matches!(recv, Expr::Path(p) if param.is_some_and(|(n, _)| p.path.is_ident(&n)))
}

/// The two halves of an iterator chain (`a.iter().chain(b.iter())`, also under `copied`,
/// `cloned`, `iter`, `into_iter`).
fn chained(e: &Expr) -> Option<(&Expr, &Expr)> {
    match strip(e) {
        Expr::MethodCall(mc) if mc.method == "chain" && mc.args.len() == 1 => {
            Some((&mc.receiver, &mc.args[0]))
        }
        Expr::MethodCall(mc) if same_members_adapter(mc) => chained(&mc.receiver),
        _ => None,
    }
}

/// The list of `list.len()`.
fn len_receiver(e: &Expr) -> Option<&Expr> {
    match strip(e) {
        Expr::MethodCall(m) if m.method == "len" && m.args.is_empty() => Some(&m.receiver),
        _ => None,
    }
}

/// The expression a closure's body ends with: the body, or its block's last expression.
fn tail_expr(e: &Expr) -> Option<&Expr> {
    match e {
        Expr::Block(b) => match b.block.stmts.last()? {
            syn::Stmt::Expr(x, None) => tail_expr(x),
            _ => None,
        },
        _ => Some(e),
    }
}
