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

use std::sync::Mutex;

use crate::exec::bitset::{OrderScratch, Relation};
use crate::exec::event::EventId;
use crate::exec::graph::{ExecutionGraph, NodeIndex};
use crate::model::{MemoryModel, ModelKind};
use crate::program::label::Label;
use crate::program::{CompiledProgram, ThreadPlace};
use tcfuzz_litmus::Scope;

mod quick_accept;
#[cfg(debug_assertions)]
mod reference;

#[derive(Debug)]
pub struct TileIr {
    places: Vec<ThreadPlace>,
    /// Per thread, per event index: the waits-for set (see `crate::program::tile_program::TileInfo`).
    /// Threads without one (never for compiled Tile IR programs) are ordered by program order.
    waits_for: Vec<Vec<u64>>,
    /// Scratch space for the checks, reused from graph to graph.
    scratch: Mutex<Scratch>,
}

impl Clone for TileIr {
    fn clone(&self) -> Self {
        TileIr { places: self.places.clone(), waits_for: self.waits_for.clone(), scratch: Mutex::default() }
    }
}

impl TileIr {
    pub fn new(program: &CompiledProgram) -> Self {
        let waits_for = program.tile.as_ref().map(|t| t.waits_for.clone()).unwrap_or_default();
        TileIr { places: program.places.clone(), waits_for, scratch: Mutex::default() }
    }

    /// Whether event `i` of thread `t` waits for its event `j` (token order, §7.6).
    fn waits(&self, t: usize, j: usize, i: usize) -> bool {
        match self.waits_for.get(t).and_then(|w| w.get(i)) {
            Some(m) => j < 64 && m & (1 << j) != 0,
            None => j < i,
        }
    }

    /// §7.4 morally strong, for two events of `g`, exactly as [`TileIr::evaluate`] builds it:
    /// distinct accesses of one element (initial writes are not accesses of a thread), related
    /// by token order, or both strong with scopes that include each other's tile block.
    fn morally_strong(&self, g: &ExecutionGraph, x: EventId, y: EventId) -> bool {
        if x == y || x.is_init() || y.is_init() {
            return false;
        }
        let (lx, ly) = (g.label(x), g.label(y));
        if !lx.is_access() || !ly.is_access() || lx.loc != ly.loc {
            return false;
        }
        let (tx, ty) = (x.thread as usize, y.thread as usize);
        let (first, last) = (x.index.min(y.index) as usize, x.index.max(y.index) as usize);
        if tx == ty && self.waits(tx, first, last) {
            return true;
        }
        let (px, py) = (&self.places[tx], &self.places[ty]);
        lx.strong && ly.strong && px.scope_includes(lx.scope, py) && py.scope_includes(ly.scope, px)
    }

    /// §7.6 Atomicity for the write half `w` of an rmw element: whether a write morally strong
    /// with both halves sits in `co` between the write the read half reads from and `w`. `None`
    /// where `w` is not such a half in `co`.
    fn rmw_breaks_atomicity(&self, g: &ExecutionGraph, w: EventId) -> Option<bool> {
        let (src, r) = crate::model::sc::rmw_source(g, w)?;
        let ws = &g.co[g.label(w).loc as usize];
        let after = if src.is_init() { 0 } else { ws.iter().position(|&x| x == src)? + 1 };
        let end = ws.iter().position(|&x| x == w)?;
        Some(ws.get(after..end)?.iter().any(|&x| self.morally_strong(g, r, x) && self.morally_strong(g, x, w)))
    }

    /// Whether some rmw element breaks §7.6 Atomicity ([`TileIr::rmw_breaks_atomicity`]), as the
    /// full check ([`TileIr::evaluate`]) judges it.
    fn atomicity_broken(&self, g: &ExecutionGraph) -> bool {
        g.co.iter().flatten().any(|&w| self.rmw_breaks_atomicity(g, w) == Some(true))
    }
}

/// Scratch space for [`TileIr::evaluate`], reused from graph to graph (a Tile IR program has an
/// event per element: its graphs are large, and building their relations afresh each time was
/// most of the cost of checking one). After an evaluation it holds that graph's relations.
#[derive(Debug, Default)]
struct Scratch {
    idx: NodeIndex,
    labels: Vec<Option<Label>>,
    /// `(location, node)` of every access, sorted.
    accesses: Vec<(u32, usize)>,
    /// The strong accesses of one location: `(node, thread, scope)`.
    strong: Vec<(usize, usize, Scope)>,
    to: Relation,
    to_loc: Relation,
    ms: Relation,
    rf: Relation,
    rmw: Relation,
    co: Relation,
    fr: Relation,
    obs: Relation,
    hb: Relation,
    cause: Relation,
    /// For relations only asked whether they are acyclic, and intermediate results.
    tmp: Relation,
    order: OrderScratch,
}

impl TileIr {
    fn scratch(&self) -> std::sync::MutexGuard<'_, Scratch> {
        // A panic while the lock was held leaves scratch space that the next evaluation overwrites.
        self.scratch.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Builds the relations of `g` in `s` and, with `axioms`, answers whether every axiom holds.
    /// Without them only what [`MemoryModel::races`] needs is built (moral strength,
    /// happens-before), and the answer is `true`: races are asked of executions already found
    /// consistent. (`reference.rs` builds the same relations one by one, as the module docs state
    /// them; debug builds compare the two.)
    fn evaluate(&self, g: &ExecutionGraph, axioms: bool, s: &mut Scratch) -> bool {
        let Scratch { idx, labels, accesses, strong, to, to_loc, ms, rf, rmw, co, fr, obs, hb, cause, tmp, order } = s;
        g.node_index_into(idx);
        let n = idx.len();
        labels.clear();
        labels.extend((0..n).map(|x| (!idx.id(x).is_init()).then(|| *g.label(idx.id(x)))));
        // §7.5 / §7.6 token order, from each event's waits-for set (only earlier events).
        to.reset(n);
        for (t, evs) in g.threads.iter().enumerate() {
            for i in 0..evs.len() {
                let e = idx.node(EventId::new(t, i));
                match self.waits_for.get(t).and_then(|w| w.get(i)) {
                    // Only the events in the mask: most of a tile block's events wait for few.
                    Some(&mask) => {
                        let mut m = if i < 64 { mask & ((1u64 << i) - 1) } else { mask };
                        while m != 0 {
                            to.add(idx.node(EventId::new(t, m.trailing_zeros() as usize)), e);
                            m &= m - 1;
                        }
                    }
                    None => (0..i).for_each(|j| to.add(idx.node(EventId::new(t, j)), e)),
                }
            }
        }
        g.rf_into(idx, rf);
        g.rmw_into(idx, rmw);
        // §7.4 moral strength, between accesses of one location (element): the accesses sorted
        // by location, so only pairs within a location are looked at. Token order relates
        // events of one tile block only; scopes relate strong accesses only. Token order between
        // two accesses of one element is also the `to-loc` of coherence per location.
        accesses_by_location_into(labels, accesses);
        ms.reset(n);
        to_loc.reset(n);
        for group in accesses.chunk_by(|x, y| x.0 == y.0) {
            strong.clear();
            for &(_, a) in group {
                let ta = idx.id(a).thread as usize;
                for &(_, b) in group {
                    if a != b && idx.id(b).thread as usize == ta && (to.contains(a, b) || to.contains(b, a)) {
                        ms.add(a, b);
                        if to.contains(a, b) {
                            to_loc.add(a, b);
                        }
                    }
                }
                if let Some(l) = labels[a].filter(|l| l.strong) {
                    strong.push((a, ta, l.scope));
                }
            }
            for &(a, ta, sa) in strong.iter() {
                for &(b, tb, sb) in strong.iter() {
                    let (pa, pb) = (&self.places[ta], &self.places[tb]);
                    if a != b && pa.scope_includes(sa, pb) && pb.scope_includes(sb, pa) {
                        ms.add(a, b);
                    }
                }
            }
        }
        g.co_into(idx, co);
        g.fr_into(idx, fr);
        if axioms {
            // §7.6 Atomicity: no write morally strong with both halves of an rmw element sits in
            // `co` between the write its read reads from and its write (`fr ∩ ms ; co ∩ ms`
            // against `rmw`).
            for (r, w) in rmw.pairs() {
                if fr.successors(r).any(|x| co.contains(x, w) && ms.contains(r, x) && ms.contains(x, w)) {
                    return false;
                }
            }
            // §7.9 No-Thin-Air: acyclic(rf ∪ dep).
            tmp.assign(rf);
            for (t, evs) in g.threads.iter().enumerate() {
                for (i, ev) in evs.iter().enumerate() {
                    for j in 0..i.min(64) {
                        if ev.deps & (1 << j) != 0 {
                            tmp.add(idx.node(EventId::new(t, j)), idx.node(EventId::new(t, i)));
                        }
                    }
                }
            }
            if !tmp.is_acyclic_with(order) {
                return false;
            }
            // Coherence per location: acyclic(to-loc ∪ (ms ∩ (rf ∪ co ∪ fr))).
            tmp.assign(rf);
            tmp.union_with(co);
            tmp.union_with(fr);
            tmp.intersect_with(ms);
            tmp.union_with(to_loc);
            if !tmp.is_acyclic_with(order) {
                return false;
            }
        }
        // Observation and §7.3 synchronization: a morally strong read of the write, directly or
        // through a chain of rmws (`rf_ms ; (rmw ; rf_ms)*`).
        obs.assign(rf);
        obs.intersect_with(ms);
        if !rmw.is_empty() {
            rmw.compose_into(obs, tmp);
            tmp.close(order);
            obs.compose_into(tmp, cause);
            obs.union_with(cause);
        }
        hb.assign(to);
        hb.union_with(rmw);
        for (x, y) in obs.pairs() {
            let rel = labels[x].is_some_and(|l| l.is_write() && l.release);
            let acq = labels[y].is_some_and(|l| l.is_read() && l.acquire);
            if rel && acq && ms.contains(x, y) {
                hb.add(x, y);
            }
        }
        hb.close(order);
        if !axioms {
            return true;
        }
        obs.compose_into(hb, cause);
        cause.union_with(hb);
        // §7.6 Coherence: writes of one element related by causality are so related in `co`
        // (`co` is total per element: a pair against it is a pair not in it).
        let is_write = |x: usize| labels[x].is_none_or(|l| l.is_write());
        let loc = |x: usize| labels[x].map_or(idx.id(x).index, |l| l.loc);
        for (x, y) in cause.pairs() {
            if is_write(x) && is_write(y) && loc(x) == loc(y) && !co.contains(x, y) {
                return false;
            }
        }
        // Causality: irreflexive((rf ∪ fr) ; cause).
        !rf.pairs().chain(fr.pairs()).any(|(x, y)| cause.contains(y, x))
    }
}

/// `(location, node)` of every access among `labels` (initial writes, `None`, are not accesses of
/// a thread), sorted by location and then node.
#[cfg(debug_assertions)]
fn accesses_by_location(labels: &[Option<Label>]) -> Vec<(u32, usize)> {
    let mut out = Vec::new();
    accesses_by_location_into(labels, &mut out);
    out
}

/// [`accesses_by_location`] into `out`.
fn accesses_by_location_into(labels: &[Option<Label>], out: &mut Vec<(u32, usize)>) {
    out.clear();
    out.extend(labels.iter().enumerate().filter_map(|(x, l)| l.filter(|l| l.is_access()).map(|l| (l.loc, x))));
    out.sort_unstable();
}

impl MemoryModel for TileIr {
    fn kind(&self) -> ModelKind {
        ModelKind::TileIr
    }

    fn is_consistent(&self, g: &ExecutionGraph) -> bool {
        // The sufficient condition first: most consistent graphs pass it at a fraction of the
        // full check's cost (debug builds check it against the full check).
        if quick_accept::quick_accept(g, &self.waits_for) {
            debug_assert!(
                self.evaluate(g, true, &mut self.scratch()),
                "[tcfuzz internal bug] the Tile IR quick test accepts an inconsistent graph\n{}",
                g.canonical()
            );
            return true;
        }
        // §7.6 Atomicity, read off the graph: it rejects most of the explorer's inconsistent
        // candidates (an rmw placed out of order) before any relation is built.
        let ok = !self.atomicity_broken(g) && self.evaluate(g, true, &mut self.scratch());
        #[cfg(debug_assertions)]
        assert_eq!(
            ok,
            reference::evaluate(self, g).is_some(),
            "[tcfuzz internal bug] Tile IR consistency differs from the reference on\n{}",
            g.canonical()
        );
        ok
    }

    /// §7.10 data races, of a consistent execution (the axioms are not checked again).
    fn races(&self, g: &ExecutionGraph) -> Vec<(EventId, EventId)> {
        let mut s = self.scratch();
        self.evaluate(g, false, &mut s);
        #[cfg(debug_assertions)]
        {
            let want = reference::evaluate(self, g).expect("[tcfuzz internal bug] races asked of an inconsistent graph");
            assert!(
                want == (s.ms.clone(), s.hb.clone()),
                "[tcfuzz internal bug] Tile IR relations differ from the reference on\n{}",
                g.canonical()
            );
        }
        let mut out = Vec::new();
        for group in s.accesses.chunk_by(|x, y| x.0 == y.0) {
            for (i, &(_, x)) in group.iter().enumerate() {
                for &(_, y) in &group[i + 1..] {
                    let (Some(lx), Some(ly)) = (s.labels[x], s.labels[y]) else { continue };
                    let conflict = lx.is_write() || ly.is_write();
                    if conflict && !s.ms.contains(x, y) && !s.hb.contains(x, y) && !s.hb.contains(y, x) {
                        out.push((x, y));
                    }
                }
            }
        }
        // In node order, as a scan of all pairs would give them.
        out.sort_unstable();
        out.into_iter().map(|(x, y)| (s.idx.id(x), s.idx.id(y))).collect()
    }

    /// §7.10: conflicting, not morally strong ([`TileIr::morally_strong`], as `evaluate` builds it).
    fn every_race_candidate(&self, g: &ExecutionGraph, known: &mut dyn FnMut(EventId, EventId) -> bool) -> Option<bool> {
        Some(crate::model::every_conflict(g, |x, y| self.morally_strong(g, x, y), known))
    }

    /// §7.12.1: load buffering (and a load reading from a later store of its own tile block).
    fn allows_porf_cycles(&self) -> bool {
        true
    }

    /// Every relation of the model leaves an event through a later event of its thread (token
    /// order and dependencies only go from an earlier event to a later one, `rmw` from a read to
    /// the write after it), a read of it, a later write in `co`, or `fr` ([`crate::model::plain_sink`]);
    /// moral strength only filters those edges. A sink rmw write still answers to Atomicity
    /// (§7.6). A read of a write other than the last in `co` is left to the full check.
    fn sink_extension(&self, g: &ExecutionGraph, a: EventId) -> Option<bool> {
        // An rmw write whose source is not in `co` (or not of its element): the full check.
        let broken = if g.label(a).rmw_write { Some(self.rmw_breaks_atomicity(g, a)?) } else { None };
        crate::model::plain_sink(g, a, || broken != Some(true), |_| false)
    }

    /// Coherence per location against the accesses of `e`'s own thread to its element that
    /// token order relates to `e` (those `kept` accepts, with their sources): they and `e` are
    /// morally strong by token order (§7.4); an edge to or from another thread's write counts
    /// only where the two are morally strong. For an access `x` that `e` waits for: `s` before
    /// `x` (a write) or before the write `u` it reads from (`e →fr u →rf x →to e`). For one that
    /// waits for `e`: `s` is `x`, or after it (`x →co s →rf e →to x`), or after `u` (`s →rf e →to
    /// x →fr s`). A plain read only: an rmw's read is added with its write.
    fn source_ruled_out(&self, g: &ExecutionGraph, e: EventId, s: EventId, kept: &dyn Fn(EventId) -> bool) -> bool {
        let le = g.label(e);
        if !le.is_read() || le.atomic || le.rmw_write {
            return false;
        }
        let Some(ps) = g.co_position(s) else { return false };
        let (t, i) = (e.thread as usize, e.index as usize);
        let ms = |a: EventId, b: EventId| self.morally_strong(g, a, b);
        g.threads[t].iter().enumerate().any(|(j, x)| {
            let (xe, lx) = (EventId::new(t, j), &x.label);
            let (before, after) = (j < i && self.waits(t, j, i), j > i && self.waits(t, i, j));
            if !(before || after) || !lx.is_access() || lx.loc != le.loc || g.is_hole(xe) || !kept(xe) {
                return false;
            }
            if lx.is_write() {
                let Some(px) = g.co_position(xe) else { return false };
                return if before { ps < px } else { s == xe || (ps > px && ms(xe, s) && ms(s, e)) };
            }
            let Some(u) = x.rf.filter(|&u| u.is_init() || kept(u)) else { return false };
            let Some(pu) = g.co_position(u) else { return false };
            if before { ps < pu && ms(e, u) && ms(u, xe) } else { ps > pu && ms(s, e) && ms(xe, s) }
        })
    }

    /// Not before the writes of its element that `e` waits for in its own thread (coherence per
    /// location: the two are morally strong by token order, §7.4, and `co` or `fr` against
    /// token order closes a cycle).
    fn co_floor(&self, g: &ExecutionGraph, e: EventId, l: &Label) -> usize {
        let t = e.thread as usize;
        g.threads[t][..e.index as usize]
            .iter()
            .enumerate()
            .filter(|(j, x)| x.label.is_write() && x.label.loc == l.loc && self.waits(t, *j, e.index as usize))
            .filter_map(|(j, _)| g.co_position(EventId::new(t, j)))
            .max()
            .unwrap_or(0)
    }

    /// Not after the writes of its element in its own thread that wait for `e` (as for
    /// [`MemoryModel::co_floor`]).
    fn co_ceiling(&self, g: &ExecutionGraph, e: EventId, l: &Label) -> usize {
        if !l.is_write() {
            return usize::MAX;
        }
        let t = e.thread as usize;
        g.threads[t]
            .iter()
            .enumerate()
            .skip(e.index as usize + 1)
            .filter(|(j, x)| x.label.is_write() && x.label.loc == l.loc && self.waits(t, e.index as usize, *j))
            .filter_map(|(j, _)| g.co_position(EventId::new(t, j)))
            .min()
            .unwrap_or(usize::MAX)
    }
}
