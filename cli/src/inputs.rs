//! Turns the PATH arguments of the commands that read programs into a list of files.
//!
//! A PATH is a file (taken whatever its extension or kind: `/dev/stdin` works), a directory
//! (walked recursively for regular `*.litmus` files, hidden entries and symlinked directories
//! skipped), or a glob pattern the shell did not expand (`'examples/**/*.litmus'`: bash without
//! `globstar` does not expand `**` recursively, and a quoted pattern reaches us unexpanded).
//! Files come out sorted within each PATH, each at most once, in the order of the arguments.
//!
//! Nothing found while walking stops the walk: an unreadable entry is an [`Input::Error`] in its
//! place and the rest is still listed; a `*.litmus` entry that is not a regular file (a named
//! pipe would block the reader forever) is an [`Input::Skipped`]. A directory without any
//! `*.litmus` file is an error, as a pattern matching nothing is.

use std::collections::HashSet;
use std::fs;
use std::path::{Path, PathBuf};

/// The extension of litmus files picked up from directories.
pub const LITMUS_EXT: &str = "litmus";

/// One expanded input.
#[derive(Debug)]
pub enum Input {
    File(PathBuf),
    /// A path that gives no file, and why: reported as `PATH: error: WHY`.
    Error {
        path: String,
        why: String,
    },
    /// A path left out on purpose, and why: reported as `PATH: note: WHY`.
    Skipped {
        path: String,
        why: String,
    },
}

impl Input {
    fn error(path: &Path, why: impl Into<String>) -> Input {
        Input::Error { path: path.display().to_string(), why: why.into() }
    }

    /// The path the input names.
    fn path(&self) -> PathBuf {
        match self {
            Input::File(p) => p.clone(),
            Input::Error { path, .. } | Input::Skipped { path, .. } => PathBuf::from(path),
        }
    }
}

/// Expands every argument. Skipped entries are reported on stderr here (they are no input; `quiet`
/// drops them); the files and the errors come back in order.
pub fn expand(args: &[PathBuf], quiet: bool) -> Vec<Input> {
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for arg in args {
        for input in expand_one(arg) {
            match input {
                Input::File(file) => {
                    if seen.insert(file.clone()) {
                        out.push(Input::File(file));
                    }
                }
                Input::Skipped { path, why } if !quiet => eprintln!("{path}: note: {why}"),
                Input::Skipped { .. } => {}
                error => out.push(error),
            }
        }
    }
    out
}

fn expand_one(arg: &Path) -> Vec<Input> {
    if let Ok(meta) = fs::metadata(arg) {
        if !meta.is_dir() {
            return vec![Input::File(arg.to_path_buf())];
        }
        let mut found = Vec::new();
        walk(arg, &mut found);
        tracing::debug!(dir = %arg.display(), count = found.len(), "walked directory");
        return sorted_or_error(found, arg, "no *.litmus file in this directory");
    }
    let text = arg.to_string_lossy();
    if !is_pattern(&text) {
        return vec![Input::error(arg, "no such file or directory")];
    }
    let paths = match glob::glob(&text) {
        Ok(paths) => paths,
        Err(e) => return vec![Input::error(arg, format!("invalid glob pattern: {e}"))],
    };
    let mut found = Vec::new();
    for entry in paths {
        match entry {
            Ok(path) if path.is_dir() => walk(&path, &mut found),
            Ok(path) => found.push(regular_file(path)),
            Err(e) => found.push(Input::error(e.path(), format!("cannot read: {}", e.error()))),
        }
    }
    tracing::debug!(pattern = %text, count = found.len(), "expanded glob");
    sorted_or_error(found, arg, "no file matches this pattern")
}

/// `found` sorted by path, or the error `empty` about `arg` when it holds no file.
fn sorted_or_error(mut found: Vec<Input>, arg: &Path, empty: &str) -> Vec<Input> {
    if !found.iter().any(|i| matches!(i, Input::File(_))) {
        found.push(Input::error(arg, empty));
    }
    found.sort_by_key(Input::path);
    found
}

fn is_pattern(text: &str) -> bool {
    text.contains(['*', '?', '['])
}

/// A file found by a walk or a pattern: read only if it is a regular file.
fn regular_file(path: PathBuf) -> Input {
    match fs::metadata(&path) {
        Ok(m) if m.is_file() => Input::File(path),
        Ok(_) => Input::Skipped { path: path.display().to_string(), why: "skipped: not a regular file".into() },
        Err(e) => Input::error(&path, format!("cannot read: {e}")),
    }
}

/// Collects the `*.litmus` entries under `dir`, recursively; what cannot be read becomes an error
/// in its place.
fn walk(dir: &Path, found: &mut Vec<Input>) {
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) => return found.push(Input::error(dir, format!("cannot read the directory: {e}"))),
    };
    for entry in entries {
        let entry = match entry {
            Ok(entry) => entry,
            Err(e) => {
                found.push(Input::error(dir, format!("cannot read the directory: {e}")));
                continue;
            }
        };
        if entry.file_name().to_string_lossy().starts_with('.') {
            continue;
        }
        let path = entry.path();
        match entry.file_type() {
            Ok(t) if t.is_dir() => walk(&path, found),
            Ok(t) if t.is_symlink() && path.is_dir() => tracing::debug!(path = %path.display(), "skipping symlinked directory"),
            Ok(_) if path.extension().is_some_and(|ext| ext == LITMUS_EXT) => found.push(regular_file(path)),
            Ok(_) => {}
            Err(e) => found.push(Input::error(&path, format!("cannot read: {e}"))),
        }
    }
}

/// Reads a program's text; the error says why it cannot be read (without the path).
pub fn read(path: &Path) -> Result<String, String> {
    fs::read_to_string(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::InvalidData => "cannot read: not UTF-8 text".to_string(),
        _ => format!("cannot read: {e}"),
    })
}

/// Reads and parses one program. On failure the errors are printed (`FILE: error: WHY`, or the
/// parser's `FILE:L:C: error:` lines) and `None` is returned: the caller exits with
/// [`crate::exit::INPUT_ERRORS`].
pub fn load(path: &Path) -> Option<tcfuzz_litmus::Program> {
    let name = path.display().to_string();
    let src = match read(path) {
        Ok(src) => src,
        Err(why) => {
            eprintln!("{name}: error: {why}");
            return None;
        }
    };
    match tcfuzz_litmus::parse(&src) {
        Ok(p) => Some(p),
        Err(diagnostics) => {
            eprint!("{}", diagnostics.render(&name));
            None
        }
    }
}

/// `N file` or `N files`.
pub fn files(n: usize) -> String {
    if n == 1 { "1 file".to_string() } else { format!("{n} files") }
}
