//! Method calls and function calls: looked up in the binding tables, followed into
//! closures, or forgetting what they receive; and the commands they enqueue.

use syn::{Expr, Type};

use super::each::{EachBody, EACH_ADAPTERS};
use super::expr::string_ctor;
use super::index::qualify;
use super::syntax::{
    closure_of, int_lit, macro_args, path_segments, same_members_adapter, strip, strip_pat_type,
};
use super::types::{callee_type, constructed_type, unwrapped};
use super::{spans, tuple_arity, Lowerer};
use crate::frontend::bindings::Bindings;
use crate::frontend::swap;
use crate::ir::*;

/// Methods on host data that only read it.
const READ_ONLY_METHODS: &[&str] = &[
    "len",
    "is_empty",
    "iter",
    "as_slice",
    "first",
    "last",
    "contains",
    "capacity",
    "chunks",
    "chunks_exact",
    "windows",
    "split_at",
    "starts_with",
    "ends_with",
    "to_vec",
    "get",
];

/// The list whose members a `collect()` gathers unchanged: the receiver of `iter`,
/// `into_iter`, `cloned` or `copied`, and through `take(n)` only a list just made (a call's
/// result), whose count is not known anyway.
fn same_members(mc: &syn::ExprMethodCall) -> Option<&Expr> {
    let mut e = &*mc.receiver;
    let mut adapters = 0;
    let mut took = false;
    loop {
        match e {
            Expr::MethodCall(m) if same_members_adapter(m) => {
                e = &m.receiver;
                adapters += 1;
            }
            Expr::MethodCall(m) if m.method == "take" && m.args.len() == 1 => {
                e = &m.receiver;
                took = true;
            }
            _ => break,
        }
    }
    let fresh = matches!(unwrapped(e), Expr::Call(_) | Expr::MethodCall(_));
    let place = matches!(e, Expr::Path(_) | Expr::Field(_));
    (adapters > 0 && (fresh || (place && !took))).then_some(e)
}

/// A closure that drops its one argument and yields a constant (`|_| ()`).
fn discards(c: &syn::ExprClosure) -> bool {
    matches!(
        c.inputs
            .iter()
            .map(strip_pat_type)
            .collect::<Vec<_>>()
            .as_slice(),
        [syn::Pat::Wild(_)]
    ) && match strip(&c.body) {
        Expr::Tuple(t) => t.elems.is_empty(),
        Expr::Lit(_) => true,
        _ => false,
    }
}

/// A closure of one parameter that it ignores: `|_| k`, `|()| q`.
fn ignores_input(c: &syn::ExprClosure) -> bool {
    match c
        .inputs
        .iter()
        .map(strip_pat_type)
        .collect::<Vec<_>>()
        .as_slice()
    {
        [syn::Pat::Wild(_)] => true,
        [syn::Pat::Tuple(t)] => t.elems.is_empty(),
        _ => false,
    }
}

/// A path to a function that wraps its argument without changing what it is: `Arc::new`,
/// `Rc::new`, `Box::new`, `Mutex::new`, `RefCell::new`, `Some`, `Ok`.
fn is_wrapping_fn(e: &Expr) -> bool {
    let Some(segs) = path_segments(e) else {
        return false;
    };
    match segs.as_slice() {
        [.., t, f] if f == "new" => {
            matches!(t.as_str(), "Arc" | "Rc" | "Box" | "Mutex" | "RefCell")
        }
        [f] => matches!(f.as_str(), "Some" | "Ok"),
        _ => false,
    }
}

impl Lowerer<'_, '_> {
    /// The barrier a local names (`barrier`, `&*b`), as the local that made it.
    fn barrier_var(&self, e: &Expr) -> Option<&Var> {
        match strip(e) {
            Expr::Path(p) => self
                .barriers
                .get(&self.lookup(&p.path.get_ident()?.to_string())?),
            Expr::Unary(u) => self.barrier_var(&u.expr),
            Expr::Reference(r) => self.barrier_var(&r.expr),
            _ => None,
        }
    }

    /// Whether an initializer makes a barrier (`Barrier::new(n)`, also in `Arc::new(..)`:
    /// `Some(None)`) or shares one (`b.clone()`, `&b`: `Some(Some(root))`). A local given
    /// `Arc::clone(&b)` names `b` itself (`bind_shared`).
    pub(super) fn barrier_made(&self, e: &Expr) -> Option<Option<Var>> {
        match strip(e) {
            Expr::Call(c) => {
                let segs = path_segments(&c.func)?;
                let last = segs.last()?.as_str();
                let prev = segs.len().checked_sub(2).map(|i| segs[i].as_str());
                match (prev, last, c.args.first()) {
                    (Some("Barrier"), "new", _) => Some(None),
                    (Some("Arc" | "Rc"), "new", Some(inner)) => self.barrier_made(inner),
                    _ => None,
                }
            }
            Expr::MethodCall(m) if m.method == "clone" && m.args.is_empty() => {
                self.barrier_var(&m.receiver).map(|&r| Some(r))
            }
            // `let barrier = &barrier;`
            e => self.barrier_var(e).map(|&r| Some(r)),
        }
    }

    /// What `p` held, copied out before `p` is given `after` (`mem::replace`, `take`,
    /// `Option::replace`).
    fn take_out(&mut self, p: Place, after: Value, span: Span) -> Value {
        // Named as the place, not as a temporary: it holds what it took out until that is
        // used (an event taken out of `last` to be released is not lost when `last` is
        // given the next one).
        let t = self.new_temp(TypeHint::Unknown);
        self.vars[t].name = self.vars[p.var].name.clone();
        self.out.push(Stmt::Assign {
            dst: Place::var(t),
            value: Value::Place(p.clone()),
            span,
        });
        self.out.push(Stmt::Assign {
            dst: p,
            value: after,
            span,
        });
        Value::Place(Place::var(t))
    }

    /// Whether a value is a local list of raw events (`wait: &[cl_event]`).
    fn is_event_list(&self, v: &Value) -> bool {
        matches!(v, Value::Place(p) if p.proj.is_empty() && self.vars[p.var].hint == TypeHint::EventList)
    }

    pub(super) fn method_call(&mut self, mc: &syn::ExprMethodCall) -> Value {
        let name = mc.method.to_string();
        let args: Vec<&Expr> = mc.args.iter().collect();
        let span = self.span(spans::method_call(mc));
        // `barrier.wait()` of a `std::sync::Barrier`: the threads meet there.
        if name == "wait" && args.is_empty() {
            if let Some(&root) = self.barrier_var(&mc.receiver) {
                let barrier = Value::Place(Place::var(root));
                self.out.push(Stmt::Rendezvous { barrier });
                return Value::Scalar;
            }
        }
        // `rx.recv()` of a channel between threads (`std::sync::mpsc`, crossbeam); a
        // socket's `recv` takes a buffer.
        if (name == "recv" && args.is_empty()) || (name == "recv_timeout" && args.len() == 1) {
            self.out.push(Stmt::Received);
        }
        // `list.iter().for_each(|q| ..)`, `.map(|q| ..)`: a loop over the list.
        if let (true, [arg]) = (EACH_ADAPTERS.contains(&name.as_str()), args.as_slice()) {
            if let Some(c) = closure_of(arg).filter(|c| c.inputs.len() == 1) {
                if self.is_iter_chain(&mc.receiver) && self.can_inline(c) {
                    return self.each(
                        &mc.receiver,
                        &c.inputs[0],
                        EachBody::Closure(&c.body),
                        name == "map",
                    );
                }
            }
            // `devices.iter().map(Device::reduce_partials)`: the file's function called on
            // each item, as `|d| Device::reduce_partials(d)` calls it.
            if let Some(c) = self.fn_item_closure(arg) {
                if self.is_iter_chain(&mc.receiver) && self.can_inline(&c) {
                    return self.each(
                        &mc.receiver,
                        &c.inputs[0],
                        EachBody::Closure(&c.body),
                        name == "map",
                    );
                }
            }
        }
        // `iter.fold(init, |acc, x| ..)`: a loop threading the accumulator through.
        if let ("fold" | "try_fold", [init, f]) = (name.as_str(), args.as_slice()) {
            if let Some(c) = closure_of(f).filter(|c| c.inputs.len() == 2) {
                if self.can_inline(c) {
                    let span = self.span(spans::expr(init));
                    let value = self.expr(init);
                    let acc = self.new_temp(TypeHint::Unknown);
                    self.out.push(Stmt::Assign {
                        dst: Place::var(acc),
                        value,
                        span,
                    });
                    self.each(
                        &mc.receiver,
                        &c.inputs[1],
                        EachBody::Fold(&c.body, &c.inputs[0], acc),
                        false,
                    );
                    return Value::Place(Place::var(acc));
                }
            }
        }
        // `get_all_devices(..)?.into_iter().take(2).collect()`, `ids.iter().copied().collect()`:
        // the list itself, or the first members of a list just made.
        if let ("collect", [], Some(base)) = (name.as_str(), args.as_slice(), same_members(mc)) {
            // Not host data: a collected copy of it is data of its own.
            return match self.expr(base) {
                Value::Place(p) if matches!(self.vars[p.var].hint, TypeHint::Host(_)) => {
                    Value::Host {
                        kind: HostKind::Vec,
                        base: None,
                    }
                }
                v => v,
            };
        }
        let recv = self.expr(&mc.receiver);
        // A method the file defines on the receiver's struct (`Raw::get` of a newtype
        // around a raw handle) is followed, whatever a method of that name does elsewhere.
        // `Stage::Denoise.device()` of an enum the file defines: its own method.
        let of_enum = match path_segments(&mc.receiver).as_deref() {
            Some([ty, _]) if (self.cx.enums).contains_key(&qualify(self.prefix.as_deref(), ty)) => {
                Some(ty.clone())
            }
            _ => None,
        };
        let own_method = match of_enum.or_else(|| self.struct_of_value(&recv)) {
            // Also one a module of the file defines for a type used here by its own name
            // (`backends[0].queue()` of `gpu::ClDevice`, imported by `use gpu::ClDevice`).
            Some(ty) => Some(qualify(self.prefix.as_deref(), &format!("{ty}::{name}")))
                .filter(|c| self.cx.defined.contains(c))
                .or_else(|| self.cx.methods.get(&format!("{ty}::{name}")).cloned()),
            // Not on a field of `self` (`self.0.push(ev)` in the wrapper's own `push`): the
            // struct's fields have types of their own.
            None if matches!(&recv, Value::Place(p)
                if self.vars[p.var].hint == TypeHint::Unknown
                    && (p.proj.is_empty() || self.vars[p.var].name != "self")) =>
            {
                self.cx.newtype_methods.get(&name).cloned()
            }
            None => None,
        };
        if let Some(callee) = own_method {
            if let Some(v) = self.inline_method(&callee, &recv, &args, span) {
                return v;
            }
            let vals = args.iter().map(|a| self.expr(a)).collect();
            return self.emit_call(callee, Some(recv), vals, span);
        }
        match (name.as_str(), args.as_slice()) {
            // `thread::Builder::new().spawn(|| ..)`, a scope's `s.spawn(|| ..)`.
            ("spawn", [arg]) => {
                if let Some(c) = closure_of(arg) {
                    return self.spawn(c, arg, span);
                }
            }
            ("join", []) => return self.join(recv),
            // `.map(|_| ())` on a command's result: the event is dropped, nothing waits.
            ("map", [arg]) if closure_of(arg).is_some_and(discards) => return Value::Unknown,
            // `CommandQueue::create(..).map(Arc::new)`: the same object, shared.
            ("map", [arg]) if is_wrapping_fn(arg) => return recv,
            // `Kernel::create(&p, name).map(|k| (name, k))` of one value (an `Option`, a
            // `Result`): the closure run once on it.
            ("map", [arg])
                if !matches!(recv, Value::List(_))
                    && closure_of(arg)
                        .is_some_and(|c| c.inputs.len() == 1 && !ignores_input(c)) =>
            {
                if let Some(c) = closure_of(arg) {
                    if let Some(v) = self.inline_closure(c, None, vec![recv.clone()], None) {
                        return v;
                    }
                }
            }
            // `check(err, "clCreateKernel").map(|_| k)` of a status turned into a `Result`:
            // the value is the closure's (a failure is an error path, as `?` makes one).
            ("map", [arg]) => {
                if let Some(c) = closure_of(arg).filter(|c| ignores_input(c)) {
                    if let Some(v) = self.inline_closure(c, None, vec![recv.clone()], None) {
                        return v;
                    }
                }
            }
            ("or_else" | "unwrap_or_else", [arg]) => {
                if let Some(c) = closure_of(arg).filter(|c| c.inputs.len() <= 1) {
                    return self.or_else(recv, c, arg);
                }
            }
            // `set_args(..).and_then(|_| enqueue(..))`: the closure runs on what the result
            // holds, and its result is the call's (a failure before it is an error path, as
            // `?` makes one).
            ("and_then", [arg]) => {
                if let Some(c) = closure_of(arg).filter(|c| c.inputs.len() == 1) {
                    if let Some(v) = self.inline_closure(c, None, vec![recv.clone()], None) {
                        return v;
                    }
                }
            }
            _ => {}
        }
        match (name.as_str(), args.len()) {
            (
                "get" | "get_mut" | "clone" | "as_ref" | "as_mut" | "borrow" | "borrow_mut"
                | "lock" | "unwrap" | "unwrap_unchecked" | "deref" | "deref_mut" | "as_core"
                | "cast" | "cast_mut" | "cast_const",
                0,
            )
            | ("expect", 1)
            // `last.ok_or_else(|| "empty".to_string())`: the value, in a `Result`.
            | ("ok_or" | "ok_or_else", 1) => {
                for a in &args {
                    self.expr(a);
                }
                return recv;
            }
            // Context for an error (`.context("upload")` of anyhow, `.map_err(|e| ..)`, the
            // file's own `.ctx("queue")` on `Result`): the value is the call's. (ocl's
            // builders have a `context(&ctx)` of their own.)
            ("context" | "wrap_err", 1)
                if matches!(strip(args[0]), Expr::Lit(_) | Expr::Macro(_)) =>
            {
                return recv;
            }
            // Only the error changes (`.map_err(|e| ..)`, `.map_err(Error::Cl)`).
            ("map_err" | "with_context" | "wrap_err_with" | "inspect_err", 1)
                if closure_of(args[0]).is_some() || matches!(strip(args[0]), Expr::Path(_)) =>
            {
                return recv;
            }
            (n, _) if self.cx.result_methods.contains(n) => {
                for a in &args {
                    self.expr(a);
                }
                return recv;
            }
            ("as_ptr" | "as_mut_ptr", 0) if matches!(recv, Value::List(_)) => return recv,
            // `wait.as_ptr()` of a `&[cl_event]`: the events.
            ("as_ptr", 0) if self.is_event_list(&recv) => return recv,
            // `queue.as_ptr()` of a wrapper (ocl-core's `CommandQueue`): its raw handle.
            ("as_ptr", 0) if matches!(&recv, Value::Place(p) if self.vars[p.var].hint.is_handle()) => {
                return recv
            }
            ("as_ptr" | "as_mut_ptr", 0) => {
                return Value::Host {
                    kind: HostKind::Pointer,
                    base: match recv {
                        Value::Place(p) => Some(p),
                        _ => None,
                    },
                };
            }
            // `deps.to_vec()` of a `&[cl_event]`: the same events, in a list of its own.
            ("to_vec", 0) if matches!(&recv, Value::List(_)) || self.is_event_list(&recv) => {
                return recv
            }
            ("to_vec", 0) => {
                return Value::Host {
                    kind: HostKind::Vec,
                    base: None,
                }
            }
            // What a `map` over a list yields.
            ("collect", 0) if matches!(&recv, Value::Place(p) if p.proj.is_empty() && self.mapped.contains(&p.var)) =>
            {
                return recv;
            }
            ("collect", 0) => {
                let is_vec = mc.turbofish.as_ref().is_some_and(|t| {
                    t.args.iter().any(|a| matches!(a, syn::GenericArgument::Type(Type::Path(p)) if p.path.segments.last().is_some_and(|s| s.ident == "Vec")))
                });
                return if is_vec {
                    Value::Host {
                        kind: HostKind::Vec,
                        base: None,
                    }
                } else {
                    Value::Unknown
                };
            }
            // `bufs.swap(0, 1)` of a ping-pong pair: the two members trade what they hold,
            // as `mem::swap(&mut bufs[0], &mut bufs[1])` does.
            ("swap", 2) if matches!(strip(&mc.receiver), Expr::Path(_) | Expr::Field(_)) => {
                let member = |i: &Expr| {
                    Expr::Index(syn::ExprIndex {
                        attrs: Vec::new(),
                        expr: mc.receiver.clone(),
                        bracket_token: Default::default(),
                        index: Box::new(i.clone()),
                    })
                };
                let (a, b) = (member(args[0]), member(args[1]));
                if let (Value::Place(a), Value::Place(b)) = (self.expr(&a), self.expr(&b)) {
                    let t = self.new_temp(TypeHint::Unknown);
                    self.out.extend(swap(a, b, t, span));
                    return Value::Scalar;
                }
            }
            // `self.done.clear()`: the list holds nothing now.
            ("clear", 0) if self.holds_handles(&mc.receiver) => {
                if let Value::Place(dst) = recv {
                    self.out.push(Stmt::Assign {
                        dst,
                        value: Value::List(Vec::new()),
                        span,
                    });
                }
                return Value::Unknown;
            }
            ("push", 1) => {
                let item = self.expr(args[0]);
                // `parts.push(p)` of `let p = Part::new(..)?`, `parts.push(Part::new(..)?)`: a
                // list of that struct.
                let ty = match &item {
                    Value::Place(x) if x.proj.is_empty() => self.struct_of.get(&x.var).cloned(),
                    _ => None,
                }
                .or_else(|| self.made_struct(args[0]));
                if let (Value::Place(list), Some(ty)) = (&recv, ty) {
                    if list.proj.is_empty() {
                        self.members_struct.insert(list.var, ty);
                    }
                }
                match recv {
                    Value::Place(list) => self.out.push(Stmt::Push { list, item }),
                    // Into a list the analysis cannot name (`shared.lock().unwrap()`): the
                    // item goes where it is not followed.
                    other => self.forget(vec![other, item], span),
                }
                return Value::Unknown;
            }
            // `prev.replace(done)` of an `Option` (a `Cell`): what it held, and it holds the
            // new value now.
            ("replace", 1) if matches!(recv, Value::Place(_)) => {
                let after = self.expr(args[0]);
                if let Value::Place(p) = recv {
                    return self.take_out(p, after, span);
                }
            }
            // `prev.take()` of an `Option` (a `Cell`): what it held, and it holds nothing now.
            ("take", 0) => {
                if let Value::Place(p) = recv {
                    return self.take_out(p, Value::Null, span);
                }
            }
            // `nd.saturating_sub(1)`, `d.wrapping_add(1)`: integer arithmetic (a result
            // below 0 is a number not known).
            ("saturating_sub" | "wrapping_sub" | "saturating_add" | "wrapping_add", 1) => {
                let op = match name.as_str() {
                    "saturating_sub" | "wrapping_sub" => ArithOp::Sub,
                    _ => ArithOp::Add,
                };
                let rhs = self.expr(args[0]);
                return crate::frontend::arith(Some(op), recv, rhs);
            }
            // `queues.len()` of a list: its count, where the analysis knows the list.
            ("len", 0) if matches!(recv, Value::Place(_)) => return Value::Len(Box::new(recv)),
            ("len" | "is_empty", 0) => return Value::Scalar,
            // `queues.first()`, `slots.last()`, `devs.get(1)` of a list of handles or
            // structs: that member (host data's elements are numbers).
            ("first" | "last", 0) | ("get" | "get_mut", 1) => {
                if let Value::Place(mut p) = recv.clone() {
                    let hint = self.vars[p.var].hint;
                    let member = match (name.as_str(), args.first().map(|a| int_lit(a))) {
                        ("first", _) => Some(Proj::Index(0)),
                        ("last", _) => Some(Proj::Last),
                        (_, Some(Some(n))) => Some(Proj::Index(n)),
                        // `self.kernels.get_mut("render_rows")` of a map: the member of
                        // that key.
                        _ => args.first().and_then(|a| match strip(a) {
                            Expr::Lit(syn::ExprLit {
                                lit: syn::Lit::Str(s),
                                ..
                            }) => Some(Proj::Key(s.value())),
                            _ => None,
                        }),
                    };
                    if let (Some(m), false) =
                        (member, matches!(hint, TypeHint::Host(_) | TypeHint::Scalar))
                    {
                        p.proj.push(m);
                        return Value::Place(p);
                    }
                }
            }
            _ => {}
        }
        // A method of this file's impl, called on `self`.
        if let (Expr::Path(p), Some(ty)) = (&*mc.receiver, &self.self_ty) {
            if p.path.is_ident("self") {
                let callee = qualify(self.prefix.as_deref(), &format!("{ty}::{name}"));
                if self.cx.defined.contains(&callee) {
                    let vals = args.iter().map(|a| self.expr(a)).collect();
                    return self.emit_call(callee, Some(recv), vals, span);
                }
            }
        }
        if let Some(api) = Bindings::get().method(&name, args.len()) {
            return self.apply(api, Some((recv, &mc.receiver)), &args, span);
        }
        let arg_vals: Vec<Value> = args.iter().map(|a| self.expr(a)).collect();
        if READ_ONLY_METHODS.contains(&name.as_str()) {
            return Value::Unknown;
        }
        // A method of a struct of the crate, called on `self` or on a parameter of that
        // type: another file may define it.
        if let Some(ty) = self.struct_of_value(&recv) {
            let callee = qualify(self.prefix.as_deref(), &format!("{ty}::{name}"));
            return self.emit_call(callee, Some(recv), arg_vals, span);
        }
        let mut all = vec![recv];
        all.extend(arg_vals);
        self.forget(all, span);
        Value::Unknown
    }

    /// The struct of the crate a value is: a local's declared or constructed type, or a
    /// list member's struct (`queues[0]` of `queues.push(Raw(..))`).
    fn struct_of_value(&self, v: &Value) -> Option<String> {
        match v {
            Value::Place(p) if p.proj.is_empty() => self.var_struct(p.var),
            // `self.gpus` of `gpus: Gpus`, a struct the file defines.
            _ => self.member_struct(v).or_else(|| self.place_struct(v)),
        }
    }

    /// The struct of the file every member of a literal list is made as
    /// (`vec![Half::new(..)?, Half::new(..)?]`).
    pub(super) fn listed_struct(&self, e: &Expr) -> Option<String> {
        let items: Vec<Expr> = match strip(e) {
            Expr::Array(a) => a.elems.iter().cloned().collect(),
            Expr::Macro(m) if m.mac.path.is_ident("vec") => macro_args(&m.mac)?,
            _ => return None,
        };
        let mut types = items.iter().map(|x| self.made_struct(x));
        let first = types.next()??;
        types.all(|t| t.as_ref() == Some(&first)).then_some(first)
    }

    /// The struct of the crate a constructor call makes (`Band::new(..)?`), including one
    /// whose name reads like a binding's type (`DeviceSlice`), which the file defines.
    pub(super) fn made_struct(&self, e: &Expr) -> Option<String> {
        let defined = callee_type(e).filter(|t| self.cx.structs.contains_key(t));
        // A tuple struct's constructor: `Raw(queue)`.
        let tuple = || match strip(e) {
            Expr::Call(c) => match path_segments(&c.func)?.as_slice() {
                [t] if self.cx.structs.contains_key(t) => Some(t.clone()),
                _ => None,
            },
            _ => None,
        };
        defined
            .or_else(tuple)
            .or_else(|| constructed_type(e))
            .and_then(|t| match t.as_str() {
                "Self" => self.self_ty.clone(),
                _ => Some(t),
            })
            .or_else(|| self.returned_struct(e))
    }

    /// The struct of the file a call returns by its signature: a method's on a local of a
    /// struct (`builder.build()?`), a free function's `-> Result<Rig>`. (A chain's
    /// calls give their temporaries their struct where they are lowered.)
    fn returned_struct(&self, e: &Expr) -> Option<String> {
        let name = match unwrapped(strip(e)) {
            Expr::MethodCall(mc) => {
                let Expr::Path(p) = strip(&mc.receiver) else {
                    return None;
                };
                let v = self.lookup(&p.path.get_ident()?.to_string())?;
                let ty = self.struct_of_value(&Value::Place(Place::var(v)))?;
                format!("{ty}::{}", mc.method)
            }
            Expr::Call(c) => path_segments(&c.func)?.join("::"),
            _ => return None,
        };
        self.cx
            .returns
            .get(&qualify(self.prefix.as_deref(), &name))
            .cloned()
    }

    /// Whether `name` is a tuple struct the crate defines with `n` fields.
    fn is_tuple_struct(&self, name: &str, n: usize) -> bool {
        self.cx.structs.get(name).and_then(tuple_arity) == Some(n)
    }

    pub(super) fn call(&mut self, c: &syn::ExprCall) -> Value {
        let span = self.span(spans::call(c));
        let args: Vec<&Expr> = c.args.iter().collect();
        // A closure called in place, or a local bound to one.
        let bound = match &*c.func {
            Expr::Path(p) if p.path.segments.len() == 1 && p.qself.is_none() => self
                .lookup(&p.path.segments[0].ident.to_string())
                .and_then(|v| self.closures.get(&v).cloned()),
            _ => None,
        };
        let closure = match (&bound, closure_of(&c.func)) {
            (Some(b), _) => Some((&b.expr, Some(&b.captured), Some(b.name.clone()))),
            (None, Some(x)) => Some((x, None, None)),
            _ => None,
        };
        if let Some((x, captured, name)) = closure {
            let vals: Vec<Value> = args.iter().map(|a| self.expr(a)).collect();
            let call = name.map(|n| (n, span));
            self.borrows = (args.iter().zip(&vals))
                .map(|(a, v)| match v {
                    Value::Place(p) if super::apply::is_mut_borrow(a) => Some(p.clone()),
                    _ => None,
                })
                .collect();
            if let Some(v) = self.inline_closure(x, captured, vals.clone(), call) {
                return v;
            }
            let f = self.expr(&c.func);
            let mut all = vals;
            all.push(f);
            self.forget(all, span);
            return Value::Unknown;
        }
        let Some(segs) = path_segments(&c.func) else {
            let f = self.expr(&c.func);
            let mut all: Vec<Value> = args.iter().map(|a| self.expr(a)).collect();
            all.push(f);
            self.forget(all, span);
            return Value::Unknown;
        };
        let last = segs.last().map(String::as_str).unwrap_or("");
        // `CString::new(name)`: the same string.
        if let ([arg], true) = (args.as_slice(), string_ctor(&c.func)) {
            match self.expr(arg) {
                v @ Value::Str(_) => return v,
                Value::Place(p) if self.vars[p.var].hint == TypeHint::Unknown => {
                    return Value::Place(p)
                }
                v => {
                    self.forget(vec![v], span);
                    return Value::Unknown;
                }
            }
        }
        // `std::mem::swap(&mut self.cur, &mut self.next)`: the two places trade what they
        // hold.
        if last == "swap" && args.len() == 2 && (segs.len() == 1 || segs.iter().any(|s| s == "mem"))
        {
            if let (Value::Place(a), Value::Place(b)) = (self.expr(args[0]), self.expr(args[1])) {
                let t = self.new_temp(TypeHint::Unknown);
                self.out.extend(swap(a, b, t, span));
                return Value::Scalar;
            }
        }
        // `mem::take(&mut list)`, `mem::replace(&mut slot, v)`: what the place held; it
        // holds the default (not followed) or `v` now.
        let is_mem = segs.len() >= 2 && segs[segs.len() - 2] == "mem";
        if let (true, "take" | "replace", 1..=2) = (is_mem, last, args.len()) {
            let taken = self.expr(args[0]);
            let after = args.get(1).map_or(Value::Unknown, |a| self.expr(a));
            if let Value::Place(p) = taken {
                return self.take_out(p, after, span);
            }
            self.forget(vec![taken, after], span);
            return Value::Unknown;
        }
        if segs.len() == 1 {
            let name = qualify(self.prefix.as_deref(), last);
            if let Some(v) = self.inline_helper(&name, &args, span) {
                return v;
            }
        }
        // A tuple struct of the crate wrapping handles (`Mem(buf)`, a `Send` newtype): its
        // fields `.0`, `.1`.
        if segs.len() == 1 && self.is_tuple_struct(last, args.len()) {
            let fields = (args.iter().enumerate())
                .map(|(i, a)| (i.to_string(), self.expr(a)))
                .collect();
            return Value::Struct(fields);
        }
        match (last, args.len()) {
            // `ptr::null()`, not a constructor such as ocl-core's `Event::null()`.
            ("null" | "null_mut", 0) if segs.len() == 1 || segs[segs.len() - 2] == "ptr" => {
                return Value::Null
            }
            ("Some" | "Ok", 1) if segs.len() == 1 => return self.expr(args[0]),
            // ocl's and ocl-core's `MemMigrationFlags::empty()`: no flag, a move between
            // devices.
            ("empty", 0) if segs.len() >= 2 && segs[segs.len() - 2] == "MemMigrationFlags" => {
                return Value::Int(0)
            }
            // `mem::size_of_val(data)` reads no more than the size: the data is unchanged.
            ("size_of_val" | "align_of_val", 1)
                if segs.len() == 1 || segs[segs.len() - 2] == "mem" =>
            {
                self.expr(args[0]);
                return Value::Scalar;
            }
            // `mem::forget(ev)`: the value goes without its destructor; nothing waits for a
            // command, and nothing is released.
            ("forget", 1) if segs.len() >= 2 && segs[segs.len() - 2] == "mem" => {
                self.expr(args[0]);
                return Value::Scalar;
            }
            // `slice::from_ref(&buf)`: a list of one (ocl-core's buffers to migrate).
            ("from_ref" | "from_mut", 1) if segs.len() >= 2 && segs[segs.len() - 2] == "slice" => {
                return Value::List(vec![self.expr(args[0])]);
            }
            ("new", 1)
                if segs.len() >= 2
                    && matches!(
                        segs[segs.len() - 2].as_str(),
                        "Box" | "Rc" | "Arc" | "Mutex" | "RefCell"
                    ) =>
            {
                return self.expr(args[0]);
            }
            // `Arc::clone(&buf)`: another pointer to the same object.
            ("clone", 1)
                if segs.len() >= 2 && matches!(segs[segs.len() - 2].as_str(), "Rc" | "Arc") =>
            {
                return self.expr(args[0]);
            }
            // `Builder::default()` of a struct of the file that does not write its own: a
            // value whose fields the code then sets one by one.
            ("default", 0) if segs.len() == 2 => {
                let ty = match segs[0].as_str() {
                    "Self" => self.self_ty.clone(),
                    t => Some(t.to_string()),
                };
                if let Some(ty) = ty.filter(|t| {
                    self.cx.structs.contains_key(t)
                        && !(self.cx.defined)
                            .contains(&qualify(self.prefix.as_deref(), &format!("{t}::default")))
                }) {
                    let t = self.new_temp(TypeHint::Unknown);
                    self.struct_of.insert(t, ty);
                    self.out.push(Stmt::Assign {
                        dst: Place::var(t),
                        value: Value::Struct(Vec::new()),
                        span,
                    });
                    return Value::Place(Place::var(t));
                }
            }
            ("new" | "with_capacity", _) if segs.len() >= 2 && segs[segs.len() - 2] == "Vec" => {
                for a in &args {
                    self.expr(a);
                }
                return Value::List(Vec::new());
            }
            _ => {}
        }
        let segs: Vec<String> = match self.cx.uses.names.get(&segs[0]) {
            Some(full) => full.iter().chain(&segs[1..]).cloned().collect(),
            None => segs,
        };
        // `thread::spawn(|| ..)`, `thread::scope(|s| ..)`.
        let in_thread = segs.len() >= 2 && segs[segs.len() - 2] == "thread";
        if let (true, [arg]) = (in_thread, args.as_slice()) {
            if let Some(x) = closure_of(arg) {
                match segs[segs.len() - 1].as_str() {
                    "spawn" => return self.spawn(x, arg, span),
                    "scope" => {
                        if let Some(v) = self.inline_closure(x, None, vec![Value::Unknown], None) {
                            // The scope joins every thread spawned in it.
                            self.join(Value::Unknown);
                            return v;
                        }
                        return self.closure_escapes(arg);
                    }
                    _ => {}
                }
            }
        }
        // A function of this file: `helper(..)`, `Self::helper(..)`, `Halo::helper(..)`.
        let local = match segs.as_slice() {
            [f] => Some(f.clone()),
            [t, f] if t == "Self" => self.self_ty.as_ref().map(|ty| format!("{ty}::{f}")),
            [t, f] => Some(format!("{t}::{f}")),
            _ => None,
        }
        .and_then(|n| self.defined_in_scope(&n));
        if let Some(callee) = local {
            // `ok(create_kernel(..), "what")`: the value the result holds.
            if let (true, Some((first, rest))) =
                (self.cx.unwrap_fns.contains(&callee), args.split_first())
            {
                let v = self.expr(first);
                for a in rest {
                    self.expr(a);
                }
                return v;
            }
            let vals = args.iter().map(|a| self.expr(a)).collect();
            return self.emit_call(callee, None, vals, span);
        }
        if let Some(api) = self.function_api(&segs, args.len()) {
            return self.apply(api, None, &args, span);
        }
        let all: Vec<Value> = args.iter().map(|a| self.expr(a)).collect();
        if let Some(callee) = self.crate_path(&segs) {
            return self.emit_call(callee, None, all, span);
        }
        self.forget(all, span);
        Value::Unknown
    }

    /// `|item| f(item)` for a path `f` to a function or method this file defines, with
    /// the path's span.
    fn fn_item_closure(&self, e: &Expr) -> Option<syn::ExprClosure> {
        let Expr::Path(p) = strip(e) else {
            return None;
        };
        self.defined_in_scope(&path_segments(e)?.join("::"))?;
        let span = spans::expr(e);
        let item = syn::Ident::new("item", span);
        let call = Expr::Call(syn::ExprCall {
            attrs: Vec::new(),
            func: Box::new(Expr::Path(p.clone())),
            paren_token: syn::token::Paren(span),
            args: std::iter::once(Expr::Path(syn::ExprPath {
                attrs: Vec::new(),
                qself: None,
                path: item.clone().into(),
            }))
            .collect(),
        });
        Some(syn::ExprClosure {
            attrs: Vec::new(),
            lifetimes: None,
            constness: None,
            movability: None,
            asyncness: None,
            capture: None,
            or1_token: Default::default(),
            inputs: std::iter::once(syn::Pat::Ident(syn::PatIdent {
                attrs: Vec::new(),
                by_ref: None,
                mutability: None,
                ident: item,
                subpat: None,
            }))
            .collect(),
            or2_token: Default::default(),
            output: syn::ReturnType::Default,
            body: Box::new(call),
        })
    }

    /// The function of this file a name called in the current module means: the module's
    /// own, else one of a module it is nested in (`setup()` in `mod tests` with
    /// `use super::*`: a name the code compiles with and no other file function gives).
    fn defined_in_scope(&self, name: &str) -> Option<String> {
        let mut prefix = self.prefix.clone();
        loop {
            let full = qualify(prefix.as_deref(), name);
            if self.cx.defined.contains(&full) {
                return Some(full);
            }
            prefix = prefix?.rsplit_once("::").map(|(up, _)| up.to_string());
        }
    }

    /// A call of a function defined in this file; its result goes to a temporary.
    fn emit_call(
        &mut self,
        callee: String,
        recv: Option<Value>,
        args: Vec<Value>,
        span: Span,
    ) -> Value {
        // A handle by the declared type of what it returns (`-> cl_mem`), so that storing
        // it into a list of no known type stores a handle.
        let hint = match self.cx.free_fns.get(&callee).map(|f| &f.sig.output) {
            Some(syn::ReturnType::Type(_, t)) => match self.hint_of(super::ok_type(t)) {
                h if h.is_handle() => h,
                _ => TypeHint::Unknown,
            },
            _ => TypeHint::Unknown,
        };
        let t = self.new_temp(hint);
        // What it returns has the methods of its struct (`builder.gain(g).build()?`).
        if let Some(ty) = self.cx.returns.get(&callee) {
            self.struct_of.insert(t, ty.clone());
        }
        self.out.push(Stmt::Call {
            callee,
            recv,
            args,
            dst: Place::var(t),
            span,
        });
        Value::Place(Place::var(t))
    }

    /// Emits an enqueue; a read fills its host data, which then changes.
    pub(super) fn enqueue(
        &mut self,
        cmd: Command,
        host: Option<Value>,
        kind: CommandKind,
    ) -> Value {
        let span = cmd.span;
        let t = self.new_temp(TypeHint::Event);
        self.raw_events |= cmd.raw_event;
        self.out.push(Stmt::Enqueue {
            cmd,
            event: Some(Place::var(t)),
        });
        if kind == CommandKind::Read {
            if let Some(h) = host {
                self.forget(vec![h], span);
            }
        }
        Value::Place(Place::var(t))
    }

    /// From the end of the receiver to the end of the call, for a method in a chain.
    pub(super) fn method_span(&self, recv: Option<&Expr>, args: &[&Expr], whole: Span) -> Span {
        let start = recv.map_or(whole.start, |r| self.span(spans::expr_end(r)).end);
        let end = args
            .last()
            .map_or(whole.end, |a| self.span(spans::expr_end(a)).end + 1)
            .min(whole.end);
        let text = &self.cx.src.text;
        // Skip the whitespace, comments and the `.` between the receiver and the method
        // (`.set_arg(&a) // the input` on the line before).
        let skip = text.get(start..end).map_or(0, |t| {
            let mut rest = t;
            loop {
                let trimmed = rest.trim_start_matches(|c: char| c.is_whitespace() || c == '.');
                rest = if let Some(c) = trimmed.strip_prefix("//") {
                    c.find('\n').map_or("", |n| &c[n..])
                } else if let Some(c) = trimmed.strip_prefix("/*") {
                    c.find("*/").map_or("", |n| &c[n + 2..])
                } else {
                    break t.len() - trimmed.len();
                };
            }
        });
        Span {
            file: whole.file,
            start: start + skip,
            end: whole.end,
        }
    }
}
