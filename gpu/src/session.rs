//! One litmus program on a GPU, as `tcfuzz gpu run`, `tcfuzz gpu bench` and the worker's GPU
//! oracle use it (DESIGN §4 `gpu-forbidden-outcome`, §8):
//!
//! ```text
//! prepare(name, program, Model) -> Prepared      emit and assemble; refuse what would hang
//! Session::new(&device, &prepared)               load it
//! session.execute(mode, launches, rng) -> Observation
//! judge(&prepared.model, &observation.histogram) -> Judgement     the states the model forbids
//! session.confirm(&observation, reruns, launches, rng)            re-run before reporting
//! ```
//!
//! The model's verdict comes in as plain data ([`Model`]): this crate does not link the checker
//! (the CLI and the worker do, and convert).

use std::time::{Duration, Instant};

use tcfuzz_litmus::{Instr, Program, Prop, Quantifier, StmtKind, Term, ThreadKind, Value};

use crate::run::compare::{Comparison, compare};
use crate::run::tile::{LoadedTile, TileKernel};
use crate::run::{Device, Histogram, Loaded, Rng, RunError, StressOverrides, StressParams};
use crate::{EmitError, Kernel, Target, Toolchain, emit_ptx, tileir};

/// What the model says about a program, as far as a GPU run needs it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Model {
    /// The allowed final states, each as `(name, value)` pairs, with the number of executions
    /// ending in it.
    pub states: Vec<(Vec<(String, i64)>, u64)>,
    /// Races the model found: a racy program's behaviour is undefined (PTX ISA §8.10, Tile IR
    /// §7.4), so no state a GPU shows is a discrepancy.
    pub races: usize,
    /// Threads that may wait forever: such a kernel would hold the GPU.
    pub hung_threads: Vec<String>,
    /// The rules the program breaks (`rule by thread`): its behaviour is undefined, and on an
    /// H200 an over-arrived mbarrier faulted the kernel and with it the context.
    pub misuse: Vec<String>,
}

impl Model {
    pub fn racy(&self) -> bool {
        self.races > 0
    }
}

/// How a run stresses the GPU.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StressMode {
    /// Instances side by side, nothing else running.
    Off,
    /// GPUHarbor's stress defaults: stressing CTAs, shuffled instances, spin barrier, spread and
    /// permuted locations.
    On,
    /// GPUHarbor's tuning: the stress defaults and random configurations, each for a slice of
    /// the launches; the one with the highest rate of the condition's outcome runs the rest.
    Tune,
    /// The stress defaults with some parameters replaced (an experiment, or a tuned
    /// configuration run again).
    Fixed(StressOverrides),
}

/// A program ready to run: its kernel, and the model's verdict.
pub struct Prepared {
    pub program: Program,
    pub kernel: Runnable,
    pub model: Model,
}

/// A kernel ready to load.
pub enum Runnable {
    /// The harness's PTX kernel; its cubin is `None` where `ptxas` is not installed (the driver
    /// then compiles the PTX).
    Ptx { kernel: Kernel, cubin: Option<Vec<u8>> },
    /// NVIDIA's cubin of a Tile IR program (`tileiras`), run with the part of the stress harness
    /// that the host decides (`run::tile`).
    Tile(TileKernel),
}

impl Prepared {
    /// What the kernel was built for: `sm_90a`, `sm_100a`, or `tileir sm_90`.
    pub fn target(&self) -> String {
        match &self.kernel {
            Runnable::Ptx { kernel, .. } => kernel.target.arch().to_string(),
            Runnable::Tile(k) => format!("tileir {}", k.arch),
        }
    }
}

/// The architecture Tile IR programs are compiled for: the lent GPUs are Hopper.
pub const TILE_ARCH: &str = "sm_90";

/// Why a program cannot run.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PrepareError {
    /// A bug of tcfuzz (the emitted kernel does not assemble).
    #[error("{0}")]
    Internal(String),
    /// The program is outside what the harness runs (a Tile IR program, a possible hang, an
    /// instruction the emitter does not handle).
    #[error("{0}")]
    Unsupported(String),
}

/// Emits and (where `ptxas` is installed) assembles `program`; `name` prefixes the messages.
pub fn prepare(name: &str, program: Program, model: Model) -> Result<Prepared, PrepareError> {
    if !model.hung_threads.is_empty() {
        return Err(PrepareError::Unsupported(format!(
            "{name}: the model says the program may hang ({}); a hung kernel would hold the GPU",
            model.hung_threads.join(", ")
        )));
    }
    if !model.misuse.is_empty() {
        return Err(PrepareError::Unsupported(format!(
            "{name}: the model says the program misuses ({}): its behaviour is undefined, and a faulting kernel would take the GPU's context with it",
            model.misuse.join(", ")
        )));
    }
    let instrs = || {
        program.threads.iter().flat_map(|t| &t.body).filter_map(|s| match &s.kind {
            StmtKind::Instr(i) => Some(i),
            _ => None,
        })
    };
    if instrs().any(|i| matches!(i, Instr::Assume { .. })) && instrs().any(|i| matches!(i, Instr::Barrier(_))) {
        // On hardware a failed `assume` lets its thread run on with values no execution has
        // (`emit::body`); a branch on them can then skip a CTA or cluster barrier that another
        // thread waits at forever, and a hung kernel holds the GPU.
        return Err(PrepareError::Unsupported(format!(
            "{name}: an `assume` beside a CTA or cluster barrier: after a failed assume a thread may skip the barrier and strand the others"
        )));
    }
    if program.threads.iter().any(|t| t.kind() == ThreadKind::TileBlock) {
        let kernel = prepare_tile(name, &program)?;
        return Ok(Prepared { program, kernel: Runnable::Tile(kernel), model });
    }
    let target = Target::for_program(&program);
    let kernel = emit_ptx(&program, target)
        .map_err(|EmitError::Unsupported { span, message }| PrepareError::Unsupported(format!("{name}:{span}: cannot emit: {message}")))?;
    let tools = Toolchain::discover();
    let cubin = match tools.ptxas {
        Some(_) => Some(
            tools
                .assemble(&kernel.ptx, target.arch())
                .map_err(|e| PrepareError::Internal(format!("{name}: [tcfuzz internal bug] the emitted kernel does not assemble: {e}")))?,
        ),
        None => None,
    };
    Ok(Prepared { program, kernel: Runnable::Ptx { kernel, cubin }, model })
}

/// Compiles a Tile IR program's runnable kernel with `tileiras` for [`TILE_ARCH`].
fn prepare_tile(name: &str, program: &Program) -> Result<TileKernel, PrepareError> {
    // The kernel runs each thread in a tile block of its own (`tileir::Runnable`): two threads
    // the program places in one tile block would be further apart on the GPU than in the model,
    // whose `tile_block` scope covers both (Tile IR spec §7.3), and the GPU would show states the
    // model rightly forbids. (An H200 showed one: MP through a `.tile_block` release.)
    for (i, a) in program.threads.iter().enumerate() {
        if let Some(b) = program.threads[..i].iter().find(|b| b.placement == a.placement) {
            return Err(PrepareError::Unsupported(format!(
                "{name}: {} and {} share a tile block, and the kernel runs every thread in a tile block of its own",
                b.name, a.name
            )));
        }
    }
    let tools = Toolchain::discover();
    if let Err(e) = tools.tileiras().and_then(|_| tools.ptxas()) {
        return Err(PrepareError::Unsupported(format!("{name}: a Tile IR program runs as NVIDIA's tileiras compiles it, and: {e}")));
    }
    let (r, compiled) = tileir::compile_runnable(program, &tools, TILE_ARCH).map_err(|e| match e {
        tileir::TileError::Emit(EmitError::Unsupported { span, message }) => {
            PrepareError::Unsupported(format!("{name}:{span}: cannot emit: {message}"))
        }
        e => PrepareError::Internal(format!("{name}: [tcfuzz internal bug] the Tile IR kernel does not compile: {e}")),
    })?;
    let block_threads = TileKernel::block_threads_of(&compiled.ptx, tileir::RUN_ENTRY).ok_or_else(|| {
        PrepareError::Internal(format!("{name}: [tcfuzz internal bug] tileiras's PTX has no `.reqntid` for `{}`", tileir::RUN_ENTRY))
    })?;
    let init = |n: &str, len: usize| -> Vec<i64> {
        match program.locations.iter().find(|l| l.name == n).and_then(|l| l.init.clone()) {
            Some(Value::Tile(v)) => v,
            Some(Value::Int(v)) => vec![v],
            None => vec![0; len],
        }
    };
    Ok(TileKernel {
        cubin: compiled.cubin,
        arch: TILE_ARCH.to_string(),
        block_threads,
        threads: r.threads.into_iter().map(|e| (e.thread, e.registers)).collect(),
        locations: r.locations.iter().map(|(n, len)| (n.clone(), init(n, *len))).collect(),
        stride: r.stride,
        out_words: r.out_words,
    })
}

/// What one run showed: the merged histogram, and the parameters that ran the most launches
/// (the tuned winner), which a confirmation re-run uses.
#[derive(Clone, Debug)]
pub struct Observation {
    pub histogram: Histogram,
    pub params: StressParams,
}

/// A prepared program loaded on a device.
pub struct Session<'a> {
    prepared: &'a Prepared,
    loaded: LoadedKernel<'a>,
    /// Most time one [`Session::execute`] or [`Session::confirm`] spends launching (`None`: as
    /// many launches as asked for).
    budget: Option<Duration>,
}

enum LoadedKernel<'a> {
    Ptx(Loaded<'a>),
    Tile(LoadedTile<'a>),
}

impl<'a> Session<'a> {
    pub fn new(device: &'a Device, prepared: &'a Prepared) -> Result<Session<'a>, RunError> {
        let loaded = match &prepared.kernel {
            Runnable::Ptx { kernel, cubin } => LoadedKernel::Ptx(device.load(kernel, cubin.as_deref())?),
            Runnable::Tile(k) => LoadedKernel::Tile(device.load_tile(k)?),
        };
        Ok(Session { prepared, loaded, budget: None })
    }

    /// Whether runs go through the whole stress harness (a Tile IR kernel, NVIDIA's code, gets
    /// the parts `run::tile` lists).
    pub fn full_stress(&self) -> bool {
        matches!(self.loaded, LoadedKernel::Ptx(_))
    }

    /// The stress defaults: GPUHarbor's, with half of `max` groups testing and the other half
    /// stressing. A Tile IR kernel's defaults leave out the spin barrier, the pre-stress and the
    /// permuted, spaced locations: on an H200 (`gpu run --stress-config`, 2,000 launches, two
    /// seeds) each of them lowered the weak outcomes per second of Tile IR LB and SB (LB: 96 k/s
    /// without them; 52–75 k/s with the barrier, 52–57 k/s with the locations, 0.85 k/s with the
    /// pre-stress, 11 k/s with all three), so they are left to tuning and `--stress-config`.
    fn stressed(&self, max: u32) -> StressParams {
        let testing = (max / 2).max(1);
        let defaults = StressParams::stressed(testing, max.saturating_sub(testing));
        match self.loaded {
            LoadedKernel::Ptx(_) => defaults,
            LoadedKernel::Tile(_) => defaults.with(&StressOverrides {
                barrier_pct: Some(0),
                pre_stress: Some(0),
                permute: Some(false),
                mem_stride: Some(1),
                ..StressOverrides::default()
            }),
        }
    }

    fn run(&self, params: &StressParams, launches: u64, rng: &mut Rng, until: Option<Instant>) -> Result<Histogram, RunError> {
        match &self.loaded {
            LoadedKernel::Ptx(l) => l.run(params, launches, rng, until),
            LoadedKernel::Tile(t) => t.run(params, launches, rng, until),
        }
    }

    fn max_groups(&self) -> u32 {
        match &self.loaded {
            LoadedKernel::Ptx(l) => l.max_groups,
            LoadedKernel::Tile(t) => t.max_groups,
        }
    }

    /// Bounds the time of each `execute` and `confirm`: once it is spent, no further launch
    /// starts (each run still has at least one launch per configuration). A fuzzing worker's GPU
    /// runs one program at a time, and a kernel whose spin loops run to the loop cap takes about
    /// a second per launch.
    pub fn with_budget(mut self, budget: Duration) -> Self {
        self.budget = Some(budget);
        self
    }

    fn deadline(&self) -> Option<Instant> {
        self.budget.map(|b| Instant::now() + b)
    }

    /// Runs `launches` launches in `mode`.
    pub fn execute(&self, mode: StressMode, launches: u64, rng: &mut Rng) -> Result<Observation, RunError> {
        let until = self.deadline();
        let max = self.max_groups();
        match mode {
            StressMode::Off => {
                let params = StressParams::plain(max);
                Ok(Observation { histogram: self.run(&params, launches, rng, until)?, params })
            }
            StressMode::On => {
                let params = self.stressed(max);
                Ok(Observation { histogram: self.run(&params, launches, rng, until)?, params })
            }
            StressMode::Fixed(overrides) => {
                let params = self.stressed(max).with(&overrides);
                Ok(Observation { histogram: self.run(&params, launches, rng, until)?, params })
            }
            StressMode::Tune => {
                let configs = launches.clamp(1, 8);
                let slice = (launches / (2 * configs)).max(1);
                let mut total = Histogram::default();
                let mut best: Option<(f64, StressParams)> = None;
                for k in 0..configs {
                    // GPUHarbor's stress defaults are the first candidate, so tuning never
                    // settles on a configuration much worse than `On` (in one H200 run, SB showed
                    // its weak outcome ten times as often under them as under tuning from eight
                    // random configurations).
                    let params = if k == 0 { self.stressed(max) } else { StressParams::random(rng, max) };
                    let h = self.run(&params, slice, rng, until)?;
                    let score = target_count(&self.prepared.program, &h) as f64 / h.seconds.max(1e-9);
                    tracing::debug!(score, ?params, "tuning");
                    if best.as_ref().is_none_or(|(b, _)| score > *b) {
                        best = Some((score, params));
                    }
                    total.merge(&h);
                }
                let (_, params) = best.unwrap_or_else(|| (0.0, StressParams::plain(max)));
                let rest = launches.saturating_sub(configs * slice);
                if rest > 0 && until.is_none_or(|t| Instant::now() < t) {
                    total.merge(&self.run(&params, rest, rng, until)?);
                }
                Ok(Observation { histogram: total, params })
            }
        }
    }

    /// Re-runs `reruns` times `launches` launches with the parameters of `first`: the histogram
    /// that [`confirm_counts`] reads the forbidden states' counts from.
    pub fn confirm(&self, first: &Observation, reruns: u32, launches: u64, rng: &mut Rng) -> Result<Histogram, RunError> {
        let mut again = Histogram::default();
        let until = self.deadline();
        for _ in 0..reruns {
            again.merge(&self.run(&first.params, launches, rng, until)?);
        }
        Ok(again)
    }
}

/// The GPU histogram beside the model's allowed states.
pub fn model_compare(model: &Model, h: &Histogram) -> Comparison {
    compare(h, model.states.iter().map(|(s, n)| (&s[..], *n)))
}

/// A GPU histogram judged against the model.
#[derive(Clone, Debug)]
pub struct Judgement {
    pub comparison: Comparison,
    /// States outside the model's set (in the comparison's names), most frequent first.
    pub outside: Vec<Vec<i64>>,
    /// Whether they are discrepancies: not when the program races (its behaviour is undefined).
    pub discrepancies: bool,
}

impl Judgement {
    /// The states to re-run and report: those outside the model's set, unless the program races.
    pub fn forbidden(&self) -> &[Vec<i64>] {
        if self.discrepancies { &self.outside } else { &[] }
    }
}

pub fn judge(model: &Model, h: &Histogram) -> Judgement {
    let comparison = model_compare(model, h);
    let outside = comparison.forbidden().map(|r| r.state.clone()).collect();
    Judgement { comparison, outside, discrepancies: !model.racy() }
}

/// How often each of `forbidden` (states in `model_compare`'s names) shows in `again`.
pub fn confirm_counts(model: &Model, forbidden: &[Vec<i64>], again: &Histogram) -> Vec<(Vec<i64>, u64)> {
    let recmp = model_compare(model, again);
    forbidden.iter().map(|f| (f.clone(), recmp.rows.iter().find(|r| &r.state == f).map_or(0, |r| r.gpu))).collect()
}

/// The value of a condition term in a GPU state (`names` → `values`): one number, or the
/// elements of a tile (`x[0]`, `x[1]`, ... in the state).
fn term_value(program: &Program, names: &[String], values: &[i64], t: &Term) -> Option<Vec<i64>> {
    let at = |key: &str| names.iter().position(|n| n == key).map(|i| values[i]);
    let whole = |key: &str| -> Option<Vec<i64>> {
        if let Some(v) = at(key) {
            return Some(vec![v]);
        }
        let tile: Vec<i64> = (0..).map_while(|e| at(&format!("{key}[{e}]"))).collect();
        (!tile.is_empty()).then_some(tile)
    };
    match t {
        Term::Const(Value::Int(v)) => Some(vec![*v]),
        Term::Const(Value::Tile(v)) => Some(v.clone()),
        Term::Reg { thread, reg } => {
            let th = program.threads.iter().find(|p| &p.name == thread || p.name.trim_start_matches('P') == thread)?;
            whole(&format!("{}:{reg}", th.name))
        }
        Term::Loc { name, element: None } => whole(name),
        Term::Loc { name, element: Some(e) } => at(&format!("{name}[{e}]")).map(|v| vec![v]),
    }
}

fn prop_holds(program: &Program, names: &[String], values: &[i64], p: &Prop) -> Option<bool> {
    Some(match p {
        Prop::True => true,
        Prop::Atom(c) => {
            let (l, r) = (term_value(program, names, values, &c.lhs)?, term_value(program, names, values, &c.rhs)?);
            (l == r) == c.eq
        }
        Prop::Not(a) => !prop_holds(program, names, values, a)?,
        Prop::And(a, b) => prop_holds(program, names, values, a)? && prop_holds(program, names, values, b)?,
        Prop::Or(a, b) => prop_holds(program, names, values, a)? || prop_holds(program, names, values, b)?,
    })
}

/// Whether a GPU state shows the outcome the test looks for: the proposition of an `exists` or
/// `~exists`, the negation of a `forall`'s.
pub fn is_target(program: &Program, names: &[String], values: &[i64]) -> bool {
    let holds = prop_holds(program, names, values, &program.condition.prop).unwrap_or(false);
    match program.condition.quantifier {
        Quantifier::Exists | Quantifier::NotExists => holds,
        Quantifier::Forall => !holds,
    }
}

/// Instances that ended in a state showing the condition's outcome.
pub fn target_count(program: &Program, h: &Histogram) -> u64 {
    h.states.iter().filter(|(s, _)| is_target(program, &h.names, s)).map(|(_, n)| n).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn histogram(names: &[&str], states: &[(&[i64], u64)]) -> Histogram {
        Histogram {
            names: names.iter().map(|s| s.to_string()).collect(),
            states: states.iter().map(|(s, n)| (s.to_vec(), *n)).collect(),
            ..Histogram::default()
        }
    }

    fn model(states: &[&[(&str, i64)]], races: usize) -> Model {
        Model {
            states: states.iter().map(|s| (s.iter().map(|(n, v)| (n.to_string(), *v)).collect(), 1)).collect(),
            races,
            hung_threads: Vec::new(),
            misuse: Vec::new(),
        }
    }

    #[test]
    fn a_state_outside_the_model_is_forbidden_unless_the_program_races() {
        let h = histogram(&["P1:r0", "P1:r1"], &[(&[1, 0], 3), (&[1, 1], 50)]);
        let allowed: &[&[(&str, i64)]] = &[&[("P1:r0", 1), ("P1:r1", 1)], &[("P1:r0", 0), ("P1:r1", 0)]];
        let race_free = judge(&model(allowed, 0), &h);
        assert_eq!(race_free.forbidden(), [vec![1, 0]]);
        assert_eq!(race_free.comparison.allowed_unseen(), 1);
        let racy = judge(&model(allowed, 2), &h);
        assert_eq!(racy.outside, [vec![1, 0]]);
        assert!(racy.forbidden().is_empty());
    }

    #[test]
    fn a_tile_condition_reads_the_elements_of_registers_and_locations() {
        let p = tcfuzz_litmus::parse(include_str!("../../examples/tileir/MP+rel+acq-tokens.litmus")).expect("the example parses");
        // exists (P1:rf == [1] /\ P1:rx != [1, 2])
        let names: Vec<String> = ["P1:rf[0]", "P1:rx[0]", "P1:rx[1]", "x[0]", "x[1]", "f[0]"].iter().map(|s| s.to_string()).collect();
        assert!(is_target(&p, &names, &[1, 0, 2, 1, 2, 1]));
        assert!(!is_target(&p, &names, &[1, 1, 2, 1, 2, 1]));
        assert!(!is_target(&p, &names, &[0, 0, 0, 1, 2, 1]));
    }

    #[test]
    fn confirm_counts_read_the_rerun_histogram() {
        let m = model(&[&[("x", 1)]], 0);
        let again = histogram(&["x"], &[(&[2], 4), (&[1], 10)]);
        assert_eq!(confirm_counts(&m, &[vec![2], vec![3]], &again), [(vec![2], 4), (vec![3], 0)]);
    }

    #[test]
    fn an_assume_beside_a_cta_barrier_is_refused() {
        let why = refused(
            "PTX T\n{ x = 0; }\n P0@cta 0,gpu 0 | P1@cta 0,gpu 0 ;\n ld.relaxed.gpu r0, x | bar.cta.sync 1 ;\n assume.eq r0, 1 | ;\n beq r0, 0, L0 | ;\n bar.cta.sync 1 | ;\n L0: | ;\nexists (true)\n",
            Model::default(),
        );
        assert_eq!(
            why,
            "t.litmus: an `assume` beside a CTA or cluster barrier: after a failed assume a thread may skip the barrier and strand the others"
        );
    }

    #[test]
    fn two_threads_of_one_tile_block_are_refused() {
        let why = refused(
            "TileIR T\n{\n  x = [0];\n}\nP0@tlb 0, dev 0 {\n  st.relaxed.device x, [1];\n}\nP1@tlb 1, dev 0 {\n  r = ld.relaxed.device x;\n}\nP2@tlb 0, dev 0 {\n  s = ld.relaxed.device x;\n}\nexists (true)\n",
            Model::default(),
        );
        assert_eq!(why, "t.litmus: P0 and P2 share a tile block, and the kernel runs every thread in a tile block of its own");
    }

    /// Why `prepare` refuses a one-store program under `model`.
    fn refused_under(model: Model) -> String {
        refused("PTX T\n{ x = 0; }\n P0@cta 0,gpu 0 ;\n st.relaxed.gpu x, 1 ;\nexists (x == 1)\n", model)
    }

    /// Why `prepare` refuses program `text` under `model`.
    fn refused(text: &str, model: Model) -> String {
        let p = tcfuzz_litmus::parse(text).expect("the test program parses");
        match prepare("t.litmus", p, model) {
            Err(PrepareError::Unsupported(why)) => why,
            Err(e) => panic!("refused for the wrong reason: {e}"),
            Ok(_) => panic!("the program must be refused"),
        }
    }

    #[test]
    fn a_program_that_may_hang_is_refused_before_emission() {
        let why = refused_under(Model { hung_threads: vec!["P0".into()], ..Model::default() });
        assert_eq!(why, "t.litmus: the model says the program may hang (P0); a hung kernel would hold the GPU");
    }

    #[test]
    fn a_program_that_misuses_is_refused_before_emission() {
        let why = refused_under(Model { misuse: vec!["mbarrier-over-arrival by P0".into()], ..Model::default() });
        assert_eq!(
            why,
            "t.litmus: the model says the program misuses (mbarrier-over-arrival by P0): its behaviour is undefined, and a faulting kernel would take the GPU's context with it"
        );
    }
}
