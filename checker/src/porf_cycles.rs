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
//!   §9.7.16.6.1), or when the read is a bulk copy's (asynchronous: program order does not put
//!   the thread's later events after it). Otherwise a read cannot see a later write of its own
//!   thread: the two are morally strong, and SC per location (§8.10.5) forbids it;
//! - both ways between arrivals at the same CTA barrier (or `cta_group::2` rendezvous) in
//!   different threads, which the explorer adds together.
//!
//! Every `po ∪ rf` cycle of an execution maps to a cycle of this graph through one of its `rf`
//! edges, so the program can have one only if some `rf` edge `W → R` has a path back from `R` to
//! `W`.

use std::collections::HashMap;

use crate::event::Label;
use crate::program::{CompiledProgram, Op};

/// One instruction's memory events: what it may read and write, and its barrier arrival.
#[derive(Default)]
struct Accesses {
    reads: Vec<Label>,
    writes: Vec<Label>,
    barriers: Vec<u32>,
    /// A bulk copy: asynchronous, so its reads may see writes of later instructions of its
    /// thread ([`crate::sync::bulk_copy_unordered`]).
    bulk_copy: bool,
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
            a.bulk_copy = true;
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
            a.barriers.extend(rendezvous.map(|l| l.loc));
        }
        Op::Barrier { label } => a.barriers.push(label.loc),
        Op::DynBarrier { ids, solo, .. } => a.barriers.extend(ids.iter().map(|&(_, id)| id).chain([*solo])),
        Op::Fence { .. } | Op::Mov { .. } | Op::Add { .. } | Op::Branch { .. } | Op::Goto { .. } | Op::Assume { .. } => {}
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
    // Nodes: every instruction, thread by thread.
    let mut nodes: Vec<(usize, Accesses)> = Vec::new();
    for (t, code) in prog.threads.iter().enumerate() {
        nodes.extend(code.code.iter().map(|l| (t, accesses(&l.op))));
    }
    let n = nodes.len();
    let mut succ: Vec<Vec<usize>> = vec![Vec::new(); n];
    // Program order: each instruction to the next (the rest follows by transitivity); a thread
    // that loops also from its last instruction back to its first.
    let mut start = 0;
    for code in &prog.threads {
        let len = code.code.len();
        for (i, out) in succ[start..start + len].iter_mut().enumerate() {
            if i + 1 < len {
                out.push(start + i + 1);
            }
        }
        let looping =
            code.code.iter().enumerate().any(|(pc, l)| matches!(l.op, Op::Branch { target, .. } | Op::Goto { target } if target <= pc));
        if looping && len > 1 {
            succ[start + len - 1].push(start);
        }
        start += len;
    }
    // Possible rf, location by location; barrier meetings, barrier by barrier.
    let mut writers: HashMap<u32, Vec<(usize, Label)>> = HashMap::new();
    let mut readers: HashMap<u32, Vec<(usize, Label)>> = HashMap::new();
    let mut arrivals: HashMap<u32, Vec<usize>> = HashMap::new();
    for (a, (_, acc)) in nodes.iter().enumerate() {
        for w in &acc.writes {
            writers.entry(w.loc).or_default().push((a, *w));
        }
        for r in &acc.reads {
            readers.entry(r.loc).or_default().push((a, *r));
        }
        for &id in &acc.barriers {
            arrivals.entry(id).or_default().push(a);
        }
    }
    let mut rf: Vec<(usize, usize)> = Vec::new();
    for (loc, ws) in &writers {
        for &(a, w) in ws {
            for &(b, r) in readers.get(loc).into_iter().flatten() {
                let (ta, tb) = (nodes[a].0, nodes[b].0);
                if ta != tb || (b < a && (reads_later_own_write(&r, &w) || nodes[b].1.bulk_copy)) {
                    succ[a].push(b);
                    rf.push((a, b));
                }
            }
        }
    }
    for members in arrivals.values() {
        for &a in members {
            succ[a].extend(members.iter().copied().filter(|&b| nodes[b].0 != nodes[a].0));
        }
    }
    // A cycle through `w → r` exists iff both are in one strongly connected component.
    let scc = components(&succ);
    rf.iter().any(|&(w, r)| scc[w] == scc[r])
}

/// The strongly connected component of each node (Tarjan's algorithm, iterative).
fn components(succ: &[Vec<usize>]) -> Vec<usize> {
    const UNSEEN: usize = usize::MAX;
    let n = succ.len();
    let (mut index, mut low, mut comp) = (vec![UNSEEN; n], vec![0; n], vec![UNSEEN; n]);
    let (mut on_stack, mut stack) = (vec![false; n], Vec::new());
    let (mut next, mut ncomp) = (0, 0);
    for root in 0..n {
        if index[root] != UNSEEN {
            continue;
        }
        // (node, next successor to look at)
        let mut call = vec![(root, 0)];
        index[root] = next;
        low[root] = next;
        next += 1;
        stack.push(root);
        on_stack[root] = true;
        while let Some(&mut (v, ref mut i)) = call.last_mut() {
            if let Some(&w) = succ[v].get(*i) {
                *i += 1;
                if index[w] == UNSEEN {
                    index[w] = next;
                    low[w] = next;
                    next += 1;
                    stack.push(w);
                    on_stack[w] = true;
                    call.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            call.pop();
            if let Some(&(parent, _)) = call.last() {
                low[parent] = low[parent].min(low[v]);
            }
            if low[v] == index[v] {
                while let Some(w) = stack.pop() {
                    on_stack[w] = false;
                    comp[w] = ncomp;
                    if w == v {
                        break;
                    }
                }
                ncomp += 1;
            }
        }
    }
    comp
}

#[cfg(test)]
mod tests {
    use super::components;

    #[test]
    fn components_of_a_small_graph() {
        // 0 → 1 → 2 → 0, 2 → 3, 3 → 4 → 3, 5 alone.
        let succ = vec![vec![1], vec![2], vec![0, 3], vec![4], vec![3], vec![]];
        let c = components(&succ);
        assert!(c[0] == c[1] && c[1] == c[2]);
        assert!(c[3] == c[4] && c[3] != c[0]);
        assert!(c[5] != c[0] && c[5] != c[3]);
    }
}
