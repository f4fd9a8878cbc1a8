//! How to check: [`Options`], of which each layer reads its part.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::sync::atomic::AtomicU64;
use std::time::Instant;

/// How to check.
#[derive(Clone, Debug)]
pub struct Options {
    /// Backward jumps a thread may take in one execution before it counts as blocked.
    pub loop_bound: u32,
    /// Hash every produced graph and count duplicates (the explorer must report 0). Slower, and
    /// the one option under which memory grows with the number of executions (a 16-byte
    /// fingerprint per graph): for testing the explorer (`tcfuzz selftest`, `check --duplicates`).
    pub detect_duplicates: bool,
    /// The explorer stops with [`CheckError::TooManyExecutions`](crate::CheckError::TooManyExecutions)
    /// (carrying the counts so far) after this many executions.
    pub max_executions: u64,
    /// The oracle stops with [`CheckError::TooLarge`](crate::CheckError::TooLarge) after this many candidate graphs.
    pub oracle_limit: u64,
    /// Most distinct races reported.
    pub max_races: usize,
    /// Only count executions whose `po ∪ rf` is acyclic (`po` all of program order, the perform
    /// of an asynchronous tcgen05 operation in its place). For comparing the oracle with the
    /// explorer under models that allow load buffering.
    /// Also makes the explorer use TruSt's `po ∪ rf` revisits only, so that both cover exactly
    /// the `po ∪ rf`-acyclic executions.
    pub exclude_porf_cycles: bool,
    /// Explore with HMC's dependency revisits even a program none of whose executions can have
    /// a cyclic `po ∪ rf`, where TruSt's revisits explore the same executions without the holes
    /// that make the dependency revisits slow (the default picks those there). For testing the
    /// dependency revisits on such programs. Ignored under SC and with
    /// [`Options::exclude_porf_cycles`].
    pub always_dependency_revisits: bool,
    /// How many graphs the completion searches of one maximality test of the dependency revisits
    /// may judge before they give up: the revisit is then refused and the verdict carries a
    /// caveat saying executions may be missed (the default, 20,000, is met by no program of
    /// `examples/` or the conformance corpus; a smaller one is for testing that path).
    pub maximality_budget: u32,
    /// Keep one witness execution (text and DOT) per observed final state (the final state
    /// restricted to what the condition mentions) and per kind of problem
    /// ([`Verdict::explanations`](crate::Verdict::explanations)).
    pub witnesses: bool,
    /// Keep at most this many final states in [`Verdict::states`](crate::Verdict::states) (the smallest ones, with exact
    /// counts; the rest are counted in [`Verdict::omitted_states`](crate::Verdict::omitted_states) and judged against the
    /// condition), so that memory does not grow with the number of distinct final states. `None`
    /// keeps every state, as comparisons of state sets need.
    pub max_states: Option<usize>,
    /// With [`Options::max_states`]: count the distinct final states left out (a 16-byte
    /// fingerprint each), so that [`Verdict::omitted_states`](crate::Verdict::omitted_states) and the condition's
    /// positive / negative counts are exact. Off, a check keeps nothing that grows with the number
    /// of executions or of final states (but with [`Options::detect_duplicates`], or witnesses
    /// of a condition that tells many states apart): the condition's observation and Ok / No stay
    /// exact, its counts are lower bounds ([`Verdict::states_counted`](crate::Verdict::states_counted)). Ignored without
    /// `max_states`.
    pub count_omitted_states: bool,
    /// Counts every execution recorded (complete, blocked, discarded by an `assume`) as it
    /// happens, for a caller showing progress from another thread.
    pub progress: Option<Arc<AtomicU64>>,
    /// Stop with [`CheckError::Interrupted`](crate::CheckError::Interrupted) (carrying the counts so far) once this instant has
    /// passed. The explorer and the oracle look at the clock every few dozen graphs, so a check
    /// ends within about a millisecond of it. [`check_exact`](crate::check_exact) gives the explorer and the oracle
    /// together this one deadline.
    pub deadline: Option<Instant>,
    /// Stop with [`CheckError::Interrupted`](crate::CheckError::Interrupted) (carrying the counts so far) once another thread
    /// sets this flag (a Ctrl-C handler, a worker giving its job back); read once per graph.
    pub cancel: Option<Arc<AtomicBool>>,
    /// Called with each step of the exploration ([`TraceStep`]), on the thread that explores:
    /// for finding where the explorer goes wrong (`tcfuzz trace`). Each step renders a graph as
    /// text, so a traced check is many times slower.
    pub trace: Option<Tracer>,
}

/// How many graphs the completion searches of one maximality test (`explore/maximal.rs`) may
/// judge in all, by default ([`Options::maximality_budget`]). Past it the test stops searching
/// and answers that a completion exists, so that the revisit is refused, and the verdict says
/// that executions may be missed, as for a lost revisit: the oracle then judges the program where
/// it can. (The other answer, no completion, would keep every execution but take revisits that
/// are not maximal: on the program below, 1.25 million executions explored twice.) Without the
/// bound, a search that extends threads past their ends (`MAX_EXTENSION_EVENTS`) took minutes on
/// single revisits of a generated program of 13 instructions (`selftest` proxy 43059512: a spin
/// loop on a location three threads write, six writes of another location); with it, 9 s for
/// its 2 million executions.
pub(crate) const MAXIMALITY_BUDGET: u32 = 20_000;

impl Default for Options {
    fn default() -> Self {
        Options {
            loop_bound: 2,
            detect_duplicates: false,
            max_executions: 10_000_000,
            oracle_limit: 2_000_000,
            max_races: 16,
            exclude_porf_cycles: false,
            always_dependency_revisits: false,
            maximality_budget: MAXIMALITY_BUDGET,
            witnesses: true,
            max_states: None,
            count_omitted_states: true,
            progress: None,
            deadline: None,
            cancel: None,
            trace: None,
        }
    }
}

/// What [`Options::trace`] calls, with each step.
#[derive(Clone)]
pub struct Tracer(Arc<dyn Fn(&TraceStep) + Send + Sync>);

impl Tracer {
    pub fn new(f: impl Fn(&TraceStep) + Send + Sync + 'static) -> Tracer {
        Tracer(Arc::new(f))
    }

    pub fn step(&self, step: &TraceStep) {
        (self.0)(step);
    }
}

impl std::fmt::Debug for Tracer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Tracer")
    }
}

/// One step of an exploration, its graphs rendered as text: one line per event in program
/// order (`P1#2 W x = 1 [release cta] <- …`, a hole as `P1#2 (hole)`), each with the order in
/// which the explorer added it (`@5`), then each location's coherence order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TraceStep {
    /// An execution the check recorded: complete, blocked at the loop bound or a wait, or
    /// discarded by a failed `assume` — or dropped (a blocking wait that read a stale state; a
    /// rendezvous this program variant does not reach). `key` is the same for the same graph
    /// from the explorer and from the oracle (event order and stamps aside).
    /// `via`: the taken revisits (their `id`s) on the explorer's way to it, first to last.
    Execution { recorded: Recorded, graph: String, key: String, via: Vec<u64> },
    /// The explorer's backward revisit of `read` by `write` from graph `from`: taken (`to`, the
    /// revisited graph, before the write takes its place in coherence order) or not, and why.
    /// `id` numbers the revisits of one check from 1, in the order they are traced.
    Revisit { id: u64, write: String, read: String, outcome: RevisitOutcome, from: String, to: Option<String> },
    /// Revisit `revisit` met what makes the verdict carry a caveat it would not carry otherwise
    /// (`gap`: [`Gap`]).
    Met { revisit: u64, gap: Gap },
}

/// A gap of the explorer that the exploration itself meets ([`TraceStep::Met`]); the caveats a
/// program's shape raises alone are not traced.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Gap {
    /// The rmw-hole caveat (`explore/maximal.rs`, `rmw_hole_left`, `rmw_write_hole_left`).
    RmwHole,
    /// The caveat of a load-buffering revisit the explorer cannot take.
    LostRevisit,
    /// The caveat of a revisit of an rmw's read that Atomicity holds in the revisiting write's
    /// prefix ([`RevisitOutcome::HeldByAtomicity`]).
    AtomicityHeld,
    /// The caveat of a maximality test that gave up its completion search
    /// ([`Options::maximality_budget`]).
    GaveUp,
}

impl Gap {
    pub fn name(self) -> &'static str {
        match self {
            Gap::RmwHole => "the rmw-hole gap",
            Gap::LostRevisit => "a lost revisit",
            Gap::AtomicityHeld => "an rmw held by Atomicity",
            Gap::GaveUp => "a maximality test that gave up",
        }
    }
}

/// How a check counted an execution ([`TraceStep::Execution`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Recorded {
    Complete,
    /// Blocked: a thread at the loop bound, or a wait (a hang among them).
    Blocked,
    /// Discarded: an `assume` failed.
    AssumeFailed,
    /// Not an execution of this program (variant): a blocking wait read a stale state, or a
    /// rendezvous the variant lets block was not reached.
    Dropped,
}

impl Recorded {
    pub fn name(self) -> &'static str {
        match self {
            Recorded::Complete => "complete",
            Recorded::Blocked => "blocked",
            Recorded::AssumeFailed => "assume failed",
            Recorded::Dropped => "dropped",
        }
    }
}

/// What came of a backward revisit ([`TraceStep::Revisit`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RevisitOutcome {
    Taken,
    /// The model rules out the read reading the write whatever the deleted events become.
    Forbidden,
    /// Some event the revisit deletes (or the read) was not added maximally: another graph
    /// makes this revisit (`explore/maximal.rs`).
    NotMaximal,
    /// The revisited graph can never be completed (`explore/maximal.rs`, "Dead ends").
    DeadEnd,
    /// Not a candidate: the read is in the write's dependency prefix only because another rmw
    /// there reads the read's rmw write, and the graph the revisit needs may not exist
    /// (`explore/holes.rs`, `held_by_atomicity`; [`Gap::AtomicityHeld`]).
    HeldByAtomicity,
}

impl RevisitOutcome {
    pub fn name(self) -> &'static str {
        match self {
            RevisitOutcome::Taken => "taken",
            RevisitOutcome::Forbidden => "forbidden by the model",
            RevisitOutcome::NotMaximal => "not maximal",
            RevisitOutcome::DeadEnd => "dead end",
            RevisitOutcome::HeldByAtomicity => "refused: held in the write's prefix by an rmw reading its rmw write",
        }
    }
}
