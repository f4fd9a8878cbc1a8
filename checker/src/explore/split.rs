//! One exploration split into parts that can be explored apart — on other threads, or leased to
//! other machines — and merged into exactly the result of the whole.
//!
//! The explorer is a function of the program: the graphs it visits form a tree (each graph
//! visited past its consistency check a node, its children the graphs it then visits, in a fixed
//! order), and the subtrees below a node are independent — the explorer is stateless, so what
//! it does below one child depends on nothing done below another (TruSt, POPL'22 §5: every
//! graph is reached from one parent only). A node is named by its *path*: its index among its
//! parent's children at each level from the root. [`split`] cuts the tree at the first depth with
//! enough nodes and returns those nodes, and the leaves (and childless graphs) above them, as
//! [`Subtree`]s, which together cover every execution exactly once. [`check_subtrees`] explores
//! some of them: it walks each path from the root again (visiting only the nodes on it: a few
//! consistency checks per level) and explores the subtree below in full. Merged, the parts'
//! counts, states, races, hangs and misuse are the single-thread ones; duplicates too, when
//! counted across parts ([`check_parallel`] does; [`merge_verdicts`] cannot: a verdict keeps no
//! graphs).
//!
//! (GenMC's `-nthreads` hands a copy of a graph to an idle thread when its own work queue runs
//! short; a path instead of a graph is what lets a part leave the process as a few bytes.)

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::str::FromStr;
use std::sync::Mutex;

use crate::error::CheckError;
use crate::explore::check::{
    EXPLORER_STACK, check, explore_part, finish_explorer, finish_with, new_collector, on_explorer_stack, too_many_executions,
};
use crate::explore::donate::{Donation, Share};
use crate::explore::revisits::{Met, Revisits, caveat_rank, caveats_met};
use crate::explore::trust::{Donor, Part};
use crate::model::ModelKind;
use crate::options::Options;
use crate::program::CompiledProgram;
use crate::verdict::{Collector, Verdict};

/// A part of one check's exploration: the subtree below one graph of its exploration tree (module
/// docs), or with `rest` the subtrees of that graph and of its later siblings (what a sliced
/// part gives back, [`PreparedCheck::explore`]). Plain data: its text form (`Display` /
/// `FromStr`: `subtree 1f2e…:0:0.2.1`, with `rest` `subtree 1f2e…:0:0.2.1+`) travels.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Subtree {
    /// [`check_key`] of the program, model and options it belongs to.
    pub check: u64,
    /// The program variant (`CompiledProgram::rendezvous_variants`; 0 for most programs).
    pub variant: u32,
    /// The graph's index among its parent's children at each level, from the root (whose own
    /// index is 0).
    pub path: Vec<u32>,
    /// Also every later sibling's subtree: the children of the path's parent from the path's
    /// last index on (there may be none).
    pub rest: bool,
}

impl fmt::Display for Subtree {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let path: Vec<String> = self.path.iter().map(u32::to_string).collect();
        write!(f, "subtree {:016x}:{}:{}{}", self.check, self.variant, path.join("."), if self.rest { "+" } else { "" })
    }
}

impl FromStr for Subtree {
    type Err = String;
    fn from_str(text: &str) -> Result<Self, String> {
        let bad = || format!("`{text}` is not a subtree (expected `subtree HEX:VARIANT:I.J.K`, or `I.J.K+` for a rest)");
        let rest = text.trim().strip_prefix("subtree ").ok_or_else(bad)?;
        let mut fields = rest.split(':');
        let (Some(check), Some(variant), Some(path), None) = (fields.next(), fields.next(), fields.next(), fields.next()) else {
            return Err(bad());
        };
        let check = u64::from_str_radix(check, 16).map_err(|_| bad())?;
        let variant = variant.parse().map_err(|_| bad())?;
        let (path, rest) = match path.strip_suffix('+') {
            Some(path) => (path, true),
            None => (path, false),
        };
        let path = path.split('.').map(|i| i.parse().map_err(|_| bad())).collect::<Result<Vec<u32>, _>>()?;
        Ok(Subtree { check, variant, path, rest })
    }
}

/// What a check's exploration tree depends on: the program (as `tcfuzz fmt` prints it), the
/// model, and the options that change the tree (loop bound, `exclude_porf_cycles`,
/// `always_dependency_revisits`). A hash, so
/// that a subtree of another check is refused rather than explored; stable within one build of
/// tcfuzz (`std`'s SipHash with fixed keys), which is what a campaign runs.
pub fn check_key(program: &tcfuzz_litmus::Program, model: ModelKind, options: &Options) -> u64 {
    let mut h = DefaultHasher::new();
    tcfuzz_litmus::print(program).hash(&mut h);
    model.name().hash(&mut h);
    options.loop_bound.hash(&mut h);
    options.exclude_porf_cycles.hash(&mut h);
    options.always_dependency_revisits.hash(&mut h);
    h.finish()
}

/// Deepest split [`split`] tries: a tree that still has fewer nodes than asked for there is
/// given as it is.
const MAX_SPLIT_DEPTH: usize = 256;

/// Splits the exploration of `program` under `model` into at least `at_least` subtrees where the
/// tree has that many nodes at some depth (fewer otherwise): the nodes of the first such depth,
/// and the leaves and childless graphs above it, in the order of exploration. Together they
/// cover every execution once. Costs the exploration of the tree above that depth, again for
/// each depth tried.
pub fn split(program: &tcfuzz_litmus::Program, model: ModelKind, options: &Options, at_least: usize) -> Result<Vec<Subtree>, CheckError> {
    let prog = CompiledProgram::compile(program)?;
    let dependency = Revisits::new(&prog, model, options).dependency();
    on_explorer_stack(|| split_compiled(&prog, check_key(program, model, options), (model, options, dependency), at_least))
}

/// [`split`] of a program already lowered, with the dependency revisits or not
/// ([`Revisits::dependency`]).
fn split_compiled(
    prog: &CompiledProgram,
    check: u64,
    (model, options, dependency): (ModelKind, &Options, bool),
    at_least: usize,
) -> Result<Vec<Subtree>, CheckError> {
    let mut parts = Vec::new();
    for depth in 0..=MAX_SPLIT_DEPTH {
        parts.clear();
        let mut out = new_collector(prog, options);
        for (variant, p) in variants(prog)?.iter().enumerate() {
            out.set_program(p);
            let (part, _, _) = explore_part(p, model, options, dependency, &mut out, Part::Split { depth, out: Vec::new() }, None)?;
            let Part::Split { out: paths, .. } = part else { unreachable!("[tcfuzz internal bug] a split that is not one") };
            parts.extend(paths.into_iter().map(|path| Subtree { check, variant: variant as u32, path, rest: false }));
        }
        // Enough, or the tree is no deeper: every part a leaf above `depth` (a node at `depth`
        // has a path of `depth + 1`). The count alone does not say so: a chain of graphs with one
        // child each (the root and its first events, typically) keeps it the same from depth to
        // depth.
        if parts.len() >= at_least || parts.iter().all(|s| s.path.len() <= depth) {
            break;
        }
    }
    Ok(parts)
}

/// The program's variants, as the explorer runs them ([`CompiledProgram::rendezvous_variants`]).
fn variants(prog: &CompiledProgram) -> Result<Vec<CompiledProgram>, CheckError> {
    let variants = prog.rendezvous_variants()?;
    Ok(if variants.is_empty() { vec![prog.clone()] } else { variants })
}

/// Explores `subtrees` of `program`'s check under `model` ([`split`]) and returns their verdict:
/// the executions below them only. Merged with [`merge_verdicts`], the verdicts of subtrees that
/// cover the tree give the verdict of [`crate::check`], counts, states and races alike. A subtree
/// of another check is refused ([`CheckError::ForeignSubtree`]).
pub fn check_subtrees(
    program: &tcfuzz_litmus::Program,
    model: ModelKind,
    options: &Options,
    subtrees: &[Subtree],
) -> Result<Verdict, CheckError> {
    let prog = CompiledProgram::compile(program)?;
    let check = check_key(program, model, options);
    let variants = variants(&prog)?;
    let revisits = Revisits::new(&prog, model, options);
    on_explorer_stack(|| {
        let mut out = new_collector(&prog, options);
        let (max_depth, met) = explore_subtrees(&variants, check, (model, options, revisits.dependency()), &mut out, subtrees)?;
        finish_explorer(&revisits, model, out, max_depth, met)
    })
}

/// Explores `subtrees` into `out`; the deepest recursion and what it met ([`Met`]).
fn explore_subtrees<'p>(
    variants: &'p [CompiledProgram],
    check: u64,
    (model, options, dependency): (ModelKind, &Options, bool),
    out: &mut Collector<'p>,
    subtrees: &[Subtree],
) -> Result<(usize, Met), CheckError> {
    let (mut max_depth, mut met) = (0, Met::default());
    for s in subtrees {
        let (depth, met_here) = explore_subtree(variants, check, (model, options, dependency), out, s, None)?;
        max_depth = max_depth.max(depth);
        met |= met_here;
    }
    Ok((max_depth, met))
}

/// Explores subtree `s` into `out`, giving work to `share` as it asks ([`super::donate`]); the
/// deepest recursion and what it met ([`Met`]). A subtree of another check, or of no graph
/// of this one, is refused; a rest may have no graph (its giver did not know).
fn explore_subtree<'p>(
    variants: &'p [CompiledProgram],
    check: u64,
    (model, options, dependency): (ModelKind, &Options, bool),
    out: &mut Collector<'p>,
    s: &Subtree,
    share: Option<&Share>,
) -> Result<(usize, Met), CheckError> {
    let foreign = |why: &str| CheckError::ForeignSubtree(format!("{s}: {why}"));
    if s.check != check {
        return Err(foreign("made for another program, model or options"));
    }
    let p = variants.get(s.variant as usize).ok_or_else(|| foreign("no such program variant"))?;
    if s.path.is_empty() {
        return Err(foreign("an empty path"));
    }
    out.set_program(p);
    let donor = share.map(|share| Donor { share, variant: s.variant });
    let part = Part::Subtree { path: s.path.clone(), rest: s.rest, reached: false };
    let (part, depth, met) = explore_part(p, model, options, dependency, out, part, donor)?;
    if !s.rest && !matches!(part, Part::Subtree { reached: true, .. }) {
        return Err(foreign("the exploration has no graph at this path"));
    }
    Ok((depth, met))
}

/// Where a sliced part ([`PreparedCheck::explore`]) gives the rest of its work back.
#[derive(Clone, Debug)]
pub enum Slice {
    /// Never: the whole part.
    Whole,
    /// At the first node visited after this instant (the clock is read every few dozen nodes).
    Until(std::time::Instant),
    /// At the first node visited after `after` where `wanted` is set (by a worker told that
    /// others are idle), which it clears: of the parts that share the flag, one answers.
    WhenWanted { after: std::time::Instant, wanted: std::sync::Arc<std::sync::atomic::AtomicBool> },
    /// At this node: the one a slice ended by the clock yielded at ([`Sliced::yielded_at`]), so
    /// that the same part is explored again (the client does, to print a part's races).
    AtNode(u64),
}

/// What [`PreparedCheck::explore`] explored, and what it gave back.
#[derive(Clone, Debug)]
pub struct Sliced {
    /// The executions it explored.
    pub verdict: Verdict,
    /// The rest of the part, in the order of exploration: subtrees of the same check. Empty
    /// when the part was explored before its slice ended.
    pub rest: Vec<Subtree>,
    /// The node the part yielded at (`None` when it did not): with [`Slice::AtNode`], the same
    /// cut again.
    pub yielded_at: Option<u64>,
}

/// One check prepared for exploring its parts one after another ([`PreparedCheck::explore`]),
/// as a worker does the parts of one exploration: the program lowered and the revisit analysis
/// made once (milliseconds on a program of many threads, where many a part takes less).
pub struct PreparedCheck {
    variants: Vec<CompiledProgram>,
    prog: CompiledProgram,
    check: u64,
    model: ModelKind,
    options: Options,
    dependency: bool,
    /// [`Revisits::unexplored`] of the program.
    unexplored: Vec<String>,
}

impl PreparedCheck {
    pub fn new(program: &tcfuzz_litmus::Program, model: ModelKind, options: &Options) -> Result<PreparedCheck, CheckError> {
        let prog = CompiledProgram::compile(program)?;
        let (dependency, unexplored) = {
            let revisits = Revisits::new(&prog, model, options);
            (revisits.dependency(), revisits.unexplored())
        };
        Ok(PreparedCheck {
            variants: variants(&prog)?,
            check: check_key(program, model, options),
            prog,
            model,
            options: options.clone(),
            dependency,
            unexplored,
        })
    }

    /// Explores `subtree` ([`check_subtrees`]), stopping at the end of `slice` to give back the
    /// rest of its work as subtrees: once the slice ends, the children still to come of every
    /// node on its current path (the explorer then finishes that path, giving away the later
    /// children of each node it reaches). The verdict and the rest together are the subtree:
    /// merged with the rest's verdicts, the subtree's. A slice that ends lets a coordinator hand
    /// a lopsided part's work to idle workers ([`super::donate`] does it between threads).
    pub fn explore(&self, subtree: &Subtree, slice: Slice) -> Result<Sliced, CheckError> {
        let share = match slice {
            Slice::Whole => None,
            Slice::Until(deadline) => Some(Share::yielding(None, Some(deadline), None)),
            Slice::WhenWanted { after, wanted } => Some(Share::yielding(None, Some(after), Some(wanted))),
            Slice::AtNode(node) => Some(Share::yielding(Some(node), None, None)),
        };
        let how = (self.model, &self.options, self.dependency);
        let verdict = on_explorer_stack(|| {
            let mut out = new_collector(&self.prog, &self.options);
            let (max_depth, met) = explore_subtree(&self.variants, self.check, how, &mut out, subtree, share.as_ref())?;
            Ok::<_, CheckError>(finish_with(self.model, out, max_depth, caveats_met(self.unexplored.clone(), met, self.model)))
        })?;
        let (gifts, yielded_at) = share.map(Share::into_gifts).unwrap_or_default();
        let rest = gifts.into_iter().map(|d| Subtree { check: self.check, variant: d.variant, path: d.path, rest: d.rest }).collect();
        Ok(Sliced { verdict, rest, yielded_at })
    }
}

/// Explores one part of a parallel check into `out`, giving work to idle threads as it goes
/// ([`super::donate`]); the deepest recursion and what it met ([`Met`]).
fn explore_donation<'p>(
    variants: &'p [CompiledProgram],
    (model, options, dependency): (ModelKind, &Options, bool),
    out: &mut Collector<'p>,
    part: Donation,
    share: &Share,
) -> Result<(usize, Met), CheckError> {
    let p = variants
        .get(part.variant as usize)
        .ok_or_else(|| CheckError::TooLarge("[tcfuzz internal bug] a part of no program variant".into()))?;
    out.set_program(p);
    let donor = Donor { share, variant: part.variant };
    let whole = Part::Subtree { path: part.path, rest: part.rest, reached: false };
    let (explored, depth, met) = explore_part(p, model, options, dependency, out, whole, Some(donor))?;
    // A split's part is a node the split saw; a donated rest may have had no child left.
    if !part.rest && !matches!(explored, Part::Subtree { reached: true, .. }) {
        return Err(CheckError::TooLarge("[tcfuzz internal bug] a part of a parallel check that its exploration does not reach".into()));
    }
    Ok((depth, met))
}

/// What one thread of [`check_parallel`] explored: its collector, the deepest recursion, and
/// what it met ([`Met`]).
type Explored<'p> = (Collector<'p>, usize, Met);

/// Parts per thread [`check_parallel`] asks [`split`] for to start with: a thread that runs out
/// is then given work by a busy one ([`super::donate`]). (16 per thread measured the same with
/// donation; without it, 16 left one thread with 31–59 % of the work on wcas, casrot and ainc.)
const PARTS_PER_THREAD: usize = 2;

/// [`crate::check`] on `threads` threads: the exploration split into subtrees ([`split`]), which
/// the threads take in turn and explore, each into a collector of its own, a thread out of work
/// given the rest of a node by a busy one ([`super::donate`]); the collectors are
/// merged at the end (duplicates counted across them). The verdict equals [`crate::check`]'s —
/// but for which execution is kept as a witness or an explanation, where several qualify, and
/// [`crate::Options::max_executions`], which bounds each thread's executions. One thread:
/// exactly [`crate::check`].
pub fn check_parallel(
    program: &tcfuzz_litmus::Program,
    model: ModelKind,
    options: &Options,
    threads: usize,
) -> Result<Verdict, CheckError> {
    if threads <= 1 {
        return check(program, model, options);
    }
    let prog = CompiledProgram::compile(program)?;
    let check = check_key(program, model, options);
    let revisits = Revisits::new(&prog, model, options);
    let how = (model, options, revisits.dependency());
    let subtrees = on_explorer_stack(|| split_compiled(&prog, check, how, threads * PARTS_PER_THREAD))?;
    let variants = variants(&prog)?;
    let share = Share::new(threads, subtrees.into_iter().map(|s| Donation { variant: s.variant, path: s.path, rest: false }).collect());
    let results: Mutex<BTreeMap<usize, (Explored<'_>, Option<CheckError>)>> = Mutex::default();
    std::thread::scope(|s| {
        for t in 0..threads {
            let (variants, share, results, prog) = (&variants, &share, &results, &prog);
            let work = move || {
                let mut out = new_collector(prog, options);
                let (mut max_depth, mut met) = (0, Met::default());
                let error = loop {
                    let Some(part) = share.take() else { break None };
                    match explore_donation(variants, how, &mut out, part, share) {
                        Ok((d, l)) => (max_depth, met) = (max_depth.max(d), met | l),
                        Err(e) => {
                            // The others stop at their next part (or, at a deadline or a
                            // cancellation, at their next graph: they poll the same bound).
                            share.stop();
                            break Some(e);
                        }
                    }
                };
                let mut results = results.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
                // (The collector goes back with an error too: an interrupted check's partial
                // counts are all the threads'.)
                results.insert(t, ((out, max_depth, met), error));
            };
            let builder = std::thread::Builder::new().name(format!("tcfuzz-explorer-{t}")).stack_size(EXPLORER_STACK);
            if builder.spawn_scoped(s, work).is_err() {
                // No thread to be had (resource limits): this part of the work here.
                work();
            }
        }
    });
    let results = results.into_inner().unwrap_or_else(std::sync::PoisonError::into_inner);
    let mut merged: Option<Explored<'_>> = None;
    let mut first_error = None;
    for (_, ((out, d, l), error)) in results {
        first_error = first_error.or(error);
        match &mut merged {
            None => merged = Some((out, d, l)),
            Some((all, max_depth, met)) => {
                all.merge(out);
                *max_depth = (*max_depth).max(d);
                *met |= l;
            }
        }
    }
    let (out, max_depth, met) = merged.ok_or_else(|| CheckError::TooLarge("[tcfuzz internal bug] no explorer thread ran".into()))?;
    match first_error {
        None => {}
        Some(CheckError::Interrupted { cause, .. }) => {
            let mut partial = out.stats().clone();
            partial.max_depth = partial.max_depth.max(max_depth);
            return Err(CheckError::Interrupted { cause, partial });
        }
        // A thread past the budget: the counts are all the threads'.
        Some(CheckError::TooManyExecutions { .. }) => return Err(too_many_executions(options, &out, max_depth)),
        Some(e) => return Err(e),
    }
    if out.explored() > options.max_executions {
        return Err(too_many_executions(options, &out, max_depth));
    }
    finish_explorer(&revisits, model, out, max_depth, met)
}

/// Merges the verdicts of parts of one check ([`check_subtrees`] on subtrees that together
/// cover its tree, each once) into the check's verdict: counts added, final states with their
/// counts, races (the smallest [`crate::Options::max_races`]), hangs, loop-bound threads and
/// misuse joined, the condition judged again over the merged states. Exact where the parts keep
/// every final state (`max_states: None`). Where some part kept only its smallest states
/// (`max_states`, with `count_omitted_states`), the merged states are those up to the smallest
/// of such parts' largest kept states, with exact counts (a part leaves out only states past
/// its largest kept one), at least as many as a part kept; the distinct states beyond them and
/// the condition's positive / negative counts are then lower bounds
/// ([`Verdict::states_counted`] false): a state left out by one part may be another's. The
/// condition's observation and Ok / No stay exact. The parts' witnesses and explanations are
/// kept first come. Duplicates are the parts' own: a verdict keeps no graphs to compare across
/// parts. `None` for no verdicts.
pub fn merge_verdicts(program: &tcfuzz_litmus::Program, options: &Options, verdicts: Vec<Verdict>) -> Result<Option<Verdict>, CheckError> {
    let prog = CompiledProgram::compile(program)?;
    let mut verdicts = verdicts.into_iter();
    let Some(mut all) = verdicts.next() else { return Ok(None) };
    let mut states: BTreeMap<Vec<i64>, u64> = BTreeMap::new();
    let mut names = Vec::new();
    let mut cut = Cut::default();
    let mut add_states = |v: &Verdict, names: &mut Vec<std::sync::Arc<str>>| {
        for s in &v.states {
            if names.is_empty() {
                *names = s.values.iter().map(|(n, _)| n.clone()).collect();
            }
            *states.entry(s.values.iter().map(|(_, x)| *x).collect()).or_insert(0) += s.executions;
        }
        cut.add(v);
    };
    add_states(&all, &mut names);
    let mut races: BTreeSet<_> = std::mem::take(&mut all.races).into_iter().collect();
    for v in verdicts {
        add_states(&v, &mut names);
        races.extend(v.races);
        let join = |a: &mut Vec<String>, b: Vec<String>| {
            let set: BTreeSet<String> = a.drain(..).chain(b).collect();
            a.extend(set);
        };
        join(&mut all.blocked_threads, v.blocked_threads);
        join(&mut all.hung_threads, v.hung_threads);
        let misuse: BTreeSet<_> = all.misuse.drain(..).chain(v.misuse).collect();
        all.misuse.extend(misuse);
        for w in v.witnesses {
            if !all.witnesses.iter().any(|x| x.state == w.state) {
                all.witnesses.push(w);
            }
        }
        for x in v.explanations {
            if !all.explanations.iter().any(|y| y.kind == x.kind) {
                all.explanations.push(x);
            }
        }
        let (s, o) = (&mut all.stats, v.stats);
        s.complete += o.complete;
        s.blocked += o.blocked;
        s.hangs += o.hangs;
        s.assume_failed += o.assume_failed;
        s.max_depth = s.max_depth.max(o.max_depth);
        s.duplicates = s.duplicates.zip(o.duplicates).map(|(a, b)| a + b);
        for c in v.caveats {
            if !all.caveats.contains(&c) {
                all.caveats.push(c);
            }
        }
    }
    // (Parts meet different caveats: in the order of the whole exploration's.)
    all.caveats.sort_by_key(|c| caveat_rank(c));
    all.races = races.into_iter().take(options.max_races).collect();
    all.witnesses.sort_by(|a, b| a.state.cmp(&b.state));
    let (mut pos, mut neg) = states.keys().fold((0, 0), |(p, n), s| if prog.condition.eval(s) { (p + 1, n) } else { (p, n + 1) });
    (all.omitted_states, all.states_counted) = (0, true);
    if let Some(last) = &cut.exact_up_to {
        // Lower bounds: each part's own counts are exact, and so is the union of the kept states.
        let distinct = (states.len() as u64).max(cut.distinct);
        (pos, neg) = (pos.max(cut.positive), neg.max(cut.negative));
        states.retain(|s, _| last.as_ref().is_some_and(|last| s <= last));
        (all.omitted_states, all.states_counted) = (distinct - states.len() as u64, false);
    }
    all.condition = crate::verdict::judge(&prog, pos, neg);
    all.states = states
        .into_iter()
        .map(|(s, executions)| crate::verdict::StateCount { values: names.iter().cloned().zip(s).collect(), executions })
        .collect();
    Ok(Some(all))
}

/// What [`merge_verdicts`] learns from the parts that left final states out.
#[derive(Default)]
struct Cut {
    /// `None` while no part left a state out; then the smallest of their largest kept states
    /// (`Some(None)` for a part that kept none): merged states up to it have exact counts.
    exact_up_to: Option<Option<Vec<i64>>>,
    /// The most distinct states, positive and negative states of one part.
    distinct: u64,
    positive: u64,
    negative: u64,
}

impl Cut {
    fn add(&mut self, v: &Verdict) {
        self.distinct = self.distinct.max(v.states.len() as u64 + v.omitted_states);
        self.positive = self.positive.max(v.condition.positive);
        self.negative = self.negative.max(v.condition.negative);
        if v.omitted_states > 0 || !v.states_counted {
            let last = v.states.last().map(|s| s.values.iter().map(|(_, x)| *x).collect::<Vec<i64>>());
            // `None` (no state kept) orders first: nothing past it is exact.
            self.exact_up_to = Some(match self.exact_up_to.take() {
                Some(earlier) => earlier.min(last),
                None => last,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [`check_parallel`]'s work sharing, driven on one thread with ever more threads waiting:
    /// every node gives away the rest of each level not given yet, so the exploration is cut
    /// into as many `rest` parts as it can be, each explored with its own path walked again.
    /// The verdict and how many parts were given.
    fn check_donating(program: &tcfuzz_litmus::Program, model: ModelKind, options: &Options) -> Result<(Verdict, usize), CheckError> {
        let prog = CompiledProgram::compile(program)?;
        let check = check_key(program, model, options);
        let variants = variants(&prog)?;
        let revisits = Revisits::new(&prog, model, options);
        let how = (model, options, revisits.dependency());
        on_explorer_stack(|| {
            let roots = split_compiled(&prog, check, how, 1)?;
            let share = Share::with_waiting(
                usize::MAX / 2,
                roots.into_iter().map(|s| Donation { variant: s.variant, path: s.path, rest: false }).collect(),
            );
            let mut out = new_collector(&prog, options);
            let (mut max_depth, mut met) = (0, Met::default());
            while let Some(part) = share.pop() {
                let (d, l) = explore_donation(&variants, how, &mut out, part, &share)?;
                (max_depth, met) = (max_depth.max(d), met | l);
            }
            Ok((finish_explorer(&revisits, model, out, max_depth, met)?, share.gifts()))
        })
    }

    /// What a parallel check must give exactly as the single-thread one does.
    fn summary(v: &Verdict) -> String {
        let states: Vec<_> = v.states.iter().map(|s| (&s.values, s.executions)).collect();
        format!(
            "{:?} {states:?} {:?} {:?} {:?} {:?} {:?} {:?}",
            v.stats, v.condition, v.races, v.hung_threads, v.blocked_threads, v.misuse, v.caveats
        )
    }

    /// Every example (PTX, tcgen05, mbarrier and Tile IR programs, barrier variants among them)
    /// under each model it has: cut into donated parts, the same verdict, duplicates counted.
    #[test]
    fn donated_parts_give_the_single_thread_verdict_on_every_example() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples");
        let mut files = Vec::new();
        let mut dirs = vec![root];
        while let Some(d) = dirs.pop() {
            for e in std::fs::read_dir(&d).expect("examples directory").flatten() {
                let p = e.path();
                if p.is_dir() {
                    dirs.push(p);
                } else if p.extension().is_some_and(|x| x == "litmus") {
                    files.push(p);
                }
            }
        }
        files.sort();
        // Donating at every node walks each path again: bounded to the examples of up to 1,000
        // executions so that the test stays quick in a debug build.
        let options = Options { detect_duplicates: true, max_executions: 1_000, ..Options::default() };
        let (mut compared, mut gifts) = (0, 0);
        for f in &files {
            let text = std::fs::read_to_string(f).expect("example text");
            let Ok(program) = tcfuzz_litmus::parse(&text) else { continue };
            for model in [ModelKind::Ptx, ModelKind::Sc, ModelKind::TileIr] {
                let Ok(whole) = check(&program, model, &options) else { continue };
                if whole.stats.complete + whole.stats.blocked >= 1_000 {
                    continue;
                }
                let (parts, given) = check_donating(&program, model, &options).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
                assert_eq!(summary(&parts), summary(&whole), "{} under {model:?}, {given} parts given", f.display());
                assert_eq!(parts.stats.duplicates, Some(0), "{}", f.display());
                (compared, gifts) = (compared + 1, gifts + given);
            }
        }
        assert!(compared >= 100, "only {compared} checks compared");
        assert!(gifts >= 5 * compared, "only {gifts} parts given over {compared} checks");
    }
}
