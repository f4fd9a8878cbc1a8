//! Seed-pool epochs of coordinator campaigns: what a coordinator must not forget in the middle of
//! an epoch, so that a restart goes on with the same pool and adds the same seeds.
//!
//! A campaign with epochs changes the seed pool only between epochs, and at an epoch's end adds
//! the epoch's seeds in program-index order (as `tcfuzz fuzz` does), whatever order the workers'
//! reports came in. So during an epoch the corpus keeps:
//! - `pool_epochs`: where the epoch ends and the pool its programs are generated with (the newest
//!   seed in it and the feature counts it was taken with): one record per campaign, written when
//!   an epoch begins;
//! - `seed_candidates`: each program of the epoch that reached a feature first reached in the
//!   epoch, with those features, written with the report that brought it (before that report is
//!   acknowledged) and removed when the epoch ends and its seeds are chosen. A candidate without
//!   a program takes its features as the others do but becomes no seed.
//!
//! Which candidate becomes a seed is the coordinator's rule; the corpus only keeps them.

use crate::codec::{DecodeError, Decoder, Encoder};
use crate::corpus::{Corpus, Update, valid_program};
use crate::error::{CorpusError, Result};
use crate::records::{Record, keys};
use crate::store::{Tree, prefix_end};

/// A campaign's current seed-pool epoch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PoolEpoch {
    pub campaign: u64,
    /// The first program index past the epoch.
    pub end: u64,
    /// The newest seed (by id) in the epoch's pool: the pool is the seeds up to it.
    pub seeds_through: u64,
    /// How many programs had reached each feature of the pool's seeds when the epoch began.
    pub counts: Vec<(String, u64)>,
}

/// A program of the current epoch that reached features first reached in the epoch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SeedCandidate {
    pub campaign: u64,
    pub index: u64,
    /// Those features, in the order the program reached them.
    pub features: Vec<String>,
    /// `None`: the program takes its features and makes no seed (its check was too long for its
    /// mutants to be worth making).
    pub program: Option<String>,
}

impl Record for PoolEpoch {
    const TREE: Tree = Tree::PoolEpochs;
    const VERSION: u8 = 1;
    fn encode(&self, e: &mut Encoder) {
        let (names, counts): (Vec<String>, Vec<u64>) = self.counts.iter().cloned().unzip();
        e.u64(self.campaign).u64(self.end).u64(self.seeds_through).strs(&names).u64s(&counts);
    }
    fn decode(d: &mut Decoder<'_>) -> Result<Self, DecodeError> {
        let (campaign, end, seeds_through) = (d.u64("campaign")?, d.u64("end")?, d.u64("seeds_through")?);
        let (names, counts) = (d.strs("feature names")?, d.u64s("feature counts")?);
        if names.len() != counts.len() {
            return Err(DecodeError::Corrupt(format!("{} feature names but {} counts", names.len(), counts.len())));
        }
        Ok(PoolEpoch { campaign, end, seeds_through, counts: names.into_iter().zip(counts).collect() })
    }
}

impl Record for SeedCandidate {
    const TREE: Tree = Tree::SeedCandidates;
    /// Version 2 made the program optional (a flag byte before it).
    const VERSION: u8 = 2;
    fn encode(&self, e: &mut Encoder) {
        e.u64(self.campaign).u64(self.index).strs(&self.features);
        match &self.program {
            Some(p) => e.u8(1).str(p),
            None => e.u8(0),
        };
    }
    fn decode(d: &mut Decoder<'_>) -> Result<Self, DecodeError> {
        decode_candidate(d, Self::VERSION)
    }

    fn from_value(value: &[u8]) -> Result<Self, DecodeError> {
        // A version 1 candidate always has its program.
        let (mut d, version) = Decoder::open_versions(value, 1, Self::VERSION)?;
        let c = decode_candidate(&mut d, version)?;
        d.end()?;
        Ok(c)
    }
}

fn decode_candidate(d: &mut Decoder<'_>, version: u8) -> Result<SeedCandidate, DecodeError> {
    let (campaign, index, features) = (d.u64("campaign")?, d.u64("index")?, d.strs("features")?);
    let program = match if version >= 2 { d.u8("program flag")? } else { 1 } {
        0 => None,
        1 => Some(d.str("program")?),
        other => return Err(DecodeError::Corrupt(format!("program flag {other} is neither 0 nor 1"))),
    };
    Ok(SeedCandidate { campaign, index, features, program })
}

impl Update<'_> {
    /// Begins a campaign's epoch (replacing the one before).
    pub fn put_pool_epoch(&mut self, epoch: &PoolEpoch) {
        self.put(&keys::id(epoch.campaign), epoch);
    }

    /// Forgets a campaign's epoch (the campaign ended).
    pub fn remove_pool_epoch(&mut self, campaign: u64) {
        self.remove(Tree::PoolEpochs, &keys::id(campaign));
    }

    /// Keeps a candidate until its epoch ends. The program, if any, must be a valid litmus
    /// program and the candidate name at least one feature.
    pub fn add_seed_candidate(&mut self, c: &SeedCandidate) -> Result<()> {
        if let Some(p) = &c.program {
            valid_program(p, &format!("seed candidate {} of campaign {}", c.index, c.campaign))?;
        }
        if c.features.is_empty() {
            return Err(CorpusError::Invalid(format!("seed candidate {} of campaign {} names no feature", c.index, c.campaign)));
        }
        self.put(&keys::pair(c.campaign, c.index), c);
        Ok(())
    }

    /// Removes a candidate (its epoch ended).
    pub fn remove_seed_candidate(&mut self, campaign: u64, index: u64) {
        self.remove(Tree::SeedCandidates, &keys::pair(campaign, index));
    }
}

impl Corpus {
    /// The campaign's current seed-pool epoch, if it has one.
    pub fn pool_epoch(&self, campaign: u64) -> Result<Option<PoolEpoch>> {
        self.get(Tree::PoolEpochs, &keys::id(campaign))
    }

    /// The campaign's seed candidates, by program index.
    pub fn seed_candidates(&self, campaign: u64) -> Result<Vec<SeedCandidate>> {
        let start = keys::id(campaign);
        let end = prefix_end(&start);
        self.scan(Tree::SeedCandidates, &start, end.as_deref()).map(|r| r.map(|(_, c)| c)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn epoch_records_round_trip_and_unequal_counts_are_corrupt() {
        let e = PoolEpoch { campaign: 3, end: 2048, seeds_through: 17, counts: vec![("a".into(), 4), ("b".into(), 1)] };
        assert_eq!(PoolEpoch::from_value(&e.to_value()), Ok(e));
        let c = SeedCandidate { campaign: 3, index: 1030, features: vec!["x".into(), "y".into()], program: Some("PTX p".into()) };
        assert_eq!(SeedCandidate::from_value(&c.to_value()), Ok(c.clone()));
        let taker = SeedCandidate { program: None, ..c.clone() };
        assert_eq!(SeedCandidate::from_value(&taker.to_value()), Ok(taker));
        // Version 1, from before a candidate could lack its program, reads with it.
        let mut v1 = Encoder::new(1);
        v1.u64(3).u64(1030).strs(&["x".into(), "y".into()]).str("PTX p");
        assert_eq!(SeedCandidate::from_value(&v1.finish()), Ok(c));
        let mut flag = Encoder::new(2);
        flag.u64(3).u64(1030).strs(&["x".into()]).u8(7);
        assert_eq!(SeedCandidate::from_value(&flag.finish()), Err(DecodeError::Corrupt("program flag 7 is neither 0 nor 1".into())));
        let mut bad = Encoder::new(1);
        bad.u64(3).u64(2048).u64(17).strs(&["a".into()]).u64s(&[]);
        assert_eq!(PoolEpoch::from_value(&bad.finish()), Err(DecodeError::Corrupt("1 feature names but 0 counts".into())));
    }
}
