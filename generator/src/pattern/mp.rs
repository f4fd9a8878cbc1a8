//! Message passing through generic memory (PTX ISA §8.8) and through an mbarrier (§9.7.13.15).

use arbitrary::Unstructured;

use super::Expect;
use super::sketch::{Sketch, thread_name};
use crate::choose::{chance, weighted};

/// Where the two threads run, and the narrowest scope that holds both (PTX ISA §8.5).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Relation {
    /// Two warps of one CTA: `.cta`.
    SameCta,
    /// Two CTAs of one cluster: `.cluster`.
    SameCluster,
    /// Two CTAs of a launch without clusters (each CTA its own cluster): `.gpu`.
    DifferentCtas,
    /// Two GPUs: `.sys`.
    DifferentGpus,
}

const SCOPES: [&str; 4] = ["cta", "cluster", "gpu", "sys"];

impl Relation {
    /// The index in [`SCOPES`] of the narrowest scope holding both threads.
    fn needed(self) -> usize {
        match self {
            Relation::SameCta => 0,
            Relation::SameCluster => 1,
            Relation::DifferentCtas => 2,
            Relation::DifferentGpus => 3,
        }
    }

    fn placements(self) -> [&'static str; 2] {
        match self {
            Relation::SameCta => ["warp 0,cta 0,gpu 0", "warp 1,cta 0,gpu 0"],
            Relation::SameCluster => ["cta 0,cluster 0,gpu 0", "cta 1,cluster 0,gpu 0"],
            Relation::DifferentCtas => ["cta 0,gpu 0", "cta 1,gpu 0"],
            Relation::DifferentGpus => ["cta 0,gpu 0", "cta 0,gpu 1"],
        }
    }
}

/// How the producer releases and the consumer acquires.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mechanism {
    /// `st.release` / `ld.acquire`.
    ReleaseAcquire,
    /// `red.release.add` / `ld.acquire`.
    Reduction,
    /// `fence.acq_rel; st.relaxed` / `ld.relaxed; fence.acq_rel` (§8.8, fence-based patterns).
    Fences,
}

/// A payload of 1–2 locations, a flag, and one of the release/acquire mechanisms at a scope that
/// holds both threads. The payload is either relaxed at that scope (race-free whatever the
/// consumer reads) or weak, with the consumer's `assume.eq` on the flag (GenMC's await idiom:
/// only the executions where it saw the flag count).
pub(super) fn message_passing(u: &mut Unstructured<'_>) -> arbitrary::Result<(Sketch, Expect)> {
    let relation =
        weighted(u, &[(3, Relation::SameCta), (3, Relation::SameCluster), (3, Relation::DifferentCtas), (1, Relation::DifferentGpus)])?
            .unwrap_or(Relation::SameCta);
    let mechanism = weighted(u, &[(3, Mechanism::ReleaseAcquire), (1, Mechanism::Reduction), (2, Mechanism::Fences)])?
        .unwrap_or(Mechanism::ReleaseAcquire);
    let needed = relation.needed();
    // Now and then a wider scope than needed: still correct.
    let used = if needed < 3 && chance(u, 25)? { needed + 1 } else { needed };
    let scope = SCOPES[used];
    // The scope one below what is needed: a weakening that must break the pattern.
    let narrower = needed.checked_sub(1).map(|i| SCOPES[i]);
    let payloads = u.int_in_range(1..=2usize)?;
    let weak_payload = chance(u, 40)?;
    let [p0, p1] = relation.placements();
    let mut s = Sketch {
        arch: "PTX",
        name: "message-passing".into(),
        doc: format!("PTX ISA §8.8 message passing, {mechanism:?} at .{scope}, threads {p0} / {p1}"),
        init: Vec::new(),
        threads: Vec::new(),
        condition: String::new(),
    };
    let names = ["x", "y"];
    for (i, x) in names.iter().take(payloads).enumerate() {
        s.init.push(format!("{x} = 0"));
        s.init.push(format!("P1:r{} = 0", i + 1));
    }
    s.init.push("f = 0".into());
    s.init.push("P1:r0 = 0".into());
    let producer = s.thread(format!("{}@{p0}", thread_name(0)));
    let consumer = s.thread(format!("{}@{p1}", thread_name(1)));
    for (i, x) in names.iter().take(payloads).enumerate() {
        let v = i + 1;
        if weak_payload {
            s.line(producer, format!("st.weak {x}, {v}"));
        } else {
            s.line(producer, format!("st.relaxed.{scope} {x}, {v}"));
        }
    }
    match mechanism {
        Mechanism::ReleaseAcquire => {
            s.weaken_only(
                producer,
                "producer-release",
                format!("st.release.{scope} f, 1"),
                "release→relaxed",
                format!("st.relaxed.{scope} f, 1"),
            );
            if let Some(n) = narrower {
                // A second, scope-only weakening of the same store would be a second step on one
                // line; the scope is weakened on the consumer side instead.
                s.weaken_only(
                    consumer,
                    "consumer-acquire-scope",
                    format!("ld.acquire.{scope} r0, f"),
                    "scope narrowed",
                    format!("ld.acquire.{n} r0, f"),
                );
            } else {
                s.weaken_only(
                    consumer,
                    "consumer-acquire",
                    format!("ld.acquire.{scope} r0, f"),
                    "acquire→relaxed",
                    format!("ld.relaxed.{scope} r0, f"),
                );
            }
        }
        Mechanism::Reduction => {
            let weaker = match narrower {
                Some(n) => ("scope narrowed", format!("red.release.{n}.add f, 1")),
                None => ("release→relaxed", format!("red.relaxed.{scope}.add f, 1")),
            };
            s.weaken_only(producer, "producer-release", format!("red.release.{scope}.add f, 1"), weaker.0, weaker.1);
            s.weaken_only(
                consumer,
                "consumer-acquire",
                format!("ld.acquire.{scope} r0, f"),
                "acquire→relaxed",
                format!("ld.relaxed.{scope} r0, f"),
            );
        }
        Mechanism::Fences => {
            match narrower {
                Some(n) => s.weakenable(
                    producer,
                    "producer-fence",
                    format!("fence.acq_rel.{scope}"),
                    "scope narrowed",
                    format!("fence.acq_rel.{n}"),
                ),
                None => s.step(producer, "producer-fence", format!("fence.acq_rel.{scope}")),
            }
            s.line(producer, format!("st.relaxed.{scope} f, 1"));
            s.line(consumer, format!("ld.relaxed.{scope} r0, f"));
            s.step(consumer, "consumer-fence", format!("fence.acq_rel.{scope}"));
        }
    }
    if weak_payload {
        s.line(consumer, "assume.eq r0, 1");
    }
    for (i, x) in names.iter().take(payloads).enumerate() {
        if weak_payload {
            s.line(consumer, format!("ld.weak r{}, {x}", i + 1));
        } else {
            s.line(consumer, format!("ld.relaxed.{scope} r{}, {x}", i + 1));
        }
    }
    let stale: Vec<String> = (0..payloads).map(|i| format!("P1:r{} != {}", i + 1, i + 1)).collect();
    s.condition = format!("exists (P1:r0 == 1 /\\ ({}))", stale.join(" \\/ "));
    Ok((s, Expect { never: true }))
}

/// One or two producers store to shared memory and `mbarrier.arrive.release`; the consumer's
/// `await try_wait.parity.acquire` sees the phase complete and loads (PTX ISA §9.7.13.15.16: the
/// arrive's release and the wait's acquire synchronize when the wait observes the phase
/// completion the arrive contributed to).
pub(super) fn mbarrier_handoff(u: &mut Unstructured<'_>) -> arbitrary::Result<(Sketch, Expect)> {
    let producers = u.int_in_range(1..=2usize)?;
    let scope = if chance(u, 30)? { "cluster" } else { "cta" };
    let mut s = Sketch {
        arch: "PTX",
        name: "mbarrier-handoff".into(),
        doc: format!("PTX ISA §9.7.13.15 producer/consumer through an mbarrier of count {producers}, .{scope} scope"),
        init: vec![format!("bar @ mbarrier cta 0 gpu 0 count {producers}")],
        threads: Vec::new(),
        condition: String::new(),
    };
    for p in 0..producers {
        s.init.push(format!("s{p} @ shared cta 0 gpu 0 = 0"));
    }
    let consumer_index = producers;
    for p in 0..producers {
        let t = s.thread(format!("{}@warp {p},cta 0,gpu 0", thread_name(p)));
        s.line(t, format!("st.weak.shared::cta.b32 [s{p}], {}", p + 1));
        s.weakenable(
            t,
            "producer-arrive",
            format!("mbarrier.arrive.release.{scope}.shared::cta.b64 st0, [bar]"),
            "release→relaxed",
            format!("mbarrier.arrive.relaxed.{scope}.shared::cta.b64 st0, [bar]"),
        );
    }
    let c = s.thread(format!("{}@warp {consumer_index},cta 0,gpu 0", thread_name(consumer_index)));
    s.weakenable(
        c,
        "consumer-wait",
        format!("await mbarrier.try_wait.parity.acquire.{scope}.shared::cta.b64 p, [bar], 0"),
        "acquire→relaxed",
        format!("await mbarrier.try_wait.parity.relaxed.{scope}.shared::cta.b64 p, [bar], 0"),
    );
    let mut stale = Vec::new();
    for p in 0..producers {
        s.line(c, format!("ld.weak.shared::cta.b32 r{p}, [s{p}]"));
        s.init.push(format!("P{consumer_index}:r{p} = 0"));
        stale.push(format!("P{consumer_index}:r{p} != {}", p + 1));
    }
    s.condition = format!("exists ({})", stale.join(" \\/ "));
    Ok((s, Expect { never: true }))
}
