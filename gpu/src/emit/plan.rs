//! Where a litmus program's threads and locations go on a GPU: the placement plan of one test
//! instance.
//!
//! - **Threads.** A litmus thread is one warp: lane 0 performs its memory operations and the
//!   other lanes follow it (they receive every loaded value through `shfl.sync`, so branches stay
//!   warp-uniform and the warp-collective `.sync.aligned` instructions of `tcgen05` and barriers
//!   see the whole warp). A barrier thread count that is a multiple of the warp size counts warps
//!   in the litmus semantics too (`checker/src/program/sync.rs`), so nothing changes meaning.
//! - **CTAs and clusters.** The program's clusters (a declared `cluster N`, or a CTA of its own)
//!   are the *units* of an instance; each unit is one hardware cluster of `cluster_size` CTAs, so
//!   an instance is `units × cluster_size` consecutive CTAs of the grid. A CTA's rank in its
//!   hardware cluster is its litmus id minus the even id below its cluster's smallest: CTA pairs
//!   (`2k`, `2k+1`, PTX ISA §9.7.16.5.1) stay pairs.
//! - **Warps.** In a program that uses Tensor Memory, a thread placed on `warp w` gets the first
//!   free hardware warp congruent to `w` modulo 4, so it reaches the TMEM lane quarter its
//!   placement names (PTX ISA §9.7.16.5 Table 46); elsewhere a CTA's threads get warps 0, 1, ...
//!   in order. Two litmus threads on one warp get distinct warps (scopes do not distinguish
//!   warps). Warps no thread needs are idle: they only meet the harness's barriers.
//! - **Locations.** Global locations live in the memory buffer, one *slot* per location and
//!   instance, where the host puts them (the slot table of the control block, so the harness can
//!   spread instances over memory). Shared locations and mbarriers are `.shared` variables of their
//!   CTA. A location used by `cp.async.bulk` has a slot of 16 × the largest copy size: bulk
//!   copies move multiples of 16 bytes, so every transaction byte count of the program is scaled
//!   by 16 (`TX_SCALE`), which keeps every mbarrier's tx-count arithmetic as the program wrote it.

use std::collections::BTreeMap;

use tcfuzz_litmus::*;

use super::EmitError;

/// Bulk copies move multiples of 16 bytes (PTX ISA §9.7.9.25.4.1): litmus byte counts are scaled.
pub const TX_SCALE: i64 = 16;
/// Bytes of a shared-memory slot that `tcgen05.mma` / `tcgen05.cp` read as a matrix: enough for the
/// largest operand the emitted instruction descriptors name (N ≤ 256 rows of 16 f16 elements).
pub const MATRIX_BYTES: u32 = 8192;

#[derive(Clone, Debug)]
pub struct Plan {
    /// The program's clusters, in order of first appearance.
    pub units: Vec<ClusterId>,
    /// CTAs per hardware cluster.
    pub cluster_size: u32,
    /// Hardware warps per CTA (the block is `32 × warps_per_cta` threads).
    pub warps_per_cta: u32,
    pub threads: Vec<ThreadPlan>,
    pub globals: Vec<GlobalLoc>,
    pub shared: Vec<SharedLoc>,
    pub tmem: Vec<TmemRegion>,
    /// The allocations that hold the declared TMEM regions (made in the prologue).
    pub tmem_allocs: Vec<TmemAlloc>,
    /// Bytes per global slot (a multiple of 16).
    pub slot_bytes: u32,
}

#[derive(Clone, Debug)]
pub struct ThreadPlan {
    pub name: String,
    pub unit: u32,
    pub rank: u32,
    pub warp: u32,
    /// The litmus CTA id (placement), for scopes and shared-memory ownership.
    pub cta: u32,
}

#[derive(Clone, Debug)]
pub struct GlobalLoc {
    pub name: String,
    pub init: i64,
    pub wide: bool,
}

#[derive(Clone, Debug)]
pub struct SharedLoc {
    pub name: String,
    pub unit: u32,
    pub rank: u32,
    pub init: i64,
    pub wide: bool,
    /// An mbarrier object (`Some(count)` when declared with its expected count).
    pub mbarrier: Option<Option<u32>>,
    pub bytes: u32,
}

#[derive(Clone, Debug)]
pub struct TmemRegion {
    pub name: String,
    pub unit: u32,
    pub rank: u32,
    pub lanes: Range,
    pub cols: Range,
    pub init: i64,
    /// Index into [`Plan::tmem_allocs`].
    pub alloc: usize,
}

/// Declared TMEM regions stand for memory allocated before the program starts (`checker/src/program/tmem.rs`):
/// the prologue allocates, for each CTA, one block per set of regions whose columns overlap, so
/// that overlapping regions share memory as in the model and disjoint ones do not.
#[derive(Clone, Debug)]
pub struct TmemAlloc {
    pub unit: u32,
    pub rank: u32,
    /// The first column of the regions it holds (their column addresses are relative to it).
    pub lo: u32,
    /// Columns allocated: a power of two of at least 32 (PTX ISA §9.7.16.7.1).
    pub ncols: u32,
}

impl Plan {
    pub fn ctas_per_instance(&self) -> u32 {
        self.units.len() as u32 * self.cluster_size
    }

    /// Every CTA position of an instance: unit, cluster rank, and index within the instance.
    pub fn positions(&self) -> impl Iterator<Item = (u32, u32, u32)> + '_ {
        (0..self.units.len() as u32).flat_map(move |u| (0..self.cluster_size).map(move |r| (u, r, u * self.cluster_size + r)))
    }

    pub fn global(&self, name: &str) -> Option<usize> {
        self.globals.iter().position(|g| g.name == name)
    }

    pub fn shared_loc(&self, name: &str) -> Option<usize> {
        self.shared.iter().position(|s| s.name == name)
    }

    pub fn tmem_region(&self, name: &str) -> Option<usize> {
        self.tmem.iter().position(|t| t.name == name)
    }

    /// Litmus threads placed in the CTA at (`unit`, `rank`).
    pub fn threads_in(&self, unit: u32, rank: u32) -> impl Iterator<Item = (usize, &ThreadPlan)> {
        self.threads.iter().enumerate().filter(move |(_, t)| t.unit == unit && t.rank == rank)
    }

    /// Whether some CTA of an instance has a warp that runs no litmus thread, or some rank of a
    /// cluster runs no CTA of the program.
    pub fn has_idle_warps(&self) -> bool {
        let busy = self.threads.len() as u32;
        busy != self.ctas_per_instance() * self.warps_per_cta
    }
}

/// Every memory-like operand an instruction names, with what it must be.
pub fn operands(i: &Instr) -> Vec<&Addr> {
    match i {
        Instr::Ld(l) => vec![&l.addr],
        Instr::St(s) => vec![&s.addr],
        Instr::Atom(a) => vec![&a.addr],
        Instr::Red(r) => vec![&r.addr],
        Instr::CpAsyncBulk(c) => vec![&c.dst, &c.src, &c.mbar],
        Instr::Mbarrier(Mbarrier::Init { addr, .. } | Mbarrier::ExpectTx { addr, .. }) => vec![addr],
        Instr::Mbarrier(Mbarrier::Arrive(a)) => vec![&a.addr],
        Instr::Mbarrier(Mbarrier::Wait(w)) => vec![&w.addr],
        Instr::Tcgen05(t) => match t {
            Tcgen05::Alloc { slot, .. } => vec![slot],
            Tcgen05::Mma { d, a, b, .. } => vec![d, a, b],
            Tcgen05::Cp { d, src, .. } => vec![d, src],
            Tcgen05::Shift { d, .. } => vec![d],
            Tcgen05::Ld { src, .. } => vec![src],
            Tcgen05::St { dst, .. } => vec![dst],
            Tcgen05::Commit { mbar, .. } => vec![mbar],
            _ => vec![],
        },
        _ => vec![],
    }
}

fn instrs(p: &Program) -> impl Iterator<Item = (&Thread, &Instr)> {
    p.threads.iter().flat_map(|t| {
        t.body.iter().filter_map(move |s| match &s.kind {
            StmtKind::Instr(i) => Some((t, i)),
            StmtKind::Label(_) => None,
        })
    })
}

/// Whether an access names a 64-bit type.
fn wide_type(i: &Instr) -> bool {
    let ty = match i {
        Instr::Ld(l) => l.ty,
        Instr::St(s) => s.ty,
        Instr::Atom(a) => a.ty,
        Instr::Red(r) => r.ty,
        _ => None,
    };
    matches!(ty, Some(DataType::B64 | DataType::U64 | DataType::S64))
}

fn int_init(l: &Location) -> Result<i64, EmitError> {
    match &l.init {
        None => Ok(0),
        Some(Value::Int(v)) => Ok(*v),
        Some(Value::Tile(_)) => Err(EmitError::unsupported(l.span, format!("`{}` is a tile; PTX emission takes scalar locations", l.name))),
    }
}

pub fn plan(p: &Program) -> Result<Plan, EmitError> {
    for t in &p.threads {
        match t.placement {
            Placement::TileBlock { .. } => {
                return Err(EmitError::unsupported(
                    t.span,
                    format!("{} is a Tile IR tile-block thread: emit Tile IR programs with `--target tileir`", t.name),
                ));
            }
            Placement::Ptx { gpu, .. } if gpu != 0 => {
                return Err(EmitError::unsupported(t.span, format!("{} runs on gpu {gpu}: a kernel runs on one GPU", t.name)));
            }
            Placement::Ptx { .. } => {}
        }
    }
    for l in &p.locations {
        let gpu = match l.kind {
            LocationKind::Shared { gpu, .. } | LocationKind::Mbarrier { gpu, .. } | LocationKind::Tmem { gpu, .. } => gpu,
            LocationKind::Alias { .. } => {
                return Err(EmitError::unsupported(
                    l.span,
                    format!("`{}` is a virtual alias: emission does not map two addresses to one location", l.name),
                ));
            }
            LocationKind::Global => 0,
        };
        if gpu != 0 {
            return Err(EmitError::unsupported(l.span, format!("`{}` lives on gpu {gpu}: a kernel runs on one GPU", l.name)));
        }
    }

    // Units (clusters) and each cluster's rank base.
    let mut units: Vec<ClusterId> = Vec::new();
    let mut cta_unit: BTreeMap<u32, u32> = BTreeMap::new();
    for t in &p.threads {
        let Placement::Ptx { cta, .. } = t.placement else { continue };
        let Some(c) = t.placement.effective_cluster() else { continue };
        let u = match units.iter().position(|x| *x == c) {
            Some(u) => u as u32,
            None => {
                units.push(c);
                units.len() as u32 - 1
            }
        };
        if let Some(prev) = cta_unit.insert(cta, u)
            && prev != u
        {
            return Err(EmitError::unsupported(t.span, format!("CTA {cta} is placed in two clusters")));
        }
    }
    // CTAs that hold memory but run no thread form a unit of their own.
    for l in &p.locations {
        if let LocationKind::Shared { cta, .. } | LocationKind::Mbarrier { cta, .. } | LocationKind::Tmem { cta, .. } = l.kind
            && !cta_unit.contains_key(&cta)
        {
            units.push(ClusterId::OwnCta { gpu: 0, cta });
            cta_unit.insert(cta, units.len() as u32 - 1);
        }
    }
    if units.is_empty() {
        return Err(EmitError::unsupported(Span::default(), "the program has no thread".to_string()));
    }
    let mut base = vec![u32::MAX; units.len()];
    for (&cta, &u) in &cta_unit {
        base[u as usize] = base[u as usize].min(cta & !1);
    }
    let rank_of = |cta: u32| -> (u32, u32) {
        let u = cta_unit[&cta];
        (u, cta - base[u as usize])
    };
    let cluster_size = cta_unit.keys().map(|&c| rank_of(c).1 + 1).max().unwrap_or(1);
    if cluster_size > 8 {
        return Err(EmitError::unsupported(
            Span::default(),
            format!("a cluster spans {cluster_size} CTA ranks; portable clusters have at most 8"),
        ));
    }

    // Warps: only Tensor Memory cares which warp a thread is (its lane quarter); elsewhere the
    // warps of a CTA are packed, so that no warp idles (a cluster barrier counts every warp).
    let tmem =
        p.locations.iter().any(|l| matches!(l.kind, LocationKind::Tmem { .. })) || instrs(p).any(|(_, i)| matches!(i, Instr::Tcgen05(_)));
    let mut used: BTreeMap<(u32, u32), Vec<u32>> = BTreeMap::new();
    let mut threads = Vec::new();
    for t in &p.threads {
        let Placement::Ptx { cta, warp, .. } = t.placement else { continue };
        let (unit, rank) = rank_of(cta);
        let (want, step) = if tmem { (warp.unwrap_or(0) % 4, 4) } else { (0, 1) };
        let taken = used.entry((unit, rank)).or_default();
        let hw = (0..).map(|k| want + step * k).find(|w| !taken.contains(w)).unwrap_or(want);
        taken.push(hw);
        threads.push(ThreadPlan { name: t.name.clone(), unit, rank, warp: hw, cta });
    }
    let warps_per_cta = threads.iter().map(|t| t.warp + 1).max().unwrap_or(1);
    if warps_per_cta > 32 {
        return Err(EmitError::unsupported(Span::default(), format!("a CTA needs {warps_per_cta} warps; a CTA has at most 32")));
    }

    // Locations: declared ones, then names the program uses without declaring (global, 0).
    let mut wide: BTreeMap<&str, bool> = BTreeMap::new();
    let mut bulk: BTreeMap<&str, i64> = BTreeMap::new();
    let mut matrix: BTreeMap<&str, bool> = BTreeMap::new();
    let mut used_names: Vec<&str> = Vec::new();
    for (_, i) in instrs(p) {
        for a in operands(i) {
            if !used_names.contains(&a.name.as_str()) {
                used_names.push(&a.name);
            }
            *wide.entry(&a.name).or_default() |= wide_type(i);
        }
        if let Instr::CpAsyncBulk(c) = i {
            let size = match c.size {
                Operand::Imm(v) if v > 0 => v,
                _ => {
                    return Err(EmitError::unsupported(
                        Span::default(),
                        "a `cp.async.bulk` size must be a positive immediate to be emitted".to_string(),
                    ));
                }
            };
            for n in [&c.dst.name, &c.src.name] {
                let e = bulk.entry(n).or_default();
                *e = (*e).max(size);
            }
        }
        if let Instr::Tcgen05(Tcgen05::Mma { a, b, .. } | Tcgen05::Cp { src: a, d: b, .. }) = i {
            matrix.insert(&a.name, true);
            matrix.insert(&b.name, true);
        }
    }
    let bulk_bytes = |name: &str| bulk.get(name).map_or(0, |s| (s * TX_SCALE) as u32);
    let mut globals = Vec::new();
    let mut shared = Vec::new();
    let mut tmem = Vec::new();
    for l in &p.locations {
        let is_wide = wide.get(l.name.as_str()).copied().unwrap_or(false);
        match l.kind {
            LocationKind::Global => globals.push(GlobalLoc { name: l.name.clone(), init: int_init(l)?, wide: is_wide }),
            LocationKind::Shared { cta, .. } => {
                let (unit, rank) = rank_of(cta);
                let mut bytes = bulk_bytes(&l.name).max(8);
                if matrix.contains_key(l.name.as_str()) {
                    bytes = bytes.max(MATRIX_BYTES);
                }
                shared.push(SharedLoc { name: l.name.clone(), unit, rank, init: int_init(l)?, wide: is_wide, mbarrier: None, bytes });
            }
            LocationKind::Mbarrier { cta, count, .. } => {
                let (unit, rank) = rank_of(cta);
                shared.push(SharedLoc { name: l.name.clone(), unit, rank, init: 0, wide: true, mbarrier: Some(count), bytes: 8 });
            }
            LocationKind::Tmem { cta, lanes, cols, .. } => {
                let (unit, rank) = rank_of(cta);
                tmem.push(TmemRegion { name: l.name.clone(), unit, rank, lanes, cols, init: int_init(l)?, alloc: 0 });
            }
            LocationKind::Alias { .. } => {}
        }
    }
    for name in used_names {
        if !p.locations.iter().any(|l| l.name == name) {
            globals.push(GlobalLoc { name: name.to_string(), init: 0, wide: wide.get(name).copied().unwrap_or(false) });
        }
    }
    let tmem_allocs = tmem_allocations(&mut tmem)?;
    // The warp of a region's lane quarter writes its initial value: the CTA needs that warp.
    let warps_per_cta = tmem.iter().map(|r| r.lanes.lo / 32 + 1).max().unwrap_or(0).max(warps_per_cta);
    let slot_bytes = globals.iter().map(|g| bulk_bytes(&g.name)).max().unwrap_or(0).max(16).next_multiple_of(16);
    Ok(Plan { units, cluster_size, warps_per_cta, threads, globals, shared, tmem, tmem_allocs, slot_bytes })
}

/// Groups each CTA's regions into allocations of overlapping column ranges.
fn tmem_allocations(regions: &mut [TmemRegion]) -> Result<Vec<TmemAlloc>, EmitError> {
    let mut allocs: Vec<(u32, u32, u32, u32)> = Vec::new(); // unit, rank, lo, hi
    let mut order: Vec<usize> = (0..regions.len()).collect();
    order.sort_by_key(|&i| (regions[i].unit, regions[i].rank, regions[i].cols.lo));
    for i in order {
        let r = &regions[i];
        match allocs.last_mut() {
            Some(a) if (a.0, a.1) == (r.unit, r.rank) && r.cols.lo <= a.3 => a.3 = a.3.max(r.cols.hi),
            _ => allocs.push((r.unit, r.rank, r.cols.lo, r.cols.hi)),
        }
        regions[i].alloc = allocs.len() - 1;
    }
    let mut out = Vec::new();
    for (unit, rank, lo, hi) in allocs {
        let ncols = (hi - lo + 1).next_power_of_two().max(32);
        if ncols > 512 {
            return Err(EmitError::unsupported(Span::default(), format!("TMEM regions spanning {ncols} columns: a CTA has 512")));
        }
        out.push(TmemAlloc { unit, rank, lo, ncols });
    }
    Ok(out)
}
