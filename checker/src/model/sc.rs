//! Sequential consistency.
//!
//! Rules (Shasha–Snir / herd7 `sc.cat`; GenMC's SC checker):
//! 1. `po ∪ rf ∪ co ∪ fr ∪ bar` is acyclic (fences add nothing; `bar` orders every thread's
//!    arrival at a barrier instance before what follows any other thread's arrival at it);
//! 2. atomicity of read-modify-writes: no write sits in `co` between the write an rmw read reads
//!    from and the rmw's own write (`rmw ∩ (fr ; co) = ∅`).
//!
//! Under SC `po ∪ rf` is acyclic, so the explorer is complete for it. SC has no notion of data race
//! here: [`MemoryModel::races`] returns none.

use crate::exec::event::EventId;
use crate::exec::graph::ExecutionGraph;
use crate::model::sweep::{Frame, until_stuck};
use crate::model::{MemoryModel, ModelKind};
use crate::program::label::{Label, LocId};

#[derive(Clone, Copy, Debug, Default)]
pub struct Sc;

impl MemoryModel for Sc {
    fn kind(&self) -> ModelKind {
        ModelKind::Sc
    }

    fn is_consistent(&self, g: &ExecutionGraph) -> bool {
        atomicity_holds(g) && sc_acyclic(g)
    }

    fn allows_porf_cycles(&self) -> bool {
        false
    }

    /// Rule 1: not before the writes of its location before it in program order (`po ⊆ hb`).
    fn co_floor(&self, g: &ExecutionGraph, e: EventId, label: &Label) -> usize {
        crate::model::co_floor_after_own_writes(g, e, label.loc, |_| true)
    }

    /// Rule 1: not after the writes of its location after it in program order (`co` against
    /// `po`).
    fn co_ceiling(&self, g: &ExecutionGraph, e: EventId, label: &Label) -> usize {
        crate::model::co_ceiling_before_own_writes(g, e, label.loc, |_| true)
    }

    /// Right after the write the rmw reads from: rule 2 allows no other position.
    fn rmw_co_position(&self, g: &ExecutionGraph, w: EventId) -> Option<usize> {
        let (src, _) = rmw_source(g, w)?;
        g.co_position(src)
    }

    /// Rule 2: an rmw's write only right after the write its read reads from. Rule 1: not after
    /// a later write of its own thread (`co` against program order).
    fn may_follow(&self, g: &ExecutionGraph, w: EventId, s: EventId) -> bool {
        !(s.thread == w.thread && s.index > w.index) && rmw_source(g, w).is_none_or(|(src, _)| src == s)
    }

    /// Rule 1: `g` without `a` is consistent, so a cycle goes through `a` — none where `a` has no
    /// edge out (a read of the `co`-last write or first in its thread, a `co`-last write);
    /// otherwise the whole graph is sorted ([`sc_acyclic`]: cheaper than a search from `a`,
    /// which needs the readers of every write gathered first). (A write `a` placed before other
    /// writes in `co` takes over the `fr` edges of the readers of its `co`-predecessor, but those
    /// reach what they reached before through `a`: a cycle without `a` would be one of `g`
    /// without it.) Rule 2 for an rmw write `a`: the write its read reads from is the one before
    /// it in `co`; and `a` is not right before another rmw write in `co`.
    fn sink_extension(&self, g: &ExecutionGraph, a: EventId) -> Option<bool> {
        let atomic_rmw = || match rmw_source(g, a) {
            Some((src, _)) => g.co_position(src).map(|p| p + 1) == g.co_position(a),
            None => true,
        };
        // Rule 2 for `a`, and for the rmw write that `a` now separates from its source (nothing
        // reads `a`): the one right after it in `co`, if any.
        if g.label(a).is_write() {
            let co = &g.co[g.loc_of(a) as usize];
            let next = co.iter().position(|&x| x == a).and_then(|p| co.get(p + 1));
            if !atomic_rmw() || next.is_some_and(|&n| rmw_source(g, n).is_some()) {
                return Some(false);
            }
        }
        match crate::model::plain_sink(g, a, || true, |_| a.index == 0) {
            Some(ok) => Some(ok),
            None if g.label(a).is_barrier() => None,
            None => Some(sc_acyclic(g)),
        }
    }
}

/// For the write half `w` of an rmw: the write its read half reads from, and that read.
pub(crate) fn rmw_source(g: &ExecutionGraph, w: EventId) -> Option<(EventId, EventId)> {
    if w.index == 0 || !g.label(w).rmw_write {
        return None;
    }
    let r = EventId { thread: w.thread, index: w.index - 1 };
    let src = g.event(r).rf.filter(|_| g.label(r).loc == g.label(w).loc)?;
    Some((src, r))
}

/// Rule 2: each rmw write immediately follows, in `co`, the write its read half reads from.
/// (Rmw writes not in `co`, or whose source is not, are not judged.) One pass over `co`: the
/// write before each rmw write there is its source, or its source is not in `co` at all.
pub fn atomicity_holds(g: &ExecutionGraph) -> bool {
    for (l, ws) in g.co.iter().enumerate() {
        for (p, &w) in ws.iter().enumerate() {
            if w.index == 0 || !g.label(w).rmw_write {
                continue;
            }
            let Some(src) = g.event(EventId { thread: w.thread, index: w.index - 1 }).rf else { continue };
            let before = if p == 0 { EventId::init(l as LocId) } else { ws[p - 1] };
            if src != before && g.co_position(src).is_some() {
                return false;
            }
        }
    }
    true
}

/// Rule 1: Kahn's algorithm over the immediate edges (po-successor, rf, co-successor, fr to the
/// co-successor of the write read from, which have the same cycles as the full relations). A
/// thread's events are a chain in `po`, so only each thread's first event not yet sorted can be
/// ready: the threads are swept in turn, each advanced as far as it goes, until a sweep moves
/// none (a cycle, unless every event is sorted). An event is ready when its other
/// predecessors are sorted: a read's source; a write's predecessor in `co` and every reader of
/// that predecessor (`fr`); after a barrier, every partner's arrival. (Buffers kept between
/// calls: the explorer asks about a graph for nearly every event it adds.)
fn sc_acyclic(g: &ExecutionGraph) -> bool {
    SORT.with_borrow_mut(|s| s.acyclic(g))
}

thread_local! {
    /// [`sc_acyclic`]'s buffers.
    static SORT: std::cell::RefCell<Sort> = std::cell::RefCell::new(Sort::default());
}

#[derive(Default)]
struct Sort {
    frame: Frame,
    /// Per thread: its first event not sorted yet.
    next: Vec<usize>,
}

impl Sort {
    fn acyclic(&mut self, g: &ExecutionGraph) -> bool {
        let Sort { frame, next } = self;
        let mut left = frame.load(g);
        next.clear();
        next.resize(g.threads.len(), 0);
        until_stuck(&mut left, || {
            let mut sorted = 0;
            for (t, evs) in g.threads.iter().enumerate() {
                while let Some(e) = evs.get(next[t]) {
                    let i = next[t];
                    let me = frame.offsets[t] + i;
                    if frame.sorted[me] {
                        // A hole (SC graphs have none).
                        next[t] += 1;
                        continue;
                    }
                    let ready = frame.communication_ready(e, me)
                        && (i == 0
                            || !evs[i - 1].label.is_barrier()
                            || g.barrier_partners(EventId::new(t, i - 1)).into_iter().all(|p| frame.sorted[frame.node(p)]));
                    if !ready {
                        break;
                    }
                    frame.sort(e, me);
                    next[t] += 1;
                    sorted += 1;
                }
            }
            sorted
        })
    }
}

#[cfg(test)]
mod tests {
    use std::path::{Path, PathBuf};

    use super::{Sc, sc_acyclic};
    use crate::exec::event::EventId;
    use crate::exec::graph::ExecutionGraph;
    use crate::model::{MemoryModel, ModelKind};
    use crate::program::CompiledProgram;
    use crate::verdict::Collector;

    /// `po ∪ rf ∪ co ∪ fr ∪ bar` acyclic, from the full relations.
    fn closure_acyclic(g: &ExecutionGraph) -> bool {
        let idx = g.node_index();
        let n = idx.len();
        let mut m = vec![vec![false; n]; n];
        let writes = |l: usize| g.writes_to(l as u32).collect::<Vec<_>>();
        for (t, evs) in g.threads.iter().enumerate() {
            for i in 0..evs.len() {
                let e = EventId::new(t, i);
                for j in i + 1..evs.len() {
                    m[idx.node(e)][idx.node(EventId::new(t, j))] = true;
                }
                if evs[i].label.is_barrier() {
                    for p in g.barrier_partners(e) {
                        for j in p.index as usize + 1..g.threads[p.thread as usize].len() {
                            m[idx.node(e)][idx.node(EventId::new(p.thread as usize, j))] = true;
                        }
                    }
                }
                if let Some(w) = evs[i].rf {
                    m[idx.node(w)][idx.node(e)] = true;
                    let ws = writes(g.loc_of(w) as usize);
                    if let Some(p) = ws.iter().position(|&x| x == w) {
                        for &later in &ws[p + 1..] {
                            m[idx.node(e)][idx.node(later)] = true;
                        }
                    }
                }
            }
        }
        for l in 0..g.co.len() {
            let ws = writes(l);
            for (p, &a) in ws.iter().enumerate() {
                for &b in &ws[p + 1..] {
                    m[idx.node(a)][idx.node(b)] = true;
                }
            }
        }
        // Warshall's transitive closure.
        for k in 0..n {
            let through = m[k].clone();
            for row in m.iter_mut().filter(|row| row[k]) {
                for (x, &y) in row.iter_mut().zip(&through) {
                    *x |= y;
                }
            }
        }
        (0..n).all(|i| !m[i][i])
    }

    struct Checked(std::cell::Cell<usize>);

    impl MemoryModel for Checked {
        fn kind(&self) -> ModelKind {
            ModelKind::Sc
        }
        fn is_consistent(&self, g: &ExecutionGraph) -> bool {
            let want = closure_acyclic(g);
            assert_eq!(sc_acyclic(g), want, "rule 1 on\n{}", g.canonical());
            self.0.set(self.0.get() + 1);
            Sc.is_consistent(g)
        }
        fn allows_porf_cycles(&self) -> bool {
            false
        }
    }

    #[test]
    fn sorting_agrees_with_the_closure() {
        fn litmus_files(dir: &Path, out: &mut Vec<PathBuf>) {
            let Ok(entries) = std::fs::read_dir(dir) else { return };
            for p in entries.filter_map(|e| e.ok().map(|e| e.path())) {
                if p.is_dir() {
                    litmus_files(&p, out);
                } else if p.extension().is_some_and(|x| x == "litmus") {
                    out.push(p);
                }
            }
        }
        let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
        let mut files = Vec::new();
        // The Dat3M corpus, where `../shared` has it, brings barriers.
        for dir in ["../examples/ptx", "../examples/mbarrier", "../../shared/conformance/ptx"] {
            litmus_files(&root.join(dir), &mut files);
        }
        files.sort();
        let checked = Checked(std::cell::Cell::new(0));
        let mut programs = 0;
        for path in &files {
            let src = std::fs::read_to_string(path).expect("example readable");
            let Ok(prog) =
                tcfuzz_litmus::parse(&src).map_err(|e| e.to_string()).and_then(|p| CompiledProgram::compile(&p).map_err(|e| e.to_string()))
            else {
                continue;
            };
            if prog.tile.is_some() {
                continue;
            }
            let mut out = Collector::new(&prog, false, 16, false);
            out.set_loop_bound(2);
            let _ = crate::explore::trust::Explorer {
                prog: &prog,
                model: &checked,
                loop_bound: 2,
                out: &mut out,
                max_executions: 2_000,
                depth: 0,
                max_depth: 0,
                dependency_revisits: false,
                lost_revisit: std::cell::Cell::new(false),
                atomicity_held: std::cell::Cell::new(false),
                asks_atomicity: false,
                rmw_hole_met: std::cell::Cell::new(false),
                completion_budget: std::cell::Cell::new(None),
                fill_memo: Default::default(),
                completion_gave_up: std::cell::Cell::new(false),
                maximality_budget: std::cell::Cell::new(None),
                maximality_limit: crate::options::MAXIMALITY_BUDGET,
                waits_for: std::cell::Cell::new(None),
                revisiting_write_out: std::cell::Cell::new(false),
                replays: Default::default(),
                stopped: Default::default(),
                frontiers: Default::default(),
                assumes: prog.has_assume(),
                barriers: prog.has_barriers(),
                awaits: prog.has_blocking_wait(),
                compacted: Default::default(),
                bound: &crate::explore::bound::Bound::new(&crate::Options::default()),
                part: crate::explore::trust::Part::All,
                path: Vec::new(),
                children: Vec::new(),
                given: Vec::new(),
                donor: None,
            }
            .run();
            let mut out = Collector::new(&prog, false, 16, false);
            out.set_loop_bound(2);
            let _ = crate::explore::oracle::Oracle {
                prog: &prog,
                model: &checked,
                loop_bound: 2,
                limit: 2_000,
                exclude_porf_cycles: true,
                out: &mut out,
                bound: &crate::explore::bound::Bound::new(&crate::Options::default()),
            }
            .run();
            programs += 1;
        }
        assert!(programs >= 40, "only {programs} programs compared");
        // Without `../shared` (a checkout on its own), the examples alone: about 1,100 graphs.
        let floor = if root.join("../../shared/conformance/ptx").is_dir() {
            10_000
        } else {
            println!("../shared/conformance/ptx not found: the examples only");
            1_000
        };
        assert!(checked.0.get() >= floor, "only {} graphs compared", checked.0.get());
    }
}
