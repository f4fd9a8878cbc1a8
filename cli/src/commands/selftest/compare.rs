//! One generated program, checked by the explorer and by the oracle under each model (the
//! comparison itself is the worker's `explorer-vs-oracle` oracle).

use std::time::{Duration, Instant};

use anyhow::anyhow;
use tcfuzz_checker::CompiledProgram;
use tcfuzz_checker::{CheckError, ModelKind, Options};
use tcfuzz_generator::random::{Family, random_program};
use tcfuzz_litmus::Program;
pub use tcfuzz_worker::oracles::explorer_oracle::{
    Comparison, Disagreement, LOOP_BOUND, Settings, base_options, compare, compare_caveated,
};

/// A generated program and its comparisons, one per model.
#[derive(Debug)]
pub struct ProgramReport {
    pub index: u64,
    pub seed: u64,
    pub family: Family,
    /// The program as parsed back from its printed text (so that spans name lines of that text).
    pub program: Program,
    pub checks: Vec<(ModelKind, Comparison)>,
    /// The models under which the explorer's verdict carried a caveat.
    pub caveated: Vec<ModelKind>,
    /// The models whose comparison the deadline stopped (counted as skipped too).
    pub past_deadline: Vec<ModelKind>,
}

impl ProgramReport {
    /// Disagree under some model, else agree under some model, else skipped.
    pub fn outcome(&self) -> Outcome {
        if self.checks.iter().any(|(_, c)| matches!(c, Comparison::Disagree(_))) {
            Outcome::Disagree
        } else if self
            .checks
            .iter()
            .any(|(_, c)| matches!(c, Comparison::Agree | Comparison::AgreeUnrestricted | Comparison::WithinCaveat { .. }))
        {
            Outcome::Agree
        } else {
            Outcome::Skipped
        }
    }
}

/// A program's overall result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    Agree,
    Disagree,
    Skipped,
}

/// Generates the program of `(family, seed)`, prints it and parses it back, then compares the
/// explorer with the oracle under each of `models`, each comparison (both sides) within
/// `deadline` where one is given. An error is a bug in the generator, the printer or the parser
/// (`[tcfuzz internal bug]`), not a disagreement.
pub fn check_program(
    index: u64,
    family: Family,
    seed: u64,
    models: &[ModelKind],
    deadline: Option<Duration>,
) -> anyhow::Result<ProgramReport> {
    let text = tcfuzz_litmus::print(&random_program(family, seed));
    let program = tcfuzz_litmus::parse(&text).map_err(|e| {
        anyhow!("[tcfuzz internal bug] the {family} program of seed {seed} does not parse back:\n{}\n{text}", e.render("generated"))
    })?;
    let (mut checks, mut caveated, mut past_deadline) = (Vec::new(), Vec::new(), Vec::new());
    match CompiledProgram::compile(&program) {
        Ok(compiled) => {
            for &m in models {
                let until = deadline.map(|d| Instant::now() + d);
                let settings = Settings { base: Options { deadline: until, ..base_options() }, ..Settings::default() };
                let (c, caveat) = compare_caveated(&compiled, m, &settings);
                // (Both sides poll the deadline: a comparison skipped once it has passed was
                // stopped by it.)
                if matches!(c, Comparison::Skipped(_)) && until.is_some_and(|t| Instant::now() >= t) {
                    past_deadline.push(m);
                }
                checks.push((m, c));
                if caveat == Some(true) {
                    caveated.push(m);
                }
            }
        }
        Err(e @ (CheckError::TooLarge(_) | CheckError::Unsupported { .. })) => {
            checks.extend(models.iter().map(|&m| (m, Comparison::Skipped(one_line(&e.to_string())))));
        }
        Err(e) => return Err(anyhow!("[tcfuzz internal bug] the checker rejects the {family} program of seed {seed}: {e}\n{text}")),
    }
    Ok(ProgramReport { index, seed, family, program, checks, caveated, past_deadline })
}

/// `s` on one line.
fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_programs_agree() {
        for family in Family::ALL {
            for seed in 0..3 {
                let r = check_program(seed, family, seed, family.models(), None).expect("generates");
                assert_ne!(r.outcome(), Outcome::Disagree, "{family} seed {seed}: {:?}", r.checks);
            }
        }
    }
}
