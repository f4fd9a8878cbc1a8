//! Graphs with holes: what HMC's dependency-based revisits need (see the module docs of
//! [`super`]). A hole ([`HOLE`]) is a position of a thread whose event a revisit removed while a
//! program-order-later event of the thread stayed; the explorer fills it again when the thread's
//! turn comes. The models never see holes: [`compact`] removes them first.

use crate::bitset::BitSet;
use crate::event::{Event, EventId, EventKind};
use crate::graph::{ExecutionGraph, HOLE, NodeIndex};

/// The events of `g` that are not holes.
pub(crate) fn present(g: &ExecutionGraph) -> impl Iterator<Item = EventId> + '_ {
    g.event_ids().filter(|&e| !g.is_hole(e))
}

/// The first hole of thread `t`, or one past its last event: where it goes on.
pub(crate) fn frontier(g: &ExecutionGraph, t: usize) -> usize {
    g.threads[t].iter().position(|e| e.stamp == HOLE).unwrap_or(g.threads[t].len())
}

/// The dependency prefix of `e` (HMC's `(ppo ∪ rf)`-prefix, for PTX), `e` included, over
/// [`NodeIndex`] nodes: closed under
/// - `rf`: a read needs the write it reads from;
/// - dependencies: the thread's reads an event's value or execution depends on (data and
///   control, [`crate::event::Event::deps`], which also links an rmw's write to its read);
/// - *pinned* program order: an event needs the earlier events of its thread that are barrier
///   arrivals, accesses of its own location (`po-loc`: SC per location, always morally strong
///   within a thread, ties them), and reads of a `cas` that may or may not write (its outcome
///   moves the positions of every later event);
/// - barrier partners (an arrival needs the other arrivals at its instance), and an rmw's write
///   with its read (rmws stay whole).
pub(crate) fn dep_prefix(g: &ExecutionGraph, idx: &NodeIndex, e: EventId) -> BitSet {
    let mut set = BitSet::new(idx.len());
    let mut stack = vec![e];
    while let Some(x) = stack.pop() {
        if !set.insert(idx.node(x)) || x.is_init() {
            continue;
        }
        let ev = g.event(x);
        debug_assert!(ev.stamp != HOLE, "[tcfuzz internal bug] a dependency on a hole");
        if let Some(w) = ev.rf {
            stack.push(w);
        }
        let mut deps = ev.deps;
        while deps != 0 {
            let j = deps.trailing_zeros();
            deps &= deps - 1;
            if j < x.index {
                stack.push(EventId { thread: x.thread, index: j });
            }
        }
        let evs = &g.threads[x.thread as usize];
        for (j, p) in evs[..x.index as usize].iter().enumerate() {
            if p.stamp != HOLE && pinned(p, ev) {
                stack.push(EventId::new(x.thread as usize, j));
            }
        }
        if ev.label.is_barrier() {
            stack.extend(g.barrier_partners(x));
        }
        // An rmw stays whole: its write half comes with its read.
        if ev.label.is_read() && ev.label.atomic {
            let next = EventId { thread: x.thread, index: x.index + 1 };
            if g.threads[x.thread as usize].get(next.index as usize).is_some_and(|n| n.stamp != HOLE && n.label.rmw_write) {
                stack.push(next);
            }
        }
    }
    set
}

/// Whether `later` needs the earlier event `p` of its thread although it does not depend on it:
/// the *pinned* program order of [`dep_prefix`].
pub(crate) fn pinned(p: &Event, later: &Event) -> bool {
    let same_loc = p.label.is_access() && later.label.is_access() && p.label.loc == later.label.loc;
    p.label.is_barrier() || same_loc || (p.label.is_read() && p.label.atomic && p.cas_expected.is_some())
}

/// Keeps the events `keep` accepts: a removed event becomes a hole when a later event of its
/// thread stays, and goes otherwise (as do holes with nothing kept after them).
pub(crate) fn cut(g: &mut ExecutionGraph, keep: &dyn Fn(EventId) -> bool) {
    for t in 0..g.threads.len() {
        let kept = |i: usize| {
            let e = EventId::new(t, i);
            !g.is_hole(e) && keep(e)
        };
        let len = (0..g.threads[t].len()).rev().find(|&i| kept(i)).map_or(0, |i| i + 1);
        let holes: Vec<usize> = (0..len).filter(|&i| !kept(i)).collect();
        let evs = &mut g.threads[t];
        evs.truncate(len);
        for i in holes {
            let ev = &mut evs[i];
            ev.stamp = HOLE;
            ev.rf = None;
            ev.value = 0;
            ev.deps = 0;
        }
    }
    let present = |g: &ExecutionGraph, w: EventId| {
        (w.thread as usize) < g.threads.len() && (w.index as usize) < g.threads[w.thread as usize].len() && !g.is_hole(w)
    };
    let co: Vec<Vec<EventId>> = g.co.iter().map(|ws| ws.iter().copied().filter(|&w| present(g, w)).collect()).collect();
    g.co = co;
    debug_assert!(
        g.event_ids().all(|e| g.event(e).rf.is_none_or(|w| w.is_init() || present(g, w))),
        "[tcfuzz internal bug] a cut leaves a dangling rf"
    );
}

/// `g` without its holes (events renumbered, `rf`, `co` and dependencies remapped): what the
/// models judge.
pub(crate) fn compact(g: &ExecutionGraph) -> ExecutionGraph {
    let map: Vec<Vec<Option<u32>>> = g
        .threads
        .iter()
        .map(|evs| {
            let mut n = 0;
            evs.iter()
                .map(|e| {
                    (e.stamp != HOLE).then(|| {
                        n += 1;
                        n - 1
                    })
                })
                .collect()
        })
        .collect();
    let id = |e: EventId| {
        if e.is_init() {
            e
        } else {
            EventId { thread: e.thread, index: map[e.thread as usize][e.index as usize].expect("[tcfuzz internal bug] hole") }
        }
    };
    let mut out = ExecutionGraph::new(g.init.clone(), g.threads.len());
    out.barrier_members = g.barrier_members.clone();
    for (t, evs) in g.threads.iter().enumerate() {
        for (i, e) in evs.iter().enumerate() {
            if e.stamp == HOLE {
                continue;
            }
            let mut e = e.clone();
            e.rf = e.rf.map(id);
            let mut deps = 0u64;
            for (j, m) in map[t][..i].iter().enumerate() {
                if e.deps & (1 << j) != 0 {
                    deps |= 1 << m.expect("[tcfuzz internal bug] dependency on a hole");
                }
            }
            e.deps = deps;
            out.threads[t].push(e);
        }
    }
    out.co = g.co.iter().map(|ws| ws.iter().map(|&w| id(w)).collect()).collect();
    out
}

/// After read `r` got a new value: where `r` is the read of a `cas` whose write half now appears or
/// disappears and later events of its thread stay (after holes), moves them one position so that
/// each keeps the position the interpreter gives it (a hole for the new write half, or the old
/// write half's hole dropped).
pub(crate) fn fix_cas_layout(g: &mut ExecutionGraph, r: EventId) {
    let ev = g.event(r);
    let Some(expected) = ev.cas_expected else { return };
    let want = ev.value == expected;
    let (t, p) = (r.thread as usize, r.index as usize);
    if p + 1 >= g.threads[t].len() {
        return;
    }
    let next = &g.threads[t][p + 1];
    let have = next.label.rmw_write;
    if want == have {
        return;
    }
    if have {
        debug_assert!(next.stamp == HOLE, "[tcfuzz internal bug] cas write half kept while its read changes");
        g.threads[t].remove(p + 1);
        renumber(g, t, p + 2, -1);
    } else {
        renumber(g, t, p + 1, 1);
        let mut hole = g.threads[t][p].clone();
        hole.label.kind = EventKind::Write;
        hole.label.rmw_write = true;
        hole.stamp = HOLE;
        hole.rf = None;
        hole.deps = 0;
        hole.cas_expected = None;
        g.threads[t].insert(p + 1, hole);
    }
}

/// Renames events `(t, i)` with `i >= from` to `(t, i + delta)` in `rf`, `co` and thread `t`'s
/// dependency bits (the events themselves are moved by the caller).
fn renumber(g: &mut ExecutionGraph, t: usize, from: usize, delta: i32) {
    let moved = |e: EventId| !e.is_init() && e.thread as usize == t && e.index as usize >= from;
    let shift = |e: EventId| if moved(e) { EventId { thread: e.thread, index: (e.index as i32 + delta) as u32 } } else { e };
    for evs in &mut g.threads {
        for ev in evs.iter_mut() {
            ev.rf = ev.rf.map(shift);
        }
    }
    for ws in &mut g.co {
        for w in ws.iter_mut() {
            *w = shift(*w);
        }
    }
    let low = if from >= 64 { u64::MAX } else { (1u64 << from) - 1 };
    for ev in &mut g.threads[t] {
        let high = ev.deps & !low;
        ev.deps = (ev.deps & low) | if delta > 0 { high << delta } else { high >> -delta };
    }
}
