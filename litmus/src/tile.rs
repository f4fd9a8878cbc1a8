//! Tile IR token-ordered operations (Tile IR spec §7), in the look of the draft Tile IR litmus
//! format: `x_tile, <t2> = ld.weak x, <t1>;`, `<t1> = st.relaxed.device x[0, 1], [1, 2];`.

use crate::ast::*;
use crate::error::{Diagnostic, ErrorKind};
use crate::lexer::{Tok, Token};
use crate::parser::{Cursor, PResult};

fn err(span: Span, kind: ErrorKind, msg: impl Into<String>) -> Diagnostic {
    Diagnostic::new(span, kind, msg)
}

fn ordering_of(q: &str) -> Option<TileOrdering> {
    Some(match q {
        "weak" => TileOrdering::Weak,
        "relaxed" | "rlx" => TileOrdering::Relaxed,
        "acquire" | "acq" => TileOrdering::Acquire,
        "release" | "rel" => TileOrdering::Release,
        "acq_rel" => TileOrdering::AcqRel,
        _ => return None,
    })
}

fn scope_of(q: &str) -> Option<TileScope> {
    Some(match q {
        "tile_block" | "tlb" => TileScope::TileBlock,
        "device" | "dev" => TileScope::Device,
        "sys" => TileScope::Sys,
        _ => return None,
    })
}

fn op_of(q: &str) -> Option<AtomOp> {
    Some(match q {
        "add" => AtomOp::Add,
        "exch" => AtomOp::Exch,
        "and" => AtomOp::And,
        "or" => AtomOp::Or,
        "xor" => AtomOp::Xor,
        "min" => AtomOp::Min,
        "max" => AtomOp::Max,
        _ => return None,
    })
}

/// A result on the left of `=`: a register or a `<token>`.
enum TileResult {
    Reg(String),
    Token(String),
}

/// `<name>`.
fn token(c: &mut Cursor) -> PResult<String> {
    c.expect(&Tok::LAngle, "`<` to open a token")?;
    let (name, _) = c.word("a token name")?;
    c.expect(&Tok::RAngle, "`>` to close a token")?;
    Ok(name)
}

pub fn parse(toks: &[Token], end: Span) -> PResult<Instr> {
    let mut c = Cursor::new(toks, end);
    // Results, if the statement has an `=`.
    let mut results: Vec<(TileResult, Span)> = Vec::new();
    if toks.iter().any(|t| t.tok == Tok::Assign) {
        loop {
            let span = c.span();
            if c.peek() == Some(&Tok::LAngle) {
                results.push((TileResult::Token(token(&mut c)?), span));
            } else {
                let (w, _) = c.word("a result register or `<token>`")?;
                results.push((TileResult::Reg(w), span));
            }
            if c.eat(&Tok::Assign) {
                break;
            }
            c.expect(&Tok::Comma, "`,` or `=` after a result")?;
        }
    }
    let (word, span) = c.word("a Tile IR operation (ld, st, atom, make_token, join_tokens)")?;
    let mut parts = word.split('.');
    let head = parts.next().unwrap_or_default().to_string();
    let quals: Vec<String> = parts.map(str::to_string).collect();
    let result_reg = |i: usize| match results.get(i) {
        Some((TileResult::Reg(r), _)) => Some(r.clone()),
        _ => None,
    };
    let result_token = |i: usize| match results.get(i) {
        Some((TileResult::Token(t), _)) => Some(t.clone()),
        _ => None,
    };
    let results_shape = |want: &str, ok: bool| -> PResult<()> {
        if ok {
            Ok(())
        } else {
            Err(err(results.first().map_or(span, |r| r.1), ErrorKind::BadOperand, format!("`{head}` results must be `{want}`")))
        }
    };
    match head.as_str() {
        "make_token" => {
            no_quals(&head, &quals, span)?;
            results_shape("<t> = make_token", results.len() == 1 && result_token(0).is_some())?;
            if !c.at_end() {
                return Err(c.error("the end of `make_token` (it takes no operands)"));
            }
            Ok(Instr::Tile(TileOp::MakeToken { token: result_token(0).unwrap_or_default() }))
        }
        "join_tokens" => {
            no_quals(&head, &quals, span)?;
            results_shape("<t> = join_tokens <a>, <b>", results.len() == 1 && result_token(0).is_some())?;
            let deps = deps(&mut c, true)?;
            if deps.is_empty() {
                return Err(err(
                    span,
                    ErrorKind::BadOperand,
                    "`join_tokens` needs at least one token to join: `<t> = join_tokens <a>, <b>`",
                ));
            }
            Ok(Instr::Tile(TileOp::JoinTokens { token: result_token(0).unwrap_or_default(), deps }))
        }
        "ld" | "st" | "atom" => {
            let (ordering, scope, op) = mem_quals(&head, &quals, span)?;
            let addr = tile_addr(&mut c)?;
            match head.as_str() {
                "ld" => {
                    results_shape(
                        "v, <t> = ld... (the token is optional)",
                        matches!(results.len(), 1 | 2) && result_reg(0).is_some() && (results.len() == 1 || result_token(1).is_some()),
                    )?;
                    let deps = deps(&mut c, false)?;
                    Ok(Instr::Tile(TileOp::Load {
                        ordering,
                        scope,
                        dst: result_reg(0).unwrap_or_default(),
                        token: result_token(1),
                        addr,
                        deps,
                    }))
                }
                "st" => {
                    results_shape("<t> = st... (or no result)", results.is_empty() || (results.len() == 1 && result_token(0).is_some()))?;
                    c.expect(&Tok::Comma, "`,` and the value to store")?;
                    let value = tile_value(&mut c)?;
                    let deps = deps(&mut c, false)?;
                    Ok(Instr::Tile(TileOp::Store { ordering, scope, token: result_token(0), addr, value, deps }))
                }
                _ => {
                    results_shape(
                        "v, <t> = atom... (the token is optional)",
                        matches!(results.len(), 1 | 2) && result_reg(0).is_some() && (results.len() == 1 || result_token(1).is_some()),
                    )?;
                    c.expect(&Tok::Comma, "`,` and the operand of the atomic")?;
                    let value = tile_value(&mut c)?;
                    let deps = deps(&mut c, false)?;
                    let op = op.ok_or_else(|| {
                        err(span, ErrorKind::BadOperand, format!("`{word}` needs an operation: .add .exch .and .or .xor .min .max"))
                    })?;
                    Ok(Instr::Tile(TileOp::Atomic {
                        ordering,
                        scope,
                        op,
                        dst: result_reg(0).unwrap_or_default(),
                        token: result_token(1),
                        addr,
                        value,
                        deps,
                    }))
                }
            }
        }
        other => Err(err(
            span,
            ErrorKind::UnknownInstruction,
            format!(
                "unknown Tile IR operation `{other}`; expected ld, st, atom, make_token, join_tokens (PTX instructions need a PTX thread)"
            ),
        )),
    }
}

fn no_quals(head: &str, quals: &[String], span: Span) -> PResult<()> {
    match quals.first() {
        Some(q) => Err(err(span, ErrorKind::UnknownQualifier, format!("unknown qualifier `.{q}` on `{head}`; it takes none"))),
        None => Ok(()),
    }
}

/// Ordering, scope and (for `atom`) operation, with the rules of Tile IR spec §7.2/§7.3: a scope
/// needs an ordering other than weak, and an ordering other than weak needs a scope.
fn mem_quals(head: &str, quals: &[String], span: Span) -> PResult<(TileOrdering, Option<TileScope>, Option<AtomOp>)> {
    let mut ordering = None;
    let mut scope = None;
    let mut op = None;
    for q in quals {
        if let Some(o) = ordering_of(q) {
            if ordering.replace(o).is_some() {
                return Err(err(span, ErrorKind::ForbiddenQualifiers, format!("`{head}` has two orderings; give one")));
            }
        } else if let Some(s) = scope_of(q) {
            if scope.replace(s).is_some() {
                return Err(err(span, ErrorKind::ForbiddenQualifiers, format!("`{head}` has two scopes; give one")));
            }
        } else if head == "atom"
            && let Some(o) = op_of(q)
        {
            if op.replace(o).is_some() {
                return Err(err(span, ErrorKind::ForbiddenQualifiers, "`atom` has two operations; give one"));
            }
        } else {
            let extra = if head == "atom" { " / .add .exch .and .or .xor .min .max" } else { "" };
            return Err(err(
                span,
                ErrorKind::UnknownQualifier,
                format!(
                    "unknown qualifier `.{q}` on Tile IR `{head}`; expected .weak .relaxed .acquire .release .acq_rel / .tile_block .device .sys{extra}"
                ),
            ));
        }
    }
    let Some(ordering) = ordering else {
        return Err(err(
            span,
            ErrorKind::ForbiddenQualifiers,
            format!(
                "Tile IR `{head}` needs a memory ordering (.weak .relaxed .acquire .release .acq_rel): every memory operation specifies a scope or weak (Tile IR spec §7.2)"
            ),
        ));
    };
    let forbidden = matches!(
        (head, ordering),
        ("ld", TileOrdering::Release | TileOrdering::AcqRel)
            | ("st", TileOrdering::Acquire | TileOrdering::AcqRel)
            | ("atom", TileOrdering::Weak)
    );
    if forbidden {
        let why = match head {
            "ld" => "a load is weak, relaxed or acquire",
            "st" => "a store is weak, relaxed or release",
            _ => "an atomic needs an ordering other than weak",
        };
        return Err(err(
            span,
            ErrorKind::ForbiddenQualifiers,
            format!("`{head}` with ordering `{}` is not allowed: {why}", ordering_name(ordering)),
        ));
    }
    match (ordering, scope) {
        (TileOrdering::Weak, Some(_)) => Err(err(
            span,
            ErrorKind::ForbiddenQualifiers,
            format!("scope on a weak access: weak `{head}` takes no scope (Tile IR spec §7.2: operations without a scope are weak)"),
        )),
        (o, None) if o != TileOrdering::Weak => Err(err(
            span,
            ErrorKind::ForbiddenQualifiers,
            format!(
                "`{head}.{}` needs a scope: add .tile_block, .device or .sys (Tile IR spec §7.3: any ordering other than weak requires a scope)",
                ordering_name(o)
            ),
        )),
        _ => Ok((ordering, scope, op)),
    }
}

pub(crate) fn ordering_name(o: TileOrdering) -> &'static str {
    match o {
        TileOrdering::Weak => "weak",
        TileOrdering::Relaxed => "relaxed",
        TileOrdering::Acquire => "acquire",
        TileOrdering::Release => "release",
        TileOrdering::AcqRel => "acq_rel",
    }
}

fn tile_addr(c: &mut Cursor) -> PResult<TileAddr> {
    let (name, _) = c.word("a tile location")?;
    let elements = if c.eat(&Tok::LBracket) {
        let span = c.span();
        let list = c.int_list()?;
        let mut out = Vec::with_capacity(list.len());
        for v in list {
            out.push(u32::try_from(v).map_err(|_| err(span, ErrorKind::BadTile, format!("element index `{v}` is negative or too large")))?);
        }
        if out.is_empty() {
            return Err(err(
                span,
                ErrorKind::BadTile,
                format!("empty element list on `{name}`: name at least one element, or none to mean the whole tile"),
            ));
        }
        Some(out)
    } else {
        None
    };
    Ok(TileAddr { name, elements })
}

fn tile_value(c: &mut Cursor) -> PResult<TileValue> {
    if c.eat(&Tok::LBracket) {
        return Ok(TileValue::Tile(c.int_list()?));
    }
    match c.peek() {
        Some(Tok::Int(_) | Tok::Minus) => Ok(TileValue::Tile(vec![c.int("a value")?])),
        _ => Ok(TileValue::Reg(c.word("a tile `[1, 2]` or a register")?.0)),
    }
}

/// Trailing `, <t>` token dependencies (for `join_tokens`, the first has no leading comma).
fn deps(c: &mut Cursor, first_bare: bool) -> PResult<Vec<String>> {
    let mut out = Vec::new();
    if first_bare && c.peek() == Some(&Tok::LAngle) {
        out.push(token(c)?);
    }
    while c.eat(&Tok::Comma) {
        out.push(token(c)?);
    }
    if !c.at_end() {
        return Err(c.error("`, <token>` or the end of the statement"));
    }
    Ok(out)
}
