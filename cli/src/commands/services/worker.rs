//! `tcfuzz worker`: lease jobs from a coordinator and run them until SIGTERM or Ctrl-C.

use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context;
use tcfuzz_worker::service::Config;

use super::connection::Connection;
use super::{GpuArgs, WorkerGpu};
use crate::commands::minimize::parse_duration;
use crate::exit::UsageError;

/// Run a worker: lease jobs from a coordinator, generate and check their programs on -j threads,
/// report the results.
///
/// Heartbeats keep its leases while it works; when the coordinator is away it retries with
/// exponential backoff and jitter, keeping finished results until they are acknowledged. SIGTERM
/// or Ctrl-C: hand back the jobs not started, let running ones finish for --grace (then hand them
/// back too), report, exit 0. Exit 1 if the coordinator refuses it (wrong token, another tcfuzz
/// version).
///
/// Jobs run as in `tcfuzz fuzz` (the campaign's --config says what is generated, the models, the
/// per-program budget and the oracles): compiler-lowering where `tileiras` is found, and
/// reference-disagrees where the config names a reference command, gpu-forbidden-outcome with
/// --gpu. Minimization jobs shrink a new discrepancy's program while it keeps its kind and
/// signature.
///
/// Exit codes: 0 stopped; 1 refused by the coordinator or another error; 2 usage; 6 --gpu and no
/// GPU here.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub connection: Connection,

    /// Checking threads (default: the machine's cores).
    #[arg(short = 'j', long, value_name = "N")]
    pub jobs: Option<usize>,

    /// A name for this worker in `tcfuzz status` (default: the host name).
    #[arg(long, value_name = "NAME")]
    pub name: Option<String>,

    /// On stop, how long running jobs may take to finish before they are handed back.
    #[arg(long, value_name = "DURATION", default_value = "30s", value_parser = parse_duration)]
    pub grace: Duration,

    #[command(flatten)]
    pub gpu: GpuArgs,
}

/// The machine's cores.
pub fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

fn host_name() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname").map(|s| s.trim().to_string()).unwrap_or_default()
}

pub fn run(args: &Args, quiet: bool) -> anyhow::Result<ExitCode> {
    let threads = args.jobs.unwrap_or_else(cores);
    if threads == 0 || threads > 4096 {
        anyhow::bail!(UsageError(format!("-j {threads}: give 1 to 4096 threads")));
    }
    let gpu = match WorkerGpu::open(&args.gpu, "worker", quiet) {
        Ok(g) => g,
        Err(code) => return Ok(code),
    };
    let rt = super::runtime()?;
    let summary = rt.block_on(async {
        let target = args.connection.target(Duration::from_secs(30))?.ok_or_else(|| UsageError("give --coordinator URL".into()))?;
        let config = Config {
            target,
            cores: threads,
            name: args.name.clone().unwrap_or_else(host_name),
            gpu_arch: gpu.as_ref().map_or_else(String::new, WorkerGpu::arch),
            grace: args.grace,
        };
        tcfuzz_worker::service::run(config, super::runner(gpu.as_ref()), super::stop_signal()).await.context("worker")
    })?;
    if !quiet {
        eprintln!(
            "worker: {} jobs recorded ({} already recorded by others), {} programs, {} handed back, {} reconnects, {} failed (results refused)",
            summary.jobs_recorded,
            summary.jobs_already_recorded,
            summary.programs,
            summary.jobs_handed_back,
            summary.reconnects,
            summary.jobs_failed
        );
    }
    Ok(ExitCode::SUCCESS)
}
