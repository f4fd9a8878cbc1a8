//! A campaign made before jobs were bounded to 1,000 programs (`MAX_JOB_PROGRAMS`), stored with
//! larger jobs, resumed by a coordinator that bounds them: its queued large job is split, its new
//! jobs are within the bound, and it checks exactly the programs it asked for.

use tcfuzz_corpus::{Corpus, JobState, Work};
use tcfuzz_proto::v1;

use crate::common::*;

#[tokio::test]
async fn a_campaign_stored_with_jobs_over_the_bound_is_resumed_in_jobs_within_it() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path(), 60_000).await;
    let (mut w, mut a) = (server.worker(), server.admin());
    let id = create(&mut a, 6000, 1000).await;
    let me = register(&mut w, 1).await.worker_id;
    let first = lease(&mut w, &me, 1).await.remove(0);
    assert_eq!(range(&first), 0..1000);
    assert_eq!(report(&mut w, &me, vec![result(&first)]).await, vec![v1::Recording::Recorded]);
    server.stop().await;

    // What an older coordinator left: the spec asks for jobs of 2,500, and job 2 (the next
    // generation job's id) is queued with programs 1000..3500.
    {
        let corpus = Corpus::open(dir.path()).unwrap();
        let mut record = corpus.campaigns().unwrap().into_iter().find(|c| c.id == id).unwrap();
        let mut spec: serde_json::Value = serde_json::from_str(&record.config).unwrap();
        spec["job_programs"] = 2500.into();
        record.config = spec.to_string();
        let mut u = corpus.update().unwrap();
        u.put_campaign(&record).unwrap();
        u.enqueue_job_as(first.id + 1, id, Work::Generate { first_index: 1000, count: 2500 }).unwrap();
        u.commit().unwrap();
    }

    let server = Server::start(dir.path(), 60_000).await;
    let (mut w, mut a) = (server.worker(), server.admin());
    let me = register(&mut w, 4).await.worker_id;
    let mut ranges = Vec::new();
    for _ in 0..40 {
        let jobs = lease(&mut w, &me, 8).await;
        if jobs.is_empty() {
            break;
        }
        ranges.extend(jobs.iter().map(range));
        assert_eq!(report(&mut w, &me, jobs.iter().map(result).collect()).await, vec![v1::Recording::Recorded; jobs.len()]);
    }
    ranges.sort_by_key(|r| r.start);
    // The queued job's range in jobs of at most 1,000, then new jobs of 1,000.
    assert_eq!(ranges, vec![1000..2000, 2000..3000, 3000..3500, 3500..4500, 4500..5500, 5500..6000]);
    let c = wait_for(&mut a, id, "finish", |c| c.state == v1::CampaignState::Finished as i32).await;
    assert_eq!((c.stats.unwrap().programs, c.jobs_failed), (6000, 0));
    server.stop().await;

    let corpus = Corpus::open_existing(dir.path()).unwrap();
    let record = corpus.campaigns().unwrap().into_iter().find(|c| c.id == id).unwrap();
    let spec: serde_json::Value = serde_json::from_str(&record.config).unwrap();
    assert_eq!(spec["job_programs"], 1000, "the bound is stored");
    let old = corpus.job(first.id + 1).unwrap().unwrap();
    assert!(matches!(old.state, JobState::Done { failed: None, .. }) && old.attempts == 0, "{old:?}");
}

#[tokio::test]
async fn a_leased_job_over_the_bound_is_split_when_its_lease_runs_out() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path(), 60_000).await;
    let (mut w, mut a) = (server.worker(), server.admin());
    let id = create(&mut a, 2000, 1000).await;
    let me = register(&mut w, 1).await.worker_id;
    let first = lease(&mut w, &me, 1).await.remove(0);
    assert_eq!(report(&mut w, &me, vec![result(&first)]).await, vec![v1::Recording::Recorded]);
    server.stop().await;
    // What an older coordinator left: jobs of 1,500 programs in a campaign of 2,500, and job 2
    // (programs 1000..2500) leased to a worker that is gone.
    {
        let corpus = Corpus::open(dir.path()).unwrap();
        let mut record = corpus.campaigns().unwrap().into_iter().find(|c| c.id == id).unwrap();
        let mut spec: serde_json::Value = serde_json::from_str(&record.config).unwrap();
        spec["job_programs"] = 1500.into();
        spec["programs"] = 2500.into();
        record.config = spec.to_string();
        let mut u = corpus.update().unwrap();
        u.put_campaign(&record).unwrap();
        u.enqueue_job_as(first.id + 1, id, Work::Generate { first_index: 1000, count: 1500 }).unwrap();
        u.lease_job(first.id + 1, "gone", 1).unwrap().unwrap();
        u.commit().unwrap();
    }
    // Leases found on loading last one lease from then: 300 ms.
    let server = Server::start(dir.path(), 300).await;
    let (mut w, mut a) = (server.worker(), server.admin());
    let me = register(&mut w, 4).await.worker_id;
    let mut ranges = Vec::new();
    for _ in 0..200 {
        let jobs = lease(&mut w, &me, 8).await;
        ranges.extend(jobs.iter().map(range));
        if !jobs.is_empty() {
            assert_eq!(report(&mut w, &me, jobs.iter().map(result).collect()).await, vec![v1::Recording::Recorded; jobs.len()]);
        }
        if ranges.len() >= 2 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(25)).await;
    }
    ranges.sort_by_key(|r| r.start);
    assert_eq!(ranges, vec![1000..2000, 2000..2500]);
    let c = wait_for(&mut a, id, "finish", |c| c.state == v1::CampaignState::Finished as i32).await;
    assert_eq!(c.stats.unwrap().programs, 2500);
    server.stop().await;
}
