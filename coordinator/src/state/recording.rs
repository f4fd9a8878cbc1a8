//! Recording reports exactly once: each result is checked against its job, then its job is
//! completed in the corpus (a job already done is acknowledged and dropped) and its programs,
//! coverage, seeds and findings are recorded; a new signature queues its minimization.

use std::collections::BTreeSet;

use tcfuzz_corpus::{Completion, Corpus, Finding, Job, Kind, Recorded, Update, Work};
use tcfuzz_proto::v1;

use super::campaign::RATE_WINDOW_MS;
use super::epochs::{self, end_epoch};
use super::mirror::State;
use super::settings::WORKER_LOST_SIGNATURE;
use crate::error::{ServiceError, invalid};
use crate::explore::Explorations;
use crate::ids::{self, Class};
use crate::validate::{self, JobResult, Report};

impl State {
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
        run.totals.gpu.add(&r.gpu);
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
                // One without a program takes its features and makes no seed.
                if let Some(program) = &s.program
                    && !new.is_empty()
                    && let Some(id) = u.add_seed(job.campaign, now, &new, program)?
                {
                    self.seeds.added(id, new, program);
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
    pub(super) fn record_finding(&mut self, u: &mut Update<'_>, f: Finding) -> Result<(), ServiceError> {
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

    pub(super) fn enqueue_minimize(
        &mut self,
        u: &mut Update<'_>,
        campaign: u64,
        kind: Kind,
        signature: String,
    ) -> Result<u64, ServiceError> {
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
}
