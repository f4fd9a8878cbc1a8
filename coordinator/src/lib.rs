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
//!   reports.rs   the discrepancy report, on request and on a schedule
//!   ids.rs       job ids as a function of (campaign, class, number)
//!   error.rs     ServiceError and its one mapping to gRPC Status
//! ```
//!
//! # Not yet
//! `Admin.ExploreProgram` (splitting one program's exploration across workers) answers
//! UNIMPLEMENTED until the checker can hand out serialisable subtrees (issue 26 item 10).

mod error;
mod ids;
mod ledger;
mod reports;
mod server;
mod service;
mod state;
mod validate;

pub use error::ServiceError;
pub use reports::ReportSchedule;
pub use server::{Config, ServeError, TlsIdentity, serve};
pub use state::{Settings, WORKER_LOST_SIGNATURE};
pub use validate::{MAX_PROGRAM, kind_to_proto};
