//! The per-thread interpreter: replays a thread's code over registers, taking the value of each
//! read it has already performed from the execution graph, and says what the thread does next.
//!
//! Both the explorer and the oracle drive threads only through [`replay`], so data-dependent values
//! (`add`, `mov`, values computed from reads), forward branches and loops behave the same in both.
//! Replaying from the start each time keeps the explorer stateless (GenMC does the same with its
//! LLVM interpreter): the graph is the only state.
//!
//! Loops: a thread that takes more than `loop_bound` backward jumps (a branch or `goto` to its own
//! position or earlier) in one execution stops there; the execution is counted as *blocked* (GenMC
//! turns spin loops into assumes and counts those executions as blocked too). The bound is a
//! documented approximation: behaviours needing more iterations are not explored.
//!
//! Dependencies for No-Thin-Air (PTX ISA §8.10.4, "dep" of Dat3M's `ptx-v7.5.cat`: data, address and
//! control dependencies): every register carries the set of the thread's reads its value was
//! computed from; a branch adds the sets of its operands to the control set, which every later event
//! depends on.
//!
//! `assume`: where its comparison fails the thread stops ([`Step::AssumeFailed`]) and the
//! execution is discarded; where it holds, every later event control-depends on its operands.
//!
//! Synchronization objects ([`crate::program::sync`]): an arrive replays like an `atom` (its read, then
//! the write of the new state); a wait is a read whose value decides success; a blocking wait
//! that fails stops the thread like the loop bound does, with [`Replay::await_failed`] set so
//! that the verdict can tell a hang from a stale read.

use crate::error::CheckError;
use crate::exec::event::NewEvent;
use crate::program::label::Label;
use crate::program::sync::{SyncOp, arrive, cluster_arrives_twice, wait_succeeds};
use crate::program::tmem::MisuseRule;
use crate::program::{AllocOp, MAX_EVENTS_PER_THREAD, Op, Opnd, ThreadCode, rmw_result};
use tcfuzz_litmus::AtomOp;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    Event(NewEvent),
    /// The thread has finished.
    Done,
    /// The thread hit the loop bound (or a blocking wait failed: [`Replay::await_failed`]).
    Blocked,
    /// An `assume` failed: the execution is not one of the program's.
    AssumeFailed,
}

#[derive(Clone, Debug)]
pub struct Replay {
    pub step: Step,
    /// Register values at that point (the final registers when `step` is `Done`).
    pub regs: Vec<i64>,
    /// `step` is `Blocked` because a blocking wait on a synchronization object failed (its read,
    /// the thread's last event, did not see the awaited state), not because of the loop bound.
    pub await_failed: bool,
    /// When `step` is `Blocked` by the loop bound: the thread's events from this index on are its
    /// last loop iteration (the events since its previous backward jump).
    pub spin_from: usize,
    /// Misuses of the Tensor Memory allocator so far: the event (the allocator read) and the rule.
    pub misuse: Vec<(usize, MisuseRule)>,
}

/// Replays `code`. `performed[i]` is the value of the thread's `i`-th event already in the graph
/// (for reads, the value read; anything for writes and fences).
pub fn replay(code: &ThreadCode, performed: &[i64], loop_bound: u32) -> Result<Replay, CheckError> {
    let mut regs = code.reg_init.clone();
    let mut rdeps = vec![0u64; regs.len()];
    let mut ctrl = 0u64;
    let mut k = 0usize;
    let mut pc = 0usize;
    let mut back_jumps = 0u32;
    let (mut spin_from, mut last_jump) = (0usize, 0usize);
    let mut misuse = Vec::new();
    // Bulk copies issued so far (`Label::bulk_copy`).
    let mut copies = 0u32;
    let val = |regs: &[i64], rdeps: &[u64], o: Opnd| match o {
        Opnd::Imm(v) => (v, 0),
        Opnd::Reg(r) => (regs[r], rdeps[r]),
    };
    loop {
        let Some(line) = code.code.get(pc) else {
            return Ok(Replay { step: Step::Done, regs, await_failed: false, spin_from, misuse });
        };
        // The thread's next event, number `k`: refused past the limit, so that every event's
        // index has a bit in the dependency words (`1 << k`).
        let past_limit = k >= MAX_EVENTS_PER_THREAD;
        let ev_cas = |label: Label, value: i64, deps: u64, cas_expected: Option<i64>| {
            if past_limit {
                return Err(CheckError::TooLarge(format!("thread {} performs more than {MAX_EVENTS_PER_THREAD} events", code.name)));
            }
            Ok(Replay {
                step: Step::Event(NewEvent { label, value, deps, cas_expected, span: line.span }),
                regs: Vec::new(),
                await_failed: false,
                spin_from,
                misuse: Vec::new(),
            })
        };
        let ev = |label: Label, value: i64, deps: u64| ev_cas(label, value, deps, None);
        match &line.op {
            Op::Load { dst, label } => {
                if k == performed.len() {
                    return ev(*label, 0, ctrl);
                }
                if let Some(d) = *dst {
                    regs[d] = performed[k];
                    rdeps[d] = 1 << k;
                }
                k += 1;
                pc += 1;
            }
            Op::Store { src, label } => {
                if k == performed.len() {
                    let (v, d) = val(&regs, &rdeps, *src);
                    return ev(*label, v, d | ctrl);
                }
                k += 1;
                pc += 1;
            }
            Op::Rmw { dst, op, a, b, read, write } => {
                let (av, ad) = val(&regs, &rdeps, *a);
                let (bv, bd) = match b {
                    Some(b) => {
                        let (v, d) = val(&regs, &rdeps, *b);
                        (Some(v), d)
                    }
                    None => (None, 0),
                };
                if k == performed.len() {
                    let cas_expected = (*op == AtomOp::Cas && bv.is_some()).then_some(av);
                    return ev_cas(*read, 0, ctrl, cas_expected);
                }
                let old = performed[k];
                let read_index = k;
                k += 1;
                if let Some(new) = rmw_result(*op, old, av, bv) {
                    if k == performed.len() {
                        return ev(*write, new, (1 << read_index) | ad | bd | ctrl);
                    }
                    k += 1;
                }
                if let Some(d) = *dst {
                    regs[d] = old;
                    rdeps[d] = 1 << read_index;
                }
                pc += 1;
            }
            Op::DynBarrier { reg, ids, solo } => {
                // Which barrier it is depends on the register: a dependency of the arrival.
                let (v, d) = (regs[*reg], rdeps[*reg]);
                let id = ids.iter().find(|(x, _)| *x == v).map_or(*solo, |&(_, id)| id);
                if k == performed.len() {
                    return ev(crate::program::barrier_label(id), 0, ctrl | d);
                }
                k += 1;
                pc += 1;
            }
            Op::Fence { label } | Op::Barrier { label } => {
                if k == performed.len() {
                    return ev(*label, 0, ctrl);
                }
                k += 1;
                pc += 1;
            }
            Op::SyncArrive { dst, op, read, write, wait } => {
                if k == performed.len() {
                    return ev(*read, 0, ctrl);
                }
                let (old, read_index) = (performed[k], k);
                k += 1;
                if let (SyncOp::ClusterArrive { .. }, Some(d)) = (op, *dst)
                    && cluster_arrives_twice(old, regs[d])
                {
                    misuse.push((read_index, MisuseRule::ClusterArriveTwice));
                }
                let mut deps = 0;
                let (new, phase) = arrive(*op, old, &mut |o| {
                    let (v, d) = val(&regs, &rdeps, o);
                    deps |= d;
                    v
                });
                if k == performed.len() {
                    return ev(*write, new, (1 << read_index) | deps | ctrl);
                }
                k += 1;
                if let Some((mode, label)) = wait {
                    if k == performed.len() {
                        return ev(*label, 0, ctrl);
                    }
                    let ok = wait_succeeds(*mode, performed[k], phase);
                    k += 1;
                    if !ok {
                        return Ok(Replay { step: Step::Blocked, regs, await_failed: true, spin_from, misuse });
                    }
                    // The thread goes on only because the wait saw the phase complete: every later
                    // event control-depends on it (the wait is a loop), and on the arrival that
                    // gave the phase.
                    ctrl |= 1 << (k - 1) | 1 << read_index | deps;
                }
                if let Some(d) = *dst {
                    regs[d] = phase;
                    rdeps[d] = 1 << read_index;
                }
                pc += 1;
            }
            Op::SyncWait { dst, mode, operand, blocking, label } => {
                if k == performed.len() {
                    return ev(*label, 0, ctrl);
                }
                let (v, d) = val(&regs, &rdeps, *operand);
                let ok = wait_succeeds(*mode, performed[k], v);
                if *blocking && !ok {
                    return Ok(Replay { step: Step::Blocked, regs, await_failed: true, spin_from, misuse });
                }
                if *blocking {
                    // Past a blocking wait only because it succeeded: a control dependency of
                    // every later event (as the loop it stands for would be), on the wait and on
                    // the phase it waited for.
                    ctrl |= 1 << k | d;
                }
                if let Some(d) = *dst {
                    regs[d] = crate::program::sync::wait_result(*mode, ok);
                    rdeps[d] = 1 << k;
                }
                k += 1;
                pc += 1;
            }
            Op::BulkCopy { read, write, fence, complete, cread, cwrite } => {
                copies += 1;
                let tagged = |l: &Label| Label { bulk_copy: copies, ..*l };
                if k == performed.len() {
                    return ev(tagged(read), 0, ctrl);
                }
                let (v, read_index) = (performed[k], k);
                k += 1;
                if k == performed.len() {
                    return ev(tagged(write), v, (1 << read_index) | ctrl);
                }
                k += 1;
                if k == performed.len() {
                    return ev(tagged(fence), 0, ctrl);
                }
                k += 1;
                if k == performed.len() {
                    return ev(tagged(cread), 0, ctrl);
                }
                let (old, cread_index) = (performed[k], k);
                k += 1;
                let mut deps = 0;
                let (new, _) = arrive(*complete, old, &mut |o| {
                    let (v, d) = val(&regs, &rdeps, o);
                    deps |= d;
                    v
                });
                if k == performed.len() {
                    return ev(tagged(cwrite), new, (1 << cread_index) | deps | ctrl);
                }
                k += 1;
                pc += 1;
            }
            Op::TcCompute { reads, acc, write, f } => {
                let mut values = Vec::with_capacity(3);
                let mut deps = 0;
                for label in reads {
                    if k == performed.len() {
                        return ev(*label, 0, ctrl);
                    }
                    values.push(performed[k]);
                    deps |= 1 << k;
                    k += 1;
                }
                if let Some((o, label)) = acc {
                    let (v, d) = val(&regs, &rdeps, *o);
                    deps |= d;
                    if v != 0 {
                        if k == performed.len() {
                            return ev(*label, 0, ctrl | d);
                        }
                        values.push(performed[k]);
                        deps |= 1 << k;
                        k += 1;
                    } else if matches!(o, Opnd::Reg(_)) {
                        // A register flag that is 0: the accumulator's slot holds an event that
                        // does nothing, so that the mma has the same events whatever the flag
                        // (`crate::program::label::Label::accumulator_skip`).
                        if k == performed.len() {
                            return ev(label.accumulator_skip(), 0, ctrl | d);
                        }
                        k += 1;
                    }
                }
                if k == performed.len() {
                    return ev(*write, f.apply(&values), deps | ctrl);
                }
                k += 1;
                pc += 1;
            }
            Op::TcCommit { issue, op, arrives } => {
                if k == performed.len() {
                    return ev(*issue, 0, ctrl);
                }
                k += 1;
                for (read, write) in arrives {
                    if k == performed.len() {
                        return ev(*read, 0, ctrl);
                    }
                    let (old, read_index) = (performed[k], k);
                    k += 1;
                    let (new, _) = arrive(*op, old, &mut |o| val(&regs, &rdeps, o).0);
                    if k == performed.len() {
                        return ev(*write, new, (1 << read_index) | ctrl);
                    }
                    k += 1;
                }
                pc += 1;
            }
            Op::TmemAlloc { op, rendezvous, read, write, slot } => {
                if let Some(label) = rendezvous {
                    if k == performed.len() {
                        return ev(*label, 0, ctrl);
                    }
                    k += 1;
                }
                if k == performed.len() {
                    return ev(*read, 0, ctrl);
                }
                let (old, read_index) = (performed[k], k);
                k += 1;
                let mut deps = (1 << read_index) | ctrl;
                let (new, addr, rule) = match *op {
                    AllocOp::Alloc { ncols } => {
                        let a = crate::program::tmem::alloc(old, ncols);
                        (a.state, a.addr, a.misuse)
                    }
                    AllocOp::Dealloc { ncols, addr: Some(o) } => {
                        let (v, d) = val(&regs, &rdeps, o);
                        deps |= d;
                        let (state, rule) = crate::program::tmem::dealloc(old, v, ncols);
                        (state, None, rule)
                    }
                    AllocOp::Dealloc { addr: None, .. } => (old, None, None),
                    AllocOp::Relinquish => (crate::program::tmem::relinquish(old), None, None),
                };
                if let Some(rule) = rule {
                    misuse.push((read_index, rule));
                }
                if k == performed.len() {
                    return ev(*write, new, deps);
                }
                k += 1;
                if matches!(op, AllocOp::Alloc { .. }) {
                    // No room: the warp blocks until another warp deallocates (crate::program::tmem).
                    let Some(addr) = addr else {
                        return Ok(Replay { step: Step::Blocked, regs, await_failed: true, spin_from, misuse });
                    };
                    if let Some(label) = slot {
                        if k == performed.len() {
                            return ev(*label, addr, (1 << read_index) | ctrl);
                        }
                        k += 1;
                    }
                }
                pc += 1;
            }
            Op::Mov { dst, src } => {
                let (v, d) = val(&regs, &rdeps, *src);
                if let Some(r) = *dst {
                    regs[r] = v;
                    rdeps[r] = d;
                }
                pc += 1;
            }
            Op::Add { dst, a, b } => {
                let (av, ad) = val(&regs, &rdeps, *a);
                let (bv, bd) = val(&regs, &rdeps, *b);
                if let Some(r) = *dst {
                    regs[r] = av.wrapping_add(bv);
                    rdeps[r] = ad | bd;
                }
                pc += 1;
            }
            Op::Branch { eq, a, b, target } => {
                let (av, ad) = val(&regs, &rdeps, *a);
                let (bv, bd) = val(&regs, &rdeps, *b);
                ctrl |= ad | bd;
                if (av == bv) == *eq {
                    if *target <= pc {
                        back_jumps += 1;
                        (spin_from, last_jump) = (last_jump, k);
                        if back_jumps > loop_bound {
                            return Ok(Replay { step: Step::Blocked, regs, await_failed: false, spin_from, misuse });
                        }
                    }
                    pc = *target;
                } else {
                    pc += 1;
                }
            }
            Op::Assume { cmp, a, b } => {
                let (av, ad) = val(&regs, &rdeps, *a);
                let (bv, bd) = val(&regs, &rdeps, *b);
                if !cmp.holds(av, bv) {
                    return Ok(Replay { step: Step::AssumeFailed, regs, await_failed: false, spin_from, misuse });
                }
                // The thread goes on only because it holds: a control dependency, like a branch.
                ctrl |= ad | bd;
                pc += 1;
            }
            Op::Goto { target } => {
                if *target <= pc {
                    back_jumps += 1;
                    (spin_from, last_jump) = (last_jump, k);
                    if back_jumps > loop_bound {
                        return Ok(Replay { step: Step::Blocked, regs, await_failed: false, spin_from, misuse });
                    }
                }
                pc = *target;
            }
        }
    }
}
