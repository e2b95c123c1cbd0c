//! Applying a binding-table row to a call: its arguments by role to a command, a new
//! object, a kernel argument, a host sync or an event's release.

use syn::visit::{self, Visit};
use syn::Expr;

use super::syntax::{api_bool, expr_idents, int_lit, mentions_any, path_segments, strip};
use super::types::type_bytes;
use super::Lowerer;
use crate::frontend::bindings::{Api, Effect, NewKind, Role};
use crate::frontend::sizes::rust_type_size;
use crate::frontend::{region_role, MAX_WAIT_ELEMS};
use crate::ir::*;

/// The out-of-order queue property, as each binding spells it (ocl-core: the constant, the
/// bitflag and the builder method).
pub(super) const OUT_OF_ORDER: &[&str] = &[
    "CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE",
    "QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE",
    "OUT_OF_ORDER_EXEC_MODE_ENABLE",
    "out_of_order",
];

/// Whether queue properties ask for out-of-order execution on every way they are chosen:
/// where only one arm of an `if` or `match` asks (`if d == 0 { OUT_OF_ORDER } else { 0 }`
/// in a loop over devices), which queue is out of order would be a guess.
pub(super) fn asks_out_of_order(e: &Expr) -> bool {
    let tail = |b: &syn::Block| match b.stmts.last() {
        Some(syn::Stmt::Expr(x, None)) => asks_out_of_order(x),
        _ => false,
    };
    match strip(e) {
        Expr::If(i) => {
            tail(&i.then_branch)
                && (i.else_branch.as_ref()).is_some_and(|(_, x)| asks_out_of_order(x))
        }
        Expr::Match(m) => m.arms.iter().all(|a| asks_out_of_order(&a.body)),
        Expr::Block(b) => tail(&b.block),
        x => mentions_any(x, OUT_OF_ORDER),
    }
}

/// Map flags that let the host write the mapped region (its contents reach the buffer at
/// the unmap), as the bindings spell them besides the C API's [`MAP_WRITE_NAMES`].
const MAP_WRITE: &[&str] = &[
    "MAP_WRITE",
    "MAP_WRITE_INVALIDATE_REGION",
    "WRITE",
    "WRITE_INVALIDATE_REGION",
    "write",
    "write_invalidate_region",
];

/// Buffer flags that make a buffer from host data, as each binding spells them.
const FROM_HOST: &[&str] = &[
    "CL_MEM_COPY_HOST_PTR",
    "CL_MEM_USE_HOST_PTR",
    "MEM_COPY_HOST_PTR",
    "MEM_USE_HOST_PTR",
    "COPY_HOST_PTR",
    "USE_HOST_PTR",
    "copy_host_ptr",
    "use_host_ptr",
];

/// The buffer flag that makes the host's memory the buffer's, as each binding spells it.
const IN_PLACE: &[&str] = &[
    "CL_MEM_USE_HOST_PTR",
    "MEM_USE_HOST_PTR",
    "USE_HOST_PTR",
    "use_host_ptr",
];

/// Buffer flags that make a buffer kernels may only read.
const READ_ONLY: &[&str] = &[
    "CL_MEM_READ_ONLY",
    "MEM_READ_ONLY",
    "READ_ONLY",
    "read_only",
];

/// `&mut x`, possibly cast to a raw pointer or in `Some(..)` (ocl-core's `new_event`).
pub(super) fn is_mut_borrow(e: &Expr) -> bool {
    match strip_some(e) {
        Expr::Reference(r) => r.mutability.is_some(),
        Expr::RawAddr(r) => matches!(r.mutability, syn::PointerMutability::Mut(_)),
        Expr::Cast(c) => is_mut_borrow(&c.expr),
        Expr::Paren(p) => is_mut_borrow(&p.expr),
        Expr::Macro(m) => m
            .mac
            .path
            .segments
            .last()
            .is_some_and(|s| s.ident == "addr_of_mut"),
        _ => false,
    }
}

/// The `x` of `Some(x)`, else the expression itself.
fn strip_some(e: &Expr) -> &Expr {
    match e {
        Expr::Call(c)
            if c.args.len() == 1 && path_segments(&c.func).is_some_and(|s| s == ["Some"]) =>
        {
            &c.args[0]
        }
        _ => e,
    }
}

fn is_host_flag(e: &Expr) -> bool {
    mentions_any(e, HOST_FLAG_NAMES) || int_lit(e) == Some(1)
}

fn blocking_of(e: &Expr) -> Blocking {
    let e = strip(e);
    if let Expr::Lit(l) = e {
        return match &l.lit {
            syn::Lit::Bool(b) => {
                if b.value {
                    Blocking::Yes
                } else {
                    Blocking::No
                }
            }
            syn::Lit::Int(i) => match i.base10_parse::<u64>() {
                Ok(0) => Blocking::No,
                Ok(_) => Blocking::Yes,
                Err(_) => Blocking::Unknown,
            },
            _ => Blocking::Unknown,
        };
    }
    if let Expr::Path(p) = e {
        if let Some(s) = p.path.segments.last() {
            return match api_bool(&s.ident.to_string()) {
                Some(0) => Blocking::No,
                Some(_) => Blocking::Yes,
                None => Blocking::Unknown,
            };
        }
    }
    Blocking::Unknown
}

/// Whether a function's body releases its first parameter (`release_event(ev)`,
/// `clReleaseEvent(ev)`).
fn releases_first_param(f: &syn::ItemFn) -> bool {
    struct Finder<'n> {
        param: &'n syn::Ident,
        found: bool,
    }
    impl<'ast> Visit<'ast> for Finder<'_> {
        fn visit_expr_call(&mut self, c: &'ast syn::ExprCall) {
            let releases = path_segments(&c.func).is_some_and(|s| {
                s.last()
                    .is_some_and(|l| l == "release_event" || l == "clReleaseEvent")
            });
            let of_param = matches!(c.args.first().map(strip),
                Some(Expr::Path(p)) if p.path.is_ident(self.param));
            self.found |= releases && of_param;
            visit::visit_expr_call(self, c);
        }
    }
    let Some(syn::FnArg::Typed(first)) = f.sig.inputs.first() else {
        return false;
    };
    let syn::Pat::Ident(pi) = &*first.pat else {
        return false;
    };
    let mut finder = Finder {
        param: &pi.ident,
        found: false,
    };
    finder.visit_block(&f.block);
    finder.found
}

impl Lowerer<'_, '_> {
    /// Whether a callback given to an API (`on_done`, `Some(on_done)`) is a function of the
    /// file that releases the event it is called with.
    fn releases_its_event(&self, e: &Expr) -> bool {
        let mut e = strip_some(e);
        while let Expr::Cast(c) = e {
            e = strip_some(&c.expr);
        }
        let Expr::Path(p) = strip(e) else {
            return false;
        };
        let Some(name) = p.path.get_ident() else {
            return false;
        };
        let key = super::index::qualify(self.prefix.as_deref(), &name.to_string());
        self.cx
            .free_fns
            .get(&key)
            .is_some_and(|f| releases_first_param(f))
    }

    /// Lowers a call to a modeled API.
    pub(super) fn apply(
        &mut self,
        api: &Api,
        recv: Option<(Value, &Expr)>,
        args: &[&Expr],
        span: Span,
    ) -> Value {
        let mut vals: Vec<Value> = args.iter().map(|a| self.expr(a)).collect();
        vals.resize(api.args.len().max(vals.len()), Value::Unknown);
        let role_arg = |role: Role| api.arg_index(role).and_then(|i| args.get(i).copied());
        let role_val = |role: Role| {
            api.arg_index(role)
                .map_or(Value::Unknown, |i| vals[i].clone())
        };
        let recv_val = recv.as_ref().map_or(Value::Unknown, |(v, _)| v.clone());
        match api.effect {
            Effect::Command(kind) => {
                let (queue, queue_expr) = match (&api.receiver, &recv) {
                    (Some(Role::Queue), Some((v, e))) => (v.clone(), Some(*e)),
                    _ => (role_val(Role::Queue), role_arg(Role::Queue)),
                };
                let flags_expr = role_arg(Role::MigrateFlags);
                let to_host = flags_expr.is_some_and(is_host_flag);
                // A mapping for writing is a write of the buffer: "If a memory object is
                // currently mapped for writing, the application must ensure that the memory
                // object is unmapped before any enqueued kernels or commands that read from or
                // write to this memory object [..] begin execution" (OpenCL 3.0, 5.5.3).
                let map_write = role_arg(Role::MapFlags).is_some_and(|e| {
                    mentions_any(e, MAP_WRITE_NAMES)
                        || mentions_any(e, MAP_WRITE)
                        || int_lit(e).is_some_and(|f| f & MAP_WRITE_BITS != 0)
                });
                let whole =
                    api.whole || role_arg(Role::Offset).is_some_and(|e| int_lit(e) == Some(0));
                // A region from an offset other than 0: the command's, or a copy's offset in
                // the buffer of that access.
                // From offset 0, a region only where the size is one element (a ghost cell):
                // else it may be the whole buffer.
                let element = role_arg(Role::Size).is_some_and(|e| {
                    let named = matches!(strip(e), Expr::Path(p)
                        if p.path.get_ident().is_some_and(|i| self.cx.consts.elements.contains(&i.to_string())));
                    named
                        || (self.const_key(e))
                            .is_some_and(|k| k.contains("size_of") && !k.contains('*'))
                });
                // A copy into a nonzero offset of its destination moves a part: from offset
                // 0 of its source that is a region too (a ghost block sent from the start).
                // Its destination from offset 0 may be a small buffer written whole.
                let part = kind == CommandKind::Copy
                    && role_arg(Role::DstOffset).is_some_and(|e| int_lit(e) != Some(0));
                let at = |role: Role| {
                    role_arg(role)
                        .filter(|e| {
                            int_lit(e) != Some(0) || element || (part && role == Role::SrcOffset)
                        })
                        .map(|e| self.arg_span(e).text.split_whitespace().collect())
                };
                // The size of a region from offset 0 where `at` gives it no offset, or from
                // an offset that is not a number (which may come to 0 where the analysis
                // computes it).
                let from_zero = |role: Role| {
                    role_arg(role)
                        .filter(|e| {
                            (int_lit(e) == Some(0) && at(role).is_none()) || int_lit(e).is_none()
                        })
                        .and(role_arg(Role::Size))
                        .map(|e| self.arg_span(e).text.split_whitespace().collect())
                };
                let host = api
                    .args
                    .iter()
                    .position(|r| matches!(r, Role::Host { .. }))
                    .map(|i| vals[i].clone());
                // A fill's pattern and range, when every part of them is a constant.
                let pattern = match kind {
                    CommandKind::Fill => {
                        let parts: Option<Vec<String>> = (api.args.iter().enumerate())
                            .filter(|(_, r)| matches!(r, Role::Pattern | Role::Offset | Role::Size))
                            .map(|(i, _)| args.get(i).and_then(|e| self.const_key(e)))
                            .collect();
                        let text = role_arg(Role::Pattern).map(|e| self.arg_span(e).text);
                        match (parts, text) {
                            (Some(p), Some(text)) if !p.is_empty() => Some(FillPattern {
                                text,
                                key: p.join(";"),
                            }),
                            _ => None,
                        }
                    }
                    _ => None,
                };
                let mut buffers = Vec::new();
                for (i, role) in api.args.iter().enumerate() {
                    match role {
                        Role::Buffer(access) => buffers.push(BufferUse {
                            buffer: vals[i].clone(),
                            access: if map_write { Access::Write } else { *access },
                            whole,
                            offset: at(region_role(kind, *access)),
                            size: from_zero(region_role(kind, *access)),
                            offset_value: (api.arg_index(region_role(kind, *access)))
                                .filter(|&j| args.get(j).is_some_and(|e| int_lit(e).is_none()))
                                .map(|j| vals[j].clone()),
                            host: host.clone(),
                            pattern: pattern.clone(),
                        }),
                        Role::Buffers(_) => {
                            let items = match &vals[i] {
                                Value::List(items) => items.clone(),
                                v => vec![v.clone()],
                            };
                            for b in items {
                                buffers.push(BufferUse {
                                    buffer: b,
                                    access: Access::Migrate { to_host },
                                    whole: true,
                                    offset: None,
                                    size: None,
                                    offset_value: None,
                                    host: None,
                                    pattern: None,
                                });
                            }
                        }
                        _ => {}
                    }
                }
                let blocking = match role_arg(Role::Blocking) {
                    Some(e) => blocking_of(e),
                    None if api.blocks => Blocking::Yes,
                    None => Blocking::No,
                };
                let (waits, wait_expr) = if let Some(i) = api.arg_index(Role::WaitPtr) {
                    // A pointer-and-count pair: a zero count or a null pointer is no wait list.
                    let count = role_arg(Role::WaitCount).and_then(int_lit);
                    let none = count == Some(0) || vals[i] == Value::Null;
                    // The first `n` events of a list (`1, done.as_ptr()`): those members.
                    let of_list = args.get(i).is_some_and(|e| {
                        matches!(strip(e), Expr::MethodCall(mc) if mc.method == "as_ptr" && mc.args.is_empty())
                    });
                    let w = match (&vals[i], count) {
                        _ if none => Vec::new(),
                        (Value::Place(l) | Value::Host { base: Some(l), .. }, Some(n))
                            if of_list && n <= MAX_WAIT_ELEMS =>
                        {
                            (0..n)
                                .map(|k| {
                                    let mut m = l.clone();
                                    m.proj.push(Proj::Index(k));
                                    Value::Place(m)
                                })
                                .collect()
                        }
                        (v, _) => vec![v.clone()],
                    };
                    (Some(w), args.get(i).copied())
                } else {
                    match api.arg_index(Role::Waits) {
                        Some(i) if i < args.len() => {
                            (Some(vec![vals[i].clone()]), args.get(i).copied())
                        }
                        Some(_) => (None, None),
                        None => (Some(Vec::new()), None),
                    }
                };
                // An `&mut event` out-parameter receives the event; the call returns a status.
                // A pointer handed in by the caller writes the event where the caller keeps
                // it: it is not this function's to release.
                let out = api
                    .arg_index(Role::EventOut)
                    .map(|i| match (&vals[i], args.get(i)) {
                        (Value::Place(p), Some(e)) if is_mut_borrow(e) => Some(p.clone()),
                        // A closure's parameter given `&mut ev`: `ev` (also in `Some(done)`).
                        // An item of a list of events walked mutably (`for (h, e) in
                        // halves.iter().zip(sum_ev.iter_mut())`): that member of the list.
                        (Value::Place(p), Some(e))
                            if p.proj.is_empty() && matches!(strip_some(e), Expr::Path(_)) =>
                        {
                            (self.mut_refs.get(&p.var).cloned())
                                .or_else(|| self.item_slots.get(&p.var).cloned())
                        }
                        _ => None,
                    });
                let id = self.cx.next_cmd;
                self.cx.next_cmd += 1;
                let cmd = Command {
                    id,
                    api: api
                        .name
                        .rsplit("::")
                        .next()
                        .unwrap_or(&api.name)
                        .to_string(),
                    binding: api.binding.clone(),
                    kind,
                    queue,
                    queue_arg: queue_expr.map(|e| self.arg_span(e)),
                    buffers,
                    kernel: api.arg_index(Role::Kernel).map(|i| vals[i].clone()),
                    waits,
                    wait_arg: wait_expr.map(|e| self.arg_span(e)),
                    blocking,
                    flags_arg: flags_expr.map(|e| self.arg_span(e)),
                    flags: (!to_host)
                        .then(|| role_val(Role::MigrateFlags))
                        .filter(|v| matches!(v, Value::Place(_)))
                        .map(Box::new),
                    raw_event: api.raw_event,
                    work_offset: role_arg(Role::WorkOffset)
                        .is_some_and(|e| !crate::frontend::no_offset(&self.arg_span(e).text)),
                    span,
                };
                match out {
                    Some(event) => {
                        if let Some(e) = &event {
                            self.event_outs.push(e.clone());
                        }
                        self.raw_events |= cmd.raw_event;
                        self.out.push(Stmt::Enqueue { cmd, event });
                        if kind == CommandKind::Read {
                            self.forget(host.into_iter().collect(), span);
                        }
                        Value::Scalar
                    }
                    None => self.enqueue(cmd, host, kind),
                }
            }
            Effect::LaunchEnqueue => {
                let id = self.cx.next_cmd;
                self.cx.next_cmd += 1;
                let queue_expr = role_arg(Role::Queue);
                let cmd = Command {
                    id,
                    api: api.name.clone(),
                    binding: api.binding.clone(),
                    kind: CommandKind::Kernel,
                    queue: role_val(Role::Queue),
                    queue_arg: queue_expr.map(|e| self.arg_span(e)),
                    buffers: Vec::new(),
                    kernel: Some(recv_val),
                    waits: Some(Vec::new()),
                    wait_arg: None,
                    blocking: Blocking::No,
                    flags_arg: None,
                    flags: None,
                    raw_event: false,
                    // `ExecuteKernel::new(&k).set_global_work_offset(row0)..`: its work-items
                    // from that offset.
                    work_offset: recv
                        .as_ref()
                        .is_some_and(|(_, e)| self.chain_work_offset(e)),
                    span,
                };
                self.enqueue(cmd, None, CommandKind::Kernel)
            }
            Effect::New(kind) => {
                let obj = match kind {
                    NewKind::Context => NewObject::Context,
                    NewKind::Queue => NewObject::Queue {
                        device: api
                            .arg_index(Role::Device)
                            .map(|i| Box::new(vals[i].clone())),
                        out_of_order: role_arg(Role::QueueProps).is_some_and(|e| {
                            asks_out_of_order(e)
                                || (expr_idents(e).iter()).any(|i| {
                                    (self.lookup(i))
                                        .is_some_and(|v| self.out_of_order_props.contains(&v))
                                })
                        }),
                    },
                    // A region of its parent (`parent.create_sub_buffer(..)`,
                    // `create_sub_buffer(parent, ..)`).
                    NewKind::Buffer if api.receiver == Some(Role::Parent) => NewObject::SubBuffer {
                        parent: Box::new(recv_val.clone()),
                    },
                    NewKind::Buffer if api.arg_index(Role::Parent).is_some() => {
                        NewObject::SubBuffer {
                            parent: Box::new(role_val(Role::Parent)),
                        }
                    }
                    NewKind::Buffer => {
                        let copies =
                            role_arg(Role::MemFlags).is_some_and(|e| mentions_any(e, FROM_HOST));
                        let host = role_val(Role::HostPtr);
                        NewObject::Buffer {
                            undefined: !copies && host == Value::Null,
                            host_init: copies.then(|| Box::new(host)),
                            in_place: role_arg(Role::MemFlags)
                                .is_some_and(|e| mentions_any(e, IN_PLACE)),
                            read_only: role_arg(Role::MemFlags)
                                .is_some_and(|e| mentions_any(e, READ_ONLY)),
                        }
                    }
                    NewKind::Program => {
                        let source = role_arg(Role::Source)
                            .and_then(|e| self.source_text(e))
                            .or_else(|| role_arg(Role::Sources).and_then(|e| self.sources_text(e)));
                        NewObject::Program {
                            source_at: (role_arg(Role::Source).or(role_arg(Role::Sources)))
                                .filter(|_| source.is_none())
                                .and_then(|e| self.sources_place(e)),
                            source,
                        }
                    }
                    NewKind::Kernel => {
                        let name = role_arg(Role::KernelName).and_then(|e| self.str_value(e));
                        NewObject::Kernel {
                            program: Box::new(role_val(Role::Program)),
                            name_at: role_arg(Role::KernelName)
                                .filter(|_| name.is_none())
                                .and_then(|e| self.str_place(e)),
                            name,
                        }
                    }
                    NewKind::Launch => NewObject::Launch {
                        kernel: Box::new(role_val(Role::Kernel)),
                    },
                    NewKind::UserEvent => NewObject::UserEvent { raw: api.raw_event },
                    NewKind::Event => NewObject::EmptyEvent,
                    NewKind::EventList => return Value::List(Vec::new()),
                    NewKind::Devices => NewObject::Devices,
                };
                Value::New(obj)
            }
            Effect::Finish => {
                let queue = match &api.receiver {
                    Some(Role::Queue) => recv_val,
                    _ => role_val(Role::Queue),
                };
                self.out.push(Stmt::Finish { queue, span });
                Value::Scalar
            }
            Effect::Wait => {
                let events = match &api.receiver {
                    Some(Role::Event) => recv_val,
                    _ => role_val(Role::Events),
                };
                self.out.push(Stmt::Wait { events, span });
                Value::Scalar
            }
            Effect::SetArg => {
                let kernel = match &api.receiver {
                    Some(Role::Kernel) => recv_val,
                    _ => role_val(Role::Kernel),
                };
                let (index, index_at) = match role_val(Role::ArgIndex) {
                    Value::Int(n) => (Some(n), None),
                    Value::Place(p) => (None, Some(p)),
                    _ => (None, None),
                };
                let name = role_arg(Role::ArgIndex).and_then(|e| self.str_value(e));
                let (value, arg) = match role_arg(Role::ArgValue) {
                    Some(e) => (role_val(Role::ArgValue), self.arg_span(e)),
                    None => (
                        Value::Scalar,
                        ArgSpan {
                            span,
                            text: String::new(),
                        },
                    ),
                };
                let size = self.arg_bytes(role_arg(Role::ArgSize), role_arg(Role::ArgValue));
                // In a generic helper lowered where it is called, what the argument is
                // comes from the call: the call is where it is fixed.
                let (span, arg) = match self.generic_call {
                    Some(site) => (
                        site,
                        ArgSpan {
                            span: site,
                            text: arg.text,
                        },
                    ),
                    None => (span, arg),
                };
                self.out.push(Stmt::SetArg {
                    kernel,
                    index,
                    index_at,
                    name,
                    value,
                    size,
                    arg,
                    span,
                });
                Value::Scalar
            }
            Effect::LaunchArg => {
                // In a chain, the argument's own call: `.set_arg(&x)`, not the whole chain.
                let span = self.method_span(recv.as_ref().map(|(_, e)| *e), args, span);
                let launch = self.temp(recv_val);
                let (value, arg) = match role_arg(Role::ArgValue) {
                    Some(e) => (role_val(Role::ArgValue), self.arg_span(e)),
                    None => (
                        Value::Scalar,
                        ArgSpan {
                            span,
                            text: String::new(),
                        },
                    ),
                };
                let size = role_arg(Role::ArgValue).and_then(|e| self.value_bytes(e));
                self.out.push(Stmt::LaunchArg {
                    launch: launch.clone(),
                    value,
                    size,
                    arg,
                    span,
                });
                launch
            }
            Effect::LaunchWait => {
                let launch = self.temp(recv_val);
                let events = if api.arg_index(Role::Event).is_some() {
                    Value::List(vec![role_val(Role::Event)])
                } else {
                    role_val(Role::Events)
                };
                self.out.push(Stmt::LaunchWait {
                    launch: launch.clone(),
                    events,
                });
                launch
            }
            Effect::Same => recv_val,
            Effect::Alias => match api.arg_index(Role::ArgValue) {
                Some(i) => vals[i].clone(),
                None => vals.first().cloned().unwrap_or(Value::Unknown),
            },
            Effect::Null => Value::Null,
            Effect::ByValue => Value::Scalar,
            // What a query writes through its out-parameters (`&mut status`) is not known.
            Effect::Query => {
                self.forget(api.values_of(Role::Out, &vals), span);
                if role_arg(Role::Callback).is_some_and(|c| self.releases_its_event(c)) {
                    self.out.push(Stmt::Release {
                        events: role_val(Role::Event),
                        span,
                    });
                }
                Value::Scalar
            }
            Effect::Release => {
                self.out.push(Stmt::Release {
                    events: role_val(Role::Event),
                    span,
                });
                Value::Scalar
            }
            Effect::Signal => {
                let event = match &api.receiver {
                    Some(Role::Event) => recv_val,
                    _ => role_val(Role::Event),
                };
                self.out.push(Stmt::Signal { event, span });
                Value::Scalar
            }
            Effect::Wrap => {
                let v = vals.first().cloned().unwrap_or(Value::Unknown);
                // `Event::new(create_user_event(ctx)?)`: the wrapper owns the event made in
                // place (releasing that value and returning it would make two).
                if let Value::New(NewObject::UserEvent { raw: true }) = v {
                    return Value::New(NewObject::UserEvent { raw: false });
                }
                self.out.push(Stmt::Release {
                    events: v.clone(),
                    span,
                });
                v
            }
            Effect::Op(op) => {
                let raw_args = args;
                let arg_spans: Vec<ArgSpan> = args.iter().map(|e| self.arg_span(e)).collect();
                // Strings (kernel names, sources) are read here; the analysis has no syn.
                let args: Vec<Value> = api
                    .args
                    .iter()
                    .zip(args)
                    .zip(vals)
                    .map(|((role, e), v)| match role {
                        Role::Source => self.source_text(e).map_or(Value::Unknown, Value::Str),
                        Role::KernelName => self.str_value(e).map_or(Value::Unknown, Value::Str),
                        _ => v,
                    })
                    .collect();
                // `.arg(&n)`, `.arg_named("n", &n)`: what the value passes.
                let arg_bytes = match op {
                    Op::Arg { named } => raw_args
                        .get(usize::from(named))
                        .and_then(|e| self.value_bytes(e)),
                    _ => None,
                };
                let t = self.new_temp(TypeHint::Unknown);
                let id = self.cx.next_cmd;
                self.cx.next_cmd += 1;
                self.out.push(Stmt::Op {
                    op,
                    recv: recv_val,
                    args,
                    arg_spans,
                    arg_bytes,
                    dst: Place::var(t),
                    id,
                    span,
                });
                Value::Place(Place::var(t))
            }
        }
    }
}

impl Lowerer<'_, '_> {
    /// The bytes a kernel argument passes: `size_of::<T>()` or `size_of_val(&x)` given as
    /// its size, else the type of the value (`set_arg(&n)` of `n: u32`).
    /// Whether a chain of calls building a launch gives it a global work offset that is
    /// not zero (`.set_global_work_offset(row0)`, `.set_global_work_offsets(&[0, row0])`).
    fn chain_work_offset(&self, mut e: &Expr) -> bool {
        while let Expr::MethodCall(mc) = strip(e) {
            let name = mc.method.to_string();
            if let ("set_global_work_offset" | "set_global_work_offsets", Some(a)) =
                (name.as_str(), mc.args.first())
            {
                if !crate::frontend::no_offset(&self.arg_span(a).text) {
                    return true;
                }
            }
            e = &mc.receiver;
        }
        false
    }

    pub(super) fn arg_bytes(&self, size: Option<&Expr>, value: Option<&Expr>) -> Option<u64> {
        let Some(size) = size else {
            let value = value?;
            // ocl-core's `ArgVal::scalar(&n)`, `ArgVal::from_raw(size, ptr, false)`.
            if let Expr::Call(c) = strip(value) {
                let Expr::Path(p) = &*c.func else {
                    return None;
                };
                let names: Vec<String> = (p.path.segments.iter())
                    .map(|s| s.ident.to_string())
                    .collect();
                return match (names.as_slice(), c.args.len()) {
                    ([.., ty, f], 1) if ty == "ArgVal" && f == "scalar" => {
                        self.value_bytes(&c.args[0])
                    }
                    ([.., ty, f], 3) if ty == "ArgVal" && f == "from_raw" => {
                        self.arg_bytes(Some(&c.args[0]), None)
                    }
                    _ => None,
                };
            }
            return self.value_bytes(value);
        };
        // `4 * size_of::<cl_float>()`: a count of them.
        if let Expr::Binary(b) = strip(size) {
            if let syn::BinOp::Mul(_) = b.op {
                return match (int_lit(&b.left), int_lit(&b.right)) {
                    (Some(n), None) => self.arg_bytes(Some(&b.right), None)?.checked_mul(n),
                    (None, Some(n)) => self.arg_bytes(Some(&b.left), None)?.checked_mul(n),
                    _ => None,
                };
            }
        }
        let Expr::Call(c) = strip(size) else {
            return None;
        };
        let Expr::Path(p) = &*c.func else {
            return None;
        };
        let last = p.path.segments.last()?;
        match (
            last.ident.to_string().as_str(),
            &last.arguments,
            c.args.len(),
        ) {
            ("size_of", syn::PathArguments::AngleBracketed(a), 0) => match a.args.first()? {
                // `size_of::<T>()` of a type parameter the call being lowered gives a size.
                syn::GenericArgument::Type(t) => match t {
                    syn::Type::Path(p) => (p.path.get_ident())
                        .and_then(|i| self.generic_sizes.get(&i.to_string()).copied()),
                    _ => None,
                }
                .or_else(|| type_bytes(t)),
                _ => None,
            },
            ("size_of_val", _, 1) => self.value_bytes(&c.args[0]),
            _ => None,
        }
    }

    /// The bytes of a value given as a kernel argument (`set_arg(&x)`): its own type where it
    /// has one, and for a bare literal the type Rust gives it there, with nothing else to
    /// infer it from (an unsuffixed integer is an `i32`, a float an `f64`).
    pub(super) fn value_bytes(&self, e: &Expr) -> Option<u64> {
        match strip_refs(e) {
            Expr::Lit(l) => match &l.lit {
                syn::Lit::Int(i) if i.suffix().is_empty() => Some(4),
                syn::Lit::Float(f) if f.suffix().is_empty() => Some(8),
                _ => self.typed_bytes(e),
            },
            _ => self.typed_bytes(e),
        }
    }

    /// The struct an expression of locals and fields is (`self`, `self.settings`), where
    /// its type is known.
    fn struct_type(&self, e: &Expr) -> Option<String> {
        match strip_refs(e) {
            Expr::Path(p) => self.var_struct(self.lookup(&p.path.get_ident()?.to_string())?),
            Expr::Field(f) => {
                let syn::Member::Named(field) = &f.member else {
                    return None;
                };
                let ty = self.struct_type(&f.base)?;
                self.cx.field_types.get(&(ty, field.to_string())).cloned()
            }
            _ => None,
        }
    }

    /// The bytes of an expression's type where the expression fixes it by itself: a cast, a
    /// suffixed literal, a local or constant of a known type, `len()`, arithmetic on one of
    /// those. A local bound to a bare literal has none: later uses may infer its type.
    pub(super) fn typed_bytes(&self, e: &Expr) -> Option<u64> {
        match strip_refs(e) {
            Expr::Cast(c) => type_bytes(&c.ty),
            Expr::Lit(l) => match &l.lit {
                syn::Lit::Int(i) if !i.suffix().is_empty() => rust_type_size(i.suffix()),
                syn::Lit::Float(f) if !f.suffix().is_empty() => rust_type_size(f.suffix()),
                syn::Lit::Bool(_) => Some(1),
                _ => None,
            },
            Expr::Path(p) if p.qself.is_none() => {
                let name = p.path.segments.last()?.ident.to_string();
                if p.path.segments.len() == 1 {
                    if let Some(v) = self.lookup(&name) {
                        return self.scalar_sizes.get(&v).copied();
                    }
                }
                self.cx.consts.sizes.get(&name).copied()
            }
            Expr::MethodCall(m) if m.method == "len" && m.args.is_empty() => Some(8),
            // `(-1.0 / self.tau).exp()`, `x.abs()`: methods of a number that give its type.
            Expr::MethodCall(m) if SAME_TYPE_METHODS.contains(&m.method.to_string().as_str()) => {
                self.typed_bytes(&m.receiver)
            }
            Expr::Unary(u) if matches!(u.op, syn::UnOp::Neg(_)) => self.typed_bytes(&u.expr),
            // `self.n`, `self.settings.gain`: the field's declared type, where the struct is
            // known.
            Expr::Field(f) => {
                let syn::Member::Named(field) = &f.member else {
                    return None;
                };
                let ty = self.struct_type(&f.base)?;
                self.cx.field_sizes.get(&(ty, field.to_string())).copied()
            }
            // `half + 2`: both sides have one type; a shift has its left side's.
            Expr::Binary(b) => {
                use syn::BinOp::*;
                match b.op {
                    Add(_) | Sub(_) | Mul(_) | Div(_) | Rem(_) | BitAnd(_) | BitOr(_)
                    | BitXor(_) => self
                        .typed_bytes(&b.left)
                        .or_else(|| self.typed_bytes(&b.right)),
                    Shl(_) | Shr(_) => self.typed_bytes(&b.left),
                    _ => None,
                }
            }
            _ => None,
        }
    }
}

/// Methods of Rust's number types that return a value of the receiver's type.
const SAME_TYPE_METHODS: &[&str] = &[
    "abs", "ceil", "clamp", "cos", "exp", "exp2", "floor", "ln", "log10", "log2", "max", "min",
    "mul_add", "powf", "powi", "recip", "round", "signum", "sin", "sqrt", "tan", "trunc",
];

/// `e` without references, parentheses and dereferences around it.
fn strip_refs(e: &Expr) -> &Expr {
    match e {
        Expr::Reference(r) => strip_refs(&r.expr),
        Expr::RawAddr(r) => strip_refs(&r.expr),
        Expr::Paren(p) => strip_refs(&p.expr),
        Expr::Group(g) => strip_refs(&g.expr),
        Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => strip_refs(&u.expr),
        _ => e,
    }
}
