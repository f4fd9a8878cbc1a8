//! TruSt: the exploration procedure.
//!
//! ```text
//! Visit(G):
//!   if ¬consistent(G): return
//!   a ← next(G)                       -- the next event of the lowest-numbered unfinished thread
//!                                     --   (an rmw's write half first, so rmws are added whole)
//!   none left      → output G (complete, or blocked if a thread hit the loop bound)
//!   a fence        → Visit(G + a)        (likewise a barrier arrival; a thread waiting at a
//!                                         barrier its whole CTA has not reached yet is skipped)
//!   a read         → for each write w to loc(a), in co order: Visit(G + a, rf(a) = w)
//!   a write        → VisitCOs(G + a, a)                                  -- forward
//!                    for each read r of loc(a), r ∉ porf-prefix(a):      -- backward revisits
//!                      Deleted := {e | r <_G e} \ porf-prefix(a)
//!                      if every e ∈ Deleted ∪ {r} was added maximally:
//!                        VisitCOs((G + a) \ Deleted, rf(r) = a)
//! VisitCOs(G, a): for each position p of co(loc(a)): Visit(G with a at p)
//! ```
//!
//! `<_G` is the order in which events were added (their stamps). *Maximally added* (TruSt §5):
//! with `Previous(e) = {x | x ≤_G e} ∪ porf-prefix(a)`, the write `e` is (or, for a read, the write
//! it reads from is) in `Previous(e)` and `co`-maximal among the writes of its location in
//! `Previous(e)`; and no read in `Previous(e)` reads from a deleted write. This picks, among all
//! graphs that a revisit would turn into the same restricted graph, exactly one, which makes the
//! exploration optimal: each consistent graph is visited once.

use crate::bitset::BitSet;
use crate::error::CheckError;
use crate::event::{EventId, EventKind};
use crate::graph::{ExecutionGraph, NodeIndex};
use crate::interp::{NewEvent, Step, replay};
use crate::model::MemoryModel;
use crate::program::CompiledProgram;
use crate::verdict::Collector;

pub(crate) struct Explorer<'a, 'c> {
    pub prog: &'a CompiledProgram,
    pub model: &'a dyn MemoryModel,
    pub loop_bound: u32,
    pub out: &'a mut Collector<'c>,
    /// Stop (with an error) after this many explored graphs (complete + blocked).
    pub max_executions: u64,
    pub depth: usize,
    pub max_depth: usize,
}

enum Next {
    Add(usize, NewEvent),
    Finished { regs: Vec<Vec<i64>>, blocked: Vec<usize> },
}

impl Explorer<'_, '_> {
    pub fn run(&mut self) -> Result<(), CheckError> {
        let init = self.prog.locations.iter().map(|l| l.init).collect();
        let mut g = ExecutionGraph::new(init, self.prog.threads.len());
        g.groups = self.prog.groups.clone();
        self.visit(g)
    }

    fn next(&self, g: &ExecutionGraph) -> Result<Next, CheckError> {
        let performed = |t: usize| -> Vec<i64> { g.threads[t].iter().map(|e| e.value).collect() };
        // An rmw whose read is in the graph and whose write is not goes first. Only a thread whose
        // last event is an atomic read can be in that state.
        for (t, evs) in g.threads.iter().enumerate() {
            if evs.last().is_some_and(|e| e.label.is_read() && e.label.atomic) {
                if let Step::Event(ev) = replay(&self.prog.threads[t], &performed(t), self.loop_bound)?.step {
                    if ev.label.rmw_write {
                        return Ok(Next::Add(t, ev));
                    }
                }
            }
        }
        let mut regs = vec![Vec::new(); g.threads.len()];
        let mut blocked = Vec::new();
        for (t, code) in self.prog.threads.iter().enumerate() {
            if g.waiting_at_barrier(t) {
                // Stuck unless the rest of its CTA arrives later; a hang if nobody can move.
                blocked.push(t);
                continue;
            }
            let r = replay(code, &performed(t), self.loop_bound)?;
            match r.step {
                Step::Event(ev) => return Ok(Next::Add(t, ev)),
                Step::Done => regs[t] = r.regs,
                Step::Blocked => {
                    regs[t] = r.regs;
                    blocked.push(t);
                }
            }
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
        if !self.model.is_consistent(&g) {
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
            Next::Add(t, ev) => match ev.label.kind {
                EventKind::Fence | EventKind::Barrier => {
                    let mut g = g;
                    g.add_event(t, &ev, None);
                    self.visit(g)
                }
                EventKind::Read => {
                    let writes: Vec<EventId> = g.writes_to(ev.label.loc).collect();
                    for w in writes {
                        let mut g2 = g.clone();
                        g2.add_event(t, &ev, Some(w));
                        self.visit(g2)?;
                    }
                    Ok(())
                }
                EventKind::Write => {
                    let mut g1 = g;
                    let a = g1.add_event(t, &ev, None);
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
        let porf = g.porf_prefix(&idx, a);
        let loc = g.loc_of(a);
        let reads: Vec<EventId> = g.reads_of(loc).filter(|&r| !porf.contains(idx.node(r))).collect();
        for r in reads {
            let sr = g.stamp(r);
            let mut deleted = BitSet::new(idx.len());
            for e in g.event_ids() {
                let n = idx.node(e);
                if g.stamp(e) > sr && !porf.contains(n) {
                    deleted.insert(n);
                }
            }
            if !maximally_added(g, &idx, r, &porf, &deleted) {
                continue;
            }
            let mut g2 = g.clone();
            g2.restrict(&|e: EventId| !deleted.contains(idx.node(e)));
            g2.set_rf(r, a);
            self.visit_cos(&g2, a)?;
        }
        Ok(())
    }
}

/// TruSt's maximality condition over `Deleted ∪ {r}` (see the module docs).
fn maximally_added(g: &ExecutionGraph, idx: &NodeIndex, r: EventId, porf: &BitSet, deleted: &BitSet) -> bool {
    let checked = deleted.iter().map(|n| idx.id(n)).chain(std::iter::once(r));
    for e in checked {
        let se = g.stamp(e);
        let previous = |x: EventId| x.is_init() || g.stamp(x) <= se || porf.contains(idx.node(x));
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
        let later_in_previous = g.writes_to(label.loc).skip_while(|&w| w != write).skip(1).any(previous);
        if later_in_previous {
            return false;
        }
    }
    true
}
