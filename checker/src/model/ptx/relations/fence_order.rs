//! §8.9.3 Fence-SC order: where the search for an order that makes a graph consistent starts
//! (`Ptx::judge_loaded`) — the pairs every such order must have, and a guess.

use super::{INIT, MEM, NONE, Scratch};
use crate::exec::bitset::row::{bits, has, or_into};
use crate::exec::event::EventId;

impl Scratch {
    /// Per fence `j` of `fences`, bit `i`: fence `i` (of the first 64) precedes it in causality
    /// order between fences (base causality, or observation order followed by it; program order
    /// at least) and the two are morally strong. Reads `base` as [`Scratch::base_order`] with
    /// no Fence-SC order leaves it.
    pub(in crate::model::ptx) fn fence_causality(&self, fences: &[usize]) -> Vec<u64> {
        let mut before = vec![0u64; fences.len()];
        if fences.len() < 2 {
            return before;
        }
        let index_of = self.fence_index(fences);
        let mut fence_nodes = vec![0u64; self.w];
        for &f in fences {
            fence_nodes[f / 64] |= 1 << (f % 64);
        }
        let mut row = vec![0u64; self.w];
        for (i, &f) in fences.iter().enumerate().take(64) {
            row.copy_from_slice(self.base.row(f));
            for y in bits(self.obs.row(f)) {
                or_into(&mut row, self.base.row(y));
            }
            or_into(&mut row, self.po.row(f));
            for ((r, m), n) in row.iter_mut().zip(self.ms.row(f)).zip(&fence_nodes) {
                *r &= m & n;
            }
            for x in bits(&row) {
                match index_of[x] {
                    j if j == i || j == usize::MAX => {}
                    j => before[j] |= 1 << i,
                }
            }
        }
        before
    }

    /// Per node, its index in `fences` (`usize::MAX`: not a fence of the list).
    fn fence_index(&self, fences: &[usize]) -> Vec<usize> {
        let mut index_of = vec![usize::MAX; self.n];
        for (j, &f) in fences.iter().enumerate() {
            index_of[f] = j;
        }
        index_of
    }

    /// A Fence-SC order likely to work, to try before searching (most consistent graphs have one
    /// the first try finds): `fences` in an order that extends `before` (fence `i` after those of
    /// bit mask `before[i]`) and, where they allow it, puts `F1` before `F2` when `F1` reaches
    /// `F2` through base causality, one `rf`, `co` or `fr` edge and base causality again — what
    /// an SC order must follow for `F2`'s side to see `F1`'s (RC11's `psc` in spirit). Call after
    /// [`Scratch::base_order`] with no order: it reads `base` as that leaves it.
    pub(in crate::model::ptx) fn guessed_fence_order(&self, fences: &[usize], before: &[u64]) -> Vec<usize> {
        let k = fences.len();
        // Where `forced_fence_order` applies, `before` holds the sound part of the guess already.
        let reach = if self.forced_applies() { vec![0; k] } else { self.fence_reach(fences, false) };
        // Kahn's algorithm over `before`, taking a fence that nothing unplaced reaches when there
        // is one (`reach` may have cycles: then the guess is only a guess).
        let mut placed = 0u64;
        let mut order = Vec::with_capacity(k);
        while order.len() < k {
            let ready = |i: usize| placed & 1 << i == 0 && before[i] & !placed == 0;
            let unreached = |i: usize| (0..k).all(|j| placed & 1 << j != 0 || reach[j] & 1 << i == 0);
            let Some(i) = (0..k).find(|&i| ready(i) && unreached(i)).or_else(|| (0..k).find(|&i| ready(i))) else { break };
            placed |= 1 << i;
            order.push(fences[i]);
        }
        order
    }

    /// Adds to `before` (bit `i` of `before[j]`: fence `i` precedes fence `j`) the pairs of
    /// `fences` that every Fence-SC order of a consistent execution has, and closes it under
    /// transitivity; `false` when they form a cycle: no order works, the graph is inconsistent.
    ///
    /// `F1` precedes `F2` when `F1` is base-causality-before a memory operation `X` and `F2`
    /// base-causality-after `Y`, where `X →rf Y`, `X →co Y` or `X →fr Y` (through coherence order
    /// proper: from the initial write, or between morally strong writes) on one virtual address.
    /// Were `F2` first, it would synchronize with `F1` (§8.9.4; the two are morally strong), so
    /// `Y` would precede `X` in base causality and, two generic accesses of one virtual address,
    /// in causality order (§8.9.5): against Causality (§8.10.6: `rf` or `fr`, then causality
    /// back) or Coherence (§8.10.1: `co` against causality). Only where every access is generic
    /// and no tcgen05 event is there (the other proxies' rules need more), read off base
    /// causality without a Fence-SC order, which every order only extends: call after
    /// [`Scratch::base_order`] with no order. (RC11's `psc` acyclicity, in PTX's terms.)
    pub(in crate::model::ptx) fn forced_fence_order(&self, fences: &[usize], before: &mut [u64]) -> bool {
        let k = fences.len().min(64).min(before.len());
        if self.forced_applies() {
            let reach = self.fence_reach(&fences[..k], true);
            for (i, r) in reach.iter().enumerate() {
                for j in bits(&[*r]) {
                    before[j] |= 1 << i;
                }
            }
        }
        // Transitive closure over at most 64 fences, then a cycle is a fence before itself.
        let mut changed = true;
        while changed {
            changed = false;
            for j in 0..k {
                let mut grown = before[j];
                for i in bits(&[before[j]]) {
                    grown |= before[i];
                }
                if grown != before[j] {
                    before[j] = grown;
                    changed = true;
                }
            }
        }
        (0..k).all(|j| before[j] & 1 << j == 0)
    }

    /// Where [`Scratch::forced_fence_order`]'s rule holds: every access generic, no tcgen05 event.
    pub(in crate::model::ptx) fn forced_applies(&self) -> bool {
        self.generic_only && !self.tc
    }

    /// Per fence `i` of `fences` (at most 64), bit `j`: fence `i` reaches fence `j` through base
    /// causality, one `rf`, `co` or `fr` edge, and base causality again. `sound`: only the edges
    /// of [`Scratch::forced_fence_order`]'s rule (one virtual address, `fr` through coherence
    /// order proper, morally strong fences); otherwise any such edge (for a guess).
    fn fence_reach(&self, fences: &[usize], sound: bool) -> Vec<u64> {
        let (n, k, w) = (self.n, fences.len().min(64), self.w);
        // Per node, the fences (as bits over `fences`) it precedes in base causality.
        let mut fence_nodes = vec![0u64; w];
        for &f in &fences[..k] {
            fence_nodes[f / 64] |= 1 << (f % 64);
        }
        let index_of = self.fence_index(&fences[..k]);
        let mut before_fences = vec![0u64; n];
        for (x, out) in before_fences.iter_mut().enumerate() {
            let row = self.base.row(x);
            for q in 0..w {
                for f in bits(&[row[q] & fence_nodes[q]]) {
                    *out |= 1 << index_of[q * 64 + f];
                }
            }
        }
        // Per memory operation, the fences that the accesses one `rf`, `co` or `fr` edge leads to
        // precede.
        let mut eco_fences = vec![0u64; n];
        for x in bits(self.mask(MEM)) {
            let Some(l) = self.labels[x] else { continue };
            let same = self.mask(self.vloc_masks + l.vloc as usize);
            let (rf, co, src) = (self.rf.row(x), self.co.row(x), self.rf_src[x]);
            let mut reached = 0;
            for q in 0..w {
                let fr = match src {
                    NONE => 0,
                    src => {
                        let src = src as usize;
                        let proper = if !sound || has(self.mask(INIT), src) { !0 } else { self.ms.row(src)[q] };
                        self.co.row(src)[q] & proper
                    }
                };
                let eco = (rf[q] | co[q] | fr) & if sound { same[q] } else { !0 };
                for y in bits(&[eco]) {
                    reached |= before_fences[q * 64 + y];
                }
            }
            eco_fences[x] = reached;
        }
        // What a fence's successors reach. With program order total in each thread (no tcgen05
        // event, no bulk copy), base causality is closed under it: a fence's successors in a
        // thread are the thread's events from the first of them on, whose fences each thread's
        // running union from its end gives at once.
        let total_po = !self.tc && self.copies.is_empty();
        if total_po {
            for t in 0..self.offsets.len() - 1 {
                let mut acc = 0;
                for x in (self.offsets[t]..self.offsets[t + 1]).rev() {
                    acc |= eco_fences[x];
                    eco_fences[x] = acc;
                }
            }
        }
        let successors_reach = |f: usize| -> u64 {
            let row = self.base.row(f);
            if !total_po {
                return bits(row).fold(0, |m, x| m | eco_fences[x]);
            }
            (0..self.offsets.len() - 1).fold(0, |m, t| match first_in(row, self.offsets[t], self.offsets[t + 1]) {
                Some(x) => m | eco_fences[x],
                None => m,
            })
        };
        fences[..k]
            .iter()
            .enumerate()
            .map(|(i, &f)| {
                let reached = successors_reach(f) & !(1 << i);
                if !sound {
                    return reached;
                }
                bits(&[reached]).filter(|&j| self.ms.contains(f, fences[j])).fold(0, |m, j| m | 1 << j)
            })
            .collect()
    }
}

impl Scratch {
    /// Base causality that every Fence-SC order making the loaded graph consistent gives, into
    /// `base`: none of an order's own (base causality with no order), and the synchronizes-with
    /// of the pairs every such order has ([`Scratch::forced_fence_order`]; §8.9.4, between
    /// morally strong fences). After [`Scratch::build`], [`Scratch::build_ms`] and
    /// [`Scratch::add_sync`]. `false` where the forced pairs form a cycle (no order works).
    pub(in crate::model::ptx) fn base_under_every_order(&mut self) -> bool {
        self.base_order(&[], 0);
        let fences = std::mem::take(&mut self.sc_fences);
        let k = fences.len().min(64);
        let mut acyclic = true;
        if k >= 2 {
            let mut before = self.fence_causality(&fences[..k]);
            acyclic = self.forced_fence_order(&fences, &mut before);
            if acyclic {
                let mut added = false;
                for (j, &fj) in fences[..k].iter().enumerate() {
                    for i in bits(&[before[j]]) {
                        if self.ms.contains(fences[i], fj) && !self.base.contains(fences[i], fj) {
                            self.base.add(fences[i], fj);
                            added = true;
                        }
                    }
                }
                if added {
                    self.base.close(&mut self.order);
                }
            }
        }
        self.sc_fences = fences;
        acyclic
    }

    /// Whether, in `base` as [`Scratch::base_under_every_order`] left it, write `w` precedes
    /// node `p` or the event right after `p` in its thread in causality order between two generic
    /// accesses of virtual address `vloc` (§8.9.5: base causality, or observation order followed
    /// by it, with every access generic). `p` itself counts: program order leads from it.
    pub(in crate::model::ptx) fn causes_after(&self, w: EventId, p: EventId, vloc: u32) -> bool {
        let (w, p) = (self.node_of(w), self.node_of(p));
        let before_p = |x: usize| x == p || self.base.contains(x, p);
        let at = |x: usize| self.labels[x].is_some_and(|l| l.is_access() && l.vloc == vloc);
        (at(w) && before_p(w)) || bits(self.obs.row(w)).any(|y| at(y) && before_p(y))
    }
}

/// The first node of `lo..hi` in `row`.
fn first_in(row: &[u64], lo: usize, hi: usize) -> Option<usize> {
    let mut x = lo;
    while x < hi {
        let word = row[x / 64] >> (x % 64);
        if word != 0 {
            let y = x + word.trailing_zeros() as usize;
            return (y < hi).then_some(y);
        }
        x = (x / 64 + 1) * 64;
    }
    None
}
