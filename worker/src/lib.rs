//! The worker (DESIGN §5): leases jobs from a coordinator, runs them on a thread pool sized to
//! its cores, heartbeats while busy, and reports the results. It never touches the corpus: it
//! returns results and the coordinator validates and records them.
//!
//! ```text
//! run(config, executor, shutdown)   the network loop (session.rs), until shutdown
//!   work.rs      Executor: what the loop needs of the fuzzing core (generate, check, minimize)
//!   pool.rs      the checking threads, with a queue jobs can be taken back from
//!   interim.rs   InterimExecutor: selftest programs and the explorer, until issue 22's executor
//! ```
//!
//! A job whose previous worker was lost comes back `careful`: the worker names each program to
//! the coordinator before checking it, so a program that kills the worker is blamed exactly.

mod interim;
mod pool;
mod session;
mod work;

pub use interim::InterimExecutor;
pub use session::{Config, Summary, WorkerError, run};
pub use work::{Campaign, Executor, Finding, JobError, Output, SeedCandidate};
