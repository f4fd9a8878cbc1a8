//! The tcfuzz corpus (DESIGN §6): discrepancies by signature, coverage seeds, campaigns with their
//! stats over time, coverage feature counts, and the coordinator's jobs and leases, in sled.
//!
//! ```text
//! Corpus::open(dir)            create or open; schema version and acknowledged commits checked
//! corpus.update()              an Update: record_discrepancy, add_seed, add_coverage(_counts), put_campaign,
//!   .commit()                  add_stats, enqueue_job(_as), lease_next, extend_lease, return_job,
//!                              cancel_job, complete_job, requeue_expired, ... then commit:
//!                              applied atomically, on disk when commit returns
//! corpus.discrepancies(), seeds(), campaigns(), stats(id), coverage(), jobs()   reads
//! put_pool_epoch, add_seed_candidate, pool_epoch(id), seed_candidates(id)
//!                              a coordinator's seed-pool epoch in progress (`epochs.rs`)
//! corpus.check()               verify every record (`tcfuzz corpus check`)
//! corpus.export(dir), import(dir)   plain files: litmus text + corpus.json
//! ```
//!
//! # Storage
//! The engine sits behind [`store::Store`] (Garage's lesson: sled can be swapped with one
//! adapter; the storage test suite runs against every engine). Keys are big-endian byte strings;
//! every value starts with a format version byte and ends with a CRC-32 ([`codec`]); the schema
//! version is stored in tree `meta` and checked at open.
//!
//! # Durability
//! sled fsyncs only periodically by default and has open reports of corruption after abrupt
//! stops, so [`Update::commit`] flushes before it returns, then counts the commit in an
//! acknowledgement file beside the database (`acked.rs`): a database that comes back shorter
//! than what was acknowledged (a truncated or damaged file that sled's recovery quietly cut) is
//! refused with [`CorpusError::LostWrites`] instead of opened. A kill -9 test proves that every
//! acknowledged record survives (`tests/durability.rs`). Damaged records are errors naming the
//! tree and key, never panics and never skipped.
//!
//! Callers on an async runtime run commits on a blocking thread (`spawn_blocking`): a commit
//! waits for an fsync.
//!
//! # Not yet
//! Reports are stored as what they listed (the next report's baseline), not as rendered files,
//! and are not exported; import only fills an empty
//! corpus (no merging of two corpora); migrations of older value versions do not exist because
//! there is only version 1.

mod acked;
mod check;
pub mod codec;
mod corpus;
mod epochs;
mod error;
mod export;
mod jobs;
mod records;
pub mod store;

pub use check::CheckReport;
pub use corpus::{Corpus, Recorded, SCHEMA_VERSION, Update};
pub use epochs::{PoolEpoch, SeedCandidate};
pub use error::{CorpusError, Result};
pub use export::Moved;
pub use jobs::Completion;
pub use records::{
    Campaign, CampaignState, Checking, Discrepancy, FeatureCount, Finding, GpuTotals, Job, JobState, Kind, ReportRecord, Seed, Side,
    StatsSample, UnknownKind, Work,
};
