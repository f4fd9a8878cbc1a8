//! `pair:` features: two accesses of one piece of memory by different threads, one of them a
//! write (accesses that may communicate or race), described by what the memory model can tell
//! apart (see the module header of [`super`] for the format).
//!
//! - **Memory, not names.** An alias (`t @ texture aliases x;`, `y @ generic aliases x;`) is
//!   resolved to the location it ends at, as the checker does (PTX ISA §8.6 "Proxies"; the
//!   mixedproxy / Dat3M alias declarations), so accesses through aliases pair with accesses of
//!   the location. A generic alias is a second virtual address of the memory: a pair whose sides
//!   use different virtual addresses is marked `+alias`, since only `fence.proxy.alias` orders
//!   them (§8.6, §9.7.13.4). Texture, surface and constant aliases are views of their target's
//!   virtual address (as the checker lowers them), so they add no `+alias`.
//! - **The proxy of each side.** `tld` / `suld` / `sust` / `cold` go through the texture /
//!   surface / constant proxy, `cp.async.bulk` and the shared-memory operands of `tcgen05.mma` /
//!   `tcgen05.cp` through the async proxy (§8.6, "Async proxy"): such a side is prefixed
//!   `texture:`, `surface:`, `constant:` or `async:`. Proxy-fence faults depend on exactly this.
//! - **Scope relations, not scope names.** A strong access's scope matters only through whether
//!   it includes the other thread (morally strong, §8.7; the Tile IR's §7.4 is the same with
//!   `tile_block` / `device` / `sys`): a side is written without its scope, with `.narrow` when
//!   its scope does not include the other thread. `relaxed.gpu` and `relaxed.sys` in one CTA are
//!   one feature; `relaxed.cta` across CTAs is another. `volatile` is `relaxed.sys` (§8.4).
//! - **Distance as the scope levels see it.** How far apart the two threads run is the narrowest
//!   scope holding both: `same-cta`, `same-cluster`, `other-cta` (one GPU), `other-gpu`; for tile
//!   blocks `same-block`, `same-device`, `other-device`; `mixed` for a PTX thread and a tile block.
//!   Warps are not told apart: no access here is warp-collective, and no scope is a warp.

use std::collections::{BTreeSet, HashMap};

use tcfuzz_litmus::{
    AccessProxy, AliasProxy, Instr, LocationKind, Placement, Program, Scope, Sem, StmtKind, Tcgen05, TileOp, TileOrdering, TileScope,
};

/// The proxy an access goes through (PTX ISA §8.6).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Proxy {
    Generic,
    Texture,
    Surface,
    Constant,
    Async,
}

impl Proxy {
    fn prefix(self) -> &'static str {
        match self {
            Proxy::Generic => "",
            Proxy::Texture => "texture:",
            Proxy::Surface => "surface:",
            Proxy::Constant => "constant:",
            Proxy::Async => "async:",
        }
    }
}

impl From<AccessProxy> for Proxy {
    fn from(p: AccessProxy) -> Proxy {
        match p {
            AccessProxy::Generic => Proxy::Generic,
            AccessProxy::Texture => Proxy::Texture,
            AccessProxy::Surface => Proxy::Surface,
            AccessProxy::Constant => Proxy::Constant,
        }
    }
}

/// Where a name leads: the memory behind it and the virtual address it uses.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Target {
    memory: String,
    vaddr: String,
}

/// Resolves names through alias declarations; an undeclared name is memory of its own.
struct Aliases<'a> {
    decl: HashMap<&'a str, (AliasProxy, &'a str)>,
}

impl<'a> Aliases<'a> {
    fn of(p: &'a Program) -> Aliases<'a> {
        let decl = p
            .locations
            .iter()
            .filter_map(|l| match &l.kind {
                LocationKind::Alias { proxy, target } => Some((l.name.as_str(), (*proxy, target.as_str()))),
                _ => None,
            })
            .collect();
        Aliases { decl }
    }

    fn resolve(&self, name: &str) -> Target {
        let mut cur = name;
        let mut vaddr: Option<&str> = None;
        // At most one step per alias: the validator rejects cycles, and this stays finite anyway.
        for _ in 0..=self.decl.len() {
            let Some(&(proxy, target)) = self.decl.get(cur) else { break };
            // The first generic alias on the chain is the virtual address the access uses; a
            // texture/surface/constant alias uses its target's (as the checker lowers them).
            if proxy == AliasProxy::Generic && vaddr.is_none() {
                vaddr = Some(cur);
            }
            cur = target;
        }
        Target { memory: cur.to_string(), vaddr: vaddr.unwrap_or(cur).to_string() }
    }
}

/// One side of a pair: what a thread does to the memory.
struct Access {
    thread: usize,
    target: Target,
    writes: bool,
    proxy: Proxy,
    /// `""`, `atom.` or `red.`: an rmw is a read and a write at once (§8.4).
    op: &'static str,
    /// `weak`, `relaxed`, `acquire`, `release`, `acq_rel`.
    sem: &'static str,
    /// The scope of a strong access (Tile IR scopes mapped to PTX's, as the checker maps them:
    /// `tile_block` → `.cta`, `device` → `.gpu`); `None` for a weak one.
    scope: Option<Scope>,
}

/// `None` / `.weak` give `weak` with no scope; `.volatile` is `.relaxed.sys` (PTX ISA §8.4, as the
/// checker lowers it); a strong access without a scope is `.gpu` (the checker's default).
fn strength(sem: Option<Sem>, scope: Option<Scope>) -> (&'static str, Option<Scope>) {
    match sem {
        None | Some(Sem::Weak) => ("weak", None),
        Some(Sem::Volatile) => ("relaxed", Some(Scope::Sys)),
        Some(Sem::Relaxed) => ("relaxed", Some(scope.unwrap_or(Scope::Gpu))),
        Some(Sem::Acquire) => ("acquire", Some(scope.unwrap_or(Scope::Gpu))),
        Some(Sem::Release) => ("release", Some(scope.unwrap_or(Scope::Gpu))),
        Some(Sem::AcqRel) => ("acq_rel", Some(scope.unwrap_or(Scope::Gpu))),
    }
}

/// Tile IR orderings and scopes (Tile IR spec §7.2, §7.3) as PTX strengths.
fn tile_strength(o: TileOrdering, s: Option<TileScope>) -> (&'static str, Option<Scope>) {
    let scope = match s {
        Some(TileScope::TileBlock) => Scope::Cta,
        Some(TileScope::Device) | None => Scope::Gpu,
        Some(TileScope::Sys) => Scope::Sys,
    };
    match o {
        TileOrdering::Weak => ("weak", None),
        TileOrdering::Relaxed => ("relaxed", Some(scope)),
        TileOrdering::Acquire => ("acquire", Some(scope)),
        TileOrdering::Release => ("release", Some(scope)),
        TileOrdering::AcqRel => ("acq_rel", Some(scope)),
    }
}

/// The memory accesses of instruction `i` of `thread`.
fn accesses(thread: usize, i: &Instr, names: &Aliases<'_>, tmem: &dyn Fn(&str) -> bool, out: &mut Vec<Access>) {
    let mut push = |name: &str, writes: bool, proxy: Proxy, op: &'static str, (sem, scope): (&'static str, Option<Scope>)| {
        out.push(Access { thread, target: names.resolve(name), writes, proxy, op, sem, scope });
    };
    // An async-proxy operation is weak (PTX ISA `cp.async.bulk`, `tcgen05.mma`: the checker makes
    // them weak async-proxy events).
    let weak = ("weak", None);
    match i {
        Instr::Ld(l) => push(&l.addr.name, false, l.proxy.into(), "", strength(l.sem, l.scope)),
        Instr::St(s) => push(&s.addr.name, true, s.proxy.into(), "", strength(s.sem, s.scope)),
        Instr::Atom(a) => push(&a.addr.name, true, Proxy::Generic, "atom.", strength(Some(a.effective_sem()), Some(a.effective_scope()))),
        Instr::Red(r) => push(&r.addr.name, true, Proxy::Generic, "red.", strength(Some(r.effective_sem()), Some(r.effective_scope()))),
        Instr::CpAsyncBulk(c) => {
            push(&c.src.name, false, Proxy::Async, "", weak);
            push(&c.dst.name, true, Proxy::Async, "", weak);
        }
        // TMEM operands are not shared with other threads' generic accesses; the shared-memory
        // operands are read through the async proxy.
        Instr::Tcgen05(Tcgen05::Mma { a, b, .. }) => {
            if !tmem(&a.name) {
                push(&a.name, false, Proxy::Async, "", weak);
            }
            push(&b.name, false, Proxy::Async, "", weak);
        }
        Instr::Tcgen05(Tcgen05::Cp { src, .. }) => push(&src.name, false, Proxy::Async, "", weak),
        Instr::Tile(TileOp::Load { ordering, scope, addr, .. }) => {
            push(&addr.name, false, Proxy::Generic, "", tile_strength(*ordering, *scope))
        }
        Instr::Tile(TileOp::Store { ordering, scope, addr, .. }) => {
            push(&addr.name, true, Proxy::Generic, "", tile_strength(*ordering, *scope))
        }
        Instr::Tile(TileOp::Atomic { ordering, scope, addr, .. }) => {
            push(&addr.name, true, Proxy::Generic, "atom.", tile_strength(*ordering, *scope))
        }
        _ => {}
    }
}

/// Whether `scope`, taken by a thread at `a`, includes a thread at `b` (PTX ISA §8.5 "Scope";
/// a tile block is placed like CTA `tlb` of GPU `dev`, as the checker places it).
fn includes(scope: Scope, a: &Placement, b: &Placement) -> bool {
    let (ga, ca, gb, cb) = match (a, b) {
        (Placement::Ptx { gpu: g1, cta: c1, .. }, Placement::Ptx { gpu: g2, cta: c2, .. }) => (g1, c1, g2, c2),
        (Placement::TileBlock { dev: g1, tlb: c1 }, Placement::TileBlock { dev: g2, tlb: c2 }) => (g1, c1, g2, c2),
        // A PTX thread and a tile block: only `.sys` is sure to hold both.
        _ => return scope == Scope::Sys,
    };
    match scope {
        Scope::Cta => ga == gb && ca == cb,
        Scope::Cluster => match (a.effective_cluster(), b.effective_cluster()) {
            (Some(x), Some(y)) => x == y,
            // Tile blocks have no clusters: `tile_block` maps to `.cta`, never `.cluster`.
            _ => ga == gb && ca == cb,
        },
        Scope::Gpu => ga == gb,
        Scope::Sys => true,
    }
}

/// How far apart two threads run: the narrowest scope level holding both.
fn distance(a: &Placement, b: &Placement) -> &'static str {
    let tile = matches!(a, Placement::TileBlock { .. });
    if matches!(a, Placement::TileBlock { .. }) != matches!(b, Placement::TileBlock { .. }) {
        "mixed"
    } else if includes(Scope::Cta, a, b) {
        if tile { "same-block" } else { "same-cta" }
    } else if !tile && includes(Scope::Cluster, a, b) {
        "same-cluster"
    } else if includes(Scope::Gpu, a, b) {
        if tile { "same-device" } else { "other-cta" }
    } else if tile {
        "other-device"
    } else {
        "other-gpu"
    }
}

/// One side as a feature writes it: `[proxy:][op.]sem[.narrow]`.
fn side(x: &Access, at: &Placement, other: &Placement) -> String {
    let narrow = match x.scope {
        Some(s) if !includes(s, at, other) => ".narrow",
        _ => "",
    };
    format!("{}{}{}{narrow}", x.proxy.prefix(), x.op, x.sem)
}

/// Adds the `pair:` features of `program` to `out`.
pub(super) fn pairs(program: &Program, out: &mut BTreeSet<String>) {
    let names = Aliases::of(program);
    let tmem_names: BTreeSet<&str> =
        program.locations.iter().filter(|l| matches!(l.kind, LocationKind::Tmem { .. })).map(|l| l.name.as_str()).collect();
    let tmem = |name: &str| tmem_names.contains(names.resolve(name).memory.as_str());
    let mut all = Vec::new();
    for (t, th) in program.threads.iter().enumerate() {
        for s in &th.body {
            if let StmtKind::Instr(i) = &s.kind {
                accesses(t, i, &names, &tmem, &mut all);
            }
        }
    }
    for (k, a) in all.iter().enumerate() {
        for b in &all[k + 1..] {
            if a.thread == b.thread || a.target.memory != b.target.memory || !(a.writes || b.writes) {
                continue;
            }
            let (pa, pb) = (&program.threads[a.thread].placement, &program.threads[b.thread].placement);
            let (sa, sb) = (side(a, pa, pb), side(b, pb, pa));
            let (x, y) = if sa <= sb { (sa, sb) } else { (sb, sa) };
            let alias = if a.target.vaddr != b.target.vaddr { "+alias" } else { "" };
            out.insert(format!("pair:{x}/{y}@{}{alias}", distance(pa, pb)));
        }
    }
}
