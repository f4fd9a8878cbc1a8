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

use crate::event::{EventId, Label};
use crate::graph::ExecutionGraph;
use crate::model::{MemoryModel, ModelKind};

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
    /// edge out (a read of the `co`-last write or first in its thread, a `co`-last write),
    /// otherwise a search from `a` ([`on_cycle`]). (A write `a` placed before other writes in
    /// `co` takes over the `fr` edges of the readers of its `co`-predecessor, but those reach
    /// what they reached before through `a`: a cycle without `a` would be one of `g` without
    /// it.) Rule 2 for an rmw write `a`: the write its read reads from is the one before it in
    /// `co`; and `a` is not right before another rmw write in `co`.
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
            None => Some(!on_cycle(g, a)),
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
pub fn atomicity_holds(g: &ExecutionGraph) -> bool {
    for (t, evs) in g.threads.iter().enumerate() {
        for (i, e) in evs.iter().enumerate() {
            if !e.label.rmw_write {
                continue;
            }
            let read = &evs[i - 1];
            let Some(src) = read.rf else { continue };
            let (Some(ps), Some(pw)) = (g.co_position(src), g.co_position(EventId::new(t, i))) else {
                continue;
            };
            if pw != ps + 1 {
                return false;
            }
        }
    }
    true
}

/// Rule 1, with immediate edges only (po-successor, co-successor, fr to the co-successor of the
/// write read from), which have the same cycles as the full relations. At most a few edges per
/// event: an edge list and Kahn's algorithm (a bit matrix costs `n²` here).
fn sc_acyclic(g: &ExecutionGraph) -> bool {
    let mut offsets = Vec::with_capacity(g.threads.len());
    let mut n = g.init.len();
    for evs in &g.threads {
        offsets.push(n);
        n += evs.len();
    }
    let node = |e: EventId| if e.is_init() { e.index as usize } else { offsets[e.thread as usize] + e.index as usize };
    let mut edges: Vec<(u32, u32)> = Vec::with_capacity(3 * n);
    let mut add = |a: usize, b: usize| edges.push((a as u32, b as u32));
    for (t, evs) in g.threads.iter().enumerate() {
        for i in 0..evs.len() {
            let me = offsets[t] + i;
            if i + 1 < evs.len() {
                add(me, me + 1);
            }
            if evs[i].label.is_barrier() {
                for p in g.barrier_partners(EventId::new(t, i)) {
                    if (p.index as usize) + 1 < g.threads[p.thread as usize].len() {
                        add(me, node(EventId { thread: p.thread, index: p.index + 1 }));
                    }
                }
            }
            if let Some(w) = evs[i].rf {
                add(node(w), me);
                let co = &g.co[g.loc_of(w) as usize];
                // The write after `w` in `co` (the initial write is before every other).
                let next = if w.is_init() { co.first() } else { co.iter().position(|&x| x == w).and_then(|p| co.get(p + 1)) };
                if let Some(&next) = next {
                    add(me, node(next));
                }
            }
        }
    }
    for (l, co) in g.co.iter().enumerate() {
        if let Some(&first) = co.first() {
            add(l, node(first));
        }
        for pair in co.windows(2) {
            add(node(pair[0]), node(pair[1]));
        }
    }
    acyclic(n, &edges)
}

/// Whether `a` lies on a cycle of rule 1's relation: a depth-first search from `a` over the
/// immediate edges of [`sc_acyclic`] (the readers of each write gathered first).
fn on_cycle(g: &ExecutionGraph, a: EventId) -> bool {
    SEARCH.with_borrow_mut(|s| s.on_cycle(g, a))
}

thread_local! {
    /// [`on_cycle`]'s buffers, kept between calls (it runs once per event the explorer adds).
    static SEARCH: std::cell::RefCell<Search> = std::cell::RefCell::new(Search::default());
}

#[derive(Default)]
struct Search {
    offsets: Vec<usize>,
    start: Vec<u32>,
    fill: Vec<u32>,
    readers: Vec<EventId>,
    seen: Vec<bool>,
    stack: Vec<EventId>,
}

impl Search {
    fn on_cycle(&mut self, g: &ExecutionGraph, a: EventId) -> bool {
        let Search { offsets, start, fill, readers, seen, stack } = self;
        offsets.clear();
        let mut n = g.init.len();
        for evs in &g.threads {
            offsets.push(n);
            n += evs.len();
        }
        let node = |e: EventId| if e.is_init() { e.index as usize } else { offsets[e.thread as usize] + e.index as usize };
        // The readers of each write: `readers[start[w]..start[w + 1]]` (counting sort by node).
        start.clear();
        start.resize(n + 1, 0);
        for e in g.threads.iter().flatten() {
            if let Some(w) = e.rf {
                start[node(w) + 1] += 1;
            }
        }
        for i in 0..n {
            start[i + 1] += start[i];
        }
        fill.clear();
        fill.extend_from_slice(start);
        readers.clear();
        readers.resize(start[n] as usize, EventId::init(0));
        for (t, evs) in g.threads.iter().enumerate() {
            for (i, e) in evs.iter().enumerate() {
                if let Some(w) = e.rf {
                    let slot = &mut fill[node(w)];
                    readers[*slot as usize] = EventId::new(t, i);
                    *slot += 1;
                }
            }
        }
        let co_next = |w: EventId| {
            let co = &g.co[g.loc_of(w) as usize];
            let next = if w.is_init() { co.first() } else { co.iter().position(|&x| x == w).and_then(|p| co.get(p + 1)) };
            next.copied()
        };
        seen.clear();
        seen.resize(n, false);
        stack.clear();
        stack.push(a);
        while let Some(x) = stack.pop() {
            let mut push = |y: EventId| {
                if y == a {
                    return true;
                }
                let ny = node(y);
                if !seen[ny] {
                    seen[ny] = true;
                    stack.push(y);
                }
                false
            };
            if !x.is_init() {
                let (t, i) = (x.thread as usize, x.index as usize);
                if i + 1 < g.threads[t].len() && push(EventId::new(t, i + 1)) {
                    return true;
                }
                let l = g.label(x);
                if l.is_barrier() {
                    for p in g.barrier_partners(x) {
                        if (p.index as usize) + 1 < g.threads[p.thread as usize].len()
                            && push(EventId { thread: p.thread, index: p.index + 1 })
                        {
                            return true;
                        }
                    }
                }
                if l.is_read() {
                    if let Some(next) = g.event(x).rf.and_then(co_next) {
                        if push(next) {
                            return true;
                        }
                    }
                    continue;
                }
                if !l.is_write() {
                    continue;
                }
            }
            if let Some(next) = co_next(x) {
                if push(next) {
                    return true;
                }
            }
            let w = node(x);
            for &r in &readers[start[w] as usize..start[w + 1] as usize] {
                if push(r) {
                    return true;
                }
            }
        }
        false
    }
}

/// Whether the graph on nodes `0..n` with `edges` is acyclic (Kahn's algorithm over a CSR
/// adjacency built by counting).
fn acyclic(n: usize, edges: &[(u32, u32)]) -> bool {
    let mut start = vec![0u32; n + 1];
    let mut indeg = vec![0u32; n];
    for &(a, b) in edges {
        start[a as usize + 1] += 1;
        indeg[b as usize] += 1;
    }
    for i in 0..n {
        start[i + 1] += start[i];
    }
    let mut fill = start.clone();
    let mut succ = vec![0u32; edges.len()];
    for &(a, b) in edges {
        succ[fill[a as usize] as usize] = b;
        fill[a as usize] += 1;
    }
    let mut ready: Vec<u32> = (0..n as u32).filter(|&i| indeg[i as usize] == 0).collect();
    let mut removed = 0;
    while let Some(a) = ready.pop() {
        removed += 1;
        for &b in &succ[start[a as usize] as usize..start[a as usize + 1] as usize] {
            indeg[b as usize] -= 1;
            if indeg[b as usize] == 0 {
                ready.push(b);
            }
        }
    }
    removed == n
}
