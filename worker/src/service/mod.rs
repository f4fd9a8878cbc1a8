//! The worker service (DESIGN §5): leases jobs from a coordinator, runs them on a thread pool
//! sized to its cores, heartbeats while busy, and reports the results. It never touches the
//! corpus: it returns results and the coordinator validates and records them.
//!
//! ```text
//! run(config, runner, shutdown)   the network loop (session.rs), until shutdown
//!   work.rs      JobRunner: what the loop needs of the fuzzing core (generate, check, minimize)
//!   fuzz.rs      FuzzRunner: JobRunner with the crate's Executor and the generator's minimizer
//!   batches.rs   reports within the coordinator's message limit; a refused job's failure report
//!   pool.rs      the checking threads, with a queue jobs can be taken back from
//!   explore.rs   explore jobs: one part of a split exploration, through the checker
//! ```
//!
//! A job whose previous worker was lost comes back `careful`: the worker names each program to
//! the coordinator before checking it, so a program that kills the worker is blamed exactly.

mod batches;
pub mod explore;
mod fuzz;
mod pool;
mod session;
mod work;

pub use fuzz::{FuzzRunner, ReferenceFactory};
pub use session::{Config, Summary, WorkerError, run};
pub use work::{Campaign, Discrepancy, JobError, JobRunner, Output, SeedCandidate, Seeds};
