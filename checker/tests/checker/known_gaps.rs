//! Explorer gaps found by random and fuzzed programs: programs where the DPOR explorer and the
//! exhaustive oracle disagreed with no caveat (or explored executions twice), found by `tcfuzz
//! selftest --programs 100000 --family all --seed 400000` and by `tcfuzz fuzz --seed 1`, and
//! minimized. Each test asserts what must hold (explorer = oracle, no duplicates). A gap still
//! open is pinned with `#[ignore]` and the figures it shows (`cargo test -p tcfuzz-checker --test
//! tests known_gaps -- --ignored` runs those); a fix removes the `#[ignore]` and says in the
//! test's comment what was wrong, and the test stays as a regression test. Thirteen are open:
//! spurious caveats (`ptx` seed 60015091, a `cas` comparing with a register, whose duplicates
//! are fixed; program 3-4395 of `tcfuzz generate`, the rmw hole and the lost revisit on a
//! program the explorer explores exactly) and missed executions a caveat names (`tileir`
//! 12061385; `ptx` 19061439, the rmw hole; `ptx` 7000784, the `cas` class in two threads of two
//! instructions; `proxy` 7000160, the same class inside one thread through a texture alias;
//! program 263645 of `fuzz --seed 778`, an acquire `cas`, named since its caveat's test counts
//! acquires; pinned by that test alone; `assume` 35063193, an rmw's read kept with its write a
//! hole, named since the rmw-hole test looks at revisits the maximality test rejects), and three that explore executions twice (`tileir`
//! 27043822, a vector store writing one element twice; program 275549 of `fuzz --seed 778` —
//! closed since — and program 16812 of `fuzz --seed 779`, within the rmw-hole caveat). More since: `proxy`
//! 53163872, duplicates with no caveat; `assume` 58085115, missed executions of an `exch`
//! that Atomicity holds in place, named by a caveat since (`explore::holes::held_by_atomicity`);
//! `assume` 66048245, executions with a failed `assume` explored twice; and `assume` 71123294,
//! duplicates within the rmw-hole caveat. (`ptx` 68006661,
//! duplicates with no caveat, closed since: `ptx::a_deleted_write_after_a_refilled_reads_source_is_explored_once`.)
//! One known program loses an execution that no caveat names, open: `ptx` 95798598 (load
//! buffering through a CTA barrier that no thread reaches after a branch). Before it, the last
//! ones were `assume` 58085115, `assume` 45006525, a hole that
//! `OpenAtRefill` held open for the maximality test where no graph the exploration reaches
//! holds it; completions of the maximality test that held a hole open where the exploration
//! fills it or drops the graph (`assume` 23042403, `fenced` 27084810; `explore/maximal.rs`,
//! "Holes of the graph", "Waiting holes at the revisit"); that acquire `cas`; and `assume`
//! 35063193. Before that, revisits that forget a hole's
//! `rf` explored executions twice (`assume` and `proxy` 15012821, `proxy` 11091048, program
//! 3315 of `tcfuzz fuzz --seed 303`), closed by the rule "Reads kept ahead of a revisit" for
//! chained reads (`explore/maximal.rs`). (`sync` 15092254, missed executions with no caveat,
//! closed with the model: they lost an mbarrier arrival.) From the coverage-guided campaigns
//! with the oracle on every program (`tcfuzz fuzz --seed 9090`, `9191`, `9292`): closed, 9090
//! program 99613 (missed executions, no caveat), and `sync` 9191/41531 (an impossible blocked
//! execution of the oracle's); open, duplicates on `proxy` 9090/134213, `shared` 9191/34713 and
//! `tileir` 9292/46266.

use crate::build::RMW_HOLE_CAVEAT as RMW_HOLE;
use tcfuzz_checker::{Method, ModelKind, Options, check, check_exact, check_oracle};

/// Explorer = oracle on `text` under `model`: the complete count, every final state with its
/// count, and no duplicate executions.
/// Both with the revisits the explorer picks and with the dependency revisits (which most of
/// these gaps were in; a program none of whose executions can have a cyclic `po ∪ rf` gets
/// TruSt's by default).
fn explorer_equals_oracle(text: &str, model: ModelKind) {
    explorer_equals_oracle_past(text, model, &[]);
}

/// Options that count duplicate executions.
fn detecting_duplicates() -> Options {
    Options { detect_duplicates: true, ..Options::default() }
}

/// `p` checked under `model`, duplicates counted, by the explorer and by the oracle.
fn explorer_and_oracle(p: &tcfuzz_litmus::Program, model: ModelKind) -> (tcfuzz_checker::Verdict, tcfuzz_checker::Verdict) {
    let opts = detecting_duplicates();
    (check(p, model, &opts).expect("explorer"), check_oracle(p, model, &opts).expect("oracle"))
}

/// A phrase of the caveat of a `cas` on a load-buffering cycle, or comparing with a register on one.
const CAS_ON_A_CYCLE: &str = "in which a cas fails only because it reads a write";

/// The caveat of a revisit the explorer met and could not take.
const LOST_REVISIT: &str = "a load-buffering revisit it cannot take";

/// The caveat of a revisit the explorer refused because Atomicity held the read in the
/// revisiting write's prefix.
const ATOMICITY_HELD: &str = "only because another atomic rmw, which the revisiting write needs, reads that rmw's write";

/// [`explorer_equals_oracle`] for a program whose shape raises caveats of the explorer's
/// verdict (executions it may not explore, judged from the program alone): each caveat must be
/// one of `allowed` (a phrase of its text), and explorer = oracle all the same — the gaps here
/// are duplicates or a lost revisit, which no such caveat names.
fn explorer_equals_oracle_past(text: &str, model: ModelKind, allowed: &[&str]) {
    let p = tcfuzz_litmus::parse(text).expect("parses");
    for always_dependency_revisits in [false, true] {
        let opts = Options { detect_duplicates: true, always_dependency_revisits, ..Options::default() };
        let e = check(&p, model, &opts).expect("explorer");
        let o = check_oracle(&p, model, &opts).expect("oracle");
        assert!(e.caveats.iter().all(|c| allowed.iter().any(|a| c.contains(a))), "a caveat now names this gap: {:?}", e.caveats);
        assert_eq!(e.stats.duplicates, Some(0), "explorer duplicates\n{e}");
        assert_eq!(e.stats.complete, o.stats.complete, "complete executions\nexplorer:\n{e}\noracle:\n{o}");
        assert_eq!(e.states, o.states, "final states\nexplorer:\n{e}\noracle:\n{o}");
    }
}

/// selftest seed 432693, family fenced: plain accesses and `fence.sc.cta` in three threads. The
/// explorer found 124 of the oracle's 126 executions: it missed the two (one per `co` order of
/// `x`) where P0's `ld y` reads P1's `st y`, P1's second `ld x` reads P0's `st x` and P1's
/// `ld y` reads P2's `st y`. For P0's `st x` to revisit P1's second `ld x`, P1's `ld y` (deleted,
/// a hole) must read P2's `st y` (deleted, a hole), added after it — a chained read, which the
/// maximality test accepted only for rmws, so every graph the revisit could start from was
/// rejected (`maximal.rs`, "chained reads"). Fixed: plain reads chain too.
#[test]
fn fenced_432693_explorer_misses_two_of_126_executions() {
    explorer_equals_oracle(
        r"PTX random-fenced-432693
{
  x = 0;
  y = 0;
}
 P0@cta 0,gpu 0 | P1@cta 0,gpu 0 | P2@cta 0,gpu 0 ;
 ld r1, y       | ld r0, x       | st y, 0        ;
 st x, 0        | ld r1, x       | fence.sc.cta   ;
                | fence.sc.cta   | st x, 0        ;
                | ld r2, y       |                ;
                | st y, 0        |                ;
exists (true)
",
        ModelKind::Ptx,
    );
}

/// selftest seed 450517, family tcgen05: `cta_group::2` commits multicast to mbarriers, and an
/// `mma` whose enable-input-d is a loaded register. Was: explorer 32 complete executions (4 of
/// them twice), oracle 28. P1's second commit arrive revisits P1's first `mbarrier.arrive` read
/// from two graphs differing only in deleted events: the maximality test's completion search
/// took the mma's read of `w` for its accumulator slot and filled the slot before the mma's first
/// event, a partial instruction the tcgen05 model rejects, so it found no completion where one
/// exists (`Explorer::completable` in `explore/maximal.rs`, `Label::is_accumulator_slot_of`).
#[test]
fn tcgen05_450517_explorer_explores_four_executions_twice() {
    explorer_equals_oracle(
        r"PTX random-tcgen05-450517
{
  d1 @ tmem cta 1 gpu 0 lanes 32-63 cols 0-31 = 0;
  t @ tmem cta 0 gpu 0 lanes 0-127 cols 32-63 = 1;
  w @ shared cta 0 gpu 0 = 1;
  bar @ mbarrier cta 0 gpu 0 count 1;
  bar1 @ mbarrier cta 1 gpu 0 count 1;
  e = 0;
}
 P0@cta 0,cluster 0,gpu 0                                                                          | P1@cta 1,cluster 0,gpu 0                                                                           ;
 st e, 1                                                                                           | mbarrier.arrive.relaxed.cta.shared::cta.b64 st, [bar1]                                             ;
 tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64 [bar], 3 | ld f1, e                                                                                           ;
                                                                                                   | tcgen05.mma.cta_group::2.kind::f16 [d1], [t], [w], 1, f1                                           ;
                                                                                                   | tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64 [bar1], 3 ;
exists (true)
",
        ModelKind::Ptx,
    );
}

/// selftest seed 475705, family tcgen05: two `tcgen05.shift`s, a commit to an mbarrier another
/// thread arrives at. Was: explorer 5 complete executions, oracle 7 (the two where P1 runs
/// first). For P1's shift to revisit P0's, P0's commit arrive must read P1's `mbarrier.arrive`,
/// added after it — a chained read (`explore/maximal.rs`), which counted only rmws on ordinary
/// memory, so the revisit was lost.
#[test]
fn tcgen05_475705_explorer_misses_two_of_7_executions() {
    explorer_equals_oracle(
        r"PTX random-tcgen05-475705
{
  t @ tmem cta 0 gpu 0 lanes 0-127 cols 32-63 = 0;
  bar @ mbarrier cta 0 gpu 0 count 1;
}
 P0@cta 0,gpu 0                                                              | P1@cta 0,gpu 0                                        ;
 tcgen05.shift.cta_group::1.down [t]                                         | mbarrier.arrive.relaxed.cta.shared::cta.b64 st, [bar] ;
 tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [bar] | tcgen05.fence::after_thread_sync                      ;
                                                                             | tcgen05.shift.cta_group::1.down [t]                   ;
exists (true)
",
        ModelKind::Ptx,
    );
}

/// selftest seed 479784, family tileir: an `exch` whose value is a register a weak load set.
/// Was 50 of 60 executions: the maximality test let an rmw read (P0's `add`) "choose" a write
/// that its write half could not follow in `co`; it now places the half
/// (`tileir_rmw_read_counts_its_write_half_in_the_maximality_test`). Then 59 of 60: the execution
/// in which P1's `ld.weak` reads P1's own later store and P0's `add` reads P1's `exch` write was
/// missed. The revisit of the `add` by the refilled `exch` write was rejected because the `add`
/// "could have read" P0's store — in a completion that left the revisiting `exch` write out of
/// `co`, although every graph the revisit can start from has that write in place right after
/// P0's store (a revisit deleted it while keeping its read, and `next` refilled it at once).
/// Fixed: such a write is placed in the completions (`placed_before_revisit` in
/// `explore/maximal.rs`); where its read was added just before it, it is still left out, which
/// keeps selftest tileir seeds 400007, 400074 and 400186 free of duplicates.
#[test]
fn tileir_479784_explorer_misses_ten_of_60_executions() {
    explorer_equals_oracle(
        r"TileIR random-tile-479784
{
  f = [0];
}
P0@tlb 1, dev 0 {
  st.relaxed.tile_block f, [1];
  a3 = atom.relaxed.tile_block.add f, [1];
}
P1@tlb 1, dev 0 {
  r1 = ld.weak f;
  a2 = atom.relaxed.tile_block.exch f, r1;
  st.relaxed.tile_block f, a2;
}
exists (true)
",
        ModelKind::TileIr,
    );
}

/// `tcfuzz fuzz --seed 1 --programs 1000000 -j 2`, program 104784 (a coverage-guided PTX mutant),
/// minimized by `tcfuzz fuzz` (11 → 6 instructions). Was: explorer 22 complete executions,
/// oracle 14, the difference duplicates (75 in the original program). P1's `f` rmw revisits P0's
/// `f` read from two graphs: one in which P0's `x` read reads the initial value (and P1's `x`
/// rmw reads P0's `st.weak`), one in which it reads P1's `x` rmw write, added after it (a chained
/// read). The maximality test's completion, filling P1's `x` hole, found no source for it
/// without P0's `st.weak`, which comes after every kept event of P0 and which the completion
/// left out, so it took the chain as canonical too. Fixed: a completion lets threads go on past
/// their last event where the holes cannot be filled otherwise (`Explorer::completable` in
/// `explore/maximal.rs`). It still carries the rmw-hole caveat (over-approximated).
#[test]
fn fuzz_104784_explorer_explores_executions_twice() {
    explorer_equals_oracle_past(
        r"PTX coverage-1-104784
{
  x = 0;
  f = 0;
}
 P0@cta 1,gpu 0           | P1@cta 1,gpu 0            ;
 red.relaxed.cta.add f, 0 | atom.acquire.add m3, x, 1 ;
 red.release.cta.add x, 0 | atom.cta.add m0, f, 1     ;
 st.weak x, 0             | ld m1, f                  ;
exists (true)
",
        ModelKind::Ptx,
        &[RMW_HOLE],
    );
}

/// `tcfuzz fuzz --seed 1 --programs 1000000 -j 2`, program 380820 (a coverage-guided Tile IR
/// mutant), minimized by `tcfuzz fuzz` (6 → 5 instructions). Was: explorer 52 complete
/// executions, oracle 45, the difference duplicates (112 in the original program). The refilled
/// write of P0's `add` of `x` revisits P0's load from two graphs: one in which P1's `exch` of `f`
/// is still a hole and P0's `max` reads the initial `f`, one in which P1 refilled it and the
/// `max` reads its write, added after the `max` (a chained read). The maximality test asked the
/// chained read for a completion with P1's holes filled, which has no graph with the `max`
/// reading the initial `f`, and took the chain as canonical too. Fixed: the holes of later
/// threads wait when the revisiting write fills a hole (`may_wait` in `explore/maximal.rs`).
#[test]
fn fuzz_380820_tileir_explorer_explores_executions_twice() {
    explorer_equals_oracle_past(
        r"TileIR coverage-1-380820
{
  x = [0, 0];
  f = [0];
}
P0@tlb 1, dev 0 {
  r1, <t1> = ld.acquire.tile_block x[1, 0];
  a2 = atom.relaxed.tile_block.max f, [2], <t1>;
  m0 = atom.relaxed.tile_block.add x, [1, 2];
}
P1@tlb 1, dev 0 {
  a1, <t1> = atom.relaxed.tile_block.exch f, [2];
  a2 = atom.release.tile_block.exch x, [1, 2], <t1>;
}
exists (true)
",
        ModelKind::TileIr,
        &[RMW_HOLE],
    );
}

/// `selftest --family ptx` seed 60015091, minimized by `tcfuzz minimize --kind
/// explorer-vs-oracle` (13 → 12 instructions): explorer 196 complete executions, 36 of them
/// duplicates; oracle 160. The dependency revisits (a `po ∪ rf` cycle is possible through the
/// `add` of a loaded register); the verdict names the rmw-hole caveat, which covers missed
/// executions, not duplicates. Open. Diagnosed (stop 39): P1's `st.weak y` revisits P0's first
/// `ld y` from two graphs that it turns into one. In both, P0's `cas` read is a chained read
/// (`explore/maximal.rs`): in one it reads P1's `add` write, in the other P1's `st y, 1`, which
/// had revisited it and left P1's `ld z` and `add` as holes, refilled after the store; so
/// `first_added_leaving_hole` ("the first added") names a different write in each and both
/// qualify. Tried and reverted: the `co`-earliest such write closes both gaps here but loses a
/// failed-`assume` execution on `szymanski` under PTX (24 / 492 against GenMC's 25 / 497,
/// `generator/tests/families.rs`); the `co`-latest (alone or with the stamp window) closes both
/// but loses executions on `fuzz_380820_tileir_…` above. Selftest (ptx 25,000 at 60M–62M, all,
/// fenced, sync, assume, tcgen05, tileir) did not tell the rules apart. Duplicates fixed: a
/// chained read whose source was refilled ahead of an earlier write of its thread that it could
/// read is not canonical (`explore/maximal.rs`, "Chained reads ahead of a refill"); explorer 160
/// executions, no duplicates, the oracle's states. The verdict also carried the lost-revisit
/// caveat ("a load-buffering revisit it cannot take"), which the starting commit had too, while
/// the explorer misses nothing here; closed: a revisit refused only because `r` reads a deleted
/// write other than its forced source is not lost where a graph with `r` reading the forced
/// source can be completed (`explore/maximal.rs`, `completable_with_forced_source`).
const PTX_60015091: &str = r"PTX random-ptx-60015091
{
  x = 0;
  y = 0;
  z = 0;
}
 P0@cta 1,gpu 0                   | P1@cta 1,gpu 0                 ;
 st x, 1                          | ld r0, z                       ;
 ld r0, y                         | atom.relaxed.cta.add r1, y, r0 ;
 st z, 2                          | st y, 1                        ;
 ld r2, x                         | ld r2, x                       ;
 atom.relaxed.cta.cas r3, y, 0, 0 | ld r3, y                       ;
                                  | bne r1, 0, L0                  ;
                                  | st.weak y, 0                   ;
                                  | L0:                            ;
exists (true)
";

#[test]
fn ptx_60015091_explorer_explores_executions_twice() {
    explorer_equals_oracle_past(PTX_60015091, ModelKind::Ptx, &[RMW_HOLE]);
    // No lost revisit is named any more; the rmw-hole caveat stays (a static over-approximation).
    let p = tcfuzz_litmus::parse(PTX_60015091).expect("parses");
    let (e, o) = explorer_and_oracle(&p, ModelKind::Ptx);
    assert_eq!((e.stats.complete, e.stats.duplicates, o.stats.complete), (160, Some(0), 160), "{e}\n{o}");
    assert!(!e.caveats.iter().any(|c| c.contains(LOST_REVISIT)), "{:?}", e.caveats);
}

/// `selftest --family ptx` seed 60004622, minimized as above (12 → 10 instructions): explorer
/// 411 complete executions, 27 of them duplicates; oracle 456. The verdict names the caveat of
/// a `cas` on a load-buffering cycle (the register compare value), which covers the 72 missed
/// executions, not the duplicates. The same fault as seed 60015091 above (both rules tried
/// there remove these duplicates too, leaving 384 executions). Fixed with it: 384 executions,
/// no duplicates.
#[test]
fn ptx_60004622_explorer_explores_executions_twice() {
    let p = tcfuzz_litmus::parse(
        r"PTX random-ptx-60004622
{
  x = 0;
  y = 0;
}
 P0@cta 0,gpu 0                   | P1@cta 0,gpu 0                ;
 ld r0, y                         | ld r0, x                      ;
 st y, 0                          | atom.relaxed.cas r1, x, r0, 0 ;
 ld r2, x                         | st x, 0                       ;
 atom.relaxed.cta.cas r3, x, 0, 0 | st x, r1                      ;
 st y, 0                          | st y, 0                       ;
exists (true)
",
    )
    .expect("parses");
    let e = check(&p, ModelKind::Ptx, &Options { detect_duplicates: true, ..Options::default() }).expect("explorer");
    assert_eq!(e.stats.duplicates, Some(0), "explorer duplicates\n{e}");
}

/// Under PTX, no duplicate execution and the oracle's complete count, whatever caveats the
/// verdict carries (they cover missed executions; these gaps were duplicates).
fn explorer_count_equals_oracle_without_duplicates(text: &str) {
    let p = tcfuzz_litmus::parse(text).expect("parses");
    let (e, o) = explorer_and_oracle(&p, ModelKind::Ptx);
    assert_eq!(e.stats.duplicates, Some(0), "explorer duplicates\n{e}");
    assert_eq!(e.stats.complete, o.stats.complete, "complete executions\nexplorer:\n{e}\noracle:\n{o}");
}

/// `tcfuzz fuzz --programs 30000 -j 2 --seed 32`, program 26038 (coverage-guided), minimized by
/// the fuzzer: explorer 100 complete executions, 3 of them duplicates; oracle 97 (the same
/// states). Smaller than the two above and with no register anywhere: two `cas` of constants,
/// an `exch` and a `red` of one location. The verdict carries the cas-LB and rmw-hole caveats,
/// which cover missed executions, not duplicates. The refilled `exch` write revisited P0's `cas`
/// read from two graphs: one in which the `red` had revisited the `exch` read, the `cas` reading
/// the `st.release` and P0's `ld.acquire` still a hole, and one in which the `cas` reads the
/// initial `y`. The maximality test of the second asked whether the `cas` could have read the
/// store with the `ld.acquire` hole filled, which no consistent graph allows, and accepted it.
/// Fixed: holes that a graph reached through a revisit of the rmw's read can hold open when its
/// write half is refilled stay open in that test (`explore/maximal.rs`, "Holes open at a
/// refilled write half").
#[test]
fn fuzz_32_26038_explorer_explores_executions_twice() {
    explorer_count_equals_oracle_without_duplicates(
        r"PTX coverage-32-26038
{
  x = 0;
  y = 0;
}
 P0@cta 0,cluster 0,gpu 0             | P1@cta 2,cluster 0,gpu 0         ;
 atom.relaxed.cluster.cas r1, y, 0, 0 | atom.relaxed.cta.cas r0, x, 0, 0 ;
 ld.acquire.cluster r3, y             | atom.relaxed.cta.exch r1, y, 0   ;
 red.relaxed.cta.min y, 0             | st.release.cluster y, 1          ;
exists (true)
",
    );
}

/// `tcfuzz fuzz --programs 300000 -j 1 --seed 47`, program 182214 (random PTX), minimized by the
/// fuzzer (10 → 6 instructions): explorer 16 complete executions, 4 of them duplicates; oracle
/// 12 (the original: 122 with 32 duplicates). The class of seeds 60015091 and 60004622 above, a
/// `cas` comparing with a register a load set, at half their size. The verdict carries the
/// cas-LB and rmw-hole caveats, which cover missed executions, not duplicates. Fixed with them
/// (`explore/maximal.rs`, "Chained reads ahead of a refill"): 12, no duplicates.
#[test]
fn fuzz_47_182214_explorer_explores_executions_twice() {
    explorer_count_equals_oracle_without_duplicates(
        r"PTX random-ptx-47-182214
{
  x = 0;
  y = 0;
  z = 0;
}
 P0@cta 1,gpu 0 | P1@cta 0,cluster 0,gpu 0      | P2@cta 0,cluster 0,gpu 0      ;
 ld r1, y       | atom.relaxed.cta.add r0, x, 0 | ld r0, z                      ;
                |                               | atom.relaxed.cas r1, x, r0, 0 ;
                |                               | st x, 0                       ;
                |                               | st y, r1                      ;
exists (true)
",
    );
}

/// `tcfuzz generate --seed 6` program 5741 (family fenced; the one of the campaign's first 20,000
/// programs whose verdict the oracle can judge where the explorer missed an execution), shrunk by
/// hand from 14 instructions (`tcfuzz minimize` keeps no explorer-vs-oracle difference that a
/// caveat covers). No rmw; dependency revisits, a load-buffering cycle being possible. Explorer
/// 83 complete executions, no duplicates, with the lost-revisit caveat; oracle 84: one of the 8
/// executions of the state `P0:r1 = 2, P1:r0 = 2, P1:r1 = 1, x = 2, y = 1` was missed. For P0's
/// `st y` to revisit P1's `ld y`, that load must read P2's `st y` (deleted, a hole before P2's
/// kept fence): a forced source (`explore/maximal.rs`). P1's own later `st y`, `co`-after it and
/// deleted too, made it not the `co`-latest such write, though the load can never read it
/// (Causality). Fixed: a later write of the read's own thread does not count there.
#[test]
fn fenced_6_5741_own_later_write_is_no_forced_source() {
    explorer_equals_oracle(
        r"PTX random-fenced-6-5741
{
  x = 0;
  y = 0;
}
 P0@cta 0,cluster 0,gpu 0 | P1@cta 1,cluster 0,gpu 0 | P2@cta 0,cluster 0,gpu 0 ;
 ld.relaxed.gpu r1, x     | ld.relaxed.gpu r0, x     | st.relaxed.gpu y, 1      ;
 st.relaxed.gpu y, 1      | fence.sc.gpu             | fence.sc.gpu             ;
                          | ld.relaxed.gpu r1, y     | st.relaxed.gpu x, 2      ;
                          | st.relaxed.gpu y, 1      |                          ;
                          | st.relaxed.gpu x, 2      |                          ;
exists (true)
",
        ModelKind::Ptx,
    );
}

/// `selftest --programs 20000 --family all --seed 9000000` found seed 9016819 (family fenced):
/// explorer 415 complete executions, oracle 416, **with no caveat** — a wrong count the verdict
/// does not admit (the same final states; one of the 19 executions of one state missed). It is
/// there at `b7bd520` too, before the rmw marks (the program has no rmw). Minimized by `tcfuzz
/// minimize --kind explorer-vs-oracle` (15 → 10 instructions, every value 0): explorer 68,
/// oracle 69, no duplicates, with the revisits the explorer picks. P0's `st y` revisited P2's
/// `ld y` and left P0's second `ld x` a hole that only P1's `st x` could fill — deleted by an
/// earlier revisit, and P1 could not go past its last event while a hole was open. Fixed: such a
/// hole waits while the other threads go on (`explore::trust`, "Waiting holes").
#[test]
fn fenced_9016819_hole_waits_for_a_store_not_yet_added() {
    explorer_equals_oracle(
        r"PTX random-fenced-9016819
{
  x = 0;
  y = 0;
}
 P0@cta 0,gpu 0       | P1@cta 0,gpu 0       | P2@cta 0,gpu 0      ;
 ld.relaxed.cta r0, y | ld.relaxed.cta r0, x | ld r1, y            ;
 fence.acq_rel.cta    | st.release.cta y, 0  | st.release.cta x, 0 ;
 ld.relaxed.cta r2, x | st x, 0              |                     ;
 fence.acq_rel.cta    |                      |                     ;
 st y, 0              |                      |                     ;
exists (true)
",
        ModelKind::Ptx,
    );
}

/// `selftest --family proxy` seed 100934, minimized with the waiting holes of `explore::trust`
/// first written to wait wherever no write of the graph could fill a hole: 13 executions, one of
/// them twice. P1's `ld.acquire x` hole waited in a graph that could never be completed (no
/// thread could still write `x`), P0 went on, and its `st y_gen` revisited P0's `tld` from there
/// as well as from the graph the maximality test picks. A hole now waits only where the graph
/// can be completed. (It carries the rmw-hole caveat, an over-approximation here.)
#[test]
fn proxy_100934_no_hole_waits_in_a_graph_that_cannot_be_completed() {
    explorer_equals_oracle_past(
        r"PTX random-proxy-100934
{
  x = 0;
  y = 0;
  y_gen @ generic aliases y;
  y_tex @ texture aliases y;
}
 P0@cta 1,gpu 0                 | P1@cta 1,gpu 0            ;
 tld.weak r0, y_tex             | atom.relaxed.add r1, x, 0 ;
 atom.release.cta.exch r1, x, 0 | ld.acquire.cta r3, x      ;
 st y_gen, 0                    | st x, 0                   ;
exists (true)
",
        ModelKind::Ptx,
        &[RMW_HOLE],
    );
}

/// `selftest --family proxy --seed 100000`, program seed 109972 (that run's one disagreement
/// for many sessions, too large for the oracle: 47,720 executions, 42,480 of them duplicates), minimized
/// by `tcfuzz minimize --kind explorer-vs-oracle` (18 → 10 instructions): 2,880 executions, 540
/// of them duplicates. A revisit left P1's second `st x` and its `add` write holes, keeping the
/// `add` read (the `sust` after the branch needs it); `next` refilled the `st x` first, in two
/// places in `co`, and from both graphs the refilled `add` write revisited P0's `add` read
/// alike. The maximality test took the `add` write as in place in every graph the revisit could
/// start from (`placed_before_revisit` in `explore/maximal.rs`), but the `st x` chose its place
/// after the revisit that deleted it, with the write still a hole; with it in place, the other
/// place of the `st x` could not be completed, and both graphs qualified. Fixed: the write half counts as in place only
/// for the choices made before that revisit. No duplicates now; 2,340 of the oracle's 2,400
/// executions, the rest within the rmw-hole caveat the verdict carries.
#[test]
fn proxy_109972_refilled_store_before_an_rmw_write_half_is_explored_once() {
    let p = tcfuzz_litmus::parse(
        r"PTX random-proxy-109972
{
  x = 0;
  y = 0;
  x_sur @ surface aliases x;
  x_gen @ generic aliases x;
}
 P0@cta 0,gpu 0    | P1@cta 0,gpu 0             ;
 ld r0, x          | ld r0, x                   ;
 st x, 0           | st x, 0                    ;
 atom.add r4, y, 0 | st x, 0                    ;
 st.weak x_gen, 0  | atom.relaxed.add r2, y, r0 ;
                   | beq r2, 1, L0              ;
                   | sust.weak x_sur, 1         ;
                   | L0:                        ;
exists (true)
",
    )
    .expect("parses");
    let (e, o) = explorer_and_oracle(&p, ModelKind::Ptx);
    assert_eq!((e.stats.duplicates, o.stats.complete), (Some(0), 2400), "{e}");
    assert!(e.caveats.iter().any(|c| c.contains("a cas or another atomic rmw that a revisit removed")), "{:?}", e.caveats);
    for s in &e.states {
        let theirs = o.states.iter().find(|t| t.values == s.values).expect("a state the oracle does not have");
        assert!(s.executions <= theirs.executions, "{s:?}");
    }
}

// Found by `tcfuzz selftest --programs 100000 --family all --seed 12000000` (95,051 agree, 3
// disagree, 4,946 skipped), each there at `d92195a` too, before this stop's fixes; minimized by
// `tcfuzz minimize --kind explorer-vs-oracle`. Two fixed since (12036889, 12098744: 95,053 agree,
// 1 disagrees); 12061385 open.

/// Seed 12061385 (family tileir): one tile block, four operations on one location, no tokens.
/// Explorer 20 complete executions, oracle 28, with no caveat when found (now the rmw-hole
/// caveat names it: a Tile IR write may reach a read of its own tile block, `revisits.rs`'s
/// `communicates`). `exch f, 2; exch f, a1; st.weak f, a2` alone: 3 of 5. The 8 missed have the first
/// `exch` read the last store (`st.weak f, a2`, program order orders nothing in a tile block,
/// Tile IR spec §7.12.1) and the second `exch` read the initial value. That store depends on
/// the second `exch`'s read only, but every graph in which the first `exch` reads an earlier
/// write has both `exch`es read the initial value, which Atomicity rules out — so no graph
/// exists for the store to revisit from: the class of the `cas` load-buffering caveat
/// (`explore/mod.rs`, "Not explored"), here with an `exch`, which that caveat does not name.
#[test]
#[ignore = "open: the explorer misses 8 of 28 executions (named by the rmw-hole caveat)"]
fn tileir_12061385_exch_reading_a_later_store_of_its_tile_block() {
    explorer_equals_oracle(TILEIR_12061385, ModelKind::TileIr);
}

/// While [`tileir_12061385_exch_reading_a_later_store_of_its_tile_block`] is open: the verdict
/// names the rmw-hole caveat (it had none), and [`check_exact`] answers with the oracle's.
#[test]
fn tileir_12061385_is_named_and_exact_asks_the_oracle() {
    let p = tcfuzz_litmus::parse(TILEIR_12061385).expect("parses");
    let opts = Options::default();
    let e = check(&p, ModelKind::TileIr, &opts).expect("explorer");
    assert!(e.caveats.iter().any(|c| c.contains("a cas or another atomic rmw that a revisit removed")), "{:?}", e.caveats);
    let o = check_oracle(&p, ModelKind::TileIr, &opts).expect("oracle");
    let exact = check_exact(&p, ModelKind::TileIr, &opts).expect("exact");
    assert_eq!((exact.method, exact.stats.complete, &exact.states), (Method::Oracle, 28, &o.states));
}

const TILEIR_12061385: &str = r"TileIR random-tile-12061385
{
  f = [0];
}
P0@tlb 1, dev 0 {
  a1 = atom.relaxed.tile_block.exch f, [2];
  a2 = atom.relaxed.tile_block.exch f, a1;
  st.weak f, a1;
  st.weak f, a2;
}
exists (true)
";

/// Seed 12036889 (family proxy): explorer 40 complete executions, 6 of them duplicates, no
/// caveat; oracle 34. P3's `sust` revisited P3's `ld y` from two graphs: one in which the load
/// read P2's `st y`, which the `add` write's earlier revisit of P1's `cas` had kept because the
/// add's operand came from it, and one in which it read the initial `y` and P2's store came
/// after the `add` write. The `cas`, pending on the refilled `add` write in both, stood right
/// after that write, though the first graph's P2 store, no longer in its dependency prefix,
/// stood between them. Fixed: such a pending read does not qualify (`explore/maximal.rs`,
/// "Pending reads").
#[test]
fn proxy_12036889_explorer_explores_executions_twice() {
    explorer_equals_oracle(
        r"PTX random-proxy-12036889
{
  y = 0;
  z = 0;
  y_sur @ surface aliases y;
}
 P1@cta 0,gpu 0                   | P2@cta 0,gpu 0 | P3@cta 0,gpu 0                 ;
 atom.relaxed.cta.cas r1, z, 0, 1 | st y, 1        | ld r0, y                       ;
                                  | ld r0, z       | atom.relaxed.cta.add r1, z, r0 ;
                                  |                | sust.weak y_sur, r1            ;
exists (true)
",
        ModelKind::Ptx,
    );
}

/// Seed 12098744 (family tileir): explorer 57 complete executions, 3 of them duplicates; oracle
/// 54. The verdict carries the lost-revisit caveat, which covers missed executions, not
/// duplicates. Smaller, with no caveat: [`tileir_12098744_shrunk_explorer_explores_executions_twice`].
/// Fixed with it.
#[test]
fn tileir_12098744_explorer_explores_executions_twice() {
    let p = tcfuzz_litmus::parse(
        r"TileIR random-tile-12098744
{
  f = [0];
}
P0@tlb 0, dev 0 {
  r2, <t2> = ld.relaxed.device f;
  a3 = atom.relaxed.device.add f, [1], <t2>;
}
P1@tlb 1, dev 0 {
  r1 = ld.weak f;
  a2 = atom.relaxed.device.exch f, r1;
  st.weak f, a2;
}
exists (true)
",
    )
    .expect("parses");
    let (e, o) = explorer_and_oracle(&p, ModelKind::TileIr);
    assert_eq!(e.stats.duplicates, Some(0), "explorer duplicates\n{e}");
    assert_eq!((e.stats.complete, &e.states), (o.stats.complete, &o.states), "explorer:\n{e}\noracle:\n{o}");
}

/// Seed 12098744 shrunk: `exch f, 2` in one tile block against `ld.weak f; exch f, r1; st.weak
/// f, a2` in another, 24 executions, 3 of them duplicates (oracle 21), no caveat. The store
/// revisited P1's `ld.weak` with P0's `exch` pending on P1's `exch` write, and it also revisited
/// P0's `exch` itself (that write its forced source), after which the refilled write revisited
/// it again: both graphs came to the same executions. Fixed: a pending read of the revisiting
/// write's location whose source is a hole before that write does not qualify
/// (`explore/maximal.rs`, "Pending reads").
#[test]
fn tileir_12098744_shrunk_explorer_explores_executions_twice() {
    explorer_equals_oracle(
        r"TileIR random-tile-12098744-shrunk
{
  f = [0];
}
P0@tlb 0, dev 0 {
  a3 = atom.relaxed.device.exch f, [2];
}
P1@tlb 1, dev 0 {
  r1 = ld.weak f;
  a2 = atom.relaxed.device.exch f, r1;
  st.weak f, a2;
}
exists (true)
",
        ModelKind::TileIr,
    );
}

/// `selftest --family tileir --programs 20000 --seed 13000000` found seed 13013132: explorer 297
/// complete executions, oracle 300, **no caveat**; there at `d92195a` too. Shrunk (`tcfuzz
/// minimize`, then a join of one token dropped by hand): 169 of 170. P1's `ld.weak` reads P1's
/// own `add` write, whose read reads P2's `add` write. The refilled `add` write's revisit of the
/// `ld.weak` was rejected from the one graph that qualifies: the maximality test let P2's `ld`
/// "could have read" P0's store with P2's `st.weak` left open as at a refilled write half — a
/// graph in which that `ld`, in a later thread than P1's `add`, would be a hole itself. Fixed:
/// the hole stays open only where the revisit that left it kept the event under test
/// (`explore/maximal.rs`, "Holes open at a refilled write half").
#[test]
fn tileir_13013132_open_hole_needs_the_event_under_test_kept() {
    explorer_equals_oracle(
        r"TileIR random-tile-13013132-shrunk
{
  f = [0];
}
P0@tlb 1, dev 0 {
  st.relaxed.tile_block f, [2];
}
P1@tlb 1, dev 0 {
  r1 = ld.weak f;
  a3 = atom.relaxed.tile_block.add f, [2];
}
P2@tlb 1, dev 0 {
  r1, <t1> = ld.relaxed.tile_block f;
  <t2> = st.weak f, [2], <t1>;
  a3 = atom.relaxed.tile_block.add f, [2], <t2>;
}
exists (true)
",
        ModelKind::TileIr,
    );
}

/// `selftest --programs 100000 --family all --seed 14000000` found seed 14082270 (family proxy):
/// explorer 42 complete executions, oracle 63, **no caveat**; there at `d92195a` too. Shrunk by
/// `tcfuzz minimize --kind explorer-vs-oracle` (14 → 6 instructions): 9 of 18. P1's `exch` was
/// kept with every later event of its thread (`program::ordering_rmws`): the static test that
/// no cycle of needs goes on from it missed that the `exch` reads P1's own `st y`, which writes
/// what the constant-proxy load read, which may read P1's last store. Fixed: a read needs the
/// earlier writes of its location in its thread there.
#[test]
fn proxy_14082270_an_rmw_on_a_cycle_within_its_thread_is_not_kept_with_it() {
    explorer_equals_oracle(
        r"PTX random-proxy-14082270-shrunk
{
  x = 0;
  y = 0;
  x_con @ constant aliases x;
}
 P0@cta 1,gpu 0 | P1@cta 1,gpu 0                 ;
 ld r0, y       | cold.weak r0, x_con            ;
 ld r2, y       | st y, r0                       ;
                | atom.relaxed.cta.exch r2, y, 0 ;
                | st x, 1                        ;
exists (true)
",
        ModelKind::Ptx,
    );
}

// Found by `tcfuzz selftest --programs 100000 --family all --seed 15000000` (95,077 agree, 5
// disagree), each there at `d92195a` too; minimized by `tcfuzz minimize --kind
// explorer-vs-oracle`.

/// Seed 15021048 (family proxy): explorer 248 complete executions, oracle 256, **no caveat**.
/// Shrunk (11 → 6 instructions): 28 of 32. The `exch` write's revisit of P1's `ld y` was
/// rejected: the maximality test let the load "could have read" P1's later `st.weak y_gen`
/// (through the alias) with the `fence.proxy.alias` between them left a hole, as the graph had
/// it — but the load reads that store only after the store's revisit of it, whose fence hole
/// `next` refills at once, and the fence rules the read out. Fixed: where the write under test
/// is a later one of the event's own thread, the graph's holes between the two are filled
/// (`explore/maximal.rs`, "Holes of the graph").
#[test]
fn proxy_15021048_a_hole_between_a_read_and_its_own_later_source_is_filled() {
    explorer_equals_oracle(
        r"PTX random-proxy-15021048-shrunk
{
  x = 0;
  y = 0;
  x_gen @ generic aliases x;
  y_gen @ generic aliases y;
}
 P0@cta 1,gpu 0             | P1@cta 1,gpu 0    ;
 atom.cta.add r1, x, 0      | ld r0, y          ;
 atom.relaxed.exch r2, y, 0 | st.weak x_gen, 0  ;
                            | fence.proxy.alias ;
                            | st.weak y_gen, 0  ;
exists (true)
",
        ModelKind::Ptx,
    );
}

/// Seed 15092254 (family sync): explorer 1,026 complete executions, oracle 1,044, **no caveat**.
/// Shrunk (8 → 7 instructions): 342 of 348. The 6 missed were executions in which P0's arrive
/// reads the initial `bar`, P1's `ld x` reads P2's `st x` and P2's arrive reads P1's arrive: P1
/// (CTA 1) and P2 (CTA 0) arrive at `.cta` scope, and the model took the two for not morally
/// strong, so Atomicity did not tie them and an arrival could be lost. The explorer could not
/// reach that graph (P2's arrive and `test_wait` were holes behind P2's `st x`, whose admitted
/// sources all dead-ended). Closed by the model, not the explorer: the arrives and waits on one
/// mbarrier are atomic whatever their scopes (`Label::object`; PTX ISA §9.7.13.15), so the 6 — and
/// 294 more executions with a lost arrival — are not executions at all: 48 of 48. The explorer's
/// treatment of such a waiting hole is unchanged; no known program reaches it now (the same shape
/// with `atom.cta.add` on global memory was always explored in full).
#[test]
fn sync_15092254_lost_arrivals_are_no_executions() {
    explorer_equals_oracle(
        r"PTX random-sync-15092254-shrunk
{
  x = 0;
  bar @ mbarrier cta 0 gpu 0 count 1;
}
 P0@cta 0,cluster 0,gpu 0                              | P1@cta 1,cluster 0,gpu 0                                | P2@cta 0,cluster 0,gpu 0                                           ;
 st x, 0                                               | ld r0, x                                                | mbarrier.arrive.relaxed.cta.shared::cta.b64 s2, [bar]              ;
 mbarrier.arrive.release.cta.shared::cta.b64 s0, [bar] | mbarrier.arrive.relaxed.cta.shared::cluster.b64 _, [bar] | mbarrier.test_wait.parity.acquire.cta.shared::cta.b64 r0, [bar], 0 ;
                                                       |                                                         | st x, 0                                                            ;
exists (true)
",
        ModelKind::Ptx,
    );
}

/// Seed 15024631 (family fenced): explorer 537 complete executions, 2 of them duplicates, no
/// caveat. Shrunk (18 → 10 instructions): 147, 3 of them duplicates; oracle 144. Both paths of
/// each duplicate reached a graph where P0's `ld r1, y` (R) had just been added reading the
/// initial value, with P1's `st y, 0` (1.1) and P2's `st y, 0` (2.1) both holes. One path
/// refilled 1.1, which revisited R. The other refilled 1.1 without a revisit, then 2.1 revisited
/// R (deleting 1.1 into a hole again), and then the refilled 1.1 revisited R a second time, R
/// reading 2.1 as a forced source: the test that R could read nothing of `Previous(R)` filled
/// 2.1's hole, which P1's refill comes before. Fixed: that test leaves open the holes `next` has
/// not come to when it adds the revisiting write (`maximal.rs`, "forced" source, seed 20009547).
#[test]
fn fenced_15024631_explorer_explores_executions_twice() {
    explorer_equals_oracle(
        r"PTX random-fenced-15024631-shrunk
{
  x = 0;
  y = 0;
  z = 0;
}
 P0@cta 0,gpu 0       | P1@cta 0,gpu 0 | P2@cta 0,gpu 0      ;
 ld.relaxed.cta r0, z | ld r0, y       | ld r0, x            ;
 fence.acq_rel.cta    | st y, 0        | st y, 0             ;
 ld r1, y             | st x, 0        | st.release.cta z, 0 ;
 st y, 0              |                |                     ;
exists (true)
",
        ModelKind::Ptx,
    );
}

/// Seed 20014656 (family fenced; `tcfuzz selftest --programs 100000 --family all --seed
/// 20000000`): explorer 441 complete executions, 1 of them a duplicate, no caveat. `tcfuzz
/// minimize --kind explorer-vs-oracle` shrinks it to this: 514 executions, 2 duplicates; oracle
/// 512. Plain accesses and `fence.sc.cta` in three threads, like fenced 15024631, and fixed by
/// the same change.
#[test]
fn fenced_20014656_explorer_explores_executions_twice() {
    explorer_equals_oracle(
        r"PTX random-fenced-20014656-shrunk
{
  x = 0;
  y = 0;
  z = 0;
}
 P0@cta 0,gpu 0 | P1@cta 0,gpu 0 | P2@cta 0,gpu 0 ;
 st x, 0        | ld r0, x       | st z, 0        ;
 fence.sc.cta   | ld r1, x       | fence.sc.cta   ;
 ld r0, y       | st z, 0        | st x, 0        ;
 ld r1, z       | st y, 0        |                ;
 st x, 0        |                |                ;
exists (true)
",
        ModelKind::Ptx,
    );
}

/// Seed 20009547 (family proxy; `tcfuzz selftest --programs 100000 --family all --seed
/// 20000000`): the explorer stopped with "the exploration went 20000 graphs deep, which only
/// revisits that undo each other for ever reach"; the oracle finds 960 executions, 17 final
/// states. P1's `st.release y` and `st.relaxed y_gen` name different aliases of `y`, so nothing
/// orders them in `co`, and neither is in the other's dependency prefix: with both holes and
/// P0's `ld y` kept after them, each refilled store revisited the load and deleted the other,
/// which was then the load's forced source — for ever. Fixed: the test that the load could read
/// nothing of `Previous` leaves open the holes `next` has not come to when it adds the
/// revisiting write (`maximal.rs`, module docs on the forced source), so only the later store's
/// revisit qualifies. The program's register-compared `cas` and its rmws raise caveats of their
/// own (from the program alone).
#[test]
fn proxy_20009547_explorer_revisits_for_ever() {
    explorer_equals_oracle_past(
        r"PTX random-proxy-20009547
{
  x = 0;
  y = 0;
  y_con @ constant aliases y;
  x_gen @ generic aliases x;
  y_gen @ generic aliases y;
}
 P0@cta 1,gpu 0                | P1@cta 1,gpu 0                ;
 atom.acquire.sys.add r0, x, 2 | st.release.sys y, 1           ;
 st.release.gpu x, 2           | st.relaxed.gpu y_gen, 1       ;
 ld r1, y                      | fence.proxy.alias             ;
 add r2, r1, 1                 | atom.acq_rel.add r0, x, 0     ;
 fence.proxy.constant          | atom.release.cas r1, y, r0, 1 ;
 cold.weak r3, y_con           |                               ;
 st.weak x_gen, 2              |                               ;
 fence.proxy.alias             |                               ;
exists (true)
",
        ModelKind::Ptx,
        &[RMW_HOLE, CAS_ON_A_CYCLE],
    );
    // `tcfuzz minimize --kind explorer-vs-oracle` of it: 108 executions.
    explorer_equals_oracle_past(
        r"PTX random-proxy-20009547-shrunk
{
  x = 0;
  y = 0;
  x_gen @ generic aliases x;
  y_gen @ generic aliases y;
}
 P0@cta 1,gpu 0                | P1@cta 1,gpu 0            ;
 atom.acquire.cta.add r0, x, 0 | st y, 0                   ;
 ld r1, y                      | st y_gen, 0               ;
 st.weak x_gen, 0              | fence.proxy.alias         ;
                               | atom.release.add r0, x, 0 ;
exists (true)
",
        ModelKind::Ptx,
        &[RMW_HOLE, CAS_ON_A_CYCLE],
    );
}

/// Seed 19030579 (family tcgen05; `tcfuzz selftest --programs 100000 --family all --seed
/// 19000000`): explorer 84 complete executions, 12 of them duplicates, **no caveat**; oracle 72,
/// the same 66 final states. `tcfuzz minimize --kind explorer-vs-oracle` shrinks it to this (28
/// executions, 4 duplicates; oracle 24, the same 16 states). P1's `mma` takes its enable-input-d
/// from a register loaded from `e`, which P0's `st e` writes: the shape of the checker issue's
/// item 5 (an mma whose enable-input-d is a register, across a dependency revisit), here as
/// duplicates rather than the stale operand that was fixed. The register was not the cause:
/// P1's `tcgen05.st` revisits P1's first `tcgen05.ld` and leaves the `mma` and the
/// `tcgen05.wait::ld` holes; the refilled `mma` write revisits the `ld` from there, before the
/// `wait::ld` comes back, and also from the graph where the `ld` read the initial value — the
/// maximality test filled the `wait::ld` hole, which rules out the `ld` reading the `st`, and so
/// found no graph it could have come from. Fixed: holes after the revisiting write in its own
/// thread stay open in that test (`maximal.rs`, "Holes of the graph").
#[test]
fn tcgen05_19030579_explorer_explores_executions_twice() {
    explorer_equals_oracle(
        r"PTX random-tcgen05-19030579-shrunk
{
  d0 @ tmem cta 0 gpu 0 lanes 0-31 cols 0-31 = 0;
  d1 @ tmem cta 0 gpu 0 lanes 32-63 cols 0-31 = 0;
  t @ tmem cta 0 gpu 0 lanes 0-127 cols 32-63 = 1;
  w @ shared cta 0 gpu 0 = 1;
  e = 0;
}
 P0@cta 0,gpu 0                                          | P1@warp 1,cta 0,gpu 0                                    ;
 st e, 1                                                 | tcgen05.ld.sync.aligned.32x32b.x1.b32 r0, [d1]           ;
 tcgen05.mma.cta_group::1.kind::f16 [d0], [t], [w], 1, 0 | ld f1, e                                                 ;
 tcgen05.ld.sync.aligned.32x32b.x1.b32 r2, [d0]          | tcgen05.mma.cta_group::1.kind::f16 [d1], [t], [w], 1, f1 ;
                                                         | tcgen05.wait::ld.sync.aligned                            ;
                                                         | tcgen05.st.sync.aligned.32x32b.x1.b32 [d1], 0            ;
exists (true)
",
        ModelKind::Ptx,
    );
}

/// Seed 53198708 (family tcgen05; `tcfuzz selftest --programs 200000 --seed 53000000 -j 1`):
/// explorer 10 complete executions, oracle 12, **no caveat** — the two missed are those where the
/// `tcgen05.ld` reads the `mma`'s write and the `mma`'s accumulator read reads the later
/// `tcgen05.st` (the `mma` taking its enable-input-d from P1's store). There since at least
/// `c38beba`. `tcfuzz minimize --kind explorer-vs-oracle` shrinks it to this (10 of 12). The
/// refilled `mma` write's revisit of the `ld` was refused: with the `wait::ld` a hole left open
/// (it comes after the write, in its thread), the `ld` "could have read" the `st`. But a graph in
/// which it did holds P1's store, which only comes once no hole is left — the `wait::ld` back,
/// which rules that read out — so no such graph exists. Fixed: where a read takes a write added
/// after it, such holes stay open only if every kept event lies within what that write's revisit
/// of the read keeps (`maximal.rs`, "Holes of the graph", `within_revisit`).
#[test]
fn tcgen05_53198708_explorer_misses_executions() {
    explorer_equals_oracle(
        r"PTX random-tcgen05-53198708-shrunk
{
  d0 @ tmem cta 0 gpu 0 lanes 0-31 cols 0-31 = 1;
  t @ tmem cta 0 gpu 0 lanes 0-127 cols 32-63 = 0;
  w @ shared cta 0 gpu 0 = 0;
  e = 0;
}
 P0@cta 0,gpu 0                                           | P1@cta 0,gpu 0 ;
 tcgen05.ld.sync.aligned.32x32b.x1.b32 r0, [d0]           | st e, 1        ;
 ld f1, e                                                 |                ;
 tcgen05.mma.cta_group::1.kind::f16 [d0], [t], [w], 1, f1 |                ;
 tcgen05.wait::ld.sync.aligned                            |                ;
 tcgen05.st.sync.aligned.32x32b.x1.b32 [d0], 0            |                ;
exists (true)
",
        ModelKind::Ptx,
    );
}

/// Seed 53192482 (family ptx; `tcfuzz selftest --programs 200000 --seed 53000000 -j 1`): 10,015
/// complete executions, 43 of them duplicates, too large for the oracle; there at `05a8562`
/// too. `tcfuzz minimize --kind explorer-vs-oracle` shrinks it to this: 5,666 executions, 2
/// duplicates (still too large for the oracle: more than 2,000,000 candidates). The verdict
/// carries the `cas` and rmw-hole caveats, which name missed executions, not duplicates.
///
/// P1's refilled `add` write revisits P2's `ld y` from two graphs that differ only in what that
/// load reads: the initial `y` (`tcfuzz trace --revisits`, revisit 2745) and P3's `st y, 1`
/// (revisit 3382). In both, P3's `cas` read is a hole, left by the revisit of P1's `add` read by
/// P3's `exch` write, after which the `add` write was refilled at once. The test of the first
/// graph asked whether the load could have read P3's store in a graph reached that way: it
/// filled the `cas` hole (`OpenAtRefill::may_stay_open` kept it open only where that revisit
/// kept the load, read as "in an earlier thread than the `add`") and found no such graph, so
/// both graphs qualified. But the load was kept: it was a hole refilled before P1's `add` came
/// back (an earlier revisit had deleted P1's events and left the load a hole). Fixed: where the
/// graph tested was itself reached through that revisit, "kept" is "added before the `add`
/// read" in it (`maximal.rs`, "Holes open at a refilled write half"). Explorer 5,664, no
/// duplicates (9,972 in the original); the oracle cannot judge either.
#[test]
fn ptx_53192482_explorer_explores_executions_twice() {
    let p = tcfuzz_litmus::parse(
        r"PTX random-ptx-53192482-shrunk
{
  y = 0;
}
 P0@cta 0,gpu 0 | P1@cta 1,gpu 0                | P2@cta 0,gpu 0                   | P3@cta 0,gpu 0               ;
 ld r1, y       | atom.relaxed.cta.add r0, y, 2 | ld r1, y                         | st y, 1                      ;
                |                               | atom.relaxed.cta.cas r2, y, 0, 0 | atom.relaxed.cas r0, y, 1, 0 ;
                |                               |                                  | atom.relaxed.exch r2, y, 0   ;
exists (true)
",
    )
    .expect("parses");
    let e = check(&p, ModelKind::Ptx, &detecting_duplicates()).expect("explorer");
    assert_eq!((e.stats.complete, e.stats.duplicates), (5_664, Some(0)), "explorer\n{e}");
}

/// Seed 53163872 (family proxy; the same run as `ptx_53192482`): 75,360 complete executions, 660
/// of them duplicates, **no caveat**; there at `05a8562` too. Shrunk by `tcfuzz minimize --kind
/// explorer-vs-oracle` to this: 664 executions, 24 duplicates, the oracle's 640 (with its
/// candidate limit raised) and its 78 final states. The pairs come from two paths
/// (`tcfuzz trace --revisits`): P2's `add` write revisits P0's `exch` read (revisit 420), or
/// P1's `add` write revisits P2's `ld z` (revisit 635), deleting P2's `add` write, which P0's
/// `exch` read reads: a pending read, canonical there because the maximality test finds no
/// completed graph in which the `exch` reads the initial `x` instead. Both pass the test, and
/// the refilled `add` write gives P0's read back its source (with a new value: the revisited
/// load is its operand). Tried and not kept: a pending read does not qualify where the revisited
/// read lies between it and its source, in the source's prefix (`pending_prefix_shrinks`). It
/// removes these duplicates (640, and 74,700 in the original) but loses executions on five
/// tests, the motivating `ptx::rmw_write_held_back_by_its_operand_is_read_by_a_pending_read`
/// among them; so does adding "and the pending read is not in the refilled source's prefix".
/// What is missing is when the other path — the refilled source revisiting the read — exists.
#[test]
#[ignore = "open: the explorer explores 24 of 664 executions twice, with no caveat"]
fn proxy_53163872_explorer_explores_executions_twice() {
    let p = tcfuzz_litmus::parse(
        r"PTX random-proxy-53163872-shrunk
{
  x = 0;
  z = 0;
  x_sur @ surface aliases x;
}
 P0@cta 0,gpu 0                 | P1@cta 0,gpu 0            | P2@cta 0,gpu 0             ;
 atom.relaxed.cta.exch r0, x, 1 | ld r0, x                  | ld r0, z                   ;
                                | sust.weak x_sur, 0        | atom.relaxed.add r1, x, r0 ;
                                | atom.relaxed.add r2, z, 2 | st z, r1                   ;
exists (true)
",
    )
    .expect("parses");
    let opts = Options { oracle_limit: 50_000_000, ..detecting_duplicates() };
    let (e, o) = (check(&p, ModelKind::Ptx, &opts).expect("explorer"), check_oracle(&p, ModelKind::Ptx, &opts).expect("oracle"));
    assert_eq!(e.stats.duplicates, Some(0), "explorer duplicates\n{e}");
    assert_eq!((e.stats.complete, &e.states), (o.stats.complete, &o.states), "explorer:\n{e}\noracle:\n{o}");
}

/// Program 19333 of `tcfuzz fuzz --seed 8080` with every program checked against the oracle
/// and coverage-guided programs half of the mix (`explorer_vs_oracle: 1`, coverage weight 50, up
/// to 16 instructions a program; the 78M and 80M `selftest` hunts, 800,000 programs of the
/// random families, found nothing of it): a coverage-guided mutant of a proxy program. The
/// explorer found 246 complete executions, 12 of them duplicates, the oracle 252, with the same
/// final states and no caveat. The duplicates went first
/// (`ptx::chained_read_whose_source_came_after_a_later_write_of_its_thread_is_not_canonical`);
/// the 18 missed executions were revisits of P0's `ld y` by P1's last `st y` that no graph
/// qualified for: the load's forced source was P0's own later `sust` in one graph and P1's first
/// store in the other, and each was not the `co`-latest because of the other
/// (`explore/maximal.rs`, "Forced sources in the order of addition").
const COVERAGE_8080_19333: &str = r"PTX coverage-8080-19333
{
  x = 0;
  y = 0;
  z = 0;
  z_gen @ generic aliases z;
  y_sur @ surface aliases y;
}
 P0@cta 0,gpu 0                 | P1@cta 0,gpu 0                ;
 fence.proxy.alias              | ld.volatile r0, y             ;
 ld.relaxed.gpu r0, z_gen       | st.release.gpu y, 1           ;
 add r1, r0, 1                  | atom.acq_rel.gpu.min m0, x, 2 ;
 atom.acq_rel.cta.exch m0, x, 1 | st.weak y, 1                  ;
 ld.acquire.cta r2, y           | atom.release.exch r1, z, 2    ;
 sust.weak y_sur, 2             |                               ;
 st.relaxed.sys z, 2            |                               ;
 fence.proxy.surface            |                               ;
exists (P0:r2 == 1)
";

/// [`COVERAGE_8080_19333`] shrunk by `tcfuzz minimize --kind explorer-vs-oracle`: 84 executions
/// (the explorer found 78).
const COVERAGE_8080_19333_SHRUNK: &str = r"PTX coverage-8080-19333-shrunk
{
  x = 0;
  y = 0;
  z = 0;
  z_gen @ generic aliases z;
  y_sur @ surface aliases y;
}
 P0@cta 0,gpu 0                 | P1@cta 0,gpu 0                ;
 ld r0, z_gen                   | ld r0, y                      ;
 atom.acquire.cta.exch m0, x, 0 | st y, 0                       ;
 ld r2, y                       | atom.release.cta.min m0, x, 0 ;
 sust.weak y_sur, 1             | st.weak y, 0                  ;
 st z, 0                        |                               ;
exists (true)
";

#[test]
fn coverage_8080_19333_an_own_later_source_comes_first() {
    fixed_under_ptx(&[COVERAGE_8080_19333_SHRUNK, COVERAGE_8080_19333], (COVERAGE_8080_19333, 252));
}

/// For a fixed gap under PTX: explorer = oracle on each of `programs` (shrunk and original), and
/// the explorer finds `complete` executions in `counted`.
fn fixed_under_ptx(programs: &[&str], (counted, complete): (&str, u64)) {
    for text in programs {
        explorer_equals_oracle(text, ModelKind::Ptx);
    }
    let p = tcfuzz_litmus::parse(counted).expect("parses");
    assert_eq!(check(&p, ModelKind::Ptx, &detecting_duplicates()).expect("explorer").stats.complete, complete);
}

/// For a pinned gap under PTX: the explorer finds `explorer` complete executions, `duplicates`
/// of them explored twice, the oracle `oracle`, and the explorer's caveats are among `allowed`.
fn counts_while_open(text: &str, allowed: &[&str], (explorer, duplicates, oracle): (u64, u64, u64)) {
    let p = tcfuzz_litmus::parse(text).expect("parses");
    let (e, o) = explorer_and_oracle(&p, ModelKind::Ptx);
    assert!(e.caveats.iter().all(|c| allowed.iter().any(|a| c.contains(a))), "{:?}", e.caveats);
    let counts = (e.stats.complete, e.stats.duplicates, o.stats.complete);
    assert_eq!(counts, (explorer, Some(duplicates), oracle), "the gap changed\nexplorer:\n{e}\noracle:\n{o}");
}

/// Seed 81010879 of `tcfuzz selftest --family proxy` (20,000 programs from 81,000,000: the one
/// disagreement). The explorer found 549 complete executions, the oracle 540: 18 that are no
/// execution, which no caveat allows (its `cas` and rmw-hole caveats allow missed ones): P0's
/// `add` of `x` reading P3's `st z`; and 9 missed. P1's `st.release
/// x` revisits P3's `cas` read, which then fails, while P0's `add` read — kept, added before the
/// `cas` — reads the `cas`'s write half, which the revisit deletes: a pending read waiting for
/// that write to come back. Failing, the `cas` has no write half, the later events of its thread
/// move back one place (`holes::fix_cas_layout`), and the pending read's source named the event
/// that moved into the write half's place, a store of `z`. Now the pending read becomes an
/// ordinary hole where its source goes, refilled from the writes there are: no execution that
/// is none, none missed, but 9 of the 549 are explored twice (the refill also reaches graphs
/// another path reaches).
const PROXY_81010879: &str = r"PTX random-proxy-81010879
{
  x = 0;
  y = 0;
  z = 0;
  z_sur @ surface aliases z;
  z_tex @ texture aliases z;
}
 P0@cta 1,gpu 0                | P1@cta 0,gpu 0       | P2@cta 0,gpu 0      | P3@cta 1,gpu 0               ;
 st.relaxed.gpu z, 2           | st.relaxed.gpu y, 1  | st.weak z, 2        | atom.acq_rel.cas r0, x, 0, 2 ;
 bar.cta.sync 0                | suld.weak r0, z_sur  | fence.proxy.texture | st z, 1                      ;
 atom.acq_rel.gpu.add r0, x, 1 | st.release.sys x, r0 | tld.weak r0, z_tex  | atom.relaxed.add r1, y, 1    ;
exists (true)
";

#[test]
#[ignore = "open: the explorer explores 9 of 549 executions twice"]
fn proxy_81010879_explorer_explores_executions_twice() {
    explorer_equals_oracle_past(PROXY_81010879, ModelKind::Ptx, &[RMW_HOLE, CAS_ON_A_CYCLE]);
}

/// While [`proxy_81010879_explorer_explores_executions_twice`] is open: the counts it has, so
/// that a change to them (fixed, or worse: a source that names another event) is seen.
#[test]
fn proxy_81010879_counts_while_open() {
    counts_while_open(PROXY_81010879, &[RMW_HOLE, CAS_ON_A_CYCLE], (549, 9, 540));
}

/// Seed 80215259 of `tcfuzz selftest --family all` (400,000 programs from 80,000,000, at
/// `5d50746`; family fenced): the explorer stopped with its depth limit, "revisits that undo each
/// other for ever" (`explore/trust.rs`, `MAX_DEPTH`), where the oracle finds 1,016 complete
/// executions. With P1's `ld x` reading P2's `st x`, the `fence.sc`s leave P1's `ld y` only P2's
/// stores of `y`; P2's second and third stores revisited it in turn, each reading the other as
/// a forced source that the revisit deleted into a hole. A write of the revisiting write's thread
/// after it in program order is no forced source (`explore/maximal.rs`, "Forced sources after
/// the revisiting write").
const FENCED_80215259: &str = r"PTX random-fenced-80215259
{ x = 0; y = 0; }
 P0@cta 0,gpu 0       | P1@cta 1,gpu 0       | P2@cta 0,gpu 0      ;
 st.relaxed.gpu x, 2  | ld.relaxed.gpu r0, x | st.relaxed.gpu y, 2 ;
 fence.sc.gpu         | fence.sc.gpu         | fence.sc.gpu        ;
 ld.relaxed.gpu r0, y | ld.relaxed.gpu r1, y | st.relaxed.gpu y, 2 ;
 ld.relaxed.gpu r1, x | st.relaxed.gpu x, 1  | st.relaxed.gpu y, 1 ;
 fence.sc.gpu         |                      | st.relaxed.gpu x, 1 ;
 st.relaxed.gpu y, 1  |                      |                     ;
exists (true)
";

/// [`FENCED_80215259`] shrunk by `tcfuzz minimize --kind explorer-vs-oracle`: 216 executions.
const FENCED_80215259_SHRUNK: &str = r"PTX random-fenced-80215259-shrunk
{ x = 0; y = 0; }
 P0@cta 0,gpu 0 | P1@cta 0,gpu 0 | P2@cta 0,gpu 0 ;
 ld r1, x       | ld r0, x       | st y, 0        ;
 st y, 0        | fence.sc.cta   | fence.sc.cta   ;
                | ld r1, y       | st y, 0        ;
                | st x, 0        | st y, 0        ;
                |                | st x, 0        ;
exists (true)
";

#[test]
fn fenced_80215259_a_write_after_the_revisiting_write_is_no_forced_source() {
    fixed_under_ptx(&[FENCED_80215259_SHRUNK, FENCED_80215259], (FENCED_80215259_SHRUNK, 216));
}

/// Seed 80371537 of the same run (family sync): the explorer found 69 complete executions, the
/// oracle 78, with no caveat; the same final states. A CTA barrier with a thread count
/// (`bar.cta.sync 2, 2`) that P1 and P2 meet, P0 outside it. For P1's `st y` to revisit P0's
/// `ld y` once the barrier is complete, P1's `ld x` read either P2's `st.weak x`, a refilled
/// hole, or P0's first store of `x`, added new after it, and each disqualified the other as a
/// `co`-later deleted write (`explore/maximal.rs`, "Forced sources in the order of addition").
const SYNC_80371537: &str = r"PTX random-sync-80371537
{
  x = 0;
  y = 0;
  s @ shared cta 0 gpu 0 = 0;
  bar @ mbarrier cta 0 gpu 0 count 1;
}
 P0@cta 0,cluster 0,gpu 0 | P1@cta 0,cluster 0,gpu 0 | P2@cta 0,cluster 0,gpu 0 ;
 ld.relaxed.cta r0, y     | bar.cta.sync 2, 2, 1     | st.weak x, 1             ;
 st.relaxed.cta x, 2      | ld.acquire.cta r0, x     | bar.cta.sync 2, 2, 1     ;
 st.weak x, 2             | st.relaxed.cta y, 2      |                          ;
exists (true)
";

/// [`SYNC_80371537`] shrunk by `tcfuzz minimize --kind explorer-vs-oracle`: 78 executions (the
/// explorer found 69).
const SYNC_80371537_SHRUNK: &str = r"PTX random-sync-80371537-shrunk
{
  x = 0;
  y = 0;
}
 P0@cta 0,cluster 0,gpu 0 | P1@cta 0,cluster 0,gpu 0 | P2@cta 0,cluster 0,gpu 0 ;
 ld r0, y                 | bar.cta.sync 2, 2, 1     | st.weak x, 0             ;
 st x, 0                  | ld r0, x                 | bar.cta.sync 2, 2, 1     ;
 st.weak x, 0             | st y, 0                  |                          ;
exists (true)
";

#[test]
fn sync_80371537_forced_sources_come_in_the_order_of_addition() {
    fixed_under_ptx(&[SYNC_80371537_SHRUNK, SYNC_80371537], (SYNC_80371537, 78));
}

/// Seed 86048317 of `tcfuzz selftest --family all` (family fenced), found by a first version of
/// "Forced sources in the order of addition" (`explore/maximal.rs`) that judged only the
/// `co`-later writes by their order of addition: 6 of 114 executions (shrunk) explored twice.
/// In the shrunk program P0's `st y` revisits P1's `ld y` both from the graph where the load read
/// P2's refilled store and from the one where it read P0's first store, added new, with P2's
/// store refilled after that, `co`-before it: a refill out of the exploration's order, which
/// disqualifies whatever its place in `co`.
const FENCED_86048317: &str = r"PTX random-fenced-86048317
{
  x = 0;
  y = 0;
  z = 0;
}
 P0@cta 0,gpu 0       | P1@cta 1,gpu 0       | P2@cta 0,gpu 0       ;
 ld.relaxed.gpu r0, x | ld.relaxed.gpu r0, z | st.relaxed.gpu y, 2  ;
 fence.sc.gpu         | fence.sc.gpu         | st.relaxed.gpu x, 1  ;
 ld.relaxed.gpu r1, z | ld.relaxed.gpu r1, y | fence.sc.gpu         ;
 st.relaxed.gpu y, 1  | fence.sc.gpu         | ld.relaxed.gpu r0, y ;
 st.relaxed.gpu y, 2  | ld.relaxed.gpu r2, x | fence.sc.gpu         ;
                      | st.relaxed.gpu z, 1  | st.relaxed.gpu z, 1  ;
exists (true)
";

/// [`FENCED_86048317`] shrunk by `tcfuzz minimize --kind explorer-vs-oracle`: 114 executions.
const FENCED_86048317_SHRUNK: &str = r"PTX random-fenced-86048317-shrunk
{
  y = 0;
  z = 0;
}
 P0@cta 0,gpu 0      | P1@cta 0,gpu 0 | P2@cta 0,gpu 0      ;
 ld r1, z            | ld r0, z       | st.relaxed.cta y, 0 ;
 st.relaxed.cta y, 0 | fence.sc.cta   | fence.sc.cta        ;
 st y, 0             | ld r1, y       | st z, 0             ;
                     | st z, 0        |                     ;
exists (true)
";

#[test]
fn fenced_86048317_a_source_refilled_out_of_order_disqualifies_wherever_it_sits_in_co() {
    fixed_under_ptx(&[FENCED_86048317_SHRUNK, FENCED_86048317], (FENCED_86048317_SHRUNK, 114));
}

/// Program 117034 of `tcfuzz fuzz --seed 9090` with every program checked against the oracle (a
/// random fenced program): 54 of 3,483 executions explored twice, with no caveat; shrunk, 18 of
/// 756. For P0's `st x` to revisit P1's `ld.relaxed x`, P1's `ld y` — deleted, a hole — is a
/// chained read, in one graph of P2's refilled `st y`, with P0's `st y` added new after it, and in
/// the other of P0's `st y`, with P2's store refilled after it because P0's store's revisit of the
/// load deleted it. The chained read's source is judged like a forced source: the second graph's
/// refill came against the exploration's order (`explore/maximal.rs`, "Forced sources in the
/// order of addition").
const FENCED_9090_117034: &str = r"PTX random-fenced-9090-117034
{
  x = 0;
  y = 0;
}
 P0@cta 0,gpu 1       | P1@cta 1,gpu 0       | P2@cta 0,gpu 0      ;
 ld.relaxed.gpu r0, x | ld.relaxed.gpu r0, x | st.relaxed.gpu y, 2 ;
 st.relaxed.gpu y, 1  | ld.relaxed.gpu r1, x | st.release.gpu x, 2 ;
 fence.sc.cta         | fence.sc.gpu         | st.relaxed.gpu y, 1 ;
 ld.relaxed.gpu r1, x | ld.relaxed.gpu r2, y |                     ;
 fence.sc.gpu         | fence.sc.gpu         |                     ;
 st x, 2              | st.relaxed.gpu x, 2  |                     ;
exists (P0:r0 == 0 /\ P0:r1 == 0)
";

/// [`FENCED_9090_117034`] shrunk by `tcfuzz minimize --kind explorer-vs-oracle`: 756 executions.
const FENCED_9090_117034_SHRUNK: &str = r"PTX random-fenced-9090-117034-shrunk
{
  x = 0;
  y = 0;
}
 P0@cta 0,gpu 0 | P1@cta 0,gpu 0       | P2@cta 0,gpu 0      ;
 ld r0, x       | ld r0, x             | st y, 0             ;
 st y, 0        | ld.relaxed.cta r1, x | st.release.cta x, 0 ;
 st x, 0        | fence.acq_rel.cta    |                     ;
                | ld r2, y             |                     ;
                | st x, 0              |                     ;
exists (true)
";

#[test]
fn fenced_9090_117034_a_chained_read_takes_its_source_in_the_order_of_addition() {
    fixed_under_ptx(&[FENCED_9090_117034_SHRUNK, FENCED_9090_117034], (FENCED_9090_117034, 3_483));
}

/// Program 99613 of `tcfuzz fuzz --seed 9090` (a coverage-guided mutant; every program checked
/// against the oracle): the explorer found 216 complete executions, the oracle 234, with no
/// caveat (P1 arrives at the cluster barrier twice in one phase, a misuse both report); shrunk,
/// 16 of 20. The missed executions have P1's `and` revisit P0's `ld x` while P0's arrive reads
/// P1's second arrive, a chained read. P1's first arrive, added between the two, made it not
/// the first added, but P0's arrive cannot read that one there (P1's second arrive, an rmw of
/// the same counter, reads it: Atomicity), so no graph qualified. A write added between a
/// chained read and its source now counts only where the read could read it (`maximal.rs`
/// docs, "The first added, where it could be read").
const COVERAGE_9090_99613: &str = r"PTX coverage-9090-99613
{
  x = 0;
  y = 0;
  s @ shared cta 0 gpu 0 = 0;
  bar @ mbarrier cta 0 gpu 0 count 1;
  x_gen @ generic aliases x;
}
 P0@cta 0,cluster 0,gpu 0                         | P1@cta 1,cluster 0,gpu 0       ;
 ld r0, x                                         | ld.relaxed.cta r0, x           ;
 st.volatile x, 2                                 | barrier.cluster.arrive.relaxed ;
 atom.release.gpu.shared::cta.exch.b32 m0, [s], 3 | barrier.cluster.arrive.release ;
 st.weak x_gen, 1                                 | fence.acq_rel.sys              ;
 barrier.cluster.arrive.release                   | atom.release.cta.and m0, x, 1  ;
                                                  | st.weak y, 1                   ;
exists (P1:r0 == 0)
";

const COVERAGE_9090_99613_SHRUNK: &str = r"PTX coverage-9090-99613-shrunk
{
  x = 0;
}
 P0@cta 0,cluster 0,gpu 0       | P1@cta 0,cluster 0,gpu 0       ;
 ld r0, x                       | ld r0, x                       ;
 st x, 1                        | barrier.cluster.arrive.relaxed ;
 barrier.cluster.arrive.release | barrier.cluster.arrive.release ;
                                | fence.acq_rel.cta              ;
                                | atom.relaxed.cta.and m0, x, 0  ;
exists (true)
";

#[test]
fn coverage_9090_99613_a_chained_read_skips_a_write_added_between_that_it_cannot_read() {
    fixed_under_ptx(&[COVERAGE_9090_99613_SHRUNK, COVERAGE_9090_99613], (COVERAGE_9090_99613, 234));
}

/// Program 134213 of the same campaign (a random proxy program with spin loops): every execution
/// blocks at the loop bound, and the explorer finds 22 blocked executions, 6 of them twice, the
/// oracle 16, with no caveat; shrunk (no loop, no proxy), 26 complete with 6 twice against 20.
/// P1's `st x` revisits P0's `ld x` from two graphs: in one P0's `add` reads P1's `exch` write,
/// in the other P1's later `st z`, which had revisited it, with the `exch` refilled after it. The
/// `exch` writes what P1's `ld z` read, and there that load read P0's `add` write: judged with
/// that source ("Chained reads ahead of a refill" keeps the `exch`'s dependency prefix as `g`
/// has it), the `add` could not read the `exch` (a cycle), so the second graph qualified too.
/// Where the `exch` revisited the `add`, the load read something else. Leaving that load a hole
/// for the completion to fill closes the gap, and 80,000 selftest programs found no
/// disagreement with it, but the `exch` write depends on the load: a kept event depending on a
/// hole breaks the graph's invariant (a debug assertion in `Compacted::load`; a release build
/// silently shifts the dependency bit). Not fixed; the completion would need a way to let a kept
/// read take another source. (A rule on the order of addition instead closes the shrunk program
/// but misses an execution of another: [`ptx_95503289_a_revisit_whose_kept_load_was_refilled_late_still_qualifies`].)
const PROXY_9090_134213: &str = r"PTX random-proxy-9090-134213
{
  x = 0;
  y = 0;
  z = 0;
  x_tex @ texture aliases x;
}
 P0@cta 0,gpu 0            | P1@cta 1,gpu 0                ;
 fence.sc.cta              | ld r0, z                      ;
 tld.weak r0, x_tex        | atom.sys.add r1, z, r0        ;
 fence.sc.cta              | st.relaxed.cta z, r1          ;
 atom.release.add r1, z, 2 | beq r1, 1, L0                 ;
 L0:                       | atom.acquire.sys.add r2, x, 1 ;
 ld.relaxed.gpu r2, y      | L0:                           ;
 bne r2, 1, L0             |                               ;
exists (true)
";

const PROXY_9090_134213_SHRUNK: &str = r"PTX random-proxy-9090-134213-shrunk
{
  x = 0;
  z = 0;
}
 P0@cta 0,gpu 0            | P1@cta 0,gpu 0      ;
 ld r0, x                  | ld r0, z            ;
 atom.relaxed.add r1, z, 0 | atom.exch r1, z, r0 ;
                           | st z, 0             ;
                           | beq r1, 1, L0       ;
                           | st x, 1             ;
                           | L0:                 ;
exists (true)
";

#[test]
#[ignore = "open: the explorer explores 6 of 16 blocked executions twice"]
fn proxy_9090_134213_explorer_explores_executions_twice() {
    // (With dependency revisits always on, the rmw-hole caveat comes from the program's shape.)
    for text in [PROXY_9090_134213_SHRUNK, PROXY_9090_134213] {
        explorer_equals_oracle_past(text, ModelKind::Ptx, &[RMW_HOLE]);
    }
}

/// While [`proxy_9090_134213_explorer_explores_executions_twice`] is open: the counts it has
/// (complete, duplicates, the oracle's complete; the blocked ones below).
#[test]
fn proxy_9090_134213_counts_while_open() {
    counts_while_open(PROXY_9090_134213_SHRUNK, &[RMW_HOLE], (26, 6, 20));
    counts_while_open(PROXY_9090_134213, &[], (0, 6, 0));
    let p = tcfuzz_litmus::parse(PROXY_9090_134213).expect("parses");
    let (e, o) = explorer_and_oracle(&p, ModelKind::Ptx);
    assert_eq!((e.stats.blocked, o.stats.blocked), (22, 16), "explorer:\n{e}\noracle:\n{o}");
}

/// `selftest --family ptx` seed 95503289 (explorer = oracle, 16 executions): a guard against a
/// rule tried for [`proxy_9090_134213_explorer_explores_executions_twice`]. Refusing a revisit
/// that deletes an event added before a kept event preceding it in its thread (a hole refilled
/// after it) closed the shrunk program there (20 = oracle) and passed every other test here,
/// but misses one execution of this one: P1's `add` write revisits P0's `add` read, leaving P1's
/// `ld y` a hole (the `add` does not need it) that is refilled after it, and P1's `st x`, which
/// needs that load, then revisits P0's `ld x`. No graph has P1's events in program order there:
/// P0's `add` cannot read the initial `y` (P1's `add` reads it, Atomicity) and P0 runs first, so
/// it reads P1's `add` write only through that revisit. What tells the two programs apart is
/// whether the revisited (chained) read could take another write in a graph in which the thread
/// ran in order — the completion the diagnosis above asks for, with the refilled load free to
/// take another source.
#[test]
fn ptx_95503289_a_revisit_whose_kept_load_was_refilled_late_still_qualifies() {
    explorer_equals_oracle(PTX_95503289, ModelKind::Ptx);
    let p = tcfuzz_litmus::parse(PTX_95503289).expect("parses");
    assert_eq!(check(&p, ModelKind::Ptx, &detecting_duplicates()).expect("explorer").stats.complete, 16);
}

const PTX_95503289: &str = r"PTX random-ptx-95503289
{
  x = 0;
  y = 0;
}
 P0@cta 0,gpu 0               | P1@cta 1,gpu 0             ;
 atom.release.cas r0, y, 1, 1 | ld r0, y                   ;
 ld.volatile r1, x            | ld.volatile r1, y          ;
 atom.release.add r2, y, r0   | atom.relaxed.add r2, y, r1 ;
                              | st.weak x, r0              ;
exists (true)
";

/// `selftest --programs 100000 --family all --seed 95750000`, seed 95798598 (ptx; 224 of the
/// oracle's 228 executions, no caveat), minimized by `tcfuzz minimize --kind
/// explorer-vs-oracle` (found 2026-11-29, at `a3f4e1a` and after). The explorer finds 5 of the
/// oracle's 6 executions and names no gap. The missed one is load buffering through a CTA
/// barrier reached with no branch: P2's `ld x` reads P0's `st x`, which follows the barrier; P0
/// passes it only with P3's arrival, which follows P3's `st x`, whose value comes from P3's
/// `ld y`, which reads P2's `st y` (and P0's `ld x` reads P3's `st x`). The barrier caveat names
/// such cycles only where a thread reaches the barrier after a branch (or an assume) on a read.
/// Not diagnosed.
const PTX_95798598: &str = r"PTX random-ptx-95798598-shrunk
{
  x = 0;
  y = 0;
}
 P0@cta 0,gpu 0 | P2@cta 0,gpu 0 | P3@cta 0,gpu 0 ;
 bar.cta.sync 0 | ld r0, x       | ld r0, y       ;
 ld r0, x       | st y, 0        | st x, r0       ;
 st x, 0        |                | bar.cta.sync 0 ;
exists (true)
";

#[test]
#[ignore = "open: the explorer misses 1 of 6 executions (load buffering through a barrier), with no caveat"]
fn ptx_95798598_load_buffering_through_a_barrier_without_a_branch() {
    explorer_equals_oracle(PTX_95798598, ModelKind::Ptx);
}

/// While [`ptx_95798598_load_buffering_through_a_barrier_without_a_branch`] is open: the counts it has.
#[test]
fn ptx_95798598_counts_while_open() {
    counts_while_open(PTX_95798598, &[], (5, 0, 6));
}

/// Program 41531 of `tcfuzz fuzz --seed 9191` (a coverage-guided mutant; every program checked
/// against the oracle), shrunk by the campaign: two threads meeting CTA barriers 0 and 1 in
/// opposite orders, a deadlock both report as a hang. The explorer finds one blocked execution
/// (each thread waiting at its first barrier), the oracle found two: its second had P0 pass
/// both barriers and P1 wait at its second arrival at barrier 1 — every arrival count right, but
/// the first phase of barrier 1 needed P1's arrival, made after barrier 0, which needed P0's,
/// made after barrier 1. The oracle was wrong: it now asks that the phases complete in some
/// order (`explore/oracle.rs`, `phases_ordered`).
const SYNC_9191_41531: &str = r"PTX coverage-9191-41531
{
}
 P0@cta 0,cluster 0,gpu 0 | P1@cta 0,cluster 0,gpu 0 ;
 bar.cta.sync 1, 2        | bar.sync 0               ;
 bar.sync 0               | bar.cta.sync 1, 2        ;
                          | bar.cta.sync 1, 2        ;
exists (true)
";

#[test]
fn sync_9191_41531_barrier_phases_in_a_cycle_are_no_execution() {
    let p = tcfuzz_litmus::parse(SYNC_9191_41531).expect("parses");
    let (e, o) = explorer_and_oracle(&p, ModelKind::Ptx);
    assert_eq!((e.stats.complete, e.stats.blocked, o.stats.complete, o.stats.blocked), (0, 1, 0, 1), "explorer:\n{e}\noracle:\n{o}");
    assert!(e.caveats.is_empty() && !e.hung_threads.is_empty() && e.hung_threads == o.hung_threads, "explorer:\n{e}\noracle:\n{o}");
}

/// Program 34713 of the same campaign, shrunk by it: shared-memory rmws of two CTAs, a failing
/// `cas` among them. The explorer finds 227 complete executions, 8 of them twice, the oracle
/// 219; its caveats (the `cas`, rmw-hole and Atomicity ones) allow missed executions, not
/// duplicates. Not analysed.
const SHARED_9191_34713: &str = r"PTX coverage-9191-34713
{
  s @ shared cta 0 gpu 0 = 0;
}
 P0@cta 0,cluster 0,gpu 0                        | P1@cta 1,cluster 0,gpu 0                         ;
 atom.acquire.shared::cta.cas.b32 m1, [s], 0, 0  | atom.relaxed.cta.shared::cta.exch.b32 m3, [s], 0 ;
 atom.relaxed.cta.shared::cta.min.b32 m0, [s], 0 | red.release.cluster.shared::cta.and.b32 [s], 0   ;
                                                 | st.relaxed.cluster.shared::cta.b32 [s], 1        ;
                                                 | ld.shared::cta.b32 m2, [s]                       ;
exists (true)
";

#[test]
#[ignore = "open: the explorer explores 8 of 219 executions twice"]
fn shared_9191_34713_explorer_explores_executions_twice() {
    explorer_equals_oracle_past(SHARED_9191_34713, ModelKind::Ptx, &[CAS_ON_A_CYCLE, RMW_HOLE, ATOMICITY_HELD]);
}

/// While [`shared_9191_34713_explorer_explores_executions_twice`] is open: the counts it has.
#[test]
fn shared_9191_34713_counts_while_open() {
    counts_while_open(SHARED_9191_34713, &[CAS_ON_A_CYCLE, RMW_HOLE, ATOMICITY_HELD], (227, 8, 219));
}

/// Program 46266 of `tcfuzz fuzz --seed 9292` (a coverage-guided mutant), shrunk by the
/// campaign: one tile block of rmws on `x` and `f`, and no token orders them. The explorer found
/// 104 complete executions, 8 of them twice. Shrunk by hand (scalar locations, 52 with 4 twice):
/// the `exch` write (P0#8), refilled after a revisit, revisits the first `add`'s read (P0#2)
/// from two graphs: one where that read read the initial value, refilled before the `exch`
/// write while that write was a hole (so out of `co`), and one where it read the second `add`'s
/// write. The maximality test asked of the second whether the read could read the initial value
/// with the `exch` write in `co` — impossible, as both rmws would then read one write — so both
/// qualified. Fixed: the test also asks with the write out of `co` where the read comes before
/// it in its thread (`explore/maximal.rs`, "Refilled before the revisiting write").
const TILEIR_9292_46266: &str = r"TileIR coverage-9292-46266
{
  x = [0, 0];
  f = [0];
}
P0@tlb 0, dev 0 {
  m0 = atom.relaxed.tile_block.add f, [1];
  m1 = atom.relaxed.tile_block.add x, [1, 2];
  r1 = ld.weak x[0];
  m2 = atom.relaxed.tile_block.add x, [1, 2];
  a3 = atom.relaxed.tile_block.exch x[0], r1;
  st.weak f, [2];
}
exists (true)
";

const TILEIR_9292_46266_SHRUNK: &str = r"TileIR coverage-9292-46266-shrunk
{
  x = [0];
  f = [0];
}
P0@tlb 0, dev 0 {
  m0 = atom.relaxed.tile_block.add f[0], 1;
  m1 = atom.relaxed.tile_block.add x[0], 1;
  r1 = ld.weak x[0];
  m2 = atom.relaxed.tile_block.add x[0], 1;
  a3 = atom.relaxed.tile_block.exch x[0], r1;
  st.weak f[0], 2;
}
exists (true)
";

#[test]
fn tileir_9292_46266_a_read_refilled_before_the_revisiting_write_is_revisited_once() {
    explorer_equals_oracle_past(TILEIR_9292_46266_SHRUNK, ModelKind::TileIr, &[RMW_HOLE]);
    let p = tcfuzz_litmus::parse(TILEIR_9292_46266_SHRUNK).expect("parses");
    assert_eq!(check(&p, ModelKind::TileIr, &detecting_duplicates()).expect("explorer").stats.complete, 48);
    // (The original is too large for the oracle at its default limit: 96 there too, with a
    // limit of 10⁸ and 17 s.)
    let p = tcfuzz_litmus::parse(TILEIR_9292_46266).expect("parses");
    let e = check(&p, ModelKind::TileIr, &detecting_duplicates()).expect("explorer");
    assert_eq!((e.stats.complete, e.stats.duplicates), (96, Some(0)), "{e}");
    assert!(e.caveats.iter().all(|c| c.contains(RMW_HOLE)), "{:?}", e.caveats);
}

/// Program 20969 of `tcfuzz fuzz --seed 9696` (a coverage-guided mutant), as the campaign
/// shrank it: rmws of `f` in two tile blocks, a weak store of `f`, and no token orders anything.
/// The explorer found 2,011 complete executions, 174 of them twice (the campaign's original:
/// 14,760 with 180 twice), behind the rmw-hole and Atomicity caveats, which allow missed
/// executions, not duplicates. Too large for the oracle (more than 2,000,000 candidates).
const TILEIR_9696_20969: &str = r"TileIR coverage-9696-20969
{
  x = [0, 0];
  f = [0];
}
P0@tlb 1, dev 0 {
  r1 = ld.weak x;
  m0 = atom.relaxed.tile_block.add f, [1];
  st.weak f, [1];
}
P1@tlb 1, dev 0 {
  a1 = atom.relaxed.tile_block.max f, [1];
  r2 = ld.weak f;
  a3 = atom.relaxed.tile_block.max f, r2;
  m0 = atom.relaxed.tile_block.add x, [1, 2];
}
exists (true)
";

/// [`TILEIR_9696_20969`] shrunk by hand: one-element tiles, and P0's store `relaxed`. The
/// explorer found 176 complete executions, 16 of them twice; the oracle 160. Every instruction
/// is needed.
///
/// What `tcfuzz trace --revisits --oracle` showed for 15 of the 16: P0's store `st f` (`a`)
/// revisits P1's first `max f` read (`r`) from two graphs that it turns into the same one. P1's
/// `max f, r2` read is kept reading the initial `f`, so Atomicity leaves `r` no source in
/// `Previous(r)`: it must read a *forced source*, and there are two — P1's second `max` write
/// `m` (a hole before P1's kept `add x`) and P0's `add f` write `p` (a hole before `a`), with
/// `m` `co`-before `p` in both graphs:
/// - `r` reads `m`; `m` refilled, then `r`'s write half, then P0's `add f` reading that write
///   half, then `p`. `p` is `co`-later and added after `m`, but in the exploration's order, so it
///   did not disqualify `m` (maximal.rs, "Forced sources in the order of addition").
/// - `r` reads `p`, which revisited it after `m` had: P0's `add f` reads `m`, `p` right after it.
///
/// `p` holds `m` in its dependency prefix, so the second graph now yields to the first
/// (maximal.rs, "A forced source after one it depends on"). The last one: P1's second `max`
/// write revisits P0's `add f` read, which reads P1's first `max` write in one graph and P0's
/// store in the other (trace revisits 263 and 269). In the first, the read does not take the
/// `co`-latest write of `Previous(r)`, P0's store, and still counted as maximal:
/// `placed_before_revisit` put the `max` write in `co` right after that store (its read reads
/// it), where the `add` cannot go too — but the `max` write had been a hole since a revisit
/// before the one since which it was refilled, and the second graph, where it was never in
/// `co`, is reached too (maximal.rs, `placed_before_revisit`).
const TILEIR_9696_20969_SHRUNK: &str = r"TileIR coverage-9696-20969-shrunk
{
  x = [0];
  f = [0];
}
P0@tlb 1, dev 0 {
  r1 = ld.weak x;
  m0 = atom.relaxed.tile_block.add f, [1];
  st.relaxed.tile_block f, [1];
}
P1@tlb 1, dev 0 {
  a1 = atom.relaxed.tile_block.max f, [1];
  r2 = ld.weak f;
  a3 = atom.relaxed.tile_block.max f, r2;
  m0 = atom.relaxed.tile_block.add x, [1];
}
exists (true)
";

/// The original has no duplicate left (1,837 = 2,011 − 174).
#[test]
fn tileir_9696_20969_a_forced_source_yields_to_one_it_depends_on() {
    let p = tcfuzz_litmus::parse(TILEIR_9696_20969).expect("parses");
    let e = check(&p, ModelKind::TileIr, &detecting_duplicates()).expect("explorer");
    assert_eq!((e.stats.complete, e.stats.duplicates), (1837, Some(0)), "{e}");
    assert!(e.caveats.iter().all(|c| c.contains(RMW_HOLE) || c.contains(ATOMICITY_HELD)), "{:?}", e.caveats);
}

/// The shrunk program: explorer = oracle (160 executions, 68 final states).
#[test]
fn tileir_9696_20969_a_write_half_left_a_hole_by_an_earlier_revisit_is_not_placed() {
    explorer_equals_oracle_past(TILEIR_9696_20969_SHRUNK, ModelKind::TileIr, &[RMW_HOLE, ATOMICITY_HELD]);
    let p = tcfuzz_litmus::parse(TILEIR_9696_20969_SHRUNK).expect("parses");
    let e = check(&p, ModelKind::TileIr, &detecting_duplicates()).expect("explorer");
    assert_eq!((e.stats.complete, e.states.len()), (160, 68), "{e}");
}

/// Seed 82032384 of `tcfuzz selftest --family all` (150,000 programs from 82,000,000, at
/// `08ed6cf`; the base `4f4cbcc` gives the same): the explorer explores 108 of its 1,351
/// executions twice (83 at `selftest`'s loop bound 1), past every caveat it carries (they allow
/// missed executions only). P1 spins on `z`; P0 and P2 have `cas`es. Too large for the oracle
/// (too many thread traces). Not shrunk, not analysed.
const PTX_82032384: &str = r"PTX random-ptx-82032384
{ x = 0; y = 0; z = 0; }
 P0@cta 0,gpu 0                       | P1@cta 0,gpu 0                 | P2@cta 0,gpu 0                   ;
 atom.acquire.cluster.cas r0, x, 0, 1 | atom.release.add r0, x, 0      | st.release.sys z, 1              ;
 st.release.cluster z, 2              | atom.acq_rel.sys.add r1, z, r0 | atom.release.cta.cas r0, z, 1, 2 ;
 add r1, r0, 1                        | L0:                            | atom.gpu.exch r1, x, r0          ;
 ld.relaxed.cta r2, x                 | ld.relaxed.gpu r2, z           | st.release.gpu x, r1             ;
                                      | bne r2, 1, L0                  |                                  ;
exists (true)
";

#[test]
#[ignore = "open: the explorer explores 108 of 1,351 executions twice"]
fn ptx_82032384_explorer_explores_executions_twice() {
    let p = tcfuzz_litmus::parse(PTX_82032384).expect("parses");
    let e = check(&p, ModelKind::Ptx, &detecting_duplicates()).expect("explorer");
    assert_eq!(e.stats.duplicates, Some(0), "{e}");
}

/// While [`ptx_82032384_explorer_explores_executions_twice`] is open: the counts it has.
#[test]
fn ptx_82032384_counts_while_open() {
    let p = tcfuzz_litmus::parse(PTX_82032384).expect("parses");
    let e = check(&p, ModelKind::Ptx, &detecting_duplicates()).expect("explorer");
    assert_eq!((e.stats.complete, e.stats.blocked, e.stats.duplicates), (374, 977, Some(108)), "{e}");
}

/// Program 75562 of `tcfuzz fuzz --seed 9797` (a coverage-guided mutant, the hunt configuration
/// of the issue notes), as the campaign shrank it: rmws of `x` in three threads of one CTA, a
/// surface-proxy store of `x`, rmws of a shared-memory slot. The explorer finds 607 complete
/// executions, 13 of them twice; the oracle 594 (one final state). It carries the rmw-hole and
/// Atomicity caveats, which allow missed executions, not duplicates. Every instruction is needed.
/// The same at `5289240`, before `904ff77`. Not analysed.
const PROXY_9797_75562: &str = r"PTX coverage-9797-75562
{
  x = 0;
  x_sur @ surface aliases x;
  tslot0 @ shared cta 0 gpu 0 = 0;
}
 P0@cta 0,cluster 0,gpu 0                             | P1@cta 0,cluster 0,gpu 0                    | P2@cta 0,cluster 0,gpu 0                             ;
 atom.relaxed.cta.and m0, x, 0                        | atom.relaxed.cta.add m1, x, 0               | atom.acquire.cta.shared::cta.and.b32 m1, [tslot0], 0 ;
 sust.weak x_sur, 0                                   | red.relaxed.shared::cta.add.b32 [tslot0], 0 | atom.relaxed.cta.add m0, x, 0                        ;
 atom.release.cta.shared::cta.min.b32 m3, [tslot0], 0 |                                             |                                                      ;
exists (true)
";

#[test]
#[ignore = "open: the explorer explores 13 of 607 executions twice"]
fn proxy_9797_75562_explorer_explores_executions_twice() {
    explorer_equals_oracle_past(PROXY_9797_75562, ModelKind::Ptx, &[RMW_HOLE, ATOMICITY_HELD]);
}

/// While [`proxy_9797_75562_explorer_explores_executions_twice`] is open: the counts it has.
#[test]
fn proxy_9797_75562_counts_while_open() {
    counts_while_open(PROXY_9797_75562, &[RMW_HOLE, ATOMICITY_HELD], (607, 13, 594));
}

/// Program 12897 of `tcfuzz fuzz --seed 9999` (a coverage-guided mutant, the hunt configuration
/// of the issue notes; the campaign's minimization left 751 executions, 6 twice), shrunk by hand
/// (P1's last `ld z` dropped, its `or` made `.gpu`): P2's `cas` of `z` in another CTA, plain and
/// weak accesses of `z`, and a load of `x`, which nothing writes but without which there is no
/// duplicate. The explorer finds 300 complete executions, 4 of them twice; the oracle 305. Its
/// caveats (a `cas` failing on a load-buffering cycle, the rmw hole) allow the 9 it misses, not
/// the duplicates. The same at `5289240`.
///
/// Analysed (`tcfuzz trace --revisits --oracle`, and a build printing the maximality test's
/// completions): P1's `or` write revisits P0's `ld z` from two graphs that differ only in what
/// the load reads — the initial `z` (a plain maximal choice), and P1's `st.weak z, 1` (a forced
/// source, through that store's earlier revisit of it) — with P2's `cas` reading the store and
/// failing in both. The second passes because `completable_with_previous_source` finds no
/// completion in which the load reads the initial value: the completion search (`fill`) fills
/// the store's hole while the hole of P1's `ld x` before it is open, so `hole_event` cannot
/// replay the thread and gives the value the hole kept, 0 (`holes::cut` clears values); the
/// `cas z, 0, 0` reading that 0 succeeds, and the graph the first revisit came from (the `cas`
/// failing) is not found. Replaying the thread with an open hole read as 0 wherever neither the
/// hole nor the event given depends on one (tried, not committed) fixes the value: then neither
/// graph passes — the test finds that the load could read P2's `red` write, a graph the
/// exploration does not reach (the rmw-hole caveat's class) — and the 4 duplicates become 4
/// more missed executions (292, 0 twice; oracle 305); and it made `selftest --seed 95000000`
/// programs 95002775 and 95018224 (ptx) and 95019742 (proxy) explore 48, 792 and 66
/// executions twice that are explored once now (also with the replay only for plain writes).
/// Other rules of the test were shaped with the kept values; the right values need them
/// re-derived. Open.
const PTX_9999_12897: &str = r"PTX coverage-9999-12897
{
  x = 0;
  z = 0;
}
 P0@cta 0,cluster 0,gpu 0 | P1@cta 0,cluster 0,gpu 0     | P2@cta 1,gpu 0               ;
 ld r0, z                 | ld m0, x                     | atom.relaxed.cas r1, z, 0, 0 ;
                          | st.weak z, 1                 | red.relaxed.cta.add z, 0     ;
                          | ld m1, z                     |                              ;
                          | atom.relaxed.gpu.or r0, z, 0 |                              ;
exists (true)
";

#[test]
#[ignore = "open: the explorer explores 4 of 300 executions twice"]
fn ptx_9999_12897_explorer_explores_executions_twice() {
    let p = tcfuzz_litmus::parse(PTX_9999_12897).expect("parses");
    let e = check(&p, ModelKind::Ptx, &detecting_duplicates()).expect("explorer");
    assert_eq!(e.stats.duplicates, Some(0), "{e}");
}

/// While [`ptx_9999_12897_explorer_explores_executions_twice`] is open: the counts it has.
#[test]
fn ptx_9999_12897_counts_while_open() {
    counts_while_open(PTX_9999_12897, &[CAS_ON_A_CYCLE, RMW_HOLE], (300, 4, 305));
}

/// Program 25902 of `tcfuzz fuzz --seed 10101` (the hunt configuration of the issue notes), as
/// the campaign minimized it but for P0's `red.release.cta.min` made a `st.release.cta` (the gap
/// was the same: 19 of 20 there). The explorer found 13 complete executions, the oracle 14, and
/// **no caveat** named the one missed: P0's `ld y` reads P1's `inc` write, P0's `tld` (texture
/// proxy) reads P1's `st y`, so the branch falls through to the release store, which P1's `inc`
/// reads. Without P1's fence, or with a generic `ld` for the `tld`, or a relaxed store, the two
/// agreed.
///
/// What `tcfuzz trace --revisits --oracle` (with a debug print in the maximality test) showed:
/// the refilled `inc` write (`a`), after the release store revisited the `inc` read, was refused
/// its revisit of P0's `ld y` as not maximal, because the test found that the load could have
/// read P1's `st y` — asking a completion with no hole to fill: `OpenAtRefill::may_stay_open`
/// let every hole after the `inc` read in its thread stay open, P1's fence too. But in the
/// graphs in which the load reads `st y` (through that store's revisit of it, which leaves P1's
/// first three events holes), `next` puts the fence back before any other hole
/// (`refilled_early`), so before the `inc` read, and the release store's revisit of that read
/// keeps it: no such graph holds the fence open. Fixed there: such a fence is filled in the
/// completion. Both variants: explorer = oracle (14 and 20).
const PTX_10101_25902: &str = r"PTX coverage-10101-25902
{
  y = 0;
  y_tex @ texture aliases y;
}
 P0@cta 0,gpu 0      | P1@cta 0,gpu 0       ;
 ld m0, y            | red.relaxed.inc y, 0 ;
 tld.weak r1, y_tex  | fence.acq_rel.cta    ;
 bne r1, 1, L0       | st y, 1              ;
 st.release.cta y, 0 |                      ;
 L0:                 |                      ;
exists (true)
";

#[test]
fn ptx_10101_25902_a_fence_refilled_before_the_rmw_read_is_not_left_open() {
    explorer_equals_oracle(PTX_10101_25902, ModelKind::Ptx);
    let campaign = PTX_10101_25902.replace("st.release.cta y, 0 |", "red.release.cta.min y, 0 |");
    explorer_equals_oracle(&campaign, ModelKind::Ptx);
    let p = tcfuzz_litmus::parse(PTX_10101_25902).expect("parses");
    let (explorer, oracle) = explorer_and_oracle(&p, ModelKind::Ptx);
    assert_eq!((explorer.stats.complete, oracle.stats.complete), (14, 14));
}

/// Seed 58085115 (family assume; `tcfuzz selftest --programs 100000 --seed 58000000 -j 1`):
/// explorer 36 complete executions, oracle 54, **no caveat**, the same 6 final states (24 of 36
/// at selftest's loop bound 1); there at `05a8562` too. Not shrunk. The missed executions are
/// load buffering: P0's acquire `exch z` reads P1's last store of `z`, which control-depends
/// (through the spin loop's branch) on P1's load of `x` that reads P0's `st x, 1`, after the
/// `exch` in program order. `tcfuzz trace --loop-bound 1 --revisits --oracle` shows 4 revisits
/// in all, each of P0's `exch` by P1's `exch` write: P1's last store never revisits it, so the
/// `exch` is in that store's dependency prefix (`explore::holes::dep_prefix`) whenever it is
/// added. Builds that print what they find (not committed): neither `exch` is an ordering rmw
/// (`Label::orders_thread` is false for both); in the prefix, P0's `exch` comes after its write
/// half, which nothing of P0 after it needs — so through `rf`, P1's `exch` read reading it, as it
/// must wherever P0's `exch` reads the initial `z` (two `exch`es cannot both read it,
/// Atomicity §8.10.3). And the graphs in which P0's `exch` reads P1's `exch` write instead
/// (revisits 2 and 4, taken) all die: the acquire `exch` reading the release one synchronizes,
/// and P1's load then reads P0's `st x, 1`, which follows in causality order (Causality,
/// §8.10.6). So no graph exists from which the store could revisit the `exch`: a lost revisit,
/// but one that no revisit attempt meets, so the lost-revisit caveat is not given either. Like
/// the `cas` class of the explorer's caveats (module docs of `explore`, "Not explored"), but
/// through an `exch` that Atomicity, not a failed comparison, holds in place. Named since: the
/// verdict carries the caveat of a revisit Atomicity holds back
/// (`explore::holes::held_by_atomicity`;
/// [`assume_58085115_caveat_is_named_and_exact_asks_the_oracle`]).
pub(crate) const ASSUME_58085115: &str = r"PTX random-assume-58085115
{
  x = 0;
  y = 0;
  z = 0;
}
 P0@cta 0,gpu 0                 | P1@cta 1,gpu 0                 ;
 atom.acquire.sys.exch r0, z, 1 | st.release.sys x, 2            ;
 st.weak z, r0                  | L0:                            ;
 st x, 1                        | ld.relaxed.gpu r0, x           ;
                                | bne r0, 1, L0                  ;
                                | add r1, r0, 1                  ;
                                | ld.acquire.gpu r2, x           ;
                                | atom.acq_rel.gpu.exch r3, z, 2 ;
                                | st.weak z, r3                  ;
exists (true)
";

#[test]
#[ignore = "open: the explorer misses 18 of 54 executions (the same states), which a caveat names"]
fn assume_58085115_explorer_misses_load_buffering_through_a_spin_loop() {
    explorer_equals_oracle(ASSUME_58085115, ModelKind::Ptx);
}

/// While [`assume_58085115_explorer_misses_load_buffering_through_a_spin_loop`] is open: the
/// explorer's verdict names the gap, with that caveat alone, and [`check_exact`] answers with
/// the oracle's verdict, as the caveat says to.
#[test]
fn assume_58085115_caveat_is_named_and_exact_asks_the_oracle() {
    let p = tcfuzz_litmus::parse(ASSUME_58085115).expect("parses");
    let (e, o) = explorer_and_oracle(&p, ModelKind::Ptx);
    assert_eq!((e.stats.complete, o.stats.complete), (36, 54), "the gap changed\n{e}\n{o}");
    assert_eq!(e.caveats.len(), 1, "{:?}", e.caveats);
    assert!(e.caveats[0].contains(ATOMICITY_HELD), "{:?}", e.caveats);
    let exact = check_exact(&p, ModelKind::Ptx, &detecting_duplicates()).expect("exact");
    assert_eq!((exact.method, exact.stats.complete, &exact.states), (Method::Oracle, 54, &o.states));
}

/// The same two `exch`es without the load buffering (P0's `st x, 1` before its `exch`, so P1's
/// last store needs no event after the `exch`): the revisit is refused the same way, but the
/// explorer reaches every execution (the oracle's 72), and the verdict names no caveat — the
/// caveat asks for a later event of the held read's thread that the revisiting write needs.
#[test]
fn exchs_held_by_atomicity_without_load_buffering_need_no_caveat() {
    let p = tcfuzz_litmus::parse(
        r"PTX exchs-held-by-atomicity-without-load-buffering
{
  x = 0;
  z = 0;
}
 P0@cta 0,gpu 0                 | P1@cta 1,gpu 0                 ;
 st x, 1                        | st.release.sys x, 2            ;
 atom.acquire.sys.exch r0, z, 1 | L0:                            ;
 st.weak z, r0                  | ld.relaxed.gpu r0, x           ;
                                | bne r0, 1, L0                  ;
                                | ld.acquire.gpu r2, x           ;
                                | atom.acq_rel.gpu.exch r3, z, 2 ;
                                | st.weak z, r3                  ;
exists (true)
",
    )
    .expect("parses");
    let (e, o) = explorer_and_oracle(&p, ModelKind::Ptx);
    assert_eq!(e.caveats, Vec::<String>::new());
    assert_eq!((e.stats.complete, e.stats.duplicates, &e.states), (o.stats.complete, Some(0), &o.states), "explorer:\n{e}\noracle:\n{o}");
    assert_eq!(o.stats.complete, 72);
}

/// Seed 18076234 (family assume; `tcfuzz selftest --programs 100000 --family all --seed
/// 18000000`): explorer 39 complete executions, 5 of them duplicates, **no caveat**; oracle 34,
/// the same 18 final states. There at `d92195a` too. `tcfuzz minimize --kind explorer-vs-oracle`
/// shrinks it to 8 instructions, but the shrunk program carries the rmw-hole caveat, so the
/// original is pinned. In each of the 5 graphs explored twice, P0's `atom.add z` reads P2's
/// `atom.exch z`. One path: P2's load of `y` read P1's `st y` (whose value P1's `ld x` loaded),
/// so the `exch` write depended on P1's events and its revisit of the `add` kept them; P2's `st
/// x` then revisited P1's `ld x`, deleting the `st y`, P2's load of `y` and the `exch` write,
/// with the `add` pending on it. The other: P1's events came after the `exch` write's revisit
/// (P2's load of `y` reading the initial value), and the `st x` revisited the `ld x` deleting
/// only the `st y`. Fixed: the pending `add` no longer qualifies where the revisit deletes an
/// event the `exch` write's dependency prefix held (`maximal.rs`, "Pending reads").
#[test]
fn assume_18076234_explorer_explores_executions_twice() {
    explorer_equals_oracle(
        r"PTX random-assume-18076234
{
  x = 0;
  y = 0;
  z = 0;
}
 P0@cta 1,gpu 0            | P1@cta 0,gpu 0    | P2@cta 1,gpu 0                  ;
 atom.acq_rel.add r0, z, 2 | ld.volatile r0, x | ld.acquire.cluster r0, y        ;
 beq r0, 0, L0             | st y, r0          | ld.acquire.cta r1, z            ;
 add r1, r0, 1             |                   | atom.relaxed.cta.exch r2, z, r0 ;
 ld.relaxed.cta r2, z      |                   | beq r2, 1, L0                   ;
 assume.ge r2, 1           |                   | st.relaxed.cta x, 1             ;
 L0:                       |                   | L0:                             ;
 fence.acq_rel.sys         |                   |                                 ;
 add r3, r1, 1             |                   |                                 ;
 atom.release.add r4, x, 0 |                   |                                 ;
exists (true)
",
        ModelKind::Ptx,
    );
}

/// Seed 15058232 (family proxy; `tcfuzz selftest --programs 100000 --family all --seed 15000000`):
/// the explorer produced 30 duplicate executions (too large for the oracle). `tcfuzz minimize
/// --kind explorer-vs-oracle` shrinks it to this: 424 executions, 40 of them duplicates, **no
/// caveat**; oracle 384. P3's `add` write revisits P0's `exch x` read, keeping P3's `ld y` (its
/// operand) and what the load read; P3's `st.weak x_gen`, which needs only the add's read, then
/// revisits the `exch` again (the `add` write its forced source), deleting the `ld y`, the `add`
/// write and all of P2. It did so from two graphs: one where the `ld y` read P0's `cas` write, P2
/// deleted by the first revisit and added again after it (so P2's `cas` write is not in the load's
/// `Previous`), and one where it read P2's `cas` write, which the first revisit kept ahead of the
/// load for it. Both passed the maximality test; under TruSt's `po ∪ rf` prefixes the load would be
/// kept by the second revisit. Fixed: a deleted read kept ahead by the revisit of the forced
/// source, reading a deleted write kept ahead too, is canonical only where it could read nothing
/// else of its `Previous` (`maximal.rs`, "Reads kept ahead of a revisit", with a bounded
/// completion search: unbounded, it ran for minutes on `selftest --family tcgen05 --seed
/// 15000724`).
#[test]
fn proxy_15058232_explorer_explores_executions_twice() {
    explorer_equals_oracle(
        r"PTX random-proxy-15058232-shrunk
{
  x = 0;
  y = 0;
  z = 0;
  x_gen @ generic aliases x;
  z_gen @ generic aliases z;
  z_sur @ surface aliases z;
}
 P0@cta 0,gpu 0               | P1@cta 0,gpu 0            | P2@cta 0,gpu 0               | P3@cta 0,gpu 0     ;
 atom.relaxed.cas r0, y, 0, 0 | suld.weak r0, z_sur       | atom.relaxed.cas r0, y, 0, 0 | ld r0, y           ;
 atom.relaxed.exch r1, x, 0   | atom.relaxed.add r1, y, 0 | st z_gen, 0                  | atom.add r1, x, r0 ;
                              |                           |                              | st.weak x_gen, r1  ;
exists (true)
",
        ModelKind::Ptx,
    );
}

/// Seed 15012821 (family assume; `tcfuzz selftest --programs 100000 --family all --seed
/// 15000000`): the explorer produced 62 duplicate executions (too large for the oracle).
/// `tcfuzz minimize --kind explorer-vs-oracle` shrinks it to this: 3,456 executions, 288 of them
/// duplicates; oracle 3,168. The verdict carries the caveats of a `cas` comparing with a
/// register and of the rmw hole, which name missed executions, not duplicates. Partly
/// diagnosed: the `exch` of `z` revisits P0's `ld z` both from a graph in which P1's `exch y`
/// came before P2's in `co` and from one in which it came after P0's `cas`; all three rmws of
/// `y` are deleted, P0's `cas` (comparing with the register P0's `ld z` loaded) a chained read
/// in both, each canonical by the chained-read rule given the other deleted reads — which the
/// two graphs added in different orders. Fixed with [`proxy_15012821_explorer_explores_executions_twice`]:
/// 3,168 executions, as the oracle. (The caveat of an rmw Atomicity holds stands here too, as on
/// the proxy program below, over-approximated: the `exch`es of `y` form the chain it looks for.)
#[test]
fn assume_15012821_explorer_explores_executions_twice() {
    explorer_equals_oracle_past(
        r"PTX random-assume-15012821-shrunk
{
  y = 0;
  z = 0;
}
 P0@cta 0,gpu 0                | P1@cta 0,gpu 0                 | P2@cta 0,gpu 0                 | P3@cta 0,gpu 0 ;
 ld r0, z                      | atom.relaxed.cta.exch r0, y, 0 | atom.acquire.exch r0, y, 0     | ld r0, y       ;
 st z, 0                       | ld r1, z                       | atom.relaxed.cta.exch r1, z, 0 | st z, 0        ;
 atom.release.cas r1, y, r0, 0 |                                |                                |                ;
exists (true)
",
        ModelKind::Ptx,
        &[RMW_HOLE, CAS_ON_A_CYCLE, ATOMICITY_HELD],
    );
}

/// Seed 15012821 of the *proxy* family (`tcfuzz selftest --programs 20000 --family proxy --seed
/// 15000000`): 148 duplicate executions (too large for the oracle). `tcfuzz minimize --kind
/// explorer-vs-oracle` and hand shrinking give the shape of `assume_15012821` with one thread and
/// two instructions fewer: 33 executions, 6 of them duplicates; oracle 27; the caveats of a `cas`
/// comparing with a register and of the rmw hole, which name missed executions, not duplicates.
/// Likely the same fault as `assume_15012821` (P0's `cas` compares with the register its `ld z`
/// loaded, and P2's `exch z` revisits that load). Without P0's `st z` or P1 the duplicates go.
///
/// Diagnosis (events `0.0` `ld z`, `0.1` `st z`, `0.2`/`0.3` the `cas`; `1.0`/`1.1` P1's `exch`;
/// `2.0`/`2.1` P2's `exch y`, `2.2`/`2.3` its `exch z`): `2.3` revisits `0.0` from graph A, where
/// P1 came before P2 and `2.0` reads `1.1`, and from graph B, where `2.1`'s earlier revisit of the
/// chained `cas` read `0.2` had deleted P1, which came back after P2 with `1.0` reading `0.3`. The
/// revisit deletes P0's `cas` and P1 and leaves `2.0`/`2.1` holes (`2.3` does not depend on
/// them), so A and B become one graph; every deleted event is maximal in both, for its own order
/// of addition. Under TruSt's `po ∪ rf` prefix `2.0`/`2.1` would stay with their sources and the
/// two would differ. Tried and reverted: "a hole reading a deleted write that leaves no hole is
/// canonical only where it could read nothing the refill finds" (B's choice, what re-exploring
/// the revisited graph makes) loses executions — 23 of these tests failed, `fenced_432693` with
/// 84 of 126 — because the graph of B's kind is one no exploration reaches unless a revisit
/// happened to delete the earlier thread's events after the hole's were added.
///
/// Fixed: in A, `2.1` revisited the chained `cas` read `0.2` keeping *ahead* of what it deleted
/// its dependency prefix, P1 with it (`2.0` reads `1.1`): `2.0` reads a write kept ahead too.
/// Where it could have read an earlier write (the initial `y`), the graph in which it did — B —
/// is the one that qualifies ("Reads kept ahead of a revisit", `explore/maximal.rs`, which asked
/// this only of a revisited read with a forced source, now of every chained read too). A is
/// rejected only where a completion shows B's choice possible, so no execution is lost where B
/// does not exist, as the reverted rule lost them.
#[test]
fn proxy_15012821_explorer_explores_executions_twice() {
    explorer_equals_oracle_past(
        r"PTX random-proxy-15012821-shrunk
{
  y = 0;
  z = 0;
}
 P0@cta 0,gpu 0                | P1@cta 0,gpu 0                 | P2@cta 0,gpu 0                 ;
 ld r0, z                      | atom.relaxed.cta.exch r0, y, 0 | atom.acquire.exch r0, y, 0     ;
 st z, 0                       |                                | atom.relaxed.cta.exch r1, z, 0 ;
 atom.release.cas r1, y, r0, 0 |                                |                                ;
exists (true)
",
        ModelKind::Ptx,
        &[RMW_HOLE, CAS_ON_A_CYCLE, ATOMICITY_HELD],
    );
}

/// Seed 19061439 (family ptx; `tcfuzz selftest --programs 100000 --family all --seed
/// 19000000`): the explorer produced 1,570 duplicate executions at `239cfed`, 1,364 now (too
/// large for the oracle). `tcfuzz minimize --kind explorer-vs-oracle` shrinks it to this: 102
/// executions, 12 of them duplicates; oracle 96. The verdict carries the rmw-hole caveat, which
/// names missed executions, not duplicates. Partly diagnosed: P1's last `exch y` write revisits
/// P0's first `exch y` read from two graphs — one in which P2 has not come yet, and one in which
/// P2's `add y` came before P1's events, which P2's revisit of P0's last `exch` had deleted and
/// `next` then added again after P2. The revisit deletes P2 and, its prefix being only the
/// `exch` read and the branch it follows, P1's `ld y` and first `exch z` write too, so both
/// graphs turn into the same one; under TruSt's `po ∪ rf` prefix P1's `ld y` (reading P2's
/// write in the second graph) would be kept and the two would differ. The duplicates are closed
/// (as [`proxy_15012821_explorer_explores_executions_twice`]); they hid that the explorer
/// finds 90 distinct executions of the oracle's 96 (102 less the 12 explored twice, then as
/// now): missed executions, which the rmw-hole caveat names.
#[test]
#[ignore = "open: the explorer misses 6 of 96 executions (named by the rmw-hole caveat)"]
fn ptx_19061439_explorer_misses_executions() {
    explorer_equals_oracle_past(PTX_19061439, ModelKind::Ptx, &[RMW_HOLE, CAS_ON_A_CYCLE]);
}

/// While [`ptx_19061439_explorer_misses_executions`] is open: the rmw-hole caveat names it, and
/// [`check_exact`] answers with the oracle's executions.
#[test]
fn ptx_19061439_is_named_and_exact_asks_the_oracle() {
    // Every final state is found: only counts differ.
    gap_is_named_and_exact_asks_the_oracle(PTX_19061439, (90, 96, 0), RMW_HOLE);
}

const PTX_19061439: &str = r"PTX random-ptx-19061439-shrunk
{
  y = 0;
  z = 0;
}
 P0@cta 0,gpu 0                 | P1@cta 0,gpu 0                 | P2@cta 0,gpu 0                ;
 atom.relaxed.exch r0, y, 0     | ld r0, y                       | atom.relaxed.cta.add r0, y, 0 ;
 atom.cta.cas r1, z, 0, 0       | atom.cta.exch r1, z, r0        |                               ;
 atom.relaxed.cta.exch r2, y, 0 | bne r1, 0, L0                  |                               ;
                                | L0:                            |                               ;
                                | atom.relaxed.cta.exch r3, y, 0 |                               ;
exists (true)
";

/// Program 4395 of `tcfuzz generate --seed 3` (random ptx, unshrunk): explorer = oracle, 360
/// complete executions, 36 final states, no duplicates, but the verdict named two caveats that
/// say it may miss executions: the rmw hole and the lost load-buffering revisit. Both are
/// spurious here (the explorer misses nothing), so `check_exact` asks the oracle for nothing it
/// did not have. The lost revisit is no longer named (as for [`ptx_60015091_explorer_explores_executions_twice`]);
/// the rmw hole is. Unlike `ptx_60015091` no `cas` compares with a register: its rmws are `add`s.
/// Found measuring the caveat rate (1,235 of 19,998 generated programs carry a caveat; this is
/// the one lost-revisit among them). Open: no caveat should remain where the explorer is exact.
const PTX_3_4395: &str = r"PTX random-ptx-3-4395
{
  x = 0;
  y = 0;
  z = 0;
}
 P0@cta 1,cluster 0,gpu 0 | P1@cta 0,cluster 0,gpu 0      | P2@cta 0,cluster 0,gpu 0      ;
 ld.relaxed.cta r0, x     | st x, 1                       | st x, 1                       ;
 ld.relaxed.cluster r1, y | atom.relaxed.sys.add r0, x, 1 | st z, 1                       ;
 ld.relaxed.gpu r2, z     | ld.relaxed.sys r1, y          | ld.acquire.cta r0, y          ;
 ld.relaxed.sys r3, y     | st.weak x, 1                  | atom.acquire.gpu.add r1, x, 1 ;
exists (P0:r0 == 0 /\ P0:r2 == 1)
";

#[test]
#[ignore = "open: a spurious rmw-hole caveat (the explorer misses nothing)"]
fn ptx_3_4395_carries_no_caveat() {
    explorer_equals_oracle(PTX_3_4395, ModelKind::Ptx);
}

/// While [`ptx_3_4395_carries_no_caveat`] is open: the figures it shows.
#[test]
fn ptx_3_4395_caveats_are_named_and_the_explorer_is_exact() {
    let p = tcfuzz_litmus::parse(PTX_3_4395).expect("parses");
    let (e, o) = explorer_and_oracle(&p, ModelKind::Ptx);
    assert_eq!((e.stats.complete, e.stats.duplicates, o.stats.complete), (360, Some(0), 360), "the gap changed\n{e}\n{o}");
    assert_eq!((e.states.len(), &e.states), (36, &o.states));
    assert_eq!(e.caveats.len(), 1, "{:?}", e.caveats);
    assert!(e.caveats[0].contains("a cas or another atomic rmw that a revisit removed"), "{:?}", e.caveats);
}

/// Program 3315 of `tcfuzz fuzz --seed 303 --programs 30000` (random proxy), found as
/// `explorer-vs-oracle: ptx: duplicates` and shrunk by the fuzz loop, then by hand, to two
/// threads of three instructions — the smallest program known to be explored twice: 34
/// executions, 2 of them duplicates; oracle 32. The two final states counted once too often are
/// P0 reading `y` from P1's `st y` with its `cas` writing (reading the initial `x`) while P1
/// reads the initial `x` twice, and the same with the `cas` failing (reading P0's `st x`)
/// while P1's `ld x` reads that store too. Needed: the `cas` (an `exch` there: no duplicates),
/// its later `st x`, P0's `ld y` (the load-buffering cycle) and the `add` taking its value from
/// P1's `ld x` (an immediate: none). The caveats (the `cas` class and the rmw hole) name missed
/// executions, not duplicates.
///
/// Partly diagnosed (a trace of the revisits): P1's `st y` revisits P0's `ld y` from two graphs.
/// In A, P1's `ld x` read the initial `x`, its `add` wrote 0, and P0's `cas` read that 0 and
/// wrote; in B, P1's `ld x` read P0's `st x` (a chained read), its `add` wrote 1, and the `cas`
/// read that 1 and failed. The revisit deletes P0's `cas` and `st x` and leaves P1's `ld x` a
/// hole (the `add`, kept with P1's later events, `Label::orders_thread`, stays; its write, which
/// takes its value from the `ld x`, becomes a hole too), so A and B become one graph, and both
/// pass the maximality test. Under TruSt's `po ∪ rf` prefix the `ld x` would be kept with its
/// source and the two would differ: a revisit that forgets a hole's `rf` needs a rule that picks
/// one of the graphs it could have come from.
///
/// Fixed: B is reached only through P1's `add` write revisiting the `cas` read (a chained read
/// here) while keeping *ahead* of what it deleted its dependency prefix — the `ld x` and P0's
/// `st x` it reads. Where the `ld x` could have read an earlier write (the initial `x`), the
/// graph in which it did — A — is the one that qualifies ("Reads kept ahead of a revisit",
/// `explore/maximal.rs`, which asked this only of a revisited read with a forced source, now of
/// every chained read too).
const FUZZ_303_3315: &str = r"PTX fuzz-303-3315-shrunk
{ x = 0; y = 0; }
 P0@cta 0,gpu 0                   | P1@cta 0,gpu 0                 ;
 ld.weak r0, y                    | ld r0, x                       ;
 atom.relaxed.cta.cas r1, x, 0, 0 | atom.relaxed.cta.add r1, x, r0 ;
 st x, 1                          | st y, 1                        ;
exists (true)
";

#[test]
fn fuzz_303_3315_explorer_explores_executions_twice() {
    explorer_equals_oracle_past(FUZZ_303_3315, ModelKind::Ptx, &[RMW_HOLE, CAS_ON_A_CYCLE]);
}

/// Program 7000784 of `tcfuzz selftest --programs 20000 --family all --seed 7000000` (random
/// ptx; one of the 4 verdicts there that miss executions within their caveat, the same at
/// `8c94508`), shrunk by hand to one location and two instructions per thread: explorer 18
/// executions, oracle 20, with the `cas` caveat (and the rmw-hole one). The 2 missed (one per
/// `co` order) are the load-buffering cycle of the `cas` class (`explore/mod.rs`, "Not
/// explored"): P0 loads P1's `exch` write (2) and stores it back, and P1's `cas` reads that store
/// and fails — only because it reads a write later on the cycle — while the `exch` after it reads
/// the initial `x`. Every graph the store could revisit the `cas` from has the `cas` read an
/// earlier write; where that holds 0 the `cas` writes, and the `exch` reading the initial value
/// is then incoherent. The smallest program known of the class.
const PTX_7000784: &str = r"PTX random-ptx-7000784-shrunk
{ x = 0; }
 P0@cta 1,gpu 0 | P1@cta 0,gpu 0       ;
 ld r0, x       | atom.cas r0, x, 0, 1 ;
 st x, r0       | atom.exch r3, x, 2   ;
exists (true)
";

#[test]
#[ignore = "open: the explorer misses 2 of 20 executions (named by the cas caveat)"]
fn ptx_7000784_cas_failing_on_a_load_buffering_cycle() {
    explorer_equals_oracle_past(PTX_7000784, ModelKind::Ptx, &[RMW_HOLE, CAS_ON_A_CYCLE]);
}

/// For a pinned gap of missed executions: the explorer finds `explorer` complete executions with
/// no duplicate, the oracle `oracle`, the explorer misses `missed_states` of the oracle's final
/// states, a caveat containing `caveat` names the gap, and [`check_exact`] answers with the
/// oracle's executions.
fn gap_is_named_and_exact_asks_the_oracle(text: &str, (explorer, oracle, missed_states): (u64, u64, usize), caveat: &str) {
    let p = tcfuzz_litmus::parse(text).expect("parses");
    let (e, o) = explorer_and_oracle(&p, ModelKind::Ptx);
    assert_eq!((e.stats.complete, e.stats.duplicates, o.stats.complete), (explorer, Some(0), oracle), "the gap changed\n{e}\n{o}");
    let found: Vec<_> = e.states.iter().map(|s| &s.values).collect();
    let missed = o.states.iter().filter(|s| !found.contains(&&s.values)).count();
    assert_eq!(missed, missed_states, "final states missed\n{e}\n{o}");
    assert!(e.caveats.iter().any(|c| c.contains(caveat)), "{:?}", e.caveats);
    let exact = check_exact(&p, ModelKind::Ptx, &detecting_duplicates()).expect("exact");
    assert_eq!((exact.method, exact.stats.complete, &exact.states), (Method::Oracle, oracle, &o.states));
}

/// While [`ptx_7000784_cas_failing_on_a_load_buffering_cycle`] is open: the caveat names it, and
/// [`check_exact`] answers with the oracle's executions.
#[test]
fn ptx_7000784_is_named_and_exact_asks_the_oracle() {
    // One final state is found by no explored execution.
    gap_is_named_and_exact_asks_the_oracle(PTX_7000784, (18, 20, 1), CAS_ON_A_CYCLE);
}

/// Program 7000160 of `tcfuzz selftest --family proxy` (seed 7000000 + 160; the largest miss
/// within a caveat in that 20,000-program run: 2,592 of 4,320 executions, every final state
/// found), shrunk by hand to a writer and one thread of three instructions: explorer 10
/// executions, oracle 16, with the `cas` caveat. P3's texture load of `z` may read P3's own
/// later store (the texture proxy is not ordered with the generic one), and that store writes
/// what the `cas` read, while the `cas` compares with the texture load's value: a load-buffering
/// cycle through the register a `cas` compares with. Without it the counts agree: with a generic
/// `ld` in place of `tld` (10 = 10; a generic load cannot read its thread's later store), and
/// with `st z, 3` in place of `st z, r1` (14 = 14).
const PROXY_7000160: &str = r"PTX random-proxy-7000160-shrunk
{
  z = 0;
  z_tex @ texture aliases z;
}
 P0@cta 1,gpu 0 | P3@cta 0,gpu 0                        ;
 st z, 2        | tld.weak r0, z_tex                    ;
                | atom.acquire.cluster.cas r1, z, r0, 1 ;
                | st.release.sys z, r1                  ;
exists (true)
";

#[test]
#[ignore = "open: the explorer misses 6 of 16 executions (named by the cas caveat)"]
fn proxy_7000160_cas_comparing_with_a_texture_load_on_a_cycle() {
    explorer_equals_oracle_past(PROXY_7000160, ModelKind::Ptx, &[RMW_HOLE, CAS_ON_A_CYCLE]);
}

/// While [`proxy_7000160_cas_comparing_with_a_texture_load_on_a_cycle`] is open: the caveat
/// names it, and [`check_exact`] answers with the oracle's executions.
#[test]
fn proxy_7000160_is_named_and_exact_asks_the_oracle() {
    // Every final state is found: only counts differ.
    gap_is_named_and_exact_asks_the_oracle(PROXY_7000160, (10, 16, 0), CAS_ON_A_CYCLE);
}

/// Seed 11029122 of `tcfuzz selftest --programs 100000 --family all --seed 11000000` (family
/// tileir): explorer 208 complete executions, 16 of them duplicates; oracle 192; no caveat.
/// Shrunk by `tcfuzz minimize --kind explorer-vs-oracle`, then by hand to one-element locations:
/// 52 executions, 4 of them duplicates, oracle 48. P1's `add` write revisited P2's first `ld x`
/// both from the graph in which that load read P0's store while P2's `ld.acquire` waited (no
/// write could fill it then) and from the one in which both loads read the initial `x`; the
/// maximality test of the second filled the `ld.acquire` in its completion, found no source for
/// it but the `add` write it leaves out, and took that graph as canonical too. Fixed: the last
/// hole of a completion, a read of the revisiting write's location with no source even without
/// that write's thread, stays open (`explore/maximal.rs`, "Waiting holes at the revisit").
#[test]
fn tileir_11029122_explorer_explores_executions_twice() {
    explorer_equals_oracle(
        r"TileIR random-tile-11029122-shrunk
{
  x = [0];
  f = [0];
}
P0@tlb 0, dev 0 {
  r1, <t1> = ld.weak f;
  st.release.tile_block x[0], [1], <t1>;
}
P1@tlb 1, dev 0 {
  a1 = atom.relaxed.tile_block.add x[0], [2];
}
P2@tlb 0, dev 0 {
  r1, <t1> = ld.relaxed.tile_block x[0];
  r2, <t2> = ld.acquire.tile_block x[0], <t1>;
  st.weak f, [2], <t2>;
}
exists (true)
",
        ModelKind::TileIr,
    );
}

/// Seed 11060557 of the same run (family ptx), shrunk: explorer = oracle, 32 executions. The
/// first form of the fix of [`tileir_11029122_explorer_explores_executions_twice`] left the
/// hole open without asking whether it had a source without the revisiting write's thread, and
/// lost 4 of them: P0's loads, holes left by its `st z` revisiting the `exch`, had a source when
/// `next` came to them, so no graph holds them open.
#[test]
fn ptx_11060557_a_hole_with_a_source_never_waits() {
    explorer_equals_oracle(
        r"PTX random-ptx-11060557-shrunk
{ z = 0; }
 P0@cta 0,gpu 0       | P2@cta 0,gpu 0                 ;
 ld.relaxed.cta r0, z | atom.release.cta.exch r0, z, 0 ;
 ld.acquire.cta r1, z | st.weak z, 1                   ;
 st z, 0              |                                ;
exists (true)
",
        ModelKind::Ptx,
    );
}

/// Seed 11091048 of `tcfuzz selftest --programs 100000 --family all --seed 11000000` (family
/// proxy): 860 duplicate executions, too large for the oracle — the one disagreement of that run.
/// `tcfuzz minimize --kind explorer-vs-oracle` gave 4 threads and 7 instructions on `z` and its
/// surface alias (3,144 executions, 620 duplicates; oracle 2,524); by hand, one thread fewer and
/// every access generic: P1's `cas` and later store, P2's `add` taking its operand from a load
/// before it (an immediate operand, or no store after the `cas`, and the duplicates go; so they
/// do without P0). The shape of [`fuzz_303_3315_explorer_explores_executions_twice`] — a `cas`
/// and a later store in one thread, an rmw whose operand a load gives in another — on one
/// location, and the same fault: fixed with it, 198 executions as the oracle. The verdict also
/// names a revisit it could not take (before the fix too), spuriously: every execution is found,
/// as on [`ptx_3_4395_carries_no_caveat`].
const PROXY_11091048: &str = r"PTX random-proxy-11091048-shrunk
{ z = 0; }
 P0@cta 0,gpu 0 | P1@cta 0,gpu 0                   | P2@cta 0,gpu 0             ;
 ld r0, z       | atom.relaxed.cta.cas r0, z, 0, 0 | ld.weak r0, z              ;
                | st.weak z, 1                     | atom.relaxed.add r1, z, r0 ;
                |                                  | st.weak z, r1              ;
exists (true)
";

#[test]
fn proxy_11091048_explorer_explores_executions_twice() {
    explorer_equals_oracle_past(PROXY_11091048, ModelKind::Ptx, &[RMW_HOLE, CAS_ON_A_CYCLE, LOST_REVISIT]);
}

// Found by `tcfuzz selftest --programs 100000 --family all --seed 23000000` (81,047 PTX verdicts
// agree, 2 disagree; the same at `2344f7c`), minimized by `tcfuzz minimize --kind
// explorer-vs-oracle`.

/// Seed 23018752 (family proxy): explorer 88 complete executions, oracle 96, and no caveat:
/// six final states (every one with `P0:r0 = 2`) were missed silently. P1's `suld` of `x`
/// through its surface alias may read P1's own later `st x` (the surface proxy is not ordered
/// with the generic one), whose value the `add` of `y` computes from what the `suld` read.
/// Fixed: the refilled `add` write could not revisit P0's `exch` from any graph — the `exch`
/// "could have read" P2's `st y` in a completion that left the `add` write out of `co`, where
/// Atomicity puts it right after that store. The test that keeps it in place left out every
/// rmw whose read had ever been revisited, not only the one the revisit that deleted the write
/// revisited (`explore/maximal.rs`, `placed_before_revisit`).
#[test]
fn proxy_23018752_rmw_operand_from_a_surface_load_of_its_own_later_store() {
    explorer_equals_oracle(
        r"PTX random-proxy-23018752
{
  x = 0;
  y = 0;
  y_gen @ generic aliases y;
  x_sur @ surface aliases x;
}
 P0@cta 0,gpu 0                 | P1@cta 0,gpu 0                 | P2@cta 0,gpu 0      ;
 atom.relaxed.cta.exch r0, y, 0 | suld.weak r0, x_sur            | ld r1, y_gen        ;
                                | atom.relaxed.cta.add r1, y, r0 | ld r2, x            ;
                                | st x, r1                       | st.relaxed.cta y, 1 ;
exists (true)
",
        ModelKind::Ptx,
    );
}

/// Seed 23042403 (family assume): P3's `assume.eq 0, 1` fails in every execution, so none is
/// complete; the explorer counted 104 executions with a failed assume, the oracle 108. Without
/// P3 the explorer found 104 complete executions of the oracle's 108, with no caveat
/// ([`ptx_23042403_a_completion_fills_the_holes_the_revisited_graph_has`]).
#[test]
fn assume_23042403_counts_the_failed_assumes_the_oracle_counts() {
    let p = tcfuzz_litmus::parse(
        r"PTX random-assume-23042403
{
  y = 0;
  z = 0;
}
 P0@cta 1,gpu 0                | P1@cta 0,gpu 0             | P2@cta 0,gpu 0      | P3@cta 0,gpu 0 ;
 ld r0, y                      | ld.acquire.cta r1, z       | st.weak y, 0        | assume.eq 0, 1 ;
 atom.relaxed.cta.add r1, z, 0 | atom.relaxed.exch r2, y, 0 | st.release.cta z, 0 |                ;
exists (true)
",
    )
    .expect("parses");
    let (e, o) = explorer_and_oracle(&p, ModelKind::Ptx);
    assert_eq!((e.stats.complete, e.stats.assume_failed, e.stats.duplicates), (0, 108, Some(0)), "{e}");
    assert_eq!((o.stats.complete, o.stats.assume_failed), (0, 108), "{o}");
}

/// Seed 23042403 without its `assume` thread, and with values that tell the executions apart:
/// the explorer missed the 4 executions (one final state per `co` order, each satisfying the
/// condition) in which P0's `ld y` reads P1's `exch` write, P1's `ld.acquire z` reads P0's `add`
/// write and the `add` reads P2's `st.release z` — a verdict of Never for a condition the model
/// allows, with no caveat. P2's `st.release z` revisits the `add`'s read, deleting the `add`
/// write and leaving P2's `st.weak y` (outside its dependency prefix) a hole; the `add` write is
/// refilled at once (an rmw's write half goes first), while the hole is still open, and revisits
/// P1's `ld.acquire z`, which read the initial `z`. The maximality test asked whether that load
/// could have read the `st.release z` instead, in a completion of the events before it — and
/// found one, because the completion left the open hole unfilled: with the `st.weak y` back in
/// place, P1's `exch` reading the initial `y` contradicts the synchronization of the release and
/// the acquire, so no such graph exists and this revisit is the only way to the execution. A
/// completion now fills the holes the graph has as well as those the revisit makes
/// (`explore/maximal.rs`, `holes_left`).
#[test]
fn ptx_23042403_a_completion_fills_the_holes_the_revisited_graph_has() {
    let text = r"PTX random-assume-23042403-valued
{
  y = 0;
  z = 0;
}
 P0@cta 1,gpu 0                | P1@cta 0,gpu 0             | P2@cta 0,gpu 0      ;
 ld r0, y                      | ld.acquire.cta r1, z       | st.weak y, 2        ;
 atom.relaxed.cta.add r1, z, 5 | atom.relaxed.exch r2, y, 1 | st.release.cta z, 3 ;
exists (P0:r0 = 1 /\ P0:r1 = 3 /\ P1:r1 = 8 /\ P1:r2 = 0)
";
    explorer_equals_oracle(text, ModelKind::Ptx);
    let p = tcfuzz_litmus::parse(text).expect("parses");
    let (e, _) = explorer_and_oracle(&p, ModelKind::Ptx);
    assert_eq!((e.stats.complete, e.stats.duplicates, e.condition.positive), (108, Some(0), 4), "{e}");
    assert_eq!(e.condition.observation, tcfuzz_checker::Observation::Sometimes, "{e}");
}

/// Seed 23037432 (family tcgen05), minimized: the fix above, before it left open the holes the
/// refilled `mma` write has not come to, explored 2 of 8 executions twice. The `st`'s revisit
/// of the `mma`'s accumulator read leaves the `mma` write and the `wait::ld` holes, and the
/// refilled write revisits the `ld` while the `wait::ld` is still a hole (`explore/maximal.rs`,
/// "Holes of the graph", `may_wait`).
#[test]
fn tcgen05_23037432_a_hole_after_the_refilled_write_stays_open() {
    explorer_equals_oracle(
        r"PTX random-tcgen05-23037432-shrunk
{
  d1 @ tmem cta 0 gpu 0 lanes 32-63 cols 0-31 = 0;
  t @ tmem cta 0 gpu 0 lanes 0-127 cols 32-63 = 0;
  w @ shared cta 0 gpu 0 = 0;
}
 P1@warp 1,cta 0,gpu 0                                   ;
 tcgen05.ld.sync.aligned.32x32b.x1.b32 r0, [d1]          ;
 tcgen05.mma.cta_group::1.kind::f16 [d1], [t], [w], 1, 1 ;
 tcgen05.wait::ld.sync.aligned                           ;
 tcgen05.st.sync.aligned.32x32b.x1.b32 [d1], 0           ;
exists (true)
",
        ModelKind::Ptx,
    );
}

/// Seed 27084810 (family fenced; `tcfuzz selftest --programs 100000 --family all --seed
/// 27000000`), minimized: explorer 65 executions, oracle 69, no caveat (the full program 1,696
/// of 1,756, 16 final states missed). In the missed ones P0's `ld y` reads P1's `st y`, P1's
/// `ld x` reads P0's `st.release` (load buffering) and P1's `ld.relaxed` reads P2's store. That
/// store could not revisit the `ld.relaxed`, which read the initial `x`: the maximality test
/// found that the load "could have read" P0's store, with the `ld.acquire` after it left waiting
/// at the revisit — but there the `ld.acquire` has no source, P2's store included, and the
/// exploration drops such a graph instead of letting the read wait. Fixed: a read stays waiting
/// at the revisit only where the exploration would let it wait (`explore/maximal.rs`, "Waiting
/// holes at the revisit").
#[test]
fn fenced_27084810_a_hole_waits_at_the_revisit_only_where_the_exploration_lets_it() {
    explorer_equals_oracle(
        r"PTX random-fenced-27084810-shrunk
{
  x = 0;
  y = 0;
}
 P0@cta 0,gpu 0      | P1@cta 0,gpu 0       | P2@cta 0,gpu 0 ;
 ld r0, y            | ld r0, x             | st x, 1        ;
 st.release.cta x, 2 | ld.relaxed.cta r1, x |                ;
                     | ld.acquire.cta r2, x |                ;
                     | st y, 1              |                ;
exists (true)
",
        ModelKind::Ptx,
    );
}

/// Seed 27043822 (family tileir; `tcfuzz selftest --programs 100000 --family all --seed
/// 27000000`, the same at `9413fc9`), minimized: 228 executions, 4 of them explored twice;
/// oracle 224. P0's vector store writes `x[1]` and `x[0]`; P1's writes the element `x[0]` twice
/// (`x[0, 0]`). The `x[0]` write of P0's store revisits P0's own `ld.weak x[0]` (not
/// token-ordered before it) both from the graph where that load read the first of P1's two
/// writes and from the one where it read the second, each `co`-last there: the revisit deletes
/// both writes, and both graphs pass as a read revisited by a deleted write whose source is
/// forced (`explore/maximal.rs`). With a store of one element (`st.weak x[0], [2]`) the counts
/// agree (60). Open. (The lost-revisit caveat the verdict carried was spurious; it is no longer
/// named, as for [`ptx_60015091_explorer_explores_executions_twice`].)
#[test]
#[ignore = "open: 4 of 228 executions explored twice (a vector store writing one element twice)"]
fn tileir_27043822_a_vector_store_writing_one_element_twice() {
    explorer_equals_oracle_past(
        r"TileIR random-tile-27043822-shrunk
{
  x = [0, 0];
  f = [0];
}
P0@tlb 1, dev 0 {
  r1, <t1> = ld.acquire.device x[1];
  r3 = ld.weak x[0], <t1>;
  st.weak x[1, 0], [1, 1];
}
P1@tlb 0, dev 0 {
  r1 = ld.weak f;
  <t2> = st.weak x[0, 0], [2, 1];
  <j3> = join_tokens <t2>;
  a3 = atom.release.device.add x[1], r1, <j3>;
}
exists (true)
",
        ModelKind::TileIr,
        &[LOST_REVISIT],
    );
}

/// Program 263645 of `tcfuzz fuzz --seed 778 --config` with `explorer_vs_oracle` on every
/// program, minimized: explorer 8 executions, oracle 9, one final state and one race missed —
/// with no caveat at `9413fc9`. The `cas` class (`explore/mod.rs`, "Not explored"): P0's acquire
/// `cas` fails reading P1's plain `st y`, later on the cycle through P0's `st x`. Every graph the
/// store could revisit it from has it read an earlier write: the `exch` (it would synchronize
/// with that release and put `st x` before the `ld x` that reads it) or the initial `y` (it
/// would succeed, which the `exch` reading the initial `y` rules out). The caveat's static test
/// looked only for accesses of the location, fences, barriers and releases after the `cas`; an
/// acquire `cas` orders everything after it, and now counts (`explore/revisits.rs`,
/// `cas_before_ordering`). Missed as before, but named, and [`check_exact`] asks the oracle.
const FUZZ_778_263645: &str = r"PTX fuzz-778-263645-shrunk
{
  x = 0;
  y = 0;
}
 P0@cta 0,gpu 0                   | P1@cta 0,gpu 0              ;
 atom.acquire.cta.cas r0, y, 0, 2 | ld r0, x                    ;
 st x, 1                          | atom.release.exch r1, y, r0 ;
                                  | ld r2, y                    ;
                                  | add r3, r1, 0               ;
                                  | st y, r2                    ;
exists (true)
";

#[test]
fn fuzz_778_263645_an_acquire_cas_failing_on_a_cycle_is_named() {
    gap_is_named_and_exact_asks_the_oracle(FUZZ_778_263645, (8, 9, 1), CAS_ON_A_CYCLE);
}

/// Program 275549 of the same campaign, minimized: 39 executions, 3 of them explored twice; 36
/// distinct, the oracle's. Within the rmw-hole caveat; at `9413fc9` the explorer found 33, the 3
/// missing ones named by that caveat. Filling the graph's own holes in the maximality test
/// (`explore/maximal.rs`, "Holes of the graph") reaches them, twice: P0's refilled `exch z`
/// write revisits P1's `exch z` read from two graphs that differ only in where P1's `exch z`
/// write (deleted by the revisit) sits in `co` against P2's `st.weak z`. In the one with it
/// last, P2's `ld.acquire x` is still a hole; filled, it reads P1's release `exch x` and orders
/// P1's `z` write before the store — but that graph makes the revisit before it is filled. The
/// test of "Holes open at a refilled write half" (`OpenAtRefill::may_stay_open`) judges whether
/// the `exch z` write was kept by the revisit that opened the hole by thread order, while it was
/// added before the revisited read (stamps 9 and 10). Closed with `ptx` 68006661
/// (`ptx::a_deleted_write_after_a_refilled_reads_source_is_explored_once`): the test held no hole
/// open for a deleted write placed right after the refilled read's source, P1's `exch z` write
/// after P0's here.
#[test]
fn fuzz_778_275549_a_hole_held_open_at_a_refilled_write_half() {
    explorer_equals_oracle_past(
        r"PTX fuzz-778-275549-shrunk
{
  x = 0;
  z = 0;
}
 P0@cta 0,gpu 0         | P1@cta 0,gpu 0                 | P2@cta 0,gpu 0       ;
 ld r1, x               | atom.relaxed.cta.exch r0, z, 0 | L0:                  ;
 atom.cta.exch r2, z, 0 | atom.release.cta.exch r2, x, 1 | ld.relaxed.cta r0, x ;
                        |                                | bne r0, 1, L0        ;
                        |                                | ld.acquire.cta r1, x ;
                        |                                | st.weak z, 0         ;
exists (true)
",
        ModelKind::Ptx,
        &[RMW_HOLE],
    );
}

/// Program 16812 of `tcfuzz fuzz --seed 779` with `explorer_vs_oracle` on every program (a
/// coverage-guided mutant), minimized: 30 executions, one of them explored twice, so one of the
/// oracle's 30 is missed (every final state found); the same at `9413fc9`. Within the rmw-hole
/// caveat (P0's and P1's `add`s of `x` around `fence.acq_rel`s). Not diagnosed.
#[test]
#[ignore = "open: 1 of 30 executions explored twice and one missed, within the rmw-hole caveat"]
fn fuzz_779_16812_adds_around_acq_rel_fences() {
    explorer_equals_oracle_past(
        r"PTX coverage-779-16812-shrunk
{
  x = 0;
  y = 0;
}
 P0@cta 0,gpu 0                | P1@cta 0,gpu 0        | P2@cta 0,gpu 0       ;
 st y, 0                       | atom.cta.add r1, x, 0 | ld r0, y             ;
 fence.acq_rel.cta             | fence.acq_rel.cta     | st.relaxed.cta x, r0 ;
 atom.relaxed.cta.add r0, x, 0 | st y, 0               |                      ;
exists (true)
",
        ModelKind::Ptx,
        &[RMW_HOLE],
    );
}

/// Program 35063193 of `tcfuzz selftest --programs 100000 --family all --seed 35000000` (family
/// assume), minimized: explorer 44 executions, oracle 48, and until the head of 2026-11-27 with
/// no caveat — the only disagreement of that run. P0's `exch` must revisit P2's `ld x` from the
/// graph in which P1's `add` reads P2's `st x` (which P2's `st x` made by revisiting it) and
/// P0's `ld y` a `st y` of P1. That revisit keeps the `add`'s read (before the kept `st y`s) and
/// deletes its write and P2's `st x`; the maximality test rejects it, a kept read reading a
/// deleted write, for the graph in which the `add` read something else. There is none: before
/// P2's `st x` came the `add` read the initial `x`, which P0's `exch` reads — two rmws cannot
/// read one write. A gap of the rmw-hole class, entered without the rmw's read being a hole, so
/// the exploration never met what the caveat waited for; it now is met there too
/// (`explore/maximal.rs`, `rmw_write_hole_left`). Not closed: the executions are still missed.
const ASSUME_35063193: &str = r"PTX random-assume-35063193-shrunk
{
  x = 0;
  y = 0;
}
 P0@cta 0,gpu 0             | P1@cta 0,gpu 0                | P2@cta 0,gpu 0 ;
 ld r0, y                   | atom.acquire.cta.add r0, x, 1 | ld r0, x       ;
 assume.gt r0, 0            | st.weak y, 2                  | st x, r0       ;
 atom.release.exch r1, x, 1 | st.weak y, 1                  |                ;
exists (true)
";

#[test]
#[ignore = "open: the explorer misses 4 of 48 executions (named by the rmw-hole caveat)"]
fn assume_35063193_an_rmw_read_kept_with_its_write_a_hole_reads_a_deleted_write() {
    explorer_equals_oracle_past(ASSUME_35063193, ModelKind::Ptx, &[RMW_HOLE]);
}

/// While [`assume_35063193_an_rmw_read_kept_with_its_write_a_hole_reads_a_deleted_write`] is
/// open: the rmw-hole caveat names it, and [`check_exact`] answers with the oracle's executions.
#[test]
fn assume_35063193_is_named_and_exact_asks_the_oracle() {
    gap_is_named_and_exact_asks_the_oracle(ASSUME_35063193, (44, 48, 4), RMW_HOLE);
}

/// Program 45006525 of `tcfuzz selftest --programs 60000 --seed 45000000` (family assume),
/// minimized. Was: explorer 6 complete executions, oracle 8, **with no caveat** — a silent miss,
/// there at `34f1d73` too; the only disagreement of that run. The missed graphs (one per `co`
/// order of `z`): P0's `ld z` reads P2's `add` write, whose read reads P3's `st z`, and P3's
/// `ld.acquire x` reads P0's `st.release x`, P1 reading the initial `x`. The one way there is
/// the `add` write revisiting P0's `ld z` from the graph in which P3's `st z` revisited the
/// `add`'s read, leaving P3's `ld.acquire x` a hole (revisits 5 and 6 of `tcfuzz trace
/// --revisits`). The maximality test refused it: P0's `ld z` "could have read" P3's `st z`, with
/// the hole left open (`OpenAtRefill::may_stay_open`: a hole of a later thread than the `add`).
/// No graph the exploration reaches is that one: for the `ld z` to read the `st z`, the `st z`
/// must revisit it (revisit 4), which deletes P2's events; `next` refills the hole before P2
/// comes back, and refilled it rules the graph out. Fixed: where `e` takes the rmw read's
/// source itself, no hole is held open (`explore/maximal.rs`, `may_stay_open`). The second
/// program is the same selftest program minimized once that was fixed (P2 reads `z` before its
/// `add`): 21 of 22 executions before the rule took that shape too.
#[test]
fn assume_45006525_a_hole_held_open_where_no_graph_holds_it() {
    explorer_equals_oracle(
        r"PTX random-assume-45006525-shrunk
{
  x = 0;
  z = 0;
}
 P0@cta 1,gpu 0      | P1@cta 1,gpu 0  | P2@cta 1,gpu 0                | P3@cta 1,gpu 0       ;
 ld r0, z            | ld r0, x        | atom.relaxed.cta.add r2, z, 0 | ld.relaxed.cta r0, x ;
 st.release.cta x, 2 | assume.ne r0, 2 |                               | assume.ne r0, 0      ;
                     |                 |                               | ld.acquire.cta r1, x ;
                     |                 |                               | st z, 1              ;
exists (true)
",
        ModelKind::Ptx,
    );
    explorer_equals_oracle(
        r"PTX random-assume-45006525-shrunk-2
{
  x = 0;
  z = 0;
}
 P0@cta 1,gpu 0      | P1@cta 1,gpu 0  | P2@cta 1,gpu 0                | P3@cta 1,gpu 0       ;
 ld r0, z            | ld r0, x        | ld r0, z                      | ld.relaxed.cta r0, x ;
 st.release.cta x, 2 | assume.ne r0, 2 | atom.relaxed.cta.add r2, z, 0 | assume.ne r0, 0      ;
                     |                 |                               | ld.acquire.cta r1, x ;
                     |                 |                               | st z, 1              ;
exists (true)
",
        ModelKind::Ptx,
    );
}

/// Program 49066100 of `tcfuzz selftest --programs 100000 --seed 49000000 -j 1` (family proxy;
/// too large for the oracle there: 240 duplicates), minimized by `tcfuzz minimize --kind
/// explorer-vs-oracle` and then by hand. Was: 167 executions, 3 of them explored twice; 164
/// distinct, the oracle's (within the rmw-hole caveat; the same at `34f1d73`). Needed: the two
/// stores through the generic alias with `fence.proxy.alias` between them (plain `x`, or no
/// fence: no duplicates), P0's `ld` ahead of its `add`, and P1's `add`.
///
/// P0's `add` write revisited P1's `add` read (revisits 212 and 217 of `tcfuzz trace
/// --revisits --oracle`) from two graphs in which P1's `fence.proxy.alias` was a hole (deleted
/// by a revisit of P0's `add` read by P1's last store), differing only in where P1's `add`
/// write sat in `co` against that store: before it, as coherence requires once the fence is
/// back (one location through two aliases, ordered by the fence), or after it, `co`-latest —
/// coherent only while the fence is a hole. The revisit deletes the `add` write, and the two
/// became one graph; both passed the maximality test, the second as `co`-latest. Fixed: a
/// deleted write `co`-latest only while a hole of its thread is open, where that place cannot
/// be completed and an earlier one can, does not qualify (`explore/maximal.rs`, "Latest only
/// while a hole is open").
#[test]
fn proxy_49066100_an_rmw_write_latest_only_while_a_fence_is_a_hole() {
    explorer_equals_oracle_past(
        r"PTX random-proxy-49066100-shrunk
{
  x = 0;
  x_gen @ generic aliases x;
}
 P0@cta 0,gpu 0    | P1@cta 0,gpu 0    ;
 ld r0, x          | atom.add r0, x, 1 ;
 atom.add r1, x, 2 | st x_gen, 3       ;
                   | fence.proxy.alias ;
                   | st x_gen, 4       ;
exists (true)
",
        ModelKind::Ptx,
        &[RMW_HOLE],
    );
}

/// Program 50034193 of `tcfuzz selftest --seed 50000000` (family proxy), minimized: the rule
/// of [`proxy_49066100_an_rmw_write_latest_only_while_a_fence_is_a_hole`] as first written
/// panicked here (explorer 72 executions, oracle 72): P2's `sust.weak y_sur`, `co`-after its
/// thread's `st.weak y` with the `fence.proxy.surface` between them a hole, had its own place
/// not completable and only the initial write before it to try; asking the model whether a
/// write may follow the initial one looked up an event that does not exist.
#[test]
fn proxy_50034193_a_deleted_write_may_go_right_after_the_initial_one() {
    explorer_equals_oracle(
        r"PTX random-proxy-50034193-shrunk
{
  x = 0;
  y = 0;
  x_gen @ generic aliases x;
  y_sur @ surface aliases y;
}
 P0@cta 0,gpu 0 | P1@cta 0,gpu 0            | P2@cta 0,gpu 0      | P3@cta 0,gpu 0 ;
 ld r0, y       | atom.relaxed.add r1, y, 0 | sust.weak y_sur, 0  | ld r0, x       ;
                |                           | fence.proxy.surface | st x_gen, 0    ;
                |                           | st.weak y, 0        |                ;
exists (true)
",
        ModelKind::Ptx,
    );
}

/// Seed 66048245 (family assume; `tcfuzz selftest --programs 120000 --family assume --seed
/// 66000000 -j 1`), minimized by `tcfuzz minimize --kind explorer-vs-oracle` (13 → 8
/// instructions): no complete execution; at the loop bound of `check` (2) the explorer explores
/// 3 of its 142 executions with a failed `assume` twice (the oracle counts 149 distinct ones) and
/// misses 26 of the oracle's 351 blocked ones. The verdict carries the `cas`-class and rmw-hole
/// caveats, which cover the missed executions but not the duplicates. Present at `10143e5` too.
/// Not diagnosed: `trace` lists complete and blocked executions, and those are distinct.
#[test]
#[ignore = "open: 3 executions with a failed assume explored twice"]
fn assume_66048245_explorer_explores_failed_assumes_twice() {
    explored_once_with_the_oracles_counts(
        r"PTX random-assume-66048245-shrunk
{
  y = 0;
  z = 0;
}
 P0@cta 0,gpu 0 | P1@cta 0,gpu 0             | P2@cta 0,gpu 0                   ;
 L0:            | ld r0, z                   | atom.cas r1, y, 0, 0             ;
 ld r0, y       | st.weak y, 2               | atom.relaxed.cta.cas r2, y, 0, 0 ;
 bne r0, 1, L0  | atom.relaxed.exch r1, y, 1 |                                  ;
 assume.lt 0, 0 |                            |                                  ;
exists (true)
",
    );
}

/// No execution of `text` explored twice under PTX, and the oracle's complete, blocked and
/// failed-`assume` counts.
fn explored_once_with_the_oracles_counts(text: &str) {
    let p = tcfuzz_litmus::parse(text).expect("parses");
    let (e, o) = explorer_and_oracle(&p, ModelKind::Ptx);
    assert_eq!(e.stats.duplicates, Some(0), "explorer duplicates\n{e}");
    let counts = |v: &tcfuzz_checker::Verdict| (v.stats.complete, v.stats.blocked, v.stats.assume_failed);
    assert_eq!(counts(&e), counts(&o), "explorer:\n{e}\noracle:\n{o}");
}

/// Seed 71123294 (family assume; `tcfuzz selftest --programs 300000 --family all --seed
/// 71000000 -j 1`, the one disagreement of 300,000 programs), minimized by `tcfuzz minimize
/// --kind explorer-vs-oracle` (15 → 11 instructions, no `assume` left): the explorer explores
/// 48 of its 9,808 executions twice and misses 32 of the oracle's 9,792 (the rmw-hole caveat
/// covers the misses, not the duplicates). The duplicates reach P2's `exch` reading P1's
/// `st.weak y` through two revisit paths: P1's store revisiting P0's `exch` read and P2's
/// `exch` write then revisiting it again, and P1's store revisiting P2's `exch` read directly,
/// each leaving rmw halves holes (`trace --revisits`: executions 8739 and 8803). Not diagnosed
/// further.
#[test]
#[ignore = "open: 48 executions explored twice, within the rmw-hole caveat"]
fn assume_71123294_explorer_explores_executions_twice() {
    explored_once_with_the_oracles_counts(
        r"PTX random-assume-71123294-shrunk
{
  x = 0;
  y = 0;
}
 P0@cta 0,gpu 0                 | P1@cta 0,gpu 0 | P2@cta 0,gpu 0             ;
 ld r0, y                       | ld r0, x       | atom.relaxed.exch r0, y, 0 ;
 st x, 0                        | st.weak y, r0  | fence.acq_rel.cta          ;
 atom.release.cta.exch r1, y, 0 | st x, 0        | ld r1, x                   ;
 st x, 0                        |                | st x, 0                    ;
exists (true)
",
    );
}
