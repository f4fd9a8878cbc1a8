//! Execution graphs: events per thread in program order, reads-from (`rf`, stored on each read),
//! and coherence (`co`, one total order per location with the initial write first), as in GenMC
//! and herd. Derived relations (po, rf, co, fr, rmw) are materialised on demand as bitset
//! [`Relation`]s over dense node numbers ([`NodeIndex`]): initial writes first, then each thread's
//! events.

use crate::exec::bitset::{BitSet, Relation};
use crate::exec::event::NewEvent;
use crate::exec::event::{Event, EventId};
use crate::program::label::{Label, LocId};

/// The stamp of a hole: a position in a thread of the explorer's graph whose event was removed
/// while a program-order-later one stayed (HMC's dependency-based revisits). A hole keeps its old
/// label (for position bookkeeping), has no `rf`, sits in no `co`, and is no event: only the
/// explorer's graphs have holes, and the models never see them.
pub const HOLE: u32 = u32::MAX;

#[derive(Debug, PartialEq, Eq)]
pub struct ExecutionGraph {
    /// Each thread's events in program order.
    pub threads: Vec<Vec<Event>>,
    /// Per location, the writes in coherence order, after the (implicit) initial write.
    pub co: Vec<Vec<EventId>>,
    /// Initial value of each location.
    pub init: Vec<i64>,
    /// Per symmetric barrier id, the threads (bit `t`) that meet there
    /// ([`crate::program::CompiledProgram::barrier_members`]).
    pub barrier_members: Vec<u64>,
    /// Per symmetric barrier id, the threads that may arrive there or at another barrier, which
    /// one decided when they arrive (a `bar.sync a, r` with `r` set at run time, at most once per
    /// thread: [`crate::program::sync::SyncPlan::dyn_barrier`]).
    pub barrier_dyn_members: Vec<u64>,
    next_stamp: u32,
    /// How many events were put in the graph since the last revisit cut it (`explore::holes::cut`),
    /// or since it was made: whether an event came first after a revisit.
    added_since_cut: u32,
    /// Whether an event was ever put in a hole: until then every thread's events were added in
    /// program order (stamps rising along each thread).
    refilled: bool,
    /// The holes that the last revisit's cut found and left as they were: made by an earlier
    /// revisit, not by that one (`explore::maximal`, `placed_before_revisit`). Empty in almost
    /// every graph.
    holes_before_cut: Vec<EventId>,
    /// The *pending reads*: holes, each its thread's last position, of reads a revisit kept
    /// while deleting the write they read, which comes back into its own hole (`explore::maximal`,
    /// "Pending reads"). Each is refilled reading that write again, with its old stamp, once the
    /// write is back: `(read, write, stamp)`. Empty in almost every graph.
    pub pending: Vec<(EventId, EventId, u32)>,
    /// The *waiting reads*: read holes that no write of the graph could fill when they were
    /// next to be filled, each with the stamp the next event had then; `next` lets the other
    /// threads go on, and tries the hole again once a write of its location with a stamp at
    /// least that one is in the graph (`explore::trust`, "Waiting holes"). A cut clears them.
    pub waiting: Vec<(EventId, u32)>,
}

/// The vectors of dropped graphs, kept for the next clones: the explorer clones a graph for
/// nearly every one it explores, and a graph is a vector per thread and per location, so a fresh
/// clone is a few dozen allocations (a fifth of the time on GenMC's `wcas`) where one cloned
/// into the vectors of a dropped graph of the same program reuses them. Per thread, and at most
/// [`SPARE_GRAPHS`] of them: the explorer holds one graph per level of its recursion.
#[derive(Default)]
struct Spare {
    threads: Vec<Vec<Event>>,
    co: Vec<Vec<EventId>>,
    init: Vec<i64>,
    barrier_members: Vec<u64>,
    barrier_dyn_members: Vec<u64>,
    pending: Vec<(EventId, EventId, u32)>,
    waiting: Vec<(EventId, u32)>,
}

const SPARE_GRAPHS: usize = 64;

thread_local! {
    static SPARES: std::cell::RefCell<Vec<Spare>> = const { std::cell::RefCell::new(Vec::new()) };
}

impl Clone for ExecutionGraph {
    fn clone(&self) -> Self {
        let spare = SPARES.try_with(|s| s.borrow_mut().pop()).ok().flatten().unwrap_or_default();
        let mut g = ExecutionGraph {
            threads: spare.threads,
            co: spare.co,
            init: spare.init,
            barrier_members: spare.barrier_members,
            barrier_dyn_members: spare.barrier_dyn_members,
            next_stamp: 0,
            added_since_cut: 0,
            refilled: false,
            holes_before_cut: Vec::new(),
            pending: spare.pending,
            waiting: spare.waiting,
        };
        g.clone_from(self);
        g
    }

    fn clone_from(&mut self, src: &Self) {
        // `Vec::clone_from` clones into the vectors already there, each thread's included.
        self.threads.clone_from(&src.threads);
        self.co.clone_from(&src.co);
        self.init.clone_from(&src.init);
        self.barrier_members.clone_from(&src.barrier_members);
        self.barrier_dyn_members.clone_from(&src.barrier_dyn_members);
        self.next_stamp = src.next_stamp;
        self.added_since_cut = src.added_since_cut;
        self.refilled = src.refilled;
        self.holes_before_cut.clone_from(&src.holes_before_cut);
        self.pending.clone_from(&src.pending);
        self.waiting.clone_from(&src.waiting);
    }
}

impl Drop for ExecutionGraph {
    fn drop(&mut self) {
        if self.threads.capacity() == 0 {
            return;
        }
        let spare = Spare {
            threads: std::mem::take(&mut self.threads),
            co: std::mem::take(&mut self.co),
            init: std::mem::take(&mut self.init),
            barrier_members: std::mem::take(&mut self.barrier_members),
            barrier_dyn_members: std::mem::take(&mut self.barrier_dyn_members),
            pending: std::mem::take(&mut self.pending),
            waiting: std::mem::take(&mut self.waiting),
        };
        // (At thread exit the spares may be gone already: then the vectors are simply freed.)
        let _ = SPARES.try_with(|s| {
            let mut s = s.borrow_mut();
            if s.len() < SPARE_GRAPHS {
                s.push(spare);
            }
        });
    }
}

/// Dense numbering of a graph's events: node `l` is the initial write of location `l`, then the
/// events of thread 0, thread 1, ...
#[derive(Clone, Debug, Default)]
pub struct NodeIndex {
    offsets: Vec<usize>,
    ids: Vec<EventId>,
}

impl NodeIndex {
    pub fn len(&self) -> usize {
        self.ids.len()
    }
    pub fn node(&self, e: EventId) -> usize {
        if e.is_init() { e.index as usize } else { self.offsets[e.thread as usize] + e.index as usize }
    }
    pub fn id(&self, node: usize) -> EventId {
        self.ids[node]
    }
}

impl ExecutionGraph {
    pub fn new(init: Vec<i64>, nthreads: usize) -> Self {
        let nlocs = init.len();
        ExecutionGraph {
            threads: vec![Vec::new(); nthreads],
            co: vec![Vec::new(); nlocs],
            init,
            barrier_members: Vec::new(),
            barrier_dyn_members: Vec::new(),
            next_stamp: 1,
            added_since_cut: 0,
            refilled: false,
            holes_before_cut: Vec::new(),
            pending: Vec::new(),
            waiting: Vec::new(),
        }
    }

    /// Barrier `e` is the `k`-th arrival (1-based) of its thread at its barrier id: `(id, k)`.
    pub fn barrier_instance(&self, e: EventId) -> (u32, usize) {
        let id = self.label(e).loc;
        let k = self.threads[e.thread as usize][..=e.index as usize].iter().filter(|x| x.label.is_barrier() && x.label.loc == id).count();
        (id, k)
    }

    /// Whether thread `u` is one of the threads that meet at symmetric barrier `id`: statically,
    /// or by a barrier whose second operand is set at run time that arrived there or has not
    /// arrived anywhere yet (then the others wait to learn which barrier it is).
    fn meets_at(&self, u: usize, id: u32) -> bool {
        let has = |m: &Vec<u64>| m.get(id as usize).is_some_and(|m| m & (1 << u) != 0);
        has(&self.barrier_members)
            || has(&self.barrier_dyn_members) && {
                let mut arrivals = self.threads[u].iter().filter(|x| x.label.is_barrier());
                arrivals.next().is_none_or(|x| x.label.loc == id)
            }
    }

    /// The events of the other members of `e`'s barrier that arrive at the same instance.
    pub fn barrier_partners(&self, e: EventId) -> Vec<EventId> {
        let (id, k) = self.barrier_instance(e);
        let mut out = Vec::new();
        for (u, evs) in self.threads.iter().enumerate() {
            if u == e.thread as usize || !self.meets_at(u, id) {
                continue;
            }
            let found = evs.iter().enumerate().filter(|(_, x)| x.label.is_barrier() && x.label.loc == id).nth(k - 1);
            if let Some((i, _)) = found {
                out.push(EventId::new(u, i));
            }
        }
        out
    }

    /// Whether thread `t` is waiting at a barrier: its last barrier arrival `(id, k)` is not yet
    /// matched by the `k`-th arrival at `id` of every other member of `id`.
    pub fn waiting_at_barrier(&self, t: usize) -> bool {
        self.barrier_wait(t).is_some()
    }

    /// What thread `t` waits for at its last barrier arrival `(id, k)`, if it waits: the other
    /// members of `id` with fewer than `k` arrivals there, or `None` inside where `id` has a
    /// member that does not exist (it waits for ever).
    pub fn barrier_wait(&self, t: usize) -> Option<Option<Vec<usize>>> {
        let evs = &self.threads[t];
        let i = evs.iter().rposition(|x| x.label.is_barrier())?;
        let (id, k) = self.barrier_instance(EventId::new(t, i));
        if self.barrier_members.get(id as usize).is_some_and(|m| m & crate::program::ABSENT_MEMBER != 0) {
            return Some(None);
        }
        let missing: Vec<usize> = (0..self.threads.len())
            .filter(|&u| {
                u != t && self.meets_at(u, id) && self.threads[u].iter().filter(|x| x.label.is_barrier() && x.label.loc == id).count() < k
            })
            .collect();
        (!missing.is_empty()).then_some(Some(missing))
    }

    /// Barrier synchronization: `(a, b)` for arrivals of two threads at the same barrier instance
    /// (symmetric).
    #[cfg(test)]
    pub fn sb(&self, idx: &NodeIndex) -> Relation {
        let mut r = Relation::empty(idx.len());
        for e in self.event_ids() {
            if self.label(e).is_barrier() {
                for p in self.barrier_partners(e) {
                    r.add(idx.node(e), idx.node(p));
                }
            }
        }
        r
    }

    pub fn event(&self, e: EventId) -> &Event {
        &self.threads[e.thread as usize][e.index as usize]
    }

    pub fn event_mut(&mut self, e: EventId) -> &mut Event {
        &mut self.threads[e.thread as usize][e.index as usize]
    }

    /// The label of a non-initial event.
    pub fn label(&self, e: EventId) -> &Label {
        &self.event(e).label
    }

    pub fn loc_of(&self, e: EventId) -> LocId {
        if e.is_init() { e.index } else { self.label(e).loc }
    }

    /// The value a write (or the initial write) wrote.
    pub fn write_value(&self, w: EventId) -> i64 {
        if w.is_init() { self.init[w.index as usize] } else { self.event(w).value }
    }

    pub fn stamp(&self, e: EventId) -> u32 {
        if e.is_init() { 0 } else { self.event(e).stamp }
    }

    pub fn event_ids(&self) -> impl Iterator<Item = EventId> + '_ {
        self.threads.iter().enumerate().flat_map(|(t, evs)| (0..evs.len()).map(move |i| EventId::new(t, i)))
    }

    pub fn num_events(&self) -> usize {
        self.threads.iter().map(Vec::len).sum()
    }

    /// Appends `ev` to `thread`. A read reads from `rf` (which must be given for reads); a write is
    /// not placed in coherence order yet (see [`ExecutionGraph::insert_co`]).
    pub fn add_event(&mut self, thread: usize, ev: &NewEvent, rf: Option<EventId>) -> EventId {
        let id = EventId::new(thread, self.threads[thread].len());
        self.put_event(id, ev, rf);
        id
    }

    /// Puts `ev` at `id`: appends it when `id` is one past the thread's last event, otherwise
    /// replaces the hole there (see [`HOLE`]). Same rules as [`ExecutionGraph::add_event`].
    pub fn put_event(&mut self, id: EventId, ev: &NewEvent, rf: Option<EventId>) {
        let value = match rf {
            Some(w) => self.write_value(w),
            None => ev.value,
        };
        let stamp = self.next_stamp;
        self.next_stamp += 1;
        self.added_since_cut = self.added_since_cut.saturating_add(1);
        let event = Event { label: ev.label, value, rf, stamp, deps: ev.deps, cas_expected: ev.cas_expected, span: ev.span };
        let evs = &mut self.threads[id.thread as usize];
        if id.index as usize == evs.len() {
            evs.push(event);
        } else {
            debug_assert!(evs[id.index as usize].stamp == HOLE, "[tcfuzz internal bug] put_event over an event");
            evs[id.index as usize] = event;
            self.refilled = true;
        }
    }

    /// Turns event `x`, a read its thread's last, into a pending read of `w` (a hole now, see
    /// [`ExecutionGraph::pending`]), keeping its stamp for when it comes back.
    pub fn make_pending(&mut self, x: EventId, w: EventId) {
        let ev = self.event_mut(x);
        let stamp = ev.stamp;
        debug_assert!(ev.label.is_read() && stamp != HOLE, "[tcfuzz internal bug] a pending read that is no read");
        ev.stamp = HOLE;
        ev.rf = None;
        ev.value = 0;
        self.pending.push((x, w, stamp));
    }

    /// Marks read hole `x` as waiting for a write added from now on ([`ExecutionGraph::waiting`]).
    pub fn make_waiting(&mut self, x: EventId) {
        debug_assert!(self.is_hole(x) && self.label(x).is_read(), "[tcfuzz internal bug] a waiting read that is no read hole");
        self.waiting.push((x, self.next_stamp));
    }

    /// Whether `x` is a waiting read hole that no write added since could fill yet.
    pub fn still_waiting(&self, x: EventId) -> bool {
        self.waiting.iter().any(|&(h, since)| h == x && !self.co[self.label(x).loc as usize].iter().any(|&w| self.stamp(w) >= since))
    }

    /// Where `x` is a pending read: the write it waits for.
    pub fn pending_source(&self, x: EventId) -> Option<EventId> {
        self.pending.iter().find(|p| p.0 == x).map(|p| p.1)
    }

    /// Puts pending read `x` (its thread's next event `ev`) back, reading the write it waits for,
    /// with the stamp it had.
    pub fn fill_pending(&mut self, x: EventId, ev: &NewEvent) {
        let Some(at) = self.pending.iter().position(|p| p.0 == x) else {
            debug_assert!(false, "[tcfuzz internal bug] fill_pending of a read that is not pending");
            return;
        };
        let (_, w, stamp) = self.pending.swap_remove(at);
        let value = self.write_value(w);
        self.refilled = true;
        self.added_since_cut = self.added_since_cut.saturating_add(1);
        self.threads[x.thread as usize][x.index as usize] =
            Event { label: ev.label, value, rf: Some(w), stamp, deps: ev.deps, cas_expected: ev.cas_expected, span: ev.span };
    }

    /// Records that a revisit cut the graph (`explore::holes::cut`), keeping `holes_before_cut`,
    /// holes already before it, as holes.
    pub fn mark_cut(&mut self, holes_before_cut: Vec<EventId>) {
        self.added_since_cut = 0;
        self.holes_before_cut = holes_before_cut;
    }

    /// Whether `e` was a hole already when a revisit last cut the graph, and stayed one: that
    /// revisit did not delete it.
    pub fn hole_before_last_cut(&self, e: EventId) -> bool {
        self.holes_before_cut.contains(&e)
    }

    /// How many events were put in the graph since a revisit last cut it.
    pub fn added_since_cut(&self) -> u32 {
        self.added_since_cut
    }

    /// Whether an event was ever put in a hole of this graph or of one it was made from: if not,
    /// every thread's events were added in program order.
    pub fn refilled(&self) -> bool {
        self.refilled
    }

    /// Whether `e` is a hole: a position the explorer's graph keeps for an event removed by a
    /// revisit while a program-order-later event of its thread stays (see `explore`).
    pub fn is_hole(&self, e: EventId) -> bool {
        !e.is_init() && self.event(e).stamp == HOLE
    }

    pub fn has_holes(&self) -> bool {
        self.threads.iter().flatten().any(|e| e.stamp == HOLE)
    }

    /// Places write `w` at position `pos` of its location's coherence order (0 = right after the
    /// initial write).
    pub fn insert_co(&mut self, w: EventId, pos: usize) {
        let loc = self.loc_of(w) as usize;
        self.co[loc].insert(pos, w);
    }

    pub fn set_rf(&mut self, r: EventId, w: EventId) {
        let v = self.write_value(w);
        let ev = self.event_mut(r);
        ev.rf = Some(w);
        ev.value = v;
    }

    /// Position in coherence order: 0 for the initial write.
    pub fn co_position(&self, w: EventId) -> Option<usize> {
        if w.is_init() {
            return Some(0);
        }
        let loc = self.loc_of(w) as usize;
        self.co[loc].iter().position(|&x| x == w).map(|p| p + 1)
    }

    /// The writes to `loc` in coherence order, the initial write first.
    pub fn writes_to(&self, loc: LocId) -> impl Iterator<Item = EventId> + '_ {
        std::iter::once(EventId::init(loc)).chain(self.co[loc as usize].iter().copied())
    }

    pub fn readers(&self, w: EventId) -> impl Iterator<Item = EventId> + '_ {
        self.event_ids().filter(move |&e| self.event(e).rf == Some(w))
    }

    /// The value of each location after the execution: its co-maximal write.
    pub fn final_memory(&self) -> Vec<i64> {
        (0..self.init.len())
            .map(|l| match self.co[l].last() {
                Some(&w) => self.write_value(w),
                None => self.init[l],
            })
            .collect()
    }

    pub fn node_index(&self) -> NodeIndex {
        let mut idx = NodeIndex { offsets: Vec::with_capacity(self.threads.len()), ids: Vec::new() };
        self.node_index_into(&mut idx);
        idx
    }

    /// [`ExecutionGraph::node_index`] into `idx`, keeping its buffers (for scratch space reused
    /// from graph to graph).
    pub fn node_index_into(&self, idx: &mut NodeIndex) {
        let (offsets, ids) = (&mut idx.offsets, &mut idx.ids);
        offsets.clear();
        ids.clear();
        ids.reserve(self.init.len() + self.num_events());
        ids.extend((0..self.init.len()).map(|l| EventId::init(l as LocId)));
        for (t, evs) in self.threads.iter().enumerate() {
            offsets.push(ids.len());
            ids.extend((0..evs.len()).map(|i| EventId::new(t, i)));
        }
    }

    /// The set (over [`NodeIndex`] nodes) of events that reach `e` through `(po ∪ rf ∪ sb)*`,
    /// `e` included: its porf-prefix (barrier partners count as predecessors: what follows a
    /// barrier needs every arrival at it), for TruSt's revisits. Program order here is all of it,
    /// the perform of an asynchronous tcgen05 operation included: a prefix that left such a
    /// perform out (the thread does not wait for it, §9.7.16.6.1) let a revisit delete it while
    /// keeping later events of its thread, a hole TruSt's revisits cannot refill (`selftest
    /// --family tcgen05`, seed 2002487, with `Options::exclude_porf_cycles`: 5 of 6 executions).
    pub fn porf_prefix(&self, idx: &NodeIndex, e: EventId) -> BitSet {
        let mut set = BitSet::new(idx.len());
        let mut stack = vec![e];
        while let Some(x) = stack.pop() {
            if !set.insert(idx.node(x)) || x.is_init() {
                continue;
            }
            if x.index > 0 {
                stack.push(EventId { thread: x.thread, index: x.index - 1 });
            }
            if let Some(w) = self.event(x).rf {
                stack.push(w);
            }
            if self.label(x).is_barrier() {
                stack.extend(self.barrier_partners(x));
            }
        }
        set
    }

    /// Program order (transitive), between events of the same thread.
    pub fn po(&self, idx: &NodeIndex) -> Relation {
        let mut r = Relation::empty(idx.len());
        for (t, evs) in self.threads.iter().enumerate() {
            for i in 0..evs.len() {
                for j in i + 1..evs.len() {
                    r.add(idx.node(EventId::new(t, i)), idx.node(EventId::new(t, j)));
                }
            }
        }
        r
    }

    pub fn rf(&self, idx: &NodeIndex) -> Relation {
        let mut r = Relation::default();
        self.rf_into(idx, &mut r);
        r
    }

    /// [`ExecutionGraph::rf`] into `r`, keeping its buffer.
    pub fn rf_into(&self, idx: &NodeIndex, r: &mut Relation) {
        r.reset(idx.len());
        for (t, evs) in self.threads.iter().enumerate() {
            for (i, ev) in evs.iter().enumerate() {
                if let Some(w) = ev.rf {
                    r.add(idx.node(w), idx.offsets[t] + i);
                }
            }
        }
    }

    /// Coherence order (transitive), initial writes first.
    #[cfg(any(test, debug_assertions))]
    pub fn co(&self, idx: &NodeIndex) -> Relation {
        let mut r = Relation::default();
        self.co_into(idx, &mut r);
        r
    }

    /// [`ExecutionGraph::co`] into `r`, keeping its buffer.
    pub fn co_into(&self, idx: &NodeIndex, r: &mut Relation) {
        r.reset(idx.len());
        for l in 0..self.init.len() {
            let ws = &self.co[l];
            let init = idx.node(EventId::init(l as LocId));
            for (i, &w) in ws.iter().enumerate() {
                r.add(init, idx.node(w));
                let a = idx.node(w);
                for &x in &ws[i + 1..] {
                    r.add(a, idx.node(x));
                }
            }
        }
    }

    /// From-reads `rf⁻¹ ; co`.
    #[cfg(any(test, debug_assertions))]
    pub fn fr(&self, idx: &NodeIndex) -> Relation {
        let mut r = Relation::default();
        self.fr_into(idx, &mut r);
        r
    }

    /// [`ExecutionGraph::fr`] into `r`, keeping its buffer.
    pub fn fr_into(&self, idx: &NodeIndex, r: &mut Relation) {
        r.reset(idx.len());
        for (t, evs) in self.threads.iter().enumerate() {
            for (i, ev) in evs.iter().enumerate() {
                let Some(w) = ev.rf else { continue };
                let e = idx.offsets[t] + i;
                for x in self.writes_to(self.loc_of(w)).skip_while(|&x| x != w).skip(1) {
                    r.add(e, idx.node(x));
                }
            }
        }
    }

    /// The read → write pairs of `atom`/`red` operations that performed a write.
    #[cfg(any(test, debug_assertions))]
    pub fn rmw(&self, idx: &NodeIndex) -> Relation {
        let mut r = Relation::default();
        self.rmw_into(idx, &mut r);
        r
    }

    /// [`ExecutionGraph::rmw`] into `r`, keeping its buffer.
    pub fn rmw_into(&self, idx: &NodeIndex, r: &mut Relation) {
        r.reset(idx.len());
        for (t, evs) in self.threads.iter().enumerate() {
            for (i, ev) in evs.iter().enumerate().skip(1) {
                if ev.label.rmw_write {
                    let e = idx.offsets[t] + i;
                    r.add(e - 1, e);
                }
            }
        }
    }

    /// What [`Self::canonical`] writes, to hash without writing it: `Hash`ed, two graphs with one
    /// canonical text hash alike (duplicate detection, `verdict::Collector`).
    pub fn canonical_key(&self) -> CanonicalKey<'_> {
        CanonicalKey(self)
    }

    /// A canonical text of the graph (labels, values, rf, co), for tests and messages.
    pub fn canonical(&self) -> String {
        use std::fmt::Write;
        let mut s = String::new();
        for (t, evs) in self.threads.iter().enumerate() {
            let _ = write!(s, "T{t}:");
            for e in evs {
                let _ = write!(s, " {:?}{}={}", e.label.kind, e.label.loc, e.value);
                if let Some(w) = e.rf {
                    let _ = write!(s, "<-{}.{}", w.thread as i64, w.index);
                }
            }
            s.push('\n');
        }
        for (l, co) in self.co.iter().enumerate() {
            let _ = write!(s, "co{l}:");
            for w in co {
                let _ = write!(s, " {}.{}", w.thread, w.index);
            }
            s.push('\n');
        }
        s
    }
}

/// [`ExecutionGraph::canonical_key`]: per thread its events' kinds, locations, values and
/// sources, then each location's coherence order — with their lengths, so no two graphs run
/// together.
pub struct CanonicalKey<'a>(&'a ExecutionGraph);

impl std::hash::Hash for CanonicalKey<'_> {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        let g = self.0;
        g.threads.len().hash(h);
        for evs in &g.threads {
            evs.len().hash(h);
            for e in evs {
                (e.label.kind, e.label.loc, e.value, e.rf).hash(h);
            }
        }
        g.co.hash(h);
    }
}
