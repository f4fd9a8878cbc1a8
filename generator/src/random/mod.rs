//! Random litmus programs, one family per shape of program, driven by [`arbitrary`].
//!
//! Every choice a generator makes is read from an [`Unstructured`] byte source, so the same bytes
//! give the same program: a fuzzer can hand its input straight to [`from_unstructured`], and
//! [`random_program`] expands a seed into bytes with splitmix64 ([`seed_bytes`]) first. A program
//! is a function of `(family, seed)` alone (DESIGN §1, "a program is reproducible from
//! `(seed, index)`"); the tests pin that.
//!
//! The families ([`Family`]):
//! - [`Family::Ptx`] ([`ptx`]): 2–4 PTX threads of 2–6 memory events (about 12 in all) over 2–3
//!   locations, with mixed orderings and scopes, fences, `atom` (add, exch, cas), register
//!   arithmetic, forward branches, and now and then a spin loop or a CTA barrier;
//! - [`Family::Sync`] ([`sync`]): 2–3 PTX threads that synchronize through barriers with thread
//!   counts, `bar.arrive`, Dat3M's quorum barriers, cluster barriers, an mbarrier (arrive,
//!   `expect_tx`, `test_wait`, blocking `try_wait`) and `cp.async.bulk`;
//! - [`Family::TileIr`] ([`tileir`]): 1–3 Tile IR tile blocks of token-ordered loads, stores and
//!   atomics on tiles, or (one in four) a variant of message passing (Tile IR spec §7.12.3);
//! - [`Family::Tcgen05`] ([`tcgen05`]): two warps using Tensor Memory, the async proxy and the
//!   tcgen05 ordering mechanisms (commit, waits, the thread-sync fences, an mbarrier);
//! - [`Family::Assume`] ([`assume`]): programs of the `ptx` family with an `assume` on the value
//!   of some loads (what the explorer's pruning of failed assumes must get right);
//! - [`Family::Fenced`] ([`fenced`]): relaxed flags with `fence.sc` between them, the shape of
//!   mutual-exclusion protocols (what the explorer's Fence-SC floors must get right);
//! - [`Family::Proxy`] ([`proxy`]): programs of the `ptx` family with some accesses routed
//!   through texture, surface, constant or generic aliases, with or without proxy fences.
//!
//! The programs are small on purpose: small enough for the exhaustive oracle, so that the
//! explorer can be compared with it (`tcfuzz selftest`). Every program they produce is valid and
//! prints to text that parses back to it (`tests/random.rs`).
//!
//! When the bytes run out, every further choice is the first option (`arbitrary`'s convention),
//! so any input, however short, still gives a valid program.

pub mod assume;
mod build;
pub mod fenced;
pub mod proxy;
pub mod ptx;
pub mod sync;
pub mod tcgen05;
pub mod tileir;

use std::fmt;
use std::str::FromStr;

use arbitrary::Unstructured;
use tcfuzz_checker::ModelKind;
use tcfuzz_litmus::Program;

/// Bytes a seed expands to: far more than the largest program of any family consumes, so that a
/// seeded program never runs out of choices.
pub const SEED_BYTES: usize = 4096;

/// A shape of random program.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, arbitrary::Arbitrary)]
pub enum Family {
    /// PTX threads with plain memory accesses, fences, atomics, branches ([`ptx`]).
    Ptx,
    /// PTX threads with barriers, mbarriers and bulk copies ([`sync`]).
    Sync,
    /// Tile IR tile-block threads ([`tileir`]).
    TileIr,
    /// Two warps with tcgen05 operations on Tensor Memory ([`tcgen05`]).
    Tcgen05,
    /// `ptx` programs with `assume`s on loaded values ([`assume`]).
    Assume,
    /// Relaxed flags with `fence.sc` between them ([`fenced`]).
    Fenced,
    /// `ptx` programs with accesses through proxy aliases ([`proxy`]).
    Proxy,
}

impl Family {
    /// Every family, in the order `tcfuzz selftest` takes them round-robin.
    pub const ALL: [Family; 7] =
        [Family::Ptx, Family::Sync, Family::TileIr, Family::Tcgen05, Family::Assume, Family::Fenced, Family::Proxy];

    /// The family's name on the command line: `ptx`, `sync`, `tileir`, `tcgen05`, `assume`,
    /// `fenced`, `proxy`.
    pub fn name(self) -> &'static str {
        match self {
            Family::Ptx => "ptx",
            Family::Sync => "sync",
            Family::TileIr => "tileir",
            Family::Tcgen05 => "tcgen05",
            Family::Assume => "assume",
            Family::Fenced => "fenced",
            Family::Proxy => "proxy",
        }
    }

    /// The memory models the family's programs are made to be checked under.
    pub fn models(self) -> &'static [ModelKind] {
        match self {
            Family::Ptx | Family::Sync | Family::Assume | Family::Fenced | Family::Proxy => &[ModelKind::Sc, ModelKind::Ptx],
            Family::TileIr => &[ModelKind::TileIr],
            Family::Tcgen05 => &[ModelKind::Ptx],
        }
    }
}

impl fmt::Display for Family {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A family name that is not one of [`Family::ALL`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown program family `{0}`; known: ptx, sync, tileir, tcgen05, assume, fenced, proxy")]
pub struct UnknownFamily(pub String);

impl FromStr for Family {
    type Err = UnknownFamily;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Family::ALL.into_iter().find(|f| f.name() == s).ok_or_else(|| UnknownFamily(s.to_string()))
    }
}

/// The program of `family` for `seed`: the same seed always gives the same program, named
/// `random-ptx-<seed>`, `random-sync-<seed>`, `random-tile-<seed>` or `mp-variant-<seed>`.
pub fn random_program(family: Family, seed: u64) -> Program {
    seeded(seed, |u| from_unstructured(family, u))
}

/// A program of `family` built from the choices in `u`. Any bytes give a valid program; the
/// program's name says its family (`random-ptx`, `random-sync`, `random-tile`, `mp-variant`)
/// without a seed.
pub fn from_unstructured(family: Family, u: &mut Unstructured<'_>) -> arbitrary::Result<Program> {
    match family {
        Family::Ptx => ptx::program(u),
        Family::Sync => sync::program(u),
        Family::TileIr => tileir::program(u),
        Family::Tcgen05 => tcgen05::program(u),
        Family::Assume => assume::program(u),
        Family::Fenced => fenced::program(u),
        Family::Proxy => proxy::program(u),
    }
}

/// Runs `generate` on the bytes of `seed` and appends the seed to the program's name.
fn seeded(seed: u64, generate: impl FnOnce(&mut Unstructured<'_>) -> arbitrary::Result<Program>) -> Program {
    let bytes = seed_bytes(seed, SEED_BYTES);
    let mut program = match generate(&mut Unstructured::new(&bytes)) {
        Ok(p) => p,
        // Generators fail only on an empty choice list, and none makes one.
        Err(e) => panic!("[tcfuzz internal bug] the program generator failed on seed {seed}: {e}"),
    };
    program.name = format!("{}-{seed}", program.name);
    program
}

/// `len` bytes of the splitmix64 stream from `seed` (each 64-bit output little-endian): the same
/// generator as the checker's seeded property tests.
pub fn seed_bytes(seed: u64, len: usize) -> Vec<u8> {
    let mut state = seed;
    let mut out = Vec::with_capacity(len + 8);
    while out.len() < len {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        out.extend_from_slice(&(z ^ (z >> 31)).to_le_bytes());
    }
    out.truncate(len);
    out
}

/// A choice with probability `percent`/100.
fn chance(u: &mut Unstructured<'_>, percent: u8) -> arbitrary::Result<bool> {
    Ok(u.int_in_range(0..=99u8)? < percent)
}

/// One of `options`, each with its weight; options of weight 0 are never chosen. With no bytes
/// left, the first option of non-zero weight.
fn weighted<T: Copy>(u: &mut Unstructured<'_>, options: &[(u32, T)]) -> arbitrary::Result<T> {
    let total: u32 = options.iter().map(|(w, _)| w).sum();
    if total == 0 {
        return Err(arbitrary::Error::EmptyChoose);
    }
    let mut pick = u.int_in_range(0..=total - 1)?;
    for &(w, option) in options {
        if pick < w {
            return Ok(option);
        }
        pick -= w;
    }
    Err(arbitrary::Error::EmptyChoose)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seed_bytes_follow_splitmix64() {
        // splitmix64 from seed 0: the first output is 0xE220A8397B1DCDAF.
        let bytes = seed_bytes(0, 9);
        assert_eq!(bytes[..8], 0xE220_A839_7B1D_CDAFu64.to_le_bytes());
        assert_eq!(bytes.len(), 9);
    }

    #[test]
    fn family_names_round_trip() {
        for f in Family::ALL {
            assert_eq!(f.name().parse::<Family>(), Ok(f));
        }
        assert!("tile".parse::<Family>().is_err());
    }

    #[test]
    fn weighted_skips_zero_weights() {
        let mut u = Unstructured::new(&[]);
        assert_eq!(weighted(&mut u, &[(0, 'a'), (3, 'b'), (1, 'c')]), Ok('b'));
        let mut u = Unstructured::new(&[3]);
        assert_eq!(weighted(&mut u, &[(0, 'a'), (3, 'b'), (1, 'c')]), Ok('c'));
    }
}
