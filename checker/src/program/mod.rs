//! Lowering a litmus [`Program`] into what the checker runs: a location table, per-thread code over
//! numbered registers, thread placements, and the final condition over a flat final-state vector.
//!
//! Defaults applied here (the IR keeps what the text says; PTX ISA §9.7.9.8 `ld`, §9.7.9.9 `st`,
//! §9.7.13.5 `atom`): `ld`/`st` without `.sem` are weak; `.volatile` is treated as `.relaxed.sys`
//! (§8.4 "Operation types"); `atom`/`red` without `.sem` are `.relaxed`, without scope `.gpu`; a
//! strong `ld`/`st` that names no scope gets `.gpu` as well (the validator normally rejects it).
//! `membar.{cta,gl,sys}` is `fence.sc` at that scope (§9.7.13.4).
//!
//! `bar.sync a` / `bar.sync a, b` in a program without thread counts or `bar.arrive` are symmetric
//! barrier events met by the threads that execute the same operands (see [`crate::program::sync`] for this
//! reading of PTX ISA §9.7.13.1 and Dat3M's barrier ids). Barriers with a thread count,
//! `bar.arrive`, Dat3M's three-operand quorum barrier, cluster barriers, mbarriers and
//! `cp.async.bulk` become synchronization objects ([`crate::program::sync`], lowered by `sync_lower.rs`).
//!
//! Proxies (§8.6): `tld` / `suld` / `sust` / `cold` go through the texture / surface / constant
//! proxy; `x @ generic aliases y` is a second virtual address of `y`'s physical location, and
//! texture / surface / constant aliases are views of their target's virtual address;
//! `fence.proxy.alias` and `fence.proxy.{texture,surface,constant}` become proxy fences.
//!
//! Not modelled yet (lowering returns [`CheckError::Unsupported`]): the async proxy
//! (`fence.proxy.async`; `cp.async.bulk` is approximated, see [`crate::program::sync`]), barrier ids and
//! thread counts in registers that are not constants, `tcgen05`, tile values. A condition that
//! names an alias reads the physical location behind it.

use std::collections::HashMap;

use tcfuzz_litmus::{
    AccessProxy, AliasProxy, Arch, AtomOp, BranchCond, ClusterId, Fence, Instr, LocationKind, Operand, Placement, Program, Prop,
    Quantifier, Scope, Sem, Span, StmtKind, Term, Value,
};

use crate::error::CheckError;
pub use crate::program::code::{AllocOp, CodeLine, Op, Opnd, TcFn, ThreadCode, rmw_result};
use crate::program::label::{EventKind, Label, LocId, Proxy};
use crate::program::sync::SyncPlan;

pub mod code;
pub mod label;
mod ordering_rmws;
pub(crate) mod porf_cycles;
pub mod sync;
mod sync_lower;
mod tc_lower;
pub mod tile_program;
pub mod tmem;

/// The most events one thread may produce in one execution (dependency masks are 64 bits wide).
pub const MAX_EVENTS_PER_THREAD: usize = 64;

/// The most threads a program may have (barrier membership is a 64-bit mask whose top bit is
/// [`ABSENT_MEMBER`]).
pub const MAX_THREADS: usize = 63;

/// A member of a symmetric barrier that never arrives: the peer warp of a `cta_group::2`
/// rendezvous whose peer CTA does not take part.
pub const ABSENT_MEMBER: u64 = 1 << 63;

#[derive(Clone, Debug)]
pub struct LocInfo {
    pub name: String,
    pub init: i64,
    /// A Tensor Memory region (`d @ tmem ...`): accessed only by `tcgen05` instructions.
    pub tmem: bool,
}

/// A name accesses may use: a location or an alias of one (`y @ generic aliases x`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Name {
    /// The physical location.
    pub(crate) loc: LocId,
    /// The virtual address.
    pub(crate) vloc: LocId,
}

/// Where a PTX thread runs, with its cluster resolved (§8.5: scopes are sets of threads).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ThreadPlace {
    pub gpu: u32,
    pub cluster: ClusterId,
    pub cta: u32,
}

impl ThreadPlace {
    /// Whether `scope`, taken by a thread placed at `self`, includes a thread placed at `other`.
    pub fn scope_includes(&self, scope: Scope, other: &ThreadPlace) -> bool {
        match scope {
            Scope::Cta => self.gpu == other.gpu && self.cta == other.cta,
            Scope::Cluster => self.cluster == other.cluster,
            Scope::Gpu => self.gpu == other.gpu,
            Scope::Sys => true,
        }
    }
}

/// A condition term over the final state vector.
#[derive(Clone, Debug)]
pub enum CTerm {
    Const(i64),
    /// Index into the final state vector.
    Slot(usize),
}

#[derive(Clone, Debug)]
pub enum CProp {
    True,
    Cmp { lhs: CTerm, eq: bool, rhs: CTerm },
    Not(Box<CProp>),
    And(Box<CProp>, Box<CProp>),
    Or(Box<CProp>, Box<CProp>),
}

impl CProp {
    pub fn eval(&self, state: &[i64]) -> bool {
        let term = |t: &CTerm| match *t {
            CTerm::Const(v) => v,
            CTerm::Slot(i) => state[i],
        };
        match self {
            CProp::True => true,
            CProp::Cmp { lhs, eq, rhs } => (term(lhs) == term(rhs)) == *eq,
            CProp::Not(p) => !p.eval(state),
            CProp::And(a, b) => a.eval(state) && b.eval(state),
            CProp::Or(a, b) => a.eval(state) || b.eval(state),
        }
    }
}

/// A program ready to be explored. The final state of an execution is a flat vector: every
/// register of thread 0 (in `reg_names` order), of thread 1, ..., then every location.
/// Outside the crate it is opaque: [`CompiledProgram::compile`] it once, then check it under
/// several models (`check_compiled`, `check_oracle_compiled`, `check_exact_compiled`).
#[derive(Clone, Debug)]
pub struct CompiledProgram {
    pub(crate) name: String,
    pub(crate) locations: Vec<LocInfo>,
    pub(crate) threads: Vec<ThreadCode>,
    pub(crate) places: Vec<ThreadPlace>,
    /// Per symmetric barrier id (the `loc` of barrier events), the threads (bit `t`) whose code
    /// arrives there: an instance completes when each of them has arrived.
    pub(crate) barrier_members: Vec<u64>,
    /// Per symmetric barrier id, the threads that may arrive there through a barrier whose
    /// second operand is set at run time ([`Op::DynBarrier`]; [`crate::exec::graph`]).
    pub(crate) barrier_dyn_members: Vec<u64>,
    /// The hidden locations of the CTAs' Tensor Memory allocators ([`crate::program::tmem`]).
    pub(crate) tmem_allocators: Vec<LocId>,
    /// The locations of mbarrier objects (packed states, [`crate::program::sync::Mbar`]).
    pub(crate) mbarriers: Vec<LocId>,
    /// In a variant of [`Self::rendezvous_variants`]: the rendezvous (barrier ids) that block.
    pub(crate) blocking_rendezvous: Vec<u32>,
    pub(crate) quantifier: Quantifier,
    pub(crate) condition: CProp,
    /// Slots of the final state the condition mentions (what herd7 prints).
    pub(crate) observed: Vec<usize>,
    /// Token order of a Tile IR program (`crate::program::tile_program`); `None` for PTX programs.
    pub(crate) tile: Option<crate::program::tile_program::TileInfo>,
    /// [`Self::may_have_porf_cycles`] where compiling found it out already (a PTX program with an
    /// rmw: `crate::program::ordering_rmws`), so that the explorer does not search again.
    pub(crate) porf_cycles: Option<bool>,
}

impl CompiledProgram {
    /// Whether some thread has an `assume`.
    pub(crate) fn has_assume(&self) -> bool {
        self.threads.iter().flat_map(|t| &t.code).any(|l| matches!(l.op, Op::Assume { .. }))
    }

    /// Whether some instruction makes barrier arrivals (a `bar`, a barrier chosen by a register,
    /// a `cta_group::2` Tensor Memory allocation's rendezvous): the only events
    /// [`barrier_label`] labels.
    pub(crate) fn has_barriers(&self) -> bool {
        self.threads
            .iter()
            .flat_map(|t| &t.code)
            .any(|l| matches!(l.op, Op::Barrier { .. } | Op::DynBarrier { .. } | Op::TmemAlloc { rendezvous: Some(_), .. }))
    }

    /// Whether some thread has a blocking wait that reads an object: a `SyncWait` that blocks,
    /// or an arrive that then waits (a failed one stops its thread, `crate::exec::interp`).
    pub(crate) fn has_blocking_wait(&self) -> bool {
        self.threads
            .iter()
            .flat_map(|t| &t.code)
            .any(|l| matches!(l.op, Op::SyncWait { blocking: true, .. } | Op::SyncArrive { wait: Some(_), .. }))
    }

    pub(crate) fn state_len(&self) -> usize {
        self.threads.iter().map(|t| t.reg_names.len()).sum::<usize>() + self.locations.len()
    }

    /// Offset of thread `t`'s first register in the state vector.
    pub(crate) fn reg_offset(&self, t: usize) -> usize {
        self.threads[..t].iter().map(|t| t.reg_names.len()).sum()
    }

    /// Whether some thread arrives at a cluster barrier (whose misuse a replay finds).
    pub(crate) fn has_cluster_barrier(&self) -> bool {
        self.threads
            .iter()
            .flat_map(|t| &t.code)
            .any(|l| matches!(l.op, Op::SyncArrive { op: crate::program::sync::SyncOp::ClusterArrive { .. }, .. }))
    }

    /// Whether some thread issues an asynchronous tcgen05 operation (whose perform program order
    /// does not order, PTX ISA §9.7.16.6.1).
    pub(crate) fn has_async_operations(&self) -> bool {
        self.threads.iter().flat_map(|t| &t.code).any(|l| match &l.op {
            Op::Load { label, .. } | Op::Store { label, .. } => label.is_async(),
            Op::TcCompute { .. } | Op::TcCommit { .. } => true,
            _ => false,
        })
    }

    /// Whether every event of this PTX program is performed where its thread issues it: no Tile
    /// IR, no asynchronous `tcgen05` operation or allocator, no bulk copy, no commit — none of
    /// which program order puts before the later events of its thread.
    pub(crate) fn performed_in_order(&self) -> bool {
        self.tile.is_none()
            && !self.has_async_operations()
            && self.tmem_allocators.is_empty()
            && !self.threads.iter().flat_map(|t| &t.code).any(|l| matches!(l.op, Op::BulkCopy { .. } | Op::TcCommit { .. }))
    }

    /// Whether an execution could have a cyclic `po ∪ rf`. For PTX programs, a static
    /// over-approximation on instructions ([`crate::program::porf_cycles`]). For Tile IR programs, where
    /// program order orders nothing (Tile IR spec §7.12.1), a syntactic test: that needs two
    /// threads that each read and later write — or one, when a read may take its value from a
    /// later write of its own thread; a thread qualifies if a read instruction comes before a
    /// write instruction, or it has a loop and both.
    pub(crate) fn may_have_porf_cycles(&self) -> bool {
        if let Some(known) = self.porf_cycles {
            return known;
        }
        if self.tile.is_none() {
            return crate::program::porf_cycles::may_have_porf_cycles(self);
        }
        let aliased = self.threads.iter().flat_map(|t| &t.code).any(|l| match &l.op {
            Op::Load { label, .. } | Op::Store { label, .. } => label.vloc != label.loc,
            _ => false,
        });
        let qualifying = self.threads.iter().filter(|t| {
            let reads = |op: &Op| {
                matches!(
                    op,
                    Op::Load { .. }
                        | Op::Rmw { .. }
                        | Op::SyncArrive { .. }
                        | Op::SyncWait { .. }
                        | Op::BulkCopy { .. }
                        | Op::TcCompute { .. }
                        | Op::TcCommit { .. }
                        | Op::TmemAlloc { .. }
                )
            };
            let writes = |op: &Op| {
                matches!(
                    op,
                    Op::Store { .. }
                        | Op::Rmw { .. }
                        | Op::SyncArrive { .. }
                        | Op::BulkCopy { .. }
                        | Op::TcCompute { .. }
                        | Op::TcCommit { .. }
                        | Op::TmemAlloc { .. }
                )
            };
            let first_read = t.code.iter().position(|l| reads(&l.op));
            let last_write = t.code.iter().rposition(|l| writes(&l.op));
            let looping = t.code.iter().enumerate().any(|(pc, l)| match l.op {
                Op::Branch { target, .. } | Op::Goto { target } => target <= pc,
                _ => false,
            });
            match (first_read, last_write) {
                (Some(r), Some(w)) => r < w || looping || r == w,
                _ => false,
            }
        });
        // In a Tile IR thread program order orders nothing, so a read may read from a later write
        // of its own thread (Tile IR spec §7.12.1); nor does it order the perform of an
        // asynchronous tcgen05 operation (PTX ISA §9.7.16.6.1).
        qualifying.count() >= if aliased || self.has_async_operations() || self.tile.is_some() { 1 } else { 2 }
    }

    pub(crate) fn slot_name(&self, slot: usize) -> String {
        let mut s = slot;
        for t in &self.threads {
            if s < t.reg_names.len() {
                return format!("{}:{}", t.name, t.reg_names[s]);
            }
            s -= t.reg_names.len();
        }
        self.locations[s].name.clone()
    }

    /// For a program with `cta_group::2` allocator rendezvous (which "could block", PTX ISA
    /// §9.7.16.5 Table 46): one program per choice of which rendezvous block — the executions
    /// of the program are those of its variants. Empty when there is no rendezvous. An execution
    /// that never reaches some rendezvous arises in several variants; it belongs to the one where
    /// the rendezvous it does not reach do not block ([`crate::verdict`] skips it elsewhere).
    pub(crate) fn rendezvous_variants(&self) -> Result<Vec<CompiledProgram>, CheckError> {
        let mut ids: Vec<u32> = Vec::new();
        for line in self.threads.iter().flat_map(|t| &t.code) {
            if let Op::TmemAlloc { rendezvous: Some(l), .. } = &line.op
                && !ids.contains(&l.loc)
            {
                ids.push(l.loc);
            }
        }
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        if ids.len() > 6 {
            return Err(CheckError::TooLarge(format!("{} cta_group::2 allocator rendezvous (at most 6)", ids.len())));
        }
        let variants = (0..1u32 << ids.len())
            .map(|blocking| {
                let mut v = self.clone();
                v.blocking_rendezvous = ids.iter().enumerate().filter(|(i, _)| blocking & (1 << i) != 0).map(|(_, &id)| id).collect();
                for line in v.threads.iter_mut().flat_map(|t| &mut t.code) {
                    if let Op::TmemAlloc { rendezvous, read, .. } = &mut line.op
                        && let Some(l) = *rendezvous
                        && let Some(i) = ids.iter().position(|&id| id == l.loc)
                        && blocking & (1 << i) == 0
                    {
                        *rendezvous = None;
                        if let Some(tc) = &mut read.tc {
                            tc.first = true;
                        }
                    }
                }
                v
            })
            .collect();
        Ok(variants)
    }

    pub fn compile(p: &Program) -> Result<CompiledProgram, CheckError> {
        if p.arch == Arch::TileIr {
            return crate::program::tile_program::compile(p);
        }
        let mut locations = Vec::new();
        let mut mbarriers = Vec::new();
        let mut loc_ids: HashMap<&str, Name> = HashMap::new();
        for l in &p.locations {
            match &l.kind {
                LocationKind::Global | LocationKind::Shared { .. } => {}
                LocationKind::Mbarrier { .. } => {
                    // An mbarrier object: a location holding its state (crate::program::sync).
                    let id = locations.len() as LocId;
                    loc_ids.insert(&l.name, Name { loc: id, vloc: id });
                    mbarriers.push(id);
                    let init = crate::program::sync::mbarrier_init(&l.kind).unwrap_or(crate::program::sync::MBAR_UNINIT);
                    locations.push(LocInfo { name: l.name.clone(), init, tmem: false });
                    continue;
                }
                LocationKind::Tmem { .. } => {
                    // A Tensor Memory region: one location with one abstract value (tc_lower.rs).
                    let init = match &l.init {
                        None => 0,
                        Some(Value::Int(v)) => *v,
                        Some(Value::Tile(_)) => return Err(CheckError::unsupported(format!("tile value of `{}`", l.name), l.span)),
                    };
                    let id = locations.len() as LocId;
                    loc_ids.insert(&l.name, Name { loc: id, vloc: id });
                    locations.push(LocInfo { name: l.name.clone(), init, tmem: true });
                    continue;
                }
                LocationKind::Alias { .. } => continue,
            }
            let init = match &l.init {
                None => 0,
                Some(Value::Int(v)) => *v,
                Some(Value::Tile(_)) => {
                    return Err(CheckError::unsupported(format!("tile value of `{}`", l.name), l.span));
                }
            };
            let id = locations.len() as LocId;
            loc_ids.insert(&l.name, Name { loc: id, vloc: id });
            locations.push(LocInfo { name: l.name.clone(), init, tmem: false });
        }
        // Aliases (PTX ISA §8.6 "Proxies"; the mixedproxy / Dat3M `x @ proxy aliases y`): a
        // generic alias is another virtual address of the same physical location; a texture,
        // surface or constant alias is a view of its target's (generic) virtual address through
        // that proxy, so it shares the target's virtual address. Declarations may come in any order.
        let mut next_vloc = locations.len() as LocId + 1024;
        let mut pending: Vec<&tcfuzz_litmus::Location> =
            p.locations.iter().filter(|l| matches!(l.kind, LocationKind::Alias { .. })).collect();
        while !pending.is_empty() {
            let before = pending.len();
            let mut rest = Vec::new();
            for l in pending {
                let LocationKind::Alias { proxy, target } = &l.kind else { continue };
                match loc_ids.get(target.as_str()).copied() {
                    Some(t) => {
                        let vloc = if *proxy == AliasProxy::Generic {
                            next_vloc += 1;
                            next_vloc
                        } else {
                            t.vloc
                        };
                        loc_ids.insert(&l.name, Name { loc: t.loc, vloc });
                    }
                    None => rest.push(l),
                }
            }
            if rest.len() == before {
                let l = rest[0];
                return Err(CheckError::bad(format!("alias `{}` does not lead to a location", l.name), l.span));
            }
            pending = rest;
        }
        // Locations a program uses without declaring them start at 0 (herd7 and Dat3M do the same).
        for t in &p.threads {
            for s in &t.body {
                let StmtKind::Instr(instr) = &s.kind else { continue };
                let name = match instr {
                    Instr::Ld(l) => &l.addr.name,
                    Instr::St(st) => &st.addr.name,
                    Instr::Atom(a) => &a.addr.name,
                    Instr::Red(r) => &r.addr.name,
                    _ => continue,
                };
                if !p.locations.iter().any(|l| &l.name == name) && !loc_ids.contains_key(name.as_str()) {
                    let id = locations.len() as LocId;
                    loc_ids.insert(name, Name { loc: id, vloc: id });
                    locations.push(LocInfo { name: name.clone(), init: 0, tmem: false });
                }
            }
        }
        if p.threads.len() > MAX_THREADS {
            return Err(CheckError::TooLarge(format!("{} threads (the checker handles at most {MAX_THREADS})", p.threads.len())));
        }
        let sync = SyncPlan::new(p, &mut locations);
        let mut threads = Vec::new();
        let mut places = Vec::new();
        for (ti, t) in p.threads.iter().enumerate() {
            match t.placement {
                Placement::Ptx { gpu, cta, .. } => {
                    let cluster = t.placement.effective_cluster().ok_or_else(|| CheckError::bad("PTX thread without a cluster", t.span))?;
                    places.push(ThreadPlace { gpu, cluster, cta });
                }
                Placement::TileBlock { .. } => {
                    return Err(CheckError::unsupported("Tile IR tile-block thread", t.span));
                }
            }
            threads.push(lower_thread(p, ti, &loc_ids, &locations, &sync)?);
        }
        let mut observed = Vec::new();
        let mut cp = CompiledProgram {
            name: p.name.clone(),
            locations,
            threads,
            places,
            barrier_members: sync.barrier_members(),
            barrier_dyn_members: sync.barrier_dyn_members(),
            tmem_allocators: sync.tmem_allocators(),
            mbarriers,
            blocking_rendezvous: Vec::new(),
            quantifier: p.condition.quantifier,
            condition: CProp::True,
            observed: Vec::new(),
            tile: None,
            porf_cycles: None,
        };
        // Registers the condition names but no instruction writes still get a slot.
        let mut slot_terms = Vec::new();
        collect_terms(&p.condition.prop, &mut slot_terms);
        for (term, span) in &slot_terms {
            if let Term::Reg { thread, reg } = term {
                let ti =
                    find_thread(p, thread).ok_or_else(|| CheckError::bad(format!("condition names unknown thread `{thread}`"), *span))?;
                let tc = &mut cp.threads[ti];
                if !tc.reg_names.iter().any(|r| r == reg) {
                    tc.reg_names.push(reg.clone());
                    tc.reg_init.push(0);
                }
            }
        }
        let names: HashMap<&str, LocId> = loc_ids.iter().map(|(k, v)| (*k, v.loc)).collect();
        let condition = lower_prop(p, &cp, &names, &p.condition.prop, &mut observed)?;
        observed.sort_unstable();
        observed.dedup();
        cp.condition = condition;
        cp.observed = observed;
        crate::program::ordering_rmws::mark_ordering_rmws(&mut cp);
        Ok(cp)
    }
}

fn find_thread(p: &Program, name: &str) -> Option<usize> {
    p.threads.iter().position(|t| t.name == name).or_else(|| {
        let idx: usize = name.trim_start_matches('P').parse().ok()?;
        (idx < p.threads.len()).then_some(idx)
    })
}

fn collect_terms<'a>(prop: &'a Prop, out: &mut Vec<(&'a Term, Span)>) {
    match prop {
        Prop::True => {}
        Prop::Atom(c) => {
            out.push((&c.lhs, c.span));
            out.push((&c.rhs, c.span));
        }
        Prop::Not(p) => collect_terms(p, out),
        Prop::And(a, b) | Prop::Or(a, b) => {
            collect_terms(a, out);
            collect_terms(b, out);
        }
    }
}

/// `names`: every location and alias name, with its physical location (a condition on an alias
/// reads the memory it aliases).
fn lower_prop(
    p: &Program,
    cp: &CompiledProgram,
    names: &HashMap<&str, LocId>,
    prop: &Prop,
    observed: &mut Vec<usize>,
) -> Result<CProp, CheckError> {
    Ok(match prop {
        Prop::True => CProp::True,
        Prop::Atom(c) => {
            let mut term = |t: &Term| -> Result<CTerm, CheckError> {
                Ok(match t {
                    Term::Const(Value::Int(v)) => CTerm::Const(*v),
                    Term::Const(Value::Tile(_)) => return Err(CheckError::unsupported("tile value in condition", c.span)),
                    Term::Reg { thread, reg } => {
                        let ti = find_thread(p, thread).ok_or_else(|| CheckError::bad(format!("unknown thread `{thread}`"), c.span))?;
                        let ri = cp.threads[ti]
                            .reg_names
                            .iter()
                            .position(|r| r == reg)
                            .expect("[tcfuzz internal bug] condition register was given a slot");
                        let slot = cp.reg_offset(ti) + ri;
                        observed.push(slot);
                        CTerm::Slot(slot)
                    }
                    Term::Loc { name, element: None } => {
                        let li = *names.get(name.as_str()).ok_or_else(|| CheckError::bad(format!("unknown location `{name}`"), c.span))?;
                        let slot = cp.state_len() - cp.locations.len() + li as usize;
                        observed.push(slot);
                        CTerm::Slot(slot)
                    }
                    Term::Loc { element: Some(_), .. } => {
                        return Err(CheckError::unsupported("tile element in condition", c.span));
                    }
                })
            };
            CProp::Cmp { lhs: term(&c.lhs)?, eq: c.eq, rhs: term(&c.rhs)? }
        }
        Prop::Not(q) => CProp::Not(Box::new(lower_prop(p, cp, names, q, observed)?)),
        Prop::And(a, b) => CProp::And(Box::new(lower_prop(p, cp, names, a, observed)?), Box::new(lower_prop(p, cp, names, b, observed)?)),
        Prop::Or(a, b) => CProp::Or(Box::new(lower_prop(p, cp, names, a, observed)?), Box::new(lower_prop(p, cp, names, b, observed)?)),
    })
}

pub(crate) struct Regs<'a> {
    names: Vec<String>,
    init: Vec<i64>,
    program: &'a Program,
    thread: &'a str,
    index: usize,
}

impl Regs<'_> {
    pub(crate) fn reg(&mut self, r: &str) -> Result<Option<usize>, CheckError> {
        if r == "_" {
            return Ok(None);
        }
        if let Some(i) = self.names.iter().position(|n| n == r) {
            return Ok(Some(i));
        }
        let mut init = 0;
        for ri in &self.program.reg_inits {
            let same_thread = ri.thread == self.thread || ri.thread.trim_start_matches('P') == self.index.to_string();
            if same_thread && ri.reg == r {
                init = match ri.value {
                    Value::Int(v) => v,
                    Value::Tile(_) => return Err(CheckError::unsupported("tile register value", ri.span)),
                };
            }
        }
        self.names.push(r.to_string());
        self.init.push(init);
        Ok(Some(self.names.len() - 1))
    }

    pub(crate) fn opnd(&mut self, o: &Operand) -> Result<Opnd, CheckError> {
        Ok(match o {
            Operand::Imm(v) => Opnd::Imm(*v),
            Operand::Reg(r) => match self.reg(r)? {
                Some(i) => Opnd::Reg(i),
                None => Opnd::Imm(0),
            },
        })
    }
}

fn access_proxy(p: AccessProxy) -> Proxy {
    match p {
        AccessProxy::Generic => Proxy::Generic,
        AccessProxy::Texture => Proxy::Texture,
        AccessProxy::Surface => Proxy::Surface,
        AccessProxy::Constant => Proxy::Constant,
    }
}

/// `fence.proxy.alias` (generic, marked as the alias fence) and `fence.proxy.{texture,surface,
/// constant}` (a fence of that proxy). Neither orders like `fence.acq_rel`.
pub(crate) fn async_proxy_fence_label() -> Label {
    let mut l = fence_label(Scope::Cta, false);
    l.acquire = false;
    l.release = false;
    l.proxy = Proxy::Async;
    l
}

fn proxy_fence_label(kind: AliasProxy) -> Label {
    let mut l = fence_label(Scope::Cta, false);
    l.acquire = false;
    l.release = false;
    match kind {
        AliasProxy::Generic => l.alias_fence = true,
        AliasProxy::Texture => l.proxy = Proxy::Texture,
        AliasProxy::Surface => l.proxy = Proxy::Surface,
        AliasProxy::Constant => l.proxy = Proxy::Constant,
    }
    l
}

pub(crate) fn access(kind: EventKind, name: Name, sem: Option<Sem>, scope: Option<Scope>, span: Span) -> Result<Label, CheckError> {
    let mut l = Label {
        kind,
        loc: name.loc,
        vloc: name.vloc,
        proxy: Proxy::Generic,
        alias_fence: false,
        completion_fence: false,
        bulk_copy: 0,
        strong: true,
        scope: scope.unwrap_or(Scope::Gpu),
        acquire: false,
        release: false,
        sc: false,
        atomic: false,
        rmw_write: false,
        orders_thread: false,
        object: false,
        tc: None,
    };
    match sem {
        None | Some(Sem::Weak) => {
            l.strong = false;
            l.scope = Scope::Sys;
        }
        Some(Sem::Volatile) => l.scope = Scope::Sys,
        Some(Sem::Relaxed) => {}
        Some(Sem::Acquire) if kind == EventKind::Read => l.acquire = true,
        Some(Sem::Release) if kind == EventKind::Write => l.release = true,
        Some(s) => return Err(CheckError::bad(format!("semantics {s:?} is not allowed on this access"), span)),
    }
    Ok(l)
}

pub(crate) fn fence_label(scope: Scope, sc: bool) -> Label {
    Label {
        kind: EventKind::Fence,
        loc: 0,
        vloc: 0,
        proxy: Proxy::Generic,
        alias_fence: false,
        completion_fence: false,
        bulk_copy: 0,
        strong: true,
        scope,
        acquire: true,
        release: true,
        sc,
        atomic: false,
        rmw_write: false,
        orders_thread: false,
        object: false,
        tc: None,
    }
}

pub(crate) fn barrier_label(id: u32) -> Label {
    Label {
        kind: EventKind::Barrier,
        loc: id,
        vloc: 0,
        proxy: Proxy::Generic,
        alias_fence: false,
        completion_fence: false,
        bulk_copy: 0,
        strong: true,
        scope: Scope::Cta,
        acquire: false,
        release: false,
        sc: false,
        atomic: false,
        rmw_write: false,
        orders_thread: false,
        object: false,
        tc: None,
    }
}

fn lower_thread(
    p: &Program,
    ti: usize,
    loc_ids: &HashMap<&str, Name>,
    locations: &[LocInfo],
    sync: &SyncPlan,
) -> Result<ThreadCode, CheckError> {
    let t = &p.threads[ti];
    let mut labels: HashMap<&str, usize> = HashMap::new();
    let mut n = 0;
    for s in &t.body {
        match &s.kind {
            StmtKind::Label(l) => {
                labels.insert(l, n);
            }
            StmtKind::Instr(_) => n += 1,
        }
    }
    let mut regs = Regs { names: Vec::new(), init: Vec::new(), program: p, thread: &t.name, index: ti };
    let mut code = Vec::new();
    let loc = |name: &str, span: Span| -> Result<Name, CheckError> {
        loc_ids
            .get(name)
            .copied()
            .ok_or_else(|| CheckError::unsupported(format!("access to `{name}` (undeclared, mbarrier or TMEM)"), span))
    };
    let target = |l: &str, span: Span| -> Result<usize, CheckError> {
        labels.get(l).copied().ok_or_else(|| CheckError::bad(format!("undefined label `{l}`"), span))
    };
    for s in &t.body {
        let StmtKind::Instr(instr) = &s.kind else { continue };
        let span = s.span;
        let op = match instr {
            Instr::Ld(ld) => {
                let mut label = access(EventKind::Read, loc(&ld.addr.name, span)?, ld.sem, ld.scope, span)?;
                label.proxy = access_proxy(ld.proxy);
                Op::Load { dst: regs.reg(&ld.dst)?, label }
            }
            Instr::St(st) => {
                let mut label = access(EventKind::Write, loc(&st.addr.name, span)?, st.sem, st.scope, span)?;
                label.proxy = access_proxy(st.proxy);
                Op::Store { src: regs.opnd(&st.src)?, label }
            }
            Instr::Atom(a) => {
                let l = loc(&a.addr.name, span)?;
                let (read, write) = rmw_labels(l, a.effective_sem(), a.effective_scope(), span)?;
                let b = match &a.b {
                    Some(b) => Some(regs.opnd(b)?),
                    None => None,
                };
                if a.op == AtomOp::Cas && b.is_none() {
                    return Err(CheckError::bad("atom.cas needs a new value", span));
                }
                Op::Rmw { dst: regs.reg(&a.dst)?, op: a.op, a: regs.opnd(&a.a)?, b, read, write }
            }
            Instr::Red(r) => {
                if r.op == AtomOp::Cas {
                    return Err(CheckError::bad("red.cas does not exist", span));
                }
                let l = loc(&r.addr.name, span)?;
                let (read, write) = rmw_labels(l, r.effective_sem(), r.effective_scope(), span)?;
                Op::Rmw { dst: None, op: r.op, a: regs.opnd(&r.a)?, b: None, read, write }
            }
            Instr::Fence(f) => match f {
                Fence::Sc(s) | Fence::Membar(s) => Op::Fence { label: fence_label(*s, true) },
                Fence::AcqRel(s) => Op::Fence { label: fence_label(*s, false) },
                Fence::Proxy(kind) => Op::Fence { label: proxy_fence_label(*kind) },
                // §9.7.16.6.5: orders generic accesses with async-proxy ones (a proxy fence).
                Fence::ProxyAsync(_) => Op::Fence { label: async_proxy_fence_label() },
            },
            Instr::Barrier(b) if sync.is_register_barrier(ti, b) => {
                let unsupported = |why: &str| CheckError::unsupported(format!("bar.sync with {why}"), span);
                let crate::program::sync::DynBarrier { ids, solo } = sync.dyn_barrier(p, ti).map_err(unsupported)?;
                let tcfuzz_litmus::Barrier::Sync { operands, .. } = b else { return Err(unsupported("a register operand")) };
                let Some(Operand::Reg(r)) = operands.get(1) else { return Err(unsupported("a register operand")) };
                match regs.opnd(&Operand::Reg(r.clone()))? {
                    Opnd::Reg(reg) => Op::DynBarrier { reg, ids, solo },
                    Opnd::Imm(_) => return Err(unsupported("`_` as its second operand")),
                }
            }
            Instr::Barrier(b) => match sync.symmetric(ti, b) {
                Some(id) => Op::Barrier { label: barrier_label(id) },
                None => crate::program::sync_lower::barrier(b, ti, sync, &mut regs, span)?,
            },
            Instr::Mbarrier(m) => crate::program::sync_lower::mbarrier(m, &loc, &mut regs, span)?,
            Instr::CpAsyncBulk(c) => crate::program::sync_lower::bulk_copy(c, &loc, &mut regs, span)?,
            Instr::Tcgen05(op) => {
                let is_tmem = |l: u32| locations.get(l as usize).is_some_and(|x| x.tmem);
                let cx = crate::program::tc_lower::Context { loc: &loc, is_tmem: &is_tmem, sync, thread: ti, program: p };
                crate::program::tc_lower::tcgen05(op, &cx, &mut regs, span)?
            }
            Instr::Tile(_) => return Err(CheckError::unsupported("Tile IR operation", span)),
            Instr::Mov { dst, src, .. } => Op::Mov { src: regs.opnd(src)?, dst: regs.reg(dst)? },
            Instr::Add { dst, a, b } => Op::Add { a: regs.opnd(a)?, b: regs.opnd(b)?, dst: regs.reg(dst)? },
            Instr::Branch { cond, a, b, target: l } => {
                Op::Branch { eq: *cond == BranchCond::Eq, a: regs.opnd(a)?, b: regs.opnd(b)?, target: target(l, span)? }
            }
            Instr::Goto { target: l } => Op::Goto { target: target(l, span)? },
            Instr::Assume { cmp, a, b } => Op::Assume { cmp: *cmp, a: regs.opnd(a)?, b: regs.opnd(b)? },
        };
        code.push(CodeLine { op, span });
    }
    Ok(ThreadCode { name: t.name.clone(), code, reg_names: regs.names, reg_init: regs.init })
}

fn rmw_labels(loc: Name, sem: Sem, scope: Scope, span: Span) -> Result<(Label, Label), CheckError> {
    let (acq, rel) = match sem {
        Sem::Relaxed => (false, false),
        Sem::Acquire => (true, false),
        Sem::Release => (false, true),
        Sem::AcqRel => (true, true),
        Sem::Weak | Sem::Volatile => {
            return Err(CheckError::bad(format!("semantics {sem:?} is not allowed on atom/red"), span));
        }
    };
    let mut read = access(EventKind::Read, loc, Some(Sem::Relaxed), Some(scope), span)?;
    read.acquire = acq;
    read.atomic = true;
    let mut write = access(EventKind::Write, loc, Some(Sem::Relaxed), Some(scope), span)?;
    write.release = rel;
    write.atomic = true;
    write.rmw_write = true;
    Ok((read, write))
}
