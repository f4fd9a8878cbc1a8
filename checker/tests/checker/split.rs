//! Split exploration (`tcfuzz_checker::split`): one check's exploration cut into subtrees that
//! are explored apart and merged. Merged, the parts must give exactly what [`check`] gives —
//! counts, final states with their execution counts, the condition, races, hangs, blocked
//! threads, misuse, caveats, the deepest recursion — and no execution may be explored twice.
//! A wrong split shows up as a count off by one somewhere: what the explorer records at a node
//! that is not a leaf (a lost revisit, the recursion depth) counted once per part, or an execution
//! in two parts or in none.
//!
//! Programs: the project's examples and the random programs of `property.rs` and `fenced.rs`.
//! `TCFUZZ_PROP_CASES` changes how many random programs are tried.

use std::path::PathBuf;

use tcfuzz_checker::{
    CheckError, ModelKind, Options, PreparedCheck, Slice, Subtree, Verdict, check, check_parallel, check_subtrees, merge_verdicts, split,
};
use tcfuzz_litmus::Program;

use crate::fenced::random_fenced_program;
use crate::property::{random_program, show};

/// What a split check must reproduce, side by side with [`check`]'s (witnesses and explanations
/// aside: which execution stands for a state may differ).
fn differences(whole: &Verdict, parts: &Verdict) -> Vec<String> {
    let mut out = Vec::new();
    let mut field = |name: &str, a: String, b: String| {
        if a != b {
            out.push(format!("{name}: whole {a}, split {b}"));
        }
    };
    let (w, p) = (&whole.stats, &parts.stats);
    field("complete", w.complete.to_string(), p.complete.to_string());
    field("blocked", w.blocked.to_string(), p.blocked.to_string());
    field("hangs", w.hangs.to_string(), p.hangs.to_string());
    field("assume_failed", w.assume_failed.to_string(), p.assume_failed.to_string());
    field("max_depth", w.max_depth.to_string(), p.max_depth.to_string());
    field("duplicates", format!("{:?}", w.duplicates), format!("{:?}", p.duplicates));
    let states = |v: &Verdict| format!("{:?}", v.states.iter().map(|s| (&s.values, s.executions)).collect::<Vec<_>>());
    field("states", states(whole), states(parts));
    field("condition", format!("{:?}", whole.condition), format!("{:?}", parts.condition));
    field("races", format!("{:?}", whole.races), format!("{:?}", parts.races));
    field("blocked threads", format!("{:?}", whole.blocked_threads), format!("{:?}", parts.blocked_threads));
    field("hung threads", format!("{:?}", whole.hung_threads), format!("{:?}", parts.hung_threads));
    field("misuse", format!("{:?}", whole.misuse), format!("{:?}", parts.misuse));
    field("caveats", format!("{:?}", whole.caveats), format!("{:?}", parts.caveats));
    out
}

/// Checks `program` whole, split (for each `at_least`: every subtree explored on its own, or in
/// groups of three, and merged) and on 2 and 4 threads; the differences, or `None` where the
/// program is too large for the budget.
fn compare(program: &Program, model: ModelKind, options: &Options) -> Result<Option<()>, String> {
    let whole = match check(program, model, options) {
        Ok(v) => v,
        Err(CheckError::TooLarge(_) | CheckError::TooManyExecutions { .. } | CheckError::Unsupported { .. }) => return Ok(None),
        Err(e) => return Err(format!("check: {e}")),
    };
    let fail = |what: String, diffs: Vec<String>| if diffs.is_empty() { Ok(()) } else { Err(format!("{what}:\n  {}", diffs.join("\n  "))) };
    for at_least in [2, 7, 50] {
        let subtrees = split(program, model, options, at_least).map_err(|e| format!("split {at_least}: {e}"))?;
        let group = if at_least == 7 { 3 } else { 1 };
        let mut verdicts = Vec::new();
        for chunk in subtrees.chunks(group) {
            verdicts.push(check_subtrees(program, model, options, chunk).map_err(|e| format!("check_subtrees {chunk:?}: {e}"))?);
        }
        let merged = merge_verdicts(program, options, verdicts).map_err(|e| format!("merge: {e}"))?.ok_or("no subtrees")?;
        fail(format!("split into {} (at least {at_least}) and merged", subtrees.len()), differences(&whole, &merged))?;
    }
    // Every part sliced: it gives back the rest of its work after a quarter of the program's
    // executions' worth of nodes, and so does every rest given back, to the end.
    let slice = Slice::AtNode(whole.stats.complete / 4 + 8);
    let (mut queue, mut verdicts) = (split(program, model, options, 2).map_err(|e| format!("split 2: {e}"))?, Vec::new());
    let prepared = PreparedCheck::new(program, model, options).map_err(|e| format!("prepare: {e}"))?;
    while let Some(s) = queue.pop() {
        let sliced = prepared.explore(&s, slice.clone()).map_err(|e| format!("sliced {s}: {e}"))?;
        // (A part may yield where it has nothing left to give: at its last path.)
        if !sliced.rest.is_empty() && sliced.yielded_at.is_none() {
            return Err(format!("{s}: yielded at {:?} with {} rest parts", sliced.yielded_at, sliced.rest.len()));
        }
        verdicts.push(sliced.verdict);
        queue.extend(sliced.rest);
    }
    let parts = verdicts.len();
    let merged = merge_verdicts(program, options, verdicts).map_err(|e| format!("merge: {e}"))?.ok_or("no subtrees")?;
    fail(format!("sliced into {parts} parts and merged"), differences(&whole, &merged))?;
    // Parts that keep only their 3 smallest final states (as `tcfuzz explore` asks its workers).
    let capped = Options { max_states: Some(3), count_omitted_states: true, ..options.clone() };
    let subtrees = split(program, model, &capped, 7).map_err(|e| format!("split 7: {e}"))?;
    let verdicts = subtrees.iter().map(|s| check_subtrees(program, model, &capped, std::slice::from_ref(s))).collect::<Result<Vec<_>, _>>();
    let verdicts = verdicts.map_err(|e| format!("check_subtrees with 3 states kept: {e}"))?;
    let merged = merge_verdicts(program, &capped, verdicts).map_err(|e| format!("merge: {e}"))?.ok_or("no subtrees")?;
    fail(format!("split into {}, 3 states kept per part, merged", subtrees.len()), capped_differences(&whole, &merged))?;
    for threads in [2, 4] {
        let parallel = check_parallel(program, model, options, threads).map_err(|e| format!("{threads} threads: {e}"))?;
        fail(format!("on {threads} threads"), differences(&whole, &parallel))?;
    }
    // Fewer races kept than found: the same ones (the smallest), whichever thread found which.
    let one_race = Options { max_races: 1, ..options.clone() };
    let (whole, parallel) = (check(program, model, &one_race), check_parallel(program, model, &one_race, 3));
    let races = |v: Result<Verdict, CheckError>| v.map(|v| v.races).map_err(|e| e.to_string());
    fail("one race kept, on 3 threads".into(), differences_in("races", races(whole), races(parallel)))?;
    Ok(Some(()))
}

/// What a merge of parts that kept only their smallest states must get right against the whole
/// check's every state: its states the whole's first ones with their exact counts (at least as
/// many as a part kept, or all), the condition's observation and Ok / No; its distinct states
/// and condition counts never more than the whole's, and exact where it says so.
fn capped_differences(whole: &Verdict, merged: &Verdict) -> Vec<String> {
    let mut out = Vec::new();
    let shown = merged.states.len();
    if whole.states.get(..shown) != Some(merged.states.as_slice()) {
        out.push(format!("states: whole {:?}, merged {:?}", whole.states, merged.states));
    }
    if shown < whole.states.len().min(3) {
        out.push(format!("{shown} states merged of {}", whole.states.len()));
    }
    let (w, m) = (&whole.condition, &merged.condition);
    if (w.observation, w.validated, w.quantifier) != (m.observation, m.validated, m.quantifier) {
        out.push(format!("condition: whole {w:?}, merged {m:?}"));
    }
    let distinct = shown as u64 + merged.omitted_states;
    let exact = merged.states_counted && distinct == whole.states.len() as u64 && (m.positive, m.negative) == (w.positive, w.negative);
    let bounded = !merged.states_counted && distinct <= whole.states.len() as u64 && m.positive <= w.positive && m.negative <= w.negative;
    if !exact && !bounded {
        out.push(format!(
            "counts: whole {} states {w:?}, merged {distinct} states {m:?} (counted: {})",
            whole.states.len(),
            merged.states_counted
        ));
    }
    out.extend(differences_in("complete", whole.stats.complete, merged.stats.complete));
    out
}

fn differences_in<T: std::fmt::Debug + PartialEq>(name: &str, whole: T, parts: T) -> Vec<String> {
    if whole == parts { Vec::new() } else { vec![format!("{name}: whole {whole:?}, split {parts:?}")] }
}

fn options() -> Options {
    Options { detect_duplicates: true, max_executions: 20_000, ..crate::property::options() }
}

fn cases(default: u64) -> u64 {
    std::env::var("TCFUZZ_PROP_CASES").ok().and_then(|s| s.parse().ok()).unwrap_or(default)
}

fn run_random(generate: fn(u64) -> Program, models: &[ModelKind], default_cases: u64) {
    let mut compared = 0;
    for seed in 0..cases(default_cases) {
        let p = generate(seed);
        let model = models[seed as usize % models.len()];
        match compare(&p, model, &options()) {
            Ok(Some(())) => compared += 1,
            Ok(None) => {}
            Err(e) => panic!("seed {seed} ({model:?}): {e}\n{}", show(&p)),
        }
    }
    println!("split = whole on {compared} random programs");
    assert!(compared * 10 >= cases(default_cases) * 9, "too many programs over the budget: {compared} compared");
}

#[test]
fn split_exploration_equals_the_whole_on_random_programs() {
    run_random(random_program, &[ModelKind::Ptx, ModelKind::Sc], 200);
}

#[test]
fn split_exploration_equals_the_whole_on_fenced_programs() {
    run_random(random_fenced_program, &[ModelKind::Ptx], 30);
}

#[test]
fn split_exploration_equals_the_whole_on_the_examples() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../examples");
    let Ok(folders) = std::fs::read_dir(&dir) else {
        println!("examples: skipped, {} not found", dir.display());
        return;
    };
    let mut files: Vec<PathBuf> = folders
        .flatten()
        .filter(|f| f.path().is_dir())
        .flat_map(|f| std::fs::read_dir(f.path()).into_iter().flatten().flatten().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "litmus"))
        .collect();
    files.sort();
    let options = Options { max_races: 10_000, ..options() };
    let (mut compared, mut failures) = (0, Vec::new());
    for path in &files {
        let name = path.strip_prefix(&dir).unwrap_or(path).display().to_string();
        let Ok(program) = tcfuzz_litmus::parse(&std::fs::read_to_string(path).unwrap_or_default()) else {
            failures.push(format!("{name}: does not parse"));
            continue;
        };
        let model = if program.arch == tcfuzz_litmus::Arch::TileIr { ModelKind::TileIr } else { ModelKind::Ptx };
        match compare(&program, model, &options) {
            Ok(Some(())) => compared += 1,
            Ok(None) => {}
            Err(e) => failures.push(format!("{name}: {e}")),
        }
    }
    println!("split = whole on {compared} examples");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(compared >= 80, "fewer examples compared than judged by examples.rs: {compared}");
}

const SB: &str = r#"PTX SB
{ x = 0; y = 0; }
 P0@cta 0,gpu 0       | P1@cta 1,gpu 0       ;
 st.relaxed.gpu x, 1  | st.relaxed.gpu y, 1  ;
 ld.relaxed.gpu r0, y | ld.relaxed.gpu r1, x ;
exists (P0:r0 == 0 /\ P1:r1 == 0)
"#;

const MP: &str = r#"PTX MP
{ x = 0; y = 0; }
 P0@cta 0,gpu 0        | P1@cta 1,gpu 0        ;
 st.relaxed.gpu x, 1   | ld.acquire.gpu r0, y  ;
 st.release.gpu y, 1   | ld.relaxed.gpu r1, x  ;
exists (P1:r0 == 1 /\ P1:r1 == 0)
"#;

fn parse(src: &str) -> Program {
    tcfuzz_litmus::parse(src).expect("test program parses")
}

/// SB under PTX: 4 executions. Its tree: the root (path `0`, no events), P0's store (`0.0`), P0's
/// load of `y` = 0, the only write yet (`0.0.0`); P1's store, which revisits that load (`0.0.0.0`,
/// explored first) or not (`0.0.0.1`); P1's load of `x`, 0 or 1, on each side: the four leaves.
/// Pinned so that a change in how the tree is cut, or in the order of exploration, is seen.
#[test]
fn split_of_store_buffering_is_pinned() {
    let p = parse(SB);
    let opts = Options::default();
    let paths = |at_least| -> Vec<String> {
        split(&p, ModelKind::Ptx, &opts, at_least)
            .expect("split")
            .iter()
            .map(|s| s.path.iter().map(u32::to_string).collect::<Vec<_>>().join("."))
            .collect()
    };
    assert_eq!(check(&p, ModelKind::Ptx, &opts).expect("check").stats.complete, 4);
    assert_eq!(paths(1), ["0"]);
    assert_eq!(paths(2), PINNED_2);
    assert_eq!(paths(4), PINNED_4);
    // No more than the executions, however many are asked for.
    assert_eq!(paths(1000), PINNED_4);
}

const PINNED_2: [&str; 2] = ["0.0.0.0", "0.0.0.1"];
const PINNED_4: [&str; 4] = ["0.0.0.0.0", "0.0.0.0.1", "0.0.0.1.0", "0.0.0.1.1"];

#[test]
fn a_subtree_round_trips_through_its_text() {
    let p = parse(SB);
    for s in split(&p, ModelKind::Ptx, &Options::default(), 4).expect("split") {
        let text = s.to_string();
        assert!(text.starts_with("subtree "), "{text}");
        assert_eq!(text.parse::<Subtree>(), Ok(s));
    }
    let s = Subtree { check: 0xfe, variant: 3, path: vec![0, 12, 4_000_000_000], rest: false };
    assert_eq!(s.to_string(), "subtree 00000000000000fe:3:0.12.4000000000");
    assert_eq!(s.to_string().parse::<Subtree>(), Ok(s.clone()));
    let rest = Subtree { rest: true, ..s };
    assert_eq!(rest.to_string(), "subtree 00000000000000fe:3:0.12.4000000000+");
    assert_eq!(rest.to_string().parse::<Subtree>(), Ok(rest));
}

/// Three threads writing and reading two locations: 1,000s of executions, a deep tree.
const WRWR: &str = r#"PTX WRWR
{ x = 0; y = 0; }
 P0@cta 0,gpu 0       | P1@cta 1,gpu 0       | P2@cta 2,gpu 0       ;
 st.relaxed.gpu x, 1  | st.relaxed.gpu y, 2  | st.relaxed.gpu x, 3  ;
 ld.relaxed.gpu r0, y | ld.relaxed.gpu r0, x | ld.relaxed.gpu r0, y ;
 st.relaxed.gpu y, 1  | st.relaxed.gpu x, 2  | st.relaxed.gpu y, 3  ;
 ld.relaxed.gpu r1, x | ld.relaxed.gpu r1, y | ld.relaxed.gpu r1, x ;
exists (P0:r0 == 0 /\ P1:r0 == 0 /\ P2:r0 == 0)
"#;

/// A slice ended by the clock yields at a node that, asked for by number, cuts the part the
/// same way: the same verdict, the same rest (so a client can explore a worker's part again).
/// A slice that never ends is the whole subtree.
#[test]
fn a_slice_ended_by_the_clock_is_cut_again_at_its_node() {
    let p = parse(WRWR);
    let opts = Options { detect_duplicates: true, ..Options::default() };
    let whole = check(&p, ModelKind::Ptx, &opts).expect("check");
    assert!(whole.stats.complete > 1000, "{}", whole.stats.complete);
    let root = split(&p, ModelKind::Ptx, &opts, 1).expect("split").remove(0);
    let prepared = PreparedCheck::new(&p, ModelKind::Ptx, &opts).expect("prepared");
    let full = prepared.explore(&root, Slice::Whole).expect("whole");
    assert_eq!((full.verdict.stats.complete, full.rest.len(), full.yielded_at), (whole.stats.complete, 0, None));
    // Past already: the first look at the clock ends it.
    let timed = prepared.explore(&root, Slice::Until(std::time::Instant::now())).expect("timed");
    let at = timed.yielded_at.expect("yielded");
    assert!(timed.verdict.stats.complete < whole.stats.complete / 2 && !timed.rest.is_empty(), "{:?}", timed.verdict.stats);
    assert!(timed.rest.iter().all(|s| s.rest && s.check == root.check), "{:?}", timed.rest);
    let again = prepared.explore(&root, Slice::AtNode(at)).expect("again");
    assert_eq!((again.yielded_at, &again.rest), (Some(at), &timed.rest));
    assert_eq!(differences(&timed.verdict, &again.verdict), Vec::<String>::new());
}

/// A part sliced on demand yields only when its flag is set (past its slice), and clears it.
#[test]
fn a_slice_on_demand_yields_only_when_work_is_wanted() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};
    let p = parse(WRWR);
    let opts = Options::default();
    let prepared = PreparedCheck::new(&p, ModelKind::Ptx, &opts).expect("prepared");
    let root = split(&p, ModelKind::Ptx, &opts, 1).expect("split").remove(0);
    let now = std::time::Instant::now();
    let unwanted = Arc::new(AtomicBool::new(false));
    let whole = prepared.explore(&root, Slice::WhenWanted { after: now, wanted: unwanted.clone() }).expect("unwanted");
    assert_eq!((whole.yielded_at, whole.rest.len()), (None, 0));
    let wanted = Arc::new(AtomicBool::new(true));
    let later = now + std::time::Duration::from_secs(3600);
    let early = prepared.explore(&root, Slice::WhenWanted { after: later, wanted: wanted.clone() }).expect("too early");
    assert_eq!((early.yielded_at, early.rest.len(), wanted.load(Ordering::Relaxed)), (None, 0, true), "before its slice ends");
    let sliced = prepared.explore(&root, Slice::WhenWanted { after: now, wanted: wanted.clone() }).expect("wanted");
    assert!(sliced.yielded_at.is_some() && !sliced.rest.is_empty(), "{:?}", sliced.yielded_at);
    assert!(!wanted.load(Ordering::Relaxed), "the flag is cleared by the part that answers it");
    assert!(sliced.verdict.stats.complete < whole.verdict.stats.complete);
}

#[test]
fn a_malformed_subtree_is_refused_with_what_was_expected() {
    for text in [
        "",
        "subtree",
        "subtree fe:0",
        "subtree fe:0:",
        "subtree zz:0:0",
        "subtree fe:x:0",
        "subtree fe:0:0..1",
        "subtree fe:0:0:1",
        "subtree fe:0:0++",
        "subtree fe:0:+",
        "subtree fe:0:0+.1",
        "tree fe:0:0",
    ] {
        let expected = format!("`{text}` is not a subtree (expected `subtree HEX:VARIANT:I.J.K`, or `I.J.K+` for a rest)");
        assert_eq!(text.parse::<Subtree>(), Err(expected), "{text:?}");
    }
}

#[test]
fn a_subtree_of_another_check_is_refused() {
    let (sb, mp) = (parse(SB), parse(MP));
    let opts = Options::default();
    let s = split(&sb, ModelKind::Ptx, &opts, 2).expect("split").remove(0);
    let refused = |p: &Program, model, opts: &Options, s: &Subtree| match check_subtrees(p, model, opts, std::slice::from_ref(s)) {
        Err(e @ CheckError::ForeignSubtree(_)) => e.to_string(),
        other => panic!("{s} accepted: {other:?}"),
    };
    let other = "made for another program, model or options";
    assert_eq!(refused(&mp, ModelKind::Ptx, &opts, &s), format!("not a subtree of this check: {s}: {other}"));
    assert_eq!(refused(&sb, ModelKind::Sc, &opts, &s), format!("not a subtree of this check: {s}: {other}"));
    assert_eq!(
        refused(&sb, ModelKind::Ptx, &Options { loop_bound: 3, ..opts.clone() }, &s),
        format!("not a subtree of this check: {s}: {other}")
    );
    // Its own check's, but naming no graph of it.
    let nowhere = Subtree { path: vec![0, 0, 7], ..s.clone() };
    assert_eq!(
        refused(&sb, ModelKind::Ptx, &opts, &nowhere),
        format!("not a subtree of this check: {nowhere}: the exploration has no graph at this path")
    );
    let root = Subtree { path: vec![1], ..s.clone() };
    assert_eq!(
        refused(&sb, ModelKind::Ptx, &opts, &root),
        format!("not a subtree of this check: {root}: the exploration has no graph at this path")
    );
    let variant = Subtree { variant: 1, ..s.clone() };
    assert_eq!(refused(&sb, ModelKind::Ptx, &opts, &variant), format!("not a subtree of this check: {variant}: no such program variant"));
    let empty = Subtree { path: vec![], ..s.clone() };
    assert_eq!(refused(&sb, ModelKind::Ptx, &opts, &empty), format!("not a subtree of this check: {empty}: an empty path"));
    // Options that do not change the exploration do not change the key.
    let v = check_subtrees(&sb, ModelKind::Ptx, &Options { detect_duplicates: true, witnesses: true, ..opts.clone() }, &[s])
        .expect("own subtree");
    assert!(v.stats.complete > 0);
}

/// The threads of a parallel check poll the check's bound: a cancelled check stops with the
/// counts of all of them (here none: the flag is set before the first graph).
#[test]
fn a_cancelled_parallel_check_stops_with_its_partial_counts() {
    let flag = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(true));
    let opts = Options { cancel: Some(flag), ..Options::default() };
    match check_parallel(&parse(SB), ModelKind::Ptx, &opts, 2) {
        Err(CheckError::Interrupted { cause, partial }) => {
            assert_eq!(cause, tcfuzz_checker::Interruption::Cancelled);
            assert_eq!((partial.complete, partial.blocked), (0, 0));
        }
        other => panic!("not interrupted: {other:?}"),
    }
}
