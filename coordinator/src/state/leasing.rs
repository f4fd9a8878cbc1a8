//! Workers and their leases (ClusterFuzz's leasing): registering, leasing jobs round robin over
//! the campaigns, heartbeats that extend leases (and name the program a careful worker checks),
//! and the seed pool a leased job is generated with.

use std::collections::BTreeSet;

use tcfuzz_corpus::{Checking, Corpus, Job, Update, Work};
use tcfuzz_proto::v1;

use super::campaign::{Spec, enqueue_generate};
use super::mirror::{State, WorkerEntry};
use super::settings::now_ms;
use crate::error::{ServiceError, invalid};
use crate::seeds::Snapshot;
use crate::validate;

impl State {
    pub fn register(&mut self, r: v1::RegisterRequest, now: u64) -> Result<v1::RegisterResponse, ServiceError> {
        // The whole version, build fingerprint included: a worker of another build of the
        // same release generates other programs for the same job, or judges them otherwise.
        let ours = tcfuzz_proto::protocol_version();
        if r.version != ours {
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
        let (max_leases, cores) = self.worker(&r.worker_id, now).map(|w| (w.max_leases, w.cores))?;
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
        // A core of this worker is idle (not just room for a job ahead) and none was found.
        if jobs.is_empty() && held < cores && self.explorations.any_leased() {
            self.parts_wanted_ms = now;
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
        // Wanted while the idle worker keeps asking (every `idle_retry_ms`), and a little after.
        let wanted_for = 2 * self.settings.idle_retry_ms + 100;
        let parts_wanted = self.parts_wanted_ms > 0 && now.saturating_sub(self.parts_wanted_ms) <= wanted_for;
        Ok(v1::HeartbeatResponse { dropped_job_ids: dropped, deadline_unix_ms: deadline, parts_wanted })
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
}

/// A worker id nobody else has: a counter and the process's random hash key.
fn fresh_worker_id(counter: u64) -> String {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u64(counter);
    h.write_u64(now_ms());
    format!("w{counter}-{:016x}", h.finish())
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
