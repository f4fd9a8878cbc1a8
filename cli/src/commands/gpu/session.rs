//! `tcfuzz gpu run`, and what `gpu bench` shares with it: check the program, emit and assemble
//! its kernel, run it under a stress mode, compare the histogram with the model.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, bail};
use serde_json::json;
use tcfuzz_checker::{ModelKind, Options};
use tcfuzz_gpu::run::compare::Comparison;
use tcfuzz_gpu::run::{Device, Rng, RunError, StressOverrides};
use tcfuzz_gpu::session::{self, PrepareError, Prepared, Session, is_target, judge, target_count};
use tcfuzz_litmus::Program;
use tcfuzz_worker::oracles::gpu::model_of;

use crate::exit;

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum StressArg {
    /// Instances side by side, nothing else running.
    Off,
    /// GPUHarbor's stress defaults: stressing CTAs, shuffled instances, spin barrier, spread and
    /// permuted locations.
    On,
    /// GPUHarbor's tuning: the stress defaults and random configurations, each for a slice of
    /// the launches; the one with the highest rate of the condition's outcome runs the rest.
    Tune,
}

impl From<StressArg> for session::StressMode {
    fn from(a: StressArg) -> Self {
        match a {
            StressArg::Off => session::StressMode::Off,
            StressArg::On => session::StressMode::On,
            StressArg::Tune => session::StressMode::Tune,
        }
    }
}

/// Run a litmus program on this machine's GPU, many instances per launch under a stress harness,
/// and compare the final states it shows with the states the PTX model allows.
///
/// A Tile IR program runs as NVIDIA's `tileiras` compiles it (for sm_90; `tileiras` must be
/// installed): one kernel, tile block b running thread b mod T of instance b div T, every
/// instance's final state compared with the Tile IR model's. That kernel is NVIDIA's code, so of
/// the stress harness it gets what the host and a straight-line kernel can do: stressing tile
/// blocks (relaxed loads and stores of scratch lines), the roles of a launch's blocks shuffled,
/// a spin barrier of the testing blocks, their pre-stress, and locations permuted over instances
/// and spaced (these three only under `tune` and `--stress-config`: they lowered Tile IR's weak
/// rates on an H200, so `on` leaves them out); not the stress patterns and line sizes.
///
/// Prints the histogram beside the model's allowed set, the rate of the condition's outcome (the
/// weak behaviour the test looks for) per second, and any state the model forbids. A forbidden
/// state is re-run --confirm times; it is a `gpu-forbidden-outcome` discrepancy with its
/// observation counts. Allowed states the GPU never showed are coverage, not errors. A program
/// the model finds racy has undefined behaviour: states outside the model's set are shown, never
/// reported as discrepancies.
///
/// Programs the model says may hang are refused (a hung kernel holds the GPU). A thread that
/// loops longer than the loop cap gives up; its instance counts as unfinished, never as a state.
/// tcgen05 programs need an sm_100-class GPU. A fixed --seed reproduces every choice the harness
/// makes (the GPU's own scheduling is not reproducible).
///
/// Exit codes: 0 no forbidden state; 1 the file cannot be read or parsed; 3 the program cannot be
/// emitted or run (a possible hang, a multi-GPU program, a Tile IR program without tileiras); 6 no GPU or no
/// CUDA driver here, or a GPU that cannot run the program's target; 7 the GPU showed a state the
/// model forbids.
#[derive(Debug, clap::Args)]
pub struct RunArgs {
    /// Litmus files, directories (searched for *.litmus) or glob patterns, run one after another.
    #[arg(required = true, value_name = "PATH")]
    pub paths: Vec<PathBuf>,

    /// Kernel launches; each runs as many instances as fit on the GPU at once.
    #[arg(long, default_value_t = 1000)]
    pub iterations: u64,

    #[arg(long, value_enum, default_value_t = StressArg::Tune)]
    pub stress: StressArg,

    /// Run one fixed configuration: a JSON object of the harness's parameters to change from the
    /// `on` defaults, by their names in the JSON output's `stress` (e.g. `{"barrier_pct": 0,
    /// "permute": false}`); an unknown name is an error. Replaces --stress.
    #[arg(long, value_name = "FILE", conflicts_with = "stress")]
    pub stress_config: Option<PathBuf>,

    /// Seed of every harness choice (layouts, shuffles, tuned parameters).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,

    /// Re-runs (of --iterations launches each) of a forbidden state before it is reported.
    #[arg(long, default_value_t = 3)]
    pub confirm: u32,

    /// Most states printed (the JSON has them all).
    #[arg(long, default_value_t = 40)]
    pub max_states: usize,

    /// One JSON object: file, name, device, target (`sm_90a`, `sm_100a`, `tileir sm_90`), stress
    /// (the parameters used; a Tile IR kernel does not honour spread, stress_iters,
    /// stress_pattern and stress_line_words), mode (off, on, tune or config), launches,
    /// instances, seconds, instances_per_s, names, states [{state, gpu, model}] (model: executions
    /// ending in the state, null if forbidden), condition {text, seen, per_s}, forbidden [{state,
    /// gpu, confirmed}] (outside the model's set; discrepancies unless racy), racy, unfinished,
    /// assume_failed, allowed_unseen.
    #[arg(long)]
    pub json: bool,
}

/// Checks `program` under its model (PTX, or Tile IR for tile-block programs), then emits and
/// assembles it (a Tile IR program: compiles it with `tileiras`).
pub fn prepare(name: &str, program: Program) -> Result<Prepared, PrepareError> {
    let model =
        if program.threads.iter().any(|t| t.kind() == tcfuzz_litmus::ThreadKind::TileBlock) { ModelKind::TileIr } else { ModelKind::Ptx };
    let verdict = tcfuzz_checker::check(&program, model, &Options::default())
        .map_err(|e| PrepareError::Unsupported(format!("{name}: the checker cannot judge it: {e}")))?;
    session::prepare(name, program, model_of(&verdict))
}

fn show(c: &Comparison, state: &[i64]) -> String {
    c.names.iter().zip(state).map(|(n, v)| format!("{n}={v}")).collect::<Vec<_>>().join(" ")
}

/// How running one file ended.
enum FileOutcome {
    Ran,
    Failed,
    Unsupported,
    Forbidden,
}

pub fn run(args: &RunArgs, quiet: bool) -> anyhow::Result<ExitCode> {
    let mode = match &args.stress_config {
        Some(path) => match stress_config(path) {
            Ok(overrides) => session::StressMode::Fixed(overrides),
            Err(e) => {
                eprintln!("tcfuzz gpu run: {e:#}");
                return Ok(ExitCode::from(exit::INPUT_ERRORS));
            }
        },
        None => args.stress.into(),
    };
    // Opened at the first program that can run: a program the harness refuses needs no GPU.
    let mut device: Option<Device> = None;
    let (mut total, mut failed, mut unsupported, mut forbidden, mut wrong_arch) = (0, 0, 0, 0, 0);
    for input in crate::inputs::expand(&args.paths, quiet) {
        total += 1;
        let outcome = match input {
            crate::inputs::Input::File(path) => match run_file(&path, args, mode, &mut device, quiet) {
                Ok(o) => o,
                Err(e) if matches!(e.downcast_ref::<RunError>(), Some(RunError::WrongArch { .. })) => {
                    eprintln!("{}: {e}", path.display());
                    wrong_arch += 1;
                    FileOutcome::Unsupported
                }
                Err(e) if matches!(e.downcast_ref::<RunError>(), Some(RunError::NoDevice(_))) => {
                    eprintln!("tcfuzz gpu run: {e}; everything else works without one (`tcfuzz emit` assembles the kernel)");
                    return Ok(ExitCode::from(exit::NO_GPU));
                }
                Err(e) if matches!(e.downcast_ref::<RunError>(), Some(RunError::Hang(_) | RunError::Faulted(_))) => {
                    // The context is unusable after a hung or faulted kernel: stop here.
                    eprintln!("{}: error: {e:#}", path.display());
                    return Ok(ExitCode::from(exit::INPUT_ERRORS));
                }
                Err(e) => {
                    eprintln!("{}: error: {e:#}", path.display());
                    FileOutcome::Failed
                }
            },
            crate::inputs::Input::Error { path, why } => {
                eprintln!("{path}: error: {why}");
                FileOutcome::Failed
            }
            crate::inputs::Input::Skipped { path, why } => {
                if !quiet {
                    eprintln!("{path}: note: {why}");
                }
                total -= 1;
                continue;
            }
        };
        match outcome {
            FileOutcome::Ran => {}
            FileOutcome::Failed => failed += 1,
            FileOutcome::Unsupported => unsupported += 1,
            FileOutcome::Forbidden => forbidden += 1,
        }
    }
    if !quiet && total > 1 {
        eprintln!("ran {total} files: {failed} with errors, {unsupported} not run, {forbidden} with a state the model forbids");
    }
    Ok(if failed > 0 {
        ExitCode::from(exit::INPUT_ERRORS)
    } else if wrong_arch == total && total > 0 {
        ExitCode::from(exit::NO_GPU)
    } else if unsupported > 0 {
        ExitCode::from(exit::UNSUPPORTED)
    } else if forbidden > 0 {
        ExitCode::from(exit::GPU_FORBIDDEN)
    } else {
        ExitCode::SUCCESS
    })
}

/// The `--stress-config` file: a JSON object of [`StressOverrides`].
fn stress_config(path: &std::path::Path) -> anyhow::Result<StressOverrides> {
    let text = std::fs::read_to_string(path).with_context(|| format!("cannot read --stress-config {}", path.display()))?;
    serde_json::from_str(&text).with_context(|| format!("--stress-config {}: not a JSON object of harness parameters", path.display()))
}

fn run_file(
    path: &std::path::Path,
    args: &RunArgs,
    mode: session::StressMode,
    device: &mut Option<Device>,
    quiet: bool,
) -> anyhow::Result<FileOutcome> {
    let name = path.display().to_string();
    let Some(program) = crate::inputs::load(path) else {
        return Ok(FileOutcome::Failed);
    };
    let prepared = match prepare(&name, program) {
        Ok(p) => p,
        Err(PrepareError::Internal(m)) => {
            eprintln!("{m}");
            return Ok(FileOutcome::Failed);
        }
        Err(PrepareError::Unsupported(m)) => {
            eprintln!("{m}");
            return Ok(FileOutcome::Unsupported);
        }
    };
    if device.is_none() {
        *device = Some(Device::open()?);
    }
    let Some(device) = device.as_ref() else { unreachable!("[tcfuzz internal bug] the device was just opened") };
    let session = Session::new(device, &prepared)?;
    let mut rng = Rng::new(args.seed);
    let progress =
        (!quiet && !args.json).then(|| crate::outputs::spinner(&format!("{name}: {} launches on {}", args.iterations, device.info.name)));
    let observation = session.execute(mode, args.iterations, &mut rng)?;
    let mode_name = if args.stress_config.is_some() { "config".to_string() } else { format!("{:?}", args.stress).to_lowercase() };
    let (h, params) = (&observation.histogram, &observation.params);
    let judgement = judge(&prepared.model, h);
    let cmp = &judgement.comparison;
    // Re-run the forbidden states before reporting them. A racy program's behaviour is
    // undefined (PTX ISA §8.10): a state outside the model's set is then no discrepancy.
    let forbidden = &judgement.outside;
    let racy = prepared.model.racy();
    let confirmed = if judgement.forbidden().is_empty() {
        Vec::new()
    } else {
        let again = session.confirm(&observation, args.confirm, args.iterations, &mut rng)?;
        session::confirm_counts(&prepared.model, judgement.forbidden(), &again)
    };
    if let Some(p) = progress {
        p.finish_and_clear();
    }
    let seen = target_count(&prepared.program, h);
    let cond = crate::commands::check::condition_text(&prepared.program);
    if args.json {
        let states: Vec<_> = cmp.rows.iter().map(|r| json!({"state": state_json(cmp, &r.state), "gpu": r.gpu, "model": r.model})).collect();
        let forb: Vec<_> = cmp
            .forbidden()
            .map(|r| {
                let again = confirmed.iter().find(|(s, _)| *s == r.state).map_or(0, |(_, n)| *n);
                json!({"state": state_json(cmp, &r.state), "gpu": r.gpu, "confirmed": again})
            })
            .collect();
        let line = json!({
            "file": name, "name": prepared.program.name, "device": device.info, "target": prepared.target(),
            "stress": params, "mode": mode_name, "launches": h.launches, "instances": h.instances, "seconds": h.seconds,
            "instances_per_s": h.instances as f64 / h.seconds.max(1e-9), "names": cmp.names, "states": states,
            "condition": {"text": cond, "seen": seen, "per_s": seen as f64 / h.seconds.max(1e-9)},
            "forbidden": forb, "racy": racy, "unfinished": h.unfinished, "assume_failed": h.assume_failed, "allowed_unseen": cmp.allowed_unseen(),
        });
        println!("{line}");
    } else {
        let stress = if session.full_stress() {
            format!("stress {mode_name}")
        } else {
            format!(
                "stress {mode_name} (NVIDIA's Tile IR kernel: stressing blocks, shuffled roles, spin barrier, pre-stress, permuted locations)"
            )
        };
        println!(
            "{name}: {} on {} ({}), {stress}: {} launches, {} instances in {:.2} s ({:.0} instances/s)",
            prepared.program.name,
            device.info.name,
            device.info.arch,
            h.launches,
            h.instances,
            h.seconds,
            h.instances as f64 / h.seconds.max(1e-9)
        );
        println!("  {:>12}  {:>10}  state", "GPU", "model");
        for r in cmp.rows.iter().take(args.max_states) {
            let model = r.model.map_or("FORBIDDEN".to_string(), |n| format!("{n} exec"));
            let mark = if is_target(&prepared.program, &cmp.names, &r.state) { "  <- condition" } else { "" };
            println!("  {:>12}  {:>10}  {}{mark}", r.gpu, model, show(cmp, &r.state));
        }
        if cmp.rows.len() > args.max_states {
            println!("  … {} more states (--json lists them all)", cmp.rows.len() - args.max_states);
        }
        println!(
            "  condition {cond}: seen {seen} times ({:.1}/s); {} allowed state(s) never seen; {} unfinished, {} assume-failed instance(s)",
            seen as f64 / h.seconds.max(1e-9),
            cmp.allowed_unseen(),
            h.unfinished,
            h.assume_failed
        );
        for (s, again) in &confirmed {
            println!("  gpu-forbidden-outcome: {} (seen again {again} times in {} re-runs)", show(cmp, s), args.confirm);
        }
        if racy && !forbidden.is_empty() {
            println!(
                "  {} state(s) outside the model's set, but the program races ({} race(s)): its behaviour is undefined, so they are not discrepancies",
                forbidden.len(),
                prepared.model.races
            );
        } else if confirmed.is_empty() {
            println!("  no state the model forbids");
        }
    }
    Ok(if confirmed.is_empty() { FileOutcome::Ran } else { FileOutcome::Forbidden })
}

fn state_json(c: &Comparison, state: &[i64]) -> serde_json::Value {
    serde_json::Value::Object(c.names.iter().cloned().zip(state.iter().map(|v| json!(v))).collect())
}

/// Reads and parses a file for the bench (bench programs are embedded, so a failure is a bug).
pub fn parse_embedded(name: &str, src: &str) -> anyhow::Result<Program> {
    match tcfuzz_litmus::parse(src) {
        Ok(p) => Ok(p),
        Err(d) => bail!("[tcfuzz internal bug] embedded program {name} does not parse:\n{}", d.render(name)),
    }
}
