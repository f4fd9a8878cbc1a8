//! The discrepancy oracles that need no GPU (DESIGN §4), each giving a signature: the kind's
//! minimal identifying facts, never the program's hash.
//!
//! | kind | signature |
//! |---|---|
//! | `explorer-vs-oracle` | the model, the kinds of difference (which side has a state, race or misuse the other lacks, which counts differ), and the kinds of instruction whose results differ: `ptx: explorer-only state [ld]` |
//! | `tileir-weaker-than-ptx`, `compiler-lowering` | per violation, a state (with the kinds of the Tile IR operations whose results differ from the nearest Tile IR state) or a race of the lowering (its kind and accesses): `state [tile.ld]` |
//! | `pattern-broken` | the pattern and each problem: a race with its kind and the rule that would order it, a hang, a misuse rule, an outcome: `tma-ring: race proxy (proxy-fence)` |
//! | `sync-redundant` | the pattern, the step's role and the change: `tma-ring: consumer-waits-full weakened (acquire→relaxed)` |
//! | `reference-disagrees` | both observations and the program's instruction kinds: `ptx Never, reference Sometimes [ld.acquire.gpu, st.release.gpu, ...]` |
//! | `checker-crash` | where the panic happened and its message without numbers |
//! | `gpu-forbidden-outcome` | the program's thread count and instruction kinds, and per forbidden state the kinds of the entries where it differs from the nearest allowed state: `2 threads [ld.acquire.gpu, st.release.gpu, ...]: state [ld]` |

pub mod differential;
pub mod explorer_oracle;
pub mod gpu;
pub mod pattern;
pub mod reference;
#[cfg(test)]
mod tests;

use std::collections::BTreeSet;

use tcfuzz_litmus::{Instr, LocationKind, Mbarrier, Program, StmtKind, Tcgen05, TileOp};

use crate::finding::{Kind, Recheck, Side};

/// What an oracle found on one program.
#[derive(Clone, Debug)]
pub(crate) struct Found {
    pub kind: Kind,
    pub signature: String,
    pub summary: String,
    pub sides: [Side; 2],
    pub recheck: Recheck,
}

/// An instruction's kind without qualifiers: what a signature names.
pub(crate) fn opcode(i: &Instr) -> &'static str {
    match i {
        Instr::Ld(_) => "ld",
        Instr::St(_) => "st",
        Instr::Atom(_) => "atom",
        Instr::Red(_) => "red",
        Instr::Fence(_) => "fence",
        Instr::Barrier(_) => "barrier",
        Instr::Mbarrier(Mbarrier::Wait(_)) => "mbarrier.wait",
        Instr::Mbarrier(_) => "mbarrier.arrive",
        Instr::CpAsyncBulk(_) => "cp.async.bulk",
        Instr::Tcgen05(Tcgen05::Ld { .. }) => "tcgen05.ld",
        Instr::Tcgen05(_) => "tcgen05",
        Instr::Tile(TileOp::Load { .. }) => "tile.ld",
        Instr::Tile(TileOp::Atomic { .. }) => "tile.atom",
        Instr::Tile(_) => "tile",
        Instr::Mov { .. } => "mov",
        Instr::Add { .. } => "add",
        _ => "other",
    }
}

/// What wrote the final-state entries `entries` (`P1:r0`, `P1:rx[1]`, `x`, `x[0]`): the kind of
/// the first instruction writing a register, `final:<kind>` for a location.
pub(crate) fn entry_kinds<'a>(p: &Program, entries: impl IntoIterator<Item = &'a String>) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for e in entries {
        let base = e.split('[').next().unwrap_or(e);
        match base.split_once(':') {
            Some((thread, reg)) => {
                let writer = p.threads.iter().find(|t| t.name == thread).and_then(|t| {
                    t.body.iter().find_map(|s| match &s.kind {
                        StmtKind::Instr(i) if tcfuzz_litmus::registers_written(i).contains(&reg) => Some(opcode(i)),
                        _ => None,
                    })
                });
                out.insert(writer.unwrap_or("initial").to_string());
            }
            None => {
                let kind = match p.locations.iter().find(|l| l.name == base).map(|l| &l.kind) {
                    None | Some(LocationKind::Global | LocationKind::Alias { .. }) => "final:memory",
                    Some(LocationKind::Shared { .. }) => "final:shared",
                    Some(LocationKind::Mbarrier { .. }) => "final:mbarrier",
                    Some(LocationKind::Tmem { .. }) => "final:tmem",
                };
                out.insert(kind.to_string());
            }
        }
    }
    out
}

/// The entries in which `state` differs from the states of `others` nearest to it (most entries
/// equal, by name), over every nearest one: ties are not broken by order, so the answer does not
/// depend on how the states are sorted.
pub(crate) fn nearest_differences(state: &[(String, i64)], others: &[Vec<(String, i64)>]) -> BTreeSet<String> {
    let equal = |o: &Vec<(String, i64)>| state.iter().filter(|e| o.contains(e)).count();
    let best = others.iter().map(equal).max();
    let mut out = BTreeSet::new();
    for o in others.iter().filter(|o| Some(equal(o)) == best) {
        for (name, v) in state {
            if !o.iter().any(|(n, w)| n == name && w == v) {
                out.insert(name.clone());
            }
        }
    }
    out
}

/// The kinds of instruction `p` uses, with their qualifiers (`ld.acquire.gpu`): part of the
/// signatures that name a program's shape.
pub(crate) fn instruction_kinds(p: &Program) -> BTreeSet<String> {
    p.threads
        .iter()
        .flat_map(|t| &t.body)
        .filter_map(|s| match &s.kind {
            StmtKind::Instr(i) => Some(crate::coverage::mnemonic(i)),
            StmtKind::Label(_) => None,
        })
        .collect()
}

/// `[a, b]`.
pub(crate) fn list(items: &BTreeSet<String>) -> String {
    format!("[{}]", items.iter().cloned().collect::<Vec<_>>().join(", "))
}
