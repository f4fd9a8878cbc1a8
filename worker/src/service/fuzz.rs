//! [`FuzzRunner`]: the worker service's jobs run by the crate's [`Executor`] — the same
//! generation, checking and oracles as `tcfuzz fuzz` — and minimization jobs by the generator's
//! minimizer with [`Executor::signature`] as the predicate ("the same kind with the same
//! signature", DESIGN §7).
//!
//! A campaign's configuration is `tcfuzz fuzz --config`'s JSON; the job's per-program budget
//! replaces its `budget.millis` (the coordinator's campaign says how long a program may take).
//! Executors are prepared once per campaign and kept for the next jobs.
//!
//! Coverage: a job is generated with the seed pool of its epoch, which the network loop fetched
//! from the coordinator (a job of a campaign without epochs, with an empty pool); the parsed pool
//! is kept per campaign until the next epoch's arrives. Seed candidates: a job of an epoch sends
//! the programs that were the first of the job to reach a feature none of the epoch's pool seeds
//! has (features the corpus knew when the epoch began, or fewer), each with those features
//! ([`crate::Candidate`]), so that the coordinator sees the first program to reach each feature
//! first reached in the epoch and can choose the epoch's seeds in index order, as `tcfuzz fuzz`
//! does, whichever worker ran which job. Nor features this worker's own jobs of an earlier epoch
//! reached ([`Reached`]): every program of an epoch is recorded before the next epoch's jobs
//! exist, so those are in the corpus when the epoch begins, and no program of it can be the first
//! to reach them. (Without that, a feature first reached by a program past
//! `budget.seed_max_executions`, which no seed carries, came back as a candidate from every later
//! job: 12,590 candidates and 6.0 MB of programs where 1,663 and 1.1 MB had come before there was
//! such a bound, in `tcfuzz campaign --seed 1 --programs 20000`.) A job without epochs sends only
//! programs reaching features new to this worker (it remembers those it has seen in the campaign)
//! and to the job's earlier programs; the coordinator keeps those that are new to the corpus.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::ops::Range;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use tcfuzz_generator::minimize::{Budget, Size, minimize};
use tcfuzz_generator::mutate::{PoolSeed, SeedPool};
use tcfuzz_proto::v1::DiscrepancyKind;

use super::work::{Campaign, Discrepancy, JobError, JobRunner, Output, SeedCandidate, Seeds};
use crate::config::ReferenceConfig;
use crate::oracles::differential::Compiler;
use crate::oracles::gpu::GpuRunner;
use crate::oracles::reference::Reference;
use crate::{Executor, FuzzConfig, Hooks, Job, Kind, Recheck};

/// Makes the reference checker a campaign's configuration names (it runs a process: the caller
/// provides it, as `tcfuzz fuzz` does).
pub type ReferenceFactory = Box<dyn Fn(&ReferenceConfig) -> Result<Arc<dyn Reference + Send>, String> + Send + Sync>;

/// The protocol's limits on a verdict's and a signature's text (proto/tcfuzz.proto): longer
/// ones are cut, the same way every time, so that a report is never refused for them.
const MAX_VERDICT: usize = 64 << 10;
const MAX_SIGNATURE: usize = 1024;

/// `text` cut to at most `max` bytes, on a character boundary, saying so.
fn fit(mut text: String, max: usize) -> String {
    const CUT: &str = " [cut]";
    if text.len() > max {
        let mut end = max - CUT.len();
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        text.truncate(end);
        text.push_str(CUT);
    }
    text
}

/// Campaigns whose executors are kept (a worker serves a few campaigns at a time).
const PREPARED_CAMPAIGNS: usize = 16;

/// One campaign's executor and what this worker has seen of it.
struct Prepared {
    executor: Executor,
    reference: Option<Arc<dyn Reference + Send>>,
    known: Mutex<HashSet<String>>,
    /// The pool of the latest epoch seen, parsed, and its seeds' features.
    pool: Mutex<Option<EpochPool>>,
    /// What this worker's jobs of each epoch reached.
    reached: Mutex<Reached>,
}

/// The features a worker's jobs of a campaign reached, by seed-pool epoch: those of the epochs
/// before a job's are known to the corpus when the job's epoch began (module docs). A job of an
/// epoch that is over (one whose lease another worker took over) adds to the earlier ones: its
/// programs were recorded before the epoch ended. (Not so for a job whose results the coordinator
/// refused for good, whose programs are not counted, nor for features only this worker's GPU
/// reached; a campaign with either already differs from `tcfuzz fuzz`.)
#[derive(Default)]
struct Reached {
    /// Reached in the epochs before `upto`.
    before: HashSet<String>,
    upto: u64,
    by_epoch: BTreeMap<u64, HashSet<String>>,
}

impl Reached {
    fn add<'a>(&mut self, epoch: u64, features: impl Iterator<Item = &'a String>) {
        let set = if epoch < self.upto { &mut self.before } else { self.by_epoch.entry(epoch).or_default() };
        set.extend(features.cloned());
    }

    /// The features reached in the epochs before `epoch`.
    fn before(&mut self, epoch: u64) -> &HashSet<String> {
        let later = self.by_epoch.split_off(&epoch);
        for (_, features) in std::mem::replace(&mut self.by_epoch, later) {
            self.before.extend(features);
        }
        self.upto = self.upto.max(epoch);
        &self.before
    }
}

/// One epoch's pool, parsed, and the features known when it began: its seeds' (all of them) and
/// those this worker's jobs of earlier epochs reached.
#[derive(Clone)]
struct EpochPool {
    epoch: u64,
    pool: Arc<SeedPool>,
    known: Arc<HashSet<String>>,
}

/// What identifies a campaign's executor: its id, seed, configuration and per-program budget.
type CampaignKey = (u64, u64, String, Duration);

/// See the module documentation.
pub struct FuzzRunner {
    compiler: Option<Arc<dyn Compiler + Send>>,
    reference: Option<ReferenceFactory>,
    gpu: Option<WorkerGpu>,
    pool: Arc<SeedPool>,
    prepared: Mutex<HashMap<CampaignKey, Arc<Prepared>>>,
}

/// This worker's GPU and how it runs programs there ([`FuzzRunner::with_gpu`]).
struct WorkerGpu {
    runner: Arc<dyn GpuRunner + Send>,
    iterations: Option<u64>,
}

impl FuzzRunner {
    /// A runner with NVIDIA's Tile IR compiler for `compiler-lowering` (if given) and the
    /// reference checkers `reference` makes for `reference-disagrees` (if given; without it the
    /// oracle is skipped).
    pub fn new(compiler: Option<Arc<dyn Compiler + Send>>, reference: Option<ReferenceFactory>) -> FuzzRunner {
        crate::crash::install_panic_hook();
        FuzzRunner { compiler, reference, gpu: None, pool: Arc::new(SeedPool::default()), prepared: Mutex::new(HashMap::new()) }
    }

    /// The runner with a GPU for `gpu-forbidden-outcome`, as `tcfuzz fuzz --gpu` runs it: the GPU
    /// oracle runs in every campaign, on every program the PTX model judges race-free and exactly
    /// (one in N of them where the campaign's `oracles.gpu.every` says N), with `iterations`
    /// launches per program where given (else the campaign's `oracles.gpu.iterations`). The
    /// programs a job generates do not depend on it, only which oracles judge them.
    pub fn with_gpu(mut self, gpu: Arc<dyn GpuRunner + Send>, iterations: Option<u64>) -> FuzzRunner {
        self.gpu = Some(WorkerGpu { runner: gpu, iterations });
        self
    }

    fn prepare(&self, c: &Campaign) -> Result<Arc<Prepared>, JobError> {
        let key: CampaignKey = (c.id, c.seed, c.config.clone(), c.program_budget);
        let mut prepared = self.prepared.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(p) = prepared.get(&key) {
            return Ok(p.clone());
        }
        let mut config: FuzzConfig = if c.config.trim().is_empty() {
            FuzzConfig::default()
        } else {
            serde_json::from_str(&c.config).map_err(|e| JobError(format!("config:{}:{}: error: {e}", e.line(), e.column())))?
        };
        if !c.program_budget.is_zero() {
            config.budget.millis = c.program_budget.as_millis().min(u128::from(u64::MAX)) as u64;
        }
        if let Some(gpu) = &self.gpu {
            let o = &mut config.oracles.gpu;
            o.every = o.every.max(1);
            o.iterations = gpu.iterations.unwrap_or(o.iterations);
        }
        let reference = match (&config.oracles.reference, &self.reference) {
            (Some(r), Some(make)) => Some(make(r).map_err(|e| JobError(format!("the reference checker: {e}")))?),
            (Some(_), None) => {
                tracing::warn!(campaign = c.id, "reference-disagrees is skipped: this worker runs no reference checker");
                None
            }
            (None, _) => None,
        };
        let executor = Executor::new(config).map_err(|e| JobError(e.to_string()))?;
        if prepared.len() >= PREPARED_CAMPAIGNS {
            prepared.clear();
        }
        let p = Arc::new(Prepared {
            executor,
            reference,
            known: Mutex::new(HashSet::new()),
            pool: Mutex::new(None),
            reached: Mutex::new(Reached::default()),
        });
        prepared.insert(key, p.clone());
        Ok(p)
    }

    /// The generator's pool for `seeds`: parsed once per epoch (seeds that do not parse are left
    /// out, as `tcfuzz fuzz` leaves them out), with its seeds' features; `None` without epochs.
    fn epoch_pool(&self, p: &Prepared, seeds: Option<&Seeds>) -> Option<EpochPool> {
        let seeds = seeds?;
        let mut cached = p.pool.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(e) = &*cached
            && e.epoch == seeds.epoch
        {
            return Some(e.clone());
        }
        let mut known: HashSet<String> = seeds.seeds.iter().flat_map(|s| s.features.iter().map(|f| f.name.clone())).collect();
        known.extend(p.reached.lock().unwrap_or_else(PoisonError::into_inner).before(seeds.epoch).iter().cloned());
        let known = Arc::new(known);
        let mut counts = HashMap::new();
        let mut parsed = Vec::with_capacity(seeds.seeds.len());
        for s in seeds.seeds.iter() {
            match tcfuzz_litmus::parse(&s.program) {
                Ok(program) => {
                    counts.extend(s.features.iter().map(|f| (f.name.clone(), f.count)));
                    parsed.push(PoolSeed { id: s.id, program, features: s.features.iter().map(|f| f.name.clone()).collect() });
                }
                Err(d) => tracing::warn!(seed = s.id, "a coverage seed does not parse; left out of the pool: {}", d.render("seed")),
            }
        }
        let e = EpochPool { epoch: seeds.epoch, pool: Arc::new(SeedPool::new(parsed, &counts)), known };
        *cached = Some(e.clone());
        Some(e)
    }

    fn hooks<'a>(&'a self, p: &'a Prepared) -> Hooks<'a> {
        Hooks {
            cancel: None,
            reference: p.reference.as_deref().map(|r| r as &dyn Reference),
            compiler: self.compiler.as_deref().map(|c| c as &dyn Compiler),
            gpu: self.gpu.as_ref().map(|g| &*g.runner as &dyn GpuRunner),
            on_program: None,
        }
    }
}

/// The proto's name of a kind.
pub(crate) fn kind_to_proto(kind: Kind) -> DiscrepancyKind {
    match kind {
        Kind::GpuForbiddenOutcome => DiscrepancyKind::GpuForbiddenOutcome,
        Kind::TileirWeakerThanPtx => DiscrepancyKind::TileirWeakerThanPtx,
        Kind::CompilerLowering => DiscrepancyKind::CompilerLowering,
        Kind::ExplorerVsOracle => DiscrepancyKind::ExplorerVsOracle,
        Kind::PatternBroken => DiscrepancyKind::PatternBroken,
        Kind::SyncRedundant => DiscrepancyKind::SyncRedundant,
        Kind::ReferenceDisagrees => DiscrepancyKind::ReferenceDisagrees,
        Kind::CheckerCrash => DiscrepancyKind::CheckerCrash,
    }
}

fn kind_from_proto(kind: DiscrepancyKind) -> Option<Kind> {
    Kind::ALL.into_iter().find(|k| kind_to_proto(*k) == kind)
}

impl JobRunner for FuzzRunner {
    fn program(&self, campaign: &Campaign, index: u64, seeds: Option<&Seeds>) -> Result<String, JobError> {
        let p = self.prepare(campaign)?;
        let pool = self.epoch_pool(&p, seeds).map_or_else(|| self.pool.clone(), |e| e.pool);
        let made = p.executor.generate(campaign.seed, index, &pool).map_err(|e| JobError(format!("program {index}: {e}")))?;
        Ok(tcfuzz_litmus::print(&made.program))
    }

    fn run(&self, campaign: &Campaign, range: Range<u64>, seeds: Option<&Seeds>) -> Result<Output, JobError> {
        let p = self.prepare(campaign)?;
        let (pool, known) = match self.epoch_pool(&p, seeds) {
            Some(e) => (e.pool, e.known),
            None => (self.pool.clone(), Arc::new(p.known.lock().unwrap_or_else(PoisonError::into_inner).clone())),
        };
        let job = Job { campaign_seed: campaign.seed, first_index: range.start, count: range.end.saturating_sub(range.start), pool, known };
        let r = p.executor.run(&job, &self.hooks(&p));
        for e in &r.errors {
            tracing::error!(campaign = campaign.id, "[tcfuzz internal bug] the generator failed: {e}");
        }
        match seeds {
            Some(s) => p.reached.lock().unwrap_or_else(PoisonError::into_inner).add(s.epoch, r.features.keys()),
            None => p.known.lock().unwrap_or_else(PoisonError::into_inner).extend(r.features.keys().cloned()),
        }
        Ok(Output {
            programs: r.stats.programs,
            executions: r.stats.executions,
            too_large: r.stats.too_large,
            gpu: r.stats.gpu.clone(),
            findings: r
                .findings
                .into_iter()
                .map(|f| Discrepancy {
                    kind: kind_to_proto(f.kind),
                    signature: fit(f.signature, MAX_SIGNATURE),
                    index: f.index,
                    program: f.program,
                    sides: f.sides.map(|s| (s.name, fit(s.verdict, MAX_VERDICT))),
                })
                .collect(),
            coverage: r.features.into_iter().collect(),
            seeds: r.candidates.into_iter().map(|c| SeedCandidate { index: c.index, features: c.features, program: c.program }).collect(),
        })
    }

    fn minimize(
        &self,
        campaign: &Campaign,
        kind: DiscrepancyKind,
        signature: &str,
        program: &str,
        budget: Duration,
    ) -> Result<Option<String>, JobError> {
        let p = self.prepare(campaign)?;
        // A discrepancy that cannot be minimized is not a failure of the campaign: no program.
        let Some(kind) = kind_from_proto(kind) else { return Ok(None) };
        let Some(recheck) = Recheck::from_signature(kind, signature) else {
            tracing::warn!(%kind, signature, "not minimized: the signature does not have its kind's format");
            return Ok(None);
        };
        if !recheck.minimizable() {
            return Ok(None);
        }
        let original = match tcfuzz_litmus::parse(program) {
            Ok(o) => o,
            Err(d) => {
                tracing::warn!(%kind, signature, "not minimized: the recorded program does not parse: {}", d.render("corpus"));
                return Ok(None);
            }
        };
        let hooks = self.hooks(&p);
        let start = Instant::now();
        let keeps = |c: &tcfuzz_litmus::Program| p.executor.signature(&recheck, c, &hooks).as_deref() == Some(signature);
        let m = match minimize(&original, Budget::time(budget), keeps) {
            Ok(m) => m,
            Err(e) => {
                tracing::info!(%kind, signature, "not minimized: {e}");
                return Ok(None);
            }
        };
        let (from, to) = (Size::of(&original), Size::of(&m.program));
        tracing::info!(%kind, signature, seconds = start.elapsed().as_secs_f64(), exhausted = m.exhausted, "minimized: {from} → {to}");
        let mut out = m.program;
        out.comments =
            vec![tcfuzz_litmus::Comment::header(format!(" minimized by a tcfuzz worker ({from} → {to}), keeping {kind}: {signature}"))];
        Ok(Some(tcfuzz_litmus::print(&out)))
    }
}

#[cfg(test)]
mod tests {
    use tcfuzz_proto::v1;

    use super::*;

    fn campaign(config: &str) -> Campaign {
        Campaign { id: 1, seed: 7, config: config.into(), program_budget: Duration::from_secs(10) }
    }

    #[test]
    fn programs_are_a_function_of_seed_and_index_and_runs_check_them() {
        let r = FuzzRunner::new(None, None);
        let c = campaign("");
        assert_eq!(r.program(&c, 3, None).unwrap(), r.program(&c, 3, None).unwrap());
        assert_ne!(r.program(&c, 3, None).unwrap(), r.program(&c, 4, None).unwrap());
        let out = r.run(&c, 0..8, None).unwrap();
        assert_eq!(out.programs, 8);
        assert!(out.executions >= 8, "{out:?}");
        assert!(!out.coverage.is_empty(), "{out:?}");
        // The features are known to this worker now: the same range has no new candidates.
        assert!(!out.seeds.is_empty());
        assert!(r.run(&c, 0..8, None).unwrap().seeds.is_empty());
    }

    /// A job of an epoch sends no candidate for what this worker's jobs of earlier epochs reached
    /// (in the corpus before the epoch began), and still every one for what they did not.
    #[test]
    fn features_reached_in_an_earlier_epoch_make_no_candidates() {
        let c = campaign(r#"{"generator": {"families": {"random": 1, "pattern": 0, "mutant": 0, "coverage": 0}}}"#);
        let epoch = |n| Seeds { epoch: n, seeds: Arc::new(Vec::new()) };
        let fresh = FuzzRunner::new(None, None).run(&c, 8..16, Some(&epoch(2))).unwrap();
        let r = FuzzRunner::new(None, None);
        let first = r.run(&c, 0..8, Some(&epoch(1))).unwrap();
        assert!(!first.seeds.is_empty());
        // The same epoch again: its own earlier jobs do not count.
        assert_eq!(r.run(&c, 0..8, Some(&epoch(1))).unwrap().seeds, first.seeds);
        let reached: HashSet<&String> = first.coverage.iter().map(|(f, _)| f).collect();
        let later = r.run(&c, 8..16, Some(&epoch(2))).unwrap();
        let expected: Vec<(u64, Vec<String>)> = fresh
            .seeds
            .iter()
            .map(|s| (s.index, s.features.iter().filter(|f| !reached.contains(f)).cloned().collect::<Vec<_>>()))
            .filter(|(_, f)| !f.is_empty())
            .collect();
        let got: Vec<(u64, Vec<String>)> = later.seeds.iter().map(|s| (s.index, s.features.clone())).collect();
        let features = |s: &[(u64, Vec<String>)]| s.iter().map(|(_, f)| f.len()).sum::<usize>();
        assert!(features(&expected) < fresh.seeds.iter().map(|s| s.features.len()).sum(), "nothing of 8..16 was reached by 0..8");
        assert_eq!(got, expected);
    }

    #[test]
    fn the_coverage_family_mutates_the_seeds_of_the_epoch_it_is_given() {
        let r = FuzzRunner::new(None, None);
        let c = campaign(r#"{"generator": {"families": {"random": 0, "pattern": 0, "mutant": 0, "coverage": 1}}}"#);
        // Without a pool the coverage-guided family falls back to a random program.
        assert!(r.program(&c, 0, None).unwrap().starts_with("PTX random-"), "{}", r.program(&c, 0, None).unwrap());
        let seed =
            v1::PoolSeed { id: 1, program: message_passing().into(), features: vec![v1::FeatureCount { name: "op:st".into(), count: 3 }] };
        let seeds = Seeds { epoch: 2, seeds: Arc::new(vec![seed]) };
        let made = r.program(&c, 0, Some(&seeds)).unwrap();
        assert!(made.starts_with("PTX coverage-7-0"), "{made}");
        assert_eq!(made, r.program(&c, 0, Some(&seeds)).unwrap(), "a function of the seeds too");
        let out = r.run(&c, 0..4, Some(&seeds)).unwrap();
        assert_eq!(out.programs, 4);
        // The next epoch's pool replaces the cached one: an empty pool again means random programs.
        let empty = Seeds { epoch: 3, seeds: Arc::new(Vec::new()) };
        assert!(r.program(&c, 0, Some(&empty)).unwrap().starts_with("PTX random-"));
    }

    fn message_passing() -> &'static str {
        "PTX MP\n{\n  x = 0;\n  y = 0;\n}\n P0@cta 0,gpu 0      | P1@cta 0,gpu 0       ;\n st.relaxed.gpu x, 1 | ld.acquire.gpu r0, y ;\n st.release.gpu y, 1 | ld.relaxed.gpu r1, x ;\nexists (P1:r0 == 1 /\\ P1:r1 == 0)\n"
    }

    #[test]
    fn a_bad_config_is_a_job_error_naming_the_key() {
        let r = FuzzRunner::new(None, None);
        let e = r.run(&campaign("{\"modles\": []}"), 0..1, None).unwrap_err();
        assert!(e.0.contains("modles"), "{e}");
        let e = r.run(&campaign("{\"models\": [\"x86\"]}"), 0..1, None).unwrap_err();
        assert!(e.0.contains("unknown model `x86`"), "{e}");
    }

    /// Random PTX programs only, explorer-vs-oracle on each, the oracle planted with a fault
    /// (as `tcfuzz fuzz`'s test of the same fault).
    const PLANTED: &str = r#"{"generator": {"families": {"random": 1, "pattern": 0, "mutant": 0, "coverage": 0}, "random": {"ptx": 1}},
        "oracles": {"explorer_vs_oracle": 1}, "planted_fault": "oracle-without-load-buffering"}"#;

    /// Program 1154 of campaign seed 9 (random PTX, a `cas` whose failure moves the thread's
    /// later stores one index up): its explorer-vs-oracle signature was computed on the program
    /// as generated, every instruction at source position 0:0, where the races of two stores
    /// that take one index in different executions are one race; in the recorded program they
    /// are two, and the signature has one class more. The minimizer found the property false on
    /// the very program it was given. Generated programs are now read back from their text.
    #[test]
    fn a_finding_keeps_its_signature_when_read_back_from_the_corpus() {
        let r = FuzzRunner::new(None, None);
        let c = Campaign { id: 1, seed: 9, config: PLANTED.into(), program_budget: Duration::from_secs(10) };
        let out = r.run(&c, 1154..1155, None).unwrap();
        let f = out.findings.iter().find(|f| f.kind == DiscrepancyKind::ExplorerVsOracle).expect("the planted fault shows");
        assert_eq!(f.signature, "ptx: explorer-only race data read-write, explorer-only race data write-write, explorer-only state [atom]");
        let min = r.minimize(&c, f.kind, &f.signature, &f.program, Duration::from_secs(60)).unwrap().expect("minimized");
        assert!(min.contains(&f.signature), "{min}");
    }

    #[test]
    fn a_planted_fault_is_found_and_minimized_from_its_signature_alone() {
        let r = FuzzRunner::new(None, None);
        let c = campaign(PLANTED);
        let f = (0..16)
            .find_map(|k| {
                r.run(&c, k * 25..k * 25 + 25, None).unwrap().findings.into_iter().find(|f| f.kind == DiscrepancyKind::ExplorerVsOracle)
            })
            .expect("the planted fault is found in 400 programs");
        let min = r.minimize(&c, f.kind, &f.signature, &f.program, Duration::from_secs(120)).unwrap().expect("minimized");
        let (a, b) = (tcfuzz_litmus::parse(&f.program).unwrap(), tcfuzz_litmus::parse(&min).unwrap());
        // Load buffering: two threads, a load and a store each.
        assert_eq!(Size::of(&b).threads, 2, "{min}");
        assert!(Size::of(&b).instructions <= Size::of(&a).instructions, "{min}");
        assert!(min.contains(&f.signature), "{min}");
        // Without the planted fault the program shows nothing: nothing to keep, no program.
        assert_eq!(r.minimize(&campaign(""), f.kind, &f.signature, &f.program, Duration::from_secs(10)).unwrap(), None);
    }

    /// A GPU that shows, beside every allowed state, the first one with its first value changed
    /// to 999 (a state no generated program allows): what a broken GPU or harness would show. No
    /// GPU runs here; the real one (`crate::LocalGpu`) goes through the same hook.
    #[derive(Default)]
    struct Forbidding {
        runs: std::sync::atomic::AtomicU64,
        iterations: std::sync::atomic::AtomicU64,
    }

    impl GpuRunner for Forbidding {
        fn run(
            &self,
            _: &tcfuzz_litmus::Program,
            model: &tcfuzz_gpu::session::Model,
            iterations: u64,
            reruns: u32,
            _: u64,
        ) -> Result<crate::oracles::gpu::Observed, crate::oracles::gpu::Skip> {
            use std::sync::atomic::Ordering::Relaxed;
            self.runs.fetch_add(1, Relaxed);
            self.iterations.store(iterations, Relaxed);
            let names = model.states[0].0.iter().map(|(n, _)| n.clone()).collect();
            let mut states: std::collections::BTreeMap<Vec<i64>, u64> =
                model.states.iter().map(|(s, _)| (s.iter().map(|(_, v)| *v).collect(), 1)).collect();
            let mut bad: Vec<i64> = model.states[0].0.iter().map(|(_, v)| *v).collect();
            bad[0] = 999;
            states.insert(bad, 1);
            let h = tcfuzz_gpu::run::Histogram { names, states, instances: iterations, ..Default::default() };
            Ok(crate::oracles::gpu::Observed { first: h.clone(), again: Some(h), reruns })
        }
    }

    #[test]
    fn a_worker_with_a_gpu_judges_every_campaign_on_it() {
        use std::sync::atomic::Ordering::Relaxed;
        // The campaign says nothing of the GPU (its oracle is off by default).
        let c = campaign(
            r#"{"generator": {"families": {"random": 1, "pattern": 0, "mutant": 0, "coverage": 0}, "random": {"ptx": 1}},
                "oracles": {"explorer_vs_oracle": 0}}"#,
        );
        let gpu = Arc::new(Forbidding::default());
        let r = FuzzRunner::new(None, None).with_gpu(gpu.clone(), Some(7));
        let out = r.run(&c, 0..40, None).unwrap();
        let runs = gpu.runs.load(Relaxed);
        let found = out.findings.iter().filter(|f| f.kind == DiscrepancyKind::GpuForbiddenOutcome).count() as u64;
        // Only race-free, exactly judged programs ran, each showing its forbidden state once.
        assert!(runs > 0 && runs < 40, "{runs} GPU runs of 40 programs");
        assert_eq!(found, runs);
        assert_eq!(gpu.iterations.load(Relaxed), 7);
        assert!(out.coverage.iter().any(|(f, _)| f == "gpu:ran"), "{:?}", out.coverage);
        // The counts reach the job's result (and the coordinator's campaign totals).
        assert_eq!((out.gpu.ran, out.gpu.instances, out.gpu.failed), (runs, 7 * runs, 0));
        // A worker without a GPU checks the same programs and runs nothing on one.
        let plain = FuzzRunner::new(None, None).run(&c, 0..40, None).unwrap();
        assert_eq!((plain.programs, plain.executions), (out.programs, out.executions));
        assert!(plain.findings.iter().all(|f| f.kind != DiscrepancyKind::GpuForbiddenOutcome));
        assert_eq!(plain.gpu, crate::GpuStats::default());
        // A GPU finding is not minimized (it would need the GPU again): no program, no error.
        let f = out.findings.iter().find(|f| f.kind == DiscrepancyKind::GpuForbiddenOutcome).unwrap();
        assert_eq!(r.minimize(&c, f.kind, &f.signature, &f.program, Duration::from_secs(5)).unwrap(), None);
    }

    #[test]
    fn long_texts_are_cut_to_the_protocol_limits() {
        assert_eq!(fit("short".into(), 10), "short");
        let cut = fit("é".repeat(20), 16);
        assert!(cut.len() <= 16 && cut.ends_with(" [cut]"), "{cut}");
    }

    #[test]
    fn rechecks_come_back_from_signatures() {
        let r = Recheck::from_signature(Kind::ExplorerVsOracle, "ptx: missing-states").unwrap();
        assert_eq!(r.model, Some(tcfuzz_checker::ModelKind::Ptx));
        let r = Recheck::from_signature(Kind::PatternBroken, "message-passing: data race; outcome sometimes").unwrap();
        assert!(r.never);
        assert_eq!(r.pattern.map(|p| p.name()), Some("message-passing"));
        assert_eq!(Recheck::from_signature(Kind::PatternBroken, "no-such-pattern: hang"), None);
        assert_eq!(Recheck::from_signature(Kind::ExplorerVsOracle, "x86: missing"), None);
    }
}
