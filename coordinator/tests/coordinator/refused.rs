//! Results the coordinator refuses for good (proto: `ReportResults`, `JobResult.refused`): the
//! worker reports the job as failed with why, and the coordinator records it as failed — done,
//! exactly once, durably, not retried, not blamed on a program — and the campaign goes on.

use std::time::Duration;

use tcfuzz_coordinator::{MIN_MESSAGE_BYTES, Settings};
use tcfuzz_corpus::{Corpus, JobState};
use tcfuzz_proto::v1;
use tonic::Code;

use crate::common::*;

fn refused(job: &v1::Job, why: &str) -> v1::JobResult {
    v1::JobResult { job_id: job.id, refused: why.into(), ..Default::default() }
}

/// The regression: a refused report was dropped, its lease ran out, the job was retried, and
/// after two "lost" workers the coordinator recorded a false `checker-crash`.
#[tokio::test]
async fn a_refused_result_makes_a_failed_job_not_a_retry_nor_a_checker_crash() {
    let dir = tempfile::tempdir().unwrap();
    // Short leases: were the failed job leased again, it would be within the waits below.
    let server = Server::start(dir.path(), 300).await;
    let (mut w, mut a) = (server.worker(), server.admin());
    let id = create(&mut a, 3, 1).await;
    let me = register(&mut w, 2).await.worker_id;
    let jobs = lease(&mut w, &me, 3).await;
    assert_eq!(jobs.len(), 3);

    // A result the coordinator refuses: nothing is written, the worker is told why.
    let mut bad = result(&jobs[0]);
    bad.findings.push(v1::Finding {
        kind: v1::DiscrepancyKind::PatternBroken as i32,
        signature: "sig".into(),
        index: range(&jobs[0]).start,
        program: PROGRAM.into(),
        sides: vec![v1::Side { name: "a".into(), verdict: "x".into() }; 3],
    });
    let request = v1::ReportResultsRequest { worker_id: me.clone(), results: vec![bad], returned_job_ids: vec![] };
    let status = w.report_results(request).await.unwrap_err();
    assert_eq!(
        (status.code(), status.message()),
        (Code::InvalidArgument, "results[0].findings[0].sides: 3 sides, a discrepancy has exactly 2")
    );
    let why = format!("the coordinator refused the result: INVALID_ARGUMENT: {}", status.message());

    // The failure report is recorded once; a repeat and a late real result are dropped.
    assert_eq!(report(&mut w, &me, vec![refused(&jobs[0], &why)]).await, vec![v1::Recording::Recorded]);
    assert_eq!(report(&mut w, &me, vec![refused(&jobs[0], "again")]).await, vec![v1::Recording::AlreadyRecorded]);
    assert_eq!(report(&mut w, &me, vec![result(&jobs[0])]).await, vec![v1::Recording::AlreadyRecorded]);
    // The other jobs' leases run out meanwhile and they are leased again; the failed one is not.
    tokio::time::sleep(Duration::from_millis(700)).await;
    let again = lease(&mut w, &me, 4).await;
    let mut again_ids: Vec<u64> = again.iter().map(|j| j.id).collect();
    again_ids.sort_unstable();
    assert_eq!(again_ids, vec![jobs[1].id, jobs[2].id]);
    assert_eq!(report(&mut w, &me, again.iter().map(result).collect()).await, vec![v1::Recording::Recorded; 2]);

    let c = wait_for(&mut a, id, "finish", |c| c.state == v1::CampaignState::Finished as i32).await;
    assert_eq!((c.jobs_done, c.jobs_failed, c.stats.unwrap().programs), (3, 1, 2));
    assert_eq!(c.failed_jobs.iter().map(|f| (f.job_id, f.reason.as_str())).collect::<Vec<_>>(), vec![(jobs[0].id, why.as_str())]);
    let listed = a.list_discrepancies(v1::ListDiscrepanciesRequest::default()).await.unwrap().into_inner();
    assert!(listed.discrepancies.is_empty(), "no discrepancy (no checker-crash): {:?}", listed.discrepancies);
    server.stop().await;

    // On disk before it was acknowledged: a restarted coordinator shows it, and the corpus has it.
    let server = Server::start(dir.path(), 300).await;
    let c = campaign(&mut server.admin(), id).await;
    assert_eq!((c.state, c.jobs_failed), (v1::CampaignState::Finished as i32, 1));
    assert_eq!(c.failed_jobs[0].reason, why);
    server.stop().await;
    let corpus = Corpus::open_existing(dir.path()).unwrap();
    let job = corpus.job(jobs[0].id).unwrap().unwrap();
    assert!(matches!(&job.state, JobState::Done { failed: Some(r), .. } if *r == why), "{job:?}");
    assert_eq!(job.attempts, 1, "the failed job was leased once");
    assert_eq!(corpus.discrepancies().count(), 0);
}

#[tokio::test]
async fn a_refused_part_fails_its_exploration_with_why() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path(), 60_000).await;
    let (mut w, mut a) = (server.worker(), server.admin());
    let exploration = a.explore_program(exploration()).await.unwrap().into_inner().exploration;
    let me = register(&mut w, 1).await.worker_id;
    let parts = lease(&mut w, &me, 2).await;
    assert_eq!(report(&mut w, &me, vec![refused(&parts[0], "too big")]).await, vec![v1::Recording::Recorded]);
    let status = a.exploration_status(v1::ExplorationStatusRequest { exploration, first_part: 0 }).await.unwrap().into_inner();
    assert_eq!(status.state, v1::ExplorationState::Failed as i32);
    assert_eq!(status.error, "part 1's verdict was refused: too big");
    server.stop().await;
}

#[tokio::test]
async fn a_coordinator_announces_its_message_limit_and_refuses_a_report_over_it() {
    let dir = tempfile::tempdir().unwrap();
    let limit = MIN_MESSAGE_BYTES;
    let server = Server::start_with(dir.path(), Settings { lease_ms: 60_000, idle_retry_ms: 50, max_message_bytes: limit }).await;
    let (mut w, mut a) = (server.worker(), server.admin());
    create(&mut a, 2, 1).await;
    let registered = register(&mut w, 1).await;
    assert_eq!(registered.max_message_bytes, limit as u64);
    let jobs = lease(&mut w, &registered.worker_id, 2).await;
    let mut big = result(&jobs[0]);
    big.coverage = (0..limit / 200).map(|i| v1::FeatureCount { name: format!("{i}:{}", "f".repeat(200)), count: 1 }).collect();
    let request = v1::ReportResultsRequest { worker_id: registered.worker_id.clone(), results: vec![big], returned_job_ids: vec![] };
    let status = w.report_results(request).await.unwrap_err();
    assert_eq!(status.code(), Code::OutOfRange, "{status:?}");
    assert!(status.message().contains(&format!("the limit is: {limit} bytes")), "{}", status.message());
    // Admin requests keep the protocol's limit.
    assert!(a.campaign_status(v1::CampaignStatusRequest::default()).await.is_ok());
    server.stop().await;

    // A limit below the smallest is refused at start.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let config = tcfuzz_coordinator::Config {
        settings: Settings { max_message_bytes: MIN_MESSAGE_BYTES - 1, ..Settings::default() },
        ..Default::default()
    };
    let e = tcfuzz_coordinator::serve(Corpus::open(dir.path()).unwrap(), listener, config, std::future::pending()).await.unwrap_err();
    assert_eq!(e.to_string(), format!("max_message_bytes: {} is not in {MIN_MESSAGE_BYTES}..=16777216", MIN_MESSAGE_BYTES - 1));
}
