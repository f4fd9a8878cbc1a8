//! The Tensor Memory allocator of a CTA, as the value of a hidden location that `tcgen05.alloc`,
//! `tcgen05.dealloc` and `tcgen05.relinquish_alloc_permit` read and write atomically (like the
//! synchronization objects of [`crate::program::sync`]: the order in which warps allocate is the
//! location's coherence order, explored like any other).
//!
//! Rules (PTX ISA §9.7.16.7.1 "Tensor Memory Allocation and Management Instructions"; DESIGN
//! §3.3): a CTA has 512 columns; an allocation is a power of two of at least 32 columns; `alloc`
//! blocks while the columns are not available (a possible hang); after
//! `relinquish_alloc_permit` the CTA may not allocate again (misuse); `dealloc` of columns that
//! are not allocated is misuse; a CTA that exits with columns still allocated misuses the
//! allocator. Columns are handed out first-fit, aligned to the allocation's size; the address
//! written to the slot is the first column.
//!
//! Declared TMEM regions (`d @ tmem ...`) stand for memory allocated before the program starts
//! (`examples/README.md`): they are not in this state, and deallocating one by name changes
//! nothing here.

/// Columns of Tensor Memory per CTA (§9.7.16.7.1).
pub const COLUMNS: i64 = 512;
/// The allocation unit: every allocation is a power of two of at least this many columns.
pub const MIN_COLUMNS: i64 = 32;
const CHUNKS: i64 = COLUMNS / MIN_COLUMNS;
/// Bit of the state set once the CTA has relinquished its permit to allocate.
const RELINQUISHED: i64 = 1 << CHUNKS;

/// Why an allocator operation is a misuse.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum MisuseRule {
    AllocAfterRelinquish,
    DeallocNotAllocated,
    ExitWithLiveColumns,
    /// A `cta_group::2` `mma`, `cp`, `shift` or `commit` issued when the peer CTA may have exited
    /// (Table 46: "the peer CTA should be active and should not have exited").
    PeerCtaExited,
    /// An arrive-on operation on an mbarrier whose current phase has no pending arrival left
    /// (it waits for transactions): the pending arrival count would leave its range (PTX ISA
    /// §9.7.13.15.1, "Contents of the mbarrier object": 0 to 2^20 - 1). Kept here, beside the
    /// allocator's rules, because it is the one list of misuse rules verdicts name.
    MbarrierOverArrival,
    /// A `barrier.cluster.arrive` while the thread's earlier arrive is of a phase that has not
    /// completed: "each thread must arrive at the barrier only once before the barrier
    /// completes" (PTX ISA §9.7.13.3, `barrier.cluster`).
    ClusterArriveTwice,
}

impl MisuseRule {
    /// A short name, as the examples' `// expect misuse:` headers write it.
    pub fn name(self) -> &'static str {
        match self {
            MisuseRule::AllocAfterRelinquish => "alloc-after-relinquish",
            MisuseRule::DeallocNotAllocated => "dealloc-not-allocated",
            MisuseRule::ExitWithLiveColumns => "exit-with-live-columns",
            MisuseRule::PeerCtaExited => "peer-cta-exited",
            MisuseRule::MbarrierOverArrival => "mbarrier-over-arrival",
            MisuseRule::ClusterArriveTwice => "cluster-arrive-twice",
        }
    }

    /// The rule [`MisuseRule::name`] names.
    pub fn from_name(name: &str) -> Option<MisuseRule> {
        use MisuseRule::*;
        [AllocAfterRelinquish, DeallocNotAllocated, ExitWithLiveColumns, PeerCtaExited, MbarrierOverArrival, ClusterArriveTwice]
            .into_iter()
            .find(|r| r.name() == name)
    }

    /// What was violated, for reports.
    pub fn describe(self) -> &'static str {
        match self {
            MisuseRule::AllocAfterRelinquish => "tcgen05.alloc after tcgen05.relinquish_alloc_permit",
            MisuseRule::DeallocNotAllocated => "tcgen05.dealloc of columns that are not allocated",
            MisuseRule::ExitWithLiveColumns => "CTA exits with Tensor Memory still allocated",
            MisuseRule::PeerCtaExited => "cta_group::2 tcgen05 operation issued when the peer CTA may have exited",
            MisuseRule::MbarrierOverArrival => "arrive-on operation on an mbarrier whose phase has no pending arrival left",
            MisuseRule::ClusterArriveTwice => "barrier.cluster.arrive before the phase of the thread's earlier arrive completed",
        }
    }

    /// The spec section that states the rule.
    pub fn section(self) -> &'static str {
        match self {
            MisuseRule::PeerCtaExited => "PTX ISA §9.7.16.5 Table 46",
            MisuseRule::MbarrierOverArrival => "PTX ISA §9.7.13.15.1",
            MisuseRule::ClusterArriveTwice => "PTX ISA §9.7.13.3",
            _ => "PTX ISA §9.7.16.7.1",
        }
    }
}

/// Whether `ncols` is a valid allocation size.
pub fn valid_columns(ncols: i64) -> bool {
    (MIN_COLUMNS..=COLUMNS).contains(&ncols) && ncols.count_ones() == 1
}

fn mask(addr: i64, ncols: i64) -> i64 {
    let chunks = ncols / MIN_COLUMNS;
    ((1 << chunks) - 1) << (addr / MIN_COLUMNS)
}

/// The outcome of an `alloc` on `state`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Alloc {
    /// The new state (unchanged when blocked).
    pub state: i64,
    /// The first allocated column, or `None` when the columns are not available: the warp blocks.
    pub addr: Option<i64>,
    /// Allocating after the permit was relinquished.
    pub misuse: Option<MisuseRule>,
}

pub fn alloc(state: i64, ncols: i64) -> Alloc {
    let misuse = (state & RELINQUISHED != 0).then_some(MisuseRule::AllocAfterRelinquish);
    let fit = (0..COLUMNS).step_by(ncols.max(MIN_COLUMNS) as usize).find(|&a| state & mask(a, ncols) == 0);
    match fit {
        Some(a) => Alloc { state: state | mask(a, ncols), addr: Some(a), misuse },
        None => Alloc { state, addr: None, misuse },
    }
}

/// `dealloc` of `ncols` columns from `addr`: the new state, and the misuse if some of them were
/// not allocated.
pub fn dealloc(state: i64, addr: i64, ncols: i64) -> (i64, Option<MisuseRule>) {
    let aligned = addr >= 0 && addr % MIN_COLUMNS == 0 && addr + ncols <= COLUMNS;
    if !aligned {
        return (state, Some(MisuseRule::DeallocNotAllocated));
    }
    let m = mask(addr, ncols);
    let misuse = (state & m != m).then_some(MisuseRule::DeallocNotAllocated);
    (state & !m, misuse)
}

pub fn relinquish(state: i64) -> i64 {
    state | RELINQUISHED
}

/// Whether columns are still allocated in `state` (at exit: [`MisuseRule::ExitWithLiveColumns`]).
/// An allocator state in words, for final states and witnesses: `columns 0-31, 64-127
/// allocated` or `no columns allocated`, then `, permit relinquished` where it was.
pub fn describe(state: i64) -> String {
    let mut ranges: Vec<String> = Vec::new();
    let mut chunk = 0;
    while chunk < COLUMNS / MIN_COLUMNS {
        if state & (1 << chunk) == 0 {
            chunk += 1;
            continue;
        }
        let start = chunk;
        while chunk < COLUMNS / MIN_COLUMNS && state & (1 << chunk) != 0 {
            chunk += 1;
        }
        ranges.push(format!("{}-{}", start * MIN_COLUMNS, chunk * MIN_COLUMNS - 1));
    }
    let mut s = if ranges.is_empty() { "no columns allocated".to_string() } else { format!("columns {} allocated", ranges.join(", ")) };
    if state & RELINQUISHED != 0 {
        s.push_str(", permit relinquished");
    }
    s
}

pub fn live_columns(state: i64) -> bool {
    state & (RELINQUISHED - 1) != 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn states_in_words() {
        assert_eq!(describe(0), "no columns allocated");
        let a = alloc(0, 64);
        let b = alloc(a.state, 32);
        assert_eq!(describe(b.state), "columns 0-95 allocated");
        let c = alloc(b.state, 128);
        assert_eq!(describe(c.state), "columns 0-95, 128-255 allocated");
        assert_eq!(describe(RELINQUISHED), "no columns allocated, permit relinquished");
    }

    #[test]
    fn first_fit_aligned_allocations() {
        let a = alloc(0, 32);
        assert_eq!((a.addr, a.misuse), (Some(0), None));
        let b = alloc(a.state, 64);
        assert_eq!(b.addr, Some(64), "64 columns align to 64");
        let c = alloc(b.state, 32);
        assert_eq!(c.addr, Some(32), "the hole before the 64-column block");
        let full = alloc(0, 512);
        assert_eq!(full.addr, Some(0));
        assert_eq!(alloc(full.state, 32).addr, None, "no column left: the warp blocks");
    }

    #[test]
    fn dealloc_and_misuse() {
        let a = alloc(0, 64);
        assert_eq!(dealloc(a.state, 0, 64), (0, None));
        assert_eq!(dealloc(a.state, 64, 32).1, Some(MisuseRule::DeallocNotAllocated));
        assert_eq!(dealloc(0, 7, 32).1, Some(MisuseRule::DeallocNotAllocated));
        let r = relinquish(a.state);
        assert!(live_columns(r));
        assert_eq!(alloc(r, 32).misuse, Some(MisuseRule::AllocAfterRelinquish));
        assert!(!live_columns(relinquish(0)));
        assert!(valid_columns(32) && valid_columns(512) && !valid_columns(48) && !valid_columns(16) && !valid_columns(1024));
    }
}
