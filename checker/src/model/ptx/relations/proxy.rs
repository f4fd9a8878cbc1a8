//! §8.9.5 proxy-preserved base causality order where proxies other than the generic one, or
//! alias fences, appear: [`Scratch::proxy_preserved`]'s general case, row by row.

use super::{ALIAS_FENCE, FENCE, FIXED_MASKS, INIT, MEM, NONE, Scratch};
use crate::exec::bitset::row::{bits, or_into, union_of_rows, width};
use crate::model::ptx::proxy_index;
use crate::program::ThreadPlace;
use crate::program::label::Proxy;

/// Row buffers of [`Scratch::proxy_preserved_mixed`], in the order of its locals.
const ROWS: usize = 4;

impl Scratch {
    /// Proxy-preserved base causality into `ppcb`, following the disjuncts of Dat3M's
    /// `ptx-v7.5.cat` / mixedproxy (`cb` is base causality, `pfo` relates a proxy fence and a
    /// memory operation of its proxy in its CTA, `A = cb ∩ pfo⁻¹` goes from an operation to
    /// such a fence after it, `B = cb ∩ pfo` from the fence to one after it):
    /// 1. `cb` between generic memory operations of one virtual address;
    /// 2. `cb` between memory operations of one proxy, one CTA and one virtual address;
    /// 3. `A ; cb` to a generic operation, 4. `cb ; B` from a generic one, 5. `A ; cb ; B`, all
    ///    on one virtual address;
    /// 6. through an alias fence (`via = cb ; alias fence ; cb`): `via` between generic
    ///    operations, 7. `A ; via` to a generic one, 8. `via ; B` from a generic one,
    ///    9. `A ; via ; B`, all on one physical location.
    ///
    /// Each row is a memory operation `x`'s, the compositions unions of rows. `cb` is transitive,
    /// so disjuncts whose pairs another one has already are left out: from a generic `x`, 2, 3,
    /// 5, 7 and 9 are in 1, 1, 4, 6 and 8 (`A` is part of `cb`, so `A ; cb` is too); and `B`
    /// from a generic fence `f` only adds generic operations after `f` in `cb`, which the
    /// disjunct without `B` (1, 3, 6, 7) has already, so only fences of other proxies are
    /// followed.
    pub(super) fn proxy_preserved_mixed<const W: usize>(&mut self, places: &[ThreadPlace]) {
        let (n, w) = (self.n, width::<W>(self.w));
        let nthreads = self.offsets.len() - 1;
        // Per thread, the nodes of the threads in its CTA.
        self.cta_masks.clear();
        self.cta_masks.resize(nthreads * w, 0);
        for t in 0..nthreads {
            for u in 0..nthreads {
                let (pt, pu) = (&places[t], &places[u]);
                if pt.gpu == pu.gpu && pt.cta == pu.cta {
                    let nodes = &self.masks[(self.thread_masks + u) * w..(self.thread_masks + u + 1) * w];
                    or_into(&mut self.cta_masks[t * w..(t + 1) * w], nodes);
                }
            }
        }
        let mut m = std::mem::take(&mut self.mixed);
        m.clear();
        m.resize(2 * w, 0);
        // `m[..w]`: generic memory operations (initial writes included); `m[w..]`: fences of
        // proxies other than the generic one.
        let generic_slot = FIXED_MASKS + proxy_index(Proxy::Generic);
        for k in 0..w {
            let generic = self.masks[INIT * w + k] | self.masks[generic_slot * w + k];
            m[k] = self.masks[MEM * w + k] & generic;
            m[w + k] = self.masks[FENCE * w + k] & !self.masks[generic_slot * w + k];
        }
        let (generic_mem, fences) = m.split_at(w);
        // `B`, by fence.
        self.fence_to_op.reset(n);
        for f in bits(fences) {
            let (proxy, cta) = (self.proxy_slot(f) * w, self.thread[f] as usize * w);
            let (row, cb) = (self.fence_to_op.row_mut(f), self.base.row(f));
            for k in 0..w {
                row[k] = cb[k] & self.masks[MEM * w + k] & self.masks[proxy + k] & self.cta_masks[cta + k];
            }
        }
        let alias = (0..w).any(|k| self.masks[ALIAS_FENCE * w + k] != 0);
        let mut rows = std::mem::take(&mut self.rows);
        rows.clear();
        rows.resize(ROWS * w, 0);
        let (out, rest) = rows.split_at_mut(w);
        let (from, rest) = rest.split_at_mut(w);
        let (tmp, via) = rest.split_at_mut(w);
        self.ppcb.reset(n);
        for x in 0..n {
            let Some((vloc, loc)) = self.addresses(x) else { continue };
            let generic = self.thread[x] == NONE || self.labels[x].is_some_and(|l| l.proxy == Proxy::Generic);
            let (cb, same_vloc, same_loc) = (self.base.row(x), self.mask(self.vloc_masks + vloc), self.mask(self.loc_masks + loc));
            if generic {
                // 1, then 4 from `from = cb`.
                for k in 0..w {
                    out[k] = cb[k] & generic_mem[k] & same_vloc[k];
                }
                from.copy_from_slice(&cb[..w]);
            } else {
                // 2, then 3 and 5 from `from = A ; cb`.
                let (proxy, cta) = (self.mask(self.proxy_slot(x)), &self.cta_masks[self.thread[x] as usize * w..][..w]);
                for k in 0..w {
                    out[k] = cb[k] & self.masks[MEM * w + k] & proxy[k] & cta[k] & same_vloc[k];
                    tmp[k] = cb[k] & fences[k] & proxy[k] & cta[k];
                }
                union_of_rows::<W>(from, tmp, &self.base);
                for k in 0..w {
                    out[k] |= from[k] & generic_mem[k] & same_vloc[k];
                }
            }
            for k in 0..w {
                tmp[k] = from[k] & fences[k];
            }
            self.or_through_fences::<W>(out, tmp, same_vloc);
            if alias {
                // 6 and 8 (generic `x`), or 7 and 9: `via` from `from` through alias fences.
                for k in 0..w {
                    tmp[k] = from[k] & self.masks[ALIAS_FENCE * w + k];
                }
                union_of_rows::<W>(via, tmp, &self.base);
                for k in 0..w {
                    out[k] |= via[k] & generic_mem[k] & same_loc[k];
                    tmp[k] = via[k] & fences[k];
                }
                self.or_through_fences::<W>(out, tmp, same_loc);
            }
            self.ppcb.row_mut(x)[..w].copy_from_slice(out);
        }
        self.rows = rows;
        self.mixed = m;
    }

    /// `out |= (⋃ B[f] over the fences f of set) ∩ same`.
    fn or_through_fences<const W: usize>(&self, out: &mut [u64], set: &[u64], same: &[u64]) {
        let w = width::<W>(self.w);
        for (wi, &word) in set[..w].iter().enumerate() {
            let mut word = word;
            while word != 0 {
                let f = wi * 64 + word.trailing_zeros() as usize;
                word &= word - 1;
                let r = self.fence_to_op.row(f);
                for k in 0..w {
                    out[k] |= r[k] & same[k];
                }
            }
        }
    }

    /// The virtual address and the location of a memory operation (an initial write's are its
    /// node), as indices of their masks; `None` for other events.
    fn addresses(&self, x: usize) -> Option<(usize, usize)> {
        match self.labels[x] {
            None => Some((x, x)),
            Some(l) if l.is_access() => Some((l.vloc as usize, l.loc as usize)),
            Some(_) => None,
        }
    }

    /// The slot in `masks` of the nodes of the proxy of `x`, an event of a thread.
    fn proxy_slot(&self, x: usize) -> usize {
        FIXED_MASKS + proxy_index(self.labels[x].map_or(Proxy::Generic, |l| l.proxy))
    }
}
