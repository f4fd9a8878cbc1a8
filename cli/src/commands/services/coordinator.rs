//! `tcfuzz coordinator`: the coordinator service on a port, until SIGTERM or Ctrl-C.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context, bail};
use tcfuzz_coordinator::{Config, ReportSchedule, Settings, TlsIdentity, serve};
use tcfuzz_corpus::Corpus;

use super::connection::read_token;
use crate::commands::minimize::parse_duration;
use crate::exit::UsageError;

/// Run the coordinator: hand out a campaign's jobs to workers and record their results in the
/// corpus, exactly once.
///
/// Serves the Coordinator service (for `tcfuzz worker`), the Admin service (for `tcfuzz campaign
/// --coordinator` and `tcfuzz status`) and gRPC health checks (grpc.health.v1, no token needed)
/// on one port. Prints `listening on http://ADDR` (or https://) on stdout once it accepts
/// connections. Every result is on disk before it is acknowledged, and campaigns, jobs and leases
/// live in the corpus: after a crash, start it again on the same corpus and it resumes (workers
/// reconnect by themselves). SIGTERM or Ctrl-C: stop taking requests, finish those in flight, exit
/// 0.
///
/// Security: with --token-file every client must present the token; without it any client is
/// accepted, which is allowed only on a loopback address. With --tls-cert and --tls-key the port
/// serves TLS only.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The address to listen on (port 0: any free port, printed at start).
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:50051")]
    pub listen: SocketAddr,

    /// The corpus directory (created if new).
    #[arg(long, value_name = "DIR")]
    pub corpus: PathBuf,

    /// A file holding the token clients must present (its first line).
    #[arg(long, value_name = "FILE")]
    pub token_file: Option<PathBuf>,

    /// The TLS certificate chain (PEM); needs --tls-key.
    #[arg(long, value_name = "FILE", requires = "tls_key")]
    pub tls_cert: Option<PathBuf>,

    /// The TLS private key (PEM); needs --tls-cert.
    #[arg(long, value_name = "FILE", requires = "tls_cert")]
    pub tls_key: Option<PathBuf>,

    /// How long a lease lasts without a heartbeat (30s, 2m).
    #[arg(long, value_name = "DURATION", default_value = "30s", value_parser = parse_duration)]
    pub lease: Duration,

    /// Render the discrepancy report (as `tcfuzz report`) this often (24h), into --report-dir as
    /// report-DATE.{html,md,json} (DATE the UTC day; written atomically) with programs/*.litmus;
    /// each report is kept in the corpus as the next one's baseline.
    #[arg(long, value_name = "DURATION", value_parser = parse_duration, requires = "report_dir")]
    pub report_every: Option<Duration>,

    /// Where the periodic reports go (created if missing); needs --report-every.
    #[arg(long, value_name = "DIR", requires = "report_every")]
    pub report_dir: Option<PathBuf>,

    /// The largest request a worker may send, in bytes: 262144 (256 KiB) to 16777216 (16 MiB,
    /// the default). Workers learn it when they register and split their reports to fit; a job
    /// whose result alone is larger is recorded as failed.
    #[arg(long, value_name = "N", default_value_t = tcfuzz_proto::MAX_MESSAGE_BYTES)]
    pub max_message_bytes: usize,
}

pub fn run(args: &Args) -> anyhow::Result<ExitCode> {
    let token = args.token_file.as_deref().map(|p| read_token(p, "--token-file")).transpose()?;
    if token.is_none() && !args.listen.ip().is_loopback() {
        bail!(UsageError(format!(
            "--listen {}: without --token-file anyone who can reach this port could submit results; give --token-file, or listen on a loopback address",
            args.listen
        )));
    }
    if args.lease < Duration::from_millis(100) {
        bail!(UsageError(format!("--lease {:?}: at least 100ms", args.lease)));
    }
    super::check_message_limit(args.max_message_bytes)?;
    let tls = match (&args.tls_cert, &args.tls_key) {
        (Some(cert), Some(key)) => Some(TlsIdentity {
            cert_pem: std::fs::read(cert).with_context(|| format!("--tls-cert {}: cannot read it", cert.display()))?,
            key_pem: std::fs::read(key).with_context(|| format!("--tls-key {}: cannot read it", key.display()))?,
        }),
        _ => None,
    };
    let corpus = Corpus::open(&args.corpus).with_context(|| format!("--corpus {}", args.corpus.display()))?;
    let scheme = if tls.is_some() { "https" } else { "http" };
    let reports = match (args.report_every, &args.report_dir) {
        (Some(every), Some(dir)) => {
            if every < Duration::from_secs(1) {
                bail!(UsageError(format!("--report-every {every:?}: at least 1s")));
            }
            Some(ReportSchedule { every, dir: dir.clone() })
        }
        _ => None,
    };
    let settings = Settings { lease_ms: args.lease.as_millis() as u64, max_message_bytes: args.max_message_bytes, ..Settings::default() };
    let config = Config { token, tls, settings, reports };
    super::runtime()?.block_on(async {
        let listener =
            tokio::net::TcpListener::bind(args.listen).await.with_context(|| format!("--listen {}: cannot listen", args.listen))?;
        let addr = listener.local_addr().context("the listening address")?;
        println!("listening on {scheme}://{addr}");
        tracing::info!(corpus = %args.corpus.display(), "coordinator listening on {scheme}://{addr}");
        serve(corpus, listener, config, super::stop_signal()).await.context("coordinator")
    })?;
    Ok(ExitCode::SUCCESS)
}
