//! Builder-style APIs (ocl): commands assembled by method chains and enqueued by `enq()`,
//! and buffers, kernels and queue-and-program bundles made by builders. What an operation
//! means depends on what its receiver is; on anything else it is an unknown call.

use std::collections::BTreeSet;

use super::commands::{field_of, names_param, Resolved};
use super::*;

/// A command being built.
#[derive(Clone, Debug)]
pub(super) struct CmdBuild {
    /// The buffer or kernel the command is on.
    target: ObjId,
    kind: Option<CommandKind>,
    queue: Option<(ObjId, Option<ArgSpan>)>,
    /// `None` once a wait list is not known.
    waits: Option<BTreeSet<usize>>,
    event: Option<Place>,
    blocking: Option<Blocking>,
    host: Option<HostId>,
    /// The destination of a copy.
    dst: Option<ObjId>,
    /// An argument the analysis could not follow.
    unknown: bool,
    /// A map for writing: the host writes the mapped region.
    map_write: bool,
    /// The buffer, or the host data, is what the caller gave (a parameter of a callee).
    buffer_given: bool,
    host_given: bool,
    /// The same, through a parameter other than the method's own `self`: what the caller
    /// handed it, not what the method reached through its receiver.
    buffer_handed: bool,
    host_handed: bool,
    /// The parameter whose field the handed buffer, or host data, is.
    buffer_field_of: Option<Var>,
    host_field_of: Option<Var>,
    /// The offset of a read's or write's region, as written, other than 0.
    offset: Option<String>,
    /// The queue as the code gives it (`queue(q)`), to tell a helper's parameter.
    queue_val: Value,
    /// The offset of a copy's region in its destination, as written, other than 0.
    dst_offset: Option<String>,
}

/// A buffer being built.
#[derive(Clone, Debug, Default)]
pub(super) struct BufferBuild {
    queue: Option<ObjId>,
    host: Option<HostId>,
    /// Filled on creation; with the event place when a fill event is given (then it does
    /// not block).
    fill: Option<Option<Place>>,
    /// The data a constant `fill_val` pattern stands for (as `fill(0.0f32, None)`'s).
    pattern: Option<HostId>,
    /// `flags(MemFlags::new().read_only())`: kernels only read it.
    read_only: bool,
}

impl CmdBuild {
    /// A command on `target`, with no queue, wait list, event or blocking set yet.
    fn new(target: ObjId, kind: Option<CommandKind>) -> Self {
        CmdBuild {
            target,
            kind,
            queue: None,
            waits: Some(BTreeSet::new()),
            event: None,
            blocking: None,
            host: None,
            dst: None,
            unknown: false,
            map_write: false,
            buffer_given: false,
            host_given: false,
            buffer_handed: false,
            host_handed: false,
            buffer_field_of: None,
            host_field_of: None,
            offset: None,
            queue_val: Value::Unknown,
            dst_offset: None,
        }
    }
}

impl<'f> Analyzer<'f> {
    fn builder_kind(&self, a: &AVal) -> Option<&ObjKind> {
        match a {
            AVal::Obj(o) => Some(&self.objs[*o].kind),
            _ => None,
        }
    }

    fn new_cmd(&mut self, target: ObjId, kind: Option<CommandKind>) -> ObjId {
        let b = CmdBuild::new(target, kind);
        self.new_obj(ObjKind::CmdBuilder(Box::new(b)), "command".into())
    }

    fn cmd_mut(&mut self, o: ObjId) -> Option<&mut CmdBuild> {
        match &mut self.objs[o].kind {
            ObjKind::CmdBuilder(c) => Some(c),
            _ => None,
        }
    }

    /// Sets what a command does from the arguments of `write`/`read`/`fill`/`copy`.
    fn set_kind(&mut self, st: &mut State, c: ObjId, kind: CommandKind, args: &[Value]) {
        let first = args.first().cloned().unwrap_or(Value::Unknown);
        let (host, dst, unknown) = match kind {
            // The host side of a read or write is host memory, whichever it is
            // (`&mut results[itr]` of a `Vec<Vec<u32>>`); an object there is not followed.
            CommandKind::Write | CommandKind::Read => match self.eval(st, &first, None, "host") {
                AVal::Host { id, .. } => (Some(id), None, false),
                AVal::Obj(_) | AVal::External => (None, None, true),
                _ => (None, None, false),
            },
            CommandKind::Copy => match self.eval(st, &first, Some(RoleHint::Buffer), "buffer") {
                AVal::Obj(d) if matches!(self.objs[d].kind, ObjKind::Buffer) => {
                    (None, Some(d), false)
                }
                _ => (None, None, true),
            },
            _ => (None, None, false),
        };
        let host_given = host.is_some() && names_param(&first, &self.callee_params);
        let host_handed = host_given && !names_param(&first, &self.callee_receivers);
        if let Some(cb) = self.cmd_mut(c) {
            cb.kind = Some(kind);
            cb.host = host;
            cb.dst = dst;
            cb.unknown |= unknown;
            cb.host_given = host_given;
            cb.host_handed = host_handed;
            cb.host_field_of = field_of(&first).filter(|_| host_handed);
        }
    }

    /// Applies one builder operation; `None` when the receiver is not something it applies
    /// to, so the call is unknown.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn op(
        &mut self,
        st: &mut State,
        op: Op,
        recv: &Value,
        args: &[Value],
        arg_spans: &[ArgSpan],
        arg_bytes: Option<u64>,
        dst: &Place,
        id: usize,
        span: Span,
    ) {
        let role = match op {
            Op::Kind(_) => Some(RoleHint::Buffer),
            Op::Enq | Op::EnqAsync => Some(RoleHint::Kernel),
            _ => None,
        };
        let mut r = self.eval(st, recv, role, "receiver");
        // A queue-and-program bundle from outside (`self.pq.kernel_builder("k")`): one of
        // its own, with a queue of its own, whose program's source is not seen here.
        if let (
            Op::KernelBuilder | Op::CreateBuffer | Op::GetQueue,
            AVal::External,
            Value::Place(p),
        ) = (op, &r, recv)
        {
            let name = self.place_name(p);
            let queue = self.new_obj(
                ObjKind::Queue {
                    device: None,
                    ooo: false,
                },
                format!("{name}.queue()"),
            );
            self.outside.insert(queue);
            let pq = self.new_obj(
                ObjKind::ProQue {
                    queue,
                    source: None,
                },
                name,
            );
            self.outside.insert(pq);
            r = AVal::Obj(pq);
            st.env.insert(self.canonical(p), r.clone());
        }
        let is_function = *recv == Value::Unknown;
        let on_buffer = matches!(self.builder_kind(&r), Some(ObjKind::Buffer));
        let result = self.apply_op(
            st,
            op,
            &r,
            is_function,
            args,
            arg_spans,
            arg_bytes,
            id,
            span,
        );
        // `buf.write(..)`, `buf.cmd()` of a buffer the caller gave.
        if let (true, Some(AVal::Obj(c))) = (on_buffer, &result) {
            let given = names_param(recv, &self.callee_params);
            let handed = given && !names_param(recv, &self.callee_receivers);
            if let Some(cb) = self.cmd_mut(*c) {
                cb.buffer_given = given;
                cb.buffer_handed = handed;
                cb.buffer_field_of = field_of(recv).filter(|_| handed);
            }
        }
        match result {
            Some(v) => {
                st.env.insert(dst.clone(), v);
            }
            None => {
                let mut all = vec![recv.clone()];
                all.extend(args.iter().cloned());
                self.forget(st, &all);
                // A command not followed (`merge.cmd()..enq()` of a kernel not known) may
                // write any buffer.
                if op == Op::Enq {
                    self.forget_unnamed_buffers(st, &BTreeSet::new(), false);
                }
                st.env.insert(dst.clone(), AVal::Unknown);
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn apply_op(
        &mut self,
        st: &mut State,
        op: Op,
        r: &AVal,
        is_function: bool,
        args: &[Value],
        arg_spans: &[ArgSpan],
        arg_bytes: Option<u64>,
        id: usize,
        span: Span,
    ) -> Option<AVal> {
        let recv_obj = match r {
            AVal::Obj(o) => Some(*o),
            _ => None,
        };
        let arg = |i: usize| args.get(i).cloned().unwrap_or(Value::Unknown);
        match op {
            Op::Cmd => match self.builder_kind(r)? {
                ObjKind::Buffer => Some(AVal::Obj(self.new_cmd(recv_obj?, None))),
                ObjKind::Kernel { .. } => Some(AVal::Obj(
                    self.new_cmd(recv_obj?, Some(CommandKind::Kernel)),
                )),
                _ => None,
            },
            Op::Kind(kind) => {
                let c = match self.builder_kind(r)? {
                    ObjKind::Buffer => self.new_cmd(recv_obj?, Some(kind)),
                    ObjKind::CmdBuilder(_) => recv_obj?,
                    _ => return None,
                };
                self.set_kind(st, c, kind, args);
                // `copy(&full, Some(s.first * n), Some(s.count * n))`: the region of the
                // destination from that offset.
                if let (CommandKind::Copy, [_, at, _]) = (kind, arg_spans) {
                    let text: String = at.text.split_whitespace().collect();
                    let inner = (text.strip_prefix("Some(")).and_then(|t| t.strip_suffix(')'));
                    if let (Some(o), Some(cb)) = (inner.filter(|o| *o != "0"), self.cmd_mut(c)) {
                        cb.dst_offset = Some(o.to_string());
                    }
                }
                // `fill(0.0f32, None)`: a constant pattern over the whole buffer is data that
                // never changes, one per pattern (as a C fill's constant pattern and range).
                if let (CommandKind::Fill, [pattern, len]) = (kind, arg_spans) {
                    if len.text == "None" {
                        if let Some(id) = self.whole_pattern(&pattern.text) {
                            if let Some(cb) = self.cmd_mut(c) {
                                cb.host = Some(id);
                            }
                        }
                    }
                }
                Some(AVal::Obj(c))
            }
            Op::Queue => {
                let o = recv_obj?;
                let q = match self.eval(st, &arg(0), Some(RoleHint::Queue), "queue") {
                    AVal::Obj(q) if matches!(self.objs[q].kind, ObjKind::Queue { .. }) => Some(q),
                    _ => None,
                };
                let qspan = arg_spans.first().cloned();
                match &mut self.objs[o].kind {
                    ObjKind::CmdBuilder(c) => match q {
                        Some(q) => {
                            c.queue = Some((q, qspan));
                            c.queue_val = arg(0);
                        }
                        None => c.unknown = true,
                    },
                    ObjKind::BufferBuilder(b) => b.queue = q,
                    ObjKind::KernelBuilder { kernel, .. } => {
                        let k = *kernel;
                        match q {
                            Some(q) => self.default_queue.insert(k, q),
                            None => self.default_queue.remove(&k),
                        };
                    }
                    ObjKind::Kernel { .. } | ObjKind::Buffer => {
                        match q {
                            Some(q) => self.default_queue.insert(o, q),
                            None => self.default_queue.remove(&o),
                        };
                    }
                    ObjKind::ProQueBuilder { .. } => {}
                    _ => return None,
                }
                Some(r.clone())
            }
            Op::GetQueue => match self.builder_kind(r)? {
                ObjKind::ProQue { queue, .. } => Some(AVal::Obj(*queue)),
                _ => None,
            },
            Op::Wait => {
                let o = recv_obj?;
                if !matches!(self.objs[o].kind, ObjKind::CmdBuilder(_)) {
                    return None;
                }
                let w = self.wait_set(st, &arg(0));
                let c = self.cmd_mut(o)?;
                c.waits = match (c.waits.take(), w) {
                    (Some(mut a), Some(b)) => {
                        a.extend(b);
                        Some(a)
                    }
                    _ => None,
                };
                Some(r.clone())
            }
            Op::NewEvent => {
                let o = recv_obj?;
                // `.enew(done)` of a `done: &mut Event` parameter: the caller's event.
                let place = match arg(0) {
                    Value::Place(p) => Some(self.canonical(&self.concrete(st, &p))),
                    _ => None,
                };
                let c = self.cmd_mut(o)?;
                c.event = place;
                Some(r.clone())
            }
            Op::Block => {
                let o = recv_obj?;
                let b = match arg(0) {
                    Value::Int(0) => Blocking::No,
                    Value::Int(_) => Blocking::Yes,
                    _ => Blocking::Unknown,
                };
                self.cmd_mut(o)?.blocking = Some(b);
                Some(r.clone())
            }
            Op::Enq | Op::EnqAsync => {
                let o = recv_obj?;
                let mut c = match &self.objs[o].kind {
                    ObjKind::CmdBuilder(c) => (**c).clone(),
                    ObjKind::Kernel { .. } => CmdBuild::new(o, Some(CommandKind::Kernel)),
                    _ => return None,
                };
                if op == Op::EnqAsync && c.blocking.is_none() {
                    c.blocking = Some(Blocking::No);
                }
                // A map gives the mapping, whose `unmap()` is the command that ends it.
                let mapping = (c.kind == Some(CommandKind::Map) && op == Op::Enq)
                    .then(|| self.new_cmd(c.target, None));
                self.enq_built(st, c, id, span);
                Some(mapping.map_or(AVal::Scalar, AVal::Obj))
            }
            Op::MapWrite => {
                let o = recv_obj?;
                let c = self.cmd_mut(o)?;
                if c.kind != Some(CommandKind::Map) {
                    return None;
                }
                c.map_write = true;
                Some(r.clone())
            }
            Op::Builder(kind) => {
                let pro_que = match self.builder_kind(r) {
                    Some(ObjKind::ProQue { queue, source }) => Some((*queue, source.clone())),
                    _ if is_function => None,
                    _ => return None,
                };
                let obj = match kind {
                    BuilderKind::Buffer => ObjKind::BufferBuilder(Box::new(BufferBuild {
                        queue: pro_que.as_ref().map(|(q, _)| *q),
                        ..BufferBuild::default()
                    })),
                    BuilderKind::Kernel => {
                        let k = self.new_obj(ObjKind::Kernel { sig: None }, "kernel".into());
                        if let Some((q, _)) = &pro_que {
                            self.default_queue.insert(k, *q);
                        }
                        self.program_sources.insert(k, pro_que.and_then(|(_, s)| s));
                        ObjKind::KernelBuilder {
                            kernel: k,
                            unknown_args: false,
                        }
                    }
                    BuilderKind::ProQue => ObjKind::ProQueBuilder {
                        source: None,
                        program: false,
                    },
                    BuilderKind::Program => ObjKind::ProQueBuilder {
                        source: None,
                        program: true,
                    },
                };
                Some(AVal::Obj(self.new_obj(obj, "builder".into())))
            }
            Op::KernelBuilder => {
                let r_outside = recv_obj.is_some_and(|o| self.outside.contains(&o));
                let Some(ObjKind::ProQue { queue, source }) = self.builder_kind(r) else {
                    return None;
                };
                let (queue, source) = (*queue, source.clone());
                let name = match arg(0) {
                    Value::Str(n) => Some(n),
                    _ => None,
                };
                // A bundle from outside: the crate's kernel of that name.
                let sig = name.as_deref().and_then(|n| match source.as_deref() {
                    None if r_outside => self.kernel_sig(None, n),
                    s => self.kernels.sig(s, n),
                });
                let k = self.new_obj(
                    ObjKind::Kernel { sig },
                    name.clone().unwrap_or_else(|| "kernel".into()),
                );
                self.default_queue.insert(k, queue);
                self.program_sources.insert(k, source);
                let b = ObjKind::KernelBuilder {
                    kernel: k,
                    unknown_args: false,
                };
                Some(AVal::Obj(self.new_obj(b, "builder".into())))
            }
            Op::HostData | Op::FillVal | Op::FillEvent => {
                let o = recv_obj?;
                let host = match op {
                    Op::HostData => match self.eval(st, &arg(0), None, "host") {
                        AVal::Host { id, .. } => Some(id),
                        _ => None,
                    },
                    _ => None,
                };
                let place = match arg(0) {
                    Value::Place(p) => Some(p),
                    _ => None,
                };
                let pattern = match (op, arg_spans) {
                    (Op::FillVal, [value]) => self.whole_pattern(&value.text),
                    _ => None,
                };
                let ObjKind::BufferBuilder(b) = &mut self.objs[o].kind else {
                    return None;
                };
                match op {
                    Op::HostData => b.host = host,
                    Op::FillVal => {
                        b.fill = Some(None);
                        b.pattern = pattern;
                    }
                    _ => b.fill = Some(place),
                }
                Some(r.clone())
            }
            // A buffer's flags: the builder as it was, made read-only where they say so.
            Op::Flags => {
                let read_only = (arg_spans.first())
                    .is_some_and(|a| a.text.contains("read_only") || a.text.contains("READ_ONLY"));
                if let Some(ObjKind::BufferBuilder(b)) = recv_obj.map(|o| &mut self.objs[o].kind) {
                    b.read_only |= read_only;
                }
                Some(r.clone())
            }
            Op::Arg { named } => {
                let o = recv_obj?;
                let ObjKind::KernelBuilder { kernel, .. } = self.objs[o].kind else {
                    return None;
                };
                let index = match st.kernel_args.get(&kernel) {
                    Some(ka) => ka.args.len() as u64,
                    None => 0,
                };
                let (value, aspan) = if named {
                    (arg(1), arg_spans.get(1).cloned())
                } else {
                    (arg(0), arg_spans.first().cloned())
                };
                let aspan = aspan.unwrap_or(ArgSpan {
                    span,
                    text: String::new(),
                });
                let site = SetSite {
                    span: aspan.span,
                    call: None,
                    size: arg_bytes,
                };
                let a = self.classify_arg(st, kernel, index, &value, &aspan, &site);
                if a == Arg::Unknown {
                    if let ObjKind::KernelBuilder { unknown_args, .. } = &mut self.objs[o].kind {
                        *unknown_args = true;
                    }
                }
                st.kernel_args
                    .entry(kernel)
                    .or_insert(KernelArgs {
                        known: true,
                        args: Vec::new(),
                    })
                    .args
                    .push((index, a));
                if let (true, Value::Str(n)) = (named, arg(0)) {
                    self.arg_names.entry(kernel).or_default().push((n, index));
                }
                Some(r.clone())
            }
            Op::Program => {
                let o = recv_obj?;
                let source = match self.eval(st, &arg(0), None, "program") {
                    AVal::Str(t) => Some(t),
                    AVal::Obj(p) => match &self.objs[p].kind {
                        ObjKind::Program { source } => source.clone(),
                        _ => None,
                    },
                    _ => None,
                };
                match &mut self.objs[o].kind {
                    ObjKind::ProQueBuilder { source: s, .. } => *s = source,
                    ObjKind::KernelBuilder { kernel, .. } => {
                        let k = *kernel;
                        self.program_sources.insert(k, source);
                        self.refresh_sig(k);
                    }
                    _ => return None,
                }
                Some(r.clone())
            }
            Op::Name => {
                let o = recv_obj?;
                let ObjKind::KernelBuilder { kernel, .. } = self.objs[o].kind else {
                    return None;
                };
                if let Value::Str(n) = arg(0) {
                    self.objs[kernel].name = n;
                    self.refresh_sig(kernel);
                }
                Some(r.clone())
            }
            Op::Build => {
                let o = recv_obj?;
                match self.objs[o].kind.clone() {
                    ObjKind::BufferBuilder(b) => Some(self.build_buffer(st, &b, id, span)),
                    ObjKind::KernelBuilder {
                        kernel,
                        unknown_args,
                    } => {
                        let args = st.kernel_args.entry(kernel).or_insert(KernelArgs {
                            known: true,
                            args: Vec::new(),
                        });
                        args.known &= !unknown_args;
                        Some(AVal::Obj(kernel))
                    }
                    ObjKind::ProQueBuilder {
                        source,
                        program: true,
                    } => Some(AVal::Obj(
                        self.new_obj(ObjKind::Program { source }, "program".into()),
                    )),
                    ObjKind::ProQueBuilder { source, .. } => {
                        let device = self.default_device_obj();
                        let queue = self.new_obj(
                            ObjKind::Queue {
                                device: Some(device),
                                ooo: false,
                            },
                            "pro_que.queue()".into(),
                        );
                        let pro_que =
                            self.new_obj(ObjKind::ProQue { queue, source }, "pro_que".into());
                        self.placeholder.extend([queue, pro_que]);
                        Some(AVal::Obj(pro_que))
                    }
                    _ => None,
                }
            }
            Op::CreateBuffer => {
                let Some(ObjKind::ProQue { queue, .. }) = self.builder_kind(r) else {
                    return None;
                };
                let queue = *queue;
                let b = self.new_obj(ObjKind::Buffer, "%buffer".into());
                self.default_queue.insert(b, queue);
                Some(AVal::Obj(b))
            }
            // `read(&mut part).offset(lo)`: a region of the buffer; `cmd().global_work_offset(lo)`
            // of a launch: its work-items from there; `Kernel::builder().global_work_offset(
            // start)`: the kernel's launches are from there unless told otherwise.
            Op::Offset
                if matches!(
                    self.builder_kind(r)?,
                    ObjKind::CmdBuilder(_) | ObjKind::KernelBuilder { .. }
                ) =>
            {
                let text: String = (arg_spans.first()?.text.split_whitespace()).collect();
                let given = !crate::frontend::no_offset(&text);
                match self.builder_kind(r) {
                    Some(&ObjKind::KernelBuilder { kernel, .. }) => {
                        if given {
                            self.offset_kernels.insert(kernel);
                        }
                    }
                    _ => self.cmd_mut(recv_obj?)?.offset = given.then_some(text),
                }
                Some(r.clone())
            }
            Op::Offset | Op::Same => match self.builder_kind(r)? {
                ObjKind::CmdBuilder(_)
                | ObjKind::BufferBuilder(_)
                | ObjKind::KernelBuilder { .. }
                | ObjKind::ProQueBuilder { .. } => Some(r.clone()),
                _ => None,
            },
        }
    }

    fn refresh_sig(&mut self, k: ObjId) {
        let source = self.program_sources.get(&k).cloned().flatten();
        let name = self.objs[k].name.clone();
        let sig = self.kernel_sig(source.as_deref(), &name);
        self.objs[k].kind = ObjKind::Kernel { sig };
    }

    /// The data a constant fill pattern over a whole buffer stands for: a number literal,
    /// with a type suffix or none (`0.0f32`, `0`), one per pattern (as a C fill's constant
    /// pattern and range).
    fn whole_pattern(&mut self, text: &str) -> Option<HostId> {
        let at = text
            .find(|c: char| c.is_ascii_alphabetic())
            .unwrap_or(text.len());
        let (digits, suffix) = text.split_at(at);
        const SUFFIXES: &[&str] = &[
            "", "f32", "f64", "u8", "u16", "u32", "u64", "usize", "i8", "i16", "i32", "i64",
            "isize",
        ];
        let constant = !digits.is_empty()
            && (digits.chars()).all(|c| c.is_ascii_digit() || matches!(c, '.' | '_' | '-'))
            && SUFFIXES.contains(&suffix);
        constant.then(|| self.pattern_host(&format!("fill {text} whole"), text))
    }

    /// `build()` of a buffer builder: the buffer, its default queue, its initialization,
    /// and the fill command a `fill_val` enqueues.
    fn build_buffer(&mut self, st: &mut State, b: &BufferBuild, id: usize, span: Span) -> AVal {
        let buf = self.new_obj(ObjKind::Buffer, "%buffer".into());
        if let Some(q) = b.queue {
            self.default_queue.insert(buf, q);
        }
        if b.read_only {
            self.read_only.insert(buf);
        }
        if let Some(h) = b.host {
            let version = self.host_version(st, h);
            st.init.insert(
                buf,
                Init {
                    host: h,
                    version,
                    site: span,
                    queue: None,
                    uploads: Rc::default(),
                    frames: self.frames_of(self.frame()),
                },
            );
            st.host_buffers.entry(h).or_default().insert(buf);
        }
        if let (Some(event), Some(q)) = (&b.fill, b.queue) {
            let c = CmdBuild {
                queue: Some((q, None)),
                event: event.clone(),
                blocking: Some(if event.is_some() {
                    Blocking::No
                } else {
                    Blocking::Yes
                }),
                host: b.pattern,
                ..CmdBuild::new(buf, Some(CommandKind::Fill))
            };
            self.enq_built(st, c, id, span);
        }
        AVal::Obj(buf)
    }

    /// Enqueues a built command.
    fn enq_built(&mut self, st: &mut State, c: CmdBuild, id: usize, span: Span) {
        let Some(kind) = c.kind else {
            return;
        };
        let queue = c
            .queue
            .as_ref()
            .map(|(q, _)| *q)
            .or_else(|| self.default_queue.get(&c.target).copied());
        let mut r = Resolved {
            queue,
            waits: c.waits.clone(),
            unknown_buffers: c.unknown,
            operands_given: c.buffer_given || c.host_given,
            operands_handed: c.buffer_handed || c.host_handed,
            buffers_handed: c.buffer_handed,
            handed_structs: (c.buffer_field_of.iter().chain(&c.host_field_of).copied()).collect(),
            handed_whole: (c.buffer_handed && c.buffer_field_of.is_none())
                || (c.host_handed && c.host_field_of.is_none()),
            ..Resolved::default()
        };
        if c.buffer_given {
            r.given.insert(c.target);
        }
        let work_offset = kind == CommandKind::Kernel && c.offset.is_some();
        let whole = UseInfo {
            to_host: false,
            whole: c.offset.is_none(),
            offset: c.offset.as_deref().map(OffsetKey::of),
            at_zero: false,
            host: c.host,
        };
        match kind {
            CommandKind::Write => r.uses.push((c.target, Mode::Write, whole)),
            CommandKind::Read => r.uses.push((c.target, Mode::Read, whole)),
            CommandKind::Fill => r.uses.push((c.target, Mode::Write, whole)),
            CommandKind::Copy => {
                r.uses.push((c.target, Mode::Read, UseInfo::default()));
                if let Some(d) = c.dst {
                    let region = UseInfo {
                        offset: c.dst_offset.as_deref().map(OffsetKey::of),
                        ..UseInfo::default()
                    };
                    r.uses.push((d, Mode::Write, region));
                }
            }
            // `.global_work_offset(row0)` of the launch: its work-items from that offset.
            CommandKind::Kernel => {
                self.add_launch(st, &AVal::Obj(c.target), span, work_offset, &mut r)
            }
            // A mapping is an access of the buffer: a read, or a write when the host writes
            // the mapped region.
            CommandKind::Map => {
                let mode = if c.map_write { Mode::Write } else { Mode::Read };
                r.uses.push((c.target, mode, UseInfo::default()));
            }
            _ => {}
        }
        // Reads, writes and maps block unless told otherwise; nothing else blocks.
        let blocking = match (kind, c.blocking) {
            (_, Some(b)) => b,
            (CommandKind::Write | CommandKind::Read | CommandKind::Map, None) => Blocking::Yes,
            _ => Blocking::No,
        };
        let api = match kind {
            CommandKind::Write => "write",
            CommandKind::Read => "read",
            CommandKind::Fill => "fill",
            CommandKind::Copy => "copy",
            CommandKind::Map => "map",
            CommandKind::Unmap => "unmap",
            _ => "enq",
        };
        let cmd = Command {
            id,
            api: api.into(),
            binding: "ocl".into(),
            kind,
            queue: c.queue_val.clone(),
            queue_arg: c.queue.and_then(|(_, s)| s),
            buffers: Vec::new(),
            kernel: None,
            waits: None,
            wait_arg: None,
            blocking,
            flags_arg: None,
            work_offset,
            flags: None,
            raw_event: false,
            span,
        };
        self.push_command(st, cmd, r, c.event.as_ref());
        if kind == CommandKind::Read {
            if let Some(h) = c.host {
                self.bump_host(st, h);
            }
        }
    }
}
