//! The edits of the coverage-guided family besides insertion: delete an instruction, swap it with
//! the next one, change an instruction's ordering, scope or operation, move a thread, splice in a
//! thread of another program. Each edit may produce an invalid program; the caller validates and
//! retries.

use std::collections::{BTreeMap, BTreeSet};

use arbitrary::Unstructured;
use tcfuzz_litmus::{
    AccessProxy, AtomOp, Barrier, Fence, Instr, Location, LocationKind, Mbarrier, Operand, Placement, Program, RegInit, Scope, Sem,
    StateSpace, StmtKind, Tcgen05, Thread, TileOp, TileOrdering, TileScope,
};

use crate::choose::{chance, index};

const SCOPES: [Scope; 4] = [Scope::Cta, Scope::Cluster, Scope::Gpu, Scope::Sys];

/// `(thread, statement)` of every instruction (labels excluded).
pub(crate) fn instructions(p: &Program) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    for (t, th) in p.threads.iter().enumerate() {
        for (i, s) in th.body.iter().enumerate() {
            if matches!(s.kind, StmtKind::Instr(_)) {
                out.push((t, i));
            }
        }
    }
    out
}

/// Removes one instruction. `None` if there is none.
pub(crate) fn delete(u: &mut Unstructured<'_>, p: &mut Program) -> arbitrary::Result<Option<String>> {
    let all = instructions(p);
    if all.is_empty() {
        return Ok(None);
    }
    let (t, i) = all[index(u, all.len())?];
    p.threads[t].body.remove(i);
    Ok(Some(format!("delete {}#{i}", p.threads[t].name)))
}

/// Swaps one instruction with the instruction right after it in its thread: program order is
/// what fences, waits and release/acquire order (PTX ISA §8.9.2 "Causality order" is built on
/// it), so moving an access across a fence or a wait, or a `relinquish_alloc_permit` before an
/// `alloc` (§9.7.16.7.1), reaches what inserting and deleting alone rarely do. `None` if no
/// thread has two adjacent instructions.
pub(crate) fn swap(u: &mut Unstructured<'_>, p: &mut Program) -> arbitrary::Result<Option<String>> {
    let all: Vec<(usize, usize)> = instructions(p)
        .into_iter()
        .filter(|&(t, i)| p.threads[t].body.get(i + 1).is_some_and(|s| matches!(s.kind, StmtKind::Instr(_))))
        .collect();
    if all.is_empty() {
        return Ok(None);
    }
    let (t, i) = all[index(u, all.len())?];
    p.threads[t].body.swap(i, i + 1);
    Ok(Some(format!("swap {}#{i} and #{}", p.threads[t].name, i + 1)))
}

/// The read-modify-write operations of `atom` (PTX ISA §9.7.13.5: `.and .or .xor .cas .exch
/// .add .inc .dec .min .max`; `.sub` is not a PTX `atom` operation).
const ATOM_OPS: [AtomOp; 10] =
    [AtomOp::Add, AtomOp::Exch, AtomOp::Cas, AtomOp::And, AtomOp::Or, AtomOp::Xor, AtomOp::Min, AtomOp::Max, AtomOp::Inc, AtomOp::Dec];

/// The operations of `red` (PTX ISA §9.7.13.6: `.and .or .xor .add .inc .dec .min .max`).
const RED_OPS: [AtomOp; 8] = [AtomOp::Add, AtomOp::And, AtomOp::Or, AtomOp::Xor, AtomOp::Min, AtomOp::Max, AtomOp::Inc, AtomOp::Dec];

/// Another `atom` operation for `a`: a `cas` gets a new value operand, an operation that was a
/// `cas` loses it. Each computes a different value from what it reads, so the final states and
/// the reads-from choices of the other threads differ.
pub(crate) fn atom_op(u: &mut Unstructured<'_>, a: &mut tcfuzz_litmus::Atomic) -> arbitrary::Result<()> {
    a.op = ATOM_OPS[index(u, ATOM_OPS.len())?];
    a.b = if a.op == AtomOp::Cas { Some(Operand::Imm(u.int_in_range(1..=3)?)) } else { None };
    Ok(())
}

/// Another `red` operation.
pub(crate) fn red_op(u: &mut Unstructured<'_>) -> arbitrary::Result<AtomOp> {
    Ok(RED_OPS[index(u, RED_OPS.len())?])
}

/// A fence at a scope: `fence.sc`, `fence.acq_rel`, or `membar` (PTX ISA §9.7.13.4: `membar.cta`,
/// `.gl`, `.sys` are `fence.sc` at `.cta`, `.gpu`, `.sys`; there is no cluster `membar`).
pub(crate) fn fence(u: &mut Unstructured<'_>) -> arbitrary::Result<Fence> {
    let s = SCOPES[index(u, SCOPES.len())?];
    Ok(match index(u, 5)? {
        0 | 1 => Fence::Sc(s),
        2 | 3 => Fence::AcqRel(s),
        _ if s == Scope::Cluster => Fence::Sc(s),
        _ => Fence::Membar(s),
    })
}

/// The state space of a `fence.proxy.async` (PTX ISA §9.7.13.4: none — all of them — `.global`,
/// `.shared::cta` or `.shared::cluster`).
pub(crate) fn proxy_async_space(u: &mut Unstructured<'_>) -> arbitrary::Result<Option<StateSpace>> {
    Ok([None, Some(StateSpace::Global), Some(StateSpace::SharedCta), Some(StateSpace::SharedCluster)][index(u, 4)?])
}

fn opt_scope(u: &mut Unstructured<'_>) -> arbitrary::Result<Option<Scope>> {
    Ok(Some(SCOPES[index(u, SCOPES.len())?]))
}

fn tile_scope(u: &mut Unstructured<'_>) -> arbitrary::Result<Option<TileScope>> {
    Ok(Some([TileScope::TileBlock, TileScope::Device, TileScope::Sys][index(u, 3)?]))
}

/// Changes the ordering or scope of one instruction that has them (or drops a token dependency of
/// a Tile IR operation). `None` if there is no such instruction.
pub(crate) fn requalify(u: &mut Unstructured<'_>, p: &mut Program) -> arbitrary::Result<Option<String>> {
    let all: Vec<(usize, usize)> = instructions(p)
        .into_iter()
        .filter(|&(t, i)| {
            matches!(
                &p.threads[t].body[i].kind,
                StmtKind::Instr(
                    Instr::Ld(_)
                        | Instr::St(_)
                        | Instr::Atom(_)
                        | Instr::Red(_)
                        | Instr::Fence(Fence::Sc(_) | Fence::AcqRel(_) | Fence::Membar(_) | Fence::ProxyAsync(_))
                        | Instr::Mbarrier(Mbarrier::Arrive(_) | Mbarrier::Wait(_))
                        | Instr::Barrier(Barrier::ClusterArrive { .. })
                        | Instr::Tcgen05(Tcgen05::Fence { .. } | Tcgen05::Wait { .. })
                        | Instr::Tile(TileOp::Load { .. } | TileOp::Store { .. } | TileOp::Atomic { .. })
                )
            )
        })
        .collect();
    if all.is_empty() {
        return Ok(None);
    }
    let (t, i) = all[index(u, all.len())?];
    let name = p.threads[t].name.clone();
    let StmtKind::Instr(instr) = &mut p.threads[t].body[i].kind else { return Ok(None) };
    match instr {
        // A texture, surface or constant access is `.weak` (the mixed-proxy dialect): nothing
        // to requalify.
        Instr::Ld(l) if l.proxy != AccessProxy::Generic => return Ok(None),
        Instr::St(s) if s.proxy != AccessProxy::Generic => return Ok(None),
        Instr::Ld(l) => {
            (l.sem, l.scope) = match index(u, 4)? {
                0 => (None, None),
                1 => (Some(Sem::Relaxed), opt_scope(u)?),
                2 => (Some(Sem::Acquire), opt_scope(u)?),
                _ => (Some(Sem::Volatile), None),
            }
        }
        Instr::St(s) => {
            // `st.volatile` (PTX ISA §9.7.9.9) as well as the weak, relaxed and release stores.
            (s.sem, s.scope) = match index(u, 5)? {
                0 => (None, None),
                1 => (Some(Sem::Relaxed), opt_scope(u)?),
                2 => (Some(Sem::Release), opt_scope(u)?),
                3 => (Some(Sem::Volatile), None),
                _ => (Some(Sem::Weak), None),
            }
        }
        // One time in three the operation changes instead of the ordering.
        Instr::Atom(a) if chance(u, 33)? => atom_op(u, a)?,
        Instr::Atom(a) => {
            a.sem = [None, Some(Sem::Relaxed), Some(Sem::Acquire), Some(Sem::Release), Some(Sem::AcqRel)][index(u, 5)?];
            a.scope = if chance(u, 80)? { opt_scope(u)? } else { None };
        }
        Instr::Red(r) if chance(u, 33)? => r.op = red_op(u)?,
        Instr::Red(r) => {
            r.sem = [None, Some(Sem::Relaxed), Some(Sem::Release)][index(u, 3)?];
            r.scope = if chance(u, 80)? { opt_scope(u)? } else { None };
        }
        Instr::Fence(Fence::ProxyAsync(space)) => *space = proxy_async_space(u)?,
        Instr::Fence(f) => *f = fence(u)?,
        Instr::Mbarrier(Mbarrier::Arrive(a)) => {
            a.sem = Some(if chance(u, 50)? { Sem::Release } else { Sem::Relaxed });
            a.scope = Some(if chance(u, 50)? { Scope::Cta } else { Scope::Cluster });
        }
        Instr::Mbarrier(Mbarrier::Wait(w)) => {
            w.sem = Some(if chance(u, 50)? { Sem::Acquire } else { Sem::Relaxed });
            w.scope = Some(if chance(u, 50)? { Scope::Cta } else { Scope::Cluster });
        }
        Instr::Barrier(Barrier::ClusterArrive { sem, .. }) => {
            *sem = if sem.is_some() { None } else { Some(Sem::Relaxed) };
        }
        Instr::Tcgen05(Tcgen05::Fence { after }) => *after = !*after,
        Instr::Tcgen05(Tcgen05::Wait { st }) => *st = !*st,
        Instr::Tile(op) => {
            let drop_dep = chance(u, 30)?;
            match op {
                TileOp::Load { ordering, scope, deps, .. } => {
                    if drop_dep && !deps.is_empty() {
                        deps.pop();
                    } else {
                        *ordering = [TileOrdering::Weak, TileOrdering::Relaxed, TileOrdering::Acquire][index(u, 3)?];
                        *scope = if *ordering == TileOrdering::Weak { None } else { tile_scope(u)? };
                    }
                }
                TileOp::Store { ordering, scope, deps, .. } => {
                    if drop_dep && !deps.is_empty() {
                        deps.pop();
                    } else {
                        *ordering = [TileOrdering::Weak, TileOrdering::Relaxed, TileOrdering::Release][index(u, 3)?];
                        *scope = if *ordering == TileOrdering::Weak { None } else { tile_scope(u)? };
                    }
                }
                TileOp::Atomic { ordering, scope, deps, .. } => {
                    if drop_dep && !deps.is_empty() {
                        deps.pop();
                    } else {
                        *ordering =
                            [TileOrdering::Relaxed, TileOrdering::Acquire, TileOrdering::Release, TileOrdering::AcqRel][index(u, 4)?];
                        *scope = tile_scope(u)?;
                    }
                }
                _ => {}
            }
        }
        _ => {}
    }
    Ok(Some(format!("requalify {name}#{i}")))
}

/// Moves one thread to another warp, CTA, cluster or GPU (a tile block to another device).
pub(crate) fn move_thread(u: &mut Unstructured<'_>, p: &mut Program) -> arbitrary::Result<Option<String>> {
    if p.threads.is_empty() {
        return Ok(None);
    }
    let t = index(u, p.threads.len())?;
    let th = &mut p.threads[t];
    let what = match &mut th.placement {
        Placement::Ptx { gpu, cluster, cta, warp } => match index(u, 4)? {
            0 => {
                *warp = Some(u.int_in_range(0..=4)?);
                "warp"
            }
            1 => {
                *cta = u.int_in_range(0..=2)?;
                "cta"
            }
            2 => {
                *cluster = if cluster.is_some() { None } else { Some(0) };
                "cluster"
            }
            _ => {
                *gpu = u32::from(*gpu == 0);
                "gpu"
            }
        },
        Placement::TileBlock { dev, tlb } => {
            if chance(u, 50)? {
                *dev = u32::from(*dev == 0);
                "device"
            } else {
                *tlb = u.int_in_range(0..=3)?;
                "tile block"
            }
        }
    };
    Ok(Some(format!("move {} ({what})", th.name)))
}

/// Location names an instruction's operands name (memory, mbarriers, Tensor Memory, slots).
pub(crate) fn locations_named(i: &Instr) -> Vec<&str> {
    match i {
        Instr::Ld(l) => vec![&l.addr.name],
        Instr::St(s) => vec![&s.addr.name],
        Instr::Atom(a) => vec![&a.addr.name],
        Instr::Red(r) => vec![&r.addr.name],
        Instr::CpAsyncBulk(c) => vec![&c.dst.name, &c.src.name, &c.mbar.name],
        Instr::Mbarrier(m) => match m {
            Mbarrier::Init { addr, .. } | Mbarrier::ExpectTx { addr, .. } => vec![&addr.name],
            Mbarrier::Arrive(a) => vec![&a.addr.name],
            Mbarrier::Wait(w) => vec![&w.addr.name],
        },
        Instr::Tcgen05(t) => match t {
            Tcgen05::Alloc { slot, .. } => vec![&slot.name],
            Tcgen05::Dealloc { region, .. } => region.iter().map(String::as_str).collect(),
            Tcgen05::Mma { d, a, b, .. } => vec![&d.name, &a.name, &b.name],
            Tcgen05::Cp { d, src, .. } => vec![&d.name, &src.name],
            Tcgen05::Shift { d, .. } => vec![&d.name],
            Tcgen05::Ld { src, .. } => vec![&src.name],
            Tcgen05::St { dst, .. } => vec![&dst.name],
            Tcgen05::Commit { mbar, .. } => vec![&mbar.name],
            _ => vec![],
        },
        Instr::Tile(TileOp::Load { addr, .. } | TileOp::Store { addr, .. } | TileOp::Atomic { addr, .. }) => vec![&addr.name],
        _ => vec![],
    }
}

fn rename_locations(i: &mut Instr, map: &BTreeMap<String, String>) {
    let rename = |name: &mut String| {
        if let Some(n) = map.get(name.as_str()) {
            *name = n.clone();
        }
    };
    match i {
        Instr::Ld(l) => rename(&mut l.addr.name),
        Instr::St(s) => rename(&mut s.addr.name),
        Instr::Atom(a) => rename(&mut a.addr.name),
        Instr::Red(r) => rename(&mut r.addr.name),
        Instr::CpAsyncBulk(c) => {
            rename(&mut c.dst.name);
            rename(&mut c.src.name);
            rename(&mut c.mbar.name);
        }
        Instr::Mbarrier(m) => match m {
            Mbarrier::Init { addr, .. } | Mbarrier::ExpectTx { addr, .. } => rename(&mut addr.name),
            Mbarrier::Arrive(a) => rename(&mut a.addr.name),
            Mbarrier::Wait(w) => rename(&mut w.addr.name),
        },
        Instr::Tcgen05(t) => match t {
            Tcgen05::Alloc { slot, .. } => rename(&mut slot.name),
            Tcgen05::Dealloc { region: Some(r), taddr, .. } => {
                rename(r);
                if let Operand::Reg(name) = taddr {
                    rename(name);
                }
            }
            Tcgen05::Mma { d, a, b, .. } => {
                rename(&mut d.name);
                rename(&mut a.name);
                rename(&mut b.name);
            }
            Tcgen05::Cp { d, src, .. } => {
                rename(&mut d.name);
                rename(&mut src.name);
            }
            Tcgen05::Shift { d, .. } => rename(&mut d.name),
            Tcgen05::Ld { src, .. } => rename(&mut src.name),
            Tcgen05::St { dst, .. } => rename(&mut dst.name),
            Tcgen05::Commit { mbar, .. } => rename(&mut mbar.name),
            _ => {}
        },
        Instr::Tile(TileOp::Load { addr, .. } | TileOp::Store { addr, .. } | TileOp::Atomic { addr, .. }) => rename(&mut addr.name),
        _ => {}
    }
}

/// Appends one thread of `donor` to `p` as a new thread: a location it shares by name and kind
/// with `p` stays shared (that is where the two programs meet), any other is renamed and
/// declared. `None` if the arches differ, `p` has `max_threads` threads, or `donor` has none.
pub(crate) fn splice(u: &mut Unstructured<'_>, p: &mut Program, donor: &Program, max_threads: usize) -> arbitrary::Result<Option<String>> {
    if donor.arch != p.arch || donor.threads.is_empty() || p.threads.len() >= max_threads {
        return Ok(None);
    }
    let from = &donor.threads[index(u, donor.threads.len())?];
    let name = (p.threads.len()..).map(|k| format!("P{k}")).find(|n| p.threads.iter().all(|t| &t.name != n)).unwrap_or_default();
    let mut used = BTreeSet::new();
    for s in &from.body {
        if let StmtKind::Instr(i) = &s.kind {
            used.extend(locations_named(i).into_iter().map(str::to_string));
        }
    }
    let declared: BTreeMap<&str, &Location> = p.locations.iter().map(|l| (l.name.as_str(), l)).collect();
    let mut map = BTreeMap::new();
    let mut new_locations = Vec::new();
    for loc in &used {
        let Some(theirs) = donor.locations.iter().find(|l| &l.name == loc) else { continue };
        match declared.get(loc.as_str()) {
            Some(ours) if same_kind(&ours.kind, &theirs.kind) => {}
            Some(_) => {
                let renamed = format!("{loc}_{name}");
                map.insert(loc.clone(), renamed.clone());
                new_locations.push(Location { name: renamed, ..theirs.clone() });
            }
            None => new_locations.push(theirs.clone()),
        }
    }
    let mut thread: Thread = from.clone();
    thread.name = name.clone();
    for s in &mut thread.body {
        if let StmtKind::Instr(i) = &mut s.kind {
            rename_locations(i, &map);
        }
    }
    p.locations.extend(new_locations);
    for r in donor.reg_inits.iter().filter(|r| r.thread == from.name) {
        p.reg_inits.push(RegInit { thread: name.clone(), ..r.clone() });
    }
    p.threads.push(thread);
    Ok(Some(format!("splice {} of {} as {name}", from.name, donor.name)))
}

/// Two declarations of one object: the same kind in the same CTA (and, for TMEM, the same
/// lanes and columns).
fn same_kind(a: &LocationKind, b: &LocationKind) -> bool {
    a == b
}
