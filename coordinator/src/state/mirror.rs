//! The state the ledger thread owns ([`State`]): campaigns, workers and leases in memory,
//! mirrored from the corpus, and the bookkeeping every kind of request shares (finding a
//! worker, dropping a lease, counting a job done).

use std::collections::{BTreeMap, BTreeSet, HashMap};

use super::campaign::CampaignRun;
use super::settings::Settings;
use crate::error::ServiceError;
use crate::explore::Explorations;
use crate::seeds::SeedMirror;

pub(super) struct WorkerEntry {
    pub(super) name: String,
    pub(super) cores: u32,
    pub(super) gpu_arch: String,
    pub(super) max_leases: u32,
    pub(super) last_seen_ms: u64,
}

/// Everything the ledger thread owns.
pub struct State {
    pub(super) settings: Settings,
    pub(super) campaigns: BTreeMap<u64, CampaignRun>,
    pub(super) workers: HashMap<String, WorkerEntry>,
    /// Job → worker, for every leased job (also of workers not registered since a restart).
    pub(super) lease_of: HashMap<u64, String>,
    /// Worker → its leased jobs. (What a careful worker is checking is kept with its lease in
    /// the corpus, so that a restart does not forget whom to blame.)
    pub(super) leases: HashMap<String, BTreeSet<u64>>,
    pub(super) explorations: Explorations,
    pub(super) seeds: SeedMirror,
    pub(super) next_worker: u64,
    /// The campaign the last campaign job was leased from: the next lease starts after it, so
    /// that campaigns take turns (round robin) and a newer one is not starved by an older one.
    pub(super) last_leased_campaign: u64,
    /// When a worker last found no job to lease while parts of an exploration were leased (0:
    /// never): heartbeats say parts are wanted for a while after (`HeartbeatResponse`).
    pub(super) parts_wanted_ms: u64,
}

impl State {
    pub(super) fn worker(&mut self, id: &str, now: u64) -> Result<&mut WorkerEntry, ServiceError> {
        let w = self.workers.get_mut(id).ok_or_else(|| ServiceError::UnknownWorker(id.to_string()))?;
        w.last_seen_ms = now;
        Ok(w)
    }

    pub(super) fn unlease(&mut self, id: u64) {
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
    pub(super) fn job_done(&mut self, id: u64, campaign: u64) {
        self.unlease(id);
        if let Some(run) = self.campaigns.get_mut(&campaign) {
            run.queued.remove(&id);
            run.leased.remove(&id);
            run.done += 1;
        }
    }
}
