//! The exhaustive oracle, herd7-style: guess, then check. It shares no exploration code with the
//! explorer (only the interpreter, the graph type and the models), and exists to test it.
//!
//! 1. Values: compute, by fixpoint, the set of values each location may hold (initial values, then
//!    every value some thread writes when its reads return values of those sets). A value of a real
//!    execution is derived along an acyclic chain of `rf ; dep` steps (acyclic under SC because
//!    `po ∪ rf` is, under PTX by No-Thin-Air), at most as long as the execution has writes; so
//!    after as many rounds as a static bound on the writes of an execution (each write instruction
//!    runs at most `loop_bound + 1` times) the sets contain every value that matters, even where
//!    the fixpoint itself diverges (`atom.add` in every thread).
//! 2. Threads: enumerate every trace of every thread whose reads return values from those sets
//!    (the interpreter decides the events of each trace, and where the loop bound blocks it).
//! 3. Candidates: for every combination of one trace per thread, every `rf` that gives each read a
//!    same-location write of exactly the value the trace guessed, and every `co` (all permutations
//!    of each location's writes after the initial one).
//! 4. Keep the candidates the model finds consistent.
//!
//! Each consistent `(po, rf, co)` graph arises from exactly one candidate, so the counts are
//! GenMC's. The work grows factorially; [`crate::Options::oracle_limit`] bounds it.

use std::collections::BTreeSet;

use tcfuzz_litmus::Span;

use crate::error::CheckError;
use crate::exec::event::EventId;
use crate::exec::event::NewEvent;
use crate::exec::graph::ExecutionGraph;
use crate::exec::interp::{Step, replay};
use crate::model::MemoryModel;
use crate::program::label::{EventKind, LocId};
use crate::program::{CompiledProgram, Op, ThreadCode};
use crate::verdict::Collector;

/// Most values one location may take before the oracle gives up.
const MAX_VALUES_PER_LOCATION: usize = 128;

#[derive(Clone, Debug)]
struct Trace {
    events: Vec<(NewEvent, i64)>,
    regs: Vec<i64>,
    /// Hit the loop bound.
    blocked: bool,
    /// Waits forever at the barrier that is its last event.
    stuck: bool,
    /// The `(location, value)` pairs it writes (with every location's initial value) and those it
    /// reads, as bits of [`pair_bits`]; `None` where the program has more pairs than they hold.
    pairs: Option<PairMasks>,
}

/// Bits of `(location, value)` pairs ([`Trace::pairs`]): enough for most programs' value sets.
type Bits = [u64; 4];

#[derive(Clone, Debug)]
struct PairMasks {
    writes: Bits,
    reads: Bits,
}

/// Fills in [`Trace::pairs`]: each `(location, value)` pair of `values` numbered location by
/// location, in value order. Leaves them `None` where there are more pairs than [`Bits`] holds,
/// or a trace's value is not among `values` (every one is: they are made from them).
fn pair_bits(values: &[BTreeSet<i64>], init: impl Iterator<Item = i64>, traces: &mut [Vec<Trace>]) {
    let bases: Vec<usize> = values.iter().scan(0, |n, v| Some(std::mem::replace(n, *n + v.len()))).collect();
    if values.iter().map(BTreeSet::len).sum::<usize>() > 64 * Bits::default().len() {
        return;
    }
    let bit = |loc: LocId, v: i64| values[loc as usize].iter().position(|&x| x == v).map(|k| bases[loc as usize] + k);
    let set = |bits: &mut Bits, b: usize| bits[b / 64] |= 1 << (b % 64);
    let mut initial = Bits::default();
    for (loc, v) in (0..).zip(init) {
        let Some(b) = bit(loc, v) else { return };
        set(&mut initial, b);
    }
    for trace in traces.iter_mut().flatten() {
        let mut masks = PairMasks { writes: initial, reads: Bits::default() };
        for (ev, v) in &trace.events {
            let (bits, value) = match ev.label.kind {
                EventKind::Write => (&mut masks.writes, ev.value),
                EventKind::Read => (&mut masks.reads, *v),
                EventKind::Fence | EventKind::Barrier => continue,
            };
            let Some(b) = bit(ev.label.loc, value) else { return };
            set(bits, b);
        }
        trace.pairs = Some(masks);
    }
}

pub(crate) struct Oracle<'a, 'c> {
    pub prog: &'a CompiledProgram,
    pub model: &'a dyn MemoryModel,
    pub loop_bound: u32,
    pub limit: u64,
    pub exclude_porf_cycles: bool,
    pub out: &'a mut Collector<'c>,
    /// The deadline and cancellation flag, polled once per trace and candidate.
    pub bound: &'a crate::explore::bound::Bound,
}

impl Oracle<'_, '_> {
    pub fn run(&mut self) -> Result<(), CheckError> {
        let (values, mut traces) = values_and_traces(self.prog, self.loop_bound, self.limit, &|| self.interrupted())?;
        debug_assert_eq!(values.len(), self.prog.locations.len());
        pair_bits(&values, self.prog.locations.iter().map(|l| l.init), &mut traces);
        // Count first: a program past the limit is refused before any candidate is checked (the
        // same candidates are counted as the enumeration below visits, so the answer is the one
        // it would reach, without the consistency checks it would waste on a refused program).
        let mut work = 0u64;
        each_combination(&traces, &mut |combo| {
            self.interrupted()?;
            let leaves = self.count(combo).unwrap_or(0);
            work = work.saturating_add(1).saturating_add(leaves);
            if work > self.limit {
                return Err(CheckError::TooLarge(format!("oracle: more than {} candidates (raise Options::oracle_limit)", self.limit)));
            }
            Ok(())
        })?;
        each_combination(&traces, &mut |combo| match self.candidates(combo) {
            Some(c) => {
                debug_assert_eq!(self.count(combo), Some(c.count()));
                self.enumerate(c)
            }
            None => {
                debug_assert_eq!(self.count(combo), None);
                Ok(())
            }
        })
    }

    /// The error that stops the oracle if [`Self::bound`] says so.
    fn interrupted(&self) -> Result<(), CheckError> {
        match self.bound.poll() {
            Some(cause) => Err(CheckError::Interrupted { cause, partial: self.out.stats().clone() }),
            None => Ok(()),
        }
    }

    /// How many candidates [`Self::candidates`] gives for `combo` (every `rf` choice times every
    /// `co`, saturating), without building them; `None` where it gives none.
    fn count(&self, combo: &[&Trace]) -> Option<u64> {
        if !self.admissible(combo) {
            return None;
        }
        let mut writes: Vec<Vec<i64>> = vec![Vec::new(); self.prog.locations.len()];
        for (ev, _) in combo.iter().flat_map(|tr| tr.events.iter()) {
            if ev.label.kind == EventKind::Write {
                writes[ev.label.loc as usize].push(ev.value);
            }
        }
        let mut n = writes.iter().fold(1u64, |n, w| (1..=w.len() as u64).fold(n, u64::saturating_mul));
        for (ev, v) in combo.iter().flat_map(|tr| tr.events.iter()) {
            if ev.label.kind == EventKind::Read {
                let loc = ev.label.loc as usize;
                let sources = usize::from(self.prog.locations[loc].init == *v) + writes[loc].iter().filter(|&&w| w == *v).count();
                if sources == 0 {
                    return None;
                }
                n = n.saturating_mul(sources as u64);
            }
        }
        Some(n)
    }

    /// Whether `combo` can have candidates at all: every value read is written by some trace of
    /// it (or is the initial one), and its barriers agree.
    fn admissible(&self, combo: &[&Trace]) -> bool {
        self.readable(combo) && barriers_agree(combo, &self.prog.barrier_members, &self.prog.barrier_dyn_members)
    }

    /// Whether every value `combo` reads is written by one of its traces or is the initial one.
    /// Asked of every combination, twice, and most are not: told from the traces' bits
    /// ([`Trace::pairs`]) where they have them.
    fn readable(&self, combo: &[&Trace]) -> bool {
        if !combo.iter().all(|t| t.pairs.is_some()) {
            return self.readable_by_values(combo);
        }
        let (mut writes, mut reads) = (Bits::default(), Bits::default());
        for m in combo.iter().filter_map(|t| t.pairs.as_ref()) {
            for k in 0..writes.len() {
                writes[k] |= m.writes[k];
                reads[k] |= m.reads[k];
            }
        }
        let readable = (0..writes.len()).all(|k| reads[k] & !writes[k] == 0);
        debug_assert_eq!(readable, self.readable_by_values(combo), "[tcfuzz internal bug] the pair bits disagree");
        readable
    }

    /// [`Self::readable`] from the values themselves.
    fn readable_by_values(&self, combo: &[&Trace]) -> bool {
        let events = || combo.iter().flat_map(|tr| tr.events.iter());
        let initial = self.prog.locations.iter().zip(0..).map(|(l, loc)| (loc, l.init));
        let mut written: Vec<(LocId, i64)> = initial.collect();
        written.extend(events().filter(|(ev, _)| ev.label.kind == EventKind::Write).map(|(ev, _)| (ev.label.loc, ev.value)));
        written.sort_unstable();
        events().all(|(ev, v)| ev.label.kind != EventKind::Read || written.binary_search(&(ev.label.loc, *v)).is_ok())
    }

    /// The candidate graphs of one combination of traces (one per thread), or `None` where no
    /// read can be given a write of its value or the barriers disagree.
    fn candidates(&self, combo: &[&Trace]) -> Option<Candidates> {
        if !self.admissible(combo) {
            return None;
        }
        let init: Vec<i64> = self.prog.locations.iter().map(|l| l.init).collect();
        let mut base = ExecutionGraph::new(init.clone(), combo.len());
        base.barrier_members = self.prog.barrier_members.clone();
        base.barrier_dyn_members = self.prog.barrier_dyn_members.clone();
        let mut writes: Vec<Vec<EventId>> = vec![Vec::new(); init.len()];
        let mut reads = Vec::new();
        for (t, tr) in combo.iter().enumerate() {
            for (ev, v) in &tr.events {
                let id = base.add_event(t, ev, None);
                let e = base.event_mut(id);
                e.stamp = 0;
                match ev.label.kind {
                    EventKind::Write => writes[ev.label.loc as usize].push(id),
                    EventKind::Read => {
                        e.value = *v;
                        reads.push(id);
                    }
                    EventKind::Fence | EventKind::Barrier => {}
                }
            }
        }
        // rf candidates: same location, same value.
        let mut rf_cands: Vec<Vec<EventId>> = Vec::new();
        for &r in &reads {
            let (loc, v) = (base.label(r).loc, base.event(r).value);
            let mut c: Vec<EventId> = Vec::new();
            if init[loc as usize] == v {
                c.push(EventId::init(loc));
            }
            c.extend(writes[loc as usize].iter().copied().filter(|&w| base.event(w).value == v));
            if c.is_empty() {
                return None;
            }
            rf_cands.push(c);
        }
        let regs: Vec<Vec<i64>> = combo.iter().map(|t| t.regs.clone()).collect();
        let blocked: Vec<usize> = combo.iter().enumerate().filter(|(_, t)| t.blocked || t.stuck).map(|(i, _)| i).collect();
        Some(Candidates { base, writes, reads, rf_cands, regs, blocked })
    }

    /// Every candidate of one combination: each `rf` choice, each `co`.
    fn enumerate(&mut self, c: Candidates) -> Result<(), CheckError> {
        let Candidates { base, writes, reads, rf_cands, regs, blocked } = c;
        let mut rf_choice = vec![0usize; reads.len()];
        // (One graph, refilled from `base` per `rf` choice: its vectors are reused.)
        let mut g = base.clone();
        loop {
            g.clone_from(&base);
            for (i, &r) in reads.iter().enumerate() {
                g.set_rf(r, rf_cands[i][rf_choice[i]]);
            }
            self.all_co(&mut g, &writes, 0, &regs, &blocked)?;
            let mut i = 0;
            loop {
                if i == reads.len() {
                    return Ok(());
                }
                rf_choice[i] += 1;
                if rf_choice[i] < rf_cands[i].len() {
                    break;
                }
                rf_choice[i] = 0;
                i += 1;
            }
        }
    }

    /// Every coherence order of locations `loc..`, by permutation.
    fn all_co(
        &mut self,
        g: &mut ExecutionGraph,
        writes: &[Vec<EventId>],
        loc: usize,
        regs: &[Vec<i64>],
        blocked: &[usize],
    ) -> Result<(), CheckError> {
        if loc == writes.len() {
            self.interrupted()?;
            if self.exclude_porf_cycles && !g.po(&g.node_index()).union(&g.rf(&g.node_index())).is_acyclic() {
                return Ok(());
            }
            if self.model.is_consistent(g) {
                let regs: Vec<&[i64]> = regs.iter().map(Vec::as_slice).collect();
                self.out.record(g, &regs, blocked, self.model);
            }
            return Ok(());
        }
        let mut perm = writes[loc].clone();
        permute(&mut perm, 0, &mut |p| {
            g.co[loc].clear();
            g.co[loc].extend_from_slice(p);
            self.all_co(g, writes, loc + 1, regs, blocked)
        })
    }
}

/// The candidate graphs of one combination of traces: a base graph, and the choices that make
/// each candidate of it.
struct Candidates {
    base: ExecutionGraph,
    /// Per location, its writes (each `co` is a permutation of them).
    writes: Vec<Vec<EventId>>,
    reads: Vec<EventId>,
    /// Per read, the writes of its value it may read.
    rf_cands: Vec<Vec<EventId>>,
    regs: Vec<Vec<i64>>,
    blocked: Vec<usize>,
}

impl Candidates {
    /// How many candidates: every `rf` choice times every `co` (saturating); what
    /// [`Oracle::count`] must find without building them.
    fn count(&self) -> u64 {
        let rf = self.rf_cands.iter().fold(1u64, |n, c| n.saturating_mul(c.len() as u64));
        let co = self.writes.iter().fold(1u64, |n, w| (1..=w.len() as u64).fold(n, u64::saturating_mul));
        rf.saturating_mul(co)
    }
}

/// Calls `f` with every combination of one trace per thread (an odometer over `traces`).
fn each_combination(traces: &[Vec<Trace>], f: &mut dyn FnMut(&[&Trace]) -> Result<(), CheckError>) -> Result<(), CheckError> {
    let mut choice = vec![0usize; traces.len()];
    loop {
        let combo: Vec<&Trace> = choice.iter().enumerate().map(|(t, &c)| &traces[t][c]).collect();
        f(&combo)?;
        let mut t = 0;
        loop {
            if t == choice.len() {
                return Ok(());
            }
            choice[t] += 1;
            if choice[t] < traces[t].len() {
                break;
            }
            choice[t] = 0;
            t += 1;
        }
    }
}

fn permute(items: &mut Vec<EventId>, k: usize, f: &mut dyn FnMut(&[EventId]) -> Result<(), CheckError>) -> Result<(), CheckError> {
    if k == items.len() {
        return f(items);
    }
    for i in k..items.len() {
        items.swap(k, i);
        permute(items, k + 1, f)?;
        items.swap(k, i);
    }
    Ok(())
}

/// Barrier rules: a thread gets past its `k`-th arrival at barrier `id` only if every other member
/// of `id` arrives there `k` times; a thread stuck at its last arrival is stuck only if some member
/// does not arrive (otherwise it would go on: the combination is not maximal); and the barrier
/// phases complete in some order ([`phases_ordered`]).
fn barriers_agree(combo: &[&Trace], members: &[u64], dyn_members: &[u64]) -> bool {
    counts_agree(combo, members, dyn_members) && phases_ordered(combo)
}

/// Whether the phases of the barriers `combo` passes can complete in some order. A thread
/// arrives at its next barrier only after the phase of the one before completed (`bar.sync`
/// waits, PTX ISA §9.7.13.1), so phase `(id, k)` — the `k`-th arrival of each member at `id` —
/// completes after every phase a thread passed before arriving there. Counting arrivals alone
/// accepts a cycle: `bar 1; bar 0 | bar 0; bar 1; bar 1` with the second thread waiting at its
/// last arrival has every count right, but its first phase of barrier 1 needs the second
/// thread's arrival, made after barrier 0, which needs the first thread's, made after barrier 1
/// (`tcfuzz fuzz --seed 9191` program 41531: a second, impossible blocked execution).
fn phases_ordered(combo: &[&Trace]) -> bool {
    // The phases, and per thread the order in which it meets them.
    let mut phases: Vec<(u32, usize)> = Vec::new();
    let mut edges: Vec<(usize, usize)> = Vec::new();
    for tr in combo {
        let mut seen: Vec<u32> = Vec::new();
        let mut before: Option<usize> = None;
        for (ev, _) in &tr.events {
            if !ev.label.is_barrier() {
                continue;
            }
            let id = ev.label.loc;
            seen.push(id);
            let phase = (id, seen.iter().filter(|&&x| x == id).count());
            let node = phases.iter().position(|&p| p == phase).unwrap_or_else(|| {
                phases.push(phase);
                phases.len() - 1
            });
            if let Some(b) = before {
                edges.push((b, node));
            }
            before = Some(node);
        }
    }
    // Kahn's algorithm: every phase placed means no cycle.
    let mut preds = vec![0usize; phases.len()];
    for &(_, to) in &edges {
        preds[to] += 1;
    }
    let mut ready: Vec<usize> = (0..phases.len()).filter(|&n| preds[n] == 0).collect();
    let mut placed = 0;
    while let Some(n) = ready.pop() {
        placed += 1;
        for &(from, to) in &edges {
            if from == n {
                preds[to] -= 1;
                if preds[to] == 0 {
                    ready.push(to);
                }
            }
        }
    }
    placed == phases.len()
}

/// The counting half of [`barriers_agree`].
fn counts_agree(combo: &[&Trace], members: &[u64], dyn_members: &[u64]) -> bool {
    let arrivals = |t: usize, id: u32| combo[t].events.iter().filter(|(e, _)| e.label.is_barrier() && e.label.loc == id).count();
    // A thread whose barrier is chosen at run time is a member where it arrived, or where it
    // arrived nowhere (it stopped first: the others wait for it).
    let member = |u: usize, id: u32| {
        let has = |m: &[u64]| m.get(id as usize).is_some_and(|m| m & (1 << u) != 0);
        has(members)
            || has(dyn_members) && combo[u].events.iter().find(|(e, _)| e.label.is_barrier()).is_none_or(|(e, _)| e.label.loc == id)
    };
    for (t, tr) in combo.iter().enumerate() {
        let mut seen: Vec<(u32, usize)> = Vec::new();
        for (i, (ev, _)) in tr.events.iter().enumerate() {
            if !ev.label.is_barrier() {
                continue;
            }
            let id = ev.label.loc;
            let k = 1 + seen.iter().filter(|(x, _)| *x == id).count();
            seen.push((id, k));
            let complete = members[id as usize] & crate::program::ABSENT_MEMBER == 0
                && (0..combo.len()).all(|u| u == t || !member(u, id) || arrivals(u, id) >= k);
            let waits_here = tr.stuck && i + 1 == tr.events.len();
            if complete == waits_here {
                return false;
            }
        }
    }
    true
}

/// Per location, the values it may hold.
type Values = Vec<BTreeSet<i64>>;

/// Step 1 of the module docs: the values each location may hold (a superset of those some
/// execution of `prog` gives it, within `loop_bound`), and each thread's traces over them (step
/// 2), at most `limit` traces per round.
fn values_and_traces(
    prog: &CompiledProgram,
    loop_bound: u32,
    limit: u64,
    interrupted: &dyn Fn() -> Result<(), CheckError>,
) -> Result<(Values, Vec<Vec<Trace>>), CheckError> {
    let mut values: Vec<BTreeSet<i64>> = prog.locations.iter().map(|l| BTreeSet::from([l.init])).collect();
    let mut traces = Vec::new();
    let rounds: usize = prog
        .threads
        .iter()
        .map(|t| {
            let writers = t
                .code
                .iter()
                .map(|l| match &l.op {
                    Op::TcCommit { arrives, .. } => arrives.len(),
                    Op::Store { .. } | Op::Rmw { .. } | Op::SyncArrive { .. } | Op::TcCompute { .. } => 1,
                    Op::BulkCopy { .. } | Op::TmemAlloc { .. } => 2,
                    _ => 0,
                })
                .sum::<usize>();
            let loops = t.code.iter().enumerate().any(|(pc, l)| match l.op {
                Op::Branch { target, .. } | Op::Goto { target } => target <= pc,
                _ => false,
            });
            if loops { writers * (loop_bound as usize + 1) } else { writers }
        })
        .sum::<usize>()
        + 1;
    for _ in 0..rounds {
        traces = Vec::new();
        let mut budget = limit;
        for code in &prog.threads {
            traces.push(thread_traces(code, &values, loop_bound, &mut budget, interrupted)?);
        }
        let mut grown = values.clone();
        for t in traces.iter().flatten() {
            for (ev, _) in &t.events {
                if ev.label.kind == EventKind::Write {
                    grown[ev.label.loc as usize].insert(ev.value);
                }
            }
        }
        if grown.iter().any(|s| s.len() > MAX_VALUES_PER_LOCATION) {
            return Err(CheckError::TooLarge("oracle: a location takes too many values".into()));
        }
        if grown == values {
            break;
        }
        values = grown;
    }
    Ok((values, traces))
}

/// What the executions of a program within a loop bound may do, over-approximated
/// ([`possible_runs`]).
pub(crate) struct PossibleRuns {
    /// Per location, the values it may hold.
    pub values: Values,
    /// Per thread, the source positions of the instructions whose events some trace of the
    /// thread over those values has: an instruction that makes events and whose position is not
    /// here makes none in any execution.
    pub performed: Vec<BTreeSet<Span>>,
}

impl PossibleRuns {
    /// Whether instruction `i` of thread `t` (whose code is `code`) may make events: some trace
    /// has an event of it, or its source position does not tell it from another instruction of
    /// its thread (a program built in code, every position 0:0).
    pub fn may_perform(&self, code: &[crate::program::CodeLine], t: usize, i: usize) -> bool {
        let span = code[i].span;
        span == Span::default() || code.iter().filter(|l| l.span == span).nth(1).is_some() || self.performed[t].contains(&span)
    }
}

/// The values each location of `prog` may hold in an execution within `loop_bound` (a superset:
/// [`values_and_traces`]), and the instructions each thread may perform, found within `limit`
/// thread traces per round; `None` past that, or where a location may take more than
/// [`MAX_VALUES_PER_LOCATION`] values. Every trace of a thread in an execution is among those
/// over the values found, as the oracle's exactness needs.
pub(crate) fn possible_runs(prog: &CompiledProgram, loop_bound: u32, limit: u64) -> Option<PossibleRuns> {
    let (values, traces) = values_and_traces(prog, loop_bound, limit, &|| Ok(())).ok()?;
    let performed = traces.iter().map(|ts| ts.iter().flat_map(|t| t.events.iter().map(|(ev, _)| ev.span)).collect()).collect();
    Some(PossibleRuns { values, performed })
}

/// Every trace of one thread whose reads return values from `values`, in depth-first order (a
/// read's values ascending).
fn thread_traces(
    code: &ThreadCode,
    values: &[BTreeSet<i64>],
    loop_bound: u32,
    budget: &mut u64,
    interrupted: &dyn Fn() -> Result<(), CheckError>,
) -> Result<Vec<Trace>, CheckError> {
    let mut walk = TraceWalk { code, values, loop_bound, budget, interrupted, events: Vec::new(), performed: Vec::new(), out: Vec::new() };
    walk.extend()?;
    Ok(walk.out)
}

/// The depth-first walk of [`thread_traces`]: one prefix, extended and cut back, so a trace's
/// events are copied once, when it is complete.
struct TraceWalk<'a> {
    code: &'a ThreadCode,
    values: &'a [BTreeSet<i64>],
    loop_bound: u32,
    budget: &'a mut u64,
    interrupted: &'a dyn Fn() -> Result<(), CheckError>,
    events: Vec<(NewEvent, i64)>,
    /// The values of `events`, which [`replay`] takes.
    performed: Vec<i64>,
    out: Vec<Trace>,
}

impl TraceWalk<'_> {
    /// Every trace that extends the prefix in `events`.
    fn extend(&mut self) -> Result<(), CheckError> {
        (self.interrupted)()?;
        if *self.budget == 0 {
            return Err(CheckError::TooLarge("oracle: too many thread traces (raise Options::oracle_limit)".into()));
        }
        *self.budget -= 1;
        let r = replay(self.code, &self.performed, self.loop_bound)?;
        match r.step {
            Step::Done | Step::Blocked | Step::AssumeFailed => {
                let blocked = r.step != Step::Done;
                self.out.push(Trace { events: self.events.clone(), regs: r.regs, blocked, stuck: false, pairs: None });
            }
            Step::Event(ev) if ev.label.kind == EventKind::Read => {
                let values = self.values;
                for &v in values[ev.label.loc as usize].iter() {
                    self.push(ev.clone(), v);
                    let r = self.extend();
                    self.pop();
                    r?;
                }
            }
            Step::Event(ev) => {
                let (v, barrier) = (ev.value, ev.label.is_barrier());
                self.push(ev, v);
                if barrier {
                    // Also the trace that arrives and waits forever.
                    let regs = vec![0; self.code.reg_names.len()];
                    self.out.push(Trace { events: self.events.clone(), regs, blocked: false, stuck: true, pairs: None });
                }
                let r = self.extend();
                self.pop();
                r?;
            }
        }
        Ok(())
    }

    fn push(&mut self, ev: NewEvent, v: i64) {
        self.events.push((ev, v));
        self.performed.push(v);
    }

    fn pop(&mut self) {
        self.events.pop();
        self.performed.pop();
    }
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;

    use super::Oracle;
    use crate::error::CheckError;
    use crate::exec::graph::ExecutionGraph;
    use crate::explore::bound::Bound;
    use crate::model::sc::Sc;
    use crate::model::{MemoryModel, ModelKind};
    use crate::program::CompiledProgram;
    use crate::verdict::Collector;

    /// SC, counting the candidate graphs it is asked about.
    struct Counting(Cell<u64>);

    impl MemoryModel for Counting {
        fn kind(&self) -> ModelKind {
            ModelKind::Sc
        }
        fn is_consistent(&self, g: &ExecutionGraph) -> bool {
            self.0.set(self.0.get() + 1);
            Sc.is_consistent(g)
        }
        fn allows_porf_cycles(&self) -> bool {
            false
        }
    }

    /// The oracle's answer on `text` within `limit` candidates, and how many it checked.
    fn oracle(text: &str, limit: u64) -> (Result<(), CheckError>, u64) {
        let prog = CompiledProgram::compile(&tcfuzz_litmus::parse(text).unwrap()).unwrap();
        let model = Counting(Cell::new(0));
        let mut out = Collector::new(&prog, false, 16, false);
        let options = crate::Options::default();
        let r = Oracle {
            prog: &prog,
            model: &model,
            loop_bound: 1,
            limit,
            exclude_porf_cycles: false,
            out: &mut out,
            bound: &Bound::new(&options),
        }
        .run();
        (r, model.0.get())
    }

    /// Duplicate detection (`Collector`, `ExecutionGraph::canonical_key`): the oracle's
    /// executions, each distinct (they differ in `rf` or in `co` alone), count no duplicate; fed
    /// to the same collector again, each counts as one.
    #[test]
    fn executions_recorded_twice_count_once_as_duplicates() {
        let text = r"PTX reads-and-writes
{ x = 0; }
 P0@cta 0,gpu 0 | P1@cta 0,gpu 0 | P2@cta 0,gpu 0 ;
 st x, 1        | ld r0, x       | st x, 3        ;
 st x, 2        | ld r1, x       |                ;
exists (true)
";
        let prog = CompiledProgram::compile(&tcfuzz_litmus::parse(text).unwrap()).unwrap();
        let mut out = Collector::new(&prog, true, 16, false);
        let options = crate::Options::default();
        let run = |out: &mut Collector<'_>| {
            let bound = Bound::new(&options);
            let mut oracle =
                Oracle { prog: &prog, model: &Sc, loop_bound: 1, limit: 1_000, exclude_porf_cycles: false, out, bound: &bound };
            oracle.run().unwrap();
        };
        run(&mut out);
        let once = out.stats().complete;
        assert_eq!((once, out.stats().duplicates), (30, Some(0)));
        run(&mut out);
        assert_eq!((out.stats().complete, out.stats().duplicates), (2 * once, Some(once)));
    }

    /// Four threads writing `x` twice: one combination of traces and 8! = 40,320 coherence
    /// orders, so 40,321 candidates in all (the combination counts as one).
    const EIGHT_WRITES: &str = r"PTX W8
{ x = 0; }
 P0@cta 0,gpu 0 | P1@cta 0,gpu 0 | P2@cta 0,gpu 0 | P3@cta 0,gpu 0 ;
 st x, 1        | st x, 3        | st x, 5        | st x, 7        ;
 st x, 2        | st x, 4        | st x, 6        | st x, 8        ;
exists (x == 8)
";

    #[test]
    fn a_program_past_the_limit_is_refused_before_any_candidate_is_checked() {
        let (r, checked) = oracle(EIGHT_WRITES, 40_320);
        assert!(
            matches!(&r, Err(CheckError::TooLarge(m)) if m == "oracle: more than 40320 candidates (raise Options::oracle_limit)"),
            "{r:?}"
        );
        assert_eq!(checked, 0);
        // At the limit, every candidate is checked once.
        let (r, checked) = oracle(EIGHT_WRITES, 40_321);
        assert!(r.is_ok(), "{r:?}");
        assert_eq!(checked, 40_320);
    }
}
