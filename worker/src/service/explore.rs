//! Explore jobs: one part of a split exploration (`Admin.ExploreProgram`), explored with the
//! checker's [`tcfuzz_checker::check_subtrees`] and returned as a [`v1::PartVerdict`]: plain
//! data, merged by the client that asked (with [`tcfuzz_checker::merge_verdicts`]).

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use tcfuzz_checker::{ModelKind, Options, PreparedCheck, RaceEvent, Slice, Subtree, Verdict};
use tcfuzz_proto::v1;

use super::work::JobError;

/// The model named `name` (as the protocol spells it).
pub fn model(name: &str) -> Option<ModelKind> {
    [ModelKind::Ptx, ModelKind::Sc, ModelKind::TileIr].into_iter().find(|m| m.name() == name)
}

/// The options a part is explored under: those its subtrees were cut under (the loop bound; the
/// checker refuses a subtree of other options), the smallest `max_states` final states kept
/// (0: every one) with the others counted exactly (the merge needs their condition counts), no
/// witnesses (they do not travel).
pub fn options(loop_bound: u32, detect_duplicates: bool, max_states: u32) -> Options {
    let max_states = (max_states > 0).then_some(max_states as usize);
    Options { loop_bound, detect_duplicates, witnesses: false, max_states, count_omitted_states: true, ..Options::default() }
}

/// What makes parts parts of one check: the program, the model and the options they are
/// explored under.
type CheckKey = (String, String, u32, bool, u32);

thread_local! {
    /// The check this thread prepared last: the parts of one exploration, leased one after
    /// another, skip its preparation (5 ms on wcas 18, more than many a part takes).
    static PREPARED: RefCell<Option<(CheckKey, Rc<PreparedCheck>)>> = const { RefCell::new(None) };
}

/// The check `work` is a part of, prepared ([`PREPARED`]).
fn prepared(work: &v1::ExploreWork) -> Result<Rc<PreparedCheck>, JobError> {
    let key = (work.program.clone(), work.model.clone(), work.loop_bound, work.detect_duplicates, work.max_states);
    if let Some((k, p)) = PREPARED.with_borrow(|c| c.clone())
        && k == key
    {
        return Ok(p);
    }
    let program = tcfuzz_litmus::parse(&work.program).map_err(|d| {
        JobError(format!("the program does not parse: {}", d.0.first().map_or_else(|| "no diagnostic".to_string(), |d| d.to_string())))
    })?;
    let model = model(&work.model).ok_or_else(|| JobError(format!("`{}` is not a model this worker knows", work.model)))?;
    let options = options(work.loop_bound, work.detect_duplicates, work.max_states);
    let p = Rc::new(PreparedCheck::new(&program, model, &options).map_err(|e| JobError(e.to_string()))?);
    PREPARED.set(Some((key, p.clone())));
    Ok(p)
}

/// Explores one part; a sliced one (`slice_ms`) gives the rest of its work back once its slice
/// is over and `parts_wanted` is set (by a heartbeat saying a worker is idle), which it clears.
/// A program, model or subtree the checker refuses is a job error: the same part would fail on
/// every worker.
pub fn run(work: &v1::ExploreWork, parts_wanted: &Arc<AtomicBool>) -> Result<v1::PartVerdict, JobError> {
    let prepared = prepared(work)?;
    let subtree: Subtree = work.subtree.parse().map_err(JobError)?;
    let slice = match work.slice_ms {
        0 => Slice::Whole,
        ms => Slice::WhenWanted { after: Instant::now() + Duration::from_millis(u64::from(ms)), wanted: parts_wanted.clone() },
    };
    let sliced = prepared.explore(&subtree, slice).map_err(|e| JobError(e.to_string()))?;
    Ok(v1::PartVerdict {
        rest: sliced.rest.iter().map(Subtree::to_string).collect(),
        yielded_at: sliced.yielded_at.unwrap_or(0),
        ..part_verdict(&sliced.verdict)
    })
}

/// A verdict as plain data.
pub fn part_verdict(v: &Verdict) -> v1::PartVerdict {
    let kept: u64 = v.states.iter().map(|s| s.executions).sum();
    let state_names = v.states.first().map(|s| s.values.iter().map(|(n, _)| n.to_string()).collect()).unwrap_or_default();
    v1::PartVerdict {
        complete: v.stats.complete,
        blocked: v.stats.blocked,
        hangs: v.stats.hangs,
        assume_failed: v.stats.assume_failed,
        max_depth: v.stats.max_depth as u64,
        duplicates_counted: v.stats.duplicates.is_some(),
        duplicates: v.stats.duplicates.unwrap_or(0),
        state_names,
        states: v
            .states
            .iter()
            .map(|s| v1::FinalState { values: s.values.iter().map(|(_, x)| *x).collect(), executions: s.executions })
            .collect(),
        blocked_threads: v.blocked_threads.clone(),
        hung_threads: v.hung_threads.clone(),
        caveats: v.caveats.clone(),
        races: v.races.len() as u64,
        misuse: v.misuse.len() as u64,
        race_list: v
            .races
            .iter()
            .map(|r| v1::PartRace {
                kind: r.kind.name().into(),
                first: Some(access(&r.first)),
                second: Some(access(&r.second)),
                rule: r.rule.clone(),
            })
            .collect(),
        misuse_list: v
            .misuse
            .iter()
            .map(|m| v1::PartMisuse { rule: m.rule.name().into(), thread: m.thread.clone(), line: m.span.line, col: m.span.col })
            .collect(),
        omitted_states: v.omitted_states,
        omitted_executions: v.stats.complete - kept,
        positive: v.condition.positive,
        negative: v.condition.negative,
        rest: Vec::new(),
        yielded_at: 0,
    }
}

fn access(e: &RaceEvent) -> v1::RaceAccess {
    v1::RaceAccess {
        thread: e.thread.clone(),
        index: e.index,
        line: e.span.line,
        col: e.span.col,
        access: e.access.into(),
        location: e.location.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Store buffering with three threads: a few dozen executions, several final states.
    const SB: &str = "PTX SB3\n{\n  x = 0; y = 0; z = 0;\n}\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 | P2@cta 2,gpu 0 ;\n st.relaxed.gpu x, 1 | st.relaxed.gpu y, 1 | st.relaxed.gpu z, 1 ;\n ld.relaxed.gpu r0, y | ld.relaxed.gpu r0, z | ld.relaxed.gpu r0, x ;\nexists (P0:r0 == 0 /\\ P1:r0 == 0 /\\ P2:r0 == 0)\n";

    fn wanted(set: bool) -> Arc<AtomicBool> {
        Arc::new(AtomicBool::new(set))
    }

    fn work(subtree: String) -> v1::ExploreWork {
        v1::ExploreWork {
            program: SB.into(),
            model: "ptx".into(),
            loop_bound: 2,
            detect_duplicates: true,
            subtree,
            max_states: 0,
            slice_ms: 0,
        }
    }

    #[test]
    fn the_parts_of_a_split_add_up_to_the_whole_check() {
        let program = tcfuzz_litmus::parse(SB).unwrap();
        let options = options(2, true, 0);
        let whole = tcfuzz_checker::check(&program, ModelKind::Ptx, &options).unwrap();
        let subtrees = tcfuzz_checker::split(&program, ModelKind::Ptx, &options, 4).unwrap();
        assert!(subtrees.len() >= 4, "{subtrees:?}");
        let parts: Vec<v1::PartVerdict> = subtrees.iter().map(|s| run(&work(s.to_string()), &wanted(false)).unwrap()).collect();
        assert_eq!(parts.iter().map(|p| p.complete).sum::<u64>(), whole.stats.complete);
        assert_eq!(parts.iter().map(|p| p.duplicates).sum::<u64>(), 0);
        assert!(parts.iter().all(|p| p.duplicates_counted && p.states.iter().map(|s| s.executions).sum::<u64>() == p.complete));
        let states: std::collections::BTreeSet<&Vec<i64>> = parts.iter().flat_map(|p| p.states.iter().map(|s| &s.values)).collect();
        assert_eq!(states.len(), whole.states.len());
    }

    /// Three threads that write and read two locations: thousands of executions (tens of
    /// milliseconds even in a release build).
    const WRWR: &str = "PTX WRWR\n{ x = 0; y = 0; }\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 | P2@cta 2,gpu 0 ;\n st.relaxed.gpu x, 1 | st.relaxed.gpu y, 2 | st.relaxed.gpu x, 3 ;\n ld.relaxed.gpu r0, y | ld.relaxed.gpu r0, x | ld.relaxed.gpu r0, y ;\n st.relaxed.gpu y, 1 | st.relaxed.gpu x, 2 | st.relaxed.gpu y, 3 ;\n ld.relaxed.gpu r1, x | ld.relaxed.gpu r1, y | ld.relaxed.gpu r1, x ;\nexists (P0:r0 == 0 /\\ P1:r0 == 0 /\\ P2:r0 == 0)\n";

    #[test]
    fn a_sliced_part_gives_back_its_rest_and_the_parts_add_up_to_the_whole_check() {
        let program = tcfuzz_litmus::parse(WRWR).unwrap();
        let whole = tcfuzz_checker::check(&program, ModelKind::Ptx, &options(2, true, 0)).unwrap();
        let root = tcfuzz_checker::split(&program, ModelKind::Ptx, &options(2, true, 0), 1).unwrap().remove(0);
        let sliced =
            |subtree: String, slice_ms| run(&v1::ExploreWork { program: WRWR.into(), slice_ms, ..work(subtree) }, &wanted(true)).unwrap();
        let first = sliced(root.to_string(), 1);
        assert!(first.yielded_at > 0 && !first.rest.is_empty(), "not sliced: {} executions", first.complete);
        assert!(first.rest.iter().all(|r| r.ends_with('+')), "{:?}", first.rest);
        let rest: u64 = first.rest.iter().map(|r| sliced(r.clone(), 0)).map(|p| p.complete).sum();
        assert_eq!(first.complete + rest, whole.stats.complete);
    }

    #[test]
    fn a_part_keeps_its_smallest_states_and_counts_the_rest() {
        let program = tcfuzz_litmus::parse(SB).unwrap();
        let whole = tcfuzz_checker::check(&program, ModelKind::Ptx, &options(2, true, 0)).unwrap();
        let subtree = tcfuzz_checker::split(&program, ModelKind::Ptx, &options(2, true, 0), 1).unwrap();
        assert_eq!(subtree.len(), 1, "{subtree:?}");
        let p = run(&v1::ExploreWork { max_states: 2, ..work(subtree[0].to_string()) }, &wanted(false)).unwrap();
        let smallest: Vec<(Vec<i64>, u64)> =
            whole.states.iter().take(2).map(|s| (s.values.iter().map(|(_, x)| *x).collect(), s.executions)).collect();
        assert_eq!(p.states.iter().map(|s| (s.values.clone(), s.executions)).collect::<Vec<_>>(), smallest);
        assert_eq!(p.omitted_states, whole.states.len() as u64 - 2);
        assert_eq!(p.omitted_executions, whole.stats.complete - smallest.iter().map(|(_, n)| n).sum::<u64>());
        assert_eq!((p.positive, p.negative), (whole.condition.positive, whole.condition.negative));
        assert_eq!(p.complete, whole.stats.complete);
    }

    #[test]
    fn a_subtree_of_another_check_or_a_bad_model_is_a_job_error() {
        let program = tcfuzz_litmus::parse(SB).unwrap();
        let s = &tcfuzz_checker::split(&program, ModelKind::Sc, &options(2, true, 0), 2).unwrap()[0];
        let e = run(&work(s.to_string()), &wanted(false)).unwrap_err();
        assert!(e.0.contains("made for another program, model or options"), "{e}");
        let e = run(&v1::ExploreWork { model: "x86".into(), ..work(s.to_string()) }, &wanted(false)).unwrap_err();
        assert_eq!(e.0, "`x86` is not a model this worker knows");
        let e = run(&work("subtree zz".into()), &wanted(false)).unwrap_err();
        assert_eq!(e.0, "`subtree zz` is not a subtree (expected `subtree HEX:VARIANT:I.J.K`, or `I.J.K+` for a rest)");
    }
}
