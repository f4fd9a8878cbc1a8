//! [`MemoryModel::co_floor`](crate::model::MemoryModel::co_floor) beyond a thread's own writes:
//! the writes that precede an access in causality order under every Fence-SC order.

use crate::event::{EventId, Label};
use crate::graph::ExecutionGraph;

use super::Ptx;
use super::relations::Scratch;

impl Ptx {
    /// For a generic access `e` appended to its thread in `g` (not yet in `g`, or its last event
    /// and not in `co`), a floor for its source or place (an index of `g.writes_to`) above
    /// `floor`, the one its thread's own writes give: the `co`-latest write `w'` of its location
    /// that precedes `e` in causality order whatever the Fence-SC order (base causality into
    /// the event before `e` in its thread, [`super::relations::Scratch::base_under_every_order`]).
    /// - A write `e` placed before `w'` breaks Coherence (§8.10.1: causality order between
    ///   two writes of a location is coherence order).
    /// - A read `e` of a write `u` before `w'` has `e →fr w'` through coherence order proper when
    ///   `u` is the initial write or morally strong with `w'` (§8.9.6); with `w'` causally before
    ///   `e`, that breaks Causality (§8.10.6). Where some write before `w'` is not morally strong
    ///   with it, `w'` gives no floor.
    ///
    /// Only where it may pay: more than one choice above `floor`, something before `e` in its
    /// thread that synchronizes into it (otherwise base causality into `e` is program order,
    /// which `floor` covers), no holes, every event generic and no tcgen05 event. Each such graph
    /// is loaded once per event (not once per choice): most reads after a `fence.sc` have a
    /// dozen sources, nearly all ruled out here.
    pub(super) fn causal_floor(&self, g: &ExecutionGraph, e: EventId, l: &Label, floor: usize) -> usize {
        let (t, i) = (e.thread as usize, e.index as usize);
        let evs = &g.threads[t];
        let appended = i == evs.len() || (i + 1 == evs.len() && l.is_write() && g.co_position(e).is_none());
        let loc = l.loc as usize;
        let choices = g.co[loc].len() + 1 - floor.min(g.co[loc].len());
        let synchronizes = |x: &Label| (x.is_fence() && (x.sc || x.acquire)) || (x.is_read() && x.acquire) || x.is_barrier();
        if i == 0 || !appended || choices < 2 || !evs[..i].iter().any(|x| synchronizes(&x.label)) || g.has_holes() {
            return floor;
        }
        let mut s = self.scratch();
        // The scratch space no longer holds the last graph judged.
        s.consistent = false;
        s.load_facts(g);
        let loaded = match s.w {
            1 => base_loaded::<1>(&mut s, g, &self.compat),
            2 => base_loaded::<2>(&mut s, g, &self.compat),
            _ => base_loaded::<0>(&mut s, g, &self.compat),
        };
        if !loaded {
            return floor;
        }
        let p = EventId::new(t, i - 1);
        let writes: Vec<EventId> = g.writes_to(l.loc).collect();
        for k in (floor + 1..writes.len()).rev() {
            let w = writes[k];
            if w == e || !s.causes_after(w, p, l.vloc) {
                continue;
            }
            let lw = g.label(w);
            if l.is_read() && !writes[1..k].iter().all(|&u| self.morally_strong(g, (u, g.label(u)), (w, lw))) {
                continue;
            }
            return k;
        }
        floor
    }
}

impl Ptx {
    /// For the checks of debug builds: whether every choice [`Ptx::causal_floor`] ruled out for
    /// `e` (indices `own..floor` of `g.writes_to`) makes an inconsistent graph. (`e` with no
    /// dependencies: a graph inconsistent without them is inconsistent with them.)
    pub(super) fn below_floor_inconsistent(&self, g: &ExecutionGraph, e: EventId, l: &Label, own: usize, floor: usize) -> bool {
        use crate::model::MemoryModel;
        let writes: Vec<EventId> = g.writes_to(l.loc).collect();
        (own..floor).all(|k| {
            let mut g2 = g.clone();
            if l.is_read() {
                let ev = crate::interp::NewEvent { label: *l, value: 0, deps: 0, cas_expected: None, span: Default::default() };
                g2.put_event(e, &ev, Some(writes[k]));
            } else {
                g2.insert_co(e, k);
            }
            let ok = !self.is_consistent(&g2);
            // (The check overwrote the scratch space.)
            self.scratch().consistent = false;
            ok
        })
    }
}

/// Loads `g`'s relations into `s` up to base causality under every Fence-SC order
/// ([`Scratch::base_under_every_order`]); `false` where the graph has a non-generic or tcgen05
/// event (the forced pairs are sound only without them) or no order works.
fn base_loaded<const W: usize>(s: &mut Scratch, g: &ExecutionGraph, compat: &[u64]) -> bool {
    s.build::<W>(g);
    if !s.forced_applies() {
        return false;
    }
    s.build_ms::<W>(compat);
    s.add_sync::<W>();
    s.base_under_every_order()
}

#[cfg(test)]
pub(super) mod tests {
    use crate::event::EventId;
    use crate::graph::ExecutionGraph;
    use crate::interp::{Step, replay};
    use crate::model::MemoryModel;
    use crate::model::ptx::Ptx;
    use crate::program::CompiledProgram;

    /// `P0` writes `x` twice, then (after a `fence.sc`) the flag `f`; `P1` reads the flag, then
    /// (after its own `fence.sc`) `x`, or writes `x` (`store`).
    fn program(store: bool) -> CompiledProgram {
        let last = if store { "st.relaxed.gpu x, 3" } else { "ld.relaxed.gpu r1, x" };
        let text = format!(
            "PTX floor
{{ x = 0; f = 0; }}
 P0@cta 0,gpu 0      | P1@cta 1,gpu 0       ;
 st.relaxed.gpu x, 1 | ld.relaxed.gpu r0, f ;
 st.relaxed.gpu x, 2 | fence.sc.gpu         ;
 fence.sc.gpu        | {last}               ;
 st.relaxed.gpu f, 1 |                      ;
exists (true)
"
        );
        CompiledProgram::compile(&tcfuzz_litmus::parse(&text).expect("parses")).expect("compiles")
    }

    /// `g` with thread `t`'s next event (reading `rf`, or last in `co`); returns its id.
    pub(in crate::model::ptx) fn add(prog: &CompiledProgram, g: &mut ExecutionGraph, t: usize, rf: Option<EventId>) -> EventId {
        let values: Vec<i64> = g.threads[t].iter().map(|e| e.value).collect();
        let Step::Event(ev) = replay(&prog.threads[t], &values, 4).expect("replays").step else { panic!("thread {t} has ended") };
        let id = EventId::new(t, values.len());
        g.put_event(id, &ev, rf);
        if ev.label.is_write() {
            let len = g.co[ev.label.loc as usize].len();
            g.insert_co(id, len);
        }
        id
    }

    /// The graph up to `P1`'s last event (not added), with `P1`'s flag read reading the flag
    /// write (`flag_seen`) or the initial value.
    fn before_last(prog: &CompiledProgram, flag_seen: bool) -> ExecutionGraph {
        let init = prog.locations.iter().map(|l| l.init).collect();
        let mut g = ExecutionGraph::new(init, 2);
        for _ in 0..4 {
            add(prog, &mut g, 0, None);
        }
        let f = g.label(EventId::new(0, 3)).loc;
        let src = if flag_seen { EventId::new(0, 3) } else { EventId::init(f) };
        add(prog, &mut g, 1, Some(src));
        add(prog, &mut g, 1, None);
        g
    }

    /// Having seen the flag, `P1`'s `fence.sc` follows `P0`'s in every Fence-SC order (`P0`'s
    /// fence → flag write →rf flag read → `P1`'s fence), so `x = 2` precedes `P1`'s access of `x`
    /// in causality order: its read cannot read `0` or `1` (Causality, §8.10.6), its write
    /// cannot go before `x = 2` (Coherence, §8.10.1). Without the flag, nothing orders them.
    #[test]
    fn causal_floor_follows_the_forced_fence_order() {
        for store in [false, true] {
            let prog = program(store);
            let ptx = Ptx::new(&prog);
            for (flag_seen, want) in [(true, 2), (false, 0)] {
                let mut g = before_last(&prog, flag_seen);
                let e = EventId::new(1, 2);
                let label = match replay(&prog.threads[1], &[if flag_seen { 1 } else { 0 }, 0], 4).expect("replays").step {
                    Step::Event(ev) => ev.label,
                    _ => panic!("P1 has a third event"),
                };
                if store {
                    // The write is in its thread, not yet in `co` (as `visit_cos` has it).
                    let ev = crate::interp::NewEvent { label, value: 3, deps: 0, cas_expected: None, span: Default::default() };
                    g.put_event(e, &ev, None);
                }
                assert_eq!(ptx.co_floor(&g, e, &label), want, "store {store}, flag seen {flag_seen}");
            }
        }
    }

    /// An event filling a hole before a later write of its thread to its location reads from,
    /// or goes before, that write (SC per location, §8.10.5).
    #[test]
    fn co_ceiling_stops_at_the_threads_later_write() {
        let prog = program(false);
        let ptx = Ptx::new(&prog);
        let g = before_last(&prog, true);
        // `P0`'s first write, as if it were a hole: its second write is `x`'s second in `co`.
        let first = EventId::new(0, 0);
        assert_eq!(ptx.co_ceiling(&g, first, g.label(first)), 2);
        assert_eq!(ptx.co_ceiling(&g, EventId::new(0, 1), g.label(EventId::new(0, 1))), usize::MAX);
        assert!(!ptx.may_follow(&g, first, EventId::new(0, 1)));
        assert!(ptx.may_follow(&g, EventId::new(0, 1), first));
    }
}
