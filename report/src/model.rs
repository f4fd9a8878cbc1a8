//! What a report says, read from a corpus: the data every format renders (the JSON format is this,
//! serialized).

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;
use tcfuzz_corpus::{Corpus, Discrepancy, GpuTotals, Kind, ReportRecord, Side, StatsSample};

use crate::ReportError;

/// What to report on.
#[derive(Clone, Debug)]
pub struct Options {
    /// "Now", in ms since the Unix epoch (the caller's clock: building reads none).
    pub now_ms: u64,
    /// Discrepancies first seen after this are "new"; default: since the previous report (all of
    /// them when there is none).
    pub since_ms: Option<u64>,
}

/// A whole report.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    /// Version of this JSON schema (documented in `report/README.md`).
    pub schema: u32,
    pub generated_ms: u64,
    /// What counts as new: first seen after this (ms), or every discrepancy (`null`).
    pub since_ms: Option<u64>,
    /// When the previous report was rendered (its list is the baseline of `diff`).
    pub previous_ms: Option<u64>,
    pub totals: Totals,
    /// Per kind that has discrepancies: how many, how many new, and what the kind means.
    pub kinds: Vec<KindSummary>,
    pub diff: Diff,
    /// New ones first, then by last seen, most recent first.
    pub discrepancies: Vec<Entry>,
    pub campaigns: Vec<CampaignRow>,
    pub plots: Plots,
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct Totals {
    pub campaigns: u64,
    pub programs: u64,
    pub executions: u64,
    pub too_large: u64,
    pub coverage_features: u64,
    pub discrepancies: u64,
    /// Wall-clock time the campaigns ran (first to last sample), in hours.
    pub campaign_hours: f64,
    pub programs_per_s: f64,
    pub executions_per_s: f64,
    /// What the workers' GPU oracle did, over every campaign.
    pub gpu: GpuTotals,
}

#[derive(Clone, Debug, Serialize)]
pub struct KindSummary {
    pub kind: String,
    /// One line a reader can act on.
    pub headline: String,
    pub total: u64,
    pub new: u64,
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct Diff {
    pub new: u64,
    pub gone: u64,
    pub still_open: u64,
    /// `kind/signature` of those the previous report listed and this one does not.
    pub gone_list: Vec<String>,
}

#[derive(Clone, Debug, Serialize)]
pub struct Entry {
    pub kind: String,
    pub headline: String,
    pub signature: String,
    pub new: bool,
    pub first_seen_ms: u64,
    pub last_seen_ms: u64,
    pub count: u64,
    pub campaigns: Vec<u64>,
    /// The minimized program if there is one, else the original (litmus text).
    pub program: String,
    pub minimized: bool,
    pub original_size: Size,
    pub minimized_size: Option<Size>,
    pub sides: [Side; 2],
    /// The file the report writes the program to (relative to the report directory).
    pub file: String,
    /// The command that reproduces it locally.
    pub reproduce: String,
}

/// A program's size, as minimization reports it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Size {
    pub threads: u64,
    pub instructions: u64,
}

#[derive(Clone, Debug, Serialize)]
pub struct CampaignRow {
    pub id: u64,
    pub name: String,
    pub state: String,
    pub programs: u64,
    pub executions: u64,
    pub discrepancies: u64,
    pub coverage_features: u64,
    pub hours: f64,
}

/// The plots, as self-contained SVG (see [`crate::svg`]).
#[derive(Clone, Debug, Default, Serialize)]
pub struct Plots {
    pub discrepancies_over_time: String,
    pub throughput_over_time: String,
    pub coverage_growth: String,
    pub executions_per_program: String,
}

/// What each kind means, in one line (DESIGN §4).
pub fn headline(kind: Kind) -> &'static str {
    match kind {
        Kind::GpuForbiddenOutcome => "the GPU showed a final state the PTX model forbids",
        Kind::TileirWeakerThanPtx => "tcfuzz's own PTX lowering allows an outcome or race the Tile IR program forbids",
        Kind::CompilerLowering => "tileiras' lowering allows an outcome or race the Tile IR program forbids",
        Kind::ExplorerVsOracle => "the DPOR explorer and the exhaustive oracle disagree (a tcfuzz bug)",
        Kind::PatternBroken => "a program built only from the spec's canonical patterns races, hangs or misuses",
        Kind::SyncRedundant => "a synchronization step the spec calls necessary can be removed without effect",
        Kind::ReferenceDisagrees => "the configured reference checker's verdict differs from tcfuzz's",
        Kind::CheckerCrash => "the checker crashed or erred on a valid program",
    }
}

/// The command that reproduces a discrepancy of `kind` on `file`.
pub fn reproduce(kind: Kind, file: &str) -> String {
    match kind {
        Kind::GpuForbiddenOutcome => format!("tcfuzz gpu run {file}"),
        Kind::TileirWeakerThanPtx => format!("tcfuzz check --differential {file}"),
        Kind::CompilerLowering => format!("tcfuzz check --compiler {file}"),
        Kind::ExplorerVsOracle => format!("tcfuzz check {file} && tcfuzz check --oracle {file}"),
        Kind::PatternBroken | Kind::SyncRedundant => format!("tcfuzz check {file} && tcfuzz explain {file}"),
        Kind::ReferenceDisagrees | Kind::CheckerCrash => format!("tcfuzz check {file}"),
    }
}

fn size(text: &str) -> Size {
    match tcfuzz_litmus::parse(text) {
        Ok(p) => Size {
            threads: p.threads.len() as u64,
            instructions: p.threads.iter().flat_map(|t| &t.body).filter(|s| matches!(s.kind, tcfuzz_litmus::StmtKind::Instr(_))).count()
                as u64,
        },
        Err(_) => Size::default(),
    }
}

fn key(d: &Discrepancy) -> String {
    format!("{}/{}", d.kind, d.signature)
}

fn file_name(d: &Discrepancy, n: usize) -> String {
    format!("programs/{}-{}.litmus", d.kind, n + 1)
}

/// Reads everything a report needs from `corpus`.
pub fn build(corpus: &Corpus, options: &Options) -> Result<Report, ReportError> {
    let previous = corpus.reports()?.into_iter().rfind(|r| r.at_ms <= options.now_ms);
    let since = options.since_ms.or(previous.as_ref().map(|r| r.at_ms));
    let mut all: Vec<Discrepancy> = corpus.discrepancies().collect::<Result<_, _>>()?;
    let is_new = |d: &Discrepancy| since.is_none_or(|s| d.first_seen_ms > s);
    all.sort_by(|a, b| is_new(b).cmp(&is_new(a)).then(b.last_seen_ms.cmp(&a.last_seen_ms)).then(key(a).cmp(&key(b))));

    let listed: BTreeSet<String> = all.iter().map(key).collect();
    let diff = match &previous {
        Some(p) => {
            let before: BTreeSet<&String> = p.listed.iter().collect();
            let gone_list: Vec<String> = p.listed.iter().filter(|k| !listed.contains(*k)).cloned().collect();
            Diff {
                new: listed.iter().filter(|k| !before.contains(k)).count() as u64,
                gone: gone_list.len() as u64,
                still_open: listed.iter().filter(|k| before.contains(k)).count() as u64,
                gone_list,
            }
        }
        None => Diff { new: listed.len() as u64, ..Diff::default() },
    };

    let mut kinds: BTreeMap<Kind, (u64, u64)> = BTreeMap::new();
    for d in &all {
        let e = kinds.entry(d.kind).or_default();
        e.0 += 1;
        e.1 += u64::from(is_new(d));
    }
    let kinds = Kind::ALL
        .iter()
        .filter_map(|k| kinds.get(k).map(|&(total, new)| KindSummary { kind: k.name().into(), headline: headline(*k).into(), total, new }))
        .collect();

    let entries = all
        .iter()
        .enumerate()
        .map(|(n, d)| {
            let file = file_name(d, n);
            Entry {
                kind: d.kind.name().into(),
                headline: headline(d.kind).into(),
                signature: d.signature.clone(),
                new: is_new(d),
                first_seen_ms: d.first_seen_ms,
                last_seen_ms: d.last_seen_ms,
                count: d.count,
                campaigns: d.campaigns.clone(),
                program: d.minimized.clone().unwrap_or_else(|| d.program.clone()),
                minimized: d.minimized.is_some(),
                original_size: size(&d.program),
                minimized_size: d.minimized.as_deref().map(size),
                sides: d.sides.clone(),
                reproduce: reproduce(d.kind, &file),
                file,
            }
        })
        .collect();

    // Campaigns and their time series.
    let mut totals = Totals { discrepancies: all.len() as u64, ..Totals::default() };
    let mut campaigns = Vec::new();
    let mut series: Vec<(String, Vec<StatsSample>)> = Vec::new();
    for c in corpus.campaigns()? {
        let samples = corpus.stats(c.id)?;
        let last = samples.last().copied().unwrap_or_default();
        let hours = match (samples.first(), samples.last()) {
            (Some(a), Some(b)) => (b.at_ms.saturating_sub(a.at_ms)) as f64 / 3.6e6,
            _ => 0.0,
        };
        totals.campaigns += 1;
        totals.programs += last.programs;
        totals.executions += last.executions;
        totals.too_large += last.too_large;
        totals.gpu.add(&last.gpu);
        totals.campaign_hours += hours;
        campaigns.push(CampaignRow {
            id: c.id,
            name: c.name.clone(),
            state: format!("{:?}", c.state).to_lowercase(),
            programs: last.programs,
            executions: last.executions,
            discrepancies: last.discrepancies_total,
            coverage_features: last.coverage_features,
            hours,
        });
        series.push((format!("{} #{}", c.name, c.id), samples));
    }
    totals.coverage_features = corpus.coverage()?.len() as u64;
    let seconds = totals.campaign_hours * 3600.0;
    if seconds > 0.0 {
        totals.programs_per_s = totals.programs as f64 / seconds;
        totals.executions_per_s = totals.executions as f64 / seconds;
    }
    let plots = crate::svg::plots(&all, &series);
    Ok(Report {
        schema: 1,
        generated_ms: options.now_ms,
        since_ms: since,
        previous_ms: previous.map(|p| p.at_ms),
        totals,
        kinds,
        diff,
        discrepancies: entries,
        campaigns,
        plots,
    })
}

/// What the corpus keeps of a report: the baseline of the next one's diff.
pub fn record(report: &Report) -> ReportRecord {
    ReportRecord {
        at_ms: report.generated_ms,
        listed: report.discrepancies.iter().map(|e| format!("{}/{}", e.kind, e.signature)).collect(),
    }
}
