//! The races a [`super::Collector`] has recorded, remembered by what each is made of, so that an
//! execution whose every possible race is among them need not be judged for races.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use tcfuzz_litmus::Span;

use crate::exec::event::EventId;
use crate::exec::graph::ExecutionGraph;
use crate::program::label::Label;

/// At most this many races are remembered per check (a few hundred kilobytes).
const MAX: usize = 4096;

/// What a recorded [`super::Race`] is made of, read off the graph: its two events with their
/// labels and source spans. Its kind and repair hint follow from them, except for two accesses
/// of one thread with bulk copies, whose hint looks at the copies' spans: those are not
/// remembered.
type Sides = (Label, Span, Label, Span);

#[derive(Default)]
pub(super) struct SeenRaces {
    /// By the two events (looked up by them first: most pairs are remembered with one set of
    /// labels), the labels and spans each was recorded with.
    by_pair: HashMap<(EventId, EventId), Vec<Sides>, BuildHasherDefault<PairHasher>>,
    len: usize,
}

impl SeenRaces {
    /// Whether the race `(a, b)` of `g` is remembered.
    pub(super) fn contains(&self, g: &ExecutionGraph, a: EventId, b: EventId) -> bool {
        self.by_pair.get(&(a, b)).is_some_and(|known| sides(g, a, b).is_some_and(|s| known.contains(&s)))
    }

    /// Remembers the race `(a, b)` of `g` (unless [`MAX`] are, or it cannot be).
    pub(super) fn insert(&mut self, g: &ExecutionGraph, a: EventId, b: EventId) {
        if self.len < MAX
            && let Some(s) = sides(g, a, b)
        {
            self.by_pair.entry((a, b)).or_default().push(s);
            self.len += 1;
        }
    }
}

fn sides(g: &ExecutionGraph, a: EventId, b: EventId) -> Option<Sides> {
    if a.thread == b.thread && g.threads[a.thread as usize].iter().any(|e| e.label.bulk_copy != 0) {
        return None;
    }
    let (x, y) = (g.event(a), g.event(b));
    Some((x.label, x.span, y.label, y.span))
}

/// A multiplicative hash of the four `u32`s of a pair of event ids: the default hasher costs
/// more than the rest of the lookup, and these keys are not chosen by an adversary.
#[derive(Default)]
struct PairHasher(u64);

impl Hasher for PairHasher {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }

    fn write_u32(&mut self, x: u32) {
        self.write_u64(u64::from(x));
    }

    fn write_u64(&mut self, x: u64) {
        self.0 = (self.0.rotate_left(23) ^ x).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }

    fn finish(&self) -> u64 {
        self.0 ^ (self.0 >> 29)
    }
}
