//! The coordinator's state: campaigns, workers and leases in memory, mirrored from the corpus,
//! which holds the truth (DESIGN §5). Every change goes into the ledger's current [`Update`];
//! the ledger answers only after that update is on disk, and reloads this state from the corpus
//! if a batch fails, so memory never runs ahead of the disk.
//!
//! Leasing follows ClusterFuzz: a lease has a deadline, heartbeats move it `lease_ms` ahead, an
//! expired lease puts the job back in the queue. A worker holds at most 2 × its cores leases
//! (syzkaller keeps 2 × procs in flight). A job whose lease was lost twice is not retried: its
//! second holder was told to work `careful`ly, naming each program before checking it, so the
//! coordinator records the program it was on as a `checker-crash` discrepancy (syzkaller's
//! executor blames the program it announced) and queues the rest of the range as new jobs.
//!
//! Campaigns with seed-pool epochs choose their seeds at each epoch's end (`epochs.rs`).

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet, VecDeque};

use serde::{Deserialize, Serialize};
use tcfuzz_corpus::{
    Campaign, CampaignState, Checking, Completion, Corpus, Finding, Job, JobState, Kind, Recorded, Side, StatsSample, Update, Work,
};
use tcfuzz_proto::v1;

use crate::error::{ServiceError, invalid};
use crate::explore::Explorations;
use crate::ids::{self, Class};
use crate::seeds::{SeedMirror, Snapshot};
use crate::validate::{self, JobResult, Report};

mod epochs;
mod failures;
mod legacy;
use epochs::{add_epoch_seeds, end_epoch};
use failures::Failures;

/// Lease and queue settings.
#[derive(Clone, Debug)]
pub struct Settings {
    /// How long a lease lasts after it is granted or extended.
    pub lease_ms: u64,
    /// How long a worker that got no job waits before asking again.
    pub idle_retry_ms: u64,
    /// The largest request the worker protocol accepts, in bytes: [`MIN_MESSAGE_BYTES`] to
    /// [`tcfuzz_proto::MAX_MESSAGE_BYTES`] (the default). Workers are told it when they register
    /// and split their reports to fit.
    pub max_message_bytes: usize,
}

/// The smallest [`Settings::max_message_bytes`]: a result with one largest program and verdict
/// must fit, and a failed job's report (`JobResult.refused`) always does.
pub const MIN_MESSAGE_BYTES: usize = 256 << 10;

impl Default for Settings {
    fn default() -> Settings {
        Settings { lease_ms: 30_000, idle_retry_ms: 500, max_message_bytes: tcfuzz_proto::MAX_MESSAGE_BYTES }
    }
}

/// Leases a job gets at most when its workers keep getting lost before it names a program.
const MAX_ATTEMPTS: u32 = 5;

/// The signature of a `checker-crash` found by losing a job's worker twice: the process died, so
/// nothing more is known about the fault (two faults that kill workers share it).
pub const WORKER_LOST_SIGNATURE: &str = "worker-lost-twice";

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

const SPEC_VERSION: u32 = 1;
/// Campaign totals are sampled into the corpus's time series at this granularity.
const STATS_BUCKET_MS: u64 = 10_000;
/// The window of `programs_per_s`.
const RATE_WINDOW_MS: u64 = 10_000;

struct CampaignRun {
    record: Campaign,
    spec: Spec,
    totals: StatsSample,
    /// The next program index a new job starts at.
    next_index: u64,
    /// With pool epochs: where the current epoch ends (no job is queued at or past it), and the
    /// pool its jobs are generated with.
    epoch_end: u64,
    pool: Option<Snapshot>,
    /// With pool epochs: the features first reached in the current epoch, and its programs that
    /// reached some (by index, with those features): the seed candidates, which become seeds
    /// when the epoch ends. Mirrored from the corpus.
    epoch_new: HashSet<String>,
    candidates: BTreeMap<u64, (Vec<String>, String)>,
    /// Whether the log said that this campaign's epochs are small for its workers.
    warned_small_epoch: bool,
    generate_jobs: u64,
    minimize_jobs: u64,
    queued: BTreeSet<u64>,
    leased: BTreeSet<u64>,
    done: u64,
    minimized: u64,
    /// (time, programs) after each recorded job, for the recent rate.
    recent: VecDeque<(u64, u64)>,
    last_result_ms: u64,
    dirty: bool,
    /// Why a job could not run (then the campaign was stopped).
    error: Option<String>,
    /// Jobs recorded as failed (their results refused), mirrored from the corpus.
    failures: Failures,
}

impl CampaignRun {
    fn running(&self) -> bool {
        self.record.state == CampaignState::Running
    }

    /// Whether more generation jobs are to be queued.
    fn wants_more(&self, now: u64) -> bool {
        let by_count = self.spec.programs == 0 || self.next_index < self.spec.programs;
        let by_time = self.spec.duration_ms == 0 || now < self.record.created_ms.saturating_add(self.spec.duration_ms);
        self.running() && by_count && by_time
    }

    /// Whether a new generation job may be created now: the campaign wants more programs, and
    /// (with pool epochs) the current epoch has programs left.
    fn may_generate(&self, now: u64) -> bool {
        self.wants_more(now) && self.generate_jobs < ids::MAX_NUMBER && (self.spec.pool_epoch == 0 || self.next_index < self.epoch_end)
    }

    /// Whether a generation job is queued or leased.
    fn generating(&self) -> bool {
        self.queued.iter().chain(&self.leased).any(|&id| ids::parts(id).1 == Class::Generate)
    }

    /// The seed-pool epoch of program `index` (with pool epochs).
    fn epoch_of(&self, index: u64) -> Option<u64> {
        (self.spec.pool_epoch > 0).then(|| index / self.spec.pool_epoch)
    }

    fn info(&self, now: u64) -> v1::CampaignInfo {
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
            stats: Some(v1::Stats { programs: self.totals.programs, executions: self.totals.executions, too_large: self.totals.too_large }),
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

struct WorkerEntry {
    name: String,
    cores: u32,
    gpu_arch: String,
    max_leases: u32,
    last_seen_ms: u64,
}

/// Everything the ledger thread owns.
pub struct State {
    settings: Settings,
    campaigns: BTreeMap<u64, CampaignRun>,
    workers: HashMap<String, WorkerEntry>,
    /// Job → worker, for every leased job (also of workers not registered since a restart).
    lease_of: HashMap<u64, String>,
    /// Worker → its leased jobs. (What a careful worker is checking is kept with its lease in
    /// the corpus, so that a restart does not forget whom to blame.)
    leases: HashMap<String, BTreeSet<u64>>,
    explorations: Explorations,
    seeds: SeedMirror,
    next_worker: u64,
    /// The campaign the last campaign job was leased from: the next lease starts after it, so
    /// that campaigns take turns (round robin) and a newer one is not starved by an older one.
    last_leased_campaign: u64,
}

/// The time now, in ms since the Unix epoch.
pub fn now_ms() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64)
}

/// A worker id nobody else has: a counter and the process's random hash key.
fn fresh_worker_id(counter: u64) -> String {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u64(counter);
    h.write_u64(now_ms());
    format!("w{counter}-{:016x}", h.finish())
}

fn spec_of(c: &Campaign) -> Option<Spec> {
    serde_json::from_str::<Spec>(&c.config).ok().filter(|s| s.tcfuzz_campaign == SPEC_VERSION)
}

impl State {
    /// Rebuilds the state from the corpus. Leases found there are extended to a full lease from
    /// now, so workers of a restarted coordinator have time to come back.
    pub fn load(corpus: &Corpus, settings: Settings) -> Result<(State, Update<'_>), ServiceError> {
        let now = now_ms();
        let mut campaigns = BTreeMap::new();
        let mut explorations = Explorations::default();
        for record in corpus.campaigns()? {
            if explorations.load_record(&record) {
                continue;
            }
            let Some(spec) = spec_of(&record) else { continue };
            let totals = corpus.stats(record.id)?.into_iter().max_by_key(|s| s.at_ms).unwrap_or_default();
            let run = CampaignRun {
                totals,
                last_result_ms: totals.at_ms,
                spec,
                record,
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
                dirty: false,
                error: None,
                failures: Failures::default(),
            };
            campaigns.insert(run.record.id, run);
        }
        let mut state = State {
            settings,
            campaigns,
            workers: HashMap::new(),
            lease_of: HashMap::new(),
            leases: HashMap::new(),
            explorations,
            seeds: SeedMirror::load(corpus)?,
            next_worker: 1,
            last_leased_campaign: 0,
        };
        let mut leased = Vec::new();
        let mut too_large = Vec::new();
        for job in corpus.jobs()? {
            if state.explorations.load_job(&job)? {
                if let JobState::Leased { worker, .. } = &job.state {
                    leased.push((job.id, worker.clone()));
                }
                continue;
            }
            let Some(run) = state.campaigns.get_mut(&job.campaign) else { continue };
            if legacy::too_large(&job) {
                too_large.push(job.clone());
            }
            let (_, class, number) = ids::parts(job.id);
            match (&job.work, class) {
                (Work::Generate { first_index, count }, Class::Generate) => {
                    run.generate_jobs = run.generate_jobs.max(number);
                    run.next_index = run.next_index.max(first_index.saturating_add(*count));
                }
                (Work::Minimize { kind, signature }, Class::Minimize) => {
                    run.minimize_jobs = run.minimize_jobs.max(number);
                    if matches!(job.state, JobState::Done { .. })
                        && corpus.discrepancy(*kind, signature)?.is_some_and(|d| d.minimized.is_some())
                    {
                        run.minimized += 1;
                    }
                }
                _ => return Err(ServiceError::Unavailable(format!("[tcfuzz internal bug] job {} has work of the other class", job.id))),
            }
            match &job.state {
                JobState::Queued => {
                    run.queued.insert(job.id);
                }
                JobState::Leased { worker, .. } => {
                    run.leased.insert(job.id);
                    leased.push((job.id, worker.clone()));
                }
                JobState::Done { at_ms, failed } => {
                    run.done += 1;
                    if let Some(reason) = failed {
                        run.failures.add(job.id, reason, *at_ms);
                    }
                }
            }
        }
        let mut u = corpus.update()?;
        legacy::resplit(&mut state, &mut u, too_large, now)?;
        epochs::resume(&mut state, corpus, &mut u, now)?;
        let deadline = now + state.settings.lease_ms;
        for (id, worker) in leased {
            u.extend_lease(id, &worker, deadline)?;
            state.leases.entry(worker.clone()).or_default().insert(id);
            state.lease_of.insert(id, worker);
        }
        Ok((state, u))
    }

    fn worker(&mut self, id: &str, now: u64) -> Result<&mut WorkerEntry, ServiceError> {
        let w = self.workers.get_mut(id).ok_or_else(|| ServiceError::UnknownWorker(id.to_string()))?;
        w.last_seen_ms = now;
        Ok(w)
    }

    pub fn register(&mut self, r: v1::RegisterRequest, now: u64) -> Result<v1::RegisterResponse, ServiceError> {
        let ours = tcfuzz_proto::protocol_version();
        let major_minor = |v: &str| v.split('.').take(2).collect::<Vec<_>>().join(".");
        if major_minor(&r.version) != major_minor(ours) {
            return Err(ServiceError::VersionMismatch { worker: r.version, coordinator: ours.to_string() });
        }
        let id = if r.resume_worker_id.is_empty() {
            self.next_worker += 1;
            fresh_worker_id(self.next_worker)
        } else {
            r.resume_worker_id
        };
        let max_leases = 2 * r.cores;
        tracing::info!(worker = %id, name = %r.name, cores = r.cores, "worker registered");
        self.workers.insert(id.clone(), WorkerEntry { name: r.name, cores: r.cores, gpu_arch: r.gpu_arch, max_leases, last_seen_ms: now });
        self.warn_small_epochs();
        Ok(v1::RegisterResponse {
            worker_id: id,
            max_leases,
            lease_ms: self.settings.lease_ms,
            heartbeat_ms: (self.settings.lease_ms / 3).max(1),
            max_message_bytes: self.settings.max_message_bytes as u64,
        })
    }

    pub fn lease(
        &mut self,
        u: &mut Update<'_>,
        corpus: &Corpus,
        r: v1::LeaseJobsRequest,
        now: u64,
    ) -> Result<v1::LeaseJobsResponse, ServiceError> {
        let max_leases = self.worker(&r.worker_id, now)?.max_leases;
        let held = self.leases.get(&r.worker_id).map_or(0, BTreeSet::len) as u32;
        let room = max_leases.saturating_sub(held).min(r.max_jobs);
        let deadline = now + self.settings.lease_ms;
        let mut jobs = Vec::new();
        while (jobs.len() as u32) < room {
            let job = match self.explorations.next_queued() {
                Some(part) => u.lease_job(part, &r.worker_id, deadline)?.ok_or_else(|| {
                    ServiceError::Unavailable(format!("[tcfuzz internal bug] exploration part {part} is not queued in the corpus"))
                })?,
                None => match self.next_campaign_job(u, now)? {
                    Some(id) => u
                        .lease_job(id, &r.worker_id, deadline)?
                        .ok_or_else(|| ServiceError::Unavailable(format!("[tcfuzz internal bug] job {id} is not queued in the corpus")))?,
                    None => break,
                },
            };
            if self.explorations.contains(job.campaign) {
                jobs.push(self.explorations.leased(&job)?);
                self.lease_of.insert(job.id, r.worker_id.clone());
                self.leases.entry(r.worker_id.clone()).or_default().insert(job.id);
                continue;
            }
            let Some(run) = self.campaigns.get_mut(&job.campaign) else {
                // A job of a campaign this coordinator does not drive: never handed out.
                u.cancel_job(job.id, now)?;
                continue;
            };
            run.queued.remove(&job.id);
            run.leased.insert(job.id);
            self.lease_of.insert(job.id, r.worker_id.clone());
            self.leases.entry(r.worker_id.clone()).or_default().insert(job.id);
            jobs.push(to_proto_job(&job, &run.spec, run.record.seed, corpus)?);
        }
        let retry_after_ms = if jobs.is_empty() { self.settings.idle_retry_ms } else { 0 };
        Ok(v1::LeaseJobsResponse { jobs, deadline_unix_ms: deadline, retry_after_ms })
    }

    /// The job to lease next from the campaigns, taking turns: the campaign after the last one
    /// leased from, wrapping around, that has a queued job or wants a new one. Within a campaign
    /// queued jobs go in id order (minimization before generation, a requeued job before new
    /// ones). A new generation job is created here, as it is leased: created in the same update
    /// it costs two writes (its record and its lease deadline), not five (`Update::lease_job`).
    fn next_campaign_job(&mut self, u: &mut Update<'_>, now: u64) -> Result<Option<u64>, ServiceError> {
        use std::ops::Bound::{Excluded, Unbounded};
        let after = self.last_leased_campaign;
        let mut turn = self.campaigns.range((Excluded(after), Unbounded)).chain(self.campaigns.range(..=after));
        let Some(id) = turn.find(|(_, run)| !run.queued.is_empty() || run.may_generate(now)).map(|(&id, _)| id) else {
            return Ok(None);
        };
        self.last_leased_campaign = id;
        let run =
            self.campaigns.get_mut(&id).ok_or_else(|| ServiceError::Unavailable("[tcfuzz internal bug] a campaign vanished".into()))?;
        match run.queued.first() {
            Some(&job) => Ok(Some(job)),
            None => enqueue_generate(u, run).map(Some),
        }
    }

    pub fn heartbeat(
        &mut self,
        u: &mut Update<'_>,
        corpus: &Corpus,
        r: v1::HeartbeatRequest,
        now: u64,
    ) -> Result<v1::HeartbeatResponse, ServiceError> {
        self.worker(&r.worker_id, now)?;
        let deadline = now + self.settings.lease_ms;
        let owned = |id: &u64| self.lease_of.get(id).is_some_and(|w| *w == r.worker_id);
        if let Some(c) = &r.checking {
            if !owned(&c.job_id) {
                return Err(invalid!("checking.job_id: job {} is not leased to this worker", c.job_id));
            }
            let job = corpus.job(c.job_id)?.ok_or_else(|| invalid!("checking.job_id: no job {}", c.job_id))?;
            match job.work {
                Work::Generate { first_index, count } if (first_index..first_index + count).contains(&c.index) => {}
                _ => return Err(invalid!("checking.index: program {} is not in job {}'s range", c.index, c.job_id)),
            }
        }
        let (kept, dropped): (Vec<u64>, Vec<u64>) = r.job_ids.iter().partition(|id| owned(id));
        for &id in &kept {
            u.extend_lease(id, &r.worker_id, deadline)?;
        }
        if let Some(c) = r.checking {
            u.set_checking(c.job_id, &r.worker_id, Checking { index: c.index, program: c.program })?;
        }
        Ok(v1::HeartbeatResponse { dropped_job_ids: dropped, deadline_unix_ms: deadline })
    }

    /// Checks every result against its job, then records them: nothing of an inconsistent
    /// report is written.
    pub fn report(&mut self, u: &mut Update<'_>, corpus: &Corpus, r: Report, now: u64) -> Result<v1::ReportResultsResponse, ServiceError> {
        self.worker(&r.worker_id, now)?;
        let mut jobs = Vec::with_capacity(r.results.len());
        for (i, result) in r.results.iter().enumerate() {
            let job = corpus.job(result.job_id)?.ok_or_else(|| invalid!("results[{i}].job_id: no job {}", result.job_id))?;
            validate::matches_job(result, &job.work, &format!("results[{i}]"))?;
            self.explorations.check_result(result, job.campaign, &format!("results[{i}]"))?;
            jobs.push(job);
        }
        for id in &r.returned {
            corpus.job(*id)?.ok_or_else(|| invalid!("returned_job_ids: no job {id}"))?;
        }
        let mut acks = Vec::with_capacity(jobs.len());
        for (result, job) in r.results.into_iter().zip(jobs) {
            let completion = match (&result.refused, &result.part) {
                (Some(reason), _) => u.fail_job(job.id, reason, now)?,
                (None, Some(part)) => u.record_part(job.id, &Explorations::stored(part), now)?,
                (None, None) => u.complete_job(job.id, now)?,
            };
            let recording = match completion {
                Completion::AlreadyDone => v1::Recording::AlreadyRecorded,
                Completion::Recorded if self.explorations.contains(job.campaign) => {
                    self.unlease(job.id);
                    self.explorations.recorded(u, &job, &result, now)?;
                    v1::Recording::Recorded
                }
                Completion::Recorded => {
                    self.job_done(job.id, job.campaign);
                    self.record(u, &job, result, now)?;
                    if let Some(run) = self.campaigns.get_mut(&job.campaign) {
                        end_epoch(run, &mut self.seeds, u, now)?;
                    }
                    v1::Recording::Recorded
                }
            };
            acks.push(v1::JobAck { job_id: job.id, recording: recording as i32 });
        }
        for id in r.returned {
            if u.return_job(id, &r.worker_id)? {
                self.unlease(id);
                if let Some(job) = corpus.job(id)?.filter(|j| self.explorations.contains(j.campaign)) {
                    self.explorations.requeued(u, &job, false, now)?;
                } else if let Some(run) = self.campaigns.get_mut(&ids::parts(id).0) {
                    run.leased.remove(&id);
                    run.queued.insert(id);
                }
            }
        }
        Ok(v1::ReportResultsResponse { acks })
    }

    fn unlease(&mut self, id: u64) {
        if let Some(w) = self.lease_of.remove(&id)
            && let Some(set) = self.leases.get_mut(&w)
        {
            set.remove(&id);
            if set.is_empty() {
                self.leases.remove(&w);
            }
        }
    }

    /// Bookkeeping of a job that is now done.
    fn job_done(&mut self, id: u64, campaign: u64) {
        self.unlease(id);
        if let Some(run) = self.campaigns.get_mut(&campaign) {
            run.queued.remove(&id);
            run.leased.remove(&id);
            run.done += 1;
        }
    }

    fn record(&mut self, u: &mut Update<'_>, job: &Job, r: JobResult, now: u64) -> Result<(), ServiceError> {
        if let Some(reason) = r.refused {
            // Not the program's fault and not the campaign's: the job alone is lost (proto,
            // `JobResult.refused`).
            tracing::error!(job = job.id, campaign = job.campaign, "job recorded as failed, its results refused: {reason}");
            if let Some(run) = self.campaigns.get_mut(&job.campaign) {
                run.failures.add(job.id, &reason, now);
                run.last_result_ms = now;
            }
            return Ok(());
        }
        if let Some(error) = r.error {
            // The same job would fail on every worker: stop the campaign, say why.
            tracing::error!(job = job.id, campaign = job.campaign, "a job could not run: {error}");
            if let Some(run) = self.campaigns.get_mut(&job.campaign) {
                run.error.get_or_insert(format!("job {} could not run: {error}", job.id));
                self.stop_campaign(u, job.campaign, now)?;
            }
            return Ok(());
        }
        let Some(run) = self.campaigns.get_mut(&job.campaign) else { return Ok(()) };
        run.dirty = true;
        run.last_result_ms = now;
        run.totals.programs += r.programs;
        run.totals.executions += r.executions;
        run.totals.too_large += r.too_large;
        run.recent.push_back((now, run.totals.programs));
        while run.recent.front().is_some_and(|&(t, _)| now.saturating_sub(t) > RATE_WINDOW_MS) {
            run.recent.pop_front();
        }
        let mut new_features = BTreeSet::new();
        for (name, n) in &r.coverage {
            if u.add_coverage_counts(&[(name.clone(), *n)], now)? == 1 {
                new_features.insert(name.as_str());
            }
            self.seeds.reached(name, *n);
        }
        run.totals.coverage_features += new_features.len() as u64;
        if run.spec.pool_epoch > 0 && run.running() {
            epochs::keep_candidates(u, run, &new_features, &r.seeds)?;
        } else {
            // No epochs (or a stopped campaign's late report): as `tcfuzz fuzz` does, in index
            // order, a candidate becomes a seed with the features no earlier program reached.
            let mut seeds: Vec<&validate::SeedCandidate> = r.seeds.iter().collect();
            seeds.sort_by_key(|s| s.index);
            for s in seeds {
                let new: Vec<String> = s.features.iter().filter(|f| new_features.remove(f.as_str())).cloned().collect();
                if !new.is_empty()
                    && let Some(id) = u.add_seed(job.campaign, now, &new, &s.program)?
                {
                    self.seeds.added(id, new, &s.program);
                }
            }
        }
        if let (Work::Minimize { kind, signature }, Some(program)) = (&job.work, &r.minimized) {
            u.set_minimized(*kind, signature, program)?;
            run.minimized += 1;
        }
        let campaign = job.campaign;
        for f in r.findings {
            let finding = Finding { kind: f.kind, signature: f.signature, campaign, seen_ms: now, program: f.program, sides: f.sides };
            self.record_finding(u, finding)?;
        }
        Ok(())
    }

    /// Records one finding; a new signature queues its minimization.
    fn record_finding(&mut self, u: &mut Update<'_>, f: Finding) -> Result<(), ServiceError> {
        let recorded = u.record_discrepancy(&f)?;
        let Some(run) = self.campaigns.get_mut(&f.campaign) else { return Ok(()) };
        run.totals.discrepancies_total += 1;
        run.dirty = true;
        if recorded == Recorded::New {
            run.totals.discrepancies_new += 1;
            tracing::info!(kind = %f.kind, signature = %f.signature, "new discrepancy");
            // A program that kills its worker would kill the minimizer's worker too.
            if !(f.kind == Kind::CheckerCrash && f.signature == WORKER_LOST_SIGNATURE) {
                self.enqueue_minimize(u, f.campaign, f.kind, f.signature)?;
            }
        }
        Ok(())
    }

    fn enqueue_minimize(&mut self, u: &mut Update<'_>, campaign: u64, kind: Kind, signature: String) -> Result<u64, ServiceError> {
        let run = self.campaigns.get_mut(&campaign).ok_or_else(|| ServiceError::NotFound(format!("no campaign {campaign}")))?;
        if run.minimize_jobs >= ids::MAX_NUMBER {
            return Err(invalid!("campaign {campaign} has queued its last possible minimization job"));
        }
        run.minimize_jobs += 1;
        let id = ids::job_id(campaign, Class::Minimize, run.minimize_jobs);
        u.enqueue_job_as(id, campaign, Work::Minimize { kind, signature })?;
        run.queued.insert(id);
        Ok(id)
    }

    pub fn create_campaign(
        &mut self,
        u: &mut Update<'_>,
        r: v1::CreateCampaignRequest,
        now: u64,
    ) -> Result<v1::CreateCampaignResponse, ServiceError> {
        let (job_programs, program_budget_ms, minimize_budget_ms) = validate::create_campaign(&r)?;
        let spec = Spec {
            tcfuzz_campaign: SPEC_VERSION,
            generator: r.config,
            programs: r.programs,
            duration_ms: r.duration_ms,
            job_programs,
            program_budget_ms,
            minimize_budget_ms,
            pool_epoch: r.pool_epoch,
        };
        let config = serde_json::to_string(&spec).map_err(|e| ServiceError::Unavailable(format!("[tcfuzz internal bug] {e}")))?;
        let record = Campaign { id: 0, name: r.name, seed: r.seed, config, created_ms: now, state: CampaignState::Running };
        let id = u.put_campaign(&record)?;
        if id > ids::MAX_CAMPAIGN {
            // After a write: Unavailable abandons the batch.
            return Err(ServiceError::Unavailable(format!("this corpus has used every campaign id up to {}", ids::MAX_CAMPAIGN)));
        }
        let totals = StatsSample { at_ms: now, ..StatsSample::default() };
        u.add_stats(id, &totals)?;
        tracing::info!(campaign = id, name = %record.name, "campaign created");
        let mut run = CampaignRun {
            record: Campaign { id, ..record },
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
            last_result_ms: now,
            dirty: false,
            error: None,
            failures: Failures::default(),
        };
        end_epoch(&mut run, &mut self.seeds, u, now)?;
        self.campaigns.insert(id, run);
        self.warn_small_epochs();
        Ok(v1::CreateCampaignResponse { campaign: id })
    }

    pub fn stop_campaign(&mut self, u: &mut Update<'_>, id: u64, now: u64) -> Result<v1::StopCampaignResponse, ServiceError> {
        let run = self.campaigns.get_mut(&id).ok_or_else(|| ServiceError::NotFound(format!("no campaign {id}")))?;
        if run.running() {
            for job in std::mem::take(&mut run.queued) {
                u.cancel_job(job, now)?;
                run.done += 1;
            }
            if run.spec.pool_epoch > 0 {
                // What the epoch found so far becomes seeds, as when `tcfuzz fuzz` is stopped.
                add_epoch_seeds(run, &mut self.seeds, u, now)?;
                u.remove_pool_epoch(id);
            }
            run.record.state = CampaignState::Stopped;
            u.put_campaign(&run.record)?;
            tracing::info!(campaign = id, "campaign stopped");
        }
        Ok(v1::StopCampaignResponse { campaign: Some(run.info(now)) })
    }

    pub fn status(&self, campaign: u64, now: u64) -> Result<v1::CampaignStatusResponse, ServiceError> {
        let campaigns = if campaign == 0 {
            self.campaigns.values().map(|c| c.info(now)).collect()
        } else {
            vec![self.campaigns.get(&campaign).ok_or_else(|| ServiceError::NotFound(format!("no campaign {campaign}")))?.info(now)]
        };
        let mut workers: Vec<v1::WorkerInfo> = self
            .workers
            .iter()
            .filter(|(_, w)| now.saturating_sub(w.last_seen_ms) <= self.settings.lease_ms)
            .map(|(id, w)| v1::WorkerInfo {
                worker_id: id.clone(),
                name: w.name.clone(),
                cores: w.cores,
                gpu_arch: w.gpu_arch.clone(),
                leases: self.leases.get(id).map_or(0, BTreeSet::len) as u32,
                last_seen_unix_ms: w.last_seen_ms,
            })
            .collect();
        workers.sort_by(|a, b| a.worker_id.cmp(&b.worker_id));
        Ok(v1::CampaignStatusResponse { campaigns, workers })
    }

    /// The seeds a leased job of `r.epoch` is generated with.
    pub fn seed_pool(&mut self, r: &v1::SeedPoolRequest, now: u64) -> Result<Snapshot, ServiceError> {
        self.worker(&r.worker_id, now)?;
        let run = self.campaigns.get(&r.campaign).ok_or_else(|| ServiceError::NotFound(format!("no campaign {}", r.campaign)))?;
        let (Some(pool), Some(current)) = (&run.pool, run.epoch_of(run.epoch_end.saturating_sub(1))) else {
            return Err(ServiceError::Outdated(format!("campaign {} has no seed-pool epoch {} now", r.campaign, r.epoch)));
        };
        if r.epoch != current {
            return Err(ServiceError::Outdated(format!("campaign {} is at seed-pool epoch {current}, not {}", r.campaign, r.epoch)));
        }
        Ok(pool.clone())
    }

    pub fn explore_program(
        &mut self,
        u: &mut Update<'_>,
        r: v1::ExploreProgramRequest,
        now: u64,
    ) -> Result<v1::ExploreProgramResponse, ServiceError> {
        self.explorations.create(u, r, now)
    }

    pub fn exploration_status(&self, id: u64) -> Result<v1::ExplorationStatusResponse, ServiceError> {
        self.explorations.status(id)
    }

    pub fn minimize(
        &mut self,
        u: &mut Update<'_>,
        corpus: &Corpus,
        kind: Kind,
        signature: String,
    ) -> Result<v1::MinimizeResponse, ServiceError> {
        let d = corpus
            .discrepancy(kind, &signature)?
            .ok_or_else(|| ServiceError::NotFound(format!("no discrepancy `{kind}` / `{signature}`")))?;
        let campaign = d.campaigns.iter().rev().copied().find(|c| self.campaigns.contains_key(c)).ok_or_else(|| {
            invalid!(
                "discrepancy `{kind}` / `{signature}` was found by no campaign of this coordinator; minimize it with `tcfuzz minimize`"
            )
        })?;
        let job_id = self.enqueue_minimize(u, campaign, kind, signature)?;
        Ok(v1::MinimizeResponse { job_id })
    }

    /// The periodic work: expired leases, blame, topping up queues, ending campaigns, and the
    /// stats samples of campaigns that changed.
    pub fn tick(&mut self, u: &mut Update<'_>, now: u64) -> Result<(), ServiceError> {
        for job in u.requeue_expired(now)? {
            let id = job.id;
            let checking = match &job.state {
                JobState::Leased { checking, .. } => checking.clone(),
                _ => None,
            };
            let worker = self.lease_of.get(&id).cloned().unwrap_or_default();
            self.unlease(id);
            if self.explorations.contains(job.campaign) {
                // A part names no program: it goes back, up to a bound, like a careful job that
                // named none.
                tracing::warn!(job = id, worker = %worker, attempts = job.attempts, "lease of an exploration part expired; it goes back to the queue");
                self.explorations.requeued(u, &job, job.attempts >= MAX_ATTEMPTS, now)?;
                continue;
            }
            if let Some(run) = self.campaigns.get_mut(&job.campaign) {
                run.leased.remove(&id);
                if !run.running() {
                    // Its campaign was stopped meanwhile: not handed out again.
                    u.cancel_job(id, now)?;
                    run.done += 1;
                    continue;
                }
                run.queued.insert(id);
            }
            // A careful job that named no program never started: whatever killed its worker was
            // another job's (a worker holds several); it goes back, up to a bound.
            if job.attempts < 2 || (checking.is_none() && job.attempts < MAX_ATTEMPTS) {
                tracing::warn!(job = id, worker = %worker, attempts = job.attempts, "lease expired; the job goes back to the queue");
                if let (true, Some(run)) = (legacy::too_large(&job), self.campaigns.get_mut(&job.campaign)) {
                    legacy::split(u, run, &job, now)?;
                }
                continue;
            }
            self.blame(u, &job, checking, now)?;
        }
        // Workers unheard of for three leases are forgotten (their leases expire on their own).
        let forget_after = 3 * self.settings.lease_ms;
        self.workers.retain(|_, w| now.saturating_sub(w.last_seen_ms) <= forget_after);
        let ids: Vec<u64> = self.campaigns.keys().copied().collect();
        for id in ids {
            self.end_if_over(u, id, now)?;
        }
        for run in self.campaigns.values_mut().filter(|r| r.dirty) {
            run.dirty = false;
            let bucket = (now - now % STATS_BUCKET_MS).max(run.totals.at_ms);
            run.totals.at_ms = bucket;
            u.add_stats(run.record.id, &run.totals)?;
        }
        Ok(())
    }

    /// A job lost twice, the second time while checking a program it named: that program is a
    /// `checker-crash`, and the rest of its range is queued again as new jobs. A job lost
    /// [`MAX_ATTEMPTS`] times without naming a program is dropped.
    fn blame(&mut self, u: &mut Update<'_>, job: &Job, checking: Option<Checking>, now: u64) -> Result<(), ServiceError> {
        u.complete_job(job.id, now)?;
        self.job_done(job.id, job.campaign);
        let (Work::Generate { first_index, count }, Some(Checking { index, program })) = (&job.work, checking) else {
            tracing::error!(job = job.id, work = ?job.work, attempts = job.attempts, "job lost its worker too often without naming a program; dropped");
            return Ok(());
        };
        tracing::error!(job = job.id, index, "job lost its worker twice; blaming program {index}");
        let end = first_index + count;
        let finding = Finding {
            kind: Kind::CheckerCrash,
            signature: WORKER_LOST_SIGNATURE.to_string(),
            campaign: job.campaign,
            seen_ms: now,
            program,
            sides: [
                Side {
                    name: "worker".into(),
                    verdict: format!("died (or was cut off) while checking program {index} of job {}, twice", job.id),
                },
                Side { name: "expected".into(), verdict: "a verdict".into() },
            ],
        };
        if let Some(run) = self.campaigns.get_mut(&job.campaign) {
            run.totals.programs += 1;
            run.dirty = true;
        }
        self.record_finding(u, finding)?;
        if let Some(run) = self.campaigns.get_mut(&job.campaign) {
            enqueue_ranges(u, run, *first_index, index - first_index)?;
            enqueue_ranges(u, run, index + 1, end.saturating_sub(index + 1))?;
        }
        Ok(())
    }

    /// Drops the queued generation jobs of a campaign whose time is up, and marks a campaign
    /// finished once it wants no more jobs and none is queued or leased. (New generation jobs
    /// are created as they are leased, `State::next_campaign_job`.)
    fn end_if_over(&mut self, u: &mut Update<'_>, campaign: u64, now: u64) -> Result<(), ServiceError> {
        let Some(run) = self.campaigns.get_mut(&campaign) else { return Ok(()) };
        if !run.running() {
            return Ok(());
        }
        let duration_over = run.spec.duration_ms != 0 && now >= run.record.created_ms.saturating_add(run.spec.duration_ms);
        if duration_over {
            // Time is up: queued generation jobs are dropped, leased ones may still report.
            let generate: Vec<u64> = run.queued.iter().copied().filter(|&id| ids::parts(id).1 == Class::Generate).collect();
            for id in generate {
                u.cancel_job(id, now)?;
                run.queued.remove(&id);
                run.done += 1;
            }
        }
        end_epoch(run, &mut self.seeds, u, now)?;
        if !run.wants_more(now) && run.queued.is_empty() && run.leased.is_empty() {
            run.record.state = CampaignState::Finished;
            u.put_campaign(&run.record)?;
            if run.spec.pool_epoch > 0 {
                u.remove_pool_epoch(campaign);
            }
            run.dirty = true;
            match run.failures.last() {
                None => tracing::info!(campaign, programs = run.totals.programs, "campaign finished"),
                Some(last) => tracing::warn!(
                    campaign,
                    programs = run.totals.programs,
                    failed_jobs = run.failures.count(),
                    "campaign finished with failed jobs, whose programs are not recorded; the last, job {}: {}",
                    last.job_id,
                    last.reason
                ),
            }
        }
        Ok(())
    }
}

/// Queues the campaign's next generation job, of its next `job_programs` programs; returns its id.
fn enqueue_generate(u: &mut Update<'_>, run: &mut CampaignRun) -> Result<u64, ServiceError> {
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
fn enqueue_ranges(u: &mut Update<'_>, run: &mut CampaignRun, first_index: u64, count: u64) -> Result<(), ServiceError> {
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

fn to_proto_job(job: &Job, spec: &Spec, seed: u64, corpus: &Corpus) -> Result<v1::Job, ServiceError> {
    let work = match &job.work {
        Work::Explore { .. } => {
            return Err(ServiceError::Unavailable(format!("[tcfuzz internal bug] explore job {} of campaign {}", job.id, job.campaign)));
        }
        Work::Generate { first_index, count } => v1::job::Work::Generate(v1::GenerateWork {
            first_index: *first_index,
            count: *count,
            pool_epoch: (spec.pool_epoch > 0).then(|| first_index / spec.pool_epoch),
        }),
        Work::Minimize { kind, signature } => {
            let d = corpus.discrepancy(*kind, signature)?.ok_or_else(|| {
                ServiceError::Unavailable(format!("[tcfuzz internal bug] job {} minimizes a missing discrepancy", job.id))
            })?;
            v1::job::Work::Minimize(v1::MinimizeWork {
                kind: validate::kind_to_proto(*kind) as i32,
                signature: signature.clone(),
                program: d.program,
                budget_ms: spec.minimize_budget_ms,
            })
        }
    };
    Ok(v1::Job {
        id: job.id,
        campaign: job.campaign,
        seed,
        config: spec.generator.clone(),
        program_budget_ms: spec.program_budget_ms,
        careful: job.attempts >= 2,
        work: Some(work),
    })
}
