//! Leases: expiry and re-dispatch, exactly-once recording of late reports, the bound per worker,
//! blame of a job that lost two workers, and a restart that keeps everything.

use std::time::Duration;

use tcfuzz_coordinator::WORKER_LOST_SIGNATURE;
use tcfuzz_corpus::{Corpus, Kind};
use tcfuzz_proto::v1;

use crate::common::*;

#[tokio::test]
async fn expired_leases_go_to_others_and_late_reports_are_dropped() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path(), 300).await;
    let (mut w, mut a) = (server.worker(), server.admin());
    let id = create(&mut a, 300, 100).await;
    let slow = register(&mut w, 1).await.worker_id;
    let fast = register(&mut w, 4).await.worker_id;

    let held = lease(&mut w, &slow, 8).await;
    assert_eq!(held.len(), 2, "a worker holds at most 2 × cores leases");
    assert!(held.iter().all(|j| !j.careful));
    // `slow` goes silent; its leases expire and `fast` gets those jobs.
    tokio::time::sleep(Duration::from_millis(500)).await;
    let mut got = Vec::new();
    for _ in 0..40 {
        got.extend(lease(&mut w, &fast, 8).await);
        if got.len() == 3 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    let mut ids: Vec<u64> = got.iter().map(|j| j.id).collect();
    ids.sort();
    assert_eq!(ids.len(), 3, "every job, the expired ones again: {got:?}");
    assert!(held.iter().all(|j| ids.contains(&j.id)));
    // A second attempt is careful.
    assert!(got.iter().filter(|j| held.iter().any(|h| h.id == j.id)).all(|j| j.careful));
    // Heartbeats keep `fast`'s leases and tell `slow` its are gone.
    let beat =
        w.heartbeat(v1::HeartbeatRequest { worker_id: slow.clone(), job_ids: held.iter().map(|j| j.id).collect(), checking: None }).await;
    let mut dropped = beat.unwrap().into_inner().dropped_job_ids;
    dropped.sort();
    assert_eq!(dropped, held.iter().map(|j| j.id).collect::<Vec<_>>());

    let results: Vec<v1::JobResult> = got.iter().map(result).collect();
    assert_eq!(report(&mut w, &fast, results).await, vec![v1::Recording::Recorded; 3]);
    // `slow` comes back late: acknowledged and dropped.
    let late: Vec<v1::JobResult> = held.iter().map(result).collect();
    assert_eq!(report(&mut w, &slow, late).await, vec![v1::Recording::AlreadyRecorded; 2]);
    let c = wait_for(&mut a, id, "finish", |c| c.state == v1::CampaignState::Finished as i32).await;
    assert_eq!((c.stats.unwrap().programs, c.jobs_done, c.discrepancies_total), (300, 3, 0), "every program exactly once");
    server.stop().await;
}

#[tokio::test]
async fn a_job_that_loses_two_workers_blames_the_program_named_and_the_campaign_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path(), 300).await;
    let (mut w, mut a) = (server.worker(), server.admin());
    let id = create(&mut a, 100, 100).await;
    let first = register(&mut w, 1).await.worker_id;
    let job = lease(&mut w, &first, 1).await.remove(0);
    assert_eq!(range(&job), 0..100);
    tokio::time::sleep(Duration::from_millis(450)).await;

    // The second worker gets it careful, names program 42, and dies too.
    let second = register(&mut w, 1).await.worker_id;
    let mut again = Vec::new();
    for _ in 0..40 {
        again = lease(&mut w, &second, 1).await;
        if !again.is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    assert_eq!((again[0].id, again[0].careful), (job.id, true));
    let checking = v1::Checking { job_id: job.id, index: 42, program: PROGRAM.into() };
    let beat = w.heartbeat(v1::HeartbeatRequest { worker_id: second.clone(), job_ids: vec![job.id], checking: Some(checking) }).await;
    assert!(beat.unwrap().into_inner().dropped_job_ids.is_empty());

    // Program 42 is a checker-crash; 0..42 and 43..100 are queued again and a third worker does them.
    let c = wait_for(&mut a, id, "blame", |c| c.discrepancies_total == 1).await;
    assert_eq!(c.stats.unwrap().programs, 1);
    let third = register(&mut w, 2).await.worker_id;
    let mut rest = Vec::new();
    for _ in 0..40 {
        rest.extend(lease(&mut w, &third, 4).await);
        if rest.len() == 2 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    let mut ranges: Vec<_> = rest.iter().map(range).collect();
    ranges.sort_by_key(|r| r.start);
    assert_eq!(ranges, vec![0..42, 43..100]);
    assert!(rest.iter().all(|j| !j.careful), "new jobs start with no attempts");
    assert_eq!(report(&mut w, &third, rest.iter().map(result).collect()).await, vec![v1::Recording::Recorded; 2]);
    // The first worker's late report of the blamed job is dropped. (It registers again under its
    // id first, as a worker does when told it is unknown: silent for three leases, 0.9 s here,
    // it may have been forgotten on a loaded machine.)
    let r = v1::RegisterRequest {
        cores: 1,
        version: tcfuzz_proto::protocol_version().into(),
        resume_worker_id: first.clone(),
        ..Default::default()
    };
    assert_eq!(w.register(r).await.unwrap().into_inner().worker_id, first);
    assert_eq!(report(&mut w, &first, vec![result(&job)]).await, vec![v1::Recording::AlreadyRecorded]);
    let c = wait_for(&mut a, id, "finish", |c| c.state == v1::CampaignState::Finished as i32).await;
    assert_eq!((c.stats.unwrap().programs, c.discrepancies_total, c.discrepancies_new), (100, 1, 1));
    // No minimization for a program that kills workers.
    assert_eq!(c.minimizations, 0);
    server.stop().await;

    let corpus = Corpus::open_existing(dir.path()).unwrap();
    let d = corpus.discrepancy(Kind::CheckerCrash, WORKER_LOST_SIGNATURE).unwrap().unwrap();
    assert_eq!((d.count, d.program.as_str()), (1, PROGRAM));
    assert!(d.sides[0].verdict.contains("program 42 of job"), "{}", d.sides[0].verdict);
}

#[tokio::test]
async fn a_restarted_coordinator_keeps_leases_results_and_the_campaign() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path(), 60_000).await;
    let (mut w, mut a) = (server.worker(), server.admin());
    let id = create(&mut a, 400, 100).await;
    let me = register(&mut w, 1).await.worker_id;
    let jobs = lease(&mut w, &me, 2).await;
    assert_eq!(report(&mut w, &me, vec![result(&jobs[0])]).await, vec![v1::Recording::Recorded]);
    server.stop().await;

    let server = Server::start(dir.path(), 60_000).await;
    let (mut w, mut a) = (server.worker(), server.admin());
    let c = campaign(&mut a, id).await;
    assert_eq!((c.stats.unwrap().programs, c.jobs_done, c.jobs_leased), (100, 1, 1));
    // The worker is unknown to the new process; it registers again under its old id and its
    // lease is still its own.
    let status = w.lease_jobs(v1::LeaseJobsRequest { worker_id: me.clone(), max_jobs: 1 }).await.unwrap_err();
    assert_eq!(status.code(), tonic::Code::FailedPrecondition);
    let r = v1::RegisterRequest {
        cores: 1,
        version: tcfuzz_proto::protocol_version().into(),
        resume_worker_id: me.clone(),
        ..Default::default()
    };
    assert_eq!(w.register(r).await.unwrap().into_inner().worker_id, me);
    let beat = w.heartbeat(v1::HeartbeatRequest { worker_id: me.clone(), job_ids: vec![jobs[1].id], checking: None }).await;
    assert!(beat.unwrap().into_inner().dropped_job_ids.is_empty());
    assert_eq!(
        report(&mut w, &me, vec![result(&jobs[0]), result(&jobs[1])]).await,
        vec![v1::Recording::AlreadyRecorded, v1::Recording::Recorded]
    );
    let mut rest = Vec::new();
    for _ in 0..40 {
        rest.extend(lease(&mut w, &me, 2).await);
        if rest.len() == 2 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    assert_eq!(report(&mut w, &me, rest.iter().map(result).collect()).await, vec![v1::Recording::Recorded; 2]);
    let c = wait_for(&mut a, id, "finish", |c| c.state == v1::CampaignState::Finished as i32).await;
    assert_eq!((c.stats.unwrap().programs, c.jobs_done), (400, 4));
    server.stop().await;
}

/// Regression: a worker holds two leases; when it dies of one job, the other (careful on its
/// retry, but never started, so never named) was dropped as if it had killed two workers.
#[tokio::test]
async fn a_careful_job_that_named_no_program_is_queued_again_not_blamed() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path(), 200).await;
    let (mut w, mut a) = (server.worker(), server.admin());
    let id = create(&mut a, 10, 10).await;
    let mut holder = None;
    for attempt in 1..=3 {
        let me = register(&mut w, 1).await.worker_id;
        let mut got = Vec::new();
        for _ in 0..40 {
            got = lease(&mut w, &me, 1).await;
            if !got.is_empty() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
        assert_eq!(got.len(), 1, "attempt {attempt}: the job is handed out again");
        assert_eq!(got[0].careful, attempt >= 2);
        holder = Some((me, got.remove(0)));
        if attempt < 3 {
            // Dies without naming a program.
            tokio::time::sleep(Duration::from_millis(350)).await;
        }
    }
    let (me, job) = holder.unwrap();
    assert_eq!(report(&mut w, &me, vec![result(&job)]).await, vec![v1::Recording::Recorded]);
    let c = wait_for(&mut a, id, "finish", |c| c.state == v1::CampaignState::Finished as i32).await;
    assert_eq!((c.stats.unwrap().programs, c.discrepancies_total), (10, 0));
    server.stop().await;
}

/// Regression: parts were leased in job-id order, after every queued job of an older campaign, so
/// an exploration created while an endless campaign ran waited for it to end (and an interactive
/// `tcfuzz explore` with it).
#[tokio::test]
async fn an_exploration_is_leased_before_the_jobs_of_an_endless_campaign_running_already() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path(), 60_000).await;
    let (mut w, mut a) = (server.worker(), server.admin());
    let campaign = create(&mut a, 1_000_000_000, 1).await;
    let me = register(&mut w, 1).await.worker_id;
    let first = lease(&mut w, &me, 2).await;
    assert_eq!(first.len(), 2);
    assert!(first.iter().all(|j| j.campaign == campaign));
    // One done, one handed back: the campaign has a job queued, older than the parts.
    let r = v1::ReportResultsRequest { worker_id: me.clone(), results: vec![result(&first[0])], returned_job_ids: vec![first[1].id] };
    w.report_results(r).await.unwrap();
    assert_eq!(crate::common::campaign(&mut a, campaign).await.jobs_queued, 1);

    let exploration = a.explore_program(exploration()).await.unwrap().into_inner().exploration;
    // The very next lease hands out both parts, although the campaign's queued jobs are older.
    let parts = lease(&mut w, &me, 2).await;
    assert_eq!(parts.iter().map(|j| j.campaign).collect::<Vec<_>>(), [exploration, exploration], "{parts:?}");
    let results = parts.iter().map(|j| part_result(j, part(3))).collect();
    assert_eq!(report(&mut w, &me, results).await, vec![v1::Recording::Recorded; 2]);
    let s = a.exploration_status(v1::ExplorationStatusRequest { exploration, first_part: 0 }).await.unwrap().into_inner();
    assert_eq!((s.state, s.complete_executions), (v1::ExplorationState::Finished as i32, 6));
    // Then the campaign goes on, with its queued job first.
    let next = lease(&mut w, &me, 2).await;
    assert!(next.len() == 2 && next.iter().all(|j| j.campaign == campaign), "{next:?}");
    assert_eq!(next[0].id, first[1].id);
    server.stop().await;
}

/// Regression: what a careful worker named was kept in the coordinator's memory only, so a
/// coordinator restarted during a careful retry forgot it, and a job that had killed two workers
/// was retried instead of blamed.
#[tokio::test]
async fn a_program_named_before_a_coordinator_restart_is_blamed_after_it() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path(), 300).await;
    let (mut w, mut a) = (server.worker(), server.admin());
    let id = create(&mut a, 100, 100).await;
    let first = register(&mut w, 1).await.worker_id;
    let job = lease(&mut w, &first, 1).await.remove(0);
    tokio::time::sleep(Duration::from_millis(450)).await;
    let second = register(&mut w, 1).await.worker_id;
    let mut again = Vec::new();
    for _ in 0..40 {
        again = lease(&mut w, &second, 1).await;
        if !again.is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    assert_eq!((again[0].id, again[0].careful), (job.id, true));
    let checking = v1::Checking { job_id: job.id, index: 42, program: PROGRAM.into() };
    let beat = w.heartbeat(v1::HeartbeatRequest { worker_id: second.clone(), job_ids: vec![job.id], checking: Some(checking) }).await;
    assert!(beat.unwrap().into_inner().dropped_job_ids.is_empty());
    server.stop().await;

    // The second worker never comes back: its lease (a full one again from the restart) expires,
    // and the new process blames program 42.
    let server = Server::start(dir.path(), 300).await;
    let mut a = server.admin();
    let c = wait_for(&mut a, id, "blame", |c| c.discrepancies_total == 1).await;
    assert_eq!(c.stats.unwrap().programs, 1);
    server.stop().await;
    let corpus = Corpus::open_existing(dir.path()).unwrap();
    let d = corpus.discrepancy(Kind::CheckerCrash, WORKER_LOST_SIGNATURE).unwrap().unwrap();
    assert_eq!((d.count, d.program.as_str()), (1, PROGRAM));
    assert!(d.sides[0].verdict.contains("program 42 of job"), "{}", d.sides[0].verdict);
}

/// Regression: campaign jobs were leased in job-id order, so a campaign created while an
/// endless one ran got no worker until that one ended. Campaigns now take turns.
#[tokio::test]
async fn two_campaigns_created_one_after_the_other_both_progress() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path(), 60_000).await;
    let (mut w, mut a) = (server.worker(), server.admin());
    let older = create(&mut a, 1_000_000_000, 10).await;
    let me = register(&mut w, 1).await.worker_id;
    let first = lease(&mut w, &me, 2).await;
    assert!(first.len() == 2 && first.iter().all(|j| j.campaign == older), "{first:?}");
    assert_eq!(report(&mut w, &me, first.iter().map(result).collect()).await, vec![v1::Recording::Recorded; 2]);

    let newer = create(&mut a, 1_000_000_000, 10).await;
    for round in 0..5 {
        let jobs = lease(&mut w, &me, 2).await;
        let mut campaigns: Vec<u64> = jobs.iter().map(|j| j.campaign).collect();
        campaigns.sort();
        assert_eq!(campaigns, [older, newer], "round {round}: one job of each campaign");
        assert_eq!(report(&mut w, &me, jobs.iter().map(result).collect()).await, vec![v1::Recording::Recorded; 2]);
    }
    let programs = |c: v1::CampaignInfo| (c.stats.unwrap().programs, c.jobs_done);
    assert_eq!(programs(crate::common::campaign(&mut a, older).await), (70, 7));
    assert_eq!(programs(crate::common::campaign(&mut a, newer).await), (50, 5));
    server.stop().await;
}
