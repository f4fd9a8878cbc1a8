//! Graphs with holes: what HMC's dependency-based revisits need (see the module docs of
//! [`super`]). A hole ([`HOLE`]) is a position of a thread whose event a revisit removed while a
//! program-order-later event of the thread stayed; the explorer fills it again when the thread's
//! turn comes. The models never see holes: [`Compacted`] removes them first.

use crate::exec::bitset::BitSet;
use crate::exec::event::{Event, EventId};
use crate::exec::graph::{ExecutionGraph, HOLE, NodeIndex};
use crate::program::label::{EventKind, Label, TcOp};
use crate::program::{CodeLine, CompiledProgram, Op, Opnd};
use tcfuzz_litmus::{AtomOp, Span};

/// The events of `g` that are not holes.
pub(crate) fn present(g: &ExecutionGraph) -> impl Iterator<Item = EventId> + '_ {
    g.event_ids().filter(|&e| !g.is_hole(e))
}

/// The first hole of thread `t`, or one past its last event: where it goes on.
pub(crate) fn frontier(g: &ExecutionGraph, t: usize) -> usize {
    g.threads[t].iter().position(|e| e.stamp == HOLE).unwrap_or(g.threads[t].len())
}

/// The dependency prefix of `e` (HMC's `(ppo ∪ rf)`-prefix), `e` included, over [`NodeIndex`]
/// nodes: closed under
/// - `rf`: a read needs the write it reads from;
/// - dependencies: the thread's reads an event's value or execution depends on (data and
///   control, [`crate::exec::event::Event::deps`], which also links an rmw's write to its read);
/// - what decides whether the thread goes on: an event needs the earlier barrier arrivals of its
///   thread, and an arrival the other arrivals at its instance (a thread goes past a barrier only
///   once every member has arrived, so an event after it cannot stay without them); likewise the
///   read of a `tcgen05.alloc`, which blocks the thread when it finds no room; and the read of
///   an rmw from which no cycle of these needs can go on ([`Label::orders_thread`]): not
///   needed, but harmless where no consistent execution has such a cycle, and it keeps the rmw
///   from becoming a hole, refilled before the writes a revisit deleted return (the rmw-hole gap
///   of [`super`]);
/// - what decides where the later events of the thread sit, beyond the value of a `cas` read
///   (which [`fix_cas_layout`] follows): the reads a register expected value of a `cas` comes
///   from (the `cas` read needs them). (An `mma` whose accumulator flag is a register has the
///   same events whatever the flag: a skip where it does not read the accumulator,
///   [`crate::program::label::Label::accumulator_skip`]. Only its accumulator slot and write need the
///   flag's reads, through their dependencies.);
/// - instructions whole where that costs nothing: an rmw's read needs its write when the write
///   depends on nothing the read does not (the write needs its read through its dependencies);
///   each event of a `tcgen05` instruction after the first needs the one before it (the model
///   groups them from the one marked first) — but for the arrives of a commit, one per CTA of a
///   multicast mask and unordered among themselves, each of which needs only the commit's issue
///   (else an arrive on one CTA's mbarrier could not read what a thread wrote after seeing the
///   commit's arrive on another's). Where the write depends on more (`atom.add x, r` with `r` loaded
///   earlier), a revisit may keep the read and delete the write — which must stay revisitable
///   through `r` — and the write comes back right after the read, before anything else
///   ([`super::trust`]'s `next`).
///
/// Program order is not in it: neither between accesses of one location (the model rules out
/// the revisits that would make a read see a later write of its own thread where it forbids
/// them, [`crate::model::MemoryModel::revisit_forbidden`]) nor after a
/// `cas` (whether it writes moves the positions of later events, which
/// [`fix_cas_layout`] follows, but decides nothing about them).
///
/// `program::ordering_rmws` over-approximates these needs per instruction (which rmws may be
/// kept with their threads rests on it): a new kind of need here needs its counterpart there.
pub(crate) fn dep_prefix(g: &ExecutionGraph, idx: &NodeIndex, prog: &CompiledProgram, e: EventId) -> BitSet {
    dep_prefix_following(g, idx, prog, e, |_, _| true)
}

/// A read `r` of `a`'s location, if any, that `prefix`, the [`dep_prefix`] of write `a`, holds only
/// because another atomic rmw in it reads `r`'s own rmw write, on a load-buffering cycle: with
/// those `rf` edges left out, `r` is not in it, and `a` still needs an event after `r` in `r`'s
/// thread. There `a`'s revisit of `r` is refused, and the graph it would start from — the other
/// rmw reading what `r` reads now — may not exist: two rmws cannot read one write (Atomicity,
/// PTX ISA §8.10.3), so wherever `r` reads it the other rmw reads `r`'s write, and the graphs in
/// which `r` reads the other rmw's write instead, keeping the later event, may all be
/// inconsistent (`known_gaps::assume_58085115`: `r`, an acquire, then synchronizes with the
/// other rmw, a release, so the later store of `r`'s thread, which the other thread loaded before
/// its rmw, comes after that load in causality order, §8.10.6). The class of
/// [`super::trust::Explorer::atomicity_held`].
///
/// Not asked: where `r` is in `a`'s thread (a read never reads a later write of its own thread,
/// Coherence §8.10.1), where the other rmw is `a`'s own (the revisit moves it, as TruSt's do),
/// or follows `r` in `r`'s thread (Coherence keeps it after `r`'s write), and where `a` needs no
/// later event of `r`'s thread. That last is measured, not proven: without it the test stood on
/// 35 of the 1,600 programs of `tcfuzz generate --seed 9 --family random` (and on 5 of
/// `examples/` and the conformance corpus), with it on 3 (and none); of the 32 generated ones
/// it drops, the 30 the oracle can judge are explored exactly (as is
/// `known_gaps::exchs_held_by_atomicity_without_load_buffering_need_no_caveat`).
pub(crate) fn held_by_atomicity(
    g: &ExecutionGraph,
    idx: &NodeIndex,
    prog: &CompiledProgram,
    a: EventId,
    prefix: &BitSet,
) -> Option<EventId> {
    let loc = g.loc_of(a);
    // The write half of `x` where `x` is the read of an atomic rmw that writes.
    let rmw_write_of = |x: EventId| {
        let l = g.label(x);
        let w = EventId { thread: x.thread, index: x.index + 1 };
        let write = g.threads[x.thread as usize].get(w.index as usize).filter(|n| n.stamp != HOLE && n.label.rmw_write);
        (l.is_read() && l.atomic && write.is_some()).then_some(w)
    };
    present(g).find(|&r| {
        let candidate = r.thread != a.thread && g.label(r).loc == loc && prefix.contains(idx.node(r));
        let Some(rw) = rmw_write_of(r).filter(|_| candidate) else { return false };
        let held = |x: EventId| x.thread != r.thread && g.event(x).rf == Some(rw) && rmw_write_of(x).is_some_and(|w| w != a);
        if !present(g).any(|x| held(x) && prefix.contains(idx.node(x))) {
            return false;
        }
        let reduced = dep_prefix_following(g, idx, prog, a, |x, w| !(w == rw && rmw_write_of(x).is_some()));
        let later_needed = |e: EventId| e.thread == r.thread && e.index > rw.index && g.event(e).span != g.event(r).span;
        !reduced.contains(idx.node(r)) && present(g).any(|e| later_needed(e) && reduced.contains(idx.node(e)))
    })
}

/// [`dep_prefix`] of `e` with the `rf` edges `(read, source)` for which `follows` is false left
/// out ([`super::trust::Explorer::atomicity_held`]).
pub(crate) fn dep_prefix_following(
    g: &ExecutionGraph,
    idx: &NodeIndex,
    prog: &CompiledProgram,
    e: EventId,
    follows: impl Fn(EventId, EventId) -> bool,
) -> BitSet {
    let mut set = BitSet::new(idx.len());
    let mut stack = vec![e];
    // Per thread, the events before this index have had what they bring to every later event of
    // their thread pushed (the scans below): a later event of the thread needs no scan below it.
    let mut scanned = vec![0usize; g.threads.len()];
    // Per thread, whether its code has an instruction whose shape varies (`shape_varies`), once
    // looked up: most have none, and the lookup scans the code.
    let mut varies: Vec<Option<bool>> = vec![None; g.threads.len()];
    while let Some(x) = stack.pop() {
        if !set.insert(idx.node(x)) || x.is_init() {
            continue;
        }
        let ev = g.event(x);
        debug_assert!(ev.stamp != HOLE, "[tcfuzz internal bug] a dependency on a hole");
        if let Some(w) = ev.rf.filter(|&w| follows(x, w)) {
            stack.push(w);
        }
        push_deps(&mut stack, x, ev.deps);
        let evs = &g.threads[x.thread as usize];
        let code = &prog.threads[x.thread as usize].code;
        let varies = *varies[x.thread as usize].get_or_insert_with(|| code.iter().any(|l| shape_varying_line(&l.op)));
        let (from, to) = (scanned[x.thread as usize], x.index as usize);
        for (j, p) in evs.iter().enumerate().take(to).skip(from) {
            if p.stamp == HOLE {
                continue;
            }
            if decides_continuation(&p.label) {
                stack.push(EventId::new(x.thread as usize, j));
            }
        }
        scanned[x.thread as usize] = from.max(to);
        if let Some(needed) = instruction_predecessor(evs, x.index as usize) {
            stack.push(EventId::new(x.thread as usize, needed));
        }
        // A `cas` whose expected value is a register: whether it writes — and so where every
        // later event of its thread sits — depends on the reads that value comes from (its write
        // half's dependencies; all earlier reads where it has none).
        if varies && ev.cas_expected.is_some() && shape_varies(code, &ev.label, ev.span) {
            let earlier_reads = evs[..x.index as usize].iter().enumerate().filter(|(_, p)| p.stamp != HOLE && p.label.is_read());
            let deps = match evs.get(x.index as usize + 1).filter(|n| n.label.rmw_write) {
                Some(w) => w.deps & !(1 << x.index),
                None => earlier_reads.fold(0, |m, (j, _)| m | 1 << j),
            };
            push_deps(&mut stack, x, deps);
        }
        if ev.label.is_barrier() {
            stack.extend(g.barrier_partners(x));
        }
        // An rmw's read brings its write when the write needs nothing more than the read does.
        if ev.label.is_read() && ev.label.atomic {
            let next = EventId { thread: x.thread, index: x.index + 1 };
            let write = g.threads[x.thread as usize].get(next.index as usize).filter(|n| n.stamp != HOLE && n.label.rmw_write);
            if write.is_some_and(|w| w.deps & !(ev.deps | 1 << x.index) == 0) {
                stack.push(next);
            }
        }
    }
    set
}

/// The event of its own instruction that event `i` of a thread (`evs`) needs: for an event of a
/// `tcgen05` instruction after the first, the one before it (the model groups an instruction's
/// events from the one marked first, so a later event without the earlier ones is judged as
/// part of another instruction) — but for the arrives of a commit, one per CTA of a multicast
/// mask and unordered among themselves, each of which needs only the commit's issue (else an
/// arrive on one CTA's mbarrier could not read what a thread wrote after seeing the commit's
/// arrive on another's). `None` for other events.
pub(crate) fn instruction_predecessor(evs: &[Event], i: usize) -> Option<usize> {
    let label = &evs[i].label;
    if i == 0 || label.tc.is_none_or(|t| t.first) {
        return None;
    }
    let commit_arrive = label.is_read() && label.tc.is_some_and(|t| t.op == TcOp::CommitArrive);
    let issue = || (0..i).rev().find(|&j| evs[j].label.tc.is_some_and(|t| t.first));
    Some(if commit_arrive { issue().unwrap_or(i - 1) } else { i - 1 })
}

/// Pushes the events of `x`'s thread before it that `deps` names (bit `j`: event `j`).
fn push_deps(stack: &mut Vec<EventId>, x: EventId, mut deps: u64) {
    while deps != 0 {
        let j = deps.trailing_zeros();
        deps &= deps - 1;
        if j < x.index {
            stack.push(EventId { thread: x.thread, index: j });
        }
    }
}

/// Whether the event labelled `label` at `span` may come from an instruction whose shape (the
/// events it performs) depends on a register: a `cas` whose expected value is a register (this
/// for its read). Found by label and source position in the thread's code; where lines share
/// both (programs built in code have no positions), any of them counts.
fn shape_varies(code: &[CodeLine], label: &Label, span: Span) -> bool {
    code.iter().any(|l| l.span == span && shape_varying_line(&l.op) && matches!(&l.op, Op::Rmw { read, .. } if read == label))
}

/// Whether `op` is an instruction whose shape depends on a register (`shape_varies`).
fn shape_varying_line(op: &Op) -> bool {
    matches!(op, Op::Rmw { op: AtomOp::Cas, a: Opnd::Reg(_), b: Some(_), .. })
}

/// Whether the thread goes on past event `l` depends on it (other than through the
/// dependencies the interpreter records): a barrier arrival, or the read of a `tcgen05.alloc`;
/// or an rmw's read from which no cycle of needs can go on ([`Label::orders_thread`]), kept with
/// every later event of its thread so that no revisit leaves it a hole.
fn decides_continuation(l: &Label) -> bool {
    l.is_barrier() || (l.is_read() && l.tc.is_some_and(|t| t.op == TcOp::Alloc)) || l.orders_thread
}

/// Keeps the events `keep` accepts: a removed event becomes a hole when a later event of its
/// thread stays, and goes otherwise (as do holes with nothing kept after them). A hole keeps the
/// label and dependencies of the event it replaces (what the maximality test needs where it
/// cannot replay the thread), but no `rf`, value or place in `co`.
pub(crate) fn cut(g: &mut ExecutionGraph, keep: &dyn Fn(EventId) -> bool) {
    let mut holes_before = Vec::new();
    for t in 0..g.threads.len() {
        let kept = |i: usize| {
            let e = EventId::new(t, i);
            !g.is_hole(e) && keep(e)
        };
        let len = (0..g.threads[t].len()).rev().find(|&i| kept(i)).map_or(0, |i| i + 1);
        let holes: Vec<usize> = (0..len).filter(|&i| !kept(i)).collect();
        holes_before.extend(holes.iter().map(|&i| EventId::new(t, i)).filter(|&e| g.is_hole(e)));
        let evs = &mut g.threads[t];
        evs.truncate(len);
        for i in holes {
            let ev = &mut evs[i];
            ev.stamp = HOLE;
            ev.rf = None;
            ev.value = 0;
        }
    }
    let present = |g: &ExecutionGraph, w: EventId| {
        (w.thread as usize) < g.threads.len() && (w.index as usize) < g.threads[w.thread as usize].len() && !g.is_hole(w)
    };
    for l in 0..g.co.len() {
        let mut ws = std::mem::take(&mut g.co[l]);
        ws.retain(|&w| present(g, w));
        g.co[l] = ws;
    }
    // A pending read is its thread's last position, a hole: gone with the holes after the last
    // kept event, it comes back as the thread's next event (`super::maximal`, "Pending reads").
    g.pending.clear();
    // A waiting read is tried again in the revisited graph (`super::trust`, "Waiting holes").
    g.waiting.clear();
    g.mark_cut(holes_before);
    debug_assert!(
        g.event_ids().all(|e| g.event(e).rf.is_none_or(|w| w.is_init() || present(g, w))),
        "[tcfuzz internal bug] a cut leaves a dangling rf"
    );
}

/// The graph a model judges for a graph `g` with holes, in space reused from graph to graph (the
/// explorer judges most graphs with holes): `g` without its holes (events renumbered, `rf`, `co`
/// and dependencies remapped), or, where `positional` (the model gives meaning to an event's
/// index: Tile IR's token order is a table per event index, [`crate::program::tile_program::TileInfo`]),
/// `g` with each hole turned into an event no axiom looks at (a plain fence with no semantics;
/// Tile IR has no fences). The models the explorer revisits with holes are monotone (removing
/// events, with the reads of removed writes, keeps a graph consistent), so either way a graph
/// with holes is judged as the consistent execution it may still become.
pub(crate) struct Compacted {
    pub graph: ExecutionGraph,
    index: Vec<Vec<u32>>,
}

impl Default for Compacted {
    fn default() -> Self {
        Compacted { graph: ExecutionGraph::new(Vec::new(), 0), index: Vec::new() }
    }
}

impl Compacted {
    /// Makes `self.graph` the graph judged for `g` (type docs).
    pub(crate) fn load(&mut self, g: &ExecutionGraph, positional: bool) {
        if positional {
            self.graph.clone_from(g);
            for ev in self.graph.threads.iter_mut().flatten().filter(|e| e.stamp == HOLE) {
                ev.label.kind = EventKind::Fence;
                ev.label.loc = 0;
                ev.label.vloc = 0;
                ev.label.strong = false;
                ev.label.acquire = false;
                ev.label.release = false;
                ev.label.sc = false;
                ev.label.atomic = false;
                ev.label.rmw_write = false;
                ev.label.alias_fence = false;
                ev.deps = 0;
                ev.cas_expected = None;
                // A stamp other than HOLE: no longer a hole to the graph's helpers.
                ev.stamp = 0;
            }
            return;
        }
        let n = g.threads.len();
        self.index.resize_with(n, Vec::new);
        for (evs, index) in g.threads.iter().zip(&mut self.index) {
            index.clear();
            let mut next = 0;
            for e in evs {
                index.push(if e.stamp == HOLE { u32::MAX } else { next });
                next += u32::from(e.stamp != HOLE);
            }
        }
        let index = &self.index;
        let id = |e: EventId| {
            if e.is_init() {
                return e;
            }
            let i = index[e.thread as usize][e.index as usize];
            debug_assert!(i != u32::MAX, "[tcfuzz internal bug] an edge to a hole");
            EventId { thread: e.thread, index: i }
        };
        let out = &mut self.graph;
        out.init.clone_from(&g.init);
        out.barrier_members.clone_from(&g.barrier_members);
        out.barrier_dyn_members.clone_from(&g.barrier_dyn_members);
        out.threads.resize_with(n, Vec::new);
        for (t, evs) in g.threads.iter().enumerate() {
            let kept = &mut out.threads[t];
            kept.clear();
            for (i, e) in evs.iter().enumerate().filter(|(_, e)| e.stamp != HOLE) {
                let mut e = e.clone();
                e.rf = e.rf.map(id);
                let mut deps = 0u64;
                // (Dependencies are on earlier events of the thread.)
                let mut rest = e.deps & 1u64.checked_shl(i as u32).map_or(!0, |b| b - 1);
                while rest != 0 {
                    let m = index[t][rest.trailing_zeros() as usize];
                    rest &= rest - 1;
                    debug_assert!(m != u32::MAX, "[tcfuzz internal bug] dependency on a hole");
                    deps |= 1 << m;
                }
                e.deps = deps;
                kept.push(e);
            }
        }
        out.co.resize_with(g.co.len(), Vec::new);
        for (ws, kept) in g.co.iter().zip(&mut out.co) {
            kept.clear();
            kept.extend(ws.iter().map(|&w| id(w)));
        }
    }
}

/// After read `r` got a new value: where `r` is the read of a `cas` whose write half now appears or
/// disappears and later events of its thread stay (after holes), moves them one position so that
/// each keeps the position the interpreter gives it (a hole for the new write half, or the old
/// write half's hole dropped). Returns how far the later events of `r`'s thread moved (-1, 0, 1).
pub(crate) fn fix_cas_layout(g: &mut ExecutionGraph, r: EventId) -> i32 {
    let ev = g.event(r);
    let Some(expected) = ev.cas_expected else { return 0 };
    let want = ev.value == expected;
    let (t, p) = (r.thread as usize, r.index as usize);
    if p + 1 >= g.threads[t].len() {
        return 0;
    }
    let next = &g.threads[t][p + 1];
    let have = next.label.rmw_write;
    if want == have {
        return 0;
    }
    if have {
        debug_assert!(next.stamp == HOLE, "[tcfuzz internal bug] cas write half kept while its read changes");
        // A pending read of the write half waits for a write that does not come back: an
        // ordinary hole now, refilled from the writes there are.
        let half = EventId::new(t, p + 1);
        g.pending.retain(|&(_, w, _)| w != half);
        g.threads[t].remove(p + 1);
        renumber(g, t, p + 2, -1);
        -1
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
        1
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
    for (x, w, _) in &mut g.pending {
        (*x, *w) = (shift(*x), shift(*w));
    }
    for (x, _) in &mut g.waiting {
        *x = shift(*x);
    }
    let low = if from >= 64 { u64::MAX } else { (1u64 << from) - 1 };
    for ev in &mut g.threads[t] {
        let high = ev.deps & !low;
        ev.deps = (ev.deps & low) | if delta > 0 { high << delta } else { high >> -delta };
    }
}
