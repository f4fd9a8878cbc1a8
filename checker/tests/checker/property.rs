//! Explorer versus oracle on random small programs: the same final states with the same execution
//! counts, the same numbers of complete and blocked executions, and no duplicates.
//!
//! Seeded and reproducible: `TCFUZZ_PROP_SEED=<n>` replays one program, `TCFUZZ_PROP_CASES=<n>`
//! changes how many are tried (and, for PTX, `TCFUZZ_PROP_BASE=<n>` the first seed;
//! `TCFUZZ_PROP_ALL` reports every disagreement before failing). A failure prints the seed and the
//! program.

use tcfuzz_checker::{CheckError, ModelKind, Options, Verdict, check, check_oracle};
use tcfuzz_litmus::*;

use crate::build::*;

/// splitmix64: small, seedable, good enough for test generation.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed)
    }
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    pub fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.below(xs.len() as u64) as usize]
    }
    pub fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
}

const SCOPES: [Scope; 4] = [Scope::Cta, Scope::Cluster, Scope::Gpu, Scope::Sys];

fn read_sem(rng: &mut Rng) -> (Option<Sem>, Option<Scope>) {
    match rng.below(4) {
        0 => (None, None),
        1 => (Some(Sem::Relaxed), Some(*rng.pick(&SCOPES))),
        2 => (Some(Sem::Acquire), Some(*rng.pick(&SCOPES))),
        _ => (Some(Sem::Volatile), None),
    }
}

fn write_sem(rng: &mut Rng) -> (Option<Sem>, Option<Scope>) {
    match rng.below(4) {
        0 => (None, None),
        1 => (Some(Sem::Relaxed), Some(*rng.pick(&SCOPES))),
        2 => (Some(Sem::Release), Some(*rng.pick(&SCOPES))),
        _ => (Some(Sem::Weak), None),
    }
}

fn rmw_sem(rng: &mut Rng) -> (Option<Sem>, Option<Scope>) {
    let sem = *rng.pick(&[None, Some(Sem::Relaxed), Some(Sem::Acquire), Some(Sem::Release), Some(Sem::AcqRel)]);
    (sem, if rng.chance(50) { Some(*rng.pick(&SCOPES)) } else { None })
}

/// A random program: 2–4 threads, 2–6 memory instructions each (12 in all at most) over 2–3 locations, mixed orderings and
/// scopes, register arithmetic, forward branches and (rarely) a spin loop or a CTA barrier.
pub fn random_program(seed: u64) -> Program {
    let mut rng = Rng::new(seed);
    let nthreads = 2 + rng.below(3) as usize;
    let locs: &[&str] = if nthreads == 2 && rng.chance(50) { &["x", "y"] } else { &["x", "y", "z"] };
    let mut threads = Vec::new();
    let mut ctas = Vec::new();
    for _ in 0..nthreads {
        ctas.push(rng.below(2) as u32);
        // 2–6 events per thread, at most about 12 in all so that the oracle stays fast.
        let most = (12 / nthreads).clamp(2, 6);
        let n = 2 + rng.below(most as u64 - 1) as usize;
        let mut body = Vec::new();
        let mut regs: Vec<String> = Vec::new();
        let mut labels = 0;
        let mut pending_label: Option<(String, usize)> = None;
        let mut i = 0;
        while i < n {
            let x = *rng.pick(locs);
            let operand = |rng: &mut Rng, regs: &[String]| {
                if !regs.is_empty() && rng.chance(30) { reg(rng.pick(regs).as_str()) } else { imm(1 + rng.below(2) as i64) }
            };
            match rng.below(100) {
                0..=36 => {
                    let (sem, scope) = read_sem(&mut rng);
                    let r = format!("r{}", regs.len());
                    body.push(ld(sem, scope, &r, x));
                    regs.push(r);
                }
                37..=56 => {
                    let (sem, scope) = write_sem(&mut rng);
                    let v = operand(&mut rng, &regs);
                    body.push(st(sem, scope, x, v));
                }
                57..=69 => {
                    let (sem, scope) = rmw_sem(&mut rng);
                    let r = format!("r{}", regs.len());
                    let op = *rng.pick(&[AtomOp::Add, AtomOp::Exch, AtomOp::Cas]);
                    // Sometimes a register: the rmw's write then depends on an earlier read.
                    let a = if !regs.is_empty() && rng.chance(25) { reg(rng.pick(&regs).as_str()) } else { imm(rng.below(3) as i64) };
                    let b = (op == AtomOp::Cas).then(|| imm(1 + rng.below(2) as i64));
                    body.push(atom(sem, scope, op, &r, x, a, b));
                    regs.push(r);
                }
                70..=76 => {
                    let scope = *rng.pick(&SCOPES);
                    body.push(if rng.chance(50) { fence_sc(scope) } else { fence_acq_rel(scope) });
                }
                77..=84 if !regs.is_empty() => {
                    let r = format!("r{}", regs.len());
                    let a = reg(rng.pick(&regs).as_str());
                    body.push(stmt(Instr::Add { dst: r.clone(), a, b: imm(1) }));
                    regs.push(r);
                    continue; // not an event
                }
                85..=94 if !regs.is_empty() && pending_label.is_none() => {
                    let l = format!("L{labels}");
                    labels += 1;
                    let cond = if rng.chance(50) { BranchCond::Eq } else { BranchCond::Ne };
                    let a = reg(rng.pick(&regs).as_str());
                    body.push(stmt(Instr::Branch { cond, a, b: imm(rng.below(2) as i64), target: l.clone() }));
                    pending_label = Some((l, body.len() + 1));
                    continue;
                }
                98..=99 => body.push(bar_sync(0)),
                95..=97 => {
                    // A spin loop: L: ld r, x; bne r, 1, L
                    let l = format!("L{labels}");
                    labels += 1;
                    let r = format!("r{}", regs.len());
                    body.push(label(&l));
                    body.push(ld(Some(Sem::Relaxed), Some(Scope::Gpu), &r, x));
                    body.push(stmt(Instr::Branch { cond: BranchCond::Ne, a: reg(&r), b: imm(1), target: l }));
                    regs.push(r);
                }
                _ => continue,
            }
            i += 1;
            if let Some((l, at)) = pending_label.take() {
                if body.len() >= at {
                    body.push(label(&l));
                } else {
                    pending_label = Some((l, at));
                }
            }
        }
        if let Some((l, _)) = pending_label {
            body.push(label(&l));
        }
        threads.push(body);
    }
    let loc_inits: Vec<(&str, i64)> = locs.iter().map(|l| (*l, 0)).collect();
    program(&format!("random-{seed}"), &loc_inits, threads, &ctas, exists_true())
}

pub fn show(p: &Program) -> String {
    let mut s = String::new();
    for t in &p.threads {
        s.push_str(&format!("{} {:?}\n", t.name, t.placement));
        for st in &t.body {
            s.push_str(&format!("    {:?}\n", st.kind));
        }
    }
    s
}

/// A final state: each slot's name and value.
type State = [(std::sync::Arc<str>, i64)];

/// Final states with execution counts (witnesses differ between methods: each keeps the first
/// execution it finds).
pub fn outcomes(v: &Verdict) -> Vec<(&State, u64)> {
    v.states.iter().map(|s| (s.values.as_slice(), s.executions)).collect()
}

pub fn options() -> Options {
    Options { loop_bound: 1, detect_duplicates: true, oracle_limit: 60_000, max_races: 10_000, ..Options::default() }
}

/// Compares explorer and oracle on one program; `Ok(false)` when the oracle gives up (too large).
pub fn agree(p: &Program, model: ModelKind, seed: u64) -> Result<bool, String> {
    let opts = options();
    if std::env::var("TCFUZZ_PROP_TIMES").is_ok() {
        eprintln!("{}", show(p));
    }
    let oracle = match check_oracle(p, model, &opts) {
        Ok(v) => v,
        Err(CheckError::TooLarge(_)) => return Ok(false),
        Err(e) => return Err(format!("seed {seed}: oracle error {e}\n{}", show(p))),
    };
    if std::env::var("TCFUZZ_PROP_TIMES").is_ok() {
        eprintln!("oracle done: {:?}", oracle.stats);
    }
    let explorer = check(p, model, &opts).map_err(|e| format!("seed {seed}: explorer error {e}\n{}", show(p)))?;
    let same =
        |a: &Verdict, b: &Verdict| outcomes(a) == outcomes(b) && a.stats.complete == b.stats.complete && a.stats.blocked == b.stats.blocked;
    if explorer.stats.duplicates != Some(0) || !same(&explorer, &oracle) {
        return Err(format!(
            "seed {seed} ({model:?}): explorer and oracle disagree\n{}\nexplorer: {:?} states {:?}\noracle:   {:?} states {:?}",
            show(p),
            explorer.stats,
            explorer.states.iter().map(|s| s.executions).collect::<Vec<_>>(),
            oracle.stats,
            oracle.states.iter().map(|s| s.executions).collect::<Vec<_>>(),
        ));
    }
    Ok(true)
}

/// Runs [`agree`] under `model` on the programs `generate` makes from the seeds of
/// `TCFUZZ_PROP_SEED` / `TCFUZZ_PROP_CASES` (default `default_cases` from `base`).
pub fn run_property(generate: fn(u64) -> Program, model: ModelKind, default_cases: u64, base: u64) {
    let seeds: Vec<u64> = match std::env::var("TCFUZZ_PROP_SEED").ok().and_then(|s| s.parse().ok()) {
        Some(seed) => vec![seed],
        None => {
            let cases = std::env::var("TCFUZZ_PROP_CASES").ok().and_then(|s| s.parse().ok()).unwrap_or(default_cases);
            (0..cases).map(|i| base + i).collect()
        }
    };
    let (mut compared, mut skipped) = (0u64, 0u64);
    for &seed in &seeds {
        let p = generate(seed);
        let t0 = std::time::Instant::now();
        let r = agree(&p, model, seed);
        if std::env::var("TCFUZZ_PROP_TIMES").is_ok() {
            eprintln!("seed {seed}: {:?} {:?}", t0.elapsed(), r.as_ref().map_err(|_| ()));
        }
        match r {
            Ok(true) => compared += 1,
            Ok(false) => skipped += 1,
            Err(msg) => panic!("{msg}"),
        }
    }
    println!("{model:?}: explorer and oracle agree on {compared} random programs ({skipped} too large for the oracle)");
    assert!(compared * 10 >= (compared + skipped) * 9, "too many programs skipped: {skipped}");
}

#[test]
fn explorer_matches_oracle_sc() {
    run_property(random_program, ModelKind::Sc, 3000, 0);
}

fn options_porf() -> Options {
    Options { exclude_porf_cycles: true, ..options() }
}

/// How the explorer's verdict on one program compares with the oracle's.
#[derive(Debug, PartialEq, Eq)]
pub enum Agreement {
    /// The same final states with the same counts, complete and blocked counts, races; no
    /// duplicates.
    Same,
    /// The verdict carries a caveat (executions the explorer does not explore) and misses some:
    /// every state it reports is the oracle's with at most its count, races the same.
    Gap,
    /// Too large for the oracle.
    TooLarge,
}

/// PTX, explorer against the oracle: final states with counts, complete and blocked counts,
/// races, and no duplicates — or, where the explorer's verdict carries a caveat, a subset of the
/// oracle's executions ([`Agreement::Gap`]).
pub fn agree_ptx(p: &Program, seed: u64, opts: &Options) -> Result<Agreement, String> {
    let opts = opts.clone();
    let oracle = match check_oracle(p, ModelKind::Ptx, &opts) {
        Ok(v) => v,
        Err(CheckError::TooLarge(_)) => return Ok(Agreement::TooLarge),
        Err(e) => return Err(format!("seed {seed}: oracle error {e}\n{}", show(p))),
    };
    let explorer = check(p, ModelKind::Ptx, &opts).map_err(|e| format!("seed {seed}: explorer error {e}\n{}", show(p)))?;
    let same = outcomes(&explorer) == outcomes(&oracle)
        && explorer.stats.complete == oracle.stats.complete
        && explorer.stats.blocked == oracle.stats.blocked
        && explorer.races == oracle.races;
    let full = oracle.observed_states();
    let subset = explorer.observed_states().iter().all(|(s, n)| full.get(s).is_some_and(|m| m >= n)) && explorer.races == oracle.races;
    if explorer.stats.duplicates == Some(0) && same {
        return Ok(Agreement::Same);
    }
    if explorer.stats.duplicates == Some(0) && !explorer.caveats.is_empty() && subset {
        return Ok(Agreement::Gap);
    }
    Err(format!(
        "seed {seed} (Ptx): explorer and oracle disagree\n{}\nexplorer: {:?} states {:?} races {} caveats {:?}\noracle:   {:?} states {:?} races {}",
        show(p),
        explorer.stats,
        explorer.states.iter().map(|s| s.executions).collect::<Vec<_>>(),
        explorer.races.len(),
        explorer.caveats,
        oracle.stats,
        oracle.states.iter().map(|s| s.executions).collect::<Vec<_>>(),
        oracle.races.len(),
    ))
}

/// Runs [`agree_ptx`] on the programs `generate` makes from the seeds of `TCFUZZ_PROP_SEED` /
/// `TCFUZZ_PROP_CASES` / `TCFUZZ_PROP_BASE` (default `default_cases` from `base`); with
/// `TCFUZZ_PROP_ALL`, reports every disagreement before failing. Returns (compared, caveated
/// gaps, too large).
pub fn run_ptx(generate: fn(u64) -> Program, opts: &Options, default_cases: u64, base: u64, what: &str) -> (u64, u64, u64) {
    let seeds: Vec<u64> = match std::env::var("TCFUZZ_PROP_SEED").ok().and_then(|s| s.parse().ok()) {
        Some(seed) => vec![seed],
        None => {
            let cases = std::env::var("TCFUZZ_PROP_CASES").ok().and_then(|s| s.parse().ok()).unwrap_or(default_cases);
            let base = std::env::var("TCFUZZ_PROP_BASE").ok().and_then(|s| s.parse().ok()).unwrap_or(base);
            (base..base + cases).collect()
        }
    };
    let (mut compared, mut gaps, mut skipped) = (0u64, 0u64, 0u64);
    let keep_going = std::env::var("TCFUZZ_PROP_ALL").is_ok();
    let mut failed = Vec::new();
    for &seed in &seeds {
        match agree_ptx(&generate(seed), seed, opts) {
            Ok(Agreement::Same) => compared += 1,
            Ok(Agreement::Gap) => {
                println!("seed {seed}: the explorer misses executions its caveat names");
                compared += 1;
                gaps += 1;
            }
            Ok(Agreement::TooLarge) => skipped += 1,
            Err(msg) if keep_going => {
                println!("{msg}");
                failed.push(seed);
            }
            Err(msg) => panic!("{msg}"),
        }
    }
    println!(
        "{what}: explorer and oracle agree on {} random programs, {gaps} more within the explorer's caveat ({skipped} too large; {} disagree)",
        compared - gaps,
        failed.len()
    );
    assert!(failed.is_empty(), "{} disagree: {failed:?}", failed.len());
    assert!(compared * 10 >= (compared + skipped) * 9, "too many programs skipped: {skipped}");
    (compared, gaps, skipped)
}

/// PTX with TruSt's revisits only (`exclude_porf_cycles`): the explorer covers the executions
/// whose `po ∪ rf` is acyclic; the oracle restricted to those must agree with it exactly.
#[test]
fn explorer_matches_oracle_ptx_porf_acyclic() {
    run_ptx(random_program, &options_porf(), 400, 1_000_000, "Ptx (porf-acyclic)");
}

/// PTX with the explorer's dependency revisits (HMC) against the unrestricted oracle: every
/// execution the model allows, load buffering included, each once. A program whose verdict
/// carries a caveat (a `cas` or a barrier on the cycle, `explore` module docs) may miss the
/// executions it names; none of the default seeds does.
#[test]
fn explorer_matches_oracle_ptx() {
    run_ptx_exact(random_program, &options(), 400, 2_000_000, "Ptx");
}

/// [`run_ptx`], where the default seeds must all be explored exactly (no caveat needed).
pub fn run_ptx_exact(generate: fn(u64) -> Program, opts: &Options, default_cases: u64, base: u64, what: &str) {
    let (_, gaps, _) = run_ptx(generate, opts, default_cases, base, what);
    let defaults = ["TCFUZZ_PROP_SEED", "TCFUZZ_PROP_CASES", "TCFUZZ_PROP_BASE"].iter().all(|v| std::env::var(v).is_err());
    if defaults {
        assert_eq!(gaps, 0, "the default seeds are all explored exactly");
    }
}
