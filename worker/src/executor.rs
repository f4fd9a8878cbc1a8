//! The job executor (issue 22 item 6): a job — a range of program indices of a campaign — is
//! generated, checked under every model that applies within the per-program budget, judged by
//! the oracles, and returned as results: stats, coverage, and discrepancies with their programs.
//! No I/O of its own: the external checker and the Tile IR compiler come in as [`Hooks`].

use std::collections::{BTreeMap, HashSet};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use tcfuzz_checker::CompiledProgram;
use tcfuzz_checker::{
    CheckError, Interruption, Method, ModelKind, Options, Verdict, check_compiled, check_exact_compiled, check_oracle_compiled,
};
use tcfuzz_generator::generate::{FamilyKind, GenerateError, Generated, Generator, Origin, program_seed};
use tcfuzz_generator::mutate::SeedPool;
use tcfuzz_litmus::{Arch, Comment, Instr, LocationKind, Program, StmtKind};

use crate::config::{FuzzConfig, UnknownModel, parse_model};
use crate::crash;
use crate::finding::{Finding, Kind, Recheck, Side};
use crate::oracles::differential::{self, Compiler};
use crate::oracles::explorer_oracle::{self, Comparison, Settings, one_line};
use crate::oracles::gpu::{self as gpu_oracle, GpuRunner, Skip};
use crate::oracles::reference::{self, Reference};
use crate::oracles::{Found, entry_kinds, list, pattern};
use crate::planted::PlantedFault;

/// A configuration that cannot run.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigError {
    #[error(transparent)]
    Generator(#[from] tcfuzz_generator::generate::ConfigError),
    #[error("config: {0}")]
    Model(#[from] UnknownModel),
    #[error("config: {0}")]
    Invalid(String),
}

/// A range of programs of a campaign, and what coverage-guided generation and seed selection
/// see while it runs: the seed pool and the features known when the job was made.
#[derive(Clone, Debug)]
pub struct Job {
    pub campaign_seed: u64,
    pub first_index: u64,
    pub count: u64,
    pub pool: Arc<SeedPool>,
    pub known: Arc<HashSet<String>>,
}

/// What the executor reaches through its caller.
#[derive(Clone, Copy, Default)]
pub struct Hooks<'a> {
    /// Set by the caller to stop: the program in progress is abandoned (not counted).
    pub cancel: Option<&'a Arc<AtomicBool>>,
    pub reference: Option<&'a dyn Reference>,
    pub compiler: Option<&'a dyn Compiler>,
    /// This worker's GPU, for `gpu-forbidden-outcome`.
    pub gpu: Option<&'a dyn GpuRunner>,
    /// Called with a program's index before it is checked (so that a crash of the whole process
    /// can be blamed on the program it was on, as syzkaller's executor does).
    pub on_program: Option<&'a (dyn Fn(u64) + Sync)>,
}

/// Counts of a job (or of a campaign: [`Stats::add`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Programs generated and judged (including those too large or unsupported).
    pub programs: u64,
    /// Executions explored (complete, blocked, and with a failed assume), every model.
    pub executions: u64,
    /// Programs past the per-program budget.
    pub too_large: u64,
    /// Programs with an instruction the checker does not model.
    pub unsupported: u64,
    /// Programs the generator failed to make (a bug).
    pub generator_errors: u64,
    /// Oracle runs, and those skipped (too large, past the budget, the compiler or the reference
    /// failing).
    pub oracle_runs: u64,
    pub oracle_skipped: u64,
    pub by_family: BTreeMap<FamilyKind, FamilyStats>,
    /// What the GPU oracle did (all zero without a GPU).
    pub gpu: GpuStats,
}

/// Programs the GPU oracle ran, and those it could not.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GpuStats {
    pub ran: u64,
    /// Test instances those runs had (each a final state or unfinished).
    pub instances: u64,
    /// Outside what the harness runs (cannot be emitted, a target this GPU lacks).
    pub unsupported: u64,
    /// The GPU or the emitted kernel failed (a driver error, a hang, a kernel that does not
    /// assemble): each is logged as a warning; the first is kept to show in the summary.
    pub failed: u64,
    pub first_failure: Option<String>,
    /// Not run because the GPU was given up after a hung or faulted kernel (a failure, counted once).
    pub given_up: u64,
}

impl GpuStats {
    pub fn add(&mut self, o: &GpuStats) {
        self.ran += o.ran;
        self.instances += o.instances;
        self.unsupported += o.unsupported;
        self.failed += o.failed;
        self.given_up += o.given_up;
        if self.first_failure.is_none() {
            self.first_failure.clone_from(&o.first_failure);
        }
    }
}

/// Counts per generator family.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FamilyStats {
    pub programs: u64,
    pub executions: u64,
    /// Time spent generating and judging them.
    pub nanos: u64,
    /// Of them, those past the per-program budget (no verdict), and the time they took: what the
    /// budget costs a family.
    pub too_large: u64,
    pub too_large_nanos: u64,
}

impl Stats {
    pub fn add(&mut self, o: &Stats) {
        self.programs += o.programs;
        self.executions += o.executions;
        self.too_large += o.too_large;
        self.unsupported += o.unsupported;
        self.generator_errors += o.generator_errors;
        self.oracle_runs += o.oracle_runs;
        self.oracle_skipped += o.oracle_skipped;
        self.gpu.add(&o.gpu);
        for (f, s) in &o.by_family {
            let e = self.by_family.entry(*f).or_default();
            e.programs += s.programs;
            e.executions += s.executions;
            e.nanos += s.nanos;
            e.too_large += s.too_large;
            e.too_large_nanos += s.too_large_nanos;
        }
    }
}

/// A program that was the first of its job to reach a feature the job did not know: a candidate
/// coverage seed.
///
/// Seeds are chosen in index order, each with the features no earlier program reached (`tcfuzz
/// fuzz`'s `add_seeds`, the coordinator's `add_epoch_seeds`). A feature reached by an earlier
/// program of the same job is taken by the first program of the job that reached it (itself a
/// candidate) or by an even earlier one, never by a later program: so a program that adds nothing
/// over `known` and the job's earlier programs cannot become a seed and is not a candidate, and a
/// candidate carries only the features it was the first of the job to reach. A job thus sends
/// at most one candidate per feature of its coverage, however many programs it has.
///
/// A program whose check took more than `budget.seed_max_executions` executions is a candidate
/// without a program: it takes its features as any candidate does, and no seed is made of it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Candidate {
    pub index: u64,
    /// The features it was the first of the job to reach, of those not in `Job::known`.
    pub features: Vec<String>,
    /// Litmus text; `None` for a program past `budget.seed_max_executions`.
    pub program: Option<String>,
}

/// The features of `features` (a program's) that are neither `known` nor reached by an earlier
/// program of the job (`seen`, the job's coverage so far), each once, in their order.
fn first_reached(features: &[String], known: &HashSet<String>, seen: &BTreeMap<String, u64>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for f in features {
        if !known.contains(f) && !seen.contains_key(f) && !out.contains(f) {
            out.push(f.clone());
        }
    }
    out
}

/// The results of a job.
#[derive(Clone, Debug, Default)]
pub struct JobResult {
    pub first_index: u64,
    /// Programs done: `first_index .. first_index + completed` (all of the job's unless
    /// cancelled).
    pub completed: u64,
    pub cancelled: bool,
    pub stats: Stats,
    /// How many of the job's programs reached each feature.
    pub features: BTreeMap<String, u64>,
    pub candidates: Vec<Candidate>,
    pub findings: Vec<Finding>,
    /// Generator failures (bugs), as messages.
    pub errors: Vec<String>,
}

/// The outcome of checking one program.
enum Checked {
    Cancelled,
    TooLarge {
        executions: u64,
    },
    Unsupported,
    Done {
        executions: u64,
        verdicts: Vec<(ModelKind, Verdict)>,
        found: Vec<Found>,
        oracle_runs: u64,
        oracle_skipped: u64,
        /// The GPU run, if the GPU oracle ran.
        gpu: Option<GpuRun>,
    },
}

/// How the GPU oracle's run of one program went.
enum GpuRun {
    /// It ran: its instances and coverage features.
    Ran {
        instances: u64,
        features: Vec<String>,
    },
    Unsupported,
    Failed(String),
    /// Not run: the GPU was given up after a hung or faulted kernel.
    GivenUp,
}

/// Runs jobs under one configuration.
#[derive(Clone, Debug)]
pub struct Executor {
    config: FuzzConfig,
    generator: Generator,
    models: Vec<ModelKind>,
}

/// What one program's checks may take: until a deadline, and so many executions per model.
#[derive(Clone, Copy)]
struct Bounds {
    deadline: Instant,
    max_executions: u64,
}

/// Salts of the hash that samples programs for each oracle (so that the samples differ).
const EXPLORER_ORACLE: u64 = 0x0E0;
const TILEIR: u64 = 0x711E;
const COMPILER: u64 = 0xC0C0;
const REFERENCE: u64 = 0x4EF;
const GPU: u64 = 0x69B;

impl Executor {
    pub fn new(config: FuzzConfig) -> Result<Executor, ConfigError> {
        let generator = Generator::new(config.generator.clone())?;
        let models = config.models.iter().map(|m| parse_model(m)).collect::<Result<Vec<_>, _>>()?;
        if models.is_empty() {
            return Err(ConfigError::Invalid("no model to check under (`models` is empty)".into()));
        }
        if config.pool_epoch == 0 {
            return Err(ConfigError::Invalid("`pool_epoch` must be positive".into()));
        }
        let b = config.budget;
        if b.millis == 0 || b.max_executions == 0 || b.coverage_max_executions == 0 {
            return Err(ConfigError::Invalid(
                "the per-program budget (`budget.millis`, `budget.max_executions`, `budget.coverage_max_executions`) must be positive"
                    .into(),
            ));
        }
        Ok(Executor { config, generator, models })
    }

    pub fn config(&self) -> &FuzzConfig {
        &self.config
    }

    /// Program `index` of the campaign of `seed` (what a job generates).
    pub fn generate(&self, seed: u64, index: u64, pool: &SeedPool) -> Result<Generated, GenerateError> {
        self.generator.generate(seed, index, pool)
    }

    fn planted(&self, fault: PlantedFault) -> bool {
        self.config.planted_fault == Some(fault)
    }

    /// Runs a job to its end, or until `hooks.cancel` is set.
    pub fn run(&self, job: &Job, hooks: &Hooks<'_>) -> JobResult {
        let mut out = JobResult { first_index: job.first_index, ..JobResult::default() };
        for index in job.first_index..job.first_index.saturating_add(job.count) {
            if hooks.cancel.is_some_and(|c| c.load(Ordering::Relaxed)) {
                out.cancelled = true;
                break;
            }
            if !self.program(job, index, hooks, &mut out) {
                out.cancelled = true;
                break;
            }
            out.completed += 1;
        }
        out
    }

    /// Generates, checks and judges program `index`; false if it was cancelled.
    fn program(&self, job: &Job, index: u64, hooks: &Hooks<'_>, out: &mut JobResult) -> bool {
        if let Some(f) = hooks.on_program {
            f(index);
        }
        let start = Instant::now();
        let made = match self.generator.generate(job.campaign_seed, index, &job.pool) {
            Ok(m) => m,
            Err(e) => {
                out.stats.programs += 1;
                out.stats.generator_errors += 1;
                out.errors.push(e.to_string());
                return true;
            }
        };
        let deadline = start + Duration::from_millis(self.config.budget.millis);
        let sample = |salt, every| Self::sampled(job.campaign_seed, index, salt, every);
        let max_executions = self.max_executions(&made.origin);
        let checked = crash::caught(|| {
            self.check(&made, &sample, program_seed(job.campaign_seed ^ GPU, index), Bounds { deadline, max_executions }, hooks)
        });
        let mut executions = 0;
        let too_large = matches!(checked, Ok(Checked::TooLarge { .. }));
        match checked {
            Ok(Checked::Cancelled) => return false,
            Ok(Checked::TooLarge { executions: e }) => {
                out.stats.too_large += 1;
                executions = e;
            }
            Ok(Checked::Unsupported) => out.stats.unsupported += 1,
            Ok(Checked::Done { executions: e, verdicts, found, oracle_runs, oracle_skipped, gpu }) => {
                executions = e;
                out.stats.oracle_runs += oracle_runs;
                out.stats.oracle_skipped += oracle_skipped;
                let mut features = crate::coverage::features(&made.program, &made.origin, &verdicts);
                match gpu {
                    None => {}
                    Some(GpuRun::Ran { instances, features: f }) => {
                        out.stats.gpu.ran += 1;
                        out.stats.gpu.instances += instances;
                        features.extend(f);
                    }
                    Some(GpuRun::Unsupported) => out.stats.gpu.unsupported += 1,
                    Some(GpuRun::Failed(why)) => {
                        // The program, to reproduce it: a coverage-guided one cannot be made
                        // again without this run's seed pool.
                        tracing::warn!(index, "the GPU oracle failed: {why}\n{}", tcfuzz_litmus::print(&made.program));
                        out.stats.gpu.failed += 1;
                        out.stats.gpu.first_failure.get_or_insert(why);
                    }
                    Some(GpuRun::GivenUp) => out.stats.gpu.given_up += 1,
                }
                let new = first_reached(&features, &job.known, &out.features);
                for f in features {
                    *out.features.entry(f).or_insert(0) += 1;
                }
                if !new.is_empty() {
                    let seedable = executions <= self.config.budget.seed_max_executions;
                    let program = seedable.then(|| tcfuzz_litmus::print(&made.program));
                    out.candidates.push(Candidate { index, features: new, program });
                }
                for f in found {
                    out.findings.push(self.finding(&made, job.campaign_seed, index, f));
                }
            }
            Err(payload) => {
                let f = crash_found(&crash::payload_message(payload.as_ref()));
                out.findings.push(self.finding(&made, job.campaign_seed, index, f));
            }
        }
        out.stats.programs += 1;
        out.stats.executions += executions;
        let fam = out.stats.by_family.entry(made.origin.family()).or_default();
        let nanos = start.elapsed().as_nanos() as u64;
        fam.programs += 1;
        fam.executions += executions;
        fam.nanos += nanos;
        if too_large {
            fam.too_large += 1;
            fam.too_large_nanos += nanos;
        }
        true
    }

    fn finding(&self, made: &Generated, seed: u64, index: u64, f: Found) -> Finding {
        let mut p = made.program.clone();
        p.comments = vec![
            Comment::header(format!(" tcfuzz fuzz: program {index} of campaign seed {seed}: {}", one_line(&made.origin.to_string()))),
            Comment::header(format!(" {}: {}", f.kind, one_line(&f.summary))),
        ];
        Finding {
            kind: f.kind,
            signature: f.signature,
            index,
            program: tcfuzz_litmus::print(&p),
            sides: f.sides,
            summary: one_line(&f.summary),
            recheck: f.recheck,
        }
    }

    /// The models `made` is checked under: those of the configuration that apply to it.
    fn models_for(&self, made: &Generated) -> Vec<ModelKind> {
        let p = &made.program;
        let applicable: &[ModelKind] = if p.arch == Arch::TileIr {
            &[ModelKind::TileIr]
        } else if matches!(made.origin, Origin::Pattern { .. } | Origin::Mutant { .. }) || uses_tensor_memory(p) {
            &[ModelKind::Ptx]
        } else {
            &[ModelKind::Sc, ModelKind::Ptx]
        };
        applicable.iter().copied().filter(|m| self.models.contains(m)).collect()
    }

    /// The execution budget of a program made as `origin` (`budget.coverage_max_executions` for
    /// a coverage-guided one).
    fn max_executions(&self, origin: &Origin) -> u64 {
        let b = &self.config.budget;
        match origin {
            Origin::Coverage { .. } => b.max_executions.min(b.coverage_max_executions),
            _ => b.max_executions,
        }
    }

    fn options(&self, bounds: Bounds, hooks: &Hooks<'_>) -> Options {
        Options {
            loop_bound: self.config.budget.loop_bound,
            max_executions: bounds.max_executions,
            oracle_limit: self.config.oracles.oracle_limit,
            witnesses: false,
            deadline: Some(bounds.deadline),
            cancel: hooks.cancel.cloned(),
            ..Options::default()
        }
    }

    /// Whether program `index` of campaign `seed` is in the sample of one program in `every`.
    fn sampled(seed: u64, index: u64, salt: u64, every: u32) -> bool {
        every > 0 && program_seed(seed ^ salt, index).is_multiple_of(u64::from(every))
    }

    /// Checks `made` under its models and runs the oracles `sample(salt, every)` selects.
    /// `gpu_seed` fixes the GPU harness's choices.
    fn check(&self, made: &Generated, sample: &dyn Fn(u64, u32) -> bool, gpu_seed: u64, bounds: Bounds, hooks: &Hooks<'_>) -> Checked {
        let p = &made.program;
        let compiled = match CompiledProgram::compile(p) {
            Ok(c) => c,
            Err(CheckError::TooLarge(_)) => return Checked::TooLarge { executions: 0 },
            Err(CheckError::Unsupported { .. }) => return Checked::Unsupported,
            Err(e) => return rejected(&e),
        };
        let options = self.options(bounds, hooks);
        // The spec's guarantees about patterns are exact: where the explorer's verdict carries a
        // caveat, the oracle judges them.
        let exact = matches!(made.origin, Origin::Pattern { .. } | Origin::Mutant { .. });
        let oracles = &self.config.oracles;
        let evo = sample(EXPLORER_ORACLE, oracles.explorer_vs_oracle).then(|| Settings {
            base: Options { max_races: 10_000, ..options.clone() },
            planted_oracle_without_porf_cycles: self.planted(PlantedFault::OracleWithoutLoadBuffering),
        });
        // A program the explorer-vs-oracle comparison samples is explored once, under the
        // comparison's options, for its verdict and for the comparison (an exact check's verdict
        // is the explorer's where it had no caveat; the oracle's otherwise, and then the program
        // is explored again for the comparison).
        let check_options = match &evo {
            Some(settings) => explorer_oracle::explorer_options(settings),
            None => options.clone(),
        };
        let mut executions = 0;
        let mut verdicts = Vec::new();
        let models = self.models_for(made);
        // A program has at least as many executions under PTX as under SC (every SC-consistent
        // execution is PTX-consistent), so the PTX check runs first: a program past the budget
        // is most often past it there, and then it is not checked under SC at all.
        let mut order = models.clone();
        order.sort_by_key(|m| *m != ModelKind::Ptx);
        for model in order {
            let r = if exact {
                check_exact_compiled(&compiled, model, &check_options)
            } else {
                check_compiled(&compiled, model, &check_options)
            };
            match r {
                Ok(v) => {
                    executions += v.stats.complete + v.stats.blocked + v.stats.assume_failed;
                    verdicts.push((model, v));
                }
                Err(CheckError::TooLarge(_)) => return Checked::TooLarge { executions },
                Err(CheckError::Interrupted { cause: Interruption::Cancelled, .. }) => return Checked::Cancelled,
                // Past the deadline or the execution budget: what it explored until it stopped.
                Err(CheckError::Interrupted { partial, .. } | CheckError::TooManyExecutions { partial, .. }) => {
                    return Checked::TooLarge { executions: executions + partial.complete + partial.blocked + partial.assume_failed };
                }
                Err(CheckError::Unsupported { .. }) => return Checked::Unsupported,
                Err(e) => return rejected(&e),
            }
        }
        verdicts.sort_by_key(|(m, _)| models.iter().position(|x| x == m));
        let mut found = Vec::new();
        let (mut runs, mut skipped) = (0, 0);
        if let Some((model, v)) = verdicts.first() {
            found.extend(pattern::judge(&made.origin, *model, v));
        }
        if let Some(settings) = &evo {
            for (model, verdict) in &verdicts {
                runs += 1;
                let comparison = if verdict.method == Method::Explorer {
                    explorer_oracle::compare_verdict(&compiled, *model, settings, verdict)
                } else {
                    explorer_oracle::compare_with(&compiled, *model, settings)
                };
                match comparison {
                    Comparison::Disagree(d) => found.push(explorer_oracle_found(p, &compiled, *model, &d, settings)),
                    Comparison::Skipped(_) => skipped += 1,
                    _ => {}
                }
            }
            // The races a check under `options` keeps (the smallest ones, in order), so that a
            // program's coverage does not depend on whether it was sampled.
            for (_, v) in &mut verdicts {
                v.races.truncate(options.max_races);
            }
        }
        if hooks.cancel.is_some_and(|c| c.load(Ordering::Relaxed)) {
            return Checked::Cancelled;
        }
        if p.arch == Arch::TileIr && sample(TILEIR, oracles.tileir_weaker_than_ptx) {
            runs += 1;
            match differential::tileir_weaker(p, &options, self.planted(PlantedFault::LoweringDropsRelease)) {
                Ok(f) => found.extend(f),
                Err(CheckError::Interrupted { cause: Interruption::Cancelled, .. }) => return Checked::Cancelled,
                Err(_) => skipped += 1,
            }
        }
        if let Some(compiler) = hooks.compiler
            && p.arch == Arch::TileIr
            && sample(COMPILER, oracles.compiler_lowering)
        {
            runs += 1;
            match differential::compiler_lowering(p, &options, compiler) {
                Ok(Ok(f)) => found.extend(f),
                Ok(Err(CheckError::Interrupted { cause: Interruption::Cancelled, .. })) => return Checked::Cancelled,
                Ok(Err(_)) | Err(_) => skipped += 1,
            }
        }
        if let (Some(r), Some(every)) = (hooks.reference, oracles.reference.as_ref().map(|r| r.every))
            && p.arch == Arch::Ptx
            && sample(REFERENCE, every)
            && let Some((_, ours)) = verdicts.iter().find(|(m, _)| *m == ModelKind::Ptx)
        {
            runs += 1;
            match r.judge(p, &tcfuzz_litmus::print(p)) {
                Ok((theirs, output)) => found.extend(reference::judge(p, ours, theirs, &output)),
                Err(_) => skipped += 1,
            }
        }
        let mut gpu_run = None;
        if hooks.gpu.is_some() && hooks.cancel.is_some_and(|c| c.load(Ordering::Relaxed)) {
            // A stop waits for the program in progress; its GPU run would only delay it.
            return Checked::Cancelled;
        }
        // A Tile IR program runs as NVIDIA's tileiras compiles it, judged by the Tile IR model.
        let gpu_model = if p.arch == Arch::TileIr { ModelKind::TileIr } else { ModelKind::Ptx };
        if let Some(gpu) = hooks.gpu
            && sample(GPU, oracles.gpu.every)
            && let Some((_, v)) = verdicts.iter().find(|(m, _)| *m == gpu_model)
            && gpu_oracle::judgeable(v)
        {
            runs += 1;
            let model = gpu_oracle::model_of(v);
            match gpu.run(p, &model, oracles.gpu.iterations, oracles.gpu.confirm, gpu_seed) {
                Ok(o) => {
                    let (f, features) = gpu_oracle::decide(p, &model, &o);
                    found.extend(f);
                    gpu_run = Some(GpuRun::Ran { instances: o.first.instances, features });
                }
                Err(Skip::Unsupported(_)) => {
                    skipped += 1;
                    gpu_run = Some(GpuRun::Unsupported);
                }
                Err(Skip::Failed(why)) => {
                    skipped += 1;
                    gpu_run = Some(GpuRun::Failed(why));
                }
                Err(Skip::GivenUp) => {
                    skipped += 1;
                    gpu_run = Some(GpuRun::GivenUp);
                }
            }
        }
        Checked::Done { executions, verdicts, found, oracle_runs: runs, oracle_skipped: skipped, gpu: gpu_run }
    }

    /// The signature `recheck`'s kind of discrepancy has on `program`, if it has one: the
    /// minimizer keeps a candidate when this equals the original finding's signature.
    pub fn signature(&self, recheck: &Recheck, program: &Program, hooks: &Hooks<'_>) -> Option<String> {
        // The full budget whatever made the program: the minimizer shrinks what a check found.
        let bounds = Bounds {
            deadline: Instant::now() + Duration::from_millis(self.config.budget.millis),
            max_executions: self.config.budget.max_executions,
        };
        let options = self.options(bounds, hooks);
        let run = || -> Option<String> {
            match recheck.kind {
                Kind::ExplorerVsOracle => {
                    let compiled = CompiledProgram::compile(program).ok()?;
                    let settings = Settings {
                        base: Options { max_races: 10_000, ..options.clone() },
                        planted_oracle_without_porf_cycles: self.planted(PlantedFault::OracleWithoutLoadBuffering),
                    };
                    let model = recheck.model?;
                    match explorer_oracle::compare_with(&compiled, model, &settings) {
                        Comparison::Disagree(d) => Some(explorer_oracle_signature(program, model, &d)),
                        _ => None,
                    }
                }
                Kind::TileirWeakerThanPtx => {
                    differential::tileir_weaker(program, &options, self.planted(PlantedFault::LoweringDropsRelease))
                        .ok()?
                        .map(|f| f.signature)
                }
                Kind::CompilerLowering => {
                    differential::compiler_lowering(program, &options, hooks.compiler?).ok()?.ok()?.map(|f| f.signature)
                }
                Kind::PatternBroken => {
                    let v = tcfuzz_checker::check_exact(program, recheck.model?, &options).ok()?;
                    pattern::resign(recheck.pattern?.name(), &v, recheck.never)
                }
                Kind::SyncRedundant => None,
                Kind::ReferenceDisagrees => {
                    let ours = tcfuzz_checker::check(program, ModelKind::Ptx, &options).ok()?;
                    let (theirs, _) = hooks.reference?.judge(program, &tcfuzz_litmus::print(program)).ok()?;
                    (ours.condition.observation != theirs).then(|| reference::signature(program, ours.condition.observation, theirs))
                }
                Kind::CheckerCrash => None,
                // Not minimized (Recheck::minimizable).
                Kind::GpuForbiddenOutcome => None,
            }
        };
        if recheck.kind == Kind::CheckerCrash {
            // The crash is the property: run what the executor runs, and keep the panic.
            let made = Generated { program: program.clone(), origin: Origin::Coverage { seeds: Vec::new(), edits: Vec::new() } };
            let every_oracle = |_, every: u32| every > 0;
            return match crash::caught(|| self.check(&made, &every_oracle, 0, bounds, hooks)) {
                Err(payload) => Some(crash_found(&crash::payload_message(payload.as_ref())).signature),
                Ok(Checked::Done { found, .. }) => found.into_iter().find(|f| f.kind == Kind::CheckerCrash).map(|f| f.signature),
                Ok(_) => None,
            };
        }
        // A panic on a candidate is not the property (it is a crash of its own).
        crash::caught(run).ok().flatten()
    }
}

fn uses_tensor_memory(p: &Program) -> bool {
    p.locations.iter().any(|l| matches!(l.kind, LocationKind::Tmem { .. }))
        || p.threads.iter().flat_map(|t| &t.body).any(|s| matches!(s.kind, StmtKind::Instr(Instr::Tcgen05(_))))
}

/// A valid generated program the checker refuses as malformed: the checker is wrong about it.
fn rejected(e: &CheckError) -> Checked {
    let message = format!("the checker rejects a valid program: {e}");
    Checked::Done {
        executions: 0,
        verdicts: Vec::new(),
        found: vec![Found {
            kind: Kind::CheckerCrash,
            signature: format!("rejected: {}", crash::normalize(&e.to_string())),
            summary: message.clone(),
            sides: [
                Side { name: "checker".into(), verdict: message },
                Side { name: "litmus".into(), verdict: "the program parses and validates".into() },
            ],
            recheck: Recheck { kind: Kind::CheckerCrash, model: None, pattern: None, never: false },
        }],
        oracle_runs: 0,
        oracle_skipped: 0,
        gpu: None,
    }
}

fn crash_found(message: &str) -> Found {
    Found {
        kind: Kind::CheckerCrash,
        signature: crash::signature(message),
        summary: format!("the checker panicked: {}", one_line(message)),
        sides: [
            Side { name: "checker".into(), verdict: format!("panicked: {message}") },
            Side { name: "litmus".into(), verdict: "the program parses and validates".into() },
        ],
        recheck: Recheck { kind: Kind::CheckerCrash, model: None, pattern: None, never: false },
    }
}

pub(crate) fn explorer_oracle_signature(p: &Program, model: ModelKind, d: &explorer_oracle::Disagreement) -> String {
    let classes: Vec<&str> = d.classes.iter().map(String::as_str).collect();
    let kinds = entry_kinds(p, &d.entries);
    if kinds.is_empty() {
        format!("{}: {}", model.name(), classes.join(", "))
    } else {
        format!("{}: {} {}", model.name(), classes.join(", "), list(&kinds))
    }
}

fn explorer_oracle_found(
    p: &Program,
    compiled: &CompiledProgram,
    model: ModelKind,
    d: &explorer_oracle::Disagreement,
    settings: &Settings,
) -> Found {
    // Both sides' verdicts, for the record (the comparison kept only their differences).
    let side = |r: Result<Verdict, CheckError>| r.map_or_else(|e| format!("error: {e}"), |v| v.to_string());
    let explorer = side(check_compiled(compiled, model, &settings.base));
    let restricted = Options { exclude_porf_cycles: settings.planted_oracle_without_porf_cycles, ..settings.base.clone() };
    let oracle = side(check_oracle_compiled(compiled, model, &restricted));
    Found {
        kind: Kind::ExplorerVsOracle,
        signature: explorer_oracle_signature(p, model, d),
        summary: format!("under {}: {}", model.name(), d.differences.first().cloned().unwrap_or_default()),
        sides: [
            Side { name: "explorer".into(), verdict: format!("{explorer}Differences:\n{}\n", d.differences.join("\n")) },
            Side { name: "oracle".into(), verdict: format!("{oracle}({})\n", d.oracle) },
        ],
        recheck: Recheck { kind: Kind::ExplorerVsOracle, model: Some(model), pattern: None, never: false },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(xs: &[&str]) -> Vec<String> {
        xs.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn a_candidate_carries_only_what_neither_the_pool_nor_an_earlier_program_of_the_job_reached() {
        let known: HashSet<String> = strings(&["op:ld", "op:st"]).into_iter().collect();
        let mut seen = BTreeMap::new();
        // The first program: everything the pool lacks.
        assert_eq!(first_reached(&strings(&["op:ld", "pair:a/b", "ptx:hang"]), &known, &seen), ["pair:a/b", "ptx:hang"]);
        seen.extend([("op:ld".to_string(), 1), ("pair:a/b".to_string(), 1), ("ptx:hang".to_string(), 1)]);
        // A later one that adds nothing over the pool and the job's earlier programs is no
        // candidate; one that adds something carries only that, each feature once.
        assert!(first_reached(&strings(&["op:st", "ptx:hang", "pair:a/b"]), &known, &seen).is_empty());
        assert_eq!(first_reached(&strings(&["ptx:hang", "weak-outcome", "weak-outcome"]), &known, &seen), ["weak-outcome"]);
    }
}
