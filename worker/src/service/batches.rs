//! Reports within the coordinator's message limit, and the report of a job whose results the
//! coordinator refused for good (proto: `ReportResults`, `JobResult.refused`).
//!
//! A worker that kept finished results while the coordinator was away may hold many; sent in one
//! `ReportResults` they could pass the limit, and the whole report would be refused. So results
//! go in batches each within the limit (measured with prost's `encoded_len`, which is what
//! tonic's limit counts), and a result over the limit by itself is never sent: its job is
//! reported as failed instead, with a short message that always fits.

use prost::Message;
use tcfuzz_proto::v1;
use tonic::{Code, Status};

/// The most bytes of a failed job's reason (the coordinator's `MAX_ERROR`, proto
/// `JobResult.refused`).
pub const MAX_REASON: usize = 4 << 10;

/// The refusals that sending the same result again cannot cure (proto: `ReportResults`):
/// validation, and a message over the limit (tonic says OUT_OF_RANGE, other gRPC
/// implementations RESOURCE_EXHAUSTED). FAILED_PRECONDITION is not one: this coordinator says it
/// of a worker it does not know, which registering again cures.
pub fn is_permanent(status: &Status) -> bool {
    matches!(status.code(), Code::InvalidArgument | Code::OutOfRange | Code::ResourceExhausted)
}

/// Bytes of a report from `worker_id` that holds no result.
pub fn base_len(worker_id: &str) -> usize {
    v1::ReportResultsRequest { worker_id: worker_id.to_string(), ..Default::default() }.encoded_len()
}

/// Bytes one result adds to a report (field 2, length-delimited).
pub fn cost(result: &v1::JobResult) -> usize {
    prost::encoding::message::encoded_len(2, result)
}

/// How many of `results`, from the first, go in the next report: as many as fit within `limit`
/// together with `base` bytes, stopping before one that must go `alone` (a result of a batch the
/// coordinator refused, sent alone to find the refused one). At least one: the first goes alone
/// when it does not fit with others (the caller makes sure it fits by itself).
pub fn next_batch(base: usize, results: &[v1::JobResult], limit: usize, alone: impl Fn(&v1::JobResult) -> bool) -> usize {
    let Some(first) = results.first() else { return 0 };
    if alone(first) {
        return 1;
    }
    let mut size = base.saturating_add(cost(first));
    let mut n = 1;
    for r in &results[1..] {
        size = size.saturating_add(cost(r));
        if alone(r) || size > limit {
            break;
        }
        n += 1;
    }
    n
}

/// The gRPC name of a code, as the proto's comments write it (`INVALID_ARGUMENT`).
fn code_name(code: Code) -> String {
    let mut name = String::new();
    for (i, c) in format!("{code:?}").chars().enumerate() {
        if c.is_ascii_uppercase() && i > 0 {
            name.push('_');
        }
        name.push(c.to_ascii_uppercase());
    }
    name
}

/// Why a result was refused, from the coordinator's answer: its code and text.
pub fn reason(status: &Status) -> String {
    format!("the coordinator refused the result: {}: {}", code_name(status.code()), status.message())
}

/// The report of job `job_id` as failed: `why`, made valid (no control characters but newlines
/// and tabs, the protocol's text rule) and cut to [`MAX_REASON`] bytes on a character boundary.
pub fn refused(job_id: u64, why: &str) -> v1::JobResult {
    const CUT: &str = " [cut]";
    let mut text: String = why.chars().map(|c| if c.is_control() && c != '\n' && c != '\t' { ' ' } else { c }).collect();
    if text.trim().is_empty() {
        text = "refused, without a reason".into();
    }
    if text.len() > MAX_REASON {
        let mut end = MAX_REASON - CUT.len();
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        text.truncate(end);
        text.push_str(CUT);
    }
    v1::JobResult { job_id, refused: text, ..Default::default() }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A result of about `bytes` bytes (coverage features).
    fn result(job_id: u64, bytes: usize) -> v1::JobResult {
        let coverage = (0..bytes / 100).map(|i| v1::FeatureCount { name: format!("{job_id}:{i}:{}", "f".repeat(90)), count: 1 }).collect();
        v1::JobResult {
            job_id,
            stats: Some(v1::Stats { programs: 1, executions: 1, ..Default::default() }),
            coverage,
            ..Default::default()
        }
    }

    #[test]
    fn a_report_costs_what_prost_encodes() {
        let results: Vec<v1::JobResult> = (0..5).map(|j| result(j, 1000 * j as usize)).collect();
        let request = v1::ReportResultsRequest { worker_id: "w1-0123".into(), results: results.clone(), returned_job_ids: vec![] };
        assert_eq!(base_len("w1-0123") + results.iter().map(cost).sum::<usize>(), request.encoded_len());
    }

    #[test]
    fn results_are_batched_within_the_limit() {
        let results: Vec<v1::JobResult> = (0..6).map(|j| result(j, 100_000)).collect();
        let base = base_len("w");
        let limit = 256 << 10;
        let mut rest: &[v1::JobResult] = &results;
        let mut batches = Vec::new();
        while !rest.is_empty() {
            let n = next_batch(base, rest, limit, |_| false);
            let size = base + rest[..n].iter().map(cost).sum::<usize>();
            assert!(size <= limit, "a batch of {n} is {size} bytes");
            // Maximal: one more would not fit.
            if let Some(next) = rest.get(n) {
                assert!(size + cost(next) > limit);
            }
            batches.push(n);
            rest = &rest[n..];
        }
        assert_eq!(batches, vec![2, 2, 2]);
        // A result to be sent alone ends the batch before it, and goes alone.
        assert_eq!(next_batch(base, &results, limit, |r| r.job_id == 1), 1);
        assert_eq!(next_batch(base, &results[1..], limit, |r| r.job_id == 1), 1);
        assert_eq!(next_batch(base, &[], limit, |_| false), 0);
    }

    #[test]
    fn a_refusal_becomes_a_short_valid_failure_report() {
        let status = Status::invalid_argument("results[0].findings[0].sides: 3 sides, a discrepancy has exactly 2");
        assert_eq!(
            reason(&status),
            "the coordinator refused the result: INVALID_ARGUMENT: results[0].findings[0].sides: 3 sides, a discrepancy has exactly 2"
        );
        assert!(reason(&Status::out_of_range("too large")).contains(": OUT_OF_RANGE: too large"));
        let r = refused(7, &format!("a\u{0}b{}", "é".repeat(5000)));
        assert_eq!(r.job_id, 7);
        assert!(r.refused.starts_with("a b") && r.refused.ends_with(" [cut]") && r.refused.len() <= MAX_REASON);
        assert_eq!(r.stats, None);
        assert_eq!(refused(7, "\u{1}").refused, "refused, without a reason");
        assert!(is_permanent(&status) && !is_permanent(&Status::unavailable("x")) && !is_permanent(&Status::failed_precondition("x")));
    }
}
