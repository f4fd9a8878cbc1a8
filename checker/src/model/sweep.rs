//! What the models' topological sorts share ([`crate::model::sc`]'s rule 1, the PTX model's quick
//! acceptance): the graph's nodes (the initial writes, then each thread's events in program
//! order), which of them are sorted, and the communication edges into an event — its source
//! (`rf`), its predecessor in `co` and that write's readers (`fr`, which only needs the next
//! write in `co`). A sort sweeps the threads in turn, each sorting what is ready, until every
//! event is sorted or a sweep sorts none (a cycle): [`until_stuck`].

use crate::exec::event::{Event, EventId};
use crate::exec::graph::{ExecutionGraph, HOLE};

const NONE: u32 = u32::MAX;

#[derive(Default)]
pub(crate) struct Frame {
    /// Per thread, the node of its first event.
    pub offsets: Vec<usize>,
    pub sorted: Vec<bool>,
    /// Per write node: how many of its readers are not sorted yet.
    unsorted_readers: Vec<u32>,
    /// Per write node in `co`: its predecessor there (the initial write for the first).
    co_pred: Vec<u32>,
}

impl Frame {
    /// Loads `g`: the initial writes sorted, holes (events whose stamp is [`HOLE`], not part of
    /// the graph) too. Returns how many events are left to sort.
    pub fn load(&mut self, g: &ExecutionGraph) -> usize {
        self.offsets.clear();
        let mut n = g.init.len();
        for evs in &g.threads {
            self.offsets.push(n);
            n += evs.len();
        }
        self.sorted.clear();
        self.sorted.resize(n, false);
        self.sorted[..g.init.len()].fill(true);
        self.unsorted_readers.clear();
        self.unsorted_readers.resize(n, 0);
        self.co_pred.clear();
        self.co_pred.resize(n, NONE);
        let mut left = n - g.init.len();
        for (t, evs) in g.threads.iter().enumerate() {
            for (i, e) in evs.iter().enumerate() {
                if e.stamp == HOLE {
                    self.sorted[self.offsets[t] + i] = true;
                    left -= 1;
                } else if let Some(w) = e.rf {
                    let w = self.node(w);
                    self.unsorted_readers[w] += 1;
                }
            }
        }
        for (l, ws) in g.co.iter().enumerate() {
            let mut pred = l;
            for &w in ws {
                let w = self.node(w);
                self.co_pred[w] = pred as u32;
                pred = w;
            }
        }
        left
    }

    pub fn node(&self, e: EventId) -> usize {
        if e.is_init() { e.index as usize } else { self.offsets[e.thread as usize] + e.index as usize }
    }

    /// Whether the communication edges into `e` (node `me`) all come from sorted events.
    pub fn communication_ready(&self, e: &Event, me: usize) -> bool {
        e.rf.is_none_or(|w| self.sorted[self.node(w)])
            && (self.co_pred[me] == NONE || {
                let p = self.co_pred[me] as usize;
                self.sorted[p] && self.unsorted_readers[p] == 0
            })
    }

    /// Whether every event that `mask` names (bit `i`: event `i`) of the thread whose first node
    /// is `base` is sorted.
    pub fn all_sorted(&self, base: usize, mut mask: u64) -> bool {
        while mask != 0 {
            let d = mask.trailing_zeros() as usize;
            mask &= mask - 1;
            if !self.sorted[base + d] {
                return false;
            }
        }
        true
    }

    /// Sorts `e` (node `me`).
    pub fn sort(&mut self, e: &Event, me: usize) {
        self.sorted[me] = true;
        if let Some(w) = e.rf {
            let w = self.node(w);
            self.unsorted_readers[w] -= 1;
        }
    }
}

/// One sweep over every unsorted event of each thread, in any order within a thread (for
/// relations that do not follow program order): each event that `ready` accepts (asked with the
/// frame, the event's thread and index, and the event) is sorted by `sort` (with its node).
/// Returns how many it sorted.
pub(crate) fn sweep_any_order(
    frame: &mut Frame,
    g: &ExecutionGraph,
    ready: impl Fn(&Frame, usize, usize, &Event) -> bool,
    sort: impl Fn(&mut Frame, &Event, usize),
) -> usize {
    let mut sorted = 0;
    for (t, evs) in g.threads.iter().enumerate() {
        for (i, e) in evs.iter().enumerate() {
            let me = frame.offsets[t] + i;
            if !frame.sorted[me] && ready(frame, t, i, e) {
                sort(frame, e, me);
                sorted += 1;
            }
        }
    }
    sorted
}

/// Runs `sweep` (which returns how many events it sorted) until none of the `left` events is
/// left (`true`) or a sweep sorts none (`false`: the rest, still counted in `left`, lie on or
/// after a cycle).
pub(crate) fn until_stuck(left: &mut usize, mut sweep: impl FnMut() -> usize) -> bool {
    while *left > 0 {
        match sweep() {
            0 => return false,
            k => *left -= k,
        }
    }
    true
}
