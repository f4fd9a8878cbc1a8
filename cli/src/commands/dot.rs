//! `tcfuzz check --dot DIR`: the witness execution of each observed outcome as a Graphviz file.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use anyhow::Context;
use tcfuzz_checker::{Verdict, Witness};

use crate::outputs;

/// Writes witness graphs into one directory, giving each test name its own file names.
pub struct DotWriter {
    dir: PathBuf,
    /// How many checked programs have used each (sanitized) test name so far.
    names: HashMap<String, usize>,
}

/// One written file and the outcome it witnesses (`P1:r0=1; P1:r1=0;`).
pub struct DotFile {
    pub path: PathBuf,
    pub state: String,
}

impl DotWriter {
    /// Creates `dir` if it does not exist; an error if it exists and is not a directory.
    pub fn new(dir: &Path) -> anyhow::Result<DotWriter> {
        outputs::ensure_dir(dir, "--dot")?;
        Ok(DotWriter { dir: dir.to_path_buf(), names: HashMap::new() })
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Writes `DIR/<test name>-<k>.dot` for each witness of `v`, k = 1.. in the order of the
    /// verdict's final states. A second program with the same test name in one run gets
    /// `<test name>_2-<k>.dot`, and so on.
    pub fn write(&mut self, v: &Verdict) -> anyhow::Result<Vec<DotFile>> {
        let base = file_stem(&v.program);
        let uses = self.names.entry(base.clone()).or_insert(0);
        *uses += 1;
        let stem = if *uses == 1 { base } else { format!("{base}_{uses}") };
        let mut files = Vec::new();
        for (k, (state, witness)) in in_state_order(v).into_iter().enumerate() {
            let path = self.dir.join(format!("{stem}-{}.dot", k + 1));
            std::fs::write(&path, &witness.dot).with_context(|| format!("cannot write {}", path.display()))?;
            files.push(DotFile { path, state });
        }
        Ok(files)
    }
}

/// The witnesses of `v` in the order of its final states (a witness stands for every final state
/// that agrees with it on what the condition observes), each with its observed state as text.
fn in_state_order(v: &Verdict) -> Vec<(String, &Witness)> {
    let mut used = vec![false; v.witnesses.len()];
    let mut order = Vec::with_capacity(v.witnesses.len());
    for s in &v.states {
        let observed: Vec<(String, i64)> =
            v.observed.iter().filter_map(|name| s.values.iter().find(|(n, _)| **n == **name).map(|(n, v)| (n.to_string(), *v))).collect();
        if let Some(i) = v.witnesses.iter().position(|w| w.state == observed)
            && !used[i]
        {
            used[i] = true;
            order.push(i);
        }
    }
    // Witnesses of no final state cannot happen; keep them rather than drop a graph.
    order.extend((0..v.witnesses.len()).filter(|&i| !used[i]));
    order
        .into_iter()
        .map(|i| {
            let w = &v.witnesses[i];
            let state = w.state.iter().map(|(k, x)| format!("{k}={x};")).collect::<Vec<_>>().join(" ");
            (state, &w.witness)
        })
        .collect()
}

/// A test name as a file name: letters, digits and `+-._` kept, anything else `_`; no leading
/// dot; `test` for an empty name.
fn file_stem(name: &str) -> String {
    let mut s: String =
        name.chars().take(200).map(|c| if c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.' | '_') { c } else { '_' }).collect();
    if s.starts_with('.') {
        s.replace_range(..1, "_");
    }
    if s.is_empty() { "test".to_string() } else { s }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn test_names_become_safe_file_names() {
        assert_eq!(file_stem("MP+rel+acq-gpu.diffcta"), "MP+rel+acq-gpu.diffcta");
        assert_eq!(file_stem("a/b c:d"), "a_b_c_d");
        assert_eq!(file_stem("../x"), "_._x");
        assert_eq!(file_stem(""), "test");
    }
}
