//! A growable set of small integers (command instances).

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BitSet(Vec<u64>);

impl BitSet {
    pub fn insert(&mut self, i: usize) {
        let w = i / 64;
        if self.0.len() <= w {
            self.0.resize(w + 1, 0);
        }
        self.0[w] |= 1 << (i % 64);
    }

    pub fn contains(&self, i: usize) -> bool {
        self.0.get(i / 64).is_some_and(|w| w & (1 << (i % 64)) != 0)
    }

    pub fn union_with(&mut self, o: &BitSet) {
        if self.0.len() < o.0.len() {
            self.0.resize(o.0.len(), 0);
        }
        for (a, b) in self.0.iter_mut().zip(&o.0) {
            *a |= b;
        }
    }

    /// Whether every member is one of `o`'s.
    pub fn is_subset(&self, o: &BitSet) -> bool {
        self.0
            .iter()
            .enumerate()
            .all(|(i, a)| a & !o.0.get(i).copied().unwrap_or(0) == 0)
    }

    /// The largest member that is not one of `o`'s.
    pub fn last_not_in(&self, o: &BitSet) -> Option<usize> {
        self.0.iter().enumerate().rev().find_map(|(w, a)| {
            let left = a & !o.0.get(w).copied().unwrap_or(0);
            (left != 0).then(|| w * 64 + 63 - left.leading_zeros() as usize)
        })
    }

    pub fn intersection(&self, o: &BitSet) -> BitSet {
        BitSet(self.0.iter().zip(&o.0).map(|(a, b)| a & b).collect())
    }

    pub fn difference(&self, o: &BitSet) -> BitSet {
        BitSet(
            self.0
                .iter()
                .enumerate()
                .map(|(i, a)| a & !o.0.get(i).copied().unwrap_or(0))
                .collect(),
        )
    }

    /// What holds on every path: members of both, and members of one that do not exist
    /// on the other path at all (`ta`, `tb`: what exists on each path).
    pub fn join(a: &BitSet, ta: &BitSet, b: &BitSet, tb: &BitSet) -> BitSet {
        let mut r = a.intersection(b);
        r.union_with(&a.difference(tb));
        r.union_with(&b.difference(ta));
        r
    }
}

#[cfg(test)]
mod tests {
    use super::BitSet;

    fn set(items: &[usize]) -> BitSet {
        let mut s = BitSet::default();
        items.iter().for_each(|&i| s.insert(i));
        s
    }

    #[test]
    fn last_not_in_is_the_largest_member_left() {
        let a = set(&[1, 5, 64, 130]);
        assert_eq!(a.last_not_in(&set(&[])), Some(130));
        assert_eq!(a.last_not_in(&set(&[130])), Some(64));
        assert_eq!(a.last_not_in(&set(&[64, 130, 200])), Some(5));
        assert_eq!(a.last_not_in(&a), None);
        assert_eq!(set(&[]).last_not_in(&a), None);
    }

    #[test]
    fn join_keeps_what_holds_on_every_path() {
        // 1 exists on both paths but holds only on one; 2 and 70 exist on one path each.
        let ta = set(&[1, 2]);
        let tb = set(&[1, 70]);
        let j = BitSet::join(&set(&[1, 2]), &ta, &set(&[70]), &tb);
        assert_eq!(
            (0..200).filter(|&i| j.contains(i)).collect::<Vec<_>>(),
            vec![2, 70]
        );
    }

    #[test]
    fn subset_over_words_of_either_length() {
        assert!(set(&[1, 70]).is_subset(&set(&[1, 2, 70])));
        assert!(!set(&[1, 70]).is_subset(&set(&[1, 2])));
        assert!(set(&[3]).is_subset(&set(&[3, 200])));
        assert!(BitSet::default().is_subset(&BitSet::default()));
    }
}
