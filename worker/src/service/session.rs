//! The worker's network loop: register, lease, run jobs on the pool, heartbeat, report; reconnect
//! with exponential backoff and jitter when the coordinator is away, keeping finished results
//! until they are acknowledged; on stop, hand back what has not started and finish (or hand
//! back) what has.

use std::collections::{BTreeSet, HashMap};
use std::future::Future;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use tcfuzz_proto::connect::{self, ConnectError, Target};
use tcfuzz_proto::v1::{self, job::Work};
use tokio::sync::{mpsc, oneshot};
use tokio::time::{Instant, sleep_until};
use tonic::{Code, Status};

use super::batches;
use super::pool::Pool;
use super::work::{Campaign, JobError, JobRunner, Output, Seeds};

/// How a worker runs.
#[derive(Clone, Debug)]
pub struct Config {
    pub target: Target,
    /// Threads checking programs (and the cores announced to the coordinator).
    pub cores: usize,
    /// A name for people (host name); may be empty.
    pub name: String,
    /// The GPU architecture programs can run on, empty for none.
    pub gpu_arch: String,
    /// On stop: how long running jobs may take to finish before they are handed back.
    pub grace: Duration,
}

/// What a worker did, when it stops.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    /// Jobs whose results the coordinator recorded (not counting late duplicates nor failed
    /// jobs).
    pub jobs_recorded: u64,
    /// Jobs whose results the coordinator had recorded from another worker already.
    pub jobs_already_recorded: u64,
    /// Jobs reported as failed: the coordinator refused their results for good, or they were
    /// over its message limit (proto `JobResult.refused`).
    pub jobs_failed: u64,
    /// `ReportResults` calls with results that the coordinator acknowledged.
    pub reports: u64,
    /// Of the calls with results, those refused for good (then each result of the batch is sent
    /// alone, and one refused alone is reported as failed).
    pub reports_refused: u64,
    pub programs: u64,
    /// Jobs handed back unstarted or unfinished.
    pub jobs_handed_back: u64,
    /// Times the coordinator was lost and found again.
    pub reconnects: u64,
}

/// Why a worker gave up.
#[derive(Debug, thiserror::Error)]
pub enum WorkerError {
    #[error(transparent)]
    Connect(#[from] ConnectError),
    /// The coordinator refused this worker for good (wrong token, other version, a request it
    /// calls invalid).
    #[error("the coordinator refused this worker: {0}")]
    Refused(String),
    #[error("cannot start the worker's threads: {0}")]
    Threads(std::io::Error),
}

/// What the pool's threads tell the loop, besides finished results (which come on a channel of
/// their own, so that the loop can take every one waiting into its next report).
enum FromPool {
    /// A careful job is about to check `index`: name it to the coordinator first. The answer is
    /// `false` when the job is no longer ours.
    Naming { job_id: u64, index: u64, program: String, reply: oneshot::Sender<bool> },
    /// The runner panicked outside a program's check (or the job was dropped mid-way): no
    /// result; the lease runs out and the coordinator retries the job carefully.
    Abandoned(u64),
}

/// The test-only crash switch: `TCFUZZ_TEST_ABORT_AT=INDEX` makes the worker abort, as a checker
/// that kills its process would, when it is about to check program INDEX of any campaign. Fault
/// tests use it to prove that such a program ends as one `checker-crash` discrepancy.
fn abort_if_test_crash(index: u64) {
    static AT: OnceLock<Option<u64>> = OnceLock::new();
    if *AT.get_or_init(|| std::env::var("TCFUZZ_TEST_ABORT_AT").ok().and_then(|v| v.parse().ok())) == Some(index) {
        eprintln!("tcfuzz worker: TCFUZZ_TEST_ABORT_AT={index}: aborting, as a crashing checker would");
        std::process::abort();
    }
}

fn ms(d: u64) -> Duration {
    Duration::from_millis(d)
}

/// A leased job, with the seed pool it is generated with.
struct Leased {
    job: v1::Job,
    seeds: Option<Seeds>,
}

/// Campaigns whose latest seed pool is kept.
const POOLS_KEPT: usize = 16;

/// Whether a job's seed pool could be had.
enum PoolFor {
    Ready(Option<Seeds>),
    /// Not now (its epoch is over, or the coordinator is away): the job is handed back.
    Unavailable,
}

/// Runs one job on a pool thread.
fn run_job(
    runner: &dyn JobRunner,
    leased: Leased,
    parts_wanted: &Arc<AtomicBool>,
    to_loop: &mpsc::UnboundedSender<FromPool>,
) -> Option<v1::JobResult> {
    let Leased { job, seeds } = leased;
    let seeds = seeds.as_ref();
    let id = job.id;
    let campaign = Campaign { id: job.campaign, seed: job.seed, config: job.config, program_budget: ms(job.program_budget_ms) };
    let ran = catch_unwind(AssertUnwindSafe(|| -> Result<Option<v1::JobResult>, JobError> {
        match job.work {
            Some(Work::Generate(g)) => {
                let range = g.first_index..g.first_index.saturating_add(g.count);
                let output = if job.careful {
                    let mut output = Output::default();
                    for index in range {
                        let program = runner.program(&campaign, index, seeds)?;
                        let (reply, named) = oneshot::channel();
                        let _ = to_loop.send(FromPool::Naming { job_id: id, index, program, reply });
                        if named.blocking_recv() != Ok(true) {
                            return Ok(None);
                        }
                        abort_if_test_crash(index);
                        output.merge(runner.run(&campaign, index..index + 1, seeds)?);
                    }
                    output
                } else {
                    range.clone().for_each(abort_if_test_crash);
                    runner.run(&campaign, range, seeds)?
                };
                Ok(Some(to_result(id, output)))
            }
            Some(Work::Minimize(m)) => {
                let kind = v1::DiscrepancyKind::try_from(m.kind).unwrap_or(v1::DiscrepancyKind::Unspecified);
                let minimized = runner.minimize(&campaign, kind, &m.signature, &m.program, ms(m.budget_ms))?;
                Ok(Some(v1::JobResult { job_id: id, minimized: minimized.unwrap_or_default(), ..Default::default() }))
            }
            Some(Work::Explore(e)) => {
                let part = super::explore::run(&e, parts_wanted)?;
                Ok(Some(v1::JobResult { job_id: id, part: Some(part), ..Default::default() }))
            }
            None => Err(JobError("a job without work (a newer coordinator?)".into())),
        }
    }));
    match ran {
        Ok(Ok(result)) => result,
        Ok(Err(e)) => Some(v1::JobResult { job_id: id, error: e.0, ..Default::default() }),
        Err(_) => {
            tracing::error!(job = id, "the job runner panicked outside a program's check; the job is abandoned to its lease");
            let _ = to_loop.send(FromPool::Abandoned(id));
            None
        }
    }
}

fn to_result(job_id: u64, o: Output) -> v1::JobResult {
    v1::JobResult {
        job_id,
        stats: Some(v1::Stats {
            programs: o.programs,
            executions: o.executions,
            too_large: o.too_large,
            gpu_ran: o.gpu.ran,
            gpu_instances: o.gpu.instances,
            gpu_unsupported: o.gpu.unsupported,
            gpu_failed: o.gpu.failed,
            gpu_given_up: o.gpu.given_up,
        }),
        findings: o
            .findings
            .into_iter()
            .map(|f| v1::Finding {
                kind: f.kind as i32,
                signature: f.signature,
                index: f.index,
                program: f.program,
                sides: f.sides.into_iter().map(|(name, verdict)| v1::Side { name, verdict }).collect(),
            })
            .collect(),
        coverage: o.coverage.into_iter().map(|(name, count)| v1::FeatureCount { name, count }).collect(),
        seeds: o
            .seeds
            .into_iter()
            .map(|s| v1::SeedCandidate { index: s.index, features: s.features, program: s.program.unwrap_or_default() })
            .collect(),
        minimized: String::new(),
        error: String::new(),
        part: None,
        refused: String::new(),
    }
}

/// Exponential backoff with full jitter: each wait is random in `[0, d]`, `d` doubling from 100 ms
/// to 5 s; a success starts again from 100 ms.
struct Backoff {
    next: Duration,
    failing: bool,
}

impl Backoff {
    const FIRST: Duration = Duration::from_millis(100);
    const MOST: Duration = Duration::from_secs(5);

    fn wait(&mut self) -> Duration {
        use std::hash::{BuildHasher, Hasher};
        let mut h = std::collections::hash_map::RandomState::new().build_hasher();
        h.write_u128(std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos()));
        let d = self.next;
        self.next = (self.next * 2).min(Backoff::MOST);
        self.failing = true;
        d.mul_f64((h.finish() % 1000) as f64 / 1000.0)
    }

    /// A call went through; `true` if calls had been failing.
    fn succeeded(&mut self) -> bool {
        self.next = Backoff::FIRST;
        std::mem::take(&mut self.failing)
    }
}

/// A failed call: retry later, register again first, or give up.
enum Failure {
    Retry,
    Reregister,
    Fatal(String),
}

fn classify(status: &Status) -> Failure {
    match status.code() {
        Code::FailedPrecondition => Failure::Reregister,
        Code::Unauthenticated | Code::PermissionDenied | Code::Unimplemented => Failure::Fatal(status.message().to_string()),
        _ => Failure::Retry,
    }
}

struct Session {
    client: connect::Coordinator,
    config: Config,
    worker_id: Option<String>,
    /// The id before the coordinator was lost: asked back on registering again.
    last_id: String,
    max_leases: usize,
    heartbeat: Duration,
    /// Jobs leased and not yet reported (queued on the pool, running, or finished).
    held: BTreeSet<u64>,
    finished: Vec<v1::JobResult>,
    /// Finished jobs to report one per call: their batch was refused, and a refusal of one
    /// result alone says that result is at fault.
    alone: BTreeSet<u64>,
    returned: Vec<u64>,
    /// The largest report the coordinator accepts (`RegisterResponse.max_message_bytes`).
    max_message: usize,
    /// The latest seed pool fetched, per campaign.
    pools: HashMap<u64, Seeds>,
    backoff: Backoff,
    summary: Summary,
    /// Held parts of explorations that give their rest back when asked (`ExploreWork.slice_ms`).
    sliced: BTreeSet<u64>,
    /// What the last heartbeat said of idle workers (`HeartbeatResponse.parts_wanted`): read by
    /// the sliced parts running on the pool ([`super::explore::run`]).
    parts_wanted: Arc<AtomicBool>,
}

/// How often a worker holding sliced exploration parts heartbeats: how soon it hears that
/// another worker is idle.
const SLICED_HEARTBEAT: Duration = Duration::from_millis(250);

impl Session {
    async fn pause(&mut self, why: &Status) {
        let d = self.backoff.wait();
        tracing::debug!(code = ?why.code(), "coordinator call failed ({}); retrying in {d:?}", why.message());
        tokio::time::sleep(d).await;
    }

    fn went_through(&mut self) {
        if self.backoff.succeeded() {
            self.summary.reconnects += 1;
            tracing::info!("coordinator reachable again");
        }
    }

    /// Handles a failed call; `Err` when the worker must stop.
    async fn failed(&mut self, status: Status) -> Result<(), WorkerError> {
        match classify(&status) {
            Failure::Fatal(m) => Err(WorkerError::Refused(m)),
            Failure::Reregister => {
                tracing::info!("{}", status.message());
                self.worker_id = None;
                Ok(())
            }
            Failure::Retry => {
                self.pause(&status).await;
                Ok(())
            }
        }
    }

    async fn register(&mut self) -> Result<(), WorkerError> {
        let request = v1::RegisterRequest {
            cores: self.config.cores as u32,
            gpu_arch: self.config.gpu_arch.clone(),
            version: tcfuzz_proto::protocol_version().to_string(),
            name: self.config.name.clone(),
            resume_worker_id: self.last_id.clone(),
        };
        match self.client.register(request).await {
            Ok(r) => {
                let r = r.into_inner();
                self.went_through();
                tracing::info!(worker = %r.worker_id, lease_ms = r.lease_ms, max_message_bytes = r.max_message_bytes, "registered");
                self.last_id = r.worker_id.clone();
                self.worker_id = Some(r.worker_id);
                self.max_leases = (r.max_leases as usize).max(1);
                self.max_message = match r.max_message_bytes {
                    0 => tcfuzz_proto::MAX_MESSAGE_BYTES,
                    n => usize::try_from(n).unwrap_or(usize::MAX).min(tcfuzz_proto::MAX_MESSAGE_BYTES),
                };
                self.heartbeat = ms(r.heartbeat_ms.max(10));
                Ok(())
            }
            Err(s) if s.code() == Code::FailedPrecondition || s.code() == Code::InvalidArgument => {
                Err(WorkerError::Refused(s.message().to_string()))
            }
            Err(s) => self.failed(s).await,
        }
    }

    /// Sends handed-back jobs, or the next batch of finished results that fits the coordinator's
    /// message limit; what is acknowledged is forgotten. A result the coordinator refuses for
    /// good is replaced by its job's failure report (`batches`), sent by the next call.
    async fn report(&mut self, worker_id: String) -> Result<(), WorkerError> {
        if !self.returned.is_empty() {
            return self.hand_back(worker_id).await;
        }
        let base = batches::base_len(&worker_id);
        for r in &mut self.finished {
            let size = base.saturating_add(batches::cost(r));
            if size > self.max_message {
                let why = format!("the result is {size} bytes encoded, more than the coordinator's limit of {} bytes", self.max_message);
                tracing::error!(job = r.job_id, "{why}: reporting the job as failed");
                *r = batches::refused(r.job_id, &why);
            }
        }
        let n = batches::next_batch(base, &self.finished, self.max_message, |r| self.alone.contains(&r.job_id));
        let request = v1::ReportResultsRequest { worker_id, results: self.finished[..n].to_vec(), returned_job_ids: Vec::new() };
        match self.client.report_results(request).await {
            Ok(r) => {
                self.went_through();
                self.summary.reports += 1;
                let acks = r.into_inner().acks;
                for r in self.finished.drain(..n) {
                    let again = acks.iter().any(|a| a.job_id == r.job_id && a.recording == v1::Recording::AlreadyRecorded as i32);
                    self.summary.programs += r.stats.map_or(0, |s| s.programs);
                    if again {
                        self.summary.jobs_already_recorded += 1;
                    } else if r.refused.is_empty() {
                        self.summary.jobs_recorded += 1;
                    } else {
                        self.summary.jobs_failed += 1;
                    }
                    self.held.remove(&r.job_id);
                    self.alone.remove(&r.job_id);
                }
                Ok(())
            }
            Err(s) if batches::is_permanent(&s) && n > 1 => {
                self.summary.reports_refused += 1;
                // One of them is at fault, or several: find which by sending them one by one.
                tracing::warn!(results = n, "the coordinator refused a report ({}); sending its results one by one", s.message());
                self.alone.extend(self.finished[..n].iter().map(|r| r.job_id));
                Ok(())
            }
            Err(s) if batches::is_permanent(&s) => {
                self.summary.reports_refused += 1;
                let r = &mut self.finished[0];
                if r.refused.is_empty() {
                    tracing::error!(
                        job = r.job_id,
                        "the coordinator refused the job's result: {}; reporting the job as failed",
                        s.message()
                    );
                    *r = batches::refused(r.job_id, &batches::reason(&s));
                    self.alone.insert(r.job_id);
                } else {
                    // Nothing smaller can be sent (a job the coordinator does not know?).
                    let id = r.job_id;
                    tracing::error!(job = id, "the coordinator refused the job's failure report too: {}; dropped", s.message());
                    self.finished.remove(0);
                    self.held.remove(&id);
                    self.alone.remove(&id);
                }
                Ok(())
            }
            Err(s) => self.failed(s).await,
        }
    }

    /// Hands back the jobs in `returned`: queued again at once by the coordinator.
    async fn hand_back(&mut self, worker_id: String) -> Result<(), WorkerError> {
        let request = v1::ReportResultsRequest { worker_id, results: Vec::new(), returned_job_ids: self.returned.clone() };
        match self.client.report_results(request).await {
            Ok(_) => {
                self.went_through();
                self.summary.jobs_handed_back += self.returned.len() as u64;
                for id in self.returned.drain(..) {
                    self.held.remove(&id);
                }
                Ok(())
            }
            Err(s) if batches::is_permanent(&s) => {
                // Retrying cannot help; their leases run out and the coordinator queues them.
                tracing::error!(jobs = self.returned.len(), "the coordinator refused jobs handed back: {}", s.message());
                for id in self.returned.drain(..) {
                    self.held.remove(&id);
                }
                Ok(())
            }
            Err(s) => self.failed(s).await,
        }
    }

    /// Extends the leases of the held jobs; returns the ids the coordinator says are not ours.
    async fn heartbeat(&mut self, worker_id: String, checking: Option<v1::Checking>) -> Result<Option<Vec<u64>>, WorkerError> {
        let request = v1::HeartbeatRequest { worker_id, job_ids: self.held.iter().copied().collect(), checking };
        match self.client.heartbeat(request).await {
            Ok(r) => {
                self.went_through();
                let r = r.into_inner();
                self.parts_wanted.store(r.parts_wanted, Ordering::Relaxed);
                Ok(Some(r.dropped_job_ids))
            }
            Err(s) if s.code() == Code::InvalidArgument => {
                tracing::error!("the coordinator rejected a heartbeat: {}", s.message());
                Ok(Some(Vec::new()))
            }
            Err(s) => self.failed(s).await.map(|()| None),
        }
    }

    /// The seed pool `job` is generated with, fetched once per campaign and epoch.
    async fn pool_for(&mut self, worker_id: &str, job: &v1::Job) -> Result<PoolFor, WorkerError> {
        let Some(Work::Generate(v1::GenerateWork { pool_epoch: Some(epoch), .. })) = &job.work else {
            return Ok(PoolFor::Ready(None));
        };
        if let Some(seeds) = self.pools.get(&job.campaign).filter(|s| s.epoch == *epoch) {
            return Ok(PoolFor::Ready(Some(seeds.clone())));
        }
        let request = v1::SeedPoolRequest { worker_id: worker_id.to_string(), campaign: job.campaign, epoch: *epoch };
        match self.client.seed_pool(request).await {
            Ok(r) => {
                self.went_through();
                let seeds = Seeds { epoch: *epoch, seeds: Arc::new(r.into_inner().seeds) };
                tracing::debug!(campaign = job.campaign, epoch, seeds = seeds.seeds.len(), "seed pool fetched");
                if self.pools.len() >= POOLS_KEPT {
                    self.pools.clear();
                }
                self.pools.insert(job.campaign, seeds.clone());
                Ok(PoolFor::Ready(Some(seeds)))
            }
            Err(s) if matches!(s.code(), Code::Aborted | Code::NotFound) => {
                tracing::warn!(job = job.id, epoch, "no seed pool for the job: {}; handing it back", s.message());
                Ok(PoolFor::Unavailable)
            }
            Err(s) => self.failed(s).await.map(|()| PoolFor::Unavailable),
        }
    }

    async fn lease(&mut self, worker_id: String, room: usize) -> Result<Option<v1::LeaseJobsResponse>, WorkerError> {
        match self.client.lease_jobs(v1::LeaseJobsRequest { worker_id, max_jobs: room as u32 }).await {
            Ok(r) => {
                self.went_through();
                Ok(Some(r.into_inner()))
            }
            Err(s) => self.failed(s).await.map(|()| None),
        }
    }
}

/// Runs a worker until `shutdown` completes, then hands back unstarted jobs, lets running ones
/// finish for `config.grace` (handing back those that do not), reports, and returns.
pub async fn run(config: Config, runner: Arc<dyn JobRunner>, shutdown: impl Future<Output = ()>) -> Result<Summary, WorkerError> {
    let client = config.target.coordinator()?;
    let (to_loop, mut from_pool) = mpsc::unbounded_channel();
    let (done_tx, mut done) = mpsc::unbounded_channel::<Box<v1::JobResult>>();
    let parts_wanted = Arc::new(AtomicBool::new(false));
    let pool = {
        let (to_loop, parts_wanted) = (to_loop.clone(), parts_wanted.clone());
        Pool::start(config.cores, "tcfuzz-check", move |leased: Leased| {
            if let Some(result) = run_job(&*runner, leased, &parts_wanted, &to_loop) {
                let _ = done_tx.send(Box::new(result));
            }
        })
        .map_err(WorkerError::Threads)?
    };
    drop(to_loop);
    let mut s = Session {
        client,
        config,
        worker_id: None,
        last_id: String::new(),
        max_leases: 1,
        heartbeat: Duration::from_secs(1),
        held: BTreeSet::new(),
        finished: Vec::new(),
        alone: BTreeSet::new(),
        returned: Vec::new(),
        max_message: tcfuzz_proto::MAX_MESSAGE_BYTES,
        pools: HashMap::new(),
        backoff: Backoff { next: Backoff::FIRST, failing: false },
        summary: Summary::default(),
        sliced: BTreeSet::new(),
        parts_wanted,
    };
    let mut shutdown = std::pin::pin!(shutdown);
    let mut draining = false;
    let mut grace_ends = None;
    let far = || Instant::now() + Duration::from_secs(86_400);
    let mut next_lease = Instant::now();
    let mut next_heartbeat = Instant::now();
    let mut last_heartbeat = Instant::now();
    loop {
        let Some(worker_id) = s.worker_id.clone() else {
            tokio::select! {
                r = s.register() => r?,
                () = &mut shutdown, if !draining => {
                    // Never registered (or lost): nothing leased can be handed back; what is
                    // finished is reported once registered, if the coordinator comes back.
                    draining = true;
                    grace_ends = Some(Instant::now() + s.config.grace);
                    s.returned.extend(pool.take_if(|_| true).into_iter().map(|j| j.job.id));
                }
                () = sleep_until(grace_ends.unwrap_or_else(far)), if draining => break,
            }
            continue;
        };
        // Every result finished by now goes into the next report (in batches that fit): results
        // kept while the coordinator was away go back together once it is back.
        while let Ok(result) = done.try_recv() {
            s.finished.push(*result);
        }
        if !s.finished.is_empty() || !s.returned.is_empty() {
            s.report(worker_id).await?;
            // A core is free: ask at once, not when the last empty answer said to ask again.
            next_lease = Instant::now();
            continue;
        }
        if draining && s.held.is_empty() {
            break;
        }
        let room = s.max_leases.saturating_sub(s.held.len());
        let lease_at = if !draining && room > 0 { next_lease } else { far() };
        s.sliced.retain(|id| s.held.contains(id));
        let heartbeat_at = match (s.held.is_empty(), s.sliced.is_empty()) {
            (true, _) => far(),
            (false, true) => next_heartbeat,
            (false, false) => next_heartbeat.min(last_heartbeat + SLICED_HEARTBEAT),
        };
        tokio::select! {
            biased;
            Some(result) = done.recv() => s.finished.push(*result),
            message = from_pool.recv() => match message {
                Some(FromPool::Abandoned(id)) => { s.held.remove(&id); }
                Some(FromPool::Naming { job_id, index, program, reply }) => {
                    // The program is checked only once the coordinator knows it (syzkaller's
                    // executor announces each program before it runs it).
                    let checking = v1::Checking { job_id, index, program };
                    let named = loop {
                        let Some(id) = s.worker_id.clone() else {
                            s.register().await?;
                            continue;
                        };
                        if let Some(dropped) = s.heartbeat(id, Some(checking.clone())).await? {
                            break !dropped.contains(&job_id);
                        }
                    };
                    if !named {
                        s.held.remove(&job_id);
                    }
                    let _ = reply.send(named);
                    next_heartbeat = Instant::now() + s.heartbeat;
                }
                None => break,
            },
            () = &mut shutdown, if !draining => {
                draining = true;
                let unstarted: Vec<u64> = pool.take_if(|_| true).into_iter().map(|j| j.job.id).collect();
                tracing::info!(unstarted = unstarted.len(), running = s.held.len().saturating_sub(unstarted.len()), "stopping: handing back unstarted jobs, finishing running ones");
                s.returned.extend(unstarted);
                grace_ends = Some(Instant::now() + s.config.grace);
            }
            () = sleep_until(grace_ends.unwrap_or_else(far)), if draining => {
                let finished: BTreeSet<u64> = s.finished.iter().map(|r| r.job_id).collect();
                let running: Vec<u64> = s.held.iter().copied().filter(|id| !finished.contains(id) && !s.returned.contains(id)).collect();
                tracing::warn!(jobs = running.len(), "grace period over: handing back the jobs still running");
                s.returned.extend(running);
                grace_ends = Some(far());
            }
            () = sleep_until(heartbeat_at) => {
                (last_heartbeat, next_heartbeat) = (Instant::now(), Instant::now() + s.heartbeat);
                if let Some(dropped) = s.heartbeat(worker_id, None).await? {
                    let dropped: BTreeSet<u64> = dropped.into_iter().collect();
                    let taken = pool.take_if(|j| dropped.contains(&j.job.id));
                    for id in &dropped {
                        s.held.remove(id);
                    }
                    if !dropped.is_empty() {
                        tracing::warn!(jobs = dropped.len(), unstarted = taken.len(), "the coordinator says some leases are no longer ours");
                    }
                }
            }
            () = sleep_until(lease_at) => {
                if let Some(r) = s.lease(worker_id.clone(), room).await? {
                    next_lease = Instant::now() + ms(r.retry_after_ms);
                    for job in r.jobs {
                        s.held.insert(job.id);
                        if matches!(&job.work, Some(Work::Explore(e)) if e.slice_ms > 0) {
                            s.sliced.insert(job.id);
                        }
                        match s.pool_for(&worker_id, &job).await? {
                            PoolFor::Ready(seeds) => pool.push(Leased { job, seeds }),
                            PoolFor::Unavailable => s.returned.push(job.id),
                        }
                    }
                }
            }
        }
    }
    pool.close();
    tracing::info!(recorded = s.summary.jobs_recorded, programs = s.summary.programs, "worker stopped");
    Ok(s.summary)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_results_gpu_counts_go_to_the_coordinator() {
        let gpu = crate::GpuStats { ran: 3, instances: 300, unsupported: 2, failed: 1, given_up: 4, first_failure: Some("hang".into()) };
        let r = to_result(9, Output { programs: 10, executions: 50, gpu, ..Output::default() });
        let s = r.stats.expect("stats");
        assert_eq!((s.programs, s.executions), (10, 50));
        assert_eq!((s.gpu_ran, s.gpu_instances, s.gpu_unsupported, s.gpu_failed, s.gpu_given_up), (3, 300, 2, 1, 4));
    }
}
