//! `tcfuzz gpu`: run litmus programs on a GPU under the stress harness and compare what it did
//! with what the model allows (DESIGN §8, `gpu-forbidden-outcome`).

mod bench;
mod session;

use std::process::ExitCode;

use tcfuzz_gpu::run::Device;

/// Run litmus programs on a GPU and compare with the model.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, clap::Subcommand)]
pub enum Command {
    /// Say which GPU this machine has (what a worker advertises), or why there is none.
    Info(InfoArgs),
    Run(session::RunArgs),
    Bench(bench::Args),
}

#[derive(Debug, clap::Args)]
pub struct InfoArgs {
    /// One JSON object: {"device": {"name", "arch", "compute_capability", "multiprocessors"}} or
    /// {"device": null, "reason": ...}.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: &Args, quiet: bool) -> anyhow::Result<ExitCode> {
    match &args.command {
        Command::Info(a) => info(a),
        Command::Run(a) => session::run(a, quiet),
        Command::Bench(a) => bench::run(a, quiet),
    }
}

fn info(args: &InfoArgs) -> anyhow::Result<ExitCode> {
    match Device::open() {
        Ok(d) => {
            if args.json {
                println!("{}", serde_json::json!({ "device": d.info }));
            } else {
                let i = &d.info;
                println!(
                    "{} ({}, compute capability {}.{}, {} multiprocessors)",
                    i.name, i.arch, i.compute_capability.0, i.compute_capability.1, i.multiprocessors
                );
            }
            Ok(ExitCode::SUCCESS)
        }
        Err(e) => {
            if args.json {
                println!("{}", serde_json::json!({ "device": null, "reason": e.to_string() }));
            } else {
                eprintln!("tcfuzz gpu: {e}");
            }
            Ok(ExitCode::from(crate::exit::NO_GPU))
        }
    }
}
