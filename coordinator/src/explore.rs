//! Split explorations (`Admin.ExploreProgram`): one program's exploration, cut by the client's
//! checker into subtrees, explored by workers as one job per subtree and returned as the parts'
//! verdicts, which the client merges with its checker. The coordinator schedules and records the
//! parts, exactly once each, like any job; it never reads a verdict beyond its counts.
//!
//! An exploration is a campaign record whose `config` is an [`ExploreSpec`] (the program, the
//! model and the options the subtrees were cut under); part `n` (from 1) is job
//! `job_id(exploration, Generate, n)`, its work [`Work::Explore`], and once done the job holds
//! the part's verdict (the protocol message, hex-encoded). So a restarted coordinator resumes an
//! exploration from the corpus like a campaign.

use std::collections::{BTreeMap, BTreeSet};

use prost::Message;
use serde::{Deserialize, Serialize};
use tcfuzz_corpus::{Campaign, CampaignState, Corpus, Job, JobState, Update, Work};
use tcfuzz_proto::v1;

use crate::error::{ServiceError, invalid};
use crate::ids::{self, Class};
use crate::validate::{self, JobResult};

/// What an exploration asks for; stored as JSON in its campaign record's `config`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ExploreSpec {
    /// Marks an exploration (other campaign records hold other JSON).
    pub tcfuzz_exploration: u32,
    pub program: String,
    pub model: String,
    pub loop_bound: u32,
    pub detect_duplicates: bool,
    /// Final states each part keeps (0: every one); absent in records of older versions.
    #[serde(default)]
    pub max_states: u32,
    /// Each part's slice in milliseconds (0: not sliced); absent in records of older versions.
    #[serde(default)]
    pub slice_ms: u32,
    /// The check the subtrees belong to (their HEX); empty in records of older versions.
    #[serde(default)]
    pub check: String,
    /// Parts so far: the request's subtrees, then the rest each sliced part gave back.
    pub parts: u64,
    /// Why it failed, once it has.
    #[serde(default)]
    pub error: Option<String>,
}

const SPEC_VERSION: u32 = 1;

/// The most parts an exploration grows to with the rest its sliced parts give back; past it, the
/// exploration fails (its slices are too short for the program).
pub const MAX_GROWN_PARTS: u64 = 1_000_000;

/// The exploration spec of a campaign record, if it is one.
pub fn spec_of(c: &Campaign) -> Option<ExploreSpec> {
    serde_json::from_str::<ExploreSpec>(&c.config).ok().filter(|s| s.tcfuzz_exploration == SPEC_VERSION)
}

fn to_config(spec: &ExploreSpec) -> Result<String, ServiceError> {
    serde_json::to_string(spec).map_err(|e| ServiceError::Unavailable(format!("[tcfuzz internal bug] {e}")))
}

/// A part verdict as the job record keeps it.
fn encode_part(p: &v1::PartVerdict) -> String {
    p.encode_to_vec().iter().map(|b| format!("{b:02x}")).collect()
}

fn decode_part(hex: &str, job: u64) -> Result<v1::PartVerdict, ServiceError> {
    let corrupt = || ServiceError::Unavailable(format!("[tcfuzz internal bug] the stored verdict of job {job} does not decode"));
    let bytes = (0..hex.len() / 2)
        .map(|i| hex.get(2 * i..2 * i + 2).and_then(|h| u8::from_str_radix(h, 16).ok()))
        .collect::<Option<Vec<u8>>>()
        .ok_or_else(corrupt)?;
    v1::PartVerdict::decode(bytes.as_slice()).map_err(|_| corrupt())
}

struct ExploreRun {
    record: Campaign,
    spec: ExploreSpec,
    queued: BTreeSet<u64>,
    leased: BTreeSet<u64>,
    done: u64,
    complete: u64,
}

impl ExploreRun {
    fn state(&self) -> v1::ExplorationState {
        match (&self.spec.error, self.done == self.spec.parts) {
            (Some(_), _) => v1::ExplorationState::Failed,
            (None, true) => v1::ExplorationState::Finished,
            (None, false) => v1::ExplorationState::Running,
        }
    }
}

/// The explorations this coordinator drives.
#[derive(Default)]
pub struct Explorations {
    runs: BTreeMap<u64, ExploreRun>,
}

impl Explorations {
    /// Takes a campaign record being loaded; `false` if it is not an exploration.
    pub fn load_record(&mut self, record: &Campaign) -> bool {
        let Some(spec) = spec_of(record) else { return false };
        let run = ExploreRun { record: record.clone(), spec, queued: BTreeSet::new(), leased: BTreeSet::new(), done: 0, complete: 0 };
        self.runs.insert(record.id, run);
        true
    }

    /// Takes a job being loaded; `false` if it is not an exploration's.
    pub fn load_job(&mut self, job: &Job) -> Result<bool, ServiceError> {
        let Some(run) = self.runs.get_mut(&job.campaign) else { return Ok(false) };
        let Work::Explore { part, .. } = &job.work else {
            return Err(ServiceError::Unavailable(format!("[tcfuzz internal bug] job {} of an exploration is not an explore job", job.id)));
        };
        match &job.state {
            JobState::Queued => {
                run.queued.insert(job.id);
            }
            JobState::Leased { .. } => {
                run.leased.insert(job.id);
            }
            JobState::Done { .. } => {
                run.done += 1;
                if let Some(p) = part {
                    run.complete += decode_part(p, job.id)?.complete;
                }
            }
        }
        Ok(true)
    }

    /// The next part to hand out: the lowest queued part of the oldest exploration with one.
    /// Parts go before every campaign's jobs: someone is waiting for an exploration's result,
    /// and an endless campaign always has jobs queued.
    pub fn next_queued(&self) -> Option<u64> {
        self.runs.values().find_map(|r| r.queued.first().copied())
    }

    /// Whether some exploration has a part leased (one a sliced part could give work from).
    pub fn any_leased(&self) -> bool {
        self.runs.values().any(|r| !r.leased.is_empty())
    }

    pub fn contains(&self, id: u64) -> bool {
        self.runs.contains_key(&id)
    }

    /// Records a new exploration and queues its parts (the request is validated).
    pub fn create(
        &mut self,
        u: &mut Update<'_>,
        r: v1::ExploreProgramRequest,
        now: u64,
    ) -> Result<v1::ExploreProgramResponse, ServiceError> {
        let spec = ExploreSpec {
            tcfuzz_exploration: SPEC_VERSION,
            program: r.program,
            model: r.model,
            loop_bound: r.loop_bound,
            detect_duplicates: r.detect_duplicates,
            max_states: r.max_states,
            slice_ms: r.slice_ms,
            check: r.subtrees.first().map(|s| validate::subtree(s, "subtrees[0]")).transpose()?.unwrap_or_default(),
            parts: r.subtrees.len() as u64,
            error: None,
        };
        let name = if r.name.is_empty() { "explore".to_string() } else { r.name };
        let record = Campaign { id: 0, name, seed: 0, config: to_config(&spec)?, created_ms: now, state: CampaignState::Running };
        let id = u.put_campaign(&record)?;
        if id > ids::MAX_CAMPAIGN {
            return Err(ServiceError::Unavailable(format!("this corpus has used every campaign id up to {}", ids::MAX_CAMPAIGN)));
        }
        let mut run =
            ExploreRun { record: Campaign { id, ..record }, spec, queued: BTreeSet::new(), leased: BTreeSet::new(), done: 0, complete: 0 };
        for (n, subtree) in r.subtrees.into_iter().enumerate() {
            let job = ids::job_id(id, Class::Generate, n as u64 + 1);
            u.enqueue_job_as(job, id, Work::Explore { subtree, part: None })?;
            run.queued.insert(job);
        }
        tracing::info!(exploration = id, parts = run.spec.parts, "exploration created");
        self.runs.insert(id, run);
        Ok(v1::ExploreProgramResponse { exploration: id })
    }

    /// The job a worker gets for a leased part.
    pub fn leased(&mut self, job: &Job) -> Result<v1::Job, ServiceError> {
        let run = self
            .runs
            .get_mut(&job.campaign)
            .ok_or_else(|| ServiceError::Unavailable(format!("[tcfuzz internal bug] no exploration {}", job.campaign)))?;
        run.queued.remove(&job.id);
        run.leased.insert(job.id);
        let Work::Explore { subtree, .. } = &job.work else {
            return Err(ServiceError::Unavailable(format!("[tcfuzz internal bug] job {} of an exploration is not an explore job", job.id)));
        };
        let s = &run.spec;
        Ok(v1::Job {
            id: job.id,
            campaign: job.campaign,
            work: Some(v1::job::Work::Explore(v1::ExploreWork {
                program: s.program.clone(),
                model: s.model.clone(),
                loop_bound: s.loop_bound,
                detect_duplicates: s.detect_duplicates,
                subtree: subtree.clone(),
                max_states: s.max_states,
                slice_ms: s.slice_ms,
            })),
            ..v1::Job::default()
        })
    }

    /// Whether a result fits its exploration (checked before anything of its report is written).
    pub fn check_result(&self, r: &JobResult, campaign: u64, at: &str) -> Result<(), ServiceError> {
        let (Some(run), Some(p)) = (self.runs.get(&campaign), &r.part) else { return Ok(()) };
        if p.duplicates_counted != run.spec.detect_duplicates {
            return Err(invalid!(
                "{at}.part.duplicates_counted: {}, but the exploration asked for {}",
                p.duplicates_counted,
                run.spec.detect_duplicates
            ));
        }
        let max = run.spec.max_states;
        if max > 0 && p.states.len() > max as usize {
            return Err(invalid!("{at}.part.states: {} states, but the exploration keeps at most {max} per part", p.states.len()));
        }
        if max == 0 && p.omitted_states > 0 {
            return Err(invalid!("{at}.part.omitted_states: {}, but the exploration keeps every state", p.omitted_states));
        }
        if run.spec.slice_ms == 0 && !p.rest.is_empty() {
            return Err(invalid!("{at}.part.rest: {} subtrees, but the exploration's parts are not sliced", p.rest.len()));
        }
        for (i, rest) in p.rest.iter().enumerate() {
            let check = validate::subtree(rest, &format!("{at}.part.rest[{i}]"))?;
            if !run.spec.check.is_empty() && check != run.spec.check {
                return Err(invalid!("{at}.part.rest[{i}]: a subtree of another check than the exploration's"));
            }
        }
        Ok(())
    }

    /// The result of a part, which the caller has just marked done (storing
    /// [`Explorations::stored`] with it); a part that could not run fails the exploration.
    pub fn recorded(&mut self, u: &mut Update<'_>, job: &Job, r: &JobResult, now: u64) -> Result<(), ServiceError> {
        let Some(run) = self.runs.get_mut(&job.campaign) else { return Ok(()) };
        run.queued.remove(&job.id);
        run.leased.remove(&job.id);
        run.done += 1;
        if let Some(p) = &r.part {
            run.complete += p.complete;
        }
        if let Some(reason) = &r.refused {
            return self.fail(u, job.campaign, format!("part {}'s verdict was refused: {reason}", job.id & ids::MAX_NUMBER), now);
        }
        if let Some(error) = &r.error {
            return self.fail(u, job.campaign, format!("part {} could not be explored: {error}", job.id & ids::MAX_NUMBER), now);
        }
        let rest = r.part.as_ref().map_or(&[][..], |p| &p.rest[..]);
        if run.spec.error.is_none() && !rest.is_empty() {
            if run.spec.parts + rest.len() as u64 > MAX_GROWN_PARTS {
                let why =
                    format!("its sliced parts gave back more than {MAX_GROWN_PARTS} parts in all (slices too short for the program?)");
                return self.fail(u, job.campaign, why, now);
            }
            // The rest is queued in the write that records the part: a part is either not
            // recorded (and explored again whole) or recorded with its rest queued.
            for subtree in rest {
                run.spec.parts += 1;
                let part = ids::job_id(job.campaign, Class::Generate, run.spec.parts);
                u.enqueue_job_as(part, job.campaign, Work::Explore { subtree: subtree.clone(), part: None })?;
                run.queued.insert(part);
            }
            run.record.config = to_config(&run.spec)?;
            u.put_campaign(&run.record)?;
        }
        if run.done == run.spec.parts && run.spec.error.is_none() {
            run.record.state = CampaignState::Finished;
            u.put_campaign(&run.record)?;
            tracing::info!(exploration = job.campaign, complete = run.complete, "exploration finished");
        }
        Ok(())
    }

    /// The encoding a part's verdict is stored under.
    pub fn stored(part: &v1::PartVerdict) -> String {
        encode_part(part)
    }

    /// A part back in the queue (its lease expired, or its worker handed it back). A part whose
    /// workers keep being lost (`give_up`) fails the exploration.
    pub fn requeued(&mut self, u: &mut Update<'_>, job: &Job, give_up: bool, now: u64) -> Result<(), ServiceError> {
        let Some(run) = self.runs.get_mut(&job.campaign) else { return Ok(()) };
        run.leased.remove(&job.id);
        run.queued.insert(job.id);
        if give_up {
            let why =
                format!("part {} lost its worker {} times (a subtree that kills the checker?)", job.id & ids::MAX_NUMBER, job.attempts);
            self.fail(u, job.campaign, why, now)?;
        }
        Ok(())
    }

    /// Fails an exploration: its queued parts are cancelled, the error kept in its record.
    fn fail(&mut self, u: &mut Update<'_>, id: u64, why: String, now: u64) -> Result<(), ServiceError> {
        let Some(run) = self.runs.get_mut(&id) else { return Ok(()) };
        if run.spec.error.is_some() {
            return Ok(());
        }
        tracing::error!(exploration = id, "exploration failed: {why}");
        for job in std::mem::take(&mut run.queued) {
            u.cancel_job(job, now)?;
            run.done += 1;
        }
        run.spec.error = Some(why);
        run.record.config = to_config(&run.spec)?;
        run.record.state = CampaignState::Stopped;
        u.put_campaign(&run.record)?;
        Ok(())
    }

    /// An exploration's progress, without its parts ([`parts`] reads them).
    pub fn status(&self, id: u64) -> Result<v1::ExplorationStatusResponse, ServiceError> {
        let run = self.runs.get(&id).ok_or_else(|| ServiceError::NotFound(format!("no exploration {id}")))?;
        Ok(v1::ExplorationStatusResponse {
            state: run.state() as i32,
            parts_total: run.spec.parts,
            parts_done: run.done,
            parts_leased: run.leased.len() as u64,
            complete_executions: run.complete,
            error: run.spec.error.clone().unwrap_or_default(),
            parts: Vec::new(),
            next_part: 0,
        })
    }
}

/// About how many bytes of parts one `ExplorationStatus` answer holds (half the 16 MiB limit: a
/// part is at most a worker's report, so one past the budget still fits alone).
pub const PARTS_PAGE_BYTES: usize = 8 << 20;

/// The verdicts of a finished exploration's parts `range` (from 0), in order, as many as fit in
/// `budget` bytes (at least one), read from the corpus (a part once done never changes, so this
/// needs no lock on the ledger).
pub fn parts(corpus: &Corpus, id: u64, range: std::ops::Range<u64>, budget: usize) -> Result<Vec<v1::ExploredPart>, ServiceError> {
    let (mut out, mut bytes) = (Vec::new(), 0);
    for n in range {
        let job_id = ids::job_id(id, Class::Generate, n + 1);
        let job =
            corpus.job(job_id)?.ok_or_else(|| ServiceError::Unavailable(format!("[tcfuzz internal bug] part job {job_id} is gone")))?;
        let Work::Explore { subtree, part: Some(part) } = job.work else {
            return Err(ServiceError::Unavailable(format!("[tcfuzz internal bug] part job {job_id} has no verdict")));
        };
        let part = v1::ExploredPart { subtree, verdict: Some(decode_part(&part, job_id)?) };
        bytes += part.encoded_len();
        if bytes > budget && !out.is_empty() {
            break;
        }
        out.push(part);
    }
    Ok(out)
}
