//! A cheap test that a graph is inconsistent under PTX, read straight off the graph before the
//! full check builds anything: a cycle of SC per location (§8.10.5, `po-loc` with the morally
//! strong `rf`, `co` and `fr`) at a location whose accesses are all morally strong with each
//! other (§8.7): plain generic strong accesses of one virtual address, each one's scope
//! including every other thread that accesses the location. There the morally strong
//! communication edges are all of them, so the axiom's relation is `po-loc ∪ rf ∪ co ∪ fr`.
//! After the quick acceptance ([`super::quick_accept`]), most of the graphs the explorer asks
//! about that the full check rejects fail here (a read of a write older than one its thread
//! has already seen, a write placed before one its thread has read). Then a cycle of the pairs
//! every Fence-SC order must have, where the `fence.sc` are all morally strong with each other
//! ([`Ptx::fence_sc_cycle`]): store buffering through fences; the same pairs give floors in
//! coherence order (`ptx/floor.rs`). The per-location test also tells
//! [`MemoryModel::races`](crate::model::MemoryModel::races) that a graph whose accesses all pass
//! it has no data race.

use crate::exec::event::EventId;
use crate::exec::graph::{ExecutionGraph, HOLE};
use crate::program::CompiledProgram;
use crate::program::label::{Label, LocId};

use super::{Ptx, SCOPES, scope_index};

/// Locations with more accesses than this are left to the full check (one bit per access).
const MAX_ACCESSES: usize = 63;

impl Ptx {
    /// Whether some location of `g` has a cycle of SC per location with every pair of its
    /// accesses morally strong, or no Fence-SC order can exist (module docs). Only `true` is an
    /// answer: `false` leaves `g` to the full check. Holes (events whose stamp is [`HOLE`]) are
    /// not part of the graph: left out.
    pub(super) fn quick_reject(&self, g: &ExecutionGraph) -> bool {
        (0..g.init.len()).any(|l| self.coherence_cycle(g, l as LocId)) || self.fence_sc_cycle(g)
    }

    /// Whether the pairs every Fence-SC order of `g` must have (§8.9.3) close a cycle, so that
    /// none exists, when the `fence.sc` are all morally strong with each other. `F1` goes before
    /// `F2` when `F1` precedes `F2` in program order, or some access after `F1` in its thread
    /// reaches one before `F2` in its thread through `rf`, `co` or `fr`, at a location whose
    /// accesses are all morally strong (module docs). With `F2` first instead, `F2`
    /// synchronizes with `F1` (§8.9.4), which orders the second access before the first in
    /// causality order (§8.9.5): against `co` (Coherence §8.10.1), or with the `fr` or `rf` edge
    /// closing a cycle (Causality §8.10.6; for `rf`, the two fences' release and acquire patterns
    /// already synchronize `F1` with `F2`, against the order: Fence-SC §8.10.2).
    fn fence_sc_cycle(&self, g: &ExecutionGraph) -> bool {
        let two = g.threads.iter().flatten().filter(|e| e.stamp != HOLE && e.label.is_fence() && e.label.sc).nth(1).is_some();
        two && self.forced_fences(g).is_some_and(|f| f.cyclic())
    }

    /// The `fence.sc` of `g` (holes left out) and the pairs every Fence-SC order must have that
    /// [`Ptx::fence_sc_cycle`] reads off the graph; `None` where that test does not apply (more
    /// than 64 of them, one not generic, two not morally strong with each other).
    pub(super) fn forced_fences(&self, g: &ExecutionGraph) -> Option<ForcedFences> {
        let nlocs = g.init.len();
        let mut f = ForcedFences {
            upto: Vec::new(),
            offsets: Vec::with_capacity(g.threads.len()),
            range: Vec::new(),
            before: Vec::new(),
            loc_classes: vec![Vec::new(); nlocs],
            loc_strong: vec![true; nlocs],
        };
        let mut fences = 0usize;
        let mut accesses = vec![0usize; nlocs];
        let mut classes: Vec<(usize, usize)> = Vec::new();
        for (t, evs) in g.threads.iter().enumerate() {
            f.offsets.push(f.upto.len());
            let start = fences;
            for e in evs.iter() {
                let l = &e.label;
                if e.stamp != HOLE && l.is_fence() && l.sc {
                    if fences == 64 || l.proxy != crate::program::label::Proxy::Generic {
                        return None;
                    }
                    fences += 1;
                    let class = (t, scope_index(l.scope));
                    if !classes.contains(&class) {
                        classes.push(class);
                    }
                }
                if e.stamp != HOLE && l.is_access() {
                    // The per-location part of [`Ptx::all_morally_strong`], for every location at once.
                    let loc = l.loc as usize;
                    accesses[loc] += 1;
                    f.loc_strong[loc] &= always_morally_strong(l) && accesses[loc] <= MAX_ACCESSES;
                    let class = (t, scope_index(l.scope));
                    if !f.loc_classes[loc].contains(&class) {
                        f.loc_classes[loc].push(class);
                    }
                }
                f.upto.push(fences as u8);
            }
            f.range.push(start..fences);
        }
        if !self.classes_compatible(&classes) {
            return None;
        }
        for (strong, classes) in f.loc_strong.iter_mut().zip(&f.loc_classes) {
            *strong = *strong && self.classes_compatible(classes);
        }
        // `before[j]`: fences forced before fence `j` — first its thread's previous one.
        f.before = vec![0u64; fences];
        for r in &f.range {
            for (j, b) in f.before.iter_mut().enumerate().take(r.end).skip(r.start + 1) {
                *b |= 1 << (j - 1);
            }
        }
        // Per location and index of `writes_to`, the last fences before the write there and
        // before the reads of it: the sources of the edges (`co`, `fr`) into each later write.
        let mut into: Vec<Vec<u64>> = (0..nlocs).map(|l| if f.loc_strong[l] { vec![0; g.co[l].len() + 1] } else { Vec::new() }).collect();
        for (loc, co) in g.co.iter().enumerate().filter(|&(l, _)| f.loc_strong[l]) {
            for (k, &w) in co.iter().enumerate() {
                into[loc][k + 1] |= f.last_before(w);
            }
        }
        for (t, evs) in g.threads.iter().enumerate() {
            for (i, e) in evs.iter().enumerate() {
                let loc = e.label.loc as usize;
                if e.stamp == HOLE || !e.label.is_read() || !f.loc_strong[loc] {
                    continue;
                }
                let Some(src) = e.rf else { continue };
                let r = EventId::new(t, i);
                let Some(k) = g.co_position(src) else { continue };
                into[loc][k] |= f.last_before(r);
                if !src.is_init() {
                    f.force(src, r);
                }
            }
        }
        for (loc, co) in g.co.iter().enumerate().filter(|&(l, _)| f.loc_strong[l]) {
            let mut from = 0u64;
            for (k, &w) in co.iter().enumerate() {
                from |= into[loc][k];
                if let Some(j) = f.first_after(w) {
                    f.before[j] |= from;
                }
            }
        }
        Some(f)
    }

    /// Whether operations of the (thread, scope) classes `classes` are all morally strong with
    /// each other as far as scopes go (§8.5, §8.7): each one's scope includes the other's thread.
    fn classes_compatible(&self, classes: &[(usize, usize)]) -> bool {
        classes.iter().enumerate().all(|(a, &(ta, sa))| {
            classes[a + 1..].iter().all(|&(tb, sb)| {
                let c = ta * SCOPES.len() + sa;
                let d = tb * SCOPES.len() + sb;
                ta == tb || self.compat[c * self.class_words + d / 64] & (1 << (d % 64)) != 0
            })
        })
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
    /// [`Ptx::no_weak_conflict`] for every execution of `prog`, a plain program
    /// ([`super::quick_accept::plain_program`]: its events are those of its loads, stores, rmws
    /// and fences, with the labels of the instructions): whether, for each location, the accesses
    /// of every instruction to it are all morally strong with each other — each
    /// [`always_morally_strong`], and their (thread, scope) classes compatible. Morally strong
    /// is a property of each pair, so the accesses of any execution, a part of them, are too;
    /// and a data race needs a conflicting pair that is not (§8.10).
    pub(super) fn race_free_program(&self, prog: &CompiledProgram) -> bool {
        use crate::program::Op;
        let mut loc_classes: Vec<Vec<(usize, usize)>> = vec![Vec::new(); prog.locations.len()];
        for (t, code) in prog.threads.iter().enumerate() {
            for line in &code.code {
                let labels = match &line.op {
                    Op::Load { label, .. } | Op::Store { label, .. } => [Some(label), None],
                    Op::Rmw { read, write, .. } => [Some(read), Some(write)],
                    _ => [None, None],
                };
                for l in labels.into_iter().flatten() {
                    let Some(classes) = loc_classes.get_mut(l.loc as usize) else { return false };
                    if !always_morally_strong(l) {
                        return false;
                    }
                    let class = (t, scope_index(l.scope));
                    if !classes.contains(&class) {
                        classes.push(class);
                    }
                }
            }
        }
        loc_classes.iter().all(|classes| self.classes_compatible(classes))
    }

    fn all_morally_strong(&self, g: &ExecutionGraph, loc: LocId, accesses: &mut Vec<EventId>) -> bool {
        accesses.clear();
        let mut classes: Vec<(usize, usize)> = Vec::new();
        for (t, evs) in g.threads.iter().enumerate() {
            for (i, e) in evs.iter().enumerate().filter(|(_, e)| e.stamp != HOLE && e.label.is_access() && e.label.loc == loc) {
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
        self.classes_compatible(&classes)
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
            if let Some((t, prev)) = last_in_thread
                && t == e.thread
            {
                preds[me] |= 1 << prev;
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

/// The `fence.sc` of a graph, numbered thread by thread in program order, and the pairs every
/// Fence-SC order must have ([`Ptx::forced_fences`]).
pub(super) struct ForcedFences {
    /// Per event (thread `t`'s from `offsets[t]`), how many fences come up to it, itself
    /// included; per thread, the numbers of its own fences.
    upto: Vec<u8>,
    offsets: Vec<usize>,
    range: Vec<std::ops::Range<usize>>,
    /// `before[j]`, bit `i`: fence `i` is forced before fence `j`.
    before: Vec<u64>,
    /// Per location, the (thread, scope) classes of its accesses, and whether they are all
    /// morally strong with each other ([`Ptx::all_morally_strong`]).
    loc_classes: Vec<Vec<(usize, usize)>>,
    loc_strong: Vec<bool>,
}

impl ForcedFences {
    fn upto(&self, e: EventId) -> usize {
        self.upto[self.offsets[e.thread as usize] + e.index as usize] as usize
    }

    /// The last fence of thread `t` (what its next event comes after).
    pub(super) fn last_of_thread(&self, t: usize) -> Option<usize> {
        let r = &self.range[t];
        (r.end > r.start).then(|| r.end - 1)
    }

    /// The last fence before event `e` (not a fence) in its thread, as a bit.
    fn last_before(&self, e: EventId) -> u64 {
        let f = self.upto(e);
        if f > self.range[e.thread as usize].start { 1 << (f - 1) } else { 0 }
    }

    /// Whether the accesses of `loc`, and one of thread `t` labelled `l`, are all morally strong
    /// with each other ([`Ptx::all_morally_strong`]).
    pub(super) fn all_morally_strong_with(&self, ptx: &Ptx, loc: LocId, t: usize, l: &Label) -> bool {
        let loc = loc as usize;
        if !self.loc_strong[loc] || !always_morally_strong(l) {
            return false;
        }
        let mut classes = self.loc_classes[loc].clone();
        classes.push((t, scope_index(l.scope)));
        ptx.classes_compatible(&classes)
    }

    /// Whether the accesses of `loc` are all morally strong with each other.
    pub(super) fn strong_location(&self, loc: LocId) -> bool {
        self.loc_strong[loc as usize]
    }

    /// The first fence after event `e` (not a fence) in its thread.
    pub(super) fn first_after(&self, e: EventId) -> Option<usize> {
        let f = self.upto(e);
        (f < self.range[e.thread as usize].end).then_some(f)
    }

    /// For an edge (`rf`, `co` or `fr`) from access `x` to access `y`: the last fence before `x`
    /// in its thread goes before the first fence after `y` in its thread.
    fn force(&mut self, x: EventId, y: EventId) {
        let (f1, f2) = (self.upto(x), self.upto(y));
        if f1 > self.range[x.thread as usize].start && f2 < self.range[y.thread as usize].end {
            self.before[f2] |= 1 << (f1 - 1);
        }
    }

    /// Whether the forced pairs close a cycle (Kahn's algorithm on bit sets: a cycle leaves
    /// fences that never become free).
    fn cyclic(&self) -> bool {
        let fences = self.before.len();
        let mut left: u64 = if fences == 64 { !0 } else { (1 << fences) - 1 };
        while left != 0 {
            let ready = (0..fences).filter(|&j| left & 1 << j != 0 && self.before[j] & left == 0).fold(0u64, |m, j| m | 1 << j);
            if ready == 0 {
                return true;
            }
            left &= !ready;
        }
        false
    }

    /// The fences forced before fence `j`, directly or through others, and `j` itself.
    pub(super) fn up_to(&self, j: usize) -> u64 {
        let mut reached = 1u64 << j;
        let mut frontier = reached;
        while frontier != 0 {
            let grown = crate::exec::bitset::row::bits(&[frontier]).fold(0, |m, i| m | self.before[i]);
            frontier = grown & !reached;
            reached |= grown;
        }
        reached
    }
}

/// Whether an access is morally strong with every other access of its location whose thread
/// its scope includes (§8.7): strong, generic, to the location itself (no alias), and not
/// asynchronous.
fn always_morally_strong(l: &Label) -> bool {
    l.strong && l.proxy == crate::program::label::Proxy::Generic && l.vloc == l.loc && l.tc.is_none() && l.bulk_copy == 0
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

    /// A program is race-free before any graph is built only where every two accesses it can
    /// make to one location are morally strong (§8.7): strong accesses whose scopes include each
    /// other's thread. Weak data, or `.cta` scope across two CTAs, leave it to each graph, and
    /// the graph where the reader sees `flag == 0` then has its races (§8.10, as the examples
    /// expect).
    #[test]
    fn race_free_programs_are_known_before_any_graph() {
        for (file, race_free) in [
            (include_str!("../../../../examples/ptx/MP+rel+acq-gpu-diffcta.litmus"), true),
            (include_str!("../../../../examples/ptx/MP+weak+rel+acq-gpu-unguarded.litmus"), false),
            (include_str!("../../../../examples/ptx/MP+rel+acq-cta-diffcta.litmus"), false),
        ] {
            let prog = compile(file);
            let ptx = Ptx::new(&prog);
            assert_eq!(ptx.race_free_program(&prog), race_free);
            let flag_zero = graph(&prog, &[None, None]);
            assert!(ptx.is_consistent(&flag_zero));
            assert_eq!(ptx.races(&flag_zero).is_empty(), race_free);
        }
    }

    /// SB with a `fence.sc` in each thread, both loads reading `0`: each fence must precede the
    /// other in Fence-SC order (`fr` from each load to the other thread's store), so no order
    /// exists — refused here when the fences are morally strong (`.gpu`). At `.cta` scope in two
    /// CTAs they are not, nothing orders them, and PTX allows it
    /// (`examples/ptx/SB+fence.sc-cta-diffcta.litmus`).
    #[test]
    fn fences_that_must_precede_each_other_are_refused() {
        for (file, strong) in [
            (include_str!("../../../../examples/ptx/SB+fence.sc-gpu-diffcta.litmus"), true),
            (include_str!("../../../../examples/ptx/SB+fence.sc-cta-diffcta.litmus"), false),
        ] {
            let prog = compile(file);
            let ptx = Ptx::new(&prog);
            let both_old = graph(&prog, &[None, None]);
            assert_eq!(ptx.fence_sc_cycle(&both_old), strong);
            assert_eq!(ptx.is_consistent(&both_old), !strong);
            let one_new = graph(&prog, &[Some((1, 0)), None]);
            assert!(!ptx.fence_sc_cycle(&one_new));
            assert!(ptx.is_consistent(&one_new));
        }
    }

    /// P0 runs wholly before P1 (SC allows it): each edge between the threads (`fr` or `co` on
    /// `y`, then `rf` on `z`; or `rf` on `z`, then `fr` on `w`) has fences on both sides, and
    /// the pairs they force run one way only — the fence before the edge's first access before
    /// the fence after its second. Taken backwards they would close a cycle.
    #[test]
    fn forced_pairs_follow_the_edges() {
        let text = |first: &str| {
            format!(
                "PTX forced-pairs
{{ y = 0; z = 0; }}
 P0@cta 0,gpu 0       | P1@cta 1,gpu 0       ;
 fence.sc.gpu         | ld.relaxed.gpu r1, z ;
 {first:<20} | fence.sc.gpu         ;
 fence.sc.gpu         | st.relaxed.gpu y, 1  ;
 st.relaxed.gpu z, 1  | fence.sc.gpu         ;
exists (true)
"
            )
        };
        for first in ["ld.relaxed.gpu r0, y", "st.relaxed.gpu y, 2"] {
            let prog = compile(&text(first));
            let ptx = Ptx::new(&prog);
            // P0's `y` access first (its read reads the initial value), then P1 reads `z = 1`.
            let sources: &[Option<(usize, usize)>] = if first.starts_with("ld") { &[None, Some((0, 3))] } else { &[Some((0, 3))] };
            let g = graph(&prog, sources);
            assert!(ptx.is_consistent(&g), "{first}");
            assert!(!ptx.fence_sc_cycle(&g), "{first}");
        }
        // `rf` on `z` with a fence before the read, `fr` on `w` the same way.
        let prog = compile(
            "PTX forced-pairs-rf
{ w = 0; z = 0; }
 P0@cta 0,gpu 0       | P1@cta 1,gpu 0       ;
 fence.sc.gpu         | st.relaxed.gpu w, 1  ;
 st.relaxed.gpu z, 1  | fence.sc.gpu         ;
 fence.sc.gpu         | ld.relaxed.gpu r1, z ;
 ld.relaxed.gpu r0, w | fence.sc.gpu         ;
exists (true)
",
        );
        let ptx = Ptx::new(&prog);
        let g = graph(&prog, &[None, Some((0, 1))]);
        assert!(ptx.is_consistent(&g));
        assert!(!ptx.fence_sc_cycle(&g));
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
