//! Campaign generation (`src/generate/`): a program is a function of `(seed, index, config)` and
//! the seed pool — the same on any thread, in any order — and every program of every family
//! validates and round-trips through print and parse.
//!
//! `TCFUZZ_GEN_CASES=<n>` changes how many programs per family the round-trip test tries;
//! `TCFUZZ_GEN_SEED=<s>` its campaign seed (printed on failure).

use std::collections::{BTreeMap, HashMap};

use tcfuzz_generator::generate::{FamilyKind, FamilyWeights, Generator, GeneratorConfig, Origin, program_seed};
use tcfuzz_generator::mutate::{PoolSeed, SeedPool};
use tcfuzz_generator::pattern::Pattern;
use tcfuzz_litmus::{Program, parse, print, validate};

fn cases(default: u64) -> u64 {
    std::env::var("TCFUZZ_GEN_CASES").ok().and_then(|s| s.parse().ok()).unwrap_or(default)
}

fn campaign_seed() -> u64 {
    std::env::var("TCFUZZ_GEN_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(0x5EED)
}

fn only(family: FamilyKind) -> GeneratorConfig {
    let w = |f: FamilyKind| u32::from(f == family);
    GeneratorConfig {
        families: FamilyWeights {
            random: w(FamilyKind::Random),
            pattern: w(FamilyKind::Pattern),
            mutant: w(FamilyKind::Mutant),
            coverage: w(FamilyKind::Coverage),
        },
        ..GeneratorConfig::default()
    }
}

fn assert_round_trips(p: &Program, what: &str) {
    let text = print(p);
    if let Err(e) = validate(p) {
        panic!("{what}: invalid program:\n{}\n{text}", e.render("generated"));
    }
    match parse(&text) {
        Ok(again) => assert!(again.same_as(p), "{what}: print then parse changed the program:\n{text}"),
        Err(e) => panic!("{what}: the printed program does not parse:\n{}\n{text}", e.render("printed")),
    }
}

/// A pool of the first `n` random programs of a campaign, each credited with a feature of its
/// own (counts rising with the index, so that the early ones are the rare ones).
fn pool(n: u64) -> SeedPool {
    let g = Generator::new(only(FamilyKind::Random)).expect("valid config");
    let empty = SeedPool::default();
    let mut counts = HashMap::new();
    let seeds = (0..n)
        .map(|i| {
            let p = g.generate(7, i, &empty).expect("generates").program;
            counts.insert(format!("f{i}"), i + 1);
            PoolSeed { id: i + 1, program: p, features: vec![format!("f{i}")] }
        })
        .collect();
    SeedPool::new(seeds, &counts)
}

#[test]
fn every_family_round_trips() {
    let seed = campaign_seed();
    let pool = pool(40);
    for family in FamilyKind::ALL {
        let g = Generator::new(only(family)).expect("valid config");
        let mut origins = 0;
        for index in 0..cases(600) {
            let made = g.generate(seed, index, &pool).unwrap_or_else(|e| panic!("{family}: {e}"));
            assert_round_trips(&made.program, &format!("{family} program {index} of seed {seed} ({})", made.origin));
            origins += usize::from(made.origin.family() == family);
        }
        // The coverage family falls back to a random program when no mutant validates; rarely.
        assert!(origins as u64 * 10 >= cases(600) * 9, "{family}: only {origins} programs of the family");
    }
}

#[test]
fn a_program_is_a_function_of_seed_index_and_config() {
    let pool = pool(20);
    let g = Generator::new(GeneratorConfig::default()).expect("valid config");
    let n = 400u64;
    let serial: Vec<String> = (0..n).map(|i| print(&g.generate(11, i, &pool).expect("generates").program)).collect();
    // Two threads, each taking every other index, in reverse order.
    let parallel: BTreeMap<u64, String> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..2u64)
            .map(|k| {
                let (g, pool) = (&g, &pool);
                s.spawn(move || {
                    (0..n)
                        .rev()
                        .filter(|i| i % 2 == k)
                        .map(|i| (i, print(&g.generate(11, i, pool).expect("generates").program)))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles.into_iter().flat_map(|h| h.join().expect("no panic")).collect()
    });
    assert_eq!(serial, parallel.into_values().collect::<Vec<_>>());
    // A fresh generator from an equal config gives the same bytes.
    let again = Generator::new(GeneratorConfig::default()).expect("valid config");
    assert_eq!(print(&again.generate(11, 17, &pool).unwrap().program), serial[17]);
    // Another seed or index gives another program.
    assert_ne!(print(&g.generate(12, 17, &pool).unwrap().program), serial[17]);
    assert_ne!(serial[17], serial[18]);
    assert_ne!(program_seed(1, 2), program_seed(2, 1));
}

/// Which programs a `(seed, index)` names is part of the interface (a job is an index range of a
/// campaign): a change here must be deliberate. FNV-1a over the printed programs 0..60 of seed 3
/// under the default config with an empty pool.
#[test]
fn campaign_programs_are_pinned() {
    fn fnv1a(h: u64, bytes: &[u8]) -> u64 {
        bytes.iter().fold(h, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01B3))
    }
    let g = Generator::new(GeneratorConfig::default()).expect("valid config");
    let pool = SeedPool::default();
    let hash = (0..60).fold(0xCBF2_9CE4_8422_2325, |h, i| fnv1a(h, print(&g.generate(3, i, &pool).unwrap().program).as_bytes()));
    assert_eq!(hash, PINNED, "the programs of seed 3 changed: hash {hash:#018X}");
}

/// Changes with any generator it wraps (`random::tests` pin those): update both together. Last
/// changed: the `sync` family picks CTA or cluster scope for mbarrier arrives and waits.
const PINNED: u64 = 0x060D_58AA_32D9_2B27;

#[test]
fn the_default_mix_makes_every_family_and_pattern() {
    let g = Generator::new(GeneratorConfig::default()).expect("valid config");
    let pool = pool(10);
    let mut families = BTreeMap::new();
    let mut patterns = BTreeMap::new();
    for i in 0..2000 {
        let made = g.generate(5, i, &pool).unwrap();
        *families.entry(made.origin.family()).or_insert(0) += 1;
        if let Origin::Pattern { pattern, .. } | Origin::Mutant { pattern, .. } = made.origin {
            *patterns.entry(pattern).or_insert(0) += 1;
        }
    }
    for f in FamilyKind::ALL {
        assert!(families.get(&f).copied().unwrap_or(0) > 100, "{f}: {families:?}");
    }
    for p in Pattern::ALL {
        assert!(patterns.get(&p).copied().unwrap_or(0) > 20, "{p}: {patterns:?}");
    }
}

#[test]
fn configs_that_generate_nothing_are_refused() {
    let mut c = GeneratorConfig::default();
    c.random.insert("nonsense".into(), 1);
    assert_eq!(
        Generator::new(c).unwrap_err().to_string(),
        "generator config: unknown program family `nonsense`; known: ptx, sync, tileir, tcgen05, assume, fenced, proxy"
    );
    let c = GeneratorConfig { patterns: [("tma-rings".to_string(), 1)].into(), ..GeneratorConfig::default() };
    assert!(
        Generator::new(c).unwrap_err().to_string().starts_with("generator config: unknown pattern `tma-rings`; known: message-passing")
    );
    let c = GeneratorConfig { families: FamilyWeights { random: 0, pattern: 0, mutant: 0, coverage: 0 }, ..GeneratorConfig::default() };
    assert_eq!(Generator::new(c).unwrap_err().to_string(), "generator config: every family weighs 0");
    let c = GeneratorConfig { patterns: BTreeMap::new(), ..GeneratorConfig::default() };
    assert_eq!(
        Generator::new(c).unwrap_err().to_string(),
        "generator config: the pattern or mutant family has weight but every pattern weighs 0"
    );
}

#[test]
fn configs_read_from_json_with_defaults_and_unknown_keys_refused() {
    let c: GeneratorConfig = serde_json::from_str(r#"{"families": {"random": 1, "pattern": 0, "mutant": 0, "coverage": 0}}"#).unwrap();
    assert_eq!(c.families.random, 1);
    assert_eq!(c.random, GeneratorConfig::default().random);
    let e = serde_json::from_str::<GeneratorConfig>(r#"{"familes": {}}"#).unwrap_err().to_string();
    assert!(e.starts_with("unknown field `familes`"), "{e}");
}
