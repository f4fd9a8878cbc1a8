//! `tcfuzz lower`: print the PTX program a Tile IR program lowers to.

use crate::commands::check::has_tile_threads;
use crate::exit;
use anyhow::Result;
use std::path::PathBuf;
use std::process::ExitCode;
use tcfuzz_checker::LowerError;
use tcfuzz_litmus::Span;

/// Print the PTX program a Tile IR program lowers to (the rules are documented in
/// checker/src/differential/lower.rs: tile blocks become CTAs, tiles become one location per element, orderings
/// and scopes map tile_block→.cta, device→.gpu, sys→.sys, tokens are dropped).
///
/// Exit codes: 0 lowered; 1 the file cannot be read or does not parse, has no Tile IR threads, or
/// cannot be lowered; 2 usage error.
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
    let Some(program) = crate::inputs::load(&args.file) else {
        return Ok(ExitCode::from(exit::INPUT_ERRORS));
    };
    if !has_tile_threads(&program) {
        eprintln!(
            "{name}: error: not a Tile IR program: `tcfuzz lower` lowers Tile IR tile-block threads to PTX, and this program has none"
        );
        return Ok(ExitCode::from(exit::INPUT_ERRORS));
    }
    if args.compiler {
        return match crate::commands::differential::compiler_lowering(&program) {
            Ok(lifted) => {
                print!("{}", tcfuzz_litmus::print(&lifted.program));
                Ok(ExitCode::SUCCESS)
            }
            Err(e) => {
                eprintln!("{name}: error: {e}");
                Ok(ExitCode::from(exit::UNSUPPORTED))
            }
        };
    }
    match tcfuzz_checker::lower_tile_ir(&program) {
        Ok(lowered) => {
            print!("{}", tcfuzz_litmus::print(&lowered));
            Ok(ExitCode::SUCCESS)
        }
        Err(LowerError::Unsupported { message, span }) => {
            let at = if span == Span::default() { name } else { format!("{name}:{span}") };
            eprintln!("{at}: error: {message}");
            Ok(ExitCode::from(exit::INPUT_ERRORS))
        }
    }
}
