//! Tile IR message passing with tokens (Tile IR spec §7.12.3): within a tile block only tokens
//! order operations (§7.5), so the payload stores must be token-ordered before the release and
//! the payload loads token-ordered after the acquire; payloads are relaxed at the release's scope
//! so that the executions where the acquire reads the old flag are race-free too (§7.10).

use arbitrary::Unstructured;

use super::Expect;
use super::sketch::{Sketch, thread_name};
use crate::choose::chance;

/// One or two payload tiles (joined with `join_tokens` when two), a flag; the consumer's tile
/// block on the same device (scope `device`) or another (scope `sys`).
pub(super) fn message_passing(u: &mut Unstructured<'_>) -> arbitrary::Result<(Sketch, Expect)> {
    let two = chance(u, 40)?;
    let other_device = chance(u, 25)?;
    let made_token = chance(u, 25)?;
    let scope = if other_device { "sys" } else { "device" };
    let narrower = other_device.then_some("device");
    let mut s = Sketch {
        arch: "TileIR",
        name: "tile-message-passing".into(),
        doc: format!("Tile IR spec §7.12.3 message passing with tokens, scope {scope}"),
        init: vec!["x = [0, 0]".into(), "f = [0]".into()],
        threads: Vec::new(),
        condition: String::new(),
    };
    if two {
        s.init.push("y = [0]".into());
    }
    let producer = s.thread(format!("{}@tlb 0, dev 0", thread_name(0)));
    let consumer = s.thread(format!("{}@tlb 1, dev {}", thread_name(1), u32::from(other_device)));
    let first_dep = if made_token {
        s.line(producer, "<t0> = make_token");
        ", <t0>"
    } else {
        ""
    };
    s.line(producer, format!("<t1> = st.relaxed.{scope} x, [1, 2]{first_dep}"));
    let payload = if two {
        s.line(producer, format!("<t2> = st.relaxed.{scope} y, [3]{first_dep}"));
        s.line(producer, "<t3> = join_tokens <t1>, <t2>");
        "t3"
    } else {
        "t1"
    };
    s.weaken_only(
        producer,
        "producer-release",
        format!("st.release.{scope} f, [1], <{payload}>"),
        "release→relaxed",
        format!("st.relaxed.{scope} f, [1], <{payload}>"),
    );
    // A second weakening of the release, as its own step: the token that orders the payload
    // before it. Steps are lines, so the release is split by the variant drawn.
    if chance(u, 50)?
        && let Some(last) = s.threads[producer].lines.last_mut()
    {
        last.step = Some(super::sketch::StepSpec {
            role: "producer-token",
            weaken: Some(("token dependency dropped", format!("st.release.{scope} f, [1]"))),
            removable: false,
        });
    }
    match narrower {
        Some(n) => s.weaken_only(
            consumer,
            "consumer-acquire-scope",
            format!("rf, <t4> = ld.acquire.{scope} f"),
            "scope narrowed",
            format!("rf, <t4> = ld.acquire.{n} f"),
        ),
        None => s.weaken_only(
            consumer,
            "consumer-acquire",
            format!("rf, <t4> = ld.acquire.{scope} f"),
            "acquire→relaxed",
            format!("rf, <t4> = ld.relaxed.{scope} f"),
        ),
    }
    s.weaken_only(
        consumer,
        "consumer-token",
        format!("rx = ld.relaxed.{scope} x, <t4>"),
        "token dependency dropped",
        format!("rx = ld.relaxed.{scope} x"),
    );
    let mut stale = vec!["P1:rx != [1, 2]".to_string()];
    if two {
        s.line(consumer, format!("ry = ld.relaxed.{scope} y, <t4>"));
        stale.push("P1:ry != [3]".into());
    }
    s.condition = format!("exists (P1:rf == [1] /\\ ({}))", stale.join(" \\/ "));
    Ok((s, Expect { never: true }))
}
