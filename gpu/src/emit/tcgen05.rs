//! `tcgen05` as PTX for `sm_100a` (PTX ISA §9.7.16), with real operands:
//!
//! - **TMEM addresses.** A declared region's address is its allocation's base (written by
//!   `tcgen05.alloc` into `tmem_slots[a]` in the prologue) plus `lanes.lo << 16` plus its column
//!   offset in the allocation (§9.7.16.2.1: bits 31–16 lane, 15–0 column). Its abstract value is
//!   the 32-bit word at that address: the prologue writes it there, `tcgen05.ld` reads it back.
//! - **Shared-memory operands** of `mma` and `cp` become matrix descriptors (§9.7.16.4.1): the
//!   operand's address `>> 4` in bits 0–13, leading / stride byte offsets 128 / 256 in bits 16–29 /
//!   32–45, the sm_100 descriptor version 1 in bits 46–47, no swizzling. The slot is
//!   [`super::plan::MATRIX_BYTES`] long.
//! - **Instruction descriptors.** The litmus `idesc` only names a shape (the pipelining rule
//!   compares shapes, §9.7.16.6.1); `k` becomes f16 × f16 → f32, M = 64 (`cta_group::1`) or 128
//!   (`::2`), N = 8 · (k mod 32 + 1) (§9.7.16.4.2 layout: D type bits 4–5, N >> 3 in 17–22,
//!   M >> 4 in 24–28). Block-scaled kinds name the accumulator region as their scale-factor TMEM
//!   operands (scale factors are not modelled).
//! - Single-thread instructions (`mma`, `cp`, `shift`, `commit`) are issued by lane 0; the
//!   `.sync.aligned` ones by the whole warp. `tcgen05.ld` defines its litmus register from lane 0's
//!   first register; `tcgen05.st` stores its value in every register.
//!
//! What has not run on hardware: this machine's lent GPU is an H100 (sm_90); `ptxas -arch=sm_100a`
//! checks every form, but values read back through TMEM are not compared with the model (their
//! outputs are marked not comparable).

use tcfuzz_litmus::*;

use super::{EmitError, KernelWriter};

/// `cta_group::N` qualifier.
fn group(g: CtaGroup) -> &'static str {
    match g {
        CtaGroup::One => ".cta_group::1",
        CtaGroup::Two => ".cta_group::2",
    }
}

/// Registers (per lane) a `tcgen05.ld`/`st` of `shape` moves per `.x1` (§9.7.16.8.3).
fn regs_per_x1(shape: LdStShape) -> u32 {
    match shape {
        LdStShape::S32x32b | LdStShape::S16x64b | LdStShape::S16x32bx2 => 1,
        LdStShape::S16x128b => 2,
        LdStShape::S16x256b => 4,
    }
}

fn ldst_shape(shape: LdStShape) -> &'static str {
    match shape {
        LdStShape::S16x64b => "16x64b",
        LdStShape::S16x128b => "16x128b",
        LdStShape::S16x256b => "16x256b",
        LdStShape::S32x32b => "32x32b",
        LdStShape::S16x32bx2 => "16x32bx2",
    }
}

/// `tcgen05.cp` shapes with the warp multicast some of them require (§9.7.16.9.1).
fn cp_shape(shape: CpShape) -> &'static str {
    match shape {
        CpShape::S128x256b => "128x256b",
        CpShape::S4x256b => "4x256b",
        CpShape::S128x128b => "128x128b",
        CpShape::S64x128b => "64x128b.warpx2::02_13",
        CpShape::S32x128b => "32x128b.warpx4",
    }
}

fn kind(k: MmaKind) -> (&'static str, bool) {
    match k {
        MmaKind::F16 => ("kind::f16", false),
        MmaKind::Tf32 => ("kind::tf32", false),
        MmaKind::F8f6f4 => ("kind::f8f6f4", false),
        MmaKind::I8 => ("kind::i8", false),
        MmaKind::MxF8f6f4 => ("kind::mxf8f6f4.block_scale", true),
        MmaKind::MxF4 => ("kind::mxf4.block_scale", true),
        MmaKind::MxF4nvf4 => ("kind::mxf4nvf4.block_scale", true),
    }
}

/// The instruction descriptor standing for abstract shape `k` (module docs).
pub fn instruction_descriptor(k: i64, g: CtaGroup, int: bool) -> u32 {
    let m: u32 = if g == CtaGroup::One { 64 } else { 128 };
    let n = 8 * ((k.rem_euclid(32)) as u32 + 1);
    // D type: f32 (1) for float kinds, s32 (2) for i8.
    let d = if int { 2 } else { 1 };
    (d << 4) | ((n >> 3) << 17) | ((m >> 4) << 24)
}

/// Leading byte offset 128, stride byte offset 256, descriptor version 1 (module docs).
const DESCRIPTOR_FIXED: u64 = (8 << 16) | (16 << 32) | (1 << 46);

impl KernelWriter<'_> {
    /// The TMEM address of region `name` into `reg`.
    fn tmem_addr(&mut self, name: &str, reg: &str, span: Span) -> Result<(), EmitError> {
        let Some(i) = self.plan.tmem_region(name) else {
            return Err(EmitError::unsupported(span, format!("`{name}` is not a TMEM region")));
        };
        let r = &self.plan.tmem[i];
        let a = &self.plan.tmem_allocs[r.alloc];
        let offset = (r.lanes.lo << 16) + (r.cols.lo - a.lo);
        self.line(format!("ld.shared::cta.b32 {reg}, [tmem_slots+{}];", 4 * r.alloc));
        self.line(format!("add.u32 {reg}, {reg}, {offset};"));
        Ok(())
    }

    /// A shared-memory matrix descriptor for shared location `name` into `reg` (64-bit). Under
    /// `cta_group::2` the operand may be the peer CTA's: the instruction reads the same offset in
    /// both CTAs of the pair (§9.7.16.5.1), and every CTA of the kernel has the same shared layout.
    fn descriptor(&mut self, t: usize, name: &str, g: CtaGroup, reg: &str, span: Span) -> Result<(), EmitError> {
        let Some(i) = self.plan.shared_loc(name) else {
            return Err(EmitError::unsupported(span, format!("`{name}`: a matrix operand must be shared memory")));
        };
        let (s, me) = (&self.plan.shared[i], &self.plan.threads[t]);
        if (s.unit, s.rank) != (me.unit, me.rank) && (g == CtaGroup::One || s.unit != me.unit || s.rank / 2 != me.rank / 2) {
            return Err(EmitError::unsupported(
                span,
                format!("`{name}`: a matrix operand must be shared memory of the issuing CTA (or its peer, with cta_group::2)"),
            ));
        }
        self.line(format!("mov.u32 %w3, sh{i};"));
        self.line("shr.u32 %w3, %w3, 4;");
        self.line("and.b32 %w3, %w3, 16383;");
        self.line(format!("cvt.u64.u32 {reg}, %w3;"));
        self.line(format!("or.b64 {reg}, {reg}, {DESCRIPTOR_FIXED};"));
        Ok(())
    }
}

pub(crate) fn instr(k: &mut KernelWriter, t: usize, op: &Tcgen05, span: Span) -> Result<(), EmitError> {
    match op {
        Tcgen05::Alloc { group: g, slot, ncols } => {
            let p = k.place(t, &slot.name, span)?;
            if p.space != ".shared::cta" {
                return Err(EmitError::unsupported(span, "the `tcgen05.alloc` slot must be shared memory of the CTA"));
            }
            let n = k.val32(t, ncols, "%w1");
            k.line(format!("tcgen05.alloc{}.sync.aligned.shared::cta.b32 [{}], {n};", group(*g), p.addr));
        }
        Tcgen05::Dealloc { group: g, taddr, region, ncols } => {
            match region {
                Some(r) => k.tmem_addr(r, "%w4", span)?,
                None => {
                    let v = k.val32(t, taddr, "%w4");
                    if v != "%w4" {
                        k.line(format!("mov.u32 %w4, {v};"));
                    }
                }
            }
            let n = k.val32(t, ncols, "%w1");
            k.line(format!("tcgen05.dealloc{}.sync.aligned.b32 %w4, {n};", group(*g)));
        }
        Tcgen05::RelinquishAllocPermit { group: g } => k.line(format!("tcgen05.relinquish_alloc_permit{}.sync.aligned;", group(*g))),
        Tcgen05::Mma { group: g, kind: kd, d, a, b, idesc, acc } => {
            let (kind, scaled) = kind(*kd);
            k.tmem_addr(&d.name, "%w4", span)?;
            let a_op = if k.plan.tmem_region(&a.name).is_some() {
                k.tmem_addr(&a.name, "%w2", span)?;
                "[%w2]".to_string()
            } else {
                k.descriptor(t, &a.name, *g, "%d4", span)?;
                "%d4".to_string()
            };
            k.descriptor(t, &b.name, *g, "%d5", span)?;
            k.line(format!("mov.u32 %w1, {};", instruction_descriptor(*idesc, *g, *kd == MmaKind::I8)));
            let enable = k.val32(t, acc, "%w0");
            k.line(format!("mov.u32 %w0, {enable};"));
            k.line("setp.ne.u32 %p2, %w0, 0;");
            let scale = if scaled { ", [%w4], [%w4]" } else { "" };
            k.line(format!("@%lane0 tcgen05.mma{}.{kind} [%w4], {a_op}, %d5, %w1{scale}, %p2;", group(*g)));
        }
        Tcgen05::Cp { group: g, shape, d, src } => {
            k.tmem_addr(&d.name, "%w4", span)?;
            k.descriptor(t, &src.name, *g, "%d4", span)?;
            k.line(format!("@%lane0 tcgen05.cp{}.{} [%w4], %d4;", group(*g), cp_shape(*shape)));
        }
        Tcgen05::Shift { group: g, d } => {
            k.tmem_addr(&d.name, "%w4", span)?;
            k.line(format!("@%lane0 tcgen05.shift{}.down [%w4];", group(*g)));
        }
        Tcgen05::Ld { shape, num, pack, dst, src } => {
            let n = regs_per_x1(*shape) * num;
            if n > 128 {
                return Err(EmitError::unsupported(span, format!("`tcgen05.ld` of {n} registers per thread: at most 128")));
            }
            k.tmem_addr(&src.name, "%w4", span)?;
            let regs = (0..n).map(|i| format!("%tm{i}")).collect::<Vec<_>>().join(", ");
            let split = if *shape == LdStShape::S16x32bx2 { format!(", {num}") } else { String::new() };
            let pack = if *pack { ".pack::16b" } else { "" };
            k.line(format!("tcgen05.ld.sync.aligned.{}.x{num}{pack}.b32 {{{regs}}}, [%w4]{split};", ldst_shape(*shape)));
            if let Some(v) = k.reg(t, dst) {
                k.line(format!("cvt.s64.s32 {v}, %tm0;"));
                k.broadcast(&v);
            }
        }
        Tcgen05::St { shape, num, unpack, dst, src } => {
            let n = regs_per_x1(*shape) * num;
            if n > 128 {
                return Err(EmitError::unsupported(span, format!("`tcgen05.st` of {n} registers per thread: at most 128")));
            }
            let v = k.val32(t, src, "%w1");
            for i in 0..n {
                k.line(format!("mov.b32 %tm{i}, {v};"));
            }
            k.tmem_addr(&dst.name, "%w4", span)?;
            let regs = (0..n).map(|i| format!("%tm{i}")).collect::<Vec<_>>().join(", ");
            let split = if *shape == LdStShape::S16x32bx2 { format!(", {num}") } else { String::new() };
            let unpack = if *unpack { ".unpack::16b" } else { "" };
            k.line(format!("tcgen05.st.sync.aligned.{}.x{num}{unpack}.b32 [%w4]{split}, {{{regs}}};", ldst_shape(*shape)));
        }
        Tcgen05::Commit { group: g, multicast, mbar, .. } => {
            let p = k.place(t, &mbar.name, span)?;
            // The commit's mbarrier operand is a .shared::cluster address (§9.7.16.12.1); a
            // .shared::cta address of the issuing CTA is one.
            match multicast {
                Some(mask) => {
                    let m = k.val32(t, mask, "%w1");
                    if m.starts_with('%') {
                        k.line(format!("cvt.u16.u32 %h0, {m};"));
                    } else {
                        k.line(format!("mov.b16 %h0, {m};"));
                    }
                    k.line(format!(
                        "@%lane0 tcgen05.commit{}.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64 [{}], %h0;",
                        group(*g),
                        p.addr
                    ));
                }
                None => k.line(format!("@%lane0 tcgen05.commit{}.mbarrier::arrive::one.shared::cluster.b64 [{}];", group(*g), p.addr)),
            }
        }
        Tcgen05::Wait { st } => k.line(format!("tcgen05.wait::{}.sync.aligned;", if *st { "st" } else { "ld" })),
        Tcgen05::Fence { after } => k.line(format!("tcgen05.fence::{}_thread_sync;", if *after { "after" } else { "before" })),
    }
    Ok(())
}

/// The CTA group of every `tcgen05` instruction of the program: `ptxas` rejects a kernel that
/// mixes `cta_group::1` and `cta_group::2` ("uses single CTA and CTA pair granularity"), so the
/// harness's own allocations use the program's.
pub(crate) fn program_group(p: &Program) -> Result<CtaGroup, EmitError> {
    let mut seen: Option<(CtaGroup, Span)> = None;
    for s in p.threads.iter().flat_map(|t| &t.body) {
        let g = match &s.kind {
            StmtKind::Instr(Instr::Tcgen05(
                Tcgen05::Alloc { group, .. }
                | Tcgen05::Dealloc { group, .. }
                | Tcgen05::RelinquishAllocPermit { group }
                | Tcgen05::Mma { group, .. }
                | Tcgen05::Cp { group, .. }
                | Tcgen05::Shift { group, .. }
                | Tcgen05::Commit { group, .. },
            )) => *group,
            _ => continue,
        };
        match seen {
            Some((first, _)) if first != g => {
                return Err(EmitError::unsupported(
                    s.span,
                    "the program mixes cta_group::1 and cta_group::2, which one kernel cannot (ptxas rejects it)",
                ));
            }
            _ => seen = Some((g, s.span)),
        }
    }
    Ok(seen.map_or(CtaGroup::One, |(g, _)| g))
}

/// Prologue, warp 0 of CTA (`unit`, `rank`): allocate the CTA's declared regions (with
/// `cta_group::2`, each CTA of the pair allocates its own: the allocation is a rendezvous of one
/// warp of each).
pub(crate) fn prologue_alloc(k: &mut KernelWriter, unit: u32, rank: u32) -> Result<(), EmitError> {
    let g = group(program_group(k.p)?);
    for (a, alloc) in k.plan.tmem_allocs.clone().iter().enumerate() {
        if (alloc.unit, alloc.rank) == (unit, rank) {
            k.line(format!("tcgen05.alloc{g}.sync.aligned.shared::cta.b32 [tmem_slots+{}], {};", 4 * a, alloc.ncols));
        }
    }
    Ok(())
}

/// Prologue, every warp of CTA (`unit`, `rank`): once the allocations are visible, the warp of
/// each region's lane quarter writes its initial value.
pub(crate) fn prologue_init(k: &mut KernelWriter, unit: u32, rank: u32) -> Result<(), EmitError> {
    k.line("tcgen05.fence::before_thread_sync;");
    k.line("bar.sync 15;");
    k.line("tcgen05.fence::after_thread_sync;");
    for r in k.plan.tmem.clone().iter().filter(|r| (r.unit, r.rank) == (unit, rank)) {
        let skip = k.fresh("tmem_init");
        k.line(format!("setp.ne.u32 %p2, %xwarp, {};", r.lanes.lo / 32));
        k.line(format!("@%p2 bra {skip};"));
        k.tmem_addr(&r.name, "%w4", Span::default())?;
        k.line(format!("mov.b32 %tm0, {};", super::imm(r.init, false)));
        k.line("tcgen05.st.sync.aligned.32x32b.x1.b32 [%w4], {%tm0};");
        k.line("tcgen05.wait::st.sync.aligned;");
        k.label(&skip);
    }
    Ok(())
}

/// Whether the epilogue of CTA (`unit`, `rank`) releases an allocation the program did not.
pub(crate) fn epilogue_dealloc_needed(k: &KernelWriter, unit: u32, rank: u32) -> bool {
    (0..k.plan.tmem_allocs.len()).any(|a| (k.plan.tmem_allocs[a].unit, k.plan.tmem_allocs[a].rank) == (unit, rank) && !deallocated(k, a))
}

/// Whether the program deallocates (by region name) allocation `a` itself.
fn deallocated(k: &KernelWriter, a: usize) -> bool {
    k.p.threads.iter().flat_map(|t| &t.body).any(|s| match &s.kind {
        StmtKind::Instr(Instr::Tcgen05(Tcgen05::Dealloc { region: Some(r), .. })) => {
            k.plan.tmem_region(r).is_some_and(|i| k.plan.tmem[i].alloc == a)
        }
        _ => false,
    })
}

/// Epilogue, warp 0 of CTA (`unit`, `rank`): release what the program did not.
pub(crate) fn epilogue_dealloc(k: &mut KernelWriter, unit: u32, rank: u32) -> Result<(), EmitError> {
    let g = group(program_group(k.p)?);
    for a in 0..k.plan.tmem_allocs.len() {
        let alloc = k.plan.tmem_allocs[a].clone();
        if (alloc.unit, alloc.rank) == (unit, rank) && !deallocated(k, a) {
            k.line(format!("ld.shared::cta.b32 %w4, [tmem_slots+{}];", 4 * a));
            k.line(format!("tcgen05.dealloc{g}.sync.aligned.b32 %w4, {};", alloc.ncols));
        }
    }
    k.line(format!("tcgen05.relinquish_alloc_permit{g}.sync.aligned;"));
    Ok(())
}
