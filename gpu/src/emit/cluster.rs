//! Closing the cluster barrier at the end of a test.
//!
//! A complete execution may end with a cluster-barrier phase open (some threads arrived, others
//! never did) or with a thread's arrive never waited on; the model is content, nobody waits on
//! that phase. The hardware is not: `barrier.cluster.wait` waits for every non-exited thread of
//! the cluster, arriving twice without a wait in between is undefined (PTX ISA
//! `barrier.cluster`), and the harness's own cluster barrier comes after the test. On an H200,
//! kernels that left either state behind hung.
//!
//! So each thread, at its end, brings the barrier to the same closed state: with `a` its number
//! of arrives, `m` the most of any thread of its cluster, and `pending` whether its last cluster
//! operation was an arrive, it
//! - waits once if `pending` (a thread's arrives are at most one ahead of the phase: it waited
//!   before arriving again),
//! - then, if `a < m`, arrives and waits: the open phase is `m - 1`, the threads at `m` arrived
//!   in it, those at `m - 1` join it here, and all wait.
//!
//! That needs `a` and `pending` known before the run: a thread with cluster-barrier operations
//! has no branch, never arrives twice without a wait, and never waits without an arrive since
//! its last wait (such a wait waits for an arrive of its own thread: the model says it hangs, and
//! on an H200 it did, in programs 7189 of `fuzz --seed 5` and 12132 of `--seed 9`). Arrive counts
//! further apart than one mean some wait can never return. The model says hang or misuse for
//! all of these and such programs are not run; the emitter refuses them too rather than trust
//! that.

use tcfuzz_litmus::{Barrier, Instr, Program, StmtKind};

use super::EmitError;
use super::plan::Plan;

/// What one thread does at its end.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Closing {
    /// Wait for the phase of an arrive not yet waited on.
    pub wait_pending: bool,
    /// Join the open phase: arrive, then wait.
    pub join: bool,
}

/// Whether some thread arrives at or waits on the cluster barrier.
pub(super) fn uses_cluster_barrier(p: &Program) -> bool {
    p.threads
        .iter()
        .flat_map(|t| &t.body)
        .any(|s| matches!(s.kind, StmtKind::Instr(Instr::Barrier(Barrier::ClusterArrive { .. } | Barrier::ClusterWait { .. }))))
}

/// Each thread's closing (all defaults when the program has no cluster barrier).
pub(super) fn closings(p: &Program, plan: &Plan) -> Result<Vec<Closing>, EmitError> {
    let mut counts = Vec::with_capacity(p.threads.len());
    for t in &p.threads {
        let (mut arrives, mut pending, mut cluster_ops, mut branch) = (0u32, false, false, None);
        for s in &t.body {
            let StmtKind::Instr(i) = &s.kind else { continue };
            match i {
                Instr::Branch { .. } | Instr::Goto { .. } => branch = branch.or(Some(s.span)),
                Instr::Barrier(Barrier::ClusterArrive { .. }) => {
                    if pending {
                        return Err(EmitError::unsupported(
                            s.span,
                            format!("{} arrives at the cluster barrier twice without a wait", t.name),
                        ));
                    }
                    (arrives, pending, cluster_ops) = (arrives + 1, true, true);
                }
                Instr::Barrier(Barrier::ClusterWait { .. }) => {
                    if !pending {
                        return Err(EmitError::unsupported(
                            s.span,
                            format!("{} waits at the cluster barrier with no arrive since its last wait", t.name),
                        ));
                    }
                    (pending, cluster_ops) = (false, true);
                }
                _ => {}
            }
        }
        if let (Some(span), true) = (branch, cluster_ops) {
            return Err(EmitError::unsupported(
                span,
                format!("{} branches and uses the cluster barrier: how often it arrives is not known before the run", t.name),
            ));
        }
        counts.push((arrives, pending));
    }
    let mut out = vec![Closing::default(); p.threads.len()];
    for (t, th) in plan.threads.iter().enumerate() {
        let cluster = plan.threads.iter().enumerate().filter(|(_, o)| o.unit == th.unit).map(|(i, _)| counts[i].0);
        let (most, least) = cluster.fold((0, u32::MAX), |(hi, lo), a| (hi.max(a), lo.min(a)));
        if most > least + 1 {
            return Err(EmitError::unsupported(
                p.threads[t].body.first().map(|s| s.span).unwrap_or_default(),
                format!("the threads of a cluster arrive {least} to {most} times: some cluster-barrier wait can never return"),
            ));
        }
        let (arrives, pending) = counts[t];
        out[t] = Closing { wait_pending: pending, join: arrives < most };
    }
    Ok(out)
}
