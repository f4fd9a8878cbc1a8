//! Verdicts: what a program may end with under a model, and the numbers of the exploration.
//!
//! Final states are counted per execution graph (GenMC's convention: executions are distinct
//! `(po, rf, co)` graphs, so two executions that differ only in coherence order count twice). The
//! condition is judged herd7-style over the set of final states: `positive` / `negative` count the
//! *states* (not executions) that satisfy / falsify the proposition, `Observation` is
//! Never / Sometimes / Always, and `validated` is herd7's `Ok` (exists: some state satisfies it;
//! `~exists`: none does; forall: all do).

mod seen_races;
mod witness;

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::fmt;
use std::hash::{BuildHasherDefault, DefaultHasher, Hash, Hasher};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use tcfuzz_litmus::{Quantifier, Span};

use crate::exec::event::EventId;
use crate::exec::graph::ExecutionGraph;
use crate::model::{MemoryModel, ModelKind};
use crate::options::{Gap, Recorded, RevisitOutcome, TraceStep, Tracer};
use crate::program::CompiledProgram;
use crate::program::label::LocId;
use crate::stats::Stats;
use seen_races::SeenRaces;

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
    /// Every register of every thread (`P0:r0`), then every location, with its final value (the
    /// names shared between the states: a program may have hundreds of thousands).
    pub values: Vec<(Arc<str>, i64)>,
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
    pub kind: RaceKind,
    pub first: RaceEvent,
    pub second: RaceEvent,
    /// What would order the two, in the words of the spec's patterns: [`RaceKind::rule`], or
    /// more precise where the events say more (a TMEM race's operations; an asynchronous bulk
    /// copy and a later access of its thread, which only a wait on its mbarrier orders).
    pub rule: String,
}

/// What orders two accesses of a Tile IR program, where a data race's [`RaceKind::rule`] (PTX
/// causality) does not apply.
const TILEIR_DATA_RULE: &str = "happens-before order (Tile IR spec §7.10): token order within a tile block (the later access waits for a token of the earlier), a release/acquire pattern between tile blocks";

/// Which rule would have ordered the two accesses of a race (DESIGN §3.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum RaceKind {
    /// Generic memory: causality order (PTX ISA §8.10); under the `tileir` model, happens-before
    /// order (Tile IR spec §7.10), which [`Race::rule`] names.
    Data,
    /// Tensor Memory: the tcgen05 ordering rules (§9.7.16.6).
    Tmem,
    /// Shared memory seen through the generic and the async proxy: `fence.proxy.async`
    /// (§9.7.16.6.5).
    Proxy,
}

impl RaceKind {
    pub fn name(self) -> &'static str {
        match self {
            RaceKind::Data => "data",
            RaceKind::Tmem => "tmem",
            RaceKind::Proxy => "proxy",
        }
    }

    /// The kind [`RaceKind::name`] names.
    pub fn from_name(name: &str) -> Option<RaceKind> {
        [RaceKind::Data, RaceKind::Tmem, RaceKind::Proxy].into_iter().find(|k| k.name() == name)
    }

    /// The rule that would order the two accesses.
    pub fn rule(self) -> &'static str {
        match self {
            RaceKind::Data => "causality order (PTX ISA §8.10)",
            RaceKind::Tmem => {
                "tcgen05 ordering: pipelined pair, wait::ld/st, commit, or fence::before/after_thread_sync around a thread synchronization (PTX ISA §9.7.16.6)"
            }
            RaceKind::Proxy => {
                "a proxy fence between the accesses' proxies: fence.proxy.async for the async proxy (PTX ISA §9.7.16.6.5), fence.proxy.{texture,surface,constant} for the others (§8.9.5)"
            }
        }
    }
}

/// One execution that shows what is wrong with a program (a race, a hang or a misuse), for
/// `tcfuzz explain`: a per-thread timeline with the offending events marked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Explanation {
    /// `tmem race`, `proxy race`, `data race`, `hang`, or the misuse rule's name.
    pub kind: String,
    /// One line: the events and what they do.
    pub headline: String,
    /// What would have made the execution impossible: the missing ordering edge, or why a wait
    /// never succeeds.
    pub missing: String,
    /// `verdict::witness::timeline` of the execution.
    pub timeline: String,
}

/// A rule of the Tensor Memory allocator broken by some execution.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Misuse {
    pub rule: crate::program::tmem::MisuseRule,
    pub thread: String,
    /// The instruction (the default span for a CTA exiting with live columns).
    pub span: Span,
}

impl Misuse {
    pub fn describe(&self) -> &'static str {
        self.rule.describe()
    }
    pub fn section(&self) -> &'static str {
        self.rule.section()
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verdict {
    pub program: String,
    /// The locations of the final state whose values are packed object states, by name: shown
    /// in words by [`Verdict::show_value`].
    pub sync_objects: BTreeMap<String, SyncObject>,
    pub model: ModelKind,
    pub method: Method,
    /// Final states of complete executions, sorted: all of them, or with
    /// [`crate::Options::max_states`] the first ones.
    pub states: Vec<StateCount>,
    /// Distinct final states left out of `states` by [`crate::Options::max_states`] (0 when it
    /// is unset); the condition's counts include them.
    pub omitted_states: u64,
    /// Whether `omitted_states` and the condition's `positive` / `negative` are exact counts:
    /// false only with [`crate::Options::max_states`] and without
    /// [`crate::Options::count_omitted_states`], where `omitted_states` is 0 and the condition
    /// counts are lower bounds (the kept states, at least one for a side seen beyond them), and
    /// in a [`crate::merge_verdicts`] of parts that left states out, where all three are lower
    /// bounds; the observation and `validated` stay exact.
    pub states_counted: bool,
    /// Names of the state entries the condition mentions (what herd7 prints).
    pub observed: Vec<String>,
    pub condition: ConditionResult,
    pub races: Vec<Race>,
    /// One execution per observed state ([`crate::Options::witnesses`]).
    pub witnesses: Vec<ObservedWitness>,
    /// Threads that hit the loop bound in some execution, or wait (at a barrier, on an object, in
    /// a spin loop) for a thread that did: blocked by the bound, not hung.
    pub blocked_threads: Vec<String>,
    /// Threads that wait forever at a barrier in some execution (the program may hang).
    pub hung_threads: Vec<String>,
    /// Misuses of the Tensor Memory allocator found in some execution.
    pub misuse: Vec<Misuse>,
    /// The first execution of each kind of problem found (with [`crate::Options::witnesses`]).
    pub explanations: Vec<Explanation>,
    pub stats: Stats,
    /// Known ways in which this verdict may be incomplete (empty when it is exact).
    pub caveats: Vec<String>,
}

/// A location whose value is the packed state of a synchronization object.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SyncObject {
    /// An mbarrier (`program::sync::Mbar`).
    Mbarrier,
    /// A CTA's Tensor Memory allocator (`program::tmem`).
    TmemAllocator,
}

impl SyncObject {
    /// What sort of object location `loc` of `prog` holds, where its value is a packed state.
    pub(crate) fn of(prog: &CompiledProgram, loc: LocId) -> Option<SyncObject> {
        if prog.mbarriers.contains(&loc) {
            Some(SyncObject::Mbarrier)
        } else if prog.tmem_allocators.contains(&loc) {
            Some(SyncObject::TmemAllocator)
        } else {
            None
        }
    }

    /// The packed state `v` in words, in angle brackets: `<phase 1, pending 1 of 1>`.
    pub fn show(self, v: i64) -> String {
        match self {
            SyncObject::Mbarrier => format!("<{}>", crate::program::sync::Mbar::describe(v)),
            SyncObject::TmemAllocator => format!("<{}>", crate::program::tmem::describe(v)),
        }
    }
}

impl Verdict {
    /// The value `v` of the final-state entry `name` as a person reads it: the number, or for an
    /// mbarrier or a Tensor Memory allocator its state in words.
    pub fn show_value(&self, name: &str, v: i64) -> String {
        self.sync_objects.get(name).map_or_else(|| v.to_string(), |o| o.show(v))
    }

    /// The final states restricted to the entries the condition mentions, with execution counts.
    pub fn observed_states(&self) -> BTreeMap<Vec<(String, i64)>, u64> {
        let mut out = BTreeMap::new();
        for s in &self.states {
            let key: Vec<(String, i64)> =
                s.values.iter().filter(|(n, _)| self.observed.iter().any(|o| **o == **n)).map(|(n, v)| (n.to_string(), *v)).collect();
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
            let text: Vec<String> = vals.iter().map(|(k, v)| format!("{k}={};", self.show_value(k, *v))).collect();
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
        let a = if self.stats.assume_failed > 0 { format!(", assume failed {}", self.stats.assume_failed) } else { String::new() };
        writeln!(f, "Executions: complete {}, blocked {}{a}{d}", self.stats.complete, self.stats.blocked)?;
        for c in &self.caveats {
            writeln!(f, "Caveat: {c}")?;
        }
        Ok(())
    }
}

/// What would order the two events of a race, in the words of the spec's patterns (PTX ISA
/// §9.7.16.6.4 for TMEM, §9.7.16.6.5 for the async proxy, §8.8 otherwise). `a` is taken as
/// the earlier one when they share a thread.
fn repair_hint(g: &ExecutionGraph, model: ModelKind, kind: RaceKind, a: EventId, b: EventId) -> String {
    use crate::program::label::TcOp;
    let (first, second) = if a.thread == b.thread && b.index < a.index { (b, a) } else { (a, b) };
    let op = |e: EventId| g.label(e).tc.map(|t| t.op);
    if first.thread == second.thread {
        let evs = &g.threads[first.thread as usize];
        let copies = crate::program::sync::bulk_copy_spans(evs.len(), |i| evs[i].label);
        if crate::program::sync::bulk_copy_unordered(&copies, first.index as usize, second.index as usize) {
            return "a wait on the bulk copy's mbarrier (an acquire try_wait that observes the phase its complete-tx completes) between the copy and the later access: the copy completes asynchronously (PTX ISA cp.async.bulk)".to_string();
        }
    }
    match kind {
        RaceKind::Tmem => {
            let completion = match op(first) {
                Some(TcOp::Ld) => "tcgen05.wait::ld after the ld",
                Some(TcOp::St) => "tcgen05.wait::st after the st",
                _ => "a tcgen05.commit to an mbarrier, waited on (try_wait) and followed by tcgen05.fence::after_thread_sync",
            };
            if first.thread == second.thread {
                format!("{completion} before the second operation (pattern §9.7.16.6.4.2), or a pipelined pair (§9.7.16.6.2)")
            } else {
                format!(
                    "in the first thread {completion}, then tcgen05.fence::before_thread_sync and an execution-ordering operation (an mbarrier arrive, a barrier, a morally strong store) that the second thread observes before tcgen05.fence::after_thread_sync (§9.7.16.6.4.4; for a pipelined pair the fences and the synchronization suffice, §9.7.16.6.4.3)"
                )
            }
        }
        // One thread: the asynchronous tcgen05 operation needs the after-fence as well as the
        // proxy fence (a proxy fence does not order it after its thread's earlier accesses).
        // Texture, surface or constant against another proxy: §8.9.5 proxy-preserved base
        // causality passes from one proxy to another only through a proxy fence of that proxy
        // (`fence.proxy.{texture,surface,constant}`, §8.6); `fence.proxy.async` is not one.
        RaceKind::Proxy if !is_async_proxy(g, first) && !is_async_proxy(g, second) => {
            let fence = alias_proxy_fence(g.label(first).proxy).or(alias_proxy_fence(g.label(second).proxy)).unwrap_or("fence.proxy.alias");
            if first.thread == second.thread {
                format!("{fence} in this thread between the two accesses: they go through different proxies, and only a proxy fence carries order from one proxy to another (proxy-preserved base causality, PTX ISA §8.9.5, §8.6)")
            } else {
                format!(
                    "a release/acquire pattern or a barrier between the threads, and {fence}, in the CTA of the access through that proxy, between the two accesses in causality order: they go through different proxies, and only a proxy fence carries order from one proxy to another (proxy-preserved base causality, PTX ISA §8.9.5, §8.6)"
                )
            }
        }
        RaceKind::Proxy if first.thread == second.thread && g.label(second).tc.is_some() && g.label(second).is_async() => "fence.proxy.async, then tcgen05.fence::after_thread_sync, between the generic access and the asynchronous tcgen05 operation: only the after-fence orders that operation after the earlier accesses of its thread (§9.7.16.6.3, §9.7.16.6.5)".to_string(),
        // Both accesses in one thread: the fence goes between them there (a bulk copy's source
        // written by a generic store of the copying thread).
        RaceKind::Proxy if first.thread == second.thread => "fence.proxy.async in this thread between the generic-proxy access and the async-proxy one (§9.7.16.6.5)".to_string(),
        RaceKind::Proxy => "fence.proxy.async between the generic access and the async-proxy one — in the writing thread, before the release that the other thread acquires and follows with tcgen05.fence::after_thread_sync (§9.7.16.6.5)".to_string(),
        // A Tile IR race is judged by Tile IR's happens-before, which is not PTX causality
        // (no program order within a tile block: only tokens order its accesses).
        RaceKind::Data if model == ModelKind::TileIr && first.thread == second.thread && g.event(first).span == g.event(second).span => {
            "nothing orders two elements of one tile operation (Tile IR spec §7.10, §7.12.2): keep its elements apart, or make the accesses morally strong (relaxed or stronger, with a scope such as tile_block)".to_string()
        }
        RaceKind::Data if model == ModelKind::TileIr => TILEIR_DATA_RULE.to_string(),
        // Two virtual aliases of one location, both generic: causality between them needs a
        // `fence.proxy.alias` on the way (§8.9.5, the alias disjunct of proxy-preserved base
        // causality).
        RaceKind::Data if g.label(first).vloc != g.label(second).vloc => {
            let sync = if first.thread == second.thread { "in this thread between the two accesses" } else { "on the way from one access to the other, with a release/acquire pattern or a barrier between the threads" };
            format!("fence.proxy.alias {sync}: they name different virtual aliases of one location, and causality passes between aliases only through fence.proxy.alias (proxy-preserved base causality, PTX ISA §8.9.5)")
        }
        RaceKind::Data => kind.rule().to_string(),
    }
}

/// Whether `e` goes through the async proxy (a `tcgen05` shared-memory operand, a bulk copy).
fn is_async_proxy(g: &ExecutionGraph, e: EventId) -> bool {
    g.label(e).proxy == crate::program::label::Proxy::Async
}

/// The proxy fence of a texture, surface or constant access (PTX ISA §8.6); none for the generic
/// and async proxies.
fn alias_proxy_fence(p: crate::program::label::Proxy) -> Option<&'static str> {
    use crate::program::label::Proxy;
    match p {
        Proxy::Texture => Some("fence.proxy.texture"),
        Proxy::Surface => Some("fence.proxy.surface"),
        Proxy::Constant => Some("fence.proxy.constant"),
        Proxy::Generic | Proxy::Async => None,
    }
}

/// What a misuse breaks and what would avoid it, as a sentence.
fn misuse_advice(rule: crate::program::tmem::MisuseRule) -> String {
    use crate::program::tmem::MisuseRule;
    let advice = match rule {
        MisuseRule::AllocAfterRelinquish => {
            "A CTA may not allocate Tensor Memory after relinquishing its allocation permit: move the tcgen05.relinquish_alloc_permit after the CTA's last tcgen05.alloc"
        }
        MisuseRule::DeallocNotAllocated => {
            "Only allocated columns may be deallocated: deallocate each allocation once, after the tcgen05.alloc that made it"
        }
        MisuseRule::ExitWithLiveColumns => {
            "A CTA must deallocate every Tensor Memory column it allocated before it exits: add a tcgen05.dealloc on every path to the exit"
        }
        MisuseRule::ClusterArriveTwice => {
            "A thread arrives at the cluster barrier once per phase: wait (barrier.cluster.wait) for the phase to complete before arriving again"
        }
        MisuseRule::MbarrierOverArrival => {
            "Each phase of an mbarrier takes exactly its expected arrivals: arrive once per participant and phase, and let a participant wait for the phase to complete before it arrives for the next one"
        }
        MisuseRule::PeerCtaExited => {
            "A cta_group::2 operation needs its peer CTA alive, and nothing makes a thread of the peer CTA wait for the issue: make the peer CTA wait for it (a cluster barrier, or an mbarrier the operation's commit arrives on) before it exits"
        }
    };
    format!("{advice} ({}).", rule.section())
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
    /// A failed `assume`: the execution is discarded.
    AssumeFailed,
}

/// A capped collector's account of the final states beyond those it keeps ([`Collector::cap_states`]).
struct CappedStates {
    max: usize,
    /// With [`crate::Options::count_omitted_states`]: a fingerprint of every distinct state seen
    /// (16 bytes each instead of the state), by the condition's value on it (`[false, true]`).
    /// Without, nothing that grows with the states or the executions.
    distinct: Option<[Fingerprints; 2]>,
    /// Whether some final state falsifies / satisfies the condition (`[false, true]`): the
    /// condition's observation, exact with or without `distinct`.
    seen: [bool; 2],
}

/// A set of [`fingerprint`]s, hashed by folding each (they are hashes already: hashing them
/// again with SipHash cost a few percent of a check that counts its omitted states).
type Fingerprints = HashSet<u128, BuildHasherDefault<FoldHasher>>;

/// Folds a `u128` (a [`fingerprint`]) to its two halves' xor.
#[derive(Default)]
struct FoldHasher(u64);

impl Hasher for FoldHasher {
    fn write(&mut self, bytes: &[u8]) {
        // (Only `u128`s are hashed here; bytes are folded eight at a time all the same.)
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.0 ^= u64::from_le_bytes(word);
        }
    }

    fn write_u128(&mut self, x: u128) {
        self.0 ^= (x as u64) ^ ((x >> 64) as u64);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

/// A 128-bit hash: two SipHash-1-3 runs with fixed, different keys, so equal fingerprints of
/// different values (about 2^-128 per pair) do not matter at any scale we run.
fn fingerprint<T: Hash + ?Sized>(value: &T) -> u128 {
    let half = |salt: u64| {
        let mut h = DefaultHasher::new();
        salt.hash(&mut h);
        value.hash(&mut h);
        h.finish()
    };
    (u128::from(half(0)) << 64) | u128::from(half(0x9e37_79b9_7f4a_7c15))
}

/// The condition's result over final states of which `pos` satisfy and `neg` falsify it
/// (herd7: the observation and `Ok` follow from whether each is 0).
pub(crate) fn judge(prog: &CompiledProgram, pos: u64, neg: u64) -> ConditionResult {
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
    ConditionResult { quantifier: prog.quantifier, observation, validated, positive: pos, negative: neg }
}

/// Whether execution `g`, in which the threads `stops` stopped and some failed an `assume`, is
/// one [`Stats::assume_failed`] counts: each thread that failed its `assume` ends with a read
/// of the `co`-latest write of its location (or with no read). Where one ends with a read of an
/// older write, a later write may still satisfy its `assume`: GenMC revisits such a read in
/// place and never completes the execution, and the explorer drops most of them unexplored
/// ([`crate::explore`]'s moot). So the count is a function of the execution graphs alone, and
/// the explorer's equals the oracle's and GenMC's (`szymanski`: 25 / 497 / 6,987 under SC).
fn assume_stuck(g: &ExecutionGraph, stops: &[(usize, Stop)]) -> bool {
    let latest = |e: &crate::exec::event::Event| e.rf == g.writes_to(e.label.loc).last();
    stops
        .iter()
        .filter(|(_, s)| *s == Stop::AssumeFailed)
        .all(|(t, _)| g.threads[*t].last().is_none_or(|e| !e.label.is_read() || latest(e)))
}

/// Which of the threads `stops` of a blocked execution wait for ever (DESIGN §3.3: a hang is a
/// wait that no fair continuation satisfies), in the order of `stops`.
///
/// A thread the loop bound stopped ([`Stop::LoopBound`]) may go on in some fair continuation,
/// and so may a waiter whose wait such threads could end: at a barrier, where every member it
/// waits for may still come (a member that finished, or does not exist, never comes); at a
/// blocking wait or a spin loop that read only coherence-last writes, where any other thread
/// may still write. The rest hang. So a thread waiting at a barrier for a partner that the
/// bound stopped inside a spin loop is blocked by the bound, not hung (Dat3M's `terminates`).
fn hung(g: &ExecutionGraph, stops: &[(usize, Stop)]) -> Vec<bool> {
    let mut moves = vec![false; g.threads.len()];
    for &(t, stop) in stops {
        moves[t] = stop == Stop::LoopBound && !g.waiting_at_barrier(t);
    }
    loop {
        let mut changed = false;
        for &(t, stop) in stops {
            let unblocked = !moves[t]
                && match g.barrier_wait(t) {
                    Some(Some(missing)) => missing.iter().all(|&u| moves[u]),
                    Some(None) => false,
                    None => matches!(stop, Stop::AwaitHang(_) | Stop::SpinHang(_)) && (0..moves.len()).any(|u| u != t && moves[u]),
                };
            if unblocked {
                moves[t] = true;
                changed = true;
            }
        }
        if !changed {
            return stops.iter().map(|&(t, _)| !moves[t]).collect();
        }
    }
}

/// What a traced check keeps ([`crate::Options::trace`]): the revisits traced so far, and the
/// taken ones the exploration is inside of.
struct Trace {
    tracer: Tracer,
    revisits: u64,
    path: Vec<u64>,
}

/// Accumulates executions into a [`Verdict`].
pub(crate) struct Collector<'a> {
    prog: &'a CompiledProgram,
    states: BTreeMap<Vec<i64>, u64>,
    /// With a cap on the states kept ([`Collector::cap_states`]).
    capped: Option<CappedStates>,
    /// Executions recorded so far, shared with the caller ([`crate::Options::progress`]).
    progress: Option<Arc<AtomicU64>>,
    /// Per observed state (condition slots only), its first execution; `None` when witnesses are off.
    witnesses: Option<BTreeMap<Vec<i64>, Witness>>,
    races: BTreeSet<Race>,
    blocked_threads: BTreeSet<usize>,
    /// Hung threads, with the synchronization object a blocking wait of theirs waits on.
    hung_threads: BTreeSet<(usize, Option<u32>)>,
    misuse: BTreeSet<Misuse>,
    explanations: Vec<Explanation>,
    stats: Stats,
    /// With duplicate detection on ([`crate::Options::detect_duplicates`]): a 128-bit
    /// fingerprint of every graph recorded — 16 bytes per execution, the one part of a
    /// collector that grows with the execution count, so it is there only when asked for.
    graphs: Option<Fingerprints>,
    max_races: usize,
    /// The races recorded so far: one seen again adds nothing to `races` (it is there, or
    /// `max_races` smaller ones are), so an execution whose every possible race is among them
    /// ([`MemoryModel::every_race_candidate`]) is not judged for races. Most executions of a
    /// racy program race on pairs an earlier one raced on.
    seen_races: SeenRaces,
    /// The loop bound the threads run under (to tell a failed blocking wait from the loop bound).
    loop_bound: u32,
    trace: Option<Trace>,
    /// Whether the program has operations whose misuse rules a replay of each execution finds
    /// (the allocator, asynchronous operations, the cluster barrier): decided once, not per
    /// execution.
    replays_for_misuse: bool,
}

impl<'a> Collector<'a> {
    pub fn new(prog: &'a CompiledProgram, detect_duplicates: bool, max_races: usize, witnesses: bool) -> Self {
        Collector {
            prog,
            states: BTreeMap::new(),
            capped: None,
            progress: None,
            witnesses: witnesses.then(BTreeMap::new),
            races: BTreeSet::new(),
            blocked_threads: BTreeSet::new(),
            hung_threads: BTreeSet::new(),
            misuse: BTreeSet::new(),
            explanations: Vec::new(),
            stats: Stats { duplicates: detect_duplicates.then_some(0), ..Stats::default() },
            graphs: detect_duplicates.then(Fingerprints::default),
            max_races,
            seen_races: SeenRaces::default(),
            loop_bound: u32::MAX,
            trace: None,
            replays_for_misuse: !prog.tmem_allocators.is_empty() || prog.has_async_operations() || prog.has_cluster_barrier(),
        }
    }

    /// The program (variant, [`CompiledProgram::rendezvous_variants`]) whose executions come next;
    /// it has the same threads, registers and locations as the one the collector started with.
    pub fn set_program(&mut self, prog: &'a CompiledProgram) {
        self.prog = prog;
    }

    /// Keep only the `max` smallest final states (with their exact execution counts), so that
    /// memory does not grow with the number of distinct states. With `count_omitted`, the others
    /// are counted by a 128-bit fingerprint each (memory then grows by 16 bytes per distinct
    /// state) and judged against the condition when first seen; without, only whether some
    /// state satisfies or falsifies the condition is kept, and memory is independent of the
    /// number of executions and of states.
    pub fn cap_states(&mut self, max: Option<usize>, count_omitted: bool) {
        self.capped = max.map(|max| CappedStates { max, distinct: count_omitted.then(Default::default), seen: [false; 2] });
    }

    /// Count every recorded execution in `counter` as well, for a caller that shows progress.
    pub fn count_into(&mut self, counter: Option<Arc<AtomicU64>>) {
        self.progress = counter;
    }

    /// Call `tracer` with every execution recorded, and let the explorer call it with its
    /// revisits ([`crate::Options::trace`]).
    pub fn trace_into(&mut self, tracer: Option<Tracer>) {
        self.trace = tracer.map(|tracer| Trace { tracer, revisits: 0, path: Vec::new() });
    }

    fn counted(&self) {
        if let Some(p) = &self.progress {
            p.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// Adds one complete execution ending in `state`.
    fn add_state(&mut self, state: Vec<i64>) {
        let Some(capped) = &mut self.capped else {
            *self.states.entry(state).or_insert(0) += 1;
            return;
        };
        if let Some(n) = self.states.get_mut(&state) {
            *n += 1;
            return;
        }
        match &mut capped.distinct {
            Some(sets) => {
                let fp = fingerprint(&state);
                if sets.iter().any(|set| set.contains(&fp)) {
                    return;
                }
                let holds = self.prog.condition.eval(&state);
                sets[usize::from(holds)].insert(fp);
                capped.seen[usize::from(holds)] = true;
            }
            None => capped.seen[usize::from(self.prog.condition.eval(&state))] = true,
        }
        // The kept states are the smallest seen: one that leaves never comes back (every later
        // one kept is smaller), so the kept counts are exact. For the same reason a state that
        // is not kept and would be now is new: seen before, it would have been kept then (the
        // largest kept state only decreases once `max` are kept) and never left.
        let largest = self.states.last_key_value().map(|(s, _)| s);
        if self.states.len() < capped.max || largest.is_some_and(|l| state < *l) {
            self.states.insert(state, 1);
            if self.states.len() > capped.max {
                self.states.pop_last();
            }
        }
    }

    /// The loop bound of the run (default: unbounded), needed to classify failed blocking waits.
    pub fn set_loop_bound(&mut self, loop_bound: u32) {
        self.loop_bound = loop_bound;
    }

    /// Why blocked thread `t` stopped ([`Stop`]).
    fn stop(&self, g: &ExecutionGraph, t: usize) -> Stop {
        let performed: Vec<i64> = g.threads[t].iter().map(|e| e.value).collect();
        let Ok(r) = crate::exec::interp::replay(&self.prog.threads[t], &performed, self.loop_bound) else { return Stop::LoopBound };
        if r.step == crate::exec::interp::Step::AssumeFailed {
            return Stop::AssumeFailed;
        }
        let latest = |e: &crate::exec::event::Event| e.rf == g.writes_to(e.label.loc).last();
        if r.await_failed {
            // The failed wait's read — or, for a `tcgen05.alloc` that found no room, the
            // allocator write it made: nothing changed the object after it.
            let last = g.threads[t].len().checked_sub(1);
            return match last.map(|i| (i, &g.threads[t][i])) {
                Some((_, e)) if e.label.is_read() && latest(e) => Stop::AwaitHang(e.label.loc),
                Some((i, e)) if e.label.is_write() && g.writes_to(e.label.loc).last() == Some(EventId::new(t, i)) => {
                    Stop::AwaitHang(e.label.loc)
                }
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

    /// With duplicate detection on: counts `g` as a duplicate if it was recorded before.
    fn count_if_duplicate(&mut self, g: &ExecutionGraph) {
        if let Some(graphs) = &mut self.graphs
            && !graphs.insert(fingerprint(&g.canonical_key()))
        {
            *self.stats.duplicates.as_mut().expect("[tcfuzz internal bug] duplicates counter") += 1;
        }
    }

    /// Records one consistent execution; `regs[t]` are thread `t`'s registers at its end, and
    /// `blocked` the threads that hit the loop bound or wait forever at a barrier.
    pub fn record(&mut self, g: &ExecutionGraph, regs: &[&[i64]], blocked: &[usize], model: &dyn MemoryModel) {
        // An execution that does not reach a rendezvous this variant lets block is counted in the
        // variant where it does not block (CompiledProgram::rendezvous_variants).
        let reached = |id: u32| g.threads.iter().flatten().any(|e| e.label.is_barrier() && e.label.loc == id);
        if !self.prog.blocking_rendezvous.iter().all(|&id| reached(id)) {
            self.trace_execution(g, Recorded::Dropped);
            return;
        }
        // A blocking wait that read a stale state: not an execution (crate::program::sync, "Hangs").
        let stops: Vec<(usize, Stop)> = blocked.iter().map(|&t| (t, self.stop(g, t))).collect();
        if stops.iter().any(|(_, s)| *s == Stop::StaleAwait) {
            self.trace_execution(g, Recorded::Dropped);
            return;
        }
        // A failed `assume`: not an execution of the program; only counted, as GenMC counts its
        // blocked executions (its states, races and hangs are not the program's).
        if stops.iter().any(|(_, s)| *s == Stop::AssumeFailed) {
            self.trace_execution(g, Recorded::AssumeFailed);
            if assume_stuck(g, &stops) {
                self.stats.assume_failed += 1;
            }
            self.counted();
            self.count_if_duplicate(g);
            return;
        }
        let hung = hung(g, &stops);
        self.trace_execution(g, if blocked.is_empty() { Recorded::Complete } else { Recorded::Blocked });
        self.count_if_duplicate(g);
        let all_seen = model.every_race_candidate(g, &mut |a, b| self.seen_races.contains(g, a, b));
        let all_seen = all_seen == Some(true);
        debug_assert!(
            !all_seen || model.races(g).into_iter().all(|(a, b)| self.seen_races.contains(g, a, b)),
            "[tcfuzz internal bug] a race that every_race_candidate does not name"
        );
        let races = if all_seen { Vec::new() } else { model.races(g) };
        for (a, b) in races {
            if self.seen_races.contains(g, a, b) {
                continue;
            }
            self.seen_races.insert(g, a, b);
            if self.witnesses.is_some() {
                self.explain_race(g, model.kind(), a, b);
            }
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
            // The smallest `max_races` distinct races: which ones does not depend on the order of
            // exploration, so the merged result of a parallel check is the single-thread one.
            let kind = self.race_kind(g, a, b);
            let race = Race { kind, first: info(a), second: info(b), rule: repair_hint(g, model.kind(), kind, a, b) };
            if self.races.len() < self.max_races || self.races.last().is_some_and(|last| race < *last) {
                self.races.insert(race);
                if self.races.len() > self.max_races {
                    self.races.pop_last();
                }
            }
        }
        if self.replays_for_misuse {
            self.record_misuse(g, blocked.is_empty());
        }
        if !self.prog.mbarriers.is_empty() {
            self.record_over_arrivals(g);
        }
        self.counted();
        if !blocked.is_empty() {
            self.stats.blocked += 1;
            let mut hang = false;
            for (&(t, stop), &hung) in stops.iter().zip(&hung) {
                if !hung {
                    self.blocked_threads.insert(t);
                    continue;
                }
                hang = true;
                match stop {
                    _ if g.waiting_at_barrier(t) => self.hung_threads.insert((t, None)),
                    Stop::AwaitHang(loc) | Stop::SpinHang(loc) => self.hung_threads.insert((t, Some(loc))),
                    _ => unreachable!("[tcfuzz internal bug] a hung thread that waits for nothing"),
                };
            }
            self.stats.hangs += u64::from(hang);
            if hang && self.witnesses.is_some() {
                let stuck: Vec<EventId> = stops
                    .iter()
                    .zip(&hung)
                    .filter(|(_, hung)| **hung)
                    .map(|(s, _)| s)
                    .filter_map(|(t, _)| g.threads[*t].len().checked_sub(1).map(|i| EventId::new(*t, i)))
                    .collect();
                let names: Vec<String> = stuck.iter().map(|e| self.prog.threads[e.thread as usize].name.clone()).collect();
                let headline = format!("hang: {} wait(s) forever at the marked events", names.join(", "));
                let missing = "No later event of any thread can complete what they wait for (an arrival, a phase, a value or free Tensor Memory columns): every other thread has finished or is stuck too.".to_string();
                self.explain(g, "hang".into(), headline, missing, &stuck);
            }
            return;
        }
        self.stats.complete += 1;
        let mut state: Vec<i64> = regs.iter().flat_map(|r| r.iter()).copied().collect();
        state.extend(g.final_memory());
        let prog = self.prog;
        if let Some(w) = &mut self.witnesses {
            let observed: Vec<i64> = prog.observed.iter().map(|&s| state[s]).collect();
            w.entry(observed)
                .or_insert_with(|| Witness { text: crate::verdict::witness::text(prog, g), dot: crate::verdict::witness::dot(prog, g) });
        }
        self.add_state(state);
    }

    /// Whether the check is traced ([`crate::Options::trace`]): the explorer asks before it
    /// renders a step.
    pub fn tracing(&self) -> bool {
        self.trace.is_some()
    }

    fn trace_execution(&self, g: &ExecutionGraph, recorded: Recorded) {
        if let Some(t) = &self.trace {
            let graph = witness::trace_text(self.prog, g);
            t.tracer.step(&TraceStep::Execution { recorded, graph, key: g.canonical(), via: t.path.clone() });
        }
    }

    /// Traces the backward revisit of `r` by `a` from `from` ([`TraceStep::Revisit`]), to `to`
    /// where it is taken.
    /// Returns the revisit's number ([`TraceStep::Revisit`]'s `id`).
    pub fn trace_revisit(
        &mut self,
        from: &ExecutionGraph,
        (a, r): (EventId, EventId),
        outcome: RevisitOutcome,
        to: Option<&ExecutionGraph>,
    ) -> Option<u64> {
        let prog = self.prog;
        self.trace.as_mut().map(|t| {
            t.revisits += 1;
            t.tracer.step(&TraceStep::Revisit {
                id: t.revisits,
                write: witness::event(prog, from, a),
                read: witness::event(prog, from, r),
                outcome,
                from: witness::trace_text(prog, from),
                to: to.map(|g| witness::trace_text(prog, g)),
            });
            t.revisits
        })
    }

    /// Traces that revisit `id` met `gap` ([`TraceStep::Met`]).
    pub fn trace_met(&self, id: u64, gap: Gap) {
        if let Some(t) = &self.trace {
            t.tracer.step(&TraceStep::Met { revisit: id, gap });
        }
    }

    /// The exploration goes into the graphs of taken revisit `id` ([`TraceStep::Execution`]'s
    /// `via`), until [`Collector::trace_leave`].
    pub fn trace_enter(&mut self, id: u64) {
        if let Some(t) = &mut self.trace {
            t.path.push(id);
        }
    }

    pub fn trace_leave(&mut self) {
        if let Some(t) = &mut self.trace {
            t.path.pop();
        }
    }

    fn race_kind(&self, g: &ExecutionGraph, a: EventId, b: EventId) -> RaceKind {
        let (la, lb) = (g.label(a), g.label(b));
        let tmem = |l: &crate::program::label::Label| self.prog.locations.get(l.loc as usize).is_some_and(|x| x.tmem);
        if tmem(la) || tmem(lb) {
            RaceKind::Tmem
        } else if la.proxy != lb.proxy {
            RaceKind::Proxy
        } else {
            RaceKind::Data
        }
    }

    /// Keeps `g` as the explanation of its kind of problem unless one is kept already.
    fn explain(&mut self, g: &ExecutionGraph, kind: String, headline: String, missing: String, marked: &[EventId]) {
        if self.explanations.iter().any(|x| x.kind == kind) {
            return;
        }
        let timeline = crate::verdict::witness::timeline(self.prog, g, marked);
        self.explanations.push(Explanation { kind, headline, missing, timeline });
    }

    fn explain_race(&mut self, g: &ExecutionGraph, model: ModelKind, a: EventId, b: EventId) {
        let kind = self.race_kind(g, a, b);
        let ev = |e: EventId| {
            let x = g.event(e);
            let op = x.label.tc.map_or(String::new(), |t| format!("{} ", t.op.name()));
            let access = if x.label.is_write() { "write" } else { "read" };
            format!(
                "{}#{} ({op}{access} of {} at {})",
                self.prog.threads[e.thread as usize].name, e.index, self.prog.locations[x.label.loc as usize].name, x.span
            )
        };
        let headline = format!("{} race between {} and {}", kind.name(), ev(a), ev(b));
        let missing = format!("Nothing orders them either way. What would: {}.", repair_hint(g, model, kind, a, b));
        self.explain(g, format!("{} race", kind.name()), headline, missing, &[a, b]);
    }

    /// The arrives of `g` that took an mbarrier's pending arrival count below zero, or further
    /// below (`MisuseRule::MbarrierOverArrival`): the state each wrote says so, against the
    /// state before it (its coherence predecessor, which it read).
    fn record_over_arrivals(&mut self, g: &ExecutionGraph) {
        let pending = |v: i64| crate::program::sync::Mbar::unpack(v).map_or(0, |m| m.pending);
        for &l in &self.prog.mbarriers {
            let mut before = None;
            for w in g.writes_to(l) {
                let now = pending(g.write_value(w));
                if before.replace(now).is_none_or(|was| now >= 0 || now >= was) {
                    continue;
                }
                let rule = crate::program::tmem::MisuseRule::MbarrierOverArrival;
                let (thread, span) = (self.prog.threads[w.thread as usize].name.clone(), g.event(w).span);
                if self.witnesses.is_some() {
                    let headline = format!("{} by {thread} at {span}", rule.describe());
                    self.explain(g, rule.name().into(), headline, misuse_advice(rule), &[w]);
                }
                self.misuse.insert(Misuse { rule, thread, span });
            }
        }
    }

    /// The allocator rules ([`crate::program::tmem`]), the cluster-barrier rule (both found by
    /// each thread's replay) and the CTA-pair rule ([`crate::exec::cta_pair`]) broken in `g`;
    /// `complete`: every thread exited.
    fn record_misuse(&mut self, g: &ExecutionGraph, complete: bool) {
        for (t, evs) in g.threads.iter().enumerate() {
            let performed: Vec<i64> = evs.iter().map(|e| e.value).collect();
            let Ok(r) = crate::exec::interp::replay(&self.prog.threads[t], &performed, self.loop_bound) else { continue };
            for (i, rule) in r.misuse {
                if let Some(e) = evs.get(i) {
                    self.misuse.insert(Misuse { rule, thread: self.prog.threads[t].name.clone(), span: e.span });
                    if self.witnesses.is_some() {
                        let headline = format!("{} by {} at {}", rule.describe(), self.prog.threads[t].name, e.span);
                        self.explain(g, rule.name().into(), headline, misuse_advice(rule), &[EventId::new(t, i)]);
                    }
                }
            }
        }
        if !complete {
            return;
        }
        for (i, t) in crate::exec::cta_pair::peer_exited(self.prog, g) {
            let rule = crate::program::tmem::MisuseRule::PeerCtaExited;
            let e = g.event(i);
            if self.witnesses.is_some() {
                let headline = format!(
                    "{} by {} at {} (the peer CTA's {t} may have exited before it)",
                    rule.describe(),
                    self.prog.threads[i.thread as usize].name,
                    e.span
                );
                self.explain(g, rule.name().into(), headline, misuse_advice(rule), &[i]);
            }
            self.misuse.insert(Misuse { rule, thread: self.prog.threads[i.thread as usize].name.clone(), span: e.span });
        }
        let memory = g.final_memory();
        for &l in &self.prog.tmem_allocators {
            if memory.get(l as usize).is_some_and(|&s| crate::program::tmem::live_columns(s)) {
                // Name the thread that changed the allocator last.
                let Some(w) = g.writes_to(l).last().filter(|w| !w.is_init()) else { continue };
                let thread = self.prog.threads[w.thread as usize].name.clone();
                let rule = crate::program::tmem::MisuseRule::ExitWithLiveColumns;
                if self.witnesses.is_some() {
                    let headline = format!("{} (the CTA of {thread}; the marked write left columns allocated)", rule.describe());
                    self.explain(g, rule.name().into(), headline, misuse_advice(rule), &[w]);
                }
                self.misuse.insert(Misuse { rule, thread, span: Span::default() });
            }
        }
    }

    /// Adds what `other` collected, over the same program and options, as if its executions had
    /// been recorded here: the result is the one collector that recorded all of them would hold
    /// (counts, states, the condition's counts, races, hangs, misuse, duplicates across both),
    /// but for which execution stands as the witness of a state or the explanation of a kind of
    /// problem where both have one (this collector's is kept).
    pub fn merge(&mut self, other: Collector<'a>) {
        for (state, n) in other.states {
            *self.states.entry(state).or_insert(0) += n;
        }
        if let (Some(mine), Some(theirs)) = (&mut self.capped, other.capped) {
            // A state among the `max` smallest of all is among the `max` smallest of each part:
            // every part that saw it kept it, with its count, so the sums are exact.
            while self.states.len() > mine.max {
                self.states.pop_last();
            }
            if let (Some(a), Some(b)) = (&mut mine.distinct, theirs.distinct) {
                for (set, more) in a.iter_mut().zip(b) {
                    set.extend(more);
                }
            }
            mine.seen = [mine.seen[0] || theirs.seen[0], mine.seen[1] || theirs.seen[1]];
        }
        if let (Some(a), Some(b)) = (&mut self.witnesses, other.witnesses) {
            for (state, w) in b {
                a.entry(state).or_insert(w);
            }
        }
        self.races.extend(other.races);
        while self.races.len() > self.max_races {
            self.races.pop_last();
        }
        self.blocked_threads.extend(other.blocked_threads);
        self.hung_threads.extend(other.hung_threads);
        self.misuse.extend(other.misuse);
        for x in other.explanations {
            if !self.explanations.iter().any(|y| y.kind == x.kind) {
                self.explanations.push(x);
            }
        }
        let (s, o) = (&mut self.stats, &other.stats);
        s.complete += o.complete;
        s.blocked += o.blocked;
        s.hangs += o.hangs;
        s.assume_failed += o.assume_failed;
        s.max_depth = s.max_depth.max(o.max_depth);
        if let (Some(d), Some(od)) = (&mut s.duplicates, o.duplicates) {
            *d += od;
        }
        if let (Some(a), Some(b)) = (&mut self.graphs, other.graphs) {
            for g in b {
                if !a.insert(g) {
                    *self.stats.duplicates.as_mut().expect("[tcfuzz internal bug] duplicates counter") += 1;
                }
            }
        }
    }

    pub fn set_max_depth(&mut self, d: usize) {
        self.stats.max_depth = d;
    }

    /// Executions recorded so far (complete, blocked, and discarded by an `assume`).
    /// The numbers so far.
    pub fn stats(&self) -> &Stats {
        &self.stats
    }

    pub fn explored(&self) -> u64 {
        self.stats.complete + self.stats.blocked + self.stats.assume_failed
    }

    pub fn finish(mut self, model: ModelKind, method: Method, caveats: Vec<String>) -> Verdict {
        let prog = self.prog;
        let (mut pos, mut neg) = (0, 0);
        for s in self.states.keys() {
            if prog.condition.eval(s) {
                pos += 1;
            } else {
                neg += 1;
            }
        }
        let mut omitted_states = 0;
        let mut states_counted = true;
        if let Some(c) = &self.capped {
            match &c.distinct {
                Some([falsify, satisfy]) => {
                    (pos, neg) = (satisfy.len() as u64, falsify.len() as u64);
                    omitted_states = pos + neg - self.states.len() as u64;
                }
                // Lower bounds: the kept states, and one for a side seen only beyond them.
                None => {
                    (pos, neg) = (pos.max(u64::from(c.seen[1])), neg.max(u64::from(c.seen[0])));
                    states_counted = false;
                }
            }
        }
        let names: Vec<Arc<str>> = (0..prog.state_len()).map(|i| Arc::from(prog.slot_name(i))).collect();
        // Drained, so that the table and the verdict's states are not both held in full.
        let states = std::mem::take(&mut self.states)
            .into_iter()
            .map(|(s, n)| StateCount { values: names.iter().cloned().zip(s).collect(), executions: n })
            .collect();
        let nregs = prog.state_len() - prog.locations.len();
        let sync_objects =
            (0..prog.locations.len()).filter_map(|l| SyncObject::of(prog, l as u32).map(|o| (prog.slot_name(nregs + l), o))).collect();
        Verdict {
            program: prog.name.clone(),
            sync_objects,
            model,
            method,
            states,
            omitted_states,
            states_counted,
            observed: prog.observed.iter().map(|&s| prog.slot_name(s)).collect(),
            condition: judge(prog, pos, neg),
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
            misuse: self.misuse.into_iter().collect(),
            explanations: self.explanations,
            stats: self.stats,
            caveats,
        }
    }
}
