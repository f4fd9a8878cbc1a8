//! The `tcfuzz` binary: argument parsing, logging setup and exit codes. Each command lives in its
//! own module under `commands/`; this file is only glue.

mod alloc;
mod commands;
mod exit;
mod inputs;
mod outputs;

use clap::{ArgAction, Parser, Subcommand};
use std::process::ExitCode;
use tracing_subscriber::EnvFilter;

// The explorer copies and drops many small graphs (one per branch of the search): mimalloc's
// per-thread free lists make that 10–20 % faster than the system allocator (`tcfuzz bench`).
#[global_allocator]
static ALLOCATOR: alloc::Allocator = alloc::Allocator;

/// tcfuzz: a stateless model-checking fuzzer for the memory models of NVIDIA GPUs (PTX, tcgen05,
/// CUDA Tile IR).
#[derive(Debug, Parser)]
#[command(
    name = "tcfuzz",
    // The release and the fingerprint of the build that a coordinator checks its workers against.
    version = tcfuzz_proto::protocol_version(),
    propagate_version = true,
    after_help = "\
Exit codes:
  0  success
  1  input errors: a file that does not parse or validate, cannot be read, or (fmt --check) is not
     canonically formatted, or (check) is too large to check
  2  usage errors: unknown command or option, missing argument, options that do not go together
  3  not supported yet: (check) a program uses an instruction the checker does not model yet,
     (emit) a program a kernel cannot express
  4  (check --differential) a lowered Tile IR program allows a state or race its Tile IR program
     does not
  5  (selftest) the DPOR explorer and the exhaustive oracle disagree on some generated program,
     (trace --oracle) on the traced one
  6  (gpu) no GPU or no CUDA driver on this machine, or a GPU that cannot run the program
  7  (gpu run, gpu bench) the GPU showed a final state the model forbids
  8  (worker --gpu) a kernel hung or faulted: the worker stopped so that a restart gets the GPU back
  130  stopped by Ctrl-C: (fuzz) everything recorded so far is in the corpus; (check, selftest)
       what was checked before it is reported

The litmus format is documented in litmus/FORMAT.md."
)]
struct Cli {
    /// Log more (repeatable: -v info, -vv debug, -vvv trace). Without -v or -q, RUST_LOG applies.
    #[arg(short, long, action = ArgAction::Count, global = true)]
    verbose: u8,

    /// Print only errors: no summary lines, no log messages below `error`.
    #[arg(short, long, global = true, conflicts_with = "verbose")]
    quiet: bool,

    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    Parse(commands::parse::Args),
    Fmt(commands::fmt::Args),
    Check(commands::check::Args),
    Campaign(commands::services::campaign::Args),
    Coordinator(commands::services::coordinator::Args),
    Worker(commands::services::worker::Args),
    Status(commands::services::status::Args),
    Explore(commands::services::explore::Args),
    Fuzz(commands::fuzz::Args),
    Generate(commands::generate::Args),
    Minimize(commands::minimize::Args),
    Report(commands::report::Args),
    Corpus(commands::corpus::Args),
    Emit(commands::emit::Args),
    Gpu(commands::gpu::Args),
    Bench(commands::bench::Args),
    Lower(commands::lower::Args),
    Explain(commands::explain::Args),
    Trace(commands::trace::Args),
    Selftest(commands::selftest::Args),
}

fn main() -> ExitCode {
    alloc::without_huge_pages();
    let cli = Cli::parse();
    init_tracing(cli.verbose, cli.quiet);
    let quiet = cli.quiet;
    let result = match cli.command {
        Command::Parse(args) => commands::parse::run(&args, quiet),
        Command::Fmt(args) => commands::fmt::run(&args, quiet),
        Command::Check(args) => commands::check::run(&args, quiet),
        Command::Campaign(args) => commands::services::campaign::run(&args, quiet),
        Command::Coordinator(args) => commands::services::coordinator::run(&args),
        Command::Worker(args) => commands::services::worker::run(&args, quiet),
        Command::Status(args) => commands::services::status::run(&args),
        Command::Explore(args) => commands::services::explore::run(&args, quiet),
        Command::Fuzz(args) => commands::fuzz::run(&args, quiet),
        Command::Generate(args) => commands::generate::run(&args, quiet),
        Command::Minimize(args) => commands::minimize::run(&args, quiet),
        Command::Report(args) => commands::report::run(&args, quiet),
        Command::Corpus(args) => commands::corpus::run(&args, quiet),
        Command::Emit(args) => commands::emit::run(&args, quiet),
        Command::Gpu(args) => commands::gpu::run(&args, quiet),
        Command::Bench(args) => commands::bench::run(&args, quiet),
        Command::Lower(args) => commands::lower::run(&args),
        Command::Explain(args) => commands::explain::run(&args),
        Command::Trace(args) => commands::trace::run(&args),
        Command::Selftest(args) => commands::selftest::run(&args, quiet),
    };
    match result {
        Ok(code) => code,
        // A closed stdout (`tcfuzz parse --json dir | head`) is the reader's choice, not an error.
        Err(err) if exit::is_broken_pipe(&err) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("error: {err:#}");
            exit::code_for(&err)
        }
    }
}

/// Logs go to stderr. `-q` and `-v` choose the level; without them `RUST_LOG` does (default `warn`).
fn init_tracing(verbose: u8, quiet: bool) {
    let level = match (quiet, verbose) {
        (true, _) => Some("error"),
        (false, 0) => None,
        (false, 1) => Some("info"),
        (false, 2) => Some("debug"),
        (false, _) => Some("trace"),
    };
    let filter = match level {
        Some(level) => EnvFilter::new(level),
        None => EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("warn")),
    };
    // Colour codes only where a person reads them.
    let ansi = std::io::IsTerminal::is_terminal(&std::io::stderr());
    tracing_subscriber::fmt().with_env_filter(filter).with_writer(std::io::stderr).with_ansi(ansi).with_target(false).without_time().init();
}
