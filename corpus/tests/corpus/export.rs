//! Export and import: byte-identical for identical corpora, and export → import → export gives
//! the same bytes.

use std::collections::BTreeMap;
use std::path::Path;

use tcfuzz_corpus::{Campaign, CampaignState, Corpus, Kind, StatsSample, Work};

use crate::common::{finding, programs};

fn fill(c: &Corpus) {
    let programs = programs();
    let mut u = c.update().unwrap();
    for i in 0..12 {
        u.record_discrepancy(&finding(i, &programs)).unwrap();
    }
    u.record_discrepancy(&finding(3, &programs)).unwrap();
    u.set_minimized(Kind::ExplorerVsOracle, "sig-00003", &programs[5]).unwrap();
    for (i, p) in programs.iter().take(5).enumerate() {
        u.add_seed(1, i as u64, &[format!("feature-{i}")], p).unwrap();
    }
    u.add_coverage(&["ld.acquire.gpu".into(), "scope-pair cta/gpu".into()], 9).unwrap();
    let id = u
        .put_campaign(&Campaign { id: 0, name: "c1".into(), seed: 7, config: "{}".into(), created_ms: 1, state: CampaignState::Finished })
        .unwrap();
    u.add_stats(id, &StatsSample { at_ms: 5, programs: 100, executions: 900, ..StatsSample::default() }).unwrap();
    u.enqueue_job(id, Work::Generate { first_index: 0, count: 1000 }).unwrap();
    u.enqueue_job(id, Work::Minimize { kind: Kind::ExplorerVsOracle, signature: "sig-00003".into() }).unwrap();
    u.commit().unwrap();
    let mut u = c.update().unwrap();
    u.lease_next("worker-a", 123_456).unwrap().unwrap();
    u.commit().unwrap();
}

/// Every file under `dir` with its bytes.
fn files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<String, Vec<u8>>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(root, &p, out);
            } else {
                out.insert(p.strip_prefix(root).unwrap().display().to_string(), std::fs::read(&p).unwrap());
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

#[test]
fn identical_corpora_export_byte_identical_files() {
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let (ca, cb) = (Corpus::open(&a.path().join("db")).unwrap(), Corpus::open(&b.path().join("db")).unwrap());
    fill(&ca);
    fill(&cb);
    ca.export(&a.path().join("out")).unwrap();
    let moved = cb.export(&b.path().join("out")).unwrap();
    assert_eq!((moved.discrepancies, moved.seeds, moved.campaigns, moved.features, moved.jobs), (12, 5, 1, 2, 2));
    let fa = files(&a.path().join("out"));
    assert_eq!(fa, files(&b.path().join("out")));
    assert!(fa.contains_key("corpus.json") && fa.contains_key("discrepancies/000001-explorer-vs-oracle.litmus"), "{:?}", fa.keys());
    assert!(fa.contains_key("seeds/000005.litmus"));
    // The minimized program is a file of its own.
    assert_eq!(fa.keys().filter(|k| k.ends_with(".min.litmus")).count(), 1);
}

#[test]
fn export_import_export_is_byte_identical() {
    let t = tempfile::tempdir().unwrap();
    let first = Corpus::open(&t.path().join("first")).unwrap();
    fill(&first);
    first.export(&t.path().join("out1")).unwrap();
    let second = Corpus::open(&t.path().join("second")).unwrap();
    let moved = second.import(&t.path().join("out1")).unwrap();
    assert_eq!(moved.discrepancies, 12);
    second.export(&t.path().join("out2")).unwrap();
    assert_eq!(files(&t.path().join("out1")), files(&t.path().join("out2")));
    assert!(second.check().unwrap().problems.is_empty());
    // The job queue came along: the queued job is the next one leased.
    let mut u = second.update().unwrap();
    assert_eq!(u.lease_next("w", 1).unwrap().unwrap().id, 2);
}

#[test]
fn import_refuses_a_corpus_that_is_not_empty_and_paths_that_leave_the_export() {
    let t = tempfile::tempdir().unwrap();
    let c = Corpus::open(&t.path().join("c")).unwrap();
    fill(&c);
    c.export(&t.path().join("out")).unwrap();
    let err = c.import(&t.path().join("out")).unwrap_err().to_string();
    assert!(err.ends_with("the corpus is not empty; import into a new corpus directory"), "{err}");

    let index = t.path().join("out/corpus.json");
    let text = std::fs::read_to_string(&index).unwrap().replace("discrepancies/000001-explorer-vs-oracle.litmus", "../../etc/passwd");
    std::fs::write(&index, text).unwrap();
    let fresh = Corpus::open(&t.path().join("fresh")).unwrap();
    let err = fresh.import(&t.path().join("out")).unwrap_err().to_string();
    assert!(err.ends_with("`../../etc/passwd` is not a relative path inside the export directory"), "{err}");
}
