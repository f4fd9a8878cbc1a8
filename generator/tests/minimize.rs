//! The minimizer (`src/minimize/`): planted faults and real racy programs shrink to the few
//! instructions that matter, the result is 1-minimal, every candidate the predicate sees is
//! valid, and the budget returns the best program so far.

use std::path::PathBuf;

use tcfuzz_checker::{ModelKind, Options, RaceKind};
use tcfuzz_generator::minimize::{Budget, MinimizeError, Size, minimize};
use tcfuzz_generator::random::{Family, random_program};
use tcfuzz_litmus::{Arch, Instr, Program, StmtKind, parse, print, validate};

/// Asserts that removing any one remaining instruction gives an invalid program or one the
/// predicate rejects.
fn assert_one_minimal(p: &Program, pred: &mut dyn FnMut(&Program) -> bool) {
    for (ti, t) in p.threads.iter().enumerate() {
        for (si, s) in t.body.iter().enumerate() {
            if !matches!(s.kind, StmtKind::Instr(_)) {
                continue;
            }
            let mut q = p.clone();
            q.threads[ti].body.remove(si);
            let valid = validate(&q).is_ok() && parse(&print(&q)).is_ok();
            assert!(!valid || !pred(&q), "not 1-minimal: removing instruction {si} of {} keeps the property:\n{}", t.name, print(p));
        }
    }
}

/// The planted fault: some thread stores to a location another thread loads from.
fn communicates(p: &Program) -> bool {
    let accesses = |want_store: bool| -> Vec<(usize, String)> {
        p.threads
            .iter()
            .enumerate()
            .flat_map(|(ti, t)| {
                t.body.iter().filter_map(move |s| match &s.kind {
                    StmtKind::Instr(Instr::St(st)) if want_store => Some((ti, st.addr.name.clone())),
                    StmtKind::Instr(Instr::Ld(l)) if !want_store => Some((ti, l.addr.name.clone())),
                    _ => None,
                })
            })
            .collect()
    };
    let loads = accesses(false);
    accesses(true).iter().any(|(ts, x)| loads.iter().any(|(tl, y)| ts != tl && x == y))
}

#[test]
fn a_planted_fault_shrinks_to_its_two_instructions_and_is_one_minimal() {
    let mut tried = 0;
    for seed in 0..60 {
        let p = random_program(Family::Ptx, seed);
        if !communicates(&p) {
            continue;
        }
        tried += 1;
        let mut pred = |q: &Program| {
            assert!(validate(q).is_ok(), "the predicate was shown an invalid program:\n{}", print(q));
            communicates(q)
        };
        let m = minimize(&p, Budget::calls(5000), &mut pred).unwrap();
        assert!(!m.exhausted, "seed {seed}: the budget ran out");
        let size = Size::of(&m.program);
        assert_eq!((size.threads, size.instructions), (2, 2), "seed {seed}: from {} to {}:\n{}", Size::of(&p), size, print(&m.program));
        assert_one_minimal(&m.program, &mut pred);
        // Simplified as far as the predicate allows: a weak store of 0 or 1, no scope left.
        let text = print(&m.program);
        assert!(!text.contains(".gpu") && !text.contains(".sys") && !text.contains(".release"), "seed {seed}: not simplified:\n{text}");
    }
    assert!(tried >= 20, "only {tried} seeds had the planted fault");
}

fn example(rel: &str) -> Program {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../examples").join(rel);
    parse(&std::fs::read_to_string(&path).unwrap()).unwrap()
}

fn model(p: &Program) -> ModelKind {
    if p.arch == Arch::TileIr { ModelKind::TileIr } else { ModelKind::Ptx }
}

/// A predicate that keeps a race of `kind` under the program's model.
fn keeps_race(kind: RaceKind) -> impl FnMut(&Program) -> bool {
    let options = Options { max_executions: 200_000, witnesses: false, ..Options::default() };
    move |q: &Program| tcfuzz_checker::check(q, model(q), &options).is_ok_and(|v| v.races.iter().any(|r| r.kind == kind))
}

#[test]
fn racy_examples_shrink_to_the_racing_pair() {
    // (example, race kind, instructions left at most)
    let cases = [
        ("ptx/MP+weak+relaxed-gpu-diffcta.litmus", RaceKind::Data, 2),
        ("ptx/MP+weak+rel+acq-gpu-unguarded.litmus", RaceKind::Data, 2),
        ("mbarrier/mbarrier-pc-relaxed-race.litmus", RaceKind::Data, 2),
        ("tileir/MP+weak-payload+tokens.litmus", RaceKind::Data, 2),
        ("tcgen05/pattern2-ex1-broken-st-ld-no-wait.litmus", RaceKind::Tmem, 3),
        ("mbarrier/bulk-copy-source-generic-write-race.litmus", RaceKind::Proxy, 3),
    ];
    for (file, kind, at_most) in cases {
        let p = example(file);
        let mut pred = keeps_race(kind);
        let m = minimize(&p, Budget::calls(3000), &mut pred).unwrap_or_else(|e| panic!("{file}: {e}"));
        assert!(!m.exhausted, "{file}: the budget ran out");
        let (from, to) = (Size::of(&p), Size::of(&m.program));
        assert!(to.instructions <= at_most, "{file}: {from} → {to}:\n{}", print(&m.program));
        assert!(to.instructions < from.instructions, "{file}: nothing removed");
        assert!(pred(&m.program), "{file}: the result lost its race");
        assert_one_minimal(&m.program, &mut pred);
    }
}

#[test]
fn the_budget_returns_the_best_program_so_far() {
    let p = example("ptx/MP+weak+relaxed-gpu-diffcta.litmus");
    let mut pred = keeps_race(RaceKind::Data);
    let m = minimize(&p, Budget::calls(3), &mut pred).unwrap();
    assert!(m.exhausted);
    assert!(m.calls <= 3, "{} calls", m.calls);
    assert!(pred(&m.program), "the best program so far keeps the race");
    assert!(Size::of(&m.program) <= Size::of(&p));
}

#[test]
fn a_program_without_the_property_is_refused() {
    let p = example("ptx/MP+rel+acq-gpu-diffcta.litmus");
    let err = minimize(&p, Budget::default(), keeps_race(RaceKind::Data)).unwrap_err();
    assert_eq!(err, MinimizeError::PredicateFalse);
}

#[test]
fn answers_are_memoized_so_no_program_is_judged_twice() {
    let p = random_program(Family::Ptx, 3);
    let mut seen = std::collections::HashSet::new();
    let mut twice = 0;
    let m = minimize(&p, Budget::calls(5000), |q: &Program| {
        if !seen.insert(print(q)) {
            twice += 1;
        }
        q.threads.len() > 1
    })
    .unwrap();
    assert_eq!(twice, 0);
    assert_eq!(m.calls as usize, seen.len());
}
