//! Recording and reading back: deduplication by signature, seeds, coverage, stats.

use tcfuzz_corpus::{Campaign, CampaignState, Corpus, Kind, PoolEpoch, Recorded, SeedCandidate, StatsSample};

use crate::common::{finding, programs};

#[test]
fn findings_with_one_signature_collapse_into_one_discrepancy() {
    let dir = tempfile::tempdir().unwrap();
    let c = Corpus::open(dir.path()).unwrap();
    let programs = programs();
    let mut f = finding(0, &programs);
    assert_eq!(c.record_discrepancy(&f).unwrap(), Recorded::New);
    f.campaign = 7;
    f.seen_ms += 10;
    f.program = programs[1].clone();
    assert_eq!(c.record_discrepancy(&f).unwrap(), Recorded::Seen { count: 2 });
    f.seen_ms -= 100;
    assert_eq!(c.record_discrepancy(&f).unwrap(), Recorded::Seen { count: 3 });
    let d = c.discrepancy(Kind::ExplorerVsOracle, "sig-00000").unwrap().unwrap();
    assert_eq!((d.count, d.campaigns.clone()), (3, vec![1, 7]));
    assert_eq!((d.first_seen_ms, d.last_seen_ms), (f.seen_ms, f.seen_ms + 100));
    // The first program is kept.
    assert_eq!(d.program, programs[0]);
    // Same signature, other kind: another discrepancy.
    f.kind = Kind::PatternBroken;
    assert_eq!(c.record_discrepancy(&f).unwrap(), Recorded::New);
    assert_eq!(c.discrepancies().count(), 2);
}

#[test]
fn a_finding_whose_program_is_not_valid_is_refused() {
    let c = Corpus::in_memory().unwrap();
    let mut f = finding(0, &programs());
    f.program = "PTX broken\n{ }\n P0 ;\n frob x ;\nexists (x == 1)\n".into();
    let err = c.record_discrepancy(&f).unwrap_err().to_string();
    assert!(err.starts_with("finding `explorer-vs-oracle` / `sig-00000`: not a valid litmus program: "), "{err}");
    assert_eq!(c.discrepancies().count(), 0);
}

#[test]
fn minimized_programs_seeds_coverage_and_stats_are_kept() {
    let dir = tempfile::tempdir().unwrap();
    let programs = programs();
    {
        let c = Corpus::open(dir.path()).unwrap();
        let mut u = c.update().unwrap();
        u.record_discrepancy(&finding(0, &programs)).unwrap();
        u.set_minimized(Kind::ExplorerVsOracle, "sig-00000", &programs[2]).unwrap();
        assert_eq!(u.add_seed(1, 5, &["ld.relaxed.gpu".into()], &programs[3]).unwrap(), Some(1));
        assert_eq!(u.add_seed(1, 6, &["st.weak".into()], &programs[3]).unwrap(), None, "the same program twice");
        assert_eq!(u.add_seed(1, 6, &["st.weak".into()], &programs[4]).unwrap(), Some(2));
        assert_eq!(u.add_coverage(&["a".into(), "b".into()], 10).unwrap(), 2);
        assert_eq!(u.add_coverage(&["b".into(), "c".into()], 11).unwrap(), 1);
        assert_eq!(u.add_coverage_counts(&[("c".into(), 5), ("d".into(), 7)], 12).unwrap(), 1);
        let id = u
            .put_campaign(&Campaign {
                id: 0,
                name: "nightly".into(),
                seed: 42,
                config: "mix = default".into(),
                created_ms: 1,
                state: CampaignState::Running,
            })
            .unwrap();
        assert_eq!(id, 1);
        for t in [300, 100, 200] {
            u.add_stats(id, &StatsSample { at_ms: t, programs: t * 10, ..StatsSample::default() }).unwrap();
        }
        assert!(u.add_stats(9, &StatsSample::default()).is_err(), "stats of a campaign that does not exist");
        u.commit().unwrap();
    }
    let c = Corpus::open_existing(dir.path()).unwrap();
    assert_eq!(c.discrepancy(Kind::ExplorerVsOracle, "sig-00000").unwrap().unwrap().minimized.as_deref(), Some(programs[2].as_str()));
    assert_eq!(c.seeds().map(|s| s.unwrap().id).collect::<Vec<_>>(), vec![1, 2]);
    let cov: Vec<(String, u64)> = c.coverage().unwrap().into_iter().map(|(f, n)| (f, n.count)).collect();
    assert_eq!(cov, vec![("a".into(), 1), ("b".into(), 2), ("c".into(), 6), ("d".into(), 7)]);
    let series: Vec<u64> = c.stats(1).unwrap().iter().map(|s| s.at_ms).collect();
    assert_eq!(series, vec![100, 200, 300], "a time series, oldest first");
    let report = c.check().unwrap();
    assert!(report.problems.is_empty(), "{:?}", report.problems);
    assert_eq!(report.total_records(), 1 + 2 + 2 + 4 + 1 + 3 + 2, "discrepancy, seeds, seed index, coverage, campaign, stats, meta");
}

#[test]
fn an_update_dropped_without_commit_writes_nothing() {
    let c = Corpus::in_memory().unwrap();
    {
        let mut u = c.update().unwrap();
        u.record_discrepancy(&finding(1, &programs())).unwrap();
    }
    assert_eq!(c.discrepancies().count(), 0);
}

#[test]
fn opening_a_directory_that_is_not_a_corpus_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("notes.txt"), "mine").unwrap();
    let err = Corpus::open(dir.path()).err().unwrap().to_string();
    assert!(err.ends_with("has files but no corpus (no `tcfuzz-acked`); give an empty or new directory"), "{err}");
    let err = Corpus::open_existing(&dir.path().join("nothing")).err().unwrap().to_string();
    assert!(err.contains("no corpus here"), "{err}");
}

#[test]
fn an_epochs_candidates_are_kept_by_index_until_removed_and_belong_to_a_campaign() {
    let dir = tempfile::tempdir().unwrap();
    let programs = programs();
    let c = Corpus::open(dir.path()).unwrap();
    let campaign = Campaign { id: 0, name: "c".into(), seed: 1, config: "{}".into(), created_ms: 1, state: CampaignState::Running };
    let mut u = c.update().unwrap();
    let id = u.put_campaign(&campaign).unwrap();
    let candidate = |index: u64, features: &[&str], program: &str| SeedCandidate {
        campaign: id,
        index,
        features: features.iter().map(|f| f.to_string()).collect(),
        program: Some(program.to_string()),
    };
    u.add_seed_candidate(&candidate(40, &["b"], &programs[1])).unwrap();
    u.add_seed_candidate(&candidate(3, &["a", "b"], &programs[0])).unwrap();
    let err = u.add_seed_candidate(&candidate(5, &[], &programs[0])).unwrap_err().to_string();
    assert_eq!(err, format!("seed candidate 5 of campaign {id} names no feature"));
    let err = u.add_seed_candidate(&candidate(6, &["a"], "PTX x")).unwrap_err().to_string();
    assert!(err.starts_with(&format!("seed candidate 6 of campaign {id}: not a valid litmus program")), "{err}");
    let epoch = PoolEpoch { campaign: id, end: 64, seeds_through: 0, counts: vec![("z".into(), 2)] };
    u.put_pool_epoch(&epoch);
    u.commit().unwrap();
    drop(c);

    let c = Corpus::open_existing(dir.path()).unwrap();
    assert_eq!(c.seed_candidates(id).unwrap(), [candidate(3, &["a", "b"], &programs[0]), candidate(40, &["b"], &programs[1])]);
    assert_eq!(c.seed_candidates(id + 1).unwrap(), []);
    assert_eq!(c.pool_epoch(id).unwrap(), Some(epoch));
    assert!(c.check().unwrap().problems.is_empty());
    let mut u = c.update().unwrap();
    u.remove_seed_candidate(id, 3);
    u.remove_pool_epoch(id);
    // A candidate of a campaign the corpus does not have is a problem `check` names.
    u.add_seed_candidate(&SeedCandidate { campaign: 99, ..candidate(1, &["a"], &programs[0]) }).unwrap();
    u.commit().unwrap();
    assert_eq!(c.seed_candidates(id).unwrap().iter().map(|c| c.index).collect::<Vec<_>>(), [40]);
    assert_eq!(c.pool_epoch(id).unwrap(), None);
    let problems: Vec<String> = c.check().unwrap().problems.iter().map(|p| p.to_string()).collect();
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(
        problems[0].contains("campaign 99 program 1") && problems[0].contains("a seed candidate of a campaign that does not exist"),
        "{problems:?}"
    );
}
