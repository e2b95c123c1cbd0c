//! Closures and host threads: a closure bound to a local and lowered where it is called,
//! `or_else` between two new queues, and threads spawned and joined.

use std::collections::HashMap;

use syn::{Expr, Pat};

use super::syntax::{
    boxed_closure, closure_of, expr_idents, has_return, loop_exits, macro_args, strip_pat_type,
};
use super::{spans, Lowerer};
use crate::ir::*;

/// A closure bound to a local.
#[derive(Clone)]
pub(super) struct Closure {
    /// The local's name, which calls go by.
    pub(super) name: String,
    pub(super) expr: syn::ExprClosure,
    /// The variables its body names, as they were where it was defined.
    pub(super) captured: HashMap<String, Var>,
}

/// How deep closures called in closures are lowered where they are called.
const MAX_INLINE_DEPTH: usize = 4;

impl Lowerer<'_, '_> {
    /// `let f = |..| ..;`: the closure is lowered where it is called.
    pub(super) fn bind_closure(&mut self, l: &syn::Local) -> bool {
        let (Some(init), Pat::Ident(pi)) = (&l.init, strip_pat_type(&l.pat)) else {
            return false;
        };
        let Some(c) = closure_of(&init.expr) else {
            return false;
        };
        if init.diverge.is_some() || pi.subpat.is_some() {
            return false;
        }
        let captured = self.captures(c);
        let v = self.bind(&pi.ident.to_string(), TypeHint::Unknown);
        let span = self.span(spans::local(l));
        self.out.push(Stmt::Assign {
            dst: Place::var(v),
            value: Value::Unknown,
            span,
        });
        self.closures.insert(
            v,
            Closure {
                name: pi.ident.to_string(),
                expr: c.clone(),
                captured,
            },
        );
        true
    }

    /// `let stages: Vec<Stage> = vec![Box::new(|..| ..), ..];` (or an array of closures):
    /// each member's closure is lowered where a walk of the list calls it.
    pub(super) fn bind_closure_list(&mut self, l: &syn::Local) -> bool {
        let (Some(init), Pat::Ident(pi)) = (&l.init, strip_pat_type(&l.pat)) else {
            return false;
        };
        if init.diverge.is_some() || pi.subpat.is_some() {
            return false;
        }
        let items: Vec<Expr> = match &*init.expr {
            Expr::Array(a) => a.elems.iter().cloned().collect(),
            Expr::Macro(m) if m.mac.path.is_ident("vec") => match macro_args(&m.mac) {
                Some(items) => items,
                None => return false,
            },
            _ => return false,
        };
        let closures: Option<Vec<syn::ExprClosure>> =
            items.iter().map(|e| boxed_closure(e).cloned()).collect();
        let Some(closures) = closures.filter(|c| !c.is_empty()) else {
            return false;
        };
        let name = pi.ident.to_string();
        let list = closures
            .into_iter()
            .map(|c| Closure {
                name: name.clone(),
                captured: self.captures(&c),
                expr: c,
            })
            .collect();
        let v = self.bind(&name, TypeHint::Unknown);
        let span = self.span(spans::local(l));
        self.out.push(Stmt::Assign {
            dst: Place::var(v),
            value: Value::Unknown,
            span,
        });
        self.closure_lists.insert(v, list);
        true
    }

    /// `for stage in &stages { .. }` over a list of closures, with no `break` or `continue`
    /// in its body: the body once per member, `stage` that member's closure. Returns
    /// whether the loop was lowered so.
    pub(super) fn walk_closure_list(&mut self, f: &syn::ExprForLoop) -> bool {
        let Pat::Ident(pi) = strip_pat_type(&f.pat) else {
            return false;
        };
        let Some(list) = self.closure_list_of(&f.expr).cloned() else {
            return false;
        };
        if loop_exits(&f.body) != (false, false) {
            return false;
        }
        let name = pi.ident.to_string();
        for c in list {
            self.scopes.push(HashMap::new());
            let v = self.bind(&name, TypeHint::Unknown);
            self.closures.insert(
                v,
                Closure {
                    name: name.clone(),
                    ..c
                },
            );
            self.block_inline(&f.body);
            self.scopes.pop();
        }
        true
    }

    /// The closures of a list local walked by `&list`, `list.iter()` or `list`.
    fn closure_list_of(&self, e: &Expr) -> Option<&Vec<Closure>> {
        let list = match e {
            Expr::Reference(r) => &r.expr,
            Expr::MethodCall(m)
                if m.args.is_empty() && (m.method == "iter" || m.method == "into_iter") =>
            {
                &m.receiver
            }
            Expr::Paren(p) => return self.closure_list_of(&p.expr),
            e => e,
        };
        let Expr::Path(p) = list else {
            return None;
        };
        let v = self.lookup(&p.path.get_ident()?.to_string())?;
        self.closure_lists.get(&v)
    }

    /// The variables a closure's body names, as they are where it is defined.
    fn captures(&self, c: &syn::ExprClosure) -> HashMap<String, Var> {
        expr_idents(&c.body)
            .into_iter()
            .filter_map(|i| self.lookup(&i).map(|v| (i, v)))
            .collect()
    }

    /// Whether a closure's body is lowered where it is called: not too deep and within the
    /// function's budget.
    pub(super) fn can_inline(&mut self, c: &syn::ExprClosure) -> bool {
        let span = self.span(spans::expr(&c.body));
        let cost = span.end.saturating_sub(span.start).max(1);
        if self.inlining >= MAX_INLINE_DEPTH || cost > self.inline_budget {
            return false;
        }
        self.inline_budget -= cost;
        true
    }

    /// Lowers a closure's body here with its parameters bound to `args`, seeing the
    /// variables it captured where it was defined; `None` when it is not followed. A closure
    /// called by its local's `name` at `call` is a call of its own, and so is one whose body
    /// has a `return` (which leaves the closure, not the function).
    pub(super) fn inline_closure(
        &mut self,
        c: &syn::ExprClosure,
        captured: Option<&HashMap<String, Var>>,
        args: Vec<Value>,
        call: Option<(String, Span)>,
    ) -> Option<Value> {
        if !self.can_inline(c) {
            return None;
        }
        self.scopes.push(captured.cloned().unwrap_or_default());
        self.scopes.push(HashMap::new());
        let span = self.span(spans::closure(c));
        let borrows = std::mem::take(&mut self.borrows);
        for (i, input) in c.inputs.iter().enumerate() {
            let v = args.get(i).cloned().unwrap_or(Value::Unknown);
            self.let_pattern(input, v, span);
            if let (Some(Some(p)), Pat::Ident(pi)) = (borrows.get(i), strip_pat_type(input)) {
                if let Some(var) = self.lookup(&pi.ident.to_string()) {
                    self.mut_refs.insert(var, p.clone());
                }
            }
        }
        self.inlining += 1;
        let v = if call.is_some() || has_return(&c.body) {
            let (name, at) = call.map_or((None, span), |(n, at)| (Some(n), at));
            self.closure_call(&c.body, name, at)
        } else {
            self.expr(&c.body)
        };
        self.inlining -= 1;
        self.scopes.pop();
        self.scopes.pop();
        Some(v)
    }

    /// A closure's body as a [`Stmt::Closure`]: its value, or what a `return` gives, goes
    /// to a temporary.
    pub(super) fn closure_call(&mut self, body: &Expr, name: Option<String>, span: Span) -> Value {
        let saved = std::mem::take(&mut self.out);
        self.closure_calls += 1;
        let value = self.expr(body);
        self.closure_calls -= 1;
        let body = std::mem::replace(&mut self.out, saved);
        let t = self.new_temp(TypeHint::Unknown);
        self.out.push(Stmt::Closure {
            name,
            params: Vec::new(),
            body,
            value,
            dst: Place::var(t),
            span,
        });
        Value::Place(Place::var(t))
    }

    /// `with_event("write", |e| clEnqueueWriteBuffer(.., e))` of a free function of the file
    /// that takes a closure: the function's body is lowered here, as a call of its own,
    /// seeing only its parameters, with each closure parameter bound to the closure given
    /// (which sees what it captured here). `None` when the call is not such a call.
    pub(super) fn inline_helper(
        &mut self,
        name: &str,
        args: &[&Expr],
        span: Span,
    ) -> Option<Value> {
        let f: &syn::ItemFn = *self.cx.free_fns.get(name)?;
        // `fn arg<T>(k: cl_kernel, i: cl_uint, v: &T)` passing `size_of::<T>()`: the size
        // each call gives `T` (`arg(k, 3, &ntaps)` of `ntaps: usize`).
        let sizes = self.generic_sizes_of(&f.sig, &f.block, args);
        self.inline_body(name, (&f.sig, &f.block), None, sizes, args, span)
    }

    /// `kernel.scalar(2, &gain)` of a method of the file with a type parameter whose size
    /// the call gives (`fn scalar<T>(&self, i: cl_uint, v: &T)` passing `size_of::<T>()`):
    /// the method's body is lowered here, as [`Self::inline_helper`] does, with `self` the
    /// receiver. `None` when the call gives no such size.
    pub(super) fn inline_method(
        &mut self,
        name: &str,
        recv: &Value,
        args: &[&Expr],
        span: Span,
    ) -> Option<Value> {
        let (m, ty): (&syn::ImplItemFn, String) = self
            .cx
            .generic_methods
            .get(name)
            .map(|(m, ty)| (*m, ty.clone()))?;
        let sizes = self.generic_sizes_of(&m.sig, &m.block, args);
        if sizes.is_empty() {
            return None;
        }
        let recv = Some((recv.clone(), ty));
        self.inline_body(name, (&m.sig, &m.block), recv, sizes, args, span)
    }

    /// Lowers a function's body where it is called, given the sizes the call gives its type
    /// parameters; `None` where it gives none and hands it no closure, or the function
    /// cannot be lowered here (another arity, a recursion, the depth or budget spent).
    fn inline_body(
        &mut self,
        name: &str,
        (sig, block): (&syn::Signature, &syn::Block),
        recv: Option<(Value, String)>,
        sizes: HashMap<String, u64>,
        args: &[&Expr],
        span: Span,
    ) -> Option<Value> {
        if (sizes.is_empty() && !args.iter().any(|a| closure_of(a).is_some()))
            || typed_inputs(sig).len() != args.len()
            || self.inlined_fns.iter().any(|n| n == name)
            || self.inlining >= MAX_INLINE_DEPTH
        {
            return None;
        }
        let body_span = self.span(block.brace_token.span.join());
        let cost = body_span.end.saturating_sub(body_span.start).max(1);
        if cost > self.inline_budget {
            return None;
        }
        self.inline_budget -= cost;
        // The arguments, in the caller's scope.
        let mut given = Vec::new();
        for a in args {
            match closure_of(a) {
                Some(c) => given.push(Err((c.clone(), self.captures(c)))),
                None => given.push(Ok(self.expr(a))),
            }
        }
        let scopes = std::mem::replace(&mut self.scopes, vec![HashMap::new()]);
        let self_ty = std::mem::replace(&mut self.self_ty, recv.as_ref().map(|r| r.1.clone()));
        let call = (!sizes.is_empty()).then_some(span).or(self.generic_call);
        let outer_call = std::mem::replace(&mut self.generic_call, call);
        let outer_sizes = std::mem::replace(&mut self.generic_sizes, sizes);
        self.inlined_fns.push(name.to_string());
        if let Some((value, ty)) = recv {
            let v = self.bind("self", super::hint_from_name(&ty));
            self.type_var(v, Some(ty));
            self.out.push(Stmt::Assign {
                dst: Place::var(v),
                value,
                span,
            });
        }
        for (pt, arg) in typed_inputs(sig).into_iter().zip(given) {
            match (arg, strip_pat_type(&pt.pat)) {
                (Err((expr, captured)), Pat::Ident(pi)) => {
                    let v = self.bind(&pi.ident.to_string(), TypeHint::Unknown);
                    self.closures.insert(
                        v,
                        Closure {
                            name: pi.ident.to_string(),
                            expr,
                            captured,
                        },
                    );
                }
                (Err(_), pat) => self.let_pattern(pat, Value::Unknown, span),
                (Ok(v), pat) => {
                    self.let_pattern(&pt.pat, v, span);
                    // `v: &T` of a `T` this call gives a size: `size_of_val(v)` is it.
                    let bytes =
                        generic_param(&pt.ty).and_then(|t| self.generic_sizes.get(&t).copied());
                    if let (Some(n), Pat::Ident(pi)) = (bytes, pat) {
                        if let Some(var) = self.lookup(&pi.ident.to_string()) {
                            self.scalar_sizes.insert(var, n);
                        }
                    }
                }
            }
        }
        let block = Expr::Block(syn::ExprBlock {
            attrs: Vec::new(),
            label: None,
            block: block.clone(),
        });
        self.inlining += 1;
        let v = self.closure_call(&block, Some(name.to_string()), span);
        self.inlining -= 1;
        self.inlined_fns.pop();
        self.generic_sizes = outer_sizes;
        self.generic_call = outer_call;
        self.self_ty = self_ty;
        self.scopes = scopes;
        Some(v)
    }

    /// The type parameters of `f` that its body takes the size of (`size_of::<T>()`) and
    /// that a parameter is (`v: &T`, `v: T`, `v: *const T`), each with the size of the
    /// argument this call gives there, where that is known.
    fn generic_sizes_of(
        &self,
        sig: &syn::Signature,
        block: &syn::Block,
        args: &[&Expr],
    ) -> HashMap<String, u64> {
        let mut out = HashMap::new();
        let params: Vec<String> = (sig.generics.type_params())
            .map(|t| t.ident.to_string())
            .collect();
        let inputs = typed_inputs(sig);
        if params.is_empty() || inputs.len() != args.len() {
            return out;
        }
        let body = self.span(block.brace_token.span.join());
        let text = self.cx.src.text.get(body.start..body.end).unwrap_or("");
        if !text.contains("size_of") {
            return out;
        }
        for (pt, arg) in inputs.into_iter().zip(args) {
            let Some(name) = generic_param(&pt.ty) else {
                continue;
            };
            if params.contains(&name) {
                if let Some(bytes) = self.value_bytes(arg) {
                    out.insert(name, bytes);
                }
            }
        }
        out
    }

    /// What a closure that is not followed does: its captures are forgotten.
    pub(super) fn closure_escapes(&mut self, e: &Expr) -> Value {
        self.expr(e);
        Value::Unknown
    }

    /// A host thread running a closure.
    pub(super) fn spawn(&mut self, c: &syn::ExprClosure, e: &Expr, span: Span) -> Value {
        let saved = std::mem::take(&mut self.out);
        let v = self.inline_closure(c, None, Vec::new(), None);
        let body = std::mem::replace(&mut self.out, saved);
        let Some(value) = v else {
            return self.closure_escapes(e);
        };
        let t = self.new_temp(TypeHint::Unknown);
        self.out.push(Stmt::Spawn {
            body,
            value,
            handle: Place::var(t),
            span,
        });
        Value::Place(Place::var(t))
    }

    /// Joins a thread; `Unknown` joins every thread spawned so far.
    pub(super) fn join(&mut self, handle: Value) -> Value {
        let t = self.new_temp(TypeHint::Unknown);
        self.out.push(Stmt::Join {
            handle,
            dst: Place::var(t),
        });
        Value::Place(Place::var(t))
    }

    /// `a.or_else(|_| b)`, `a.unwrap_or_else(|_| b)`: either value. Two new objects of one
    /// kind and properties are one new object whichever is made.
    pub(super) fn or_else(&mut self, recv: Value, c: &syn::ExprClosure, e: &Expr) -> Value {
        let saved = std::mem::take(&mut self.out);
        let v = self.inline_closure(c, None, vec![Value::Unknown], None);
        let mut arm = std::mem::replace(&mut self.out, saved);
        let Some(v) = v else {
            self.forget(vec![recv], Span::default());
            return self.closure_escapes(e);
        };
        let same = match (&recv, &v) {
            (
                Value::New(NewObject::Queue {
                    device: a,
                    out_of_order: x,
                }),
                Value::New(NewObject::Queue {
                    device: b,
                    out_of_order: y,
                }),
            ) if x == y => Some(Value::New(NewObject::Queue {
                device: if a == b { a.clone() } else { None },
                out_of_order: *x,
            })),
            (
                Value::New(NewObject::Buffer {
                    host_init: None,
                    undefined: a,
                    ..
                }),
                Value::New(NewObject::Buffer {
                    host_init: None,
                    undefined: b,
                    ..
                }),
            ) if a == b => Some(v.clone()),
            _ => None,
        };
        if let Some(one) = same {
            self.out.push(Stmt::Branch(vec![arm, Vec::new()]));
            return one;
        }
        let t = self.new_temp(TypeHint::Unknown);
        arm.push(Stmt::Assign {
            dst: Place::var(t),
            value: v,
            span: Span::default(),
        });
        let first = vec![Stmt::Assign {
            dst: Place::var(t),
            value: recv,
            span: Span::default(),
        }];
        self.out.push(Stmt::Branch(vec![first, arm]));
        Value::Place(Place::var(t))
    }
}

/// The type a parameter's type names through references and pointers (`T` of `&T`,
/// `*const T`, `T`), where it is a single name.
fn generic_param(ty: &syn::Type) -> Option<String> {
    let mut ty = ty;
    loop {
        match ty {
            syn::Type::Reference(r) => ty = &r.elem,
            syn::Type::Ptr(p) => ty = &p.elem,
            _ => break,
        }
    }
    let syn::Type::Path(tp) = ty else {
        return None;
    };
    tp.path.get_ident().map(|i| i.to_string())
}

/// The parameters of a signature other than its receiver.
fn typed_inputs(sig: &syn::Signature) -> Vec<&syn::PatType> {
    (sig.inputs.iter())
        .filter_map(|i| match i {
            syn::FnArg::Typed(pt) => Some(pt),
            syn::FnArg::Receiver(_) => None,
        })
        .collect()
}
