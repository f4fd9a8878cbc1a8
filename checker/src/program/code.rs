//! The code a thread runs once lowered ([`crate::program`]): operations over numbered registers,
//! each producing the events [`crate::exec::interp`] replays. One [`Op`] per source instruction, so a
//! branch target is an index into [`ThreadCode::code`].

use tcfuzz_litmus::{AssumeCmp, AtomOp, Span};

use crate::program::label::Label;
use crate::program::sync::{SyncOp, WaitMode};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Opnd {
    Reg(usize),
    Imm(i64),
}

#[derive(Clone, Debug)]
pub enum Op {
    Load {
        dst: Option<usize>,
        label: Label,
    },
    Store {
        src: Opnd,
        label: Label,
    },
    /// `atom` (with `dst`) or `red` (without): a read, then the write if the operation performs one.
    Rmw {
        dst: Option<usize>,
        op: AtomOp,
        a: Opnd,
        b: Option<Opnd>,
        read: Label,
        write: Label,
    },
    Fence {
        label: Label,
    },
    /// Arrival at a CTA barrier (a `Label` of kind `Barrier`); the thread waits there until every
    /// thread of its CTA has arrived.
    Barrier {
        label: Label,
    },
    /// `bar.sync a, r` (Dat3M's reading, [`crate::program::sync`]) with `r` a register set at run time:
    /// the barrier `(a, value of r)` — `ids` maps the values that other threads' barriers name to
    /// their symmetric ids; any other value is `solo`, a barrier of this thread alone.
    DynBarrier {
        reg: usize,
        ids: Vec<(i64, u32)>,
        solo: u32,
    },
    /// An arrival on a synchronization object ([`crate::program::sync`]): the read of its state, then the
    /// write of the new state; `dst` gets the arrival's phase. With `wait`, the thread then waits
    /// (a blocking read) until that phase completes (`bar.sync a, b`, Dat3M's quorum barrier).
    SyncArrive {
        dst: Option<usize>,
        op: SyncOp,
        read: Label,
        write: Label,
        wait: Option<(WaitMode, Label)>,
    },
    /// A wait on a synchronization object: a read of its state; `dst` gets 1 if the wait succeeds
    /// and 0 otherwise; a `blocking` wait stops its thread unless it succeeds.
    SyncWait {
        dst: Option<usize>,
        mode: WaitMode,
        operand: Opnd,
        blocking: bool,
        label: Label,
    },
    /// `cp.async.bulk`: a read of the source and a write of its value to the destination (both
    /// in the async proxy), the implicit generic-async proxy fence of its completion, then the
    /// complete-tx on the mbarrier (read and write) — [`crate::program::sync`], "Approximations".
    BulkCopy {
        read: Label,
        write: Label,
        fence: Label,
        complete: SyncOp,
        cread: Label,
        cwrite: Label,
    },
    Mov {
        dst: Option<usize>,
        src: Opnd,
    },
    Add {
        dst: Option<usize>,
        a: Opnd,
        b: Opnd,
    },
    Branch {
        eq: bool,
        a: Opnd,
        b: Opnd,
        target: usize,
    },
    Goto {
        target: usize,
    },
    /// `assume.cmp a, b`: the thread stops, and the execution is discarded, unless it holds.
    Assume {
        cmp: AssumeCmp,
        a: Opnd,
        b: Opnd,
    },
    /// A `tcgen05` data operation (`mma`, `cp`, `shift`; [`crate::program::tc_lower`]): `reads` in order,
    /// then, when `acc` holds a non-zero operand, its read (an `mma`'s accumulator), then the
    /// write of `f` of the values read.
    TcCompute {
        reads: Vec<Label>,
        acc: Option<(Opnd, Label)>,
        write: Label,
        f: TcFn,
    },
    /// `tcgen05.commit`: the issue event, then the asynchronous arrive (a read and a write) on
    /// each mbarrier it signals: one, or one per CTA of a `.multicast::cluster` mask.
    TcCommit {
        issue: Label,
        op: SyncOp,
        arrives: Vec<(Label, Label)>,
    },
    /// `tcgen05.alloc` / `dealloc` / `relinquish_alloc_permit` ([`crate::program::tmem`]): the optional
    /// `cta_group::2` rendezvous (a barrier event), the allocator state's read and write, then for
    /// `alloc` the column address written to the slot. An `alloc` that finds no room writes the
    /// state unchanged and blocks.
    TmemAlloc {
        op: AllocOp,
        rendezvous: Option<Label>,
        read: Label,
        write: Label,
        slot: Option<Label>,
    },
}

impl Op {
    /// The register an instruction sets, and the operands whose values its events carry.
    pub(crate) fn registers(&self) -> (Option<usize>, Vec<Opnd>) {
        match self {
            Op::Load { dst, .. } => (*dst, Vec::new()),
            Op::Store { src, .. } => (None, vec![*src]),
            Op::Rmw { dst, a, b, .. } => (*dst, [Some(*a), *b].into_iter().flatten().collect()),
            Op::Mov { dst, src } => (*dst, vec![*src]),
            Op::Add { dst, a, b } => (*dst, vec![*a, *b]),
            Op::Branch { a, b, .. } | Op::Assume { a, b, .. } => (None, vec![*a, *b]),
            Op::DynBarrier { reg, .. } => (None, vec![Opnd::Reg(*reg)]),
            Op::SyncArrive { dst, .. } => (*dst, Vec::new()),
            Op::SyncWait { dst, operand, .. } => (*dst, vec![*operand]),
            Op::TcCompute { acc, .. } => (None, acc.iter().map(|(o, _)| *o).collect()),
            Op::TmemAlloc { op: AllocOp::Dealloc { addr: Some(a), .. }, .. } => (None, vec![*a]),
            Op::TmemAlloc { .. } | Op::Fence { .. } | Op::Barrier { .. } | Op::BulkCopy { .. } | Op::TcCommit { .. } | Op::Goto { .. } => {
                (None, Vec::new())
            }
        }
    }
}

/// The value a [`Op::TcCompute`] writes (abstract; [`crate::program::tc_lower`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TcFn {
    /// `mma`: `a·b`, plus the accumulator when it is read.
    Mma,
    /// `cp`: the value read.
    Copy,
    /// `shift`: the value read plus one.
    Shift,
}

impl TcFn {
    pub fn apply(self, values: &[i64]) -> i64 {
        match (self, values) {
            (TcFn::Mma, [a, b]) => a.wrapping_mul(*b),
            (TcFn::Mma, [a, b, d]) => a.wrapping_mul(*b).wrapping_add(*d),
            (TcFn::Shift, [v]) => v.wrapping_add(1),
            (_, [v, ..]) => *v,
            (_, []) => 0,
        }
    }
}

/// What a [`Op::TmemAlloc`] does to the allocator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AllocOp {
    Alloc {
        ncols: i64,
    },
    /// `addr`: the column address operand; `None` for a declared region (pre-allocated).
    Dealloc {
        ncols: i64,
        addr: Option<Opnd>,
    },
    Relinquish,
}

#[derive(Clone, Debug)]
pub struct CodeLine {
    pub op: Op,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct ThreadCode {
    pub name: String,
    pub code: Vec<CodeLine>,
    pub reg_names: Vec<String>,
    pub reg_init: Vec<i64>,
}

/// The value an `atom`/`red` writes given the value it read, or `None` (a failing `cas`).
/// PTX ISA §9.7.13.5 gives `inc`/`dec` their wrap-around meaning.
pub fn rmw_result(op: AtomOp, old: i64, a: i64, b: Option<i64>) -> Option<i64> {
    Some(match op {
        AtomOp::Add => old.wrapping_add(a),
        AtomOp::Sub => old.wrapping_sub(a),
        AtomOp::Exch => a,
        AtomOp::Cas => {
            if old == a {
                b?
            } else {
                return None;
            }
        }
        AtomOp::And => old & a,
        AtomOp::Or => old | a,
        AtomOp::Xor => old ^ a,
        AtomOp::Min => old.min(a),
        AtomOp::Max => old.max(a),
        AtomOp::Inc => {
            if old >= a {
                0
            } else {
                old.wrapping_add(1)
            }
        }
        AtomOp::Dec => {
            if old == 0 || old > a {
                a
            } else {
                old - 1
            }
        }
    })
}
