//! The job executor end to end: results are a function of the job, a panic is a finding and the
//! job goes on, budgets and cancellation hold, and the planted faults are found and minimized to
//! a handful of instructions.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use tcfuzz_checker::Observation;
use tcfuzz_generator::generate::{FamilyWeights, GeneratorConfig, Origin};
use tcfuzz_generator::minimize::{Budget, Size, minimize};
use tcfuzz_generator::mutate::{PoolSeed, SeedPool};
use tcfuzz_litmus::Program;
use tcfuzz_worker::{Executor, Finding, FuzzConfig, Hooks, Job, JobResult, Kind, OracleConfig, PlantedFault, Reference};

fn job(seed: u64, first: u64, count: u64) -> Job {
    Job { campaign_seed: seed, first_index: first, count, pool: Arc::new(SeedPool::default()), known: Arc::new(HashSet::new()) }
}

/// Only the random generators named, with every oracle on every program.
fn random_only(names: &[&str]) -> FuzzConfig {
    FuzzConfig {
        generator: GeneratorConfig {
            families: FamilyWeights { random: 1, pattern: 0, mutant: 0, coverage: 0 },
            random: names.iter().map(|n| (n.to_string(), 1)).collect(),
            ..GeneratorConfig::default()
        },
        oracles: OracleConfig { explorer_vs_oracle: 1, tileir_weaker_than_ptx: 1, ..OracleConfig::default() },
        ..FuzzConfig::default()
    }
}

/// What of a result does not depend on timing: programs, executions, too large, features,
/// findings (kind, signature, index), candidate indices.
type Facts = (u64, u64, u64, BTreeMap<String, u64>, Vec<(Kind, String, u64)>, Vec<u64>);

fn facts(r: &JobResult) -> Facts {
    (
        r.stats.programs,
        r.stats.executions,
        r.stats.too_large,
        r.features.clone(),
        r.findings.iter().map(|f| (f.kind, f.signature.clone(), f.index)).collect(),
        r.candidates.iter().map(|c| c.index).collect(),
    )
}

#[test]
fn results_are_a_function_of_the_job() {
    // Budgets by execution counts only: a clock would let a loaded machine decide.
    let mut config = FuzzConfig::default();
    config.budget.millis = 600_000;
    let e = Executor::new(config).unwrap();
    let whole = e.run(&job(3, 0, 120), &Hooks::default());
    assert_eq!(whole.completed, 120);
    let again = e.run(&job(3, 0, 120), &Hooks::default());
    assert_eq!(facts(&whole), facts(&again));
    // Split in two jobs run on two threads: the same programs, findings and features.
    let (a, b) = std::thread::scope(|s| {
        let a = s.spawn(|| e.run(&job(3, 0, 60), &Hooks::default()));
        let b = s.spawn(|| e.run(&job(3, 60, 60), &Hooks::default()));
        (a.join().unwrap(), b.join().unwrap())
    });
    let mut features = a.features.clone();
    for (f, n) in &b.features {
        *features.entry(f.clone()).or_insert(0) += n;
    }
    assert_eq!(features, whole.features);
    assert_eq!(a.stats.executions + b.stats.executions, whole.stats.executions);
    let findings = |r: &JobResult| r.findings.iter().map(|f| (f.kind, f.signature.clone(), f.index)).collect::<Vec<_>>();
    assert_eq!([findings(&a), findings(&b)].concat(), findings(&whole));
    assert!(whole.stats.programs == 120 && whole.features.len() > 50, "{:?}", whole.stats);
}

#[test]
fn a_cancelled_job_stops_before_its_next_program() {
    let e = Executor::new(FuzzConfig::default()).unwrap();
    let cancel = Arc::new(AtomicBool::new(true));
    let r = e.run(&job(1, 0, 50), &Hooks { cancel: Some(&cancel), ..Hooks::default() });
    assert!(r.cancelled);
    assert_eq!((r.completed, r.stats.programs), (0, 0));
}

#[test]
fn programs_past_the_budget_are_counted_not_waited_for() {
    let mut config = random_only(&["ptx"]);
    config.budget.max_executions = 2;
    let e = Executor::new(config).unwrap();
    let r = e.run(&job(5, 0, 40), &Hooks::default());
    assert_eq!(r.completed, 40);
    assert!(r.stats.too_large > 20, "{:?}", r.stats);
}

/// Regression: a program stopped at `budget.max_executions` was counted with 0 executions (the
/// checker's budget stop carried only a message), so a campaign's executions and executions/s
/// left out exactly the programs its time went to. Checked under PTX only, each program counts
/// what the explorer explored: all its executions, or the budget and the one that passed it.
#[test]
fn a_program_stopped_at_the_execution_budget_counts_the_executions_it_explored() {
    let budget = 2;
    let mut config = random_only(&["ptx"]);
    config.models = vec!["ptx".into()];
    config.oracles = OracleConfig { explorer_vs_oracle: 0, tileir_weaker_than_ptx: 0, ..OracleConfig::default() };
    config.budget.max_executions = budget;
    config.budget.millis = 600_000;
    let unbounded = tcfuzz_checker::Options { loop_bound: config.budget.loop_bound, witnesses: false, ..Default::default() };
    let e = Executor::new(config).unwrap();
    let mut stopped = 0;
    for index in 0..30 {
        let made = e.generate(5, index, &SeedPool::default()).expect("generates");
        let all = tcfuzz_checker::check(&made.program, tcfuzz_checker::ModelKind::Ptx, &unbounded).expect("checks");
        let all = all.stats.complete + all.stats.blocked + all.stats.assume_failed;
        let r = e.run(&job(5, index, 1), &Hooks::default());
        let (expected, too_large) = if all > budget { (budget + 1, 1) } else { (all, 0) };
        assert_eq!((r.stats.executions, r.stats.too_large), (expected, too_large), "program {index} ({all} executions in all)");
        stopped += too_large;
    }
    assert!(stopped >= 10, "only {stopped} of 30 programs past the budget");
}

/// A program whose check took more executions than `budget.seed_max_executions` is still a
/// candidate (it takes the features it was the first to reach) but carries no program: no seed
/// is made of it.
#[test]
fn a_program_past_the_seed_bound_is_a_candidate_without_a_program() {
    let mut config = random_only(&["ptx"]);
    config.models = vec!["ptx".into()];
    config.oracles = OracleConfig { explorer_vs_oracle: 0, tileir_weaker_than_ptx: 0, ..OracleConfig::default() };
    config.budget.millis = 600_000;
    config.budget.seed_max_executions = 20;
    let e = Executor::new(config).unwrap();
    let (mut with, mut without) = (0, 0);
    for index in 0..40 {
        let r = e.run(&job(5, index, 1), &Hooks::default());
        if r.stats.too_large > 0 {
            continue;
        }
        // Nothing is known: the job's one program is the first to reach all it reaches.
        assert_eq!(r.candidates.len(), 1, "program {index}");
        let c = &r.candidates[0];
        assert_eq!(c.features.iter().collect::<BTreeSet<_>>(), r.features.keys().collect::<BTreeSet<_>>(), "program {index}");
        let seedable = r.stats.executions <= 20;
        assert_eq!(c.program.is_some(), seedable, "program {index}: {} executions", r.stats.executions);
        if seedable {
            with += 1;
        } else {
            without += 1;
        }
    }
    assert!(with >= 5 && without >= 5, "{with} candidates with a program, {without} without");
}

/// A program checked under SC and PTX is checked under PTX first (it has at least as many
/// executions there): one past the budget under PTX alone counts only the PTX executions it
/// explored, the SC check never run; one within it counts both.
#[test]
fn a_program_past_the_budget_under_ptx_is_not_checked_under_sc() {
    let mut config = random_only(&["ptx"]);
    config.models = vec!["sc".into(), "ptx".into()];
    config.oracles = OracleConfig { explorer_vs_oracle: 0, tileir_weaker_than_ptx: 0, ..OracleConfig::default() };
    config.budget.millis = 600_000;
    config.budget.max_executions = 12;
    let e = Executor::new(config.clone()).unwrap();
    let unbounded = tcfuzz_checker::Options { loop_bound: config.budget.loop_bound, witnesses: false, ..Default::default() };
    let count = |p: &Program, model| {
        let v = tcfuzz_checker::check(p, model, &unbounded).expect("checks");
        v.stats.complete + v.stats.blocked + v.stats.assume_failed
    };
    let (mut ptx_only, mut within) = (0, 0);
    for index in 0..60 {
        let made = e.generate(5, index, &SeedPool::default()).expect("generates");
        let (sc, ptx) = (count(&made.program, tcfuzz_checker::ModelKind::Sc), count(&made.program, tcfuzz_checker::ModelKind::Ptx));
        let r = e.run(&job(5, index, 1), &Hooks::default());
        let expected = if ptx > 12 {
            ptx_only += u64::from(sc <= 12);
            (13, 1)
        } else {
            within += 1;
            (sc + ptx, 0)
        };
        assert_eq!((r.stats.executions, r.stats.too_large), expected, "program {index}: {sc} executions under SC, {ptx} under PTX");
    }
    assert!(ptx_only >= 3 && within >= 10, "{ptx_only} past the budget under PTX only, {within} within it");
}

/// Coverage-guided programs get `budget.coverage_max_executions`, the others `max_executions`:
/// a mutant that explodes is abandoned early (they took about 40 % of the main job's time).
#[test]
fn coverage_guided_programs_have_a_budget_of_their_own() {
    let mut config = random_only(&["ptx"]);
    config.generator.families = FamilyWeights { random: 1, pattern: 0, mutant: 0, coverage: 3 };
    config.models = vec!["ptx".into()];
    config.oracles = OracleConfig { explorer_vs_oracle: 0, tileir_weaker_than_ptx: 0, ..OracleConfig::default() };
    config.budget.millis = 600_000;
    config.budget.coverage_max_executions = 2;
    let unbounded = tcfuzz_checker::Options { loop_bound: config.budget.loop_bound, witnesses: false, ..Default::default() };
    let max_executions = config.budget.max_executions;
    let e = Executor::new(config.clone()).unwrap();
    // Seeds: the first random programs of another campaign.
    let seeds = (0..12)
        .map(|i| {
            let program = e.generate(8, i, &SeedPool::default()).expect("generates").program;
            PoolSeed { id: i + 1, program, features: vec![format!("f{i}")] }
        })
        .collect();
    let pool = Arc::new(SeedPool::new(seeds, &HashMap::new()));
    let (mut coverage, mut stopped_early, mut random) = (0, 0, 0);
    for index in 0..40 {
        let made = e.generate(5, index, &pool).expect("generates");
        let all = tcfuzz_checker::check(&made.program, tcfuzz_checker::ModelKind::Ptx, &unbounded).expect("checks");
        let all = all.stats.complete + all.stats.blocked + all.stats.assume_failed;
        let budget = match made.origin {
            Origin::Coverage { .. } => {
                coverage += 1;
                stopped_early += u64::from(all > 2 && all <= max_executions);
                2
            }
            _ => {
                random += 1;
                max_executions
            }
        };
        let r = e.run(&Job { pool: pool.clone(), ..job(5, index, 1) }, &Hooks::default());
        let (expected, too_large) = if all > budget { (budget + 1, 1) } else { (all, 0) };
        assert_eq!((r.stats.executions, r.stats.too_large), (expected, too_large), "program {index}: {} ({all} executions)", made.origin);
    }
    assert!(
        coverage >= 20 && random >= 3 && stopped_early >= 10,
        "{coverage} coverage-guided ({stopped_early} stopped early), {random} random"
    );
    config.budget.coverage_max_executions = 0;
    let refused = Executor::new(config).map(|_| ()).expect_err("a budget of 0 is refused");
    assert_eq!(
        refused.to_string(),
        "config: the per-program budget (`budget.millis`, `budget.max_executions`, `budget.coverage_max_executions`) must be positive"
    );
}

/// A reference that panics on one program and otherwise says `Always`.
struct Flaky;

impl Reference for Flaky {
    fn judge(&self, program: &Program, _: &str) -> Result<(Observation, String), String> {
        if program.name.ends_with("-7") {
            panic!("reference exploded on {}", program.name);
        }
        Ok((Observation::Always, "Observation X Always 1 0".into()))
    }
}

#[test]
fn a_panic_is_a_finding_and_the_job_goes_on() {
    tcfuzz_worker::crash::install_panic_hook();
    let mut config = random_only(&["ptx"]);
    config.oracles.explorer_vs_oracle = 0;
    config.oracles.reference = Some(tcfuzz_worker::ReferenceConfig { command: "unused".into(), every: 1, timeout_ms: 1000 });
    let e = Executor::new(config).unwrap();
    let r = e.run(&job(9, 0, 12), &Hooks { reference: Some(&Flaky), ..Hooks::default() });
    assert_eq!(r.completed, 12);
    let crash: Vec<&Finding> = r.findings.iter().filter(|f| f.kind == Kind::CheckerCrash).collect();
    assert_eq!(crash.len(), 1, "{:?}", r.findings);
    assert_eq!(crash[0].index, 7);
    assert!(
        crash[0].signature.starts_with("worker/tests/executor.rs:")
            && crash[0].signature.ends_with(": reference exploded on random-ptx-N-N"),
        "{}",
        crash[0].signature
    );
    // The reference's `Always` disagrees with the PTX model on most of the other programs.
    let disagree: Vec<&Finding> = r.findings.iter().filter(|f| f.kind == Kind::ReferenceDisagrees).collect();
    assert!(!disagree.is_empty());
    assert!(disagree.iter().all(|f| f.signature.contains(", reference Always [")), "{disagree:?}");
}

/// Runs jobs of `config` until a finding of `kind` turns up (within `limit` programs), then
/// minimizes its program keeping the signature; returns the finding, the minimized program and
/// how many programs it took.
fn find_and_minimize(config: FuzzConfig, kind: Kind, limit: u64) -> (Finding, Program, u64) {
    let e = Executor::new(config).unwrap();
    let mut first = 0;
    while first < limit {
        let r = e.run(&job(11, first, 25), &Hooks::default());
        if let Some(f) = r.findings.iter().find(|f| f.kind == kind) {
            let p = tcfuzz_litmus::parse(&f.program).expect("a finding's program parses");
            let keeps = |q: &Program| e.signature(&f.recheck, q, &Hooks::default()).as_deref() == Some(f.signature.as_str());
            assert!(keeps(&p), "the finding does not show again on its own program: {}", f.signature);
            let m = minimize(&p, Budget::time(Duration::from_secs(120)), keeps).expect("minimizes");
            assert!(!m.exhausted, "the minimizer ran out of budget on {}", f.signature);
            return (f.clone(), m.program, f.index + 1);
        }
        first += 25;
    }
    panic!("no {kind} finding in {limit} programs");
}

#[test]
fn the_planted_oracle_fault_is_found_and_shrunk_to_load_buffering() {
    let config = FuzzConfig { planted_fault: Some(PlantedFault::OracleWithoutLoadBuffering), ..random_only(&["ptx"]) };
    let (f, m, programs) = find_and_minimize(config, Kind::ExplorerVsOracle, 400);
    let size = Size::of(&m);
    eprintln!("planted oracle fault: {} found after {programs} programs, minimized to {size}:\n{}", f.signature, tcfuzz_litmus::print(&m));
    assert!(f.signature.starts_with("ptx: "), "{}", f.signature);
    // Load buffering: two threads, a load and a store each.
    assert_eq!(size.threads, 2, "{}", tcfuzz_litmus::print(&m));
    assert!(size.instructions <= 4, "{}", tcfuzz_litmus::print(&m));
}

#[test]
fn the_planted_lowering_fault_is_found_and_shrunk_to_message_passing() {
    let config = FuzzConfig { planted_fault: Some(PlantedFault::LoweringDropsRelease), ..random_only(&["tileir"]) };
    let (f, m, programs) = find_and_minimize(config, Kind::TileirWeakerThanPtx, 400);
    let size = Size::of(&m);
    eprintln!(
        "planted lowering fault: {} found after {programs} programs, minimized to {size}:\n{}",
        f.signature,
        tcfuzz_litmus::print(&m)
    );
    assert_eq!(size.threads, 2, "{}", tcfuzz_litmus::print(&m));
    assert!(size.instructions <= 4, "{}", tcfuzz_litmus::print(&m));
}

#[test]
fn without_a_planted_fault_the_same_programs_show_nothing() {
    let e = Executor::new(random_only(&["ptx", "tileir"])).unwrap();
    let r = e.run(&job(11, 0, 150), &Hooks::default());
    assert!(r.findings.is_empty(), "{:?}", r.findings.iter().map(|f| (&f.kind, &f.signature, f.index)).collect::<Vec<_>>());
    assert!(r.stats.oracle_runs > 100, "{:?}", r.stats);
}

/// Random PTX programs, every one that the GPU oracle can judge run on the GPU.
fn gpu_executor() -> Executor {
    let mut config = random_only(&["ptx"]);
    config.oracles.explorer_vs_oracle = 0;
    config.oracles.gpu.every = 1;
    Executor::new(config).unwrap()
}

/// A GPU that shows, beside every allowed state, the first allowed state with its first value
/// changed to 999 (a state no generated program allows): what a broken GPU or harness would do.
struct Forbidding {
    runs: std::sync::atomic::AtomicU64,
}

impl tcfuzz_worker::GpuRunner for Forbidding {
    fn run(
        &self,
        _: &Program,
        model: &tcfuzz_gpu::session::Model,
        iterations: u64,
        reruns: u32,
        _: u64,
    ) -> Result<tcfuzz_worker::oracles::gpu::Observed, tcfuzz_worker::oracles::gpu::Skip> {
        self.runs.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let names: Vec<String> = model.states[0].0.iter().map(|(n, _)| n.clone()).collect();
        let mut states: BTreeMap<Vec<i64>, u64> = model.states.iter().map(|(s, _)| (s.iter().map(|(_, v)| *v).collect(), 1)).collect();
        let mut bad: Vec<i64> = model.states[0].0.iter().map(|(_, v)| *v).collect();
        bad[0] = 999;
        states.insert(bad, 1);
        let h = tcfuzz_gpu::run::Histogram { names, states, instances: iterations, ..Default::default() };
        Ok(tcfuzz_worker::oracles::gpu::Observed { first: h.clone(), again: Some(h), reruns })
    }
}

#[test]
fn the_gpu_oracle_reports_forbidden_states_of_race_free_programs_only() {
    let e = gpu_executor();
    let gpu = Forbidding { runs: Default::default() };
    let r = e.run(&job(3, 0, 40), &Hooks { gpu: Some(&gpu), ..Hooks::default() });
    let runs = gpu.runs.load(std::sync::atomic::Ordering::Relaxed);
    let found: Vec<&Finding> = r.findings.iter().filter(|f| f.kind == Kind::GpuForbiddenOutcome).collect();
    // Every run showed a forbidden state; only race-free, exactly judged programs ran.
    assert!(runs > 0 && runs < 40, "{runs} GPU runs of 40 programs");
    assert_eq!(found.len() as u64, runs);
    assert!(found.iter().all(|f| f.signature.contains(" threads [") && f.signature.contains(": state [")), "{found:?}");
    assert!(r.features.contains_key("gpu:ran"));
    assert_eq!((r.stats.gpu.ran, r.stats.gpu.instances, r.stats.gpu.failed), (runs, runs * 100, 0));
    // Without the hook nothing runs on a GPU, whatever the config says.
    let r = e.run(&job(3, 0, 40), &Hooks::default());
    assert!(r.findings.iter().all(|f| f.kind != Kind::GpuForbiddenOutcome));
}

/// A GPU whose first kernel hangs: every later program is refused as `LocalGpu` refuses it.
struct Hanging {
    runs: std::sync::atomic::AtomicU64,
}

impl tcfuzz_worker::GpuRunner for Hanging {
    fn run(
        &self,
        p: &Program,
        _: &tcfuzz_gpu::session::Model,
        _: u64,
        _: u32,
        _: u64,
    ) -> Result<tcfuzz_worker::oracles::gpu::Observed, tcfuzz_worker::oracles::gpu::Skip> {
        use tcfuzz_worker::oracles::gpu::Skip;
        match self.runs.fetch_add(1, std::sync::atomic::Ordering::Relaxed) {
            0 => Err(Skip::Failed(format!("{}: the kernel did not finish within 20s", p.name))),
            _ => Err(Skip::GivenUp),
        }
    }
}

#[test]
fn a_hung_gpu_is_one_failure_and_the_programs_after_it_are_counted_apart() {
    let e = gpu_executor();
    let gpu = Hanging { runs: Default::default() };
    let r = e.run(&job(3, 0, 40), &Hooks { gpu: Some(&gpu), ..Hooks::default() });
    let runs = gpu.runs.load(std::sync::atomic::Ordering::Relaxed);
    assert!(runs > 1, "{runs} GPU runs");
    let g = &r.stats.gpu;
    assert_eq!((g.ran, g.failed, g.given_up), (0, 1, runs - 1));
    assert!(g.first_failure.as_deref().is_some_and(|f| f.ends_with(": the kernel did not finish within 20s")), "{g:?}");
    assert!(r.findings.is_empty());
    assert!(!r.features.contains_key("gpu:ran"));
}

/// A job's seed candidates are the programs that were the first of the job to reach a feature
/// the pool lacks, each with exactly those features: what `tcfuzz fuzz` and a coordinator can
/// still choose as seeds in index order. So a job sends at most one candidate per feature it
/// reached, however many programs it has.
#[test]
fn candidates_are_the_first_programs_of_the_job_to_reach_a_feature_the_pool_lacks() {
    let mut config = FuzzConfig::default();
    config.budget.millis = 600_000;
    let e = Executor::new(config).unwrap();
    // Each program alone: all its features.
    let alone: Vec<BTreeMap<String, u64>> = (0..60).map(|i| e.run(&job(4, i, 1), &Hooks::default()).features).collect();
    let known: HashSet<String> = alone[0].keys().take(5).cloned().collect();
    let r = e.run(&Job { known: Arc::new(known.clone()), ..job(4, 0, 60) }, &Hooks::default());
    let mut reached = known.clone();
    let mut want = Vec::new();
    for (i, features) in alone.iter().enumerate() {
        let new: Vec<String> = features.keys().filter(|f| !reached.contains(*f)).cloned().collect();
        reached.extend(new.iter().cloned());
        if !new.is_empty() {
            want.push((i as u64, new));
        }
    }
    let got: Vec<(u64, Vec<String>)> =
        r.candidates.iter().map(|c| (c.index, c.features.iter().cloned().collect::<BTreeSet<_>>().into_iter().collect())).collect();
    assert_eq!(got, want);
    // Each feature the pool lacks is in one candidate only; fewer candidates than programs that
    // reached some feature the pool lacks (what a job sent before).
    let carried: usize = r.candidates.iter().map(|c| c.features.len()).sum();
    assert_eq!(carried, r.features.keys().filter(|f| !known.contains(*f)).count());
    let any_new = alone.iter().filter(|f| f.keys().any(|k| !known.contains(k))).count();
    assert!(r.candidates.len() < any_new && r.candidates[0].index == 0, "{} candidates, {any_new} before", r.candidates.len());
}
