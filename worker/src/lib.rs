//! The tcfuzz worker: the job executor (DESIGN §1, issue 22 item 6). A job is a range of program
//! indices of a campaign; [`Executor::run`] generates each program, checks it under every model
//! that applies within a per-program budget, runs the discrepancy oracles that need no GPU, and
//! returns the results — stats, coverage features, candidate seeds and discrepancies with their
//! programs — for the caller to record. `tcfuzz fuzz` runs it on a thread pool; the services
//! will run the same executor on remote workers.
//!
//! ```text
//! Executor::new(FuzzConfig)            the configuration, resolved (generator, models, budget, oracles)
//! executor.run(&Job, &Hooks) -> JobResult
//! executor.signature(&Recheck, &Program, &Hooks)   a finding's signature on another program:
//!                                      the minimizer's predicate
//! ```
//!
//! No I/O of its own and never the corpus: the external reference checker and NVIDIA's Tile IR
//! compiler come in through [`Hooks`] ([`Tileiras`] is the compiler, through the gpu crate).
//! Every program is checked inside `catch_unwind`: a panic of the checker is a `checker-crash`
//! finding and the job goes on ([`crash`]).
//!
//! - [`oracles`]: explorer-vs-oracle, tileir-weaker-than-ptx, compiler-lowering, pattern-broken,
//!   sync-redundant, reference-disagrees, and their signatures;
//! - [`coverage`]: the coverage features of a checked program;
//! - [`planted`]: deliberately wrong rules for testing the whole loop.

pub mod config;
pub mod coverage;
pub mod crash;
mod executor;
pub mod finding;
pub mod oracles;
pub mod planted;
mod tileiras;

pub use config::{FuzzConfig, OracleConfig, ProgramBudget, ReferenceConfig};
pub use executor::{Candidate, ConfigError, Executor, FamilyStats, Hooks, Job, JobResult, Stats};
pub use finding::{Finding, Kind, Recheck, Side};
pub use oracles::differential::Compiler;
pub use oracles::reference::{Reference, parse_observation};
pub use planted::PlantedFault;
pub use tileiras::Tileiras;
