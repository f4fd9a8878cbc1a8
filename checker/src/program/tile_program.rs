//! Compiling programs with Tile IR tile-block threads (Tile IR spec §7) into a
//! [`CompiledProgram`], beside the PTX compilation of [`crate::program`].
//!
//! - **Elements** (spec §7.1): a tile location `x = [a, b]` becomes one location per element,
//!   named `x[0]`, `x[1]`; a scalar `x = a` accessed by a tile operation is a one-element tile
//!   (`x[0]`), as the validator treats it. A tile register `v` loaded from `m` elements becomes the
//!   registers `v[0]` .. `v[m-1]`.
//! - **Operations** (§7.1, §7.6 "Read-modify-write order"): a tile load of `m` elements becomes `m`
//!   reads, a store `m` writes, an atomic RMW `m` read/write pairs (the pair of one element is an
//!   rmw pair). The events of a thread are produced in program order (the explorer's generation
//!   order); program order itself orders nothing in the `tileir` model.
//! - **Token order** (§7.5, §7.6 "Waits-for order"): every event gets the set of the thread's
//!   earlier events it is ordered after ([`TileInfo::waits_for`]), transitively closed: an
//!   operation depending on token `t` comes after every event of the operation that produced `t`
//!   and after everything that operation came after; `make_token` stands for no event and
//!   `join_tokens` for the union of its operands.
//! - **Orderings and scopes** (§7.2, §7.3): `weak` accesses are not strong; `relaxed`, `acquire`,
//!   `release`, `acq_rel` are strong with their scope; a scope is kept in the event's `Scope` as
//!   `tile_block` → `Cta`, `device` → `Gpu`, `sys` → `Sys`, and a tile block `tlb k, dev d` is
//!   placed like CTA `k` of GPU `d`, so that "the scope includes the tile block executing the other
//!   operation" (§7.4) is [`ThreadPlace::scope_includes`]. `acquire` marks reads, `release` writes,
//!   `acq_rel` both halves of an RMW accordingly.
//! - **Condition**: a comparison of tiles is element-wise (`1:v == [1, 2]` is `1:v[0] == 1 /\
//!   1:v[1] == 2`, a one-element side is compared with every element of the other), `!=` is the
//!   negation of the element-wise `==`, `x[i]` is one element.
//!
//! Not supported ([`CheckError::Unsupported`]): PTX threads in a Tile IR program (PTX
//! interoperability, §7.11), and non-global locations.

use std::collections::HashMap;

use tcfuzz_litmus::{
    ClusterId, Instr, LocationKind, Placement, Program, Prop, Scope, Span, StmtKind, Term, TileOp, TileOrdering, TileScope, TileValue,
    Value,
};

use crate::error::CheckError;
use crate::program::label::{EventKind, Label, LocId, Proxy};
use crate::program::{CProp, CTerm, CodeLine, CompiledProgram, LocInfo, MAX_EVENTS_PER_THREAD, Op, Opnd, ThreadCode, ThreadPlace};

/// What the `tileir` model needs beyond the code: token order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TileInfo {
    /// Per thread, per event index (in the order the thread produces its events), the bit set of
    /// the thread's earlier events it waits for (token order, transitively closed).
    pub waits_for: Vec<Vec<u64>>,
}

/// The name of element `i` of tile location or register `name`.
pub fn element(name: &str, i: usize) -> String {
    format!("{name}[{i}]")
}

/// The scope a Tile IR scope is kept as in an event label (see the module docs).
pub fn label_scope(s: TileScope) -> Scope {
    match s {
        TileScope::TileBlock => Scope::Cta,
        TileScope::Device => Scope::Gpu,
        TileScope::Sys => Scope::Sys,
    }
}

fn access_label(kind: EventKind, loc: LocId, ordering: TileOrdering, scope: Option<TileScope>, atomic: bool) -> Label {
    let strong = ordering != TileOrdering::Weak;
    let acquire = kind == EventKind::Read && matches!(ordering, TileOrdering::Acquire | TileOrdering::AcqRel);
    let release = kind == EventKind::Write && matches!(ordering, TileOrdering::Release | TileOrdering::AcqRel);
    Label {
        kind,
        loc,
        vloc: loc,
        proxy: Proxy::Generic,
        alias_fence: false,
        completion_fence: false,
        bulk_copy: 0,
        strong,
        scope: if strong { scope.map_or(Scope::Gpu, label_scope) } else { Scope::Sys },
        acquire,
        release,
        sc: false,
        atomic,
        rmw_write: atomic && kind == EventKind::Write,
        orders_thread: false,
        object: false,
        tc: None,
    }
}

struct Tiles {
    locations: Vec<LocInfo>,
    /// Per declared name, its element locations.
    elements: HashMap<String, Vec<LocId>>,
}

fn tiles(p: &Program) -> Result<Tiles, CheckError> {
    let mut t = Tiles { locations: Vec::new(), elements: HashMap::new() };
    for l in &p.locations {
        if l.kind != LocationKind::Global {
            return Err(CheckError::unsupported(format!("non-global location `{}` in a Tile IR program", l.name), l.span));
        }
        let values = match &l.init {
            None => vec![0],
            Some(Value::Int(v)) => vec![*v],
            Some(Value::Tile(vs)) => vs.clone(),
        };
        let mut ids = Vec::new();
        for (i, v) in values.iter().enumerate() {
            ids.push(t.locations.len() as LocId);
            t.locations.push(LocInfo { name: element(&l.name, i), init: *v, tmem: false });
        }
        t.elements.insert(l.name.clone(), ids);
    }
    Ok(t)
}

struct Regs<'a> {
    names: Vec<String>,
    init: Vec<i64>,
    program: &'a Program,
    thread: &'a str,
    index: usize,
}

impl Regs<'_> {
    /// Register `name[i]`, created (with its initial value, if the program gives one) on first use.
    fn reg(&mut self, name: &str, i: usize) -> usize {
        let full = element(name, i);
        if let Some(r) = self.names.iter().position(|n| *n == full) {
            return r;
        }
        let mut init = 0;
        for ri in &self.program.reg_inits {
            let same_thread = ri.thread == self.thread || ri.thread.trim_start_matches('P') == self.index.to_string();
            if same_thread && ri.reg == name {
                init = match &ri.value {
                    Value::Int(v) => *v,
                    Value::Tile(vs) => vs.get(i).copied().unwrap_or(0),
                };
            }
        }
        self.names.push(full);
        self.init.push(init);
        self.names.len() - 1
    }
}

/// Compiles a program whose header is `TileIR` (see the module docs).
pub fn compile(p: &Program) -> Result<CompiledProgram, CheckError> {
    let tiles = tiles(p)?;
    let mut threads = Vec::new();
    let mut places = Vec::new();
    let mut waits_for = Vec::new();
    for (ti, t) in p.threads.iter().enumerate() {
        let Placement::TileBlock { dev, tlb } = t.placement else {
            return Err(CheckError::unsupported("PTX thread in a Tile IR program (PTX interoperability, Tile IR spec §7.11)", t.span));
        };
        places.push(ThreadPlace { gpu: dev, cluster: ClusterId::OwnCta { gpu: dev, cta: tlb }, cta: tlb });
        let (code, masks) = compile_thread(p, ti, &tiles)?;
        threads.push(code);
        waits_for.push(masks);
    }
    let mut cp = CompiledProgram {
        name: p.name.clone(),
        locations: tiles.locations.clone(),
        threads,
        places,
        barrier_members: Vec::new(),
        barrier_dyn_members: Vec::new(),
        tmem_allocators: Vec::new(),
        mbarriers: Vec::new(),
        blocking_rendezvous: Vec::new(),
        quantifier: p.condition.quantifier,
        condition: CProp::True,
        observed: Vec::new(),
        tile: Some(TileInfo { waits_for }),
        porf_cycles: None,
    };
    // Registers the condition names get their slots first: a new register shifts the location slots.
    create_condition_regs(p, &mut cp, &tiles, &p.condition.prop)?;
    let mut observed = Vec::new();
    let condition = lower_prop(p, &mut cp, &tiles, &p.condition.prop, &mut observed)?;
    observed.sort_unstable();
    observed.dedup();
    cp.condition = condition;
    cp.observed = observed;
    crate::program::ordering_rmws::mark_ordering_rmws(&mut cp);
    Ok(cp)
}

fn compile_thread(p: &Program, ti: usize, tiles: &Tiles) -> Result<(ThreadCode, Vec<u64>), CheckError> {
    let t = &p.threads[ti];
    let mut regs = Regs { names: Vec::new(), init: Vec::new(), program: p, thread: &t.name, index: ti };
    let mut code = Vec::new();
    let mut masks: Vec<u64> = Vec::new();
    let mut tokens: HashMap<&str, u64> = HashMap::new();
    for s in &t.body {
        let span = s.span;
        let op = match &s.kind {
            StmtKind::Instr(Instr::Tile(op)) => op,
            StmtKind::Instr(_) => return Err(CheckError::bad("only Tile IR operations may appear in a tile-block thread", span)),
            StmtKind::Label(_) => return Err(CheckError::unsupported("label in a tile-block thread", span)),
        };
        let after = |deps: &[String]| -> Result<u64, CheckError> {
            deps.iter().try_fold(0u64, |acc, d| {
                tokens
                    .get(d.as_str())
                    .map(|m| acc | m)
                    .ok_or_else(|| CheckError::bad(format!("token `<{d}>` is used before it exists"), span))
            })
        };
        let elements = |name: &str, list: &Option<Vec<u32>>| -> Result<Vec<LocId>, CheckError> {
            let all = tiles.elements.get(name).ok_or_else(|| CheckError::bad(format!("tile `{name}` is not declared"), span))?;
            match list {
                None => Ok(all.clone()),
                Some(es) => es
                    .iter()
                    .map(|&e| {
                        all.get(e as usize).copied().ok_or_else(|| CheckError::bad(format!("element {e} of `{name}` does not exist"), span))
                    })
                    .collect(),
            }
        };
        let first = masks.len();
        let (token, preds) = match op {
            TileOp::MakeToken { token } => {
                tokens.insert(token, 0);
                continue;
            }
            TileOp::JoinTokens { token, deps } => {
                let m = after(deps)?;
                tokens.insert(token, m);
                continue;
            }
            TileOp::Load { ordering, scope, dst, token, addr, deps } => {
                let preds = after(deps)?;
                for (i, loc) in elements(&addr.name, &addr.elements)?.into_iter().enumerate() {
                    let label = access_label(EventKind::Read, loc, *ordering, *scope, false);
                    code.push(CodeLine { op: Op::Load { dst: Some(regs.reg(dst, i)), label }, span });
                    masks.push(preds);
                }
                (token, preds)
            }
            TileOp::Store { ordering, scope, token, addr, value, deps } => {
                let preds = after(deps)?;
                for (i, loc) in elements(&addr.name, &addr.elements)?.into_iter().enumerate() {
                    let label = access_label(EventKind::Write, loc, *ordering, *scope, false);
                    code.push(CodeLine { op: Op::Store { src: value_opnd(value, i, &mut regs), label }, span });
                    masks.push(preds);
                }
                (token, preds)
            }
            TileOp::Atomic { ordering, scope, op, dst, token, addr, value, deps } => {
                let preds = after(deps)?;
                if *ordering == TileOrdering::Weak {
                    return Err(CheckError::bad("a Tile IR atomic needs an ordering other than weak", span));
                }
                for (i, loc) in elements(&addr.name, &addr.elements)?.into_iter().enumerate() {
                    let read = access_label(EventKind::Read, loc, *ordering, *scope, true);
                    let write = access_label(EventKind::Write, loc, *ordering, *scope, true);
                    let a = value_opnd(value, i, &mut regs);
                    code.push(CodeLine { op: Op::Rmw { dst: Some(regs.reg(dst, i)), op: *op, a, b: None, read, write }, span });
                    masks.push(preds);
                    masks.push(preds);
                }
                (token, preds)
            }
        };
        if masks.len() > MAX_EVENTS_PER_THREAD {
            return Err(CheckError::TooLarge(format!("thread {} performs more than {MAX_EVENTS_PER_THREAD} events", t.name)));
        }
        if let Some(tok) = token {
            let own = (first..masks.len()).fold(0u64, |m, i| m | (1 << i));
            tokens.insert(tok, preds | own);
        }
    }
    Ok((ThreadCode { name: t.name.clone(), code, reg_names: regs.names, reg_init: regs.init }, masks))
}

fn value_opnd(v: &TileValue, i: usize, regs: &mut Regs) -> Opnd {
    match v {
        TileValue::Tile(vs) => Opnd::Imm(vs.get(i).copied().unwrap_or(0)),
        TileValue::Reg(r) => Opnd::Reg(regs.reg(r, i)),
    }
}

fn find_thread(p: &Program, name: &str) -> Option<usize> {
    p.threads.iter().position(|t| t.name == name).or_else(|| {
        let idx: usize = name.trim_start_matches('P').parse().ok()?;
        (idx < p.threads.len()).then_some(idx)
    })
}

/// The slots (or constants) a condition term stands for, element by element.
fn expand(p: &Program, cp: &mut CompiledProgram, tiles: &Tiles, t: &Term, span: Span) -> Result<Vec<CTerm>, CheckError> {
    let loc_base = |cp: &CompiledProgram| cp.state_len() - cp.locations.len();
    Ok(match t {
        Term::Const(Value::Int(v)) => vec![CTerm::Const(*v)],
        Term::Const(Value::Tile(vs)) => vs.iter().map(|v| CTerm::Const(*v)).collect(),
        Term::Loc { name, element: e } => {
            let all = tiles.elements.get(name).ok_or_else(|| CheckError::bad(format!("unknown location `{name}`"), span))?;
            let ids = match e {
                None => all.clone(),
                Some(i) => {
                    vec![*all.get(*i as usize).ok_or_else(|| CheckError::bad(format!("element {i} of `{name}` does not exist"), span))?]
                }
            };
            ids.into_iter().map(|l| CTerm::Slot(loc_base(cp) + l as usize)).collect()
        }
        Term::Reg { thread, reg } => {
            let ti = find_thread(p, thread).ok_or_else(|| CheckError::bad(format!("condition names unknown thread `{thread}`"), span))?;
            let tc = &mut cp.threads[ti];
            let mut rs: Vec<usize> = (0..).map_while(|i| tc.reg_names.iter().position(|n| *n == element(reg, i))).collect();
            if rs.is_empty() {
                // A register no operation writes: one element that keeps its initial value 0.
                tc.reg_names.push(element(reg, 0));
                tc.reg_init.push(0);
                rs.push(tc.reg_names.len() - 1);
            }
            let off = cp.reg_offset(ti);
            rs.into_iter().map(|r| CTerm::Slot(off + r)).collect()
        }
    })
}

fn create_condition_regs(p: &Program, cp: &mut CompiledProgram, tiles: &Tiles, prop: &Prop) -> Result<(), CheckError> {
    match prop {
        Prop::True => Ok(()),
        Prop::Not(a) => create_condition_regs(p, cp, tiles, a),
        Prop::And(a, b) | Prop::Or(a, b) => {
            create_condition_regs(p, cp, tiles, a)?;
            create_condition_regs(p, cp, tiles, b)
        }
        Prop::Atom(c) => {
            expand(p, cp, tiles, &c.lhs, c.span)?;
            expand(p, cp, tiles, &c.rhs, c.span).map(|_| ())
        }
    }
}

fn lower_prop(p: &Program, cp: &mut CompiledProgram, tiles: &Tiles, prop: &Prop, observed: &mut Vec<usize>) -> Result<CProp, CheckError> {
    Ok(match prop {
        Prop::True => CProp::True,
        Prop::Not(a) => CProp::Not(Box::new(lower_prop(p, cp, tiles, a, observed)?)),
        Prop::And(a, b) => {
            let a = lower_prop(p, cp, tiles, a, observed)?;
            CProp::And(Box::new(a), Box::new(lower_prop(p, cp, tiles, b, observed)?))
        }
        Prop::Or(a, b) => {
            let a = lower_prop(p, cp, tiles, a, observed)?;
            CProp::Or(Box::new(a), Box::new(lower_prop(p, cp, tiles, b, observed)?))
        }
        Prop::Atom(c) => {
            let lhs = expand(p, cp, tiles, &c.lhs, c.span)?;
            let rhs = expand(p, cp, tiles, &c.rhs, c.span)?;
            if lhs.len() != rhs.len() && lhs.len() != 1 && rhs.len() != 1 {
                return Err(CheckError::bad(format!("the condition compares tiles of {} and {} elements", lhs.len(), rhs.len()), c.span));
            }
            let n = lhs.len().max(rhs.len());
            let pick = |side: &[CTerm], i: usize| if side.len() == 1 { side[0].clone() } else { side[i].clone() };
            let mut conj: Option<CProp> = None;
            for i in 0..n {
                let (l, r) = (pick(&lhs, i), pick(&rhs, i));
                for term in [&l, &r] {
                    if let CTerm::Slot(s) = term {
                        observed.push(*s);
                    }
                }
                let atom = CProp::Cmp { lhs: l, eq: true, rhs: r };
                conj = Some(match conj {
                    None => atom,
                    Some(acc) => CProp::And(Box::new(acc), Box::new(atom)),
                });
            }
            let conj = conj.unwrap_or(CProp::True);
            if c.eq { conj } else { CProp::Not(Box::new(conj)) }
        }
    })
}
