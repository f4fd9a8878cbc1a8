//! Issue 27, "Side by side built in": `tcfuzz bench --genmc-bin` runs GenMC beside the explorer.
//! GenMC itself is not on CI's machine, so these run a stand-in script that checks the command
//! line it is given and prints GenMC v0.11's output lines (its `src/main.cpp`).

use super::*;
use std::os::unix::fs::PermissionsExt;

/// A GenMC source tree with the one test program the readers family runs, and a stand-in GenMC
/// binary at its root (where GenMC's in-tree build leaves `genmc`) running `script`.
fn fake_genmc(dir: &TempDir, script: &str) -> PathBuf {
    dir.write("genmc/tests/correct/synthetic/readers/variants/readers0.c", "/* readers */\n");
    let bin = dir.write("genmc/genmc", &format!("#!/bin/sh\n{script}"));
    std::fs::set_permissions(&bin, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    bin
}

/// Prints GenMC's output for readers N=2 under SC, and only for the command line `bench` must
/// give it: `-sc --disable-estimation -- -DN=2 <its own test program>`.
const READERS_2: &str = r#"[ "$1 $2 $3 $4" = "-sc --disable-estimation -- -DN=2" ] || { echo "unexpected arguments: $*" >&2; exit 9; }
case "$5" in */tests/correct/synthetic/readers/variants/readers0.c) ;; *) echo "unexpected program $5" >&2; exit 9;; esac
[ -f "$5" ] || { echo "no file $5" >&2; exit 9; }
printf 'GenMC v0.11.0 (LLVM 19.1.7)\nCopyright (C) 2024 MPI-SWS. All rights reserved.\n\n'
printf '*** Compilation complete.\n*** Transformation complete.\n*** Verification complete.\nNo errors were detected.\n'
printf 'Number of complete executions explored: %s\nTotal wall-clock time: 0.01s\n' "${COMPLETE:-4}"
"#;

fn rows(out: &Output) -> Vec<serde_json::Value> {
    stdout(out).lines().map(|l| serde_json::from_str(l).expect("JSON row")).collect()
}

#[test]
fn side_by_side_row_has_both_counts_the_equal_flag_and_the_ratio() {
    let dir = TempDir::new("genmc-bench");
    let bin = fake_genmc(&dir, READERS_2);
    let bin = bin.to_str().expect("UTF-8 path");
    let out = tcfuzz(&["bench", "--genmc-bin", bin, "--family", "readers", "--n", "2", "--repeat", "2", "--json"], dir.path());
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let rows = rows(&out);
    assert_eq!(rows.len(), 1, "{}", stdout(&out));
    let row = &rows[0];
    // 2^2 complete executions on both sides.
    assert_eq!(
        (row["complete"].as_u64(), row["genmc_complete"].as_u64(), row["genmc_blocked"].as_u64()),
        (Some(4), Some(4), Some(0)),
        "{row}"
    );
    assert_eq!(row["genmc_source"], "run", "{row}");
    assert_eq!(row["genmc_counts_equal"], true, "{row}");
    assert!(row["speedup_vs_genmc"].as_f64().is_some_and(|r| r > 0.0), "{row}");
    assert!(row["genmc_seconds"].as_f64().is_some_and(|s| s > 0.0), "{row}");
    // At exec Linux copies our peak RSS into the child's, so a child smaller than tcfuzz (this
    // shell) has no figure of its own to report: unknown, not tcfuzz's.
    assert!(row["genmc_peak_rss_kb"].is_null(), "{row}");
    assert!(row["peak_rss_kb"].as_u64().is_some_and(|kb| kb > 0), "{row}");

    // The table shows the same, and the scaling table needs two sizes: none here.
    let text = tcfuzz(&["bench", "--genmc-bin", bin, "--family", "readers", "--n", "2"], dir.path());
    assert_eq!(code(&text), 0, "{}", stderr(&text));
    let line = stdout(&text).lines().find(|l| l.starts_with("readers")).map(str::to_string).expect("a readers row");
    assert!(line.contains(" yes ") && line.trim_end().ends_with('x'), "{line}");
    assert!(!stdout(&text).contains("scaling:"), "{}", stdout(&text));
}

#[test]
fn different_complete_counts_say_so_and_give_no_ratio() {
    let dir = TempDir::new("genmc-bench-differ");
    let bin = fake_genmc(&dir, &format!("COMPLETE=5\n{READERS_2}"));
    let out = tcfuzz(&["bench", "--genmc-bin", bin.to_str().expect("UTF-8"), "--family", "readers", "--n", "2", "--json"], dir.path());
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let row = &rows(&out)[0];
    assert_eq!((row["complete"].as_u64(), row["genmc_complete"].as_u64()), (Some(4), Some(5)), "{row}");
    assert_eq!(row["genmc_counts_equal"], false, "{row}");
    assert!(row["speedup_vs_genmc"].is_null(), "{row}");
}

#[test]
fn genmc_exiting_nonzero_is_an_error_naming_the_command() {
    let dir = TempDir::new("genmc-bench-fails");
    let bin = fake_genmc(&dir, "echo '*** Verification unsuccessful.'\necho 'Error: cannot compile' >&2\nexit 3\n");
    let bin = bin.to_str().expect("UTF-8");
    let out = tcfuzz(&["bench", "--genmc-bin", bin, "--family", "readers", "--n", "2", "--json"], dir.path());
    assert_eq!(code(&out), 1, "a failed run: {}", stderr(&out));
    let program = dir.path().join("genmc/tests/correct/synthetic/readers/variants/readers0.c");
    assert_eq!(
        stderr(&out).trim_end(),
        format!(
            "error: family readers n=2 under sc: GenMC: `{bin} -sc --disable-estimation -- -DN=2 {}` exited with status 3: Error: cannot compile",
            program.display()
        )
    );
    // Our side is still printed, without GenMC's.
    let row = &rows(&out)[0];
    assert_eq!((row["complete"].as_u64(), row["genmc_complete"].as_u64()), (Some(4), None), "{row}");
}

#[test]
fn genmc_output_without_the_counts_is_an_error() {
    let dir = TempDir::new("genmc-bench-garbled");
    let bin = fake_genmc(&dir, "echo '*** Compilation complete.'\n");
    let out = tcfuzz(&["bench", "--genmc-bin", bin.to_str().expect("UTF-8"), "--family", "readers", "--n", "2", "--json"], dir.path());
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    assert!(stderr(&out).trim_end().ends_with(": no `Number of complete executions explored:` line in GenMC's output"), "{}", stderr(&out));
}

#[test]
fn families_genmc_lacks_run_without_it_and_missing_programs_are_errors() {
    let dir = TempDir::new("genmc-bench-missing");
    let bin = fake_genmc(&dir, READERS_2);
    let bin = bin.to_str().expect("UTF-8");
    // GenMC has no SB benchmark: our row alone, no error.
    let out = tcfuzz(&["bench", "--genmc-bin", bin, "--family", "sb", "--n", "3", "--json"], dir.path());
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(rows(&out)[0]["genmc_complete"].is_null());
    // The tree has no wcas test program.
    let out = tcfuzz(&["bench", "--genmc-bin", bin, "--family", "wcas", "--n", "2", "--json"], dir.path());
    assert_eq!(code(&out), 1);
    assert!(
        stderr(&out).contains("GenMC's test program ") && stderr(&out).contains("wcas/variants/wcas0.c is not there"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_missing_binary_or_source_tree_is_a_usage_error() {
    let dir = TempDir::new("genmc-bench-usage");
    let out = tcfuzz(&["bench", "--genmc-bin", "no/such/genmc", "--family", "readers", "--n", "2"], dir.path());
    assert_eq!(code(&out), 2);
    assert_eq!(stdout(&out), "", "nothing printed before the error");
    assert!(stderr(&out).contains("--genmc-bin no/such/genmc: no such file"), "{}", stderr(&out));
    let bin = fake_genmc(&dir, READERS_2);
    let out = tcfuzz(&["bench", "--genmc-bin", bin.to_str().expect("UTF-8"), "--genmc-tests", ".", "--family", "readers"], dir.path());
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).contains("--genmc-tests .: not GenMC's source tree (./tests/correct/synthetic is not a directory)"),
        "{}",
        stderr(&out)
    );
    // The recorded figures and a binary are one or the other.
    assert_eq!(code(&tcfuzz(&["bench", "--genmc", "x.csv", "--genmc-bin", "genmc"], dir.path())), 2);
}

/// `--quick` runs the small sizes only; the default adds the large ones (`--list` shows both).
#[test]
fn quick_runs_the_small_sizes_and_the_default_adds_the_large_ones() {
    let dir = TempDir::new("bench-quick");
    let out = tcfuzz(&["bench", "--family", "binc", "--quick", "--json"], dir.path());
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let sizes: Vec<u64> = rows(&out).iter().filter_map(|r| r["n"].as_u64()).collect();
    assert_eq!(sizes, [3, 4]);
    let list = stdout(&tcfuzz(&["bench", "--list"], dir.path()));
    assert!(list.lines().any(|l| l.starts_with("binc ") && l.contains(" 3, 4; 5, 6 ")), "{list}");
    assert_eq!(code(&tcfuzz(&["bench", "--quick", "--n", "3"], dir.path())), 2, "--quick and --n are one or the other");
}

#[test]
fn scaling_table_shows_each_size_and_the_growth() {
    let dir = TempDir::new("bench-scaling");
    let out = tcfuzz(&["bench", "--family", "readers", "--n", "2", "--n", "4"], dir.path());
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let text = stdout(&out);
    let scaling: Vec<&str> = text.lines().skip_while(|l| !l.starts_with("scaling:")).collect();
    assert_eq!(scaling.len(), 4, "title, header, one line per size:\n{text}");
    assert!(scaling[2].starts_with("readers    sc      2") && scaling[2].contains(" 1.00x "), "{}", scaling[2]);
    assert!(scaling[3].starts_with("readers    sc      4"), "{}", scaling[3]);
}

/// `--print` writes one family's program as a litmus file; checking that file counts what the
/// bench row counts.
#[test]
fn print_writes_the_program_that_the_row_explores() {
    let dir = TempDir::new("bench-print");
    let out = tcfuzz(&["bench", "--family", "casrot", "--n", "4", "--print"], dir.path());
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    std::fs::write(dir.path().join("casrot4.litmus"), stdout(&out)).expect("write");
    let row = tcfuzz(&["bench", "--family", "casrot", "--n", "4", "--model", "ptx", "--json"], dir.path());
    let complete = rows(&row)[0]["complete"].as_u64().expect("complete");
    let check = tcfuzz(&["check", "--model", "ptx", "--json", "casrot4.litmus"], dir.path());
    assert_eq!(code(&check), 0, "{}", stderr(&check));
    let verdict: serde_json::Value = serde_json::from_str(stdout(&check).trim()).expect("check --json");
    assert_eq!(verdict["executions"]["complete"].as_u64(), Some(complete), "{verdict}");

    for args in [
        &["bench", "--print", "--n", "4"][..],
        &["bench", "--print", "--family", "casrot"],
        &["bench", "--print", "--family", "casrot", "--n", "0"],
    ] {
        let out = tcfuzz(args, dir.path());
        assert_eq!(code(&out), 2, "{args:?}: {}", stderr(&out));
        assert_eq!(stdout(&out), "", "{args:?}");
    }
    let out = tcfuzz(&["bench", "--print", "--n", "4"], dir.path());
    assert!(stderr(&out).contains("--print needs exactly one --family and one --n"), "{}", stderr(&out));
}
