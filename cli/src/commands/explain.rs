//! `tcfuzz explain`: show, for a racy, stuck or misusing program, one execution per problem as a
//! per-thread timeline — what a kernel author needs to see what is wrong in one screen.

use crate::commands::check::{OneProgram, Outcome, one_program, report_error};
use crate::exit;
use std::io::Write;
use std::process::ExitCode;
use tcfuzz_checker::Options;

/// Explain what is wrong with a litmus program: for each kind of problem the checker finds (a
/// data, tmem or proxy race; a hang; a Tensor Memory allocator misuse) print one execution that
/// shows it as a per-thread timeline — every event in program order, asynchronous tcgen05
/// operations as their perform events (`(tcgen05.mma perform)`), what each read reads from, the
/// offending events marked `>>` — then in a sentence what is missing (for races: what the spec
/// would use to order the two events; for hangs: why the waits never succeed; for misuse: the
/// rule and what would keep to it).
///
/// Exit codes: 0 explained, or nothing to explain; 1 the file cannot be read, parsed or checked;
/// 2 usage error (and --model tileir on a program without Tile IR threads); 3 the program uses
/// an instruction the checker does not support yet.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub program: OneProgram,
}

pub fn run(args: &Args) -> anyhow::Result<ExitCode> {
    let file = args.program.file.display().to_string();
    let (program, model) = match one_program(&args.program) {
        Ok(loaded) => loaded,
        Err(code) => return Ok(code),
    };
    let options = Options { witnesses: true, ..Options::default() };
    let verdict = match tcfuzz_checker::check(&program, model, &options) {
        Ok(v) => v,
        Err(err) => {
            return Ok(match report_error(&file, &err) {
                Outcome::Unsupported => ExitCode::from(exit::UNSUPPORTED),
                _ => ExitCode::from(exit::INPUT_ERRORS),
            });
        }
    };
    let mut out = std::io::stdout().lock();
    writeln!(out, "Test {} ({} model)", verdict.program, model.name())?;
    if verdict.explanations.is_empty() {
        writeln!(
            out,
            "No race, hang or misuse in any of its {} executions: nothing to explain.",
            verdict.stats.complete + verdict.stats.blocked
        )?;
    }
    for x in &verdict.explanations {
        writeln!(out, "\n{}\n\n{}\n{}", x.headline, x.timeline, x.missing)?;
    }
    for caveat in &verdict.caveats {
        writeln!(out, "\nCaveat: {caveat}")?;
    }
    Ok(ExitCode::SUCCESS)
}
