//! `tcfuzz selftest`: the DPOR explorer against the exhaustive oracle on generated programs
//! (DESIGN §3.1: "outcome sets and execution counts must agree on every program small enough for
//! the oracle"; a difference is an `explorer-vs-oracle` discrepancy, §4).

pub(crate) mod compare;
mod report;

use std::collections::BTreeMap;
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc;
use std::time::Instant;

use anyhow::Result;
use indicatif::{ProgressBar, ProgressStyle};
use tcfuzz_checker::ModelKind;
use tcfuzz_generator::random::Family;

use crate::commands::check::Model;
use crate::commands::interrupt;
use crate::exit::{self, UsageError};
use crate::outputs;
use compare::ProgramReport;
use report::Summary;

/// The `--json` schema, shown by `tcfuzz selftest --help`.
const JSON_SCHEMA: &str = "\
JSON output (--json): one object per line; first one per disagreement (a program and a model),
in the order of the programs:
  kind         \"disagreement\"
  seed         the program's seed (regenerate it with --programs 1 --seed SEED --family FAMILY)
  family       \"ptx\", \"sync\", \"tileir\", \"tcgen05\", \"assume\", \"fenced\" or \"proxy\"
  model        \"sc\", \"ptx\" or \"tileir\"
  program      the program's name
  difference   the first difference, as in text mode
  differences  every difference, one string each
  file         the path written with --out, or null
and one per comparison the deadline stopped, in the same order, with kind \"past_deadline\",
seed, family, model, program, file (as above: the program written with --out) and deadline_ms;
then one summary object:
  kind         \"summary\"
  programs, agree, disagree, skipped, past_deadline   the counts of the summary line
  seed         the seed of the first program
  families     the families run, in round-robin order
  models       {\"sc\": {\"agree\": N, \"agree_unrestricted\": N, \"within_caveat\": N, \"disagree\": N,
               \"skipped\": N, \"past_deadline\": N, \"caveated\": N}, ...}: the counts per model (a
               program counts once per model it is checked under); of agree, agree_unrestricted
               counts the verdicts with a caveat that equal the unrestricted oracle's,
               within_caveat those that miss only executions their caveat names (see above); of
               skipped, past_deadline those the deadline stopped; caveated counts the explorer's
               verdicts that carry a caveat, whatever the comparison
  seconds      wall time of the run";

/// Cross-check the DPOR explorer against the exhaustive oracle on generated programs.
///
/// Generates N random programs (program i from seed S+i; with --family all the families take
/// turns: ptx, sync, tileir, tcgen05, assume, fenced, proxy, by seed — the program of seed s is
/// of the (s mod 7)th — so that a run split into parts checks the programs of the whole run),
/// checks each under its family's
/// models (ptx, sync, assume, fenced and proxy programs under sc and ptx, tcgen05 programs under
/// ptx, tileir programs under tileir; --model keeps only the models named) with the explorer
/// and with the oracle, and compares the two verdicts: the final states with their execution
/// counts, the numbers of complete, blocked and hanging executions, the races, the misuse, the
/// hung threads and the threads that hit the loop bound; the explorer must also report 0
/// duplicate executions.
/// Both run with loop bound 1. An explorer verdict without caveats claims to be exact and is
/// compared with the unrestricted oracle. One with a caveat under tileir is compared first with
/// the oracle restricted to the executions without a po ∪ rf cycle (which most such verdicts
/// equal); where they differ, it is judged as under ptx. A verdict with a caveat agrees when it
/// equals the unrestricted oracle (it found what its caveat says it may miss), or when it misses
/// executions but nothing else: each final state it reports is the oracle's with at most its
/// count, each race and misuse it reports is the oracle's, no duplicates.
///
/// A program the oracle cannot judge (more than 200000 candidate executions, or an instruction it
/// does not model) is skipped, as is one whose comparison under a model (explorer and oracle
/// together) passes --deadline-ms: it gets a line `past the deadline: seed SEED, family
/// FAMILY, model MODEL (...)`, and the summary line counts them. A program counts as
/// disagreeing if the two disagree under some model, as skipped if it was skipped under every
/// model, and as agreeing otherwise. Each
/// disagreement gets a line `disagree: seed SEED, family FAMILY, model MODEL: FIRST DIFFERENCE`;
/// with --out DIR its program is also written to DIR/selftest-FAMILY-SEED.litmus, with `//`
/// lines saying what differed (`tcfuzz check --oracle` re-checks it). The summary line
/// `selftest: N programs, A agree, D disagree, S skipped[, P past the deadline] (seed S)` goes
/// to stderr at the end. Lines and files are written as the run goes, in the order of the
/// programs (a program's output waits for earlier programs still in progress), so a long run
/// holds no reports and loses none when stopped. Ctrl-C starts no new program; those in
/// progress finish (each within --deadline-ms) and the summary covers the programs checked. A
/// progress bar goes to stderr when it is a terminal (not with --json or -q).
///
/// Exit codes: 0 the explorer and the oracle agree on every program checked; 5 they disagree on
/// some program; 1 an output file cannot be written, or a generated program does not parse back
/// (a bug); 2 usage error (e.g. --family tileir --model sc); 130 stopped by Ctrl-C (the summary
/// says whether the programs checked disagree).
#[derive(Debug, clap::Args)]
#[command(after_long_help = JSON_SCHEMA)]
pub struct Args {
    /// How many programs to generate and check.
    #[arg(long, value_name = "N", default_value_t = 1000)]
    pub programs: u64,

    /// The seed of the first program (program i has seed S+i) [default: a random one, printed in
    /// the summary].
    #[arg(long, value_name = "S")]
    pub seed: Option<u64>,

    /// The program family; `all` takes the families in turn.
    #[arg(long, value_enum, default_value_t = FamilyArg::All)]
    pub family: FamilyArg,

    /// Only this memory model (repeatable) [default: every model of each family].
    #[arg(long = "model", value_enum, value_name = "MODEL")]
    pub models: Vec<Model>,

    /// Write each disagreeing program to DIR/selftest-FAMILY-SEED.litmus, and each program past
    /// the deadline to DIR/slow-FAMILY-SEED.litmus (DIR is created if missing).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,

    /// Write each program on which the explorer agrees only within its caveat (it misses
    /// executions the caveat names) to DIR/caveat-FAMILY-SEED.litmus, with `//` lines giving
    /// both execution counts per model (DIR is created if missing): the programs to study for
    /// closing a caveat.
    #[arg(long, value_name = "DIR")]
    pub caveats_out: Option<PathBuf>,

    /// Print one JSON object per disagreement and a summary object instead of text (schema below,
    /// in --help).
    #[arg(long)]
    pub json: bool,

    /// How long one comparison (one program under one model, the explorer and the oracle together)
    /// may take, in milliseconds; past it the program is skipped under that model and named
    /// (`past the deadline: ...`): a slow program is a finding of its own.
    #[arg(long, value_name = "MS", default_value_t = 60_000, value_parser = clap::value_parser!(u64).range(1..))]
    pub deadline_ms: u64,

    /// Programs checked at once [default: the number of CPUs].
    #[arg(long, short = 'j', value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub jobs: Option<u64>,
}

/// The `--family` values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum FamilyArg {
    /// PTX accesses: mixed orderings and scopes, fences, atomics, branches.
    Ptx,
    /// Barriers with thread counts, cluster barriers, mbarriers, bulk copies.
    Sync,
    /// Tile IR tile blocks, and message-passing variants.
    #[value(name = "tileir")]
    TileIr,
    /// Two warps with tcgen05 operations on Tensor Memory, the async proxy and an mbarrier.
    Tcgen05,
    /// `ptx` programs with `assume`s on loaded values (checks the pruning of failed assumes).
    Assume,
    /// Relaxed flags with `fence.sc` between them, as in mutual-exclusion protocols (checks the
    /// Fence-SC floors).
    Fenced,
    /// `ptx` programs with accesses through texture, surface, constant or generic aliases, with
    /// or without their proxy fences (checks mixed-proxy programs).
    Proxy,
    /// Every family, in turn.
    All,
}

/// One family of the run and the models its programs are checked under.
struct Plan {
    family: Family,
    models: Vec<ModelKind>,
}

/// Runs `tcfuzz selftest`; the exit code says whether the explorer and the oracle agreed.
pub fn run(args: &Args, quiet: bool) -> Result<ExitCode> {
    let plans = plans(args)?;
    let seed = args.seed.unwrap_or_else(random_seed);
    if let Some(dir) = &args.out {
        outputs::ensure_dir(dir, "--out")?;
    }
    if let Some(dir) = &args.caveats_out {
        outputs::ensure_dir(dir, "--caveats-out")?;
    }
    let jobs = args.jobs.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get() as u64)).min(args.programs.max(1));
    // A panic of either side is a disagreement that names it, with where it happened: kept off
    // stderr (its report and backtrace, twice per program, buried a long run's output).
    tcfuzz_worker::crash::install_panic_hook();
    let families: Vec<&'static str> = plans.iter().map(|p| p.family.name()).collect();
    tracing::info!(programs = args.programs, seed, jobs, families = ?families, "selftest");
    let start = Instant::now();
    let hidden = args.json || quiet || !std::io::stderr().is_terminal();
    let bar = progress_bar(args.programs, hidden);
    let deadline = std::time::Duration::from_millis(args.deadline_ms);
    // Ctrl-C stops handing out programs; the summary covers those checked.
    let _ = interrupt::flag();
    let mut stdout = std::io::stdout().lock();
    let mut summary = Summary::default();
    // Each program's lines and files as soon as it and every earlier one are done: a long run
    // keeps none of its reports, and what it found is written if it is stopped.
    check_each(&plans, (args.programs, seed), jobs, deadline, &bar, |r| {
        for (model, c) in &r.checks {
            if let compare::Comparison::Skipped(why) = c {
                tracing::debug!(seed = r.seed, family = r.family.name(), model = model.name(), why, "skipped");
            }
        }
        summary.add(&r);
        report::disagreements(&r, args.out.as_deref(), args.json, &mut stdout)?;
        report::past_deadline(&r, args.deadline_ms, args.out.as_deref(), args.json, &mut stdout)?;
        if let Some(dir) = &args.caveats_out {
            report::within_caveat(&r, dir)?;
        }
        Ok(())
    })?;
    bar.finish_and_clear();
    let seconds = start.elapsed().as_secs_f64();
    tracing::info!(seconds, models = ?summary.models, "selftest done");
    if args.json || !quiet {
        report::summary(&summary, seed, &families, seconds, args.json, &mut stdout)?;
    }
    stdout.flush()?;
    Ok(if interrupt::pressed() {
        ExitCode::from(exit::INTERRUPTED)
    } else if summary.programs.disagree > 0 {
        ExitCode::from(exit::EXPLORER_ORACLE_DISAGREE)
    } else {
        ExitCode::SUCCESS
    })
}

/// The families of the run with their models; a usage error if `--model` leaves a family named
/// by `--family` nothing to check under.
fn plans(args: &Args) -> Result<Vec<Plan>> {
    let wanted: Vec<ModelKind> = args.models.iter().map(|m| m.kind()).collect();
    let families: Vec<Family> = match args.family {
        FamilyArg::Ptx => vec![Family::Ptx],
        FamilyArg::Sync => vec![Family::Sync],
        FamilyArg::TileIr => vec![Family::TileIr],
        FamilyArg::Tcgen05 => vec![Family::Tcgen05],
        FamilyArg::Assume => vec![Family::Assume],
        FamilyArg::Fenced => vec![Family::Fenced],
        FamilyArg::Proxy => vec![Family::Proxy],
        FamilyArg::All => Family::ALL.to_vec(),
    };
    let plans: Vec<Plan> = families
        .into_iter()
        .map(|family| {
            let models = family.models().iter().copied().filter(|m| wanted.is_empty() || wanted.contains(m)).collect();
            Plan { family, models }
        })
        .filter(|p: &Plan| !p.models.is_empty())
        .collect();
    if plans.is_empty() {
        let names: Vec<&str> = wanted.iter().map(|m| m.name()).collect();
        return Err(UsageError(format!(
            "the {} family is not checked under {} (ptx, sync, assume, fenced and proxy programs are checked under sc and ptx, tcgen05 programs under ptx, tileir programs under tileir)",
            args.family.name(),
            names.join(" or ")
        ))
        .into());
    }
    Ok(plans)
}

impl FamilyArg {
    fn name(self) -> &'static str {
        match self {
            FamilyArg::Ptx => "ptx",
            FamilyArg::Sync => "sync",
            FamilyArg::TileIr => "tileir",
            FamilyArg::Tcgen05 => "tcgen05",
            FamilyArg::Assume => "assume",
            FamilyArg::Fenced => "fenced",
            FamilyArg::Proxy => "proxy",
            FamilyArg::All => "all",
        }
    }
}

/// Checks programs `0..n` of the run on `jobs` threads, each comparison within `deadline`, and
/// hands each report to `on_report` in program order (a report waits only for the earlier ones
/// still in progress). After Ctrl-C no program is started; those in progress finish, so the
/// programs reported are the run's first ones. The first error (of a program, or of
/// `on_report`) stops the run and is returned.
fn check_each(
    plans: &[Plan],
    (n, seed): (u64, u64),
    jobs: u64,
    deadline: std::time::Duration,
    bar: &ProgressBar,
    mut on_report: impl FnMut(ProgramReport) -> Result<()>,
) -> Result<()> {
    let next = AtomicU64::new(0);
    let (tx, rx) = mpsc::channel::<Result<ProgramReport>>();
    // Reports that came back before an earlier one, by index.
    let mut early: BTreeMap<u64, ProgramReport> = BTreeMap::new();
    let mut next_out = 0;
    let mut first_error = None;
    let mut disagree = 0;
    std::thread::scope(|s| {
        for _ in 0..jobs {
            let (tx, next) = (tx.clone(), &next);
            // (The thread's checks all run on one thread with the explorer's stack, not each on
            // a new one.)
            s.spawn(move || {
                tcfuzz_checker::on_explorer_stack(move || {
                    // (Asked before a program is taken, so that every program taken is reported.)
                    while !interrupt::pressed() {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        if i >= n {
                            break;
                        }
                        // Round-robin over the families by seed, not by index: a program's family
                        // does not depend on where the run started. The plans are never empty.
                        let program_seed = seed.wrapping_add(i);
                        let plan = &plans[(program_seed % plans.len() as u64) as usize];
                        tracing::debug!(index = i, seed = program_seed, family = plan.family.name(), "checking");
                        let report = compare::check_program(i, plan.family, program_seed, &plan.models, Some(deadline));
                        if tx.send(report).is_err() {
                            break;
                        }
                    }
                })
            });
        }
        drop(tx);
        for result in rx {
            bar.inc(1);
            if first_error.is_some() {
                continue;
            }
            match result {
                Ok(r) => {
                    if r.outcome() == compare::Outcome::Disagree {
                        disagree += 1;
                        bar.set_message(format!("{disagree} disagree"));
                    }
                    early.insert(r.index, r);
                    while let Some(r) = early.remove(&next_out) {
                        next_out += 1;
                        if let Err(e) = on_report(r) {
                            first_error = Some(e);
                            break;
                        }
                    }
                }
                Err(e) => first_error = Some(e),
            }
            if first_error.is_some() {
                // Stop handing out programs: the run is void.
                next.store(n, Ordering::Relaxed);
            }
        }
    });
    match first_error {
        Some(e) => Err(e),
        None => {
            debug_assert!(early.is_empty(), "a report after a gap in the programs taken");
            Ok(())
        }
    }
}

/// A progress bar on stderr, or a hidden one.
fn progress_bar(n: u64, hidden: bool) -> ProgressBar {
    if hidden {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(n);
    let style = ProgressStyle::with_template("selftest [{elapsed_precise}] {wide_bar} {pos}/{len} programs, {msg} (eta {eta})")
        .map(|s| s.progress_chars("=> "))
        .unwrap_or_else(|_| ProgressStyle::default_bar());
    bar.set_style(style);
    bar.set_message("0 disagree");
    bar
}

/// A seed for a run without `--seed`: from the clock and the process id, below 10^9 so that it
/// is easy to type back.
fn random_seed() -> u64 {
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos() as u64);
    (nanos ^ (u64::from(std::process::id()) << 20)) % 1_000_000_000
}
