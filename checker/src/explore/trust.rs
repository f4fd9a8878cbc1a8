//! TruSt with HMC's dependency revisits: the exploration procedure (see the module docs of
//! [`super`] for the rules and the papers).
//!
//! ```text
//! Visit(G):
//!   if ¬consistent(G \ holes): return
//!   if a thread failed an assume no extension can change (Explorer::moot): return
//!   a ← next(G)       -- an rmw's write half first (rmws are added whole); else a fence that
//!                     --   fills a hole, the lowest-numbered thread's first; else the first hole of
//!                     --   the lowest-numbered thread with holes; else the next event of the
//!                     --   lowest-numbered unfinished thread whose next event is not a read that
//!                     --   would fail an assume reading the co-latest write; else (every such
//!                     --   thread waits) the next event of the lowest-numbered of those
//!   none left      → output G (complete, or blocked if a thread hit the loop bound)
//!   a fence        → Visit(G + a)        (likewise a barrier arrival; a thread waiting at a
//!                                         barrier its whole CTA has not reached yet is skipped)
//!   a read         → for each write w to loc(a), in co order: Visit(G + a, rf(a) = w)
//!   a write        → for each read r of loc(a), r ∉ prefix(a):           -- backward revisits
//!                      Deleted := {e | r <_G e} \ prefix(a)
//!                      if the model rules out r reading a in G \ Deleted: skip
//!                      if every e ∈ Deleted ∪ {r} was added maximally, and the revisited
//!                      graph is no dead end (maximal.rs, "Dead ends"):
//!                        VisitCOs(Cut(G + a, Deleted), rf(r) = a)
//!                    VisitCOs(G + a, a)                                  -- forward
//! VisitCOs(G, a): for each position p of co(loc(a)): Visit(G with a at p)
//! ```
//!
//! (The order of a graph's children does not matter; the forward step comes last so that it can
//! take `G + a` over instead of copying it.) Most consistency checks add one event to a graph just
//! found consistent: where that event is a *sink* — its thread's last, read by nothing, last in
//! `co` if a write — the model may answer from it alone ([`MemoryModel::sink_extension`]; debug
//! builds check the answer against the full check).
//!
//! *Waiting reads.* Which unfinished thread `next` moves is the explorer's choice, as long as it
//! is a function of the graph: every graph still has one order of addition, and the maximality
//! test reads that order off the stamps. `next` defers a thread whose next event is a read that
//! fails its `assume` when it reads the `co`-latest write. Added at once, that read would be
//! blocked, and each write added after it would both revisit it and leave it blocked beside
//! it, a graph that ends discarded; deferred until another thread has written what it waits
//! for, it reads that write directly. (GenMC gets a similar effect by revisiting such reads in
//! place.) On `szymanski` n = 3 under PTX this halved the failed-assume graphs explored
//! (15,691 → 8,171), with the same complete ones; `tcfuzz selftest --family assume` checks it
//! against the oracle. (Of those graphs, `Stats::assume_failed` counts the ones no later write
//! can rescue, as GenMC does: 6,987, GenMC's count too.)
//!
//! *Fences first.* A fence that fills a hole is the same event whenever it comes back: the
//! kept events after it fix its thread's control flow up to them, and a fence reads and writes
//! nothing (its dependencies, the reads its thread branched on before it, are kept too). So
//! `next` puts such fences back before it refills any other hole. A revisit that closes a `po ∪
//! rf` cycle through deleted fences (a `fence.sc` on each stretch, which PTX forbids) leaves
//! a graph the model accepts until they are back; refilled last, the fences came only after
//! the writes between had made their revisits and the reads their branches, all to be
//! rejected. On `szymanski` n = 3 under PTX that was 42 % of the graphs visited (98,454 of
//! 232,372): 1.14 s → 0.83 s, with the same executions.
//!
//! *Revisits the model rules out* ([`MemoryModel::revisit_forbidden`]): PTX rejects a read of a
//! later write of its own thread, and a cycle of `po ∪ rf` with a `fence.sc` on each stretch of
//! program order, wherever the deleted events go; the explorer skips those revisits before the
//! maximality test, which costs more.
//!
//! `prefix(a)` is the `po ∪ rf`-prefix (TruSt) or the dependency prefix (HMC,
//! [`super::holes::dep_prefix`]); `Cut` turns a deleted event into a hole where a later event of
//! its thread stays. `<_G` is the order in which events were added (their stamps). *Maximally
//! added* is TruSt's condition that picks, among all graphs a revisit would turn into the same
//! graph, exactly one — which makes the exploration optimal: each consistent graph is visited
//! once ([`super::maximal`]).

use std::rc::Rc;

use super::holes::{cut, dep_prefix, fix_cas_layout, frontier, present};
use super::maximal::CoAfter;
use crate::error::CheckError;
use crate::exec::bitset::BitSet;
use crate::exec::event::EventId;
use crate::exec::event::NewEvent;
use crate::exec::graph::{ExecutionGraph, HOLE};
use crate::exec::interp::{Replay, Step, replay};
use crate::model::{MemoryModel, ModelKind};
use crate::program::label::EventKind;
use crate::program::porf_cycles::{StaticGraph, accesses};
use crate::program::{CompiledProgram, Op};
use crate::verdict::Collector;

/// Whether the explorer explores the `po ∪ rf`-cyclic executions `kind` allows (dependency-based
/// revisits), so that its verdicts need no caveat about them. Only for models that are
/// monotone (removing any events, with the reads of removed writes, keeps a graph consistent) and
/// forbid `rf ∪ dep` cycles (No-Thin-Air); PTX and Tile IR are both (Tile IR orders a tile block
/// by tokens only, and token order, like PTX's program order, is not in the prefix).
pub(crate) fn explores_porf_cycles(kind: ModelKind) -> bool {
    matches!(kind, ModelKind::Ptx | ModelKind::TileIr)
}

/// The caveats of the explorer's verdict on `prog` under `model`: the executions the model
/// allows (`allows_porf_cycles`: load buffering) that it may not explore, each named with a
/// syntactic over-approximation of the programs that could have them.
/// - With TruSt's revisits (`dependency` off): every execution with a cyclic `po ∪ rf`.
/// - With the dependency revisits: executions whose cycle goes through a barrier reached after a
///   branch on a read ([`barrier_after_branch`]), or through a `cas` that fails but would succeed
///   in every graph the revisit could start from ([`cas_before_ordering`]; module docs of
///   [`super`]).
///
/// For a PTX program both tests ask the instruction graph of [`StaticGraph`] too: a `po ∪ rf`
/// cycle counts only where the model does not forbid it in every execution (a `fence.sc.gpu`
/// on each stretch, or atomics of one lock reading each other's writes:
/// [`StaticGraph::porf_cycle_possible`]), and a barrier blocks a revisit only where some read
/// reaches, through a barrier arrival, a write it may read ([`StaticGraph::barrier_on_cycle`]). (A load-buffering cycle through an asynchronous operation — a `tcgen05` perform
///   or a bulk copy, which program order does not order before later events of its thread — is
///   reached like any other: nothing in the dependency prefix keeps the operation before them.)
pub(crate) fn caveats(prog: &CompiledProgram, model: ModelKind, allows_porf_cycles: bool, dependency: bool) -> Vec<String> {
    let mut out = Vec::new();
    if !allows_porf_cycles {
        return out;
    }
    let name = model.name();
    // The static analysis is the costly part (a graph of every instruction, [`StaticGraph`] for
    // PTX programs): once, and only where a cheaper test leaves it to decide.
    let graph = std::cell::OnceCell::new();
    let graph = || prog.tile.is_none().then(|| graph.get_or_init(|| StaticGraph::new(prog)));
    let porf = std::cell::OnceCell::new();
    let may_have_porf_cycles = || {
        *porf.get_or_init(|| match graph() {
            Some(g) => g.porf_cycle_possible(),
            None => prog.may_have_porf_cycles(),
        })
    };
    if !dependency {
        if barrier_after_branch(prog) || may_have_porf_cycles() {
            out.push(format!(
                "the explorer does not explore executions with a cyclic po ∪ rf (load buffering), which the {name} model allows; use the oracle for those"
            ));
        }
        return out;
    }
    // In a PTX program, a barrier blocks a revisit only where a read reaches a write it may read
    // through a barrier arrival ([`StaticGraph::barrier_on_cycle`]).
    if barrier_after_branch(prog) && barrier_cycle_possible(prog) && graph().is_none_or(|g| g.barrier_on_cycle()) {
        out.push(format!(
            "the explorer does not explore load-buffering executions whose cycle goes through a barrier that a thread reaches after a branch (or an assume) on a value it read, which the {name} model allows; use the oracle for those"
        ));
    }
    if cas_before_ordering(prog) && may_have_porf_cycles() {
        out.push(format!(
            "the explorer does not explore load-buffering executions in which a cas fails only because it reads a write that comes later on the cycle while a later access of its location (or a release, fence or barrier after it) needs that failure, nor those whose cycle goes through the register a cas compares with, which the {name} model allows; use the oracle for those"
        ));
    }
    if rmw_hole_possible(prog) {
        out.push(format!(
            "the explorer may miss executions in which a cas or another atomic rmw that a revisit removed while keeping later events of its thread reads a write the same revisit removed (a known gap of the dependency revisits, with or without load buffering), which the {name} model allows; use the oracle for those"
        ));
    }
    out
}

/// Whether some thread of `prog` has an rmw that a dependency revisit can turn into a hole (an
/// instruction may come after it in its thread, so a later event can be kept without it, when
/// it depends on nothing the rmw gives) while a write the rmw could read is elsewhere in the
/// program (a store or an rmw of its location, or an operation writing memory this test does
/// not follow). Such a hole is refilled before the writes the revisit deleted come back, and
/// the executions where the rmw reads one of them may be missed (module docs of [`super`]):
/// `ptx::cas_hole_refilled_before_its_source_returns_is_a_known_gap_named_by_a_caveat` for a
/// `cas`, `ptx::exch_hole_refilled_before_its_source_returns_is_a_known_gap_named_by_a_caveat`
/// for an `exch`.
///
/// For an rmw other than a `cas` the test also asks for what makes the hole: the revisit keeps
/// a later event of its thread only through the revisiting write's dependency prefix, so some
/// later instruction of the thread (any, in a loop) must reach another thread — write a
/// location another thread reads, or arrive at a barrier ([`communicates`]) — without
/// depending on the rmw's read on every path ([`needs_result`]). A `cas` keeps the wider test
/// it had. Measured on `selftest --programs 3000 --family all`, seeds 1 and 2, before loops
/// were looked into: the caveat named 347 and 375 programs, 160 and 177 of which had no caveat
/// when it named only a `cas`; with loops looked into it names 12 of the 598 conformance
/// programs, 7 of which it named before. An over-approximation: it names programs where no
/// execution is missed, and [`crate::check_exact`] then asks the oracle, which is right either
/// way. Loads are not named although the class holds them too: asking the same of every load
/// names over a third of all programs, and no missed execution through a load hole has been
/// seen (module docs of [`super`]).
fn rmw_hole_possible(prog: &CompiledProgram) -> bool {
    let writes = |op: &Op, loc| match op {
        Op::Store { label, .. } => label.loc == loc,
        Op::Rmw { write, .. } => write.loc == loc,
        Op::BulkCopy { .. } => true,
        _ => false,
    };
    // The locations each thread reads, for [`communicates`]: once, and only where asked.
    let reads = std::cell::OnceCell::new();
    let reads = || reads.get_or_init(|| locations_read(prog));
    prog.threads.iter().enumerate().any(|(ti, t)| {
        let looping = looping(&t.code);
        t.code.iter().enumerate().any(|(i, l)| {
            let Op::Rmw { op, read, .. } = &l.op else { return false };
            let followed = looping || i + 1 < t.code.len();
            let source_elsewhere = prog
                .threads
                .iter()
                .enumerate()
                .any(|(tj, u)| u.code.iter().enumerate().any(|(j, m)| (tj, j) != (ti, i) && writes(&m.op, read.loc)));
            let kept_later = *op == tcfuzz_litmus::AtomOp::Cas || {
                // In a loop, the instructions before `i` (and `i` itself) run again after it,
                // and depend on its read only past a branch on it that every path takes.
                let (needs, every_later) = needs_result(t, i);
                t.code.iter().enumerate().any(|(j, m)| {
                    let later = j > i || (looping && !every_later);
                    later && !needs[j] && communicates(reads(), ti, &m.op)
                })
            };
            followed && source_elsewhere && kept_later
        })
    })
}

/// For each instruction after `i` (an rmw) in its thread's code, whether it depends on the value
/// `i` reads wherever it runs after it, so that a revisit cannot keep it and delete that read
/// ([`super::holes::dep_prefix`]: dependencies are in the prefix); and whether every event
/// after some point of the straight line after `i` does (a branch on the read, so in a loop
/// the next iterations too). The dependencies are [`crate::exec::interp`]'s: a register carries
/// the reads its value comes from, and once a branch, an `assume` or a blocking wait has an
/// operand that depends on the read, every later event does. A must-analysis, so that it never
/// claims a dependency some path lacks: a register is marked only on the straight line after
/// `i` (before the first jump, which may skip what follows it) and unmarked wherever any
/// instruction may overwrite it; an instruction is marked where an operand register is, or
/// everything after a dependent branch is.
fn needs_result(thread: &crate::program::ThreadCode, i: usize) -> (Vec<bool>, bool) {
    use crate::program::Opnd;
    let code = &thread.code;
    let mut out = vec![false; code.len()];
    let Some(Op::Rmw { dst: Some(d), .. }) = code.get(i).map(|l| &l.op) else { return (out, false) };
    let mut marked = vec![false; thread.reg_names.len().max(d + 1)];
    marked[*d] = true;
    let mut straight = true;
    for j in i + 1..code.len() {
        let (dst, operands) = registers(&code[j].op);
        let dependent = operands.iter().any(|o| matches!(o, Opnd::Reg(r) if marked.get(*r).copied().unwrap_or(false)));
        out[j] = dependent;
        let decides = matches!(code[j].op, Op::Branch { .. } | Op::Assume { .. } | Op::SyncWait { blocking: true, .. });
        if dependent && decides && straight {
            out[j..].iter_mut().for_each(|x| *x = true);
            return (out, true);
        }
        if let Some(r) = dst
            && let Some(m) = marked.get_mut(r)
        {
            // A register's new value depends on the read only through an operand that does
            // (an rmw's or a load's result comes from its own read).
            let from_operands = matches!(code[j].op, Op::Mov { .. } | Op::Add { .. });
            *m = straight && dependent && from_operands;
        }
        if matches!(code[j].op, Op::Branch { .. } | Op::Goto { .. }) {
            straight = false;
        }
    }
    (out, false)
}

/// The register an instruction sets, and the operands whose values its events carry.
fn registers(op: &Op) -> (Option<usize>, Vec<crate::program::Opnd>) {
    match op {
        Op::Load { dst, .. } => (*dst, Vec::new()),
        Op::Store { src, .. } => (None, vec![*src]),
        Op::Rmw { dst, a, b, .. } => (*dst, [Some(*a), *b].into_iter().flatten().collect()),
        Op::Mov { dst, src } => (*dst, vec![*src]),
        Op::Add { dst, a, b } => (*dst, vec![*a, *b]),
        Op::Branch { a, b, .. } | Op::Assume { a, b, .. } => (None, vec![*a, *b]),
        Op::DynBarrier { reg, .. } => (None, vec![crate::program::Opnd::Reg(*reg)]),
        Op::SyncArrive { dst, .. } => (*dst, Vec::new()),
        Op::SyncWait { dst, operand, .. } => (*dst, vec![*operand]),
        Op::TcCompute { acc, .. } => (None, acc.iter().map(|(o, _)| *o).collect()),
        Op::TmemAlloc { op: crate::program::AllocOp::Dealloc { addr: Some(a), .. }, .. } => (None, vec![*a]),
        Op::TmemAlloc { .. } | Op::Fence { .. } | Op::Barrier { .. } | Op::BulkCopy { .. } | Op::TcCommit { .. } | Op::Goto { .. } => {
            (None, Vec::new())
        }
    }
}

/// The locations each thread's instructions may read, sorted.
fn locations_read(prog: &CompiledProgram) -> Vec<Vec<u32>> {
    prog.threads
        .iter()
        .map(|t| {
            let mut locs: Vec<u32> = t.code.iter().flat_map(|l| accesses(&l.op).reads).map(|r| r.loc).collect();
            locs.sort_unstable();
            locs.dedup();
            locs
        })
        .collect()
}

/// Whether an event of `op`, an instruction of thread `t`, can be in the dependency prefix of
/// another thread's event ([`super::holes::dep_prefix`]): it arrives at a barrier, or writes a
/// location an instruction of another thread reads (`reads`: [`locations_read`]).
fn communicates(reads: &[Vec<u32>], t: usize, op: &Op) -> bool {
    let mine = accesses(op);
    !mine.barriers.is_empty()
        || mine.writes.iter().any(|w| reads.iter().enumerate().any(|(u, locs)| u != t && locs.binary_search(&w.loc).is_ok()))
}

/// The caveat of a verdict whose exploration skipped a revisit no graph qualified for
/// ([`Explorer::lost_revisit`]).
pub(crate) fn lost_revisit_caveat(model: ModelKind) -> String {
    format!(
        "the explorer met a load-buffering revisit it cannot take (a read whose only possible sources are writes the revisit removes, e.g. through a barrier or a spin loop's fences) and may miss executions the {} model allows; use the oracle for those",
        model.name()
    )
}

/// Whether some thread of `prog` may arrive at a barrier after a branch (whose condition may
/// depend on a read) while some thread reads before it writes. A barrier arrival is in the prefix
/// of every later event of its thread and of its partners ([`super::holes::dep_prefix`]), and
/// needs the reads it control-depends on, so a load-buffering cycle
/// `ld x; branch; bar.sync | bar.sync; st y | ld y; st x` (the last thread outside the barrier) is
/// out of reach. A barrier that depends on no read is on no cycle of the prefix relation. An
/// `assume` counts as a branch: the thread goes on past it only where the value it tests holds,
/// so the events after it control-depend on that value as after a branch
/// (`ld y; assume.ge r0, 0; bar.sync 0 | bar.sync 0; st y, 0 | atom.add r0, y, 0`: the `atom`
/// reading the store while the `ld` reads the `atom`'s write is out of reach).
fn barrier_after_branch(prog: &CompiledProgram) -> bool {
    let reads_then_writes = prog.threads.iter().any(|t| {
        let read = t.code.iter().position(|l| matches!(l.op, Op::Load { .. } | Op::Rmw { .. }));
        let write = t.code.iter().rposition(|l| matches!(l.op, Op::Store { .. } | Op::Rmw { .. }));
        read.zip(write).is_some_and(|(r, w)| r <= w || looping(&t.code))
    });
    reads_then_writes
        && prog.threads.iter().any(|t| {
            let barrier = |op: &Op| matches!(op, Op::Barrier { .. } | Op::DynBarrier { .. } | Op::TmemAlloc { rendezvous: Some(_), .. });
            // (Which barrier a `DynBarrier` is depends on a register: a branch of its own.)
            let branch = t.code.iter().position(|l| matches!(l.op, Op::Branch { .. } | Op::DynBarrier { .. } | Op::Assume { .. }));
            let last_barrier = t.code.iter().rposition(|l| barrier(&l.op));
            branch.zip(last_barrier).is_some_and(|(b, i)| b <= i || looping(&t.code))
        })
}

/// Whether a revisit that [`barrier_after_branch`] rules out can be on a consistent cycle: the
/// revisiting write `W` must have, in its dependency prefix, a barrier arrival that
/// control-depends on the revisited read `R`, which comes before the arrival in its thread. The
/// prefix reaches a barrier arrival only from an event after one in its thread (the arrival
/// comes with it, and then its partners' arrivals): `W` itself, or an event reached from `W`
/// through its dependencies and `rf` — so some write comes after a barrier arrival in its thread
/// (an event reached that way is a write, or a read that a later write of its thread depends
/// on). Where `W` itself comes after the arrival and depends on no read, `R` is before an
/// arrival of the same barrier instance and `W` after one, so `R` precedes `W` in causality
/// order (barriers synchronize their members, PTX ISA §9.7.13.1) and cannot read it
/// (Causality, §8.10.6). So some write depends on a read of its thread (an rmw, an operation on
/// a synchronization object or Tensor Memory, a store of a register, or a write after a branch,
/// an `assume`, a blocking wait or a `tcgen05.alloc`, with a read before it).
fn barrier_cycle_possible(prog: &CompiledProgram) -> bool {
    let barrier = |op: &Op| matches!(op, Op::Barrier { .. } | Op::DynBarrier { .. } | Op::TmemAlloc { rendezvous: Some(_), .. });
    let own_read_write = |op: &Op| {
        matches!(
            op,
            Op::Rmw { .. }
                | Op::SyncArrive { .. }
                | Op::BulkCopy { .. }
                | Op::TcCompute { .. }
                | Op::TcCommit { .. }
                | Op::TmemAlloc { .. }
        )
    };
    let writes = |op: &Op| own_read_write(op) || matches!(op, Op::Store { .. });
    let reads = |op: &Op| own_read_write(op) || matches!(op, Op::Load { .. } | Op::SyncWait { .. });
    let controls = |op: &Op| {
        matches!(op, Op::Branch { .. } | Op::DynBarrier { .. } | Op::Assume { .. } | Op::SyncWait { .. } | Op::TmemAlloc { .. })
            || matches!(op, Op::SyncArrive { wait: Some(_), .. })
    };
    let write_after_barrier = prog.threads.iter().any(|t| {
        let code = &t.code;
        (0..code.len()).any(|b| barrier(&code[b].op) && (0..code.len()).any(|w| writes(&code[w].op) && may_precede(code, b, w)))
    });
    let dependent_write = prog.threads.iter().any(|t| {
        let code = &t.code;
        (0..code.len()).any(|w| {
            let before = |f: &dyn Fn(&Op) -> bool| (0..code.len()).any(|j| f(&code[j].op) && may_precede(code, j, w));
            let register = matches!(code[w].op, Op::Store { src: crate::program::Opnd::Reg(_), .. });
            own_read_write(&code[w].op) || (writes(&code[w].op) && before(&reads) && (register || before(&controls)))
        })
    });
    write_after_barrier && dependent_write
}

/// Whether instruction `a` of `code` may run before instruction `b` in one run of the thread:
/// it comes first, or a backward jump at or after both goes back to `b` or before it (a loop
/// holding both).
fn may_precede(code: &[crate::program::CodeLine], a: usize, b: usize) -> bool {
    a < b
        || code
            .iter()
            .enumerate()
            .any(|(j, l)| matches!(l.op, Op::Branch { target, .. } | Op::Goto { target } if target <= b && j >= a && target <= j))
}

/// Whether some thread of `prog` has a `cas` whose expected value is a register (its read then
/// needs the reads that value comes from, [`super::holes::dep_prefix`]), or a `cas` followed (in
/// its code, or anywhere when it loops) by an access of the `cas`'s location, a fence, a barrier,
/// or a release write: what can make a failing `cas` necessary to the events after it. Where it fails in an execution only because
/// it reads a write that comes later on a load-buffering cycle, every graph a revisit could start
/// from has it read an earlier write, and if those all hold its expected value it succeeds
/// there, its write making those later events inconsistent: the execution is out of reach.
fn cas_before_ordering(prog: &CompiledProgram) -> bool {
    prog.threads.iter().any(|t| {
        t.code.iter().enumerate().any(|(i, l)| {
            let Op::Rmw { op: tcfuzz_litmus::AtomOp::Cas, a, b: Some(_), read, .. } = &l.op else { return false };
            // A register expected value: the read needs what it comes from (`dep_prefix`).
            if matches!(a, crate::program::Opnd::Reg(_)) {
                return true;
            }
            let orders = |op: &Op| match op {
                Op::Load { label, .. } => label.loc == read.loc,
                Op::Store { label, .. } => label.loc == read.loc || label.release,
                Op::Rmw { read: r, write: w, .. } => r.loc == read.loc || w.release,
                Op::Fence { .. } | Op::Barrier { .. } | Op::DynBarrier { .. } => true,
                Op::Mov { .. } | Op::Add { .. } | Op::Branch { .. } | Op::Goto { .. } => false,
                _ => true,
            };
            // In a loop the `cas` itself comes again.
            looping(&t.code) || t.code[i + 1..].iter().any(|m| orders(&m.op))
        })
    })
}

/// A fence that [`Explorer`]'s `next` puts back into its hole before any other hole is refilled:
/// an instruction's own fence (not the completion of a bulk copy, not a `tcgen05` event).
pub(super) fn refilled_early(l: &crate::program::label::Label) -> bool {
    l.is_fence() && !l.completion_fence && l.tc.is_none() && l.bulk_copy == 0
}

/// Whether `code` jumps backwards (a loop).
fn looping(code: &[crate::program::CodeLine]) -> bool {
    code.iter().enumerate().any(|(pc, l)| matches!(l.op, Op::Branch { target, .. } | Op::Goto { target } if target <= pc))
}

/// How deep [`Explorer::visit`] may recurse before the exploration stops with an error. Each level
/// adds an event or revisits a read, so a real exploration stays within a small multiple of the
/// events of one execution (hundreds); an endless cycle of revisits (`maximal.rs`, "Dead ends")
/// would otherwise overflow the explorer's stack (512 MiB: some 100,000 levels in a release
/// build, fewer in a debug one) and abort the process.
const MAX_DEPTH: usize = 20_000;

pub(crate) struct Explorer<'a, 'c> {
    pub prog: &'a CompiledProgram,
    pub model: &'a dyn MemoryModel,
    pub loop_bound: u32,
    pub out: &'a mut Collector<'c>,
    /// Stop (with an error) after this many explored graphs (complete + blocked).
    pub max_executions: u64,
    pub depth: usize,
    pub max_depth: usize,
    /// HMC's revisits (keep the dependency prefix of the revisiting write, leaving holes) rather
    /// than TruSt's (keep its `po ∪ rf` prefix): [`explores_porf_cycles`] of the model.
    pub dependency_revisits: bool,
    /// Set when a revisit was skipped because no graph qualifies for it (a forced source the
    /// explorer does not accept, [`super::maximal`]'s module docs): the verdict then says the
    /// explorer may have missed executions.
    pub lost_revisit: std::cell::Cell<bool>,
    /// Per thread, the last [`replay`] (the values it replayed, and its result): `next` replays
    /// every thread before the one that moves, and a finished thread's values rarely change.
    pub replays: std::cell::RefCell<Vec<Option<ReplayedThread>>>,
    /// Whether some thread has an `assume` (then every graph is first tested for [`Self::moot`]).
    pub assumes: bool,
    /// Space for the graphs without holes that the model judges ([`Explorer::consistent`]).
    pub compacted: std::cell::RefCell<super::holes::Compacted>,
    /// The deadline and cancellation flag, polled once per graph visited.
    pub bound: &'a crate::explore::bound::Bound,
    /// What part of the exploration tree to explore ([`Part`]).
    pub part: Part,
    /// The path from the root to the graph being visited: its index among its parent's children
    /// at each level ([`super::split`]).
    pub path: Vec<u32>,
    /// Per level of the recursion, how many children of the graph there were visited so far.
    pub children: Vec<u32>,
    /// Per level of the recursion, the first child given away to another thread ([`Donor`]);
    /// `u32::MAX` where none was.
    pub given: Vec<u32>,
    /// Where a parallel check's idle threads ask for work, and the variant explored.
    pub donor: Option<Donor<'a>>,
}

/// A parallel check's share of work ([`super::donate`]) as one of its explorers sees it.
#[derive(Clone, Copy)]
pub(crate) struct Donor<'a> {
    pub share: &'a super::donate::Share,
    pub variant: u32,
}

/// Which part of the exploration tree an [`Explorer`] explores. The tree: each graph visited
/// past its consistency check (`visit_consistent`) is a node, its children the graphs it visits
/// in turn; the exploration is a function of the program, so a node is named by its path
/// (module docs of [`super::split`]).
pub(crate) enum Part {
    /// All of it.
    All,
    /// Nothing: the paths of the nodes at this depth (the root's is 0), and of the leaves above
    /// it, go to `out` in the order of exploration — together they cover every execution once.
    Split { depth: usize, out: Vec<Vec<u32>> },
    /// The subtree at this path only (the nodes on the way are visited, their other children
    /// skipped); `reached` is set when it is. With `rest`, also every later sibling's: the
    /// children of the path's parent from the path's last index on ([`super::donate`]).
    Subtree { path: Vec<u32>, rest: bool, reached: bool },
}

/// The values a thread's events read or wrote, and what [`replay`] gave for them.
type ReplayedThread = (Vec<i64>, Rc<Replay>);

enum Next {
    /// The event for this position: one past the thread's last event, or its first hole.
    Add(EventId, NewEvent),
    Finished {
        regs: Vec<Vec<i64>>,
        /// Threads stopped for good: by the loop bound, at a barrier, by a failed `assume`.
        blocked: Vec<usize>,
    },
    /// A thread's `assume` failed where no extension of the graph can change that: nothing is
    /// left to explore ([`Explorer::moot`]).
    Moot,
}

impl Explorer<'_, '_> {
    pub fn run(&mut self) -> Result<(), CheckError> {
        let init = self.prog.locations.iter().map(|l| l.init).collect();
        let mut g = ExecutionGraph::new(init, self.prog.threads.len());
        g.barrier_members = self.prog.barrier_members.clone();
        g.barrier_dyn_members = self.prog.barrier_dyn_members.clone();
        self.path.clear();
        self.children = vec![0];
        self.given = vec![u32::MAX];
        self.visit(g)
    }

    /// [`replay`] of thread `t` over the values of its first `f` events (a pure function of
    /// them: the last result per thread is kept).
    fn replay_thread(&self, g: &ExecutionGraph, t: usize, f: usize) -> Result<Rc<Replay>, CheckError> {
        let values = || g.threads[t][..f].iter().map(|e| e.value);
        let mut cache = self.replays.borrow_mut();
        if cache.len() < g.threads.len() {
            cache.resize_with(g.threads.len(), || None);
        }
        if let Some((key, r)) = &cache[t]
            && key.len() == f
            && key.iter().copied().eq(values())
        {
            return Ok(r.clone());
        }
        let key: Vec<i64> = values().collect();
        let r = Rc::new(replay(&self.prog.threads[t], &key, self.loop_bound)?);
        cache[t] = Some((key, Rc::clone(&r)));
        Ok(r)
    }

    fn next(&self, g: &ExecutionGraph) -> Result<Next, CheckError> {
        if self.assumes {
            for t in 0..g.threads.len() {
                if self.moot(g, t)? {
                    return Ok(Next::Moot);
                }
            }
        }
        // An rmw whose read is in the graph and whose write is not goes first. Only a thread whose
        // event before its frontier (first hole, or end) is an atomic read can be in that state.
        for (t, evs) in g.threads.iter().enumerate() {
            let f = frontier(g, t);
            // (A `cas` read of another value than it expects has no write half.)
            let last = evs.get(f.wrapping_sub(1));
            if last.is_some_and(|e| e.label.is_read() && e.label.atomic && e.cas_expected.is_none_or(|v| v == e.value))
                && let Step::Event(ev) = &self.replay_thread(g, t, f)?.step
                && ev.label.rmw_write
            {
                return Ok(Next::Add(EventId::new(t, f), ev.clone()));
            }
        }
        // Then the fences that fill holes, wherever they are (module docs).
        for (t, evs) in g.threads.iter().enumerate() {
            if let Some(i) = evs.iter().position(|e| e.stamp == HOLE && refilled_early(&e.label)) {
                let e = &evs[i];
                return Ok(Next::Add(
                    EventId::new(t, i),
                    NewEvent { label: e.label, value: 0, deps: e.deps, cas_expected: None, span: e.span },
                ));
            }
        }
        // Holes are filled before any thread goes past its last event: a kept event after a
        // hole may need the events before it (in the same thread) to be justified.
        let order = (0..g.threads.len()).filter(|&t| frontier(g, t) < g.threads[t].len());
        let order: Vec<usize> = order.chain((0..g.threads.len()).filter(|&t| frontier(g, t) == g.threads[t].len())).collect();
        // (The stopped threads' replays: their registers are wanted only if no thread moves.)
        let mut stopped = Vec::new();
        let mut blocked = Vec::new();
        let mut deferred = None;
        for t in order {
            let f = frontier(g, t);
            let holes = f < g.threads[t].len();
            if !holes && g.waiting_at_barrier(t) {
                // Stuck unless the rest of its CTA arrives later; a hang if nobody can move.
                blocked.push(t);
                continue;
            }
            let r = self.replay_thread(g, t, f)?;
            match &r.step {
                Step::Event(ev) => {
                    debug_assert!(
                        !holes || {
                            let old = &g.threads[t][f].label;
                            (old.kind, old.loc, old.rmw_write) == (ev.label.kind, ev.label.loc, ev.label.rmw_write)
                                || old.is_accumulator_slot_of(&ev.label)
                        },
                        "[tcfuzz internal bug] a hole refilled with another instruction"
                    );
                    if !holes && self.assumes && self.fails_on_latest(g, t, f, ev)? {
                        deferred.get_or_insert((EventId::new(t, f), ev.clone()));
                        continue;
                    }
                    return Ok(Next::Add(EventId::new(t, f), ev.clone()));
                }
                Step::Done => stopped.push((t, Rc::clone(&r))),
                Step::Blocked | Step::AssumeFailed => {
                    stopped.push((t, Rc::clone(&r)));
                    blocked.push(t);
                }
            }
            debug_assert!(!holes, "[tcfuzz internal bug] a thread stops before its holes");
        }
        if let Some((a, ev)) = deferred {
            return Ok(Next::Add(a, ev));
        }
        let mut regs = vec![Vec::new(); g.threads.len()];
        for (t, r) in stopped {
            regs[t] = r.regs.clone();
        }
        Ok(Next::Finished { regs, blocked })
    }

    /// Whether `ev`, thread `t`'s next event (at position `f`, past its last), is a read after
    /// which the thread fails an `assume` if it reads the `co`-latest write of its location: a
    /// read `next` defers (module docs).
    fn fails_on_latest(&self, g: &ExecutionGraph, t: usize, f: usize, ev: &NewEvent) -> Result<bool, CheckError> {
        if !ev.label.is_read() {
            return Ok(false);
        }
        // (`co` holds no holes; the initial write comes first in `writes_to`.)
        let loc = ev.label.loc;
        let v = match g.writes_to(loc).last() {
            Some(w) if !w.is_init() => g.write_value(w),
            _ => g.init[loc as usize],
        };
        let mut values: Vec<i64> = g.threads[t][..f].iter().map(|e| e.value).collect();
        values.push(v);
        Ok(replay(&self.prog.threads[t], &values, self.loop_bound)?.step == Step::AssumeFailed)
    }

    /// Whether thread `t` of `g` stopped at a failed `assume` that no extension of `g` can get
    /// past, so that every graph the exploration would reach from `g` is a discarded execution
    /// (GenMC moots such executions, `mootExecutionIfFullyBlocked`; the argument is ours).
    ///
    /// It holds when the thread's last event is a read `r`, added after every other event of
    /// the thread and reading from a write added before it, and some write of its location
    /// added before `r` is `co`-after that source. Then `r` is in no revisit's prefix (nothing
    /// follows it in `po ∪ rf ∪ dep`), and every revisit that deletes or revisits an event of
    /// the thread deletes or revisits `r`, which needs `r` maximally added ([`super::maximal`]):
    /// it is not — the `co`-later write is in `Previous(r)`, and a read with nothing after it can
    /// take a `co`-later source wherever it can take its own. So the thread's events, and its
    /// failed `assume`, stay in every graph reached from `g`.
    fn moot(&self, g: &ExecutionGraph, t: usize) -> Result<bool, CheckError> {
        let evs = &g.threads[t];
        let Some(last) = evs.len().checked_sub(1) else { return Ok(false) };
        let r = EventId::new(t, last);
        if frontier(g, t) != evs.len() || !g.label(r).is_read() {
            return Ok(false);
        }
        let sr = g.stamp(r);
        if evs[..last].iter().any(|e| e.stamp > sr) {
            return Ok(false);
        }
        let Some(w) = g.event(r).rf else { return Ok(false) };
        if !w.is_init() && g.stamp(w) > sr {
            return Ok(false);
        }
        let overwritten =
            g.writes_to(g.label(r).loc).skip_while(|&x| x != w).skip(1).any(|s| !s.is_init() && !g.is_hole(s) && g.stamp(s) < sr);
        Ok(overwritten && self.replay_thread(g, t, evs.len())?.step == Step::AssumeFailed)
    }

    /// `Visit(G)` of the module docs.
    fn visit(&mut self, g: ExecutionGraph) -> Result<(), CheckError> {
        if !self.admits(&g) {
            return Ok(());
        }
        self.visit_consistent(g)
    }

    /// The first step of `Visit(G)`, for a candidate graph that is explored only if it passes
    /// (callers that try several candidates in one graph in turn clone only those that do).
    fn admits(&mut self, g: &ExecutionGraph) -> bool {
        self.max_depth = self.max_depth.max(self.depth + 1);
        self.consistent(g)
    }

    /// [`Explorer::admits`] for `g`, made of a graph just found consistent and `a` added as a
    /// sink ([`MemoryModel::sink_extension`]): its thread's last event, read by nothing, last in
    /// `co` if a write.
    fn admits_sink(&mut self, g: &ExecutionGraph, a: EventId) -> bool {
        // With holes the model judges another graph (`holes::Compacted`): left to the full check. An
        // event filling a hole is not its thread's last, and may have readers.
        let last = a.index as usize + 1 == g.threads[a.thread as usize].len();
        // (Only dependency revisits leave holes.)
        let sink = last && (!self.dependency_revisits || !g.has_holes()) && (!g.label(a).is_write() || g.readers(a).next().is_none());
        let quick = if sink { self.model.sink_extension(g, a) } else { None };
        let Some(ok) = quick else { return self.admits(g) };
        self.max_depth = self.max_depth.max(self.depth + 1);
        debug_assert_eq!(ok, self.consistent(g), "[tcfuzz internal bug] sink_extension disagrees with is_consistent on {a:?}");
        ok
    }

    /// `Visit(G)` past the consistency check.
    fn visit_consistent(&mut self, g: ExecutionGraph) -> Result<(), CheckError> {
        if self.depth >= MAX_DEPTH {
            return Err(CheckError::TooLarge(format!(
                "the exploration went {MAX_DEPTH} graphs deep, which only revisits that undo each other for ever reach (a tcfuzz bug: please report the program; the oracle still judges it)"
            )));
        }
        if let Some(cause) = self.bound.poll() {
            let mut partial = self.out.stats().clone();
            partial.max_depth = partial.max_depth.max(self.max_depth);
            return Err(CheckError::Interrupted { cause, partial });
        }
        let index = self.children[self.depth];
        self.children[self.depth] += 1;
        if index >= self.given[self.depth] {
            // Another thread explores it ([`Explorer::donate`]).
            return Ok(());
        }
        match &mut self.part {
            Part::All => {}
            Part::Split { depth, out } if self.depth == *depth => {
                out.push(self.path.iter().copied().chain([index]).collect());
                return Ok(());
            }
            Part::Split { .. } => {}
            Part::Subtree { path, rest: true, reached } if self.depth + 1 == path.len() => {
                if index < path[self.depth] {
                    return Ok(());
                }
                *reached = true;
            }
            Part::Subtree { path, reached, .. } => match path.get(self.depth) {
                Some(&i) if i != index => return Ok(()),
                Some(_) => *reached |= self.depth + 1 == path.len(),
                None => {}
            },
        }
        if let Some(d) = self.donor
            && d.share.wanted()
        {
            self.donate(d);
        }
        self.path.push(index);
        self.children.push(0);
        self.given.push(u32::MAX);
        self.depth += 1;
        let parts = if let Part::Split { out, .. } = &self.part { out.len() } else { 0 };
        let r = self.visit_inner(g);
        self.depth -= 1;
        // A node above the split depth with no part below it (a leaf, or a graph whose children
        // are all inconsistent) is a part of its own: what it does (its execution, a revisit it
        // could not take) is in no other.
        if let Part::Split { out, .. } = &mut self.part
            && out.len() == parts
        {
            out.push(self.path.clone());
        }
        self.children.pop();
        self.given.pop();
        self.path.pop();
        r
    }

    /// Gives idle threads the children still to come of the nodes on the current path, the
    /// shallowest first (the most work left), as long as one waits: each is then skipped here.
    /// Only nodes of the part this explorer owns; a node may turn out to have no child left.
    fn donate(&mut self, d: Donor<'_>) {
        let first = match &self.part {
            Part::All => 1,
            Part::Split { .. } => return,
            Part::Subtree { path, rest, .. } => path.len() - usize::from(*rest),
        };
        for level in first..=self.depth {
            if self.given[level] != u32::MAX {
                continue;
            }
            let next = self.children[level];
            let path = self.path[..level].iter().copied().chain([next]).collect();
            if !d.share.give(super::donate::Donation { variant: d.variant, path, rest: true }) {
                return;
            }
            self.given[level] = next;
        }
    }

    /// Whether a leaf of the exploration tree at the current depth is an execution to record:
    /// in the part explored ([`Part::Split`] records none).
    fn records_leaf(&self) -> bool {
        match &self.part {
            Part::All => true,
            Part::Split { .. } => false,
            Part::Subtree { path, .. } => self.depth >= path.len(),
        }
    }

    fn visit_inner(&mut self, g: ExecutionGraph) -> Result<(), CheckError> {
        match self.next(&g)? {
            Next::Finished { regs, blocked } => {
                if !self.records_leaf() {
                    return Ok(());
                }
                self.out.record(&g, &regs, &blocked, self.model);
                let explored = self.out_count();
                if explored > self.max_executions {
                    // The counts are the collector's; `check::explore_part` fills them in.
                    return Err(CheckError::TooManyExecutions { max_executions: self.max_executions, partial: Default::default() });
                }
                Ok(())
            }
            Next::Moot => Ok(()),
            Next::Add(a, ev) => match ev.label.kind {
                EventKind::Fence | EventKind::Barrier => {
                    let mut g = g;
                    g.put_event(a, &ev, None);
                    if self.admits_sink(&g, a) { self.visit_consistent(g) } else { Ok(()) }
                }
                EventKind::Read => {
                    let writes: Vec<EventId> = g.writes_to(ev.label.loc).skip(self.model.co_floor(&g, a, &ev.label)).collect();
                    if (a.index as usize) < g.threads[a.thread as usize].len() {
                        // `a` fills a hole: the value it reads may move the events after it
                        // (`fix_cas_layout`), so each candidate is a graph of its own.
                        for w in writes {
                            let mut g2 = g.clone();
                            g2.put_event(a, &ev, Some(w));
                            fix_cas_layout(&mut g2, a);
                            self.visit(g2)?;
                        }
                        return Ok(());
                    }
                    // `a` is its thread's last event (the layout fix has nothing to move): one
                    // graph, whose `rf(a)` changes from candidate to candidate.
                    let mut g = g;
                    let Some((&last, others)) = writes.split_last() else { return Ok(()) };
                    g.put_event(a, &ev, Some(last));
                    for &w in others {
                        g.set_rf(a, w);
                        if self.admits_sink(&g, a) {
                            self.visit_consistent(g.clone())?;
                        }
                    }
                    g.set_rf(a, last);
                    if self.admits_sink(&g, a) { self.visit_consistent(g) } else { Ok(()) }
                }
                EventKind::Write => {
                    let mut g1 = g;
                    g1.put_event(a, &ev, None);
                    // The revisits first: they read `g1` as it is, which the forward exploration
                    // then takes over (the order of a graph's children does not matter).
                    self.backward_revisits(&g1, a)?;
                    self.visit_cos(g1, a, true)
                }
            },
        }
    }

    /// Whether the model finds `g` (without its holes) consistent.
    pub(super) fn consistent(&self, g: &ExecutionGraph) -> bool {
        if !self.dependency_revisits || !g.has_holes() {
            return self.model.is_consistent(g);
        }
        let full = || {
            let mut compacted = self.compacted.borrow_mut();
            compacted.load(g, self.prog.tile.is_some());
            self.model.is_consistent(&compacted.graph)
        };
        if let Some(quick) = self.model.quick_verdict(g) {
            debug_assert_eq!(quick, full(), "[tcfuzz internal bug] quick_verdict disagrees with is_consistent");
            return quick;
        }
        full()
    }

    fn out_count(&self) -> u64 {
        self.out.explored()
    }

    /// `VisitCOs(G, a)`: each candidate is `g` with `a` inserted in `co`, checked in place; those
    /// found consistent are then explored, the last one in `g` itself. `fresh`: `a` was just
    /// added to a consistent graph and nothing reads it, so the model may judge each position
    /// from `a` alone ([`MemoryModel::sink_extension`]).
    fn visit_cos(&mut self, mut g: ExecutionGraph, a: EventId, fresh: bool) -> Result<(), CheckError> {
        let loc = g.loc_of(a) as usize;
        // An rmw's write has one possible place where the model says so (the others would be
        // rejected one by one).
        let positions = match self.model.rmw_co_position(&g, a) {
            Some(p) if p <= g.co[loc].len() => p..=p,
            _ => {
                let last = g.co[loc].len().min(self.model.co_ceiling(&g, a, g.label(a)).saturating_sub(1));
                debug_assert!(
                    (last + 1..=g.co[loc].len()).all(|pos| {
                        g.insert_co(a, pos);
                        let ok = !self.consistent(&g);
                        g.co[loc].remove(pos);
                        ok
                    }),
                    "[tcfuzz internal bug] co_ceiling ruled out a consistent place"
                );
                self.model.co_floor(&g, a, g.label(a)).min(g.co[loc].len())..=last
            }
        };
        let mut admitted = Vec::new();
        for pos in positions {
            g.insert_co(a, pos);
            if if fresh { self.admits_sink(&g, a) } else { self.admits(&g) } {
                admitted.push(pos);
            }
            g.co[loc].remove(pos);
        }
        let Some((&final_pos, others)) = admitted.split_last() else { return Ok(()) };
        for &pos in others {
            let mut g2 = g.clone();
            g2.insert_co(a, pos);
            self.visit_consistent(g2)?;
        }
        g.insert_co(a, final_pos);
        self.visit_consistent(g)
    }

    fn backward_revisits(&mut self, g: &ExecutionGraph, a: EventId) -> Result<(), CheckError> {
        // Most writes have no read to revisit but those they depend on (an rmw's own read): then
        // there is no prefix to compute.
        let loc = g.loc_of(a);
        let own = g.event(a).deps;
        let own_read = |r: EventId| r.thread == a.thread && r.index < a.index && own & 1 << r.index != 0;
        if !present(g).any(|r| g.label(r).is_read() && g.label(r).loc == loc && !own_read(r)) {
            return Ok(());
        }
        let idx = g.node_index();
        let prefix = if self.dependency_revisits { dep_prefix(g, &idx, self.prog, a) } else { g.porf_prefix(&idx, a) };
        let reads: Vec<EventId> = present(g)
            .filter(|&r| {
                let l = g.label(r);
                l.is_read() && l.loc == loc && !prefix.contains(idx.node(r))
            })
            .collect();
        // The events a revisit may delete: those outside the prefix, with their stamps.
        let outside: Vec<(usize, u32)> = present(g).map(|e| (idx.node(e), g.stamp(e))).filter(|&(n, _)| !prefix.contains(n)).collect();
        let mut co_after = None;
        for r in reads {
            let sr = g.stamp(r);
            let mut deleted = BitSet::new(idx.len());
            for &(n, _) in outside.iter().filter(|&&(_, s)| s > sr) {
                deleted.insert(n);
            }
            let kept = |e: EventId| !g.is_hole(e) && !deleted.contains(idx.node(e));
            if self.model.revisit_forbidden(g, a, r, &kept) {
                continue;
            }
            let co_after = co_after.get_or_insert_with(|| CoAfter::new(g, &idx, &prefix));
            if !self.maximally_added(g, &idx, (a, r), (&prefix, co_after), &deleted)? {
                continue;
            }
            let mut g2 = g.clone();
            // `r`'s new source first: its old one may be deleted (a forced source, `maximal`).
            g2.set_rf(r, a);
            cut(&mut g2, &|e: EventId| !deleted.contains(idx.node(e)));
            fix_cas_layout(&mut g2, r);
            // `a` may have moved one position if it follows `r` in `r`'s thread.
            let a2 = g2.event(r).rf.expect("[tcfuzz internal bug] revisited read without rf");
            if self.dead_end(g, &idx, (a, r), &deleted, &g2, a2)? {
                continue;
            }
            self.visit_cos(g2, a2, false)?;
        }
        Ok(())
    }
}
