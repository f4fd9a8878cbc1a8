//! The relations of one graph, row by row, and the axioms over them: the scratch space of
//! [`super::Ptx`] (module docs of [`super`] for the rules; "How it is computed" there for the
//! representation).

use super::{PROXIES, SCOPES, proxy_index, scope_index};
use crate::exec::bitset::row::{bits, has, is_zero, or_into, set, set_range, union_of_rows, unset, width};
use crate::exec::bitset::{OrderScratch, Relation};
use crate::exec::event::EventId;
use crate::exec::graph::ExecutionGraph;
use crate::model::tcgen05 as tc;
use crate::program::ThreadPlace;
use crate::program::label::{Label, Proxy};

mod fence_order;
mod proxy;

/// No node (`rf` of a non-read, thread of an initial write).
const NONE: u32 = u32::MAX;

/// Fixed slots of [`Scratch::masks`]; per-proxy, per-thread, per-location and per-virtual-address
/// masks follow them.
const INIT: usize = 0;
/// Writes, initial writes included.
const WRITE: usize = 1;
/// Memory operations: reads, writes, initial writes.
const MEM: usize = 2;
/// Reads and writes of threads.
const ACCESS: usize = 3;
const STRONG_WRITE: usize = 4;
const ACQUIRE_READ: usize = 5;
const ACQUIRE_FENCE: usize = 6;
const STRONG: usize = 7;
const FENCE: usize = 8;
/// `fence.proxy.alias`.
const ALIAS_FENCE: usize = 9;
/// Accesses to the state of a synchronization object ([`Label::object`]).
const OBJECT: usize = 10;
const FIXED_MASKS: usize = 11;

/// The facts and relations of the graph being judged, and the scratch space to compute them.
#[derive(Default)]
pub(super) struct Scratch {
    /// Nodes, words per row, locations (the first `nlocs` nodes are their initial writes).
    n: usize,
    pub(super) w: usize,
    nlocs: usize,
    /// Strong-operation classes of the program (see [`super::Ptx::compat`]).
    pub(super) classes: usize,
    pub(super) class_words: usize,
    /// Per thread its first node, and the number of nodes last.
    offsets: Vec<usize>,
    /// The bulk copies of the graph, as node ranges (`sync::bulk_copy_spans`).
    copies: Vec<(usize, usize)>,
    /// Per node: its label (`None` for initial writes), thread ([`NONE`] for initial writes),
    /// the node it reads from ([`NONE`] for non-reads) and its dependencies (bit `j`: the `j`-th
    /// event of its thread).
    labels: Vec<Option<Label>>,
    thread: Vec<u32>,
    rf_src: Vec<u32>,
    deps: Vec<u64>,
    /// Per location, its writes in coherence order, the initial write first:
    /// `co_order[co_start[l]..co_start[l + 1]]`.
    co_order: Vec<u32>,
    co_start: Vec<usize>,
    barrier_members: Vec<u64>,
    barrier_dyn_members: Vec<u64>,
    pub(super) sc_fences: Vec<usize>,
    /// The graph has `tcgen05` events; then `tc_facts` holds what their rules need.
    tc: bool,
    tc_facts: tc::Facts,
    /// Every event goes through the generic proxy and none is an alias fence.
    generic_only: bool,
    has_barriers: bool,
    /// Whether some node accesses a synchronization object's state ([`Label::object`]).
    has_objects: bool,
    /// Node bitsets of `w` words: the fixed slots, then per proxy, per thread, per location, per
    /// virtual address.
    masks: Vec<u64>,
    thread_masks: usize,
    loc_masks: usize,
    vloc_masks: usize,
    /// Per strong-operation class, its nodes; then per class, the nodes of the classes it is
    /// compatible with; the classes present (as a list and as a bitset over classes).
    class_nodes: Vec<u64>,
    class_partners: Vec<u64>,
    present_classes: Vec<usize>,
    present: Vec<u64>,
    po: Relation,
    /// With tcgen05 events: program order in full (`po` leaves out the pairs that
    /// [`tc::Facts::restrict`] takes out).
    po_issue: Relation,
    rf: Relation,
    co: Relation,
    rmw: Relation,
    sb: Relation,
    ms: Relation,
    rf_ms: Relation,
    chain: Relation,
    obs: Relation,
    rel: Relation,
    acq: Relation,
    sw_ra: Relation,
    /// With tcgen05 events: execution order (§9.7.16.6.3) and their ordering edges.
    eo: Relation,
    tc_order: Relation,
    base: Relation,
    /// Proxy-preserved base causality, and the scratch space of [`Scratch::proxy_preserved`]:
    /// from each proxy fence to the later memory operations of its proxy and CTA, per thread
    /// the nodes of its CTA, and rows.
    ppcb: Relation,
    fence_to_op: Relation,
    cta_masks: Vec<u64>,
    mixed: Vec<u64>,
    rows: Vec<u64>,
    cause: Relation,
    tmp: Relation,
    order: OrderScratch,
    row: Vec<u64>,
    row2: Vec<u64>,
    /// The last graph loaded was consistent, and `cause` is its causality order.
    pub(super) consistent: bool,
}

impl Scratch {
    fn mask(&self, k: usize) -> &[u64] {
        &self.masks[k * self.w..(k + 1) * self.w]
    }

    fn node_of(&self, e: EventId) -> usize {
        if e.is_init() { e.index as usize } else { self.offsets[e.thread as usize] + e.index as usize }
    }

    fn id_of(&self, x: usize) -> EventId {
        match self.thread[x] {
            NONE => EventId::init(x as u32),
            t => EventId::new(t as usize, x - self.offsets[t as usize]),
        }
    }

    /// Reads `g`'s events, `rf` and `co` into the per-node facts.
    pub(super) fn load_facts(&mut self, g: &ExecutionGraph) {
        let nlocs = g.init.len();
        self.nlocs = nlocs;
        self.offsets.clear();
        let mut n = nlocs;
        for evs in &g.threads {
            self.offsets.push(n);
            n += evs.len();
        }
        self.offsets.push(n);
        self.n = n;
        self.w = n.div_ceil(64).max(1);
        self.labels.clear();
        self.thread.clear();
        self.rf_src.clear();
        self.deps.clear();
        self.labels.resize(nlocs, None);
        self.thread.resize(nlocs, NONE);
        self.rf_src.resize(nlocs, NONE);
        self.deps.resize(nlocs, 0);
        for (t, evs) in g.threads.iter().enumerate() {
            for e in evs {
                self.labels.push(Some(e.label));
                self.thread.push(t as u32);
                let src = e.rf.map_or(NONE, |w| self.node_of(w) as u32);
                self.rf_src.push(src);
                self.deps.push(e.deps);
            }
        }
        self.co_order.clear();
        self.co_start.clear();
        for (l, ws) in g.co.iter().enumerate() {
            self.co_start.push(self.co_order.len());
            self.co_order.push(l as u32);
            for &w in ws {
                let x = self.node_of(w) as u32;
                self.co_order.push(x);
            }
        }
        self.co_start.push(self.co_order.len());
        self.barrier_members.clone_from(&g.barrier_members);
        self.barrier_dyn_members.clone_from(&g.barrier_dyn_members);
    }

    /// Whether `g` is the graph whose facts are loaded: same events (labels, `rf`, dependencies),
    /// same `co`, same barriers — everything the model reads.
    pub(super) fn holds(&self, g: &ExecutionGraph) -> bool {
        if g.init.len() != self.nlocs
            || g.co.len() + 1 != self.co_start.len()
            || g.threads.len() + 1 != self.offsets.len()
            || g.barrier_members != self.barrier_members
            || g.barrier_dyn_members != self.barrier_dyn_members
        {
            return false;
        }
        for (t, evs) in g.threads.iter().enumerate() {
            let first = self.offsets[t];
            if self.offsets[t + 1] - first != evs.len() {
                return false;
            }
            for (i, e) in evs.iter().enumerate() {
                let x = first + i;
                let src = e.rf.map_or(NONE, |w| self.node_of(w) as u32);
                if self.labels[x] != Some(e.label) || self.rf_src[x] != src || self.deps[x] != e.deps {
                    return false;
                }
            }
        }
        for (l, ws) in g.co.iter().enumerate() {
            let order = &self.co_order[self.co_start[l] + 1..self.co_start[l + 1]];
            if order.len() != ws.len() || ws.iter().zip(order).any(|(&w, &x)| self.node_of(w) != x as usize) {
                return false;
            }
        }
        true
    }

    /// The per-node masks, the strong-operation classes present, and `po`, `rf`, `co`, `rmw`,
    /// `sb`.
    pub(super) fn build<const W: usize>(&mut self, g: &ExecutionGraph) {
        let (n, w, nlocs) = (self.n, width::<W>(self.w), self.nlocs);
        let nthreads = self.offsets.len() - 1;
        let nvlocs = self.labels.iter().flatten().filter(|l| l.is_access()).map(|l| l.vloc as usize + 1).max().unwrap_or(0).max(nlocs);
        self.thread_masks = FIXED_MASKS + PROXIES;
        self.loc_masks = self.thread_masks + nthreads;
        self.vloc_masks = self.loc_masks + nlocs;
        self.masks.clear();
        self.masks.resize((self.vloc_masks + nvlocs) * w, 0);
        self.class_nodes.clear();
        self.class_nodes.resize(self.classes * w, 0);
        self.present_classes.clear();
        self.present.clear();
        self.present.resize(self.class_words, 0);
        self.sc_fences.clear();
        self.tc = false;
        self.generic_only = true;
        self.has_barriers = false;
        self.has_objects = false;
        let (loc_masks, vloc_masks) = (self.loc_masks, self.vloc_masks);
        for x in 0..n {
            let (xw, bit) = (x / 64, 1u64 << (x % 64));
            let masks = &mut self.masks;
            let mut put = |slot: usize| masks[slot * w + xw] |= bit;
            let Some(l) = self.labels[x] else {
                // The initial write of location `x`: its virtual address is `x` too.
                for slot in [INIT, WRITE, MEM, loc_masks + x, vloc_masks + x] {
                    put(slot);
                }
                continue;
            };
            let t = self.thread[x] as usize;
            put(self.thread_masks + t);
            put(FIXED_MASKS + proxy_index(l.proxy));
            if l.is_access() {
                put(ACCESS);
                put(MEM);
                put(loc_masks + l.loc as usize);
                put(vloc_masks + l.vloc as usize);
            }
            if l.is_write() {
                put(WRITE);
                if l.strong {
                    put(STRONG_WRITE);
                }
            }
            if l.acquire && (l.is_read() || l.is_fence()) {
                put(if l.is_read() { ACQUIRE_READ } else { ACQUIRE_FENCE });
            }
            if l.strong {
                put(STRONG);
                let c = t * SCOPES.len() + scope_index(l.scope);
                if !has(&self.present, c) {
                    self.present_classes.push(c);
                    set(&mut self.present, c);
                }
                self.class_nodes[c * w + xw] |= bit;
            }
            if l.is_fence() {
                put(FENCE);
                if l.sc {
                    self.sc_fences.push(x);
                }
            }
            if l.alias_fence {
                put(ALIAS_FENCE);
            }
            if l.object {
                put(OBJECT);
            }
            self.tc |= l.tc.is_some();
            self.generic_only &= l.proxy == Proxy::Generic && !l.alias_fence;
            self.has_barriers |= l.is_barrier();
            self.has_objects |= l.object;
        }
        // Program order: each thread's nodes, in order — but not from the events of a bulk copy
        // to what follows it (`sync::bulk_copy_unordered`).
        self.po.reset(n);
        self.copies.clear();
        for t in 0..nthreads {
            let (first, end) = (self.offsets[t], self.offsets[t + 1]);
            let labels = &self.labels;
            let spans = crate::program::sync::bulk_copy_spans(end - first, |i| {
                labels[first + i].expect("[tcfuzz internal bug] thread node without label")
            });
            self.copies.extend(spans.iter().map(|&(lo, hi)| (first + lo, first + hi)));
            for x in first..end {
                let stop = spans.iter().find(|&&(lo, hi)| (first + lo..first + hi).contains(&x)).map_or(end, |&(_, hi)| first + hi);
                set_range(self.po.row_mut(x), x + 1, stop);
            }
        }
        if self.tc {
            self.tc_facts.load(&self.labels, &self.thread);
            self.po_issue.assign(&self.po);
            for x in nlocs..n {
                self.tc_facts.restrict(x, self.po.row_mut(x));
            }
        }
        self.rf.reset(n);
        self.rmw.reset(n);
        for x in nlocs..n {
            if self.rf_src[x] != NONE {
                self.rf.add(self.rf_src[x] as usize, x);
            }
            if self.labels[x].is_some_and(|l| l.rmw_write) {
                // The read half is the event before it in its thread.
                self.rmw.add(x - 1, x);
            }
        }
        // Coherence order (transitive), location by location. (From-reads `rf⁻¹ ; co` is not
        // kept: the row of a read is the `co` row of the write it reads from.)
        self.co.reset(n);
        self.row.clear();
        self.row.resize(w, 0);
        for l in 0..nlocs {
            let order = &self.co_order[self.co_start[l]..self.co_start[l + 1]];
            self.row.fill(0);
            for &x in order.iter().rev() {
                self.co.row_mut(x as usize).copy_from_slice(&self.row);
                set(&mut self.row, x as usize);
            }
        }
        self.sb.reset(n);
        if self.has_barriers {
            for x in nlocs..n {
                if self.labels[x].is_some_and(|l| l.is_barrier()) {
                    for p in g.barrier_partners(self.id_of(x)) {
                        let y = self.node_of(p);
                        self.sb.add(x, y);
                    }
                }
            }
        }
    }

    /// §8.7 Morally strong, row by row: the other operations of the node's thread (program
    /// order) or, for a strong node, the strong nodes of the classes compatible with its own;
    /// then only those of the same proxy, and for a memory operation, those that are not memory
    /// operations or name the same virtual address.
    pub(super) fn build_ms<const W: usize>(&mut self, compat: &[u64]) {
        let (n, w, classes, cw) = (self.n, width::<W>(self.w), self.classes, self.class_words);
        self.class_partners.clear();
        self.class_partners.resize(classes * w, 0);
        for &c in &self.present_classes {
            let comp = &compat[c * cw..(c + 1) * cw];
            let partners = &mut self.class_partners[c * w..(c + 1) * w];
            if self.present.iter().zip(comp).all(|(p, q)| p & !q == 0) {
                // Compatible with every class present (threads in one scope): every strong node.
                partners.copy_from_slice(&self.masks[STRONG * w..(STRONG + 1) * w]);
                continue;
            }
            for (wi, (&p, &q)) in self.present.iter().zip(comp).enumerate() {
                let mut both = p & q;
                while both != 0 {
                    let d = wi * 64 + both.trailing_zeros() as usize;
                    both &= both - 1;
                    or_into(partners, &self.class_nodes[d * w..(d + 1) * w]);
                }
            }
        }
        self.ms.reset(n);
        let mut row = std::mem::take(&mut self.row);
        row.resize(w, 0);
        for x in self.nlocs..n {
            let Some(l) = self.labels[x] else { continue };
            let t = self.thread[x] as usize;
            row.copy_from_slice(&self.masks[(self.thread_masks + t) * w..(self.thread_masks + t + 1) * w]);
            // A bulk copy's events and the events after it in its thread are not related in
            // program order (`sync::bulk_copy_unordered`).
            for &(lo, hi) in self.copies.iter().filter(|&&(lo, _)| self.thread[lo] as usize == t) {
                if (lo..hi).contains(&x) {
                    for y in hi..self.offsets[t + 1] {
                        unset(&mut row, y);
                    }
                } else if x >= hi {
                    for y in lo..hi {
                        unset(&mut row, y);
                    }
                }
            }
            if self.tc {
                // Not the perform of an asynchronous tcgen05 operation: program order does not
                // relate it to the thread's other events.
                self.tc_facts.restrict(x, &mut row);
            }
            if l.strong {
                let c = t * SCOPES.len() + scope_index(l.scope);
                or_into(&mut row, &self.class_partners[c * w..(c + 1) * w]);
            }
            if l.object {
                // The other accesses to its object's state, whatever their scopes.
                let vloc = self.vloc_masks + l.vloc as usize;
                for (k, word) in row.iter_mut().enumerate() {
                    *word |= self.masks[OBJECT * w + k] & self.masks[vloc * w + k];
                }
            }
            let proxy = FIXED_MASKS + proxy_index(l.proxy);
            let vloc = self.vloc_masks + l.vloc as usize;
            for (k, word) in row.iter_mut().enumerate() {
                *word &= self.masks[proxy * w + k];
                if l.is_access() {
                    *word &= !(self.masks[ACCESS * w + k] & !self.masks[vloc * w + k]);
                }
            }
            unset(&mut row, x);
            self.ms.row_mut(x).copy_from_slice(&row);
        }
        self.row = row;
    }

    /// Axioms that do not involve causality: No-Thin-Air, SC per location (Atomicity is
    /// [`super::Ptx::breaks_atomicity`]'s).
    pub(super) fn static_axioms<const W: usize>(&mut self) -> bool {
        let (n, w) = (self.n, width::<W>(self.w));
        // §8.10.4 No-Thin-Air: acyclic(rf ∪ dep). Dependencies go forward in node order (to a
        // later event of the thread), so a cycle has an `rf` edge going backward, into a read
        // that some event depends on (a read's only way on): without one, no cycle.
        self.tmp.assign(&self.rf);
        self.row.fill(0);
        for x in self.nlocs..n {
            let t = self.thread[x] as usize;
            let index = x - self.offsets[t];
            let mut deps = self.deps[x];
            while deps != 0 {
                let j = deps.trailing_zeros() as usize;
                deps &= deps - 1;
                if j < index {
                    self.tmp.add(self.offsets[t] + j, x);
                    set(&mut self.row, self.offsets[t] + j);
                }
            }
        }
        let back_into_dependency = (self.nlocs..n).any(|x| self.rf_src[x] != NONE && self.rf_src[x] as usize > x && has(&self.row, x));
        if back_into_dependency && !self.tmp.is_acyclic_with(&mut self.order) {
            return false;
        }
        // §8.10.5 SC per location: acyclic(po-loc ∪ (ms ∩ (rf ∪ co ∪ fr))).
        self.tmp.reset(n);
        for x in 0..n {
            let loc = match self.labels[x] {
                None => Some(x),
                Some(l) if l.is_access() => Some(l.loc as usize),
                Some(_) => None,
            };
            let (po, ms, rf, co) = (self.po.row(x), self.ms.row(x), self.rf.row(x), self.co.row(x));
            let src = self.rf_src[x];
            let row = self.tmp.row_mut(x);
            for k in 0..w {
                let fr = if src == NONE { 0 } else { self.co.row(src as usize)[k] };
                row[k] = ms[k] & (rf[k] | co[k] | fr);
                if let Some(l) = loc {
                    row[k] |= po[k] & self.masks[(self.loc_masks + l) * w + k];
                }
            }
        }
        self.tmp.is_acyclic_with(&mut self.order)
    }

    /// Observation order and release/acquire synchronization (and with tcgen05 events, their
    /// ordering edges).
    pub(super) fn add_sync<const W: usize>(&mut self) {
        let (n, w) = (self.n, width::<W>(self.w));
        // §8.9.2 Observation order: (ms ∩ rf) ; (rmw ; (ms ∩ rf))*.
        self.rf_ms.assign(&self.rf);
        for x in 0..n {
            let (row, ms) = (self.rf_ms.row_mut(x), self.ms.row(x));
            for k in 0..w {
                row[k] &= ms[k];
            }
        }
        self.chain.reset(n);
        let mut chained = false;
        for r in self.nlocs..n {
            if !self.rmw.row_is_empty(r) && !self.rf_ms.row_is_empty(r + 1) {
                let (chain, rf_ms) = (&mut self.chain, &self.rf_ms);
                chain.row_mut(r).copy_from_slice(rf_ms.row(r + 1));
                chained = true;
            }
        }
        self.obs.assign(&self.rf_ms);
        if chained {
            self.chain.close(&mut self.order);
            for x in 0..n {
                union_of_rows::<W>(&mut self.row, self.rf_ms.row(x), &self.chain);
                or_into(self.obs.row_mut(x), &self.row[..w]);
            }
        }
        // §8.8 Release patterns: a release write with the strong writes to its virtual address
        // after it (itself when strong); a release fence with the strong writes after it.
        // Acquire patterns: a strong read with the acquire reads of its virtual address after it
        // (itself when acquire) and the acquire fences after it.
        self.rel.reset(n);
        self.acq.reset(n);
        let (mut any_rel, mut any_acq) = (false, false);
        for h in self.nlocs..n {
            let Some(l) = self.labels[h] else { continue };
            let po = self.po.row(h);
            let vloc = self.vloc_masks + l.vloc as usize;
            if l.release && (l.is_write() || l.is_fence()) {
                let row = self.rel.row_mut(h);
                for k in 0..w {
                    let same = if l.is_write() { self.masks[vloc * w + k] } else { !0 };
                    row[k] = po[k] & self.masks[STRONG_WRITE * w + k] & same;
                }
                if l.is_write() && l.strong {
                    set(row, h);
                }
                any_rel |= !is_zero(row);
            }
            if l.is_read() && l.strong {
                let row = self.acq.row_mut(h);
                for k in 0..w {
                    row[k] = po[k] & ((self.masks[ACQUIRE_READ * w + k] & self.masks[vloc * w + k]) | self.masks[ACQUIRE_FENCE * w + k]);
                }
                if l.acquire {
                    set(row, h);
                }
                any_acq |= !is_zero(row);
            }
        }
        // §8.9.4 Synchronizes-with (release/acquire part): (rel ; obs ; acq) ∩ ms — and between
        // two accesses to an object's state, only where each one's scope includes the other's
        // thread ([`Label::object`]).
        self.sw_ra.reset(n);
        if any_rel && any_acq {
            self.row2.clear();
            self.row2.resize(w, 0);
            for h in 0..n {
                if self.rel.row_is_empty(h) {
                    continue;
                }
                union_of_rows::<W>(&mut self.row, self.rel.row(h), &self.obs);
                union_of_rows::<W>(&mut self.row2, &self.row, &self.acq);
                let (row, ms) = (self.sw_ra.row_mut(h), self.ms.row(h));
                for k in 0..w {
                    row[k] = self.row2[k] & ms[k];
                }
                if let Some(l) = self.labels[h].filter(|l| self.has_objects && l.object) {
                    let c = self.thread[h] as usize * SCOPES.len() + scope_index(l.scope);
                    let scoped = &self.class_partners[c * w..(c + 1) * w];
                    for k in 0..w {
                        row[k] &= !self.masks[OBJECT * w + k] | scoped[k];
                    }
                }
            }
        }
        self.tc_order.reset(n);
        if self.tc {
            // §9.7.16.6.3: execution order — program order, observation of morally strong
            // writes (relaxed ones included), barriers and synchronizes-with.
            self.eo.assign(&self.po);
            for r in [&self.obs, &self.sb, &self.sw_ra] {
                self.eo.union_with(r);
            }
            self.eo.close(&mut self.order);
            self.tc_facts.ordering(&mut self.tc_order, &self.po_issue, &self.eo, &self.obs);
        }
    }

    /// §8.9.5 base causality order `(po ∪ sw)+` into `base`: the synchronizes-with of the
    /// release/acquire patterns and barriers, the tcgen05 ordering edges, and that of the
    /// Fence-SC order `order` as [`Scratch::with_fence_order`] takes it.
    pub(super) fn base_order(&mut self, order: &[usize], placed: usize) {
        // A cta_group::2 allocator rendezvous is a barrier event too: the two warps meet there
        // (which also keeps a deadlock through it from looking consistent).
        self.base.assign(&self.sw_ra);
        if self.has_barriers {
            self.base.union_with(&self.sb);
        }
        if self.tc {
            self.base.union_with(&self.tc_order);
        }
        for i in 0..placed.min(order.len()) {
            for j in i + 1..order.len() {
                if self.ms.contains(order[i], order[j]) {
                    self.base.add(order[i], order[j]);
                }
            }
        }
        // §8.9.5 base causality order (po ∪ sw)+. Program order is transitive already (unless
        // tcgen05 events took pairs out of it), so without sw it is its own closure.
        let sync = !self.base.is_empty();
        self.base.union_with(&self.po);
        if sync || self.tc {
            self.base.close(&mut self.order);
        }
    }

    /// Checks the axioms that involve causality under one Fence-SC order (`order` lists the SC
    /// fences, earliest first); leaves causality order in `cause`. Only the first `placed` fences
    /// of `order` are ordered: each precedes every fence after it, and those after are unordered
    /// among themselves (a part of every order that starts with them, which the search prunes
    /// with: more edges only forbid more).
    pub(super) fn with_fence_order<const W: usize>(&mut self, order: &[usize], placed: usize, places: &[ThreadPlace]) -> bool {
        let (n, w) = (self.n, width::<W>(self.w));
        self.base_order(order, placed);
        // Between memory operations causality goes through proxy-preserved base causality.
        self.proxy_preserved::<W>(places);
        self.cause.reset(n);
        for x in 0..n {
            union_of_rows::<W>(&mut self.row, self.obs.row(x), &self.ppcb);
            let (cause, ppcb) = (self.cause.row_mut(x), self.ppcb.row(x));
            for k in 0..w {
                cause[k] = ppcb[k] | self.row[k];
            }
        }
        // §8.10.1 Coherence: a write before a same-location write in causality order is before
        // it in coherence order.
        for x in 0..n {
            if !has(self.mask(WRITE), x) {
                continue;
            }
            let loc = self.labels[x].map_or(x, |l| l.loc as usize);
            let (cause, co) = (self.cause.row(x), self.co.row(x));
            let same = self.mask(self.loc_masks + loc);
            let writes = self.mask(WRITE);
            if (0..w).any(|k| cause[k] & writes[k] & same[k] & !co[k] != 0) {
                return false;
            }
        }
        // §8.10.2 Fence-SC: no morally strong pair ordered one way by causality and the other
        // way by Fence-SC order. Between fences causality is base causality itself (not
        // proxy-preserved): base ∪ obs ; base.
        for j in 1..order.len() {
            union_of_rows::<W>(&mut self.row, self.obs.row(order[j]), &self.base);
            for &earlier in &order[..j.min(placed)] {
                let later_first = self.base.contains(order[j], earlier) || has(&self.row, earlier);
                if self.ms.contains(earlier, order[j]) && later_first {
                    return false;
                }
            }
        }
        // §8.10.6 Causality: irreflexive((rf ∪ fr) ; cause), with fr = rf⁻¹ ; co over the
        // *coherence order* of §8.9.6, which only relates overlapping writes that are morally
        // strong or related in causality order ("two overlapping writes are unrelated in coherence
        // order if they are in a data-race"). The graph's per-location order is total; the pairs
        // of racing writes in it are not coherence edges. (The initial write precedes every write.)
        for x in 0..n {
            let rf = self.rf.row(x);
            let src = self.rf_src[x] as usize;
            if src == NONE as usize {
                self.row[..w].copy_from_slice(&rf[..w]);
            } else {
                let (co, ms, cause) = (self.co.row(src), self.ms.row(src), self.cause.row(src));
                let init = self.labels[src].is_none();
                for k in 0..w {
                    let fr = if init { co[k] } else { co[k] & (ms[k] | cause[k]) };
                    self.row[k] = rf[k] | fr;
                }
            }
            for (k, &word) in self.row[..w].iter().enumerate() {
                let mut word = word;
                while word != 0 {
                    let y = k * 64 + word.trailing_zeros() as usize;
                    word &= word - 1;
                    if self.cause.contains(y, x) {
                        return false;
                    }
                }
            }
        }
        true
    }

    /// §8.9.5 proxy-preserved base causality order (generic proxy, other proxies, proxy fences and
    /// the alias fence), into `ppcb`, following the disjuncts of Dat3M's `ptx-v7.5.cat` /
    /// mixedproxy: generic → generic on the same virtual address; same non-generic proxy, same
    /// CTA, same virtual address; through a proxy fence of the first operation's proxy in its CTA
    /// (`A`) and/or of the last operation's (`B`); and on the same physical location through a
    /// `fence.proxy.alias` on the way. The general case is [`Scratch::proxy_preserved_mixed`]
    /// (`relations/proxy.rs`).
    fn proxy_preserved<const W: usize>(&mut self, places: &[ThreadPlace]) {
        let (n, w) = (self.n, width::<W>(self.w));
        if self.generic_only {
            // Generic proxy only, no alias fence: every other disjunct goes through a generic
            // fence and is implied, by transitivity of base causality, by the first.
            self.ppcb.reset(n);
            for x in 0..n {
                if !has(self.mask(MEM), x) {
                    continue;
                }
                let vloc = self.labels[x].map_or(x, |l| l.vloc as usize);
                let (row, base) = (self.ppcb.row_mut(x), self.base.row(x));
                for k in 0..w {
                    row[k] = base[k] & self.masks[MEM * w + k] & self.masks[(self.vloc_masks + vloc) * w + k];
                }
            }
            return;
        }
        self.proxy_preserved_mixed::<W>(places);
    }
}

impl Scratch {
    /// Program order, morally strong and the tcgen05 ordering edges of the graph loaded (for the
    /// tests).
    #[cfg(test)]
    pub(super) fn relations(&self) -> [Relation; 3] {
        [self.po.clone(), self.ms.clone(), self.tc_order.clone()]
    }

    /// Whether the loaded graph has two conflicting accesses that are not morally strong (after
    /// [`Scratch::build_ms`]): without such a pair it has no data race, whatever causality says.
    pub(super) fn weak_conflict(&self) -> bool {
        let w = self.w;
        (self.nlocs..self.n).any(|x| {
            let Some(l) = self.labels[x].filter(|l| l.is_access()) else { return false };
            let (same, ms) = (self.mask(self.loc_masks + l.loc as usize), self.ms.row(x));
            let (access, writes) = (self.mask(ACCESS), self.mask(WRITE));
            (0..w).any(|k| {
                let conflicting = if l.is_write() { access[k] } else { access[k] & writes[k] };
                let mut word = conflicting & same[k] & !ms[k];
                if k == x / 64 {
                    word &= !(1 << (x % 64));
                }
                word != 0
            })
        })
    }

    /// The data races of the loaded consistent graph (§8.10 "data race"): conflicting accesses
    /// (same location, one a write) neither morally strong nor ordered by causality either way.
    pub(super) fn races(&self) -> Vec<(EventId, EventId)> {
        let (n, w) = (self.n, self.w);
        let mut out = Vec::new();
        let mut row = vec![0u64; w];
        for x in self.nlocs..n {
            let Some(l) = self.labels[x] else { continue };
            if !l.is_access() {
                continue;
            }
            let (same, ms, cause) = (self.mask(self.loc_masks + l.loc as usize), self.ms.row(x), self.cause.row(x));
            let (access, writes) = (self.mask(ACCESS), self.mask(WRITE));
            for k in 0..w {
                let conflicting = if l.is_write() { access[k] } else { access[k] & writes[k] };
                row[k] = conflicting & same[k] & !ms[k] & !cause[k];
            }
            for y in bits(&row).filter(|&y| y > x) {
                if !self.cause.contains(y, x) {
                    out.push((self.id_of(x), self.id_of(y)));
                }
            }
        }
        out
    }
}
