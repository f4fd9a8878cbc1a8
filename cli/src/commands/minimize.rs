//! `tcfuzz minimize`: shrink a litmus program to a 1-minimal one that keeps a property — its
//! verdict, one of its races, or a discrepancy of a kind that needs only the program.

use std::io::Write;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use serde::Serialize;
use tcfuzz_checker::CompiledProgram;
use tcfuzz_checker::{ModelKind, Options, Verdict};
use tcfuzz_generator::minimize::{Budget, MinimizeError, Size, minimize};
use tcfuzz_litmus::Program;

use crate::commands::check::{Model, condition_text, observation_name};
use crate::commands::selftest::compare::{Comparison, compare};
use crate::exit;

/// Shrink a litmus program to a 1-minimal one that keeps a property.
///
/// Delta debugging removes threads, locations and instructions, then simplifications narrow
/// scopes, weaken orderings, shrink constants, merge CTAs and drop condition terms, repeated
/// until nothing more can go; every candidate is validated before it is checked. The result is
/// 1-minimal: removing any one remaining instruction loses the property (unless the budget ran
/// out first, which the output says).
///
/// What is kept (--kind):
///   verdict                 the same verdict under the model: the same condition with the same
///                           set of outcomes (final values of what it reads), Never/Sometimes/Always
///                           and Ok/No, the kinds of race, whether it may hang, the misuse rules
///                           broken (default)
///   race                    a race of the kind of the program's first race (data, tmem or proxy)
///   explorer-vs-oracle      the DPOR explorer and the exhaustive oracle disagree, in the same ways
///                           (extra or missing states, counts, races, hangs) as on the original
///   explorer-misses         the explorer misses executions its verdict's caveats allow it to miss
///                           (a known gap, which explorer-vs-oracle does not count), with the same
///                           caveats as on the original: to study a caveat's class
///   tileir-weaker-than-ptx  the lowered PTX program allows a state (or race) the Tile IR program
///                           does not, as on the original (violating states, violating races)
///
/// The minimized program goes to stdout (or --out FILE), with a comment line saying what it was
/// minimized from; a summary line goes to stderr: original and minimized sizes, time, checks.
///
/// Exit codes: 0 minimized; 1 the file cannot be read or parsed, or it does not have the property
/// to keep; 2 usage error.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// A litmus file.
    #[arg(value_name = "FILE")]
    pub file: PathBuf,

    /// What the minimized program must keep (see above).
    #[arg(long, value_enum, default_value = "verdict")]
    pub kind: KeepKind,

    /// The memory model [default: tileir for programs with Tile IR threads, ptx otherwise].
    #[arg(long, value_enum)]
    pub model: Option<Model>,

    /// Write the minimized program to FILE instead of stdout.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,

    /// Stop after this long with the smallest program found so far: `60s`, `500ms`, `2m`, or
    /// seconds.
    #[arg(long, value_name = "DURATION", default_value = "60s", value_parser = parse_duration)]
    pub budget: Duration,

    /// Print one JSON object instead: {"file", "kind", "model", "original": SIZE, "minimized":
    /// SIZE, "seconds", "checks", "memo_hits", "invalid", "budget_exhausted", "program"}, SIZE =
    /// {"threads", "instructions", "locations"}.
    #[arg(long)]
    pub json: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum KeepKind {
    Verdict,
    Race,
    ExplorerVsOracle,
    ExplorerMisses,
    #[value(name = "tileir-weaker-than-ptx")]
    TileirWeakerThanPtx,
}

impl KeepKind {
    fn name(self) -> &'static str {
        match self {
            KeepKind::Verdict => "verdict",
            KeepKind::Race => "race",
            KeepKind::ExplorerVsOracle => "explorer-vs-oracle",
            KeepKind::ExplorerMisses => "explorer-misses",
            KeepKind::TileirWeakerThanPtx => "tileir-weaker-than-ptx",
        }
    }
}

/// `60s`, `500ms`, `2m`, `1h`, `7d`, or a number of seconds.
pub fn parse_duration(s: &str) -> Result<Duration, String> {
    let s = s.trim();
    let (number, unit) = match s.find(|c: char| !c.is_ascii_digit() && c != '.') {
        Some(i) => s.split_at(i),
        None => (s, "s"),
    };
    let n: f64 = number.parse().map_err(|_| format!("`{s}` is not a duration (60s, 500ms, 2m)"))?;
    let secs = match unit {
        "ms" => n / 1000.0,
        "s" => n,
        "m" => n * 60.0,
        "h" => n * 3600.0,
        "d" => n * 86_400.0,
        _ => return Err(format!("`{s}`: unknown unit `{unit}` (ms, s, m, h, d)")),
    };
    Duration::try_from_secs_f64(secs).map_err(|_| format!("`{s}` is not a duration (60s, 500ms, 2m)"))
}

/// The checker's bounds for one candidate: a candidate beyond them does not keep the property.
fn options() -> Options {
    Options { max_executions: 1_000_000, oracle_limit: 200_000, witnesses: false, ..Options::default() }
}

/// What a program shows under a property; the property holds on a candidate when this is
/// `Some` and equal to the original's. `None`: nothing to keep (no race, no disagreement, or the
/// checker cannot judge it).
fn fingerprint(kind: KeepKind, p: &Program, model: ModelKind) -> Option<String> {
    let run = || match kind {
        KeepKind::Verdict => tcfuzz_checker::check(p, model, &options()).ok().map(|v| verdict_fingerprint(p, &v)),
        KeepKind::Race => {
            let v = tcfuzz_checker::check(p, model, &options()).ok()?;
            v.races.first().map(|r| r.kind.name().to_string())
        }
        KeepKind::ExplorerVsOracle => {
            let prog = CompiledProgram::compile(p).ok()?;
            match compare(&prog, model) {
                Comparison::Disagree(d) => Some(difference_classes(&d.differences)),
                _ => None,
            }
        }
        KeepKind::ExplorerMisses => {
            let prog = CompiledProgram::compile(p).ok()?;
            match compare(&prog, model) {
                Comparison::WithinCaveat { .. } => Some(tcfuzz_checker::check(p, model, &options()).ok()?.caveats.join("\n")),
                _ => None,
            }
        }
        KeepKind::TileirWeakerThanPtx => {
            let r = tcfuzz_checker::tileir_weaker_than_ptx(p, &options()).ok()?;
            (!r.holds()).then(|| format!("states:{} races:{}", !r.violating_states().is_empty(), !r.violating_races().is_empty()))
        }
    };
    // A checker panic on a candidate is not the property (it is a finding of its own, for
    // `checker-crash`); the search goes on.
    catch_unwind(AssertUnwindSafe(run)).unwrap_or_else(|_| {
        tracing::debug!("the checker panicked on a candidate");
        None
    })
}

fn verdict_fingerprint(p: &Program, v: &Verdict) -> String {
    let mut races: Vec<&str> = v.races.iter().map(|r| r.kind.name()).collect();
    races.sort_unstable();
    races.dedup();
    let mut misuse: Vec<&str> = v.misuse.iter().map(|m| m.rule.name()).collect();
    misuse.sort_unstable();
    misuse.dedup();
    let outcomes: Vec<String> =
        v.observed_states().keys().map(|s| s.iter().map(|(k, x)| format!("{k}={x}")).collect::<Vec<_>>().join(" ")).collect();
    format!(
        "{} with outcomes {{{}}}: {} {}, races [{}], hang {}, misuse [{}]",
        condition_text(p),
        outcomes.join("; "),
        observation_name(v.condition.observation),
        if v.condition.validated { "Ok" } else { "No" },
        races.join(","),
        v.stats.hangs > 0,
        misuse.join(",")
    )
}

/// The ways two verdicts differ, without the numbers: which counts differ, which side has a state
/// or race the other lacks (the lines of `selftest`'s comparison, classified).
fn difference_classes(lines: &[String]) -> String {
    let mut classes: Vec<&str> = lines
        .iter()
        .map(|l| {
            if l.starts_with("final state") {
                // "final state S: explorer A executions, oracle B"
                let counts: Vec<u64> =
                    l.rsplit(": ").next().unwrap_or("").split(|c: char| !c.is_ascii_digit()).filter_map(|n| n.parse().ok()).collect();
                match counts.as_slice() {
                    [0, _] => "oracle-only state",
                    [_, 0] => "explorer-only state",
                    _ => "state count",
                }
            } else if l.starts_with("race") {
                if l.ends_with("explorer only") { "explorer-only race" } else { "oracle-only race" }
            } else if l.starts_with("misuse") {
                "misuse"
            } else if l.starts_with("complete executions") {
                "complete count"
            } else if l.starts_with("blocked executions") {
                "blocked count"
            } else if l.starts_with("executions with a failed assume") {
                "assume-failed count"
            } else if l.starts_with("executions that hang") || l.starts_with("hung threads") {
                "hang"
            } else if l.starts_with("the explorer produced") {
                "duplicates"
            } else if l.starts_with("the explorer fails") || l.starts_with("the explorer panics") {
                "explorer fails"
            } else {
                "other"
            }
        })
        .collect();
    classes.sort_unstable();
    classes.dedup();
    classes.join(", ")
}

#[derive(Serialize)]
struct SizeJson {
    threads: usize,
    instructions: usize,
    locations: usize,
}

impl From<Size> for SizeJson {
    fn from(s: Size) -> Self {
        SizeJson { threads: s.threads, instructions: s.instructions, locations: s.locations }
    }
}

#[derive(Serialize)]
struct Report<'a> {
    file: &'a str,
    kind: &'static str,
    model: &'static str,
    original: SizeJson,
    minimized: SizeJson,
    seconds: f64,
    checks: u64,
    memo_hits: u64,
    invalid: u64,
    budget_exhausted: bool,
    program: &'a str,
}

pub fn run(args: &Args, quiet: bool) -> anyhow::Result<ExitCode> {
    let file = args.file.display().to_string();
    let Some(program) = crate::inputs::load(&args.file) else {
        return Ok(ExitCode::from(exit::INPUT_ERRORS));
    };
    let model = match args.model {
        Some(m) => m.kind(),
        None if program.arch == tcfuzz_litmus::Arch::TileIr => ModelKind::TileIr,
        None => ModelKind::Ptx,
    };
    if args.kind == KeepKind::TileirWeakerThanPtx && program.arch != tcfuzz_litmus::Arch::TileIr {
        bail!(crate::exit::UsageError(format!("{file}: --kind tileir-weaker-than-ptx needs a Tile IR program")));
    }
    let start = Instant::now();
    let Some(target) = fingerprint(args.kind, &program, model) else {
        eprintln!("error: {file}: nothing to keep: {}", nothing_to_keep(args.kind));
        return Ok(ExitCode::from(exit::INPUT_ERRORS));
    };
    tracing::info!(file, kind = args.kind.name(), %target, "minimizing");
    let pred = |q: &Program| fingerprint(args.kind, q, model).as_deref() == Some(target.as_str());
    let m = match minimize(&program, Budget::time(args.budget), pred) {
        Ok(m) => m,
        Err(MinimizeError::PredicateFalse) => bail!("[tcfuzz internal bug] {file}: the property held, then did not, on the same program"),
        Err(e) => bail!("{file}: {e}"),
    };
    let seconds = start.elapsed().as_secs_f64();
    let (from, to) = (Size::of(&program), Size::of(&m.program));
    let mut minimized = m.program.clone();
    // What was kept, on one line of reasonable length (a verdict's outcome set can be long).
    let kept: String =
        if target.chars().count() > 160 { format!("{}…", target.chars().take(160).collect::<String>()) } else { target.clone() };
    minimized.comments = vec![tcfuzz_litmus::Comment::header(format!(
        " minimized by `tcfuzz minimize --kind {}` from {file} ({from}), keeping: {kept}",
        args.kind.name()
    ))];
    let mut text = tcfuzz_litmus::print(&minimized);
    if !text.ends_with('\n') {
        text.push('\n');
    }
    if let Some(out) = &args.out {
        std::fs::write(out, &text).with_context(|| format!("cannot write {}", out.display()))?;
    }
    let mut stdout = std::io::stdout().lock();
    if args.json {
        let report = Report {
            file: &file,
            kind: args.kind.name(),
            model: model.name(),
            original: from.into(),
            minimized: to.into(),
            seconds,
            checks: m.calls,
            memo_hits: m.memo_hits,
            invalid: m.invalid,
            budget_exhausted: m.exhausted,
            program: &text,
        };
        writeln!(stdout, "{}", serde_json::to_string(&report)?)?;
    } else {
        if args.out.is_none() {
            write!(stdout, "{text}")?;
        }
        if !quiet {
            eprintln!(
                "minimized {file}: {from} → {to} in {seconds:.2} s ({} checks, {} answered from memory, {} invalid candidates skipped){}",
                m.calls,
                m.memo_hits,
                m.invalid,
                if m.exhausted { "; the budget ran out: the smallest program found, not necessarily 1-minimal" } else { "" }
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn nothing_to_keep(kind: KeepKind) -> &'static str {
    match kind {
        KeepKind::Verdict => "the checker cannot judge the program (unsupported or too large)",
        KeepKind::Race => "the program has no race",
        KeepKind::ExplorerVsOracle => "the explorer and the oracle agree on it (or the oracle cannot judge it)",
        KeepKind::ExplorerMisses => "the explorer misses no execution on it that a caveat allows (or the oracle cannot judge it)",
        KeepKind::TileirWeakerThanPtx => "the tileir-weaker-than-ptx check holds on it",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_parse_with_or_without_a_unit() {
        assert_eq!(parse_duration("60s"), Ok(Duration::from_secs(60)));
        assert_eq!(parse_duration("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(parse_duration("2m"), Ok(Duration::from_secs(120)));
        assert_eq!(parse_duration("1.5"), Ok(Duration::from_millis(1500)));
        assert_eq!(parse_duration("1d"), Ok(Duration::from_secs(86_400)));
        assert_eq!(parse_duration("5 parsecs"), Err("`5 parsecs`: unknown unit ` parsecs` (ms, s, m, h, d)".into()));
        assert!(parse_duration("fast").is_err());
    }

    #[test]
    fn difference_lines_are_classified_without_their_numbers() {
        let lines = vec![
            "complete executions: explorer 3, oracle 4".to_string(),
            "final state P0:r0=1; x=1;: explorer 0 executions, oracle 2".to_string(),
            "final state P0:r0=0; x=1;: explorer 1 executions, oracle 2".to_string(),
        ];
        assert_eq!(difference_classes(&lines), "complete count, oracle-only state, state count");
        // Kept as "other" before: a minimization kept any other difference instead.
        let lines = vec!["executions with a failed assume: explorer 6, oracle 8".to_string()];
        assert_eq!(difference_classes(&lines), "assume-failed count");
    }
}
