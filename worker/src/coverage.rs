//! Coverage features of one checked program (issue 22 item 3): what a campaign exercised, and
//! what the coverage-guided family steers toward. A feature is a short string:
//!
//! - `op:<instruction>` — each instruction kind with its qualifiers (`op:ld.acquire.gpu`,
//!   `op:tcgen05.commit.cta_group::2.multicast`, `op:tile.st.release.device`);
//! - `pair:<a>/<b>@<where>[+alias]` — two accesses of one piece of memory by different threads,
//!   one of them a write (accesses that may communicate or race); read off the program, not an
//!   execution. Aliases are resolved to the memory behind them, and `+alias` marks sides that use
//!   different virtual addresses of it (only `fence.proxy.alias` orders those). A side is
//!   `[proxy:][atom.|red.]sem[.narrow]`: the proxy when it is not generic (`texture:`,
//!   `surface:`, `constant:`, `async:`), the strength without its scope, and `.narrow` when its
//!   scope does not include the other thread (morally strong is what scopes decide, PTX ISA
//!   §8.7). `<where>` is the narrowest scope level holding both threads: `same-cta`,
//!   `same-cluster`, `other-cta`, `other-gpu`; `same-block`, `same-device`, `other-device` for tile
//!   blocks; `mixed`. (`pair:acquire/release@other-cta`, `pair:relaxed.narrow/relaxed@other-cta`,
//!   `pair:texture:weak/weak@same-cta`, `pair:weak/weak@other-cta+alias`; see [`pairs`]);
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

mod pairs;

use std::collections::BTreeSet;

use tcfuzz_checker::{ModelKind, Observation, Verdict};
use tcfuzz_generator::generate::Origin;
use tcfuzz_litmus::{
    AccessProxy, Barrier, CtaGroup, Fence, Instr, Mbarrier, Program, Prop, Scope, Sem, StateSpace, StmtKind, Tcgen05, TileOp, TileOrdering,
    TileScope,
};

/// Every feature of `program`, made as `origin` says, checked with these verdicts.
pub fn features(program: &Program, origin: &Origin, verdicts: &[(ModelKind, Verdict)]) -> Vec<String> {
    let mut out = BTreeSet::new();
    for s in program.threads.iter().flat_map(|t| &t.body) {
        if let StmtKind::Instr(i) = &s.kind {
            out.insert(format!("op:{}", mnemonic(i)));
        }
    }
    pairs::pairs(program, &mut out);
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
    } else if rule.contains("fence.proxy.") {
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
            // Proxy fences have no operands: their printed form is their PTX spelling
            // (PTX ISA §9.7.13.4: `fence.proxy.alias`, `fence.proxy.async.global`, ...).
            Fence::Proxy(_) | Fence::ProxyAsync(_) => i.to_string(),
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
            "pair:acquire/release@other-cta",
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

    /// The features of `src` read off the program alone (no verdicts).
    fn static_features(src: &str) -> Vec<String> {
        let p = tcfuzz_litmus::parse(src).unwrap();
        tcfuzz_litmus::validate(&p).unwrap();
        features(&p, &Origin::Random { family: Family::Ptx }, &[])
    }

    fn pair_features(src: &str) -> Vec<String> {
        static_features(src).into_iter().filter(|f| f.starts_with("pair:")).collect()
    }

    #[test]
    fn message_passing_read_off_the_program_is_exactly_its_instructions_and_pairs() {
        assert_eq!(
            static_features(MP),
            [
                "op:ld.acquire.gpu",
                "op:ld.weak",
                "op:st.release.gpu",
                "op:st.weak",
                "origin:random-ptx",
                "pair:acquire/release@other-cta",
                "pair:weak/weak@other-cta",
            ]
        );
    }

    #[test]
    fn a_generic_alias_pairs_with_its_location_and_the_alias_fence_has_its_ptx_name() {
        // P0 and P1 run in one CTA (different warps: no longer a feature of its own); P2 in
        // another CTA reads the flag at `.cta` scope, as P0 writes it: neither scope includes
        // the other thread.
        let src = "PTX alias-mp\n{ x = 0; f = 0; y @ generic aliases x; }\n P0@warp 0,cta 0,gpu 0 | P1@warp 1,cta 0,gpu 0 | P2@cta 1,gpu 0 ;\n st.weak x, 1 | ld.acquire.gpu r0, f | ld.relaxed.cta r2, f ;\n fence.proxy.alias | ld.weak r1, y | ;\n st.release.cta f, 1 | | ;\nexists (P1:r0 == 1 /\\ P1:r1 == 0)\n";
        assert_eq!(
            static_features(src),
            [
                "op:fence.proxy.alias",
                "op:ld.acquire.gpu",
                "op:ld.relaxed.cta",
                "op:ld.weak",
                "op:st.release.cta",
                "op:st.weak",
                "origin:random-ptx",
                "pair:acquire/release@same-cta",
                "pair:relaxed.narrow/release.narrow@other-cta",
                "pair:weak/weak@same-cta+alias",
            ]
        );
    }

    #[test]
    fn a_texture_alias_pairs_through_the_texture_proxy_on_the_same_virtual_address() {
        // `t` views `x`'s virtual address through the texture proxy (no `+alias`); the `.cluster`
        // store includes the other CTA of its cluster, so it is not narrow.
        let src = "PTX tex\n{ x = 0; t @ texture aliases x; }\n P0@cta 0,cluster 0,gpu 0 | P1@cta 1,cluster 0,gpu 0 ;\n st.relaxed.cluster x, 1 | tld.weak r0, t ;\nexists (P1:r0 == 0)\n";
        assert_eq!(
            static_features(src),
            ["op:st.relaxed.cluster", "op:tld.weak", "origin:random-ptx", "pair:relaxed/texture:weak@same-cluster"]
        );
    }

    #[test]
    fn scopes_wider_than_the_distance_are_one_feature() {
        let pairs = |scope: &str, placement: &str| {
            pair_features(&format!(
                "PTX s\n{{ x = 0; }}\n P0@cta 0,gpu 0 | {placement} ;\n st.relaxed.{scope} x, 1 | ld.relaxed.{scope} r0, x ;\nexists (P1:r0 == 0)\n"
            ))
        };
        assert_eq!(pairs("gpu", "P1@cta 0,gpu 0"), ["pair:relaxed/relaxed@same-cta"]);
        assert_eq!(pairs("sys", "P1@warp 1,cta 0,gpu 0"), ["pair:relaxed/relaxed@same-cta"]);
        assert_eq!(pairs("gpu", "P1@cta 1,gpu 0"), ["pair:relaxed/relaxed@other-cta"]);
        assert_eq!(pairs("gpu", "P1@cta 0,gpu 1"), ["pair:relaxed.narrow/relaxed.narrow@other-gpu"]);
        assert_eq!(pairs("sys", "P1@cta 0,gpu 1"), ["pair:relaxed/relaxed@other-gpu"]);
    }

    #[test]
    fn a_bulk_copy_writes_its_destination_through_the_async_proxy() {
        let src = include_str!("../../examples/mbarrier/bulk-copy-source-proxy-fence.litmus");
        // The copy's read of `g` is in P0, as is the store to `g`: only its write of `s` pairs.
        assert_eq!(pair_features(src), ["pair:async:weak/weak@same-cta"]);
    }

    #[test]
    fn tile_blocks_pair_by_device_with_tile_block_scope_narrow() {
        let src = "TileIR mp\n{ x = [0, 0]; f = [0]; }\nP0@tlb 0, dev 0 {\n  <t1> = st.relaxed.device x, [1, 2];\n  st.release.device f, [1], <t1>;\n}\nP1@tlb 1, dev 0 {\n  rf, <t2> = ld.acquire.device f;\n  rx = ld.relaxed.tile_block x[1, 0], <t2>;\n}\nexists (1:rf == [1] /\\ 1:rx != [2, 1])\n";
        assert_eq!(pair_features(src), ["pair:acquire/release@same-device", "pair:relaxed/relaxed.narrow@same-device"]);
    }

    #[test]
    fn proxy_fences_are_named_as_ptx_spells_them() {
        let names: Vec<String> =
            ["fence.proxy.alias", "fence.proxy.texture", "fence.proxy.async", "fence.proxy.async.global", "fence.proxy.async.shared::cta"]
                .iter()
                .map(|f| {
                    let p = tcfuzz_litmus::parse(&format!("PTX f\n{{ x = 0; }}\n P0@cta 0,gpu 0 ;\n {f} ;\nexists (true)\n")).unwrap();
                    let StmtKind::Instr(i) = &p.threads[0].body[0].kind else { panic!("{f} is not an instruction") };
                    mnemonic(i)
                })
                .collect();
        assert_eq!(
            names,
            ["fence.proxy.alias", "fence.proxy.texture", "fence.proxy.async", "fence.proxy.async.global", "fence.proxy.async.shared::cta"]
        );
    }

    #[test]
    fn a_surface_or_generic_alias_race_is_repaired_by_a_proxy_fence() {
        // The checker's hints name fence.proxy.surface and fence.proxy.alias (PTX ISA §8.9.5,
        // §8.6); both are the proxy-fence class, as fence.proxy.async is.
        for (kind, read) in [("surface", "suld.weak r0, a"), ("generic", "ld.weak r0, a")] {
            let src = format!(
                "PTX t\n{{ x = 0; a @ {kind} aliases x; }}\n P0@cta 0,gpu 0 | P1@cta 0,gpu 0 ;\n st.weak x, 1 | bar.sync 0 ;\n bar.sync 0 | {read} ;\nexists (P1:r0 == 0)\n"
            );
            let p = tcfuzz_litmus::parse(&src).unwrap_or_else(|e| panic!("{kind}: {e}"));
            let v =
                tcfuzz_checker::check(&p, ModelKind::Ptx, &tcfuzz_checker::Options::default()).unwrap_or_else(|e| panic!("{kind}: {e}"));
            assert_eq!(v.races.len(), 1, "{kind}: {v}");
            assert_eq!(rule_class(&v.races[0].rule), "proxy-fence", "{kind}: {}", v.races[0].rule);
        }
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
