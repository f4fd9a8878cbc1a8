//! Memory models: which execution graphs are consistent, and which are racy.
//!
//! One file per model. A model judges a graph whose reads all have an `rf` and whose writes all
//! sit in `co`; the explorer also asks it about partial graphs (prefixes of executions), so a
//! model must be *prefix-closed*: removing program-order-maximal events from a consistent graph
//! keeps it consistent. Both models here are.
//!
//! The explorer asks a model about hundreds of thousands of graphs, most of them one event or one
//! `rf`/`co` choice away from the last, and asks for the races of a complete execution right after
//! finding it consistent. A model may keep scratch space between calls for that (the PTX model
//! does, behind a lock, so models stay `Send + Sync`); its answers must not depend on it.

use crate::exec::event::EventId;
use crate::exec::graph::ExecutionGraph;
use crate::program::CompiledProgram;
use crate::program::label::{Label, LocId};

pub mod ptx;
pub mod sc;
mod sweep;
pub mod tcgen05;
pub mod tileir;

/// The models the checker knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ModelKind {
    /// Sequential consistency (Lamport 1979): the reference point of the GenMC benchmarks.
    Sc,
    /// The PTX memory consistency model (PTX ISA chapter 8), generic proxy only.
    Ptx,
    /// The CUDA Tile IR memory model (Tile IR spec §7), for programs of tile-block threads.
    TileIr,
}

impl ModelKind {
    pub fn name(self) -> &'static str {
        match self {
            ModelKind::Sc => "sc",
            ModelKind::Ptx => "ptx",
            ModelKind::TileIr => "tileir",
        }
    }
}

pub trait MemoryModel {
    fn kind(&self) -> ModelKind;

    /// Whether the graph is consistent: all the model's axioms hold.
    fn is_consistent(&self, g: &ExecutionGraph) -> bool;

    /// A cheap answer to [`MemoryModel::is_consistent`] for `g` without its holes (the events
    /// whose stamp is [`crate::exec::graph::HOLE`], which are not part of the graph judged), read off
    /// `g` as it is: `None` where the model cannot tell at once. The explorer asks it before it
    /// builds the graph without holes; debug builds check the answer against the full check.
    fn quick_verdict(&self, _g: &ExecutionGraph) -> Option<bool> {
        None
    }

    /// The data races of a complete consistent execution, each as a pair of events.
    fn races(&self, _g: &ExecutionGraph) -> Vec<(EventId, EventId)> {
        Vec::new()
    }

    /// Whether `known` holds for every pair [`MemoryModel::races`] could return for `g` whatever
    /// its causality: the conflicting accesses of one location (one a write) that are not
    /// morally strong, each pair in the order `races` gives it. `None`: the model does not say.
    /// Lets a collector that has recorded every one of them as a race skip judging `g`'s races.
    fn every_race_candidate(&self, _g: &ExecutionGraph, _known: &mut dyn FnMut(EventId, EventId) -> bool) -> Option<bool> {
        None
    }

    /// Whether the model allows executions whose `po ∪ rf` is cyclic (load buffering).
    fn allows_porf_cycles(&self) -> bool;

    /// Whether making read `r` of `g` read from write `a` gives a graph that no extension makes
    /// consistent, whatever the events outside `kept` (those the revisit deletes) and wherever
    /// `a` goes in `co`. Only an optimisation: the explorer skips such a revisit before it tests
    /// it for maximality ([`crate::explore`]).
    fn revisit_forbidden(&self, _g: &ExecutionGraph, _a: EventId, _r: EventId, _kept: &dyn Fn(EventId) -> bool) -> bool {
        false
    }

    /// Whether read `e` of `g` cannot read from write `s` in any graph that holds the events
    /// `kept` accepts (with their sources) and `e`: a rule of the model forbids it from those
    /// events alone, wherever the others go. Only an optimisation, for the explorer's
    /// maximality test, which otherwise builds that graph to find it inconsistent (debug builds
    /// check the answer against [`MemoryModel::is_consistent`]).
    fn source_ruled_out(&self, _g: &ExecutionGraph, _e: EventId, _s: EventId, _kept: &dyn Fn(EventId) -> bool) -> bool {
        false
    }

    /// For an access `e` of `g` with label `label` (`e` may be a hole, or one past its
    /// thread's last event), a bound in coherence order that `g` forces whatever is added to it:
    /// the writes of its location that every consistent graph made of `g`, `e` and more events
    /// orders before `e` (by program order; PTX also by causality under every Fence-SC order),
    /// and the index into [`ExecutionGraph::writes_to`] of the last of them (`0`: none). A write
    /// not yet in `co` goes after it (an index as [`ExecutionGraph::insert_co`] takes it), a
    /// read reads from it or a later write. Only an optimisation — the explorer skips the other
    /// candidates, which [`MemoryModel::is_consistent`] would reject.
    fn co_floor(&self, _g: &ExecutionGraph, _e: EventId, _label: &Label) -> usize {
        0
    }

    /// The other side of [`MemoryModel::co_floor`], for a write `e` of `g` not yet in `co` (a
    /// hole, or one past its thread's last event): the first write of its location, by index
    /// into [`ExecutionGraph::writes_to`], that the model orders after `e` by program order
    /// whatever else `g` holds — a later write of its thread (`usize::MAX`: none); `e` goes
    /// before it. (Not for reads: a read of a write after that one closes a cycle only through
    /// accesses the model may leave unordered, such as another thread's weak write under PTX.)
    /// Only an optimisation, for the writes that fill holes (an event appended to its thread
    /// has nothing after it).
    fn co_ceiling(&self, _g: &ExecutionGraph, _e: EventId, _label: &Label) -> usize {
        usize::MAX
    }

    /// Where in coherence order the write half `w` of an rmw (not yet in `co`) must go for `g` to
    /// have a chance of being consistent, when the model can tell from the rmw alone: an index
    /// into `g.co[loc]` as [`ExecutionGraph::insert_co`] takes it. `None`: every position may do.
    /// Only an optimisation — the explorer skips the other positions, which
    /// [`MemoryModel::is_consistent`] would reject (GenMC places an rmw's write the same way).
    fn rmw_co_position(&self, _g: &ExecutionGraph, _w: EventId) -> Option<usize> {
        None
    }

    /// Whether write `w` may sit right after write `s` in `co`, the other events of `g` as they
    /// are (an rmw's read half reading what it reads): `false` where a rule of the model forbids
    /// it whatever else the graph holds (atomicity; `s` after `w` in program order where the
    /// model orders the two by it). Only an optimisation, for the explorer's maximality test.
    fn may_follow(&self, _g: &ExecutionGraph, _w: EventId, _s: EventId) -> bool {
        true
    }

    /// Whether `g` is consistent, when the model can tell from `g` without `a` being consistent
    /// (the caller's guarantee) and `a` being *fresh*: its thread's last event, read by no event
    /// (a write may sit anywhere in `co`; it is a *sink* where it is last there). `None`: ask
    /// [`MemoryModel::is_consistent`].
    ///
    /// An event with no edge out of it in any relation the axioms look at closes no cycle, so
    /// only the rules that look at `a` alone can fail. Most of the explorer's checks add one such
    /// event to a graph it has just found consistent. Only an optimisation: the explorer checks
    /// the answer against [`MemoryModel::is_consistent`] in debug builds.
    fn sink_extension(&self, _g: &ExecutionGraph, _a: EventId) -> Option<bool> {
        None
    }
}

/// The part of [`MemoryModel::sink_extension`] common to the models that order events only
/// through `po`, `rf`, `co`, `fr` and relations built from them (dependencies, release/acquire
/// patterns and synchronisation, observation and causality orders): `a` has no edge out of it
/// when it is a fence, a read of the last write of its location in `co` (no `fr` edge out), or a
/// write last in `co`. `Some(true)` then, unless `a` is the write half of an rmw, whose
/// atomicity the model decides (`atomic_rmw`). A read of an earlier write has `fr` edges out of
/// it: `Some(true)` when the model finds no path back into it (`fr_closes_nothing`), else `None`.
/// `None` for barriers (a barrier orders every arrival before what follows the others, an edge
/// out of `a`).
pub(crate) fn plain_sink(
    g: &ExecutionGraph,
    a: EventId,
    atomic_rmw: impl FnOnce() -> bool,
    fr_closes_nothing: impl FnOnce(EventId) -> bool,
) -> Option<bool> {
    let l = g.label(a);
    let co_last = |w: EventId| {
        let ws = &g.co[l.loc as usize];
        if w.is_init() { ws.is_empty() } else { ws.last() == Some(&w) }
    };
    if l.is_barrier() {
        return None;
    }
    if l.is_fence() {
        return Some(true);
    }
    if l.is_read() {
        let src = g.event(a).rf?;
        return (co_last(src) || fr_closes_nothing(src)).then_some(true);
    }
    if !co_last(a) {
        return None;
    }
    Some(!l.rmw_write || atomic_rmw())
}

/// Whether `known` holds for every pair of conflicting accesses of `g` (one location, one of them
/// a write, holes left out) that are not `morally_strong`, each pair in node order (thread by
/// thread, in program order): [`MemoryModel::every_race_candidate`].
pub(crate) fn every_conflict(
    g: &ExecutionGraph,
    morally_strong: impl Fn(EventId, EventId) -> bool,
    known: &mut dyn FnMut(EventId, EventId) -> bool,
) -> bool {
    let mut accesses: Vec<(LocId, EventId)> =
        g.event_ids().filter(|&e| !g.is_hole(e) && g.label(e).is_access()).map(|e| (g.label(e).loc, e)).collect();
    accesses.sort_unstable();
    accesses.chunk_by(|x, y| x.0 == y.0).all(|group| {
        group.iter().enumerate().all(|(i, &(_, x))| {
            group[i + 1..].iter().all(|&(_, y)| {
                let conflicting = g.label(x).is_write() || g.label(y).is_write();
                !conflicting || morally_strong(x, y) || known(x, y)
            })
        })
    })
}

/// The last write of `e`'s thread before it in program order that `ordered` accepts (a write of
/// its location `loc`, present in `co`): [`MemoryModel::co_floor`] for the models whose
/// coherence follows program order between such accesses.
pub(crate) fn co_floor_after_own_writes(g: &ExecutionGraph, e: EventId, loc: LocId, ordered: impl Fn(&Label) -> bool) -> usize {
    g.threads[e.thread as usize][..e.index as usize]
        .iter()
        .enumerate()
        .filter(|(_, x)| x.label.is_write() && x.label.loc == loc && ordered(&x.label))
        .filter_map(|(i, _)| g.co_position(EventId::new(e.thread as usize, i)))
        .max()
        .unwrap_or(0)
}

/// The first write of `e`'s thread after it in program order that `ordered` accepts (a write of
/// its location `loc`, present in `co`), by index into [`ExecutionGraph::writes_to`]
/// (`usize::MAX`: none): [`MemoryModel::co_ceiling`] for the models whose coherence follows
/// program order between such writes.
pub(crate) fn co_ceiling_before_own_writes(g: &ExecutionGraph, e: EventId, loc: LocId, ordered: impl Fn(&Label) -> bool) -> usize {
    let evs = &g.threads[e.thread as usize];
    evs.iter()
        .enumerate()
        .skip(e.index as usize + 1)
        .filter(|(_, x)| x.label.is_write() && x.label.loc == loc && ordered(&x.label))
        .filter_map(|(i, _)| g.co_position(EventId::new(e.thread as usize, i)))
        .min()
        .unwrap_or(usize::MAX)
}

/// The model of `kind` for `program` (PTX needs the threads' placement).
pub fn model_for(kind: ModelKind, program: &CompiledProgram) -> Box<dyn MemoryModel + Send + Sync> {
    match kind {
        ModelKind::Sc => Box::new(sc::Sc),
        ModelKind::Ptx => Box::new(ptx::Ptx::new(program)),
        ModelKind::TileIr => Box::new(tileir::TileIr::new(program)),
    }
}
