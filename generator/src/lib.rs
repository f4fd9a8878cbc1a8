//! Program generation for tcfuzz. Pure: no I/O.
//!
//! - [`families`]: the scaling benchmark families (GenMC's shapes and classic litmus shapes) as
//!   litmus programs; `tcfuzz bench` runs them.
//!
//! **Not implemented yet:** random generation with `arbitrary`, pattern-based generation from the
//! spec's canonical synchronization patterns, mutation and minimization (later issues).

pub mod families;
