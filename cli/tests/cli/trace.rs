//! `tcfuzz trace`: the explorer's executions and revisits on one program, and the graphs in which
//! they differ from the oracle's.

use super::*;

/// `ld x | st x, 1`: the read takes the initial value, then the store revisits it.
const REVISITED: &str = "PTX revisited
{ x = 0; }
 P0@cta 0,gpu 0 | P1@cta 0,gpu 0 ;
 ld.relaxed.cta r0, x | st.relaxed.cta x, 1 ;
exists (P0:r0 == 1)
";

/// Program 16812 of `tcfuzz fuzz --seed 779`, minimized: a pinned gap of the explorer
/// (`checker/tests/checker/known_gaps.rs`), which explores 1 of its 30 executions twice and
/// misses one of the oracle's, within the rmw-hole caveat. (Program 275549 of `fuzz --seed 778`
/// stood here until the explorer stopped exploring its executions twice.)
const EXPLORED_TWICE: &str = "PTX coverage-779-16812-shrunk
{ x = 0; y = 0; }
 P0@cta 0,gpu 0                | P1@cta 0,gpu 0        | P2@cta 0,gpu 0       ;
 st y, 0                       | atom.cta.add r1, x, 0 | ld r0, y             ;
 fence.acq_rel.cta             | fence.acq_rel.cta     | st.relaxed.cta x, r0 ;
 atom.relaxed.cta.add r0, x, 0 | st y, 0               |                      ;
exists (true)
";

#[test]
fn the_revisit_and_both_executions_in_the_order_the_explorer_takes_them() {
    let dir = TempDir::new("trace-revisit");
    dir.write("r.litmus", REVISITED);
    let out = tcfuzz(&["trace", "--revisits", "r.litmus"], dir.path());
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let text = stdout(&out);
    let revisit = "revisit 1 of P0#0 R x = 0 [relaxed cta] by P1#0 W x = 1 [relaxed cta]: taken";
    let steps: Vec<&str> = text.lines().filter(|l| l.starts_with("revisit ") || l.starts_with("execution")).collect();
    // The first execution is the revisit's; the second, the read of the initial value, none's.
    assert_eq!(steps, [revisit, "execution 1 (complete) via revisit 1", "execution 2 (complete)"], "{text}");
    // The revisit starts from the read of the initial value and leads to the read of the store;
    // the forward step (the store after the read) comes last.
    assert!(text.contains("  from:\n    P0#0 @1 R x = 0 [relaxed cta] <- init:x\n    P1#0 @2 W x = 1"), "{text}");
    assert!(text.contains("  to:\n    P0#0 @1 R x = 1 [relaxed cta] <- P1#0\n"), "{text}");
    assert!(text.contains("execution 2 (complete)\n  P0#0 @1 R x = 0 [relaxed cta] <- init:x\n"), "{text}");
    assert!(text.ends_with("explorer: 2 complete, 0 blocked\n"), "{text}");
    // Without --revisits, only the executions.
    let out = tcfuzz(&["trace", "r.litmus"], dir.path());
    assert!(!stdout(&out).contains("\nrevisit "), "{}", stdout(&out));
    assert_eq!(stdout(&out).matches("\nexecution ").count(), 2, "{}", stdout(&out));
}

#[test]
fn against_the_oracle_equal_executions_exit_0_and_the_ones_explored_twice_exit_5_with_their_numbers() {
    let dir = TempDir::new("trace-oracle");
    dir.write("sb.litmus", SB);
    let out = tcfuzz(&["trace", "--oracle", "sb.litmus"], dir.path());
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("explorer: 4 executions, 4 distinct; oracle: 4 executions, 4 distinct"), "{text}");
    assert!(text.ends_with("explorer = oracle\n"), "{text}");

    dir.write("twice.litmus", EXPLORED_TWICE);
    let out = tcfuzz(&["trace", "--oracle", "twice.litmus"], dir.path());
    assert_eq!(code(&out), 5, "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("explorer: 30 executions, 29 distinct; oracle: 30 executions, 30 distinct"), "{text}");
    assert_eq!(text.matches("\nexplored 2 times (complete: executions ").count(), 1, "{text}");
    // The pair came by two revisit paths, both through revisit 1.
    assert!(text.contains("\nexplored 2 times (complete: executions 3 via revisits 1, 4, 6; 4 via revisits 1, 7):"), "{text}");
    assert_eq!(text.matches("\nmissed by the explorer (complete):").count(), 1, "{text}");
    assert!(text.ends_with("explorer ≠ oracle: 1 explored more than once, 1 missed, 0 extra\n"), "{text}");
}

/// `assume` 35063193 of `tcfuzz selftest`, minimized (`known_gaps.rs`): its rmw-hole caveat
/// stands because one rejected revisit met that gap, and the trace names it (and the caveat of
/// an rmw held by Atomicity, with the revisit it refused).
const RMW_HOLE_MET: &str = "PTX assume-35063193-shrunk
{ x = 0; y = 0; }
 P0@cta 0,gpu 0             | P1@cta 0,gpu 0                | P2@cta 0,gpu 0 ;
 ld r0, y                   | atom.acquire.cta.add r0, x, 1 | ld r0, x       ;
 assume.gt r0, 0            | st.weak y, 2                  | st x, r0       ;
 atom.release.exch r1, x, 1 | st.weak y, 1                  |                ;
exists (true)
";

#[test]
fn the_revisit_that_makes_a_caveat_stand_is_named() {
    let dir = TempDir::new("trace-met");
    dir.write("met.litmus", RMW_HOLE_MET);
    let out = tcfuzz(&["trace", "--revisits", "--oracle", "met.litmus"], dir.path());
    assert_eq!(code(&out), 5, "{}", stderr(&out));
    let text = stdout(&out);
    let met: Vec<&str> = text.lines().filter(|l| l.starts_with("met ")).collect();
    // The rmw hole, and an rmw held by Atomicity: P2's store, which needs P1's later `st.weak y`
    // through P0's load of `y`, holds P1's `add` in its prefix only through P0's `exch`, which
    // reads the `add`'s write.
    assert_eq!(met.len(), 2, "{text}");
    let held = met.iter().find_map(|l| l.strip_prefix("met an rmw held by Atomicity at revisit ")).expect("an rmw held by Atomicity");
    assert!(
        text.contains(&format!(
            "revisit {held} of P1#0 R x = 0 [acquire cta atomic] by P2#1 W x = 1 [weak]: refused: held in the write's prefix by an rmw reading its rmw write"
        )),
        "{text}"
    );
    let id = met.iter().find_map(|l| l.strip_prefix("met the rmw-hole gap at revisit ")).expect("the rmw-hole gap");
    // Under the revisit of that number, refused as not maximal.
    let revisit = text.lines().skip_while(|l| !l.starts_with(&format!("revisit {id} of "))).collect::<Vec<_>>();
    assert!(revisit.first().is_some_and(|l| l.ends_with(": not maximal")), "{text}");
    assert!(text.contains(&format!("  (revisit {id} met the rmw-hole gap: its caveat stands)")), "{text}");
    assert!(text.ends_with("explorer ≠ oracle: 0 explored more than once, 4 missed, 0 extra\n"), "{text}");
}

#[test]
fn past_max_executions_or_on_a_bad_file_it_fails_with_the_reason() {
    let dir = TempDir::new("trace-bad");
    dir.write("twice.litmus", EXPLORED_TWICE);
    let out = tcfuzz(&["trace", "--max-executions", "5", "twice.litmus"], dir.path());
    assert_eq!(code(&out), 1, "{}", stdout(&out));
    assert!(stderr(&out).contains("more than 5 executions"), "{}", stderr(&out));
    dir.write("bad.litmus", BAD);
    let out = tcfuzz(&["trace", "bad.litmus"], dir.path());
    assert_eq!(code(&out), 1);
    assert!(has_position(&stderr(&out), "bad.litmus", Some(4)), "{}", stderr(&out));
    let out = tcfuzz(&["trace", "--model", "tileir", "twice.litmus"], dir.path());
    assert_eq!(code(&out), 2, "{}", stderr(&out));
}
