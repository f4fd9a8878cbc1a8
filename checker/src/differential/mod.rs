//! The `tileir-weaker-than-ptx` differential check (DESIGN §4): the Tile IR memory model is meant
//! to be a strict weakening of PTX's (Tile IR spec §7.11), and [`crate::differential::lower`] only strengthens,
//! so for a Tile IR program `P` and its lowering `L`:
//!
//! 1. if `P` is race-free, every final state `L` allows is a final state `P` allows;
//! 2. if `P` is race-free, `L` is race-free.
//!
//! When `P` has a data race its behaviour is undefined (§7.10), so any outcome of `L` is allowed:
//! the states `L` adds are still listed ([`DifferentialReport::extra_states`]) but are not
//! violations.
//!
//! `P` is checked under the `tileir` model, `L` under `ptx`. Each side needs every final state its
//! model allows: the explorer's verdict where it carries no caveat (it then explores every
//! execution, load buffering included), else the exhaustive oracle's; a caveated side too large
//! for the oracle keeps the explorer's verdict, and the report names its caveats. States of `L` are
//! read back in `P`'s names: location `x_0` is `x[0]`, register `P0:v_1` is `P0:v[1]`.

pub mod lower;

use std::collections::BTreeMap;

use tcfuzz_litmus::Program;

use crate::differential::lower::{LowerError, lower_tile_ir};
use crate::error::CheckError;
use crate::explore::check::{check_compiled, check_oracle_compiled};
use crate::model::ModelKind;
use crate::options::Options;
use crate::program::CompiledProgram;
use crate::verdict::{Race, Verdict, Witness};

/// A final state, as `(name, value)` pairs in `P`'s names.
pub type State = Vec<(String, i64)>;

/// One final state the lowered program allows and the Tile IR program does not.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExtraState {
    /// In the Tile IR program's names.
    pub state: State,
    /// A PTX execution of the lowered program ending in it.
    pub ptx_witness: Option<Witness>,
    /// The Tile IR final state closest to it (most entries equal) with a Tile IR execution ending
    /// there: what the Tile IR model allows instead.
    pub tileir_nearest: Option<(State, Witness)>,
}

/// The verdict of the differential check.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DifferentialReport {
    /// `P` under the `tileir` model (its witnesses are per full final state).
    pub tileir: Verdict,
    /// The lowering `L` (printable with `tcfuzz_litmus::print`).
    pub lowered: Program,
    /// `L` under the `ptx` model (its states in `L`'s names).
    pub ptx: Verdict,
    /// Final states of `L` that `P` does not allow.
    pub extra_states: Vec<ExtraState>,
    /// Races of `L` (reported as violations only when `P` is race-free).
    pub ptx_races: Vec<Race>,
    /// Whether `P` is race-free (else its behaviour is undefined and nothing is a violation).
    pub tileir_race_free: bool,
    /// Ways in which the check may be incomplete.
    pub caveats: Vec<String>,
}

impl DifferentialReport {
    /// The states of `L` that violate the check (empty when `P` is racy).
    pub fn violating_states(&self) -> &[ExtraState] {
        if self.tileir_race_free { &self.extra_states } else { &[] }
    }

    /// Races of `L` that violate the check.
    pub fn violating_races(&self) -> &[Race] {
        if self.tileir_race_free { &self.ptx_races } else { &[] }
    }

    /// Whether the check holds: no violating state and no violating race.
    pub fn holds(&self) -> bool {
        self.violating_states().is_empty() && self.violating_races().is_empty()
    }
}

/// Runs the check with the project's lowering ([`lower_tile_ir`]).
pub fn tileir_weaker_than_ptx(p: &Program, options: &Options) -> Result<DifferentialReport, CheckError> {
    tileir_weaker_than_ptx_with(p, options, &lower_tile_ir)
}

/// Runs the check with a given lowering (tests use deliberately wrong ones).
pub fn tileir_weaker_than_ptx_with(
    p: &Program,
    options: &Options,
    lower: &dyn Fn(&Program) -> Result<Program, LowerError>,
) -> Result<DifferentialReport, CheckError> {
    if p.arch != tcfuzz_litmus::Arch::TileIr {
        return Err(CheckError::Unsupported {
            instruction: "the tileir-weaker-than-ptx check on a program without Tile IR threads".into(),
            span: Default::default(),
        });
    }
    let lowered = lower(p).map_err(|LowerError::Unsupported { message, span }| CheckError::Unsupported { instruction: message, span })?;
    // `P0:v[1]` → `P0:v_1`, `x[0]` → `x_0`; a one-element tile is also its bare name.
    let lowered_name = |n: &str| -> Vec<String> {
        match n.strip_suffix(']').and_then(|s| s.rsplit_once('[')) {
            Some((base, i)) => {
                let mut v = vec![format!("{base}_{i}")];
                if i == "0" {
                    v.push(base.to_string());
                }
                v
            }
            None => vec![n.to_string()],
        }
    };
    tileir_weaker_than(p, lowered, &lowered_name, options)
}

/// The check of `P` against a PTX program standing for it — the project's lowering, or the
/// lowering of another compiler read back (`compiler-lowering`, DESIGN §4) — whose final states
/// `name_of` reads in `P`'s names: the candidates, in order, for `P`'s state name `n`.
pub fn tileir_weaker_than(
    p: &Program,
    lowered: Program,
    name_of: &dyn Fn(&str) -> Vec<String>,
    options: &Options,
) -> Result<DifferentialReport, CheckError> {
    if p.arch != tcfuzz_litmus::Arch::TileIr {
        return Err(CheckError::Unsupported {
            instruction: "the tileir-weaker-than-ptx check on a program without Tile IR threads".into(),
            span: Default::default(),
        });
    }
    // The check compares whole state sets.
    let opts = Options { witnesses: true, max_states: None, ..options.clone() };
    let mut caveats = Vec::new();
    let mut tp = CompiledProgram::compile(p)?;
    tp.observed = (0..tp.state_len()).collect();
    let tileir = run_side(&tp, ModelKind::TileIr, &opts, "Tile IR", &mut caveats)?;
    let mut lp = CompiledProgram::compile(&lowered)?;
    lp.observed = (0..lp.state_len()).collect();
    let ptx = run_side(&lp, ModelKind::Ptx, &opts, "lowered PTX", &mut caveats)?;
    // P's names, each with its name in L.
    let names: Vec<String> = (0..tp.state_len()).map(|s| tp.slot_name(s)).collect();
    let allowed: BTreeMap<&State, &Witness> = tileir.witnesses.iter().map(|w| (&w.state, &w.witness)).collect();
    let mut extra_states = Vec::new();
    for w in &ptx.witnesses {
        let lmap: BTreeMap<&str, i64> = w.state.iter().map(|(k, v)| (k.as_str(), *v)).collect();
        let mut state = State::new();
        for n in &names {
            let candidates = name_of(n);
            let v = candidates.iter().find_map(|c| lmap.get(c.as_str())).ok_or_else(|| {
                CheckError::bad(
                    format!("the lowered program has none of {candidates:?} for `{n}` of the Tile IR program"),
                    Default::default(),
                )
            })?;
            state.push((n.clone(), *v));
        }
        if allowed.contains_key(&state) {
            continue;
        }
        let nearest = allowed
            .iter()
            .max_by_key(|(s, _)| s.iter().zip(&state).filter(|(a, b)| a == b).count())
            .map(|(s, w)| ((*s).clone(), (*w).clone()));
        extra_states.push(ExtraState { state, ptx_witness: Some(w.witness.clone()), tileir_nearest: nearest });
    }
    let tileir_race_free = tileir.races.is_empty();
    let ptx_races = ptx.races.clone();
    Ok(DifferentialReport { tileir, lowered, ptx, extra_states, ptx_races, tileir_race_free, caveats })
}

/// One side: the explorer's verdict where it carries no caveat, else the oracle's (also where
/// the explorer ran past `max_executions`: the oracle's bound is its candidates), or the
/// explorer's (its caveats named in the report) where the oracle gives up.
fn run_side(
    prog: &CompiledProgram,
    model: ModelKind,
    opts: &Options,
    side: &str,
    caveats: &mut Vec<String>,
) -> Result<Verdict, CheckError> {
    let explored = match check_compiled(prog, model, opts) {
        Ok(v) if v.caveats.is_empty() => return Ok(v),
        Ok(v) => Ok(v),
        Err(e @ CheckError::TooManyExecutions { .. }) => Err(e),
        Err(e) => return Err(e),
    };
    match (check_oracle_compiled(prog, model, opts), explored) {
        (Ok(v), _) => Ok(v),
        (Err(CheckError::TooLarge(why)), Ok(explored)) => {
            caveats.push(format!("the {side} side is too large for the oracle ({why}); it was explored by the DPOR explorer"));
            caveats.extend(explored.caveats.iter().map(|c| format!("{side}: {c}")));
            Ok(explored)
        }
        // Too large for both: the explorer's error names the option to raise.
        (Err(CheckError::TooLarge(_)), Err(e)) => Err(e),
        (Err(e), _) => Err(e),
    }
}
