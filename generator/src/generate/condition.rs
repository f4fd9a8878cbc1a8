//! A final condition the generator predicts is interesting: some loads reading a value another
//! thread writes to their location, others reading the initial value although another thread
//! overwrites it — the shape of every weak outcome of the classic litmus tests (MP, SB, LB,
//! IRIW: a thread misses a write that another thread's read says already happened). Whether the
//! model allows it is what the checker decides; the condition makes the verdict's
//! Never/Sometimes/Always say something, where `exists (true)` says nothing.

use std::collections::BTreeMap;

use arbitrary::Unstructured;
use tcfuzz_litmus::{Arch, AtomOp, Cmp, Condition, Instr, LocationKind, Operand, Program, Prop, Quantifier, Span, StmtKind, Term, Value};

use crate::choose::{chance, index};

/// A load whose register is written by that load only: `(thread, register, location)`.
struct Observed {
    thread: String,
    reg: String,
    location: String,
}

/// A condition over 1–3 loads of a PTX program, each compared with the initial value of its
/// location or a value another thread stores there. `None` if no load reads a location another
/// thread writes (or the program is not PTX).
pub(crate) fn interesting(p: &Program, u: &mut Unstructured<'_>) -> arbitrary::Result<Option<Condition>> {
    if p.arch != Arch::Ptx {
        return Ok(None);
    }
    let init: BTreeMap<&str, i64> = p
        .locations
        .iter()
        .filter_map(|l| match (&l.kind, &l.init) {
            (LocationKind::Global | LocationKind::Shared { .. }, Some(Value::Int(v))) => Some((l.name.as_str(), *v)),
            (LocationKind::Global | LocationKind::Shared { .. }, None) => Some((l.name.as_str(), 0)),
            _ => None,
        })
        .collect();
    // Values each thread stores (immediates of st and atom.exch), by location.
    let mut stored: BTreeMap<(&str, &str), Vec<i64>> = BTreeMap::new();
    let mut loads = Vec::new();
    for t in &p.threads {
        let mut writes: BTreeMap<&str, usize> = BTreeMap::new();
        for s in &t.body {
            if let StmtKind::Instr(i) = &s.kind {
                for r in tcfuzz_litmus::registers_written(i) {
                    *writes.entry(r).or_insert(0) += 1;
                }
                match i {
                    Instr::St(st) => {
                        if let Operand::Imm(v) = st.src {
                            stored.entry((st.addr.name.as_str(), t.name.as_str())).or_default().push(v);
                        }
                    }
                    Instr::Atom(a) if a.op == AtomOp::Exch => {
                        if let Operand::Imm(v) = a.a {
                            stored.entry((a.addr.name.as_str(), t.name.as_str())).or_default().push(v);
                        }
                    }
                    _ => {}
                }
            }
        }
        for s in &t.body {
            if let StmtKind::Instr(Instr::Ld(l)) = &s.kind
                && writes.get(l.dst.as_str()) == Some(&1)
                && init.contains_key(l.addr.name.as_str())
            {
                loads.push(Observed { thread: t.name.clone(), reg: l.dst.clone(), location: l.addr.name.clone() });
            }
        }
    }
    // Keep the loads of a location some other thread stores to.
    let others = |o: &Observed| -> Vec<i64> {
        stored.iter().filter(|((x, t), _)| *x == o.location && *t != o.thread).flat_map(|(_, vs)| vs.iter().copied()).collect()
    };
    loads.retain(|o| !others(o).is_empty());
    if loads.is_empty() {
        return Ok(None);
    }
    let n = u.int_in_range(1..=loads.len().min(3))?;
    let mut terms = Vec::new();
    for _ in 0..n {
        if loads.is_empty() {
            break;
        }
        let o = loads.remove(index(u, loads.len())?);
        let written = others(&o);
        // Half of the time the stale read: the initial value although another thread writes.
        let value = if chance(u, 50)? { init[o.location.as_str()] } else { written[index(u, written.len())?] };
        terms.push(Prop::Atom(Cmp {
            lhs: Term::Reg { thread: o.thread, reg: o.reg },
            eq: true,
            rhs: Term::Const(Value::Int(value)),
            span: Span::default(),
        }));
    }
    let prop = terms.into_iter().reduce(|a, b| Prop::And(Box::new(a), Box::new(b))).unwrap_or(Prop::True);
    Ok(Some(Condition { quantifier: Quantifier::Exists, prop, span: Span::default() }))
}
