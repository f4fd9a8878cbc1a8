//! [`Options::trace`]: a traced check gives the verdict of an untraced one, one step per execution
//! it records, and keys by which the explorer's executions compare with the oracle's.

use std::sync::{Arc, Mutex};

use tcfuzz_checker::{CheckError, Gap, ModelKind, Options, Recorded, RevisitOutcome, TraceStep, Tracer, check, check_oracle};

use crate::property::{options, random_program, show};

/// The steps of a check of `p` by `run`, and its verdict; `None` where the oracle gives up.
fn traced(
    p: &tcfuzz_litmus::Program,
    run: fn(&tcfuzz_litmus::Program, ModelKind, &Options) -> Result<tcfuzz_checker::Verdict, tcfuzz_checker::CheckError>,
) -> Option<(Vec<TraceStep>, tcfuzz_checker::Verdict)> {
    let steps = Arc::new(Mutex::new(Vec::new()));
    let tracer = {
        let steps = Arc::clone(&steps);
        Tracer::new(move |s| steps.lock().unwrap().push(s.clone()))
    };
    let options = Options { trace: Some(tracer), ..options() };
    let verdict = match run(p, ModelKind::Ptx, &options) {
        Err(CheckError::TooLarge(_)) => return None,
        checked => checked.expect("checks"),
    };
    let steps = std::mem::take(&mut *steps.lock().unwrap());
    Some((steps, verdict))
}

/// The keys of the executions recorded as `kind`, sorted.
fn keys(steps: &[TraceStep], kind: Recorded) -> Vec<&str> {
    let mut keys: Vec<&str> = steps
        .iter()
        .filter_map(|s| match s {
            TraceStep::Execution { recorded, key, .. } if *recorded == kind => Some(key.as_str()),
            _ => None,
        })
        .collect();
    keys.sort_unstable();
    keys
}

#[test]
fn a_traced_check_gives_the_same_verdict_one_step_per_execution_and_the_oracles_graphs() {
    let (mut revisits, mut taken, mut compared) = (0, 0, 0);
    for seed in 0..60 {
        let p = random_program(seed);
        let plain = check(&p, ModelKind::Ptx, &options()).expect("checks");
        let (steps, verdict) = traced(&p, check).expect("the explorer checks");
        let program = show(&p);
        assert_eq!((verdict.stats.complete, verdict.stats.blocked), (plain.stats.complete, plain.stats.blocked), "{program}");
        assert_eq!(verdict.states, plain.states, "{program}");
        let complete = keys(&steps, Recorded::Complete);
        assert_eq!(complete.len() as u64, verdict.stats.complete, "{program}");
        assert_eq!(keys(&steps, Recorded::Blocked).len() as u64, verdict.stats.blocked, "{program}");
        let (mut taken_ids, mut numbered) = (Vec::new(), 0);
        for s in &steps {
            match s {
                TraceStep::Revisit { id, outcome, to, from, .. } => {
                    revisits += 1;
                    numbered += 1;
                    assert!(!from.is_empty());
                    // Numbered from 1 in order. A revisit taken, or found a dead end, shows the
                    // graph it leads to; one refused before it is made, none.
                    assert_eq!(*id, numbered, "{program}");
                    assert_eq!(to.is_some(), matches!(outcome, RevisitOutcome::Taken | RevisitOutcome::DeadEnd), "{program}");
                    if *outcome == RevisitOutcome::Taken {
                        taken += 1;
                        taken_ids.push(*id);
                    }
                }
                // An execution comes by taken revisits already traced, in the order taken.
                TraceStep::Execution { via, .. } => {
                    assert!(via.windows(2).all(|w| w[0] < w[1]), "{program}");
                    assert!(via.iter().all(|v| taken_ids.contains(v)), "{program}");
                }
                // A gap is met by the revisit just traced, and only where the verdict has a caveat.
                TraceStep::Met { revisit, .. } => {
                    assert_eq!(*revisit, numbered, "{program}");
                    assert!(!verdict.caveats.is_empty(), "{program}");
                }
            }
        }
        // Where the explorer claims to be exact, its complete graphs are the oracle's, each once.
        if verdict.caveats.is_empty() {
            let Some((oracle_steps, _)) = traced(&p, check_oracle) else { continue };
            assert_eq!(complete, keys(&oracle_steps, Recorded::Complete), "{program}");
            assert!(oracle_steps.iter().all(|s| matches!(s, TraceStep::Execution { .. })), "the oracle makes no revisits");
            compared += 1;
        }
    }
    assert!(taken > 0 && revisits > taken && compared > 40, "{taken} of {revisits} revisits taken; {compared} compared");
}

/// A proxy fence is shown as what it is: it orders no other thread's accesses, and a witness or
/// trace that rendered it as `fence.acq_rel` (as one did until 2026-11-27) misled its reader.
#[test]
fn proxy_fences_are_rendered_as_proxy_fences() {
    let p = tcfuzz_litmus::parse(
        r"PTX proxy-fences
{
  x = 0;
  x_gen @ generic aliases x;
  x_tex @ texture aliases x;
}
 P0@cta 0,gpu 0      ;
 st x_gen, 1         ;
 fence.proxy.alias   ;
 fence.proxy.texture ;
 tld.weak r0, x_tex  ;
 fence.acq_rel.cta   ;
exists (true)
",
    )
    .expect("parses");
    let (steps, _) = traced(&p, check).expect("the explorer checks");
    let graph = steps
        .iter()
        .find_map(|s| match s {
            TraceStep::Execution { graph, .. } => Some(graph.as_str()),
            _ => None,
        })
        .expect("an execution");
    let fences: Vec<&str> = graph.lines().filter(|l| l.contains(" F [")).map(|l| &l[l.find(" F [").unwrap_or(0) + 1..]).collect();
    assert_eq!(fences, ["F [fence.proxy.alias]", "F [fence.proxy.texture]", "F [acq_rel cta]"], "{graph}");
    // And the texture load is marked as one.
    assert!(graph.contains("R x = 1 [weak texture-proxy]"), "{graph}");
}

/// The revisit an rmw held by Atomicity refuses (`known_gaps::ASSUME_58085115`) is traced, with
/// the gap it meets, once: the write, the read and why, where the caveat comes from.
#[test]
fn a_revisit_held_by_atomicity_is_traced_with_its_gap() {
    let p = tcfuzz_litmus::parse(crate::known_gaps::ASSUME_58085115).expect("parses");
    let (steps, verdict) = traced(&p, check).expect("the explorer checks");
    let held: Vec<(u64, &str, &str)> = steps
        .iter()
        .filter_map(|s| match s {
            TraceStep::Revisit { id, write, read, outcome: RevisitOutcome::HeldByAtomicity, to: None, .. } => {
                Some((*id, write.as_str(), read.as_str()))
            }
            _ => None,
        })
        .collect();
    assert_eq!(held.len(), 1, "{held:?}");
    let (id, write, read) = held[0];
    assert!(write.starts_with("P1#") && write.contains("W z") && read.starts_with("P0#0 R z"), "{write} / {read}");
    assert!(steps.iter().any(|s| matches!(s, TraceStep::Met { revisit, gap: Gap::AtomicityHeld } if *revisit == id)));
    assert!(verdict.caveats.iter().any(|c| c.contains("only because another atomic rmw")), "{:?}", verdict.caveats);
}
