//! The distributed commands (DESIGN §5): `tcfuzz coordinator`, `tcfuzz worker`, `tcfuzz status`
//! and `tcfuzz campaign` (a coordinator and its workers in one process, or a campaign on a running
//! coordinator). Each builds a tokio runtime of its own; checking runs on the workers' threads.

pub mod campaign;
pub(crate) mod connection;
pub mod coordinator;
pub mod explore;
mod report;
pub mod status;
pub mod worker;

use std::sync::Arc;
use std::time::Duration;

use tcfuzz_worker::service::{FuzzRunner, JobRunner};
use tcfuzz_worker::{Compiler, GpuRunner, LocalGpu, Reference, Tileiras};

use crate::commands::fuzz::CommandReference;

/// `--gpu` and `--gpu-iterations` of the commands that run workers.
#[derive(Debug, clap::Args)]
pub struct GpuArgs {
    /// Also run programs on this machine's GPU (`gpu-forbidden-outcome`), as `tcfuzz fuzz --gpu`
    /// does, in every campaign: every program the PTX model judges race-free, hang-free and
    /// exactly (one in N where the campaign's config has `oracles.gpu.every` N). The worker tells
    /// the coordinator its GPU's architecture (`tcfuzz status`). Exits 6 if there is no GPU.
    #[arg(long)]
    pub gpu: bool,

    /// Launches per program on the GPU [default: the campaign's `oracles.gpu.iterations`, 100].
    #[arg(long, value_name = "N", requires = "gpu", value_parser = clap::value_parser!(u64).range(1..))]
    pub gpu_iterations: Option<u64>,
}

/// The GPU the workers run programs on, opened before anything starts.
pub(crate) struct WorkerGpu {
    gpu: Arc<LocalGpu>,
    iterations: Option<u64>,
}

impl WorkerGpu {
    /// With `--gpu`, this machine's GPU; without, `None`; with `--gpu` and no GPU, the message
    /// (naming `command`) is printed and the error is the exit code to leave with.
    pub(crate) fn open(args: &GpuArgs, command: &str, quiet: bool) -> Result<Option<WorkerGpu>, std::process::ExitCode> {
        if !args.gpu {
            return Ok(None);
        }
        match LocalGpu::open() {
            Ok(g) => {
                if !quiet {
                    eprintln!("{command}: running programs on {}", g.describe());
                }
                Ok(Some(WorkerGpu { gpu: Arc::new(g), iterations: args.gpu_iterations }))
            }
            Err(e) => {
                eprintln!("tcfuzz {command}: --gpu: {e}; run without --gpu to check on the CPU only");
                Err(std::process::ExitCode::from(crate::exit::NO_GPU))
            }
        }
    }

    /// Whether the GPU was given up after a hung or faulted kernel.
    pub(crate) fn given_up(&self) -> bool {
        self.gpu.given_up()
    }

    /// The architecture a worker advertises (`sm_90`).
    pub(crate) fn arch(&self) -> String {
        self.gpu.arch()
    }
}

/// What workers run jobs with: the fuzzing core's executor (as `tcfuzz fuzz`), NVIDIA's
/// `tileiras` for `compiler-lowering` where it is found, the reference command a campaign's
/// configuration names for `reference-disagrees`, and this machine's GPU with `--gpu`.
fn runner(gpu: Option<&WorkerGpu>) -> Arc<dyn JobRunner> {
    let compiler = match Tileiras::discover() {
        Ok(t) => Some(Arc::new(t) as Arc<dyn Compiler + Send>),
        Err(e) => {
            tracing::info!("compiler-lowering is skipped: {e}");
            None
        }
    };
    let reference = Box::new(|r: &tcfuzz_worker::ReferenceConfig| {
        CommandReference::new(&r.command, Duration::from_millis(r.timeout_ms))
            .map(|c| Arc::new(c) as Arc<dyn Reference + Send>)
            .map_err(|e| format!("cannot make a directory for its files: {e}"))
    });
    let runner = FuzzRunner::new(compiler, Some(reference));
    Arc::new(match gpu {
        Some(g) => runner.with_gpu(g.gpu.clone() as Arc<dyn GpuRunner + Send>, g.iterations),
        None => runner,
    })
}

/// A tokio runtime for a command: two threads carry the network; checking has its own threads.
pub(crate) fn runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    use anyhow::Context;
    tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().context("cannot start the async runtime")
}

/// `--max-message-bytes N` within what the coordinator accepts ([`tcfuzz_coordinator::Settings`]):
/// said here, before anything starts, as a usage error.
fn check_message_limit(n: usize) -> anyhow::Result<()> {
    let (min, max) = (tcfuzz_coordinator::MIN_MESSAGE_BYTES, tcfuzz_proto::MAX_MESSAGE_BYTES);
    if !(min..=max).contains(&n) {
        anyhow::bail!(crate::exit::UsageError(format!(
            "--max-message-bytes {n}: not in {min}..={max} (256 KiB to 16 MiB; a result with one largest program must fit)"
        )));
    }
    Ok(())
}

/// Completes on SIGTERM or Ctrl-C (SIGINT).
async fn stop_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => {
                tokio::select! {
                    _ = term.recv() => {}
                    _ = tokio::signal::ctrl_c() => {}
                }
            }
            Err(_) => {
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}
