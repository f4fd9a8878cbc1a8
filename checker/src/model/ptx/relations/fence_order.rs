//! §8.9.3 Fence-SC order: where the search for an order that makes a graph consistent starts
//! (`Ptx::judge_loaded`) — the pairs every such order must have, and a guess.

use super::{INIT, MEM, NONE, Scratch};
use crate::bitset::row::{bits, has};

impl Scratch {
    /// Whether `a` precedes `b` in causality order between fences (base causality, or
    /// observation order followed by it; program order at least) and the two are morally strong.
    /// Reads `base` as [`Scratch::with_fence_order`] left it: call it with no fence order first.
    pub(in crate::model::ptx) fn fence_causes(&self, a: usize, b: usize) -> bool {
        let caused = self.base.contains(a, b) || bits(self.obs.row(a)).any(|y| self.base.contains(y, b));
        (caused || self.po.contains(a, b)) && self.ms.contains(a, b)
    }

    /// A Fence-SC order likely to work, to try before searching (most consistent graphs have one
    /// the first try finds): `fences` in an order that extends `before` (fence `i` after those of
    /// bit mask `before[i]`) and, where they allow it, puts `F1` before `F2` when `F1` reaches
    /// `F2` through base causality, one `rf`, `co` or `fr` edge and base causality again — what
    /// an SC order must follow for `F2`'s side to see `F1`'s (RC11's `psc` in spirit). Call after
    /// [`Scratch::with_fence_order`] with no order: it reads `base` as that left it.
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
    /// [`Scratch::with_fence_order`] with no order. (RC11's `psc` acyclicity, in PTX's terms.)
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
    fn forced_applies(&self) -> bool {
        self.generic_only && !self.tc
    }

    /// Per fence `i` of `fences` (at most 64), bit `j`: fence `i` reaches fence `j` through base
    /// causality, one `rf`, `co` or `fr` edge, and base causality again. `sound`: only the edges
    /// of [`Scratch::forced_fence_order`]'s rule (one virtual address, `fr` through coherence
    /// order proper, morally strong fences); otherwise any such edge (for a guess).
    fn fence_reach(&self, fences: &[usize], sound: bool) -> Vec<u64> {
        let (n, k, w) = (self.n, fences.len().min(64), self.w);
        // Per fence, the nodes base-causality-before it: one pass over the rows.
        let mut fence_of = vec![usize::MAX; n];
        let mut fence_nodes = vec![0u64; w];
        for (j, &f) in fences[..k].iter().enumerate() {
            fence_of[f] = j;
            fence_nodes[f / 64] |= 1 << (f % 64);
        }
        let mut preds = vec![0u64; k * w];
        for x in 0..n {
            let row = self.base.row(x);
            for q in 0..w {
                for f in bits(&[row[q] & fence_nodes[q]]) {
                    preds[fence_of[q * 64 + f] * w + x / 64] |= 1 << (x % 64);
                }
            }
        }
        // Per memory operation, the accesses one `rf`, `co` or `fr` edge leads to.
        let mut eco = vec![0u64; n * w];
        for x in bits(self.mask(MEM)) {
            let Some(l) = self.labels[x] else { continue };
            let same = self.mask(self.vloc_masks + l.vloc as usize);
            let (rf, co, src) = (self.rf.row(x), self.co.row(x), self.rf_src[x]);
            for q in 0..w {
                let fr = match src {
                    NONE => 0,
                    src => {
                        let src = src as usize;
                        let proper = if !sound || has(self.mask(INIT), src) { !0 } else { self.ms.row(src)[q] };
                        self.co.row(src)[q] & proper
                    }
                };
                eco[x * w + q] = (rf[q] | co[q] | fr) & if sound { same[q] } else { !0 };
            }
        }
        let mut reach = vec![0u64; k];
        let mut out = vec![0u64; w];
        for (i, &f) in fences[..k].iter().enumerate() {
            out.iter_mut().for_each(|e| *e = 0);
            for x in bits(self.base.row(f)) {
                out.iter_mut().zip(&eco[x * w..(x + 1) * w]).for_each(|(o, e)| *o |= e);
            }
            for (j, &g) in fences[..k].iter().enumerate() {
                let reaches = out.iter().zip(&preds[j * w..(j + 1) * w]).any(|(e, p)| e & p != 0);
                if j != i && reaches && (!sound || self.ms.contains(f, g)) {
                    reach[i] |= 1 << j;
                }
            }
        }
        reach
    }
}
