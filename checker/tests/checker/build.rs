//! Building programs in code with the AST types.

use tcfuzz_litmus::*;

pub fn stmt(i: Instr) -> Stmt {
    Stmt { span: Span::default(), kind: StmtKind::Instr(i) }
}

pub fn label(l: &str) -> Stmt {
    Stmt { span: Span::default(), kind: StmtKind::Label(l.to_string()) }
}

pub fn addr(x: &str) -> Addr {
    Addr { name: x.to_string(), bracketed: false }
}

pub fn reg(r: &str) -> Operand {
    Operand::Reg(r.to_string())
}

pub fn imm(v: i64) -> Operand {
    Operand::Imm(v)
}

pub fn ld(sem: Option<Sem>, scope: Option<Scope>, dst: &str, x: &str) -> Stmt {
    stmt(Instr::Ld(Load { proxy: AccessProxy::Generic, sem, scope, space: None, ty: None, dst: dst.to_string(), addr: addr(x) }))
}

pub fn st(sem: Option<Sem>, scope: Option<Scope>, x: &str, v: Operand) -> Stmt {
    stmt(Instr::St(Store { proxy: AccessProxy::Generic, sem, scope, space: None, ty: None, addr: addr(x), src: v }))
}

pub fn atom(sem: Option<Sem>, scope: Option<Scope>, op: AtomOp, dst: &str, x: &str, a: Operand, b: Option<Operand>) -> Stmt {
    stmt(Instr::Atom(Atomic { sem, scope, space: None, op, ty: None, dst: dst.to_string(), addr: addr(x), a, b }))
}

pub fn fence_sc(scope: Scope) -> Stmt {
    stmt(Instr::Fence(Fence::Sc(scope)))
}

pub fn proxy_ld(proxy: AccessProxy, dst: &str, x: &str) -> Stmt {
    stmt(Instr::Ld(Load { proxy, sem: None, scope: None, space: None, ty: None, dst: dst.to_string(), addr: addr(x) }))
}

pub fn alias(name: &str, proxy: AliasProxy, target: &str) -> Location {
    Location { name: name.to_string(), kind: LocationKind::Alias { proxy, target: target.to_string() }, init: None, span: Span::default() }
}

pub fn bar_sync(id: i64) -> Stmt {
    stmt(Instr::Barrier(Barrier::Sync { form: BarForm { long: false, cta: true, aligned: false }, operands: vec![imm(id)] }))
}

pub fn fence_acq_rel(scope: Scope) -> Stmt {
    stmt(Instr::Fence(Fence::AcqRel(scope)))
}

/// A PTX program; thread `i` runs on CTA `ctas[i]` (or CTA `i` when `ctas` is empty) of GPU 0.
pub fn program(name: &str, locs: &[(&str, i64)], threads: Vec<Vec<Stmt>>, ctas: &[u32], cond: Condition) -> Program {
    Program {
        comments: Vec::new(),
        arch: Arch::Ptx,
        name: name.to_string(),
        docs: Vec::new(),
        locations: locs
            .iter()
            .map(|(n, v)| Location { name: n.to_string(), kind: LocationKind::Global, init: Some(Value::Int(*v)), span: Span::default() })
            .collect(),
        reg_inits: Vec::new(),
        threads: threads
            .into_iter()
            .enumerate()
            .map(|(i, body)| Thread {
                name: format!("P{i}"),
                placement: Placement::Ptx { gpu: 0, cluster: None, cta: ctas.get(i).copied().unwrap_or(i as u32), warp: None },
                body,
                span: Span::default(),
            })
            .collect(),
        condition: cond,
    }
}

pub fn exists_true() -> Condition {
    Condition { quantifier: Quantifier::Exists, prop: Prop::True, span: Span::default() }
}

/// `exists (t1:r1 == v1 /\ t2:r2 == v2 /\ ...)`.
pub fn exists_regs(q: Quantifier, eqs: &[(&str, &str, i64)]) -> Condition {
    let mut prop = Prop::True;
    for (i, (t, r, v)) in eqs.iter().enumerate() {
        let atom = Prop::Atom(Cmp {
            lhs: Term::Reg { thread: t.to_string(), reg: r.to_string() },
            eq: true,
            rhs: Term::Const(Value::Int(*v)),
            span: Span::default(),
        });
        prop = if i == 0 { atom } else { Prop::And(Box::new(prop), Box::new(atom)) };
    }
    Condition { quantifier: q, prop, span: Span::default() }
}

/// A phrase of the caveat naming rmw holes (`explore::trust`'s `rmw_hole_possible`).
pub const RMW_HOLE_CAVEAT: &str = "a cas or another atomic rmw that a revisit removed";

/// Whether every caveat of a verdict is the one naming rmw holes ([`RMW_HOLE_CAVEAT`]): an
/// over-approximation that names many programs the explorer is exact on, where a test still
/// asserts explorer = oracle.
pub fn only_rmw_hole_caveats(caveats: &[String]) -> bool {
    caveats.iter().all(|c| c.contains(RMW_HOLE_CAVEAT))
}
