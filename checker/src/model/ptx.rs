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
//!   what makes two executions different). They are enumerated as permutations of the execution's
//!   `fence.sc` events: fine for litmus tests, factorial beyond half a dozen fences.
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
//! they are synchronization objects ([`crate::sync`]) whose arrives are release RMWs and whose
//! waits are acquire reads of the object's location, so the release/acquire patterns, observation
//! order through the arrive RMWs and the scopes above give their memory effect (relaxed ones
//! synchronize execution only).
//!
//! Not modelled yet: the async proxy (`fence.proxy.async`; bulk copies are approximated as
//! generic accesses, see [`crate::sync`]);
//! mixed-size accesses (every access here covers its whole location).

use crate::bitset::Relation;
use crate::event::{EventId, Label, Proxy};
use crate::graph::{ExecutionGraph, NodeIndex};
use crate::model::{MemoryModel, ModelKind};
use crate::program::{CompiledProgram, ThreadPlace};

#[derive(Clone, Debug)]
pub struct Ptx {
    places: Vec<ThreadPlace>,
}

impl Ptx {
    pub fn new(program: &CompiledProgram) -> Self {
        Ptx { places: program.places.clone() }
    }
}

/// Per-node facts of one graph.
struct Nodes {
    idx: NodeIndex,
    /// `None` for initial writes.
    labels: Vec<Option<Label>>,
    /// The graph has `tcgen05` events ([`super::tcgen05`]).
    tc: bool,
    /// With `tc`: per node, its instruction ([`super::tcgen05::instruction_ids`]).
    instr: Vec<usize>,
}

impl Nodes {
    fn new(g: &ExecutionGraph) -> Self {
        let idx = g.node_index();
        let labels = (0..idx.len()).map(|n| {
            let e = idx.id(n);
            (!e.is_init()).then(|| *g.label(e))
        });
        let labels: Vec<Option<Label>> = labels.collect();
        let tc = labels.iter().any(|l| l.is_some_and(|l| l.tc.is_some()));
        let instr = if tc {
            let threads: Vec<Option<usize>> = (0..idx.len()).map(|n| (!idx.id(n).is_init()).then(|| idx.id(n).thread as usize)).collect();
            super::tcgen05::instruction_ids(&labels, &threads)
        } else {
            Vec::new()
        };
        Nodes { labels, idx, tc, instr }
    }
    /// Whether `a` and `b` are events of one asynchronous tcgen05 operation's perform, or one of
    /// them is and they belong to different instructions (then program order does not relate
    /// them, §9.7.16.6.1).
    fn unordered_async(&self, a: usize, b: usize) -> bool {
        let is_async = |n: usize| self.labels[n].is_some_and(|l| l.is_async());
        self.tc && (is_async(a) || is_async(b)) && self.instr[a] != self.instr[b]
    }
    fn n(&self) -> usize {
        self.idx.len()
    }
    fn thread(&self, n: usize) -> Option<usize> {
        let e = self.idx.id(n);
        (!e.is_init()).then_some(e.thread as usize)
    }
    fn is_write(&self, n: usize) -> bool {
        self.labels[n].is_none_or(|l| l.is_write())
    }
    fn is_mem(&self, n: usize) -> bool {
        self.labels[n].is_none_or(|l| l.is_access())
    }
    fn is_fence(&self, n: usize) -> bool {
        self.labels[n].is_some_and(|l| l.is_fence())
    }
    fn proxy(&self, n: usize) -> Proxy {
        self.labels[n].map_or(Proxy::Generic, |l| l.proxy)
    }
    fn generic_mem(&self, n: usize) -> bool {
        self.is_mem(n) && self.proxy(n) == Proxy::Generic
    }
    /// The virtual address of a memory event.
    fn vloc(&self, n: usize) -> Option<u32> {
        match self.labels[n] {
            None => Some(self.idx.id(n).index),
            Some(l) if l.is_access() => Some(l.vloc),
            Some(_) => None,
        }
    }
    fn same_vloc(&self, a: usize, b: usize) -> bool {
        self.vloc(a).is_some() && self.vloc(a) == self.vloc(b)
    }
    fn same_loc(&self, a: usize, b: usize) -> bool {
        self.loc(a).is_some() && self.loc(a) == self.loc(b)
    }
    fn loc(&self, n: usize) -> Option<u32> {
        match self.labels[n] {
            None => Some(self.idx.id(n).index),
            Some(l) if l.is_access() => Some(l.loc),
            Some(_) => None,
        }
    }
}

/// The relations of one graph that do not depend on the Fence-SC order.
struct Base {
    nodes: Nodes,
    /// Program order; without the pairs of [`Nodes::unordered_async`] when there are tcgen05
    /// events (those are ordered by `tc` instead).
    po: Relation,
    /// Program order in full (for the tcgen05 rules that speak of issue order).
    po_issue: Relation,
    /// The tcgen05 ordering edges ([`super::tcgen05::ordering`]); empty without tcgen05 events.
    tc: Relation,
    rf: Relation,
    co: Relation,
    fr: Relation,
    rmw: Relation,
    /// Barrier synchronization (symmetric).
    sb: Relation,
    ms: Relation,
    obs: Relation,
    sw_ra: Relation,
    sc_fences: Vec<usize>,
}

impl Ptx {
    /// §8.6 Morally strong.
    fn morally_strong(&self, nodes: &Nodes, a: usize, b: usize) -> bool {
        if a == b {
            return false;
        }
        let (Some(la), Some(lb), Some(ta), Some(tb)) = (nodes.labels[a], nodes.labels[b], nodes.thread(a), nodes.thread(b)) else {
            return false;
        };
        // Same proxy; and memory operations overlap completely: same virtual address.
        if la.proxy != lb.proxy || (la.is_access() && lb.is_access() && la.vloc != lb.vloc) {
            return false;
        }
        // Program order makes two operations morally strong — not the perform of an asynchronous
        // tcgen05 operation, which program order does not relate to the thread's other events.
        if ta == tb && !nodes.unordered_async(a, b) {
            return true;
        }
        la.strong
            && lb.strong
            && self.places[ta].scope_includes(la.scope, &self.places[tb])
            && self.places[tb].scope_includes(lb.scope, &self.places[ta])
    }

    fn base(&self, g: &ExecutionGraph) -> Base {
        let nodes = Nodes::new(g);
        let n = nodes.n();
        let idx = &nodes.idx;
        let po_issue = g.po(idx);
        let po = if nodes.tc { super::tcgen05::restrict_program_order(&po_issue, &nodes.labels, &nodes.instr) } else { po_issue.clone() };
        let rf = g.rf(idx);
        let co = g.co(idx);
        let fr = g.fr(idx);
        let rmw = g.rmw(idx);
        let sb = g.sb(idx);
        let mut ms = Relation::empty(n);
        for a in 0..n {
            for b in 0..n {
                if self.morally_strong(&nodes, a, b) {
                    ms.add(a, b);
                }
            }
        }
        let sc_fences = (0..n).filter(|&x| nodes.labels[x].is_some_and(|l| l.is_fence() && l.sc)).collect();
        let empty = Relation::empty(n);
        Base { nodes, po, po_issue, tc: empty.clone(), rf, co, fr, rmw, sb, ms, obs: empty.clone(), sw_ra: empty, sc_fences }
    }

    /// Adds observation order and release/acquire synchronization to `b`.
    fn add_sync(&self, b: &mut Base) {
        let n = b.nodes.n();
        let (nodes, po, rf, rmw, ms) = (&b.nodes, &b.po, &b.rf, &b.rmw, &b.ms);
        // §8.9.2 Observation order: (ms ∩ rf) ; (rmw ; (ms ∩ rf))*.
        let rf_ms = rf.intersect(ms);
        let chain = rmw.compose(&rf_ms).closure();
        let obs = rf_ms.union(&rf_ms.compose(&chain));
        // §8.8 Release and acquire patterns.
        let lab = |x: usize| nodes.labels[x];
        let same_loc = |a: usize, b: usize| nodes.same_vloc(a, b);
        let mut rel = Relation::empty(n);
        let mut acq = Relation::empty(n);
        for h in 0..n {
            let Some(lh) = lab(h) else { continue };
            for t in 0..n {
                let Some(lt) = lab(t) else { continue };
                let po_ht = po.contains(h, t);
                let strong_write_t = lt.is_write() && lt.strong;
                let strong_read_h = lh.is_read() && lh.strong;
                if lh.is_write() && lh.release && strong_write_t && (h == t || (po_ht && same_loc(h, t))) {
                    rel.add(h, t);
                }
                if lh.is_fence() && lh.release && strong_write_t && po_ht {
                    rel.add(h, t);
                }
                if strong_read_h && lt.is_read() && lt.acquire && (h == t || (po_ht && same_loc(h, t))) {
                    acq.add(h, t);
                }
                if strong_read_h && lt.is_fence() && lt.acquire && po_ht {
                    acq.add(h, t);
                }
            }
        }
        // §8.9.4 Synchronizes-with (release/acquire part).
        let sw_ra = rel.compose(&obs).compose(&acq).intersect(ms);
        if nodes.tc {
            // §9.7.16.6.3: execution order — program order, observation of morally strong
            // writes (relaxed ones included), barriers and synchronizes-with.
            let eo = po.union(&obs).union(&b.sb).union(&sw_ra).closure();
            b.tc = super::tcgen05::ordering(&nodes.labels, &nodes.instr, &b.po_issue, &eo, &obs);
        }
        b.obs = obs;
        b.sw_ra = sw_ra;
    }

    /// Axioms that do not involve the Fence-SC order: Atomicity, No-Thin-Air, SC per location.
    fn static_axioms(&self, g: &ExecutionGraph, b: &Base) -> bool {
        let n = b.nodes.n();
        let idx = &b.nodes.idx;
        // §8.10.3 Atomicity.
        let bad = b.fr.intersect(&b.ms).compose(&b.co.intersect(&b.ms)).intersect(&b.rmw);
        if !bad.is_empty() {
            return false;
        }
        // §8.10.4 No-Thin-Air: acyclic(rf ∪ dep).
        let mut rf_dep = b.rf.clone();
        for e in g.event_ids() {
            let deps = g.event(e).deps;
            for j in 0..64 {
                if deps & (1 << j) != 0 && (j as u32) < e.index {
                    rf_dep.add(idx.node(EventId { thread: e.thread, index: j as u32 }), idx.node(e));
                }
            }
        }
        if !rf_dep.is_acyclic() {
            return false;
        }
        // §8.10.5 SC per location: acyclic(po-loc ∪ (ms ∩ (rf ∪ co ∪ fr))).
        let nodes = &b.nodes;
        let po_loc = b.po.filter(|x, y| nodes.loc(x).is_some() && nodes.loc(x) == nodes.loc(y));
        let com = b.rf.union(&b.co).union(&b.fr).intersect(&b.ms);
        debug_assert_eq!(po_loc.len(), n);
        po_loc.union(&com).is_acyclic()
    }

    /// Checks the axioms that involve causality under one Fence-SC order (`order` lists the SC
    /// fences, earliest first); returns causality order when they hold.
    fn with_fence_order(&self, b: &Base, order: &[usize]) -> Option<Relation> {
        let n = b.nodes.n();
        // A cta_group::2 allocator rendezvous is a barrier event too: the two warps meet there
        // (which also keeps a deadlock through it from looking consistent).
        let mut sw = b.sw_ra.union(&b.sb).union(&b.tc);
        for i in 0..order.len() {
            for j in i + 1..order.len() {
                if b.ms.contains(order[i], order[j]) {
                    sw.add(order[i], order[j]);
                }
            }
        }
        // §8.9.5 base causality order and causality order. Between memory operations causality
        // goes through proxy-preserved base causality; between fences (Fence-SC) it is base
        // causality itself.
        let base = b.po.union(&sw).closure();
        let fence_cause = base.union(&b.obs.compose(&base));
        let ppcb = self.proxy_preserved(b, &base);
        let cause = ppcb.union(&b.obs.compose(&ppcb));
        let nodes = &b.nodes;
        for (x, y) in cause.pairs() {
            // §8.10.1 Coherence.
            if nodes.is_write(x) && nodes.is_write(y) && nodes.loc(x) == nodes.loc(y) && !b.co.contains(x, y) {
                return None;
            }
        }
        // §8.10.2 Fence-SC: no morally strong pair ordered one way by causality and the other
        // way by Fence-SC order.
        for i in 0..order.len() {
            for j in i + 1..order.len() {
                if b.ms.contains(order[i], order[j]) && fence_cause.contains(order[j], order[i]) {
                    return None;
                }
            }
        }
        // §8.10.6 Causality: irreflexive((rf ∪ fr) ; cause), with fr = rf⁻¹ ; co over the
        // *coherence order* of §8.9.6, which only relates overlapping writes that are morally
        // strong or related in causality order ("two overlapping writes are unrelated in coherence
        // order if they are in a data-race"). The graph's per-location order is total; the pairs
        // of racing writes in it are not coherence edges. (The initial write precedes every write.)
        let co = b.co.filter(|x, y| nodes.labels[x].is_none() || b.ms.contains(x, y) || cause.contains(x, y));
        let fr = b.rf.inverse().compose(&co);
        for (x, y) in b.rf.union(&fr).pairs() {
            if cause.contains(y, x) {
                return None;
            }
        }
        debug_assert_eq!(cause.len(), n);
        Some(cause)
    }

    /// §8.9.5 proxy-preserved base causality order (generic proxy, other proxies, proxy fences and
    /// the alias fence), following the disjuncts of Dat3M's `ptx-v7.5.cat` / mixedproxy:
    /// generic → generic on the same virtual address; same non-generic proxy, same CTA, same
    /// virtual address; through a proxy fence of the first operation's proxy in its CTA (`A`)
    /// and/or of the last operation's (`B`); and on the same physical location through a
    /// `fence.proxy.alias` on the way.
    fn proxy_preserved(&self, b: &Base, cb: &Relation) -> Relation {
        let nodes = &b.nodes;
        // Generic proxy only, no alias fence: every other disjunct below goes through a generic
        // fence and is implied, by transitivity of `cb`, by the first.
        if nodes.labels.iter().flatten().all(|l| l.proxy == Proxy::Generic && !l.alias_fence) {
            return cb.filter(|x, y| nodes.is_mem(x) && nodes.is_mem(y) && nodes.same_vloc(x, y));
        }
        let same_cta = |x: usize, y: usize| match (nodes.thread(x), nodes.thread(y)) {
            (Some(tx), Some(ty)) => {
                let (px, py) = (&self.places[tx], &self.places[ty]);
                px.gpu == py.gpu && px.cta == py.cta
            }
            _ => false,
        };
        // pfo(F, X): a fence and a memory operation of the same proxy in the same CTA.
        let pfo = |f: usize, x: usize| nodes.is_fence(f) && nodes.is_mem(x) && nodes.proxy(f) == nodes.proxy(x) && same_cta(f, x);
        let a = cb.filter(|x, f| pfo(f, x));
        let bb = cb.filter(pfo);
        let g = |x: usize| nodes.generic_mem(x);
        let mut r = cb.filter(|x, y| {
            (g(x) && g(y) && nodes.same_vloc(x, y))
                || (nodes.is_mem(x) && nodes.is_mem(y) && nodes.proxy(x) == nodes.proxy(y) && same_cta(x, y) && nodes.same_vloc(x, y))
        });
        let a_cb = a.compose(cb);
        r.union_with(&a_cb.filter(|x, y| g(y) && nodes.same_vloc(x, y)));
        r.union_with(&cb.compose(&bb).filter(|x, y| g(x) && nodes.same_vloc(x, y)));
        r.union_with(&a_cb.compose(&bb).filter(|x, y| nodes.same_vloc(x, y)));
        let to_alias_fence = cb.filter(|_, f| nodes.labels[f].is_some_and(|l| l.alias_fence));
        if !to_alias_fence.is_empty() {
            let via = to_alias_fence.compose(cb);
            r.union_with(&via.filter(|x, y| g(x) && g(y) && nodes.same_loc(x, y)));
            let a_via = a.compose(&via);
            r.union_with(&a_via.filter(|x, y| g(y) && nodes.same_loc(x, y)));
            r.union_with(&via.compose(&bb).filter(|x, y| g(x) && nodes.same_loc(x, y)));
            r.union_with(&a_via.compose(&bb).filter(|x, y| nodes.same_loc(x, y)));
        }
        r
    }

    /// Causality order of a consistent graph (under the first Fence-SC order that works), or
    /// `None` when the graph is inconsistent.
    fn evaluate(&self, g: &ExecutionGraph) -> Option<(Base, Relation)> {
        let mut b = self.base(g);
        if !self.static_axioms(g, &b) {
            return None;
        }
        self.add_sync(&mut b);
        let mut fences = b.sc_fences.clone();
        let mut found = None;
        permutations(&mut fences, 0, &mut |order| {
            found = self.with_fence_order(&b, order);
            found.is_some()
        });
        found.map(|c| (b, c))
    }
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
        self.evaluate(g).is_some()
    }

    fn races(&self, g: &ExecutionGraph) -> Vec<(EventId, EventId)> {
        let Some((b, cause)) = self.evaluate(g) else { return Vec::new() };
        let nodes = &b.nodes;
        let mut out = Vec::new();
        for x in 0..nodes.n() {
            for y in x + 1..nodes.n() {
                let (Some(lx), Some(ly)) = (nodes.labels[x], nodes.labels[y]) else { continue };
                let conflict = lx.is_access() && ly.is_access() && lx.loc == ly.loc && (lx.is_write() || ly.is_write());
                if conflict && !b.ms.contains(x, y) && !cause.contains(x, y) && !cause.contains(y, x) {
                    out.push((nodes.idx.id(x), nodes.idx.id(y)));
                }
            }
        }
        out
    }

    fn allows_porf_cycles(&self) -> bool {
        true
    }
}
