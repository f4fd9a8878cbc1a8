//! Removal passes: delta debugging over threads, locations and instructions.
//!
//! ddmin here is the complement-removal form: split the units into `n` chunks, try the program
//! without each chunk; on success keep the smaller program and coarsen (`n - 1`), otherwise
//! refine (`2n`) until chunks are single units. Its last step, at single units, is what makes
//! the result 1-minimal with respect to that kind of unit.

use std::collections::HashSet;

use tcfuzz_litmus::{Cmp, Instr, Mbarrier, Program, Prop, Stmt, StmtKind, Tcgen05, Term, TileOp};

use super::Search;

/// ddmin over `units`: `build(kept)` makes the candidate that keeps only those units. Returns the
/// best program (the one for the final kept set).
fn ddmin<U: Clone>(search: &mut Search<'_>, best: Program, mut units: Vec<U>, build: impl Fn(&[U]) -> Program) -> Program {
    let mut best = best;
    let mut n = 2usize;
    while !units.is_empty() && !search.exhausted() {
        let chunk = units.len().div_ceil(n);
        let mut reduced = false;
        let mut start = 0;
        while start < units.len() {
            let end = (start + chunk).min(units.len());
            let kept: Vec<U> = units[..start].iter().chain(&units[end..]).cloned().collect();
            let candidate = build(&kept);
            if search.test(&candidate) {
                units = kept;
                best = candidate;
                n = n.saturating_sub(1).max(2);
                reduced = true;
                break;
            }
            start = end;
        }
        if !reduced {
            if chunk == 1 {
                break;
            }
            n = (n * 2).min(units.len());
        }
    }
    best
}

/// Removes threads (and their register initializations and condition terms).
pub(crate) fn threads(search: &mut Search<'_>, best: Program) -> Program {
    let base = best.clone();
    let units: Vec<usize> = (0..base.threads.len()).collect();
    ddmin(search, best, units, |kept| {
        let mut p = base.clone();
        let keep: HashSet<usize> = kept.iter().copied().collect();
        let gone: HashSet<String> =
            base.threads.iter().enumerate().filter(|(i, _)| !keep.contains(i)).map(|(_, t)| t.name.clone()).collect();
        p.threads = base.threads.iter().enumerate().filter(|(i, _)| keep.contains(i)).map(|(_, t)| t.clone()).collect();
        p.reg_inits.retain(|r| !gone.contains(&r.thread));
        p.condition.prop = prune(&p.condition.prop, &|c| terms(c).any(|t| matches!(t, Term::Reg { thread, .. } if gone.contains(thread))));
        p
    })
}

/// Removes locations, each with every instruction and condition term that names it.
pub(crate) fn locations(search: &mut Search<'_>, best: Program) -> Program {
    let base = best.clone();
    let mut names: Vec<String> = base.locations.iter().map(|l| l.name.clone()).collect();
    for i in instrs(&base) {
        for n in mentions(i) {
            if !names.iter().any(|x| x == n) {
                names.push(n.to_string());
            }
        }
    }
    ddmin(search, best, names, |kept| {
        let keep: HashSet<&str> = kept.iter().map(String::as_str).collect();
        let mut p = base.clone();
        p.locations.retain(|l| keep.contains(l.name.as_str()));
        for t in &mut p.threads {
            t.body.retain(|s| match &s.kind {
                StmtKind::Instr(i) => mentions(i).iter().all(|n| keep.contains(n)),
                StmtKind::Label(_) => true,
            });
        }
        drop_unused_labels(&mut p);
        p.condition.prop =
            prune(&p.condition.prop, &|c| terms(c).any(|t| matches!(t, Term::Loc { name, .. } if !keep.contains(name.as_str()))));
        p
    })
}

/// Removes instructions (labels no branch names any more go with them).
pub(crate) fn instructions(search: &mut Search<'_>, best: Program) -> Program {
    let base = best.clone();
    let units: Vec<(usize, usize)> = base
        .threads
        .iter()
        .enumerate()
        .flat_map(|(ti, t)| t.body.iter().enumerate().filter(|(_, s)| matches!(s.kind, StmtKind::Instr(_))).map(move |(si, _)| (ti, si)))
        .collect();
    ddmin(search, best, units, |kept| {
        let keep: HashSet<(usize, usize)> = kept.iter().copied().collect();
        let mut p = base.clone();
        for (ti, t) in p.threads.iter_mut().enumerate() {
            let body: Vec<Stmt> = std::mem::take(&mut t.body);
            t.body = body
                .into_iter()
                .enumerate()
                .filter(|(si, s)| matches!(s.kind, StmtKind::Label(_)) || keep.contains(&(ti, *si)))
                .map(|(_, s)| s)
                .collect();
        }
        drop_unused_labels(&mut p);
        p
    })
}

pub(crate) fn instrs(p: &Program) -> impl Iterator<Item = &Instr> {
    p.threads.iter().flat_map(|t| &t.body).filter_map(|s| match &s.kind {
        StmtKind::Instr(i) => Some(i),
        StmtKind::Label(_) => None,
    })
}

/// Every location (memory, mbarrier, TMEM region) an instruction names.
pub(crate) fn mentions(i: &Instr) -> Vec<&str> {
    match i {
        Instr::Ld(l) => vec![&l.addr.name],
        Instr::St(s) => vec![&s.addr.name],
        Instr::Atom(a) => vec![&a.addr.name],
        Instr::Red(r) => vec![&r.addr.name],
        Instr::Mbarrier(m) => match m {
            Mbarrier::Init { addr, .. } | Mbarrier::ExpectTx { addr, .. } => vec![&addr.name],
            Mbarrier::Arrive(a) => vec![&a.addr.name],
            Mbarrier::Wait(w) => vec![&w.addr.name],
        },
        Instr::CpAsyncBulk(c) => vec![&c.dst.name, &c.src.name, &c.mbar.name],
        Instr::Tcgen05(t) => match t {
            Tcgen05::Alloc { slot, .. } => vec![&slot.name],
            Tcgen05::Dealloc { region, .. } => region.iter().map(String::as_str).collect(),
            Tcgen05::Mma { d, a, b, .. } => vec![&d.name, &a.name, &b.name],
            Tcgen05::Cp { d, src, .. } => vec![&d.name, &src.name],
            Tcgen05::Shift { d, .. } => vec![&d.name],
            Tcgen05::Ld { src, .. } => vec![&src.name],
            Tcgen05::St { dst, .. } => vec![&dst.name],
            Tcgen05::Commit { mbar, .. } => vec![&mbar.name],
            Tcgen05::RelinquishAllocPermit { .. } | Tcgen05::Wait { .. } | Tcgen05::Fence { .. } => vec![],
        },
        Instr::Tile(TileOp::Load { addr, .. } | TileOp::Store { addr, .. } | TileOp::Atomic { addr, .. }) => vec![&addr.name],
        _ => vec![],
    }
}

/// Drops labels that no branch of their thread targets.
fn drop_unused_labels(p: &mut Program) {
    for t in &mut p.threads {
        let targets: HashSet<String> = t
            .body
            .iter()
            .filter_map(|s| match &s.kind {
                StmtKind::Instr(Instr::Branch { target, .. } | Instr::Goto { target }) => Some(target.clone()),
                _ => None,
            })
            .collect();
        t.body.retain(|s| !matches!(&s.kind, StmtKind::Label(l) if !targets.contains(l)));
    }
}

fn terms(c: &Cmp) -> impl Iterator<Item = &Term> {
    [&c.lhs, &c.rhs].into_iter()
}

/// `prop` with every atom `drop` selects replaced by `true`, then simplified (`true /\ a` is `a`,
/// `true \/ a` is `true`).
pub(crate) fn prune(prop: &Prop, drop: &dyn Fn(&Cmp) -> bool) -> Prop {
    match prop {
        Prop::True => Prop::True,
        Prop::Atom(c) if drop(c) => Prop::True,
        Prop::Atom(c) => Prop::Atom(c.clone()),
        Prop::Not(a) => Prop::Not(Box::new(prune(a, drop))),
        Prop::And(a, b) => match (prune(a, drop), prune(b, drop)) {
            (Prop::True, x) | (x, Prop::True) => x,
            (x, y) => Prop::And(Box::new(x), Box::new(y)),
        },
        Prop::Or(a, b) => match (prune(a, drop), prune(b, drop)) {
            (Prop::True, _) | (_, Prop::True) => Prop::True,
            (x, y) => Prop::Or(Box::new(x), Box::new(y)),
        },
    }
}

/// Calls `f` on every term of the proposition.
pub(crate) fn map_terms(prop: &mut Prop, f: &mut dyn FnMut(&mut Term)) {
    match prop {
        Prop::True => {}
        Prop::Atom(c) => {
            f(&mut c.lhs);
            f(&mut c.rhs);
        }
        Prop::Not(a) => map_terms(a, f),
        Prop::And(a, b) | Prop::Or(a, b) => {
            map_terms(a, f);
            map_terms(b, f);
        }
    }
}
