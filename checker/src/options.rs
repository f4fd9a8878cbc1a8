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
}

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
            witnesses: true,
            max_states: None,
            count_omitted_states: true,
            progress: None,
            deadline: None,
            cancel: None,
        }
    }
}
