//! Job ids: a function of the campaign and the job's place in it, so that an id names the same
//! work after a restart and a report can be matched to its job exactly once.
//!
//! ```text
//! bits 63..32  campaign id (1 .. 2^32 - 1)
//! bit  31      0: a minimization job, 1: a generation job
//! bits 30..0   the job's number within its campaign and class (1 .. 2^31 - 1)
//! ```
//! Within a campaign queued jobs go in id order, so its minimization jobs go before its
//! generation jobs; campaigns take turns, and an exploration's parts go before all of them
//! (`State::lease`).

/// The two classes of job.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    Minimize,
    Generate,
}

const GENERATE_BIT: u64 = 1 << 31;
/// The largest job number in a class.
pub const MAX_NUMBER: u64 = GENERATE_BIT - 1;
/// The largest campaign id.
pub const MAX_CAMPAIGN: u64 = u32::MAX as u64;

/// The id of job `number` (from 1) of `class` in `campaign`.
pub fn job_id(campaign: u64, class: Class, number: u64) -> u64 {
    debug_assert!((1..=MAX_CAMPAIGN).contains(&campaign) && (1..=MAX_NUMBER).contains(&number));
    let class_bit = match class {
        Class::Minimize => 0,
        Class::Generate => GENERATE_BIT,
    };
    campaign << 32 | class_bit | number
}

/// The campaign, class and number of a job id.
pub fn parts(id: u64) -> (u64, Class, u64) {
    let class = if id & GENERATE_BIT != 0 { Class::Generate } else { Class::Minimize };
    (id >> 32, class, id & MAX_NUMBER)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_round_trip_and_sort_minimization_first_then_by_campaign() {
        let a = job_id(1, Class::Minimize, 7);
        let b = job_id(1, Class::Generate, 1);
        let c = job_id(2, Class::Minimize, 1);
        assert!(a < b && b < c);
        assert_eq!(parts(b), (1, Class::Generate, 1));
        assert_eq!(parts(job_id(MAX_CAMPAIGN, Class::Generate, MAX_NUMBER)), (MAX_CAMPAIGN, Class::Generate, MAX_NUMBER));
    }
}
