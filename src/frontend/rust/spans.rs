//! Spans of syntax nodes from their first and last tokens.
//!
//! `syn::spanned::Spanned` prints a node back to tokens to find its ends, which costs the
//! size of the node on every call; lowering asks for the span of every argument and call,
//! so nested calls made it quadratic. These functions read the end tokens directly and
//! give the same span; a node they do not cover (attributes, types at an end, rare forms)
//! falls back to `Spanned`.

use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::{Expr, Member, UnOp};

fn join(a: Span, b: Span) -> Span {
    a.join(b).unwrap_or(a)
}

fn delim_close(d: &syn::MacroDelimiter) -> Span {
    match d {
        syn::MacroDelimiter::Paren(p) => p.span.close(),
        syn::MacroDelimiter::Brace(b) => b.span.close(),
        syn::MacroDelimiter::Bracket(b) => b.span.close(),
    }
}

fn path_first(p: &syn::Path) -> Option<Span> {
    match &p.leading_colon {
        Some(c) => Some(c.spans[0]),
        None => p.segments.first().map(|s| s.ident.span()),
    }
}

/// The last token of a path, when it is the last segment's name (no generics).
fn path_last(p: &syn::Path) -> Option<Span> {
    let seg = p.segments.last()?;
    seg.arguments.is_none().then(|| seg.ident.span())
}

fn has_attrs(e: &Expr) -> bool {
    let attrs = match e {
        Expr::Path(x) => &x.attrs,
        Expr::Lit(x) => &x.attrs,
        Expr::MethodCall(x) => &x.attrs,
        Expr::Call(x) => &x.attrs,
        Expr::Field(x) => &x.attrs,
        Expr::Index(x) => &x.attrs,
        Expr::Reference(x) => &x.attrs,
        Expr::Unary(x) => &x.attrs,
        Expr::Paren(x) => &x.attrs,
        Expr::Binary(x) => &x.attrs,
        Expr::Try(x) => &x.attrs,
        Expr::Macro(x) => &x.attrs,
        Expr::Array(x) => &x.attrs,
        Expr::Tuple(x) => &x.attrs,
        Expr::Cast(x) => &x.attrs,
        Expr::Assign(x) => &x.attrs,
        _ => return true,
    };
    !attrs.is_empty()
}

fn first(e: &Expr) -> Option<Span> {
    if has_attrs(e) {
        return None;
    }
    match e {
        Expr::Path(p) if p.qself.is_none() => path_first(&p.path),
        Expr::Lit(l) => Some(l.lit.span()),
        Expr::MethodCall(m) => first(&m.receiver),
        Expr::Call(c) => first(&c.func),
        Expr::Field(f) => first(&f.base),
        Expr::Index(i) => first(&i.expr),
        Expr::Binary(b) => first(&b.left),
        Expr::Assign(a) => first(&a.left),
        Expr::Try(t) => first(&t.expr),
        Expr::Cast(c) => first(&c.expr),
        Expr::Reference(r) => Some(r.and_token.span),
        Expr::Unary(u) => Some(match u.op {
            UnOp::Deref(t) => t.span,
            UnOp::Not(t) => t.span,
            UnOp::Neg(t) => t.span,
            _ => return None,
        }),
        Expr::Paren(p) => Some(p.paren_token.span.open()),
        Expr::Macro(m) => path_first(&m.mac.path),
        Expr::Array(a) => Some(a.bracket_token.span.open()),
        Expr::Tuple(t) => Some(t.paren_token.span.open()),
        _ => None,
    }
}

fn last(e: &Expr) -> Option<Span> {
    if has_attrs(e) {
        return None;
    }
    match e {
        Expr::Path(p) if p.qself.is_none() => path_last(&p.path),
        Expr::Lit(l) => Some(l.lit.span()),
        Expr::MethodCall(m) => Some(m.paren_token.span.close()),
        Expr::Call(c) => Some(c.paren_token.span.close()),
        Expr::Field(f) => Some(match &f.member {
            Member::Named(i) => i.span(),
            Member::Unnamed(i) => i.span,
        }),
        Expr::Index(i) => Some(i.bracket_token.span.close()),
        Expr::Binary(b) => last(&b.right),
        Expr::Assign(a) => last(&a.right),
        Expr::Try(t) => Some(t.question_token.span),
        Expr::Reference(r) => last(&r.expr),
        Expr::Unary(u) => last(&u.expr),
        Expr::Paren(p) => Some(p.paren_token.span.close()),
        Expr::Macro(m) => Some(delim_close(&m.mac.delimiter)),
        Expr::Array(a) => Some(a.bracket_token.span.close()),
        Expr::Tuple(t) => Some(t.paren_token.span.close()),
        _ => None,
    }
}

/// The span of an expression, as `Spanned::span` gives it.
pub fn expr(e: &Expr) -> Span {
    match (first(e), last(e)) {
        (Some(a), Some(b)) => join(a, b),
        _ => e.span(),
    }
}

/// A span ending where the expression ends (its start is not meaningful).
pub fn expr_end(e: &Expr) -> Span {
    last(e).unwrap_or_else(|| e.span())
}

/// The span of a method call, as `Spanned::span` gives it.
pub fn method_call(m: &syn::ExprMethodCall) -> Span {
    match (m.attrs.is_empty(), first(&m.receiver)) {
        (true, Some(a)) => join(a, m.paren_token.span.close()),
        _ => m.span(),
    }
}

/// The span of a call, as `Spanned::span` gives it.
pub fn call(c: &syn::ExprCall) -> Span {
    match (c.attrs.is_empty(), first(&c.func)) {
        (true, Some(a)) => join(a, c.paren_token.span.close()),
        _ => c.span(),
    }
}

/// The span of a `let` statement, as `Spanned::span` gives it.
pub fn local(l: &syn::Local) -> Span {
    if l.attrs.is_empty() {
        join(l.let_token.span, l.semi_token.span)
    } else {
        l.span()
    }
}

/// The span of a macro invocation, as `Spanned::span` gives it.
pub fn mac(m: &syn::Macro) -> Span {
    match path_first(&m.path) {
        Some(a) => join(a, delim_close(&m.delimiter)),
        None => m.span(),
    }
}

/// The span of a pattern, as `Spanned::span` gives it.
pub fn pat(p: &syn::Pat) -> Span {
    match p {
        syn::Pat::Ident(i)
            if i.attrs.is_empty()
                && i.by_ref.is_none()
                && i.mutability.is_none()
                && i.subpat.is_none() =>
        {
            i.ident.span()
        }
        _ => p.span(),
    }
}
