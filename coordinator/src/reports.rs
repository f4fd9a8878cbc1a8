//! Discrepancy reports of the coordinator's corpus (issue 25 item 2): on request
//! (`Admin.RenderReport`) and on a schedule (`tcfuzz coordinator --report-every D --report-dir
//! DIR`). Both render what `tcfuzz report --corpus` renders, with the `report` crate, and keep
//! the report's list in the corpus (through the ledger, its only writer) as the next report's
//! baseline.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use tcfuzz_corpus::{Corpus, ReportRecord};
use tcfuzz_proto::v1;
use tcfuzz_report::{Format, Options};

use crate::error::ServiceError;
use crate::ledger::{Ledger, Op};
use crate::state::now_ms;

/// Where and how often the coordinator writes reports by itself.
#[derive(Clone, Debug)]
pub struct ReportSchedule {
    pub every: Duration,
    pub dir: PathBuf,
}

/// A report rendered: its files (relative path, content) and the record kept as the baseline.
pub struct Rendered {
    pub files: Vec<(String, String)>,
    pub record: ReportRecord,
    pub answer: v1::RenderReportResponse,
}

fn report_error(e: tcfuzz_report::ReportError) -> ServiceError {
    ServiceError::Unavailable(format!("the report: {e}"))
}

/// Renders the report of `corpus` at `now_ms`, in every format, with every discrepancy's program.
pub fn render(corpus: &Corpus, now_ms: u64, since_ms: Option<u64>) -> Result<Rendered, ServiceError> {
    let report = tcfuzz_report::build(corpus, &Options { now_ms, since_ms }).map_err(report_error)?;
    let mut files: Vec<(String, String)> = report
        .discrepancies
        .iter()
        .map(|e| {
            let mut text = e.program.clone();
            if !text.ends_with('\n') {
                text.push('\n');
            }
            (e.file.clone(), text)
        })
        .collect();
    for f in [Format::Html, Format::Markdown, Format::Json] {
        files.push((f.file_name().to_string(), tcfuzz_report::render(&report, f).map_err(report_error)?));
    }
    let d = &report.diff;
    let answer = v1::RenderReportResponse {
        files: files.iter().map(|(path, content)| v1::ReportFile { path: path.clone(), content: content.clone() }).collect(),
        discrepancies: report.discrepancies.len() as u64,
        new: d.new,
        gone: d.gone,
        still_open: d.still_open,
    };
    Ok(Rendered { files, record: tcfuzz_report::record(&report), answer })
}

/// Writes `path` so that a reader sees the old file or the new one, never half of one: a
/// temporary file beside it, flushed, then renamed over it.
pub fn write_atomically(path: &Path, content: &str) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let tmp = dir.join(format!(".{name}.tmp"));
    let mut f = std::fs::File::create(&tmp)?;
    f.write_all(content.as_bytes())?;
    f.sync_all()?;
    std::fs::rename(&tmp, path)
}

/// Writes a rendered report into `dir` as `report-DATE.{html,md,json}` (DATE the UTC day of
/// `now_ms`; a second report on one day replaces the first) and `programs/*.litmus`.
pub fn write_dated(dir: &Path, rendered: &Rendered, now_ms: u64) -> std::io::Result<Vec<PathBuf>> {
    let date: String = tcfuzz_report::date(now_ms).chars().take(10).collect();
    let mut written = Vec::with_capacity(rendered.files.len());
    for (path, content) in &rendered.files {
        let name = match path.strip_prefix("report.") {
            Some(ext) => format!("report-{date}.{ext}"),
            None => path.clone(),
        };
        let target = dir.join(name);
        write_atomically(&target, content)?;
        written.push(target);
    }
    Ok(written)
}

/// Keeps a report's record in the corpus, through the ledger.
pub async fn record(ledger: &Ledger, record: ReportRecord) -> Result<(), ServiceError> {
    ledger.call(|reply| Op::RecordReport(record, reply)).await
}

/// Renders and writes a report every `schedule.every`, the first one period after the start;
/// a failure is logged and the next period tries again.
pub async fn run_schedule(schedule: ReportSchedule, corpus: Arc<Corpus>, ledger: Ledger) {
    let mut every = tokio::time::interval_at(tokio::time::Instant::now() + schedule.every, schedule.every);
    every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        every.tick().await;
        let (corpus, dir) = (corpus.clone(), schedule.dir.clone());
        let done = tokio::task::spawn_blocking(move || {
            let now = now_ms();
            let rendered = render(&corpus, now, None)?;
            let written =
                write_dated(&dir, &rendered, now).map_err(|e| ServiceError::Unavailable(format!("--report-dir {}: {e}", dir.display())))?;
            Ok::<_, ServiceError>((rendered, written))
        })
        .await;
        match done {
            Ok(Ok((rendered, written))) => {
                let (n, d) = (rendered.answer.discrepancies, rendered.answer.new);
                match record(&ledger, rendered.record).await {
                    Ok(()) => {
                        tracing::info!(discrepancies = n, new = d, files = written.len(), "report written to {}", schedule.dir.display())
                    }
                    // The coordinator is stopping.
                    Err(e) => {
                        tracing::warn!("report written but not kept as the next baseline: {e}");
                        return;
                    }
                }
            }
            Ok(Err(e)) => tracing::error!("the periodic report failed: {e}"),
            Err(e) => tracing::error!("[tcfuzz internal bug] the report task failed: {e}"),
        }
    }
}
