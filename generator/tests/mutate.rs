//! The coverage-guided family's edits (`src/mutate/`): each reaches what it is there for — a swap
//! of neighbouring instructions, an access routed through a texture, surface, constant or
//! generic alias with or without its proxy fence, the `atom`/`red` operations beyond add and
//! exchange, `membar`, `st.volatile`, the spaces of `fence.proxy.async` — and every mutant
//! validates, round-trips through print and parse, and is taken by the checker.

use std::collections::{BTreeSet, HashMap};

use arbitrary::Unstructured;
use tcfuzz_checker::{CheckError, CompiledProgram, ModelKind, Options, check};
use tcfuzz_generator::mutate::{Limits, PoolSeed, SeedPool, mutate};
use tcfuzz_generator::random::{Family, random_program, seed_bytes};
use tcfuzz_litmus::{
    AccessProxy, AliasProxy, AtomOp, CtaGroup, Fence, Instr, LocationKind, Mbarrier, Program, Sem, StmtKind, Tcgen05, parse, print,
    validate,
};

const LIMITS: Limits = Limits { edits: 3, max_threads: 4, max_instructions: 12 };

fn pool_of(programs: Vec<Program>) -> SeedPool {
    let mut counts = HashMap::new();
    let seeds = programs
        .into_iter()
        .enumerate()
        .map(|(i, program)| {
            counts.insert(format!("f{i}"), 1);
            PoolSeed { id: i as u64 + 1, program, features: vec![format!("f{i}")] }
        })
        .collect();
    SeedPool::new(seeds, &counts)
}

fn assert_valid(p: &Program, what: &str) {
    let text = print(p);
    if let Err(e) = validate(p) {
        panic!("{what}: invalid mutant:\n{}\n{text}", e.render("mutant"));
    }
    match parse(&text) {
        Ok(again) => assert!(again.same_as(p), "{what}: print then parse changed the mutant:\n{text}"),
        Err(e) => panic!("{what}: the printed mutant does not parse:\n{}\n{text}", e.render("printed")),
    }
    if let Err(e) = CompiledProgram::compile(p) {
        panic!("{what}: the checker does not take the mutant: {e}\n{text}");
    }
}

/// What a program has that only the new edits make: one word per capability.
fn capabilities(p: &Program, out: &mut BTreeSet<&'static str>) {
    for l in &p.locations {
        if let LocationKind::Alias { proxy, .. } = l.kind {
            out.insert(match proxy {
                AliasProxy::Generic => "generic alias",
                AliasProxy::Texture => "texture alias",
                AliasProxy::Surface => "surface alias",
                AliasProxy::Constant => "constant alias",
            });
        }
    }
    for s in p.threads.iter().flat_map(|t| &t.body) {
        let StmtKind::Instr(i) = &s.kind else { continue };
        match i {
            Instr::Ld(l) if l.proxy == AccessProxy::Texture => _ = out.insert("tld"),
            Instr::Ld(l) if l.proxy == AccessProxy::Surface => _ = out.insert("suld"),
            Instr::Ld(l) if l.proxy == AccessProxy::Constant => _ = out.insert("cold"),
            Instr::St(s) if s.proxy == AccessProxy::Surface => _ = out.insert("sust"),
            Instr::St(s) if s.sem == Some(Sem::Volatile) => _ = out.insert("st.volatile"),
            Instr::Atom(a) if !matches!(a.op, AtomOp::Add | AtomOp::Exch | AtomOp::Cas) => _ = out.insert("atom other op"),
            Instr::Red(r) if r.op != AtomOp::Add => _ = out.insert("red other op"),
            Instr::Fence(Fence::Membar(_)) => _ = out.insert("membar"),
            Instr::Fence(Fence::Proxy(_)) => _ = out.insert("fence.proxy"),
            _ => {}
        }
    }
}

#[test]
fn the_mutator_reaches_every_new_edit_and_its_mutants_are_valid() {
    // A pool of small PTX programs (generic memory, fences, atomics), as the campaign's would be.
    let programs: Vec<Program> = (0..30).map(|s| random_program(Family::Ptx, s)).collect();
    let pool = pool_of(programs);
    let mut seen = BTreeSet::new();
    let mut edits = BTreeSet::new();
    let mut made = 0;
    for k in 0..3000u64 {
        let bytes = seed_bytes(k, 4096);
        let mut u = Unstructured::new(&bytes);
        let Some(m) = mutate(&pool, LIMITS, &mut u).expect("enough bytes") else { continue };
        made += 1;
        assert_valid(&m.program, &format!("mutant {k} ({})", m.edits.join("; ")));
        capabilities(&m.program, &mut seen);
        for e in &m.edits {
            edits.insert(e.split_whitespace().next().unwrap_or_default().to_string());
        }
    }
    assert!(made >= 2700, "only {made} of 3000 attempts gave a mutant");
    for want in ["insert", "delete", "swap", "requalify", "route", "move", "splice", "condition"] {
        assert!(edits.contains(want), "no `{want}` edit in {edits:?}");
    }
    for want in [
        "generic alias",
        "texture alias",
        "surface alias",
        "constant alias",
        "tld",
        "suld",
        "cold",
        "sust",
        "st.volatile",
        "atom other op",
        "red other op",
        "membar",
        "fence.proxy",
    ] {
        assert!(seen.contains(want), "no mutant has {want}: {seen:?}");
    }
}

#[test]
fn a_seed_past_the_limits_is_mutated_without_growing() {
    // An `assume` program of more than 12 instructions: before, no mutant of it was ever within
    // the limits, so the pool's largest seeds were never mutated.
    let big = (0..200)
        .map(|s| random_program(Family::Assume, s))
        .find(|p| p.threads.iter().flat_map(|t| &t.body).filter(|s| matches!(s.kind, StmtKind::Instr(_))).count() > 14)
        .expect("an assume program of more than 14 instructions");
    let size = |p: &Program| p.threads.iter().flat_map(|t| &t.body).filter(|s| matches!(s.kind, StmtKind::Instr(_))).count();
    let original = size(&big);
    let pool = pool_of(vec![big]);
    let mut made = 0;
    for k in 0..200u64 {
        let bytes = seed_bytes(k, 4096);
        let mut u = Unstructured::new(&bytes);
        if let Some(m) = mutate(&pool, LIMITS, &mut u).expect("enough bytes") {
            assert!(size(&m.program) <= original, "mutant {k} grew from {original} to {}", size(&m.program));
            assert_valid(&m.program, &format!("mutant {k}"));
            made += 1;
        }
    }
    assert!(made >= 150, "only {made} of 200 attempts mutated the large seed");
}

#[test]
fn a_swap_exchanges_two_neighbouring_instructions() {
    let p = parse("PTX s\n{ x = 0; y = 0; }\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n st.relaxed.gpu x, 1 | ld.relaxed.gpu r0, y ;\n fence.sc.gpu | ld.relaxed.gpu r1, x ;\n st.relaxed.gpu y, 1 | ;\nexists (true)\n")
        .expect("parses");
    let pool = pool_of(vec![p.clone()]);
    let limits = Limits { edits: 1, ..LIMITS };
    let mut swapped = 0;
    for k in 0..400u64 {
        let bytes = seed_bytes(k, 4096);
        let mut u = Unstructured::new(&bytes);
        let Some(m) = mutate(&pool, limits, &mut u).expect("enough bytes") else { continue };
        if !m.edits[0].starts_with("swap") {
            continue;
        }
        swapped += 1;
        // Same instructions per thread, in another order, and exactly two of them moved.
        for (a, b) in p.threads.iter().zip(&m.program.threads) {
            let before: Vec<String> = a.body.iter().map(|s| format!("{:?}", s.kind)).collect();
            let after: Vec<String> = b.body.iter().map(|s| format!("{:?}", s.kind)).collect();
            let moved = before.iter().zip(&after).filter(|(x, y)| x != y).count();
            assert!(moved == 0 || moved == 2, "{}: {moved} statements moved", m.edits[0]);
            let (mut x, mut y) = (before.clone(), after.clone());
            x.sort();
            y.sort();
            assert_eq!(x, y, "{}", m.edits[0]);
        }
    }
    assert!(swapped > 10, "only {swapped} swaps");
}

#[test]
fn the_lifecycle_edit_initialises_mbarriers_and_allocates_tensor_memory_validly() {
    // Sync programs have counted mbarriers, tcgen05 programs shared memory and two warps.
    let programs: Vec<Program> =
        (0..20).map(|s| random_program(Family::Sync, s)).chain((0..20).map(|s| random_program(Family::Tcgen05, s))).collect();
    let pool = pool_of(programs);
    let limits = Limits { edits: 1, max_threads: 4, max_instructions: 24 };
    let mut seen = BTreeSet::new();
    let mut lifecycles = 0;
    for k in 0..4000u64 {
        let bytes = seed_bytes(k, 4096);
        let mut u = Unstructured::new(&bytes);
        let Some(m) = mutate(&pool, limits, &mut u).expect("enough bytes") else { continue };
        let edit = &m.edits[0];
        if !(edit.starts_with("init ") || edit.starts_with("alloc tmem")) {
            continue;
        }
        lifecycles += 1;
        assert_valid(&m.program, &format!("mutant {k} ({edit})"));
        for t in &m.program.threads {
            for s in &t.body {
                let StmtKind::Instr(i) = &s.kind else { continue };
                match i {
                    Instr::Mbarrier(Mbarrier::Init { addr, .. }) => {
                        // The initialised mbarrier is declared without its count now.
                        let decl = m.program.locations.iter().find(|l| l.name == addr.name).expect("declared");
                        assert!(matches!(decl.kind, LocationKind::Mbarrier { count: None, .. }), "{edit}: {decl:?}");
                        seen.insert("mbarrier.init");
                    }
                    Instr::Tcgen05(Tcgen05::Alloc { group: CtaGroup::One, .. }) => _ = seen.insert("alloc"),
                    Instr::Tcgen05(Tcgen05::Dealloc { group: CtaGroup::One, .. }) => _ = seen.insert("dealloc"),
                    Instr::Tcgen05(Tcgen05::RelinquishAllocPermit { group: CtaGroup::One }) => _ = seen.insert("relinquish"),
                    _ => {}
                }
            }
        }
        if edit.ends_with("no dealloc") {
            seen.insert("no dealloc");
        }
        // The checker takes every lifecycle mutant: a verdict, or its execution budget spent.
        let opts = Options { witnesses: false, max_executions: 2000, ..Options::default() };
        match check(&m.program, ModelKind::Ptx, &opts) {
            Ok(v) => {
                if v.misuse.iter().any(|x| x.rule.name() == "exit-with-live-columns") {
                    seen.insert("exit-with-live-columns");
                }
            }
            Err(CheckError::TooManyExecutions { .. }) => {}
            Err(e) => panic!("mutant {k} ({edit}): {e}\n{}", print(&m.program)),
        }
    }
    assert!(lifecycles >= 50, "only {lifecycles} lifecycle edits in 4000 attempts");
    for want in ["mbarrier.init", "alloc", "dealloc", "relinquish", "no dealloc", "exit-with-live-columns"] {
        assert!(seen.contains(want), "no lifecycle mutant has {want}: {seen:?}");
    }
}
