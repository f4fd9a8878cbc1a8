//! The gRPC protocol shared by the coordinator and the workers: `proto/tcfuzz.proto`, package
//! `tcfuzz.v1`, compiled by `build.rs` in pure Rust (protox, tonic-prost-build; no `protoc`).
//! The generated code lives in `OUT_DIR` and is never committed.
//!
//! The `.proto` file is the documentation of every message and field; this crate adds only the
//! limits both sides enforce, the metadata key that carries the token, and [`connect`]: how a
//! client (a worker, the CLI) reaches a coordinator.

pub mod connect;

#[allow(clippy::all, clippy::pedantic, missing_docs)]
pub mod v1 {
    tonic::include_proto!("tcfuzz.v1");
}

/// The largest message either side sends or accepts (requests and responses), in bytes. A
/// message over it is refused by the transport before it is decoded.
pub const MAX_MESSAGE_BYTES: usize = 16 << 20;

/// The gRPC metadata key of the shared token, sent as `Bearer TOKEN`.
pub const TOKEN_METADATA_KEY: &str = "authorization";

/// The protocol version workers and coordinators must share (major.minor of the crate): a program
/// is a function of `(seed, index, config)` only within one generator version.
pub fn protocol_version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}
