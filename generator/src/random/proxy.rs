//! The `proxy` family: a program of the [`super::ptx`] family with one to three of its generic
//! loads and stores routed through an alias of their location — the texture, surface or
//! constant proxy, or a second generic address (PTX ISA §8.6) — most with the proxy fence that
//! orders them with the thread's generic accesses beside them (§9.7.13.4): the coverage-guided
//! family's mixed-proxy edit ([`crate::mutate::proxy`]) made a random family, so that `tcfuzz
//! selftest` compares the explorer with the oracle on mixed-proxy programs too (the fuzzer found
//! a lost load-buffering execution through a surface alias that no other random family could
//! write).

use arbitrary::Unstructured;
use tcfuzz_litmus::Program;

/// A program of the family (named `random-proxy`).
pub fn program(u: &mut Unstructured<'_>) -> arbitrary::Result<Program> {
    let mut p = super::ptx::program(u)?;
    for _ in 0..u.int_in_range(1..=3u8)? {
        crate::mutate::proxy::route(u, &mut p)?;
    }
    p.name = "random-proxy".into();
    Ok(p)
}
