//! One module per `tcfuzz` command.

pub mod bench;
pub mod check;
pub mod corpus;
pub mod differential;
pub mod dot;
pub mod emit;
pub mod expect;
pub mod explain;
pub mod fmt;
pub mod fuzz;
pub mod generate;
pub mod gpu;
pub mod interrupt;
pub mod lower;
pub mod minimize;
pub mod parse;
pub mod progress;
pub mod report;
pub mod selftest;
pub mod services;
pub mod trace;
