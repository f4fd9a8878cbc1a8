//! A bound per check (`Options::deadline`, `Options::cancel`): a check that does not finish in
//! time, or is cancelled, stops with `CheckError::Interrupted` and the counts it had so far; one
//! past `Options::max_executions` stops with `CheckError::TooManyExecutions` and its counts.
//! (How soon it stops is measured by `tcfuzz bench --deadline-ms`, not here.)

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use tcfuzz_checker::{CheckError, Interruption, ModelKind, Options, check, check_exact, check_oracle, check_parallel};
use tcfuzz_litmus::{Program, parse};

/// Ten threads each storing to `x`: 10! = 3,628,800 coherence orders, one execution each — far
/// more than any test run explores in the time it is given here.
fn writers() -> Program {
    let threads: String = (0..10).map(|i| format!("P{i}@cta {i},gpu 0 {{\n  st.relaxed.gpu x, {};\n}}\n", i + 1)).collect();
    parse(&format!("PTX ten-writers\n{{ x = 0; }}\n{threads}exists (x == 1)\n")).expect("parses")
}

fn interrupted(r: Result<tcfuzz_checker::Verdict, CheckError>) -> (Interruption, tcfuzz_checker::Stats) {
    match r {
        Err(CheckError::Interrupted { cause, partial }) => (cause, partial),
        other => panic!("expected an interrupted check, got {other:?}"),
    }
}

#[test]
fn a_deadline_stops_the_explorer_with_its_partial_counts() {
    let options = Options { deadline: Some(Instant::now() + Duration::from_millis(500)), ..Options::default() };
    let (cause, partial) = interrupted(check(&writers(), ModelKind::Ptx, &options));
    assert_eq!(cause, Interruption::Deadline);
    assert!(partial.complete > 0 && partial.complete < 3_628_800, "{partial:?}");
    assert!(partial.max_depth > 0, "{partial:?}");
    let err = CheckError::Interrupted { cause, partial: partial.clone() };
    assert_eq!(
        err.to_string(),
        format!(
            "stopped at the deadline after {} executions ({} complete, 0 blocked, 0 assume failed)",
            partial.complete, partial.complete
        )
    );
}

#[test]
fn a_cancelled_check_stops_with_its_partial_counts() {
    let flag = Arc::new(AtomicBool::new(false));
    let progress = Arc::new(AtomicU64::new(0));
    let options = Options { cancel: Some(flag.clone()), progress: Some(progress.clone()), ..Options::default() };
    // Cancelled once it has recorded executions (not after a fixed time: on a loaded machine a
    // debug build may not finish its first execution within one).
    let canceller = {
        let flag = flag.clone();
        std::thread::spawn(move || {
            let give_up = Instant::now() + Duration::from_secs(60);
            while progress.load(Ordering::Relaxed) < 100 && Instant::now() < give_up {
                std::thread::sleep(Duration::from_millis(5));
            }
            flag.store(true, Ordering::Relaxed);
        })
    };
    let (cause, partial) = interrupted(check(&writers(), ModelKind::Ptx, &options));
    canceller.join().expect("canceller");
    assert_eq!(cause, Interruption::Cancelled);
    assert!(partial.complete > 0 && partial.complete < 3_628_800, "{partial:?}");
    // A flag set before the check starts stops it before its first execution.
    let (cause, partial) = interrupted(check_oracle(&writers(), ModelKind::Ptx, &options));
    assert_eq!((cause, partial.complete), (Interruption::Cancelled, 0));
}

/// Regression: the budget stop carried only its message, so a caller could not count the
/// executions a program past the budget had cost (a campaign's executions left them out).
#[test]
fn the_execution_budget_stops_the_explorer_with_the_executions_it_explored() {
    let options = Options { max_executions: 1000, ..Options::default() };
    let err = check(&writers(), ModelKind::Ptx, &options).expect_err("past the budget");
    assert_eq!(err.to_string(), "too large to check: more than 1000 executions (raise Options::max_executions)");
    let CheckError::TooManyExecutions { max_executions, partial } = err else { panic!("expected the budget stop, got {err:?}") };
    // Stopped at the execution that passed the budget.
    assert_eq!((max_executions, partial.complete, partial.blocked, partial.assume_failed), (1000, 1001, 0, 0));
    assert!(partial.max_depth > 0, "{partial:?}");
    // On two threads each thread has the budget; the counts are both threads'.
    match check_parallel(&writers(), ModelKind::Ptx, &options, 2) {
        Err(CheckError::TooManyExecutions { max_executions: 1000, partial }) => {
            assert!((1001..=2002).contains(&partial.complete), "{partial:?}")
        }
        other => panic!("expected the budget stop, got {other:?}"),
    }
}

#[test]
fn a_deadline_stops_the_oracle_with_its_partial_counts() {
    // (Within the oracle's limit: past it the oracle refuses the program before checking any
    // candidate, deadline or not.)
    let options = Options { deadline: Some(Instant::now() + Duration::from_millis(500)), oracle_limit: 4_000_000, ..Options::default() };
    let (cause, partial) = interrupted(check_oracle(&writers(), ModelKind::Ptx, &options));
    assert_eq!(cause, Interruption::Deadline);
    assert!(partial.complete > 0 && partial.complete < 3_628_800, "{partial:?}");
    let options = Options { deadline: Some(Instant::now() + Duration::from_secs(3600)), ..Options::default() };
    match check_oracle(&writers(), ModelKind::Ptx, &options) {
        Err(CheckError::TooLarge(why)) => assert_eq!(why, "oracle: more than 2000000 candidates (raise Options::oracle_limit)"),
        other => panic!("expected the oracle to refuse 3,628,801 candidates, got {other:?}"),
    }
}

#[test]
fn a_check_within_its_deadline_is_unchanged() {
    let mp = parse(
        "PTX mp\n{ x = 0; f = 0; }\nP0@cta 0,gpu 0 {\n  st.weak x, 1;\n  st.release.gpu f, 1;\n}\nP1@cta 1,gpu 0 {\n  ld.acquire.gpu r0, f;\n  ld.weak r1, x;\n}\nexists (P1:r0 == 1 /\\ P1:r1 == 0)\n",
    )
    .expect("parses");
    let bounded =
        Options { deadline: Some(Instant::now() + Duration::from_secs(3600)), cancel: Some(Arc::default()), ..Options::default() };
    let v = check_exact(&mp, ModelKind::Ptx, &bounded).expect("checks");
    assert_eq!(v, check(&mp, ModelKind::Ptx, &Options::default()).expect("checks"));
}

/// A maximality test whose completion searches pass `Options::maximality_budget` refuses the
/// revisit and says that executions may be missed, so that `check_exact` asks the oracle. With
/// a budget of one graph, load buffering between CTAs meets it; with the default, nothing in
/// `examples/` does (the conformance tests check every verdict there).
#[test]
fn a_maximality_test_past_its_budget_refuses_the_revisit_and_says_so() {
    let p = parse(include_str!("../../../examples/ptx/LB+fence.acq_rel-gpu-diffcta.litmus")).expect("parses");
    let states = |v: &tcfuzz_checker::Verdict| v.states.iter().map(|s| s.values.clone()).collect::<Vec<_>>();
    let oracle = check_oracle(&p, ModelKind::Ptx, &Options::default()).expect("checks");
    let exact = check(&p, ModelKind::Ptx, &Options::default()).expect("checks");
    assert_eq!((exact.caveats.len(), states(&exact)), (0, states(&oracle)));

    let small = Options { maximality_budget: 1, ..Options::default() };
    let bounded = check(&p, ModelKind::Ptx, &small).expect("checks");
    assert_eq!(
        bounded.caveats,
        [
            "the explorer gave up the search for a completion in a maximality test (too many graphs to judge) and may miss executions the ptx model allows; use the oracle for those"
        ]
    );
    assert!(states(&bounded).iter().all(|s| states(&oracle).contains(s)), "{:?} not within {:?}", states(&bounded), states(&oracle));
    let judged = check_exact(&p, ModelKind::Ptx, &small).expect("checks");
    assert_eq!((judged.method, states(&judged)), (tcfuzz_checker::Method::Oracle, states(&oracle)));
}

/// A thread that performs more than `MAX_EVENTS_PER_THREAD` (64) events is refused as too large,
/// whatever kind its last event is; one of exactly 64 is checked. (A load as the 65th event once
/// shifted a dependency bit past the word: a panic in debug builds.)
#[test]
fn a_thread_of_more_than_64_events_is_too_large() {
    let program = |loads: usize, tail: &str| {
        let body: String = (0..loads).map(|_| "  ld.relaxed.gpu r0, x;\n").collect();
        parse(&format!("PTX many\n{{ x = 0; }}\nP0@cta 0,gpu 0 {{\n{body}{tail}}}\nexists (P0:r0 == 0)\n")).expect("parses")
    };
    let verdict = check(&program(64, ""), ModelKind::Ptx, &Options::default()).expect("64 events are checked");
    assert_eq!(verdict.stats.complete, 1);
    for tail in ["", "  st.relaxed.gpu x, 1;\n", "  atom.relaxed.gpu.add r1, x, 1;\n  beq r1, 0, END;\n  END:\n"] {
        match check(&program(65, tail), ModelKind::Ptx, &Options::default()) {
            Err(CheckError::TooLarge(why)) => assert_eq!(why, "thread P0 performs more than 64 events"),
            other => panic!("expected too large, got {other:?}"),
        }
    }
}

/// `selftest --family assume` seed 95647332: a program whose maximality tests search many
/// completions (some give up at the default budget), meeting each graph once per order in
/// which threads went on past their events. The completion search answers a graph met
/// again from its memo, spending the budgets as the search did the first time
/// (`explore/maximal.rs`, `FillMemo`): the first 400 executions and what each budget gives up
/// are those of the search without the memo (the counts below are its, at `a3f4e1a`), only
/// found faster.
#[test]
fn a_completion_search_that_meets_a_graph_again_spends_its_budgets_as_before() {
    let p = parse(
        "PTX random-assume-95647332
{
  x = 0;
  y = 0;
  z = 0;
}
 P0@cta 0,gpu 0                 | P1@cta 1,gpu 0                   | P2@cta 0,gpu 0                | P3@cta 1,gpu 0                      ;
 ld.relaxed.sys r0, y           | ld.volatile r0, z                | atom.acq_rel.add r0, x, 2     | atom.relaxed.cluster.add r0, x, 1   ;
 assume.le r0, 0                | assume.ne r0, 2                  | st.weak x, 1                  | st.relaxed.cta z, 1                 ;
 atom.release.cta.add r1, x, r0 | atom.relaxed.gpu.cas r1, x, 2, 2 | atom.release.sys.add r1, x, 0 | atom.acquire.cluster.exch r1, y, r0 ;
 st.release.cta z, r0           | L0:                              |                               |                                     ;
                                | ld.relaxed.gpu r2, x             |                               |                                     ;
                                | bne r2, 1, L0                    |                               |                                     ;
exists (true)
",
    )
    .expect("parses");
    // (complete, blocked, assume failed) after 400 executions, by maximality budget.
    let by_budget = [(1, (118, 283, 0)), (2, (134, 267, 0)), (3, (166, 235, 0)), (8, (148, 253, 0)), (20_000, (148, 253, 0))];
    for (maximality_budget, counts) in by_budget {
        let options = Options { max_executions: 400, maximality_budget, ..Options::default() };
        match check(&p, ModelKind::Ptx, &options) {
            Err(CheckError::TooManyExecutions { partial, .. }) => {
                assert_eq!((partial.complete, partial.blocked, partial.assume_failed), counts, "budget {maximality_budget}")
            }
            other => panic!("expected the execution budget to stop it, got {other:?}"),
        }
    }
}
