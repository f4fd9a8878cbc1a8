//! Canonical printing. `parse(print(p)) == p` for every valid program (a property test checks it).

use crate::ast::*;
use crate::tile::ordering_name;
use std::fmt::{self, Display, Formatter, Write};

pub fn print(p: &Program) -> String {
    let mut out = String::new();
    let notes = Notes::new(p);
    notes.lines(&mut out, CommentPlace::Header, "");
    let arch = match p.arch {
        Arch::Ptx => "PTX",
        Arch::TileIr => "TileIR",
    };
    let _ = writeln!(out, "{arch} {}", p.name);
    for d in &p.docs {
        let _ = writeln!(out, "\"{d}\"");
    }
    notes.lines(&mut out, CommentPlace::InitStart, "");
    let _ = writeln!(out, "{{{}", notes.inline(CommentPlace::InitStart));
    for (k, l) in p.locations.iter().enumerate() {
        let place = CommentPlace::Location(k);
        notes.lines(&mut out, place, "  ");
        let _ = writeln!(out, "  {};{}", LocationText(l), notes.inline(place));
    }
    for (k, r) in p.reg_inits.iter().enumerate() {
        let place = CommentPlace::RegInit(k);
        notes.lines(&mut out, place, "  ");
        let _ = writeln!(out, "  {}:{} = {};{}", r.thread, r.reg, ValueText(&r.value), notes.inline(place));
    }
    notes.lines(&mut out, CommentPlace::InitEnd, "  ");
    let _ = writeln!(out, "}}{}", notes.inline(CommentPlace::InitEnd));
    if notes.rows {
        print_columns(&mut out, p, &notes);
    } else {
        print_blocks(&mut out, p, &notes);
    }
    let q = match p.condition.quantifier {
        Quantifier::Exists => "exists",
        Quantifier::NotExists => "~exists",
        Quantifier::Forall => "forall",
    };
    notes.lines(&mut out, CommentPlace::Condition, "");
    let _ = writeln!(out, "{q} ({}){}", PropText(&p.condition.prop, Level::Or), notes.inline(CommentPlace::Condition));
    notes.lines(&mut out, CommentPlace::End, "");
    out
}

/// Whether the printer lays `p`'s threads out in rows (PTX-only programs) rather than blocks.
pub(crate) fn in_rows(p: &Program) -> bool {
    !p.threads.iter().any(|t| t.kind() == ThreadKind::TileBlock)
}

/// Whether trailing comments can share the end of one line: only the last may run to the end of
/// the line (`//`) or past it (a block comment with a line break: what follows it would start on
/// a later line, and parse as a comment of its own line).
pub(crate) fn fits_one_line(trailing: &[&Comment]) -> bool {
    trailing.iter().rev().skip(1).all(|c| c.style == CommentStyle::Block && !c.text.contains('\n'))
}

/// Where the printer writes comments of `place`, as a sort key (`rows`: see [`in_rows`]).
pub(crate) fn print_order(place: CommentPlace, rows: bool) -> (u8, usize, usize) {
    match place {
        CommentPlace::Header => (0, 0, 0),
        CommentPlace::InitStart => (1, 0, 0),
        CommentPlace::Location(k) => (2, k, 0),
        CommentPlace::RegInit(k) => (3, k, 0),
        CommentPlace::InitEnd => (4, 0, 0),
        CommentPlace::Thread(_) if rows => (5, 0, 0),
        CommentPlace::Stmt { thread, index } if rows => (6, index, thread),
        CommentPlace::Thread(t) => (5, t, 0),
        CommentPlace::Stmt { thread, index } => (5, thread, index + 1),
        CommentPlace::ThreadEnd(t) => (5, t, usize::MAX),
        CommentPlace::Condition => (8, 0, 0),
        CommentPlace::End => (9, 0, 0),
    }
}

/// The program's comments by where the printer writes them. Each comment goes to the slot of its
/// place — in rows, every thread's statement `k` shares row `k`, headers share the header row,
/// and a block's end is the condition — and a place the program does not have is the end.
struct Notes<'a> {
    rows: bool,
    slots: Vec<(CommentPlace, &'a Comment)>,
}

impl<'a> Notes<'a> {
    fn new(p: &'a Program) -> Self {
        let rows = in_rows(p);
        let exists = |place: CommentPlace| match place {
            CommentPlace::Location(k) => k < p.locations.len(),
            CommentPlace::RegInit(k) => k < p.reg_inits.len(),
            CommentPlace::Thread(t) | CommentPlace::ThreadEnd(t) => t < p.threads.len(),
            CommentPlace::Stmt { thread, index } => p.threads.get(thread).is_some_and(|t| index < t.body.len()),
            _ => true,
        };
        let slot = |place: CommentPlace| match place {
            _ if !exists(place) => CommentPlace::End,
            CommentPlace::Thread(_) if rows => CommentPlace::Thread(0),
            CommentPlace::Stmt { index, .. } if rows => CommentPlace::Stmt { thread: 0, index },
            CommentPlace::ThreadEnd(_) if rows => CommentPlace::Condition,
            other => other,
        };
        let slots = p.comments.iter().map(|c| (slot(c.place), c)).collect();
        Notes { rows, slots }
    }

    /// The trailing comments of `slot` if they fit at the end of its line.
    fn trailing(&self, slot: CommentPlace) -> Option<Vec<&'a Comment>> {
        // Nothing shares a line with the header's comments or the end.
        if matches!(slot, CommentPlace::Header | CommentPlace::End) {
            return Some(Vec::new());
        }
        let trailing: Vec<&Comment> =
            self.slots.iter().filter(|(s, c)| *s == slot && c.trailing && c.style != CommentStyle::Skipped).map(|(_, c)| *c).collect();
        fits_one_line(&trailing).then_some(trailing)
    }

    /// Writes the comments printed on lines of their own before `slot`'s item, indented.
    fn lines(&self, out: &mut String, slot: CommentPlace, indent: &str) {
        let inline = self.trailing(slot).unwrap_or_default();
        for (_, c) in self.slots.iter().filter(|(s, c)| *s == slot && !inline.iter().any(|i| std::ptr::eq(*i, *c))) {
            let _ = match c.style {
                CommentStyle::Line => writeln!(out, "{indent}//{}", c.text),
                CommentStyle::Block => writeln!(out, "{indent}(*{}*)", c.text),
                CommentStyle::Skipped => writeln!(out, "{}", c.text),
            };
        }
    }

    /// The comments printed at the end of `slot`'s line, with their leading space.
    fn inline(&self, slot: CommentPlace) -> String {
        let mut s = String::new();
        for c in self.trailing(slot).unwrap_or_default() {
            let _ = match c.style {
                CommentStyle::Block => write!(s, " (*{}*)", c.text),
                _ => write!(s, " //{}", c.text),
            };
        }
        s
    }
}

fn header(t: &Thread) -> String {
    match t.placement {
        Placement::Ptx { gpu, cluster, cta, warp } => {
            let mut s = format!("{}@", t.name);
            if let Some(w) = warp {
                let _ = write!(s, "warp {w},");
            }
            let _ = write!(s, "cta {cta},");
            if let Some(c) = cluster {
                let _ = write!(s, "cluster {c},");
            }
            let _ = write!(s, "gpu {gpu}");
            s
        }
        Placement::TileBlock { dev, tlb } => format!("{}@tlb {tlb}, dev {dev}", t.name),
    }
}

fn stmt_text(s: &Stmt) -> String {
    match &s.kind {
        StmtKind::Label(l) => format!("{l}:"),
        StmtKind::Instr(i) => i.to_string(),
    }
}

fn print_columns(out: &mut String, p: &Program, notes: &Notes) {
    let mut cols: Vec<Vec<String>> =
        p.threads.iter().map(|t| std::iter::once(header(t)).chain(t.body.iter().map(stmt_text)).collect()).collect();
    let rows = cols.iter().map(Vec::len).max().unwrap_or(0);
    for col in &mut cols {
        col.resize(rows, String::new());
    }
    let widths: Vec<usize> = cols.iter().map(|c| c.iter().map(|s| s.chars().count()).max().unwrap_or(0)).collect();
    for r in 0..rows {
        // Row 0 is the header row; row r > 0 holds statement r - 1 of each thread.
        let slot = if r == 0 { CommentPlace::Thread(0) } else { CommentPlace::Stmt { thread: 0, index: r - 1 } };
        notes.lines(out, slot, " ");
        for (i, (c, w)) in cols.iter().zip(&widths).enumerate() {
            if i > 0 {
                out.push('|');
            }
            // Padded by hand: `format!`'s width is at most 65,535 and a cell may be wider.
            let cell = &c[r];
            out.push(' ');
            out.push_str(cell);
            out.extend(std::iter::repeat_n(' ', w - cell.chars().count() + 1));
        }
        let _ = writeln!(out, ";{}", notes.inline(slot));
    }
}

fn print_blocks(out: &mut String, p: &Program, notes: &Notes) {
    for (t, thread) in p.threads.iter().enumerate() {
        notes.lines(out, CommentPlace::Thread(t), "");
        let _ = writeln!(out, "{} {{{}", header(thread), notes.inline(CommentPlace::Thread(t)));
        for (index, s) in thread.body.iter().enumerate() {
            let slot = CommentPlace::Stmt { thread: t, index };
            notes.lines(out, slot, "  ");
            let _ = match &s.kind {
                StmtKind::Label(l) => writeln!(out, "{l}:{}", notes.inline(slot)),
                StmtKind::Instr(i) => writeln!(out, "  {i};{}", notes.inline(slot)),
            };
        }
        notes.lines(out, CommentPlace::ThreadEnd(t), "  ");
        let _ = writeln!(out, "}}{}", notes.inline(CommentPlace::ThreadEnd(t)));
    }
}

struct ValueText<'a>(&'a Value);

impl Display for ValueText<'_> {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self.0 {
            Value::Int(v) => write!(f, "{v}"),
            Value::Tile(vs) => write!(f, "{}", TileText(vs)),
        }
    }
}

struct TileText<'a>(&'a [i64]);

impl Display for TileText<'_> {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        let parts: Vec<String> = self.0.iter().map(i64::to_string).collect();
        write!(f, "[{}]", parts.join(", "))
    }
}

struct LocationText<'a>(&'a Location);

impl Display for LocationText<'_> {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        let l = self.0;
        write!(f, "{}", l.name)?;
        match &l.kind {
            LocationKind::Global => {}
            LocationKind::Alias { proxy, target } => write!(f, " @ {} aliases {target}", alias_name(*proxy))?,
            LocationKind::Shared { cta, gpu } => write!(f, " @ shared cta {cta} gpu {gpu}")?,
            LocationKind::Mbarrier { cta, gpu, count } => {
                write!(f, " @ mbarrier cta {cta} gpu {gpu}")?;
                if let Some(c) = count {
                    write!(f, " count {c}")?;
                }
            }
            LocationKind::Tmem { cta, gpu, lanes, cols } => {
                write!(f, " @ tmem cta {cta} gpu {gpu} lanes {}-{} cols {}-{}", lanes.lo, lanes.hi, cols.lo, cols.hi)?
            }
        }
        if let Some(v) = &l.init {
            write!(f, " = {}", ValueText(v))?;
        }
        Ok(())
    }
}

fn alias_name(p: AliasProxy) -> &'static str {
    match p {
        AliasProxy::Generic => "generic",
        AliasProxy::Texture => "texture",
        AliasProxy::Surface => "surface",
        AliasProxy::Constant => "constant",
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Level {
    Or,
    And,
    Unary,
}

struct PropText<'a>(&'a Prop, Level);

impl Display for PropText<'_> {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        // Operators associate to the left: a right operand of the same operator needs parentheses.
        let (text, level) = match self.0 {
            Prop::True => ("true".to_string(), Level::Unary),
            Prop::Atom(c) => (format!("{} {} {}", TermText(&c.lhs), if c.eq { "==" } else { "!=" }, TermText(&c.rhs)), Level::Unary),
            Prop::Not(p) => (format!("~{}", PropText(p, Level::Unary)), Level::Unary),
            Prop::And(a, b) => (format!("{} /\\ {}", PropText(a, Level::And), PropText(b, Level::Unary)), Level::And),
            Prop::Or(a, b) => (format!("{} \\/ {}", PropText(a, Level::Or), PropText(b, Level::And)), Level::Or),
        };
        let rank = |l: Level| match l {
            Level::Or => 0,
            Level::And => 1,
            Level::Unary => 2,
        };
        if rank(level) < rank(self.1) { write!(f, "({text})") } else { write!(f, "{text}") }
    }
}

struct TermText<'a>(&'a Term);

impl Display for TermText<'_> {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self.0 {
            Term::Const(v) => write!(f, "{}", ValueText(v)),
            Term::Reg { thread, reg } => write!(f, "{thread}:{reg}"),
            Term::Loc { name, element: None } => write!(f, "{name}"),
            Term::Loc { name, element: Some(i) } => write!(f, "{name}[{i}]"),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Instructions.

fn sem_name(s: Sem) -> &'static str {
    match s {
        Sem::Weak => "weak",
        Sem::Volatile => "volatile",
        Sem::Relaxed => "relaxed",
        Sem::Acquire => "acquire",
        Sem::Release => "release",
        Sem::AcqRel => "acq_rel",
    }
}

pub(crate) fn scope_name(s: Scope) -> &'static str {
    match s {
        Scope::Cta => "cta",
        Scope::Cluster => "cluster",
        Scope::Gpu => "gpu",
        Scope::Sys => "sys",
    }
}

fn space_name(s: StateSpace) -> &'static str {
    match s {
        StateSpace::Global => "global",
        StateSpace::Shared => "shared",
        StateSpace::SharedCta => "shared::cta",
        StateSpace::SharedCluster => "shared::cluster",
    }
}

fn type_name(t: DataType) -> &'static str {
    match t {
        DataType::B32 => "b32",
        DataType::B64 => "b64",
        DataType::U32 => "u32",
        DataType::U64 => "u64",
        DataType::S32 => "s32",
        DataType::S64 => "s64",
    }
}

pub(crate) fn op_name(o: AtomOp) -> &'static str {
    match o {
        AtomOp::Add => "add",
        AtomOp::Sub => "sub",
        AtomOp::Exch => "exch",
        AtomOp::Cas => "cas",
        AtomOp::And => "and",
        AtomOp::Or => "or",
        AtomOp::Xor => "xor",
        AtomOp::Min => "min",
        AtomOp::Max => "max",
        AtomOp::Inc => "inc",
        AtomOp::Dec => "dec",
    }
}

/// `.sem.scope.space.type`, each only if present.
fn quals(sem: Option<Sem>, scope: Option<Scope>, space: Option<StateSpace>) -> String {
    let mut s = String::new();
    if let Some(x) = sem {
        let _ = write!(s, ".{}", sem_name(x));
    }
    if let Some(x) = scope {
        let _ = write!(s, ".{}", scope_name(x));
    }
    if let Some(x) = space {
        let _ = write!(s, ".{}", space_name(x));
    }
    s
}

fn ty(t: Option<DataType>) -> String {
    t.map_or(String::new(), |t| format!(".{}", type_name(t)))
}

impl Display for Addr {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        if self.bracketed { write!(f, "[{}]", self.name) } else { write!(f, "{}", self.name) }
    }
}

impl Display for Operand {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Operand::Reg(r) => write!(f, "{r}"),
            Operand::Imm(v) => write!(f, "{v}"),
        }
    }
}

fn group(g: CtaGroup) -> &'static str {
    match g {
        CtaGroup::One => "cta_group::1",
        CtaGroup::Two => "cta_group::2",
    }
}

fn ldst_shape(s: LdStShape) -> &'static str {
    match s {
        LdStShape::S16x64b => "16x64b",
        LdStShape::S16x128b => "16x128b",
        LdStShape::S16x256b => "16x256b",
        LdStShape::S32x32b => "32x32b",
        LdStShape::S16x32bx2 => "16x32bx2",
    }
}

fn cp_shape(s: CpShape) -> &'static str {
    match s {
        CpShape::S128x256b => "128x256b",
        CpShape::S4x256b => "4x256b",
        CpShape::S128x128b => "128x128b",
        CpShape::S64x128b => "64x128b",
        CpShape::S32x128b => "32x128b",
    }
}

fn mma_kind(k: MmaKind) -> &'static str {
    match k {
        MmaKind::F16 => "f16",
        MmaKind::Tf32 => "tf32",
        MmaKind::F8f6f4 => "f8f6f4",
        MmaKind::I8 => "i8",
        MmaKind::MxF8f6f4 => "mxf8f6f4",
        MmaKind::MxF4 => "mxf4",
        MmaKind::MxF4nvf4 => "mxf4nvf4",
    }
}

fn join_ops(ops: &[Operand]) -> String {
    ops.iter().map(Operand::to_string).collect::<Vec<_>>().join(", ")
}

fn tile_scope(s: Option<TileScope>) -> &'static str {
    match s {
        None => "",
        Some(TileScope::TileBlock) => ".tile_block",
        Some(TileScope::Device) => ".device",
        Some(TileScope::Sys) => ".sys",
    }
}

impl Display for TileAddr {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.name)?;
        if let Some(es) = &self.elements {
            let parts: Vec<String> = es.iter().map(u32::to_string).collect();
            write!(f, "[{}]", parts.join(", "))?;
        }
        Ok(())
    }
}

impl Display for TileValue {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            TileValue::Tile(vs) => write!(f, "{}", TileText(vs)),
            TileValue::Reg(r) => write!(f, "{r}"),
        }
    }
}

fn deps(ds: &[Token]) -> String {
    ds.iter().map(|d| format!(", <{d}>")).collect()
}

fn results(reg: Option<&str>, token: &Option<Token>) -> String {
    match (reg, token) {
        (Some(r), Some(t)) => format!("{r}, <{t}> = "),
        (Some(r), None) => format!("{r} = "),
        (None, Some(t)) => format!("<{t}> = "),
        (None, None) => String::new(),
    }
}

impl Display for Instr {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Instr::Ld(l) => {
                let head = match l.proxy {
                    AccessProxy::Generic => "ld",
                    AccessProxy::Texture => "tld",
                    AccessProxy::Surface => "suld",
                    AccessProxy::Constant => "cold",
                };
                write!(f, "{head}{}{} {}, {}", quals(l.sem, l.scope, l.space), ty(l.ty), l.dst, l.addr)
            }
            Instr::St(s) => {
                let head = if s.proxy == AccessProxy::Surface { "sust" } else { "st" };
                write!(f, "{head}{}{} {}, {}", quals(s.sem, s.scope, s.space), ty(s.ty), s.addr, s.src)
            }
            Instr::Atom(a) => {
                write!(f, "atom{}.{}{} {}, {}, {}", quals(a.sem, a.scope, a.space), op_name(a.op), ty(a.ty), a.dst, a.addr, a.a)?;
                if let Some(b) = &a.b {
                    write!(f, ", {b}")?;
                }
                Ok(())
            }
            Instr::Red(r) => write!(f, "red{}.{}{} {}, {}", quals(r.sem, r.scope, r.space), op_name(r.op), ty(r.ty), r.addr, r.a),
            Instr::Fence(fence) => match fence {
                Fence::Sc(s) => write!(f, "fence.sc.{}", scope_name(*s)),
                Fence::AcqRel(s) => write!(f, "fence.acq_rel.{}", scope_name(*s)),
                Fence::Membar(s) => write!(f, "membar.{}", if *s == Scope::Gpu { "gl" } else { scope_name(*s) }),
                Fence::Proxy(AliasProxy::Generic) => write!(f, "fence.proxy.alias"),
                Fence::Proxy(p) => write!(f, "fence.proxy.{}", alias_name(*p)),
                Fence::ProxyAsync(None) => write!(f, "fence.proxy.async"),
                Fence::ProxyAsync(Some(s)) => write!(f, "fence.proxy.async.{}", space_name(*s)),
            },
            Instr::Barrier(b) => match b {
                Barrier::Sync { form, operands } | Barrier::Arrive { form, operands } => {
                    let what = if matches!(b, Barrier::Sync { .. }) { "sync" } else { "arrive" };
                    write!(
                        f,
                        "{}{}.{what}{} {}",
                        if form.long { "barrier" } else { "bar" },
                        if form.cta { ".cta" } else { "" },
                        if form.aligned { ".aligned" } else { "" },
                        join_ops(operands)
                    )
                }
                Barrier::ClusterArrive { sem, aligned } => {
                    write!(
                        f,
                        "barrier.cluster.arrive{}{}",
                        sem.map_or(String::new(), |s| format!(".{}", sem_name(s))),
                        if *aligned { ".aligned" } else { "" }
                    )
                }
                Barrier::ClusterWait { acquire, aligned } => {
                    write!(f, "barrier.cluster.wait{}{}", if *acquire { ".acquire" } else { "" }, if *aligned { ".aligned" } else { "" })
                }
            },
            Instr::Mbarrier(m) => match m {
                Mbarrier::Init { space, addr, count } => write!(f, "mbarrier.init{}.b64 {addr}, {count}", quals(None, None, *space)),
                Mbarrier::Arrive(a) => {
                    write!(
                        f,
                        "mbarrier.arrive{}{}.b64 {}, {}",
                        if a.expect_tx { ".expect_tx" } else { "" },
                        quals(a.sem, a.scope, a.space),
                        a.state,
                        a.addr
                    )?;
                    if let Some(c) = &a.count {
                        write!(f, ", {c}")?;
                    }
                    Ok(())
                }
                Mbarrier::ExpectTx { sem, scope, space, addr, tx } => {
                    write!(f, "mbarrier.expect_tx{}.b64 {addr}, {tx}", quals(*sem, *scope, *space))
                }
                Mbarrier::Wait(w) => write!(
                    f,
                    "{}mbarrier.{}{}{}.b64 {}, {}, {}",
                    if w.blocking { "await " } else { "" },
                    if w.test { "test_wait" } else { "try_wait" },
                    if w.parity { ".parity" } else { "" },
                    quals(w.sem, w.scope, w.space),
                    w.dst,
                    w.addr,
                    w.phase
                ),
            },
            Instr::CpAsyncBulk(c) => write!(
                f,
                "cp.async.bulk.{}.global.mbarrier::complete_tx::bytes {}, {}, {}, {}",
                space_name(c.dst_space),
                c.dst,
                c.src,
                c.size,
                c.mbar
            ),
            Instr::Tcgen05(t) => match t {
                Tcgen05::Alloc { group: g, slot, ncols } => {
                    write!(f, "tcgen05.alloc.{}.sync.aligned.shared::cta.b32 {slot}, {ncols}", group(*g))
                }
                Tcgen05::Dealloc { group: g, taddr, region, ncols } => match region {
                    Some(r) => write!(f, "tcgen05.dealloc.{}.sync.aligned.b32 [{r}], {ncols}", group(*g)),
                    None => write!(f, "tcgen05.dealloc.{}.sync.aligned.b32 {taddr}, {ncols}", group(*g)),
                },
                Tcgen05::RelinquishAllocPermit { group: g } => write!(f, "tcgen05.relinquish_alloc_permit.{}.sync.aligned", group(*g)),
                Tcgen05::Mma { group: g, kind, d, a, b, idesc, acc } => {
                    write!(f, "tcgen05.mma.{}.kind::{} {d}, {a}, {b}, {idesc}, {acc}", group(*g), mma_kind(*kind))
                }
                Tcgen05::Cp { group: g, shape, d, src } => write!(f, "tcgen05.cp.{}.{} {d}, {src}", group(*g), cp_shape(*shape)),
                Tcgen05::Shift { group: g, d } => write!(f, "tcgen05.shift.{}.down {d}", group(*g)),
                Tcgen05::Ld { shape, num, pack, dst, src } => write!(
                    f,
                    "tcgen05.ld.sync.aligned.{}.x{num}{}.b32 {dst}, {src}",
                    ldst_shape(*shape),
                    if *pack { ".pack::16b" } else { "" }
                ),
                Tcgen05::St { shape, num, unpack, dst, src } => write!(
                    f,
                    "tcgen05.st.sync.aligned.{}.x{num}{}.b32 {dst}, {src}",
                    ldst_shape(*shape),
                    if *unpack { ".unpack::16b" } else { "" }
                ),
                Tcgen05::Commit { group: g, shared_cluster, multicast, mbar } => {
                    write!(
                        f,
                        "tcgen05.commit.{}.mbarrier::arrive::one{}",
                        group(*g),
                        if *shared_cluster { ".shared::cluster" } else { "" }
                    )?;
                    match multicast {
                        Some(mask) => write!(f, ".multicast::cluster.b64 {mbar}, {mask}"),
                        None => write!(f, ".b64 {mbar}"),
                    }
                }
                Tcgen05::Wait { st } => write!(f, "tcgen05.wait::{}.sync.aligned", if *st { "st" } else { "ld" }),
                Tcgen05::Fence { after } => write!(f, "tcgen05.fence::{}_thread_sync", if *after { "after" } else { "before" }),
            },
            Instr::Tile(t) => match t {
                TileOp::Load { ordering, scope, dst, token, addr, deps: d } => {
                    write!(f, "{}ld.{}{} {addr}{}", results(Some(dst), token), ordering_name(*ordering), tile_scope(*scope), deps(d))
                }
                TileOp::Store { ordering, scope, token, addr, value, deps: d } => {
                    write!(f, "{}st.{}{} {addr}, {value}{}", results(None, token), ordering_name(*ordering), tile_scope(*scope), deps(d))
                }
                TileOp::Atomic { ordering, scope, op, dst, token, addr, value, deps: d } => {
                    write!(
                        f,
                        "{}atom.{}{}.{} {addr}, {value}{}",
                        results(Some(dst), token),
                        ordering_name(*ordering),
                        tile_scope(*scope),
                        op_name(*op),
                        deps(d)
                    )
                }
                TileOp::MakeToken { token } => write!(f, "<{token}> = make_token"),
                TileOp::JoinTokens { token, deps: d } => {
                    let list: Vec<String> = d.iter().map(|t| format!("<{t}>")).collect();
                    write!(f, "<{token}> = join_tokens {}", list.join(", "))
                }
            },
            Instr::Mov { dst, src, dialect_ld } => {
                if *dialect_ld {
                    write!(f, "ld {dst}, {src}")
                } else {
                    write!(f, "mov {dst}, {src}")
                }
            }
            Instr::Add { dst, a, b } => write!(f, "add {dst}, {a}, {b}"),
            Instr::Branch { cond, a, b, target } => write!(f, "{} {a}, {b}, {target}", if *cond == BranchCond::Eq { "beq" } else { "bne" }),
            Instr::Goto { target } => write!(f, "goto {target}"),
            Instr::Assume { cmp, a, b } => write!(f, "assume.{} {a}, {b}", cmp.name()),
        }
    }
}
