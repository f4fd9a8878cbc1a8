//! One-step simplifications, each tried on the current best program and kept when the predicate
//! still holds: until none applies. Every step moves down a well-founded order (scopes narrow
//! toward `.cta`, orderings weaken toward weak, constants toward 0 and 1, placements toward CTA 0
//! of GPU 0 with no cluster, the condition and the initial state lose parts), so the pass ends.

use tcfuzz_litmus::{
    Fence, Instr, Mbarrier, Operand, Placement, Program, Prop, Scope, Sem, StmtKind, TileOp, TileOrdering, TileScope, Value,
};

use tcfuzz_litmus::Tcgen05;

use super::Search;

/// Applies simplifications until none is accepted.
pub(crate) fn all(search: &mut Search<'_>, mut best: Program) -> Program {
    'restart: loop {
        for candidate in candidates(&best) {
            if search.exhausted() {
                return best;
            }
            if search.test(&candidate) {
                best = candidate;
                continue 'restart;
            }
        }
        return best;
    }
}

fn candidates(p: &Program) -> Vec<Program> {
    let mut out = Vec::new();
    // Placement: fewer CTAs, clusters, GPUs and warps.
    let ctas: Vec<u32> =
        p.threads.iter().filter_map(|t| if let Placement::Ptx { cta, .. } = t.placement { Some(cta) } else { None }).collect();
    for (ti, t) in p.threads.iter().enumerate() {
        if let Placement::Ptx { gpu, cluster, cta, warp } = t.placement {
            let mut moves = Vec::new();
            if warp.is_some() {
                moves.push(Placement::Ptx { gpu, cluster, cta, warp: None });
            }
            if cluster.is_some() {
                moves.push(Placement::Ptx { gpu, cluster: None, cta, warp });
            }
            if gpu != 0 {
                moves.push(Placement::Ptx { gpu: 0, cluster, cta, warp });
            }
            let mut smaller: Vec<u32> = ctas.iter().copied().filter(|&c| c < cta).collect();
            smaller.sort_unstable();
            smaller.dedup();
            moves.extend(smaller.into_iter().map(|c| Placement::Ptx { gpu, cluster, cta: c, warp }));
            for placement in moves {
                let mut q = p.clone();
                q.threads[ti].placement = placement;
                out.push(q);
            }
        }
    }
    // Instructions: narrower scopes, weaker orderings, smaller constants.
    for (ti, t) in p.threads.iter().enumerate() {
        for (si, s) in t.body.iter().enumerate() {
            if let StmtKind::Instr(i) = &s.kind {
                for v in instr_variants(i) {
                    let mut q = p.clone();
                    q.threads[ti].body[si].kind = StmtKind::Instr(v);
                    out.push(q);
                }
            }
        }
    }
    // Initial state: smaller initial values, fewer register initializations.
    for (li, l) in p.locations.iter().enumerate() {
        if let Some(Value::Int(v)) = l.init {
            for smaller in smaller_ints(v) {
                let mut q = p.clone();
                q.locations[li].init = Some(Value::Int(smaller));
                out.push(q);
            }
        }
    }
    for ri in 0..p.reg_inits.len() {
        let mut q = p.clone();
        q.reg_inits.remove(ri);
        out.push(q);
    }
    // Condition: fewer terms, down to none.
    let mut props = prop_variants(&p.condition.prop);
    if p.condition.prop != Prop::True {
        props.push(Prop::True);
    }
    for prop in props {
        let mut q = p.clone();
        q.condition.prop = prop;
        out.push(q);
    }
    out
}

fn smaller_ints(v: i64) -> Vec<i64> {
    [0, 1].into_iter().filter(|&c| c != v && (c == 0 || v.unsigned_abs() > 1)).collect()
}

/// Smaller replacements of a data operand: a register becomes 0, a constant 0 or 1.
fn operand_variants(o: &Operand) -> Vec<Operand> {
    match o {
        Operand::Reg(_) => vec![Operand::Imm(0)],
        Operand::Imm(v) => smaller_ints(*v).into_iter().map(Operand::Imm).collect(),
    }
}

/// PTX ISA §8.5: `.sys` ⊃ `.gpu` ⊃ `.cluster` ⊃ `.cta`.
fn narrower(s: Scope) -> Option<Scope> {
    match s {
        Scope::Sys => Some(Scope::Gpu),
        Scope::Gpu => Some(Scope::Cluster),
        Scope::Cluster => Some(Scope::Cta),
        Scope::Cta => None,
    }
}

/// Tile IR spec §7.2: `sys` ⊃ `device` ⊃ `tile_block`.
fn tile_narrower(s: TileScope) -> Option<TileScope> {
    match s {
        TileScope::Sys => Some(TileScope::Device),
        TileScope::Device => Some(TileScope::TileBlock),
        TileScope::TileBlock => None,
    }
}

/// Weaker semantics of an access (PTX ISA §8.4): acq_rel → acquire or release → relaxed; for a
/// load or store, relaxed/volatile → weak (`None` with no scope: §9.7.9.8, weak is the default).
fn weaker(sem: Option<Sem>, can_be_weak: bool) -> Vec<Option<Sem>> {
    match sem {
        Some(Sem::AcqRel) => vec![Some(Sem::Acquire), Some(Sem::Release)],
        Some(Sem::Acquire | Sem::Release) => vec![Some(Sem::Relaxed)],
        Some(Sem::Relaxed | Sem::Volatile) if can_be_weak => vec![None],
        _ => vec![],
    }
}

/// Tile IR spec §7.3, the same ladder.
fn tile_weaker(o: TileOrdering) -> Vec<TileOrdering> {
    match o {
        TileOrdering::AcqRel => vec![TileOrdering::Acquire, TileOrdering::Release],
        TileOrdering::Acquire | TileOrdering::Release => vec![TileOrdering::Relaxed],
        TileOrdering::Relaxed => vec![TileOrdering::Weak],
        TileOrdering::Weak => vec![],
    }
}

fn instr_variants(i: &Instr) -> Vec<Instr> {
    let mut out = Vec::new();
    let mut push = |f: &dyn Fn(&mut Instr)| {
        let mut j = i.clone();
        f(&mut j);
        out.push(j);
    };
    match i {
        Instr::Ld(l) => {
            if let Some(s) = l.scope.and_then(narrower) {
                push(&|j| {
                    if let Instr::Ld(l) = j {
                        l.scope = Some(s)
                    }
                });
            }
            for sem in weaker(l.sem, true) {
                push(&|j| {
                    if let Instr::Ld(l) = j {
                        l.sem = sem;
                        if sem.is_none() {
                            l.scope = None
                        }
                    }
                });
            }
        }
        Instr::St(st) => {
            if let Some(s) = st.scope.and_then(narrower) {
                push(&|j| {
                    if let Instr::St(st) = j {
                        st.scope = Some(s)
                    }
                });
            }
            for sem in weaker(st.sem, true) {
                push(&|j| {
                    if let Instr::St(st) = j {
                        st.sem = sem;
                        if sem.is_none() {
                            st.scope = None
                        }
                    }
                });
            }
            for o in operand_variants(&st.src) {
                push(&|j| {
                    if let Instr::St(st) = j {
                        st.src = o.clone()
                    }
                });
            }
        }
        Instr::Atom(a) => {
            if let Some(s) = a.scope.and_then(narrower) {
                push(&|j| {
                    if let Instr::Atom(a) = j {
                        a.scope = Some(s)
                    }
                });
            }
            for sem in weaker(a.sem, false) {
                push(&|j| {
                    if let Instr::Atom(a) = j {
                        a.sem = sem
                    }
                });
            }
            for o in operand_variants(&a.a) {
                push(&|j| {
                    if let Instr::Atom(a) = j {
                        a.a = o.clone()
                    }
                });
            }
            for o in a.b.iter().flat_map(operand_variants) {
                push(&|j| {
                    if let Instr::Atom(a) = j {
                        a.b = Some(o.clone())
                    }
                });
            }
        }
        Instr::Red(r) => {
            if let Some(s) = r.scope.and_then(narrower) {
                push(&|j| {
                    if let Instr::Red(r) = j {
                        r.scope = Some(s)
                    }
                });
            }
            for sem in weaker(r.sem, false) {
                push(&|j| {
                    if let Instr::Red(r) = j {
                        r.sem = sem
                    }
                });
            }
            for o in operand_variants(&r.a) {
                push(&|j| {
                    if let Instr::Red(r) = j {
                        r.a = o.clone()
                    }
                });
            }
        }
        Instr::Fence(f) => match *f {
            // PTX ISA §9.7.13.4: fence.sc is fence.acq_rel plus the Fence-SC order; membar is fence.sc.
            Fence::Sc(s) | Fence::Membar(s) => {
                push(&|j| *j = Instr::Fence(Fence::AcqRel(s)));
                if let Some(n) = narrower(s) {
                    push(&|j| *j = Instr::Fence(Fence::Sc(n)));
                }
            }
            Fence::AcqRel(s) => {
                if let Some(n) = narrower(s) {
                    push(&|j| *j = Instr::Fence(Fence::AcqRel(n)));
                }
            }
            Fence::Proxy(_) | Fence::ProxyAsync(_) => {}
        },
        Instr::Mbarrier(Mbarrier::Arrive(a)) => {
            if let Some(s) = a.scope.and_then(narrower) {
                push(&|j| {
                    if let Instr::Mbarrier(Mbarrier::Arrive(a)) = j {
                        a.scope = Some(s)
                    }
                });
            }
            if a.sem == Some(Sem::Release) {
                push(&|j| {
                    if let Instr::Mbarrier(Mbarrier::Arrive(a)) = j {
                        a.sem = Some(Sem::Relaxed)
                    }
                });
            }
        }
        Instr::Mbarrier(Mbarrier::Wait(w)) => {
            if let Some(s) = w.scope.and_then(narrower) {
                push(&|j| {
                    if let Instr::Mbarrier(Mbarrier::Wait(w)) = j {
                        w.scope = Some(s)
                    }
                });
            }
            if w.sem == Some(Sem::Acquire) {
                push(&|j| {
                    if let Instr::Mbarrier(Mbarrier::Wait(w)) = j {
                        w.sem = Some(Sem::Relaxed)
                    }
                });
            }
        }
        Instr::Tile(op) => {
            let (ordering, scope) = match op {
                TileOp::Load { ordering, scope, .. } | TileOp::Store { ordering, scope, .. } | TileOp::Atomic { ordering, scope, .. } => {
                    (*ordering, *scope)
                }
                TileOp::JoinTokens { deps, .. } => {
                    for k in 0..deps.len() {
                        push(&|j| {
                            if let Instr::Tile(TileOp::JoinTokens { deps, .. }) = j {
                                deps.remove(k);
                            }
                        });
                    }
                    return out;
                }
                TileOp::MakeToken { .. } => return out,
            };
            let set = |j: &mut Instr, o: Option<TileOrdering>, s: Option<Option<TileScope>>| {
                if let Instr::Tile(
                    TileOp::Load { ordering, scope, .. } | TileOp::Store { ordering, scope, .. } | TileOp::Atomic { ordering, scope, .. },
                ) = j
                {
                    if let Some(o) = o {
                        *ordering = o;
                    }
                    if let Some(s) = s {
                        *scope = s;
                    }
                }
            };
            // Tile IR spec §7.5: tokens are the only order within a tile block; dropping a
            // dependency or an unused result token is a weaker program.
            let (token, deps) = match op {
                TileOp::Load { token, deps, .. } | TileOp::Store { token, deps, .. } | TileOp::Atomic { token, deps, .. } => (token, deps),
                _ => unreachable!("[tcfuzz internal bug] make_token and join_tokens returned above"),
            };
            for k in 0..deps.len() {
                push(&|j| {
                    if let Instr::Tile(TileOp::Load { deps, .. } | TileOp::Store { deps, .. } | TileOp::Atomic { deps, .. }) = j {
                        deps.remove(k);
                    }
                });
            }
            if token.is_some() {
                push(&|j| {
                    if let Instr::Tile(TileOp::Load { token, .. } | TileOp::Store { token, .. } | TileOp::Atomic { token, .. }) = j {
                        *token = None;
                    }
                });
            }
            if let Some(n) = scope.and_then(tile_narrower) {
                push(&|j| set(j, None, Some(Some(n))));
            }
            for o in tile_weaker(ordering) {
                // Tile IR spec §7.3: a weak access takes no scope.
                let s = (o == TileOrdering::Weak).then_some(None);
                push(&|j| set(j, Some(o), s));
            }
        }
        Instr::Tcgen05(Tcgen05::St { src, .. }) => {
            for o in operand_variants(src) {
                push(&|j| {
                    if let Instr::Tcgen05(Tcgen05::St { src, .. }) = j {
                        *src = o.clone()
                    }
                });
            }
        }
        Instr::Mov { src, .. } => {
            for o in operand_variants(src) {
                push(&|j| {
                    if let Instr::Mov { src, .. } = j {
                        *src = o.clone()
                    }
                });
            }
        }
        Instr::Add { a, b, .. } => {
            for o in operand_variants(a) {
                push(&|j| {
                    if let Instr::Add { a, .. } = j {
                        *a = o.clone()
                    }
                });
            }
            for o in operand_variants(b) {
                push(&|j| {
                    if let Instr::Add { b, .. } = j {
                        *b = o.clone()
                    }
                });
            }
        }
        Instr::Branch { a, b, .. } | Instr::Assume { a, b, .. } => {
            for o in operand_variants(a) {
                push(&|j| {
                    if let Instr::Branch { a, .. } | Instr::Assume { a, .. } = j {
                        *a = o.clone()
                    }
                });
            }
            for o in operand_variants(b) {
                push(&|j| {
                    if let Instr::Branch { b, .. } | Instr::Assume { b, .. } = j {
                        *b = o.clone()
                    }
                });
            }
        }
        _ => {}
    }
    out
}

/// The proposition with one `/\` or `\/` replaced by one of its sides, or one `~` removed.
fn prop_variants(p: &Prop) -> Vec<Prop> {
    let mut out = Vec::new();
    match p {
        Prop::True | Prop::Atom(_) => {}
        Prop::Not(a) => {
            out.extend(prop_variants(a).into_iter().map(|v| Prop::Not(Box::new(v))));
        }
        Prop::And(a, b) | Prop::Or(a, b) => {
            out.push((**a).clone());
            out.push((**b).clone());
            let rebuild = |x: Prop, y: Prop| {
                if matches!(p, Prop::And(..)) { Prop::And(Box::new(x), Box::new(y)) } else { Prop::Or(Box::new(x), Box::new(y)) }
            };
            out.extend(prop_variants(a).into_iter().map(|v| rebuild(v, (**b).clone())));
            out.extend(prop_variants(b).into_iter().map(|v| rebuild((**a).clone(), v)));
        }
    }
    out
}
