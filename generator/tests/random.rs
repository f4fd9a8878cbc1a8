//! Random programs (`src/random/`): every one is valid, prints to text that parses back to it, and
//! is a function of its seed; the families make the kinds of programs they document.
//!
//! `TCFUZZ_GEN_CASES=<n>` changes how many seeds per family the round-trip test tries.

use std::collections::{BTreeSet, HashSet};

use arbitrary::Unstructured;
use proptest::prelude::*;
use tcfuzz_checker::CompiledProgram;
use tcfuzz_generator::random::{Family, from_unstructured, random_program, seed_bytes, tileir};
use tcfuzz_litmus::{Arch, Instr, Program, StmtKind, TileOp, parse, print, validate};

fn cases(default: u64) -> u64 {
    std::env::var("TCFUZZ_GEN_CASES").ok().and_then(|s| s.parse().ok()).unwrap_or(default)
}

/// `p` is valid and `parse(print(p))` gives it back; the message names `what` and the text.
fn assert_round_trips(p: &Program, what: &str) {
    let text = print(p);
    if let Err(e) = validate(p) {
        panic!("{what}: the generator made an invalid program:\n{}\n{text}", e.render("generated"));
    }
    match parse(&text) {
        Ok(again) => assert!(again.same_as(p), "{what}: print then parse changed the program:\n{text}"),
        Err(e) => panic!("{what}: the printed program does not parse:\n{}\n{text}", e.render("printed")),
    }
}

#[test]
fn seeded_programs_round_trip() {
    let n = cases(3000);
    for family in Family::ALL {
        for seed in 0..n {
            let p = random_program(family, seed);
            assert_round_trips(&p, &format!("{family} seed {seed}"));
            assert!(p.name.ends_with(&format!("-{seed}")), "{family} seed {seed}: name {}", p.name);
        }
    }
}

#[test]
fn the_same_seed_gives_the_same_program() {
    for family in Family::ALL {
        let mut texts = HashSet::new();
        for seed in 0..300 {
            let (a, b) = (random_program(family, seed), random_program(family, seed));
            assert_eq!(a, b, "{family} seed {seed}");
            texts.insert(print(&a).replace(&format!("-{seed}\n"), "\n"));
        }
        // Different seeds give (mostly) different programs.
        assert!(texts.len() >= 250, "{family}: only {} distinct programs of 300", texts.len());
    }
}

/// FNV-1a over the printed programs of seeds 0..50: which program a seed names is part of the
/// interface (a campaign job is `(seed, index)`), so a change here must be deliberate. Update the
/// pins together with the generator and say so in the change.
#[test]
fn seeds_name_pinned_programs() {
    fn fnv1a(h: u64, bytes: &[u8]) -> u64 {
        bytes.iter().fold(h, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01B3))
    }
    let pinned: [(Family, u64); 7] = [
        (Family::Ptx, PINNED_PTX),
        (Family::Sync, PINNED_SYNC),
        (Family::TileIr, PINNED_TILEIR),
        (Family::Tcgen05, PINNED_TCGEN05),
        (Family::Assume, PINNED_ASSUME),
        (Family::Fenced, PINNED_FENCED),
        (Family::Proxy, PINNED_PROXY),
    ];
    let changed: Vec<String> = pinned
        .into_iter()
        .filter_map(|(family, expected)| {
            let hash = (0..50).fold(0xCBF2_9CE4_8422_2325, |h, seed| fnv1a(h, print(&random_program(family, seed)).as_bytes()));
            (hash != expected).then(|| format!("{family}: hash {hash:#018X}"))
        })
        .collect();
    assert!(changed.is_empty(), "the programs of seeds 0..50 changed: {changed:?}");
}

const PINNED_PTX: u64 = 0xF9B5_4436_A237_C305;
const PINNED_SYNC: u64 = 0x9FE3_3AFE_2EBF_A45E;
const PINNED_TILEIR: u64 = 0x9499_A3E9_E507_FDC8;
const PINNED_TCGEN05: u64 = 0x0B18_2D07_230F_98DF;
const PINNED_ASSUME: u64 = 0x801F_7B3F_2B02_B331;
const PINNED_FENCED: u64 = 0x0463_FF0F_7767_12E7;
const PINNED_PROXY: u64 = 0xB544_BEEA_BDFA_C08C;

#[test]
fn every_program_is_checkable() {
    for family in Family::ALL {
        for seed in 0..300 {
            let p = random_program(family, seed);
            if let Err(e) = CompiledProgram::compile(&p) {
                panic!("{family} seed {seed}: the checker does not take it: {e}\n{}", print(&p));
            }
        }
    }
}

/// The mnemonic of every instruction of `p` (up to its first operand), as printed.
fn mnemonics(p: &Program) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for t in &p.threads {
        for s in &t.body {
            match &s.kind {
                StmtKind::Instr(Instr::Tile(op)) => {
                    let kind = match op {
                        TileOp::Load { .. } => "tile ld",
                        TileOp::Store { .. } => "tile st",
                        TileOp::Atomic { .. } => "tile atom",
                        TileOp::MakeToken { .. } => "make_token",
                        TileOp::JoinTokens { .. } => "join_tokens",
                    };
                    out.insert(kind.to_string());
                }
                StmtKind::Instr(i) => {
                    let text = i.to_string();
                    let text = text.strip_prefix("await ").unwrap_or(&text);
                    out.insert(text.split_whitespace().next().unwrap_or_default().to_string());
                }
                StmtKind::Label(_) => {
                    out.insert("label".to_string());
                }
            }
        }
    }
    out
}

/// Over a few hundred seeds each family makes every kind of instruction it documents.
#[test]
fn families_make_what_they_document() {
    let expected: [(Family, &[&str]); 7] = [
        (Family::Assume, &["ld", "assume.eq", "assume.ne", "assume.lt", "assume.le", "assume.gt", "assume.ge", "atom.cas"]),
        (
            Family::Ptx,
            &[
                "ld",
                "ld.relaxed.gpu",
                "ld.acquire.cta",
                "ld.volatile",
                "st.release.sys",
                "st.weak",
                "atom.cas",
                "atom.acq_rel.gpu.exch",
                "fence.sc.cluster",
                "fence.acq_rel.cta",
                "add",
                "beq",
                "bne",
                "bar.cta.sync",
                "label",
            ],
        ),
        (
            Family::Sync,
            &[
                "ld.weak",
                "st.release.cta",
                "mbarrier.arrive.release.cta.shared::cta.b64",
                "mbarrier.try_wait.parity.relaxed.cta.shared::cta.b64",
                "mbarrier.test_wait.parity.acquire.cta.shared::cta.b64",
                "mbarrier.expect_tx.relaxed.cta.shared::cta.b64",
                "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes",
                "bar.cta.sync",
                "bar.cta.arrive",
                "barrier.cluster.arrive.relaxed",
                "barrier.cluster.wait.acquire",
            ],
        ),
        (Family::TileIr, &["tile ld", "tile st", "tile atom", "join_tokens"]),
        (
            Family::Tcgen05,
            &[
                "tcgen05.ld.sync.aligned.32x32b.x1.b32",
                "tcgen05.st.sync.aligned.32x32b.x1.b32",
                "tcgen05.mma.cta_group::1.kind::f16",
                "tcgen05.cp.cta_group::1.128x256b",
                "tcgen05.shift.cta_group::1.down",
                "tcgen05.wait::ld.sync.aligned",
                "tcgen05.wait::st.sync.aligned",
                "tcgen05.fence::before_thread_sync",
                "tcgen05.fence::after_thread_sync",
                "tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64",
                "mbarrier.arrive.relaxed.cluster.shared::cta.b64",
                "mbarrier.try_wait.parity.relaxed.cluster.shared::cta.b64",
                "st.shared::cta.b32",
                "fence.proxy.async.shared::cta",
                "ld.relaxed.gpu",
                "st.relaxed.gpu",
            ],
        ),
        (
            Family::Proxy,
            &[
                "tld.weak",
                "suld.weak",
                "sust.weak",
                "cold.weak",
                "fence.proxy.texture",
                "fence.proxy.surface",
                "fence.proxy.constant",
                "fence.proxy.alias",
                "ld",
                "st",
            ],
        ),
        (
            Family::Fenced,
            &["ld.relaxed.gpu", "st.relaxed.gpu", "fence.sc.gpu", "fence.sc.cta", "ld", "st", "st.release.gpu", "ld.acquire.gpu"],
        ),
    ];
    for (family, kinds) in expected {
        let mut seen = BTreeSet::new();
        let mut threads = BTreeSet::new();
        for seed in 0..500 {
            let p = random_program(family, seed);
            seen.extend(mnemonics(&p));
            threads.insert(p.threads.len());
            assert_eq!(p.arch, if family == Family::TileIr { Arch::TileIr } else { Arch::Ptx }, "{family} seed {seed}");
        }
        for kind in kinds {
            assert!(seen.contains(*kind), "{family}: no `{kind}` in 500 programs; seen {seen:?}");
        }
        let expected_threads: BTreeSet<usize> = match family {
            Family::Sync => (2..=3).collect(),
            Family::TileIr => (1..=3).collect(),
            Family::Tcgen05 => [2].into_iter().collect(),
            Family::Ptx | Family::Assume => (2..=4).collect(),
            Family::Fenced => (2..=3).collect(),
            Family::Proxy => (2..=4).collect(),
        };
        assert_eq!(threads, expected_threads, "{family}: thread counts");
    }
}

#[test]
fn tileir_mixes_tile_programs_and_message_passing_variants() {
    let names: Vec<String> = (0..200).map(|seed| random_program(Family::TileIr, seed).name).collect();
    let mp = names.iter().filter(|n| n.starts_with("mp-variant-")).count();
    assert!((20..=80).contains(&mp), "{mp} message-passing variants in 200");
    assert!(names.iter().all(|n| n.starts_with("mp-variant-") || n.starts_with("random-tile-")), "{names:?}");
    let (t, m) = (tileir::random_tile_program(7), tileir::random_mp_variant(7));
    assert_eq!((t.name.as_str(), m.name.as_str()), ("random-tile-7", "mp-variant-7"));
    assert_round_trips(&t, "tile program 7");
    assert_round_trips(&m, "mp variant 7");
}

#[test]
fn ptx_programs_keep_to_about_twelve_events() {
    for seed in 0..500 {
        let p = random_program(Family::Ptx, seed);
        // Memory events: everything but labels, `add` and branches (a spin loop counts once).
        let events: usize = p
            .threads
            .iter()
            .flat_map(|t| &t.body)
            .filter(|s| matches!(&s.kind, StmtKind::Instr(i) if !matches!(i, Instr::Add { .. } | Instr::Branch { .. })))
            .count();
        assert!(events <= 12, "seed {seed}: {events} events\n{}", print(&p));
    }
}

#[test]
fn short_inputs_still_give_valid_programs() {
    for family in Family::ALL {
        for len in [0usize, 1, 2, 7, 64] {
            let bytes = seed_bytes(len as u64, len);
            let p = from_unstructured(family, &mut Unstructured::new(&bytes)).expect("generators never fail");
            assert_round_trips(&p, &format!("{family}, {len} bytes"));
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    /// What the fuzz target `generator_roundtrip` checks, on bounded inputs.
    #[test]
    fn any_bytes_give_a_program_that_round_trips(family in prop::sample::select(Family::ALL.to_vec()), bytes in prop::collection::vec(any::<u8>(), 0..600)) {
        let p = from_unstructured(family, &mut Unstructured::new(&bytes)).expect("generators never fail");
        assert_round_trips(&p, &format!("{family} from {} bytes", bytes.len()));
    }
}
