//! `tcfuzz bench`: runs the scaling families through the explorer and prints the figures the
//! project keeps (DESIGN §9), beside GenMC 0.11's on the same shapes where its results file is
//! there.

use crate::commands::check::user_words;
use crate::exit::{self, UsageError};
use anyhow::{Context, Result, bail};
use clap::ValueEnum;
use serde::Serialize;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};
use tcfuzz_checker::{CheckError, ModelKind, Options, Stats, check};
use tcfuzz_generator::families::{FAMILIES, Family, family};

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum Model {
    Sc,
    Ptx,
}

/// Run the benchmark families through the DPOR explorer and print their figures.
///
/// Families: the GenMC benchmark shapes (readers, n-writers, casrot, lastzero, ainc, binc, wcas,
/// casw, coa, fib, indexer, szymanski) written as PTX litmus programs, plus sb, iriw, mp-chain and
/// tc-pipeline; each runs its default sizes (`--list`) unless --n is given. Each run prints
/// `family, n, model, complete, blocked, seconds, execs_per_s, peak_rss_kb`, and where GenMC 0.11's
/// results file is found (`--genmc`, default `../shared/bench/genmc-0.11-results.csv`) GenMC's
/// complete executions and executions per second on the same shape (its `sc` run for `--model
/// sc`, its `rc11` run for `--model ptx`) and our speedup: GenMC's wall time over ours, shown
/// only where the complete counts are equal. Blocked counts include the executions with a
/// failed `assume` that no later write can rescue, counted as GenMC counts its blocked ones.
/// `--json` prints one object per run with those keys; `blocked` includes the executions
/// discarded by a failed `assume` (as GenMC counts them), and execs_per_s counts complete and
/// blocked executions on both sides.
///
/// `--deadline-ms MS` gives each run a deadline (`Options::deadline`): a run still exploring
/// then stops and prints its partial counts and the seconds it took to stop, which is how the
/// bound is measured (`--family readers --n 24 --deadline-ms 100`: 16.7 million executions).
///
/// Absolute times are noisy on shared machines (±20 % from run to run here): `--repeat N` runs
/// each size N times and reports the fastest; compare ratios measured in one invocation.
///
/// Exit codes: 0 every run finished; 1 some run failed (e.g. beyond --max-executions; the others
/// still run and print); 2 usage error.
#[derive(Debug, clap::Args)]
#[command(verbatim_doc_comment)]
pub struct Args {
    /// Only this family (repeatable). Default: all of them.
    #[arg(long = "family", value_name = "NAME")]
    families: Vec<String>,
    /// Only this size (repeatable). Default: each family's default sizes.
    #[arg(long = "n", value_name = "N")]
    sizes: Vec<u32>,
    /// The memory model (repeatable). Default: sc.
    #[arg(long = "model", value_enum)]
    models: Vec<Model>,
    /// Print one JSON object per run instead of a table.
    #[arg(long)]
    json: bool,
    /// GenMC's results file to compare with.
    #[arg(long, value_name = "CSV")]
    genmc: Option<PathBuf>,
    /// Stop a run after this many executions (it is then reported as an error).
    #[arg(long, default_value_t = 50_000_000)]
    max_executions: u64,
    /// Run each size this many times and report the fastest run.
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    repeat: u32,
    /// Stop each run this many milliseconds after it starts and print its partial counts.
    #[arg(long, value_name = "MS")]
    deadline_ms: Option<u64>,
    /// List the families and exit.
    #[arg(long)]
    list: bool,
}

#[derive(Serialize)]
struct Row {
    family: &'static str,
    n: u32,
    model: &'static str,
    complete: u64,
    blocked: u64,
    seconds: f64,
    execs_per_s: f64,
    peak_rss_kb: Option<u64>,
    /// Set where the run stopped at `--deadline-ms` (its counts are then partial).
    #[serde(skip_serializing_if = "Option::is_none")]
    stopped: Option<&'static str>,
    genmc_complete: Option<u64>,
    genmc_execs_per_s: Option<f64>,
    speedup_vs_genmc: Option<f64>,
}

/// A GenMC run: (benchmark, n, model).
type GenmcKey = (String, u32, String);
/// GenMC's figures: run → (complete executions, wall seconds).
type GenmcTable = HashMap<GenmcKey, (u64, u64, f64)>;

pub fn run(args: &Args, quiet: bool) -> Result<ExitCode> {
    if args.list {
        let sizes = |f: &Family| f.default_sizes.iter().map(u32::to_string).collect::<Vec<_>>().join(", ");
        let name_width = FAMILIES.iter().map(|f| f.name.len()).max().unwrap_or(0);
        let sizes_width = FAMILIES.iter().map(|f| sizes(f).len()).max().unwrap_or(0);
        println!("{:<name_width$}  {:<sizes_width$}  n", "family", "sizes");
        for f in FAMILIES {
            println!("{:<name_width$}  {:<sizes_width$}  {}", f.name, sizes(f), f.param);
        }
        return Ok(ExitCode::SUCCESS);
    }
    let families: Vec<&Family> = if args.families.is_empty() {
        FAMILIES.iter().collect()
    } else {
        let mut out = Vec::new();
        for name in &args.families {
            match family(name) {
                Some(f) => out.push(f),
                None => {
                    let known: Vec<&str> = FAMILIES.iter().map(|f| f.name).collect();
                    return Err(UsageError(format!("unknown family `{name}`; known: {}", known.join(", "))).into());
                }
            }
        }
        out
    };
    // Every size must fit every family before anything is printed.
    for f in &families {
        if let Some(n) = args.sizes.iter().find(|&&n| n < f.min_n) {
            return Err(UsageError(format!("--n {n}: family {} needs n >= {}", f.name, f.min_n)).into());
        }
    }
    let models = if args.models.is_empty() { vec![Model::Sc] } else { args.models.clone() };
    let genmc = load_genmc(args.genmc.as_deref())?;
    if !args.json && !quiet {
        println!(
            "{:<10} {:>3} {:<5} {:>10} {:>8} {:>9} {:>12} {:>11} {:>10} {:>12} {:>8}",
            "family", "n", "model", "complete", "blocked", "seconds", "execs_per_s", "peak_rss_kb", "genmc", "genmc_exec/s", "speedup"
        );
    }
    let mut failed = 0;
    for f in families {
        let mut sizes = if args.sizes.is_empty() { f.default_sizes.to_vec() } else { args.sizes.clone() };
        sizes.sort_unstable();
        sizes.dedup();
        for &n in &sizes {
            let program = f.program(n);
            for &model in &models {
                let kind = match model {
                    Model::Sc => ModelKind::Sc,
                    Model::Ptx => ModelKind::Ptx,
                };
                reset_peak_rss();
                let mut fastest: Option<(Stats, f64, bool)> = None;
                for _ in 0..args.repeat {
                    let start = Instant::now();
                    let deadline = args.deadline_ms.map(|ms| start + Duration::from_millis(ms));
                    let options = Options { max_executions: args.max_executions, deadline, ..Options::default() };
                    let (stats, stopped) = match check(&program, kind, &options) {
                        Ok(v) => (v.stats, false),
                        Err(CheckError::Interrupted { partial, .. }) => (partial, true),
                        // One run beyond a limit does not stop the others; the exit code says it.
                        Err(e) => {
                            eprintln!("error: family {} n={n} under {}: {}", f.name, kind.name(), user_words(&e.to_string()));
                            failed += 1;
                            break;
                        }
                    };
                    let seconds = start.elapsed().as_secs_f64();
                    if fastest.as_ref().is_none_or(|(_, s, _)| seconds < *s) {
                        fastest = Some((stats, seconds, stopped));
                    }
                }
                let Some((stats, seconds, stopped)) = fastest else { continue };
                // GenMC counts executions discarded by a failed assume as blocked: so do we here.
                let blocked = stats.blocked + stats.assume_failed;
                let execs = stats.complete + blocked;
                let reference = genmc.as_ref().and_then(|t| t.get(&(genmc_name(f.name).to_string(), n, genmc_model(kind).to_string())));
                let execs_per_s = execs as f64 / seconds.max(1e-9);
                // Both rates count complete and blocked executions; the speedup compares wall
                // times, which is fair where the complete counts are equal (pinned in tests)
                // even when the blocked counts are not (`szymanski`'s failed assumes).
                let genmc_rate = reference.map(|(c, b, s)| (c + b) as f64 / s.max(1e-9));
                let row = Row {
                    family: f.name,
                    n,
                    model: kind.name(),
                    complete: stats.complete,
                    blocked,
                    seconds,
                    execs_per_s,
                    peak_rss_kb: peak_rss_kb(),
                    stopped: stopped.then_some("deadline"),
                    genmc_complete: reference.map(|r| r.0),
                    genmc_execs_per_s: genmc_rate,
                    // Only where the two explored the same complete executions.
                    speedup_vs_genmc: reference.filter(|r| !stopped && r.0 == stats.complete).map(|(_, _, s)| s / seconds.max(1e-9)),
                };
                print_row(&row, args.json)?;
            }
        }
    }
    Ok(exit::from_failures(failed))
}

fn print_row(r: &Row, json: bool) -> Result<()> {
    if json {
        println!("{}", serde_json::to_string(r)?);
        return Ok(());
    }
    let opt = |v: Option<String>| v.unwrap_or_else(|| "-".to_string());
    println!(
        "{:<10} {:>3} {:<5} {:>10} {:>8} {:>9.3} {:>12.0} {:>11} {:>10} {:>12} {:>8}{}",
        r.family,
        r.n,
        r.model,
        r.complete,
        r.blocked,
        r.seconds,
        r.execs_per_s,
        opt(r.peak_rss_kb.map(|v| v.to_string())),
        opt(r.genmc_complete.map(|v| v.to_string())),
        opt(r.genmc_execs_per_s.map(|v| format!("{v:.0}"))),
        opt(r.speedup_vs_genmc.map(|v| format!("{v:.2}x"))),
        if r.stopped.is_some() { "  (stopped at the deadline: partial counts)" } else { "" },
    );
    Ok(())
}

/// GenMC's benchmark name for a family.
fn genmc_name(family: &str) -> &str {
    match family {
        "n-writers" => "N-writers",
        "fib" => "fib_bench",
        "coa" => "CoA",
        other => other,
    }
}

/// The GenMC model a run compares with: its `sc` run, or for PTX (all accesses at one scope) `rc11`.
fn genmc_model(kind: ModelKind) -> &'static str {
    if kind == ModelKind::Sc { "sc" } else { "rc11" }
}

fn load_genmc(path: Option<&Path>) -> Result<Option<GenmcTable>> {
    let default = Path::new("../shared/bench/genmc-0.11-results.csv");
    let (path, required) = match path {
        Some(p) => (p, true),
        None => (default, false),
    };
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if !required => {
            tracing::info!("no GenMC figures ({}: {e}); printing ours only", path.display());
            return Ok(None);
        }
        Err(e) => return Err(e).with_context(|| format!("cannot read GenMC results {}", path.display())),
    };
    let mut table = GenmcTable::new();
    for (i, line) in text.lines().enumerate().skip(1) {
        let cols: Vec<&str> = line.split(',').collect();
        let parsed = (|| -> Option<(GenmcKey, (u64, u64, f64))> {
            let [bench, n, model, complete, blocked, wall, ..] = cols[..] else { return None };
            let key = (bench.to_string(), n.parse().ok()?, model.to_string());
            Some((key, (complete.parse().ok()?, blocked.parse().ok()?, wall.parse().ok()?)))
        })();
        match parsed {
            Some((k, v)) => {
                table.insert(k, v);
            }
            None if line.trim().is_empty() => {}
            None => bail!(
                "{}:{}: expected `benchmark,N,model,complete_execs,blocked_execs,wall_s,peak_rss_kb`, found `{line}`",
                path.display(),
                i + 1
            ),
        }
    }
    Ok(Some(table))
}

/// Resets the kernel's peak-RSS counter so each run reports its own peak (Linux: writing 5 to
/// `/proc/self/clear_refs`). Elsewhere the figure is the process's peak so far.
fn reset_peak_rss() {
    if let Err(e) = std::fs::write("/proc/self/clear_refs", "5") {
        tracing::debug!("cannot reset peak RSS: {e}");
    }
}

/// The process's peak resident set size in KiB (`VmHWM`), where the OS reports it.
fn peak_rss_kb() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}
