//! Loops: the bounds on running loops, and a loop over a list run once per member when the
//! list is known, else as a loop over "some member".

use super::calls::stmt_count;
use super::join::join_all;
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
const MAX_UNROLLED_STMTS: usize = 20_000;

/// Loops run once per member nest at most this deep: a deeper one runs as a loop over "some
/// member", so nested unrolling cannot multiply past `MAX_UNROLL^MAX_UNROLL_DEPTH` times.
const MAX_UNROLL_DEPTH: usize = 2;

#[derive(Default)]
pub(super) struct LoopCx {
    pub(super) breaks: Vec<State>,
    pub(super) continues: Vec<State>,
}

impl<'f> Analyzer<'f> {
    /// A loop over lists or a range: once per member when every list is known and short,
    /// else as a loop whose bindings are "some member".
    /// The member a walk variable is at in a new pass: an outside value (made an object of
    /// the role it plays where it is used), named by the pass (`queues[i]`, `queues[i + 1]`).
    pub(super) fn walk_member(&mut self, var: Var, hint: TypeHint) -> Option<AVal> {
        self.walk_vars.contains_key(&var).then(|| match hint {
            TypeHint::Unknown => AVal::External,
            _ => {
                let name = self.walk_name(var);
                let v = self.hinted(hint, &name);
                if let AVal::Obj(o) = v {
                    self.walk_objs.insert(o);
                }
                v
            }
        })
    }

    /// A name for the index of a walk that has none, which no variable of the function has.
    fn fresh_index_name(&self) -> String {
        ["i", "j", "k", "n", "idx"]
            .iter()
            .map(|c| c.to_string())
            .find(|c| !self.vars.iter().any(|v| v.name == *c))
            .unwrap_or_else(|| "index".to_string())
    }

    /// How the member of this pass is shown: `queues[i]`, then `queues[i + 1]`.
    pub(super) fn walk_name(&mut self, var: Var) -> String {
        let Some((prefix, n)) = self.walk_vars.get_mut(&var) else {
            return self.vars[var].name.clone();
        };
        let name = match *n {
            0 => format!("{prefix}]"),
            k => format!("{prefix} + {k}]"),
        };
        *n += 1;
        name
    }

    /// A loop up to a count the function computed but does not know (`clGetDeviceIDs(..,
    /// &ndev)`, then `for (i = 0; i < ndev; i++)`): the program is taken to run with
    /// [`ASSUMED_COUNT`] of them, so the count's variable holds it from here on and every
    /// loop up to it runs once per member, each member an object of its own. Returns the
    /// loop's count, `None` where the bound is no such variable (or one plus a constant,
    /// `i <= n`).
    fn assume_count(&mut self, st: &mut State, bound: &Value) -> Option<u64> {
        let (place, plus) = match bound {
            Value::Place(p) => (p, 0),
            Value::Arith {
                op: ArithOp::Add,
                lhs,
                rhs,
            } => match (&**lhs, &**rhs) {
                (Value::Place(p), Value::Int(k)) => (p, *k),
                _ => return None,
            },
            _ => return None,
        };
        let place = self.canonical(&self.concrete(st, place));
        // A count the caller gives (a parameter, or a global as the function found it) may
        // be one: the function is checked for any count.
        if !place.is_definite()
            || self.params.contains(&place.var)
            || !matches!(self.resolve(st, &place, None), AVal::Scalar | AVal::Unknown)
        {
            return None;
        }
        st.env.insert(place, AVal::Int(ASSUMED_COUNT));
        ASSUMED_COUNT.checked_add(plus)
    }

    pub(super) fn for_each(
        &mut self,
        mut st: State,
        sources: &[EachSource],
        binds: &[(Place, EachPart)],
        body: &[Stmt],
        tail: &Value,
        dst: Option<&Place>,
    ) -> Option<State> {
        // Lists from outside, of unknown length: a loop walks their members.
        let outside: Vec<bool> = sources
            .iter()
            .map(|src| match src {
                EachSource::Members(v @ Value::Place(_)) => {
                    self.eval(&mut st, v, None, "list") == AVal::External
                }
                _ => false,
            })
            .collect();
        let mut members: Vec<Vec<AVal>> = Vec::new();
        for src in sources {
            let items = match src {
                EachSource::Members(v) => match self.eval(&mut st, v, None, "list") {
                    AVal::List(items) => Some(items),
                    _ => None,
                },
                EachSource::Upto(v) => match self.eval(&mut st, v, None, "n") {
                    AVal::Int(n) if n as usize <= MAX_UNROLL => {
                        Some((0..n).map(AVal::Int).collect())
                    }
                    AVal::Int(_) => None,
                    _ => self
                        .assume_count(&mut st, v)
                        .map(|n| (0..n).map(AVal::Int).collect()),
                },
                EachSource::UptoLen(v) => match self.eval(&mut st, v, None, "list") {
                    AVal::List(items) => Some((0..items.len() as u64).map(AVal::Int).collect()),
                    _ => None,
                },
            };
            match items {
                Some(i) => members.push(i),
                None => break,
            }
        }
        let n = members.iter().map(Vec::len).min().unwrap_or(0);
        let cost = stmt_count(body) * n;
        let known = members.len() == sources.len() && !sources.is_empty();
        if !known
            || n > MAX_UNROLL
            || self.unroll_depth >= MAX_UNROLL_DEPTH
            || self.unrolled + cost > MAX_UNROLLED_STMTS
        {
            // A member of a list from outside: each pass is at another member, which no
            // constant index names (`Assign` makes it anew per pass). Else some member: a
            // place `list[_]` never proves two members equal.
            let count = binds
                .iter()
                .find_map(|(p, part)| (*part == EachPart::Count).then(|| self.place_name(p)));
            for (p, part) in binds {
                if let (EachPart::Member(s), true) = (part, p.proj.is_empty()) {
                    if let (Some(EachSource::Members(Value::Place(l))), Some(true)) =
                        (sources.get(*s), outside.get(*s))
                    {
                        let list = self.place_name(l);
                        let index = count.clone().unwrap_or_else(|| self.fresh_index_name());
                        let n = self.walk_vars.get(&p.var).map_or(0, |w| w.1);
                        self.walk_vars.insert(p.var, (format!("{list}[{index}"), n));
                    }
                }
            }
            let mut looped: Vec<Stmt> = binds
                .iter()
                .map(|(p, part)| Stmt::Assign {
                    dst: p.clone(),
                    value: match (
                        part,
                        sources.get(match part {
                            EachPart::Member(s) => *s,
                            _ => usize::MAX,
                        }),
                    ) {
                        (EachPart::Member(_), Some(EachSource::Members(Value::Place(l)))) => {
                            let mut l = l.clone();
                            l.proj.push(Proj::AnyIndex);
                            Value::Place(l)
                        }
                        (EachPart::Count, _) => Value::Scalar,
                        (
                            EachPart::Member(_),
                            Some(EachSource::Upto(_) | EachSource::UptoLen(_)),
                        ) => Value::Scalar,
                        _ => Value::Unknown,
                    },
                    span: Span::default(),
                })
                .collect();
            looped.extend(body.iter().cloned());
            // A list from outside has members: a loop over an empty one checks nothing, and
            // a path where one loop over the list ran and a later one did not cannot be. So
            // does one that a constant index was taken of on every path here (`queues[0]`).
            let at_least_once = !sources.is_empty()
                && sources.iter().zip(&outside).all(|(src, out)| match src {
                    EachSource::Members(Value::Place(_)) if *out => true,
                    EachSource::UptoLen(Value::Place(l)) => indexed(&st, l),
                    _ => false,
                });
            let mut out = self.run_loop(&looped, st, at_least_once)?;
            if let Some(d) = dst {
                // Collected from an object made anew in each pass (`devices.iter().map(|d|
                // CommandQueue::create(..)).collect()`): how many is not known, but each
                // member named by a constant index is an object of its own, as the members
                // of a list from outside are.
                let fresh = matches!(tail, Value::New(_));
                let v = if fresh { AVal::External } else { AVal::Unknown };
                out.env.insert(d.clone(), v);
            }
            return Some(out);
        }
        self.unrolled += cost;
        let mut cur = Some(st);
        let mut exits = Vec::new();
        let mut values = Vec::new();
        // One row per iteration: the current member of each source.
        let rows: Vec<Vec<AVal>> = (0..n)
            .map(|k| members.iter().map(|m| m[k].clone()).collect())
            .collect();
        for (k, row) in rows.into_iter().enumerate() {
            let Some(mut s) = cur.take() else { break };
            for (p, part) in binds {
                let v = match part {
                    EachPart::Member(src) => row[*src].clone(),
                    EachPart::Count => AVal::Int(k as u64),
                    EachPart::Unknown => AVal::Unknown,
                };
                remove_parts(&mut s.env, p, true);
                s.env.insert(p.clone(), v);
            }
            self.loops.push(LoopCx::default());
            self.unroll_depth += 1;
            let end = self.block(body, s);
            self.unroll_depth -= 1;
            let cx = self.loops.pop().unwrap_or_default();
            let mut ends: Vec<State> = Vec::new();
            if let Some(mut e) = end {
                if dst.is_some() {
                    values.push(self.eval(&mut e, tail, None, "%item"));
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
            cur = join_all(ends);
        }
        let complete = cur.is_some() && values.len() == n;
        exits.extend(cur);
        let mut out = join_all(exits)?;
        if let Some(d) = dst {
            let v = if complete {
                AVal::List(values)
            } else {
                AVal::Unknown
            };
            out.env.insert(d.clone(), v);
        }
        Some(out)
    }
}

/// Whether a constant index of the list `l` is bound (`queues[0]` was used).
fn indexed(st: &State, l: &Place) -> bool {
    st.env
        .range(l.clone()..)
        .take_while(|(k, _)| k.var == l.var && k.proj.starts_with(&l.proj))
        .any(|(k, _)| matches!(k.proj.get(l.proj.len()), Some(Proj::Index(_))))
}
