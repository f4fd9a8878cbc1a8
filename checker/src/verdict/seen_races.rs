//! The races a [`super::Collector`] has recorded, remembered by what each is made of, so that an
//! execution whose every possible race is among them need not be judged for races.

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
    /// By the first event's thread and index (a table, not a hash map: asked of every candidate
    /// pair of every execution, the hashed lookup was most of the cost), the second events with
    /// the labels and spans each pair was recorded with. Most events race with few others.
    by_first: Vec<Vec<Vec<(EventId, Sides)>>>,
    len: usize,
}

impl SeenRaces {
    /// Whether the race `(a, b)` of `g` is remembered. (The sides are compared where they lie,
    /// spans first, not copied out.)
    pub(super) fn contains(&self, g: &ExecutionGraph, a: EventId, b: EventId) -> bool {
        let Some(known) = self.by_first.get(a.thread as usize).and_then(|t| t.get(a.index as usize)) else { return false };
        if known.is_empty() || !rememberable(g, a, b) {
            return false;
        }
        let (x, y) = (g.event(a), g.event(b));
        known.iter().any(|(second, (la, sa, lb, sb))| *second == b && *sa == x.span && *sb == y.span && *la == x.label && *lb == y.label)
    }

    /// Remembers the race `(a, b)` of `g` (unless [`MAX`] are, or it cannot be).
    pub(super) fn insert(&mut self, g: &ExecutionGraph, a: EventId, b: EventId) {
        if self.len < MAX
            && let Some(s) = sides(g, a, b)
        {
            let (thread, index) = (a.thread as usize, a.index as usize);
            if self.by_first.len() <= thread {
                self.by_first.resize_with(thread + 1, Vec::new);
            }
            let of_thread = &mut self.by_first[thread];
            if of_thread.len() <= index {
                of_thread.resize_with(index + 1, Vec::new);
            }
            of_thread[index].push((b, s));
            self.len += 1;
        }
    }
}

fn sides(g: &ExecutionGraph, a: EventId, b: EventId) -> Option<Sides> {
    if !rememberable(g, a, b) {
        return None;
    }
    let (x, y) = (g.event(a), g.event(b));
    Some((x.label, x.span, y.label, y.span))
}

/// Whether a race of `a` and `b` can be remembered: not two accesses of one thread with bulk
/// copies ([`Sides`]).
fn rememberable(g: &ExecutionGraph, a: EventId, b: EventId) -> bool {
    a.thread != b.thread || !g.threads[a.thread as usize].iter().any(|e| e.label.bulk_copy != 0)
}
