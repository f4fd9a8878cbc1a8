//! Work sharing between the threads of one parallel check ([`super::split::check_parallel`]): a
//! thread out of work asks, and a busy one gives away the rest of a node of its exploration
//! tree at the shallowest level it has not given yet.
//!
//! A static split leaves one thread with most of the work where the tree is lopsided (measured:
//! one part of 32 holds 31–59 % of the time on wcas 14, casrot 11 and ainc 8). Here a thread
//! that runs out of parts announces it; a busy explorer polls that (one relaxed load per graph)
//! and answers with [`Donation`]s — "the children of the node at this path from this index on",
//! which it then skips itself. Its shallowest pending level holds the most work left, so a
//! donation is large and few are made (GenMC's `-nthreads` hands over a copied graph instead;
//! a path is what the explorer already knows how to walk to, [`super::split`]).

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::Instant;

/// A part of a parallel check: for the program variant `variant`, the subtree at `path` — or,
/// with `rest`, the subtrees of the node at `path`'s parent from the child `path`'s last index
/// names on (every later sibling too). A `rest` part may be empty: its giver did not know
/// whether the node had more children.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Donation {
    pub variant: u32,
    pub path: Vec<u32>,
    pub rest: bool,
}

/// The parts not yet taken, and the threads waiting for one.
#[derive(Default)]
struct Queue {
    parts: Vec<Donation>,
    idle: usize,
    done: bool,
    /// Parts given so far.
    gifts: usize,
}

/// What the threads of one parallel check share.
pub(crate) struct Share {
    threads: usize,
    queue: Mutex<Queue>,
    ready: Condvar,
    /// Set while more threads wait than parts are queued: what a busy explorer polls.
    wanted: AtomicBool,
    /// For a part that hands back the rest of its work ([`Share::yielding`]).
    yielding: Option<Yielding>,
}

/// When a yielding part gives its work back: at a poll (one per node the explorer visits, so a
/// position in the exploration that is the same on every run), fixed or chosen by the clock
/// (and by a flag someone else sets when work is wanted).
struct Yielding {
    polls: AtomicU64,
    /// The poll from which every one wants work (`u64::MAX`: not yet).
    at_poll: AtomicU64,
    deadline: Option<Instant>,
    /// With a deadline: yield only once this is set after it, and clear it then (one part of
    /// those that share the flag answers each time it is set).
    wanted: Option<Arc<AtomicBool>>,
}

/// Polls between two looks at the clock of a yielding part.
const POLLS_PER_CLOCK: u64 = 64;

impl Share {
    /// A share for `threads` threads, starting with `parts` (taken in this order).
    pub(crate) fn new(threads: usize, mut parts: Vec<Donation>) -> Share {
        parts.reverse();
        Share {
            threads,
            queue: Mutex::new(Queue { parts, idle: 0, done: false, gifts: 0 }),
            ready: Condvar::new(),
            wanted: AtomicBool::new(false),
            yielding: None,
        }
    }

    /// A share for one explorer that gives all of its part away but the path it is on, from
    /// poll `at_poll` on, or from the first poll after `deadline` (checked every
    /// [`POLLS_PER_CLOCK`] polls) where `wanted` (if given) is set: every gift is taken, and kept
    /// for [`Share::into_gifts`].
    pub(crate) fn yielding(at_poll: Option<u64>, deadline: Option<Instant>, wanted: Option<Arc<AtomicBool>>) -> Share {
        let queue = Queue { parts: Vec::new(), idle: usize::MAX / 2, done: false, gifts: 0 };
        let at_poll = AtomicU64::new(at_poll.unwrap_or(u64::MAX));
        let yielding = Yielding { polls: AtomicU64::new(0), at_poll, deadline, wanted };
        Share { threads: 1, queue: Mutex::new(queue), ready: Condvar::new(), wanted: AtomicBool::new(false), yielding: Some(yielding) }
    }

    /// A yielding share's gifts in the order given, and the poll it yielded at (`None` if the
    /// part ended first).
    pub(crate) fn into_gifts(self) -> (Vec<Donation>, Option<u64>) {
        let at = self.yielding.map(|y| y.at_poll.into_inner()).filter(|&p| p != u64::MAX);
        (self.queue.into_inner().unwrap_or_else(PoisonError::into_inner).parts, at)
    }

    fn lock(&self) -> MutexGuard<'_, Queue> {
        self.queue.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The next part to explore; `None` once every thread is out of work (or [`Share::stop`]).
    /// Waits while others may still give some.
    pub(crate) fn take(&self) -> Option<Donation> {
        let mut q = self.lock();
        loop {
            if q.done {
                return None;
            }
            if let Some(part) = q.parts.pop() {
                // A part taken by a thread that did not wait for it leaves a waiter unserved.
                self.wanted.store(q.idle > q.parts.len(), Ordering::Relaxed);
                return Some(part);
            }
            q.idle += 1;
            if q.idle == self.threads {
                // Nobody is exploring: nothing more will be given.
                q.done = true;
                self.ready.notify_all();
                return None;
            }
            self.wanted.store(q.idle > q.parts.len(), Ordering::Relaxed);
            q = self.ready.wait(q).unwrap_or_else(PoisonError::into_inner);
            q.idle -= 1;
        }
    }

    /// Ends the check for every thread (an error in one).
    pub(crate) fn stop(&self) {
        self.lock().done = true;
        self.wanted.store(false, Ordering::Relaxed);
        self.ready.notify_all();
    }

    /// Whether a thread waits for work (a relaxed read: a late answer only delays the gift). An
    /// explorer with a donor polls this once per node it visits; a yielding share counts them.
    pub(crate) fn wanted(&self) -> bool {
        let Some(y) = &self.yielding else { return self.wanted.load(Ordering::Relaxed) };
        let poll = y.polls.fetch_add(1, Ordering::Relaxed) + 1;
        if poll >= y.at_poll.load(Ordering::Relaxed) {
            return true;
        }
        let wanted = || y.wanted.as_ref().is_none_or(|w| w.swap(false, Ordering::Relaxed));
        if y.deadline.is_some_and(|d| poll % POLLS_PER_CLOCK == 0 && Instant::now() >= d) && wanted() {
            y.at_poll.store(poll, Ordering::Relaxed);
            return true;
        }
        false
    }

    /// Gives `part` to a waiting thread; `false` (and the part kept) when none waits for it.
    pub(crate) fn give(&self, part: Donation) -> bool {
        let mut q = self.lock();
        if q.done || q.idle <= q.parts.len() {
            self.wanted.store(false, Ordering::Relaxed);
            return false;
        }
        q.parts.push(part);
        q.gifts += 1;
        self.wanted.store(q.idle > q.parts.len(), Ordering::Relaxed);
        self.ready.notify_one();
        true
    }
}

#[cfg(test)]
impl Share {
    /// A share with `waiting` threads that never take anything: an explorer gives whenever the
    /// queue is shorter, and the test takes the parts with [`Share::pop`] on one thread.
    pub(crate) fn with_waiting(waiting: usize, mut parts: Vec<Donation>) -> Share {
        parts.reverse();
        let queue = Queue { parts, idle: waiting, done: false, gifts: 0 };
        Share { threads: waiting + 1, queue: Mutex::new(queue), ready: Condvar::new(), wanted: AtomicBool::new(false), yielding: None }
    }

    /// The next part, without waiting.
    pub(crate) fn pop(&self) -> Option<Donation> {
        let mut q = self.lock();
        let part = q.parts.pop();
        self.wanted.store(q.idle > q.parts.len(), Ordering::Relaxed);
        part
    }

    pub(crate) fn gifts(&self) -> usize {
        self.lock().gifts
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn part(i: u32) -> Donation {
        Donation { variant: 0, path: vec![0, i], rest: false }
    }

    #[test]
    fn parts_are_taken_in_order_and_the_last_idle_thread_ends_the_check() {
        let share = Share::new(1, vec![part(1), part(2)]);
        assert!(!share.wanted());
        assert_eq!(share.take(), Some(part(1)));
        assert!(!share.give(part(9)), "nobody waits");
        assert_eq!(share.take(), Some(part(2)));
        assert_eq!(share.take(), None);
        assert_eq!(share.take(), None);
    }

    /// Stops the share when a failed assertion unwinds past it, so that the other thread's
    /// `take` returns and the scope ends with the failure rather than waiting for ever.
    struct StopOnPanic<'a>(&'a Share);

    impl Drop for StopOnPanic<'_> {
        fn drop(&mut self) {
            if std::thread::panicking() {
                self.0.stop();
            }
        }
    }

    #[test]
    fn a_waiting_thread_is_wanted_and_gets_the_gift() {
        let share = Share::new(2, Vec::new());
        std::thread::scope(|s| {
            // The waiter takes a part, explores it (nothing), and asks again like a worker.
            let waiter = s.spawn(|| (share.take(), share.take()));
            let _stop = StopOnPanic(&share);
            // Bounded: the waiter announces itself within a few scheduler ticks.
            let mut polls = 0;
            while !share.wanted() {
                polls += 1;
                assert!(polls < 10_000, "the waiting thread never said so");
                std::thread::sleep(std::time::Duration::from_millis(1));
            }
            let gift = Donation { variant: 0, path: vec![0, 3], rest: true };
            assert!(share.give(gift.clone()));
            {
                // Served: nobody is wanted while the gift waits in the queue. (Once the waiter
                // has taken it, it asks again and is wanted again: read under the lock.)
                let q = share.lock();
                assert!(!share.wanted() || q.parts.is_empty(), "wanted with the gift still queued");
            }
            // Until the waiter has it, this thread's own `take` could take the gift back.
            let mut polls = 0;
            while !share.lock().parts.is_empty() {
                polls += 1;
                assert!(polls < 10_000, "the waiting thread never took the gift");
                std::thread::sleep(std::time::Duration::from_millis(1));
            }
            // The giver runs out too: nobody is left exploring, and both are told so.
            assert_eq!(share.take(), None);
            assert_eq!(waiter.join().ok(), Some((Some(gift), None)));
        });
    }
}
