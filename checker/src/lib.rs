//! The tcfuzz checker: execution graphs, memory models, a DPOR explorer and an exhaustive oracle.
//!
//! ```text
//! check(program, model, options)        -- the explorer (optimal, stateless DPOR: explore/)
//! check_oracle(program, model, options) -- the herd-style oracle (oracle.rs), to test the explorer
//! check_exact(program, model, options)  -- the explorer, or the oracle where the explorer's
//!                                          verdict carries a caveat and the oracle can judge
//! ```
//! Both return a [`Verdict`]: final states with execution counts, the condition's outcome as herd7
//! prints it, data races, threads that hit the loop bound, and the numbers (complete, blocked,
//! duplicates). Executions are counted as GenMC counts them: distinct `(po, rf, co)` graphs.
//!
//! Pure: no I/O.
//!
//! # Limitations and caveats
//! - Generic, texture, surface and constant proxies with aliases and proxy fences; the async
//!   proxy for the shared-memory operands of `tcgen05.mma` / `tcgen05.cp` and for `cp.async.bulk`
//!   with `fence.proxy.async` (a bulk copy starts at issue, after the earlier events of its
//!   thread, and nothing later in the thread is ordered after it but through its mbarrier, see
//!   [`sync`]). Barrier ids or thread counts in registers whose value is computed at run time
//!   (but the second operand of a symmetric `bar.sync a, r`, see [`sync`]), and a
//!   `tcgen05.commit .multicast::cluster` mask in a register, give [`CheckError::Unsupported`],
//!   never a verdict.
//! - `tcgen05` (PTX ISA §9.7.16.5–7): asynchronous operations as perform events that program
//!   order does not order, the ordering rules of [`model::tcgen05`], Tensor Memory regions as
//!   locations with abstract values (`tc_lower.rs`), the allocator ([`tmem`]) with its misuse
//!   rules, `cta_group::2` alloc/dealloc rendezvous explored both blocking and not
//!   ([`program::CompiledProgram::rendezvous_variants`]), and the CTA-pair rule that a
//!   `cta_group::2` `mma`/`cp`/`shift`/`commit` needs its peer CTA alive (`cta_pair.rs`). Races carry their kind (data, tmem,
//!   proxy); [`Verdict::explanations`] keeps one execution per kind of problem.
//! - `bar.sync a{, b}` without thread counts in the program: met by the threads of the CTA that
//!   execute the same operands ([`sync`]).
//!   Barriers with thread counts, `bar.arrive`, cluster barriers and mbarriers are
//!   synchronization objects ([`sync`]). A wait that no fair continuation can satisfy is a hang
//!   (counted as blocked and in `Stats::hangs`, the waiting threads in `Verdict::hung_threads`);
//!   a wait for a thread the loop bound stopped (a barrier partner still in its spin loop) is
//!   blocked by the bound, not a hang (`verdict::hung`).
//! - Loops are bounded: a thread taking more than [`Options::loop_bound`] backward jumps stops and
//!   the execution counts as blocked ([`interp`]) — unless its last iteration wrote nothing and
//!   read only coherence-last writes while no other thread may still move (every other stopped
//!   thread waits for good too): then it would spin forever, and the execution is a hang
//!   (Dat3M's `may-hang` liveness verdict).
//! - The graph orders all writes of a location (herd's convention); the PTX model uses only the
//!   pairs that are morally strong or causality-ordered as coherence order (§8.9.6, see
//!   [`model::ptx`]), so executions differing only in the order of racing writes are distinct.
//! - Under PTX and Tile IR the explorer explores executions with a cyclic `po ∪ rf` (load
//!   buffering) with HMC's dependency revisits and TruSt's maximality extended to their holes
//!   (`explore`). What it still does not reach is named in the verdict's caveat (a barrier reached
//!   after a branch on a read, a failing `cas` a later access needs, the register a `cas`
//!   compares with, a `cas` a revisit leaves a hole that only a deleted write can fill — with
//!   or without load buffering —, a revisit no graph qualifies for); [`check_oracle`] has no
//!   such limit, and [`check_exact`] asks it where a caveat applies.
//! - Locations a program uses without declaring them start at 0 (herd7 / Dat3M convention).
//! - Tile IR programs (tile-block threads only; a PTX thread beside them is unsupported) are
//!   compiled element by element ([`tile_program`]) and judged by the `tileir` model
//!   ([`model::tileir`]): token order instead of program order, so they allow load buffering and
//!   a load reading from a later store of its own tile block (Tile IR spec §7.12.1), which the
//!   explorer explores too.
//!   [`differential::tileir_weaker_than_ptx`] compares a Tile IR program with its lowering
//!   ([`lower`]) under PTX (DESIGN §4, `tileir-weaker-than-ptx`).
//!
//! # Numbers the tests pin (`tests/`)
//! - GenMC's SC execution counts for readers, N-writers, casrot, ainc, binc and wcas (`genmc.rs`).
//! - Explorer = oracle (final states with counts, complete and blocked counts, races) on seeded
//!   random programs: about 2,700 under SC; under PTX about 380 with the oracle restricted to
//!   `po ∪ rf`-acyclic executions (TruSt revisits) and about 380 against the unrestricted oracle
//!   (HMC revisits; where a caveat applies, explorer ⊆ oracle with the same races)
//!   (`property.rs`); Tile IR about 240 against the unrestricted oracle (`tileir.rs`); tcgen05
//!   examples and mutants (`tcgen05.rs`); 0 duplicates everywhere.
//! - Agreement with every verdict of the Dat3M PTX corpus we judge (216 of the 217 confirmed ones,
//!   the 68 liveness verdicts), and how many we judge (`conformance.rs`).
//! - Tile IR (`tileir.rs`): the 13 `examples/tileir` verdicts; tileir-weaker-than-ptx holding on
//!   every example and on 150 random Tile IR programs, and firing on deliberately broken
//!   lowerings; explorer = unrestricted oracle on about 240 random Tile IR programs, 0
//!   duplicates.

pub mod differential;
pub mod error;
pub mod exec;
mod explore;
pub mod model;
pub mod program;
pub mod verdict;

pub use differential::lower::{LowerError, lower_tile_ir};
pub use error::{CheckError, Interruption};
pub use explore::split::{Subtree, check_key, check_parallel, check_subtrees, merge_verdicts, split};
pub use model::{MemoryModel, ModelKind};
pub use verdict::{
    ConditionResult, Explanation, Method, Misuse, Observation, ObservedWitness, Race, RaceEvent, RaceKind, StateCount, Stats, SyncObject,
    Verdict, Witness,
};

use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::sync::atomic::AtomicU64;
use std::time::Instant;

use tcfuzz_litmus::Program;

/// How to check.
#[derive(Clone, Debug)]
pub struct Options {
    /// Backward jumps a thread may take in one execution before it counts as blocked.
    pub loop_bound: u32,
    /// Hash every produced graph and count duplicates (the explorer must report 0). Slower, and
    /// the one option under which memory grows with the number of executions (a 16-byte
    /// fingerprint per graph): for testing the explorer (`tcfuzz selftest`, `check --duplicates`).
    pub detect_duplicates: bool,
    /// The explorer stops with [`CheckError::TooLarge`] after this many executions.
    pub max_executions: u64,
    /// The oracle stops with [`CheckError::TooLarge`] after this many candidate graphs.
    pub oracle_limit: u64,
    /// Most distinct races reported.
    pub max_races: usize,
    /// Only count executions whose `po ∪ rf` is acyclic — what the explorer covers today (`po`
    /// as far as threads wait for it: [`graph::ExecutionGraph::issue_order`]). For
    /// comparing the oracle with the explorer under models that allow load buffering.
    /// Also makes the explorer use TruSt's `po ∪ rf` revisits only, so that both cover exactly
    /// the `po ∪ rf`-acyclic executions.
    pub exclude_porf_cycles: bool,
    /// Keep one witness execution (text and DOT) per observed final state (the final state
    /// restricted to what the condition mentions) and per kind of problem
    /// ([`Verdict::explanations`]).
    pub witnesses: bool,
    /// Keep at most this many final states in [`Verdict::states`] (the smallest ones, with exact
    /// counts; the rest are counted in [`Verdict::omitted_states`] and judged against the
    /// condition), so that memory does not grow with the number of distinct final states. `None`
    /// keeps every state, as comparisons of state sets need.
    pub max_states: Option<usize>,
    /// With [`Options::max_states`]: count the distinct final states left out (a 16-byte
    /// fingerprint each), so that [`Verdict::omitted_states`] and the condition's
    /// positive / negative counts are exact. Off, a check keeps nothing that grows with the number
    /// of executions or of final states (but with [`Options::detect_duplicates`], or witnesses
    /// of a condition that tells many states apart): the condition's observation and Ok / No stay
    /// exact, its counts are lower bounds ([`Verdict::states_counted`]). Ignored without
    /// `max_states`.
    pub count_omitted_states: bool,
    /// Counts every execution recorded (complete, blocked, discarded by an `assume`) as it
    /// happens, for a caller showing progress from another thread.
    pub progress: Option<Arc<AtomicU64>>,
    /// Stop with [`CheckError::Interrupted`] (carrying the counts so far) once this instant has
    /// passed. The explorer and the oracle look at the clock every few dozen graphs, so a check
    /// ends within about a millisecond of it. [`check_exact`] gives the explorer and the oracle
    /// together this one deadline.
    pub deadline: Option<Instant>,
    /// Stop with [`CheckError::Interrupted`] (carrying the counts so far) once another thread
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
            witnesses: true,
            max_states: None,
            count_omitted_states: true,
            progress: None,
            deadline: None,
            cancel: None,
        }
    }
}

/// Explores every execution of `program` under `model` with the DPOR explorer.
pub fn check(program: &Program, model: ModelKind, options: &Options) -> Result<Verdict, CheckError> {
    let prog = program::CompiledProgram::compile(program)?;
    check_compiled(&prog, model, options)
}

/// The stack of the thread the explorer runs on: its recursion goes one level deeper per event
/// added (`Visit`), a few kilobytes each in a debug build, and a long program (hundreds of
/// events) needs more than a default thread's 2 MiB. Only touched pages are backed by memory.
pub(crate) const EXPLORER_STACK: usize = 512 << 20;

/// Like [`check`], for a program already lowered.
pub fn check_compiled(prog: &program::CompiledProgram, model: ModelKind, options: &Options) -> Result<Verdict, CheckError> {
    on_explorer_stack(|| explore_compiled(prog, model, options))
}

/// Runs `explore` on a thread with an [`EXPLORER_STACK`].
pub(crate) fn on_explorer_stack<T: Send>(explore: impl FnOnce() -> T + Send) -> T {
    // (The closure goes to the thread only if one is had: `Option::take`.)
    let explore = std::sync::Mutex::new(Some(explore));
    std::thread::scope(|s| {
        let explorer = std::thread::Builder::new().name("tcfuzz-explorer".into()).stack_size(EXPLORER_STACK);
        let run = || explore.lock().unwrap_or_else(std::sync::PoisonError::into_inner).take().map(|f| f());
        let done = match explorer.spawn_scoped(s, run) {
            Ok(handle) => handle.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
            // No thread to be had (resource limits): explore on this one.
            Err(_) => None,
        };
        done.unwrap_or_else(|| run().expect("[tcfuzz internal bug] the explorer ran twice"))
    })
}

fn explore_compiled(prog: &program::CompiledProgram, model: ModelKind, options: &Options) -> Result<Verdict, CheckError> {
    model_applies(prog, model)?;
    let variants = prog.rendezvous_variants()?;
    let progs: Vec<&program::CompiledProgram> = if variants.is_empty() { vec![prog] } else { variants.iter().collect() };
    let mut out = new_collector(prog, options);
    let (mut max_depth, mut lost_revisit) = (0, false);
    for p in progs {
        out.set_program(p);
        let (_, depth, lost) = explore_part(p, model, options, &mut out, explore::trust::Part::All)?;
        max_depth = max_depth.max(depth);
        lost_revisit |= lost;
    }
    finish_explorer(prog, model, options, out, max_depth, lost_revisit)
}

/// A collector for a check of `prog` with `options`.
fn new_collector<'p>(prog: &'p program::CompiledProgram, options: &Options) -> verdict::Collector<'p> {
    let mut out = verdict::Collector::new(prog, options.detect_duplicates, options.max_races, options.witnesses);
    out.set_loop_bound(options.loop_bound);
    out.cap_states(options.max_states, options.count_omitted_states);
    out.count_into(options.progress.clone());
    out
}

/// Explores `part` of the exploration of `p` (one program variant) into `out`; gives the part
/// back (with what it found: [`explore::trust::Part`]), the deepest recursion, and whether a
/// revisit was lost.
fn explore_part<'p>(
    p: &'p program::CompiledProgram,
    model: ModelKind,
    options: &Options,
    out: &mut verdict::Collector<'p>,
    part: explore::trust::Part,
) -> Result<(explore::trust::Part, usize, bool), CheckError> {
    model_applies(p, model)?;
    let m = model::model_for(model, p);
    let bound = explore::bound::Bound::new(options);
    let mut explorer = explore::trust::Explorer {
        prog: p,
        model: &*m,
        loop_bound: options.loop_bound,
        out,
        max_executions: options.max_executions,
        depth: 0,
        max_depth: 0,
        dependency_revisits: explore::trust::explores_porf_cycles(model) && !options.exclude_porf_cycles,
        lost_revisit: std::cell::Cell::new(false),
        replays: Default::default(),
        assumes: p.has_assume(),
        compacted: Default::default(),
        bound: &bound,
        part,
        path: Vec::new(),
        children: Vec::new(),
    };
    explorer.run()?;
    Ok((explorer.part, explorer.max_depth, explorer.lost_revisit.get()))
}

/// The explorer's verdict from what it collected.
fn finish_explorer(
    prog: &program::CompiledProgram,
    model: ModelKind,
    options: &Options,
    mut out: verdict::Collector<'_>,
    max_depth: usize,
    lost_revisit: bool,
) -> Result<Verdict, CheckError> {
    out.set_max_depth(max_depth);
    let m = model::model_for(model, prog);
    let dependency = explore::trust::explores_porf_cycles(model) && !options.exclude_porf_cycles;
    let mut caveats = explore::trust::caveats(prog, model, m.allows_porf_cycles(), dependency);
    if lost_revisit {
        caveats.push(explore::trust::lost_revisit_caveat(model));
    }
    Ok(out.finish(model, Method::Explorer, caveats))
}

/// The explorer's verdict on `program`, or — where it carries a caveat (executions the explorer
/// may not explore) — the oracle's, which has no such limit, where the oracle can judge the
/// program within [`Options::oracle_limit`]. The verdict's `method` says which; where the oracle
/// gives up ([`CheckError::TooLarge`]) or does not finish ([`CheckError::Interrupted`]: the
/// deadline passes, or the check is cancelled, while the oracle runs), the explorer's verdict
/// stands with its caveats.
pub fn check_exact(program: &Program, model: ModelKind, options: &Options) -> Result<Verdict, CheckError> {
    let prog = program::CompiledProgram::compile(program)?;
    check_exact_compiled(&prog, model, options)
}

/// Like [`check_exact`], for a program already lowered.
pub fn check_exact_compiled(prog: &program::CompiledProgram, model: ModelKind, options: &Options) -> Result<Verdict, CheckError> {
    let explored = check_compiled(prog, model, options)?;
    if explored.caveats.is_empty() {
        return Ok(explored);
    }
    match check_oracle_compiled(prog, model, options) {
        Err(CheckError::TooLarge(_) | CheckError::Interrupted { .. }) => Ok(explored),
        judged => judged,
    }
}

/// Enumerates every candidate execution of `program` herd-style and keeps those `model` allows.
/// Exponential; for testing the explorer on small programs.
pub fn check_oracle(program: &Program, model: ModelKind, options: &Options) -> Result<Verdict, CheckError> {
    let prog = program::CompiledProgram::compile(program)?;
    check_oracle_compiled(&prog, model, options)
}

/// Like [`check_oracle`], for a program already lowered.
pub fn check_oracle_compiled(prog: &program::CompiledProgram, model: ModelKind, options: &Options) -> Result<Verdict, CheckError> {
    model_applies(prog, model)?;
    let m = model::model_for(model, prog);
    let variants = prog.rendezvous_variants()?;
    let progs: Vec<&program::CompiledProgram> = if variants.is_empty() { vec![prog] } else { variants.iter().collect() };
    let mut out = new_collector(prog, options);
    let bound = explore::bound::Bound::new(options);
    for p in progs {
        out.set_program(p);
        explore::oracle::Oracle {
            prog: p,
            model: &*m,
            loop_bound: options.loop_bound,
            limit: options.oracle_limit,
            exclude_porf_cycles: options.exclude_porf_cycles,
            out: &mut out,
            bound: &bound,
        }
        .run()?;
    }
    Ok(out.finish(model, Method::Oracle, Vec::new()))
}

/// The `tileir` model judges Tile IR programs only (a PTX thread has no token order to give it).
fn model_applies(prog: &program::CompiledProgram, model: ModelKind) -> Result<(), CheckError> {
    if model == ModelKind::TileIr && prog.tile.is_none() {
        return Err(CheckError::unsupported("the tileir model on a PTX program", tcfuzz_litmus::Span::default()));
    }
    Ok(())
}
