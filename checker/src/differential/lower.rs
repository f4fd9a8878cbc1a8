//! Lowering of Tile IR programs to PTX programs (DESIGN §3.4), rule by rule.
//!
//! The Tile IR memory model is a strict weakening of PTX's (Tile IR spec §7.11), so a lowering may
//! only strengthen: every outcome the lowered program allows must be allowed by the Tile IR
//! program, and a race-free Tile IR program must lower to a race-free PTX program. The rules:
//!
//! 1. **Threads.** Tile-block thread `Pi@tlb k, dev d` → PTX thread `Pi@cta k,gpu d` (one PTX
//!    thread per tile block; tile blocks are CTAs). PTX threads of a mixed program stay as they are.
//! 2. **Locations.** A tile `x = [v0, v1, ...]` → scalar global locations `x_0 = v0; x_1 = v1; ...`.
//!    A one-element tile `x = [v]` or a scalar `x = v` → `x_0 = v`.
//! 3. **Element expansion** (spec §7.1): a tile load, store or atomic touching elements `e1..em`
//!    → `m` scalar PTX accesses in that order. Tile IR leaves them unordered; PTX program order
//!    orders them, which is stronger.
//! 4. **Orderings** (spec §7.3): `weak` → `.weak` (no scope); `relaxed` → `.relaxed`; `acquire` →
//!    `ld.acquire` / `atom.acquire`; `release` → `st.release` / `atom.release`; `acq_rel` →
//!    `atom.acq_rel`.
//! 5. **Scopes** (spec §7.2): `tile_block` → `.cta`, `device` → `.gpu`, `sys` → `.sys`.
//! 6. **Tokens** (spec §7.5): dropped. Token order only orders operations of one tile block, and
//!    PTX program order already orders every pair of them (rule 3).
//! 7. **Registers.** A tile register `v` loaded from `m` elements → PTX registers `v_0 .. v_(m-1)`;
//!    a store of register `v` writes `v_i` to its i-th element. An initial value `Pt:v = [a, b]`
//!    of a tile block's register → `Pt:v_0 = a; Pt:v_1 = b` (a scalar `a` → `Pt:v_0 = a`); those
//!    of PTX threads stay as they are.
//! 8. **Condition.** `t:v == [a, b]` → `Pt:v_0 == a /\ Pt:v_1 == b`; `x == [a, b]` → `x_0 == a /\
//!    x_1 == b`; `x[i]` → `x_i`; `!=` is the negation of the element-wise `==`.
//!
//! Not lowered: Tile IR atomics with a register operand of a different length than the access.

use tcfuzz_litmus::*;
use thiserror::Error;

#[derive(Debug, Error, PartialEq, Eq)]
pub enum LowerError {
    #[error("{span}: {message}")]
    Unsupported { message: String, span: Span },
}

fn unsupported(message: impl Into<String>, span: Span) -> LowerError {
    LowerError::Unsupported { message: message.into(), span }
}

/// The PTX name of element `i` of tile location or register `name`.
pub fn element_name(name: &str, i: usize) -> String {
    format!("{name}_{i}")
}

/// Lowers a program with Tile IR tile-block threads to a PTX program (rules in the module docs).
/// A program without tile-block threads has nothing to lower: an error.
pub fn lower_tile_ir(p: &Program) -> Result<Program, LowerError> {
    let is_tile = |t: &Thread| matches!(t.placement, Placement::TileBlock { .. });
    if !p.threads.iter().any(is_tile) {
        return Err(unsupported("the program has no Tile IR tile-block threads: there is nothing to lower", Span::default()));
    }
    let mut tiles: Vec<(String, usize)> = Vec::new();
    let mut locations = Vec::new();
    // Scalars that tile operations access are one-element tiles (rule 2).
    let tile_accessed = |name: &str| {
        p.threads.iter().flat_map(|t| &t.body).any(|s| match &s.kind {
            StmtKind::Instr(Instr::Tile(TileOp::Load { addr, .. } | TileOp::Store { addr, .. } | TileOp::Atomic { addr, .. })) => {
                addr.name == name
            }
            _ => false,
        })
    };
    for l in &p.locations {
        let scalar = match &l.init {
            None => Some(0),
            Some(Value::Int(v)) => Some(*v),
            Some(Value::Tile(_)) => None,
        };
        match (&l.kind, &l.init) {
            (LocationKind::Global, _) if scalar.is_some() && tile_accessed(&l.name) => {
                tiles.push((l.name.clone(), 1));
                locations.push(Location {
                    name: element_name(&l.name, 0),
                    kind: LocationKind::Global,
                    init: Some(Value::Int(scalar.unwrap_or(0))),
                    span: l.span,
                });
            }
            (LocationKind::Global, Some(Value::Tile(vs))) => {
                tiles.push((l.name.clone(), vs.len()));
                for (i, v) in vs.iter().enumerate() {
                    locations.push(Location {
                        name: element_name(&l.name, i),
                        kind: LocationKind::Global,
                        init: Some(Value::Int(*v)),
                        span: l.span,
                    });
                }
            }
            _ => locations.push(l.clone()),
        }
    }
    let tile_len = |name: &str| tiles.iter().find(|(n, _)| n == name).map(|(_, len)| *len);
    // Register lengths per thread, for the condition.
    let mut reg_lens: Vec<(String, String, usize)> = Vec::new();
    let mut threads = Vec::new();
    for t in &p.threads {
        let Placement::TileBlock { dev, tlb } = t.placement else {
            threads.push(t.clone());
            continue;
        };
        let mut body = Vec::new();
        for s in &t.body {
            let StmtKind::Instr(Instr::Tile(op)) = &s.kind else {
                return Err(unsupported("only Tile IR operations can be lowered from a tile-block thread", s.span));
            };
            let mut emit = |i: Instr| body.push(Stmt { span: s.span, kind: StmtKind::Instr(i) });
            let elements = |addr: &TileAddr| -> Result<Vec<usize>, LowerError> {
                let len = tile_len(&addr.name).unwrap_or(1);
                Ok(match &addr.elements {
                    Some(es) => es.iter().map(|e| *e as usize).collect(),
                    None => (0..len).collect(),
                })
            };
            match op {
                TileOp::MakeToken { .. } | TileOp::JoinTokens { .. } => {}
                TileOp::Load { ordering, scope, dst, addr, .. } => {
                    let es = elements(addr)?;
                    reg_lens.push((t.name.clone(), dst.clone(), es.len()));
                    for (i, e) in es.iter().enumerate() {
                        let (sem, scope) = ptx_sem(*ordering, *scope);
                        emit(Instr::Ld(Load {
                            proxy: AccessProxy::Generic,
                            sem: Some(sem),
                            scope,
                            space: None,
                            ty: None,
                            dst: element_name(dst, i),
                            addr: Addr { name: element_name(&addr.name, *e), bracketed: false },
                        }));
                    }
                }
                TileOp::Store { ordering, scope, addr, value, .. } => {
                    let es = elements(addr)?;
                    for (i, e) in es.iter().enumerate() {
                        let (sem, scope) = ptx_sem(*ordering, *scope);
                        emit(Instr::St(Store {
                            proxy: AccessProxy::Generic,
                            sem: Some(sem),
                            scope,
                            space: None,
                            ty: None,
                            addr: Addr { name: element_name(&addr.name, *e), bracketed: false },
                            src: value_element(value, i),
                        }));
                    }
                }
                TileOp::Atomic { ordering, scope, op, dst, addr, value, .. } => {
                    let es = elements(addr)?;
                    reg_lens.push((t.name.clone(), dst.clone(), es.len()));
                    for (i, e) in es.iter().enumerate() {
                        let (sem, scope) = ptx_sem(*ordering, *scope);
                        emit(Instr::Atom(Atomic {
                            sem: Some(sem),
                            scope,
                            space: None,
                            op: *op,
                            ty: None,
                            dst: element_name(dst, i),
                            addr: Addr { name: element_name(&addr.name, *e), bracketed: false },
                            a: value_element(value, i),
                            b: None,
                        }));
                    }
                }
            }
        }
        threads.push(Thread {
            name: t.name.clone(),
            placement: Placement::Ptx { gpu: dev, cluster: None, cta: tlb, warp: None },
            body,
            span: t.span,
        });
    }
    let reg_len = |thread: &str, reg: &str| {
        reg_lens.iter().find(|(t, r, _)| (t == thread || *t == format!("P{thread}")) && r == reg).map(|(_, _, n)| *n)
    };
    let prop = lower_prop(&p.condition.prop, &tile_len, &reg_len)?;
    // Rule 7: initial register values.
    let tile_thread = |name: &str| p.threads.iter().any(|t| is_tile(t) && (t.name == name || t.name == format!("P{name}")));
    let mut reg_inits = Vec::new();
    for r in &p.reg_inits {
        match &r.value {
            _ if !tile_thread(&r.thread) => reg_inits.push(r.clone()),
            Value::Int(v) => reg_inits.push(RegInit { reg: element_name(&r.reg, 0), value: Value::Int(*v), ..r.clone() }),
            Value::Tile(vs) => {
                for (i, v) in vs.iter().enumerate() {
                    reg_inits.push(RegInit { reg: element_name(&r.reg, i), value: Value::Int(*v), ..r.clone() });
                }
            }
        }
    }
    Ok(Program {
        comments: Vec::new(),
        arch: Arch::Ptx,
        name: format!("{}-lowered", p.name),
        docs: vec![format!("lowered from the Tile IR program {}", p.name)],
        locations,
        reg_inits,
        threads,
        condition: Condition { quantifier: p.condition.quantifier, prop, span: p.condition.span },
    })
}

/// Rules 4 and 5: the PTX semantics and scope of a Tile IR ordering and scope.
fn ptx_sem(o: TileOrdering, s: Option<TileScope>) -> (Sem, Option<Scope>) {
    let sem = match o {
        TileOrdering::Weak => return (Sem::Weak, None),
        TileOrdering::Relaxed => Sem::Relaxed,
        TileOrdering::Acquire => Sem::Acquire,
        TileOrdering::Release => Sem::Release,
        TileOrdering::AcqRel => Sem::AcqRel,
    };
    let scope = s.map(|s| match s {
        TileScope::TileBlock => Scope::Cta,
        TileScope::Device => Scope::Gpu,
        TileScope::Sys => Scope::Sys,
    });
    (sem, scope)
}

fn value_element(v: &TileValue, i: usize) -> Operand {
    match v {
        TileValue::Tile(vs) => Operand::Imm(vs.get(i).copied().unwrap_or(0)),
        TileValue::Reg(r) => Operand::Reg(element_name(r, i)),
    }
}

/// Rule 8.
fn lower_prop(
    p: &Prop,
    tile_len: &dyn Fn(&str) -> Option<usize>,
    reg_len: &dyn Fn(&str, &str) -> Option<usize>,
) -> Result<Prop, LowerError> {
    Ok(match p {
        Prop::True => Prop::True,
        Prop::Not(a) => Prop::Not(Box::new(lower_prop(a, tile_len, reg_len)?)),
        Prop::And(a, b) => Prop::And(Box::new(lower_prop(a, tile_len, reg_len)?), Box::new(lower_prop(b, tile_len, reg_len)?)),
        Prop::Or(a, b) => Prop::Or(Box::new(lower_prop(a, tile_len, reg_len)?), Box::new(lower_prop(b, tile_len, reg_len)?)),
        Prop::Atom(c) => {
            let lhs = expand(&c.lhs, tile_len, reg_len);
            let rhs = expand(&c.rhs, tile_len, reg_len);
            let n = lhs.len().max(rhs.len());
            if lhs.len() != rhs.len() && lhs.len() != 1 && rhs.len() != 1 {
                return Err(unsupported(format!("the condition compares tiles of {} and {} elements", lhs.len(), rhs.len()), c.span));
            }
            let pick = |side: &Vec<Term>, i: usize| if side.len() == 1 { side[0].clone() } else { side[i].clone() };
            let mut conj: Option<Prop> = None;
            for i in 0..n {
                let atom = Prop::Atom(Cmp { lhs: pick(&lhs, i), eq: true, rhs: pick(&rhs, i), span: c.span });
                conj = Some(match conj {
                    None => atom,
                    Some(acc) => Prop::And(Box::new(acc), Box::new(atom)),
                });
            }
            let conj = conj.unwrap_or(Prop::True);
            if c.eq { conj } else { Prop::Not(Box::new(conj)) }
        }
    })
}

/// A condition term as its element terms.
fn expand(t: &Term, tile_len: &dyn Fn(&str) -> Option<usize>, reg_len: &dyn Fn(&str, &str) -> Option<usize>) -> Vec<Term> {
    let thread_name = |th: &str| if th.chars().all(|c| c.is_ascii_digit()) { format!("P{th}") } else { th.to_string() };
    match t {
        Term::Const(Value::Tile(vs)) => vs.iter().map(|v| Term::Const(Value::Int(*v))).collect(),
        Term::Const(Value::Int(v)) => vec![Term::Const(Value::Int(*v))],
        Term::Reg { thread, reg } => match reg_len(thread, reg) {
            Some(n) => (0..n).map(|i| Term::Reg { thread: thread_name(thread), reg: element_name(reg, i) }).collect(),
            None => vec![Term::Reg { thread: thread_name(thread), reg: reg.clone() }],
        },
        Term::Loc { name, element: Some(i) } => vec![Term::Loc { name: element_name(name, *i as usize), element: None }],
        Term::Loc { name, element: None } => match tile_len(name) {
            Some(n) => (0..n).map(|i| Term::Loc { name: element_name(name, i), element: None }).collect(),
            None => vec![t.clone()],
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scalars_accessed_by_tile_operations_are_one_element_tiles() {
        let src = "TileIR s\n{ x = 3; }\nP0@tlb 0, dev 0 {\n  r = ld.weak x;\n}\nexists (x == 3 /\\ 0:r == [3])\n";
        let lowered = lower_tile_ir(&parse(src).expect("valid Tile IR")).expect("lowers");
        let text = print(&lowered);
        assert!(text.contains("x_0 = 3;") && !text.contains("  x = 3;"), "{text}");
        assert!(text.contains("exists (x_0 == 3 /\\ P0:r_0 == 3)"), "{text}");
    }

    #[test]
    fn message_passing_lowers_element_by_element() {
        let src = "TileIR mp\n{ x = [0, 0]; f = [0]; }\nP0@tlb 0, dev 0 {\n  <t1> = st.relaxed.device x, [1, 2];\n  st.release.device f, [1], <t1>;\n}\nP1@tlb 1, dev 0 {\n  rf, <t2> = ld.acquire.device f;\n  rx = ld.relaxed.tile_block x[1, 0], <t2>;\n}\nexists (1:rf == [1] /\\ 1:rx != [2, 1])\n";
        let p = parse(src).expect("valid Tile IR");
        let lowered = lower_tile_ir(&p).expect("lowers");
        let text = print(&lowered);
        let expected = r#"PTX mp-lowered
"lowered from the Tile IR program mp"
{
  x_0 = 0;
  x_1 = 0;
  f_0 = 0;
}
 P0@cta 0,gpu 0        | P1@cta 1,gpu 0           ;
 st.relaxed.gpu x_0, 1 | ld.acquire.gpu rf_0, f_0 ;
 st.relaxed.gpu x_1, 2 | ld.relaxed.cta rx_0, x_1 ;
 st.release.gpu f_0, 1 | ld.relaxed.cta rx_1, x_0 ;
exists (P1:rf_0 == 1 /\ ~(P1:rx_0 == 2 /\ P1:rx_1 == 1))
"#;
        assert_eq!(text, expected);
        assert!(parse(&text).expect("lowered program parses as PTX").same_as(&lowered));
    }

    /// Issue 21 item 8: a PTX program has nothing to lower (it used to come back unchanged, its
    /// register initial values dropped, as "lowered from the Tile IR program").
    #[test]
    fn a_program_without_tile_blocks_is_refused() {
        let src = "PTX p\n{ x = 0; P0:r0 = 7; }\n P0@cta 0,gpu 0 ;\n st.weak x, r0 ;\nexists (x == 7)\n";
        let e = lower_tile_ir(&parse(src).expect("valid PTX")).expect_err("nothing to lower");
        assert_eq!(
            e,
            LowerError::Unsupported {
                message: "the program has no Tile IR tile-block threads: there is nothing to lower".into(),
                span: Span::default()
            }
        );
    }

    #[test]
    fn register_initial_values_are_lowered() {
        let src = "TileIR r\n{ x = [0, 0]; P0:v = [4, 5]; }\nP0@tlb 0, dev 0 {\n  st.weak x, v;\n}\nexists (x == [4, 5])\n";
        let lowered = lower_tile_ir(&parse(src).expect("valid Tile IR")).expect("lowers");
        let text = print(&lowered);
        assert!(text.contains("  P0:v_0 = 4;\n  P0:v_1 = 5;\n"), "{text}");
        assert!(text.contains(" st.weak x_0, v_0 ;\n st.weak x_1, v_1 ;"), "{text}");
    }
}
