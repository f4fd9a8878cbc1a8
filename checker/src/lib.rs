//! The tcfuzz checker: execution graphs, memory models, a DPOR explorer and an exhaustive oracle.
//!
//! ```text
//! check(program, model, options)        -- the explorer (optimal, stateless DPOR: explore/)
//! check_oracle(program, model, options) -- the herd-style oracle (oracle.rs), to test the explorer
//! check_exact(program, model, options)  -- the explorer, or the oracle where the explorer's
//!                                          verdict carries a caveat and the oracle can judge
//! spawn_explorer_thread(name, f)        -- a thread whose checks run on it, not each on a new one
//! on_explorer_stack(f)                  -- f's checks on this thread, or all on one new thread
//! ```
//! Both return a [`Verdict`]: final states with execution counts, the condition's outcome as herd7
//! prints it, data races, threads that hit the loop bound, and the numbers (complete, blocked,
//! duplicates). Executions are counted as GenMC counts them: distinct `(po, rf, co)` graphs.
//!
//! Pure: no I/O.
//!
//! # Layout
//! The modules are layers, each importing only from the ones listed before it (the test
//! `tests/checker/layers.rs` holds them to it): `options.rs`, `stats.rs` and `error.rs` (what a
//! caller passes and gets back); `program/` compiles a litmus program into per-thread code over
//! numbered registers — event labels, synchronization objects and their lowering, `tcgen05` with
//! the Tensor Memory allocator, Tile IR element by element, the static `po ∪ rf` cycle analysis;
//! `exec/` runs that code — the interpreter, events, execution graphs over bitset relations, the
//! CTA-pair rule; `model/` judges a graph (SC, PTX with tcgen05, Tile IR); `verdict/` collects
//! executions into a [`Verdict`] with witnesses; `explore/` enumerates the executions — the DPOR
//! explorer, the herd-style oracle, split exploration across threads or machines, and the entry
//! points below; `differential/` lowers Tile IR to PTX and compares the two. `lib.rs` only
//! re-exports the public surface.
//!
//! # Limitations and caveats
//! - Generic, texture, surface and constant proxies with aliases and proxy fences; the async
//!   proxy for the shared-memory operands of `tcgen05.mma` / `tcgen05.cp` and for `cp.async.bulk`
//!   with `fence.proxy.async` (a bulk copy starts at issue, after the earlier events of its
//!   thread, and nothing later in the thread is ordered after it but through its mbarrier, see
//!   `program/sync.rs`). Barrier ids or thread counts in registers whose value is computed at run time
//!   (but the second operand of a symmetric `bar.sync a, r`, see `program/sync.rs`), and a
//!   `tcgen05.commit .multicast::cluster` mask in a register, give [`CheckError::Unsupported`],
//!   never a verdict.
//! - `tcgen05` (PTX ISA §9.7.16.5–7): asynchronous operations as perform events that program
//!   order does not order, the ordering rules of `model/tcgen05.rs`, Tensor Memory regions as
//!   locations with abstract values (`program/tc_lower.rs`), the allocator (`program/tmem.rs`) with its misuse
//!   rules, `cta_group::2` alloc/dealloc rendezvous explored both blocking and not
//!   (`CompiledProgram::rendezvous_variants`), and the CTA-pair rule that a
//!   `cta_group::2` `mma`/`cp`/`shift`/`commit` needs its peer CTA alive (`exec/cta_pair.rs`). Races carry their kind (data, tmem,
//!   proxy); [`Verdict::explanations`] keeps one execution per kind of problem.
//! - `bar.sync a{, b}` without thread counts in the program: met by the threads of the CTA that
//!   execute the same operands (`program/sync.rs`).
//!   Barriers with thread counts, `bar.arrive`, cluster barriers and mbarriers are
//!   synchronization objects (`program/sync.rs`). A wait that no fair continuation can satisfy is a hang
//!   (counted as blocked and in `Stats::hangs`, the waiting threads in `Verdict::hung_threads`);
//!   a wait for a thread the loop bound stopped (a barrier partner still in its spin loop) is
//!   blocked by the bound, not a hang (`verdict::hung`).
//! - Loops are bounded: a thread taking more than [`Options::loop_bound`] backward jumps stops and
//!   the execution counts as blocked (`exec/interp.rs`) — unless its last iteration wrote nothing and
//!   read only coherence-last writes while no other thread may still move (every other stopped
//!   thread waits for good too): then it would spin forever, and the execution is a hang
//!   (Dat3M's `may-hang` liveness verdict).
//! - The graph orders all writes of a location (herd's convention); the PTX model uses only the
//!   pairs that are morally strong or causality-ordered as coherence order (§8.9.6, see
//!   `model/ptx.rs`), so executions differing only in the order of racing writes are distinct.
//! - Under PTX and Tile IR the explorer explores executions with a cyclic `po ∪ rf` (load
//!   buffering) with HMC's dependency revisits and TruSt's maximality extended to their holes
//!   (`explore/`). What it still does not reach is named in the verdict's caveat (a barrier reached
//!   after a branch on a read, a failing `cas` a later access needs, the register a `cas`
//!   compares with, a `cas` a revisit leaves a hole that only a deleted write can fill — with
//!   or without load buffering —, a revisit no graph qualifies for); [`check_oracle`] has no
//!   such limit, and [`check_exact`] asks it where a caveat applies.
//! - Locations a program uses without declaring them start at 0 (herd7 / Dat3M convention).
//! - Tile IR programs (tile-block threads only; a PTX thread beside them is unsupported) are
//!   compiled element by element (`program/tile_program.rs`) and judged by the `tileir` model
//!   (`model/tileir.rs`): token order instead of program order, so they allow load buffering and
//!   a load reading from a later store of its own tile block (Tile IR spec §7.12.1), which the
//!   explorer explores too.
//!   [`tileir_weaker_than_ptx`] compares a Tile IR program with its lowering
//!   ([`lower_tile_ir`]) under PTX (DESIGN §4, `tileir-weaker-than-ptx`).
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

mod differential;
mod error;
mod exec;
mod explore;
mod model;
mod options;
mod program;
mod stats;
mod verdict;

pub use differential::lower::{LowerError, lower_tile_ir};
pub use differential::{DifferentialReport, ExtraState, tileir_weaker_than, tileir_weaker_than_ptx, tileir_weaker_than_ptx_with};
pub use error::{CheckError, Interruption};
pub use explore::check::{
    check, check_compiled, check_exact, check_exact_compiled, check_oracle, check_oracle_compiled, on_explorer_stack, spawn_explorer_thread,
};
pub use explore::split::{PreparedCheck, Slice, Sliced, Subtree, check_key, check_parallel, check_subtrees, merge_verdicts, split};
pub use model::ModelKind;
pub use options::{Gap, Options, Recorded, RevisitOutcome, TraceStep, Tracer};
pub use program::CompiledProgram;
pub use program::tmem::MisuseRule;
pub use stats::Stats;
pub use verdict::{
    ConditionResult, Explanation, Method, Misuse, Observation, ObservedWitness, Race, RaceEvent, RaceKind, StateCount, SyncObject, Verdict,
    Witness,
};
