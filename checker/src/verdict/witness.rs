//! Rendering one execution graph as text and as Graphviz DOT: the witness of a final state.

use std::fmt::Write;

use crate::exec::event::{Event, EventId};
use crate::exec::graph::ExecutionGraph;
use crate::program::CompiledProgram;
use crate::program::label::{EventKind, Label, Proxy};

fn name(prog: &CompiledProgram, e: EventId) -> String {
    if e.is_init() {
        format!("init:{}", prog.locations[e.index as usize].name)
    } else {
        format!("{}#{}", prog.threads[e.thread as usize].name, e.index)
    }
}

fn attrs(l: &Label, tile: bool) -> String {
    let mut a = Vec::new();
    if l.kind == EventKind::Fence {
        a.push(if l.sc { "sc" } else { "acq_rel" }.to_string());
    } else if !l.strong {
        a.push("weak".to_string());
    } else if l.acquire {
        a.push("acquire".to_string());
    } else if l.release {
        a.push("release".to_string());
    } else {
        a.push("relaxed".to_string());
    }
    if l.strong {
        a.push(format!("{:?}", l.scope).to_lowercase());
    }
    if tile {
        // Tile IR scopes are kept as CTA / GPU / system scopes (crate::program::tile_program).
        for s in &mut a {
            match s.as_str() {
                "cta" => *s = "tile_block".into(),
                "gpu" => *s = "device".into(),
                _ => {}
            }
        }
    }
    if l.atomic {
        a.push("atomic".to_string());
    }
    a.join(" ")
}

fn describe(prog: &CompiledProgram, e: &Event) -> String {
    let l = &e.label;
    let loc = || prog.locations[l.loc as usize].name.as_str();
    let value =
        || crate::verdict::SyncObject::of(prog, l.loc).filter(|_| l.is_access()).map_or_else(|| e.value.to_string(), |o| o.show(e.value));
    let mut attrs = attrs(l, prog.tile.is_some());
    if l.proxy != Proxy::Generic {
        attrs.push_str(&format!(" {}-proxy", format!("{:?}", l.proxy).to_lowercase()));
    }
    let plain = match l.kind {
        EventKind::Read => format!("R {} = {} [{attrs}]", loc(), value()),
        EventKind::Write => format!("W {} = {} [{attrs}]", loc(), value()),
        EventKind::Fence if l.tc.is_some_and(|t| matches!(t.op, crate::program::label::TcOp::Mma { .. })) => {
            format!("skip {} (the flag is 0: no accumulator read)", loc())
        }
        EventKind::Fence if l.tc.is_some() => "F".to_string(),
        EventKind::Fence if l.completion_fence => "F [bulk copy completion: implicit fence.proxy.async]".to_string(),
        EventKind::Fence if l.proxy == Proxy::Async => "F [fence.proxy.async]".to_string(),
        // Proxy fences order nothing like `fence.acq_rel` (`program::proxy_fence_label`).
        EventKind::Fence if l.alias_fence => "F [fence.proxy.alias]".to_string(),
        EventKind::Fence if l.proxy != Proxy::Generic => format!("F [fence.proxy.{}]", format!("{:?}", l.proxy).to_lowercase()),
        EventKind::Fence => format!("F [{attrs}]"),
        EventKind::Barrier => format!("B {}", l.loc),
    };
    match l.tc {
        // The perform of an asynchronous tcgen05 operation, or a synchronous tcgen05 event.
        Some(tc) if l.is_async() => format!("{plain} ({} perform)", tc.op.name()),
        Some(tc) => format!("{plain} ({})", tc.op.name()),
        None => plain,
    }
}

/// A per-thread timeline of one execution for `tcfuzz explain`: a column per thread, its events
/// in program order (each with what it reads from), the `marked` events flagged with `>>`.
pub fn timeline(prog: &CompiledProgram, g: &ExecutionGraph, marked: &[EventId]) -> String {
    let columns: Vec<Vec<String>> = g
        .threads
        .iter()
        .enumerate()
        .map(|(t, evs)| {
            evs.iter()
                .enumerate()
                .map(|(i, ev)| {
                    let e = EventId::new(t, i);
                    let flag = if marked.contains(&e) { ">>" } else { "  " };
                    let rf = ev.rf.map(|w| format!(" <- {}", name(prog, w))).unwrap_or_default();
                    format!("{flag} #{i} {}{rf}", describe(prog, ev))
                })
                .collect()
        })
        .collect();
    let widths: Vec<usize> = columns
        .iter()
        .enumerate()
        .map(|(t, c)| c.iter().map(|x| x.chars().count()).chain([prog.threads[t].name.len()]).max().unwrap_or(0))
        .collect();
    let rows = columns.iter().map(Vec::len).max().unwrap_or(0);
    let mut s = String::new();
    let line = |cells: Vec<String>| cells.join(" | ").trim_end().to_string();
    let _ = writeln!(s, "{}", line(prog.threads.iter().zip(&widths).map(|(t, w)| format!("{:w$}", t.name)).collect()));
    let _ = writeln!(s, "{}", line(widths.iter().map(|w| "-".repeat(*w)).collect()));
    for r in 0..rows {
        let cells = columns.iter().zip(&widths).map(|(c, w)| format!("{:w$}", c.get(r).map_or("", String::as_str))).collect();
        let _ = writeln!(s, "{}", line(cells));
    }
    s
}

/// One line per event (`P1#0 R flag = 1 [acquire gpu] <- P0#1`), then each location's `co`.
pub fn text(prog: &CompiledProgram, g: &ExecutionGraph) -> String {
    let mut s = String::new();
    for e in g.event_ids() {
        let ev = g.event(e);
        let _ = write!(s, "{} {}", name(prog, e), describe(prog, ev));
        if let Some(w) = ev.rf {
            let _ = write!(s, " <- {}", name(prog, w));
        }
        s.push('\n');
    }
    for (l, co) in g.co.iter().enumerate() {
        if co.is_empty() {
            continue;
        }
        let order: Vec<String> = co.iter().map(|&w| name(prog, w)).collect();
        let _ = writeln!(s, "co {}: init, {}", prog.locations[l].name, order.join(", "));
    }
    s
}

/// [`text`] for a graph being explored ([`crate::TraceStep`]): each event with the order in which
/// the explorer added it (`@5`), a hole as `P1#2 (hole)`.
pub fn trace_text(prog: &CompiledProgram, g: &ExecutionGraph) -> String {
    let mut s = String::new();
    for e in g.event_ids() {
        if g.is_hole(e) {
            let _ = writeln!(s, "{} (hole)", name(prog, e));
            continue;
        }
        let ev = g.event(e);
        // (The oracle builds its graphs whole: no order of addition, every stamp 0.)
        let added = if ev.stamp == 0 { String::new() } else { format!(" @{}", ev.stamp) };
        let _ = write!(s, "{}{added} {}", name(prog, e), describe(prog, ev));
        if let Some(w) = ev.rf {
            let _ = write!(s, " <- {}", name(prog, w));
        }
        s.push('\n');
    }
    for (l, co) in g.co.iter().enumerate() {
        if !co.is_empty() {
            let order: Vec<String> = co.iter().map(|&w| name(prog, w)).collect();
            let _ = writeln!(s, "co {}: init, {}", prog.locations[l].name, order.join(", "));
        }
    }
    s
}

/// The name and description of one event: `P1#2 W x = 1 [release cta]`.
pub fn event(prog: &CompiledProgram, g: &ExecutionGraph, e: EventId) -> String {
    if g.is_hole(e) { format!("{} (hole)", name(prog, e)) } else { format!("{} {}", name(prog, e), describe(prog, g.event(e))) }
}

/// Graphviz: a cluster per thread, program order black, reads-from red, coherence blue.
pub fn dot(prog: &CompiledProgram, g: &ExecutionGraph) -> String {
    let id = |e: EventId| if e.is_init() { format!("i{}", e.index) } else { format!("e{}_{}", e.thread, e.index) };
    let mut s = String::from("digraph execution {\n  node [shape=box, fontname=monospace];\n");
    for (l, loc) in prog.locations.iter().enumerate() {
        let _ = writeln!(s, "  i{l} [label=\"init {} = {}\"];", loc.name, g.init[l]);
    }
    for (t, evs) in g.threads.iter().enumerate() {
        let _ = writeln!(s, "  subgraph cluster_{t} {{\n    label=\"{}\";", prog.threads[t].name);
        for (i, ev) in evs.iter().enumerate() {
            let _ = writeln!(s, "    e{t}_{i} [label=\"{}\"];", describe(prog, ev));
            if i > 0 {
                let _ = writeln!(s, "    e{t}_{} -> e{t}_{i} [label=po];", i - 1);
            }
        }
        s.push_str("  }\n");
    }
    for e in g.event_ids() {
        if let Some(w) = g.event(e).rf {
            let _ = writeln!(s, "  {} -> {} [label=rf, color=red];", id(w), id(e));
        }
    }
    for l in 0..g.co.len() {
        let ws: Vec<EventId> = g.writes_to(l as u32).collect();
        for pair in ws.windows(2) {
            let _ = writeln!(s, "  {} -> {} [label=co, color=blue];", id(pair[0]), id(pair[1]));
        }
    }
    s.push_str("}\n");
    s
}
