//! Conformance on the Dat3M PTX litmus corpus in `../shared/conformance/ptx/` (see its README):
//! for every test, our verdict (herd7's Ok/No for the test's quantifier) against the `expected`
//! column (Dat3M's recorded result) and the `oracle` column (herd7 with a port of Dat3M's
//! `ptx-v7.5.cat`). Prints `agree N / M` per column and per method, and the reasons for tests we
//! cannot judge yet. Asserts only floors that pass today, so a regression fails the test.
//! Skipped with a printed reason when `../shared` is absent.

use std::collections::BTreeMap;
use std::path::PathBuf;

use tcfuzz_checker::{CheckError, ModelKind, Options, Verdict, check, check_oracle};

const FLOOR_EXPLORER_HERD: u32 = 211;
const FLOOR_ORACLE_HERD: u32 = 206;
const FLOOR_CADP: u32 = 378;

struct Row {
    path: String,
    expected: Option<bool>,
    oracle: Option<bool>,
}

fn corpus() -> Option<(PathBuf, Vec<Row>)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/conformance/ptx");
    let csv = std::fs::read_to_string(dir.join("expected.csv")).ok()?;
    let verdict = |s: &str| match s {
        "Ok" => Some(true),
        "No" => Some(false),
        _ => None,
    };
    let rows = csv
        .lines()
        .skip(1)
        .filter_map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            (f.len() >= 4).then(|| Row { path: f[0].to_string(), expected: verdict(f[2]), oracle: verdict(f[3]) })
        })
        .collect();
    Some((dir, rows))
}

#[derive(Default)]
struct Tally {
    expected: (u32, u32),
    oracle: (u32, u32),
    disagreements: Vec<String>,
}

impl Tally {
    fn add(&mut self, row: &Row, ours: bool) {
        if let Some(e) = row.expected {
            self.expected.1 += 1;
            if e == ours {
                self.expected.0 += 1;
            } else {
                self.disagreements.push(format!("{} (expected {e}, ours {ours})", row.path));
            }
        }
        if let Some(o) = row.oracle {
            self.oracle.1 += 1;
            if o == ours {
                self.oracle.0 += 1;
            } else if row.expected.is_none() {
                self.disagreements.push(format!("{} (herd oracle {o}, ours {ours})", row.path));
            }
        }
    }
}

fn reason(e: &CheckError) -> String {
    match e {
        CheckError::Unsupported { instruction, .. } => format!("unsupported: {instruction}"),
        CheckError::TooLarge(_) => "too large".to_string(),
        other => format!("error: {other}"),
    }
}

#[test]
fn conformance_ptx_dat3m() {
    let Some((dir, rows)) = corpus() else {
        println!("conformance: skipped, ../shared/conformance/ptx/expected.csv not found");
        return;
    };
    let opts = Options { oracle_limit: 200_000, max_executions: 200_000, ..Options::default() };
    let (mut explorer, mut oracle) = (Tally::default(), Tally::default());
    let mut cadp = (0u32, 0u32);
    let mut skipped: BTreeMap<String, u32> = BTreeMap::new();
    let mut parse_failures = 0;
    for row in &rows {
        let Ok(src) = std::fs::read_to_string(dir.join(&row.path)) else {
            *skipped.entry("file missing".into()).or_default() += 1;
            continue;
        };
        let program = match tcfuzz_litmus::parse(&src) {
            Ok(p) => p,
            Err(_) => {
                parse_failures += 1;
                continue;
            }
        };
        let t0 = std::time::Instant::now();
        let e: Result<Verdict, CheckError> = check(&program, ModelKind::Ptx, &opts);
        if std::env::var("TCFUZZ_CONF_TIMES").is_ok() {
            eprintln!("{}: explorer {:?}", row.path, t0.elapsed());
        }
        if row.path.starts_with("CADP/") {
            // Spin-loop forward-progress tests with the trivial condition `exists 0==0`. The herd
            // column comes from a run that does not unroll loops, so it says "No" wherever every
            // terminating path takes a backward jump: not comparable. We only count how many
            // we judge (and that a terminating execution exists, which is what the condition
            // asks). The oracle is not run: its trace enumeration takes seconds on each.
            cadp.1 += 1;
            if e.as_ref().is_ok_and(|v| v.condition.validated) {
                cadp.0 += 1;
            }
            continue;
        }
        match e {
            Ok(v) => explorer.add(row, v.condition.validated),
            Err(err) => {
                *skipped.entry(reason(&err)).or_default() += 1;
                continue;
            }
        }
        let t0 = std::time::Instant::now();
        let o = check_oracle(&program, ModelKind::Ptx, &opts);
        if std::env::var("TCFUZZ_CONF_TIMES").is_ok() {
            eprintln!("{}: oracle {:?}", row.path, t0.elapsed());
        }
        match o {
            Ok(v) => oracle.add(row, v.condition.validated),
            Err(err) => *skipped.entry(format!("oracle {}", reason(&err))).or_default() += 1,
        }
    }
    println!("conformance: {} tests, {parse_failures} do not parse", rows.len());
    println!("CADP spin-loop tests: a terminating execution found in {} / {}", cadp.0, cadp.1);
    for (why, n) in &skipped {
        println!("  not judged ({n}): {why}");
    }
    for (name, t) in [("explorer", &explorer), ("oracle", &oracle)] {
        println!("{name}: expected column agree {} / {}", t.expected.0, t.expected.1);
        println!("{name}: herd oracle column agree {} / {}", t.oracle.0, t.oracle.1);
        for d in &t.disagreements {
            println!("  {name} disagrees: {d}");
        }
    }
    // Floors: what passes today. Known disagreements: Co-Total-3-threads-scope-same,
    // Co-Total-4-threads and Cause-base-weak need a partial coherence order (racy weak writes,
    // see the crate docs). (LB-dlb-no-fence-1, MICRO24-Fig4b and SL-future-minus need load
    // buffering: the explorer's dependency revisits find it.) SB+bar-const-diff, SB+twice-bars-diff and
    // barrier-instance-id-exists put threads of one CTA on different barrier ids: per the PTX ISA
    // (`bar`: without a thread count, all threads of the CTA participate) they hang, while Dat3M
    // lets the threads that use an id synchronize among themselves. barrier-logical-id-exists
    // writes `bar.cta.sync 1, 1` / `bar.cta.sync 1, 2`, which the ISA reads as barrier 1 with
    // thread counts 1 and 2 (Dat3M: a second barrier name). Barrier/quorum* (Dat3M's three-operand
    // quorum form) all agree, liveness included (checker/src/sync.rs); SB+named-bar-* put the
    // thread count in a register (unsupported).
    assert_eq!(parse_failures, 0);
    assert!(explorer.expected.0 >= 208, "explorer vs expected regressed");
    assert!(oracle.expected.0 >= 203, "oracle vs expected regressed");
    assert!(explorer.oracle.0 >= FLOOR_EXPLORER_HERD, "explorer vs herd regressed");
    assert!(oracle.oracle.0 >= FLOOR_ORACLE_HERD, "oracle vs herd regressed");
    assert!(cadp.0 >= FLOOR_CADP, "CADP regressed");
}
