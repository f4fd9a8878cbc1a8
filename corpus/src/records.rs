//! What the corpus stores, and each record's encoding ([`crate::codec`]) and key.
//!
//! Keys are big-endian byte strings, so numeric ids and times sort numerically and a time series
//! or a queue is a range scan. Each record type has its own format version (the first byte of its
//! value); a change of fields is a new version, read by a migration or refused by name.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::codec::{DecodeError, Decoder, Encoder};
use crate::store::Tree;

/// The kinds of discrepancy (DESIGN §4). Their names are stable identifiers: they are keys in the
/// database and in exports.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    GpuForbiddenOutcome,
    TileirWeakerThanPtx,
    CompilerLowering,
    ExplorerVsOracle,
    PatternBroken,
    SyncRedundant,
    ReferenceDisagrees,
    CheckerCrash,
}

impl Kind {
    pub const ALL: [Kind; 8] = [
        Kind::GpuForbiddenOutcome,
        Kind::TileirWeakerThanPtx,
        Kind::CompilerLowering,
        Kind::ExplorerVsOracle,
        Kind::PatternBroken,
        Kind::SyncRedundant,
        Kind::ReferenceDisagrees,
        Kind::CheckerCrash,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Kind::GpuForbiddenOutcome => "gpu-forbidden-outcome",
            Kind::TileirWeakerThanPtx => "tileir-weaker-than-ptx",
            Kind::CompilerLowering => "compiler-lowering",
            Kind::ExplorerVsOracle => "explorer-vs-oracle",
            Kind::PatternBroken => "pattern-broken",
            Kind::SyncRedundant => "sync-redundant",
            Kind::ReferenceDisagrees => "reference-disagrees",
            Kind::CheckerCrash => "checker-crash",
        }
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A name that is not one of [`Kind::ALL`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown discrepancy kind `{0}`; known: gpu-forbidden-outcome, tileir-weaker-than-ptx, compiler-lowering, explorer-vs-oracle, pattern-broken, sync-redundant, reference-disagrees, checker-crash"
)]
pub struct UnknownKind(pub String);

impl FromStr for Kind {
    type Err = UnknownKind;
    fn from_str(s: &str) -> Result<Kind, UnknownKind> {
        Kind::ALL.into_iter().find(|k| k.name() == s).ok_or_else(|| UnknownKind(s.to_string()))
    }
}

/// One side of a discrepancy: who judged (`explorer`, `oracle`, `tileir`, `ptx (lowered)`,
/// `gpu`, ...) and its verdict as text.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Side {
    pub name: String,
    pub verdict: String,
}

/// One occurrence of a discrepancy, as a campaign reports it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    pub kind: Kind,
    /// The kind's minimal identifying facts (never the program's hash): findings with equal kind
    /// and signature are one discrepancy.
    pub signature: String,
    pub campaign: u64,
    /// When it was seen, in ms since the Unix epoch (the caller's clock: the corpus reads none).
    pub seen_ms: u64,
    /// The program, as litmus text (it must parse and validate).
    pub program: String,
    pub sides: [Side; 2],
}

/// A discrepancy, deduplicated by `(kind, signature)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Discrepancy {
    pub kind: Kind,
    pub signature: String,
    pub first_seen_ms: u64,
    pub last_seen_ms: u64,
    /// How many findings had this signature.
    pub count: u64,
    /// The campaigns that found it, ascending.
    pub campaigns: Vec<u64>,
    /// The first program found with it (litmus text).
    pub program: String,
    /// The minimized program, once a minimizer has run (litmus text).
    pub minimized: Option<String>,
    /// Both sides' verdicts on the first program.
    pub sides: [Side; 2],
}

/// A program that added a coverage feature: what coverage-guided generation mutates.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Seed {
    pub id: u64,
    pub campaign: u64,
    pub added_ms: u64,
    /// The features it was the first to reach.
    pub features: Vec<String>,
    pub program: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CampaignState {
    Running,
    Stopped,
    Finished,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Campaign {
    pub id: u64,
    pub name: String,
    pub seed: u64,
    /// The generator configuration, as the user wrote it.
    pub config: String,
    pub created_ms: u64,
    pub state: CampaignState,
}

/// A campaign's running totals at one moment: reports plot these.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct StatsSample {
    pub at_ms: u64,
    pub programs: u64,
    pub executions: u64,
    pub too_large: u64,
    pub discrepancies_new: u64,
    pub discrepancies_total: u64,
    pub coverage_features: u64,
    /// What the workers' GPU oracle did (zero for a campaign without GPU workers).
    #[serde(default)]
    pub gpu: GpuTotals,
}

/// Programs the workers' GPU oracle ran, their test instances, and the programs it could not run
/// there (unsupported, failed, or not run because a worker gave its GPU up).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct GpuTotals {
    pub ran: u64,
    pub instances: u64,
    pub unsupported: u64,
    pub failed: u64,
    pub given_up: u64,
}

impl GpuTotals {
    pub fn add(&mut self, o: &GpuTotals) {
        self.ran += o.ran;
        self.instances += o.instances;
        self.unsupported += o.unsupported;
        self.failed += o.failed;
        self.given_up += o.given_up;
    }
}

/// What one rendered report listed (`tcfuzz report`): the next report diffs against it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReportRecord {
    pub at_ms: u64,
    /// The discrepancies it listed, as `kind/signature`.
    pub listed: Vec<String>,
}

/// How often a coverage feature was reached.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FeatureCount {
    pub count: u64,
    pub first_seen_ms: u64,
}

/// A unit of work the coordinator leases to a worker.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Job {
    pub id: u64,
    pub campaign: u64,
    pub work: Work,
    pub state: JobState,
    /// Leases handed out so far (a job whose worker died twice is blamed, DESIGN §4
    /// `checker-crash`).
    pub attempts: u32,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase", tag = "type")]
pub enum Work {
    /// Generate and check programs `first_index .. first_index + count` of the campaign.
    Generate { first_index: u64, count: u64 },
    /// Minimize the program of a discrepancy.
    Minimize { kind: Kind, signature: String },
    /// Explore one part of a split exploration (the job's campaign record holds the program):
    /// the checker's subtree text, and once done the part's verdict as the worker reported it
    /// (the coordinator's encoding; the corpus does not read it).
    Explore { subtree: String, part: Option<String> },
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase", tag = "state")]
pub enum JobState {
    Queued,
    Leased {
        worker: String,
        deadline_ms: u64,
        /// The program a careful worker said it was about to check: if this lease is lost too,
        /// that program is blamed. Kept with the lease so that a restarted coordinator still
        /// knows it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        checking: Option<Checking>,
    },
    Done {
        at_ms: u64,
        /// Set when the job is recorded as failed: its results were refused (the protocol's
        /// `JobResult.refused`), and this says why. Nothing else of it is recorded.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        failed: Option<String>,
    },
}

/// A program of a job, named by its worker before checking it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Checking {
    /// Its index in the campaign.
    pub index: u64,
    pub program: String,
}

/// A stored record: its tree, format version and encoding.
pub(crate) trait Record: Sized {
    const TREE: Tree;
    const VERSION: u8;
    fn encode(&self, e: &mut Encoder);
    fn decode(d: &mut Decoder<'_>) -> Result<Self, DecodeError>;

    fn to_value(&self) -> Vec<u8> {
        let mut e = Encoder::new(Self::VERSION);
        self.encode(&mut e);
        e.finish()
    }

    fn from_value(value: &[u8]) -> Result<Self, DecodeError> {
        let mut d = Decoder::open(value, Self::VERSION)?;
        let r = Self::decode(&mut d)?;
        d.end()?;
        Ok(r)
    }
}

fn kind(d: &mut Decoder<'_>) -> Result<Kind, DecodeError> {
    let name = d.str("kind")?;
    name.parse().map_err(|e: UnknownKind| DecodeError::Corrupt(e.to_string()))
}

impl Record for Discrepancy {
    const TREE: Tree = Tree::Discrepancies;
    const VERSION: u8 = 1;
    fn encode(&self, e: &mut Encoder) {
        e.str(self.kind.name()).str(&self.signature).u64(self.first_seen_ms).u64(self.last_seen_ms).u64(self.count);
        e.u64s(&self.campaigns).str(&self.program).opt_str(self.minimized.as_deref());
        for s in &self.sides {
            e.str(&s.name).str(&s.verdict);
        }
    }
    fn decode(d: &mut Decoder<'_>) -> Result<Self, DecodeError> {
        let kind = kind(d)?;
        let signature = d.str("signature")?;
        let (first_seen_ms, last_seen_ms, count) = (d.u64("first_seen")?, d.u64("last_seen")?, d.u64("count")?);
        let campaigns = d.u64s("campaigns")?;
        let program = d.str("program")?;
        let minimized = d.opt_str("minimized")?;
        let mut side = || -> Result<Side, DecodeError> { Ok(Side { name: d.str("side name")?, verdict: d.str("side verdict")? }) };
        let sides = [side()?, side()?];
        Ok(Discrepancy { kind, signature, first_seen_ms, last_seen_ms, count, campaigns, program, minimized, sides })
    }
}

impl Record for Seed {
    const TREE: Tree = Tree::Seeds;
    const VERSION: u8 = 1;
    fn encode(&self, e: &mut Encoder) {
        e.u64(self.id).u64(self.campaign).u64(self.added_ms).strs(&self.features).str(&self.program);
    }
    fn decode(d: &mut Decoder<'_>) -> Result<Self, DecodeError> {
        Ok(Seed {
            id: d.u64("id")?,
            campaign: d.u64("campaign")?,
            added_ms: d.u64("added")?,
            features: d.strs("features")?,
            program: d.str("program")?,
        })
    }
}

/// The seed a program hash points at (tree `seed_index`).
pub(crate) struct SeedRef(pub u64);

impl Record for SeedRef {
    const TREE: Tree = Tree::SeedIndex;
    const VERSION: u8 = 1;
    fn encode(&self, e: &mut Encoder) {
        e.u64(self.0);
    }
    fn decode(d: &mut Decoder<'_>) -> Result<Self, DecodeError> {
        Ok(SeedRef(d.u64("seed id")?))
    }
}

impl Record for Campaign {
    const TREE: Tree = Tree::Campaigns;
    const VERSION: u8 = 1;
    fn encode(&self, e: &mut Encoder) {
        let state = match self.state {
            CampaignState::Running => 0,
            CampaignState::Stopped => 1,
            CampaignState::Finished => 2,
        };
        e.u64(self.id).str(&self.name).u64(self.seed).str(&self.config).u64(self.created_ms).u8(state);
    }
    fn decode(d: &mut Decoder<'_>) -> Result<Self, DecodeError> {
        let (id, name, seed, config, created_ms) = (d.u64("id")?, d.str("name")?, d.u64("seed")?, d.str("config")?, d.u64("created")?);
        let state = match d.u8("state")? {
            0 => CampaignState::Running,
            1 => CampaignState::Stopped,
            2 => CampaignState::Finished,
            t => return Err(DecodeError::Corrupt(format!("campaign state {t} is not one of 0, 1, 2"))),
        };
        Ok(Campaign { id, name, seed, config, created_ms, state })
    }
}

impl Record for StatsSample {
    const TREE: Tree = Tree::CampaignStats;
    /// Version 2 added the GPU totals.
    const VERSION: u8 = 2;
    fn encode(&self, e: &mut Encoder) {
        e.u64(self.at_ms).u64(self.programs).u64(self.executions).u64(self.too_large);
        e.u64(self.discrepancies_new).u64(self.discrepancies_total).u64(self.coverage_features);
        let g = &self.gpu;
        e.u64(g.ran).u64(g.instances).u64(g.unsupported).u64(g.failed).u64(g.given_up);
    }
    fn decode(d: &mut Decoder<'_>) -> Result<Self, DecodeError> {
        decode_stats(d, Self::VERSION)
    }

    fn from_value(value: &[u8]) -> Result<Self, DecodeError> {
        // A version 1 sample reads with no GPU totals.
        let (mut d, version) = Decoder::open_versions(value, 1, Self::VERSION)?;
        let s = decode_stats(&mut d, version)?;
        d.end()?;
        Ok(s)
    }
}

fn decode_stats(d: &mut Decoder<'_>, version: u8) -> Result<StatsSample, DecodeError> {
    let mut s = StatsSample {
        at_ms: d.u64("at")?,
        programs: d.u64("programs")?,
        executions: d.u64("executions")?,
        too_large: d.u64("too_large")?,
        discrepancies_new: d.u64("discrepancies_new")?,
        discrepancies_total: d.u64("discrepancies_total")?,
        coverage_features: d.u64("coverage_features")?,
        gpu: GpuTotals::default(),
    };
    if version >= 2 {
        s.gpu = GpuTotals {
            ran: d.u64("gpu ran")?,
            instances: d.u64("gpu instances")?,
            unsupported: d.u64("gpu unsupported")?,
            failed: d.u64("gpu failed")?,
            given_up: d.u64("gpu given_up")?,
        };
    }
    Ok(s)
}

impl Record for FeatureCount {
    const TREE: Tree = Tree::Coverage;
    const VERSION: u8 = 1;
    fn encode(&self, e: &mut Encoder) {
        e.u64(self.count).u64(self.first_seen_ms);
    }
    fn decode(d: &mut Decoder<'_>) -> Result<Self, DecodeError> {
        Ok(FeatureCount { count: d.u64("count")?, first_seen_ms: d.u64("first_seen")? })
    }
}

impl Record for Job {
    const TREE: Tree = Tree::Jobs;
    /// Version 2 added `checking` to a lease, version 3 `failed` to a done job.
    const VERSION: u8 = 3;
    fn encode(&self, e: &mut Encoder) {
        e.u64(self.id).u64(self.campaign).u32(self.attempts);
        match &self.work {
            Work::Generate { first_index, count } => e.u8(0).u64(*first_index).u64(*count),
            Work::Minimize { kind, signature } => e.u8(1).str(kind.name()).str(signature),
            Work::Explore { subtree, part } => e.u8(2).str(subtree).opt_str(part.as_deref()),
        };
        match &self.state {
            JobState::Queued => e.u8(0),
            JobState::Leased { worker, deadline_ms, checking } => {
                e.u8(1).str(worker).u64(*deadline_ms);
                match checking {
                    None => e.u8(0),
                    Some(c) => e.u8(1).u64(c.index).str(&c.program),
                }
            }
            JobState::Done { at_ms, failed } => e.u8(2).u64(*at_ms).opt_str(failed.as_deref()),
        };
    }
    fn decode(d: &mut Decoder<'_>) -> Result<Self, DecodeError> {
        decode_job(d, Self::VERSION)
    }

    fn from_value(value: &[u8]) -> Result<Self, DecodeError> {
        // A version 1 record reads as a lease with nothing named; versions 1 and 2 read as done
        // jobs that did not fail.
        let (mut d, version) = Decoder::open_versions(value, 1, Self::VERSION)?;
        let job = decode_job(&mut d, version)?;
        d.end()?;
        Ok(job)
    }
}

fn decode_job(d: &mut Decoder<'_>, version: u8) -> Result<Job, DecodeError> {
    let (id, campaign, attempts) = (d.u64("id")?, d.u64("campaign")?, d.u32("attempts")?);
    let work = match d.u8("work")? {
        0 => Work::Generate { first_index: d.u64("first_index")?, count: d.u64("count")? },
        1 => Work::Minimize { kind: kind(d)?, signature: d.str("signature")? },
        2 => Work::Explore { subtree: d.str("subtree")?, part: d.opt_str("part")? },
        t => return Err(DecodeError::Corrupt(format!("job work tag {t} is not 0, 1 or 2"))),
    };
    let state = match d.u8("state")? {
        0 => JobState::Queued,
        1 => {
            let (worker, deadline_ms) = (d.str("worker")?, d.u64("deadline")?);
            let tag = if version >= 2 { d.u8("checking")? } else { 0 };
            let checking = match tag {
                0 => None,
                1 => Some(Checking { index: d.u64("checking index")?, program: d.str("checking program")? }),
                t => return Err(DecodeError::Corrupt(format!("job checking tag {t} is not 0 or 1"))),
            };
            JobState::Leased { worker, deadline_ms, checking }
        }
        2 => JobState::Done { at_ms: d.u64("done at")?, failed: if version >= 3 { d.opt_str("failed")? } else { None } },
        t => return Err(DecodeError::Corrupt(format!("job state tag {t} is not 0, 1 or 2"))),
    };
    Ok(Job { id, campaign, work, state, attempts })
}

/// A value that carries nothing but its version (index entries whose key says it all).
pub(crate) struct Marker;

impl Record for Marker {
    const TREE: Tree = Tree::JobQueue;
    const VERSION: u8 = 1;
    fn encode(&self, _: &mut Encoder) {}
    fn decode(_: &mut Decoder<'_>) -> Result<Self, DecodeError> {
        Ok(Marker)
    }
}

/// A `u64` in tree `meta` (`schema`, `writes`).
pub(crate) struct MetaU64(pub u64);

impl Record for MetaU64 {
    const TREE: Tree = Tree::Meta;
    const VERSION: u8 = 1;
    fn encode(&self, e: &mut Encoder) {
        e.u64(self.0);
    }
    fn decode(d: &mut Decoder<'_>) -> Result<Self, DecodeError> {
        Ok(MetaU64(d.u64("value")?))
    }
}

/// Key layouts (big-endian).
pub(crate) mod keys {
    use super::Kind;
    use crate::store::Tree;

    pub const SCHEMA: &[u8] = b"schema";
    pub const WRITES: &[u8] = b"writes";

    pub fn id(id: u64) -> Vec<u8> {
        id.to_be_bytes().to_vec()
    }

    pub fn pair(a: u64, b: u64) -> Vec<u8> {
        let mut k = a.to_be_bytes().to_vec();
        k.extend_from_slice(&b.to_be_bytes());
        k
    }

    /// `kind NUL signature`: all discrepancies of one kind are a prefix.
    pub fn discrepancy(kind: Kind, signature: &str) -> Vec<u8> {
        let mut k = kind.name().as_bytes().to_vec();
        k.push(0);
        k.extend_from_slice(signature.as_bytes());
        k
    }

    pub fn parse_id(key: &[u8]) -> Option<u64> {
        Some(u64::from_be_bytes(key.try_into().ok()?))
    }

    pub fn parse_pair(key: &[u8]) -> Option<(u64, u64)> {
        if key.len() != 16 {
            return None;
        }
        Some((parse_id(&key[..8])?, parse_id(&key[8..])?))
    }

    pub fn parse_discrepancy(key: &[u8]) -> Option<(Kind, String)> {
        let nul = key.iter().position(|&b| b == 0)?;
        let kind = std::str::from_utf8(&key[..nul]).ok()?.parse().ok()?;
        Some((kind, String::from_utf8(key[nul + 1..].to_vec()).ok()?))
    }

    /// The key as a person reads it in an error message, by the tree's layout; hex where the
    /// key does not follow it.
    pub fn show(tree: Tree, key: &[u8]) -> String {
        let shown = match tree {
            Tree::Meta | Tree::Coverage => std::str::from_utf8(key).ok().map(|s| format!("`{s}`")),
            Tree::Discrepancies => parse_discrepancy(key).map(|(k, s)| format!("`{k}` / `{s}`")),
            Tree::Seeds | Tree::SeedIndex | Tree::Campaigns | Tree::Jobs | Tree::JobQueue => parse_id(key).map(|i| i.to_string()),
            Tree::CampaignStats => parse_pair(key).map(|(c, t)| format!("campaign {c} at {t} ms")),
            Tree::LeaseDeadlines => parse_pair(key).map(|(d, j)| format!("job {j} deadline {d} ms")),
            Tree::Reports => parse_id(key).map(|t| format!("report at {t} ms")),
            Tree::PoolEpochs => parse_id(key).map(|c| format!("campaign {c}")),
            Tree::SeedCandidates => parse_pair(key).map(|(c, i)| format!("campaign {c} program {i}")),
        };
        shown.unwrap_or_else(|| {
            let hex: String = key.iter().map(|b| format!("{b:02x}")).collect();
            format!("0x{hex} (not a valid `{tree}` key)")
        })
    }
}

impl Record for ReportRecord {
    const TREE: Tree = Tree::Reports;
    const VERSION: u8 = 1;
    fn encode(&self, e: &mut Encoder) {
        e.u64(self.at_ms).strs(&self.listed);
    }
    fn decode(d: &mut Decoder<'_>) -> Result<Self, DecodeError> {
        Ok(ReportRecord { at_ms: d.u64("at_ms")?, listed: d.strs("listed")? })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn side(n: &str) -> Side {
        Side { name: n.into(), verdict: format!("{n} says so\nline 2") }
    }

    #[test]
    fn every_record_round_trips() {
        let d = Discrepancy {
            kind: Kind::ExplorerVsOracle,
            signature: "oracle-extra-state:ld,st".into(),
            first_seen_ms: 1,
            last_seen_ms: 2,
            count: 3,
            campaigns: vec![1, 9],
            program: "PTX x".into(),
            minimized: Some("PTX y".into()),
            sides: [side("explorer"), side("oracle")],
        };
        assert_eq!(Discrepancy::from_value(&d.to_value()), Ok(d));
        let j = Job {
            id: 4,
            campaign: 1,
            work: Work::Minimize { kind: Kind::PatternBroken, signature: "s".into() },
            state: JobState::Leased { worker: "w1".into(), deadline_ms: 77, checking: None },
            attempts: 2,
        };
        assert_eq!(Job::from_value(&j.to_value()), Ok(j.clone()));
        let named = Job {
            state: JobState::Leased {
                worker: "w1".into(),
                deadline_ms: 77,
                checking: Some(Checking { index: 42, program: "PTX x".into() }),
            },
            ..j.clone()
        };
        assert_eq!(Job::from_value(&named.to_value()), Ok(named));
        // Version 1 (before `checking`): the same fields, no checking tag after the deadline.
        let mut v1 = Encoder::new(1);
        v1.u64(4).u64(1).u32(2).u8(1).str("pattern-broken").str("s").u8(1).str("w1").u64(77);
        assert_eq!(Job::from_value(&v1.finish()), Ok(j));
        for failed in [None, Some("INVALID_ARGUMENT: results[0]: too big".to_string())] {
            let done = Job {
                id: 6,
                campaign: 1,
                work: Work::Generate { first_index: 10, count: 5 },
                state: JobState::Done { at_ms: 9, failed },
                attempts: 1,
            };
            assert_eq!(Job::from_value(&done.to_value()), Ok(done));
        }
        // Version 2 (before `failed`): a done job ends at its time, and did not fail.
        let mut v2 = Encoder::new(2);
        v2.u64(6).u64(1).u32(1).u8(0).u64(10).u64(5).u8(2).u64(9);
        let done = Job {
            id: 6,
            campaign: 1,
            work: Work::Generate { first_index: 10, count: 5 },
            state: JobState::Done { at_ms: 9, failed: None },
            attempts: 1,
        };
        assert_eq!(Job::from_value(&v2.finish()), Ok(done));
        for part in [None, Some("0a08".to_string())] {
            let j = Job {
                id: 5,
                campaign: 2,
                work: Work::Explore { subtree: "subtree 00ff:0:0.3".into(), part },
                state: JobState::Queued,
                attempts: 0,
            };
            assert_eq!(Job::from_value(&j.to_value()), Ok(j));
        }
        let c = Campaign { id: 1, name: "n".into(), seed: 5, config: "{}".into(), created_ms: 3, state: CampaignState::Stopped };
        assert_eq!(Campaign::from_value(&c.to_value()), Ok(c));
        let s = Seed { id: 1, campaign: 2, added_ms: 3, features: vec!["f".into()], program: "p".into() };
        assert_eq!(Seed::from_value(&s.to_value()), Ok(s));
        let gpu = GpuTotals { ran: 9, instances: 90_000, unsupported: 2, failed: 1, given_up: 0 };
        let stats = StatsSample {
            at_ms: 1,
            programs: 20,
            executions: 300,
            too_large: 1,
            discrepancies_new: 2,
            discrepancies_total: 3,
            coverage_features: 40,
            gpu,
        };
        assert_eq!(StatsSample::from_value(&stats.to_value()), Ok(stats));
        // Version 1 (before the GPU totals): the same fields, no GPU totals.
        let mut v1 = Encoder::new(1);
        v1.u64(1).u64(20).u64(300).u64(1).u64(2).u64(3).u64(40);
        assert_eq!(StatsSample::from_value(&v1.finish()), Ok(StatsSample { gpu: GpuTotals::default(), ..stats }));
    }

    #[test]
    fn kind_names_are_the_design_names_and_parse_back() {
        for k in Kind::ALL {
            assert_eq!(k.name().parse::<Kind>(), Ok(k));
            assert_eq!(serde_json::to_string(&k).unwrap(), format!("\"{}\"", k.name()));
        }
        assert!("explorer_vs_oracle".parse::<Kind>().is_err());
    }

    #[test]
    fn keys_are_shown_by_layout_or_in_hex() {
        assert_eq!(keys::show(Tree::Discrepancies, &keys::discrepancy(Kind::CheckerCrash, "panic")), "`checker-crash` / `panic`");
        assert_eq!(keys::show(Tree::LeaseDeadlines, &keys::pair(50, 7)), "job 7 deadline 50 ms");
        assert_eq!(keys::show(Tree::Jobs, &[1, 2]), "0x0102 (not a valid `jobs` key)");
    }
}
