//! Program generation for tcfuzz. Pure: no I/O.
//!
//! - [`random`]: random programs in three families (PTX accesses, barriers and mbarriers, Tile
//!   IR), driven by `arbitrary` and reproducible from a seed; `tcfuzz selftest` checks them with
//!   the explorer and the oracle.
//! - [`families`]: the scaling benchmark families (GenMC's shapes and classic litmus shapes) as
//!   litmus programs; `tcfuzz bench` runs them.
//!
//! **Not implemented yet:** pattern-based generation from the spec's canonical synchronization
//! patterns, mutation and minimization (later issues).

pub mod families;
pub mod random;
