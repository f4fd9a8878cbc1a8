//! The `Admin` service's requests: creating and stopping campaigns, their status, split
//! explorations, and minimizing a discrepancy on request.

use std::collections::BTreeSet;

use tcfuzz_corpus::{Campaign, CampaignState, Corpus, Kind, StatsSample, Update};
use tcfuzz_proto::v1;

use super::campaign::{CampaignRun, SPEC_VERSION, Spec};
use super::epochs::{add_epoch_seeds, end_epoch};
use super::mirror::State;
use crate::error::{ServiceError, invalid};
use crate::ids;
use crate::validate;

impl State {
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
        let mut run = CampaignRun::new(Campaign { id, ..record }, spec, totals, now);
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
}
