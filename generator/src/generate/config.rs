//! The generator configuration: which families, with which weights and knobs. It is part of what
//! a program is a function of, so it travels with every job (as JSON in `tcfuzz fuzz --config`,
//! and in the campaign record).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::pattern::Pattern;
use crate::random::Family;

/// Weights of the four generator families (0 turns one off).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct FamilyWeights {
    /// The random generators of `random/`, wrapped ([`GeneratorConfig::random`]).
    pub random: u32,
    /// Programs composed of the spec's canonical patterns ([`crate::pattern`]).
    pub pattern: u32,
    /// A pattern program with one synchronization step removed or weakened.
    pub mutant: u32,
    /// A seed of the pool, mutated ([`crate::mutate`]); a random program while the pool is empty.
    pub coverage: u32,
}

impl Default for FamilyWeights {
    fn default() -> Self {
        FamilyWeights { random: 55, pattern: 15, mutant: 10, coverage: 20 }
    }
}

/// Knobs of the coverage-guided family.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CoverageKnobs {
    /// Most edits per program.
    pub edits: u32,
    pub max_threads: usize,
    pub max_instructions: usize,
}

impl Default for CoverageKnobs {
    fn default() -> Self {
        CoverageKnobs { edits: 3, max_threads: 4, max_instructions: 12 }
    }
}

/// Everything a program depends on besides the campaign seed, its index and the seed pool.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct GeneratorConfig {
    pub families: FamilyWeights,
    /// Weights of the random generators by name (`ptx`, `sync`, `tileir`, `tcgen05`, `assume`,
    /// ...); a generator not named weighs 0.
    pub random: BTreeMap<String, u32>,
    /// Weights of the patterns by name (for the pattern and the mutant family); a pattern not
    /// named weighs 0.
    pub patterns: BTreeMap<String, u32>,
    /// Give a random PTX program whose condition is `exists (true)` a condition over its loads
    /// that the generator predicts is interesting ([`super::condition`]).
    pub interesting_conditions: bool,
    /// Percent of random generic-memory PTX programs whose threads are placed anew: all in one
    /// cluster, or one of them on a second GPU (scopes then decide more).
    pub spread_placements: u8,
    pub coverage: CoverageKnobs,
}

impl Default for GeneratorConfig {
    fn default() -> Self {
        GeneratorConfig {
            families: FamilyWeights::default(),
            random: Family::ALL.iter().map(|f| (f.name().to_string(), default_random_weight(*f))).collect(),
            patterns: Pattern::ALL.iter().map(|p| (p.name().to_string(), 1)).collect(),
            interesting_conditions: true,
            spread_placements: 25,
            coverage: CoverageKnobs::default(),
        }
    }
}

/// The default weight of a random generator: Tile IR programs cost about ten times as much to
/// check as the PTX ones (every element is an event; `tcfuzz fuzz` per-family figures), so they
/// get less of the time; a generator added later gets weight 1 until someone decides.
fn default_random_weight(f: Family) -> u32 {
    match f {
        Family::Ptx => 3,
        Family::TileIr => 1,
        // A variant of `ptx` (the mixed-proxy edit of the coverage-guided family reaches the
        // same programs): a share of the random programs, not a family's worth.
        Family::Proxy => 1,
        _ => 2,
    }
}

/// A configuration that names something unknown or weighs everything 0.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigError {
    #[error("generator config: {0}")]
    UnknownFamily(#[from] crate::random::UnknownFamily),
    #[error("generator config: {0}")]
    UnknownPattern(#[from] crate::pattern::UnknownPattern),
    #[error("generator config: {0}")]
    NothingToGenerate(String),
}
