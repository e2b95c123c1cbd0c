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

pub fn path_first(p: &syn::Path) -> Option<Span> {
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
        Expr::RawAddr(x) => &x.attrs,
        Expr::Unary(x) => &x.attrs,
        Expr::Paren(x) => &x.attrs,
        Expr::Binary(x) => &x.attrs,
        Expr::Try(x) => &x.attrs,
        Expr::Macro(x) => &x.attrs,
        Expr::Array(x) => &x.attrs,
        Expr::Tuple(x) => &x.attrs,
        Expr::Cast(x) => &x.attrs,
        Expr::Assign(x) => &x.attrs,
        Expr::Block(x) => &x.attrs,
        Expr::Unsafe(x) => &x.attrs,
        Expr::Closure(x) => &x.attrs,
        Expr::If(x) => &x.attrs,
        Expr::Match(x) => &x.attrs,
        Expr::ForLoop(x) => &x.attrs,
        Expr::While(x) => &x.attrs,
        Expr::Loop(x) => &x.attrs,
        Expr::Return(x) => &x.attrs,
        Expr::Struct(x) => &x.attrs,
        Expr::Await(x) => &x.attrs,
        Expr::Let(x) => &x.attrs,
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
        Expr::RawAddr(r) => Some(r.and_token.span),
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
        Expr::Block(b) => Some(match &b.label {
            Some(l) => l.name.apostrophe,
            None => b.block.brace_token.span.open(),
        }),
        Expr::Unsafe(u) => Some(u.unsafe_token.span),
        Expr::Closure(c) => closure_first(c),
        Expr::If(i) => Some(i.if_token.span),
        Expr::Match(m) => Some(m.match_token.span),
        Expr::ForLoop(f) => Some(label_or(&f.label, f.for_token.span)),
        Expr::While(w) => Some(label_or(&w.label, w.while_token.span)),
        Expr::Loop(l) => Some(label_or(&l.label, l.loop_token.span)),
        Expr::Return(r) => Some(r.return_token.span),
        Expr::Struct(s) if s.qself.is_none() => path_first(&s.path),
        Expr::Await(a) => first(&a.base),
        Expr::Let(l) => Some(l.let_token.span),
        _ => None,
    }
}

fn label_or(label: &Option<syn::Label>, token: Span) -> Span {
    label.as_ref().map_or(token, |l| l.name.apostrophe)
}

/// The first token of a closure: `for<..>`, `const`, `static`, `async`, `move` or `|`.
fn closure_first(c: &syn::ExprClosure) -> Option<Span> {
    Some(if let Some(l) = &c.lifetimes {
        l.for_token.span
    } else if let Some(t) = &c.constness {
        t.span
    } else if let Some(t) = &c.movability {
        t.span
    } else if let Some(t) = &c.asyncness {
        t.span
    } else if let Some(t) = &c.capture {
        t.span
    } else {
        c.or1_token.span
    })
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
        Expr::RawAddr(r) => last(&r.expr),
        Expr::Unary(u) => last(&u.expr),
        Expr::Paren(p) => Some(p.paren_token.span.close()),
        Expr::Macro(m) => Some(delim_close(&m.mac.delimiter)),
        Expr::Array(a) => Some(a.bracket_token.span.close()),
        Expr::Tuple(t) => Some(t.paren_token.span.close()),
        Expr::Block(b) => Some(b.block.brace_token.span.close()),
        Expr::Unsafe(u) => Some(u.block.brace_token.span.close()),
        Expr::Closure(c) => last(&c.body),
        Expr::If(i) => match &i.else_branch {
            Some((_, e)) => last(e),
            None => Some(i.then_branch.brace_token.span.close()),
        },
        Expr::Match(m) => Some(m.brace_token.span.close()),
        Expr::ForLoop(f) => Some(f.body.brace_token.span.close()),
        Expr::While(w) => Some(w.body.brace_token.span.close()),
        Expr::Loop(l) => Some(l.body.brace_token.span.close()),
        Expr::Return(r) => match &r.expr {
            Some(e) => last(e),
            None => Some(r.return_token.span),
        },
        Expr::Struct(s) => Some(s.brace_token.span.close()),
        Expr::Await(a) => Some(a.await_token.span),
        Expr::Let(l) => last(&l.expr),
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

/// The span of a closure, as `Spanned::span` gives it.
pub fn closure(c: &syn::ExprClosure) -> Span {
    match (c.attrs.is_empty(), closure_first(c), last(&c.body)) {
        (true, Some(a), Some(b)) => join(a, b),
        _ => c.span(),
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

#[cfg(test)]
mod tests {
    use syn::spanned::Spanned;
    use syn::visit::Visit;

    /// Every expression and block of every Rust fixture: the span from the end tokens is the
    /// one `Spanned` gives by printing the node.
    struct Compare(usize);

    impl<'ast> Visit<'ast> for Compare {
        fn visit_expr(&mut self, e: &'ast syn::Expr) {
            let (ours, theirs) = (super::expr(e).byte_range(), e.span().byte_range());
            assert_eq!(
                ours,
                theirs,
                "span of an expression at {:?}",
                e.span().start()
            );
            assert_eq!(super::expr_end(e).byte_range().end, theirs.end);
            if let syn::Expr::Closure(c) = e {
                assert_eq!(super::closure(c).byte_range(), theirs);
            }
            self.0 += 1;
            syn::visit::visit_expr(self, e);
        }

        fn visit_block(&mut self, b: &'ast syn::Block) {
            assert_eq!(
                b.brace_token.span.join().byte_range(),
                b.span().byte_range()
            );
            syn::visit::visit_block(self, b);
        }
    }

    #[test]
    fn spans_are_those_spanned_gives() {
        let mut seen = Compare(0);
        for entry in walkdir::WalkDir::new("fixtures").sort_by_file_name() {
            let entry = entry.unwrap();
            if entry.path().extension().is_none_or(|x| x != "rs") {
                continue;
            }
            let text = std::fs::read_to_string(entry.path()).unwrap();
            if let Ok(file) = syn::parse_file(&text) {
                seen.visit_file(&file);
            }
        }
        assert!(seen.0 > 10_000, "only {} expressions", seen.0);
    }
}
