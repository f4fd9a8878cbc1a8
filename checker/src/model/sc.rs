//! Sequential consistency.
//!
//! Rules (Shasha–Snir / herd7 `sc.cat`; GenMC's SC checker):
//! 1. `po ∪ rf ∪ co ∪ fr ∪ bar` is acyclic (fences add nothing; `bar` orders every thread's
//!    arrival at a barrier instance before what follows any other thread's arrival at it);
//! 2. atomicity of read-modify-writes: no write sits in `co` between the write an rmw read reads
//!    from and the rmw's own write (`rmw ∩ (fr ; co) = ∅`).
//!
//! Under SC `po ∪ rf` is acyclic, so the explorer is complete for it. SC has no notion of data race
//! here: [`MemoryModel::races`] returns none.

use crate::bitset::Relation;
use crate::event::EventId;
use crate::graph::ExecutionGraph;
use crate::model::{MemoryModel, ModelKind};

#[derive(Clone, Copy, Debug, Default)]
pub struct Sc;

impl MemoryModel for Sc {
    fn kind(&self) -> ModelKind {
        ModelKind::Sc
    }

    fn is_consistent(&self, g: &ExecutionGraph) -> bool {
        atomicity_holds(g) && sc_acyclic(g)
    }

    fn allows_porf_cycles(&self) -> bool {
        false
    }

    /// Right after the write the rmw reads from: rule 2 allows no other position.
    fn rmw_co_position(&self, g: &ExecutionGraph, w: EventId) -> Option<usize> {
        let (src, _) = rmw_source(g, w)?;
        g.co_position(src)
    }

    /// Rule 2: only right after the write its read reads from.
    fn rmw_may_follow(&self, g: &ExecutionGraph, w: EventId, s: EventId) -> bool {
        rmw_source(g, w).is_none_or(|(src, _)| src == s)
    }

    /// Rule 1 has no cycle through a sink; rule 2 for a sink rmw write `a`: the write its read
    /// reads from is the one before it in `co`. A read first in its thread has only its `rf`
    /// edge coming in, from a write `co`-before every write its `fr` edges reach: a cycle
    /// through it would be one without it.
    fn sink_extension(&self, g: &ExecutionGraph, a: EventId) -> Option<bool> {
        let atomic_rmw = || match rmw_source(g, a) {
            Some((src, _)) => g.co_position(src).map(|p| p + 1) == g.co_position(a),
            None => true,
        };
        crate::model::plain_sink(g, a, atomic_rmw, |_| a.index == 0)
    }
}

/// For the write half `w` of an rmw: the write its read half reads from, and that read.
pub(crate) fn rmw_source(g: &ExecutionGraph, w: EventId) -> Option<(EventId, EventId)> {
    if w.index == 0 || !g.label(w).rmw_write {
        return None;
    }
    let r = EventId { thread: w.thread, index: w.index - 1 };
    let src = g.event(r).rf.filter(|_| g.label(r).loc == g.label(w).loc)?;
    Some((src, r))
}

/// Rule 2: each rmw write immediately follows, in `co`, the write its read half reads from.
pub fn atomicity_holds(g: &ExecutionGraph) -> bool {
    for (t, evs) in g.threads.iter().enumerate() {
        for (i, e) in evs.iter().enumerate() {
            if !e.label.rmw_write {
                continue;
            }
            let read = &evs[i - 1];
            let Some(src) = read.rf else { continue };
            let (Some(ps), Some(pw)) = (g.co_position(src), g.co_position(EventId::new(t, i))) else {
                continue;
            };
            if pw != ps + 1 {
                return false;
            }
        }
    }
    true
}

/// Rule 1, with immediate edges only (po-successor, co-successor, fr to the co-successor of the
/// write read from), which have the same cycles as the full relations.
fn sc_acyclic(g: &ExecutionGraph) -> bool {
    let idx = g.node_index();
    let mut r = Relation::empty(idx.len());
    for (t, evs) in g.threads.iter().enumerate() {
        for i in 0..evs.len() {
            let me = idx.node(EventId::new(t, i));
            if i + 1 < evs.len() {
                r.add(me, idx.node(EventId::new(t, i + 1)));
            }
            if evs[i].label.is_barrier() {
                for p in g.barrier_partners(EventId::new(t, i)) {
                    if (p.index as usize) + 1 < g.threads[p.thread as usize].len() {
                        r.add(me, idx.node(EventId { thread: p.thread, index: p.index + 1 }));
                    }
                }
            }
            if let Some(w) = evs[i].rf {
                r.add(idx.node(w), me);
                let loc = g.loc_of(w);
                let mut ws = g.writes_to(loc).skip_while(|&x| x != w);
                ws.next();
                if let Some(next) = ws.next() {
                    r.add(me, idx.node(next));
                }
            }
        }
    }
    for l in 0..g.init.len() {
        let ws: Vec<EventId> = g.writes_to(l as u32).collect();
        for pair in ws.windows(2) {
            r.add(idx.node(pair[0]), idx.node(pair[1]));
        }
    }
    r.is_acyclic()
}
