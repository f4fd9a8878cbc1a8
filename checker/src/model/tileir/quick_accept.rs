//! A cheap test that a graph is consistent under the Tile IR model: a sufficient condition,
//! checked before the full check ([`super::TileIr::evaluate`]). A graph that fails it is judged
//! in full.
//!
//! **The condition.** Every rmw's write comes right after the write its read reads from in `co`
//! (no write at all between them), and some total order `T` contains token order, `rmw`, `rf`,
//! `co`, `fr` and the dependencies (`to ∪ rmw ∪ rf ∪ co ∪ fr ∪ dep` is acyclic).
//!
//! **Why it suffices** (the axioms of the module docs of [`super`]). Observation is made of `rf`
//! and `rmw` edges, synchronization is observation, so happens-before `(to ∪ rmw ∪ sw)+` and
//! causality `hb ∪ obs ; hb` lie within `T`. Coherence (§7.6): two writes of one element that
//! causality relates are so related in `T`, and `co` (total per element, within `T`) cannot
//! relate them the other way. Atomicity (§7.6): no write at all sits between an rmw's source and
//! its write. Causality: `(rf ∪ fr) ; causality` lies within `T`, which has no cycle. Coherence
//! per location: token order between accesses of one element and the morally strong `rf`, `co`,
//! `fr` lie within `T`. No-Thin-Air (§7.9): `rf ∪ dep` lies within `T`. (The axioms only forbid:
//! moral strength only filters their edges.) Token order is all a tile block's events are
//! ordered by (§7.5), so far more graphs pass than would with program order in `T`.
//! Debug builds judge every graph the test accepts in full as well.

use std::cell::RefCell;

use crate::exec::event::Event;
use crate::exec::graph::ExecutionGraph;
use crate::model::sweep::{Frame, sweep_any_order, until_stuck};

/// Whether `g` meets the condition of the module docs (then the Tile IR model allows it), with
/// `waits_for` the token order of [`super::TileIr`] (per thread, per event, the earlier events it
/// waits for; a thread without one is ordered by program order). Holes (events whose stamp is
/// [`HOLE`](crate::exec::graph::HOLE)) are not part of the graph: left out.
pub(super) fn quick_accept(g: &ExecutionGraph, waits_for: &[Vec<u64>]) -> bool {
    crate::model::sc::atomicity_holds(g) && FRAME.with_borrow_mut(|frame| acyclic(frame, g, waits_for))
}

thread_local! {
    /// [`quick_accept`]'s buffers, kept between calls (one call per graph judged).
    static FRAME: RefCell<Frame> = RefCell::new(Frame::default());
}

/// Whether `to ∪ rmw ∪ rf ∪ co ∪ fr ∪ dep` is acyclic: sweeps over every unsorted event of each
/// thread (token order does not follow program order), each sorting what is ready.
fn acyclic(frame: &mut Frame, g: &ExecutionGraph, waits_for: &[Vec<u64>]) -> bool {
    let mut left = frame.load(g);
    let ready = |frame: &Frame, t: usize, i: usize, e: &Event| {
        // Only earlier events of the thread: token order and dependencies point forward.
        let earlier = if i >= 64 { !0 } else { (1u64 << i) - 1 };
        let waits = waits_for.get(t).and_then(|w| w.get(i)).map_or(earlier, |&m| m & earlier);
        let mut on = waits | (e.deps & earlier);
        if e.label.rmw_write && i > 0 {
            on |= 1u64.checked_shl(i as u32 - 1).unwrap_or(0);
        }
        frame.all_sorted(frame.offsets[t], on) && frame.communication_ready(e, frame.offsets[t] + i)
    };
    until_stuck(&mut left, || sweep_any_order(frame, g, ready, |frame, e, me| frame.sort(e, me)))
}

#[cfg(test)]
mod tests {
    use super::quick_accept;
    use crate::exec::event::EventId;
    use crate::exec::graph::ExecutionGraph;
    use crate::exec::interp::{Step, replay};
    use crate::model::MemoryModel;
    use crate::model::tileir::TileIr;
    use crate::program::CompiledProgram;

    /// Load buffering between two tile blocks: each loads one location and stores the other,
    /// `TOKEN` the store's wait for the load, if any.
    const LB: &str = "TileIR LB
{ x = [0]; y = [0]; }
P0@tlb 0, dev 0 {
  r1, <t1> = ld.relaxed.device x;
  <t2> = st.relaxed.device y, [1]TOKEN;
}
P1@tlb 1, dev 0 {
  r1, <t1> = ld.relaxed.device y;
  <t2> = st.relaxed.device x, [1]TOKEN;
}
exists (true)
";

    /// The graph where each thread runs to its end, each load reading the other thread's store
    /// (`cyclic`) or the initial value.
    fn graph(prog: &CompiledProgram, cyclic: bool) -> ExecutionGraph {
        let mut g = ExecutionGraph::new(prog.locations.iter().map(|l| l.init).collect(), prog.threads.len());
        for t in 0..prog.threads.len() {
            loop {
                let values: Vec<i64> = g.threads[t].iter().map(|e| e.value).collect();
                let Step::Event(ev) = replay(&prog.threads[t], &values, 1).expect("replays").step else { break };
                let (id, loc) = (EventId::new(t, values.len()), ev.label.loc);
                g.put_event(id, &ev, ev.label.is_read().then_some(EventId::init(loc)));
                if ev.label.is_write() {
                    let len = g.co[loc as usize].len();
                    g.insert_co(id, len);
                }
            }
        }
        if cyclic {
            g.set_rf(EventId::new(0, 0), EventId::new(1, 1));
            g.set_rf(EventId::new(1, 0), EventId::new(0, 1));
        }
        g
    }

    /// Without tokens nothing orders a tile block's load before its store (Tile IR spec §7.5),
    /// and the load-buffering graph is taken by the quick test, as by the model. With them the
    /// graph has a cycle of token order and `rf`, and is left to the full check; the graph where
    /// both loads read the initial values is taken either way.
    #[test]
    fn load_buffering_is_taken_where_no_token_orders_it() {
        for (token, cyclic_taken) in [("", true), (", <t1>", false)] {
            let prog = CompiledProgram::compile(&tcfuzz_litmus::parse(&LB.replace("TOKEN", token)).expect("parses")).expect("compiles");
            let model = TileIr::new(&prog);
            let waits = &prog.tile.as_ref().expect("a Tile IR program").waits_for;
            let g = graph(&prog, true);
            assert_eq!(quick_accept(&g, waits), cyclic_taken, "{token:?}");
            if cyclic_taken {
                assert!(model.is_consistent(&g));
            }
            let g = graph(&prog, false);
            assert!(quick_accept(&g, waits) && model.is_consistent(&g), "{token:?}");
        }
    }
}
