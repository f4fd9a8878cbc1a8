//! `tcfuzz corpus`: list, show, verify, export and import a corpus directory.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, bail};
use serde::Serialize;
use serde_json::json;
use tcfuzz_corpus::{Corpus, Discrepancy, JobState, Kind};

use crate::exit;

/// Inspect, verify, export and import a corpus directory (the store a campaign records
/// discrepancies, coverage seeds, campaign stats and jobs in).
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, clap::Subcommand)]
pub enum Command {
    /// List the discrepancies (kind, count, first and last seen, campaigns, whether minimized,
    /// signature) and how many seeds, campaigns, coverage features and jobs the corpus holds.
    /// --json: one object per discrepancy per line ({"kind", "signature", "count",
    /// "first_seen_ms", "last_seen_ms", "campaigns", "minimized"}), then one summary object
    /// ({"discrepancies", "seeds", "campaigns", "coverage_features", "jobs"}).
    Ls(Common),
    /// Show one discrepancy in full: its facts, both sides' verdicts, the program and the
    /// minimized program. --json: one object with the same fields.
    Show(ShowArgs),
    /// Read and verify every record: each decodes (checksum, format version), its key matches
    /// its content, its programs are valid litmus programs, and the indexes (seed index, job
    /// queue, lease deadlines) agree with what they index. Problems go to stderr, one per line,
    /// naming the tree and key; exit code 1 if there is any. --json: {"records": {TREE: N},
    /// "problems": [TEXT], "ok": bool}.
    Check(Common),
    /// Write every record to DIR as plain files: corpus.json (every record, programs replaced by
    /// file names) and the programs as litmus files under discrepancies/ and seeds/. The same
    /// corpus always exports the same bytes.
    Export(ExportArgs),
    /// Create a corpus from an export (the corpus directory must be new or empty).
    Import(ImportArgs),
}

#[derive(Debug, clap::Args)]
pub struct Common {
    /// The corpus directory.
    #[arg(long, value_name = "DIR")]
    pub corpus: PathBuf,

    /// JSON output (see the command's help).
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, clap::Args)]
pub struct ShowArgs {
    #[command(flatten)]
    pub common: Common,

    /// The discrepancy kind (explorer-vs-oracle, tileir-weaker-than-ptx, pattern-broken, ...).
    #[arg(value_name = "KIND")]
    pub kind: String,

    /// The signature, as `tcfuzz corpus ls` prints it.
    #[arg(value_name = "SIGNATURE")]
    pub signature: String,
}

#[derive(Debug, clap::Args)]
pub struct ExportArgs {
    #[command(flatten)]
    pub common: Common,

    /// Where to write (created; must be new or empty).
    #[arg(value_name = "DIR")]
    pub out: PathBuf,
}

#[derive(Debug, clap::Args)]
pub struct ImportArgs {
    #[command(flatten)]
    pub common: Common,

    /// A directory written by `tcfuzz corpus export`.
    #[arg(value_name = "DIR")]
    pub from: PathBuf,
}

pub fn run(args: &Args, quiet: bool) -> anyhow::Result<ExitCode> {
    match &args.command {
        Command::Ls(c) => ls(c),
        Command::Show(a) => show(a),
        Command::Check(c) => check(c, quiet),
        Command::Export(a) => {
            let corpus = open(&a.common)?;
            let moved = corpus.export(&a.out)?;
            if !quiet {
                let line = format!(
                    "exported {} discrepancies, {} seeds, {} campaigns, {} coverage features, {} jobs to {}",
                    moved.discrepancies,
                    moved.seeds,
                    moved.campaigns,
                    moved.features,
                    moved.jobs,
                    a.out.display()
                );
                print_summary(
                    a.common.json,
                    &line,
                    json!({"exported": a.out.display().to_string(), "discrepancies": moved.discrepancies, "seeds": moved.seeds, "campaigns": moved.campaigns, "coverage_features": moved.features, "jobs": moved.jobs}),
                )?;
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Import(a) => {
            let corpus = Corpus::open(&a.common.corpus)?;
            let moved = corpus.import(&a.from)?;
            if !quiet {
                let line = format!(
                    "imported {} discrepancies, {} seeds, {} campaigns, {} coverage features, {} jobs into {}",
                    moved.discrepancies,
                    moved.seeds,
                    moved.campaigns,
                    moved.features,
                    moved.jobs,
                    a.common.corpus.display()
                );
                print_summary(
                    a.common.json,
                    &line,
                    json!({"imported": a.from.display().to_string(), "discrepancies": moved.discrepancies, "seeds": moved.seeds, "campaigns": moved.campaigns, "coverage_features": moved.features, "jobs": moved.jobs}),
                )?;
            }
            Ok(ExitCode::SUCCESS)
        }
    }
}

fn print_summary(json: bool, line: &str, object: serde_json::Value) -> anyhow::Result<()> {
    let mut stdout = std::io::stdout().lock();
    if json {
        writeln!(stdout, "{object}")?;
    } else {
        writeln!(stdout, "{line}")?;
    }
    Ok(())
}

fn open(c: &Common) -> anyhow::Result<Corpus> {
    Ok(Corpus::open_existing(&c.corpus)?)
}

#[derive(Serialize)]
struct Row<'a> {
    kind: Kind,
    signature: &'a str,
    count: u64,
    first_seen_ms: u64,
    last_seen_ms: u64,
    campaigns: &'a [u64],
    minimized: bool,
}

fn ls(c: &Common) -> anyhow::Result<ExitCode> {
    let corpus = open(c)?;
    let mut stdout = std::io::stdout().lock();
    let discrepancies: Vec<Discrepancy> = corpus.discrepancies().collect::<Result<_, _>>()?;
    if c.json {
        for d in &discrepancies {
            let row = Row {
                kind: d.kind,
                signature: &d.signature,
                count: d.count,
                first_seen_ms: d.first_seen_ms,
                last_seen_ms: d.last_seen_ms,
                campaigns: &d.campaigns,
                minimized: d.minimized.is_some(),
            };
            writeln!(stdout, "{}", serde_json::to_string(&row)?)?;
        }
    } else if !discrepancies.is_empty() {
        writeln!(
            stdout,
            "{:<24} {:>7}  {:<20} {:<20} {:<10} {:<3}  SIGNATURE",
            "KIND", "COUNT", "FIRST SEEN (UTC)", "LAST SEEN (UTC)", "CAMPAIGNS", "MIN"
        )?;
        for d in &discrepancies {
            let campaigns: Vec<String> = d.campaigns.iter().map(u64::to_string).collect();
            writeln!(
                stdout,
                "{:<24} {:>7}  {:<20} {:<20} {:<10} {:<3}  {}",
                d.kind.name(),
                d.count,
                utc(d.first_seen_ms),
                utc(d.last_seen_ms),
                campaigns.join(","),
                if d.minimized.is_some() { "yes" } else { "no" },
                d.signature
            )?;
        }
    }
    let seeds = corpus.seeds().try_fold(0u64, |n, s| s.map(|_| n + 1))?;
    let campaigns = corpus.campaigns()?.len();
    let features = corpus.coverage()?.len();
    let jobs = corpus.jobs()?;
    let count = |f: fn(&JobState) -> bool| jobs.iter().filter(|j| f(&j.state)).count();
    let (queued, leased, done) =
        (count(|s| *s == JobState::Queued), count(|s| matches!(s, JobState::Leased { .. })), count(|s| matches!(s, JobState::Done { .. })));
    if c.json {
        let summary = json!({"discrepancies": discrepancies.len(), "seeds": seeds, "campaigns": campaigns, "coverage_features": features, "jobs": {"queued": queued, "leased": leased, "done": done}});
        writeln!(stdout, "{summary}")?;
    } else {
        writeln!(
            stdout,
            "{}: {} discrepancies, {seeds} coverage seeds, {campaigns} campaigns, {features} coverage features, {} jobs ({queued} queued, {leased} leased, {done} done)",
            c.corpus.display(),
            discrepancies.len(),
            jobs.len()
        )?;
    }
    Ok(ExitCode::SUCCESS)
}

fn show(a: &ShowArgs) -> anyhow::Result<ExitCode> {
    let kind: Kind = a.kind.parse().map_err(|e| exit::UsageError(format!("{e}")))?;
    let corpus = open(&a.common)?;
    let Some(d) = corpus.discrepancy(kind, &a.signature)? else {
        bail!(
            "{}: no discrepancy `{kind}` / `{}` (`tcfuzz corpus ls --corpus {}` lists them)",
            a.common.corpus.display(),
            a.signature,
            a.common.corpus.display()
        );
    };
    let mut stdout = std::io::stdout().lock();
    if a.common.json {
        let object = json!({
            "kind": d.kind, "signature": d.signature, "count": d.count,
            "first_seen_ms": d.first_seen_ms, "last_seen_ms": d.last_seen_ms, "campaigns": d.campaigns,
            "sides": d.sides, "program": d.program, "minimized": d.minimized,
        });
        writeln!(stdout, "{object}")?;
        return Ok(ExitCode::SUCCESS);
    }
    let campaigns: Vec<String> = d.campaigns.iter().map(u64::to_string).collect();
    writeln!(stdout, "kind:       {}", d.kind)?;
    writeln!(stdout, "signature:  {}", d.signature)?;
    writeln!(stdout, "seen:       {} times, first {} UTC, last {} UTC", d.count, utc(d.first_seen_ms), utc(d.last_seen_ms))?;
    writeln!(stdout, "campaigns:  {}", campaigns.join(", "))?;
    for s in &d.sides {
        writeln!(stdout, "\n--- {} says:\n{}", s.name, s.verdict.trim_end())?;
    }
    writeln!(stdout, "\n--- program:\n{}", d.program.trim_end())?;
    match &d.minimized {
        Some(m) => writeln!(stdout, "\n--- minimized:\n{}", m.trim_end())?,
        None => writeln!(stdout, "\n--- not minimized yet")?,
    }
    Ok(ExitCode::SUCCESS)
}

fn check(c: &Common, quiet: bool) -> anyhow::Result<ExitCode> {
    let corpus = open(c).with_context(|| "the corpus cannot be opened, so no record was checked".to_string())?;
    let report = corpus.check()?;
    let mut stdout = std::io::stdout().lock();
    if c.json {
        let records: serde_json::Map<String, serde_json::Value> =
            report.records.iter().map(|(t, n)| (t.name().to_string(), json!(n))).collect();
        let problems: Vec<String> = report.problems.iter().map(ToString::to_string).collect();
        writeln!(stdout, "{}", json!({"records": records, "problems": problems, "ok": report.problem_count == 0}))?;
    } else {
        for p in &report.problems {
            eprintln!("error: {p}");
        }
        if report.problem_count as usize > report.problems.len() {
            eprintln!("error: and {} more problems", report.problem_count as usize - report.problems.len());
        }
        if !quiet {
            let outcome = if report.problem_count == 0 { "ok".to_string() } else { format!("{} problems", report.problem_count) };
            writeln!(
                stdout,
                "checked {} records in {} trees of {}: {outcome}",
                report.total_records(),
                report.records.len(),
                c.corpus.display()
            )?;
        }
    }
    Ok(exit::from_failures(report.problem_count as usize))
}

/// `2026-01-02 03:04:05` for a time in ms since the Unix epoch (UTC; the proleptic Gregorian
/// calendar, Howard Hinnant's days-to-civil algorithm).
fn utc(ms: u64) -> String {
    let secs = ms / 1000;
    let (days, rem) = ((secs / 86_400) as i64, secs % 86_400);
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02} {:02}:{:02}:{:02}", rem / 3600, rem % 3600 / 60, rem % 60)
}

#[cfg(test)]
mod tests {
    use super::utc;

    #[test]
    fn times_print_as_utc_dates() {
        assert_eq!(utc(0), "1970-01-01 00:00:00");
        assert_eq!(utc(951_782_400_000), "2000-02-29 00:00:00");
        assert_eq!(utc(1_700_000_000_123), "2023-11-14 22:13:20");
    }
}
