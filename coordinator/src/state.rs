//! The coordinator's state: campaigns, workers and leases in memory, mirrored from the corpus,
//! which holds the truth (DESIGN §5). Every change goes into the ledger's current
//! [`Update`](tcfuzz_corpus::Update); the ledger answers only after that update is on disk, and
//! reloads this state from the corpus if a batch fails, so memory never runs ahead of the disk.
//!
//! Leasing follows ClusterFuzz: a lease has a deadline, heartbeats move it `lease_ms` ahead, an
//! expired lease puts the job back in the queue. A worker holds at most 2 × its cores leases
//! (syzkaller keeps 2 × procs in flight). A job whose lease was lost twice is not retried: its
//! second holder was told to work `careful`ly, naming each program before checking it, so the
//! coordinator records the program it was on as a `checker-crash` discrepancy (syzkaller's
//! executor blames the program it announced) and queues the rest of the range as new jobs.
//!
//! Campaigns with seed-pool epochs choose their seeds at each epoch's end (`epochs.rs`).
//!
//! ```text
//! settings.rs   Settings, the limits of leasing and blame, the clock              (uses nothing here)
//! failures.rs   jobs recorded as failed, counted per campaign                      (uses nothing here)
//! campaign.rs   one campaign: its Spec, totals, queues, new generation jobs        → failures
//! mirror.rs     State: campaigns, workers, leases; bookkeeping all requests share  → campaign, settings
//! epochs.rs     seed-pool epochs: candidates kept durably, seeds chosen at the end → mirror, campaign
//! legacy.rs     campaigns stored before jobs were bounded: re-split within it      → mirror, campaign
//! load.rs       State::load: rebuilt from the corpus                               → all of the above
//! leasing.rs    Register, LeaseJobs, Heartbeat, SeedPool                           → mirror, campaign, settings
//! recording.rs  ReportResults: exactly-once recording, findings, minimize jobs     → mirror, campaign, epochs
//! admin.rs      the Admin service: campaigns, status, explorations, Minimize       → mirror, campaign, epochs
//! tick.rs       periodic: expired leases and blame, campaigns ending, stats        → mirror, campaign, epochs, legacy
//! ```
//! Imports point down this list only. The request modules (the last five) add `impl State`
//! blocks and call each other's methods (recording a job that could not run stops its campaign;
//! blame records a finding), but import nothing from each other.

mod admin;
mod campaign;
mod epochs;
mod failures;
mod leasing;
mod legacy;
mod load;
mod mirror;
mod recording;
mod settings;
mod tick;

pub use mirror::State;
pub use settings::{MIN_MESSAGE_BYTES, Settings, WORKER_LOST_SIGNATURE, now_ms};
