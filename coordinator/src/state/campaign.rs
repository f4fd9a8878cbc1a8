//! One campaign as the coordinator drives it: what it asks for ([`Spec`], stored with the campaign
//! record), its totals, its queued and leased jobs, and the creation of its generation jobs, which
//! are numbered in order (`crate::ids`) and bounded in size.

use std::collections::{BTreeMap, BTreeSet, HashSet, VecDeque};

use serde::{Deserialize, Serialize};
use tcfuzz_corpus::{Campaign, CampaignState, StatsSample, Update, Work};
use tcfuzz_proto::v1;

use super::failures::Failures;
use crate::error::ServiceError;
use crate::ids::{self, Class};
use crate::seeds::Snapshot;
use crate::validate;

/// What a coordinator campaign asks for; stored as JSON in the campaign record's `config`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Spec {
    /// Marks a campaign the coordinator drives (other tools store campaigns too).
    pub tcfuzz_campaign: u32,
    /// The generator configuration, as the user wrote it.
    pub generator: String,
    pub programs: u64,
    pub duration_ms: u64,
    pub job_programs: u64,
    pub program_budget_ms: u64,
    pub minimize_budget_ms: u64,
    /// Programs per seed-pool epoch (`crate::seeds`); 0 (and in campaigns created before
    /// epochs existed) for none.
    #[serde(default)]
    pub pool_epoch: u64,
}

pub(super) const SPEC_VERSION: u32 = 1;
/// Campaign totals are sampled into the corpus's time series at this granularity.
pub(super) const STATS_BUCKET_MS: u64 = 10_000;
/// The window of `programs_per_s`.
pub(super) const RATE_WINDOW_MS: u64 = 10_000;

pub(super) struct CampaignRun {
    pub(super) record: Campaign,
    pub(super) spec: Spec,
    pub(super) totals: StatsSample,
    /// The next program index a new job starts at.
    pub(super) next_index: u64,
    /// With pool epochs: where the current epoch ends (no job is queued at or past it), and the
    /// pool its jobs are generated with.
    pub(super) epoch_end: u64,
    pub(super) pool: Option<Snapshot>,
    /// With pool epochs: the features first reached in the current epoch, and its programs that
    /// reached some (by index, with those features): the seed candidates, which become seeds
    /// when the epoch ends. Mirrored from the corpus.
    pub(super) epoch_new: HashSet<String>,
    pub(super) candidates: BTreeMap<u64, (Vec<String>, Option<String>)>,
    /// Whether the log said that this campaign's epochs are small for its workers.
    pub(super) warned_small_epoch: bool,
    pub(super) generate_jobs: u64,
    pub(super) minimize_jobs: u64,
    pub(super) queued: BTreeSet<u64>,
    pub(super) leased: BTreeSet<u64>,
    pub(super) done: u64,
    pub(super) minimized: u64,
    /// (time, programs) after each recorded job, for the recent rate.
    pub(super) recent: VecDeque<(u64, u64)>,
    pub(super) last_result_ms: u64,
    pub(super) dirty: bool,
    /// Why a job could not run (then the campaign was stopped).
    pub(super) error: Option<String>,
    /// Jobs recorded as failed (their results refused), mirrored from the corpus.
    pub(super) failures: Failures,
}

impl CampaignRun {
    /// A campaign with nothing queued, leased or counted yet beyond `totals`; its jobs, epochs
    /// and failures are added by whoever made it (`load.rs`, `State::create_campaign`).
    pub(super) fn new(record: Campaign, spec: Spec, totals: StatsSample, last_result_ms: u64) -> CampaignRun {
        CampaignRun {
            record,
            spec,
            totals,
            next_index: 0,
            epoch_end: 0,
            pool: None,
            epoch_new: HashSet::new(),
            candidates: BTreeMap::new(),
            warned_small_epoch: false,
            generate_jobs: 0,
            minimize_jobs: 0,
            queued: BTreeSet::new(),
            leased: BTreeSet::new(),
            done: 0,
            minimized: 0,
            recent: VecDeque::new(),
            last_result_ms,
            dirty: false,
            error: None,
            failures: Failures::default(),
        }
    }

    pub(super) fn running(&self) -> bool {
        self.record.state == CampaignState::Running
    }

    /// Whether more generation jobs are to be queued.
    pub(super) fn wants_more(&self, now: u64) -> bool {
        let by_count = self.spec.programs == 0 || self.next_index < self.spec.programs;
        let by_time = self.spec.duration_ms == 0 || now < self.record.created_ms.saturating_add(self.spec.duration_ms);
        self.running() && by_count && by_time
    }

    /// Whether a new generation job may be created now: the campaign wants more programs, and
    /// (with pool epochs) the current epoch has programs left.
    pub(super) fn may_generate(&self, now: u64) -> bool {
        self.wants_more(now) && self.generate_jobs < ids::MAX_NUMBER && (self.spec.pool_epoch == 0 || self.next_index < self.epoch_end)
    }

    /// Whether a generation job is queued or leased.
    pub(super) fn generating(&self) -> bool {
        self.queued.iter().chain(&self.leased).any(|&id| ids::parts(id).1 == Class::Generate)
    }

    /// The seed-pool epoch of program `index` (with pool epochs).
    pub(super) fn epoch_of(&self, index: u64) -> Option<u64> {
        (self.spec.pool_epoch > 0).then(|| index / self.spec.pool_epoch)
    }

    pub(super) fn info(&self, now: u64) -> v1::CampaignInfo {
        let state = match self.record.state {
            CampaignState::Running => v1::CampaignState::Running,
            CampaignState::Stopped => v1::CampaignState::Stopped,
            CampaignState::Finished => v1::CampaignState::Finished,
        };
        let end = if self.running() { now } else { self.last_result_ms.max(self.record.created_ms) };
        let elapsed_ms = end.saturating_sub(self.record.created_ms);
        let rate = match (self.running(), self.recent.front(), self.recent.back()) {
            (true, Some(&(t0, p0)), Some(&(t1, p1))) if t1 > t0 && now.saturating_sub(t1) < RATE_WINDOW_MS => {
                (p1 - p0) as f64 * 1000.0 / (t1 - t0) as f64
            }
            (false, _, _) if elapsed_ms > 0 => self.totals.programs as f64 * 1000.0 / elapsed_ms as f64,
            _ => 0.0,
        };
        v1::CampaignInfo {
            id: self.record.id,
            name: self.record.name.clone(),
            seed: self.record.seed,
            state: state as i32,
            created_unix_ms: self.record.created_ms,
            programs_target: self.spec.programs,
            duration_ms: self.spec.duration_ms,
            stats: Some(v1::Stats {
                programs: self.totals.programs,
                executions: self.totals.executions,
                too_large: self.totals.too_large,
                gpu_ran: self.totals.gpu.ran,
                gpu_instances: self.totals.gpu.instances,
                gpu_unsupported: self.totals.gpu.unsupported,
                gpu_failed: self.totals.gpu.failed,
                gpu_given_up: self.totals.gpu.given_up,
            }),
            discrepancies_total: self.totals.discrepancies_total,
            discrepancies_new: self.totals.discrepancies_new,
            coverage_features: self.totals.coverage_features,
            jobs_queued: self.queued.len() as u64,
            jobs_leased: self.leased.len() as u64,
            jobs_done: self.done,
            minimizations: self.minimize_jobs,
            minimized: self.minimized,
            programs_per_s: rate,
            elapsed_ms,
            error: self.error.clone().unwrap_or_default(),
            jobs_failed: self.failures.count(),
            failed_jobs: self.failures.latest(),
        }
    }
}

pub(super) fn spec_of(c: &Campaign) -> Option<Spec> {
    serde_json::from_str::<Spec>(&c.config).ok().filter(|s| s.tcfuzz_campaign == SPEC_VERSION)
}

/// Queues the campaign's next generation job, of its next `job_programs` programs; returns its id.
pub(super) fn enqueue_generate(u: &mut Update<'_>, run: &mut CampaignRun) -> Result<u64, ServiceError> {
    let mut count = run.spec.job_programs;
    if run.spec.programs != 0 {
        count = count.min(run.spec.programs - run.next_index);
    }
    if run.spec.pool_epoch > 0 {
        // No job crosses an epoch's end.
        count = count.min(run.epoch_end.saturating_sub(run.next_index));
    }
    let first = run.next_index;
    run.next_index += count;
    enqueue_range(u, run, first, count)
}

/// Queues programs `first_index .. first_index + count` (none if `count` is 0) as generation jobs
/// of at most [`validate::MAX_JOB_PROGRAMS`] programs each (a range of a job made before jobs
/// were bounded may be longer, `legacy.rs`).
pub(super) fn enqueue_ranges(u: &mut Update<'_>, run: &mut CampaignRun, first_index: u64, count: u64) -> Result<(), ServiceError> {
    let end = first_index.saturating_add(count);
    let mut at = first_index;
    while at < end {
        let n = (end - at).min(validate::MAX_JOB_PROGRAMS);
        enqueue_range(u, run, at, n)?;
        at += n;
    }
    Ok(())
}

/// Queues a generation job of programs `first_index .. first_index + count`; returns its id.
fn enqueue_range(u: &mut Update<'_>, run: &mut CampaignRun, first_index: u64, count: u64) -> Result<u64, ServiceError> {
    if run.generate_jobs >= ids::MAX_NUMBER {
        // Possibly after other writes: Unavailable abandons the batch.
        return Err(ServiceError::Unavailable(format!("campaign {} has queued its last possible generation job", run.record.id)));
    }
    run.generate_jobs += 1;
    let id = ids::job_id(run.record.id, Class::Generate, run.generate_jobs);
    u.enqueue_job_as(id, run.record.id, Work::Generate { first_index, count })?;
    run.queued.insert(id);
    Ok(id)
}
