//! The edits of the coverage-guided family besides insertion: delete an instruction, change an
//! instruction's ordering or scope, move a thread, splice in a thread of another program. Each
//! edit may produce an invalid program; the caller validates and retries.

use std::collections::{BTreeMap, BTreeSet};

use arbitrary::Unstructured;
use tcfuzz_litmus::{
    Barrier, Fence, Instr, Location, LocationKind, Mbarrier, Operand, Placement, Program, RegInit, Scope, Sem, StmtKind, Tcgen05, Thread,
    TileOp, TileOrdering, TileScope,
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
                        | Instr::Fence(Fence::Sc(_) | Fence::AcqRel(_))
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
        Instr::Ld(l) => {
            (l.sem, l.scope) = match index(u, 4)? {
                0 => (None, None),
                1 => (Some(Sem::Relaxed), opt_scope(u)?),
                2 => (Some(Sem::Acquire), opt_scope(u)?),
                _ => (Some(Sem::Volatile), None),
            }
        }
        Instr::St(s) => {
            (s.sem, s.scope) = match index(u, 4)? {
                0 => (None, None),
                1 => (Some(Sem::Relaxed), opt_scope(u)?),
                2 => (Some(Sem::Release), opt_scope(u)?),
                _ => (Some(Sem::Weak), None),
            }
        }
        Instr::Atom(a) => {
            a.sem = [None, Some(Sem::Relaxed), Some(Sem::Acquire), Some(Sem::Release), Some(Sem::AcqRel)][index(u, 5)?];
            a.scope = if chance(u, 80)? { opt_scope(u)? } else { None };
        }
        Instr::Red(r) => {
            r.sem = [None, Some(Sem::Relaxed), Some(Sem::Release)][index(u, 3)?];
            r.scope = if chance(u, 80)? { opt_scope(u)? } else { None };
        }
        Instr::Fence(f) => {
            let s = SCOPES[index(u, SCOPES.len())?];
            *f = if chance(u, 50)? { Fence::Sc(s) } else { Fence::AcqRel(s) };
        }
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
