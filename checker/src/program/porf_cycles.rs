//! Whether some execution of a PTX program could have a cyclic `po ∪ rf` (load buffering), or
//! a chain of dependencies through a barrier back to a read: static over-approximations on
//! instructions, so that the explorer's caveats about such executions ([`crate::explore`]) are
//! given only where they can exist.
//!
//! The graph has one node per instruction and an edge
//! - from each instruction to the next ones its thread may run (program order: the next
//!   instruction, a branch's target, a `goto`'s target; a path of these edges is a run of the
//!   thread's code, so an instruction that runs after another in some execution is reachable
//!   from it);
//! - from an instruction that may write a location to one of another thread that may read it (a
//!   possible `rf`);
//! - within a thread, from a write to an earlier read of the same location where the model lets
//!   the read see it: through another virtual address (an alias) or another proxy (a surface,
//!   texture or constant alias of one address: not morally strong, §8.7), or when either is the
//!   perform of an asynchronous `tcgen05` operation, which program order does not order (PTX ISA
//!   §9.7.16.6.1), or when the read is a bulk copy's (asynchronous: program order does not put
//!   the thread's later events after it). Otherwise a read cannot see a later write of its own
//!   thread: the two are morally strong, and SC per location (§8.10.5) forbids it. In a Tile IR
//!   program (only [`crate::program::ordering_rmws`]'s second test builds this graph for one),
//!   from every write to every earlier read of its location that it does not wait for: program
//!   order orders nothing there (Tile IR spec §7.12.1), but token order is in happens-before
//!   (§7.5, §7.6), and a read does not read from a write that happens after it (the model's
//!   Causality axiom, `model/tileir.rs`);
//! - both ways between arrivals at the same CTA barrier (or `cta_group::2` rendezvous) in
//!   different threads, which the explorer adds together.
//!
//! Every `po ∪ rf` cycle of an execution maps to a closed walk of this graph through its `rf`
//! edges, each *stretch* (from the read where the cycle enters a thread to the write where it
//! leaves it) a path of program-order edges. Three kinds of cycle the PTX model forbids in every
//! execution are left out ([`StaticGraph::porf_cycle_possible`]):
//! - *fenced*: every stretch passes a `fence.sc` morally strong with every other thread's, and
//!   every `rf` joins two generic accesses of one virtual address — Causality forbids it
//!   (§8.9.3, §8.9.4, §8.9.5, §8.10.6; the argument is the model's, `model/ptx/fenced_cycle.rs`);
//! - *on one location*: every stretch goes from a read of a location `x` to a write of `x`, and
//!   the accesses of `x` in the program are pairwise morally strong (§8.7: strong, generic, one
//!   virtual address, each one's scope including every thread that accesses `x`) — then the cycle
//!   is one of program order between overlapping operations and `rf`, which SC per location
//!   forbids (§8.10.5: "communication order cannot contradict program order"). Two `cas`es or
//!   exchanges of a lock that read each other's writes are such a cycle.
//!
//! - *synchronizing*: every `rf` joins a strong release write to a strong acquire read of the
//!   same virtual address, morally strong (§8.7) — each then synchronizes (§8.9.4), and with the
//!   program order of the stretches the cycle is one of base causality order (§8.9.5), so a
//!   read of it reads a write that follows it in causality order, which Causality forbids
//!   (§8.10.6). Message-passing rings of release stores and acquire loads (GenMC's `fib`) are
//!   such cycles.
//!
//! A walk that mixes the kinds, or has a stretch of none, or goes through a barrier, counts.

use std::collections::HashMap;

use crate::program::label::{Label, Proxy};
use crate::program::{CompiledProgram, Op};

/// One instruction's memory events: what it may read and write, and its barrier arrival.
#[derive(Default)]
pub(crate) struct Accesses {
    pub(crate) reads: Vec<Label>,
    pub(crate) writes: Vec<Label>,
    pub(crate) barriers: Vec<u32>,
    /// A bulk copy: asynchronous, so its reads may see writes of later instructions of its
    /// thread ([`crate::program::sync::bulk_copy_unordered`]).
    bulk_copy: bool,
}

pub(crate) fn accesses(op: &Op) -> Accesses {
    let mut a = Accesses::default();
    match op {
        Op::Load { label, .. } | Op::SyncWait { label, .. } => a.reads.push(*label),
        Op::Store { label, .. } => a.writes.push(*label),
        Op::Rmw { read, write, .. } => {
            a.reads.push(*read);
            a.writes.push(*write);
        }
        Op::SyncArrive { read, write, wait, .. } => {
            a.reads.push(*read);
            a.writes.push(*write);
            a.reads.extend(wait.iter().map(|(_, l)| *l));
        }
        Op::BulkCopy { read, write, cread, cwrite, .. } => {
            a.reads.extend([*read, *cread]);
            a.writes.extend([*write, *cwrite]);
            a.bulk_copy = true;
        }
        Op::TcCompute { reads, acc, write, .. } => {
            a.reads.extend(reads.iter().copied());
            a.reads.extend(acc.iter().map(|(_, l)| *l));
            a.writes.push(*write);
        }
        Op::TcCommit { arrives, .. } => {
            for (r, w) in arrives {
                a.reads.push(*r);
                a.writes.push(*w);
            }
        }
        Op::TmemAlloc { rendezvous, read, write, slot, .. } => {
            a.reads.push(*read);
            a.writes.push(*write);
            a.writes.extend(slot.iter().copied());
            a.barriers.extend(rendezvous.map(|l| l.loc));
        }
        Op::Barrier { label } => a.barriers.push(label.loc),
        Op::DynBarrier { ids, solo, .. } => a.barriers.extend(ids.iter().map(|&(_, id)| id).chain([*solo])),
        Op::Fence { .. } | Op::Mov { .. } | Op::Add { .. } | Op::Branch { .. } | Op::Goto { .. } | Op::Assume { .. } => {}
    }
    a
}

/// Whether a read labelled `r` may see a write labelled `w` that comes later in its own thread:
/// where the two are not morally strong (§8.7: one thread's accesses are, when they go through
/// the same proxy and overlap completely — one virtual address), or either is asynchronous.
fn reads_later_own_write(r: &Label, w: &Label) -> bool {
    r.loc == w.loc && (r.vloc != w.vloc || r.proxy != w.proxy || r.is_async() || w.is_async())
}

/// See the module docs. Tile IR programs, whose program order orders nothing, are not judged
/// here (the caller treats any thread that reads and writes as a possible cycle).
pub(crate) fn may_have_porf_cycles(prog: &CompiledProgram) -> bool {
    StaticGraph::new(prog).porf_cycle_possible()
}

/// A possible `rf` between two instructions: of location `loc`, `causal` where both accesses
/// are generic ones of one virtual address (base causality between them is causality order,
/// §8.9.5), `synchronizing` where the write is a strong release and the read a strong acquire,
/// morally strong ([`StaticGraph`]'s module docs, "synchronizing").
/// (Node indices as `u32`: `indexer` n = 15 has 430,000 possible `rf` edges, most of a check's
/// memory.)
struct Rf {
    w_node: u32,
    r_node: u32,
    loc: u32,
    causal: bool,
    synchronizing: bool,
}

impl Rf {
    /// The node of the write.
    fn w(&self) -> usize {
        self.w_node as usize
    }

    /// The node of the read.
    fn r(&self) -> usize {
        self.r_node as usize
    }
}

/// The graph of the module docs.
pub(crate) struct StaticGraph {
    /// Program-order successors of each node.
    po: Vec<Vec<usize>>,
    /// Arrivals at the same barrier in other threads.
    partners: Vec<Vec<usize>>,
    /// Grouped by the node they leave, in node order.
    rf: Vec<Rf>,
    /// Per node `a`, where its edges start in `rf` (they end where `a + 1`'s start).
    rf_start: Vec<usize>,
    /// Per node: a `fence.sc` morally strong with every other thread's `fence.sc` (§8.7).
    global_fence: Vec<bool>,
    /// Per node: a barrier arrival.
    barrier: Vec<bool>,
    /// The locations whose accesses are pairwise morally strong (module docs, "on one location").
    coherent: HashMap<u32, bool>,
    /// Strongly connected component of each node (program order, `rf`, barrier partners).
    scc: Vec<usize>,
    /// Per node: one event per location read or written in any run (no loop, no two reads or
    /// two writes of one location).
    single: Vec<bool>,
}

/// How many steps [`StaticGraph::porf_cycle_possible`] spends on simple cycles before it falls
/// back to closed walks (a coarser answer), so that no generated program makes it slow.
const SIMPLE_CYCLE_BUDGET: u32 = 100_000;

/// Per `rf` edge, the edges a stretch of program order can lead to from it, each with whether
/// some such stretch is unfenced, incoherent and unsynchronized ([`StaticGraph::stretches`]).
type Stretches = HashMap<usize, Vec<(usize, Flags)>>;

/// How a closed walk must go on from the node it is asked about
/// ([`StaticGraph::cycle_possible_through`], [`StaticGraph::cycle_possible_at`],
/// [`StaticGraph::cycle_possible_into`]).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Exit {
    /// To a later instruction of its thread.
    Po,
    /// By any edge.
    Any,
}

/// Whether a stretch, or a walk so far, is unfenced, incoherent, unsynchronized: a cycle is
/// possible where all three hold (module docs).
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash)]
struct Flags {
    unfenced: bool,
    incoherent: bool,
    unsynchronized: bool,
}

impl Flags {
    fn or(self, o: Flags) -> Flags {
        Flags {
            unfenced: self.unfenced || o.unfenced,
            incoherent: self.incoherent || o.incoherent,
            unsynchronized: self.unsynchronized || o.unsynchronized,
        }
    }

    fn all(self) -> bool {
        self.unfenced && self.incoherent && self.unsynchronized
    }
}

/// How many steps each search of [`StaticGraph`] may take in all before it gives the
/// conservative answer (a cycle is possible: the caveat stays, and the explorer takes the
/// dependency revisits). Without it, programs with many possible `rf` edges (`indexer` n = 12:
/// hundreds of cas on shared slots) took minutes. At 1,000,000 the searches that exhaust it
/// (indexer's) held most of a check's memory in their visited sets and most of its time
/// (indexer 12: 0.14 s of 0.14 s; indexer 15: 106 MB peak); at 200,000, 0.025 s and 89 MB,
/// with the same verdicts, caveats and revisits on every conformance and example program and on
/// `selftest --programs 3000 --family all`, seeds 1 and 2. (The graph itself, its `rf` edges
/// compact and grouped by node since: indexer 15 at 59 MB peak under `tcfuzz check`, 74 MB
/// before.)
pub(crate) const SEARCH_BUDGET: u64 = 200_000;

impl StaticGraph {
    pub(crate) fn new(prog: &CompiledProgram) -> StaticGraph {
        Self::performing(prog, &|_, _| true)
    }

    /// The graph of the executions in which instruction `i` of thread `t` makes events only
    /// where `performs(t, i)`: the others keep their place in program order, with no access
    /// and no barrier arrival (an over-approximation still, where `performs` is one).
    pub(crate) fn performing(prog: &CompiledProgram, performs: &dyn Fn(usize, usize) -> bool) -> StaticGraph {
        // In a Tile IR program, per node, the index of its (first) event in its thread's events
        // (its code is straight-line: one event per access, two per rmw) and what it waits for.
        let token_order: Option<Vec<(usize, u64)>> = prog.tile.as_ref().map(|tile| {
            let mut out = Vec::new();
            for (code, waits) in prog.threads.iter().zip(&tile.waits_for) {
                let mut ev = 0;
                for l in &code.code {
                    out.push((ev, waits.get(ev).copied().unwrap_or(0)));
                    ev += match l.op {
                        Op::Rmw { .. } => 2,
                        Op::Load { .. } | Op::Store { .. } => 1,
                        _ => 0,
                    };
                }
            }
            out
        });
        // Whether node `a` (a write) waits for node `b` (a read) of its thread (§7.5, §7.6).
        let waits_for = |a: usize, b: usize| token_order.as_ref().is_some_and(|o| o[b].0 < 64 && o[a].1 & (1 << o[b].0) != 0);
        let tile = token_order.is_some();
        // Nodes: every instruction, thread by thread.
        let mut nodes: Vec<(usize, Accesses)> = Vec::new();
        for (t, code) in prog.threads.iter().enumerate() {
            nodes
                .extend(code.code.iter().enumerate().map(|(i, l)| (t, if performs(t, i) { accesses(&l.op) } else { Accesses::default() })));
        }
        let n = nodes.len();
        let mut po: Vec<Vec<usize>> = vec![Vec::new(); n];
        let mut global_fence = vec![false; n];
        let mut start = 0;
        for (t, code) in prog.threads.iter().enumerate() {
            let len = code.code.len();
            for (i, l) in code.code.iter().enumerate() {
                let next: &[usize] = match l.op {
                    Op::Goto { target } => &[target],
                    Op::Branch { target, .. } => &[i + 1, target],
                    _ => &[i + 1],
                };
                po[start + i].extend(next.iter().filter(|&&j| j < len).map(|&j| start + j));
                if let Op::Fence { label } = &l.op {
                    global_fence[start + i] = label.sc
                        && label.strong
                        && label.proxy == Proxy::Generic
                        && prog.places.iter().all(|p| prog.places[t].scope_includes(label.scope, p));
                }
            }
            start += len;
        }
        // Possible rf, location by location; barrier meetings, barrier by barrier.
        let mut writers: HashMap<u32, Vec<(usize, Label)>> = HashMap::new();
        let mut readers: HashMap<u32, Vec<(usize, Label)>> = HashMap::new();
        let mut arrivals: std::collections::BTreeMap<u32, Vec<usize>> = std::collections::BTreeMap::new();
        for (a, (_, acc)) in nodes.iter().enumerate() {
            for w in &acc.writes {
                writers.entry(w.loc).or_default().push((a, *w));
            }
            for r in &acc.reads {
                readers.entry(r.loc).or_default().push((a, *r));
            }
            for &id in &acc.barriers {
                arrivals.entry(id).or_default().push(a);
            }
        }
        // (A bulk copy's events are asynchronous, its mbarrier `complete_tx` too, whatever their
        // labels say: [`Label::bulk_copy`] is numbered when the copy runs, not here.)
        let generic =
            |a: usize, l: &Label| l.proxy == Proxy::Generic && !l.is_async() && l.bulk_copy == 0 && l.tc.is_none() && !nodes[a].1.bulk_copy;
        // (Sized for every reader of each write's location, its own thread's included.)
        let most = nodes.iter().flat_map(|(_, acc)| &acc.writes).map(|w| readers.get(&w.loc).map_or(0, Vec::len)).sum();
        let mut rf: Vec<Rf> = Vec::with_capacity(most);
        let mut rf_start = Vec::with_capacity(n + 1);
        for (a, (ta, acc)) in nodes.iter().enumerate() {
            rf_start.push(rf.len());
            for &w in &acc.writes {
                for &(b, r) in readers.get(&w.loc).into_iter().flatten() {
                    let tb = nodes[b].0;
                    let own_later = (tile && !waits_for(a, b)) || reads_later_own_write(&r, &w) || nodes[b].1.bulk_copy;
                    if *ta != tb || (b < a && own_later) {
                        let causal = generic(a, &w) && generic(b, &r) && w.vloc == r.vloc;
                        // Morally strong (§8.7): strong, and each one's scope includes the other's thread.
                        let (pa, pb) = (&prog.places[*ta], &prog.places[tb]);
                        let morally_strong = w.strong && r.strong && pa.scope_includes(w.scope, pb) && pb.scope_includes(r.scope, pa);
                        let synchronizing = causal && *ta != tb && morally_strong && w.release && r.acquire;
                        rf.push(Rf { w_node: a as u32, r_node: b as u32, loc: w.loc, causal, synchronizing });
                    }
                }
            }
        }
        rf_start.push(rf.len());
        let mut partners: Vec<Vec<usize>> = vec![Vec::new(); n];
        let mut barrier = vec![false; n];
        for members in arrivals.values() {
            for &a in members {
                barrier[a] = true;
                partners[a].extend(members.iter().copied().filter(|&b| nodes[b].0 != nodes[a].0));
            }
        }
        // Pairwise morally strong (§8.7): generic, one virtual address, strong, each one's scope
        // including the other's thread — here every thread that accesses the location.
        let mut coherent = HashMap::new();
        for (&loc, ws) in &writers {
            let all: Vec<&(usize, Label)> = ws.iter().chain(readers.get(&loc).into_iter().flatten()).collect();
            let ok = all.iter().all(|(a, l)| {
                generic(*a, l)
                    && l.strong
                    && l.vloc == loc
                    && all.iter().all(|(b, _)| prog.places[nodes[*a].0].scope_includes(l.scope, &prog.places[nodes[*b].0]))
            });
            coherent.insert(loc, ok);
        }
        let succ: Vec<Vec<usize>> = (0..n)
            .map(|a| po[a].iter().chain(&partners[a]).copied().chain(rf[rf_start[a]..rf_start[a + 1]].iter().map(|e| e.r())).collect())
            .collect();
        let scc = components(&succ);
        // A node in a loop is on a cycle of program order alone: in its own component with
        // another node of its thread, or a jump to itself.
        let mut single: Vec<bool> = nodes
            .iter()
            .map(|(_, acc)| {
                let distinct = |ls: &[Label]| ls.iter().enumerate().all(|(i, l)| ls[..i].iter().all(|m| m.loc != l.loc));
                distinct(&acc.reads) && distinct(&acc.writes)
            })
            .collect();
        let po_scc = components(&po);
        let mut size = vec![0usize; n];
        for &c in &po_scc {
            size[c] += 1;
        }
        for a in 0..n {
            if po[a].contains(&a) || size[po_scc[a]] > 1 {
                single[a] = false;
            }
        }
        StaticGraph { po, partners, rf, rf_start, global_fence, barrier, coherent, scc, single }
    }

    /// The indices in `rf` of the edges that leave node `a`.
    fn rf_out(&self, a: usize) -> std::ops::Range<usize> {
        self.rf_start[a]..self.rf_start[a + 1]
    }

    /// Whether some `po ∪ rf` cycle may be in a consistent execution: a closed walk through some
    /// `rf` edge that is not fenced, not on one location and not synchronizing (module docs).
    pub(crate) fn porf_cycle_possible(&self) -> bool {
        let cyclic: Vec<usize> = (0..self.rf.len()).filter(|&e| self.scc[self.rf[e].w()] == self.scc[self.rf[e].r()]).collect();
        if cyclic.is_empty() {
            return false;
        }
        // Where every node the cycles can pass is one event (no loop, one read and one write of
        // a location at most), an execution's cycle, simple, enters each read at most once:
        // search those. Otherwise (or past a budget), closed walks.
        let mut steps = SEARCH_BUDGET;
        if cyclic.iter().all(|&e| self.single[self.rf[e].w()] && self.single[self.rf[e].r()]) {
            let mut budget = SIMPLE_CYCLE_BUDGET;
            match self.unexcused_simple_cycle(&cyclic, &mut budget, &mut steps) {
                Some(found) => return found,
                None if steps == 0 => return true,
                None => {}
            }
        }
        for &e in &cyclic {
            match self.unexcused_cycle_through(e, None, &mut steps) {
                Some(false) => {}
                // Found, or past the budget: a cycle may be possible.
                Some(true) | None => return true,
            }
        }
        false
    }

    /// For each `rf` edge `e` of `edges`, the stretches that can follow it: `(e', flags)` where a
    /// run of the thread of `e`'s read (or, through barrier partners, of others) goes from that
    /// read to `e'`'s write — `unfenced` where one such run passes no global `fence.sc` (or `e'`
    /// is not causal),
    /// `incoherent` where the stretch is not a read and a write of one coherent location,
    /// `unsynchronized` where `e'` does not synchronize (or a run passes a barrier partner).
    /// `None` past `steps`.
    fn stretches(&self, edges: &[usize], steps: &mut u64) -> Option<Stretches> {
        let mut member = vec![false; self.rf.len()];
        for &e in edges {
            member[e] = true;
        }
        let mut out = HashMap::new();
        for &e in edges {
            let f = &self.rf[e];
            // (node, fenced so far, through a partner)
            let start = (f.r(), false, false);
            let mut seen = std::collections::HashSet::from([start]);
            let mut stack = vec![start];
            let mut next: HashMap<usize, Flags> = HashMap::new();
            while let Some((a, fenced, partner)) = stack.pop() {
                *steps = steps.checked_sub(1 + self.rf_out(a).len() as u64)?;
                for o in self.rf_out(a) {
                    if !member[o] {
                        continue;
                    }
                    let g = &self.rf[o];
                    let unfenced = !fenced || partner || !g.causal;
                    let incoherent = partner || g.loc != f.loc || !self.coherent.get(&f.loc).copied().unwrap_or(false);
                    let unsynchronized = partner || !g.synchronizing;
                    let entry = next.entry(o).or_default();
                    *entry = entry.or(Flags { unfenced, incoherent, unsynchronized });
                }
                let po = self.po[a].iter().map(|&b| (b, fenced || self.global_fence[b], partner));
                let across = self.partners[a].iter().map(|&b| (b, fenced, true));
                for s in po.chain(across) {
                    if self.scc[s.0] == self.scc[f.r()] && seen.insert(s) {
                        stack.push(s);
                    }
                }
            }
            out.insert(e, next.into_iter().collect());
        }
        Some(out)
    }

    /// Whether a simple cycle of `rf` edges (each read and each write entered once) has an
    /// unfenced, an incoherent and an unsynchronized stretch; `None` past `budget` steps (or
    /// `steps`, spent in finding the stretches).
    fn unexcused_simple_cycle(&self, edges: &[usize], budget: &mut u32, steps: &mut u64) -> Option<bool> {
        let next = self.stretches(edges, steps)?;
        // Depth-first over simple paths from each first edge (the least of its cycle).
        fn extend(g: &StaticGraph, next: &Stretches, first: usize, path: &mut Vec<usize>, seen: Flags, budget: &mut u32) -> Option<bool> {
            let last = *path.last()?;
            for &(o, flags) in next.get(&last).into_iter().flatten() {
                *budget = budget.checked_sub(1)?;
                let seen = seen.or(flags);
                if o == first {
                    if seen.all() {
                        return Some(true);
                    }
                    continue;
                }
                // The read and the write of `o` are events of the cycle already (`single`: a node
                // has one read and one write of a location).
                let (w, r, loc) = (g.rf[o].w(), g.rf[o].r(), g.rf[o].loc);
                if o < first || path.iter().any(|&p| g.rf[p].loc == loc && (g.rf[p].r() == r || g.rf[p].w() == w)) {
                    continue;
                }
                path.push(o);
                let found = extend(g, next, first, path, seen, budget)?;
                path.pop();
                if found {
                    return Some(true);
                }
            }
            Some(false)
        }
        for &first in edges {
            if extend(self, &next, first, &mut vec![first], Flags::default(), budget)? {
                return Some(true);
            }
        }
        Some(false)
    }

    /// Whether a closed walk starts and ends with the `rf` edge `first` and has a stretch without
    /// a global `fence.sc` (or a non-causal `rf`, or a barrier), a stretch that is not a read
    /// and a write of one coherent location (or a barrier), and an `rf` that does not
    /// synchronize (or a barrier) — and, with `via`, goes on from its node in program order
    /// ([`Exit::Po`]) or by any edge ([`Exit::Any`]). A search over (node, the location the
    /// current stretch read, whether it passed a global fence, which of the three the walk so far
    /// has, whether it went on from `via`). `None` past `steps`.
    fn unexcused_cycle_through(&self, first: usize, via: Option<(usize, Exit)>, steps: &mut u64) -> Option<bool> {
        #[derive(Clone, Copy, PartialEq, Eq, Hash)]
        struct State {
            node: usize,
            loc: Option<u32>,
            fenced: bool,
            seen: Flags,
            passed: bool,
        }
        let f = &self.rf[first];
        let component = self.scc[f.r()];
        let enter = |e: &Rf, seen: Flags, passed: bool| State {
            node: e.r(),
            loc: Some(e.loc),
            fenced: false,
            passed,
            seen: seen.or(Flags {
                unfenced: !e.causal,
                incoherent: !self.coherent.get(&e.loc).copied().unwrap_or(false),
                unsynchronized: !e.synchronizing,
            }),
        };
        // Whether the walk, at `s`, has gone on from `via` once it takes an edge out of `s`
        // (`po`: a program-order edge).
        let gone_on = |s: &State, po: bool| s.passed || via.is_some_and(|(v, exit)| s.node == v && (po || exit == Exit::Any));
        let start = enter(f, Flags::default(), via.is_none());
        let mut seen = std::collections::HashSet::from([start]);
        let mut stack = vec![start];
        while let Some(s) = stack.pop() {
            *steps = steps.checked_sub(1 + self.rf_out(s.node).len() as u64)?;
            let mut push = |next: State| {
                if self.scc[next.node] == component && seen.insert(next) {
                    stack.push(next);
                }
            };
            for &j in &self.po[s.node] {
                let passed = gone_on(&s, true);
                push(State { node: j, fenced: s.fenced || self.global_fence[j], passed, ..s });
            }
            for &j in &self.partners[s.node] {
                let passed = gone_on(&s, false);
                push(State { node: j, loc: None, seen: Flags { unfenced: true, incoherent: true, unsynchronized: true }, passed, ..s });
            }
            for e in self.rf_out(s.node) {
                let out = &self.rf[e];
                let seen = s.seen.or(Flags { unfenced: !s.fenced, incoherent: s.loc != Some(out.loc), unsynchronized: false });
                if e == first {
                    if seen.all() && gone_on(&s, false) {
                        return Some(true);
                    }
                    continue;
                }
                push(enter(out, seen, gone_on(&s, false)));
            }
        }
        Some(false)
    }

    /// Whether a `po ∪ rf` cycle the model allows may go from node `a` on to a later instruction
    /// of its thread ([`Self::porf_cycle_possible`] for the closed walks that take a program-order
    /// edge out of `a`): some `rf` edge of `a`'s component starts such a closed walk with an
    /// unfenced, an incoherent and an unsynchronized stretch. `true` past `steps` (the
    /// conservative answer).
    pub(crate) fn cycle_possible_through(&self, a: usize, steps: &mut u64) -> bool {
        self.cycle_possible_leaving(a, Exit::Po, steps)
    }

    /// Whether a `po ∪ rf` cycle the model allows may pass through node `a`, leaving it by any
    /// edge (program order, an `rf` of its write, a barrier partner): [`Self::cycle_possible_through`]
    /// without the program-order exit. `true` past `steps`.
    pub(crate) fn cycle_possible_at(&self, a: usize, steps: &mut u64) -> bool {
        self.cycle_possible_leaving(a, Exit::Any, steps)
    }

    /// Whether a `po ∪ rf` cycle the model allows may enter node `a` by an `rf` edge from a node
    /// (other than `a`) that `from` accepts, and go on from `a` to a later instruction of its
    /// thread: [`Self::cycle_possible_through`] for the closed walks whose edge into `a` is such
    /// an `rf`. `true` past `steps`.
    pub(crate) fn cycle_possible_into(&self, a: usize, from: &dyn Fn(usize) -> bool, steps: &mut u64) -> bool {
        let Some(left) = steps.checked_sub(1 + self.rf.len() as u64 / 16) else { return true };
        *steps = left;
        (0..self.rf.len())
            .filter(|&e| {
                let f = &self.rf[e];
                f.r() == a && f.w() != a && self.scc[f.w()] == self.scc[a] && from(f.w())
            })
            .any(|e| self.unexcused_cycle_through(e, Some((a, Exit::Po)), steps) != Some(false))
    }

    fn cycle_possible_leaving(&self, a: usize, exit: Exit, steps: &mut u64) -> bool {
        // The scan for the edges of `a`'s component counts too.
        let Some(left) = steps.checked_sub(1 + self.rf.len() as u64 / 16) else { return true };
        *steps = left;
        (0..self.rf.len())
            .filter(|&e| self.scc[self.rf[e].w()] == self.scc[a] && self.scc[self.rf[e].r()] == self.scc[a])
            .any(|e| self.unexcused_cycle_through(e, Some((a, exit)), steps) != Some(false))
    }

    /// Whether node `a` can be reached again from the instructions that may run after it in its
    /// thread, along `needed_by` (per node, the nodes of its thread whose events may need its
    /// events), possible `rf` and barrier partners: whether keeping every later event of `a`'s
    /// thread with `a` may close a cycle of needs ([`crate::program::ordering_rmws`]). Linear in
    /// the graph's size; `None` past `steps`, or where `needed_by` has no answer for a node.
    pub(crate) fn needed_again_after<'n>(
        &self,
        a: usize,
        needed_by: &dyn Fn(usize) -> Option<&'n Vec<usize>>,
        steps: &mut u64,
    ) -> Option<bool> {
        *steps = steps.checked_sub(1)?;
        let mut seen = vec![false; self.po.len()];
        let mut stack: Vec<usize> = self.po[a].clone();
        // The instructions that may run after `a`: program order from its successors.
        let mut later = Vec::new();
        while let Some(x) = stack.pop() {
            if !std::mem::replace(&mut seen[x], true) {
                *steps = steps.checked_sub(1)?;
                later.push(x);
                stack.extend(&self.po[x]);
            }
        }
        // A cycle leaves the thread (every need within it points forward in its events): only a
        // walk that took an `rf` edge or a partner counts when it comes back to `a` (in a loop,
        // program order alone comes back to `a`'s next instance, not to `a`).
        let mut seen = vec![[false; 2]; self.po.len()];
        let mut stack: Vec<(usize, bool)> = later.into_iter().map(|x| (x, false)).collect();
        while let Some((x, crossed)) = stack.pop() {
            if x == a && crossed {
                return Some(true);
            }
            if std::mem::replace(&mut seen[x][usize::from(crossed)], true) {
                continue;
            }
            let needers = needed_by(x)?;
            *steps = steps.checked_sub(1 + (needers.len() + self.partners[x].len() + self.rf_out(x).len()) as u64)?;
            stack.extend(needers.iter().map(|&y| (y, crossed)));
            stack.extend(self.partners[x].iter().copied().chain(self.rf_out(x).map(|e| self.rf[e].r())).map(|y| (y, true)));
        }
        Some(false)
    }

    /// Whether some read may be in the dependency prefix of a write it may read from, through a
    /// barrier arrival: some possible `rf` edge `W → R` with a path from `R` back to `W` that goes
    /// through a barrier arrival (the chains of [`crate::explore`]'s dependency prefix —
    /// dependencies and what decides whether a thread goes on, which program order contains,
    /// `rf`, and barrier partners — are paths of this graph).
    /// Past [`SEARCH_BUDGET`] steps, `true` (the caveat stays).
    pub(crate) fn barrier_on_cycle(&self) -> bool {
        let mut steps = SEARCH_BUDGET;
        self.rf.iter().any(|f| {
            if self.scc[f.w()] != self.scc[f.r()] {
                return false;
            }
            // (node, whether the path passed a barrier arrival)
            let start = (f.r(), self.barrier[f.r()]);
            let mut seen = std::collections::HashSet::from([start]);
            let mut stack = vec![start];
            while let Some((a, through)) = stack.pop() {
                if a == f.w() && through {
                    return true;
                }
                let Some(left) = steps.checked_sub(1 + self.po[a].len() as u64 + self.rf_out(a).len() as u64) else { return true };
                steps = left;
                let next = self.po[a].iter().chain(&self.partners[a]).copied().chain(self.rf_out(a).map(|e| self.rf[e].r()));
                for b in next {
                    let s = (b, through || self.barrier[b]);
                    if self.scc[b] == self.scc[f.r()] && seen.insert(s) {
                        stack.push(s);
                    }
                }
            }
            false
        })
    }
}

/// The strongly connected component of each node (Tarjan's algorithm, iterative).
fn components(succ: &[Vec<usize>]) -> Vec<usize> {
    const UNSEEN: usize = usize::MAX;
    let n = succ.len();
    let (mut index, mut low, mut comp) = (vec![UNSEEN; n], vec![0; n], vec![UNSEEN; n]);
    let (mut on_stack, mut stack) = (vec![false; n], Vec::new());
    let (mut next, mut ncomp) = (0, 0);
    for root in 0..n {
        if index[root] != UNSEEN {
            continue;
        }
        // (node, next successor to look at)
        let mut call = vec![(root, 0)];
        index[root] = next;
        low[root] = next;
        next += 1;
        stack.push(root);
        on_stack[root] = true;
        while let Some(&mut (v, ref mut i)) = call.last_mut() {
            if let Some(&w) = succ[v].get(*i) {
                *i += 1;
                if index[w] == UNSEEN {
                    index[w] = next;
                    low[w] = next;
                    next += 1;
                    stack.push(w);
                    on_stack[w] = true;
                    call.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            call.pop();
            if let Some(&(parent, _)) = call.last() {
                low[parent] = low[parent].min(low[v]);
            }
            if low[v] == index[v] {
                while let Some(w) = stack.pop() {
                    on_stack[w] = false;
                    comp[w] = ncomp;
                    if w == v {
                        break;
                    }
                }
                ncomp += 1;
            }
        }
    }
    comp
}

#[cfg(test)]
mod tests {
    use super::{StaticGraph, components};
    use crate::program::CompiledProgram;

    fn graph(text: &str) -> StaticGraph {
        StaticGraph::new(&CompiledProgram::compile(&tcfuzz_litmus::parse(text).expect("parses")).expect("compiles"))
    }

    /// The two copies' `complete_tx` arrives on one mbarrier may come in either order (a bulk
    /// copy completes asynchronously, PTX ISA §9.7.9.25.4.1): the first one's reading the
    /// second's is a cycle of program order and `rf` on one location that SC per location
    /// does not forbid. Their labels look like generic relaxed atomics; it was judged one that
    /// it forbids, and the explorer, taking TruSt's revisits on that word, found 1 of the 2
    /// executions.
    #[test]
    fn bulk_copies_completing_on_one_mbarrier_may_form_a_cycle() {
        let g = graph(include_str!("../../../examples/mbarrier/two-bulk-copies-one-mbarrier.litmus"));
        assert!(g.porf_cycle_possible());
    }

    /// A read may see a later write of its own thread through another proxy of the same address
    /// (not morally strong, §8.7): the fuzzer's find, minimized (explorer 2 states, oracle 3).
    #[test]
    fn a_read_may_see_a_later_write_of_its_thread_through_another_proxy() {
        let p = "PTX proxy-lb\n{ x = 0; x_sur @ surface aliases x; }\n P0@cta 0,gpu 0 ;\n atom.relaxed.cta.max m0, x, 0 ;\n sust.weak x_sur, 1 ;\nexists (true)\n";
        assert!(graph(p).porf_cycle_possible());
        let same_proxy = "PTX same\n{ x = 0; }\n P0@cta 0,gpu 0 ;\n atom.relaxed.cta.max m0, x, 0 ;\n st.weak x, 1 ;\nexists (true)\n";
        assert!(!graph(same_proxy).porf_cycle_possible());
    }

    /// Atomics of one location reading each other's writes are a cycle SC per location forbids
    /// (§8.10.5); a weak load before a store of another location is load buffering.
    #[test]
    fn cycles_on_one_location_of_strong_atomics_are_ruled_out() {
        let binc = "PTX binc\n{ x = 0; y = 0; }\n P0@cta 0,gpu 0 | P1@cta 0,gpu 0 ;\n atom.relaxed.gpu.add r0, x, 1 | atom.relaxed.gpu.add r0, x, 1 ;\n atom.relaxed.gpu.add r1, y, 1 | atom.relaxed.gpu.add r1, y, 1 ;\nexists (true)\n";
        assert!(!graph(binc).porf_cycle_possible());
        let lb =
            "PTX lb\n{ x = 0; y = 0; }\n P0@cta 0,gpu 0 | P1@cta 0,gpu 0 ;\n ld r0, x | ld r0, y ;\n st y, 1 | st x, 1 ;\nexists (true)\n";
        assert!(graph(lb).porf_cycle_possible());
    }

    /// A ring of release stores read by acquire loads (GenMC's `fib`) is a cycle of base
    /// causality order, which Causality forbids (§8.9.4, §8.9.5, §8.10.6); one relaxed store on
    /// it, or scopes that do not include the other thread (not morally strong, §8.7), and it is
    /// not.
    #[test]
    fn cycles_of_release_acquire_synchronization_are_ruled_out() {
        let ring = |p0: &str, p1: &str, scope: &str| {
            format!(
                "PTX ring\n{{ x = 0; y = 0; }}\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n ld.acquire.{scope} r0, x | ld.acquire.{scope} r0, y ;\n {p0} | {p1} ;\nexists (true)\n"
            )
        };
        assert!(!graph(&ring("st.release.gpu y, 1", "st.release.gpu x, 1", "gpu")).porf_cycle_possible());
        assert!(graph(&ring("st.relaxed.gpu y, 1", "st.release.gpu x, 1", "gpu")).porf_cycle_possible());
        assert!(graph(&ring("st.release.cta y, 1", "st.release.cta x, 1", "cta")).porf_cycle_possible());
        let fib = "PTX fib\n{ x = 1; y = 1; }\n P0@cta 0,gpu 0 | P1@cta 0,gpu 0 ;\n ld.acquire.gpu r0, x | ld.acquire.gpu r0, x ;\n ld.acquire.gpu r1, y | ld.acquire.gpu r1, y ;\n add r2, r0, r1 | add r2, r0, r1 ;\n st.release.gpu x, r2 | st.release.gpu y, r2 ;\nexists (true)\n";
        assert!(!graph(fib).porf_cycle_possible());
    }

    #[test]
    fn components_of_a_small_graph() {
        // 0 → 1 → 2 → 0, 2 → 3, 3 → 4 → 3, 5 alone.
        let succ = vec![vec![1], vec![2], vec![0, 3], vec![4], vec![3], vec![]];
        let c = components(&succ);
        assert!(c[0] == c[1] && c[1] == c[2]);
        assert!(c[3] == c[4] && c[3] != c[0]);
        assert!(c[5] != c[0] && c[5] != c[3]);
    }
}
