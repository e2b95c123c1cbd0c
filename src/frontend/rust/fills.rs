//! A fill's pattern and range as a key: two fills whose keys are equal write the same bytes.
//! Only constants have a key: literals, named constants, `size_of`, and immutable locals
//! bound to such an expression, with casts, references, arrays and arithmetic over them.

use syn::spanned::Spanned;
use syn::{Expr, Pat};

use super::syntax::strip_pat_type;
use super::Lowerer;
use crate::ir::Var;

impl Lowerer<'_, '_> {
    /// The source text of a piece of syntax, spaces dropped.
    fn text_of(&self, s: proc_macro2::Span) -> String {
        self.cx
            .src
            .slice(self.span(s))
            .chars()
            .filter(|c| !c.is_whitespace())
            .collect()
    }

    /// The key of a constant expression; `None` when it is not provably constant.
    pub(super) fn const_key(&self, e: &Expr) -> Option<String> {
        Some(match e {
            Expr::Lit(l) => self.text_of(l.span()),
            Expr::Paren(p) => self.const_key(&p.expr)?,
            Expr::Group(g) => self.const_key(&g.expr)?,
            Expr::Reference(r) => format!("&{}", self.const_key(&r.expr)?),
            Expr::Cast(c) => format!(
                "{}as{}",
                self.const_key(&c.expr)?,
                self.text_of(c.ty.span())
            ),
            Expr::Unary(u) => format!("{}{}", self.text_of(u.op.span()), self.const_key(&u.expr)?),
            Expr::Binary(b) => format!(
                "({}{}{})",
                self.const_key(&b.left)?,
                self.text_of(b.op.span()),
                self.const_key(&b.right)?
            ),
            Expr::Array(a) => {
                let items: Option<Vec<String>> =
                    a.elems.iter().map(|x| self.const_key(x)).collect();
                format!("[{}]", items?.join(","))
            }
            Expr::Repeat(r) => {
                format!("[{};{}]", self.const_key(&r.expr)?, self.const_key(&r.len)?)
            }
            Expr::Path(p) if p.qself.is_none() => {
                let segs = &p.path.segments;
                let last = segs.last()?.ident.to_string();
                if segs.len() == 1 {
                    if let Some(v) = self.lookup(&last) {
                        return self.const_locals.get(&v).cloned();
                    }
                }
                // A named constant (`ZERO`, `f32::MAX`, `cl_sys::CL_TRUE`).
                let constant = segs.len() > 1
                    || last
                        .chars()
                        .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_');
                if !constant {
                    return None;
                }
                self.text_of(p.span())
            }
            // `mem::size_of::<f32>()`
            Expr::Call(c) if c.args.is_empty() => match &*c.func {
                Expr::Path(p)
                    if p.path.segments.last().is_some_and(|s| {
                        matches!(s.ident.to_string().as_str(), "size_of" | "align_of")
                    }) =>
                {
                    self.text_of(c.span())
                }
                _ => return None,
            },
            // `ZEROS.as_ptr().cast()`
            Expr::MethodCall(m)
                if m.args.is_empty()
                    && matches!(m.method.to_string().as_str(), "as_ptr" | "cast") =>
            {
                format!("{}.{}()", self.const_key(&m.receiver)?, m.method)
            }
            _ => return None,
        })
    }

    /// Records an immutable local bound to a constant, so that fills naming it compare by
    /// its value.
    pub(super) fn note_const_local(&mut self, pat: &Pat, v: Var, init: &Expr) {
        let Pat::Ident(pi) = strip_pat_type(pat) else {
            return;
        };
        if pi.mutability.is_some() || pi.by_ref.is_some() || pi.subpat.is_some() {
            return;
        }
        if let Some(k) = self.const_key(init) {
            self.const_locals.insert(v, k);
        }
    }
}
