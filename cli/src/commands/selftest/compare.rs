//! One generated program, checked by the explorer and by the oracle under each model, and what
//! differs between the two verdicts.

use std::collections::BTreeMap;
use std::panic::{AssertUnwindSafe, catch_unwind};

use anyhow::anyhow;
use tcfuzz_checker::program::CompiledProgram;
use tcfuzz_checker::{CheckError, ModelKind, Options, RaceEvent, Verdict, check_compiled, check_oracle_compiled};
use tcfuzz_generator::random::{Family, random_program};
use tcfuzz_litmus::Program;

/// Backward jumps a thread may take (the checker's property tests use 1 too: spin loops stay
/// small enough for the oracle).
pub const LOOP_BOUND: u32 = 1;
/// Candidate graphs the oracle may enumerate before a program counts as too large.
pub const ORACLE_LIMIT: u64 = 200_000;
/// Most differing final states described one by one.
const MAX_STATE_DIFFERENCES: usize = 3;

/// How the explorer and the oracle compared on one program under one model.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Comparison {
    /// Same final states with the same counts, same complete, blocked and hang counts, same
    /// races, misuse, hung and loop-bound threads, and no duplicate execution.
    Agree,
    /// As [`Comparison::Agree`], with the oracle unrestricted although the explorer's verdict
    /// carries a caveat: the explorer found every execution its caveat says it may miss.
    AgreeUnrestricted,
    /// The explorer's verdict carries a caveat and misses executions, all of them what the caveat
    /// allows: every final state, race and misuse it reports is the unrestricted oracle's (states
    /// with at most its count), and no execution is a duplicate.
    WithinCaveat,
    /// The oracle cannot judge the program (too large, or an instruction it does not model).
    Skipped(String),
    Disagree(Disagreement),
}

/// What differs, and how the oracle was run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Disagreement {
    /// Each difference on one line, the counts first.
    pub differences: Vec<String>,
    /// Which executions the oracle counted ([`Coverage::describe`]).
    pub oracle: &'static str,
}

impl Comparison {
    fn disagree(oracle: Coverage, what: String) -> Comparison {
        Comparison::Disagree(Disagreement { differences: vec![one_line(&what)], oracle: oracle.describe() })
    }
}

/// Which executions the oracle counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Coverage {
    /// Every consistent execution.
    All,
    /// Those with an acyclic `po ∪ rf` (what TruSt's revisits reach).
    PorfAcyclic,
}

impl Coverage {
    /// What the explorer covers under `model` by the checker's crate docs ("Limitations and
    /// caveats") where its verdict has a caveat: exactly the executions without a `po ∪ rf` cycle
    /// under Tile IR. Under PTX its dependency revisits reach beyond that but miss a class no
    /// restriction of the oracle describes exactly; those verdicts are held to the unrestricted
    /// oracle, with misses allowed ([`Comparison::WithinCaveat`]).
    pub fn of_explorer(model: ModelKind) -> Coverage {
        match model {
            ModelKind::TileIr => Coverage::PorfAcyclic,
            _ => Coverage::All,
        }
    }

    fn options(self, base: &Options) -> Options {
        Options { exclude_porf_cycles: self == Coverage::PorfAcyclic, ..base.clone() }
    }

    /// The restriction in words, for a program's header.
    pub fn describe(self) -> &'static str {
        match self {
            Coverage::All => "the oracle unrestricted",
            Coverage::PorfAcyclic => "the oracle restricted to executions with an acyclic po ∪ rf",
        }
    }
}

/// A generated program and its comparisons, one per model.
#[derive(Debug)]
pub struct ProgramReport {
    pub index: u64,
    pub seed: u64,
    pub family: Family,
    /// The program as parsed back from its printed text (so that spans name lines of that text).
    pub program: Program,
    pub checks: Vec<(ModelKind, Comparison)>,
}

impl ProgramReport {
    /// Disagree under some model, else agree under some model, else skipped.
    pub fn outcome(&self) -> Outcome {
        if self.checks.iter().any(|(_, c)| matches!(c, Comparison::Disagree(_))) {
            Outcome::Disagree
        } else if self.checks.iter().any(|(_, c)| matches!(c, Comparison::Agree | Comparison::AgreeUnrestricted | Comparison::WithinCaveat))
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
/// explorer with the oracle under each of `models`. An error is a bug in the generator, the
/// printer or the parser (`[tcfuzz internal bug]`), not a disagreement.
pub fn check_program(index: u64, family: Family, seed: u64, models: &[ModelKind]) -> anyhow::Result<ProgramReport> {
    let text = tcfuzz_litmus::print(&random_program(family, seed));
    let program = tcfuzz_litmus::parse(&text).map_err(|e| {
        anyhow!("[tcfuzz internal bug] the {family} program of seed {seed} does not parse back:\n{}\n{text}", e.render("generated"))
    })?;
    let checks = match CompiledProgram::compile(&program) {
        Ok(compiled) => models.iter().map(|&m| (m, compare(&compiled, m))).collect(),
        Err(e @ (CheckError::TooLarge(_) | CheckError::Unsupported { .. })) => {
            models.iter().map(|&m| (m, Comparison::Skipped(one_line(&e.to_string())))).collect()
        }
        Err(e) => return Err(anyhow!("[tcfuzz internal bug] the checker rejects the {family} program of seed {seed}: {e}\n{text}")),
    };
    Ok(ProgramReport { index, seed, family, program, checks })
}

/// The options both sides run with (the explorer also counts duplicates; the oracle may be
/// restricted, [`Coverage`]).
pub fn base_options() -> Options {
    Options {
        loop_bound: LOOP_BOUND,
        detect_duplicates: false,
        oracle_limit: ORACLE_LIMIT,
        max_races: 10_000,
        exclude_porf_cycles: false,
        witnesses: false,
        ..Options::default()
    }
}

/// The explorer against the oracle on one compiled program under `model`.
///
/// The explorer runs as `tcfuzz check` runs it. A verdict without caveats claims to be exact and
/// is compared with the unrestricted oracle; one with caveats with the oracle restricted to what
/// the explorer covers ([`Coverage::of_explorer`]) and, where that differs, with the unrestricted
/// oracle too: a caveat says which executions the explorer may miss, not that it must. Where no
/// restriction describes what it covers, missing executions the unrestricted oracle finds is
/// allowed, but nothing more ([`Comparison::WithinCaveat`]).
pub fn compare(prog: &CompiledProgram, model: ModelKind) -> Comparison {
    let base = base_options();
    let explorer = match guarded(|| check_compiled(prog, model, &Options { detect_duplicates: true, ..base.clone() })) {
        Ok(Ok(v)) => v,
        Ok(Err(e)) => return explorer_failed(prog, model, &base, format!("the explorer fails ({e})")),
        Err(panic) => return explorer_failed(prog, model, &base, format!("the explorer panics ({panic})")),
    };
    let coverage = if explorer.caveats.is_empty() { Coverage::All } else { Coverage::of_explorer(model) };
    let oracle = match run_oracle(prog, model, &base, coverage) {
        Ok(Ok(v)) => v,
        // A duplicate is a bug whatever the oracle can say.
        Ok(Err(CheckError::TooLarge(why))) if explorer.stats.duplicates.is_some_and(|d| d > 0) => {
            let d = explorer.stats.duplicates.unwrap_or_default();
            return Comparison::disagree(
                coverage,
                format!(
                    "the explorer produced {d} duplicate executions (too large for the oracle: {})",
                    why.trim_start_matches("oracle: ")
                ),
            );
        }
        Ok(Err(e)) => return skipped(e).unwrap_or_else(|e| Comparison::disagree(coverage, format!("the oracle fails: {e}"))),
        Err(panic) => return Comparison::disagree(coverage, format!("the oracle panics: {panic}")),
    };
    let mut diffs = differences(&explorer, &oracle);
    if diffs.is_empty() {
        return Comparison::Agree;
    }
    if coverage == Coverage::All && !explorer.caveats.is_empty() && within(&explorer, &oracle) {
        return Comparison::WithinCaveat;
    }
    if coverage != Coverage::All
        && let Ok(Ok(all)) = run_oracle(prog, model, &base, Coverage::All)
    {
        if differences(&explorer, &all).is_empty() {
            return Comparison::AgreeUnrestricted;
        }
        diffs.push(format!(
            "the unrestricted oracle finds {} complete and {} blocked executions: the explorer matches neither",
            all.stats.complete, all.stats.blocked
        ));
    }
    Comparison::Disagree(Disagreement { differences: diffs.iter().map(|d| one_line(d)).collect(), oracle: coverage.describe() })
}

/// The oracle under `model` counting the executions of `coverage`; a panic as its message.
fn run_oracle(prog: &CompiledProgram, model: ModelKind, base: &Options, coverage: Coverage) -> Result<Result<Verdict, CheckError>, String> {
    guarded(|| check_oracle_compiled(prog, model, &coverage.options(base)))
}

/// The explorer failed (`what`): a disagreement, unless the program is beyond the oracle too.
fn explorer_failed(prog: &CompiledProgram, model: ModelKind, base: &Options, what: String) -> Comparison {
    match run_oracle(prog, model, base, Coverage::All) {
        Ok(Ok(o)) => Comparison::disagree(
            Coverage::All,
            format!("{what} where the oracle finds {} complete and {} blocked executions", o.stats.complete, o.stats.blocked),
        ),
        Ok(Err(e)) => skipped(e).unwrap_or_else(|e| Comparison::disagree(Coverage::All, format!("{what}; the oracle fails too: {e}"))),
        Err(panic) => Comparison::disagree(Coverage::All, format!("{what}; the oracle panics too: {panic}")),
    }
}

/// A program the oracle cannot judge: too large, or an instruction it does not model. Other
/// errors are given back.
fn skipped(e: CheckError) -> Result<Comparison, CheckError> {
    match e {
        CheckError::TooLarge(why) => Ok(Comparison::Skipped(one_line(&format!("too large: {why}")))),
        e @ CheckError::Unsupported { .. } => Ok(Comparison::Skipped(one_line(&e.to_string()))),
        e => Err(e),
    }
}

/// Whether `explorer`'s executions are some of `oracle`'s: each final state it reports is the
/// oracle's with at most its count, each race and misuse it reports is the oracle's (those only
/// in executions it missed are missed with them), and no execution is a duplicate.
fn within(explorer: &Verdict, oracle: &Verdict) -> bool {
    let full = oracle.observed_states();
    explorer.stats.duplicates == Some(0)
        && explorer.stats.assume_failed <= oracle.stats.assume_failed
        && explorer.observed_states().iter().all(|(s, n)| full.get(s).is_some_and(|m| m >= n))
        && explorer.races.iter().all(|r| oracle.races.contains(r))
        && explorer.misuse.iter().all(|m| oracle.misuse.contains(m))
}

/// Every way the explorer's verdict differs from the oracle's, one line each, the counts first.
pub fn differences(explorer: &Verdict, oracle: &Verdict) -> Vec<String> {
    let mut out = Vec::new();
    let (e, o) = (&explorer.stats, &oracle.stats);
    match e.duplicates {
        Some(0) => {}
        Some(d) => out.push(format!("the explorer produced {d} duplicate executions")),
        None => out.push("the explorer did not count duplicates".to_string()),
    }
    if e.complete != o.complete {
        out.push(format!("complete executions: explorer {}, oracle {}", e.complete, o.complete));
    }
    if e.blocked != o.blocked {
        out.push(format!("blocked executions: explorer {}, oracle {}", e.blocked, o.blocked));
    }
    if e.assume_failed != o.assume_failed {
        out.push(format!("executions with a failed assume: explorer {}, oracle {}", e.assume_failed, o.assume_failed));
    }
    let states = |v: &Verdict| -> BTreeMap<String, u64> { v.states.iter().map(|s| (state_text(&s.values), s.executions)).collect() };
    let (es, os) = (states(explorer), states(oracle));
    let mut keys: Vec<&String> = es.keys().chain(os.keys()).collect();
    keys.sort();
    keys.dedup();
    let differing: Vec<String> = keys
        .into_iter()
        .filter_map(|k| {
            let (a, b) = (es.get(k).copied().unwrap_or(0), os.get(k).copied().unwrap_or(0));
            (a != b).then(|| format!("final state {k}: explorer {a} executions, oracle {b}"))
        })
        .collect();
    let extra = differing.len().saturating_sub(MAX_STATE_DIFFERENCES);
    out.extend(differing.into_iter().take(MAX_STATE_DIFFERENCES));
    if extra > 0 {
        out.push(format!("and {extra} more final states with different counts"));
    }
    for r in &explorer.races {
        if !oracle.races.contains(r) {
            out.push(format!("race {} vs {}: reported by the explorer only", race_side(&r.first), race_side(&r.second)));
        }
    }
    for r in &oracle.races {
        if !explorer.races.contains(r) {
            out.push(format!("race {} vs {}: reported by the oracle only", race_side(&r.first), race_side(&r.second)));
        }
    }
    for m in &explorer.misuse {
        if !oracle.misuse.contains(m) {
            out.push(format!("misuse {} by {} at {}: reported by the explorer only", m.rule.name(), m.thread, m.span));
        }
    }
    for m in &oracle.misuse {
        if !explorer.misuse.contains(m) {
            out.push(format!("misuse {} by {} at {}: reported by the oracle only", m.rule.name(), m.thread, m.span));
        }
    }
    if e.hangs != o.hangs {
        out.push(format!("executions that hang: explorer {}, oracle {}", e.hangs, o.hangs));
    }
    if explorer.hung_threads != oracle.hung_threads {
        out.push(format!("hung threads: explorer [{}], oracle [{}]", explorer.hung_threads.join(", "), oracle.hung_threads.join(", ")));
    }
    if explorer.blocked_threads != oracle.blocked_threads {
        out.push(format!(
            "threads that hit the loop bound: explorer [{}], oracle [{}]",
            explorer.blocked_threads.join(", "),
            oracle.blocked_threads.join(", ")
        ));
    }
    out
}

/// `P0:r0=1; x=1;` as `tcfuzz check` prints a state.
fn state_text(values: &[(std::sync::Arc<str>, i64)]) -> String {
    values.iter().map(|(k, v)| format!("{k}={v};")).collect::<Vec<_>>().join(" ")
}

/// `P0#1 (write x)`.
fn race_side(e: &RaceEvent) -> String {
    format!("{}#{} ({} {})", e.thread, e.index, e.access, e.location)
}

/// Runs `f`, turning a panic into its message.
fn guarded<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    catch_unwind(AssertUnwindSafe(f)).map_err(|payload| {
        payload
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_else(|| "(no message)".to_string())
    })
}

/// `s` on one line (for a description, a JSON string or a `//` comment).
fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use tcfuzz_checker::{Stats, check};

    fn verdict(src: &str, model: ModelKind) -> Verdict {
        let p = tcfuzz_litmus::parse(src).expect("valid program");
        check(&p, model, &Options { detect_duplicates: true, ..Options::default() }).expect("checks")
    }

    const SB: &str = "PTX SB\n{ x = 0; y = 0; }\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n st.relaxed.gpu x, 1 | st.relaxed.gpu y, 1 ;\n ld.relaxed.gpu r0, y | ld.relaxed.gpu r0, x ;\nexists (P0:r0 == 0 /\\ P1:r0 == 0)\n";

    #[test]
    fn a_verdict_agrees_with_itself() {
        let v = verdict(SB, ModelKind::Ptx);
        assert_eq!(differences(&v, &v), Vec::<String>::new());
    }

    #[test]
    fn counts_and_states_are_compared() {
        let ptx = verdict(SB, ModelKind::Ptx);
        let sc = verdict(SB, ModelKind::Sc);
        let diffs = differences(&ptx, &sc);
        assert_eq!(diffs[0], format!("complete executions: explorer {}, oracle {}", ptx.stats.complete, sc.stats.complete));
        assert!(
            diffs.iter().any(|d| d.starts_with("final state P0:r0=0; P1:r0=0; x=1; y=1;: explorer 1 executions, oracle 0")),
            "{diffs:?}"
        );
        let dup = Verdict { stats: Stats { duplicates: Some(2), ..ptx.stats.clone() }, ..ptx.clone() };
        assert_eq!(differences(&dup, &ptx), ["the explorer produced 2 duplicate executions"]);
    }

    #[test]
    fn panics_become_messages() {
        assert_eq!(guarded(|| -> u32 { panic!("boom {}", 1) }), Err("boom 1".to_string()));
        assert_eq!(guarded(|| 7), Ok(7));
    }

    #[test]
    fn generated_programs_agree() {
        for family in Family::ALL {
            for seed in 0..3 {
                let r = check_program(seed, family, seed, family.models()).expect("generates");
                assert_ne!(r.outcome(), Outcome::Disagree, "{family} seed {seed}: {:?}", r.checks);
            }
        }
    }
}
