//! Planted faults: deliberately wrong rules that the fuzzer must find, so that a test can prove
//! the whole loop — generation, checking, the oracles, dedup, minimization — works end to end
//! (issue 22, "a planted fault is found and shrunk"). Chosen in the campaign config
//! (`planted_fault`); no real campaign sets one. They live here, not in the checker: each breaks
//! one side of an oracle, which is what a bug in that side would look like.

use serde::{Deserialize, Serialize};
use tcfuzz_checker::{LowerError, lower_tile_ir};
use tcfuzz_litmus::{Instr, Program, Sem, StmtKind};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PlantedFault {
    /// The oracle of `explorer-vs-oracle` leaves out executions whose `po ∪ rf` is cyclic, as if
    /// it did not know that PTX allows load buffering (No-Thin-Air, PTX ISA §8.10, forbids only
    /// the cycles that make values out of thin air): the explorer then finds states the oracle
    /// lacks — on a load-buffering shape.
    OracleWithoutLoadBuffering,
    /// The Tile IR → PTX lowering of `tileir-weaker-than-ptx` turns every release store into a
    /// relaxed one, as a lowering that dropped the release mapping would: message passing through
    /// a release/acquire flag then lets the payload read be stale in the lowered program only.
    LoweringDropsRelease,
}

/// The project's lowering with every `st.release` / `red.release` / `atom.release` made relaxed.
pub fn lowering_drops_release(p: &Program) -> Result<Program, LowerError> {
    let mut lowered = lower_tile_ir(p)?;
    for s in lowered.threads.iter_mut().flat_map(|t| t.body.iter_mut()) {
        match &mut s.kind {
            StmtKind::Instr(Instr::St(st)) if st.sem == Some(Sem::Release) => st.sem = Some(Sem::Relaxed),
            StmtKind::Instr(Instr::Red(r)) if r.sem == Some(Sem::Release) => r.sem = Some(Sem::Relaxed),
            StmtKind::Instr(Instr::Atom(a)) if a.sem == Some(Sem::Release) => a.sem = Some(Sem::Relaxed),
            _ => {}
        }
    }
    Ok(lowered)
}
