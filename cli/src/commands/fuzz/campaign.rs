//! The loop of `tcfuzz fuzz`: jobs to a thread pool, results into the corpus.
//!
//! Programs are handed out in jobs of [`JOB_PROGRAMS`] indices, at most two jobs per thread in
//! flight (syzkaller's bound). Results are committed in batches; a batch is counted, printed and
//! minimized only after its commit returned, so whatever was printed is on disk. The seed pool
//! the coverage-guided family mutates changes only between epochs of `pool_epoch` programs, with
//! the new seeds chosen in index order: the programs of a campaign do not depend on `-j`.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{Context, anyhow};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use serde_json::json;
use tcfuzz_corpus::{Campaign, CampaignState, Corpus, GpuTotals, Recorded, StatsSample};
use tcfuzz_generator::generate::FamilyKind;
use tcfuzz_generator::mutate::{PoolSeed, SeedPool};
use tcfuzz_proto::{MAX_POOL_BYTES, pool_bytes, seeds_in_pool};
use tcfuzz_worker::{Candidate, Compiler, Executor, Finding, GpuRunner, Hooks, Job, JobResult, LocalGpu, Reference, Stats, Tileiras};

use super::minimizer::{self, Minimizer};
use super::reference::CommandReference;
use crate::commands::interrupt;
use crate::exit;

/// Programs per job.
const JOB_PROGRAMS: u64 = 16;
/// How often results are committed (and the progress bar redrawn) at most.
const COMMIT_EVERY: Duration = Duration::from_millis(250);
/// How often a stats sample is added to the campaign's time series.
const SAMPLE_EVERY: Duration = Duration::from_secs(1);

pub(super) struct Plan {
    pub corpus: PathBuf,
    pub seed: u64,
    pub programs: Option<u64>,
    pub duration: Option<Duration>,
    pub threads: usize,
    pub pool_epoch: u64,
    pub config_text: String,
    pub minimize: Option<Duration>,
    pub json: bool,
    pub quiet: bool,
    /// The GPU, with `--gpu`.
    pub gpu: Option<Arc<LocalGpu>>,
}

fn now_ms() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64)
}

/// The seed pool state: the seeds, how often each feature was seen, which features are known.
/// Each seed keeps what it takes of [`MAX_POOL_BYTES`] (a seed that does not parse is left out of
/// the pool but still takes its place there), so that past the limit the pool keeps the newest
/// seeds a coordinator's `SeedPool` keeps: a campaign and `tcfuzz fuzz` mutate the same seeds.
struct Pool {
    seeds: Vec<(usize, Option<PoolSeed>)>,
    counts: HashMap<String, u64>,
    known: HashSet<String>,
    /// Whether the log said that the pool is past its limit.
    warned: bool,
}

impl Pool {
    fn load(corpus: &Corpus) -> anyhow::Result<Pool> {
        let mut seeds = Vec::new();
        for s in corpus.seeds() {
            let s = s?;
            let bytes = pool_bytes(&s.program, s.features.iter().map(String::as_str));
            match tcfuzz_litmus::parse(&s.program) {
                Ok(program) => seeds.push((bytes, Some(PoolSeed { id: s.id, program, features: s.features }))),
                Err(d) => {
                    tracing::warn!(seed = s.id, "a coverage seed does not parse; left out of the pool: {}", d.render("seed"));
                    seeds.push((bytes, None));
                }
            }
        }
        let counts: HashMap<String, u64> = corpus.coverage()?.into_iter().map(|(f, c)| (f, c.count)).collect();
        let known = counts.keys().cloned().collect();
        Ok(Pool { seeds, counts, known, warned: false })
    }

    /// The seeds the next epoch mutates: the newest that fit in [`MAX_POOL_BYTES`].
    fn snapshot(&mut self) -> (Arc<SeedPool>, Arc<HashSet<String>>) {
        let kept = seeds_in_pool(self.seeds.iter().rev().map(|(bytes, _)| *bytes));
        if kept < self.seeds.len() && !self.warned {
            self.warned = true;
            tracing::warn!(
                seeds = self.seeds.len(),
                kept,
                "the seed pool holds more than {} MiB of programs; its oldest seeds are left out of it (as a coordinator leaves them out)",
                MAX_POOL_BYTES >> 20
            );
        }
        let seeds = self.seeds[self.seeds.len() - kept..].iter().filter_map(|(_, s)| s.clone()).collect();
        (Arc::new(SeedPool::new(seeds, &self.counts)), Arc::new(self.known.clone()))
    }
}

/// Running totals of the run.
#[derive(Default)]
struct Totals {
    stats: Stats,
    new: Vec<(String, String)>,
    seen_again: u64,
    new_features: u64,
    seeds_added: u64,
    /// Programs that reached features first but were past `budget.seed_max_executions`.
    seedless: u64,
    minimized: BTreeMap<(String, String), String>,
}

/// What the output goes through: the progress bar (if any) and the text or JSON stream.
struct Out {
    bar: ProgressBar,
    json: bool,
    quiet: bool,
}

impl Out {
    fn line(&self, text: &str) {
        self.bar.suspend(|| {
            let mut stdout = std::io::stdout().lock();
            let _ = writeln!(stdout, "{text}");
            let _ = stdout.flush();
        });
    }

    fn note(&self, text: &str) {
        if !self.quiet {
            self.bar.suspend(|| eprintln!("{text}"));
        }
    }
}

pub(super) fn run(plan: Plan, executor: Executor) -> anyhow::Result<ExitCode> {
    tcfuzz_worker::crash::install_panic_hook();
    let corpus = match Corpus::open(&plan.corpus) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("error: {e}");
            return Ok(ExitCode::from(exit::INPUT_ERRORS));
        }
    };
    // Installs the Ctrl-C handler; the loop polls `interrupt::pressed`.
    let _ = interrupt::flag();
    let stop = Arc::new(AtomicBool::new(false));
    let executor = Arc::new(executor);
    let bar = if plan.json || plan.quiet || !std::io::stderr().is_terminal() {
        ProgressBar::hidden()
    } else {
        let bar = match plan.programs {
            Some(n) => ProgressBar::with_draw_target(Some(n), ProgressDrawTarget::stderr()),
            None => ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr()),
        };
        let template = if plan.programs.is_some() {
            "{elapsed_precise} {bar:25} {pos}/{len} programs  {msg}"
        } else {
            "{elapsed_precise} {pos} programs  {msg}"
        };
        bar.set_style(ProgressStyle::with_template(template).unwrap_or_else(|_| ProgressStyle::default_bar()));
        bar
    };
    let out = Out { bar, json: plan.json, quiet: plan.quiet };

    // The oracles that need something from outside.
    let config = executor.config().clone();
    let reference: Option<Arc<dyn Reference + Send>> = match &config.oracles.reference {
        Some(r) => Some(Arc::new(
            CommandReference::new(&r.command, Duration::from_millis(r.timeout_ms))
                .context("cannot make a directory for the reference's files")?,
        )),
        None => {
            out.note("note: reference-disagrees is skipped: no reference command in the config (`oracles.reference.command`)");
            None
        }
    };
    let compiler: Option<Arc<dyn Compiler + Send>> = if config.oracles.compiler_lowering == 0 {
        None
    } else {
        match Tileiras::discover() {
            Ok(t) => Some(Arc::new(t)),
            Err(e) => {
                out.note(&format!("note: compiler-lowering is skipped: {e}"));
                None
            }
        }
    };

    let discrepancies_before = corpus.discrepancies().count() as u64;
    let mut pool = Pool::load(&corpus)?;
    let campaign_record = Campaign {
        id: 0,
        name: format!("tcfuzz fuzz, seed {}", plan.seed),
        seed: plan.seed,
        config: plan.config_text.clone(),
        created_ms: now_ms(),
        state: CampaignState::Running,
    };
    let mut u = corpus.update()?;
    let campaign = u.put_campaign(&campaign_record)?;
    u.commit()?;
    if plan.json {
        out.line(&json!({"event": "campaign", "campaign": campaign, "seed": plan.seed}).to_string());
    } else if !plan.quiet {
        out.note(&format!(
            "fuzz: campaign {campaign}, seed {}, {} thread(s), corpus {} ({} seeds, {} features, {} discrepancies)",
            plan.seed,
            plan.threads,
            plan.corpus.display(),
            pool.seeds.len(),
            pool.known.len(),
            discrepancies_before
        ));
    }

    // The thread pool.
    let (job_tx, job_rx) = mpsc::channel::<Job>();
    let job_rx = Arc::new(Mutex::new(job_rx));
    let (result_tx, result_rx) = mpsc::channel::<JobResult>();
    let mut workers = Vec::new();
    for k in 0..plan.threads {
        let (jobs, results, executor, stop) = (job_rx.clone(), result_tx.clone(), executor.clone(), stop.clone());
        let (reference, compiler, gpu) = (reference.clone(), compiler.clone(), plan.gpu.clone());
        // (An explorer's thread: the checks run on it, not each on a thread of its own.)
        let handle = tcfuzz_checker::spawn_explorer_thread(format!("tcfuzz-fuzz-{k}"), move || {
            let hooks = Hooks {
                cancel: Some(&stop),
                reference: reference.as_deref().map(|r| r as &dyn Reference),
                compiler: compiler.as_deref().map(|c| c as &dyn Compiler),
                gpu: gpu.as_deref().map(|g| g as &dyn GpuRunner),
                on_program: None,
            };
            loop {
                let job = match jobs.lock() {
                    Ok(rx) => rx.recv(),
                    Err(_) => break,
                };
                let Ok(job) = job else { break };
                if results.send(executor.run(&job, &hooks)).is_err() {
                    break;
                }
            }
        })
        .context("cannot start a worker thread")?;
        workers.push(handle);
    }
    drop(result_tx);
    // The minimizer's own stop flag: only Ctrl-C stops it. `stop` also ends the generation (at
    // the duration's end, or once every program is out), and a task the minimizer took while
    // it was set would have been skipped.
    let minimize_stop = Arc::new(AtomicBool::new(false));
    let mut minimizer = match plan.minimize {
        Some(budget) => Some(Minimizer::start(executor.clone(), budget, minimize_stop.clone(), reference.clone(), compiler.clone())?),
        None => None,
    };

    let start = Instant::now();
    let limit = plan.programs.unwrap_or(u64::MAX);
    let mut totals = Totals::default();
    let mut next = 0u64;
    let mut epoch_end = plan.pool_epoch.min(limit);
    let (mut pool_now, mut known_now) = pool.snapshot();
    let mut epoch_candidates: Vec<Candidate> = Vec::new();
    let mut in_flight = 0usize;
    let mut pending: Vec<JobResult> = Vec::new();
    let mut last_commit = Instant::now();
    let mut last_sample: Option<Instant> = None;
    let mut was_interrupted = false;
    let mut failure: Option<anyhow::Error> = None;
    loop {
        if !stop.load(Ordering::Relaxed) {
            if interrupt::pressed() {
                was_interrupted = true;
                stop.store(true, Ordering::Relaxed);
                minimize_stop.store(true, Ordering::Relaxed);
                out.note("fuzz: stopping (Ctrl-C); everything recorded so far stays in the corpus");
            } else if plan.duration.is_some_and(|d| start.elapsed() >= d) {
                stop.store(true, Ordering::Relaxed);
            }
        }
        let stopping = stop.load(Ordering::Relaxed);
        while !stopping && in_flight < 2 * plan.threads && next < epoch_end {
            let count = JOB_PROGRAMS.min(epoch_end - next);
            let job = Job { campaign_seed: plan.seed, first_index: next, count, pool: pool_now.clone(), known: known_now.clone() };
            if job_tx.send(job).is_err() {
                return Err(anyhow!("[tcfuzz internal bug] every worker thread is gone"));
            }
            next += count;
            in_flight += 1;
        }
        if in_flight == 0 {
            if !pending.is_empty()
                && let Err(e) = record(
                    &corpus,
                    campaign,
                    &mut pending,
                    &mut epoch_candidates,
                    &mut totals,
                    &mut pool,
                    &out,
                    minimizer.as_mut(),
                    &mut last_sample,
                    discrepancies_before,
                )
            {
                failure = Some(e);
                break;
            }
            // The epoch is complete: its seeds, then the next epoch's pool.
            if let Err(e) = add_seeds(&corpus, campaign, &mut epoch_candidates, &mut pool, &mut totals) {
                failure = Some(e);
                break;
            }
            (pool_now, known_now) = pool.snapshot();
            if stopping || next >= limit {
                break;
            }
            epoch_end = next.saturating_add(plan.pool_epoch).min(limit);
            continue;
        }
        match result_rx.recv_timeout(Duration::from_millis(50)) {
            Ok(r) => {
                in_flight -= 1;
                pending.push(r);
                while let Ok(r) = result_rx.try_recv() {
                    in_flight -= 1;
                    pending.push(r);
                }
            }
            Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => {
                failure = Some(anyhow!("[tcfuzz internal bug] the worker threads stopped"));
                break;
            }
        }
        let findings = pending.iter().any(|r| !r.findings.is_empty());
        if !pending.is_empty() && (findings || last_commit.elapsed() >= COMMIT_EVERY) {
            if let Err(e) = record(
                &corpus,
                campaign,
                &mut pending,
                &mut epoch_candidates,
                &mut totals,
                &mut pool,
                &out,
                minimizer.as_mut(),
                &mut last_sample,
                discrepancies_before,
            ) {
                failure = Some(e);
                break;
            }
            last_commit = Instant::now();
        }
        if let Some(m) = minimizer.as_mut()
            && let Err(e) = drain_minimized(&corpus, m, &mut totals, &out, Duration::ZERO)
        {
            failure = Some(e);
            break;
        }
        progress(&out, &totals, &pool, start, discrepancies_before);
    }
    stop.store(true, Ordering::Relaxed);
    drop(job_tx);
    for w in workers {
        let _ = w.join();
    }
    if let Some(e) = failure {
        out.bar.finish_and_clear();
        return Err(e);
    }
    // Minimize what is queued (unless Ctrl-C), then close.
    if let Some(mut m) = minimizer.take() {
        if !was_interrupted && m.pending() > 0 {
            out.note(&format!("fuzz: minimizing {} new discrepancies (Ctrl-C to stop and keep them unminimized)", m.pending()));
            while m.pending() > 0 {
                if interrupt::pressed() {
                    was_interrupted = true;
                    minimize_stop.store(true, Ordering::Relaxed);
                    break;
                }
                drain_minimized(&corpus, &mut m, &mut totals, &out, Duration::from_millis(100))?;
            }
        }
        minimize_stop.store(true, Ordering::Relaxed);
        m.finish();
    }
    out.bar.finish_and_clear();
    let seconds = start.elapsed().as_secs_f64();
    let discrepancies_total = corpus.discrepancies().count() as u64;
    let coverage_features = corpus.coverage()?.len() as u64;
    let mut u = corpus.update()?;
    u.put_campaign(&Campaign {
        id: campaign,
        state: if was_interrupted { CampaignState::Stopped } else { CampaignState::Finished },
        ..campaign_record
    })?;
    u.add_stats(campaign, &sample(&totals, discrepancies_total, coverage_features))?;
    u.commit()?;
    summary(&plan, &out, &totals, seconds, discrepancies_total, coverage_features, campaign);
    Ok(if was_interrupted { ExitCode::from(exit::INTERRUPTED) } else { ExitCode::SUCCESS })
}

fn sample(totals: &Totals, discrepancies_total: u64, coverage_features: u64) -> StatsSample {
    StatsSample {
        at_ms: now_ms(),
        programs: totals.stats.programs,
        executions: totals.stats.executions,
        too_large: totals.stats.too_large,
        discrepancies_new: totals.new.len() as u64,
        discrepancies_total,
        coverage_features,
        gpu: GpuTotals {
            ran: totals.stats.gpu.ran,
            instances: totals.stats.gpu.instances,
            unsupported: totals.stats.gpu.unsupported,
            failed: totals.stats.gpu.failed,
            given_up: totals.stats.gpu.given_up,
        },
    }
}

/// Commits the pending results (findings, coverage counts, a stats sample) and only then counts
/// them, prints the new discrepancies and hands them to the minimizer.
#[allow(clippy::too_many_arguments)]
fn record(
    corpus: &Corpus,
    campaign: u64,
    pending: &mut Vec<JobResult>,
    candidates: &mut Vec<Candidate>,
    totals: &mut Totals,
    pool: &mut Pool,
    out: &Out,
    minimizer: Option<&mut Minimizer>,
    last_sample: &mut Option<Instant>,
    discrepancies_before: u64,
) -> anyhow::Result<()> {
    let now = now_ms();
    let mut u = corpus.update()?;
    let mut new: Vec<Finding> = Vec::new();
    let mut seen_again = 0;
    let mut stats = Stats::default();
    let mut features: BTreeMap<String, u64> = BTreeMap::new();
    for r in pending.iter() {
        stats.add(&r.stats);
        for e in &r.errors {
            tracing::error!("{e}");
        }
        for f in &r.findings {
            let finding = tcfuzz_corpus::Finding {
                kind: f.kind.name().parse().map_err(|e| anyhow!("[tcfuzz internal bug] {e}"))?,
                signature: f.signature.clone(),
                campaign,
                seen_ms: now,
                program: f.program.clone(),
                sides: [
                    tcfuzz_corpus::Side { name: f.sides[0].name.clone(), verdict: f.sides[0].verdict.clone() },
                    tcfuzz_corpus::Side { name: f.sides[1].name.clone(), verdict: f.sides[1].verdict.clone() },
                ],
            };
            match u.record_discrepancy(&finding)? {
                Recorded::New => new.push(f.clone()),
                Recorded::Seen { .. } => seen_again += 1,
            }
        }
        for (f, n) in &r.features {
            *features.entry(f.clone()).or_insert(0) += n;
        }
    }
    // One read and one write per feature of the batch, not one per program that reached it.
    let counts: Vec<(String, u64)> = features.iter().map(|(f, &n)| (f.clone(), n)).collect();
    let new_features = u.add_coverage_counts(&counts, now)?;
    let mut after = Totals { stats: totals.stats.clone(), new: totals.new.clone(), ..Totals::default() };
    after.stats.add(&stats);
    after.new.extend(new.iter().map(|f| (f.kind.name().to_string(), f.signature.clone())));
    if last_sample.is_none_or(|t| t.elapsed() >= SAMPLE_EVERY) {
        let total = discrepancies_before + after.new.len() as u64;
        u.add_stats(campaign, &sample(&after, total, pool.counts.len() as u64 + new_features))?;
        *last_sample = Some(Instant::now());
    }
    u.commit()?;
    // On disk: count, print, minimize.
    for r in pending.drain(..) {
        candidates.extend(r.candidates);
    }
    totals.stats = after.stats;
    totals.new = after.new;
    totals.seen_again += seen_again;
    totals.new_features += new_features;
    for (f, n) in features {
        *pool.counts.entry(f).or_insert(0) += n;
    }
    let mut minimizer = minimizer;
    for f in new {
        if out.json {
            out.line(
                &json!({"event": "discrepancy", "kind": f.kind.name(), "signature": f.signature, "index": f.index, "summary": f.summary})
                    .to_string(),
            );
        } else if !out.quiet {
            out.line(&format!("new discrepancy: {} {}\n  program {}: {}", f.kind, f.signature, f.index, f.summary));
        }
        if let Some(m) = minimizer.as_deref_mut() {
            m.submit(minimizer::Task {
                kind: f.kind,
                signature: f.signature.clone(),
                program: f.program.clone(),
                recheck: f.recheck.clone(),
            });
        }
    }
    Ok(())
}

/// Turns the epoch's candidates into seeds, in index order: a candidate becomes a seed with the
/// features no earlier program (of this epoch or before) reached; one without a program (past
/// `budget.seed_max_executions`) takes them and becomes no seed.
fn add_seeds(corpus: &Corpus, campaign: u64, candidates: &mut Vec<Candidate>, pool: &mut Pool, totals: &mut Totals) -> anyhow::Result<()> {
    candidates.sort_by_key(|c| c.index);
    let mut u = corpus.update()?;
    let mut added = Vec::new();
    for c in candidates.drain(..) {
        let new: Vec<String> = c.features.iter().filter(|f| !pool.known.contains(*f)).cloned().collect();
        if new.is_empty() {
            continue;
        }
        pool.known.extend(new.iter().cloned());
        let Some(text) = &c.program else {
            totals.seedless += 1;
            continue;
        };
        if let Some(id) = u.add_seed(campaign, now_ms(), &new, text)? {
            let program = tcfuzz_litmus::parse(text)
                .map_err(|d| anyhow!("[tcfuzz internal bug] a generated program does not parse back: {}", d.render("seed")))?;
            added.push((pool_bytes(text, new.iter().map(String::as_str)), Some(PoolSeed { id, program, features: new })));
        }
    }
    u.commit()?;
    totals.seeds_added += added.len() as u64;
    pool.seeds.extend(added);
    Ok(())
}

/// Stores finished minimizations (waiting at most `wait` for one) and prints them.
fn drain_minimized(corpus: &Corpus, m: &mut Minimizer, totals: &mut Totals, out: &Out, wait: Duration) -> anyhow::Result<()> {
    let mut wait = wait;
    while let Some(done) = m.next(wait) {
        wait = Duration::ZERO;
        match done.result {
            Ok(min) => {
                let kind = done.kind.name().parse().map_err(|e| anyhow!("[tcfuzz internal bug] {e}"))?;
                let mut u = corpus.update()?;
                u.set_minimized(kind, &done.signature, &min.program)?;
                u.commit()?;
                totals.minimized.insert((done.kind.name().to_string(), done.signature.clone()), min.to.to_string());
                if out.json {
                    let size = |s: tcfuzz_generator::minimize::Size| json!({"threads": s.threads, "instructions": s.instructions, "locations": s.locations});
                    out.line(
                        &json!({"event": "minimized", "kind": done.kind.name(), "signature": done.signature, "original": size(min.from), "minimized": size(min.to), "seconds": min.seconds, "budget_exhausted": min.exhausted})
                            .to_string(),
                    );
                } else if !out.quiet {
                    out.line(&format!(
                        "minimized: {} {}: {} → {} in {:.2} s{}",
                        done.kind,
                        done.signature,
                        min.from,
                        min.to,
                        min.seconds,
                        if min.exhausted { " (budget ran out: not necessarily 1-minimal)" } else { "" }
                    ));
                }
            }
            Err(why) => {
                tracing::info!(kind = done.kind.name(), signature = done.signature, "not minimized: {why}");
            }
        }
    }
    Ok(())
}

fn progress(out: &Out, totals: &Totals, pool: &Pool, start: Instant, discrepancies_before: u64) {
    let s = start.elapsed().as_secs_f64().max(1e-9);
    out.bar.set_position(totals.stats.programs);
    out.bar.set_message(format!(
        "{:.0} programs/s, {:.0} executions/s, discrepancies {} new / {} total, {} features",
        totals.stats.programs as f64 / s,
        totals.stats.executions as f64 / s,
        totals.new.len(),
        discrepancies_before + totals.new.len() as u64,
        pool.counts.len()
    ));
}

fn per_s(n: u64, seconds: f64) -> f64 {
    if seconds > 0.0 { n as f64 / seconds } else { 0.0 }
}

fn summary(plan: &Plan, out: &Out, totals: &Totals, seconds: f64, discrepancies_total: u64, coverage_features: u64, campaign: u64) {
    let st = &totals.stats;
    let families: BTreeMap<&str, serde_json::Value> = FamilyKind::ALL
        .iter()
        .filter_map(|f| st.by_family.get(f).map(|s| (f, s)))
        .map(|(f, s)| {
            let secs = s.nanos as f64 / 1e9;
            (
                f.name(),
                json!({
                    "programs": s.programs, "executions": s.executions, "seconds": secs,
                    "programs_per_s": per_s(s.programs, secs), "executions_per_s": per_s(s.executions, secs),
                    "too_large": s.too_large, "too_large_seconds": s.too_large_nanos as f64 / 1e9,
                }),
            )
        })
        .collect();
    if plan.json {
        out.line(&json!({"event": "families", "families": families}).to_string());
        let mut summary = json!({
            "programs": st.programs,
            "executions": st.executions,
            "too_large": st.too_large,
            "discrepancies_new": totals.new.len(),
            "discrepancies_total": discrepancies_total,
            "coverage_features": coverage_features,
            "seconds": seconds,
            "programs_per_s": per_s(st.programs, seconds),
            "executions_per_s": per_s(st.executions, seconds),
        });
        if plan.gpu.is_some() {
            let g = &st.gpu;
            summary["gpu"] = json!({
                "ran": g.ran, "instances": g.instances, "unsupported": g.unsupported,
                "failed": g.failed, "first_failure": g.first_failure, "given_up": g.given_up,
            });
        }
        out.line(&summary.to_string());
        return;
    }
    if plan.quiet {
        return;
    }
    let mut text = format!(
        "fuzz: {} programs ({} too large, {} unsupported), {} executions in {seconds:.1} s: {:.0} programs/s, {:.0} executions/s\n",
        st.programs,
        st.too_large,
        st.unsupported,
        st.executions,
        per_s(st.programs, seconds),
        per_s(st.executions, seconds)
    );
    for f in FamilyKind::ALL {
        if let Some(s) = st.by_family.get(&f) {
            let secs = s.nanos as f64 / 1e9;
            text.push_str(&format!(
                "  {:<8} {:>8} programs, {:>10} executions, {:>7.0} programs/s and {:>9.0} executions/s per thread; {} too large ({:.0} % of its time)\n",
                f.name(),
                s.programs,
                s.executions,
                per_s(s.programs, secs),
                per_s(s.executions, secs),
                s.too_large,
                if s.nanos > 0 { 100.0 * s.too_large_nanos as f64 / s.nanos as f64 } else { 0.0 }
            ));
        }
    }
    text.push_str(&format!(
        "discrepancies: {} new, {} seen again, {} in the corpus\n",
        totals.new.len(),
        totals.seen_again,
        discrepancies_total
    ));
    for (kind, signature) in &totals.new {
        let min = totals.minimized.get(&(kind.clone(), signature.clone())).map_or(String::new(), |s| format!("  (minimized: {s})"));
        text.push_str(&format!("  {kind}: {signature}{min}\n"));
    }
    text.push_str(&format!(
        "coverage: {coverage_features} features ({} new), {} seeds added, {} programs that reached features first made \
         none (past budget.seed_max_executions); oracles ran {} times ({} skipped)\n",
        totals.new_features, totals.seeds_added, totals.seedless, st.oracle_runs, st.oracle_skipped
    ));
    if let Some(gpu) = &plan.gpu {
        let g = &st.gpu;
        text.push_str(&format!(
            "gpu: {} programs ran on the {} ({} instances), {} not runnable there, {} failed{}{}\n",
            g.ran,
            gpu.describe(),
            g.instances,
            g.unsupported,
            g.failed,
            g.first_failure.as_ref().map_or(String::new(), |f| format!(" (first: {f})")),
            if g.given_up > 0 {
                format!("; {} more not run: the GPU was given up after a hung or faulted kernel", g.given_up)
            } else {
                String::new()
            }
        ));
    }
    if totals.new.is_empty() {
        text.push_str(&format!("campaign {campaign} (seed {}) is in {}", plan.seed, plan.corpus.display()));
    } else {
        text.push_str(&format!(
            "campaign {campaign} (seed {}) is in {}; `tcfuzz corpus show --corpus {} KIND SIGNATURE` shows a discrepancy with its programs",
            plan.seed,
            plan.corpus.display(),
            plan.corpus.display()
        ));
    }
    out.line(&text);
}
