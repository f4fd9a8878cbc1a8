//! A sink read of an earlier write, judged by two searches instead of the full check, in
//! programs of plain events without `fence.sc` ([`Ptx::plain_without_sc_fences`]).
//!
//! `g` is consistent without `a`, which is its thread's last event, read by nothing, and reads
//! `src`, a write with later writes in `co`. Every relation the axioms look at leaves `a` only
//! through `fr`, to a write `w` that `co` puts after `src` (a read starts no observation,
//! release pattern or dependency; nothing follows it in its thread), and the rules that look at
//! `a` alone hold (a read; an rmw's write half is judged when it is added). So a new cycle goes
//! `a →fr w → … → a`, and none exists when no such `w` reaches `a`:
//! - in `(po ∪ rf)+`, for Causality (§8.10.6, `(rf ∪ fr) ; causality` irreflexive): in a plain
//!   program without `fence.sc`, causality order is contained in it — base causality is
//!   `(po ∪ sw)+` (§8.9.5), synchronizes-with goes from a release pattern through observation
//!   order (`rf` and the rmws' own program order, §8.9.2) to an acquire pattern (§8.9.4), and
//!   plain events have no barrier, tcgen05 or proxy edge. Coherence (§8.10.1) only relates
//!   writes, between which `a` adds no causality;
//! - in `(po-loc ∪ rf ∪ co ∪ fr)+` on `a`'s location, for SC per location (§8.10.5; its
//!   morally strong filter only removes edges).
//!
//! Both searches use that the events reaching `a` are closed under program order (in
//! `(po ∪ rf)+`) or under program order between the location's accesses, and that the writes
//! reaching `a` on its location are closed under `co`: a prefix per thread and a `co` position.

use crate::exec::event::EventId;
use crate::exec::graph::ExecutionGraph;

use super::Ptx;

/// Threads a search keeps on the stack; more go to the full check.
const MAX_THREADS: usize = 64;

impl Ptx {
    /// Whether no write `co`-after `src` reaches the sink read `a` (module docs). `false` where
    /// the program is not plain or has `fence.sc`, or `g` has holes or too many threads.
    pub(super) fn sink_read_closes_nothing(&self, g: &ExecutionGraph, a: EventId, src: EventId) -> bool {
        if !self.plain_without_sc_fences || g.threads.len() > MAX_THREADS || g.has_holes() {
            return false;
        }
        let loc = g.label(a).loc;
        let Some(src_pos) = g.co_position(src) else { return false };
        let ws = &g.co[loc as usize];
        // `co_position`: the initial write 0, `ws[k]` k + 1.
        let later = &ws[src_pos..];
        !later.is_empty() && !reaches_in_porf(g, a, src, later) && !reaches_on_location(g, a, src_pos)
    }
}

/// Whether a write of `later` reaches `a`, which reads `src`, in `(po ∪ rf)+`.
fn reaches_in_porf(g: &ExecutionGraph, a: EventId, src: EventId, later: &[EventId]) -> bool {
    // `reach[t]`: the events of thread `t` below it reach `a`; `seen[t]`: those looked at.
    let mut reach = [0u32; MAX_THREADS];
    let mut seen = [0u32; MAX_THREADS];
    reach[a.thread as usize] = a.index;
    let extend = |reach: &mut [u32; MAX_THREADS], e: EventId| {
        if !e.is_init() {
            let r = &mut reach[e.thread as usize];
            *r = (*r).max(e.index + 1);
        }
    };
    extend(&mut reach, src);
    loop {
        let mut grew = false;
        for (t, evs) in g.threads.iter().enumerate() {
            while seen[t] < reach[t] {
                if let Some(s) = evs[seen[t] as usize].rf {
                    extend(&mut reach, s);
                }
                seen[t] += 1;
                grew = true;
            }
        }
        if !grew {
            break;
        }
    }
    later.iter().any(|w| w.index < reach[w.thread as usize])
}

/// Whether a write `co`-after position `src_pos` of `a`'s location reaches `a` in
/// `(po-loc ∪ rf ∪ co ∪ fr)+` on that location (`a` reads the write at `src_pos`).
fn reaches_on_location(g: &ExecutionGraph, a: EventId, src_pos: usize) -> bool {
    let loc = g.label(a).loc;
    let ws = &g.co[loc as usize];
    let on_loc = |t: usize, i: usize| {
        let l = &g.threads[t][i].label;
        l.is_access() && l.loc == loc
    };
    let source_pos = |t: usize, i: usize| g.threads[t][i].rf.and_then(|s| g.co_position(s));
    // `reach[t]`: the accesses of the location in thread `t` below it reach `a`; `seen[t]`:
    // those looked at. `hi`: the writes at `co` positions up to it reach `a`, and with them
    // the reads of a write before them (`fr`).
    let mut reach = [0u32; MAX_THREADS];
    let mut seen = [0u32; MAX_THREADS];
    reach[a.thread as usize] = a.index;
    let mut hi = src_pos;
    // The reads brought in by `fr` are those of writes before `hi`: looked for again when it grows.
    let mut reads_for = 0;
    loop {
        let mut grew = false;
        for t in 0..g.threads.len() {
            while seen[t] < reach[t] {
                let i = seen[t] as usize;
                seen[t] += 1;
                grew = true;
                if !on_loc(t, i) {
                    continue;
                }
                let l = &g.threads[t][i].label;
                let pos = if l.is_write() { g.co_position(EventId::new(t, i)) } else { source_pos(t, i) };
                hi = hi.max(pos.unwrap_or(0));
            }
        }
        if hi > src_pos {
            return true;
        }
        if reads_for < hi {
            // The writes up to `hi` (`co`) and the reads of a write before it (`fr`).
            for w in &ws[..hi] {
                let r = &mut reach[w.thread as usize];
                *r = (*r).max(w.index + 1);
            }
            for (t, evs) in g.threads.iter().enumerate() {
                for i in (reach[t] as usize..evs.len()).rev() {
                    if on_loc(t, i) && evs[i].label.is_read() && source_pos(t, i).is_some_and(|p| p < hi) {
                        reach[t] = i as u32 + 1;
                        break;
                    }
                }
            }
            reads_for = hi;
            grew = true;
        }
        if !grew {
            return false;
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::exec::event::EventId;
    use crate::model::MemoryModel;
    use crate::model::ptx::Ptx;
    use crate::model::ptx::quick_accept::tests::{compile, graph};

    /// For a program of two threads whose second one reads twice, the second read (a sink)
    /// reading the initial value: for each source of the first read (`None`: the initial value),
    /// whether the searches take the graph, and that the full check agrees.
    fn assert_taken(file: &str, cases: [(Option<(usize, usize)>, bool); 2]) {
        let prog = compile(file);
        let ptx = Ptx::new(&prog);
        let a = EventId::new(1, 1);
        for (first_source, taken) in cases {
            let g = graph(&prog, &[first_source, None]);
            let src = EventId::init(g.label(a).loc);
            assert_eq!(ptx.sink_read_closes_nothing(&g, a, src), taken, "{first_source:?}");
            assert_eq!(ptx.is_consistent(&g), taken, "{first_source:?}");
        }
    }

    /// Message passing, the reader's last event (a sink) reading the initial `x` while the
    /// writer's `x = 1` is later in `co`. Where the flag read saw the release, that write reaches
    /// the sink through `po ; rf ; po` and Causality forbids the graph (§8.10.6): left to the
    /// full check. Where it saw 0, nothing leads back: taken.
    #[test]
    fn a_stale_read_after_an_acquire_of_the_release_is_left_to_the_full_check() {
        assert_taken(include_str!("../../../../examples/ptx/MP+rel+acq-gpu-diffcta.litmus"), [(Some((0, 1)), false), (None, true)]);
    }

    /// CoRR: the second read (a sink) reading the initial `x` after the first read saw `x = 1`
    /// — a path `rf ; po` back into it, a cycle SC per location forbids (§8.10.5): left to the
    /// full check. After a first read of the initial value: taken.
    #[test]
    fn a_read_older_than_its_threads_earlier_read_is_left_to_the_full_check() {
        assert_taken(include_str!("../../../../examples/ptx/CoRR+relaxed-gpu.litmus"), [(Some((0, 0)), false), (None, true)]);
    }

    /// Store buffering, both reads seeing 0: no `po ∪ rf` path leads from the other thread's
    /// write back into the sink, yet with `fence.sc` the Fence-SC order puts one store before
    /// the other thread's load in causality order (§8.9.3, §8.10.6). A program with `fence.sc`
    /// is never taken; with `fence.acq_rel` (which allows the outcome) it is.
    #[test]
    fn store_buffering_is_taken_only_without_fence_sc() {
        for (file, sc) in [
            (include_str!("../../../../examples/ptx/SB+fence.sc-gpu-diffcta.litmus"), true),
            (include_str!("../../../../examples/ptx/SB+fence.acq_rel-gpu-diffcta.litmus"), false),
        ] {
            let prog = compile(file);
            let ptx = Ptx::new(&prog);
            let g = graph(&prog, &[None, None]);
            let a = EventId::new(0, 2);
            let src = EventId::init(g.label(a).loc);
            assert_eq!(ptx.sink_read_closes_nothing(&g, a, src), !sc, "fence.sc: {sc}");
            assert_eq!(ptx.is_consistent(&g), !sc, "fence.sc: {sc}");
        }
    }
}
