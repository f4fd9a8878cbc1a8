//! Explorer versus oracle on random programs shaped like mutual-exclusion protocols: relaxed
//! accesses to a few flags with `fence.sc` between them, where the explorer's floors read off
//! the pairs every Fence-SC order must have, and its maximality test's coherence shortcuts, do
//! most of their work (`szymanski` is the benchmark of that shape). The random programs of
//! `property.rs` seldom have it: a `fence.sc` there rarely sits between accesses that are all
//! morally strong with each other.
//!
//! The generator crate has the same shape as a `tcfuzz selftest` family (`--family fenced`,
//! `generator/src/random/fenced.rs`, driven by `arbitrary`); this test keeps its own
//! generator (the checker cannot depend on the generator crate) so that its seeds, among them
//! the two that found explorer bugs (146, 339), still name the same programs.
//!
//! One program in five uses another scope, a weak access, a release write or an acquire
//! read, so that the floors' conditions fail too. `TCFUZZ_PROP_SEED=<n>` replays one program;
//! `TCFUZZ_PROP_CASES` and `TCFUZZ_PROP_BASE` choose how many and from which seed.

use tcfuzz_checker::ModelKind;
use tcfuzz_litmus::*;

use crate::build::*;
use crate::property::{Rng, options, run_property, run_ptx_exact};

/// 2–3 threads (CTAs 0 and 1 of one GPU) of 3–6 instructions over two or three flags: relaxed
/// `.gpu` stores and loads with `fence.sc.gpu` between most of them, and now and then
/// something that breaks the pattern.
pub fn random_fenced_program(seed: u64) -> Program {
    let mut rng = Rng::new(seed);
    let nthreads = 2 + rng.below(2) as usize;
    let locs: &[&str] = if rng.chance(50) { &["x", "y"] } else { &["x", "y", "z"] };
    let odd = rng.chance(20);
    let mut threads = Vec::new();
    let mut ctas = Vec::new();
    for t in 0..nthreads {
        ctas.push((t % 2) as u32);
        let n = 3 + rng.below(if nthreads == 2 { 4 } else { 2 }) as usize;
        let mut body = Vec::new();
        let mut regs = 0;
        for i in 0..n {
            let x = *rng.pick(locs);
            if i > 0 && rng.chance(45) {
                let scope = if odd && rng.chance(30) { Scope::Cta } else { Scope::Gpu };
                body.push(fence_sc(scope));
            }
            let (sem, scope) = if odd && rng.chance(25) {
                *rng.pick(&[(None, None), (Some(Sem::Release), Some(Scope::Gpu)), (Some(Sem::Acquire), Some(Scope::Gpu))])
            } else {
                (Some(Sem::Relaxed), Some(Scope::Gpu))
            };
            if rng.chance(50) {
                // (A release load or an acquire store is no instruction: relaxed instead.)
                let sem = if sem == Some(Sem::Release) { Some(Sem::Relaxed) } else { sem };
                body.push(ld(sem, scope, &format!("r{regs}"), x));
                regs += 1;
            } else {
                let sem = if sem == Some(Sem::Acquire) { Some(Sem::Relaxed) } else { sem };
                body.push(st(sem, scope, x, imm(1 + rng.below(2) as i64)));
            }
        }
        threads.push(body);
    }
    let inits: Vec<(&str, i64)> = locs.iter().map(|l| (*l, 0)).collect();
    program(&format!("fenced-{seed}"), &inits, threads, &ctas, exists_true())
}

/// PTX: the same final states with the same counts, complete and blocked counts, races and no
/// duplicates as the oracle — or, where the verdict carries the explorer's caveat, a subset of
/// the oracle's executions; none of the default seeds does.
#[test]
fn explorer_matches_oracle_on_fenced_programs_ptx() {
    run_ptx_exact(random_fenced_program, &options(), 300, 0, "Ptx (fenced)");
}

/// SC on the same programs.
#[test]
fn explorer_matches_oracle_on_fenced_programs_sc() {
    run_property(random_fenced_program, ModelKind::Sc, 300, 0);
}
