//! `tcfuzz fuzz`: the single-process fuzzing loop (issue 22 item 7). The worker's executor runs
//! on a thread pool; every result is recorded in the corpus (durable before it is counted or
//! printed); each new discrepancy is minimized on a background thread.

mod campaign;
mod minimizer;
mod reference;

pub(crate) use reference::CommandReference;

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context;
use tcfuzz_worker::{Executor, FuzzConfig, LocalGpu};

use crate::commands::minimize::parse_duration;
use crate::exit;

/// The `--json` output, shown by `tcfuzz fuzz --help`.
const JSON_SCHEMA: &str = "\
JSON output (--json): one object per line. First one object for the campaign:
  event        \"campaign\"
  campaign     its id in the corpus
  seed         the campaign seed (rerun with --seed SEED and the same --config to regenerate
               the same programs)
then one object per new discrepancy, once it is on disk:
  event        \"discrepancy\"
  kind         gpu-forbidden-outcome, explorer-vs-oracle, tileir-weaker-than-ptx, compiler-lowering, pattern-broken,
               sync-redundant, reference-disagrees or checker-crash
  signature    what identifies it (`tcfuzz corpus show --corpus DIR KIND SIGNATURE`)
  index        the program's index in the campaign
  summary      what was found, on one line
one object per minimized discrepancy:
  event        \"minimized\"
  kind, signature
  original, minimized   {\"threads\", \"instructions\", \"locations\"}
  seconds, budget_exhausted
one object with the counts per generator family:
  event        \"families\"
  families     {\"random\": {\"programs\", \"executions\", \"seconds\", \"programs_per_s\",
               \"executions_per_s\", \"too_large\", \"too_large_seconds\"}, \"pattern\": ...,
               \"mutant\": ..., \"coverage\": ...} (too_large: programs past the budget, with
               no verdict; too_large_seconds: the time they took)
and last the summary, exactly these keys:
  programs, executions, too_large, discrepancies_new, discrepancies_total,
  coverage_features, seconds, programs_per_s, executions_per_s
and, with --gpu, gpu: {\"ran\", \"instances\", \"unsupported\", \"failed\",
  \"first_failure\", \"given_up\"} (programs run on the GPU, their test instances,
  programs it cannot run, failures with the first one's message, programs not run
  after a hung or faulted kernel)";

/// Run the fuzzing loop: generate programs, check them, record what differs.
///
/// Program i of the campaign is a function of the seed, i and the configuration (and of the
/// corpus's coverage seeds when the run starts, for coverage-guided programs): rerunning with the
/// same --seed and --config on a copy of the corpus regenerates the same programs, whatever -j.
/// Each program is checked under every model that applies (sc and ptx for PTX programs, ptx for
/// programs with Tensor Memory and for pattern programs, tileir for Tile IR programs) within the
/// per-program budget (over-budget programs are counted as too large), and judged by the
/// discrepancy oracles: explorer-vs-oracle, tileir-weaker-than-ptx, compiler-lowering (Tile IR
/// programs, where tileiras is found after `bash .ci/setup-nvidia`), pattern-broken,
/// sync-redundant, checker-crash, and reference-disagrees where the config names a reference
/// command. Discrepancies are deduplicated by signature in the corpus; a new one is printed once it
/// is on disk and minimized in the background (the minimized program is stored beside it).
/// Programs that reach a coverage feature first become seeds for the coverage-guided family, which
/// mutates the corpus's seeds, or, past 8 MiB of them (programs and feature names), the newest
/// that fit (as a `tcfuzz campaign` does: its workers get the same pool, and a warning says so).
/// A program whose check took more than `budget.seed_max_executions` executions takes the
/// features it reached first but becomes no seed: its mutants would mostly be past the budget.
///
/// The configuration (--config FILE, JSON; every key optional):
///   {"generator": {"families": {"random": 55, "pattern": 15, "mutant": 10, "coverage": 20},
///                  "random": {"ptx": 3, "sync": 2, "tileir": 1, ...}, "patterns": {"tma-ring": 1, ...},
///                  "interesting_conditions": true, "spread_placements": 25,
///                  "coverage": {"edits": 3, "max_threads": 4, "max_instructions": 12}},
///    "models": ["sc", "ptx", "tileir"],
///    "budget": {"max_executions": 5000, "coverage_max_executions": 1000,
///               "seed_max_executions": 100, "millis": 10000, "loop_bound": 1},
///    "oracles": {"explorer_vs_oracle": 8, "oracle_limit": 20000, "tileir_weaker_than_ptx": 4,
///                "compiler_lowering": 200,
///                "reference": {"command": "herd7 -model ptx.cat {file}", "every": 50,
///                              "timeout_ms": 10000},
///                "gpu": {"every": 0, "iterations": 100, "confirm": 3}},
///    "pool_epoch": 1024}
/// An oracle's `every: N` runs it on one program in N (0: never).
///
/// Output: new discrepancies and minimizations as they happen, then a summary. A progress bar goes
/// to stderr when it is a terminal (not with --json or -q). Ctrl-C stops cleanly: the programs in
/// progress are abandoned, everything recorded stays on disk, the summary is printed; a second
/// Ctrl-C ends the process at once.
///
/// Exit codes: 0 the run ended (whether or not it found discrepancies: see the summary or
/// --json); 1 the corpus cannot be opened or written, or the config cannot be read; 2 usage
/// error; 6 --gpu and no GPU here; 130 stopped by Ctrl-C (everything recorded is on disk).
#[derive(Debug, clap::Args)]
#[command(after_long_help = JSON_SCHEMA)]
pub struct Args {
    /// The corpus directory (created if missing).
    #[arg(long, value_name = "DIR")]
    pub corpus: PathBuf,

    /// The campaign seed [default: a random one, printed].
    #[arg(long, value_name = "S")]
    pub seed: Option<u64>,

    /// Stop after this many programs.
    #[arg(long, value_name = "N", conflicts_with = "duration")]
    pub programs: Option<u64>,

    /// Stop after this long: `60s`, `10m`, `2h` [default: run until Ctrl-C].
    #[arg(long, value_name = "D", value_parser = parse_duration)]
    pub duration: Option<Duration>,

    /// Threads checking programs [default: the number of CPUs].
    #[arg(long, short = 'j', value_name = "N", value_parser = clap::value_parser!(u64).range(1..=1024))]
    pub jobs: Option<u64>,

    /// The campaign configuration (JSON, see above).
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,

    /// Time each new discrepancy may be minimized for.
    #[arg(long, value_name = "D", default_value = "30s", value_parser = parse_duration)]
    pub minimize_budget: Duration,

    /// Do not minimize new discrepancies.
    #[arg(long)]
    pub no_minimize: bool,

    /// One JSON object per line instead of text (schema below, in --help).
    #[arg(long)]
    pub json: bool,

    /// Also run programs on this machine's GPU (`gpu-forbidden-outcome`): every program the PTX
    /// model judges race-free, hang-free and exactly (unless the config's `oracles.gpu.every`
    /// says one in N), under the tuned stress harness; a state the model forbids is re-run
    /// `oracles.gpu.confirm` times before it is recorded. Exits 6 if there is no GPU.
    #[arg(long)]
    pub gpu: bool,

    /// Launches per program on the GPU [default: the config's `oracles.gpu.iterations`, 100].
    #[arg(long, value_name = "N", requires = "gpu", value_parser = clap::value_parser!(u64).range(1..))]
    pub gpu_iterations: Option<u64>,
}

/// The configuration and its canonical JSON (stored with the campaign).
fn read_config(path: Option<&PathBuf>) -> anyhow::Result<(FuzzConfig, String)> {
    let config: FuzzConfig = match path {
        None => FuzzConfig::default(),
        Some(p) => {
            let text = std::fs::read_to_string(p).with_context(|| format!("cannot read the config {}", p.display()))?;
            serde_json::from_str(&text).map_err(|e| anyhow::anyhow!("{}:{}:{}: error: {e}", p.display(), e.line(), e.column()))?
        }
    };
    let canonical = serde_json::to_string(&config)?;
    Ok((config, canonical))
}

pub fn run(args: &Args, quiet: bool) -> anyhow::Result<ExitCode> {
    let (mut config, mut canonical) = match read_config(args.config.as_ref()) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("error: {e:#}");
            return Ok(ExitCode::from(exit::INPUT_ERRORS));
        }
    };
    let gpu = if args.gpu {
        match LocalGpu::open() {
            Ok(g) => {
                if !quiet && !args.json {
                    eprintln!("fuzz: running programs on {}", g.describe());
                }
                let o = &mut config.oracles.gpu;
                o.every = o.every.max(1);
                if let Some(n) = args.gpu_iterations {
                    o.iterations = n;
                }
                canonical = serde_json::to_string(&config)?;
                Some(std::sync::Arc::new(g))
            }
            Err(e) => {
                eprintln!("tcfuzz fuzz: --gpu: {e}; run without --gpu to fuzz on the CPU only");
                return Ok(ExitCode::from(exit::NO_GPU));
            }
        }
    } else {
        None
    };
    let executor = match Executor::new(config.clone()) {
        Ok(e) => e,
        Err(e) => {
            eprintln!("error: {e}");
            return Ok(ExitCode::from(exit::INPUT_ERRORS));
        }
    };
    let threads = args.jobs.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get() as u64)) as usize;
    let seed = args.seed.unwrap_or_else(random_seed);
    let plan = campaign::Plan {
        corpus: args.corpus.clone(),
        seed,
        programs: args.programs,
        duration: args.duration,
        threads,
        pool_epoch: config.pool_epoch,
        config_text: canonical,
        minimize: (!args.no_minimize).then_some(args.minimize_budget),
        json: args.json,
        quiet,
        gpu,
    };
    campaign::run(plan, executor)
}

/// A seed from the clock and the process id.
fn random_seed() -> u64 {
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos() as u64);
    tcfuzz_generator::generate::program_seed(nanos, u64::from(std::process::id())) >> 16
}
