//! Seed-pool epochs of a campaign (`crate::seeds`): which programs become seeds, and when.
//!
//! `tcfuzz fuzz` adds an epoch's seeds when the epoch ends, in program-index order: a program
//! becomes a seed with the features it reached that nothing reached before (the corpus before the
//! epoch, or an earlier program of the epoch). A campaign does the same whatever order its
//! workers' reports come in:
//! - as a report is recorded, the features it is the first to reach are the epoch's new features,
//!   and each of its seed candidates that reached some is kept with them, in the corpus
//!   (`seed_candidates`) and in memory, before the report is acknowledged;
//! - when the epoch's last program is recorded, the candidates become seeds in index order, each
//!   with the epoch's new features no earlier candidate took, and the next epoch begins with the
//!   pool as it is then, stored with the campaign (`pool_epochs`) so that a restart serves it
//!   unchanged.
//!
//! Workers send as candidates the programs that were the first of their job to reach a feature
//! the epoch's pool seeds lack and the worker's jobs of earlier epochs did not reach, with those
//! features (`tcfuzz_worker::Candidate`). That includes the first program of the epoch to reach
//! each feature new to the epoch, with that feature, and a program left out can take no feature
//! here: each of its features is the pool's or was reached in an earlier epoch (never new to the
//! epoch) or was reached by an earlier program of its job, so the first program of the epoch to
//! reach it comes before it in index order and takes it.
//! So the seeds, and the programs of every later epoch, are those of `tcfuzz fuzz` with the same
//! seed and config, however many workers ran the jobs, and a coordinator killed mid-epoch comes
//! back with the same pool and candidates. (Several campaigns running at once on one corpus share
//! its pool: each sees the others' seeds at its epochs' ends, whenever those come.)

use std::collections::HashSet;

use tcfuzz_corpus::{Corpus, SeedCandidate, Update};

use super::campaign::CampaignRun;
use super::mirror::State;
use crate::error::ServiceError;
use crate::seeds::SeedMirror;
use crate::validate;

/// Jobs per epoch and core below which a campaign's epochs are small: at an epoch's end each core
/// waits, on average, for about half a job of another core, so with `JOBS_PER_CORE` jobs per core
/// an epoch loses about an eighth of its time at most.
const JOBS_PER_CORE: u64 = 4;

/// The `pool_epoch` that gives `cores` cores [`JOBS_PER_CORE`] jobs of `job_programs` each per
/// epoch, when `pool_epoch` (with epochs) gives them fewer.
fn epoch_for(pool_epoch: u64, job_programs: u64, cores: u64) -> Option<u64> {
    let enough = JOBS_PER_CORE.saturating_mul(cores).saturating_mul(job_programs.max(1));
    (pool_epoch > 0 && pool_epoch < enough).then_some(enough)
}

impl State {
    /// Says once per campaign when its seed-pool epochs are small for the registered workers'
    /// cores: every epoch ends with a barrier (the next epoch's jobs wait for its last program),
    /// where cores wait for the last jobs.
    pub(super) fn warn_small_epochs(&mut self) {
        let cores: u64 = self.workers.values().map(|w| u64::from(w.cores)).sum();
        for run in self.campaigns.values_mut().filter(|r| r.running() && !r.warned_small_epoch) {
            if let Some(enough) = epoch_for(run.spec.pool_epoch, run.spec.job_programs, cores) {
                run.warned_small_epoch = true;
                tracing::warn!(
                    campaign = run.record.id,
                    pool_epoch = run.spec.pool_epoch,
                    job_programs = run.spec.job_programs,
                    cores,
                    "seed-pool epochs of {} programs are {} jobs for {cores} worker cores: cores wait at every epoch's end for the \
                     epoch's last jobs; a pool_epoch of at least {enough} programs keeps them busy",
                    run.spec.pool_epoch,
                    run.spec.pool_epoch.div_ceil(run.spec.job_programs.max(1)),
                );
            }
        }
    }
}

/// At load: each running campaign goes on with the epoch, pool and candidates it had.
pub(super) fn resume(state: &mut State, corpus: &Corpus, u: &mut Update<'_>, now: u64) -> Result<(), ServiceError> {
    for run in state.campaigns.values_mut().filter(|r| r.spec.pool_epoch > 0 && r.running()) {
        let id = run.record.id;
        for c in corpus.seed_candidates(id)? {
            run.epoch_new.extend(c.features.iter().cloned());
            run.candidates.insert(c.index, (c.features, c.program));
        }
        match corpus.pool_epoch(id)? {
            Some(epoch) => {
                run.epoch_end = epoch.end;
                run.pool = Some(state.seeds.resume(&epoch));
            }
            None => {
                // A campaign from before epochs were stored: its epoch is the one of its last
                // job, with the pool as it is now.
                run.epoch_end = run.next_index.div_ceil(run.spec.pool_epoch).saturating_mul(run.spec.pool_epoch);
                let (pool, epoch) = state.seeds.begin_epoch(id, run.epoch_end);
                u.put_pool_epoch(&epoch);
                run.pool = Some(pool);
            }
        }
        end_epoch(run, &mut state.seeds, u, now)?;
    }
    Ok(())
}

/// Keeps a report's candidates until the epoch ends; `new_features` are those the report was the
/// first to reach.
pub(super) fn keep_candidates(
    u: &mut Update<'_>,
    run: &mut CampaignRun,
    new_features: &std::collections::BTreeSet<&str>,
    candidates: &[validate::SeedCandidate],
) -> Result<(), ServiceError> {
    run.epoch_new.extend(new_features.iter().map(|f| f.to_string()));
    for s in candidates {
        let features: Vec<String> = s.features.iter().filter(|f| run.epoch_new.contains(f.as_str())).cloned().collect();
        if !features.is_empty() {
            let c = SeedCandidate { campaign: run.record.id, index: s.index, features, program: s.program.clone() };
            u.add_seed_candidate(&c)?;
            run.candidates.insert(c.index, (c.features, c.program));
        }
    }
    Ok(())
}

/// With pool epochs: once every program of the epoch is recorded (or the campaign wants no more
/// programs and none is being checked), the epoch's candidates become seeds, and if the campaign
/// goes on the next epoch begins, with the pool as the ledger has recorded it by now (so it
/// mutates what the epoch found).
pub(super) fn end_epoch(run: &mut CampaignRun, seeds: &mut SeedMirror, u: &mut Update<'_>, now: u64) -> Result<(), ServiceError> {
    if run.spec.pool_epoch == 0 || !run.running() || run.generating() {
        return Ok(());
    }
    let wants_more = run.wants_more(now);
    if wants_more && run.next_index < run.epoch_end {
        return Ok(());
    }
    add_epoch_seeds(run, seeds, u, now)?;
    if wants_more {
        run.epoch_end = run.epoch_end.saturating_add(run.spec.pool_epoch);
        let (pool, epoch) = seeds.begin_epoch(run.record.id, run.epoch_end);
        u.put_pool_epoch(&epoch);
        run.pool = Some(pool);
    }
    Ok(())
}

/// The epoch's candidates become seeds as `tcfuzz fuzz` chooses them (its `add_seeds`): in index
/// order, each with the features first reached in the epoch that no earlier candidate took (a
/// candidate without a program takes them and becomes no seed).
pub(super) fn add_epoch_seeds(run: &mut CampaignRun, seeds: &mut SeedMirror, u: &mut Update<'_>, now: u64) -> Result<(), ServiceError> {
    let campaign = run.record.id;
    let mut taken: HashSet<String> = HashSet::new();
    for (index, (features, program)) in std::mem::take(&mut run.candidates) {
        u.remove_seed_candidate(campaign, index);
        let new: Vec<String> = features.into_iter().filter(|f| !taken.contains(f)).collect();
        taken.extend(new.iter().cloned());
        // A candidate without a program takes its features and makes no seed.
        if let Some(program) = program
            && !new.is_empty()
            && let Some(id) = u.add_seed(campaign, now, &new, &program)?
        {
            seeds.added(id, new, &program);
        }
    }
    run.epoch_new.clear();
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_epoch_is_small_below_four_jobs_per_core() {
        // 1024 programs in jobs of 25 are 41 jobs: enough for 10 cores, not for 11.
        assert_eq!(epoch_for(1024, 25, 10), None);
        assert_eq!(epoch_for(1024, 25, 11), Some(1100));
        assert_eq!(epoch_for(60, 16, 2), Some(128));
        // No epochs, or no workers: nothing to say.
        assert_eq!(epoch_for(0, 16, 64), None);
        assert_eq!(epoch_for(60, 16, 0), None);
    }
}
