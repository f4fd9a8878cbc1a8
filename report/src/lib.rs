//! Discrepancy reports from a corpus (DESIGN §5, §6): what is new since the last report, the
//! totals, plots of the campaigns' time series, and every discrepancy with its (minimized)
//! program, both sides' verdicts and the command that reproduces it.
//!
//! ```text
//! build(corpus, options)     the Report (plain data; the JSON format is it, serialized)
//! render(report, format)     HTML (one self-contained file: inline CSS and SVG, no script, no
//!                            fetches; usable on a phone), Markdown, or JSON
//! write(report, dir, fmts)   report.html / report.md / report.json and programs/*.litmus
//! record(report)             what the corpus keeps: the next report's diff baseline
//! ```
//! Used by `tcfuzz report` and by the coordinator's scheduled reports. Everything that comes from
//! a program or a verdict is escaped (minijinja auto-escaping, and [`highlight`]).

pub mod highlight;
mod model;
pub mod svg;

use std::path::{Path, PathBuf};

use minijinja::{Environment, Value, context};
use thiserror::Error;

pub use model::{CampaignRow, Diff, Entry, KindSummary, Options, Plots, Report, Size, Totals, build, headline, record, reproduce};

#[derive(Debug, Error)]
pub enum ReportError {
    #[error(transparent)]
    Corpus(#[from] tcfuzz_corpus::CorpusError),
    #[error("[tcfuzz internal bug] report template: {0}")]
    Template(#[from] minijinja::Error),
    /// (The I/O error is in the message, not a `source()`: `main` prints the chain.)
    #[error("cannot write {path}: {error}")]
    Write { path: PathBuf, error: std::io::Error },
}

/// The formats a report is written in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Html,
    Markdown,
    Json,
}

impl Format {
    pub const ALL: [Format; 3] = [Format::Html, Format::Markdown, Format::Json];

    pub fn file_name(self) -> &'static str {
        match self {
            Format::Html => "report.html",
            Format::Markdown => "report.md",
            Format::Json => "report.json",
        }
    }
}

impl std::str::FromStr for Format {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "html" => Ok(Format::Html),
            "md" | "markdown" => Ok(Format::Markdown),
            "json" => Ok(Format::Json),
            other => Err(format!("unknown report format `{other}`; expected html, md or json")),
        }
    }
}

/// `YYYY-MM-DD HH:MM UTC` for ms since the Unix epoch (Howard Hinnant's civil-from-days).
pub fn date(ms: u64) -> String {
    let secs = ms / 1000;
    let (days, rem) = ((secs / 86_400) as i64, secs % 86_400);
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02} {:02}:{:02} UTC", rem / 3600, rem % 3600 / 60)
}

/// A count with thousands separators.
fn num(v: u64) -> String {
    let s = v.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn environment() -> Result<Environment<'static>, ReportError> {
    let mut env = Environment::new();
    env.add_template("report.html", include_str!("../templates/report.html"))?;
    env.add_template("report.md", include_str!("../templates/report.md"))?;
    env.add_filter("date", |ms: u64| date(ms));
    env.add_filter("num", |v: u64| num(v));
    env.add_filter("litmus", |text: String| Value::from_safe_string(highlight::litmus(&text)));
    Ok(env)
}

/// The report in one format.
pub fn render(report: &Report, format: Format) -> Result<String, ReportError> {
    match format {
        Format::Json => Ok(serde_json::to_string_pretty(report).unwrap_or_default() + "\n"),
        Format::Html | Format::Markdown => {
            let env = environment()?;
            let t = env.get_template(format.file_name())?;
            Ok(t.render(context! { r => report, version => env!("CARGO_PKG_VERSION") })?)
        }
    }
}

/// Writes the report in `formats` into `dir`, with every discrepancy's program as
/// `programs/KIND-N.litmus` (what the reproduce commands name); returns the files written.
pub fn write(report: &Report, dir: &Path, formats: &[Format]) -> Result<Vec<PathBuf>, ReportError> {
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |error| ReportError::Write { path, error }
    };
    let programs = dir.join("programs");
    std::fs::create_dir_all(&programs).map_err(io(&programs))?;
    let mut written = Vec::new();
    for e in &report.discrepancies {
        let path = dir.join(&e.file);
        let mut text = e.program.clone();
        if !text.ends_with('\n') {
            text.push('\n');
        }
        std::fs::write(&path, text).map_err(io(&path))?;
        written.push(path);
    }
    for &f in formats {
        let path = dir.join(f.file_name());
        std::fs::write(&path, render(report, f)?).map_err(io(&path))?;
        written.push(path);
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_and_numbers_read_as_people_write_them() {
        assert_eq!(date(0), "1970-01-01 00:00 UTC");
        assert_eq!(date(1_795_426_200_000), "2026-11-23 09:30 UTC");
        assert_eq!(num(1_234_567), "1,234,567");
        assert_eq!(num(12), "12");
    }
}
