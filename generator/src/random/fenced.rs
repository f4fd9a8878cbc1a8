//! The `fenced` family: programs shaped like mutual-exclusion protocols (`szymanski`, Dekker,
//! Peterson's flags) — relaxed `.gpu` loads and stores of two or three flags with `fence.sc.gpu`
//! between most of them. There the explorer's floors read off the pairs every Fence-SC order
//! must have, and its maximality test's coherence shortcuts, do most of their work; the `ptx`
//! family seldom puts a `fence.sc` between accesses that are all morally strong with each other.
//! (The checker's property test of this shape found two explorer bugs within a few hundred
//! programs that 35,000 programs of the other families had not.)
//!
//! 2–3 threads alternating between CTAs 0 and 1 of GPU 0, of 3–6 accesses (3–4 with three
//! threads) over `x`, `y` (and half the time `z`), each a load (half the time) or a store of 1 or
//! 2, with a `fence.sc.gpu` before it 45% of the time (never before the first). One program in
//! five breaks the pattern here and there: a `.cta` fence (30% of its fences), a weak access, a
//! release store or an acquire load (25% of its accesses), so that the floors' conditions fail
//! too. The condition is `exists (true)`.

use arbitrary::Unstructured;
use tcfuzz_litmus::{Arch, Fence, Instr, Program, Prop, Scope, Sem, Value};

use super::build::{exists, global, imm, instr, ld, program as build_program, ptx_placement, st, thread};
use super::chance;

/// A program of the family (named `random-fenced`).
pub fn program(u: &mut Unstructured<'_>) -> arbitrary::Result<Program> {
    let nthreads = u.int_in_range(2..=3usize)?;
    let locs: &[&str] = if chance(u, 50)? { &["x", "y"] } else { &["x", "y", "z"] };
    let odd = chance(u, 20)?;
    let most = if nthreads == 2 { 6 } else { 4 };
    let mut threads = Vec::with_capacity(nthreads);
    for t in 0..nthreads {
        let n = u.int_in_range(3..=most)?;
        let mut body = Vec::new();
        let mut regs = 0;
        for i in 0..n {
            let x = *u.choose(locs)?;
            if i > 0 && chance(u, 45)? {
                let scope = if odd && chance(u, 30)? { Scope::Cta } else { Scope::Gpu };
                body.push(instr(Instr::Fence(Fence::Sc(scope))));
            }
            let (sem, scope) = if odd && chance(u, 25)? {
                *u.choose(&[(None, None), (Some(Sem::Release), Some(Scope::Gpu)), (Some(Sem::Acquire), Some(Scope::Gpu))])?
            } else {
                (Some(Sem::Relaxed), Some(Scope::Gpu))
            };
            if chance(u, 50)? {
                // (A release load or an acquire store is no instruction: relaxed instead.)
                let sem = if sem == Some(Sem::Release) { Some(Sem::Relaxed) } else { sem };
                body.push(ld(sem, scope, &format!("r{regs}"), x));
                regs += 1;
            } else {
                let sem = if sem == Some(Sem::Acquire) { Some(Sem::Relaxed) } else { sem };
                body.push(st(sem, scope, x, imm(u.int_in_range(1..=2)?)));
            }
        }
        threads.push(thread(t, ptx_placement((t % 2) as u32, None), body));
    }
    let locations = locs.iter().map(|l| global(l, Value::Int(0))).collect();
    Ok(build_program(Arch::Ptx, "random-fenced", locations, threads, exists(Prop::True)))
}
