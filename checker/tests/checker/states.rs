//! Issue 21 item 4: a cap on the final states kept (`Options::max_states`) bounds memory without
//! changing the verdict: the kept states are the smallest with their exact counts, the others are
//! counted, and the condition is judged over all of them.

use tcfuzz_checker::{ModelKind, Options, check, check_oracle};

/// IRIW with relaxed accesses: 16 final states under PTX.
const IRIW: &str = "PTX IRIW
{ x = 0; y = 0; }
 P0@cta 0,gpu 0 | P1@cta 1,gpu 0 | P2@cta 2,gpu 0 | P3@cta 3,gpu 0 ;
 st.relaxed.gpu x, 1 | ld.relaxed.gpu r0, x | ld.relaxed.gpu r0, y | st.relaxed.gpu y, 1 ;
 | ld.relaxed.gpu r1, y | ld.relaxed.gpu r1, x | ;
exists (P1:r0 == 1 /\\ P1:r1 == 0 /\\ P2:r0 == 1 /\\ P2:r1 == 0)
";

#[test]
fn capped_states_keep_the_smallest_with_exact_counts_and_the_same_verdict() {
    let program = tcfuzz_litmus::parse(IRIW).expect("valid");
    let full = check(&program, ModelKind::Ptx, &Options::default()).expect("checks");
    assert_eq!(full.states.len(), 16);
    assert_eq!(full.omitted_states, 0);
    for max in [0, 1, 5, 15, 16, 100] {
        let options = Options { max_states: Some(max), ..Options::default() };
        for capped in [check(&program, ModelKind::Ptx, &options), check_oracle(&program, ModelKind::Ptx, &options)] {
            let capped = capped.expect("checks");
            let kept = max.min(16);
            assert_eq!(capped.states, full.states[..kept], "max_states {max}");
            assert_eq!(capped.omitted_states, 16 - kept as u64, "max_states {max}");
            assert_eq!(capped.condition, full.condition, "max_states {max}");
            let counts = |v: &tcfuzz_checker::Verdict| (v.stats.complete, v.stats.blocked, v.stats.assume_failed);
            assert_eq!(counts(&capped), counts(&full), "max_states {max}");
            assert_eq!(capped.races, full.races, "max_states {max}");
        }
    }
}

#[test]
fn progress_counts_every_execution() {
    let program = tcfuzz_litmus::parse(IRIW).expect("valid");
    let counter = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
    let options = Options { progress: Some(counter.clone()), ..Options::default() };
    let v = check(&program, ModelKind::Ptx, &options).expect("checks");
    assert_eq!(counter.load(std::sync::atomic::Ordering::Relaxed), v.stats.complete + v.stats.blocked + v.stats.assume_failed);
}

/// Issue 27 problem 2: without counting the states it leaves out, a capped check keeps nothing
/// that grows with the executions, and its condition's observation and Ok / No stay exact.
#[test]
fn capped_states_uncounted_keep_the_observation_exact() {
    let program = tcfuzz_litmus::parse(IRIW).expect("valid");
    let full = check(&program, ModelKind::Ptx, &Options::default()).expect("checks");
    assert!(full.states_counted);
    assert_eq!((full.condition.positive, full.condition.negative), (1, 15));
    for max in [0, 1, 5, 16] {
        let options = Options { max_states: Some(max), count_omitted_states: false, ..Options::default() };
        for capped in [check(&program, ModelKind::Ptx, &options), check_oracle(&program, ModelKind::Ptx, &options)] {
            let capped = capped.expect("checks");
            assert!(!capped.states_counted, "max_states {max}");
            assert_eq!(capped.states, full.states[..max], "max_states {max}");
            assert_eq!(capped.omitted_states, 0, "max_states {max}");
            assert_eq!(capped.condition.observation, full.condition.observation, "max_states {max}");
            assert_eq!(capped.condition.validated, full.condition.validated, "max_states {max}");
            // Lower bounds: the kept states, at least one for a side seen beyond them.
            assert!(capped.condition.positive >= 1 && capped.condition.positive <= full.condition.positive, "max_states {max}");
            assert!(capped.condition.negative >= 1 && capped.condition.negative <= full.condition.negative, "max_states {max}");
            assert_eq!(capped.stats.complete, full.stats.complete, "max_states {max}");
            match max {
                0 => assert_eq!((capped.condition.positive, capped.condition.negative), (1, 1)),
                16 => assert_eq!((capped.condition.positive, capped.condition.negative), (1, 15)),
                _ => {}
            }
        }
    }
}
