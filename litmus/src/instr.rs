//! Instructions: a mnemonic with its qualifiers, then operands. Each instruction accepts exactly
//! the qualifiers the PTX ISA (or the Tile IR spec) allows it, plus the Dat3M dialect forms that
//! the conformance corpus uses (listed in `FORMAT.md`); anything else is an error that lists what
//! would be accepted.

use crate::ast::*;
use crate::error::{Diagnostic, ErrorKind};
use crate::lexer::{Tok, Token};
use crate::parser::{Cursor, PResult};

/// A mnemonic split at its dots, each part with its own position.
struct Mnemonic {
    head: String,
    quals: Vec<(String, Span)>,
    span: Span,
}

impl Mnemonic {
    fn split(word: &str, span: Span) -> Mnemonic {
        let mut parts = word.split('.');
        let head = parts.next().unwrap_or_default().to_string();
        let mut col = span.col + head.len() as u32;
        let mut quals = Vec::new();
        for p in parts {
            quals.push((p.to_string(), Span { line: span.line, col }));
            col += 1 + p.len() as u32;
        }
        Mnemonic { head, quals, span }
    }
    fn text(&self) -> String {
        let mut s = self.head.clone();
        for (q, _) in &self.quals {
            s.push('.');
            s.push_str(q);
        }
        s
    }
}

fn err(span: Span, kind: ErrorKind, msg: impl Into<String>) -> Diagnostic {
    Diagnostic::new(span, kind, msg)
}

pub fn parse_stmt(toks: &[Token], span: Span, kind: ThreadKind) -> PResult<Stmt> {
    if let [Token { tok: Tok::Word(l), .. }, Token { tok: Tok::Colon, .. }] = toks {
        return Ok(Stmt { span, kind: StmtKind::Label(l.clone()) });
    }
    let end = toks.last().map_or(span, |t| Span { line: t.span.line, col: t.span.col + 1 });
    let instr = match kind {
        ThreadKind::TileBlock => parse_tile(toks, end)?,
        ThreadKind::Ptx => parse_ptx(toks, end)?,
    };
    Ok(Stmt { span, kind: StmtKind::Instr(instr) })
}

/// Splits operand tokens at top-level commas (commas inside `[...]` belong to a tile).
fn split_operands(toks: &[Token]) -> Vec<&[Token]> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut start = 0;
    for (i, t) in toks.iter().enumerate() {
        match t.tok {
            Tok::LBracket => depth += 1,
            Tok::RBracket => depth -= 1,
            Tok::Comma if depth == 0 => {
                out.push(&toks[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    if !toks.is_empty() {
        out.push(&toks[start..]);
    }
    out
}

/// Operand parsers over one operand's tokens.
struct Ops<'a> {
    ops: Vec<&'a [Token]>,
    after: Span,
    mnemonic: String,
}

impl<'a> Ops<'a> {
    fn span(&self, i: usize) -> Span {
        self.ops.get(i).and_then(|o| o.first()).map_or(self.after, |t| t.span)
    }
    fn count(&self, allowed: &[usize], form: &str) -> PResult<()> {
        if allowed.contains(&self.ops.len()) {
            return Ok(());
        }
        let span = self.ops.get(allowed.iter().copied().max().unwrap_or(0)).and_then(|o| o.first()).map_or(self.after, |t| t.span);
        Err(err(
            span,
            ErrorKind::BadOperand,
            format!("`{}` takes {}, found {} operand(s): expected `{form}`", self.mnemonic, plural(allowed), self.ops.len()),
        ))
    }
    fn bad(&self, i: usize, what: &str) -> Diagnostic {
        let found = match self.ops.get(i) {
            Some(o) if !o.is_empty() => o.iter().map(|t| t.tok.describe().trim_matches('`').to_string()).collect::<Vec<_>>().join(" "),
            _ => "nothing".to_string(),
        };
        err(self.span(i), ErrorKind::BadOperand, format!("operand {} of `{}` must be {what}, found `{found}`", i + 1, self.mnemonic))
    }
    fn reg(&self, i: usize) -> PResult<Reg> {
        match self.ops.get(i).map(|o| &o[..]) {
            Some([Token { tok: Tok::Word(w), .. }]) => Ok(w.clone()),
            _ => Err(self.bad(i, "a register")),
        }
    }
    fn operand(&self, i: usize) -> PResult<Operand> {
        match self.ops.get(i).map(|o| &o[..]) {
            Some([Token { tok: Tok::Word(w), .. }]) => Ok(Operand::Reg(w.clone())),
            Some([Token { tok: Tok::Int(v), .. }]) => Ok(Operand::Imm(*v)),
            Some([Token { tok: Tok::Minus, .. }, Token { tok: Tok::Int(v), .. }]) => Ok(Operand::Imm(v.wrapping_neg())),
            _ => Err(self.bad(i, "a register or an integer")),
        }
    }
    fn imm(&self, i: usize) -> PResult<i64> {
        match self.operand(i) {
            Ok(Operand::Imm(v)) => Ok(v),
            _ => Err(self.bad(i, "an integer")),
        }
    }
    fn addr(&self, i: usize) -> PResult<Addr> {
        match self.ops.get(i).map(|o| &o[..]) {
            Some([Token { tok: Tok::Word(w), .. }]) => Ok(Addr { name: w.clone(), bracketed: false }),
            Some([Token { tok: Tok::LBracket, .. }, Token { tok: Tok::Word(w), .. }, Token { tok: Tok::RBracket, .. }]) => {
                Ok(Addr { name: w.clone(), bracketed: true })
            }
            _ => Err(self.bad(i, "a location, `x` or `[x]`")),
        }
    }
    /// Is operand `i` an immediate (for Dat3M's `ld r0, 1`)?
    fn is_imm(&self, i: usize) -> bool {
        matches!(
            self.ops.get(i).map(|o| &o[..]),
            Some([Token { tok: Tok::Int(_), .. }]) | Some([Token { tok: Tok::Minus, .. }, Token { tok: Tok::Int(_), .. }])
        )
    }
}

fn plural(allowed: &[usize]) -> String {
    let words: Vec<String> = allowed.iter().map(|n| n.to_string()).collect();
    match words.len() {
        1 => format!("{} operand{}", words[0], if allowed[0] == 1 { "" } else { "s" }),
        _ => format!("{} operands", words.join(" or ")),
    }
}

// ---------------------------------------------------------------------------------------------
// Qualifier classes.

#[derive(Clone, Copy, PartialEq, Eq)]
enum Class {
    Sem,
    Scope,
    Space,
    Type,
    Op,
}

fn class_names(c: Class) -> &'static str {
    match c {
        Class::Sem => ".weak .volatile .relaxed .acquire .release .acq_rel",
        Class::Scope => ".cta .cluster .gpu .sys",
        Class::Space => ".global .shared .shared::cta .shared::cluster",
        Class::Type => ".b32 .b64 .u32 .u64 .s32 .s64",
        Class::Op => ".add .sub .exch .cas .and .or .xor .min .max .inc .dec",
    }
}

fn sem_of(q: &str) -> Option<Sem> {
    Some(match q {
        "weak" => Sem::Weak,
        "volatile" => Sem::Volatile,
        "relaxed" => Sem::Relaxed,
        "acquire" => Sem::Acquire,
        "release" => Sem::Release,
        "acq_rel" => Sem::AcqRel,
        _ => return None,
    })
}

pub(crate) fn scope_of(q: &str) -> Option<Scope> {
    Some(match q {
        "cta" => Scope::Cta,
        "cluster" => Scope::Cluster,
        "gpu" => Scope::Gpu,
        "sys" => Scope::Sys,
        _ => return None,
    })
}

fn space_of(q: &str) -> Option<StateSpace> {
    Some(match q {
        "global" => StateSpace::Global,
        "shared" => StateSpace::Shared,
        "shared::cta" => StateSpace::SharedCta,
        "shared::cluster" => StateSpace::SharedCluster,
        _ => return None,
    })
}

fn type_of(q: &str) -> Option<DataType> {
    Some(match q {
        "b32" => DataType::B32,
        "b64" => DataType::B64,
        "u32" => DataType::U32,
        "u64" => DataType::U64,
        "s32" => DataType::S32,
        "s64" => DataType::S64,
        _ => return None,
    })
}

fn op_of(q: &str) -> Option<AtomOp> {
    Some(match q {
        "add" => AtomOp::Add,
        "sub" => AtomOp::Sub,
        "exch" => AtomOp::Exch,
        "cas" => AtomOp::Cas,
        "and" => AtomOp::And,
        "or" => AtomOp::Or,
        "xor" => AtomOp::Xor,
        "min" => AtomOp::Min,
        "max" => AtomOp::Max,
        "inc" => AtomOp::Inc,
        "dec" => AtomOp::Dec,
        _ => return None,
    })
}

#[derive(Default)]
struct Quals {
    sem: Option<(Sem, Span, String)>,
    scope: Option<(Scope, Span)>,
    space: Option<StateSpace>,
    ty: Option<DataType>,
    op: Option<(AtomOp, Span)>,
}

/// Sorts the qualifiers of `m` into the classes `allowed` admits; anything else is an unknown
/// qualifier, and a class given twice is an error.
fn collect(m: &Mnemonic, allowed: &[Class]) -> PResult<Quals> {
    let mut q = Quals::default();
    for (text, span) in &m.quals {
        let twice =
            |what: &str| err(*span, ErrorKind::ForbiddenQualifiers, format!("`{}` has two {what} qualifiers; give at most one", m.text()));
        if allowed.contains(&Class::Sem)
            && let Some(s) = sem_of(text)
        {
            if q.sem.replace((s, *span, text.clone())).is_some() {
                return Err(twice("memory-ordering"));
            }
        } else if allowed.contains(&Class::Scope)
            && let Some(s) = scope_of(text)
        {
            if q.scope.replace((s, *span)).is_some() {
                return Err(twice("scope"));
            }
        } else if allowed.contains(&Class::Space)
            && let Some(s) = space_of(text)
        {
            if q.space.replace(s).is_some() {
                return Err(twice("state-space"));
            }
        } else if allowed.contains(&Class::Type)
            && let Some(t) = type_of(text)
        {
            if q.ty.replace(t).is_some() {
                return Err(twice("type"));
            }
        } else if allowed.contains(&Class::Op)
            && let Some(o) = op_of(text)
        {
            if q.op.replace((o, *span)).is_some() {
                return Err(twice("operation"));
            }
        } else {
            let expected: Vec<&str> = allowed.iter().map(|c| class_names(*c)).collect();
            return Err(err(
                *span,
                ErrorKind::UnknownQualifier,
                format!("unknown qualifier `.{text}` on `{}`; expected {}", m.head, expected.join(" / ")),
            ));
        }
    }
    Ok(q)
}

/// Checks the memory-ordering qualifier against the ones this instruction allows, and the scope
/// rules of PTX ISA §8.4/§9.7.9.8: `.relaxed`/`.acquire`/`.release`/`.acq_rel` need a scope
/// (except on `atom`/`red`, whose scope defaults to `.gpu`), `.weak`/`.volatile` take none.
fn check_sem(m: &Mnemonic, q: &Quals, allowed: &[Sem], what: &str, scope_required: bool) -> PResult<()> {
    if let Some((sem, span, text)) = &q.sem
        && !allowed.contains(sem)
    {
        return Err(err(*span, ErrorKind::ForbiddenQualifiers, format!("`{}.{text}` is not allowed: {what}", m.head)));
    }
    let strong = matches!(q.sem, Some((Sem::Relaxed | Sem::Acquire | Sem::Release | Sem::AcqRel, _, _)));
    if let Some((_, span)) = q.scope
        && !strong
        && !matches!(m.head.as_str(), "atom" | "red")
    {
        let sem = q.sem.as_ref().map_or("weak (no ordering given)".to_string(), |(_, _, t)| format!("`.{t}`"));
        return Err(err(
            span,
            ErrorKind::ForbiddenQualifiers,
            format!(
                "scope on a weak access: `{}` is {sem}, and weak or volatile accesses take no scope; add `.relaxed` (or `.acquire`/`.release`) or drop the scope",
                m.text()
            ),
        ));
    }
    if strong && scope_required && q.scope.is_none() {
        let (_, span, text) = q.sem.as_ref().expect("[tcfuzz internal bug] strong implies a sem");
        return Err(err(
            *span,
            ErrorKind::ForbiddenQualifiers,
            format!("`{}.{text}` needs a scope: add one of .cta .cluster .gpu .sys", m.head),
        ));
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// PTX instructions.

fn parse_ptx(toks: &[Token], end: Span) -> PResult<Instr> {
    let mut c = Cursor::new(toks, end);
    let (mut word, mut span) = c.word("an instruction")?;
    let mut blocking = false;
    if word == "await" {
        blocking = true;
        (word, span) = c.word("`mbarrier.try_wait` or `mbarrier.test_wait` after `await`")?;
    }
    let m = Mnemonic::split(&word, span);
    let rest = &toks[toks.len() - remaining(&c)..];
    let ops = Ops { ops: split_operands(rest), after: end, mnemonic: m.text() };
    if blocking && m.head != "mbarrier" {
        return Err(err(
            span,
            ErrorKind::BadOperand,
            format!("`await` applies to `mbarrier.try_wait` / `mbarrier.test_wait`, not `{}`", m.text()),
        ));
    }
    match m.head.as_str() {
        "ld" | "tld" | "suld" | "cold" => parse_load(&m, &ops),
        "st" | "sust" => parse_store(&m, &ops),
        "atom" => parse_atom(&m, &ops),
        "red" => parse_red(&m, &ops),
        "fence" | "membar" => parse_fence(&m, &ops),
        "bar" | "barrier" => parse_barrier(&m, &ops),
        "mbarrier" => parse_mbarrier(&m, &ops, blocking),
        "cp" => parse_cp_async_bulk(&m, &ops),
        "tcgen05" => crate::tcgen05::parse(&m.quals, m.span, &m.text(), &ops.ops, end),
        "mov" => {
            no_quals_but_type(&m)?;
            ops.count(&[2], "mov r, v")?;
            Ok(Instr::Mov { dst: ops.reg(0)?, src: ops.operand(1)?, dialect_ld: false })
        }
        "add" => {
            no_quals_but_type(&m)?;
            ops.count(&[3], "add r, a, b")?;
            Ok(Instr::Add { dst: ops.reg(0)?, a: ops.operand(1)?, b: ops.operand(2)? })
        }
        "beq" | "bne" => {
            no_quals(&m)?;
            ops.count(&[3], &format!("{} a, b, LABEL", m.head))?;
            let cond = if m.head == "beq" { BranchCond::Eq } else { BranchCond::Ne };
            Ok(Instr::Branch { cond, a: ops.operand(0)?, b: ops.operand(1)?, target: ops.reg(2).map_err(|_| ops.bad(2, "a label"))? })
        }
        "assume" => {
            let cmp = match m.quals.as_slice() {
                [(q, span)] => AssumeCmp::ALL.into_iter().find(|c| c.name() == q).ok_or_else(|| {
                    err(
                        *span,
                        ErrorKind::UnknownQualifier,
                        format!("unknown qualifier `.{q}` on `assume`; expected one of .eq .ne .lt .le .gt .ge"),
                    )
                })?,
                _ => {
                    return Err(err(
                        m.span,
                        ErrorKind::BadOperand,
                        format!("`{}` needs exactly one comparison: assume.eq, .ne, .lt, .le, .gt or .ge", m.text()),
                    ));
                }
            };
            ops.count(&[2], "assume.cmp a, b")?;
            Ok(Instr::Assume { cmp, a: ops.operand(0)?, b: ops.operand(1)? })
        }
        "goto" | "bra" => {
            no_quals(&m)?;
            ops.count(&[1], &format!("{} LABEL", m.head))?;
            Ok(Instr::Goto { target: ops.reg(0).map_err(|_| ops.bad(0, "a label"))? })
        }
        "make_token" | "join_tokens" => Err(err(
            span,
            ErrorKind::WrongThreadKind,
            format!("`{}` is a Tile IR instruction; it needs a tile-block thread (`P0@tlb 0, dev 0 {{ ... }}`)", m.head),
        )),
        other => Err(err(
            span,
            ErrorKind::UnknownInstruction,
            format!(
                "unknown instruction `{other}`; expected ld, st, atom, red, fence, membar, bar, barrier, mbarrier, cp.async.bulk, tcgen05.*, mov, add, beq, bne, goto, assume (or Dat3M's tld, suld, sust, cold)"
            ),
        )),
    }
}

fn remaining(c: &Cursor) -> usize {
    let mut n = 0;
    while c.peek_at(n).is_some() {
        n += 1;
    }
    n
}

fn no_quals(m: &Mnemonic) -> PResult<()> {
    match m.quals.first() {
        Some((q, span)) => Err(err(*span, ErrorKind::UnknownQualifier, format!("unknown qualifier `.{q}` on `{}`; it takes none", m.head))),
        None => Ok(()),
    }
}

fn no_quals_but_type(m: &Mnemonic) -> PResult<()> {
    collect(m, &[Class::Type]).map(|_| ())
}

fn proxy_of(head: &str) -> AccessProxy {
    match head {
        "tld" => AccessProxy::Texture,
        "suld" | "sust" => AccessProxy::Surface,
        "cold" => AccessProxy::Constant,
        _ => AccessProxy::Generic,
    }
}

fn parse_load(m: &Mnemonic, ops: &Ops) -> PResult<Instr> {
    ops.count(&[2], &format!("{} r, x", m.head))?;
    let proxy = proxy_of(&m.head);
    if proxy != AccessProxy::Generic {
        let q = collect(m, &[Class::Sem, Class::Type])?;
        check_sem(m, &q, &[Sem::Weak], "texture, surface and constant accesses are `.weak`", false)?;
        return Ok(Instr::Ld(Load {
            proxy,
            sem: q.sem.map(|s| s.0),
            scope: None,
            space: None,
            ty: q.ty,
            dst: ops.reg(0)?,
            addr: ops.addr(1)?,
        }));
    }
    let q = collect(m, &[Class::Sem, Class::Scope, Class::Space, Class::Type])?;
    // Dat3M writes a register move as `ld r0, 1`.
    if m.quals.is_empty() && ops.is_imm(1) {
        return Ok(Instr::Mov { dst: ops.reg(0)?, src: ops.operand(1)?, dialect_ld: true });
    }
    check_sem(
        m,
        &q,
        &[Sem::Weak, Sem::Volatile, Sem::Relaxed, Sem::Acquire],
        "a load is .weak, .volatile, .relaxed or .acquire (PTX ISA §9.7.9.8)",
        true,
    )?;
    Ok(Instr::Ld(Load {
        proxy,
        sem: q.sem.map(|s| s.0),
        scope: q.scope.map(|s| s.0),
        space: q.space,
        ty: q.ty,
        dst: ops.reg(0)?,
        addr: ops.addr(1)?,
    }))
}

fn parse_store(m: &Mnemonic, ops: &Ops) -> PResult<Instr> {
    ops.count(&[2], &format!("{} x, v", m.head))?;
    let proxy = proxy_of(&m.head);
    if proxy != AccessProxy::Generic {
        let q = collect(m, &[Class::Sem, Class::Type])?;
        check_sem(m, &q, &[Sem::Weak], "surface stores are `.weak`", false)?;
        return Ok(Instr::St(Store {
            proxy,
            sem: q.sem.map(|s| s.0),
            scope: None,
            space: None,
            ty: q.ty,
            addr: ops.addr(0)?,
            src: ops.operand(1)?,
        }));
    }
    let q = collect(m, &[Class::Sem, Class::Scope, Class::Space, Class::Type])?;
    check_sem(
        m,
        &q,
        &[Sem::Weak, Sem::Volatile, Sem::Relaxed, Sem::Release],
        "a store is .weak, .volatile, .relaxed or .release (PTX ISA §9.7.9.9)",
        true,
    )?;
    Ok(Instr::St(Store {
        proxy,
        sem: q.sem.map(|s| s.0),
        scope: q.scope.map(|s| s.0),
        space: q.space,
        ty: q.ty,
        addr: ops.addr(0)?,
        src: ops.operand(1)?,
    }))
}

fn parse_atom(m: &Mnemonic, ops: &Ops) -> PResult<Instr> {
    let q = collect(m, &[Class::Sem, Class::Scope, Class::Space, Class::Op, Class::Type])?;
    check_sem(
        m,
        &q,
        &[Sem::Relaxed, Sem::Acquire, Sem::Release, Sem::AcqRel],
        "an atomic is .relaxed, .acquire, .release or .acq_rel (PTX ISA §9.7.13.5)",
        false,
    )?;
    let Some((op, _)) = q.op else {
        return Err(err(m.span, ErrorKind::BadOperand, format!("`{}` needs an operation: one of {}", m.text(), class_names(Class::Op))));
    };
    let (dst, addr, a) = if op == AtomOp::Cas {
        ops.count(&[4], "atom.cas r, x, expected, new")?;
        (ops.reg(0)?, ops.addr(1)?, ops.operand(2)?)
    } else {
        ops.count(&[3], &format!("{} r, x, v", m.text()))?;
        (ops.reg(0)?, ops.addr(1)?, ops.operand(2)?)
    };
    let b = if op == AtomOp::Cas { Some(ops.operand(3)?) } else { None };
    Ok(Instr::Atom(Atomic { sem: q.sem.map(|s| s.0), scope: q.scope.map(|s| s.0), space: q.space, op, ty: q.ty, dst, addr, a, b }))
}

fn parse_red(m: &Mnemonic, ops: &Ops) -> PResult<Instr> {
    let q = collect(m, &[Class::Sem, Class::Scope, Class::Space, Class::Op, Class::Type])?;
    check_sem(
        m,
        &q,
        &[Sem::Relaxed, Sem::Release, Sem::Acquire, Sem::AcqRel],
        "a reduction is .relaxed or .release (PTX ISA §9.7.13.6; .acquire/.acq_rel are Dat3M dialect)",
        false,
    )?;
    let Some((op, op_span)) = q.op else {
        return Err(err(
            m.span,
            ErrorKind::BadOperand,
            format!("`{}` needs an operation: one of .add .sub .and .or .xor .min .max .inc .dec", m.text()),
        ));
    };
    if matches!(op, AtomOp::Exch | AtomOp::Cas) {
        return Err(err(op_span, ErrorKind::ForbiddenQualifiers, "`red` has no `.exch` or `.cas` (they return a value: use `atom`)"));
    }
    ops.count(&[2], &format!("{} x, v", m.text()))?;
    Ok(Instr::Red(Reduction {
        sem: q.sem.map(|s| s.0),
        scope: q.scope.map(|s| s.0),
        space: q.space,
        op,
        ty: q.ty,
        addr: ops.addr(0)?,
        a: ops.operand(1)?,
    }))
}

fn parse_fence(m: &Mnemonic, ops: &Ops) -> PResult<Instr> {
    ops.count(&[0], &m.text())?;
    let quals: Vec<&str> = m.quals.iter().map(|(q, _)| q.as_str()).collect();
    let first_span = m.quals.first().map_or(m.span, |q| q.1);
    if m.head == "membar" {
        let scope = match quals[..] {
            ["cta"] => Scope::Cta,
            ["gl"] => Scope::Gpu,
            ["sys"] => Scope::Sys,
            _ => {
                return Err(err(
                    first_span,
                    ErrorKind::UnknownQualifier,
                    format!("unknown form `{}`; expected membar.cta, membar.gl or membar.sys", m.text()),
                ));
            }
        };
        return Ok(Instr::Fence(Fence::Membar(scope)));
    }
    let fence = match quals[..] {
        ["sc", s] | ["acq_rel", s] => {
            let Some(scope) = scope_of(s) else {
                return Err(err(
                    m.quals[1].1,
                    ErrorKind::UnknownQualifier,
                    format!("unknown scope `.{s}` on `fence`; expected .cta .cluster .gpu .sys"),
                ));
            };
            if quals[0] == "sc" { Fence::Sc(scope) } else { Fence::AcqRel(scope) }
        }
        ["sc"] | ["acq_rel"] => {
            return Err(err(
                first_span,
                ErrorKind::ForbiddenQualifiers,
                format!("`{}` needs a scope: add one of .cta .cluster .gpu .sys", m.text()),
            ));
        }
        ["proxy", "alias"] => Fence::Proxy(AliasProxy::Generic),
        ["proxy", "texture"] => Fence::Proxy(AliasProxy::Texture),
        ["proxy", "surface"] => Fence::Proxy(AliasProxy::Surface),
        ["proxy", "constant"] => Fence::Proxy(AliasProxy::Constant),
        ["proxy", "async"] => Fence::ProxyAsync(None),
        ["proxy", "async", "global"] => Fence::ProxyAsync(Some(StateSpace::Global)),
        ["proxy", "async", "shared::cta"] => Fence::ProxyAsync(Some(StateSpace::SharedCta)),
        ["proxy", "async", "shared::cluster"] => Fence::ProxyAsync(Some(StateSpace::SharedCluster)),
        ["release" | "acquire" | "relaxed" | "weak", ..] => {
            return Err(err(
                first_span,
                ErrorKind::ForbiddenQualifiers,
                format!("`{}` is not a fence: a fence is .sc or .acq_rel (PTX ISA §9.7.13.4)", m.text()),
            ));
        }
        _ => {
            return Err(err(
                first_span,
                ErrorKind::UnknownQualifier,
                format!(
                    "unknown fence `{}`; expected fence.sc.SCOPE, fence.acq_rel.SCOPE, fence.proxy.alias, fence.proxy.async{{.global|.shared::cta|.shared::cluster}}, fence.proxy.texture|surface|constant",
                    m.text()
                ),
            ));
        }
    };
    Ok(Instr::Fence(fence))
}

fn parse_barrier(m: &Mnemonic, ops: &Ops) -> PResult<Instr> {
    let long = m.head == "barrier";
    let quals: Vec<&str> = m.quals.iter().map(|(q, _)| q.as_str()).collect();
    let first_span = m.quals.first().map_or(m.span, |q| q.1);
    if quals.first() == Some(&"cluster") {
        if !long {
            return Err(err(
                first_span,
                ErrorKind::UnknownQualifier,
                "the cluster barrier is spelled `barrier.cluster.arrive` / `barrier.cluster.wait`",
            ));
        }
        ops.count(&[0], &m.text())?;
        let aligned = quals.last() == Some(&"aligned");
        let core = &quals[1..quals.len() - aligned as usize];
        return match core {
            ["arrive"] => Ok(Instr::Barrier(Barrier::ClusterArrive { sem: None, aligned })),
            ["arrive", "release"] => Ok(Instr::Barrier(Barrier::ClusterArrive { sem: Some(Sem::Release), aligned })),
            ["arrive", "relaxed"] => Ok(Instr::Barrier(Barrier::ClusterArrive { sem: Some(Sem::Relaxed), aligned })),
            ["wait"] => Ok(Instr::Barrier(Barrier::ClusterWait { acquire: false, aligned })),
            ["wait", "acquire"] => Ok(Instr::Barrier(Barrier::ClusterWait { acquire: true, aligned })),
            _ => Err(err(
                first_span,
                ErrorKind::UnknownQualifier,
                format!(
                    "unknown form `{}`; expected barrier.cluster.arrive{{.release|.relaxed}}{{.aligned}} or barrier.cluster.wait{{.acquire}}{{.aligned}}",
                    m.text()
                ),
            )),
        };
    }
    let mut rest = &quals[..];
    let cta = rest.first() == Some(&"cta");
    if cta {
        rest = &rest[1..];
    }
    let aligned = long && rest.last() == Some(&"aligned");
    if aligned {
        rest = &rest[..rest.len() - 1];
    }
    let form = BarForm { long, cta, aligned };
    let operands = || -> PResult<Vec<Operand>> { (0..ops.ops.len()).map(|i| ops.operand(i)).collect() };
    match rest {
        ["sync"] => {
            ops.count(if cta && !long { &[1, 2, 3] } else { &[1, 2] }, &format!("{} a{{, b}}", m.text()))?;
            Ok(Instr::Barrier(Barrier::Sync { form, operands: operands()? }))
        }
        ["arrive"] => {
            ops.count(&[1, 2], &format!("{} a, b", m.text()))?;
            Ok(Instr::Barrier(Barrier::Arrive { form, operands: operands()? }))
        }
        _ => Err(err(
            first_span,
            ErrorKind::UnknownQualifier,
            format!(
                "unknown barrier `{}`; expected bar{{.cta}}.sync, bar{{.cta}}.arrive, barrier{{.cta}}.sync{{.aligned}}, barrier{{.cta}}.arrive{{.aligned}}, barrier.cluster.arrive, barrier.cluster.wait",
                m.text()
            ),
        )),
    }
}

/// `.b64`, which the ISA requires on mbarrier operations, is accepted but not stored: it is the
/// only type they have, and the printer always writes it.
fn strip_b64(m: &Mnemonic) -> Mnemonic {
    Mnemonic { head: m.head.clone(), quals: m.quals.iter().filter(|(q, _)| q != "b64").cloned().collect(), span: m.span }
}

fn parse_mbarrier(m: &Mnemonic, ops: &Ops, blocking: bool) -> PResult<Instr> {
    let Some((op, op_span)) = m.quals.first().cloned() else {
        return Err(err(
            m.span,
            ErrorKind::UnknownInstruction,
            "`mbarrier` needs an operation: init, arrive, arrive.expect_tx, expect_tx, try_wait, test_wait",
        ));
    };
    let mut sub = strip_b64(&Mnemonic { head: format!("mbarrier.{op}"), quals: m.quals[1..].to_vec(), span: m.span });
    if blocking && op != "try_wait" && op != "test_wait" {
        return Err(err(
            op_span,
            ErrorKind::BadOperand,
            format!("`await` applies to `mbarrier.try_wait` / `mbarrier.test_wait`, not `mbarrier.{op}`"),
        ));
    }
    let cta_spaces = |q: &Quals, span: Span, allow_cluster: bool| -> PResult<()> {
        match q.space {
            Some(StateSpace::Global) => Err(err(
                span,
                ErrorKind::ForbiddenQualifiers,
                format!("an mbarrier lives in shared memory: `.global` is not allowed on `{}`", m.text()),
            )),
            Some(StateSpace::SharedCluster) if !allow_cluster => Err(err(
                span,
                ErrorKind::ForbiddenQualifiers,
                format!("`.shared::cluster` is not allowed on `{}`: use .shared or .shared::cta", sub_name(m)),
            )),
            _ => Ok(()),
        }
    };
    let scope_cta_cluster = |q: &Quals| -> PResult<()> {
        match q.scope {
            Some((Scope::Gpu | Scope::Sys, span)) => Err(err(
                span,
                ErrorKind::ForbiddenQualifiers,
                format!("mbarrier operations take scope .cta or .cluster, not `{}`", m.text()),
            )),
            _ => Ok(()),
        }
    };
    match op.as_str() {
        "init" => {
            let q = collect(&sub, &[Class::Space])?;
            cta_spaces(&q, op_span, false)?;
            ops.count(&[2], "mbarrier.init.shared::cta.b64 [bar], count")?;
            Ok(Instr::Mbarrier(Mbarrier::Init { space: q.space, addr: ops.addr(0)?, count: ops.operand(1)? }))
        }
        "arrive" => {
            let expect_tx = sub.quals.first().is_some_and(|(q, _)| q == "expect_tx");
            if expect_tx {
                sub.quals.remove(0);
            }
            let q = collect(&sub, &[Class::Sem, Class::Scope, Class::Space])?;
            check_plain_sem(&sub, &q, &[Sem::Release, Sem::Relaxed], "an mbarrier arrive is .release or .relaxed (PTX ISA §9.7.13.15.13)")?;
            scope_cta_cluster(&q)?;
            cta_spaces(&q, op_span, true)?;
            let (state, addr, count) = if expect_tx {
                ops.count(&[3], "mbarrier.arrive.expect_tx.shared::cta.b64 state, [bar], txbytes")?;
                (ops.reg(0)?, ops.addr(1)?, Some(ops.operand(2)?))
            } else {
                ops.count(&[2, 3], "mbarrier.arrive.shared::cta.b64 state, [bar]{, count}")?;
                (ops.reg(0)?, ops.addr(1)?, if ops.ops.len() == 3 { Some(ops.operand(2)?) } else { None })
            };
            Ok(Instr::Mbarrier(Mbarrier::Arrive(MbarrierArrive {
                expect_tx,
                sem: q.sem.map(|s| s.0),
                scope: q.scope.map(|s| s.0),
                space: q.space,
                state,
                addr,
                count,
            })))
        }
        "expect_tx" => {
            let q = collect(&sub, &[Class::Sem, Class::Scope, Class::Space])?;
            check_plain_sem(&sub, &q, &[Sem::Relaxed], "mbarrier.expect_tx is .relaxed (PTX ISA §9.7.13.15.11)")?;
            scope_cta_cluster(&q)?;
            cta_spaces(&q, op_span, true)?;
            ops.count(&[2], "mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [bar], txbytes")?;
            Ok(Instr::Mbarrier(Mbarrier::ExpectTx {
                sem: q.sem.map(|s| s.0),
                scope: q.scope.map(|s| s.0),
                space: q.space,
                addr: ops.addr(0)?,
                tx: ops.operand(1)?,
            }))
        }
        "try_wait" | "test_wait" => {
            let parity = sub.quals.first().is_some_and(|(q, _)| q == "parity");
            if parity {
                sub.quals.remove(0);
            }
            let q = collect(&sub, &[Class::Sem, Class::Scope, Class::Space])?;
            check_plain_sem(&sub, &q, &[Sem::Acquire, Sem::Relaxed], "an mbarrier wait is .acquire or .relaxed (PTX ISA §9.7.13.15.16)")?;
            scope_cta_cluster(&q)?;
            cta_spaces(&q, op_span, false)?;
            ops.count(
                &[3],
                &format!(
                    "mbarrier.{op}{}.shared::cta.b64 p, [bar], {}",
                    if parity { ".parity" } else { "" },
                    if parity { "parity" } else { "state" }
                ),
            )?;
            Ok(Instr::Mbarrier(Mbarrier::Wait(MbarrierWait {
                blocking,
                test: op == "test_wait",
                parity,
                sem: q.sem.map(|s| s.0),
                scope: q.scope.map(|s| s.0),
                space: q.space,
                dst: ops.reg(0)?,
                addr: ops.addr(1)?,
                phase: ops.operand(2)?,
            })))
        }
        other => Err(err(
            op_span,
            ErrorKind::UnknownInstruction,
            format!("unknown mbarrier operation `{other}`; expected init, arrive, arrive.expect_tx, expect_tx, try_wait, test_wait"),
        )),
    }
}

fn sub_name(m: &Mnemonic) -> String {
    m.text()
}

/// Like `check_sem` for instructions where a scope without an ordering is allowed (mbarrier).
fn check_plain_sem(m: &Mnemonic, q: &Quals, allowed: &[Sem], what: &str) -> PResult<()> {
    if let Some((sem, span, text)) = &q.sem
        && !allowed.contains(sem)
    {
        return Err(err(*span, ErrorKind::ForbiddenQualifiers, format!("`{}.{text}` is not allowed: {what}", m.head)));
    }
    Ok(())
}

fn parse_cp_async_bulk(m: &Mnemonic, ops: &Ops) -> PResult<Instr> {
    let quals: Vec<&str> = m.quals.iter().map(|(q, _)| q.as_str()).collect();
    let first_span = m.quals.first().map_or(m.span, |q| q.1);
    let dst_space = match quals[..] {
        ["async", "bulk", "shared::cluster", "global", "mbarrier::complete_tx::bytes"] => StateSpace::SharedCluster,
        ["async", "bulk", "shared::cta", "global", "mbarrier::complete_tx::bytes"] => StateSpace::SharedCta,
        _ => {
            return Err(err(
                first_span,
                ErrorKind::UnknownQualifier,
                format!(
                    "unsupported copy `{}`; expected cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes (or .shared::cta destination)",
                    m.text()
                ),
            ));
        }
    };
    ops.count(&[4], "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [dst], [src], size, [bar]")?;
    Ok(Instr::CpAsyncBulk(CpAsyncBulk { dst_space, dst: ops.addr(0)?, src: ops.addr(1)?, size: ops.operand(2)?, mbar: ops.addr(3)? }))
}

// ---------------------------------------------------------------------------------------------
// Operand helpers shared with the tcgen05 and Tile IR parsers.

pub(crate) struct OpView<'a> {
    inner: Ops<'a>,
}

impl<'a> OpView<'a> {
    pub fn new(ops: &[&'a [Token]], after: Span, mnemonic: &str) -> Self {
        OpView { inner: Ops { ops: ops.to_vec(), after, mnemonic: mnemonic.to_string() } }
    }
    pub fn count(&self, allowed: &[usize], form: &str) -> PResult<()> {
        self.inner.count(allowed, form)
    }
    pub fn reg(&self, i: usize) -> PResult<Reg> {
        self.inner.reg(i)
    }
    pub fn operand(&self, i: usize) -> PResult<Operand> {
        self.inner.operand(i)
    }
    pub fn imm(&self, i: usize) -> PResult<i64> {
        self.inner.imm(i)
    }
    pub fn addr(&self, i: usize) -> PResult<Addr> {
        self.inner.addr(i)
    }
    pub fn bad(&self, i: usize, what: &str) -> Diagnostic {
        self.inner.bad(i, what)
    }
}

fn parse_tile(toks: &[Token], end: Span) -> PResult<Instr> {
    crate::tile::parse(toks, end)
}
