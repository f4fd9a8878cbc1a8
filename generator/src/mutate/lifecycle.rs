//! Object lifecycles no generator writes, for the coverage-guided family only (the random
//! generators stay as they are, so the programs of a campaign seed do not change):
//!
//! - `mbarrier.init` (PTX ISA §9.7.13.15.9): an mbarrier declared with `count N` becomes one
//!   declared without it, initialised with `mbarrier.init [bar], N` at the start of a thread of
//!   its CTA (the mbarrier is that CTA's shared memory). Other threads may now use it before the
//!   init, which the checker models (an arrive on an uninitialised mbarrier changes nothing).
//! - a `cta_group::1` Tensor Memory allocation (§9.7.16.7.1): `tcgen05.alloc` of 32 or 64
//!   columns into a shared slot of the thread's CTA, the address read back from the slot (the
//!   allocation instructions keep same-address order with other shared accesses, §9.7.16.6.1),
//!   now and then `tcgen05.relinquish_alloc_permit`, and `tcgen05.dealloc` of the address later
//!   in the thread — except now and then, which is the "exit with live columns" misuse.

use std::collections::BTreeSet;

use arbitrary::Unstructured;
use tcfuzz_litmus::{
    AccessProxy, Addr, CtaGroup, DataType, Instr, Load, Location, LocationKind, Mbarrier, Operand, Placement, Program, Span, StateSpace,
    Stmt, StmtKind, Tcgen05, Value,
};

use super::insert::fresh_register;
use crate::choose::{chance, index};

/// Initialises an mbarrier in a thread (`init` edit) or allocates Tensor Memory in one (`alloc`
/// edit), whichever the program allows, one of them chosen at random when both do. `None` if
/// neither applies.
pub(crate) fn lifecycle(u: &mut Unstructured<'_>, p: &mut Program) -> arbitrary::Result<Option<String>> {
    if chance(u, 50)? {
        match init_mbarrier(u, p)? {
            Some(e) => Ok(Some(e)),
            None => alloc_tmem(u, p),
        }
    } else {
        match alloc_tmem(u, p)? {
            Some(e) => Ok(Some(e)),
            None => init_mbarrier(u, p),
        }
    }
}

fn stmt(i: Instr) -> Stmt {
    Stmt { span: Span::default(), kind: StmtKind::Instr(i) }
}

fn bracketed(name: &str) -> Addr {
    Addr { name: name.to_string(), bracketed: true }
}

/// The `(gpu, cta)` a PTX thread runs in.
fn cta_of(placement: &Placement) -> Option<(u32, u32)> {
    match *placement {
        Placement::Ptx { gpu, cta, .. } => Some((gpu, cta)),
        Placement::TileBlock { .. } => None,
    }
}

/// Moves the initialisation of an mbarrier declared with a count into a thread of its CTA.
fn init_mbarrier(u: &mut Unstructured<'_>, p: &mut Program) -> arbitrary::Result<Option<String>> {
    // (location, thread) pairs: a counted mbarrier and a PTX thread of the CTA that holds it.
    let mut candidates = Vec::new();
    for (l, loc) in p.locations.iter().enumerate() {
        let LocationKind::Mbarrier { cta, gpu, count: Some(_) } = loc.kind else { continue };
        for (t, th) in p.threads.iter().enumerate() {
            if cta_of(&th.placement) == Some((gpu, cta)) {
                candidates.push((l, t));
            }
        }
    }
    if candidates.is_empty() {
        return Ok(None);
    }
    let (l, t) = candidates[index(u, candidates.len())?];
    let LocationKind::Mbarrier { count, .. } = &mut p.locations[l].kind else { return Ok(None) };
    let Some(n) = count.take() else { return Ok(None) };
    let name = p.locations[l].name.clone();
    let init =
        Instr::Mbarrier(Mbarrier::Init { space: Some(StateSpace::SharedCta), addr: bracketed(&name), count: Operand::Imm(i64::from(n)) });
    p.threads[t].body.insert(0, stmt(init));
    Ok(Some(format!("init {name} in {}", p.threads[t].name)))
}

/// Allocates, reads back and (most of the time) deallocates Tensor Memory in one PTX thread.
fn alloc_tmem(u: &mut Unstructured<'_>, p: &mut Program) -> arbitrary::Result<Option<String>> {
    let ptx: Vec<usize> = (0..p.threads.len()).filter(|&t| cta_of(&p.threads[t].placement).is_some()).collect();
    if ptx.is_empty() {
        return Ok(None);
    }
    let t = ptx[index(u, ptx.len())?];
    let Some((gpu, cta)) = cta_of(&p.threads[t].placement) else { return Ok(None) };
    // A slot of its own, so the address is not mixed into the program's data.
    let slot = format!("tslot{cta}");
    match p.locations.iter().find(|l| l.name == slot) {
        Some(l) if l.kind == (LocationKind::Shared { cta, gpu }) => {}
        Some(_) => return Ok(None),
        None => p.locations.push(Location {
            name: slot.clone(),
            kind: LocationKind::Shared { cta, gpu },
            init: Some(Value::Int(0)),
            span: Span::default(),
        }),
    }
    let ncols = Operand::Imm(if chance(u, 70)? { 32 } else { 64 });
    let addr = fresh_register(&p.threads[t], &mut BTreeSet::new());
    let mut alloc = vec![
        stmt(Instr::Tcgen05(Tcgen05::Alloc { group: CtaGroup::One, slot: bracketed(&slot), ncols: ncols.clone() })),
        stmt(Instr::Ld(Load {
            proxy: AccessProxy::Generic,
            sem: None,
            scope: None,
            space: Some(StateSpace::SharedCta),
            ty: Some(DataType::B32),
            dst: addr.clone(),
            addr: bracketed(&slot),
        })),
    ];
    let relinquish = chance(u, 40)?;
    if relinquish {
        alloc.push(stmt(Instr::Tcgen05(Tcgen05::RelinquishAllocPermit { group: CtaGroup::One })));
    }
    let body = &mut p.threads[t].body;
    let at = u.int_in_range(0..=body.len())?;
    let after = at + alloc.len();
    body.splice(at..at, alloc);
    let dealloc = !chance(u, 15)?;
    if dealloc {
        let end = u.int_in_range(after..=body.len())?;
        let free = Tcgen05::Dealloc { group: CtaGroup::One, taddr: Operand::Reg(addr), region: None, ncols };
        body.insert(end, stmt(Instr::Tcgen05(free)));
    }
    Ok(Some(format!(
        "alloc tmem in {}{}{}",
        p.threads[t].name,
        if relinquish { ", relinquish" } else { "" },
        if dealloc { "" } else { ", no dealloc" }
    )))
}
