//! One module per `tcfuzz` command.

pub mod fmt;
pub mod parse;
pub mod pending;
