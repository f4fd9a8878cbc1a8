//! What `tcfuzz selftest` prints and writes: a line (or JSON object) per disagreement, the
//! disagreeing programs as litmus files, and the summary.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Context;
use serde::Serialize;
use tcfuzz_checker::ModelKind;

use super::compare::{Comparison, Disagreement, LOOP_BOUND, Outcome, ProgramReport};

/// Counts of programs over a run.
#[derive(Clone, Debug, Default)]
pub struct Counts {
    pub agree: u64,
    pub disagree: u64,
    pub skipped: u64,
    /// Programs whose comparison under some model the deadline stopped.
    pub past_deadline: u64,
}

/// Counts over a run under one model.
#[derive(Clone, Debug, Default, Serialize)]
pub struct ModelCounts {
    pub agree: u64,
    /// Of `agree`, those where the explorer matched the unrestricted oracle (it also found the
    /// executions its caveat says it may miss).
    pub agree_unrestricted: u64,
    /// Of `agree`, those where the explorer missed executions its caveat names (and only those).
    pub within_caveat: u64,
    pub disagree: u64,
    pub skipped: u64,
    /// Of `skipped`, those the deadline stopped.
    pub past_deadline: u64,
    /// The explorer's verdicts that carried a caveat, whatever the comparison (the checker's goal
    /// is none).
    pub caveated: u64,
}

/// The whole run's numbers: per program, and per program and model.
#[derive(Debug, Default)]
pub struct Summary {
    pub programs: Counts,
    pub models: BTreeMap<&'static str, ModelCounts>,
}

impl Summary {
    pub fn add(&mut self, r: &ProgramReport) {
        match r.outcome() {
            Outcome::Agree => self.programs.agree += 1,
            Outcome::Disagree => self.programs.disagree += 1,
            Outcome::Skipped => self.programs.skipped += 1,
        }
        for (model, c) in &r.checks {
            let counts = self.models.entry(model.name()).or_default();
            match c {
                Comparison::Agree => counts.agree += 1,
                Comparison::AgreeUnrestricted => {
                    counts.agree += 1;
                    counts.agree_unrestricted += 1;
                }
                Comparison::WithinCaveat { .. } => {
                    counts.agree += 1;
                    counts.within_caveat += 1;
                }
                Comparison::Disagree(_) => counts.disagree += 1,
                Comparison::Skipped(_) => counts.skipped += 1,
            }
        }
        for model in &r.caveated {
            self.models.entry(model.name()).or_default().caveated += 1;
        }
        for model in &r.past_deadline {
            self.models.entry(model.name()).or_default().past_deadline += 1;
        }
        self.programs.past_deadline += u64::from(!r.past_deadline.is_empty());
    }

    /// `selftest: N programs, A agree, D disagree, S skipped (seed S)`, with `, P past the
    /// deadline` after the skipped count where some were.
    pub fn line(&self, seed: u64) -> String {
        let c = &self.programs;
        format!(
            "selftest: {}, {} agree, {} disagree, {} skipped{} (seed {seed})",
            match c.agree + c.disagree + c.skipped {
                1 => "1 program".to_string(),
                n => format!("{n} programs"),
            },
            c.agree,
            c.disagree,
            c.skipped,
            match c.past_deadline {
                0 => String::new(),
                n => format!(", {n} past the deadline"),
            }
        )
    }
}

/// The `--json` line of one disagreement.
#[derive(Serialize)]
struct JsonDisagreement<'a> {
    kind: &'static str,
    seed: u64,
    family: &'static str,
    model: &'static str,
    program: &'a str,
    difference: &'a str,
    differences: &'a [String],
    file: Option<String>,
}

/// The `--json` line of one comparison the deadline stopped.
#[derive(Serialize)]
struct JsonPastDeadline<'a> {
    kind: &'static str,
    seed: u64,
    family: &'static str,
    model: &'static str,
    program: &'a str,
    deadline_ms: u64,
    file: Option<String>,
}

/// The last `--json` line.
#[derive(Serialize)]
struct JsonSummary<'a> {
    kind: &'static str,
    programs: u64,
    agree: u64,
    disagree: u64,
    skipped: u64,
    past_deadline: u64,
    seed: u64,
    families: &'a [&'static str],
    models: &'a BTreeMap<&'static str, ModelCounts>,
    seconds: f64,
}

/// Prints each disagreement of `r` (and writes its program into `out_dir`).
pub fn disagreements(r: &ProgramReport, out_dir: Option<&Path>, json: bool, out: &mut impl Write) -> anyhow::Result<()> {
    let disagreeing: Vec<(ModelKind, &Disagreement)> = r
        .checks
        .iter()
        .filter_map(|(m, c)| match c {
            Comparison::Disagree(d) => Some((*m, d)),
            _ => None,
        })
        .collect();
    if disagreeing.is_empty() {
        return Ok(());
    }
    let file = match out_dir {
        Some(dir) => Some(write_program(dir, r, &disagreeing)?),
        None => None,
    };
    for (model, d) in disagreeing {
        let first = d.differences.first().map_or("", String::as_str);
        if json {
            let line = JsonDisagreement {
                kind: "disagreement",
                seed: r.seed,
                family: r.family.name(),
                model: model.name(),
                program: &r.program.name,
                difference: first,
                differences: &d.differences,
                file: file.as_ref().map(|f| f.display().to_string()),
            };
            writeln!(out, "{}", serde_json::to_string(&line)?)?;
        } else {
            writeln!(out, "disagree: seed {}, family {}, model {}: {first}", r.seed, r.family, model.name())?;
        }
    }
    if let (Some(f), false) = (&file, json) {
        writeln!(out, "  written to {}", f.display())?;
    }
    Ok(())
}

/// Prints each model under which the deadline stopped `r`'s comparison, with how to regenerate
/// the program (and writes the program into `out_dir` as `slow-<family>-<seed>.litmus`).
pub fn past_deadline(r: &ProgramReport, deadline_ms: u64, out_dir: Option<&Path>, json: bool, out: &mut impl Write) -> anyhow::Result<()> {
    if r.past_deadline.is_empty() {
        return Ok(());
    }
    let file = match out_dir {
        Some(dir) => {
            let path = dir.join(format!("slow-{}-{}.litmus", r.family, r.seed));
            let models: Vec<&str> = r.past_deadline.iter().map(|m| m.name()).collect();
            let header = [
                format!(
                    " tcfuzz selftest: comparing the explorer with the oracle on this program took more than {deadline_ms} ms under {} (family {}, seed {})",
                    models.join(" and "),
                    r.family,
                    r.seed
                ),
                " re-check: tcfuzz check --model M FILE, and with --oracle".to_string(),
            ];
            Some(write_with_header(path, r, header.into_iter())?)
        }
        None => None,
    };
    for model in &r.past_deadline {
        if json {
            let line = JsonPastDeadline {
                kind: "past_deadline",
                seed: r.seed,
                family: r.family.name(),
                model: model.name(),
                program: &r.program.name,
                deadline_ms,
                file: file.as_ref().map(|f| f.display().to_string()),
            };
            writeln!(out, "{}", serde_json::to_string(&line)?)?;
        } else {
            writeln!(
                out,
                "past the deadline: seed {}, family {}, model {} ({deadline_ms} ms; regenerate: tcfuzz selftest --programs 1 --seed {} --family {} --model {})",
                r.seed,
                r.family,
                model.name(),
                r.seed,
                r.family,
                model.name()
            )?;
        }
    }
    if let (Some(f), false) = (&file, json) {
        writeln!(out, "  written to {}", f.display())?;
    }
    Ok(())
}

/// Writes `r`'s program into `dir` as `caveat-<family>-<seed>.litmus` if under some model the
/// explorer missed executions its caveat names (`selftest --caveats-out`): the programs to
/// study for closing a caveat. Returns the path written, if any.
pub fn within_caveat(r: &ProgramReport, dir: &Path) -> anyhow::Result<Option<PathBuf>> {
    let missed: Vec<(ModelKind, u64, u64)> = r
        .checks
        .iter()
        .filter_map(|(m, c)| match c {
            Comparison::WithinCaveat { explorer, oracle } => Some((*m, *explorer, *oracle)),
            _ => None,
        })
        .collect();
    if missed.is_empty() {
        return Ok(None);
    }
    let path = dir.join(format!("caveat-{}-{}.litmus", r.family, r.seed));
    let mut header = vec![format!(
        " tcfuzz selftest: the explorer misses executions its caveat names on this program (family {}, seed {})",
        r.family, r.seed
    )];
    for (model, explorer, oracle) in &missed {
        header.push(format!(" {}: the explorer finds {explorer} complete executions, the unrestricted oracle {oracle}", model.name()));
    }
    let models: Vec<String> = missed.iter().map(|(m, _, _)| format!(" --model {}", m.name())).collect();
    header.push(format!(" regenerate: tcfuzz selftest --programs 1 --seed {} --family {}{}", r.seed, r.family, models.concat()));
    header.push(" re-check: tcfuzz check --model M FILE (its caveats), and with --oracle".to_string());
    write_with_header(path, r, header.into_iter()).map(Some)
}

/// Prints the summary: its line, or with `json` its object.
pub fn summary(s: &Summary, seed: u64, families: &[&'static str], seconds: f64, json: bool, out: &mut impl Write) -> anyhow::Result<()> {
    if json {
        let c = &s.programs;
        let line = JsonSummary {
            kind: "summary",
            programs: c.agree + c.disagree + c.skipped,
            agree: c.agree,
            disagree: c.disagree,
            skipped: c.skipped,
            past_deadline: c.past_deadline,
            seed,
            families,
            models: &s.models,
            seconds: (seconds * 1e3).round() / 1e3,
        };
        writeln!(out, "{}", serde_json::to_string(&line)?)?;
    } else {
        // Summary lines go to stderr, as every command's do.
        eprintln!("{}", s.line(seed));
    }
    Ok(())
}

/// Writes the program as `DIR/selftest-<family>-<seed>.litmus`, with `//` lines saying what
/// differed and how to reproduce it.
fn write_program(dir: &Path, r: &ProgramReport, disagreeing: &[(ModelKind, &Disagreement)]) -> anyhow::Result<PathBuf> {
    let path = dir.join(format!("selftest-{}-{}.litmus", r.family, r.seed));
    let mut header = vec![format!(
        " tcfuzz selftest: the explorer and the exhaustive oracle disagree on this program (family {}, seed {})",
        r.family, r.seed
    )];
    for (model, d) in disagreeing {
        for line in &d.differences {
            header.push(format!(" {}: {line}", model.name()));
        }
        header.push(format!(" {}: compared with loop bound {LOOP_BOUND}, {}", model.name(), d.oracle));
    }
    let models: Vec<String> = disagreeing.iter().map(|(m, _)| format!(" --model {}", m.name())).collect();
    header.push(format!(" regenerate: tcfuzz selftest --programs 1 --seed {} --family {}{}", r.seed, r.family, models.concat()));
    header.push(" re-check: tcfuzz check --duplicates --model M FILE, and with --oracle (loop bound 2, oracle unrestricted)".to_string());
    write_with_header(path, r, header.into_iter())
}

/// Writes `r`'s program to `path` with the `//` lines `header` (each without its `//`) above it.
fn write_with_header(path: PathBuf, r: &ProgramReport, header: impl Iterator<Item = String>) -> anyhow::Result<PathBuf> {
    let mut program = r.program.clone();
    program.comments = header.map(tcfuzz_litmus::Comment::header).collect();
    std::fs::write(&path, tcfuzz_litmus::print(&program)).with_context(|| format!("cannot write {}", path.display()))?;
    Ok(path)
}
