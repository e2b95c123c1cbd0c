//! Closures and host threads: a closure bound to a local and lowered where it is called,
//! `or_else` between two new queues, and threads spawned and joined.

use std::collections::HashMap;

use syn::{Expr, Pat};

use super::syntax::{closure_of, expr_idents, has_return, strip_pat_type};
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
        let captured = expr_idents(&c.body)
            .into_iter()
            .filter_map(|i| self.lookup(&i).map(|v| (i, v)))
            .collect();
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
        for (i, input) in c.inputs.iter().enumerate() {
            let v = args.get(i).cloned().unwrap_or(Value::Unknown);
            self.let_pattern(input, v, span);
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
            body,
            value,
            dst: Place::var(t),
            span,
        });
        Value::Place(Place::var(t))
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
                }),
                Value::New(NewObject::Buffer {
                    host_init: None,
                    undefined: b,
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
