//! The coordinator's job queue, kept in the corpus so that a restarted coordinator resumes where
//! it stopped (DESIGN §5).
//!
//! Three trees: `jobs` (id → [`Job`], the truth), `job_queue` (ids of queued jobs, handed out in
//! id order) and `lease_deadlines` (deadline ++ id of leased jobs, so expired leases are a range
//! scan up to now). Each operation updates all three in one [`Update`], so they never disagree
//! after a crash; `tcfuzz corpus check` verifies they agree.

use crate::Update;
use crate::error::{CorpusError, Result};
use crate::records::{Checking, Job, JobState, Marker, Work, keys};
use crate::store::Tree;

/// What completing a job did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Completion {
    /// The job is now done: record its results in the same update.
    Recorded,
    /// It was done already (a late or repeated report): drop the results (exactly-once recording).
    AlreadyDone,
}

impl Update<'_> {
    /// Queues a new job of `campaign`; returns its id.
    pub fn enqueue_job(&mut self, campaign: u64, work: Work) -> Result<u64> {
        let id = self.next_id(Tree::Jobs)?;
        self.enqueue_job_as(id, campaign, work)?;
        Ok(id)
    }

    /// Queues a new job under an id the caller chose (the coordinator derives ids from the
    /// campaign and the job's place in it, so an id names the same work after a restart). An id
    /// already taken is an error: a job is never replaced.
    pub fn enqueue_job_as(&mut self, id: u64, campaign: u64, work: Work) -> Result<()> {
        if self.get::<Job>(&keys::id(id))?.is_some() {
            return Err(CorpusError::Invalid(format!("job {id} exists already")));
        }
        self.put(&keys::id(id), &Job { id, campaign, work, state: JobState::Queued, attempts: 0 });
        self.put_in(Tree::JobQueue, &keys::id(id), &Marker);
        self.fresh_jobs.insert(id);
        // `lease_next` scans the store, so it does not hand out a job queued by this same update
        // and its cursor needs no change; `lease_job` does.
        Ok(())
    }

    fn job(&self, id: u64) -> Result<Job> {
        self.get::<Job>(&keys::id(id))?.ok_or_else(|| CorpusError::Invalid(format!("no job {id}")))
    }

    fn set_state(&mut self, mut job: Job, state: JobState) {
        let key = keys::id(job.id);
        let old = match &job.state {
            JobState::Queued => Some((Tree::JobQueue, key.clone())),
            JobState::Leased { deadline_ms, .. } => Some((Tree::LeaseDeadlines, keys::pair(*deadline_ms, job.id))),
            JobState::Done { .. } => None,
        };
        if let Some((tree, old)) = old {
            // The store holds no index entry of a job this update queued: its old entry is
            // forgotten, not removed, which saves two writes per job when the coordinator
            // creates a job as it leases it.
            if self.fresh_jobs.contains(&job.id) {
                self.forget(tree, &old);
            } else {
                self.remove(tree, &old);
            }
        }
        match &state {
            JobState::Queued => self.put_in(Tree::JobQueue, &key, &Marker),
            JobState::Leased { deadline_ms, .. } => self.put_in(Tree::LeaseDeadlines, &keys::pair(*deadline_ms, job.id), &Marker),
            JobState::Done { .. } => {}
        }
        job.state = state;
        self.put(&key, &job);
    }

    /// Leases the oldest queued job to `worker` until `deadline_ms`; `None` if none is queued.
    pub fn lease_next(&mut self, worker: &str, deadline_ms: u64) -> Result<Option<Job>> {
        // The store's queue, skipping jobs this update already took (a job queued by this same
        // update is not handed out by it). The scan starts after the last job this update leased:
        // every queued job before it was taken or changed by this update, so a batch of n leases
        // reads n entries, not n²/2.
        let corpus = self.corpus();
        let start = self.lease_cursor.map_or_else(Vec::new, |id| keys::id(id.saturating_add(1)));
        for entry in corpus.scan::<Marker>(Tree::JobQueue, &start, None) {
            let (k, _) = entry?;
            let id = keys::parse_id(&k).ok_or_else(|| CorpusError::Corrupt {
                tree: Tree::JobQueue,
                key: keys::show(Tree::JobQueue, &k),
                reason: "not an 8-byte job id".into(),
            })?;
            let mut job = self.job(id)?;
            if job.state == JobState::Queued {
                job.attempts += 1;
                self.set_state(job, JobState::Leased { worker: worker.to_string(), deadline_ms, checking: None });
                self.lease_cursor = Some(id);
                return self.job(id).map(Some);
            }
        }
        Ok(None)
    }

    /// Leases queued job `id` to `worker` until `deadline_ms`, out of queue order (the
    /// coordinator hands out an exploration's parts before older campaigns' jobs); `None` if it
    /// is not queued.
    pub fn lease_job(&mut self, id: u64, worker: &str, deadline_ms: u64) -> Result<Option<Job>> {
        let mut job = self.job(id)?;
        if job.state != JobState::Queued {
            return Ok(None);
        }
        job.attempts += 1;
        self.set_state(job, JobState::Leased { worker: worker.to_string(), deadline_ms, checking: None });
        // `lease_next`'s cursor stays: it skips jobs this update leased by their state.
        self.job(id).map(Some)
    }

    /// Moves the deadline of `worker`'s lease on job `id`; `false` if the job is not leased to it
    /// (any more).
    pub fn extend_lease(&mut self, id: u64, worker: &str, deadline_ms: u64) -> Result<bool> {
        let job = self.job(id)?;
        match &job.state {
            JobState::Leased { worker: w, checking, .. } if w == worker => {
                let checking = checking.clone();
                self.set_state(job, JobState::Leased { worker: worker.to_string(), deadline_ms, checking });
                Ok(true)
            }
            _ => Ok(false),
        }
    }

    /// Records the program `worker` is about to check in job `id` (a careful worker names each
    /// one first; if this lease is lost, that program is blamed); `false` if the job is not
    /// leased to it.
    pub fn set_checking(&mut self, id: u64, worker: &str, checking: Checking) -> Result<bool> {
        let mut job = self.job(id)?;
        match &mut job.state {
            JobState::Leased { worker: w, checking: slot, .. } if w == worker => {
                *slot = Some(checking);
                self.put(&keys::id(id), &job);
                Ok(true)
            }
            _ => Ok(false),
        }
    }

    /// Puts job `id`, leased to `worker` and not started, back in the queue without counting
    /// the lease as an attempt (a worker shutting down hands back what it did not begin);
    /// `false` if the job is not leased to `worker`.
    pub fn return_job(&mut self, id: u64, worker: &str) -> Result<bool> {
        let mut job = self.job(id)?;
        match &job.state {
            JobState::Leased { worker: w, .. } if w == worker => {
                job.attempts = job.attempts.saturating_sub(1);
                self.set_state(job, JobState::Queued);
                Ok(true)
            }
            _ => Ok(false),
        }
    }

    /// Takes queued job `id` out of the queue, done without results (its campaign was stopped);
    /// `false` if it is not queued.
    pub fn cancel_job(&mut self, id: u64, at_ms: u64) -> Result<bool> {
        let job = self.job(id)?;
        if job.state != JobState::Queued {
            return Ok(false);
        }
        self.set_state(job, JobState::Done { at_ms, failed: None });
        Ok(true)
    }

    /// Marks job `id` done, whoever reports it (a result that arrives after its lease expired
    /// still counts, once).
    pub fn complete_job(&mut self, id: u64, at_ms: u64) -> Result<Completion> {
        let job = self.job(id)?;
        if matches!(job.state, JobState::Done { .. }) {
            return Ok(Completion::AlreadyDone);
        }
        self.set_state(job, JobState::Done { at_ms, failed: None });
        Ok(Completion::Recorded)
    }

    /// Marks job `id` done as failed, with why (its results were refused), whoever reports it:
    /// exactly once, like [`Update::complete_job`], which a failure also cannot follow.
    pub fn fail_job(&mut self, id: u64, reason: &str, at_ms: u64) -> Result<Completion> {
        let job = self.job(id)?;
        if matches!(job.state, JobState::Done { .. }) {
            return Ok(Completion::AlreadyDone);
        }
        self.set_state(job, JobState::Done { at_ms, failed: Some(reason.to_string()) });
        Ok(Completion::Recorded)
    }

    /// Marks explore job `id` done with its part's verdict `part`, whoever reports it (exactly
    /// once, like [`Update::complete_job`]).
    pub fn record_part(&mut self, id: u64, part: &str, at_ms: u64) -> Result<Completion> {
        let mut job = self.job(id)?;
        if matches!(job.state, JobState::Done { .. }) {
            return Ok(Completion::AlreadyDone);
        }
        let Work::Explore { part: slot, .. } = &mut job.work else {
            return Err(CorpusError::Invalid(format!("job {id} is not an explore job")));
        };
        *slot = Some(part.to_string());
        self.set_state(job, JobState::Done { at_ms, failed: None });
        Ok(Completion::Recorded)
    }

    /// Puts every job whose lease deadline is before `now_ms` back in the queue; returns them as
    /// they were, leased (with what their worker was checking).
    pub fn requeue_expired(&mut self, now_ms: u64) -> Result<Vec<Job>> {
        let end = keys::id(now_ms);
        let mut expired = Vec::new();
        for entry in self.corpus().scan::<Marker>(Tree::LeaseDeadlines, &[], Some(&end)) {
            let (k, _) = entry?;
            let (_, id) = keys::parse_pair(&k).ok_or_else(|| CorpusError::Corrupt {
                tree: Tree::LeaseDeadlines,
                key: keys::show(Tree::LeaseDeadlines, &k),
                reason: "not deadline ++ job id".into(),
            })?;
            expired.push(id);
        }
        let mut requeued = Vec::new();
        for id in expired {
            let job = self.job(id)?;
            if matches!(job.state, JobState::Leased { deadline_ms, .. } if deadline_ms < now_ms) {
                self.set_state(job.clone(), JobState::Queued);
                requeued.push(job);
            }
        }
        Ok(requeued)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Corpus;

    fn generate(first_index: u64) -> Work {
        Work::Generate { first_index, count: 100 }
    }

    #[test]
    fn jobs_are_leased_in_order_expire_and_complete_exactly_once() {
        let c = Corpus::in_memory().unwrap();
        let mut u = c.update().unwrap();
        assert_eq!(u.enqueue_job(1, generate(0)).unwrap(), 1);
        assert_eq!(u.enqueue_job(1, generate(100)).unwrap(), 2);
        u.commit().unwrap();

        let mut u = c.update().unwrap();
        let j = u.lease_next("w1", 1000).unwrap().unwrap();
        assert_eq!((j.id, j.attempts), (1, 1));
        let j = u.lease_next("w2", 2000).unwrap().unwrap();
        assert_eq!(j.id, 2);
        assert_eq!(u.lease_next("w3", 2000).unwrap(), None);
        u.commit().unwrap();

        // w1's lease expires; w2 extends its own, and cannot extend w1's.
        let mut u = c.update().unwrap();
        assert!(u.extend_lease(2, "w2", 5000).unwrap());
        assert!(!u.extend_lease(1, "w2", 5000).unwrap());
        assert_eq!(u.requeue_expired(1500).unwrap().iter().map(|j| j.id).collect::<Vec<_>>(), vec![1]);
        u.commit().unwrap();
        assert_eq!(c.job(1).unwrap().unwrap().state, JobState::Queued);
        assert_eq!(c.job(2).unwrap().unwrap().attempts, 1);

        let mut u = c.update().unwrap();
        let j = u.lease_next("w3", 9000).unwrap().unwrap();
        assert_eq!((j.id, j.attempts), (1, 2));
        assert_eq!(u.complete_job(1, 3000).unwrap(), Completion::Recorded);
        // The late report of the first lease is dropped.
        assert_eq!(u.complete_job(1, 3001).unwrap(), Completion::AlreadyDone);
        u.commit().unwrap();

        assert_eq!(c.counts().unwrap().iter().find(|(t, _)| *t == Tree::LeaseDeadlines).unwrap().1, 1);
        assert!(c.check().unwrap().problems.is_empty());
    }

    #[test]
    fn an_explore_part_is_recorded_with_its_verdict_exactly_once() {
        let c = Corpus::in_memory().unwrap();
        let mut u = c.update().unwrap();
        u.enqueue_job_as(7, 1, Work::Explore { subtree: "subtree 00ff:0:0.1".into(), part: None }).unwrap();
        u.enqueue_job_as(8, 1, generate(0)).unwrap();
        u.commit().unwrap();
        let mut u = c.update().unwrap();
        assert_eq!(u.lease_next("w1", 100).unwrap().unwrap().id, 7);
        assert_eq!(u.record_part(7, "first", 50).unwrap(), Completion::Recorded);
        assert_eq!(u.record_part(7, "late", 60).unwrap(), Completion::AlreadyDone);
        assert!(matches!(u.record_part(8, "x", 60), Err(CorpusError::Invalid(m)) if m == "job 8 is not an explore job"));
        u.commit().unwrap();
        let job = c.job(7).unwrap().unwrap();
        assert_eq!(job.work, Work::Explore { subtree: "subtree 00ff:0:0.1".into(), part: Some("first".into()) });
        assert_eq!(job.state, JobState::Done { at_ms: 50, failed: None });
        assert!(c.check().unwrap().problems.is_empty());
    }

    #[test]
    fn a_failed_job_is_done_once_with_its_reason() {
        let c = Corpus::in_memory().unwrap();
        let mut u = c.update().unwrap();
        u.enqueue_job_as(9, 1, generate(0)).unwrap();
        u.commit().unwrap();
        let mut u = c.update().unwrap();
        assert_eq!(u.lease_next("w1", 100).unwrap().unwrap().id, 9);
        assert_eq!(u.fail_job(9, "refused", 50).unwrap(), Completion::Recorded);
        // Exactly once: neither a second failure nor a late result changes it.
        assert_eq!(u.fail_job(9, "again", 60).unwrap(), Completion::AlreadyDone);
        assert_eq!(u.complete_job(9, 70).unwrap(), Completion::AlreadyDone);
        u.commit().unwrap();
        assert_eq!(c.job(9).unwrap().unwrap().state, JobState::Done { at_ms: 50, failed: Some("refused".into()) });
        assert!(c.check().unwrap().problems.is_empty());
    }

    #[test]
    fn chosen_ids_batched_leases_returns_and_cancels() {
        let c = Corpus::in_memory().unwrap();
        let mut u = c.update().unwrap();
        for id in [30, 10, 20, 40] {
            u.enqueue_job_as(id, 1, generate(id)).unwrap();
        }
        assert!(matches!(u.enqueue_job_as(10, 1, generate(0)), Err(CorpusError::Invalid(m)) if m == "job 10 exists already"));
        u.commit().unwrap();

        // One update leases several jobs in id order (the cursor skips the ones it took).
        let mut u = c.update().unwrap();
        let ids: Vec<u64> = (0..3).map(|_| u.lease_next("w1", 100).unwrap().unwrap().id).collect();
        assert_eq!(ids, vec![10, 20, 30]);
        // Handed back unstarted: queued again, and the lease does not count as an attempt.
        assert!(u.return_job(20, "w1").unwrap());
        assert!(!u.return_job(20, "w1").unwrap());
        assert!(!u.return_job(30, "w2").unwrap());
        // A stopped campaign's queued job leaves the queue; a leased one is not cancelled.
        assert!(u.cancel_job(40, 50).unwrap());
        assert!(!u.cancel_job(30, 50).unwrap());
        u.commit().unwrap();
        assert_eq!(c.job(20).unwrap().unwrap().attempts, 0);
        assert_eq!(c.job(40).unwrap().unwrap().state, JobState::Done { at_ms: 50, failed: None });

        let mut u = c.update().unwrap();
        assert_eq!(u.lease_next("w2", 100).unwrap().map(|j| (j.id, j.attempts)), Some((20, 1)));
        assert_eq!(u.lease_next("w2", 100).unwrap(), None);
        u.commit().unwrap();
        assert!(c.check().unwrap().problems.is_empty());
    }

    #[test]
    fn what_a_worker_names_stays_with_its_lease_through_extensions_and_comes_back_when_it_expires() {
        let c = Corpus::in_memory().unwrap();
        let mut u = c.update().unwrap();
        u.enqueue_job_as(1, 1, generate(0)).unwrap();
        u.commit().unwrap();
        let mut u = c.update().unwrap();
        u.lease_next("w1", 1000).unwrap().unwrap();
        let named = Checking { index: 42, program: "PTX x".into() };
        assert!(!u.set_checking(1, "w2", named.clone()).unwrap(), "not w2's lease");
        assert!(u.set_checking(1, "w1", named.clone()).unwrap());
        u.commit().unwrap();
        let mut u = c.update().unwrap();
        assert!(u.extend_lease(1, "w1", 2000).unwrap());
        u.commit().unwrap();
        let leased = JobState::Leased { worker: "w1".into(), deadline_ms: 2000, checking: Some(named) };
        assert_eq!(c.job(1).unwrap().unwrap().state, leased);
        let mut u = c.update().unwrap();
        let expired = u.requeue_expired(2500).unwrap();
        assert_eq!(expired.iter().map(|j| &j.state).collect::<Vec<_>>(), [&leased]);
        u.commit().unwrap();
        // Leased again: nothing named yet.
        let mut u = c.update().unwrap();
        let again = u.lease_next("w2", 9000).unwrap().unwrap();
        assert_eq!(again.state, JobState::Leased { worker: "w2".into(), deadline_ms: 9000, checking: None });
        u.commit().unwrap();
        assert!(c.check().unwrap().problems.is_empty());
    }

    /// Counts the writes each applied batch holds, per tree.
    struct CountingStore {
        inner: crate::store::MemoryStore,
        writes: std::sync::Arc<std::sync::Mutex<Vec<Tree>>>,
    }

    impl crate::store::Store for CountingStore {
        fn get(&self, tree: Tree, key: &[u8]) -> std::result::Result<Option<Vec<u8>>, crate::store::StoreError> {
            self.inner.get(tree, key)
        }
        fn range<'a>(&'a self, tree: Tree, start: &[u8], end: Option<&[u8]>) -> crate::store::Entries<'a> {
            self.inner.range(tree, start, end)
        }
        fn apply(&self, writes: &[crate::store::Write]) -> std::result::Result<(), crate::store::StoreError> {
            self.writes.lock().unwrap().extend(writes.iter().map(|w| w.tree).filter(|&t| t != Tree::Meta));
            self.inner.apply(writes)
        }
        fn flush(&self) -> std::result::Result<(), crate::store::StoreError> {
            Ok(())
        }
        fn size_on_disk(&self) -> std::result::Result<u64, crate::store::StoreError> {
            Ok(0)
        }
    }

    /// Regression (coordinator capacity, issue 23): a job queued and leased by one update wrote
    /// its queue entry and that entry's removal, five writes where two do.
    #[test]
    fn a_job_queued_and_leased_by_one_update_writes_only_its_record_and_its_deadline() {
        let writes = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let c = Corpus::with_store(Box::new(CountingStore { inner: crate::store::MemoryStore::new(), writes: writes.clone() })).unwrap();
        writes.lock().unwrap().clear();
        let mut u = c.update().unwrap();
        u.enqueue_job_as(1, 1, generate(0)).unwrap();
        assert_eq!(u.lease_job(1, "w1", 100).unwrap().map(|j| j.attempts), Some(1));
        // Handed back and leased again in the same update: still nothing in the queue's tree.
        assert!(u.return_job(1, "w1").unwrap());
        assert!(u.lease_job(1, "w2", 200).unwrap().is_some());
        u.commit().unwrap();
        assert_eq!(*writes.lock().unwrap(), [Tree::Jobs, Tree::LeaseDeadlines]);
        assert_eq!(c.job(1).unwrap().unwrap().state, JobState::Leased { worker: "w2".into(), deadline_ms: 200, checking: None });

        // A job queued by an earlier update leaves the queue with a removal.
        writes.lock().unwrap().clear();
        let mut u = c.update().unwrap();
        u.enqueue_job_as(2, 1, generate(100)).unwrap();
        u.commit().unwrap();
        let mut u = c.update().unwrap();
        assert!(u.lease_job(2, "w1", 100).unwrap().is_some());
        u.commit().unwrap();
        let mut written = writes.lock().unwrap().clone();
        written.sort();
        assert_eq!(written, [Tree::Jobs, Tree::Jobs, Tree::JobQueue, Tree::JobQueue, Tree::LeaseDeadlines]);
        assert!(c.check().unwrap().problems.is_empty());
    }

    #[test]
    fn a_job_leased_out_of_order_is_skipped_by_the_queue_and_counts_an_attempt() {
        let c = Corpus::in_memory().unwrap();
        let mut u = c.update().unwrap();
        for id in [10, 20, 30] {
            u.enqueue_job_as(id, 1, generate(id)).unwrap();
        }
        u.commit().unwrap();
        let mut u = c.update().unwrap();
        assert_eq!(u.lease_job(30, "w1", 100).unwrap().map(|j| (j.id, j.attempts)), Some((30, 1)));
        assert_eq!(u.lease_job(30, "w2", 100).unwrap(), None, "leased already");
        assert_eq!(u.lease_job(99, "w2", 100).unwrap_err().to_string(), "no job 99");
        let ids: Vec<Option<u64>> = (0..3).map(|_| u.lease_next("w2", 100).unwrap().map(|j| j.id)).collect();
        assert_eq!(ids, vec![Some(10), Some(20), None]);
        u.commit().unwrap();
        assert!(c.check().unwrap().problems.is_empty());
    }
}
