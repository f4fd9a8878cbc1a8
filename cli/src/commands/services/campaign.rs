//! `tcfuzz campaign`: a fuzzing campaign, embedded (a coordinator on a loopback port and one
//! worker per core in this process, over real gRPC) or on a running coordinator
//! (`--coordinator URL`); a progress line while it runs, a summary and a Markdown report at the
//! end.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, bail};
use serde_json::json;
use tcfuzz_coordinator::{Config, Settings, serve};
use tcfuzz_corpus::Corpus;
use tcfuzz_proto::connect::Target;
use tcfuzz_proto::v1;
use tcfuzz_worker::service::JobRunner;
use tonic::Code;

use super::connection::Connection;
use super::status::{gpu_json, gpu_text, state_name};
use super::{GpuArgs, WorkerGpu};
use crate::commands::minimize::parse_duration;
use crate::exit::UsageError;

/// Run a fuzzing campaign: generate programs, check them under every model that applies, record
/// discrepancies in a corpus and minimize each new one.
///
/// Embedded (the default): a coordinator on a loopback port and --workers workers (one per core
/// by default) in this process, talking real gRPC, recording into --corpus DIR. With
/// --coordinator URL (and --token-file): the campaign is created on that coordinator, run by its
/// workers, and followed from here until it ends.
///
/// The campaign ends after --programs programs or --duration, whichever comes first; with
/// neither, after a minute (`tcfuzz campaign` alone is a short demo into ./tcfuzz-corpus; give
/// `--duration 30d` for a long one). Ctrl-C or SIGTERM stops it early: jobs not started are
/// dropped, running ones are recorded. A progress line on stderr (a terminal only; not with
/// --json or -q) shows programs, programs/s, executions, discrepancies new/total and coverage
/// features. At the end: a summary line on stderr and a Markdown report (discrepancies found,
/// minimized programs, throughput) written to --report FILE (default:
/// DIR/reports/campaign-ID.md embedded, ./campaign-ID.md with --coordinator).
///
/// --json: one object on stdout at the end, with the keys of `tcfuzz fuzz --json` ("programs",
/// "executions", "too_large", "discrepancies_new", "discrepancies_total", "coverage_features",
/// "seconds", "programs_per_s", "executions_per_s") and "campaign", "state", "report",
/// "jobs_failed" (jobs whose results the coordinator refused for good: their programs are not
/// recorded; a job blamed for killing its workers is not one, it is a `checker-crash`), "gpu"
/// {"ran", "instances", "unsupported", "failed", "given_up"} (what the workers' GPU oracle did:
/// zeros without `--gpu` workers).
///
/// Workers run the executor of `tcfuzz fuzz`: --config is its configuration (see `tcfuzz fuzz
/// --help`), and every new discrepancy is minimized by a worker (within --minimize-budget), the
/// minimized program stored beside it. The corpus reads like a `tcfuzz fuzz` corpus: `tcfuzz
/// corpus ls --corpus DIR`, `tcfuzz report --corpus DIR`. The campaign checks the programs
/// `tcfuzz fuzz` checks with the same --seed and --config on the same corpus, with any number of
/// workers: the coverage-guided family mutates the same seed pool, epoch by epoch (the config's
/// `pool_epoch`), which past 8 MiB of seeds (programs and feature names) keeps the newest that
/// fit, in both.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub connection: Connection,

    /// The corpus directory (embedded; created if new).
    #[arg(long, value_name = "DIR", default_value = "tcfuzz-corpus", conflicts_with = "coordinator")]
    pub corpus: PathBuf,

    /// Programs to check.
    #[arg(long, value_name = "N")]
    pub programs: Option<u64>,

    /// How long to run (30s, 10m, 2h) [default without --programs: 1m].
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    pub duration: Option<Duration>,

    /// Workers in this process, one checking thread each (embedded; default: the machine's
    /// cores).
    #[arg(long, value_name = "N", conflicts_with = "coordinator")]
    pub workers: Option<usize>,

    /// The campaign seed: program i is a function of (seed, i, config).
    #[arg(long, value_name = "S", default_value_t = 1)]
    pub seed: u64,

    /// The generator configuration (JSON).
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,

    /// A name for the campaign.
    #[arg(long, value_name = "NAME", default_value = "campaign")]
    pub name: String,

    /// Programs per job, at most 1,000 (small jobs let a campaign end close to its --duration:
    /// jobs already leased when time is up are still checked).
    #[arg(long, value_name = "N", default_value_t = 25)]
    pub job_programs: u64,

    /// A program whose check takes longer is counted as too large [default: the config's
    /// `budget.millis`, 10s].
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    pub program_budget: Option<Duration>,

    /// Time each new discrepancy may be minimized for.
    #[arg(long, value_name = "DURATION", default_value = "30s", value_parser = parse_duration)]
    pub minimize_budget: Duration,

    /// The largest report the embedded coordinator accepts from its workers, in bytes: 262144
    /// (256 KiB) to 16777216 (16 MiB, the default); as `tcfuzz coordinator --max-message-bytes`.
    #[arg(long, value_name = "N", default_value_t = tcfuzz_proto::MAX_MESSAGE_BYTES, conflicts_with = "coordinator")]
    pub max_message_bytes: usize,

    /// Where to write the Markdown report.
    #[arg(long, value_name = "FILE")]
    pub report: Option<PathBuf>,

    /// JSON output (see above).
    #[arg(long)]
    pub json: bool,

    /// (Embedded only: a running coordinator's workers say for themselves, `tcfuzz worker --gpu`.)
    #[command(flatten)]
    pub gpu: GpuArgs,
}

/// A gRPC code as a person reads it.
/// Whether a failed call means the coordinator is away (restarting, or killed while the call
/// was in flight: tonic reports a connection reset mid-call as `Unknown` "transport error"),
/// so that a read-only call may be asked again.
pub fn coordinator_away(s: &tonic::Status) -> bool {
    s.code() == Code::Unavailable || (s.code() == Code::Unknown && s.message().contains("transport error"))
}

pub fn code_name(code: Code) -> String {
    format!("{code:?}").to_lowercase()
}

fn status_error(s: tonic::Status) -> anyhow::Error {
    anyhow::anyhow!("coordinator: {}: {}", code_name(s.code()), s.message())
}

/// A token for the embedded coordinator, never written anywhere.
fn random_token() -> String {
    use std::hash::{BuildHasher, Hasher};
    (0..2)
        .map(|i| {
            let mut h = std::collections::hash_map::RandomState::new().build_hasher();
            h.write_u64(i);
            h.write_u128(std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos()));
            format!("{:016x}", h.finish())
        })
        .collect()
}

/// How long a campaign runs when neither --programs nor --duration is given.
const DEMO_DURATION: Duration = Duration::from_secs(60);

/// How the campaign ended.
struct Ended {
    info: v1::CampaignInfo,
    report: String,
}

pub fn run(args: &Args, quiet: bool) -> anyhow::Result<ExitCode> {
    if args.workers == Some(0) {
        bail!(UsageError("--workers 0: give at least one worker".into()));
    }
    if args.programs == Some(0) {
        bail!(UsageError("--programs 0: give at least one program".into()));
    }
    super::check_message_limit(args.max_message_bytes)?;
    let (config, budget, pool_epoch) = match &args.config {
        Some(p) => {
            let text = std::fs::read_to_string(p).with_context(|| format!("--config {}: cannot read it", p.display()))?;
            // Checked here, as `tcfuzz fuzz` does, rather than by the first worker to run a job.
            let parsed: tcfuzz_worker::FuzzConfig =
                serde_json::from_str(&text).map_err(|e| anyhow::anyhow!("{}:{}:{}: error: {e}", p.display(), e.line(), e.column()))?;
            let (budget, pool_epoch) = (parsed.budget.millis, parsed.pool_epoch);
            tcfuzz_worker::Executor::new(parsed).map_err(|e| anyhow::anyhow!("{}: error: {e}", p.display()))?;
            (text, budget, pool_epoch)
        }
        None => (String::new(), tcfuzz_worker::ProgramBudget::default().millis, tcfuzz_worker::FuzzConfig::default().pool_epoch),
    };
    // Neither bound: the short demo run, a minute.
    let duration_ms = match (args.programs, args.duration) {
        (None, None) => DEMO_DURATION.as_millis() as u64,
        (_, d) => d.map_or(0, |d| d.as_millis().max(1) as u64),
    };
    let request = v1::CreateCampaignRequest {
        name: args.name.clone(),
        seed: args.seed,
        config,
        programs: args.programs.unwrap_or(0),
        duration_ms,
        job_programs: args.job_programs,
        program_budget_ms: args.program_budget.map_or(budget, |b| b.as_millis().max(1) as u64),
        minimize_budget_ms: args.minimize_budget.as_millis().max(1) as u64,
        pool_epoch,
    };
    if args.gpu.gpu && args.connection.coordinator.is_some() {
        bail!(UsageError("--gpu with --coordinator: the coordinator's workers run programs on their GPUs (`tcfuzz worker --gpu`)".into()));
    }
    let gpu = match WorkerGpu::open(&args.gpu, "campaign", quiet || args.json) {
        Ok(g) => g,
        Err(code) => return Ok(code),
    };
    let progress = !quiet && !args.json && std::io::stderr().is_terminal();
    let rt = super::runtime()?;
    let (ended, report_path) = rt.block_on(async {
        match args.connection.target(Duration::from_secs(30))? {
            Some(target) => {
                let ended = follow(&target, request, progress).await?;
                let path = args.report.clone().unwrap_or_else(|| PathBuf::from(format!("campaign-{}.md", ended.info.id)));
                anyhow::Ok((ended, path))
            }
            None => {
                let ended = embedded(args, request, progress, gpu.as_ref()).await?;
                let path =
                    args.report.clone().unwrap_or_else(|| args.corpus.join("reports").join(format!("campaign-{}.md", ended.info.id)));
                anyhow::Ok((ended, path))
            }
        }
    })?;
    write_report(&report_path, &ended.report)?;
    let info = &ended.info;
    let s = info.stats.unwrap_or_default();
    let seconds = info.elapsed_ms as f64 / 1000.0;
    let rate = |n: u64| if seconds > 0.0 { n as f64 / seconds } else { 0.0 };
    if args.json {
        println!(
            "{}",
            json!({
                "programs": s.programs, "executions": s.executions, "too_large": s.too_large,
                "discrepancies_new": info.discrepancies_new, "discrepancies_total": info.discrepancies_total,
                "coverage_features": info.coverage_features, "seconds": seconds,
                "programs_per_s": rate(s.programs), "executions_per_s": rate(s.executions),
                "campaign": info.id, "state": state_name(info.state), "report": report_path.display().to_string(),
                "jobs_failed": info.jobs_failed, "gpu": gpu_json(&s),
            })
        );
    } else if !quiet {
        eprintln!(
            "campaign {}: {} programs in {seconds:.1} s ({:.0} programs/s, {:.0} executions/s), {} too large; discrepancies: {} new, {} total; coverage features: {}; report: {}",
            info.id,
            s.programs,
            rate(s.programs),
            rate(s.executions),
            s.too_large,
            info.discrepancies_new,
            info.discrepancies_total,
            info.coverage_features,
            report_path.display()
        );
        if let Some(g) = gpu_text(&s) {
            eprintln!("campaign {}: {g}", info.id);
        }
    }
    if let Some(last) = info.failed_jobs.last() {
        // Not an error of the campaign (it went on), but programs it did not record.
        eprintln!(
            "warning: campaign {}: {} jobs failed (their results were refused; their programs are not recorded); the last, job {}: {}",
            info.id, info.jobs_failed, last.job_id, last.reason
        );
    }
    if !info.error.is_empty() {
        bail!("campaign {} stopped: {}", info.id, info.error);
    }
    Ok(ExitCode::SUCCESS)
}

fn write_report(path: &Path, text: &str) -> anyhow::Result<()> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).with_context(|| format!("--report {}: cannot create {}", path.display(), dir.display()))?;
    }
    std::fs::write(path, text).with_context(|| format!("--report {}: cannot write it", path.display()))
}

/// A coordinator on a loopback port and one worker per core, in this process.
async fn embedded(args: &Args, request: v1::CreateCampaignRequest, progress: bool, gpu: Option<&WorkerGpu>) -> anyhow::Result<Ended> {
    let corpus = Corpus::open(&args.corpus).with_context(|| format!("--corpus {}", args.corpus.display()))?;
    let workers = args.workers.unwrap_or_else(super::worker::cores);
    let settings = Settings { max_message_bytes: args.max_message_bytes, ..embedded_settings() };
    let workers = Workers { count: workers, runner: super::runner(gpu), gpu_arch: gpu.map_or_else(String::new, WorkerGpu::arch) };
    with_embedded(corpus, workers, settings, |target| async move { follow(&target, request, progress).await }).await?
}

/// The embedded coordinator's settings: shorter leases than a standalone one's, as its workers
/// share its process (a lost lease means the whole process is gone or stuck); and a worker told
/// that no job is ready asks again after 20 ms rather than 500: its few workers ask over
/// loopback, and a campaign's workers find no job at every seed-pool epoch's end (the next
/// epoch's jobs come once the last one's results are in), where 500 ms each cost `tcfuzz
/// campaign` 30 % against `tcfuzz fuzz` at equal cores.
pub(super) fn embedded_settings() -> Settings {
    Settings { lease_ms: 10_000, idle_retry_ms: 20, ..Settings::default() }
}

/// The workers [`with_embedded`] runs.
pub(super) struct Workers {
    /// How many, one checking thread each.
    pub count: usize,
    /// What they run jobs with.
    pub runner: Arc<dyn JobRunner>,
    /// The GPU architecture they advertise (empty: none).
    pub gpu_arch: String,
}

impl Workers {
    /// `count` workers checking on the CPU.
    pub fn cpu(count: usize) -> Workers {
        Workers { count, runner: super::runner(None), gpu_arch: String::new() }
    }
}

/// Runs `work` against a coordinator on a loopback port (recording into `corpus`, with
/// `settings`) with `workers`, all in this process over real gRPC; stops them after.
pub(super) async fn with_embedded<T, F: std::future::Future<Output = T>>(
    corpus: Corpus,
    workers: Workers,
    settings: Settings,
    work: impl FnOnce(Target) -> F,
) -> anyhow::Result<T> {
    let token = random_token();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.context("cannot listen on a loopback port")?;
    let addr = listener.local_addr().context("the loopback address")?;
    let (stop_server, server_stopped) = tokio::sync::oneshot::channel::<()>();
    let config = Config { token: Some(token.clone()), tls: None, settings, reports: None };
    let server = tokio::spawn(serve(corpus, listener, config, async {
        let _ = server_stopped.await;
    }));
    let target = Target { url: format!("http://{addr}"), token: Some(token), timeout: Some(Duration::from_secs(30)), ..Target::default() };
    let mut tasks = Vec::new();
    for i in 0..workers.count {
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let config = tcfuzz_worker::service::Config {
            target: target.clone(),
            cores: 1,
            name: format!("embedded-{i}"),
            gpu_arch: workers.gpu_arch.clone(),
            grace: Duration::from_secs(5),
        };
        let task = tokio::spawn(tcfuzz_worker::service::run(config, workers.runner.clone(), async {
            let _ = stopped.await;
        }));
        tasks.push((stop, task));
    }
    let result = work(target).await;
    for (stop, _) in &mut tasks {
        let _ = std::mem::replace(stop, tokio::sync::oneshot::channel().0).send(());
    }
    for (_, task) in tasks {
        match task.await {
            Ok(Ok(_)) => {}
            Ok(Err(e)) => tracing::warn!("an embedded worker: {e}"),
            Err(e) => tracing::warn!("an embedded worker panicked: {e}"),
        }
    }
    let _ = stop_server.send(());
    server.await.context("[tcfuzz internal bug] the embedded coordinator task")?.context("the embedded coordinator")?;
    Ok(result)
}

/// How long `follow` waits for a coordinator that went away (a restart) before giving up.
const UNREACHABLE_FOR: Duration = Duration::from_secs(60);

/// Creates the campaign, shows its progress until it ends (stopping it on Ctrl-C), and builds
/// the report.
async fn follow(target: &Target, request: v1::CreateCampaignRequest, progress: bool) -> anyhow::Result<Ended> {
    let mut admin = target.admin()?;
    let id = admin.create_campaign(request.clone()).await.map_err(status_error)?.into_inner().campaign;
    tracing::info!(campaign = id, "campaign created");
    let bar = progress.then(|| {
        let bar = indicatif::ProgressBar::new_spinner();
        bar.enable_steady_tick(Duration::from_millis(120));
        bar
    });
    let mut stop = std::pin::pin!(super::stop_signal());
    let mut stopping = false;
    let mut unreachable_since: Option<std::time::Instant> = None;
    let info = loop {
        let info = match admin.campaign_status(v1::CampaignStatusRequest { campaign: id }).await {
            Ok(r) => {
                unreachable_since = None;
                r.into_inner().campaigns.pop().context("[tcfuzz internal bug] the coordinator answered without the campaign")?
            }
            // A coordinator restarting: keep following for a while, as workers do.
            Err(s) if coordinator_away(&s) && unreachable_since.is_none_or(|t| t.elapsed() < UNREACHABLE_FOR) => {
                let since = *unreachable_since.get_or_insert_with(std::time::Instant::now);
                tracing::warn!("coordinator unreachable for {:.0} s: {}", since.elapsed().as_secs_f64(), s.message());
                tokio::time::sleep(Duration::from_millis(500)).await;
                continue;
            }
            Err(s) => return Err(status_error(s)),
        };
        if let Some(bar) = &bar {
            let s = info.stats.unwrap_or_default();
            bar.set_message(format!(
                "campaign {id}: {} programs, {:.0}/s, {} executions, discrepancies {} new / {} total, {} coverage features",
                s.programs, info.programs_per_s, s.executions, info.discrepancies_new, info.discrepancies_total, info.coverage_features
            ));
        }
        let running = info.state == v1::CampaignState::Running as i32;
        // Stopped: wait (bounded by the workers' leases) for the jobs already running.
        if !running && (info.jobs_leased == 0 || !stopping) {
            break info;
        }
        tokio::select! {
            () = tokio::time::sleep(Duration::from_millis(200)) => {}
            () = &mut stop, if !stopping => {
                stopping = true;
                tracing::info!("stopping the campaign: jobs not started are dropped, running ones recorded");
                admin.stop_campaign(v1::StopCampaignRequest { campaign: id }).await.map_err(status_error)?;
            }
        }
    };
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    let report = super::report::markdown(&mut admin, &info, &request).await?;
    Ok(Ended { info, report })
}
