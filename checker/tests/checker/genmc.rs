//! Pinned execution counts of GenMC's synthetic benchmark families under SC
//! (`../shared/bench/GENMC-SHAPES.md`; GenMC v0.11.0). Executions are distinct (po, rf, co)
//! graphs, so N-writers has (N+2)! of them.

use tcfuzz_checker::{ModelKind, Options, check, check_oracle};
use tcfuzz_litmus::{AtomOp, Program, Scope, Sem};

use crate::build::*;

const REL: Option<Sem> = Some(Sem::Release);
const ACQ: Option<Sem> = Some(Sem::Acquire);
const RLX: Option<Sem> = Some(Sem::Relaxed);
const GPU: Option<Scope> = Some(Scope::Gpu);

pub fn readers(n: usize) -> Program {
    let mut threads = vec![vec![st(REL, GPU, "x", imm(42))]];
    for _ in 0..n {
        threads.push(vec![ld(ACQ, GPU, "r", "x")]);
    }
    program(&format!("readers{n}"), &[("x", 0)], threads, &[], exists_true())
}

pub fn n_writers(n: usize) -> Program {
    let mut threads = vec![vec![ld(ACQ, GPU, "r", "x")]];
    for i in 0..=n {
        threads.push(vec![st(REL, GPU, "x", imm(i as i64))]);
    }
    program(&format!("N-writers{n}"), &[("x", 0)], threads, &[], exists_true())
}

pub fn casrot(n: usize) -> Program {
    let threads = (1..=n).map(|i| vec![atom(RLX, GPU, AtomOp::Cas, "r", "x", imm(i as i64 - 1), Some(imm(i as i64)))]).collect();
    program(&format!("casrot{n}"), &[("x", 0)], threads, &[], exists_true())
}

pub fn ainc(n: usize) -> Program {
    let threads = (0..n).map(|_| vec![atom(RLX, GPU, AtomOp::Add, "r", "x", imm(1), None)]).collect();
    program(&format!("ainc{n}"), &[("x", 0)], threads, &[], exists_true())
}

pub fn binc(n: usize) -> Program {
    let threads = (0..n)
        .map(|_| vec![atom(RLX, GPU, AtomOp::Add, "r", "x", imm(1), None), atom(RLX, GPU, AtomOp::Add, "s", "y", imm(1), None)])
        .collect();
    program(&format!("binc{n}"), &[("x", 0), ("y", 0)], threads, &[], exists_true())
}

pub fn wcas(n: usize) -> Program {
    let mut threads = vec![vec![st(REL, GPU, "x", imm(2))]];
    for _ in 0..n {
        threads.push(vec![atom(RLX, GPU, AtomOp::Cas, "r", "x", imm(2), Some(imm(3)))]);
    }
    program(&format!("wcas{n}"), &[("x", 0)], threads, &[], exists_true())
}

fn explore(p: &Program) -> (u64, u64) {
    let opts = Options { detect_duplicates: true, ..Options::default() };
    let v = check(p, ModelKind::Sc, &opts).expect("check");
    assert_eq!(v.stats.duplicates, Some(0), "{}: duplicates", p.name);
    if std::env::var("TCFUZZ_DEPTH").is_ok() {
        eprintln!("{}: {} executions, max depth {}", p.name, v.stats.complete, v.stats.max_depth);
    }
    (v.stats.complete, v.stats.blocked)
}

fn assert_counts(family: fn(usize) -> Program, expected: &[(usize, u64)], oracle_up_to: usize) {
    for &(n, count) in expected {
        let p = family(n);
        assert_eq!(explore(&p), (count, 0), "{} under SC", p.name);
        if n <= oracle_up_to {
            let o = check_oracle(&p, ModelKind::Sc, &Options::default()).expect("oracle");
            assert_eq!(o.stats.complete, count, "{} under SC, oracle", p.name);
        }
    }
}

#[test]
fn genmc_readers_sc() {
    assert_counts(readers, &[(1, 2), (2, 4), (3, 8), (8, 256)], 3);
}

#[test]
fn genmc_n_writers_sc() {
    assert_counts(n_writers, &[(1, 6), (2, 24), (3, 120), (4, 720)], 3);
}

#[test]
fn genmc_casrot_sc() {
    assert_counts(casrot, &[(2, 2), (3, 5), (4, 14), (5, 43), (6, 144)], 4);
}

#[test]
fn genmc_ainc_sc() {
    assert_counts(ainc, &[(2, 2), (3, 6), (4, 24), (5, 120)], 4);
}

#[test]
fn genmc_binc_sc() {
    assert_counts(binc, &[(2, 4), (3, 36), (4, 576)], 2);
}

#[test]
fn genmc_wcas_sc() {
    assert_counts(wcas, &[(2, 5), (3, 13), (4, 33), (5, 81)], 4);
}
