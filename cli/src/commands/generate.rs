//! `tcfuzz generate`: write a campaign's programs as litmus files, to read them, run them on a
//! GPU (`tcfuzz gpu run DIR`) or feed them to another tool.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use tcfuzz_generator::generate::{FamilyKind, GeneratorConfig};
use tcfuzz_generator::mutate::SeedPool;
use tcfuzz_litmus::Comment;
use tcfuzz_worker::{Executor, FuzzConfig};

use crate::exit;

/// Write programs of a campaign as litmus files, without checking them.
///
/// Program i is the one `tcfuzz fuzz --seed SEED --config FILE` generates as its program i (the
/// same bytes on any machine), except that coverage-guided programs need a corpus's seed pool:
/// here the pool is empty, so they come out as random programs, as they do at the start of a
/// campaign. Each file is DIR/<seed>-<index>.litmus; its first comment line says how the program
/// was made (its family, pattern or mutation). Existing files of the same name are overwritten.
///
/// Exit codes: 0 every program written; 1 the config cannot be read or a file cannot be written;
/// 2 usage error.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The directory to write the programs to (created if missing).
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,

    /// The campaign seed.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,

    /// How many programs to write.
    #[arg(long, default_value_t = 100, value_name = "N")]
    pub count: u64,

    /// The index of the first program.
    #[arg(long, default_value_t = 0, value_name = "I")]
    pub first: u64,

    /// The campaign configuration (JSON, as for `tcfuzz fuzz --config`); only its generator part
    /// is used.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,

    /// Write only programs of this family: random, pattern or mutant (a shorthand for a config
    /// that weighs the other families 0).
    #[arg(long, value_name = "FAMILY", value_parser = ["random", "pattern", "mutant"])]
    pub family: Option<String>,
}

pub fn run(args: &Args, quiet: bool) -> anyhow::Result<ExitCode> {
    let mut config: FuzzConfig = match &args.config {
        None => FuzzConfig::default(),
        Some(p) => {
            let text = match std::fs::read_to_string(p) {
                Ok(t) => t,
                Err(e) => {
                    eprintln!("error: cannot read the config {}: {e}", p.display());
                    return Ok(ExitCode::from(exit::INPUT_ERRORS));
                }
            };
            match serde_json::from_str(&text) {
                Ok(c) => c,
                Err(e) => {
                    eprintln!("{}:{}:{}: error: {e}", p.display(), e.line(), e.column());
                    return Ok(ExitCode::from(exit::INPUT_ERRORS));
                }
            }
        }
    };
    if let Some(family) = &args.family {
        config.generator = only_family(config.generator, family);
    }
    let executor = match Executor::new(config) {
        Ok(e) => e,
        Err(e) => {
            eprintln!("error: {e}");
            return Ok(ExitCode::from(exit::INPUT_ERRORS));
        }
    };
    std::fs::create_dir_all(&args.out).with_context(|| format!("cannot create {}", args.out.display()))?;
    let pool = SeedPool::default();
    let last = args.first.saturating_add(args.count);
    for index in args.first..last {
        let made = executor.generate(args.seed, index, &pool)?;
        let mut program = made.program;
        program.comments.insert(
            0,
            Comment::header(format!(" tcfuzz generate: program {index} of campaign seed {}: {}", args.seed, made.origin)),
        );
        let path = args.out.join(format!("{}-{index}.litmus", args.seed));
        if let Err(e) = std::fs::write(&path, tcfuzz_litmus::print(&program)) {
            eprintln!("{}: error: cannot write: {e}", path.display());
            return Ok(ExitCode::from(exit::INPUT_ERRORS));
        }
    }
    if !quiet {
        eprintln!("wrote {} programs of campaign seed {} to {}", args.count, args.seed, args.out.display());
    }
    Ok(ExitCode::SUCCESS)
}

/// `config` with every family but `family` weighed 0.
fn only_family(mut config: GeneratorConfig, family: &str) -> GeneratorConfig {
    let keep = |k: FamilyKind, w: u32| if k.name() == family { w.max(1) } else { 0 };
    let f = config.families;
    config.families.random = keep(FamilyKind::Random, f.random);
    config.families.pattern = keep(FamilyKind::Pattern, f.pattern);
    config.families.mutant = keep(FamilyKind::Mutant, f.mutant);
    config.families.coverage = 0;
    config
}
