//! The TMA producer/consumer ring (the mainloop of Hopper and Blackwell kernels): a `full` and an
//! `empty` mbarrier per stage; the producer waits until a stage is empty, arms its `full`
//! mbarrier with `arrive.expect_tx` and fills the stage with `cp.async.bulk ...
//! complete_tx::bytes` (PTX ISA §9.7.9.25.4.1, §9.7.13.15); the consumer waits until it is full,
//! reads it and marks it empty again. With more iterations than stages each mbarrier goes
//! through several phases, waited on by alternating `try_wait.parity` (§9.7.13.15.16).

use arbitrary::Unstructured;

use super::Expect;
use super::sketch::{Sketch, thread_name};
use crate::choose::chance;

/// The stage read by the consumer: a generic load, or (the Blackwell mainloop) a `tcgen05.mma`
/// in the async proxy that commits to the `empty` mbarrier.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Reader {
    Load,
    Mma,
}

/// 1–2 stages, 1–3 iterations: iteration `i` copies `g{i}` (value `10 + i`) into stage `i % S`.
pub(super) fn ring(u: &mut Unstructured<'_>) -> arbitrary::Result<(Sketch, Expect)> {
    let stages = u.int_in_range(1..=2usize)?;
    let iterations = u.int_in_range(1..=3usize)?;
    let reader = if chance(u, 30)? { Reader::Mma } else { Reader::Load };
    let mut s = Sketch {
        arch: "PTX",
        name: "tma-ring".into(),
        doc: format!("a TMA ring of {stages} stage(s) and {iterations} iteration(s), read by {reader:?}"),
        init: Vec::new(),
        threads: Vec::new(),
        condition: String::new(),
    };
    for i in 0..iterations {
        s.init.push(format!("g{i} = {}", 10 + i));
    }
    for k in 0..stages {
        s.init.push(format!("s{k} @ shared cta 0 gpu 0 = 0"));
        s.init.push(format!("full{k} @ mbarrier cta 0 gpu 0 count 1"));
        s.init.push(format!("empty{k} @ mbarrier cta 0 gpu 0 count 1"));
    }
    if reader == Reader::Mma {
        s.init.push("d @ tmem cta 0 gpu 0 lanes 0-31 cols 0-31 = 7".into());
        s.init.push("w @ shared cta 0 gpu 0 = 2".into());
    }
    let producer = s.thread(format!("{}@warp 0,cta 0,gpu 0", thread_name(0)));
    let consumer = s.thread(format!("{}@warp 1,cta 0,gpu 0", thread_name(1)));
    for i in 0..iterations {
        let (k, round) = (i % stages, i / stages);
        if round > 0 {
            let parity = (round - 1) % 2;
            let wait = |sem: &str| format!("await mbarrier.try_wait.parity.{sem}.cta.shared::cta.b64 p, [empty{k}], {parity}");
            match reader {
                Reader::Load => s.weakenable(producer, "producer-waits-empty", wait("acquire"), "acquire→relaxed", wait("relaxed")),
                // The mma's read and the copy's write are both in the async proxy, ordered by the
                // commit's completion the wait observes; there is no acquire to weaken.
                Reader::Mma => s.step(producer, "producer-waits-empty", wait("acquire")),
            }
        }
        s.step(producer, "producer-arms-full", format!("mbarrier.arrive.expect_tx.release.cta.shared::cta.b64 st0, [full{k}], 4"));
        s.line(producer, format!("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [s{k}], [g{i}], 4, [full{k}]"));
        let parity = round % 2;
        let wait = |sem: &str| format!("await mbarrier.try_wait.parity.{sem}.cta.shared::cta.b64 p, [full{k}], {parity}");
        let frees = i + stages < iterations;
        match reader {
            Reader::Load => {
                s.weakenable(consumer, "consumer-waits-full", wait("acquire"), "acquire→relaxed", wait("relaxed"));
                s.line(consumer, format!("ld.weak.shared::cta.b32 r{i}, [s{k}]"));
                if frees {
                    // The stage is refilled by a bulk copy, a write in the async proxy: the
                    // generic read before it needs a proxy fence on the path (PTX ISA §8.6
                    // proxies, "proxy-preserved base causality order").
                    s.step(consumer, "consumer-proxy-fence", "fence.proxy.async.shared::cta");
                    s.weakenable(
                        consumer,
                        "consumer-frees-slot",
                        format!("mbarrier.arrive.release.cta.shared::cta.b64 st1, [empty{k}]"),
                        "release→relaxed",
                        format!("mbarrier.arrive.relaxed.cta.shared::cta.b64 st1, [empty{k}]"),
                    );
                }
            }
            Reader::Mma => {
                s.step(consumer, "consumer-waits-full", wait("acquire"));
                s.step(consumer, "consumer-fence-after", "tcgen05.fence::after_thread_sync");
                s.line(consumer, format!("tcgen05.mma.cta_group::1.kind::f16 [d], [s{k}], [w], 1, {}", u32::from(i > 0)));
                if frees {
                    s.step(
                        consumer,
                        "consumer-commits-empty",
                        format!("tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [empty{k}]"),
                    );
                }
            }
        }
    }
    match reader {
        Reader::Load => {
            let stale: Vec<String> = (0..iterations).map(|i| format!("P1:r{i} != {}", 10 + i)).collect();
            for i in 0..iterations {
                s.init.push(format!("P1:r{i} = 0"));
            }
            s.condition = format!("exists ({})", stale.join(" \\/ "));
            Ok((s, Expect { never: true }))
        }
        Reader::Mma => {
            s.condition = "exists (true)".into();
            Ok((s, Expect { never: false }))
        }
    }
}
