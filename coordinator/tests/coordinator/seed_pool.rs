//! Seed-pool epochs: the jobs of epoch k are handed out only once every program before it is
//! recorded, and are generated with the seeds found before it, which `SeedPool` returns.

use std::time::Duration;

use tcfuzz_corpus::Corpus;
use tcfuzz_proto::v1;
use tonic::Code;

use crate::common::*;

fn epoch(job: &v1::Job) -> Option<u64> {
    let Some(v1::job::Work::Generate(g)) = &job.work else { panic!("not a generation job: {job:?}") };
    g.pool_epoch
}

async fn pool(w: &mut tcfuzz_proto::connect::Coordinator, worker: &str, campaign: u64, epoch: u64) -> Result<Vec<v1::PoolSeed>, Code> {
    let r = v1::SeedPoolRequest { worker_id: worker.into(), campaign, epoch };
    w.seed_pool(r).await.map(|r| r.into_inner().seeds).map_err(|s| s.code())
}

/// A coordinator on `dir`, a worker of 4 cores registered with it, and a campaign of seed 7 in
/// jobs of 16 programs: the server, the worker's client and id, the campaign's id.
async fn campaign(dir: &std::path::Path, programs: u64, pool_epoch: u64) -> (Server, tcfuzz_proto::connect::Coordinator, String, u64) {
    let server = Server::start(dir, 30_000).await;
    let (mut w, mut a) = (server.worker(), server.admin());
    let me = register(&mut w, 4).await.worker_id;
    let r = v1::CreateCampaignRequest { name: "t".into(), seed: 7, programs, job_programs: 16, pool_epoch, ..Default::default() };
    let id = a.create_campaign(r).await.unwrap().into_inner().campaign;
    (server, w, me, id)
}

/// A coordinator started again on `dir`, and worker `me` registered with it again.
async fn restart(dir: &std::path::Path, me: &str) -> (Server, tcfuzz_proto::connect::Coordinator) {
    let server = Server::start(dir, 30_000).await;
    let mut w = server.worker();
    let r = v1::RegisterRequest {
        cores: 4,
        version: tcfuzz_proto::protocol_version().into(),
        resume_worker_id: me.into(),
        ..Default::default()
    };
    w.register(r).await.unwrap();
    (server, w)
}

/// Leases until `n` jobs came (bounded), sorted by their first program.
async fn lease_n(w: &mut tcfuzz_proto::connect::Coordinator, worker: &str, n: usize) -> Vec<v1::Job> {
    let mut got = Vec::new();
    for _ in 0..200 {
        got.extend(lease(w, worker, 8).await);
        if got.len() >= n {
            break;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    got.sort_by_key(|j| range(j).start);
    got
}

#[tokio::test]
async fn jobs_of_an_epoch_wait_for_the_one_before_and_see_the_seeds_it_found() {
    let dir = tempfile::tempdir().unwrap();
    let (server, mut w, me, id) = campaign(dir.path(), 80, 40).await;

    // Epoch 0 is programs 0..40: no job crosses its end, none is queued past it.
    let first = lease_n(&mut w, &me, 3).await;
    assert_eq!(first.iter().map(range).collect::<Vec<_>>(), [0..16, 16..32, 32..40]);
    assert!(first.iter().all(|j| epoch(j) == Some(0)), "{first:?}");
    assert_eq!(pool(&mut w, &me, id, 0).await, Ok(Vec::new()));
    assert_eq!(report(&mut w, &me, first[..2].iter().map(result).collect()).await, [v1::Recording::Recorded; 2]);
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(lease(&mut w, &me, 8).await.is_empty(), "epoch 1 waits for program 32..40");

    // The last job of epoch 0 reaches a new feature; epoch 1 mutates the program that did.
    let mut last = result(&first[2]);
    last.coverage = vec![v1::FeatureCount { name: "op:new".into(), count: 2 }];
    last.seeds = vec![v1::SeedCandidate { index: 35, features: vec!["op:new".into()], program: PROGRAM.into() }];
    assert_eq!(report(&mut w, &me, vec![last]).await, [v1::Recording::Recorded]);
    let second = lease_n(&mut w, &me, 3).await;
    assert_eq!(second.iter().map(range).collect::<Vec<_>>(), [40..56, 56..72, 72..80]);
    assert!(second.iter().all(|j| epoch(j) == Some(1)), "{second:?}");
    let seeds = pool(&mut w, &me, id, 1).await.unwrap();
    assert_eq!(seeds.len(), 1);
    assert_eq!(seeds[0].program, PROGRAM);
    assert_eq!(seeds[0].features, [v1::FeatureCount { name: "op:new".into(), count: 2 }]);

    // Counts recorded during epoch 1 do not change its pool.
    let mut more = result(&second[0]);
    more.coverage = vec![v1::FeatureCount { name: "op:new".into(), count: 5 }];
    assert_eq!(report(&mut w, &me, vec![more]).await, [v1::Recording::Recorded]);
    assert_eq!(pool(&mut w, &me, id, 1).await.unwrap()[0].features[0].count, 2);
    // An epoch that is over, or not begun, or a campaign that does not exist.
    assert_eq!(pool(&mut w, &me, id, 0).await, Err(Code::Aborted));
    assert_eq!(pool(&mut w, &me, id, 2).await, Err(Code::Aborted));
    assert_eq!(pool(&mut w, &me, id + 1, 1).await, Err(Code::NotFound));

    // A restart mid-epoch goes on with epoch 1 and the very pool it began with (the counts of
    // then, not of now: the rest of the epoch is generated as it would have been).
    let before = pool(&mut w, &me, id, 1).await.unwrap();
    server.stop().await;
    let (server, mut w) = restart(dir.path(), &me).await;
    assert_eq!(pool(&mut w, &me, id, 1).await.unwrap(), before);
    assert_eq!(before[0].features[0].count, 2);
    assert_eq!(report(&mut w, &me, second[1..].iter().map(result).collect()).await, [v1::Recording::Recorded; 2]);
    let mut a = server.admin();
    let c = wait_for(&mut a, id, "finish", |c| c.state == v1::CampaignState::Finished as i32).await;
    assert_eq!((c.stats.unwrap().programs, c.jobs_done), (80, 6));
    server.stop().await;
    // A finished campaign keeps no epoch.
    let corpus = Corpus::open_existing(dir.path()).unwrap();
    assert_eq!(corpus.pool_epoch(id).unwrap(), None);
    assert!(corpus.check().unwrap().problems.is_empty());
}

/// [`PROGRAM`] under another name: another seed.
fn program(name: &str) -> String {
    PROGRAM.replacen("PTX MP", &format!("PTX {name}"), 1)
}

fn found(job: &v1::Job, coverage: &[&str], seeds: &[(u64, &[&str])]) -> v1::JobResult {
    let mut r = result(job);
    r.coverage = coverage.iter().map(|f| v1::FeatureCount { name: f.to_string(), count: 1 }).collect();
    r.seeds = seeds
        .iter()
        .map(|(index, features)| v1::SeedCandidate {
            index: *index,
            features: features.iter().map(|f| f.to_string()).collect(),
            program: program(&format!("P{index}")),
        })
        .collect();
    r
}

/// Regression test for seeds that depended on the order reports arrived (a program added a
/// feature only if no earlier-recorded one had it) and for a restart mid-epoch forgetting the
/// epoch's candidates: an epoch's seeds are its candidates in index order, each with the features
/// first reached in the epoch that no lower index reached, as `tcfuzz fuzz` chooses them.
#[tokio::test]
async fn an_epochs_seeds_are_chosen_in_index_order_whatever_the_reports_order_and_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let (server, mut w, me, id) = campaign(dir.path(), 96, 48).await;
    let first = lease_n(&mut w, &me, 3).await;
    assert_eq!(first.iter().map(range).collect::<Vec<_>>(), [0..16, 16..32, 32..48]);

    // The last job reports first, then the middle one: program 40 was the first recorded to
    // reach `a` and `b`, program 20 the first to reach `c`.
    let last = found(&first[2], &["a", "b"], &[(40, &["a", "b"])]);
    assert_eq!(report(&mut w, &me, vec![last]).await, [v1::Recording::Recorded]);
    let middle = found(&first[1], &["a", "c"], &[(20, &["a", "c"])]);
    assert_eq!(report(&mut w, &me, vec![middle]).await, [v1::Recording::Recorded]);
    server.stop().await;
    {
        let corpus = Corpus::open_existing(dir.path()).unwrap();
        let kept: Vec<(u64, Vec<String>)> = corpus.seed_candidates(id).unwrap().into_iter().map(|c| (c.index, c.features)).collect();
        assert_eq!(kept, [(20, vec!["a".to_string(), "c".to_string()]), (40, vec!["a".to_string(), "b".to_string()])]);
        assert_eq!(corpus.seeds().count(), 0, "no seed before the epoch ends");
    }

    // After a restart the first job reports: programs 5 and 9 reached `c`, 5 also `d`.
    let (server, mut w) = restart(dir.path(), &me).await;
    assert_eq!(pool(&mut w, &me, id, 0).await, Ok(Vec::new()));
    let early = found(&first[0], &["c", "d"], &[(5, &["c", "d"]), (9, &["c"])]);
    assert_eq!(report(&mut w, &me, vec![early]).await, [v1::Recording::Recorded]);
    let second = lease_n(&mut w, &me, 3).await;
    assert!(second.iter().all(|j| epoch(j) == Some(1)), "{second:?}");
    let seeds = pool(&mut w, &me, id, 1).await.unwrap();
    type Shown<'a> = (u64, &'a str, Vec<(&'a str, u64)>);
    let got: Vec<Shown> = seeds
        .iter()
        .map(|s| (s.id, s.program.lines().next().unwrap(), s.features.iter().map(|f| (f.name.as_str(), f.count)).collect()))
        .collect();
    assert_eq!(got, [(1, "PTX P5", vec![("c", 2), ("d", 1)]), (2, "PTX P20", vec![("a", 2)]), (3, "PTX P40", vec![("b", 1)])]);
    server.stop().await;
    let corpus = Corpus::open_existing(dir.path()).unwrap();
    assert!(corpus.seed_candidates(id).unwrap().is_empty(), "the epoch's candidates are gone once they were chosen");
    let epoch = corpus.pool_epoch(id).unwrap().unwrap();
    assert_eq!((epoch.end, epoch.seeds_through), (96, 3));
    assert!(corpus.check().unwrap().problems.is_empty());
}

/// A candidate with an empty program (its check was past the campaign's
/// `budget.seed_max_executions`) takes the features it reached first, across a restart, and
/// becomes no seed: a later program that reached them too is a seed only for the rest.
#[tokio::test]
async fn a_candidate_without_a_program_takes_its_features_and_becomes_no_seed() {
    let dir = tempfile::tempdir().unwrap();
    let (server, mut w, me, id) = campaign(dir.path(), 96, 48).await;
    let first = lease_n(&mut w, &me, 3).await;
    let last = found(&first[2], &["a", "b"], &[(40, &["a", "b"])]);
    assert_eq!(report(&mut w, &me, vec![last]).await, [v1::Recording::Recorded]);
    let mut middle = found(&first[1], &["a"], &[(20, &["a"])]);
    middle.seeds[0].program.clear();
    assert_eq!(report(&mut w, &me, vec![middle]).await, [v1::Recording::Recorded]);
    server.stop().await;
    {
        let corpus = Corpus::open_existing(dir.path()).unwrap();
        let kept: Vec<(u64, Option<String>)> = corpus
            .seed_candidates(id)
            .unwrap()
            .into_iter()
            .map(|c| (c.index, c.program.map(|p| p.lines().next().unwrap().to_string())))
            .collect();
        assert_eq!(kept, [(20, None), (40, Some("PTX P40".to_string()))]);
        assert!(corpus.check().unwrap().problems.is_empty());
    }

    let (server, mut w) = restart(dir.path(), &me).await;
    let early = found(&first[0], &[], &[]);
    assert_eq!(report(&mut w, &me, vec![early]).await, [v1::Recording::Recorded]);
    let second = lease_n(&mut w, &me, 1).await;
    assert!(second.iter().all(|j| epoch(j) == Some(1)), "{second:?}");
    let seeds = pool(&mut w, &me, id, 1).await.unwrap();
    let got: Vec<(&str, Vec<&str>)> =
        seeds.iter().map(|s| (s.program.lines().next().unwrap(), s.features.iter().map(|f| f.name.as_str()).collect())).collect();
    assert_eq!(got, [("PTX P40", vec!["b"])]);
    server.stop().await;
}

#[tokio::test]
async fn a_campaign_without_epochs_queues_ahead_and_has_no_pool() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path(), 30_000).await;
    let (mut w, mut a) = (server.worker(), server.admin());
    let me = register(&mut w, 4).await.worker_id;
    let id = create(&mut a, 80, 16).await;
    let jobs = lease_n(&mut w, &me, 5).await;
    assert_eq!(jobs.len(), 5, "every job at once: nothing waits");
    assert!(jobs.iter().all(|j| epoch(j).is_none()));
    assert_eq!(pool(&mut w, &me, id, 0).await, Err(Code::Aborted));
    server.stop().await;
}
