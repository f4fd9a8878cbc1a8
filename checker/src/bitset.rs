//! Dense bitsets and binary relations over event nodes.
//!
//! Relations of an execution graph (po, rf, co, fr and everything derived from them) are kept as
//! adjacency bitsets indexed by dense node numbers (see [`crate::graph::NodeIndex`]): one row per
//! node, one bit per successor. Graphs of litmus programs have tens of nodes, so a row is one or two
//! machine words and composition / closure are a few word operations per pair.

/// A fixed-capacity set of small integers.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct BitSet {
    words: Vec<u64>,
}

impl BitSet {
    pub fn new(capacity: usize) -> Self {
        BitSet { words: vec![0; capacity.div_ceil(64)] }
    }

    pub fn insert(&mut self, i: usize) -> bool {
        let (w, b) = (i / 64, i % 64);
        let had = self.words[w] & (1 << b) != 0;
        self.words[w] |= 1 << b;
        !had
    }

    pub fn remove(&mut self, i: usize) {
        self.words[i / 64] &= !(1 << (i % 64));
    }

    pub fn contains(&self, i: usize) -> bool {
        self.words.get(i / 64).is_some_and(|w| w & (1 << (i % 64)) != 0)
    }

    pub fn is_empty(&self) -> bool {
        self.words.iter().all(|&w| w == 0)
    }

    /// `self |= other`; returns whether `self` grew.
    pub fn union_with(&mut self, other: &BitSet) -> bool {
        let mut grew = false;
        for (a, b) in self.words.iter_mut().zip(&other.words) {
            let n = *a | *b;
            grew |= n != *a;
            *a = n;
        }
        grew
    }

    pub fn intersect_with(&mut self, other: &BitSet) {
        for (a, b) in self.words.iter_mut().zip(&other.words) {
            *a &= *b;
        }
    }

    pub fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        self.words.iter().enumerate().flat_map(|(wi, &w)| {
            let mut w = w;
            std::iter::from_fn(move || {
                if w == 0 {
                    return None;
                }
                let b = w.trailing_zeros() as usize;
                w &= w - 1;
                Some(wi * 64 + b)
            })
        })
    }
}

/// A binary relation over nodes `0..n`: an `n × n` bit matrix stored row by row in one buffer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Relation {
    n: usize,
    /// Words per row.
    w: usize,
    bits: Vec<u64>,
}

impl Relation {
    pub fn empty(n: usize) -> Self {
        let w = n.div_ceil(64).max(1);
        Relation { n, w, bits: vec![0; n * w] }
    }

    pub fn len(&self) -> usize {
        self.n
    }

    pub fn is_empty(&self) -> bool {
        self.bits.iter().all(|&x| x == 0)
    }

    fn row_words(&self, a: usize) -> &[u64] {
        &self.bits[a * self.w..(a + 1) * self.w]
    }

    pub fn add(&mut self, a: usize, b: usize) {
        self.bits[a * self.w + b / 64] |= 1 << (b % 64);
    }

    pub fn contains(&self, a: usize, b: usize) -> bool {
        self.bits[a * self.w + b / 64] & (1 << (b % 64)) != 0
    }

    /// The successors of `a`.
    pub fn successors(&self, a: usize) -> impl Iterator<Item = usize> + '_ {
        self.row_words(a).iter().enumerate().flat_map(|(wi, &w)| {
            let mut w = w;
            std::iter::from_fn(move || {
                if w == 0 {
                    return None;
                }
                let b = w.trailing_zeros() as usize;
                w &= w - 1;
                Some(wi * 64 + b)
            })
        })
    }

    pub fn pairs(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        (0..self.n).flat_map(move |a| self.successors(a).map(move |b| (a, b)))
    }

    pub fn union(&self, other: &Relation) -> Relation {
        let mut r = self.clone();
        r.union_with(other);
        r
    }

    pub fn union_with(&mut self, other: &Relation) {
        for (a, b) in self.bits.iter_mut().zip(&other.bits) {
            *a |= *b;
        }
    }

    pub fn intersect(&self, other: &Relation) -> Relation {
        let mut r = self.clone();
        for (a, b) in r.bits.iter_mut().zip(&other.bits) {
            *a &= *b;
        }
        r
    }

    /// Pairs of `self` that satisfy `keep`.
    pub fn filter(&self, mut keep: impl FnMut(usize, usize) -> bool) -> Relation {
        let mut r = Relation::empty(self.n);
        for (a, b) in self.pairs() {
            if keep(a, b) {
                r.add(a, b);
            }
        }
        r
    }

    pub fn inverse(&self) -> Relation {
        let mut r = Relation::empty(self.n);
        for (a, b) in self.pairs() {
            r.add(b, a);
        }
        r
    }

    /// Relational composition `self ; other`.
    pub fn compose(&self, other: &Relation) -> Relation {
        let mut r = Relation::empty(self.n);
        let w = self.w;
        for a in 0..self.n {
            for m in self.successors(a) {
                for k in 0..w {
                    r.bits[a * w + k] |= other.bits[m * w + k];
                }
            }
        }
        r
    }

    /// The reflexive closure `self ∪ id` over all nodes.
    pub fn optional(&self) -> Relation {
        let mut r = self.clone();
        for i in 0..self.n {
            r.add(i, i);
        }
        r
    }

    /// Transitive closure `self+` (Warshall over bit rows).
    pub fn closure(&self) -> Relation {
        let mut r = self.clone();
        let (n, w) = (self.n, self.w);
        for k in 0..n {
            for i in 0..n {
                if r.contains(i, k) {
                    for j in 0..w {
                        let v = r.bits[k * w + j];
                        r.bits[i * w + j] |= v;
                    }
                }
            }
        }
        r
    }

    pub fn is_irreflexive(&self) -> bool {
        (0..self.n).all(|i| !self.contains(i, i))
    }

    pub fn is_acyclic(&self) -> bool {
        // Kahn's algorithm: repeatedly remove nodes without predecessors.
        let n = self.n;
        let mut indeg = vec![0u32; n];
        for (_, b) in self.pairs() {
            indeg[b] += 1;
        }
        let mut ready: Vec<usize> = (0..n).filter(|&i| indeg[i] == 0).collect();
        let mut removed = 0;
        while let Some(a) = ready.pop() {
            removed += 1;
            for b in self.successors(a) {
                indeg[b] -= 1;
                if indeg[b] == 0 {
                    ready.push(b);
                }
            }
        }
        removed == n
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn closure_and_cycles() {
        let mut r = Relation::empty(70);
        r.add(0, 1);
        r.add(1, 65);
        assert!(r.is_acyclic());
        let c = r.closure();
        assert!(c.contains(0, 65));
        r.add(65, 0);
        assert!(!r.is_acyclic());
        assert!(!r.closure().is_irreflexive());
        let bits: Vec<usize> = c.successors(0).collect();
        assert_eq!(bits, vec![1, 65]);
    }
}
