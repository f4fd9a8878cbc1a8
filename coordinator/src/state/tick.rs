//! The ledger's periodic work: expired leases go back to the queue (or, for a job that lost its
//! worker twice, the program it was on is blamed), silent workers are forgotten, campaigns whose
//! time or programs are over end, and changed totals are sampled into the corpus.

use tcfuzz_corpus::{CampaignState, Checking, Finding, Job, JobState, Kind, Side, Update, Work};

use super::campaign::{STATS_BUCKET_MS, enqueue_ranges};
use super::epochs::end_epoch;
use super::legacy;
use super::mirror::State;
use super::settings::{MAX_ATTEMPTS, WORKER_LOST_SIGNATURE};
use crate::error::ServiceError;
use crate::ids::{self, Class};

impl State {
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
