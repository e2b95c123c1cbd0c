//! A path's bindings, shared with the paths it split from.
//!
//! Every branch copies its state and every join merges the copies, so copying all the
//! bindings at each would make a function's analysis grow with its bindings times its
//! branches. Instead the bindings are a base shared by the copies and the changes of
//! this path since; a join of two paths that share a base looks only at their changes.
//! The changes are folded into a new base once they outgrow an eighth of it, so that every
//! operation stays cheap on average: a fold costs the base's size, once per that many
//! changes, while every join walks the changes of both paths.

use super::AVal;
use crate::ir::{Place, Proj};
use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::rc::Rc;

/// Changes below this many are never folded into the base.
const MIN_FOLD: usize = 32;

#[derive(Clone, Debug, Default)]
pub(super) struct Env {
    base: Rc<BTreeMap<Place, AVal>>,
    /// The bindings this path changed since `base` was made; `None` where it removed one.
    /// Shared by the copies of a path until one of them changes a binding, so that a join
    /// of paths that changed nothing since they split is one comparison.
    changes: Rc<BTreeMap<Place, Option<AVal>>>,
}

/// Places in order, and what they hold: a path's bindings or the places found.
pub(super) trait Places {
    /// The bindings at `from` and after it, in order.
    fn bound_from<'a>(
        &'a self,
        from: &Place,
    ) -> Box<dyn Iterator<Item = (&'a Place, &'a AVal)> + 'a>;
    fn unbind(&mut self, p: &Place);

    /// The bindings of `p` and of its parts (`x`, `x.f`, `x[1].g`), in order.
    fn within<'a>(&'a self, p: &'a Place) -> Box<dyn Iterator<Item = (&'a Place, &'a AVal)> + 'a> {
        Box::new(
            self.bound_from(p)
                .take_while(move |(k, _)| k.var == p.var && k.proj.starts_with(&p.proj)),
        )
    }

    /// The bindings one level below `list` (`ev[0]`, `ev[1]`, its fields), in order, by
    /// the projection that names each.
    fn members(&self, list: &Place) -> Vec<(Proj, AVal)> {
        self.within(list)
            .filter(|(k, _)| k.proj.len() == list.proj.len() + 1)
            .map(|(k, v)| (k.proj[list.proj.len()].clone(), v.clone()))
            .collect()
    }
}

impl Places for BTreeMap<Place, AVal> {
    fn bound_from<'a>(
        &'a self,
        from: &Place,
    ) -> Box<dyn Iterator<Item = (&'a Place, &'a AVal)> + 'a> {
        Box::new(self.range(from.clone()..))
    }
    fn unbind(&mut self, p: &Place) {
        self.remove(p);
    }
}

impl Places for Env {
    fn bound_from<'a>(
        &'a self,
        from: &Place,
    ) -> Box<dyn Iterator<Item = (&'a Place, &'a AVal)> + 'a> {
        Box::new(self.range_from(from))
    }
    fn unbind(&mut self, p: &Place) {
        self.remove(p);
    }
}

/// Two runs of bindings in the order of places, walked together: each place once, with
/// what each run has there.
fn merge<'a, A, B>(
    a: impl Iterator<Item = (&'a Place, A)>,
    b: impl Iterator<Item = (&'a Place, B)>,
) -> impl Iterator<Item = (&'a Place, Option<A>, Option<B>)> {
    let (mut a, mut b) = (a.peekable(), b.peekable());
    std::iter::from_fn(move || {
        let order = match (a.peek(), b.peek()) {
            (None, None) => return None,
            (Some(_), None) => Ordering::Less,
            (None, Some(_)) => Ordering::Greater,
            (Some((x, _)), Some((y, _))) => x.cmp(y),
        };
        Some(match order {
            Ordering::Less => a.next().map(|(k, x)| (k, Some(x), None))?,
            Ordering::Greater => b.next().map(|(k, y)| (k, None, Some(y)))?,
            Ordering::Equal => a.next().map(|(k, x)| (k, Some(x), b.next().map(|e| e.1)))?,
        })
    })
}

/// The base's bindings with the changes laid over them, in order.
fn laid_over<'a>(
    base: impl Iterator<Item = (&'a Place, &'a AVal)>,
    changes: impl Iterator<Item = (&'a Place, &'a Option<AVal>)>,
) -> impl Iterator<Item = (&'a Place, &'a AVal)> {
    merge(base, changes).filter_map(|(k, base, change)| match change {
        Some(changed) => changed.as_ref().map(|v| (k, v)),
        None => base.map(|v| (k, v)),
    })
}

impl Env {
    pub(super) fn get(&self, p: &Place) -> Option<&AVal> {
        match self.changes.get(p) {
            Some(changed) => changed.as_ref(),
            None => self.base.get(p),
        }
    }

    pub(super) fn contains_key(&self, p: &Place) -> bool {
        self.get(p).is_some()
    }

    pub(super) fn get_mut(&mut self, p: &Place) -> Option<&mut AVal> {
        if !self.changes.contains_key(p) {
            let v = self.base.get(p)?.clone();
            Rc::make_mut(&mut self.changes).insert(p.clone(), Some(v));
        }
        Rc::make_mut(&mut self.changes).get_mut(p)?.as_mut()
    }

    pub(super) fn insert(&mut self, k: Place, v: AVal) {
        Rc::make_mut(&mut self.changes).insert(k, Some(v));
        self.fold_if_grown();
    }

    /// Stores `v` at `k`; where `k` is a field of a variable holding a struct made here,
    /// the struct's value holds it too (a helper reading the struct whole sees it).
    pub(super) fn store(&mut self, k: Place, v: AVal) {
        if let [Proj::Field(f)] = k.proj.as_slice() {
            if let Some(AVal::Struct(fields)) = self.get_mut(&Place::var(k.var)) {
                fields.insert(f.clone(), v.clone());
            }
        }
        self.insert(k, v);
    }

    pub(super) fn remove(&mut self, k: &Place) {
        if self.base.contains_key(k) {
            Rc::make_mut(&mut self.changes).insert(k.clone(), None);
            self.fold_if_grown();
        } else if self.changes.contains_key(k) {
            Rc::make_mut(&mut self.changes).remove(k);
        }
    }

    pub(super) fn extend(&mut self, items: impl IntoIterator<Item = (Place, AVal)>) {
        items.into_iter().for_each(|(k, v)| self.insert(k, v));
    }

    pub(super) fn iter(&self) -> impl Iterator<Item = (&Place, &AVal)> {
        laid_over(self.base.iter(), self.changes.iter())
    }

    pub(super) fn keys(&self) -> impl Iterator<Item = &Place> {
        self.iter().map(|(k, _)| k)
    }

    pub(super) fn range_from(&self, from: &Place) -> impl Iterator<Item = (&Place, &AVal)> {
        laid_over(
            self.base.range(from.clone()..),
            self.changes.range(from.clone()..),
        )
    }

    fn fold_if_grown(&mut self) {
        if self.changes.len() > MIN_FOLD.max(self.base.len() / 8) {
            let all: BTreeMap<Place, AVal> =
                self.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
            *self = Env {
                base: Rc::new(all),
                changes: Rc::default(),
            };
        }
    }

    /// The bindings of two paths joined: `join(place, here, there)` gives what the place
    /// holds after the join, for every place bound on either path. Places that both paths
    /// still hold from a shared base are not visited: they keep what they hold, as a join
    /// of a value with itself does.
    pub(super) fn join(
        &self,
        o: &Env,
        mut join: impl FnMut(&Place, Option<&AVal>, Option<&AVal>) -> Option<AVal>,
    ) -> Env {
        if !Rc::ptr_eq(&self.base, &o.base) {
            let all: BTreeMap<Place, AVal> = merge(self.iter(), o.iter())
                .filter_map(|(k, x, y)| Some((k.clone(), join(k, x, y)?)))
                .collect();
            return Env {
                base: Rc::new(all),
                changes: Rc::default(),
            };
        }
        if Rc::ptr_eq(&self.changes, &o.changes) {
            return self.clone();
        }
        // The changes come in order, so the joined ones are collected in order and the map
        // is built from them at once.
        let mut joined = Vec::new();
        for (k, x, y) in merge(self.changes.iter(), o.changes.iter()) {
            // Changed alike on both paths (most often a change both inherited from before
            // they split): a join of a value with itself, kept as a change.
            if let (Some(x), Some(y)) = (x, y) {
                if x == y {
                    joined.push((k.clone(), x.clone()));
                    continue;
                }
            }
            let base = self.base.get(k);
            let here = x.map_or(base, Option::as_ref);
            let there = y.map_or(base, Option::as_ref);
            let v = match here == there {
                true => here.cloned(),
                false => join(k, here, there),
            };
            if v.as_ref() != base {
                joined.push((k.clone(), v));
            }
        }
        let changes = Rc::new(BTreeMap::from_iter(joined));
        let mut env = Env {
            base: Rc::clone(&self.base),
            changes,
        };
        env.fold_if_grown();
        env
    }

    /// Calls `f` with each place where the two paths' bindings differ and what each holds
    /// there. As in a join, places both still hold from a shared base are not visited.
    pub(super) fn diff(&self, o: &Env, mut f: impl FnMut(&Place, Option<&AVal>, Option<&AVal>)) {
        if !Rc::ptr_eq(&self.base, &o.base) {
            (merge(self.iter(), o.iter()))
                .filter(|(_, x, y)| x != y)
                .for_each(|(k, x, y)| f(k, x, y));
        } else if !Rc::ptr_eq(&self.changes, &o.changes) {
            (self.changed(o))
                .filter(|(_, x, y, _)| x != y)
                .for_each(|(k, x, y, _)| f(k, x, y));
        }
    }

    /// The places either of two paths that share a base changed since, in order, with what
    /// this path, the other and the base hold there.
    fn changed<'a>(
        &'a self,
        o: &'a Env,
    ) -> impl Iterator<
        Item = (
            &'a Place,
            Option<&'a AVal>,
            Option<&'a AVal>,
            Option<&'a AVal>,
        ),
    > {
        merge(self.changes.iter(), o.changes.iter()).map(move |(k, x, y)| {
            let base = self.base.get(k);
            (
                k,
                x.map_or(base, Option::as_ref),
                y.map_or(base, Option::as_ref),
                base,
            )
        })
    }
}
