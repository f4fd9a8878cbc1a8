//! The `sync` family: PTX programs that synchronize through barriers and an mbarrier.
//!
//! 2–3 threads on CTA 0 (one program in five spreads them over CTAs 0 and 1 of cluster 0), of 2–4
//! instructions each (2–3 with three threads), over `x`, `y`, a shared location `s` and an
//! mbarrier `bar` of CTA 0 with an expected arrival count of 1 or 2. Each program mostly keeps to
//! one theme of synchronization, so that the oracle stays small:
//! - mbarriers: `mbarrier.arrive` (release or relaxed, at CTA or cluster scope), a blocking
//!   `await mbarrier.try_wait.parity` (acquire or relaxed, at CTA or cluster scope: mixed scopes
//!   on one mbarrier are what its atomicity must survive), `mbarrier.test_wait.parity`,
//!   `mbarrier.expect_tx`, and `cp.async.bulk` completing on `bar` (a thread of CTA 1 reaches
//!   `bar` through `.shared::cluster`, which has no wait: it arrives instead);
//! - CTA barriers with a thread count: `bar.cta.sync 1, N` and `bar.cta.arrive 1, N`;
//! - Dat3M's quorum barriers: `bar.cta.sync 2, 2, Q`;
//! - cluster barriers: `barrier.cluster.arrive` (release or relaxed) and
//!   `barrier.cluster.wait.acquire`;
//! - or any of them.
//!
//! Within a theme, half of the instructions are plain loads and stores (weak, or relaxed, acquire
//! or release at CTA scope), and a program has at most four synchronization operations in all
//! (the oracle permutes their writes). The condition is `exists (true)`.

use arbitrary::Unstructured;
use tcfuzz_litmus::{
    Arch, BarForm, Barrier, CpAsyncBulk, Instr, Location, LocationKind, Mbarrier, MbarrierArrive, MbarrierWait, Operand, Program, Prop,
    Scope, Sem, Span, StateSpace, Stmt, Value,
};

use super::build::{bracketed, exists, global, imm, instr, ld, program as build_program, ptx_placement, st, thread};
use super::chance;

/// Most synchronization operations in one program.
const MAX_SYNC_OPS: usize = 4;

/// The instructions of the family, each owning a slice of `0..=99` (its upper end here): the
/// slices give their frequencies.
const OPS: [(u8, Op); 12] = [
    (19, Op::Load),
    (39, Op::Store),
    (54, Op::MbarrierArrive),
    (64, Op::MbarrierAwait),
    (69, Op::MbarrierTestWait),
    (74, Op::ExpectTx),
    (78, Op::BulkCopy),
    (84, Op::BarSync),
    (87, Op::BarArrive),
    (92, Op::QuorumSync),
    (96, Op::ClusterArrive),
    (99, Op::ClusterWait),
];

/// The slice of `OPS` where plain loads and stores end.
const PLAIN_END: u8 = 39;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Op {
    Load,
    Store,
    MbarrierArrive,
    MbarrierAwait,
    MbarrierTestWait,
    ExpectTx,
    BulkCopy,
    BarSync,
    BarArrive,
    QuorumSync,
    ClusterArrive,
    ClusterWait,
}

/// A program's kind of synchronization: the slice of `OPS` its synchronization operations come
/// from.
const THEMES: [(u8, u8); 5] = [
    (40, 78), // mbarriers and bulk copies
    (79, 87), // counted CTA barriers and bar.arrive
    (88, 92), // Dat3M quorum barriers
    (93, 99), // cluster barriers
    (0, 99),  // anything
];

/// A program of the family (named `random-sync`).
pub fn program(u: &mut Unstructured<'_>) -> arbitrary::Result<Program> {
    let nthreads = u.int_in_range(2..=3usize)?;
    let count = u.int_in_range(1..=2u32)?;
    let two_ctas = chance(u, 20)?;
    let quorum = u.int_in_range(1..=nthreads as i64)?;
    let bar_count = u.int_in_range(1..=nthreads as i64)?;
    let (lo, hi) = *u.choose(&THEMES)?;
    let themed = (lo, hi) != (0, 99);
    let mut sync_ops = 0;
    let mut threads = Vec::with_capacity(nthreads);
    for t in 0..nthreads {
        let cta = if two_ctas { (t % 2) as u32 } else { 0 };
        let n = u.int_in_range(2..=if nthreads == 2 { 4 } else { 3 })?;
        let mut body: Vec<Stmt> = Vec::with_capacity(n);
        let mut nregs = 0;
        for _ in 0..n {
            let x = *u.choose(&["x", "y"])?;
            let mut pick = if themed && chance(u, 50)? { u.int_in_range(0..=PLAIN_END)? } else { u.int_in_range(lo..=hi)? };
            if pick > PLAIN_END {
                if sync_ops == MAX_SYNC_OPS {
                    pick = u.int_in_range(0..=PLAIN_END)?;
                } else {
                    sync_ops += 1;
                }
            }
            let op = OPS.iter().find(|(end, _)| pick <= *end).map_or(Op::ClusterWait, |(_, op)| *op);
            // `bar` is CTA 0's: CTA 1 reaches it through `.shared::cluster`, where there is no
            // wait (the validator's `check_mbarrier_reach`), so its waits become arrivals.
            let remote = cta != 0;
            let op = if remote && matches!(op, Op::MbarrierAwait | Op::MbarrierTestWait) { Op::MbarrierArrive } else { op };
            let bar_space = Some(if remote { StateSpace::SharedCluster } else { StateSpace::SharedCta });
            let mut new_reg = || {
                nregs += 1;
                format!("r{}", nregs - 1)
            };
            let stmt = match op {
                Op::Load => {
                    let (sem, scope) =
                        *u.choose(&[(Sem::Weak, None), (Sem::Relaxed, Some(Scope::Cta)), (Sem::Acquire, Some(Scope::Cta))])?;
                    ld(Some(sem), scope, &new_reg(), x)
                }
                Op::Store => {
                    let (sem, scope) =
                        *u.choose(&[(Sem::Weak, None), (Sem::Relaxed, Some(Scope::Cta)), (Sem::Release, Some(Scope::Cta))])?;
                    st(Some(sem), scope, x, imm(u.int_in_range(1..=2)?))
                }
                Op::MbarrierArrive => instr(Instr::Mbarrier(Mbarrier::Arrive(MbarrierArrive {
                    expect_tx: false,
                    sem: Some(*u.choose(&[Sem::Release, Sem::Relaxed])?),
                    scope: Some(*u.choose(&[Scope::Cta, Scope::Cluster])?),
                    space: bar_space,
                    // A remote arrive returns no state (the sink `_`).
                    state: if remote { "_".to_string() } else { format!("s{t}") },
                    addr: bracketed("bar"),
                    count: None,
                }))),
                Op::MbarrierAwait => {
                    let sem = *u.choose(&[Sem::Acquire, Sem::Relaxed])?;
                    let scope = *u.choose(&[Scope::Cta, Scope::Cluster])?;
                    wait(true, sem, scope, format!("p{t}"), imm(u.int_in_range(0..=1)?))
                }
                Op::MbarrierTestWait => wait(false, Sem::Acquire, Scope::Cta, new_reg(), imm(0)),
                Op::ExpectTx => instr(Instr::Mbarrier(Mbarrier::ExpectTx {
                    sem: Some(Sem::Relaxed),
                    scope: Some(Scope::Cta),
                    space: bar_space,
                    addr: bracketed("bar"),
                    tx: imm(4),
                })),
                Op::BulkCopy => instr(Instr::CpAsyncBulk(CpAsyncBulk {
                    dst_space: StateSpace::SharedCluster,
                    dst: bracketed("s"),
                    src: bracketed(x),
                    size: imm(4),
                    mbar: bracketed("bar"),
                })),
                Op::BarSync => cta_barrier(false, vec![imm(1), imm(bar_count)]),
                Op::BarArrive => cta_barrier(true, vec![imm(1), imm(bar_count)]),
                Op::QuorumSync => cta_barrier(false, vec![imm(2), imm(2), imm(quorum)]),
                Op::ClusterArrive => {
                    let sem = *u.choose(&[Sem::Release, Sem::Relaxed])?;
                    instr(Instr::Barrier(Barrier::ClusterArrive { sem: Some(sem), aligned: false }))
                }
                Op::ClusterWait => instr(Instr::Barrier(Barrier::ClusterWait { acquire: true, aligned: false })),
            };
            body.push(stmt);
        }
        threads.push(thread(t, ptx_placement(cta, Some(0)), body));
    }
    let locations = vec![
        global("x", Value::Int(0)),
        global("y", Value::Int(0)),
        Location { name: "s".into(), kind: LocationKind::Shared { cta: 0, gpu: 0 }, init: Some(Value::Int(0)), span: Span::default() },
        Location {
            name: "bar".into(),
            kind: LocationKind::Mbarrier { cta: 0, gpu: 0, count: Some(count) },
            init: None,
            span: Span::default(),
        },
    ];
    Ok(build_program(Arch::Ptx, "random-sync", locations, threads, exists(Prop::True)))
}

/// The program of `seed` (named `random-sync-<seed>`): `random_program(Family::Sync, seed)`.
pub fn random_sync_program(seed: u64) -> Program {
    super::random_program(super::Family::Sync, seed)
}

/// `{await} mbarrier.try_wait.parity.SEM.SCOPE.shared::cta.b64 dst, [bar], phase` (blocking), or
/// `mbarrier.test_wait.parity...` (not blocking).
fn wait(blocking: bool, sem: Sem, scope: Scope, dst: String, phase: Operand) -> Stmt {
    instr(Instr::Mbarrier(Mbarrier::Wait(MbarrierWait {
        blocking,
        test: !blocking,
        parity: true,
        sem: Some(sem),
        scope: Some(scope),
        space: Some(StateSpace::SharedCta),
        dst,
        addr: bracketed("bar"),
        phase,
    })))
}

/// `bar.cta.sync OPERANDS` or `bar.cta.arrive OPERANDS`.
fn cta_barrier(arrive: bool, operands: Vec<Operand>) -> Stmt {
    let form = BarForm { long: false, cta: true, aligned: false };
    instr(Instr::Barrier(if arrive { Barrier::Arrive { form, operands } } else { Barrier::Sync { form, operands } }))
}
