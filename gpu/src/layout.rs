//! The contract between an emitted kernel and the host that runs it: the control block the host
//! writes before each launch, and the output record each test instance writes back.
//!
//! Control block: `u32` words.
//! ```text
//! [CTL_INSTANCES]      test instances in this launch
//! [CTL_BARRIER]        1: every warp of a testing CTA meets a spin barrier before the test
//! [CTL_BARRIER_COUNT]  the spin barrier's counter (the host writes 0)
//! [CTL_BARRIER_TARGET] warps that meet it (instances × CTAs per instance × warps per CTA)
//! [CTL_LOOP_CAP]       backward jumps (spin loops, awaited waits) a thread may take before it
//!                      gives up; its instance then counts as unfinished, never as a state
//! [CTL_STRESS_ITERS]   memory-stress iterations of each stressing CTA
//! [CTL_STRESS_PATTERN] 0 store-store, 1 store-load, 2 load-store, 3 load-load
//! [CTL_STRESS_LINES]   how many lines of the stress buffer are targeted
//! [CTL_STRESS_LINE_WORDS] words per stressed line (the stride between targeted lines)
//! [CTL_PRE_STRESS]     memory-stress iterations each testing warp does before the test
//! [CTL_SEED]           seed of the stress address sequence
//! [CTL_GROUPS..]       per group of CTAs (`ctas_per_instance` consecutive CTAs): the instance
//!                      it runs, or STRESS (memory stress instead)
//! [.. + groups]        per instance, per global location: its slot in the memory buffer
//! ```
//! Output record of an instance: `u64` words — one status per thread ([`STATUS_DONE`] when it
//! ran to its end), then each thread's registers, then the shared locations' final values (see
//! [`crate::Layout`]). Global locations are read from their slots in the memory buffer.

pub const CTL_INSTANCES: usize = 0;
pub const CTL_BARRIER: usize = 1;
pub const CTL_BARRIER_COUNT: usize = 2;
pub const CTL_BARRIER_TARGET: usize = 3;
pub const CTL_LOOP_CAP: usize = 4;
pub const CTL_STRESS_ITERS: usize = 5;
pub const CTL_STRESS_PATTERN: usize = 6;
pub const CTL_STRESS_LINES: usize = 7;
pub const CTL_STRESS_LINE_WORDS: usize = 8;
pub const CTL_PRE_STRESS: usize = 9;
pub const CTL_SEED: usize = 10;
/// First word of the group table.
pub const CTL_GROUPS: usize = 16;
/// A group that stresses memory instead of running an instance.
pub const STRESS: u32 = u32::MAX;

/// A thread ran to its end.
pub const STATUS_DONE: u64 = 1;
/// A thread gave up after [`CTL_LOOP_CAP`] backward jumps.
pub const STATUS_LOOP_CAP: u64 = 2;
/// A thread's `assume` failed: the execution is not one of the program (as in the checker).
pub const STATUS_ASSUME_FAILED: u64 = 3;
