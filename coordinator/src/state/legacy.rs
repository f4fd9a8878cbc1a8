//! Campaigns created before jobs were bounded to [`MAX_JOB_PROGRAMS`] programs (issue 23): their
//! stored spec may ask for larger jobs, and their queue may hold such jobs. A job of more programs
//! may have more seed candidates than a report may carry, so its result would be refused (and its
//! job recorded as failed, `failures.rs`). On loading, the spec's job size is brought down to the
//! bound (and stored), and every queued job over it is cancelled and its range queued again as
//! jobs within it, so the campaign checks the same programs. A leased one is left to its worker
//! (it may report within the limits; if not, its job fails visibly); the log says so. If its
//! lease runs out, it is split as it goes back to the queue.

use tcfuzz_corpus::{Job, JobState, Update, Work};

use super::campaign::{CampaignRun, enqueue_ranges};
use super::mirror::State;
use crate::error::ServiceError;
use crate::validate::MAX_JOB_PROGRAMS;

/// Whether `job` is a generation job over the bound.
pub fn too_large(job: &Job) -> bool {
    matches!(job.work, Work::Generate { count, .. } if count > MAX_JOB_PROGRAMS)
}

/// Brings the campaigns' job size within the bound and re-splits `jobs` (loaded, over the bound).
pub fn resplit(state: &mut State, u: &mut Update<'_>, jobs: Vec<Job>, now: u64) -> Result<(), ServiceError> {
    for run in state.campaigns.values_mut().filter(|r| r.spec.job_programs > MAX_JOB_PROGRAMS) {
        tracing::warn!(
            campaign = run.record.id,
            job_programs = run.spec.job_programs,
            "campaign made before jobs were bounded: its new jobs hold at most {MAX_JOB_PROGRAMS} programs"
        );
        run.spec.job_programs = MAX_JOB_PROGRAMS;
        run.record.config =
            serde_json::to_string(&run.spec).map_err(|e| ServiceError::Unavailable(format!("[tcfuzz internal bug] {e}")))?;
        u.put_campaign(&run.record)?;
    }
    for job in jobs {
        let (Some(run), Work::Generate { count, .. }) = (state.campaigns.get_mut(&job.campaign), &job.work) else { continue };
        match job.state {
            JobState::Queued => split(u, run, &job, now)?,
            JobState::Leased { .. } => tracing::warn!(
                job = job.id,
                programs = count,
                "a leased job of more than {MAX_JOB_PROGRAMS} programs (made before jobs were bounded): if its report is refused, the job is recorded as failed"
            ),
            JobState::Done { .. } => {}
        }
    }
    Ok(())
}

/// Cancels queued `job` (a generation job) and queues its range again in jobs of at most
/// [`MAX_JOB_PROGRAMS`].
pub fn split(u: &mut Update<'_>, run: &mut CampaignRun, job: &Job, now: u64) -> Result<(), ServiceError> {
    let Work::Generate { first_index, count } = job.work else { return Ok(()) };
    u.cancel_job(job.id, now)?;
    run.queued.remove(&job.id);
    run.done += 1;
    enqueue_ranges(u, run, first_index, count)?;
    tracing::warn!(
        job = job.id,
        programs = count,
        "queued job made before jobs were bounded: split into jobs of at most {MAX_JOB_PROGRAMS} programs"
    );
    Ok(())
}
