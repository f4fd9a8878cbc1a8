//! `tcfuzz lower`: print the PTX program a Tile IR program lowers to.

use crate::commands::parse::read;
use crate::exit;
use anyhow::{Result, anyhow};
use std::path::PathBuf;
use std::process::ExitCode;

/// Print the PTX program a Tile IR program lowers to (the rules are documented in
/// checker/src/lower.rs: tile blocks become CTAs, tiles become one location per element, orderings
/// and scopes map tile_block→.cta, device→.gpu, sys→.sys, tokens are dropped).
///
/// Exit codes: 0 lowered; 1 the file cannot be read, does not parse, or cannot be lowered.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// A litmus file with Tile IR tile-block threads.
    #[arg(value_name = "FILE")]
    pub file: PathBuf,

    /// Print NVIDIA's lowering instead: the PTX `tileiras` generates for sm_90, read back as a
    /// litmus program (what `tcfuzz check --compiler` compares with the Tile IR program).
    #[arg(long)]
    pub compiler: bool,
}

pub fn run(args: &Args) -> Result<ExitCode> {
    let name = args.file.display().to_string();
    let src = read(&args.file)?;
    let program = match tcfuzz_litmus::parse(&src) {
        Ok(p) => p,
        Err(diagnostics) => {
            eprint!("{}", diagnostics.render(&name));
            return Ok(ExitCode::from(exit::INPUT_ERRORS));
        }
    };
    let lowered = if args.compiler {
        crate::commands::differential::compiler_lowering(&program).map_err(|e| anyhow!("{name}: {e}"))?.program
    } else {
        tcfuzz_checker::lower::lower_tile_ir(&program).map_err(|e| anyhow!("{name}: {e}"))?
    };
    print!("{}", tcfuzz_litmus::print(&lowered));
    Ok(ExitCode::SUCCESS)
}
