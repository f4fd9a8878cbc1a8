//! The coverage seed pool, handed to workers by epoch. `tcfuzz fuzz` changes the pool the
//! coverage-guided family mutates only between epochs of `pool_epoch` programs, so that program
//! `i` is a function of the seed, `i`, the config and the corpus, whatever the parallelism. A
//! coordinator campaign with pool epochs does the same: the jobs of epoch k are queued only once
//! every program before `k * pool_epoch` is recorded, and generated with a snapshot of the pool
//! taken then, which workers fetch with `Coordinator.SeedPool`.
//!
//! The pool is the corpus's, as `tcfuzz fuzz` reads it: every seed, oldest first, each with how
//! many programs had reached its features; past [`MAX_POOL_BYTES`] only the newest seeds that
//! fit, as `tcfuzz fuzz` keeps them. This mirror of it is loaded once with the state and
//! kept up to date by the ledger thread as it records results, so a snapshot never depends on
//! which writes have reached the disk yet. When an epoch begins, where its pool ends (the newest
//! seed) and the counts it was taken with are stored with the campaign
//! ([`tcfuzz_corpus::PoolEpoch`]), so that a coordinator restarted in the middle of an epoch
//! serves the very same snapshot ([`SeedMirror::resume`]).

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use tcfuzz_corpus::{Corpus, PoolEpoch};
use tcfuzz_proto::{MAX_POOL_BYTES, pool_bytes, v1};

use crate::error::ServiceError;

struct Seed {
    id: u64,
    program: String,
    features: Vec<String>,
}

/// The corpus's seeds and coverage counts, as the ledger has recorded them.
pub struct SeedMirror {
    seeds: Vec<Seed>,
    counts: HashMap<String, u64>,
}

/// The seeds one epoch is generated with.
pub type Snapshot = Arc<Vec<v1::PoolSeed>>;

impl SeedMirror {
    pub fn load(corpus: &Corpus) -> Result<SeedMirror, ServiceError> {
        let mut seeds = Vec::new();
        for s in corpus.seeds() {
            let s = s?;
            seeds.push(Seed { id: s.id, program: s.program, features: s.features });
        }
        let counts = corpus.coverage()?.into_iter().map(|(f, c)| (f, c.count)).collect();
        Ok(SeedMirror { seeds, counts })
    }

    /// `n` more programs reached `feature`.
    pub fn reached(&mut self, feature: &str, n: u64) {
        match self.counts.get_mut(feature) {
            Some(c) => *c = c.saturating_add(n),
            None => {
                self.counts.insert(feature.to_string(), n);
            }
        }
    }

    /// The corpus added seed `id`.
    pub fn added(&mut self, id: u64, features: Vec<String>, program: &str) {
        self.seeds.push(Seed { id, program: program.to_string(), features });
    }

    /// The pool now, for campaign `campaign`'s epoch that ends at program `end`: the snapshot,
    /// and the record that brings it back after a restart.
    pub fn begin_epoch(&self, campaign: u64, end: u64) -> (Snapshot, PoolEpoch) {
        let seeds_through = self.seeds.last().map_or(0, |s| s.id);
        let snapshot = self.snapshot(seeds_through, |f| self.counts.get(f).copied());
        let counts: BTreeMap<&str, u64> = snapshot.iter().flat_map(|s| s.features.iter().map(|f| (f.name.as_str(), f.count))).collect();
        let counts = counts.into_iter().map(|(f, n)| (f.to_string(), n)).collect();
        (snapshot, PoolEpoch { campaign, end, seeds_through, counts })
    }

    /// The snapshot an epoch began with (seeds are never removed, so the same seeds are there).
    pub fn resume(&self, epoch: &PoolEpoch) -> Snapshot {
        let counts: HashMap<&str, u64> = epoch.counts.iter().map(|(f, n)| (f.as_str(), *n)).collect();
        self.snapshot(epoch.seeds_through, |f| counts.get(f).copied())
    }

    /// The seeds up to id `through`: the newest that fit in [`MAX_POOL_BYTES`] (as `tcfuzz fuzz`
    /// keeps them), oldest first, each feature with `count` of it (at least 1).
    fn snapshot(&self, through: u64, count: impl Fn(&str) -> Option<u64>) -> Snapshot {
        let pool: Vec<&Seed> = self.seeds.iter().filter(|s| s.id <= through).collect();
        let kept = tcfuzz_proto::seeds_in_pool(pool.iter().rev().map(|s| pool_bytes(&s.program, s.features.iter().map(String::as_str))));
        if kept < pool.len() {
            tracing::warn!(
                seeds = pool.len(),
                kept,
                "the seed pool holds more than {} MiB of programs; its oldest seeds are left out of it (as `tcfuzz fuzz` leaves them out)",
                MAX_POOL_BYTES >> 20
            );
        }
        let out = pool[pool.len() - kept..]
            .iter()
            .map(|s| {
                let features =
                    s.features.iter().map(|f| v1::FeatureCount { name: f.clone(), count: count(f).unwrap_or(1).max(1) }).collect();
                v1::PoolSeed { id: s.id, program: s.program.clone(), features }
            })
            .collect();
        Arc::new(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mirror() -> SeedMirror {
        SeedMirror { seeds: Vec::new(), counts: HashMap::new() }
    }

    #[test]
    fn a_snapshot_lists_seeds_oldest_first_with_the_counts_of_their_features_then() {
        let mut m = mirror();
        m.reached("a", 3);
        m.added(4, vec!["a".into()], "P4");
        m.reached("b", 1);
        m.reached("a", 2);
        m.added(9, vec!["b".into(), "a".into()], "P9");
        let (s, epoch) = m.begin_epoch(3, 2048);
        assert_eq!(s.iter().map(|p| (p.id, p.program.as_str())).collect::<Vec<_>>(), [(4, "P4"), (9, "P9")]);
        let counts: Vec<(&str, u64)> = s[1].features.iter().map(|f| (f.name.as_str(), f.count)).collect();
        assert_eq!(counts, [("b", 1), ("a", 5)]);
        assert_eq!(epoch, PoolEpoch { campaign: 3, end: 2048, seeds_through: 9, counts: vec![("a".into(), 5), ("b".into(), 1)] });
        // Later counts and seeds do not change a snapshot taken before them, nor the one the
        // epoch's record brings back.
        m.reached("b", 10);
        m.added(12, vec!["c".into()], "P12");
        assert_eq!(s[1].features[0].count, 1);
        assert_eq!(m.resume(&epoch), s);
        let (now, _) = m.begin_epoch(3, 4096);
        assert_eq!((now.len(), now[1].features[0].count), (3, 11));
    }

    #[test]
    fn a_pool_past_the_size_limit_keeps_its_newest_seeds() {
        let mut m = mirror();
        let big = "x".repeat(MAX_POOL_BYTES / 3 - 10);
        for id in 1..=5 {
            m.added(id, vec![format!("f{id}")], &big);
        }
        let (s, epoch) = m.begin_epoch(1, 10);
        assert_eq!(s.iter().map(|p| p.id).collect::<Vec<_>>(), [3, 4, 5]);
        assert_eq!(epoch.counts.len(), 3, "the counts of the seeds in the snapshot only");
        assert_eq!(m.resume(&epoch), s);
    }
}
