//! The storage engine behind the corpus, as a small trait of our own (Garage's `src/db`): the
//! corpus never names sled outside [`sled`], so another engine needs one adapter file and passes
//! the same test suite (`suite.rs`, run against every engine).
//!
//! The model is a set of named trees of byte keys and byte values, sorted by key; a batch of
//! writes to several trees is applied atomically, and [`Store::flush`] returns once everything
//! applied is durable.

mod memory;
mod sled;
#[cfg(test)]
mod suite;

pub use self::memory::MemoryStore;
pub use self::sled::SledStore;

use std::fmt;

/// The trees of a corpus. Their names are on disk: a format change gets a new name (Garage's
/// version suffix) or a new value version, never a silent reinterpretation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Tree {
    /// `schema` and `writes` (how many commits the store has applied).
    Meta,
    /// `kind NUL signature` → discrepancy.
    Discrepancies,
    /// Seed id (u64 BE) → a program that added a coverage feature.
    Seeds,
    /// Stable hash of the seed's program (u64 BE) → seed id: no program is stored twice.
    SeedIndex,
    /// Campaign id (u64 BE) → campaign.
    Campaigns,
    /// Campaign id (u64 BE) ++ time in ms (u64 BE) → stats sample: a time series per campaign.
    CampaignStats,
    /// Feature name → how often it was seen.
    Coverage,
    /// Job id (u64 BE) → job.
    Jobs,
    /// Job id (u64 BE) of every queued job, in the order they are handed out.
    JobQueue,
    /// Lease deadline in ms (u64 BE) ++ job id (u64 BE) of every leased job: expired leases are
    /// a prefix scan.
    LeaseDeadlines,
    /// Time in ms (u64 BE) → what a rendered report listed: the baseline of the next report's
    /// diff (new / gone / still open).
    Reports,
    /// Campaign id (u64 BE) → where its current seed-pool epoch ends and the pool it is
    /// generated with.
    PoolEpochs,
    /// Campaign id (u64 BE) ++ program index (u64 BE) → a program of the current epoch that
    /// reached a feature first reached in the epoch: a seed candidate until the epoch ends.
    SeedCandidates,
}

impl Tree {
    pub const ALL: [Tree; 13] = [
        Tree::Meta,
        Tree::Discrepancies,
        Tree::Seeds,
        Tree::SeedIndex,
        Tree::Campaigns,
        Tree::CampaignStats,
        Tree::Coverage,
        Tree::Jobs,
        Tree::JobQueue,
        Tree::LeaseDeadlines,
        Tree::Reports,
        Tree::PoolEpochs,
        Tree::SeedCandidates,
    ];

    /// The tree's name in the store and in error messages.
    pub fn name(self) -> &'static str {
        match self {
            Tree::Meta => "meta",
            Tree::Discrepancies => "discrepancies",
            Tree::Seeds => "seeds",
            Tree::SeedIndex => "seed_index",
            Tree::Campaigns => "campaigns",
            Tree::CampaignStats => "campaign_stats",
            Tree::Coverage => "coverage",
            Tree::Jobs => "jobs",
            Tree::JobQueue => "job_queue",
            Tree::LeaseDeadlines => "lease_deadlines",
            Tree::Reports => "reports",
            Tree::PoolEpochs => "pool_epochs",
            Tree::SeedCandidates => "seed_candidates",
        }
    }
}

impl fmt::Display for Tree {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One write of a batch: `value` `None` removes the key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Write {
    pub tree: Tree,
    pub key: Vec<u8>,
    pub value: Option<Vec<u8>>,
}

/// An error of the engine itself (I/O, its own corruption checks), in its words.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct StoreError(pub String);

/// A key and its value.
pub type Entry = (Vec<u8>, Vec<u8>);

/// Entries of one tree in key order.
pub type Entries<'a> = Box<dyn Iterator<Item = Result<Entry, StoreError>> + 'a>;

/// A storage engine.
pub trait Store: Send + Sync {
    fn get(&self, tree: Tree, key: &[u8]) -> Result<Option<Vec<u8>>, StoreError>;

    /// Entries with `start <= key` and (if `end` is given) `key < end`, in key order.
    fn range<'a>(&'a self, tree: Tree, start: &[u8], end: Option<&[u8]>) -> Entries<'a>;

    /// The entry with the largest key.
    fn last(&self, tree: Tree) -> Result<Option<Entry>, StoreError> {
        self.range(tree, &[], None).last().transpose()
    }

    /// Applies every write or none (also after a crash).
    fn apply(&self, writes: &[Write]) -> Result<(), StoreError>;

    /// Returns once every applied write is on disk.
    fn flush(&self) -> Result<(), StoreError>;

    /// Bytes the engine uses on disk (0 for one that keeps nothing there).
    fn size_on_disk(&self) -> Result<u64, StoreError>;
}

/// The first key after every key that starts with `prefix` (`None`: no such key, the prefix is
/// all 0xff).
pub fn prefix_end(prefix: &[u8]) -> Option<Vec<u8>> {
    let mut end = prefix.to_vec();
    while let Some(last) = end.pop() {
        if last < 0xff {
            end.push(last + 1);
            return Some(end);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::prefix_end;

    #[test]
    fn prefix_end_is_the_next_key_after_the_prefix() {
        assert_eq!(prefix_end(b"ab"), Some(b"ac".to_vec()));
        assert_eq!(prefix_end(&[1, 0xff]), Some(vec![2]));
        assert_eq!(prefix_end(&[0xff, 0xff]), None);
    }
}
