//! `tcgen05.*` instructions (PTX ISA §9.7.16). The qualifiers that only restate what the
//! instruction requires (`.sync`, `.aligned`, `.b32`, `.b64`, `.shared::cta` on `alloc`) are
//! accepted, not stored, and always printed.

use crate::ast::*;
use crate::error::{Diagnostic, ErrorKind};
use crate::instr::OpView;
use crate::lexer::Token;
use crate::parser::PResult;

const OPS: &str = "alloc, dealloc, relinquish_alloc_permit, mma, cp, shift, ld, st, commit, wait::ld, wait::st, fence::before_thread_sync, fence::after_thread_sync";

#[derive(Default)]
struct Q {
    group: Option<CtaGroup>,
    kind: Option<MmaKind>,
    cp_shape: Option<CpShape>,
    ldst_shape: Option<LdStShape>,
    num: Option<u32>,
    pack: bool,
    down: bool,
    arrive_one: bool,
    shared_cluster: bool,
    multicast: bool,
}

fn cp_shape(q: &str) -> Option<CpShape> {
    Some(match q {
        "128x256b" => CpShape::S128x256b,
        "4x256b" => CpShape::S4x256b,
        "128x128b" => CpShape::S128x128b,
        "64x128b" => CpShape::S64x128b,
        "32x128b" => CpShape::S32x128b,
        _ => return None,
    })
}

fn ldst_shape(q: &str) -> Option<LdStShape> {
    Some(match q {
        "16x64b" => LdStShape::S16x64b,
        "16x128b" => LdStShape::S16x128b,
        "16x256b" => LdStShape::S16x256b,
        "32x32b" => LdStShape::S32x32b,
        "16x32bx2" => LdStShape::S16x32bx2,
        _ => return None,
    })
}

fn mma_kind(q: &str) -> Option<MmaKind> {
    Some(match q {
        "kind::f16" => MmaKind::F16,
        "kind::tf32" => MmaKind::Tf32,
        "kind::f8f6f4" => MmaKind::F8f6f4,
        "kind::i8" => MmaKind::I8,
        "kind::mxf8f6f4" => MmaKind::MxF8f6f4,
        "kind::mxf4" => MmaKind::MxF4,
        "kind::mxf4nvf4" => MmaKind::MxF4nvf4,
        _ => return None,
    })
}

/// The qualifiers each operation admits besides the restating ones.
fn admits(op: &str) -> &'static [&'static str] {
    match op {
        "alloc" => &["group", "sync", "aligned", "shared::cta", "b32"],
        "dealloc" => &["group", "sync", "aligned", "b32"],
        "relinquish_alloc_permit" => &["group", "sync", "aligned"],
        "mma" => &["group", "kind"],
        "cp" => &["group", "cp_shape"],
        "shift" => &["group", "down"],
        "ld" => &["sync", "aligned", "ldst_shape", "num", "pack::16b", "b32"],
        "st" => &["sync", "aligned", "ldst_shape", "num", "unpack::16b", "b32"],
        "commit" => &["group", "mbarrier::arrive::one", "shared::cluster", "multicast::cluster", "b64"],
        "wait::ld" | "wait::st" => &["sync", "aligned"],
        _ => &[],
    }
}

fn expected_list(op: &str) -> String {
    admits(op)
        .iter()
        .map(|a| match *a {
            "group" => ".cta_group::1 .cta_group::2".to_string(),
            "kind" => ".kind::f16 .kind::tf32 .kind::f8f6f4 .kind::i8 .kind::mxf8f6f4 .kind::mxf4 .kind::mxf4nvf4".to_string(),
            "cp_shape" => ".128x256b .4x256b .128x128b .64x128b .32x128b".to_string(),
            "ldst_shape" => ".16x64b .16x128b .16x256b .32x32b .16x32bx2".to_string(),
            "num" => ".x1 .x2 .x4 ... .x128".to_string(),
            other => format!(".{other}"),
        })
        .collect::<Vec<_>>()
        .join(" ")
}

pub fn parse(quals: &[(String, Span)], span: Span, text: &str, ops: &[&[Token]], end: Span) -> PResult<Instr> {
    // `wait::ld` and `fence::after_thread_sync` lex as one part, so the op is the first part.
    let Some((op, op_span)) = quals.first().cloned() else {
        return Err(Diagnostic::new(span, ErrorKind::UnknownInstruction, format!("`tcgen05` needs an operation: one of {OPS}")));
    };
    let allowed = admits(&op);
    let is_fence = op == "fence::before_thread_sync" || op == "fence::after_thread_sync";
    if allowed.is_empty() && !is_fence {
        return Err(Diagnostic::new(
            op_span,
            ErrorKind::UnknownInstruction,
            format!("unknown instruction `tcgen05.{op}`; expected one of {OPS}"),
        ));
    }
    let mut q = Q::default();
    for (s, qspan) in &quals[1..] {
        let s = s.as_str();
        let class = if s.starts_with("cta_group::") {
            "group"
        } else if s.starts_with("kind::") {
            "kind"
        } else if op == "cp" && cp_shape(s).is_some() {
            "cp_shape"
        } else if ldst_shape(s).is_some() {
            "ldst_shape"
        } else if s.starts_with('x') && s[1..].parse::<u32>().is_ok() {
            "num"
        } else {
            s
        };
        if !allowed.contains(&class) {
            let msg = if allowed.is_empty() {
                format!("unknown qualifier `.{s}` on `tcgen05.{op}`; it takes none")
            } else {
                format!("unknown qualifier `.{s}` on `tcgen05.{op}`; expected {}", expected_list(&op))
            };
            return Err(Diagnostic::new(*qspan, ErrorKind::UnknownQualifier, msg));
        }
        let twice = || Diagnostic::new(*qspan, ErrorKind::ForbiddenQualifiers, format!("`{text}` gives `{class}` twice"));
        match class {
            "group" => {
                let g = match s {
                    "cta_group::1" => CtaGroup::One,
                    "cta_group::2" => CtaGroup::Two,
                    _ => {
                        return Err(Diagnostic::new(
                            *qspan,
                            ErrorKind::UnknownQualifier,
                            format!("unknown qualifier `.{s}`; expected .cta_group::1 or .cta_group::2"),
                        ));
                    }
                };
                if q.group.replace(g).is_some() {
                    return Err(twice());
                }
            }
            "kind" => {
                let k = mma_kind(s).ok_or_else(|| {
                    Diagnostic::new(
                        *qspan,
                        ErrorKind::UnknownQualifier,
                        format!("unknown qualifier `.{s}` on `tcgen05.mma`; expected {}", expected_list("mma")),
                    )
                })?;
                if q.kind.replace(k).is_some() {
                    return Err(twice());
                }
            }
            "cp_shape" if q.cp_shape.replace(cp_shape(s).expect("[tcfuzz internal bug] classified as cp shape")).is_some() => {
                return Err(twice());
            }
            "ldst_shape" if q.ldst_shape.replace(ldst_shape(s).expect("[tcfuzz internal bug] classified as ld/st shape")).is_some() => {
                return Err(twice());
            }
            "num" => {
                let n: u32 = s[1..].parse().unwrap_or(0);
                if !(n.is_power_of_two() && n <= 128) {
                    return Err(Diagnostic::new(
                        *qspan,
                        ErrorKind::UnknownQualifier,
                        format!("`.{s}` is not a valid repeat count; expected .x1 .x2 .x4 .x8 .x16 .x32 .x64 .x128"),
                    ));
                }
                if q.num.replace(n).is_some() {
                    return Err(twice());
                }
            }
            "pack::16b" | "unpack::16b" => q.pack = true,
            "down" => q.down = true,
            "mbarrier::arrive::one" => q.arrive_one = true,
            "shared::cluster" => q.shared_cluster = true,
            "multicast::cluster" => q.multicast = true,
            _ => {}
        }
    }
    let need = |cond: bool, what: &str| -> PResult<()> {
        if cond { Ok(()) } else { Err(Diagnostic::new(span, ErrorKind::ForbiddenQualifiers, format!("`{text}` needs {what}"))) }
    };
    let o = OpView::new(ops, end, text);
    let group = || {
        q.group.ok_or_else(|| {
            Diagnostic::new(span, ErrorKind::ForbiddenQualifiers, format!("`{text}` needs `.cta_group::1` or `.cta_group::2`"))
        })
    };
    let instr = match op.as_str() {
        "alloc" => {
            o.count(&[2], "tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [slot], ncols")?;
            Tcgen05::Alloc { group: group()?, slot: o.addr(0)?, ncols: o.operand(1)? }
        }
        "dealloc" => {
            o.count(&[2], "tcgen05.dealloc.cta_group::1.sync.aligned.b32 taddr, ncols")?;
            let (taddr, region) = match o.addr(0) {
                Ok(Addr { name, bracketed: true }) => (Operand::Reg(name.clone()), Some(name)),
                _ => (o.operand(0)?, None),
            };
            Tcgen05::Dealloc { group: group()?, taddr, region, ncols: o.operand(1)? }
        }
        "relinquish_alloc_permit" => {
            o.count(&[0], "tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned")?;
            Tcgen05::RelinquishAllocPermit { group: group()? }
        }
        "mma" => {
            let kind = q.kind.ok_or_else(|| {
                Diagnostic::new(span, ErrorKind::ForbiddenQualifiers, format!("`{text}` needs a kind: {}", expected_list("mma")))
            })?;
            o.count(&[5], "tcgen05.mma.cta_group::1.kind::f16 [d], [a], [b], idesc, enable_input_d")?;
            Tcgen05::Mma {
                group: group()?,
                kind,
                d: o.addr(0)?,
                a: o.addr(1)?,
                b: o.addr(2)?,
                idesc: o.imm(3).map_err(|_| o.bad(3, "an integer instruction descriptor"))?,
                acc: o.operand(4)?,
            }
        }
        "cp" => {
            let shape = q.cp_shape.ok_or_else(|| {
                Diagnostic::new(
                    span,
                    ErrorKind::ForbiddenQualifiers,
                    format!("`{text}` needs a shape: .128x256b .4x256b .128x128b .64x128b .32x128b"),
                )
            })?;
            o.count(&[2], "tcgen05.cp.cta_group::1.128x256b [d], [s]")?;
            Tcgen05::Cp { group: group()?, shape, d: o.addr(0)?, src: o.addr(1)? }
        }
        "shift" => {
            need(q.down, "`.down` (the only shift direction)")?;
            o.count(&[1], "tcgen05.shift.cta_group::1.down [d]")?;
            Tcgen05::Shift { group: group()?, d: o.addr(0)? }
        }
        "ld" | "st" => {
            let shape = q.ldst_shape.ok_or_else(|| {
                Diagnostic::new(
                    span,
                    ErrorKind::ForbiddenQualifiers,
                    format!("`{text}` needs a shape: .16x64b .16x128b .16x256b .32x32b .16x32bx2"),
                )
            })?;
            let num = q.num.ok_or_else(|| {
                Diagnostic::new(span, ErrorKind::ForbiddenQualifiers, format!("`{text}` needs a repeat count: .x1 .x2 ... .x128"))
            })?;
            if op == "ld" {
                o.count(&[2], "tcgen05.ld.sync.aligned.32x32b.x1.b32 r, [d]")?;
                Tcgen05::Ld { shape, num, pack: q.pack, dst: o.reg(0)?, src: o.addr(1)? }
            } else {
                o.count(&[2], "tcgen05.st.sync.aligned.32x32b.x1.b32 [d], v")?;
                Tcgen05::St { shape, num, unpack: q.pack, dst: o.addr(0)?, src: o.operand(1)? }
            }
        }
        "commit" => {
            need(q.arrive_one, "`.mbarrier::arrive::one`")?;
            let multicast = if q.multicast {
                o.count(&[2], "tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64 [bar], ctamask")?;
                Some(o.operand(1)?)
            } else {
                o.count(&[1], "tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [bar]")?;
                None
            };
            Tcgen05::Commit { group: group()?, shared_cluster: q.shared_cluster, multicast, mbar: o.addr(0)? }
        }
        "wait::ld" | "wait::st" => {
            o.count(&[0], &format!("tcgen05.{op}.sync.aligned"))?;
            Tcgen05::Wait { st: op == "wait::st" }
        }
        _ => {
            o.count(&[0], &format!("tcgen05.{op}"))?;
            Tcgen05::Fence { after: op == "fence::after_thread_sync" }
        }
    };
    Ok(Instr::Tcgen05(instr))
}
