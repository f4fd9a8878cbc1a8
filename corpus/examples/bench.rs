//! Corpus figures (DESIGN §9 "corpus insert rate"): records per second with a flush per commit,
//! and bytes on disk per stored discrepancy and per coverage seed.
//!
//! ```sh
//! cargo run --release -p tcfuzz-corpus --example bench -- [RECORDS]   # default 2000
//! ```
//! Programs are the litmus files of `examples/` (real sizes), cycled; each discrepancy has its own
//! signature, each seed its own program text (a numbered comment line makes it distinct).

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::time::Instant;

use tcfuzz_corpus::{Corpus, Finding, Kind, Side};

fn programs() -> Vec<String> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../examples");
    let mut files = Vec::new();
    let mut stack = vec![root];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).expect("examples/").flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "litmus") {
                files.push(p);
            }
        }
    }
    files.sort();
    files.iter().filter_map(|p| std::fs::read_to_string(p).ok()).filter(|t| tcfuzz_litmus::parse(t).is_ok()).collect()
}

/// (apparent bytes, allocated bytes) of every file under `dir`.
fn du(dir: &Path) -> (u64, u64) {
    let (mut apparent, mut allocated) = (0, 0);
    for e in std::fs::read_dir(dir).expect("corpus dir").flatten() {
        let m = e.metadata().expect("metadata");
        if m.is_dir() {
            let (a, b) = du(&e.path());
            apparent += a;
            allocated += b;
        } else {
            apparent += m.len();
            allocated += m.blocks() * 512;
        }
    }
    (apparent, allocated)
}

fn finding(i: usize, programs: &[String]) -> Finding {
    Finding {
        kind: Kind::ExplorerVsOracle,
        signature: format!("explorer-extra-state:ld.relaxed,st.relaxed:{i}"),
        campaign: 1,
        seen_ms: 1_700_000_000_000 + i as u64,
        program: programs[i % programs.len()].clone(),
        sides: [
            Side {
                name: "explorer".into(),
                verdict: "States 3\nP1:r0=0; P1:r1=0;\nP1:r0=1; P1:r1=0;\nP1:r0=1; P1:r1=1;\nOk\nPositive: 1 Negative: 2".into(),
            },
            Side { name: "oracle".into(), verdict: "States 2\nP1:r0=0; P1:r1=0;\nP1:r0=1; P1:r1=1;\nNo\nPositive: 0 Negative: 2".into() },
        ],
    }
}

fn main() {
    let n: usize = std::env::args().nth(1).map_or(2000, |a| a.parse().expect("RECORDS must be a number"));
    let programs = programs();
    let avg_program = programs.iter().map(String::len).sum::<usize>() / programs.len();
    println!("corpus bench: {n} records, {} example programs of {avg_program} bytes on average", programs.len());

    let tmp = std::env::temp_dir().join(format!("tcfuzz-corpus-bench-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);

    // One discrepancy per commit: every record call flushes.
    let dir = tmp.join("discrepancies");
    let c = Corpus::open(&dir).expect("open");
    let before = du(&dir);
    let t = Instant::now();
    for i in 0..n {
        c.record_discrepancy(&finding(i, &programs)).expect("record");
    }
    let secs = t.elapsed().as_secs_f64();
    drop(c);
    let after = du(&dir);
    println!("discrepancies, one commit (flush) each: {:.0} records/s ({:.2} ms per record)", n as f64 / secs, secs * 1e3 / n as f64);
    println!(
        "  bytes on disk per discrepancy: {:.0} apparent, {:.0} allocated (program + 2 verdicts = {} bytes of text)",
        (after.0 - before.0) as f64 / n as f64,
        after.1.saturating_sub(before.1) as f64 / n as f64,
        avg_program + finding(0, &programs).sides.iter().map(|s| s.verdict.len()).sum::<usize>()
    );

    // A job's results in one commit: 100 discrepancies per flush.
    let dir = tmp.join("batched");
    let c = Corpus::open(&dir).expect("open");
    let t = Instant::now();
    for chunk in (0..n).collect::<Vec<_>>().chunks(100) {
        let mut u = c.update().expect("update");
        for &i in chunk {
            u.record_discrepancy(&finding(i, &programs)).expect("record");
        }
        u.commit().expect("commit");
    }
    let secs = t.elapsed().as_secs_f64();
    println!("discrepancies, 100 per commit: {:.0} records/s", n as f64 / secs);
    drop(c);

    // Coverage seeds, one per commit, with their features.
    let dir = tmp.join("seeds");
    let c = Corpus::open(&dir).expect("open");
    let before = du(&dir);
    let t = Instant::now();
    for i in 0..n {
        let program = format!("// seed {i}\n{}", programs[i % programs.len()]);
        let features = vec![format!("ld.relaxed.gpu x st.release.cta #{i}"), "scope-pair cta/gpu".to_string()];
        let mut u = c.update().expect("update");
        u.add_seed(1, i as u64, &features, &program).expect("seed");
        u.add_coverage(&features, i as u64).expect("coverage");
        u.commit().expect("commit");
    }
    let secs = t.elapsed().as_secs_f64();
    drop(c);
    let after = du(&dir);
    println!("coverage seeds (+ their coverage counts), one commit each: {:.0} records/s", n as f64 / secs);
    println!(
        "  bytes on disk per seed: {:.0} apparent, {:.0} allocated (program {avg_program} bytes)",
        (after.0 - before.0) as f64 / n as f64,
        after.1.saturating_sub(before.1) as f64 / n as f64
    );
    let _ = std::fs::remove_dir_all(&tmp);
}
