//! TruSt with HMC's dependency revisits: the exploration procedure (see the module docs of
//! [`super`] for the rules and the papers).
//!
//! ```text
//! Visit(G):
//!   if ¬consistent(G \ holes): return
//!   if a thread failed an assume, or a blocking wait, that no extension can change
//!     (Explorer::moot): return
//!   a ← next(G)       -- an rmw's write half first (rmws are added whole); else a fence that
//!                     --   fills a hole, the lowest-numbered thread's first; else the first hole of
//!                     --   the lowest-numbered thread with holes (not a waiting read, below,
//!                     --   while no write of its location has come); else the next event of the
//!                     --   lowest-numbered unfinished thread whose next event is not a read that
//!                     --   would fail an assume reading the co-latest write; else (every such
//!                     --   thread waits) the next event of the lowest-numbered of those
//!   none left      → output G (complete, or blocked if a thread hit the loop bound), unless a
//!                      read waits (then nothing)
//!   a fence        → Visit(G + a)        (likewise a barrier arrival; a thread waiting at a
//!                                         barrier its whole CTA has not reached yet is skipped)
//!   a read         → for each write w to loc(a), in co order: Visit(G + a, rf(a) = w)
//!                      if a fills a hole, none of those is consistent, and G can be completed
//!                      with threads going on: Visit(G, a waiting)
//!   a write        → for each read r of loc(a), r ∉ prefix(a):           -- backward revisits
//!                      Deleted := {e | r <_G e} \ prefix(a)
//!                      if the model rules out r reading a in G \ Deleted: skip
//!                      if every e ∈ Deleted ∪ {r} was added maximally, and the revisited
//!                      graph is no dead end (maximal.rs, "Dead ends"):
//!                        VisitCOs(Cut(G + a, Deleted), rf(r) = a)
//!                          -- a kept read whose deleted source comes back into its hole
//!                          --   waits for it there (maximal.rs, "Pending reads")
//!                    VisitCOs(G + a, a)                                  -- forward
//! VisitCOs(G, a): for each position p of co(loc(a)): Visit(G with a at p)
//! ```
//!
//! (The order of a graph's children does not matter; the forward step comes last so that it can
//! take `G + a` over instead of copying it.) Most consistency checks add one event to a graph just
//! found consistent: where that event is a *sink* — its thread's last, read by nothing, last in
//! `co` if a write — the model may answer from it alone ([`MemoryModel::sink_extension`]; debug
//! builds check the answer against the full check).
//!
//! *Waiting reads.* Which unfinished thread `next` moves is the explorer's choice, as long as it
//! is a function of the graph: every graph still has one order of addition, and the maximality
//! test reads that order off the stamps. `next` defers a thread whose next event is a read that
//! fails its `assume` when it reads the `co`-latest write. Added at once, that read would be
//! blocked, and each write added after it would both revisit it and leave it blocked beside
//! it, a graph that ends discarded; deferred until another thread has written what it waits
//! for, it reads that write directly. (GenMC gets a similar effect by revisiting such reads in
//! place.) On `szymanski` n = 3 under PTX this halved the failed-assume graphs explored
//! (15,691 → 8,171), with the same complete ones; `tcfuzz selftest --family assume` checks it
//! against the oracle. (Of those graphs, `Stats::assume_failed` counts the ones no later write
//! can rescue, as GenMC does: 6,987, GenMC's count too.)
//!
//! *Waiting holes.* A read that fills a hole may have no consistent source among the writes of
//! the graph: kept events after it force it to read a write not there yet, which another thread
//! adds only past its last event — and holes are filled before any thread goes on. The read then
//! *waits* ([`ExecutionGraph::waiting`]): `next` passes over its thread and lets the others go
//! on, and tries it again once a write of its location has been added. (The graph only grows
//! meanwhile, so the sources it had stay inconsistent, the model being monotone; a revisit
//! clears the wait, and the read is tried afresh in the revisited graph.) This is the order of
//! addition the maximality test already assumes where it completes a graph
//! ([`super::maximal`], `completable`: threads go on past their last event where the holes
//! cannot be filled otherwise); without it, a revisit the test accepts can lead to a graph the
//! explorer abandons. `selftest --family fenced` seed 9016819, minimized: `ld y; fence.acq_rel;
//! ld x; fence.acq_rel; st y | ld x; st.release y; st x | ld y; st.release x` (every access
//! `.cta` or weak). In the missed execution P0's `ld x` reads P1's `st x`. P0's `st y` revisits
//! P2's `ld y` and leaves P0's `ld x` a hole, and P1's `st x` — deleted when P2's `st.release x`
//! revisited P1's `ld x` — is the only write the kept events let it read: P2's `st.release x`
//! happens before it (P1's `ld x` reads that store, and P1's `st.release y` is read by P0's
//! first `ld y`, which the `fence.acq_rel` after it makes an acquire), so it cannot read the
//! initial `x`, and reading that store would put P2's `ld y` before the `st y` it reads. 68 of
//! the oracle's 69 executions, with no caveat, before.
//!
//! A read waits only where that test finds the graph completable (within its bound of events
//! added past the threads' ends; past it the graph is dropped, as before). A waiting graph that
//! cannot be completed still makes revisits as threads go on, and the maximality test, which
//! found no completion, lets another graph make them too (`selftest --family proxy` seeds
//! 100934 and 108263: 4 of 104 and 6 of 171 executions explored twice).
//!
//! *Fences first.* A fence that fills a hole is the same event whenever it comes back: the
//! kept events after it fix its thread's control flow up to them, and a fence reads and writes
//! nothing (its dependencies, the reads its thread branched on before it, are kept too). So
//! `next` puts such fences back before it refills any other hole. A revisit that closes a `po ∪
//! rf` cycle through deleted fences (a `fence.sc` on each stretch, which PTX forbids) leaves
//! a graph the model accepts until they are back; refilled last, the fences came only after
//! the writes between had made their revisits and the reads their branches, all to be
//! rejected. On `szymanski` n = 3 under PTX that was 42 % of the graphs visited (98,454 of
//! 232,372): 1.14 s → 0.83 s, with the same executions.
//!
//! *Revisits the model rules out* ([`MemoryModel::revisit_forbidden`]): PTX rejects a read of a
//! later write of its own thread, and a cycle of `po ∪ rf` with a `fence.sc` on each stretch of
//! program order, wherever the deleted events go; the explorer skips those revisits before the
//! maximality test, which costs more.
//!
//! `prefix(a)` is the `po ∪ rf`-prefix (TruSt) or the dependency prefix (HMC,
//! [`super::holes::dep_prefix`]); `Cut` turns a deleted event into a hole where a later event of
//! its thread stays. `<_G` is the order in which events were added (their stamps). *Maximally
//! added* is TruSt's condition that picks, among all graphs a revisit would turn into the same
//! graph, exactly one — which makes the exploration optimal: each consistent graph is visited
//! once ([`super::maximal`]).

use std::rc::Rc;

use super::holes::{cut, dep_prefix, fix_cas_layout, frontier, held_by_atomicity};
use super::maximal::{CoAfter, pending_reads, rmw_hole_left, rmw_write_hole_left};
use crate::error::CheckError;
use crate::exec::bitset::BitSet;
use crate::exec::event::EventId;
use crate::exec::event::NewEvent;
use crate::exec::graph::{ExecutionGraph, HOLE};
use crate::exec::interp::{Replay, Step, replay};
use crate::model::MemoryModel;
use crate::options::{Gap, RevisitOutcome};
use crate::program::CompiledProgram;
use crate::program::label::EventKind;
use crate::program::porf_cycles::accesses;
use crate::verdict::Collector;

/// A fence that [`Explorer`]'s `next` puts back into its hole before any other hole is refilled:
/// an instruction's own fence (not the completion of a bulk copy, not a `tcgen05` event).
pub(super) fn refilled_early(l: &crate::program::label::Label) -> bool {
    l.is_fence() && !l.completion_fence && l.tc.is_none() && l.bulk_copy == 0
}

/// How deep [`Explorer::visit`] may recurse before the exploration stops with an error. Each level
/// adds an event or revisits a read, so a real exploration stays within a small multiple of the
/// events of one execution (hundreds); an endless cycle of revisits (`maximal.rs`, "Dead ends")
/// would otherwise overflow the explorer's stack (512 MiB: some 100,000 levels in a release
/// build, fewer in a debug one) and abort the process.
const MAX_DEPTH: usize = 20_000;

pub(crate) struct Explorer<'a, 'c> {
    pub prog: &'a CompiledProgram,
    pub model: &'a dyn MemoryModel,
    pub loop_bound: u32,
    pub out: &'a mut Collector<'c>,
    /// Stop (with an error) after this many explored graphs (complete + blocked).
    pub max_executions: u64,
    pub depth: usize,
    pub max_depth: usize,
    /// HMC's revisits (keep the dependency prefix of the revisiting write, leaving holes) rather
    /// than TruSt's (keep its `po ∪ rf` prefix): [`super::revisits::Revisits::dependency`].
    pub dependency_revisits: bool,
    /// Set when a revisit was skipped because no graph qualifies for it (a forced source the
    /// explorer does not accept, [`super::maximal`]'s module docs): the verdict then says the
    /// explorer may have missed executions.
    pub lost_revisit: std::cell::Cell<bool>,
    /// Set when a write's dependency prefix held a read of its location only through another
    /// atomic rmw reading that read's rmw write ([`super::holes::held_by_atomicity`]): the revisit
    /// is refused, and the graph it needs may not exist, so the verdict says executions may be
    /// missed.
    pub atomicity_held: std::cell::Cell<bool>,
    /// Whether to look for [`Self::atomicity_held`]: with the dependency revisits, where two
    /// threads have rmws of one location
    /// ([`super::revisits::rmws_of_one_location_in_two_threads`]).
    pub asks_atomicity: bool,
    /// Set when a revisit left the read of an atomic rmw a hole while it deleted a write of that
    /// read's location ([`super::maximal::rmw_hole_left`]), or when the maximality test rejected
    /// one that kept such a read, reading a deleted write, and left its write a hole
    /// ([`super::maximal::rmw_write_hole_left`]): where the rmw-hole gap can start.
    /// Without it, the verdict does not name that gap ([`super::revisits::Met`]). Starts set
    /// where the verdict's caveats do not depend on it (no such gap possible, or not PTX), so that
    /// the test is not made there.
    pub rmw_hole_met: std::cell::Cell<bool>,
    /// How many more graphs a completion search ([`Explorer::completable`]) may judge before it
    /// gives up and answers that no completion exists; `None`: no limit. Set only around the
    /// searches whose "no" is the safe answer ([`super::maximal`], "Reads kept ahead of a
    /// revisit").
    pub completion_budget: std::cell::Cell<Option<u32>>,
    /// How many more graphs the completion searches of the maximality test under way may judge
    /// before they give up and answer that a completion exists
    /// ([`crate::Options::maximality_budget`]); `None` outside the test.
    pub maximality_budget: std::cell::Cell<Option<u32>>,
    /// What [`Explorer::maximality_budget`] starts at in each test ([`crate::Options::maximality_budget`]).
    pub maximality_limit: u32,
    /// Set when the maximality test gave up a completion search and refused the revisit: the
    /// verdict then says executions may be missed.
    pub completion_gave_up: std::cell::Cell<bool>,
    /// While the maximality test searches a completion for a revisit ([`super::maximal`],
    /// "Waiting holes at the revisit"): the revisiting write.
    pub waits_for: std::cell::Cell<Option<EventId>>,
    /// The graphs the completion search under way found no completion of
    /// ([`super::maximal::FillMemo`]).
    pub fill_memo: std::cell::RefCell<super::maximal::FillMemo>,
    /// While the maximality test asks for a completion in which the revisiting write is out of
    /// `co` wherever [`super::maximal`] would place it ("Refilled before the revisiting write").
    pub revisiting_write_out: std::cell::Cell<bool>,
    /// Per thread, the last [`replay`] (the values it replayed, and its result): `next` replays
    /// every thread before the one that moves, and a finished thread's values rarely change.
    pub replays: std::cell::RefCell<Vec<Option<ReplayedThread>>>,
    /// Whether some thread has an `assume` (then every graph is first tested for [`Self::moot`],
    /// and `next` defers the reads that fail one, [`Self::fails_on_latest`]).
    pub assumes: bool,
    /// Whether the program makes barrier arrivals ([`CompiledProgram::has_barriers`]): without
    /// them no thread waits at one, which `next` need not ask of each thread.
    pub barriers: bool,
    /// Whether some thread has a blocking wait (then every graph is first tested for
    /// [`Self::moot`]).
    pub awaits: bool,
    /// [`Explorer::next`]'s list of the threads it found stopped, with their replays.
    pub stopped: std::cell::RefCell<Vec<(usize, Rc<Replay>)>>,
    /// [`Explorer::next`]'s list of each thread's frontier (space kept from call to call).
    pub frontiers: std::cell::RefCell<Vec<usize>>,
    /// Space for the graphs without holes that the model judges ([`Explorer::consistent`]).
    pub compacted: std::cell::RefCell<super::holes::Compacted>,
    /// The deadline and cancellation flag, polled once per graph visited.
    pub bound: &'a crate::explore::bound::Bound,
    /// What part of the exploration tree to explore ([`Part`]).
    pub part: Part,
    /// The path from the root to the graph being visited: its index among its parent's children
    /// at each level ([`super::split`]).
    pub path: Vec<u32>,
    /// Per level of the recursion, how many children of the graph there were visited so far.
    pub children: Vec<u32>,
    /// Per level of the recursion, the first child given away to another thread ([`Donor`]);
    /// `u32::MAX` where none was.
    pub given: Vec<u32>,
    /// Where a parallel check's idle threads ask for work, and the variant explored.
    pub donor: Option<Donor<'a>>,
}

/// A parallel check's share of work ([`super::donate`]) as one of its explorers sees it.
#[derive(Clone, Copy)]
pub(crate) struct Donor<'a> {
    pub share: &'a super::donate::Share,
    pub variant: u32,
}

/// Which part of the exploration tree an [`Explorer`] explores. The tree: each graph visited
/// past its consistency check (`visit_consistent`) is a node, its children the graphs it visits
/// in turn; the exploration is a function of the program, so a node is named by its path
/// (module docs of [`super::split`]).
pub(crate) enum Part {
    /// All of it.
    All,
    /// Nothing: the paths of the nodes at this depth (the root's is 0), and of the leaves above
    /// it, go to `out` in the order of exploration — together they cover every execution once.
    Split { depth: usize, out: Vec<Vec<u32>> },
    /// The subtree at this path only (the nodes on the way are visited, their other children
    /// skipped); `reached` is set when it is. With `rest`, also every later sibling's: the
    /// children of the path's parent from the path's last index on ([`super::donate`]).
    Subtree { path: Vec<u32>, rest: bool, reached: bool },
}

/// The values a thread's events read or wrote, and what [`replay`] gave for them.
type ReplayedThread = (Vec<i64>, Rc<Replay>);

enum Next {
    /// The event for this position: one past the thread's last event, or its first hole.
    Add(EventId, NewEvent),
    Finished {
        /// Each thread's last replay (its registers at its end); `None` for a thread waiting at
        /// a barrier.
        replays: Vec<Option<Rc<Replay>>>,
        /// Threads stopped for good: by the loop bound, at a barrier, by a failed `assume`.
        blocked: Vec<usize>,
    },
    /// A thread's `assume` failed where no extension of the graph can change that: nothing is
    /// left to explore ([`Explorer::moot`]).
    Moot,
}

impl Explorer<'_, '_> {
    pub fn run(&mut self) -> Result<(), CheckError> {
        let init = self.prog.locations.iter().map(|l| l.init).collect();
        let mut g = ExecutionGraph::new(init, self.prog.threads.len());
        g.barrier_members = self.prog.barrier_members.clone();
        g.barrier_dyn_members = self.prog.barrier_dyn_members.clone();
        self.path.clear();
        self.children = vec![0];
        self.given = vec![u32::MAX];
        self.visit(g)
    }

    /// [`replay`] of thread `t` over the values of its first `f` events (a pure function of
    /// them: the last result per thread is kept).
    fn replay_thread(&self, g: &ExecutionGraph, t: usize, f: usize) -> Result<Rc<Replay>, CheckError> {
        let values = || g.threads[t][..f].iter().map(|e| e.value);
        let mut cache = self.replays.borrow_mut();
        if cache.len() < g.threads.len() {
            cache.resize_with(g.threads.len(), || None);
        }
        if let Some((key, r)) = &cache[t]
            && key.len() == f
            && key.iter().copied().eq(values())
        {
            return Ok(r.clone());
        }
        let key: Vec<i64> = values().collect();
        let r = Rc::new(replay(&self.prog.threads[t], &key, self.loop_bound)?);
        cache[t] = Some((key, Rc::clone(&r)));
        Ok(r)
    }

    fn next(&self, g: &ExecutionGraph) -> Result<Next, CheckError> {
        if self.assumes || self.awaits {
            for t in 0..g.threads.len() {
                if self.moot(g, t)? {
                    return Ok(Next::Moot);
                }
            }
        }
        // Each thread's frontier (first hole, or end), found once: most graphs have no hole, and
        // the passes below look for them.
        let mut frontiers = self.frontiers.borrow_mut();
        frontiers.clear();
        frontiers.extend((0..g.threads.len()).map(|t| frontier(g, t)));
        let holes = |t: usize| frontiers[t] < g.threads[t].len();
        // An rmw whose read is in the graph and whose write is not goes first. Only a thread whose
        // event before its frontier is an atomic read can be in that state.
        for (t, evs) in g.threads.iter().enumerate() {
            let f = frontiers[t];
            // (A `cas` read of another value than it expects has no write half.)
            let last = evs.get(f.wrapping_sub(1));
            if last.is_some_and(|e| e.label.is_read() && e.label.atomic && e.cas_expected.is_none_or(|v| v == e.value))
                && let Step::Event(ev) = &self.replay_thread(g, t, f)?.step
                && ev.label.rmw_write
            {
                return Ok(Next::Add(EventId::new(t, f), ev.clone()));
            }
        }
        // Then the fences that fill holes, wherever they are (module docs).
        for (t, evs) in g.threads.iter().enumerate().filter(|&(t, _)| holes(t)) {
            // (No hole comes before the frontier.)
            if let Some(i) = (frontiers[t]..evs.len()).find(|&i| evs[i].stamp == HOLE && refilled_early(&evs[i].label)) {
                let e = &evs[i];
                return Ok(Next::Add(
                    EventId::new(t, i),
                    NewEvent { label: e.label, value: 0, deps: e.deps, cas_expected: None, span: e.span },
                ));
            }
        }
        // Holes are filled before any thread goes past its last event: a kept event after a
        // hole may need the events before it (in the same thread) to be justified.
        let order = (0..g.threads.len()).filter(|&t| holes(t));
        let order = order.chain((0..g.threads.len()).filter(|&t| !holes(t)));
        // (The stopped threads' replays: their registers are wanted only if no thread moves.
        // Space kept from call to call: most calls stop some threads before one moves.)
        let mut stopped = self.stopped.borrow_mut();
        stopped.clear();
        let mut blocked = Vec::new();
        let mut deferred = None;
        let mut waiting = false;
        for t in order {
            let f = frontiers[t];
            let at_hole = f < g.threads[t].len();
            if at_hole && g.pending_source(EventId::new(t, f)).is_some_and(|w| g.is_hole(w)) {
                // A pending read waits for its write to come back (`maximal`, "Pending reads").
                continue;
            }
            if at_hole && g.still_waiting(EventId::new(t, f)) {
                // A waiting read lets the other threads go on (module docs, "Waiting holes").
                waiting = true;
                continue;
            }
            debug_assert!(
                self.barriers || !g.threads[t].iter().any(|e| e.label.is_barrier()),
                "[tcfuzz internal bug] a barrier arrival has_barriers does not know"
            );
            if !at_hole && self.barriers && g.waiting_at_barrier(t) {
                // Stuck unless the rest of its CTA arrives later; a hang if nobody can move.
                blocked.push(t);
                continue;
            }
            let r = self.replay_thread(g, t, f)?;
            match &r.step {
                Step::Event(ev) => {
                    debug_assert!(
                        !at_hole || {
                            let old = &g.threads[t][f].label;
                            (old.kind, old.loc, old.rmw_write) == (ev.label.kind, ev.label.loc, ev.label.rmw_write)
                                || old.is_accumulator_slot_of(&ev.label)
                        },
                        "[tcfuzz internal bug] a hole refilled with another instruction"
                    );
                    if !at_hole && self.assumes && self.fails_on_latest(g, t, f, ev)? {
                        deferred.get_or_insert((EventId::new(t, f), ev.clone()));
                        continue;
                    }
                    return Ok(Next::Add(EventId::new(t, f), ev.clone()));
                }
                Step::Done => stopped.push((t, Rc::clone(&r))),
                Step::Blocked | Step::AssumeFailed => {
                    stopped.push((t, Rc::clone(&r)));
                    blocked.push(t);
                }
            }
            debug_assert!(!at_hole, "[tcfuzz internal bug] a thread stops before its holes");
        }
        if let Some((a, ev)) = deferred {
            return Ok(Next::Add(a, ev));
        }
        if waiting {
            // No thread can go on to give a waiting read a source: a dead end, no execution.
            return Ok(Next::Moot);
        }
        let mut replays = vec![None; g.threads.len()];
        for (t, r) in stopped.drain(..) {
            replays[t] = Some(r);
        }
        Ok(Next::Finished { replays, blocked })
    }

    /// Whether `ev`, thread `t`'s next event (at position `f`, past its last), is a read after
    /// which the thread fails an `assume` if it reads the `co`-latest write of its location: a
    /// read `next` defers (module docs).
    fn fails_on_latest(&self, g: &ExecutionGraph, t: usize, f: usize, ev: &NewEvent) -> Result<bool, CheckError> {
        if !ev.label.is_read() {
            return Ok(false);
        }
        // (`co` holds no holes; the initial write comes first in `writes_to`.)
        let loc = ev.label.loc;
        let v = match g.writes_to(loc).last() {
            Some(w) if !w.is_init() => g.write_value(w),
            _ => g.init[loc as usize],
        };
        let mut values: Vec<i64> = g.threads[t][..f].iter().map(|e| e.value).collect();
        values.push(v);
        Ok(replay(&self.prog.threads[t], &values, self.loop_bound)?.step == Step::AssumeFailed)
    }

    /// Whether thread `t` of `g` stopped at a failed `assume`, or at a failed blocking wait,
    /// that no extension of `g` can get past, so that every graph the exploration would reach
    /// from `g` is a discarded execution (GenMC moots such executions,
    /// `mootExecutionIfFullyBlocked`; the argument is ours).
    ///
    /// It holds when the thread's last event is a read `r`, added after every other event of
    /// the thread and reading from a write added before it, and some write of its location
    /// added before `r` is `co`-after that source. Then `r` is in no revisit's prefix (nothing
    /// follows it in `po ∪ rf ∪ dep`), and every revisit that deletes or revisits an event of
    /// the thread deletes or revisits `r`, which needs `r` maximally added ([`super::maximal`]):
    /// it is not — the `co`-later write is in `Previous(r)`, and a read with nothing after it can
    /// take a `co`-later source wherever it can take its own. So the thread's events, and its
    /// failed `assume`, stay in every graph reached from `g`. A failed wait stays too, reading a
    /// write with a `co`-later one: every execution reached is one where the wait would retry
    /// and see the newer state, which is no execution at all (`crate::program::sync`, "Hangs";
    /// the collector drops them, `Stop::StaleAwait`) — so nothing reached from `g` is recorded.
    fn moot(&self, g: &ExecutionGraph, t: usize) -> Result<bool, CheckError> {
        let evs = &g.threads[t];
        let Some(last) = evs.len().checked_sub(1) else { return Ok(false) };
        let r = EventId::new(t, last);
        if frontier(g, t) != evs.len() || !g.label(r).is_read() {
            return Ok(false);
        }
        let sr = g.stamp(r);
        if evs[..last].iter().any(|e| e.stamp > sr) {
            return Ok(false);
        }
        let Some(w) = g.event(r).rf else { return Ok(false) };
        if !w.is_init() && g.stamp(w) > sr {
            return Ok(false);
        }
        let overwritten =
            g.writes_to(g.label(r).loc).skip_while(|&x| x != w).skip(1).any(|s| !s.is_init() && !g.is_hole(s) && g.stamp(s) < sr);
        if !overwritten {
            return Ok(false);
        }
        let replay = self.replay_thread(g, t, evs.len())?;
        Ok(replay.step == Step::AssumeFailed || (replay.step == Step::Blocked && replay.await_failed))
    }

    /// `Visit(G)` of the module docs.
    fn visit(&mut self, g: ExecutionGraph) -> Result<(), CheckError> {
        if !self.admits(&g) {
            return Ok(());
        }
        self.visit_consistent(g)
    }

    /// The first step of `Visit(G)`, for a candidate graph that is explored only if it passes
    /// (callers that try several candidates in one graph in turn clone only those that do).
    fn admits(&mut self, g: &ExecutionGraph) -> bool {
        self.max_depth = self.max_depth.max(self.depth + 1);
        self.consistent(g)
    }

    /// [`Explorer::admits`] for `g`, made of a graph just found consistent and `a` added as a
    /// sink ([`MemoryModel::sink_extension`]): its thread's last event, read by nothing, last in
    /// `co` if a write.
    fn admits_sink(&mut self, g: &ExecutionGraph, a: EventId) -> bool {
        // With holes the model judges another graph (`holes::Compacted`): left to the full check. An
        // event filling a hole is not its thread's last, and may have readers.
        let last = a.index as usize + 1 == g.threads[a.thread as usize].len();
        // (Only dependency revisits leave holes.)
        let sink = last && (!self.dependency_revisits || !g.has_holes()) && (!g.label(a).is_write() || g.readers(a).next().is_none());
        let quick = if sink { self.model.sink_extension(g, a) } else { None };
        let Some(ok) = quick else { return self.admits(g) };
        self.max_depth = self.max_depth.max(self.depth + 1);
        debug_assert_eq!(ok, self.consistent(g), "[tcfuzz internal bug] sink_extension disagrees with is_consistent on {a:?}");
        ok
    }

    /// `Visit(G)` past the consistency check.
    fn visit_consistent(&mut self, g: ExecutionGraph) -> Result<(), CheckError> {
        if self.depth >= MAX_DEPTH {
            return Err(CheckError::TooLarge(format!(
                "the exploration went {MAX_DEPTH} graphs deep, which only revisits that undo each other for ever reach (a tcfuzz bug: please report the program; the oracle still judges it)"
            )));
        }
        if let Some(cause) = self.bound.poll() {
            let mut partial = self.out.stats().clone();
            partial.max_depth = partial.max_depth.max(self.max_depth);
            return Err(CheckError::Interrupted { cause, partial });
        }
        let index = self.children[self.depth];
        self.children[self.depth] += 1;
        if index >= self.given[self.depth] {
            // Another thread explores it ([`Explorer::donate`]).
            return Ok(());
        }
        match &mut self.part {
            Part::All => {}
            Part::Split { depth, out } if self.depth == *depth => {
                out.push(self.path.iter().copied().chain([index]).collect());
                return Ok(());
            }
            Part::Split { .. } => {}
            Part::Subtree { path, rest: true, reached } if self.depth + 1 == path.len() => {
                if index < path[self.depth] {
                    return Ok(());
                }
                *reached = true;
            }
            Part::Subtree { path, reached, .. } => match path.get(self.depth) {
                Some(&i) if i != index => return Ok(()),
                Some(_) => *reached |= self.depth + 1 == path.len(),
                None => {}
            },
        }
        if let Some(d) = self.donor
            && d.share.wanted()
        {
            self.donate(d);
        }
        self.path.push(index);
        self.children.push(0);
        self.given.push(u32::MAX);
        self.depth += 1;
        let parts = if let Part::Split { out, .. } = &self.part { out.len() } else { 0 };
        let r = self.visit_inner(g);
        self.depth -= 1;
        // A node above the split depth with no part below it (a leaf, or a graph whose children
        // are all inconsistent) is a part of its own: what it does (its execution, a revisit it
        // could not take) is in no other.
        if let Part::Split { out, .. } = &mut self.part
            && out.len() == parts
        {
            out.push(self.path.clone());
        }
        self.children.pop();
        self.given.pop();
        self.path.pop();
        r
    }

    /// Gives idle threads the children still to come of the nodes on the current path, the
    /// shallowest first (the most work left), as long as one waits: each is then skipped here.
    /// Only nodes of the part this explorer owns; a node may turn out to have no child left.
    fn donate(&mut self, d: Donor<'_>) {
        let first = match &self.part {
            Part::All => 1,
            Part::Split { .. } => return,
            Part::Subtree { path, rest, .. } => path.len() - usize::from(*rest),
        };
        for level in first..=self.depth {
            if self.given[level] != u32::MAX {
                continue;
            }
            let next = self.children[level];
            let path = self.path[..level].iter().copied().chain([next]).collect();
            if !d.share.give(super::donate::Donation { variant: d.variant, path, rest: true }) {
                return;
            }
            self.given[level] = next;
        }
    }

    /// Whether a leaf of the exploration tree at the current depth is an execution to record:
    /// in the part explored ([`Part::Split`] records none).
    fn records_leaf(&self) -> bool {
        match &self.part {
            Part::All => true,
            Part::Split { .. } => false,
            Part::Subtree { path, .. } => self.depth >= path.len(),
        }
    }

    fn visit_inner(&mut self, g: ExecutionGraph) -> Result<(), CheckError> {
        match self.next(&g)? {
            Next::Finished { replays, blocked } => {
                if !self.records_leaf() {
                    return Ok(());
                }
                let regs: Vec<&[i64]> = replays.iter().map(|r| r.as_deref().map_or(&[][..], |r| &r.regs[..])).collect();
                self.out.record(&g, &regs, &blocked, self.model);
                let explored = self.out_count();
                if explored > self.max_executions {
                    // The counts are the collector's; `check::explore_part` fills them in.
                    return Err(CheckError::TooManyExecutions { max_executions: self.max_executions, partial: Default::default() });
                }
                Ok(())
            }
            Next::Moot => Ok(()),
            Next::Add(a, ev) => match ev.label.kind {
                EventKind::Fence | EventKind::Barrier => {
                    let mut g = g;
                    g.put_event(a, &ev, None);
                    if self.admits_sink(&g, a) { self.visit_consistent(g) } else { Ok(()) }
                }
                EventKind::Read => {
                    if g.pending_source(a).is_some() {
                        // It reads the write it read before the revisit, back now.
                        let mut g = g;
                        g.fill_pending(a, &ev);
                        fix_cas_layout(&mut g, a);
                        return self.visit(g);
                    }
                    // The candidate sources: `writes_to(loc)` from the floor on, by index (reading
                    // them changes no `co`).
                    let loc = ev.label.loc;
                    let floor = self.model.co_floor(&g, a, &ev.label);
                    let source = |g: &ExecutionGraph, k: usize| if k == 0 { EventId::init(loc) } else { g.co[loc as usize][k - 1] };
                    let count = g.co[loc as usize].len() + 1;
                    if (a.index as usize) < g.threads[a.thread as usize].len() {
                        // `a` fills a hole: the value it reads may move the events after it
                        // (`fix_cas_layout`), so each candidate is a graph of its own.
                        let mut any = false;
                        for k in floor..count {
                            let w = source(&g, k);
                            let mut g2 = g.clone();
                            g2.put_event(a, &ev, Some(w));
                            g2.waiting.retain(|&(h, _)| h != a);
                            fix_cas_layout(&mut g2, a);
                            if self.admits(&g2) {
                                any = true;
                                self.visit_consistent(g2)?;
                            }
                        }
                        if !any && self.dependency_revisits && self.may_be_written_later(&g, a) && {
                            let holes = g.event_ids().filter(|&e| g.is_hole(e)).collect();
                            self.completable(g.clone(), holes)?
                        } {
                            // No write of the graph fills it: it waits (module docs, "Waiting holes").
                            let mut g = g;
                            g.waiting.retain(|&(h, _)| h != a);
                            g.make_waiting(a);
                            return self.visit_consistent(g);
                        }
                        return Ok(());
                    }
                    // `a` is its thread's last event (the layout fix has nothing to move): one
                    // graph, whose `rf(a)` changes from candidate to candidate.
                    let mut g = g;
                    if floor >= count {
                        return Ok(());
                    }
                    let last = source(&g, count - 1);
                    g.put_event(a, &ev, Some(last));
                    for k in floor..count - 1 {
                        g.set_rf(a, source(&g, k));
                        if self.admits_sink(&g, a) {
                            self.visit_consistent(g.clone())?;
                        }
                    }
                    g.set_rf(a, last);
                    if self.admits_sink(&g, a) { self.visit_consistent(g) } else { Ok(()) }
                }
                EventKind::Write => {
                    let mut g1 = g;
                    g1.put_event(a, &ev, None);
                    // The revisits first: they read `g1` as it is, which the forward exploration
                    // then takes over (the order of a graph's children does not matter).
                    self.backward_revisits(&g1, a)?;
                    self.visit_cos(g1, a, true)
                }
            },
        }
    }

    /// Whether the code of a thread other than read hole `h`'s writes `h`'s location: one that
    /// could go on and give it a source (its own thread does not go on before it is filled).
    fn may_be_written_later(&self, g: &ExecutionGraph, h: EventId) -> bool {
        let loc = g.label(h).loc;
        self.prog
            .threads
            .iter()
            .enumerate()
            .any(|(u, code)| u != h.thread as usize && code.code.iter().any(|l| accesses(&l.op).writes.iter().any(|w| w.loc == loc)))
    }

    /// Whether the model finds `g` (without its holes) consistent.
    pub(super) fn consistent(&self, g: &ExecutionGraph) -> bool {
        if !self.dependency_revisits || !g.has_holes() {
            return self.model.is_consistent(g);
        }
        let full = || {
            let mut compacted = self.compacted.borrow_mut();
            compacted.load(g, self.prog.tile.is_some());
            self.model.is_consistent(&compacted.graph)
        };
        if let Some(quick) = self.model.quick_verdict(g) {
            debug_assert_eq!(quick, full(), "[tcfuzz internal bug] quick_verdict disagrees with is_consistent");
            return quick;
        }
        full()
    }

    fn out_count(&self) -> u64 {
        self.out.explored()
    }

    /// `VisitCOs(G, a)`: each candidate is `g` with `a` inserted in `co`, checked in place; those
    /// found consistent are then explored, the last one in `g` itself. `fresh`: `a` was just
    /// added to a consistent graph and nothing reads it, so the model may judge each position
    /// from `a` alone ([`MemoryModel::sink_extension`]).
    fn visit_cos(&mut self, mut g: ExecutionGraph, a: EventId, fresh: bool) -> Result<(), CheckError> {
        let loc = g.loc_of(a) as usize;
        // An rmw's write has one possible place where the model says so (the others would be
        // rejected one by one).
        let positions = match self.model.rmw_co_position(&g, a) {
            Some(p) if p <= g.co[loc].len() => p..=p,
            _ => {
                let last = g.co[loc].len().min(self.model.co_ceiling(&g, a, g.label(a)).saturating_sub(1));
                debug_assert!(
                    (last + 1..=g.co[loc].len()).all(|pos| {
                        g.insert_co(a, pos);
                        let ok = !self.consistent(&g);
                        g.co[loc].remove(pos);
                        ok
                    }),
                    "[tcfuzz internal bug] co_ceiling ruled out a consistent place"
                );
                self.model.co_floor(&g, a, g.label(a)).min(g.co[loc].len())..=last
            }
        };
        let mut admitted = Vec::new();
        for pos in positions {
            g.insert_co(a, pos);
            if if fresh { self.admits_sink(&g, a) } else { self.admits(&g) } {
                admitted.push(pos);
            }
            g.co[loc].remove(pos);
        }
        let Some((&final_pos, others)) = admitted.split_last() else { return Ok(()) };
        for &pos in others {
            let mut g2 = g.clone();
            g2.insert_co(a, pos);
            self.visit_consistent(g2)?;
        }
        g.insert_co(a, final_pos);
        self.visit_consistent(g)
    }

    fn backward_revisits(&mut self, g: &ExecutionGraph, a: EventId) -> Result<(), CheckError> {
        // Most writes have no read to revisit but those they depend on (an rmw's own read): then
        // there is no prefix to compute.
        let loc = g.loc_of(a);
        let own = g.event(a).deps;
        let own_read = |r: EventId| r.thread == a.thread && r.index < a.index && own & 1 << r.index != 0;
        // The reads to revisit, in the order of the graph: found before the prefix, which then
        // removes those `a` depends on (its own rmw read among them).
        // (Loops over the threads rather than `present`: asked of every write added.)
        let mut reads: Vec<EventId> = Vec::new();
        for (t, evs) in g.threads.iter().enumerate() {
            for (i, ev) in evs.iter().enumerate() {
                let r = EventId::new(t, i);
                if ev.stamp != HOLE && ev.label.is_read() && ev.label.loc == loc && !own_read(r) {
                    reads.push(r);
                }
            }
        }
        if reads.is_empty() {
            return Ok(());
        }
        let idx = g.node_index();
        let prefix = if self.dependency_revisits { dep_prefix(g, &idx, self.prog, a) } else { g.porf_prefix(&idx, a) };
        let asked = self.asks_atomicity && !self.atomicity_held.get();
        if let Some(r) = asked.then(|| held_by_atomicity(g, &idx, self.prog, a, &prefix)).flatten() {
            self.atomicity_held.set(true);
            let traced = self.traced(g, (a, r), RevisitOutcome::HeldByAtomicity, None);
            self.trace_met(traced, true, Gap::AtomicityHeld);
        }
        reads.retain(|&r| !prefix.contains(idx.node(r)));
        if reads.is_empty() {
            return Ok(());
        }
        // The events a revisit may delete: those outside the prefix, with their stamps.
        let mut outside: Vec<(usize, u32)> = Vec::new();
        for (t, evs) in g.threads.iter().enumerate() {
            for (i, ev) in evs.iter().enumerate() {
                let n = idx.node(EventId::new(t, i));
                if ev.stamp != HOLE && !prefix.contains(n) {
                    outside.push((n, ev.stamp));
                }
            }
        }
        let mut co_after = None;
        let mut deleted = BitSet::new(idx.len());
        for r in reads {
            // Under TruSt's revisits most candidates fail the maximality test on `r` alone: asked
            // before the deleted set is built (debug builds go on, to check the answer).
            let read_maximal = self.dependency_revisits || {
                let co_after = co_after.get_or_insert_with(|| CoAfter::new(g, &idx, &prefix));
                self.revisited_read_maximal(g, &idx, r, &prefix, co_after)
            };
            if !read_maximal && !cfg!(debug_assertions) {
                self.traced(g, (a, r), RevisitOutcome::NotMaximal, None);
                continue;
            }
            let sr = g.stamp(r);
            deleted.clear();
            for &(n, _) in outside.iter().filter(|&&(_, s)| s > sr) {
                deleted.insert(n);
            }
            let kept = |e: EventId| !g.is_hole(e) && !deleted.contains(idx.node(e));
            if self.model.revisit_forbidden(g, a, r, &kept) {
                self.traced(g, (a, r), RevisitOutcome::Forbidden, None);
                continue;
            }
            let co_after = co_after.get_or_insert_with(|| CoAfter::new(g, &idx, &prefix));
            let pending = if self.dependency_revisits { pending_reads(g, &idx, r, &deleted) } else { Vec::new() };
            let (lost_before, gave_up_before) = (self.lost_revisit.get(), self.completion_gave_up.get());
            if !self.maximally_added_bounded(g, &idx, (a, r), (&prefix, co_after), &deleted, &pending)? {
                // (Rejected, it may still be the only way to its graphs: `rmw_write_hole_left`.)
                let rmw_hole = self.dependency_revisits && !self.rmw_hole_met.get() && rmw_write_hole_left(g, &idx, &deleted);
                if rmw_hole {
                    self.rmw_hole_met.set(true);
                }
                let traced = self.traced(g, (a, r), RevisitOutcome::NotMaximal, None);
                self.trace_met(traced, rmw_hole, Gap::RmwHole);
                self.trace_met(traced, !lost_before && self.lost_revisit.get(), Gap::LostRevisit);
                self.trace_met(traced, !gave_up_before && self.completion_gave_up.get(), Gap::GaveUp);
                continue;
            }
            debug_assert!(read_maximal, "[tcfuzz internal bug] revisited_read_maximal refused a maximal revisit");
            let mut g2 = g.clone();
            // `r`'s new source first: its old one may be deleted (a forced source, `maximal`).
            g2.set_rf(r, a);
            // A pending read stays through the cut (its source goes), then waits for it.
            for &(x, _) in &pending {
                g2.event_mut(x).rf = None;
            }
            cut(&mut g2, &|e: EventId| !deleted.contains(idx.node(e)));
            for &(x, w) in &pending {
                g2.make_pending(x, w);
            }
            fix_cas_layout(&mut g2, r);
            // `a` may have moved one position if it follows `r` in `r`'s thread.
            let a2 = g2.event(r).rf.expect("[tcfuzz internal bug] revisited read without rf");
            if self.dead_end(g, &idx, (a, r), &deleted, &g2, a2)? {
                self.traced(g, (a, r), RevisitOutcome::DeadEnd, Some(&g2));
                continue;
            }
            let rmw_hole = self.dependency_revisits && !self.rmw_hole_met.get() && rmw_hole_left(g, &idx, &deleted);
            if rmw_hole {
                self.rmw_hole_met.set(true);
            }
            let traced = self.traced(g, (a, r), RevisitOutcome::Taken, Some(&g2));
            self.trace_met(traced, rmw_hole, Gap::RmwHole);
            if let Some(id) = traced {
                self.out.trace_enter(id);
            }
            let visited = self.visit_cos(g2, a2, false);
            if traced.is_some() {
                self.out.trace_leave();
            }
            visited?;
        }
        Ok(())
    }

    /// Traces that traced revisit `id` met `gap`, where it did.
    fn trace_met(&self, id: Option<u64>, met: bool, gap: Gap) {
        if let Some(id) = id.filter(|_| met) {
            self.out.trace_met(id, gap);
        }
    }

    /// Traces a backward revisit ([`crate::Options::trace`]) and gives its number; nothing is
    /// rendered untraced.
    fn traced(
        &mut self,
        g: &ExecutionGraph,
        (a, r): (EventId, EventId),
        outcome: RevisitOutcome,
        to: Option<&ExecutionGraph>,
    ) -> Option<u64> {
        if self.out.tracing() { self.out.trace_revisit(g, (a, r), outcome, to) } else { None }
    }
}
