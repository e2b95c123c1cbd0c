//! Objects and values: the OpenCL object or host data each place holds, IR values
//! evaluated to abstract ones, and the objects that creating calls make.

use super::env::Places;
use super::*;

pub(super) fn refers_to(v: &AVal, i: usize) -> bool {
    match v {
        AVal::Events(s) => s.contains(&i),
        AVal::List(items) => items.iter().any(|x| refers_to(x, i)),
        AVal::Struct(fields) => fields.values().any(|x| refers_to(x, i)),
        _ => false,
    }
}

/// Removes the bindings of the parts of `p` (`p.f`, `p[1]`), and of `p` itself with
/// `itself`. They follow `p` in the order of places.
pub(super) fn remove_parts(env: &mut impl Places, p: &Place, itself: bool) {
    let parts: Vec<Place> = env
        .within(p)
        .filter(|(k, _)| itself || k.proj.len() > p.proj.len())
        .map(|(k, _)| k.clone())
        .collect();
    for k in parts {
        env.unbind(&k);
    }
}

/// Whether a place names one object: no index not known, though it may name a map's
/// member by its key (`self.kernels["init_eq"]`), one member wherever that key names it.
pub(super) fn keyed_or_definite(p: &Place) -> bool {
    (p.proj.iter()).all(|x| matches!(x, Proj::Field(_) | Proj::Index(_) | Proj::Key(_)))
}

/// `x op c` for an integer `x` known only to be greater than `k`, and to be odd or even
/// where `odd` says: decided where every such integer gives one outcome (`t == 0` and
/// `t > 0` after a loop's first pass, `t % 2` of a known parity), an integer still greater
/// than some constant after adding or taking away `c`, else unknown.
fn above(op: ArithOp, k: u64, odd: Option<bool>, c: u64) -> AVal {
    let shifted = |n: Option<u64>| {
        n.map_or(AVal::Scalar, |n| {
            AVal::Above(n, odd.map(|o| o != (c % 2 == 1)))
        })
    };
    let other_parity = odd.is_some_and(|o| o != (c % 2 == 1));
    let outcome = match op {
        ArithOp::Add => return shifted(k.checked_add(c)),
        ArithOp::Sub => return shifted(k.checked_sub(c)),
        ArithOp::Rem if c == 2 => odd,
        ArithOp::BitAnd if c == 1 => odd,
        ArithOp::Eq => (c <= k || other_parity).then_some(false),
        ArithOp::Ne => (c <= k || other_parity).then_some(true),
        ArithOp::Gt => (c <= k).then_some(true),
        ArithOp::Le => (c <= k).then_some(false),
        ArithOp::Ge => (c <= k.saturating_add(1)).then_some(true),
        ArithOp::Lt => (c <= k.saturating_add(1)).then_some(false),
        _ => None,
    };
    outcome.map_or(AVal::Scalar, |o| AVal::Int(u64::from(o)))
}

/// Whether the outcome of `x op c`, for an `x` greater than `k`, can rest on `x`'s parity
/// (`x % 2`, `x & 1`, `x == c` past `k`).
fn parity_decides(op: ArithOp, k: u64, c: u64) -> bool {
    match op {
        ArithOp::Rem => c == 2,
        ArithOp::BitAnd => c == 1,
        ArithOp::Eq | ArithOp::Ne => c > k,
        _ => false,
    }
}

/// Whether a value holds no object or event: nothing, or a list of numbers.
fn no_objects(v: &AVal) -> bool {
    match v {
        AVal::List(items) => {
            (items.iter()).all(|i| matches!(i, AVal::Scalar | AVal::Int(_) | AVal::Above(..)))
        }
        AVal::Unknown | AVal::External => true,
        _ => false,
    }
}

/// The part of a list or struct value a path of constant indices and fields names.
pub(super) fn project(v: &AVal, proj: &[Proj]) -> AVal {
    let Some((first, rest)) = proj.split_first() else {
        return v.clone();
    };
    match (v, first) {
        (AVal::List(items), Proj::Index(n)) => items
            .get(*n as usize)
            .map_or(AVal::Unknown, |x| project(x, rest)),
        (AVal::Struct(fields), Proj::Field(f)) => {
            fields.get(f).map_or(AVal::Unknown, |x| project(x, rest))
        }
        // `t.1` of a tuple made here, a list of its parts.
        (AVal::List(items), Proj::Field(f)) => (f.parse::<usize>().ok())
            .and_then(|n| items.get(n))
            .map_or(AVal::Unknown, |x| project(x, rest)),
        _ => AVal::Unknown,
    }
}

/// Whether the part of a list or struct value a path names is, or is within, an outside
/// value it holds.
fn within_outside(v: &AVal, proj: &[Proj]) -> bool {
    match (v, proj.split_first()) {
        (AVal::External, _) => true,
        (AVal::List(items), Some((Proj::Index(n), rest))) => items
            .get(*n as usize)
            .is_some_and(|x| within_outside(x, rest)),
        (AVal::Struct(fields), Some((Proj::Field(f), rest))) => {
            fields.get(f).is_some_and(|x| within_outside(x, rest))
        }
        _ => false,
    }
}

/// What `env` holds at the part `p` by a list or struct an ancestor of it holds, when
/// `p` itself has no binding (`out[0]` of `out = [null, null]`).
pub(super) fn part_of_value(env: &Env, p: &Place) -> Option<AVal> {
    let mut root = p.clone();
    while !root.proj.is_empty() {
        root.proj.pop();
        if let Some(v) = env.get(&root) {
            return matches!(v, AVal::List(_) | AVal::Struct(_))
                .then(|| project(v, &p.proj[root.proj.len()..]));
        }
    }
    None
}

/// What `env` holds at `p`: its own binding, else the part of a list or struct an ancestor
/// holds.
fn value_at(env: &Env, p: &Place) -> Option<AVal> {
    env.get(p).cloned().or_else(|| part_of_value(env, p))
}

pub(super) fn flatten_buffers(a: &AVal, objs: &[Obj], out: &mut Vec<ObjId>, unknown: &mut bool) {
    match a {
        AVal::Obj(o) if matches!(objs[*o].kind, ObjKind::Buffer) => out.push(*o),
        AVal::List(items) => items
            .iter()
            .for_each(|i| flatten_buffers(i, objs, out, unknown)),
        _ => *unknown = true,
    }
}

impl<'f> Analyzer<'f> {
    /// Whether a variable is a global whose contents outlive the analyzed function: any
    /// but a `static` of its file where that function is `main`.
    pub(super) fn outside_global(&self, v: Var) -> bool {
        (self.vars[v].global.as_deref()).is_some_and(|k| !(self.owns_statics && is_file_local(k)))
    }

    /// Whether a raw event written at `p` is a struct's to release: `p` is in a struct's
    /// field (`slot.computed`, `&mut ev.0`) and a type of the crate releases its events
    /// when dropped.
    pub(super) fn kept_by_drop(&self, p: &Place) -> bool {
        p.proj.iter().any(|x| matches!(x, Proj::Field(_)))
            && self.index.crate_kernels().drop_releases()
    }

    /// The type a variable's declaration gives its field `name` (an entry of
    /// [`VarInfo::fields`]).
    fn declared_field(&self, v: Var, name: &str) -> Option<TypeHint> {
        (self.vars[v].fields.iter())
            .find(|(n, _)| n == name)
            .map(|(_, h)| *h)
    }

    pub(super) fn new_obj(&mut self, kind: ObjKind, name: String) -> ObjId {
        let made_in = self.frame();
        self.objs.push(Obj {
            kind,
            name,
            made_in,
            member: None,
        });
        self.objs.len() - 1
    }

    /// The device of queues made without one: a context's default device.
    pub(super) fn default_device_obj(&mut self) -> ObjId {
        match self.default_device {
            Some(d) => d,
            None => {
                let d = self.new_obj(ObjKind::Device, "default device".into());
                self.default_device = Some(d);
                d
            }
        }
    }

    pub(super) fn new_host(&mut self, name: String) -> HostId {
        self.hosts.push(name);
        self.host_made_in.push(self.frame());
        self.hosts.len() - 1
    }

    /// The data `id` is a part of (`h` of `h + d * n`), or `id` itself: what changes it
    /// changes every part.
    pub(super) fn root_host(&self, id: HostId) -> HostId {
        self.host_root.get(&id).copied().unwrap_or(id)
    }

    /// How often the data `id` is part of has changed on this path.
    pub(super) fn host_version(&self, st: &State, id: HostId) -> u32 {
        st.host_version
            .get(&self.root_host(id))
            .copied()
            .unwrap_or(0)
    }

    /// The data `id` is part of, and so every part of it, changed.
    pub(super) fn bump_host(&self, st: &mut State, id: HostId) {
        *st.host_version.entry(self.root_host(id)).or_insert(0) += 1;
    }

    /// An object from outside the analysis, of the type an annotation gives.
    pub(super) fn hinted(&mut self, hint: TypeHint, name: &str) -> AVal {
        let v = self.hinted_value(hint, name);
        self.mark_outside(&v);
        v
    }

    fn mark_outside(&mut self, v: &AVal) {
        if let AVal::Obj(o) = v {
            self.outside.insert(*o);
        }
    }

    fn hinted_value(&mut self, hint: TypeHint, name: &str) -> AVal {
        let n = name.to_string();
        match hint {
            TypeHint::Queue => AVal::Obj(self.new_obj(
                ObjKind::Queue {
                    device: None,
                    ooo: false,
                },
                n,
            )),
            TypeHint::Buffer => AVal::Obj(self.new_obj(ObjKind::Buffer, n)),
            TypeHint::Kernel => AVal::Obj(self.new_obj(ObjKind::Kernel { sig: None }, n)),
            TypeHint::Context => AVal::Obj(self.new_obj(ObjKind::Context, n)),
            TypeHint::Device => AVal::Obj(self.new_obj(ObjKind::Device, n)),
            TypeHint::Program => AVal::Obj(self.new_obj(ObjKind::Program { source: None }, n)),
            TypeHint::Event => AVal::Events(BTreeSet::new()),
            TypeHint::EventList => AVal::Unknown,
            TypeHint::Host(kind) => AVal::Host {
                kind,
                id: self.new_host(n),
            },
            TypeHint::Scalar => AVal::Scalar,
            TypeHint::Unknown => AVal::External,
        }
    }

    /// Names object `o` `name`; a ProQue's queue that the code has not named yet goes
    /// with it (`pq.queue()`, `pipe.pq.queue()`).
    pub(super) fn rename(&mut self, o: ObjId, name: String) {
        if let ObjKind::ProQue { queue, .. } = self.objs[o].kind {
            if self.placeholder.contains(&queue) {
                self.objs[queue].name = format!("{name}.queue()");
            }
        }
        self.objs[o].name = name;
    }

    /// A part of the function's own outside value (`pair.near`, reached in a method as
    /// `self.near`) is no helper's making: a local it is kept in later (`let rq =
    /// pair.queue(side)`) does not rename it.
    fn found_outside(&mut self, p: &Place, v: &AVal) {
        if let (AVal::Obj(o), false) = (v, self.callee_params.contains(&p.var)) {
            self.objs[*o].made_in = 0;
        }
    }

    /// A part of an outside value, as an object of the role it plays.
    fn materialize(&mut self, role: RoleHint, name: String) -> AVal {
        let v = self.materialize_value(role, name);
        self.mark_outside(&v);
        v
    }

    fn materialize_value(&mut self, role: RoleHint, name: String) -> AVal {
        match role {
            RoleHint::Queue => AVal::Obj(self.new_obj(
                ObjKind::Queue {
                    device: None,
                    ooo: false,
                },
                name,
            )),
            RoleHint::Buffer => AVal::Obj(self.new_obj(ObjKind::Buffer, name)),
            RoleHint::Kernel => AVal::Obj(self.new_obj(ObjKind::Kernel { sig: None }, name)),
            RoleHint::Program => AVal::Obj(self.new_obj(ObjKind::Program { source: None }, name)),
            RoleHint::Event => AVal::Events(BTreeSet::new()),
        }
    }

    /// A place as the user wrote it: `queues[1]`, `self.halo`.
    pub(super) fn place_name(&self, place: &Place) -> String {
        place_name(&self.vars, place)
    }

    /// A string the IR gives (a kernel's name, a program's text), or else the string the
    /// place it says holds it holds: a helper's parameter, given it by the caller.
    fn given_str(
        &mut self,
        st: &mut State,
        s: &Option<String>,
        at: Option<&Place>,
    ) -> Option<String> {
        match (s, at) {
            (Some(s), _) => Some(s.clone()),
            (None, Some(at)) => match self.eval(st, &Value::Place(at.clone()), None, "string") {
                AVal::Str(s) => Some(s),
                _ => None,
            },
            (None, None) => None,
        }
    }

    /// A place with each index by a local replaced by the constant the local holds, or by
    /// "some member".
    pub(super) fn concrete(&self, st: &State, p: &Place) -> Place {
        if !p
            .proj
            .iter()
            .any(|x| matches!(x, Proj::Var(_) | Proj::Last | Proj::At(_) | Proj::Key(_)))
        {
            return p.clone();
        }
        // The value of the pair with key `k` in the list of pairs at `out`
        // (`kernels["gain"]` of `[("shift", k0), ("gain", k1)]`).
        let pair = |out: &Place, k: &str| -> Option<u64> {
            let Some(AVal::List(items)) = value_at(&st.env, &self.canonical(out)) else {
                return None;
            };
            let keyed = |x: &AVal| match x {
                AVal::Struct(f) => match f.get("0") {
                    Some(AVal::Str(s)) => Some(s == k),
                    _ => None,
                },
                _ => None,
            };
            // Only where every member is a pair with a known key.
            let keys: Option<Vec<bool>> = items.iter().map(keyed).collect();
            let keys = keys?;
            (keys.iter().filter(|b| **b).count() == 1)
                .then(|| keys.iter().position(|b| *b).map(|n| n as u64))
                .flatten()
        };
        let mut out = Place::var(p.var);
        for x in &p.proj {
            // The key a projection names, where it is a map's (`kernels[name]` of a `name`
            // holding a string).
            let (key, next) = match x {
                // Not one of a map the analysis knows: the member of that key, which is
                // the same member wherever that key names it.
                Proj::Key(k) => (Some(k.clone()), Proj::Key(k.clone())),
                Proj::Var(v) => match st.env.get(&self.canonical(&Place::var(*v))) {
                    Some(AVal::Int(n)) => (None, Proj::Index(*n)),
                    Some(AVal::Str(s)) => (Some(s.clone()), Proj::AnyIndex),
                    _ => (None, Proj::AnyIndex),
                },
                Proj::At(i) => match value_at(&st.env, &self.canonical(&self.concrete(st, i))) {
                    Some(AVal::Int(n)) => (None, Proj::Index(n)),
                    _ => (None, Proj::AnyIndex),
                },
                // The list's members where it is a list value the analysis made.
                Proj::Last => match value_at(&st.env, &self.canonical(&out)) {
                    Some(AVal::List(items)) if !items.is_empty() => {
                        (None, Proj::Index(items.len() as u64 - 1))
                    }
                    _ => (None, Proj::AnyIndex),
                },
                other => (None, other.clone()),
            };
            match key.and_then(|k| pair(&out, &k)) {
                Some(n) => {
                    out.proj.push(Proj::Index(n));
                    out.proj.push(Proj::Field("1".to_string()));
                }
                None => out.proj.push(next),
            }
        }
        out
    }

    /// The place a callee's parameter stands for in its caller, so that an outside value
    /// keeps one identity however many calls pass it on.
    pub(super) fn canonical(&self, p: &Place) -> Place {
        let mut p = p.clone();
        // Each step replaces a variable by a place of a longer-lived one; the bound only
        // guards against a cycle.
        for _ in 0..64 {
            let (q, skip) = if let Some(q) = self.ext_alias.get(&p.var) {
                (q, 0)
            } else if let (Some(fields), Some(Proj::Field(f))) =
                (self.field_alias.get(&p.var), p.proj.first())
            {
                match fields.iter().find(|(n, _)| n == f) {
                    Some((_, q)) => (q, 1),
                    None => break,
                }
            } else {
                break;
            };
            p = Place {
                var: q.var,
                proj: q.proj.iter().chain(&p.proj[skip..]).cloned().collect(),
            };
        }
        p
    }

    /// The value of a place; parts of outside values become objects of the role they play,
    /// or of the type their struct field declares.
    pub(super) fn resolve(&mut self, st: &mut State, p: &Place, role: Option<RoleHint>) -> AVal {
        // Events stored in array elements, read other than as a wait list, go where the
        // value goes.
        if !st.in_arrays.is_empty() && !self.reading_events {
            let at = self.canonical(&self.concrete(st, p)).at_any_index();
            self.read_elements(st, &at);
        }
        if let Some(v) = self.element(st, p) {
            return v;
        }
        let p = &self.concrete(st, p);
        let v = self.resolve_place(st, p, role);
        // A member or field of the function's own variables names the object as the code
        // does where it is used (`queueball_th[1]`); a callee's parameter would not.
        if let AVal::Obj(o) = v {
            if !p.proj.is_empty()
                && p.is_definite()
                && !self.callee_params.contains(&p.var)
                && !self.vars[p.var].name.starts_with('%')
            {
                // A loop's member (`h` of `for h in devs`) by the list's member it is at:
                // `devs[1].queue`, not `h.queue` in every pass.
                let name = match self.ext_alias.contains_key(&p.var) {
                    true => self.place_name(&self.canonical(p)),
                    false => self.place_name(p),
                };
                self.shown.insert(o, name);
            }
        }
        v
    }

    /// `field[cur]` for an index variable whose value is not known, of a list of distinct
    /// buffers: one buffer, the same wherever the place is named while `cur` and the list
    /// stay as they are, standing for whichever member it is. So is `pos_sub[nxt][d]` for a
    /// known `d`: the members are `pos_sub[0][d]`, `pos_sub[1][d]`. It starts with what every
    /// member agrees on (where the buffer is, a pending migration to the host, the data it
    /// holds); a command on it makes what is known of the members unknown, and a command on
    /// a member what is known of it.
    fn element(&mut self, st: &mut State, p: &Place) -> Option<AVal> {
        // The first index whose variable is not known (`nxt` of `grid[d][nxt]` in a loop
        // over devices).
        let at = p.proj.iter().position(|x| {
            matches!(x, Proj::Var(v) if !self.ext_alias.contains_key(v)
                && !matches!(st.env.get(&Place::var(*v)), Some(AVal::Int(_))))
        })?;
        let Proj::Var(x) = p.proj[at] else {
            return None;
        };
        let base = Place {
            var: p.var,
            proj: p.proj[..at].to_vec(),
        };
        let base = self.canonical(&self.concrete(st, &base));
        // What follows the index, known: `[d]` of a loop over devices.
        let rest = self.concrete(
            st,
            &Place {
                var: p.var,
                proj: p.proj[at + 1..].to_vec(),
            },
        );
        if !base.is_definite() || !rest.is_definite() {
            return None;
        }
        let mut key = base.clone();
        key.proj.push(Proj::Var(x));
        key.proj.extend(rest.proj.iter().cloned());
        if let Some(v @ AVal::Obj(_)) = st.env.get(&key) {
            return Some(v.clone());
        }
        // The list, or the members stored into it one by one (`field[d][b] = ..`).
        let count = match self.resolve_place(st, &base, None) {
            AVal::List(items) => items.len(),
            _ => {
                let n = base.proj.len();
                (st.env.within(&base))
                    .filter_map(|(k, _)| match k.proj.get(n) {
                        Some(Proj::Index(j)) => Some(*j as usize + 1),
                        _ => None,
                    })
                    .max()
                    .unwrap_or(0)
            }
        };
        let mut items = Vec::with_capacity(count);
        for j in 0..count as u64 {
            let mut member = base.clone();
            member.proj.push(Proj::Index(j));
            member.proj.extend(rest.proj.iter().cloned());
            items.push(self.resolve_place(st, &member, None));
        }
        let members: Vec<ObjId> = (items.iter())
            .filter_map(|i| match i {
                AVal::Obj(o) if matches!(self.objs[*o].kind, ObjKind::Buffer) => Some(*o),
                _ => None,
            })
            .collect();
        if members.len() < 2
            || members.len() != items.len()
            || !super::join::distinct_objects(&items)
        {
            return None;
        }
        let rest_name = self.place_name(&rest);
        let rest_name = rest_name
            .strip_prefix(self.vars[p.var].name.as_str())
            .unwrap_or("");
        let name = format!(
            "{}[{}]{rest_name}",
            self.place_name(&base),
            self.vars[x].name
        );
        let o = self.new_obj(ObjKind::Buffer, name);
        self.agreed_by(st, o, &members);
        self.elements.insert(o, members);
        st.env.insert(key, AVal::Obj(o));
        Some(AVal::Obj(o))
    }

    /// What every one of `members` agrees on, for the buffer `o` standing for one of them.
    fn agreed_by(&self, st: &mut State, o: ObjId, members: &[ObjId]) {
        let res: Option<Vec<(usize, ObjId)>> = members
            .iter()
            .map(|m| st.residency.get(m).copied())
            .collect();
        if let Some(res) = res {
            let at = res[0].1;
            if res.iter().all(|r| r.1 == at) {
                if let Some(&last) = res.iter().max() {
                    st.residency.insert(o, last);
                }
            }
        }
        let host: Option<Vec<Vec<usize>>> = members
            .iter()
            .map(|m| st.pending_host.get(m).cloned())
            .collect();
        if let Some(host) = host {
            let mut all: Vec<usize> = host.into_iter().flatten().collect();
            all.sort_unstable();
            all.dedup();
            st.pending_host.insert(o, all);
        }
        let inits: Option<Vec<&Init>> = members.iter().map(|m| st.init.get(m)).collect();
        if let Some(inits) = inits {
            let first = inits[0];
            if inits
                .iter()
                .all(|i| i.host == first.host && i.version == first.version)
            {
                let init = first.clone();
                st.init.insert(o, init);
            }
        }
    }

    /// After `var` or a part of it changed: the elements keyed by it, or of a list in it,
    /// are no longer the ones they stood for.
    pub(super) fn drop_elements(&self, st: &mut State, var: Var) {
        if self.elements.is_empty() {
            return;
        }
        let stale: Vec<Place> = (st.env.keys())
            .filter(|k| {
                k.proj.iter().any(|x| matches!(x, Proj::Var(_)))
                    && (k.var == var || k.proj.contains(&Proj::Var(var)))
            })
            .cloned()
            .collect();
        for k in stale {
            st.env.remove(&k);
        }
    }

    pub(super) fn resolve_place(
        &mut self,
        st: &mut State,
        p: &Place,
        role: Option<RoleHint>,
    ) -> AVal {
        let p = &self.canonical(p);
        if let Some(v) = st.env.get(p) {
            if *v == AVal::External {
                if let Some(r) = role.filter(|_| p.is_definite()) {
                    let v = match self.found.get(p) {
                        Some(v) => v.clone(),
                        None => {
                            let name = self.place_name(p);
                            let v = self.materialize(r, name);
                            self.found_outside(p, &v);
                            self.found.insert(p.clone(), v.clone());
                            v
                        }
                    };
                    st.env.insert(p.clone(), v.clone());
                    return v;
                }
            }
            // A list whose members were stored one by one (`out[d] = ev`): those members.
            if let AVal::List(items) = v {
                let mut items = items.clone();
                let mut member = p.clone();
                for (j, item) in items.iter_mut().enumerate() {
                    member.proj.push(Proj::Index(j as u64));
                    if let Some(m) = st.env.get(&member) {
                        *item = m.clone();
                    }
                    member.proj.pop();
                }
                return AVal::List(items);
            }
            return v.clone();
        }
        // A list this function stored the members of one by one, in a struct it was given
        // or made (`h->ev_k[d] = ..` for each device, then `h->ev_k` as a wait list): those
        // members, from index 0 on without a gap.
        let mut members = Vec::new();
        let mut member = p.clone();
        loop {
            member.proj.push(Proj::Index(members.len() as u64));
            match st.env.get(&member) {
                Some(v) => members.push(v.clone()),
                None => break,
            }
            member.proj.pop();
        }
        if !members.is_empty() {
            return AVal::List(members);
        }
        if p.proj.is_empty() {
            return AVal::Unknown;
        }
        // A part of an outside value is itself outside.
        let mut root = p.clone();
        while !root.proj.is_empty() {
            root.proj.pop();
            let Some(v) = st.env.get(&root) else {
                continue;
            };
            // A constant index into a list, a field of a struct made here: that part,
            // unless the part is within an outside value the struct holds (`r.lanes[1]` of a
            // struct returned with a list of devices' lanes whose count is not known).
            if matches!(v, AVal::List(_) | AVal::Struct(_)) {
                let rest = &p.proj[root.proj.len()..];
                if !(p.is_definite() && within_outside(v, rest)) {
                    return project(v, rest);
                }
            } else if *v != AVal::External || !keyed_or_definite(p) {
                // A field declared as host data of a value not known (`job.pixels` of a
                // `Job` received over a channel) given where a buffer goes: host data.
                let host = match p.proj.as_slice() {
                    [Proj::Field(f)] if *v == AVal::Unknown => self.declared_field(p.var, f),
                    _ => None,
                };
                return match (role, host) {
                    (Some(RoleHint::Buffer), Some(h @ TypeHint::Host(_))) => {
                        self.hinted(h, &self.place_name(p))
                    }
                    _ => AVal::Unknown,
                };
            }
            // A field of the variable, or of a member of a list of structs.
            let field = |name: &str| self.declared_field(p.var, name);
            let indexes = |proj: &[Proj]| {
                !proj.is_empty()
                    && proj
                        .iter()
                        .all(|x| matches!(x, Proj::Index(_) | Proj::Key(_)))
            };
            // The variable's declared type says what the part is, wherever the outside
            // value it is part of was found.
            let field_hint = match p.proj.as_slice() {
                [Proj::Field(f)] | [Proj::Index(_), Proj::Field(f)] => field(f),
                // A field of a field that is a struct (`self.cfg.class_weights`).
                [Proj::Field(f), Proj::Field(g)] => field(&nested_field(f, g)),
                // A member of a collection of objects: the field's (`self.u[1][0]`), or
                // the variable's (`queues[1]`).
                [Proj::Field(f), rest @ ..] if indexes(rest) => field(&members_of(f)),
                // A field of a member of a collection of structs (`self.devs[1].queue`).
                [Proj::Field(f), Proj::Index(_), Proj::Field(g)] => field(&member_field(f, g)),
                [Proj::Field(f), Proj::Index(_), Proj::Field(g), rest @ ..] if indexes(rest) => {
                    field(&members_of(&member_field(f, g)))
                }
                proj if indexes(proj) => field(&members_of("")),
                _ => None,
            };
            // One object on every path: what another path found this part to be.
            if let Some(v) = self.found.get(p) {
                st.env.insert(p.clone(), v.clone());
                return v.clone();
            }
            let name = self.place_name(p);
            let v = match (role, field_hint) {
                // A field declared as a pointer into host memory (`const unsigned char
                // *h_input`) is host memory, whatever it is used as.
                (Some(RoleHint::Buffer), Some(h @ TypeHint::Host(_))) => self.hinted(h, &name),
                (Some(r), _) => self.materialize(r, name),
                (None, Some(h)) => self.hinted(h, &name),
                (None, None) => AVal::External,
            };
            if let AVal::Obj(o) = v {
                self.kernel_of_field(o, p);
            }
            self.found_outside(p, &v);
            if v != AVal::External {
                self.found.insert(p.clone(), v.clone());
            }
            st.env.insert(p.clone(), v.clone());
            if let AVal::Obj(o) = v {
                self.built_with(st, o, p);
            }
            return v;
        }
        AVal::Unknown
    }

    /// A kernel or buffer from outside kept in a field that the crate builds with sibling
    /// fields (its arguments, its default queue): those siblings of the same struct. A
    /// queue kept in a field the crate always gives an out-of-order queue is one.
    fn built_with(&mut self, st: &mut State, o: ObjId, p: &Place) {
        if let ObjKind::Queue { ooo, .. } = &mut self.objs[o].kind {
            let member_of = match p.proj.split_last() {
                Some((Proj::Index(_), list)) => Some(Place {
                    var: p.var,
                    proj: list.to_vec(),
                }),
                _ => None,
            };
            *ooo |= self.index.crate_kernels().out_of_order(p)
                || member_of.is_some_and(|l| self.ooo_lists.contains(&l));
            return;
        }
        let is_kernel = matches!(self.objs[o].kind, ObjKind::Kernel { .. });
        if !is_kernel && !matches!(self.objs[o].kind, ObjKind::Buffer) {
            return;
        }
        let slots = self.index.crate_kernels().bound(p).to_vec();
        let owner = Place {
            var: p.var,
            proj: p.proj[..p.proj.len().saturating_sub(1)].to_vec(),
        };
        for (slot, g) in slots {
            // A field declared as a scalar or host data (`int rows`) is no buffer.
            let declared = (owner.proj.is_empty())
                .then(|| self.declared_field(p.var, &g))
                .flatten();
            if matches!(declared, Some(TypeHint::Scalar | TypeHint::Host(_))) {
                continue;
            }
            let mut sibling = owner.clone();
            sibling.proj.push(Proj::Field(g));
            match slot {
                Slot::Arg(i) if is_kernel => {
                    // A parameter the kernel takes by value holds no buffer.
                    let by_value = match &self.objs[o].kind {
                        ObjKind::Kernel { sig: Some(sig) } => {
                            (sig.params.get(i as usize)).is_none_or(|p| !p.takes_mem_object())
                        }
                        _ => false,
                    };
                    if by_value {
                        continue;
                    }
                    if let AVal::Obj(b) = self.resolve(st, &sibling, Some(RoleHint::Buffer)) {
                        if matches!(self.objs[b].kind, ObjKind::Buffer) {
                            self.built_args.entry(o).or_default().push((i, b));
                        }
                    }
                }
                Slot::Queue => {
                    if let AVal::Obj(q) = self.resolve(st, &sibling, Some(RoleHint::Queue)) {
                        if matches!(self.objs[q].kind, ObjKind::Queue { .. }) {
                            self.default_queue.entry(o).or_insert(q);
                        }
                    }
                }
                Slot::Arg(_) => {}
            }
        }
    }

    /// A kernel from outside kept in a field the crate gives one kernel: that kernel's
    /// signature, from the crate's program sources or the `.cl` files beside the package.
    fn kernel_of_field(&mut self, o: ObjId, p: &Place) {
        if !matches!(self.objs[o].kind, ObjKind::Kernel { sig: None }) {
            return;
        }
        let Some(name) = self.index.crate_kernels().kernel_of(p) else {
            return;
        };
        let sig = self.kernel_sig(None, name);
        if sig.is_some() {
            self.objs[o].kind = ObjKind::Kernel { sig };
        }
    }

    /// The signature of kernel `name`: from `source` when the program's source is known,
    /// else from the crate's program sources or the `.cl` files beside the package, where
    /// exactly one signature has that name.
    pub(super) fn kernel_sig(&mut self, source: Option<&str>, name: &str) -> Option<KernelSig> {
        match source {
            Some(_) => self.kernels.sig(source, name),
            None => (self.index.crate_kernels().sig(name)).or_else(|| self.kernels.sig(None, name)),
        }
    }

    pub(super) fn eval(
        &mut self,
        st: &mut State,
        v: &Value,
        role: Option<RoleHint>,
        name: &str,
    ) -> AVal {
        match v {
            Value::Place(p) => self.resolve(st, p, role),
            Value::Host { kind, base: None } => AVal::Host {
                kind: *kind,
                id: self.new_host(name.to_string()),
            },
            Value::Host {
                kind,
                base: Some(p),
            } => match self.resolve(st, p, None) {
                AVal::Host { id, .. } => AVal::Host { kind: *kind, id },
                AVal::Obj(_) | AVal::Events(_) => AVal::Unknown,
                // `&events[..]` (ocl-core's wait lists are slices): the list's events. A
                // sub-slice is taken as the whole list: more waits, never a false finding.
                AVal::List(items) if self.all_events(&items) => AVal::List(items),
                // A pointer to an empty list (`waits.as_ptr()` of `&[]`): no objects.
                AVal::List(items) if items.is_empty() && *kind == HostKind::Pointer => {
                    AVal::List(items)
                }
                // `&mems[..]`, `mems.as_ptr()` of a list of buffers: those buffers.
                AVal::List(items)
                    if !items.is_empty()
                        && items.iter().all(|i| {
                            matches!(i, AVal::Obj(o) if matches!(self.objs[*o].kind, ObjKind::Buffer))
                        }) =>
                {
                    AVal::List(items)
                }
                // Host data kept in a part of a value not known (`dev[d].h_dist` of a
                // `std::vector<float>` field): data of its own, the same wherever named.
                v @ (AVal::Unknown | AVal::External | AVal::List(_))
                    if *kind == HostKind::Vec
                        && self.concrete(st, p).is_definite()
                        && no_objects(&v) =>
                {
                    let at = self.canonical(&self.concrete(st, p));
                    let id = self.new_host(self.place_name(&at));
                    let v = AVal::Host { kind: *kind, id };
                    st.env.insert(at, v.clone());
                    v
                }
                _ if *kind == HostKind::Slice => AVal::Host {
                    kind: *kind,
                    id: self.new_host(self.place_name(p)),
                },
                _ => AVal::Unknown,
            },
            Value::HostAt { base, offset, text } => {
                let at = match (self.resolve(st, base, None), self.eval(st, offset, None, "offset")) {
                    (AVal::Host { id, .. }, AVal::Int(k)) => {
                        let root = self.root_host(id);
                        match self.host_slices.get(&(root, k)) {
                            Some(&slice) => Some(slice),
                            None => {
                                let slice = self.new_host(text.clone());
                                self.host_slices.insert((root, k), slice);
                                self.host_root.insert(slice, root);
                                Some(slice)
                            }
                        }
                    }
                    _ => None,
                };
                AVal::Host {
                    kind: HostKind::Pointer,
                    id: at.unwrap_or_else(|| self.new_host(text.clone())),
                }
            }
            Value::Scalar => AVal::Scalar,
            Value::Int(n) => AVal::Int(*n),
            Value::Null => AVal::Null,
            Value::Struct(fields) => {
                let made = AVal::Struct(
                    fields
                        .iter()
                        .map(|(f, x)| {
                            // A struct made to be returned is named by its fields.
                            let part = match (name.starts_with('%'), f == HANDLE_FIELD) {
                                (_, true) => name.to_string(),
                                (true, false) => f.clone(),
                                (false, false) => format!("{name}.{f}"),
                            };
                            let v = self.eval(st, x, None, &part);
                            (f.clone(), v)
                        })
                        .collect(),
                );
                // Raw events put into a struct where a type of the crate releases its events
                // when dropped (`Ok(Ev(e))` of an `Ev` wrapper): the struct's. Not into a
                // tuple (`(kev, Ev(rd))`, two parts or more, by number): a tuple releases
                // nothing itself, and its parts that are such structs already took theirs.
                let tuple = fields.len() > 1 && fields.iter().all(|(f, _)| f.parse::<usize>().is_ok());
                if self.index.crate_kernels().drop_releases() && !tuple {
                    self.hand_on(st, &made);
                }
                made
            }
            Value::List(items) => AVal::List(
                items
                    .iter()
                    .enumerate()
                    .map(|(k, i)| self.eval(st, i, role, &format!("{name}[{k}]")))
                    .collect(),
            ),
            Value::New(obj) => self.create(st, obj, name),
            Value::Str(t) => AVal::Str(t.clone()),
            // Empty slots, as many as the count where it is known, or as many as a loop up to
            // a count not known runs passes (`vec![ptr::null_mut(); ndev]`, then a loop up to
            // `ndev` storing into them). Not more than such a loop runs: where a later loop
            // has lost the count (`printf(.., nchunks)` of C++, which may take it by
            // reference), it walks that many members, and more slots would be members no loop
            // reached; those are a list not known.
            Value::Slots(count) => {
                let n = match self.eval(st, count, None, "count") {
                    AVal::Int(n) => Some(n),
                    _ => self.assume_count(st, count),
                };
                match n.filter(|&n| n <= super::loops::ASSUMED_COUNT) {
                    Some(n) => AVal::List(vec![AVal::Null; n as usize]),
                    None => AVal::Unknown,
                }
            }
            Value::Members { list, from, count } => match self.eval(st, count, None, "count") {
                AVal::Int(n) if n <= crate::frontend::MAX_WAIT_ELEMS => {
                    let members: Vec<Value> = (*from..from + n)
                        .map(|j| {
                            let mut m = list.clone();
                            m.proj.push(Proj::Index(j));
                            Value::Place(m)
                        })
                        .collect();
                    self.eval(st, &Value::List(members), role, name)
                }
                _ => AVal::Unknown,
            },
            Value::Len(list) => match self.eval(st, list, None, "list") {
                AVal::List(items) => AVal::Int(items.len() as u64),
                // A list from outside is walked as one of `ASSUMED_COUNT` members (each its
                // own object, `stages[0]`, `stages[1]`); its length agrees, so
                // `stages[n - 1]` and `(d + 1) % n` name those members.
                AVal::External if matches!(&**list, Value::Place(_)) => {
                    AVal::Int(super::loops::ASSUMED_COUNT)
                }
                _ => AVal::Scalar,
            },
            Value::Arith { op, lhs, rhs } => {
                let int = |a: AVal| match a {
                    AVal::Int(n) => Some(n),
                    AVal::Null => Some(0),
                    _ => None,
                };
                let (l, r) = (
                    self.eval(st, lhs, None, "lhs"),
                    self.eval(st, rhs, None, "rhs"),
                );
                let handle = |a: &AVal| match a {
                    AVal::Events(e) => !e.is_empty(),
                    AVal::Obj(_) => true,
                    _ => false,
                };
                match (&l, &r) {
                    // An event or object tested against null (`if (last != NULL)`): it is
                    // one, as an `Assume` of the value itself decides.
                    (x, AVal::Null | AVal::Int(0)) | (AVal::Null | AVal::Int(0), x)
                        if handle(x) && matches!(op, ArithOp::Eq | ArithOp::Ne) =>
                    {
                        AVal::Int(u64::from(*op == ArithOp::Ne))
                    }
                    (AVal::Above(k, odd), c) => match int(c.clone()) {
                        Some(c) => {
                            self.parity_used |= odd.is_some() && parity_decides(*op, *k, c);
                            above(*op, *k, *odd, c)
                        }
                        None => AVal::Scalar,
                    },
                    (c, AVal::Above(k, odd)) => {
                        let op = match op {
                            ArithOp::BitAnd => Some(ArithOp::BitAnd),
                            op => op.mirrored(),
                        };
                        match (int(c.clone()), op) {
                            (Some(c), Some(op)) => {
                                self.parity_used |= odd.is_some() && parity_decides(op, *k, c);
                                above(op, *k, *odd, c)
                            }
                            _ => AVal::Scalar,
                        }
                    }
                    _ => match (int(l), int(r)) {
                        (Some(a), Some(b)) => op.apply(a, b).map_or(AVal::Scalar, AVal::Int),
                        // `d * slab_n` where `d == 0`, whatever `slab_n` is.
                        (Some(0), _) | (_, Some(0)) if *op == ArithOp::Mul => AVal::Int(0),
                        _ => AVal::Scalar,
                    },
                }
            }
            Value::Unknown => AVal::Unknown,
        }
    }

    /// A non-empty list of command events and user events.
    fn all_events(&self, items: &[AVal]) -> bool {
        !items.is_empty()
            && items.iter().all(|i| match i {
                AVal::Events(_) => true,
                AVal::Obj(o) => matches!(self.objs[*o].kind, ObjKind::UserEvent),
                _ => false,
            })
    }

    fn create(&mut self, st: &mut State, obj: &NewObject, name: &str) -> AVal {
        let n = name.to_string();
        let id = match obj {
            NewObject::Context => self.new_obj(ObjKind::Context, n),
            NewObject::Queue {
                device,
                out_of_order,
            } => {
                let device = match device {
                    Some(d) => match self.eval(st, d, None, "device") {
                        AVal::Obj(o) => Some(o),
                        AVal::External => match &**d {
                            Value::Place(p) if p.is_definite() => {
                                let o = self.new_obj(ObjKind::Device, self.place_name(p));
                                st.env.insert(p.clone(), AVal::Obj(o));
                                Some(o)
                            }
                            _ => None,
                        },
                        _ => None,
                    },
                    None => Some(self.default_device_obj()),
                };
                self.new_obj(
                    ObjKind::Queue {
                        device,
                        ooo: *out_of_order,
                    },
                    n,
                )
            }
            NewObject::Buffer {
                host_init,
                undefined,
                in_place,
                read_only,
            } => {
                let b = self.new_obj(ObjKind::Buffer, n);
                if *undefined {
                    self.undefined.insert(b, self.unknown_writes);
                }
                if *in_place {
                    self.in_place.insert(b);
                }
                if *read_only {
                    self.read_only.insert(b);
                }
                if let Some(h) = host_init {
                    if let AVal::Host { id, .. } = self.eval(st, h, None, "host") {
                        let version = self.host_version(st, id);
                        st.init.insert(
                            b,
                            Init {
                                host: id,
                                version,
                                site: self.cur_span,
                                queue: None,
                                uploads: Rc::default(),
                                frames: self.frames_of(self.frame()),
                            },
                        );
                        st.host_buffers.entry(id).or_default().insert(b);
                    }
                }
                b
            }
            NewObject::SubBuffer { parent } => {
                let b = self.new_obj(ObjKind::Buffer, n);
                if let AVal::Obj(p) = self.eval(st, parent, Some(RoleHint::Buffer), "parent") {
                    if matches!(self.objs[p].kind, ObjKind::Buffer) {
                        self.parents.insert(b, p);
                    }
                }
                b
            }
            NewObject::Program { source, source_at } => {
                let source = self.given_str(st, source, source_at.as_ref());
                self.new_obj(ObjKind::Program { source }, n)
            }
            NewObject::Kernel {
                program,
                name: kname,
                name_at,
            } => {
                let kname = self.given_str(st, kname, name_at.as_ref());
                let sig = match (
                    self.eval(st, program, Some(RoleHint::Program), "program"),
                    kname.as_deref(),
                ) {
                    (AVal::Obj(p), Some(k)) => match &self.objs[p].kind {
                        // A program from outside (a parameter, a field): the crate's kernel
                        // of that name.
                        ObjKind::Program { source: None } if self.outside.contains(&p) => {
                            self.kernel_sig(None, k)
                        }
                        // Made here from what the analysis does not see (a binary, a file
                        // read at run time): only a `.cl` file beside the package.
                        ObjKind::Program { source: None } => self.kernels.sig(None, k),
                        ObjKind::Program { source: Some(src) } => {
                            let src = src.clone();
                            self.kernels.sig(Some(&src), k)
                        }
                        _ => None,
                    },
                    _ => None,
                };
                let k = self.new_obj(ObjKind::Kernel { sig }, n);
                st.kernel_args.insert(
                    k,
                    KernelArgs {
                        known: true,
                        args: Vec::new(),
                    },
                );
                k
            }
            NewObject::Launch { kernel } => {
                // Every argument of a launch is set through it, so even a kernel the
                // analysis cannot follow has known arguments here.
                let k = match self.eval(st, kernel, Some(RoleHint::Kernel), "kernel") {
                    AVal::Obj(k) => k,
                    _ => {
                        let name = match &**kernel {
                            Value::Place(p) => self.place_name(p),
                            _ => "kernel".into(),
                        };
                        let k = self.new_obj(ObjKind::Kernel { sig: None }, name);
                        // One of a map of kernels by name (`self.kernels["blur"]`): that
                        // kernel's signature.
                        if let Value::Place(p) = &**kernel {
                            self.kernel_of_field(k, p);
                        }
                        k
                    }
                };
                let k = Some(k);
                let l = self.new_obj(ObjKind::Launch { kernel: k }, n);
                st.launches.insert(
                    l,
                    LaunchState {
                        args: Vec::new(),
                        waits: Some(BTreeSet::new()),
                        lists: Vec::new(),
                    },
                );
                l
            }
            NewObject::UserEvent { raw } => {
                let o = self.new_obj(ObjKind::UserEvent, n);
                self.user_events_made = true;
                if *raw {
                    st.live_raw.insert(RawKey::User(o));
                    self.user_sites.insert(o, self.cur_span);
                }
                o
            }
            NewObject::EmptyEvent => return AVal::Events(BTreeSet::new()),
            // Its members are devices of their own, named by their index (`devices[1]`).
            NewObject::Devices => return AVal::External,
        };
        AVal::Obj(id)
    }
}
