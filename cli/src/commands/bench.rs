//! `tcfuzz bench`: runs the scaling families through the explorer and prints the figures the
//! project keeps (DESIGN §9), beside GenMC's on the same shapes: GenMC run side by side
//! (`--genmc-bin`, module `genmc`) or its recorded 0.11 figures (`--genmc`).

use crate::commands::check::user_words;
use crate::exit::{self, UsageError};
use anyhow::{Context, Result, bail};
use clap::ValueEnum;
use serde::Serialize;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};
use tcfuzz_checker::{CheckError, ModelKind, Options, Stats, check_parallel};
use tcfuzz_generator::families::{FAMILIES, Family, family};

mod genmc;
use genmc::{Genmc, GenmcRun};

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum Model {
    Sc,
    Ptx,
}

/// Run the benchmark families through the DPOR explorer and print their figures, beside GenMC's.
///
/// Families: the GenMC benchmark shapes (readers, n-writers, casrot, lastzero, ainc, binc, wcas,
/// casw, coa, fib, indexer, szymanski) written as PTX litmus programs, plus sb, iriw, mp-chain and
/// tc-pipeline. Each runs its quick sizes and its large ones (`--list`; the large ones, up to
/// where GenMC takes about a minute on a 2-core machine, take minutes in all), only its quick
/// ones with `--quick` (seconds: for CI), or the sizes given with --n. Each run prints
/// `family, n, model, complete, blocked, seconds, execs_per_s, ns_per_execution, peak_rss_kb`
/// (the process's peak resident memory during the run, the memory earlier runs freed given back
/// to the system first) and GenMC's figures on the same shape: its `sc` run for `--model sc`, its
/// `rc11` run for `--model ptx`.
///
/// GenMC's figures come from one of two places:
///   --genmc-bin PATH   run GenMC (a v0.11 binary) side by side: for each family and size, GenMC
///                      on its own test program, `PATH -sc|-rc11 --disable-estimation --
///                      -DN=n DIR/tests/correct/synthetic/<family>/variants/<family>0.c`
///                      (fib: -DNUM=n), alternating with tcfuzz on the same shape, --repeat K
///                      rounds, the fastest of each. DIR is `--genmc-tests DIR`, GenMC's source
///                      tree; by default the binary's folder, where GenMC's in-tree build leaves
///                      it. GenMC's time is spawn to exit (compiling the test program
///                      included, as a user sees it), its peak RSS that child's (wait4: the
///                      larger of GenMC's and that of the clang it runs to compile; `-`
///                      where it is not above tcfuzz's own, which Linux copies in at exec).
///   --genmc CSV        the recorded figures (default `../shared/bench/genmc-0.11-results.csv`,
///                      where it is found): GenMC 0.11 on a 2-core machine.
/// Each row then shows GenMC's complete and blocked counts, seconds and peak RSS, whether the
/// complete counts are equal (`same`), and our speedup: GenMC's wall time over ours, shown only
/// where the complete counts are equal. Blocked counts include the executions with a failed
/// `assume` that no later write can rescue, counted as GenMC counts its blocked ones.
/// A GenMC run that fails (test program missing, nonzero exit, output without the counts) is an
/// error naming the command; the row is printed without GenMC's side and the exit code is 1.
///
/// After the rows, a scaling table: for each family and model, ns per execution and peak RSS at
/// each n (and GenMC's), with the growth of ns per execution over the smallest n's.
///
/// `--json` prints one object per run with those keys (`genmc_complete`, `genmc_blocked`,
/// `genmc_seconds`, `genmc_peak_rss_kb`, `genmc_counts_equal`, `genmc_source`: "run" or
/// "recorded"); execs_per_s counts complete and blocked executions on both sides.
///
/// `--deadline-ms MS` gives each run a deadline (`Options::deadline`): a run still exploring
/// then stops and prints its partial counts and the seconds it took to stop, which is how the
/// bound is measured (`--family readers --n 24 --deadline-ms 100`: 16.7 million executions).
/// (GenMC runs are not stopped.)
///
/// `-j N` explores each program on N threads (`tcfuzz check -j N`: the exploration split into
/// subtrees the threads take in turn, a thread out of work given part of a busy one's) and runs
/// it on one thread too, alternating, and prints the ratio of the two rates
/// (`speedup_vs_one_thread`; where the counts are equal, as they must be). Measured on an idle
/// 2-core machine, `--model ptx -j 2 --repeat 2`: 1.84–1.97 on wcas 16, casrot 13, ainc 9 and binc 6.
///
/// Absolute times are noisy on shared machines (±20 % from run to run here): `--repeat N` runs
/// each size N times and reports the fastest; compare ratios measured in one invocation.
///
/// `--print --family F --n N` prints that program as a litmus file instead, to check or explore
/// it on its own.
///
/// Exit codes: 0 every run finished; 1 some run failed (e.g. beyond --max-executions, or a
/// GenMC run; the others still run and print); 2 usage error.
#[derive(Debug, clap::Args)]
#[command(verbatim_doc_comment)]
pub struct Args {
    /// Only this family (repeatable). Default: all of them.
    #[arg(long = "family", value_name = "NAME")]
    families: Vec<String>,
    /// Only this size (repeatable). Default: each family's quick and large sizes (`--list`).
    #[arg(long = "n", value_name = "N")]
    sizes: Vec<u32>,
    /// The memory model (repeatable). Default: sc.
    #[arg(long = "model", value_enum)]
    models: Vec<Model>,
    /// Print one JSON object per run instead of a table.
    #[arg(long)]
    json: bool,
    /// GenMC's recorded results file to compare with.
    #[arg(long, value_name = "CSV")]
    genmc: Option<PathBuf>,
    /// Run this GenMC binary side by side (instead of reading recorded figures).
    #[arg(long, value_name = "PATH", conflicts_with = "genmc")]
    genmc_bin: Option<PathBuf>,
    /// GenMC's source tree, holding tests/correct/synthetic/ (default: --genmc-bin's folder).
    #[arg(long, value_name = "DIR", requires = "genmc_bin")]
    genmc_tests: Option<PathBuf>,
    /// Only the quick sizes (seconds in all, for CI).
    #[arg(long, conflicts_with = "sizes")]
    quick: bool,
    /// Stop a run after this many executions (it is then reported as an error).
    #[arg(long, default_value_t = 50_000_000)]
    max_executions: u64,
    /// Run each size this many times and report the fastest run.
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    repeat: u32,
    /// Stop each run this many milliseconds after it starts and print its partial counts.
    #[arg(long, value_name = "MS")]
    deadline_ms: Option<u64>,
    /// Explore on N threads, and on one too, and print the ratio of their rates.
    #[arg(short = 'j', long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..=1024))]
    threads: u16,
    /// List the families and exit.
    #[arg(long)]
    list: bool,
    /// Print the litmus program of one family (--family) at one size (--n) and exit, to check
    /// or explore it on its own (`tcfuzz check -j N`, `tcfuzz explore`).
    #[arg(long, conflicts_with_all = ["list", "quick", "json"])]
    print: bool,
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
    /// Wall time per execution (complete or blocked), in nanoseconds.
    ns_per_execution: f64,
    peak_rss_kb: Option<u64>,
    /// Set where the run stopped at `--deadline-ms` (its counts are then partial).
    #[serde(skip_serializing_if = "Option::is_none")]
    stopped: Option<&'static str>,
    /// Where GenMC's figures come from: "run" (`--genmc-bin`) or "recorded" (the CSV).
    genmc_source: Option<&'static str>,
    genmc_complete: Option<u64>,
    genmc_blocked: Option<u64>,
    genmc_seconds: Option<f64>,
    genmc_execs_per_s: Option<f64>,
    genmc_peak_rss_kb: Option<u64>,
    /// Whether GenMC's complete count equals ours.
    genmc_counts_equal: Option<bool>,
    speedup_vs_genmc: Option<f64>,
    /// Threads the run explored on (`-j`).
    threads: u16,
    /// With `-j N`: the one-thread run's wall time over the N-thread run's (set only where their
    /// counts are equal).
    #[serde(skip_serializing_if = "Option::is_none")]
    speedup_vs_one_thread: Option<f64>,
}

/// A GenMC run: (benchmark, n, model).
type GenmcKey = (String, u32, String);
/// GenMC's recorded figures: run → its counts, time and memory.
type GenmcTable = HashMap<GenmcKey, GenmcRun>;

/// Where GenMC's side of each row comes from.
enum Reference {
    None,
    Recorded(GenmcTable),
    Run(Genmc),
}

pub fn run(args: &Args, quiet: bool) -> Result<ExitCode> {
    if args.list {
        let sizes = |f: &Family| {
            let quick = f.quick_sizes.iter().map(u32::to_string).collect::<Vec<_>>().join(", ");
            let large = f.large_sizes.iter().map(u32::to_string).collect::<Vec<_>>().join(", ");
            if large.is_empty() { quick } else { format!("{quick}; {large}") }
        };
        let name_width = FAMILIES.iter().map(|f| f.name.len()).max().unwrap_or(0);
        let sizes_width = FAMILIES.iter().map(|f| sizes(f).len()).max().unwrap_or(0).max("sizes (quick; large)".len());
        println!("{:<name_width$}  {:<sizes_width$}  n", "family", "sizes (quick; large)");
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
    if args.print {
        let (&[f], &[n]) = (families.as_slice(), args.sizes.as_slice()) else {
            return Err(UsageError("--print needs exactly one --family and one --n".into()).into());
        };
        print!("{}", f.text(n));
        return Ok(ExitCode::SUCCESS);
    }
    let models = if args.models.is_empty() { vec![Model::Sc] } else { args.models.clone() };
    let reference = match &args.genmc_bin {
        Some(bin) => Reference::Run(Genmc::new(bin, args.genmc_tests.as_deref()).map_err(UsageError)?),
        None => load_genmc(args.genmc.as_deref())?.map_or(Reference::None, Reference::Recorded),
    };
    if !args.json && !quiet {
        println!(
            "{:<10} {:>3} {:<5} {:>10} {:>8} {:>9} {:>12} {:>8} {:>11} {:>10} {:>8} {:>9} {:>12} {:>4} {:>8}",
            "family",
            "n",
            "model",
            "complete",
            "blocked",
            "seconds",
            "execs_per_s",
            "ns/exec",
            "peak_rss_kb",
            "genmc",
            "genmc_bl",
            "genmc_s",
            "genmc_rss_kb",
            "same",
            "speedup"
        );
    }
    let mut failed = 0;
    let mut rows = Vec::new();
    for f in families {
        let mut sizes = match (args.sizes.is_empty(), args.quick) {
            (false, _) => args.sizes.clone(),
            (true, true) => f.quick_sizes.to_vec(),
            (true, false) => [f.quick_sizes, f.large_sizes].concat(),
        };
        sizes.sort_unstable();
        sizes.dedup();
        for &n in &sizes {
            let program = f.program(n);
            for &model in &models {
                let kind = match model {
                    Model::Sc => ModelKind::Sc,
                    Model::Ptx => ModelKind::Ptx,
                };
                let whose = format!("family {} n={n} under {}", f.name, kind.name());
                // The free memory of the runs before, given back, so that it is not in this
                // run's peak.
                crate::alloc::release_free_memory();
                reset_peak_rss();
                // (With -j, the one-thread runs alternate with the N-thread ones, and with
                // --genmc-bin GenMC's runs with ours.)
                let threads: &[u16] = if args.threads > 1 { &[args.threads, 1] } else { &[1] };
                let mut fastest: [Option<(Stats, f64, bool)>; 2] = [None, None];
                let mut genmc_fastest: Option<GenmcRun> = None;
                // Our peak over the rounds, read after each: a GenMC run resets it (see
                // `Genmc::run`).
                let mut peak_rss: Option<u64> = None;
                let mut genmc_failed = false;
                'repeat: for _ in 0..args.repeat {
                    for (i, &t) in threads.iter().enumerate() {
                        match measure(&program, kind, args, t) {
                            Ok(run) => {
                                peak_rss = peak_rss.max(peak_rss_kb());
                                if fastest[i].as_ref().is_none_or(|(_, s, _)| run.1 < *s) {
                                    fastest[i] = Some(run);
                                }
                            }
                            // One run beyond a limit does not stop the others; the exit code says it.
                            Err(e) => {
                                eprintln!("error: {whose}: {}", user_words(&e.to_string()));
                                failed += 1;
                                fastest = [None, None];
                                break 'repeat;
                            }
                        }
                    }
                    if let Reference::Run(genmc) = &reference
                        && !genmc_failed
                    {
                        match genmc.run(f.name, n, kind) {
                            Ok(Some(run)) => genmc_fastest = Some(fastest_genmc(genmc_fastest, run)),
                            Ok(None) => {}
                            Err(e) => {
                                eprintln!("error: {whose}: GenMC: {e:#}");
                                failed += 1;
                                genmc_failed = true;
                                genmc_fastest = None;
                            }
                        }
                    }
                }
                let [Some((stats, seconds, stopped)), one_thread] = fastest else { continue };
                let speedup_vs_one_thread = one_thread
                    .filter(|(s1, _, stopped1)| !stopped && !stopped1 && (s1.complete, s1.blocked) == (stats.complete, stats.blocked))
                    .map(|(_, s1, _)| s1 / seconds.max(1e-9));
                // GenMC counts executions discarded by a failed assume as blocked: so do we here.
                let blocked = stats.blocked + stats.assume_failed;
                let execs = stats.complete + blocked;
                let (source, genmc) = match &reference {
                    Reference::None => (None, None),
                    Reference::Recorded(table) => {
                        let key = (genmc_name(f.name).to_string(), n, genmc_model(kind).to_string());
                        (Some("recorded"), table.get(&key).copied())
                    }
                    Reference::Run(_) => (Some("run"), genmc_fastest),
                };
                let execs_per_s = execs as f64 / seconds.max(1e-9);
                let counts_equal = genmc.map(|g| !stopped && g.complete == stats.complete);
                let row = Row {
                    family: f.name,
                    n,
                    model: kind.name(),
                    complete: stats.complete,
                    blocked,
                    seconds,
                    execs_per_s,
                    ns_per_execution: seconds * 1e9 / execs.max(1) as f64,
                    peak_rss_kb: peak_rss,
                    stopped: stopped.then_some("deadline"),
                    genmc_source: genmc.and(source),
                    genmc_complete: genmc.map(|g| g.complete),
                    genmc_blocked: genmc.map(|g| g.blocked),
                    genmc_seconds: genmc.map(|g| g.seconds),
                    // Both rates count complete and blocked executions.
                    genmc_execs_per_s: genmc.map(|g| (g.complete + g.blocked) as f64 / g.seconds.max(1e-9)),
                    genmc_peak_rss_kb: genmc.and_then(|g| g.peak_rss_kb),
                    genmc_counts_equal: counts_equal,
                    // The speedup compares wall times, which is fair where the complete counts
                    // are equal even when the blocked counts are not (`szymanski`'s failed
                    // assumes); only there.
                    speedup_vs_genmc: genmc.filter(|_| counts_equal == Some(true)).map(|g| g.seconds / seconds.max(1e-9)),
                    threads: args.threads,
                    speedup_vs_one_thread,
                };
                print_row(&row, args.json)?;
                rows.push(row);
            }
        }
    }
    if !args.json && !quiet {
        print_scaling(&rows);
    }
    Ok(exit::from_failures(failed))
}

/// The faster of two GenMC runs; the peak RSS is the larger of the two, as ours is the peak over
/// every round.
fn fastest_genmc(best: Option<GenmcRun>, run: GenmcRun) -> GenmcRun {
    match best {
        None => run,
        Some(best) => {
            let peak_rss_kb = best.peak_rss_kb.max(run.peak_rss_kb);
            let faster = if run.seconds < best.seconds { run } else { best };
            GenmcRun { peak_rss_kb, ..faster }
        }
    }
}

/// One run of `program` on `threads` threads: its counts (partial where it stopped at the
/// deadline), its wall seconds, and whether it stopped.
fn measure(program: &tcfuzz_litmus::Program, kind: ModelKind, args: &Args, threads: u16) -> Result<(Stats, f64, bool), CheckError> {
    let start = Instant::now();
    let deadline = args.deadline_ms.map(|ms| start + Duration::from_millis(ms));
    let options = Options { max_executions: args.max_executions, deadline, ..bench_options() };
    let (stats, stopped) = match check_parallel(program, kind, &options, usize::from(threads)) {
        Ok(v) => (v.stats, false),
        Err(CheckError::Interrupted { partial, .. }) => (partial, true),
        Err(e) => return Err(e),
    };
    Ok((stats, start.elapsed().as_secs_f64(), stopped))
}

/// What a benchmark run keeps: the counts, and nothing that grows with the executions (no final
/// states, no witnesses), as a campaign's worker would check; what it measures is the explorer.
fn bench_options() -> Options {
    Options { witnesses: false, max_states: Some(0), count_omitted_states: false, ..Options::default() }
}

fn print_row(r: &Row, json: bool) -> Result<()> {
    if json {
        println!("{}", serde_json::to_string(r)?);
        return Ok(());
    }
    let opt = |v: Option<String>| v.unwrap_or_else(|| "-".to_string());
    println!(
        "{:<10} {:>3} {:<5} {:>10} {:>8} {:>9.3} {:>12.0} {:>8.0} {:>11} {:>10} {:>8} {:>9} {:>12} {:>4} {:>8}{}",
        r.family,
        r.n,
        r.model,
        r.complete,
        r.blocked,
        r.seconds,
        r.execs_per_s,
        r.ns_per_execution,
        opt(r.peak_rss_kb.map(|v| v.to_string())),
        opt(r.genmc_complete.map(|v| v.to_string())),
        opt(r.genmc_blocked.map(|v| v.to_string())),
        opt(r.genmc_seconds.map(|v| format!("{v:.3}"))),
        opt(r.genmc_peak_rss_kb.map(|v| v.to_string())),
        opt(r.genmc_counts_equal.map(|v| if v { "yes" } else { "NO" }.to_string())),
        opt(r.speedup_vs_genmc.map(|v| format!("{v:.2}x"))),
        if r.stopped.is_some() { "  (stopped at the deadline: partial counts)" } else { "" },
    );
    if r.threads > 1 {
        let ratio = r.speedup_vs_one_thread.map_or_else(|| "- (counts differ or a run stopped)".to_string(), |v| format!("{v:.2}x"));
        println!("{:<10} {:>3} {:<5} on {} threads: {ratio} the one-thread rate", "", "", "", r.threads);
    }
    Ok(())
}

/// The scaling table: per family and model, ns per execution and peak RSS at each n, ours and
/// GenMC's, with each side's ns per execution over its value at the smallest n (`growth`), so
/// that a cost growing with the graph shows at a glance.
fn print_scaling(rows: &[Row]) {
    let mut groups: Vec<(&str, &str, Vec<&Row>)> = Vec::new();
    for r in rows {
        match groups.iter_mut().find(|(f, m, _)| *f == r.family && *m == r.model) {
            Some((_, _, group)) => group.push(r),
            None => groups.push((r.family, r.model, vec![r])),
        }
    }
    groups.retain(|(_, _, group)| group.len() > 1);
    if groups.is_empty() {
        return;
    }
    println!();
    println!("scaling: ns per execution (growth: over the smallest n's) and peak RSS at each n");
    println!(
        "{:<10} {:<5} {:>3} {:>10} {:>8} {:>11} {:>13} {:>8} {:>12}",
        "family", "model", "n", "ns/exec", "growth", "peak_rss_kb", "genmc_ns/exec", "growth", "genmc_rss_kb"
    );
    let opt = |v: Option<String>| v.unwrap_or_else(|| "-".to_string());
    for (family, model, group) in groups {
        let base = group[0].ns_per_execution.max(1e-9);
        let genmc_ns = |r: &Row| {
            let execs = r.genmc_complete? + r.genmc_blocked.unwrap_or(0);
            Some(r.genmc_seconds? * 1e9 / execs.max(1) as f64)
        };
        let genmc_base = genmc_ns(group[0]);
        for r in group {
            let g = genmc_ns(r);
            println!(
                "{:<10} {:<5} {:>3} {:>10.0} {:>7.2}x {:>11} {:>13} {:>8} {:>12}",
                family,
                model,
                r.n,
                r.ns_per_execution,
                r.ns_per_execution / base,
                opt(r.peak_rss_kb.map(|v| v.to_string())),
                opt(g.map(|v| format!("{v:.0}"))),
                opt(g.zip(genmc_base).map(|(v, b)| format!("{:.2}x", v / b.max(1e-9)))),
                opt(r.genmc_peak_rss_kb.map(|v| v.to_string())),
            );
        }
    }
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
        Err(e) => {
            return Err(e).with_context(|| {
                format!("cannot read GenMC results {} (to run a GenMC binary side by side, give it as --genmc-bin)", path.display())
            });
        }
    };
    let mut table = GenmcTable::new();
    for (i, line) in text.lines().enumerate().skip(1) {
        let cols: Vec<&str> = line.split(',').collect();
        let parsed = (|| -> Option<(GenmcKey, GenmcRun)> {
            let [bench, n, model, complete, blocked, wall, ref rest @ ..] = cols[..] else { return None };
            let key = (bench.to_string(), n.parse().ok()?, model.to_string());
            let peak_rss_kb = rest.first().and_then(|v| v.parse().ok());
            Some((
                key,
                GenmcRun { complete: complete.parse().ok()?, blocked: blocked.parse().ok()?, seconds: wall.parse().ok()?, peak_rss_kb },
            ))
        })();
        match parsed {
            Some((k, v)) => {
                table.insert(k, v);
            }
            None if line.trim().is_empty() => {}
            None => bail!(
                "{}:{}: expected `benchmark,N,model,complete_execs,blocked_execs,wall_s,peak_rss_kb`, found `{line}`{}",
                path.display(),
                i + 1,
                if text.starts_with("#!") { " (to run a GenMC binary side by side, give it as --genmc-bin)" } else { "" }
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
    status_kb("VmHWM:")
}

fn status_kb(key: &str) -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with(key))?;
    line.split_whitespace().nth(1)?.parse().ok()
}
