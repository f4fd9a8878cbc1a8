//! The tcfuzz checker: execution graphs, memory models, a DPOR explorer and an exhaustive oracle.
//!
//! ```text
//! check(program, model, options)        -- the explorer (optimal, stateless DPOR: explore/)
//! check_oracle(program, model, options) -- the herd-style oracle (oracle.rs), to test the explorer
//! ```
//! Both return a [`Verdict`]: final states with execution counts, the condition's outcome as herd7
//! prints it, data races, threads that hit the loop bound, and the numbers (complete, blocked,
//! duplicates). Executions are counted as GenMC counts them: distinct `(po, rf, co)` graphs.
//!
//! Pure: no I/O.
//!
//! # Limitations and caveats
//! - Generic, texture, surface and constant proxies with aliases and proxy fences; not the async
//!   proxy. Barriers with a thread count, `bar.arrive`, cluster barriers, mbarriers,
//!   `cp.async.bulk`, `fence.proxy.async`, `tcgen05` and Tile IR give
//!   [`CheckError::Unsupported`], never a verdict. `bar.sync id` (the whole CTA) is supported: a
//!   thread waits at it until every thread of its CTA arrives; if some never does, the execution
//!   is a hang (counted as blocked and in `Stats::hangs`, the waiting threads in
//!   `Verdict::hung_threads`).
//! - Loops are bounded: a thread taking more than [`Options::loop_bound`] backward jumps stops and
//!   the execution counts as blocked ([`interp`]).
//! - Coherence order is total per location (herd's convention). The PTX ISA only requires `co` to
//!   relate morally strong or causality-ordered writes; the two agree on race-free programs.
//! - The explorer does not yet explore executions with a cyclic `po ∪ rf` (load buffering), which
//!   PTX allows; PTX verdicts from [`check`] carry a caveat. [`check_oracle`] has no such limit.
//! - Locations a program uses without declaring them start at 0 (herd7 / Dat3M convention).
//!
//! # Numbers the tests pin (`tests/`)
//! - GenMC's SC execution counts for readers, N-writers, casrot, ainc, binc and wcas (`genmc.rs`).
//! - Explorer = oracle (final states with counts, complete and blocked counts, races) on seeded
//!   random programs: about 2,700 under SC, about 380 under PTX restricted to `po ∪ rf`-acyclic
//!   executions (`property.rs`), with 0 duplicates.
//! - Agreement with the Dat3M PTX corpus, as floors (`conformance.rs`).

pub mod bitset;
pub mod error;
pub mod event;
mod explore;
pub mod graph;
pub mod interp;
pub mod lower;
pub mod model;
mod oracle;
pub mod program;
pub mod verdict;
mod witness;

pub use error::CheckError;
pub use model::{MemoryModel, ModelKind};
pub use verdict::{ConditionResult, Method, Observation, ObservedWitness, Race, RaceEvent, StateCount, Stats, Verdict, Witness};

use tcfuzz_litmus::Program;

/// How to check.
#[derive(Clone, Debug)]
pub struct Options {
    /// Backward jumps a thread may take in one execution before it counts as blocked.
    pub loop_bound: u32,
    /// Hash every produced graph and count duplicates (slow; the explorer must report 0).
    pub detect_duplicates: bool,
    /// The explorer stops with [`CheckError::TooLarge`] after this many executions.
    pub max_executions: u64,
    /// The oracle stops with [`CheckError::TooLarge`] after this many candidate graphs.
    pub oracle_limit: u64,
    /// Most distinct races reported.
    pub max_races: usize,
    /// Only count executions whose `po ∪ rf` is acyclic — what the explorer covers today. For
    /// comparing the oracle with the explorer under models that allow load buffering.
    pub exclude_porf_cycles: bool,
    /// Keep one witness execution (text and DOT) per observed final state.
    pub witnesses: bool,
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
            witnesses: true,
        }
    }
}

/// Explores every execution of `program` under `model` with the DPOR explorer.
pub fn check(program: &Program, model: ModelKind, options: &Options) -> Result<Verdict, CheckError> {
    let prog = program::CompiledProgram::compile(program)?;
    check_compiled(&prog, model, options)
}

/// Like [`check`], for a program already lowered.
pub fn check_compiled(prog: &program::CompiledProgram, model: ModelKind, options: &Options) -> Result<Verdict, CheckError> {
    let m = model::model_for(model, prog);
    let mut out = verdict::Collector::new(prog, options.detect_duplicates, options.max_races, options.witnesses);
    let mut explorer = explore::trust::Explorer {
        prog,
        model: &*m,
        loop_bound: options.loop_bound,
        out: &mut out,
        max_executions: options.max_executions,
        depth: 0,
        max_depth: 0,
    };
    explorer.run()?;
    let max_depth = explorer.max_depth;
    out.set_max_depth(max_depth);
    let mut caveats = Vec::new();
    if m.allows_porf_cycles() && prog.may_have_porf_cycles() {
        caveats.push(format!(
            "the explorer does not explore executions with a cyclic po ∪ rf (load buffering), which the {} model allows; use the oracle for those",
            model.name()
        ));
    }
    Ok(out.finish(model, Method::Explorer, caveats))
}

/// Enumerates every candidate execution of `program` herd-style and keeps those `model` allows.
/// Exponential; for testing the explorer on small programs.
pub fn check_oracle(program: &Program, model: ModelKind, options: &Options) -> Result<Verdict, CheckError> {
    let prog = program::CompiledProgram::compile(program)?;
    check_oracle_compiled(&prog, model, options)
}

/// Like [`check_oracle`], for a program already lowered.
pub fn check_oracle_compiled(prog: &program::CompiledProgram, model: ModelKind, options: &Options) -> Result<Verdict, CheckError> {
    let m = model::model_for(model, prog);
    let mut out = verdict::Collector::new(prog, options.detect_duplicates, options.max_races, options.witnesses);
    oracle::Oracle {
        prog,
        model: &*m,
        loop_bound: options.loop_bound,
        limit: options.oracle_limit,
        exclude_porf_cycles: options.exclude_porf_cycles,
        out: &mut out,
    }
    .run()?;
    Ok(out.finish(model, Method::Oracle, Vec::new()))
}
