//! The counts of a check, which a [`crate::Verdict`] carries and an interrupted check's
//! [`crate::CheckError::Interrupted`] carries as far as it got.

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Consistent executions in which every thread finished.
    pub complete: u64,
    /// Consistent executions in which some thread hit the loop bound or waits forever at a barrier.
    pub blocked: u64,
    /// Of the blocked executions, those in which some thread waits forever at a barrier: hangs.
    pub hangs: u64,
    /// Executions discarded because an `assume` failed (not counted in `blocked`), as GenMC
    /// counts its blocked executions: those in which each thread that failed its `assume` ends
    /// with a read of the `co`-latest write of its location, so that no later write can satisfy
    /// it. (The others are transient: a later write revisits the read; the explorer drops most
    /// of them unexplored, GenMC revisits the read in place.) A function of the execution graphs,
    /// so the explorer's count equals the oracle's.
    pub assume_failed: u64,
    /// Deepest recursion of the explorer (graphs held at once); 0 for the oracle.
    pub max_depth: usize,
    /// Complete or blocked graphs produced more than once (`None` unless duplicate detection was
    /// on; must be 0).
    pub duplicates: Option<u64>,
}
