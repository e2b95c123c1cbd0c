//! Float literals that Rust types as `f64`: `let gain = 0.75;` is an `f64` unless a use
//! asks for another float type. A use that leaves the type open is a kernel argument (the
//! bindings' `set_arg`, `arg`, `ArgVal::scalar` take any type), a generic parameter of a
//! function of the file (`fn arg<T>(.., v: &T)`), or a formatting macro.

use std::collections::{HashMap, HashSet};

use syn::visit::Visit;
use syn::{Expr, Pat};

/// Methods and functions whose value argument is generic over its type.
const OPEN_METHODS: &[&str] = &["arg", "set_arg", "arg_named", "set_arg_unchecked"];
const OPEN_FUNCTIONS: &[&str] = &["scalar"];

/// The names of the locals of `block` bound only to unsuffixed float literals and used
/// only where their type stays open: each is an `f64`. `generic_args` gives, for a free
/// function of the file, which of its parameters are `&T` of a type parameter `T`.
pub(super) fn default_f64_locals(
    block: &syn::Block,
    generic_args: &dyn Fn(&str) -> Option<Vec<bool>>,
) -> HashSet<String> {
    let mut scan = Scan {
        lets: HashMap::new(),
        closed: HashSet::new(),
        generic_args,
    };
    scan.visit_block(block);
    scan.lets
        .into_iter()
        .filter(|(name, all_literal)| *all_literal && !scan.closed.contains(name))
        .map(|(name, _)| name)
        .collect()
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
    /// Each local bound by a plain `let`, and whether every such `let` binds an unsuffixed
    /// float literal without a type.
    lets: HashMap<String, bool>,
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
        if let Some(name) = name {
            let literal = !typed && l.init.as_ref().is_some_and(|i| is_default_float(&i.expr));
            let entry = self.lets.entry(name).or_insert(true);
            *entry &= literal;
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

    // A nested function or closure's own locals are its own.
    fn visit_item_fn(&mut self, _: &'ast syn::ItemFn) {}
}
