//! Issue 23: seed-pool epochs through kill -9. A campaign of several epochs on worker processes
//! has its coordinator killed (SIGKILL) in the middle of an epoch and again just past an epoch's
//! end, or its workers killed while they hold leases, and is restarted on the same corpus; it
//! must end with the seeds, coverage counts and discrepancies of an uninterrupted `tcfuzz fuzz`
//! with the same seed and config. The programs of every epoch after the first are generated from
//! the seeds the epochs before it chose, so equal seeds and coverage mean every epoch had the
//! pool `tcfuzz fuzz` had; and coverage counts are sums over the jobs' reports, so a job
//! recorded twice, or an acknowledged one lost, would change them.

use std::sync::OnceLock;
use std::time::Duration;

use serde_json::Value;
use tcfuzz_corpus::{Corpus, JobState, Kind, Work};

use super::services::{Coordinator, Proc, RELEASE, holding_leases, stop_worker};
use super::*;

/// Eight epochs of [`POOL_EPOCH`] programs, cheap ones: no oracle, and a budget of executions
/// (never the clock, which would make a loaded machine decide which programs are too large).
fn config() -> String {
    format!(
        r#"{{"pool_epoch": {POOL_EPOCH}, "budget": {{"max_executions": 2000, "millis": 600000}},
  "oracles": {{"explorer_vs_oracle": 0, "tileir_weaker_than_ptx": 0, "compiler_lowering": 0}}}}"#
    )
}
const SEED: &str = "21";
/// 64 programs in a debug build; 512 in a release one ([`RELEASE`]), where eight epochs of 64
/// made a campaign of half a second, which the tests that wait for a worker to hold a lease in a
/// given epoch, looking at the status every 0.1 s, missed most of the time (and eight of 256,
/// once stale failed waits were dropped unexplored, about one time in seven).
const POOL_EPOCH: u64 = if RELEASE { 512 } else { 64 };
const PROGRAMS: u64 = 8 * POOL_EPOCH;
const JOB_PROGRAMS: u64 = 8;
const JOBS: u64 = PROGRAMS / JOB_PROGRAMS;

/// What must not depend on faults: the seeds (id, features, program), the coverage counts, and
/// the discrepancies (kind, signature, count).
type Seeds = Vec<(u64, Vec<String>, String)>;
type Facts = (Seeds, Vec<(String, u64)>, Vec<(Kind, String, u64)>);

fn facts(corpus: &Path) -> Facts {
    let c = Corpus::open_existing(corpus).unwrap();
    let seeds = c.seeds().map(|s| s.unwrap()).map(|s| (s.id, s.features, s.program)).collect();
    let coverage = c.coverage().unwrap().into_iter().map(|(f, n)| (f, n.count)).collect();
    let discrepancies = c.discrepancies().map(|d| d.unwrap()).map(|d| (d.kind, d.signature, d.count)).collect();
    (seeds, coverage, discrepancies)
}

/// `tcfuzz fuzz` with the campaign's seed and config, run once for every test here.
fn reference() -> &'static Facts {
    static REFERENCE: OnceLock<Facts> = OnceLock::new();
    REFERENCE.get_or_init(|| {
        let dir = TempDir::new("epochs-reference");
        let config = dir.write("config.json", &config());
        let programs = PROGRAMS.to_string();
        let args = [
            "fuzz",
            "--corpus",
            "c",
            "--programs",
            &programs,
            "--seed",
            SEED,
            "-j",
            "2",
            "--config",
            config.to_str().unwrap(),
            "--no-minimize",
            "-q",
        ];
        let out = tcfuzz(&args, dir.path());
        assert_eq!(code(&out), 0, "{}", stderr(&out));
        let f = facts(&dir.path().join("c"));
        // Enough to compare: seeds chosen at several epochs' ends, and programs generated from them.
        assert!(f.0.len() > 20 && f.1.iter().any(|(name, _)| name == "origin:coverage"), "{} seeds, {} features", f.0.len(), f.1.len());
        f
    })
}

/// `tcfuzz campaign --coordinator` with the reference's seed and config, following the campaign.
fn campaign(c: &Coordinator, dir: &TempDir) -> Proc {
    let config = dir.write("config.json", &config());
    let token = dir.path().join("token");
    let (programs, job) = (PROGRAMS.to_string(), JOB_PROGRAMS.to_string());
    let args = [
        "campaign",
        "--coordinator",
        &c.url,
        "--token-file",
        token.to_str().unwrap(),
        "--config",
        config.to_str().unwrap(),
        "--seed",
        SEED,
        "--programs",
        &programs,
        "--job-programs",
        &job,
        "--minimize-budget",
        "1s",
        "--json",
    ];
    Proc::spawn(&args, dir.path(), &[], None)
}

fn programs(s: &Value) -> u64 {
    s["campaigns"][0]["programs"].as_u64().unwrap_or(0)
}

/// Where the campaign stood when its coordinator was killed, read from the corpus it left: the
/// epoch in flight (where it ends) and how many of its jobs were recorded.
fn epoch_in_flight(dir: &TempDir) -> (u64, u64) {
    let corpus = Corpus::open_existing(&dir.path().join("corpus")).unwrap();
    let epoch = corpus.pool_epoch(1).unwrap().expect("a running campaign with epochs keeps its epoch");
    let recorded = corpus
        .jobs()
        .unwrap()
        .into_iter()
        .filter(
            |j| matches!(j.work, Work::Generate { first_index, .. } if first_index + POOL_EPOCH >= epoch.end && first_index < epoch.end),
        )
        .filter(|j| matches!(j.state, JobState::Done { .. }))
        .count() as u64;
    (epoch.end, recorded)
}

/// The campaign ended with every program, every job recorded once, and the reference's facts.
fn assert_like_the_reference(c: Coordinator, dir: &TempDir, follower: Proc, workers: Vec<Proc>) -> (u64, u64) {
    let (exit, out, err) = follower.finish(Duration::from_secs(120));
    assert_eq!(exit, 0, "campaign: {err}");
    let result: Value = serde_json::from_str(out.trim()).unwrap_or_else(|e| panic!("{e}: {out}"));
    assert_eq!((result["programs"].as_u64(), result["state"].as_str()), (Some(PROGRAMS), Some("finished")));
    assert_eq!(result["coverage_features"].as_u64(), Some(reference().1.len() as u64), "the campaign's own count: {result}");
    let s = c.status(dir);
    assert_eq!(s["campaigns"][0]["jobs_done"].as_u64(), Some(JOBS), "every job recorded once: {s}");
    let tallies = workers.into_iter().map(stop_worker).fold((0, 0), |(r, a), (x, y)| (r + x, a + y));
    c.stop();
    let corpus = dir.path().join("corpus");
    let out = tcfuzz(&["corpus", "check", "--corpus", corpus.to_str().unwrap()], dir.path());
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let (seeds, coverage, discrepancies) = facts(&corpus);
    let (want_seeds, want_coverage, want_discrepancies) = reference();
    assert_eq!(seeds.len(), want_seeds.len(), "seed count");
    assert_eq!(&seeds, want_seeds, "seeds differ from `tcfuzz fuzz`'s");
    assert_eq!(coverage.len(), want_coverage.len(), "feature count");
    assert_eq!(&coverage, want_coverage, "coverage counts differ from `tcfuzz fuzz`'s");
    assert_eq!(&discrepancies, want_discrepancies, "discrepancies differ from `tcfuzz fuzz`'s");
    tallies
}

/// Kills the coordinator with SIGKILL once `when` holds for its status, reads where the campaign
/// stood from the corpus, and restarts it on the same port and corpus.
fn kill_and_restart(c: Coordinator, dir: &TempDir, what: &str, when: impl Fn(&Value) -> bool) -> (Coordinator, (u64, u64)) {
    c.wait(dir, what, Duration::from_secs(90), when);
    let url = c.url.clone();
    c.proc.kill9();
    let stood = epoch_in_flight(dir);
    let c = Coordinator::start(dir, url.trim_start_matches("http://"), "3s");
    assert_eq!(c.url, url);
    (c, stood)
}

/// Killed in epoch 1 with some of its jobs recorded (its pool chosen at epoch 0's end), just
/// past epoch 2's end (epoch 3 begun, its pool stored, few of its jobs recorded), and likewise
/// in epoch 4 and past epoch 5's end; each time restarted on the same port and corpus.
#[test]
fn a_coordinator_killed_mid_epoch_and_past_epochs_ends_comes_back_with_the_same_seed_pools() {
    let reference = std::thread::spawn(reference);
    let dir = TempDir::new("epochs-kill-coordinator");
    let mut c = Coordinator::start(&dir, "127.0.0.1:0", "3s");
    let workers: Vec<Proc> = (0..2).map(|i| c.worker(&dir, &format!("w{i}"), &[], None)).collect();
    let follower = campaign(&c, &dir);
    let mut stood = Vec::new();
    for (epoch, past) in [(1, JOB_PROGRAMS + 1), (3, 0), (4, JOB_PROGRAMS + 1), (6, 0)] {
        let at = epoch * POOL_EPOCH + past;
        let (restarted, (end, recorded)) = kill_and_restart(c, &dir, &format!("program {at} recorded"), |s| programs(s) >= at);
        c = restarted;
        assert!(end > at, "killed with programs {at} recorded, in the epoch ending at {end}");
        stood.push((end, recorded));
    }
    eprintln!("killed in the epochs ending at (and with this many of their jobs recorded): {stood:?}");
    reference.join().unwrap();
    let (recorded, already) = assert_like_the_reference(c, &dir, follower, workers);
    // A report flushed just before a kill, whose answer never arrived, is answered "already
    // recorded" when sent again: the tallies may come up short by those, never past the jobs.
    assert!(recorded <= JOBS && recorded + already >= JOBS, "recorded {recorded}, already recorded {already}");
}

/// One worker killed holding leases in epoch 1, another just past epoch 2's end: their jobs go
/// to the others once their leases expire, and each epoch ends only once they are recorded.
#[test]
fn workers_killed_holding_leases_mid_epoch_change_no_seed_pool() {
    let reference = std::thread::spawn(reference);
    let dir = TempDir::new("epochs-kill-worker");
    let c = Coordinator::start(&dir, "127.0.0.1:0", "1s");
    let survivor = c.worker(&dir, "survivor", &[], None);
    let victim = c.worker(&dir, "victim", &[], None);
    let follower = campaign(&c, &dir);
    c.wait(&dir, "the victim holds leases in epoch 1", Duration::from_secs(90), |s| {
        programs(s) > POOL_EPOCH && holding_leases(s, "victim")
    });
    victim.kill9();
    let victim = c.worker(&dir, "victim2", &[], None);
    c.wait(&dir, "the second victim holds leases past epoch 2's end", Duration::from_secs(90), |s| {
        programs(s) >= 3 * POOL_EPOCH && holding_leases(s, "victim2")
    });
    victim.kill9();
    let replacement = c.worker(&dir, "replacement", &[], None);
    reference.join().unwrap();
    assert_like_the_reference(c, &dir, follower, vec![survivor, replacement]);
}

/// A job larger than the coordinator's limit on seed candidates per job (1,000) is refused when
/// the campaign is created. (It was accepted: in epoch 0, with an empty pool, its worker sent
/// nearly every program as a candidate, the coordinator refused the report, the lease expired,
/// and the job was retried and blamed on its last program as a `checker-crash`, again and again.)
/// A job of the most programs allowed, in epoch 0, is recorded, and the campaign ends with the
/// seeds and coverage of `tcfuzz fuzz`; epoch 1 mutates the seeds the big job brought.
#[test]
fn jobs_are_at_most_the_seed_candidate_limit_and_the_largest_matches_fuzz() {
    const BIG_CONFIG: &str = r#"{"pool_epoch": 1000, "budget": {"max_executions": 2000, "millis": 600000},
      "oracles": {"explorer_vs_oracle": 0, "tileir_weaker_than_ptx": 0, "compiler_lowering": 0}}"#;
    let dir = TempDir::new("epochs-big-job");
    let config = dir.write("config.json", BIG_CONFIG);
    let config = config.to_str().unwrap();
    let common = ["--programs", "1100", "--seed", "5", "--config", config];
    let campaign = |job: &str, corpus: &str| {
        let args = ["campaign", "--corpus", corpus, "--workers", "1", "--job-programs", job, "--minimize-budget", "1s", "--json"];
        Proc::spawn(&[&args[..], &common[..]].concat(), dir.path(), &[], None)
    };
    let (exit, out, err) = campaign("1001", "refused").finish(Duration::from_secs(60));
    assert!(exit != 0 && out.is_empty(), "{exit}: {out}");
    assert!(err.contains("job_programs: 1001 is more than 1000, the most seed candidates one job may report (MAX_SEEDS_PER_JOB)"), "{err}");

    let fuzz =
        Proc::spawn(&[&["fuzz", "--corpus", "fuzzed", "-j", "1", "--no-minimize", "-q"], &common[..]].concat(), dir.path(), &[], None);
    let (exit, out, err) = campaign("1000", "campaign").finish(Duration::from_secs(300));
    assert_eq!(exit, 0, "campaign: {err}");
    assert!(!err.contains("rejected") && !err.contains("lost its worker"), "{err}");
    let result: Value = serde_json::from_str(out.trim()).unwrap_or_else(|e| panic!("{e}: {out}"));
    assert_eq!((result["programs"].as_u64(), result["state"].as_str()), (Some(1100), Some("finished")), "{result}");
    let (exit, _, err) = fuzz.finish(Duration::from_secs(300));
    assert_eq!(exit, 0, "fuzz: {err}");
    let (seeds, coverage, discrepancies) = facts(&dir.path().join("campaign"));
    let (want_seeds, want_coverage, want_discrepancies) = facts(&dir.path().join("fuzzed"));
    assert!(want_seeds.len() > 20 && want_coverage.iter().any(|(f, _)| f == "origin:coverage"), "{} seeds", want_seeds.len());
    assert_eq!(seeds, want_seeds, "seeds differ from `tcfuzz fuzz`'s");
    assert_eq!(coverage, want_coverage, "coverage counts differ from `tcfuzz fuzz`'s");
    assert_eq!(discrepancies, want_discrepancies, "no program blamed for a lost worker");
}
