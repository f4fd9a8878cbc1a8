//! One module per `tcfuzz` command.

pub mod bench;
pub mod check;
pub mod differential;
pub mod dot;
pub mod expect;
pub mod explain;
pub mod fmt;
pub mod interrupt;
pub mod lower;
pub mod parse;
pub mod pending;
pub mod progress;
pub mod selftest;
