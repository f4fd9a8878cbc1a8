//! Reading NVIDIA's PTX lowering of a Tile IR program back as a litmus program (DESIGN §4
//! `compiler-lowering`).
//!
//! `tileiras` lowers each tile operation SIMT-style: a tile block is a CTA of `.reqntid` threads,
//! each element is handled by some thread (loads often by every thread), consecutive token-ordered
//! operations are separated by `bar.sync` / `bar.warp.sync`, and values travel between threads
//! through shared memory. So the lifter *runs* each entry symbolically, one thread per hardware
//! thread, barrier phase by barrier phase: registers hold constants (thread ids, the `cst_N`
//! tables it reads), addresses (a kernel parameter or a shared variable plus an offset) or the
//! value some load returned. Control flow may depend on the thread id, never on a loaded value.
//!
//! What becomes the litmus program:
//! - every access to a location parameter (`ld`, `st`, `atom`, `red`, with their semantics and
//!   scopes; `ld.global.nc` of a location as a weak load), every fence, every access to shared
//!   memory (the compiler's own data movement, as weak accesses of `.shared` locations of the
//!   tile block's CTA), and the barriers (`bar.sync` as a CTA barrier, `bar.warp.sync` as a barrier
//!   of the threads of one warp — PTX ISA §9.7.13.1/§9.7.13.2: both order the memory accesses of
//!   their participants);
//! - only for the threads that matter: a thread is kept when it writes a location, or when a value
//!   it loads reaches the `out` parameter (the Tile IR registers) or a kept write, directly or
//!   through shared memory. A dropped thread only reads, and nothing reads what it read: dropping
//!   its reads removes no ordering from anyone else.
//! - Stores to `out` are observation, not part of the program: they name which lifted register
//!   holds which element of which Tile IR register ([`Lifted::names`]).
//!
//! Tile block `P0@tlb k, dev d`'s hardware thread `t` is the litmus thread `P0t<t>@cta k, gpu d,
//! warp t/32`; location `x`'s element `i` is `x_i` (as in `checker/src/differential/lower.rs`).

use std::collections::{BTreeMap, BTreeSet, HashMap};

use tcfuzz_litmus::*;
use thiserror::Error;

use super::Module;

#[derive(Debug, Error, PartialEq, Eq)]
pub enum LiftError {
    #[error("cannot lift the PTX of `{entry}`: {message}")]
    Unsupported { entry: String, message: String },
}

/// The lifted program and how to read its final states in the Tile IR program's names.
pub struct Lifted {
    pub program: Program,
    /// Tile IR state name (`P1:rx[0]`, `x[1]`) → lifted name (`P1t0:rx_0`, `x_1`).
    pub names: BTreeMap<String, String>,
}

// ---------------------------------------------------------------------------------------------
// PTX text.

struct Entry {
    name: String,
    ntid: u32,
    stmts: Vec<Stmt>,
    labels: HashMap<String, usize>,
}

#[derive(Clone, Debug)]
struct Stmt {
    guard: Option<(bool, String)>,
    op: String,
    quals: Vec<String>,
    args: Vec<String>,
    text: String,
}

/// Module-level `.global` arrays with initialisers (the compiler's constant tables).
fn globals(ptx: &str) -> HashMap<String, Vec<u8>> {
    let mut out = HashMap::new();
    for line in ptx.lines() {
        let l = line.trim();
        if !l.contains(".global") || !l.contains('=') {
            continue;
        }
        let Some(eq) = l.find('=') else { continue };
        let decl = &l[..eq];
        let Some(name) = decl.split_whitespace().last().and_then(|w| w.split('[').next()) else { continue };
        let elem = if decl.contains(".b64") || decl.contains(".u64") {
            8
        } else if decl.contains(".b32") || decl.contains(".u32") || decl.contains(".s32") {
            4
        } else if decl.contains(".b16") {
            2
        } else {
            1
        };
        let init = l[eq + 1..].trim().trim_end_matches(';').trim().trim_start_matches('{').trim_end_matches('}');
        let mut bytes = Vec::new();
        for v in init.split(',') {
            let v = parse_int(v.trim()).unwrap_or(0);
            bytes.extend_from_slice(&v.to_le_bytes()[..elem]);
        }
        // An initialiser shorter than the array leaves the rest zero.
        let declared = decl.split('[').nth(1).and_then(|n| n.split(']').next()).and_then(|n| n.trim().parse::<usize>().ok());
        if let Some(n) = declared {
            bytes.resize(bytes.len().max(n * elem), 0);
        }
        out.insert(name.to_string(), bytes);
    }
    out
}

fn parse_int(s: &str) -> Option<i64> {
    let (neg, s) = match s.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, s),
    };
    let v = if let Some(h) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        u64::from_str_radix(h.trim_end_matches('U'), 16).ok()? as i64
    } else {
        s.trim_end_matches('U').parse::<i64>().ok()?
    };
    Some(if neg { -v } else { v })
}

/// Splits operands at top-level commas (not inside `{...}` or `[...]`).
fn split_args(s: &str) -> Vec<String> {
    let (mut out, mut depth, mut cur) = (Vec::new(), 0i32, String::new());
    for c in s.chars() {
        match c {
            '{' | '[' => depth += 1,
            '}' | ']' => depth -= 1,
            ',' if depth == 0 => {
                out.push(cur.trim().to_string());
                cur.clear();
                continue;
            }
            _ => {}
        }
        cur.push(c);
    }
    if !cur.trim().is_empty() {
        out.push(cur.trim().to_string());
    }
    out
}

fn entries(ptx: &str) -> Vec<Entry> {
    let clean: String = ptx.lines().map(|l| l.split("//").next().unwrap_or("")).collect::<Vec<_>>().join("\n");
    let mut out = Vec::new();
    let mut rest = clean.as_str();
    while let Some(at) = rest.find(".entry ") {
        let after = &rest[at + 7..];
        let name = after.split(|c: char| c == '(' || c.is_whitespace()).next().unwrap_or("").to_string();
        let Some(open) = after.find('{') else { break };
        let header = &after[..open];
        let ntid =
            header.split(".reqntid").nth(1).and_then(|s| s.split([',', '\n']).next()).and_then(|s| s.trim().parse().ok()).unwrap_or(128);
        // The body ends at the brace that closes the first one (vector operands nest braces).
        let (mut depth, mut end) = (0i32, after.len());
        for (i, c) in after[open..].char_indices() {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = open + i;
                        break;
                    }
                }
                _ => {}
            }
        }
        let body = &after[open + 1..end];
        let (mut stmts, mut labels) = (Vec::new(), HashMap::new());
        for piece in body.split(';') {
            let mut piece = piece.trim();
            // Labels end with `:` and may precede a statement.
            while let Some(colon) = piece.find(':') {
                let head = piece[..colon].trim();
                let double = piece[colon + 1..].starts_with(':') || piece[..colon].ends_with(':');
                if !double && !head.is_empty() && head.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$') {
                    labels.insert(head.to_string(), stmts.len());
                    piece = piece[colon + 1..].trim();
                } else {
                    break;
                }
            }
            if piece.is_empty() || piece.starts_with('.') {
                continue;
            }
            let (guard, piece) = match piece.strip_prefix('@') {
                Some(g) => {
                    let (p, rest) = g.split_once(char::is_whitespace).unwrap_or((g, ""));
                    let (neg, p) = match p.strip_prefix('!') {
                        Some(p) => (true, p),
                        None => (false, p),
                    };
                    (Some((neg, p.to_string())), rest.trim())
                }
                None => (None, piece),
            };
            let (mnemonic, args) = piece.split_once(char::is_whitespace).unwrap_or((piece, ""));
            let mut parts = mnemonic.split('.');
            let op = parts.next().unwrap_or("").to_string();
            let quals = parts.map(str::to_string).collect();
            stmts.push(Stmt { guard, op, quals, args: split_args(args), text: piece.split_whitespace().collect::<Vec<_>>().join(" ") });
        }
        out.push(Entry { name, ntid, stmts, labels });
        rest = &after[end..];
    }
    out
}

// ---------------------------------------------------------------------------------------------
// Symbolic execution.

#[derive(Clone, Debug, PartialEq, Eq)]
enum Base {
    Param(usize),
    Global(String),
    Shared(String),
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Sym {
    Int(i64),
    Addr(Base, i64),
    /// The value event `n` read.
    Loaded(usize),
    Pred(bool),
}

#[derive(Clone, Debug)]
enum Kind {
    Load,
    Store(Sym),
    Atom(AtomOp, Vec<Sym>),
    Red(AtomOp, Sym),
}

#[derive(Clone, Debug)]
enum Where {
    Location(usize, usize),
    Shared(String, i64),
}

#[derive(Clone, Debug)]
enum Ev {
    Mem {
        id: usize,
        kind: Kind,
        at: Where,
        sem: Option<Sem>,
        scope: Option<Scope>,
    },
    Fence(Fence),
    /// `None`: CTA barrier; `Some(w)`: warp `w`'s barrier.
    Barrier(Option<u32>),
}

struct Sim<'a> {
    entry: &'a Entry,
    consts: &'a HashMap<String, Vec<u8>>,
    nlocs: usize,
    loc_len: &'a [usize],
    next_id: usize,
    /// Shared memory: (variable, offset) → (value, the store event that wrote it).
    shared: HashMap<(String, i64), (Sym, usize)>,
    /// Shared load event → the shared store event it read.
    shared_rf: HashMap<usize, usize>,
    /// `out` word → the value stored there.
    out: BTreeMap<i64, Sym>,
}

struct Thread {
    regs: HashMap<String, Sym>,
    pc: usize,
    done: bool,
    events: Vec<Ev>,
    steps: u32,
}

const MAX_STEPS: u32 = 100_000;

impl Sim<'_> {
    fn err(&self, message: impl Into<String>) -> LiftError {
        LiftError::Unsupported { entry: self.entry.name.clone(), message: message.into() }
    }

    fn value(&self, th: &Thread, tid: u32, a: &str) -> Result<Sym, LiftError> {
        let a = a.trim();
        if let Some(v) = parse_int(a) {
            return Ok(Sym::Int(v));
        }
        match a {
            "%tid.x" => return Ok(Sym::Int(i64::from(tid))),
            "%tid.y" | "%tid.z" | "%ctaid.y" | "%ctaid.z" | "%ctaid.x" => return Ok(Sym::Int(0)),
            "%ntid.x" => return Ok(Sym::Int(i64::from(self.entry.ntid))),
            "%laneid" => return Ok(Sym::Int(i64::from(tid % 32))),
            "%warpid" => return Ok(Sym::Int(i64::from(tid / 32))),
            _ => {}
        }
        if let Some(v) = th.regs.get(a) {
            return Ok(v.clone());
        }
        if a.starts_with('%') {
            return Err(self.err(format!("register `{a}` is read before it is written")));
        }
        if self.consts.contains_key(a) {
            return Ok(Sym::Addr(Base::Global(a.to_string()), 0));
        }
        if let Some(i) = a.strip_prefix(&format!("{}_param_", self.entry.name)).and_then(|n| n.parse::<usize>().ok()) {
            return Ok(Sym::Addr(Base::Param(i), 0));
        }
        // Any other symbol: a shared variable of the entry.
        Ok(Sym::Addr(Base::Shared(a.to_string()), 0))
    }

    fn int(&self, th: &Thread, tid: u32, a: &str, what: &str) -> Result<i64, LiftError> {
        match self.value(th, tid, a)? {
            Sym::Int(v) => Ok(v),
            Sym::Pred(b) => Ok(i64::from(b)),
            other => Err(self.err(format!("{what}: `{a}` is {other:?}, not a constant (control flow or arithmetic on a loaded value)"))),
        }
    }

    /// `[reg+off]` / `[sym]`.
    fn address(&self, th: &Thread, tid: u32, a: &str) -> Result<(Base, i64), LiftError> {
        let inner = a.trim().trim_start_matches('[').trim_end_matches(']');
        let (base, off) = match inner.rsplit_once('+') {
            Some((b, o)) => (b.trim(), parse_int(o.trim()).unwrap_or(0)),
            None => (inner.trim(), 0),
        };
        match self.value(th, tid, base)? {
            Sym::Addr(b, o) => Ok((b, o + off)),
            other => Err(self.err(format!("address `{a}` is {other:?}"))),
        }
    }

    fn set(th: &mut Thread, dst: &str, v: Sym) {
        th.regs.insert(dst.trim().to_string(), v);
    }

    fn place(&self, base: &Base, off: i64, stmt: &Stmt) -> Result<Option<Where>, LiftError> {
        match base {
            Base::Param(i) if *i < self.nlocs => {
                if off % 4 != 0 || off < 0 || (off / 4) as usize >= self.loc_len[*i] {
                    return Err(self.err(format!("`{}` reaches byte {off} of location {i}", stmt.text)));
                }
                Ok(Some(Where::Location(*i, (off / 4) as usize)))
            }
            Base::Param(_) => Ok(None),
            Base::Shared(s) => Ok(Some(Where::Shared(s.clone(), off))),
            Base::Global(g) => {
                Err(self.err(format!("`{}` accesses the compiler's constant `{g}` in a way the lifter does not read", stmt.text)))
            }
        }
    }

    fn sem_scope(quals: &[String]) -> (Option<Sem>, Option<Scope>) {
        let mut sem = None;
        let mut scope = None;
        for q in quals {
            match q.as_str() {
                "weak" => sem = Some(Sem::Weak),
                "volatile" => sem = Some(Sem::Volatile),
                "relaxed" => sem = Some(Sem::Relaxed),
                "acquire" => sem = Some(Sem::Acquire),
                "release" => sem = Some(Sem::Release),
                "acq_rel" => sem = Some(Sem::AcqRel),
                "cta" => scope = Some(Scope::Cta),
                "cluster" => scope = Some(Scope::Cluster),
                "gpu" => scope = Some(Scope::Gpu),
                "sys" => scope = Some(Scope::Sys),
                _ => {}
            }
        }
        (sem, scope)
    }

    fn fresh(&mut self) -> usize {
        self.next_id += 1;
        self.next_id - 1
    }

    /// Runs thread `tid` until its next barrier (returned, and executed) or its end.
    fn run(&mut self, th: &mut Thread, tid: u32) -> Result<(), LiftError> {
        let entry = self.entry;
        while th.pc < entry.stmts.len() {
            th.steps += 1;
            if th.steps > MAX_STEPS {
                return Err(self.err("a thread runs more than 100000 instructions (a loop on something the lifter cannot see)"));
            }
            let s = &entry.stmts[th.pc];
            th.pc += 1;
            if let Some((neg, p)) = &s.guard {
                let v = self.int(th, tid, p, "a guard")? != 0;
                if v == *neg {
                    continue;
                }
            }
            let q = |name: &str| s.quals.iter().any(|x| x == name);
            let a = &s.args;
            match s.op.as_str() {
                "ret" | "exit" => {
                    th.done = true;
                    return Ok(());
                }
                "bra" => {
                    let target = a.first().map(String::as_str).unwrap_or("");
                    th.pc = *entry.labels.get(target).ok_or_else(|| self.err(format!("no label `{target}`")))?;
                }
                "bar" | "barrier" if q("warp") => {
                    th.events.push(Ev::Barrier(Some(tid / 32)));
                    return Ok(());
                }
                "bar" | "barrier" if q("sync") => {
                    if a.len() > 1 {
                        return Err(self.err(format!("`{}`: a barrier with a thread count", s.text)));
                    }
                    th.events.push(Ev::Barrier(None));
                    return Ok(());
                }
                "fence" | "membar" => {
                    let f = match (s.op.as_str(), s.quals.first().map(String::as_str)) {
                        ("membar", Some("cta")) => Fence::Membar(Scope::Cta),
                        ("membar", Some("gl")) => Fence::Membar(Scope::Gpu),
                        ("membar", Some("sys")) => Fence::Membar(Scope::Sys),
                        ("fence", Some("sc" | "acq_rel")) => {
                            let (_, scope) = Self::sem_scope(&s.quals);
                            let scope = scope.unwrap_or(Scope::Gpu);
                            if q("sc") { Fence::Sc(scope) } else { Fence::AcqRel(scope) }
                        }
                        ("fence", Some("proxy")) if q("async") => Fence::ProxyAsync(None),
                        _ => return Err(self.err(format!("unknown fence `{}`", s.text))),
                    };
                    th.events.push(Ev::Fence(f));
                }
                "mov" | "cvt" | "cvta" => {
                    let v = self.value(th, tid, &a[1])?;
                    let v = match (v, s.quals.first().map(String::as_str)) {
                        (Sym::Int(x), Some("u32" | "b32")) if s.op == "mov" => Sym::Int(x & 0xffff_ffff),
                        (v, _) => v,
                    };
                    Self::set(th, &a[0], v);
                }
                "ld" | "st" | "atom" | "red" => self.memory(th, tid, s)?,
                "setp" => {
                    let (x, y) = (self.int(th, tid, &a[1], "setp")?, self.int(th, tid, &a[2], "setp")?);
                    let unsigned = |v: i64| v as u64;
                    let r = match s.quals.first().map(String::as_str) {
                        Some("eq") => x == y,
                        Some("ne") => x != y,
                        Some("lt") => x < y,
                        Some("le") => x <= y,
                        Some("gt") => x > y,
                        Some("ge") => x >= y,
                        Some("lo") => unsigned(x) < unsigned(y),
                        Some("ls") => unsigned(x) <= unsigned(y),
                        Some("hi") => unsigned(x) > unsigned(y),
                        Some("hs") => unsigned(x) >= unsigned(y),
                        _ => return Err(self.err(format!("unknown comparison `{}`", s.text))),
                    };
                    let r = match (s.quals.get(1).map(String::as_str), a.get(3)) {
                        (Some("and"), Some(c)) => r && self.int(th, tid, c, "setp")? != 0,
                        (Some("or"), Some(c)) => r || self.int(th, tid, c, "setp")? != 0,
                        (Some("xor"), Some(c)) => r ^ (self.int(th, tid, c, "setp")? != 0),
                        _ => r,
                    };
                    let dst = a[0].split('|').next().unwrap_or("");
                    Self::set(th, dst, Sym::Pred(r));
                }
                "selp" => {
                    let c = self.int(th, tid, &a[3], "selp")? != 0;
                    let v = self.value(th, tid, if c { &a[1] } else { &a[2] })?;
                    Self::set(th, &a[0], v);
                }
                "add" | "sub" | "mul" | "mad" | "and" | "or" | "xor" | "shl" | "shr" | "div" | "rem" | "min" | "max" => {
                    let x = self.value(th, tid, &a[1])?;
                    let y = self.value(th, tid, &a[2])?;
                    let v = match (s.op.as_str(), x, y) {
                        ("add", Sym::Addr(b, o), Sym::Int(k)) | ("add", Sym::Int(k), Sym::Addr(b, o)) => Sym::Addr(b, o + k),
                        ("sub", Sym::Addr(b, o), Sym::Int(k)) => Sym::Addr(b, o - k),
                        (op, Sym::Int(x), Sym::Int(y)) => Sym::Int(match op {
                            "add" => x.wrapping_add(y),
                            "sub" => x.wrapping_sub(y),
                            "mul" => x.wrapping_mul(y),
                            "mad" => x.wrapping_mul(y).wrapping_add(self.int(th, tid, &a[3], "mad")?),
                            "and" => x & y,
                            "or" => x | y,
                            "xor" => x ^ y,
                            "shl" => x.wrapping_shl(y as u32),
                            "shr" => x.wrapping_shr(y as u32),
                            "div" if y != 0 => x / y,
                            "rem" if y != 0 => x % y,
                            "min" => x.min(y),
                            "max" => x.max(y),
                            _ => return Err(self.err(format!("`{}` divides by zero", s.text))),
                        }),
                        (_, x, y) => return Err(self.err(format!("`{}` computes on {x:?} and {y:?}", s.text))),
                    };
                    let v = match (v, s.quals.iter().any(|q| q.ends_with("32")) && !q("wide")) {
                        (Sym::Int(x), true) => Sym::Int(i64::from(x as i32)),
                        (v, _) => v,
                    };
                    Self::set(th, &a[0], v);
                }
                "not" | "neg" => {
                    let x = self.int(th, tid, &a[1], &s.op)?;
                    Self::set(th, &a[0], Sym::Int(if s.op == "not" { !x } else { -x }));
                }
                _ => return Err(self.err(format!("unknown instruction `{}`", s.text))),
            }
        }
        th.done = true;
        Ok(())
    }

    fn atom_op(&self, quals: &[String], text: &str) -> Result<AtomOp, LiftError> {
        for q in quals {
            let op = match q.as_str() {
                "add" => AtomOp::Add,
                "exch" => AtomOp::Exch,
                "cas" => AtomOp::Cas,
                "and" => AtomOp::And,
                "or" => AtomOp::Or,
                "xor" => AtomOp::Xor,
                "min" if quals.iter().any(|q| q == "s32" || q == "s64") => AtomOp::Min,
                "max" if quals.iter().any(|q| q == "s32" || q == "s64") => AtomOp::Max,
                "inc" => AtomOp::Inc,
                "dec" => AtomOp::Dec,
                "min" | "max" => return Err(self.err(format!("`{text}`: an unsigned min/max (the litmus language's are signed)"))),
                _ => continue,
            };
            return Ok(op);
        }
        Err(self.err(format!("`{text}`: no atomic operation")))
    }

    fn memory(&mut self, th: &mut Thread, tid: u32, s: &Stmt) -> Result<(), LiftError> {
        let q = |name: &str| s.quals.iter().any(|x| x == name);
        if q("param") {
            let (b, o) = self.address(th, tid, &s.args[1])?;
            Self::set(th, &s.args[0], Sym::Addr(b, o));
            return Ok(());
        }
        if q("b64") || q("u64") || q("s64") {
            return Err(self.err(format!("`{}`: a 64-bit access", s.text)));
        }
        let (sem, scope) = Self::sem_scope(&s.quals);
        let vector = s.quals.iter().find_map(|x| x.strip_prefix('v').and_then(|n| n.parse::<i64>().ok())).unwrap_or(1);
        match s.op.as_str() {
            "ld" => {
                let (base, off) = self.address(th, tid, &s.args[1])?;
                let dsts: Vec<String> = s.args[0].trim_matches(|c| c == '{' || c == '}').split(',').map(|r| r.trim().to_string()).collect();
                if dsts.len() as i64 != vector {
                    return Err(self.err(format!("`{}`: vector width", s.text)));
                }
                for (k, dst) in dsts.iter().enumerate() {
                    let o = off + 4 * k as i64;
                    if let Base::Global(g) = &base {
                        let bytes = &self.consts[g];
                        let at = o as usize;
                        let v = bytes.get(at..at + 4).map_or(0, |b| i32::from_le_bytes([b[0], b[1], b[2], b[3]]));
                        Self::set(th, dst, Sym::Int(i64::from(v)));
                        continue;
                    }
                    let Some(at) = self.place(&base, o, s)? else {
                        return Err(self.err(format!("`{}` reads the output parameter", s.text)));
                    };
                    let id = self.fresh();
                    if let Where::Shared(v, so) = &at
                        && let Some((_, w)) = self.shared.get(&(v.clone(), *so))
                    {
                        self.shared_rf.insert(id, *w);
                    }
                    let sem = if q("nc") { Some(Sem::Weak) } else { sem };
                    th.events.push(Ev::Mem { id, kind: Kind::Load, at, sem, scope });
                    Self::set(th, dst, Sym::Loaded(id));
                }
            }
            "st" => {
                let (base, off) = self.address(th, tid, &s.args[0])?;
                let srcs: Vec<String> = s.args[1].trim_matches(|c| c == '{' || c == '}').split(',').map(|r| r.trim().to_string()).collect();
                for (k, src) in srcs.iter().enumerate() {
                    let o = off + 4 * k as i64;
                    let v = self.value(th, tid, src)?;
                    match self.place(&base, o, s)? {
                        None => {
                            self.out.insert(o / 4, v);
                        }
                        Some(at) => {
                            let id = self.fresh();
                            if let Where::Shared(var, so) = &at {
                                self.shared.insert((var.clone(), *so), (v.clone(), id));
                            }
                            th.events.push(Ev::Mem { id, kind: Kind::Store(v), at, sem, scope });
                        }
                    }
                }
            }
            "atom" | "red" => {
                let op = self.atom_op(&s.quals, &s.text)?;
                let (addr_arg, vals) = if s.op == "atom" { (1, 2) } else { (0, 1) };
                let (base, off) = self.address(th, tid, &s.args[addr_arg])?;
                let Some(at) = self.place(&base, off, s)? else {
                    return Err(self.err(format!("`{}` is an atomic on the output parameter", s.text)));
                };
                let operands: Vec<Sym> = s.args[vals..].iter().map(|x| self.value(th, tid, x)).collect::<Result<_, _>>()?;
                let id = self.fresh();
                // An atomic without semantics is relaxed, without scope .gpu (PTX ISA §9.7.13.5).
                let (sem, scope) = (sem.or(Some(Sem::Relaxed)), scope.or(Some(Scope::Gpu)));
                if s.op == "atom" {
                    th.events.push(Ev::Mem { id, kind: Kind::Atom(op, operands), at, sem, scope });
                    Self::set(th, &s.args[0], Sym::Loaded(id));
                } else {
                    let v = operands.into_iter().next().unwrap_or(Sym::Int(0));
                    th.events.push(Ev::Mem { id, kind: Kind::Red(op, v), at, sem, scope });
                }
            }
            _ => unreachable!("[tcfuzz internal bug] memory() called on `{}`", s.op),
        }
        Ok(())
    }
}

/// The events of every hardware thread of `entry`.
fn simulate(sim: &mut Sim, ntid: u32) -> Result<Vec<Vec<Ev>>, LiftError> {
    let mut threads: Vec<Thread> =
        (0..ntid).map(|_| Thread { regs: HashMap::new(), pc: 0, done: false, events: Vec::new(), steps: 0 }).collect();
    // Phase by phase: every thread runs to its next barrier.
    for _ in 0..MAX_STEPS {
        if threads.iter().all(|t| t.done) {
            return Ok(threads.into_iter().map(|t| t.events).collect());
        }
        for (tid, th) in threads.iter_mut().enumerate() {
            if !th.done {
                sim.run(th, tid as u32)?;
            }
        }
    }
    Err(sim.err("too many barrier phases"))
}

// ---------------------------------------------------------------------------------------------
// The litmus program.

/// Lifts the PTX `tileiras` produced for module `m` of Tile IR program `p`.
pub fn lift(p: &Program, m: &Module, ptx: &str) -> Result<Lifted, LiftError> {
    let consts = globals(ptx);
    let parsed = entries(ptx);
    let loc_len: Vec<usize> = m.locations.iter().map(|(_, n)| *n).collect();
    let mut locations: Vec<Location> = Vec::new();
    for (name, n) in &m.locations {
        let init: Vec<i64> = match p.locations.iter().find(|l| &l.name == name).and_then(|l| l.init.clone()) {
            Some(Value::Tile(v)) => v,
            Some(Value::Int(v)) => vec![v],
            None => vec![0; *n],
        };
        for i in 0..*n {
            locations.push(Location {
                name: format!("{name}_{i}"),
                kind: LocationKind::Global,
                init: Some(Value::Int(init.get(i).copied().unwrap_or(0))),
                span: Span::default(),
            });
        }
    }
    let mut threads: Vec<tcfuzz_litmus::Thread> = Vec::new();
    let mut names = BTreeMap::new();
    for (name, n) in &m.locations {
        for i in 0..*n {
            names.insert(format!("{name}[{i}]"), format!("{name}_{i}"));
        }
        if *n == 1 {
            names.insert(name.clone(), format!("{name}_0"));
        }
    }
    // Barrier ids: per CTA, each entry's CTA barrier and each warp barrier gets its own.
    let mut barrier_ids: BTreeMap<(u32, u32, usize, Option<u32>), i64> = BTreeMap::new();
    let mut next_id: BTreeMap<(u32, u32), i64> = BTreeMap::new();
    let mut shared_locs: BTreeSet<(u32, u32, String, i64)> = BTreeSet::new();
    for (k, e) in m.entries.iter().enumerate() {
        let entry = parsed
            .iter()
            .find(|x| x.name == e.name)
            .ok_or_else(|| LiftError::Unsupported { entry: e.name.clone(), message: "the compiled PTX has no such entry".into() })?;
        let thread = p.threads.iter().find(|t| t.name == e.thread).ok_or_else(|| LiftError::Unsupported {
            entry: e.name.clone(),
            message: "[tcfuzz internal bug] no thread for the entry".into(),
        })?;
        let Placement::TileBlock { dev, tlb } = thread.placement else {
            return Err(LiftError::Unsupported { entry: e.name.clone(), message: "not a tile-block thread".into() });
        };
        let mut sim = Sim {
            entry,
            consts: &consts,
            nlocs: m.locations.len(),
            loc_len: &loc_len,
            next_id: 0,
            shared: HashMap::new(),
            shared_rf: HashMap::new(),
            out: BTreeMap::new(),
        };
        let events = simulate(&mut sim, entry.ntid)?;
        // Which out word holds which element of which register.
        let mut slot_of: HashMap<i64, (String, usize)> = HashMap::new();
        let mut at = 0i64;
        for (r, n) in &e.registers {
            for i in 0..*n {
                slot_of.insert(at + i as i64, (r.clone(), i));
            }
            at += *n as i64;
        }
        // Liveness: out values, values of kept writes, and through shared memory.
        let mut live: BTreeSet<usize> = BTreeSet::new();
        // Each loaded value's register, named after the first element it is; every element it
        // is (the compiler may merge equal loads) reads it.
        let mut reg_name: HashMap<usize, String> = HashMap::new();
        let mut elements: Vec<(String, usize, usize)> = Vec::new();
        for (word, v) in &sim.out {
            let Some((r, i)) = slot_of.get(word) else { continue };
            match v {
                Sym::Loaded(id) => {
                    live.insert(*id);
                    reg_name.entry(*id).or_insert_with(|| lower_name(r, *i));
                    elements.push((r.clone(), *i, *id));
                }
                other => {
                    return Err(sim.err(format!("element {i} of register `{r}` is {other:?}, not a value some load returned")));
                }
            }
        }
        let writes_location =
            |ev: &Ev| matches!(ev, Ev::Mem { kind: Kind::Store(_) | Kind::Atom(..) | Kind::Red(..), at: Where::Location(..), .. });
        for ev in events.iter().flatten() {
            if writes_location(ev)
                && let Ev::Mem { kind, .. } = ev
            {
                for v in kind_values(kind) {
                    if let Sym::Loaded(id) = v {
                        live.insert(*id);
                    }
                }
            }
        }
        // Shared memory: a live load makes the store it read live, and that store's value.
        loop {
            let before = live.len();
            for ev in events.iter().flatten() {
                if let Ev::Mem { id, kind: Kind::Store(v), at: Where::Shared(..), .. } = ev
                    && sim.shared_rf.iter().any(|(l, s)| s == id && live.contains(l))
                {
                    live.insert(*id);
                    if let Sym::Loaded(x) = v {
                        live.insert(*x);
                    }
                }
            }
            if live.len() == before {
                break;
            }
        }
        let defined_in: HashMap<usize, usize> = events
            .iter()
            .enumerate()
            .flat_map(|(t, evs)| evs.iter().filter_map(move |ev| if let Ev::Mem { id, .. } = ev { Some((*id, t)) } else { None }))
            .collect();
        for (tid, evs) in events.iter().enumerate() {
            let keep = evs.iter().any(|ev| writes_location(ev) || matches!(ev, Ev::Mem { id, .. } if live.contains(id)));
            if !keep {
                continue;
            }
            let tname = format!("{}t{tid}", e.thread);
            let mut body = Vec::new();
            let operand = |v: &Sym| -> Result<Operand, LiftError> {
                match v {
                    Sym::Int(x) => Ok(Operand::Imm(*x)),
                    Sym::Loaded(id) if defined_in.get(id) == Some(&tid) => {
                        Ok(Operand::Reg(reg_name.get(id).cloned().unwrap_or_else(|| format!("e{id}"))))
                    }
                    other => Err(LiftError::Unsupported {
                        entry: e.name.clone(),
                        message: format!("thread {tid} writes {other:?}, a value it did not load itself"),
                    }),
                }
            };
            for ev in evs {
                let instr = match ev {
                    Ev::Fence(f) => Instr::Fence(f.clone()),
                    Ev::Barrier(w) => {
                        let key = (dev, tlb, k, *w);
                        let id = match barrier_ids.get(&key) {
                            Some(id) => *id,
                            None => {
                                let n = next_id.entry((dev, tlb)).or_insert(0);
                                let id = *n;
                                *n += 1;
                                barrier_ids.insert(key, id);
                                id
                            }
                        };
                        if id > 14 {
                            return Err(LiftError::Unsupported {
                                entry: e.name.clone(),
                                message: "more than 15 distinct barriers in one CTA".into(),
                            });
                        }
                        Instr::Barrier(Barrier::Sync {
                            form: BarForm { long: false, cta: false, aligned: false },
                            operands: vec![Operand::Imm(id)],
                        })
                    }
                    Ev::Mem { id, kind, at, sem, scope } => {
                        let (addr, space) = match at {
                            Where::Location(l, i) => (format!("{}_{i}", m.locations[*l].0), None),
                            Where::Shared(v, o) => {
                                shared_locs.insert((dev, tlb, v.clone(), *o));
                                (shared_name(tlb, v, *o), Some(StateSpace::SharedCta))
                            }
                        };
                        let addr = Addr { name: addr, bracketed: true };
                        let dst = reg_name.get(id).cloned().unwrap_or_else(|| format!("e{id}"));
                        let scope =
                            if matches!(sem, Some(Sem::Relaxed | Sem::Acquire | Sem::Release | Sem::AcqRel)) { *scope } else { None };
                        match kind {
                            Kind::Load => Instr::Ld(Load { proxy: AccessProxy::Generic, sem: *sem, scope, space, ty: None, dst, addr }),
                            Kind::Store(v) => {
                                Instr::St(Store { proxy: AccessProxy::Generic, sem: *sem, scope, space, ty: None, addr, src: operand(v)? })
                            }
                            Kind::Atom(op, vals) => {
                                let a = operand(vals.first().unwrap_or(&Sym::Int(0)))?;
                                let b = match vals.get(1) {
                                    Some(v) => Some(operand(v)?),
                                    None => None,
                                };
                                Instr::Atom(Atomic { sem: *sem, scope, space, op: *op, ty: None, dst, addr, a, b })
                            }
                            Kind::Red(op, v) => Instr::Red(Reduction { sem: *sem, scope, space, op: *op, ty: None, addr, a: operand(v)? }),
                        }
                    }
                };
                body.push(tcfuzz_litmus::Stmt { span: Span::default(), kind: StmtKind::Instr(instr) });
            }
            for (r, i, id) in &elements {
                if defined_in.get(id) == Some(&tid) {
                    let lifted = format!("{tname}:{}", reg_name[id]);
                    names.insert(format!("{}:{r}[{i}]", e.thread), lifted.clone());
                    if e.registers.iter().any(|(x, n)| x == r && *n == 1) {
                        names.insert(format!("{}:{r}", e.thread), lifted);
                    }
                }
            }
            threads.push(tcfuzz_litmus::Thread {
                name: tname,
                placement: Placement::Ptx { gpu: dev, cluster: None, cta: tlb, warp: Some(tid as u32 / 32) },
                body,
                span: Span::default(),
            });
        }
        for (r, n) in &e.registers {
            for i in 0..*n {
                if !names.contains_key(&format!("{}:{r}[{i}]", e.thread)) {
                    return Err(LiftError::Unsupported {
                        entry: e.name.clone(),
                        message: format!("no load produces element {i} of `{r}`"),
                    });
                }
            }
        }
    }
    for (dev, tlb, v, o) in &shared_locs {
        locations.push(Location {
            name: shared_name(*tlb, v, *o),
            kind: LocationKind::Shared { cta: *tlb, gpu: *dev },
            init: Some(Value::Int(0)),
            span: Span::default(),
        });
    }
    let program = Program {
        comments: vec![],
        arch: Arch::Ptx,
        name: format!("{} (tileiras lowering)", p.name),
        docs: vec![format!(
            "the PTX NVIDIA's tileiras generated for `{}`, lifted back: one thread per hardware thread that matters, tile block Pk's thread t is Pkt<t>",
            p.name
        )],
        locations,
        reg_inits: vec![],
        threads,
        condition: Condition { quantifier: Quantifier::Exists, prop: Prop::True, span: Span::default() },
    };
    Ok(Lifted { program, names })
}

fn kind_values(k: &Kind) -> Vec<&Sym> {
    match k {
        Kind::Load => vec![],
        Kind::Store(v) | Kind::Red(_, v) => vec![v],
        Kind::Atom(_, vs) => vs.iter().collect(),
    }
}

fn lower_name(r: &str, i: usize) -> String {
    format!("{r}_{i}")
}

fn shared_name(tlb: u32, v: &str, off: i64) -> String {
    let clean: String = v.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '_' }).collect();
    format!("smem{tlb}_{clean}_{off}")
}
