//! The entry points: [`check`] (the explorer), [`check_oracle`] (the oracle) and [`check_exact`]
//! (the explorer, or the oracle where a caveat applies), each also for a program already lowered.

use std::cell::Cell;
use std::thread::JoinHandle;

use tcfuzz_litmus::Program;

use crate::error::CheckError;
use crate::explore::bound::Bound;
use crate::explore::oracle::Oracle;
use crate::explore::revisits::{Met, Revisits, rmw_hole_possible, rmws_of_one_location_in_two_threads};
use crate::explore::trust;
use crate::model::{self, ModelKind};
use crate::options::Options;
use crate::program::CompiledProgram;
use crate::verdict::{self, Method, Verdict};

/// Explores every execution of `program` under `model` with the DPOR explorer.
pub fn check(program: &Program, model: ModelKind, options: &Options) -> Result<Verdict, CheckError> {
    let prog = CompiledProgram::compile(program)?;
    check_compiled(&prog, model, options)
}

/// The stack of the thread the explorer runs on: its recursion goes one level deeper per event
/// added (`Visit`), a few kilobytes each in a debug build, and a long program (hundreds of
/// events) needs more than a default thread's 2 MiB. Only touched pages are backed by memory.
pub(crate) const EXPLORER_STACK: usize = 512 << 20;

/// Like [`check`], for a program already lowered.
pub fn check_compiled(prog: &CompiledProgram, model: ModelKind, options: &Options) -> Result<Verdict, CheckError> {
    on_explorer_stack(|| explore_compiled(prog, model, options))
}

thread_local! {
    /// Whether this thread's stack is an [`EXPLORER_STACK`]: set first thing by the threads
    /// [`spawn_explorer_thread`] and [`on_explorer_stack`] start, and by no other.
    static EXPLORER_SIZED: Cell<bool> = const { Cell::new(false) };
}

/// Spawns a thread named `name` with a stack the explorer can run on: the checks it makes run
/// on it directly, where every check otherwise starts a thread of its own (whose fresh stack
/// pages the kernel zeroes each time, a few percent of a fuzzing job). For long-lived threads
/// that check program after program: the stack pages its deepest check touched stay resident.
pub fn spawn_explorer_thread<F, T>(name: String, run: F) -> std::io::Result<JoinHandle<T>>
where
    F: FnOnce() -> T + Send + 'static,
    T: Send + 'static,
{
    std::thread::Builder::new().name(name).stack_size(EXPLORER_STACK).spawn(move || {
        EXPLORER_SIZED.set(true);
        run()
    })
}

/// Runs `explore` on a thread with an [`EXPLORER_STACK`]: this one if it has one, else a new one.
/// A caller that checks many programs on a thread [`spawn_explorer_thread`] did not start (the
/// main thread, a scoped thread) runs them all in one call of this, on one new thread, rather
/// than each check on a thread of its own.
pub fn on_explorer_stack<T: Send>(explore: impl FnOnce() -> T + Send) -> T {
    if EXPLORER_SIZED.get() {
        return explore();
    }
    // (The closure goes to the thread only if one is had: `Option::take`.)
    let explore = std::sync::Mutex::new(Some(explore));
    let run = || explore.lock().unwrap_or_else(std::sync::PoisonError::into_inner).take().map(|f| f());
    std::thread::scope(|s| {
        let explorer = std::thread::Builder::new().name("tcfuzz-explorer".into()).stack_size(EXPLORER_STACK);
        let on_explorer = || {
            EXPLORER_SIZED.set(true);
            run()
        };
        let done = match explorer.spawn_scoped(s, on_explorer) {
            Ok(handle) => handle.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
            // No thread to be had (resource limits): explore on this one.
            Err(_) => None,
        };
        done.unwrap_or_else(|| run().expect("[tcfuzz internal bug] the explorer ran twice"))
    })
}

fn explore_compiled(prog: &CompiledProgram, model: ModelKind, options: &Options) -> Result<Verdict, CheckError> {
    model_applies(prog, model)?;
    let variants = prog.rendezvous_variants()?;
    let progs: Vec<&CompiledProgram> = if variants.is_empty() { vec![prog] } else { variants.iter().collect() };
    let revisits = Revisits::new(prog, model, options);
    let mut out = new_collector(prog, options);
    let (mut max_depth, mut met) = (0, Met::default());
    for p in progs {
        out.set_program(p);
        let (_, depth, met_here) = explore_part(p, model, options, revisits.dependency(), &mut out, trust::Part::All, None)?;
        max_depth = max_depth.max(depth);
        met |= met_here;
    }
    finish_explorer(&revisits, model, out, max_depth, met)
}

/// A collector for a check of `prog` with `options`.
pub(super) fn new_collector<'p>(prog: &'p CompiledProgram, options: &Options) -> verdict::Collector<'p> {
    let mut out = verdict::Collector::new(prog, options.detect_duplicates, options.max_races, options.witnesses);
    out.set_loop_bound(options.loop_bound);
    out.cap_states(options.max_states, options.count_omitted_states);
    out.count_into(options.progress.clone());
    out.trace_into(options.trace.clone());
    out
}

/// Explores `part` of the exploration of `p` (one program variant) into `out`, with the
/// dependency revisits or not ([`Revisits::dependency`] of the program); gives the part back
/// (with what it found: [`trust::Part`]), the deepest recursion, and whether a revisit was lost.
pub(super) fn explore_part<'p>(
    p: &'p CompiledProgram,
    model: ModelKind,
    options: &Options,
    dependency_revisits: bool,
    out: &mut verdict::Collector<'p>,
    part: trust::Part,
    donor: Option<trust::Donor<'_>>,
) -> Result<(trust::Part, usize, Met), CheckError> {
    model_applies(p, model)?;
    let m = model::model_for(model, p);
    let bound = Bound::new(options);
    let mut explorer = trust::Explorer {
        prog: p,
        model: &*m,
        loop_bound: options.loop_bound,
        out,
        max_executions: options.max_executions,
        depth: 0,
        max_depth: 0,
        dependency_revisits,
        lost_revisit: std::cell::Cell::new(false),
        atomicity_held: std::cell::Cell::new(false),
        asks_atomicity: dependency_revisits && rmws_of_one_location_in_two_threads(p),
        // (Nothing depends on it where the caveat cannot stand: not looked for there.)
        rmw_hole_met: std::cell::Cell::new(!(dependency_revisits && model == ModelKind::Ptx && rmw_hole_possible(p))),
        completion_budget: std::cell::Cell::new(None),
        fill_memo: Default::default(),
        completion_gave_up: std::cell::Cell::new(false),
        maximality_budget: std::cell::Cell::new(None),
        maximality_limit: options.maximality_budget,
        waits_for: std::cell::Cell::new(None),
        revisiting_write_out: std::cell::Cell::new(false),
        replays: Default::default(),
        stopped: Default::default(),
        frontiers: Default::default(),
        assumes: p.has_assume(),
        barriers: p.has_barriers(),
        awaits: p.has_blocking_wait(),
        compacted: Default::default(),
        bound: &bound,
        part,
        path: Vec::new(),
        children: Vec::new(),
        given: Vec::new(),
        donor,
    };
    if let Err(e) = explorer.run() {
        // The explorer stops at the budget without the counts (`trust.rs`): they are the
        // collector's.
        return Err(match e {
            CheckError::TooManyExecutions { .. } => too_many_executions(options, explorer.out, explorer.max_depth),
            e => e,
        });
    }
    let met = Met {
        lost_revisit: explorer.lost_revisit.get(),
        atomicity_held: explorer.atomicity_held.get(),
        rmw_hole: explorer.rmw_hole_met.get(),
        gave_up: explorer.completion_gave_up.get(),
    };
    Ok((explorer.part, explorer.max_depth, met))
}

/// [`CheckError::TooManyExecutions`] with the counts of `out`, the collector of a check that
/// passed [`Options::max_executions`], and the deepest recursion it reached.
pub(super) fn too_many_executions(options: &Options, out: &verdict::Collector<'_>, max_depth: usize) -> CheckError {
    let mut partial = out.stats().clone();
    partial.max_depth = partial.max_depth.max(max_depth);
    CheckError::TooManyExecutions { max_executions: options.max_executions, partial }
}

/// The explorer's verdict from what it collected with `revisits`.
pub(super) fn finish_explorer(
    revisits: &Revisits<'_>,
    model: ModelKind,
    out: verdict::Collector<'_>,
    max_depth: usize,
    met: Met,
) -> Result<Verdict, CheckError> {
    Ok(finish_with(model, out, max_depth, revisits.caveats(met)))
}

/// The explorer's verdict of `out`, with the caveats the revisits gave ([`finish_explorer`]).
pub(super) fn finish_with(model: ModelKind, mut out: verdict::Collector<'_>, max_depth: usize, caveats: Vec<String>) -> Verdict {
    out.set_max_depth(max_depth);
    out.finish(model, Method::Explorer, caveats)
}

/// The explorer's verdict on `program`, or — where it carries a caveat (executions the explorer
/// may not explore) — the oracle's, which has no such limit, where the oracle can judge the
/// program within [`Options::oracle_limit`]. The verdict's `method` says which; where the oracle
/// gives up ([`CheckError::TooLarge`]) or does not finish ([`CheckError::Interrupted`]: the
/// deadline passes, or the check is cancelled, while the oracle runs), the explorer's verdict
/// stands with its caveats.
pub fn check_exact(program: &Program, model: ModelKind, options: &Options) -> Result<Verdict, CheckError> {
    let prog = CompiledProgram::compile(program)?;
    check_exact_compiled(&prog, model, options)
}

/// Like [`check_exact`], for a program already lowered.
pub fn check_exact_compiled(prog: &CompiledProgram, model: ModelKind, options: &Options) -> Result<Verdict, CheckError> {
    let explored = check_compiled(prog, model, options)?;
    if explored.caveats.is_empty() {
        return Ok(explored);
    }
    match check_oracle_compiled(prog, model, options) {
        Err(CheckError::TooLarge(_) | CheckError::Interrupted { .. }) => Ok(explored),
        judged => judged,
    }
}

/// Enumerates every candidate execution of `program` herd-style and keeps those `model` allows.
/// Exponential; for testing the explorer on small programs.
pub fn check_oracle(program: &Program, model: ModelKind, options: &Options) -> Result<Verdict, CheckError> {
    let prog = CompiledProgram::compile(program)?;
    check_oracle_compiled(&prog, model, options)
}

/// Like [`check_oracle`], for a program already lowered.
pub fn check_oracle_compiled(prog: &CompiledProgram, model: ModelKind, options: &Options) -> Result<Verdict, CheckError> {
    model_applies(prog, model)?;
    let m = model::model_for(model, prog);
    let variants = prog.rendezvous_variants()?;
    let progs: Vec<&CompiledProgram> = if variants.is_empty() { vec![prog] } else { variants.iter().collect() };
    let mut out = new_collector(prog, options);
    let bound = Bound::new(options);
    for p in progs {
        out.set_program(p);
        Oracle {
            prog: p,
            model: &*m,
            loop_bound: options.loop_bound,
            limit: options.oracle_limit,
            exclude_porf_cycles: options.exclude_porf_cycles,
            out: &mut out,
            bound: &bound,
        }
        .run()?;
    }
    Ok(out.finish(model, Method::Oracle, Vec::new()))
}

/// The `tileir` model judges Tile IR programs only (a PTX thread has no token order to give it).
fn model_applies(prog: &CompiledProgram, model: ModelKind) -> Result<(), CheckError> {
    if model == ModelKind::TileIr && prog.tile.is_none() {
        return Err(CheckError::unsupported("the tileir model on a PTX program", tcfuzz_litmus::Span::default()));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::thread::{self, ThreadId};

    use super::{on_explorer_stack, spawn_explorer_thread};

    /// The thread a check runs on, and the one a check nested in it runs on.
    fn threads() -> (ThreadId, ThreadId) {
        on_explorer_stack(|| (thread::current().id(), on_explorer_stack(|| thread::current().id())))
    }

    #[test]
    fn checks_run_on_an_explorer_thread_itself_and_elsewhere_on_one_thread_of_their_own() {
        // A thread of the test harness: the check gets a thread of its own, and a check nested
        // in it runs there too.
        let (outer, inner) = threads();
        assert_ne!(outer, thread::current().id());
        assert_eq!(inner, outer);
        // An explorer's thread: both run on it.
        let explorer = spawn_explorer_thread("test-explorer".into(), || (thread::current().id(), threads())).unwrap();
        let spawned = explorer.thread().id();
        let (own, (outer, inner)) = explorer.join().unwrap();
        assert_eq!((own, outer, inner), (spawned, spawned, spawned));
    }
}
