//! tcgen05 patterns: the canonical synchronization patterns of PTX ISA §9.7.16.6.4 composed into
//! one pipeline, and the CTA-pair lifecycle of §9.7.16.5.

use arbitrary::Unstructured;

use super::Expect;
use super::sketch::{Sketch, thread_name};
use crate::choose::{chance, weighted};

const MMA: &str = "tcgen05.mma.cta_group::1.kind::f16";
const COMMIT: &str = "tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64";
const AFTER: &str = "tcgen05.fence::after_thread_sync";
const BEFORE: &str = "tcgen05.fence::before_thread_sync";
const LD: &str = "tcgen05.ld.sync.aligned.32x32b.x1.b32";
const ST: &str = "tcgen05.st.sync.aligned.32x32b.x1.b32";
const WAIT_LD: &str = "tcgen05.wait::ld.sync.aligned";

fn try_wait(bar: &str, parity: u32) -> String {
    format!("await mbarrier.try_wait.parity.relaxed.cluster.shared::cta.b64 p, [{bar}], {parity}")
}

fn arrive(bar: &str) -> String {
    format!("mbarrier.arrive.relaxed.cluster.shared::cta.b64 st0, [{bar}]")
}

/// Who observes the accumulator after the `mma`s.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Consumer {
    /// The issuing thread: commit, wait, `fence::after_thread_sync`, ld (§9.7.16.6.4.2 ex. 2).
    SameThread,
    /// Another warp waits on the commit's mbarrier (§9.7.16.6.4.4 ex. 2).
    OtherWarp,
    /// The issuer waits on the commit, then hands over through a second mbarrier (§9.7.16.6.4.4,
    /// the composed example).
    Composed,
}

/// Where the `cp` feeding the first `mma` runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Copy {
    None,
    /// In the issuing thread: `cp → mma` is a pipelined pair (§9.7.16.6.4.1).
    SameThread,
    /// In another warp, handed over with `fence::before_thread_sync`, an arrive, a wait and
    /// `fence::after_thread_sync` (§9.7.16.6.4.3).
    OtherWarp,
}

/// 1–3 pipelined `mma`s on one accumulator, fed by a `cp` and a generic store, observed by a
/// `tcgen05.ld`, optionally followed by an anti-dependent `tcgen05.st`.
pub(super) fn pipeline(u: &mut Unstructured<'_>) -> arbitrary::Result<(Sketch, Expect)> {
    let stages = u.int_in_range(1..=3u32)?;
    let consumer =
        weighted(u, &[(2, Consumer::SameThread), (2, Consumer::OtherWarp), (1, Consumer::Composed)])?.unwrap_or(Consumer::SameThread);
    let copy = weighted(u, &[(3, Copy::None), (1, Copy::SameThread), (1, Copy::OtherWarp)])?.unwrap_or(Copy::None);
    let generic_operand = chance(u, 30)?;
    let antidependency = chance(u, 30)?;
    let mut s = Sketch {
        arch: "PTX",
        name: "tcgen05-pipeline".into(),
        doc: format!(
            "PTX ISA §9.7.16.6.4: {stages} pipelined mma, consumer {consumer:?}, cp {copy:?}{}{}",
            if generic_operand { ", a generic store to an operand (§9.7.16.6.5)" } else { "" },
            if antidependency { ", an anti-dependent st after wait::ld (pattern 5)" } else { "" }
        ),
        init: vec![
            "d @ tmem cta 0 gpu 0 lanes 0-31 cols 0-31 = 7".into(),
            "a @ shared cta 0 gpu 0 = 1".into(),
            "b @ shared cta 0 gpu 0 = 2".into(),
            "done @ mbarrier cta 0 gpu 0 count 1".into(),
        ],
        threads: Vec::new(),
        condition: String::new(),
    };
    if copy != Copy::None {
        s.init.push("sf @ tmem cta 0 gpu 0 lanes 0-127 cols 32-63 = 0".into());
        s.init.push("s @ shared cta 0 gpu 0 = 3".into());
    }
    if copy == Copy::OtherWarp {
        s.init.push("copied @ mbarrier cta 0 gpu 0 count 1".into());
    }
    if consumer == Consumer::Composed {
        s.init.push("handoff @ mbarrier cta 0 gpu 0 count 1".into());
    }
    // The thread that runs `tcgen05.ld` on lanes 0-31 must be in a warp w with w % 4 == 0
    // (§9.7.16.5, Table 46): the consumer is warp 0, the issuer warp 1 unless it is the consumer.
    let issuer_warp = if consumer == Consumer::SameThread { 0 } else { 1 };
    let issuer = s.thread(format!("{}@warp {issuer_warp},cta 0,gpu 0", thread_name(0)));
    let reader = match consumer {
        Consumer::SameThread => issuer,
        _ => s.thread(format!("{}@warp 0,cta 0,gpu 0", thread_name(1))),
    };
    let copier = (copy == Copy::OtherWarp).then(|| {
        let n = s.threads.len();
        s.thread(format!("{}@warp 2,cta 0,gpu 0", thread_name(n)))
    });
    if let Some(k) = copier {
        s.line(k, "tcgen05.cp.cta_group::1.128x256b [sf], [s]");
        s.step(k, "copier-fence-before", BEFORE);
        s.step(k, "copier-arrive", arrive("copied"));
    }
    // The store goes to `b`, which every mma reads (`a` is not read when a cp feeds the only
    // mma): a store no mma reads needs no fence, and its fences would be redundant steps.
    if generic_operand {
        s.line(issuer, "st.shared::cta.b32 [b], 3");
        s.step(issuer, "proxy-fence", "fence.proxy.async.shared::cta");
        // With the copy in another warp, the `fence::after_thread_sync` after its wait orders
        // the mma after the store too: a second one would be redundant.
        if copy != Copy::OtherWarp {
            s.step(issuer, "issuer-fence-after-store", AFTER);
        }
    }
    match copy {
        Copy::None => {}
        Copy::SameThread => s.line(issuer, "tcgen05.cp.cta_group::1.128x256b [sf], [s]"),
        Copy::OtherWarp => {
            s.step(issuer, "issuer-waits-copy", try_wait("copied", 0));
            s.step(issuer, "issuer-fence-after-copy", AFTER);
        }
    }
    for i in 0..stages {
        let a = if i == 0 && copy != Copy::None { "sf" } else { "a" };
        s.line(issuer, format!("{MMA} [d], [{a}], [b], 1, {}", u32::from(i > 0)));
    }
    match consumer {
        Consumer::SameThread | Consumer::OtherWarp => s.step(issuer, "commit", format!("{COMMIT} [done]")),
        Consumer::Composed => {
            s.step(issuer, "commit", format!("{COMMIT} [done]"));
            s.step(issuer, "issuer-waits-commit", try_wait("done", 0));
            s.step(issuer, "issuer-fence-after-commit", AFTER);
            s.step(issuer, "issuer-fence-before-handoff", BEFORE);
            s.step(issuer, "issuer-arrives-handoff", arrive("handoff"));
        }
    }
    let observed = if consumer == Consumer::Composed { "handoff" } else { "done" };
    s.step(reader, "reader-waits", try_wait(observed, 0));
    s.step(reader, "reader-fence-after", AFTER);
    s.line(reader, format!("{LD} r0, [d]"));
    if antidependency {
        s.step(reader, "reader-waits-ld", WAIT_LD);
        s.line(reader, format!("{ST} [d], 5"));
    } else {
        s.line(reader, WAIT_LD);
    }
    let reader_name = thread_name(reader);
    s.init.push(format!("{reader_name}:r0 = 0"));
    // The spec gives an mma result no value: no expectation on whether the stale 7 is read.
    s.condition = format!("exists ({reader_name}:r0 == 7)");
    Ok((s, Expect { never: false }))
}

/// A CTA pair of cluster 0 (§9.7.16.5.1): the even CTA's warp issues a `cta_group::2` `mma`
/// and commits it multicast to both CTAs' mbarriers (`tcgen05.commit ... .multicast::cluster`,
/// mask 0b11); a warp of each CTA waits on its mbarrier (the peer so that it cannot exit before
/// the issue, Table 46: "the peer CTA should be active"), the even CTA's epilogue warp reads the
/// accumulator. With an allocation, both CTAs `alloc` and `dealloc` with `cta_group::2` and
/// meet at a cluster barrier before the `dealloc` (Table 47).
pub(super) fn cta_pair(u: &mut Unstructured<'_>) -> arbitrary::Result<(Sketch, Expect)> {
    let allocate = chance(u, 50)?;
    let relinquish = allocate && chance(u, 50)?;
    let epilogue = chance(u, 60)?;
    let mut s = Sketch {
        arch: "PTX",
        name: "cta-pair".into(),
        doc: format!(
            "PTX ISA §9.7.16.5: cta_group::2 mma and multicast commit{}{}",
            if epilogue { ", an epilogue warp reading the accumulator" } else { "" },
            if allocate { ", alloc/dealloc of the pair around a cluster barrier (Table 47)" } else { "" }
        ),
        init: vec![
            "d @ tmem cta 0 gpu 0 lanes 0-31 cols 0-31 = 7".into(),
            "a @ shared cta 0 gpu 0 = 1".into(),
            "b @ shared cta 0 gpu 0 = 2".into(),
            "empty0 @ mbarrier cta 0 gpu 0 count 1".into(),
            "empty1 @ mbarrier cta 1 gpu 0 count 1".into(),
        ],
        threads: Vec::new(),
        condition: "exists (true)".into(),
    };
    if allocate {
        s.init.push("slot0 @ shared cta 0 gpu 0 = 0".into());
        s.init.push("slot1 @ shared cta 1 gpu 0 = 0".into());
    }
    let issuer = s.thread(format!("{}@warp 0,cta 0,cluster 0,gpu 0", thread_name(0)));
    let peer = s.thread(format!("{}@warp 0,cta 1,cluster 0,gpu 0", thread_name(1)));
    let reader = epilogue.then(|| s.thread(format!("{}@warp 4,cta 0,cluster 0,gpu 0", thread_name(2))));
    if allocate {
        for (t, slot) in [(issuer, "slot0"), (peer, "slot1")] {
            s.line(t, format!("tcgen05.alloc.cta_group::2.sync.aligned.shared::cta.b32 [{slot}], 32"));
            s.line(t, format!("ld.shared::cta.b32 r9, [{slot}]"));
            if relinquish {
                s.line(t, "tcgen05.relinquish_alloc_permit.cta_group::2.sync.aligned");
            }
        }
    }
    s.line(issuer, "tcgen05.mma.cta_group::2.kind::f16 [d], [a], [b], 1, 0");
    s.step(
        issuer,
        "multicast-commit",
        "tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64 [empty0], 3",
    );
    // Without the cluster barrier, only this wait keeps the peer CTA alive until the issue.
    if allocate {
        s.line(peer, try_wait("empty1", 0));
    } else {
        s.step(peer, "peer-waits-commit", try_wait("empty1", 0));
    }
    if let Some(r) = reader {
        s.step(r, "epilogue-waits", try_wait("empty0", 0));
        s.step(r, "epilogue-fence-after", AFTER);
        s.line(r, format!("{LD} r0, [d]"));
        s.line(r, WAIT_LD);
    }
    if allocate {
        let mut all = vec![issuer, peer];
        all.extend(reader);
        for &t in &all {
            if t == peer {
                s.step(t, "peer-arrives-before-dealloc", "barrier.cluster.arrive");
            } else {
                s.line(t, "barrier.cluster.arrive");
            }
            s.line(t, "barrier.cluster.wait");
        }
        s.step(issuer, "dealloc-before-exit", "tcgen05.dealloc.cta_group::2.sync.aligned.b32 r9, 32");
        s.line(peer, "tcgen05.dealloc.cta_group::2.sync.aligned.b32 r9, 32");
    }
    Ok((s, Expect { never: false }))
}
