//! The ledger: one thread that owns the coordinator's [`State`] and is the corpus's only writer.
//!
//! Requests arrive as [`Op`]s on a bounded channel (a full channel makes callers wait:
//! backpressure). The thread takes every op waiting, applies them in order to one corpus
//! [`Update`] and applies that to the store (visible, not yet durable); then it hands the
//! batch's answers to the committer thread and goes on with the next batch. The committer
//! flushes once for every batch that arrived while it was flushing the last (group commit) and
//! only then sends their answers. So an acknowledged result is on disk, many reports share one
//! fsync, and the ledger's work overlaps the disk's. Flushes block, which is why these are
//! threads of their own and never tasks on the async runtime.
//!
//! An answer waits for the flush of its own batch, which covers every batch before it: an answer
//! that read what an earlier batch wrote ("already recorded") is never sent before that is on disk.
//!
//! If a batch fails (the store refuses a write), nothing of it is acknowledged, every op of it
//! gets the error, and the state is reloaded from the corpus; if that fails too, or a flush
//! fails, the ledger stops and the coordinator with it: a store that cannot flush is not trusted
//! further.

use std::sync::Arc;
use std::thread::JoinHandle;

use tcfuzz_corpus::{Corpus, Kind, ReportRecord};
use tcfuzz_proto::v1;
use tokio::sync::{mpsc, oneshot, watch};

use crate::error::ServiceError;
use crate::seeds::Snapshot;
use crate::state::{Settings, State, now_ms};
use crate::validate::Report;

/// Most ops applied in one commit.
const MAX_BATCH: usize = 4096;
/// Ops waiting at most; callers beyond it wait for room.
const QUEUE: usize = 16_384;
/// Batches applied and waiting for their flush at most; the ledger waits for room beyond it.
const UNFLUSHED: usize = 64;

type Reply<T> = oneshot::Sender<Result<T, ServiceError>>;

/// One request to the ledger, with where its answer goes.
pub enum Op {
    Register(v1::RegisterRequest, Reply<v1::RegisterResponse>),
    Lease(v1::LeaseJobsRequest, Reply<v1::LeaseJobsResponse>),
    Heartbeat(v1::HeartbeatRequest, Reply<v1::HeartbeatResponse>),
    Report(Report, Reply<v1::ReportResultsResponse>),
    CreateCampaign(v1::CreateCampaignRequest, Reply<v1::CreateCampaignResponse>),
    StopCampaign(u64, Reply<v1::StopCampaignResponse>),
    Status(u64, Reply<v1::CampaignStatusResponse>),
    Minimize(Kind, String, Reply<v1::MinimizeResponse>),
    ExploreProgram(v1::ExploreProgramRequest, Reply<v1::ExploreProgramResponse>),
    ExplorationStatus(u64, Reply<v1::ExplorationStatusResponse>),
    SeedPool(v1::SeedPoolRequest, Reply<Snapshot>),
    /// Keep a rendered report's list as the next report's baseline.
    RecordReport(ReportRecord, Reply<()>),
    /// Expire leases, top up queues, end campaigns (sent by a timer).
    Tick,
}

/// An answer computed in the batch, sent once the batch is on disk.
type Pending = Box<dyn FnOnce(Option<&ServiceError>) + Send>;

fn pending<T: Send + 'static>(reply: Reply<T>, result: Result<T, ServiceError>) -> Pending {
    Box::new(move |failed: Option<&ServiceError>| {
        let answer = match (failed, result) {
            (Some(e), _) => Err(ServiceError::Unavailable(format!("the coordinator could not record this batch: {e}"))),
            (None, r) => r,
        };
        let _ = reply.send(answer);
    })
}

/// The handle services use to reach the ledger.
#[derive(Clone)]
pub struct Ledger {
    tx: mpsc::Sender<Op>,
}

/// The ledger's thread; joining it waits until every op sent before the last [`Ledger`] was
/// dropped has been answered.
pub struct LedgerThread {
    thread: JoinHandle<Result<(), ServiceError>>,
    /// Becomes `true` when the ledger stops on its own (a failed store).
    pub failed: watch::Receiver<bool>,
}

impl LedgerThread {
    pub fn join(self) -> Result<(), ServiceError> {
        self.thread.join().unwrap_or_else(|_| Err(ServiceError::Unavailable("[tcfuzz internal bug] the ledger thread panicked".into())))
    }
}

impl Ledger {
    /// Loads the state from the corpus and starts the thread.
    /// A corpus the coordinator cannot resume from is an error here.
    pub fn start(corpus: Arc<Corpus>, settings: Settings) -> Result<(Ledger, LedgerThread), ServiceError> {
        let (tx, rx) = mpsc::channel(QUEUE);
        let (failed_tx, failed) = watch::channel(false);
        let (loaded_tx, loaded) = std::sync::mpsc::channel();
        let thread = std::thread::Builder::new()
            .name("tcfuzz-ledger".into())
            .spawn(move || {
                let r = run(&corpus, settings, rx, loaded_tx);
                if r.is_err() {
                    let _ = failed_tx.send(true);
                }
                r
            })
            .map_err(|e| ServiceError::Unavailable(format!("cannot start the ledger thread: {e}")))?;
        let thread = LedgerThread { thread, failed };
        match loaded.recv() {
            Ok(()) => Ok((Ledger { tx }, thread)),
            // The thread ended before it loaded: its result says why.
            Err(_) => Err(thread
                .join()
                .err()
                .unwrap_or_else(|| ServiceError::Unavailable("[tcfuzz internal bug] the ledger stopped at start".into()))),
        }
    }

    /// Sends an op and waits for its answer.
    pub async fn call<T>(&self, op: impl FnOnce(Reply<T>) -> Op) -> Result<T, ServiceError> {
        let (reply, answer) = oneshot::channel();
        self.tx.send(op(reply)).await.map_err(|_| ServiceError::Unavailable("the coordinator is stopping".into()))?;
        answer.await.map_err(|_| ServiceError::Unavailable("the coordinator is stopping".into()))?
    }

    /// Sends a tick without waiting; `false` once the ledger is gone.
    pub fn tick(&self) -> bool {
        !matches!(self.tx.try_send(Op::Tick), Err(mpsc::error::TrySendError::Closed(_)))
    }
}

fn run(
    corpus: &Arc<Corpus>,
    settings: Settings,
    mut rx: mpsc::Receiver<Op>,
    loaded: std::sync::mpsc::Sender<()>,
) -> Result<(), ServiceError> {
    let (mut state, u) = State::load(corpus, settings.clone())?;
    u.commit()?;
    let (to_committer, committer_rx) = std::sync::mpsc::sync_channel::<Applied>(UNFLUSHED);
    let committer = {
        let corpus = corpus.clone();
        std::thread::Builder::new()
            // At most 15 bytes: Linux keeps no more of a thread's name (`/proc/*/task/*/comm`, perf).
            .name("tcfuzz-commit".into())
            .spawn(move || commit_loop(&corpus, &committer_rx))
            .map_err(|e| ServiceError::Unavailable(format!("cannot start the committer thread: {e}")))?
    };
    let _ = loaded.send(());
    let mut batch = Vec::with_capacity(MAX_BATCH);
    let mut ended = Ok(());
    while let Some(first) = rx.blocking_recv() {
        batch.push(first);
        while batch.len() < MAX_BATCH {
            match rx.try_recv() {
                Ok(op) => batch.push(op),
                Err(_) => break,
            }
        }
        match apply(&mut state, corpus, batch.drain(..)) {
            Ok(applied) => {
                if let Err(std::sync::mpsc::SendError(applied)) = to_committer.send(applied) {
                    // The committer stopped: a flush failed (it says why).
                    let e = ServiceError::Unavailable("the coordinator's store could not flush".into());
                    applied.answers.into_iter().for_each(|a| a(Some(&e)));
                    ended = Err(e);
                    break;
                }
            }
            Err((e, answers)) => {
                tracing::error!("a batch of the coordinator's ledger failed: {e}");
                answers.into_iter().for_each(|a| a(Some(&e)));
                // Memory may have run ahead of the store: start again from the store.
                match State::load(corpus, settings.clone()).and_then(|(s, u)| u.commit().map(|()| s).map_err(ServiceError::from)) {
                    Ok(s) => state = s,
                    Err(e) => {
                        ended = Err(e);
                        break;
                    }
                }
            }
        }
    }
    // Every batch applied is answered once the committer has flushed it.
    drop(to_committer);
    let flushed =
        committer.join().unwrap_or_else(|_| Err(ServiceError::Unavailable("[tcfuzz internal bug] the committer thread panicked".into())));
    ended.and(flushed)
}

/// A batch applied to the store, waiting for its flush.
struct Applied {
    /// The corpus commit that holds it ([`Corpus::sync`]).
    commit: u64,
    answers: Vec<Pending>,
}

/// The committer: one flush for every batch waiting, then their answers, in order.
fn commit_loop(corpus: &Corpus, rx: &std::sync::mpsc::Receiver<Applied>) -> Result<(), ServiceError> {
    while let Ok(first) = rx.recv() {
        let mut commit = first.commit;
        let mut answers = first.answers;
        while let Ok(more) = rx.try_recv() {
            commit = commit.max(more.commit);
            answers.extend(more.answers);
        }
        if let Err(e) = corpus.sync(commit) {
            let e = ServiceError::from(e);
            tracing::error!("the coordinator's store could not flush: {e}");
            answers.into_iter().for_each(|a| a(Some(&e)));
            return Err(e);
        }
        answers.into_iter().for_each(|a| a(None));
    }
    Ok(())
}

/// Applies a batch to one update and applies that to the store. On failure the answers get the
/// error.
fn apply(state: &mut State, corpus: &Corpus, ops: impl Iterator<Item = Op>) -> Result<Applied, (ServiceError, Vec<Pending>)> {
    let mut answers: Vec<Pending> = Vec::new();
    let mut u = match corpus.update() {
        Ok(u) => u,
        Err(e) => {
            let e = ServiceError::from(e);
            return Err((e, ops.map(fail_op).collect()));
        }
    };
    let now = now_ms();
    let mut fatal = None;
    for op in ops {
        if fatal.is_some() {
            answers.push(fail_op(op));
            continue;
        }
        let f = &mut fatal;
        let answer = match op {
            Op::Register(r, reply) => settle(reply, state.register(r, now), f),
            Op::Lease(r, reply) => settle(reply, state.lease(&mut u, corpus, r, now), f),
            Op::Heartbeat(r, reply) => settle(reply, state.heartbeat(&mut u, corpus, r, now), f),
            Op::Report(r, reply) => settle(reply, state.report(&mut u, corpus, r, now), f),
            Op::CreateCampaign(r, reply) => settle(reply, state.create_campaign(&mut u, r, now), f),
            Op::StopCampaign(id, reply) => settle(reply, state.stop_campaign(&mut u, id, now), f),
            Op::Status(id, reply) => settle(reply, state.status(id, now), f),
            Op::Minimize(kind, signature, reply) => settle(reply, state.minimize(&mut u, corpus, kind, signature), f),
            Op::ExploreProgram(r, reply) => settle(reply, state.explore_program(&mut u, r, now), f),
            Op::ExplorationStatus(id, reply) => settle(reply, state.exploration_status(id), f),
            Op::SeedPool(r, reply) => settle(reply, state.seed_pool(&r, now), f),
            Op::RecordReport(record, reply) => {
                u.put_report(&record);
                settle(reply, Ok(()), f)
            }
            Op::Tick => {
                if let Err(e) = state.tick(&mut u, now) {
                    *f = Some(e);
                }
                continue;
            }
        };
        answers.push(answer);
    }
    // A store error inside an op may have left part of its writes in the update: the batch is
    // abandoned whole. (Ops that failed validation wrote nothing and keep their own error.)
    if let Some(e) = fatal {
        return Err((e, answers));
    }
    // Every batch ends with a tick's bookkeeping, so queues are topped up before the next leases.
    if let Err(e) = state.tick(&mut u, now) {
        return Err((e, answers));
    }
    match u.apply() {
        Ok(commit) => Ok(Applied { commit, answers }),
        Err(e) => Err((e.into(), answers)),
    }
}

/// The answer of one op; an error after which the update cannot be trusted ends the batch.
fn settle<T: Send + 'static>(reply: Reply<T>, result: Result<T, ServiceError>, fatal: &mut Option<ServiceError>) -> Pending {
    match result {
        Err(e @ (ServiceError::Corpus(_) | ServiceError::Unavailable(_))) => {
            let answer = Err(ServiceError::Unavailable(e.to_string()));
            *fatal = Some(e);
            pending(reply, answer)
        }
        r => pending(reply, r),
    }
}

fn fail_op(op: Op) -> Pending {
    fn e<T>() -> Result<T, ServiceError> {
        Err(ServiceError::Unavailable("the coordinator's store failed".into()))
    }
    match op {
        Op::Register(_, r) => pending(r, e()),
        Op::Lease(_, r) => pending(r, e()),
        Op::Heartbeat(_, r) => pending(r, e()),
        Op::Report(_, r) => pending(r, e()),
        Op::CreateCampaign(_, r) => pending(r, e()),
        Op::StopCampaign(_, r) => pending(r, e()),
        Op::Status(_, r) => pending(r, e()),
        Op::Minimize(_, _, r) => pending(r, e()),
        Op::ExploreProgram(_, r) => pending(r, e()),
        Op::ExplorationStatus(_, r) => pending(r, e()),
        Op::SeedPool(_, r) => pending(r, e()),
        Op::RecordReport(_, r) => pending(r, e()),
        Op::Tick => Box::new(|_| {}),
    }
}
