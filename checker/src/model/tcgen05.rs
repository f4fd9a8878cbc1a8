//! The ordering rules of the asynchronous `tcgen05` operations (PTX ISA §9.7.16.6, spec texts
//! `000`/`002`; DESIGN §3.3), as edges the PTX model ([`super::ptx`]) adds to base causality
//! order in place of program order.
//!
//! An asynchronous instruction (`mma`, `cp`, `shift`, `ld`, `st`, and the arrive a `commit`
//! performs) is a group of events — its perform — that program order does not order with the
//! thread's other events (§9.7.16.6.1: "not inherently ordered with respect to other tcgen05
//! operations in the same thread"). `X ⇒ Y` ("Y performs after X") comes only from:
//!
//! 1. **Pipelined pairs** (§9.7.16.6.2), X issued before Y in one thread: `mma→mma` (same
//!    cta_group, accumulator, shape and kind), `cp→mma`, `shift→mma`, `shift→cp.4x256b`,
//!    `mma→shift` (same cta_group).
//! 2. **Pipelined pairs across threads** (§9.7.16.6.3, pattern §9.7.16.6.4.3): X before a
//!    `fence::before_thread_sync` (or a `commit`, which implies one, §9.7.16.6.4.2), that fence
//!    before — in *execution order* — a `fence::after_thread_sync` before Y. Execution order is
//!    program order, observation of morally strong writes (relaxed ones count: "composes with
//!    execution ordering instructions, like morally strong ld/st/atom instructions, mbarrier
//!    instruction, barrier instructions"), barriers and synchronizes-with, transitively.
//! 3. **Completion** (§9.7.16.6.2.1): an `ld` / `st` performs before a later `wait::ld` /
//!    `wait::st` of its thread; an `mma` / `cp` / `shift` before the arrive of a later `commit`
//!    of the same cta_group. A `wait::ld/st` is synchronous: later tcgen05 operations of its
//!    thread perform after it (§9.7.16.6.1, pattern 2 example 1).
//! 4. **Fences** (§9.7.16.6.3): an asynchronous operation after a `fence::after_thread_sync`
//!    is ordered after everything before the fence. No other fence orders it: a
//!    `fence.proxy.async` orders generic-proxy against async-proxy accesses of memory
//!    (§9.7.16.6.5) once they are otherwise ordered, and says nothing about issue order or
//!    Tensor Memory — "as tcgen05.ld is an asynchronous operation, the instruction
//!    tcgen05.fence::after_thread_sync is needed" (§9.7.16.6.4.2, example 2).
//! 5. **Non-pipelined pairs across threads** (§9.7.16.6.4.4: the producer "must explicitly wait
//!    for the instructions' completion before synchronizing"): X's completion is *established*
//!    at a `wait::ld/st` after X, or, for X tracked by a `commit`, at a
//!    `fence::after_thread_sync` that follows (in its thread) a read observing the commit's
//!    arrive. Then `X ⇒ Y` when Y follows such a fence in its thread, or when the place of
//!    establishment precedes a `fence::before_thread_sync` that is before, in execution order,
//!    a `fence::after_thread_sync` before Y (the composed example of §9.7.16.6.4.4).
//!
//! 6. **Commits in order**: the arrives of two `commit`s of one thread happen in issue order (a
//!    later commit tracks everything an earlier one does, and completion is monotonic —
//!    §9.7.16.6.2.1.1 read as a per-thread FIFO of completion arrives).
//!
//! 7. **Observed completion**: X tracked by a `commit` performs before a read that observes the
//!    commit's arrive (§9.7.16.6.2.1.1: "Completion of the following instruction's asynchronous
//!    operations is observed through the mbarrier based waiting mechanism"). What follows that
//!    read in program order — a generic access, a bulk copy, a release — is then ordered after X
//!    by the standard model ("The standard memory consistency model synchronization mechanisms
//!    also apply to the tcgen05 family of instructions", §9.7.16.6.3), with the proxy rules
//!    unchanged (a generic access of what X read in the async proxy still needs
//!    `fence.proxy.async`). A later *asynchronous* tcgen05 operation is not in program order, so
//!    it still needs `fence::after_thread_sync` (rule 5).
//!
//! A register dependency from `tcgen05.ld` carries the value but orders nothing
//! (§9.7.16.6.4.5): the dependent instruction's perform is not ordered after the load's.
//! Two conflicting TMEM accesses not ordered by causality with these edges are a TMEM race.
//!
//! Readings where the text is open: "ordered after all the prior tcgen05 ... operations" of
//! `fence::after_thread_sync` is read as the synchronous ones and the execution-ordering ones
//! (an asynchronous one needs rule 1, 2, 3 or 5 — else the spec's patterns 2 and 4 would not need
//! their waits); `fence::before_thread_sync` orders an asynchronous operation before later
//! execution-ordering operations only as a pipeline (rule 2), never as completion.
//!
//! # How it is computed
//! [`Facts::load`] reads, once per graph, what the rules need into scratch space kept from graph
//! to graph: each node's instruction (consecutive events of one thread from a `first`-marked
//! tcgen05 event; every other event is its own instruction), the tcgen05 instructions, and node
//! masks (asynchronous events, the fences and waits of each kind, commit arrives).
//! [`Facts::restrict`] takes out of a row of program order the pairs §9.7.16.6.1 leaves
//! unordered, and [`Facts::ordering`] builds the edges above into a reused relation, row by row:
//! for each asynchronous operation `X` one row of everything `X` performs before, shared by the
//! events of `X`. `ptx/reference/tcgen05.rs` (test-only) is the same rules pair by pair, as first
//! written; the tests compare the two on every graph they judge.

use crate::exec::bitset::Relation;
use crate::exec::bitset::row::{bits, has, is_zero, or_into, range_word, set_range, unset};
use crate::program::label::{Label, TcOp};

/// The thread of an initial write (as in the PTX model's scratch space).
const NONE: u32 = u32::MAX;

/// Node masks of [`Facts`], `w` words each: the perform of an asynchronous operation
/// ([`Label::is_async`]); `fence::before_thread_sync` and the commit issues that imply one
/// (rule 2); `fence::after_thread_sync`; `wait::ld`; `wait::st`; commit arrives, and those of
/// them that are writes.
const ASYNC: usize = 0;
const BEFORE: usize = 1;
const AFTER: usize = 2;
const WAIT_LD: usize = 3;
const WAIT_ST: usize = 4;
const ARRIVE: usize = 5;
const ARRIVE_WRITE: usize = 6;
const MASKS: usize = 7;
/// Not a mask: every node ([`Facts::or_firsts`]).
const ANY: usize = usize::MAX;

/// One tcgen05 instruction of the graph: its tcgen05 events are the nodes `first..end`, its
/// operation and cta_group those of the first.
#[derive(Clone, Copy)]
struct Instr {
    first: usize,
    end: usize,
    op: TcOp,
    group: u8,
}

/// §9.7.16.6.2: whether `x` then `y` (issued in that order) is a pipelined pair.
fn pipelined(x: &Instr, y: &Instr) -> bool {
    if x.group != y.group {
        return false;
    }
    match (x.op, y.op) {
        (TcOp::Mma { acc: a, shape: s, kind: k }, TcOp::Mma { acc: b, shape: t, kind: l }) => a == b && s == t && k == l,
        (TcOp::Cp { .. } | TcOp::Shift, TcOp::Mma { .. }) => true,
        (TcOp::Shift, TcOp::Cp { four_x256b }) => four_x256b,
        (TcOp::Mma { .. }, TcOp::Shift) => true,
        _ => false,
    }
}

/// The tcgen05 facts of one graph and the scratch space of [`Facts::ordering`], reused from
/// graph to graph (see "How it is computed").
#[derive(Default)]
pub struct Facts {
    n: usize,
    /// Words per row.
    w: usize,
    /// Per node, its thread ([`NONE`] for initial writes) and its instruction as a range of nodes
    /// `start..end` (instructions are consecutive).
    thread: Vec<u32>,
    span: Vec<(u32, u32)>,
    instrs: Vec<Instr>,
    /// Indices in `instrs`: the asynchronous data operations (the instructions whose first
    /// event is asynchronous), and the commits.
    data: Vec<usize>,
    commits: Vec<usize>,
    /// The node masks (`MASKS` of them).
    masks: Vec<u64>,
    /// Per commit (as in `commits`), three rows: its arrive events; the reads that observe an
    /// arrive (rule 7); the `fence::after_thread_sync`s after such a read in its thread, where
    /// completion is established (rule 5).
    commit_rows: Vec<u64>,
    /// Row buffers of [`Facts::ordering`].
    rows: Vec<u64>,
}

impl Facts {
    fn mask(&self, k: usize) -> &[u64] {
        &self.masks[k * self.w..(k + 1) * self.w]
    }

    /// Reads the facts of a graph: per node its label (`None` for initial writes) and thread
    /// (`u32::MAX` for initial writes), nodes numbered initial writes first, then each thread in
    /// program order ([`crate::exec::graph::NodeIndex`]).
    pub fn load(&mut self, labels: &[Option<Label>], thread: &[u32]) {
        let n = labels.len();
        let w = n.div_ceil(64).max(1);
        (self.n, self.w) = (n, w);
        self.thread.clear();
        self.thread.extend_from_slice(thread);
        self.span.clear();
        self.instrs.clear();
        self.data.clear();
        self.commits.clear();
        self.masks.clear();
        self.masks.resize(MASKS * w, 0);
        let mut start = 0;
        for x in 0..n {
            let tc = labels[x].and_then(|l| l.tc);
            // Consecutive events of one thread from a `first`-marked tcgen05 event are one
            // instruction; every other event starts its own.
            let continues = x > 0 && thread[x] != NONE && thread[x] == thread[x - 1] && tc.is_some_and(|t| !t.first);
            if !continues {
                start = x;
            }
            self.span.push((start as u32, 0));
            let Some(l) = labels[x] else { continue };
            let (xw, bit) = (x / 64, 1u64 << (x % 64));
            let mut put = |k: usize| self.masks[k * w + xw] |= bit;
            if l.is_async() {
                put(ASYNC);
            }
            let Some(tc) = tc else { continue };
            match tc.op {
                TcOp::FenceBefore | TcOp::CommitIssue => put(BEFORE),
                TcOp::FenceAfter => put(AFTER),
                TcOp::WaitLd => put(WAIT_LD),
                TcOp::WaitSt => put(WAIT_ST),
                TcOp::CommitArrive => {
                    put(ARRIVE);
                    if l.is_write() {
                        put(ARRIVE_WRITE);
                    }
                }
                _ => {}
            }
            // The tcgen05 events of one instruction are consecutive (a non-tcgen05 event always
            // starts an instruction of its own).
            match self.instrs.last_mut() {
                Some(last) if continues && last.end == x => last.end = x + 1,
                _ => self.instrs.push(Instr { first: x, end: x + 1, op: tc.op, group: tc.group }),
            }
        }
        let mut end = n;
        for x in (0..n).rev() {
            self.span[x].1 = end as u32;
            if self.span[x].0 as usize == x {
                end = x;
            }
        }
        for (i, ins) in self.instrs.iter().enumerate() {
            if ins.op.is_async() {
                self.data.push(i);
            }
            if ins.op == TcOp::CommitIssue {
                self.commits.push(i);
            }
        }
    }

    /// Takes out of `row`, a row of node `x` within its thread (program order, or the thread's
    /// events), the nodes that program order does not relate to `x`: where `x` or the other
    /// node is the perform of an asynchronous operation and they belong to different
    /// instructions (§9.7.16.6.1).
    pub fn restrict(&self, x: usize, row: &mut [u64]) {
        let (lo, hi) = (self.span[x].0 as usize, self.span[x].1 as usize);
        let x_async = has(self.mask(ASYNC), x);
        if hi == lo + 1 && !x_async {
            // An instruction of one event (most are): no other event shares it.
            for (word, a) in row.iter_mut().zip(self.mask(ASYNC)) {
                *word &= !a;
            }
            return;
        }
        for (k, word) in row.iter_mut().enumerate() {
            let same = range_word(k, lo, hi);
            *word &= if x_async { same } else { !self.masks[ASYNC * self.w + k] | same };
        }
    }

    /// The `⇒` edges of the module docs into `out`. `po` is the full program order, `eo`
    /// execution order (see rule 2), `obs` observation order (§8.9.2).
    pub fn ordering(&mut self, out: &mut Relation, po: &Relation, eo: &Relation, obs: &Relation) {
        let (n, w) = (self.n, self.w);
        out.reset(n);
        let mut rows = std::mem::take(&mut self.rows);
        rows.clear();
        rows.resize(5 * w, 0);
        let (acc, rest) = rows.split_at_mut(w);
        let (from, rest) = rest.split_at_mut(w);
        let (bridge, rest) = rest.split_at_mut(w);
        let (est, after) = rest.split_at_mut(w);
        self.load_commits(po, obs);
        for &xi in &self.data {
            let x = self.instrs[xi];
            let issued_after = po.row(x.first);
            acc.fill(0);
            // Rules 1 and 2: the pipelined partners `y` issued after `x`, or after a
            // `fence::after_thread_sync` that a `fence::before_thread_sync` after `x` reaches.
            if self.data.iter().any(|&yi| yi != xi && pipelined(&x, &self.instrs[yi])) {
                // (`x` itself is no before-fence.)
                self.bridge(bridge, issued_after, po, eo);
                after.fill(0);
                self.or_firsts(after, bridge, AFTER, po);
                or_into(after, issued_after);
                for &yi in &self.data {
                    let y = self.instrs[yi];
                    if yi != xi && pipelined(&x, &y) && has(after, y.first) {
                        set_range(acc, y.first, y.end);
                    }
                }
            }
            // Rule 3: completion points; rule 7: reads observing a commit's arrive. `est`: where
            // completion is established (rule 5).
            match x.op {
                TcOp::Ld | TcOp::St => {
                    let waits = self.mask(if x.op == TcOp::Ld { WAIT_LD } else { WAIT_ST });
                    for k in 0..w {
                        est[k] = issued_after[k] & waits[k];
                        acc[k] |= est[k];
                    }
                }
                _ => {
                    est.fill(0);
                    for (ci, &c) in self.commits.iter().enumerate() {
                        let c = self.instrs[c];
                        if c.group == x.group && has(issued_after, c.first) {
                            let r = &self.commit_rows[3 * ci * w..3 * (ci + 1) * w];
                            for k in 0..w {
                                acc[k] |= r[k] | r[w + k];
                                est[k] |= r[2 * w + k];
                            }
                        }
                    }
                }
            }
            // Rule 5: `y` after a `fence::after_thread_sync` that is a place of establishment,
            // or after one in program order, or reached through a `fence::before_thread_sync`
            // after one (rule 2's bridge).
            if !is_zero(est) {
                from.copy_from_slice(est);
                self.or_firsts(from, est, ANY, po);
                self.bridge(bridge, from, po, eo);
                self.or_firsts(bridge, est, AFTER, po);
                or_into(bridge, est);
                after.fill(0);
                self.or_firsts(after, bridge, AFTER, po);
                for &yi in &self.data {
                    let y = self.instrs[yi];
                    if yi != xi && has(after, y.first) {
                        set_range(acc, y.first, y.end);
                    }
                }
            }
            for a in x.first..x.end {
                let row = out.row_mut(a);
                or_into(row, acc);
                unset(row, a);
            }
        }
        // Rule 6: commit arrives in issue order.
        for (ai, &a) in self.commits.iter().enumerate() {
            acc.fill(0);
            for (bi, &b) in self.commits.iter().enumerate() {
                if has(po.row(self.instrs[a].first), self.instrs[b].first) {
                    or_into(acc, &self.commit_rows[3 * bi * w..(3 * bi + 1) * w]);
                }
            }
            for k in bits(&self.commit_rows[3 * ai * w..(3 * ai + 1) * w]) {
                let row = out.row_mut(k);
                or_into(row, acc);
                unset(row, k);
            }
        }
        // Rules 3 (synchronous waits) and 4: the asynchronous operations issued after a wait or a
        // `fence::after_thread_sync` perform after it.
        for (k, f) in from.iter_mut().enumerate() {
            *f = [WAIT_LD, WAIT_ST, AFTER].iter().fold(0, |m, &slot| m | self.masks[slot * w + k]);
        }
        for f in bits(from) {
            acc.fill(0);
            for &yi in &self.data {
                let y = self.instrs[yi];
                if has(po.row(f), y.first) {
                    set_range(acc, y.first, y.end);
                }
            }
            let row = out.row_mut(f);
            or_into(row, acc);
            unset(row, f);
        }
        self.rows = rows;
    }

    /// Fills `commit_rows` (see there).
    fn load_commits(&mut self, po: &Relation, obs: &Relation) {
        let w = self.w;
        let mut rows = std::mem::take(&mut self.commit_rows);
        rows.clear();
        rows.resize(3 * w * self.commits.len(), 0);
        for (ci, &c) in self.commits.iter().enumerate() {
            let c = self.instrs[c];
            let r = &mut rows[3 * ci * w..3 * (ci + 1) * w];
            let (arrive, rest) = r.split_at_mut(w);
            let (readers, est) = rest.split_at_mut(w);
            for (k, a) in arrive.iter_mut().enumerate() {
                *a = range_word(k, c.first, c.end) & self.masks[ARRIVE * w + k];
            }
            for (k, &a) in arrive.iter().enumerate() {
                let mut word = a & self.masks[ARRIVE_WRITE * w + k];
                while word != 0 {
                    let a = k * 64 + word.trailing_zeros() as usize;
                    word &= word - 1;
                    or_into(readers, obs.row(a));
                }
            }
            for r in bits(readers) {
                or_into(est, po.row(r));
            }
            for (e, &m) in est.iter_mut().zip(self.mask(AFTER)) {
                *e &= m;
            }
        }
        self.commit_rows = rows;
    }

    /// Rule 2's bridge: into `out`, what the `fence::before_thread_sync`s (and commit issues)
    /// among `from` reach in execution order or program order. (In one thread, what a later one
    /// reaches the first reaches too: program order between them is in execution order.)
    fn bridge(&self, out: &mut [u64], from: &[u64], po: &Relation, eo: &Relation) {
        out.fill(0);
        self.or_firsts(out, from, BEFORE, eo);
        self.or_firsts(out, from, BEFORE, po);
    }

    /// `out |= rel[x]` for `x` the first node of each thread among the nodes of `set` in mask
    /// `slot` (every node of `set` for [`ANY`]). Only for a transitive `rel` that holds program
    /// order between those nodes: then the rows of the later ones of a thread add nothing.
    fn or_firsts(&self, out: &mut [u64], set: &[u64], slot: usize, rel: &Relation) {
        let mut last = NONE;
        for (k, &s) in set.iter().enumerate().take(self.w) {
            let mut word = if slot == ANY { s } else { s & self.masks[slot * self.w + k] };
            while word != 0 {
                let x = k * 64 + word.trailing_zeros() as usize;
                word &= word - 1;
                if self.thread[x] != last {
                    last = self.thread[x];
                    or_into(out, rel.row(x));
                }
            }
        }
    }
}
