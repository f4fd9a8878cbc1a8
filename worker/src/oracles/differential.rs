//! `tileir-weaker-than-ptx` (the project's lowering) and `compiler-lowering` (NVIDIA's, through
//! a [`Compiler`]): a final state or a race the PTX program allows and the race-free Tile IR
//! program does not (DESIGN §3.4, §4).

use std::collections::{BTreeMap, BTreeSet};

use tcfuzz_checker::{CheckError, Options};
use tcfuzz_checker::{DifferentialReport, tileir_weaker_than, tileir_weaker_than_ptx, tileir_weaker_than_ptx_with};
use tcfuzz_litmus::Program;

use super::{Found, entry_kinds, list, nearest_differences};
use crate::finding::{Kind, Recheck, Side};

/// A Tile IR compiler whose PTX can be read back as a litmus program (DESIGN §8: `tileiras`,
/// through the gpu crate).
pub trait Compiler: Sync {
    /// The lowered program and the map from the Tile IR program's state names to its names.
    fn lower(&self, program: &Program) -> Result<(Program, BTreeMap<String, String>), String>;
}

/// The project's lowering (or the planted one that drops releases) against the Tile IR program.
pub(crate) fn tileir_weaker(p: &Program, options: &Options, planted: bool) -> Result<Option<Found>, CheckError> {
    let report = if planted {
        tileir_weaker_than_ptx_with(p, options, &crate::planted::lowering_drops_release)?
    } else {
        tileir_weaker_than_ptx(p, options)?
    };
    Ok(found(Kind::TileirWeakerThanPtx, p, &report, "ptx (lowered)"))
}

/// NVIDIA's lowering against the Tile IR program. `Err` with the compiler's message where it
/// cannot compile the program (not a discrepancy: the oracle is skipped).
pub(crate) fn compiler_lowering(
    p: &Program,
    options: &Options,
    compiler: &dyn Compiler,
) -> Result<Result<Option<Found>, CheckError>, String> {
    let (lowered, names) = compiler.lower(p)?;
    Ok(tileir_weaker_than(p, lowered, &|n| names.get(n).cloned().into_iter().collect(), options)
        .map(|report| found(Kind::CompilerLowering, p, &report, "ptx (tileiras)")))
}

fn found(kind: Kind, p: &Program, r: &DifferentialReport, ptx_side: &str) -> Option<Found> {
    if r.holds() {
        return None;
    }
    let mut parts = BTreeSet::new();
    let allowed: Vec<Vec<(String, i64)>> =
        r.tileir.states.iter().map(|s| s.values.iter().map(|(n, v)| (n.to_string(), *v)).collect()).collect();
    for e in r.violating_states() {
        let differing = nearest_differences(&e.state, &allowed);
        parts.insert(format!("state {}", list(&entry_kinds(p, &differing))));
    }
    for race in r.violating_races() {
        parts.insert(format!("race {} {}-{}", race.kind.name(), race.first.access, race.second.access));
    }
    let signature = parts.into_iter().collect::<Vec<_>>().join("; ");
    let first = r.violating_states().first().map(|e| {
        let s: Vec<String> = e.state.iter().map(|(k, v)| format!("{k}={v};")).collect();
        format!(": {}", s.join(" "))
    });
    let summary = format!(
        "the {ptx_side} program allows {} state(s) and {} race(s) the race-free Tile IR program does not{}",
        r.violating_states().len(),
        r.violating_races().len(),
        first.unwrap_or_default()
    );
    Some(Found {
        kind,
        signature,
        summary,
        sides: [Side { name: "tileir".into(), verdict: r.tileir.to_string() }, Side { name: ptx_side.into(), verdict: r.ptx.to_string() }],
        recheck: Recheck { kind, model: None, pattern: None, never: false },
    })
}
