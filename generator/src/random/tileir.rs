//! The `tileir` family: Tile IR programs of token-ordered tile accesses.
//!
//! Three programs in four are [`tile_program`]s, one in four a [`mp_variant`]: the former explore
//! what token order and element lists allow, the latter are race-free synchronization patterns,
//! so that the `tileir-weaker-than-ptx` check has programs that are not vacuously correct (a racy
//! Tile IR program allows anything).

use arbitrary::Unstructured;
use tcfuzz_litmus::{
    Arch, AtomOp, Cmp, Instr, Placement, Program, Prop, Span, Stmt, Term, TileAddr, TileOp, TileOrdering, TileScope, TileValue, Value,
};

use super::build::{and_all, exists, global, instr, program as build_program, thread};
use super::chance;

/// Mostly wide scopes, so that most programs are race-free.
const SCOPES: [TileScope; 4] = [TileScope::TileBlock, TileScope::Device, TileScope::Device, TileScope::Sys];

/// A program of the family: a [`mp_variant`] one time in four, else a [`tile_program`].
pub fn program(u: &mut Unstructured<'_>) -> arbitrary::Result<Program> {
    if chance(u, 25)? { mp_variant(u) } else { tile_program(u) }
}

/// A random Tile IR program (named `random-tile`): 1–3 tile blocks (tile block 0 or 1, device 0,
/// one in twenty on device 1) over `x = [0, 0]` and `f = [0]`, each of a few loads (weak,
/// relaxed or acquire), stores (weak, relaxed or release; one in seven of the whole-tile ones
/// writes `x[0, 0]`, a store that overlaps itself) and atomics (`add`, `exch`, `max`), with
/// element lists, token dependencies (sometimes through `join_tokens`) and values from
/// registers. At most about nine element events in all: 6, 4 or 3 per block with 1, 2 or 3
/// blocks. The condition is `exists (x == [1, 1])`.
pub fn tile_program(u: &mut Unstructured<'_>) -> arbitrary::Result<Program> {
    let nthreads = u.int_in_range(1..=3usize)?;
    let budget = [6usize, 4, 3][nthreads - 1];
    let mut threads = Vec::with_capacity(nthreads);
    for t in 0..nthreads {
        let tlb = u.int_in_range(0..=1u32)?;
        let dev = u32::from(chance(u, 5)?);
        threads.push(thread(t, Placement::TileBlock { dev, tlb }, tile_block(u, budget)?));
    }
    let locations = vec![global("x", Value::Tile(vec![0, 0])), global("f", Value::Tile(vec![0]))];
    let condition = exists(Prop::Atom(cmp(Term::Loc { name: "x".into(), element: None }, true, vec![1, 1])));
    Ok(build_program(Arch::TileIr, "random-tile", locations, threads, condition))
}

/// One tile block of about `budget` element events (each load or store element counts one, each
/// atomic element two).
fn tile_block(u: &mut Unstructured<'_>, budget: usize) -> arbitrary::Result<Vec<Stmt>> {
    let mut body = Vec::new();
    let mut tokens: Vec<String> = Vec::new();
    // Registers written so far, with their lengths.
    let mut regs: Vec<(String, usize)> = Vec::new();
    let (mut events, mut k) = (0, 0);
    while events < budget {
        k += 1;
        let (loc, len) = if chance(u, 50)? { ("x", 2) } else { ("f", 1) };
        let (elements, n) = match u.int_in_range(0..=3u8)? {
            0 if len == 2 => (Some(vec![u.int_in_range(0..=1)?]), 1),
            1 if len == 2 => (Some(vec![1, 0]), 2),
            _ => (None, len),
        };
        let kind = u.int_in_range(0..=9u8)?;
        let mut deps = Vec::new();
        if !tokens.is_empty() && chance(u, 50)? {
            deps.push(u.choose(&tokens)?.clone());
        }
        if tokens.len() >= 2 && chance(u, 20)? {
            let (a, b) = (u.choose(&tokens)?.clone(), u.choose(&tokens)?.clone());
            let join = format!("j{k}");
            body.push(instr(Instr::Tile(TileOp::JoinTokens { token: join.clone(), deps: vec![a, b] })));
            deps = vec![join];
        }
        let token = Some(format!("t{k}"));
        let addr = TileAddr { name: loc.to_string(), elements };
        let op = match kind {
            0..=3 => {
                let (ordering, scope) = ordering(u, &[TileOrdering::Weak, TileOrdering::Relaxed, TileOrdering::Acquire])?;
                let dst = format!("r{k}");
                regs.push((dst.clone(), n));
                events += n;
                TileOp::Load { ordering, scope, dst, token, addr, deps }
            }
            4..=7 => {
                let (ordering, scope) = ordering(u, &[TileOrdering::Weak, TileOrdering::Relaxed, TileOrdering::Release])?;
                // Now and then a whole-tile store that writes element 0 twice: it races with itself.
                let addr =
                    if len == 2 && n == 2 && chance(u, 15)? { TileAddr { name: "x".into(), elements: Some(vec![0, 0]) } } else { addr };
                let value = value(u, &regs, n)?;
                events += n;
                TileOp::Store { ordering, scope, token, addr, value, deps }
            }
            _ => {
                let (ordering, scope) =
                    ordering(u, &[TileOrdering::Relaxed, TileOrdering::Acquire, TileOrdering::Release, TileOrdering::AcqRel])?;
                let op = *u.choose(&[AtomOp::Add, AtomOp::Exch, AtomOp::Max])?;
                let value = value(u, &regs, n)?;
                let dst = format!("a{k}");
                regs.push((dst.clone(), n));
                events += 2 * n;
                TileOp::Atomic { ordering, scope, op, dst, token, addr, value, deps }
            }
        };
        body.push(instr(Instr::Tile(op)));
        tokens.push(format!("t{k}"));
    }
    Ok(body)
}

/// An ordering from `allowed` with its scope; a weak one becomes relaxed half of the time.
fn ordering(u: &mut Unstructured<'_>, allowed: &[TileOrdering]) -> arbitrary::Result<(TileOrdering, Option<TileScope>)> {
    let o = *u.choose(allowed)?;
    if o == TileOrdering::Weak && !chance(u, 50)? {
        return Ok((TileOrdering::Weak, None));
    }
    let o = if o == TileOrdering::Weak { TileOrdering::Relaxed } else { o };
    Ok((o, Some(*u.choose(&SCOPES)?)))
}

/// The value of a store or atomic of `n` elements: a register of that length (30% when there is
/// one) or a tile of 1s and 2s.
fn value(u: &mut Unstructured<'_>, regs: &[(String, usize)], n: usize) -> arbitrary::Result<TileValue> {
    let same: Vec<&String> = regs.iter().filter(|(_, len)| *len == n).map(|(r, _)| r).collect();
    if !same.is_empty() && chance(u, 30)? {
        return Ok(TileValue::Reg((*u.choose(&same)?).clone()));
    }
    let mut tile = Vec::with_capacity(n);
    for _ in 0..n {
        tile.push(u.int_in_range(1..=2)?);
    }
    Ok(TileValue::Tile(tile))
}

/// A random variant of message passing (named `mp-variant`; Tile IR spec §7.12.3): tile block 0
/// stores a payload to `x` (all of it, `x[1]` or `x[1, 0]`; weak or relaxed at some scope) and
/// then releases the flag `f` by a store or an atomic exchange; tile block 1 (or 0, one time in
/// five) acquires `f` by a load or an atomic add and then loads the payload. Each side's token
/// dependency is there four times in five. The condition asks for the flag seen and the payload
/// not: `exists (1:rf == [1] /\ 1:rx != PAYLOAD)`.
pub fn mp_variant(u: &mut Unstructured<'_>) -> arbitrary::Result<Program> {
    let pw = payload_ordering(u)?;
    let pr = payload_ordering(u)?;
    let elements = u.choose(&[None, None, Some(vec![1]), Some(vec![1, 0])])?.clone();
    let payload: Vec<i64> = if elements.as_deref() == Some(&[1]) { vec![2] } else { vec![1, 2] };
    let x = TileAddr { name: "x".into(), elements };
    let f = TileAddr { name: "f".into(), elements: None };
    let (wt, rt) = (chance(u, 80)?, chance(u, 80)?);
    let after = |yes: bool, t: &str| if yes { vec![t.to_string()] } else { Vec::new() };
    let release = if u.int_in_range(0..=2u8)? == 0 {
        let ordering = *u.choose(&[TileOrdering::Release, TileOrdering::AcqRel])?;
        let scope = Some(*u.choose(&SCOPES)?);
        let (dst, token, addr, value, deps) = ("q".into(), Some("b".into()), f.clone(), TileValue::Tile(vec![1]), after(wt, "a"));
        TileOp::Atomic { ordering, scope, op: AtomOp::Exch, dst, token, addr, value, deps }
    } else {
        let scope = Some(*u.choose(&SCOPES)?);
        let (token, addr, value, deps) = (Some("b".into()), f.clone(), TileValue::Tile(vec![1]), after(wt, "a"));
        TileOp::Store { ordering: TileOrdering::Release, scope, token, addr, value, deps }
    };
    let acquire = if u.int_in_range(0..=2u8)? == 0 {
        let ordering = *u.choose(&[TileOrdering::Acquire, TileOrdering::AcqRel])?;
        let scope = Some(*u.choose(&SCOPES)?);
        let (dst, token, addr, value) = ("rf".into(), Some("u".into()), f.clone(), TileValue::Tile(vec![0]));
        TileOp::Atomic { ordering, scope, op: AtomOp::Add, dst, token, addr, value, deps: Vec::new() }
    } else {
        let scope = Some(*u.choose(&SCOPES)?);
        TileOp::Load { ordering: TileOrdering::Acquire, scope, dst: "rf".into(), token: Some("u".into()), addr: f, deps: Vec::new() }
    };
    let tlb1 = u32::from(!chance(u, 20)?);
    let p0 = vec![
        instr(Instr::Tile(TileOp::Store {
            ordering: pw.0,
            scope: pw.1,
            token: Some("a".into()),
            addr: x.clone(),
            value: TileValue::Tile(payload.clone()),
            deps: Vec::new(),
        })),
        instr(Instr::Tile(release)),
    ];
    let p1 = vec![
        instr(Instr::Tile(acquire)),
        instr(Instr::Tile(TileOp::Load { ordering: pr.0, scope: pr.1, dst: "rx".into(), token: None, addr: x, deps: after(rt, "u") })),
    ];
    let threads = vec![thread(0, Placement::TileBlock { dev: 0, tlb: 0 }, p0), thread(1, Placement::TileBlock { dev: 0, tlb: tlb1 }, p1)];
    let locations = vec![global("x", Value::Tile(vec![0, 0])), global("f", Value::Tile(vec![0]))];
    let reg = |r: &str| Term::Reg { thread: "1".into(), reg: r.into() };
    let condition = exists(and_all(vec![Prop::Atom(cmp(reg("rf"), true, vec![1])), Prop::Atom(cmp(reg("rx"), false, payload))]));
    Ok(build_program(Arch::TileIr, "mp-variant", locations, threads, condition))
}

/// The program of `seed` (named `random-tile-<seed>` or `mp-variant-<seed>`):
/// `random_program(Family::TileIr, seed)`.
pub fn random_program(seed: u64) -> Program {
    super::random_program(super::Family::TileIr, seed)
}

/// The [`tile_program`] of `seed`, named `random-tile-<seed>`.
pub fn random_tile_program(seed: u64) -> Program {
    super::seeded(seed, tile_program)
}

/// The [`mp_variant`] of `seed`, named `mp-variant-<seed>`.
pub fn random_mp_variant(seed: u64) -> Program {
    super::seeded(seed, mp_variant)
}

/// A payload access's ordering: weak one time in four, else relaxed at some scope.
fn payload_ordering(u: &mut Unstructured<'_>) -> arbitrary::Result<(TileOrdering, Option<TileScope>)> {
    if chance(u, 25)? { Ok((TileOrdering::Weak, None)) } else { Ok((TileOrdering::Relaxed, Some(*u.choose(&SCOPES)?))) }
}

/// `lhs == [tile]` (or `!=`).
fn cmp(lhs: Term, eq: bool, tile: Vec<i64>) -> Cmp {
    Cmp { lhs, eq, rhs: Term::Const(Value::Tile(tile)), span: Span::default() }
}
