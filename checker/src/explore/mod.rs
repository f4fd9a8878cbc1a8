//! The explorer: stateless, graph-based, optimal DPOR in the style of TruSt (Kokologiannakis,
//! Marmanis, Gladstein, Vafeiadis, "Truly Stateless, Optimal Dynamic Partial Order Reduction",
//! POPL'22), extended with the dependency-based revisits of HMC (Kokologiannakis & Vafeiadis,
//! "HMC: Model Checking for Hardware Memory Models", ASPLOS'20) for models whose consistent
//! executions may have a cyclic `po ∪ rf` (load buffering) — see [`trust`] for the procedure.
//!
//! Contract: every consistent execution graph in the explored class is produced exactly once
//! (verified in debug mode by hashing every produced graph: [`crate::Options::detect_duplicates`]),
//! and memory stays polynomial in the program size (the recursion holds one graph per level;
//! there is no set of visited states).
//!
//! # Two kinds of revisits
//! - *TruSt* (SC, Tile IR, and PTX with [`crate::Options::exclude_porf_cycles`]): a new write `w`
//!   may revisit a read `r` outside its `po ∪ rf`-prefix; the revisit keeps `{e | e ≤_G r}` and
//!   that prefix. Complete for the `po ∪ rf`-acyclic executions.
//! - *HMC* (PTX, [`trust::explores_porf_cycles`]): the prefix of `w` is its *dependency prefix*
//!   ([`holes::dep_prefix`]): the closure under `rf`, data and control dependencies (the
//!   interpreter tracks them for No-Thin-Air), and a *pinned* program order (an event needs the
//!   earlier barrier arrivals of its thread, its earlier accesses of the same location, and the
//!   earlier reads of a `cas` that may or may not write), with rmws kept whole. So `w` may
//!   revisit a read that is `po`-before it, or `po`-before a write `w` depends on, when no
//!   dependency links them: `r = ld x; st y, 1 | ld y; st x, 1` gets `r = 1` (LB).
//!
//! The rules that make HMC revisits exact for PTX (each found by comparing with the oracle):
//! 1. *Holes.* The kept set need not be a `po`-prefix: an event removed while a `po`-later one of
//!    its thread stays leaves a hole ([`crate::graph::HOLE`]). A thread with holes goes on at its
//!    first hole, and holes are filled before any thread goes past its last event. Models judge
//!    the graph without its holes ([`holes::compact`]); PTX is *monotone* (removing any events,
//!    with the reads of removed writes, keeps a graph consistent), which this needs.
//! 2. *Positions.* An event's position in its thread is what the interpreter gives it, and a
//!    `cas` that stops (or starts) writing moves every later event; when such a read's value
//!    changes while later events stay, they are renumbered ([`holes::fix_cas_layout`]).
//! 3. *Maximality* (TruSt §5, what makes the exploration optimal): a revisit happens only from
//!    the one graph among those it would turn into the same graph in which every removed event,
//!    and `r`, was *added maximally*: reads from (is) the `co`-latest write among the events
//!    before it (`Previous(e) = {x | x ≤_G e} ∪ prefix(w)`). Where kept events follow `e` in its
//!    thread (after a hole), the `co`-latest choice may contradict them; then the canonical
//!    choice is the `co`-latest one with which `Previous(e)` stays consistent (checked with the
//!    model), the test GenMC's `isCoBeforeSavedPrefix` approximates.
//!
//! Not explored (PTX): executions whose `rf ∪ ppo` is cyclic, `ppo` being the dependencies and the
//! pinned program order above — load buffering through a barrier, through a `cas` that may fail,
//! or through program order between two accesses of one location (`po-loc`; without it in the
//! prefix, a removed event followed by a kept access of its location constrains the choices the
//! maximality test can make, and revisits were lost or duplicated). The oracle leaves them out with
//! [`crate::Options::exclude_dependency_cycles`]; a verdict for a program that could have them
//! carries a caveat ([`trust::may_have_pinned_cycles`]).

mod holes;
mod maximal;
pub(crate) mod trust;
