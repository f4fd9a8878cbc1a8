//! Running a compiled program: the interpreter that replays a thread's code against the reads it
//! is given ([`interp`]), the execution graphs it builds ([`graph`]) over dense bitset relations
//! ([`bitset`]), and the CTA-pair rule judged on a finished graph ([`cta_pair`]).

pub mod bitset;
pub(crate) mod cta_pair;
pub mod event;
pub mod graph;
pub mod interp;
