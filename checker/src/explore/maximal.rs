//! TruSt's maximality condition (Kokologiannakis et al., POPL'22, §5): the test that keeps the
//! exploration optimal, extended to the holes of HMC's dependency revisits.
//!
//! A revisit of read `r` by write `a` in graph `G` keeps `K = {e | e ≤_G r} ∪ prefix(a)` and
//! deletes the other events (`Deleted`). Many graphs `G` — differing in what the deleted events
//! read, where the deleted writes sit in `co`, and what `r` read — turn into the same revisited
//! graph; exactly one of them may perform the revisit, or the result would be explored once per
//! such `G`. TruSt picks the one in which every `e ∈ Deleted ∪ {r}` was *added maximally*: with
//! `Previous(e) = {x | x ≤_G e} ∪ prefix(a)` (what `e` could have seen, whatever the order in
//! which the kept events came), no read of `Previous(e)` reads from a deleted write, and `e`
//! reads from (a read) or sits right after (a write) the `co`-latest write of its location in
//! `Previous(e)`. Going through `Deleted ∪ {r}` in the order of addition, each choice is then a
//! function of the kept graph and the choices before it: one graph qualifies.
//!
//! It must also be a graph the exploration reaches, or the revisit is lost. Without holes it is:
//! an event that follows every kept event of its thread can always take the `co`-latest choice
//! (nothing comes after it). With holes it need not be: kept events after a deleted event of
//! their thread constrain it (in PTX, two accesses of one location in one thread are morally
//! strong, so a kept read after a deleted write of its location forces that write `co`-before
//! the write the read sees), and through the deleted events that fill the other holes the
//! constraint reaches further (a deleted read before such a write may then not read what the
//! kept read sees); the write of an rmw whose read is kept must sit right after what the read
//! reads from. So the canonical choice is the `co`-latest one *with which the graph can still be
//! completed*: `e` is maximal when no `co`-later write `s` of `Previous(e)` admits a consistent
//! graph made of `Previous(e)` with `e` taking `s`, and of the holes that the deleted events added
//! after `e` leave before kept events, filled in any way ([`Explorer::completable`]). The
//! revisiting write is left out of `co` (it has no place there yet, and is the same in every
//! `G`; but for the refilled write half of an rmw whose read a revisit kept, which every such
//! `G` has in place, [`placed_before_revisit`]) but holds its place in its thread: the deleted events before it there are holes the
//! revisit leaves, to be filled like the others (`ld x; atom.exch r1, x, r0; st z, r1` revisiting
//! a read of `z` keeps the exch's read, which the store depends on, and must refill its write,
//! which another exch may read). The deleted events after every kept event of their thread are
//! left out: the model is monotone, and they can always be added last — unless a hole can take
//! its source only from one of them, so the completion lets threads go on past their last event
//! where the holes cannot be filled otherwise ([`Explorer::completable`]). The completions are the
//! graphs the exploration reaches with `Previous(e)` as it is and `e` taking `s`, so the graph
//! that qualifies is the greatest — in the order of addition, choice by choice — of those a
//! revisit turns into the same graph.
//!
//! With holes, the revisited read `r` itself may have no such choice: kept events after a hole
//! can force `r` to read a write that fills that hole, added after `r` (which it revisited) and
//! deleted now. `ld y; ld x; st x, 2 | bar; ld x; st x, 1 | st x, 2; bar` (sync seed 453340667):
//! P1's `ld x` comes after the barrier, so it must see P2's `st x, 2`; for P0's store to revisit
//! it, the graph must hold P2's store — added after the read, and deleted by the revisit while
//! P2's barrier stays. No graph in which `r` reads from `Previous(r)` can be completed
//! ([`Explorer::completable_with_previous_source`]), so the canonical graph is one where `r`
//! reads such a *forced* source ([`forced_source`]): a deleted write that leaves a hole (a kept
//! event follows it in its thread), the `co`-latest such write of the location (but for `r`'s
//! own write half, which Atomicity puts right after it, and but for a later write of `r`'s own
//! thread, which Causality, §8.10.6, forbids it to read wherever the others go: `ld x; st y, 1
//! | ld x; fence.sc; ld y; st y, 1; st x, 2 | st y, 1; fence.sc; st x, 2` (`tcfuzz generate
//! --seed 6` program 5741, shrunk) — for P0's `st y` to revisit P1's `ld y`, which reads P2's
//! `st y` (the `fence.sc`s leave it nothing earlier), P2's store is deleted and leaves a hole;
//! P1's own `st y`, `co`-after it and deleted too, left P2's store not the `co`-latest, and the
//! revisit was lost: 83 of 84 executions). A deleted write that leaves no hole
//! does not count: it is no forced source itself (below), and counting it made the revisit
//! lost wherever it was `co`-latest (the fenced property test's seed 339: 157 of 160
//! executions). `r` then stands right after its source in the order of addition (where its
//! value was chosen, as a chained read below), so that every `Previous(e)` stays closed under
//! `rf`, and is exempt from the rule that no read of `Previous(e)` reads a deleted write (the
//! revisit replaces its source). The source need
//! not come before every deleted event: `atom.exch r1, y, 1 | atom.exch r0, x, 0; atom.exch r1,
//! y, r0; bne r1, 1, L; L: st y, 1` (selftest seed 7407) — for the store to revisit the first
//! exch, the second exch's read stays (the branch needs it) without its write (which needs the
//! `x` exch, deleted), so the first exch cannot read the initial `y` with it and reads that
//! write, added after the `x` exch (3 of 17 executions were lost when the source had to come
//! first). A deleted source that leaves no hole is not accepted: it
//! comes back after `a`, revisits `r` in turn, and the two would revisit each other for ever
//! (`szymanski` n = 2, `T1: st flag2, 0; st flag2, 1` against T0's first read of `flag2`).
//! As for chained reads (below), the completion that test asks for leaves open the holes `next`
//! has not yet come to when it adds `a` ([`may_wait`]): a graph in which `r` reads from
//! `Previous(r)` while those are still holes is one the revisit starts from. (`selftest --family
//! proxy` seed 20009547, minimized: `atom.add x; ld y; st.weak x_gen | st y; st y_gen;
//! fence.proxy.alias; atom.release.add x`. P1's two stores of `y` name different aliases, so
//! nothing orders them in `co`, and neither is in the other's dependency prefix. With both holes
//! and P0's `ld y` kept after them, each refilled store revisited the load, deleting the other
//! into a hole that was then its forced source: the two revisited each other until the depth
//! limit stopped the check. Left open, the later store's hole lets the load read the initial
//! value when the earlier store comes back — the graph its revisit comes from — so only the later
//! store's revisit qualifies. The same rule removed the duplicates of `fenced` seeds 15024631 and
//! 20014656: there a refilled store revisited a read a second time, through a store of a later
//! thread that had revisited it in between.)
//!
//! *Forced sources after the revisiting write.* A write of `a`'s own thread after `a` in program
//! order is no forced source of `r`, nor does it make another source not the `co`-latest. In the
//! graph the exploration reaches in program order, `a` came before it and revisited `r` while it
//! was not yet added; it was added before `a` only because `a` was a hole refilled after it.
//! Counted, the two stores revisited each other for ever: `ld x; st y | ld x; fence.sc; ld y; st
//! x | st y; fence.sc; st y; st y; st x` (`selftest --family all` seed 80215259, minimized): with
//! P1's `ld x` reading P2's `st x`, the fences leave P1's `ld y` only P2's stores of `y`; P2's
//! second store revisited it, reading the third, deleting that into a hole before the kept `st
//! x`, and the third, refilled, revisited it reading the second in turn, until the depth limit
//! stopped the check (the oracle: 216 executions, now the explorer's).
//!
//! *Forced sources in the order of addition.* Let `c` be another deleted write of `r`'s location
//! that leaves a hole (and that `r` may read), added after `r`'s forced source `w`. Two graphs
//! reach the revisit: one where `w` revisited `r` and `c` came after it (`co`-after `w`), and one
//! where `c` revisited `r`, deleting `w` into a hole refilled after `c` (`co`-after `c`). Counting
//! `c` against `w` as TruSt counts a `co`-later write, each disqualified the other and the revisit
//! was lost; counting it in neither, both qualify. The one that qualifies is the one whose order
//! of addition is the exploration's own: `next` refills holes first, in thread and program
//! order, then adds new events. So a `c` of another thread added after `w` disqualifies `w`,
//! wherever it sits in `co`, exactly where that order would have added it first — `c` a refilled
//! hole (a later event of its thread was added before it) and `w` not, or both refilled and `c`'s
//! thread first: `c` came after `w` only because `w`'s revisit of `r` deleted it, and the graph in
//! which it came first reaches the same revisit. A `c` added before `w` disqualifies it where it
//! is `co`-after it, as before; so does a `c` of `w`'s own thread, however added: a revisit by
//! the later of two writes of one thread deletes the earlier one wherever it is not in its
//! dependency prefix, so a refill of the earlier after the later tells nothing of the order
//! (judged by order, `szymanski` n = 1 under PTX lost its revisit of T0's first `ld flag2` by
//! T1's `st flag2, 2`, whose canonical graph reads T1's `st flag2, 3`). Where no forced source
//! qualifies, the revisit is lost only where `r` can read none of the others
//! ([`Explorer::completable_with_forced_source`]). The source of a chained read (below) is
//! judged the same way ([`first_added_leaving_hole`]; `tcfuzz fuzz --seed 9090` program 117034,
//! fenced, shrunk: 18 of 756 executions explored twice).
//! (`tcfuzz fuzz --seed 8080` program 19333, shrunk: `ld z_gen; atom.acquire.exch x; ld y; sust
//! y_sur; st z | ld y; st y; atom.release.min x; st y`. For P1's last `st y` to revisit P0's `ld
//! y`, which must see P1's first store or a later one — the release and the acquire order it
//! before — the load reads P0's `sust` (load buffering through the surface proxy) or P1's first
//! store, both refilled holes: 6 of 84 executions were missed, with no caveat. `selftest
//! --family all` seed 80371537, family sync, shrunk: `ld y; st x; st.weak x | bar.cta.sync 2, 2;
//! ld x; st y | st.weak x; bar.cta.sync 2, 2`: for P1's `st y` to revisit P0's `ld y` once the
//! barrier is complete, P1's `ld x` reads P2's refilled `st.weak x` or P0's first store, added
//! new after it: 9 of 78 missed, with no caveat. Seed 86048317, family fenced, where `c` is
//! `co`-before `w`: with only `co`-later writes judged by order, 6 of 114 executions were explored
//! twice.)
//!
//! *A forced source after one it depends on.* The order of addition is made for two graphs in which
//! the candidates' `co` order differs, each with `r` reading the `co`-earlier one. Where `r`'s
//! forced source `w` holds another candidate `c` of another thread in its dependency prefix,
//! `co`-before it (`w` an rmw write whose read reads `c`), `c` stays whenever `w` revisits `r`, in
//! front of it in `co`; so the other graph is one in which `r` reads `c`, and `w`, added after `c`
//! in the exploration's order, is `co`-after it and does not disqualify it. That one qualifies
//! where `r` could read `c` (with `Previous(r)` and `c`'s dependency prefix completable around it),
//! and `w` yields ([`Explorer::forced_source_yields`]; but where `w` came after `c` against the
//! order, which disqualifies `c` there). (`tcfuzz fuzz --seed 9696` program 20969, Tile IR, no
//! tokens: P0's `st f` revisits P1's first `max f`, which Atomicity keeps from the initial `f` —
//! P1's second `max f` reads it — and which has two forced sources, P1's second `max` write and
//! P0's `add f` write, whose read reads that one. Both graphs qualified: 174 of 2,011 executions
//! were explored twice.)
//!
//! *Chained reads.* A deleted read can read a deleted write added after it: an earlier revisit
//! made it read that write, and the two stay together until a later revisit deletes both —
//! which, with holes, can be the only graph from which that later revisit exists. `Atom-SB`
//! (`../shared/conformance`, two threads each doing `atom.acq_rel.add` on `x` then `y` and on
//! `y` then `x`): the execution in which `P1` runs wholly first needs `P1`'s `x` write to
//! revisit `P0`'s `x` read while `P1`'s `y` rmw, not in its dependency prefix, is deleted and
//! leaves holes; the only graph holding what it needs has `P0`'s `y` read reading `P1`'s `y`
//! write, added after it (in the graph where it reads the initial value instead, `P1`'s `y` read
//! would have to see `P0`'s `y` write, and then `P1`'s `x` read cannot read the initial value).
//! So a deleted read `x` of an rmw reading a deleted rmw write `w` added after it that leaves a
//! hole is canonical where it could read nothing else: no write `s` of `Previous(x)` admits a
//! completed graph with `x` reading `s` and the write half the rmw has then in `co` (right after
//! `s` where Atomicity, §8.10.3, holds it there). Any rmw counts, the arrive of an mbarrier or of
//! a `tcgen05.commit` too (with those left out, a commit's arrive reading an `mbarrier.arrive`
//! of another thread that a revisit put before it could never be deleted with it: `selftest`
//! seed 475705, 5 of 7 executions). A `cas` counts whether it wrote or not: what decides is
//! whether it writes reading `s`. (`atom.exch r0, y, 2 | atom.cas r0, z, 0, 2; st y, r0 |
//! atom.add r0, y, 0; atom.exch r1, z, r0; st y, r1`, selftest seed 252842: for the last store
//! to revisit the first exch, the second exch's read stays without its write, and the cas —
//! which cannot read what that read reads — must read the write added after it; with the cas
//! left out of this rule, 155 of 167 executions.) Plain accesses chain the same way: a plain
//! read reading a deleted write (a plain store or an rmw's write) that leaves a hole is
//! canonical where no write `s` of `Previous(x)` admits a completed graph with `x` reading `s`.
//! (`ld y; st x | ld x; ld x; fence.sc; ld y; st y | st y; fence.sc; st x`, selftest seed
//! 432693, family fenced: for P0's `st x` to revisit P1's second `ld x`, P1's `ld y` — deleted,
//! a hole before P1's `st y` — must read P2's `st y`, deleted too and a hole before P2's fence,
//! since with P1's first `ld x` reading P2's `st x` the two `fence.sc` leave it nothing else;
//! it read that store through an earlier revisit. With chained reads limited to rmws, every
//! graph the revisit could start from was rejected and 2 of 126 executions were missed.) Such
//! an `x` stands right after `w` in the order of addition (where its value was chosen), so that
//! every `Previous(e)` stays closed under `rf`.
//!
//! The completion asked of a chained read fills only the holes that a graph the exploration
//! reaches must have filled when it adds `a`: where `a` fills a hole of its thread, `next` has
//! not yet come to the later holes of that thread, nor to those of later threads ([`may_wait`]),
//! and a graph in which `x` reads a write of `Previous(x)` while those are still holes is one
//! the revisit starts from. (Tile IR, fuzz seed 1, program 380820: token-ordered atomics of `x`
//! and `f` in two tile blocks; the refilled write of P0's `add` revisits P0's load both from the
//! graph in which P1's `exch` of `f` is still a hole and P0's `max` reads the initial `f`, and
//! from the one in which P1 refilled it and P0's `max` reads its write, a chained read. The
//! completion filled P1's holes, found no graph with the `max` reading the initial `f`, and
//! counted the chain as canonical too: 7 of 45 executions explored twice.)
//!
//! *Chained reads ahead of a refill.* "The first added" does not single out the graph where a
//! refill changed the order of addition. A write `w` that revisits a read `x` leaves holes
//! before it in its thread where it depends on none of those events, and they are refilled
//! after `w`; a deleted write `y` of `w`'s location among them (before `w` in program order,
//! added after it) is then added after `x`'s source — while in the graph where the thread came
//! in program order, `y` came first and revisited `x` itself. Both are "the first added", and a
//! revisit that deletes all of them turns the two into one graph. So a chained read `x` reading
//! `w` does not qualify where such a `y` exists and `x` could read `y`: a completed graph of
//! `Previous(x)` and `y`'s dependency prefix (which a revisit by `y` keeps) with `x` reading `y`
//! (and its write half right after, for an rmw), holes filled as for the test above. Where `x`
//! cannot read `y` no graph of the other kind exists, and `x` reading `w` is canonical. (`selftest
//! --family ptx` seed 60015091: P1's `st.weak y` revisits P0's first `ld y` both from the graph
//! where P0's `cas` reads P1's `add` write and from the one where it reads P1's `st y, 1`, which
//! had revisited it and left the `ld z` and the `add` holes, refilled after it — 36 of 196
//! executions explored twice; seed 60004622, 27 of 411. Taking only the write first in program
//! order, without asking whether `x` could read it, lost the `szymanski` n = 1 execution under
//! PTX in which T0's second `ld flag2` reads T1's `st flag2, 3`, which had revisited it and left
//! `st flag2, 1` a hole refilled after it, a store the kept reads and the `fence.sc`s forbid it
//! to read: 24 of GenMC's 25 failed-`assume` executions; the
//! `co`-earliest and `co`-latest writes in place of the first added lost executions there and
//! on Tile IR fuzz program 380820.) The same holds of a deleted write `y` of `x`'s own thread
//! after `x` in program order, which reaches `x` through another proxy or an alias (a later write
//! of its own thread that a read may see, `super` module docs): where `w` revisited `x` first,
//! `y` was deleted into a hole and refilled after `w`; where the thread came in program order,
//! `y` came first and revisited `x` itself. (`fuzz --seed 8080` program 19333, minimized: `ld
//! z_gen; exch x; ld y; sust y_sur; st z | st y; min x; exch z`. P1's `exch` write revisits P0's
//! `ld z_gen` from the graph where P0's `ld y` reads the surface store, which revisited it, and
//! from the one where it reads P1's `st y`: 8 of 128 executions explored twice.)
//!
//! *The first added, where it could be read.* Of the graphs in which a chained read `x` reads one
//! of several deleted writes that leave holes, the one where it reads the first added is
//! canonical: an earlier revisit made it read that one, and a later write revisiting it again
//! gives another graph that the same revisit turns into the same. But a write `y` added between
//! `x` and its source `w` makes `x` reading `w` not canonical only where `x` could read `y`, with
//! `y`'s dependency prefix kept as a revisit by `y` keeps it (the completion of "Chained reads
//! ahead of a refill"). Where it cannot, no graph with `x` reading `y` makes the revisit. (`fuzz
//! --seed 9090` program 99613, shrunk: `ld x; st x; barrier.cluster.arrive.release | ld x;
//! barrier.cluster.arrive.relaxed; barrier.cluster.arrive.release; fence.acq_rel.cta;
//! atom.relaxed.cta.and x`. P1's `and` revisits P0's `ld x` while P0's arrive, deleted, reads
//! P1's second arrive; P1's first arrive came between, but P0's arrive cannot read it there —
//! P1's second arrive, an rmw of the same counter, reads it (Atomicity, §8.10.3). Counting that
//! arrive anyway, no graph qualified: 16 of 20 executions, no caveat. Not counting what `x` could
//! read brings back the duplicates of a failing `cas` as the chained read, which could read
//! either: `ptx::a_chained_read_reads_the_first_added_deleted_write`.)
//!
//! *Holes open at a refilled write half.* Where the revisiting write `a` is the write half of an
//! rmw whose read `ra` reads a write `w` of another thread: in a graph where `w`
//! revisited `ra`, deleting `a` and the events added after `ra` outside `w`'s dependency prefix,
//! `next` refilled `a` at once, rmw halves going first, with every hole that revisit left still
//! open; `a` revisits from there. So where `e`'s choice of a `co`-later `s` is tested, a hole is
//! left open where such a graph, with `e` taking `s`, can hold it open: the revisit by `w` left it
//! a hole (a later event of its thread is in `w`'s prefix), and it was added after `ra` — later in
//! `ra`'s thread, in a later thread (which `next` comes to after `ra`'s), or after `e` in `e`'s
//! thread where `s` revisited `e` and left `ra` a hole (a later event of `ra`'s thread in `s`'s
//! prefix), which `next` refills before `e`'s thread comes back. (`fuzz --seed 32`, program
//! 26038: `cas y; ld.acquire y; red.min y | cas x; exch y; st.release y, 1`. The `exch` write
//! revisits P0's `cas` read both from the graph in which the `red` revisited the `exch` read,
//! the `cas` reading the `st.release` and the `ld.acquire` a hole, and from the one in which the
//! `cas` reads the initial `y`, `exch` write added fresh. The completion of the second filled the
//! `ld.acquire` hole — which, reading the store, puts the `exch` before the `red` it reads in
//! causality — found no graph with the `cas` reading the store, and took both: 3 of 100
//! executions explored twice. Leaving every hole open for any rmw half lost executions where no
//! such graph exists, as in `selftest --family proxy` seeds 102193, 105966 and 107246, where the
//! hole comes before `ra` in the order `next` adds events.) And only where that revisit kept `e`
//! itself (added before `ra`, or in `w`'s prefix): else `e` is a hole there too, and holds no
//! choice. (`selftest --family tileir` seed 13013132, shrunk: `st f | ld.weak f; add f | ld f;
//! st.weak f; add f`, the last three token-ordered in one tile block. The refilled write of P1's
//! `add` could not revisit P1's `ld.weak` from the one graph that qualifies: P2's first `ld`
//! "could have read" P0's store with P2's `st.weak` left open — a graph in which the `ld`, in a
//! later thread than P1's `add`, would itself be a hole; 169 of 170 executions, no caveat.)
//! "Added before `ra`" is thread order, as `next` adds events — but where the graph tested was
//! itself reached through that revisit (`ra` added before `w`), it is the order of addition in
//! it: an earlier revisit may have deleted `ra`, and `next` refilled `e`, a hole, before `ra`
//! came back. (`selftest` seed 53192482, family ptx, shrunk: `ld y | add y | ld y; cas y | st y,
//! 1; cas y; exch y`. P1's refilled `add` write revisited P2's first `ld y` both from the graph
//! in which it read the initial `y` and from the one in which it read P3's store: the test of the
//! first filled P3's `cas` hole, a later thread's `ld` counting as deleted by that revisit, and
//! found no graph in which the load read the store. 2 of 5,666 executions explored twice; 43
//! of 10,015 in the original.) Where `s` is `w` itself, a read `e` could take it only through a
//! revisit by `w` (no hole is open for it), but a write `e` sits after `w` in `co` in a graph
//! that revisit left (`w` took its place when added): the holes stay open for it
//! (`OpenAtRefill::may_stay_open`; `ptx` 68006661).
//!
//! *Holes of the graph.* A completion fills the holes the revisit leaves and those the graph has
//! already. `next` fills every hole before a thread goes past its last event, so a graph in which
//! `e` takes `s` has them filled when `a` comes — but for those such a graph may hold open then:
//! holes at a refilled write half (above), a waiting read (below), and the holes after `a` where
//! `a` fills a hole ([`may_wait`]). Left open as they stood in the graph tested, a hole that
//! rules out `e`'s choice of `s` once refilled made the test find a graph that does not exist
//! and reject the one revisit that reaches an execution. (`selftest --family all` seed
//! 23042403, family assume, without its `assume` thread: `ld y; atom.add z | ld.acquire.cta z;
//! atom.exch y | st.weak y; st.release.cta z`, P0 in another CTA. The `st.release z` revisited
//! the `add`'s read and left the `st.weak y` a hole; the refilled `add` write then revisited the
//! `ld.acquire z`, which read the initial `z`. The load "could have read" the `st.release z`,
//! with the `st.weak y` left out — which, back in place, happens before the `exch`, whose read of
//! the initial `y` it then contradicts: 104 of 108 executions, a condition judged Never that
//! holds in 4, no caveat.) (The completions for chained, pending and kept-ahead reads, and for a
//! forced source's previous one, still leave the graph's holes open: filling them there too made
//! `known_gaps::proxy_15058232` name a revisit it does not lose, and no miss through them is
//! known.) A read `e` takes a later write `s` of its own thread only through
//! `s`'s revisit of `e`, after which `next` refills the holes between the two before anything
//! else: where `s` is such a write, they are filled even where a refilled write half could hold
//! them open. (`selftest --family all` seed 15021048, family proxy, shrunk: `atom.add x; atom.exch
//! y | ld y; st.weak x_gen; fence.proxy.alias; st.weak y_gen`. The `exch` write's revisit of P1's
//! `ld y` was rejected: the load "could have read" P1's `st.weak y_gen` through the alias, with
//! the `fence.proxy.alias` between them a hole left by that store's revisit of the `exch` — a
//! read the fence rules out once refilled: 28 of 32 executions, no caveat.) Not those `next` has
//! not come to when it adds the revisiting write `a`, though, where `a` fills a hole (later in
//! `a`'s thread, or in a later thread): the graph from which `a` revisits holds them open
//! ([`may_wait`]). (`selftest` seed 23037432, family tcgen05, shrunk: `tcgen05.ld [d]; mma [d];
//! wait::ld; st [d]` in one thread. The `st`'s revisit of the `mma`'s accumulator read leaves the
//! `mma` write and the `wait::ld` holes; the refilled write revisits the `ld` with the `wait::ld`
//! still open. Filled, the `wait::ld` ruled out the `ld` reading the `st`, and the revisit was
//! taken both from the graph in which the `ld` read the initial value and from the one in which
//! it read the `st`: 2 of 8 executions explored twice.)
//! (`selftest` seed 19030579, family tcgen05, shrunk: P1's `tcgen05.st` revisited its own first
//! `tcgen05.ld`, leaving the `mma` and the `tcgen05.wait::ld` after it holes; the refilled `mma`
//! write then revisited the `tcgen05.ld` from that graph, before the `wait::ld` — which rules
//! the `ld` reading the `st` out — came back. From the graph in which the `ld` read the initial
//! value, the same revisit was taken too: the test filled the `wait::ld` and found that the `ld`
//! could not have read the `st`. 4 of 28 executions were explored twice.)
//! But a read `e` takes a write `s` added after it only through `s`'s revisit of `e`, and after
//! that revisit a thread goes past the events it kept only once no hole is left. So where the
//! completion keeps an event past the last one of its thread that revisit keeps, the holes after
//! `a` are filled too ([`Explorer::within_revisit`]): a graph holding one open would have had it
//! filled, with `e` reading `s`, before that event came. (`selftest` seed 53198708, family
//! tcgen05, shrunk: `tcgen05.ld [d]; ld f, e; mma [d] (enable-input-d f); wait::ld; st [d] | st
//! e, 1`. The refilled `mma` write's revisit of the `ld` was refused: with the `wait::ld` open,
//! the `ld` "could have read" the `st` — in a graph that would hold P1's store, which comes only
//! once the `wait::ld` is back, and the `wait::ld` rules that read out. 2 of 12 executions were
//! missed, with no caveat.)
//!
//! *Latest only while a hole is open.* A deleted write `e` with no `co`-later write in
//! `Previous(e)` is maximal as it stands — unless it is `co`-latest only because a hole of its
//! thread is open: a later write `s` of its own thread sits `co`-before it with a hole between
//! the two (a fence that, back in place, orders them). Such a graph is reached (the hole is
//! open when `s` takes its place), but it cannot be completed, and the graph with `e` at the
//! `co`-latest place that can, earlier, makes the same revisit. So where `e`'s own place cannot
//! be completed and an earlier one can, it does not qualify; where none can, it still does (no
//! revisit is given up for a completion search's answer alone). (`selftest` seed 49066100,
//! family proxy, shrunk: `ld x; atom.add x | atom.add x; st x_gen; fence.proxy.alias; st
//! x_gen`. P0's `add` write revisited P1's `add` read, deleting its write, from the graph with
//! that write before P1's last store in `co` and from the one with it after, the fence a hole in
//! both: 3 of 164 executions explored twice.)
//!
//! *Waiting holes at the revisit.* A read hole that no write of the graph can fill waits
//! (`explore/trust.rs`, "Waiting holes"): its thread stands while the others go on, and the
//! revisiting write `a`, of another thread, can come while it waits. So where a completion has
//! filled every other hole and the last one is such a read — of `a`'s location, in another
//! thread than `a`'s, with no source among the completion's writes — it stays open: the graph
//! the revisit starts from holds it open ([`Explorer::completable`] with [`Explorer::waits_for`]
//! set). Only where it has no source even without `a`'s thread, whose events the exploration can
//! add after the read started waiting: a source those events rule out was one the read took
//! when `next` came to it, and it never waited. (`selftest` seed 11029122, family tileir,
//! shrunk: `ld.weak f; st.release x, 1 | add x, 2 | ld x; ld.acquire x; st.weak f, 2`, the first
//! and last token-ordered in one tile block. P1's `add` write revisited P2's first `ld x` both
//! from the graph where it read P0's store, P2's `ld.acquire` waiting, and from the one where
//! both loads read the initial `x`; the test for the second found no completion with the first
//! load reading the store, since the `ld.acquire` has no source there but the `add` write, and
//! took both: 4 of 52 executions explored twice. Leaving the hole open without looking at the
//! graph without `a`'s thread lost executions where the hole had a source when `next` came to
//! it: `ld.relaxed.cta z; ld.acquire.cta z; st z, 0 | atom.release.cta.exch z, 0; st.weak z,
//! 1`, `selftest` seed 11060557 shrunk, 28 of 32.) And only where the exploration lets it
//! wait: where that graph can be completed with threads going on (`a`'s among them) — else it
//! drops the graph, which then makes no revisit (`explore/trust.rs`, "Waiting holes").
//! (`selftest --family fenced` seed 27084810, shrunk: `ld y; st.release.cta x, 2 | ld x;
//! ld.relaxed.cta x; ld.acquire.cta x; st y, 1 | st x, 1`, one CTA. With P0's `ld y` reading
//! P1's `st y` and P1's `ld x` reading P0's store, P2's store could not revisit P1's
//! `ld.relaxed`, which read the initial `x`: the load "could have read" P0's store with the
//! `ld.acquire` waiting — which then has no source, P2's store included, so that graph is
//! dropped. 1,696 of 1,756 executions, no caveat.)
//!
//! *Reads of rmws.* The same holds for every read `e` of an rmw the test looks at (a deleted
//! one, or `r`): a graph in which `e` reads `s` holds its write half too (rmws are added whole),
//! so `e` could have read `s` only where a completion with that half in `co` exists. Left out,
//! a co-later write that the half could not follow counted as a choice that no graph makes, and
//! the revisit was lost (Tile IR, `selftest` seed 479784: `ld.weak`; `exch` of that value; a
//! store of what the exch read, against a store and an `add` — 50 of 60 executions then).
//!
//! *Deleted events in program order.* The argument that one graph qualifies walks the deleted
//! events in the order of addition, each choice a function of what came before — which needs
//! that order to be one the exploration takes from the kept graph. It adds a thread's events
//! in program order, but for the holes a revisit leaves before kept events (refilled fences
//! first, `trust`). A revisit can keep a thread's later events (the revisiting write's prefix)
//! and leave a hole before them, refilled after them; a later revisit that deletes the refilled
//! event and all after it, leaving that thread no hole, started from a graph whose deleted
//! events of the thread came out of program order, and another graph (in which the thread had
//! not come so far yet, or added them in order) turns into the same revisited graph. So a graph
//! in which a thread's deleted events after its last kept one were added out of program order
//! does not qualify ([`deleted_out_of_order`]). (Fuzz campaign seed 1, program 69139: rmws of
//! one CTA on shared memory, 36 executions of which 9 duplicates, 27 without; the test
//! `ptx::shared_rmws_of_one_cta_are_explored_once`. Requiring program order of every deleted
//! event, holes included, loses executions: `selftest` seeds 175, 271, 2395.)
//!
//! *Reads kept ahead of a revisit.* Where `r` reads a forced source `w1`, every graph the
//! revisit starts from has `r` reading `w1`: `w1` revisited `r` before, keeping the events up to
//! `r` and its dependency prefix, and deleting the rest, which came back after `w1`. The events
//! added between `r` and `w1` are what that revisit kept *ahead* — and that depends on what
//! they read: a read `x` of `w1`'s prefix reading a write `s` added after `r` brings `s` (and
//! what `s` needs) into the prefix, kept ahead of `x`; where `x` read an earlier write instead,
//! `s` was deleted with the rest and came back after `w1`, after `x` in the order of addition.
//! Where the present revisit deletes `x` and `s` both (the dependency prefix of `a` need not
//! hold what `w1`'s held: TruSt's `po ∪ rf` prefix of a later write of `w1`'s thread would), the
//! two graphs turn into the same one, and each passes the test above: in the second `s` is not
//! in `Previous(x)`. So a deleted read `x` kept ahead (in `w1`'s prefix, added between `r` and
//! `w1`) that reads a deleted write `s` kept ahead too, added before it, is canonical only where
//! it could read no write of `Previous(x)` but for the deleted events kept ahead: a completed
//! graph with `x` reading such a write, holes filled as for chained reads. Where it could, the
//! graph in which it read that write is the one that qualifies. (`selftest --family all` seed
//! 15058232, family proxy, shrunk: `cas y; exch x | suld z_sur; add y | cas y; st z_gen | ld y;
//! atom.add x, r0; st.weak x_gen, r1`. The `add` write of P3 revisits P0's `exch`, keeping P3's
//! `ld y` — the add's operand — and what it read; the `st.weak`, which needs only the add's read,
//! then revisits the `exch` again, deleting the `ld y`, the `add` write and all of P2. Both from
//! the graph where the `ld y` read P0's `cas` write and P2, deleted by the first revisit, came
//! back after it, and from the one where it read P2's `cas` write, which the first revisit kept
//! for it: 40 of 424 executions explored twice, no caveat. Keeping the second instead — a read
//! of a write that came back after `w1` counted as one it could have read — lost executions, 48
//! of them there: the graph where `s` is kept ahead can be one no exploration reaches, or one
//! another rule rejects, as where `w1`'s revisit left a hole before `s` in its thread, refilled
//! after it, "Deleted events in program order".) The completion leaves out what depends on the
//! deleted events kept ahead as well, and the rule does not apply where `x` (or an rmw's write
//! half, through its operand) depends on one of them. The completion search is bounded
//! ([`KEPT_AHEAD_BUDGET`] graphs judged); where it gives up, `x` counts as reading what it could
//! not have read otherwise. Both keep the graph canonical: they can cost a duplicate, never an
//! execution.
//! A chained read `x` (above) is such a read too: its source `w1` revisited it, keeping ahead
//! of the events it deleted what `w1` depended on, so a deleted read kept ahead by that revisit
//! (added between `x` and `w1`, in `w1`'s prefix) that reads a deleted write kept ahead too is
//! canonical on the same terms. The revisit deletes the read and leaves it a hole, which forgets
//! what it read; without the rule both graphs qualified. (Program 3315 of `tcfuzz fuzz --seed
//! 303`, shrunk: `ld.weak y; cas x, 0, 0; st x, 1 | ld x; add x, r0; st y, 1`. P1's `st y`
//! revisits P0's `ld y` from the graph in which P1's `ld x` read the initial `x` and the `cas`
//! read the `add` write, 0, and wrote; and from the one in which the `add` write, 1, revisited
//! the `cas` read, keeping ahead the `ld x` and P0's `st x` that it reads: 2 of 34 executions
//! explored twice. `selftest` seeds 15012821, families assume and proxy, 11091048 and 19061439
//! were the same fault: 288 of 3,456, 6 of 33, 26 of 224 and 12 of 102 executions, shrunk.)
//!
//! *Pending reads.* A revisit can keep a read `x` (added before `r`) whose source `w` it deletes:
//! `w` was added after `x` and revisited it, and the revisit keeps `x` by its stamp but not `w`,
//! which is outside `a`'s dependency prefix while a later event of its thread is in it — the write
//! of an rmw whose operand register comes from a read the revisit changes, the rmw's read kept
//! because a later store needs it. `atom.exch r1, z, 1 | ld r0, y; atom.add r1, z, r0; st w, r1 |
//! ld r0, w; st y, r0` (`proxy` selftest seed 101343, minimized): for P2's `st y` to revisit P1's
//! `ld y`, the add's write goes (it needs `r0`) and its read stays (`st w` needs it); P0's exch,
//! added first and never deleted, read that write in every graph the revisit could start from, so
//! TruSt's rule that no read of `Previous(w)` reads a deleted `w` rejected them all and the
//! execution where the exch reads the add was lost (7 of 8). Deleting `x` with `w` and adding it
//! again later does not work: it comes back after events that came after it before, and later
//! revisits of it keep them (the `proxy` selftest program of seed 129789, minimized: all 148
//! executions found, 14 of them twice). So `x` stays where it was, *pending*: when nothing after it
//! in its thread is kept and nothing before it is deleted, and `w` is refilled in its own hole (a
//! kept event follows it; an rmw's write whose read stays, so that it comes back as a write), the
//! revisit turns `x` into a hole that remembers `w` and its stamp ([`ExecutionGraph::pending`]),
//! `next` leaves the thread alone until `w` is back, and `x` then reads it again with its old
//! stamp, as `w` revisiting it had left it. (A revisit before that removes it, like every hole
//! after a thread's last kept event, and it comes back as a new event: kept pending while its write
//! stays, the full 129789 program lost 4 of 792 executions.) In the order of addition `x` stands
//! right after `w`, like a chained read, and is canonical on the same terms: only where it could
//! read no write of `Previous(x)` (any other choice is a graph from which the same revisit keeps
//! `x` with that source, and refilled `w` revisits it in turn). Without that condition the 129789
//! program explored 24 executions twice; with it, the explorer equals the oracle there (148, where
//! the explorer found 120 before) and on both shapes of
//! `ptx::rmw_write_held_back_by_its_operand_is_read_by_a_pending_read`.
//! Standing right after `w` presumes that the revisit of `x` by `w` kept, of the events added
//! between the two, only what `w` needed then — as that revisit did. Where the revisit of `r`
//! takes such an event out of `w`'s dependency prefix (as where `w` depends on `r` and `r`'s old
//! source came between `x` and `w`), `x` with its old stamp no longer stands where a revisit by
//! the refilled `w` would put it: the graph in which that event was added after `w` (deleted by
//! `w`'s revisit of `x`, then added again) turns into the same one, so this one does not
//! qualify ([`Explorer::pending_prefix_shrinks`]). (`selftest --family all` seed 12036889, family
//! proxy: `cas z | st y, 1; ld z | ld y; atom.add z, r0; sust y, r1`. The `sust` revisits P3's
//! `ld y` both from the graph where it read P2's `st y, 1`, kept by the `add` write's revisit of
//! the `cas` because the add's operand came from it, and from the one where it read the initial
//! `y` and P2's store came after the `add` write: 6 of 40 executions explored twice.) The event
//! may also go with the revisit itself — `r`, or one added after it that the revisit deletes.
//! (`selftest --family all` seed 18076234, family assume: P2's `exch z` write depends on a load
//! of `y` that read P1's `st y`, whose value came from P1's `ld x`, so its revisit of P0's
//! `atom.add z` kept P1's two events. P2's `st x` then revisited P1's `ld x`, deleting the
//! `st y` and the load of `y`, with P0's `add` pending on the `exch` write — the same graph as
//! the one in which P1's events came after the `exch` write's revisit, the load of `y` reading
//! the initial value: 5 of 39 executions explored twice. The test looked only at events added
//! before `r`.)
//! Nor does a pending `x` that reads `a`'s location where `w` comes before `a` in `a`'s thread:
//! `a` revisits `x` as well (`x` is in no prefix), deleting `w`, which leaves a hole before `a`
//! and is `x`'s forced source there, and the refilled `w` revisits `x` in turn — the graph that
//! keeping `x` pending reaches. (`selftest --family all` seed 12098744, family tileir, shrunk to
//! `exch f, 2 | ld.weak f; exch f, r1; st.weak f, a2` in two tile blocks: the store revisits
//! P1's `ld.weak` with P0's `exch` pending on P1's `exch` write, and it revisits P0's `exch`
//! itself, after which the refilled write revisits it in turn: 3 of 24 executions explored
//! twice; 3 of 57 in the program found.)
//!
//! *Dead ends.* A revisit can delete a later write `w` of the revisiting write `a`'s own thread
//! that `r` reads, leaving a hole: `w` comes back after `a`, which program order puts before
//! it in `co`. Where the kept events force `r` to see `w` (a fence and a release after `w` that
//! `r`'s thread acquires, say), the revisited graph has no consistent completion, and `w`, back,
//! revisits `r` in turn, deleting `a` again: the two revisited each other for ever (the fenced
//! property test's seed 146 overflowed the explorer's stack). Such a revisit is skipped where no
//! completion of its graph is consistent ([`Explorer::dead_end`]): nothing below it is an
//! execution, and what `w` revisits from there is the graph the revisit started from or one
//! like it (checked against the oracle, like the rest of this extension).
//!
//! *Refilled before the revisiting write.* Where `r` comes before `a` in their thread, the graph
//! in which `r` reads a source of `Previous(r)` ([`Explorer::completable_with_previous_source`])
//! need not have `a` in `co`, although the graph under test had it there when `r` took its
//! source ([`placed_before_revisit`]): a revisit can delete `r` and `a` together, keeping `a`'s
//! read, and `next` then refills `r` first, `a` after it, out of `co` when it revisits `r`. So
//! that completion is also asked with `a` left out. (`tcfuzz fuzz --seed 9292` program 46266,
//! Tile IR, shrunk: `add f; add x; ld x; add x; exch x, r1; st f` in one tile block. The `exch`
//! write revisited the first `add`'s read from a graph where that read read the initial value,
//! refilled so after the `st f` revisited `add f`, and from one where it read the second `add`'s
//! write, whose test asked whether the read could read the initial value with the `exch` write
//! in `co` — never, two rmws reading one write — and took it too: 4 of 48 executions twice, 8
//! of 96 in the program found. Asked so for a read of another thread, or after `a`, as well,
//! the explorer lost executions: `known_gaps::ptx_82032384` went from 1,243 distinct to 1,158.)
//!
//! This extension is checked, not proven: explorer = oracle with no duplicates on the random
//! programs of `tcfuzz selftest` (every family), the barrier example (11 of 11), and
//! `szymanski`'s PTX counts equal GenMC's RC11 counts (6 and 78 at n = 1, 2; without it 3 and
//! 3). Where a revisit still finds no qualifying graph (a forced source it does not accept), the
//! explorer records it ([`Explorer::lost_revisit`]) and the verdict says it may miss executions
//! — unless the read could take a source of `Previous(r)` after all, or the graph in which it
//! reads its forced source (not the deleted write it reads here) can be completed: that graph
//! is the one the revisit comes from (`Explorer::completable_with_forced_source`; measured, not
//! proven: `selftest` at 75M–76M, 76,000 programs, the same disagreements (none) and misses
//! within caveats with and without it, and `szymanski` under PTX loses a caveat it carried at
//! every size while its counts stay GenMC's).

use std::collections::HashMap;
use std::hash::{DefaultHasher, Hash, Hasher};

use super::holes::{cut, dep_prefix, fix_cas_layout, instruction_predecessor, present};
use super::trust::Explorer;
use super::trust::refilled_early;
use crate::error::CheckError;
use crate::exec::bitset::BitSet;
use crate::exec::event::EventId;
use crate::exec::event::NewEvent;
use crate::exec::graph::{ExecutionGraph, HOLE, NodeIndex};
use crate::exec::interp::{Step, replay};
use crate::program::CompiledProgram;
use crate::program::label::{EventKind, Label};
use crate::program::porf_cycles::accesses;

/// How many events [`Explorer::completable`] may add past the end of threads to fill the holes
/// of a completion: enough for the few instructions of a generated thread, a bound on the search
/// (past it the test answers as if none could be added).
const MAX_EXTENSION_EVENTS: u32 = 8;

/// The graphs one completion search of "Reads kept ahead of a revisit" may judge (module docs).
/// Past it the search answers that no completion exists, which keeps the graph as canonical: at
/// worst an execution explored twice, as before the rule, never one lost. Unbounded, the search
/// (its extensions past the threads' ends) took more than 100 s on a tcgen05 program the
/// explorer checks in 0.04 s (`selftest --family tcgen05 --seed 15000724`); 20 already suffice
/// for the duplicates the rule removes (`known_gaps::proxy_15058232`).
const KEPT_AHEAD_BUDGET: u32 = 256;

impl Explorer<'_, '_> {
    /// [`Self::maximally_added`] with its completion searches bounded
    /// ([`Options::maximality_budget`](crate::Options::maximality_budget)).
    pub(super) fn maximally_added_bounded(
        &self,
        g: &ExecutionGraph,
        idx: &NodeIndex,
        revisit: (EventId, EventId),
        prefix: (&BitSet, &CoAfter),
        deleted: &BitSet,
        pending: &[(EventId, EventId)],
    ) -> Result<bool, CheckError> {
        let outer = self.maximality_budget.replace(Some(self.maximality_limit));
        let maximal = self.maximally_added(g, idx, revisit, prefix, deleted, pending);
        self.maximality_budget.set(outer);
        maximal
    }

    /// TruSt's maximality condition over `Deleted ∪ {r}` for the revisit of `r` by `a` (module
    /// docs).
    fn maximally_added(
        &self,
        g: &ExecutionGraph,
        idx: &NodeIndex,
        (a, r): (EventId, EventId),
        (prefix, co_after): (&BitSet, &CoAfter),
        deleted: &BitSet,
        pending: &[(EventId, EventId)],
    ) -> Result<bool, CheckError> {
        // (Until a hole is refilled — never without dependency revisits — every thread's events
        // were added in program order.)
        if g.refilled() && deleted_out_of_order(g, idx, deleted) {
            return Ok(false);
        }
        debug_assert!(g.refilled() || !deleted_out_of_order(g, idx, deleted));
        // `r` was revisited by a write this revisit deletes (module docs): decided first.
        let orphan = g.event(r).rf.is_some_and(|w| !w.is_init() && g.stamp(w) > g.stamp(r) && deleted.contains(idx.node(w)));
        // Decided once per deleted read (the tests below ask it of a read many times).
        let mut chained_reads = BitSet::new(idx.len());
        if self.dependency_revisits {
            for n in deleted.iter().filter(|&n| idx.id(n) != r && chained_read(g, idx, idx.id(n), deleted)) {
                chained_reads.insert(n);
            }
        }
        let chained = |x: EventId| chained_reads.contains(idx.node(x));
        // Where an event stands in the order of addition (doubled): a chained read, or `r` with
        // a forced source, right after its source, where its value was chosen, so that every
        // Previous(e) stays closed under `rf` (module docs).
        // (A later write of `r`'s own thread is never its source, wherever the others go.)
        // Nor, as forced source, a write of `a`'s thread after `a` (module docs, "Forced sources
        // after the revisiting write").
        let never_read = |x: EventId| {
            (x.thread == a.thread && x.index > a.index)
                || (x.thread == r.thread && x.index > r.index && self.model.source_ruled_out(g, r, x, &|e| e == x))
        };
        let forced = orphan && self.dependency_revisits && forced_source(g, idx, r, deleted, &never_read);
        let is_pending = |x: EventId| pending.iter().any(|p| p.0 == x);
        let at = |x: EventId| -> u64 {
            match g.event(x).rf {
                Some(w) if chained(x) || (forced && x == r) || is_pending(x) => 2 * u64::from(g.stamp(w)) + 1,
                _ => 2 * u64::from(g.stamp(x)),
            }
        };
        // No read of Previous(e) may read from a deleted write `e` (checked first: the
        // consistency tests below restrict the graph to such sets): one pass over the reads.
        for (t, evs) in g.threads.iter().enumerate() {
            for (i, ev) in evs.iter().enumerate() {
                let x = EventId::new(t, i);
                let Some(e) = ev.rf.filter(|e| !e.is_init() && ev.stamp != HOLE && deleted.contains(idx.node(*e))) else { continue };
                let previous = at(x) <= 2 * u64::from(g.stamp(e)) || prefix.contains(idx.node(x));
                if previous && !(orphan && x == r) {
                    return Ok(false);
                }
            }
        }
        // A forced source that depends on another, `co`-before it, yields to it (module docs, "A
        // forced source after one it depends on").
        if forced && self.forced_source_yields(g, idx, (a, r), prefix, deleted, &never_read)? {
            return Ok(false);
        }
        // `r` was revisited by a write this revisit deletes: canonical only where it can read
        // nothing of `Previous(r)` and its source qualifies as forced (module docs), which exempts
        // it from the checks below. The search through `Previous(r)` comes last (the cheaper
        // checks below usually decide first).
        if orphan && !forced {
            // No either way; the search only tells whether the revisit is lost, which is known
            // once one is.
            if self.dependency_revisits
                && !self.lost_revisit.get()
                && !self.completable_with_previous_source(g, idx, (a, r), prefix, pending)?
                && !self.completable_with_forced_source(g, idx, (a, r), prefix, deleted, &never_read)?
            {
                self.lost_revisit.set(true);
            }
            return Ok(false);
        }
        // A pending read stands right after its source only where the revisit leaves that
        // source's dependency prefix what it was (module docs, "Pending reads").
        // (And not where `a` revisits it too: it reads `a`'s location, its source a hole before `a`.)
        let revisited_by_a_too = |x: EventId, w: EventId| g.label(x).loc == g.label(a).loc && w.thread == a.thread && w.index < a.index;
        if pending.iter().any(|&(x, w)| revisited_by_a_too(x, w) || self.pending_prefix_shrinks(g, idx, (a, r), (x, w), deleted)) {
            return Ok(false);
        }
        // The holes a graph reached through a revisit of `a`'s read may hold open (module docs,
        // "Holes open at a refilled write half").
        let open_at_refill = if self.dependency_revisits { OpenAtRefill::of(g, idx, self.prog, a, r) } else { None };
        // Where `r` reads a forced source, that source revisited `r` before, keeping ahead of the
        // events it deleted what it depended on; so did the source of each chained read (module
        // docs, "Reads kept ahead of a revisit").
        let mut ahead: Vec<KeptAhead> = Vec::new();
        if let Some(w1) = g.event(r).rf.filter(|_| forced) {
            ahead.push(KeptAhead { read: r, source: w1, prefix: Default::default() });
        }
        for x in chained_reads.iter().map(|n| idx.id(n)) {
            if let Some(w1) = g.event(x).rf {
                ahead.push(KeptAhead { read: x, source: w1, prefix: Default::default() });
            }
        }
        let checked = deleted.iter().map(|n| idx.id(n)).chain(pending.iter().map(|p| p.0)).chain(std::iter::once(r).filter(|_| !forced));
        for e in checked {
            let se = 2 * u64::from(g.stamp(e));
            let previous = |x: EventId| x.is_init() || (!g.is_hole(x) && (at(x) <= se || prefix.contains(idx.node(x))));
            let label = g.label(e);
            if label.is_read() && e != r && !chained(e) && !is_pending(e) {
                for k in &ahead {
                    if self.could_read_short_of_kept_ahead(g, idx, (a, e), k, deleted, &previous)? {
                        return Ok(false);
                    }
                }
            }
            let write = match label.kind {
                EventKind::Fence | EventKind::Barrier => continue,
                // (Its readers in Previous(e) were ruled out above.)
                EventKind::Write => e,
                EventKind::Read if chained(e) || is_pending(e) => {
                    // Canonical only where it could read nothing of Previous(e), an rmw's write
                    // half in place (module docs, "chained reads", "pending reads").
                    let keep = |x: EventId| (previous(x) || x == e) && x != a;
                    let placed = |x: EventId| keep(x) || x == a;
                    let holes: Vec<EventId> = holes_left(g, &placed, false).filter(|&h| h != a && !may_wait(g, a, h)).collect();
                    let rmw = rmw_read(g, e);
                    for s in g.writes_to(label.loc).filter(|&s| keep(s)).collect::<Vec<_>>() {
                        let could = if rmw {
                            self.could_choose_rmw(g, (&keep, a), &holes, e, s)?
                        } else {
                            self.could_choose(g, (&keep, a), &holes, e, s)?
                        };
                        if could {
                            return Ok(false);
                        }
                    }
                    // A chained read whose source was refilled ahead of a write of its thread
                    // before it in program order: canonical only where it could not read that
                    // write (module docs, "Chained reads ahead of a refill").
                    // So where a write added between it and its source could be read (module
                    // docs, "The first added, where it could be read").
                    if chained(e) {
                        let mut others = refilled_after_source(g, idx, e, deleted);
                        others.extend(added_between(g, idx, e, deleted));
                        for y in others {
                            // (With what `y` depends on, which a revisit by `y` keeps.)
                            let y_prefix = dep_prefix(g, idx, self.prog, y);
                            let keep_y = |x: EventId| keep(x) || (y_prefix.contains(idx.node(x)) && !g.is_hole(x) && x != a);
                            let placed_y = |x: EventId| keep_y(x) || x == a;
                            let holes_y: Vec<EventId> = holes_left(g, &placed_y, false).filter(|&h| h != a && !may_wait(g, a, h)).collect();
                            let could = if rmw {
                                self.could_choose_rmw(g, (&keep_y, a), &holes_y, e, y)?
                            } else {
                                self.could_choose(g, (&keep_y, a), &holes_y, e, y)?
                            };
                            if could {
                                return Ok(false);
                            }
                        }
                    }
                    continue;
                }
                EventKind::Read => g.event(e).rf.expect("[tcfuzz internal bug] read without rf in a revisited graph"),
            };
            if !previous(write) {
                return Ok(false);
            }
            // (Some write `co`-after `write` in Previous(e): asked of the summary first, which is
            // all the test needs where nothing constrains `e`.)
            let (earliest, in_prefix) = co_after.of(idx.node(write));
            let mut later = g.writes_to(label.loc).skip_while(|&w| w != write).skip(1).filter(|&s| previous(s)).peekable();
            debug_assert_eq!(in_prefix || earliest <= g.stamp(e), later.peek().is_some());
            if !in_prefix && earliest > g.stamp(e) {
                // `co`-latest. But where it is so only while a hole of its thread is open, a
                // graph with it earlier may be the one that qualifies (module docs, "Latest only
                // while a hole is open").
                if self.dependency_revisits
                    && label.is_write()
                    && self.latest_only_while_a_hole_is_open(g, idx, a, e, &previous, open_at_refill.as_ref())?
                {
                    return Ok(false);
                }
                continue;
            }
            if !self.dependency_revisits {
                // Nothing constrains `e` (there are no holes): it could have taken the co-latest
                // write.
                return Ok(false);
            }
            // The revisiting write has no place in `co` yet: left out, holding its place in its
            // thread (`cut_around`).
            let keep = |x: EventId| previous(x) && x != a;
            let placed = |x: EventId| keep(x) || x == a;
            // Kept events after `e` in its thread constrain it; so does, for the write of an rmw,
            // its read (the write sits right after what the read reads from).
            let followed = (e.index as usize + 1..g.threads[e.thread as usize].len()).any(|i| placed(EventId::new(e.thread as usize, i)))
                || label.rmw_write;
            // (A hole of `g` that `next` has not come to when it adds `a` stays open: module docs,
            // "Holes of the graph".)
            let to_fill = |h: &EventId| !(g.is_hole(*h) && may_wait(g, a, *h));
            if !followed && holes_left(g, &placed, true).find(to_fill).is_none() && !placed_before_revisit(g, a, &keep, e) {
                // Nothing constrains `e`: it could have taken the co-latest write.
                return Ok(false);
            }
            let all_holes: Vec<EventId> = holes_left(g, &placed, true).filter(to_fill).collect();
            for s in later {
                let holes = self.holes_for_choice(g, idx, (a, &placed), (e, s), &all_holes, open_at_refill.as_ref());
                // (A write that cannot follow `s` whatever the graph holds is not tried.)
                if label.is_write() && !self.model.may_follow(g, e, s) {
                    continue;
                }
                let cc = if label.is_read() && rmw_read(g, e) {
                    self.could_choose_rmw(g, (&keep, a), &holes, e, s)?
                } else {
                    self.could_choose(g, (&keep, a), &holes, e, s)?
                };
                if cc {
                    return Ok(false);
                }
            }
        }
        Ok(!forced || !self.completable_with_previous_source(g, idx, (a, r), prefix, pending)?)
    }

    /// The holes a completion in which `e` takes `s` fills, of those the revisit by `a` leaves
    /// (`all_holes`): not those a graph in which `e` takes `s` may hold open at a refilled write
    /// half, and, where `s` is a later write of `e`'s thread, also the graph's holes between the
    /// two but for those after `a`; where `e` is a read and `s` was added after it, also the
    /// graph's holes after `a` unless the events the completion keeps (`placed`) lie within what
    /// `s`'s revisit of `e` keeps ([`Explorer::within_revisit`]; module docs, "Holes of the
    /// graph").
    fn holes_for_choice(
        &self,
        g: &ExecutionGraph,
        idx: &NodeIndex,
        (a, placed): (EventId, &dyn Fn(EventId) -> bool),
        (e, s): (EventId, EventId),
        all_holes: &[EventId],
        open_at_refill: Option<&OpenAtRefill>,
    ) -> Vec<EventId> {
        let mut holes: Vec<EventId> = match open_at_refill {
            Some(o) => all_holes.iter().copied().filter(|&h| !o.may_stay_open(g, idx, self.prog, h, (e, s))).collect(),
            None => all_holes.to_vec(),
        };
        if s.thread == e.thread && s.index > e.index {
            for h in (e.index + 1..s.index).map(|i| EventId { thread: e.thread, index: i }) {
                if g.is_hole(h) && !may_wait(g, a, h) && !holes.contains(&h) {
                    holes.push(h);
                }
            }
        }
        if g.label(e).is_read() && !s.is_init() && g.stamp(s) > g.stamp(e) {
            let waiting: Vec<EventId> =
                holes_left(g, placed, true).filter(|&h| g.is_hole(h) && may_wait(g, a, h) && !holes.contains(&h)).collect();
            if !waiting.is_empty() && !self.within_revisit(g, idx, (e, s), placed) {
                holes.extend(waiting);
            }
        }
        holes
    }

    /// For read `e` and a write `s` added after it, which `e` reads only through `s`'s revisit of
    /// it: whether every event `placed` keeps lies, in its thread, at or before the last event
    /// that revisit keeps (those added up to `e`, and `s`'s dependency prefix). Past them, an
    /// event extends its thread, which `next` does only once no hole is left: a graph in which
    /// `e` reads `s` and that holds a hole open when `a` comes is then one in which the hole was
    /// filled, with `e` reading `s`, and deleted again (module docs, "Holes of the graph").
    fn within_revisit(&self, g: &ExecutionGraph, idx: &NodeIndex, (e, s): (EventId, EventId), placed: &dyn Fn(EventId) -> bool) -> bool {
        let prefix = dep_prefix(g, idx, self.prog, s);
        let kept = |x: EventId| !g.is_hole(x) && (g.stamp(x) <= g.stamp(e) || prefix.contains(idx.node(x)));
        g.threads.iter().enumerate().all(|(t, evs)| {
            let last_kept = (0..evs.len()).rev().find(|&i| kept(EventId::new(t, i)));
            (0..evs.len()).filter(|&i| placed(EventId::new(t, i))).all(|i| last_kept.is_some_and(|l| i <= l))
        })
    }

    /// For deleted write `e`, `co`-latest of `Previous(e)` (`previous`): whether it is so only
    /// while a hole of its thread is open, and another graph qualifies in its place (module docs,
    /// "Latest only while a hole is open"). That is where a later write of its own thread in
    /// `Previous(e)` sits `co`-before it with a hole between the two in the thread, its own place
    /// cannot be completed, and an earlier one can.
    fn latest_only_while_a_hole_is_open(
        &self,
        g: &ExecutionGraph,
        idx: &NodeIndex,
        a: EventId,
        e: EventId,
        previous: &dyn Fn(EventId) -> bool,
        open_at_refill: Option<&OpenAtRefill>,
    ) -> Result<bool, CheckError> {
        let loc = g.label(e).loc;
        let before = || g.writes_to(loc).take_while(move |&w| w != e).filter(move |&w| w != a && previous(w));
        let hole_between = |w: EventId| (e.index + 1..w.index).any(|i| g.is_hole(EventId { thread: e.thread, index: i }));
        // (Asked of every `co`-latest deleted write: decided without a list where the rule does not apply.)
        if !before().any(|w| w.thread == e.thread && w.index > e.index && hole_between(w)) {
            return Ok(false);
        }
        let before: Vec<EventId> = before().collect();
        let keep = |x: EventId| previous(x) && x != a;
        let placed = |x: EventId| keep(x) || x == a;
        let to_fill = |h: &EventId| !(g.is_hole(*h) && may_wait(g, a, *h));
        let all_holes: Vec<EventId> = holes_left(g, &placed, true).filter(to_fill).collect();
        // `e` right after `s` (as for the later writes in `maximally_added`).
        let could = |s: EventId| -> Result<bool, CheckError> {
            let holes = self.holes_for_choice(g, idx, (a, &placed), (e, s), &all_holes, open_at_refill);
            if !s.is_init() && !self.model.may_follow(g, e, s) {
                return Ok(false);
            }
            self.could_choose(g, (&keep, a), &holes, e, s)
        };
        let Some((&own, earlier)) = before.split_last() else { return Ok(false) };
        if could(own)? {
            return Ok(false);
        }
        for &s in earlier.iter().rev() {
            if could(s)? {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// For deleted read `e` kept ahead by `k`'s revisit (in its source's prefix, added between
    /// the read and its source) and reading a deleted write kept ahead too, added before it:
    /// whether it could have read a write of Previous(e) with the deleted events kept ahead left
    /// out — a completed graph with `e` reading such a write. Then the graph in which it did is
    /// the one that qualifies, not this one (module docs, "Reads kept ahead of a revisit").
    fn could_read_short_of_kept_ahead(
        &self,
        g: &ExecutionGraph,
        idx: &NodeIndex,
        (a, e): (EventId, EventId),
        k: &KeptAhead,
        deleted: &BitSet,
        previous: &dyn Fn(EventId) -> bool,
    ) -> Result<bool, CheckError> {
        // Deleted here and added between the read and its source; and kept by the source's
        // revisit of the read (in its prefix: asked last, the prefix made once, where needed).
        let between =
            |x: EventId| !x.is_init() && deleted.contains(idx.node(x)) && (g.stamp(k.read) + 1..g.stamp(k.source)).contains(&g.stamp(x));
        if !(between(e) && g.event(e).rf.is_some_and(|s| between(s) && g.stamp(s) < g.stamp(e))) {
            return Ok(false);
        }
        let prefix = k.prefix.get_or_init(|| dep_prefix(g, idx, self.prog, k.source));
        let ahead_deleted = |x: EventId| between(x) && prefix.contains(idx.node(x));
        if !(ahead_deleted(e) && g.event(e).rf.is_some_and(ahead_deleted)) {
            return Ok(false);
        }
        // The completion leaves out the deleted events kept ahead (but `e`) and what depends on
        // them; where `e` does, the rule does not apply (at worst a duplicate, as without it).
        // (Dependencies are bits of a `u64`: a thread has at most 64 events.)
        let dropped_masks: Vec<u64> = g
            .threads
            .iter()
            .enumerate()
            .map(|(t, evs)| {
                evs.iter().enumerate().fold(0u64, |mask, (i, ev)| {
                    let x = EventId::new(t, i);
                    if (x != e && ahead_deleted(x)) || ev.deps & mask != 0 { mask | 1 << i } else { mask }
                })
            })
            .collect();
        let dropped = |x: EventId| !x.is_init() && dropped_masks[x.thread as usize] & (1 << x.index) != 0;
        let rmw = rmw_read(g, e);
        // What `e` needs, and for an rmw its write half (its operands) too.
        let evs = &g.threads[e.thread as usize];
        let write_half = evs.get(e.index as usize + 1).filter(|w| rmw && w.label.rmw_write).map_or(0, |w| w.deps);
        let needs = (evs[e.index as usize].deps | write_half) & !(1 << e.index);
        if needs & dropped_masks[e.thread as usize] != 0 {
            return Ok(false);
        }
        let keep = |x: EventId| (x == e || previous(x)) && !dropped(x) && x != a;
        let placed = |x: EventId| keep(x) || x == a;
        let holes: Vec<EventId> = holes_left(g, &placed, false).filter(|&h| h != a && !may_wait(g, a, h)).collect();
        for w in g.writes_to(g.label(e).loc).filter(|&w| keep(w)).collect::<Vec<_>>() {
            self.completion_budget.set(Some(KEPT_AHEAD_BUDGET));
            let could =
                if rmw { self.could_choose_rmw(g, (&keep, a), &holes, e, w) } else { self.could_choose(g, (&keep, a), &holes, e, w) };
            self.completion_budget.set(None);
            if could? {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// Whether the revisit of `r` by `a` takes out of the dependency prefix of pending read `x`'s
    /// source `w` an event added between `x` and `w` (module docs, "Pending reads"): the revisit
    /// of `x` by `w` kept it for `w`'s sake, and `w` refilled no longer needs it — the revisit
    /// deletes it, or changes the `rf` through which `w` depended on it.
    fn pending_prefix_shrinks(
        &self,
        g: &ExecutionGraph,
        idx: &NodeIndex,
        (a, r): (EventId, EventId),
        (x, w): (EventId, EventId),
        deleted: &BitSet,
    ) -> bool {
        let (from, to) = (g.stamp(x), g.stamp(w));
        let between: Vec<EventId> = present(g).filter(|&e| (from + 1..to).contains(&g.stamp(e))).collect();
        if between.is_empty() {
            return false;
        }
        let before = dep_prefix(g, idx, self.prog, w);
        let mut revisited = g.clone();
        revisited.set_rf(r, a);
        let after = dep_prefix(&revisited, idx, self.prog, w);
        between.iter().any(|&e| {
            let n = idx.node(e);
            before.contains(n) && (deleted.contains(n) || !after.contains(n))
        })
    }

    /// The part of [`Explorer::maximally_added`] about `r` alone, under TruSt's revisits (no
    /// holes, so no chained, forced or pending reads): `r` reads a write of `Previous(r)` with no
    /// `co`-later write there. It needs no deleted set, and decides most candidates: `false`
    /// here is `false` there.
    pub(super) fn revisited_read_maximal(
        &self,
        g: &ExecutionGraph,
        idx: &NodeIndex,
        r: EventId,
        prefix: &BitSet,
        co_after: &CoAfter,
    ) -> bool {
        debug_assert!(!self.dependency_revisits, "[tcfuzz internal bug] the read-only maximality test under dependency revisits");
        let sr = g.stamp(r);
        let Some(w) = g.event(r).rf else { return false };
        if !(w.is_init() || g.stamp(w) <= sr || prefix.contains(idx.node(w))) {
            return false;
        }
        let (earliest, in_prefix) = co_after.of(idx.node(w));
        !in_prefix && earliest > sr
    }

    /// Whether the revisit of `r` by `a` leads nowhere (module docs, "Dead ends"): `r`'s source
    /// in `g` is a later write of `a`'s own thread that the revisit deletes, leaving a hole, and
    /// the revisited graph `g2` (with `a` at `a2`, not yet in `co`) has no consistent completion
    /// with `a` anywhere in `co`.
    pub(super) fn dead_end(
        &self,
        g: &ExecutionGraph,
        idx: &NodeIndex,
        (a, r): (EventId, EventId),
        deleted: &BitSet,
        g2: &ExecutionGraph,
        a2: EventId,
    ) -> Result<bool, CheckError> {
        let Some(w) = g.event(r).rf else { return Ok(false) };
        let own_later = !w.is_init() && w.thread == a.thread && w.index > a.index && r.thread != a.thread;
        if !self.dependency_revisits || !own_later || !deleted.contains(idx.node(w)) || !g2.is_hole(w) {
            return Ok(false);
        }
        let holes: Vec<EventId> = g2.event_ids().filter(|&e| g2.is_hole(e)).collect();
        let loc = g2.loc_of(a2) as usize;
        for pos in 0..=g2.co[loc].len() {
            let mut t = g2.clone();
            t.insert_co(a2, pos);
            if self.completable(t, holes.clone())? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// Whether some write of `Previous(r)` (for the revisit of `r` by `a`) can be `r`'s source in
    /// a graph made of `Previous(r)` and the holes it leaves, filled in any way. A pending read of
    /// the revisit stands right after its source in the order of addition (module docs, "Pending
    /// reads"), a deleted write added after `r`: it is not in `Previous(r)` (unless in the prefix,
    /// with its source), whatever its own stamp. Where `r` comes before `a` in their thread, `a`
    /// may also be out of `co` (module docs, "Refilled before the revisiting write").
    fn completable_with_previous_source(
        &self,
        g: &ExecutionGraph,
        idx: &NodeIndex,
        (a, r): (EventId, EventId),
        prefix: &BitSet,
        pending: &[(EventId, EventId)],
    ) -> Result<bool, CheckError> {
        let sr = g.stamp(r);
        let in_prefix = |x: EventId| prefix.contains(idx.node(x));
        let before_r = |x: EventId| g.stamp(x) <= sr && !pending.iter().any(|p| p.0 == x);
        let previous = |x: EventId| x.is_init() || (!g.is_hole(x) && (before_r(x) || in_prefix(x)));
        let keep = |x: EventId| previous(x) && x != a;
        let placed = |x: EventId| keep(x) || x == a;
        // (Holes `next` has not come to when it adds `a` stay open: module docs, "forced".)
        let holes: Vec<EventId> = holes_left(g, &placed, false).filter(|&h| h != a && !may_wait(g, a, h)).collect();
        // As for a deleted event: with nothing after `r` in its thread kept and no hole to fill,
        // `r` can take the co-latest write of `Previous(r)`.
        let followed = (r.index as usize + 1..g.threads[r.thread as usize].len()).any(|i| placed(EventId::new(r.thread as usize, i)));
        if holes.is_empty() && !followed {
            return Ok(true);
        }
        // The read of an rmw takes the write half it has reading the source along, which
        // Atomicity holds right after the source (as for a chained read).
        let rmw = self.plain_memory(g, r) && rmw_read(g, r);
        let sources: Vec<EventId> = g.writes_to(g.label(r).loc).filter(|&s| keep(s)).collect();
        let could = |s: EventId| {
            if rmw { self.could_choose_rmw(g, (&keep, a), &holes, r, s) } else { self.could_choose(g, (&keep, a), &holes, r, s) }
        };
        for &s in &sources {
            if could(s)? {
                return Ok(true);
            }
        }
        // (Module docs, "Refilled before the revisiting write".)
        if r.thread == a.thread && r.index < a.index {
            let outer = self.revisiting_write_out.replace(true);
            let found = sources.iter().try_fold(false, |found, &s| Ok::<_, CheckError>(found || could(s)?));
            self.revisiting_write_out.set(outer);
            return found;
        }
        Ok(false)
    }

    /// For `r`, reading a write this revisit deletes that is not its forced source: whether the
    /// revisit has the graph in which `r` reads that forced source to come from instead — the
    /// `co`-latest deleted write `f` of its location that leaves a hole (but for its own write
    /// half and a write it never reads, as [`forced_source`] asks), with `Previous(r)` and `f`'s
    /// dependency prefix completable around `r` reading `f`. Then the revisit is not lost: from
    /// that graph `r`'s source is forced. (`szymanski` under PTX: T1's `st flag2, 2` revisiting
    /// T0's first `ld flag2`, which reads T1's first `st flag2, 1` while T1's `st flag2, 3`,
    /// deleted too, leaves a hole; `r` can read nothing of `Previous(r)` — the `fence.sc`s rule
    /// the initial value out — but the graph where it reads `flag2 = 3`, failing its `assume`
    /// while T1 goes on, is the revisit's. The lost-revisit caveat stood on every size.)
    fn completable_with_forced_source(
        &self,
        g: &ExecutionGraph,
        idx: &NodeIndex,
        (a, r): (EventId, EventId),
        prefix: &BitSet,
        deleted: &BitSet,
        never_read: &dyn Fn(EventId) -> bool,
    ) -> Result<bool, CheckError> {
        // Which of them is the forced source depends on the order of addition (module docs,
        // "Forced sources in the order of addition"): any of them but `r`'s source will do.
        let forced: Vec<EventId> = g
            .writes_to(g.label(r).loc)
            .filter(|&x| may_be_forced_source(g, idx, r, x, deleted, never_read))
            .filter(|&x| Some(x) != g.event(r).rf)
            .collect();
        for f in forced.into_iter().rev() {
            if self.could_read_forced(g, idx, (a, r), prefix, f)? {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// Whether `r` could read the deleted write `f`, with `Previous(r)` and `f`'s dependency
    /// prefix completable around it (the holes they leave filled in any way).
    fn could_read_forced(
        &self,
        g: &ExecutionGraph,
        idx: &NodeIndex,
        (a, r): (EventId, EventId),
        prefix: &BitSet,
        f: EventId,
    ) -> Result<bool, CheckError> {
        let sr = g.stamp(r);
        let f_prefix = dep_prefix(g, idx, self.prog, f);
        let previous = |x: EventId| {
            x.is_init() || (!g.is_hole(x) && (g.stamp(x) <= sr || prefix.contains(idx.node(x)) || f_prefix.contains(idx.node(x))))
        };
        let keep = |x: EventId| previous(x) && x != a;
        let placed = |x: EventId| keep(x) || x == a;
        let holes: Vec<EventId> = holes_left(g, &placed, false).filter(|&h| h != a && !may_wait(g, a, h)).collect();
        if self.plain_memory(g, r) && rmw_read(g, r) {
            self.could_choose_rmw(g, (&keep, a), &holes, r, f)
        } else {
            self.could_choose(g, (&keep, a), &holes, r, f)
        }
    }

    /// Whether `r`'s forced source `w` yields to another forced source `c` of another thread in
    /// its dependency prefix, `co`-before it (module docs, "A forced source after one it depends
    /// on"): the graph in which `r` reads `c` qualifies where `r` could read it, so this one does
    /// not. (A `c` of `w`'s own thread would not qualify there: [`forced_source`] counts `w`
    /// against it wherever it was added.)
    fn forced_source_yields(
        &self,
        g: &ExecutionGraph,
        idx: &NodeIndex,
        (a, r): (EventId, EventId),
        prefix: &BitSet,
        deleted: &BitSet,
        never_read: &dyn Fn(EventId) -> bool,
    ) -> Result<bool, CheckError> {
        let Some(w) = g.event(r).rf else { return Ok(false) };
        let w_prefix = dep_prefix(g, idx, self.prog, w);
        let yields_to: Vec<EventId> = g
            .writes_to(g.loc_of(w))
            .take_while(|&x| x != w)
            .filter(|&c| {
                c.thread != w.thread
                    && w_prefix.contains(idx.node(c))
                    && may_be_forced_source(g, idx, r, c, deleted, never_read)
                    && !added_out_of_order(g, w, c)
            })
            .collect();
        for c in yields_to {
            if self.could_read_forced(g, idx, (a, r), prefix, c)? {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// Whether `x` is an access of ordinary memory: not of a synchronization object (mbarrier,
    /// Tensor Memory allocator), not part of a bulk copy or a `tcgen05` operation.
    fn plain_memory(&self, g: &ExecutionGraph, x: EventId) -> bool {
        let l = g.label(x);
        l.tc.is_none() && l.bulk_copy == 0 && !self.prog.mbarriers.contains(&l.loc) && !self.prog.tmem_allocators.contains(&l.loc)
    }

    /// [`Self::could_choose`] for the read `e` of an rmw reading `s`, with the write half the rmw
    /// has then (none for a `cas` that fails) right after `s` in `co`: Atomicity (§8.10.3) holds
    /// it there, which a completion without it would not see (the half is added after `e`, so
    /// `keep` leaves it out).
    fn could_choose_rmw(
        &self,
        g: &ExecutionGraph,
        (keep, a): (&dyn Fn(EventId) -> bool, EventId),
        holes: &[EventId],
        e: EventId,
        s: EventId,
    ) -> Result<bool, CheckError> {
        let half = EventId { thread: e.thread, index: e.index + 1 };
        // An rmw never reads its own write. (Where program order orders nothing, as in Tile IR,
        // the write half can be one of the writes a chained read's source was refilled after:
        // `selftest` seed 19096651, family tileir, panicked here.) Not so for a `cas` that failed
        // in `g`: the event after it is another, which the write half made below moves.
        if s == half && has_half(g, e) {
            return Ok(false);
        }
        if g.event(e).cas_expected.is_some_and(|x| g.write_value(s) != x) {
            return self.could_choose(g, (keep, a), holes, e, s);
        }
        let mut t = g.clone();
        t.set_rf(e, s);
        let mut holes = holes.to_vec();
        // Where `a` sits in `t` (as in `could_choose`).
        let mut a_in_t = a;
        if has_half(g, e) {
            cut_around(&mut t, &|x: EventId| keep(x) || x == half, a);
            let loc = t.loc_of(half) as usize;
            t.co[loc].retain(|&w| w != half);
        } else {
            // A `cas` that failed in `g` and writes reading `s`.
            cut_around(&mut t, keep, a);
            let moved = fix_cas_layout(&mut t, e);
            shift(&mut holes, e, moved);
            a_in_t = shifted(a, e, moved);
            let ev = self.made_half(&t, e)?;
            t.put_event(half, &ev, None);
        }
        holes.retain(|&h| h != half);
        // `s` itself moved if it follows `e` in its thread (a source the model will reject, but
        // one to place first).
        let s = t.event(e).rf.expect("[tcfuzz internal bug] read without rf");
        // (`writes_to` counts the initial write, `co` does not.)
        let at = t.writes_to(t.loc_of(half)).position(|w| w == s).expect("[tcfuzz internal bug] source outside co");
        // Right after `s` first, where Atomicity puts it wherever the writes between would be
        // morally strong with it; elsewhere too (an rmw whose writes are not, as arrives of
        // another CTA's scope), as the exploration would place it.
        let loc = t.loc_of(half) as usize;
        let label = *t.label(half);
        let last = t.co[loc].len().min(self.model.co_ceiling(&t, half, &label).saturating_sub(1));
        let others = (self.model.co_floor(&t, half, &label).min(t.co[loc].len())..=last).filter(|&p| p != at);
        for pos in std::iter::once(at).chain(others) {
            let mut t2 = t.clone();
            t2.insert_co(half, pos);
            if self.completable_placing(g, t2, holes.clone(), keep, (a, a_in_t), e)? {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// The write half of the `cas` whose read `e` of `t` now reads its expected value: what the
    /// interpreter gives where no earlier event of the thread is a hole; behind a hole, which it
    /// cannot replay, the read's label as a write half (models ignore values).
    fn made_half(&self, t: &ExecutionGraph, e: EventId) -> Result<NewEvent, CheckError> {
        let evs = &t.threads[e.thread as usize];
        if !evs[..=e.index as usize].iter().any(|x| x.stamp == HOLE) {
            let performed: Vec<i64> = evs[..=e.index as usize].iter().map(|x| x.value).collect();
            match replay(&self.prog.threads[e.thread as usize], &performed, self.loop_bound)?.step {
                Step::Event(ev) if ev.label.rmw_write => return Ok(ev),
                _ => debug_assert!(false, "[tcfuzz internal bug] a cas that writes without a write half"),
            }
        }
        let r = &evs[e.index as usize];
        let label = Label { kind: EventKind::Write, rmw_write: true, ..r.label };
        Ok(NewEvent { label, value: 0, deps: r.deps | 1 << e.index, cas_expected: None, span: r.span })
    }

    /// Whether `Previous(e)` (the events `keep` accepts), with `e` reading from `s` (a read) or
    /// sitting right after `s` in `co` (a write), can be completed into a consistent graph by
    /// filling `holes` (the deleted events that leave holes before kept events).
    fn could_choose(
        &self,
        g: &ExecutionGraph,
        (keep, a): (&dyn Fn(EventId) -> bool, EventId),
        holes: &[EventId],
        e: EventId,
        s: EventId,
    ) -> Result<bool, CheckError> {
        // Most sources tried here break coherence with `e`'s own thread, which the model tells
        // without a graph built (on `szymanski` n = 3 under PTX, 26k of 30k).
        if g.label(e).is_read() && self.model.source_ruled_out(g, e, s, keep) {
            debug_assert!(
                {
                    let mut t = g.clone();
                    t.set_rf(e, s);
                    cut_around(&mut t, keep, a);
                    !self.consistent(&t)
                },
                "[tcfuzz internal bug] source_ruled_out ruled out a consistent choice"
            );
            return Ok(false);
        }
        let mut t = g.clone();
        // `e`'s new source first: its old one may be cut (a read revisited by a deleted write).
        if t.label(e).is_read() {
            t.set_rf(e, s);
        }
        cut_around(&mut t, keep, a);
        let mut holes = holes.to_vec();
        // Where `a` sits in `t`: a later event of `e`'s thread moves with a changed `cas` layout.
        let mut a_in_t = a;
        if t.label(e).is_read() {
            let moved = fix_cas_layout(&mut t, e);
            shift(&mut holes, e, moved);
            a_in_t = shifted(a, e, moved);
            // Without `e`, `t` is a restriction of `g` (every read keeping its source), which the
            // model, monotone, finds consistent: where `e` is a sink the model may say at once.
            let last = e.index as usize + 1 == t.threads[e.thread as usize].len();
            if holes.is_empty()
                && last
                && !t.has_holes()
                && let Some(ok) = self.model.sink_extension(&t, e)
            {
                debug_assert_eq!(ok, self.consistent(&t), "[tcfuzz internal bug] sink_extension disagrees in could_choose");
                return Ok(ok);
            }
        } else {
            let loc = t.loc_of(e) as usize;
            t.co[loc].retain(|&w| w != e);
            let at = t.co_position(s).expect("[tcfuzz internal bug] write outside co");
            t.co[loc].insert(at, e);
        }
        self.completable_placing(g, t, holes, keep, (a, a_in_t), e)
    }

    /// [`Self::completable`] for a completion `t` of `Previous(e)` (`keep`) made from `g`, with
    /// the revisiting write `a` in `co` where every graph the revisit can start from has it in
    /// place ([`placed_before_revisit`]): at the place Atomicity gives it, or where the model
    /// allows, as [`Explorer::visit_cos`] would put it. `a` is given as it sits in `g` and in `t`
    /// (one position further or back where a `cas` before it in its thread changed its layout).
    fn completable_placing(
        &self,
        g: &ExecutionGraph,
        t: ExecutionGraph,
        holes: Vec<EventId>,
        keep: &dyn Fn(EventId) -> bool,
        (a, a_in_t): (EventId, EventId),
        e: EventId,
    ) -> Result<bool, CheckError> {
        // (The search knows the revisiting write: module docs, "Waiting holes at the revisit".)
        let outer = self.waits_for.replace(Some(a_in_t));
        let found = if self.revisiting_write_out.get() || !placed_before_revisit(g, a, keep, e) || !t.is_hole(a_in_t) {
            self.completable(t, holes)
        } else {
            self.completable_with_revisiting_write(g, t, holes, (a, a_in_t))
        };
        self.waits_for.set(outer);
        found
    }

    /// [`Self::completable_placing`] where `a` (at `a_in_t` in `t`) is placed: each place in
    /// `co` it may take.
    fn completable_with_revisiting_write(
        &self,
        g: &ExecutionGraph,
        t: ExecutionGraph,
        holes: Vec<EventId>,
        (a, a_in_t): (EventId, EventId),
    ) -> Result<bool, CheckError> {
        let old = g.event(a);
        let ev = NewEvent { label: old.label, value: old.value, deps: old.deps, cas_expected: old.cas_expected, span: old.span };
        let mut t = t;
        t.put_event(a_in_t, &ev, None);
        let loc = t.loc_of(a_in_t) as usize;
        let positions = match self.model.rmw_co_position(&t, a_in_t) {
            Some(p) if p <= t.co[loc].len() => p..=p,
            _ => {
                let last = t.co[loc].len().min(self.model.co_ceiling(&t, a_in_t, &ev.label).saturating_sub(1));
                self.model.co_floor(&t, a_in_t, &ev.label).min(t.co[loc].len())..=last
            }
        };
        for pos in positions {
            let mut t2 = t.clone();
            t2.insert_co(a_in_t, pos);
            if self.completable(t2, holes.clone())? {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// Whether the holes `todo` of `t` can be filled (reads from any write, writes anywhere in
    /// `co`) into a consistent graph. Depth-first; a partial graph that is inconsistent has no
    /// consistent completion (the model is monotone — for graphs the exploration makes, in which
    /// a `tcgen05` instruction's events are there from its first on). A hole can be filled once
    /// the holes it depends on are, and the earlier events of its `tcgen05` instruction (an
    /// mma's accumulator slot filled before its operand reads, as part of no instruction, made
    /// a consistent completion look impossible and the maximality test accept two graphs that a
    /// revisit turns into the same: `selftest` seed 450517, 4 executions explored twice); a
    /// read may need as its source a write that fills a later hole (of another
    /// thread, or a weak write later in its own), so writes, fences and barriers go first, and
    /// where only reads can go, each of them is tried as the next: in a consistent completion
    /// `rf ∪ dep` is acyclic (No-Thin-Air, §8.10.4), so some read that can go has its source in
    /// place.
    ///
    /// The events a revisit deletes without leaving a hole (after every kept event of their
    /// thread) need not be in a completion — the model is monotone — unless a hole's read can
    /// take its source only from one of them: `red.relaxed f; red.release x; st.weak x |
    /// atom.acquire x; atom f` (fuzz seed 1, program 104784), where the second thread's `f`
    /// rmw revisits the first thread's `f` read and deletes the `x` accesses of both, the first
    /// thread's `x` read can read the initial value in a completion only where the second
    /// thread's `x` rmw — a hole — reads the `st.weak` after it, which no hole holds. Left out,
    /// the test found no completion, took the graph in which that read reads the rmw's write as
    /// canonical (a chained read) beside the one in which it reads the initial value, and 4 of
    /// 14 executions were explored twice. So where the holes cannot be filled, a thread with no
    /// hole may go on by its next events, as the exploration would, at most
    /// [`MAX_EXTENSION_EVENTS`] of them ([`Explorer::extend`]).
    pub(super) fn completable(&self, t: ExecutionGraph, todo: Vec<EventId>) -> Result<bool, CheckError> {
        {
            let mut memo = self.fill_memo.borrow_mut();
            if memo.searches == 0 {
                memo.failed.clear();
            }
            memo.searches += 1;
        }
        let found = self.fill(t, todo, MAX_EXTENSION_EVENTS);
        self.fill_memo.borrow_mut().searches -= 1;
        found
    }

    /// [`Self::completable`] with at most `extensions` events added past the end of threads.
    fn fill(&self, t: ExecutionGraph, todo: Vec<EventId>, extensions: u32) -> Result<bool, CheckError> {
        if let Some(left) = self.completion_budget.get() {
            let Some(left) = left.checked_sub(1) else { return Ok(false) };
            self.completion_budget.set(Some(left));
        }
        self.fill_memo.borrow_mut().spent += 1;
        if let Some(left) = self.maximality_budget.get() {
            let Some(left) = left.checked_sub(1) else {
                self.completion_gave_up.set(true);
                return Ok(true);
            };
            self.maximality_budget.set(Some(left));
        }
        // A hole can be filled once what it needs of its thread is there: the reads it depends
        // on, and the earlier events of its `tcgen05` instruction (the model judges an
        // instruction's events together from its first: a later one filled alone would be judged
        // as part of another, and the partial graph rejected where its completion is consistent).
        let ready = |h: EventId| {
            let evs = &t.threads[h.thread as usize];
            let deps = evs[h.index as usize].deps;
            (0..h.index as usize).all(|j| deps & (1 << j) == 0 || evs[j].stamp != HOLE)
                && instruction_predecessor(evs, h.index as usize).is_none_or(|j| evs[j].stamp != HOLE)
        };
        // An `mma`'s accumulator slot behind a hole of its thread is a read or a skip, as the
        // flag will say (`hole_event` cannot replay the thread): both are tried.
        let undecided = |h: EventId| {
            let evs = &t.threads[h.thread as usize];
            let l = &evs[h.index as usize].label;
            l.is_accumulator_slot_of(&Label { kind: if l.is_read() { EventKind::Fence } else { EventKind::Read }, ..*l })
                && evs[..h.index as usize].iter().any(|e| e.stamp == HOLE)
        };
        let undecided_ready = todo.iter().copied().find(|&h| ready(h) && undecided(h));
        // The hole filled next where no accumulator slot is: the first ready one that is no read.
        let next = todo.iter().copied().filter(|&h| ready(h) && !t.label(h).is_read()).min();
        let rest_without = |h: EventId| todo.iter().copied().filter(|&x| x != h).collect::<Vec<_>>();
        if undecided_ready.is_none()
            && let Some(h) = next.filter(|&h| !t.label(h).is_write())
        {
            // A fence or a barrier arrival: the only way on, so `t` is judged with it in place
            // (inconsistent with it where it is without: the model is monotone), one check
            // instead of two. (On `szymanski` n = 3 under PTX, 20k of the 44k checks here.)
            let ev = self.hole_event(&t, h)?;
            let mut t2 = t;
            t2.put_event(h, &ev, None);
            return self.fill(t2, rest_without(h), extensions);
        }
        if !self.consistent(&t) {
            return Ok(false);
        }
        if todo.is_empty() {
            return Ok(true);
        }
        if let Some(h) = undecided_ready {
            for kind in [EventKind::Fence, EventKind::Read] {
                let mut t2 = t.clone();
                let slot = &mut t2.threads[h.thread as usize][h.index as usize];
                slot.label.kind = kind;
                // (Marked decided: a hole no longer, the fill below puts the event back.)
                if kind == EventKind::Fence {
                    let ev = NewEvent { label: slot.label, value: 0, deps: slot.deps, cas_expected: None, span: slot.span };
                    t2.put_event(h, &ev, None);
                    if self.fill(t2, todo.iter().copied().filter(|&x| x != h).collect(), extensions)? {
                        return Ok(true);
                    }
                    continue;
                }
                let ev = NewEvent { label: slot.label, value: 0, deps: slot.deps, cas_expected: None, span: slot.span };
                for w in t2.writes_to(ev.label.loc).skip(self.model.co_floor(&t2, h, &ev.label)).collect::<Vec<_>>() {
                    let mut t3 = t2.clone();
                    t3.put_event(h, &ev, Some(w));
                    if self.fill(t3, todo.iter().copied().filter(|&x| x != h).collect(), extensions)? {
                        return Ok(true);
                    }
                }
            }
            return Ok(false);
        }
        if let Some(h) = next {
            // A write (a fence or a barrier went on above): each place in `co`.
            let ev = self.hole_event(&t, h)?;
            let len = t.co[ev.label.loc as usize].len();
            let last = len.min(self.model.co_ceiling(&t, h, &ev.label).saturating_sub(1));
            for pos in self.model.co_floor(&t, h, &ev.label).min(len)..=last {
                let mut t2 = t.clone();
                t2.put_event(h, &ev, None);
                t2.insert_co(h, pos);
                if self.fill(t2, rest_without(h), extensions)? {
                    return Ok(true);
                }
            }
            return Ok(false);
        }
        // (Each ready read in turn: where there are several, the search meets a graph once per
        // order in which they go, and answers it again from the memo.)
        let several = todo.iter().filter(|&&h| ready(h)).nth(1).is_some();
        for h in todo.iter().copied().filter(|&h| ready(h)) {
            let ev = self.hole_event(&t, h)?;
            let writes: Vec<EventId> = t.writes_to(ev.label.loc).skip(self.model.co_floor(&t, h, &ev.label)).collect();
            for w in writes {
                let mut t2 = t.clone();
                t2.put_event(h, &ev, Some(w));
                let mut rest = rest_without(h);
                let moved = fix_cas_layout(&mut t2, h);
                shift(&mut rest, h, moved);
                let found = if several { self.fill_memoized(t2, rest, extensions)? } else { self.fill(t2, rest, extensions)? };
                if found {
                    return Ok(true);
                }
            }
        }
        if self.extend(&t, &todo, extensions)? {
            return Ok(true);
        }
        match (&todo[..], self.waits_for.get()) {
            ([h], Some(a)) if ready(*h) => self.waits_at_revisit(&t, *h, a),
            _ => Ok(false),
        }
    }

    /// [`Self::fill`], answered from [`FillMemo`] where the search met `t` before.
    fn fill_memoized(&self, t: ExecutionGraph, todo: Vec<EventId>, extensions: u32) -> Result<bool, CheckError> {
        // (What the answer depends on besides `t`: the search's arguments, and whether it asks
        // about a revisit or is bounded, which nested searches change.)
        let key = fill_key(&t, &todo, extensions, (self.waits_for.get(), self.completion_budget.get().is_some()));
        let met = self.fill_memo.borrow().failed.get(&key).copied();
        if let Some(spent) = met {
            return Ok(self.spend_as_before(spent));
        }
        let before = self.fill_memo.borrow().spent;
        let found = self.fill(t, todo, extensions);
        if matches!(found, Ok(false)) {
            let mut memo = self.fill_memo.borrow_mut();
            let spent = memo.spent - before;
            memo.failed.insert(key, spent);
        }
        found
    }

    /// Spends the budgets as the search of a graph met before, which answered `false` after
    /// `spent` calls of [`Self::fill`] got past the completion budget, would again, one call at a
    /// time; whether it now gives up (the maximality budget runs out first).
    fn spend_as_before(&self, spent: u64) -> bool {
        let completion = self.completion_budget.get();
        // The calls that get past the completion budget (the others answer `false` at once).
        let passing = completion.map_or(spent, |left| spent.min(u64::from(left)));
        let (calls, gives_up) = match self.maximality_budget.get() {
            // The call after the last one the budget allows gives up.
            Some(left) if u64::from(left) < passing => (u64::from(left) + 1, true),
            _ => (passing, false),
        };
        let less = |left: u32| left - u32::try_from(calls).unwrap_or(u32::MAX).min(left);
        self.completion_budget.set(completion.map(less));
        self.maximality_budget.set(self.maximality_budget.get().map(|left| if gives_up { 0 } else { less(left) }));
        self.completion_gave_up.set(self.completion_gave_up.get() || gives_up);
        self.fill_memo.borrow_mut().spent += calls;
        gives_up
    }

    /// Whether read hole `h` of `t` (a completion with no other hole left, every source of `t`
    /// tried) may stay open in the graph the revisit by `a` starts from (module docs, "Waiting
    /// holes at the revisit"): it reads `a`'s location in another thread, no write fills it even
    /// without `a`'s thread, whose events may come after it waits, and that graph can be
    /// completed with threads going on.
    fn waits_at_revisit(&self, t: &ExecutionGraph, h: EventId, a: EventId) -> Result<bool, CheckError> {
        let loc = t.label(h).loc;
        if !t.label(h).is_read() || h.thread == a.thread || t.label(a).loc != loc {
            return Ok(false);
        }
        // (Only where nothing outside `a`'s thread reads a write of it.)
        let reads_a_thread =
            t.event_ids().any(|x| x.thread != a.thread && t.event(x).rf.is_some_and(|w| !w.is_init() && w.thread == a.thread));
        if reads_a_thread {
            return Ok(false);
        }
        let mut without = t.clone();
        cut(&mut without, &|x: EventId| x.thread != a.thread || x == h);
        let ev = self.hole_event(&without, h)?;
        for w in without.writes_to(loc).skip(self.model.co_floor(&without, h, &ev.label)).collect::<Vec<_>>() {
            let mut t2 = without.clone();
            t2.put_event(h, &ev, Some(w));
            fix_cas_layout(&mut t2, h);
            if self.consistent(&t2) {
                return Ok(false);
            }
        }
        // And only where the exploration lets it wait there: where the graph can be completed
        // with threads going on (`explore/trust.rs`, "Waiting holes"); else that graph is
        // dropped, and makes no revisit. (The nested search asks about no revisit.)
        let holes: Vec<EventId> = without.event_ids().filter(|&x| without.is_hole(x)).collect();
        let outer = self.waits_for.replace(None);
        let waits = self.completable(without, holes);
        self.waits_for.set(outer);
        waits
    }

    /// Whether `t`, whose holes `todo` cannot all be filled with the writes it holds, can be
    /// completed once a thread goes on past its last event ([`Self::completable`]): each thread
    /// without holes whose code writes a location a hole reads is given its next event (any
    /// source for a read, any place in `co` for a write), then the holes are tried again.
    /// Bounded by `extensions` events in all.
    fn extend(&self, t: &ExecutionGraph, todo: &[EventId], extensions: u32) -> Result<bool, CheckError> {
        let Some(extensions) = extensions.checked_sub(1) else { return Ok(false) };
        let mut wanted: Vec<u32> = todo.iter().filter(|&&h| t.label(h).is_read()).map(|&h| t.label(h).loc).collect();
        if wanted.is_empty() {
            return Ok(false);
        }
        wanted.sort_unstable();
        wanted.dedup();
        for (u, evs) in t.threads.iter().enumerate() {
            let code = &self.prog.threads[u];
            let writes_wanted = code.code.iter().any(|l| accesses(&l.op).writes.iter().any(|w| wanted.binary_search(&w.loc).is_ok()));
            if !writes_wanted || evs.iter().any(|e| e.stamp == HOLE) {
                continue;
            }
            let performed: Vec<i64> = evs.iter().map(|e| e.value).collect();
            let Step::Event(ev) = replay(code, &performed, self.loop_bound)?.step else { continue };
            let at = EventId::new(u, evs.len());
            match ev.label.kind {
                EventKind::Write => {
                    let loc = ev.label.loc as usize;
                    let mut t2 = t.clone();
                    t2.put_event(at, &ev, None);
                    let len = t2.co[loc].len();
                    let last = len.min(self.model.co_ceiling(&t2, at, &ev.label).saturating_sub(1));
                    for pos in self.model.co_floor(&t2, at, &ev.label).min(len)..=last {
                        let mut t3 = t2.clone();
                        t3.insert_co(at, pos);
                        if self.fill_memoized(t3, todo.to_vec(), extensions)? {
                            return Ok(true);
                        }
                    }
                }
                EventKind::Read => {
                    for w in t.writes_to(ev.label.loc).skip(self.model.co_floor(t, at, &ev.label)).collect::<Vec<_>>() {
                        let mut t2 = t.clone();
                        t2.put_event(at, &ev, Some(w));
                        if self.fill_memoized(t2, todo.to_vec(), extensions)? {
                            return Ok(true);
                        }
                    }
                }
                EventKind::Fence | EventKind::Barrier => {
                    let mut t2 = t.clone();
                    t2.put_event(at, &ev, None);
                    if self.fill_memoized(t2, todo.to_vec(), extensions)? {
                        return Ok(true);
                    }
                }
            }
        }
        Ok(false)
    }

    /// The event that fills hole `h`: what the interpreter gives where every earlier event of the
    /// thread is present; otherwise the label and dependencies the hole kept (an event kept after
    /// a hole depends on nothing deleted, so only values could differ, and models ignore values).
    fn hole_event(&self, t: &ExecutionGraph, h: EventId) -> Result<NewEvent, CheckError> {
        let evs = &t.threads[h.thread as usize];
        let old = &evs[h.index as usize];
        if !evs[..h.index as usize].iter().any(|e| e.stamp == HOLE) {
            let performed: Vec<i64> = evs[..h.index as usize].iter().map(|e| e.value).collect();
            if let Step::Event(ev) = replay(&self.prog.threads[h.thread as usize], &performed, self.loop_bound)?.step {
                debug_assert!(
                    (old.label.kind, old.label.loc, old.label.rmw_write) == (ev.label.kind, ev.label.loc, ev.label.rmw_write)
                        || old.label.is_accumulator_slot_of(&ev.label),
                    "[tcfuzz internal bug] a hole filled with another instruction"
                );
                return Ok(ev);
            }
        }
        Ok(NewEvent { label: old.label, value: old.value, deps: old.deps, cas_expected: old.cas_expected, span: old.span })
    }
}

/// For each write of a graph (its node), the writes `co`-after it, summed up for the maximality
/// test's question "is one of them in Previous(e)": the earliest stamp among them, and whether
/// one is in the revisiting write's prefix (a write's place in the order of addition is its
/// stamp). Built once per revisiting write, it makes that question O(1) per deleted event
/// instead of a walk along `co`.
pub(super) struct CoAfter(Vec<(u32, bool)>);

impl CoAfter {
    pub(super) fn new(g: &ExecutionGraph, idx: &NodeIndex, prefix: &BitSet) -> Self {
        let mut after = vec![(u32::MAX, false); idx.len()];
        for (loc, co) in g.co.iter().enumerate() {
            let mut acc = (u32::MAX, false);
            for &w in co.iter().rev() {
                after[idx.node(w)] = acc;
                acc = (acc.0.min(g.stamp(w)), acc.1 || prefix.contains(idx.node(w)));
            }
            after[idx.node(EventId::init(loc as u32))] = acc;
        }
        CoAfter(after)
    }

    /// The earliest stamp of the writes `co`-after `node`'s write (`u32::MAX` if none), and
    /// whether one of them is in the prefix.
    fn of(&self, node: usize) -> (u32, bool) {
        self.0[node]
    }
}

/// A read that a write revisited before, keeping ahead of the events it deleted the write's
/// dependency prefix: `r` with a forced source, or a chained read (module docs, "Reads kept ahead
/// of a revisit").
struct KeptAhead {
    read: EventId,
    source: EventId,
    /// The source's dependency prefix, made where a read first needs it.
    prefix: std::cell::OnceCell<BitSet>,
}

/// Whether write `x` may be a forced source of `r` (module docs): a deleted write that leaves a
/// hole, but for `r`'s own write half (Atomicity puts it right after `r`'s source) and a write
/// `r` never reads (`never_read`).
fn may_be_forced_source(
    g: &ExecutionGraph,
    idx: &NodeIndex,
    r: EventId,
    x: EventId,
    deleted: &BitSet,
    never_read: &dyn Fn(EventId) -> bool,
) -> bool {
    let own_half = x == EventId { thread: r.thread, index: r.index + 1 } && g.label(x).rmw_write;
    !x.is_init() && !own_half && deleted.contains(idx.node(x)) && leaves_hole(g, idx, x, deleted) && !never_read(x)
}

/// Whether `r`'s source, a write added after `r` that the revisit deletes, may be its forced
/// source `w` (module docs): it leaves a hole, and of the other deleted writes of its location
/// that leave a hole, none added before `w` or of its thread is `co`-after it and none of another
/// thread added after `w` would have come first in the exploration's order (module docs, "Forced
/// sources in the order of addition") — but for `r`'s write half and a write `r` can never
/// read (`never_read`: a later write of `r`'s thread, which Causality forbids it to read, or of
/// the revisiting write's thread after it).
fn forced_source(g: &ExecutionGraph, idx: &NodeIndex, r: EventId, deleted: &BitSet, never_read: &dyn Fn(EventId) -> bool) -> bool {
    let Some(w) = g.event(r).rf else { return false };
    let candidate = |x: EventId| x != w && may_be_forced_source(g, idx, r, x, deleted, never_read);
    // Of the other candidates, one added before `w` or of `w`'s thread may not be `co`-after it;
    // one of another thread added after it may not have come after it against the exploration's
    // order (module docs, "Forced sources in the order of addition").
    let co_latest = !g
        .writes_to(g.loc_of(w))
        .skip_while(|&x| x != w)
        .skip(1)
        .any(|x| candidate(x) && (g.stamp(x) < g.stamp(w) || x.thread == w.thread));
    let in_order = !g.writes_to(g.loc_of(w)).any(|x| candidate(x) && added_out_of_order(g, x, w));
    leaves_hole(g, idx, w, deleted) && !never_read(w) && co_latest && in_order
}

/// The graphs one completion search ([`Explorer::completable`], the outermost) answered `false`
/// on, by [`fill_key`], with the calls of [`Explorer::fill`] each took. Where only reads can go
/// the search tries each as the next one, and where the holes cannot be filled each thread as
/// the one to go on ([`Explorer::extend`]), so it meets a graph once per order of those steps:
/// on `selftest --family assume` seed 95647332, 893,817 calls met 202,441 distinct graphs, and
/// the tests that gave up after 20,000 calls ([`crate::Options::maximality_budget`]) had met
/// 4,617. The answer on a graph does not depend on the order its holes were filled in (the
/// stamps): the models read only whether an event is a hole, and the search steps by labels,
/// values and sources. A graph met again was answered `false` (a `true` ends the search; the
/// search only fills or adds events, so it never meets a graph below itself), and the budgets
/// are spent as that answer spent them ([`Explorer::spend_as_before`]): the verdict is the
/// search's without the memo, gave-up caveats included. (That program: 3.3 times the executions
/// per second. The memo is asked only at those steps, where graphs repeat: asked at every call,
/// it made `szymanski` n = 3 under PTX twice as slow, hashing graphs met once.)
#[derive(Default)]
pub(crate) struct FillMemo {
    /// How many searches are under way ([`Explorer::completable`]; nested ones ask about no
    /// revisit): the memo belongs to the outermost.
    searches: u32,
    /// The calls of [`Explorer::fill`] that got past the completion budget (all of them where
    /// there is none), in all: what the budgets count.
    spent: u64,
    /// The graphs answered `false`, with the calls their searches spent.
    failed: HashMap<(u64, u64), u64>,
}

/// A 128-bit digest of what [`Explorer::fill`]'s answer on `t` depends on: each event (hole or
/// not, label, value, source, dependencies, `cas` expectation) but for its stamp, `co`, the
/// pending and waiting reads, and the search's arguments. (Two digests of the standard hasher,
/// seeded apart: a collision would answer a graph with another's `false`.)
fn fill_key(t: &ExecutionGraph, todo: &[EventId], extensions: u32, search: impl Hash) -> (u64, u64) {
    let feed = |h: &mut DefaultHasher| {
        for evs in &t.threads {
            evs.len().hash(h);
            for e in evs {
                (e.stamp == HOLE, e.label, e.value, e.rf, e.deps, e.cas_expected).hash(h);
            }
        }
        t.co.hash(h);
        t.pending.hash(h);
        t.waiting.hash(h);
        t.refilled().hash(h);
        todo.hash(h);
        extensions.hash(h);
        search.hash(h);
    };
    let (mut a, mut b) = (DefaultHasher::new(), DefaultHasher::new());
    a.write_u8(0);
    b.write_u8(1);
    feed(&mut a);
    feed(&mut b);
    (a.finish(), b.finish())
}

/// Whether some thread's deleted events after its last kept one (the events a revisit removes
/// without leaving holes) were not added in program order (module docs, "Deleted events in
/// program order").
fn deleted_out_of_order(g: &ExecutionGraph, idx: &NodeIndex, deleted: &BitSet) -> bool {
    g.threads.iter().enumerate().any(|(t, evs)| {
        let kept = |i: usize| evs[i].stamp != HOLE && !deleted.contains(idx.node(EventId::new(t, i)));
        let tail = (0..evs.len()).rev().find(|&i| kept(i)).map_or(0, |i| i + 1);
        let mut stamps = evs[tail..].iter().map(|e| e.stamp).filter(|&s| s != HOLE);
        stamps.next().is_some_and(|first| stamps.try_fold(first, |prev, s| (s > prev).then_some(s)).is_none())
    })
}

/// Whether deleted read `x` is *chained* (module docs): it reads a deleted write `w` added after
/// it (an earlier revisit made it read that write) which leaves a hole — a later event of its
/// thread is kept.
fn chained_read(g: &ExecutionGraph, idx: &NodeIndex, x: EventId, deleted: &BitSet) -> bool {
    let Some(w) = g.event(x).rf else { return false };
    if w.is_init() {
        return false;
    }
    g.stamp(w) > g.stamp(x)
        && deleted.contains(idx.node(x))
        && deleted.contains(idx.node(w))
        && leaves_hole(g, idx, w, deleted)
        && first_added_leaving_hole(g, idx, w, deleted)
}

/// Whether no other deleted write of `w`'s location that leaves a hole was added after `w`
/// against the exploration's order ([`added_out_of_order`]): that one was added first in the
/// graph that qualifies (module docs, "Forced sources in the order of addition"). Those added
/// between `x` and `w` are asked later, of a completion ([`added_between`]).
fn first_added_leaving_hole(g: &ExecutionGraph, idx: &NodeIndex, w: EventId, deleted: &BitSet) -> bool {
    !g.writes_to(g.loc_of(w))
        .any(|y| !y.is_init() && y != w && added_out_of_order(g, y, w) && deleted.contains(idx.node(y)) && leaves_hole(g, idx, y, deleted))
}

/// The deleted writes of chained read `x`'s source's location, added between `x` and that
/// source, that leave a hole: of the graphs in which `x` reads one of those writes, the one where
/// it reads the first added is canonical (an earlier revisit made it read that one; a later write
/// revisiting it again gives another graph that the same revisit turns into the same) — where `x`
/// could read it (module docs, "The first added, where it could be read").
fn added_between(g: &ExecutionGraph, idx: &NodeIndex, x: EventId, deleted: &BitSet) -> Vec<EventId> {
    let Some(w) = g.event(x).rf.filter(|w| !w.is_init()) else { return Vec::new() };
    let (sx, sw) = (g.stamp(x), g.stamp(w));
    g.writes_to(g.loc_of(w))
        .filter(|&y| {
            !y.is_init() && y != w && (sx..sw).contains(&g.stamp(y)) && deleted.contains(idx.node(y)) && leaves_hole(g, idx, y, deleted)
        })
        .collect()
}

/// Whether write `y` of another thread than `w`'s came after `w` against the exploration's order
/// of addition, which refills holes first, lowest thread first, and then adds new events (module
/// docs, "Forced sources in the order of addition"): `y` is a refilled hole added after `w` (a
/// later event of its thread was added before it), and `w` is not, or is one of a later thread.
fn added_out_of_order(g: &ExecutionGraph, y: EventId, w: EventId) -> bool {
    let refilled = |x: EventId| {
        let evs = &g.threads[x.thread as usize];
        evs[x.index as usize + 1..].iter().any(|e| e.stamp != HOLE && e.stamp < g.stamp(x))
    };
    y.thread != w.thread && g.stamp(y) > g.stamp(w) && refilled(y) && (!refilled(w) || y.thread < w.thread)
}

/// The writes that make chained read `x`'s source `w` a write refilled ahead of its thread (module
/// docs, "Chained reads ahead of a refill"): deleted writes of `w`'s location, added after it,
/// that leave a hole, and are of `w`'s thread before `w` in program order or of `x`'s thread
/// after `x`.
fn refilled_after_source(g: &ExecutionGraph, idx: &NodeIndex, x: EventId, deleted: &BitSet) -> Vec<EventId> {
    let Some(w) = g.event(x).rf.filter(|w| !w.is_init()) else { return Vec::new() };
    g.writes_to(g.loc_of(w))
        .filter(|&y| {
            !y.is_init()
                && ((y.thread == w.thread && y.index < w.index) || (y.thread == x.thread && y.index > x.index))
                && g.stamp(y) > g.stamp(w)
                && deleted.contains(idx.node(y))
                && leaves_hole(g, idx, y, deleted)
        })
        .collect()
}

/// Whether the revisit that deletes `deleted` from `g` leaves the read of an atomic rmw a hole —
/// one it makes (a later event of its thread stays) or one `g` has — while it deletes a write of
/// that read's location other than the rmw's own: what every execution of the rmw-hole gap
/// needs (`super` docs, "Not explored": a read the revisit leaves a hole whose source in the
/// missed execution is a write the same revisit deletes). An exploration in which no revisit
/// does this is not in that gap, and its verdict does not name it
/// ([`super::revisits::caveats_met`]).
pub(super) fn rmw_hole_left(g: &ExecutionGraph, idx: &NodeIndex, deleted: &BitSet) -> bool {
    // (A hole keeps its label: the read of an rmw whose write half may be a hole too.)
    let rmw = |h: EventId| {
        let ev = g.event(h);
        let half = g.threads[h.thread as usize].get(h.index as usize + 1).is_some_and(|w| w.label.rmw_write);
        ev.label.is_read() && ev.label.atomic && (ev.cas_expected.is_some() || half)
    };
    let left_a_hole = |h: EventId| g.is_hole(h) || (deleted.contains(idx.node(h)) && leaves_hole(g, idx, h, deleted));
    let deletes_write_of = |h: EventId| {
        let (loc, own) = (g.label(h).loc, EventId { thread: h.thread, index: h.index + 1 });
        deleted.iter().map(|n| idx.id(n)).any(|w| w != own && g.label(w).is_write() && g.label(w).loc == loc)
    };
    g.event_ids().any(|h| rmw(h) && left_a_hole(h) && deletes_write_of(h))
}

/// Whether the revisit that deletes `deleted` from `g` keeps the read of an atomic rmw that
/// reads a write the same revisit deletes, while it leaves the rmw's write a hole (a later event
/// of its thread stays): the other start of the rmw-hole gap (`super` docs, "Not explored").
/// The maximality test rejects every such revisit — a kept read of a deleted write was added
/// before it, and the graph in which it read something else makes the revisit — but no such
/// graph may exist: the rmw's read can take no other write where another rmw already reads it
/// (atomicity). (`selftest --family assume` seed 35063193, minimized: `ld y; assume.gt r0, 0;
/// atom.release.exch x, 1 | atom.acquire.cta.add x, 1; st.weak y, 2; st.weak y, 1 | ld x; st x,
/// r0`. P0's `exch` revisits P2's `ld x` from the graph in which the `add` reads P2's `st x` and
/// P0's `ld y` a `st y` after it; the revisit keeps the `add`'s read and the `st y`s, and
/// deletes the `add`'s write and P2's `st x`. Before P2's `st x` came, the `add` read the
/// initial `x`, which P0's `exch` reads: 4 of 48 executions missed, with no caveat.)
pub(super) fn rmw_write_hole_left(g: &ExecutionGraph, idx: &NodeIndex, deleted: &BitSet) -> bool {
    let kept = |x: EventId| !g.is_hole(x) && !deleted.contains(idx.node(x));
    g.event_ids().any(|x| {
        let ev = g.event(x);
        let half = EventId { thread: x.thread, index: x.index + 1 };
        ev.label.is_read()
            && ev.label.atomic
            && kept(x)
            && ev.rf.is_some_and(|w| !w.is_init() && deleted.contains(idx.node(w)))
            && g.threads[x.thread as usize].get(half.index as usize).is_some_and(|h| h.label.rmw_write)
            && deleted.contains(idx.node(half))
            && leaves_hole(g, idx, half, deleted)
    })
}

/// Whether deleting `w` (with the events `deleted` holds) leaves a hole: a later event of its
/// thread is kept.
fn leaves_hole(g: &ExecutionGraph, idx: &NodeIndex, w: EventId, deleted: &BitSet) -> bool {
    let (t, evs) = (w.thread as usize, &g.threads[w.thread as usize]);
    (w.index as usize + 1..evs.len()).map(|i| EventId::new(t, i)).any(|x| !g.is_hole(x) && !deleted.contains(idx.node(x)))
}

/// The reads that the revisit of `r` deleting `deleted` keeps *pending* (module docs, "Pending
/// reads"), each with the write it reads: a read kept (added before `r`, in no prefix) after
/// every other kept event of its thread and with no hole before it there (the events before it
/// decide what it is), whose source the revisit deletes and refills in its own hole — a write
/// followed by a kept event of its thread and, for an rmw's write, whose read half stays (so
/// that it comes back as a write).
pub(super) fn pending_reads(g: &ExecutionGraph, idx: &NodeIndex, r: EventId, deleted: &BitSet) -> Vec<(EventId, EventId)> {
    let kept = |x: EventId| !g.is_hole(x) && !deleted.contains(idx.node(x));
    let mut out = Vec::new();
    for (t, evs) in g.threads.iter().enumerate() {
        let Some(last) = (0..evs.len()).rev().find(|&i| kept(EventId::new(t, i))) else { continue };
        if !(0..last).all(|i| kept(EventId::new(t, i))) {
            continue;
        }
        let x = EventId::new(t, last);
        let Some(w) = evs[last].rf.filter(|w| !w.is_init() && deleted.contains(idx.node(*w))) else { continue };
        if x == r || !evs[last].label.is_read() {
            continue;
        }
        let half_kept = !g.label(w).rmw_write || w.index > 0 && kept(EventId { thread: w.thread, index: w.index - 1 });
        if half_kept && leaves_hole(g, idx, w, deleted) {
            out.push((x, w));
        }
    }
    out
}

/// Whether `x` is the read of an rmw: of a `cas` (which writes or not), or of another rmw with
/// its write half in `g` (not a hole).
fn rmw_read(g: &ExecutionGraph, x: EventId) -> bool {
    let ev = g.event(x);
    ev.label.is_read() && ev.label.atomic && (ev.cas_expected.is_some() || has_half(g, x))
}

/// Whether `x`'s write half (the next event of its thread) is in `g`, not a hole.
fn has_half(g: &ExecutionGraph, x: EventId) -> bool {
    g.threads[x.thread as usize].get(x.index as usize + 1).is_some_and(|h| h.label.rmw_write && h.stamp != HOLE)
}

/// [`cut`] to the events `keep` accepts, with the revisiting write `a` (which `keep` leaves out:
/// it has no place in `co` yet) left as a hole in its place: it stays after the revisit, so the
/// deleted events before it in its thread are holes to fill, as they will be.
fn cut_around(t: &mut ExecutionGraph, keep: &dyn Fn(EventId) -> bool, a: EventId) {
    cut(t, &|x: EventId| keep(x) || x == a);
    if (a.index as usize) < t.threads[a.thread as usize].len() {
        let loc = t.loc_of(a) as usize;
        t.co[loc].retain(|&w| w != a);
        let ev = &mut t.threads[a.thread as usize][a.index as usize];
        ev.stamp = HOLE;
        ev.rf = None;
        ev.value = 0;
    }
}

/// The events of `g` that `keep` rejects although a later event of their thread is kept: the
/// holes a cut to `keep` leaves — with `graph_holes`, also the holes `g` has before such an event
/// (module docs, "Holes of the graph"); without, those stay open — found as they are asked for
/// (the maximality test often asks only whether there is one).
fn holes_left<'a>(g: &'a ExecutionGraph, keep: &'a dyn Fn(EventId) -> bool, graph_holes: bool) -> impl Iterator<Item = EventId> + 'a {
    g.threads.iter().enumerate().flat_map(move |(t, evs)| {
        let last = (0..evs.len()).rev().find(|&i| !g.is_hole(EventId::new(t, i)) && keep(EventId::new(t, i))).unwrap_or(0);
        (0..last).map(move |i| EventId::new(t, i)).filter(move |&e| if g.is_hole(e) { graph_holes } else { !keep(e) })
    })
}

/// Whether hole `h`, which the revisit of some read by `a` leaves, may still be open in a graph
/// the exploration reaches when it adds `a` (module docs, "chained reads"): `a` fills a hole of
/// its thread (a kept event follows it), and `next` fills the first hole of the lowest-numbered
/// thread first, so the later holes of `a`'s thread and the holes of later threads wait — but
/// for the fences it puts back before any other hole ([`refilled_early`]).
fn may_wait(g: &ExecutionGraph, a: EventId, h: EventId) -> bool {
    let fills = a.index as usize + 1 < g.threads[a.thread as usize].len();
    let later = h.thread > a.thread || (h.thread == a.thread && h.index > a.index);
    fills && later && !refilled_early(g.label(h))
}

/// The holes that a graph the exploration reaches can still hold open when it adds the
/// revisiting write `a`, the write half of an rmw whose read `read` reads a write `source` of
/// another thread (module docs, "Holes open at a refilled write half"): `source` revisited
/// `read` in that graph, deleting `a` and the events added after `read` outside its dependency
/// prefix, and `next` refilled `a` at once, before any other hole.
struct OpenAtRefill {
    read: EventId,
    /// What `read` reads.
    source: EventId,
    /// `source`'s dependency prefix: what that revisit kept besides the events up to `read`.
    source_prefix: BitSet,
}

impl OpenAtRefill {
    /// `None` where no such graph holds what the revisit of `r` by `a` keeps: `a` is no rmw's
    /// write half, its read reads the initial value or its own thread (which cannot revisit it),
    /// its source depends on it, or `r` was added after the read (that revisit would delete it).
    fn of(g: &ExecutionGraph, idx: &NodeIndex, prog: &CompiledProgram, a: EventId, r: EventId) -> Option<Self> {
        if !g.label(a).rmw_write {
            return None;
        }
        let read = EventId { thread: a.thread, index: a.index.checked_sub(1)? };
        let source = g.event(read).rf?;
        if source.is_init() || source.thread == read.thread || g.stamp(r) >= g.stamp(read) {
            return None;
        }
        let source_prefix = dep_prefix(g, idx, prog, source);
        if source_prefix.contains(idx.node(read)) {
            return None;
        }
        Some(OpenAtRefill { read, source, source_prefix })
    }

    /// Whether hole `h` may be open in a graph reached that way in which `e` takes `s`: the
    /// revisit by `source` kept `e`; `h` was added after `read` — later in `read`'s thread (but
    /// for a fence `next` put back before `read` where `s`'s revisit of `e` left `read` a hole);
    /// in a later thread, which `next` comes to after `read`'s; or after `e` in `e`'s thread
    /// where `s` revisited `e` (added after it) and left `read` a hole, which `next` refills
    /// before the events after `e` come back fresh — and that revisit left it a hole (a later
    /// event of its thread in `source`'s prefix).
    fn may_stay_open(&self, g: &ExecutionGraph, idx: &NodeIndex, prog: &CompiledProgram, h: EventId, (e, s): (EventId, EventId)) -> bool {
        let later_in = |set: &BitSet, x: EventId| {
            (x.index as usize + 1..g.threads[x.thread as usize].len()).any(|i| set.contains(idx.node(EventId::new(x.thread as usize, i))))
        };
        let read = self.read;
        // (`e` holds a choice there only where that revisit kept it: added before `read`, which
        // `next` comes to in thread order — or, where `g` itself was reached through that
        // revisit (`read` added before `source`), added before `read` here, as when an earlier
        // revisit deleted `read` and `next` refilled `e`, a hole, before `read` came back — or
        // in `source`'s prefix. Else it is a hole itself.)
        let revisited_here = g.stamp(read) < g.stamp(self.source) && g.stamp(e) < g.stamp(read);
        let kept_then = e.thread < read.thread
            || (e.thread == read.thread && e.index < read.index)
            || revisited_here
            || self.source_prefix.contains(idx.node(e));
        if !kept_then || !later_in(&self.source_prefix, h) {
            return false;
        }
        // No such graph has `e` take `source` itself: `e`, kept by `source`'s revisit of `read`
        // and outside `source`'s prefix, was added before `read`, so before `source`, and would
        // read it only through a revisit by `source` too — one write revisits once when added,
        // and `e` reads no write deleted and added back; in `source`'s prefix, `e` reading it
        // would close an `rf ∪ dep` cycle (No-Thin-Air, PTX ISA §8.10.4). (`assume` 45006525:
        // P0's `ld z` "could have read" P3's `st z` with P3's `ld.acquire x` left open, which,
        // refilled, rules that graph out: 2 of 8 executions missed, no caveat.) A write `e`
        // placed right after `source` in `co` needs no revisit: `source`, added after `e`, took
        // its place before it when added, and `e`'s choice stands in the graph that revisit left.
        // (`ptx` 68006661, shrunk: `ld y; ld z; st y, 0 | cas y | cas y; exch z; add y`. P1's
        // refilled `cas` write revisited P0's `ld y` both from the graph in which P0's `st y`
        // followed P3's `add` write in `co` and from the one in which it came before; the test of
        // the second filled P3's `cas` hole, which has no source with the `cas` write left out,
        // and took both: 12 of 1,928 executions explored twice, 192 of 7,586 in the original.
        // The same closed `known_gaps::fuzz_778_275549`, pinned as open since `9413fc9`.)
        if s == self.source && g.label(e).is_read() {
            return false;
        }
        // Where `e` reads `s` only through `s`'s revisit of it, and that revisit left `read` a
        // hole with `h` a fence that `next` refills first ([`refilled_early`]) and kept or a hole
        // too, `h` came back before `read` did, and `source`'s revisit of `read` kept it.
        // (`known_gaps::ptx_10101_25902`: `ld y; tld y_tex; bne; st.release y | red.inc y;
        // fence.acq_rel; st y, 1`. The refilled `inc` write's revisit of the `ld y` was refused:
        // the load "could have read" `st y` with the fence left open, which, back in place, rules
        // that out — 13 of 14 executions, no caveat.)
        let revisited_by_s = !s.is_init() && g.stamp(s) > g.stamp(e);
        if h.thread == read.thread {
            if h.index <= read.index {
                return false;
            }
            if !(revisited_by_s && refilled_early(g.label(h))) {
                return true;
            }
            let s_prefix = dep_prefix(g, idx, prog, s);
            let read_left_a_hole = !s_prefix.contains(idx.node(read)) && later_in(&s_prefix, read);
            let h_back_first = s_prefix.contains(idx.node(h)) || later_in(&s_prefix, h);
            return !(read_left_a_hole && h_back_first);
        }
        if h.thread > read.thread {
            return true;
        }
        if !(h.thread == e.thread && h.index > e.index && revisited_by_s) {
            return false;
        }
        let s_prefix = dep_prefix(g, idx, prog, s);
        !later_in(&s_prefix, h) && !s_prefix.contains(idx.node(read)) && later_in(&s_prefix, read)
    }
}

/// Whether the revisiting write `a` is the write half of an rmw whose read is kept (`keep`) and
/// was added before the events just before `a`, reading what it read then: a revisit deleted
/// `a` while it kept the read (a later event of the thread needed the read, not the write), and
/// `next` refilled `a` at once, an rmw's write half going first — and the choice of `e` under
/// test was made before that revisit. (The events added since, `a` last, hold the latest stamps:
/// [`ExecutionGraph::added_since_cut`]. Where the revisit also left holes before the read in
/// its thread, `next` refills those first, with `a` out of `co`, and a graph in which one of
/// them takes another choice is reached like any other: `selftest --family proxy` seed 109972,
/// whose refilled `st x` took two places in `co` from which the refilled `add` write revisited
/// alike, 47,720 executions, 42,480 of them duplicates.) Every graph from which `a`
/// revisits is then, but for `a`, the graph that revisit left, whose kept events were all in a
/// graph with `a` in place, right after what its read reads (Atomicity, PTX ISA §8.10.3; Tile IR
/// spec §7.10): a completion without `a` in `co` can be one no such graph is. Not where that
/// revisit revisited the read itself (the read's source is that revisit's write): `a` stood
/// after the read's old source, and the kept events need not allow it after the new one (`exch
/// f | max f | st.release f`, `selftest` tileir seed 95: 1 of 6 executions explored twice). A
/// read revisited by an earlier revisit counts like any other: `a`, refilled after that one,
/// stood right after the read's new source. (`selftest --family proxy` seed 23018752, shrunk:
/// `exch y | suld x_sur; add y, r0; st x, r1 | ld y_gen; ld x; st y, 1`. P2's `st y` revisited
/// the `add` read, and the refilled `add` write stood right after it; the `st x` then revisited
/// the `suld` through its surface alias, deleting the `add` write, which, refilled, revisits
/// P0's `exch`. With every read revisited once left out, the `exch` "could have read" the `st
/// y` with `a` out of `co` — where `a` must follow that store itself — and the revisit was
/// rejected from every graph: 8 of 96 executions and 6 final states missed, with no caveat.)
/// (Tile IR, `selftest` seed 479784: P1's
/// `ld.weak` reads P1's later store, which needs its `exch`'s read, not its write; the refilled
/// `exch` write revisits P0's `add`, which "could have read" P0's store with `a` left out —
/// where `a` must follow that store itself. The revisit was rejected from every graph and 1 of
/// 60 executions was missed.) Where the read was added just before `a` (the two refilled
/// together, or `a` added fresh), graphs in which `a` has no place are reached like any other
/// (the revisits come before `VisitCOs`), and `a` is left out (placing it there too made 24 of
/// the 240 executions of `selftest` tileir seed 400074 duplicates). Nor where `a` was a hole
/// already in the graph that revisit came from, left by an earlier one
/// ([`ExecutionGraph::hole_before_last_cut`]): no graph it came from had `a` in place, and one in
/// which `a` was never in `co` is reached too. (`tcfuzz fuzz --seed 9696` program 20969, shrunk,
/// Tile IR: P1's second `max` write, a hole since P1's `add x` revisited P0's `ld x`, stayed one
/// when P1's first `max` write revisited P0's `add f`; refilled, it revisited that `add` again,
/// and placed after P0's store, the `add` "could not" read that store: 1 of 161 executions was
/// explored twice, from that graph and from the one where the `add` read the store.)
fn placed_before_revisit(g: &ExecutionGraph, a: EventId, keep: &dyn Fn(EventId) -> bool, e: EventId) -> bool {
    let Some(index) = a.index.checked_sub(1) else { return false };
    let read = EventId { thread: a.thread, index };
    // The events added since the revisit that left `a` a hole, `a` last, have the latest stamps;
    // the write of that revisit, added just before it, the latest of the others.
    let at_cut = g.stamp(a).saturating_sub(g.added_since_cut());
    let chosen_before_that_revisit = g.stamp(e) <= at_cut;
    // (And where that revisit deleted `a`: a hole already before it was in no graph it came from.)
    if !(g.label(a).rmw_write && keep(read) && g.stamp(a) > g.stamp(read) + 1 && chosen_before_that_revisit && !g.hole_before_last_cut(a)) {
        return false;
    }
    let revisiting_write = present(g).filter(|&x| g.stamp(x) <= at_cut).max_by_key(|&x| g.stamp(x));
    g.event(read).rf.is_none_or(|w| Some(w) != revisiting_write)
}

/// Where event `x` sits after [`fix_cas_layout`] moved the later events of `r`'s thread by
/// `moved` (the old write half of `r`'s `cas`, gone when `moved` is -1, stays as it was).
fn shifted(x: EventId, r: EventId, moved: i32) -> EventId {
    let later = x.thread == r.thread && x.index > r.index + u32::from(moved < 0);
    if later { EventId { thread: x.thread, index: x.index.wrapping_add_signed(moved) } } else { x }
}

/// Follows [`fix_cas_layout`]'s move of the events after the `cas` read `r` by `moved` positions
/// in the list of holes to fill: a new write half is a hole to fill, a dropped one is not.
fn shift(holes: &mut Vec<EventId>, r: EventId, moved: i32) {
    let half = EventId { thread: r.thread, index: r.index + 1 };
    match moved {
        1 => {
            for h in holes.iter_mut().filter(|h| h.thread == r.thread && h.index > r.index) {
                h.index += 1;
            }
            holes.push(half);
        }
        -1 => {
            holes.retain(|&h| h != half);
            for h in holes.iter_mut().filter(|h| h.thread == r.thread && h.index > half.index) {
                h.index -= 1;
            }
        }
        _ => {}
    }
}
