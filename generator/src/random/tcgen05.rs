//! The `tcgen05` family: two warps of one CTA that use Tensor Memory and the tcgen05 ordering
//! mechanisms (PTX ISA §9.7.16.6), small enough for the exhaustive oracle.
//!
//! Warp 0 and warp 1 each own a TMEM region of their lane quarter (`d0`, lanes 0–31; `d1`, lanes
//! 32–63: `tcgen05.ld/st` of a warp reach only its quarter, §9.7.16.5 Table 46), and share a
//! region `t` (all lanes: `mma`, `cp` and `shift` are issued by one thread and are not
//! lane-restricted), a shared-memory tile `s`, a matrix operand `w` and an mbarrier `bar` with an
//! expected arrival count of 1. Each warp runs 2–4 instructions drawn from `tcgen05.ld`, `.st`,
//! `.mma` (into its own region or `t`, reading `t` or `s`), `.cp [t], [s]`, `.shift [t]`,
//! `.wait::ld/st`, `.fence::before/after_thread_sync`, `.commit [bar]`, `mbarrier.arrive.relaxed`
//! / a blocking `try_wait` on `bar`, a generic store to `s` and `fence.proxy.async` — so races of
//! every kind (tmem, proxy), correct patterns and hangs all come up. At most three operations per
//! program touch `bar` (the oracle permutes its writes). The condition is `exists (true)`.
//!
//! A quarter of the `mma`s take their accumulator flag (enable-input-d) from a register: a
//! relaxed load of a global flag `e` just before it, which the other warp sets to 1 somewhere
//! in its code — so whether the mma accumulates depends on another thread, and load buffering
//! through the register comes up.
//!
//! A quarter of the programs are a CTA pair instead (§9.7.16.5): warp 1 runs in CTA 1 of the same
//! cluster with its region `d1` there, `mma`/`cp`/`shift`/`commit` are `cta_group::2`, warp 1
//! arrives on and waits for CTA 1's mbarrier `bar1`, and half the commits are
//! `.multicast::cluster` to both CTAs — so the peer-CTA misuse and multicast arrives come up.

use arbitrary::Unstructured;
use std::fmt::Write;
use tcfuzz_litmus::Program;

use super::weighted;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Op {
    Ld,
    St,
    MmaOwn,
    MmaShared,
    Cp,
    Shift,
    WaitLd,
    WaitSt,
    FenceBefore,
    FenceAfter,
    Commit,
    Arrive,
    Await,
    GenericStore,
    ProxyFence,
}

const OPS: [(u32, Op); 15] = [
    (8, Op::Ld),
    (8, Op::St),
    (6, Op::MmaOwn),
    (5, Op::MmaShared),
    (5, Op::Cp),
    (3, Op::Shift),
    (6, Op::WaitLd),
    (6, Op::WaitSt),
    (7, Op::FenceBefore),
    (7, Op::FenceAfter),
    (5, Op::Commit),
    (6, Op::Arrive),
    (6, Op::Await),
    (4, Op::GenericStore),
    (4, Op::ProxyFence),
];

/// Most operations on `bar` in one program.
const MAX_BAR_OPS: usize = 3;

/// A program of the family from the choices in `u`.
pub fn program(u: &mut Unstructured<'_>) -> arbitrary::Result<Program> {
    // A quarter of the programs put warp 1 in CTA 1, the peer of CTA 0 in one cluster.
    let pair = super::chance(u, 25)?;
    let group = if pair { 2 } else { 1 };
    let mut bar_ops = 0;
    let mut threads: Vec<Vec<String>> = Vec::new();
    // Per warp, whether one of its mmas loads its flag from `e`.
    let mut flags = [false; 2];
    for warp in 0..2u32 {
        let own = format!("d{warp}");
        // In a CTA pair each warp waits on its own CTA's mbarrier.
        let bar = if pair && warp == 1 { "bar1" } else { "bar" };
        let len = u.int_in_range(2..=4usize)?;
        let mut body = Vec::new();
        let mut value = 10 * (warp as i64 + 1);
        for _ in 0..len {
            let mut op = weighted(u, &OPS)?;
            if matches!(op, Op::Commit | Op::Arrive | Op::Await) {
                if bar_ops == MAX_BAR_OPS {
                    op = Op::FenceAfter;
                } else {
                    bar_ops += 1;
                }
            }
            value += 1;
            let acc = if matches!(op, Op::MmaOwn | Op::MmaShared) && super::chance(u, 25)? {
                let flag = format!("f{}", body.len());
                body.push(format!("ld.relaxed.gpu {flag}, e"));
                flags[warp as usize] = true;
                flag
            } else {
                u.int_in_range(0..=1u8)?.to_string()
            };
            body.push(match op {
                Op::Ld => format!("tcgen05.ld.sync.aligned.32x32b.x1.b32 r{}, [{own}]", body.len()),
                Op::St => format!("tcgen05.st.sync.aligned.32x32b.x1.b32 [{own}], {value}"),
                Op::MmaOwn => format!("tcgen05.mma.cta_group::{group}.kind::f16 [{own}], [t], [w], 1, {acc}"),
                Op::MmaShared => format!("tcgen05.mma.cta_group::{group}.kind::f16 [t], [s], [w], 1, {acc}"),
                Op::Cp => format!("tcgen05.cp.cta_group::{group}.128x256b [t], [s]"),
                Op::Shift => format!("tcgen05.shift.cta_group::{group}.down [t]"),
                Op::WaitLd => "tcgen05.wait::ld.sync.aligned".to_string(),
                Op::WaitSt => "tcgen05.wait::st.sync.aligned".to_string(),
                Op::FenceBefore => "tcgen05.fence::before_thread_sync".to_string(),
                Op::FenceAfter => "tcgen05.fence::after_thread_sync".to_string(),
                // In a CTA pair, half the commits signal both CTAs' mbarriers.
                Op::Commit if pair && super::chance(u, 50)? => {
                    format!("tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64 [{bar}], 3")
                }
                Op::Commit => format!("tcgen05.commit.cta_group::{group}.mbarrier::arrive::one.shared::cluster.b64 [{bar}]"),
                Op::Arrive => format!("mbarrier.arrive.relaxed.cluster.shared::cta.b64 st, [{bar}]"),
                Op::Await => format!("await mbarrier.try_wait.parity.relaxed.cluster.shared::cta.b64 p, [{bar}], 0"),
                Op::GenericStore => format!("st.shared::cta.b32 [s], {value}"),
                Op::ProxyFence => "fence.proxy.async.shared::cta".to_string(),
            });
        }
        threads.push(body);
    }
    // The other warp sets each flag that is loaded.
    for warp in 0..2 {
        if flags[warp] {
            let other = &mut threads[1 - warp];
            let at = u.int_in_range(0..=other.len())?;
            other.insert(at, "st.relaxed.gpu e, 1".to_string());
        }
    }
    let cta1 = if pair { 1 } else { 0 };
    let mut text = format!(
        "PTX random-tcgen05\n{{\n  d0 @ tmem cta 0 gpu 0 lanes 0-31 cols 0-31 = 1;\n  d1 @ tmem cta {cta1} gpu 0 lanes 32-63 cols 0-31 = 2;\n  t @ tmem cta 0 gpu 0 lanes 0-127 cols 32-63 = 3;\n  s @ shared cta 0 gpu 0 = 4;\n  w @ shared cta 0 gpu 0 = 5;\n  bar @ mbarrier cta 0 gpu 0 count 1;\n"
    );
    if pair {
        text.push_str("  bar1 @ mbarrier cta 1 gpu 0 count 1;\n");
    }
    if flags.contains(&true) {
        text.push_str("  e = 0;\n");
    }
    text.push_str("}\n");
    for (warp, body) in threads.iter().enumerate() {
        let placement = if pair { format!("warp {warp},cta {warp},cluster 0,gpu 0") } else { format!("warp {warp},cta 0,gpu 0") };
        let _ = writeln!(text, "P{warp}@{placement} {{");
        for line in body {
            let _ = writeln!(text, "  {line};");
        }
        text.push_str("}\n");
    }
    text.push_str("exists (true)\n");
    match tcfuzz_litmus::parse(&text) {
        Ok(p) => Ok(p),
        Err(e) => panic!("[tcfuzz internal bug] the tcgen05 generator wrote an invalid program:\n{}\n{text}", e.render("random-tcgen05")),
    }
}
