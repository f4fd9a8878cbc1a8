//! [`Corpus`]: opening a corpus directory, reading its records, and [`Update`], the only way to
//! write: a set of changes applied atomically and flushed to disk before [`Update::commit`]
//! returns.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard};

use crate::acked::{self, AckFile};
use crate::codec::DecodeError;
use crate::error::{CorpusError, Result};
use crate::records::{
    Campaign, Discrepancy, FeatureCount, Finding, Job, Kind, MetaU64, Record, ReportRecord, Seed, SeedRef, StatsSample, keys,
};
use crate::store::{MemoryStore, SledStore, Store, Tree, Write, prefix_end};

/// The schema version of the corpus as a whole: the set of trees and their key layouts. Stored in
/// tree `meta` under `schema` and checked at open.
pub const SCHEMA_VERSION: u64 = 1;

/// A corpus: the trees of [`Tree`] in a storage engine, with one writer at a time.
///
/// The on-disk engine ([`SledStore`]) locks its directory, so one process owns a corpus; within
/// it, [`Corpus::update`] serializes writers. Making commits durable ([`Corpus::sync`]) takes a
/// lock of its own, so one writer can apply its next update while the last one is flushed.
pub struct Corpus {
    store: Box<dyn Store>,
    /// Where it lives (`None` in memory), for messages.
    dir: Option<PathBuf>,
    writer: Mutex<WriterState>,
    /// Commits applied so far (`meta/writes` of the last one), durable or not.
    applied: AtomicU64,
    durable: Mutex<Durable>,
}

struct WriterState {
    /// Commits applied so far (`meta/writes`).
    writes: u64,
}

struct Durable {
    ack: Option<AckFile>,
    /// Commits known to be on disk (and counted in the acknowledgement file).
    flushed: u64,
}

/// What recording a finding did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Recorded {
    /// A signature not seen before.
    New,
    /// A known signature: its count is now `count`.
    Seen { count: u64 },
}

pub(crate) fn decode<R: Record>(tree: Tree, key: &[u8], value: &[u8]) -> Result<R> {
    R::from_value(value).map_err(|e| match e {
        DecodeError::UnknownVersion { found, known } => CorpusError::UnknownVersion { tree, key: keys::show(tree, key), found, known },
        DecodeError::Corrupt(reason) => CorpusError::Corrupt { tree, key: keys::show(tree, key), reason },
    })
}

/// Checks that `text` is a valid litmus program; `what` names it in the error.
pub(crate) fn valid_program(text: &str, what: &str) -> Result<()> {
    tcfuzz_litmus::parse(text).map(|_| ()).map_err(|d| {
        let first = d.0.first().map_or_else(|| "no diagnostic".to_string(), |d| d.to_string());
        CorpusError::Invalid(format!("{what}: not a valid litmus program: {first}"))
    })
}

impl Corpus {
    /// Opens the corpus in `dir`, creating it (and `dir`) if there is none. A directory that has
    /// other files but no corpus is refused.
    pub fn open(dir: &Path) -> Result<Corpus> {
        if dir.join(acked::FILE_NAME).exists() {
            return Corpus::open_existing(dir);
        }
        if let Ok(mut entries) = std::fs::read_dir(dir)
            && entries.next().is_some()
        {
            return Err(CorpusError::NotACorpus {
                dir: dir.to_path_buf(),
                reason: format!("has files but no corpus (no `{}`); give an empty or new directory", acked::FILE_NAME),
            });
        }
        std::fs::create_dir_all(dir).map_err(CorpusError::io(dir))?;
        let ack = AckFile::create(dir)?;
        let store = SledStore::open(dir).map_err(CorpusError::store(format!("{}: cannot create the database", dir.display())))?;
        Corpus::from_parts(Box::new(store), Some(dir.to_path_buf()), Some((ack, 0)))
    }

    /// Opens the corpus in `dir`; an error if there is none.
    pub fn open_existing(dir: &Path) -> Result<Corpus> {
        if !dir.join(acked::FILE_NAME).exists() {
            return Err(CorpusError::NotACorpus {
                dir: dir.to_path_buf(),
                reason: format!(
                    "no corpus here (no `{}`); `tcfuzz corpus import --corpus DIR` or a campaign creates one",
                    acked::FILE_NAME
                ),
            });
        }
        let (ack, acknowledged) = AckFile::open(dir)?;
        let store = SledStore::open(dir).map_err(CorpusError::store(format!("{}: cannot open the database", dir.display())))?;
        Corpus::from_parts(Box::new(store), Some(dir.to_path_buf()), Some((ack, acknowledged)))
    }

    /// A corpus that lives in memory only (tests, dry runs).
    pub fn in_memory() -> Result<Corpus> {
        Corpus::from_parts(Box::new(MemoryStore::new()), None, None)
    }

    /// A corpus over any engine, for a new adapter's tests.
    pub fn with_store(store: Box<dyn Store>) -> Result<Corpus> {
        Corpus::from_parts(store, None, None)
    }

    fn from_parts(store: Box<dyn Store>, dir: Option<PathBuf>, ack: Option<(AckFile, u64)>) -> Result<Corpus> {
        let shown = dir.clone().unwrap_or_else(|| PathBuf::from("(in memory)"));
        let get_meta = |key: &[u8]| -> Result<Option<u64>> {
            let value = store.get(Tree::Meta, key).map_err(CorpusError::store(format!("{}: reading tree `meta`", shown.display())))?;
            value.map(|v| decode::<MetaU64>(Tree::Meta, key, &v).map(|m| m.0)).transpose()
        };
        let writes = get_meta(keys::WRITES)?.unwrap_or(0);
        let schema = get_meta(keys::SCHEMA)?;
        let (ack, acknowledged) = match ack {
            Some((a, n)) => (Some(a), n),
            None => (None, 0),
        };
        if writes < acknowledged {
            return Err(CorpusError::LostWrites { dir: shown, acknowledged, found: writes });
        }
        let corpus = Corpus {
            store,
            dir,
            writer: Mutex::new(WriterState { writes }),
            applied: AtomicU64::new(writes),
            durable: Mutex::new(Durable { ack, flushed: writes }),
        };
        match schema {
            Some(found) if found == SCHEMA_VERSION => Ok(corpus),
            Some(found) => {
                Err(CorpusError::Schema { dir: shown, found: u32::try_from(found).unwrap_or(u32::MAX), expected: SCHEMA_VERSION as u32 })
            }
            None if writes == 0 => {
                let mut u = corpus.update()?;
                u.put(keys::SCHEMA, &MetaU64(SCHEMA_VERSION));
                u.commit()?;
                Ok(corpus)
            }
            None => Err(CorpusError::Corrupt {
                tree: Tree::Meta,
                key: "`schema`".into(),
                reason: format!("missing, although {writes} commits were made"),
            }),
        }
    }

    /// The directory, or `(in memory)`.
    pub fn location(&self) -> String {
        self.dir.as_ref().map_or_else(|| "(in memory)".to_string(), |d| d.display().to_string())
    }

    /// Bytes the database takes on disk.
    pub fn size_on_disk(&self) -> Result<u64> {
        self.store.size_on_disk().map_err(CorpusError::store(self.location()))
    }

    pub(crate) fn store(&self) -> &dyn Store {
        &*self.store
    }

    /// Begins a set of changes. Other writers wait until it is committed or dropped.
    pub fn update(&self) -> Result<Update<'_>> {
        let guard = self.writer.lock().map_err(|_| CorpusError::Invalid(format!("{}: a writer panicked mid-update", self.location())))?;
        Ok(Update {
            corpus: self,
            guard,
            pending: BTreeMap::new(),
            next_ids: BTreeMap::new(),
            lease_cursor: None,
            fresh_jobs: BTreeSet::new(),
        })
    }

    /// Records one finding and returns once it is on disk ([`Update::record_discrepancy`]).
    pub fn record_discrepancy(&self, finding: &Finding) -> Result<Recorded> {
        let mut u = self.update()?;
        let r = u.record_discrepancy(finding)?;
        u.commit()?;
        Ok(r)
    }

    /// Every record of `tree` with its key, in key order; the first damaged one ends it with an
    /// error.
    pub(crate) fn scan<'a, R: Record + 'a>(
        &'a self,
        tree: Tree,
        start: &[u8],
        end: Option<&[u8]>,
    ) -> impl Iterator<Item = Result<(Vec<u8>, R)>> + 'a {
        let context = format!("{}: reading tree `{tree}`", self.location());
        self.store.range(tree, start, end).map(move |entry| {
            let (k, v) = entry.map_err(CorpusError::store(context.clone()))?;
            let r = decode::<R>(tree, &k, &v)?;
            Ok((k, r))
        })
    }

    pub(crate) fn get<R: Record>(&self, tree: Tree, key: &[u8]) -> Result<Option<R>> {
        let value = self.store.get(tree, key).map_err(CorpusError::store(format!("{}: reading tree `{tree}`", self.location())))?;
        value.map(|v| decode(tree, key, &v)).transpose()
    }

    pub fn discrepancies(&self) -> impl Iterator<Item = Result<Discrepancy>> + '_ {
        self.scan(Tree::Discrepancies, &[], None).map(|r| r.map(|(_, d)| d))
    }

    pub fn discrepancy(&self, kind: Kind, signature: &str) -> Result<Option<Discrepancy>> {
        self.get(Tree::Discrepancies, &keys::discrepancy(kind, signature))
    }

    pub fn seeds(&self) -> impl Iterator<Item = Result<Seed>> + '_ {
        self.scan(Tree::Seeds, &[], None).map(|r| r.map(|(_, s)| s))
    }

    /// The reports rendered so far, oldest first.
    pub fn reports(&self) -> Result<Vec<ReportRecord>> {
        self.scan(Tree::Reports, &[], None).map(|r| r.map(|(_, c)| c)).collect()
    }

    pub fn campaigns(&self) -> Result<Vec<Campaign>> {
        self.scan(Tree::Campaigns, &[], None).map(|r| r.map(|(_, c)| c)).collect()
    }

    /// The stats samples of one campaign, oldest first.
    pub fn stats(&self, campaign: u64) -> Result<Vec<StatsSample>> {
        let start = keys::id(campaign);
        let end = prefix_end(&start);
        self.scan(Tree::CampaignStats, &start, end.as_deref()).map(|r| r.map(|(_, s)| s)).collect()
    }

    /// Every coverage feature with its count, by name.
    pub fn coverage(&self) -> Result<Vec<(String, FeatureCount)>> {
        self.scan(Tree::Coverage, &[], None).map(|r| r.map(|(k, c)| (String::from_utf8_lossy(&k).into_owned(), c))).collect()
    }

    pub fn jobs(&self) -> Result<Vec<Job>> {
        self.scan(Tree::Jobs, &[], None).map(|r| r.map(|(_, j)| j)).collect()
    }

    pub fn job(&self, id: u64) -> Result<Option<Job>> {
        self.get(Tree::Jobs, &keys::id(id))
    }

    /// Entries per tree (meta included).
    pub fn counts(&self) -> Result<Vec<(Tree, u64)>> {
        let context = format!("{}: counting", self.location());
        Tree::ALL
            .iter()
            .map(|&t| {
                let mut n = 0;
                for e in self.store.range(t, &[], None) {
                    e.map_err(CorpusError::store(context.clone()))?;
                    n += 1;
                }
                Ok((t, n))
            })
            .collect()
    }
}

/// A set of changes to a corpus, applied atomically by [`Update::commit`]. Reads see the
/// update's own writes. Dropping it without committing writes nothing.
pub struct Update<'a> {
    corpus: &'a Corpus,
    guard: MutexGuard<'a, WriterState>,
    pending: BTreeMap<(Tree, Vec<u8>), Option<Vec<u8>>>,
    /// The next id to hand out per tree, once one was handed out in this update.
    next_ids: BTreeMap<Tree, u64>,
    /// The last job [`Update::lease_next`] leased in this update (`jobs.rs`).
    pub(crate) lease_cursor: Option<u64>,
    /// Jobs this update queued (`jobs.rs`): their queue entries are not in the store, so a job
    /// leased in the same update drops its entry instead of writing an entry and its removal.
    pub(crate) fresh_jobs: BTreeSet<u64>,
}

impl<'a> Update<'a> {
    pub(crate) fn get<R: Record>(&self, key: &[u8]) -> Result<Option<R>> {
        match self.pending.get(&(R::TREE, key.to_vec())) {
            Some(Some(v)) => decode(R::TREE, key, v).map(Some),
            Some(None) => Ok(None),
            None => self.corpus.get(R::TREE, key),
        }
    }

    /// Like [`Update::get`] in another tree than the record's own (index entries).
    pub(crate) fn get_in<R: Record>(&self, tree: Tree, key: &[u8]) -> Result<Option<R>> {
        match self.pending.get(&(tree, key.to_vec())) {
            Some(Some(v)) => decode(tree, key, v).map(Some),
            Some(None) => Ok(None),
            None => self.corpus.get(tree, key),
        }
    }

    pub(crate) fn put<R: Record>(&mut self, key: &[u8], record: &R) {
        self.pending.insert((R::TREE, key.to_vec()), Some(record.to_value()));
    }

    pub(crate) fn put_in<R: Record>(&mut self, tree: Tree, key: &[u8], record: &R) {
        self.pending.insert((tree, key.to_vec()), Some(record.to_value()));
    }

    pub(crate) fn remove(&mut self, tree: Tree, key: &[u8]) {
        self.pending.insert((tree, key.to_vec()), None);
    }

    /// Forgets a write of this update to a key the store does not hold, so that the update
    /// writes nothing there (not even a removal).
    pub(crate) fn forget(&mut self, tree: Tree, key: &[u8]) {
        self.pending.remove(&(tree, key.to_vec()));
    }

    pub(crate) fn corpus(&self) -> &'a Corpus {
        self.corpus
    }

    /// A fresh id in `tree` (ids are u64 BE keys): one past the largest key stored or handed out.
    pub(crate) fn next_id(&mut self, tree: Tree) -> Result<u64> {
        let next = match self.next_ids.get(&tree) {
            Some(&n) => n,
            None => {
                let last = self
                    .corpus
                    .store
                    .last(tree)
                    .map_err(CorpusError::store(format!("{}: reading tree `{tree}`", self.corpus.location())))?;
                match last {
                    None => 1,
                    Some((k, _)) => {
                        keys::parse_id(&k).ok_or_else(|| CorpusError::Corrupt {
                            tree,
                            key: keys::show(tree, &k),
                            reason: "not an 8-byte id".into(),
                        })? + 1
                    }
                }
            }
        };
        self.next_ids.insert(tree, next + 1);
        Ok(next)
    }

    /// Records one finding: a new signature stores the program and both verdicts; a known one
    /// counts it, moves `last_seen` and adds the campaign. The program must be a valid litmus
    /// program (workers are not trusted, DESIGN §5).
    pub fn record_discrepancy(&mut self, f: &Finding) -> Result<Recorded> {
        valid_program(&f.program, &format!("finding `{}` / `{}`", f.kind, f.signature))?;
        let key = keys::discrepancy(f.kind, &f.signature);
        let (record, recorded) = match self.get::<Discrepancy>(&key)? {
            Some(mut d) => {
                d.count += 1;
                d.first_seen_ms = d.first_seen_ms.min(f.seen_ms);
                d.last_seen_ms = d.last_seen_ms.max(f.seen_ms);
                if let Err(at) = d.campaigns.binary_search(&f.campaign) {
                    d.campaigns.insert(at, f.campaign);
                }
                let count = d.count;
                (d, Recorded::Seen { count })
            }
            None => (
                Discrepancy {
                    kind: f.kind,
                    signature: f.signature.clone(),
                    first_seen_ms: f.seen_ms,
                    last_seen_ms: f.seen_ms,
                    count: 1,
                    campaigns: vec![f.campaign],
                    program: f.program.clone(),
                    minimized: None,
                    sides: f.sides.clone(),
                },
                Recorded::New,
            ),
        };
        self.put(&key, &record);
        Ok(recorded)
    }

    /// Stores the minimized program of a recorded discrepancy.
    pub fn set_minimized(&mut self, kind: Kind, signature: &str, program: &str) -> Result<()> {
        valid_program(program, &format!("minimized program of `{kind}` / `{signature}`"))?;
        let key = keys::discrepancy(kind, signature);
        let mut d = self
            .get::<Discrepancy>(&key)?
            .ok_or_else(|| CorpusError::Invalid(format!("no discrepancy `{kind}` / `{signature}` to minimize")))?;
        d.minimized = Some(program.to_string());
        self.put(&key, &d);
        Ok(())
    }

    /// Adds a program that reached new coverage features; `None` if the same program text is
    /// already a seed.
    pub fn add_seed(&mut self, campaign: u64, added_ms: u64, features: &[String], program: &str) -> Result<Option<u64>> {
        valid_program(program, "coverage seed")?;
        let hash_key = keys::id(crate::codec::stable_hash(program.as_bytes()));
        if let Some(SeedRef(id)) = self.get_in::<SeedRef>(Tree::SeedIndex, &hash_key)?
            && self.get::<Seed>(&keys::id(id))?.is_some_and(|s| s.program == program)
        {
            return Ok(None);
        }
        let id = self.next_id(Tree::Seeds)?;
        self.put(&keys::id(id), &Seed { id, campaign, added_ms, features: features.to_vec(), program: program.to_string() });
        self.put_in(Tree::SeedIndex, &hash_key, &SeedRef(id));
        Ok(Some(id))
    }

    /// Counts each feature once more; returns how many were never seen before.
    pub fn add_coverage(&mut self, features: &[String], seen_ms: u64) -> Result<u64> {
        let mut new = 0;
        for f in features {
            new += u64::from(self.add_feature(f, 1, seen_ms)?);
        }
        Ok(new)
    }

    /// Counts each feature `count` times more (a batch of programs that reached it, as a
    /// worker's job reports it); returns how many were never seen before.
    pub fn add_coverage_counts(&mut self, features: &[(String, u64)], seen_ms: u64) -> Result<u64> {
        let mut new = 0;
        for (f, n) in features {
            new += u64::from(self.add_feature(f, *n, seen_ms)?);
        }
        Ok(new)
    }

    /// Adds `n` to a feature's count; `true` if it was new.
    fn add_feature(&mut self, feature: &str, n: u64, seen_ms: u64) -> Result<bool> {
        let key = feature.as_bytes();
        let (c, new) = match self.get::<FeatureCount>(key)? {
            Some(c) => (FeatureCount { count: c.count.saturating_add(n), ..c }, false),
            None => (FeatureCount { count: n, first_seen_ms: seen_ms }, true),
        };
        self.put(key, &c);
        Ok(new)
    }

    /// Stores a campaign (a new one if `campaign.id` is 0: the id is assigned and returned).
    pub fn put_campaign(&mut self, campaign: &Campaign) -> Result<u64> {
        let id = if campaign.id == 0 { self.next_id(Tree::Campaigns)? } else { campaign.id };
        self.put(&keys::id(id), &Campaign { id, ..campaign.clone() });
        Ok(id)
    }

    /// Records what a rendered report listed (a report at the same ms replaces it).
    pub fn put_report(&mut self, report: &ReportRecord) {
        self.put(&keys::id(report.at_ms), report);
    }

    /// Appends a stats sample to a campaign's time series (a sample at the same ms replaces it).
    pub fn add_stats(&mut self, campaign: u64, sample: &StatsSample) -> Result<()> {
        if self.get::<Campaign>(&keys::id(campaign))?.is_none() {
            return Err(CorpusError::Invalid(format!("stats for campaign {campaign}, which does not exist")));
        }
        self.put(&keys::pair(campaign, sample.at_ms), sample);
        Ok(())
    }

    /// Applies every change atomically and returns once it is on disk: the engine has flushed and
    /// the acknowledgement file counts the commit.
    pub fn commit(self) -> Result<()> {
        let corpus = self.corpus;
        let commit = self.apply()?;
        corpus.sync(commit)
    }

    /// Applies every change atomically, visible to every reader at once, but not yet durable:
    /// returns the commit's number, which [`Corpus::sync`] makes durable. A caller that answers
    /// anyone about this update (or about what it read) does so only after that sync. The
    /// number of an update that changed nothing is that of the last commit (what it read may be
    /// from a commit not yet durable).
    pub fn apply(mut self) -> Result<u64> {
        if self.pending.is_empty() {
            return Ok(self.guard.writes);
        }
        let writes = self.guard.writes + 1;
        self.put(keys::WRITES, &MetaU64(writes));
        let batch: Vec<Write> =
            std::mem::take(&mut self.pending).into_iter().map(|((tree, key), value)| Write { tree, key, value }).collect();
        let corpus = self.corpus;
        corpus.store.apply(&batch).map_err(CorpusError::store(format!("{}: cannot write", corpus.location())))?;
        self.guard.writes = writes;
        corpus.applied.store(writes, Ordering::Release);
        Ok(writes)
    }
}

impl Corpus {
    /// Returns once commit `commit` and every commit before it are on disk: the engine has
    /// flushed and the acknowledgement file counts them. One flush covers every commit applied
    /// before it began (group commit), so a sync that finds its commit flushed returns at once.
    pub fn sync(&self, commit: u64) -> Result<()> {
        let mut durable = self.durable.lock().map_err(|_| CorpusError::Invalid(format!("{}: a sync panicked", self.location())))?;
        if durable.flushed >= commit {
            return Ok(());
        }
        // Every commit up to `applied` is in the engine before this flush begins.
        let applied = self.applied.load(Ordering::Acquire);
        self.store.flush().map_err(CorpusError::store(format!("{}: cannot flush to disk", self.location())))?;
        if let Some(ack) = durable.ack.as_mut() {
            ack.acknowledge(applied)?;
        }
        durable.flushed = applied;
        Ok(())
    }
}
