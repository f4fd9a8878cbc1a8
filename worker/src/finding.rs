//! Discrepancies as the executor reports them (DESIGN §4): a kind, a signature, the program and
//! both sides' verdicts. The worker never links the corpus; the kinds carry the corpus's names,
//! which are the stable identifiers.

use std::fmt;

use tcfuzz_checker::ModelKind;
use tcfuzz_generator::pattern::Pattern;

/// The kinds of discrepancy the executor finds without a GPU.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    TileirWeakerThanPtx,
    CompilerLowering,
    ExplorerVsOracle,
    PatternBroken,
    SyncRedundant,
    ReferenceDisagrees,
    CheckerCrash,
}

impl Kind {
    pub const ALL: [Kind; 7] = [
        Kind::TileirWeakerThanPtx,
        Kind::CompilerLowering,
        Kind::ExplorerVsOracle,
        Kind::PatternBroken,
        Kind::SyncRedundant,
        Kind::ReferenceDisagrees,
        Kind::CheckerCrash,
    ];

    /// The name DESIGN §4 and the corpus use.
    pub fn name(self) -> &'static str {
        match self {
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

/// One side of a discrepancy: who judged, and the verdict as text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Side {
    pub name: String,
    pub verdict: String,
}

/// One discrepancy found on one program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    pub kind: Kind,
    /// The kind's minimal identifying facts, never the program's hash: findings with equal kind
    /// and signature are one discrepancy.
    pub signature: String,
    /// The program's index in its campaign.
    pub index: u64,
    /// The program as litmus text, with `//` lines saying where it came from and what was found.
    pub program: String,
    pub sides: [Side; 2],
    /// What was found, on one line.
    pub summary: String,
    /// How to tell whether another program (a smaller one) shows the same discrepancy.
    pub recheck: Recheck,
}

/// What [`crate::Executor::signature`] needs besides a program to recompute a finding's
/// signature: the minimizer's predicate is "same signature" (DESIGN §7).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Recheck {
    pub kind: Kind,
    /// The model the discrepancy showed under (explorer-vs-oracle, pattern-broken,
    /// reference-disagrees).
    pub model: Option<ModelKind>,
    /// The pattern a pattern-broken program was built from.
    pub pattern: Option<Pattern>,
    /// Whether the pattern's condition must be Never.
    pub never: bool,
}

impl Recheck {
    /// Whether a smaller program can show this discrepancy at all: a `sync-redundant` finding is
    /// the absence of a problem, which every smaller program has too — there is nothing to keep.
    pub fn minimizable(&self) -> bool {
        self.kind != Kind::SyncRedundant
    }
}
