//! The explorer: stateless, graph-based, optimal DPOR in the style of TruSt (Kokologiannakis,
//! Marmanis, Gladstein, Vafeiadis, "Truly Stateless, Optimal Dynamic Partial Order Reduction",
//! POPL'22), extended with the dependency-based revisits of HMC (Kokologiannakis & Vafeiadis,
//! "HMC: Model Checking for Hardware Memory Models", ASPLOS'20) for models whose consistent
//! executions may have a cyclic `po ∪ rf` (load buffering) — see [`trust`] for the procedure and
//! [`maximal`] for the test that keeps it optimal.
//!
//! Contract: every consistent execution graph in the explored class is produced exactly once
//! (verified in debug mode by hashing every produced graph: [`crate::Options::detect_duplicates`]),
//! and memory stays polynomial in the program size (the recursion holds one graph per level;
//! there is no set of visited states).
//!
//! # Two kinds of revisits
//! A new write `w` may revisit a read `r` of its location that is not in its *prefix*: the
//! revisit keeps `{e | e ≤_G r}` (`≤_G`: the order of addition) and the prefix, deletes the rest,
//! and makes `r` read from `w`. An execution is reachable when some order of addition puts every
//! event after its prefix, so the prefix decides what is explored:
//! - *TruSt* (SC; PTX and Tile IR with [`crate::Options::exclude_porf_cycles`]; a PTX program
//!   none of whose executions can have a cyclic `po ∪ rf`, [`revisits`]): the `po ∪ rf`-prefix.
//!   Complete for the `po ∪ rf`-acyclic executions.
//! - *HMC* (PTX and Tile IR, [`revisits::Revisits::dependency`]): the *dependency prefix*
//!   ([`holes::dep_prefix`]) — HMC's `(ppo ∪ rf)`-prefix with `ppo` what the explorer itself
//!   needs kept in order: `rf`, data and control dependencies (which No-Thin-Air makes acyclic
//!   with `rf` in every consistent execution), whatever decides whether a thread goes on past an
//!   event (a barrier and its partners, a `tcgen05.alloc` read; a blocking wait on an mbarrier
//!   or counted barrier is a control dependency of every later event of its thread, as the loop
//!   it stands for would be, [`crate::exec::interp`]) or where its later events sit (the
//!   register a `cas` compares with, the register accumulator flag of an `mma`), and instructions
//!   whole where that costs nothing (an rmw's write with its read unless it depends on more,
//!   `tcgen05` operations). No other program order, and Tile IR orders a tile block only by
//!   tokens: `r = ld x; st y, 1 | ld y; st x, 1` gets `r = 1`, and so does a Tile IR load reading
//!   a later store of its own tile block that it does not wait for. (A PTX read of a later write
//!   of its own thread, to the same address, breaks Causality: the model rules those revisits
//!   out before the maximality test, [`crate::model::MemoryModel::revisit_forbidden`]. Through
//!   an alias, or from an asynchronous operation, it can happen.)
//!
//! # What dependency revisits need
//! 1. *Holes.* The kept set need not be a `po`-prefix: an event removed while a `po`-later one of
//!    its thread stays leaves a hole ([`crate::exec::graph::HOLE`]). A thread with holes goes on at its
//!    first hole (an rmw's write right after its read), and holes are filled before any thread
//!    goes past its last event. A kept event depends on nothing deleted, so the event refilling a
//!    hole is the same instruction.
//! 2. *Judging.* The models judge a graph without its holes ([`holes::Compacted`]): PTX without them
//!    (events renumbered, program order between the others unchanged), Tile IR with each hole an
//!    event no axiom looks at (token order is a table per event index). Both models are
//!    *monotone* (removing any events, with the reads of removed writes, keeps a graph
//!    consistent), which this needs.
//! 3. *Positions.* An event's position in its thread is what the interpreter gives it, and a
//!    `cas` that stops (or starts) writing moves every later event; when such a read's value
//!    changes while later events stay, they are renumbered ([`holes::fix_cas_layout`]).
//! 4. *Maximality* (TruSt §5): a revisit happens only from the one graph, among those it would
//!    turn into the same graph, whose deleted events took the `co`-latest choices — with holes,
//!    the `co`-latest choices with which the graph can still be completed, since kept events after
//!    a hole constrain what fills it ([`maximal`]).
//!
//! # Not explored
//! [`revisits::Revisits::caveats`] names them in the verdict, for the programs that could have them:
//! - Load buffering through a barrier that a thread reaches after a branch on a value it read
//!   (the barrier, in the prefix of what follows it in every member thread, control-depends on
//!   the read), where the revisiting write depends on a read of its thread:
//!   `ld x; beq ...; bar.sync 0 | bar.sync 0; st y, 1 | ld y; st x, r` with the third thread
//!   outside the barrier. (With `st x, 1` the prefix of the store holds no barrier, and the
//!   explorer reaches the cycle: [`trust`]'s `barrier_cycle_possible`.) An `assume` on the
//!   value is such a branch: the thread goes past it only where the value passes.
//! - Load buffering through a `cas` that fails only because it reads a write later on the cycle,
//!   while events after it in its thread (an access of its location, a release) need it to fail:
//!   every graph a revisit could start from has it read an earlier write, and where those all
//!   hold its expected value it writes there, and the events after it are inconsistent — no graph
//!   to revisit from exists (one of 9,000 random PTX programs). Likewise where the revisit is
//!   taken but leaves the `cas` a hole that only a write it deleted can fill: holes are filled
//!   before that write comes back. (Letting such a hole wait for later writes finds those
//!   executions but duplicates others: the maximality test would have to know, exactly, which
//!   holes wait and for what.) Nor through the register a `cas` compares with (its read needs
//!   the reads that register comes from). A `cas` kept with its thread (below) never becomes
//!   such a hole: `selftest` seed 251232, once missed this way, is reached
//!   (`ptx::cas_reading_a_store_the_revisit_deletes_is_reached`). The rest of this class is
//!   not about holes (the graph to revisit from is missing, or the cycle runs through the
//!   `cas`'s own write), so its caveat stays even for a `cas` kept with its thread.
//!
//! - The same hole without load buffering (a known gap, open, of the dependency revisits only:
//!   a program explored with TruSt's, [`revisits`], has no holes): a write that revisits a read and
//!   depends on a later read of its thread, but not on a `cas` before that read, leaves the
//!   `cas` a hole, refilled before the write it reads in the missed executions comes back (28
//!   of the oracle's 30 executions of
//!   `ptx::cas_off_every_cycle_is_kept_with_its_thread_and_never_a_hole` before the fix
//!   below). No cycle is needed. *Closed where no cycle of needs can go on from
//!   the rmw*: such an rmw is kept with every later event of its thread, as a barrier is
//!   ([`crate::program::label::Label::orders_thread`], static tests in
//!   `program::ordering_rmws`), and never becomes a hole; that loses no execution, the prefix
//!   staying acyclic with `rf` in every consistent one. Open for the others (an rmw on a
//!   possible load-buffering cycle whose later events need nothing of it), which the caveat
//!   names: an rmw that is not so kept, with an instruction that may run after it and a write of
//!   its location elsewhere (`revisits`'s `rmw_hole_possible`) — and, under PTX, only where the
//!   exploration met a revisit that left an rmw's read a hole while it deleted a write of that
//!   read's location ([`maximal::rmw_hole_left`]), or one the maximality test rejected that kept
//!   an rmw's read of a write it deleted and left the rmw's write a hole
//!   ([`maximal::rmw_write_hole_left`]; `selftest` seed 35063193, 4 of 48 executions missed with
//!   no caveat before), one of which every execution of the gap seen so far needs: the
//!   hole is refilled before that write comes back. (On the 1,600 programs of `tcfuzz generate
//!   --seed 9 --family random` the caveat stood on 13 PTX verdicts where it was first made, 47
//!   without that test; now on 30, 8 of them from the rejected revisits, 7 of those 8 explored
//!   exactly — the test over-approximates.)
//!   (Under Tile IR the caveat also stands for executions that no graph leads to, a write
//!   reaching a read of its own tile block, and stays as the program gives it:
//!   `revisits::caveats_met`.)
//!   The class is wider than a `cas`: any read the revisit leaves a hole whose only consistent
//!   sources are writes the revisit deletes without leaving holes. The caveat names it for
//!   every atomic rmw (an acquire `exch` between two relaxed rmws, `selftest` seed 446578: 29 of
//!   the oracle's 30 executions before that exch was kept with its thread,
//!   `ptx::exch_hole_refilled_before_its_source_returns_is_closed_by_keeping_the_exch`),
//!   asking for another rmw than a `cas` also that a later instruction of its thread reach
//!   another thread (what keeps a later event when the revisit deletes the rmw). It does not
//!   name plain loads: the same test for every load names over a third of all random programs.
//!   A hole (load or rmw) that no write of the graph can fill waits for a write to come
//!   ([`trust`], "Waiting holes"); before that, one execution was missed through a load hole
//!   with no caveat (`selftest` seed 9016819). A load hole that some write of the graph can
//!   fill, but not the one a missed execution needs, has not been seen (`selftest`, over
//!   100,000 programs).
//!
//! - Load buffering through an atomic rmw that Atomicity holds in place: a write needs another
//!   thread's rmw that reads the write of the rmw it would revisit, as it must wherever both
//!   could read one write, and the graphs where the revisited rmw reads the other's write
//!   instead are all inconsistent — no graph to revisit from exists, and no revisit attempt
//!   meets the loss (`known_gaps::assume_58085115`: 18 of 54 executions, no caveat before).
//!   Detected while exploring, where such a revisit is refused ([`holes::held_by_atomicity`],
//!   an over-approximation: on 3 of the 1,600 `generate --seed 9` programs, the two the oracle
//!   can judge explored exactly).
//!
//! For a PTX program both classes are judged on its instruction graph ([`crate::program::porf_cycles`]):
//! the `cas` class needs a load-buffering cycle the model allows in some execution (not one
//! with a `fence.sc` morally strong with every thread's on each stretch, nor one of atomics of a
//! single location reading each other's writes) that goes on from the `cas` in program order (a
//! failing `cas` writes nothing: a cycle through it leaves it through its later events; a `cas`
//! comparing with a register is named on any cycle through it, which a cycle through that
//! register is; a `cas` with a constant expected value its location never holds, by the values
//! [`oracle::possible_runs`] finds, is not named: it fails in every execution and reads as a
//! load does; nor is a `cas` that no trace over those values performs), the barrier class a
//! read that reaches, through a barrier arrival, a write it may read (program order following
//! the branches). The lost revisit and the rmw Atomicity holds are detected while exploring.
//!
//! [`crate::check_oracle`] has none of these limits.

pub(crate) mod bound;
pub(crate) mod check;
mod donate;
mod holes;
mod maximal;
pub(crate) mod oracle;
mod revisits;
pub(crate) mod split;
pub(crate) mod trust;
