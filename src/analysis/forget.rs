//! Forgetting and raw-event ownership: what an unknown call receives (and every object it
//! reaches) is forgotten; a raw event is released, handed on, or leaked when overwritten
//! or when the function ends.

use super::env::Places;
use super::join::objects_in;
use super::values::refers_to;
use super::*;

impl<'f> Analyzer<'f> {
    pub(super) fn forget(&mut self, st: &mut State, values: &[Value]) {
        let mut vals: Vec<AVal> = Vec::new();
        for v in values {
            vals.push(self.eval(st, v, None, "value"));
            // The members stored into a list one by one (`&mut evs[d]`) are in it too.
            if let Value::Place(p) = v {
                let p = self.canonical(&self.concrete(st, p));
                // A part of host data (`params[3] += 0.01`): the data changed.
                let mut base = p.clone();
                while base.proj.pop().is_some() {
                    if let Some(AVal::Host { id, .. }) = st.env.get(&base) {
                        let id = *id;
                        self.bump_host(st, id);
                        break;
                    }
                }
                if p.is_definite() {
                    vals.extend(
                        (st.env.within(&p))
                            .filter(|(k, _)| k.proj.len() > p.proj.len())
                            .map(|(_, x)| x.clone()),
                    );
                    // Empty slots (`vec![ptr::null_mut(); n]`, held here or in a struct held
                    // whole) may have been filled.
                    if let AVal::List(mut items) = self.resolve_place(st, &p, None) {
                        if items.contains(&AVal::Null) {
                            for x in items.iter_mut().filter(|x| **x == AVal::Null) {
                                *x = AVal::Unknown;
                            }
                            st.env.insert(p.clone(), AVal::List(items));
                        }
                    }
                } else {
                    self.forget_inits_within(st, &p.definite_base());
                }
            }
        }
        self.forget_vals(st, &vals);
    }

    /// A member at an index not known (`self.lanes[idx]`) went where the analysis does not
    /// follow: whichever member it is may have had its buffers written, so none of the
    /// members' buffers is known to still hold what initialized it.
    fn forget_inits_within(&mut self, st: &mut State, base: &Place) {
        let mut objs = Vec::new();
        // Members of a list from outside are where they were first named.
        let mut held: Vec<AVal> = (st.env.within(base))
            .chain(self.found.within(base))
            .map(|(_, x)| x.clone())
            .collect();
        // And the list where it is part of a struct held whole (`sched` as built).
        held.push(self.resolve_place(st, base, None));
        for v in &held {
            objects_in(v, &mut objs);
        }
        for o in objs {
            if matches!(self.objs[o].kind, ObjKind::Buffer) {
                st.init.remove(&o);
            }
        }
    }

    /// Forgets what is known of the objects and events these values reach.
    pub(super) fn forget_vals(&mut self, st: &mut State, values: &[AVal]) {
        let mut objs = Vec::new();
        for a in values {
            self.collect_forgotten(st, a, &mut objs);
        }
        st.escaped.extend(objs.iter().copied());
        let all: Vec<ObjId> = st.escaped.iter().copied().collect();
        for o in all {
            self.forget_obj(st, o);
        }
    }

    fn collect_forgotten(&mut self, st: &mut State, a: &AVal, objs: &mut Vec<ObjId>) {
        match a {
            AVal::Obj(o) => {
                st.live_raw.remove(&RawKey::User(*o));
                objs.push(*o);
            }
            AVal::Events(s) => {
                for &i in s {
                    self.complete(st, i);
                    st.live_raw.remove(&RawKey::Inst(i));
                }
            }
            AVal::List(items) => {
                for i in items {
                    self.collect_forgotten(st, i, objs);
                }
            }
            AVal::Struct(fields) => {
                for i in fields.values() {
                    self.collect_forgotten(st, i, objs);
                }
            }
            AVal::Host { id, .. } => {
                self.bump_host(st, *id);
            }
            _ => {}
        }
    }

    fn forget_obj(&mut self, st: &mut State, o: ObjId) {
        if trace::on() {
            trace::line(format!("  forget {}", self.objs[o].name));
        }
        match self.objs[o].kind {
            ObjKind::Buffer => self.forget_buffer(st, o),
            ObjKind::Queue { .. } => self.complete_queue(st, o),
            ObjKind::Kernel { .. } => {
                st.kernel_args.insert(
                    o,
                    KernelArgs {
                        known: false,
                        args: Vec::new(),
                    },
                );
            }
            ObjKind::Launch { .. } => {
                st.launches.remove(&o);
            }
            _ => {}
        }
    }

    pub(super) fn forget_buffer(&mut self, st: &mut State, b: ObjId) {
        st.init.remove(&b);
        forget_uses(st, b);
    }

    /// A command touched buffers the analysis cannot name: forgets what every buffer holds
    /// and where it is. Of the buffers in `named`, which the command uses by name (and so
    /// checks and records itself), only how they were initialized is forgotten. A command
    /// that runs on a device only (`on_device`: a kernel, fill or copy) is no host use of
    /// a buffer migrated to the host: such a migration still waits for its next use.
    pub(super) fn forget_unnamed_buffers(
        &mut self,
        st: &mut State,
        named: &BTreeSet<ObjId>,
        on_device: bool,
    ) {
        if trace::on() {
            trace::line("  forget every buffer".into());
        }
        self.unknown_writes += 1;
        st.init.clear();
        if !on_device {
            st.pending_host.retain(|b, _| named.contains(b));
        }
        st.pending_src.retain(|b, _| named.contains(b));
        st.residency.retain(|b, _| named.contains(b));
    }

    /// Forgets, like [`forget_unnamed_buffers`](Self::forget_unnamed_buffers), the buffers code
    /// outside the analysis may hold: those from outside and those handed to unknown code.
    /// A buffer made here and kept here is not among them. Of the buffers in `named`, which
    /// the command is known to use (and so checks and records itself), only how they were
    /// initialized is forgotten.
    /// As there, a device command (`on_device`) leaves a move to the host pending: it uses
    /// what it touches on a device too.
    pub(super) fn forget_outside_buffers(
        &mut self,
        st: &mut State,
        named: &BTreeSet<ObjId>,
        on_device: bool,
    ) {
        let held: BTreeSet<ObjId> = (st.init.keys())
            .chain(st.pending_host.keys())
            .chain(st.pending_src.keys())
            .chain(st.residency.keys())
            .copied()
            .filter(|b| self.outside.contains(b) || st.escaped.contains(b))
            .collect();
        for b in held {
            st.init.remove(&b);
            if !named.contains(&b) {
                if !on_device {
                    st.pending_host.remove(&b);
                }
                st.pending_src.remove(&b);
                st.residency.remove(&b);
            }
        }
    }

    pub(super) fn collect_and_forget(&mut self, st: &mut State, a: &AVal) {
        let mut objs = Vec::new();
        self.collect_forgotten(st, a, &mut objs);
        for o in objs {
            st.escaped.insert(o);
            self.forget_obj(st, o);
        }
    }

    /// A place is about to be overwritten: a raw event only it refers to is lost, unreleased.
    pub(super) fn overwrite(&mut self, st: &mut State, p: &Place) {
        // An element at an index not known may be another one each time; a temporary
        // (`enqueue_read_buffer(..)?;` in a loop) was never the program's name for it: an
        // event only it held is reported as never released.
        if !p.is_definite() || self.vars[p.var].name.starts_with('%') {
            return;
        }
        let Some(AVal::Events(old)) = st.env.get(p) else {
            return;
        };
        let old = old.clone();
        for i in old {
            let key = RawKey::Inst(i);
            if !st.live_raw.contains(&key) || self.collecting.contains(&key) {
                continue;
            }
            let referenced = st
                .env
                .iter()
                .any(|(k, v)| k != p && !self.vars[k.var].name.starts_with('%') && refers_to(v, i));
            if !referenced {
                st.live_raw.remove(&key);
                self.leak(key, Some(self.cur_span), None);
            }
        }
    }

    /// Records an unreleased raw event: lost where it is `overwritten`, or held where an
    /// early `return` leaves the function (`early`) and released on the other paths.
    pub(super) fn leak(&mut self, key: RawKey, overwritten: Option<Span>, early: Option<Span>) {
        let (id, site) = match key {
            // One per call that leads to the command: a helper that hands its event out
            // leaks it at each call that drops it.
            RawKey::Inst(i) => (self.site_key(i), self.insts[i].cmd.span),
            RawKey::User(o) => (
                usize::MAX - o,
                self.user_sites.get(&o).copied().unwrap_or_default(),
            ),
        };
        if self.seen.insert((6, id, 0)) {
            self.raw.push(RawFact::Unreleased {
                key,
                site,
                overwritten,
                early,
            });
        }
    }

    /// Raw events in a value now belong to someone else.
    pub(super) fn hand_on(&mut self, st: &mut State, a: &AVal) {
        match a {
            AVal::Events(s) => {
                for &i in s {
                    st.live_raw.remove(&RawKey::Inst(i));
                }
            }
            AVal::Obj(o) => {
                st.live_raw.remove(&RawKey::User(*o));
            }
            AVal::List(items) => items.iter().for_each(|x| self.hand_on(st, x)),
            AVal::Struct(fields) => fields.values().for_each(|x| self.hand_on(st, x)),
            _ => {}
        }
    }

    /// Raw events kept in structs, in a value or in the lists it holds, belong to the
    /// structs.
    pub(super) fn hand_on_structs(&mut self, st: &mut State, a: &AVal) {
        match a {
            AVal::Struct(_) => self.hand_on(st, a),
            AVal::List(items) => items.iter().for_each(|x| self.hand_on_structs(st, x)),
            _ => {}
        }
    }

    /// Releases raw events, or hands them to something that will.
    pub(super) fn release(&mut self, st: &mut State, a: &AVal) {
        match a {
            AVal::List(items) => items.iter().for_each(|x| self.release(st, x)),
            // Not known which event: any of them may be the one.
            AVal::Unknown | AVal::External => st.live_raw.clear(),
            _ => self.hand_on(st, a),
        }
    }
}

/// Forgets how a buffer was used and where it is, not what it holds: the migrations that
/// wait for its next use, its accesses, its residency.
pub(super) fn forget_uses(st: &mut State, b: ObjId) {
    st.pending_host.remove(&b);
    st.pending_src.remove(&b);
    st.accesses.remove(&b);
    st.residency.remove(&b);
}
