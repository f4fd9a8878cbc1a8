//! `tcfuzz report`: the discrepancy report of a corpus, as HTML, Markdown and JSON.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use anyhow::Context;
use tcfuzz_corpus::Corpus;
use tcfuzz_report::{Format, Options};

use crate::commands::services::connection::Connection;
use crate::exit::UsageError;

/// Write the discrepancy report of a corpus: what is new since the last report (by kind, one line
/// each), the totals (campaigns, programs checked, executions explored, throughput, coverage),
/// plots of the campaigns' time series (discrepancies over time, throughput, coverage growth,
/// executions per program), a diff against the previous report ("3 new, 1 gone, 12 still open"),
/// and every discrepancy with its (minimized) program, both sides' verdicts, when and how often it
/// was seen, and the command that reproduces it.
///
/// Writes OUT/report.html (one self-contained file: no network, no script; readable on a phone),
/// OUT/report.md, OUT/report.json (schema in report/README.md) and OUT/programs/*.litmus (what the
/// reproduce commands name). The report's list is kept in the corpus as the next report's
/// baseline, unless --no-record.
///
/// With --coordinator URL (and --token-file F) instead of --corpus: the running coordinator
/// renders the report of its corpus (Admin.RenderReport) and keeps it as its next baseline; the
/// files are written here.
///
/// Exit codes: 0 written; 1 the corpus cannot be opened or read (or the coordinator cannot be
/// reached or refuses), or a file cannot be written; 2 usage error.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The corpus directory (`tcfuzz fuzz --corpus DIR`, `tcfuzz campaign`).
    #[arg(long, value_name = "DIR", required_unless_present = "coordinator", conflicts_with = "coordinator")]
    pub corpus: Option<PathBuf>,

    #[command(flatten)]
    pub connection: Connection,

    /// Count as new what was first seen in this last while (`24h`, `7d`) instead of since the
    /// previous report.
    #[arg(long, value_name = "DURATION", value_parser = super::minimize::parse_duration)]
    pub since: Option<Duration>,

    /// Where to write the report (created if missing).
    #[arg(long, value_name = "DIR", default_value = "report")]
    pub out: PathBuf,

    /// Formats, comma separated: html, md, json.
    #[arg(long, value_name = "LIST", default_value = "html,md,json", value_delimiter = ',')]
    pub format: Vec<String>,

    /// Do not keep this report as the baseline of the next one's diff.
    #[arg(long)]
    pub no_record: bool,
}

pub fn run(args: &Args, quiet: bool) -> anyhow::Result<ExitCode> {
    let formats: Vec<Format> = args.format.iter().map(|f| f.parse::<Format>()).collect::<Result<_, _>>().map_err(UsageError)?;
    let Some(corpus_dir) = &args.corpus else { return remote(args, &formats, quiet) };
    let corpus = Corpus::open_existing(corpus_dir).with_context(|| format!("{}", corpus_dir.display()))?;
    let now_ms = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64);
    let since_ms = args.since.map(|d| now_ms.saturating_sub(d.as_millis() as u64));
    let start = std::time::Instant::now();
    let report = tcfuzz_report::build(&corpus, &Options { now_ms, since_ms })?;
    crate::outputs::ensure_dir(&args.out, "--out")?;
    let written = tcfuzz_report::write(&report, &args.out, &formats)?;
    if !args.no_record {
        let mut u = corpus.update()?;
        u.put_report(&tcfuzz_report::record(&report));
        u.commit()?;
    }
    if !quiet {
        let d = &report.diff;
        eprintln!(
            "report of {}: {} discrepancies ({} new, {} gone, {} still open) written to {} ({} files) in {:.2} s",
            corpus_dir.display(),
            report.discrepancies.len(),
            d.new,
            d.gone,
            d.still_open,
            args.out.display(),
            written.len(),
            start.elapsed().as_secs_f64()
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// The report of a running coordinator's corpus, rendered there, written here.
fn remote(args: &Args, formats: &[Format], quiet: bool) -> anyhow::Result<ExitCode> {
    let start = std::time::Instant::now();
    let answer = crate::commands::services::runtime()?.block_on(async {
        let target = args.connection.target(Duration::from_secs(120))?.context("[tcfuzz internal bug] no --coordinator")?;
        let request = tcfuzz_proto::v1::RenderReportRequest {
            since_ms: args.since.map_or(0, |d| d.as_millis().max(1) as u64),
            no_record: args.no_record,
        };
        let url = target.url.clone();
        target
            .admin()?
            .render_report(request)
            .await
            .map(tonic::Response::into_inner)
            .map_err(|s| anyhow::anyhow!("coordinator {url}: {:?}: {}", s.code(), s.message()))
    })?;
    crate::outputs::ensure_dir(&args.out, "--out")?;
    let wanted: Vec<&str> = formats.iter().map(|f| f.file_name()).collect();
    let mut written = 0;
    for f in &answer.files {
        let path = std::path::Path::new(&f.path);
        // Only the report's own names: nothing the coordinator sends may land outside --out.
        let safe = path.components().all(|c| matches!(c, std::path::Component::Normal(_)))
            && (wanted.contains(&f.path.as_str()) || (f.path.starts_with("programs/") && f.path.ends_with(".litmus")));
        if !safe {
            if !f.path.starts_with("report.") {
                tracing::warn!("the coordinator sent a file named `{}`; not written", f.path);
            }
            continue;
        }
        let target = args.out.join(path);
        if let Some(dir) = target.parent() {
            std::fs::create_dir_all(dir).with_context(|| format!("--out: cannot create {}", dir.display()))?;
        }
        std::fs::write(&target, &f.content).with_context(|| format!("--out: cannot write {}", target.display()))?;
        written += 1;
    }
    if !quiet {
        eprintln!(
            "report of {}: {} discrepancies ({} new, {} gone, {} still open) written to {} ({written} files) in {:.2} s",
            args.connection.coordinator.as_deref().unwrap_or_default(),
            answer.discrepancies,
            answer.new,
            answer.gone,
            answer.still_open,
            args.out.display(),
            start.elapsed().as_secs_f64()
        );
    }
    Ok(ExitCode::SUCCESS)
}
