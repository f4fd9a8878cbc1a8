//! Building one instruction of a class over the objects a program has: the insertion mutation.
//! Operands are the program's own locations of the right kind, registers are fresh, orderings
//! and scopes are drawn from what the ISA allows; the result is validated by the caller.

use std::collections::BTreeSet;

use arbitrary::Unstructured;
use tcfuzz_litmus::{
    AccessProxy, Addr, AtomOp, Atomic, BarForm, Barrier, CpAsyncBulk, CtaGroup, DataType, Fence, Instr, LdStShape, Load, LocationKind,
    Mbarrier, MbarrierArrive, MbarrierWait, MmaKind, Operand, Program, Reduction, Scope, Sem, StateSpace, Store, Tcgen05, Thread, TileAddr,
    TileOp, TileOrdering, TileScope, TileValue, Value,
};

use super::choice::{Object, OpClass};
use crate::choose::{chance, index};

const SCOPES: [Scope; 4] = [Scope::Cta, Scope::Cluster, Scope::Gpu, Scope::Sys];

/// The program's locations by the object kind they are.
pub(crate) struct Objects {
    pub memory: Vec<String>,
    pub shared: Vec<String>,
    pub mbarriers: Vec<String>,
    pub tmem: Vec<String>,
    /// Tile locations with their length.
    pub tiles: Vec<(String, usize)>,
}

impl Objects {
    pub fn of(p: &Program) -> Objects {
        let mut o = Objects { memory: Vec::new(), shared: Vec::new(), mbarriers: Vec::new(), tmem: Vec::new(), tiles: Vec::new() };
        for l in &p.locations {
            match (&l.kind, &l.init) {
                (LocationKind::Global, Some(Value::Tile(v))) => o.tiles.push((l.name.clone(), v.len())),
                (LocationKind::Global, _) => o.memory.push(l.name.clone()),
                (LocationKind::Shared { .. }, _) => o.shared.push(l.name.clone()),
                (LocationKind::Mbarrier { .. }, _) => o.mbarriers.push(l.name.clone()),
                (LocationKind::Tmem { .. }, _) => o.tmem.push(l.name.clone()),
                (LocationKind::Alias { .. }, _) => {}
            }
        }
        o
    }

    pub fn has(&self, object: Object) -> bool {
        match object {
            Object::Memory => !self.memory.is_empty() || !self.shared.is_empty(),
            Object::Shared => !self.shared.is_empty(),
            Object::Mbarrier => !self.mbarriers.is_empty(),
            Object::Tmem => !self.tmem.is_empty(),
            Object::Tile => !self.tiles.is_empty(),
            Object::Barrier => true,
        }
    }
}

/// A register name not used in `thread`: `m0`, `m1`, ...
pub(crate) fn fresh_register(thread: &Thread, taken: &mut BTreeSet<String>) -> String {
    for s in &thread.body {
        if let tcfuzz_litmus::StmtKind::Instr(i) = &s.kind {
            for w in tcfuzz_litmus::registers_written(i) {
                taken.insert(w.to_string());
            }
        }
    }
    (0..)
        .map(|k| format!("m{k}"))
        .find(|r| !taken.contains(r))
        .inspect(|r| {
            taken.insert(r.clone());
        })
        .unwrap_or_else(|| "m".to_string())
}

fn bracketed(name: &str) -> Addr {
    Addr { name: name.to_string(), bracketed: true }
}

fn plain(name: &str) -> Addr {
    Addr { name: name.to_string(), bracketed: false }
}

fn pick<'a>(u: &mut Unstructured<'_>, names: &'a [String]) -> arbitrary::Result<&'a str> {
    Ok(names[index(u, names.len())?].as_str())
}

/// A generic-memory operand: `(name, space, bracketed)`; shared locations name their space.
fn memory_operand(u: &mut Unstructured<'_>, o: &Objects) -> arbitrary::Result<(Addr, Option<StateSpace>, Option<DataType>)> {
    let use_shared = !o.shared.is_empty() && (o.memory.is_empty() || chance(u, 40)?);
    if use_shared {
        Ok((bracketed(pick(u, &o.shared)?), Some(StateSpace::SharedCta), Some(DataType::B32)))
    } else {
        Ok((plain(pick(u, &o.memory)?), None, None))
    }
}

fn scope(u: &mut Unstructured<'_>) -> arbitrary::Result<Scope> {
    Ok(SCOPES[index(u, SCOPES.len())?])
}

/// An instruction of `class` for a PTX thread (Tile IR classes for a tile block), or `None` if
/// the program lacks the objects it needs. A cluster barrier is two instructions.
pub(crate) fn build(u: &mut Unstructured<'_>, class: OpClass, o: &Objects, thread: &Thread) -> arbitrary::Result<Vec<Instr>> {
    if !class.needs().iter().all(|&n| o.has(n)) {
        return Ok(Vec::new());
    }
    let mut taken = BTreeSet::new();
    let instr = match class {
        OpClass::Ld => {
            let (addr, space, ty) = memory_operand(u, o)?;
            let (sem, sc) = match index(u, 4)? {
                0 => (None, None),
                1 => (Some(Sem::Relaxed), Some(scope(u)?)),
                2 => (Some(Sem::Acquire), Some(scope(u)?)),
                _ => (Some(Sem::Volatile), None),
            };
            Instr::Ld(Load { proxy: AccessProxy::Generic, sem, scope: sc, space, ty, dst: fresh_register(thread, &mut taken), addr })
        }
        OpClass::St => {
            let (addr, space, ty) = memory_operand(u, o)?;
            let (sem, sc) = match index(u, 5)? {
                0 => (None, None),
                1 => (Some(Sem::Relaxed), Some(scope(u)?)),
                2 => (Some(Sem::Release), Some(scope(u)?)),
                3 => (Some(Sem::Volatile), None),
                _ => (Some(Sem::Weak), None),
            };
            Instr::St(Store { proxy: AccessProxy::Generic, sem, scope: sc, space, ty, addr, src: Operand::Imm(u.int_in_range(1..=3)?) })
        }
        OpClass::Atom => {
            let (addr, space, ty) = memory_operand(u, o)?;
            let sem = [None, Some(Sem::Relaxed), Some(Sem::Acquire), Some(Sem::Release), Some(Sem::AcqRel)][index(u, 5)?];
            let sc = if chance(u, 70)? { Some(scope(u)?) } else { None };
            let dst = fresh_register(thread, &mut taken);
            let mut atom =
                Atomic { sem, scope: sc, space, op: AtomOp::Add, ty, dst, addr, a: Operand::Imm(u.int_in_range(1..=3)?), b: None };
            // Half the time an add or an exchange, else any `atom` operation.
            if chance(u, 50)? {
                atom.op = if chance(u, 50)? { AtomOp::Add } else { AtomOp::Exch };
            } else {
                super::edit::atom_op(u, &mut atom)?;
            }
            Instr::Atom(atom)
        }
        OpClass::Red => {
            let (addr, space, ty) = memory_operand(u, o)?;
            let sem = [None, Some(Sem::Relaxed), Some(Sem::Release)][index(u, 3)?];
            let sc = if chance(u, 70)? { Some(scope(u)?) } else { None };
            let op = if chance(u, 50)? { AtomOp::Add } else { super::edit::red_op(u)? };
            Instr::Red(Reduction { sem, scope: sc, space, op, ty, addr, a: Operand::Imm(1) })
        }
        OpClass::FenceSc => {
            // Now and then the `membar` spelling (PTX ISA §9.7.13.4; no cluster `membar`).
            let s = scope(u)?;
            Instr::Fence(if s != Scope::Cluster && chance(u, 25)? { Fence::Membar(s) } else { Fence::Sc(s) })
        }
        OpClass::FenceAcqRel => Instr::Fence(Fence::AcqRel(scope(u)?)),
        OpClass::FenceProxyAsync => {
            Instr::Fence(Fence::ProxyAsync(if chance(u, 50)? { Some(StateSpace::SharedCta) } else { super::edit::proxy_async_space(u)? }))
        }
        OpClass::BarSync => {
            Instr::Barrier(Barrier::Sync { form: BarForm { long: false, cta: false, aligned: false }, operands: vec![Operand::Imm(0)] })
        }
        OpClass::ClusterBarrier => {
            let release = chance(u, 80)?;
            return Ok(vec![
                Instr::Barrier(Barrier::ClusterArrive { sem: (!release).then_some(Sem::Relaxed), aligned: false }),
                Instr::Barrier(Barrier::ClusterWait { acquire: false, aligned: false }),
            ]);
        }
        OpClass::MbarArrive => Instr::Mbarrier(Mbarrier::Arrive(MbarrierArrive {
            expect_tx: false,
            sem: Some(if chance(u, 60)? { Sem::Release } else { Sem::Relaxed }),
            scope: Some(if chance(u, 60)? { Scope::Cta } else { Scope::Cluster }),
            space: Some(StateSpace::SharedCta),
            state: fresh_register(thread, &mut taken),
            addr: bracketed(pick(u, &o.mbarriers)?),
            count: None,
        })),
        OpClass::MbarWait => Instr::Mbarrier(Mbarrier::Wait(MbarrierWait {
            blocking: chance(u, 80)?,
            test: false,
            parity: true,
            sem: Some(if chance(u, 60)? { Sem::Acquire } else { Sem::Relaxed }),
            scope: Some(if chance(u, 60)? { Scope::Cta } else { Scope::Cluster }),
            space: Some(StateSpace::SharedCta),
            dst: fresh_register(thread, &mut taken),
            addr: bracketed(pick(u, &o.mbarriers)?),
            phase: Operand::Imm(u.int_in_range(0..=1)?),
        })),
        OpClass::BulkCopy => {
            if o.memory.is_empty() {
                return Ok(Vec::new());
            }
            Instr::CpAsyncBulk(CpAsyncBulk {
                dst_space: StateSpace::SharedCluster,
                dst: bracketed(pick(u, &o.shared)?),
                src: bracketed(pick(u, &o.memory)?),
                size: Operand::Imm(4),
                mbar: bracketed(pick(u, &o.mbarriers)?),
            })
        }
        OpClass::TcMma => Instr::Tcgen05(Tcgen05::Mma {
            group: CtaGroup::One,
            kind: MmaKind::F16,
            d: bracketed(pick(u, &o.tmem)?),
            a: bracketed(pick(u, &o.shared)?),
            b: bracketed(pick(u, &o.shared)?),
            idesc: 1,
            acc: Operand::Imm(u.int_in_range(0..=1)?),
        }),
        OpClass::TcLd => Instr::Tcgen05(Tcgen05::Ld {
            shape: LdStShape::S32x32b,
            num: 1,
            pack: false,
            dst: fresh_register(thread, &mut taken),
            src: bracketed(pick(u, &o.tmem)?),
        }),
        OpClass::TcSt => Instr::Tcgen05(Tcgen05::St {
            shape: LdStShape::S32x32b,
            num: 1,
            unpack: false,
            dst: bracketed(pick(u, &o.tmem)?),
            src: Operand::Imm(u.int_in_range(1..=9)?),
        }),
        OpClass::TcCommit => Instr::Tcgen05(Tcgen05::Commit {
            group: CtaGroup::One,
            shared_cluster: true,
            multicast: None,
            mbar: bracketed(pick(u, &o.mbarriers)?),
        }),
        OpClass::TcWait => Instr::Tcgen05(Tcgen05::Wait { st: chance(u, 50)? }),
        OpClass::TcFence => Instr::Tcgen05(Tcgen05::Fence { after: chance(u, 50)? }),
        OpClass::TileLd | OpClass::TileSt | OpClass::TileAtom => {
            let (name, len) = o.tiles[index(u, o.tiles.len())?].clone();
            let (ordering, scope) = tile_ordering(u, class)?;
            let addr = TileAddr { name, elements: None };
            let value = TileValue::Tile((0..len).map(|k| k as i64 + 1).collect());
            match class {
                OpClass::TileLd => Instr::Tile(TileOp::Load {
                    ordering,
                    scope,
                    dst: fresh_register(thread, &mut taken),
                    token: None,
                    addr,
                    deps: Vec::new(),
                }),
                OpClass::TileSt => Instr::Tile(TileOp::Store { ordering, scope, token: None, addr, value, deps: Vec::new() }),
                _ => Instr::Tile(TileOp::Atomic {
                    ordering,
                    scope: scope.or(Some(TileScope::Device)),
                    op: AtomOp::Add,
                    dst: fresh_register(thread, &mut taken),
                    token: None,
                    addr,
                    value,
                    deps: Vec::new(),
                }),
            }
        }
        OpClass::Other => return Ok(Vec::new()),
    };
    Ok(vec![instr])
}

/// An ordering a Tile IR operation of `class` allows, with a scope where it needs one (Tile IR
/// spec §7.3: weak accesses take no scope, the others need one).
fn tile_ordering(u: &mut Unstructured<'_>, class: OpClass) -> arbitrary::Result<(TileOrdering, Option<TileScope>)> {
    let orderings: &[TileOrdering] = match class {
        OpClass::TileLd => &[TileOrdering::Weak, TileOrdering::Relaxed, TileOrdering::Acquire],
        OpClass::TileSt => &[TileOrdering::Weak, TileOrdering::Relaxed, TileOrdering::Release],
        _ => &[TileOrdering::Relaxed, TileOrdering::Acquire, TileOrdering::Release, TileOrdering::AcqRel],
    };
    let ordering = orderings[index(u, orderings.len())?];
    let scope = match ordering {
        TileOrdering::Weak => None,
        _ => Some([TileScope::TileBlock, TileScope::Device, TileScope::Sys][index(u, 3)?]),
    };
    Ok((ordering, scope))
}
