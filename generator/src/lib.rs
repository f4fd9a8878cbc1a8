//! Program generation for tcfuzz. Pure: no I/O.
//!
//! - [`generate`]: program `index` of a campaign as a function of `(seed, index, config)` (and
//!   the seed pool, for the coverage-guided family), from four families behind one interface:
//!   random, pattern, mutant, coverage-guided; `tcfuzz fuzz` runs it.
//! - [`random`]: random programs in several shapes (PTX accesses, barriers and mbarriers, Tile
//!   IR, tcgen05, assume, ...), driven by `arbitrary` and reproducible from a seed; `tcfuzz
//!   selftest` checks them with the explorer and the oracle.
//! - [`pattern`]: programs composed of the spec's canonical synchronization patterns, and their
//!   mutants with one synchronization step removed or weakened.
//! - [`mutate`]: coverage-guided mutation of seed programs, with a syzkaller-style choice table.
//! - [`families`]: the scaling benchmark families (GenMC's shapes and classic litmus shapes) as
//!   litmus programs; `tcfuzz bench` runs them.
//! - [`minimize`]: shrinks a program while a yes/no predicate holds (ddmin over threads,
//!   locations and instructions, then simplifications), to a 1-minimal program; `tcfuzz
//!   minimize` runs it.

mod choose;
pub mod families;
pub mod generate;
pub mod minimize;
pub mod mutate;
pub mod pattern;
pub mod random;
