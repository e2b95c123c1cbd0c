//! Joins: at a branch join only what holds on every path is kept.

use super::values::part_of_value;
use super::*;
use std::borrow::Cow;

fn join_map<K: Clone + Eq + std::hash::Hash, V: Clone + PartialEq>(
    a: &HashMap<K, V>,
    b: &HashMap<K, V>,
) -> HashMap<K, V> {
    a.iter()
        .filter(|(k, v)| b.get(*k) == Some(*v))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

/// Where each buffer is where both paths leave it on one device: the later of the two
/// commands that put it there.
fn join_residency(
    a: &HashMap<ObjId, (usize, ObjId)>,
    b: &HashMap<ObjId, (usize, ObjId)>,
) -> HashMap<ObjId, (usize, ObjId)> {
    a.iter()
        .filter_map(|(k, &(i, at))| {
            let &(j, bt) = b.get(k)?;
            (at == bt).then_some((*k, (i.max(j), at)))
        })
        .collect()
}

/// What each buffer holds where both paths agree on the host data and its version: the
/// buffer holds that data on either path, whichever upload put it there (a thread that
/// uploaded it again, one arm of a branch).
fn join_init(a: &HashMap<ObjId, Init>, b: &HashMap<ObjId, Init>) -> HashMap<ObjId, Init> {
    a.iter()
        .filter_map(|(k, x)| {
            let y = b.get(k)?;
            if x == y {
                return Some((*k, x.clone()));
            }
            if x.host != y.host || x.version != y.version {
                return None;
            }
            let mut uploads: Vec<usize> =
                x.uploads.iter().chain(y.uploads.iter()).copied().collect();
            uploads.sort_unstable();
            uploads.dedup();
            Some((
                *k,
                Init {
                    uploads: Rc::new(uploads),
                    ..x.clone()
                },
            ))
        })
        .collect()
}

fn union_vec_map<K: Clone + Eq + std::hash::Hash, T: Clone + PartialEq>(
    a: &HashMap<K, Vec<T>>,
    b: &HashMap<K, Vec<T>>,
) -> HashMap<K, Vec<T>> {
    let mut r = a.clone();
    for (k, v) in b {
        let e = r.entry(k.clone()).or_default();
        for x in v {
            if !e.contains(x) {
                e.push(x.clone());
            }
        }
    }
    r
}

/// Whether no two values of a list are the same.
pub(super) fn distinct(items: &[AVal]) -> bool {
    (items.iter().enumerate()).all(|(i, x)| !items[..i].contains(x))
}

/// Whether every item is an object and no two are the same one.
pub(super) fn distinct_objects(items: &[AVal]) -> bool {
    items.iter().all(|x| matches!(x, AVal::Obj(_))) && distinct(items)
}

/// The objects a value holds, in its fields and members too.
pub(super) fn objects_in(a: &AVal, out: &mut Vec<ObjId>) {
    match a {
        AVal::Obj(o) => out.push(*o),
        AVal::List(items) => items.iter().for_each(|x| objects_in(x, out)),
        AVal::Struct(fields) => fields.values().for_each(|x| objects_in(x, out)),
        _ => {}
    }
}

/// Whether every item is an object, or a struct holding objects (`Half { queue, cur, .. }`),
/// and no object is in two items: the members of a list that each pass of a loop made anew.
fn distinct_members(items: &[AVal]) -> bool {
    let mut seen = Vec::new();
    for x in items {
        let before = seen.len();
        match x {
            AVal::Obj(_) | AVal::Struct(_) => objects_in(x, &mut seen),
            _ => return false,
        }
        if seen.len() == before {
            return false;
        }
    }
    let n = seen.len();
    seen.sort_unstable();
    seen.dedup();
    seen.len() == n
}

/// Makes the buffer that stands for whichever of two buffers a variable holds on the paths
/// joined (`None` where the two are not both buffers). Asked for one object twice, it says
/// whether the object, an event, stands for itself where the other path has none.
pub(super) type Choose<'a> = &'a mut dyn FnMut(ObjId, ObjId) -> Option<ObjId>;

pub(super) fn join_val(a: &AVal, b: &AVal, choose: Choose) -> AVal {
    match (a, b) {
        _ if a == b => a.clone(),
        // `let (src, dst) = if step % 2 == 0 { (&a, &b) } else { (&b, &a) }`: `dst` is one
        // buffer, whichever it is on the path taken.
        (AVal::Obj(x), AVal::Obj(y)) => choose(*x, *y).map_or(AVal::Unknown, AVal::Obj),
        // A list that a loop of unknown count pushes objects of their own into: how many is
        // not known, but its members are objects of their own, as an outside list's are.
        (AVal::List(x), AVal::List(y))
            if (x.starts_with(y) && distinct_members(x))
                || (y.starts_with(x) && distinct_members(y)) =>
        {
            AVal::External
        }
        (AVal::External, AVal::List(x)) | (AVal::List(x), AVal::External)
            if distinct_members(x) =>
        {
            AVal::External
        }
        (AVal::Events(x), AVal::Events(y)) => AVal::Events(x.union(y).copied().collect()),
        // A struct whose fields differ on the paths (`left.cur`, swapped in a loop): each
        // field joined, the others kept.
        (AVal::Struct(x), AVal::Struct(y)) if x.keys().eq(y.keys()) => AVal::Struct(
            x.iter()
                .map(|(f, a)| (f.clone(), join_val(a, &y[f], choose)))
                .collect(),
        ),
        // A null pointer or a pointer to an empty list: no objects either way (a wait list
        // `if waits.is_empty() { ptr::null() } else { waits.as_ptr() }`).
        (AVal::Null, AVal::List(x)) | (AVal::List(x), AVal::Null) if x.is_empty() => {
            AVal::List(Vec::new())
        }
        // A loop's counter after passes that left it at different values (`it` after a
        // loop from 0 whose every pass counted it up): what every one is greater than.
        (AVal::Int(x), AVal::Int(y)) => match x.min(y).checked_sub(1) {
            Some(k) => AVal::Above(k, None),
            None => AVal::Scalar,
        },
        (AVal::Int(x), AVal::Above(k, odd)) | (AVal::Above(k, odd), AVal::Int(x)) => {
            match x.checked_sub(1) {
                Some(j) => AVal::Above(j.min(*k), odd.filter(|o| *o == (x % 2 == 1))),
                None => AVal::Scalar,
            }
        }
        (AVal::Above(j, a), AVal::Above(k, b)) => AVal::Above(*j.min(k), a.filter(|_| a == b)),
        // `None` on one path, `Some(event)` on another: the events where there are any.
        (AVal::Null, AVal::Events(x)) | (AVal::Events(x), AVal::Null) => AVal::Events(x.clone()),
        // Likewise a user event, the event of a command on a queue not known, or a kernel.
        (AVal::Null, AVal::Obj(x)) | (AVal::Obj(x), AVal::Null) => {
            choose(*x, *x).map_or(AVal::Unknown, AVal::Obj)
        }
        _ => AVal::Unknown,
    }
}

/// A kernel's arguments after paths that set them differently (`if (err == CL_SUCCESS)
/// err = clSetKernelArg(k, 1, ..)`): those set alike on both paths, and an unknown argument
/// at every index set on one path only or to different values.
fn join_args(a: &KernelArgs, b: &KernelArgs) -> KernelArgs {
    let indices: BTreeSet<u64> = (a.args.iter().chain(&b.args)).map(|(i, _)| *i).collect();
    KernelArgs {
        known: a.known && b.known,
        args: indices
            .into_iter()
            .map(|i| match (arg_at(a, i), arg_at(b, i)) {
                (Some(x), Some(y)) if x == y => (i, x.clone()),
                _ => (i, Arg::Unknown),
            })
            .collect(),
    }
}

/// The argument last set at an index.
fn arg_at(k: &KernelArgs, i: u64) -> Option<&Arg> {
    k.args.iter().rev().find(|(j, _)| *j == i).map(|(_, x)| x)
}

/// The raw events a value holds: command events and user events.
pub(super) fn raw_in(a: &AVal, out: &mut BTreeSet<RawKey>) {
    match a {
        AVal::Events(s) => out.extend(s.iter().map(|&i| RawKey::Inst(i))),
        AVal::Obj(o) => {
            out.insert(RawKey::User(*o));
        }
        AVal::List(items) => items.iter().for_each(|x| raw_in(x, out)),
        AVal::Struct(fields) => fields.values().for_each(|x| raw_in(x, out)),
        _ => {}
    }
}

/// What `env` holds at `p` where it has no binding of its own: the member of a list or
/// struct an ancestor holds (`out[0]` of `out = [null, null]`), or the object a part of an
/// outside value was found to be (`self.b`) on another path, which it is on every path.
fn unbound(env: &Env, p: &Place, found: &BTreeMap<Place, AVal>) -> Option<AVal> {
    if let Some(v) = part_of_value(env, p) {
        return Some(v);
    }
    let mut root = p.clone();
    while !root.proj.is_empty() {
        root.proj.pop();
        if let Some(v) = env.get(&root) {
            return (*v == AVal::External)
                .then(|| found.get(p).cloned())
                .flatten();
        }
    }
    None
}

impl State {
    /// What holds on both paths. A place holding one buffer on this path and another on
    /// the other holds a buffer `choose` makes, standing for whichever it is: it starts with
    /// what each path knew of its own (accesses, data, where it is).
    pub(super) fn join(&self, o: &State, found: &BTreeMap<Place, AVal>, choose: Choose) -> State {
        // One choice per pair of buffers: two places that hold the same buffer on each
        // path hold the same one after the join.
        let mut made: Vec<(ObjId, ObjId, ObjId)> = Vec::new();
        let mut pick = |x: ObjId, y: ObjId| {
            if x == y {
                return choose(x, y);
            }
            if let Some(&(_, _, c)) = made.iter().find(|m| (m.0, m.1) == (x, y)) {
                return Some(c);
            }
            let c = choose(x, y)?;
            made.push((x, y, c));
            Some(c)
        };
        // Raw events in lists that the paths disagree on: where the list goes, and so which
        // loop releases them, is no longer known.
        let mut lost = BTreeSet::new();
        let env = self.env.join(&o.env, |k, v, w| {
            // A member stored on one path only (`out[d] = ev`): on the other, the member of
            // the list the variable holds.
            let (v, w) = match (v, w) {
                (Some(v), Some(w)) => (Cow::Borrowed(v), Cow::Borrowed(w)),
                (Some(v), None) => (Cow::Borrowed(v), Cow::Owned(unbound(&o.env, k, found)?)),
                (None, Some(w)) => (Cow::Owned(unbound(&self.env, k, found)?), Cow::Borrowed(w)),
                (None, None) => return None,
            };
            let j = join_val(&v, &w, &mut pick);
            if !matches!(j, AVal::List(_)) {
                for x in [&*v, &*w] {
                    if let AVal::List(_) = x {
                        raw_in(x, &mut lost);
                    }
                }
            }
            Some(j)
        });
        let (mine, theirs);
        let (this, o) = match made.is_empty() {
            true => (self, o),
            false => {
                mine = self.with_choices(made.iter().map(|&(x, _, c)| (x, c)));
                theirs = o.with_choices(made.iter().map(|&(_, y, c)| (y, c)));
                (&mine, &theirs)
            }
        };
        let mut trace = this.trace.clone();
        trace.union_with(&o.trace);
        let completed = BitSet::join(&this.completed, &this.trace, &o.completed, &o.trace);
        let mut tail = HashMap::new();
        for q in this.tail.keys().chain(o.tail.keys()) {
            let e = BitSet::default();
            let a = this.tail.get(q).unwrap_or(&e);
            let b = o.tail.get(q).unwrap_or(&e);
            tail.insert(*q, BitSet::join(a, &this.trace, b, &o.trace));
        }
        let mut on_queue = this.on_queue.clone();
        for (q, s) in &o.on_queue {
            on_queue.entry(*q).or_default().union_with(s);
        }
        let mut kernel_args = HashMap::new();
        for (k, a) in &this.kernel_args {
            let joined = match o.kernel_args.get(k) {
                Some(b) if b == a => a.clone(),
                Some(b) => join_args(a, b),
                None => KernelArgs {
                    known: false,
                    args: Vec::new(),
                },
            };
            kernel_args.insert(*k, joined);
        }
        let mut host_version = this.host_version.clone();
        for (h, v) in &o.host_version {
            let e = host_version.entry(*h).or_insert(*v);
            if *e != *v {
                *e = (*e).max(*v) + 1;
            }
        }
        let mut host_buffers = this.host_buffers.clone();
        for (h, s) in &o.host_buffers {
            host_buffers.entry(*h).or_default().extend(s);
        }
        let mut accesses = union_vec_map(&this.accesses, &o.accesses);
        for v in accesses.values_mut() {
            v.sort_by_key(|a| a.order);
        }
        State {
            env,
            trace,
            completed,
            tail,
            on_queue,
            kernel_args,
            launches: join_map(&this.launches, &o.launches),
            accesses,
            init: join_init(&this.init, &o.init),
            host_version,
            host_buffers,
            pending_host: union_vec_map(&this.pending_host, &o.pending_host),
            pending_src: union_vec_map(&this.pending_src, &o.pending_src),
            // Where one path failed a command and the other did not, where buffers are is
            // the other's: the failed one is leaving through error handling (`err =
            // clEnqueue..(..); if (err == CL_SUCCESS) err = ..;` chains join before the check
            // that leaves).
            residency: match (this.failed, o.failed) {
                (true, false) => o.residency.clone(),
                (false, true) => this.residency.clone(),
                _ => join_residency(&this.residency, &o.residency),
            },
            escaped: this.escaped.union(&o.escaped).copied().collect(),
            live_raw: (this.live_raw.union(&o.live_raw))
                .filter(|k| !lost.contains(*k))
                .copied()
                .collect(),
            in_arrays: this.in_arrays.union(&o.in_arrays).cloned().collect(),
            mapped_for_write: self
                .mapped_for_write
                .intersection(&o.mapped_for_write)
                .copied()
                .collect(),
            error_exit: this.error_exit && o.error_exit,
            failed: this.failed && o.failed,
            declined_wait: (this.declined_wait == o.declined_wait)
                .then_some(this.declined_wait)
                .flatten(),
        }
    }
}

impl State {
    /// This path's state where each choice `c` of `(member, c)` is the member it is here.
    fn with_choices(&self, choices: impl Iterator<Item = (ObjId, ObjId)>) -> State {
        let mut st = self.clone();
        for (m, c) in choices {
            if let Some(v) = st.accesses.get(&m).cloned() {
                st.accesses.insert(c, v);
            }
            if let Some(v) = st.init.get(&m).cloned() {
                st.init.insert(c, v);
            }
            if let Some(v) = st.pending_host.get(&m).cloned() {
                st.pending_host.insert(c, v);
            }
            if let Some(v) = st.pending_src.get(&m).cloned() {
                st.pending_src.insert(c, v);
            }
            if let Some(&v) = st.residency.get(&m) {
                st.residency.insert(c, v);
            }
            for bufs in st.host_buffers.values_mut() {
                if bufs.contains(&m) {
                    bufs.insert(c);
                }
            }
            if st.mapped_for_write.contains(&m) {
                st.mapped_for_write.insert(c);
            }
        }
        st
    }
}

impl Analyzer<'_> {
    /// What holds on every path of `states`.
    pub(super) fn join_all(&mut self, states: Vec<State>) -> Option<State> {
        let mut it = states.into_iter();
        let first = it.next()?;
        let found = std::mem::take(&mut self.found);
        let joined = it.fold(first, |acc, s| {
            acc.join(&s, &found, &mut |x, y| self.choice(x, y))
        });
        self.found = found;
        Some(joined)
    }

    /// A buffer standing for whichever of `x` and `y` (or of the buffers they stand for)
    /// it is; `None` unless both are buffers. An event against no event is the event, and
    /// a kernel against none the kernel (`return err == CL_SUCCESS ? k : NULL;`): where it
    /// is none, what is done with it fails.
    fn choice(&mut self, x: ObjId, y: ObjId) -> Option<ObjId> {
        if x == y {
            return matches!(
                self.objs[x].kind,
                ObjKind::UserEvent | ObjKind::UntrackedEvent | ObjKind::Kernel { .. }
            )
            .then_some(x);
        }
        let kernel = |o: ObjId| matches!(self.objs[o].kind, ObjKind::Kernel { .. });
        if kernel(x) && kernel(y) {
            return Some(self.kernel_choice(x, y));
        }
        if !matches!(self.objs[x].kind, ObjKind::Buffer)
            || !matches!(self.objs[y].kind, ObjKind::Buffer)
        {
            return None;
        }
        let of = |o: ObjId| self.elements.get(&o).cloned().unwrap_or_else(|| vec![o]);
        let mut members = of(x);
        members.extend(of(y));
        members.sort_unstable();
        members.dedup();
        if members.len() < 2 {
            return None;
        }
        let names: Vec<String> = (members.iter())
            .map(|m| self.shown.get(m).unwrap_or(&self.objs[*m].name).clone())
            .collect();
        let c = self.new_obj(ObjKind::Buffer, names.join("` or `"));
        self.elements.insert(c, members);
        Some(c)
    }

    /// A kernel standing for whichever of kernels `x` and `y` (or the kernels they stand
    /// for) it is: its launch uses what each of them would.
    fn kernel_choice(&mut self, x: ObjId, y: ObjId) -> ObjId {
        let of = |o: ObjId| {
            self.kernel_choices
                .get(&o)
                .cloned()
                .unwrap_or_else(|| vec![o])
        };
        let mut members = of(x);
        members.extend(of(y));
        members.sort_unstable();
        members.dedup();
        let names: Vec<String> = (members.iter())
            .map(|m| self.shown.get(m).unwrap_or(&self.objs[*m].name).clone())
            .collect();
        let c = self.new_obj(ObjKind::Kernel { sig: None }, names.join("` or `"));
        self.kernel_choices.insert(c, members);
        c
    }
}
