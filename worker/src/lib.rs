//! The tcfuzz worker (DESIGN §1, §5): the job executor, and the network loop that runs it for a
//! coordinator.
//!
//! The executor (issue 22 item 6): a job is a range of program indices of a campaign;
//! [`Executor::run`] generates each program, checks it under every model that applies within a
//! per-program budget, runs the discrepancy oracles that need no GPU, and returns the results —
//! stats, coverage features, candidate seeds and discrepancies with their programs — for the
//! caller to record. `tcfuzz fuzz` runs it on a thread pool in one process; [`service`] runs the
//! same executor for a coordinator.
//!
//! ```text
//! Executor::new(FuzzConfig)            the configuration, resolved (generator, models, budget, oracles)
//! executor.run(&Job, &Hooks) -> JobResult
//! executor.signature(&Recheck, &Program, &Hooks)   a finding's signature on another program:
//!                                      the minimizer's predicate
//! service::run(config, runner, shutdown)  the network loop: register, lease, check, heartbeat, report
//! ```
//!
//! No I/O of its own besides the network loop, and never the corpus: the external reference
//! checker and NVIDIA's Tile IR compiler come in through [`Hooks`] ([`Tileiras`] is the compiler,
//! through the gpu crate). Every program is checked inside `catch_unwind`: a panic of the checker
//! is a `checker-crash` finding and the job goes on ([`crash`]).
//!
//! - [`oracles`]: explorer-vs-oracle, tileir-weaker-than-ptx, compiler-lowering, pattern-broken,
//!   sync-redundant, reference-disagrees, gpu-forbidden-outcome (through a [`GpuRunner`]), and
//!   their signatures;
//! - [`coverage`]: the coverage features of a checked program;
//! - [`planted`]: deliberately wrong rules for testing the whole loop;
//! - [`service`]: the worker service (leases, heartbeats, careful jobs, reconnects).

pub mod config;
pub mod coverage;
pub mod crash;
mod executor;
pub mod finding;
pub mod oracles;
pub mod planted;
pub mod service;
mod tileiras;

pub use config::{FuzzConfig, GpuConfig, OracleConfig, ProgramBudget, ReferenceConfig};
pub use executor::{Candidate, ConfigError, Executor, FamilyStats, GpuStats, Hooks, Job, JobResult, Stats};
pub use finding::{Finding, Kind, Recheck, Side};
pub use oracles::differential::Compiler;
pub use oracles::gpu::{GpuRunner, LocalGpu};
pub use oracles::reference::{Reference, parse_observation};
pub use planted::PlantedFault;
pub use tileiras::Tileiras;
