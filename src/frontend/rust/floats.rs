//! Float literals that Rust types as `f64`: `let gain = 0.75;` is an `f64` unless a use
//! asks for another float type. A use that leaves the type open is a kernel argument (the
//! bindings' `set_arg`, `arg`, `ArgVal::scalar` take any type), a generic parameter of a
//! function of the file (`fn arg<T>(.., v: &T)`), or a formatting macro.

use std::collections::{HashMap, HashSet};

use syn::visit::Visit;

use super::expr::READING_MACROS;
use syn::{Expr, Pat};

/// Methods and functions whose value argument is generic over its type.
const OPEN_METHODS: &[&str] = &["arg", "set_arg", "arg_named", "set_arg_unchecked"];
const OPEN_FUNCTIONS: &[&str] = &["scalar"];

/// The names of the locals of `block` bound only to unsuffixed float literals, or to
/// arithmetic of such literals and such locals (`let alpha = kappa * dt / (dx * dx);`), and
/// used only where their type stays open: each is an `f64`. Locals joined by arithmetic
/// have one type, so one use that decides it decides it for all of them. `generic_args`
/// gives, for a free function of the file, which of its parameters are `&T` of a type
/// parameter `T`.
pub(super) fn default_f64_locals(
    block: &syn::Block,
    generic_args: &dyn Fn(&str) -> Option<Vec<bool>>,
) -> HashSet<String> {
    let mut scan = Scan {
        lets: HashMap::new(),
        joined: HashMap::new(),
        closed: HashSet::new(),
        generic_args,
    };
    scan.visit_block(block);
    let open = |name: &String| scan.lets.get(name) == Some(&true) && !scan.closed.contains(name);
    // Each group of locals joined by arithmetic is `f64` where every member is.
    let mut f64s = HashSet::new();
    let mut seen = HashSet::new();
    for start in scan.lets.keys() {
        if !seen.insert(start.clone()) {
            continue;
        }
        let mut group = vec![start.clone()];
        let mut next = 0;
        while next < group.len() {
            let name = group[next].clone();
            next += 1;
            for other in scan.joined.get(&name).into_iter().flatten() {
                if seen.insert(other.clone()) {
                    group.push(other.clone());
                }
            }
        }
        if group.iter().all(open) {
            f64s.extend(group);
        }
    }
    f64s
}

/// The locals an expression of unsuffixed float literals and locals, joined by arithmetic,
/// names; `false` for any other expression.
fn float_arith(e: &Expr, out: &mut Vec<String>) -> bool {
    match e {
        Expr::Binary(b) => {
            matches!(
                b.op,
                syn::BinOp::Add(_) | syn::BinOp::Sub(_) | syn::BinOp::Mul(_) | syn::BinOp::Div(_)
            ) && float_arith(&b.left, out)
                && float_arith(&b.right, out)
        }
        Expr::Paren(p) => float_arith(&p.expr, out),
        Expr::Unary(u) if matches!(u.op, syn::UnOp::Neg(_)) => float_arith(&u.expr, out),
        Expr::Path(p) if p.qself.is_none() => match p.path.get_ident() {
            Some(i) => {
                out.push(i.to_string());
                true
            }
            None => false,
        },
        _ => is_default_float(e),
    }
}

/// An unsuffixed float literal, negated or not.
pub(super) fn is_default_float(e: &Expr) -> bool {
    match e {
        Expr::Lit(l) => matches!(&l.lit, syn::Lit::Float(f) if f.suffix().is_empty()),
        Expr::Unary(u) if matches!(u.op, syn::UnOp::Neg(_)) => is_default_float(&u.expr),
        Expr::Paren(p) => is_default_float(&p.expr),
        _ => false,
    }
}

struct Scan<'g> {
    /// Each local bound by a plain `let`, and whether every such `let` binds, without a
    /// type, an unsuffixed float literal or arithmetic of such literals and locals.
    lets: HashMap<String, bool>,
    /// The locals each local's arithmetic joins it with, both ways.
    joined: HashMap<String, Vec<String>>,
    /// Names used where the use may decide the type.
    closed: HashSet<String>,
    generic_args: &'g dyn Fn(&str) -> Option<Vec<bool>>,
}

/// The local a use names: `x` or `&x`.
fn named(e: &Expr) -> Option<String> {
    match e {
        Expr::Path(p) if p.qself.is_none() => p.path.get_ident().map(|i| i.to_string()),
        Expr::Reference(r) => named(&r.expr),
        Expr::Paren(p) => named(&p.expr),
        _ => None,
    }
}

/// Every identifier in a macro's tokens.
fn close_idents(tokens: proc_macro2::TokenStream, closed: &mut HashSet<String>) {
    for t in tokens {
        match t {
            proc_macro2::TokenTree::Ident(i) => {
                closed.insert(i.to_string());
            }
            proc_macro2::TokenTree::Group(g) => close_idents(g.stream(), closed),
            _ => {}
        }
    }
}

impl Scan<'_> {
    /// Visits arguments, skipping the plain uses of locals in open positions.
    fn args<'a>(&mut self, args: impl Iterator<Item = &'a Expr>, open: &dyn Fn(usize) -> bool) {
        for (i, a) in args.enumerate() {
            if open(i) && named(a).is_some() {
                continue;
            }
            self.visit_expr(a);
        }
    }
}

impl<'ast> Visit<'ast> for Scan<'_> {
    fn visit_local(&mut self, l: &'ast syn::Local) {
        let (name, typed) = match &l.pat {
            Pat::Ident(pi) => (Some(pi.ident.to_string()), false),
            Pat::Type(pt) => match &*pt.pat {
                Pat::Ident(pi) => (Some(pi.ident.to_string()), true),
                _ => (None, true),
            },
            _ => (None, false),
        };
        let mut operands = Vec::new();
        let arith = !typed
            && l.init.as_ref().is_some_and(|i| {
                i.diverge.is_none()
                    && (is_default_float(&i.expr) || float_arith(&i.expr, &mut operands))
            });
        let named = name.is_some();
        if let Some(name) = name {
            let entry = self.lets.entry(name.clone()).or_insert(true);
            *entry &= arith;
            if arith {
                for o in &operands {
                    self.joined.entry(name.clone()).or_default().push(o.clone());
                    self.joined.entry(o.clone()).or_default().push(name.clone());
                }
            }
        }
        // The operands of such arithmetic are joined with the local, not closed.
        if arith && named {
            return;
        }
        if let Some(init) = &l.init {
            self.visit_expr(&init.expr);
            if let Some((_, diverge)) = &init.diverge {
                self.visit_expr(diverge);
            }
        }
    }

    fn visit_expr_method_call(&mut self, mc: &'ast syn::ExprMethodCall) {
        self.visit_expr(&mc.receiver);
        let open = OPEN_METHODS.contains(&mc.method.to_string().as_str());
        self.args(mc.args.iter(), &|_| open);
    }

    fn visit_expr_call(&mut self, c: &'ast syn::ExprCall) {
        let name = match &*c.func {
            Expr::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()),
            _ => None,
        };
        let open_fn = name.as_deref().is_some_and(|n| OPEN_FUNCTIONS.contains(&n));
        let generic = name.as_deref().and_then(|n| (self.generic_args)(n));
        self.visit_expr(&c.func);
        self.args(c.args.iter(), &|i| {
            open_fn || generic.as_ref().is_some_and(|g| g.get(i) == Some(&true))
        });
    }

    fn visit_expr_path(&mut self, p: &'ast syn::ExprPath) {
        if let Some(i) = p.path.get_ident() {
            self.closed.insert(i.to_string());
        }
    }

    // A formatting macro takes any float; in any other (`vec![gain; n]` of a
    // `Vec<f32>`, `assert_eq!(gain, 0.5f32)`) a local's use may decide its type.
    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        let name = m.path.segments.last().map(|s| s.ident.to_string());
        let open = name.as_deref().is_some_and(|n| {
            READING_MACROS.contains(&n) && !n.ends_with("_eq") && !n.ends_with("_ne")
        });
        if !open {
            close_idents(m.tokens.clone(), &mut self.closed);
        }
    }

    // A nested function or closure's own locals are its own.
    fn visit_item_fn(&mut self, _: &'ast syn::ItemFn) {}
}
