//! TruSt with HMC's dependency revisits: the exploration procedure (see the module docs of
//! [`super`] for the rules and the papers).
//!
//! ```text
//! Visit(G):
//!   if ¬consistent(G \ holes): return
//!   a ← next(G)       -- an rmw's write half first (rmws are added whole); else the first hole of
//!                     --   the lowest-numbered thread with holes; else the next event of the
//!                     --   lowest-numbered unfinished thread
//!   none left      → output G (complete, or blocked if a thread hit the loop bound)
//!   a fence        → Visit(G + a)        (likewise a barrier arrival; a thread waiting at a
//!                                         barrier its whole CTA has not reached yet is skipped)
//!   a read         → for each write w to loc(a), in co order: Visit(G + a, rf(a) = w)
//!   a write        → VisitCOs(G + a, a)                                  -- forward
//!                    for each read r of loc(a), r ∉ prefix(a):           -- backward revisits
//!                      Deleted := {e | r <_G e} \ prefix(a)
//!                      if every e ∈ Deleted ∪ {r} was added maximally:
//!                        VisitCOs(Cut(G + a, Deleted), rf(r) = a)
//! VisitCOs(G, a): for each position p of co(loc(a)): Visit(G with a at p)
//! ```
//!
//! `prefix(a)` is the `po ∪ rf`-prefix (TruSt) or the dependency prefix (HMC); `Cut` turns a
//! deleted event into a hole where a later event of its thread stays. `<_G` is the order in which
//! events were added (their stamps). *Maximally added* (TruSt §5): with
//! `Previous(e) = {x | x ≤_G e} ∪ prefix(a)`, the write `e` is (or, for a read, the write it reads
//! from is) in `Previous(e)` and `co`-maximal among the writes of its location in `Previous(e)`
//! (with dependency revisits, among those `e` could take consistently with `Previous(e)` where
//! kept events follow `e` in its thread); and no read in `Previous(e)` reads from a deleted write.
//! This picks, among all graphs that a revisit would turn into the same graph, exactly one, which
//! makes the exploration optimal: each consistent graph is visited once.

use super::holes::{compact, cut, dep_prefix, fix_cas_layout, frontier, present};
use crate::bitset::BitSet;
use crate::error::CheckError;
use crate::event::{EventId, EventKind};
use crate::graph::{ExecutionGraph, NodeIndex};
use crate::interp::{NewEvent, Step, replay};
use crate::model::{MemoryModel, ModelKind};
use crate::program::{CompiledProgram, Op};
use crate::verdict::Collector;

/// Whether the explorer explores the `po ∪ rf`-cyclic executions `kind` allows (dependency-based
/// revisits), so that its verdicts need no caveat about them. Only for models that are
/// monotone (removing any events, with the reads of removed writes, keeps a graph consistent) and
/// forbid `rf ∪ dep` cycles (No-Thin-Air); PTX is both.
pub(crate) fn explores_porf_cycles(kind: ModelKind) -> bool {
    kind == ModelKind::Ptx
}

/// Whether `prog` uses synchronization objects (mbarriers, counted barriers, bulk copies: the
/// `sync` lowering): a blocking wait decides whether the thread goes on without being a
/// dependency of what follows, so the dependency revisits do not apply; such programs keep
/// TruSt's `po ∪ rf` revisits (and the load-buffering caveat).
pub(crate) fn has_sync_objects(prog: &CompiledProgram) -> bool {
    prog.threads.iter().flat_map(|t| &t.code).any(|l| matches!(l.op, Op::SyncArrive { .. } | Op::SyncWait { .. } | Op::BulkCopy { .. }))
}

/// Whether some thread of `prog` has a barrier or a `cas` followed by another event, or two
/// accesses of one location (or a loop): a syntactic over-approximation of where the pinned
/// program order (module docs) could close a cycle that the dependency revisits do not explore.
pub(crate) fn may_have_pinned_cycles(prog: &CompiledProgram) -> bool {
    prog.threads.iter().any(|t| {
        let event = |op: &Op| !matches!(op, Op::Mov { .. } | Op::Add { .. } | Op::Branch { .. } | Op::Goto { .. });
        let pin = |op: &Op| matches!(op, Op::Barrier { .. } | Op::Rmw { op: tcfuzz_litmus::AtomOp::Cas, .. });
        let loc = |op: &Op| match op {
            Op::Load { label, .. } | Op::Store { label, .. } | Op::Rmw { read: label, .. } => Some(label.loc),
            _ => None,
        };
        let looping =
            t.code.iter().enumerate().any(|(pc, l)| matches!(l.op, Op::Branch { target, .. } | Op::Goto { target } if target <= pc));
        let locs: Vec<u32> = t.code.iter().filter_map(|l| loc(&l.op)).collect();
        let repeated = locs.iter().enumerate().any(|(i, l)| locs[i + 1..].contains(l));
        let first_pin = t.code.iter().position(|l| pin(&l.op));
        repeated
            || (looping && (!locs.is_empty() || first_pin.is_some()))
            || first_pin.is_some_and(|i| t.code[i + 1..].iter().any(|l| event(&l.op)))
    })
}

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
    /// than TruSt's (keep its `po ∪ rf` prefix): [`explores_porf_cycles`] of the model.
    pub dependency_revisits: bool,
}

enum Next {
    /// The event for this position: one past the thread's last event, or its first hole.
    Add(EventId, NewEvent),
    Finished {
        regs: Vec<Vec<i64>>,
        blocked: Vec<usize>,
    },
}

impl Explorer<'_, '_> {
    pub fn run(&mut self) -> Result<(), CheckError> {
        let init = self.prog.locations.iter().map(|l| l.init).collect();
        let mut g = ExecutionGraph::new(init, self.prog.threads.len());
        g.barrier_members = self.prog.barrier_members.clone();
        self.visit(g)
    }

    fn next(&self, g: &ExecutionGraph) -> Result<Next, CheckError> {
        let performed = |t: usize, f: usize| -> Vec<i64> { g.threads[t][..f].iter().map(|e| e.value).collect() };
        // An rmw whose read is in the graph and whose write is not goes first. Only a thread whose
        // event before its frontier (first hole, or end) is an atomic read can be in that state.
        for (t, evs) in g.threads.iter().enumerate() {
            let f = frontier(g, t);
            if f > 0 && evs[f - 1].label.is_read() && evs[f - 1].label.atomic {
                if let Step::Event(ev) = replay(&self.prog.threads[t], &performed(t, f), self.loop_bound)?.step {
                    if ev.label.rmw_write {
                        return Ok(Next::Add(EventId::new(t, f), ev));
                    }
                }
            }
        }
        // Holes are filled before any thread goes past its last event: a kept event after a
        // hole may need the events before it (in the same thread) to be justified.
        let order = (0..g.threads.len()).filter(|&t| frontier(g, t) < g.threads[t].len());
        let order: Vec<usize> = order.chain((0..g.threads.len()).filter(|&t| frontier(g, t) == g.threads[t].len())).collect();
        let mut regs = vec![Vec::new(); g.threads.len()];
        let mut blocked = Vec::new();
        for t in order {
            let code = &self.prog.threads[t];
            let f = frontier(g, t);
            let holes = f < g.threads[t].len();
            if !holes && g.waiting_at_barrier(t) {
                // Stuck unless the rest of its CTA arrives later; a hang if nobody can move.
                blocked.push(t);
                continue;
            }
            let r = replay(code, &performed(t, f), self.loop_bound)?;
            match r.step {
                Step::Event(ev) => {
                    debug_assert!(
                        !holes || {
                            let old = &g.threads[t][f].label;
                            (old.kind, old.loc, old.rmw_write) == (ev.label.kind, ev.label.loc, ev.label.rmw_write)
                        },
                        "[tcfuzz internal bug] a hole refilled with another instruction"
                    );
                    return Ok(Next::Add(EventId::new(t, f), ev));
                }
                Step::Done => regs[t] = r.regs,
                Step::Blocked => {
                    regs[t] = r.regs;
                    blocked.push(t);
                }
            }
            debug_assert!(!holes, "[tcfuzz internal bug] a thread stops before its holes");
        }
        Ok(Next::Finished { regs, blocked })
    }

    fn visit(&mut self, g: ExecutionGraph) -> Result<(), CheckError> {
        self.depth += 1;
        self.max_depth = self.max_depth.max(self.depth);
        let r = self.visit_inner(g);
        self.depth -= 1;
        r
    }

    fn visit_inner(&mut self, g: ExecutionGraph) -> Result<(), CheckError> {
        let consistent =
            if self.dependency_revisits && g.has_holes() { self.model.is_consistent(&compact(&g)) } else { self.model.is_consistent(&g) };
        if !consistent {
            return Ok(());
        }
        match self.next(&g)? {
            Next::Finished { regs, blocked } => {
                self.out.record(&g, &regs, &blocked, self.model);
                let explored = self.out_count();
                if explored > self.max_executions {
                    return Err(CheckError::TooLarge(format!(
                        "more than {} executions (raise Options::max_executions)",
                        self.max_executions
                    )));
                }
                Ok(())
            }
            Next::Add(a, ev) => match ev.label.kind {
                EventKind::Fence | EventKind::Barrier => {
                    let mut g = g;
                    g.put_event(a, &ev, None);
                    self.visit(g)
                }
                EventKind::Read => {
                    let writes: Vec<EventId> = g.writes_to(ev.label.loc).collect();
                    for w in writes {
                        let mut g2 = g.clone();
                        g2.put_event(a, &ev, Some(w));
                        fix_cas_layout(&mut g2, a);
                        self.visit(g2)?;
                    }
                    Ok(())
                }
                EventKind::Write => {
                    let mut g1 = g;
                    g1.put_event(a, &ev, None);
                    self.visit_cos(&g1, a)?;
                    self.backward_revisits(&g1, a)
                }
            },
        }
    }

    fn out_count(&self) -> u64 {
        self.out.explored()
    }

    fn visit_cos(&mut self, g: &ExecutionGraph, a: EventId) -> Result<(), CheckError> {
        let loc = g.loc_of(a) as usize;
        for pos in 0..=g.co[loc].len() {
            let mut g2 = g.clone();
            g2.insert_co(a, pos);
            self.visit(g2)?;
        }
        Ok(())
    }

    fn backward_revisits(&mut self, g: &ExecutionGraph, a: EventId) -> Result<(), CheckError> {
        let idx = g.node_index();
        let prefix = if self.dependency_revisits { dep_prefix(g, &idx, a) } else { g.porf_prefix(&idx, a) };
        let loc = g.loc_of(a);
        let reads: Vec<EventId> = present(g)
            .filter(|&r| {
                let l = g.label(r);
                l.is_read() && l.loc == loc && !prefix.contains(idx.node(r))
            })
            .collect();
        for r in reads {
            let sr = g.stamp(r);
            let mut deleted = BitSet::new(idx.len());
            for e in present(g) {
                let n = idx.node(e);
                if g.stamp(e) > sr && !prefix.contains(n) {
                    deleted.insert(n);
                }
            }
            let how = Maximality { model: self.model, dependency: self.dependency_revisits };
            if !maximally_added(g, how, &idx, (a, r), &prefix, &deleted) {
                continue;
            }
            let mut g2 = g.clone();
            cut(&mut g2, &|e: EventId| !deleted.contains(idx.node(e)));
            g2.set_rf(r, a);
            fix_cas_layout(&mut g2, r);
            // `a` may have moved one position if it follows `r` in `r`'s thread.
            let a2 = g2.event(r).rf.expect("[tcfuzz internal bug] revisited read without rf");
            self.visit_cos(&g2, a2)?;
        }
        Ok(())
    }
}

/// How [`maximally_added`] judges: with dependency revisits, where kept events follow an event
/// in its thread, by asking the model.
#[derive(Clone, Copy)]
struct Maximality<'m> {
    model: &'m dyn MemoryModel,
    dependency: bool,
}

/// TruSt's maximality condition over `Deleted ∪ {r}` (see the module docs).
fn maximally_added(
    g: &ExecutionGraph,
    how: Maximality,
    idx: &NodeIndex,
    (a, r): (EventId, EventId),
    prefix: &BitSet,
    deleted: &BitSet,
) -> bool {
    // No read kept in Previous(e) may read from a deleted write `e` (checked first: the
    // consistency tests below restrict the graph to such sets).
    for e in deleted.iter().map(|n| idx.id(n)) {
        let se = g.stamp(e);
        let previous = |x: EventId| !g.is_hole(x) && (g.stamp(x) <= se || prefix.contains(idx.node(x)));
        if g.label(e).is_write() && g.readers(e).any(previous) {
            return false;
        }
    }
    let checked = deleted.iter().map(|n| idx.id(n)).chain(std::iter::once(r));
    for e in checked {
        let se = g.stamp(e);
        let previous = |x: EventId| x.is_init() || (!g.is_hole(x) && (g.stamp(x) <= se || prefix.contains(idx.node(x))));
        let label = g.label(e);
        let write = match label.kind {
            EventKind::Fence | EventKind::Barrier => continue,
            EventKind::Write => {
                if g.readers(e).any(previous) {
                    return false;
                }
                e
            }
            EventKind::Read => g.event(e).rf.expect("[tcfuzz internal bug] read without rf in a revisited graph"),
        };
        if !previous(write) {
            return false;
        }
        // HMC: where kept events follow `e` in its thread (after holes), the co-maximal choice
        // may be inconsistent with them; the canonical parent takes the co-maximal choice that is
        // consistent with the events kept (Previous(e)).
        let pinned = how.dependency
            && (e.index as usize + 1..g.threads[e.thread as usize].len()).any(|i| {
                let k = EventId::new(e.thread as usize, i);
                !g.is_hole(k) && !deleted.contains(idx.node(k))
            });
        let counts = |s: EventId| previous(s) && (!pinned || could_choose(g, how.model, a, e, s, &previous));
        let later_in_previous = g.writes_to(label.loc).skip_while(|&w| w != write).skip(1).any(counts);
        if later_in_previous {
            return false;
        }
    }
    true
}

/// Whether the graph restricted to `previous` stays consistent when `e` reads from `s` (a read)
/// or sits right after `s` in `co` (a write).
fn could_choose(
    g: &ExecutionGraph,
    model: &dyn MemoryModel,
    a: EventId,
    e: EventId,
    s: EventId,
    previous: &dyn Fn(EventId) -> bool,
) -> bool {
    let mut t = g.clone();
    if t.label(e).is_read() {
        t.set_rf(e, s);
    } else {
        let loc = t.loc_of(e) as usize;
        t.co[loc].retain(|&w| w != e);
        let at = t.co_position(s).expect("[tcfuzz internal bug] write outside co");
        t.co[loc].insert(at, e);
    }
    // The revisiting write has no place in `co` yet: leave it out.
    cut(&mut t, &|x: EventId| previous(x) && x != a);
    model.is_consistent(&compact(&t))
}
