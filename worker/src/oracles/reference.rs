//! `reference-disagrees` (DESIGN §4): an external checker the user configures (a command template
//! that takes a litmus file and prints a herd7-style verdict) judges a PTX program differently.
//! Running the command is the caller's I/O: the executor sees it through [`Reference`].

use tcfuzz_checker::{ModelKind, Observation, Verdict};
use tcfuzz_litmus::Program;

use super::{Found, instruction_kinds, list};
use crate::finding::{Kind, Recheck, Side};

/// An external checker.
pub trait Reference: Sync {
    /// Its verdict on `program` (given as litmus text too): the observation, and its output.
    fn judge(&self, program: &Program, text: &str) -> Result<(Observation, String), String>;
}

/// The observation of the first herd7-style `Observation NAME Never|Sometimes|Always ...` line.
pub fn parse_observation(output: &str) -> Option<Observation> {
    output.lines().find_map(|l| {
        let mut words = l.split_whitespace();
        (words.next()? == "Observation").then_some(())?;
        words.next()?;
        match words.next()? {
            "Never" => Some(Observation::Never),
            "Sometimes" => Some(Observation::Sometimes),
            "Always" => Some(Observation::Always),
            _ => None,
        }
    })
}

fn name(o: Observation) -> &'static str {
    match o {
        Observation::Never => "Never",
        Observation::Sometimes => "Sometimes",
        Observation::Always => "Always",
    }
}

/// The signature of a disagreement: both observations and the program's instruction kinds.
pub(crate) fn signature(p: &Program, ours: Observation, theirs: Observation) -> String {
    format!("ptx {}, reference {} {}", name(ours), name(theirs), list(&instruction_kinds(p)))
}

/// The finding if the reference's observation differs from `ours` (the PTX model's verdict).
pub(crate) fn judge(p: &Program, ours: &Verdict, theirs: Observation, output: &str) -> Option<Found> {
    let mine = ours.condition.observation;
    if mine == theirs {
        return None;
    }
    Some(Found {
        kind: Kind::ReferenceDisagrees,
        signature: signature(p, mine, theirs),
        summary: format!("tcfuzz (ptx) says {}, the reference {}", name(mine), name(theirs)),
        sides: [Side { name: "ptx".into(), verdict: ours.to_string() }, Side { name: "reference".into(), verdict: output.to_string() }],
        recheck: Recheck { kind: Kind::ReferenceDisagrees, model: Some(ModelKind::Ptx), pattern: None, never: false },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn herd_observation_lines_are_read() {
        let out = "Test MP Allowed\nStates 2\nOk\nWitnesses\nObservation MP Sometimes 1 3\nTime MP 0.01\n";
        assert_eq!(parse_observation(out), Some(Observation::Sometimes));
        assert_eq!(parse_observation("Observation X Never 0 4"), Some(Observation::Never));
        assert_eq!(parse_observation("no verdict here"), None);
        assert_eq!(parse_observation("Observation X Maybe"), None);
    }
}
