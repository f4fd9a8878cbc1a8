//! Pattern programs (`src/pattern/`): every pattern program is race-, hang- and misuse-free under
//! the checker (and its condition Never where the spec decides it), and every mutant — each step
//! removed, and weakened where it can be — is broken: a race, a hang, a misuse, or a condition no
//! longer Never. A mutant the checker accepts would be a `sync-redundant` discrepancy (DESIGN §4).
//!
//! `TCFUZZ_GEN_CASES=<n>` changes how many seeds per pattern are tried.

use std::collections::BTreeSet;

use arbitrary::Unstructured;
use tcfuzz_checker::{ModelKind, Observation, Options, Verdict, check};
use tcfuzz_generator::pattern::{Pattern, PatternProgram, pattern_program};
use tcfuzz_generator::random::seed_bytes;
use tcfuzz_litmus::{Program, parse, print};

fn cases(default: u64) -> u64 {
    std::env::var("TCFUZZ_GEN_CASES").ok().and_then(|s| s.parse().ok()).unwrap_or(default)
}

fn options() -> Options {
    Options { witnesses: false, max_executions: 2_000_000, ..Options::default() }
}

fn model(p: Pattern) -> ModelKind {
    if p.is_tile_ir() { ModelKind::TileIr } else { ModelKind::Ptx }
}

fn program(pattern: Pattern, seed: u64) -> PatternProgram {
    let bytes = seed_bytes(seed, 4096);
    pattern_program(pattern, &mut Unstructured::new(&bytes)).expect("any bytes give a pattern program")
}

/// What is wrong with a verdict of a pattern program, if anything.
fn problems(v: &Verdict, never: bool) -> Vec<String> {
    let mut out = Vec::new();
    for r in &v.races {
        out.push(format!(
            "{} race {}#{} / {}#{} on {}",
            r.kind.name(),
            r.first.thread,
            r.first.index,
            r.second.thread,
            r.second.index,
            r.first.location
        ));
    }
    if v.stats.hangs > 0 {
        out.push(format!("hang: {}", v.hung_threads.join(", ")));
    }
    for m in &v.misuse {
        out.push(format!("misuse {} by {}", m.rule.name(), m.thread));
    }
    if never && v.condition.observation != Observation::Never {
        out.push(format!("condition {:?}", v.condition.observation));
    }
    if !v.blocked_threads.is_empty() {
        out.push(format!("loop bound reached by {}", v.blocked_threads.join(", ")));
    }
    out
}

fn round_trips(p: &Program, what: &str) {
    let text = print(p);
    match parse(&text) {
        Ok(again) => assert!(again.same_as(p), "{what}: print then parse changed the program:\n{text}"),
        Err(e) => panic!("{what}: the printed program does not parse:\n{}\n{text}", e.render("printed")),
    }
}

#[test]
fn every_pattern_program_is_correct_under_the_checker() {
    let mut failures = Vec::new();
    for pattern in Pattern::ALL {
        for seed in 0..cases(24) {
            let p = program(pattern, seed);
            round_trips(&p.program, &format!("{pattern} seed {seed}"));
            match check(&p.program, model(pattern), &options()) {
                Ok(v) => {
                    let bad = problems(&v, p.expect.never);
                    if !bad.is_empty() {
                        failures.push(format!("{pattern} seed {seed}: {}\n{}", bad.join("; "), p.text()));
                    }
                }
                Err(e) => failures.push(format!("{pattern} seed {seed}: the checker fails: {e}\n{}", p.text())),
            }
        }
    }
    assert!(failures.is_empty(), "{} pattern programs are not correct:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn every_mutant_is_broken_under_the_checker() {
    let mut failures = Vec::new();
    let mut mutants = 0;
    for pattern in Pattern::ALL {
        for seed in 0..cases(12) {
            let p = program(pattern, seed);
            for (k, step) in p.steps().iter().enumerate() {
                for weaken in [false, true] {
                    if (weaken && step.weaker.is_none()) || (!weaken && !step.removable) {
                        continue;
                    }
                    let (m, mutation) = p.mutant(k, weaken).expect("a step of the program");
                    mutants += 1;
                    round_trips(&m, &format!("{mutation}"));
                    match check(&m, model(pattern), &options()) {
                        Ok(v) if problems(&v, p.expect.never).is_empty() => {
                            failures.push(format!("seed {seed}: {mutation}: still correct\n{}", print(&m)))
                        }
                        Ok(_) => {}
                        Err(e) => failures.push(format!("seed {seed}: {mutation}: the checker fails: {e}")),
                    }
                }
            }
        }
    }
    assert!(mutants > 100, "only {mutants} mutants");
    assert!(failures.is_empty(), "{} of {mutants} mutants are not broken:\n{}", failures.len(), failures.join("\n"));
}

/// The proxy pattern reaches every pair of views it is made of (writer generic or surface; reader
/// generic, generic alias, surface, texture or constant), in one CTA and across CTAs, and each of
/// its programs is correct and each of its mutants broken (more programs than the test over every
/// pattern tries).
#[test]
fn proxy_message_passing_covers_every_view_pair_and_its_mutants_break() {
    let mut shapes = BTreeSet::new();
    let mut failures = Vec::new();
    for seed in 0..cases(64) {
        let p = program(Pattern::ProxyMessagePassing, seed);
        let text = p.text();
        let doc = text.lines().nth(1).unwrap_or_default().to_string();
        shapes.insert(doc.split(" through").next().unwrap_or_default().to_string());
        shapes.insert(format!("scope {}", if doc.ends_with(".cta\"") { "cta" } else { "gpu" }));
        match check(&p.program, ModelKind::Ptx, &options()) {
            Ok(v) if problems(&v, true).is_empty() => {}
            Ok(v) => failures.push(format!("seed {seed}: {}\n{text}", problems(&v, true).join("; "))),
            Err(e) => failures.push(format!("seed {seed}: the checker fails: {e}")),
        }
        for (k, step) in p.steps().iter().enumerate() {
            let (m, mutation) = p.mutant(k, !step.removable).expect("a step");
            match check(&m, ModelKind::Ptx, &options()) {
                Ok(v) if problems(&v, true).is_empty() => failures.push(format!("seed {seed}: {mutation}: still correct\n{}", print(&m))),
                Ok(_) => {}
                Err(e) => failures.push(format!("seed {seed}: {mutation}: the checker fails: {e}")),
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    for writer in ["Generic", "Surface"] {
        for reader in ["Generic", "GenericAlias", "Surface", "Texture", "Constant"] {
            if writer == reader {
                continue;
            }
            let want = format!("\"PTX ISA §8.6 message passing from a {writer} write to a {reader} read");
            assert!(shapes.contains(&want), "no {writer} → {reader} program: {shapes:?}");
        }
    }
    assert!(shapes.contains("scope cta") && shapes.contains("scope gpu"), "{shapes:?}");
}
