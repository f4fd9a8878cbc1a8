//! The Tile IR model as first written: every relation of the module docs of [`super`] built one
//! by one, close to the text of the specification. Debug builds only: it is what the leaner
//! [`super::TileIr::evaluate`] is checked against on every graph it judges (same verdict, same
//! moral strength and happens-before, hence the same races).

use super::{TileIr, accesses_by_location};
use crate::exec::bitset::Relation;
use crate::exec::event::EventId;
use crate::exec::graph::ExecutionGraph;
use crate::program::label::Label;
use tcfuzz_litmus::Scope;

/// Moral strength and happens-before of `g` when it is consistent.
pub(super) fn evaluate(this: &TileIr, g: &ExecutionGraph) -> Option<(Relation, Relation)> {
    let idx = g.node_index();
    let n = idx.len();
    let labels: Vec<Option<Label>> = (0..n).map(|x| (!idx.id(x).is_init()).then(|| *g.label(idx.id(x)))).collect();
    let loc = |x: usize| -> Option<u32> {
        match labels[x] {
            None => Some(idx.id(x).index),
            Some(l) if l.is_access() => Some(l.loc),
            Some(_) => None,
        }
    };
    // §7.5 / §7.6 token order.
    let mut to = Relation::empty(n);
    for e in g.event_ids() {
        for j in 0..e.index {
            if this.waits(e.thread as usize, j as usize, e.index as usize) {
                to.add(idx.node(EventId { thread: e.thread, index: j }), idx.node(e));
            }
        }
    }
    let rf = g.rf(&idx);
    let co = g.co(&idx);
    let fr = g.fr(&idx);
    let rmw = g.rmw(&idx);
    // §7.4 moral strength, between accesses of one location (element): the accesses sorted
    // by location, so only pairs within a location are looked at.
    let accesses = accesses_by_location(&labels);
    // Token order relates events of one tile block only; scopes relate strong accesses only.
    let mut ms = Relation::empty(n);
    let mut strong: Vec<(usize, usize, Scope)> = Vec::new();
    for group in accesses.chunk_by(|x, y| x.0 == y.0) {
        strong.clear();
        for &(_, a) in group {
            let ta = idx.id(a).thread as usize;
            for &(_, b) in group {
                if a != b && idx.id(b).thread as usize == ta && (to.contains(a, b) || to.contains(b, a)) {
                    ms.add(a, b);
                }
            }
            if let Some(l) = labels[a].filter(|l| l.strong) {
                strong.push((a, ta, l.scope));
            }
        }
        for &(a, ta, sa) in &strong {
            for &(b, tb, sb) in &strong {
                let (pa, pb) = (&this.places[ta], &this.places[tb]);
                if a != b && pa.scope_includes(sa, pb) && pb.scope_includes(sb, pa) {
                    ms.add(a, b);
                }
            }
        }
    }
    // §7.6 Atomicity.
    if !fr.intersect(&ms).compose(&co.intersect(&ms)).intersect(&rmw).is_empty() {
        return None;
    }
    // §7.9 No-Thin-Air: acyclic(rf ∪ dep).
    let mut rf_dep = rf.clone();
    for e in g.event_ids() {
        let deps = g.event(e).deps;
        for j in 0..e.index.min(64) {
            if deps & (1 << j) != 0 {
                rf_dep.add(idx.node(EventId { thread: e.thread, index: j }), idx.node(e));
            }
        }
    }
    if !rf_dep.is_acyclic() {
        return None;
    }
    // Coherence per location: acyclic(to-loc ∪ (ms ∩ (rf ∪ co ∪ fr))).
    let to_loc = to.filter(|x, y| loc(x).is_some() && loc(x) == loc(y));
    let com = rf.union(&co).union(&fr).intersect(&ms);
    if !to_loc.union(&com).is_acyclic() {
        return None;
    }
    // Observation and §7.3 synchronization.
    let rf_ms = rf.intersect(&ms);
    let obs = rf_ms.union(&rf_ms.compose(&rmw.compose(&rf_ms).closure()));
    let sw = obs.filter(|x, y| {
        let rel = labels[x].is_some_and(|l| l.is_write() && l.release);
        let acq = labels[y].is_some_and(|l| l.is_read() && l.acquire);
        rel && acq && ms.contains(x, y)
    });
    let hb = to.union(&rmw).union(&sw).closure();
    let cause = hb.union(&obs.compose(&hb));
    // §7.6 Coherence.
    let is_write = |x: usize| labels[x].is_none_or(|l| l.is_write());
    for (x, y) in cause.pairs() {
        if is_write(x) && is_write(y) && loc(x) == loc(y) && !co.contains(x, y) {
            return None;
        }
    }
    // Causality: irreflexive((rf ∪ fr) ; cause).
    for (x, y) in rf.union(&fr).pairs() {
        if cause.contains(y, x) {
            return None;
        }
    }
    Some((ms, hb))
}
