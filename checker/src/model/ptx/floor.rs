//! [`MemoryModel::co_floor`](crate::model::MemoryModel::co_floor) beyond a thread's own writes
//! — the writes its earlier reads saw (SC per location), and the writes that precede an access
//! in causality order under every Fence-SC order, read off the forced fence pairs or computed
//! from base causality — and
//! [`MemoryModel::source_ruled_out`](crate::model::MemoryModel::source_ruled_out) from the
//! accesses of a read's own thread.

use crate::exec::event::EventId;
use crate::exec::graph::ExecutionGraph;
use crate::program::label::Label;

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
    /// For a generic access `e` (label `l`) of `g`'s thread at `e`'s place, a floor for its
    /// source or place above `floor` from the reads before it in its thread: not before the
    /// write `u` that a read `x` of its virtual address before it reads from, where `u` is
    /// morally strong with both `x` and `e`. An earlier source (a read `e`) or place (a write
    /// `e`) gives `e →fr u` or `e →co u`, then `u →rf x →po e`: a cycle of SC per location
    /// (§8.10.5; `x` and `e` are related in program order, so morally strong, §8.7). (CoRR and
    /// CoRW; the thread's own writes give [`crate::model::co_floor_after_own_writes`].)
    pub(super) fn floor_after_own_reads(&self, g: &ExecutionGraph, e: EventId, l: &Label, floor: usize) -> usize {
        let t = e.thread as usize;
        let evs = &g.threads[t];
        let mut floor = floor;
        for (i, x) in evs[..(e.index as usize).min(evs.len())].iter().enumerate() {
            let lx = &x.label;
            if !lx.is_read() || lx.vloc != l.vloc || !super::po_orders(lx) || x.stamp == crate::exec::graph::HOLE {
                continue;
            }
            // (A source in `e`'s own thread is a write before `x`: the own-writes floor.)
            let Some(u) = x.rf.filter(|u| !u.is_init() && u.thread as usize != t) else { continue };
            let Some(p) = g.co_position(u) else { continue };
            let lu = g.label(u);
            if p > floor && self.morally_strong(g, (u, lu), (EventId::new(t, i), lx)) && self.morally_strong(g, (u, lu), (e, l)) {
                floor = p;
            }
        }
        floor
    }

    /// For a generic access `e` appended to its thread in `g` (as for [`Ptx::causal_floor`]), a
    /// floor above `floor` from the pairs every Fence-SC order must have, read off the graph
    /// ([`Ptx::forced_fences`]): not before a write `w` such that the first `fence.sc` after `w`
    /// in its thread, or after a read of `w` in its thread, is forced before (or is) the last
    /// `fence.sc` of `e`'s thread. In every Fence-SC order of a consistent graph made of `g`, `e`
    /// and more, that fence precedes the last one and so synchronizes with it (§8.9.4: the
    /// fences are morally strong), and `w` precedes `e` in causality order (§8.9.5: base
    /// causality through the two fences, after observation order where it is a reader's fence).
    /// A write `e` before `w` in `co` then breaks Coherence (§8.10.1); a read `e` of a write
    /// before `w`, Causality (§8.10.6: `e →fr w`). Only where every access of `e`'s location,
    /// `e` included, is morally strong with every other (so that `rf`, `co` and `fr` there are
    /// morally strong and `co` is coherence order proper) and the graph has no holes; `None`
    /// where it does not apply.
    pub(super) fn forced_fence_floor(&self, g: &ExecutionGraph, e: EventId, l: &Label, floor: usize) -> Option<usize> {
        let (t, i) = (e.thread as usize, e.index as usize);
        let evs = &g.threads[t];
        let appended = i == evs.len() || (i + 1 == evs.len() && l.is_write() && g.co_position(e).is_none());
        if !appended || g.has_holes() {
            return None;
        }
        let loc = l.loc as usize;
        if floor >= g.co[loc].len() || !evs.iter().any(|x| x.label.is_fence() && x.label.sc) {
            // One choice left, or no `fence.sc` before `e`: nothing to rule out.
            return Some(floor);
        }
        let forced = self.forced_fences(g)?;
        // (A write `e` is in `g` already.)
        let strong = if i == evs.len() { forced.all_morally_strong_with(self, l.loc, t, l) } else { forced.strong_location(l.loc) };
        if !strong {
            return None;
        }
        let Some(last) = forced.last_of_thread(t) else { return Some(floor) };
        let up_to_last = forced.up_to(last);
        // Per index of `writes_to`, the first fences after the write and after its readers.
        let co = &g.co[loc];
        let mut after = vec![0u64; co.len() + 1];
        for (k, &w) in co.iter().enumerate() {
            after[k + 1] = forced.first_after(w).map_or(0, |f| 1 << f);
        }
        for (u, x) in g.threads.iter().enumerate() {
            for (j, z) in x.iter().enumerate().filter(|(_, z)| z.label.is_read() && z.label.loc == l.loc) {
                if let (Some(src), Some(f)) = (z.rf, forced.first_after(EventId::new(u, j)))
                    && let Some(k) = g.co_position(src)
                {
                    after[k] |= 1 << f;
                }
            }
        }
        Some((floor + 1..after.len()).rev().find(|&k| after[k] & up_to_last != 0).unwrap_or(floor))
    }
}

impl Ptx {
    /// [`MemoryModel::source_ruled_out`](crate::model::MemoryModel::source_ruled_out): whether
    /// the accesses of `e`'s own thread to its virtual address (those `kept` accepts, with their
    /// sources) close a cycle of SC per location (§8.10.5) with `e` reading `s`, or `s` is a
    /// later write of `e`'s thread (read against program order: Causality, §8.10.6). `e` and
    /// those accesses are morally strong by program order (§8.7); an edge to or from another
    /// thread's write counts only where the two are morally strong. For an access `x` before
    /// `e`: `s` before `x` (a write) or before the write `u` it reads from (`e →fr u →rf x →po
    /// e`). After `e`: `s` after `x` (`x →co s →rf e →po x`) or after `u` (`s →rf e →po x →fr
    /// s`). A plain generic read only: a `cas` read would move the events after it.
    pub(super) fn own_thread_rules_out(&self, g: &ExecutionGraph, e: EventId, s: EventId, kept: &dyn Fn(EventId) -> bool) -> bool {
        let le = g.label(e);
        if !le.is_read() || le.atomic || !super::po_orders(le) {
            return false;
        }
        let Some(ps) = g.co_position(s) else { return false };
        let (t, i) = (e.thread as usize, e.index as usize);
        let ms = |a: EventId, b: EventId| self.morally_strong(g, (a, g.label(a)), (b, g.label(b)));
        g.threads[t].iter().enumerate().any(|(j, x)| {
            let (xe, lx) = (EventId::new(t, j), &x.label);
            if j == i || !lx.is_access() || lx.vloc != le.vloc || !super::po_orders(lx) || g.is_hole(xe) || !kept(xe) {
                return false;
            }
            if lx.is_write() {
                let Some(px) = g.co_position(xe) else { return false };
                return if j < i { ps < px } else { s == xe || (ps > px && ms(xe, s) && ms(s, e)) };
            }
            let Some(u) = x.rf.filter(|&u| u.is_init() || kept(u)) else { return false };
            let Some(pu) = g.co_position(u) else { return false };
            if j < i { ps < pu && ms(e, u) && ms(u, xe) } else { ps > pu && ms(s, e) && ms(xe, s) }
        })
    }
}

impl Ptx {
    /// For the checks of debug builds: whether every choice that
    /// [`co_floor`](crate::model::MemoryModel::co_floor) ruled out for `e` beyond its thread's own
    /// writes (indices `own..floor` of `g.writes_to`) makes an inconsistent graph. (`e` with no
    /// dependencies: a graph inconsistent without them is inconsistent with them.) Not asked of
    /// a graph with holes, which the model judges only once the explorer has taken them out.
    pub(super) fn below_floor_inconsistent(&self, g: &ExecutionGraph, e: EventId, l: &Label, own: usize, floor: usize) -> bool {
        use crate::model::MemoryModel;
        if g.has_holes() {
            return true;
        }
        let writes: Vec<EventId> = g.writes_to(l.loc).collect();
        (own..floor).all(|k| {
            let mut g2 = g.clone();
            if l.is_read() {
                let ev = crate::exec::event::NewEvent { label: *l, value: 0, deps: 0, cas_expected: None, span: Default::default() };
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
    use crate::exec::event::EventId;
    use crate::exec::graph::ExecutionGraph;
    use crate::exec::interp::{Step, replay};
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
                    let ev = crate::exec::event::NewEvent { label, value: 3, deps: 0, cas_expected: None, span: Default::default() };
                    g.put_event(e, &ev, None);
                }
                assert_eq!(ptx.co_floor(&g, e, &label), want, "store {store}, flag seen {flag_seen}");
                // The floor read off the graph finds it too (the program synchronises through
                // its `fence.sc` alone, so `co_floor` asks no more), and so does the one
                // computed from base causality.
                assert_eq!(ptx.forced_fence_floor(&g, e, &label, 0), Some(want), "store {store}, flag seen {flag_seen}");
                assert_eq!(ptx.causal_floor(&g, e, &label, 0), want, "store {store}, flag seen {flag_seen}");
            }
        }
    }

    fn compile(text: &str) -> CompiledProgram {
        CompiledProgram::compile(&tcfuzz_litmus::parse(text).expect("parses")).expect("compiles")
    }

    /// The label of thread `t`'s next event in `g`.
    fn next_label(prog: &CompiledProgram, g: &ExecutionGraph, t: usize) -> crate::program::label::Label {
        let values: Vec<i64> = g.threads[t].iter().map(|e| e.value).collect();
        match replay(&prog.threads[t], &values, 4).expect("replays").step {
            Step::Event(ev) => ev.label,
            _ => panic!("thread {t} has ended"),
        }
    }

    /// `P1` has read `x = 2`: its next access of `x` neither reads nor goes before an earlier
    /// write (CoRR, CoRW: SC per location, §8.10.5) — with relaxed accesses, morally strong.
    /// Weak ones are not (§8.7): no floor, and PTX allows the stale read
    /// (`examples/ptx/CoRR+weak-loads.litmus`).
    #[test]
    fn an_access_does_not_go_before_what_its_thread_has_read() {
        for (second, strength, want) in
            [("ld.relaxed.gpu r1, x", "relaxed.gpu", 2), ("st.relaxed.gpu x, 3", "relaxed.gpu", 2), ("ld.weak r1, x", "weak", 0)]
        {
            let prog = compile(&format!(
                "PTX own-reads
{{ x = 0; }}
 P0@cta 0,gpu 0      | P1@cta 1,gpu 0        ;
 st.relaxed.gpu x, 1 | ld.{strength} r0, x ;
 st.relaxed.gpu x, 2 | {second}              ;
exists (true)
"
            ));
            let ptx = Ptx::new(&prog);
            let init = prog.locations.iter().map(|l| l.init).collect();
            let mut g = ExecutionGraph::new(init, 2);
            add(&prog, &mut g, 0, None);
            let two = add(&prog, &mut g, 0, None);
            add(&prog, &mut g, 1, Some(two));
            let label = next_label(&prog, &g, 1);
            if label.is_write() {
                // In its thread, not yet in `co` (as `visit_cos` has it).
                let ev = crate::exec::event::NewEvent { label, value: 3, deps: 0, cas_expected: None, span: Default::default() };
                g.put_event(EventId::new(1, 1), &ev, None);
            }
            assert_eq!(ptx.co_floor(&g, EventId::new(1, 1), &label), want, "{second} after a {strength} read");
            let floor = ptx.floor_after_own_reads(&g, EventId::new(1, 1), &label, 0);
            assert_eq!(floor, want, "{second} after a {strength} read");
        }
    }

    /// `P1` reads `x`, then reads (`x = 1`) or writes `x`: its first read cannot read a write
    /// after what the second one read, nor the thread's own later write or one after it
    /// (`s →rf e →po x →fr s`, `x →co s →rf e →po x`, SC per location §8.10.5; `x →rf e →po
    /// x`, Causality §8.10.6). A later access that is not kept says nothing; weak loads are not
    /// morally strong with the other thread's writes (§8.7).
    #[test]
    fn a_reads_own_thread_rules_out_sources() {
        for (first, second) in [
            ("ld.relaxed.gpu r0, x", "ld.relaxed.gpu r1, x"),
            ("ld.relaxed.gpu r0, x", "st.relaxed.gpu x, 3"),
            ("ld.weak r0, x", "ld.weak r1, x"),
        ] {
            let prog = compile(&format!(
                "PTX own-thread
{{ x = 0; }}
 P0@cta 0,gpu 0      | P1@cta 1,gpu 0       ;
 st.relaxed.gpu x, 1 | {first} ;
 st.relaxed.gpu x, 2 | {second} ;
exists (true)
"
            ));
            let ptx = Ptx::new(&prog);
            let init = prog.locations.iter().map(|l| l.init).collect();
            let mut g = ExecutionGraph::new(init, 2);
            let one = add(&prog, &mut g, 0, None);
            let two = add(&prog, &mut g, 0, None);
            let e = add(&prog, &mut g, 1, Some(EventId::init(0)));
            let later = add(&prog, &mut g, 1, (!second.starts_with("st")).then_some(one));
            let all = |_: EventId| true;
            let ruled_out = |s: EventId| ptx.source_ruled_out(&g, e, s, &all);
            if second.starts_with("st") {
                // `x = 3` is last in `co`: `e` may read anything before it.
                assert!(!ruled_out(one) && !ruled_out(two), "{second}");
                assert!(ruled_out(later), "{second}");
                continue;
            }
            let strong = !first.contains("weak");
            assert!(!ruled_out(one), "{first}");
            assert_eq!(ruled_out(two), strong, "{first}");
            assert!(!ptx.source_ruled_out(&g, e, two, &|x: EventId| x != later), "{first}");
            assert!(!ruled_out(EventId::init(0)), "{first}");
        }
    }

    /// `P2` reads `x = 1`, then after its `fence.sc` writes `y`, which `P1` reads before its own
    /// `fence.sc`: `P2`'s fence precedes `P1`'s in every Fence-SC order and synchronizes with
    /// it, so `x = 1` precedes `P1`'s read of `x` in causality order (observation by `P2`'s read,
    /// then base causality, §8.9.5), which cannot read `0` (Causality, §8.10.6). The writer has
    /// no fence of its own: only its reader's fence gives the floor. With `.cta` fences in
    /// different CTAs the fences are not morally strong: nothing is read off.
    #[test]
    fn a_readers_fence_gives_the_floor() {
        for (scope, want) in [("gpu", Some(1)), ("cta", None)] {
            let prog = compile(&format!(
                "PTX reader-fence
{{ x = 0; y = 0; }}
 P0@cta 0,gpu 0      | P1@cta 1,gpu 0       | P2@cta 2,gpu 0       ;
 st.relaxed.gpu x, 1 | ld.relaxed.gpu r0, y | ld.relaxed.gpu r0, x ;
                     | fence.sc.{scope}     | fence.sc.{scope}     ;
                     | ld.relaxed.gpu r1, x | st.relaxed.gpu y, 1  ;
exists (true)
"
            ));
            let ptx = Ptx::new(&prog);
            let init = prog.locations.iter().map(|l| l.init).collect();
            let mut g = ExecutionGraph::new(init, 3);
            let x1 = add(&prog, &mut g, 0, None);
            add(&prog, &mut g, 2, Some(x1));
            add(&prog, &mut g, 2, None);
            let y1 = add(&prog, &mut g, 2, None);
            add(&prog, &mut g, 1, Some(y1));
            add(&prog, &mut g, 1, None);
            let (e, label) = (EventId::new(1, 2), next_label(&prog, &g, 1));
            assert_eq!(ptx.forced_fence_floor(&g, e, &label, 0), want, ".{scope}");
            assert_eq!(ptx.co_floor(&g, e, &label), want.unwrap_or(0), ".{scope}");
            assert_eq!(ptx.causal_floor(&g, e, &label, 0), want.unwrap_or(0), ".{scope}");
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
