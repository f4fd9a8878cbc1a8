//! The coordinator (DESIGN §5): hands out jobs to workers over gRPC and records their results in
//! the corpus exactly once. It schedules and records; it never checks (it does not link the
//! checker), and it trusts no worker: every message is validated before it touches the corpus.
//!
//! ```text
//! serve(corpus, listener, config, shutdown)    both services + health on one port, until shutdown
//!   service.rs   tonic handlers: validate, hand to the ledger, answer
//!   validate.rs  sizes, enum values, programs that parse, counts that agree
//!   ledger.rs    the one writer thread: batches ops into one corpus update (group commit) and
//!                answers only after the flush
//!   state.rs     campaigns, workers, leases, blame; mirrored from the corpus, which holds the truth
//!     settings.rs  lease and message-size settings, the limits of blame, the clock
//!     campaign.rs  one campaign: its spec, totals, queues, and new generation jobs
//!     mirror.rs  the State the ledger owns, and the bookkeeping all requests share
//!     load.rs    the state rebuilt from the corpus at start
//!     leasing.rs  Register, LeaseJobs, Heartbeat, SeedPool
//!     recording.rs  ReportResults: exactly-once recording, findings, minimization jobs
//!     admin.rs   the Admin service's campaigns, status, explorations and Minimize
//!     tick.rs    expired leases and blame, campaigns ending, stats samples
//!     epochs.rs  seed-pool epochs: candidates kept durably, seeds chosen in index order at the end
//!     failures.rs  jobs recorded as failed (their results refused), counted per campaign
//!     legacy.rs  campaigns stored before jobs were bounded: re-split within the bound
//!   seeds.rs     the coverage seed pool, snapshotted per epoch for the workers
//!   explore.rs   split explorations: one job per subtree, the parts' verdicts kept as data
//!   reports.rs   the discrepancy report, on request and on a schedule
//!   ids.rs       job ids as a function of (campaign, class, number)
//!   error.rs     ServiceError and its one mapping to gRPC Status
//! ```
//!
//! # Split exploration
//! `Admin.ExploreProgram` takes subtrees the client's checker cut (the coordinator does not link
//! the checker), queues one job per subtree, and `Admin.ExplorationStatus` returns the parts'
//! verdicts as data once all are recorded; the client merges them with its checker.

mod error;
mod explore;
mod ids;
mod ledger;
mod reports;
mod seeds;
mod server;
mod service;
mod state;
mod validate;

pub use error::ServiceError;
pub use reports::ReportSchedule;
pub use server::{Config, ServeError, TlsIdentity, serve};
pub use state::{MIN_MESSAGE_BYTES, Settings, WORKER_LOST_SIGNATURE};
pub use validate::{MAX_PROGRAM, kind_to_proto};
