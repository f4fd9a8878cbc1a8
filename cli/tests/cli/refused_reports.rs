//! Issue 23: reports the coordinator refuses, and reports over its message limit, with the real
//! worker loop (`tcfuzz_worker::service::run`) against a real coordinator (`serve`) on
//! 127.0.0.1 and a sled corpus, in this process. The jobs are run by a test runner whose
//! results are chosen: one with a finding the coordinator refuses, or ones so large that a few
//! of them pass the coordinator's (lowered) message limit.
//!
//! Before: a refused report was dropped by the worker, its job's lease ran out, the job was
//! retried and, after two "lost workers", recorded as a false `checker-crash`; and a worker that
//! kept many results while the coordinator was away sent them in one report over the limit.

use std::net::SocketAddr;
use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use tcfuzz_coordinator::{Config, MIN_MESSAGE_BYTES, ServeError, Settings, serve};
use tcfuzz_corpus::{Corpus, JobState};
use tcfuzz_proto::connect::Target;
use tcfuzz_proto::v1;
use tcfuzz_worker::service::{Campaign, Discrepancy, JobError, JobRunner, Output, Seeds, Summary};

use super::*;

const TOKEN: &str = "refused-reports-token";
/// A valid program (message passing), the runner's every program.
const PROGRAM: &str = "PTX MP\n{\n  x = 0;\n  P1:r0 = 0;\n}\n P0@cta 0,gpu 0      | P1@cta 0,gpu 0       ;\n st.relaxed.gpu x, 1 | ld.relaxed.gpu r0, x ;\nexists (P1:r0 == 1)\n";

/// A gate the runner's jobs wait at until it opens.
#[derive(Default)]
struct Gate {
    open: Mutex<bool>,
    opened: Condvar,
}

impl Gate {
    fn open(&self) {
        *self.open.lock().unwrap() = true;
        self.opened.notify_all();
    }

    fn pass(&self) {
        let mut open = self.open.lock().unwrap();
        while !*open {
            open = self.opened.wait(open).unwrap();
        }
    }
}

/// Runs jobs without checking anything: each program reaches `features` coverage features of its
/// own (about 100 bytes each), and program `bad` has a finding with an empty signature, which the
/// coordinator refuses.
struct Runner {
    features: usize,
    bad: Option<u64>,
    gate: Arc<Gate>,
    started: AtomicU64,
    finished: AtomicU64,
}

impl JobRunner for Runner {
    fn program(&self, _: &Campaign, _: u64, _: Option<&Seeds>) -> Result<String, JobError> {
        Ok(PROGRAM.into())
    }

    fn run(&self, _: &Campaign, range: Range<u64>, _: Option<&Seeds>) -> Result<Output, JobError> {
        self.started.fetch_add(1, Ordering::SeqCst);
        self.gate.pass();
        let mut out = Output { programs: range.end - range.start, executions: range.end - range.start, ..Output::default() };
        for i in range {
            out.coverage.extend((0..self.features).map(|f| (format!("program {i} feature {f} {}", "x".repeat(70)), 1)));
            if self.bad == Some(i) {
                out.findings.push(Discrepancy {
                    kind: v1::DiscrepancyKind::PatternBroken,
                    signature: String::new(),
                    index: i,
                    program: PROGRAM.into(),
                    sides: [("a".into(), "x".into()), ("b".into(), "y".into())],
                });
            }
        }
        self.finished.fetch_add(1, Ordering::SeqCst);
        Ok(out)
    }

    fn minimize(&self, _: &Campaign, _: v1::DiscrepancyKind, _: &str, _: &str, _: Duration) -> Result<Option<String>, JobError> {
        Ok(None)
    }
}

fn runner(features: usize, bad: Option<u64>, open: bool) -> Arc<Runner> {
    let gate = Arc::new(Gate::default());
    if open {
        gate.open();
    }
    Arc::new(Runner { features, bad, gate, started: AtomicU64::new(0), finished: AtomicU64::new(0) })
}

/// A coordinator on `addr` (127.0.0.1, port 0 for any) over the corpus in `dir`.
struct Coordinator {
    addr: SocketAddr,
    stop: tokio::sync::oneshot::Sender<()>,
    task: tokio::task::JoinHandle<Result<(), ServeError>>,
}

impl Coordinator {
    async fn start(dir: &Path, addr: SocketAddr, settings: Settings) -> Coordinator {
        let listener = tokio::net::TcpListener::bind(addr).await.unwrap();
        let addr = listener.local_addr().unwrap();
        let config = Config { token: Some(TOKEN.into()), tls: None, settings, reports: None };
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let task = tokio::spawn(serve(Corpus::open(dir).unwrap(), listener, config, async {
            let _ = stopped.await;
        }));
        Coordinator { addr, stop, task }
    }

    fn target(&self) -> Target {
        Target {
            url: format!("http://{}", self.addr),
            token: Some(TOKEN.into()),
            timeout: Some(Duration::from_secs(10)),
            ..Target::default()
        }
    }

    async fn stop(self) {
        let _ = self.stop.send(());
        self.task.await.unwrap().unwrap();
    }
}

/// A worker of `cores` threads running `runner`'s jobs; stopped by the sender.
fn worker(
    target: Target,
    cores: usize,
    runner: Arc<Runner>,
) -> (tokio::sync::oneshot::Sender<()>, tokio::task::JoinHandle<Result<Summary, tcfuzz_worker::service::WorkerError>>) {
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let config =
        tcfuzz_worker::service::Config { target, cores, name: "test".into(), gpu_arch: String::new(), grace: Duration::from_secs(5) };
    let task = tokio::spawn(tcfuzz_worker::service::run(config, runner, async {
        let _ = stopped.await;
    }));
    (stop, task)
}

async fn create(admin: &mut tcfuzz_proto::connect::Admin, programs: u64) -> u64 {
    let r = v1::CreateCampaignRequest { name: "refused".into(), seed: 1, programs, job_programs: 1, ..Default::default() };
    admin.create_campaign(r).await.unwrap().into_inner().campaign
}

/// Polls the campaign (every 50 ms, at most `within`) until `done` holds.
async fn wait_for(target: &Target, id: u64, what: &str, within: Duration, done: impl Fn(&v1::CampaignInfo) -> bool) -> v1::CampaignInfo {
    let mut admin = target.admin().unwrap();
    let end = tokio::time::Instant::now() + within;
    loop {
        let info =
            admin.campaign_status(v1::CampaignStatusRequest { campaign: id }).await.ok().and_then(|r| r.into_inner().campaigns.pop());
        if let Some(info) = info {
            if done(&info) {
                return info;
            }
            assert!(tokio::time::Instant::now() < end, "campaign {id}: {what} did not happen within {within:?}: {info:?}");
        }
        assert!(tokio::time::Instant::now() < end, "campaign {id}: {what} did not happen within {within:?}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

fn finished(c: &v1::CampaignInfo) -> bool {
    c.state == v1::CampaignState::Finished as i32
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_report_the_coordinator_refuses_fails_its_job_and_is_no_checker_crash() {
    let dir = TempDir::new("refused-report");
    // Short leases: before the fix, the refused job was leased again and blamed within seconds.
    let settings = Settings { lease_ms: 600, idle_retry_ms: 20, ..Settings::default() };
    let c = Coordinator::start(dir.path(), "127.0.0.1:0".parse().unwrap(), settings).await;
    let target = c.target();
    let id = create(&mut target.admin().unwrap(), 4).await;
    let run = runner(3, Some(2), true);
    let (stop, task) = worker(target.clone(), 1, run.clone());
    let info = wait_for(&target, id, "finish", Duration::from_secs(30), finished).await;
    // Long enough for a lease of the failed job to run out, were it leased again.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let info_later = wait_for(&target, id, "status", Duration::from_secs(5), |_| true).await;
    let _ = stop.send(());
    let summary = tokio::time::timeout(Duration::from_secs(30), task).await.unwrap().unwrap().unwrap();
    c.stop().await;

    let why = "the coordinator refused the result: INVALID_ARGUMENT: results[0].findings[0].signature: must not be empty";
    assert_eq!((info.jobs_done, info.jobs_failed, info.stats.unwrap().programs), (4, 1, 3));
    let failed: Vec<(u64, &str)> = info.failed_jobs.iter().map(|f| (f.job_id, f.reason.as_str())).collect();
    assert_eq!(failed.len(), 1);
    assert_eq!(failed[0].1, why);
    assert_eq!(info.discrepancies_total, 0);
    assert_eq!((info_later.jobs_done, info_later.jobs_failed, info_later.discrepancies_total), (4, 1, 0));
    assert_eq!((summary.jobs_recorded, summary.jobs_failed), (3, 1));
    // The bad result refused alone, or first in a batch with another result, then alone.
    assert!((1..=2).contains(&summary.reports_refused), "{summary:?}");
    // Run once: never retried.
    assert_eq!(run.finished.load(Ordering::SeqCst), 4);

    let corpus = Corpus::open_existing(dir.path()).unwrap();
    assert_eq!(corpus.discrepancies().count(), 0, "no checker-crash (nor any) discrepancy");
    let job = corpus.job(failed[0].0).unwrap().unwrap();
    assert!(matches!(&job.state, JobState::Done { failed: Some(r), .. } if r == why), "{job:?}");
    assert_eq!(job.attempts, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn results_kept_while_the_coordinator_was_away_are_split_under_its_limit_and_all_recorded() {
    let dir = TempDir::new("split-reports");
    let limit = MIN_MESSAGE_BYTES;
    let settings = Settings { lease_ms: 20_000, idle_retry_ms: 20, max_message_bytes: limit };
    let c = Coordinator::start(dir.path(), "127.0.0.1:0".parse().unwrap(), settings.clone()).await;
    let (addr, target) = (c.addr, c.target());
    let id = create(&mut target.admin().unwrap(), 8).await;
    // Each result is about 110 KB: two fit in a report, the eight together are 3.4 times the limit.
    let run = runner(1000, None, false);
    let (stop, task) = worker(target.clone(), 4, run.clone());
    wait_for(&target, id, "8 jobs leased", Duration::from_secs(30), |c| c.jobs_leased == 8).await;
    for _ in 0..600 {
        if run.started.load(Ordering::SeqCst) == 4 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(run.started.load(Ordering::SeqCst), 4, "four jobs running, four queued on the worker");

    // The coordinator goes away; every job finishes meanwhile, and the worker keeps the results.
    c.stop().await;
    run.gate.open();
    for _ in 0..600 {
        if run.finished.load(Ordering::SeqCst) == 8 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(run.finished.load(Ordering::SeqCst), 8);
    let c = Coordinator::start(dir.path(), addr, settings).await;
    let info = wait_for(&target, id, "finish", Duration::from_secs(60), finished).await;
    let _ = stop.send(());
    let summary = tokio::time::timeout(Duration::from_secs(30), task).await.unwrap().unwrap().unwrap();
    c.stop().await;

    assert_eq!((info.jobs_done, info.jobs_failed, info.stats.unwrap().programs), (8, 0, 8));
    assert_eq!(info.coverage_features, 8000, "every result's coverage recorded");
    // Never refused: the batch went in reports within the limit, at least four of them.
    assert_eq!((summary.jobs_recorded, summary.jobs_failed, summary.reports_refused), (8, 0, 0));
    assert!(summary.reports >= 4, "{summary:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_result_over_the_limit_by_itself_is_never_sent_and_fails_its_job() {
    let dir = TempDir::new("result-over-limit");
    let limit = MIN_MESSAGE_BYTES;
    let settings = Settings { lease_ms: 20_000, idle_retry_ms: 20, max_message_bytes: limit };
    let c = Coordinator::start(dir.path(), "127.0.0.1:0".parse().unwrap(), settings).await;
    let target = c.target();
    let id = create(&mut target.admin().unwrap(), 2).await;
    // 3,000 features of about 100 bytes: one result is more than the 256 KiB limit.
    let run = runner(3000, None, true);
    let (stop, task) = worker(target.clone(), 1, run.clone());
    let info = wait_for(&target, id, "finish", Duration::from_secs(30), finished).await;
    let _ = stop.send(());
    let summary = tokio::time::timeout(Duration::from_secs(30), task).await.unwrap().unwrap().unwrap();
    c.stop().await;

    assert_eq!((info.jobs_done, info.jobs_failed, info.stats.unwrap().programs), (2, 2, 0));
    for f in &info.failed_jobs {
        let (head, tail) = f.reason.split_once(" bytes encoded, ").unwrap_or_else(|| panic!("{}", f.reason));
        assert!(head.strip_prefix("the result is ").and_then(|n| n.parse::<usize>().ok()).is_some_and(|n| n > limit), "{}", f.reason);
        assert_eq!(tail, format!("more than the coordinator's limit of {limit} bytes"));
    }
    // Nothing was sent that the coordinator had to refuse.
    assert_eq!((summary.jobs_failed, summary.reports_refused), (2, 0));
}

/// `tcfuzz campaign --coordinator URL --json` (a process) following a campaign whose one job's
/// report the coordinator refuses: the summary counts the job as failed, and says so on stderr.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn campaign_json_counts_a_job_failed_after_its_report_was_refused() {
    let dir = TempDir::new("refused-campaign-json");
    let settings = Settings { lease_ms: 20_000, idle_retry_ms: 20, ..Settings::default() };
    let c = Coordinator::start(dir.path(), "127.0.0.1:0".parse().unwrap(), settings).await;
    let target = c.target();
    let (stop, task) = worker(target.clone(), 1, runner(3, Some(2), true));
    let token = dir.write("token", &format!("{TOKEN}\n"));
    let report = dir.path().join("report.md");
    let args: Vec<String> = ["campaign", "--coordinator", &target.url, "--token-file", token.to_str().unwrap()]
        .into_iter()
        .chain(["--programs", "4", "--job-programs", "1", "--report", report.to_str().unwrap(), "--json"])
        .map(String::from)
        .collect();
    let cwd = dir.path().to_path_buf();
    let campaign = tokio::task::spawn_blocking(move || {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        tcfuzz(&args, &cwd)
    });
    let out = tokio::time::timeout(Duration::from_secs(60), campaign).await.expect("campaign within 60 s").unwrap();
    let (url, token_path, cwd) = (target.url.clone(), token.clone(), dir.path().to_path_buf());
    let status = tokio::task::spawn_blocking(move || {
        tcfuzz(&["status", "--coordinator", &url, "--token-file", token_path.to_str().unwrap(), "--json"], &cwd)
    });
    let status = tokio::time::timeout(Duration::from_secs(30), status).await.expect("status within 30 s").unwrap();
    let _ = stop.send(());
    let summary = tokio::time::timeout(Duration::from_secs(30), task).await.unwrap().unwrap().unwrap();
    c.stop().await;

    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let json: serde_json::Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    assert_eq!((json["programs"].as_u64(), json["jobs_failed"].as_u64(), json["state"].as_str()), (Some(3), Some(1), Some("finished")));
    let why = "the coordinator refused the result: INVALID_ARGUMENT: results[0].findings[0].signature: must not be empty";
    let warning =
        format!("warning: campaign {}: 1 jobs failed (their results were refused; their programs are not recorded)", json["campaign"]);
    let line = stderr(&out).lines().find(|l| l.starts_with(&warning)).map(String::from);
    assert!(line.as_deref().is_some_and(|l| l.ends_with(why)), "{}", stderr(&out));
    // `tcfuzz status --json` says the same, with the reason.
    assert_eq!(code(&status), 0, "{}", stderr(&status));
    let status: serde_json::Value = serde_json::from_str(stdout(&status).trim()).unwrap();
    let c = &status["campaigns"][0];
    assert_eq!(
        (c["id"].as_u64(), c["jobs_failed"].as_u64(), c["failed_jobs"][0]["reason"].as_str()),
        (json["campaign"].as_u64(), Some(1), Some(why)),
        "{status}"
    );
    assert_eq!((summary.jobs_recorded, summary.jobs_failed), (3, 1));
}
