//! Shared helpers: real litmus programs from `examples/` and findings built from them.

use std::path::PathBuf;

use tcfuzz_corpus::{Finding, Kind, Side};

pub fn examples_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../examples")
}

/// Example programs in a fixed order (every `.litmus` under `examples/ptx`).
pub fn programs() -> Vec<String> {
    let dir = examples_dir().join("ptx");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir).expect("examples/ptx").map(|e| e.expect("entry").path()).collect();
    files.retain(|p| p.extension().is_some_and(|e| e == "litmus"));
    files.sort();
    files.iter().map(|p| std::fs::read_to_string(p).expect("example")).collect()
}

pub fn finding(i: usize, programs: &[String]) -> Finding {
    Finding {
        kind: if i.is_multiple_of(3) { Kind::ExplorerVsOracle } else { Kind::TileirWeakerThanPtx },
        signature: format!("sig-{i:05}"),
        campaign: 1 + (i as u64 % 2),
        seen_ms: 1_700_000_000_000 + i as u64,
        program: programs[i % programs.len()].clone(),
        sides: [
            Side { name: "explorer".into(), verdict: format!("States 2\nP0:r0=0; x=1;\nOk (finding {i})") },
            Side { name: "oracle".into(), verdict: "States 3\nNo".into() },
        ],
    }
}
