//! `tcfuzz gpu bench`: how fast the harness runs, and how often the classic shapes show their weak
//! behaviours, with and without stress (DESIGN §9; GPUHarbor's figure of merit is the weak
//! behaviour rate per second).

use std::process::ExitCode;

use serde_json::json;
use tcfuzz_gpu::run::{Device, Rng};
use tcfuzz_gpu::session::{PrepareError, Session, StressMode, judge, target_count};

use super::session;
use crate::exit;

/// The shapes, from `examples/` (their conditions name the weak outcome; the two controls name an
/// outcome the model forbids, which must never appear).
const SHAPES: &[(&str, &str)] = &[
    ("MP", include_str!("../../../../examples/ptx/MP+relaxed-gpu-diffcta.litmus")),
    ("SB", include_str!("../../../../examples/ptx/SB+relaxed-gpu-diffcta.litmus")),
    ("LB", include_str!("../../../../examples/ptx/LB+relaxed-gpu-diffcta.litmus")),
    ("IRIW", include_str!("../../../../examples/ptx/IRIW+relaxed-gpu.litmus")),
    ("2+2W", include_str!("../../../../examples/ptx/2+2W+relaxed-gpu.litmus")),
    ("MP+rel+acq (control)", include_str!("../../../../examples/ptx/MP+rel+acq-gpu-diffcta.litmus")),
    ("mbarrier PC relaxed", include_str!("../../../../examples/mbarrier/mbarrier-pc-relaxed-race.litmus")),
    ("TMA PC (control)", include_str!("../../../../examples/mbarrier/mbarrier-cp-async-bulk-expect-tx.litmus")),
    ("Tile IR MP", include_str!("../../../../examples/tileir/MP+rel+acq-no-tokens.litmus")),
    ("Tile IR SB", include_str!("../../../../examples/tileir/SB+relaxed-no-tokens.litmus")),
    ("Tile IR LB", include_str!("../../../../examples/tileir/LB+relaxed-no-tokens.litmus")),
    ("Tile IR MP (control)", include_str!("../../../../examples/tileir/MP+rel+acq-tokens.litmus")),
];

/// Run the classic shapes (MP, SB, LB, IRIW, 2+2W, an mbarrier producer/consumer and a bulk-copy
/// producer/consumer, plus release/acquire controls) on this machine's GPU, without stress, with
/// GPUHarbor's stress defaults and tuned, and print per shape: instances per second, how often the
/// weak outcome (the test's condition) appeared and its rate per second, and states the model
/// forbids (which must be 0).
///
/// The Tile IR rows (MP, SB and LB without tokens, and MP with tokens as the control) run as
/// NVIDIA's `tileiras` compiles them, stressed with what the host decides for that kernel
/// (stressing tile blocks, shuffled roles, spin barrier, pre-stress, permuted locations). Without
/// `tileiras` they are skipped with the reason.
///
/// Exit codes: 0 done; 6 no GPU here; 7 some shape showed a state the model forbids.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Launches per shape and stress mode.
    #[arg(long, default_value_t = 200)]
    pub iterations: u64,

    #[arg(long, default_value_t = 1)]
    pub seed: u64,

    /// One JSON object per row.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: &Args, quiet: bool) -> anyhow::Result<ExitCode> {
    let device = match Device::open() {
        Ok(d) => d,
        Err(e) => {
            eprintln!("tcfuzz gpu bench: {e}");
            return Ok(ExitCode::from(exit::NO_GPU));
        }
    };
    if !args.json {
        println!(
            "GPU: {} ({}, {} SMs); {} launches per row",
            device.info.name, device.info.arch, device.info.multiprocessors, args.iterations
        );
        println!(
            "{:<22} {:>6} {:>10} {:>12} {:>10} {:>10} {:>9}",
            "shape", "stress", "instances", "instances/s", "weak", "weak/s", "forbidden"
        );
    }
    let mut any_forbidden = false;
    for (shape, src) in SHAPES {
        let program = session::parse_embedded(shape, src)?;
        let tile = shape.starts_with("Tile IR");
        let prepared = match session::prepare(shape, program) {
            Ok(p) => p,
            // Only the Tile IR rows may lack their tool (tileiras); a PTX shape always emits.
            Err(PrepareError::Unsupported(m)) if tile => {
                eprintln!("tcfuzz gpu bench: {shape} skipped: {m}");
                continue;
            }
            Err(PrepareError::Internal(m) | PrepareError::Unsupported(m)) => anyhow::bail!("[tcfuzz internal bug] bench shape {m}"),
        };
        let session = Session::new(&device, &prepared)?;
        for (mode, mode_name) in [(StressMode::Off, "off"), (StressMode::On, "on"), (StressMode::Tune, "tune")] {
            let mut rng = Rng::new(args.seed);
            let observation = session.execute(mode, args.iterations, &mut rng)?;
            let (h, params) = (&observation.histogram, &observation.params);
            let judgement = judge(&prepared.model, h);
            let forbidden: u64 = judgement.comparison.rows.iter().filter(|r| judgement.forbidden().contains(&r.state)).map(|r| r.gpu).sum();
            any_forbidden |= forbidden > 0;
            let weak = target_count(&prepared.program, h);
            let per_s = h.instances as f64 / h.seconds.max(1e-9);
            let weak_s = weak as f64 / h.seconds.max(1e-9);
            if args.json {
                println!(
                    "{}",
                    json!({"shape": shape, "stress": mode_name, "params": params, "launches": h.launches, "instances": h.instances,
                           "seconds": h.seconds, "instances_per_s": per_s, "weak": weak, "weak_per_s": weak_s,
                           "forbidden": forbidden, "unfinished": h.unfinished, "device": device.info.name})
                );
            } else {
                println!("{shape:<22} {:>6} {:>10} {per_s:>12.0} {weak:>10} {weak_s:>10.1} {forbidden:>9}", mode_name, h.instances);
            }
            if !quiet {
                tracing::info!(shape, ?mode, unfinished = h.unfinished, "row done");
            }
        }
    }
    if any_forbidden { Ok(ExitCode::from(exit::GPU_FORBIDDEN)) } else { Ok(ExitCode::SUCCESS) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tcfuzz_gpu::Toolchain;
    use tcfuzz_gpu::session::Runnable;

    /// Every shape is checked, emitted and assembled as `gpu bench` would (no GPU needed), and the
    /// Tile IR rows become NVIDIA's kernel where `tileiras` is installed.
    #[test]
    fn every_shape_prepares() {
        let tools = Toolchain::discover();
        let tile_tools = tools.tileiras.is_some() && tools.ptxas.is_some();
        if !tile_tools {
            eprintln!("skipping the Tile IR rows: tileiras or ptxas is not installed (`bash .ci/setup-nvidia`)");
        }
        let mut tile_rows = 0;
        for (shape, src) in SHAPES {
            let program = session::parse_embedded(shape, src).expect("an embedded shape parses");
            let tile = shape.starts_with("Tile IR");
            if tile && !tile_tools {
                continue;
            }
            let prepared = session::prepare(shape, program).unwrap_or_else(|e| panic!("{shape}: {e}"));
            assert_eq!(matches!(prepared.kernel, Runnable::Tile(_)), tile, "{shape}: {}", prepared.target());
            tile_rows += usize::from(tile);
        }
        if tile_tools {
            assert_eq!(tile_rows, 4);
        }
    }
}
