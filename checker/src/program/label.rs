//! Labels: what an event of an instruction is, before it sits in an execution graph
//! ([`crate::exec::event`]).
//!
//! Every generic-proxy memory instruction of a thread becomes one or two events (PTX ISA §8.2
//! "Memory operations"): `ld` a read, `st` a write, `atom`/`red` a read followed in program order by
//! the write it performs (the *rmw* pair; a `cas` that does not find its expected value performs only
//! the read, as in GenMC), fences one fence event, `bar.sync` one barrier event. Each event carries what the memory models need:
//! location, strength and scope (§8.4 "Operation types", §8.5 "Scope"), acquire / release
//! semantics, and for No-Thin-Air the program-order-earlier reads its value or control depends on.

use tcfuzz_litmus::Scope;

/// Index of a location in [`crate::program::CompiledProgram::locations`].
pub type LocId = u32;

/// What an event does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EventKind {
    Read,
    Write,
    Fence,
    /// `bar.sync id` / `barrier.sync id`: arrival at CTA barrier `id` (kept in `loc`).
    Barrier,
}

/// The proxy an access or a proxy fence goes through (PTX ISA §8.6 "Proxies" — generic, texture,
/// surface, constant; the async proxy of `tcgen05.mma` / `tcgen05.cp` shared-memory operands and
/// `fence.proxy.async`, §9.7.16.6.5).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Proxy {
    Generic,
    Texture,
    Surface,
    Constant,
    Async,
}

/// Which `tcgen05` instruction an event belongs to (PTX ISA §9.7.16.6.1 "Asynchronous
/// Operations": the categories of [`TcOp::is_async`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TcOp {
    /// `tcgen05.mma` with its instruction descriptor (shape) and kind: an `mma→mma` pipelined
    /// pair needs the same accumulator, shape and kind (§9.7.16.6.2).
    Mma {
        acc: LocId,
        shape: i64,
        kind: u8,
    },
    /// `tcgen05.cp`; `four_x256b` for the `.4x256b` shape (`shift→cp.4x256b` is pipelined).
    Cp {
        four_x256b: bool,
    },
    Shift,
    Ld,
    St,
    /// The issue of a `tcgen05.commit` (synchronous; implies `fence::before_thread_sync`).
    CommitIssue,
    /// The mbarrier arrive a `tcgen05.commit` performs once the operations it tracks complete
    /// (asynchronous, §9.7.16.6.2.1.1).
    CommitArrive,
    WaitLd,
    WaitSt,
    FenceBefore,
    FenceAfter,
    Alloc,
    Dealloc,
    Relinquish,
}

impl TcOp {
    /// The instruction, as a report names it.
    pub fn name(self) -> &'static str {
        match self {
            TcOp::Mma { .. } => "tcgen05.mma",
            TcOp::Cp { .. } => "tcgen05.cp",
            TcOp::Shift => "tcgen05.shift",
            TcOp::Ld => "tcgen05.ld",
            TcOp::St => "tcgen05.st",
            TcOp::CommitIssue => "tcgen05.commit",
            TcOp::CommitArrive => "tcgen05.commit arrive",
            TcOp::WaitLd => "tcgen05.wait::ld",
            TcOp::WaitSt => "tcgen05.wait::st",
            TcOp::FenceBefore => "tcgen05.fence::before_thread_sync",
            TcOp::FenceAfter => "tcgen05.fence::after_thread_sync",
            TcOp::Alloc => "tcgen05.alloc",
            TcOp::Dealloc => "tcgen05.dealloc",
            TcOp::Relinquish => "tcgen05.relinquish_alloc_permit",
        }
    }

    /// §9.7.16.6.1: `mma`, `cp`, `shift`, `ld`, `st` are asynchronous; the completion arrive of a
    /// `commit` is performed asynchronously too.
    pub fn is_async(self) -> bool {
        matches!(self, TcOp::Mma { .. } | TcOp::Cp { .. } | TcOp::Shift | TcOp::Ld | TcOp::St | TcOp::CommitArrive)
    }
}

/// The `tcgen05` part of an event's label.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TcInfo {
    pub op: TcOp,
    /// `.cta_group::N` (1 or 2); 0 where the instruction has none (`ld`, `st`, `wait`, fences).
    pub group: u8,
    /// The first event of its instruction: the events of one instruction are consecutive in the
    /// thread and start with the one marked `first`.
    pub first: bool,
}

/// The label of an event: everything about it except its place in rf / co.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Label {
    pub kind: EventKind,
    /// Location of a read or write (the physical one, after resolving aliases: `rf` and `co` are
    /// per physical location); the barrier id of a barrier; 0 for fences.
    pub loc: LocId,
    /// The virtual address a read or write names (its alias, or `loc` itself), numbered apart
    /// from `loc`; equal to `loc` when the program has no aliases. 0 for other events.
    pub vloc: LocId,
    /// The proxy of an access or of a `fence.proxy.{texture,surface,constant}`; generic otherwise.
    pub proxy: Proxy,
    /// `fence.proxy.alias`.
    pub alias_fence: bool,
    /// The implicit generic-async proxy fence that follows the completion of a bulk copy (a
    /// fence of the async proxy, but not a `fence.proxy.async` instruction of the thread).
    pub completion_fence: bool,
    /// For the events of a `cp.async.bulk`: which of its thread's copies (1 for the first it
    /// issues, in the order it issues them) they belong to; 0 for every other event. What
    /// [`crate::program::sync::bulk_copy_spans`] groups them by, which their positions alone cannot do in
    /// a graph judged without its holes (a copy's events and the next instruction's then meet).
    pub bulk_copy: u32,
    /// Strong (`.relaxed`, `.acquire`, `.release`, `.acq_rel`, `.volatile`, atomics, fences) versus
    /// weak (`.weak`, the default of `ld`/`st`) — PTX ISA §8.4.
    pub strong: bool,
    /// The scope of a strong operation (§8.5); `Sys` for weak ones (unused there).
    pub scope: Scope,
    /// Read with acquire semantics, or an acquire-release / SC fence.
    pub acquire: bool,
    /// Write with release semantics, or an acquire-release / SC fence.
    pub release: bool,
    /// `fence.sc` (and `membar`, which the ISA defines as `fence.sc`).
    pub sc: bool,
    /// The read of an `atom`/`red` (whether or not a write follows) or the write of one.
    pub atomic: bool,
    /// The write half of an rmw pair: its program-order predecessor is the read half.
    pub rmw_write: bool,
    /// The read of an rmw from which no cycle of the explorer's needs can go on to a later event
    /// of its thread in a consistent execution: the dependency revisits keep every later event
    /// of its thread with it, as after a barrier, so no revisit leaves it a hole
    /// ([`crate::explore`], "Not explored"; set by [`crate::program::ordering_rmws`]). No model
    /// looks at it.
    pub orders_thread: bool,
    /// An arrive's or a wait's access to the state of a synchronization object (an mbarrier, a
    /// barrier, the Tensor Memory allocator): atomic with every other such access to the object,
    /// whatever their scopes. The scope of an mbarrier operation names "the set of threads that
    /// directly observe the memory synchronizing effect of this operation" (PTX ISA §9.7.13.15),
    /// not whether arrivals can be lost: the object is one hardware counter, so two such accesses
    /// are morally strong (§8.7) for coherence, atomicity, observation and data races, while
    /// synchronizes-with between them still needs each one's scope to include the other's thread
    /// ([`crate::model::ptx`]). `mbarrier.init` is not such an access: a remote arrive that does
    /// not follow it in causality order races with it.
    pub object: bool,
    /// Events of `tcgen05` instructions ([`crate::model::tcgen05`]).
    pub tc: Option<TcInfo>,
}

impl Label {
    pub fn is_read(&self) -> bool {
        self.kind == EventKind::Read
    }
    pub fn is_write(&self) -> bool {
        self.kind == EventKind::Write
    }
    pub fn is_fence(&self) -> bool {
        self.kind == EventKind::Fence
    }
    pub fn is_access(&self) -> bool {
        matches!(self.kind, EventKind::Read | EventKind::Write)
    }
    pub fn is_barrier(&self) -> bool {
        self.kind == EventKind::Barrier
    }
    /// An event of an asynchronous `tcgen05` operation: not ordered by program order
    /// (§9.7.16.6.1) except as [`crate::model::tcgen05`] says.
    pub fn is_async(&self) -> bool {
        self.tc.is_some_and(|t| t.op.is_async())
    }

    /// The event in the accumulator slot of an `mma` whose flag (enable-input-d) is a register
    /// that is 0, for this mma's accumulator read: a fence with no semantics in the mma's
    /// perform (it keeps the accumulator's location, for the read it stands for, but no axiom
    /// looks at a fence's location). With it the mma has the same events whatever the flag, so a revisit may keep
    /// the events after the mma while the read the flag comes from takes another value, and
    /// refill the slot as a read or as this ([`Label::is_accumulator_slot_of`]).
    pub fn accumulator_skip(&self) -> Label {
        Label { kind: EventKind::Fence, ..*self }
    }

    /// Whether this is an `mma`'s accumulator read or its [`Label::accumulator_skip`], and
    /// `other` the other of the two for the same slot. The slot is the mma's event at its
    /// accumulator's location after the first (the operand reads, at another location or first,
    /// are not: taken for the slot, a read of `b` was refilled as a skip).
    pub fn is_accumulator_slot_of(&self, other: &Label) -> bool {
        let mma = |l: &Label| l.tc.is_some_and(|t| matches!(t.op, TcOp::Mma { acc, .. } if acc == l.loc) && !t.first);
        mma(self)
            && Label { kind: other.kind, ..*self } == *other
            && matches!((self.kind, other.kind), (EventKind::Read, EventKind::Fence) | (EventKind::Fence, EventKind::Read))
    }
}
