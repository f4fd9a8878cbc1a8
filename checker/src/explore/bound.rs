//! The bound on one check ([`crate::Options::deadline`], [`crate::Options::cancel`]): the explorer
//! and the oracle poll it once per graph and stop with [`crate::CheckError::Interrupted`] when it
//! says so, so that a worker can bound every program it checks.

use std::cell::Cell;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use crate::error::Interruption;

/// The clock is read once every this many polls. A poll comes with a graph built and judged (a
/// microsecond or more in a release build), so the deadline is seen within a fraction of a
/// millisecond, while the clock costs nothing measurable.
const CLOCK_EVERY: u32 = 64;

pub(crate) struct Bound {
    deadline: Option<Instant>,
    cancel: Option<Arc<AtomicBool>>,
    polls: Cell<u32>,
}

impl Bound {
    pub fn new(options: &crate::options::Options) -> Self {
        Bound { deadline: options.deadline, cancel: options.cancel.clone(), polls: Cell::new(0) }
    }

    /// Why the check must stop now, if it must: the flag is read at every poll (one relaxed
    /// load), the clock at every [`CLOCK_EVERY`]-th (the first included).
    pub fn poll(&self) -> Option<Interruption> {
        if self.cancel.as_ref().is_some_and(|c| c.load(Ordering::Relaxed)) {
            return Some(Interruption::Cancelled);
        }
        let deadline = self.deadline?;
        let n = self.polls.get();
        self.polls.set(n.wrapping_add(1));
        (n.is_multiple_of(CLOCK_EVERY) && Instant::now() >= deadline).then_some(Interruption::Deadline)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_set_flag_stops_at_the_next_poll() {
        let flag = Arc::new(AtomicBool::new(false));
        let bound = Bound::new(&crate::Options { cancel: Some(flag.clone()), ..crate::Options::default() });
        assert_eq!(bound.poll(), None);
        flag.store(true, Ordering::Relaxed);
        assert_eq!(bound.poll(), Some(Interruption::Cancelled));
    }

    #[test]
    fn a_past_deadline_stops_at_the_first_poll() {
        let bound = Bound::new(&crate::Options { deadline: Some(Instant::now()), ..crate::Options::default() });
        assert_eq!(bound.poll(), Some(Interruption::Deadline));
        let none = Bound::new(&crate::Options::default());
        assert!((0..1000).all(|_| none.poll().is_none()));
    }
}
