//! Which revisits the explorer takes on a program, and what they leave unexplored: a static
//! analysis of the program's instructions, made once per check.
//!
//! *Which revisits.* HMC's dependency revisits (module docs of [`super`]) reach the executions
//! with a cyclic `po ∪ rf` (load buffering) that PTX and Tile IR allow, at a price: the graphs
//! they leave have holes, and the maximality test must then search for completions
//! ([`super::maximal`]), most of a check's time where many revisits delete events of threads
//! that go on. Where no execution of the program can have such a cycle, TruSt's `po ∪ rf`
//! revisits explore the same executions without holes ([`Revisits::dependency`]). Measured
//! with `tcfuzz bench --model ptx` (one run each, this machine): binc 6 14.7 s → 4.6 s, casw 6
//! 5.7 s → 1.5 s, wcas 16 3.7 s → 2.4 s, the counts unchanged.
//!
//! *What they leave.* [`Revisits::caveats`] names the executions the model allows that the
//! chosen revisits may not reach, each with a syntactic over-approximation of the programs that
//! could have them.

use std::sync::OnceLock;

use super::oracle::PossibleRuns;
use crate::model::{self, ModelKind};
use crate::options::Options;
use crate::program::label::Label;
use crate::program::porf_cycles::{StaticGraph, accesses};
use crate::program::{CompiledProgram, Op};

/// The revisits of one check (module docs), and the static facts their caveats need.
pub(crate) struct Revisits<'p> {
    prog: &'p CompiledProgram,
    model: ModelKind,
    /// Whether the model allows executions with a cyclic `po ∪ rf` at all.
    allows_porf_cycles: bool,
    dependency: bool,
    /// [`Options::loop_bound`], for the values the program's locations may hold
    /// ([`cas_before_ordering`]).
    loop_bound: u32,
    /// [`StaticGraph`] of a PTX program (`None` for Tile IR): the costly part, made once and only
    /// where a cheaper test leaves it to decide.
    graph: OnceLock<Option<StaticGraph>>,
    porf: OnceLock<bool>,
    /// [`super::oracle::possible_runs`] of the program, where a `cas` asks
    /// ([`cas_before_ordering`]).
    runs: OnceLock<Option<PossibleRuns>>,
}

/// What an exploration met that its caveats depend on ([`Revisits::caveats`]); the parts of a
/// split exploration merge theirs with `|=`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Met {
    /// A revisit no graph qualified for ([`super::trust::Explorer::lost_revisit`]).
    pub lost_revisit: bool,
    /// A revisit refused because Atomicity held the read in the write's dependency prefix
    /// ([`super::trust::Explorer::atomicity_held`]).
    pub atomicity_held: bool,
    /// A revisit that left an rmw's read a hole while it deleted a write of that read's location
    /// ([`super::trust::Explorer::rmw_hole_met`]).
    pub rmw_hole: bool,
    /// A maximality test that gave up its completion search
    /// ([`super::trust::Explorer::completion_gave_up`]).
    pub gave_up: bool,
}

impl std::ops::BitOrAssign for Met {
    fn bitor_assign(&mut self, other: Met) {
        self.lost_revisit |= other.lost_revisit;
        self.atomicity_held |= other.atomicity_held;
        self.rmw_hole |= other.rmw_hole;
        self.gave_up |= other.gave_up;
    }
}

impl std::ops::BitOr for Met {
    type Output = Met;
    fn bitor(mut self, other: Met) -> Met {
        self |= other;
        self
    }
}

/// Where a caveat stands among the explorer's: [`Revisits::caveats`] gives them in this order,
/// and the verdicts of a split exploration, each with the caveats its part met, merge into it
/// (`split::merge_verdicts`). One phrase of each caveat, in that order.
pub(crate) fn caveat_rank(caveat: &str) -> usize {
    const ORDER: [&str; 7] = [
        "executions with a cyclic po ∪ rf",
        "whose cycle goes through a barrier",
        "in which a cas fails only because",
        "a cas or another atomic rmw that a revisit removed",
        "a load-buffering revisit it cannot take",
        "only because another atomic rmw",
        "gave up the search for a completion",
    ];
    ORDER.iter().position(|phrase| caveat.contains(phrase)).unwrap_or(ORDER.len())
}

/// The caveat of the rmw-hole gap ([`rmw_hole_possible`]).
fn rmw_hole_caveat(model: ModelKind) -> String {
    format!(
        "the explorer may miss executions in which a cas or another atomic rmw that a revisit removed while keeping later events of its thread reads a write the same revisit removed (a known gap of the dependency revisits, with or without load buffering), which the {} model allows; use the oracle for those",
        model.name()
    )
}

/// `caveats` ([`Revisits::unexplored`]) as an exploration that `met` what it met leaves them:
/// under PTX the rmw-hole caveat only where a revisit left an rmw's read a hole and deleted a
/// write of its location, or a rejected one kept an rmw's read of a write it deleted and left
/// the rmw's write a hole (no execution of that gap is known to be missed otherwise: each one
/// seen needs such a revisit, [`super::maximal::rmw_hole_left`],
/// [`super::maximal::rmw_write_hole_left`]), and where a revisit was lost the caveat saying
/// so. Under Tile IR the rmw-hole caveat also names executions no graph leads to, without a
/// hole (a write reaching a read of its own tile block, `known_gaps::tileir_12061385`): there it
/// stays as [`rmw_hole_possible`] gives it.
pub(crate) fn caveats_met(mut caveats: Vec<String>, met: Met, model: ModelKind) -> Vec<String> {
    if !met.rmw_hole && model == ModelKind::Ptx {
        let rmw_hole = rmw_hole_caveat(model);
        caveats.retain(|c| *c != rmw_hole);
    }
    if met.lost_revisit {
        caveats.push(format!(
            "the explorer met a load-buffering revisit it cannot take (a read whose only possible sources are writes the revisit removes, e.g. through a barrier or a spin loop's fences) and may miss executions the {} model allows; use the oracle for those",
            model.name()
        ));
    }
    if met.atomicity_held {
        caveats.push(format!(
            "the explorer met a load-buffering revisit of an atomic rmw's read that it refuses only because another atomic rmw, which the revisiting write needs, reads that rmw's write (two rmws cannot read one write), and may miss executions the {} model allows; use the oracle for those",
            model.name()
        ));
    }
    if met.gave_up {
        caveats.push(format!(
            "the explorer gave up the search for a completion in a maximality test (too many graphs to judge) and may miss executions the {} model allows; use the oracle for those",
            model.name()
        ));
    }
    caveats
}

impl<'p> Revisits<'p> {
    pub(crate) fn new(prog: &'p CompiledProgram, model: ModelKind, options: &Options) -> Self {
        let allows_porf_cycles = model::model_for(model, prog).allows_porf_cycles();
        let mut revisits = Revisits {
            prog,
            model,
            allows_porf_cycles,
            dependency: false,
            loop_bound: options.loop_bound,
            graph: OnceLock::new(),
            porf: OnceLock::new(),
            runs: OnceLock::new(),
        };
        revisits.dependency = explores_porf_cycles(model)
            && !options.exclude_porf_cycles
            && (options.always_dependency_revisits || revisits.may_need_dependency_revisits());
        revisits
    }

    /// HMC's dependency revisits rather than TruSt's ([`super::trust::Explorer::dependency_revisits`]).
    pub(crate) fn dependency(&self) -> bool {
        self.dependency
    }

    /// Whether TruSt's revisits could miss an execution of the program: where one may have a
    /// cyclic `po ∪ rf` — exactly where TruSt's revisits would give the caveat that says so
    /// ([`Self::caveats`]). Only PTX programs whose every event is performed where its thread
    /// issues it are judged: TruSt's prefix is all of program order, so under its revisits a
    /// bulk copy or an asynchronous tcgen05 operation, which may complete after later events of
    /// its thread, never reads a write that those events lead to, which the model allows. Tile
    /// IR programs, ordered by tokens only, keep the dependency revisits too.
    fn may_need_dependency_revisits(&self) -> bool {
        let p = self.prog;
        !p.performed_in_order() || barrier_after_branch(p) || self.may_have_porf_cycles()
    }

    fn graph(&self) -> Option<&StaticGraph> {
        self.graph.get_or_init(|| self.prog.tile.is_none().then(|| StaticGraph::new(self.prog))).as_ref()
    }

    /// [`CompiledProgram::may_have_porf_cycles`], on the graph made once.
    fn may_have_porf_cycles(&self) -> bool {
        // (Compiling found it out already where the program has an rmw.)
        *self.porf.get_or_init(|| {
            self.prog.porf_cycles.unwrap_or_else(|| match self.graph() {
                Some(g) => g.porf_cycle_possible(),
                None => self.prog.may_have_porf_cycles(),
            })
        })
    }

    /// The caveats of the explorer's verdict (module docs), and where a revisit was lost
    /// (`lost_revisit`, [`super::trust::Explorer::lost_revisit`]) the caveat saying so.
    /// - With TruSt's revisits: every execution with a cyclic `po ∪ rf`.
    /// - With the dependency revisits: executions whose cycle goes through a barrier reached
    ///   after a branch on a read ([`barrier_after_branch`]), or through a `cas` that fails but
    ///   would succeed in every graph the revisit could start from ([`Self::cas_on_cycle`];
    ///   module docs of [`super`]), and those an rmw refilled too early misses
    ///   ([`rmw_hole_possible`]).
    ///
    /// For a PTX program the tests ask the instruction graph of [`StaticGraph`] too: a `po ∪ rf`
    /// cycle counts only where the model does not forbid it in every execution (a `fence.sc.gpu`
    /// on each stretch, or atomics of one lock reading each other's writes:
    /// [`StaticGraph::porf_cycle_possible`]), and a barrier blocks a revisit only where some
    /// read reaches, through a barrier arrival, a write it may read
    /// ([`StaticGraph::barrier_on_cycle`]). (A load-buffering cycle through an asynchronous
    /// operation — a `tcgen05` perform or a bulk copy, which program order does not order before
    /// later events of its thread — is reached like any other: nothing in the dependency prefix
    /// keeps the operation before them.)
    pub(crate) fn caveats(&self, met: Met) -> Vec<String> {
        caveats_met(self.unexplored(), met, self.model)
    }

    /// The executions of [`Self::caveats`] that the revisits themselves may not reach.
    pub(crate) fn unexplored(&self) -> Vec<String> {
        let mut out = Vec::new();
        let (prog, name) = (self.prog, self.model.name());
        if !self.allows_porf_cycles {
            return out;
        }
        if !self.dependency {
            if barrier_after_branch(prog) || self.may_have_porf_cycles() {
                out.push(format!(
                    "the explorer does not explore executions with a cyclic po ∪ rf (load buffering), which the {name} model allows; use the oracle for those"
                ));
            }
            return out;
        }
        // In a PTX program, a barrier blocks a revisit only where a read reaches a write it may
        // read through a barrier arrival ([`StaticGraph::barrier_on_cycle`]).
        if barrier_after_branch(prog) && barrier_cycle_possible(prog) && self.graph().is_none_or(|g| g.barrier_on_cycle()) {
            out.push(format!(
                "the explorer does not explore load-buffering executions whose cycle goes through a barrier that a thread reaches after a branch (or an assume) on a value it read, which the {name} model allows; use the oracle for those"
            ));
        }
        if self.cas_on_cycle() {
            out.push(format!(
                "the explorer does not explore load-buffering executions in which a cas fails only because it reads a write that comes later on the cycle while a later access of its location (or a release, fence or barrier after it) needs that failure, nor those whose cycle goes through the register a cas compares with, which the {name} model allows; use the oracle for those"
            ));
        }
        if rmw_hole_possible(prog) {
            out.push(rmw_hole_caveat(self.model));
        }
        out
    }

    /// Whether the program may have the executions of the `cas` caveat ([`cas_before_ordering`]):
    /// a `cas` whose failure later events may need, on a `po ∪ rf` cycle the model allows that
    /// enters it by an `rf` from a write that can make it fail and goes on from it in program
    /// order ([`StaticGraph::cycle_possible_into`]) — the cycle of an execution where it fails
    /// only because it reads a write later on the cycle: that write follows it in `po ∪ rf`, and
    /// the `cas` reads it; it writes nothing when it fails, so the cycle leaves it in program
    /// order — or a `cas` comparing with a register, on such a cycle leaving it by any edge
    /// ([`StaticGraph::cycle_possible_at`]): a cycle through the register it compares with goes
    /// through the `cas`, from the load that gives the register (`known_gaps::proxy_7000160`),
    /// and one that passes the `cas` in program order only is of the class too, even where the
    /// register's value comes from no cycle (`ptx::a_register_cas_passed_by_a_cycle_keeps_the_cas_caveat`).
    /// (Before, a register `cas` counted in any program that may have a cycle: on 5,000
    /// `tcfuzz generate --seed 77 --family random` programs, 68 of the 132 that carried this
    /// caveat carried it that way. Any cycle going on from the `cas` in program order counted
    /// until the one entering it from a failing write was asked for: 31 of the 1,600 `tcfuzz
    /// generate --seed 9 --family random` programs carried the caveat then, and the oracle found
    /// every execution in all but one of those it could check.) Where some event may be
    /// performed after later events of its thread (a bulk copy, an asynchronous `tcgen05`
    /// operation), the instruction graph's program order does not see those events after the
    /// `cas`: there, any cycle of the program counts. The cycles are those of the graph without
    /// the accesses of instructions no execution performs, by the traces the oracle's value sets
    /// allow ([`super::oracle::possible_runs`], [`StaticGraph::performing`]): a branch on a value
    /// that its reads can only take one way keeps the instructions it jumps over off every
    /// cycle. (On 15,000 `tcfuzz generate --seed 10..12` programs, with the `cas` no execution
    /// performs left out: 385 verdicts with a caveat before, 355 after, the oracle's counts on
    /// each of the 30.)
    fn cas_on_cycle(&self) -> bool {
        let runs = || self.runs.get_or_init(|| super::oracle::possible_runs(self.prog, self.loop_bound, VALUES_BUDGET)).as_ref();
        let cases = cas_before_ordering(self.prog, &runs);
        if cases.is_empty() || !self.may_have_porf_cycles() {
            return false;
        }
        let Some(graph) = self.graph().filter(|_| self.prog.performed_in_order()) else { return true };
        // Without the accesses no execution performs, where there are some.
        let pruned = runs().and_then(|r| {
            let performs = |t: usize, i: usize| r.may_perform(&self.prog.threads[t].code, t, i);
            let touches = |op: &Op| {
                let a = accesses(op);
                !(a.reads.is_empty() && a.writes.is_empty() && a.barriers.is_empty())
            };
            let all = self
                .prog
                .threads
                .iter()
                .enumerate()
                .all(|(t, code)| (0..code.code.len()).all(|i| !touches(&code.code[i].op) || performs(t, i)));
            (!all).then(|| StaticGraph::performing(self.prog, &performs))
        });
        let graph = pruned.as_ref().unwrap_or(graph);
        // The instructions as the graph numbers them (thread by thread).
        let ops: Vec<&Op> = self.prog.threads.iter().flat_map(|t| t.code.iter().map(|l| &l.op)).collect();
        let mut steps = CAS_CYCLE_BUDGET;
        cases.iter().any(|(node, expected)| match expected {
            Expected::Register => graph.cycle_possible_at(*node, &mut steps),
            &Expected::Value(expected) => graph.cycle_possible_into(*node, &|w| may_write_other_than(ops[w], expected), &mut steps),
        })
    }
}

/// How many steps [`Revisits::cas_on_cycle`] may spend in [`StaticGraph::cycle_possible_into`]
/// over all of a program's `cas`es; past it, the caveat is given.
const CAS_CYCLE_BUDGET: u64 = crate::program::porf_cycles::SEARCH_BUDGET / 4;

/// Whether the explorer explores the `po ∪ rf`-cyclic executions `kind` allows (dependency-based
/// revisits), so that its verdicts need no caveat about them. Only for models that are
/// monotone (removing any events, with the reads of removed writes, keeps a graph consistent) and
/// forbid `rf ∪ dep` cycles (No-Thin-Air); PTX and Tile IR are both (Tile IR orders a tile block
/// by tokens only, and token order, like PTX's program order, is not in the prefix).
pub(crate) fn explores_porf_cycles(kind: ModelKind) -> bool {
    matches!(kind, ModelKind::Ptx | ModelKind::TileIr)
}

/// Whether two threads of `prog` have instructions that each read and write one location (the
/// rmws, arrives and commits whose reads Atomicity ties to each other's writes): where none do,
/// no revisit is held by Atomicity ([`super::holes::held_by_atomicity`]), which is then not asked.
pub(crate) fn rmws_of_one_location_in_two_threads(prog: &CompiledProgram) -> bool {
    let per_thread: Vec<Vec<u32>> = prog
        .threads
        .iter()
        .map(|t| {
            let mut locs: Vec<u32> = t
                .code
                .iter()
                .flat_map(|l| {
                    let a = accesses(&l.op);
                    a.reads.iter().filter(|r| a.writes.iter().any(|w| w.loc == r.loc)).map(|r| r.loc).collect::<Vec<_>>()
                })
                .collect();
            locs.sort_unstable();
            locs.dedup();
            locs
        })
        .collect();
    per_thread.iter().enumerate().any(|(t, locs)| locs.iter().any(|l| per_thread[t + 1..].iter().any(|u| u.binary_search(l).is_ok())))
}

/// Whether some thread of `prog` has an rmw that a dependency revisit can turn into a hole (one
/// not kept with every later event of its thread,
/// [`Label::orders_thread`](crate::program::label::Label::orders_thread), with an instruction
/// that may run after it — after it in the code, or in a loop with it — so a
/// later event can be kept without it, when it depends on nothing the rmw gives) while a write
/// the rmw could read is elsewhere in the program (a store or an rmw of its location, or an
/// operation writing memory this test does not follow). Such a hole is refilled before the
/// writes the revisit deleted come back, and the executions where the rmw reads one of them may
/// be missed (module docs of [`super`]; no program is known where it misses one since the rmws
/// off every cycle of needs are kept with their threads). (An rmw whose write alone a revisit
/// removes, because the write needs a register loaded earlier while a kept store needs its read,
/// is no hole of this kind: a read of that write added before the revisited read waits for it,
/// pending — `super::maximal`.)
///
/// For an rmw other than a `cas` the test also asks for what makes the hole: the revisit keeps
/// a later event of its thread only through the revisiting write's dependency prefix, so some
/// later instruction of the thread (any, in a loop) must reach another thread — write a
/// location another thread reads, or arrive at a barrier ([`communicates`]) — without
/// depending on the rmw's read on every path ([`needs_result`]). A `cas` keeps the wider test
/// it had. Measured on `selftest --programs 3000 --family all`, seeds 1 and 2, before loops
/// were looked into: the caveat named 347 and 375 programs, 160 and 177 of which had no caveat
/// when it named only a `cas`; with loops looked into it named 7 of the 698 conformance and
/// example programs, and 322 of 5,000 `tcfuzz generate --seed 5` programs. With the rmws kept
/// with their threads left out, 1 (`MICRO24-Fig4b`, load buffering through an `add` whose
/// later `exch` needs nothing of it) and 154. An over-approximation: it names programs where no
/// execution is missed, and [`crate::check_exact`] then asks the oracle, which is right either
/// way. Loads are not named although the class holds them too: asking the same of every load
/// names over a third of all programs, and no missed execution through a load hole has been
/// seen (module docs of [`super`]).
pub(crate) fn rmw_hole_possible(prog: &CompiledProgram) -> bool {
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
        t.code.iter().enumerate().any(|(i, l)| {
            let Op::Rmw { op, read, .. } = &l.op else { return false };
            // Kept with every later event of its thread: never a hole (`Label::orders_thread`).
            if read.orders_thread {
                return false;
            }
            // In a loop, it and the instructions around it come again.
            let looping = may_precede(&t.code, i, i);
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
                    later && !needs[j] && communicates(reads(), ti, &m.op, prog.tile.is_some())
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
        let (dst, operands) = code[j].op.registers();
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
/// location an instruction of another thread reads (`reads`: [`locations_read`]) — or, in a
/// Tile IR program (`tile`), of its own thread, whose program order orders nothing (Tile IR
/// spec §7.12.1): a read may see a later write of its tile block. (Without it, `exch f, 2; exch
/// f, a1; st.weak f, a2` in one tile block had no caveat where the explorer found 3 of its 5
/// executions: `known_gaps::tileir_12061385_…`.)
fn communicates(reads: &[Vec<u32>], t: usize, op: &Op, tile: bool) -> bool {
    let mine = accesses(op);
    !mine.barriers.is_empty()
        || mine.writes.iter().any(|w| reads.iter().enumerate().any(|(u, locs)| (tile || u != t) && locs.binary_search(&w.loc).is_ok()))
}

/// Whether some thread of `prog` may arrive at a barrier after a branch (whose condition may
/// depend on a read) while some thread reads before it writes, or writes after a barrier what a
/// read may see through another address or proxy ([`unordered_write_after_barrier`]: the cycle
/// `ld z; branch; bar.sync | bar.sync; st z_gen` needs no thread that reads, then writes). A
/// barrier arrival is in the prefix
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
    (reads_then_writes || unordered_write_after_barrier(prog))
        && prog.threads.iter().any(|t| {
            // (Which barrier a `DynBarrier` is depends on a register: a branch of its own.)
            let branch = t.code.iter().position(|l| matches!(l.op, Op::Branch { .. } | Op::DynBarrier { .. } | Op::Assume { .. }));
            let last_barrier = t.code.iter().rposition(|l| is_barrier(&l.op));
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
/// an `assume`, a blocking wait or a `tcgen05.alloc`, with a read before it) — or `R` reads `W`
/// through another virtual address or proxy: Causality looks at proxy-preserved base causality
/// (§8.9.5), which relates memory operations only through the same virtual address, so the
/// barrier leaves `R` free to see `W` (`ld.volatile r0, z; beq r0, 0, L; bar.sync 0; L: | bar.sync
/// 0; st z_gen, 1` with `z_gen` an alias of `z`, or `tld` of a texture alias: `proxy` selftest
/// seeds 306052 and 308141, where the explorer missed every complete execution with no caveat).
fn barrier_cycle_possible(prog: &CompiledProgram) -> bool {
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
        (0..code.len()).any(|b| is_barrier(&code[b].op) && (0..code.len()).any(|w| writes(&code[w].op) && may_precede(code, b, w)))
    });
    let dependent_write = prog.threads.iter().any(|t| {
        let code = &t.code;
        (0..code.len()).any(|w| {
            let before = |f: &dyn Fn(&Op) -> bool| (0..code.len()).any(|j| f(&code[j].op) && may_precede(code, j, w));
            let register = matches!(code[w].op, Op::Store { src: crate::program::Opnd::Reg(_), .. });
            own_read_write(&code[w].op) || (writes(&code[w].op) && before(&reads) && (register || before(&controls)))
        })
    });
    (write_after_barrier && dependent_write) || unordered_write_after_barrier(prog)
}

/// Whether some thread of `prog` may write after a barrier arrival a location that some read
/// sees through another virtual address or proxy (or either is asynchronous): a read that the
/// barrier puts before the write in base causality may still read it, since Causality looks at
/// proxy-preserved base causality (§8.9.5), which relates memory operations only through one
/// virtual address and proxy ([`barrier_cycle_possible`]).
fn unordered_write_after_barrier(prog: &CompiledProgram) -> bool {
    let reads: Vec<Label> = prog.threads.iter().flat_map(|t| t.code.iter().flat_map(|l| accesses(&l.op).reads)).collect();
    let unordered = |lw: &Label| {
        reads.iter().any(|lr| lr.loc == lw.loc && (lr.vloc != lw.vloc || lr.proxy != lw.proxy || lr.is_async() || lw.is_async()))
    };
    prog.threads.iter().any(|t| {
        let code = &t.code;
        (0..code.len()).any(|b| {
            is_barrier(&code[b].op)
                && (0..code.len()).any(|w| may_precede(code, b, w) && accesses(&code[w].op).writes.iter().any(unordered))
        })
    })
}

/// A barrier arrival: `bar.sync` with a fixed or a register id, or the rendezvous of a
/// `tcgen05.alloc` of a CTA pair.
fn is_barrier(op: &Op) -> bool {
    matches!(op, Op::Barrier { .. } | Op::DynBarrier { .. } | Op::TmemAlloc { rendezvous: Some(_), .. })
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

/// The `cas`es of `prog` whose expected value is a register (its read then needs the reads that
/// value comes from, [`super::holes::dep_prefix`]), and those followed (in their code, or
/// anywhere when it loops) by an access of the `cas`'s location, a fence, a barrier, or a
/// release write — or by anything, for an acquire `cas`: what can make a failing `cas`
/// necessary to the events after it. (`ld.acquire.cta.cas y, 0, 2; st x, 1 | ld x;
/// atom.release.exch y, r0; ld y; st y, r2`, `tcfuzz fuzz --seed 778` program 263645 shrunk: the
/// `cas` fails reading the plain `st y`, which comes later on the cycle through `st x`; reading
/// the `exch` instead it would synchronize with it and put `st x` before the `ld x` that reads
/// it, and reading the initial `y` it would succeed, which the `exch` reading the initial `y`
/// rules out: 8 of 9 executions, with no caveat.) Where it
/// fails in an execution only because it reads a write that comes later on a load-buffering
/// cycle, every graph a revisit could start from has it read an earlier write, and if those all
/// hold its expected value it succeeds there, its write making those later events inconsistent:
/// the execution is out of reach. Each as its node of [`StaticGraph`] (instructions numbered
/// thread by thread) and what it expects.
fn cas_before_ordering<'r>(prog: &CompiledProgram, runs: &dyn Fn() -> Option<&'r PossibleRuns>) -> Vec<(usize, Expected)> {
    let mut out = Vec::new();
    let mut start = 0;
    // (Found once, where a `cas` asks.)
    let writers = std::cell::OnceCell::new();
    for (thread, t) in prog.threads.iter().enumerate() {
        out.extend(t.code.iter().enumerate().filter_map(|(i, l)| {
            let Op::Rmw { op: tcfuzz_litmus::AtomOp::Cas, a, b: Some(_), read, .. } = &l.op else { return None };
            // A `cas` that no execution performs is not of the class: a branch before it always
            // goes past it, by the values its reads can take (`oracle::possible_runs`).
            if runs().is_some_and(|r| !r.may_perform(&t.code, thread, i)) {
                return None;
            }
            // A register expected value: the read needs what it comes from (`dep_prefix`).
            let expected = match *a {
                crate::program::Opnd::Imm(expected) => expected,
                crate::program::Opnd::Reg(_) => return Some((start + i, Expected::Register)),
            };
            // A `cas` that no write can make fail (every write it could read holds its expected
            // value, the initial one aside, which comes later on no cycle) is not of the class.
            if !writers.get_or_init(|| Writers::of(prog)).failure_source_possible(start + i, read.loc, expected) {
                return None;
            }
            // Nor one that never succeeds: its location never holds its expected value (a
            // superset of the values it holds, [`super::oracle::possible_runs`]), so it reads as
            // a load does in every execution and writes nothing. (On 4,000 `tcfuzz generate
            // --seed 79 --family random` programs, 14 of the 89 that carried the caveat.)
            let never_succeeds = || runs().is_some_and(|r| !r.values[read.loc as usize].contains(&expected));
            let orders = |op: &Op| match op {
                Op::Load { label, .. } => label.loc == read.loc,
                Op::Store { label, .. } => label.loc == read.loc || label.release,
                Op::Rmw { read: r, write: w, .. } => r.loc == read.loc || w.release,
                Op::Fence { .. } | Op::Barrier { .. } | Op::DynBarrier { .. } => true,
                Op::Mov { .. } | Op::Add { .. } | Op::Branch { .. } | Op::Goto { .. } => false,
                _ => true,
            };
            // In a loop the `cas` itself comes again. An acquire `cas` orders every later event
            // of its thread after its read, as a fence after it would (`fuzz --seed 778`,
            // program 263645).
            let later = &t.code[i + 1..];
            let acquire = read.acquire && !later.is_empty();
            ((looping(&t.code) || acquire || later.iter().any(|m| orders(&m.op))) && !never_succeeds())
                .then_some((start + i, Expected::Value(expected)))
        }));
        start += t.code.len();
    }
    out
}

/// What a `cas` of [`cas_before_ordering`] compares with.
enum Expected {
    Value(i64),
    /// A register.
    Register,
}

/// How many thread traces per round [`cas_before_ordering`] lets the search for the values of
/// the locations enumerate ([`super::oracle::possible_runs`]); past it, every `cas` may succeed
/// and run.
const VALUES_BUDGET: u64 = 20_000;

/// The instructions of a program that write memory, by location, numbered as [`StaticGraph`]
/// numbers them (thread by thread), and whether a bulk copy (which may write anything) is among
/// them.
struct Writers<'p> {
    by_loc: std::collections::HashMap<crate::program::label::LocId, Vec<(usize, &'p Op)>>,
    bulk_copy: bool,
}

impl<'p> Writers<'p> {
    fn of(prog: &'p CompiledProgram) -> Self {
        let mut w = Writers { by_loc: Default::default(), bulk_copy: false };
        let ops = prog.threads.iter().flat_map(|t| t.code.iter().map(|l| &l.op));
        for (node, op) in ops.enumerate() {
            w.bulk_copy |= matches!(op, Op::BulkCopy { .. });
            let mut locs: Vec<_> = accesses(op).writes.iter().map(|l| l.loc).collect();
            locs.dedup();
            for loc in locs {
                w.by_loc.entry(loc).or_default().push((node, op));
            }
        }
        w
    }

    /// Whether instruction `at`, a `cas` of `loc` expecting `expected`, may fail by reading a
    /// write rather than the initial value: some instruction other than the `cas` itself may write
    /// `loc` a value other than `expected` — a store or an `exch` of another value, a `cas`
    /// setting another one, any other rmw or a store of a register (values this test does not
    /// follow), any other operation writing `loc`, or a bulk copy. The `cas`'s own write is left
    /// out: a later run of it in a loop is po-after it, which it never reads (one label: morally
    /// strong with itself, PTX ISA §8.7), and an earlier run is added before it in every
    /// exploration, so comes later on no cycle. (`MICRO24-Fig4b`, conformance corpus: a spin loop
    /// of `cas flag, 1, 0` waiting for an `exch flag, 1` carried the caveat, with no failure but
    /// on the initial value.)
    fn failure_source_possible(&self, at: usize, loc: crate::program::label::LocId, expected: i64) -> bool {
        self.bulk_copy || self.by_loc.get(&loc).into_iter().flatten().any(|&(node, op)| node != at && may_write_other_than(op, expected))
    }
}

/// Whether `op`, where it writes, may write a value other than `value`: all but a store of a
/// constant, an `exch` of one, or a `cas` setting one (other values this test does not follow).
fn may_write_other_than(op: &Op, value: i64) -> bool {
    use crate::program::Opnd::Imm;
    use tcfuzz_litmus::AtomOp::{Cas, Exch};
    match op {
        Op::Store { src: Imm(v), .. } | Op::Rmw { op: Exch, a: Imm(v), .. } | Op::Rmw { op: Cas, b: Some(Imm(v)), .. } => *v != value,
        _ => true,
    }
}

/// Whether `code` jumps backwards (a loop).
fn looping(code: &[crate::program::CodeLine]) -> bool {
    code.iter().enumerate().any(|(pc, l)| matches!(l.op, Op::Branch { target, .. } | Op::Goto { target } if target <= pc))
}

#[cfg(test)]
mod tests {
    use super::{Met, Revisits, caveat_rank, caveats_met, rmw_hole_caveat, rmw_hole_possible, rmws_of_one_location_in_two_threads};
    use crate::model::ModelKind;
    use crate::options::Options;
    use crate::program::CompiledProgram;

    fn compile(text: &str) -> CompiledProgram {
        CompiledProgram::compile(&tcfuzz_litmus::parse(text).expect("parses")).expect("compiles")
    }

    fn two_threads(p0: [&str; 2], p1: [&str; 2]) -> String {
        format!(
            "PTX t\n{{ x = 0; y = 0; }}\n P0@cta 0,gpu 0 | P1@cta 0,gpu 0 ;\n {} | {} ;\n {} | {} ;\nexists (true)\n",
            p0[0], p1[0], p0[1], p1[1]
        )
    }

    fn dependency(prog: &CompiledProgram, model: ModelKind, options: &Options) -> bool {
        Revisits::new(prog, model, options).dependency()
    }

    /// The dependency revisits where an execution may have a cyclic `po ∪ rf` (or the program
    /// has asynchronous operations), TruSt's elsewhere, with the caveat that goes with each.
    #[test]
    fn dependency_revisits_only_where_load_buffering_is_possible() {
        let ptx = Options::default();
        let binc = compile(&two_threads(
            ["atom.relaxed.gpu.add r0, x, 1", "atom.relaxed.gpu.add r1, y, 1"],
            ["atom.relaxed.gpu.add r0, x, 1", "atom.relaxed.gpu.add r1, y, 1"],
        ));
        assert!(!dependency(&binc, ModelKind::Ptx, &ptx));
        assert!(Revisits::new(&binc, ModelKind::Ptx, &ptx).unexplored().is_empty());
        let lb = compile(&two_threads(["ld r0, x", "st y, 1"], ["ld r0, y", "st x, 1"]));
        assert!(dependency(&lb, ModelKind::Ptx, &ptx));
        assert!(Revisits::new(&lb, ModelKind::Ptx, &ptx).unexplored().is_empty());
        // Every stretch through a `fence.sc` of the whole GPU: Causality forbids the cycle.
        let fenced = compile(
            "PTX t\n{ x = 0; y = 0; }\n P0@cta 0,gpu 0 | P1@cta 0,gpu 0 ;\n ld r0, x | ld r0, y ;\n fence.sc.gpu | fence.sc.gpu ;\n st y, 1 | st x, 1 ;\nexists (true)\n",
        );
        assert!(!dependency(&fenced, ModelKind::Ptx, &ptx));
        let copies = compile(include_str!("../../../examples/mbarrier/two-bulk-copies-one-mbarrier.litmus"));
        assert!(dependency(&copies, ModelKind::Ptx, &ptx));
        // Asked for; or not, with TruSt's revisits asked for and under SC — where a possible
        // cycle is then a caveat.
        assert!(dependency(&binc, ModelKind::Ptx, &Options { always_dependency_revisits: true, ..Options::default() }));
        let trust = Options { exclude_porf_cycles: true, always_dependency_revisits: true, ..Options::default() };
        assert!(!dependency(&lb, ModelKind::Ptx, &trust));
        let caveats = Revisits::new(&lb, ModelKind::Ptx, &trust).unexplored();
        assert!(caveats.len() == 1 && caveats[0].contains("cyclic po ∪ rf"), "{caveats:?}");
        assert!(!dependency(&lb, ModelKind::Sc, &ptx));
        assert!(Revisits::new(&lb, ModelKind::Sc, &ptx).unexplored().is_empty());
    }

    /// A `cas` comparing with a register has the `cas` caveat only where a load-buffering cycle
    /// may pass through it: P0 and P1 make one, and P2's `cas` of `w` (which no other thread
    /// touches) is on none; moved between P0's load and store, the `cas` is on the cycle.
    #[test]
    fn a_register_cas_off_every_cycle_has_no_cas_caveat() {
        let prog = |p0: [&str; 3], p2: [&str; 2]| {
            compile(&format!(
                "PTX t\n{{ w = 0; x = 0; y = 0; }}\n P0@cta 0,gpu 0 | P1@cta 0,gpu 0 | P2@cta 1,gpu 0 ;\n \
                 {} | ld r0, y | {} ;\n {} | st x, 1 | {} ;\n {} | | ;\nexists (true)\n",
                p0[0], p2[0], p0[1], p2[1], p0[2]
            ))
        };
        let cas = "atom.relaxed.gpu.cas r1, w, r0, 1";
        let caveats = |p: &CompiledProgram| Revisits::new(p, ModelKind::Ptx, &Options::default()).unexplored();
        let off = prog(["ld r0, x", "st y, 1", ""], ["ld r0, x", cas]);
        assert!(caveats(&off).iter().all(|c| !c.contains("cas fails only")), "{:?}", caveats(&off));
        let on = prog(["ld r0, x", cas, "st y, 1"], ["", ""]);
        assert!(caveats(&on).iter().any(|c| c.contains("cas fails only")), "{:?}", caveats(&on));
    }
    /// In a loop the instructions of a thread run again after its rmw: a spin loop whose branch
    /// tests the rmw's result makes every later iteration depend on it (no rmw hole possible:
    /// the CADP forward-progress tests of the conformance corpus), while a store between the rmw
    /// and that branch may be kept without it (possible). (Whether the verdict then names it is
    /// the exploration's: [`caveats_met`].)
    #[test]
    fn rmw_hole_possible_in_a_spin_loop_looks_past_the_branch_on_its_result() {
        let spin = |between: &str| {
            compile(&format!(
                "PTX spin-exch\n{{ m = 0; y = 0; }}\n P0@cta 0,gpu 0 | P1@cta 0,gpu 0 ;\n L0: | L1: ;\n \
                 atom.relaxed.gpu.exch r0, m, 0 | atom.relaxed.gpu.exch r1, m, 1 ;\n {between} | ld r2, y ;\n \
                 bne r0, 1, E0 | bne r1, 0, E1 ;\n goto L0 | goto L1 ;\n E0: | E1: ;\nexists (true)\n"
            ))
        };
        for (between, possible) in [("mov r5, 1", false), ("st y, 1", true)] {
            assert_eq!(rmw_hole_possible(&spin(between)), possible, "{between}");
        }
    }

    /// The rmw-held-by-Atomicity test is asked only where two threads have rmws of one location.
    #[test]
    fn atomicity_is_asked_only_where_two_threads_have_rmws_of_one_location() {
        let asked = |p0, p1| rmws_of_one_location_in_two_threads(&compile(&two_threads(p0, p1)));
        let exch = |loc: &str| format!("atom.relaxed.gpu.exch r0, {loc}, 1");
        let (ex, ey) = (exch("x"), exch("y"));
        assert!(asked([&ex, "ld r1, y"], [&ex, "st y, 1"]));
        assert!(!asked([&ex, &ex], ["ld r1, x", "st x, 1"]), "one thread's rmws");
        assert!(!asked([&ex, "ld r1, y"], [&ey, "st x, 1"]), "rmws of different locations");
    }

    /// Under PTX the rmw-hole caveat stays only where the exploration met a revisit that can
    /// start the gap; under Tile IR it stays as the program gives it; the lost revisit (and each
    /// gap met while exploring) adds its own.
    #[test]
    fn the_rmw_hole_caveat_stays_only_where_met_under_ptx() {
        let statics = |model| vec![rmw_hole_caveat(model)];
        let none = Met::default();
        assert!(caveats_met(statics(ModelKind::Ptx), none, ModelKind::Ptx).is_empty());
        assert_eq!(caveats_met(statics(ModelKind::Ptx), Met { rmw_hole: true, ..none }, ModelKind::Ptx), statics(ModelKind::Ptx));
        assert_eq!(caveats_met(statics(ModelKind::TileIr), none, ModelKind::TileIr), statics(ModelKind::TileIr));
        let lost = caveats_met(Vec::new(), Met { lost_revisit: true, ..none } | none, ModelKind::Ptx);
        assert!(lost.len() == 1 && lost[0].contains("a load-buffering revisit it cannot take"), "{lost:?}");
        // Each caveat has its rank, in the order they are given.
        let every = Met { lost_revisit: true, rmw_hole: true, atomicity_held: true, gave_up: true };
        let all = caveats_met(vec![rmw_hole_caveat(ModelKind::Ptx)], every, ModelKind::Ptx);
        assert_eq!(all.iter().map(|c| caveat_rank(c)).collect::<Vec<_>>(), [3, 4, 5, 6]);
    }
}
