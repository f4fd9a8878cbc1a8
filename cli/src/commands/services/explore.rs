//! `tcfuzz explore FILE [--coordinator URL]`: one program's exploration split into subtrees here,
//! explored by a coordinator's workers (a running one, or one embedded with local workers), and
//! merged here into the verdict `tcfuzz check` prints.

use std::io::{IsTerminal, Write};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::Context;
use tcfuzz_checker::{Misuse, MisuseRule, ModelKind, Options, Race, RaceEvent, RaceKind, StateCount, Stats, Subtree, Verdict};
use tcfuzz_litmus::Span;
use tcfuzz_proto::connect::Target;
use tcfuzz_proto::v1;
use tcfuzz_worker::service::explore;

use super::connection::Connection;
use crate::commands::check::{self, JsonVerdict, Model};
use crate::exit;
use crate::inputs;

/// Explore one program across the workers of a coordinator: its exploration is split
/// here into subtrees (the checker's `split`, as `tcfuzz check -j N` does), the coordinator
/// leases one job per subtree to its workers (a dead worker's parts are leased again after their
/// lease expires; each part is recorded once), and the parts' verdicts are merged here into the
/// verdict of `tcfuzz check FILE`: complete/blocked executions, the final states with their
/// counts (the smallest --max-states; every one where no part had more), Ok/No,
/// Never/Sometimes/Always, races, misuse, hangs, threads at the loop bound. Duplicates are
/// counted inside each part (`--duplicates`); a part cannot see another part's graphs. A part
/// that has run --slice-ms while a worker is idle gives the rest of its work back as new parts,
/// so that a lopsided split spreads over the workers.
///
/// With --coordinator URL (and --token-file) the parts go to that coordinator's workers;
/// without, to --workers workers in this process (a coordinator on a loopback port with an
/// in-memory corpus, as `tcfuzz campaign` embeds one), which measures what splitting costs and
/// gains on one machine.
///
/// Prints a progress line on a terminal and a summary line on stderr (parts, seconds); --json prints the object of `tcfuzz check --json` (its states bounded by --max-states).
/// Exit codes as `tcfuzz check`: 0 checked, 1 unreadable/invalid program or a failed
/// exploration (the coordinator's error is printed), 2 usage, 3 an instruction the checker does
/// not support.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The litmus file to explore.
    pub file: std::path::PathBuf,

    #[command(flatten)]
    pub connection: Connection,

    /// Workers in this process, one checking thread each (without --coordinator; default: the
    /// machine's cores).
    #[arg(long, value_name = "N", conflicts_with = "coordinator", value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub workers: Option<u32>,

    /// The memory model (default: tileir for Tile IR programs, ptx otherwise).
    #[arg(long, value_enum)]
    pub model: Option<Model>,

    /// Split into at least this many parts (fewer when the exploration tree is smaller).
    #[arg(long, value_name = "N", default_value_t = 64, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub parts: u32,

    /// A part explored for at least this long gives the rest of its work back as new parts when
    /// a worker is idle (the coordinator says so in heartbeats), so a lopsided split spreads
    /// out over the workers; 0 explores each part whole.
    #[arg(long, value_name = "MS", default_value_t = 100, value_parser = clap::value_parser!(u32).range(0..=3_600_000))]
    pub slice_ms: u32,

    /// Count duplicate executions inside each part (the explorer must report 0).
    #[arg(long)]
    pub duplicates: bool,

    /// Each part keeps at most this many final states, its smallest, and counts the rest; the
    /// merged verdict lists the smallest N states of the program with their exact counts (--json
    /// too). Where a part left states out, the program's distinct states and the condition's
    /// positive/negative counts are printed as lower bounds ("at least"); Ok/No, the observation
    /// and every execution count stay exact. A larger N costs memory and transfer: each part's
    /// states travel in one message of at most 16 MiB (a part past it fails the exploration).
    #[arg(long, value_name = "N", default_value_t = 200, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub max_states: u32,

    /// JSON output: the object of `tcfuzz check --json`.
    #[arg(long)]
    pub json: bool,
}

/// How often the exploration's status is asked for.
const POLL: Duration = Duration::from_millis(50);
/// How long a coordinator may stay unreachable (a restart) before `explore` gives up.
const UNREACHABLE_FOR: Duration = Duration::from_secs(60);

pub fn run(args: &Args, quiet: bool) -> anyhow::Result<ExitCode> {
    let file = args.file.display().to_string();
    let src = match inputs::read(&args.file) {
        Ok(src) => src,
        Err(why) => {
            eprintln!("{file}: error: {why}");
            return Ok(ExitCode::from(exit::INPUT_ERRORS));
        }
    };
    let program = match tcfuzz_litmus::parse(&src) {
        Ok(program) => program,
        Err(diagnostics) => {
            eprint!("{}", diagnostics.render(&file));
            return Ok(ExitCode::from(exit::INPUT_ERRORS));
        }
    };
    let model = match args.model {
        Some(m) => m.kind(),
        None if program.arch == tcfuzz_litmus::Arch::TileIr => ModelKind::TileIr,
        None => ModelKind::Ptx,
    };
    let options = explore::options(Options::default().loop_bound, args.duplicates, args.max_states);
    let start = Instant::now();
    let subtrees = match tcfuzz_checker::split(&program, model, &options, args.parts as usize) {
        Ok(s) => s,
        Err(e) => return Ok(outcome_code(check::report_error(&file, &e))),
    };
    tracing::info!(file, parts = subtrees.len(), "split");
    let request = v1::ExploreProgramRequest {
        // The file's own text (it parses to this program, so its subtrees are the workers'):
        // the races and misuses the workers report point into it.
        program: src.clone(),
        model: model.name().to_string(),
        loop_bound: options.loop_bound,
        detect_duplicates: options.detect_duplicates,
        // Queued last part first: the parts that come late in the order of exploration hold the
        // most work (measured, not derived: the largest part of wcas 14, casrot 11, ainc 9 and
        // binc 6 split in 256 is the last one; the size of a part's graph does not predict it),
        // so that the largest ones are leased first and no worker is left alone with one when
        // the others are done.
        subtrees: subtrees.iter().rev().map(Subtree::to_string).collect(),
        name: format!("explore {file}"),
        max_states: args.max_states,
        slice_ms: args.slice_ms,
    };
    let progress = !quiet && std::io::stderr().is_terminal();
    let status = super::runtime()?.block_on(async {
        match args.connection.target(Duration::from_secs(30))? {
            Some(target) => follow(&target, request, &file, progress).await,
            None => {
                let corpus = tcfuzz_corpus::Corpus::in_memory().context("an in-memory corpus")?;
                let workers = args.workers.map_or_else(super::worker::cores, |n| n as usize);
                let file = file.clone();
                super::campaign::with_embedded(
                    corpus,
                    super::campaign::Workers::cpu(workers),
                    super::campaign::embedded_settings(),
                    |target| async move { follow(&target, request, &file, progress).await },
                )
                .await?
            }
        }
    })?;
    if status.state != v1::ExplorationState::Finished as i32 {
        eprintln!("{file}: error: the exploration failed: {}", status.error);
        return Ok(ExitCode::from(exit::INPUT_ERRORS));
    }
    let verdict = match merge(&program, model, &options, &status.parts) {
        Ok(v) => v,
        Err(MergeError::Check(e)) => return Ok(outcome_code(check::report_error(&file, &e))),
        Err(MergeError::Part(why)) => {
            eprintln!("{file}: error: the exploration failed: a part's verdict names {why} (a worker of another version?)");
            return Ok(ExitCode::from(exit::INPUT_ERRORS));
        }
    };
    // As `tcfuzz check` keeps them: the smallest states, the others counted.
    let mut verdict = verdict;
    let max = args.max_states as usize;
    if verdict.states.len() > max {
        verdict.omitted_states += (verdict.states.len() - max) as u64;
        verdict.states.truncate(max);
    }
    let elapsed = start.elapsed();
    if !quiet {
        eprintln!("{file}: explored in {} parts by the coordinator's workers in {:.3} s", status.parts_total, elapsed.as_secs_f64());
    }
    let condition = check::condition_text(&program);
    let mut out = std::io::stdout().lock();
    if args.json {
        writeln!(out, "{}", serde_json::to_string(&JsonVerdict::new(&file, &verdict, &condition, elapsed))?)?;
    } else {
        write!(out, "{}", check::text(&file, &verdict, &condition, "explorer", elapsed))?;
    }
    Ok(ExitCode::SUCCESS)
}

/// Asks for the exploration and waits for it to end; its last status.
async fn follow(
    target: &Target,
    request: v1::ExploreProgramRequest,
    file: &str,
    progress: bool,
) -> anyhow::Result<v1::ExplorationStatusResponse> {
    let mut admin = target.admin()?;
    let coordinator = |s: tonic::Status| anyhow::anyhow!("coordinator: {}: {}", super::campaign::code_name(s.code()), s.message());
    let id = admin.explore_program(request).await.map_err(coordinator).context("explore")?.into_inner().exploration;
    let mut unreachable_since: Option<Instant> = None;
    loop {
        let s = match admin.exploration_status(v1::ExplorationStatusRequest { exploration: id, first_part: 0 }).await {
            Ok(r) => {
                unreachable_since = None;
                r.into_inner()
            }
            // A coordinator restarting (the exploration is in its corpus): keep asking for a while.
            Err(s)
                if super::campaign::coordinator_away(&s)
                    && unreachable_since.get_or_insert_with(Instant::now).elapsed() < UNREACHABLE_FOR =>
            {
                tokio::time::sleep(POLL).await;
                continue;
            }
            Err(s) => return Err(coordinator(s)),
        };
        if progress {
            eprint!("\r{file}: exploration {id}: {}/{} parts, {} executions   ", s.parts_done, s.parts_total, s.complete_executions);
        }
        if s.state != v1::ExplorationState::Running as i32 {
            if progress {
                eprintln!();
            }
            return fetch_parts(&mut admin, id, s).await.map_err(coordinator);
        }
        tokio::time::sleep(POLL).await;
    }
}

/// The rest of a finished exploration's parts, a page at a time after the first (`status`).
async fn fetch_parts(
    admin: &mut tcfuzz_proto::connect::Admin,
    id: u64,
    mut status: v1::ExplorationStatusResponse,
) -> Result<v1::ExplorationStatusResponse, tonic::Status> {
    while status.state == v1::ExplorationState::Finished as i32 && (status.parts.len() as u64) < status.parts_total {
        let first_part = status.parts.len() as u64;
        let page = admin.exploration_status(v1::ExplorationStatusRequest { exploration: id, first_part }).await?.into_inner();
        if page.parts.is_empty() || page.next_part <= first_part {
            return Err(tonic::Status::internal(format!("no parts from part {first_part} of {}", status.parts_total)));
        }
        status.parts.extend(page.parts);
    }
    Ok(status)
}

fn outcome_code(o: check::Outcome) -> ExitCode {
    match o {
        check::Outcome::Unsupported => ExitCode::from(exit::UNSUPPORTED),
        _ => ExitCode::from(exit::INPUT_ERRORS),
    }
}

/// The parts' verdicts merged by the checker: a part's counts, states, races and misuses come
/// as data.
fn merge(program: &tcfuzz_litmus::Program, model: ModelKind, options: &Options, parts: &[v1::ExploredPart]) -> Result<Verdict, MergeError> {
    // The verdict of no executions: what a verdict says of the program itself.
    let empty = tcfuzz_checker::check_subtrees(program, model, options, &[])?;
    let mut verdicts = Vec::with_capacity(parts.len());
    for part in parts {
        let p = part.verdict.clone().unwrap_or_default();
        let names: Vec<std::sync::Arc<str>> = p.state_names.iter().map(|n| std::sync::Arc::from(n.as_str())).collect();
        let mut v = empty.clone();
        v.states = p
            .states
            .iter()
            .map(|s| StateCount { values: names.iter().cloned().zip(s.values.iter().copied()).collect(), executions: s.executions })
            .collect();
        v.stats = Stats {
            complete: p.complete,
            blocked: p.blocked,
            hangs: p.hangs,
            assume_failed: p.assume_failed,
            max_depth: p.max_depth as usize,
            duplicates: p.duplicates_counted.then_some(p.duplicates),
        };
        // The part's own counts, exact (the worker counts the states it leaves out).
        (v.omitted_states, v.states_counted) = (p.omitted_states, true);
        (v.condition.positive, v.condition.negative) = (p.positive, p.negative);
        v.races = p.race_list.iter().map(race).collect::<Result<_, _>>().map_err(MergeError::Part)?;
        v.misuse = p.misuse_list.iter().map(misuse).collect::<Result<_, _>>().map_err(MergeError::Part)?;
        v.blocked_threads = p.blocked_threads;
        v.hung_threads = p.hung_threads;
        v.caveats = p.caveats;
        verdicts.push(v);
    }
    let merged = tcfuzz_checker::merge_verdicts(program, options, verdicts)?;
    Ok(merged.unwrap_or(empty))
}

/// Why the parts could not be merged: the checker refused, or a part names what this checker
/// does not know.
enum MergeError {
    Check(tcfuzz_checker::CheckError),
    Part(String),
}

impl From<tcfuzz_checker::CheckError> for MergeError {
    fn from(e: tcfuzz_checker::CheckError) -> Self {
        MergeError::Check(e)
    }
}

/// A part's race as the checker's.
fn race(r: &v1::PartRace) -> Result<Race, String> {
    let kind = RaceKind::from_name(&r.kind).ok_or_else(|| format!("the race kind `{}`", r.kind))?;
    let event = |e: &Option<v1::RaceAccess>| {
        let e = e.clone().unwrap_or_default();
        let access = match e.access.as_str() {
            "read" => "read",
            "write" => "write",
            other => return Err(format!("the access `{other}`")),
        };
        Ok(RaceEvent { thread: e.thread, index: e.index, span: Span { line: e.line, col: e.col }, access, location: e.location })
    };
    Ok(Race { kind, first: event(&r.first)?, second: event(&r.second)?, rule: r.rule.clone() })
}

/// A part's misuse as the checker's.
fn misuse(m: &v1::PartMisuse) -> Result<Misuse, String> {
    let rule = MisuseRule::from_name(&m.rule).ok_or_else(|| format!("the misuse rule `{}`", m.rule))?;
    Ok(Misuse { rule, thread: m.thread.clone(), span: Span { line: m.line, col: m.col } })
}
