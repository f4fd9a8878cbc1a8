//! Lowering of barriers, mbarrier operations and `cp.async.bulk` into the synchronization-object
//! operations of [`crate::program::sync`] (whose module docs give the semantics and the ISA sections).
//!
//! Defaults (PTX ISA §9.7.13.15): mbarrier arrives are `.release`, waits `.acquire`, both at
//! `.cta` scope; `expect_tx` is `.relaxed`. `bar`/`barrier` (§9.7.13.1) arrivals release and
//! `.sync` waits acquire at CTA scope; `barrier.cluster.arrive` (§9.7.13.3) releases unless
//! `.relaxed`, `barrier.cluster.wait` always acquires, both at cluster scope.

use tcfuzz_litmus::{Barrier, CpAsyncBulk, Mbarrier, Operand, Scope, Sem, Span};

use crate::error::CheckError;
use crate::program::label::Label;
use crate::program::label::{EventKind, Proxy};
use crate::program::sync::{Mbar, SyncOp, SyncPlan, WaitMode, arrivals_for_count};
use crate::program::{Name, Op, Opnd, Regs, access};

/// The read and the write of an arrive on the object `name` at `scope`; the write releases if
/// `release`. Both are accesses to the object's state ([`Label::object`]).
pub(crate) fn arrive_labels(name: Name, scope: Scope, release: bool, span: Span) -> Result<(Label, Label), CheckError> {
    let mut read = access(EventKind::Read, name, Some(Sem::Relaxed), Some(scope), span)?;
    read.atomic = true;
    read.object = true;
    let mut write = access(EventKind::Write, name, Some(Sem::Relaxed), Some(scope), span)?;
    write.atomic = true;
    write.object = true;
    write.rmw_write = true;
    write.release = release;
    Ok((read, write))
}

/// The read of a wait on the object `name` at `scope`, acquiring if `acquire`
/// ([`Label::object`]).
fn wait_label(name: Name, scope: Scope, acquire: bool, span: Span) -> Result<Label, CheckError> {
    let mut l = access(EventKind::Read, name, Some(Sem::Relaxed), Some(scope), span)?;
    l.acquire = acquire;
    l.object = true;
    Ok(l)
}

/// The hidden register of a thread's pending cluster-barrier arrive ([`crate::program::sync`]).
const CLUSTER_PENDING: &str = "%cluster.pending";

fn obj(loc: u32) -> Name {
    Name { loc, vloc: loc }
}

/// `bar.sync` / `bar.arrive` (with a count, or any CTA barrier of a program that uses counts),
/// Dat3M's three-operand quorum form, and the cluster barriers.
pub(crate) fn barrier(b: &Barrier, ti: usize, sync: &SyncPlan, regs: &mut Regs, span: Span) -> Result<Op, CheckError> {
    let unsupported = |what: &str| CheckError::unsupported(what.to_string(), span);
    let loc = sync.object(ti, b).ok_or_else(|| unsupported("barrier with a register barrier id"))?;
    let count = |o: &Operand| match o {
        Operand::Imm(v) if *v > 0 => Ok(*v),
        Operand::Imm(_) => Err(CheckError::bad("a barrier thread count must be positive", span)),
        Operand::Reg(_) => Err(unsupported("barrier with a thread count in a register")),
    };
    let (read, write) =
        arrive_labels(obj(loc), if matches!(b, Barrier::ClusterArrive { .. }) { Scope::Cluster } else { Scope::Cta }, true, span)?;
    Ok(match b {
        Barrier::Sync { operands, .. } => {
            let wait = wait_label(obj(loc), Scope::Cta, true, span)?;
            if operands.len() == 3 {
                let q = count(&operands[2])?;
                Op::SyncArrive { dst: None, op: SyncOp::QuorumArrive, read, write, wait: Some((WaitMode::Quorum(q), wait)) }
            } else {
                let expected = match operands.get(1) {
                    Some(o) => arrivals_for_count(count(o)?),
                    None => sync.cta_size(ti),
                };
                Op::SyncArrive { dst: None, op: SyncOp::BarArrive { expected }, read, write, wait: Some((WaitMode::BarPhase, wait)) }
            }
        }
        Barrier::Arrive { operands, .. } => {
            // `bar.arrive a` without a count is Dat3M dialect: all threads of the CTA.
            let expected = match operands.get(1) {
                Some(o) => arrivals_for_count(count(o)?),
                None => sync.cta_size(ti),
            };
            Op::SyncArrive { dst: None, op: SyncOp::BarArrive { expected }, read, write, wait: None }
        }
        Barrier::ClusterArrive { sem, .. } => {
            let mut write = write;
            write.release = *sem != Some(Sem::Relaxed);
            let dst = regs.reg(CLUSTER_PENDING)?;
            Op::SyncArrive { dst, op: SyncOp::ClusterArrive { expected: sync.cluster_size(ti) }, read, write, wait: None }
        }
        Barrier::ClusterWait { .. } => {
            let operand = regs.opnd(&Operand::Reg(CLUSTER_PENDING.to_string()))?;
            let label = wait_label(obj(loc), Scope::Cluster, true, span)?;
            Op::SyncWait { dst: regs.reg(CLUSTER_PENDING)?, mode: WaitMode::ClusterPhase, operand, blocking: true, label }
        }
    })
}

/// `mbarrier.init / arrive / arrive.expect_tx / expect_tx / test_wait / try_wait` (and `await`).
pub(crate) fn mbarrier(
    m: &Mbarrier,
    loc: &dyn Fn(&str, Span) -> Result<Name, CheckError>,
    regs: &mut Regs,
    span: Span,
) -> Result<Op, CheckError> {
    let bad_sem = |s: Sem| CheckError::bad(format!("semantics {s:?} is not allowed on this mbarrier operation"), span);
    Ok(match m {
        Mbarrier::Init { addr, count, .. } => {
            let Operand::Imm(n) = count else {
                return Err(CheckError::unsupported("mbarrier.init with a count in a register", span));
            };
            let label = access(EventKind::Write, loc(&addr.name, span)?, Some(Sem::Relaxed), Some(Scope::Cta), span)?;
            Op::Store { src: Opnd::Imm(Mbar::fresh(*n).pack()), label }
        }
        Mbarrier::Arrive(a) => {
            let release = match a.sem {
                None | Some(Sem::Release) => true,
                Some(Sem::Relaxed) => false,
                Some(s) => return Err(bad_sem(s)),
            };
            let (read, write) = arrive_labels(loc(&a.addr.name, span)?, a.scope.unwrap_or(Scope::Cta), release, span)?;
            let n = match &a.count {
                Some(o) => regs.opnd(o)?,
                None => Opnd::Imm(1),
            };
            let op = if a.expect_tx {
                SyncOp::MbarArrive { count: Opnd::Imm(1), tx: n }
            } else {
                SyncOp::MbarArrive { count: n, tx: Opnd::Imm(0) }
            };
            Op::SyncArrive { dst: regs.reg(&a.state)?, op, read, write, wait: None }
        }
        Mbarrier::ExpectTx { sem, scope, addr, tx, .. } => {
            if let Some(s) = sem.filter(|s| *s != Sem::Relaxed) {
                return Err(bad_sem(s));
            }
            let (read, write) = arrive_labels(loc(&addr.name, span)?, scope.unwrap_or(Scope::Cta), false, span)?;
            let op = SyncOp::MbarArrive { count: Opnd::Imm(0), tx: regs.opnd(tx)? };
            Op::SyncArrive { dst: None, op, read, write, wait: None }
        }
        Mbarrier::Wait(w) => {
            let acquire = match w.sem {
                None | Some(Sem::Acquire) => true,
                Some(Sem::Relaxed) => false,
                Some(s) => return Err(bad_sem(s)),
            };
            let label = wait_label(loc(&w.addr.name, span)?, w.scope.unwrap_or(Scope::Cta), acquire, span)?;
            let mode = if w.parity { WaitMode::MbarParity } else { WaitMode::MbarState };
            Op::SyncWait { dst: regs.reg(&w.dst)?, mode, operand: regs.opnd(&w.phase)?, blocking: w.blocking, label }
        }
    })
}

/// `cp.async.bulk ... .mbarrier::complete_tx::bytes [dst], [src], size, [bar]`.
pub(crate) fn bulk_copy(
    c: &CpAsyncBulk,
    loc: &dyn Fn(&str, Span) -> Result<Name, CheckError>,
    regs: &mut Regs,
    span: Span,
) -> Result<Op, CheckError> {
    // The copy is a weak operation in the async proxy; its completion is followed by an implicit
    // generic-async proxy fence; the complete-tx releases at cluster scope (PTX ISA cp.async.bulk
    // and "Async proxy").
    let mut read = access(EventKind::Read, loc(&c.src.name, span)?, Some(Sem::Weak), None, span)?;
    read.proxy = Proxy::Async;
    let mut write = access(EventKind::Write, loc(&c.dst.name, span)?, Some(Sem::Weak), None, span)?;
    write.proxy = Proxy::Async;
    let mut fence = crate::program::async_proxy_fence_label();
    fence.completion_fence = true;
    let (cread, cwrite) = arrive_labels(loc(&c.mbar.name, span)?, Scope::Cluster, true, span)?;
    Ok(Op::BulkCopy { read, write, fence, complete: SyncOp::MbarCompleteTx { tx: regs.opnd(&c.size)? }, cread, cwrite })
}
