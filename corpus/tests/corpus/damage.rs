//! Damaged databases: a corrupt value, an unknown value version, an unknown schema version, a
//! truncated or overwritten database file. Each gives an error naming what is wrong, never a
//! panic, and never a corpus that opens with records quietly missing.

use std::path::Path;

use tcfuzz_corpus::codec::Encoder;
use tcfuzz_corpus::store::{SledStore, Store, Tree, Write};
use tcfuzz_corpus::{Corpus, CorpusError, Kind};

use crate::common::{finding, programs};

/// A corpus in `dir` with `n` discrepancies.
fn filled(dir: &Path, n: usize) {
    let c = Corpus::open(dir).unwrap();
    let programs = programs();
    for i in 0..n {
        c.record_discrepancy(&finding(i, &programs)).unwrap();
    }
}

fn key(kind: Kind, signature: &str) -> Vec<u8> {
    let mut k = kind.name().as_bytes().to_vec();
    k.push(0);
    k.extend_from_slice(signature.as_bytes());
    k
}

/// Writes one raw value behind the corpus's back.
fn poke(dir: &Path, tree: Tree, key: &[u8], value: Vec<u8>) {
    let store = SledStore::open(dir).unwrap();
    store.apply(&[Write { tree, key: key.to_vec(), value: Some(value) }]).unwrap();
    store.flush().unwrap();
}

#[test]
fn a_corrupt_value_is_an_error_naming_the_tree_and_key() {
    let dir = tempfile::tempdir().unwrap();
    filled(dir.path(), 3);
    poke(dir.path(), Tree::Discrepancies, &key(Kind::TileirWeakerThanPtx, "sig-00001"), vec![1, 2, 3, 4, 5, 6, 7]);
    let c = Corpus::open_existing(dir.path()).unwrap();
    let read: Vec<_> = c.discrepancies().collect();
    let err = read.iter().find_map(|r| r.as_ref().err()).expect("the damaged record is an error").to_string();
    assert_eq!(
        err,
        "corrupt record in tree `discrepancies` at key `tileir-weaker-than-ptx` / `sig-00001`: checksum mismatch (the value was damaged)"
    );
    assert!(c.discrepancy(Kind::TileirWeakerThanPtx, "sig-00001").is_err());
    let report = c.check().unwrap();
    assert_eq!(report.problem_count, 1);
    assert_eq!(report.problems[0].to_string(), err);
}

#[test]
fn a_value_of_an_unknown_format_version_is_named() {
    let dir = tempfile::tempdir().unwrap();
    filled(dir.path(), 1);
    poke(dir.path(), Tree::Discrepancies, &key(Kind::ExplorerVsOracle, "sig-00000"), Encoder::new(9).u64(1).finish());
    let c = Corpus::open_existing(dir.path()).unwrap();
    let err = c.discrepancy(Kind::ExplorerVsOracle, "sig-00000").unwrap_err();
    assert!(matches!(err, CorpusError::UnknownVersion { found: 9, known: 1, .. }));
    assert_eq!(
        err.to_string(),
        "record in tree `discrepancies` at key `explorer-vs-oracle` / `sig-00000` has format version 9, but this tcfuzz reads version 1; it was written by another tcfuzz version"
    );
}

#[test]
fn an_unknown_schema_version_is_refused_at_open() {
    let dir = tempfile::tempdir().unwrap();
    filled(dir.path(), 1);
    poke(dir.path(), Tree::Meta, b"schema", Encoder::new(1).u64(2).finish());
    let err = Corpus::open_existing(dir.path()).err().expect("refused");
    assert!(matches!(err, CorpusError::Schema { found: 2, expected: 1, .. }));
    assert!(
        err.to_string().contains(": corpus schema version 2, but this tcfuzz reads schema version 1 (tree `meta`, key `schema`)"),
        "{err}"
    );
}

/// What reopening a damaged database may give: an error, or (where the damage missed every
/// record) the whole corpus — never fewer records than were acknowledged, and never a panic.
fn reopen_after_damage(dir: &Path, n: usize) -> Result<(), String> {
    match std::panic::catch_unwind(|| Corpus::open_existing(dir)) {
        Err(_) => panic!("opening a damaged corpus panicked"),
        Ok(Err(e)) => Err(e.to_string()),
        Ok(Ok(c)) => {
            let report = c.check().map_err(|e| e.to_string())?;
            if let Some(p) = report.problems.first() {
                return Err(p.to_string());
            }
            let found = c.discrepancies().filter(|d| d.is_ok()).count();
            assert_eq!(found, n, "the damaged corpus opened with {found} of {n} acknowledged records and no error");
            Ok(())
        }
    }
}

#[test]
fn a_truncated_database_file_is_an_error_not_a_shorter_corpus() {
    let n = 40;
    for keep in [0.0, 0.25, 0.5, 0.9] {
        let dir = tempfile::tempdir().unwrap();
        filled(dir.path(), n);
        let db = dir.path().join("db");
        let len = std::fs::metadata(&db).unwrap().len();
        std::fs::OpenOptions::new().write(true).open(&db).unwrap().set_len((len as f64 * keep) as u64).unwrap();
        let got = reopen_after_damage(dir.path(), n);
        let err = got.expect_err("a truncated database opened whole");
        assert!(
            err.contains(&format!("but {} were acknowledged as durable (`tcfuzz-acked`): acknowledged records are missing; the database file was truncated or damaged", n + 1))
                || err.contains("cannot open the database: sled: "),
            "truncated to {keep}: {err}"
        );
    }
}

#[test]
fn an_overwritten_stretch_of_the_database_file_is_never_silent_loss() {
    let n = 40;
    for at in [0.1, 0.3, 0.5, 0.7] {
        let dir = tempfile::tempdir().unwrap();
        filled(dir.path(), n);
        let db = dir.path().join("db");
        let mut bytes = std::fs::read(&db).unwrap();
        let start = (bytes.len() as f64 * at) as usize;
        let end = (start + 512).min(bytes.len());
        for b in &mut bytes[start..end] {
            *b ^= 0x5a;
        }
        std::fs::write(&db, &bytes).unwrap();
        // Either outcome is fine; `reopen_after_damage` fails the test on silent loss or a panic.
        let _ = reopen_after_damage(dir.path(), n);
    }
}

/// Regression: reopening a corpus straight after dropping it failed now and then with sled's
/// "could not acquire lock" (its flusher thread releases the directory lock after the drop).
#[test]
fn a_corpus_reopened_straight_after_it_was_dropped_opens() {
    let dir = tempfile::tempdir().unwrap();
    for i in 0..20 {
        let store = SledStore::open(dir.path()).unwrap_or_else(|e| panic!("reopen {i}: {e}"));
        store.apply(&[Write { tree: Tree::Discrepancies, key: vec![i], value: Some(vec![i]) }]).unwrap();
        store.flush().unwrap();
    }
}

/// The engine's words are in the corpus error's message and not again as its `source()`:
/// `tcfuzz` prints an error with its chain, which would repeat them.
#[test]
fn a_corpus_error_says_the_engines_words_once() {
    let dir = tempfile::tempdir().unwrap();
    drop(Corpus::open(dir.path()).unwrap());
    let _held = SledStore::open(dir.path()).unwrap();
    let err = Corpus::open(dir.path()).err().expect("the database is locked");
    let text = err.to_string();
    assert!(text.contains(": cannot open the database: sled: "), "{text}");
    assert_eq!(text.matches("could not acquire lock").count(), 1, "{text}");
    assert!(std::error::Error::source(&err).is_none(), "{text}");
}

#[test]
fn a_corpus_another_handle_holds_is_an_error_saying_so() {
    let dir = tempfile::tempdir().unwrap();
    let _held = SledStore::open(dir.path()).unwrap();
    let err = SledStore::open(dir.path()).err().expect("the directory is locked").to_string();
    assert!(err.starts_with("sled: "), "{err}");
    assert!(err.contains("could not acquire lock"), "{err}");
    assert!(err.ends_with("(is another process using this corpus?)"), "{err}");
}
