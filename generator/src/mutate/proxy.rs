//! Routing an access through a proxy: the mixed-proxy edit of the coverage-guided family.
//!
//! PTX ISA §8.6 ("Proxies"): one memory location may be reached through several proxies — the
//! generic proxy, the texture, surface and constant proxies, and a second virtual address of the
//! generic proxy (an alias) — and accesses through different proxies are ordered only by a
//! `fence.proxy.<kind>` (§9.7.13.4). The litmus format declares such a view as an alias of a
//! location (`t @ texture aliases x;`, the mixedproxy / Dat3M dialect) and accesses it with
//! `tld`, `suld`, `sust` or `cold` (always `.weak`), or, for a generic alias, any `ld`/`st`.
//!
//! Besides the conformance corpus's `proxy/` tests, only this edit and the `proxy` random family
//! ([`crate::random::proxy`], which applies it to `ptx` programs) write them. The edit takes one
//! generic load or store of a global location, routes it through an alias of that location
//! (declared if missing), and, most of the time, puts the proxy fence that orders it with the
//! thread's generic accesses beside it (before a load, after a store) — so both the fenced and
//! the unfenced form of each mixed-proxy pattern come up.

use arbitrary::Unstructured;
use tcfuzz_litmus::{
    AccessProxy, AliasProxy, Arch, Fence, Instr, Location, LocationKind, Program, Sem, Span, Stmt, StmtKind, ThreadKind, Value,
};

use super::edit::instructions;
use crate::choose::{chance, index};

/// The alias of `target` through `proxy`: its name and declaration.
fn alias(target: &str, proxy: AliasProxy) -> Location {
    let suffix = match proxy {
        AliasProxy::Generic => "gen",
        AliasProxy::Texture => "tex",
        AliasProxy::Surface => "sur",
        AliasProxy::Constant => "con",
    };
    Location {
        name: format!("{target}_{suffix}"),
        kind: LocationKind::Alias { proxy, target: target.to_string() },
        init: None,
        span: Span::default(),
    }
}

/// Routes one generic load or store of a global (non-tile) location of a PTX thread through an
/// alias of that location. `None` if there is no such access, or the alias's name is taken by
/// something else.
pub(crate) fn route(u: &mut Unstructured<'_>, p: &mut Program) -> arbitrary::Result<Option<String>> {
    if p.arch != Arch::Ptx {
        return Ok(None);
    }
    let global = |name: &str| {
        p.locations.iter().any(|l| l.name == name && l.kind == LocationKind::Global && !matches!(l.init, Some(Value::Tile(_))))
    };
    let all: Vec<(usize, usize)> = instructions(p)
        .into_iter()
        .filter(|&(t, i)| {
            p.threads[t].kind() == ThreadKind::Ptx
                && match &p.threads[t].body[i].kind {
                    StmtKind::Instr(Instr::Ld(l)) => l.proxy == AccessProxy::Generic && l.space.is_none() && global(&l.addr.name),
                    StmtKind::Instr(Instr::St(s)) => s.proxy == AccessProxy::Generic && s.space.is_none() && global(&s.addr.name),
                    _ => false,
                }
        })
        .collect();
    if all.is_empty() {
        return Ok(None);
    }
    let (t, i) = all[index(u, all.len())?];
    let StmtKind::Instr(instr) = &mut p.threads[t].body[i].kind else { return Ok(None) };
    // Loads may go through any proxy; stores through the surface proxy (`sust`) or a generic
    // alias: textures and constants are read-only (§8.6).
    let (proxy, is_load) = match instr {
        Instr::Ld(_) => ([AliasProxy::Texture, AliasProxy::Surface, AliasProxy::Constant, AliasProxy::Generic][index(u, 4)?], true),
        _ => ([AliasProxy::Surface, AliasProxy::Generic][index(u, 2)?], false),
    };
    let target = match instr {
        Instr::Ld(l) => l.addr.name.clone(),
        Instr::St(s) => s.addr.name.clone(),
        _ => return Ok(None),
    };
    let decl = alias(&target, proxy);
    match p.locations.iter().find(|l| l.name == decl.name) {
        Some(l) if l.kind != decl.kind => return Ok(None),
        Some(_) => {}
        None => p.locations.push(decl.clone()),
    }
    let access = match proxy {
        AliasProxy::Generic => AccessProxy::Generic,
        AliasProxy::Texture => AccessProxy::Texture,
        AliasProxy::Surface => AccessProxy::Surface,
        AliasProxy::Constant => AccessProxy::Constant,
    };
    let StmtKind::Instr(instr) = &mut p.threads[t].body[i].kind else { return Ok(None) };
    match instr {
        Instr::Ld(l) => {
            l.addr.name = decl.name.clone();
            if access != AccessProxy::Generic {
                (l.proxy, l.sem, l.scope, l.ty) = (access, Some(Sem::Weak), None, None);
            }
        }
        Instr::St(s) => {
            s.addr.name = decl.name.clone();
            if access != AccessProxy::Generic {
                (s.proxy, s.sem, s.scope, s.ty) = (access, Some(Sem::Weak), None, None);
            }
        }
        _ => return Ok(None),
    }
    let thread = p.threads[t].name.clone();
    let mut what = format!("route {thread}#{i} through {}", decl.name);
    if chance(u, 60)? {
        // The fence of the proxy the access goes through (`fence.proxy.alias` for a generic
        // alias): before a load, so it reads what the thread's generic accesses saw; after a
        // store, so the generic accesses that follow see it.
        let fence = Stmt { span: Span::default(), kind: StmtKind::Instr(Instr::Fence(Fence::Proxy(proxy))) };
        let at = if is_load { i } else { i + 1 };
        p.threads[t].body.insert(at, fence);
        what.push_str(" with its proxy fence");
    }
    Ok(Some(what))
}
