//! Tile IR programs as one runnable kernel ([`tcfuzz_gpu::tileir::Runnable`]), compiled by
//! NVIDIA's `tileiras`: what `tcfuzz gpu run` loads for a Tile IR program. Skipped, with the
//! reason printed, where `tileiras` is not installed; `on_gpu.rs` runs one on a GPU.

use std::collections::BTreeSet;
use std::path::Path;

use tcfuzz_checker::{ModelKind, Options};
use tcfuzz_gpu::Toolchain;
use tcfuzz_gpu::session::{self, Model, PrepareError, Runnable};
use tcfuzz_litmus::Program;

fn tools() -> bool {
    let tc = Toolchain::discover();
    if tc.tileiras.is_none() || tc.ptxas.is_none() {
        println!("skipped: tileiras / ptxas not found (bash .ci/setup-nvidia installs them)");
        return false;
    }
    true
}

/// The Tile IR model's verdict as the session takes it.
fn model(p: &Program) -> Model {
    let v = tcfuzz_checker::check(p, ModelKind::TileIr, &Options::default()).unwrap_or_else(|e| panic!("{}: {e}", p.name));
    Model {
        states: v.states.iter().map(|s| (s.values.iter().map(|(n, x)| (n.to_string(), *x)).collect(), s.executions)).collect(),
        races: v.races.len(),
        hung_threads: v.hung_threads.clone(),
        misuse: Vec::new(),
    }
}

/// Prepares `p` and checks that the kernel's state names are exactly the model's.
fn prepared_names_match(name: &str, p: Program) -> Result<(), PrepareError> {
    let m = model(&p);
    let prepared = session::prepare(name, p, m)?;
    let Runnable::Tile(k) = &prepared.kernel else { panic!("{name}: a Tile IR program prepared as a PTX kernel") };
    assert!(k.block_threads > 0 && k.block_threads <= 1024, "{name}: {} threads per tile block", k.block_threads);
    assert_eq!(prepared.target(), "tileir sm_90");
    let ours: BTreeSet<String> = k.names().into_iter().collect();
    if let Some((first, _)) = prepared.model.states.first() {
        let models: BTreeSet<String> = first.iter().map(|(n, _)| n.clone()).collect();
        assert_eq!(ours, models, "{name}: the kernel's state names are not the model's");
    }
    Ok(())
}

#[test]
fn every_tileir_example_compiles_to_one_kernel_with_the_models_state_names() {
    if !tools() {
        return;
    }
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/tileir");
    let mut files: Vec<_> = std::fs::read_dir(dir).expect("examples/tileir").flatten().map(|e| e.path()).collect();
    files.sort();
    for f in &files {
        let p = tcfuzz_litmus::parse(&std::fs::read_to_string(f).expect("readable")).expect("the example parses");
        prepared_names_match(&f.display().to_string(), p).unwrap_or_else(|e| panic!("{e}"));
    }
    assert_eq!(files.len(), 13);
}

/// Generated Tile IR programs: each compiles (a `tileiras` error is an emission bug), or is
/// refused for what the kernel cannot express (an atomic with no integer Tile IR mode, two
/// threads of one tile block: 7 of these 24).
#[test]
fn generated_tileir_programs_compile_to_one_kernel() {
    use tcfuzz_generator::random::{Family, random_program};
    if !tools() {
        return;
    }
    let (mut compiled, mut refused) = (0, 0);
    for seed in 0..24 {
        let p = random_program(Family::TileIr, seed);
        match prepared_names_match(&format!("tileir seed {seed}"), p) {
            Ok(()) => compiled += 1,
            Err(PrepareError::Unsupported(m)) if m.contains("no integer atomic mode") || m.contains("share a tile block") => refused += 1,
            Err(e) => panic!("{e}"),
        }
    }
    println!("{compiled} compiled, {refused} refused");
    assert!(compiled >= 15, "only {compiled} of 24 compiled");
}

/// The harness survives NVIDIA's lowering: the stressing tile blocks' and the testing blocks'
/// pre-stress accesses (both times `STRESS_ACCESSES` relaxed stores and loads of a scratch line:
/// a compiler that merged them would leave the stress with nothing to do), and the spin barrier
/// (its arrival and, in a loop, its reads; a first version's loop of plain loads was dropped,
/// and the thread's accesses were moved before it).
#[test]
fn the_stressing_blocks_accesses_reach_the_compiled_code() {
    use tcfuzz_gpu::tileir::{self, STRESS_ACCESSES};
    if !tools() {
        return;
    }
    let p = tcfuzz_litmus::parse(include_str!("../../examples/tileir/SB+relaxed-no-tokens.litmus")).expect("SB parses");
    let (_, compiled) = tileir::compile_runnable(&p, &Toolchain::discover(), "sm_90").expect("SB compiles");
    // SB's own accesses are relaxed at device scope too: two stores and two loads.
    let count = |op: &str| compiled.ptx.lines().filter(|l| l.trim_start().starts_with(op)).count();
    let (stores, loads) = (count("st.relaxed.gpu"), count("ld.relaxed.gpu"));
    assert!(stores >= STRESS_ACCESSES + 2 && loads >= STRESS_ACCESSES + 2, "{stores} stores, {loads} loads:\n{}", compiled.ptx);
    // In `tileiras` 13.5's layout: the pre-stress, the barrier (arrival, then reads), the
    // threads, the stressing blocks. Only the pre-stress's accesses come before the barrier.
    let lines: Vec<&str> = compiled.ptx.lines().map(str::trim).collect();
    let atomic = |operand: &str| lines.iter().position(|l| l.starts_with("atom.global.add.u32") && l.ends_with(&format!("], {operand};")));
    let (arrive, read) = (atomic("1").expect("the barrier's arrival"), atomic("0").expect("the barrier's read"));
    let before = lines[..arrive].iter().filter(|l| l.starts_with("ld.relaxed.gpu") || l.starts_with("st.relaxed.gpu")).count();
    assert!(arrive < read && before == STRESS_ACCESSES, "{before} accesses before the spin barrier:\n{}", compiled.ptx);
}
