//! Issue 23: the services as processes — one coordinator, worker processes, `tcfuzz campaign
//! --coordinator` following — and their faults: kill -9 of a worker holding leases, kill -9 of
//! the coordinator and a restart, a worker cut off by its network namespace for longer than its
//! lease, and a program that kills the workers that check it. Every server listens on loopback
//! or on a veth pair inside namespaces the test creates; every wait is bounded.
//!
//! Exactly-once is checked from both ends: the campaign's program count equals what was asked
//! (a job recorded twice would count twice), and the workers' own tallies of `RECORDED`
//! acknowledgements add up to the number of jobs (a result acknowledged and then lost would be
//! recorded again, and acknowledged twice).

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::Value;

use super::*;

pub(super) const TOKEN: &str = "e2e-token";

/// Whether the `tcfuzz` under test is a release build (built with the tests, in the tests'
/// profile): ten to thirty times faster than a debug one. The tests that wait for a moment of a
/// run (a worker holding a lease, a part still being explored), looking at it every 0.1 s, size
/// the run so that the moment lasts long enough to be seen, at either speed, without making the
/// debug run of `cargo test` (CI's) minutes longer.
pub(super) const RELEASE: bool = !cfg!(debug_assertions);

/// The fault tests' campaigns: random programs only and no oracles, so that the only
/// discrepancies are the ones a test makes and a job takes little time.
pub(super) const QUIET_CONFIG: &str = r#"{"generator": {"families": {"random": 1, "pattern": 0, "mutant": 0, "coverage": 0}},
  "oracles": {"explorer_vs_oracle": 0, "tileir_weaker_than_ptx": 0, "compiler_lowering": 0}}"#;

/// Random PTX programs, explorer-vs-oracle on each, the oracle planted with a fault (as
/// `tcfuzz fuzz`'s test of the whole loop).
const PLANTED_CONFIG: &str = r#"{"generator": {"families": {"random": 1, "pattern": 0, "mutant": 0, "coverage": 0}, "random": {"ptx": 1}},
  "oracles": {"explorer_vs_oracle": 1}, "planted_fault": "oracle-without-load-buffering"}"#;

/// A child process, killed (SIGKILL) if the test ends without stopping it.
pub(super) struct Proc(Option<Child>);

impl Proc {
    pub(super) fn spawn(args: &[&str], cwd: &Path, env: &[(&str, &str)], netns: Option<&str>) -> Proc {
        let mut cmd = match netns {
            Some(ns) => {
                let mut c = Command::new("ip");
                c.args(["netns", "exec", ns, env!("CARGO_BIN_EXE_tcfuzz")]);
                c
            }
            None => Command::new(env!("CARGO_BIN_EXE_tcfuzz")),
        };
        cmd.args(args).current_dir(cwd).env_remove("RUST_LOG").stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
        for (k, v) in env {
            cmd.env(k, v);
        }
        Proc(Some(cmd.spawn().expect("start tcfuzz")))
    }

    fn pid(&self) -> i32 {
        self.0.as_ref().unwrap().id() as i32
    }

    pub(super) fn signal(&self, signal: i32) {
        // SAFETY: kill(2) on a child we started and have not reaped.
        unsafe { libc::kill(self.pid(), signal) };
    }

    /// Waits (bounded) for the process to end; returns its exit code, stdout and stderr.
    pub(super) fn finish(mut self, within: Duration) -> (i32, String, String) {
        let mut child = self.0.take().unwrap();
        let start = Instant::now();
        while child.try_wait().unwrap().is_none() {
            if start.elapsed() > within {
                let _ = child.kill();
                let out = child.wait_with_output().unwrap();
                panic!("still running after {within:?}; stderr:\n{}", String::from_utf8_lossy(&out.stderr));
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let out = child.wait_with_output().unwrap();
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    }

    /// Kills it with SIGKILL and reaps it.
    pub(super) fn kill9(mut self) {
        let mut child = self.0.take().unwrap();
        let _ = child.kill();
        let _ = child.wait();
    }
}

impl Drop for Proc {
    fn drop(&mut self) {
        if let Some(mut c) = self.0.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

/// A coordinator process and its URL.
pub(super) struct Coordinator {
    pub(super) proc: Proc,
    pub(super) url: String,
}

impl Coordinator {
    pub(super) fn start(dir: &TempDir, listen: &str, lease: &str) -> Coordinator {
        Coordinator::start_with(dir, listen, lease, &[])
    }

    pub(super) fn start_with(dir: &TempDir, listen: &str, lease: &str, extra: &[&str]) -> Coordinator {
        let token = dir.write("token", &format!("{TOKEN}\n"));
        let corpus = dir.path().join("corpus");
        let args = [
            "coordinator",
            "--listen",
            listen,
            "--corpus",
            corpus.to_str().unwrap(),
            "--token-file",
            token.to_str().unwrap(),
            "--lease",
            lease,
        ];
        let mut proc = Proc::spawn(&[&args[..], extra].concat(), dir.path(), &[], None);
        let stdout = proc.0.as_mut().unwrap().stdout.take().unwrap();
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                let _ = tx.send(line);
            }
        });
        let line = rx.recv_timeout(Duration::from_secs(30)).expect("the coordinator prints where it listens");
        let url = line.strip_prefix("listening on ").unwrap_or_else(|| panic!("first line: {line}")).to_string();
        Coordinator { proc, url }
    }

    pub(super) fn worker(&self, dir: &TempDir, name: &str, env: &[(&str, &str)], netns: Option<&str>) -> Proc {
        let token = dir.path().join("token");
        let args =
            ["worker", "--coordinator", &self.url, "--token-file", token.to_str().unwrap(), "-j", "1", "--name", name, "--grace", "5s"];
        Proc::spawn(&args, dir.path(), env, netns)
    }

    /// `tcfuzz campaign --coordinator` in the background: creates the campaign and follows it.
    fn campaign(&self, dir: &TempDir, programs: u64, job_programs: u64) -> Proc {
        let token = dir.path().join("token");
        let (programs, job) = (programs.to_string(), job_programs.to_string());
        let report = dir.path().join("report.md");
        let config = dir.write("quiet.json", QUIET_CONFIG);
        let args = [
            "campaign",
            "--config",
            config.to_str().unwrap(),
            "--coordinator",
            &self.url,
            "--token-file",
            token.to_str().unwrap(),
            "--programs",
            &programs,
            "--job-programs",
            &job,
            "--program-budget",
            "300ms",
            "--report",
            report.to_str().unwrap(),
            "--json",
        ];
        Proc::spawn(&args, dir.path(), &[], None)
    }

    pub(super) fn status(&self, dir: &TempDir) -> Value {
        let token = dir.path().join("token");
        let out = tcfuzz(&["status", "--coordinator", &self.url, "--token-file", token.to_str().unwrap(), "--json"], dir.path());
        assert_eq!(code(&out), 0, "status: {}", stderr(&out));
        serde_json::from_str(stdout(&out).trim()).unwrap()
    }

    /// Waits (bounded) until `done` holds for the status.
    pub(super) fn wait(&self, dir: &TempDir, what: &str, within: Duration, done: impl Fn(&Value) -> bool) -> Value {
        let start = Instant::now();
        loop {
            let s = self.status(dir);
            if done(&s) {
                return s;
            }
            assert!(start.elapsed() < within, "{what}: not within {within:?}; status: {s}");
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    pub(super) fn stop(self) {
        self.proc.signal(libc::SIGTERM);
        let (code, _, err) = self.proc.finish(Duration::from_secs(30));
        assert_eq!(code, 0, "coordinator on SIGTERM: {err}");
    }
}

/// Stops a worker with SIGTERM; returns (jobs recorded, jobs already recorded) from its summary.
pub(super) fn stop_worker(w: Proc) -> (u64, u64) {
    w.signal(libc::SIGTERM);
    let (code, _, err) = w.finish(Duration::from_secs(30));
    assert_eq!(code, 0, "worker on SIGTERM: {err}");
    let line = err.lines().find(|l| l.starts_with("worker: ")).unwrap_or_else(|| panic!("no summary in:\n{err}"));
    let numbers: Vec<u64> = line.split(|c: char| !c.is_ascii_digit()).filter_map(|n| n.parse().ok()).collect();
    (numbers[0], numbers[1])
}

/// The campaign's JSON summary, once `tcfuzz campaign` ends.
fn campaign_result(c: Proc) -> Value {
    let (code, out, err) = c.finish(Duration::from_secs(120));
    assert_eq!(code, 0, "campaign: {err}");
    serde_json::from_str(out.trim()).unwrap_or_else(|e| panic!("{e}: {out}"))
}

pub(super) fn holding_leases(s: &Value, name: &str) -> bool {
    s["workers"].as_array().unwrap().iter().any(|w| w["name"] == name && w["leases"].as_u64() > Some(0))
}

fn ls_json(dir: &TempDir) -> Vec<Value> {
    let corpus = dir.path().join("corpus");
    let out = tcfuzz(&["corpus", "ls", "--corpus", corpus.to_str().unwrap(), "--json"], dir.path());
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    stdout(&out).lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

#[test]
fn one_coordinator_three_worker_processes_record_every_job_exactly_once() {
    let dir = TempDir::new("e2e");
    let c = Coordinator::start(&dir, "127.0.0.1:0", "5s");
    let workers: Vec<Proc> = (0..3).map(|i| c.worker(&dir, &format!("w{i}"), &[], None)).collect();
    let result = campaign_result(c.campaign(&dir, 240, 10));
    assert_eq!((result["programs"].as_u64(), result["state"].as_str()), (Some(240), Some("finished")));
    let s = c.status(&dir);
    assert_eq!(s["campaigns"][0]["jobs_done"].as_u64(), Some(24));
    assert_eq!(s["workers"].as_array().unwrap().len(), 3);
    assert!(s["workers"].as_array().unwrap().iter().all(|w| w["gpu_arch"] == ""), "no worker has a GPU: {s}");
    let recorded: u64 = workers.into_iter().map(|w| stop_worker(w).0).sum();
    assert_eq!(recorded, 24, "each job recorded once");
    c.stop();
    let corpus = dir.path().join("corpus");
    let out = tcfuzz(&["corpus", "check", "--corpus", corpus.to_str().unwrap()], dir.path());
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let report = std::fs::read_to_string(dir.path().join("report.md")).unwrap();
    assert!(report.starts_with("# tcfuzz campaign 1 `campaign`\n"), "{report}");
}

/// Programs and programs per job of a campaign whose workers are looked at while they hold
/// leases ([`RELEASE`]): in a release build, jobs of 100 programs (about 0.1 s each; 20 jobs of
/// ten took 0.2 s in all, and a look now and then came too late); in a debug build, jobs of ten.
/// 1,000 programs are within one seed-pool epoch (1,024), which no job straddles.
pub(super) const LEASED: (u64, u64) = if RELEASE { (1000, 100) } else { (200, 10) };

/// A worker killed (SIGKILL) while it holds a lease: its jobs go to another worker once the
/// lease expires, and each is recorded once.
#[test]
fn a_worker_killed_holding_leases_loses_nothing() {
    let (programs, job) = LEASED;
    let jobs = programs / job;
    let dir = TempDir::new("kill-worker");
    let c = Coordinator::start(&dir, "127.0.0.1:0", "1s");
    let victim = c.worker(&dir, "victim", &[], None);
    let campaign = c.campaign(&dir, programs, job);
    c.wait(&dir, "the victim holds leases", Duration::from_secs(30), |s| holding_leases(s, "victim"));
    victim.kill9();
    let survivor = c.worker(&dir, "survivor", &[], None);
    let result = campaign_result(campaign);
    assert_eq!(result["programs"].as_u64(), Some(programs));
    let (recorded, _) = stop_worker(survivor);
    let s = c.status(&dir);
    assert_eq!(s["campaigns"][0]["jobs_done"].as_u64(), Some(jobs));
    // The victim may have reported some jobs before it died; the survivor did the rest, the
    // victim's leased ones among them, once.
    assert!(recorded <= jobs && recorded > 0, "{recorded}");
    c.stop();
}

#[test]
fn a_coordinator_killed_and_restarted_resumes_and_loses_nothing_acknowledged() {
    let dir = TempDir::new("kill-coordinator");
    let c = Coordinator::start(&dir, "127.0.0.1:0", "3s");
    let workers: Vec<Proc> = (0..2).map(|i| c.worker(&dir, &format!("w{i}"), &[], None)).collect();
    let campaign = c.campaign(&dir, 300, 10);
    c.wait(&dir, "some jobs recorded", Duration::from_secs(60), |s| s["campaigns"][0]["jobs_done"].as_u64() >= Some(3));
    let url = c.url.clone();
    c.proc.kill9();
    // The same port, the same corpus: workers and the follower reconnect by themselves.
    let listen = url.trim_start_matches("http://").to_string();
    let c = Coordinator::start(&dir, &listen, "3s");
    assert_eq!(c.url, url);
    let result = campaign_result(campaign);
    assert_eq!(result["programs"].as_u64(), Some(300));
    let tallies: Vec<(u64, u64)> = workers.into_iter().map(stop_worker).collect();
    let (recorded, already): (u64, u64) = tallies.iter().fold((0, 0), |(r, a), (x, y)| (r + x, a + y));
    assert_eq!(c.status(&dir)["campaigns"][0]["jobs_done"].as_u64(), Some(30), "every job recorded once");
    // A report the coordinator flushed just before the kill, whose answer never arrived, is sent
    // again after the restart and answered "already recorded": so the workers' RECORDED tallies
    // may come up short by those, never past 30, and together with them cover every job.
    assert!(recorded <= 30 && recorded + already >= 30, "recorded {recorded}, already recorded {already}");
    c.stop();
}

#[test]
fn a_job_that_kills_its_workers_is_one_checker_crash_and_the_campaign_goes_on() {
    let dir = TempDir::new("crash");
    let c = Coordinator::start(&dir, "127.0.0.1:0", "1s");
    let crash = [("TCFUZZ_TEST_ABORT_AT", "37")];
    let workers: Vec<Proc> = (0..3).map(|i| c.worker(&dir, &format!("w{i}"), &crash, None)).collect();
    let result = campaign_result(c.campaign(&dir, 100, 10));
    assert_eq!((result["programs"].as_u64(), result["discrepancies_total"].as_u64()), (Some(100), Some(1)));
    let mut alive = 0;
    for w in workers {
        w.signal(libc::SIGTERM);
        let (code, _, err) = w.finish(Duration::from_secs(30));
        if code == 0 {
            alive += 1;
        } else {
            assert!(err.contains("TCFUZZ_TEST_ABORT_AT=37: aborting"), "{err}");
        }
    }
    assert_eq!(alive, 1, "two workers died on program 37, the third did the rest");
    c.stop();
    let ls = ls_json(&dir);
    let crashes: Vec<&Value> = ls.iter().filter(|d| d["kind"] == "checker-crash").collect();
    assert_eq!(crashes.len(), 1, "{ls:?}");
    assert_eq!(crashes[0]["signature"], "worker-lost-twice");
}

/// Network namespaces made by one test, removed on drop.
struct Netns {
    ns: String,
    host_if: String,
}

impl Netns {
    /// A namespace with one end of a veth pair at 169.254.77.2, the other end at 169.254.77.1 on
    /// the host; `None` (with the reason printed) where this machine does not allow it.
    fn create() -> Option<Netns> {
        let id = std::process::id() % 100_000;
        let n = Netns { ns: format!("tcfz{id}"), host_if: format!("tcfh{id}") };
        let peer = format!("tcfp{id}");
        let steps: [&[&str]; 7] = [
            &["netns", "add", &n.ns],
            &["link", "add", &n.host_if, "type", "veth", "peer", "name", &peer],
            &["link", "set", &peer, "netns", &n.ns],
            &["addr", "add", "169.254.77.1/30", "dev", &n.host_if],
            &["link", "set", &n.host_if, "up"],
            &["-n", &n.ns, "addr", "add", "169.254.77.2/30", "dev", &peer],
            &["-n", &n.ns, "link", "set", &peer, "up"],
        ];
        for step in steps {
            let out = Command::new("ip").args(step).output();
            match out {
                Ok(o) if o.status.success() => {}
                Ok(o) => {
                    eprintln!(
                        "skipped: `ip {}` failed (no privilege for network namespaces?): {}",
                        step.join(" "),
                        String::from_utf8_lossy(&o.stderr).trim()
                    );
                    return None;
                }
                Err(e) => {
                    eprintln!("skipped: cannot run `ip` ({e}); network namespace tests need iproute2 and root");
                    return None;
                }
            }
        }
        let _ = Command::new("ip").args(["-n", &n.ns, "link", "set", "lo", "up"]).output();
        Some(n)
    }

    fn link(&self, up: bool) {
        let out = Command::new("ip").args(["link", "set", &self.host_if, if up { "up" } else { "down" }]).output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    }
}

impl Drop for Netns {
    fn drop(&mut self) {
        let _ = Command::new("ip").args(["link", "del", &self.host_if]).output();
        let _ = Command::new("ip").args(["netns", "del", &self.ns]).output();
    }
}

/// A worker cut off from the coordinator for longer than its lease loses its jobs to another
/// worker; back on the network, its late report is acknowledged and dropped, and each job is
/// recorded once.
///
/// The cut comes right after the status shows the worker holding a lease ([`LEASED`]). Now and
/// then the worker reports its job just before the cut and holds nothing while cut off. Then
/// there is no late report to drop, each job is still recorded once, and the scenario is run
/// again (at most three times in all).
#[test]
fn a_worker_cut_off_longer_than_its_lease_loses_its_jobs_and_its_late_report_is_dropped() {
    let (programs, job) = LEASED;
    for attempt in 1..=3 {
        let Some(net) = Netns::create() else { return };
        let dir = TempDir::new("netns");
        let c = Coordinator::start(&dir, "169.254.77.1:0", "1s");
        let cut = c.worker(&dir, "cut", &[], Some(&net.ns));
        let campaign = c.campaign(&dir, programs, job);
        c.wait(&dir, "the cut worker holds leases", Duration::from_secs(30), |s| holding_leases(s, "cut"));
        net.link(false);
        let other = c.worker(&dir, "other", &[], None);
        let result = campaign_result(campaign);
        assert_eq!(result["programs"].as_u64(), Some(programs));
        net.link(true);
        // Back on the network, the cut worker is heard from again and reports what it finished
        // meanwhile (at the latest when it stops): acknowledged and dropped.
        c.wait(&dir, "the cut worker is back", Duration::from_secs(60), |s| {
            s["workers"].as_array().unwrap().iter().any(|w| w["name"] == "cut")
        });
        let (cut_recorded, cut_late) = stop_worker(cut);
        let (other_recorded, _) = stop_worker(other);
        c.stop();
        assert_eq!(cut_recorded + other_recorded, programs / job, "each job recorded once");
        if cut_late >= 1 {
            return;
        }
        eprintln!("attempt {attempt}: the cut worker held no job while cut off");
    }
    panic!("in three attempts the cut worker never had a late report to drop");
}

#[test]
fn an_embedded_campaign_finds_and_minimizes_a_planted_fault_and_its_corpus_reports_like_a_fuzz_corpus() {
    let dir = TempDir::new("embedded");
    let config = dir.write("planted.json", PLANTED_CONFIG);
    let args = ["campaign", "--corpus", "c", "--config", config.to_str().unwrap(), "--programs", "200", "--seed", "11"];
    let out = tcfuzz(&[&args[..], &["--workers", "2", "--job-programs", "25", "--json"]].concat(), dir.path());
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let summary: Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    assert_eq!((summary["programs"].as_u64(), summary["state"].as_str()), (Some(200), Some("finished")), "{summary}");
    assert!(summary["discrepancies_new"].as_u64() >= Some(1), "{summary}");
    assert!(summary["coverage_features"].as_u64() > Some(0), "{summary}");
    // The corpus reads as `tcfuzz fuzz`'s: the discrepancy, minimized by a worker.
    let ls = tcfuzz(&["corpus", "ls", "--corpus", "c", "--json"], dir.path());
    assert_eq!(code(&ls), 0, "{}", stderr(&ls));
    let found: Vec<Value> = stdout(&ls).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let planted = found.iter().find(|d| d["kind"] == "explorer-vs-oracle").unwrap_or_else(|| panic!("{found:?}"));
    let signature = planted["signature"].as_str().unwrap();
    assert!(signature.starts_with("ptx: "), "{signature}");
    let show = tcfuzz(&["corpus", "show", "--corpus", "c", "explorer-vs-oracle", signature], dir.path());
    assert_eq!(code(&show), 0, "{}", stderr(&show));
    assert!(stdout(&show).contains("minimized by a tcfuzz worker"), "{}", stdout(&show));
    let report = tcfuzz(&["report", "--corpus", "c", "--out", "r"], dir.path());
    assert_eq!(code(&report), 0, "{}", stderr(&report));
    let md = std::fs::read_to_string(dir.path().join("r/report.md")).unwrap();
    assert!(md.contains(signature), "{md}");
    let json: Value = serde_json::from_str(&std::fs::read_to_string(dir.path().join("r/report.json")).unwrap()).unwrap();
    assert!(json.to_string().contains(signature), "{json}");
    assert!(dir.path().join("r/report.html").is_file());
}

#[test]
fn a_coordinator_writes_its_report_on_schedule_and_renders_one_on_request() {
    let dir = TempDir::new("reports");
    let c = Coordinator::start_with(&dir, "127.0.0.1:0", "5s", &["--report-every", "1s", "--report-dir", "reports"]);
    let w = c.worker(&dir, "w", &[], None);
    let result = campaign_result(c.campaign(&dir, 20, 10));
    assert_eq!(result["programs"].as_u64(), Some(20));
    // The periodic report: within a few periods, all three files under their dated names.
    let start = Instant::now();
    let dated = |ext: &str| {
        std::fs::read_dir(dir.path().join("reports")).ok().and_then(|entries| {
            entries.filter_map(Result::ok).map(|e| e.path()).find(|p| {
                let name = p.file_name().unwrap().to_string_lossy().into_owned();
                name.starts_with("report-20") && name.ends_with(ext)
            })
        })
    };
    while ["html", "md", "json"].iter().any(|ext| dated(&format!(".{ext}")).is_none()) {
        assert!(start.elapsed() < Duration::from_secs(30), "no periodic report within 30 s");
        std::thread::sleep(Duration::from_millis(100));
    }
    let json: Value = serde_json::from_str(&std::fs::read_to_string(dated(".json").unwrap()).unwrap()).unwrap();
    assert!(json["totals"].is_object(), "{json}");
    // On request, through the Admin service: the same files, written here.
    let token = dir.path().join("token");
    let out = tcfuzz(&["report", "--coordinator", &c.url, "--token-file", token.to_str().unwrap(), "--out", "remote"], dir.path());
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    for f in ["report.html", "report.md", "report.json"] {
        assert!(dir.path().join("remote").join(f).is_file(), "{f}: {}", stderr(&out));
    }
    let md = std::fs::read_to_string(dir.path().join("remote/report.md")).unwrap();
    assert!(md.contains("20"), "{md}");
    // Without the token: refused, nothing written.
    let out = tcfuzz(&["report", "--coordinator", &c.url, "--out", "refused"], dir.path());
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    assert!(stderr(&out).contains("Unauthenticated"), "{}", stderr(&out));
    assert!(!dir.path().join("refused/report.html").exists());
    stop_worker(w);
    c.stop();
}

/// Issue 23 item 5: a program of 2^17 executions (GenMC's `readers`, 17 readers of one writer:
/// every final state once), with duplicates counted.
fn large_program(dir: &TempDir) -> std::path::PathBuf {
    let family = tcfuzz_generator::families::family("readers").unwrap();
    dir.write("readers-17.litmus", &family.text(17))
}

/// `tcfuzz check --json` of the file on one machine, without its time.
fn checked_here(dir: &TempDir, file: &str) -> Value {
    let out = tcfuzz(&["check", file, "--model", "sc", "--duplicates", "--json"], dir.path());
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let mut v: Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    v.as_object_mut().unwrap().remove("time_ms");
    v
}

/// `tcfuzz explore --json` in the background, its verdict (megabytes: every state) going to
/// `explored.json` rather than a pipe nobody reads until it ends.
fn explore(c: &Coordinator, dir: &TempDir, file: &str) -> Proc {
    let token = dir.path().join("token");
    let args = [
        "explore",
        file,
        "--coordinator",
        &c.url,
        "--token-file",
        token.to_str().unwrap(),
        "--model",
        "sc",
        "--duplicates",
        "--parts",
        "24",
        "--max-states",
        "1000000",
        "--json",
    ];
    let out = std::fs::File::create(dir.path().join("explored.json")).unwrap();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_tcfuzz"));
    cmd.args(args).current_dir(dir.path()).env_remove("RUST_LOG").stdin(Stdio::null()).stdout(out).stderr(Stdio::piped());
    Proc(Some(cmd.spawn().expect("start tcfuzz")))
}

/// The explore command's verdict (without its time) and its part count.
fn explored(p: Proc, dir: &TempDir) -> (Value, u64) {
    let (code, _, err) = p.finish(Duration::from_secs(300));
    assert_eq!(code, 0, "explore: {err}");
    let out = std::fs::read_to_string(dir.path().join("explored.json")).unwrap();
    let mut v: Value = serde_json::from_str(out.trim()).unwrap_or_else(|e| panic!("{e}: {out}"));
    v.as_object_mut().unwrap().remove("time_ms");
    let line = err.lines().find(|l| l.contains(": explored in ")).unwrap_or_else(|| panic!("no summary in:\n{err}"));
    let parts = line.split(": explored in ").nth(1).and_then(|r| r.split(' ').next()).and_then(|n| n.parse().ok()).unwrap();
    (v, parts)
}

fn assert_same_verdict(explored: &Value, here: &Value) {
    assert_eq!(explored["executions"]["complete"].as_u64(), Some(1 << 17));
    assert_eq!(explored["executions"]["duplicates"].as_u64(), Some(0));
    assert_eq!(explored["states"].as_array().unwrap().len(), 1 << 17);
    // Everything: counts, every final state with its count, the condition, races, hangs.
    assert_eq!(explored, here);
}

#[test]
fn explore_across_two_worker_processes_equals_check_on_one_machine() {
    let dir = TempDir::new("explore");
    let file = large_program(&dir);
    let file = file.to_str().unwrap();
    let c = Coordinator::start(&dir, "127.0.0.1:0", "5s");
    let workers: Vec<Proc> = (0..2).map(|i| c.worker(&dir, &format!("w{i}"), &[], None)).collect();
    let (v, parts) = explored(explore(&c, &dir, file), &dir);
    assert!(parts >= 24, "{parts} parts");
    assert_same_verdict(&v, &checked_here(&dir, file));
    let recorded: u64 = workers.into_iter().map(|w| stop_worker(w).0).sum();
    assert_eq!(recorded, parts, "each part recorded once");
    c.stop();
    let corpus = dir.path().join("corpus");
    let out = tcfuzz(&["corpus", "check", "--corpus", corpus.to_str().unwrap()], dir.path());
    assert_eq!(code(&out), 0, "{}", stderr(&out));
}

#[test]
fn explore_with_a_worker_killed_holding_parts_releases_them_and_equals_check() {
    let dir = TempDir::new("explore-kill");
    let file = large_program(&dir);
    let file = file.to_str().unwrap();
    let c = Coordinator::start(&dir, "127.0.0.1:0", "1s");
    let victim = c.worker(&dir, "victim", &[], None);
    let explorer = explore(&c, &dir, file);
    c.wait(&dir, "the victim holds parts", Duration::from_secs(60), |s| holding_leases(s, "victim"));
    victim.kill9();
    let survivor = c.worker(&dir, "survivor", &[], None);
    let (v, parts) = explored(explorer, &dir);
    assert_same_verdict(&v, &checked_here(&dir, file));
    // The victim may have reported some parts before it died; the survivor did the rest, the
    // victim's leased ones among them, once (a part recorded twice would count twice above).
    let (recorded, _) = stop_worker(survivor);
    assert!(recorded <= parts && recorded > 0, "{recorded} of {parts}");
    c.stop();
}

/// Parts that keep 5 states each (`--max-states 5`, embedded workers): the program's 5
/// smallest states with their exact counts, every execution, the condition judged as one
/// machine judges it; the states beyond them counted as a lower bound, said so.
#[test]
fn explore_with_few_states_kept_lists_the_smallest_exactly_and_bounds_the_rest() {
    let dir = TempDir::new("explore-capped");
    let file = large_program(&dir);
    let file = file.to_str().unwrap();
    let args = ["explore", file, "--workers", "2", "--model", "sc", "--duplicates", "--parts", "24", "--max-states", "5"];
    let out = tcfuzz(&[&args[..], &["--json"]].concat(), dir.path());
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let explored: Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    let here = checked_here(&dir, file);
    assert_eq!(explored["executions"], here["executions"]);
    assert_eq!(explored["condition"], here["condition"]);
    assert_eq!(explored["states"].as_array().unwrap()[..], here["states"].as_array().unwrap()[..5]);
    let err = stderr(&out);
    let parts: u64 = err.split(": explored in ").nth(1).and_then(|r| r.split(' ').next()).and_then(|n| n.parse().ok()).unwrap();
    // Every state once: at least the largest part's states, which is at least the average.
    let omitted = explored["omitted_states"]["states"].as_u64().unwrap();
    assert!(omitted + 5 >= (1 << 17) / parts && omitted + 5 < 1 << 17, "{parts} parts: {}", explored["omitted_states"]);
    assert_eq!(explored["omitted_states"]["exact"], Value::Bool(false));
    let out = tcfuzz(&args, dir.path());
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains(&format!("States at least {}\n", omitted + 5)), "{text}");
    assert!(text.contains(&format!("... at least {omitted} more states (--max-states: each part kept its smallest ones)")), "{text}");
}

/// Three threads of plain (weak) and relaxed stores and loads of two locations and a fourth that
/// stores once: 33,330 executions (seconds in a debug build), data races in many of them.
const RACY_SMALL: &str = "PTX racy\n{ x = 0; y = 0; }\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 | P2@cta 2,gpu 0 | P3@cta 3,gpu 0 ;\n st.weak x, 1 | st.relaxed.gpu y, 2 | st.relaxed.gpu x, 3 | st.relaxed.gpu y, 4 ;\n ld.relaxed.gpu r0, y | ld.weak r0, x | ld.relaxed.gpu r0, y | ;\n st.relaxed.gpu y, 1 | st.relaxed.gpu x, 2 | st.weak y, 3 | ;\n ld.relaxed.gpu r1, x | ld.relaxed.gpu r1, y | ld.relaxed.gpu r1, x | ;\nexists (P0:r0 == 0 /\\ P1:r0 == 0 /\\ P2:r0 == 0)\n";
/// [`RACY_SMALL`] with a second store in the fourth thread: 282,800 executions, about a second
/// in a release build, where the smaller one (0.1 s) was now and then explored in full before
/// the idle worker joined.
const RACY_LARGE: &str = "PTX racy\n{ x = 0; y = 0; }\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 | P2@cta 2,gpu 0 | P3@cta 3,gpu 0 ;\n st.weak x, 1 | st.relaxed.gpu y, 2 | st.relaxed.gpu x, 3 | st.relaxed.gpu y, 4 ;\n ld.relaxed.gpu r0, y | ld.weak r0, x | ld.relaxed.gpu r0, y | st.relaxed.gpu x, 5 ;\n st.relaxed.gpu y, 1 | st.relaxed.gpu x, 2 | st.weak y, 3 | ;\n ld.relaxed.gpu r1, x | ld.relaxed.gpu r1, y | ld.relaxed.gpu r1, x | ;\nexists (P0:r0 == 0 /\\ P1:r0 == 0 /\\ P2:r0 == 0)\n";
/// The racy program and its execution count, for the build under test ([`RELEASE`]).
const RACY: (&str, u64) = if RELEASE { (RACY_LARGE, 282_800) } else { (RACY_SMALL, 33_330) };

/// One part, explored by one of two workers: the idle one makes it give its rest back (after
/// at least a millisecond), which spreads over new parts, and the merged verdict is the
/// one-machine verdict to the last state and race (races travel from the workers as data).
#[test]
fn explore_with_sliced_parts_equals_check_races_included() {
    let dir = TempDir::new("explore-sliced");
    let (racy, count) = RACY;
    let file = dir.write("racy.litmus", racy);
    let file = file.to_str().unwrap();
    let args = ["explore", file, "--workers", "2", "--parts", "1", "--slice-ms", "1", "--max-states", "1000000", "--duplicates", "--json"];
    let out = tcfuzz(&args, dir.path());
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let mut explored: Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    explored.as_object_mut().unwrap().remove("time_ms");
    let err = stderr(&out);
    let parts: u64 = err.split(": explored in ").nth(1).and_then(|r| r.split(' ').next()).and_then(|n| n.parse().ok()).unwrap();
    assert!(parts > 1, "not sliced: {err}");
    let out = tcfuzz(&["check", file, "--duplicates", "--json"], dir.path());
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let mut here: Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    here.as_object_mut().unwrap().remove("time_ms");
    assert!(here["executions"]["complete"].as_u64() == Some(count) && !here["races"].as_array().unwrap().is_empty(), "{here}");
    assert_eq!(explored["executions"]["duplicates"].as_u64(), Some(0));
    assert_eq!(explored, here);
}

#[test]
fn explore_reports_bad_input_like_check() {
    let dir = TempDir::new("explore-bad");
    let bad = dir.write("bad.litmus", "PTX nonsense\n");
    let out = tcfuzz(&["explore", "missing.litmus", "--workers", "1"], dir.path());
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    assert!(stderr(&out).starts_with("missing.litmus: error: "), "{}", stderr(&out));
    let out = tcfuzz(&["explore", bad.to_str().unwrap(), "--workers", "1"], dir.path());
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    assert!(stderr(&out).contains("bad.litmus:2:1: error: expected `{`"), "{}", stderr(&out));
    let out = tcfuzz(&["explore", bad.to_str().unwrap(), "--workers", "1", "--coordinator", "http://127.0.0.1:1"], dir.path());
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    assert!(stderr(&out).contains("--workers"), "{}", stderr(&out));
}

#[test]
fn explore_survives_a_coordinator_killed_and_restarted_mid_way() {
    let dir = TempDir::new("explore-restart");
    let file = large_program(&dir);
    let file = file.to_str().unwrap();
    let c = Coordinator::start(&dir, "127.0.0.1:0", "3s");
    let workers: Vec<Proc> = (0..2).map(|i| c.worker(&dir, &format!("w{i}"), &[], None)).collect();
    let explorer = explore(&c, &dir, file);
    c.wait(&dir, "a worker holds parts", Duration::from_secs(60), |s| holding_leases(s, "w0") || holding_leases(s, "w1"));
    let url = c.url.clone();
    c.proc.kill9();
    // The same port, the same corpus: the workers and `tcfuzz explore` reconnect by themselves.
    let c = Coordinator::start(&dir, url.trim_start_matches("http://"), "3s");
    let (v, parts) = explored(explorer, &dir);
    assert_same_verdict(&v, &checked_here(&dir, file));
    let recorded: u64 = workers.into_iter().map(|w| stop_worker(w).0).sum();
    // A part acknowledged just before the kill and reported again is acknowledged as already
    // recorded: at most the parts, and the counts above prove none was counted twice.
    assert!(recorded <= parts, "{recorded} of {parts}");
    c.stop();
}
