//! The CUDA Tile IR memory model (Tile IR specification, chapter "Memory Model": §7 in the edition
//! in `../shared/spec/004_*.txt`, §8 in the 13.4 edition; section numbers below are the seed
//! text's §7.x). The model is "derived from the PTX memory model" (§7 intro) and meant to be "a
//! strict weakening" of it (§7.11); where the seed text names a relation without defining it (the
//! happens-before and coherence axioms), the rule follows the PTX model (`model/ptx.rs`) with
//! program order replaced by token order, and says so.
//!
//! Not modelled: PTX threads in a Tile IR program (PTX interoperability, §7.11: compilation
//! rejects them); fences (Tile IR has none in the litmus language); control flow and data values
//! other than integers; tile-wise atomicity (there is none: §7.1, every element is its own
//! operation); No-Thin-Air beyond `rf ∪ dep` acyclicity (§7.9 leaves it informal).
//!
//! Relations, rule by rule:
//! - *Memory model operations* (§7.1): one read or write per element (one read/write pair per
//!   element for an atomic RMW, related by read-modify-write order, §7.6), unordered among
//!   themselves — see `crate::program::tile_program`.
//! - *Token order* (§7.5, §7.6 "Waits-for order"): `to`, from each event's static waits-for set,
//!   transitive. Program order and data/address dependencies order nothing (§7.5, §7.12.3).
//! - *Morally strong* (§7.4): two distinct accesses to the same location (element) that are related
//!   in "restricted program order" — read as token order — or that both carry a scope (weak
//!   accesses carry none, §7.2) including the tile block executing the other.
//! - *Observation* (after PTX §8.9.2): a write is observed by a morally strong read that reads from
//!   it, directly or through a chain of atomic RMWs (each step morally strong).
//! - *Synchronization* (§7.3): a release write (`release`, or the write of an `acq_rel` RMW)
//!   observed by an acquire read (`acquire`, or the read of an `acq_rel` RMW), the two morally
//!   strong, establishes happens-before.
//! - *Happens-before*: `(to ∪ rmw ∪ sw)+` — token order, the read of an RMW before its write (§7.6
//!   "Read-modify-write order"), and synchronization. *Causality* (as PTX §8.9.5): `hb ∪ obs ; hb`.
//!
//! Axioms:
//! 1. Coherence (§7.6 "Coherence order"): writes to one element related by causality are related
//!    the same way in coherence order (coherence order is total per element here, herd's
//!    convention, as in the PTX model).
//! 2. Atomicity (§7.6 "Atomicity"): no morally strong write sits in coherence order between the
//!    write an RMW element reads from and that element's write.
//! 3. Causality (as PTX §8.10.6): `(rf ∪ fr) ; causality` is irreflexive — a read does not read
//!    from a write that happens after it, nor a value overwritten by a write that happens before
//!    it (this is what makes a token-ordered load see the store it waits for, §7.12.2).
//! 4. Coherence per location (as PTX §8.10.5): token order between same-element accesses with the
//!    morally strong `rf`, `co` and `fr` edges is acyclic.
//! 5. No-Thin-Air (§7.9, informal): `rf ∪ dep` acyclic, with the interpreter's data dependencies
//!    (as PTX §8.10.4). Dependencies give values, never order (§7.5).
//!
//! Data races (§7.10, §7.12.2): two conflicting accesses (same element, at least one a write)
//! that are neither morally strong nor related by happens-before, either way — including two
//! elements of one store that overlap, and two accesses of one tile block that are not
//! token-ordered. Programs with data races have undefined behaviour.

use crate::exec::bitset::Relation;
use crate::exec::event::EventId;
use crate::exec::graph::{ExecutionGraph, NodeIndex};
use crate::model::{MemoryModel, ModelKind};
use crate::program::label::Label;
use crate::program::{CompiledProgram, ThreadPlace};
use tcfuzz_litmus::Scope;

#[derive(Clone, Debug)]
pub struct TileIr {
    places: Vec<ThreadPlace>,
    /// Per thread, per event index: the waits-for set (see `crate::program::tile_program::TileInfo`).
    /// Threads without one (never for compiled Tile IR programs) are ordered by program order.
    waits_for: Vec<Vec<u64>>,
}

impl TileIr {
    pub fn new(program: &CompiledProgram) -> Self {
        let waits_for = program.tile.as_ref().map(|t| t.waits_for.clone()).unwrap_or_default();
        TileIr { places: program.places.clone(), waits_for }
    }

    /// Whether event `i` of thread `t` waits for its event `j` (token order, §7.6).
    fn waits(&self, t: usize, j: usize, i: usize) -> bool {
        match self.waits_for.get(t).and_then(|w| w.get(i)) {
            Some(m) => j < 64 && m & (1 << j) != 0,
            None => j < i,
        }
    }
}

struct Eval {
    idx: NodeIndex,
    labels: Vec<Option<Label>>,
    /// `(location, node)` of every access, sorted.
    accesses: Vec<(u32, usize)>,
    ms: Relation,
    hb: Relation,
}

impl TileIr {
    fn evaluate(&self, g: &ExecutionGraph) -> Option<Eval> {
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
                if self.waits(e.thread as usize, j as usize, e.index as usize) {
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
                    let (pa, pb) = (&self.places[ta], &self.places[tb]);
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
        Some(Eval { idx, labels, accesses, ms, hb })
    }
}

/// `(location, node)` of every access among `labels` (initial writes, `None`, are not accesses of
/// a thread), sorted by location and then node.
fn accesses_by_location(labels: &[Option<Label>]) -> Vec<(u32, usize)> {
    let mut out: Vec<(u32, usize)> =
        labels.iter().enumerate().filter_map(|(x, l)| l.filter(|l| l.is_access()).map(|l| (l.loc, x))).collect();
    out.sort_unstable();
    out
}

impl MemoryModel for TileIr {
    fn kind(&self) -> ModelKind {
        ModelKind::TileIr
    }

    fn is_consistent(&self, g: &ExecutionGraph) -> bool {
        self.evaluate(g).is_some()
    }

    /// §7.10 data races.
    fn races(&self, g: &ExecutionGraph) -> Vec<(EventId, EventId)> {
        let Some(ev) = self.evaluate(g) else { return Vec::new() };
        let mut out = Vec::new();
        for group in ev.accesses.chunk_by(|x, y| x.0 == y.0) {
            for (i, &(_, x)) in group.iter().enumerate() {
                for &(_, y) in &group[i + 1..] {
                    let (Some(lx), Some(ly)) = (ev.labels[x], ev.labels[y]) else { continue };
                    let conflict = lx.is_write() || ly.is_write();
                    if conflict && !ev.ms.contains(x, y) && !ev.hb.contains(x, y) && !ev.hb.contains(y, x) {
                        out.push((x, y));
                    }
                }
            }
        }
        // In node order, as a scan of all pairs would give them.
        out.sort_unstable();
        out.into_iter().map(|(x, y)| (ev.idx.id(x), ev.idx.id(y))).collect()
    }

    /// §7.12.1: load buffering (and a load reading from a later store of its own tile block).
    fn allows_porf_cycles(&self) -> bool {
        true
    }
}
