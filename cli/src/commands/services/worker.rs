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
/// With --gpu, a kernel that hangs or faults takes the GPU's context with it until the process
/// exits: the worker then stops as on SIGTERM and exits 8, so that its supervisor (the deployments
/// of deploy/ restart it) brings it back with the GPU.
///
/// Exit codes: 0 stopped; 1 refused by the coordinator or another error; 2 usage; 6 --gpu and no
/// GPU here; 8 --gpu and the GPU was lost (restart the worker).
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
        let gpu_lost = async {
            match &gpu {
                Some(g) => until(|| g.given_up(), Duration::from_secs(1)).await,
                None => std::future::pending().await,
            }
        };
        let stop = async {
            tokio::select! {
                () = super::stop_signal() => {}
                () = gpu_lost => tracing::warn!("the GPU was given up after a hung or faulted kernel: stopping, so that a restart gets it back"),
            }
        };
        tcfuzz_worker::service::run(config, super::runner(gpu.as_ref()), stop).await.context("worker")
    })?;
    let lost = gpu.as_ref().is_some_and(WorkerGpu::given_up);
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
        if lost {
            eprintln!("worker: stopped because its GPU was lost (a kernel hung or faulted); restart it to use the GPU again");
        }
    }
    Ok(if lost { ExitCode::from(crate::exit::GPU_LOST) } else { ExitCode::SUCCESS })
}

/// Resolves once `done` holds, asked every `period`.
async fn until(done: impl Fn() -> bool, period: Duration) {
    while !done() {
        tokio::time::sleep(period).await;
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::time::Duration;

    /// The stop a lost GPU causes comes within a period of the flag, and not before it.
    #[test]
    fn until_resolves_once_the_flag_is_set() {
        let rt = super::super::runtime().expect("a runtime");
        let flag = Arc::new(AtomicBool::new(false));
        let f = flag.clone();
        rt.block_on(async {
            let waited =
                tokio::time::timeout(Duration::from_millis(50), super::until(|| f.load(Ordering::Relaxed), Duration::from_millis(5))).await;
            assert!(waited.is_err(), "resolved before the flag was set");
            flag.store(true, Ordering::Relaxed);
            let waited =
                tokio::time::timeout(Duration::from_secs(5), super::until(|| f.load(Ordering::Relaxed), Duration::from_millis(5))).await;
            assert!(waited.is_ok(), "did not resolve after the flag was set");
        });
    }
}
