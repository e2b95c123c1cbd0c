//! Small readings of syn nodes the lowering shares: the names a pattern binds or an
//! expression mentions, paths, literals, and what a closure body does.

use proc_macro2::{TokenStream, TokenTree};
use syn::visit::{self, Visit};
use syn::{Expr, Pat, Type};

/// Identifiers bound by a pattern, with whether the pattern is a plain binding
/// (`x`, `mut x`, `Ok(x)`, `Some(x)`) that takes the whole value.
pub(super) fn pat_idents(p: &Pat) -> Vec<(String, bool)> {
    let mut out = Vec::new();
    fn walk(p: &Pat, whole: bool, out: &mut Vec<(String, bool)>) {
        match p {
            // `None`, a unit variant or a constant matched by name binds nothing.
            Pat::Ident(i)
                if i.subpat.is_none()
                    && i.by_ref.is_none()
                    && i.mutability.is_none()
                    && i.ident
                        .to_string()
                        .starts_with(|c: char| c.is_ascii_uppercase()) => {}
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

pub(super) fn strip_pat_type(p: &Pat) -> &Pat {
    match p {
        Pat::Type(t) => strip_pat_type(&t.pat),
        _ => p,
    }
}

pub(super) fn pat_type(p: &Pat) -> Option<&Type> {
    match p {
        Pat::Type(t) => Some(&t.ty),
        _ => None,
    }
}

/// Path segments of a call target, without generics: `Buffer::<f32>::create` → `[Buffer, create]`.
pub(super) fn path_segments(e: &Expr) -> Option<Vec<String>> {
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
pub(super) fn token_idents(ts: TokenStream, out: &mut Vec<String>) {
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

pub(super) fn expr_idents(e: &Expr) -> Vec<String> {
    let mut ids = Idents(Vec::new());
    ids.visit_expr(e);
    ids.0
}

/// Whether the expression mentions one of these identifiers.
pub(super) fn mentions_any(e: &Expr, names: &[&str]) -> bool {
    expr_idents(e).iter().any(|i| names.contains(&i.as_str()))
}

pub(super) fn strip(e: &Expr) -> &Expr {
    match e {
        Expr::Paren(p) => strip(&p.expr),
        Expr::Group(g) => strip(&g.expr),
        Expr::Reference(r) => strip(&r.expr),
        Expr::RawAddr(r) => strip(&r.expr),
        Expr::Cast(c) => strip(&c.expr),
        _ => e,
    }
}

/// Whether two expressions name the same place as written: one path (`wait`, `self.evs`),
/// field by field.
fn same_place(a: &Expr, b: &Expr) -> bool {
    match (strip(a), strip(b)) {
        (Expr::Path(x), Expr::Path(y)) => {
            x.qself.is_none()
                && y.qself.is_none()
                && x.path.segments.len() == y.path.segments.len()
                && (x.path.segments.iter())
                    .zip(&y.path.segments)
                    .all(|(s, t)| s.ident == t.ident && s.arguments.is_none())
        }
        (Expr::Field(x), Expr::Field(y)) => x.member == y.member && same_place(&x.base, &y.base),
        _ => false,
    }
}

/// The `x.as_ptr()` of `if x.is_empty() { ptr::null() } else { x.as_ptr() }` (or of the
/// same with `!x.is_empty()` and the arms the other way round).
pub(super) fn empty_or_pointer<'e>(i: &'e syn::ExprIf) -> Option<&'e Expr> {
    let (negated, cond) = match strip(&i.cond) {
        Expr::Unary(u) if matches!(u.op, syn::UnOp::Not(_)) => (true, strip(&u.expr)),
        c => (false, c),
    };
    let Expr::MethodCall(m) = cond else {
        return None;
    };
    if m.method != "is_empty" || !m.args.is_empty() {
        return None;
    }
    let only = |b: &'e syn::Block| match b.stmts.as_slice() {
        [syn::Stmt::Expr(e, None)] => Some(strip(e)),
        _ => None,
    };
    let then = only(&i.then_branch)?;
    let otherwise = match i.else_branch.as_ref().map(|(_, e)| strip(e))? {
        Expr::Block(b) => only(&b.block)?,
        _ => return None,
    };
    let (null, ptr) = if negated {
        (otherwise, then)
    } else {
        (then, otherwise)
    };
    let is_null = matches!(null, Expr::Call(c) if c.args.is_empty()
        && matches!(&*c.func, Expr::Path(p) if p.path.segments.last()
            .is_some_and(|s| s.ident == "null" || s.ident == "null_mut")));
    let same_list = matches!(ptr, Expr::MethodCall(p)
        if matches!(p.method.to_string().as_str(), "as_ptr" | "as_mut_ptr")
            && p.args.is_empty()
            && same_place(&p.receiver, &m.receiver));
    (is_null && same_list).then_some(ptr)
}

pub(super) fn int_lit(e: &Expr) -> Option<u64> {
    match strip(e) {
        Expr::Lit(l) => match &l.lit {
            syn::Lit::Int(i) => i.base10_parse().ok(),
            _ => None,
        },
        _ => None,
    }
}

/// Whether a closure body leaves the closure early: it is not lowered where it is called.
pub(super) fn has_return(e: &Expr) -> bool {
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

/// Whether a loop body has a `break` (of any loop in it): a loop split in two would stop
/// only the half it breaks out of.
pub(super) fn has_break(b: &syn::Block) -> bool {
    loop_exits(b).0
}

/// Whether a loop body has a `break`, and whether it has a `continue` (of any loop in it).
pub(super) fn loop_exits(b: &syn::Block) -> (bool, bool) {
    struct Find(bool, bool);
    impl<'ast> Visit<'ast> for Find {
        fn visit_expr_break(&mut self, _: &'ast syn::ExprBreak) {
            self.0 = true;
        }
        fn visit_expr_continue(&mut self, _: &'ast syn::ExprContinue) {
            self.1 = true;
        }
        fn visit_expr_closure(&mut self, _: &'ast syn::ExprClosure) {}
        fn visit_expr_async(&mut self, _: &'ast syn::ExprAsync) {}
        fn visit_item(&mut self, _: &'ast syn::Item) {}
    }
    let mut f = Find(false, false);
    f.visit_block(b);
    (f.0, f.1)
}

/// A macro's tokens as expressions separated by commas (`vec![a, b]`, `check!(f(..), "what")`),
/// where they parse so.
/// An adapter whose items are the receiver's members unchanged (`iter`, `into_iter`,
/// `cloned`, `copied`).
pub(super) fn same_members_adapter(m: &syn::ExprMethodCall) -> bool {
    m.args.is_empty()
        && matches!(
            m.method.to_string().as_str(),
            "iter" | "into_iter" | "cloned" | "copied"
        )
}

pub(super) fn macro_args(m: &syn::Macro) -> Option<Vec<Expr>> {
    m.parse_body_with(syn::punctuated::Punctuated::<Expr, syn::Token![,]>::parse_terminated)
        .ok()
        .map(|items| items.into_iter().collect())
}

/// A closure, boxed or not: `Box::new(|..| ..)`, `Box::new(move |..| ..) as Stage`.
pub(super) fn boxed_closure(e: &Expr) -> Option<&syn::ExprClosure> {
    match e {
        Expr::Call(c)
            if c.args.len() == 1
                && matches!(&*c.func, Expr::Path(p) if p.path.segments.len() == 2
                    && matches!(p.path.segments[0].ident.to_string().as_str(), "Box" | "Rc" | "Arc")
                    && p.path.segments[1].ident == "new") =>
        {
            boxed_closure(&c.args[0])
        }
        Expr::Cast(c) => boxed_closure(&c.expr),
        e => closure_of(e),
    }
}

pub(super) fn closure_of(e: &Expr) -> Option<&syn::ExprClosure> {
    match e {
        Expr::Closure(c) => Some(c),
        Expr::Paren(p) => closure_of(&p.expr),
        Expr::Group(g) => closure_of(&g.expr),
        _ => None,
    }
}

/// A field's name as a projection names it: `f` of `x.f`, `1` of `pair.1`.
pub(super) fn member_name(m: &syn::Member) -> String {
    match m {
        syn::Member::Named(i) => i.to_string(),
        syn::Member::Unnamed(i) => i.index.to_string(),
    }
}

pub(super) fn is_assign_op(op: &syn::BinOp) -> bool {
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

/// The API's booleans by name (`CL_BLOCKING` is `CL_TRUE`, 1).
pub(super) fn api_bool(name: &str) -> Option<u64> {
    match name {
        "CL_TRUE" | "CL_BLOCKING" => Some(1),
        "CL_FALSE" | "CL_NON_BLOCKING" => Some(0),
        _ => None,
    }
}
