//! kill -9: a child process records discrepancies and prints each one after its record call has
//! returned; the test SIGKILLs it mid-run, reopens the corpus, and finds every printed record.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use tcfuzz_corpus::{Corpus, Kind};

use crate::common::{finding, programs};

const CHILD_ENV: &str = "TCFUZZ_CORPUS_KILL_CHILD_DIR";
/// The child stops on its own after this many records (so a test that fails to kill it ends).
const CHILD_MAX: usize = 5000;

/// In the child: records discrepancies into the corpus named by the environment, printing each
/// signature once its record call has returned.
#[test]
#[ignore = "the child process of the kill -9 test, which runs it"]
fn kill_child_records_until_killed() {
    let dir = std::env::var(CHILD_ENV).expect("run by every_record_printed_before_a_kill_9_is_in_the_reopened_corpus");
    let c = Corpus::open(std::path::Path::new(&dir)).unwrap();
    let programs = programs();
    for i in 0..CHILD_MAX {
        let f = finding(i, &programs);
        c.record_discrepancy(&f).unwrap();
        // One write per line, unbuffered: what the parent reads was returned by the record call.
        println!("recorded {} {}", f.kind, f.signature);
    }
}

#[test]
fn every_record_printed_before_a_kill_9_is_in_the_reopened_corpus() {
    let dir = tempfile::tempdir().unwrap();
    let exe = std::env::current_exe().unwrap();
    let mut child = Command::new(exe)
        .args(["--exact", "durability::kill_child_records_until_killed", "--ignored", "--nocapture", "--test-threads", "1"])
        .env(CHILD_ENV, dir.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let mut printed = Vec::new();
    let started = Instant::now();
    // Kill after 150 records or 20 s, whichever first.
    for line in BufReader::new(stdout).lines() {
        let line = line.unwrap();
        if let Some(rest) = line.strip_prefix("recorded ") {
            let (kind, sig) = rest.split_once(' ').unwrap();
            printed.push((kind.parse::<Kind>().unwrap(), sig.to_string()));
        }
        if printed.len() >= 150 || started.elapsed() > Duration::from_secs(20) {
            break;
        }
    }
    child.kill().unwrap(); // SIGKILL on Unix
    child.wait().unwrap();
    assert!(printed.len() >= 10, "the child printed only {} records in {:?}", printed.len(), started.elapsed());

    let c = Corpus::open_existing(dir.path()).unwrap();
    for (kind, sig) in &printed {
        assert!(c.discrepancy(*kind, sig).unwrap().is_some(), "{kind} {sig} was acknowledged but is missing after kill -9");
    }
    let report = c.check().unwrap();
    assert!(report.problems.is_empty(), "{:?}", report.problems);
    eprintln!("{} records acknowledged before kill -9, all present ({} in the corpus)", printed.len(), c.discrepancies().count());
}

/// The coordinator applies one update while the last is being flushed: an applied update is read
/// back at once, its number says which sync makes it durable, and one sync covers every update
/// applied before it.
#[test]
fn applied_updates_are_read_at_once_and_one_sync_makes_them_all_durable() {
    let dir = tempfile::tempdir().unwrap();
    let programs = programs();
    let c = Corpus::open(dir.path()).unwrap();
    // Opening a new corpus commits its schema version: commit 1.
    let mut numbers = Vec::new();
    for i in 0..3 {
        let mut u = c.update().unwrap();
        u.record_discrepancy(&finding(i, &programs)).unwrap();
        numbers.push(u.apply().unwrap());
        let f = finding(i, &programs);
        assert!(c.discrepancy(f.kind, &f.signature).unwrap().is_some(), "applied update {i} is not read back");
    }
    assert_eq!(numbers, [2, 3, 4]);
    // An update that changes nothing has the number of the last commit, flushed or not.
    assert_eq!(c.update().unwrap().apply().unwrap(), 4);
    c.sync(4).unwrap();
    c.sync(2).unwrap();
    drop(c);
    let c = Corpus::open_existing(dir.path()).unwrap();
    assert_eq!(c.discrepancies().count(), 3);
    assert!(c.check().unwrap().problems.is_empty());
}
