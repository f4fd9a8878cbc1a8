//! Discrepancies as the executor reports them (DESIGN §4): a kind, a signature, the program and
//! both sides' verdicts. The worker never links the corpus; the kinds carry the corpus's names,
//! which are the stable identifiers.

use std::fmt;

use tcfuzz_checker::ModelKind;
use tcfuzz_generator::pattern::Pattern;

/// The kinds of discrepancy the executor finds (`gpu-forbidden-outcome` only with a GPU).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
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

    /// The name DESIGN §4 and the corpus use.
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
    /// A `gpu-forbidden-outcome` is not minimized yet: "same signature" would need the GPU in
    /// the minimizer's loop, and a GPU's weak behaviours are too rare for one run per candidate.
    pub fn minimizable(&self) -> bool {
        !matches!(self.kind, Kind::SyncRedundant | Kind::GpuForbiddenOutcome)
    }
}

impl Recheck {
    /// The recheck of a recorded discrepancy, from its kind and signature: what a minimization
    /// job of the services has (the corpus keeps kinds and signatures, not rechecks). The
    /// signatures' formats are this crate's: explorer-vs-oracle's starts with the model's name;
    /// pattern-broken's with the pattern's name, under `ptx` (pattern programs are checked under
    /// `ptx` only), with `never` where the signature names an outcome (a broken Never condition);
    /// reference-disagrees compares under `ptx`. `None` if the signature does not have its
    /// kind's format.
    pub fn from_signature(kind: Kind, signature: &str) -> Option<Recheck> {
        let prefix = signature.split_once(':').map(|(p, _)| p.trim());
        let recheck = |model, pattern, never| Some(Recheck { kind, model, pattern, never });
        match kind {
            Kind::ExplorerVsOracle => {
                let model = crate::config::parse_model(prefix?).ok()?;
                recheck(Some(model), None, false)
            }
            Kind::PatternBroken | Kind::SyncRedundant => {
                let pattern: Pattern = prefix?.parse().ok()?;
                let never = kind == Kind::PatternBroken && signature.contains("outcome ");
                recheck(Some(ModelKind::Ptx), Some(pattern), never)
            }
            Kind::ReferenceDisagrees => recheck(Some(ModelKind::Ptx), None, false),
            // (gpu-forbidden-outcome is not minimized: its recheck would need the GPU again.)
            Kind::TileirWeakerThanPtx | Kind::CompilerLowering | Kind::CheckerCrash | Kind::GpuForbiddenOutcome => {
                recheck(None, None, false)
            }
        }
    }
}

impl std::str::FromStr for Kind {
    type Err = String;
    fn from_str(s: &str) -> Result<Kind, String> {
        Kind::ALL.into_iter().find(|k| k.name() == s).ok_or_else(|| format!("unknown discrepancy kind `{s}`"))
    }
}
