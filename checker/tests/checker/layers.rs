//! The checker's modules are layers that import downward only (issue 26 item 11): a file may
//! name what its own layer or a layer below it defines, never a layer above. The test reads the
//! crate's sources and checks every `crate::` and `super::` path of non-test code.

use std::collections::BTreeMap;
use std::path::Path;

/// The layers, lowest first: a folder (or a root file) of `checker/src`, and what it holds.
/// `lib.rs`, the crate root, sits on top of them all and only re-exports.
const LAYERS: &[(&str, &str)] = &[
    ("options", "how to check: Options"),
    ("stats", "the counts of a check"),
    ("error", "CheckError"),
    ("program", "compiling a litmus program: labels, code, sync objects, tcgen05 and Tensor Memory, Tile IR"),
    ("exec", "running it: the interpreter, events, execution graphs, bitsets"),
    ("model", "judging a graph: SC, PTX with tcgen05, Tile IR"),
    ("verdict", "collecting the executions into a verdict, witnesses"),
    ("explore", "enumerating the executions: the DPOR explorer, the oracle, split exploration, the entry points"),
    ("differential", "the Tile IR → PTX lowering and the tileir-weaker-than-ptx check"),
];

fn rank(layer: &str) -> Option<usize> {
    LAYERS.iter().position(|(l, _)| *l == layer)
}

/// The module path of a source file relative to `src`: `model/ptx/floor.rs` → `[model, ptx,
/// floor]`, `model/mod.rs` → `[model]`.
fn module_path(rel: &str) -> Vec<String> {
    let mut parts: Vec<String> = rel.trim_end_matches(".rs").split('/').map(str::to_string).collect();
    if parts.last().is_some_and(|p| p == "mod") {
        parts.pop();
    }
    parts
}

/// The code of a file that the crate builds outside tests: comments dropped, and the test module
/// at its end (`#[cfg(test)]` at the start of a line, then `mod … {`) cut off. Also the names of
/// child modules declared test-only (`#[cfg(test)] mod x;`), whose files are skipped.
fn non_test_code(src: &str) -> (Vec<(usize, String)>, Vec<String>) {
    let mut lines: Vec<(usize, String)> = Vec::new();
    let mut test_children = Vec::new();
    let mut cfg_test = false;
    for (i, line) in src.lines().enumerate() {
        let code = line.split("//").next().unwrap_or("");
        let trimmed = code.trim();
        if cfg_test && let Some(decl) = trimmed.strip_prefix("mod ").or_else(|| trimmed.strip_prefix("pub(crate) mod ")) {
            if let Some(name) = decl.strip_suffix(';') {
                test_children.push(name.trim().to_string());
                cfg_test = false;
                continue;
            }
            if line.starts_with("mod ") {
                break;
            }
        }
        cfg_test = trimmed == "#[cfg(test)]";
        // A `use` over several lines is read as one, at its first line.
        match lines.last_mut() {
            Some((_, open)) if open_use(open) => open.push_str(code),
            _ => lines.push((i + 1, code.to_string())),
        }
    }
    (lines, test_children)
}

/// Whether `code` starts a `use` that has not ended yet.
fn open_use(code: &str) -> bool {
    let t = code.trim_start();
    (t.starts_with("use ") || t.starts_with("pub use ") || t.starts_with("pub(crate) use ")) && !t.contains(';')
}

/// The top-level module each `crate::` or `super::` path of `code` (in module `module`) names.
fn named_layers(module: &[String], code: &str) -> Vec<String> {
    let mut out = Vec::new();
    let bytes = code.as_bytes();
    let word = |at: usize| -> String { code[at..].chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect() };
    let mut i = 0;
    while i < code.len() {
        if !code.is_char_boundary(i) {
            i += 1;
            continue;
        }
        let boundary = i == 0 || !(bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'_' || bytes[i - 1] == b':');
        if boundary && code[i..].starts_with("crate::") {
            let rest = i + "crate::".len();
            if code[rest..].starts_with('{') {
                // `use crate::{a::x, b::{y, z}}`: the first segment of each top-level entry.
                let mut depth = 0;
                let mut entry_start = true;
                for (k, c) in code[rest..].char_indices() {
                    match c {
                        '{' => {
                            depth += 1;
                            entry_start = depth == 1;
                        }
                        '}' => {
                            depth -= 1;
                            if depth == 0 {
                                break;
                            }
                        }
                        ',' if depth == 1 => entry_start = true,
                        c if entry_start && depth == 1 && !c.is_whitespace() => {
                            out.push(word(rest + k));
                            entry_start = false;
                        }
                        _ => {}
                    }
                }
            } else {
                out.push(word(rest));
            }
            i = rest;
            continue;
        }
        if boundary && code[i..].starts_with("super::") {
            let mut at = i;
            let mut path = module.to_vec();
            while code[at..].starts_with("super::") {
                path.pop();
                at += "super::".len();
            }
            // Only a `super` chain that climbs out of the top-level module leaves its layer.
            if path.is_empty() {
                out.push(word(at));
            }
            i = at;
            continue;
        }
        i += 1;
    }
    out
}

/// Every upward or root import of the sources in `files` (path relative to `src` → text), as
/// `file:line: ...` messages.
fn violations(files: &BTreeMap<String, String>) -> Vec<String> {
    let mut test_only: Vec<String> = Vec::new();
    let mut parsed = BTreeMap::new();
    for (rel, src) in files {
        let (lines, children) = non_test_code(src);
        let dir = rel.strip_suffix("mod.rs").or_else(|| rel.strip_suffix(".rs")).unwrap_or(rel);
        let dir = if rel.ends_with("mod.rs") { dir.to_string() } else { format!("{dir}/") };
        test_only.extend(children.iter().map(|c| format!("{dir}{c}")));
        parsed.insert(rel.clone(), lines);
    }
    let mut out = Vec::new();
    for (rel, lines) in &parsed {
        if rel == "lib.rs"
            || test_only.iter().any(|t| {
                rel.strip_suffix(".rs").is_some_and(|r| r == t || r.starts_with(&format!("{t}/"))) || rel.starts_with(&format!("{t}/"))
            })
        {
            continue;
        }
        let module = module_path(rel);
        let own = &module[0];
        let Some(own_rank) = rank(own) else {
            out.push(format!("{rel}: is in no layer; add `{own}` to LAYERS in tests/checker/layers.rs"));
            continue;
        };
        for (n, code) in lines {
            for named in named_layers(&module, code) {
                match rank(&named) {
                    Some(r) if r <= own_rank => {}
                    Some(_) => out.push(format!("{rel}:{n}: layer `{own}` imports `{named}`, a layer above it: {}", code.trim())),
                    None => out.push(format!(
                        "{rel}:{n}: layer `{own}` imports `crate::{named}` from the crate root; name the module that defines it: {}",
                        code.trim()
                    )),
                }
            }
        }
    }
    out
}

fn read_sources(dir: &Path, root: &Path, out: &mut BTreeMap<String, String>) {
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("reading {}: {e}", dir.display()));
    for entry in entries {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            read_sources(&path, root, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let rel = path.strip_prefix(root).expect("under src").to_string_lossy().replace('\\', "/");
            let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
            out.insert(rel, text);
        }
    }
}

#[test]
fn checker_modules_import_downward_only() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = BTreeMap::new();
    read_sources(&src, &src, &mut files);
    assert!(files.len() > 30, "read only {} files of {}", files.len(), src.display());
    let bad = violations(&files);
    assert!(
        bad.is_empty(),
        "imports that go up a layer (lowest first: {:?}):\n{}",
        LAYERS.iter().map(|l| l.0).collect::<Vec<_>>(),
        bad.join("\n")
    );
}

/// The check itself catches an upward import, a root import, a `super` chain that leaves the
/// layer and a grouped `use`, and ignores comments and test modules.
#[test]
fn layer_check_names_each_upward_import() {
    let files: BTreeMap<String, String> = [
        ("lib.rs", "pub use explore::check::check;\n"),
        ("program/mod.rs", "// crate::verdict in a comment\nuse crate::error::CheckError;\nmod sync;\n#[cfg(test)]\nmod reference;\n"),
        ("program/sync.rs", "use crate::exec::graph::ExecutionGraph;\nfn f() { super::super::verdict::x(); }\n"),
        ("program/reference.rs", "use crate::explore::oracle::Oracle;\n"),
        ("exec/graph.rs", "use crate::{program::label::Label, model::Sc};\nfn g() -> crate::Options { todo!() }\n"),
        ("model/mod.rs", "use crate::exec::graph::ExecutionGraph;\n#[cfg(test)]\nmod tests {\n    use crate::explore::check::check;\n}\n"),
    ]
    .into_iter()
    .map(|(p, s)| (p.to_string(), s.to_string()))
    .collect();
    assert_eq!(
        violations(&files),
        [
            "exec/graph.rs:1: layer `exec` imports `model`, a layer above it: use crate::{program::label::Label, model::Sc};",
            "exec/graph.rs:2: layer `exec` imports `crate::Options` from the crate root; name the module that defines it: fn g() -> crate::Options { todo!() }",
            "program/sync.rs:1: layer `program` imports `exec`, a layer above it: use crate::exec::graph::ExecutionGraph;",
            "program/sync.rs:2: layer `program` imports `verdict`, a layer above it: fn f() { super::super::verdict::x(); }",
        ]
    );
}
