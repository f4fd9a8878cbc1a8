//! `tcfuzz parse`: parse and validate litmus programs, report every error with its position.

use crate::exit;
use crate::inputs::{self, Input};
use serde::Serialize;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use tcfuzz_litmus::Diagnostics;

/// Parse and validate litmus programs; report every error as FILE:LINE:COL.
///
/// Each PATH is a file, a directory (searched recursively for *.litmus files, in sorted order), or a
/// glob pattern such as 'examples/**/*.litmus' (quote it so the shell leaves it alone). Only
/// regular files are read from directories and patterns (others are skipped with a note); a file
/// named on the command line is read whatever it is. Errors go to stderr as `FILE:LINE:COL:
/// error: MESSAGE` (`FILE: error: MESSAGE` without a position), and so does the summary line
/// `parsed N files, M with errors`.
///
/// Exit codes: 0 every file parses and validates; 1 some file has errors or cannot be read (a
/// missing PATH, a directory without *.litmus files or a pattern matching nothing included); 2
/// usage error.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Files, directories or glob patterns.
    #[arg(required = true, value_name = "PATH")]
    pub paths: Vec<PathBuf>,

    /// Print one JSON object per file per line on stdout instead of human-readable errors:
    /// {"file", "ok", "threads" (null unless ok), "errors": [{"line", "col", "kind", "message"}]}.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: &Args, quiet: bool) -> anyhow::Result<ExitCode> {
    let mut stdout = std::io::stdout().lock();
    let mut total = 0;
    let mut failed = 0;
    for input in inputs::expand(&args.paths, quiet) {
        total += 1;
        let (name, result) = match input {
            Input::File(path) => {
                let name = path.display().to_string();
                tracing::info!(file = %name, "parsing");
                let result = inputs::read(&path).map(|src| tcfuzz_litmus::parse(&src));
                (name, result)
            }
            Input::Error { path, why } | Input::Skipped { path, why } => (path, Err(why)),
        };
        let ok = matches!(result, Ok(Ok(_)));
        if !ok {
            failed += 1;
        }
        if args.json {
            let line = serde_json::to_string(&FileReport::new(&name, &result))?;
            writeln!(stdout, "{line}")?;
        } else {
            match &result {
                Ok(Ok(_)) => {}
                Ok(Err(diagnostics)) => eprint!("{}", diagnostics.render(&name)),
                Err(why) => eprintln!("{name}: error: {why}"),
            }
        }
    }
    if !quiet {
        eprintln!("parsed {}, {failed} with errors", inputs::files(total));
    }
    Ok(exit::from_failures(failed))
}

/// One line of `--json` output. Field order is the documented one.
#[derive(Serialize)]
struct FileReport<'a> {
    file: &'a str,
    ok: bool,
    /// The number of threads; `None` (null) unless the program parsed and validated.
    threads: Option<usize>,
    errors: Vec<ErrorReport>,
}

#[derive(Serialize)]
struct ErrorReport {
    line: u32,
    col: u32,
    /// The `Debug` form of [`tcfuzz_litmus::ErrorKind`]; `Io` for a file that cannot be read.
    kind: String,
    message: String,
}

impl<'a> FileReport<'a> {
    fn new(file: &'a str, result: &Result<Result<tcfuzz_litmus::Program, Diagnostics>, String>) -> Self {
        let (threads, errors) = match result {
            Ok(Ok(program)) => (Some(program.threads.len()), Vec::new()),
            Ok(Err(diagnostics)) => {
                let errors = diagnostics
                    .0
                    .iter()
                    .map(|d| ErrorReport { line: d.span.line, col: d.span.col, kind: format!("{:?}", d.kind), message: d.message.clone() })
                    .collect();
                (None, errors)
            }
            Err(why) => {
                let error = ErrorReport { line: 0, col: 0, kind: "Io".into(), message: why.clone() };
                (None, vec![error])
            }
        };
        FileReport { file, ok: threads.is_some(), threads, errors }
    }
}
