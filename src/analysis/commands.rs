//! Commands and happens-before: a command resolved to its queue and buffer accesses, the
//! commands it is ordered after (same in-order queue, wait list, host syncs), and each
//! buffer access checked against earlier ones.

use super::env::Places;
use super::facts::conflict;
use super::forget::forget_uses;
use super::values::{flatten_buffers, remove_parts};
use super::*;

/// A command with its values resolved to objects.
#[derive(Debug, Default)]
pub(super) struct Resolved {
    pub(super) queue: Option<ObjId>,
    pub(super) uses: Vec<(ObjId, Mode, UseInfo)>,
    /// `None` when the wait list is not known.
    pub(super) waits: Option<BTreeSet<usize>>,
    pub(super) kernel_name: Option<String>,
    pub(super) unknown_buffers: bool,
    /// The command may also touch buffers that code outside the analysis holds (a kernel
    /// from outside, some of whose arguments were set before the function was entered).
    pub(super) outside_buffers: bool,
    /// It writes a buffer the analysis cannot name (one meant where host memory was given).
    pub(super) writes_unnamed: bool,
    /// The buffers it names through what a callee's parameter holds: its caller's.
    pub(super) given: BTreeSet<ObjId>,
    /// Some of its buffers or host data are named through a callee's parameter.
    pub(super) operands_given: bool,
    /// Some of them came through a parameter other than a method's `self`.
    pub(super) operands_handed: bool,
    /// Some of its buffers did.
    pub(super) buffers_handed: bool,
    /// The parameters whose fields the handed operands are.
    pub(super) handed_structs: BTreeSet<Var>,
    /// Some handed operand is a parameter itself, not a field of one.
    pub(super) handed_whole: bool,
    /// The wait lists given to the launch it enqueues, as written.
    pub(super) launch_waits: Vec<Value>,
}

/// Whether a value names what one of `params` holds.
pub(super) fn names_param(v: &Value, params: &HashSet<Var>) -> bool {
    match v {
        Value::Place(p) | Value::Host { base: Some(p), .. } | Value::HostAt { base: p, .. } => {
            params.contains(&p.var)
        }
        Value::List(items) => items.iter().any(|x| names_param(x, params)),
        _ => false,
    }
}

/// The variable whose field a value names (`shared.lut`, `&shared.table`).
pub(super) fn field_of(v: &Value) -> Option<Var> {
    match v {
        Value::Place(p) | Value::Host { base: Some(p), .. } | Value::HostAt { base: p, .. }
            if !p.proj.is_empty() =>
        {
            Some(p.var)
        }
        _ => None,
    }
}

/// Whether a command with host data initializes its buffer: a write of the whole buffer,
/// or a fill (whose range is part of its pattern's key).
fn initializes(kind: CommandKind, info: &UseInfo) -> bool {
    (kind == CommandKind::Write && info.whole) || kind == CommandKind::Fill
}

/// Where a queue's commands run: its device where known, else the queue itself.
fn home_of(objs: &[Obj], q: ObjId) -> ObjId {
    match objs[q].kind {
        ObjKind::Queue {
            device: Some(d), ..
        } => d,
        _ => q,
    }
}

/// An unordered earlier access to report: its order among accesses, its command instance
/// and how it uses the buffer.
type Unordered = (usize, usize, Mode);

/// One access of a buffer, and the earlier accesses of it that this one covers: any later
/// access unordered with one of those is unordered with this one too, or ordered after
/// this one, so only this one is kept where the accesses are looked through.
#[derive(Clone, Debug)]
pub(super) struct Touch {
    /// Accesses made before it in the function have lower numbers.
    pub(super) order: usize,
    pub(super) inst: usize,
    pub(super) mode: Mode,
    /// For a transfer, the offset of its region as written, when given.
    offset: Option<OffsetKey>,
    /// It and what it covers are uploads of one chain of repetitions (`Init::uploads`).
    uploads_only: bool,
    covered: Rc<Vec<Touch>>,
}

/// Two paths' copies of one access are one access (a command's accesses are made once).
impl PartialEq for Touch {
    fn eq(&self, o: &Touch) -> bool {
        self.inst == o.inst && self.mode == o.mode
    }
}

/// Covered accesses nest as deep as the commands that cover each other: they are dropped
/// one level at a time, not recursively.
impl Drop for Touch {
    fn drop(&mut self) {
        let mut stack = vec![std::mem::take(&mut self.covered)];
        while let Some(rc) = stack.pop() {
            if let Ok(list) = Rc::try_unwrap(rc) {
                for mut a in list {
                    stack.push(std::mem::take(&mut a.covered));
                }
            }
        }
    }
}

/// Commands tracked per function (each iteration of a loop counts): happens-before is
/// quadratic in them. Past this the analysis forgets what later commands touch.
const MAX_COMMANDS: usize = 10_000;

/// The command id of the instance that stands for a user event (`Analyzer::user_inst`): no
/// command of the code has it.
const USER_EVENT: usize = usize::MAX;

impl<'f> Analyzer<'f> {
    /// The buffers whose bytes overlap `b`'s, other than `b`: its parent and its
    /// sub-buffers.
    fn overlapping(&self, b: ObjId) -> Vec<ObjId> {
        (self.parents.get(&b).copied())
            .into_iter()
            .chain(
                (self.parents.iter())
                    .filter(|(_, p)| **p == b)
                    .map(|(c, _)| *c),
            )
            .collect()
    }

    /// Marks an instance and everything before it complete.
    pub(super) fn complete(&mut self, st: &mut State, i: usize) {
        st.completed.insert(i);
        let before = self.insts[i].before.clone();
        st.completed.union_with(&before);
    }

    pub(super) fn complete_queue(&mut self, st: &mut State, q: ObjId) {
        let all = self.queue_closure(st, q);
        st.completed.union_with(&all);
    }

    /// The instances on queue `q` and every instance ordered before one of them. Taken from
    /// the last instance down: one that an earlier-taken `before` holds adds nothing (`before`
    /// is closed), so an in-order queue takes one union, not one per command.
    fn queue_closure(&self, st: &State, q: ObjId) -> BitSet {
        let mut all = BitSet::default();
        if let Some(on) = st.on_queue.get(&q) {
            while let Some(i) = on.last_not_in(&all) {
                all.insert(i);
                all.union_with(&self.insts[i].before);
            }
        }
        all
    }

    /// Instances a wait list names; `None` when it is not known.
    pub(super) fn wait_set(&mut self, st: &mut State, v: &Value) -> Option<BTreeSet<usize>> {
        // A list with events stored at members not known (`&moved[n]` given to a helper
        // that fills `ev[0]` and `ev[1]`): which events it holds is not known.
        let lists = match v {
            Value::List(items) => items.as_slice(),
            _ => std::slice::from_ref(v),
        };
        for l in lists {
            let Value::Place(p) = l else { continue };
            let p = self.canonical(&self.concrete(st, p));
            let stored_somewhere = st.env.within(&p).any(|(k, _)| !k.is_definite());
            if stored_somewhere {
                return None;
            }
        }
        self.reading_events = true;
        let a = self.eval(st, v, Some(RoleHint::Event), "events");
        self.reading_events = false;
        let (mut out, mut users) = (BTreeSet::new(), Vec::new());
        fn walk(a: &AVal, objs: &[Obj], out: &mut BTreeSet<usize>, users: &mut Vec<ObjId>) -> bool {
            match a {
                AVal::Events(s) => {
                    out.extend(s);
                    true
                }
                AVal::List(items) => items.iter().all(|i| walk(i, objs, out, users)),
                AVal::Obj(o) if matches!(objs[*o].kind, ObjKind::UserEvent) => {
                    users.push(*o);
                    true
                }
                AVal::Null | AVal::Scalar | AVal::Int(_) | AVal::Above(..) => true,
                _ => false,
            }
        }
        let known = walk(&a, &self.objs, &mut out, &mut users);
        // A user event is its instance.
        out.extend(users.into_iter().map(|o| self.user_inst(o)));
        known.then_some(out)
    }

    /// New host data of its own at a place, named by it.
    fn host_at(&mut self, st: &mut State, p: Place) -> HostId {
        let id = self.new_host(self.place_name(&p));
        let v = AVal::Host {
            kind: HostKind::Pointer,
            id,
        };
        st.env.insert(p, v);
        id
    }

    /// Whether the region of a buffer a transfer moves is at an offset, not a number as
    /// written, that the analysis computes to be 0 (`bytes * dst_row` of a helper given 0).
    /// A region written from 0 is a `from_zero` key already.
    fn at_zero(&mut self, st: &mut State, bu: &BufferUse) -> bool {
        (bu.offset_value.as_ref()).is_some_and(|v| self.eval(st, v, None, "offset") == AVal::Int(0))
    }

    /// Where a queue's commands run: its device where known, else the queue itself.
    pub(super) fn home(&self, q: ObjId) -> ObjId {
        home_of(&self.objs, q)
    }

    /// The host data a fill's constant pattern and range stand for: data that never
    /// changes, one per key.
    pub(super) fn pattern_host(&mut self, key: &str, text: &str) -> HostId {
        if let Some(&id) = self.patterns.get(key) {
            return id;
        }
        let id = self.new_host(text.to_string());
        self.patterns.insert(key.to_string(), id);
        id
    }

    /// Where instance `late`, of another thread than the one being followed, was made past
    /// a pass of a host barrier that this thread has yet to arrive at: the barrier and the
    /// pass this thread arrives at next. The host then makes what this thread makes now
    /// first.
    fn barrier_ahead(&self, late: usize) -> Option<(Place, usize)> {
        let l = &self.insts[late];
        if l.thread == self.thread_now {
            return None;
        }
        (l.passed.iter())
            .map(|(b, &p)| (b, self.passed.get(b).copied().unwrap_or(0), p))
            .find(|(_, now, p)| now < p)
            .map(|(b, now, _)| (b.clone(), now + 1))
    }

    /// A command as written and the call it was reached through in the function analyzed
    /// (`download(..)` on two lines is two commands to report on, the passes of one loop
    /// over one line are one).
    pub(super) fn site_key(&mut self, inst: usize) -> usize {
        let site = (self.frames_of(self.insts[inst].frame).first())
            .and_then(|f| self.frame_sites.get(f))
            .map(|(_, span, _)| (span.file, span.start));
        let key = (self.insts[inst].cmd.id, site);
        let next = self.site_keys.len();
        *self.site_keys.entry(key).or_insert(next)
    }

    /// The races deferred to a pass of a barrier (`None`: to the end of the thread being
    /// followed), with what that thread knows complete there: an early access not
    /// complete races its late one.
    pub(super) fn settle_races(&mut self, at: Option<(&Place, usize)>, completed: &BitSet) {
        let thread = self.thread_now;
        let (due, rest): (Vec<Deferred>, Vec<Deferred>) = std::mem::take(&mut self.deferred)
            .into_iter()
            .partition(|d| {
                self.insts[d.early].thread == thread
                    && at.is_none_or(|(b, p)| d.at.0 == *b && d.at.1 == p)
            });
        self.deferred = rest;
        for d in due.into_iter().filter(|d| !completed.contains(d.early)) {
            self.report_unordered((d.early, d.early_mode), (d.late, d.late_mode), d.buffer);
        }
    }

    /// Reports two conflicting accesses of `buffer` found unordered where a deferred check
    /// is settled: once per pair of commands as written and per queue.
    fn report_unordered(&mut self, early: (usize, Mode), late: (usize, Mode), buffer: ObjId) {
        let (pq, cq) = (self.insts[early.0].queue, self.insts[late.0].queue);
        let (e, l) = (self.site_key(early.0), self.site_key(late.0));
        if self.seen.insert((3, e, cq)) && self.seen.insert((9, l, pq)) {
            self.unordered.push((early.0, late.0));
            self.raw.push(RawFact::Unordered {
                producer: early.0,
                pm: early.1,
                consumer: late.0,
                cm: late.1,
                buffer,
            });
        }
    }

    /// For conflicting instances `a` and `i` (whose happens-before set is `before_i`): a
    /// user event not set yet that one of them is behind and the other is not, and that
    /// other.
    fn gate_between(&self, a: usize, i: usize, before_i: &BitSet) -> Option<(usize, usize)> {
        self.open_gates.iter().find_map(|&u| {
            match (self.insts[a].before.contains(u), before_i.contains(u)) {
                (true, false) => Some((u, i)),
                (false, true) => Some((u, a)),
                _ => None,
            }
        })
    }

    /// The instance that stands for user event `o` (made at its first use).
    pub(super) fn user_inst(&mut self, o: ObjId) -> usize {
        if let Some(&u) = self.user_insts.get(&o) {
            return u;
        }
        let u = self.insts.len();
        let name = self.objs[o].name.clone();
        self.insts.push(Inst {
            cmd: Command {
                id: USER_EVENT,
                api: "user event".into(),
                binding: String::new(),
                kind: CommandKind::Marker,
                queue: Value::Unknown,
                queue_arg: None,
                buffers: Vec::new(),
                kernel: None,
                waits: None,
                wait_arg: None,
                blocking: Blocking::No,
                flags_arg: None,
                flags: None,
                raw_event: false,
                work_offset: false,
                span: self.cur_span,
            },
            queue: o,
            queue_name: name,
            before: BitSet::default(),
            kernel: None,
            frame: self.frame(),
            waits_given: false,
            list_given: false,
            wait_from: None,
            flags_from: None,
            operands_given: false,
            receiver_only: false,
            buffers_own: false,
            queue_given: false,
            given: BTreeSet::new(),
            thread: self.thread_now,
            passed: self.passed.clone(),
            after_message: false,
            pass: None,
            waits_unknown: false,
        });
        self.user_insts.insert(o, u);
        self.open_gates.insert(u);
        u
    }

    /// The host sets user event `o`: what it knows complete now happens before every
    /// command behind the event, and the races deferred to it are settled: one whose other
    /// access is not complete is reported.
    pub(super) fn signal(&mut self, st: &mut State, o: ObjId) {
        let u = self.user_inst(o);
        if !self.open_gates.remove(&u) {
            return;
        }
        let done = st.completed.clone();
        for inst in &mut self.insts {
            if inst.before.contains(u) {
                inst.before.union_with(&done);
            }
        }
        st.completed.insert(u);
        self.settle_gates(Some(u), Some(&st.completed));
    }

    /// The host sets a user event, with `completed` what it knows complete then: the
    /// conflicts kept on `gate` (`None`: those with a command whose wait list is not known,
    /// for which any gate will do) are reported where the other command is not complete,
    /// and dropped where it is. With no `completed`, the function ends and no user event
    /// was set after them: each is reported.
    pub(super) fn settle_gates(&mut self, gate: Option<usize>, completed: Option<&BitSet>) {
        let (due, rest): (Vec<Gated>, Vec<Gated>) = std::mem::take(&mut self.gated)
            .into_iter()
            .partition(|g| g.gate == gate);
        self.gated = rest;
        for g in due
            .into_iter()
            .filter(|g| completed.is_none_or(|c| !c.contains(g.other)))
        {
            self.report_unordered((g.early, g.early_mode), (g.late, g.late_mode), g.buffer);
        }
    }

    pub(super) fn same_device(&self, a: ObjId, b: ObjId) -> bool {
        self.home(a) == self.home(b)
    }

    /// Resolves a lowered command's queue, buffers, wait list and kernel arguments.
    fn resolve_cmd(&mut self, st: &mut State, cmd: &Command) -> Resolved {
        let queue = match self.eval(st, &cmd.queue, Some(RoleHint::Queue), "queue") {
            AVal::Obj(q) if matches!(self.objs[q].kind, ObjKind::Queue { .. }) => Some(q),
            _ => None,
        };
        let mut r = Resolved {
            queue,
            ..Resolved::default()
        };
        let flags_to_host = cmd.flags.as_ref().is_some_and(
            |f| matches!(self.eval(st, f, None, "flags"), AVal::Int(n) if n & MIGRATE_TO_HOST != 0),
        );
        for bu in &cmd.buffers {
            let a = self.eval(st, &bu.buffer, Some(RoleHint::Buffer), "buffer");
            let mut found = Vec::new();
            flatten_buffers(&a, &self.objs, &mut found, &mut r.unknown_buffers);
            // What a method reaches through its own `self` it chose itself; what it was
            // handed, its caller chose.
            let handed = |v: &Value| {
                names_param(v, &self.callee_params) && !names_param(v, &self.callee_receivers)
            };
            if names_param(&bu.buffer, &self.callee_params) {
                r.given.extend(found.iter().copied());
                r.operands_given = true;
            }
            if (bu.host.as_ref()).is_some_and(|h| names_param(h, &self.callee_params)) {
                r.operands_given = true;
            }
            let buffer_handed = handed(&bu.buffer);
            r.buffers_handed |= buffer_handed;
            if buffer_handed || bu.host.as_ref().is_some_and(handed) {
                r.operands_handed = true;
            }
            // Handed as fields of a struct parameter (`shared.lut`, `shared.table`), or as
            // parameters of their own.
            for v in std::iter::once(&bu.buffer)
                .chain(&bu.host)
                .filter(|v| handed(v))
            {
                match field_of(v) {
                    Some(var) => {
                        r.handed_structs.insert(var);
                    }
                    None => r.handed_whole = true,
                }
            }
            let mode = match bu.access {
                Access::Read => Mode::Read,
                Access::Write | Access::ReadWrite => Mode::Write,
                Access::Migrate { .. } => Mode::Migrate,
            };
            let host = match (&bu.host, &bu.pattern) {
                (Some(h), _) => match self.eval(st, h, None, "host") {
                    AVal::Host { id, .. } => Some(id),
                    // Memory from outside given as a command's host pointer (`const void
                    // *host` of a library's upload helper): host data of its own, the same
                    // wherever that place is named until something changes it.
                    AVal::External => match h {
                        Value::Place(p) => {
                            let p = self.canonical(&self.concrete(st, p));
                            Some(self.host_at(st, p))
                        }
                        _ => None,
                    },
                    // `clusters[0]` of host data `float **clusters`: a pointer kept in host
                    // memory, to data of its own, the same wherever that member is named
                    // until something changes it.
                    _ => match h {
                        Value::Place(p) => {
                            let p = self.canonical(&self.concrete(st, p));
                            let mut base = p.clone();
                            let member = matches!(base.proj.pop(), Some(Proj::Index(_)));
                            match (member, st.env.get(&base)) {
                                (true, Some(AVal::Host { .. })) => Some(self.host_at(st, p)),
                                _ => None,
                            }
                        }
                        _ => None,
                    },
                },
                (None, Some(p)) => Some(self.pattern_host(&p.key, &p.text)),
                (None, None) => None,
            };
            let info = UseInfo {
                to_host: match bu.access {
                    Access::Migrate { to_host } => to_host || flags_to_host,
                    _ => false,
                },
                whole: bu.whole,
                offset: (bu.offset.as_deref().map(OffsetKey::of))
                    .or_else(|| bu.size.as_deref().map(OffsetKey::from_zero)),
                at_zero: self.at_zero(st, bu),
                host,
            };
            r.uses.extend(found.into_iter().map(|b| (b, mode, info)));
        }
        r.waits = match &cmd.waits {
            Some(ws) => {
                let mut all = Some(BTreeSet::new());
                for w in ws {
                    match (self.wait_set(st, w), all.as_mut()) {
                        (Some(s), Some(a)) => a.extend(s),
                        _ => all = None,
                    }
                }
                all
            }
            None => None,
        };
        if cmd.kind == CommandKind::Kernel {
            let k = match &cmd.kernel {
                Some(v) => self.eval(st, v, Some(RoleHint::Kernel), "kernel"),
                None => AVal::Unknown,
            };
            self.add_launch(st, &k, cmd.span, cmd.work_offset, &mut r);
        }
        r
    }

    pub(super) fn enqueue(&mut self, st: &mut State, cmd: &Command, event: Option<&Place>) {
        let r = self.resolve_cmd(st, cmd);
        // `&ev[i]`: the element `i` names where it is known, in the caller's place when
        // written through a callee's parameter.
        // A pointer parameter the caller passed a null pointer for: no event is made.
        let null_ptr = |a: &Self, e: &Place| {
            e.proj.is_empty()
                && a.vars[e.var].member.refers()
                && !a.ext_alias.contains_key(&e.var)
                && st.env.get(e) == Some(&AVal::Null)
        };
        let event = event.filter(|e| !null_ptr(self, e));
        // Written through a method's `self` (`&mut self.done`): the struct's event, not
        // the caller's.
        let through_self = event.is_some_and(|e| self.callee_receivers.contains(&e.var));
        let event = event.map(|e| self.canonical(&self.concrete(st, e)));
        let i = self.insts.len();
        self.push_command(st, cmd.clone(), r, event.as_ref());
        if let (Some(e), false, true) = (&event, through_self, self.insts.len() > i) {
            self.event_home.insert(i, e.var);
        }
    }

    /// Records one command instance: its happens-before set, what it does to each buffer,
    /// host syncs it implies and where its event goes.
    pub(super) fn push_command(
        &mut self,
        st: &mut State,
        cmd: Command,
        mut r: Resolved,
        event: Option<&Place>,
    ) {
        if trace::on() {
            let uses: Vec<String> = (r.uses.iter())
                .map(|(b, m, _)| format!("{} {m:?}", self.objs[*b].name))
                .collect();
            trace::line(format!(
                "  #{} {} on {}: [{}] waits {:?}{}{}",
                self.insts.len(),
                cmd.api,
                r.queue.map_or("?".into(), |q| self.objs[q].name.clone()),
                uses.join(", "),
                r.waits,
                if r.unknown_buffers {
                    ", other buffers not known"
                } else {
                    ""
                },
                if r.outside_buffers {
                    ", outside buffers"
                } else {
                    ""
                },
            ));
        }
        let named = r.uses.iter().map(|(b, _, _)| *b).collect();
        if r.unknown_buffers || r.writes_unnamed {
            self.forget_unnamed_buffers(st, &named, cmd.kind.is_device_use());
        } else if r.outside_buffers {
            self.forget_outside_buffers(st, &named, cmd.kind.is_device_use());
        }
        let within_budget = self.insts.len() < MAX_COMMANDS;
        // A command on a queue not known (`queues[l].0` of a wrapper a `macro_rules!` of
        // the file defines) still makes a raw event to release, and an upload on one still
        // leaves its host data in its buffers (`w.queue` of workers not known, each writing
        // the shared table again): it is followed as a command on a queue of its own that
        // comes after everything made so far, so that only its event and what its uploads
        // leave count. It is ordered with nothing: how its buffers were used is forgotten.
        let uploads = r.uses.iter().any(|(_, mode, info)| {
            *mode == Mode::Write && info.host.is_some() && initializes(cmd.kind, info)
        });
        // So does a device command on one that uses a buffer migrated to the host (CLM002).
        let after_host_move = cmd.kind.is_device_use()
            && (r.uses.iter()).any(|(b, _, _)| st.pending_host.contains_key(b));
        let untracked = r.queue.is_none()
            && within_budget
            && (uploads || after_host_move || (cmd.raw_event && event.is_some()));
        if untracked {
            if !uploads && !after_host_move {
                for (b, _, _) in &r.uses {
                    self.forget_buffer(st, *b);
                }
                r.uses.clear();
            }
            r.waits = None;
            let q = *self.unknown_queue.get_or_insert_with(|| {
                self.objs.push(Obj {
                    kind: ObjKind::Queue {
                        device: None,
                        ooo: false,
                    },
                    name: "a queue not known".into(),
                    made_in: 0,
                    member: None,
                });
                self.objs.len() - 1
            });
            r.queue = Some(q);
        }
        // Past the budget a command is one the analysis cannot follow.
        let q = r.queue.filter(|_| within_budget);
        let Some(q) = q else {
            for (b, _, _) in &r.uses {
                self.forget_buffer(st, *b);
            }
            if let Some(e) = event {
                let ev = match self.untracked_event {
                    Some(ev) => ev,
                    None => {
                        let ev = self.new_obj(ObjKind::UntrackedEvent, "event".into());
                        self.untracked_event = Some(ev);
                        ev
                    }
                };
                st.env.insert(e.clone(), AVal::Obj(ev));
            }
            return;
        };
        let i = self.insts.len();
        let mut before = st.completed.clone();
        match &r.waits {
            Some(ws) => {
                for &w in ws {
                    before.insert(w);
                    before.union_with(&self.insts[w].before);
                }
            }
            None => before.union_with(&st.trace),
        }
        // Behind its user events, which are no commands: its wait list is what else it has.
        if let Some(ws) = r.waits.as_mut() {
            ws.retain(|w| self.insts[*w].cmd.id != USER_EVENT);
        }
        let ooo = matches!(self.objs[q].kind, ObjKind::Queue { ooo: true, .. });
        if let Some(t) = st.tail.get(&q) {
            before.union_with(t);
        }
        if matches!(cmd.kind, CommandKind::Barrier | CommandKind::Marker)
            && r.waits.as_ref().is_some_and(|w| w.is_empty())
        {
            before.union_with(&self.queue_closure(st, q));
        }
        let (kind, blocking, raw) = (cmd.kind, cmd.blocking, cmd.raw_event);
        // Its buffers or host data came from the caller (or a named closure captured them).
        let frame = self.frame();
        let in_closure = self.closure_frames.contains(&frame);
        // Events the caller gave, of which the callee waits for some: named through a
        // parameter, or made outside the called function and reached through what it was
        // given (`let waits = [mine, sh.ready]`). A closure's code is its caller's.
        // Not where every event it waits for is the caller's (`launch(q, k, &[ew])` passing
        // the list through): the caller chose them all.
        let in_helper = frame != 0 && !in_closure;
        let own = |i: usize| self.frames_of(self.insts[i].frame).contains(&frame);
        // The wait lists as written: the command's own and those given to its launch.
        let lists: Option<Vec<&Value>> =
            (cmd.waits.as_ref()).map(|w| w.iter().chain(&r.launch_waits).collect());
        let written = lists.iter().flatten().copied();
        let waits_given = r.waits.as_ref().is_some_and(|w| {
            let (mine, outside) = (w.iter().any(|&i| own(i)), w.iter().any(|&i| !own(i)));
            !w.is_empty()
                && (!in_helper || mine)
                && ((outside && in_helper)
                    || written.clone().any(|w| names_param(w, &self.callee_params)))
        });
        // Its wait list is a parameter as the function got it (`nwait, wait` handed down),
        // or a local copy of it, extended or not (`deps = wait.to_vec(); deps.push(..)`).
        let list_given = in_helper
            && lists.as_ref().is_some_and(|w| {
                !w.is_empty()
                    && w.iter().all(|x| match x {
                        Value::Place(p) if p.proj.is_empty() => {
                            names_param(x, &self.callee_params)
                                || self.param_copies.contains(&p.var)
                        }
                        _ => false,
                    })
            });
        let operands_given = r.operands_given || in_closure;
        // Its own fields, or the fields of one struct it was given (`shared.lut` written
        // from `shared.table`): the function's own pick of both.
        let one_struct = r.handed_structs.len() == 1 && !r.handed_whole;
        let receiver_only = r.operands_given && (!r.operands_handed || one_struct) && !in_closure;
        let buffers_own = !r.given.is_empty() && !r.buffers_handed && !in_closure;
        // Through a method's `self`: the method's own pick.
        let queue_given = in_closure
            || (names_param(&cmd.queue, &self.callee_params)
                && !names_param(&cmd.queue, &self.callee_receivers));
        // A wait declined because the caller gave nothing to wait for (`if let Some(ev) =
        // upload { wait.push(..) }` given `None`): the caller wrote the wait list.
        let waits_nothing = r.waits.as_ref().is_some_and(BTreeSet::is_empty);
        let wait_from = written.filter_map(|w| self.origin_of(w)).min().or(st
            .declined_wait
            .filter(|_| lists.as_ref().is_none_or(Vec::is_empty) || waits_nothing));
        let flags_from = cmd.flags.as_deref().and_then(|f| self.origin_of(f));
        // A queue not known is named as the code writes it (`s.queue`, `w.queue()`).
        let written = (cmd.queue_arg.as_ref())
            .filter(|_| untracked)
            .map(|a| a.text.clone());
        let queue_name = (written.or_else(|| self.shown.get(&q).cloned()))
            .unwrap_or_else(|| self.objs[q].name.clone());
        self.latest.insert(cmd.id, self.insts.len());
        self.insts.push(Inst {
            cmd,
            queue: q,
            queue_name,
            before: before.clone(),
            kernel: r.kernel_name,
            frame: self.frame(),
            waits_given,
            list_given,
            wait_from,
            flags_from,
            operands_given,
            receiver_only,
            buffers_own,
            queue_given,
            given: r.given.clone(),
            thread: self.thread_now,
            passed: self.passed.clone(),
            after_message: self.messaged.contains(&self.thread_now),
            pass: self.loops.last().map(|l| l.serial),
            waits_unknown: r.waits.is_none(),
        });
        if untracked {
            for (b, mode, info) in &r.uses {
                self.follow_host_move(st, i, *b, info);
                forget_uses(st, *b);
                self.record_init(st, i, *b, *mode, info);
            }
            r.uses.clear();
        }
        let named: Vec<ObjId> = r.uses.iter().map(|(b, _, _)| *b).collect();
        for b in &named {
            self.touch_element(st, *b, &named);
        }
        for (b, mode, info) in &r.uses {
            // The host writes a region mapped for writing between the map and the unmap, and
            // the buffer holds what it wrote once the unmap has run: the map reads the buffer,
            // the unmap writes it.
            let mode = match kind {
                CommandKind::Map if *mode == Mode::Write => {
                    st.mapped_for_write.insert(*b);
                    Mode::Read
                }
                CommandKind::Unmap if st.mapped_for_write.remove(b) => Mode::Write,
                _ => *mode,
            };
            self.check_buffer(st, i, q, *b, mode, info);
        }
        st.trace.insert(i);
        st.on_queue.entry(q).or_default().insert(i);
        if !ooo || kind == CommandKind::Barrier {
            let mut t = before;
            t.insert(i);
            st.tail.insert(q, t);
        }
        // A blocking read or map returns once the command has completed. A blocking write
        // does not complete anything: clEnqueueWriteBuffer with `blocking_write` "copies the
        // data referred to by ptr and enqueues the write operation in the command-queue. The
        // memory pointed to by ptr can be reused by the application after the
        // clEnqueueWriteBuffer call returns" (OpenCL 3.0): the host may reuse its data, and
        // the write is merely enqueued.
        if blocking != Blocking::No && kind != CommandKind::Write {
            self.complete(st, i);
        }
        if let Some(e) = event {
            let ev = AVal::Events(BTreeSet::from([i]));
            if let Some(AVal::List(items)) = st.env.get_mut(e) {
                // `enew(&mut event_list)` appends.
                items.push(ev);
            } else if !e.is_definite() {
                // `&ev[k]` at an index not known: any element may be the one written, so
                // what the list's elements hold is no longer known.
                remove_parts(&mut st.env, &e.definite_base(), true);
            } else {
                self.overwrite(st, e);
                let name = self.place_name(e);
                if !name.starts_with('%') {
                    // Also in the caller whose variable it is (`zero(q, b, &ev_zero)` writing
                    // through its `cl_event *done`): named there as the caller wrote it.
                    for frame in [self.frame(), self.frame_of_var(e.var)] {
                        self.event_vars.entry((i, frame)).or_insert(name.clone());
                    }
                }
                // What the place held before (an outside event) it holds no more.
                remove_parts(&mut self.found, e, true);
                // A field of a struct made here: the struct holds it too (`after({&node})`
                // reads `node` whole).
                st.env.store(e.clone(), ev);
            }
            if raw {
                st.live_raw.insert(RawKey::Inst(i));
                // Written into an element of the caller's array (`&ev[i]` of a parameter):
                // the caller's to release.
                let root = self.canonical(&Place::var(e.var));
                // Written through a pointer the caller did not say where it points.
                let through_pointer = self.callee_params.contains(&root.var)
                    && self.vars[root.var].member == Member::Ref
                    && !self.ext_alias.contains_key(&root.var);
                // Written into a struct's field where a type of the crate releases its
                // event when dropped (`&mut ev.0` of an `Ev` wrapper): the struct's.
                let root_outside = through_pointer
                    || self.kept_by_drop(e)
                    || self.outside_global(root.var)
                    || self.params.contains(&root.var) && self.vars[root.var].member.refers()
                    || !e.proj.is_empty()
                        && (self.params.contains(&root.var)
                            // A `static` of the file that `main` owns holds nothing from
                            // outside before `main` stores into it.
                            || self.vars[root.var].global.is_none()
                                && st.env.get(&root).is_none_or(|r| *r == AVal::External));
                if root_outside {
                    self.hand_on(st, &AVal::Events(BTreeSet::from([i])));
                } else if e.proj.iter().any(|p| !matches!(p, Proj::Field(_))) {
                    // An element of the function's own array (`&done[d]`): a release of one
                    // at an index not known may be this one, a release of another array's
                    // element is not.
                    st.in_arrays.insert(InArray {
                        at: self.canonical(e).at_any_index(),
                        inst: i,
                        unbound: !e.is_definite(),
                        read: false,
                    });
                }
            }
        }
    }

    /// A command on an element at an index not known may be on any of its members, and one
    /// on a member on that element: what was known of the others no longer holds.
    fn touch_element(&mut self, st: &mut State, b: ObjId, named: &[ObjId]) {
        if self.elements.is_empty() {
            return;
        }
        let others: Vec<ObjId> = match self.elements.get(&b) {
            Some(members) => members.clone(),
            None => (self.elements.iter())
                .filter(|(_, ms)| ms.contains(&b))
                .map(|(e, _)| *e)
                .collect(),
        };
        // One the command names itself is checked, and its state updated, as itself.
        for o in others.into_iter().filter(|o| !named.contains(o)) {
            self.forget_buffer(st, o);
        }
    }

    /// What a command leaves in `b` of host data: an upload from host data (`initializes`)
    /// holds it, another write leaves what the buffer holds unknown; a second upload of what
    /// it already holds is CLM004. A read's host data is filled from the buffer.
    fn record_init(&mut self, st: &mut State, i: usize, b: ObjId, mode: Mode, info: &UseInfo) {
        let (kind, cmd_id, cmd_span) = {
            let c = &self.insts[i].cmd;
            (c.kind, c.id, c.span)
        };
        let host = info.host.filter(|_| initializes(kind, info));
        match (mode, host) {
            (Mode::Write, Some(h)) => {
                let version = self.host_version(st, h);
                let mut uploads = Rc::default();
                let mut repeats = false;
                // Another host thread's upload of the same bytes (each thread of an
                // `omp parallel for` uploading one table): this one repeats it.
                let held = (st.init.remove(&b))
                    .or_else(|| self.other_thread_upload(st, i, b, h, version).cloned());
                if let Some(init) = held {
                    if init.host == h && init.version == version {
                        repeats = true;
                        if self.seen.insert((4, cmd_id, 0)) {
                            self.raw.push(RawFact::Reinit {
                                write: i,
                                first: Init {
                                    uploads: Rc::default(),
                                    ..init.clone()
                                },
                                buffer: b,
                            });
                        }
                        uploads = init.uploads;
                    }
                }
                Rc::make_mut(&mut uploads).push(i);
                (self.upload_fresh).insert((cmd_id, self.insts[i].frame, b), !repeats);
                if repeats {
                    self.rewrites.insert(i, uploads.clone());
                }
                let init = Init {
                    host: h,
                    version,
                    site: cmd_span,
                    queue: Some(self.insts[i].queue_name.clone()),
                    frames: self.frames_of(self.insts[i].frame),
                    uploads,
                };
                if let (Some(t), true) = (self.insts[i].thread, info.whole) {
                    (self.thread_uploads)
                        .entry((b, h, version))
                        .or_insert_with(|| (t, init.clone()));
                }
                st.init.insert(b, init);
                st.host_buffers.entry(h).or_default().insert(b);
            }
            (Mode::Write | Mode::MaybeWrite, _) => {
                st.init.remove(&b);
            }
            _ => {}
        }
        if kind == CommandKind::Read {
            if let Some(h) = info.host {
                st.host_buffers.entry(h).or_default().insert(b);
            }
        }
    }

    /// A pending migration of `b` to the host, now followed by command `i`'s use of it: a
    /// device use (a kernel, fill or copy, a migration to a device) is CLM002.
    fn follow_host_move(&mut self, st: &mut State, i: usize, b: ObjId, info: &UseInfo) {
        let kind = self.insts[i].cmd.kind;
        let device_use = kind.is_device_use() || (kind == CommandKind::Migrate && !info.to_host);
        let Some(ms) = st.pending_host.remove(&b) else {
            return;
        };
        if !device_use {
            return;
        }
        // One the host waited for has done what the flag is for: the host had the buffer
        // (`CL_MEM_USE_HOST_PTR` memory it then reads in place, or one from outside, which
        // may be such). Not one made here otherwise: the host reaches that only through a
        // command.
        let root = self.parents.get(&b).copied().unwrap_or(b);
        let in_place = self.in_place.contains(&root) || self.outside.contains(&root);
        for m in ms
            .into_iter()
            .filter(|&m| !(in_place && st.completed.contains(m)))
        {
            if self.seen.insert((2, self.insts[m].cmd.id, 0)) {
                self.raw.push(RawFact::HostMigration {
                    migration: m,
                    next: i,
                    buffer: b,
                });
            }
        }
    }

    /// The upload of the same version of host data `h` into the whole of `b` that a host
    /// thread other than command `i`'s made on this path (one of the buffer's accesses
    /// here, or of what they cover).
    fn other_thread_upload(
        &self,
        st: &State,
        i: usize,
        b: ObjId,
        h: HostId,
        version: u32,
    ) -> Option<&Init> {
        let thread = self.insts[i].thread?;
        let (t, init) = self.thread_uploads.get(&(b, h, version))?;
        let upload = *init.uploads.last()?;
        if *t == thread {
            return None;
        }
        let mut stack: Vec<&Touch> = st.accesses.get(&b)?.iter().collect();
        // Paths that fork and join share what their accesses cover: each once.
        let mut seen: HashSet<*const Vec<Touch>> = HashSet::new();
        while let Some(x) = stack.pop() {
            if x.inst == upload {
                return Some(init);
            }
            if seen.insert(Rc::as_ptr(&x.covered)) {
                stack.extend(x.covered.iter());
            }
        }
        None
    }

    fn check_buffer(
        &mut self,
        st: &mut State,
        i: usize,
        q: ObjId,
        b: ObjId,
        mode: Mode,
        info: &UseInfo,
    ) {
        let kind = self.insts[i].cmd.kind;
        // Races with earlier accesses: report the latest unordered ones, since waiting on
        // them orders the earlier ones too.
        let before = self.insts[i].before.clone();
        // A second upload of the data the buffer already holds (CLM004) does not race with
        // the uploads it repeats: any order leaves the same bytes.
        let held = info
            .host
            .filter(|_| initializes(kind, info) && mode == Mode::Write)
            .and_then(|h| {
                let version = self.host_version(st, h);
                st.init
                    .get(&b)
                    .filter(|init| init.host == h && init.version == version)
                    .or_else(|| self.other_thread_upload(st, i, b, h, version))
                    .map(|init| init.uploads.clone())
            });
        let repeats: Rc<Vec<usize>> = held.clone().unwrap_or_default();
        // Nor does it race with a read, or with another such upload (threads that each
        // upload the table the buffer was made from): it leaves the bytes as they were, and a
        // read does not race with such an upload either (what it covers still may).
        let rewrite = held.is_some();
        // A read ordered after a repeated upload of the data the buffer holds, with no
        // other write since, reads those bytes whatever the uploads it repeats do: they
        // write the same (each device's upload of one table, the first on another queue).
        let only_uploads = |chain: &[usize]| {
            (st.accesses.get(&b).into_iter().flatten())
                .all(|t| t.mode == Mode::Read || chain.binary_search(&t.inst).is_ok())
        };
        let same_bytes: Vec<usize> = match mode {
            Mode::Read => (self.rewrites.iter())
                .filter(|(r, chain)| {
                    (before.contains(**r) || st.completed.contains(**r)) && only_uploads(chain)
                })
                .flat_map(|(_, chain)| chain.iter().copied())
                .collect(),
            _ => Vec::new(),
        };
        let insts = &self.insts;
        let objs = &self.objs;
        let (part_writers, elements) = (&self.part_writers, &self.elements);
        // Whether the device of `queue` writes a part of this buffer or of the buffer `x` an
        // access is of, or of every buffer one of them may be (`if even { &a } else { &b }`).
        let own_part = |queue: ObjId, x: ObjId| {
            let home = home_of(objs, queue);
            let writes = |o: &ObjId| part_writers.get(o).is_some_and(|w| w.contains(&home));
            [b, x].iter().any(|o| match elements.get(o) {
                Some(members) => members.iter().all(writes),
                None => writes(o),
            })
        };
        let places_part = |k: CommandKind| matches!(k, CommandKind::Write | CommandKind::Fill);
        // Whether a command is on another device than this one, or made in another pass of
        // a loop.
        let elsewhere = |other: usize| {
            home_of(objs, insts[other].queue) != home_of(objs, q)
                || (insts[other].pass.is_some() && insts[other].pass != insts[i].pass)
        };
        // The accesses a covered one stands for are looked at only where the covering one
        // is ordered before this one and what it covers may not be (after a join, an
        // access that exists on one path only can be ordered when the ones before it are
        // not), or where the covering one is skipped (a repeated upload, this command).
        let mut unordered: Vec<Unordered> = Vec::new();
        // A sub-buffer is a region of its parent: the accesses of one are accesses of the
        // other (those of two sub-buffers of one parent are not: their regions may not
        // overlap).
        let related = self.overlapping(b);
        // Each with the access that stands for it, where it is looked at only through an
        // unordered access that does not conflict with this one (a write of the cell beside
        // the one read, a migration): waiting for that one orders it too, and says so.
        let mut stack: Vec<(&Touch, ObjId, Option<Unordered>)> = std::iter::once(b)
            .chain(related)
            .filter_map(|x| Some((x, st.accesses.get(&x)?)))
            .flat_map(|(x, l)| l.iter().rev().map(move |t| (t, x, None)))
            .collect();
        // Paths that fork and join share what their accesses cover: each once.
        let mut seen: HashSet<*const Vec<Touch>> = HashSet::new();
        while let Some((e, x_buf, stand)) = stack.pop() {
            let ordered = before.contains(e.inst) || st.completed.contains(e.inst);
            // A read on another device than the one a migration moves the buffer to (or
            // than the one a migration to the host leaves) reads what the buffer holds
            // wherever it is: the migration does not change it. A kernel whose access is
            // not known there may only read it, and is not taken to race with the move.
            let moved_elsewhere = (e.mode == Mode::Migrate
                && matches!(mode, Mode::Read | Mode::MaybeWrite)
                && !self.same_device(insts[e.inst].queue, q))
                // A read that a migration follows reads what the buffer holds wherever the
                // migration takes it.
                || (e.mode == Mode::Read && mode == Mode::Migrate);
            // Two transfers of regions from offsets written differently (a ghost cell and
            // the interior cell beside it), or from one offset that is not a number in two
            // passes of a loop of one statement (its tiles): the regions need not overlap,
            // and nothing here shows that they do. Two statements at one offset (a halo
            // row written at `row1` and read back at `row1`) move one region.
            // Likewise two launches of one kernel whose writes a by-value argument offsets
            // (`z[get_global_id(0) + offset]`, a device's rows).
            let e_kernel = insts[e.inst].cmd.kind == CommandKind::Kernel;
            let apart = match (e.offset, info.offset) {
                // A region from offset 0 and one past it (the ghost row at the start and the
                // row after it).
                (Some(a), Some(b)) if a.from_zero || b.from_zero => {
                    kind.is_transfer() && !e_kernel && (a.past(&b) || b.past(&a))
                }
                (Some(a), Some(b)) if kind.is_transfer() && !e_kernel => {
                    a != b || (e.inst != i && !b.number && insts[e.inst].cmd.id == insts[i].cmd.id)
                }
                // Or the parts of two kernels that a by-value argument offsets, on two
                // devices (each device's rows).
                (Some(a), Some(b)) if kind == CommandKind::Kernel && e_kernel => {
                    (a == b && e.inst != i)
                        || (a != b
                            && !a.unseen
                            && !b.unseen
                            && !self.same_device(insts[e.inst].queue, q))
                }
                // A region moved from an offset that is not a number by a device that writes
                // a part of the buffer itself (its rows read back at `dev.row0`) and the
                // part another kernel writes at an offset: nothing here shows that they
                // overlap either. A device that writes no part of it (a halo row copied
                // out of the neighbour's buffer) moves what the others write.
                // On one device, its own part is the part its kernel writes in the same
                // pass (a chunk launched and read back at one offset); other passes move
                // other chunks.
                // An upload or fill of a region at such an offset puts the device's own part
                // in place (its rows of the input), before or after its kernel works on it.
                (Some(a), Some(x)) if e_kernel && kind.is_transfer() => {
                    !x.number
                        && !a.unseen
                        && (own_part(q, x_buf) || places_part(kind))
                        && elsewhere(e.inst)
                }
                (Some(a), Some(x)) if kind == CommandKind::Kernel => {
                    !a.number
                        && !x.unseen
                        && (own_part(insts[e.inst].queue, x_buf)
                            || places_part(insts[e.inst].cmd.kind))
                        && elsewhere(e.inst)
                }
                _ => false,
            };
            if !conflict(e.mode, mode) || moved_elsewhere || apart {
                // What `e` covers conflicts with this access only where `e` does, but a
                // migration or a region covers writes that this access may conflict with.
                let looked_through = e.mode == Mode::Migrate || apart;
                if looked_through && seen.insert(Rc::as_ptr(&e.covered)) {
                    // A region stands for what it covers; a migration, which changes
                    // nothing, does not.
                    let by = match (stand, apart && !ordered && e.inst != i) {
                        (Some(s), _) => Some(s),
                        (None, true) => Some((e.order, e.inst, e.mode)),
                        (None, false) => None,
                    };
                    stack.extend(e.covered.iter().rev().map(|c| (c, x_buf, by)));
                }
                continue;
            }
            if ordered && insts[e.inst].before.is_subset(&before) {
                continue;
            }
            let repeat = repeats.binary_search(&e.inst).is_ok();
            let e_rewrite = self.rewrites.contains_key(&e.inst);
            let unchanged = (rewrite && (e.mode == Mode::Read || e_rewrite))
                || (mode == Mode::Read && e_rewrite)
                || same_bytes.contains(&e.inst);
            // Two threads that message each other (`tx.send(..)`, `rx.recv()`): which
            // commands the messages order is not known.
            let messaged = insts[e.inst].thread != self.thread_now
                && (insts[e.inst].after_message || self.messaged.contains(&self.thread_now));
            // A command does not race with itself (a kernel reading and writing one buffer).
            if !ordered && !repeat && !unchanged && !messaged && e.inst != i {
                if let Some(at) = self.barrier_ahead(e.inst) {
                    self.deferred.push(Deferred {
                        early: i,
                        early_mode: mode,
                        late: e.inst,
                        late_mode: e.mode,
                        buffer: b,
                        at,
                    });
                    if seen.insert(Rc::as_ptr(&e.covered)) {
                        stack.extend(e.covered.iter().rev().map(|c| (c, x_buf, stand)));
                    }
                    continue;
                }
                // One of them cannot start before the host sets a user event that the other
                // is not behind: they are ordered if the other is complete by then. One whose
                // wait list is not known, in a program that makes user events, may be behind
                // whichever the host sets next.
                let gate = match self.gate_between(e.inst, i, &before) {
                    Some((gate, other)) => Some((Some(gate), other)),
                    None => {
                        (insts[e.inst].waits_unknown && self.user_events_made).then_some((None, i))
                    }
                };
                if let Some((gate, other)) = gate {
                    self.gated.push(Gated {
                        early: e.inst,
                        early_mode: e.mode,
                        late: i,
                        late_mode: mode,
                        buffer: b,
                        gate,
                        other,
                    });
                    if seen.insert(Rc::as_ptr(&e.covered)) {
                        stack.extend(e.covered.iter().rev().map(|c| (c, x_buf, stand)));
                    }
                    continue;
                }
                // Unordered: what it covers is ordered before it, so covered by it.
                unordered.push(stand.unwrap_or((e.order, e.inst, e.mode)));
                continue;
            }
            if repeat && e.uploads_only {
                continue;
            }
            if seen.insert(Rc::as_ptr(&e.covered)) {
                stack.extend(e.covered.iter().rev().map(|c| (c, x_buf, stand)));
            }
        }
        // In the order they were made, as the accesses of one path are kept.
        unordered.sort_by_key(|(order, _, _)| *order);
        unordered.dedup();
        let unordered: Vec<(usize, Mode)> = unordered.into_iter().map(|(_, a, m)| (a, m)).collect();
        // An unordered access that another one comes after is covered by it: waiting on
        // the later one orders both. (No command is in its own happens-before set.)
        let mut later = BitSet::default();
        for &(c, _) in &unordered {
            later.union_with(&self.insts[c].before);
        }
        // So is one that an earlier reported pair orders once it is fixed: this command
        // comes after that pair's consumer, which waiting on its producer orders after
        // this producer too.
        for &(p, c) in &self.unordered {
            if before.contains(c) {
                later.insert(p);
                later.union_with(&self.insts[p].before);
            }
        }
        for &(a, am) in &unordered {
            if later.contains(a) {
                continue;
            }
            let producer = self.site_key(a);
            let consumer = self.site_key(i);
            // A pair of the commands of a reported pair, in a later pass of a loop, is kept
            // too: what fixing that pair orders is ordered in each pass.
            if self.seen.contains(&(10, producer, consumer)) {
                self.unordered.push((a, i));
            }
            if self.seen.insert((3, producer, q)) {
                self.seen.insert((10, producer, consumer));
                self.unordered.push((a, i));
                // A command that waits for nothing from a queue misses one wait list, however
                // many of its buffers that queue wrote: one finding.
                if !self.seen.insert((9, consumer, self.insts[a].queue)) {
                    continue;
                }
                self.raw.push(RawFact::Unordered {
                    producer: a,
                    pm: am,
                    consumer: i,
                    cm: mode,
                    buffer: b,
                });
            }
        }

        self.follow_host_move(st, i, b, info);
        // A pending migration enqueued where the buffer already was, now used on another
        // device. A migration next is no use: it moves the buffer on itself.
        let pending_src = st.pending_src.remove(&b);
        if let Some(ms) = pending_src.filter(|_| kind != CommandKind::Migrate) {
            let mut still = Vec::new();
            for (m, last) in ms {
                let mq = self.insts[m].queue;
                if self.same_device(mq, q) {
                    // A read where the buffer already is leaves it there: the migration is
                    // still for the device that uses it next elsewhere.
                    if mode == Mode::Read {
                        still.push((m, last));
                    }
                } else if self.seen.insert((5, self.insts[m].cmd.id, 0)) {
                    self.raw.push(RawFact::SourceQueue {
                        migration: m,
                        last,
                        next: i,
                        buffer: b,
                    });
                }
            }
            if !still.is_empty() {
                st.pending_src.insert(b, still);
            }
        }
        if kind == CommandKind::Migrate {
            if info.to_host {
                st.pending_host.insert(b, vec![i]);
                st.residency.remove(&b);
            } else {
                if let Some(&(last, _)) = st.residency.get(&b) {
                    if self.same_device(self.insts[last].queue, q) {
                        st.pending_src.insert(b, vec![(i, last)]);
                    }
                }
                st.residency.insert(b, (i, self.home(q)));
            }
        } else {
            // A part written here (a launch's rows at a by-value offset, a region) while
            // another device may hold the rest: no one device holds the buffer.
            let part = mode.writes()
                && info.offset.is_some_and(|o| !o.unseen && !o.from_zero)
                && !info.whole
                && !info.at_zero;
            let here = self.home(q);
            if !part || st.residency.get(&b).is_some_and(|&(_, at)| at == here) {
                st.residency.insert(b, (i, here));
            } else {
                st.residency.remove(&b);
            }
        }

        // A write of a sub-buffer changes bytes of its parent, and one of a parent bytes of
        // its sub-buffers: what they held is not known any more.
        if matches!(mode, Mode::Write | Mode::MaybeWrite) {
            for r in self.overlapping(b) {
                st.init.remove(&r);
            }
        }
        self.record_init(st, i, b, mode, info);

        // Earlier accesses that this one covers: ordered before it with everything
        // ordered before them, and conflicting with a later access only where this one
        // does (it writes, or both have one mode). A later access unordered with one of
        // them is unordered with this one too, which is reported in its place, unless
        // this one is ordered before it or skipped; `covered` keeps them for that case.
        let list = st.accesses.remove(&b).unwrap_or_default();
        let (covered, mut kept): (Vec<Touch>, Vec<Touch>) = list.into_iter().partition(|a| {
            a.inst != i
                && (mode.writes() || a.mode == mode)
                && before.contains(a.inst)
                && self.insts[a.inst].before.is_subset(&before)
        });
        // A repeated upload is skipped, but what it covers is not when it is not one of
        // the uploads repeated too.
        let chain = st
            .init
            .get(&b)
            .map(|init| &init.uploads)
            .filter(|u| u.last() == Some(&i));
        let uploads_only = chain.is_some_and(|u| {
            covered
                .iter()
                .all(|a| a.uploads_only && u.binary_search(&a.inst).is_ok())
        });
        if kind == CommandKind::Kernel && mode.writes() && info.offset.is_some_and(|o| !o.unseen) {
            let home = self.home(q);
            self.part_writers.entry(b).or_default().insert(home);
        }
        self.touches += 1;
        kept.push(Touch {
            order: self.touches,
            inst: i,
            mode,
            offset: info
                .offset
                .filter(|_| kind.is_transfer() || kind == CommandKind::Kernel),
            uploads_only,
            covered: Rc::new(covered),
        });
        st.accesses.insert(b, kept);
    }
}
