//! Coordinator capacity (DESIGN §9, issue 23 item 7): job completions per second and lease/report
//! latency with many lightweight synthetic workers over loopback, every result recorded durably
//! (group commit: one flush per batch, each answer after its flush).
//!
//! ```text
//! cargo run --release -p tcfuzz-coordinator --example capacity -- [WORKERS] [SECONDS] [CORES] [THINK_MS]
//! ```
//! Defaults: 1000 workers, 10 seconds (after 2 seconds of warm-up), 1 core each. Each synthetic
//! worker has its own connection, registers with CORES cores (2 × CORES leases), and loops: lease
//! as many jobs of one program each as it may hold, spend THINK_MS (default 0) "checking" them,
//! report them at once. With THINK_MS 0 the workers saturate the coordinator (throughput; the
//! latency is then queueing); with a think time they offer a load below it (latency). Each think
//! is drawn uniformly from 0.5 to 1.5 × THINK_MS and the first lease waits up to THINK_MS, so
//! that the workers do not all call at the same instant (in lockstep, a thousand reports arrive
//! in one burst every THINK_MS and the latency measured is the burst's, not the load's). The coordinator and the workers share this machine's
//! cores, so the figure is a floor for a coordinator with a machine of its own.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use tcfuzz_coordinator::{Config, Settings, serve};
use tcfuzz_corpus::Corpus;
use tcfuzz_proto::connect::Target;
use tcfuzz_proto::v1;

const TOKEN: &str = "capacity";

// The allocator the `tcfuzz` binary runs the coordinator with (cli/src/main.rs): measured with
// the system allocator instead, an eighth of the samples were in glibc's malloc and free.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[derive(Default)]
struct Tally {
    completions: AtomicU64,
    /// Microseconds, one entry per call, measuring only after the warm-up.
    lease_us: std::sync::Mutex<Vec<u64>>,
    report_us: std::sync::Mutex<Vec<u64>>,
}

/// The synthetic workers' runtime threads: the coordinator's CPU time is the process's less theirs.
const SYNTHETIC_THREADS: &str = "synthetic";

/// CPU time used so far, in clock ticks of 10 ms (Linux's `/proc`; zeros elsewhere): the whole
/// process, the synthetic workers' threads, and the coordinator's ledger and committer threads.
/// On a machine shared with other work the CPU time per completion is the steadier figure;
/// completions/s follow the other load.
fn cpu_ticks() -> [u64; 4] {
    fn ticks(stat: &str) -> Option<u64> {
        // After the `(comm)` field: state is field 3, utime 14 and stime 15.
        let rest = stat.rsplit_once(')')?.1;
        let fields: Vec<&str> = rest.split_whitespace().collect();
        Some(fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?)
    }
    let mut out = [std::fs::read_to_string("/proc/self/stat").ok().as_deref().and_then(ticks).unwrap_or(0), 0, 0, 0];
    for task in std::fs::read_dir("/proc/self/task").into_iter().flatten().flatten() {
        let comm = std::fs::read_to_string(task.path().join("comm")).unwrap_or_default();
        let slot = match comm.trim() {
            SYNTHETIC_THREADS => 1,
            "tcfuzz-ledger" => 2,
            "tcfuzz-commit" => 3,
            _ => continue,
        };
        out[slot] += std::fs::read_to_string(task.path().join("stat")).ok().as_deref().and_then(ticks).unwrap_or(0);
    }
    out
}

fn percentile(mut v: Vec<u64>, p: f64) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    v.sort_unstable();
    v[((v.len() - 1) as f64 * p) as usize] as f64 / 1000.0
}

/// A think time drawn uniformly from 0.5 to 1.5 × `think` (xorshift64: no dependency for this).
fn jittered(think: Duration, state: &mut u64) -> Duration {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    think.mul_f64(0.5 + (*state % 1000) as f64 / 1000.0)
}

async fn synthetic_worker(
    number: u64,
    target: Target,
    cores: u32,
    think: Duration,
    tally: Arc<Tally>,
    measuring: Arc<AtomicBool>,
    stop: Arc<AtomicBool>,
) {
    let mut c = target.coordinator().expect("client");
    let r = v1::RegisterRequest { cores, version: tcfuzz_proto::protocol_version().into(), name: "synthetic".into(), ..Default::default() };
    // A thousand connections at once can overflow the listen backlog: retry.
    let id = loop {
        match c.register(r.clone()).await {
            Ok(ok) => break ok.into_inner().worker_id,
            Err(_) => tokio::time::sleep(Duration::from_millis(50)).await,
        }
    };
    let mut rng = number.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    tokio::time::sleep(think.mul_f64((number % 1000) as f64 / 1000.0)).await;
    while !stop.load(Ordering::Relaxed) {
        let t = Instant::now();
        let Ok(leased) = c.lease_jobs(v1::LeaseJobsRequest { worker_id: id.clone(), max_jobs: 2 * cores }).await else { continue };
        let leased = leased.into_inner();
        let lease_us = t.elapsed().as_micros() as u64;
        if leased.jobs.is_empty() {
            tokio::time::sleep(Duration::from_millis(leased.retry_after_ms)).await;
            continue;
        }
        let results = leased
            .jobs
            .iter()
            .map(|j| {
                let count = match &j.work {
                    Some(v1::job::Work::Generate(g)) => g.count,
                    _ => 0,
                };
                v1::JobResult {
                    job_id: j.id,
                    stats: Some(v1::Stats { programs: count, executions: count, ..Default::default() }),
                    ..Default::default()
                }
            })
            .collect::<Vec<_>>();
        let n = results.len() as u64;
        tokio::time::sleep(if think.is_zero() { think } else { jittered(think, &mut rng) }).await;
        let t = Instant::now();
        let reported = c.report_results(v1::ReportResultsRequest { worker_id: id.clone(), results, returned_job_ids: vec![] }).await;
        let report_us = t.elapsed().as_micros() as u64;
        if reported.is_ok() && measuring.load(Ordering::Relaxed) {
            tally.completions.fetch_add(n, Ordering::Relaxed);
            tally.lease_us.lock().unwrap().push(lease_us);
            tally.report_us.lock().unwrap().push(report_us);
        }
    }
}

fn main() {
    let mut args = std::env::args().skip(1);
    let workers: usize = args.next().map_or(1000, |a| a.parse().expect("WORKERS: a number"));
    let seconds: u64 = args.next().map_or(10, |a| a.parse().expect("SECONDS: a number"));
    let cores: u32 = args.next().map_or(1, |a| a.parse().expect("CORES: a number"));
    let think = Duration::from_millis(args.next().map_or(0, |a| a.parse().expect("THINK_MS: a number")));
    let dir = tempfile::tempdir().expect("temp dir");
    // The coordinator and the synthetic workers on runtimes of their own, so that their CPU time
    // can be told apart (the coordinator's blocking threads are its runtime's).
    let coordinator = tokio::runtime::Builder::new_multi_thread().thread_name("coordinator").enable_all().build().expect("runtime");
    let synthetic = tokio::runtime::Builder::new_multi_thread().thread_name(SYNTHETIC_THREADS).enable_all().build().expect("runtime");
    let corpus = Corpus::open(dir.path()).expect("corpus");
    let listener = coordinator.block_on(tokio::net::TcpListener::bind("127.0.0.1:0")).expect("listen");
    let addr = listener.local_addr().expect("address");
    let config =
        Config { token: Some(TOKEN.into()), tls: None, settings: Settings { lease_ms: 60_000, ..Settings::default() }, reports: None };
    let (stop_server, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = coordinator.spawn(serve(corpus, listener, config, async {
        let _ = stopped.await;
    }));
    synthetic.block_on(async {
        let target = Target { url: format!("http://{addr}"), token: Some(TOKEN.into()), timeout: Some(Duration::from_secs(30)), ..Target::default() };
        let mut admin = target.admin().expect("admin");
        let r = v1::CreateCampaignRequest { name: "capacity".into(), seed: 1, programs: 100_000_000, job_programs: 1, ..Default::default() };
        let campaign = admin.create_campaign(r).await.expect("campaign").into_inner().campaign;

        let (tally, measuring, stop) = (Arc::new(Tally::default()), Arc::new(AtomicBool::new(false)), Arc::new(AtomicBool::new(false)));
        let tasks: Vec<_> =
            (0..workers).map(|i| tokio::spawn(synthetic_worker(i as u64, target.clone(), cores, think, tally.clone(), measuring.clone(), stop.clone()))).collect();
        tokio::time::sleep(Duration::from_secs(2)).await;
        measuring.store(true, Ordering::Relaxed);
        let (start, cpu_start) = (Instant::now(), cpu_ticks());
        tokio::time::sleep(Duration::from_secs(seconds)).await;
        measuring.store(false, Ordering::Relaxed);
        let elapsed = start.elapsed().as_secs_f64();
        let cpu_end = cpu_ticks();
        stop.store(true, Ordering::Relaxed);
        for t in tasks {
            let _ = t.await;
        }
        let status = admin.campaign_status(v1::CampaignStatusRequest { campaign }).await.expect("status").into_inner();
        let recorded = status.campaigns[0].stats.unwrap_or_default().programs;
        drop(admin);
        let _ = stop_server.send(());
        server.await.expect("server task").expect("server");

        let completions = tally.completions.load(Ordering::Relaxed);
        let lease = std::mem::take(&mut *tally.lease_us.lock().unwrap());
        let report = std::mem::take(&mut *tally.report_us.lock().unwrap());
        println!("workers {workers} of {cores} cores ({} jobs per report at most), think {think:?}, measured {elapsed:.1} s, durable (flush before every answer)", 2 * cores);
        println!("completions {completions}, {:.0} completions/s", completions as f64 / elapsed);
        println!("lease  latency ms: p50 {:.2}, p99 {:.2}", percentile(lease.clone(), 0.5), percentile(lease, 0.99));
        println!("report latency ms: p50 {:.2}, p99 {:.2}", percentile(report.clone(), 0.5), percentile(report, 0.99));
        let per_completion = |ticks: u64| ticks as f64 * 10_000.0 / completions.max(1) as f64;
        let used: Vec<u64> = (0..4).map(|i| cpu_end[i] - cpu_start[i]).collect();
        let coordinator_us = per_completion(used[0] - used[1]);
        println!(
            "CPU µs per completion: coordinator {coordinator_us:.0} (of which its ledger thread {:.0}, its committer {:.0}), synthetic workers {:.0}",
            per_completion(used[2]),
            per_completion(used[3]),
            per_completion(used[1]),
        );
        if coordinator_us > 0.0 {
            println!(
                "so the coordinator alone would use one core per {:.0} completions/s (an estimate from its CPU time, not a measurement)",
                1e6 / coordinator_us
            );
        }
        println!("recorded in the corpus over the whole run (warm-up included): {recorded} jobs");
    });
}
