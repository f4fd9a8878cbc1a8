//! Rebuilding the state from the corpus when the coordinator starts (or after a failed batch):
//! campaigns, their queues and totals, failed jobs, epochs, and the leases found there.

use std::collections::{BTreeMap, HashMap};

use tcfuzz_corpus::{Corpus, JobState, Update, Work};

use super::campaign::{CampaignRun, spec_of};
use super::mirror::State;
use super::settings::{Settings, now_ms};
use super::{epochs, legacy};
use crate::error::ServiceError;
use crate::explore::Explorations;
use crate::ids::{self, Class};
use crate::seeds::SeedMirror;

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
            let run = CampaignRun::new(record, spec, totals, totals.at_ms);
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
            parts_wanted_ms: 0,
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
}
