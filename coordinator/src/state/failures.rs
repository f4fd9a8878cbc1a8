//! Jobs recorded as failed: their results were refused for good (`JobResult.refused`, see
//! `ReportResults` in the proto), so the worker reported the job as failed with why. Such a job
//! is done — not retried, not blamed on a program (a refusal is not a crash) — and its campaign
//! goes on; each campaign counts them and keeps the latest reasons for `CampaignStatus`.

use std::collections::VecDeque;

use tcfuzz_proto::v1;

/// Failed jobs whose reasons a campaign keeps for its status.
pub const KEPT: usize = 10;

/// A campaign's failed jobs: how many, and the latest [`KEPT`] with why.
#[derive(Debug, Default)]
pub struct Failures {
    count: u64,
    latest: VecDeque<v1::FailedJob>,
}

impl Failures {
    /// Counts a failed job, keeping the [`KEPT`] latest by time (then job id): failures come in
    /// time order while the coordinator runs, in job order when it loads them from the corpus.
    pub fn add(&mut self, job_id: u64, reason: &str, at_ms: u64) {
        self.count += 1;
        let at = self.latest.partition_point(|f| (f.failed_unix_ms, f.job_id) <= (at_ms, job_id));
        self.latest.insert(at, v1::FailedJob { job_id, reason: reason.to_string(), failed_unix_ms: at_ms });
        if self.latest.len() > KEPT {
            self.latest.pop_front();
        }
    }

    pub fn count(&self) -> u64 {
        self.count
    }

    /// The kept failures, oldest first.
    pub fn latest(&self) -> Vec<v1::FailedJob> {
        self.latest.iter().cloned().collect()
    }

    pub fn last(&self) -> Option<&v1::FailedJob> {
        self.latest.back()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_latest_failures_are_kept_oldest_first() {
        let mut f = Failures::default();
        for job in 0..(KEPT as u64 + 3) {
            f.add(job, &format!("r{job}"), 100 + job);
        }
        assert_eq!(f.count(), KEPT as u64 + 3);
        let kept: Vec<u64> = f.latest().iter().map(|j| j.job_id).collect();
        assert_eq!(kept, (3..KEPT as u64 + 3).collect::<Vec<_>>());
        assert_eq!(f.last().map(|j| j.reason.as_str()), Some("r12"));
    }

    #[test]
    fn loading_keeps_the_newest_whatever_the_job_order() {
        let mut f = Failures::default();
        // Loaded in job-id order; job 20 failed first.
        for job in 0..(KEPT as u64 + 1) {
            f.add(job + 1, "r", 1000 + job);
        }
        f.add(20, "first", 5);
        assert_eq!(f.count(), KEPT as u64 + 2);
        let kept: Vec<u64> = f.latest().iter().map(|j| j.job_id).collect();
        assert_eq!(kept, (2..=KEPT as u64 + 1).collect::<Vec<_>>());
    }
}
