//! The `assume` family: a program of the [`super::ptx`] family, then, after each load, with
//! probability 2/5, `assume.cmp r, v` on the register it loaded (`cmp` any of `eq ne lt le gt
//! ge`, `v` 0–2). A failed assume discards the execution, and the explorer prunes most such
//! executions unexplored (it *moots* them); these programs check that the pruning keeps every
//! complete execution: explorer = oracle on states and complete counts.

use arbitrary::Unstructured;
use tcfuzz_litmus::{AssumeCmp, Instr, Program, Stmt, StmtKind};

use super::build::{imm, instr, reg};
use super::chance;

/// A program of the family (named `random-assume`).
pub fn program(u: &mut Unstructured<'_>) -> arbitrary::Result<Program> {
    let mut p = super::ptx::program(u)?;
    for t in &mut p.threads {
        let mut body: Vec<Stmt> = Vec::with_capacity(t.body.len() + 4);
        for s in std::mem::take(&mut t.body) {
            let loaded = match &s.kind {
                StmtKind::Instr(Instr::Ld(l)) => Some(l.dst.clone()),
                _ => None,
            };
            body.push(s);
            if let Some(r) = loaded
                && chance(u, 40)?
            {
                let cmp = *u.choose(&AssumeCmp::ALL)?;
                body.push(instr(Instr::Assume { cmp, a: reg(&r), b: imm(u.int_in_range(0..=2)?) }));
            }
        }
        t.body = body;
    }
    p.name = "random-assume".into();
    Ok(p)
}
