//! Small constructors for the program IR, so that the generators read like the programs they
//! build. Spans are `Span::default()`: a program built in code.

use tcfuzz_litmus::{
    AccessProxy, Addr, Arch, AtomOp, Atomic, Condition, Instr, Load, Location, LocationKind, Operand, Placement, Program, Prop, Quantifier,
    Scope, Sem, Span, Stmt, StmtKind, Store, Thread, Value,
};

pub fn instr(i: Instr) -> Stmt {
    Stmt { span: Span::default(), kind: StmtKind::Instr(i) }
}

pub fn label(l: &str) -> Stmt {
    Stmt { span: Span::default(), kind: StmtKind::Label(l.to_string()) }
}

/// A location operand written `x`.
pub fn addr(x: &str) -> Addr {
    Addr { name: x.to_string(), bracketed: false }
}

/// A location operand written `[x]`.
pub fn bracketed(x: &str) -> Addr {
    Addr { name: x.to_string(), bracketed: true }
}

pub fn reg(r: &str) -> Operand {
    Operand::Reg(r.to_string())
}

pub fn imm(v: i64) -> Operand {
    Operand::Imm(v)
}

/// `ld{.sem}{.scope} dst, x` (generic proxy).
pub fn ld(sem: Option<Sem>, scope: Option<Scope>, dst: &str, x: &str) -> Stmt {
    instr(Instr::Ld(Load { proxy: AccessProxy::Generic, sem, scope, space: None, ty: None, dst: dst.to_string(), addr: addr(x) }))
}

/// `st{.sem}{.scope} x, v` (generic proxy).
pub fn st(sem: Option<Sem>, scope: Option<Scope>, x: &str, v: Operand) -> Stmt {
    instr(Instr::St(Store { proxy: AccessProxy::Generic, sem, scope, space: None, ty: None, addr: addr(x), src: v }))
}

/// `atom{.sem}{.scope}.op dst, x, a{, b}`.
pub fn atom(sem: Option<Sem>, scope: Option<Scope>, op: AtomOp, dst: &str, x: &str, a: Operand, b: Option<Operand>) -> Stmt {
    instr(Instr::Atom(Atomic { sem, scope, space: None, op, ty: None, dst: dst.to_string(), addr: addr(x), a, b }))
}

/// A global location (or tile of them) with its initial value.
pub fn global(name: &str, init: Value) -> Location {
    Location { name: name.to_string(), kind: LocationKind::Global, init: Some(init), span: Span::default() }
}

pub fn thread(index: usize, placement: Placement, body: Vec<Stmt>) -> Thread {
    Thread { name: format!("P{index}"), placement, body, span: Span::default() }
}

/// A PTX thread's placement on GPU 0.
pub fn ptx_placement(cta: u32, cluster: Option<u32>) -> Placement {
    Placement::Ptx { gpu: 0, cluster, cta, warp: None }
}

pub fn exists(prop: Prop) -> Condition {
    Condition { quantifier: Quantifier::Exists, prop, span: Span::default() }
}

/// `a /\ b /\ ...`, left-nested as the parser builds it; `true` for none.
pub fn and_all(props: Vec<Prop>) -> Prop {
    props.into_iter().reduce(|a, b| Prop::And(Box::new(a), Box::new(b))).unwrap_or(Prop::True)
}

pub fn program(arch: Arch, name: &str, locations: Vec<Location>, threads: Vec<Thread>, condition: Condition) -> Program {
    Program { comments: Vec::new(), arch, name: name.to_string(), docs: Vec::new(), locations, reg_inits: Vec::new(), threads, condition }
}
