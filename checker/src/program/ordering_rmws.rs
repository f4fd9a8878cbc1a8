//! Which rmws the dependency revisits keep with every later event of their thread
//! ([`Label::orders_thread`]), so that no revisit leaves them a hole.
//!
//! A revisit that deletes an rmw while it keeps a later event of its thread leaves the rmw a
//! hole, and the hole is refilled before the writes the revisit deleted come back: the
//! executions where the rmw reads one of them may be missed (the rmw-hole gap, module docs of
//! [`crate::explore`]). Keeping every later event with the rmw — as the events after a barrier
//! are kept with it — leaves no such hole, and loses nothing where it closes no cycle: the
//! dependency revisits reach every consistent execution in which their prefix, with `rf`, is
//! acyclic. So an rmw is marked where no consistent execution can have a cycle of needs through
//! the edges from its read to the later events of its thread, by either of two static tests on
//! the instruction graph of [`StaticGraph`]:
//! - *no allowed `po ∪ rf` cycle goes on from it in program order*
//!   ([`StaticGraph::cycle_possible_through`]): such a cycle of needs is one of `po ∪ rf`, with
//!   the model's excuses (fenced, on one location, synchronizing) applied;
//! - *nothing that may run after it needs it back* ([`StaticGraph::needed_again_after`]): no walk
//!   from its later instructions along what may need what — the dependencies of
//!   [`crate::exec::interp`] over-approximated per instruction ([`needs`]), possible `rf`,
//!   barrier partners, and the edges of the rmws marked before it — reaches it again through
//!   another thread.
//!
//! The marks go one rmw at a time, each test with the edges of those marked before it, so that a
//! cycle through the edges of two marked rmws is seen at the later one.

#[cfg(doc)]
use crate::program::label::Label;
use crate::program::porf_cycles::{SEARCH_BUDGET, StaticGraph, accesses};
use crate::program::{CodeLine, CompiledProgram, Op, Opnd};
use tcfuzz_litmus::AtomOp;

/// Marks the read of every rmw of `prog` that the tests of the module docs clear
/// ([`Label::orders_thread`]), and records whether
/// the program may have a `po ∪ rf` cycle at all ([`CompiledProgram::porf_cycles`]): where it
/// may not, every rmw is marked at once. Only PTX programs whose every event is performed where
/// its thread issues it (an asynchronous operation — a `tcgen05` perform, a bulk copy, a
/// commit's arrival — may come after a later rmw of its thread, which the instruction graph's
/// program order does not see), and Tile IR programs, with the second test alone: the first
/// test's excuses are the PTX model's, while the second needs of the model only the possible
/// `rf`, which the graph over-approximates for Tile IR too (any write of the location, a later
/// one of the same thread included), and a Tile IR thread performs each event where it issues
/// it (token order, which orders them in the model, is not in the prefix). Each test has a
/// budget for the whole program (a program of thousands of rmws on shared slots, `indexer`,
/// would take minutes); past it an rmw stays unmarked, as every rmw was before.
pub(crate) fn mark_ordering_rmws(prog: &mut CompiledProgram) {
    let rmw = prog.threads.iter().flat_map(|t| &t.code).any(|l| matches!(l.op, Op::Rmw { .. }));
    let tile = prog.tile.is_some();
    if !(tile || prog.performed_in_order()) || !rmw {
        return;
    }
    let graph = StaticGraph::new(prog);
    let porf_cycles = tile || graph.porf_cycle_possible();
    if !tile {
        prog.porf_cycles = Some(porf_cycles);
    }
    if !porf_cycles {
        for l in prog.threads.iter_mut().flat_map(|t| &mut t.code) {
            if let Op::Rmw { read, .. } = &mut l.op {
                read.orders_thread = true;
            }
        }
        return;
    }
    let starts: Vec<usize> = prog
        .threads
        .iter()
        .scan(0, |next, t| {
            let start = *next;
            *next += t.code.len();
            Some(start)
        })
        .collect();
    let (mut steps, walk) = (CYCLE_BUDGET, std::cell::Cell::new(NEEDS_BUDGET));
    // Per thread, what needs what ([`needed_by`]): made when a walk first comes to the thread,
    // and again after a mark there adds edges. The second test's budget pays for it: the words
    // of the analysis's sets (one per register and instruction) and the edges it may list (a
    // branch makes every later instruction need every read before it: quadratic). `None` where
    // that is more than is left: the walk then gives up.
    type Needs = std::cell::OnceCell<Option<Vec<Vec<usize>>>>;
    let mut needed_by: Vec<Needs> = vec![Needs::new(); prog.threads.len()];
    for t in 0..prog.threads.len() {
        for i in 0..prog.threads[t].code.len() {
            if !matches!(prog.threads[t].code[i].op, Op::Rmw { .. }) {
                continue;
            }
            let node = starts[t] + i;
            let ordered = (!tile && steps > 0 && !graph.cycle_possible_through(node, &mut steps)) || {
                let p = &*prog;
                let needers = |x: usize| {
                    let (u, j) = thread_of(&starts, x)?;
                    let made = needed_by[u].get_or_init(|| {
                        let (len, regs) = (p.threads[u].code.len() as u64, p.threads[u].reg_names.len() as u64);
                        let cost = len * (regs + 1) * len.div_ceil(64) + len * len / 2;
                        let left = walk.get().checked_sub(cost)?;
                        walk.set(left);
                        Some(self::needed_by(p, u, starts[u]))
                    });
                    made.as_ref().map(|m| &m[j])
                };
                // (The analyses `needers` makes on the way take their cost from `walk` as they go.)
                let (before, mut left) = (walk.get(), walk.get());
                let cleared = before > 0 && graph.needed_again_after(node, &needers, &mut left) == Some(false);
                walk.set(walk.get().saturating_sub(before - left));
                cleared
            };
            if let Op::Rmw { read, .. } = &mut prog.threads[t].code[i].op {
                read.orders_thread = ordered;
            }
            if ordered {
                // Its edges count in the tests of the rmws after it.
                needed_by[t] = Needs::new();
            }
        }
    }
}

/// How many steps the first test of the module docs ([`StaticGraph::cycle_possible_through`])
/// may take over all the rmws of a program. A quarter of what [`StaticGraph::porf_cycle_possible`]
/// may take once: the marks are worth less than the check they serve (`indexer` n = 12, 6,144
/// `cas`es on shared slots, checked in 0.1 s, spends them all on its first `cas`).
const CYCLE_BUDGET: u64 = SEARCH_BUDGET / 4;

/// How many steps the second test of the module docs ([`StaticGraph::needed_again_after`]) may
/// take over all the rmws of a program, with the analyses it needs ([`needed_by`]).
const NEEDS_BUDGET: u64 = 200_000;

/// The thread of node `x` of [`StaticGraph`] and its index there (`starts`: each thread's first
/// node).
fn thread_of(starts: &[usize], x: usize) -> Option<(usize, usize)> {
    let t = starts.partition_point(|&s| s <= x).checked_sub(1)?;
    Some((t, x - starts[t]))
}

/// Per instruction of thread `t` (whose first node of [`StaticGraph`] is `start`), the nodes of
/// its thread whose events may need its events ([`needs`]).
fn needed_by(prog: &CompiledProgram, t: usize, start: usize) -> Vec<Vec<usize>> {
    let thread = &prog.threads[t];
    let mut out = vec![Vec::new(); thread.code.len()];
    for (b, needs) in needs(&thread.code, thread.reg_names.len()).iter().enumerate() {
        for x in needs.iter() {
            out[x].push(start + b);
        }
    }
    out
}

/// A set of instruction indices of one thread.
#[derive(Clone, PartialEq, Eq)]
struct Set(Vec<u64>);

impl Set {
    fn new(n: usize) -> Set {
        Set(vec![0; n.div_ceil(64)])
    }
    fn insert(&mut self, i: usize) {
        self.0[i / 64] |= 1 << (i % 64);
    }
    /// Adds `o`'s members; whether any was new.
    fn union(&mut self, o: &Set) -> bool {
        let mut grew = false;
        for (a, b) in self.0.iter_mut().zip(&o.0) {
            grew |= *b & !*a != 0;
            *a |= b;
        }
        grew
    }
    fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        self.0.iter().enumerate().flat_map(|(w, &bits)| (0..64).filter(move |b| bits & 1 << b != 0).map(move |b| w * 64 + b))
    }
}

/// What a thread's run holds at an instruction: per register, the instructions whose reads its
/// value may come from; and the instructions every later event may control-depend on.
#[derive(Clone, PartialEq, Eq)]
struct Flow {
    regs: Vec<Set>,
    ctrl: Set,
}

/// For each instruction of `code`, the instructions whose events its events may need in the
/// dependency prefix ([`crate::explore`]'s `dep_prefix`): an over-approximation of
/// [`crate::exec::interp`]'s dependencies (a register carries the reads its value may come from,
/// on any path; a branch or an `assume` on a register makes every later instruction depend on
/// those reads) and of what decides whether the thread goes on (every instruction other than a
/// plain access, a register operation, a fence or a jump — barriers, waits, arrivals,
/// allocations, `tcgen05` operations — counts as deciding it, with its operands, for every
/// later instruction; so does an rmw already marked, [`Label::orders_thread`]). A `cas` whose
/// expected value is a register needs every read of its thread (where it writes moves the later
/// events). A forward data-flow analysis, to a fixed point over the loops. A read also needs the
/// writes of its location earlier in its thread (any, where it loops), which it may read from.
fn needs(code: &[CodeLine], nregs: usize) -> Vec<Set> {
    let n = code.len();
    let mut needs = vec![Set::new(n); n];
    if n == 0 {
        return needs;
    }
    let mut reads = Set::new(n);
    for (i, l) in code.iter().enumerate() {
        if !accesses(&l.op).reads.is_empty() {
            reads.insert(i);
        }
    }
    let nregs = code.iter().filter_map(|l| l.op.registers().0).fold(nregs, |m, d| m.max(d + 1));
    let empty = Flow { regs: vec![Set::new(n); nregs], ctrl: Set::new(n) };
    let mut at: Vec<Option<Flow>> = vec![None; n];
    at[0] = Some(empty);
    let mut work = vec![0usize];
    while let Some(i) = work.pop() {
        let Some(mut flow) = at[i].clone() else { continue };
        let op = &code[i].op;
        let (dst, operands) = op.registers();
        let mut from = Set::new(n);
        for o in &operands {
            if let Opnd::Reg(r) = o
                && let Some(s) = flow.regs.get(*r)
            {
                from.union(s);
            }
        }
        needs[i].union(&flow.ctrl);
        needs[i].union(&from);
        if matches!(op, Op::Rmw { op: AtomOp::Cas, a: Opnd::Reg(_), .. }) {
            needs[i].union(&reads);
        }
        let mut own = Set::new(n);
        own.insert(i);
        match op {
            Op::Branch { .. } | Op::Assume { .. } => {
                flow.ctrl.union(&from);
            }
            Op::Rmw { read, .. } if read.orders_thread => {
                flow.ctrl.union(&own);
            }
            Op::Load { .. } | Op::Store { .. } | Op::Rmw { .. } | Op::Mov { .. } | Op::Add { .. } | Op::Fence { .. } | Op::Goto { .. } => {}
            _ => {
                flow.ctrl.union(&own);
                flow.ctrl.union(&from);
            }
        }
        if let Some(d) = dst {
            flow.regs[d] = if matches!(op, Op::Mov { .. } | Op::Add { .. }) { from } else { own };
        }
        let next: &[usize] = match op {
            Op::Goto { target } => &[*target],
            Op::Branch { target, .. } => &[i + 1, *target],
            _ => &[i + 1],
        };
        for &j in next.iter().filter(|&&j| j < n) {
            let grew = match &mut at[j] {
                Some(there) => {
                    let mut grew = there.ctrl.union(&flow.ctrl);
                    for (a, b) in there.regs.iter_mut().zip(&flow.regs) {
                        grew |= a.union(b);
                    }
                    grew
                }
                slot @ None => {
                    *slot = Some(flow.clone());
                    true
                }
            };
            if grew {
                work.push(j);
            }
        }
    }
    // A read needs the write it reads from, and its source may be a write of its own thread: an
    // earlier one of its location (any one, where the thread loops). The walk of
    // [`StaticGraph::needed_again_after`] sees the other writes through `rf` edges.
    let loops = code.iter().enumerate().any(|(i, l)| matches!(l.op, Op::Goto { target } | Op::Branch { target, .. } if target <= i));
    let accessed: Vec<_> = code.iter().map(|l| accesses(&l.op)).collect();
    for (i, acc) in accessed.iter().enumerate() {
        for (j, other) in accessed.iter().enumerate() {
            let may_source = j != i && (j < i || loops) && other.writes.iter().any(|w| acc.reads.iter().any(|r| r.loc == w.loc));
            if may_source {
                needs[i].insert(j);
            }
        }
    }
    needs
}

#[cfg(test)]
mod tests {
    use super::mark_ordering_rmws;
    use crate::program::{CompiledProgram, Op};

    fn marks(text: &str) -> Vec<Vec<bool>> {
        let mut p = CompiledProgram::compile(&tcfuzz_litmus::parse(text).expect("parses")).expect("compiles");
        mark_ordering_rmws(&mut p);
        p.threads
            .iter()
            .map(|t| t.code.iter().filter_map(|l| if let Op::Rmw { read, .. } = &l.op { Some(read.orders_thread) } else { None }).collect())
            .collect()
    }

    /// Load buffering through a `cas` whose later store needs nothing of it: the cycle of
    /// `po ∪ rf` is allowed, but no cycle of needs goes on from P0's `cas` (P1's `cas` compares
    /// with a constant and needs nothing of its load). P1's `cas` is last: nothing to keep.
    #[test]
    fn an_rmw_is_marked_where_nothing_after_it_needs_it_back() {
        let lb = "PTX lb-cas
{ x = 0; y = 0; }
 P0@cta 0,gpu 0                   | P1@cta 1,gpu 0                   ;
 atom.relaxed.gpu.cas r0, x, 0, 1 | ld.relaxed.gpu r1, y             ;
 st.relaxed.gpu y, 1              | atom.relaxed.gpu.cas r2, x, 0, 2 ;
exists (true)
";
        assert_eq!(marks(lb), vec![vec![true], vec![true]]);
    }

    /// The same cycle with every link a dependency: P0's store writes the value its `cas` read,
    /// P1's `cas` compares with the value its load read (so it needs every read of its thread).
    /// Keeping P0's store with its `cas` could close the cycle (P1's write may be what P0's `cas`
    /// reads): not marked. P1's `cas` is last.
    #[test]
    fn an_rmw_on_a_cycle_of_dependencies_is_not_marked() {
        let dep = "PTX lb-cas-dep
{ x = 0; y = 0; }
 P0@cta 0,gpu 0                   | P1@cta 1,gpu 0                    ;
 atom.relaxed.gpu.cas r0, x, 0, 1 | ld.relaxed.gpu r1, y              ;
 st.relaxed.gpu y, r0             | atom.relaxed.gpu.cas r2, x, r1, 2 ;
exists (true)
";
        assert_eq!(marks(dep), vec![vec![false], vec![true]]);
    }

    /// A cycle of needs within one thread: P1's `cold` (a load of `x` through the constant
    /// proxy) may read P1's later `st x` (another proxy: not morally strong, §8.7), its `st y`
    /// writes the value read, and its `exch` of `y` reads that store, of its own thread. Keeping
    /// `st x` with the `exch` could close the cycle: not marked. (It was, the store's `rf` not
    /// counted as a need, and 9 of 18 executions were missed with no caveat: `selftest --family
    /// all` seed 14082270, shrunk.)
    #[test]
    fn an_rmw_reading_a_store_of_its_own_thread_on_a_cycle_is_not_marked() {
        let own = "PTX own-thread-cycle
{ x = 0; y = 0; x_con @ constant aliases x; }
 P0@cta 1,gpu 0 | P1@cta 1,gpu 0                 ;
 ld r0, y       | cold.weak r0, x_con            ;
 ld r2, y       | st y, r0                       ;
                | atom.relaxed.cta.exch r2, y, 0 ;
                | st x, 1                        ;
exists (true)
";
        assert_eq!(marks(own), vec![vec![], vec![false]]);
    }
}
