//! [`MemoryModel::co_floor`](crate::model::MemoryModel::co_floor) beyond a thread's own writes:
//! the writes that precede an access in causality order under every Fence-SC order.

use crate::event::{EventId, Label};
use crate::graph::ExecutionGraph;

use super::Ptx;
use super::relations::Scratch;

impl Ptx {
    /// For a generic access `e` appended to its thread in `g` (not yet in `g`, or its last event
    /// and not in `co`), a floor for its source or place (an index of `g.writes_to`) above
    /// `floor`, the one its thread's own writes give: the `co`-latest write `w'` of its location
    /// that precedes `e` in causality order whatever the Fence-SC order (base causality into
    /// the event before `e` in its thread, [`super::relations::Scratch::base_under_every_order`]).
    /// - A write `e` placed before `w'` breaks Coherence (§8.10.1: causality order between
    ///   two writes of a location is coherence order).
    /// - A read `e` of a write `u` before `w'` has `e →fr w'` through coherence order proper when
    ///   `u` is the initial write or morally strong with `w'` (§8.9.6); with `w'` causally before
    ///   `e`, that breaks Causality (§8.10.6). Where some write before `w'` is not morally strong
    ///   with it, `w'` gives no floor.
    ///
    /// Only where it may pay: more than one choice above `floor`, something before `e` in its
    /// thread that synchronizes into it (otherwise base causality into `e` is program order,
    /// which `floor` covers), no holes, every event generic and no tcgen05 event. Each such graph
    /// is loaded once per event (not once per choice): most reads after a `fence.sc` have a
    /// dozen sources, nearly all ruled out here.
    pub(super) fn causal_floor(&self, g: &ExecutionGraph, e: EventId, l: &Label, floor: usize) -> usize {
        let (t, i) = (e.thread as usize, e.index as usize);
        let evs = &g.threads[t];
        let appended = i == evs.len() || (i + 1 == evs.len() && l.is_write() && g.co_position(e).is_none());
        let loc = l.loc as usize;
        let choices = g.co[loc].len() + 1 - floor.min(g.co[loc].len());
        let synchronizes = |x: &Label| (x.is_fence() && (x.sc || x.acquire)) || (x.is_read() && x.acquire) || x.is_barrier();
        if i == 0 || !appended || choices < 2 || !evs[..i].iter().any(|x| synchronizes(&x.label)) || g.has_holes() {
            return floor;
        }
        let mut s = self.scratch();
        // The scratch space no longer holds the last graph judged.
        s.consistent = false;
        s.load_facts(g);
        let loaded = match s.w {
            1 => base_loaded::<1>(&mut s, g, &self.compat),
            2 => base_loaded::<2>(&mut s, g, &self.compat),
            _ => base_loaded::<0>(&mut s, g, &self.compat),
        };
        if !loaded {
            return floor;
        }
        let p = EventId::new(t, i - 1);
        let writes: Vec<EventId> = g.writes_to(l.loc).collect();
        for k in (floor + 1..writes.len()).rev() {
            let w = writes[k];
            if w == e || !s.causes_after(w, p, l.vloc) {
                continue;
            }
            let lw = g.label(w);
            if l.is_read() && !writes[1..k].iter().all(|&u| self.morally_strong(g, (u, g.label(u)), (w, lw))) {
                continue;
            }
            return k;
        }
        floor
    }
}

impl Ptx {
    /// For debug builds' checks: whether every choice [`Ptx::causal_floor`] ruled out for `e` (indices
    /// `own..floor` of `g.writes_to`) makes an inconsistent graph. (`e` with no dependencies: a
    /// graph inconsistent without them is inconsistent with them.)
    pub(super) fn below_floor_inconsistent(&self, g: &ExecutionGraph, e: EventId, l: &Label, own: usize, floor: usize) -> bool {
        use crate::model::MemoryModel;
        let writes: Vec<EventId> = g.writes_to(l.loc).collect();
        (own..floor).all(|k| {
            let mut g2 = g.clone();
            if l.is_read() {
                let ev = crate::interp::NewEvent { label: *l, value: 0, deps: 0, cas_expected: None, span: Default::default() };
                g2.put_event(e, &ev, Some(writes[k]));
            } else {
                g2.insert_co(e, k);
            }
            let ok = !self.is_consistent(&g2);
            // (The check overwrote the scratch space.)
            self.scratch().consistent = false;
            ok
        })
    }
}

/// Loads `g`'s relations into `s` up to base causality under every Fence-SC order
/// ([`Scratch::base_under_every_order`]); `false` where the graph has a non-generic or tcgen05
/// event (the forced pairs are sound only without them) or no order works.
fn base_loaded<const W: usize>(s: &mut Scratch, g: &ExecutionGraph, compat: &[u64]) -> bool {
    s.build::<W>(g);
    if !s.forced_applies() {
        return false;
    }
    s.build_ms::<W>(compat);
    s.add_sync::<W>();
    s.base_under_every_order()
}
