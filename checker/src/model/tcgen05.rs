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
//!    is ordered after everything before the fence; after a `fence.proxy.async` it is ordered
//!    after the fence (the generic→async proxy fence of §9.7.16.6.5, same thread).
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

use crate::bitset::Relation;
use crate::event::{Label, Proxy, TcOp};

/// Per node, the index of the instruction it belongs to: consecutive events of one thread from
/// a `first`-marked tcgen05 event share it; every other event is its own instruction. Nodes are
/// numbered initial writes first, then each thread in program order (`graph::NodeIndex`).
pub fn instruction_ids(labels: &[Option<Label>], threads: &[Option<usize>]) -> Vec<usize> {
    let mut ids = Vec::with_capacity(labels.len());
    let mut next = 0;
    for (n, l) in labels.iter().enumerate() {
        let continues = n > 0 && threads[n].is_some() && threads[n] == threads[n - 1] && l.is_some_and(|l| l.tc.is_some_and(|t| !t.first));
        if !continues {
            next += 1;
        }
        ids.push(next);
    }
    ids
}

/// Program order without the pairs that involve an asynchronous event of another instruction.
pub fn restrict_program_order(po: &Relation, labels: &[Option<Label>], instr: &[usize]) -> Relation {
    let is_async = |n: usize| labels[n].is_some_and(|l| l.is_async());
    po.filter(|x, y| instr[x] == instr[y] || !(is_async(x) || is_async(y)))
}

/// One tcgen05 instruction of the graph.
struct Instr {
    nodes: Vec<usize>,
    op: TcOp,
    group: u8,
}

impl Instr {
    fn first(&self) -> usize {
        self.nodes[0]
    }
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

/// The `⇒` edges of the module docs. `po` is the full program order, `eo` execution order (see
/// rule 2), `obs` observation order (§8.9.2).
pub fn ordering(labels: &[Option<Label>], instr: &[usize], po: &Relation, eo: &Relation, obs: &Relation) -> Relation {
    let n = labels.len();
    let mut out = Relation::empty(n);
    let op_of = |x: usize| labels[x].and_then(|l| l.tc).map(|t| t.op);
    let mut ins: Vec<Instr> = Vec::new();
    for x in 0..n {
        let Some(tc) = labels[x].and_then(|l| l.tc) else { continue };
        match ins.last_mut() {
            Some(last) if instr[last.first()] == instr[x] => last.nodes.push(x),
            _ => ins.push(Instr { nodes: vec![x], op: tc.op, group: tc.group }),
        }
    }
    // The asynchronous data operations (not commits).
    let data: Vec<&Instr> = ins.iter().filter(|i| i.op.is_async()).collect();
    let nodes_with = |pred: &dyn Fn(TcOp) -> bool| -> Vec<usize> { (0..n).filter(|&x| op_of(x).is_some_and(pred)).collect() };
    let before_fences = nodes_with(&|o| matches!(o, TcOp::FenceBefore | TcOp::CommitIssue));
    let after_fences = nodes_with(&|o| o == TcOp::FenceAfter);
    let waits = |st: bool| nodes_with(&|o| o == if st { TcOp::WaitSt } else { TcOp::WaitLd });
    let (wait_ld, wait_st) = (waits(false), waits(true));
    let proxy_fences: Vec<usize> = (0..n)
        .filter(|&x| labels[x].is_some_and(|l| l.is_fence() && l.proxy == Proxy::Async && l.tc.is_none() && !l.completion_fence))
        .collect();
    let mut add = |from: &[usize], to: &[usize]| {
        for &a in from {
            for &b in to {
                if a != b {
                    out.add(a, b);
                }
            }
        }
    };
    // A before-fence `fb` reaches an after-fence `fa` in execution order (or program order).
    let reaches = |fb: usize, fa: usize| eo.contains(fb, fa) || po.contains(fb, fa);
    // Rule 2's bridge: from `e` through some before-fence to `fa`.
    let bridged = |e: usize, fa: usize| before_fences.iter().any(|&fb| (e == fb || po.contains(e, fb)) && reaches(fb, fa));
    for x in &data {
        for y in &data {
            if std::ptr::eq(*x, *y) {
                continue;
            }
            // Rules 1 and 2.
            if pipelined(x, y)
                && (po.contains(x.first(), y.first())
                    || after_fences.iter().any(|&fa| po.contains(fa, y.first()) && bridged(x.first(), fa)))
            {
                add(&x.nodes, &y.nodes);
            }
        }
    }
    for x in &data {
        // Rule 3: completion points, and rule 5: where completion is established.
        let mut established: Vec<usize> = Vec::new();
        match x.op {
            TcOp::Ld | TcOp::St => {
                let ws = if x.op == TcOp::Ld { &wait_ld } else { &wait_st };
                for &w in ws.iter().filter(|&&w| po.contains(x.first(), w)) {
                    add(&x.nodes, &[w]);
                    established.push(w);
                }
            }
            _ => {
                let commits = ins.iter().filter(|c| c.op == TcOp::CommitIssue && c.group == x.group && po.contains(x.first(), c.first()));
                for c in commits {
                    let arrive: Vec<usize> = c.nodes.iter().copied().filter(|&a| op_of(a) == Some(TcOp::CommitArrive)).collect();
                    add(&x.nodes, &arrive);
                    for &k in arrive.iter().filter(|&&k| labels[k].is_some_and(|l| l.is_write())) {
                        for r in obs.successors(k) {
                            // Rule 7: the read that observes the arrive comes after X.
                            add(&x.nodes, &[r]);
                            established.extend(after_fences.iter().copied().filter(|&fa| po.contains(r, fa)));
                        }
                    }
                }
            }
        }
        for y in &data {
            if std::ptr::eq(*x, *y) {
                continue;
            }
            let ordered = after_fences.iter().any(|&fa| {
                po.contains(fa, y.first())
                    && established.iter().any(|&e| e == fa || po.contains(e, fa) && after_fences.contains(&e) || bridged(e, fa))
            });
            if ordered {
                add(&x.nodes, &y.nodes);
            }
        }
    }
    // Rule 6: commit arrives in issue order.
    let commits: Vec<&Instr> = ins.iter().filter(|c| c.op == TcOp::CommitIssue).collect();
    for a in &commits {
        for b in &commits {
            if po.contains(a.first(), b.first()) {
                let arrive =
                    |c: &Instr| -> Vec<usize> { c.nodes.iter().copied().filter(|&x| op_of(x) == Some(TcOp::CommitArrive)).collect() };
                add(&arrive(a), &arrive(b));
            }
        }
    }
    // Rules 3 (synchronous waits) and 4: events before an asynchronous operation in its thread.
    for y in &data {
        let from: Vec<usize> = wait_ld
            .iter()
            .chain(&wait_st)
            .chain(&after_fences)
            .chain(&proxy_fences)
            .copied()
            .filter(|&f| po.contains(f, y.first()))
            .collect();
        add(&from, &y.nodes);
    }
    out
}
