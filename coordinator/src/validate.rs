//! Checks every incoming message before it reaches the ledger (DESIGN §5: workers are not
//! trusted): sizes, enum values, programs that parse, counts that agree. A failure names the
//! field (`results[2].findings[0].program`) and what was wrong; nothing has been written.
//!
//! What needs the job (ranges, counts against the job's size) is checked by [`matches_job`],
//! which the ledger calls before it writes anything of that request.

use std::collections::BTreeSet;

use tcfuzz_corpus::{GpuTotals, Kind, Side, Work};
use tcfuzz_proto::v1;

use crate::error::{ServiceError, invalid};

pub const MAX_ID: usize = 64;
pub const MAX_NAME: usize = 128;
pub const MAX_GPU_ARCH: usize = 32;
pub const MAX_VERSION: usize = 64;
pub const MAX_CORES: u32 = 4096;
/// Results, returned jobs or held jobs in one message (2 × the most cores).
pub const MAX_JOBS_PER_MESSAGE: usize = 2 * MAX_CORES as usize;
pub const MAX_PROGRAM: usize = 64 << 10;
pub const MAX_VERDICT: usize = 64 << 10;
pub const MAX_CONFIG: usize = 64 << 10;
pub const MAX_SIGNATURE: usize = 1024;
pub const MAX_SIDE_NAME: usize = 64;
pub const MAX_FEATURE: usize = 256;
pub const MAX_FINDINGS_PER_JOB: usize = 1000;
pub const MAX_COVERAGE_PER_JOB: usize = 10_000;
/// Seed candidates of one job: one per program at most (a worker sends a program only if it was
/// the first of its job to reach a feature its pool lacks), so a job of at most
/// [`MAX_JOB_PROGRAMS`] programs never has more, whatever it reaches.
pub const MAX_SEEDS_PER_JOB: usize = 1000;
pub const MAX_FEATURES_PER_SEED: usize = 256;
/// Programs of one job: at most [`MAX_SEEDS_PER_JOB`], so that no job's report can be refused
/// for its seed candidates (in a campaign's first epoch, with an empty pool, most programs of a
/// first job reach a feature no earlier one did).
pub const MAX_JOB_PROGRAMS: u64 = MAX_SEEDS_PER_JOB as u64;
pub const MAX_POOL_EPOCH: u64 = 1_000_000_000;
pub const MAX_LIST: u32 = 1000;
pub const MAX_ERROR: usize = 4 << 10;
/// Parts of one exploration at most.
pub const MAX_PARTS: usize = 100_000;
/// A subtree's text at most (a path of a few hundred levels).
pub const MAX_SUBTREE: usize = 4 << 10;
pub const MAX_LOOP_BOUND: u32 = 1_000_000;
/// Final states of one part at most, and values per state.
pub const MAX_PART_STATES: usize = 1_000_000;
pub const MAX_STATE_NAMES: usize = 1024;
/// Subtrees one sliced part gives back at most (about one per level of its exploration tree).
pub const MAX_PART_REST: usize = 10_000;
/// A part's slice at most, in milliseconds (an hour).
pub const MAX_SLICE_MS: u32 = 3_600_000;
/// Thread names and caveats of one part at most (each [`MAX_ERROR`] bytes).
pub const MAX_PART_TEXTS: usize = 1024;
/// The kinds of race and the Tensor Memory allocator rules a part may report (the checker's
/// names; the coordinator does not link it).
pub const RACE_KINDS: [&str; 3] = ["data", "tmem", "proxy"];
pub const MISUSE_RULES: [&str; 4] = ["alloc-after-relinquish", "dealloc-not-allocated", "exit-with-live-columns", "peer-cta-exited"];
/// The models a worker's checker knows, by name.
pub const MODELS: [&str; 3] = ["ptx", "sc", "tileir"];

/// A finding of a report, checked.
#[derive(Clone, Debug, PartialEq)]
pub struct Finding {
    pub kind: Kind,
    pub signature: String,
    pub index: u64,
    pub program: String,
    pub sides: [Side; 2],
}

/// A coverage seed candidate, checked.
#[derive(Clone, Debug, PartialEq)]
pub struct SeedCandidate {
    pub index: u64,
    pub features: Vec<String>,
    /// `None`: the candidate takes its features and makes no seed (an empty `program`).
    pub program: Option<String>,
}

/// One job's result, checked.
#[derive(Clone, Debug, PartialEq)]
pub struct JobResult {
    pub job_id: u64,
    pub programs: u64,
    pub executions: u64,
    pub too_large: u64,
    /// What the worker's GPU oracle did.
    pub gpu: GpuTotals,
    pub findings: Vec<Finding>,
    pub coverage: Vec<(String, u64)>,
    pub seeds: Vec<SeedCandidate>,
    pub minimized: Option<String>,
    /// An explore job's part verdict.
    pub part: Option<v1::PartVerdict>,
    /// The job could not run (then nothing else is set).
    pub error: Option<String>,
    /// The worker's results were refused for good: the job is recorded as failed, with this
    /// reason (then nothing else is set).
    pub refused: Option<String>,
}

/// A report, checked.
#[derive(Clone, Debug, PartialEq)]
pub struct Report {
    pub worker_id: String,
    pub results: Vec<JobResult>,
    pub returned: Vec<u64>,
}

/// The corpus kind of a protocol kind; UNSPECIFIED and unknown numbers are errors.
pub fn kind(value: i32, field: &str) -> Result<Kind, ServiceError> {
    use v1::DiscrepancyKind as K;
    let kind = match K::try_from(value).ok() {
        Some(K::GpuForbiddenOutcome) => Kind::GpuForbiddenOutcome,
        Some(K::TileirWeakerThanPtx) => Kind::TileirWeakerThanPtx,
        Some(K::CompilerLowering) => Kind::CompilerLowering,
        Some(K::ExplorerVsOracle) => Kind::ExplorerVsOracle,
        Some(K::PatternBroken) => Kind::PatternBroken,
        Some(K::SyncRedundant) => Kind::SyncRedundant,
        Some(K::ReferenceDisagrees) => Kind::ReferenceDisagrees,
        Some(K::CheckerCrash) => Kind::CheckerCrash,
        Some(K::Unspecified) => return Err(invalid!("{field}: a discrepancy kind is required")),
        None => return Err(invalid!("{field}: {value} is not a discrepancy kind")),
    };
    Ok(kind)
}

/// The protocol kind of a corpus kind.
pub fn kind_to_proto(kind: Kind) -> v1::DiscrepancyKind {
    use v1::DiscrepancyKind as K;
    match kind {
        Kind::GpuForbiddenOutcome => K::GpuForbiddenOutcome,
        Kind::TileirWeakerThanPtx => K::TileirWeakerThanPtx,
        Kind::CompilerLowering => K::CompilerLowering,
        Kind::ExplorerVsOracle => K::ExplorerVsOracle,
        Kind::PatternBroken => K::PatternBroken,
        Kind::SyncRedundant => K::SyncRedundant,
        Kind::ReferenceDisagrees => K::ReferenceDisagrees,
        Kind::CheckerCrash => K::CheckerCrash,
    }
}

fn text(value: &str, field: &str, min: usize, max: usize) -> Result<(), ServiceError> {
    if value.len() < min {
        return Err(if min == 1 { invalid!("{field}: must not be empty") } else { invalid!("{field}: shorter than {min} bytes") });
    }
    if value.len() > max {
        return Err(invalid!("{field}: {} bytes, more than the {max} allowed", value.len()));
    }
    if value.chars().any(|c| c.is_control() && c != '\n' && c != '\t' && c != '\r') {
        return Err(invalid!("{field}: contains control characters"));
    }
    Ok(())
}

/// An id: printable ASCII without spaces.
pub fn worker_id(value: &str, field: &str) -> Result<(), ServiceError> {
    text(value, field, 1, MAX_ID)?;
    if !value.bytes().all(|b| b.is_ascii_graphic()) {
        return Err(invalid!("{field}: `{}` is not printable ASCII without spaces", value.escape_debug()));
    }
    Ok(())
}

/// A program: at most [`MAX_PROGRAM`] bytes and a valid litmus program.
pub fn program(value: &str, field: &str) -> Result<(), ServiceError> {
    text(value, field, 1, MAX_PROGRAM)?;
    tcfuzz_litmus::parse(value).map(|_| ()).map_err(|d| {
        let first = d.0.first().map_or_else(|| "no diagnostic".to_string(), |d| d.to_string());
        invalid!("{field}: not a valid litmus program: {first}")
    })
}

fn count(n: usize, field: &str, max: usize) -> Result<(), ServiceError> {
    if n > max { Err(invalid!("{field}: {n} entries, more than the {max} allowed")) } else { Ok(()) }
}

fn distinct(ids: &[u64], field: &str) -> Result<(), ServiceError> {
    let mut seen = BTreeSet::new();
    match ids.iter().find(|id| !seen.insert(**id)) {
        Some(id) => Err(invalid!("{field}: job {id} appears twice")),
        None => Ok(()),
    }
}

pub fn register(r: &v1::RegisterRequest) -> Result<(), ServiceError> {
    if !(1..=MAX_CORES).contains(&r.cores) {
        return Err(invalid!("cores: {} is not in 1..={MAX_CORES}", r.cores));
    }
    text(&r.gpu_arch, "gpu_arch", 0, MAX_GPU_ARCH)?;
    text(&r.version, "version", 1, MAX_VERSION)?;
    text(&r.name, "name", 0, MAX_NAME)?;
    if !r.resume_worker_id.is_empty() {
        worker_id(&r.resume_worker_id, "resume_worker_id")?;
    }
    Ok(())
}

pub fn lease(r: &v1::LeaseJobsRequest) -> Result<(), ServiceError> {
    worker_id(&r.worker_id, "worker_id")?;
    if r.max_jobs == 0 || r.max_jobs as usize > MAX_JOBS_PER_MESSAGE {
        return Err(invalid!("max_jobs: {} is not in 1..={MAX_JOBS_PER_MESSAGE}", r.max_jobs));
    }
    Ok(())
}

pub fn heartbeat(r: &v1::HeartbeatRequest) -> Result<(), ServiceError> {
    worker_id(&r.worker_id, "worker_id")?;
    count(r.job_ids.len(), "job_ids", MAX_JOBS_PER_MESSAGE)?;
    distinct(&r.job_ids, "job_ids")?;
    if let Some(c) = &r.checking {
        program(&c.program, "checking.program")?;
        if !r.job_ids.contains(&c.job_id) {
            return Err(invalid!("checking.job_id: job {} is not among job_ids", c.job_id));
        }
    }
    Ok(())
}

/// Checks a report and converts it. Parses every program in it: run it off the async threads.
pub fn report(r: v1::ReportResultsRequest) -> Result<Report, ServiceError> {
    worker_id(&r.worker_id, "worker_id")?;
    count(r.results.len(), "results", MAX_JOBS_PER_MESSAGE)?;
    count(r.returned_job_ids.len(), "returned_job_ids", MAX_JOBS_PER_MESSAGE)?;
    let mut ids: Vec<u64> = r.results.iter().map(|x| x.job_id).collect();
    ids.extend(&r.returned_job_ids);
    distinct(&ids, "results and returned_job_ids")?;
    let results = r.results.into_iter().enumerate().map(|(i, x)| job_result(x, &format!("results[{i}]"))).collect::<Result<_, _>>()?;
    Ok(Report { worker_id: r.worker_id, results, returned: r.returned_job_ids })
}

fn job_result(r: v1::JobResult, at: &str) -> Result<JobResult, ServiceError> {
    if !r.error.is_empty() || !r.refused.is_empty() {
        let (field, why) = if r.refused.is_empty() { ("error", &r.error) } else { ("refused", &r.refused) };
        text(why, &format!("{at}.{field}"), 1, MAX_ERROR)?;
        let empty = r.stats.unwrap_or_default() == v1::Stats::default()
            && r.findings.is_empty()
            && r.coverage.is_empty()
            && r.seeds.is_empty()
            && r.minimized.is_empty()
            && r.part.is_none()
            && (r.error.is_empty() || r.refused.is_empty());
        if !empty {
            return Err(invalid!("{at}: a result with `{field}` set has nothing else"));
        }
        let refused = !r.refused.is_empty();
        return Ok(JobResult {
            job_id: r.job_id,
            programs: 0,
            executions: 0,
            too_large: 0,
            gpu: GpuTotals::default(),
            findings: Vec::new(),
            coverage: Vec::new(),
            seeds: Vec::new(),
            minimized: None,
            part: None,
            error: (!refused).then_some(r.error),
            refused: refused.then_some(r.refused),
        });
    }
    let stats = r.stats.unwrap_or_default();
    if stats.too_large > stats.programs {
        return Err(invalid!("{at}.stats: too_large {} is more than programs {}", stats.too_large, stats.programs));
    }
    let gpu = GpuTotals {
        ran: stats.gpu_ran,
        instances: stats.gpu_instances,
        unsupported: stats.gpu_unsupported,
        failed: stats.gpu_failed,
        given_up: stats.gpu_given_up,
    };
    // Each program is run on the GPU at most once, or counted as not run at most once.
    let gpu_programs = [gpu.ran, gpu.unsupported, gpu.failed, gpu.given_up].iter().try_fold(0u64, |a, &n| a.checked_add(n));
    if gpu_programs.is_none_or(|n| n > stats.programs) {
        return Err(invalid!(
            "{at}.stats: gpu_ran {} + gpu_unsupported {} + gpu_failed {} + gpu_given_up {} is more than programs {}",
            gpu.ran,
            gpu.unsupported,
            gpu.failed,
            gpu.given_up,
            stats.programs
        ));
    }
    count(r.findings.len(), &format!("{at}.findings"), MAX_FINDINGS_PER_JOB)?;
    count(r.coverage.len(), &format!("{at}.coverage"), MAX_COVERAGE_PER_JOB)?;
    count(r.seeds.len(), &format!("{at}.seeds"), MAX_SEEDS_PER_JOB)?;
    let mut findings = Vec::with_capacity(r.findings.len());
    let mut seen = BTreeSet::new();
    for (i, f) in r.findings.into_iter().enumerate() {
        let at = format!("{at}.findings[{i}]");
        let kind = kind(f.kind, &format!("{at}.kind"))?;
        text(&f.signature, &format!("{at}.signature"), 1, MAX_SIGNATURE)?;
        program(&f.program, &format!("{at}.program"))?;
        if f.sides.len() != 2 {
            return Err(invalid!("{at}.sides: {} sides, a discrepancy has exactly 2", f.sides.len()));
        }
        for (j, s) in f.sides.iter().enumerate() {
            text(&s.name, &format!("{at}.sides[{j}].name"), 1, MAX_SIDE_NAME)?;
            text(&s.verdict, &format!("{at}.sides[{j}].verdict"), 0, MAX_VERDICT)?;
        }
        // One program may show a kind twice (explorer-vs-oracle under two models), never twice
        // the same discrepancy.
        if !seen.insert((f.index, kind, f.signature.clone())) {
            return Err(invalid!("{at}: a second `{kind}` finding `{}` for program {}", f.signature, f.index));
        }
        let mut sides = f.sides.into_iter().map(|s| Side { name: s.name, verdict: s.verdict });
        let sides = [sides.next().unwrap_or_else(|| unreachable!()), sides.next().unwrap_or_else(|| unreachable!())];
        findings.push(Finding { kind, signature: f.signature, index: f.index, program: f.program, sides });
    }
    let mut names = BTreeSet::new();
    let mut coverage = Vec::with_capacity(r.coverage.len());
    for (i, c) in r.coverage.into_iter().enumerate() {
        let at = format!("{at}.coverage[{i}]");
        text(&c.name, &format!("{at}.name"), 1, MAX_FEATURE)?;
        if c.count == 0 || c.count > stats.programs.max(1) {
            return Err(invalid!("{at}.count: {} is not in 1..={} (the job's programs)", c.count, stats.programs.max(1)));
        }
        if !names.insert(c.name.clone()) {
            return Err(invalid!("{at}.name: `{}` appears twice", c.name));
        }
        coverage.push((c.name, c.count));
    }
    let mut seeds = Vec::with_capacity(r.seeds.len());
    for (i, s) in r.seeds.into_iter().enumerate() {
        let at = format!("{at}.seeds[{i}]");
        if s.features.is_empty() {
            return Err(invalid!("{at}.features: a seed reached at least one feature"));
        }
        count(s.features.len(), &format!("{at}.features"), MAX_FEATURES_PER_SEED)?;
        for (j, f) in s.features.iter().enumerate() {
            text(f, &format!("{at}.features[{j}]"), 1, MAX_FEATURE)?;
        }
        let program_text = if s.program.is_empty() {
            None
        } else {
            program(&s.program, &format!("{at}.program"))?;
            Some(s.program)
        };
        seeds.push(SeedCandidate { index: s.index, features: s.features, program: program_text });
    }
    let minimized = if r.minimized.is_empty() {
        None
    } else {
        program(&r.minimized, &format!("{at}.minimized"))?;
        Some(r.minimized)
    };
    if let Some(p) = &r.part {
        part_verdict(p, &format!("{at}.part"))?;
    }
    Ok(JobResult {
        job_id: r.job_id,
        programs: stats.programs,
        executions: stats.executions,
        too_large: stats.too_large,
        gpu,
        findings,
        coverage,
        seeds,
        minimized,
        part: r.part,
        error: None,
        refused: None,
    })
}

/// A part verdict: sizes, and states that add up to its complete executions.
fn part_verdict(p: &v1::PartVerdict, at: &str) -> Result<(), ServiceError> {
    count(p.state_names.len(), &format!("{at}.state_names"), MAX_STATE_NAMES)?;
    for (i, n) in p.state_names.iter().enumerate() {
        text(n, &format!("{at}.state_names[{i}]"), 1, MAX_NAME)?;
    }
    count(p.states.len(), &format!("{at}.states"), MAX_PART_STATES)?;
    let mut seen = BTreeSet::new();
    let mut executions: u64 = 0;
    for (i, s) in p.states.iter().enumerate() {
        if s.values.len() != p.state_names.len() {
            return Err(invalid!("{at}.states[{i}]: {} values for {} names", s.values.len(), p.state_names.len()));
        }
        if s.executions == 0 {
            return Err(invalid!("{at}.states[{i}].executions: a final state has at least one execution"));
        }
        if !seen.insert(&s.values) {
            return Err(invalid!("{at}.states[{i}]: the state {:?} appears twice", s.values));
        }
        executions = executions.saturating_add(s.executions);
    }
    if executions.saturating_add(p.omitted_executions) != p.complete {
        return Err(invalid!(
            "{at}: the states' executions and omitted_executions add up to {}, not to complete {}",
            executions.saturating_add(p.omitted_executions),
            p.complete
        ));
    }
    if (p.omitted_states == 0) != (p.omitted_executions == 0) {
        return Err(invalid!("{at}: {} omitted_states with {} omitted_executions", p.omitted_states, p.omitted_executions));
    }
    count(p.race_list.len(), &format!("{at}.race_list"), MAX_PART_TEXTS)?;
    count(p.misuse_list.len(), &format!("{at}.misuse_list"), MAX_PART_TEXTS)?;
    if (p.races, p.misuse) != (p.race_list.len() as u64, p.misuse_list.len() as u64) {
        return Err(invalid!(
            "{at}: races {} and misuse {} are not the {} races and {} misuses listed",
            p.races,
            p.misuse,
            p.race_list.len(),
            p.misuse_list.len()
        ));
    }
    for (i, r) in p.race_list.iter().enumerate() {
        let at = format!("{at}.race_list[{i}]");
        if !RACE_KINDS.contains(&r.kind.as_str()) {
            return Err(invalid!("{at}.kind: `{}` is not one of {}", r.kind.escape_debug(), RACE_KINDS.join(", ")));
        }
        text(&r.rule, &format!("{at}.rule"), 1, MAX_ERROR)?;
        for (side, e) in [("first", &r.first), ("second", &r.second)] {
            let e = e.as_ref().ok_or_else(|| invalid!("{at}.{side}: required"))?;
            text(&e.thread, &format!("{at}.{side}.thread"), 1, MAX_NAME)?;
            text(&e.location, &format!("{at}.{side}.location"), 1, MAX_NAME)?;
            if e.access != "read" && e.access != "write" {
                return Err(invalid!("{at}.{side}.access: `{}` is not read or write", e.access.escape_debug()));
            }
        }
    }
    for (i, m) in p.misuse_list.iter().enumerate() {
        let at = format!("{at}.misuse_list[{i}]");
        if !MISUSE_RULES.contains(&m.rule.as_str()) {
            return Err(invalid!("{at}.rule: `{}` is not one of {}", m.rule.escape_debug(), MISUSE_RULES.join(", ")));
        }
        text(&m.thread, &format!("{at}.thread"), 1, MAX_NAME)?;
    }
    count(p.rest.len(), &format!("{at}.rest"), MAX_PART_REST)?;
    if !p.rest.is_empty() && p.yielded_at == 0 {
        return Err(invalid!("{at}.rest: {} subtrees given back, but yielded_at is 0", p.rest.len()));
    }
    let distinct = (p.states.len() as u64).saturating_add(p.omitted_states);
    if p.positive.saturating_add(p.negative) != distinct {
        return Err(invalid!(
            "{at}: positive {} and negative {} states do not add up to the {distinct} states (kept and omitted)",
            p.positive,
            p.negative
        ));
    }
    if !p.duplicates_counted && p.duplicates != 0 {
        return Err(invalid!("{at}.duplicates: {} duplicates, but duplicates_counted is false", p.duplicates));
    }
    for (field, items) in [("blocked_threads", &p.blocked_threads), ("hung_threads", &p.hung_threads), ("caveats", &p.caveats)] {
        count(items.len(), &format!("{at}.{field}"), MAX_PART_TEXTS)?;
        for (i, t) in items.iter().enumerate() {
            text(t, &format!("{at}.{field}[{i}]"), 1, MAX_ERROR)?;
        }
    }
    Ok(())
}

/// Checks a subtree's text form as the checker prints it, `subtree HEX:VARIANT:I.J.K` (with a
/// `+` after the path for a rest a sliced part gave back); returns
/// its HEX (the check it belongs to). The coordinator does not link the checker: this is the
/// syntax only.
pub fn subtree(value: &str, field: &str) -> Result<String, ServiceError> {
    text(value, field, 1, MAX_SUBTREE)?;
    let bad = || invalid!("{field}: `{}` is not a subtree (expected `subtree HEX:VARIANT:I.J.K` or `…I.J.K+`)", value.escape_debug());
    let rest = value.strip_prefix("subtree ").ok_or_else(bad)?;
    let mut fields = rest.split(':');
    let (Some(check), Some(variant), Some(path), None) = (fields.next(), fields.next(), fields.next(), fields.next()) else {
        return Err(bad());
    };
    let number = |t: &str| !t.is_empty() && t.len() <= 10 && t.bytes().all(|b| b.is_ascii_digit()) && t.parse::<u32>().is_ok();
    let hex = !check.is_empty() && check.len() <= 16 && check.bytes().all(|b| b.is_ascii_hexdigit());
    let path = path.strip_suffix('+').unwrap_or(path);
    if !hex || !number(variant) || !path.split('.').all(number) {
        return Err(bad());
    }
    Ok(check.to_ascii_lowercase())
}

/// Checks an exploration request: the program parses, the model is known, the subtrees are
/// distinct subtrees of one check.
pub fn explore_program(r: &v1::ExploreProgramRequest) -> Result<(), ServiceError> {
    program(&r.program, "program")?;
    if !MODELS.contains(&r.model.as_str()) {
        return Err(invalid!("model: `{}` is not one of {}", r.model.escape_debug(), MODELS.join(", ")));
    }
    if !(1..=MAX_LOOP_BOUND).contains(&r.loop_bound) {
        return Err(invalid!("loop_bound: {} is not in 1..={MAX_LOOP_BOUND}", r.loop_bound));
    }
    text(&r.name, "name", 0, MAX_NAME)?;
    if r.max_states as usize > MAX_PART_STATES {
        return Err(invalid!("max_states: {} is more than {MAX_PART_STATES}", r.max_states));
    }
    if r.slice_ms > MAX_SLICE_MS {
        return Err(invalid!("slice_ms: {} is more than {MAX_SLICE_MS}", r.slice_ms));
    }
    if r.subtrees.is_empty() {
        return Err(invalid!("subtrees: an exploration has at least one part"));
    }
    count(r.subtrees.len(), "subtrees", MAX_PARTS)?;
    let mut seen = BTreeSet::new();
    let mut check = None;
    for (i, s) in r.subtrees.iter().enumerate() {
        let field = format!("subtrees[{i}]");
        let hex = subtree(s, &field)?;
        if *check.get_or_insert_with(|| hex.clone()) != hex {
            return Err(invalid!("{field}: a subtree of another check than subtrees[0]"));
        }
        if !seen.insert(s.as_str()) {
            return Err(invalid!("{field}: `{s}` appears twice"));
        }
    }
    Ok(())
}

/// Checks that a result fits its job: a generation job reports every program of its range and
/// findings and seeds inside it; a minimization job reports no programs, findings or seeds.
pub fn matches_job(r: &JobResult, work: &Work, at: &str) -> Result<(), ServiceError> {
    if r.error.is_some() || r.refused.is_some() {
        return Ok(());
    }
    match work {
        Work::Generate { first_index, count } => {
            let range = *first_index..first_index.saturating_add(*count);
            if r.programs != *count {
                return Err(invalid!("{at}.stats.programs: {} programs for job {}, which has {count}", r.programs, r.job_id));
            }
            if let Some(f) = r.findings.iter().find(|f| !range.contains(&f.index)) {
                return Err(invalid!("{at}: finding for program {}, outside job {}'s range {range:?}", f.index, r.job_id));
            }
            if let Some(s) = r.seeds.iter().find(|s| !range.contains(&s.index)) {
                return Err(invalid!("{at}: seed from program {}, outside job {}'s range {range:?}", s.index, r.job_id));
            }
            if r.minimized.is_some() || r.part.is_some() {
                return Err(invalid!("{at}: job {} is a generation job: `minimized` and `part` are not set", r.job_id));
            }
        }
        Work::Minimize { .. } => {
            if r.programs != 0 || !r.findings.is_empty() || !r.seeds.is_empty() || !r.coverage.is_empty() || r.part.is_some() {
                return Err(invalid!("{at}: job {} is a minimization job: only `minimized` may be set", r.job_id));
            }
        }
        Work::Explore { .. } => {
            let others = r.programs != 0 || r.executions != 0 || r.too_large != 0;
            if others || !r.findings.is_empty() || !r.seeds.is_empty() || !r.coverage.is_empty() || r.minimized.is_some() {
                return Err(invalid!("{at}: job {} is an explore job: only `part` may be set", r.job_id));
            }
            if r.part.is_none() {
                return Err(invalid!("{at}.part: job {} is an explore job: its part verdict is required", r.job_id));
            }
        }
    }
    Ok(())
}

/// Checks a campaign request; returns the job size, program budget and minimization budget with
/// defaults filled in.
pub fn create_campaign(r: &v1::CreateCampaignRequest) -> Result<(u64, u64, u64), ServiceError> {
    text(&r.name, "name", 1, MAX_NAME)?;
    text(&r.config, "config", 0, MAX_CONFIG)?;
    if !r.config.trim().is_empty() {
        serde_json::from_str::<serde_json::Value>(&r.config).map_err(|e| invalid!("config: not JSON: {e}"))?;
    }
    if r.programs == 0 && r.duration_ms == 0 {
        return Err(invalid!("programs and duration_ms: give at least one bound"));
    }
    let job_programs = if r.job_programs == 0 { 100 } else { r.job_programs };
    if job_programs > MAX_JOB_PROGRAMS {
        return Err(invalid!(
            "job_programs: {job_programs} is more than {MAX_JOB_PROGRAMS}, the most seed candidates one job may report (MAX_SEEDS_PER_JOB)"
        ));
    }
    // A program count whose jobs would not fit in the id space.
    if r.programs / job_programs >= crate::ids::MAX_NUMBER / 2 {
        return Err(invalid!("programs: {} programs in jobs of {job_programs} is too many jobs; give larger jobs", r.programs));
    }
    if r.pool_epoch > MAX_POOL_EPOCH {
        return Err(invalid!("pool_epoch: {} is more than {MAX_POOL_EPOCH}", r.pool_epoch));
    }
    let budget = if r.program_budget_ms == 0 { 10_000 } else { r.program_budget_ms };
    let minimize_budget = if r.minimize_budget_ms == 0 { 60_000 } else { r.minimize_budget_ms };
    const DAY_MS: u64 = 86_400_000;
    if budget > DAY_MS || minimize_budget > DAY_MS {
        return Err(invalid!("program_budget_ms and minimize_budget_ms: at most a day ({DAY_MS} ms)"));
    }
    Ok((job_programs, budget, minimize_budget))
}

pub fn discrepancy_key(kind_value: i32, signature: &str) -> Result<(Kind, String), ServiceError> {
    let kind = kind(kind_value, "kind")?;
    text(signature, "signature", 1, MAX_SIGNATURE)?;
    Ok((kind, signature.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(crate) const PROGRAM: &str = "PTX MP\n{\n  x = 0;\n  P1:r0 = 0;\n}\n P0@cta 0,gpu 0      | P1@cta 0,gpu 0       ;\n st.relaxed.gpu x, 1 | ld.relaxed.gpu r0, x ;\nexists (P1:r0 == 1)\n";

    #[test]
    fn the_test_program_is_valid() {
        program(PROGRAM, "p").unwrap();
    }

    fn result(findings: Vec<v1::Finding>) -> v1::JobResult {
        v1::JobResult {
            job_id: 5,
            stats: Some(v1::Stats { programs: 10, executions: 30, too_large: 1, ..Default::default() }),
            findings,
            ..Default::default()
        }
    }

    fn finding(index: u64) -> v1::Finding {
        v1::Finding {
            kind: v1::DiscrepancyKind::PatternBroken as i32,
            signature: "sig".into(),
            index,
            program: PROGRAM.into(),
            sides: vec![v1::Side { name: "a".into(), verdict: "x".into() }, v1::Side { name: "b".into(), verdict: "y".into() }],
        }
    }

    #[test]
    fn a_result_is_checked_against_its_job() {
        let r = job_result(result(vec![finding(104)]), "results[0]").unwrap();
        matches_job(&r, &Work::Generate { first_index: 100, count: 10 }, "results[0]").unwrap();
        let e = matches_job(&r, &Work::Generate { first_index: 100, count: 11 }, "results[0]").unwrap_err();
        assert_eq!(e.to_string(), "results[0].stats.programs: 10 programs for job 5, which has 11");
        let e = matches_job(&r, &Work::Generate { first_index: 0, count: 10 }, "results[0]").unwrap_err();
        assert_eq!(e.to_string(), "results[0]: finding for program 104, outside job 5's range 0..10");
    }

    #[test]
    fn gpu_counts_are_at_most_the_programs_and_are_kept() {
        let with = |ran, unsupported, failed, given_up| v1::JobResult {
            stats: Some(v1::Stats {
                programs: 10,
                gpu_ran: ran,
                gpu_instances: 7_000,
                gpu_unsupported: unsupported,
                gpu_failed: failed,
                gpu_given_up: given_up,
                ..Default::default()
            }),
            ..result(vec![])
        };
        let r = job_result(with(4, 3, 2, 1), "results[0]").unwrap();
        assert_eq!(r.gpu, GpuTotals { ran: 4, instances: 7_000, unsupported: 3, failed: 2, given_up: 1 });
        let e = job_result(with(4, 3, 2, 2), "results[0]").unwrap_err();
        assert_eq!(
            e.to_string(),
            "results[0].stats: gpu_ran 4 + gpu_unsupported 3 + gpu_failed 2 + gpu_given_up 2 is more than programs 10"
        );
        let e = job_result(with(u64::MAX, 1, 0, 0), "results[0]").unwrap_err();
        assert!(e.to_string().contains("is more than programs 10"), "{e}");
    }

    #[test]
    fn a_job_holds_at_most_as_many_programs_as_it_may_report_seed_candidates() {
        let r = |job_programs| v1::CreateCampaignRequest { name: "c".into(), programs: 5000, job_programs, ..Default::default() };
        assert_eq!(create_campaign(&r(1000)).map(|(job, _, _)| job).ok(), Some(1000));
        assert_eq!(create_campaign(&r(0)).map(|(job, _, _)| job).ok(), Some(100));
        assert_eq!(
            create_campaign(&r(1001)).unwrap_err().to_string(),
            "job_programs: 1001 is more than 1000, the most seed candidates one job may report (MAX_SEEDS_PER_JOB)"
        );
    }

    #[test]
    fn a_refused_result_has_nothing_else_and_fits_any_job() {
        let refused = |why: &str| v1::JobResult { job_id: 5, refused: why.into(), ..Default::default() };
        let r = job_result(refused("INVALID_ARGUMENT: results[0]: no"), "results[0]").unwrap();
        assert_eq!((r.refused.as_deref(), r.error.as_deref()), (Some("INVALID_ARGUMENT: results[0]: no"), None));
        for work in [Work::Generate { first_index: 0, count: 10 }, Work::Explore { subtree: "subtree 00ff:0:0".into(), part: None }] {
            matches_job(&r, &work, "results[0]").unwrap();
        }
        let e = job_result(v1::JobResult { error: "e".into(), ..refused("r") }, "r").unwrap_err();
        assert_eq!(e.to_string(), "r: a result with `refused` set has nothing else");
        let e = job_result(v1::JobResult { stats: Some(v1::Stats { programs: 1, ..Default::default() }), ..refused("r") }, "r");
        assert_eq!(e.unwrap_err().to_string(), "r: a result with `refused` set has nothing else");
        let e = job_result(refused(&"x".repeat(MAX_ERROR + 1)), "r").unwrap_err();
        assert_eq!(e.to_string(), format!("r.refused: {} bytes, more than the {MAX_ERROR} allowed", MAX_ERROR + 1));
    }

    #[test]
    fn errors_name_the_field() {
        let mut f = finding(1);
        f.kind = 99;
        assert_eq!(job_result(result(vec![f]), "r").unwrap_err().to_string(), "r.findings[0].kind: 99 is not a discrepancy kind");
        let mut f = finding(1);
        f.program = "PTX broken\n".into();
        assert!(
            job_result(result(vec![f]), "r").unwrap_err().to_string().starts_with("r.findings[0].program: not a valid litmus program: ")
        );
        let mut f = finding(1);
        f.sides.pop();
        assert_eq!(job_result(result(vec![f]), "r").unwrap_err().to_string(), "r.findings[0].sides: 1 sides, a discrepancy has exactly 2");
        assert_eq!(
            job_result(result(vec![finding(1), finding(1)]), "r").unwrap_err().to_string(),
            "r.findings[1]: a second `pattern-broken` finding `sig` for program 1"
        );
        // The same kind with another signature is another discrepancy (a kind under two models).
        let mut other = finding(1);
        other.signature = "sig 2".into();
        assert_eq!(job_result(result(vec![finding(1), other]), "r").map(|r| r.findings.len()).ok(), Some(2));
        let r = v1::ReportResultsRequest { worker_id: "w".into(), results: vec![result(vec![])], returned_job_ids: vec![5] };
        assert_eq!(report(r).unwrap_err().to_string(), "results and returned_job_ids: job 5 appears twice");
        assert_eq!(worker_id("w 1", "worker_id").unwrap_err().to_string(), "worker_id: `w 1` is not printable ASCII without spaces");
    }
}
