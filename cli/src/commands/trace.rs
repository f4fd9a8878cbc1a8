//! `tcfuzz trace`: the explorer's steps on one program — every execution it records, each
//! backward revisit with what came of it — and, against the oracle, the executions it missed or
//! explored twice. For finding where the explorer goes wrong, after `tcfuzz minimize --kind
//! explorer-vs-oracle` has made the program small.

use crate::commands::check::{OneProgram, Outcome, one_program, report_error};
use crate::exit;
use std::collections::BTreeMap;
use std::io::Write;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use tcfuzz_checker::{Gap, ModelKind, Options, Recorded, RevisitOutcome, TraceStep, Tracer};

/// Trace the explorer on one program: print every execution it records, in the order it finds
/// them (numbered, with the taken revisits on the way to it: `via revisits 2, 7`), each as one
/// line per event — the order in which the explorer added it (`@5`), what it reads from — and
/// each location's coherence order.
///
/// With --revisits, also every backward revisit the explorer considers (numbered): the write, the
/// read, what came of it (taken; forbidden by the model; not maximal: another graph makes it; a
/// dead end; refused because an rmw held by Atomicity keeps the read in the write's prefix), the
/// graph it starts from (holes shown as `(hole)`), and the graph it leads to. A revisit that meets
/// a gap of the explorer whose caveat the verdict then carries (the rmw hole, a lost revisit, an
/// rmw held by Atomicity) says so, and the summary names it (`met a lost revisit at revisit 22`).
///
/// With --oracle, the oracle enumerates the executions too, and the explorer's complete and
/// blocked ones are compared with its, graph by graph: the summary lists the executions explored
/// twice (with the numbers they had in the trace), the ones the oracle finds and the explorer
/// misses, and any the explorer finds that the oracle does not.
///
/// Tracing renders every step as text: many times slower than `tcfuzz check`, and for small
/// programs (the trace stops after --max-executions).
///
/// Exit codes: 0 traced (and, with --oracle, the explorer's executions are the oracle's); 1 the
/// file cannot be read, parsed or checked, or the exploration passed --max-executions; 2 usage
/// error (and --model tileir on a program without Tile IR threads); 3 an instruction the checker
/// does not support; 5 with --oracle, the explorer's executions differ from the oracle's.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub program: OneProgram,

    /// Print the backward revisits too, each with the graphs before and after.
    #[arg(long)]
    pub revisits: bool,

    /// Compare the explorer's executions with the oracle's, graph by graph.
    #[arg(long)]
    pub oracle: bool,

    /// Explore with HMC's dependency revisits even where the program needs only TruSt's (as the
    /// explorer-vs-oracle tests do too).
    #[arg(long)]
    pub dependency_revisits: bool,

    /// Backward jumps a thread may take in one execution.
    #[arg(long, value_name = "N", default_value_t = Options::default().loop_bound)]
    pub loop_bound: u32,

    /// Stop after this many executions (an error).
    #[arg(long, value_name = "N", default_value_t = 10_000)]
    pub max_executions: u64,
}

/// An execution's number and the taken revisits that led to it.
type Found = (u64, Vec<u64>);

/// What the trace keeps: the steps printed so far, and each complete or blocked graph's
/// execution numbers (to compare with the oracle's).
#[derive(Default)]
struct Seen {
    executions: u64,
    /// Each complete or blocked graph's executions.
    graphs: BTreeMap<(Recorded, String), Vec<Found>>,
    /// The graphs' text, by key.
    text: BTreeMap<String, String>,
    /// The gaps the exploration met, and at which revisit.
    met: Vec<(u64, Gap)>,
    /// The first write error (the trace then stops: `Options::cancel`).
    failed: Option<std::io::Error>,
}

pub fn run(args: &Args) -> anyhow::Result<ExitCode> {
    let (program, model) = match one_program(&args.program) {
        Ok(loaded) => loaded,
        Err(code) => return Ok(code),
    };
    let base = Options {
        loop_bound: args.loop_bound,
        max_executions: args.max_executions,
        always_dependency_revisits: args.dependency_revisits,
        witnesses: false,
        ..Options::default()
    };
    println!("Test {} ({} model, explorer)", program.name, model.name());
    let (explorer, verdict) = match traced(&program, model, &base, args.revisits, false) {
        Ok(run) => run,
        Err(code) => return Ok(code),
    };
    let mut out = std::io::stdout().lock();
    writeln!(out, "\nexplorer: {} complete, {} blocked", verdict.stats.complete, verdict.stats.blocked)?;
    for caveat in &verdict.caveats {
        writeln!(out, "Caveat: {caveat}")?;
    }
    for (revisit, gap) in &explorer.met {
        writeln!(out, "met {} at revisit {revisit}", gap.name())?;
    }
    if !args.oracle {
        return Ok(ExitCode::SUCCESS);
    }
    drop(out);
    let (oracle, _) = match traced(&program, model, &base, false, true) {
        Ok(run) => run,
        Err(code) => return Ok(code),
    };
    let differ = compare(&mut std::io::stdout().lock(), &explorer, &oracle)?;
    Ok(if differ { ExitCode::from(exit::EXPLORER_ORACLE_DISAGREE) } else { ExitCode::SUCCESS })
}

/// Checks `program` with a tracer that prints the steps (none for the oracle, whose steps are
/// only kept) and keeps the executions; an error is printed and becomes the exit code.
fn traced(
    program: &tcfuzz_litmus::Program,
    model: ModelKind,
    base: &Options,
    revisits: bool,
    oracle: bool,
) -> Result<(Seen, tcfuzz_checker::Verdict), ExitCode> {
    let seen = Arc::new(Mutex::new(Seen::default()));
    let cancel = Arc::new(AtomicBool::new(false));
    let tracer = {
        let (seen, cancel) = (Arc::clone(&seen), Arc::clone(&cancel));
        Tracer::new(move |step| {
            let mut seen = seen.lock().unwrap_or_else(PoisonError::into_inner);
            if let Err(e) = print_step(&mut seen, step, revisits, !oracle) {
                seen.failed.get_or_insert(e);
                cancel.store(true, Ordering::Relaxed);
            }
        })
    };
    let options = Options { trace: Some(tracer), cancel: Some(cancel), ..base.clone() };
    let checked =
        if oracle { tcfuzz_checker::check_oracle(program, model, &options) } else { tcfuzz_checker::check(program, model, &options) };
    let mut seen = std::mem::take(&mut *seen.lock().unwrap_or_else(PoisonError::into_inner));
    if let Some(e) = seen.failed.take() {
        if e.kind() != std::io::ErrorKind::BrokenPipe {
            eprintln!("error: {e}");
        }
        return Err(ExitCode::from(exit::INPUT_ERRORS));
    }
    match checked {
        Ok(verdict) => Ok((seen, verdict)),
        Err(err) => {
            let side = if oracle { "the oracle" } else { "the explorer" };
            Err(match report_error(&format!("{} ({side})", program.name), &err) {
                Outcome::Unsupported => ExitCode::from(exit::UNSUPPORTED),
                _ => ExitCode::from(exit::INPUT_ERRORS),
            })
        }
    }
}

/// Keeps `step` in `seen` and, with `print`, prints it (revisits only with `revisits`).
fn print_step(seen: &mut Seen, step: &TraceStep, revisits: bool, print: bool) -> std::io::Result<()> {
    let mut out = std::io::stdout().lock();
    match step {
        TraceStep::Execution { recorded, graph, key, via } => {
            seen.executions += 1;
            let n = seen.executions;
            if matches!(recorded, Recorded::Complete | Recorded::Blocked) {
                seen.graphs.entry((*recorded, key.clone())).or_default().push((n, via.clone()));
                seen.text.entry(key.clone()).or_insert_with(|| graph.clone());
            }
            if print {
                writeln!(out, "\nexecution {n} ({}){}", recorded.name(), through(via))?;
                write!(out, "{}", indent(graph))?;
            }
        }
        TraceStep::Revisit { id, write, read, outcome, from, to } if revisits && print => {
            writeln!(out, "\nrevisit {id} of {read} by {write}: {}", outcome.name())?;
            write!(out, "  from:\n{}", indent(&indent(from)))?;
            if let Some(to) = to.as_ref().filter(|_| *outcome != RevisitOutcome::Forbidden) {
                write!(out, "  to:\n{}", indent(&indent(to)))?;
            }
        }
        TraceStep::Revisit { .. } => {}
        TraceStep::Met { revisit, gap } => {
            seen.met.push((*revisit, *gap));
            if revisits && print {
                writeln!(out, "  (revisit {revisit} met {}: its caveat stands)", gap.name())?;
            }
        }
    }
    Ok(())
}

/// ` via revisits 2, 7`: the taken revisits that led to an execution (none: its graph was built
/// by adding events alone).
fn through(via: &[u64]) -> String {
    if via.is_empty() {
        return String::new();
    }
    let ids: Vec<String> = via.iter().map(u64::to_string).collect();
    format!(" via revisit{} {}", if ids.len() == 1 { "" } else { "s" }, ids.join(", "))
}

fn indent(text: &str) -> String {
    text.lines().map(|l| format!("  {l}\n")).collect()
}

/// Prints what differs between the explorer's executions and the oracle's; whether anything does.
fn compare(out: &mut impl Write, explorer: &Seen, oracle: &Seen) -> std::io::Result<bool> {
    let count = |s: &Seen| s.graphs.values().map(Vec::len).sum::<usize>();
    writeln!(
        out,
        "\nexplorer: {} executions, {} distinct; oracle: {} executions, {} distinct (complete and blocked)",
        count(explorer),
        explorer.graphs.len(),
        count(oracle),
        oracle.graphs.len()
    )?;
    let twice: Vec<_> = explorer.graphs.iter().filter(|(_, n)| n.len() > 1).collect();
    let missed: Vec<_> = oracle.graphs.keys().filter(|k| !explorer.graphs.contains_key(*k)).collect();
    let extra: Vec<_> = explorer.graphs.iter().filter(|(k, _)| !oracle.graphs.contains_key(*k)).collect();
    for ((recorded, key), found) in &twice {
        let found: Vec<String> = found.iter().map(|(n, via)| format!("{n}{}", through(via))).collect();
        writeln!(out, "\nexplored {} times ({}: executions {}):", found.len(), recorded.name(), found.join("; "))?;
        write!(out, "{}", indent(&explorer.text[key]))?;
    }
    for (recorded, key) in &missed {
        writeln!(out, "\nmissed by the explorer ({}):", recorded.name())?;
        write!(out, "{}", indent(&oracle.text[key]))?;
    }
    for ((recorded, key), found) in &extra {
        let (n, via) = &found[0];
        writeln!(out, "\nexplored ({}: execution {n}{}), not an execution of the oracle:", recorded.name(), through(via))?;
        write!(out, "{}", indent(&explorer.text[key]))?;
    }
    let differ = !(twice.is_empty() && missed.is_empty() && extra.is_empty());
    if differ {
        writeln!(out, "\nexplorer ≠ oracle: {} explored more than once, {} missed, {} extra", twice.len(), missed.len(), extra.len())?;
    } else {
        writeln!(out, "explorer = oracle")?;
    }
    Ok(differ)
}
