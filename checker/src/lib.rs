//! Execution graphs, memory models, the DPOR explorer and the exhaustive oracle.
//!
//! **In progress** (the checker issue): nothing here works yet.
