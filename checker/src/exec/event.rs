//! Events: the nodes of an execution graph — an instruction's [`Label`] with the value it read or
//! wrote, where it read from and what it depends on — and the event a thread asks to add next
//! ([`NewEvent`], what the interpreter produces and the graph takes).

use tcfuzz_litmus::Span;

use crate::program::label::{Label, LocId};

/// The identity of an event: its thread and its position in that thread's program order.
/// Initial writes live in a pseudo-thread ([`EventId::INIT_THREAD`]), one per location.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct EventId {
    pub thread: u32,
    pub index: u32,
}

impl EventId {
    pub const INIT_THREAD: u32 = u32::MAX;

    pub fn new(thread: usize, index: usize) -> Self {
        EventId { thread: thread as u32, index: index as u32 }
    }

    /// The initial write of `loc`.
    pub fn init(loc: LocId) -> Self {
        EventId { thread: Self::INIT_THREAD, index: loc }
    }

    pub fn is_init(self) -> bool {
        self.thread == Self::INIT_THREAD
    }
}

/// An event of a thread as it sits in an execution graph.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Event {
    pub label: Label,
    /// The value written (writes) or read (reads, equal to the value of `rf`); 0 for fences.
    pub value: i64,
    /// For reads: the write read from.
    pub rf: Option<EventId>,
    /// Order of addition to the graph (TruSt's `<_G`); 0 in graphs built by the oracle.
    pub stamp: u32,
    /// Bit `i` set: this event's value or its execution depends (data or control, through
    /// registers and branches) on the thread's `i`-th event, a read. Used by No-Thin-Air.
    pub deps: u64,
    /// For the read of a `cas` that writes when it reads this value: the value (see
    /// [`crate::exec::event::NewEvent::cas_expected`]); `None` otherwise.
    pub cas_expected: Option<i64>,
    pub span: Span,
}

/// The next event a thread wants to add.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NewEvent {
    pub label: Label,
    /// The value written (writes); 0 for reads and fences, whose value comes from the graph.
    pub value: i64,
    pub deps: u64,
    /// For the read of a `cas` that writes when it finds its expected value: that value. Where the
    /// read then reads another value, the thread has no write half there and its later events sit
    /// one position earlier (the explorer keeps positions right when such a read's value changes).
    pub cas_expected: Option<i64>,
    pub span: Span,
}
