//! `Corpus::check`: reads and verifies every record, for `tcfuzz corpus check`.
//!
//! Per record: it decodes (checksum, format version, fields), its key matches its content, and
//! its programs are valid litmus programs. Across trees: the seed index, the job queue and the
//! lease deadlines agree with the seeds and jobs they index, and stats, seed-pool epochs and
//! seed candidates belong to a campaign.

use std::collections::{BTreeMap, BTreeSet};

use crate::Corpus;
use crate::corpus::{decode, valid_program};
use crate::epochs::{PoolEpoch, SeedCandidate};
use crate::error::{CorpusError, Result};
use crate::records::{Campaign, Discrepancy, FeatureCount, Job, JobState, Marker, MetaU64, ReportRecord, Seed, SeedRef, StatsSample, keys};
use crate::store::Tree;

/// Most problems listed one by one (the count is always exact).
const MAX_LISTED: usize = 1000;

/// What `check` found.
#[derive(Debug, Default)]
pub struct CheckReport {
    /// Records read, per tree.
    pub records: Vec<(Tree, u64)>,
    /// Problems, each naming its tree and key (at most [`MAX_LISTED`] of them).
    pub problems: Vec<CorpusError>,
    /// All problems found, listed or not.
    pub problem_count: u64,
}

impl CheckReport {
    fn problem(&mut self, e: CorpusError) {
        self.problem_count += 1;
        if self.problems.len() < MAX_LISTED {
            self.problems.push(e);
        }
    }

    pub fn total_records(&self) -> u64 {
        self.records.iter().map(|(_, n)| n).sum()
    }
}

fn mismatch(tree: Tree, key: &[u8], reason: impl Into<String>) -> CorpusError {
    CorpusError::Corrupt { tree, key: keys::show(tree, key), reason: reason.into() }
}

impl Corpus {
    /// Verifies every record. An error only if the engine cannot be read at all; damage is
    /// reported in [`CheckReport::problems`].
    pub fn check(&self) -> Result<CheckReport> {
        let mut report = CheckReport::default();
        let mut seeds: BTreeMap<u64, u64> = BTreeMap::new(); // id → hash of its program
        let mut jobs: BTreeMap<u64, JobState> = BTreeMap::new();
        let mut campaigns: BTreeSet<u64> = BTreeSet::new();
        let mut indexed = Vec::new(); // (tree, key, value) of index trees, checked after the rest
        for tree in Tree::ALL {
            let mut n = 0;
            for entry in self.store().range(tree, &[], None) {
                let (k, v) = match entry {
                    Ok(e) => e,
                    Err(e) => {
                        report.problem(CorpusError::Store { context: format!("{}: reading tree `{tree}`", self.location()), engine: e });
                        break;
                    }
                };
                n += 1;
                if let Err(e) = self.check_record(tree, &k, &v, &mut seeds, &mut jobs, &mut campaigns, &mut indexed) {
                    report.problem(e);
                }
            }
            report.records.push((tree, n));
        }
        for (tree, k, v) in indexed {
            if let Err(e) = check_index(tree, &k, &v, &seeds, &jobs, &campaigns) {
                report.problem(e);
            }
        }
        for (&id, state) in &jobs {
            let (tree, key) = match state {
                JobState::Queued => (Tree::JobQueue, keys::id(id)),
                JobState::Leased { deadline_ms, .. } => (Tree::LeaseDeadlines, keys::pair(*deadline_ms, id)),
                JobState::Done { .. } => continue,
            };
            match self.store().get(tree, &key) {
                Ok(Some(_)) => {}
                Ok(None) => report.problem(mismatch(
                    Tree::Jobs,
                    &keys::id(id),
                    format!("the job is {state:?} but tree `{tree}` has no entry for it"),
                )),
                Err(e) => report.problem(CorpusError::Store { context: format!("{}: reading tree `{tree}`", self.location()), engine: e }),
            }
        }
        Ok(report)
    }

    #[allow(clippy::too_many_arguments)]
    fn check_record(
        &self,
        tree: Tree,
        k: &[u8],
        v: &[u8],
        seeds: &mut BTreeMap<u64, u64>,
        jobs: &mut BTreeMap<u64, JobState>,
        campaigns: &mut BTreeSet<u64>,
        indexed: &mut Vec<(Tree, Vec<u8>, Vec<u8>)>,
    ) -> Result<()> {
        let at = |what: &str| format!("tree `{tree}` at key {}: {what}", keys::show(tree, k));
        match tree {
            Tree::Meta => {
                decode::<MetaU64>(tree, k, v)?;
                if k != keys::SCHEMA && k != keys::WRITES {
                    return Err(mismatch(tree, k, "not a key of `meta`"));
                }
            }
            Tree::Discrepancies => {
                let d: Discrepancy = decode(tree, k, v)?;
                if keys::discrepancy(d.kind, &d.signature) != k {
                    return Err(mismatch(tree, k, format!("holds `{}` / `{}`", d.kind, d.signature)));
                }
                if d.count == 0 || d.first_seen_ms > d.last_seen_ms || !d.campaigns.windows(2).all(|w| w[0] < w[1]) {
                    return Err(mismatch(tree, k, "count 0, first seen after last seen, or campaigns not ascending"));
                }
                valid_program(&d.program, &at("program"))?;
                if let Some(m) = &d.minimized {
                    valid_program(m, &at("minimized program"))?;
                }
            }
            Tree::Seeds => {
                let s: Seed = decode(tree, k, v)?;
                if keys::id(s.id) != k {
                    return Err(mismatch(tree, k, format!("holds seed {}", s.id)));
                }
                valid_program(&s.program, &at("program"))?;
                seeds.insert(s.id, crate::codec::stable_hash(s.program.as_bytes()));
            }
            Tree::Campaigns => {
                let c: Campaign = decode(tree, k, v)?;
                if keys::id(c.id) != k {
                    return Err(mismatch(tree, k, format!("holds campaign {}", c.id)));
                }
                campaigns.insert(c.id);
            }
            Tree::CampaignStats => {
                let s: StatsSample = decode(tree, k, v)?;
                match keys::parse_pair(k) {
                    Some((_, at_ms)) if at_ms == s.at_ms => indexed.push((tree, k.to_vec(), v.to_vec())),
                    _ => return Err(mismatch(tree, k, format!("holds a sample at {} ms", s.at_ms))),
                }
            }
            Tree::Coverage => {
                decode::<FeatureCount>(tree, k, v)?;
                if std::str::from_utf8(k).is_err() {
                    return Err(mismatch(tree, k, "feature name is not UTF-8"));
                }
            }
            Tree::Jobs => {
                let j: Job = decode(tree, k, v)?;
                if keys::id(j.id) != k {
                    return Err(mismatch(tree, k, format!("holds job {}", j.id)));
                }
                jobs.insert(j.id, j.state);
            }
            Tree::SeedIndex => {
                decode::<SeedRef>(tree, k, v)?;
                indexed.push((tree, k.to_vec(), v.to_vec()));
            }
            Tree::JobQueue | Tree::LeaseDeadlines => {
                decode::<Marker>(tree, k, v)?;
                indexed.push((tree, k.to_vec(), v.to_vec()));
            }
            Tree::PoolEpochs => {
                let e: PoolEpoch = decode(tree, k, v)?;
                if keys::id(e.campaign) != k {
                    return Err(mismatch(tree, k, format!("holds the epoch of campaign {}", e.campaign)));
                }
                indexed.push((tree, k.to_vec(), v.to_vec()));
            }
            Tree::SeedCandidates => {
                let c: SeedCandidate = decode(tree, k, v)?;
                if keys::pair(c.campaign, c.index) != k {
                    return Err(mismatch(tree, k, format!("holds program {} of campaign {}", c.index, c.campaign)));
                }
                if let Some(p) = &c.program {
                    valid_program(p, &at("program"))?;
                }
                indexed.push((tree, k.to_vec(), v.to_vec()));
            }
            Tree::Reports => {
                let r: ReportRecord = decode(tree, k, v)?;
                if keys::id(r.at_ms) != k {
                    return Err(mismatch(tree, k, format!("holds a report at {} ms", r.at_ms)));
                }
            }
        }
        Ok(())
    }
}

/// An index entry agrees with what it indexes.
fn check_index(
    tree: Tree,
    k: &[u8],
    v: &[u8],
    seeds: &BTreeMap<u64, u64>,
    jobs: &BTreeMap<u64, JobState>,
    campaigns: &BTreeSet<u64>,
) -> Result<()> {
    match tree {
        Tree::SeedIndex => {
            let SeedRef(id) = decode(tree, k, v)?;
            match (seeds.get(&id), keys::parse_id(k)) {
                (Some(&hash), Some(key_hash)) if hash == key_hash => Ok(()),
                (Some(_), _) => Err(mismatch(tree, k, format!("points at seed {id}, whose program has another hash"))),
                (None, _) => Err(mismatch(tree, k, format!("points at seed {id}, which does not exist"))),
            }
        }
        Tree::JobQueue => match keys::parse_id(k).and_then(|id| jobs.get(&id)) {
            Some(JobState::Queued) => Ok(()),
            Some(state) => Err(mismatch(tree, k, format!("the job is queued here but {state:?} in `jobs`"))),
            None => Err(mismatch(tree, k, "no such job in `jobs`")),
        },
        Tree::LeaseDeadlines => {
            let (deadline, id) = keys::parse_pair(k).ok_or_else(|| mismatch(tree, k, "not deadline ++ job id"))?;
            match jobs.get(&id) {
                Some(JobState::Leased { deadline_ms, .. }) if *deadline_ms == deadline => Ok(()),
                Some(state) => Err(mismatch(tree, k, format!("the job is {state:?} in `jobs`"))),
                None => Err(mismatch(tree, k, "no such job in `jobs`")),
            }
        }
        Tree::CampaignStats => match keys::parse_pair(k) {
            Some((c, _)) if campaigns.contains(&c) => Ok(()),
            _ => Err(mismatch(tree, k, "a sample of a campaign that does not exist")),
        },
        Tree::PoolEpochs => match keys::parse_id(k) {
            Some(c) if campaigns.contains(&c) => Ok(()),
            _ => Err(mismatch(tree, k, "the epoch of a campaign that does not exist")),
        },
        Tree::SeedCandidates => match keys::parse_pair(k) {
            Some((c, _)) if campaigns.contains(&c) => Ok(()),
            _ => Err(mismatch(tree, k, "a seed candidate of a campaign that does not exist")),
        },
        _ => Ok(()),
    }
}
