//! `tcfuzz fmt`: print litmus programs in canonical form (litmus/FORMAT.md, "Canonical printing").

use crate::exit;
use crate::inputs::{self, Input};
use anyhow::Context;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Rewrite litmus programs in canonical form.
///
/// Each PATH is a file, a directory (searched recursively for *.litmus files) or a glob pattern, as
/// for `tcfuzz parse`. By default a file is rewritten in place, and only if its canonical form
/// differs (a symbolic link stays a link: its target is rewritten). Comments are kept, each with
/// the item it belongs to (litmus/FORMAT.md). A file that does not parse or validate is reported
/// like `tcfuzz parse` does and left untouched. The summary line `N files, M reformatted, K with
/// errors` goes to stderr.
///
/// Exit codes: 0 success (with --check: every file is already canonical); 1 some file has errors
/// or cannot be read or written, or (with --check) would be reformatted; 2 usage error.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Files, directories or glob patterns.
    #[arg(required = true, value_name = "PATH")]
    pub paths: Vec<PathBuf>,

    /// Write nothing; list the files that would change and exit 1 if there is any.
    #[arg(long, conflicts_with = "stdout")]
    pub check: bool,

    /// Print the canonical form of each file on stdout instead of rewriting it.
    #[arg(long)]
    pub stdout: bool,
}

pub fn run(args: &Args, quiet: bool) -> anyhow::Result<ExitCode> {
    let mut stdout = std::io::stdout().lock();
    let mut total = 0;
    let mut failed = 0;
    let mut changed = 0;
    for input in inputs::expand(&args.paths, quiet) {
        total += 1;
        let path = match input {
            Input::File(path) => path,
            Input::Error { path, why } | Input::Skipped { path, why } => {
                eprintln!("{path}: error: {why}");
                failed += 1;
                continue;
            }
        };
        let name = path.display().to_string();
        let src = match inputs::read(&path) {
            Ok(src) => src,
            Err(why) => {
                eprintln!("{name}: error: {why}");
                failed += 1;
                continue;
            }
        };
        let program = match tcfuzz_litmus::parse(&src) {
            Ok(program) => program,
            Err(diagnostics) => {
                eprint!("{}", diagnostics.render(&name));
                failed += 1;
                continue;
            }
        };
        let canonical = tcfuzz_litmus::print(&program);
        if args.stdout {
            stdout.write_all(canonical.as_bytes())?;
            continue;
        }
        if canonical == src {
            tracing::debug!(file = %name, "already canonical");
            continue;
        }
        if args.check {
            changed += 1;
            writeln!(stdout, "would reformat {name}")?;
        } else if let Err(err) = write_through(&path, &canonical) {
            eprintln!("{name}: error: {err:#}");
            failed += 1;
        } else {
            changed += 1;
            tracing::info!(file = %name, "reformatted");
        }
    }
    if !quiet && !args.stdout {
        let verb = if args.check { "would reformat" } else { "reformatted" };
        eprintln!("{}, {changed} {verb}, {failed} with errors", inputs::files(total));
    }
    if args.check && changed > 0 {
        return Ok(ExitCode::from(exit::INPUT_ERRORS));
    }
    Ok(exit::from_failures(failed))
}

/// Replaces the file `path` names with `contents`; a symbolic link stays a link and its target
/// gets the new text.
fn write_through(path: &Path, contents: &str) -> anyhow::Result<()> {
    let target = fs::canonicalize(path).context("cannot resolve the path")?;
    if !fs::metadata(&target).is_ok_and(|m| m.is_file()) {
        anyhow::bail!("not a regular file: print its canonical form with --stdout instead");
    }
    write_atomically(&target, contents)
}

/// Writes `contents` to a temporary file beside `path`, then renames it over `path`, so a crash
/// never leaves a half-written program. Keeps the file's permissions.
fn write_atomically(path: &Path, contents: &str) -> anyhow::Result<()> {
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    let file_name = path.file_name().context("not a file name")?.to_string_lossy();
    let tmp = dir.join(format!(".{file_name}.tcfuzz-fmt-{}.tmp", std::process::id()));
    let result = (|| {
        let mut file = fs::File::create(&tmp).with_context(|| format!("cannot create {}", tmp.display()))?;
        file.write_all(contents.as_bytes()).and_then(|()| file.sync_all()).with_context(|| format!("cannot write {}", tmp.display()))?;
        if let Ok(meta) = fs::metadata(path) {
            fs::set_permissions(&tmp, meta.permissions()).with_context(|| format!("cannot set permissions of {}", tmp.display()))?;
        }
        fs::rename(&tmp, path).with_context(|| format!("cannot replace {} with {}", path.display(), tmp.display()))
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result
}
