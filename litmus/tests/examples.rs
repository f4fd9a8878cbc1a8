//! Every program in `examples/` parses, round-trips through the printer, and carries the header
//! lines that state what the spec says about it (`// spec:` and at least one `// expect`).

use std::path::{Path, PathBuf};

fn litmus_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    let mut entries: Vec<_> = entries.filter_map(Result::ok).map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            litmus_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "litmus") {
            out.push(p);
        }
    }
}

#[test]
fn every_example_parses_round_trips_and_states_its_expectation() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples");
    let mut files = Vec::new();
    litmus_files(&root, &mut files);
    assert!(files.len() >= 60, "examples/ should hold the spec's patterns and the classic shapes, found {}", files.len());
    let mut failures = Vec::new();
    for f in &files {
        let name = f.strip_prefix(&root).unwrap_or(f).display().to_string();
        let src = std::fs::read_to_string(f).expect("example is readable");
        if !src.lines().any(|l| l.starts_with("// spec:")) || !src.lines().any(|l| l.starts_with("// expect ")) {
            failures.push(format!("{name}: missing its `// spec:` or `// expect ...` header line"));
        }
        match tcfuzz_litmus::parse(&src) {
            Err(e) => failures.push(e.render(&name)),
            Ok(p) => match tcfuzz_litmus::parse(&tcfuzz_litmus::print(&p)) {
                Ok(q) if q.same_as(&p) => {}
                _ => failures.push(format!("{name}: does not round-trip through the printer")),
            },
        }
    }
    println!("examples: {} files, {} failures", files.len(), failures.len());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
