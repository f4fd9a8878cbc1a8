//! Turns the PATH arguments of `parse` and `fmt` into a list of files.
//!
//! A PATH is a file (taken whatever its extension), a directory (walked recursively for `*.litmus`
//! files, hidden entries and symlinked directories skipped), or a glob pattern the shell did not
//! expand (`'examples/**/*.litmus'`: bash without `globstar` does not expand `**` recursively, and
//! a quoted pattern reaches us unexpanded). Files come out sorted within each PATH, each at most
//! once, in the order of the arguments.

use anyhow::{Context, bail};
use std::collections::HashSet;
use std::fs;
use std::path::{Path, PathBuf};

/// The extension of litmus files picked up from directories.
pub const LITMUS_EXT: &str = "litmus";

/// One expanded input: a file to read, or an argument that named nothing usable.
#[derive(Debug)]
pub enum Input {
    File(PathBuf),
    /// The argument as given, and why it gives no file.
    Error(String, anyhow::Error),
}

/// Expands every argument; an argument that fails gives one [`Input::Error`] and the rest go on.
pub fn expand(args: &[PathBuf]) -> Vec<Input> {
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for arg in args {
        match expand_one(arg) {
            Ok(files) => {
                for file in files {
                    if seen.insert(file.clone()) {
                        out.push(Input::File(file));
                    }
                }
            }
            Err(err) => out.push(Input::Error(arg.display().to_string(), err)),
        }
    }
    out
}

fn expand_one(arg: &Path) -> anyhow::Result<Vec<PathBuf>> {
    if let Ok(meta) = fs::metadata(arg) {
        if meta.is_dir() {
            let mut files = Vec::new();
            walk(arg, &mut files)?;
            files.sort();
            tracing::debug!(dir = %arg.display(), count = files.len(), "walked directory");
            return Ok(files);
        }
        return Ok(vec![arg.to_path_buf()]);
    }
    let text = arg.to_string_lossy();
    if !is_pattern(&text) {
        bail!("{}: no such file or directory", arg.display());
    }
    let paths = glob::glob(&text).with_context(|| format!("invalid glob pattern '{text}'"))?;
    let mut files = Vec::new();
    for entry in paths {
        let path = entry.with_context(|| format!("while expanding '{text}'"))?;
        if path.is_dir() {
            walk(&path, &mut files)?;
        } else {
            files.push(path);
        }
    }
    if files.is_empty() {
        bail!("no file matches the pattern '{text}'");
    }
    files.sort();
    files.dedup();
    tracing::debug!(pattern = %text, count = files.len(), "expanded glob");
    Ok(files)
}

fn is_pattern(text: &str) -> bool {
    text.contains(['*', '?', '['])
}

/// Collects the `*.litmus` files under `dir`, recursively.
fn walk(dir: &Path, files: &mut Vec<PathBuf>) -> anyhow::Result<()> {
    let entries = fs::read_dir(dir).with_context(|| format!("cannot read directory {}", dir.display()))?;
    for entry in entries {
        let entry = entry.with_context(|| format!("cannot read directory {}", dir.display()))?;
        if entry.file_name().to_string_lossy().starts_with('.') {
            continue;
        }
        let path = entry.path();
        let file_type = entry.file_type().with_context(|| format!("cannot read {}", path.display()))?;
        if file_type.is_dir() {
            walk(&path, files)?;
        } else if file_type.is_symlink() && path.is_dir() {
            tracing::debug!(path = %path.display(), "skipping symlinked directory");
        } else if path.extension().is_some_and(|ext| ext == LITMUS_EXT) {
            files.push(path);
        }
    }
    Ok(())
}
