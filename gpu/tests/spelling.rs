//! The PTX each instruction family becomes, pinned line by line, and the programs emission refuses
//! with the exact reason. (Whether `ptxas` accepts the kernels is `assemble.rs`'s.)

use tcfuzz_gpu::{EmitError, Target, emit_ptx};

fn kernel(src: &str) -> String {
    let p = tcfuzz_litmus::parse(src).expect("test program parses");
    emit_ptx(&p, Target::for_program(&p)).expect("emits").ptx
}

fn refusal(src: &str) -> String {
    let p = tcfuzz_litmus::parse(src).expect("test program parses");
    match emit_ptx(&p, Target::for_program(&p)) {
        Ok(_) => panic!("expected emission to refuse"),
        Err(EmitError::Unsupported { message, .. }) => message,
    }
}

fn has(ptx: &str, line: &str) {
    assert!(ptx.lines().any(|l| l.trim() == line), "missing `{line}` in:\n{ptx}");
}

const TWO_CTAS: &str = "P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;";

#[test]
fn generic_loads_stores_and_atomics_keep_their_semantics_and_scopes() {
    let ptx = kernel(&format!(
        "PTX t\n{{ x = 0; y = 0; }}\n {TWO_CTAS}\n st.release.gpu x, 1 | ld.acquire.cluster r0, x ;\n st.weak y, 2 | ld.volatile r1, y ;\n atom.acq_rel.sys.cas r2, y, 0, 1 | atom.relaxed.cta.add r3, x, 5 ;\n red.release.gpu.min x, -1 | atom.exch.b64 r4, y, 3 ;\nexists (true)\n"
    ));
    has(&ptx, "@%lane0 st.release.gpu.global.b32 [%g0], %w1;");
    has(&ptx, "@%lane0 ld.acquire.cluster.global.b32 %w0, [%g0];");
    has(&ptx, "@%lane0 st.weak.global.b64 [%g1], %d1;");
    has(&ptx, "@%lane0 ld.volatile.global.b64 %d0, [%g1];");
    has(&ptx, "@%lane0 atom.acq_rel.sys.global.cas.b64 %d0, [%g1], %d1, %d2;");
    has(&ptx, "@%lane0 atom.relaxed.cta.global.add.u32 %w0, [%g0], %w1;");
    has(&ptx, "@%lane0 red.release.gpu.global.min.s32 [%g0], %w1;");
    // `.cluster` needs PTX ISA 7.8; sm_90a needs 8.0.
    assert!(ptx.contains(".version 8.0\n.target sm_90a\n"), "{ptx}");
}

#[test]
fn loaded_values_reach_every_lane_of_the_warp() {
    let ptx = kernel(&format!("PTX t\n{{ x = 0; }}\n {TWO_CTAS}\n st.relaxed.gpu x, 1 | ld.relaxed.gpu r0, x ;\nexists (true)\n"));
    has(&ptx, "shfl.sync.idx.b32 %w6, %w6, 0, 0x1f, 0xffffffff;");
    has(&ptx, "cvt.s64.s32 %v0, %w0;");
}

#[test]
fn fences_and_proxy_fences() {
    let ptx = kernel(
        "PTX t\n{ x = 0; }\n P0@cta 0,gpu 0 ;\n fence.sc.cluster ;\n fence.acq_rel.gpu ;\n membar.gl ;\n fence.proxy.async.shared::cta ;\n fence.proxy.alias ;\nexists (true)\n",
    );
    for l in ["fence.sc.cluster;", "fence.acq_rel.gpu;", "membar.gl;", "fence.proxy.async.shared::cta;", "fence.proxy.alias;"] {
        has(&ptx, l);
    }
}

/// Never `.aligned`: each litmus thread's barrier is an instruction of its own branch, and an
/// aligned barrier executed at different instructions is undefined (synccheck flagged it).
#[test]
fn cta_barriers_count_the_warps_that_meet_them_and_are_not_aligned() {
    // Symmetric barriers: the litmus threads of the CTA executing the same operands, a warp each.
    let ptx = kernel(
        "PTX t\n{ x = 0; }\n P0@cta 0,gpu 0 | P1@cta 0,gpu 0 | P2@cta 0,gpu 0 ;\n bar.sync 1 | bar.sync 1 | st.relaxed.gpu x, 1 ;\nexists (true)\n",
    );
    has(&ptx, "barrier.sync 1, 64;");
    // Object barriers: a count that is a multiple of 32 counts warps already.
    let ptx = kernel("PTX t\n{ x = 0; }\n P0@cta 0,gpu 0 | P1@cta 0,gpu 0 ;\n bar.arrive 2, 64 | bar.sync 2, 64 ;\nexists (true)\n");
    has(&ptx, "barrier.arrive 2, 64;");
    has(&ptx, "barrier.sync 2, 64;");
    let ptx = kernel(
        "PTX t\n{ x = 0; }\n P0@cta 0,gpu 0 | P1@cta 0,gpu 0 ;\n barrier.cta.sync.aligned 3 | barrier.cta.sync.aligned 3 ;\nexists (true)\n",
    );
    has(&ptx, "barrier.sync 3, 64;");
    assert!(!ptx.contains("barrier.sync.aligned"), "{ptx}");
}

#[test]
fn cluster_barriers_and_cluster_shared_memory() {
    let ptx = kernel(
        "PTX t\n{ s @ shared cta 0 gpu 0 = 0; }\n P0@cta 0,cluster 0,gpu 0 | P1@cta 1,cluster 0,gpu 0 ;\n barrier.cluster.arrive.release.aligned | st.relaxed.cluster.shared::cluster [s], 1 ;\n barrier.cluster.wait.acquire.aligned | barrier.cluster.arrive.release.aligned ;\n ld.relaxed.cluster.shared::cta r0, [s] | barrier.cluster.wait.acquire.aligned ;\nexists (true)\n",
    );
    has(&ptx, ".reqnctapercluster 2, 1, 1");
    has(&ptx, "mapa.shared::cluster.u32 %w5, %w5, 0;");
    has(&ptx, "@%lane0 st.relaxed.cluster.shared::cluster.b32 [%w5], %w1;");
    has(&ptx, "@%lane0 ld.relaxed.cluster.shared::cta.b32 %w0, [sh0];");
    has(&ptx, "barrier.cluster.arrive.release.aligned;");
    has(&ptx, "barrier.cluster.wait.acquire.aligned;");
}

/// A kernel with cluster barriers is a cluster kernel even where a cluster has one CTA: in a
/// launch without clusters ptxas's code makes `barrier.cluster.arrive` a no-op and
/// `barrier.cluster.wait` a CTA barrier 0 (synccheck reported it on an H200: "Divergent
/// thread(s) in block").
#[test]
fn a_kernel_with_cluster_barriers_is_a_cluster_kernel_even_of_one_cta() {
    let one_cta = kernel(
        "PTX t\n{ x = 0; }\n P0@cta 0,cluster 0,gpu 0 | P1@cta 0,cluster 0,gpu 0 ;\n barrier.cluster.arrive | barrier.cluster.arrive ;\n barrier.cluster.wait | barrier.cluster.wait ;\n st.weak x, 1 | ld.weak r0, x ;\nexists (true)\n",
    );
    has(&one_cta, ".explicitcluster");
    has(&one_cta, ".reqnctapercluster 1, 1, 1");
    let plain = kernel(
        "PTX t\n{ x = 0; }\n P0@cta 0,cluster 0,gpu 0 | P1@cta 0,cluster 0,gpu 0 ;\n st.weak x, 1 | ld.weak r0, x ;\nexists (true)\n",
    );
    assert!(!plain.contains(".explicitcluster") && !plain.contains(".reqnctapercluster"), "{plain}");
}

/// Programs that end with the cluster barrier not closed hung an H200 three ways. Program 483 of
/// `tcfuzz fuzz --seed 9`: P0's last arrive is never waited on, and it arrived again at the
/// harness's final barrier (undefined before a wait). Program 193 of `--seed 1`: P0 arrives, P1
/// never does, and P0 waited for that phase at its end. Program 1033 of `--seed 5`: P1 ends
/// with an arrive of a phase that completed, and P0, which had waited, arrived again at the end
/// and waited for a phase P1 never joined. At its end each thread waits out a pending arrive and
/// joins the open phase if it is behind (`emit/cluster.rs`).
#[test]
fn each_thread_leaves_the_cluster_barrier_closed_at_its_end() {
    fn end(ptx: &str, t: usize) -> Vec<&str> {
        let from = ptx.find(&format!("$T{t}_END:\n")).expect("thread end");
        let to = from + ptx[from..].find("    mul.wide.u32 %d1, %xinst").expect("record");
        ptx[from..to].lines().skip(1).map(str::trim).collect()
    }
    // 193: the phase P0 opened is joined by P1 at its end; P0 waits for it.
    let open = kernel(
        "PTX t
{ x = 0; y = 0; }
 P0@cta 0,cluster 0,gpu 0 | P1@cta 0,cluster 0,gpu 0 ;
 ld.acquire.cta r0, y | ld.acquire.cta r0, x ;
 barrier.cluster.arrive.relaxed | st.release.cta y, 2 ;
exists (true)
",
    );
    assert_eq!(end(&open, 0), ["barrier.cluster.wait;"]);
    assert_eq!(end(&open, 1), ["barrier.cluster.arrive;", "barrier.cluster.wait;"]);
    // 1033 (and 483): both arrived, only P1 waited; P0's phase is complete, it waits for it
    // and P1 does nothing more.
    let complete = kernel(
        "PTX t
{ x = 0; y = 0; }
 P0@cta 0,cluster 0,gpu 0 | P1@cta 0,cluster 0,gpu 0 ;
 ld.weak r0, x | ld.acquire.cta r0, x ;
 st.weak y, 1 | barrier.cluster.arrive.relaxed ;
 barrier.cluster.arrive.relaxed | barrier.cluster.wait.acquire ;
exists (true)
",
    );
    assert_eq!(end(&complete, 0), ["barrier.cluster.wait;"]);
    assert!(end(&complete, 1).is_empty());
    // Without a cluster barrier nothing is added.
    let none = kernel("PTX t\n{ x = 0; }\n P0@cta 0,gpu 0 ;\n st.weak x, 1 ;\nexists (true)\n");
    assert!(end(&none, 0).is_empty() && !none.contains("barrier.cluster"), "{none}");
}

#[test]
fn mbarriers_and_bulk_copies() {
    let ptx = kernel(
        "PTX t\n{ g = 42; s @ shared cta 0 gpu 0 = 0; bar @ mbarrier cta 0 gpu 0 count 1; }\n P0@warp 0,cta 0,gpu 0 | P1@warp 1,cta 0,gpu 0 ;\n mbarrier.arrive.expect_tx.release.cta.shared::cta.b64 st0, [bar], 4 | await mbarrier.try_wait.parity.acquire.cta.shared::cta.b64 p, [bar], 0 ;\n cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [s], [g], 4, [bar] | ld.weak.shared::cta.b32 r0, [s] ;\nexists (true)\n",
    );
    // Declared count: initialised in the prologue.
    has(&ptx, "@%lane0 mbarrier.init.shared::cta.b64 [sh1], 1;");
    // Bulk copies move multiples of 16 bytes: every transaction count is scaled by 16.
    has(&ptx, "@%lane0 mbarrier.arrive.expect_tx.release.cta.shared::cta.b64 %d0, [sh1], 64;");
    has(&ptx, "@%lane0 cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [sh0], [%g0], 64, [sh1];");
    has(&ptx, "@%lane0 mbarrier.try_wait.parity.acquire.cta.shared::cta.b64 %p0, [sh1], 0;");
    // The final state waits 200 µs of the global timer for copies nobody awaits, then orders the
    // dump's loads after the copies' async-proxy writes.
    has(&ptx, "mov.u64 %d3, %globaltimer;");
    has(&ptx, "setp.lt.u64 %p1, %d4, 200000;");
    has(&ptx, "fence.proxy.async.shared::cta;");
}

#[test]
fn loops_are_bounded_by_the_loop_cap() {
    let ptx = kernel(&format!(
        "PTX t\n{{ x = 0; }}\n {TWO_CTAS}\n LC00: | st.relaxed.gpu x, 1 ;\n ld.relaxed.gpu r0, x | ;\n beq r0, 0, LC00 | ;\nexists (true)\n"
    ));
    has(&ptx, "setp.gt.u32 %p1, %xloops, %xcap;");
    has(&ptx, "@%p1 mov.u32 %xstatus, 2;");
    has(&ptx, "@!%p1 bra.uni $T0_L_LC00;");
}

#[test]
fn tcgen05_with_real_operands() {
    let ptx = kernel(
        "PTX t\n{ d @ tmem cta 0 gpu 0 lanes 0-31 cols 0-31 = 7; a @ shared cta 0 gpu 0 = 1; b @ shared cta 0 gpu 0 = 2; done @ mbarrier cta 0 gpu 0 count 1; }\n P0@warp 0,cta 0,gpu 0 ;\n tcgen05.mma.cta_group::1.kind::f16 [d], [a], [b], 1, 0 ;\n tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [done] ;\n await mbarrier.try_wait.parity.relaxed.cluster.shared::cta.b64 p, [done], 0 ;\n tcgen05.fence::after_thread_sync ;\n tcgen05.ld.sync.aligned.32x32b.x2.b32 r0, [d] ;\n tcgen05.wait::ld.sync.aligned ;\nexists (true)\n",
    );
    assert!(ptx.contains(".version 8.6\n.target sm_100a\n"), "{ptx}");
    has(&ptx, "tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [tmem_slots+0], 32;");
    // idesc 1: f32 accumulator, N = 16, M = 64.
    has(&ptx, &format!("mov.u32 %w1, {};", (1 << 4) | ((16 >> 3) << 17) | ((64 >> 4) << 24)));
    has(&ptx, "@%lane0 tcgen05.mma.cta_group::1.kind::f16 [%w4], %d4, %d5, %w1, %p2;");
    has(&ptx, "@%lane0 tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [sh2];");
    has(&ptx, "tcgen05.ld.sync.aligned.32x32b.x2.b32 {%tm0, %tm1}, [%w4];");
    has(&ptx, "tcgen05.wait::ld.sync.aligned;");
    has(&ptx, "tcgen05.fence::after_thread_sync;");
    has(&ptx, "tcgen05.dealloc.cta_group::1.sync.aligned.b32 %w4, 32;");
}

#[test]
fn refusals_name_what_a_kernel_cannot_express() {
    assert_eq!(
        refusal("PTX t\n{ x = 0; }\n P0@cta 0,gpu 0 | P1@cta 0,gpu 1 ;\n st.relaxed.sys x, 1 | ld.relaxed.sys r0, x ;\nexists (true)\n"),
        "P1 runs on gpu 1: a kernel runs on one GPU"
    );
    assert_eq!(
        refusal("PTX t\n{ x = 0; t @ texture aliases x; }\n P0@cta 0,gpu 0 ;\n tld.weak r0, t ;\nexists (true)\n"),
        "`t` is a virtual alias: emission does not map two addresses to one location"
    );
    assert_eq!(
        refusal("PTX t\n{ x = 0; }\n P0@cta 0,gpu 0 | P1@cta 0,gpu 0 ;\n bar.cta.sync 0, 1, 2 | bar.cta.sync 0, 1, 2 ;\nexists (true)\n"),
        "Dat3M's quorum barrier `bar.cta.sync a, b, c` has no PTX equivalent"
    );
    assert_eq!(
        refusal("PTX t\n{ x = 0; }\n P0@cta 0,gpu 0 ;\n atom.inc.b64 r0, x, 3 ;\nexists (true)\n"),
        "`atom.inc`/`atom.dec` exist for 32-bit locations only (PTX ISA §9.7.13.5)"
    );
    // The harness closes the cluster barrier from arrive counts known before the run.
    assert_eq!(
        refusal("PTX t\n{ x = 0; }\n P0@cta 0,gpu 0 ;\n barrier.cluster.arrive ;\n barrier.cluster.arrive ;\nexists (true)\n"),
        "P0 arrives at the cluster barrier twice without a wait"
    );
    assert_eq!(
        refusal(
            "PTX t\n{ x = 0; }\n P0@cta 0,gpu 0 ;\n barrier.cluster.arrive ;\n barrier.cluster.wait ;\n barrier.cluster.wait ;\nexists (true)\n"
        ),
        "P0 waits at the cluster barrier with no arrive since its last wait"
    );
    assert_eq!(
        refusal(
            "PTX t\n{ x = 0; }\n P0@cta 0,gpu 0 ;\n LC00: ;\n barrier.cluster.arrive ;\n barrier.cluster.wait ;\n ld.relaxed.gpu r0, x ;\n beq r0, 0, LC00 ;\nexists (true)\n"
        ),
        "P0 branches and uses the cluster barrier: how often it arrives is not known before the run"
    );
}
