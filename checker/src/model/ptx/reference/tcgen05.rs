//! The `tcgen05` ordering edges as first written ([`crate::model::tcgen05`] has the rules,
//! numbered as below, each with its spec section): per-pair tests over freshly built node lists.
//! Test-only, for [`super`]: the reference the row-by-row formulation in
//! [`crate::model::tcgen05`] is checked against.

use crate::exec::bitset::Relation;
use crate::program::label::{Label, TcOp};

/// Per node, the index of the instruction it belongs to: consecutive events of one thread from
/// a `first`-marked tcgen05 event share it; every other event is its own instruction. Nodes are
/// numbered initial writes first, then each thread in program order (`graph::NodeIndex`).
pub(super) fn instruction_ids(labels: &[Option<Label>], threads: &[Option<usize>]) -> Vec<usize> {
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
pub(super) fn restrict_program_order(po: &Relation, labels: &[Option<Label>], instr: &[usize]) -> Relation {
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

/// The `⇒` edges of [`crate::model::tcgen05`]'s docs. `po` is the full program order, `eo` execution order (see
/// rule 2), `obs` observation order (§8.9.2).
pub(super) fn ordering(labels: &[Option<Label>], instr: &[usize], po: &Relation, eo: &Relation, obs: &Relation) -> Relation {
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
        let from: Vec<usize> =
            wait_ld.iter().chain(&wait_st).chain(&after_fences).copied().filter(|&f| po.contains(f, y.first())).collect();
        add(&from, &y.nodes);
    }
    out
}
