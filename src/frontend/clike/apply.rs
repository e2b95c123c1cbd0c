//! A call of a modeled API, lowered from its binding-table row: which argument is the
//! queue, the buffers, the flags, the wait list and the event out-parameter.

use tree_sitter::Node;

use super::{named, Lowerer};
use crate::frontend::bindings::{Api, Effect, NewKind, Role};
use crate::frontend::{region_role, MAX_WAIT_ELEMS};
use crate::ir::*;

/// The out-of-order queue property.
const OUT_OF_ORDER: &[&str] = &["CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE"];

/// Buffer flags that make a buffer from host data.
const FROM_HOST: &[&str] = &["CL_MEM_COPY_HOST_PTR", "CL_MEM_USE_HOST_PTR"];

impl Lowerer<'_> {
    /// The variable an `errcode_ret` argument `&err` (the call's last) names.
    fn errcode_var(&self, args: &[Node<'_>]) -> Option<Var> {
        (args.last().copied().map(strip))
            .filter(|a| a.kind() == "pointer_expression")
            .filter(|a| a.child(0).is_some_and(|o| self.txt(o) == "&"))
            .and_then(|a| a.child_by_field_name("argument"))
            .filter(|x| x.kind() == "identifier")
            .and_then(|x| self.lookup(self.txt(x)))
    }

    /// Whether the expression names one of `names` as an identifier, itself or in the
    /// initializer of a local it names (`props` of `props[] = {.., CL_QUEUE_..}`).
    fn mentions_any(&self, n: Node<'_>, names: &[&str]) -> bool {
        let mut stack = vec![n];
        while let Some(x) = stack.pop() {
            if matches!(x.kind(), "identifier" | "qualified_identifier") {
                let name = super::types::last_name(self.txt(x));
                let init = self.lookup(name).and_then(|v| self.init_names.get(&v));
                if names.contains(&name)
                    || init.is_some_and(|i| i.iter().any(|w| names.contains(&w.as_str())))
                {
                    return true;
                }
            }
            stack.extend(named(x));
        }
        false
    }

    /// Whether `n` is a choice (`c ? a : b`) one of whose arms mentions one of `names` and
    /// the other none.
    fn one_arm_only(&self, n: Node<'_>, names: &[&str]) -> bool {
        let n = strip(n);
        if n.kind() != "conditional_expression" {
            return false;
        }
        let arms = [
            n.child_by_field_name("consequence"),
            n.child_by_field_name("alternative"),
        ];
        let [Some(a), Some(b)] = arms else {
            return false;
        };
        self.mentions_any(a, names) != self.mentions_any(b, names)
    }

    fn int_lit(&self, n: Node<'_>) -> Option<u64> {
        let n = strip(n);
        self.cx.int_of_in(&self.text, n)
    }

    /// The buffers of a pointer-and-count object list: `n` members of an array of `cl_mem`
    /// from its start (`2, d_grid`) or from a constant index (`2, &parts[1]`); else what the
    /// pointer names.
    fn mem_elems(&self, ptr: &Value, count: Option<Node<'_>>) -> Vec<Value> {
        let count = count
            .and_then(|c| self.int_lit(c))
            .filter(|n| (2..=MAX_WAIT_ELEMS).contains(n));
        let (Value::Place(p), Some(n)) = (ptr, count) else {
            return vec![ptr.clone()];
        };
        let array = p.proj.is_empty()
            && (self.vars[p.var].fields.iter())
                .any(|(f, h)| *f == members_of("") && *h == TypeHint::Buffer);
        let (base, from) = match p.proj.split_last() {
            _ if array => (p.proj.as_slice(), 0),
            Some((Proj::Index(j), base)) => (base, *j),
            _ => return vec![Value::Unknown],
        };
        elements(p.var, base, from, n)
    }

    /// The events a count-and-pointer wait list names. With a constant count `n`: the first
    /// `n` elements of an array of events (`3, deps`: `deps[0]`, `deps[1]`, `deps[2]`), or
    /// `n` elements from a constant index (`2, &ev[1]`: `ev[1]`, `ev[2]`). A pointer into an
    /// array with a count not known, or from an index not known, names events not known.
    fn wait_elems(
        &self,
        ptr: &Value,
        count_node: Option<Node<'_>>,
        count_val: &Value,
    ) -> Vec<Value> {
        let count = count_node.and_then(|c| self.int_lit(c));
        let Value::Place(p) = ptr else {
            return vec![ptr.clone()];
        };
        // An array of events, or a row of one (`w[b]` of `cl_event w[N][3]`).
        let rank = self.dims.get(&p.var).copied().unwrap_or(1);
        let array = self.vars[p.var].hint == TypeHint::EventList
            && p.proj.len() + 1 == rank
            && p.proj.iter().all(|x| !matches!(x, Proj::Field(_)));
        let elems = |base: &[Proj], from: u64, n: u64| elements(p.var, base, from, n);
        let element = matches!(
            p.proj.last(),
            Some(Proj::Index(_) | Proj::Var(_) | Proj::AnyIndex)
        );
        match (count, p.proj.split_last()) {
            (Some(n), _) if array && n <= MAX_WAIT_ELEMS => elems(&p.proj, 0, n),
            (Some(n), Some((Proj::Index(j), base))) if n <= MAX_WAIT_ELEMS => elems(base, *j, n),
            (Some(1), _) => vec![ptr.clone()],
            // A whole array, or one event (`&ev`): the analysis resolves it as it is.
            (None, _) if array || !element => vec![ptr.clone()],
            // `ndev - 1, &sq[1]`: as many members from there as the count comes to where
            // the analysis knows it (the devices found, as every loop up to it ran).
            (None, Some((Proj::Index(j), base)))
                if self.vars[p.var].hint == TypeHint::EventList
                    && base.len() + 1 == rank
                    && matches!(count_val, Value::Place(_) | Value::Arith { .. }) =>
            {
                vec![Value::Members {
                    list: Place {
                        var: p.var,
                        proj: base.to_vec(),
                    },
                    from: *j,
                    count: Box::new(count_val.clone()),
                }]
            }
            _ => vec![Value::Unknown],
        }
    }

    fn blocking_of(&self, n: Node<'_>) -> Blocking {
        let n = strip(n);
        match self.txt(n) {
            "CL_TRUE" | "CL_BLOCKING" | "true" => Blocking::Yes,
            "CL_FALSE" | "CL_NON_BLOCKING" | "false" => Blocking::No,
            _ => match self.int_lit(n) {
                Some(0) => Blocking::No,
                Some(_) => Blocking::Yes,
                None => Blocking::Unknown,
            },
        }
    }

    /// Lowers a call of `api`; `recv` is a method's receiver, `args` the arguments as
    /// written (trailing arguments with defaults may be missing).
    pub(super) fn apply(
        &mut self,
        api: &Api,
        recv: Option<(Value, Node<'_>)>,
        args: &[Node<'_>],
        span: Span,
    ) -> Value {
        let mut vals: Vec<Value> = args.iter().map(|a| self.expr(*a)).collect();
        vals.resize(api.args.len().max(vals.len()), Value::Unknown);
        let role_arg = |role: Role| api.arg_index(role).and_then(|i| args.get(i).copied());
        let role_val = |role: Role| {
            api.arg_index(role)
                .map_or(Value::Unknown, |i| vals[i].clone())
        };
        let recv_val = recv.as_ref().map_or(Value::Unknown, |(v, _)| v.clone());
        match api.effect {
            Effect::Command(kind) => {
                let (queue, queue_node) = match (&api.receiver, &recv) {
                    (Some(Role::Queue), Some((v, n))) => (v.clone(), Some(*n)),
                    _ => (role_val(Role::Queue), role_arg(Role::Queue)),
                };
                let flags = role_arg(Role::MigrateFlags);
                let to_host = flags.is_some_and(|f| {
                    self.mentions_any(f, HOST_FLAG_NAMES) || self.int_lit(f) == Some(1)
                });
                // A mapping for writing is a write of the buffer at its unmap (OpenCL 3.0,
                // 5.5.3), as the Rust frontend reads it.
                let map_write = role_arg(Role::MapFlags).is_some_and(|f| {
                    self.mentions_any(f, MAP_WRITE_NAMES)
                        || self.int_lit(f).is_some_and(|v| v & MAP_WRITE_BITS != 0)
                });
                let whole =
                    api.whole || role_arg(Role::Offset).is_some_and(|o| self.int_lit(o) == Some(0));
                // A region from an offset other than 0: the command's, or a copy's offset in
                // the buffer of that access.
                // From offset 0, a region only where the size is one element (a ghost cell):
                // else it may be the whole buffer.
                let element = role_arg(Role::Size)
                    .and_then(|e| self.const_key(e))
                    .is_some_and(|k| k.contains("sizeof") && !k.contains('*'));
                // An offset that is a constant (`(NLOC + 1) * sizeof(float)`) by its value, so
                // that offsets written differently that are one number are one offset.
                // A copy into a nonzero offset of its destination moves a part: from offset
                // 0 of its source that is a region too (a ghost block sent from the start).
                // Its destination from offset 0 may be a small buffer written whole.
                let part = kind == CommandKind::Copy
                    && role_arg(Role::DstOffset).is_some_and(|o| self.int_lit(o) != Some(0));
                // An argument as written: its value where it is a constant.
                let written = |n: Node<'_>| match self.int_lit(n) {
                    Some(v) => v.to_string(),
                    None => self.txt(n).split_whitespace().collect::<String>(),
                };
                let at = |role: Role| {
                    role_arg(role)
                        .filter(|o| {
                            self.int_lit(*o) != Some(0)
                                || element
                                || (part && role == Role::SrcOffset)
                        })
                        .map(written)
                };
                // The size of a region from offset 0 where `at` gives it no offset, or from
                // an offset that is not a number (which may come to 0 where the analysis
                // computes it).
                let from_zero = |role: Role| {
                    role_arg(role)
                        .filter(|o| {
                            (self.int_lit(*o) == Some(0) && at(role).is_none())
                                || self.int_lit(*o).is_none()
                        })
                        .and(role_arg(Role::Size))
                        .map(written)
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
                            .map(|(i, _)| args.get(i).and_then(|a| self.const_key(*a)))
                            .collect();
                        let text = role_arg(Role::Pattern).map(|a| self.arg_span(a).text);
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
                                .filter(|&j| {
                                    args.get(j).is_some_and(|o| self.int_lit(*o).is_none())
                                })
                                .map(|j| vals[j].clone()),
                            host: host.clone(),
                            pattern: pattern.clone(),
                        }),
                        Role::Buffers(_) => {
                            let items = match &vals[i] {
                                Value::List(items) => items.clone(),
                                v => self.mem_elems(v, role_arg(Role::BufferCount)),
                            };
                            buffers.extend(items.into_iter().map(|b| BufferUse {
                                buffer: b,
                                access: Access::Migrate { to_host },
                                whole: true,
                                offset: None,
                                size: None,
                                offset_value: None,
                                host: None,
                                pattern: None,
                            }));
                        }
                        _ => {}
                    }
                }
                let blocking = match role_arg(Role::Blocking) {
                    Some(b) => self.blocking_of(b),
                    None if api.blocks => Blocking::Yes,
                    None => Blocking::No,
                };
                let none = |v: &Value| matches!(v, Value::Null | Value::Int(0));
                let (waits, wait_node) = if let Some(i) = api.arg_index(Role::WaitPtr) {
                    // A pointer-and-count pair: a zero count or a null pointer is none.
                    let empty = role_arg(Role::WaitCount)
                        .is_some_and(|c| self.int_lit(c) == Some(0))
                        || none(&vals[i]);
                    let w = if empty {
                        Vec::new()
                    } else {
                        self.wait_elems(
                            &vals[i],
                            role_arg(Role::WaitCount),
                            &role_val(Role::WaitCount),
                        )
                    };
                    (Some(w), args.get(i).copied())
                } else {
                    match api.arg_index(Role::Waits) {
                        // Left out: the default, no wait list.
                        Some(i) if i >= args.len() || none(&vals[i]) => (Some(Vec::new()), None),
                        Some(i) => (Some(vec![vals[i].clone()]), args.get(i).copied()),
                        None => (Some(Vec::new()), None),
                    }
                };
                // `&ev` receives the command's event; so does what a parameter `cl_event *ev`
                // points to, which is where a caller keeps it (`&ev` in the call).
                let event = api.arg_index(Role::EventOut).and_then(|i| {
                    let arg = strip(*args.get(i)?);
                    let is_addr = arg.kind() == "pointer_expression"
                        && arg.child(0).is_some_and(|op| self.txt(op) == "&");
                    match &vals[i] {
                        Value::Place(p) if is_addr => Some(p.clone()),
                        Value::Place(p)
                            if arg.kind() == "identifier"
                                && p.proj.is_empty()
                                && p.var < self.n_params
                                && self.vars[p.var].member == Member::Arrow
                                && self.vars[p.var].hint == TypeHint::Unknown =>
                        {
                            Some(p.clone())
                        }
                        _ => None,
                    }
                });
                if let Some(p) = event
                    .as_ref()
                    .filter(|p| !p.proj.is_empty() && p.is_definite())
                {
                    if !self.event_elems.contains(p) {
                        self.event_elems.push(p.clone());
                    }
                }
                if let Some(p) = &event {
                    self.outs.events.push(p.clone());
                }
                // In C++, an event written into an object that is no `cl_event` (a
                // wrapper such as `clEventWrapper`) is owned by that object.
                let raw_event = api.raw_event && event.as_ref().is_none_or(|p| !self.owned(p));
                let id = self.cx.next_cmd;
                self.cx.next_cmd += 1;
                self.outs.commands.push(id);
                let cmd = Command {
                    id,
                    api: api.last_name().to_string(),
                    binding: api.binding.clone(),
                    kind,
                    queue,
                    queue_arg: queue_node.map(|n| self.arg_span(n)),
                    buffers,
                    kernel: api.arg_index(Role::Kernel).map(|i| vals[i].clone()),
                    waits,
                    wait_arg: wait_node.map(|n| self.arg_span(n)),
                    blocking,
                    flags_arg: flags.map(|n| self.arg_span(n)),
                    flags: (!to_host)
                        .then(|| role_val(Role::MigrateFlags))
                        .filter(|v| matches!(v, Value::Place(_)))
                        .map(Box::new),
                    raw_event,
                    work_offset: role_arg(Role::WorkOffset)
                        .is_some_and(|n| !crate::frontend::no_offset(self.txt(strip(n)))),
                    span,
                };
                self.out.push(Stmt::Enqueue { cmd, event });
                // The event written where a call's result points (`es.next()` of a class
                // that keeps its events): what that call was given may now hold it.
                if let Some(call) = (api.arg_index(Role::EventOut))
                    .and_then(|i| args.get(i))
                    .map(|a| strip(*a))
                    .filter(|a| a.kind() == "call_expression")
                {
                    let text = self.text.clone();
                    let held: Vec<Value> = super::identifiers(call, &text)
                        .iter()
                        .filter_map(|n| self.lookup(n))
                        .map(|v| Value::Place(Place::var(v)))
                        .collect();
                    self.forget(held, span);
                }
                if kind == CommandKind::Read {
                    self.forget(host.into_iter().collect(), span);
                }
                // A map returns the mapped pointer, host memory of its own; its status goes
                // to `errcode_ret`.
                if kind == CommandKind::Map {
                    self.pointer_result = Some(self.errcode_var(args));
                    return Value::Host {
                        kind: HostKind::Pointer,
                        base: None,
                    };
                }
                Value::Scalar
            }
            Effect::New(kind) => {
                let obj = match kind {
                    NewKind::Context => NewObject::Context,
                    NewKind::Queue => NewObject::Queue {
                        device: api
                            .arg_index(Role::Device)
                            .map(|i| Box::new(vals[i].clone())),
                        // Not where only one arm of a choice asks for it (`d == 1 ? ooo :
                        // nullptr`): which queue is which is not known, and taking an in-order
                        // queue for out-of-order would report races that are not there.
                        out_of_order: role_arg(Role::QueueProps).is_some_and(|p| {
                            self.mentions_any(p, OUT_OF_ORDER)
                                && !self.one_arm_only(p, OUT_OF_ORDER)
                        }),
                    },
                    // `parent.createSubBuffer(..)`: a region of the receiver.
                    NewKind::Buffer if api.receiver == Some(Role::Parent) => NewObject::SubBuffer {
                        parent: Box::new(recv_val.clone()),
                    },
                    NewKind::Buffer if api.arg_index(Role::Parent).is_some() => {
                        NewObject::SubBuffer {
                            parent: Box::new(role_val(Role::Parent)),
                        }
                    }
                    NewKind::Buffer => {
                        let copies = role_arg(Role::MemFlags)
                            .is_some_and(|f| self.mentions_any(f, FROM_HOST));
                        let host = role_val(Role::HostPtr);
                        NewObject::Buffer {
                            undefined: !copies && host == Value::Null,
                            host_init: copies.then(|| Box::new(host)),
                            in_place: role_arg(Role::MemFlags)
                                .is_some_and(|f| self.mentions_any(f, &["CL_MEM_USE_HOST_PTR"])),
                            read_only: role_arg(Role::MemFlags)
                                .is_some_and(|f| self.mentions_any(f, &["CL_MEM_READ_ONLY"])),
                        }
                    }
                    NewKind::Program => {
                        let arg = role_arg(Role::Source).or_else(|| role_arg(Role::Sources));
                        let source = arg.and_then(|s| self.str_value(s));
                        // `clCreateProgramWithSource(ctx, 1, &src, ..)` in a helper given
                        // the text (`build(ctx, dev, axpy_src, "axpy")`): the string its
                        // caller passes.
                        let source_at = arg
                            .filter(|_| source.is_none())
                            .and_then(|s| self.string_var(s))
                            .map(Place::var);
                        NewObject::Program { source, source_at }
                    }
                    NewKind::Kernel => {
                        let name = role_arg(Role::KernelName).and_then(|k| self.str_value(k));
                        // `clCreateKernel(r->prog, name, &err)` in a helper given the name
                        // (`get_kernel(&r, "stage")`): the string its caller passes.
                        let name_at = match role_val(Role::KernelName) {
                            Value::Place(p) if name.is_none() && p.proj.is_empty() => Some(p),
                            _ => None,
                        };
                        NewObject::Kernel {
                            program: Box::new(role_val(Role::Program)),
                            name,
                            name_at,
                        }
                    }
                    NewKind::UserEvent => {
                        // `clCreateUserEvent(ctx, &err)`: `err` says whether it was made.
                        self.made_status = self.errcode_var(args);
                        NewObject::UserEvent { raw: api.raw_event }
                    }
                    NewKind::Event => NewObject::EmptyEvent,
                    NewKind::EventList => return Value::List(Vec::new()),
                    NewKind::Devices => NewObject::Devices,
                    NewKind::Launch => return self.forget_call(recv_val, vals, span),
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
                let events = match (&api.receiver, api.arg_index(Role::WaitCount)) {
                    (Some(Role::Event), _) => recv_val,
                    // `clWaitForEvents(2, &ev[1])`: the events of the count.
                    (_, Some(_)) => Value::List(self.wait_elems(
                        &role_val(Role::Events),
                        role_arg(Role::WaitCount),
                        &role_val(Role::WaitCount),
                    )),
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
                    // `(cl_uint)(d + 1)`: the index the arithmetic gives where the analysis
                    // knows it.
                    v @ Value::Arith { .. } => {
                        let t = self.new_temp(TypeHint::Scalar);
                        self.out.push(Stmt::Assign {
                            dst: Place::var(t),
                            value: v,
                            span,
                        });
                        (None, Some(Place::var(t)))
                    }
                    _ => (None, None),
                };
                let (value, arg) = match role_arg(Role::ArgValue) {
                    // `&A->col_idx` of a field declared `int *col_idx`: host data, whatever
                    // the struct holds (which host data is not needed to tell).
                    Some(a) => match role_val(Role::ArgValue) {
                        Value::Place(p) => (
                            match self.host_field(&p) {
                                Some(Value::Host { kind, .. }) => Value::Host { kind, base: None },
                                _ => Value::Place(p),
                            },
                            self.arg_span(a),
                        ),
                        v => (v, self.arg_span(a)),
                    },
                    None => (
                        Value::Scalar,
                        ArgSpan {
                            span,
                            text: String::new(),
                        },
                    ),
                };
                let size = self.arg_bytes(role_arg(Role::ArgSize), role_arg(Role::ArgValue));
                self.out.push(Stmt::SetArg {
                    kernel,
                    index,
                    index_at,
                    name: None,
                    value,
                    size,
                    arg,
                    span,
                });
                Value::Scalar
            }
            Effect::Same => recv_val,
            Effect::Alias => match api.arg_index(Role::ArgValue) {
                Some(i) => vals[i].clone(),
                None => vals.first().cloned().unwrap_or(Value::Unknown),
            },
            Effect::Null => Value::Null,
            Effect::ByValue => Value::Scalar,
            // What a query writes through its out-parameters (`&status`) is not known.
            Effect::Query => {
                self.forget(api.values_of(Role::Out, &vals), span);
                // A callback of the file that releases the event it is called with takes it.
                let releasing = role_arg(Role::Callback)
                    .map(super::strip)
                    .is_some_and(|c| self.cx.releasing.contains(self.txt(c)));
                if releasing {
                    self.out.push(Stmt::Release {
                        events: role_val(Role::Event),
                        span,
                    });
                }
                Value::Scalar
            }
            Effect::Release => {
                // `ev[i]` in a loop: every element of `ev` an event was written to, and the
                // element `i` where the analysis knows `i` (an unknown one releases any).
                let events = match role_val(Role::Event) {
                    Value::Place(p) if !p.is_definite() => {
                        let mut elems: Vec<Value> = self
                            .event_elems
                            .iter()
                            .filter(|e| e.var == p.var)
                            .cloned()
                            .map(Value::Place)
                            .collect();
                        if p.proj.iter().any(|x| matches!(x, Proj::Var(_))) {
                            elems.push(Value::Place(p));
                        }
                        Value::List(elems)
                    }
                    v => v,
                };
                self.out.push(Stmt::Release { events, span });
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
            // Rust-binding shapes (launch builders, owning wrappers, builder chains): no C
            // or C++ row has them; such a call is unknown.
            Effect::LaunchArg
            | Effect::LaunchWait
            | Effect::LaunchEnqueue
            | Effect::Wrap
            | Effect::Op(_) => self.forget_call(recv_val, vals, span),
        }
    }

    fn forget_call(&mut self, recv: Value, mut vals: Vec<Value>, span: Span) -> Value {
        vals.push(recv);
        self.forget(vals, span);
        Value::Unknown
    }
}

/// The expression inside parentheses and casts.
pub(super) fn strip(mut n: Node<'_>) -> Node<'_> {
    loop {
        n = match n.kind() {
            "parenthesized_expression" => match named(n).into_iter().next() {
                Some(c) => c,
                None => return n,
            },
            // C++'s `if (ev)`: the condition is a clause around the expression.
            "condition_clause" => match named(n).as_slice() {
                [c] => *c,
                _ => return n,
            },
            "cast_expression" => match n.child_by_field_name("value") {
                Some(c) => c,
                None => return n,
            },
            _ => return n,
        };
    }
}

/// The places of `n` members of a list from index `from` (`base` the list's projection).
fn elements(var: Var, base: &[Proj], from: u64, n: u64) -> Vec<Value> {
    (from..from + n)
        .map(|j| {
            let mut proj = base.to_vec();
            proj.push(Proj::Index(j));
            Value::Place(Place { var, proj })
        })
        .collect()
}
