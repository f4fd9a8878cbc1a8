//! Dense bitsets and binary relations over event nodes.
//!
//! Relations of an execution graph (po, rf, co, fr and everything derived from them) are kept as
//! adjacency bitsets indexed by dense node numbers (see [`crate::exec::graph::NodeIndex`]): one row per
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

    /// Empties the set, keeping its capacity.
    pub fn clear(&mut self) {
        self.words.fill(0);
    }

    pub fn insert(&mut self, i: usize) -> bool {
        let (w, b) = (i / 64, i % 64);
        let had = self.words[w] & (1 << b) != 0;
        self.words[w] |= 1 << b;
        !had
    }

    pub fn contains(&self, i: usize) -> bool {
        self.words.get(i / 64).is_some_and(|w| w & (1 << (i % 64)) != 0)
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

/// Scratch space for [`Relation::close`] and [`Relation::is_acyclic_with`], kept by callers that
/// run them on graph after graph.
#[derive(Clone, Debug, Default)]
pub struct OrderScratch {
    order: Vec<u32>,
    live: Vec<u64>,
    done: Vec<u64>,
}

/// A binary relation over nodes `0..n`: an `n × n` bit matrix stored row by row in one buffer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Relation {
    n: usize,
    /// Words per row.
    w: usize,
    bits: Vec<u64>,
}

impl Default for Relation {
    /// The empty relation over no nodes.
    fn default() -> Self {
        Relation::empty(0)
    }
}

impl Relation {
    pub fn empty(n: usize) -> Self {
        let w = n.div_ceil(64).max(1);
        Relation { n, w, bits: vec![0; n * w] }
    }

    #[cfg(test)]
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

    #[cfg(any(test, debug_assertions))]
    pub fn intersect(&self, other: &Relation) -> Relation {
        let mut r = self.clone();
        r.intersect_with(other);
        r
    }

    pub fn intersect_with(&mut self, other: &Relation) {
        for (a, b) in self.bits.iter_mut().zip(&other.bits) {
            *a &= *b;
        }
    }

    /// Pairs of `self` that satisfy `keep`.
    #[cfg(any(test, debug_assertions))]
    pub fn filter(&self, mut keep: impl FnMut(usize, usize) -> bool) -> Relation {
        let mut r = Relation::empty(self.n);
        for (a, b) in self.pairs() {
            if keep(a, b) {
                r.add(a, b);
            }
        }
        r
    }

    #[cfg(test)]
    pub fn inverse(&self) -> Relation {
        let mut r = Relation::empty(self.n);
        for (a, b) in self.pairs() {
            r.add(b, a);
        }
        r
    }

    /// Relational composition `self ; other`.
    #[cfg(any(test, debug_assertions))]
    pub fn compose(&self, other: &Relation) -> Relation {
        let mut r = Relation::default();
        self.compose_into(other, &mut r);
        r
    }

    /// `out := self ; other`, keeping `out`'s buffer.
    pub fn compose_into(&self, other: &Relation, out: &mut Relation) {
        out.reset(self.n);
        let w = self.w;
        for a in 0..self.n {
            for m in self.successors(a) {
                for k in 0..w {
                    out.bits[a * w + k] |= other.bits[m * w + k];
                }
            }
        }
    }

    /// Transitive closure `self+`: [`Relation::close`] on a copy.
    #[cfg(any(test, debug_assertions))]
    pub fn closure(&self) -> Relation {
        let mut r = self.clone();
        r.close(&mut OrderScratch::default());
        r
    }

    /// Transitive closure by Warshall over bit rows: the reference [`Relation::close`] is tested
    /// against.
    #[cfg(test)]
    fn warshall(&self) -> Relation {
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

    /// Makes `self` the empty relation over `n` nodes, keeping its buffer (for scratch relations
    /// reused from one graph to the next).
    pub fn reset(&mut self, n: usize) {
        self.n = n;
        self.w = n.div_ceil(64).max(1);
        self.bits.clear();
        self.bits.resize(n * self.w, 0);
    }

    /// `self := other`, keeping `self`'s buffer.
    pub fn assign(&mut self, other: &Relation) {
        self.n = other.n;
        self.w = other.w;
        self.bits.clear();
        self.bits.extend_from_slice(&other.bits);
    }

    /// Row `a` as words: bit `b` of the row is the pair `(a, b)`.
    pub fn row(&self, a: usize) -> &[u64] {
        self.row_words(a)
    }

    pub fn row_mut(&mut self, a: usize) -> &mut [u64] {
        &mut self.bits[a * self.w..(a + 1) * self.w]
    }

    /// Whether row `a` has no successor.
    pub fn row_is_empty(&self, a: usize) -> bool {
        self.row_words(a).iter().all(|&x| x == 0)
    }

    /// Transitive closure in place: node by node, each row taking the row of every node it
    /// reaches. Nodes go after their successors where peeling sinks finds such an order: then
    /// each row taken is closed already, the nodes in it need no taking of their own, and the
    /// work is at most `O(pairs × words)` (program order, a chain, takes one row per node). On
    /// a cycle the nodes the peeling left come last, in any order; a row taken before its own
    /// turn holds only nodes reached, which are then taken one by one.
    pub fn close(&mut self, tmp: &mut OrderScratch) {
        if !self.sink_order(tmp) {
            self.finish_order(tmp);
        }
        let w = self.w;
        if w <= 2 {
            // `done`: the nodes whose rows are closed.
            let mut done = 0u128;
            for &a in &tmp.order {
                let a = a as usize;
                let (mut row, mut seen) = (self.row128(a), 0u128);
                let mut todo = row;
                while todo != 0 {
                    let b = todo.trailing_zeros() as usize;
                    let rb = self.row128(b);
                    row |= rb;
                    seen |= 1 << b;
                    if done & (1 << b) != 0 {
                        seen |= rb;
                    }
                    todo = row & !seen;
                }
                self.bits[a * w] = row as u64;
                if w == 2 {
                    self.bits[a * w + 1] = (row >> 64) as u64;
                }
                done |= 1 << a;
            }
            return;
        }
        let OrderScratch { order, live: seen, done } = tmp;
        done.clear();
        done.resize(w, 0);
        for &a in order.iter() {
            let a = a as usize;
            seen.clear();
            seen.resize(w, 0);
            let mut wi = 0;
            while wi < w {
                let todo = self.bits[a * w + wi] & !seen[wi];
                if todo == 0 {
                    wi += 1;
                    continue;
                }
                let b = wi * 64 + todo.trailing_zeros() as usize;
                seen[wi] |= 1 << (b % 64);
                let closed = done[wi] & (1 << (b % 64)) != 0;
                for (j, s) in seen.iter_mut().enumerate() {
                    let v = self.bits[b * w + j];
                    self.bits[a * w + j] |= v;
                    if closed {
                        *s |= v;
                    }
                }
                // A row that gained bits below the word looked at goes back to the first word.
                if !closed {
                    wi = 0;
                }
            }
            done[a / 64] |= 1 << (a % 64);
        }
    }

    /// After a [`Relation::sink_order`] stopped by a cycle: appends the nodes it did not place,
    /// so that `tmp.order` holds every node with successors.
    fn finish_order(&self, tmp: &mut OrderScratch) {
        let placed = &mut tmp.live;
        placed.clear();
        placed.resize(self.w.max(1), 0);
        for &a in &tmp.order {
            placed[a as usize / 64] |= 1 << (a % 64);
        }
        for a in (0..self.n).rev() {
            if placed[a / 64] & (1 << (a % 64)) == 0 && self.row_words(a).iter().any(|&x| x != 0) {
                tmp.order.push(a as u32);
            }
        }
    }

    /// Row `a` as one `u128`, where rows have at most two words.
    #[inline]
    fn row128(&self, a: usize) -> u128 {
        let lo = self.bits[a * self.w] as u128;
        if self.w == 2 { lo | (self.bits[a * 2 + 1] as u128) << 64 } else { lo }
    }

    /// Fills `tmp.order` with the nodes (where rows have two words, only those with
    /// successors), each after all its successors, by peeling sinks (nodes with no successor
    /// left), and returns true; returns false when a cycle stops the peeling. Each sweep goes
    /// down from the last node, so relations whose pairs mostly go up (program order) peel in
    /// one sweep.
    fn sink_order(&self, tmp: &mut OrderScratch) -> bool {
        let (n, w) = (self.n, self.w);
        let order = &mut tmp.order;
        order.clear();
        if w == 1 {
            // One word per row (up to 64 nodes): the live set is a word.
            let mut live: u64 = if n == 64 { !0 } else { (1 << n) - 1 };
            loop {
                let before = order.len();
                let mut word = live;
                while word != 0 {
                    let a = 63 - word.leading_zeros() as usize;
                    word &= !(1 << a);
                    if self.bits[a] & live == 0 {
                        live &= !(1 << a);
                        order.push(a as u32);
                    }
                }
                if live == 0 {
                    return true;
                }
                if order.len() == before {
                    return false;
                }
            }
        }
        if w == 2 {
            // Up to 128 nodes: the live set and the rows are `u128`s. A node without successors
            // is a sink from the start, and needs no place in the order (its row stays empty).
            let mut live: u128 = 0;
            for (a, row) in self.bits.chunks_exact(2).enumerate() {
                live |= u128::from(row[0] | row[1] != 0) << a;
            }
            loop {
                let before = order.len();
                let mut word = live;
                while word != 0 {
                    let a = 127 - word.leading_zeros() as usize;
                    word &= !(1 << a);
                    if self.row128(a) & live == 0 {
                        live &= !(1 << a);
                        order.push(a as u32);
                    }
                }
                if live == 0 {
                    return true;
                }
                if order.len() == before {
                    return false;
                }
            }
        }
        let live = &mut tmp.live;
        live.clear();
        live.resize(w, !0);
        if n % 64 != 0 {
            live[w - 1] = (1 << (n % 64)) - 1;
        }
        if n == 0 {
            live[0] = 0;
        }
        loop {
            let before = order.len();
            for wi in (0..w).rev() {
                let mut word = live[wi];
                while word != 0 {
                    let b = 63 - word.leading_zeros() as usize;
                    word &= !(1 << b);
                    let a = wi * 64 + b;
                    let row = &self.bits[a * w..(a + 1) * w];
                    if row.iter().zip(live.iter()).all(|(r, l)| r & l == 0) {
                        live[wi] &= !(1 << b);
                        order.push(a as u32);
                    }
                }
            }
            if order.len() == n {
                return true;
            }
            if order.len() == before {
                return false;
            }
        }
    }

    /// Like [`Relation::is_acyclic`], with `tmp` as scratch space.
    pub fn is_acyclic_with(&self, tmp: &mut OrderScratch) -> bool {
        self.sink_order(tmp)
    }

    #[cfg(test)]
    pub fn is_irreflexive(&self) -> bool {
        (0..self.n).all(|i| !self.contains(i, i))
    }

    /// Whether the relation has no cycle (see [`Relation::is_acyclic_with`]).
    pub fn is_acyclic(&self) -> bool {
        self.is_acyclic_with(&mut OrderScratch::default())
    }

    /// Acyclicity by Kahn's algorithm (repeatedly remove nodes without predecessors): the
    /// reference [`Relation::is_acyclic_with`] is tested against.
    #[cfg(test)]
    fn is_acyclic_kahn(&self) -> bool {
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

/// Bitsets as slices of words, for relations built row by row: a row of a [`Relation`]
/// ([`Relation::row`]) and node masks of the same width.
pub mod row {
    use super::Relation;

    /// Whether bit `b` is set.
    #[inline]
    pub fn has(row: &[u64], b: usize) -> bool {
        row[b / 64] & (1 << (b % 64)) != 0
    }

    #[inline]
    pub fn set(row: &mut [u64], b: usize) {
        row[b / 64] |= 1 << (b % 64);
    }

    #[inline]
    pub fn unset(row: &mut [u64], b: usize) {
        row[b / 64] &= !(1 << (b % 64));
    }

    /// The bits `lo..hi` that fall in word `k` of a row.
    #[inline]
    pub fn range_word(k: usize, lo: usize, hi: usize) -> u64 {
        let (start, end) = (lo.max(k * 64), hi.min(k * 64 + 64));
        if start >= end {
            return 0;
        }
        (!0u64 >> (64 - (end - start))) << (start - k * 64)
    }

    /// Sets bits `lo..hi`.
    #[inline]
    pub fn set_range(row: &mut [u64], lo: usize, hi: usize) {
        if lo >= hi {
            return;
        }
        for (k, word) in row.iter_mut().enumerate().take((hi - 1) / 64 + 1).skip(lo / 64) {
            *word |= range_word(k, lo, hi);
        }
    }

    #[inline]
    pub fn is_zero(row: &[u64]) -> bool {
        row.iter().all(|&x| x == 0)
    }

    /// The set bits of `row`, in increasing order.
    #[inline]
    pub fn bits(row: &[u64]) -> impl Iterator<Item = usize> + '_ {
        row.iter().enumerate().flat_map(|(wi, &w)| {
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

    /// `dst |= src`, word by word.
    #[inline]
    pub fn or_into(dst: &mut [u64], src: &[u64]) {
        for (d, s) in dst.iter_mut().zip(src) {
            *d |= s;
        }
    }

    /// Words per row: `W`, or `w` where `W` is 0 (callers monomorphize their row loops for
    /// the common widths and pass 0 for the rest).
    #[inline]
    pub fn width<const W: usize>(w: usize) -> usize {
        if W == 0 { w } else { W }
    }

    /// `out := ⋃ rel[y]` over the bits `y` of `set` (`out.len()` words; `W` as in [`width`]).
    #[inline]
    pub fn union_of_rows<const W: usize>(out: &mut [u64], set: &[u64], rel: &Relation) {
        let w = width::<W>(out.len());
        out[..w].fill(0);
        for (wi, &word) in set[..w].iter().enumerate() {
            let mut word = word;
            while word != 0 {
                let y = wi * 64 + word.trailing_zeros() as usize;
                word &= word - 1;
                let r = rel.row(y);
                for k in 0..w {
                    out[k] |= r[k];
                }
            }
        }
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

    /// `close` (in sink order, or with a cycle the peeling stops at) agrees with Warshall, and
    /// `is_acyclic_with` with Kahn's algorithm, on pseudo-random relations of one and of several
    /// words per row: acyclic ones, dense cyclic ones, and acyclic ones with a few back pairs.
    #[test]
    fn close_matches_closure() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let mut tmp = OrderScratch::default();
        for &n in &[0usize, 1, 5, 40, 63, 64, 65, 100, 127, 128, 130, 300] {
            for round in 0..20 {
                let mut r = Relation::empty(n);
                for _ in 0..(n * (round % 4 + 1)) {
                    let (a, b) = (next() as usize % n, next() as usize % n);
                    // Mostly forward pairs (acyclic), some backward ones (cycles).
                    if a < b || round % 3 == 0 || (round % 3 == 1 && next() % 16 == 0) {
                        r.add(a, b);
                    }
                }
                let mut c = r.clone();
                c.close(&mut tmp);
                assert_eq!(c, r.warshall(), "n = {n}, round {round}");
                assert_eq!(r.is_acyclic_with(&mut tmp), r.is_acyclic_kahn());
            }
        }
    }

    #[test]
    fn row_ranges() {
        for lo in 0..140 {
            for hi in lo..140 {
                let mut r = vec![0u64; 3];
                row::set_range(&mut r, lo, hi);
                let want: Vec<usize> = (lo..hi).collect();
                assert_eq!(row::bits(&r).collect::<Vec<_>>(), want, "{lo}..{hi}");
                for (k, &word) in r.iter().enumerate() {
                    assert_eq!(row::range_word(k, lo, hi), word);
                }
            }
        }
    }
}
