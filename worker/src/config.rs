//! What a campaign runs with besides its seed: the generator configuration, the models, the
//! per-program budget and the oracles. Read from JSON (`tcfuzz fuzz --config FILE`); every key
//! has a default, unknown keys are refused.

use serde::{Deserialize, Serialize};
use tcfuzz_checker::ModelKind;
use tcfuzz_generator::generate::GeneratorConfig;

use crate::planted::PlantedFault;

/// The configuration of a campaign's jobs.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct FuzzConfig {
    pub generator: GeneratorConfig,
    /// The models to check under: `sc`, `ptx`, `tileir`. Each program is checked under those of
    /// them that apply to it: Tile IR programs under `tileir`; PTX programs with Tensor Memory
    /// under `ptx`; other PTX programs under `sc` and `ptx` (pattern programs under `ptx` only:
    /// the spec's guarantees are PTX's).
    pub models: Vec<String>,
    pub budget: ProgramBudget,
    pub oracles: OracleConfig,
    /// Programs per epoch of the seed pool: the jobs of epoch k (programs `k * pool_epoch ..`)
    /// see the seeds found before it, chosen in index order, so that the programs do not depend
    /// on how many workers ran them (the caller that builds [`crate::Job`]s keeps to this).
    pub pool_epoch: u64,
    /// A deliberately wrong rule, for testing the fuzzer itself (never for a real campaign).
    pub planted_fault: Option<PlantedFault>,
}

impl Default for FuzzConfig {
    fn default() -> Self {
        FuzzConfig {
            generator: GeneratorConfig::default(),
            models: vec!["sc".into(), "ptx".into(), "tileir".into()],
            budget: ProgramBudget::default(),
            oracles: OracleConfig::default(),
            pool_epoch: 1024,
            planted_fault: None,
        }
    }
}

/// How much checking one program may take. A program past either bound is counted as too large
/// and skipped: it never stalls a job. The execution bound is the one meant to bite (it gives
/// the same answer on every machine, so a campaign's coverage and seeds do too); the clock is a
/// safety net.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ProgramBudget {
    /// Executions the explorer may visit per model. The defaults (5,000 here, 1,000 for
    /// coverage-guided programs) are where a minute of `tcfuzz fuzz -j 1` reaches the most
    /// features: at seed 11, 1,745 features and 39,660 programs against 1,434 and 19,068 with
    /// 20,000 and 5,000, which spent half the time on the 2 % of programs past them (and reach
    /// 4 % more features per program, not per second).
    pub max_executions: u64,
    /// Executions the explorer may visit per model on a coverage-guided program (a mutated
    /// seed), when fewer than `max_executions`. An edit can make a seed explode — a Tile IR
    /// tile operation is one event per element, so one inserted `atom` on a tile of 4 adds 8
    /// events — and such mutants took most of a campaign's time to give few features first.
    pub coverage_max_executions: u64,
    /// Executions (all models together) past which a program makes no coverage seed: it still
    /// takes the features it is the first to reach, so that no later program becomes a seed for
    /// them, but it is not mutated. Mutants of a seed near the budget are mostly past it: with
    /// 100, `tcfuzz fuzz -j 1` at seeds 5, 7 and 11 checked 23–29 % more programs per second and
    /// reached 6–12 % more features in 30,000 programs than with no such bound (at seeds 7 and
    /// 11, 20,000 programs: 50 and 100 were faster than 250 and 500 and reached more features;
    /// 60,000 programs at seed 7: 2,021, 2,035 and 1,987 features with 50, 100 and 250). 0: no
    /// program becomes a seed.
    pub seed_max_executions: u64,
    /// Wall-clock milliseconds for everything done on one program (every model, every oracle).
    pub millis: u64,
    /// Backward jumps a thread may take in one execution.
    pub loop_bound: u32,
}

impl Default for ProgramBudget {
    fn default() -> Self {
        ProgramBudget { max_executions: 5_000, coverage_max_executions: 1_000, seed_max_executions: 100, millis: 10_000, loop_bound: 1 }
    }
}

/// Which oracles run, and on how many programs: `every: N` runs one on about one program in N
/// (chosen by a hash of the program's index, so the choice is part of the campaign); 0 turns it
/// off.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct OracleConfig {
    /// `explorer-vs-oracle`, under every model the program is checked under.
    pub explorer_vs_oracle: u32,
    /// Candidate graphs the oracle may enumerate before the program is skipped.
    pub oracle_limit: u64,
    /// `tileir-weaker-than-ptx`, on Tile IR programs.
    pub tileir_weaker_than_ptx: u32,
    /// `compiler-lowering`, on Tile IR programs, where `tileiras` is found (it runs as a process:
    /// slow, so rarely).
    pub compiler_lowering: u32,
    /// `reference-disagrees`: an external checker on PTX programs.
    pub reference: Option<ReferenceConfig>,
    /// `gpu-forbidden-outcome`: programs run on this worker's GPU, where it has one.
    pub gpu: GpuConfig,
}

/// The GPU oracle: one program in `every` that the PTX model judges race-free runs `iterations`
/// launches under the tuned stress harness; a forbidden state is re-run `confirm` times as many.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct GpuConfig {
    /// 0: off (the default: `tcfuzz fuzz --gpu` turns it on).
    pub every: u32,
    pub iterations: u64,
    pub confirm: u32,
}

impl Default for GpuConfig {
    fn default() -> Self {
        GpuConfig { every: 0, iterations: 100, confirm: 3 }
    }
}

impl Default for OracleConfig {
    fn default() -> Self {
        OracleConfig {
            explorer_vs_oracle: 8,
            oracle_limit: 20_000,
            tileir_weaker_than_ptx: 4,
            compiler_lowering: 200,
            reference: None,
            gpu: GpuConfig::default(),
        }
    }
}

/// An external reference checker (DESIGN §4 `reference-disagrees`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReferenceConfig {
    /// A shell command; `{file}` is replaced by the path of the program as a litmus file. It
    /// must print a herd7-style line `Observation NAME Never|Sometimes|Always ...`.
    pub command: String,
    #[serde(default = "default_reference_every")]
    pub every: u32,
    #[serde(default = "default_reference_timeout")]
    pub timeout_ms: u64,
}

fn default_reference_every() -> u32 {
    50
}

fn default_reference_timeout() -> u64 {
    10_000
}

/// A model name that is not `sc`, `ptx` or `tileir`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown model `{0}`; known: sc, ptx, tileir")]
pub struct UnknownModel(pub String);

pub fn parse_model(name: &str) -> Result<ModelKind, UnknownModel> {
    match name {
        "sc" => Ok(ModelKind::Sc),
        "ptx" => Ok(ModelKind::Ptx),
        "tileir" => Ok(ModelKind::TileIr),
        _ => Err(UnknownModel(name.to_string())),
    }
}
