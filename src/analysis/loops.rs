//! Loops: the bounds on running loops, and a loop over a list run once per member when the
//! list is known, else as a loop over "some member".

use super::calls::stmt_count;
use super::env::Places;
use super::values::remove_parts;
use super::*;

/// Loops nested up to this depth run for two iterations; deeper ones for one, so the work
/// stays linear in the size of the function (at most `2^TWO_ITERATION_DEPTH` times).
pub(super) const TWO_ITERATION_DEPTH: usize = 4;

/// How many devices, buffers or items a count no one knows stands for: two, the fewest
/// for which work can be shared, and as many iterations as other loops run for.
pub(super) const ASSUMED_COUNT: u64 = 2;

/// A loop over a known list runs once per member when the list has at most this many.
const MAX_UNROLL: usize = 16;

/// Statements interpreted in loops run once per member, all loops of a function together:
/// past this, loops run as loops over "some member" (nested unrolling would multiply).
pub(super) const MAX_UNROLLED_STMTS: usize = 20_000;

/// A loop of a known count too long to run pass by pass runs this many passes with its
/// counter known before the passes that stand for the rest.
pub(super) const PEELED_PASSES: u64 = 2;

/// Loops nested deeper than this are not peeled, so peeling cannot multiply.
pub(super) const PEEL_DEPTH: usize = 2;

/// Loops run once per member nest at most this deep: a deeper one runs as a loop over "some
/// member", so nested unrolling cannot multiply past `MAX_UNROLL^MAX_UNROLL_DEPTH` times.
const MAX_UNROLL_DEPTH: usize = 3;

/// A loop's own test at the start of its body (`while (n > 0)`): the statements that
/// compute it, and the condition where the analysis can read it.
pub(super) struct LoopTest<'b> {
    pub(super) before: &'b [Stmt],
    pub(super) cond: Option<&'b Value>,
}

#[derive(Default)]
pub(super) struct LoopCx {
    pub(super) breaks: Vec<State>,
    pub(super) continues: Vec<State>,
    /// Which pass of which loop this is, counted over the whole analysis.
    pub(super) serial: usize,
}

/// What a loop source walks, as far as the analysis knows it.
enum Walk {
    /// The members of a known list (held at a place, when it is a variable's, with the
    /// index of the first member walked), or the integers of a known range.
    Known(Vec<AVal>, Option<(Place, u64)>),
    /// The members of a list from outside (a parameter, a field), from an index on: its
    /// members are named by their index (`queues[0]`), each an object of its own.
    Outside(Place, u64),
    /// `from..n` for an `n` not known.
    Counted(u64),
    /// Something the analysis does not follow, walked beside something it does
    /// (`queues.iter().zip(out.kernels.iter().filter(..))`): its members are not known, nor
    /// how many.
    Opaque,
    /// Pieces of host data (`out.chunks_mut(n)`, one per device in multi-device code): each
    /// member is host data of its own; how many is not known, so the loop runs as over a
    /// list from outside.
    Pieces,
}

impl<'f> Analyzer<'f> {
    /// The walk of a list's members from index `from` on.
    fn members_walk(&mut self, st: &mut State, v: &Value, from: u64) -> Option<Walk> {
        Some(match (self.eval(st, v, None, "list"), v) {
            (AVal::List(items), Value::Place(l)) => {
                let l = self.canonical(&self.concrete(st, l));
                Walk::Known(
                    items.into_iter().skip(from as usize).collect(),
                    Some((l, from)),
                )
            }
            (AVal::List(items), _) => {
                Walk::Known(items.into_iter().skip(from as usize).collect(), None)
            }
            // An `Option` of one event walked as a list (`for e in prev.into_iter()`): that
            // event, or nothing for `None`.
            (e @ AVal::Events(_), _) => {
                Walk::Known([e].into_iter().skip(from as usize).collect(), None)
            }
            (AVal::Null, _) => Walk::Known(Vec::new(), None),
            // A literal array of numbers (`for (run, n) in [8, 32].into_iter().enumerate()`):
            // as many numbers, each pass with its count known.
            (
                AVal::Host {
                    kind: HostKind::Array { len: Some(n) },
                    ..
                },
                Value::Host { base: None, .. },
            ) if n as usize <= MAX_UNROLL => Walk::Known(
                vec![AVal::Scalar; n as usize]
                    .into_iter()
                    .skip(from as usize)
                    .collect(),
                None,
            ),
            // A list from outside, or host data (`batches: Vec<Vec<f32>>`, whose members
            // the analysis does not follow but whose walk has a count).
            (AVal::External | AVal::Host { .. }, Value::Place(l)) => {
                Walk::Outside(self.canonical(&self.concrete(st, l)), from)
            }
            // A local list of a length not known whose members the function stored by index
            // (`std::vector<cl_event> ev(n)`, then `&ev[d]` in a loop up to `n`): its members
            // are those places, as many as that loop ran passes.
            (AVal::Unknown, Value::Place(l)) => {
                let l = self.canonical(&self.concrete(st, l));
                let last = (st.env.members(&l).into_iter())
                    .filter_map(|(m, _)| match m {
                        Proj::Index(i) => Some(i),
                        _ => None,
                    })
                    .max()?;
                if last as usize >= MAX_UNROLL {
                    return None;
                }
                // Every member up to the last one stored: one not stored is not known.
                let items = (from..=last)
                    .map(|i| {
                        let mut m = l.clone();
                        m.proj.push(Proj::Index(i));
                        st.env.get(&m).cloned().unwrap_or(AVal::Unknown)
                    })
                    .collect();
                Walk::Known(items, Some((l, from)))
            }
            _ => return None,
        })
    }

    /// What one source walks; `None` when the analysis cannot tell.
    fn walk_of(&mut self, st: &mut State, src: &EachSource) -> Option<Walk> {
        Some(match src {
            EachSource::Members(v) => self.members_walk(st, v, 0)?,
            EachSource::MembersFrom(v, from) => self.members_walk(st, v, *from)?,
            EachSource::Upto(v) => match self.eval(st, v, None, "n") {
                AVal::Int(n) if n as usize <= MAX_UNROLL => {
                    Walk::Known((0..n).map(AVal::Int).collect(), None)
                }
                AVal::Int(_) => return None,
                // A count the function found out (`clGetDeviceIDs(.., &ndev)`): that many.
                _ => match self.assume_count(st, v) {
                    Some(n) => Walk::Known((0..n).map(AVal::Int).collect(), None),
                    None => Walk::Counted(0),
                },
            },
            EachSource::UptoLen(from, v) => match self.eval(st, v, None, "list") {
                AVal::List(items) => {
                    Walk::Known((*from..items.len() as u64).map(AVal::Int).collect(), None)
                }
                _ => Walk::Counted(*from),
            },
            EachSource::Pieces(_) => Walk::Pieces,
            EachSource::Among(_) => return None,
            // Last first: a known walk reversed; one of a count not known is not followed.
            EachSource::Rev(inner) => match self.walk_of(st, inner)? {
                Walk::Known(mut items, _) => {
                    items.reverse();
                    Walk::Known(items, None)
                }
                _ => return None,
            },
            EachSource::Range(a, b) => {
                match (self.eval(st, a, None, "n"), self.eval(st, b, None, "n")) {
                    (AVal::Int(a), AVal::Int(b)) if b.saturating_sub(a) as usize <= MAX_UNROLL => {
                        Walk::Known((a..b).map(AVal::Int).collect(), None)
                    }
                    (AVal::Int(_), AVal::Int(_)) => return None,
                    // Up to a count the function found out: as far as every loop up to it.
                    (AVal::Int(a), _) => match self.assume_count(st, b) {
                        Some(n) => Walk::Known((a..n.max(a)).map(AVal::Int).collect(), None),
                        None => Walk::Counted(a),
                    },
                    _ => return None,
                }
            }
        })
    }

    /// A loop up to a count the analysis does not know (`clGetDeviceIDs(.., &ndev)`, then
    /// `for (i = 0; i < ndev; i++)`; a count a caller gives): the program is taken to run
    /// with [`ASSUMED_COUNT`] of them, as loops are followed for two iterations, so the
    /// count's variable holds it from here on and every loop up to it, and every test of it
    /// (`if (i + 1 < ndev)`), agrees. Returns the loop's count, `None` where the bound is no
    /// such variable (or one plus or minus a constant, `i <= n`, `i < n - 1`).
    pub(super) fn assume_count(&mut self, st: &mut State, bound: &Value) -> Option<u64> {
        let (place, count) = match bound {
            Value::Place(p) => (p, Some(ASSUMED_COUNT)),
            Value::Arith { op, lhs, rhs } => match (op, &**lhs, &**rhs) {
                (ArithOp::Add, Value::Place(p), Value::Int(k)) => {
                    (p, ASSUMED_COUNT.checked_add(*k))
                }
                (ArithOp::Sub, Value::Place(p), Value::Int(k)) => {
                    (p, ASSUMED_COUNT.checked_sub(*k))
                }
                _ => return None,
            },
            _ => return None,
        };
        let place = self.canonical(&self.concrete(st, place));
        if !place.is_definite()
            || !matches!(
                self.resolve(st, &place, None),
                AVal::Scalar | AVal::Above(..) | AVal::Unknown | AVal::External
            )
        {
            return None;
        }
        st.env.insert(place, AVal::Int(ASSUMED_COUNT));
        count
    }

    /// A loop that starts with its own test: pass by pass for as long as the analysis
    /// decides the test (`while (n_ev > 0) clReleaseEvent(ev[--n_ev])` with `n_ev` known
    /// releases every event), within the bounds on unrolling; from the first pass whose
    /// test it cannot decide, as a loop of some passes. A test is decided where what
    /// computes it only assigns (`d--` of `d-- > 0`) and its condition is an integer.
    pub(super) fn run_tested_loop(
        &mut self,
        body: &[Stmt],
        test: LoopTest<'_>,
        mut st: State,
    ) -> Option<State> {
        let cost = stmt_count(body);
        let mut exits = Vec::new();
        let pure = test
            .before
            .iter()
            .all(|s| matches!(s, Stmt::Assign { value, .. } if is_arith(value)));
        if let Some(cond) = test.cond.filter(|_| pure) {
            for _ in 0..MAX_UNROLL {
                if self.unroll_depth >= MAX_UNROLL_DEPTH
                    || self.unrolled + cost > MAX_UNROLLED_STMTS
                    || !self.decides(&st, test.before, cond)
                {
                    break;
                }
                self.unrolled += cost;
                self.unroll_depth += 1;
                let next = self.pass_on(body, st, &mut exits);
                self.unroll_depth -= 1;
                match next {
                    Some(s) => st = s,
                    None => return self.join_all(exits),
                }
            }
        }
        exits.extend(self.run_counted_loop(body, st, 1, None, &[]));
        self.join_all(exits)
    }

    /// Whether the test `cond`, computed by `before` from `st`, has an outcome the analysis
    /// knows.
    fn decides(&mut self, st: &State, before: &[Stmt], cond: &Value) -> bool {
        let mut s = st.clone();
        for x in before {
            if let Stmt::Assign { dst, value, .. } = x {
                let v = self.eval(&mut s, value, None, "n");
                s.env.insert(dst.clone(), v);
            }
        }
        matches!(self.eval(&mut s, cond, None, "n"), AVal::Int(_))
    }

    /// A list collected from out-of-order queues made per pass: its members are out of
    /// order wherever they are named (`queues[1]`).
    fn note_collected(&mut self, d: &Place, tail: &Value) {
        if let Value::New(NewObject::Queue {
            out_of_order: true, ..
        }) = tail
        {
            self.ooo_lists.insert(d.clone());
        }
    }

    /// A loop over lists or a range. Over known lists, once per member. Over lists from
    /// outside or ranges of a count not known, as two passes, at members 0 and 1 (`queues[0]`,
    /// `queues[1]`): code that loops over devices is followed as it runs on two, and every
    /// loop over the same count runs as many passes, so what one loop makes per device
    /// another finds (`events[i]` made in one loop, released in the next). Else, or past the
    /// bounds on unrolling, as a loop whose bindings are "some member".
    pub(super) fn for_each(
        &mut self,
        mut st: State,
        sources: &[EachSource],
        binds: &[(Place, EachPart)],
        body: &[Stmt],
        tail: &Value,
        dst: Option<&Place>,
    ) -> Option<State> {
        // Up to a count a test found to be 0 or less: the program is taken to run with
        // counts of `ASSUMED_COUNT` (as every loop up to a count not known is), so this path,
        // where the count was tested as none, is not one of its runs.
        let bounds = sources.iter().filter_map(|s| match s {
            EachSource::Upto(Value::Place(p)) | EachSource::Range(_, Value::Place(p)) => Some(p),
            _ => None,
        });
        for p in bounds {
            let place = self.canonical(&self.concrete(&st, p));
            if matches!(st.env.get(&place), Some(AVal::NotAbove0)) {
                return None;
            }
        }
        // A member of a list the function was given (`for part in self.parts.iter()`) is
        // given as the list is: its caller's, and through `self` the method's own.
        for (p, part) in binds {
            let EachPart::Member(src) = part else {
                continue;
            };
            if let Some(
                EachSource::Members(Value::Place(l))
                | EachSource::MembersFrom(Value::Place(l), _)
                | EachSource::Among(Value::Place(l)),
            ) = sources.get(*src)
            {
                if self.callee_params.contains(&l.var) {
                    self.callee_params.insert(p.var);
                    if let Some(&o) = self.param_origin.get(&l.var) {
                        self.param_origin.insert(p.var, o);
                    }
                    if self.callee_receivers.contains(&l.var) {
                        self.callee_receivers.insert(p.var);
                    }
                }
            }
        }
        self.walked_in_place.clear();
        let mut walks = Vec::new();
        for src in sources {
            walks.push(self.walk_of(&mut st, src).unwrap_or(Walk::Opaque));
        }
        // A list the analysis lost (`ids` after `ids.truncate(nd)`) mapped into a new one
        // (`ids.iter().map(|&d| make_queue(d)).collect()`): as many passes as a list from
        // outside has, each member not known, each value one of the new list's.
        if walks.iter().all(|w| matches!(w, Walk::Opaque))
            && !(dst.is_some()
                && sources
                    .iter()
                    .all(|s| matches!(s, EachSource::Members(Value::Place(_)))))
        {
            walks.clear();
        }
        let unknown_count = walks.iter().any(|w| !matches!(w, Walk::Known(..)));
        let n = walks
            .iter()
            .filter_map(|w| match w {
                Walk::Known(items, _) => Some(items.len()),
                _ => None,
            })
            // A list of a count not known has as many members as loops run passes, less those
            // a sub-slice skips (`&queues[1..]`).
            .chain(walks.iter().filter_map(|w| match w {
                Walk::Known(..) => None,
                Walk::Outside(_, from) => {
                    Some((ASSUMED_COUNT as usize).saturating_sub(*from as usize))
                }
                _ => Some(ASSUMED_COUNT as usize),
            }))
            .min()
            .unwrap_or(0);
        let cost = stmt_count(body) * n;
        if walks.len() != sources.len()
            || sources.is_empty()
            || n > MAX_UNROLL
            || self.unroll_depth >= MAX_UNROLL_DEPTH
            || self.unrolled + cost > MAX_UNROLLED_STMTS
        {
            return self.loop_over_some_member(st, sources, binds, body, tail, dst);
        }
        self.unrolled += cost;
        let mut cur = Some(st);
        let mut exits = Vec::new();
        let mut values = Vec::new();
        let mut handed = Vec::new();
        for k in 0..n {
            let Some(mut s) = cur.take() else { break };
            for (p, part) in binds {
                let v = match part {
                    EachPart::Member(src) => match &walks[*src] {
                        // A struct member is another name for the list's member: what the
                        // pass stores into its fields (`sh.done = Some(ev)` over
                        // `shards.iter_mut()`) is stored into the list's.
                        Walk::Known(items, Some((l, from)))
                            if p.proj.is_empty() && matches!(items[k], AVal::Struct(_)) =>
                        {
                            self.bind_in_place(&mut s, p, l, k as u64 + from);
                            continue;
                        }
                        // A member object is shown as the list's member (`queues[1]`).
                        Walk::Known(items, Some((l, from))) => {
                            if let AVal::Obj(o) = items[k] {
                                let mut member = l.clone();
                                member.proj.push(Proj::Index(k as u64 + from));
                                let name = self.place_name(&member);
                                self.shown.insert(o, name);
                            }
                            items[k].clone()
                        }
                        Walk::Known(items, None) => items[k].clone(),
                        Walk::Counted(from) => AVal::Int(from + k as u64),
                        // The member is the list's own place: it is made an object of the
                        // role it plays there, one per index.
                        Walk::Outside(l, from) if p.proj.is_empty() => {
                            self.bind_in_place(&mut s, p, l, k as u64 + from);
                            continue;
                        }
                        Walk::Pieces => AVal::Host {
                            kind: HostKind::Slice,
                            id: self.new_host(self.place_name(p)),
                        },
                        Walk::Outside(..) | Walk::Opaque => AVal::Unknown,
                    },
                    EachPart::Count => AVal::Int(k as u64),
                    EachPart::Unknown => AVal::Unknown,
                };
                self.ext_alias.remove(&p.var);
                remove_parts(&mut s.env, p, true);
                self.drop_elements(&mut s, p.var);
                s.env.insert(p.clone(), v);
            }
            self.unroll_depth += 1;
            let (end, cx) = self.pass(body, s);
            self.unroll_depth -= 1;
            let mut ends: Vec<State> = Vec::new();
            if let Some(mut e) = end {
                if dst.is_some() {
                    let v = self.eval(&mut e, tail, None, "%item");
                    let mut given = BTreeSet::new();
                    super::join::raw_in(&v, &mut given);
                    for k in given {
                        if self.collecting.insert(k) {
                            handed.push(k);
                        }
                    }
                    values.push(v);
                    // The pass's value is the collection's now (`.map(|..| enqueue(..))`):
                    // the next pass's value replaces nothing in the temporary.
                    if let Value::Place(t) = tail {
                        if t.proj.is_empty() && self.vars[t.var].name.starts_with('%') {
                            e.env.remove(t);
                        }
                    }
                }
                ends.push(e);
            }
            if !cx.continues.is_empty() {
                values.clear();
            }
            ends.extend(cx.continues);
            if !cx.breaks.is_empty() {
                values.clear();
            }
            exits.extend(cx.breaks);
            cur = self.join_all(ends);
        }
        // Over a list of a count not known, what each pass made (`Worker::new(..)` per
        // device): the members of the passes run, as the passes stand for the devices.
        // Threads spawned per pass are as much its own as objects made per pass.
        let threads = values.iter().all(|v| matches!(v, AVal::Thread(_)));
        // So are the events of the commands each pass enqueued (`.map(|q| launch(q, ..))`),
        // also where a pass's event is one of several of its own (the last of a chain of
        // launches a loop of its own makes).
        let events = (values.iter().enumerate()).all(|(k, v)| match v {
            AVal::Events(e) => {
                !e.is_empty()
                    && (values[..k].iter())
                        .all(|w| matches!(w, AVal::Events(f) if e.is_disjoint(f)))
            }
            _ => false,
        });
        let made = values.iter().all(|v| matches!(v, AVal::Struct(_)))
            || super::join::distinct_objects(&values)
            || events
            || (threads && super::join::distinct(&values));
        for k in handed {
            self.collecting.remove(&k);
        }
        let complete = cur.is_some() && values.len() == n && (!unknown_count || made);
        // Lists whose members were bound in place in every pass.
        let bound_lists = binds.iter().filter(|(p, _)| p.proj.is_empty());
        let in_place: Vec<Place> = (bound_lists.filter_map(|(_, part)| match part {
            EachPart::Member(src) => walks.get(*src),
            _ => None,
        }))
        .filter_map(|w| match w {
            Walk::Outside(l, _) => Some(l.clone()),
            Walk::Known(items, Some((l, _)))
                if items.iter().all(|i| matches!(i, AVal::Struct(_))) =>
            {
                Some(l.clone())
            }
            _ => None,
        })
        .collect();
        self.walked_in_place = in_place.into_iter().collect();
        exits.extend(cur);
        let mut out = self.join_all(exits)?;
        if let Some(d) = dst {
            let v = if complete {
                // What a pass made is named by the member it became (`lanes[1].state`).
                let list = self.place_name(d);
                let named = !list.starts_with('%');
                for (k, v) in values.iter().enumerate().filter(|_| named) {
                    self.name_as_member(&format!("{list}[{k}]"), v);
                }
                AVal::List(values)
            } else {
                // What the passes gave goes into a collection not followed.
                for v in &values {
                    self.hand_on(&mut out, v);
                }
                collected(tail, binds)
            };
            self.note_collected(d, tail);
            out.env.insert(d.clone(), v);
        }
        Some(out)
    }

    /// Binds a loop's item `p` as another name for member `at` of `list`.
    fn bind_in_place(&mut self, s: &mut State, p: &Place, list: &Place, at: u64) {
        remove_parts(&mut s.env, p, true);
        s.env.remove(p);
        let mut member = list.clone();
        member.proj.push(Proj::Index(at));
        self.ext_alias.insert(p.var, member);
    }

    /// Names what `v` holds as the member of a list it became (`lanes[1].state` for the
    /// `state` field of `lanes[1]`), where the objects are named by no place of their own:
    /// a temporary, or the local of the constructor that made them (`state`).
    pub(super) fn name_as_member(&mut self, member: &str, v: &AVal) {
        let mut objects = Vec::new();
        nested_objects(v, &mut String::new(), &mut objects);
        for (path, o) in objects {
            // Each notes the member it is, deeper in structs within it too
            // (`(Handle(q), Handle(buf))`), for telling apart objects of one name.
            self.objs[o]
                .member
                .get_or_insert_with(|| format!("{member}{path}"));
            // Only the member itself or a field of it (`.state`) is renamed.
            if path.matches('.').count() > 1 {
                continue;
            }
            let own = &self.objs[o].name;
            let made_in_callee = self.objs[o].made_in > self.frame();
            if own.starts_with('%') || format!(".{own}") == path || made_in_callee {
                self.rename(o, format!("{member}{path}"));
                self.objs[o].made_in = self.frame();
            }
        }
    }

    /// A loop whose bindings are "some member": a place `list[_]` never proves two members
    /// equal.
    fn loop_over_some_member(
        &mut self,
        mut st: State,
        sources: &[EachSource],
        binds: &[(Place, EachPart)],
        body: &[Stmt],
        tail: &Value,
        dst: Option<&Place>,
    ) -> Option<State> {
        // Counters from a constant (`0..n`, `(t = 1; t < n; t++)`): bound by the loop.
        let counters: Vec<(Place, u64)> = (binds.iter())
            .filter_map(|(p, part)| {
                let EachPart::Member(s) = part else {
                    return None;
                };
                match sources.get(*s)? {
                    EachSource::Upto(_) => Some((p.clone(), 0)),
                    EachSource::UptoLen(from, _) | EachSource::Range(Value::Int(from), _) => {
                        Some((p.clone(), *from))
                    }
                    _ => None,
                }
            })
            .collect();
        let mut looped: Vec<Stmt> = binds
            .iter()
            .filter(|(p, _)| !counters.iter().any(|(c, _)| c == p))
            .map(|(p, part)| Stmt::Assign {
                dst: p.clone(),
                value: match (
                    part,
                    sources.get(match part {
                        EachPart::Member(s) => *s,
                        _ => usize::MAX,
                    }),
                ) {
                    (
                        EachPart::Member(_),
                        Some(
                            EachSource::Members(Value::Place(l))
                            | EachSource::MembersFrom(Value::Place(l), _)
                            | EachSource::Among(Value::Place(l)),
                        ),
                    ) => {
                        let mut l = l.clone();
                        l.proj.push(Proj::AnyIndex);
                        Value::Place(l)
                    }
                    (EachPart::Count, _) => Value::Scalar,
                    // A piece of host data: host data of its own in each pass.
                    (EachPart::Member(_), Some(EachSource::Pieces(_))) => Value::Host {
                        kind: HostKind::Slice,
                        base: None,
                    },
                    // A range from a start not known (counters from a constant are bound by
                    // the loop, above).
                    (EachPart::Member(_), Some(EachSource::Range(..))) => Value::Scalar,
                    _ => Value::Unknown,
                },
                span: Span::default(),
            })
            .collect();
        // `for h in handles { h.join() }`: a join of a handle not known joins every thread
        // spawned so far, and a list with no handle in it is no reason to think a thread
        // still runs, so the loop is taken to run at least once.
        let joins_each = body.iter().any(|s| {
            matches!(s, Stmt::Join { handle: Value::Place(h), .. }
                if binds.iter().any(|(p, _)| p.var == h.var))
        });
        // A loop over a constant count (`for (t = 0; t < STEPS; t++)`, too many to unroll;
        // `let steps = 64; for t in 0..steps`) runs that many times; zipped with a walk of
        // a count not known, at least once.
        let mut int = |v: &Value| match self.eval(&mut st, v, None, "n") {
            AVal::Int(n) => Some(n),
            _ => None,
        };
        let counts: Vec<Option<u64>> = (sources.iter())
            .map(|s| match s {
                EachSource::Upto(n) => int(n),
                EachSource::Range(a, b) => Some(int(b)?.saturating_sub(int(a)?)),
                _ => None,
            })
            .collect();
        let least = counts.iter().flatten().min().copied().unwrap_or(0);
        let all_counted = counts.iter().all(Option::is_some);
        let counted = match all_counted {
            true => least,
            false => least.min(1),
        };
        looped.extend(body.iter().cloned());
        let min_passes = counted.max(u64::from(joins_each));
        let exact = (all_counted && !counts.is_empty()).then_some(least);
        let mut out = self.run_counted_loop(&looped, st, min_passes, exact, &counters)?;
        if let Some(d) = dst {
            self.note_collected(d, tail);
            out.env.insert(d.clone(), collected(tail, binds));
        }
        Some(out)
    }
}

/// What a loop of unknown count collects (`devices.iter().map(|d| CommandQueue::create(..))
/// .collect()`): how many is not known, but made anew in each pass, each member named by a
/// constant index is an object of its own, as the members of a list from outside are. So is
/// a struct made per pass (`Lane { queue: CommandQueue::create(..)?, device: d }`) whose
/// fields are all made in the pass or are the pass's own item: a field holding an object
/// from before the loop would be the same object in every member.
fn collected(tail: &Value, binds: &[(Place, EachPart)]) -> AVal {
    let own = |v: &Value| match v {
        Value::New(_) | Value::Scalar | Value::Int(_) | Value::Str(_) | Value::Null => true,
        Value::Host { base: None, .. } => true,
        Value::Place(p) => binds.iter().any(|(b, _)| b.var == p.var),
        _ => false,
    };
    match tail {
        Value::New(_) => AVal::External,
        Value::Struct(fields)
            if fields.iter().any(|(_, v)| matches!(v, Value::New(_)))
                && fields.iter().all(|(_, v)| own(v)) =>
        {
            AVal::External
        }
        _ => AVal::Unknown,
    }
}

/// Whether a value is integer arithmetic on places and constants (what a loop test's
/// `d--` assigns).
fn is_arith(v: &Value) -> bool {
    match v {
        Value::Place(_) | Value::Int(_) | Value::Scalar => true,
        Value::Arith { lhs, rhs, .. } => is_arith(lhs) && is_arith(rhs),
        Value::Len(_) => true,
        _ => false,
    }
}

/// The objects within the structs of `v`, each with its path of fields (`.0.1`).
fn nested_objects(v: &AVal, path: &mut String, out: &mut Vec<(String, ObjId)>) {
    match v {
        AVal::Obj(o) => out.push((path.clone(), *o)),
        AVal::Struct(fields) => {
            for (f, x) in fields {
                let len = path.len();
                path.push('.');
                path.push_str(f);
                nested_objects(x, path, out);
                path.truncate(len);
            }
        }
        AVal::List(items) => {
            for (k, x) in items.iter().enumerate() {
                let len = path.len();
                path.push_str(&format!("[{k}]"));
                nested_objects(x, path, out);
                path.truncate(len);
            }
        }
        _ => {}
    }
}
