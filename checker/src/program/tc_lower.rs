//! Lowering of `tcgen05` instructions into events (DESIGN §3.3; the ordering rules are in
//! [`crate::model::tcgen05`]).
//!
//! - Tensor Memory: every declared region (`d @ tmem ...`) is one location holding one abstract
//!   value; `tcgen05.ld` reads it, `tcgen05.st` writes it. These accesses are weak and carry
//!   their instruction in [`Label::tc`], so the model can order them by the tcgen05 rules instead
//!   of program order.
//! - `mma [d], a, b, idesc, acc` reads `a` (a TMEM region, or shared memory through the async
//!   proxy) and `b` (shared memory, async proxy), then `d` when `acc` (enable-input-d) is
//!   non-zero — where `acc` is a register that is 0, a skip stands in that slot
//!   ([`crate::program::label::Label::accumulator_skip`]), so the mma has the same events whatever the
//!   register — and writes `d = a·b (+ d)`. `cp [d], s` reads `s` (async proxy) and writes it to
//!   `d`; `shift [d]` reads `d` and writes `d + 1` (the abstract value of the shifted rows). The
//!   results are a fixed function of the values read, so a stale read changes the final state
//!   (PTX ISA §9.7.16.6.5 for the async proxy; the values themselves are abstract).
//! - `commit [mbar]`: an issue event (a tcgen05 fence, since commit implies
//!   `fence::before_thread_sync`, §9.7.16.6.4.2) and an asynchronous arrive on the mbarrier —
//!   a relaxed RMW at cluster scope performed once the tracked operations complete.
//! - `wait::ld` / `wait::st`, `fence::before_thread_sync` / `after_thread_sync`: fence events.
//! - `alloc` / `dealloc` / `relinquish_alloc_permit`: an RMW of the CTA's allocator state
//!   ([`crate::program::tmem`]); `alloc` then writes the column address to its shared-memory slot, a
//!   generic write in program order ("same-address ordering with respect to non-tcgen05
//!   instructions", §9.7.16.6.1). With `cta_group::2`, first a rendezvous with the peer CTA's
//!   warp (a barrier event of [`crate::program::sync::SyncPlan::rendezvous`]) that the checker may drop:
//!   Table 46 says the first warp "could block" until the second arrives, so both are explored.
//!
//! - `commit.multicast::cluster [mbar], mask`: one arrive per CTA of the mask, on the mbarrier
//!   at `mbar`'s offset there ([`multicast_targets`]).
//!
//! Not modelled: the lane/column geometry inside a region (a
//! region is read and written whole), `tcgen05.cp` decompression and `.ws`/`.sp` mma forms.

use tcfuzz_litmus::{CpShape, CtaGroup, Operand, Program, Scope, Sem, Span, Tcgen05};

use crate::error::CheckError;
use crate::program::label::{EventKind, Label, Proxy, TcInfo, TcOp};
use crate::program::sync::{SyncOp, SyncPlan};
use crate::program::{AllocOp, Name, Op, Regs, TcFn, access};

fn group(g: CtaGroup) -> u8 {
    match g {
        CtaGroup::One => 1,
        CtaGroup::Two => 2,
    }
}

fn tag(mut l: Label, op: TcOp, group: u8, first: bool) -> Label {
    l.tc = Some(TcInfo { op, group, first });
    l
}

/// A weak access of a TMEM region or (through `proxy`) of shared memory.
fn data(kind: EventKind, name: Name, proxy: Proxy, span: Span) -> Result<Label, CheckError> {
    let mut l = access(kind, name, Some(Sem::Weak), None, span)?;
    l.proxy = proxy;
    Ok(l)
}

/// A fence event of a tcgen05 instruction: orders nothing by itself in the PTX model.
fn marker(op: TcOp, group: u8) -> Label {
    let mut l = crate::program::fence_label(Scope::Cta, false);
    l.acquire = false;
    l.release = false;
    tag(l, op, group, true)
}

/// Everything [`tcgen05`] needs to know about the program.
pub(crate) struct Context<'a> {
    pub loc: &'a dyn Fn(&str, Span) -> Result<Name, CheckError>,
    /// Whether a location is a TMEM region.
    pub is_tmem: &'a dyn Fn(u32) -> bool,
    pub sync: &'a SyncPlan,
    pub thread: usize,
    pub program: &'a Program,
}

pub(crate) fn tcgen05(t: &Tcgen05, cx: &Context, regs: &mut Regs, span: Span) -> Result<Op, CheckError> {
    let tmem = |name: &str| -> Result<Name, CheckError> {
        let n = (cx.loc)(name, span)?;
        if (cx.is_tmem)(n.loc) { Ok(n) } else { Err(CheckError::bad(format!("`{name}` is not a Tensor Memory region"), span)) }
    };
    let shared = |name: &str| -> Result<Name, CheckError> {
        let n = (cx.loc)(name, span)?;
        if (cx.is_tmem)(n.loc) {
            Err(CheckError::bad(format!("`{name}` is a Tensor Memory region, not shared memory"), span))
        } else {
            Ok(n)
        }
    };
    Ok(match t {
        Tcgen05::Ld { dst, src, .. } => {
            let label = tag(data(EventKind::Read, tmem(&src.name)?, Proxy::Generic, span)?, TcOp::Ld, 0, true);
            Op::Load { dst: regs.reg(dst)?, label }
        }
        Tcgen05::St { dst, src, .. } => {
            let label = tag(data(EventKind::Write, tmem(&dst.name)?, Proxy::Generic, span)?, TcOp::St, 0, true);
            Op::Store { src: regs.opnd(src)?, label }
        }
        Tcgen05::Mma { group: g, kind, d, a, b, idesc, acc } => {
            let (g, d) = (group(*g), tmem(&d.name)?);
            let op = TcOp::Mma { acc: d.loc, shape: *idesc, kind: *kind as u8 };
            let a_name = (cx.loc)(&a.name, span)?;
            let a_proxy = if (cx.is_tmem)(a_name.loc) { Proxy::Generic } else { Proxy::Async };
            let reads = vec![
                tag(data(EventKind::Read, a_name, a_proxy, span)?, op, g, true),
                tag(data(EventKind::Read, shared(&b.name)?, Proxy::Async, span)?, op, g, false),
            ];
            let acc_read = tag(data(EventKind::Read, d, Proxy::Generic, span)?, op, g, false);
            let write = tag(data(EventKind::Write, d, Proxy::Generic, span)?, op, g, false);
            Op::TcCompute { reads, acc: Some((regs.opnd(acc)?, acc_read)), write, f: TcFn::Mma }
        }
        Tcgen05::Cp { group: g, shape, d, src } => {
            let g = group(*g);
            let op = TcOp::Cp { four_x256b: *shape == CpShape::S4x256b };
            let reads = vec![tag(data(EventKind::Read, shared(&src.name)?, Proxy::Async, span)?, op, g, true)];
            let write = tag(data(EventKind::Write, tmem(&d.name)?, Proxy::Generic, span)?, op, g, false);
            Op::TcCompute { reads, acc: None, write, f: TcFn::Copy }
        }
        Tcgen05::Shift { group: g, d } => {
            let (g, d) = (group(*g), tmem(&d.name)?);
            let reads = vec![tag(data(EventKind::Read, d, Proxy::Generic, span)?, TcOp::Shift, g, true)];
            let write = tag(data(EventKind::Write, d, Proxy::Generic, span)?, TcOp::Shift, g, false);
            Op::TcCompute { reads, acc: None, write, f: TcFn::Shift }
        }
        Tcgen05::Commit { group: g, multicast, mbar, .. } => {
            let g = group(*g);
            let targets = match multicast {
                None => vec![(cx.loc)(&mbar.name, span)?],
                Some(mask) => multicast_targets(cx, &mbar.name, mask, span)?,
            };
            let mut arrives = Vec::with_capacity(targets.len());
            for m in targets {
                let (read, write) = crate::program::sync_lower::arrive_labels(m, Scope::Cluster, false, span)?;
                arrives.push((tag(read, TcOp::CommitArrive, g, false), tag(write, TcOp::CommitArrive, g, false)));
            }
            Op::TcCommit {
                issue: marker(TcOp::CommitIssue, g),
                op: SyncOp::MbarArrive { count: crate::program::Opnd::Imm(1), tx: crate::program::Opnd::Imm(0) },
                arrives,
            }
        }
        Tcgen05::Wait { st } => Op::Fence { label: marker(if *st { TcOp::WaitSt } else { TcOp::WaitLd }, 0) },
        Tcgen05::Fence { after } => Op::Fence { label: marker(if *after { TcOp::FenceAfter } else { TcOp::FenceBefore }, 0) },
        Tcgen05::Alloc { group: g, slot, ncols } => {
            let ncols = columns(ncols, span)?;
            let slot = crate::program::access(EventKind::Write, (cx.loc)(&slot.name, span)?, Some(Sem::Weak), None, span)?;
            allocator(cx, *g, TcOp::Alloc, AllocOp::Alloc { ncols }, Some(tag(slot, TcOp::Alloc, group(*g), false)), span)?
        }
        Tcgen05::Dealloc { group: g, taddr, region, ncols } => {
            let ncols = columns(ncols, span)?;
            // A declared region is pre-allocated memory outside the allocator's state.
            let addr = match region {
                Some(name) => {
                    tmem(name)?;
                    None
                }
                None => Some(regs.opnd(taddr)?),
            };
            allocator(cx, *g, TcOp::Dealloc, AllocOp::Dealloc { ncols, addr }, None, span)?
        }
        Tcgen05::RelinquishAllocPermit { group: g } => allocator(cx, *g, TcOp::Relinquish, AllocOp::Relinquish, None, span)?,
    })
}

/// The mbarriers a `.multicast::cluster` commit signals ([`tcfuzz_litmus::multicast_targets`]:
/// the rule is shared with the validator, which refuses a mask naming none).
fn multicast_targets(cx: &Context, mbar: &str, mask: &Operand, span: Span) -> Result<Vec<Name>, CheckError> {
    let mask = match mask {
        Operand::Imm(m) => *m,
        Operand::Reg(_) => return Err(CheckError::unsupported("tcgen05.commit multicast mask in a register", span)),
    };
    let targets = tcfuzz_litmus::multicast_targets(cx.program, cx.thread, mbar, mask).map_err(|why| CheckError::bad(why, span))?;
    targets.into_iter().map(|l| (cx.loc)(&l.name, span)).collect()
}

fn columns(o: &Operand, span: Span) -> Result<i64, CheckError> {
    match o {
        Operand::Imm(n) if crate::program::tmem::valid_columns(*n) => Ok(*n),
        Operand::Imm(n) => {
            Err(CheckError::bad(format!("{n} columns: an allocation is a power of two from 32 to 512 (PTX ISA §9.7.16.7.1)"), span))
        }
        Operand::Reg(_) => Err(CheckError::unsupported("a Tensor Memory column count in a register", span)),
    }
}

fn allocator(cx: &Context, g: CtaGroup, tc: TcOp, op: AllocOp, slot: Option<Label>, span: Span) -> Result<Op, CheckError> {
    let g8 = group(g);
    let state = cx.sync.tmem_allocator(cx.thread).ok_or_else(|| CheckError::bad("no Tensor Memory allocator for this thread", span))?;
    let (read, write) = crate::program::sync_lower::arrive_labels(Name { loc: state, vloc: state }, Scope::Cta, false, span)?;
    let rendezvous = match g {
        CtaGroup::One => None,
        CtaGroup::Two => {
            let id = cx
                .sync
                .rendezvous(cx.thread, tc)
                .ok_or_else(|| CheckError::bad("[tcfuzz internal bug] no rendezvous for a cta_group::2 allocation", span))?;
            Some(tag(crate::program::barrier_label(id), tc, g8, true))
        }
    };
    Ok(Op::TmemAlloc { op, rendezvous, read: tag(read, tc, g8, rendezvous.is_none()), write: tag(write, tc, g8, false), slot })
}
