//! Barrier patterns: every thread writes its own location, meets the others at a barrier, then
//! reads its neighbour's location (PTX ISA §9.7.13.1 `bar.sync`; §9.7.13.2
//! `barrier.cluster.arrive` with release and `barrier.cluster.wait` with acquire semantics, the
//! defaults).

use arbitrary::Unstructured;

use super::Expect;
use super::sketch::{Sketch, thread_name};

/// 2–3 warps of one CTA around `bar.sync 0`.
pub(super) fn cta_barrier(u: &mut Unstructured<'_>) -> arbitrary::Result<(Sketch, Expect)> {
    let n = u.int_in_range(2..=3usize)?;
    ring(n, "cta-barrier", "PTX ISA §9.7.13.1: bar.sync between a write and a read of another warp", |t| {
        (format!("warp {t},cta 0,gpu 0"), vec![("cta-barrier", "bar.sync 0".to_string(), None)])
    })
}

/// 2–3 CTAs of one cluster around `barrier.cluster.arrive` / `barrier.cluster.wait`.
pub(super) fn cluster_barrier(u: &mut Unstructured<'_>) -> arbitrary::Result<(Sketch, Expect)> {
    let n = u.int_in_range(2..=3usize)?;
    ring(n, "cluster-barrier", "PTX ISA §9.7.13.2: a cluster barrier between a write and a read of another CTA", |t| {
        (
            format!("cta {t},cluster 0,gpu 0"),
            vec![
                (
                    "cluster-arrive",
                    "barrier.cluster.arrive".to_string(),
                    Some(("release→relaxed", "barrier.cluster.arrive.relaxed".to_string())),
                ),
                ("cluster-wait", "barrier.cluster.wait".to_string(), None),
            ],
        )
    })
}

type BarrierLines = Vec<(&'static str, String, Option<(&'static str, String)>)>;

/// `n` threads; thread `t` writes `x{t}`, runs the barrier lines `barrier(t)` gives, and reads
/// `x{(t+1)%n}`.
fn ring(n: usize, name: &str, doc: &str, barrier: impl Fn(usize) -> (String, BarrierLines)) -> arbitrary::Result<(Sketch, Expect)> {
    let mut s = Sketch { arch: "PTX", name: name.into(), doc: doc.into(), init: Vec::new(), threads: Vec::new(), condition: String::new() };
    let mut stale = Vec::new();
    for t in 0..n {
        s.init.push(format!("x{t} = 0"));
        s.init.push(format!("P{t}:r0 = 0"));
    }
    for t in 0..n {
        let (placement, lines) = barrier(t);
        let th = s.thread(format!("{}@{placement}", thread_name(t)));
        s.line(th, format!("st.weak x{t}, {}", t + 1));
        for (role, text, weaker) in lines {
            match weaker {
                Some((how, w)) => s.weakenable(th, role, text, how, w),
                None => s.step(th, role, text),
            }
        }
        let next = (t + 1) % n;
        s.line(th, format!("ld.weak r0, x{next}"));
        stale.push(format!("P{t}:r0 != {}", next + 1));
    }
    s.condition = format!("exists ({})", stale.join(" \\/ "));
    Ok((s, Expect { never: true }))
}
