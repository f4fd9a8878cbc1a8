//! Program generation for tcfuzz. Pure: no I/O.
//!
//! - [`random`]: random programs in three families (PTX accesses, barriers and mbarriers, Tile
//!   IR), driven by `arbitrary` and reproducible from a seed; `tcfuzz selftest` checks them with
//!   the explorer and the oracle.
//! - [`families`]: the scaling benchmark families (GenMC's shapes and classic litmus shapes) as
//!   litmus programs; `tcfuzz bench` runs them.
//! - [`minimize`]: shrinks a program while a yes/no predicate holds (ddmin over threads,
//!   locations and instructions, then simplifications), to a 1-minimal program; `tcfuzz
//!   minimize` runs it.
//!
//! **Not implemented yet:** pattern-based generation from the spec's canonical synchronization
//! patterns and mutation (later issues).

pub mod families;
pub mod minimize;
pub mod random;
