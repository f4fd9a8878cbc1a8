//! Message passing across proxies (PTX ISA §8.6 "Proxies", §9.7.13.4 `fence.proxy`), the shape of
//! the mixedproxy tests the conformance corpus carries (`proxy/Proxy-MP-*`).
//!
//! A location `x` is reached through the generic proxy, a surface alias (`sust`/`suld`), a
//! texture alias (`tld`), a constant alias (`cold`) or a second generic virtual address (a generic
//! alias). Release/acquire on a flag orders the generic proxy only (§8.9.5, proxy-preserved base
//! causality order): a write through another proxy needs a `fence.proxy.<its proxy>` in the
//! writer's CTA after it, a read through another proxy a `fence.proxy.<its proxy>` before it in
//! the reader's CTA, and an access through another virtual address of the same physical location
//! a `fence.proxy.alias` on the way. Each of those fences is a step a mutant removes.

use arbitrary::Unstructured;

use super::Expect;
use super::sketch::{Sketch, thread_name};
use crate::choose::{chance, index};

/// How one side reaches `x`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum View {
    /// `x` itself, through the generic proxy.
    Generic,
    /// `x_gen @ generic aliases x`: another virtual address, the generic proxy.
    GenericAlias,
    Surface,
    Texture,
    Constant,
}

impl View {
    /// The location the side accesses and its declaration (none for `x`).
    fn location(self) -> (&'static str, Option<&'static str>) {
        match self {
            View::Generic => ("x", None),
            View::GenericAlias => ("x_gen", Some("x_gen @ generic aliases x")),
            View::Surface => ("x_sur", Some("x_sur @ surface aliases x")),
            View::Texture => ("x_tex", Some("x_tex @ texture aliases x")),
            View::Constant => ("x_con", Some("x_con @ constant aliases x")),
        }
    }

    /// The proxy fence of the side's own proxy, for a non-generic proxy.
    fn proxy_fence(self) -> Option<&'static str> {
        match self {
            View::Surface => Some("fence.proxy.surface"),
            View::Texture => Some("fence.proxy.texture"),
            View::Constant => Some("fence.proxy.constant"),
            View::Generic | View::GenericAlias => None,
        }
    }

    /// Whether the side uses another virtual address than `x`'s generic one (a generic alias; a
    /// texture, surface or constant alias shares its target's virtual address, §8.6).
    fn other_address(self) -> bool {
        self == View::GenericAlias
    }
}

/// A writer puts 2 into `x` through one view and releases a flag; the reader acquires the flag
/// and reads `x` through another view, with the proxy fences the two views need. The views
/// always differ in proxy or address (two accesses through one non-generic proxy in one CTA are
/// ordered without a fence, so its fences would not be steps). Payload accesses are weak (the
/// texture, surface and constant ones can only be), so the reader `assume`s it saw the flag.
pub(super) fn message_passing(u: &mut Unstructured<'_>) -> arbitrary::Result<(Sketch, Expect)> {
    let writer = if chance(u, 50)? { View::Surface } else { View::Generic };
    let readers: &[View] = match writer {
        View::Surface => &[View::Generic, View::GenericAlias, View::Texture, View::Constant],
        _ => &[View::GenericAlias, View::Surface, View::Texture, View::Constant],
    };
    let reader = readers[index(u, readers.len())?];
    // One CTA (`.cta`) or two CTAs of one GPU (`.gpu`): the flag's scope holds both (§8.5).
    let same_cta = chance(u, 50)?;
    let (scope, placements) =
        if same_cta { ("cta", ["warp 0,cta 0,gpu 0", "warp 1,cta 0,gpu 0"]) } else { ("gpu", ["cta 0,gpu 0", "cta 1,gpu 0"]) };
    let mut s = Sketch {
        arch: "PTX",
        name: "proxy-message-passing".into(),
        doc: format!("PTX ISA §8.6 message passing from a {writer:?} write to a {reader:?} read through release/acquire at .{scope}"),
        init: vec!["x = 0".into(), "f = 0".into(), "P1:r0 = 0".into(), "P1:r1 = 0".into()],
        threads: Vec::new(),
        condition: "exists (P1:r0 == 1 /\\ P1:r1 != 2)".into(),
    };
    for v in [writer, reader] {
        if let (_, Some(decl)) = v.location()
            && !s.init.iter().any(|i| i == decl)
        {
            s.init.insert(1, decl.to_string());
        }
    }
    let w = s.thread(format!("{}@{}", thread_name(0), placements[0]));
    let r = s.thread(format!("{}@{}", thread_name(1), placements[1]));
    let (wloc, _) = writer.location();
    s.line(w, if writer == View::Surface { format!("sust.weak {wloc}, 2") } else { format!("st.weak {wloc}, 2") });
    if let Some(f) = writer.proxy_fence() {
        s.step(w, "writer-proxy-fence", f);
    }
    s.weaken_only(w, "writer-release", format!("st.release.{scope} f, 1"), "release→relaxed", format!("st.relaxed.{scope} f, 1"));
    s.weaken_only(r, "reader-acquire", format!("ld.acquire.{scope} r0, f"), "acquire→relaxed", format!("ld.relaxed.{scope} r0, f"));
    s.line(r, "assume.eq r0, 1");
    // The writer's and the reader's virtual addresses differ: a `fence.proxy.alias` between
    // them (the reader's, after the acquire).
    if writer.other_address() != reader.other_address() {
        s.step(r, "reader-alias-fence", "fence.proxy.alias");
    }
    if let Some(f) = reader.proxy_fence() {
        s.step(r, "reader-proxy-fence", f);
    }
    let (rloc, _) = reader.location();
    let load = match reader {
        View::Surface => "suld",
        View::Texture => "tld",
        View::Constant => "cold",
        View::Generic | View::GenericAlias => "ld",
    };
    s.line(r, format!("{load}.weak r1, {rloc}"));
    Ok((s, Expect { never: true }))
}
