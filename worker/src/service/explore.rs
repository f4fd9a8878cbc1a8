//! Explore jobs: one part of a split exploration (`Admin.ExploreProgram`), explored with the
//! checker's [`tcfuzz_checker::check_subtrees`] and returned as a [`v1::PartVerdict`]: plain
//! data, merged by the client that asked (with [`tcfuzz_checker::merge_verdicts`]).

use tcfuzz_checker::{ModelKind, Options, Subtree, Verdict};
use tcfuzz_proto::v1;

use super::work::JobError;

/// The model named `name` (as the protocol spells it).
pub fn model(name: &str) -> Option<ModelKind> {
    [ModelKind::Ptx, ModelKind::Sc, ModelKind::TileIr].into_iter().find(|m| m.name() == name)
}

/// The options a part is explored under: those its subtrees were cut under (the loop bound; the
/// checker refuses a subtree of other options), every final state kept (merging needs them
/// all), no witnesses (they do not travel).
pub fn options(loop_bound: u32, detect_duplicates: bool) -> Options {
    Options { loop_bound, detect_duplicates, witnesses: false, max_states: None, ..Options::default() }
}

/// Explores one part. A program, model or subtree the checker refuses is a job error: the same
/// part would fail on every worker.
pub fn run(work: &v1::ExploreWork) -> Result<v1::PartVerdict, JobError> {
    let program = tcfuzz_litmus::parse(&work.program).map_err(|d| {
        JobError(format!("the program does not parse: {}", d.0.first().map_or_else(|| "no diagnostic".to_string(), |d| d.to_string())))
    })?;
    let model = model(&work.model).ok_or_else(|| JobError(format!("`{}` is not a model this worker knows", work.model)))?;
    let subtree: Subtree = work.subtree.parse().map_err(JobError)?;
    let options = options(work.loop_bound, work.detect_duplicates);
    let verdict = tcfuzz_checker::check_subtrees(&program, model, &options, &[subtree]).map_err(|e| JobError(e.to_string()))?;
    Ok(part_verdict(&verdict))
}

/// A verdict as plain data.
pub fn part_verdict(v: &Verdict) -> v1::PartVerdict {
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
    }
}
