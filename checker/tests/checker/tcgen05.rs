//! tcgen05, TMEM and the async proxy (PTX ISA §9.7.16.5–6; DESIGN §3.3): the explorer against
//! the oracle on every `examples/tcgen05` program, and the single-step mutant table — for every
//! correct example, each program obtained by removing one synchronization step or weakening one,
//! with the verdict the spec implies and the sentence that says so.

use std::collections::BTreeSet;
use std::path::PathBuf;

use tcfuzz_checker::{ModelKind, Options, Verdict, check, check_oracle};
use tcfuzz_litmus::{Barrier, Instr, Mbarrier, Program, Sem, StmtKind, Tcgen05};

/// Programs on which the explorer's load-buffering caveat applied.
static GAPS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

fn examples() -> Vec<(String, String)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../examples/tcgen05");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir).into_iter().flatten().flatten().map(|e| e.path()).collect();
    files.retain(|p| p.extension().is_some_and(|e| e == "litmus"));
    files.sort();
    files
        .into_iter()
        .map(|p| {
            let name = p.file_stem().unwrap_or_default().to_string_lossy().to_string();
            (name, std::fs::read_to_string(&p).unwrap_or_default())
        })
        .collect()
}

/// What a verdict says about synchronization: the race kinds, whether it may hang, the misuse.
fn summary(v: &Verdict) -> String {
    let races: BTreeSet<&str> = v.races.iter().map(|r| r.kind.name()).collect();
    let mut parts: Vec<String> = races.iter().map(|k| format!("{k} race")).collect();
    if v.stats.hangs > 0 {
        parts.push("hang".into());
    }
    parts.extend(v.misuse.iter().map(|m| m.rule.name().to_string()).collect::<BTreeSet<_>>());
    if parts.is_empty() { "correct".into() } else { parts.join(", ") }
}

/// The explorer's verdict, after checking it against the oracle's. Where the explorer says it
/// does not explore some load-buffering executions (its caveat), its executions must be a subset
/// of the oracle's, with the same races and misuse, and [`GAPS`] counts the programs.
fn agree(p: &Program, what: &str) -> Verdict {
    let opts = Options { detect_duplicates: true, ..Options::default() };
    let e = check(p, ModelKind::Ptx, &opts).unwrap_or_else(|e| panic!("{what}: explorer: {e}"));
    let o = check_oracle(p, ModelKind::Ptx, &opts).unwrap_or_else(|e| panic!("{what}: oracle: {e}"));
    assert_eq!(e.stats.duplicates, Some(0), "{what}: duplicates");
    if e.states != o.states && !e.caveats.is_empty() {
        let full = o.observed_states();
        for (s, n) in e.observed_states() {
            assert!(full.get(&s).is_some_and(|&m| m >= n), "{what}: explorer state {s:?} not in the oracle's\n{e}\n{o}");
        }
        assert_eq!(e.races, o.races, "{what}: races");
        assert_eq!(e.misuse, o.misuse, "{what}: misuse");
        println!("  {what}: load-buffering executions not explored (caveat): {} of {}", e.stats.complete, o.stats.complete);
        GAPS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        return e;
    }
    assert_eq!(e.states, o.states, "{what}: final states\nexplorer:\n{e}\noracle:\n{o}");
    assert_eq!((e.stats.complete, e.stats.blocked, e.stats.hangs), (o.stats.complete, o.stats.blocked, o.stats.hangs), "{what}: counts");
    assert_eq!(e.races, o.races, "{what}: races");
    assert_eq!(e.misuse, o.misuse, "{what}: misuse");
    assert_eq!(e.hung_threads, o.hung_threads, "{what}: hangs");
    e
}

#[test]
fn explorer_matches_oracle_on_tcgen05_examples() {
    let all = examples();
    assert!(all.len() >= 30, "examples/tcgen05 not found or incomplete");
    for (name, src) in &all {
        let p = tcfuzz_litmus::parse(src).unwrap_or_else(|e| panic!("{name}: {e}"));
        let v = agree(&p, name);
        assert!(v.caveats.is_empty(), "{name}: {:?}", v.caveats);
    }
}

/// `tcgen05.ld` then `tcgen05.st` of the same TMEM columns with no `wait::ld` between (pattern 5
/// without its wait): the ld's perform is asynchronous, so it may read the st's value — a write
/// of a later instruction of its own thread. The explorer reaches that execution (the st revisits
/// the ld's read; nothing in its dependency prefix keeps the ld before it) with no caveat.
#[test]
fn async_ld_may_read_a_later_st_of_its_thread() {
    let (_, src) = examples().into_iter().find(|(n, _)| n == "pattern5-antidep-ld-waitld-st").expect("example");
    let src: String = src.lines().filter(|l| !l.contains("wait::ld")).map(|l| format!("{l}\n")).collect();
    let p = tcfuzz_litmus::parse(&src).expect("parses");
    let v = agree(&p, "pattern 5 without wait::ld");
    assert!(v.caveats.is_empty(), "{v}");
    let r1: BTreeSet<i64> = v.observed_states().keys().filter_map(|s| s.iter().find(|(k, _)| k == "P0:r1").map(|(_, x)| *x)).collect();
    assert_eq!(r1, BTreeSet::from([5, 7]), "{v}");
    assert_eq!(summary(&v), "tmem race");
}

/// Issue 26 item 3: `fence.proxy.async` is no tcgen05 thread-sync fence. An asynchronous tcgen05
/// operation is ordered after the earlier operations of its thread only through
/// `tcgen05.fence::after_thread_sync` (§9.7.16.6.3; §9.7.16.6.4.2 ex. 2: "As tcgen05.ld is an
/// asynchronous operation, the instruction tcgen05.fence::after_thread_sync is needed"); a proxy
/// fence orders generic against async-proxy accesses of memory (§9.7.16.6.5), nothing about
/// Tensor Memory or issue order. Each example with its (first) `after_thread_sync` replaced by
/// `fence.proxy.async` races.
#[test]
fn a_proxy_fence_does_not_order_an_async_tcgen05_operation() {
    let cases = [
        // mma; commit; try_wait loop; fence.proxy.async; ld — one thread, then two.
        ("pattern2-ex2-mma-commit-trywait-ld", "tmem race"),
        ("pattern4-ex2-mma-commit-trywait-fence-ld", "tmem race"),
        // A generic store, proxy fence and release arrive | acquire wait; fence.proxy.async; mma.
        ("smem-generic-st-proxy-fence-other-thread-mma", "proxy race"),
        // One thread: st; fence.proxy.async; (after_thread_sync removed) mma.
        ("smem-generic-st-proxy-fence-mma", "proxy race"),
    ];
    let all = examples();
    for (name, race) in cases {
        let (_, src) = all.iter().find(|(n, _)| n == name).unwrap_or_else(|| panic!("example {name}"));
        // The first `after_thread_sync` of the code (not of the header comments); where the
        // thread has its proxy fence already, the fence goes instead of doubling it.
        let mut done = false;
        let doubled = name == "smem-generic-st-proxy-fence-mma";
        let fenced: String = src
            .lines()
            .filter_map(|l| {
                if done || l.starts_with("//") || !l.contains("tcgen05.fence::after_thread_sync") {
                    return Some(format!("{l}\n"));
                }
                done = true;
                (!doubled).then(|| format!("{}\n", l.replacen("tcgen05.fence::after_thread_sync", "fence.proxy.async.shared::cta", 1)))
            })
            .collect();
        assert_ne!(&fenced, src, "{name}");
        let p = tcfuzz_litmus::parse(&fenced).unwrap_or_else(|e| panic!("{name}: {e}"));
        let v = agree(&p, name);
        assert_eq!(summary(&v), race, "{name} with fence.proxy.async for fence::after_thread_sync\n{v}");
        assert_eq!(summary(&agree(&tcfuzz_litmus::parse(src).expect("parses"), name)), "correct", "{name} as written");
    }
}

/// Issue 26 items 5 and 6: an `mma` whose enable-input-d is a register. Whether it reads the
/// accumulator used to move its thread's later events, so they needed the reads the flag comes
/// from, and the explorer could not reach the load-buffering execution in which P0's load of
/// `e` sees P1's store, which follows P1's wait on the commit's arrive (the oracle's `d = 9`:
/// the mma accumulated) — with no caveat (explorer 1, oracle 2). The flag now decides only
/// whether the mma's accumulator slot is a read or a skip, and the explorer finds both.
#[test]
fn load_buffering_through_an_mma_register_flag_is_explored() {
    let p = tcfuzz_litmus::parse(
        "PTX mma-register-flag
{
  d @ tmem cta 0 gpu 0 lanes 0-31 cols 0-31 = 7;
  a @ shared cta 0 gpu 0 = 1;
  b @ shared cta 0 gpu 0 = 2;
  e @ shared cta 0 gpu 0 = 0;
  bar @ mbarrier cta 0 gpu 0 count 1;
}
P0@warp 0,cta 0,gpu 0 {
  ld.relaxed.cta.shared::cta.b32 r0, [e];
  tcgen05.mma.cta_group::1.kind::f16 [d], [a], [b], 1, r0;
  tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [bar];
}
P1@warp 1,cta 0,gpu 0 {
  await mbarrier.try_wait.parity.relaxed.cluster.shared::cta.b64 p, [bar], 0;
  st.relaxed.cta.shared::cta.b32 [e], 1;
}
exists (d == 9)
",
    )
    .expect("parses");
    let e = agree(&p, "mma-register-flag");
    assert_eq!((e.stats.complete, e.condition.validated), (2, true), "{e}");
    assert!(e.caveats.is_empty(), "{:?}", e.caveats);
}

/// A commit's arrive that must read an `mbarrier.arrive` of another thread added after it (the
/// revisit that made it read that arrive is undone by a later one, which deletes both): a
/// chained read of the maximality test, which counted only rmws on ordinary memory and lost the
/// two executions in which P1 runs first (`selftest` seed 475705: explorer 5, oracle 7).
#[test]
fn chained_reads_count_mbarrier_and_commit_arrives() {
    let p = tcfuzz_litmus::parse(
        "PTX chained-arrives
{
  t @ tmem cta 0 gpu 0 lanes 0-127 cols 32-63 = 0;
  bar @ mbarrier cta 0 gpu 0 count 1;
}
P0@cta 0,gpu 0 {
  tcgen05.shift.cta_group::1.down [t];
  tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [bar];
}
P1@cta 0,gpu 0 {
  mbarrier.arrive.relaxed.cta.shared::cta.b64 st, [bar];
  tcgen05.fence::after_thread_sync;
  tcgen05.shift.cta_group::1.down [t];
}
exists (true)
",
    )
    .expect("parses");
    let e = agree(&p, "chained-arrives");
    assert_eq!(e.stats.complete, 7, "{e}");
    assert!(e.caveats.is_empty(), "{:?}", e.caveats);
}

/// The maximality test's completions fill an `mma`'s events in order: its accumulator slot (and
/// only that event, not the read of `b`) is a read or a skip as the register flag says, filled
/// once the mma's operand reads are there. Filled before them, the slot made a partial
/// instruction the tcgen05 model rejects, no completion was found where one exists, and two
/// graphs revisited into the same one (`selftest` seed 450517: explorer 32 with 4 duplicates,
/// oracle 28). 12 executions since the arrives on one mbarrier are atomic whatever their scopes
/// (`Label::object`): the 16 others lost P1's `.cta` arrive on `bar1` or P0's remote commit
/// arrive, which is no execution.
#[test]
fn completions_fill_an_mma_accumulator_slot_after_its_operand_reads() {
    let p = tcfuzz_litmus::parse(
        "PTX mma-slot-in-completions
{
  d1 @ tmem cta 1 gpu 0 lanes 32-63 cols 0-31 = 0;
  t @ tmem cta 0 gpu 0 lanes 0-127 cols 32-63 = 1;
  w @ shared cta 0 gpu 0 = 1;
  bar @ mbarrier cta 0 gpu 0 count 1;
  bar1 @ mbarrier cta 1 gpu 0 count 1;
  e = 0;
}
P0@cta 0,cluster 0,gpu 0 {
  st e, 1;
  tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64 [bar], 3;
}
P1@cta 1,cluster 0,gpu 0 {
  mbarrier.arrive.relaxed.cta.shared::cta.b64 st, [bar1];
  ld f1, e;
  tcgen05.mma.cta_group::2.kind::f16 [d1], [t], [w], 1, f1;
  tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64 [bar1], 3;
}
exists (true)
",
    )
    .expect("parses");
    let e = agree(&p, "mma-slot-in-completions");
    assert_eq!(e.stats.complete, 12, "{e}");
    assert!(e.caveats.is_empty(), "{:?}", e.caveats);
}

/// A short name for a synchronization step: the operation and its object.
fn short(i: &Instr) -> String {
    match i {
        Instr::Tcgen05(Tcgen05::Fence { after: false }) => "fence::before_thread_sync".into(),
        Instr::Tcgen05(Tcgen05::Fence { after: true }) => "fence::after_thread_sync".into(),
        Instr::Tcgen05(Tcgen05::Wait { st: false }) => "wait::ld".into(),
        Instr::Tcgen05(Tcgen05::Wait { st: true }) => "wait::st".into(),
        Instr::Tcgen05(Tcgen05::Commit { mbar, .. }) => format!("commit [{}]", mbar.name),
        Instr::Tcgen05(Tcgen05::Dealloc { .. }) => "dealloc".into(),
        Instr::Tcgen05(Tcgen05::RelinquishAllocPermit { .. }) => "relinquish_alloc_permit".into(),
        Instr::Fence(tcfuzz_litmus::Fence::ProxyAsync(_)) => "fence.proxy.async".into(),
        Instr::Mbarrier(Mbarrier::Arrive(a)) => format!("mbarrier.arrive [{}]", a.addr.name),
        Instr::Mbarrier(Mbarrier::Wait(w)) => format!("mbarrier.try_wait [{}]", w.addr.name),
        Instr::Barrier(Barrier::ClusterArrive { .. }) => "barrier.cluster.arrive".into(),
        Instr::Barrier(Barrier::ClusterWait { .. }) => "barrier.cluster.wait".into(),
        other => other.to_string(),
    }
}

/// The synchronization steps of a program, and for each a mutant without it (or with it
/// weakened): `(step, mutant)`, the step written `P1: remove fence::after_thread_sync #2` (the
/// second such step of P1) or `P0: weaken mbarrier.arrive [bar]`.
fn mutants(p: &Program) -> Vec<(String, Program)> {
    let mut out = Vec::new();
    for (ti, t) in p.threads.iter().enumerate() {
        let mut seen: Vec<String> = Vec::new();
        for (si, s) in t.body.iter().enumerate() {
            let StmtKind::Instr(i) = &s.kind else { continue };
            let step = matches!(
                i,
                Instr::Tcgen05(
                    Tcgen05::Fence { .. }
                        | Tcgen05::Wait { .. }
                        | Tcgen05::Commit { .. }
                        | Tcgen05::Dealloc { .. }
                        | Tcgen05::RelinquishAllocPermit { .. }
                ) | Instr::Fence(tcfuzz_litmus::Fence::ProxyAsync(_))
                    | Instr::Mbarrier(Mbarrier::Arrive(_) | Mbarrier::Wait(_))
                    | Instr::Barrier(Barrier::ClusterArrive { .. } | Barrier::ClusterWait { .. })
            );
            if !step {
                continue;
            }
            let name = short(i);
            seen.push(name.clone());
            let n = seen.iter().filter(|x| **x == name).count();
            let name = if n > 1 { format!("{name} #{n}") } else { name };
            let mut m = p.clone();
            m.threads[ti].body.remove(si);
            out.push((format!("{}: remove {name}", t.name), m));
            // Weaken a release arrive or an acquire wait to relaxed.
            let mut weaker = i.clone();
            let weakened = match &mut weaker {
                Instr::Mbarrier(Mbarrier::Arrive(a)) if a.sem != Some(Sem::Relaxed) => {
                    a.sem = Some(Sem::Relaxed);
                    true
                }
                Instr::Mbarrier(Mbarrier::Wait(w)) if w.sem != Some(Sem::Relaxed) => {
                    w.sem = Some(Sem::Relaxed);
                    true
                }
                Instr::Barrier(Barrier::ClusterArrive { sem, .. }) if *sem != Some(Sem::Relaxed) => {
                    *sem = Some(Sem::Relaxed);
                    true
                }
                _ => false,
            };
            if weakened {
                let mut m = p.clone();
                m.threads[ti].body[si].kind = StmtKind::Instr(weaker);
                out.push((format!("{}: weaken {name}", t.name), m));
            }
        }
    }
    out
}

// Why each mutant gets its verdict: the spec sentence (PTX ISA, `../shared/spec/000`–`002`;
// DESIGN §3.3 where it makes the spec's rule precise).
const COMMIT_ARRIVES: &str = "§9.7.16.6.2.1.1: 'tcgen05.commit is used to track the completion' — the mbarrier's phase completes only by the commit's arrive, so the try_wait loop never succeeds";
const ARRIVE_COMPLETES: &str =
    "§9.7.16.6.4.3/4: the consumer loops on try_wait 'till success'; without the producer's arrive the phase never completes";
const CLUSTER_ARRIVE: &str = "§9.7.13.3 barrier.cluster: the wait needs every thread of the cluster to arrive";
const RENDEZVOUS: &str = "§9.7.16.5 Table 46: a cta_group::2 dealloc is issued 'from two warps, one in each of the current CTA and its Peer CTA'; the first 'could block until the second warp in the Peer CTA also performs the operation' — without the peer's it may block forever";
const WAIT_FOR_COMPLETION: &str = "§9.7.16.6.4.2/4: the consumer must observe the completion (the commit's or producer's arrive) before its tcgen05 operation; without the try_wait nothing orders the two TMEM accesses";
const AFTER_FENCE: &str = "§9.7.16.6.3: 'An asynchronous tcgen05 operation subsequent to a tcgen05.fence::after_thread_sync is ordered after all the prior ... execution ordering operations'; without the fence the async operation is not ordered after the wait";
const BEFORE_FENCE: &str = "§9.7.16.6.3: 'An asynchronous tcgen05 operation prior to a tcgen05.fence::before_thread_sync is ordered before all subsequent ... execution ordering operations'; without it the arrive carries no tcgen05 ordering (DESIGN §3.3 rule 3)";
const WAIT_ST: &str =
    "§9.7.16.6.4.2 example 1: 'tcgen05.wait::st is used to wait for the completion of the prior asynchronous instruction tcgen05.st'";
const WAIT_LD: &str = "§9.7.16.6.4.4/5: 'the producer threads ... must explicitly wait for the instructions' completion'; 'avoiding anti-dependency hazards around tcgen05.ld, tcgen05.wait::ld must be used'";
const PROXY_FENCE: &str = "§9.7.16.6.5: mma reads shared memory in the async proxy; 'fence.proxy.async should be used to synchronize memory between generic proxy and the async proxy'";
const RELEASE_ARRIVE: &str = "§9.7.16.6.5 + PTX ISA §8.8: the generic store reaches the other thread's async read only through a release/acquire pattern; a relaxed arrive releases nothing";
const ACQUIRE_WAIT: &str =
    "§9.7.16.6.5 + PTX ISA §8.8: without an acquire wait observing the release arrive, the store and the mma's async read are unordered";
const AFTER_FENCE_PROXY: &str = "§9.7.16.6.3: the mma is ordered after the acquire wait only through tcgen05.fence::after_thread_sync, so the generic store and its async read are unordered";
const AFTER_FENCE_SAME_THREAD: &str = "§9.7.16.6.3 + §9.7.16.6.4.2 example 2: the mma is asynchronous, so only tcgen05.fence::after_thread_sync orders it after the generic store of its own thread; fence.proxy.async orders the proxies of accesses already ordered (§9.7.16.6.5), not issue order";
const TRAILING_WAIT: &str =
    "the removed wait was the thread's last step: no later access conflicts with the operation it waited for, so nothing is left unordered";
const RELINQUISH_OPTIONAL: &str =
    "§9.7.16.7.1: relinquish_alloc_permit only forbids later allocation; the program allocates nothing after it";
const NO_TMEM_ACCESS: &str = "§9.7.16.5 Table 47: 'it suffices to ensure that there are no concurrent Tensor Memory accesses from the Peer CTA' — there are none, and both deallocs still meet";
const COMPLETION_OBSERVED: &str = "§9.7.16.6.2.1.1: the mma's completion 'is observed through the mbarrier based waiting mechanism'; without the try_wait nothing orders its async read of the buffer before the store that refills it";
const PEER_ACTIVE: &str = "§9.7.16.5 Table 46: for a cta_group::2 mma or commit 'the peer CTA should be active and should not have exited' — the wait was the only thing keeping the peer CTA's thread alive until the commit's arrive";
const REFILL_WAIT: &str = "§9.7.16.6.2.1.1: the producer learns that the mma's read of the stage completed only through the commit's arrive; without waiting for it, the bulk copy (async proxy, like the mma's read) may overwrite the stage first";
const RELAXED_OBSERVATION: &str = "§9.7.16.6.4.2 example 2 observes a commit's completion with mbarrier.try_wait.relaxed: a morally strong read of the arrive observes it (DESIGN §3.3 counts relaxed operations), and the refill is issued after that read";
const NO_CONSUMER: &str =
    "no thread waits on `full` in this program: the expect_tx arrive only prepares the consumer's phase, nothing depends on it";
const DEALLOC_BEFORE_EXIT: &str = "§9.7.16.7.1 (DESIGN §3.3): 'exit with live columns is misuse'";

/// `(example, mutation, verdict, why)` for every single-step mutant of every correct
/// `examples/tcgen05` program (race-free, no hang, no misuse). Verdicts: `correct`, `tmem race`,
/// `proxy race`, `hang` (possible), or a misuse rule.
const MUTANTS: &[(&str, &str, &str, &str)] = &[
    ("commit-multicast-two-ctas", "P0: remove commit [empty0]", "hang", COMMIT_ARRIVES),
    ("commit-multicast-two-ctas", "P1: remove mbarrier.try_wait [empty1]", "peer-cta-exited", PEER_ACTIVE),
    ("commit-multicast-two-ctas", "P2: remove mbarrier.try_wait [empty0]", "tmem race", WAIT_FOR_COMPLETION),
    ("commit-multicast-two-ctas", "P2: remove fence::after_thread_sync", "tmem race", AFTER_FENCE),
    ("commit-multicast-two-ctas", "P2: remove wait::ld", "correct", TRAILING_WAIT),
    ("alloc-relinquish-dealloc", "P0: remove relinquish_alloc_permit", "correct", RELINQUISH_OPTIONAL),
    ("alloc-relinquish-dealloc", "P0: remove dealloc", "exit-with-live-columns", DEALLOC_BEFORE_EXIT),
    ("pattern1-mma-mma-pipelined", "P0: remove commit [done]", "hang", COMMIT_ARRIVES),
    ("pattern1-mma-mma-pipelined", "P0: remove mbarrier.try_wait [done]", "tmem race", WAIT_FOR_COMPLETION),
    ("pattern1-mma-mma-pipelined", "P0: remove fence::after_thread_sync", "tmem race", AFTER_FENCE),
    ("pattern1-mma-mma-pipelined", "P0: remove wait::ld", "correct", TRAILING_WAIT),
    ("pattern2-ex1-st-waitst-ld", "P0: remove wait::st", "tmem race", WAIT_ST),
    ("pattern2-ex1-st-waitst-ld", "P0: remove wait::ld", "correct", TRAILING_WAIT),
    ("pattern2-ex2-mma-commit-trywait-ld", "P0: remove commit [done]", "hang", COMMIT_ARRIVES),
    ("pattern2-ex2-mma-commit-trywait-ld", "P0: remove mbarrier.try_wait [done]", "tmem race", WAIT_FOR_COMPLETION),
    ("pattern2-ex2-mma-commit-trywait-ld", "P0: remove fence::after_thread_sync", "tmem race", AFTER_FENCE),
    ("pattern2-ex2-mma-commit-trywait-ld", "P0: remove wait::ld", "correct", TRAILING_WAIT),
    ("pattern2-ex2-variant-fence-arrive-mma", "P0: remove fence::before_thread_sync", "tmem race", BEFORE_FENCE),
    ("pattern2-ex2-variant-fence-arrive-mma", "P0: remove mbarrier.arrive [bar]", "hang", ARRIVE_COMPLETES),
    ("pattern2-ex2-variant-fence-arrive-mma", "P1: remove mbarrier.try_wait [bar]", "tmem race", WAIT_FOR_COMPLETION),
    ("pattern2-ex2-variant-fence-arrive-mma", "P1: remove fence::after_thread_sync", "tmem race", AFTER_FENCE),
    ("pattern2-ex2-variant-fence-arrive-mma", "P1: remove commit [done]", "hang", COMMIT_ARRIVES),
    ("pattern2-ex2-variant-fence-arrive-mma", "P1: remove mbarrier.try_wait [done]", "tmem race", WAIT_FOR_COMPLETION),
    ("pattern2-ex2-variant-fence-arrive-mma", "P1: remove fence::after_thread_sync #2", "tmem race", AFTER_FENCE),
    ("pattern2-ex2-variant-fence-arrive-mma", "P1: remove wait::ld", "correct", TRAILING_WAIT),
    ("pattern3-cp-fence-arrive-trywait-fence-mma", "P0: remove fence::before_thread_sync", "tmem race", BEFORE_FENCE),
    ("pattern3-cp-fence-arrive-trywait-fence-mma", "P0: remove mbarrier.arrive [bar]", "hang", ARRIVE_COMPLETES),
    ("pattern3-cp-fence-arrive-trywait-fence-mma", "P1: remove mbarrier.try_wait [bar]", "tmem race", WAIT_FOR_COMPLETION),
    ("pattern3-cp-fence-arrive-trywait-fence-mma", "P1: remove fence::after_thread_sync", "tmem race", AFTER_FENCE),
    ("pattern3-cp-fence-arrive-trywait-fence-mma", "P1: remove commit [done]", "hang", COMMIT_ARRIVES),
    ("pattern3-cp-fence-arrive-trywait-fence-mma", "P1: remove mbarrier.try_wait [done]", "tmem race", WAIT_FOR_COMPLETION),
    ("pattern3-cp-fence-arrive-trywait-fence-mma", "P1: remove fence::after_thread_sync #2", "tmem race", AFTER_FENCE),
    ("pattern3-cp-fence-arrive-trywait-fence-mma", "P1: remove wait::ld", "correct", TRAILING_WAIT),
    ("pattern4-composed-bar1-bar2", "P0: remove commit [bar1]", "hang", COMMIT_ARRIVES),
    ("pattern4-composed-bar1-bar2", "P0: remove mbarrier.try_wait [bar1]", "tmem race", WAIT_FOR_COMPLETION),
    ("pattern4-composed-bar1-bar2", "P0: remove fence::after_thread_sync", "tmem race", AFTER_FENCE),
    ("pattern4-composed-bar1-bar2", "P0: remove fence::before_thread_sync", "tmem race", BEFORE_FENCE),
    ("pattern4-composed-bar1-bar2", "P0: remove mbarrier.arrive [bar2]", "hang", ARRIVE_COMPLETES),
    ("pattern4-composed-bar1-bar2", "P1: remove mbarrier.try_wait [bar2]", "tmem race", WAIT_FOR_COMPLETION),
    ("pattern4-composed-bar1-bar2", "P1: remove fence::after_thread_sync", "tmem race", AFTER_FENCE),
    ("pattern4-composed-bar1-bar2", "P1: remove wait::ld", "correct", TRAILING_WAIT),
    ("pattern4-ex1-ld-waitld-fence-arrive-mma", "P0: remove wait::ld", "tmem race", WAIT_LD),
    ("pattern4-ex1-ld-waitld-fence-arrive-mma", "P0: remove fence::before_thread_sync", "tmem race", BEFORE_FENCE),
    ("pattern4-ex1-ld-waitld-fence-arrive-mma", "P0: remove mbarrier.arrive [bar]", "hang", ARRIVE_COMPLETES),
    ("pattern4-ex1-ld-waitld-fence-arrive-mma", "P1: remove mbarrier.try_wait [bar]", "tmem race", WAIT_FOR_COMPLETION),
    ("pattern4-ex1-ld-waitld-fence-arrive-mma", "P1: remove fence::after_thread_sync", "tmem race", AFTER_FENCE),
    ("pattern4-ex2-mma-commit-trywait-fence-ld", "P0: remove commit [mbar]", "hang", COMMIT_ARRIVES),
    ("pattern4-ex2-mma-commit-trywait-fence-ld", "P1: remove mbarrier.try_wait [mbar]", "tmem race", WAIT_FOR_COMPLETION),
    ("pattern4-ex2-mma-commit-trywait-fence-ld", "P1: remove fence::after_thread_sync", "tmem race", AFTER_FENCE),
    ("pattern4-ex2-mma-commit-trywait-fence-ld", "P1: remove wait::ld", "correct", TRAILING_WAIT),
    ("pattern5-antidep-ld-waitld-st", "P0: remove wait::ld", "tmem race", WAIT_LD),
    ("pattern5-antidep-ld-waitld-st", "P0: remove wait::st", "correct", TRAILING_WAIT),
    ("pattern5-regdep-ld-st", "P0: remove wait::st", "tmem race", WAIT_ST),
    ("pattern5-regdep-ld-st", "P0: remove wait::ld", "correct", TRAILING_WAIT),
    ("smem-mma-commit-wait-proxy-fence-st", "P0: remove commit [done]", "hang", COMMIT_ARRIVES),
    ("smem-mma-commit-wait-proxy-fence-st", "P0: remove mbarrier.try_wait [done]", "proxy race", COMPLETION_OBSERVED),
    ("smem-mma-commit-wait-proxy-fence-st", "P0: remove fence.proxy.async", "proxy race", PROXY_FENCE),
    ("tma-refill-after-mma-commit", "P0: remove commit [empty]", "hang", COMMIT_ARRIVES),
    ("tma-refill-after-mma-commit", "P1: remove mbarrier.try_wait [empty]", "data race", REFILL_WAIT),
    ("tma-refill-after-mma-commit", "P1: weaken mbarrier.try_wait [empty]", "correct", RELAXED_OBSERVATION),
    ("tma-refill-after-mma-commit", "P1: remove mbarrier.arrive [full]", "correct", NO_CONSUMER),
    ("tma-refill-after-mma-commit", "P1: weaken mbarrier.arrive [full]", "correct", NO_CONSUMER),
    ("smem-generic-st-proxy-fence-mma", "P0: remove fence.proxy.async", "proxy race", PROXY_FENCE),
    ("smem-generic-st-proxy-fence-mma", "P0: remove commit [done]", "hang", COMMIT_ARRIVES),
    ("smem-generic-st-proxy-fence-mma", "P0: remove mbarrier.try_wait [done]", "tmem race", WAIT_FOR_COMPLETION),
    ("smem-generic-st-proxy-fence-mma", "P0: remove fence::after_thread_sync", "proxy race", AFTER_FENCE_SAME_THREAD),
    ("smem-generic-st-proxy-fence-mma", "P0: remove fence::after_thread_sync #2", "tmem race", AFTER_FENCE),
    ("smem-generic-st-proxy-fence-mma", "P0: remove wait::ld", "correct", TRAILING_WAIT),
    ("smem-generic-st-proxy-fence-other-thread-mma", "P0: remove fence.proxy.async", "proxy race", PROXY_FENCE),
    ("smem-generic-st-proxy-fence-other-thread-mma", "P0: remove mbarrier.arrive [bar]", "hang", ARRIVE_COMPLETES),
    ("smem-generic-st-proxy-fence-other-thread-mma", "P0: weaken mbarrier.arrive [bar]", "proxy race", RELEASE_ARRIVE),
    ("smem-generic-st-proxy-fence-other-thread-mma", "P1: remove mbarrier.try_wait [bar]", "proxy race", ACQUIRE_WAIT),
    ("smem-generic-st-proxy-fence-other-thread-mma", "P1: weaken mbarrier.try_wait [bar]", "proxy race", ACQUIRE_WAIT),
    ("smem-generic-st-proxy-fence-other-thread-mma", "P1: remove fence::after_thread_sync", "proxy race", AFTER_FENCE_PROXY),
    ("smem-generic-st-proxy-fence-other-thread-mma", "P1: remove commit [done]", "hang", COMMIT_ARRIVES),
    ("smem-generic-st-proxy-fence-other-thread-mma", "P1: remove mbarrier.try_wait [done]", "tmem race", WAIT_FOR_COMPLETION),
    ("smem-generic-st-proxy-fence-other-thread-mma", "P1: remove fence::after_thread_sync #2", "tmem race", AFTER_FENCE),
    ("smem-generic-st-proxy-fence-other-thread-mma", "P1: remove wait::ld", "correct", TRAILING_WAIT),
    ("table47-dealloc-cluster-barrier", "P0: remove barrier.cluster.arrive", "hang", CLUSTER_ARRIVE),
    ("table47-dealloc-cluster-barrier", "P0: weaken barrier.cluster.arrive", "correct", NO_TMEM_ACCESS),
    ("table47-dealloc-cluster-barrier", "P0: remove barrier.cluster.wait", "correct", NO_TMEM_ACCESS),
    ("table47-dealloc-cluster-barrier", "P0: remove dealloc", "hang", RENDEZVOUS),
    ("table47-dealloc-cluster-barrier", "P1: remove barrier.cluster.arrive", "hang", CLUSTER_ARRIVE),
    ("table47-dealloc-cluster-barrier", "P1: weaken barrier.cluster.arrive", "correct", NO_TMEM_ACCESS),
    ("table47-dealloc-cluster-barrier", "P1: remove barrier.cluster.wait", "correct", NO_TMEM_ACCESS),
    ("table47-dealloc-cluster-barrier", "P1: remove dealloc", "hang", RENDEZVOUS),
];

#[test]
fn mutant_table() {
    let mut used = vec![false; MUTANTS.len()];
    let mut missing = Vec::new();
    let mut wrong = Vec::new();
    for (name, src) in examples() {
        if !(src.contains("expect races: none") && src.contains("expect hang: no") && src.contains("expect misuse: none")) {
            continue;
        }
        let p = tcfuzz_litmus::parse(&src).unwrap_or_else(|e| panic!("{name}: {e}"));
        for (step, m) in mutants(&p) {
            let ours = summary(&agree(&m, &format!("{name} / {step}")));
            match MUTANTS.iter().position(|(ex, st, _, _)| *ex == name && *st == step) {
                Some(i) => {
                    used[i] = true;
                    let (_, _, expected, why) = MUTANTS[i];
                    println!("{name} | {step} | {expected} | {why}");
                    if ours != expected {
                        wrong.push(format!("{name} / {step}: {ours}, expected {expected} ({why})"));
                    }
                }
                None => missing.push(format!("(\"{name}\", \"{step}\", \"{ours}\", ?)")),
            }
        }
    }
    assert!(missing.is_empty(), "mutants without a row in MUTANTS:\n{}", missing.join("\n"));
    assert!(wrong.is_empty(), "mutants with another verdict than the table's:\n{}", wrong.join("\n"));
    let stale: Vec<_> = MUTANTS.iter().zip(&used).filter(|(_, u)| !**u).map(|(m, _)| format!("{} / {}", m.0, m.1)).collect();
    assert!(stale.is_empty(), "rows for mutants that no longer exist: {stale:?}");
    println!(
        "tcgen05 mutants: {} judged, {} explored with the load-buffering caveat",
        MUTANTS.len(),
        GAPS.load(std::sync::atomic::Ordering::Relaxed)
    );
}

/// The arrives of a multicast commit are unordered among themselves (`tcfuzz selftest --family
/// tcgen05 --seed 90844`): P1 waits on its CTA's mbarrier for P0's commit, then commits to both
/// CTAs itself, and its arrive on CTA 0's mbarrier may come before P0's — whose arrive on CTA 1's
/// P1 saw. The explorer reaches both orders (an arrive needs the commit's issue, not the arrive
/// before it), as the oracle does.
#[test]
fn multicast_commit_arrives_complete_in_either_order() {
    let src = "PTX multicast-arrives\n{\n d0 @ tmem cta 0 gpu 0 lanes 0-31 cols 0-31 = 1;\n d1 @ tmem cta 1 gpu 0 lanes 32-63 cols 0-31 = 2;\n bar @ mbarrier cta 0 gpu 0 count 1;\n bar1 @ mbarrier cta 1 gpu 0 count 1;\n}\n P0@warp 0,cta 0,cluster 0,gpu 0 | P1@warp 1,cta 1,cluster 0,gpu 0 ;\n tcgen05.wait::ld.sync.aligned | await mbarrier.try_wait.parity.relaxed.cluster.shared::cta.b64 p, [bar1], 0 ;\n tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64 [bar], 3 | tcgen05.ld.sync.aligned.32x32b.x1.b32 r1, [d1] ;\n | tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64 [bar1], 3 ;\nexists (true)\n";
    let p = tcfuzz_litmus::parse(src).unwrap_or_else(|e| panic!("{e}"));
    let v = agree(&p, "multicast arrives");
    assert!(v.caveats.is_empty(), "{v}");
    assert_eq!((v.stats.complete, v.stats.blocked), (2, 0), "{v}");
}

/// `commit.multicast::cluster`: bit i of the mask signals CTA rank i's mbarrier at `empty0`'s
/// offset. In `commit-multicast-two-ctas`, P1 waits on CTA 1's and P2 on CTA 0's: a mask that
/// leaves out a CTA leaves its waiter hanging (the tcgen05.commit page: only the CTAs of
/// ctaMask are signalled).
#[test]
fn multicast_masks() {
    let src = examples().into_iter().find(|(n, _)| n == "commit-multicast-two-ctas").map(|(_, s)| s).expect("example");
    let with_mask = |mask: &str| src.replace("[empty0], 3 ", &format!("[empty0], {mask} "));
    let hung = |mask: &str| {
        let p = tcfuzz_litmus::parse(&with_mask(mask)).unwrap_or_else(|e| panic!("mask {mask}: {e}"));
        let v = agree(&p, &format!("mask {mask}"));
        (summary(&v), v.hung_threads)
    };
    assert_eq!(hung("3"), ("correct".to_string(), vec![]));
    assert_eq!(hung("1"), ("hang".to_string(), vec!["P1 (on empty1)".to_string()]));
    assert_eq!(hung("2"), ("hang".to_string(), vec!["P2 (on empty0)".to_string()]));
    // A mask naming no mbarrier is refused before the checker sees it (the validator and the
    // checker share `tcfuzz_litmus::multicast_targets`).
    let error = |mask: &str| {
        let e = tcfuzz_litmus::parse(&with_mask(mask)).map(|_| ()).expect_err("the mask is refused");
        let d = &e.0[0];
        format!("{}:{}: {}", d.span.line, d.span.col, d.message)
    };
    assert_eq!(error("4"), "19:2: bit 2 of multicast mask 0x4 names a CTA of rank 2, but the cluster has 2 CTAs");
    assert_eq!(error("0"), "19:2: multicast mask 0: a ctaMask is a non-zero 16-bit value");
}

/// A `cta_group::2` `relinquish_alloc_permit` is a collective of the CTA pair, as alloc and
/// dealloc are (PTX ISA §9.7.16.5, Table 46), with a rendezvous of its own. It had none: lowered
/// in a CTA whose pair held only the peer's alloc rendezvous, it stopped the check with
/// "[tcfuzz internal bug] no rendezvous for a cta_group::2 allocation" (a coverage-guided mutant
/// of a CTA-pair pattern that lost P0's alloc, 9 of 1,500 such mutants). Now each of the two
/// waits for a partner that never comes in some execution, as a lone alloc does.
#[test]
fn a_cta_pair_relinquish_meeting_the_peers_alloc_is_a_hang_not_an_internal_error() {
    let p = tcfuzz_litmus::parse(
        "PTX relinquish-against-alloc
{ slot1 @ shared cta 1 gpu 0 = 0; }
 P0@warp 0,cta 0,cluster 0,gpu 0 | P1@warp 0,cta 1,cluster 0,gpu 0 ;
 tcgen05.relinquish_alloc_permit.cta_group::2.sync.aligned | tcgen05.alloc.cta_group::2.sync.aligned.shared::cta.b32 [slot1], 32 ;
exists (true)
",
    )
    .expect("parses");
    let e = agree(&p, "relinquish-against-alloc");
    assert_eq!((e.stats.complete, e.stats.blocked), (1, 3), "{e}");
    assert!(e.stats.hangs > 0, "{e}");
    assert_eq!(e.hung_threads.len(), 2, "{e}");
}

/// A CTA-pair mma whose commit P2 waits for (a relaxed `try_wait`, so no acquire) before
/// `fence::after_thread_sync; tcgen05.ld`: the ld performs after the mma (rule 5 of
/// `model::tcgen05`), so it reads the mma's result, 2, never the initial 7. When the explorer
/// appends the ld's read of 7 as a sink, nothing in P2 synchronizes in the sense of the plain
/// PTX rules, yet a tcgen05 edge leads into it and its `fr` edge to the mma's write closes a
/// cycle: the sink shortcut must leave it to the full check (`tcfuzz generate --family pattern
/// --seed 11`, program 1, explored a read of 7 when the shortcut did not).
#[test]
fn a_tcgen05_edge_into_a_sink_read_is_left_to_the_full_check() {
    let p = tcfuzz_litmus::parse(
        "PTX cta-pair-wait-then-ld
{
  d @ tmem cta 0 gpu 0 lanes 0-31 cols 0-31 = 7;
  a @ shared cta 0 gpu 0 = 1;
  b @ shared cta 0 gpu 0 = 2;
  empty0 @ mbarrier cta 0 gpu 0 count 1;
  empty1 @ mbarrier cta 1 gpu 0 count 1;
}
 P0@warp 0,cta 0,cluster 0,gpu 0 | P1@warp 0,cta 1,cluster 0,gpu 0 | P2@warp 4,cta 0,cluster 0,gpu 0 ;
 tcgen05.mma.cta_group::2.kind::f16 [d], [a], [b], 1, 0 | await mbarrier.try_wait.parity.relaxed.cluster.shared::cta.b64 p, [empty1], 0 | await mbarrier.try_wait.parity.relaxed.cluster.shared::cta.b64 p, [empty0], 0 ;
 tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64 [empty0], 3 | | tcgen05.fence::after_thread_sync ;
 | | tcgen05.ld.sync.aligned.32x32b.x1.b32 r0, [d] ;
 | | tcgen05.wait::ld.sync.aligned ;
exists (P2:r0 == 7)
",
    )
    .expect("parses");
    let v = agree(&p, "wait then ld");
    assert!(v.caveats.is_empty(), "{v}");
    assert_eq!((v.stats.complete, v.stats.blocked), (1, 0), "{v}");
    assert_eq!(summary(&v), "correct");
    let r0: BTreeSet<i64> = v.observed_states().keys().filter_map(|s| s.iter().find(|(k, _)| k == "P2:r0").map(|(_, x)| *x)).collect();
    assert_eq!(r0, BTreeSet::from([2]), "{v}");
}

/// With `exclude_porf_cycles` (TruSt's revisits, the oracle restricted to an acyclic `po ∪ rf`),
/// P1's `mma` writing `t` revisits P0's `mma` reading it. TruSt's prefix of that write left out
/// P1's `cp`, whose perform P1 does not wait for, so the revisit deleted the `cp` and kept the
/// `fence.proxy.async` after it: a hole TruSt's revisits never refill, and the execution in
/// which P0's `mma` reads P1's (and P1's `ld` reads 0) was lost (`selftest --family tcgen05`
/// seed 2002487, 5 of 6; 18 of 3,000 programs from seed 3,000,000). The prefix is all of
/// program order now, and the oracle's restriction with it.
#[test]
fn trust_revisits_keep_an_async_operation_their_write_follows() {
    let p = tcfuzz_litmus::parse(
        "PTX random-tcgen05-2002487
{
  d0 @ tmem cta 0 gpu 0 lanes 0-31 cols 0-31 = 1;
  t @ tmem cta 0 gpu 0 lanes 0-127 cols 32-63 = 3;
  s @ shared cta 0 gpu 0 = 4;
  w @ shared cta 0 gpu 0 = 5;
  e = 0;
}
 P0@warp 0,cta 0,gpu 0 | P1@warp 1,cta 0,gpu 0 ;
 st.relaxed.gpu e, 1 | tcgen05.cp.cta_group::1.128x256b [t], [s] ;
 tcgen05.mma.cta_group::1.kind::f16 [d0], [t], [w], 1, 0 | fence.proxy.async.shared::cta ;
 tcgen05.wait::ld.sync.aligned | tcgen05.wait::ld.sync.aligned ;
 | ld.relaxed.gpu f3, e ;
 | tcgen05.mma.cta_group::1.kind::f16 [t], [s], [w], 1, f3 ;
exists (true)
",
    )
    .expect("parses");
    let opts = Options { exclude_porf_cycles: true, detect_duplicates: true, ..Options::default() };
    let e = check(&p, ModelKind::Ptx, &opts).expect("explorer");
    let o = check_oracle(&p, ModelKind::Ptx, &opts).expect("oracle");
    assert_eq!(e.stats.duplicates, Some(0), "{e}");
    assert_eq!((e.stats.complete, o.stats.complete), (6, 6), "explorer:\n{e}\noracle:\n{o}");
    assert_eq!(e.states, o.states, "explorer:\n{e}\noracle:\n{o}");
}
