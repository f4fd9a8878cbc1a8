//! Dedup granularity: pairs of programs whose discrepancies must collapse into one signature, and
//! pairs that must not.

use tcfuzz_checker::CompiledProgram;
use tcfuzz_checker::{ModelKind, Observation, Options, check};
use tcfuzz_generator::generate::Origin;
use tcfuzz_generator::pattern::{Expect, Pattern};
use tcfuzz_litmus::{Program, parse};

use super::explorer_oracle::{Comparison, Settings, compare_with};
use super::{differential, pattern, reference};

fn program(src: &str) -> Program {
    parse(src).unwrap_or_else(|d| panic!("{}\n{src}", d.render("test")))
}

fn opts() -> Options {
    Options { witnesses: false, ..Options::default() }
}

/// The signature of the explorer-vs-oracle disagreement the planted oracle (no load buffering)
/// causes on `src` under PTX.
fn planted_oracle_signature(src: &str) -> Option<String> {
    let p = program(src);
    let compiled = CompiledProgram::compile(&p).unwrap();
    let settings = Settings { planted_oracle_without_porf_cycles: true, ..Settings::default() };
    match compare_with(&compiled, ModelKind::Ptx, &settings) {
        Comparison::Disagree(d) => Some(crate::executor::explorer_oracle_signature(&p, ModelKind::Ptx, &d)),
        _ => None,
    }
}

const LB: &str = "PTX LB\n{ x = 0; y = 0; }\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n ld.relaxed.gpu r0, x | ld.relaxed.gpu r0, y ;\n st.relaxed.gpu y, 1 | st.relaxed.gpu x, 1 ;\nexists (true)\n";
/// LB with other values, another scope and a third thread that has nothing to do with it.
const LB_WIDER: &str = "PTX LB2\n{ x = 0; y = 0; z = 0; }\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 | P2@cta 2,gpu 0 ;\n ld.relaxed.sys r0, x | ld.relaxed.sys r5, y | st.relaxed.gpu z, 3 ;\n st.relaxed.sys y, 2 | st.relaxed.sys x, 7 | ;\nexists (true)\n";
/// LB through atomics: the differing results are the atomics'.
const LB_ATOM: &str = "PTX LB3\n{ x = 0; y = 0; }\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n atom.relaxed.gpu.add r0, x, 0 | atom.relaxed.gpu.add r0, y, 0 ;\n st.relaxed.gpu y, 1 | st.relaxed.gpu x, 1 ;\nexists (true)\n";

#[test]
fn one_explorer_oracle_fault_is_one_signature_and_another_is_another() {
    let lb = planted_oracle_signature(LB).expect("the planted oracle misses LB's cycle");
    assert_eq!(lb, "ptx: explorer-only state [ld]");
    assert_eq!(planted_oracle_signature(LB_WIDER).as_deref(), Some(lb.as_str()));
    let atom = planted_oracle_signature(LB_ATOM).expect("and LB through atomics");
    assert_ne!(atom, lb);
    assert_eq!(atom, "ptx: explorer-only state [atom]");
    // No cycle, no disagreement.
    let mp = "PTX MP\n{ x = 0; y = 0; }\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n st.relaxed.gpu x, 1 | ld.relaxed.gpu r0, y ;\n st.relaxed.gpu y, 1 | ld.relaxed.gpu r1, x ;\nexists (true)\n";
    assert_eq!(planted_oracle_signature(mp), None);
}

const TILE_MP: &str = "TileIR MP\n{ x = [0, 0]; f = [0]; }\nP0@tlb 0, dev 0 {\n  <t1> = st.relaxed.device x, [1, 2];\n  st.release.device f, [1], <t1>;\n}\nP1@tlb 1, dev 0 {\n  rf, <t2> = ld.acquire.device f;\n  rx = ld.relaxed.device x, <t2>;\n}\nexists (P1:rf == [1] /\\ P1:rx != [1, 2])\n";
/// Two payloads joined: the same fault.
const TILE_MP2: &str = "TileIR MP2\n{ x = [0]; y = [0]; f = [0]; }\nP0@tlb 0, dev 0 {\n  <t1> = st.relaxed.device x, [5];\n  <t2> = st.relaxed.device y, [6];\n  <t3> = join_tokens <t1>, <t2>;\n  st.release.device f, [1], <t3>;\n}\nP1@tlb 1, dev 0 {\n  rf, <t4> = ld.acquire.device f;\n  rx = ld.relaxed.device x, <t4>;\n  ry = ld.relaxed.device y, <t4>;\n}\nexists (P1:rf == [1] /\\ (P1:rx != [5] \\/ P1:ry != [6]))\n";
/// The consumer reads the payload with an atomic: the violating state differs in an atomic's
/// result — another fact, another signature.
const TILE_MP_ATOM: &str = "TileIR MP3\n{ x = [0]; f = [0]; }\nP0@tlb 0, dev 0 {\n  <t1> = st.relaxed.device x, [5];\n  st.release.device f, [1], <t1>;\n}\nP1@tlb 1, dev 0 {\n  rf, <t2> = ld.acquire.device f;\n  rx, <t3> = atom.relaxed.device.add x, [0], <t2>;\n}\nexists (true)\n";

fn planted_lowering_signature(src: &str) -> Option<String> {
    differential::tileir_weaker(&program(src), &opts(), true).expect("checks").map(|f| f.signature)
}

#[test]
fn one_lowering_fault_is_one_signature_and_another_fact_is_another() {
    let one = planted_lowering_signature(TILE_MP).expect("dropping the release breaks MP");
    assert_eq!(one, "state [tile.ld]");
    assert_eq!(planted_lowering_signature(TILE_MP2).as_deref(), Some(one.as_str()));
    let atom = planted_lowering_signature(TILE_MP_ATOM).expect("and the atomic consumer");
    assert_eq!(atom, "state [tile.atom, tile.ld]");
    // The project's own lowering keeps the release: no violation.
    assert!(differential::tileir_weaker(&program(TILE_MP), &opts(), false).unwrap().is_none());
}

fn pattern_signature(src: &str, pattern: Pattern, never: bool) -> Option<String> {
    let p = program(src);
    let v = check(&p, ModelKind::Ptx, &opts()).unwrap();
    pattern::judge(&Origin::Pattern { pattern, expect: Expect { never } }, ModelKind::Ptx, &v).map(|f| f.signature)
}

/// An mbarrier handoff without the consumer's acquire: a data race.
const HANDOFF_RELAXED: &str = "PTX H\n{ s0 @ shared cta 0 gpu 0 = 0; bar @ mbarrier cta 0 gpu 0 count 1; }\nP0@warp 0,cta 0,gpu 0 {\n  st.weak.shared::cta.b32 [s0], 1;\n  mbarrier.arrive.release.cta.shared::cta.b64 st0, [bar];\n}\nP1@warp 1,cta 0,gpu 0 {\n  await mbarrier.try_wait.parity.relaxed.cta.shared::cta.b64 p, [bar], 0;\n  ld.weak.shared::cta.b32 r0, [s0];\n}\nexists (P1:r0 != 1)\n";
/// Two producers, other values, the same missing acquire.
const HANDOFF_RELAXED2: &str = "PTX H2\n{ s0 @ shared cta 0 gpu 0 = 0; s1 @ shared cta 0 gpu 0 = 0; bar @ mbarrier cta 0 gpu 0 count 2; }\nP0@warp 0,cta 0,gpu 0 {\n  st.weak.shared::cta.b32 [s0], 4;\n  mbarrier.arrive.release.cta.shared::cta.b64 st0, [bar];\n}\nP1@warp 1,cta 0,gpu 0 {\n  st.weak.shared::cta.b32 [s1], 5;\n  mbarrier.arrive.release.cta.shared::cta.b64 st0, [bar];\n}\nP2@warp 2,cta 0,gpu 0 {\n  await mbarrier.try_wait.parity.relaxed.cta.shared::cta.b64 p, [bar], 0;\n  ld.weak.shared::cta.b32 r0, [s0];\n  ld.weak.shared::cta.b32 r1, [s1];\n}\nexists (P2:r0 != 4 \\/ P2:r1 != 5)\n";
/// The arrive missing: a hang, not a race.
const HANDOFF_NO_ARRIVE: &str = "PTX H3\n{ s0 @ shared cta 0 gpu 0 = 0; bar @ mbarrier cta 0 gpu 0 count 1; }\nP0@warp 0,cta 0,gpu 0 {\n  st.weak.shared::cta.b32 [s0], 1;\n}\nP1@warp 1,cta 0,gpu 0 {\n  await mbarrier.try_wait.parity.acquire.cta.shared::cta.b64 p, [bar], 0;\n  ld.weak.shared::cta.b32 r0, [s0];\n}\nexists (P1:r0 != 1)\n";

#[test]
fn one_broken_pattern_is_one_signature_and_another_problem_is_another() {
    let a = pattern_signature(HANDOFF_RELAXED, Pattern::MbarrierHandoff, true).expect("racy");
    assert!(a.starts_with("mbarrier-handoff: ") && a.contains("race data (causality)"), "{a}");
    assert_eq!(pattern_signature(HANDOFF_RELAXED2, Pattern::MbarrierHandoff, true).as_deref(), Some(a.as_str()));
    let hang = pattern_signature(HANDOFF_NO_ARRIVE, Pattern::MbarrierHandoff, true).expect("hangs");
    assert_eq!(hang, "mbarrier-handoff: hang");
    // The same fault in another pattern is another discrepancy.
    assert_ne!(pattern_signature(HANDOFF_RELAXED, Pattern::TmaRing, true).as_deref(), Some(a.as_str()));
}

#[test]
fn sync_redundant_names_the_pattern_the_role_and_the_change() {
    use tcfuzz_generator::pattern::pattern_program;
    use tcfuzz_generator::random::seed_bytes;
    // Mutants of two different tma-ring programs with the same step weakened collapse.
    let mut sigs = std::collections::BTreeMap::new();
    for seed in 0..40 {
        let bytes = seed_bytes(seed, 4096);
        let pp = pattern_program(Pattern::TmaRing, &mut arbitrary::Unstructured::new(&bytes)).unwrap();
        for (k, step) in pp.steps().iter().enumerate() {
            let (_, mutation) = pp.mutant(k, step.weaker.is_some()).unwrap();
            // Pretend the checker accepted it: what would the signature be?
            let v = check(&pp.program, ModelKind::Ptx, &opts()).unwrap();
            let origin = Origin::Mutant { pattern: Pattern::TmaRing, expect: pp.expect, mutation: mutation.clone() };
            let f = pattern::judge(&origin, ModelKind::Ptx, &v).expect("a correct verdict makes a sync-redundant finding");
            assert!(!f.signature.contains("P0") && !f.signature.contains("P1"), "{}", f.signature);
            sigs.entry(f.signature).or_insert_with(Vec::new).push(seed);
        }
    }
    // Roles, not positions: a handful of signatures for 40 programs.
    assert!(sigs.len() <= 12, "{:?}", sigs.keys().collect::<Vec<_>>());
    assert!(sigs.contains_key("tma-ring: consumer-waits-full weakened (acquire→relaxed)"), "{:?}", sigs.keys().collect::<Vec<_>>());
    assert!(sigs.contains_key("tma-ring: producer-arms-full removed"), "{:?}", sigs.keys().collect::<Vec<_>>());
}

#[test]
fn reference_disagreements_split_by_observations_and_instructions() {
    let mp = program(
        "PTX MP\n{ x = 0; f = 0; }\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n st.weak x, 1 | ld.acquire.gpu r0, f ;\n st.release.gpu f, 1 | ld.weak r1, x ;\nexists (P1:r0 == 1 /\\ P1:r1 == 0)\n",
    );
    let mp_other_values = program(
        "PTX MP'\n{ x = 0; f = 0; }\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n st.weak x, 7 | ld.acquire.gpu r5, f ;\n st.release.gpu f, 9 | ld.weak r6, x ;\nexists (P1:r5 == 9 /\\ P1:r6 == 0)\n",
    );
    let a = reference::signature(&mp, Observation::Never, Observation::Sometimes);
    assert_eq!(a, "ptx Never, reference Sometimes [ld.acquire.gpu, ld.weak, st.release.gpu, st.weak]");
    assert_eq!(reference::signature(&mp_other_values, Observation::Never, Observation::Sometimes), a);
    assert_ne!(reference::signature(&mp, Observation::Never, Observation::Always), a);
}
