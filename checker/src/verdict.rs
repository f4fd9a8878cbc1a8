//! Verdicts: what a program may end with under a model, and the numbers of the exploration.
//!
//! Final states are counted per execution graph (GenMC's convention: executions are distinct
//! `(po, rf, co)` graphs, so two executions that differ only in coherence order count twice). The
//! condition is judged herd7-style over the set of final states: `positive` / `negative` count the
//! *states* (not executions) that satisfy / falsify the proposition, `Observation` is
//! Never / Sometimes / Always, and `validated` is herd7's `Ok` (exists: some state satisfies it;
//! `~exists`: none does; forall: all do).

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::fmt;

use tcfuzz_litmus::{Quantifier, Span};

use crate::event::EventId;
use crate::graph::ExecutionGraph;
use crate::model::{MemoryModel, ModelKind};
use crate::program::CompiledProgram;

/// Which procedure produced a verdict.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    /// The DPOR explorer ([`crate::check`]).
    Explorer,
    /// The exhaustive oracle ([`crate::check_oracle`]).
    Oracle,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Observation {
    Never,
    Sometimes,
    Always,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConditionResult {
    pub quantifier: Quantifier,
    pub observation: Observation,
    /// herd7's `Ok` / `No`.
    pub validated: bool,
    /// Final states satisfying / falsifying the proposition.
    pub positive: u64,
    pub negative: u64,
}

/// One final state and how many complete executions end in it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StateCount {
    /// Every register of every thread (`P0:r0`), then every location, with its final value.
    pub values: Vec<(String, i64)>,
    pub executions: u64,
}

/// The first execution found for one observed state (the final state restricted to what the
/// condition mentions).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ObservedWitness {
    pub state: Vec<(String, i64)>,
    pub witness: Witness,
}

/// One execution, as text (an event per line with its `rf`, then each location's `co`) and as
/// Graphviz DOT.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Witness {
    pub text: String,
    pub dot: String,
}

/// One side of a data race.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct RaceEvent {
    pub thread: String,
    /// Position of the event in the thread's program order.
    pub index: u32,
    pub span: Span,
    /// `read` or `write`.
    pub access: &'static str,
    pub location: String,
}

/// Two conflicting accesses that are neither morally strong nor ordered by causality
/// (PTX ISA §8.10 "Data races"): the program's behaviour is undefined.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Race {
    pub first: RaceEvent,
    pub second: RaceEvent,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Consistent executions in which every thread finished.
    pub complete: u64,
    /// Consistent executions in which some thread hit the loop bound or waits forever at a barrier.
    pub blocked: u64,
    /// Of the blocked executions, those in which some thread waits forever at a barrier: hangs.
    pub hangs: u64,
    /// Deepest recursion of the explorer (graphs held at once); 0 for the oracle.
    pub max_depth: usize,
    /// Complete or blocked graphs produced more than once (`None` unless duplicate detection was
    /// on; must be 0).
    pub duplicates: Option<u64>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verdict {
    pub program: String,
    pub model: ModelKind,
    pub method: Method,
    /// Final states of complete executions, sorted.
    pub states: Vec<StateCount>,
    /// Names of the state entries the condition mentions (what herd7 prints).
    pub observed: Vec<String>,
    pub condition: ConditionResult,
    pub races: Vec<Race>,
    /// One execution per observed state ([`crate::Options::witnesses`]).
    pub witnesses: Vec<ObservedWitness>,
    /// Threads that hit the loop bound in some execution.
    pub blocked_threads: Vec<String>,
    /// Threads that wait forever at a barrier in some execution (the program may hang).
    pub hung_threads: Vec<String>,
    pub stats: Stats,
    /// Known ways in which this verdict may be incomplete (empty when it is exact).
    pub caveats: Vec<String>,
}

impl Verdict {
    /// The final states restricted to the entries the condition mentions, with execution counts.
    pub fn observed_states(&self) -> BTreeMap<Vec<(String, i64)>, u64> {
        let mut out = BTreeMap::new();
        for s in &self.states {
            let key: Vec<(String, i64)> = s.values.iter().filter(|(n, _)| self.observed.contains(n)).cloned().collect();
            *out.entry(key).or_insert(0) += s.executions;
        }
        out
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "Test {} ({} model, {:?})", self.program, self.model.name(), self.method)?;
        let states = self.observed_states();
        writeln!(f, "States {}", states.len())?;
        for (vals, n) in &states {
            let text: Vec<String> = vals.iter().map(|(k, v)| format!("{k}={v};")).collect();
            writeln!(f, "{} ({n} executions)", text.join(" "))?;
        }
        let c = &self.condition;
        writeln!(f, "{}", if c.validated { "Ok" } else { "No" })?;
        let obs = match c.observation {
            Observation::Never => "Never",
            Observation::Sometimes => "Sometimes",
            Observation::Always => "Always",
        };
        writeln!(f, "Observation {} {obs} {} {}", self.program, c.positive, c.negative)?;
        for r in &self.races {
            let side = |e: &RaceEvent| format!("{} {}#{} on {} ({})", e.access, e.thread, e.index, e.location, e.span);
            writeln!(f, "Race: {} vs {}", side(&r.first), side(&r.second))?;
        }
        if !self.blocked_threads.is_empty() {
            writeln!(f, "Loop bound reached by: {}", self.blocked_threads.join(", "))?;
        }
        if !self.hung_threads.is_empty() {
            writeln!(f, "Hang: waiting forever at a barrier or mbarrier: {}", self.hung_threads.join(", "))?;
        }
        let d = self.stats.duplicates.map_or(String::new(), |d| format!(", duplicates {d}"));
        writeln!(f, "Executions: complete {}, blocked {}{d}", self.stats.complete, self.stats.blocked)?;
        for c in &self.caveats {
            writeln!(f, "Caveat: {c}")?;
        }
        Ok(())
    }
}

/// Why a thread of a blocked execution stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stop {
    /// A blocking wait on the object at this location read its coherence-last write: it waits
    /// forever.
    AwaitHang(u32),
    /// A blocking wait read an older state: not a real execution (the wait would retry).
    StaleAwait,
    /// A spin loop that reads only coherence-last writes (the last read's location named).
    SpinHang(u32),
    /// The loop bound, with a newer value still to be seen or a write in the loop.
    LoopBound,
}

/// Accumulates executions into a [`Verdict`].
pub(crate) struct Collector<'a> {
    prog: &'a CompiledProgram,
    states: BTreeMap<Vec<i64>, u64>,
    /// Per observed state (condition slots only), its first execution; `None` when witnesses are off.
    witnesses: Option<BTreeMap<Vec<i64>, Witness>>,
    races: BTreeSet<Race>,
    blocked_threads: BTreeSet<usize>,
    /// Hung threads, with the synchronization object a blocking wait of theirs waits on.
    hung_threads: BTreeSet<(usize, Option<u32>)>,
    stats: Stats,
    seen: Option<HashSet<String>>,
    max_races: usize,
    /// The loop bound the threads run under (to tell a failed blocking wait from the loop bound).
    loop_bound: u32,
}

impl<'a> Collector<'a> {
    pub fn new(prog: &'a CompiledProgram, detect_duplicates: bool, max_races: usize, witnesses: bool) -> Self {
        Collector {
            prog,
            states: BTreeMap::new(),
            witnesses: witnesses.then(BTreeMap::new),
            races: BTreeSet::new(),
            blocked_threads: BTreeSet::new(),
            hung_threads: BTreeSet::new(),
            stats: Stats { duplicates: detect_duplicates.then_some(0), ..Stats::default() },
            seen: detect_duplicates.then(HashSet::new),
            max_races,
            loop_bound: u32::MAX,
        }
    }

    /// The loop bound of the run (default: unbounded), needed to classify failed blocking waits.
    pub fn set_loop_bound(&mut self, loop_bound: u32) {
        self.loop_bound = loop_bound;
    }

    /// Why blocked thread `t` stopped ([`Stop`]).
    fn stop(&self, g: &ExecutionGraph, t: usize) -> Stop {
        let performed: Vec<i64> = g.threads[t].iter().map(|e| e.value).collect();
        let Ok(r) = crate::interp::replay(&self.prog.threads[t], &performed, self.loop_bound) else { return Stop::LoopBound };
        let latest = |e: &crate::event::Event| e.rf == g.writes_to(e.label.loc).last();
        if r.await_failed {
            return match g.threads[t].last() {
                Some(last) if latest(last) => Stop::AwaitHang(last.label.loc),
                _ => Stop::StaleAwait,
            };
        }
        // A spin loop whose last iteration wrote nothing and read only coherence-last writes
        // would read the same values forever: a hang. (Fairness lets every later iteration see
        // any newer write; there is none.)
        let iteration = g.threads[t].get(r.spin_from..).unwrap_or_default();
        let reads: Vec<_> = iteration.iter().filter(|e| e.label.is_read()).collect();
        let writes = iteration.iter().any(|e| e.label.is_write());
        match reads.last() {
            Some(last) if !writes && reads.iter().all(|e| latest(e)) => Stop::SpinHang(last.label.loc),
            _ => Stop::LoopBound,
        }
    }

    /// Records one consistent execution; `regs[t]` are thread `t`'s registers at its end, and
    /// `blocked` the threads that hit the loop bound or wait forever at a barrier.
    pub fn record(&mut self, g: &ExecutionGraph, regs: &[Vec<i64>], blocked: &[usize], model: &dyn MemoryModel) {
        // A blocking wait that read a stale state: not an execution (crate::sync, "Hangs").
        let stops: Vec<(usize, Stop)> = blocked.iter().map(|&t| (t, self.stop(g, t))).collect();
        if stops.iter().any(|(_, s)| *s == Stop::StaleAwait) {
            return;
        }
        // A spinning thread hangs only if no other thread may still write: every other stopped
        // thread is stuck for good too.
        let all_stuck = stops.iter().all(|(t, s)| g.waiting_at_barrier(*t) || matches!(s, Stop::AwaitHang(_) | Stop::SpinHang(_)));
        if let Some(seen) = &mut self.seen {
            if !seen.insert(g.canonical()) {
                *self.stats.duplicates.as_mut().expect("[tcfuzz internal bug] duplicates counter") += 1;
            }
        }
        for (a, b) in model.races(g) {
            let info = |e: EventId| {
                let ev = g.event(e);
                RaceEvent {
                    thread: self.prog.threads[e.thread as usize].name.clone(),
                    index: e.index,
                    span: ev.span,
                    access: if ev.label.is_write() { "write" } else { "read" },
                    location: self.prog.locations[ev.label.loc as usize].name.clone(),
                }
            };
            if self.races.len() < self.max_races {
                self.races.insert(Race { first: info(a), second: info(b) });
            }
        }
        if !blocked.is_empty() {
            self.stats.blocked += 1;
            let mut hang = false;
            for &(t, stop) in &stops {
                match stop {
                    _ if g.waiting_at_barrier(t) => {
                        hang = true;
                        self.hung_threads.insert((t, None));
                    }
                    Stop::AwaitHang(loc) => {
                        hang = true;
                        self.hung_threads.insert((t, Some(loc)));
                    }
                    Stop::SpinHang(loc) if all_stuck => {
                        hang = true;
                        self.hung_threads.insert((t, Some(loc)));
                    }
                    _ => {
                        self.blocked_threads.insert(t);
                    }
                }
            }
            self.stats.hangs += u64::from(hang);
            return;
        }
        self.stats.complete += 1;
        let mut state: Vec<i64> = regs.iter().flatten().copied().collect();
        state.extend(g.final_memory());
        let prog = self.prog;
        if let Some(w) = &mut self.witnesses {
            let observed: Vec<i64> = prog.observed.iter().map(|&s| state[s]).collect();
            w.entry(observed).or_insert_with(|| Witness { text: crate::witness::text(prog, g), dot: crate::witness::dot(prog, g) });
        }
        *self.states.entry(state).or_insert(0) += 1;
    }

    pub fn set_max_depth(&mut self, d: usize) {
        self.stats.max_depth = d;
    }

    /// Executions recorded so far (complete and blocked).
    pub fn explored(&self) -> u64 {
        self.stats.complete + self.stats.blocked
    }

    pub fn finish(self, model: ModelKind, method: Method, caveats: Vec<String>) -> Verdict {
        let prog = self.prog;
        let (mut pos, mut neg) = (0, 0);
        for s in self.states.keys() {
            if prog.condition.eval(s) {
                pos += 1;
            } else {
                neg += 1;
            }
        }
        let observation = match (pos, neg) {
            (0, _) => Observation::Never,
            (_, 0) => Observation::Always,
            _ => Observation::Sometimes,
        };
        let validated = match prog.quantifier {
            Quantifier::Exists => pos > 0,
            Quantifier::NotExists => pos == 0,
            Quantifier::Forall => neg == 0,
        };
        let states = self
            .states
            .iter()
            .map(|(s, &n)| StateCount { values: s.iter().enumerate().map(|(i, &v)| (prog.slot_name(i), v)).collect(), executions: n })
            .collect();
        Verdict {
            program: prog.name.clone(),
            model,
            method,
            states,
            observed: prog.observed.iter().map(|&s| prog.slot_name(s)).collect(),
            condition: ConditionResult { quantifier: prog.quantifier, observation, validated, positive: pos, negative: neg },
            races: self.races.into_iter().collect(),
            witnesses: self
                .witnesses
                .unwrap_or_default()
                .into_iter()
                .map(|(s, witness)| ObservedWitness {
                    state: prog.observed.iter().zip(&s).map(|(&slot, &v)| (prog.slot_name(slot), v)).collect(),
                    witness,
                })
                .collect(),
            blocked_threads: self.blocked_threads.iter().map(|&t| prog.threads[t].name.clone()).collect(),
            hung_threads: self
                .hung_threads
                .iter()
                .map(|&(t, obj)| match obj {
                    Some(l) => format!("{} (on {})", prog.threads[t].name, prog.locations[l as usize].name),
                    None => prog.threads[t].name.clone(),
                })
                .collect(),
            stats: self.stats,
            caveats,
        }
    }
}
