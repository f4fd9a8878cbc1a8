//! Malformed, oversized, out-of-range and unauthenticated requests: the right status code, a
//! message naming what was wrong, and nothing written.

use std::future::Future;
use std::pin::Pin;

use tcfuzz_corpus::{Corpus, JobState};
use tcfuzz_proto::v1::{self, coordinator_client::CoordinatorClient};
use tonic::{Code, Status};

use crate::common::*;

type Call = Pin<Box<dyn Future<Output = Result<(), Status>>>>;

fn finding(index: u64, program: &str) -> v1::Finding {
    v1::Finding {
        kind: v1::DiscrepancyKind::PatternBroken as i32,
        signature: "sig".into(),
        index,
        program: program.into(),
        sides: vec![v1::Side { name: "a".into(), verdict: "x".into() }, v1::Side { name: "b".into(), verdict: "y".into() }],
    }
}

#[tokio::test]
async fn bad_requests_get_the_right_status_and_write_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path(), 60_000).await;
    let (mut w, mut a) = (server.worker(), server.admin());
    let id = create(&mut a, 200, 100).await;
    let me = register(&mut w, 1).await.worker_id;
    let jobs = lease(&mut w, &me, 2).await;
    assert_eq!(jobs.len(), 2, "two leases for one core");
    let (job_a, job_b) = (&jobs[0], &jobs[1]);
    // A campaign with seed-pool epochs (its jobs wait: the worker holds all it may).
    let epochs = v1::CreateCampaignRequest { name: "e".into(), programs: 100, pool_epoch: 50, ..Default::default() };
    let with_epochs = a.create_campaign(epochs).await.unwrap().into_inner().campaign;
    let pool = |worker: &str, campaign: u64, epoch: u64| v1::SeedPoolRequest { worker_id: worker.into(), campaign, epoch };
    let past_epoch = format!("campaign {with_epochs} is at seed-pool epoch 0, not 1");
    let no_epochs = format!("campaign {id} has no seed-pool epoch 0 now");

    let report = |results: Vec<v1::JobResult>| v1::ReportResultsRequest { worker_id: me.clone(), results, returned_job_ids: vec![] };
    let with_finding = |f: v1::Finding| {
        let mut r = result(job_a);
        r.findings.push(f);
        report(vec![r])
    };
    let mut wrong_count = result(job_a);
    wrong_count.stats.as_mut().unwrap().programs = 99;
    let mut bad_kind = finding(range(job_a).start, PROGRAM);
    bad_kind.kind = 99;
    let mut no_sides = finding(range(job_a).start, PROGRAM);
    no_sides.sides.clear();
    let mut good_then_bad = vec![result(job_a), result(job_b)];
    good_then_bad[1].findings.push(finding(range(job_b).start, "PTX nonsense"));
    let huge = "x".repeat(17 << 20);
    let unregistered = v1::RegisterRequest { cores: 1, version: tcfuzz_proto::protocol_version().into(), ..Default::default() };

    let no_token = server.target(None).coordinator().unwrap();
    let wrong_token = server.target(Some("guess")).admin().unwrap();
    // A client that sends more than the server accepts (the normal one refuses to).
    let big_client = CoordinatorClient::with_interceptor(
        server.target(Some(TOKEN)).channel().unwrap().0,
        server.target(Some(TOKEN)).channel().unwrap().1,
    )
    .max_encoding_message_size(64 << 20);

    let cases: Vec<(&str, Code, &str, Call)> = vec![
        ("no token", Code::Unauthenticated, "missing or wrong token", {
            let (mut c, r) = (no_token.clone(), unregistered.clone());
            Box::pin(async move { c.register(r).await.map(drop) })
        }),
        ("wrong token", Code::Unauthenticated, "missing or wrong token", {
            let mut c = wrong_token.clone();
            Box::pin(async move { c.campaign_status(v1::CampaignStatusRequest::default()).await.map(drop) })
        }),
        ("zero cores", Code::InvalidArgument, "cores: 0 is not in 1..=4096", {
            let (mut c, r) = (w.clone(), v1::RegisterRequest { cores: 0, ..unregistered.clone() });
            Box::pin(async move { c.register(r).await.map(drop) })
        }),
        ("other version", Code::FailedPrecondition, "does not match the coordinator's", {
            let (mut c, r) = (w.clone(), v1::RegisterRequest { version: "99.0.0".into(), ..unregistered.clone() });
            Box::pin(async move { c.register(r).await.map(drop) })
        }),
        ("other build of this release", Code::FailedPrecondition, "depend on the build", {
            let other = format!("{}+0000000000000000", env!("CARGO_PKG_VERSION"));
            let (mut c, r) = (w.clone(), v1::RegisterRequest { version: other, ..unregistered.clone() });
            Box::pin(async move { c.register(r).await.map(drop) })
        }),
        ("lease zero jobs", Code::InvalidArgument, "max_jobs: 0 is not in", {
            let (mut c, r) = (w.clone(), v1::LeaseJobsRequest { worker_id: me.clone(), max_jobs: 0 });
            Box::pin(async move { c.lease_jobs(r).await.map(drop) })
        }),
        ("unknown worker", Code::FailedPrecondition, "is not registered here", {
            let (mut c, r) = (w.clone(), v1::LeaseJobsRequest { worker_id: "nobody".into(), max_jobs: 1 });
            Box::pin(async move { c.lease_jobs(r).await.map(drop) })
        }),
        ("unknown job", Code::InvalidArgument, "results[0].job_id: no job 12345", {
            let (mut c, r) = (w.clone(), report(vec![v1::JobResult { job_id: 12345, ..result(job_a) }]));
            Box::pin(async move { c.report_results(r).await.map(drop) })
        }),
        ("wrong program count", Code::InvalidArgument, "results[0].stats.programs: 99 programs for job", {
            let (mut c, r) = (w.clone(), report(vec![wrong_count]));
            Box::pin(async move { c.report_results(r).await.map(drop) })
        }),
        ("program that does not parse", Code::InvalidArgument, "results[0].findings[0].program: not a valid litmus program", {
            let (mut c, r) = (w.clone(), with_finding(finding(range(job_a).start, "PTX nonsense")));
            Box::pin(async move { c.report_results(r).await.map(drop) })
        }),
        ("unknown kind", Code::InvalidArgument, "results[0].findings[0].kind: 99 is not a discrepancy kind", {
            let (mut c, r) = (w.clone(), with_finding(bad_kind));
            Box::pin(async move { c.report_results(r).await.map(drop) })
        }),
        ("one side", Code::InvalidArgument, "results[0].findings[0].sides: 0 sides", {
            let (mut c, r) = (w.clone(), with_finding(no_sides));
            Box::pin(async move { c.report_results(r).await.map(drop) })
        }),
        ("finding outside the job", Code::InvalidArgument, "outside job", {
            let (mut c, r) = (w.clone(), with_finding(finding(range(job_a).end + 5, PROGRAM)));
            Box::pin(async move { c.report_results(r).await.map(drop) })
        }),
        ("a program over its field's bound", Code::InvalidArgument, "more than the 65536 allowed", {
            let (mut c, r) = (w.clone(), with_finding(finding(range(job_a).start, &"x".repeat(65_537))));
            Box::pin(async move { c.report_results(r).await.map(drop) })
        }),
        ("a good result beside a bad one", Code::InvalidArgument, "results[1].findings[0].program", {
            let (mut c, r) = (w.clone(), report(good_then_bad));
            Box::pin(async move { c.report_results(r).await.map(drop) })
        }),
        ("a message over 16 MiB", Code::OutOfRange, "", {
            let (mut c, r) = (big_client.clone(), with_finding(finding(range(job_a).start, &huge)));
            Box::pin(async move { c.report_results(r).await.map(drop) })
        }),
        ("naming a job not held", Code::InvalidArgument, "checking.job_id", {
            let checking = v1::Checking { job_id: job_a.id, index: range(job_a).start, program: PROGRAM.into() };
            let (mut c, r) = (w.clone(), v1::HeartbeatRequest { worker_id: me.clone(), job_ids: vec![job_b.id], checking: Some(checking) });
            Box::pin(async move { c.heartbeat(r).await.map(drop) })
        }),
        ("a campaign without bounds", Code::InvalidArgument, "give at least one bound", {
            let (mut c, r) = (a.clone(), v1::CreateCampaignRequest { name: "x".into(), ..Default::default() });
            Box::pin(async move { c.create_campaign(r).await.map(drop) })
        }),
        ("a config that is not JSON", Code::InvalidArgument, "config: not JSON", {
            let (mut c, r) =
                (a.clone(), v1::CreateCampaignRequest { name: "x".into(), programs: 1, config: "{".into(), ..Default::default() });
            Box::pin(async move { c.create_campaign(r).await.map(drop) })
        }),
        ("no such discrepancy", Code::NotFound, "no discrepancy `pattern-broken` / `nope`", {
            let mut c = a.clone();
            let r = v1::GetDiscrepancyRequest { kind: v1::DiscrepancyKind::PatternBroken as i32, signature: "nope".into() };
            Box::pin(async move { c.get_discrepancy(r).await.map(drop) })
        }),
        ("a page token never given", Code::InvalidArgument, "page_token", {
            let (mut c, r) = (a.clone(), v1::ListDiscrepanciesRequest { page_token: "zz".into(), ..Default::default() });
            Box::pin(async move { c.list_discrepancies(r).await.map(drop) })
        }),
        ("seed pool without a token", Code::Unauthenticated, "missing or wrong token", {
            let (mut c, r) = (no_token.clone(), pool(&me, with_epochs, 0));
            Box::pin(async move { c.seed_pool(r).await.map(drop) })
        }),
        ("seed pool for a worker id with a control character", Code::InvalidArgument, "worker_id: contains control characters", {
            let (mut c, r) = (w.clone(), pool("w\u{7}", with_epochs, 0));
            Box::pin(async move { c.seed_pool(r).await.map(drop) })
        }),
        ("seed pool for a worker id with a space", Code::InvalidArgument, "worker_id: `w 1` is not printable ASCII without spaces", {
            let (mut c, r) = (w.clone(), pool("w 1", with_epochs, 0));
            Box::pin(async move { c.seed_pool(r).await.map(drop) })
        }),
        ("seed pool for an unknown worker", Code::FailedPrecondition, "worker `nobody` is not registered here", {
            let (mut c, r) = (w.clone(), pool("nobody", with_epochs, 0));
            Box::pin(async move { c.seed_pool(r).await.map(drop) })
        }),
        ("seed pool of an unknown campaign", Code::NotFound, "no campaign 999", {
            let (mut c, r) = (w.clone(), pool(&me, 999, 0));
            Box::pin(async move { c.seed_pool(r).await.map(drop) })
        }),
        ("seed pool of an epoch not begun", Code::Aborted, &past_epoch, {
            let (mut c, r) = (w.clone(), pool(&me, with_epochs, 1));
            Box::pin(async move { c.seed_pool(r).await.map(drop) })
        }),
        ("seed pool of a campaign without epochs", Code::Aborted, &no_epochs, {
            let (mut c, r) = (w.clone(), pool(&me, id, 0));
            Box::pin(async move { c.seed_pool(r).await.map(drop) })
        }),
        ("no such exploration", Code::NotFound, "no exploration 999", {
            let mut c = a.clone();
            Box::pin(async move { c.exploration_status(v1::ExplorationStatusRequest { exploration: 999, first_part: 0 }).await.map(drop) })
        }),
    ];
    let n = cases.len();
    for (name, code, message, call) in cases {
        let status = call.await.expect_err(name);
        assert_eq!(status.code(), code, "{name}: {status:?}");
        assert!(status.message().contains(message), "{name}: `{}` does not say `{message}`", status.message());
    }
    assert_eq!(n, 29);

    // Nothing of those was recorded; a good report is, once.
    let c = campaign(&mut a, id).await;
    assert_eq!((c.stats.unwrap().programs, c.jobs_done, c.discrepancies_total), (0, 0, 0));
    assert_eq!(report_results(&mut w, &me, vec![result(job_a)]).await, vec![v1::Recording::Recorded]);
    assert_eq!(report_results(&mut w, &me, vec![result(job_a)]).await, vec![v1::Recording::AlreadyRecorded]);
    server.stop().await;

    let corpus = Corpus::open_existing(dir.path()).unwrap();
    assert_eq!(corpus.discrepancies().count(), 0);
    assert_eq!(corpus.seeds().count(), 0);
    assert!(matches!(corpus.job(job_a.id).unwrap().unwrap().state, JobState::Done { .. }));
    assert!(matches!(corpus.job(job_b.id).unwrap().unwrap().state, JobState::Leased { .. }));
    let samples = corpus.stats(id).unwrap();
    assert_eq!(samples.iter().map(|s| s.at_ms).max().map(|last| samples.iter().find(|s| s.at_ms == last).unwrap().programs), Some(100));
    assert!(corpus.check().unwrap().problems.is_empty());
}

async fn report_results(c: &mut tcfuzz_proto::connect::Coordinator, worker: &str, results: Vec<v1::JobResult>) -> Vec<v1::Recording> {
    report(c, worker, results).await
}

async fn exploration_status(a: &mut tcfuzz_proto::connect::Admin, id: u64) -> v1::ExplorationStatusResponse {
    a.exploration_status(v1::ExplorationStatusRequest { exploration: id, first_part: 0 }).await.unwrap().into_inner()
}

#[tokio::test]
async fn bad_exploration_requests_and_part_reports_get_the_right_status_and_write_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path(), 60_000).await;
    let (mut w, mut a) = (server.worker(), server.admin());
    let no_token = server.target(None).admin().unwrap();
    let with = |f: fn(&mut v1::ExploreProgramRequest)| {
        let mut r = exploration();
        f(&mut r);
        r
    };
    let requests: Vec<(&str, Code, &str, v1::ExploreProgramRequest)> = vec![
        (
            "oversized program",
            Code::InvalidArgument,
            "program: 65537 bytes, more than the 65536 allowed",
            with(|r| r.program = "x".repeat(65_537)),
        ),
        ("unparsable program", Code::InvalidArgument, "program: not a valid litmus program", with(|r| r.program = "PTX nonsense".into())),
        ("unknown model", Code::InvalidArgument, "model: `x86` is not one of ptx, sc, tileir", with(|r| r.model = "x86".into())),
        ("no parts", Code::InvalidArgument, "subtrees: an exploration has at least one part", with(|r| r.subtrees.clear())),
        (
            "bad subtree text",
            Code::InvalidArgument,
            "subtrees[1]: `subtree 00ff:0:0..1` is not a subtree",
            with(|r| r.subtrees[1] = "subtree 00ff:0:0..1".into()),
        ),
        (
            "subtree without prefix",
            Code::InvalidArgument,
            "subtrees[0]: `00ff:0:0` is not a subtree",
            with(|r| r.subtrees[0] = "00ff:0:0".into()),
        ),
        (
            "subtrees of two checks",
            Code::InvalidArgument,
            "subtrees[1]: a subtree of another check",
            with(|r| r.subtrees[1] = "subtree 00fe:0:0.1".into()),
        ),
        (
            "a subtree twice",
            Code::InvalidArgument,
            "subtrees[1]: `subtree 00ff:0:0.0` appears twice",
            with(|r| r.subtrees[1] = r.subtrees[0].clone()),
        ),
        ("loop bound 0", Code::InvalidArgument, "loop_bound: 0 is not in 1..=1000000", with(|r| r.loop_bound = 0)),
        ("too many states", Code::InvalidArgument, "max_states: 1000001 is more than 1000000", with(|r| r.max_states = 1_000_001)),
    ];
    for (name, code, message, r) in requests {
        let status = a.explore_program(r).await.expect_err(name);
        assert_eq!(status.code(), code, "{name}: {status:?}");
        assert!(status.message().contains(message), "{name}: `{}` does not say `{message}`", status.message());
    }
    let status = no_token.clone().explore_program(exploration()).await.expect_err("no token");
    assert_eq!(status.code(), Code::Unauthenticated);
    let status =
        no_token.clone().exploration_status(v1::ExplorationStatusRequest { exploration: 1, first_part: 0 }).await.expect_err("no token");
    assert_eq!(status.code(), Code::Unauthenticated);

    // None of those was recorded: the first exploration gets the first id.
    let id = a.explore_program(exploration()).await.unwrap().into_inner().exploration;
    assert_eq!(id, 1);
    let me = register(&mut w, 1).await.worker_id;
    let jobs = lease(&mut w, &me, 2).await;
    let subtrees: Vec<&str> = jobs
        .iter()
        .map(|j| match &j.work {
            Some(v1::job::Work::Explore(e)) => e.subtree.as_str(),
            other => panic!("not an explore job: {other:?}"),
        })
        .collect();
    assert_eq!(subtrees, ["subtree 00ff:0:0.0", "subtree 00ff:0:0.1.2"]);
    assert!(jobs.iter().all(|j| matches!(&j.work, Some(v1::job::Work::Explore(e)) if e.max_states == 2)), "{jobs:?}");

    let mut wrong_sum = part(3);
    wrong_sum.complete = 4;
    let mut short_state = part(3);
    short_state.states[0].values.clear();
    let mut uncounted = part(3);
    uncounted.duplicates_counted = false;
    let mut twice = part(3);
    twice.states.push(twice.states[0].clone());
    let mut three_states = part(3);
    three_states.states = (0..3).map(|v| v1::FinalState { values: vec![v], executions: 1 }).collect();
    three_states.positive = 3;
    let mut miscounted = part(3);
    miscounted.negative = 1;
    let mut omitted_without_executions = part(3);
    (omitted_without_executions.omitted_states, omitted_without_executions.positive) = (1, 2);
    let access =
        |access: &str| v1::RaceAccess { thread: "P0".into(), index: 0, line: 4, col: 2, access: access.into(), location: "x".into() };
    let race = |kind: &str, second: &str| v1::PartRace {
        kind: kind.into(),
        first: Some(access("write")),
        second: Some(access(second)),
        rule: "causality order (PTX ISA §8.10)".into(),
    };
    let with_races = |races: u64, list: Vec<v1::PartRace>| v1::PartVerdict { races, race_list: list, ..part(3) };
    let misused = v1::PartVerdict {
        misuse: 1,
        misuse_list: vec![v1::PartMisuse { rule: "free-twice".into(), thread: "P0".into(), line: 3, col: 1 }],
        ..part(3)
    };
    let reports: Vec<(&str, &str, v1::JobResult)> = vec![
        (
            "states that do not add up",
            "results[0].part: the states' executions and omitted_executions add up to 3, not to complete 4",
            part_result(&jobs[0], wrong_sum),
        ),
        (
            "more states than the exploration keeps",
            "results[0].part.states: 3 states, but the exploration keeps at most 2 per part",
            part_result(&jobs[0], three_states),
        ),
        (
            "condition counts that do not add up",
            "results[0].part: positive 1 and negative 1 states do not add up to the 1 states (kept and omitted)",
            part_result(&jobs[0], miscounted),
        ),
        (
            "omitted states without executions",
            "results[0].part: 1 omitted_states with 0 omitted_executions",
            part_result(&jobs[0], omitted_without_executions),
        ),
        (
            "races counted but not listed",
            "results[0].part: races 2 and misuse 0 are not the 1 races and 0 misuses listed",
            part_result(&jobs[0], with_races(2, vec![race("data", "read")])),
        ),
        (
            "a race of no kind the checker has",
            "results[0].part.race_list[0].kind: `plain` is not one of data, tmem, proxy",
            part_result(&jobs[0], with_races(1, vec![race("plain", "read")])),
        ),
        (
            "an access neither read nor write",
            "results[0].part.race_list[0].second.access: `rmw` is not read or write",
            part_result(&jobs[0], with_races(1, vec![race("data", "rmw")])),
        ),
        (
            "a misuse of no rule the checker has",
            "results[0].part.misuse_list[0].rule: `free-twice` is not one of alloc-after-relinquish",
            part_result(&jobs[0], misused),
        ),
        ("a state without its values", "results[0].part.states[0]: 0 values for 1 names", part_result(&jobs[0], short_state)),
        ("a state twice", "results[0].part.states[1]: the state [1] appears twice", part_result(&jobs[0], twice)),
        (
            "duplicates not counted",
            "results[0].part.duplicates_counted: false, but the exploration asked for true",
            part_result(&jobs[0], uncounted),
        ),
        ("no part", "results[0].part: job", v1::JobResult { job_id: jobs[0].id, ..Default::default() }),
        (
            "generation stats",
            "is an explore job: only `part` may be set",
            v1::JobResult { stats: Some(v1::Stats { programs: 1, ..Default::default() }), ..part_result(&jobs[0], part(3)) },
        ),
    ];
    for (name, message, r) in reports {
        let request = v1::ReportResultsRequest { worker_id: me.clone(), results: vec![r], returned_job_ids: vec![] };
        let status = w.report_results(request).await.expect_err(name);
        assert_eq!(status.code(), Code::InvalidArgument, "{name}: {status:?}");
        assert!(status.message().contains(message), "{name}: `{}` does not say `{message}`", status.message());
    }
    let s = exploration_status(&mut a, id).await;
    assert_eq!((s.state, s.parts_done, s.parts_leased, s.complete_executions), (v1::ExplorationState::Running as i32, 0, 2, 0));

    // Good parts are recorded once each; the finished exploration returns them in order.
    assert_eq!(report(&mut w, &me, vec![part_result(&jobs[1], part(5))]).await, vec![v1::Recording::Recorded]);
    assert_eq!(report(&mut w, &me, vec![part_result(&jobs[1], part(7))]).await, vec![v1::Recording::AlreadyRecorded]);
    let s = exploration_status(&mut a, id).await;
    assert_eq!((s.state, s.parts_done, s.complete_executions, s.parts.len()), (v1::ExplorationState::Running as i32, 1, 5, 0));
    assert_eq!(report(&mut w, &me, vec![part_result(&jobs[0], part(3))]).await, vec![v1::Recording::Recorded]);
    let s = exploration_status(&mut a, id).await;
    assert_eq!((s.state, s.parts_done, s.complete_executions), (v1::ExplorationState::Finished as i32, 2, 8));
    let parts: Vec<(&str, u64)> = s.parts.iter().map(|p| (p.subtree.as_str(), p.verdict.as_ref().unwrap().complete)).collect();
    assert_eq!(parts, [("subtree 00ff:0:0.0", 3), ("subtree 00ff:0:0.1.2", 5)]);
    server.stop().await;
    let corpus = Corpus::open_existing(dir.path()).unwrap();
    assert!(corpus.check().unwrap().problems.is_empty());
}

#[tokio::test]
async fn a_part_that_cannot_run_fails_its_exploration_and_cancels_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path(), 60_000).await;
    let (mut w, mut a) = (server.worker(), server.admin());
    let id = a.explore_program(exploration()).await.unwrap().into_inner().exploration;
    let me = register(&mut w, 1).await.worker_id;
    let jobs = lease(&mut w, &me, 1).await;
    let failed = v1::JobResult { job_id: jobs[0].id, error: "subtree 00ff:0:0.0: made for another program".into(), ..Default::default() };
    assert_eq!(report(&mut w, &me, vec![failed]).await, vec![v1::Recording::Recorded]);
    let s = exploration_status(&mut a, id).await;
    assert_eq!((s.state, s.parts_done), (v1::ExplorationState::Failed as i32, 2));
    assert_eq!(s.error, "part 1 could not be explored: subtree 00ff:0:0.0: made for another program");
    assert!(lease(&mut w, &me, 1).await.is_empty(), "the other part was cancelled");
    server.stop().await;
}

#[tokio::test]
async fn a_restarted_coordinator_keeps_an_exploration_its_recorded_parts_and_leases() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path(), 60_000).await;
    let (mut w, mut a) = (server.worker(), server.admin());
    let id = a.explore_program(exploration()).await.unwrap().into_inner().exploration;
    let me = register(&mut w, 1).await.worker_id;
    let jobs = lease(&mut w, &me, 2).await;
    assert_eq!(report(&mut w, &me, vec![part_result(&jobs[0], part(3))]).await, vec![v1::Recording::Recorded]);
    server.stop().await;

    let server = Server::start(dir.path(), 60_000).await;
    let (mut w, mut a) = (server.worker(), server.admin());
    let s = exploration_status(&mut a, id).await;
    assert_eq!((s.state, s.parts_done, s.parts_leased, s.complete_executions), (v1::ExplorationState::Running as i32, 1, 1, 3));
    let r = v1::RegisterRequest {
        cores: 1,
        version: tcfuzz_proto::protocol_version().into(),
        resume_worker_id: me.clone(),
        ..Default::default()
    };
    assert_eq!(w.register(r).await.unwrap().into_inner().worker_id, me);
    assert_eq!(
        report(&mut w, &me, vec![part_result(&jobs[0], part(3)), part_result(&jobs[1], part(5))]).await,
        vec![v1::Recording::AlreadyRecorded, v1::Recording::Recorded]
    );
    let s = exploration_status(&mut a, id).await;
    assert_eq!((s.state, s.complete_executions, s.parts.len()), (v1::ExplorationState::Finished as i32, 8, 2));
    server.stop().await;
}

/// A sliced part's rest becomes new parts of its exploration, queued in the write that records
/// the part, kept across a restart, leased like the others; the exploration ends once they are
/// in. A rest where the parts are not sliced, or of another check, or without the node it was
/// given back at, is refused and writes nothing.
#[tokio::test]
async fn a_sliced_part_queues_its_rest_as_new_parts_that_survive_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path(), 60_000).await;
    let (mut w, mut a) = (server.worker(), server.admin());
    let unsliced = a.explore_program(exploration()).await.unwrap().into_inner().exploration;
    let sliced = a.explore_program(v1::ExploreProgramRequest { slice_ms: 500, ..exploration() }).await.unwrap().into_inner().exploration;
    let me = register(&mut w, 2).await.worker_id;
    let jobs = lease(&mut w, &me, 4).await;
    assert_eq!(jobs.iter().map(|j| j.campaign).collect::<Vec<_>>(), [unsliced, unsliced, sliced, sliced]);
    let with_rest =
        |rest: &[&str], yielded_at| v1::PartVerdict { rest: rest.iter().map(|r| r.to_string()).collect(), yielded_at, ..part(3) };
    let refused: Vec<(&str, v1::JobResult)> = vec![
        (
            "results[0].part.rest: 1 subtrees, but the exploration's parts are not sliced",
            part_result(&jobs[0], with_rest(&["subtree 00ff:0:0.0.1+"], 7)),
        ),
        (
            "results[0].part.rest[1]: a subtree of another check than the exploration's",
            part_result(&jobs[2], with_rest(&["subtree 00ff:0:0.0.1+", "subtree 00fe:0:0.0.2+"], 7)),
        ),
        (
            "results[0].part.rest: 1 subtrees given back, but yielded_at is 0",
            part_result(&jobs[2], with_rest(&["subtree 00ff:0:0.0.1+"], 0)),
        ),
        (
            "results[0].part.rest[0]: `subtree 00ff:0:0.0.1++` is not a subtree",
            part_result(&jobs[2], with_rest(&["subtree 00ff:0:0.0.1++"], 7)),
        ),
    ];
    for (message, r) in refused {
        let request = v1::ReportResultsRequest { worker_id: me.clone(), results: vec![r], returned_job_ids: vec![] };
        let status = w.report_results(request).await.expect_err(message);
        assert_eq!(status.code(), Code::InvalidArgument, "{message}: {status:?}");
        assert!(status.message().contains(message), "`{}` does not say `{message}`", status.message());
    }
    let s = exploration_status(&mut a, sliced).await;
    assert_eq!((s.parts_total, s.parts_done), (2, 0));

    let rest = ["subtree 00ff:0:0.0.1+", "subtree 00ff:0:0.0.0.3+"];
    assert_eq!(report(&mut w, &me, vec![part_result(&jobs[2], with_rest(&rest, 7))]).await, vec![v1::Recording::Recorded]);
    // Reported again (a lost acknowledgement): dropped, no second rest.
    assert_eq!(report(&mut w, &me, vec![part_result(&jobs[2], with_rest(&rest, 7))]).await, vec![v1::Recording::AlreadyRecorded]);
    let s = exploration_status(&mut a, sliced).await;
    assert_eq!((s.state, s.parts_total, s.parts_done), (v1::ExplorationState::Running as i32, 4, 1));
    server.stop().await;

    let server = Server::start(dir.path(), 60_000).await;
    let (mut w, mut a) = (server.worker(), server.admin());
    let s = exploration_status(&mut a, sliced).await;
    assert_eq!((s.parts_total, s.parts_done, s.parts_leased), (4, 1, 1));
    let me = register(&mut w, 2).await.worker_id;
    let more = lease(&mut w, &me, 4).await;
    let subtrees: Vec<&str> = more
        .iter()
        .filter_map(|j| match &j.work {
            Some(v1::job::Work::Explore(e)) if j.campaign == sliced => Some(e.subtree.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(subtrees, rest, "the rest, in order, as new parts");
    let mut results: Vec<v1::JobResult> = more.iter().filter(|j| j.campaign == sliced).map(|j| part_result(j, part(5))).collect();
    results.push(part_result(&jobs[3], part(1)));
    assert_eq!(report(&mut w, &me, results).await, vec![v1::Recording::Recorded; 3]);
    let s = exploration_status(&mut a, sliced).await;
    assert_eq!((s.state, s.parts_total, s.complete_executions), (v1::ExplorationState::Finished as i32, 4, 14));
    let parts: Vec<&str> = s.parts.iter().map(|p| p.subtree.as_str()).collect();
    assert_eq!(parts, ["subtree 00ff:0:0.0", "subtree 00ff:0:0.1.2", rest[0], rest[1]]);
    assert_eq!(s.parts[0].verdict.as_ref().unwrap().rest, rest);
    server.stop().await;
    let corpus = Corpus::open_existing(dir.path()).unwrap();
    assert!(corpus.check().unwrap().problems.is_empty());
}

/// A worker with an idle core that finds no job while an exploration's parts are leased makes
/// the next heartbeats say parts are wanted (so that a sliced part gives its rest back); a
/// worker asking for a job ahead, with every core busy, does not.
#[tokio::test]
async fn an_idle_worker_makes_heartbeats_say_parts_are_wanted() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path(), 60_000).await;
    let (mut w, mut a) = (server.worker(), server.admin());
    a.explore_program(v1::ExploreProgramRequest { slice_ms: 100, ..exploration() }).await.unwrap();
    let busy = register(&mut w, 1).await.worker_id;
    let parts = lease(&mut w, &busy, 2).await;
    assert_eq!(parts.len(), 2);
    let heartbeat = |w: &mut tcfuzz_proto::connect::Coordinator| {
        let request = v1::HeartbeatRequest { worker_id: busy.clone(), job_ids: parts.iter().map(|j| j.id).collect(), checking: None };
        let mut w = w.clone();
        async move { w.heartbeat(request).await.unwrap().into_inner().parts_wanted }
    };
    assert!(!heartbeat(&mut w).await, "nobody asked yet");
    assert!(lease(&mut w, &busy, 1).await.is_empty());
    assert!(!heartbeat(&mut w).await, "a worker whose cores are busy asking ahead is not idle");
    let idle = register(&mut w, 1).await.worker_id;
    assert!(lease(&mut w, &idle, 1).await.is_empty());
    assert!(heartbeat(&mut w).await, "an idle worker asked");
    server.stop().await;
}

/// A finished exploration's parts come a page of about 8 MiB at a time, in order, from the part
/// asked for; a first part past the end is refused.
#[tokio::test]
async fn a_finished_explorations_parts_come_in_pages() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path(), 60_000).await;
    let (mut w, mut a) = (server.worker(), server.admin());
    let subtrees: Vec<String> = (0..4).map(|i| format!("subtree 00ff:0:0.{i}")).collect();
    let request = v1::ExploreProgramRequest { max_states: 0, subtrees: subtrees.clone(), ..exploration() };
    let id = a.explore_program(request).await.unwrap().into_inner().exploration;
    let me = register(&mut w, 2).await.worker_id;
    let jobs = lease(&mut w, &me, 4).await;
    // About 3 MB each: 300,000 states of one execution.
    let big = v1::PartVerdict {
        complete: 300_000,
        positive: 300_000,
        states: (0..300_000).map(|v| v1::FinalState { values: vec![v], executions: 1 }).collect(),
        ..part(0)
    };
    for job in &jobs {
        assert_eq!(report(&mut w, &me, vec![part_result(job, big.clone())]).await, vec![v1::Recording::Recorded]);
    }
    let page = |first_part| {
        let mut a = a.clone();
        async move { a.exploration_status(v1::ExplorationStatusRequest { exploration: id, first_part }).await }
    };
    let first = page(0).await.unwrap().into_inner();
    assert_eq!(first.state, v1::ExplorationState::Finished as i32);
    assert!((1..4).contains(&first.parts.len()), "{} parts in one page", first.parts.len());
    assert_eq!(first.next_part, first.parts.len() as u64);
    let mut got: Vec<String> = first.parts.iter().map(|p| p.subtree.clone()).collect();
    while (got.len() as u64) < first.parts_total {
        let next = page(got.len() as u64).await.unwrap().into_inner();
        assert!(!next.parts.is_empty());
        assert_eq!(next.next_part, (got.len() + next.parts.len()) as u64);
        assert!(next.parts.iter().all(|p| p.verdict.as_ref().unwrap().states.len() == 300_000));
        got.extend(next.parts.into_iter().map(|p| p.subtree));
    }
    assert_eq!(got, subtrees);
    let past = page(5).await.unwrap_err();
    assert_eq!(past.code(), Code::InvalidArgument);
    assert!(past.message().contains("first_part: 5 is past the exploration's 4 parts"), "{}", past.message());
    server.stop().await;
}
