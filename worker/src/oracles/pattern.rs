//! `pattern-broken` and `sync-redundant` (DESIGN §4): a program built only from the spec's
//! canonical patterns must be free of races, hangs and misuse (and its condition Never where the
//! spec decides it); a mutant with one needed step removed or weakened must not be.

use std::collections::BTreeSet;

use tcfuzz_checker::{ModelKind, Observation, Verdict};
use tcfuzz_generator::generate::Origin;

use super::Found;
use crate::finding::{Kind, Recheck, Side};

/// Every problem of a verdict, without names or positions: `race tmem (wait-ld)`, `hang`,
/// `misuse peer-cta-exited`, `outcome sometimes`, `loop bound`.
pub(crate) fn problems(v: &Verdict, never: bool) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for r in &v.races {
        out.insert(format!("race {} ({})", r.kind.name(), crate::coverage::rule_class(&r.rule)));
    }
    if v.stats.hangs > 0 {
        out.insert("hang".to_string());
    }
    for m in &v.misuse {
        out.insert(format!("misuse {}", m.rule.name()));
    }
    if never && v.condition.observation != Observation::Never {
        out.insert(format!("outcome {:?}", v.condition.observation).to_lowercase());
    }
    if !v.blocked_threads.is_empty() {
        out.insert("loop bound".to_string());
    }
    out
}

/// The finding of a pattern program or a mutant judged under `model`, if any.
pub(crate) fn judge(origin: &Origin, model: ModelKind, v: &Verdict) -> Option<Found> {
    match origin {
        Origin::Pattern { pattern, expect } => {
            let found = problems(v, expect.never);
            if found.is_empty() {
                return None;
            }
            let problems: Vec<String> = found.into_iter().collect();
            Some(Found {
                kind: Kind::PatternBroken,
                signature: format!("{pattern}: {}", problems.join("; ")),
                summary: format!("a {pattern} program built from canonical patterns: {}", problems.join("; ")),
                sides: [
                    Side { name: "spec".into(), verdict: expected(expect.never) },
                    Side { name: model.name().into(), verdict: v.to_string() },
                ],
                recheck: Recheck { kind: Kind::PatternBroken, model: Some(model), pattern: Some(*pattern), never: expect.never },
            })
        }
        Origin::Mutant { pattern, expect, mutation } => {
            if !problems(v, expect.never).is_empty() {
                return None;
            }
            Some(Found {
                kind: Kind::SyncRedundant,
                signature: format!("{pattern}: {} {}", mutation.role, mutation.kind()),
                summary: format!("still race-free, hang-free and misuse-free after {mutation}"),
                sides: [
                    Side { name: "spec".into(), verdict: format!("the step is needed: {mutation}") },
                    Side { name: model.name().into(), verdict: v.to_string() },
                ],
                recheck: Recheck { kind: Kind::SyncRedundant, model: Some(model), pattern: Some(*pattern), never: expect.never },
            })
        }
        _ => None,
    }
}

fn expected(never: bool) -> String {
    if never { "no race, no hang, no misuse; the condition is Never".into() } else { "no race, no hang, no misuse".into() }
}

/// The signature of a pattern-broken finding on another program (for minimization).
pub(crate) fn resign(pattern: &str, v: &Verdict, never: bool) -> Option<String> {
    let found = problems(v, never);
    (!found.is_empty()).then(|| format!("{pattern}: {}", found.into_iter().collect::<Vec<_>>().join("; ")))
}
