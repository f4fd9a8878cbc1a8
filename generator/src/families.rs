//! Scaling benchmark families: the GenMC benchmark shapes of `../shared/bench/GENMC-SHAPES.md`
//! (GenMC v0.11.0, `tests/correct/synthetic/`), plus SB / IRIW / message-passing chains, written as
//! PTX litmus programs.
//!
//! C11 atomics map to PTX as: `store(release)` → `st.release.gpu`, `load(acquire)` →
//! `ld.acquire.gpu`, relaxed RMWs → `atom.relaxed.gpu.*`. All threads sit in different CTAs of one
//! GPU, so every access is morally strong with every other (same `.gpu` scope). Under SC the
//! complete-execution counts equal GenMC's `sc` counts (pinned in the tests).
//!
//! `indexer`'s CAS loop computes its addresses; litmus addresses are static names, so each
//! insertion is unrolled over the slots its probe can reach ([`indexer`]).
//!
//! `szymanski`'s `__VERIFIER_assume(c)` is an `assume` ([`szymanski`]).

use std::fmt::Write;
use tcfuzz_litmus::Program;

/// A family of programs indexed by a size `n`.
#[derive(Clone, Copy, Debug)]
pub struct Family {
    pub name: &'static str,
    /// What `n` means.
    pub param: &'static str,
    /// Sizes `bench --quick` runs (and CI): small enough for a 2-core machine in seconds.
    pub quick_sizes: &'static [u32],
    /// Sizes `bench` runs beside the quick ones: for GenMC's families, up to the largest where
    /// GenMC 0.11 takes at most a minute on a 2-core machine (issue 27's table), where its
    /// start-up no longer dominates; empty for the families GenMC has no benchmark of.
    pub large_sizes: &'static [u32],
    /// Smallest valid `n`.
    pub min_n: u32,
    build: fn(u32) -> String,
}

impl Family {
    /// The litmus text of the family's program of size `n`.
    pub fn text(&self, n: u32) -> String {
        (self.build)(n)
    }

    /// The family's program of size `n`. Panics only on a bug in the family's builder.
    pub fn program(&self, n: u32) -> Program {
        let text = self.text(n);
        match tcfuzz_litmus::parse(&text) {
            Ok(p) => p,
            Err(e) => {
                panic!("[tcfuzz internal bug] family {} n={n} builds an invalid program:\n{}\n{text}", self.name, e.render(self.name))
            }
        }
    }
}

/// Every family, in the order the benchmark runs them.
pub const FAMILIES: &[Family] = &[
    Family { name: "readers", param: "readers (one writer)", quick_sizes: &[8, 12, 14], large_sizes: &[17, 20], min_n: 1, build: readers },
    Family {
        name: "n-writers",
        param: "writers beyond the first (N+1 writers, one reader)",
        quick_sizes: &[4, 5, 6],
        large_sizes: &[7, 8],
        min_n: 0,
        build: n_writers,
    },
    Family {
        name: "casrot",
        param: "threads in the CAS rotation",
        quick_sizes: &[6, 8, 9],
        large_sizes: &[11, 13],
        min_n: 1,
        build: casrot,
    },
    Family { name: "lastzero", param: "writer threads", quick_sizes: &[5, 8, 10], large_sizes: &[15, 17], min_n: 1, build: lastzero },
    Family { name: "ainc", param: "threads doing one fetch_add", quick_sizes: &[5, 6, 7], large_sizes: &[8, 9], min_n: 1, build: ainc },
    Family { name: "binc", param: "threads doing two fetch_adds", quick_sizes: &[3, 4], large_sizes: &[5, 6], min_n: 1, build: binc },
    Family {
        name: "wcas",
        param: "CAS threads (plus one writer)",
        quick_sizes: &[6, 8, 10],
        large_sizes: &[16, 19],
        min_n: 1,
        build: wcas,
    },
    Family { name: "casw", param: "threads doing CAS then store", quick_sizes: &[3, 4], large_sizes: &[5, 6], min_n: 1, build: casw },
    Family { name: "coa", param: "N (N-1 threads writing y and z)", quick_sizes: &[2, 3, 4], large_sizes: &[5, 6], min_n: 1, build: coa },
    Family { name: "fib", param: "loop iterations (NUM)", quick_sizes: &[2, 3], large_sizes: &[4, 5], min_n: 1, build: fib },
    Family {
        name: "indexer",
        param: "threads inserting 4 values each",
        quick_sizes: &[12, 13, 14],
        large_sizes: &[15],
        min_n: 1,
        build: indexer,
    },
    Family {
        name: "szymanski",
        param: "critical-section entries per thread",
        quick_sizes: &[1, 2, 3],
        large_sizes: &[4],
        min_n: 1,
        build: szymanski,
    },
    Family { name: "sb", param: "threads in the store-buffering ring", quick_sizes: &[3, 4, 5], large_sizes: &[], min_n: 2, build: sb },
    Family { name: "iriw", param: "reader threads (two writers)", quick_sizes: &[2, 3, 4], large_sizes: &[], min_n: 1, build: iriw },
    Family {
        name: "mp-chain",
        param: "hops in the message-passing chain",
        quick_sizes: &[3, 5, 7],
        large_sizes: &[],
        min_n: 1,
        build: mp_chain,
    },
    Family {
        name: "tc-pipeline",
        param: "stages through a 2-deep tcgen05 producer/consumer pipeline (at most 5: 64 events per thread)",
        quick_sizes: &[2, 3, 4],
        large_sizes: &[],
        min_n: 1,
        build: tc_pipeline,
    },
];

/// The family called `name`.
pub fn family(name: &str) -> Option<&'static Family> {
    FAMILIES.iter().find(|f| f.name == name)
}

/// Assembles a program in block form: one `P<i>@cta <i>,gpu 0 { ... }` per thread.
fn program(name: &str, n: u32, init: &[(String, i64)], threads: &[Vec<String>], cond: &str) -> String {
    let mut s = format!("PTX {name}-{n}\n{{\n");
    for (loc, v) in init {
        let _ = writeln!(s, "  {loc} = {v};");
    }
    s.push_str("}\n");
    for (i, body) in threads.iter().enumerate() {
        let _ = writeln!(s, "P{i}@cta {i},gpu 0 {{");
        for line in body {
            let _ = writeln!(s, "  {line};");
        }
        s.push_str("}\n");
    }
    let _ = writeln!(s, "{cond}");
    s
}

fn readers(n: u32) -> String {
    let mut threads = vec![vec!["st.release.gpu x, 42".to_string()]];
    threads.extend((0..n).map(|_| vec!["ld.acquire.gpu r0, x".to_string()]));
    program("readers", n, &[("x".into(), 0)], &threads, "exists (P1:r0 == 42)")
}

fn n_writers(n: u32) -> String {
    let mut threads = vec![vec!["ld.acquire.gpu r0, x".to_string()]];
    threads.extend((0..=n).map(|i| vec![format!("st.release.gpu x, {i}")]));
    program("n-writers", n, &[("x".into(), 0)], &threads, "exists (P0:r0 == 0)")
}

fn casrot(n: u32) -> String {
    let threads: Vec<Vec<String>> = (1..=n).map(|i| vec![format!("atom.relaxed.gpu.cas r0, x, {}, {i}", i - 1)]).collect();
    program("casrot", n, &[("x".into(), 0)], &threads, &format!("exists (x == {n})"))
}

fn lastzero(n: u32) -> String {
    let init: Vec<(String, i64)> = (0..=n).map(|i| (format!("a{i}"), 0)).collect();
    // T0: i = N; while (a[i] != 0) i--;   (a0 is never written, so the scan stops there)
    let mut scan = Vec::new();
    for i in (1..=n).rev() {
        scan.push(format!("ld.acquire.gpu r0, a{i}"));
        scan.push("beq r0, 0, DONE".to_string());
    }
    scan.push("ld.acquire.gpu r0, a0".to_string());
    let mut threads = vec![scan];
    threads[0].push("DONE:".to_string());
    for j in 1..=n {
        threads.push(vec![format!("ld.acquire.gpu r0, a{}", j - 1), "add r1, r0, 1".to_string(), format!("st.release.gpu a{j}, r1")]);
    }
    let mut s = program("lastzero", n, &init, &threads, "exists (P0:r0 == 0)");
    // Labels end with `:`, not `;`.
    s = s.replace("DONE:;", "DONE:");
    s
}

fn ainc(n: u32) -> String {
    let threads: Vec<Vec<String>> = (0..n).map(|_| vec!["atom.relaxed.gpu.add r0, x, 1".to_string()]).collect();
    program("ainc", n, &[("x".into(), 0)], &threads, &format!("exists (x == {n})"))
}

fn binc(n: u32) -> String {
    let threads: Vec<Vec<String>> =
        (0..n).map(|_| vec!["atom.relaxed.gpu.add r0, x, 1".to_string(), "atom.relaxed.gpu.add r1, y, 1".to_string()]).collect();
    program("binc", n, &[("x".into(), 0), ("y".into(), 0)], &threads, &format!("exists (x == {n} /\\ y == {n})"))
}

fn wcas(n: u32) -> String {
    let mut threads = vec![vec!["st.release.gpu x, 2".to_string()]];
    threads.extend((0..n).map(|_| vec!["atom.relaxed.gpu.cas r0, x, 2, 3".to_string()]));
    program("wcas", n, &[("x".into(), 0)], &threads, "exists (x == 3)")
}

fn casw(n: u32) -> String {
    let threads: Vec<Vec<String>> =
        (0..n).map(|i| vec!["atom.relaxed.gpu.cas r0, x, 0, 1".to_string(), format!("st.release.gpu x, {}", i + 3)]).collect();
    program("casw", n, &[("x".into(), 0)], &threads, "exists (x == 1)")
}

/// GenMC's `indexer`: thread `tid` inserts `w = 11 i + tid` (i = 0..3) into a 128-slot hash
/// table by open addressing from `h = 7w mod 128`: `while (!CAS(table[h], 0 -> w)) h = h + 1`.
/// A probe moves past slot `s` only when another value may sit there, so the slots a value may
/// probe are a fixed point: its home slot, then the next one while another value may occupy the
/// one before. Each insertion is unrolled over those slots (a CAS per slot, a branch out when it
/// read 0); its last slot is one no other value can take, where the CAS always succeeds.
fn indexer(n: u32) -> String {
    const SLOTS: usize = 128;
    let values: Vec<i64> = (0..n as i64).flat_map(|tid| (0..4).map(move |i| 11 * i + tid)).collect();
    let home = |w: i64| (7 * w) as usize % SLOTS;
    // may[v]: the slots value v may occupy, in probe order.
    let mut may: Vec<Vec<usize>> = values.iter().map(|&w| vec![home(w)]).collect();
    loop {
        let mut grew = false;
        for v in 0..values.len() {
            let last = *may[v].last().unwrap_or(&home(values[v]));
            let taken = (0..values.len()).any(|u| u != v && may[u].contains(&last));
            if taken && may[v].len() < SLOTS {
                may[v].push((last + 1) % SLOTS);
                grew = true;
            }
        }
        if !grew {
            break;
        }
    }
    let mut slots: Vec<usize> = may.iter().flatten().copied().collect();
    slots.sort_unstable();
    slots.dedup();
    let init: Vec<(String, i64)> = slots.iter().map(|s| (format!("t{s}"), 0)).collect();
    let threads: Vec<Vec<String>> = (0..n as usize)
        .map(|tid| {
            let mut body = Vec::new();
            for i in 0..4 {
                let v = tid * 4 + i;
                let probes = &may[v];
                for (k, s) in probes.iter().enumerate() {
                    body.push(format!("atom.relaxed.gpu.cas r0, t{s}, 0, {}", values[v]));
                    if k + 1 < probes.len() {
                        body.push(format!("beq r0, 0, D{i}"));
                    }
                }
                if probes.len() > 1 {
                    body.push(format!("D{i}:"));
                }
            }
            body
        })
        .collect();
    let mut s = program("indexer", n, &init, &threads, "exists (true)");
    for i in 0..4 {
        s = s.replace(&format!("D{i}:;"), &format!("D{i}:"));
    }
    s
}

fn coa(n: u32) -> String {
    let mut threads = vec![
        vec!["st.release.gpu x, 1".to_string(), "ld.acquire.gpu r0, y".to_string(), "ld.acquire.gpu r1, x".to_string()],
        vec!["st.release.gpu x, 2".to_string(), "ld.acquire.gpu r0, z".to_string(), "ld.acquire.gpu r1, x".to_string()],
    ];
    threads.extend((1..n).map(|i| vec![format!("st.release.gpu y, {i}"), format!("st.release.gpu z, {i}")]));
    program("coa", n, &[("x".into(), 0), ("y".into(), 0), ("z".into(), 0)], &threads, "exists (P0:r1 == 2 /\\ P1:r1 == 1)")
}

fn fib(n: u32) -> String {
    let body = |target: &str| -> Vec<String> {
        (0..n)
            .flat_map(|_| {
                [
                    "ld.acquire.gpu r0, x".to_string(),
                    "ld.acquire.gpu r1, y".to_string(),
                    "add r2, r0, r1".to_string(),
                    format!("st.release.gpu {target}, r2"),
                ]
            })
            .collect()
    };
    // T3 reads y only when x <= 144; for NUM <= 5 (GenMC's correct instances) x never exceeds 144.
    let threads = vec![body("x"), body("y"), vec!["ld.acquire.gpu r0, x".to_string(), "ld.acquire.gpu r1, y".to_string()]];
    program("fib", n, &[("x".into(), 1), ("y".into(), 1)], &threads, "exists (P2:r0 == 144)")
}

/// GenMC's `szymanski` (variants/szymanski0.c): two threads enter a critical section `n` times
/// each under Szymanski's mutual exclusion protocol; all accesses relaxed, `smp_mb()` a
/// `fence.sc`, `__VERIFIER_assume(c)` an `assume` (a failed one discards the execution; GenMC
/// counts those as blocked, and so does the benchmark). The `||` of the exit test
/// short-circuits: the second load of the other flag happens only when the first reads at least 2.
///
/// Under PTX the counts equal GenMC's RC11 counts (6 / 78 / 1,068); each graph is judged with
/// its ~30 `fence.sc` in a Fence-SC order.
fn szymanski(n: u32) -> String {
    let thread = |me: &str, other: &str, cs_value: u32| -> Vec<String> {
        let mut code = Vec::new();
        for k in 0..n {
            code.push(format!("st.relaxed.gpu {me}, 1"));
            code.push("fence.sc.gpu".into());
            code.push(format!("ld.relaxed.gpu r0, {other}"));
            code.push("assume.lt r0, 3".into());
            code.push(format!("st.relaxed.gpu {me}, 3"));
            code.push("fence.sc.gpu".into());
            code.push(format!("ld.relaxed.gpu r0, {other}"));
            code.push(format!("bne r0, 1, ENTER{k}"));
            code.push(format!("st.relaxed.gpu {me}, 2"));
            code.push("fence.sc.gpu".into());
            code.push(format!("ld.relaxed.gpu r0, {other}"));
            code.push("assume.eq r0, 4".into());
            code.push(format!("ENTER{k}:"));
            code.push(format!("st.relaxed.gpu {me}, 4"));
            code.push("fence.sc.gpu".into());
            code.push(format!("ld.relaxed.gpu r0, {other}"));
            code.push("assume.lt r0, 2".into());
            // The critical section: write x, read it back (GenMC asserts on it).
            code.push(format!("st.relaxed.gpu x, {cs_value}"));
            code.push("ld.relaxed.gpu r1, x".into());
            code.push("fence.sc.gpu".into());
            // assume(2 > other || other > 3), two loads, short-circuit.
            code.push(format!("ld.relaxed.gpu r0, {other}"));
            code.push(format!("beq r0, 0, EXIT{k}"));
            code.push(format!("beq r0, 1, EXIT{k}"));
            code.push(format!("ld.relaxed.gpu r0, {other}"));
            code.push("assume.gt r0, 3".into());
            code.push(format!("EXIT{k}:"));
            code.push(format!("st.relaxed.gpu {me}, 0"));
        }
        code
    };
    let threads = vec![thread("flag1", "flag2", 0), thread("flag2", "flag1", 1)];
    let init = [("x".to_string(), 0), ("flag1".to_string(), 0), ("flag2".to_string(), 0)];
    let mut s = program("szymanski", n, &init, &threads, "exists (P0:r1 == 1)");
    // Labels end with `:`, not `;`.
    for k in 0..n {
        s = s.replace(&format!("ENTER{k}:;"), &format!("ENTER{k}:")).replace(&format!("EXIT{k}:;"), &format!("EXIT{k}:"));
    }
    s
}

fn sb(n: u32) -> String {
    let init: Vec<(String, i64)> = (0..n).map(|i| (format!("x{i}"), 0)).collect();
    let threads: Vec<Vec<String>> =
        (0..n).map(|i| vec![format!("st.relaxed.gpu x{i}, 1"), format!("ld.relaxed.gpu r0, x{}", (i + 1) % n)]).collect();
    let cond: Vec<String> = (0..n).map(|i| format!("P{i}:r0 == 0")).collect();
    program("sb", n, &init, &threads, &format!("exists ({})", cond.join(" /\\ ")))
}

fn iriw(n: u32) -> String {
    let mut threads = vec![vec!["st.relaxed.gpu x, 1".to_string()], vec!["st.relaxed.gpu y, 1".to_string()]];
    for i in 0..n {
        let (a, b) = if i % 2 == 0 { ("x", "y") } else { ("y", "x") };
        threads.push(vec![format!("ld.relaxed.gpu r0, {a}"), format!("ld.relaxed.gpu r1, {b}")]);
    }
    program("iriw", n, &[("x".into(), 0), ("y".into(), 0)], &threads, "exists (P2:r0 == 1 /\\ P2:r1 == 0)")
}

fn mp_chain(n: u32) -> String {
    let mut init = vec![("d".to_string(), 0)];
    init.extend((1..=n).map(|i| (format!("f{i}"), 0)));
    let mut threads = vec![vec!["st.weak d, 1".to_string(), "st.release.gpu f1, 1".to_string()]];
    for i in 1..n {
        threads.push(vec![format!("ld.acquire.gpu r0, f{i}"), format!("st.release.gpu f{}, r0", i + 1)]);
    }
    threads.push(vec![format!("ld.acquire.gpu r0, f{n}"), "ld.weak r1, d".to_string()]);
    program("mp-chain", n, &init, &threads, &format!("exists (P{n}:r0 == 1 /\\ P{n}:r1 == 0)"))
}

/// Buffers of [`tc_pipeline`]: how many stages are in flight at once.
const TC_IN_FLIGHT: u32 = 2;

/// A tcgen05 producer/consumer pipeline (PTX ISA §9.7.16.6.4): for each of `n` stages the
/// producer writes the stage's shared-memory tile, fences it into the async proxy (and with
/// `tcgen05.fence::after_thread_sync` orders its asynchronous copy after the store), copies it
/// into TMEM buffer `t<i % K>` (`tcgen05.cp`) and commits to `full<b>`; the consumer waits on
/// `full<b>`, accumulates the buffer into `d` (`tcgen05.mma`) and commits to `empty<b>`, which the
/// producer waits on before reusing the buffer. `K` = [`TC_IN_FLIGHT`] stages are in flight. At
/// the end the consumer waits for its last mma and reads `d`. Race-free and hang-free; both
/// threads also count their stages on a shared progress counter (`atom.add`), so the executions
/// are the interleavings of the two threads' counter updates that the pipeline allows.
fn tc_pipeline(n: u32) -> String {
    let k = TC_IN_FLIGHT;
    let mut s = format!("PTX tc-pipeline-{n}\n{{\n  d @ tmem cta 0 gpu 0 lanes 0-31 cols 0-31 = 0;\n");
    for b in 0..k.min(n) {
        let _ = writeln!(s, "  t{b} @ tmem cta 0 gpu 0 lanes 0-127 cols {}-{} = 0;", 32 * (b + 1), 32 * (b + 2) - 1);
        let _ = writeln!(s, "  full{b} @ mbarrier cta 0 gpu 0 count 1;\n  empty{b} @ mbarrier cta 0 gpu 0 count 1;");
    }
    for i in 0..n {
        let _ = writeln!(s, "  s{i} @ shared cta 0 gpu 0 = 0;");
    }
    s.push_str("  w @ shared cta 0 gpu 0 = 1;\n  cnt = 0;\n  done @ mbarrier cta 0 gpu 0 count 1;\n  P1:r0 = 0;\n}\n");
    let wait = |bar: String, parity: u32| format!("await mbarrier.try_wait.parity.relaxed.cluster.shared::cta.b64 p, [{bar}], {parity}");
    let commit = |bar: String| format!("tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [{bar}]");
    let mut producer = Vec::new();
    let mut consumer = Vec::new();
    for i in 0..n {
        let (b, round) = (i % k, i / k);
        if round > 0 {
            producer.push(wait(format!("empty{b}"), (round - 1) % 2));
            producer.push("tcgen05.fence::after_thread_sync".to_string());
        }
        producer.push(format!("st.shared::cta.b32 [s{i}], {}", i + 2));
        producer.push("fence.proxy.async.shared::cta".to_string());
        // The cp is asynchronous: only this fence orders it after the store (§9.7.16.6.3).
        producer.push("tcgen05.fence::after_thread_sync".to_string());
        producer.push(format!("tcgen05.cp.cta_group::1.128x256b [t{b}], [s{i}]"));
        producer.push(commit(format!("full{b}")));
        producer.push("atom.relaxed.gpu.add r1, cnt, 1".to_string());
        consumer.push(wait(format!("full{b}"), round % 2));
        consumer.push("tcgen05.fence::after_thread_sync".to_string());
        consumer.push(format!("tcgen05.mma.cta_group::1.kind::f16 [d], [t{b}], [w], 1, {}", u32::from(i > 0)));
        consumer.push(commit(format!("empty{b}")));
        consumer.push("atom.relaxed.gpu.add r1, cnt, 1".to_string());
    }
    consumer.push(commit("done".to_string()));
    consumer.push(wait("done".to_string(), 0));
    consumer.push("tcgen05.fence::after_thread_sync".to_string());
    consumer.push("tcgen05.ld.sync.aligned.32x32b.x1.b32 r0, [d]".to_string());
    consumer.push("tcgen05.wait::ld.sync.aligned".to_string());
    for (name, body) in [("P0@warp 1,cta 0,gpu 0", &producer), ("P1@warp 0,cta 0,gpu 0", &consumer)] {
        let _ = writeln!(s, "{name} {{");
        for line in body {
            let _ = writeln!(s, "  {line};");
        }
        s.push_str("}\n");
    }
    // Every stage's value reaches the accumulator: d = 2 + 3 + ... + (n + 1).
    let _ = writeln!(s, "forall (P1:r0 == {})", (2..n + 2).sum::<u32>());
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_family_builds_valid_programs() {
        for f in FAMILIES {
            for &n in f.quick_sizes.iter().chain(f.large_sizes).chain([f.min_n].iter()) {
                let p = f.program(n);
                assert!(!p.threads.is_empty(), "{} n={n}", f.name);
            }
        }
    }

    #[test]
    fn lastzero_scans_down_to_a0() {
        let text = family("lastzero").expect("exists").text(2);
        assert!(text.contains("ld.acquire.gpu r0, a2;\n  beq r0, 0, DONE;\n  ld.acquire.gpu r0, a1;\n  beq r0, 0, DONE;\n  ld.acquire.gpu r0, a0;\n  DONE:"), "{text}");
    }
}
