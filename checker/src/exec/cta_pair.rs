//! The CTA-pair rule of the `cta_group::2` operations that are not allocator rendezvous (PTX ISA
//! §9.7.16.5 Table 46): an `mma`, `cp`, `shift` or `commit` issued by one thread of the pair
//! needs the peer CTA "active and ... not exited". The allocator rendezvous of `cta_group::2`
//! `alloc` / `dealloc` are in [`crate::program::sync`] and [`crate::program::tmem`].

use std::collections::HashMap;

use crate::exec::event::EventId;
use crate::exec::graph::ExecutionGraph;
use crate::program::CompiledProgram;
use crate::program::label::{Label, TcOp};

/// The `cta_group::2` `mma` / `cp` / `shift` / `commit` issues of the complete execution `g` at
/// which the peer CTA may already have exited (PTX ISA §9.7.16.5 Table 46: "When the current CTA
/// issues the operation, the peer CTA should be active and should not have exited"), each with
/// the peer CTA's threads as a name for reports.
///
/// The peer CTA is alive at an issue if one of its threads has an event reachable from the issue
/// by program order, `rf` and barrier meetings: that thread executed the event after the issue
/// (a thread issues in program order; a read executes after the write it reads from; threads
/// leave a barrier together), so it had not exited. Where no such event exists, every thread of
/// the peer CTA may have run to its end first. A CTA pair is CTAs `2k` and `2k + 1` of one GPU
/// (§9.7.16.5.1, as [`crate::program::sync`] pairs them); a peer CTA with no thread in the program is
/// outside the test and not judged.
pub fn peer_exited(prog: &CompiledProgram, g: &ExecutionGraph) -> Vec<(EventId, String)> {
    let is_pair_issue = |l: &Label| {
        l.tc.is_some_and(|t| {
            t.group == 2 && t.first && matches!(t.op, TcOp::Mma { .. } | TcOp::Cp { .. } | TcOp::Shift | TcOp::CommitIssue)
        })
    };
    let issues: Vec<EventId> = g.event_ids().filter(|&e| is_pair_issue(&g.event(e).label)).collect();
    if issues.is_empty() {
        return Vec::new();
    }
    // Who reads from each write.
    let mut readers: HashMap<EventId, Vec<EventId>> = HashMap::new();
    for e in g.event_ids() {
        if let Some(w) = g.event(e).rf {
            readers.entry(w).or_default().push(e);
        }
    }
    let mut out = Vec::new();
    for i in issues {
        let place = prog.places[i.thread as usize];
        let peers: Vec<usize> =
            (0..prog.threads.len()).filter(|&t| prog.places[t].gpu == place.gpu && prog.places[t].cta == place.cta ^ 1).collect();
        if peers.is_empty() {
            continue;
        }
        // Forward closure from the issue; per thread, the first event reached (the rest of the
        // thread follows in program order).
        let mut first_reached: Vec<Option<u32>> = vec![None; g.threads.len()];
        let mut stack = vec![i];
        while let Some(x) = stack.pop() {
            let t = x.thread as usize;
            if first_reached[t].is_some_and(|k| k <= x.index) {
                continue;
            }
            let from = x.index as usize;
            let to = first_reached[t].map_or(g.threads[t].len(), |k| k as usize);
            first_reached[t] = Some(x.index);
            for j in from..to {
                let e = EventId::new(t, j);
                stack.extend(readers.get(&e).into_iter().flatten().copied());
                if g.event(e).label.is_barrier() {
                    stack.extend(g.barrier_partners(e));
                }
            }
        }
        if peers.iter().all(|&t| first_reached[t].is_none()) {
            let names: Vec<&str> = peers.iter().map(|&t| prog.threads[t].name.as_str()).collect();
            out.push((i, names.join(", ")));
        }
    }
    out
}
