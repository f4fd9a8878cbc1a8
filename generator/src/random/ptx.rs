//! The `ptx` family: small PTX programs of plain memory accesses.
//!
//! 2–4 threads, each in CTA 0 or 1 of GPU 0, of 2–6 memory events (at most about 12 in all, so
//! that the exhaustive oracle stays fast) over 2–3 locations that start at 0. A step is one of:
//! - a load (37%): weak (no qualifier), `.relaxed` or `.acquire` with a scope, or `.volatile`;
//! - a store (20%): weak (no qualifier), `.relaxed` or `.release` with a scope, or `.weak`, of 1,
//!   2 or a register;
//! - an `atom` (13%): `add`, `exch` or `cas` with any or no ordering, sometimes a scope, of
//!   1, 2 or (a quarter of the time) a register;
//! - a fence (7%): `fence.sc` or `fence.acq_rel` at any scope;
//! - register arithmetic `add r, r', 1` (8%, not an event);
//! - a forward branch `beq`/`bne` on a register over the next event (10%, not an event);
//! - a spin loop `L: ld.relaxed.gpu r, x; bne r, 1, L` (3%);
//! - a CTA barrier `bar.sync 0` (2%).
//!
//! The condition is `exists (true)`: the programs are for comparing every final state.

use arbitrary::Unstructured;
use tcfuzz_litmus::{Arch, AtomOp, BarForm, Barrier, BranchCond, Fence, Instr, Program, Prop, Scope, Sem, Stmt, Value};

use super::build::{atom, exists, global, imm, instr, label, ld, program as build_program, ptx_placement, reg, st, thread};
use super::{chance, weighted};

const SCOPES: [Scope; 4] = [Scope::Cta, Scope::Cluster, Scope::Gpu, Scope::Sys];
const LOCATIONS: [&str; 3] = ["x", "y", "z"];

/// A program of the family (named `random-ptx`).
pub fn program(u: &mut Unstructured<'_>) -> arbitrary::Result<Program> {
    let nthreads = u.int_in_range(2..=4usize)?;
    let nlocs = if nthreads == 2 && chance(u, 50)? { 2 } else { 3 };
    let locs = &LOCATIONS[..nlocs];
    // 2–6 events per thread, about 12 in all.
    let most = (12 / nthreads).clamp(2, 6);
    let mut threads = Vec::with_capacity(nthreads);
    for t in 0..nthreads {
        let cta = u.int_in_range(0..=1u32)?;
        let events = u.int_in_range(2..=most)?;
        threads.push(thread(t, ptx_placement(cta, None), body(u, locs, events)?));
    }
    let locations = locs.iter().map(|l| global(l, Value::Int(0))).collect();
    Ok(build_program(Arch::Ptx, "random-ptx", locations, threads, exists(Prop::True)))
}

/// The program of `seed` (named `random-ptx-<seed>`): `random_program(Family::Ptx, seed)`.
pub fn random_program(seed: u64) -> Program {
    super::random_program(super::Family::Ptx, seed)
}

/// What one step of a thread adds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Step {
    Load,
    Store,
    Rmw,
    Fence,
    Add,
    Branch,
    SpinLoop,
    Barrier,
}

impl Step {
    /// Whether the step adds a memory event (register arithmetic and branches do not).
    fn is_event(self) -> bool {
        !matches!(self, Step::Add | Step::Branch)
    }
}

/// One thread's statements while they are being built.
#[derive(Default)]
struct Thread {
    body: Vec<Stmt>,
    /// Registers written so far: `r0`, `r1`, ...
    regs: Vec<String>,
    labels: usize,
    /// The label of a forward branch, placed after the next event.
    pending_label: Option<String>,
}

impl Thread {
    fn new_reg(&mut self) -> String {
        let r = format!("r{}", self.regs.len());
        self.regs.push(r.clone());
        r
    }

    fn new_label(&mut self) -> String {
        let l = format!("L{}", self.labels);
        self.labels += 1;
        l
    }
}

/// A thread body of `events` events.
fn body(u: &mut Unstructured<'_>, locs: &[&str], events: usize) -> arbitrary::Result<Vec<Stmt>> {
    let mut t = Thread::default();
    let mut done = 0;
    // Steps that are not events do not count; the bound keeps any input finite.
    for _ in 0..4 * events {
        if done == events {
            break;
        }
        let has_regs = !t.regs.is_empty();
        let can_branch = has_regs && t.pending_label.is_none();
        let step = weighted(
            u,
            &[
                (37, Step::Load),
                (20, Step::Store),
                (13, Step::Rmw),
                (7, Step::Fence),
                (if has_regs { 8 } else { 0 }, Step::Add),
                (if can_branch { 10 } else { 0 }, Step::Branch),
                (3, Step::SpinLoop),
                (2, Step::Barrier),
            ],
        )?;
        let x = *u.choose(locs)?;
        match step {
            Step::Load => {
                let (sem, scope) = read_sem(u)?;
                let r = t.new_reg();
                t.body.push(ld(sem, scope, &r, x));
            }
            Step::Store => {
                let (sem, scope) = write_sem(u)?;
                let v = if has_regs && chance(u, 30)? { reg(u.choose(&t.regs)?) } else { imm(u.int_in_range(1..=2)?) };
                t.body.push(st(sem, scope, x, v));
            }
            Step::Rmw => {
                let sem = *u.choose(&[None, Some(Sem::Relaxed), Some(Sem::Acquire), Some(Sem::Release), Some(Sem::AcqRel)])?;
                let scope = if chance(u, 50)? { Some(*u.choose(&SCOPES)?) } else { None };
                let op = *u.choose(&[AtomOp::Add, AtomOp::Exch, AtomOp::Cas])?;
                // Sometimes a register: the write (or, for `cas`, the comparison) then depends on
                // an earlier read.
                let a = if has_regs && chance(u, 25)? { reg(u.choose(&t.regs)?) } else { imm(u.int_in_range(0..=2)?) };
                let b = if op == AtomOp::Cas { Some(imm(u.int_in_range(1..=2)?)) } else { None };
                let r = t.new_reg();
                t.body.push(atom(sem, scope, op, &r, x, a, b));
            }
            Step::Fence => {
                let scope = *u.choose(&SCOPES)?;
                let fence = if chance(u, 50)? { Fence::Sc(scope) } else { Fence::AcqRel(scope) };
                t.body.push(instr(Instr::Fence(fence)));
            }
            Step::Add => {
                let a = reg(u.choose(&t.regs)?);
                let dst = t.new_reg();
                t.body.push(instr(Instr::Add { dst, a, b: imm(1) }));
            }
            Step::Branch => {
                let cond = if chance(u, 50)? { BranchCond::Eq } else { BranchCond::Ne };
                let a = reg(u.choose(&t.regs)?);
                let b = imm(u.int_in_range(0..=1)?);
                let target = t.new_label();
                t.body.push(instr(Instr::Branch { cond, a, b, target: target.clone() }));
                t.pending_label = Some(target);
            }
            Step::SpinLoop => {
                let l = t.new_label();
                let r = t.new_reg();
                t.body.push(label(&l));
                t.body.push(ld(Some(Sem::Relaxed), Some(Scope::Gpu), &r, x));
                t.body.push(instr(Instr::Branch { cond: BranchCond::Ne, a: reg(&r), b: imm(1), target: l }));
            }
            Step::Barrier => {
                let form = BarForm { long: false, cta: true, aligned: false };
                t.body.push(instr(Instr::Barrier(Barrier::Sync { form, operands: vec![imm(0)] })));
            }
        }
        if step.is_event() {
            done += 1;
            if let Some(l) = t.pending_label.take() {
                t.body.push(label(&l));
            }
        }
    }
    if let Some(l) = t.pending_label.take() {
        t.body.push(label(&l));
    }
    Ok(t.body)
}

/// A load's ordering: weak (none written), relaxed or acquire with a scope, or volatile.
fn read_sem(u: &mut Unstructured<'_>) -> arbitrary::Result<(Option<Sem>, Option<Scope>)> {
    Ok(match u.int_in_range(0..=3u8)? {
        0 => (None, None),
        1 => (Some(Sem::Relaxed), Some(*u.choose(&SCOPES)?)),
        2 => (Some(Sem::Acquire), Some(*u.choose(&SCOPES)?)),
        _ => (Some(Sem::Volatile), None),
    })
}

/// A store's ordering: weak (none written), relaxed or release with a scope, or `.weak`.
fn write_sem(u: &mut Unstructured<'_>) -> arbitrary::Result<(Option<Sem>, Option<Scope>)> {
    Ok(match u.int_in_range(0..=3u8)? {
        0 => (None, None),
        1 => (Some(Sem::Relaxed), Some(*u.choose(&SCOPES)?)),
        2 => (Some(Sem::Release), Some(*u.choose(&SCOPES)?)),
        _ => (Some(Sem::Weak), None),
    })
}
