//! The gRPC protocol shared by the coordinator and the workers: `proto/tcfuzz.proto`, package
//! `tcfuzz.v1`, compiled by `build.rs` in pure Rust (protox, tonic-prost-build; no `protoc`).
//! The generated code lives in `OUT_DIR` and is never committed.
//!
//! The `.proto` file is the documentation of every message and field; this crate adds only the
//! limits both sides enforce (and the seed-pool limit `tcfuzz fuzz` keeps to as well), the
//! metadata key that carries the token, and [`connect`]: how a client (a worker, the CLI)
//! reaches a coordinator.

pub mod connect;

#[allow(clippy::all, clippy::pedantic, missing_docs)]
pub mod v1 {
    tonic::include_proto!("tcfuzz.v1");
}

/// The largest message either side sends or accepts (requests and responses), in bytes. A
/// message over it is refused by the transport before it is decoded.
pub const MAX_MESSAGE_BYTES: usize = 16 << 20;

/// The most text a seed pool holds: each seed's program and feature names count. A pool with
/// more keeps its newest seeds that fit ([`seeds_in_pool`]). A coordinator's `SeedPool` answer
/// must stay well inside [`MAX_MESSAGE_BYTES`]; `tcfuzz fuzz` keeps to the same limit, so that
/// a campaign and `tcfuzz fuzz` with the same seed and config mutate the same seeds.
pub const MAX_POOL_BYTES: usize = 8 << 20;

/// How much of [`MAX_POOL_BYTES`] a seed takes.
pub fn pool_bytes<'a>(program: &str, features: impl IntoIterator<Item = &'a str>) -> usize {
    features.into_iter().fold(program.len(), |n, f| n.saturating_add(f.len()))
}

/// How many of the newest seeds make a pool, given each seed's [`pool_bytes`], newest first:
/// those before the first whose bytes, added to the newer ones', pass [`MAX_POOL_BYTES`].
pub fn seeds_in_pool(bytes_newest_first: impl IntoIterator<Item = usize>) -> usize {
    let mut total = 0usize;
    bytes_newest_first
        .into_iter()
        .take_while(|&b| {
            total = total.saturating_add(b);
            total <= MAX_POOL_BYTES
        })
        .count()
}

/// The gRPC metadata key of the shared token, sent as `Bearer TOKEN`.
pub const TOKEN_METADATA_KEY: &str = "authorization";

/// The version workers and coordinators must share: the release, then `+` and a fingerprint of
/// the sources a worker's results are a function of (generator, checker, worker, protocol and
/// the locked dependencies; `build.rs`). A program is a function of `(seed, index, config)` and
/// its verdicts of the program only within one build, so two builds of one release that differ
/// there differ here.
pub fn protocol_version() -> &'static str {
    concat!(env!("CARGO_PKG_VERSION"), "+", env!("TCFUZZ_BUILD_FINGERPRINT"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_protocol_version_is_the_release_and_a_fingerprint_of_the_build() {
        let (release, fingerprint) = protocol_version().split_once('+').expect("a `+` after the release");
        assert_eq!(release, env!("CARGO_PKG_VERSION"));
        assert_eq!(fingerprint.len(), 16, "{fingerprint}");
        assert!(fingerprint.bytes().all(|b| b.is_ascii_hexdigit()), "{fingerprint}");
    }

    #[test]
    fn a_pool_keeps_the_newest_seeds_up_to_the_limit() {
        assert_eq!(pool_bytes("PTX p", ["op:ld", "pair:x"]), 16);
        assert_eq!(seeds_in_pool([]), 0);
        assert_eq!(seeds_in_pool([1, 2, 3]), 3);
        let third = MAX_POOL_BYTES / 3;
        // Exactly full is in; one byte over is out, and so is every older seed, even a small one.
        assert_eq!(seeds_in_pool([third, third, MAX_POOL_BYTES - 2 * third, 1]), 3);
        assert_eq!(seeds_in_pool([third, third, MAX_POOL_BYTES - 2 * third + 1, 1]), 2);
        assert_eq!(seeds_in_pool([MAX_POOL_BYTES + 1, 1]), 0);
        assert_eq!(seeds_in_pool([usize::MAX, usize::MAX]), 0);
    }
}
