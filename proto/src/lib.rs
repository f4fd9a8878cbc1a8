//! The gRPC protocol shared by the coordinator and the workers (package `tcfuzz.v1`).
//!
//! **Not implemented yet.** This crate holds its place in the workspace layout of DESIGN §1; the
//! issue that builds this role fills it. Nothing here pretends to work: the `tcfuzz` commands that
//! would use it fail with a clear "not implemented yet" error.
