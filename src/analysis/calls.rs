//! Calls into the crate: the index of its functions and methods, and a callee interpreted
//! at its call site in a frame of its own, with its variables renumbered past the caller's.

use super::env::Places;
use super::join::join_val;
use super::values::remove_parts;
use super::*;

/// A callee interpreted at its call site.
pub(super) struct InlineCx {
    pub(super) callee: String,
    /// Its frame: a number no other call shares (the analyzed function is frame 0).
    pub(super) frame: usize,
    /// Its own variables are those from this one on (none for a closure, whose
    /// variables are its function's).
    pub(super) vars_from: usize,
    /// The state and value at each of its returns.
    pub(super) returns: Vec<(State, AVal)>,
    /// Those at returns after a failed status check ([`Stmt::ErrorExit`]).
    pub(super) error_returns: Vec<(State, AVal)>,
    /// The place from outside the callee that each of `returns` gives, where it gives one
    /// (`return *slots_[i];` of the caller's object): another name for that place.
    pub(super) places: Vec<Option<Place>>,
}

/// How deep calls are followed.
const MAX_CALL_DEPTH: usize = 4;

/// Statements of callees interpreted for one analyzed function, all calls together: past
/// this, calls forget. Following every call of a crate to depth `MAX_CALL_DEPTH` would be
/// exponential in it.
const MAX_INLINED_STMTS: usize = 4_000;

/// Statements in a body, nested ones included.
pub(super) fn stmt_count(body: &[Stmt]) -> usize {
    body.iter()
        .map(|s| match s {
            Stmt::Branch(arms) => 1 + arms.iter().map(|a| stmt_count(a)).sum::<usize>(),
            Stmt::Loop(b)
            | Stmt::ForEach { body: b, .. }
            | Stmt::Spawn { body: b, .. }
            | Stmt::Closure { body: b, .. } => 1 + stmt_count(b),
            _ => 1,
        })
        .sum()
}

/// A callee's statements with its variables moved past the caller's.
fn shift_block(body: &[Stmt], by: usize) -> Vec<Stmt> {
    body.iter().map(|s| shift_stmt(s, by)).collect()
}

fn shift_place(p: &Place, by: usize) -> Place {
    Place {
        var: p.var + by,
        proj: p
            .proj
            .iter()
            .map(|x| match x {
                Proj::Var(v) => Proj::Var(v + by),
                Proj::At(i) => Proj::At(Box::new(shift_place(i, by))),
                other => other.clone(),
            })
            .collect(),
    }
}

fn shift_source(s: &EachSource, by: usize) -> EachSource {
    let v = |x: &Value| shift_value(x, by);
    match s {
        EachSource::Members(x) => EachSource::Members(v(x)),
        EachSource::MembersFrom(x, s) => EachSource::MembersFrom(v(x), *s),
        EachSource::Upto(x) => EachSource::Upto(v(x)),
        EachSource::UptoLen(s, x) => EachSource::UptoLen(*s, v(x)),
        EachSource::Pieces(x) => EachSource::Pieces(v(x)),
        EachSource::Among(x) => EachSource::Among(v(x)),
        EachSource::Range(a, b) => EachSource::Range(v(a), v(b)),
        EachSource::Rev(inner) => EachSource::Rev(Box::new(shift_source(inner, by))),
    }
}

fn shift_value(v: &Value, by: usize) -> Value {
    match v {
        Value::Place(p) => Value::Place(shift_place(p, by)),
        Value::Host { kind, base } => Value::Host {
            kind: *kind,
            base: base.as_ref().map(|p| shift_place(p, by)),
        },
        Value::HostAt { base, offset, text } => Value::HostAt {
            base: shift_place(base, by),
            offset: Box::new(shift_value(offset, by)),
            text: text.clone(),
        },
        Value::List(items) => Value::List(items.iter().map(|i| shift_value(i, by)).collect()),
        Value::Arith { op, lhs, rhs } => Value::Arith {
            op: *op,
            lhs: Box::new(shift_value(lhs, by)),
            rhs: Box::new(shift_value(rhs, by)),
        },
        Value::Len(list) => Value::Len(Box::new(shift_value(list, by))),
        Value::Slots(count) => Value::Slots(Box::new(shift_value(count, by))),
        Value::Members { list, from, count } => Value::Members {
            list: shift_place(list, by),
            from: *from,
            count: Box::new(shift_value(count, by)),
        },
        Value::Struct(fields) => Value::Struct(
            fields
                .iter()
                .map(|(n, x)| (n.clone(), shift_value(x, by)))
                .collect(),
        ),
        Value::New(o) => Value::New(match o {
            NewObject::Queue {
                device,
                out_of_order,
            } => NewObject::Queue {
                device: device.as_ref().map(|d| Box::new(shift_value(d, by))),
                out_of_order: *out_of_order,
            },
            NewObject::Buffer {
                host_init,
                undefined,
                in_place,
                read_only,
            } => NewObject::Buffer {
                host_init: host_init.as_ref().map(|h| Box::new(shift_value(h, by))),
                undefined: *undefined,
                in_place: *in_place,
                read_only: *read_only,
            },
            NewObject::SubBuffer { parent } => NewObject::SubBuffer {
                parent: Box::new(shift_value(parent, by)),
            },
            NewObject::Program { source, source_at } => NewObject::Program {
                source: source.clone(),
                source_at: source_at.as_ref().map(|p| shift_place(p, by)),
            },
            NewObject::Kernel {
                program,
                name,
                name_at,
            } => NewObject::Kernel {
                program: Box::new(shift_value(program, by)),
                name: name.clone(),
                name_at: name_at.as_ref().map(|p| shift_place(p, by)),
            },
            NewObject::Launch { kernel } => NewObject::Launch {
                kernel: Box::new(shift_value(kernel, by)),
            },
            other => other.clone(),
        }),
        other => other.clone(),
    }
}

fn shift_stmt(s: &Stmt, by: usize) -> Stmt {
    let v = |x: &Value| shift_value(x, by);
    let pl = |x: &Place| shift_place(x, by);
    match s {
        Stmt::Assign { dst, value, span } => Stmt::Assign {
            dst: pl(dst),
            value: v(value),
            span: *span,
        },
        Stmt::Enqueue { cmd, event } => {
            let mut c = cmd.clone();
            c.queue = v(&c.queue);
            c.kernel = c.kernel.as_ref().map(v);
            c.flags = c.flags.as_deref().map(|x| Box::new(v(x)));
            c.waits = c.waits.as_ref().map(|w| w.iter().map(v).collect());
            for b in &mut c.buffers {
                b.buffer = v(&b.buffer);
                b.host = b.host.as_ref().map(v);
                b.offset_value = b.offset_value.as_ref().map(v);
            }
            Stmt::Enqueue {
                cmd: c,
                event: event.as_ref().map(pl),
            }
        }
        Stmt::SetArg {
            kernel,
            index,
            index_at,
            name,
            value,
            size,
            arg,
            span,
        } => Stmt::SetArg {
            kernel: v(kernel),
            index: *index,
            index_at: index_at.as_ref().map(pl),
            name: name.clone(),
            value: v(value),
            size: *size,
            arg: arg.clone(),
            span: *span,
        },
        Stmt::LaunchArg {
            launch,
            value,
            size,
            arg,
            span,
        } => Stmt::LaunchArg {
            launch: v(launch),
            value: v(value),
            size: *size,
            arg: arg.clone(),
            span: *span,
        },
        Stmt::LaunchWait { launch, events } => Stmt::LaunchWait {
            launch: v(launch),
            events: v(events),
        },
        Stmt::Push { list, item } => Stmt::Push {
            list: pl(list),
            item: v(item),
        },
        Stmt::Finish { queue, span } => Stmt::Finish {
            queue: v(queue),
            span: *span,
        },
        Stmt::Wait { events, span } => Stmt::Wait {
            events: v(events),
            span: *span,
        },
        Stmt::Release { events, span } => Stmt::Release {
            events: v(events),
            span: *span,
        },
        Stmt::Signal { event, span } => Stmt::Signal {
            event: v(event),
            span: *span,
        },
        Stmt::Op {
            op,
            recv,
            args,
            arg_spans,
            arg_bytes,
            dst,
            id,
            span,
        } => Stmt::Op {
            op: *op,
            recv: v(recv),
            args: args.iter().map(v).collect(),
            arg_spans: arg_spans.clone(),
            arg_bytes: *arg_bytes,
            dst: pl(dst),
            id: *id,
            span: *span,
        },
        Stmt::Forget { values, span } => Stmt::Forget {
            values: values.iter().map(v).collect(),
            span: *span,
        },
        Stmt::Branch(arms) => Stmt::Branch(arms.iter().map(|a| shift_block(a, by)).collect()),
        Stmt::Loop(body) => Stmt::Loop(shift_block(body, by)),
        Stmt::ForEach {
            sources,
            binds,
            body,
            tail,
            dst,
        } => Stmt::ForEach {
            sources: sources.iter().map(|s| shift_source(s, by)).collect(),
            binds: binds.iter().map(|(p, part)| (pl(p), *part)).collect(),
            body: shift_block(body, by),
            tail: v(tail),
            dst: dst.as_ref().map(pl),
        },
        Stmt::Spawn {
            body,
            value,
            handle,
            span,
        } => Stmt::Spawn {
            body: shift_block(body, by),
            value: v(value),
            handle: pl(handle),
            span: *span,
        },
        Stmt::Closure {
            name,
            params,
            body,
            value,
            dst,
            span,
        } => Stmt::Closure {
            name: name.clone(),
            params: params.iter().map(|p| p + by).collect(),
            body: shift_block(body, by),
            value: v(value),
            dst: pl(dst),
            span: *span,
        },
        Stmt::Assume { value, some } => Stmt::Assume {
            value: v(value),
            some: *some,
        },
        Stmt::Failed { value, commands } => Stmt::Failed {
            value: v(value),
            commands: commands.clone(),
        },
        Stmt::Join { handle, dst } => Stmt::Join {
            handle: v(handle),
            dst: pl(dst),
        },
        Stmt::Call {
            callee,
            recv,
            args,
            dst,
            span,
        } => Stmt::Call {
            callee: callee.clone(),
            recv: recv.as_ref().map(v),
            args: args.iter().map(v).collect(),
            dst: pl(dst),
            span: *span,
        },
        Stmt::Rendezvous { barrier } => Stmt::Rendezvous {
            barrier: v(barrier),
        },
        Stmt::Received => Stmt::Received,
        Stmt::Break => Stmt::Break,
        Stmt::ErrorExit => Stmt::ErrorExit,
        Stmt::Continue => Stmt::Continue,
        Stmt::Return { value, span } => Stmt::Return {
            value: v(value),
            span: *span,
        },
    }
}

/// The functions of a crate, by qualified name, for calls.
#[derive(Debug, Default)]
pub struct Index<'f> {
    /// `None` for a name two functions have (as under different `#[cfg]`s): which one
    /// runs is not known.
    exact: HashMap<&'f str, Option<Callee<'f>>>,
    /// Methods (`Type::method`) by their last two segments: an `impl` can be in a module
    /// other than its type's, and a call names the type as it was imported.
    methods: HashMap<(&'f str, &'f str), Option<Callee<'f>>>,
    /// Where a name not found here is looked up next.
    outer: Option<&'f Index<'f>>,
    /// The crate's kernels: of its program sources, and in its struct fields.
    kernels: Arc<CrateKernels>,
}

/// A function of the index, with the size of its body.
#[derive(Clone, Copy, Debug)]
pub struct Callee<'f> {
    pub function: &'f Function,
    /// Its statements, nested ones included: what following a call of it costs.
    pub stmts: usize,
}

fn insert_unique<'f, K: std::hash::Hash + Eq>(
    map: &mut HashMap<K, Option<Callee<'f>>>,
    key: K,
    c: Callee<'f>,
) {
    map.entry(key).and_modify(|e| *e = None).or_insert(Some(c));
}

/// The last two segments of a method's name (`Type`, `method`); `None` for a function.
pub fn method_key(name: &str) -> Option<(&str, &str)> {
    let (head, method) = name.rsplit_once("::")?;
    let ty = head.rsplit("::").next()?;
    ty.starts_with(|c: char| c.is_ascii_uppercase())
        .then_some((ty, method))
}

impl<'f> Index<'f> {
    /// The index of a program's functions; `sources` are the strings its files keep in
    /// constants that may be OpenCL C sources.
    pub fn new<'s>(
        functions: impl IntoIterator<Item = &'f Function>,
        sources: impl IntoIterator<Item = &'s str>,
    ) -> Index<'f> {
        let all: Vec<&'f Function> = functions.into_iter().collect();
        let mut index = Index::of(&all);
        index.kernels = Arc::new(CrateKernels::new(all, sources));
        index
    }

    fn of(functions: &[&'f Function]) -> Index<'f> {
        let mut index = Index::default();
        for &f in functions {
            let c = Callee {
                function: f,
                stmts: stmt_count(&f.body),
            };
            insert_unique(&mut index.exact, f.name.as_str(), c);
            if let Some(key) = method_key(&f.name) {
                insert_unique(&mut index.methods, key, c);
            }
        }
        index
    }

    /// The crate's kernels: of its program sources, and in its struct fields.
    pub(super) fn crate_kernels(&self) -> &CrateKernels {
        &self.kernels
    }

    /// The index of `functions` in front of `outer`: a name they define is theirs even
    /// where `outer` has it too (a C file's own functions before its program's). Kernels are
    /// those of `functions` and of the file's own source strings (`sources`) alone: the C
    /// files under one build file are often programs of their own (tests, samples), whose
    /// kernels share names (`k`, `add`).
    pub fn within<'s, I: IntoIterator<Item = &'f Function>>(
        functions: I,
        sources: impl IntoIterator<Item = &'s str>,
        outer: &'f Index<'f>,
    ) -> Index<'f> {
        let all: Vec<&'f Function> = functions.into_iter().collect();
        let mut index = Index::of(&all);
        index.outer = Some(outer);
        index.kernels = Arc::new(CrateKernels::new(all, sources));
        index
    }

    /// Whether the program defines a function `name` (once or more).
    pub fn defines(&self, name: &str) -> bool {
        self.exact.contains_key(name)
            || method_key(name).is_some_and(|k| self.methods.contains_key(&k))
            || self.outer.is_some_and(|o| o.defines(name))
    }

    /// The one function a call of `name` runs, when it is known.
    pub fn get(&self, name: &str) -> Option<Callee<'f>> {
        let here = match self.exact.get(name) {
            Some(f) => return *f,
            None => method_key(name).and_then(|k| self.methods.get(&k).copied()),
        };
        match (here, self.outer) {
            (Some(f), _) => f,
            (None, Some(o)) => o.get(name),
            (None, None) => None,
        }
    }
}

impl<'f> Analyzer<'f> {
    /// A call of a function of the crate: its body is interpreted here, with its
    /// parameters bound to the arguments; recursion, depth and unknown callees forget.
    pub(super) fn call(
        &mut self,
        mut st: State,
        callee: &str,
        recv: Option<&Value>,
        args: &[Value],
        dst: &Place,
    ) -> Option<State> {
        let n_args = args.len() + usize::from(recv.is_some());
        let target = self.index.get(callee).filter(|c| {
            c.function.params.len() == n_args
                && self.inlined.len() < MAX_CALL_DEPTH
                && self.inlined_stmts + c.stmts <= MAX_INLINED_STMTS
                && !self.inlined.iter().any(|i| i.callee == callee)
        });
        let all: Vec<Value> = recv.into_iter().chain(args).cloned().collect();
        let Some(Callee { function: f, stmts }) = target else {
            self.forget(&mut st, &all);
            self.forget_places(&mut st, &all);
            // A function of the program not followed may change its globals.
            if self.index.defines(callee) {
                self.forget_globals(&mut st);
            }
            st.env.insert(dst.clone(), AVal::Unknown);
            return Some(st);
        };
        self.inlined_stmts += stmts;
        let offset = self.vars.len();
        self.vars.extend(f.vars.iter().cloned());
        self.enter_globals(&mut st, offset);
        let here = self.frame();
        for (param, arg) in f.params.iter().zip(&all) {
            let p = Place::var(param + offset);
            self.callee_params.insert(p.var);
            // What a method reads through its `self` (`self.ready` as a wait list) is its own
            // pick, whoever stored it there: no caller wrote it for this call.
            if matches!(self.vars[p.var].name.as_str(), "self" | "this") {
                self.callee_receivers.insert(p.var);
            } else {
                let origin = self.origin_of(arg).unwrap_or(here);
                self.param_origin.insert(p.var, origin);
            }
            // A raw pointer the caller holds (`new_event_ptr`, not `&mut ev`) given for a
            // Rust `out: *mut cl_event`: where it points is not known; the event written
            // through it is the caller's caller's.
            let out_param =
                self.vars[p.var].member == Member::Ref && self.vars[p.var].hint == TypeHint::Event;
            if let (true, Value::Place(x)) = (out_param, arg) {
                let pointer =
                    !matches!(self.vars[x.var].hint, TypeHint::Event | TypeHint::EventList)
                        && matches!(
                            self.resolve(&mut st, x, None),
                            AVal::Unknown | AVal::External | AVal::Null | AVal::Scalar
                        );
                if pointer {
                    st.env.insert(p, AVal::External);
                    continue;
                }
            }
            match arg {
                // An outside value keeps its identity; a local aggregate not known yet
                // (`Sys s; setup(&s);`) is filled in by the callee through its parameter,
                // and so is what a C pointer or C++ reference parameter names
                // (`cl_event *done`, `cl::Event &done`).
                // So does a pointer to the caller's count (`hop(.., evts, &nevts)` with
                // `cl_uint *nevts`, bumped by `(*nevts)++`).
                Value::Place(a)
                    if self.vars[p.var].member.refers()
                        || match self.resolve(&mut st, a, None) {
                            AVal::External | AVal::Unknown | AVal::Struct(_) => true,
                            // An array of the caller's handed to be filled in
                            // (`make_bands(frame, band)` of `cl_mem band[NDEV]`).
                            AVal::List(items) => items.contains(&AVal::Unknown),
                            AVal::Int(_) | AVal::Above(..) | AVal::Scalar => {
                                self.vars[p.var].hint == TypeHint::Host(HostKind::Pointer)
                            }
                            _ => false,
                        } =>
                {
                    let c = self.canonical(&self.concrete(&st, a));
                    self.ext_alias.insert(p.var, c);
                }
                _ => {
                    let v = self.eval(&mut st, arg, None, "%argument");
                    st.env.insert(p, v);
                }
            }
        }
        // The events the callee is handed (`sweeps: &[Event]`): a wait it leaves out on one of
        // them is its own doing.
        let mut handed = BTreeSet::new();
        for param in &f.params {
            let p = Place::var(param + offset);
            let v = self.resolve(&mut st, &p, None);
            events_in(&v, &mut handed);
            // `const cl_event *wait` given `ev_up`: the events its members hold.
            if let Some(base) = self.ext_alias.get(&p.var) {
                let base = self.canonical(base);
                (st.env.within(&base)).for_each(|(_, v)| events_in(v, &mut handed));
            }
        }
        let body = shift_block(&f.body, offset);
        self.frames += 1;
        // A callee with no parameter for events, and given none, cannot be handed a wait.
        let takes_events = !handed.is_empty()
            || (f.params.iter()).any(|p| {
                matches!(
                    self.vars[p + offset].hint,
                    TypeHint::Event | TypeHint::EventList
                )
            });
        if !takes_events {
            self.eventless_frames.insert(self.frames);
        }
        self.frame_events.insert(self.frames, handed);
        let shown = match method_key(callee) {
            Some((ty, m)) => format!("{ty}::{m}"),
            None => callee.rsplit("::").next().unwrap_or(callee).to_string(),
        };
        let parent = self.frame();
        self.frame_sites
            .insert(self.frames, (parent, self.cur_span, shown));
        self.inlined.push(InlineCx {
            callee: callee.to_string(),
            frame: self.frames,
            vars_from: offset,
            returns: Vec::new(),
            error_returns: Vec::new(),
            places: Vec::new(),
        });
        let declined = st.declined_wait;
        let first_inst = self.insts.len();
        let end = self.block(&body, st);
        let mut cx = self.inlined.pop()?;
        // An event the callee wrote where its caller keeps it (`cl_event *out` given
        // `&e_up`) is the caller's, as a returned one is.
        for i in first_inst..self.insts.len() {
            if self.event_home.get(&i).is_some_and(|&v| v < offset) {
                self.returned_from.insert(i, cx.frame);
            }
        }
        let mut outs = cx.returns;
        outs.extend(end.map(|s| (s, AVal::Unknown)));
        for (s, _) in outs.iter_mut().chain(cx.error_returns.iter_mut()) {
            s.declined_wait = declined;
        }
        if outs.is_empty() {
            outs = cx.error_returns;
        }
        let value = outs
            .iter()
            .map(|(_, v)| v.clone())
            .reduce(|a, b| join_val(&a, &b, &mut |_, _| None))?;
        let mut returned = BTreeSet::new();
        events_in(&value, &mut returned);
        for i in returned {
            if self.frames_of(self.insts[i].frame).contains(&cx.frame) {
                self.returned_from.insert(i, cx.frame);
            }
        }
        // Host data by the callee's declared type, however it was made.
        let value = match (value, f.returns_host) {
            (v @ AVal::Host { .. }, _) | (v, None) => v,
            (_, Some(kind)) => AVal::Host {
                kind,
                id: self.new_host(format!("{callee}()")),
            },
        };
        let mut st = self.join_all(outs.into_iter().map(|(s, _)| s).collect())?;
        // Every return gives one place from outside (`Slot &dev(size_t i) { return
        // *slots_[i]; }`): what the caller finds there is one object wherever it is named.
        let place = match cx.places.split_first() {
            Some((Some(first), rest)) if rest.iter().all(|p| p.as_ref() == Some(first)) => {
                Some(first.clone())
            }
            _ => None,
        };
        if dst.proj.is_empty() {
            self.ext_alias.remove(&dst.var);
            if let (Some(place), AVal::External) = (place, &value) {
                remove_parts(&mut st.env, dst, false);
                remove_parts(&mut self.found, dst, true);
                st.env.remove(dst);
                self.ext_alias.insert(dst.var, place);
                return Some(st);
            }
        }
        st.env.insert(dst.clone(), value);
        Some(st)
    }

    /// A closure's body run where it is called: its `return`s end it, not the function
    /// around it. A named closure's call is a frame of its own, so a finding whose cause is
    /// the call (what it passes, what ran before it) is shown on the call line.
    pub(super) fn closure(
        &mut self,
        st: State,
        name: Option<&str>,
        params: &[Var],
        body: &[Stmt],
        value: &Value,
        dst: &Place,
    ) -> Option<State> {
        let frame = match name {
            Some(n) => {
                self.frames += 1;
                let parent = self.frame();
                self.frame_sites
                    .insert(self.frames, (parent, self.cur_span, n.to_string()));
                // One that takes parameters is a helper: what it is given, its caller chose;
                // what it reaches on its own (what it captured) is its own doing.
                if params.is_empty() {
                    self.closure_frames.insert(self.frames);
                }
                for &p in params {
                    self.callee_params.insert(p);
                    self.param_origin.insert(p, parent);
                }
                self.frames
            }
            None => self.frame(),
        };
        self.inlined.push(InlineCx {
            callee: format!("|{}|", name.unwrap_or_default()),
            frame,
            vars_from: usize::MAX,
            returns: Vec::new(),
            error_returns: Vec::new(),
            places: Vec::new(),
        });
        let end = self.block(body, st);
        let cx = self.inlined.pop()?;
        let mut outs = cx.returns;
        if let Some(mut end) = end {
            let v = self.eval(&mut end, value, None, "%returned");
            outs.push((end, v));
        }
        if outs.is_empty() {
            outs = cx.error_returns;
        }
        let values: Vec<AVal> = outs.iter().map(|(_, v)| v.clone()).collect();
        let value = values
            .iter()
            .cloned()
            .reduce(|a, b| join_val(&a, &b, &mut |_, _| None))?;
        let mut st = self.join_all(outs.into_iter().map(|(s, _)| s).collect())?;
        // Exits that give different things (`Ok(None)` and `Ok(Some(event))`): which one
        // the caller holds is not known, and what it does with it may wait for them.
        if values.iter().any(|v| *v != value) {
            self.forget_vals(&mut st, &values);
        }
        st.env.insert(dst.clone(), value);
        Some(st)
    }

    /// The frame whose function a variable is a local or parameter of.
    pub(super) fn frame_of_var(&self, v: Var) -> usize {
        (self.inlined.iter().rev())
            .find(|cx| cx.vars_from <= v)
            .map_or(0, |cx| cx.frame)
    }

    /// The frames from the analyzed function (not included) in to `frame`.
    pub(super) fn frames_of(&self, mut frame: usize) -> Vec<usize> {
        let mut out = Vec::new();
        while let Some((parent, _, _)) = self.frame_sites.get(&frame) {
            out.push(frame);
            frame = *parent;
        }
        out.reverse();
        out
    }

    /// The variables of a function (from `from` on) that name globals: each stands for
    /// the variable that first held its global, which holds a value from outside the
    /// analysis until the code stores into it.
    pub(super) fn enter_globals(&mut self, st: &mut State, from: Var) {
        for v in from..self.vars.len() {
            let Some(key) = self.vars[v].global.clone() else {
                continue;
            };
            match self.globals.get(&key) {
                Some(&root) => {
                    self.ext_alias.insert(v, Place::var(root));
                }
                None => {
                    self.globals.insert(key.clone(), v);
                    let (hint, name) = (self.vars[v].hint, self.vars[v].name.clone());
                    // A count as the function finds it is the caller's (`loops::assume_count`).
                    let value = match hint {
                        TypeHint::Scalar => AVal::External,
                        _ => self.hinted(hint, &name),
                    };
                    // A kernel every function that sets the global gives the same name.
                    if let (AVal::Obj(o), TypeHint::Kernel) = (&value, hint) {
                        let o = *o;
                        let kernel = self.index.crate_kernels().kernel_of_global(&key);
                        if let Some(sig) = kernel.and_then(|k| self.kernel_sig(None, k)) {
                            self.objs[o].kind = ObjKind::Kernel { sig: Some(sig) };
                        }
                    }
                    st.env.insert(Place::var(v), value);
                }
            }
        }
    }

    /// Forgets what the globals hold: code the analysis does not follow may have changed
    /// them, and what they held.
    pub(super) fn forget_globals(&mut self, st: &mut State) {
        let roots: Vec<Var> = self.globals.values().copied().collect();
        for root in roots {
            let place = Place::var(root);
            let held: Vec<AVal> = st
                .env
                .range_from(&place)
                .take_while(|(k, _)| k.var == root)
                .map(|(_, v)| v.clone())
                .collect();
            self.forget_vals(st, &held);
            remove_parts(&mut st.env, &place, true);
            st.env.insert(place, AVal::Unknown);
        }
    }

    /// The frame being interpreted.
    pub(super) fn frame(&self) -> usize {
        self.inlined.last().map_or(0, |c| c.frame)
    }

    /// The outermost frame that wrote what the parameters `v` names hold: `None` where it
    /// names no parameter of a callee.
    pub(super) fn origin_of(&self, v: &Value) -> Option<usize> {
        match v {
            Value::Place(p) | Value::Host { base: Some(p), .. } | Value::HostAt { base: p, .. } => {
                self.param_origin.get(&p.var).copied()
            }
            Value::List(items) => items.iter().filter_map(|x| self.origin_of(x)).min(),
            _ => None,
        }
    }
}

/// The command instances whose events a value holds.
fn events_in(v: &AVal, out: &mut BTreeSet<usize>) {
    match v {
        AVal::Events(e) => out.extend(e),
        AVal::List(items) => items.iter().for_each(|i| events_in(i, out)),
        AVal::Struct(fields) => fields.values().for_each(|i| events_in(i, out)),
        _ => {}
    }
}
