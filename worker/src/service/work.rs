//! The seam between the network loop and the fuzzing core: what the loop needs of whatever runs
//! its jobs, defined here by its consumer (STYLE lesson 3). [`crate::service::FuzzRunner`] runs
//! them with the crate's [`crate::Executor`]; tests implement [`JobRunner`] in a few lines.

use std::ops::Range;
use std::sync::Arc;
use std::time::Duration;

use tcfuzz_proto::v1::{DiscrepancyKind, PoolSeed};

use crate::GpuStats;

/// What a job is about: program `i` of the campaign is a function of `(seed, i, config)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Campaign {
    pub id: u64,
    pub seed: u64,
    /// The fuzzing configuration (JSON, `tcfuzz fuzz --config`'s format; empty for the defaults).
    pub config: String,
    /// A program whose check takes longer is counted as too large.
    pub program_budget: Duration,
}

/// The coverage seeds a range is generated with: the coordinator's snapshot for one seed-pool
/// epoch of the campaign (`Coordinator.SeedPool`), shared by the jobs of that epoch.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Seeds {
    pub epoch: u64,
    pub seeds: Arc<Vec<PoolSeed>>,
}

/// One discrepancy on one program, as the coordinator records it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Discrepancy {
    pub kind: DiscrepancyKind,
    pub signature: String,
    pub index: u64,
    pub program: String,
    /// Who judged and what they said, both sides.
    pub sides: [(String, String); 2],
}

/// A program that reached coverage features this worker had not seen.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SeedCandidate {
    pub index: u64,
    pub features: Vec<String>,
    /// `None`: the program takes its features but makes no seed ([`crate::Candidate`]).
    pub program: Option<String>,
}

/// What checking a range of programs found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Output {
    pub programs: u64,
    pub executions: u64,
    pub too_large: u64,
    /// What the GPU oracle did, where this worker has a GPU.
    pub gpu: GpuStats,
    pub findings: Vec<Discrepancy>,
    /// Feature → programs that reached it.
    pub coverage: Vec<(String, u64)>,
    pub seeds: Vec<SeedCandidate>,
}

impl Output {
    /// Adds another range's output (careful mode checks one program at a time).
    pub fn merge(&mut self, other: Output) {
        self.programs += other.programs;
        self.executions += other.executions;
        self.too_large += other.too_large;
        self.gpu.add(&other.gpu);
        self.findings.extend(other.findings);
        self.seeds.extend(other.seeds);
        for (name, n) in other.coverage {
            match self.coverage.iter_mut().find(|(f, _)| *f == name) {
                Some((_, m)) => *m += n,
                None => self.coverage.push((name, n)),
            }
        }
    }
}

/// The job could not run at all (its configuration does not parse, say); reported to the
/// coordinator, which stops the campaign.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct JobError(pub String);

/// The fuzzing core, as the worker loop sees it. Called on the worker's thread pool, never on the
/// async runtime; each call may take seconds.
pub trait JobRunner: Send + Sync + 'static {
    /// Program `index` of the campaign, generated with `seeds` (none: an empty pool), as litmus
    /// text: what a careful worker names before it checks the program.
    fn program(&self, campaign: &Campaign, index: u64, seeds: Option<&Seeds>) -> Result<String, JobError>;

    /// Generates (with `seeds`) and checks programs `range` of the campaign, under every model
    /// that applies, with the oracles; a panic of the checker on one program is a
    /// `checker-crash` finding, not a failure of the range.
    fn run(&self, campaign: &Campaign, range: Range<u64>, seeds: Option<&Seeds>) -> Result<Output, JobError>;

    /// Minimizes `program` while it keeps showing discrepancy `(kind, signature)` under the
    /// campaign's configuration, within `budget`; `None` if it does not show it or cannot be
    /// minimized.
    fn minimize(
        &self,
        campaign: &Campaign,
        kind: DiscrepancyKind,
        signature: &str,
        program: &str,
        budget: Duration,
    ) -> Result<Option<String>, JobError>;
}
