//! Every litmus test of `../shared/conformance/` must parse unchanged and round-trip through the
//! printer. Skipped, with the reason printed, where the folder is absent.

use std::path::{Path, PathBuf};

fn conformance_dir() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/conformance");
    dir.is_dir().then_some(dir)
}

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

fn check_folder(sub: &str, expected: usize) {
    let Some(root) = conformance_dir() else {
        println!("skipped: ../shared/conformance is absent");
        return;
    };
    let mut files = Vec::new();
    litmus_files(&root.join(sub), &mut files);
    let mut failures = Vec::new();
    for f in &files {
        let src = std::fs::read_to_string(f).expect("conformance file is readable");
        let name = f.display().to_string();
        match tcfuzz_litmus::parse(&src) {
            Err(e) => failures.push(e.render(&name)),
            Ok(p) => {
                let printed = tcfuzz_litmus::print(&p);
                match tcfuzz_litmus::parse(&printed) {
                    Ok(q) if q.same_as(&p) => {}
                    Ok(_) => failures.push(format!("{name}: printed program parses to a different program:\n{printed}")),
                    Err(e) => failures.push(format!("{name}: printed program does not parse:\n{}\n{printed}", e.render("<printed>"))),
                }
            }
        }
    }
    println!("conformance/{sub}: parsed and round-tripped {} / {} files", files.len() - failures.len(), files.len());
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
    assert_eq!(files.len(), expected, "the conformance corpus changed size");
}

#[test]
fn every_ptx_conformance_test_parses_and_round_trips() {
    check_folder("ptx", 598);
}

#[test]
fn every_tileir_conformance_test_parses_and_round_trips() {
    check_folder("tileir", 6);
}
