//! Revisits the model rules out before the explorer builds them
//! ([`crate::model::MemoryModel::revisit_forbidden`]): a read that would read a later write of
//! its own thread, and one that would close a `po ∪ rf` cycle on which every stretch of program
//! order passes a `fence.sc` morally strong with every other such fence.
//!
//! **A later write of the read's own thread.** Program order is part of base causality order
//! (§8.9.5), which between two generic accesses of one virtual address is causality order; a
//! read that reads a write after it in causality order breaks Causality (§8.10.6).
//!
//! **Why a fenced cycle is inconsistent.** Write the cycle as `W_n rf R_1 po F_1 po W_1 rf R_2 po
//! F_2 po W_2 … rf R_n po F_n po W_n`, each `F_i` a `fence.sc` between the read `R_i` where the
//! cycle enters a thread and the write `W_i` where it leaves it. Fence-SC order (§8.9.3) is total
//! on morally strong `fence.sc` pairs, and going round the cycle it cannot increase at every
//! step, so some `F_j` precedes `F_{j-1}` (indices mod `n`; were all the fences one event, `R_j`
//! would read a write after it in its own thread). Then `F_j` synchronizes with `F_{j-1}`
//! (§8.9.4), so `R_j po F_j sw F_{j-1} po W_{j-1}` puts `R_j` before `W_{j-1}` in base causality
//! order (§8.9.5), and in causality order: both are generic accesses of one virtual address
//! (proxy-preserved base causality, §8.9.5). But `R_j` reads from `W_{j-1}`, which Causality
//! (§8.10.6, `irreflexive((rf ∪ fr) ; causality)`) forbids. The argument holds in any graph that
//! holds the cycle, so no extension of the revisited graph is consistent either.

use super::Ptx;
use crate::exec::event::EventId;
use crate::exec::graph::ExecutionGraph;
use crate::program::ThreadPlace;
use crate::program::label::{Label, Proxy};

impl Ptx {
    /// Whether `r` reading from `a` breaks Causality in every graph that holds the events `kept`
    /// accepts (module docs): `r` comes before `a` in their thread, or some path `r (po through a
    /// fence ; rf)* po through a fence a` runs over kept events.
    pub(super) fn fenced_cycle(&self, g: &ExecutionGraph, a: EventId, r: EventId, kept: &dyn Fn(EventId) -> bool) -> bool {
        let generic = |l: &Label| l.proxy == Proxy::Generic && !l.is_async() && l.bulk_copy == 0 && l.tc.is_none();
        let (la, lr) = (g.label(a), g.label(r));
        if !generic(la) || !generic(lr) || la.vloc != lr.vloc {
            return false;
        }
        // A read before the write in its own thread: program order alone is causality order.
        if r.thread == a.thread && r.index < a.index {
            return true;
        }
        if !self.global_sc_fences {
            return false;
        }
        let mut stack = vec![a];
        let mut seen = vec![Vec::new(); g.threads.len()];
        while let Some(x) = stack.pop() {
            let (t, i) = (x.thread as usize, x.index as usize);
            let evs = &g.threads[t];
            // The last fence before `x` that orders against every thread's fences.
            let global = |j: usize| kept(EventId::new(t, j)) && global_sc_fence(&self.places, t, &evs[j].label);
            let Some(f) = (0..i).rev().find(|&j| global(j)) else { continue };
            for (j, y) in evs[..f].iter().enumerate() {
                let ye = EventId::new(t, j);
                if !y.label.is_read() || !generic(&y.label) || !kept(ye) || seen[t].contains(&j) {
                    continue;
                }
                if ye == r {
                    return true;
                }
                seen[t].push(j);
                match y.rf {
                    Some(z) if !z.is_init() && kept(z) && g.label(z).vloc == y.label.vloc && generic(g.label(z)) => stack.push(z),
                    _ => {}
                }
            }
        }
        false
    }
}

/// A `fence.sc` of thread `t` whose scope includes every thread (placed at `places`): morally
/// strong with every other such fence (§8.7).
pub(super) fn global_sc_fence(places: &[ThreadPlace], t: usize, l: &Label) -> bool {
    l.is_fence() && l.sc && l.strong && l.proxy == Proxy::Generic && places.iter().all(|p| places[t].scope_includes(l.scope, p))
}

#[cfg(test)]
mod tests {
    use crate::exec::event::EventId;
    use crate::exec::graph::ExecutionGraph;
    use crate::model::MemoryModel;
    use crate::model::ptx::Ptx;
    use crate::model::ptx::floor::tests::add;
    use crate::program::CompiledProgram;

    /// Load buffering: `P0` reads `y` and writes `x`, `P1` reads `x` and writes `y`, each with
    /// its fence (or none) between the two.
    fn lb(fence0: &str, fence1: &str) -> CompiledProgram {
        let text = format!(
            "PTX lb
{{ x = 0; y = 0; }}
P0@cta 0,gpu 0 {{ ld.relaxed.gpu r0, y; {fence0} st.relaxed.gpu x, 1; }}
P1@cta 1,gpu 0 {{ ld.relaxed.gpu r0, x; {fence1} st.relaxed.gpu y, 1; }}
exists (true)
"
        );
        CompiledProgram::compile(&tcfuzz_litmus::parse(&text).expect("parses")).expect("compiles")
    }

    /// `P0` whole, reading the initial `y`; then `P1` whole, reading `P0`'s `x`. Returns the
    /// graph, `P0`'s read and `P1`'s write.
    fn graph(prog: &CompiledProgram) -> (ExecutionGraph, EventId, EventId) {
        let init: Vec<i64> = prog.locations.iter().map(|l| l.init).collect();
        let mut g = ExecutionGraph::new(init, 2);
        let y = prog.locations.iter().position(|l| l.name == "y").expect("y") as u32;
        let r = add(prog, &mut g, 0, Some(EventId::init(y)));
        let mut x_write = r;
        while g.threads[0].len() < prog.threads[0].code.len() {
            x_write = add(prog, &mut g, 0, None);
        }
        add(prog, &mut g, 1, Some(x_write));
        let mut a = r;
        while g.threads[1].len() < prog.threads[1].code.len() {
            a = add(prog, &mut g, 1, None);
        }
        (g, r, a)
    }

    /// What `fenced_cycle` says about `P0`'s read reading `P1`'s write, and what the full check
    /// says about the graph with that cycle.
    fn verdicts(fence0: &str, fence1: &str) -> (bool, bool) {
        let prog = lb(fence0, fence1);
        let ptx = Ptx::new(&prog);
        let (mut g, r, a) = graph(&prog);
        let ruled_out = ptx.fenced_cycle(&g, a, r, &|_| true);
        g.set_rf(r, a);
        (ruled_out, ptx.is_consistent(&g))
    }

    #[test]
    fn a_cycle_with_a_global_fence_sc_on_each_side_is_ruled_out() {
        assert_eq!(verdicts("fence.sc.gpu;", "fence.sc.gpu;"), (true, false));
        assert_eq!(verdicts("fence.sc.sys;", "fence.sc.gpu;"), (true, false));
    }

    /// One side without a fence, or fences whose scope leaves the other thread out (no
    /// Fence-SC order between them, nor synchronizes-with): PTX allows the cycle, and the test
    /// does not rule it out.
    #[test]
    fn a_cycle_missing_a_fence_or_with_a_narrow_one_is_left_to_the_model() {
        assert_eq!(verdicts("", "fence.sc.gpu;"), (false, true));
        assert_eq!(verdicts("fence.sc.cta;", "fence.sc.cta;"), (false, true));
        // Release and acquire fences forbid it through synchronizes-with along the `rf` edges
        // (§8.9.4); the test, only a sufficient condition, leaves that to the full check.
        assert_eq!(verdicts("fence.acq_rel.gpu;", "fence.acq_rel.gpu;"), (false, false));
    }

    /// A read of a later write of its own thread, with no fence at all.
    #[test]
    fn a_read_of_a_later_write_of_its_own_thread_is_ruled_out() {
        let text = "PTX own
{ x = 0; }
P0@cta 0,gpu 0 { ld.weak r0, x; st.weak x, 1; }
exists (true)
";
        let prog = CompiledProgram::compile(&tcfuzz_litmus::parse(text).expect("parses")).expect("compiles");
        let ptx = Ptx::new(&prog);
        let mut g = ExecutionGraph::new(vec![0], 1);
        let r = add(&prog, &mut g, 0, Some(EventId::init(0)));
        let a = add(&prog, &mut g, 0, None);
        assert!(ptx.fenced_cycle(&g, a, r, &|_| true));
        g.set_rf(r, a);
        assert!(!ptx.is_consistent(&g));
    }

    /// The cycle needs every event on it: with `P1`'s read deleted by the revisit, the graph
    /// left is consistent, and the test must not rule it out.
    #[test]
    fn a_cycle_through_a_deleted_event_is_not_ruled_out() {
        let prog = lb("fence.sc.gpu;", "fence.sc.gpu;");
        let ptx = Ptx::new(&prog);
        let (g, r, a) = graph(&prog);
        let p1_read = EventId::new(1, 0);
        assert!(!ptx.fenced_cycle(&g, a, r, &|e| e != p1_read));
    }
}
