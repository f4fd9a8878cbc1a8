//! Barriers and mbarriers (`checker/src/program/sync.rs`): explorer versus oracle on seeded random programs
//! that use CTA barriers with thread counts, `bar.arrive`, Dat3M's quorum barriers, cluster
//! barriers, mbarriers (arrive, expect_tx, test_wait, blocking await) and `cp.async.bulk` — the
//! same final states with the same counts, the same complete / blocked / hang numbers, the same
//! races, and no duplicates — and a few programs with known verdicts.
//!
//! `TCFUZZ_PROP_SEED=<n>` replays one program, `TCFUZZ_PROP_CASES=<n>` changes how many are tried.

use tcfuzz_checker::{CheckError, ModelKind, Options, Verdict, check, check_oracle};

use crate::property::{Rng, outcomes};

/// A random program with synchronization objects, as litmus text.
pub fn random_sync_program(seed: u64) -> String {
    let mut rng = Rng::new(seed);
    let nthreads = 2 + rng.below(2) as usize;
    let count = 1 + rng.below(2);
    let two_ctas = rng.chance(20);
    let mut cols: Vec<Vec<String>> = Vec::new();
    let mut headers = Vec::new();
    let quorum = 1 + rng.below(nthreads as u64);
    let bar_count = 1 + rng.below(nthreads as u64);
    // One kind of synchronization object per program (mostly), so that the oracle stays small.
    let theme = rng.below(5);
    let mut sync_ops = 0;
    for t in 0..nthreads {
        let cta = if two_ctas { t % 2 } else { 0 };
        headers.push(format!("P{t}@cta {cta},cluster 0,gpu 0"));
        let n = 2 + rng.below(if nthreads == 2 { 3 } else { 2 }) as usize;
        let mut body = Vec::new();
        let mut nregs = 0;
        for _ in 0..n {
            let x = *rng.pick(&["x", "y"]);
            let (lo, width) = match theme {
                0 => (40, 39), // mbarriers and bulk copies
                1 => (79, 9),  // counted CTA barriers and bar.arrive
                2 => (88, 5),  // Dat3M quorum barriers
                3 => (93, 7),  // cluster barriers
                _ => (0, 100),
            };
            // At most four synchronization operations in all: the oracle permutes their writes.
            let mut pick = if width < 100 && rng.chance(50) { rng.below(40) } else { lo + rng.below(width) };
            if pick >= 40 {
                if sync_ops == 4 {
                    pick = rng.below(40);
                } else {
                    sync_ops += 1;
                }
            }
            // `bar` is CTA 0's: CTA 1 reaches it through `.shared::cluster`, which has no wait,
            // and whose arrive returns no state (the validator's rule): its waits arrive instead.
            let remote = cta != 0;
            if remote && (55..=69).contains(&pick) {
                pick = 40;
            }
            let space = if remote { "shared::cluster" } else { "shared::cta" };
            let line = match pick {
                0..=19 => {
                    nregs += 1;
                    format!("ld.{} r{}, {x}", rng.pick(&["weak", "relaxed.cta", "acquire.cta"]), nregs - 1)
                }
                20..=39 => format!("st.{} {x}, {}", rng.pick(&["weak", "relaxed.cta", "release.cta"]), 1 + rng.below(2)),
                40..=54 => {
                    let sem = rng.pick(&["release", "relaxed"]);
                    let state = if remote { "_".to_string() } else { format!("s{t}") };
                    let scope = rng.pick(&["cta", "cluster"]);
                    format!("mbarrier.arrive.{sem}.{scope}.{space}.b64 {state}, [bar]")
                }
                55..=64 => {
                    let sem = rng.pick(&["acquire", "relaxed"]);
                    let scope = rng.pick(&["cta", "cluster"]);
                    format!("await mbarrier.try_wait.parity.{sem}.{scope}.shared::cta.b64 p{t}, [bar], {}", rng.below(2))
                }
                65..=69 => {
                    nregs += 1;
                    format!("mbarrier.test_wait.parity.acquire.cta.shared::cta.b64 r{}, [bar], 0", nregs - 1)
                }
                70..=74 => format!("mbarrier.expect_tx.relaxed.cta.{space}.b64 [bar], 4"),
                75..=78 => format!("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [s], [{x}], 4, [bar]"),
                79..=84 => format!("bar.cta.sync 1, {bar_count}"),
                85..=87 => format!("bar.cta.arrive 1, {bar_count}"),
                88..=92 => format!("bar.cta.sync 2, 2, {quorum}"),
                93..=96 => format!("barrier.cluster.arrive.{}", rng.pick(&["release", "relaxed"])),
                _ => "barrier.cluster.wait.acquire".to_string(),
            };
            body.push(line);
        }
        cols.push(body);
    }
    let rows = cols.iter().map(Vec::len).max().unwrap_or(0);
    let mut src = format!(
        "PTX random-sync-{seed}\n{{\n  x = 0; y = 0;\n  s @ shared cta 0 gpu 0 = 0;\n  bar @ mbarrier cta 0 gpu 0 count {count};\n}}\n"
    );
    src.push_str(&headers.join(" | "));
    src.push_str(" ;\n");
    for r in 0..rows {
        let cells: Vec<&str> = cols.iter().map(|c| c.get(r).map_or("", String::as_str)).collect();
        src.push_str(&cells.join(" | "));
        src.push_str(" ;\n");
    }
    src.push_str("exists (true)\n");
    src
}

fn options(exclude_porf_cycles: bool) -> Options {
    Options { loop_bound: 1, detect_duplicates: true, oracle_limit: 200_000, max_races: 10_000, exclude_porf_cycles, ..Options::default() }
}

/// Explorer and oracle on one program; `Ok(false)` when the oracle gives up.
fn agree(src: &str, model: ModelKind) -> Result<bool, String> {
    let p = tcfuzz_litmus::parse(src).map_err(|e| format!("does not parse: {e}\n{src}"))?;
    let explorer = check(&p, model, &options(false)).map_err(|e| format!("explorer error {e}\n{src}"))?;
    // Where the explorer says it leaves out `po ∪ rf`-cyclic executions (its load-buffering
    // caveat), compare it with the oracle restricted to the acyclic ones.
    let opts = options(!explorer.caveats.is_empty());
    let oracle = match check_oracle(&p, model, &opts) {
        Ok(v) => v,
        Err(CheckError::TooLarge(why)) => {
            if std::env::var("TCFUZZ_PROP_TIMES").is_ok() {
                eprintln!("too large: {why}\n{src}");
            }
            return Ok(false);
        }
        Err(e) => return Err(format!("oracle error {e}\n{src}")),
    };
    let same = |a: &Verdict, b: &Verdict| {
        outcomes(a) == outcomes(b)
            && a.stats.complete == b.stats.complete
            && a.stats.blocked == b.stats.blocked
            && a.stats.hangs == b.stats.hangs
            && a.races == b.races
    };
    if explorer.stats.duplicates != Some(0) || !same(&explorer, &oracle) {
        return Err(format!(
            "{model:?}: explorer and oracle disagree\n{src}\nexplorer: {:?}\noracle:   {:?}",
            explorer.stats, oracle.stats
        ));
    }
    Ok(true)
}

fn run(model: ModelKind, default_cases: u64, base: u64) -> (u64, u64) {
    let seeds: Vec<u64> = match std::env::var("TCFUZZ_PROP_SEED").ok().and_then(|s| s.parse().ok()) {
        Some(seed) => vec![seed],
        None => {
            let cases = std::env::var("TCFUZZ_PROP_CASES").ok().and_then(|s| s.parse().ok()).unwrap_or(default_cases);
            (base..base + cases).collect()
        }
    };
    let (mut compared, mut skipped) = (0, 0);
    for seed in seeds {
        let src = random_sync_program(seed);
        if std::env::var("TCFUZZ_PROP_TIMES").is_ok() {
            eprintln!("seed {seed}:\n{src}");
        }
        match agree(&src, model) {
            Ok(true) => compared += 1,
            Ok(false) => skipped += 1,
            Err(msg) => panic!("seed {seed}: {msg}"),
        }
    }
    println!("{model:?} sync programs: explorer and oracle agree on {compared} ({skipped} too large for the oracle)");
    // Synchronization objects multiply the oracle's coherence permutations: about a quarter of
    // these programs are beyond its budget.
    assert!(compared * 3 >= (compared + skipped) * 2, "too many programs skipped: {skipped}");
    (compared, skipped)
}

#[test]
fn sync_explorer_matches_oracle_sc() {
    run(ModelKind::Sc, 300, 5_000_000);
}

#[test]
fn sync_explorer_matches_oracle_ptx() {
    run(ModelKind::Ptx, 300, 6_000_000);
}

/// Dat3M's barrier tests: explorer = oracle (the unrestricted oracle unless the explorer's
/// verdict has a caveat).
#[test]
fn dat3m_barrier_tests_explorer_matches_oracle() {
    let dir = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/conformance/ptx/Barrier");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        println!("skipped: {} not found", dir.display());
        return;
    };
    let mut files: Vec<_> = entries.flatten().map(|e| e.path()).collect();
    files.sort();
    let csv = std::fs::read_to_string(dir.join("../expected.csv")).unwrap_or_default();
    for f in files {
        let src = std::fs::read_to_string(&f).unwrap_or_default();
        for model in [ModelKind::Sc, ModelKind::Ptx] {
            if let Err(msg) = agree(&src, model) {
                panic!("{}: {msg}", f.display());
            }
        }
        // Dat3M's expected verdict and liveness (`terminates` / `may-hang`).
        let name = format!("Barrier/{}", f.file_name().unwrap_or_default().to_string_lossy());
        let Some(row) = csv.lines().find(|l| l.starts_with(&format!("{name},"))) else { continue };
        let cols: Vec<&str> = row.split(',').collect();
        let v = check(&tcfuzz_litmus::parse(&src).expect("parses"), ModelKind::Ptx, &Options::default()).expect("checks");
        assert_eq!(v.condition.validated, cols[2] == "Ok", "{name}: verdict\n{v}");
        let liveness = if v.stats.hangs > 0 { "may-hang" } else { "terminates" };
        assert_eq!(liveness, cols[5], "{name}: liveness\n{v}");
    }
}

fn verdict(src: &str) -> Verdict {
    check_oracle(&tcfuzz_litmus::parse(src).expect("parses"), ModelKind::Ptx, &Options::default()).expect("checks")
}

/// `bar.sync a, b` counts arrivals: with count 64 (two warps) and three warps, one is left waiting.
#[test]
fn counted_barrier_leaves_the_third_thread_waiting() {
    let v = verdict(
        "PTX counted\n{ x = 0; }\n P0@cta 0,gpu 0 | P1@cta 0,gpu 0 | P2@cta 0,gpu 0 ;\n bar.sync 1, 64 | bar.sync 1, 64 | bar.sync 1, 64 ;\nexists (true)\n",
    );
    assert_eq!(v.stats.complete, 0);
    assert!(v.stats.hangs > 0 && v.stats.hangs == v.stats.blocked, "{:?}", v.stats);
    assert_eq!(v.hung_threads.len(), 3, "each thread is the one left over in some execution");
}

/// `bar.arrive` does not wait; `bar.sync` on the same barrier completes the phase with it and
/// synchronizes with the arriving producer (PTX ISA §9.7.13.1).
#[test]
fn bar_arrive_releases_to_bar_sync() {
    let v = verdict(
        "PTX arrive-sync\n{ x = 0; }\n P0@cta 0,gpu 0   | P1@cta 0,gpu 0 ;\n st.weak x, 1      | bar.sync 1, 2  ;\n bar.arrive 1, 2   | ld.weak r0, x  ;\nexists (P1:r0 == 0)\n",
    );
    assert!(!v.condition.validated && v.races.is_empty() && v.stats.blocked == 0, "{v}");
}

/// `barrier.cluster.arrive.relaxed` orders no memory: the payload races; `.release` does not.
#[test]
fn cluster_barrier_release_and_relaxed() {
    let prog = |sem: &str| {
        format!(
            "PTX cluster-{sem}\n{{ x = 0; }}\n P0@cta 0,cluster 0,gpu 0 | P1@cta 1,cluster 0,gpu 0 ;\n st.weak x, 1 | barrier.cluster.arrive.release ;\n barrier.cluster.arrive.{sem} | barrier.cluster.wait.acquire ;\n barrier.cluster.wait.acquire | ld.weak r0, x ;\nexists (P1:r0 == 0)\n"
        )
    };
    let rel = verdict(&prog("release"));
    assert!(!rel.condition.validated && rel.races.is_empty() && rel.stats.blocked == 0, "{rel}");
    let rlx = verdict(&prog("relaxed"));
    assert!(!rlx.races.is_empty() && rlx.stats.blocked == 0, "{rlx}");
}

/// "barrier.cluster.wait instruction causes the executing thread to wait for all non-exited
/// threads of the cluster to perform barrier.cluster.arrive" (PTX ISA §9.7.13.3): a wait with no
/// arrive of its own thread since its last wait waits for that thread, forever. Programs 7189 of
/// `tcfuzz fuzz --seed 5` and 12132 of `--seed 9` (this shape) hung an H200; the model had let
/// the second wait pass.
#[test]
fn a_cluster_wait_without_its_own_arrive_hangs() {
    let twice = verdict(
        "PTX wait-twice\n{ y = 0; }\n P0@cta 0,cluster 0,gpu 0 | P1@cta 0,cluster 0,gpu 0 ;\n barrier.cluster.arrive.relaxed | ld.relaxed.cta r0, y ;\n ld.weak r0, y | barrier.cluster.arrive.relaxed ;\n | barrier.cluster.wait.acquire ;\n | barrier.cluster.wait.acquire ;\nexists (true)\n",
    );
    assert_eq!((twice.stats.complete, twice.stats.blocked), (0, 2), "{twice}");
    assert!(twice.stats.hangs > 0 && twice.misuse.is_empty(), "{twice}");
    assert_eq!(twice.hung_threads, vec!["P1 (on %barrier.cluster@gpu0.cluster0)".to_string()]);
    // A wait before any arrive, likewise; one after an arrive of its own returns.
    let first = verdict("PTX wait-first\n{ y = 0; }\n P0@cta 0,cluster 0,gpu 0 ;\n barrier.cluster.wait ;\nexists (true)\n");
    assert_eq!((first.stats.complete, first.stats.blocked), (0, 1), "{first}");
    let paired = verdict(
        "PTX paired\n{ y = 0; }\n P0@cta 0,cluster 0,gpu 0 ;\n barrier.cluster.arrive ;\n barrier.cluster.wait ;\n barrier.cluster.arrive ;\n barrier.cluster.wait ;\nexists (true)\n",
    );
    assert_eq!((paired.stats.complete, paired.stats.blocked), (1, 0), "{paired}");
}

/// "Each thread must arrive at the barrier only once before the barrier completes" (§9.7.13.3):
/// P0's second arrive, before P1 has arrived, is misuse; after the phase completed (P1 arrived
/// first, in the other executions) it is not.
#[test]
fn a_second_cluster_arrive_before_the_phase_completes_is_misuse() {
    let v = verdict(
        "PTX arrive-twice\n{ x = 0; }\n P0@cta 0,cluster 0,gpu 0 | P1@cta 0,cluster 0,gpu 0 ;\n barrier.cluster.arrive | st.relaxed.cta x, 1 ;\n barrier.cluster.arrive | barrier.cluster.arrive ;\nexists (true)\n",
    );
    let rules: Vec<(&str, &str)> = v.misuse.iter().map(|m| (m.rule.name(), m.thread.as_str())).collect();
    assert_eq!(rules, [("cluster-arrive-twice", "P0")], "{v}");
    assert_eq!(v.stats.blocked, 0, "{v}");
}

/// A non-blocking `test_wait` writes 1 or 0; an mbarrier declared without `count` needs
/// `mbarrier.init`.
#[test]
fn mbarrier_test_wait_and_init() {
    let v = verdict(
        "PTX test-wait\n{ bar @ mbarrier cta 0 gpu 0; }\n P0@cta 0,gpu 0 | P1@cta 0,gpu 0 ;\n mbarrier.init.shared::cta.b64 [bar], 1 | mbarrier.test_wait.parity.acquire.cta.shared::cta.b64 p, [bar], 0 ;\n mbarrier.arrive.release.cta.shared::cta.b64 s, [bar] | ;\nexists (P1:p == 1)\n",
    );
    assert_eq!(v.condition.observation, tcfuzz_checker::Observation::Sometimes, "{v}");
    assert_eq!(v.stats.blocked, 0);
}

/// A blocking wait that can never succeed is a hang, reported with the thread and the object.
#[test]
fn mbarrier_hang_names_thread_and_object() {
    let v = verdict(
        "PTX hang\n{ bar @ mbarrier cta 0 gpu 0 count 2; }\n P0@cta 0,gpu 0 | P1@cta 0,gpu 0 ;\n mbarrier.arrive.shared::cta.b64 s, [bar] | await mbarrier.try_wait.parity.shared::cta.b64 p, [bar], 0 ;\nexists (true)\n",
    );
    assert_eq!((v.stats.complete, v.stats.blocked, v.stats.hangs), (0, 1, 1), "{v}");
    assert_eq!(v.hung_threads, vec!["P1 (on bar)".to_string()]);
}

/// An mbarrier is one counter, whatever the scopes of the operations on it (PTX ISA §9.7.13.15:
/// the scope names the threads that observe an operation's memory synchronizing effect): a local
/// `.cta` arrive and a remote `.cluster` arrive both count, and neither races with the other or
/// with the `.cta` wait. The model had treated the two arrives as not morally strong (§8.7): it
/// lost one of them in half the executions and reported a hang and four races on `bar`.
#[test]
fn arrivals_of_different_scopes_are_never_lost() {
    let src = "PTX two-scopes\n{ bar @ mbarrier cta 0 gpu 0 count 2; }\n P0@cta 0,cluster 0,gpu 0 | P1@cta 1,cluster 0,gpu 0 | P2@cta 0,cluster 0,gpu 0 ;\n mbarrier.arrive.release.cta.shared::cta.b64 s, [bar] | mbarrier.arrive.release.cluster.shared::cluster.b64 _, [bar] | await mbarrier.try_wait.parity.acquire.cta.shared::cta.b64 p, [bar], 0 ;\nexists (true)\n";
    for v in [verdict(src), check(&tcfuzz_litmus::parse(src).expect("parses"), ModelKind::Ptx, &Options::default()).expect("checks")] {
        assert_eq!((v.stats.complete, v.stats.blocked, v.stats.hangs), (2, 0, 0), "{v}");
        assert!(v.races.is_empty(), "{v}");
        let bars: Vec<String> =
            v.states.iter().flat_map(|s| &s.values).filter(|(n, _)| &**n == "bar").map(|(n, x)| v.show_value(n, *x)).collect();
        assert_eq!(bars, ["<phase 1, pending 2 of 2>"], "{v}");
    }
}

/// Scope still decides synchronization between mbarrier operations (§8.9.4): a remote
/// `.release.cluster` arrive synchronizes with a local wait at `.cluster` scope, not with one at
/// `.cta` scope (whose scope leaves the arriving thread out) — there the payload races, though
/// `bar` does not. A `.relaxed.cta` wait followed by `fence.acq_rel.cluster` is an acquire pattern
/// at cluster scope (§8.8): it observes the arrive, and synchronizes.
#[test]
fn remote_arrive_synchronizes_only_within_the_waits_scope() {
    let prog = |wait: &str, then: &str| {
        format!(
            "PTX remote\n{{ x = 0; bar @ mbarrier cta 0 gpu 0 count 1; }}\n P0@cta 0,cluster 0,gpu 0 | P1@cta 1,cluster 0,gpu 0 ;\n {wait} | st.weak x, 1 ;\n {then} | mbarrier.arrive.release.cluster.shared::cluster.b64 _, [bar] ;\n ld.weak r0, x | ;\nexists (P0:r0 == 0)\n"
        )
    };
    let cta = verdict(&prog("await mbarrier.try_wait.parity.acquire.cta.shared::cta.b64 p, [bar], 0", ""));
    assert!(cta.condition.validated, "{cta}");
    let raced: Vec<&str> = cta.races.iter().map(|r| r.first.location.as_str()).collect();
    assert_eq!(raced, ["x"], "{cta}");
    for (wait, then) in [
        ("await mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [bar], 0", ""),
        ("await mbarrier.try_wait.parity.relaxed.cta.shared::cta.b64 p, [bar], 0", "fence.acq_rel.cluster"),
    ] {
        let src = prog(wait, then);
        let v = verdict(&src);
        assert!(!v.condition.validated && v.races.is_empty() && v.stats.blocked == 0, "{src}\n{v}");
    }
}

/// Two bulk copies completing on one mbarrier (`examples/mbarrier/two-bulk-copies-one-mbarrier`):
/// the copies are asynchronous, so the second one's complete-tx may come first in the mbarrier's
/// coherence order — the first one's complete-tx then reads a write that comes later in its
/// thread. The explorer reaches both orders (its dependency revisits keep the later copy without
/// the earlier one's write), with no caveat, as the oracle does.
#[test]
fn two_bulk_copies_complete_in_either_order() {
    let src = "PTX two-copies\n{ g0 = 42; g1 = 7; s0 @ shared cta 0 gpu 0 = 0; s1 @ shared cta 0 gpu 0 = 0; bar @ mbarrier cta 0 gpu 0 count 1; }\n P0@warp 0,cta 0,gpu 0 | P1@warp 1,cta 0,gpu 0 ;\n mbarrier.arrive.expect_tx.release.cta.shared::cta.b64 st0, [bar], 8 | await mbarrier.try_wait.parity.acquire.cta.shared::cta.b64 p, [bar], 0 ;\n cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [s0], [g0], 4, [bar] | ld.weak.shared::cta.b32 r0, [s0] ;\n cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [s1], [g1], 4, [bar] | ld.weak.shared::cta.b32 r1, [s1] ;\nexists (P1:r0 != 42 \\/ P1:r1 != 7)\n";
    let p = tcfuzz_litmus::parse(src).expect("parses");
    let explorer = check(&p, ModelKind::Ptx, &options(false)).expect("checks");
    assert!(explorer.caveats.is_empty(), "{explorer}");
    assert_eq!((explorer.stats.complete, explorer.stats.blocked, explorer.stats.duplicates), (2, 0, Some(0)), "{explorer}");
    assert!(!explorer.condition.validated && explorer.races.is_empty(), "{explorer}");
    let oracle = check_oracle(&p, ModelKind::Ptx, &Options::default()).expect("the oracle checks it");
    assert_eq!((outcomes(&oracle), oracle.stats.complete, oracle.stats.blocked), (outcomes(&explorer), 2, 0), "{oracle}");
}

/// `bar.sync a, r` with `r` loaded at run time (Dat3M's reading: the barrier `(a, r)`): the
/// thread meets the threads whose barrier names the value it loaded, and goes alone otherwise;
/// until it arrives, they wait to learn which. Explorer = oracle.
#[test]
fn barrier_second_operand_loaded_at_run_time() {
    let prog = |z: i64| {
        format!(
            "PTX dyn-bar\n{{ x = 0; y = 0; z = {z}; }}\n P0@cta 0,gpu 0 | P1@cta 0,gpu 0 ;\n st.weak x, 1 | st.weak y, 1 ;\n ld.weak r2, z | bar.cta.sync 1, 1 ;\n bar.cta.sync 1, r2 | ld.weak r1, x ;\n ld.weak r0, y | ;\nexists (P0:r0 == 0 /\\ P1:r1 == 0)\n"
        )
    };
    // z = 1: P0 chooses P1's barrier, which orders each store before the other thread's load.
    // z = 0: each goes alone; store buffering is possible.
    for (z, seen, complete) in [(1, false, 1), (0, true, 4)] {
        let src = prog(z);
        let p = tcfuzz_litmus::parse(&src).expect("parses");
        let v = check(&p, ModelKind::Ptx, &options(false)).expect("checks");
        assert_eq!((v.condition.validated, v.stats.complete, v.stats.blocked), (seen, complete, 0), "z = {z}\n{v}");
        assert_eq!(agree(&src, ModelKind::Ptx), Ok(true), "z = {z}");
    }
    // Two such barriers with one first operand: which meets which is not modelled.
    let two = "PTX dyn-bar-two\n{ z = 0; }\n P0@cta 0,gpu 0 | P1@cta 0,gpu 0 ;\n ld.weak r2, z | ld.weak r3, z ;\n bar.cta.sync 1, r2 | bar.cta.sync 1, r3 ;\nexists (true)\n";
    let err = check(&tcfuzz_litmus::parse(two).expect("parses"), ModelKind::Ptx, &options(false)).map(|_| ()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "5:2: `bar.sync with two barriers with the same id whose second operands are set at run time` is not supported by the checker yet"
    );
}

/// Found by the duplicate check `tcfuzz selftest` makes on programs too large for the oracle
/// (`--family sync --seed 555`, program 1639, minimised): with Dat3M's quorum barriers
/// (`bar.cta.sync a, b, q`, an arrival counter and a blocking wait for `q` arrivals) the explorer
/// under PTX produced 12 graphs twice. The maximality test judged P0's first wait-read canonical
/// in a graph where it read an earlier arrive, because filling the holes in thread order left
/// P1's `ld y` (after its successful wait, which the release store precedes) no source but the
/// initial write, while the only consistent completion needs P2's store, a hole of a later
/// thread (`Explorer::completable` now fills writes first). 208 under both models.
#[test]
fn quorum_barriers_explore_each_graph_once() {
    let text = "PTX quorum-duplicates
{ y = 0; }
 P0@cta 0,gpu 0       | P1@cta 0,gpu 0       | P2@cta 0,gpu 0       ;
                      | bar.cta.sync 2, 2, 1 | st.release.cta y, 2  ;
 bar.cta.sync 2, 2, 1 | ld.relaxed.cta r0, y | bar.cta.sync 2, 2, 1 ;
                      | bar.cta.sync 2, 2, 1 |                      ;
exists (P1:r0 == 2)
";
    let p = tcfuzz_litmus::parse(text).expect("parses");
    let opts = Options { detect_duplicates: true, ..Options::default() };
    let sc = check(&p, ModelKind::Sc, &opts).expect("explorer");
    assert_eq!((sc.stats.complete, sc.stats.duplicates), (208, Some(0)), "{sc}");
    let ptx = check(&p, ModelKind::Ptx, &opts).expect("explorer");
    assert_eq!((ptx.stats.complete, ptx.stats.duplicates), (208, Some(0)), "{ptx}");
    // (Too large for the oracle; one location of data, its accesses morally strong: the same
    // outcomes as under SC.)
    assert_eq!(ptx.states, sc.states);
}

/// The shape of issue 26's spurious hang: an inter-CTA flag handshake with spin loops and CTA
/// barriers on both sides, and a third thread of P0's CTA that only meets the barrier. Where the
/// loop bound stops P1 inside its spin loop, P0 spins on a flag only P1 sets, and P2 waits at
/// the barrier for P0: in every fair continuation P1 leaves its loop, so both waits are blocked
/// by the bound, not hangs (Dat3M: `terminates`).
pub fn barrier_behind_a_spinner(flags: (&str, &str)) -> String {
    let (st, ld) = flags;
    format!(
        "PTX barrier-behind-spinner\n{{ f0 = 0; f1 = 0; }}\n\
         P0@cta 0,gpu 0 {{\n  st.{st}.gpu f0, 1;\nL0:\n  ld.{ld}.gpu r0, f1;\n  beq r0, 0, L0;\n  bar.sync 0;\n}}\n\
         P1@cta 1,gpu 0 {{\nL1:\n  ld.{ld}.gpu r0, f0;\n  beq r0, 0, L1;\n  st.{st}.gpu f1, 1;\n  bar.sync 0;\n}}\n\
         P2@cta 0,gpu 0 {{\n  bar.sync 0;\n}}\nexists (P0:r0 == 1)\n"
    )
}

#[test]
fn a_barrier_behind_a_loop_bounded_spinner_is_no_hang() {
    for flags in [("relaxed", "relaxed"), ("release", "acquire")] {
        let p = tcfuzz_litmus::parse(&barrier_behind_a_spinner(flags)).expect("parses");
        for v in [
            check(&p, ModelKind::Ptx, &Options::default()).expect("explorer"),
            check_oracle(&p, ModelKind::Ptx, &Options::default()).expect("oracle"),
        ] {
            assert_eq!((v.stats.complete, v.stats.blocked, v.stats.hangs), (9, 4, 0), "{flags:?}\n{v}");
            assert!(v.hung_threads.is_empty(), "{flags:?}\n{v}");
            assert_eq!(v.blocked_threads, ["P0", "P1", "P2"], "{flags:?}\n{v}");
        }
    }
}

/// A blocking wait on an mbarrier whose only arrival comes after a spin loop the bound stopped
/// is blocked by the bound too; without a thread that may still move it hangs
/// (`mbarrier_hang_names_thread_and_object`).
#[test]
fn an_await_behind_a_loop_bounded_spinner_is_no_hang() {
    let v = verdict(
        "PTX await-behind-spinner\n{ f = 0; bar @ mbarrier cta 0 gpu 0 count 1; }\n\
         P0@cta 0,gpu 0 {\nL0:\n  ld.relaxed.gpu r0, f;\n  beq r0, 0, L0;\n  mbarrier.arrive.release.cta.shared::cta.b64 s, [bar];\n}\n\
         P1@cta 0,gpu 0 {\n  await mbarrier.try_wait.parity.acquire.cta.shared::cta.b64 p, [bar], 0;\n}\n\
         P2@cta 1,gpu 0 {\n  st.relaxed.gpu f, 1;\n}\nexists (true)\n",
    );
    assert_eq!((v.stats.complete, v.stats.blocked, v.stats.hangs), (3, 1, 0), "{v}");
    assert_eq!(v.blocked_threads, ["P0", "P1"], "{v}");
}

/// A barrier member that finished without arriving never comes: the waiter hangs even while
/// another thread is stopped by the bound.
#[test]
fn a_barrier_whose_member_finished_hangs_beside_a_loop_bounded_thread() {
    let v = verdict(
        "PTX barrier-member-gone\n{ f = 0; g = 0; }\n\
         P0@cta 0,gpu 0 {\n  bar.sync 0;\n}\n\
         P1@cta 0,gpu 0 {\n  ld.relaxed.gpu r0, f;\n  beq r0, 0, END;\n  bar.sync 0;\nEND:\n}\n\
         P2@cta 1,gpu 0 {\nL0:\n  ld.relaxed.gpu r0, g;\n  beq r0, 0, L0;\n}\n\
         P3@cta 1,gpu 0 {\n  st.relaxed.gpu g, 1;\n}\nexists (true)\n",
    );
    assert_eq!((v.stats.complete, v.stats.blocked, v.stats.hangs), (0, 4, 4), "{v}");
    assert_eq!(v.hung_threads, ["P0"], "{v}");
    assert_eq!(v.blocked_threads, ["P2"], "{v}");
}

/// A thread stopped at a failed blocking wait that read a write with a `co`-later one added
/// before the wait is dropped unexplored (`explore::trust`, `moot`): no execution reached from
/// it counts, for the wait would retry and see the newer state. Here each wait may read an
/// arrival that does not complete its phase after the completing one is in the graph; the
/// explorer must still find every complete execution, and the hang of a wait with no arrival
/// left to come, as the oracle does.
#[test]
fn stale_waits_are_dropped_unexplored_and_nothing_is_lost() {
    let mbarrier = "PTX stale-mbarrier-wait\n{ x = 0; bar @ mbarrier cta 0 gpu 0 count 2; }\n\
         P0@cta 0,gpu 0 {\n  st.weak x, 1;\n  mbarrier.arrive.release.cta.shared::cta.b64 s, [bar];\n}\n\
         P1@cta 0,gpu 0 {\n  mbarrier.arrive.release.cta.shared::cta.b64 s, [bar];\n}\n\
         P2@cta 0,gpu 0 {\n  await mbarrier.try_wait.parity.acquire.cta.shared::cta.b64 p, [bar], 0;\n  ld.weak r0, x;\n}\nexists (P2:r0 == 1)\n";
    let cluster = "PTX stale-cluster-wait\n{ x = 0; }\n\
         P0@cta 0,cluster 0,gpu 0 {\n  st.weak x, 1;\n  barrier.cluster.arrive;\n  barrier.cluster.wait;\n}\n\
         P1@cta 1,cluster 0,gpu 0 {\n  barrier.cluster.arrive;\n  barrier.cluster.wait;\n  ld.weak r0, x;\n}\n\
         P2@cta 1,cluster 0,gpu 0 {\n  barrier.cluster.arrive;\n  barrier.cluster.wait;\n}\nexists (P1:r0 == 1)\n";
    let hang = "PTX stale-wait-hang\n{ bar @ mbarrier cta 0 gpu 0 count 3; }\n\
         P0@cta 0,gpu 0 {\n  mbarrier.arrive.release.cta.shared::cta.b64 s, [bar];\n}\n\
         P1@cta 0,gpu 0 {\n  mbarrier.arrive.release.cta.shared::cta.b64 s, [bar];\n}\n\
         P2@cta 0,gpu 0 {\n  await mbarrier.try_wait.parity.acquire.cta.shared::cta.b64 p, [bar], 0;\n}\nexists (true)\n";
    for (src, (complete, blocked, hangs)) in [(mbarrier, (2, 0, 0)), (cluster, (6, 0, 0)), (hang, (0, 2, 2))] {
        for model in [ModelKind::Sc, ModelKind::Ptx] {
            assert_eq!(agree(src, model), Ok(true), "{model:?}");
        }
        let v = verdict(src);
        assert_eq!((v.stats.complete, v.stats.blocked, v.stats.hangs), (complete, blocked, hangs), "{v}");
        assert!(v.races.is_empty(), "{v}");
    }
}
