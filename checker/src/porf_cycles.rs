//! Whether some execution of a PTX program could have a cyclic `po ∪ rf` (load buffering): a
//! static over-approximation on instructions, so that the explorer's caveat about such
//! executions ([`crate::explore`]) is given only where they can exist.
//!
//! The graph has one node per instruction and an edge
//! - from each instruction to every later one of its thread (program order; both ways inside a
//!   thread that loops, where any instruction may run after any other);
//! - from an instruction that may write a location to one of another thread that may read it (a
//!   possible `rf`);
//! - within a thread, from a write to an earlier read of the same location where the model lets
//!   the read see it: through another virtual address (an alias), or when either is the perform
//!   of an asynchronous `tcgen05` operation, which program order does not order (PTX ISA
//!   §9.7.16.6.1). Otherwise a read cannot see a later write of its own thread: the two are
//!   morally strong, and SC per location (§8.10.5) forbids it;
//! - both ways between arrivals at the same CTA barrier (or `cta_group::2` rendezvous) in
//!   different threads, which the explorer adds together.
//!
//! Every `po ∪ rf` cycle of an execution maps to a cycle of this graph through one of its `rf`
//! edges, so the program can have one only if some `rf` edge `W → R` has a path back from `R` to
//! `W`.

use crate::event::Label;
use crate::program::{CompiledProgram, Op};

/// One instruction's memory events: what it may read and write, and its barrier arrival.
#[derive(Default)]
struct Accesses {
    reads: Vec<Label>,
    writes: Vec<Label>,
    barrier: Option<u32>,
}

fn accesses(op: &Op) -> Accesses {
    let mut a = Accesses::default();
    match op {
        Op::Load { label, .. } | Op::SyncWait { label, .. } => a.reads.push(*label),
        Op::Store { label, .. } => a.writes.push(*label),
        Op::Rmw { read, write, .. } => {
            a.reads.push(*read);
            a.writes.push(*write);
        }
        Op::SyncArrive { read, write, wait, .. } => {
            a.reads.push(*read);
            a.writes.push(*write);
            a.reads.extend(wait.iter().map(|(_, l)| *l));
        }
        Op::BulkCopy { read, write, cread, cwrite, .. } => {
            a.reads.extend([*read, *cread]);
            a.writes.extend([*write, *cwrite]);
        }
        Op::TcCompute { reads, acc, write, .. } => {
            a.reads.extend(reads.iter().copied());
            a.reads.extend(acc.iter().map(|(_, l)| *l));
            a.writes.push(*write);
        }
        Op::TcCommit { arrives, .. } => {
            for (r, w) in arrives {
                a.reads.push(*r);
                a.writes.push(*w);
            }
        }
        Op::TmemAlloc { rendezvous, read, write, slot, .. } => {
            a.reads.push(*read);
            a.writes.push(*write);
            a.writes.extend(slot.iter().copied());
            a.barrier = rendezvous.map(|l| l.loc);
        }
        Op::Barrier { label } => a.barrier = Some(label.loc),
        Op::Fence { .. } | Op::Mov { .. } | Op::Add { .. } | Op::Branch { .. } | Op::Goto { .. } => {}
    }
    a
}

/// Whether a read labelled `r` may see a write labelled `w` that comes later in its own thread.
fn reads_later_own_write(r: &Label, w: &Label) -> bool {
    r.loc == w.loc && (r.vloc != w.vloc || r.is_async() || w.is_async())
}

/// See the module docs. Tile IR programs, whose program order orders nothing, are not judged
/// here (the caller treats any thread that reads and writes as a possible cycle).
pub(crate) fn may_have_porf_cycles(prog: &CompiledProgram) -> bool {
    // Nodes: (thread, pc) numbered in order.
    let mut nodes: Vec<(usize, Accesses)> = Vec::new();
    for (t, code) in prog.threads.iter().enumerate() {
        nodes.extend(code.code.iter().map(|l| (t, accesses(&l.op))));
    }
    let n = nodes.len();
    let looping = |t: usize| {
        prog.threads[t]
            .code
            .iter()
            .enumerate()
            .any(|(pc, l)| matches!(l.op, Op::Branch { target, .. } | Op::Goto { target } if target <= pc))
    };
    let mut succ: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut rf: Vec<(usize, usize)> = Vec::new();
    for (a, (ta, acc_a)) in nodes.iter().enumerate() {
        let ta = *ta;
        for (b, (tb, acc_b)) in nodes.iter().enumerate() {
            let tb = *tb;
            if a == b {
                continue;
            }
            if ta == tb && (a < b || looping(ta)) {
                succ[a].push(b);
            }
            let writes_read = |own: bool| {
                acc_a.writes.iter().any(|w| acc_b.reads.iter().any(|r| if own { reads_later_own_write(r, w) } else { r.loc == w.loc }))
            };
            if (ta != tb && writes_read(false)) || (ta == tb && b < a && writes_read(true)) {
                succ[a].push(b);
                rf.push((a, b));
            }
            if ta != tb && acc_a.barrier.is_some() && acc_a.barrier == acc_b.barrier {
                succ[a].push(b);
            }
        }
    }
    rf.iter().any(|&(w, r)| reaches(&succ, r, w))
}

/// Whether `to` is reachable from `from` along `succ`.
fn reaches(succ: &[Vec<usize>], from: usize, to: usize) -> bool {
    let mut seen = vec![false; succ.len()];
    let mut stack = vec![from];
    while let Some(x) = stack.pop() {
        if x == to {
            return true;
        }
        if !std::mem::replace(&mut seen[x], true) {
            stack.extend(&succ[x]);
        }
    }
    false
}
