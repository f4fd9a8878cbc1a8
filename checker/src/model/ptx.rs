//! The PTX memory consistency model, generic proxy (PTX ISA chapter 8, "Memory Consistency Model";
//! section numbers below follow PTX ISA 8.x, names are authoritative where numbering differs).
//! Cross-checked against Dat3M's `cat/ptx-v7.5.cat` and the Alloy model of Lustig et al.,
//! ASPLOS'19 (NVlabs `ptxmemorymodel`).
//!
//! Relations, rule by rule:
//! - *Strong* operations (§8.4 "Operation types"): `.relaxed`, `.acquire`, `.release`, `.acq_rel`,
//!   `.volatile` (as `.relaxed.sys`), atomics and fences; `.weak` accesses are not strong.
//! - *Scope* (§8.5): a scope is the set of threads in the same CTA / cluster / GPU / system as the
//!   thread performing the operation, from the threads' placement.
//! - *Morally strong* (§8.7): two distinct operations related in program order, or both strong with
//!   each one's scope including the other's thread; both through the same proxy; and, if both are
//!   memory operations, to the same virtual address (complete overlap).
//! - *Proxies* (§8.6): every access and proxy fence carries its proxy (generic, texture, surface,
//!   constant); `rf` / `co` are per physical location, morally-strong and the release/acquire
//!   patterns' same-location conditions per virtual address.
//! - *Observation order* (§8.9.2): a write precedes a morally strong read that reads from it, and
//!   chains through atomic operations (write →rf rmw →rf read, each step morally strong).
//! - *Release / acquire patterns* (§8.8): release = a release write, optionally followed in program
//!   order by a strong write to the same location; or a release (`acq_rel`/`sc`) fence followed in
//!   program order by a strong write. Acquire = a strong read, optionally followed in program order
//!   by an acquire read of the same location; or a strong read followed in program order by an
//!   acquire fence (same-location conditions on virtual addresses).
//! - *Synchronizes-with* (§8.9.4): a release pattern whose write precedes, in observation order,
//!   the read of an acquire pattern, where the first operation of the one and the last of the other
//!   are morally strong; and `fence.sc` F1 with F2 when F1 precedes F2 in Fence-SC order; and
//!   (§9.7.13.1 `bar`, Dat3M's `sync_barrier`) arrivals of two threads at the same instance of a
//!   CTA barrier, both ways.
//! - *Fence-SC order* (§8.9.3): an order, chosen by the execution, relating every pair of morally
//!   strong `fence.sc`; the checker quantifies existentially over all of them (it is not part of
//!   what makes two executions different). Only the orders that extend the causality order
//!   found without one between morally strong fences can work (any other breaks the Fence-SC
//!   axiom), and they all have the pairs `relations/fence_order.rs` forces; one guess is tried
//!   first. Where it fails, the graph is judged without any order (an order only adds edges:
//!   inconsistent then, inconsistent under every order), then the orders are enumerated: at
//!   worst the interleavings of each thread's fences, exponential in the threads with more than
//!   one.
//! - *Base causality order* (§8.9.5): `(po ∪ sw)+`. *Proxy-preserved base causality*: base
//!   causality between memory operations restricted as the ISA's proxy rules say (generic to
//!   generic on one virtual address; one non-generic proxy within a CTA; through proxy fences of
//!   the operations' proxies; across aliases through `fence.proxy.alias`) — see
//!   `Ptx::proxy_preserved`. *Causality order*: proxy-preserved base causality, or observation
//!   order followed by it; between `fence.sc` (for the Fence-SC axiom), base causality.
//!
//! Axioms (§8.10), all checked:
//! 1. Coherence (§8.10.1): a write that precedes a same-location write in causality order
//!    precedes it in coherence order.
//! 2. Fence-SC (§8.10.2): Fence-SC order does not contradict causality order.
//! 3. Atomicity (§8.10.3): no morally strong write sits in coherence order between the write an
//!    rmw reads from and the rmw's write (`(ms ∩ fr) ; (ms ∩ co)` disjoint from `rmw`).
//! 4. No-Thin-Air (§8.10.4): `rf ∪ dep` is acyclic (data and control dependencies; addresses are
//!    static in litmus programs).
//! 5. Sequential consistency per location (§8.10.5): program order between same-location
//!    operations together with the morally strong communication edges (`rf`, `co`, `fr`) is
//!    acyclic. (Dat3M's `ptx-v7.5.cat` leaves this axiom out; it is implied by Causality for most
//!    shapes.)
//! 6. Causality (§8.10.6): `(rf ∪ fr) ; causality` is irreflexive, where `fr` goes through the
//!    *coherence order* proper: the graph keeps a total order of the writes to each location, but
//!    §8.9.6 relates two overlapping writes in coherence order only when they are morally strong
//!    or related in causality order ("two overlapping writes are unrelated in coherence order if
//!    they are in a data-race"), so the pairs of racing writes in it are left out here. This is
//!    what Dat3M's `Co-Total-*` and `Cause-base-weak` tests (mixedproxy issue 4) expect.
//!
//! Data races (§8.10, "data race"): two conflicting accesses (same location, at least one a
//! write) that are not morally strong and not ordered either way by causality order.
//!
//! Barriers with a thread count, `bar.arrive`, cluster barriers and mbarriers need no rule here:
//! they are synchronization objects ([`crate::program::sync`]) whose arrives are release RMWs and whose
//! waits are acquire reads of the object's location, so the release/acquire patterns, observation
//! order through the arrive RMWs and the scopes above give their memory effect (relaxed ones
//! synchronize execution only).
//!
//! The async proxy (the shared-memory operands of `tcgen05.mma` / `tcgen05.cp`, bulk copies) is a
//! proxy like the others above; `fence.proxy.async` is its proxy fence, and a bulk copy's
//! completion carries an implicit one ([`crate::program::sync`]).
//!
//! Not modelled yet: mixed-size accesses (every access here covers its whole location).
//!
//! # How it is computed
//! Every relation is a bit matrix over the graph's nodes ([`crate::exec::bitset::Relation`], initial
//! writes first, then each thread in program order), built row by row: per-node facts (writes,
//! strong writes, acquire reads, the nodes of each thread, location, virtual address, proxy,
//! strength and scope class) are bitsets, so morally strong, the release and acquire patterns and
//! the filters of the axioms are a few word operations per node instead of a test per pair; the
//! `tcgen05` edges likewise ([`crate::model::tcgen05::Facts`]). Two quick tests read off the
//! graph come before anything is built: a sufficient condition (`ptx/quick_accept.rs`: some total
//! order explains the graph, which most consistent graphs the explorer asks about pass) and a
//! necessary one (`ptx/quick_reject.rs`: SC per location where every access is morally strong);
//! debug builds check both against the full check. Then the cheap axioms (Atomicity, also read off
//! the graph, which rejects most of the explorer's candidates that place an rmw out of order,
//! then No-Thin-Air and SC per location); causality only for graphs that pass them. The
//! relations live in scratch space kept in the model between checks, and the last consistent
//! graph's causality order stays there for [`MemoryModel::races`], which the explorer asks about
//! the graph it has just found consistent.
//! `ptx/reference.rs` (test-only) is the same model written relation by relation, as first
//! implemented, and the tests check this one against it on every graph the explorer and the
//! oracle judge for the examples, a tcgen05 pipeline and the Dat3M corpus.

use std::sync::Mutex;

use tcfuzz_litmus::Scope;

use crate::exec::event::{Event, EventId};
use crate::exec::graph::ExecutionGraph;
use crate::model::{MemoryModel, ModelKind};
use crate::program::label::{Label, Proxy};
use crate::program::{CompiledProgram, ThreadPlace};

mod fenced_cycle;
mod floor;
mod quick_accept;
mod quick_reject;
#[cfg(test)]
mod reference;
mod relations;
mod sink_read;

use crate::exec::bitset::row::set;
use quick_accept::quick_accept;
use relations::Scratch;

/// The scopes, in the order of [`scope_index`].
const SCOPES: [Scope; 4] = [Scope::Cta, Scope::Cluster, Scope::Gpu, Scope::Sys];

fn scope_index(s: Scope) -> usize {
    match s {
        Scope::Cta => 0,
        Scope::Cluster => 1,
        Scope::Gpu => 2,
        Scope::Sys => 3,
    }
}

fn proxy_index(p: Proxy) -> usize {
    match p {
        Proxy::Generic => 0,
        Proxy::Texture => 1,
        Proxy::Surface => 2,
        Proxy::Constant => 3,
        Proxy::Async => 4,
    }
}
const PROXIES: usize = 5;

pub struct Ptx {
    places: Vec<ThreadPlace>,
    /// Strong operations are grouped in *classes*, one per thread and scope (class
    /// `thread * 4 + scope_index`). Bit `d` of `compat[c * class_words..]`: whether an operation
    /// of class `c` and one of class `d` each have the other's thread in their scope (§8.5, the
    /// scope part of morally strong, §8.7). It depends on the placement only.
    compat: Vec<u64>,
    class_words: usize,
    /// Whether some thread has a `fence.sc` whose scope includes every thread
    /// ([`fenced_cycle`]: without one, only the cheap part of the test applies).
    global_sc_fences: bool,
    /// Whether every event the program can make is plain ([`quick_accept::plain_program`]).
    plain_program: bool,
    /// Whether, besides, its only synchronisation is `fence.sc` ([`fence_sc_sync_only`]).
    fence_sc_sync_only: bool,
    /// Whether, besides, it has no `fence.sc` ([`Ptx::sink_read_closes_nothing`]).
    plain_without_sc_fences: bool,
    /// Whether, besides, every two accesses the program can make to one location are morally
    /// strong ([`Ptx::race_free_program`]): then no execution has a data race.
    race_free_program: bool,
    /// Scratch space for the checks, reused from graph to graph.
    scratch: Mutex<Scratch>,
}

impl Clone for Ptx {
    fn clone(&self) -> Self {
        Ptx {
            places: self.places.clone(),
            compat: self.compat.clone(),
            class_words: self.class_words,
            global_sc_fences: self.global_sc_fences,
            plain_program: self.plain_program,
            fence_sc_sync_only: self.fence_sc_sync_only,
            plain_without_sc_fences: self.plain_without_sc_fences,
            race_free_program: self.race_free_program,
            scratch: Mutex::default(),
        }
    }
}

impl std::fmt::Debug for Ptx {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Ptx").field("places", &self.places).finish_non_exhaustive()
    }
}

impl Ptx {
    pub fn new(program: &CompiledProgram) -> Self {
        let places = program.places.clone();
        let classes = places.len() * SCOPES.len();
        let class_words = classes.div_ceil(64).max(1);
        let mut compat = vec![0; classes * class_words];
        for (t, pt) in places.iter().enumerate() {
            for (s, &st) in SCOPES.iter().enumerate() {
                for (u, pu) in places.iter().enumerate() {
                    for (r, &su) in SCOPES.iter().enumerate() {
                        let (c, d) = (t * SCOPES.len() + s, u * SCOPES.len() + r);
                        if pt.scope_includes(st, pu) && pu.scope_includes(su, pt) {
                            set(&mut compat[c * class_words..(c + 1) * class_words], d);
                        }
                    }
                }
            }
        }
        let global_sc_fences = program.threads.iter().enumerate().any(|(t, code)| {
            code.code
                .iter()
                .any(|l| matches!(&l.op, crate::program::Op::Fence { label } if fenced_cycle::global_sc_fence(&places, t, label)))
        });
        let plain_program = quick_accept::plain_program(program);
        let fence_sc_sync_only = plain_program && fence_sc_sync_only(program);
        let plain_without_sc_fences = plain_program
            && !program.threads.iter().flat_map(|t| &t.code).any(|l| matches!(&l.op, crate::program::Op::Fence { label } if label.sc));
        let mut ptx = Ptx {
            places,
            compat,
            class_words,
            global_sc_fences,
            plain_program,
            fence_sc_sync_only,
            plain_without_sc_fences,
            race_free_program: false,
            scratch: Mutex::default(),
        };
        ptx.race_free_program = plain_program && ptx.race_free_program(program);
        ptx
    }

    fn scratch(&self) -> std::sync::MutexGuard<'_, Scratch> {
        // A panic while the lock was held leaves scratch space that the next load overwrites.
        let mut s = self.scratch.lock().unwrap_or_else(|e| e.into_inner());
        s.classes = self.places.len() * SCOPES.len();
        s.class_words = self.class_words;
        s
    }
}

impl Ptx {
    /// Whether `g` is consistent: the quick tests first ([`quick_accept`], Atomicity
    /// [`Ptx::breaks_atomicity`], [`Ptx::quick_reject`]), then, in the scratch space, every
    /// axiom ([`Ptx::evaluate`]). Debug builds check the quick answers against the full check.
    fn judge(&self, g: &ExecutionGraph) -> bool {
        let full = || !self.breaks_atomicity(g) && self.evaluate(g, &mut self.scratch());
        // A graph the quick tests reject leaves the scratch space as it is: what it holds is still
        // right for its graph.
        if let Some(quick) = self.quick(g) {
            debug_assert_eq!(quick, full(), "[tcfuzz internal bug] a quick test of the PTX model is wrong");
            return quick;
        }
        self.evaluate(g, &mut self.scratch())
    }

    /// The tests read off `g` (which may have holes): [`quick_accept`], then Atomicity (which
    /// rejects most of the explorer's candidates for an rmw's write) and [`Ptx::quick_reject`].
    fn quick(&self, g: &ExecutionGraph) -> Option<bool> {
        if quick_accept(g, self.plain_program) {
            return Some(true);
        }
        (self.breaks_atomicity(g) || self.quick_reject(g)).then_some(false)
    }

    /// Loads `g` into `s` and checks every axiom but Atomicity; when they hold, `s.cause` is
    /// causality order (under the first Fence-SC order that works).
    fn evaluate(&self, g: &ExecutionGraph, s: &mut Scratch) -> bool {
        s.consistent = false;
        s.load_facts(g);
        // Rows of one word (graphs of up to 64 nodes: most litmus tests) are the common case;
        // with the width a constant the row loops compile to straight-line code.
        let found = match s.w {
            1 => self.judge_loaded::<1>(g, s),
            2 => self.judge_loaded::<2>(g, s),
            _ => self.judge_loaded::<0>(g, s),
        };
        s.consistent = found;
        found
    }

    /// [`Ptx::evaluate`] once the facts are loaded, with rows of `W` words (`0`: `s.w`).
    fn judge_loaded<const W: usize>(&self, g: &ExecutionGraph, s: &mut Scratch) -> bool {
        s.build::<W>(g);
        s.build_ms::<W>(&self.compat);
        if !s.static_axioms::<W>() {
            return false;
        }
        s.add_sync::<W>();
        let fences = std::mem::take(&mut s.sc_fences);

        // §8.10.2: an order against causality between two morally strong fences breaks the
        // Fence-SC axiom whatever else holds, so only the orders that extend the causality found
        // without one (base causality with no order) are tried.
        if fences.len() >= 2 {
            s.base_order(&[], 0);
        }
        let mut before = s.fence_causality(&fences);
        // Pairs every working order has (most inconsistent graphs show a cycle of them at once,
        // where the search below would try every interleaving first).
        if fences.len() >= 2 && !s.forced_fence_order(&fences, &mut before) {
            s.sc_fences = fences;
            return false;
        }
        // Most consistent graphs have an order the guess finds: one check rather than one per
        // fence the search places.
        let guessed = |s: &mut Scratch| {
            let order = s.guessed_fence_order(&fences, &before);
            order.len() == fences.len() && s.with_fence_order::<W>(&order, order.len(), &self.places)
        };
        let found = if fences.len() > 64 {
            let mut all = fences.clone();
            permutations(&mut all, 0, &mut |order| s.with_fence_order::<W>(order, order.len(), &self.places))
        } else if fences.len() >= 2 && guessed(s) {
            true
        } else if fences.len() >= 2 && !s.with_fence_order::<W>(&[], 0, &self.places) {
            // A Fence-SC order only adds edges (synchronizes-with between fences), and the axioms
            // only forbid edges: a graph inconsistent without them is inconsistent under every
            // order. (Checked only once the guess failed: most graphs judged are consistent.)
            false
        } else {
            let mut order = Vec::with_capacity(fences.len());
            linear_extensions(&fences, &before, 0, &mut order, &mut |order, placed| s.with_fence_order::<W>(order, placed, &self.places))
        };
        s.sc_fences = fences;
        found
    }
}

impl Ptx {
    /// §8.10.3 Atomicity read straight off `g`, before anything is built: whether some rmw has,
    /// between the write its read reads from and its own write in coherence order, a write
    /// morally strong with both halves. Most candidates the explorer rejects are such (an rmw's
    /// write placed anywhere in `co` but right after the write its read reads from, or two rmws
    /// reading one write). Holes, which have no place in `co` and read nothing, count for nothing.
    fn breaks_atomicity(&self, g: &ExecutionGraph) -> bool {
        g.co.iter().enumerate().any(|(l, ws)| {
            ws.iter().enumerate().any(|(p, &w)| {
                // Nothing sits between an rmw's write and the write right before it in `co`.
                let before = if p == 0 { EventId::init(l as crate::program::label::LocId) } else { ws[p - 1] };
                let right_after = w.index > 0 && g.event(EventId { thread: w.thread, index: w.index - 1 }).rf == Some(before);
                !right_after && self.rmw_breaks_atomicity(g, w)
            })
        })
    }

    /// Atomicity for one event `w` of `g`: whether it is the write half of an rmw with, between
    /// the write its read reads from and `w` in coherence order, a write morally strong with both
    /// halves.
    fn rmw_breaks_atomicity(&self, g: &ExecutionGraph, w: EventId) -> bool {
        let (t, i) = (w.thread as usize, w.index as usize);
        if i == 0 {
            return false;
        }
        let evs = &g.threads[t];
        let (e, read) = (&evs[i], &evs[i - 1]);
        if !e.label.rmw_write || read.label.loc != e.label.loc {
            return false;
        }
        let Some(src) = read.rf else { return false };
        let ws = &g.co[e.label.loc as usize];
        // The writes after `src` start at index `after` of `ws` (which leaves out the initial
        // write); those before `w` end at its index.
        let after = if src.is_init() {
            0
        } else {
            match ws.iter().position(|&x| x == src) {
                Some(p) => p + 1,
                None => return false,
            }
        };
        let r = EventId::new(t, i - 1);
        let Some(end) = ws.iter().position(|&x| x == w) else { return false };
        ws.get(after..end).unwrap_or_default().iter().any(|&x| {
            let lx = g.label(x);
            self.morally_strong(g, (r, &read.label), (x, lx)) && self.morally_strong(g, (w, &e.label), (x, lx))
        })
    }

    /// For a sink read `a` of `src`, a write with later writes in `co` (`fr` edges out of `a`):
    /// whether no cycle goes through `a` all the same.
    /// - Causality (§8.10.6) needs a write causality-before `a`. Causality order ends, at `a`, in
    ///   proxy-preserved base causality from a memory operation of `a`'s location (§8.9.5); with
    ///   no synchronisation into `a`'s thread up to `a` (no acquire read or fence, barrier or
    ///   `fence.sc` before it, `a` not acquire), base causality into `a` is program order, and
    ///   no earlier event of the thread accesses `a`'s location.
    /// - SC per location (§8.10.5): then the only edge into `a` is `rf` from `src` (morally
    ///   strong), and every morally strong `fr` edge out of `a` reaches a write `w` that `src`
    ///   precedes in `co` — an edge of the axiom too when the two are morally strong, so a path
    ///   from `w` back to `src` would be a cycle without `a`. (The initial write has no edge
    ///   into it.)
    fn read_closes_nothing(&self, g: &ExecutionGraph, a: EventId, src: EventId) -> bool {
        let (t, la) = (a.thread as usize, g.label(a));
        let synchronised = |l: &Label| (l.acquire && (l.is_read() || l.is_fence())) || l.is_barrier() || (l.is_fence() && l.sc);
        if la.acquire
            || g.threads[t][..a.index as usize].iter().any(|e| synchronised(&e.label) || (e.label.is_access() && e.label.loc == la.loc))
        {
            return false;
        }
        if src.is_init() || !self.morally_strong(g, (src, g.label(src)), (a, la)) {
            return true;
        }
        let ls = g.label(src);
        g.writes_to(la.loc).skip_while(|&x| x != src).skip(1).all(|w| {
            let lw = g.label(w);
            !self.morally_strong(g, (a, la), (w, lw)) || self.morally_strong(g, (src, ls), (w, lw))
        })
    }

    /// §8.7 Morally strong for two distinct events of `g`'s threads (with their labels), as
    /// [`Scratch`] builds it: same proxy, the same virtual address for two memory operations, and
    /// related in program order — which does not relate the perform of an asynchronous tcgen05
    /// operation to the other events of its thread ([`crate::model::tcgen05::Facts::restrict`])
    /// — or both strong, each one's scope including the other's thread; or two accesses to one
    /// synchronization object's state ([`Label::object`]).
    fn morally_strong(&self, g: &ExecutionGraph, (a, la): (EventId, &Label), (b, lb): (EventId, &Label)) -> bool {
        if la.proxy != lb.proxy || (la.is_access() && lb.is_access() && la.vloc != lb.vloc) {
            return false;
        }
        if la.object && lb.object {
            // Two accesses to one synchronization object's state, whatever their scopes
            // ([`Label::object`]).
            return true;
        }
        let (ta, tb) = (a.thread as usize, b.thread as usize);
        if ta == tb && (!(la.is_async() || lb.is_async()) || same_instruction(&g.threads[ta], a.index, b.index)) {
            // Two strong operations of one thread are morally strong anyway (each one's scope
            // includes its own thread): only weak ones need the bulk-copy lookup.
            if la.strong && lb.strong {
                return true;
            }
            let evs = &g.threads[ta];
            let copies = crate::program::sync::bulk_copy_spans(evs.len(), |i| evs[i].label);
            if !crate::program::sync::bulk_copy_unordered(&copies, a.index as usize, b.index as usize) {
                return true;
            }
        }
        let (pa, pb) = (&self.places[ta], &self.places[tb]);
        la.strong && lb.strong && pa.scope_includes(la.scope, pb) && pb.scope_includes(lb.scope, pa)
    }
}

/// Whether a tcgen05 rule may order an event of another thread before `a` through `a`'s
/// thread (module docs of [`crate::model::tcgen05`]): some event of the thread up to `a` is a
/// tcgen05 event (a fence, wait or operation the rules order after others) or reads one (a
/// commit's arrive, whose tracked operations perform before the read: rule 7).
fn tcgen05_reaches(g: &ExecutionGraph, a: EventId) -> bool {
    g.threads[a.thread as usize][..=a.index as usize]
        .iter()
        .any(|e| e.label.tc.is_some() || (e.label.is_read() && e.rf.is_some_and(|w| !w.is_init() && g.label(w).tc.is_some())))
}

impl Ptx {
    /// [`MemoryModel::races`] read off `g` (consistent, complete).
    fn races_judged(&self, g: &ExecutionGraph) -> Vec<(EventId, EventId)> {
        // The explorer asks about the graph it has just found consistent: its causality order is
        // still in the scratch space.
        let mut s = self.scratch();
        if s.consistent && s.holds(g) {
            return s.races();
        }
        // It may not be (the last event came in through `sink_extension` or a quick test). Most
        // graphs have no conflicting pair that is not morally strong: read off the graph where
        // every access is plainly so, else from morally strong as built.
        if self.no_weak_conflict(g) {
            return Vec::new();
        }
        s.consistent = false;
        s.load_facts(g);
        s.build::<0>(g);
        s.build_ms::<0>(&self.compat);
        if !s.weak_conflict() {
            return Vec::new();
        }
        if !self.breaks_atomicity(g) && self.evaluate(g, &mut s) { s.races() } else { Vec::new() }
    }
}

/// Whether the only synchronising instructions of `prog` are `fence.sc` (no other fence, no
/// acquire or release access): then its base causality goes through them alone (§8.9.5).
fn fence_sc_sync_only(prog: &CompiledProgram) -> bool {
    use crate::program::Op;
    let ordinary = |l: &Label| !l.acquire && !l.release;
    prog.threads.iter().flat_map(|t| &t.code).all(|l| match &l.op {
        Op::Fence { label } => label.sc,
        Op::Load { label, .. } | Op::Store { label, .. } => ordinary(label),
        Op::Rmw { read, write, .. } => ordinary(read) && ordinary(write),
        _ => true,
    })
}

/// Whether program order orders an access with the other accesses of its thread to its virtual
/// address, both labelled `l` (§8.7: related in program order, so morally strong): generic ones,
/// not the asynchronous operations that program order does not always order (tcgen05, bulk
/// copies and their completion).
fn po_orders(l: &Label) -> bool {
    l.proxy == Proxy::Generic && l.tc.is_none() && l.bulk_copy == 0
}

/// Whether events `i` and `j` of a thread's events belong to one instruction: every event after
/// the first of them, up to the second, continues a tcgen05 instruction (as
/// [`crate::model::tcgen05::Facts::load`] groups them).
fn same_instruction(evs: &[Event], i: u32, j: u32) -> bool {
    let (lo, hi) = (i.min(j) as usize, i.max(j) as usize);
    evs[lo + 1..=hi].iter().all(|e| e.label.tc.is_some_and(|t| !t.first))
}

#[cfg(test)]
impl Ptx {
    /// Program order, morally strong and the tcgen05 ordering edges of `g` as the scratch space
    /// builds them (rows of any width), consistent or not: for the tests against `reference`.
    fn relations(&self, g: &ExecutionGraph) -> [crate::exec::bitset::Relation; 3] {
        let mut s = self.scratch();
        s.consistent = false;
        s.load_facts(g);
        s.build::<0>(g);
        s.build_ms::<0>(&self.compat);
        s.add_sync::<0>();
        s.relations()
    }
}

/// Calls `f` on each order of `items` in which item `i` comes after the items of bit mask
/// `before[i]` (`placed`: those already in `order`), until it returns true; returns whether it
/// did. At most 64 items: more `fence.sc` than that in one execution is beyond any litmus test.
///
/// `f` is called on prefixes too, as `(list, placed)`: the first `placed` fences of `list` in
/// order, each before every fence after it, and those after unordered. A prefix it rejects is not
/// extended: every axiom only forbids edges, and a Fence-SC order that starts with the prefix has
/// all of those edges, so an execution inconsistent under the prefix is inconsistent under every
/// order that starts with it. (The edges from the prefix to the rest are what make a wrong first
/// choice fail at once rather than after the rest is placed.)
fn linear_extensions(
    items: &[usize],
    before: &[u64],
    placed: u64,
    order: &mut Vec<usize>,
    f: &mut dyn FnMut(&[usize], usize) -> bool,
) -> bool {
    let k = order.len();
    if k == items.len() {
        return f(order, k);
    }
    let rest = |order: &mut Vec<usize>| order.extend(items.iter().enumerate().filter(|&(i, _)| placed & 1 << i == 0).map(|(_, &x)| x));
    if k + 1 == items.len() {
        // One left: the order is complete.
        rest(order);
        let ok = f(order, k + 1);
        order.truncate(k);
        return ok;
    }
    if k > 0 {
        rest(order);
        let ok = f(order, k);
        order.truncate(k);
        if !ok {
            return false;
        }
    }
    for (i, &item) in items.iter().enumerate() {
        if placed & 1 << i != 0 || before[i] & !placed != 0 {
            continue;
        }
        order.push(item);
        let done = linear_extensions(items, before, placed | 1 << i, order, f);
        order.pop();
        if done {
            return true;
        }
    }
    false
}

/// Calls `f` on each permutation of `items[k..]` until it returns true; returns whether it did.
fn permutations(items: &mut Vec<usize>, k: usize, f: &mut dyn FnMut(&[usize]) -> bool) -> bool {
    if k + 1 >= items.len() {
        return f(items);
    }
    for i in k..items.len() {
        items.swap(k, i);
        let done = permutations(items, k + 1, f);
        items.swap(k, i);
        if done {
            return true;
        }
    }
    false
}

impl MemoryModel for Ptx {
    fn kind(&self) -> ModelKind {
        ModelKind::Ptx
    }

    fn is_consistent(&self, g: &ExecutionGraph) -> bool {
        self.judge(g)
    }

    fn quick_verdict(&self, g: &ExecutionGraph) -> Option<bool> {
        self.quick(g)
    }

    fn races(&self, g: &ExecutionGraph) -> Vec<(EventId, EventId)> {
        // Most programs have no access that could race at all (every access strong, the scopes
        // of each location's accesses all including each other): then no graph needs a look.
        if self.race_free_program {
            debug_assert!(self.races_judged(g).is_empty(), "[tcfuzz internal bug] a race in a program found race-free");
            return Vec::new();
        }
        self.races_judged(g)
    }

    /// §8.10 data race: conflicting, not morally strong ([`Ptx::morally_strong`], as the scratch
    /// space builds it), in node order (thread by thread, in program order).
    fn every_race_candidate(&self, g: &ExecutionGraph, known: &mut dyn FnMut(EventId, EventId) -> bool) -> Option<bool> {
        if self.race_free_program {
            return Some(true);
        }
        Some(crate::model::every_conflict(g, |x, y| self.morally_strong(g, (x, g.label(x)), (y, g.label(y))), known))
    }

    fn allows_porf_cycles(&self) -> bool {
        true
    }

    /// Not after a later write of its thread to its virtual address, both generic and ordered
    /// by program order (§8.10.5 SC per location, as for [`MemoryModel::co_floor`]). For an
    /// rmw's write, not after a write `s` that is `co`-after the write the read half reads from
    /// and morally strong with both halves: `s` would sit between the two (§8.10.3 Atomicity).
    fn may_follow(&self, g: &ExecutionGraph, w: EventId, s: EventId) -> bool {
        let (lw, ls) = (g.label(w), g.label(s));
        if s.thread == w.thread && s.index > w.index && po_orders(lw) && po_orders(ls) && lw.vloc == ls.vloc {
            return false;
        }
        let Some((src, r)) = crate::model::sc::rmw_source(g, w) else { return true };
        let after_src = matches!((g.co_position(s), g.co_position(src)), (Some(ps), Some(pr)) if ps > pr);
        let ls = g.label(s);
        !(after_src && self.morally_strong(g, (r, g.label(r)), (s, ls)) && self.morally_strong(g, (w, g.label(w)), (s, ls)))
    }

    /// Every relation of the model leaves an event through a later event of its thread, a read of
    /// it, a later write in `co`, or `fr` (`model::plain_sink`), except Fence-SC order (§8.9.3,
    /// which relates a `fence.sc` to the other `fence.sc` either way) and barriers (§9.7.13.1);
    /// a sink rmw write still answers to Atomicity (§8.10.3). With a sink added, the Fence-SC
    /// order that made `g` without it consistent still works; a sink `fence.sc` goes last in it,
    /// where it orders nothing before anything (it synchronizes with no later fence, and nothing
    /// follows it in its thread), and no causality order leads out of it for the Fence-SC axiom
    /// to contradict.
    ///
    /// The tcgen05 rules ([`crate::model::tcgen05`], §9.7.16.6) keep that: each of their edges
    /// leads from an event to one issued after it in some thread (a pipelined pair, a
    /// completion, a fence or wait and what follows it), or to a read observing a commit's arrive,
    /// passing between threads only through execution order, which leaves an event through a
    /// later event of its thread or a read of it. A sink has neither. They add edges *into* a
    /// sink, though, which [`Ptx::read_closes_nothing`] does not look for: a sink read with `fr`
    /// edges out is left to the full check where its thread, up to it, holds a tcgen05 event or a
    /// read of one ([`tcgen05_reaches`]).
    fn sink_extension(&self, g: &ExecutionGraph, a: EventId) -> Option<bool> {
        let tc = !self.plain_program && g.threads.iter().flatten().any(|e| e.label.tc.is_some());
        crate::model::plain_sink(
            g,
            a,
            || !self.rmw_breaks_atomicity(g, a),
            |src| !(tc && tcgen05_reaches(g, a)) && (self.read_closes_nothing(g, a, src) || self.sink_read_closes_nothing(g, a, src)),
        )
    }

    fn revisit_forbidden(&self, g: &ExecutionGraph, a: EventId, r: EventId, kept: &dyn Fn(EventId) -> bool) -> bool {
        self.fenced_cycle(g, a, r, kept)
    }

    fn source_ruled_out(&self, g: &ExecutionGraph, e: EventId, s: EventId, kept: &dyn Fn(EventId) -> bool) -> bool {
        self.own_thread_rules_out(g, e, s, kept)
    }

    /// For a generic access: not before the generic writes of its virtual address before it in
    /// program order, morally strong with it (§8.7, related in program order), so that an
    /// earlier place (a write) or source (a read) would close a cycle of `po` and `co` or `fr`
    /// that SC per location forbids (§8.10.5); nor before the writes its thread's earlier reads
    /// of that address read ([`Ptx::floor_after_own_reads`], the same axiom). (The asynchronous
    /// operations, which program order does not always order — tcgen05, bulk copies and their
    /// completion — are left out.) Where `e` is appended to its thread, not before the writes
    /// that precede it in causality order under every Fence-SC order either (Coherence,
    /// Causality): read off the pairs every order must have ([`Ptx::forced_fence_floor`]), then,
    /// unless `fence.sc` is the program's only synchronisation, from base causality
    /// ([`Ptx::causal_floor`]).
    fn co_floor(&self, g: &ExecutionGraph, e: EventId, l: &Label) -> usize {
        if !po_orders(l) {
            return 0;
        }
        let own = crate::model::co_floor_after_own_writes(g, e, l.loc, |x| po_orders(x) && x.vloc == l.vloc);
        let read_off = self.floor_after_own_reads(g, e, l, own);
        let floor = match self.forced_fence_floor(g, e, l, read_off) {
            // Where `fence.sc` is the only synchronisation, the causal floor, which loads the
            // whole graph, finds little more than the read-off one: what only chains through
            // rmws or longer paths of base causality give (on `szymanski`, nothing more, for a
            // third of the time).
            Some(floor) if self.fence_sc_sync_only => floor,
            Some(floor) => self.causal_floor(g, e, l, floor),
            None => self.causal_floor(g, e, l, read_off),
        };
        debug_assert!(self.below_floor_inconsistent(g, e, l, own, floor), "[tcfuzz internal bug] co_floor ruled out a consistent choice");
        floor
    }

    /// For a generic write: not after the generic writes of its virtual address after it in
    /// program order (SC per location, §8.10.5: program order and `co` between two accesses of
    /// one thread, morally strong, as for [`MemoryModel::co_floor`]).
    fn co_ceiling(&self, g: &ExecutionGraph, e: EventId, l: &Label) -> usize {
        if !po_orders(l) || !l.is_write() {
            return usize::MAX;
        }
        crate::model::co_ceiling_before_own_writes(g, e, l.loc, |x| po_orders(x) && x.vloc == l.vloc)
    }

    /// Right after the write the rmw reads from, when every write of the location is morally
    /// strong with both halves of the rmw (§8.7): a later position puts a morally strong write
    /// between the two, which Atomicity forbids (§8.10.3); an earlier one puts the rmw's write
    /// before the write its read reads from, a cycle of `co`, `rf` and `po` between morally strong
    /// accesses of one location, which SC per location forbids (§8.10.5; program order relates
    /// the two halves of an asynchronous tcgen05 rmw only within one instruction). Not in a graph
    /// with holes (the judged graph leaves some writes out).
    fn rmw_co_position(&self, g: &ExecutionGraph, w: EventId) -> Option<usize> {
        let (src, r) = crate::model::sc::rmw_source(g, w)?;
        if g.has_holes() {
            return None;
        }
        let (lr, lw) = (g.label(r), g.label(w));
        if (lr.is_async() || lw.is_async()) && !same_instruction(&g.threads[w.thread as usize], r.index, w.index) {
            return None;
        }
        let all_ms = g.co[lw.loc as usize].iter().all(|&x| {
            let lx = g.label(x);
            self.morally_strong(g, (r, lr), (x, lx)) && self.morally_strong(g, (w, lw), (x, lx))
        });
        if !all_ms {
            return None;
        }
        g.co_position(src)
    }
}
