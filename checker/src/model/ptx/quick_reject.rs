//! A cheap test that a graph is inconsistent under PTX, read straight off the graph before the
//! full check builds anything: a cycle of SC per location (§8.10.5, `po-loc` with the morally
//! strong `rf`, `co` and `fr`) at a location whose accesses are all morally strong with each
//! other (§8.7): plain generic strong accesses of one virtual address, each one's scope
//! including every other thread that accesses the location. There the morally strong
//! communication edges are all of them, so the axiom's relation is `po-loc ∪ rf ∪ co ∪ fr`.
//! After the quick acceptance ([`super::quick_accept`]), most of the graphs the explorer asks
//! about that the full check rejects fail here (a read of a write older than one its thread
//! has already seen, a write placed before one its thread has read). The same per-location test
//! tells [`MemoryModel::races`](crate::model::MemoryModel::races) that a graph whose accesses
//! all pass it has no data race.

use crate::event::{EventId, Label, LocId};
use crate::graph::ExecutionGraph;

use super::{Ptx, SCOPES, scope_index};

/// Locations with more accesses than this are left to the full check (one bit per access).
const MAX_ACCESSES: usize = 63;

impl Ptx {
    /// Whether some location of `g` has a cycle of SC per location with every pair of its
    /// accesses morally strong (module docs). Only `true` is an answer: `false` leaves `g` to
    /// the full check.
    pub(super) fn quick_reject(&self, g: &ExecutionGraph) -> bool {
        (0..g.init.len()).any(|l| self.coherence_cycle(g, l as LocId))
    }

    /// Whether every conflicting pair of accesses of `g` is morally strong (module docs, for each
    /// location): then `g` has no data race (§8.10), whatever causality order says.
    pub(super) fn no_weak_conflict(&self, g: &ExecutionGraph) -> bool {
        let mut accesses = Vec::new();
        (0..g.init.len()).all(|l| self.all_morally_strong(g, l as LocId, &mut accesses))
    }

    /// Whether the accesses of `loc` in `g` are all morally strong with each other (module
    /// docs), `accesses` then holding them thread by thread in program order (at most
    /// [`MAX_ACCESSES`] of them; more count as not).
    fn all_morally_strong(&self, g: &ExecutionGraph, loc: LocId, accesses: &mut Vec<EventId>) -> bool {
        accesses.clear();
        let mut classes: Vec<(usize, usize)> = Vec::new();
        for (t, evs) in g.threads.iter().enumerate() {
            for (i, e) in evs.iter().enumerate().filter(|(_, e)| e.label.is_access() && e.label.loc == loc) {
                if !always_morally_strong(&e.label) || accesses.len() == MAX_ACCESSES {
                    return false;
                }
                accesses.push(EventId::new(t, i));
                let class = (t, scope_index(e.label.scope));
                if !classes.contains(&class) {
                    classes.push(class);
                }
            }
        }
        // §8.5/§8.7: two strong operations of different threads are morally strong when each
        // one's scope includes the other's thread.
        classes.iter().enumerate().all(|(a, &(ta, sa))| {
            classes[a + 1..].iter().all(|&(tb, sb)| {
                let c = ta * SCOPES.len() + sa;
                let d = tb * SCOPES.len() + sb;
                ta == tb || self.compat[c * self.class_words + d / 64] & (1 << (d % 64)) != 0
            })
        })
    }

    fn coherence_cycle(&self, g: &ExecutionGraph, loc: LocId) -> bool {
        // The accesses of `loc`, thread by thread in program order; access `k` is node `k + 1`
        // (node 0: the initial write).
        let mut accesses: Vec<EventId> = Vec::new();
        if !self.all_morally_strong(g, loc, &mut accesses) || accesses.len() < 2 {
            return false;
        }
        let node = |e: EventId| if e.is_init() { Some(0) } else { accesses.iter().position(|&x| x == e).map(|k| k + 1) };
        // `preds[x]`: the nodes with an edge into `x`.
        let mut preds = vec![0u64; accesses.len() + 1];
        let co = &g.co[loc as usize];
        let co_nodes: Vec<usize> = co.iter().filter_map(|&w| node(w)).collect();
        if co_nodes.len() != co.len() {
            return false;
        }
        for (p, &w) in co_nodes.iter().enumerate() {
            preds[w] |= 1 << if p == 0 { 0 } else { co_nodes[p - 1] };
        }
        let mut last_in_thread: Option<(u32, usize)> = None;
        for (k, &e) in accesses.iter().enumerate() {
            let me = k + 1;
            if let Some((t, prev)) = last_in_thread {
                if t == e.thread {
                    preds[me] |= 1 << prev;
                }
            }
            last_in_thread = Some((e.thread, me));
            let Some(src) = g.event(e).rf else { continue };
            let Some(s) = node(src) else { return false };
            preds[me] |= 1 << s;
            // `fr` to the write after the source in `co` (the initial write is before every
            // other): the later ones follow through `co`.
            let next = if s == 0 { co_nodes.first() } else { co_nodes.iter().position(|&w| w == s).and_then(|p| co_nodes.get(p + 1)) };
            if let Some(&next) = next {
                preds[next] |= 1 << me;
            }
        }
        // Kahn's algorithm on bit sets: peel the nodes with no predecessor left.
        let mut left: u64 = if accesses.len() + 1 == 64 { !0 } else { (1 << (accesses.len() + 1)) - 1 };
        while left != 0 {
            let mut ready = 0;
            let mut rest = left;
            while rest != 0 {
                let x = rest.trailing_zeros() as usize;
                rest &= rest - 1;
                if preds[x] & left == 0 {
                    ready |= 1 << x;
                }
            }
            if ready == 0 {
                return true;
            }
            left &= !ready;
        }
        false
    }
}

/// Whether an access is morally strong with every other access of its location whose thread
/// its scope includes (§8.7): strong, generic, to the location itself (no alias), and not
/// asynchronous.
fn always_morally_strong(l: &Label) -> bool {
    l.strong && l.proxy == crate::event::Proxy::Generic && l.vloc == l.loc && l.tc.is_none() && l.bulk_copy == 0
}

#[cfg(test)]
mod tests {
    use crate::model::MemoryModel;
    use crate::model::ptx::Ptx;
    use crate::model::ptx::quick_accept::tests::{compile, graph};

    /// CoRR, the reader seeing `x = 1` then `x = 0`: a cycle `rf ; po-loc ; fr`. With relaxed
    /// loads every pair is morally strong and SC per location (§8.10.5) forbids it: refused here.
    /// With weak loads the pairs are not morally strong, PTX allows it
    /// (`examples/ptx/CoRR+weak-loads.litmus`), and the test leaves it alone. The reader seeing
    /// `0` then `1` is consistent either way.
    #[test]
    fn a_coherence_cycle_of_morally_strong_accesses_is_refused() {
        for (file, strong) in [
            (include_str!("../../../../examples/ptx/CoRR+relaxed-gpu.litmus"), true),
            (include_str!("../../../../examples/ptx/CoRR+weak-loads.litmus"), false),
        ] {
            let prog = compile(file);
            let ptx = Ptx::new(&prog);
            let backwards = graph(&prog, &[Some((0, 0)), None]);
            assert_eq!(ptx.quick_reject(&backwards), strong);
            assert_eq!(ptx.is_consistent(&backwards), !strong);
            let forwards = graph(&prog, &[None, Some((0, 0))]);
            assert!(!ptx.quick_reject(&forwards));
            assert!(ptx.is_consistent(&forwards));
        }
    }

    /// Readers in other GPUs with `.gpu` scope are not morally strong with the writer (§8.5):
    /// the location is left to the full check, which allows the cycle.
    #[test]
    fn accesses_out_of_each_others_scope_are_left_to_the_full_check() {
        let text = include_str!("../../../../examples/ptx/CoRR+relaxed-gpu.litmus").replace("P1@cta 1,gpu 0", "P1@cta 1,gpu 1");
        let prog = compile(&text);
        let ptx = Ptx::new(&prog);
        let backwards = graph(&prog, &[Some((0, 0)), None]);
        assert!(!ptx.quick_reject(&backwards));
        assert!(ptx.is_consistent(&backwards));
    }
}
