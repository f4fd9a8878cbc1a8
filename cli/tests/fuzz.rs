//! `tcfuzz fuzz` as a user runs it: the summary and its JSON keys, the same campaign with one
//! thread or two, a planted fault found and minimized (also when the duration ends with
//! minimizations queued), kill -9 and Ctrl-C keeping what was printed, configs refused with
//! their position, the reference command.
//!
//! (A binary of its own beside `cli.rs`: these tests run processes for seconds, and
//! `cargo test --test fuzz` runs them alone.)

use std::collections::BTreeSet;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use serde_json::Value;
use tcfuzz_corpus::{CampaignState, Corpus, Kind};

struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> TempDir {
        static COUNTER: AtomicUsize = AtomicUsize::new(0);
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("tcfuzz-fuzz-test-{name}-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }

    fn write(&self, rel: &str, contents: &str) -> PathBuf {
        let path = self.0.join(rel);
        std::fs::write(&path, contents).unwrap();
        path
    }

    fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn tcfuzz(args: &[&str], cwd: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tcfuzz")).args(args).current_dir(cwd).env_remove("RUST_LOG").output().expect("run tcfuzz")
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn json_lines(out: &Output) -> Vec<Value> {
    stdout(out).lines().map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}"))).collect()
}

/// Random PTX programs only, explorer-vs-oracle on each, and the oracle planted with a fault.
const PLANTED: &str = r#"{
  "generator": {"families": {"random": 1, "pattern": 0, "mutant": 0, "coverage": 0}, "random": {"ptx": 1}},
  "oracles": {"explorer_vs_oracle": 1},
  "planted_fault": "oracle-without-load-buffering"
}"#;

#[test]
fn a_run_ends_with_the_summary_keys_and_records_its_campaign() {
    let dir = TempDir::new("summary");
    let out = tcfuzz(&["fuzz", "--corpus", "c", "--programs", "48", "--seed", "4", "-j", "2", "--json", "--no-minimize"], dir.path());
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let lines = json_lines(&out);
    assert_eq!(lines[0]["event"], "campaign");
    assert_eq!(lines[0]["seed"], 4);
    let last = lines.last().unwrap().as_object().unwrap();
    let keys: Vec<&str> = last.keys().map(String::as_str).collect();
    let mut want = vec![
        "programs",
        "executions",
        "too_large",
        "discrepancies_new",
        "discrepancies_total",
        "coverage_features",
        "seconds",
        "programs_per_s",
        "executions_per_s",
    ];
    want.sort();
    let mut got = keys.clone();
    got.sort();
    assert_eq!(got, want);
    assert_eq!(last["programs"], 48);
    assert!(last["executions"].as_u64().unwrap() > 48);
    assert!(last["coverage_features"].as_u64().unwrap() > 30);
    let families = &lines[lines.len() - 2];
    assert_eq!(families["event"], "families");
    assert!(families["families"]["random"]["programs"].as_u64().unwrap() > 0, "{families}");
    // The families' too-large programs are the summary's, each family's taking part of its time.
    let per_family = families["families"].as_object().unwrap();
    let too_large: u64 = per_family.values().map(|f| f["too_large"].as_u64().unwrap()).sum();
    assert_eq!(too_large, last["too_large"].as_u64().unwrap(), "{families}");
    assert!(per_family.values().all(|f| f["too_large_seconds"].as_f64().unwrap() <= f["seconds"].as_f64().unwrap()), "{families}");
    let corpus = Corpus::open_existing(&dir.path().join("c")).unwrap();
    let campaigns = corpus.campaigns().unwrap();
    assert_eq!(campaigns.len(), 1);
    assert_eq!((campaigns[0].seed, campaigns[0].state), (4, CampaignState::Finished));
    assert!(!corpus.stats(campaigns[0].id).unwrap().is_empty());
    assert!(corpus.seeds().count() > 0);
}

/// The same seed and config with `-j 1` and `-j 2` give the same discrepancies, seeds and
/// coverage counts: the programs are a function of (seed, index, config) and the epoch's pool.
/// So does `tcfuzz campaign` with one worker or two, over four epochs: the coordinator chooses
/// each epoch's seeds in index order whatever order the workers' reports come in, and hands the
/// next epoch's pool to its workers (a campaign that mutated no seeds would reach other
/// coverage). Regression test for two-worker campaigns whose seeds depended on that order.
#[test]
fn one_thread_or_two_or_a_campaign_of_one_worker_or_two_make_the_same_campaign() {
    let dir = TempDir::new("determinism");
    // Coverage-guided programs from the second epoch on; budgets by execution counts only (a
    // clock would make a loaded machine decide).
    let config = dir.write(
        "config.json",
        r#"{"pool_epoch": 60, "budget": {"max_executions": 20000, "millis": 600000},
            "oracles": {"explorer_vs_oracle": 3, "compiler_lowering": 0},
            "planted_fault": "oracle-without-load-buffering"}"#,
    );
    let config = config.to_str().unwrap();
    for (corpus, j) in [("a", "1"), ("b", "2")] {
        let out = tcfuzz(
            &["fuzz", "--corpus", corpus, "--programs", "240", "--seed", "21", "-j", j, "--config", config, "--no-minimize", "-q"],
            dir.path(),
        );
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    }
    for (corpus, workers) in [("c", "1"), ("d", "2")] {
        let out = tcfuzz(
            &[
                "campaign",
                "--corpus",
                corpus,
                "--programs",
                "240",
                "--seed",
                "21",
                "--workers",
                workers,
                "--config",
                config,
                "--minimize-budget",
                "1s",
                "-q",
            ],
            dir.path(),
        );
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    }
    let facts = |name: &str| {
        let c = Corpus::open_existing(&dir.path().join(name)).unwrap();
        // Not the program: which of the programs showing a discrepancy was recorded first depends
        // on which thread finished first.
        let d: Vec<(Kind, String, u64)> = c.discrepancies().map(|d| d.unwrap()).map(|d| (d.kind, d.signature, d.count)).collect();
        let seeds: Vec<(u64, Vec<String>, String)> = c.seeds().map(|s| s.unwrap()).map(|s| (s.id, s.features, s.program)).collect();
        let coverage: Vec<(String, u64)> = c.coverage().unwrap().into_iter().map(|(f, n)| (f, n.count)).collect();
        (d, seeds, coverage)
    };
    let (a, b, c, d) = (facts("a"), facts("b"), facts("c"), facts("d"));
    assert!(!a.0.is_empty() && !a.1.is_empty(), "nothing to compare: {} discrepancies, {} seeds", a.0.len(), a.1.len());
    assert!(a.2.iter().any(|(f, _)| f == "origin:coverage"), "no coverage-guided program ran");
    assert_eq!(a.0, b.0, "discrepancies differ");
    assert_eq!(a.1, b.1, "seeds differ");
    assert_eq!(a.2, b.2, "coverage differs");
    assert_eq!(a.0, c.0, "discrepancies differ from the campaign's");
    assert_eq!(a.1, c.1, "seeds differ from the campaign's");
    assert_eq!(a.2, c.2, "coverage differs from the campaign's");
    // A coverage-guided program became a seed: one chosen at a later epoch's end.
    assert!(a.1.iter().any(|s| s.2.lines().next().is_some_and(|l| l.contains(" coverage-21-"))), "no seed chosen after the first epoch");
    // Programs past `budget.seed_max_executions` took features and became no seeds: the runs
    // agree on them too.
    let seeded: BTreeSet<&String> = a.1.iter().flat_map(|s| &s.1).collect();
    assert!(a.2.iter().any(|(f, _)| !seeded.contains(f)), "every feature is a seed's: no program was past the seed bound");
    assert_eq!(a.0, d.0, "discrepancies differ from the two-worker campaign's");
    assert_eq!(a.1, d.1, "seeds differ from the two-worker campaign's");
    assert_eq!(a.2, d.2, "coverage differs from the two-worker campaign's");
}

/// Regression test for a campaign that mutated other seeds than `tcfuzz fuzz` once a corpus's
/// seeds passed the seed-pool limit: a coordinator's `SeedPool` carried only the newest seeds
/// that fit in 8 MiB, while `tcfuzz fuzz` mutated them all. Both keep the newest that fit now.
#[test]
fn past_the_seed_pool_limit_fuzz_and_a_campaign_mutate_the_same_newest_seeds() {
    let dir = TempDir::new("pool-limit");
    let config = dir.write(
        "config.json",
        r#"{"pool_epoch": 32, "budget": {"max_executions": 2000, "millis": 600000},
            "generator": {"families": {"random": 1, "pattern": 0, "mutant": 0, "coverage": 3}},
            "oracles": {"explorer_vs_oracle": 0, "tileir_weaker_than_ptx": 0, "compiler_lowering": 0}}"#,
    );
    let config = config.to_str().unwrap();
    // 40 seeds, each a small program with a feature name of 256 KiB (cheaper to mutate than
    // 8 MiB of programs): 10 MiB, of which the newest 31 fit.
    let seed_bytes = |i: usize| {
        (
            format!(
                "PTX seed{i}\n{{ x = 0; }}\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n st.relaxed.gpu x, {} | ld.relaxed.gpu r0, x ;\nexists (P1:r0 == 1)\n",
                i + 1
            ),
            format!("test:{i}:{}", "f".repeat(256 << 10)),
        )
    };
    let total: usize = (0..40)
        .map(|i| {
            let (p, f) = seed_bytes(i);
            tcfuzz_proto::pool_bytes(&p, [f.as_str()])
        })
        .sum();
    assert!(total > tcfuzz_proto::MAX_POOL_BYTES, "{total} bytes of seeds");
    for corpus in ["a", "b"] {
        let c = Corpus::open(&dir.path().join(corpus)).unwrap();
        let mut u = c.update().unwrap();
        for i in 0..40 {
            let (program, feature) = seed_bytes(i);
            assert!(u.add_seed(0, 0, &[feature], &program).unwrap().is_some());
        }
        u.commit().unwrap();
    }
    let out =
        tcfuzz(&["fuzz", "--corpus", "a", "--programs", "96", "--seed", "5", "-j", "2", "--config", config, "--no-minimize"], dir.path());
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stderr(&out).contains("its oldest seeds are left out of it"), "{}", stderr(&out));
    let out =
        tcfuzz(&["campaign", "--corpus", "b", "--programs", "96", "--seed", "5", "--workers", "2", "--config", config, "-q"], dir.path());
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let facts = |name: &str| {
        let c = Corpus::open_existing(&dir.path().join(name)).unwrap();
        let seeds: Vec<(u64, Vec<String>, String)> = c.seeds().map(|s| s.unwrap()).map(|s| (s.id, s.features, s.program)).collect();
        let coverage: Vec<(String, u64)> = c.coverage().unwrap().into_iter().map(|(f, n)| (f, n.count)).collect();
        (seeds, coverage)
    };
    let (a, b) = (facts("a"), facts("b"));
    assert!(a.0.len() > 40 && a.1.iter().any(|(f, _)| f == "origin:coverage"), "no seed added, or no program mutated a seed");
    assert_eq!(a.0, b.0, "seeds differ");
    assert_eq!(a.1, b.1, "coverage differs");
}

#[test]
fn a_planted_fault_is_found_and_minimized_to_a_handful_of_instructions() {
    let dir = TempDir::new("planted");
    let config = dir.write("planted.json", PLANTED);
    let out = tcfuzz(
        &[
            "fuzz",
            "--corpus",
            "c",
            "--programs",
            "150",
            "--seed",
            "11",
            "--config",
            config.to_str().unwrap(),
            "--json",
            "--minimize-budget",
            "300s",
        ],
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let lines = json_lines(&out);
    let found: Vec<&Value> = lines.iter().filter(|l| l["event"] == "discrepancy").collect();
    assert!(found.iter().any(|l| l["kind"] == "explorer-vs-oracle"), "{}", stdout(&out));
    let minimized: Vec<&Value> = lines.iter().filter(|l| l["event"] == "minimized").collect();
    assert!(!minimized.is_empty(), "{}", stdout(&out));
    // The smallest one is load buffering: two threads of a load and a store.
    let smallest = minimized.iter().map(|m| m["minimized"]["instructions"].as_u64().unwrap()).min().unwrap();
    assert!(smallest <= 4, "{}", stdout(&out));
    assert!(minimized.iter().all(|m| m["minimized"]["instructions"].as_u64().unwrap() <= 6), "{}", stdout(&out));
    let corpus = Corpus::open_existing(&dir.path().join("c")).unwrap();
    for m in &minimized {
        let kind: Kind = m["kind"].as_str().unwrap().parse().unwrap();
        let d = corpus.discrepancy(kind, m["signature"].as_str().unwrap()).unwrap().expect("recorded");
        let text = d.minimized.expect("the minimized program is stored");
        assert!(text.starts_with("// minimized by tcfuzz fuzz"), "{text}");
    }
}

/// Runs tcfuzz like [`tcfuzz`], but kills it and fails if it has not exited within `limit`.
fn tcfuzz_within(args: &[&str], cwd: &Path, limit: Duration) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_tcfuzz"))
        .args(args)
        .current_dir(cwd)
        .env_remove("RUST_LOG")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run tcfuzz");
    // Read both pipes on threads: a child blocked on a full pipe would look like a hang.
    let read = |mut pipe: Box<dyn std::io::Read + Send>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            let _ = pipe.read_to_end(&mut bytes);
            bytes
        })
    };
    let out_reader = read(Box::new(child.stdout.take().unwrap()));
    let err_reader = read(Box::new(child.stderr.take().unwrap()));
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break Some(status);
        }
        if start.elapsed() >= limit {
            child.kill().unwrap();
            child.wait().unwrap();
            break None;
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let out = Output {
        status: status.unwrap_or_else(|| child.wait().unwrap()),
        stdout: out_reader.join().unwrap(),
        stderr: err_reader.join().unwrap(),
    };
    assert!(
        status.is_some(),
        "tcfuzz {} did not exit within {} s (killed); stdout:\n{}\nstderr:\n{}",
        args.join(" "),
        limit.as_secs(),
        stdout(&out),
        stderr(&out)
    );
    out
}

/// Regression test for the hang of a CI run (fixed in 941ed0a): the end of generation set the
/// stop flag the minimizer shared, the minimizer skipped the tasks it took from then on without
/// answering them, and the final drain waited for those answers for ever; a task being minimized
/// at that moment was abandoned. A short `--duration` ends the generation while discrepancies are
/// still queued for minimization: seed 9 finds new signatures in programs 0, 10, 27, 29, 30, ...,
/// so whenever the duration ends, the jobs it cuts short still hand new ones over. Every one of
/// them must be minimized and stored (the budget is far above what they need; one that ran out
/// would still be stored, with `budget_exhausted`), and fuzz must exit 0. Where the minimizer
/// happens to have caught up when the duration ends, the situation under test did not arise: the
/// run is made again with another duration (five in all: three failed once in four release runs
/// of this file here, on 2026-11-27).
#[test]
fn discrepancies_queued_when_the_duration_ends_are_all_minimized_and_fuzz_exits() {
    let dir = TempDir::new("duration-minimize");
    let config = dir.write("planted.json", PLANTED);
    let run = |duration: &str| {
        let _ = std::fs::remove_dir_all(dir.path().join("c"));
        let args = [
            "-v",
            "fuzz",
            "--corpus",
            "c",
            "--seed",
            "9",
            "--duration",
            duration,
            "-j",
            "1",
            "--config",
            config.to_str().unwrap(),
            "--json",
            "--minimize-budget",
            "60s",
        ];
        let out = tcfuzz_within(&args, dir.path(), Duration::from_secs(120));
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        out
    };
    // The situation under test: generation ended with minimizations still to come, of more than
    // one discrepancy. (On a loaded machine a debug build can check only 10 programs in 2 s and
    // find one: CI beside a hunt, 2026-11-28.)
    let discrepancies = |out: &Output| json_lines(out).iter().filter(|l| l["event"] == "discrepancy").count();
    let out = ["3s", "2s", "4s", "1s", "5s", "8s"]
        .into_iter()
        .map(run)
        .find(|out| stderr(out).contains("fuzz: minimizing ") && discrepancies(out) >= 2)
        .expect("in six runs, never two discrepancies left to minimize when the duration ended");
    assert!(!stderr(&out).contains("not minimized"), "{}", stderr(&out));
    let lines = json_lines(&out);
    let found: Vec<(String, String)> = lines
        .iter()
        .filter(|l| l["event"] == "discrepancy")
        .map(|l| (l["kind"].as_str().unwrap().to_string(), l["signature"].as_str().unwrap().to_string()))
        .collect();
    assert!(found.len() >= 2, "{}", stdout(&out));
    assert!(found.iter().all(|(kind, _)| kind == "explorer-vs-oracle"), "{}", stdout(&out));
    let mut minimized: Vec<(String, String)> = lines
        .iter()
        .filter(|l| l["event"] == "minimized")
        .map(|l| (l["kind"].as_str().unwrap().to_string(), l["signature"].as_str().unwrap().to_string()))
        .collect();
    let mut want = found.clone();
    want.sort();
    minimized.sort();
    assert_eq!(minimized, want, "not every new discrepancy was minimized:\n{}\n{}", stdout(&out), stderr(&out));
    assert_eq!(lines.last().unwrap()["discrepancies_new"], found.len() as u64, "{}", stdout(&out));
    let corpus = Corpus::open_existing(&dir.path().join("c")).unwrap();
    assert_eq!(corpus.campaigns().unwrap()[0].state, CampaignState::Finished);
    let recorded: Vec<_> = corpus.discrepancies().map(|d| d.unwrap()).collect();
    assert_eq!(recorded.len(), found.len());
    for d in recorded {
        let text = d.minimized.unwrap_or_else(|| panic!("{} {}: no minimized program stored", d.kind, d.signature));
        assert!(text.starts_with("// minimized by tcfuzz fuzz"), "{text}");
    }
}

/// Reads `--json` events of a running `tcfuzz fuzz` until `enough` discrepancies were printed or
/// `limit` passed, then kills it with SIGKILL; returns the printed (kind, signature) pairs.
fn printed_then_killed(dir: &Path, config: &Path, enough: usize, limit: Duration) -> Vec<(String, String)> {
    let mut child = Command::new(env!("CARGO_BIN_EXE_tcfuzz"))
        .args(["fuzz", "--corpus", "c", "--seed", "5", "--json", "--no-minimize", "--config", config.to_str().unwrap()])
        .current_dir(dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    let stdout = child.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let start = Instant::now();
    let mut printed = Vec::new();
    while printed.len() < enough && start.elapsed() < limit {
        if let Ok(line) = rx.recv_timeout(Duration::from_millis(100)) {
            let v: Value = serde_json::from_str(&line).unwrap();
            if v["event"] == "discrepancy" {
                printed.push((v["kind"].as_str().unwrap().to_string(), v["signature"].as_str().unwrap().to_string()));
            }
        }
    }
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    printed
}

#[test]
fn kill_9_keeps_every_discrepancy_it_printed() {
    let dir = TempDir::new("kill9");
    let config = dir.write("planted.json", PLANTED);
    let printed = printed_then_killed(dir.path(), &config, 6, Duration::from_secs(120));
    assert!(!printed.is_empty(), "no discrepancy printed within the time limit");
    let corpus = Corpus::open_existing(&dir.path().join("c")).expect("the corpus opens after kill -9");
    for (kind, signature) in &printed {
        let kind: Kind = kind.parse().unwrap();
        assert!(corpus.discrepancy(kind, signature).unwrap().is_some(), "{kind} {signature} was printed but is not in the corpus");
    }
    drop(corpus);
    let check = tcfuzz(&["corpus", "check", "--corpus", "c"], dir.path());
    assert_eq!(check.status.code(), Some(0), "{}{}", stdout(&check), stderr(&check));
}

#[cfg(unix)]
#[test]
fn ctrl_c_stops_cleanly_with_everything_recorded() {
    let dir = TempDir::new("ctrl-c");
    let child = Command::new(env!("CARGO_BIN_EXE_tcfuzz"))
        .args(["fuzz", "--corpus", "c", "--seed", "8", "--no-minimize"])
        .current_dir(dir.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Wait until the corpus exists and some programs are recorded.
    std::thread::sleep(Duration::from_secs(4));
    // SAFETY: signalling a child process this test started.
    unsafe {
        libc::kill(child.id() as i32, libc::SIGINT);
    }
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130), "{}", stderr(&out));
    assert!(stderr(&out).contains("fuzz: stopping (Ctrl-C); everything recorded so far stays in the corpus"), "{}", stderr(&out));
    assert!(stdout(&out).starts_with("fuzz: "), "{}", stdout(&out));
    let corpus = Corpus::open_existing(&dir.path().join("c")).unwrap();
    assert_eq!(corpus.campaigns().unwrap()[0].state, CampaignState::Stopped);
}

#[test]
fn a_bad_config_is_refused_with_its_position() {
    let dir = TempDir::new("bad-config");
    dir.write("bad.json", "{\n  \"oracles\": {\"explorer_vs_orakel\": 1}\n}\n");
    let out = tcfuzz(&["fuzz", "--corpus", "c", "--programs", "1", "--config", "bad.json"], dir.path());
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).starts_with("error: bad.json:2:"), "{}", stderr(&out));
    assert!(stderr(&out).contains("unknown field `explorer_vs_orakel`"), "{}", stderr(&out));
    dir.write("zero.json", r#"{"generator": {"families": {"random": 0, "pattern": 0, "mutant": 0, "coverage": 0}}}"#);
    let out = tcfuzz(&["fuzz", "--corpus", "c", "--programs", "1", "--config", "zero.json"], dir.path());
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(stderr(&out), "error: generator config: every family weighs 0\n");
    let out = tcfuzz(&["fuzz", "--corpus", "c", "--programs", "1", "--duration", "1s"], dir.path());
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
}

#[test]
fn a_reference_that_disagrees_is_a_discrepancy_and_none_is_a_note() {
    let dir = TempDir::new("reference");
    // A "reference" that says Always whatever the program.
    let config = dir.write(
        "ref.json",
        r#"{"generator": {"families": {"random": 1, "pattern": 0, "mutant": 0, "coverage": 0}, "random": {"ptx": 1}},
            "oracles": {"explorer_vs_oracle": 0, "reference": {"command": "test -s {file} && echo Observation ref Always 1 0", "every": 1}}}"#,
    );
    let out = tcfuzz(
        &["fuzz", "--corpus", "c", "--programs", "20", "--seed", "2", "--json", "--no-minimize", "--config", config.to_str().unwrap()],
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let lines = json_lines(&out);
    assert!(lines.iter().any(|l| l["kind"] == "reference-disagrees"), "{}", stdout(&out));
    assert!(!stderr(&out).contains("reference-disagrees is skipped"));
    let out = tcfuzz(&["fuzz", "--corpus", "d", "--programs", "2", "--no-minimize"], dir.path());
    assert!(stderr(&out).contains("note: reference-disagrees is skipped: no reference command in the config"), "{}", stderr(&out));
    assert!(stdout(&out).contains("discrepancies: 0 new"), "{}", stdout(&out));
}

/// `budget.seed_max_executions: 0`: no program becomes a seed; the summary counts the programs
/// that reached features first and made none.
#[test]
fn a_seed_bound_of_0_makes_no_seeds_and_the_summary_says_how_many_programs_made_none() {
    let dir = TempDir::new("fuzz-seedless");
    let config = dir.write("seedless.json", r#"{"budget": {"seed_max_executions": 0}}"#);
    let out = tcfuzz(
        &["fuzz", "--corpus", "c", "--programs", "60", "--seed", "3", "--no-minimize", "--config", config.to_str().unwrap()],
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    let line = text.lines().find(|l| l.starts_with("coverage: ")).unwrap_or_else(|| panic!("{text}"));
    let taken: u64 = line
        .split(" seeds added, ")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{line}"));
    assert!(line.contains(" 0 seeds added, ") && taken > 0, "{line}");
    assert!(line.contains(" programs that reached features first made none (past budget.seed_max_executions)"), "{line}");
    assert_eq!(Corpus::open_existing(&dir.path().join("c")).unwrap().seeds().count(), 0);
}

#[test]
fn fuzz_gpu_without_a_gpu_exits_6_and_says_why() {
    if Path::new("/dev/nvidia0").exists() {
        println!("skipped: this machine has a GPU (the H100 command in the gpu crate's README runs it)");
        return;
    }
    let dir = TempDir::new("fuzz-no-gpu");
    let out = tcfuzz(&["fuzz", "--corpus", "c", "--programs", "1", "--gpu", "--gpu-iterations", "5"], dir.path());
    assert_eq!(out.status.code(), Some(6), "{}", stderr(&out));
    assert!(stderr(&out).starts_with("tcfuzz fuzz: --gpu: no GPU: "), "{}", stderr(&out));
    assert!(stderr(&out).trim_end().ends_with("; run without --gpu to fuzz on the CPU only"), "{}", stderr(&out));
    // --gpu-iterations means nothing without --gpu.
    let out = tcfuzz(&["fuzz", "--corpus", "c", "--programs", "1", "--gpu-iterations", "5"], dir.path());
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
}

/// `tcfuzz worker --gpu` and `tcfuzz campaign --gpu` open the GPU before anything starts (no
/// connection, no corpus): without one they exit 6 and say why, as `tcfuzz fuzz --gpu` does.
#[test]
fn worker_and_campaign_gpu_without_a_gpu_exit_6_before_starting() {
    if Path::new("/dev/nvidia0").exists() {
        println!("skipped: this machine has a GPU (the H100 command in the gpu crate's README runs it)");
        return;
    }
    let dir = TempDir::new("services-no-gpu");
    // Port 9 (discard) on loopback: nothing is asked of it, the GPU is looked for first.
    let out = tcfuzz(&["worker", "--coordinator", "http://127.0.0.1:9", "--gpu", "--gpu-iterations", "5"], dir.path());
    assert_eq!(out.status.code(), Some(6), "{}", stderr(&out));
    assert!(stderr(&out).starts_with("tcfuzz worker: --gpu: no GPU: "), "{}", stderr(&out));
    assert!(stderr(&out).trim_end().ends_with("; run without --gpu to check on the CPU only"), "{}", stderr(&out));
    let out = tcfuzz(&["campaign", "--corpus", "c", "--programs", "10", "--gpu"], dir.path());
    assert_eq!(out.status.code(), Some(6), "{}", stderr(&out));
    assert!(stderr(&out).starts_with("tcfuzz campaign: --gpu: no GPU: "), "{}", stderr(&out));
    assert!(!dir.path().join("c").exists(), "no corpus is made before the GPU is found");
    // A running coordinator's workers say for themselves whether they have a GPU.
    let out = tcfuzz(&["campaign", "--coordinator", "http://127.0.0.1:9", "--programs", "10", "--gpu"], dir.path());
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("--gpu with --coordinator: the coordinator's workers run programs on their GPUs"), "{}", stderr(&out));
    let out = tcfuzz(&["worker", "--coordinator", "http://127.0.0.1:9", "--gpu-iterations", "5"], dir.path());
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
}

/// `tcfuzz generate` writes the programs `tcfuzz fuzz` would generate: the same files for the
/// same seed, each parsing back, each saying how it was made.
#[test]
fn generate_writes_a_campaigns_programs_deterministically() {
    let dir = TempDir::new("generate");
    let out = tcfuzz(&["generate", "--out", "a", "--seed", "5", "--count", "40"], dir.path());
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stderr(&out), "wrote 40 programs of campaign seed 5 to a\n");
    let out = tcfuzz(&["generate", "--out", "b", "--seed", "5", "--first", "20", "--count", "20", "-q"], dir.path());
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    for i in 0..40 {
        let text = std::fs::read_to_string(dir.path().join(format!("a/5-{i}.litmus"))).unwrap();
        assert!(text.starts_with(&format!("// tcfuzz generate: program {i} of campaign seed 5: ")), "{text}");
        if i >= 20 {
            assert_eq!(std::fs::read_to_string(dir.path().join(format!("b/5-{i}.litmus"))).unwrap(), text, "program {i}");
        }
    }
    assert_eq!(std::fs::read_dir(dir.path().join("b")).unwrap().count(), 20);
    let out = tcfuzz(&["parse", "a"], dir.path());
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    // One family only: every program says it is a pattern program.
    let out = tcfuzz(&["generate", "--out", "p", "--family", "pattern", "--count", "10", "-q"], dir.path());
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    for i in 0..10 {
        let text = std::fs::read_to_string(dir.path().join(format!("p/1-{i}.litmus"))).unwrap();
        assert!(text.starts_with(&format!("// tcfuzz generate: program {i} of campaign seed 1: pattern ")), "{text}");
    }
    // A config that is not JSON: exit 1 naming the file and the position.
    dir.write("bad.json", "{ nope");
    let out = tcfuzz(&["generate", "--out", "x", "--config", "bad.json"], dir.path());
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).starts_with("bad.json:1:3: error: "), "{}", stderr(&out));
}
