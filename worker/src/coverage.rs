//! Coverage features of one checked program (issue 22 item 3): what a campaign exercised, and
//! what the coverage-guided family steers toward. A feature is a short string:
//!
//! - `op:<instruction>` — each instruction kind with its qualifiers (`op:ld.acquire.gpu`,
//!   `op:tcgen05.commit.cta_group::2.multicast`, `op:tile.st.release.device`);
//! - `pair:<a>/<b>@<where>` — two accesses of one location by different threads, one of them a
//!   write (accesses that may communicate or race), by their strength and scope and how far apart
//!   the threads run (`pair:acquire.gpu/release.gpu@other-cta`); read off the program, not an
//!   execution;
//! - `<model>:…` — the verdict under each model: the condition's observation (`ptx:obs:never`),
//!   each race kind with its accesses and the rule that would have ordered them
//!   (`ptx:race:tmem:write-read`, `ptx:race-rule:wait-ld`), `hang`, each misuse rule, the loop
//!   bound, a caveat, and the shape of the outcome set: final states and executions in
//!   power-of-two buckets (`ptx:states:4-7`, `ptx:executions:16-31`, capped at `16+` and `1024+`);
//! - `weak-outcome` — PTX allows a final state SC does not (both were checked);
//! - `origin:<family>` / `origin:<pattern>` — which generator made it.
//!
//! Not yet: which ordering rule of the model justified each edge of an execution that mattered
//! (the checker's verdict does not say which rule ordered what); races and their repair rules are
//! the nearest thing recorded.

use std::collections::BTreeSet;

use tcfuzz_checker::{ModelKind, Observation, Verdict};
use tcfuzz_generator::generate::Origin;
use tcfuzz_litmus::{
    AccessProxy, Barrier, CtaGroup, Fence, Instr, Mbarrier, Placement, Program, Prop, Scope, Sem, StateSpace, StmtKind, Tcgen05, TileOp,
    TileOrdering, TileScope,
};

/// Every feature of `program`, made as `origin` says, checked with these verdicts.
pub fn features(program: &Program, origin: &Origin, verdicts: &[(ModelKind, Verdict)]) -> Vec<String> {
    let mut out = BTreeSet::new();
    for s in program.threads.iter().flat_map(|t| &t.body) {
        if let StmtKind::Instr(i) = &s.kind {
            out.insert(format!("op:{}", mnemonic(i)));
        }
    }
    pairs(program, &mut out);
    let trivial = program.condition.prop == Prop::True;
    for (model, v) in verdicts {
        verdict_features(model.name(), v, trivial, &mut out);
    }
    let sc = verdicts.iter().find(|(m, _)| *m == ModelKind::Sc).map(|(_, v)| v.observed_states());
    let ptx = verdicts.iter().find(|(m, _)| *m == ModelKind::Ptx).map(|(_, v)| v.observed_states());
    if let (Some(sc), Some(ptx)) = (sc, ptx)
        && ptx.keys().any(|s| !sc.contains_key(s))
    {
        out.insert("weak-outcome".to_string());
    }
    out.insert(match origin {
        Origin::Random { family } => format!("origin:random-{family}"),
        Origin::Pattern { pattern, .. } => format!("origin:pattern-{pattern}"),
        Origin::Mutant { pattern, .. } => format!("origin:mutant-{pattern}"),
        Origin::Coverage { .. } => "origin:coverage".to_string(),
    });
    out.into_iter().collect()
}

fn verdict_features(model: &str, v: &Verdict, trivial: bool, out: &mut BTreeSet<String>) {
    if !trivial {
        let obs = match v.condition.observation {
            Observation::Never => "never",
            Observation::Sometimes => "sometimes",
            Observation::Always => "always",
        };
        out.insert(format!("{model}:obs:{obs}"));
    }
    for r in &v.races {
        out.insert(format!("{model}:race:{}:{}-{}", r.kind.name(), r.first.access, r.second.access));
        out.insert(format!("{model}:race-rule:{}", rule_class(&r.rule)));
    }
    if v.stats.hangs > 0 {
        out.insert(format!("{model}:hang"));
    }
    for m in &v.misuse {
        out.insert(format!("{model}:misuse:{}", m.rule.name()));
    }
    if !v.blocked_threads.is_empty() {
        out.insert(format!("{model}:loop-bound"));
    }
    if v.stats.assume_failed > 0 {
        out.insert(format!("{model}:assume-failed"));
    }
    if !v.caveats.is_empty() {
        out.insert(format!("{model}:caveat"));
    }
    out.insert(format!("{model}:states:{}", bucket(v.observed_states().len() as u64, 16)));
    out.insert(format!("{model}:executions:{}", bucket(v.stats.complete + v.stats.blocked, 1024)));
}

/// `0`, `1`, `2-3`, `4-7`, ... up to `cap+` (a power of two): AFL's hit-count buckets. The cap
/// keeps larger programs from being new coverage for their size alone (the coverage-guided
/// family would then drift toward programs that are only slower to check).
fn bucket(n: u64, cap: u64) -> String {
    match n {
        0 => "0".to_string(),
        1 => "1".to_string(),
        n if n >= cap => format!("{cap}+"),
        n => {
            let lo = 1u64 << (63 - n.leading_zeros());
            format!("{lo}-{}", lo.saturating_mul(2) - 1)
        }
    }
}

/// The rule a race's repair hint names, in a word (the checker's `Race::rule` texts).
pub(crate) fn rule_class(rule: &str) -> &'static str {
    if rule.contains("bulk copy") {
        "bulk-copy-wait"
    } else if rule.contains("wait::ld after") {
        "wait-ld"
    } else if rule.contains("wait::st after") {
        "wait-st"
    } else if rule.contains("tcgen05.commit") {
        "commit"
    } else if rule.contains("fence.proxy.async") {
        "proxy-fence"
    } else if rule.contains("happens-before") {
        "tile-happens-before"
    } else if rule.contains("causality") {
        "causality"
    } else {
        "other"
    }
}

fn sem(s: Option<Sem>) -> &'static str {
    match s {
        None | Some(Sem::Weak) => "weak",
        Some(Sem::Volatile) => "volatile",
        Some(Sem::Relaxed) => "relaxed",
        Some(Sem::Acquire) => "acquire",
        Some(Sem::Release) => "release",
        Some(Sem::AcqRel) => "acq_rel",
    }
}

fn scope(s: Option<Scope>) -> &'static str {
    match s {
        None => "",
        Some(Scope::Cta) => ".cta",
        Some(Scope::Cluster) => ".cluster",
        Some(Scope::Gpu) => ".gpu",
        Some(Scope::Sys) => ".sys",
    }
}

fn space(s: Option<StateSpace>) -> &'static str {
    match s {
        None | Some(StateSpace::Global) => "",
        Some(StateSpace::Shared | StateSpace::SharedCta) => ".shared",
        Some(StateSpace::SharedCluster) => ".shared::cluster",
    }
}

fn group(g: CtaGroup) -> &'static str {
    match g {
        CtaGroup::One => "cta_group::1",
        CtaGroup::Two => "cta_group::2",
    }
}

fn tile(o: TileOrdering, s: Option<TileScope>) -> String {
    let o = match o {
        TileOrdering::Weak => "weak",
        TileOrdering::Relaxed => "relaxed",
        TileOrdering::Acquire => "acquire",
        TileOrdering::Release => "release",
        TileOrdering::AcqRel => "acq_rel",
    };
    let s = match s {
        None => "",
        Some(TileScope::TileBlock) => ".tile_block",
        Some(TileScope::Device) => ".device",
        Some(TileScope::Sys) => ".sys",
    };
    format!("{o}{s}")
}

/// An instruction's kind and qualifiers, without operands.
pub fn mnemonic(i: &Instr) -> String {
    match i {
        Instr::Ld(l) => {
            let op = match l.proxy {
                AccessProxy::Generic => "ld",
                AccessProxy::Texture => "tld",
                AccessProxy::Surface => "suld",
                AccessProxy::Constant => "cold",
            };
            format!("{op}.{}{}{}", sem(l.sem), scope(l.scope), space(l.space))
        }
        Instr::St(s) => {
            let op = if s.proxy == AccessProxy::Surface { "sust" } else { "st" };
            format!("{op}.{}{}{}", sem(s.sem), scope(s.scope), space(s.space))
        }
        Instr::Atom(a) => {
            format!("atom.{}{}{}.{:?}", sem(Some(a.effective_sem())), scope(Some(a.effective_scope())), space(a.space), a.op).to_lowercase()
        }
        Instr::Red(r) => {
            format!("red.{}{}{}.{:?}", sem(Some(r.effective_sem())), scope(Some(r.effective_scope())), space(r.space), r.op).to_lowercase()
        }
        Instr::Fence(f) => match f {
            Fence::Sc(s) => format!("fence.sc{}", scope(Some(*s))),
            Fence::AcqRel(s) => format!("fence.acq_rel{}", scope(Some(*s))),
            Fence::Membar(s) => format!("membar{}", scope(Some(*s))),
            Fence::Proxy(p) => format!("fence.proxy.{p:?}").to_lowercase(),
            Fence::ProxyAsync(s) => format!("fence.proxy.async{}", space(*s)),
        },
        Instr::Barrier(b) => match b {
            Barrier::Sync { operands, .. } => format!("bar.sync/{}", operands.len()),
            Barrier::Arrive { .. } => "bar.arrive".to_string(),
            Barrier::ClusterArrive { sem: s, .. } => format!("barrier.cluster.arrive.{}", if s.is_some() { sem(*s) } else { "release" }),
            Barrier::ClusterWait { .. } => "barrier.cluster.wait".to_string(),
        },
        Instr::Mbarrier(m) => match m {
            Mbarrier::Init { .. } => "mbarrier.init".to_string(),
            Mbarrier::Arrive(a) => {
                format!(
                    "mbarrier.arrive{}.{}{}",
                    if a.expect_tx { ".expect_tx" } else { "" },
                    sem(a.sem.or(Some(Sem::Release))),
                    scope(a.scope)
                )
            }
            Mbarrier::ExpectTx { .. } => "mbarrier.expect_tx".to_string(),
            Mbarrier::Wait(w) => format!(
                "{}mbarrier.{}{}.{}{}",
                if w.blocking { "await." } else { "" },
                if w.test { "test_wait" } else { "try_wait" },
                if w.parity { ".parity" } else { "" },
                sem(w.sem.or(Some(Sem::Acquire))),
                scope(w.scope)
            ),
        },
        Instr::CpAsyncBulk(_) => "cp.async.bulk".to_string(),
        Instr::Tcgen05(t) => match t {
            Tcgen05::Alloc { group: g, .. } => format!("tcgen05.alloc.{}", group(*g)),
            Tcgen05::Dealloc { group: g, .. } => format!("tcgen05.dealloc.{}", group(*g)),
            Tcgen05::RelinquishAllocPermit { group: g } => format!("tcgen05.relinquish_alloc_permit.{}", group(*g)),
            Tcgen05::Mma { group: g, .. } => format!("tcgen05.mma.{}", group(*g)),
            Tcgen05::Cp { group: g, shape, .. } => format!("tcgen05.cp.{}.{shape:?}", group(*g)).to_lowercase(),
            Tcgen05::Shift { group: g, .. } => format!("tcgen05.shift.{}", group(*g)),
            Tcgen05::Ld { .. } => "tcgen05.ld".to_string(),
            Tcgen05::St { .. } => "tcgen05.st".to_string(),
            Tcgen05::Commit { group: g, multicast, .. } => {
                format!("tcgen05.commit.{}{}", group(*g), if multicast.is_some() { ".multicast" } else { "" })
            }
            Tcgen05::Wait { st } => format!("tcgen05.wait::{}", if *st { "st" } else { "ld" }),
            Tcgen05::Fence { after } => format!("tcgen05.fence::{}", if *after { "after_thread_sync" } else { "before_thread_sync" }),
        },
        Instr::Tile(op) => match op {
            TileOp::Load { ordering, scope, deps, .. } => format!("tile.ld.{}{}", tile(*ordering, *scope), tokens(deps.len())),
            TileOp::Store { ordering, scope, deps, .. } => format!("tile.st.{}{}", tile(*ordering, *scope), tokens(deps.len())),
            TileOp::Atomic { ordering, scope, op, deps, .. } => {
                format!("tile.atom.{}.{op:?}{}", tile(*ordering, *scope), tokens(deps.len())).to_lowercase()
            }
            TileOp::MakeToken { .. } => "tile.make_token".to_string(),
            TileOp::JoinTokens { .. } => "tile.join_tokens".to_string(),
        },
        Instr::Mov { .. } => "mov".to_string(),
        Instr::Add { .. } => "add".to_string(),
        Instr::Branch { .. } => "branch".to_string(),
        Instr::Goto { .. } => "goto".to_string(),
        Instr::Assume { cmp, .. } => format!("assume.{}", cmp.name()),
    }
}

fn tokens(n: usize) -> &'static str {
    if n == 0 { "" } else { "+token" }
}

/// A memory access of a thread: location, whether it writes, its strength and scope.
struct Access {
    thread: usize,
    location: String,
    writes: bool,
    strength: String,
}

fn access(thread: usize, i: &Instr) -> Option<Access> {
    let (location, writes, strength) = match i {
        Instr::Ld(l) => (l.addr.name.clone(), false, format!("{}{}", sem(l.sem), scope(l.scope))),
        Instr::St(s) => (s.addr.name.clone(), true, format!("{}{}", sem(s.sem), scope(s.scope))),
        Instr::Atom(a) => (a.addr.name.clone(), true, format!("atom.{}{}", sem(Some(a.effective_sem())), scope(Some(a.effective_scope())))),
        Instr::Red(r) => (r.addr.name.clone(), true, format!("red.{}{}", sem(Some(r.effective_sem())), scope(Some(r.effective_scope())))),
        Instr::Tile(TileOp::Load { ordering, scope, addr, .. }) => (addr.name.clone(), false, tile(*ordering, *scope)),
        Instr::Tile(TileOp::Store { ordering, scope, addr, .. }) => (addr.name.clone(), true, tile(*ordering, *scope)),
        Instr::Tile(TileOp::Atomic { ordering, scope, addr, .. }) => (addr.name.clone(), true, format!("atom.{}", tile(*ordering, *scope))),
        _ => return None,
    };
    Some(Access { thread, location, writes, strength })
}

/// How far apart two threads run.
fn distance(a: &Placement, b: &Placement) -> &'static str {
    match (a, b) {
        (Placement::Ptx { gpu: g1, cta: c1, warp: w1, .. }, Placement::Ptx { gpu: g2, cta: c2, warp: w2, .. }) => {
            if g1 != g2 {
                "other-gpu"
            } else if c1 == c2 {
                if w1.unwrap_or(0) == w2.unwrap_or(0) { "same-warp" } else { "same-cta" }
            } else if a.effective_cluster() == b.effective_cluster() {
                "same-cluster"
            } else {
                "other-cta"
            }
        }
        (Placement::TileBlock { dev: d1, .. }, Placement::TileBlock { dev: d2, .. }) => {
            if d1 == d2 {
                "same-device"
            } else {
                "other-device"
            }
        }
        _ => "mixed",
    }
}

fn pairs(program: &Program, out: &mut BTreeSet<String>) {
    let accesses: Vec<Access> = program
        .threads
        .iter()
        .enumerate()
        .flat_map(|(t, th)| {
            th.body.iter().filter_map(move |s| match &s.kind {
                StmtKind::Instr(i) => access(t, i),
                StmtKind::Label(_) => None,
            })
        })
        .collect();
    for (k, a) in accesses.iter().enumerate() {
        for b in &accesses[k + 1..] {
            if a.thread == b.thread || a.location != b.location || !(a.writes || b.writes) {
                continue;
            }
            let (x, y) = if a.strength <= b.strength { (&a.strength, &b.strength) } else { (&b.strength, &a.strength) };
            let d = distance(&program.threads[a.thread].placement, &program.threads[b.thread].placement);
            out.insert(format!("pair:{x}/{y}@{d}"));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tcfuzz_checker::{Options, check};
    use tcfuzz_generator::random::Family;

    const MP: &str = "PTX MP\n{ x = 0; f = 0; }\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n st.weak x, 1 | ld.acquire.gpu r0, f ;\n st.release.gpu f, 1 | ld.weak r1, x ;\nexists (P1:r0 == 1 /\\ P1:r1 == 0)\n";

    #[test]
    fn message_passing_has_its_instructions_pairs_and_verdict() {
        let p = tcfuzz_litmus::parse(MP).unwrap();
        let opts = Options { witnesses: false, ..Options::default() };
        let verdicts =
            vec![(ModelKind::Sc, check(&p, ModelKind::Sc, &opts).unwrap()), (ModelKind::Ptx, check(&p, ModelKind::Ptx, &opts).unwrap())];
        let f = features(&p, &Origin::Random { family: Family::Ptx }, &verdicts);
        for want in [
            "op:st.weak",
            "op:st.release.gpu",
            "op:ld.acquire.gpu",
            "pair:acquire.gpu/release.gpu@other-cta",
            "pair:weak/weak@other-cta",
            "ptx:obs:never",
            "sc:obs:never",
            "ptx:states:2-3",
            // The weak payload load races with the store where the flag was not seen.
            "ptx:race:data:write-read",
            "ptx:race-rule:causality",
            "origin:random-ptx",
        ] {
            assert!(f.iter().any(|x| x == want), "{want} missing from {f:?}");
        }
        assert!(!f.iter().any(|x| x == "weak-outcome" || x.starts_with("sc:race")), "{f:?}");
    }

    #[test]
    fn buckets_are_powers_of_two() {
        assert_eq!(bucket(0, 16), "0");
        assert_eq!(bucket(1, 16), "1");
        assert_eq!(bucket(3, 16), "2-3");
        assert_eq!(bucket(4, 16), "4-7");
        assert_eq!(bucket(1000, 1024), "512-1023");
        assert_eq!(bucket(1024, 1024), "1024+");
        assert_eq!(bucket(99, 16), "16+");
    }
}
