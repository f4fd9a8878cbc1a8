//! Export to plain files and import from them, so results can leave the database (DESIGN §6).
//!
//! Layout of an export directory:
//! ```text
//! corpus.json                        every record, programs replaced by the file that holds them
//! discrepancies/000001-KIND.litmus   the program of the first discrepancy (key order), verbatim
//! discrepancies/000001-KIND.min.litmus   its minimized program, if any
//! seeds/000042.litmus                the program of seed 42, verbatim
//! ```
//! The export is a function of the records alone (key order, fixed field order, no time of
//! export), so identical corpora export byte-identical files, and export → import → export gives
//! the same bytes again (`tests/corpus.rs`).

use std::path::{Component, Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::corpus::valid_program;
use crate::error::{CorpusError, Result};
use crate::records::{Campaign, Discrepancy, FeatureCount, Job, Kind, Marker, SeedRef, Side, StatsSample, keys};
use crate::store::Tree;
use crate::{Corpus, SCHEMA_VERSION, Seed};

const FORMAT: &str = "tcfuzz-corpus-export";
const INDEX: &str = "corpus.json";
/// Records written per commit on import.
const IMPORT_BATCH: usize = 1000;

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Export {
    format: String,
    schema: u64,
    discrepancies: Vec<ExportedDiscrepancy>,
    seeds: Vec<ExportedSeed>,
    campaigns: Vec<ExportedCampaign>,
    coverage: Vec<ExportedFeature>,
    jobs: Vec<Job>,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct ExportedDiscrepancy {
    kind: Kind,
    signature: String,
    first_seen_ms: u64,
    last_seen_ms: u64,
    count: u64,
    campaigns: Vec<u64>,
    /// The file holding the program, relative to the export directory.
    program: String,
    minimized: Option<String>,
    sides: [Side; 2],
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct ExportedSeed {
    id: u64,
    campaign: u64,
    added_ms: u64,
    features: Vec<String>,
    program: String,
}

#[derive(Serialize, Deserialize)]
struct ExportedCampaign {
    #[serde(flatten)]
    campaign: Campaign,
    stats: Vec<StatsSample>,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct ExportedFeature {
    feature: String,
    count: u64,
    first_seen_ms: u64,
}

/// What an export or import moved.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Moved {
    pub discrepancies: usize,
    pub seeds: usize,
    pub campaigns: usize,
    pub features: usize,
    pub jobs: usize,
}

fn write(dir: &Path, rel: &str, bytes: &[u8]) -> Result<()> {
    let path = dir.join(rel);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(CorpusError::io(parent))?;
    }
    std::fs::write(&path, bytes).map_err(CorpusError::io(path))
}

/// A path from `corpus.json`, which must stay inside the export directory.
fn inside(dir: &Path, rel: &str) -> Result<PathBuf> {
    let p = Path::new(rel);
    if rel.is_empty() || !p.components().all(|c| matches!(c, Component::Normal(_))) {
        return Err(CorpusError::Invalid(format!(
            "{}: `{rel}` is not a relative path inside the export directory",
            dir.join(INDEX).display()
        )));
    }
    Ok(dir.join(p))
}

fn read(dir: &Path, rel: &str) -> Result<String> {
    let path = inside(dir, rel)?;
    std::fs::read_to_string(&path).map_err(CorpusError::io(path))
}

impl Corpus {
    /// Writes every record to `out` (created; it must not exist or be empty).
    pub fn export(&self, out: &Path) -> Result<Moved> {
        if let Ok(mut entries) = std::fs::read_dir(out)
            && entries.next().is_some()
        {
            return Err(CorpusError::Invalid(format!("{}: not empty; export into a new or empty directory", out.display())));
        }
        std::fs::create_dir_all(out).map_err(CorpusError::io(out))?;
        let mut discrepancies = Vec::new();
        for (i, d) in self.discrepancies().enumerate() {
            let d: Discrepancy = d?;
            let stem = format!("discrepancies/{:06}-{}", i + 1, d.kind);
            let program = format!("{stem}.litmus");
            write(out, &program, d.program.as_bytes())?;
            let minimized = match &d.minimized {
                Some(m) => {
                    let file = format!("{stem}.min.litmus");
                    write(out, &file, m.as_bytes())?;
                    Some(file)
                }
                None => None,
            };
            discrepancies.push(ExportedDiscrepancy {
                kind: d.kind,
                signature: d.signature,
                first_seen_ms: d.first_seen_ms,
                last_seen_ms: d.last_seen_ms,
                count: d.count,
                campaigns: d.campaigns,
                program,
                minimized,
                sides: d.sides,
            });
        }
        let mut seeds = Vec::new();
        for s in self.seeds() {
            let s = s?;
            let program = format!("seeds/{:06}.litmus", s.id);
            write(out, &program, s.program.as_bytes())?;
            seeds.push(ExportedSeed { id: s.id, campaign: s.campaign, added_ms: s.added_ms, features: s.features, program });
        }
        let campaigns = self
            .campaigns()?
            .into_iter()
            .map(|c| Ok(ExportedCampaign { stats: self.stats(c.id)?, campaign: c }))
            .collect::<Result<Vec<_>>>()?;
        let coverage = self
            .coverage()?
            .into_iter()
            .map(|(feature, c)| ExportedFeature { feature, count: c.count, first_seen_ms: c.first_seen_ms })
            .collect();
        let export =
            Export { format: FORMAT.into(), schema: SCHEMA_VERSION, discrepancies, seeds, campaigns, coverage, jobs: self.jobs()? };
        let moved = export.moved();
        let mut json = serde_json::to_string_pretty(&export)
            .map_err(|e| CorpusError::Invalid(format!("[tcfuzz internal bug] cannot serialize the export: {e}")))?;
        json.push('\n');
        write(out, INDEX, json.as_bytes())?;
        Ok(moved)
    }

    /// Reads an export made by [`Corpus::export`] into this corpus, which must hold no records.
    pub fn import(&self, from: &Path) -> Result<Moved> {
        let nonempty = self.counts()?.into_iter().any(|(t, n)| t != Tree::Meta && n > 0);
        if nonempty {
            return Err(CorpusError::Invalid(format!("{}: the corpus is not empty; import into a new corpus directory", self.location())));
        }
        let index = from.join(INDEX);
        let text = std::fs::read_to_string(&index).map_err(CorpusError::io(&index))?;
        let export: Export = serde_json::from_str(&text)
            .map_err(|e| CorpusError::Invalid(format!("{}:{}:{}: error: {e}", index.display(), e.line(), e.column())))?;
        if export.format != FORMAT || export.schema != SCHEMA_VERSION {
            return Err(CorpusError::Invalid(format!(
                "{}: format `{}` schema {}, but this tcfuzz imports `{FORMAT}` schema {SCHEMA_VERSION}",
                index.display(),
                export.format,
                export.schema
            )));
        }
        let mut batch = Batcher { corpus: self, update: None, n: 0 };
        for d in &export.discrepancies {
            let program = read(from, &d.program)?;
            valid_program(&program, &d.program)?;
            let minimized = d.minimized.as_deref().map(|m| read(from, m).and_then(|t| valid_program(&t, m).map(|()| t))).transpose()?;
            let record = Discrepancy {
                kind: d.kind,
                signature: d.signature.clone(),
                first_seen_ms: d.first_seen_ms,
                last_seen_ms: d.last_seen_ms,
                count: d.count,
                campaigns: d.campaigns.clone(),
                program,
                minimized,
                sides: d.sides.clone(),
            };
            batch.update()?.put(&keys::discrepancy(d.kind, &d.signature), &record);
        }
        for s in &export.seeds {
            let program = read(from, &s.program)?;
            valid_program(&program, &s.program)?;
            let hash = crate::codec::stable_hash(program.as_bytes());
            let u = batch.update()?;
            u.put(&keys::id(s.id), &Seed { id: s.id, campaign: s.campaign, added_ms: s.added_ms, features: s.features.clone(), program });
            u.put_in(Tree::SeedIndex, &keys::id(hash), &SeedRef(s.id));
        }
        for c in &export.campaigns {
            let u = batch.update()?;
            u.put(&keys::id(c.campaign.id), &c.campaign);
            for s in &c.stats {
                u.put(&keys::pair(c.campaign.id, s.at_ms), s);
            }
        }
        for f in &export.coverage {
            batch.update()?.put(f.feature.as_bytes(), &FeatureCount { count: f.count, first_seen_ms: f.first_seen_ms });
        }
        for j in &export.jobs {
            let u = batch.update()?;
            u.put(&keys::id(j.id), j);
            match &j.state {
                crate::JobState::Queued => u.put_in(Tree::JobQueue, &keys::id(j.id), &Marker),
                crate::JobState::Leased { deadline_ms, .. } => u.put_in(Tree::LeaseDeadlines, &keys::pair(*deadline_ms, j.id), &Marker),
                crate::JobState::Done { .. } => {}
            }
        }
        batch.finish()?;
        let report = self.check()?;
        if let Some(first) = report.problems.into_iter().next() {
            return Err(CorpusError::Invalid(format!("{}: the imported records do not agree: {first}", index.display())));
        }
        Ok(export.moved())
    }
}

impl Export {
    fn moved(&self) -> Moved {
        Moved {
            discrepancies: self.discrepancies.len(),
            seeds: self.seeds.len(),
            campaigns: self.campaigns.len(),
            features: self.coverage.len(),
            jobs: self.jobs.len(),
        }
    }
}

/// Commits every [`IMPORT_BATCH`] records, so a large import does not build one huge batch.
struct Batcher<'a> {
    corpus: &'a Corpus,
    update: Option<crate::Update<'a>>,
    n: usize,
}

impl<'a> Batcher<'a> {
    fn update(&mut self) -> Result<&mut crate::Update<'a>> {
        if self.n == IMPORT_BATCH {
            self.finish()?;
        }
        self.n += 1;
        if self.update.is_none() {
            self.update = Some(self.corpus.update()?);
        }
        Ok(self.update.as_mut().expect("[tcfuzz internal bug] import batch vanished"))
    }

    fn finish(&mut self) -> Result<()> {
        self.n = 0;
        match self.update.take() {
            Some(u) => u.commit(),
            None => Ok(()),
        }
    }
}
