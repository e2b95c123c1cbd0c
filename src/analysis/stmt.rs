//! Statements and control flow: each IR statement applied to the state, branches joined,
//! loops run twice, returns and thread joins.

use super::env::Places;
use super::loops::{LoopTest, MAX_UNROLLED_STMTS, PEELED_PASSES, PEEL_DEPTH, TWO_ITERATION_DEPTH};
use super::values::{part_of_value, refers_to, remove_parts};
use super::*;

impl<'f> Analyzer<'f> {
    /// Names the host data within `v` that only a temporary or a helper that made it
    /// names by `path`, the place it is kept at, with the fields on the way
    /// (`pipe.taps_host`; `h_pos` of `let (h_pos, h_vel) = initial_state(n)`).
    fn name_temp_hosts(&mut self, v: &AVal, path: &mut String) {
        match v {
            AVal::Host { id, .. }
                if self.hosts[*id].starts_with('%') || self.host_made_in[*id] > self.frame() =>
            {
                self.hosts[*id] = path.clone();
            }
            AVal::Struct(fields) => {
                for (f, x) in fields {
                    let len = path.len();
                    path.push('.');
                    path.push_str(f);
                    self.name_temp_hosts(x, path);
                    path.truncate(len);
                }
            }
            _ => {}
        }
    }

    /// What a release releases. A member of a list at an index not known (`prev[e]` in a
    /// loop up to a count that changed) is any of the members the list holds: only those,
    /// where every member the function stored is known.
    fn released(&mut self, st: &mut State, events: &Value) -> AVal {
        match events {
            Value::List(items) => AVal::List(items.iter().map(|x| self.released(st, x)).collect()),
            Value::Place(p) => {
                let c = self.canonical(&self.concrete(st, p));
                // `ev[i]` of a pointer to one event (`release_events(&ev_m, 1)`): the only
                // member it can reach is that event.
                if let Some((
                    Proj::Index(_) | Proj::AnyIndex | Proj::Var(_) | Proj::Last | Proj::At(_),
                    base,
                )) = c.proj.split_last()
                {
                    let base = Place {
                        var: c.var,
                        proj: base.to_vec(),
                    };
                    let members_bound =
                        (st.env.within(&base)).any(|(k, _)| k.proj.len() > base.proj.len());
                    if let Some(v @ (AVal::Events(_) | AVal::Null)) = st.env.get(&base) {
                        if !members_bound {
                            return v.clone();
                        }
                    }
                }
                if let Some((list, members)) = any_member_of(st, &c) {
                    let known = st
                        .env
                        .get(&list)
                        .is_none_or(|v| matches!(v, AVal::List(_) | AVal::Unknown))
                        && members
                            .iter()
                            .all(|m| matches!(m, AVal::Events(_) | AVal::Null | AVal::Obj(_)));
                    if known {
                        return AVal::List(members);
                    }
                }
                self.eval(st, events, Some(RoleHint::Event), "event")
            }
            _ => self.eval(st, events, Some(RoleHint::Event), "event"),
        }
    }

    /// The element of an array of the function's own a value names, at any index
    /// (`done[_]` of `done[d]`, `plan[_].read_done` of `p->read_done` for `p = &plan[i]`);
    /// `None` for any other place, or one through a pointer or parameter that may point
    /// anywhere.
    pub(super) fn array_element(&self, st: &State, v: &Value) -> Option<Place> {
        let p = match v {
            Value::Place(p) => p,
            Value::List(items) => match items.as_slice() {
                [Value::Place(p)] => p,
                _ => return None,
            },
            _ => return None,
        };
        let c = self.canonical(&self.concrete(st, p));
        let own = !self.vars[c.var].member.refers()
            && !self.callee_params.contains(&c.var)
            && !self.params.contains(&c.var);
        (own && c.proj.iter().any(|p| !matches!(p, Proj::Field(_)))).then_some(c)
    }

    /// Events stored in array elements at or within `at` belong to whoever named it: all
    /// of them, or those no binding holds.
    fn hand_on_elements(&mut self, st: &mut State, at: &Place, unbound_only: bool) {
        let gone: BTreeSet<usize> = (st.in_arrays.iter())
            .filter(|e| e.at.overlaps(at) && (e.unbound || !unbound_only))
            .map(|e| e.inst)
            .collect();
        if gone.is_empty() {
            return;
        }
        st.in_arrays.retain(|e| !gone.contains(&e.inst));
        for i in gone {
            st.live_raw.remove(&RawKey::Inst(i));
        }
    }

    /// Array elements at or within `at` are read other than as a wait list: the events no
    /// binding holds go where the value goes; of the others, where copies of them went is
    /// not followed.
    pub(super) fn read_elements(&mut self, st: &mut State, at: &Place) {
        if !st.in_arrays.iter().any(|e| e.at.overlaps(at)) {
            return;
        }
        self.hand_on_elements(st, at, true);
        st.in_arrays = std::mem::take(&mut st.in_arrays)
            .into_iter()
            .map(|mut e| {
                // The element itself or a part of it; a struct holding it named to reach
                // another part (`&plan[i]` handed to a helper the analysis follows) is not
                // a read of it.
                e.read |= e.at.overlaps(at) && at.proj.len() >= e.at.proj.len();
                e
            })
            .collect();
    }

    /// The raw events held in array elements and nowhere else, never read but as wait lists.
    fn only_in_arrays(&self, st: &State) -> BTreeSet<usize> {
        let read: BTreeSet<usize> = (st.in_arrays.iter())
            .filter(|e| e.read)
            .map(|e| e.inst)
            .collect();
        let mut kept: BTreeSet<usize> = (st.in_arrays.iter())
            .map(|e| e.inst)
            .filter(|i| !read.contains(i))
            .collect();
        for (k, v) in st.env.iter() {
            let at = self.canonical(k).at_any_index();
            kept.retain(|&i| {
                !refers_to(v, i) || (st.in_arrays.iter()).any(|e| e.inst == i && e.at.overlaps(&at))
            });
        }
        kept
    }

    pub(super) fn block(&mut self, body: &[Stmt], mut st: State) -> Option<State> {
        for s in body {
            st = self.stmt(s, st)?;
        }
        Some(st)
    }

    /// A loop run for two iterations (one past `TWO_ITERATION_DEPTH`); leaving it without
    /// an iteration is a path too, unless its body starts with its own test (`while (c)`),
    /// whose leaving arm is that path, taken only where the test can fail. A test the
    /// analysis decides (`while (n > 0)` with `n` known) runs the loop pass by pass.
    pub(super) fn run_loop(&mut self, body: &[Stmt], st: State) -> Option<State> {
        match loop_test(body) {
            Some(test) => self.run_tested_loop(body, test, st),
            None => self.run_counted_loop(body, st, 0, None, &[]),
        }
    }

    /// A loop whose `counters` count up from a constant (`for (t = 0; t < STEPS; t++)`,
    /// too many passes to run one by one): each counter holds its first value in the first
    /// pass and an integer above it in the second, which stands for the later passes, so
    /// that `if (t == 0)` is taken in the first pass only. Where no second pass is run, the
    /// first stands for every pass and the counter is not known. `min_passes`: how many
    /// passes the loop runs at the least (a constant count), so that a loop of two or more
    /// passes does not end after its first.
    pub(super) fn run_counted_loop(
        &mut self,
        body: &[Stmt],
        st: State,
        min_passes: u64,
        exact: Option<u64>,
        counters: &[(Place, u64)],
    ) -> Option<State> {
        if let Some(n) = exact.filter(|&n| n >= PEELED_PASSES + 2 && !counters.is_empty()) {
            let cost = super::calls::stmt_count(body) * PEELED_PASSES as usize;
            if self.loops.len() < PEEL_DEPTH && self.unrolled + cost <= MAX_UNROLLED_STMTS {
                self.unrolled += cost;
                return self.peeled_loop(body, st, n, counters);
            }
        }
        self.run_passes(body, st, min_passes, exact, counters)
    }

    /// [`run_counted_loop`](Self::run_counted_loop)'s passes: the first, and a second that
    /// stands for the rest.
    fn run_passes(
        &mut self,
        body: &[Stmt],
        st: State,
        min_passes: u64,
        exact: Option<u64>,
        counters: &[(Place, u64)],
    ) -> Option<State> {
        let second_in_depth = self.loops.len() < TWO_ITERATION_DEPTH;
        let entry = (min_passes == 0).then(|| st.clone());
        let entry_env = st.env.clone();
        let st = self.count(st, counters, |from| match second_in_depth {
            true => AVal::Int(from),
            false => AVal::Scalar,
        })?;
        let (first, mut cx) = self.pass(body, st);
        let mut ends: Vec<State> = first.into_iter().collect();
        ends.append(&mut cx.continues);
        let mut exits: Vec<State> = entry.into_iter().collect();
        exits.append(&mut cx.breaks);
        // Two iterations at every level would be exponential in the nesting depth.
        let second_in = if second_in_depth {
            self.join_all(ends.clone())
        } else {
            None
        };
        // The second pass stands for the passes after the first. It is run first for those
        // of the other parity than the first's: where the body tests the counter's parity
        // (`t % 2` of ping-pong buffers), a third pass follows it for those of the first's
        // parity, so that the buffers each pass picks are those of consecutive passes, and
        // the second is run again for every later pass, for what the loop leaves at its
        // exits only: its checks mix the passes of both parities.
        let parity = |from: u64, later: u64| AVal::Above(from, Some((from + later) % 2 == 1));
        let Some(second_in) = second_in.and_then(|s| self.count(s, counters, |f| parity(f, 1)))
        else {
            exits.extend(ends);
            return self.join_all(exits);
        };
        let outer_parity = std::mem::take(&mut self.parity_used);
        let (mut second, mut cx2) = self.pass(body, second_in);
        if std::mem::replace(&mut self.parity_used, outer_parity) {
            let mut on: Vec<State> = second.into_iter().collect();
            on.append(&mut cx2.continues);
            let third_in =
                (self.join_all(on)).and_then(|s| self.count(s, counters, |f| parity(f, 2)));
            if let Some(third_in) = third_in {
                self.pass(body, third_in);
            }
            let (raw, deferred, gated) = (self.raw.len(), self.deferred.len(), self.gated.len());
            let plain = (self.join_all(ends.clone()))
                .and_then(|s| self.count(s, counters, |f| AVal::Above(f, None)));
            (second, cx2) = match plain {
                Some(s) => self.pass(body, s),
                None => (None, LoopCx::default()),
            };
            self.raw.truncate(raw);
            self.deferred.truncate(deferred);
            self.gated.truncate(gated);
        }
        // A loop of a known count that only ever leaves at its end, whose two passes each
        // end once: what it swaps back and forth (ping-pong buffers) is known at its end.
        let period_two = match (exact, &second, ends.as_slice()) {
            (Some(n), Some(second), [first])
                if n >= 2
                    && cx.breaks.is_empty()
                    && cx2.breaks.is_empty()
                    && cx2.continues.is_empty() =>
            {
                Some(alternating(
                    &entry_env,
                    &self.found,
                    &first.env,
                    &second.env,
                    n,
                ))
            }
            _ => None,
        };
        exits.extend(second);
        exits.append(&mut cx2.continues);
        exits.append(&mut cx2.breaks);
        if min_passes < 2 || ends.is_empty() {
            exits.extend(ends);
            return self.join_all(exits);
        }
        // A loop of two or more passes does not end after its first: the raw events live
        // at its end are those its real exits leave. What the passes compute (a counter, a
        // ping-pong index) still joins the first pass's, as the second stands for every
        // later one.
        // The join of every exit folds the real exits first: that part is this join.
        let real = self.join_all(exits);
        let live = real.as_ref().map(|s| s.live_raw.clone());
        let mut out = self.join_all(real.into_iter().chain(ends).collect())?;
        if let Some(live) = live {
            // Less those whose list the join no longer knows (`State::join`).
            out.live_raw = live.intersection(&out.live_raw).copied().collect();
        }
        out.env.extend(period_two.into_iter().flatten());
        Some(out)
    }

    /// A loop of `n` passes, more than it is run one by one for: its first passes run with
    /// their counters known (`f = 0`, `f = 1`), then the rest as a loop from the next value.
    /// A frame slot picked by `f & 1` then names the same buffer two passes apart, so a
    /// command of frame 2 that does not wait for frame 0's use of its slot is seen.
    fn peeled_loop(
        &mut self,
        body: &[Stmt],
        mut st: State,
        n: u64,
        counters: &[(Place, u64)],
    ) -> Option<State> {
        let mut exits = Vec::new();
        for j in 0..PEELED_PASSES {
            let s = self.count(st, counters, |from| AVal::Int(from + j))?;
            match self.pass_on(body, s, &mut exits) {
                Some(s) => st = s,
                None => return self.join_all(exits),
            }
        }
        let rest: Vec<(Place, u64)> = (counters.iter())
            .map(|(p, from)| (p.clone(), from + PEELED_PASSES))
            .collect();
        let n = n - PEELED_PASSES;
        exits.extend(self.run_passes(body, st, n.min(2), Some(n), &rest));
        self.join_all(exits)
    }

    /// One pass of a loop's body run on its own: the breaks it took go to `exits`; returns
    /// where the next pass starts, `None` where every path left the loop.
    pub(super) fn pass_on(
        &mut self,
        body: &[Stmt],
        st: State,
        exits: &mut Vec<State>,
    ) -> Option<State> {
        let (end, mut cx) = self.pass(body, st);
        exits.append(&mut cx.breaks);
        let mut ends: Vec<State> = end.into_iter().collect();
        ends.append(&mut cx.continues);
        self.join_all(ends)
    }

    /// One pass of a loop's body: where it ends, and the breaks and continues it took.
    pub(super) fn pass(&mut self, body: &[Stmt], st: State) -> (Option<State>, LoopCx) {
        self.passes_run += 1;
        self.loops.push(LoopCx {
            serial: self.passes_run,
            ..LoopCx::default()
        });
        let end = self.block(body, st);
        (end, self.loops.pop().unwrap_or_default())
    }

    /// Binds each counter to what `value` gives for its first value, as an assignment does.
    fn count(
        &mut self,
        mut st: State,
        counters: &[(Place, u64)],
        value: impl Fn(u64) -> AVal,
    ) -> Option<State> {
        for (p, from) in counters {
            let assign = Stmt::Assign {
                dst: p.clone(),
                value: Value::Scalar,
                span: Span::default(),
            };
            st = self.stmt(&assign, st)?;
            st.env.insert(p.clone(), value(*from));
        }
        Some(st)
    }

    /// `let d = Domain { queues, .. }` with `queues` an outside value: `d.queues` is another
    /// name for that place, so that what it is found to be (`d.queues[0]`) is one object
    /// wherever named.
    fn alias_fields(
        &mut self,
        st: &State,
        var: Var,
        fields: &[(String, Value)],
        made: &BTreeMap<String, AVal>,
    ) {
        let mut aliases = Vec::new();
        for (f, value) in fields {
            let (Value::Place(src), Some(AVal::External)) = (value, made.get(f)) else {
                continue;
            };
            let src = self.canonical(&self.concrete(st, src));
            if src.is_definite() && src.var != var && !self.vars[src.var].name.starts_with('%') {
                aliases.push((f.clone(), src));
            }
        }
        if !aliases.is_empty() {
            self.field_alias.insert(var, aliases);
        }
    }

    /// What unknown code may have stored in places it was given: a list may have other
    /// members, an integer (passed by address, `clGetDeviceIDs(.., &n)`) another value.
    pub(super) fn forget_places(&mut self, st: &mut State, values: &[Value]) {
        for v in values {
            if let Value::Place(p) = v {
                let p = self.canonical(&self.concrete(st, p));
                self.drop_elements(st, p.var);
                // Some member's part (`list[_].buf`): any member's may have changed.
                if !p.is_definite() {
                    let base = p.definite_base();
                    // A field of every member of a list of structs (`workers[_].last`, set
                    // through a loop's items): that field, in each.
                    if let [Proj::AnyIndex, Proj::Field(f)] = &p.proj[base.proj.len()..] {
                        if let Some(AVal::List(items)) = st.env.get_mut(&base) {
                            for item in items.iter_mut() {
                                if let AVal::Struct(fields) = item {
                                    fields.insert(f.clone(), AVal::Unknown);
                                }
                            }
                        }
                    }
                    remove_parts(&mut st.env, &base, false);
                    remove_parts(&mut self.found, &base, false);
                    continue;
                }
                let scalar = p.proj.is_empty() && self.vars[p.var].hint == TypeHint::Scalar;
                match st.env.get_mut(&p) {
                    Some(x @ AVal::List(_)) => *x = AVal::Unknown,
                    Some(x @ AVal::Int(_)) => *x = AVal::Scalar,
                    Some(x @ AVal::External) if scalar => *x = AVal::Scalar,
                    // A null pointer handed to be filled in (`posix_memalign(&p, ..)`).
                    Some(x @ AVal::Null) => *x = AVal::Unknown,
                    _ => {}
                }
                // So may the integers in it (`load(&cfg)` of `cfg.n = 0`).
                let ints: Vec<Place> = (st.env.within(&p))
                    .filter(|(_, x)| matches!(x, AVal::Int(_)))
                    .map(|(k, _)| k.clone())
                    .collect();
                for k in ints {
                    st.env.insert(k, AVal::Scalar);
                }
            }
        }
    }

    pub(super) fn stmt(&mut self, s: &Stmt, mut st: State) -> Option<State> {
        match s {
            Stmt::Assign { dst, value, span } => {
                self.cur_span = *span;
                if let Value::Place(src) = value {
                    if self.ooo_lists.contains(src) {
                        self.ooo_lists.insert(dst.clone());
                    }
                }
                // A local made from a parameter (`let wl = wait.as_ptr();`) was written where
                // the parameter was; kept on every path, as it only places findings.
                if dst.proj.is_empty() && !self.callee_params.contains(&dst.var) {
                    if let Some(o) = self.origin_of(value) {
                        self.param_origin.insert(dst.var, o);
                    }
                    let whole =
                        |v: &Var| self.callee_params.contains(v) || self.param_copies.contains(v);
                    match value {
                        Value::Place(src) if src.proj.is_empty() && whole(&src.var) => {
                            self.param_copies.insert(dst.var)
                        }
                        _ => self.param_copies.remove(&dst.var),
                    };
                }
                // A callee's store through its parameter (`s->q0 = ..` of `setup(&s)`)
                // is a store into the caller's place; a store into the parameter itself
                // rebinds it alone.
                // A C++ reference parameter stays bound to its caller's place: a store into
                // it is a store there.
                let info = &self.vars[dst.var];
                // `(*nevts)++` through a pointer to the caller's count: a store there.
                let count_pointer = info.hint == TypeHint::Host(HostKind::Pointer)
                    && matches!(value, Value::Arith { .. } | Value::Int(_))
                    && (self.ext_alias.get(&dst.var)).is_some_and(|t| {
                        matches!(
                            st.env.get(&self.canonical(t)),
                            Some(AVal::Int(_) | AVal::Above(..) | AVal::Scalar)
                        )
                    });
                if dst.proj.is_empty()
                    && info.global.is_none()
                    && info.member != Member::Ref
                    && !count_pointer
                {
                    self.ext_alias.remove(&dst.var);
                    // A pointer bound to an aggregate (`worker_t *w = arg`) names it: what is
                    // stored through it is stored there.
                    let info = &self.vars[dst.var];
                    let aggregate = info.member == Member::Arrow && info.hint == TypeHint::Unknown;
                    if let (true, Value::Place(src)) = (aggregate, value) {
                        if !self.vars[src.var].name.starts_with('%')
                            && matches!(
                                self.resolve(&mut st, src, None),
                                AVal::External | AVal::Unknown | AVal::Struct(_)
                            )
                        {
                            let target = self.canonical(&self.concrete(&st, src));
                            if target.var != dst.var {
                                // `Worker *w = (Worker *)arg;` of a `void *arg`: the cast gives
                                // what it points to the pointer's fields.
                                let typed = self.vars[dst.var].fields.clone();
                                if target.proj.is_empty() && self.vars[target.var].fields.is_empty()
                                {
                                    self.vars[target.var].fields = typed;
                                }
                                remove_parts(&mut st.env, dst, true);
                                self.ext_alias.insert(dst.var, target);
                                return Some(st);
                            }
                        }
                    }
                }
                // A field of a local struct stored anew names what it holds now.
                match dst.proj.as_slice() {
                    [] => {
                        self.field_alias.remove(&dst.var);
                    }
                    [Proj::Field(f)] => {
                        if let Some(fields) = self.field_alias.get_mut(&dst.var) {
                            fields.retain(|(n, _)| n != f);
                        }
                    }
                    _ => {}
                }
                // `*finished = last;` through a reference parameter (`cl_event *finished`).
                let through_ref = dst.proj.is_empty() && self.vars[dst.var].member == Member::Ref;
                let dst = &self.canonical(&self.concrete(&st, dst));
                let name = self.place_name(dst);
                let mut v = self.eval(&mut st, value, None, &name);
                self.drop_elements(&mut st, dst.var);
                // `set.w = 1.7f` of host data (a struct of numbers): the data changed.
                if let (false, Some(&AVal::Host { id, .. })) =
                    (dst.proj.is_empty(), st.env.get(&Place::var(dst.var)))
                {
                    self.bump_host(&mut st, id);
                }
                if let (true, Value::Struct(fields), AVal::Struct(made)) =
                    (dst.proj.is_empty(), value, &v)
                {
                    self.alias_fields(&st, dst.var, fields, made);
                }
                // `let dev = &self.devs[d];` of an outside value: another name for that place,
                // so that what it is found to be (`dev.queue`) is one object wherever named.
                // So is `let shard = &shards[pick(key)];`, a member not known: what is done
                // through it is done to some member.
                if let (true, AVal::External | AVal::Unknown, Value::Place(src)) =
                    (dst.proj.is_empty(), &v, value)
                {
                    let src = self.canonical(&self.concrete(&st, src));
                    let temp = self.vars[src.var].name.starts_with('%');
                    let named = match v {
                        AVal::External => super::values::keyed_or_definite(&src),
                        _ => !src.is_definite(),
                    };
                    if named && src.var != dst.var && !temp {
                        self.overwrite(&mut st, dst);
                        remove_parts(&mut st.env, dst, false);
                        remove_parts(&mut self.found, dst, true);
                        st.env.remove(dst);
                        self.ext_alias.insert(dst.var, src);
                        return Some(st);
                    }
                }
                let hint = self.vars[dst.var].hint;
                // The annotation says what an unknown value is; but an event not known once
                // commands have been made (`cl_event done = es.last()`) may be one of them,
                // and so may a member of a list at an index not known (`q = qs[i]`,
                // `queues_.back()`) be any of its members.
                let some_member = matches!(value, Value::Place(src)
                    if !self.concrete(&st, src).is_definite());
                if dst.proj.is_empty()
                    && matches!(v, AVal::Unknown | AVal::External)
                    && hint != TypeHint::Unknown
                    && (hint != TypeHint::Event || self.insts.is_empty())
                    && !some_member
                {
                    v = self.hinted(hint, &name);
                }
                // An object a helper made (`let w2 = buffer(ctx, ..)?`, or `*out = made;` of
                // the helper itself through its parameter) is named by where its caller keeps
                // it.
                if let AVal::Obj(o) = v {
                    let made_in_callee = self.objs[o].made_in > self.frame()
                        || (through_ref
                            && self.objs[o].made_in == self.frame()
                            && self.frame() > 0);
                    let placeholder = self.placeholder.contains(&o);
                    if (self.objs[o].name.starts_with('%') || made_in_callee || placeholder)
                        && !name.starts_with('%')
                    {
                        // `let pq = ProQue::builder()..build()?`: its queue is `pq.queue()`
                        // until the code names it (`let compute = pq.queue().clone()`).
                        self.rename(o, name.clone());
                        self.placeholder.remove(&o);
                    }
                }
                // Host data named by a temporary (`%1.taps` of a builder's field) is named
                // where the code keeps it (`pipe.taps_host`).
                if !name.starts_with('%') {
                    self.name_temp_hosts(&v, &mut name.clone());
                    // A struct a helper made (`let pipe = builder.build()?`): what it holds
                    // is named by its fields (`pipe.xfer`).
                    if let AVal::Struct(_) = v {
                        self.name_as_member(&name, &v);
                    }
                }
                // A list collected in a temporary (`devices.iter().map(..).collect()`): its
                // members are named by the list they went to (`queues[1]`, and
                // `shards[1].queue` for a struct's `queue`).
                if let (AVal::List(items), false) = (&v, name.starts_with('%')) {
                    for (k, item) in items.iter().enumerate() {
                        // The object of a (key, value) pair of a map, by its key
                        // (`kernels["gain"]`).
                        if let AVal::Struct(f) = item {
                            if let (Some(AVal::Str(key)), Some(AVal::Obj(o)), 2) =
                                (f.get("0"), f.get("1"), f.len())
                            {
                                let member = format!("{name}[{key:?}]");
                                self.objs[*o].member.get_or_insert(member.clone());
                                self.rename(*o, member);
                                continue;
                            }
                        }
                        if let AVal::Obj(_) | AVal::Struct(_) = item {
                            self.name_as_member(&format!("{name}[{k}]"), item);
                        }
                    }
                }
                if let AVal::Events(evs) = &v {
                    if !name.starts_with('%') {
                        let frame = self.frame();
                        for &i in evs {
                            self.event_vars.entry((i, frame)).or_insert(name.clone());
                        }
                    }
                }
                // A value stored outside the function's locals, or kept in a struct (which
                // may release it when dropped), is handed on: raw events in it are no longer
                // this function's to release. Raw events gathered into a local list
                // (`let waits = [upload, gate];`) are still the function's. A part of a local
                // not known (`slot.free` of `let slot = &mut self.slots[i]`) may be outside,
                // and is taken to be.
                // A list of events the function declared itself (`cl_event reads[MAX_GPU];`,
                // not set yet) is its own storage, not outside.
                let own_list = self.vars[dst.var].hint == TypeHint::EventList
                    && !self.vars[dst.var].member.refers()
                    && !self.params.contains(&dst.var)
                    && !self.callee_params.contains(&dst.var)
                    && matches!(st.env.get(&Place::var(dst.var)), Some(AVal::Unknown));
                // Written into a struct's field where a type of the crate releases its
                // events when dropped (`slot.computed = Some(k)`): the struct's.
                // So is one stored through a reference parameter into the caller's place
                // (`*finished = last;` of `cl_event *finished`), where the function is
                // analyzed on its own.
                let through_param = through_ref && self.params.contains(&dst.var);
                // Into a caller's place, the events live where the caller keeps them: a leak
                // of one is the caller's, as a returned one's is.
                if let (true, AVal::Events(evs)) = (through_ref, &v) {
                    let frame = self.frame_of_var(dst.var);
                    for &i in evs {
                        self.event_home.insert(i, dst.var);
                        self.event_vars.entry((i, frame)).or_insert(name.clone());
                    }
                }
                let root_outside = self.outside_global(dst.var)
                    || through_param
                    || self.kept_by_drop(dst)
                    || !dst.proj.is_empty()
                        && !own_list
                        && st
                            .env
                            .get(&Place::var(dst.var))
                            .is_none_or(|r| matches!(r, AVal::External | AVal::Unknown));
                if root_outside {
                    let v2 = v.clone();
                    self.hand_on(&mut st, &v2);
                } else {
                    self.hand_on_structs(&mut st, &v);
                }
                self.overwrite(&mut st, dst);
                remove_parts(&mut st.env, dst, false);
                remove_parts(&mut self.found, dst, true);
                if dst.is_definite() {
                    st.env.store(dst.clone(), v);
                } else {
                    // Which member this stores over is not known: raw events the list held
                    // may be gone, or still there for a later release; no longer followed.
                    let base = dst.definite_base();
                    let held: Vec<AVal> = (st.env.within(&base)).map(|(_, x)| x.clone()).collect();
                    for x in &held {
                        self.hand_on(&mut st, x);
                    }
                    remove_parts(&mut st.env, &base, true);
                    // A raw event stored at an index not known (`prev[nprev++] = ev`): which
                    // element a later release names is not known either.
                    self.hand_on(&mut st, &v);
                }
            }
            Stmt::Enqueue { cmd, event } => self.enqueue(&mut st, cmd, event.as_ref()),
            Stmt::SetArg {
                kernel,
                index,
                index_at,
                name: arg_name,
                value,
                size,
                arg,
                span,
            } => {
                // A helper given the index (`arg_mem(k, 2, &b)`): its caller chose it.
                let call = index_at
                    .as_ref()
                    .filter(|p| self.callee_params.contains(&p.var))
                    .and_then(|_| self.frame_sites.get(&self.frame()))
                    .map(|(_, call, callee)| (*call, callee.clone()));
                let site = SetSite {
                    span: *span,
                    call,
                    size: *size,
                };
                // An index a local holds: the constant it holds (a helper's parameter).
                let index = &match (index, index_at) {
                    (None, Some(p)) => match self.resolve(&mut st, p, None) {
                        AVal::Int(n) => Some(n),
                        _ => None,
                    },
                    _ => *index,
                };
                let k = self.eval(&mut st, kernel, Some(RoleHint::Kernel), "kernel");
                let AVal::Obj(k) = k else {
                    // A kernel the analysis cannot follow: its argument is still checked.
                    let name = match kernel {
                        Value::Place(p) => self.place_name(p),
                        _ => "kernel".into(),
                    };
                    if let Some(index) = index {
                        let anon = self.new_obj(ObjKind::Kernel { sig: None }, name);
                        self.classify_arg(&mut st, anon, *index, value, arg, &site);
                    }
                    self.forget(&mut st, std::slice::from_ref(value));
                    return Some(st);
                };
                let named = arg_name.as_ref().and_then(|n| {
                    (self.arg_names.get(&k))
                        .and_then(|ns| ns.iter().find(|(m, _)| m == n))
                        .map(|(_, i)| *i)
                        // ocl's `set_arg("time", ..)` on a kernel whose arguments were named
                        // elsewhere: the parameter of that name its source declares.
                        .or_else(|| match &self.objs[k].kind {
                            ObjKind::Kernel { sig: Some(sig) } if self.outside.contains(&k) => {
                                (sig.params.iter().position(|p| p.name == *n)).map(|i| i as u64)
                            }
                            _ => None,
                        })
                });
                let Some(index) = index.or(named) else {
                    st.kernel_args.insert(
                        k,
                        KernelArgs {
                            known: false,
                            args: Vec::new(),
                        },
                    );
                    self.forget(&mut st, std::slice::from_ref(value));
                    return Some(st);
                };
                let a = self.classify_arg(&mut st, k, index, value, arg, &site);
                let entry = st.kernel_args.entry(k).or_insert(KernelArgs {
                    known: false,
                    args: Vec::new(),
                });
                entry.args.retain(|(i, _)| *i != index);
                entry.args.push((index, a));
                entry.args.sort_by_key(|(i, _)| *i);
            }
            Stmt::LaunchArg {
                launch,
                value,
                size,
                arg,
                span,
            } => {
                if let AVal::Obj(l) = self.eval(&mut st, launch, None, "launch") {
                    if let (ObjKind::Launch { kernel: Some(k) }, Some(ls)) =
                        (&self.objs[l].kind, st.launches.get(&l))
                    {
                        let (k, index) = (*k, ls.args.len() as u64);
                        let site = SetSite {
                            span: *span,
                            call: None,
                            size: *size,
                        };
                        let a = self.classify_arg(&mut st, k, index, value, arg, &site);
                        if let Some(ls) = st.launches.get_mut(&l) {
                            ls.args.push(a);
                        }
                        return Some(st);
                    }
                }
                self.forget(&mut st, std::slice::from_ref(value));
            }
            Stmt::LaunchWait { launch, events } => {
                if let AVal::Obj(l) = self.eval(&mut st, launch, None, "launch") {
                    let w = self.wait_set(&mut st, events);
                    if let Some(ls) = st.launches.get_mut(&l) {
                        ls.lists.push(events.clone());
                        ls.waits = match (ls.waits.take(), w) {
                            (Some(mut a), Some(b)) => {
                                a.extend(b);
                                Some(a)
                            }
                            _ => None,
                        };
                    }
                }
            }
            Stmt::Push { list, item } => {
                // Through a parameter that names the caller's value (`this->queues`).
                let list = &self.canonical(&self.concrete(&st, list));
                // What it makes is named as the member it becomes (`out[1].input`).
                let len = match st.env.get(list) {
                    Some(AVal::List(items)) => Some(items.len()),
                    Some(_) => None,
                    None => match part_of_value(&st.env, list) {
                        Some(AVal::List(items)) => Some(items.len()),
                        _ => None,
                    },
                };
                let member = len.map(|len| format!("{}[{}]", self.place_name(list), len));
                let v = self.eval(&mut st, item, None, member.as_deref().unwrap_or("item"));
                if let Some(m) = member.filter(|m| !m.starts_with('%')) {
                    self.name_as_member(&m, &v);
                    // An event is waited on by the list member it became: the local it came
                    // from (`ev` of a loop's pass) may be out of scope where it is wanted.
                    if let AVal::Events(evs) = &v {
                        let frame = self.frame();
                        for &i in evs {
                            self.event_vars.insert((i, frame), m.clone());
                        }
                    }
                }
                // Raw events pushed into a list the function made keep their owner: the
                // function, until it releases the list's members or hands the list on. A
                // list from elsewhere (a parameter, a field) takes them over, and so do
                // the members it was made with (`vec![gate]`), released together.
                let own = list.proj.is_empty()
                    && !self.callee_params.contains(&list.var)
                    && self.vars[list.var].global.is_none()
                    && matches!(st.env.get(list), Some(AVal::List(_)));
                if !own {
                    self.hand_on(&mut st, &v);
                    if let Some(AVal::List(items)) = st.env.get(list) {
                        let items = AVal::List(items.clone());
                        self.hand_on(&mut st, &items);
                    }
                }
                // A list held in a struct or a list a variable holds (`cl.pos` of
                // `Cluster { pos: vec![], .. }`): that part of it.
                match part_mut(&mut st.env, list) {
                    Some(AVal::List(items)) => items.push(v),
                    Some(other) => *other = AVal::Unknown,
                    None => {}
                }
            }
            Stmt::Finish { queue, .. } => {
                match self.eval(&mut st, queue, Some(RoleHint::Queue), "queue") {
                    AVal::Obj(q) => match self.objs[q].kind {
                        ObjKind::Queue { .. } => self.complete_queue(&mut st, q),
                        // `pq.finish()` of an ocl `ProQue`: its queue's.
                        ObjKind::ProQue { queue, .. } => self.complete_queue(&mut st, queue),
                        _ => {}
                    },
                    AVal::Unknown | AVal::External => {
                        let all = st.trace.clone();
                        st.completed.union_with(&all);
                    }
                    _ => {}
                }
            }
            Stmt::Wait { events, .. } => match self.wait_set(&mut st, events) {
                Some(evs) => {
                    for i in evs {
                        self.complete(&mut st, i);
                    }
                }
                None => {
                    let all = st.trace.clone();
                    st.completed.union_with(&all);
                }
            },
            Stmt::Forget { values, .. } => {
                // A field of every member of a list the loop before walked in place
                // (`shards[_].done` after `for sh in shards.iter_mut() { sh.done = .. }`):
                // the stores are in the members.
                let walked = std::mem::take(&mut self.walked_in_place);
                let values: Vec<Value> = (values.iter())
                    .filter(|v| match v {
                        Value::Place(p) => {
                            let p = self.canonical(&self.concrete(&st, p));
                            let base = p.definite_base();
                            let field_of_each = matches!(
                                &p.proj[base.proj.len()..],
                                [Proj::AnyIndex, Proj::Field(_)]
                            );
                            !(field_of_each && walked.contains(&base))
                        }
                        _ => true,
                    })
                    .cloned()
                    .collect();
                self.forget(&mut st, &values);
                self.forget_places(&mut st, &values);
            }
            Stmt::Branch(arms) => {
                let outs: Vec<State> = arms
                    .iter()
                    .filter_map(|arm| self.block(arm, st.clone()))
                    .collect();
                // `if (n > 0) clWaitForEvents(n, evs)`: the wait is skipped only where there
                // is nothing to wait for, so where the count is not known it waits.
                if outs.len() == 2 && guarded_wait(arms) {
                    return outs.into_iter().next();
                }
                return self.join_all(outs);
            }
            Stmt::Loop(body) => return self.run_loop(body, st),
            Stmt::ForEach {
                sources,
                binds,
                body,
                tail,
                dst,
            } => return self.for_each(st, sources, binds, body, tail, dst.as_ref()),
            Stmt::Spawn {
                body,
                value,
                handle,
                span,
            } => {
                self.cur_span = *span;
                // `&tid[i]`: the member `i` holds.
                let handle = &self.canonical(&self.concrete(&st, handle));
                let before = st.clone();
                let outer = (self.thread_now, std::mem::take(&mut self.passed));
                self.thread_now = Some(self.spawned);
                self.spawned += 1;
                let ended = self.block(body, st);
                // A pass the thread never arrived at orders nothing.
                self.settle_races(None, &BitSet::default());
                (self.thread_now, self.passed) = outer;
                let (ended, v) = match ended {
                    Some(mut end) => {
                        let v = self.eval(&mut end, value, None, "%returned");
                        (end, v)
                    }
                    // The thread always panics or diverges: nothing to join.
                    None => (before.clone(), AVal::Unknown),
                };
                // What it stored into the spawning function's variables (`ev_k[d]` of its
                // `cl_event ev_k[N]`), where that differs from what they held.
                let mut stored = Vec::new();
                before.env.diff(&ended.env, |k, was, now| {
                    if let Some(now) = now.filter(|_| before.env.contains_key(&Place::var(k.var))) {
                        stored.push((k.clone(), was.cloned(), now.clone()));
                    }
                });
                let residency = (ended.residency.iter())
                    .filter(|(b, r)| before.residency.get(b) != Some(r))
                    .map(|(b, r)| (*b, *r))
                    .collect();
                let t = self.threads.len();
                self.threads.push(Thread {
                    completed: ended.completed.clone(),
                    value: v,
                    stored,
                    residency,
                });
                // The spawning thread goes on with its own bindings and host knowledge;
                // the thread's commands exist, unordered with what it enqueues next except
                // through one in-order queue.
                let mut st = before.join(&ended, &self.found, &mut |_, _| None);
                // Its own bindings, and the objects the thread found outside values to be
                // (`devs[0].queue`): one object wherever it is named.
                let found: Vec<(Place, AVal)> = (ended.env.iter())
                    .filter(|(k, v)| {
                        !before.env.contains_key(k)
                            && matches!(v, AVal::Obj(o) if self.outside.contains(o))
                    })
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect();
                st.env = before.env;
                st.env.extend(found);
                st.completed = before.completed;
                st.tail = ended.tail;
                st.live_raw = before
                    .live_raw
                    .intersection(&ended.live_raw)
                    .copied()
                    .chain(ended.live_raw.difference(&before.live_raw).copied())
                    .collect();
                self.overwrite(&mut st, handle);
                st.env.insert(handle.clone(), AVal::Thread(t));
                return Some(st);
            }
            Stmt::Closure {
                name,
                params,
                body,
                value,
                dst,
                span,
            } => {
                self.cur_span = *span;
                return self.closure(st, name.as_deref(), params, body, value, dst);
            }
            Stmt::Assume { value, some } => {
                // `None` where the value is an event or an object, `Some` where it is none:
                // this path is not taken.
                let none = |a: &AVal| match a {
                    AVal::Null | AVal::Int(0) => Some(true),
                    AVal::Int(_) | AVal::Above(..) => Some(false),
                    AVal::Events(e) if !e.is_empty() => Some(false),
                    AVal::Obj(_)
                    | AVal::List(_)
                    | AVal::Struct(_)
                    | AVal::Host { .. }
                    | AVal::Str(_) => Some(false),
                    _ => None,
                };
                // A member at an index not known (`ev[slot].is_null()`): what every member
                // the list holds is, where they agree.
                let members = match value {
                    Value::Place(p) => any_member_of(&st, &self.canonical(&self.concrete(&st, p)))
                        .filter(|(list, _)| matches!(st.env.get(list), None | Some(AVal::List(_))))
                        .map(|(_, all)| all),
                    _ => None,
                };
                let none = match members {
                    Some(all) => {
                        let first = none(&all[0]);
                        first.filter(|_| all.iter().all(|m| none(m) == first))
                    }
                    None => none(&self.eval(&mut st, value, None, "option")),
                };
                if none == Some(*some) {
                    return None;
                }
                if none.is_none() {
                    self.learn_from_test(&mut st, value, *some);
                }
                if none == Some(true) {
                    if let Some(o) = self.origin_of(value) {
                        st.declined_wait = Some(st.declined_wait.map_or(o, |d| d.min(o)));
                    }
                }
            }
            Stmt::Failed { value, commands } => {
                st.failed = true;
                let events = |v: &AVal| match v {
                    AVal::Events(evs) => evs.iter().copied().collect(),
                    _ => Vec::new(),
                };
                let mut failed: Vec<usize> = match self.eval(&mut st, value, None, "result") {
                    AVal::List(items) => items.iter().flat_map(events).collect(),
                    v => events(&v),
                };
                // A command named by id: its latest instance, the one the test is on.
                failed.extend(commands.iter().filter_map(|c| self.latest.get(c)));
                for i in failed {
                    st.live_raw.remove(&RawKey::Inst(i));
                    // A failed upload put nothing in its buffer.
                    st.init.retain(|_, init| init.uploads.last() != Some(&i));
                }
            }
            Stmt::Join { handle, dst } => {
                let joined: Vec<usize> = match self.eval(&mut st, handle, None, "thread") {
                    AVal::Thread(t) => vec![t],
                    // Not known which thread: every one spawned so far.
                    _ => (0..self.threads.len()).collect(),
                };
                let mut value = AVal::Unknown;
                // What the joined threads stored is seen now; a place two of them stored
                // different values into holds either. What they pushed onto a list is on
                // it after what it holds now (each thread's pushes, in the order the threads
                // are joined).
                // Likewise where it left the buffers it moved or wrote, where no other joined
                // thread left one elsewhere.
                let mut stored: BTreeMap<Place, AVal> = BTreeMap::new();
                let mut residency: HashMap<ObjId, Option<(usize, ObjId)>> = HashMap::new();
                for &t in &joined {
                    let thread = self.threads[t].clone();
                    st.completed.union_with(&thread.completed);
                    if joined.len() == 1 {
                        value = thread.value;
                    }
                    for (k, was, w) in thread.stored {
                        let now = stored.get(&k).or_else(|| st.env.get(&k));
                        let joined_value = match (was, &w, now) {
                            (Some(AVal::List(was)), AVal::List(after), Some(AVal::List(now)))
                                if after.starts_with(&was) && now.starts_with(&was) =>
                            {
                                let mut items = now.clone();
                                items.extend_from_slice(&after[was.len()..]);
                                AVal::List(items)
                            }
                            _ => match stored.get(&k) {
                                Some(prev) if *prev != w => AVal::Unknown,
                                _ => w,
                            },
                        };
                        stored.insert(k, joined_value);
                    }
                    for (b, r) in thread.residency {
                        let e = residency.entry(b).or_insert(Some(r));
                        if e.is_some_and(|(_, q)| q != r.1) {
                            *e = None;
                        }
                    }
                }
                for (k, w) in stored {
                    if st.env.contains_key(&Place::var(k.var)) {
                        st.env.insert(k, w);
                    }
                }
                for (b, r) in residency {
                    match r {
                        Some(r) => st.residency.insert(b, r),
                        None => st.residency.remove(&b),
                    };
                }
                st.env.insert(dst.clone(), value);
            }
            Stmt::ErrorExit => st.error_exit = true,
            Stmt::Received => {
                self.messaged.insert(self.thread_now);
            }
            // Threads are followed one after another: one that arrives learns what those
            // that arrived at the same pass before it knew, and leaves what it knows for
            // those after it. What it knows complete there orders its earlier commands
            // before what the threads followed before it made past that pass.
            Stmt::Rendezvous { barrier } => {
                if let Value::Place(p) = barrier {
                    let key = self.canonical(&self.concrete(&st, p));
                    let pass = Rc::make_mut(&mut self.passed)
                        .entry(key.clone())
                        .or_insert(0);
                    *pass += 1;
                    let pass = *pass;
                    let known = self.rendezvous.entry((key.clone(), pass)).or_default();
                    known.union_with(&st.completed);
                    st.completed.union_with(known);
                    self.settle_races(Some((&key, pass)), &st.completed);
                }
                // Past a barrier another thread may have written the program's global host
                // data (a master publishing new centres): what it holds is not known.
                let shared: Vec<HostId> = (st.env.iter())
                    .filter(|(k, _)| self.vars[k.var].global.is_some())
                    .filter_map(|(_, v)| match v {
                        AVal::Host { id, .. } => Some(*id),
                        _ => None,
                    })
                    .collect();
                for id in shared {
                    self.bump_host(&mut st, id);
                }
            }
            Stmt::Break => {
                if let Some(cx) = self.loops.last_mut() {
                    cx.breaks.push(st);
                }
                return None;
            }
            Stmt::Continue => {
                if let Some(cx) = self.loops.last_mut() {
                    cx.continues.push(st);
                }
                return None;
            }
            Stmt::Return { value, span } => {
                if self.inlined.is_empty() {
                    // What the function returns leaves it.
                    self.forget(&mut st, std::slice::from_ref(value));
                    self.returns.push((st, *span));
                } else {
                    let v = self.eval(&mut st, value, None, "%returned");
                    // A definite place of the caller's, or from outside both.
                    let from = self.inlined.last().map_or(0, |cx| cx.vars_from);
                    let place = match (value, &v) {
                        (Value::Place(p), AVal::External) => {
                            Some(self.canonical(&self.concrete(&st, p)))
                                .filter(|c| c.is_definite() && c.var < from)
                        }
                        _ => None,
                    };
                    if let Some(cx) = self.inlined.last_mut() {
                        match st.error_exit {
                            true => cx.error_returns.push((st, v)),
                            false => {
                                cx.returns.push((st, v));
                                cx.places.push(place);
                            }
                        }
                    }
                }
                return None;
            }
            Stmt::Call {
                callee,
                recv,
                args,
                dst,
                span,
            } => {
                self.cur_span = *span;
                return self.call(st, callee, recv.as_ref(), args, dst);
            }
            Stmt::Signal { event, span } => {
                self.cur_span = *span;
                self.settle_gates(None, Some(&st.completed));
                if let AVal::Obj(o) = self.eval(&mut st, event, Some(RoleHint::Event), "event") {
                    if matches!(self.objs[o].kind, ObjKind::UserEvent) {
                        self.signal(&mut st, o);
                    }
                }
            }
            Stmt::Release { events, span } => {
                self.cur_span = *span;
                self.reading_events = true;
                let a = self.released(&mut st, events);
                self.reading_events = false;
                if trace::on() {
                    trace::line(format!("  release {a:?}"));
                }
                match self.array_element(&st, events) {
                    // An element of one of the function's arrays: any event stored in that
                    // array's elements at that place may be the one.
                    Some(at) => {
                        // At a known index whose value is known, that value or one stored
                        // at an index not known.
                        let unknown = untracked(&a);
                        let one = at.is_definite() && !unknown;
                        let at = at.at_any_index();
                        if !one {
                            self.released_arrays.insert(at.clone());
                        }
                        self.hand_on_elements(&mut st, &at, one);
                        match a {
                            // Not known which: not one held only in another array's elements.
                            _ if unknown => {
                                let kept = self.only_in_arrays(&st);
                                (st.live_raw)
                                    .retain(|k| matches!(k, RawKey::Inst(i) if kept.contains(i)));
                            }
                            _ => self.release(&mut st, &a),
                        }
                    }
                    None => self.release(&mut st, &a),
                }
            }
            Stmt::Op {
                op,
                recv,
                args,
                arg_spans,
                arg_bytes,
                dst,
                id,
                span,
            } => {
                self.cur_span = *span;
                self.op(
                    &mut st, *op, recv, args, arg_spans, *arg_bytes, dst, *id, *span,
                );
            }
        }
        Some(st)
    }
}

/// Whether a released value may be an event the analysis does not know of.
fn untracked(a: &AVal) -> bool {
    match a {
        AVal::Unknown | AVal::External => true,
        AVal::Events(s) => s.is_empty(),
        AVal::List(items) => items.iter().any(untracked),
        _ => false,
    }
}

/// The value at a place: its own binding, else the part of the list or struct value the
/// nearest bound place above it holds, where the path to it is constant.
fn part_mut<'e>(env: &'e mut Env, p: &Place) -> Option<&'e mut AVal> {
    let bound = (0..=p.proj.len()).rev().find(|&k| {
        env.contains_key(&Place {
            var: p.var,
            proj: p.proj[..k].to_vec(),
        })
    })?;
    let root = Place {
        var: p.var,
        proj: p.proj[..bound].to_vec(),
    };
    let mut v = env.get_mut(&root)?;
    for x in &p.proj[bound..] {
        v = match (v, x) {
            (AVal::Struct(fields), Proj::Field(f)) => fields.get_mut(f)?,
            (AVal::List(items), Proj::Index(n)) => items.get_mut(*n as usize)?,
            _ => return None,
        };
    }
    Some(v)
}

/// What a loop of `n` passes leaves where its passes alternate. A place that holds an
/// object or an integer after the first pass, another after the second, and after the
/// second what it held before the loop (`tmp = cur[d]; cur[d] = nxt[d]; nxt[d] = tmp`,
/// `cur = 1 - cur`; a member of an outside list: as it was first found) holds after the
/// last pass what the first pass left if `n` is odd, else what the second left.
fn alternating(
    entry: &Env,
    found: &BTreeMap<Place, AVal>,
    first: &Env,
    second: &Env,
    n: u64,
) -> Vec<(Place, AVal)> {
    let mut out = Vec::new();
    first.diff(second, |k, a, b| {
        if let (Some(a), Some(b)) = (a, b) {
            let alternates = matches!(
                (a, b),
                (AVal::Obj(_), AVal::Obj(_)) | (AVal::Int(_), AVal::Int(_))
            ) && entry.get(k).or_else(|| found.get(k)) == Some(b);
            if alternates {
                out.push((k.clone(), if n % 2 == 1 { a } else { b }.clone()));
            }
        }
    });
    out
}

/// A loop's test, where its body starts with one: the statements that compute it (`d--` of
/// `d-- > 0`) and the choice with an arm that only leaves the loop, before anything that
/// could leave it or loop itself.
fn loop_test(body: &[Stmt]) -> Option<LoopTest<'_>> {
    for (i, s) in body.iter().enumerate() {
        match s {
            Stmt::Branch(arms) => {
                let leaves = arms.iter().find_map(|a| match a.split_last() {
                    Some((Stmt::Break, rest))
                        if rest.iter().all(|x| matches!(x, Stmt::Assume { .. })) =>
                    {
                        Some(rest)
                    }
                    _ => None,
                })?;
                let cond = match leaves {
                    [Stmt::Assume { value, some: false }] => Some(value),
                    _ => None,
                };
                return Some(LoopTest {
                    before: &body[..i],
                    cond,
                });
            }
            Stmt::Break | Stmt::Continue | Stmt::Return { .. } | Stmt::Loop(_) => return None,
            _ => {}
        }
    }
    None
}

impl Analyzer<'_> {
    /// What a test of an integer the analysis does not know against zero tells of it on the
    /// path where the test gave `holds`: `if (steps > 0)` taken, `steps` is above 0; not
    /// taken, it is 0 or less, and a loop up to it ends the path (see
    /// [`Analyzer::for_each`]): `for (t = 0; t < steps; t++) ..; if (steps > 0)
    /// clWaitForEvents(..)` waits wherever the loop ran. `x == 0` and `x != 0` tell it only
    /// of a place that holds a number.
    fn learn_from_test(&mut self, st: &mut State, value: &Value, holds: bool) {
        use ArithOp::*;
        let Value::Arith { op, lhs, rhs } = value else {
            return;
        };
        let (place, zero, number_only) = match (op, &**lhs, &**rhs) {
            (Gt, Value::Place(p), Value::Int(0))
            | (Lt, Value::Int(0), Value::Place(p))
            | (Ge, Value::Place(p), Value::Int(1))
            | (Le, Value::Int(1), Value::Place(p)) => (p, !holds, false),
            (Le, Value::Place(p), Value::Int(0))
            | (Ge, Value::Int(0), Value::Place(p))
            | (Lt, Value::Place(p), Value::Int(1))
            | (Gt, Value::Int(1), Value::Place(p)) => (p, holds, false),
            (Ne, Value::Place(p), Value::Int(0)) | (Ne, Value::Int(0), Value::Place(p)) => {
                (p, !holds, true)
            }
            (Eq, Value::Place(p), Value::Int(0)) | (Eq, Value::Int(0), Value::Place(p)) => {
                (p, holds, true)
            }
            _ => return,
        };
        let place = self.canonical(&self.concrete(st, place));
        if !place.is_definite() {
            return;
        }
        let known = match self.resolve(st, &place, None) {
            AVal::Scalar => true,
            AVal::Unknown | AVal::External => !number_only,
            _ => false,
        };
        if known {
            let learnt = match zero {
                true => AVal::NotAbove0,
                false => AVal::Above(0, None),
            };
            st.env.insert(place, learnt);
        }
    }
}

/// For a member at an index not known (`ev[slot]`, a place already concrete): its list, and
/// the members the function stored in it one by one, where there are any.
fn any_member_of(st: &State, c: &Place) -> Option<(Place, Vec<AVal>)> {
    let Some((Proj::AnyIndex, list)) = c.proj.split_last() else {
        return None;
    };
    let list = Place {
        var: c.var,
        proj: list.to_vec(),
    };
    let members: Vec<AVal> = st.env.members(&list).into_iter().map(|(_, v)| v).collect();
    (!members.is_empty()).then_some((list, members))
}

/// Whether a branch is a wait on a list guarded by a test that the list is not empty
/// (`if !evs.is_empty() { wait_for_events(&evs)?; }`), with nothing else in either arm:
/// the guard only keeps an empty list from the call.
fn guarded_wait(arms: &[Vec<Stmt>]) -> bool {
    let [then, other] = arms else {
        return false;
    };
    let [Stmt::Assume { value, some: true }, Stmt::Wait { events, .. }] = then.as_slice() else {
        return false;
    };
    let Value::Arith { op, lhs, rhs } = value else {
        return false;
    };
    let nonempty = match (op, &**lhs, &**rhs) {
        (ArithOp::Gt | ArithOp::Ne, Value::Len(list), Value::Int(0)) => **list == *events,
        _ => false,
    };
    nonempty
        && match other.as_slice() {
            [] => true,
            [Stmt::Assume {
                value: v,
                some: false,
            }] => v == value,
            _ => false,
        }
}
