//! One litmus thread's instructions as PTX: generic-proxy accesses, fences, CTA and cluster
//! barriers, mbarriers and bulk copies (tcgen05 in [`super::tcgen05`]).
//!
//! Every instruction keeps the qualifiers the litmus program wrote (semantics, scope); the state
//! space is the location's (`.global`, `.shared::cta`, or `.shared::cluster` through `mapa` for
//! another CTA's shared memory). Lane 0 performs each memory operation and the loaded value is
//! broadcast to the warp. Loops are bounded: after `CTL_LOOP_CAP` backward jumps a thread stops
//! looping (it falls through, marked [`STATUS_LOOP_CAP`], so that threads waiting for it at a
//! barrier are not stranded); an `assume` that fails marks the thread and lets it run on. Either
//! way the instance is not counted as a final state.

use tcfuzz_litmus::*;

use super::plan::TX_SCALE;
use super::{EmitError, KernelWriter, imm};
use crate::layout::{STATUS_ASSUME_FAILED, STATUS_LOOP_CAP};

/// Where an address operand lives, as the instruction must spell it.
pub(crate) struct Place {
    /// The state-space qualifier: `.global`, `.shared::cta` or `.shared::cluster`.
    pub space: &'static str,
    /// The operand text inside `[...]`.
    pub addr: String,
    pub wide: bool,
}

impl KernelWriter<'_> {
    /// The address of location `name` for thread `t`; a shared location of another CTA of the
    /// cluster is mapped with `mapa` into `%w5` (so one such operand per instruction).
    pub(crate) fn place(&mut self, t: usize, name: &str, span: Span) -> Result<Place, EmitError> {
        let plan = self.plan;
        if let Some(g) = plan.global(name) {
            return Ok(Place { space: ".global", addr: format!("%g{g}"), wide: plan.globals[g].wide });
        }
        if let Some(i) = plan.shared_loc(name) {
            let s = &plan.shared[i];
            let th = &plan.threads[t];
            if s.unit == th.unit && s.rank == th.rank {
                return Ok(Place { space: ".shared::cta", addr: format!("sh{i}"), wide: s.wide });
            }
            if s.unit != th.unit {
                return Err(EmitError::unsupported(
                    span,
                    format!("{} reaches `{name}`, shared memory of a CTA outside its cluster", th.name),
                ));
            }
            self.line(format!("mov.u32 %w5, sh{i};"));
            self.line(format!("mapa.shared::cluster.u32 %w5, %w5, {};", s.rank));
            return Ok(Place { space: ".shared::cluster", addr: "%w5".into(), wide: s.wide });
        }
        Err(EmitError::unsupported(span, format!("`{name}` is not global or shared memory")))
    }

    /// A value operand as a 64-bit register or immediate.
    pub(crate) fn val64(&self, t: usize, op: &Operand) -> String {
        match op {
            Operand::Imm(v) => v.to_string(),
            Operand::Reg(r) => self.reg(t, r).unwrap_or_else(|| "0".into()),
        }
    }

    /// A value operand as a 32-bit register (`scratch`) or immediate.
    pub(crate) fn val32(&mut self, t: usize, op: &Operand, scratch: &str) -> String {
        match op {
            Operand::Imm(v) => imm(*v, false),
            Operand::Reg(r) => {
                let v = self.reg(t, r).unwrap_or_else(|| "0".into());
                self.line(format!("cvt.u32.u64 {scratch}, {v};"));
                scratch.to_string()
            }
        }
    }

    /// A value operand in a register of the access width.
    fn source(&mut self, t: usize, op: &Operand, wide: bool, scratch32: &str, scratch64: &str) -> String {
        if wide {
            let v = self.val64(t, op);
            self.line(format!("mov.b64 {scratch64}, {v};"));
            scratch64.to_string()
        } else {
            let v = self.val32(t, op, scratch32);
            if v != scratch32 {
                self.line(format!("mov.b32 {scratch32}, {v};"));
            }
            scratch32.to_string()
        }
    }

    /// Lane 0's value of `%vN` to every lane.
    pub(crate) fn broadcast(&mut self, v: &str) {
        self.line(format!("mov.b64 {{%w6, %w7}}, {v};"));
        self.line("shfl.sync.idx.b32 %w6, %w6, 0, 0x1f, 0xffffffff;");
        self.line("shfl.sync.idx.b32 %w7, %w7, 0, 0x1f, 0xffffffff;");
        self.line(format!("mov.b64 {v}, {{%w6, %w7}};"));
    }

    /// Sets a litmus register from a loaded value in `%w0` (32-bit) or `%d0` (64-bit).
    fn define(&mut self, t: usize, dst: &str, wide: bool) {
        let Some(v) = self.reg(t, dst) else { return };
        if wide {
            self.line(format!("mov.b64 {v}, %d0;"));
        } else {
            self.line(format!("cvt.s64.s32 {v}, %w0;"));
        }
        self.broadcast(&v);
    }

    /// Counts a backward jump; past the cap, marks the thread and sets `%p1` so the jump is not
    /// taken.
    fn loop_guard(&mut self) {
        self.line("add.u32 %xloops, %xloops, 1;");
        self.line("setp.gt.u32 %p1, %xloops, %xcap;");
        self.line(format!("@%p1 mov.u32 %xstatus, {STATUS_LOOP_CAP};"));
    }
}

fn sem_qual(sem: Option<Sem>, scope: Option<Scope>) -> String {
    let mut s = String::new();
    if let Some(sem) = sem {
        s.push_str(match sem {
            Sem::Weak => ".weak",
            Sem::Volatile => ".volatile",
            Sem::Relaxed => ".relaxed",
            Sem::Acquire => ".acquire",
            Sem::Release => ".release",
            Sem::AcqRel => ".acq_rel",
        });
    }
    if let Some(scope) = scope {
        s.push_str(scope_qual(scope));
    }
    s
}

pub(crate) fn scope_qual(scope: Scope) -> &'static str {
    match scope {
        Scope::Cta => ".cta",
        Scope::Cluster => ".cluster",
        Scope::Gpu => ".gpu",
        Scope::Sys => ".sys",
    }
}

/// PTX ISA version (×10) a scope needs: `.cluster` came with sm_90 (7.8).
fn scope_version(scope: Option<Scope>) -> u32 {
    if scope == Some(Scope::Cluster) { 78 } else { 60 }
}

fn label_name(t: usize, l: &str) -> String {
    let clean: String = l.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '_' }).collect();
    format!("$T{t}_L_{clean}")
}

pub(crate) fn thread(k: &mut KernelWriter, t: usize) -> Result<(), EmitError> {
    let body = &k.p.threads[t].body;
    let labels: Vec<(String, usize)> = body
        .iter()
        .enumerate()
        .filter_map(|(i, s)| match &s.kind {
            StmtKind::Label(l) => Some((l.clone(), i)),
            StmtKind::Instr(_) => None,
        })
        .collect();
    for (pos, stmt) in body.iter().enumerate() {
        match &stmt.kind {
            StmtKind::Label(l) => k.label(&label_name(t, l)),
            StmtKind::Instr(i) => {
                let target_pos = |target: &str| labels.iter().find(|(l, _)| l == target).map(|(_, p)| *p);
                instr(k, t, i, stmt.span, pos, &target_pos)?;
            }
        }
    }
    Ok(())
}

fn instr(
    k: &mut KernelWriter,
    t: usize,
    i: &Instr,
    span: Span,
    pos: usize,
    target_pos: &dyn Fn(&str) -> Option<usize>,
) -> Result<(), EmitError> {
    match i {
        Instr::Ld(l) => {
            if l.proxy != AccessProxy::Generic {
                return Err(EmitError::unsupported(span, "texture, surface and constant accesses are not emitted (Dat3M dialect)"));
            }
            k.need(scope_version(l.scope));
            let p = k.place(t, &l.addr.name, span)?;
            let (ty, dst) = if p.wide { ("b64", "%d0") } else { ("b32", "%w0") };
            k.line(format!("@%lane0 ld{}{}.{ty} {dst}, [{}];", sem_qual(l.sem, l.scope), p.space, p.addr));
            k.define(t, &l.dst, p.wide);
        }
        Instr::St(s) => {
            if s.proxy != AccessProxy::Generic {
                return Err(EmitError::unsupported(span, "texture, surface and constant accesses are not emitted (Dat3M dialect)"));
            }
            k.need(scope_version(s.scope));
            let p = k.place(t, &s.addr.name, span)?;
            let src = k.source(t, &s.src, p.wide, "%w1", "%d1");
            let ty = if p.wide { "b64" } else { "b32" };
            k.line(format!("@%lane0 st{}{}.{ty} [{}], {src};", sem_qual(s.sem, s.scope), p.space, p.addr));
        }
        Instr::Atom(a) => {
            k.need(scope_version(a.scope));
            let p = k.place(t, &a.addr.name, span)?;
            let (op, ty, negate) = atom_op(a.op, p.wide, span)?;
            let x = k.source(t, &a.a, p.wide, "%w1", "%d1");
            if negate {
                k.line(format!("neg.s{} {x}, {x};", if p.wide { 64 } else { 32 }));
            }
            let y = match &a.b {
                Some(b) => format!(", {}", k.source(t, b, p.wide, "%w2", "%d2")),
                None => String::new(),
            };
            let dst = if p.wide { "%d0" } else { "%w0" };
            k.line(format!("@%lane0 atom{}{}.{op}.{ty} {dst}, [{}], {x}{y};", sem_qual(a.sem, a.scope), p.space, p.addr));
            k.define(t, &a.dst, p.wide);
        }
        Instr::Red(r) => {
            if matches!(r.sem, Some(Sem::Acquire | Sem::AcqRel)) {
                return Err(EmitError::unsupported(
                    span,
                    "`red` with .acquire/.acq_rel is Dat3M dialect; PTX's red is .relaxed or .release",
                ));
            }
            k.need(scope_version(r.scope));
            let p = k.place(t, &r.addr.name, span)?;
            let (op, ty, negate) = atom_op(r.op, p.wide, span)?;
            let x = k.source(t, &r.a, p.wide, "%w1", "%d1");
            if negate {
                k.line(format!("neg.s{} {x}, {x};", if p.wide { 64 } else { 32 }));
            }
            k.line(format!("@%lane0 red{}{}.{op}.{ty} [{}], {x};", sem_qual(r.sem, r.scope), p.space, p.addr));
        }
        Instr::Fence(f) => fence(k, f, span)?,
        Instr::Barrier(b) => barrier(k, t, b, span)?,
        Instr::Mbarrier(m) => mbarrier(k, t, m, span)?,
        Instr::CpAsyncBulk(c) => {
            k.need(if c.dst_space == StateSpace::SharedCta { 86 } else { 80 });
            let size = match c.size {
                Operand::Imm(v) => v * TX_SCALE,
                Operand::Reg(_) => return Err(EmitError::unsupported(span, "a `cp.async.bulk` size must be an immediate")),
            };
            let src = k.place(t, &c.src.name, span)?;
            if src.space != ".global" {
                return Err(EmitError::unsupported(span, "the source of `cp.async.bulk` must be global memory"));
            }
            let (dst, mbar) = bulk_targets(k, t, c, span)?;
            let space = if c.dst_space == StateSpace::SharedCta { ".shared::cta" } else { ".shared::cluster" };
            k.line(format!("@%lane0 cp.async.bulk{space}.global.mbarrier::complete_tx::bytes [{dst}], [{}], {size}, [{mbar}];", src.addr));
        }
        Instr::Tcgen05(op) => super::tcgen05::instr(k, t, op, span)?,
        Instr::Tile(_) => return Err(EmitError::unsupported(span, "a Tile IR operation in a PTX thread")),
        Instr::Mov { dst, src, .. } => {
            if let Some(v) = k.reg(t, dst) {
                let s = k.val64(t, src);
                k.line(format!("mov.b64 {v}, {s};"));
            }
        }
        Instr::Add { dst, a, b } => {
            if let Some(v) = k.reg(t, dst) {
                let (a, b) = (k.val64(t, a), k.val64(t, b));
                k.line(format!("mov.b64 %d3, {a};"));
                k.line(format!("add.s64 {v}, %d3, {b};"));
            }
        }
        Instr::Branch { cond, a, b, target } => {
            let cmp = if *cond == BranchCond::Eq { "eq" } else { "ne" };
            let (a, b) = (k.val64(t, a), k.val64(t, b));
            k.line(format!("mov.b64 %d3, {a};"));
            k.line(format!("setp.{cmp}.s64 %p0, %d3, {b};"));
            jump(k, t, target, Some("%p0"), pos, target_pos, span)?;
        }
        Instr::Goto { target } => jump(k, t, target, None, pos, target_pos, span)?,
        Instr::Assume { cmp, a, b } => {
            let (a, b) = (k.val64(t, a), k.val64(t, b));
            k.line(format!("mov.b64 %d3, {a};"));
            k.line(format!("setp.{}.s64 %p0, %d3, {b};", cmp.name()));
            k.line(format!("@!%p0 mov.u32 %xstatus, {STATUS_ASSUME_FAILED};"));
        }
    }
    Ok(())
}

/// A jump to `target`, conditional on predicate `cond`; a backward one is a loop (bounded).
fn jump(
    k: &mut KernelWriter,
    t: usize,
    target: &str,
    cond: Option<&str>,
    pos: usize,
    target_pos: &dyn Fn(&str) -> Option<usize>,
    span: Span,
) -> Result<(), EmitError> {
    let Some(to) = target_pos(target) else {
        return Err(EmitError::unsupported(span, format!("no label `{target}` in this thread")));
    };
    let dest = label_name(t, target);
    if to > pos {
        match cond {
            Some(p) => k.line(format!("@{p} bra.uni {dest};")),
            None => k.line(format!("bra.uni {dest};")),
        }
        return Ok(());
    }
    let skip = k.fresh("no_loop");
    if let Some(p) = cond {
        k.line(format!("@!{p} bra.uni {skip};"));
    }
    k.loop_guard();
    k.line(format!("@!%p1 bra.uni {dest};"));
    k.label(&skip);
    Ok(())
}

/// The PTX operation and type of an `atom`/`red` op on a 32- or 64-bit location, and whether its
/// operand is negated (`sub`, Dat3M dialect, is `add` of the negation).
fn atom_op(op: AtomOp, wide: bool, span: Span) -> Result<(&'static str, &'static str, bool), EmitError> {
    let (b, u, s) = if wide { ("b64", "u64", "s64") } else { ("b32", "u32", "s32") };
    Ok(match op {
        AtomOp::Add => ("add", u, false),
        AtomOp::Sub => ("add", u, true),
        AtomOp::Exch => ("exch", b, false),
        AtomOp::Cas => ("cas", b, false),
        AtomOp::And => ("and", b, false),
        AtomOp::Or => ("or", b, false),
        AtomOp::Xor => ("xor", b, false),
        AtomOp::Min => ("min", s, false),
        AtomOp::Max => ("max", s, false),
        AtomOp::Inc | AtomOp::Dec if wide => {
            return Err(EmitError::unsupported(span, "`atom.inc`/`atom.dec` exist for 32-bit locations only (PTX ISA §9.7.13.5)"));
        }
        AtomOp::Inc => ("inc", "u32", false),
        AtomOp::Dec => ("dec", "u32", false),
    })
}

fn fence(k: &mut KernelWriter, f: &Fence, span: Span) -> Result<(), EmitError> {
    let text = match f {
        Fence::Sc(s) => {
            k.need(scope_version(Some(*s)));
            format!("fence.sc{};", scope_qual(*s))
        }
        Fence::AcqRel(s) => {
            k.need(scope_version(Some(*s)));
            format!("fence.acq_rel{};", scope_qual(*s))
        }
        Fence::Membar(s) => match s {
            Scope::Cta => "membar.cta;".into(),
            Scope::Sys => "membar.sys;".into(),
            _ => "membar.gl;".into(),
        },
        Fence::Proxy(AliasProxy::Generic) => "fence.proxy.alias;".into(),
        Fence::Proxy(_) => {
            return Err(EmitError::unsupported(span, "texture, surface and constant proxy fences are not emitted (Dat3M dialect)"));
        }
        Fence::ProxyAsync(space) => {
            k.need(80);
            let q = match space {
                None => "",
                Some(StateSpace::Global) => ".global",
                Some(StateSpace::SharedCluster) => ".shared::cluster",
                Some(StateSpace::Shared | StateSpace::SharedCta) => ".shared::cta",
            };
            format!("fence.proxy.async{q};")
        }
    };
    k.line(text);
    Ok(())
}

/// Whether the program's CTA barriers are synchronization objects (`bar.arrive`, a thread count,
/// the quorum form) or symmetric barriers met by the threads that execute them — the checker's
/// own distinction (`checker/src/program/sync.rs`).
fn barriers_are_objects(p: &Program) -> bool {
    p.threads.iter().flat_map(|t| &t.body).any(|s| match &s.kind {
        StmtKind::Instr(Instr::Barrier(Barrier::Arrive { .. })) => true,
        StmtKind::Instr(Instr::Barrier(Barrier::Sync { operands, .. })) => {
            operands.len() == 3 || matches!(operands.get(1), Some(Operand::Imm(b)) if *b > 0 && b % 32 == 0)
        }
        _ => false,
    })
}

/// An operand of a barrier: an immediate, or a register its thread initialises and never writes.
fn constant(k: &KernelWriter, t: usize, op: &Operand, span: Span) -> Result<i64, EmitError> {
    match op {
        Operand::Imm(v) => Ok(*v),
        Operand::Reg(r) => {
            let th = &k.p.threads[t];
            let written = th.body.iter().any(|s| matches!(&s.kind, StmtKind::Instr(i) if registers_written(i).contains(&r.as_str())));
            let init = k.p.reg_inits.iter().find(|i| (i.thread == th.name || i.thread == th.name.trim_start_matches('P')) && &i.reg == r);
            match (written, init.map(|i| &i.value)) {
                (false, Some(Value::Int(v))) => Ok(*v),
                (false, None) => Ok(0),
                _ => Err(EmitError::unsupported(span, format!("barrier operand `{r}` is computed at run time"))),
            }
        }
    }
}

fn barrier(k: &mut KernelWriter, t: usize, b: &Barrier, span: Span) -> Result<(), EmitError> {
    let plan = k.plan;
    let me = &plan.threads[t];
    match b {
        Barrier::Sync { operands, .. } | Barrier::Arrive { operands, .. } => {
            if operands.len() == 3 {
                return Err(EmitError::unsupported(span, "Dat3M's quorum barrier `bar.cta.sync a, b, c` has no PTX equivalent"));
            }
            let id = constant(k, t, &operands[0], span)?;
            let arrive = matches!(b, Barrier::Arrive { .. });
            let count = if barriers_are_objects(k.p) {
                match operands.get(1) {
                    // A count that is a multiple of the warp size counts warps, otherwise litmus
                    // threads: each is a warp here.
                    Some(op) => {
                        let n = constant(k, t, op, span)?;
                        if n % 32 == 0 { n } else { 32 * n }
                    }
                    None => 32 * plan.threads_in(me.unit, me.rank).count() as i64,
                }
            } else {
                // Symmetric: met by the CTA's threads that execute a barrier with the same operands.
                let ops: Vec<i64> = operands.iter().map(|o| constant(k, t, o, span)).collect::<Result<_, _>>()?;
                let members = plan
                    .threads_in(me.unit, me.rank)
                    .filter(|&(u, _)| {
                        k.p.threads[u].body.iter().any(|s| match &s.kind {
                            StmtKind::Instr(Instr::Barrier(Barrier::Sync { operands: o, .. })) => {
                                o.iter().map(|x| constant(k, u, x, span).ok()).collect::<Vec<_>>()
                                    == ops.iter().map(|v| Some(*v)).collect::<Vec<_>>()
                            }
                            _ => false,
                        })
                    })
                    .count();
                32 * members as i64
            };
            if !(0..15).contains(&id) {
                return Err(EmitError::unsupported(span, format!("barrier id {id}: ids 0..14 are the program's (15 is the harness's)")));
            }
            let verb = if arrive { "arrive" } else { "sync" };
            // Never `.aligned` (which `bar.sync` is short for): it promises that every thread of
            // the CTA executes the same barrier instruction, else the behaviour is undefined (PTX
            // ISA, `barrier{.cta}`), and each litmus thread's barrier is an instruction of its
            // own branch here. compute-sanitizer's synccheck reported every aligned one as
            // "Divergent thread(s) in block" on an H200.
            k.line(format!("barrier.{verb} {id}, {count};"));
        }
        Barrier::ClusterArrive { sem, aligned } => {
            cluster_barrier_check(k, span)?;
            let sem = match sem {
                Some(Sem::Release) => ".release",
                Some(Sem::Relaxed) => ".relaxed",
                _ => "",
            };
            if !sem.is_empty() {
                k.need(80);
            }
            k.line(format!("barrier.cluster.arrive{sem}{};", if *aligned { ".aligned" } else { "" }));
        }
        Barrier::ClusterWait { acquire, aligned } => {
            cluster_barrier_check(k, span)?;
            if *acquire {
                k.need(80);
            }
            k.line(format!("barrier.cluster.wait{}{};", if *acquire { ".acquire" } else { "" }, if *aligned { ".aligned" } else { "" }));
        }
    }
    Ok(())
}

/// A cluster barrier counts every thread of the cluster: every warp must be a litmus thread.
fn cluster_barrier_check(k: &KernelWriter, span: Span) -> Result<(), EmitError> {
    if k.plan.has_idle_warps() {
        return Err(EmitError::unsupported(
            span,
            "a cluster barrier needs every warp of the cluster to be a litmus thread (this placement leaves idle warps or CTA ranks)",
        ));
    }
    Ok(())
}

/// The shared-memory operand of an mbarrier instruction, and whether it is another CTA's.
fn mbar_place(k: &mut KernelWriter, t: usize, addr: &Addr, span: Span) -> Result<(String, bool), EmitError> {
    let p = k.place(t, &addr.name, span)?;
    Ok((p.addr, p.space == ".shared::cluster"))
}

fn mbarrier(k: &mut KernelWriter, t: usize, m: &Mbarrier, span: Span) -> Result<(), EmitError> {
    match m {
        Mbarrier::Init { addr, count, .. } => {
            let (a, remote) = mbar_place(k, t, addr, span)?;
            if remote {
                return Err(EmitError::unsupported(span, "`mbarrier.init` of another CTA's mbarrier"));
            }
            let c = k.val32(t, count, "%w1");
            k.line(format!("@%lane0 mbarrier.init.shared::cta.b64 [{a}], {c};"));
        }
        Mbarrier::Arrive(a) => {
            k.need(if a.expect_tx || a.scope.is_some() || a.sem == Some(Sem::Release) { 80 } else { 78 });
            if a.sem == Some(Sem::Relaxed) {
                k.need(86);
            }
            let (addr, remote) = mbar_place(k, t, &a.addr, span)?;
            let count = match &a.count {
                Some(op) if a.expect_tx => Some(tx_bytes(k, t, op)),
                Some(op) => Some(k.val32(t, op, "%w1")),
                None => None,
            };
            let count = count.map_or(String::new(), |c| format!(", {c}"));
            let q = format!("{}{}", if a.expect_tx { ".expect_tx" } else { "" }, sem_qual(a.sem, a.scope));
            if remote {
                // A remote arrive returns no state (PTX ISA §9.7.13.15.13): the sink `_`.
                k.line(format!("@%lane0 mbarrier.arrive{q}.shared::cluster.b64 _, [{addr}]{count};"));
                k.line("mov.b64 %d0, 0;");
            } else {
                k.line(format!("@%lane0 mbarrier.arrive{q}.shared::cta.b64 %d0, [{addr}]{count};"));
            }
            k.define(t, &a.state, true);
        }
        Mbarrier::ExpectTx { sem, scope, addr, tx, .. } => {
            k.need(80);
            if *sem == Some(Sem::Relaxed) {
                k.need(86);
            }
            let (a, remote) = mbar_place(k, t, addr, span)?;
            let tx = tx_bytes(k, t, tx);
            let space = if remote { ".shared::cluster" } else { ".shared::cta" };
            k.line(format!("@%lane0 mbarrier.expect_tx{}{space}.b64 [{a}], {tx};", sem_qual(*sem, *scope)));
        }
        Mbarrier::Wait(w) => {
            k.need(78);
            if w.sem == Some(Sem::Relaxed) {
                k.need(86);
            } else if w.sem.is_some() || w.scope.is_some() {
                k.need(80);
            }
            let (a, remote) = mbar_place(k, t, &w.addr, span)?;
            if remote {
                return Err(EmitError::unsupported(span, "a wait on another CTA's mbarrier (waits are .shared::cta only)"));
            }
            let phase = if w.parity {
                k.val32(t, &w.phase, "%w1")
            } else {
                let v = k.val64(t, &w.phase);
                k.line(format!("mov.b64 %d1, {v};"));
                "%d1".to_string()
            };
            let op = format!(
                "mbarrier.{}{}{}.shared::cta.b64",
                if w.test { "test_wait" } else { "try_wait" },
                if w.parity { ".parity" } else { "" },
                sem_qual(w.sem, w.scope)
            );
            let top = k.fresh("wait");
            let done = k.fresh("waited");
            k.label(&top);
            k.line(format!("@%lane0 {op} %p0, [{a}], {phase};"));
            k.line("selp.u32 %w0, 1, 0, %p0;");
            k.line("shfl.sync.idx.b32 %w0, %w0, 0, 0x1f, 0xffffffff;");
            k.line("setp.ne.u32 %p0, %w0, 0;");
            if w.blocking {
                k.line(format!("@%p0 bra.uni {done};"));
                k.loop_guard();
                k.line(format!("@!%p1 bra.uni {top};"));
            }
            k.label(&done);
            if let Some(v) = k.reg(t, &w.dst) {
                k.line(format!("selp.s64 {v}, 1, 0, %p0;"));
            }
        }
    }
    Ok(())
}

/// A transaction byte count, scaled by [`TX_SCALE`].
fn tx_bytes(k: &mut KernelWriter, t: usize, op: &Operand) -> String {
    match op {
        Operand::Imm(v) => (v * TX_SCALE).to_string(),
        Operand::Reg(_) => {
            let v = k.val32(t, op, "%w1");
            k.line(format!("mul.lo.u32 %w1, {v}, {TX_SCALE};"));
            "%w1".into()
        }
    }
}

/// Destination and mbarrier of a bulk copy: both in one CTA (PTX ISA §9.7.9.25.4.1); another CTA's
/// are mapped with `mapa` (into `%w4`, `%w5`).
fn bulk_targets(k: &mut KernelWriter, t: usize, c: &CpAsyncBulk, span: Span) -> Result<(String, String), EmitError> {
    let plan = k.plan;
    let (Some(d), Some(m)) = (plan.shared_loc(&c.dst.name), plan.shared_loc(&c.mbar.name)) else {
        return Err(EmitError::unsupported(span, "a bulk copy's destination and mbarrier must be shared memory"));
    };
    let (ds, ms) = (&plan.shared[d], &plan.shared[m]);
    if (ds.unit, ds.rank) != (ms.unit, ms.rank) {
        return Err(EmitError::unsupported(span, "a bulk copy's destination and mbarrier must be in one CTA"));
    }
    let me = &plan.threads[t];
    if (ds.unit, ds.rank) == (me.unit, me.rank) {
        return Ok((format!("sh{d}"), format!("sh{m}")));
    }
    if ds.unit != me.unit {
        return Err(EmitError::unsupported(span, "a bulk copy into a CTA outside the thread's cluster"));
    }
    k.line(format!("mov.u32 %w4, sh{d};"));
    k.line(format!("mapa.shared::cluster.u32 %w4, %w4, {};", ds.rank));
    k.line(format!("mov.u32 %w5, sh{m};"));
    k.line(format!("mapa.shared::cluster.u32 %w5, %w5, {};", ms.rank));
    Ok(("%w4".into(), "%w5".into()))
}
