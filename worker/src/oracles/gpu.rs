//! `gpu-forbidden-outcome` (DESIGN §4, §8): a generated program that the PTX model finds
//! race-free, hang-free and exactly judged runs on this worker's GPU under the tuned stress
//! harness; a final state the model forbids is re-run before it is reported, with its counts.
//!
//! Running is the caller's I/O: the executor sees the GPU through [`GpuRunner`] ([`LocalGpu`] is
//! the one this machine has). What is decided from an observation — the finding, its signature,
//! the coverage features — is pure and tested without a GPU.

use std::collections::BTreeSet;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use tcfuzz_checker::Verdict;
use tcfuzz_gpu::Target;
use tcfuzz_gpu::run::{Device, Histogram, Rng, RunError};
use tcfuzz_gpu::session::{self, Model, PrepareError, Session, StressMode};
use tcfuzz_litmus::Program;

use super::{Found, entry_kinds, instruction_kinds, list, nearest_differences};
use crate::finding::{Kind, Recheck, Side};

/// What one GPU run of a program showed: the first histogram and, when it had states outside the
/// model's set, the histogram of the confirming re-runs.
#[derive(Clone, Debug)]
pub struct Observed {
    pub first: Histogram,
    pub again: Option<Histogram>,
    pub reruns: u32,
}

/// Why a program did not run on the GPU (not a discrepancy: the oracle is skipped).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Skip {
    /// Outside what the harness runs (cannot be emitted, a target this GPU lacks).
    Unsupported(String),
    /// The GPU failed (a driver error, a hung kernel: the device is then given up).
    Failed(String),
    /// The GPU was given up after a hung or faulted kernel (see [`Skip::Failed`]).
    GivenUp,
}

/// A GPU the executor may run programs on.
pub trait GpuRunner: Sync {
    /// Runs `program` for `iterations` launches (tuned stress; `seed` fixes every harness
    /// choice) and, if it shows a state outside `model`'s set, `reruns` more times as many.
    fn run(&self, program: &Program, model: &Model, iterations: u64, reruns: u32, seed: u64) -> Result<Observed, Skip>;
}

/// The model's verdict as the gpu crate takes it.
pub fn model_of(v: &Verdict) -> Model {
    Model {
        states: v.states.iter().map(|s| (s.values.iter().map(|(n, v)| (n.to_string(), *v)).collect(), s.executions)).collect(),
        races: v.races.len(),
        hung_threads: v.hung_threads.clone(),
        misuse: v
            .misuse
            .iter()
            .map(|m| format!("{} by {}", m.rule.name(), m.thread))
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .collect(),
    }
}

/// Whether a verdict is one a GPU run can be judged against: some complete execution (where
/// every execution fails an `assume`, every instance would too, each spinning to the loop cap),
/// race-free and misuse-free (the behaviour is undefined), no hang, nothing blocked by the loop
/// bound (the GPU loops further), every state kept and no caveat (an incomplete allowed set
/// would make allowed states look forbidden).
pub(crate) fn judgeable(v: &Verdict) -> bool {
    !v.states.is_empty()
        && v.races.is_empty()
        && v.hung_threads.is_empty()
        && v.misuse.is_empty()
        && v.blocked_threads.is_empty()
        && v.caveats.is_empty()
        && v.omitted_states == 0
}

/// The program's shape: thread count and its instruction kinds (with qualifiers), a set.
fn shape(p: &Program) -> String {
    format!("{} threads {}", p.threads.len(), list(&instruction_kinds(p)))
}

/// The finding, if the GPU showed a state the model forbids, and the coverage features of the run.
pub(crate) fn decide(p: &Program, model: &Model, o: &Observed) -> (Option<Found>, Vec<String>) {
    let judgement = session::judge(model, &o.first);
    let cmp = &judgement.comparison;
    let mut features = vec!["gpu:ran".to_string()];
    if session::target_count(p, &o.first) > 0 {
        features.push("gpu:condition-seen".into());
    }
    if cmp.allowed_unseen() == 0 {
        features.push("gpu:every-allowed-state-seen".into());
    }
    let forbidden = judgement.forbidden();
    if forbidden.is_empty() {
        return (None, features);
    }
    let counts = o.again.as_ref().map(|a| session::confirm_counts(model, forbidden, a)).unwrap_or_default();
    let allowed: Vec<Vec<(String, i64)>> = model.states.iter().map(|(s, _)| s.clone()).collect();
    let mut parts = BTreeSet::new();
    let mut lines = Vec::new();
    for f in forbidden {
        let named: Vec<(String, i64)> = cmp.names.iter().cloned().zip(f.iter().copied()).collect();
        parts.insert(format!("state {}", list(&entry_kinds(p, &nearest_differences(&named, &allowed)))));
        let seen = cmp.rows.iter().find(|r| &r.state == f).map_or(0, |r| r.gpu);
        let again = counts.iter().find(|(s, _)| s == f).map_or(0, |(_, n)| *n);
        let text: Vec<String> = named.iter().map(|(n, v)| format!("{n}={v}")).collect();
        lines.push(format!(
            "{} (seen {seen} times in {} instances, again {again} times in {} re-runs)",
            text.join(" "),
            o.first.instances,
            o.reruns
        ));
    }
    let signature = format!("{}: {}", shape(p), parts.into_iter().collect::<Vec<_>>().join("; "));
    let found = Found {
        kind: Kind::GpuForbiddenOutcome,
        signature,
        summary: format!("the GPU showed {} state(s) the model forbids: {}", forbidden.len(), lines[0]),
        sides: [
            Side { name: "model".into(), verdict: format!("{} allowed state(s), race-free\n", model.states.len()) },
            Side { name: "gpu".into(), verdict: format!("{}\n", lines.join("\n")) },
        ],
        recheck: Recheck { kind: Kind::GpuForbiddenOutcome, model: None, pattern: None, never: false },
    };
    (Some(found), features)
}

/// Most time one program's GPU run (and, apart, its confirming re-runs) may take: the executor's
/// threads share the GPU one program at a time, and a stop (`--duration`, a job handed back)
/// waits for the runs in progress.
pub const RUN_BUDGET: Duration = Duration::from_secs(2);

/// This machine's first GPU, shared by the executor's threads (one launch at a time).
pub struct LocalGpu {
    device: Mutex<Device>,
    /// Set after a hung or faulted kernel: the context is unusable until the process exits.
    broken: AtomicBool,
}

impl LocalGpu {
    /// The GPU, or why there is none.
    pub fn open() -> Result<LocalGpu, RunError> {
        Ok(LocalGpu { device: Mutex::new(Device::open()?), broken: AtomicBool::new(false) })
    }

    pub fn describe(&self) -> String {
        self.device.lock().map(|d| format!("{} ({})", d.info.name, d.info.arch)).unwrap_or_default()
    }

    /// Whether the GPU was given up after a hung or faulted kernel: nothing more runs on it until
    /// the process exits.
    pub fn given_up(&self) -> bool {
        self.broken.load(Ordering::Relaxed)
    }

    /// The architecture, `sm_90`: what a worker advertises to its coordinator.
    pub fn arch(&self) -> String {
        self.device.lock().map(|d| d.info.arch.clone()).unwrap_or_default()
    }
}

impl GpuRunner for LocalGpu {
    fn run(&self, program: &Program, model: &Model, iterations: u64, reruns: u32, seed: u64) -> Result<Observed, Skip> {
        if self.broken.load(Ordering::Relaxed) {
            return Err(Skip::GivenUp);
        }
        let target = Target::for_program(program);
        if let Ok(device) = self.device.lock()
            && !device.info.runs(target)
        {
            return Err(Skip::Unsupported(format!("{}: a {} program; this GPU is {}", program.name, target.arch(), device.info.arch)));
        }
        // Emission and assembly need no lock.
        let prepared = session::prepare(&program.name, program.clone(), model.clone()).map_err(|e| match e {
            PrepareError::Unsupported(m) => Skip::Unsupported(m),
            PrepareError::Internal(m) => Skip::Failed(m),
        })?;
        let device = self.device.lock().map_err(|_| Skip::Failed("[tcfuzz internal bug] the GPU lock is poisoned".into()))?;
        // Checked again under the lock: the program before may have hung while this one waited.
        if self.broken.load(Ordering::Relaxed) {
            return Err(Skip::GivenUp);
        }
        let fail = |e: RunError| match e {
            RunError::Hang(_) | RunError::Faulted(_) => {
                self.broken.store(true, Ordering::Relaxed);
                Skip::Failed(format!("{}: {e}; the GPU is given up for the rest of this process", program.name))
            }
            RunError::Lost => Skip::GivenUp,
            RunError::WrongArch { .. } => Skip::Unsupported(e.to_string()),
            e => Skip::Failed(format!("{}: {e}", program.name)),
        };
        let session = Session::new(&device, &prepared).map_err(fail)?.with_budget(RUN_BUDGET);
        let mut rng = Rng::new(seed);
        let first = session.execute(StressMode::Tune, iterations, &mut rng).map_err(fail)?;
        let h = &first.histogram;
        tracing::debug!(program = %program.name, launches = h.launches, instances = h.instances, unfinished = h.unfinished, seconds = h.seconds, "ran on the GPU");
        let again = if session::judge(model, &first.histogram).forbidden().is_empty() {
            None
        } else {
            Some(session.confirm(&first, reruns, iterations, &mut rng).map_err(fail)?)
        };
        Ok(Observed { first: first.histogram, again, reruns })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MP: &str = "PTX MP\n{ x = 0; flag = 0; P1:r0 = 0; P1:r1 = 0; }\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n st.relaxed.gpu x, 1 | ld.acquire.gpu r0, flag ;\n st.release.gpu flag, 1 | ld.relaxed.gpu r1, x ;\nexists (P1:r0 == 1 /\\ P1:r1 == 0)\n";

    fn mp() -> Program {
        tcfuzz_litmus::parse(MP).expect("MP parses")
    }

    fn model() -> Model {
        let s =
            |a: i64, b: i64| (vec![("P1:r0".to_string(), a), ("P1:r1".to_string(), b), ("x".to_string(), 1), ("flag".to_string(), 1)], 1);
        Model { states: vec![s(0, 0), s(0, 1), s(1, 1)], races: 0, hung_threads: Vec::new(), misuse: Vec::new() }
    }

    fn histogram(states: &[([i64; 4], u64)]) -> Histogram {
        Histogram {
            names: ["P1:r0", "P1:r1", "x", "flag"].map(String::from).to_vec(),
            states: states.iter().map(|(s, n)| (s.to_vec(), *n)).collect(),
            instances: states.iter().map(|(_, n)| n).sum(),
            ..Histogram::default()
        }
    }

    #[test]
    fn allowed_states_only_give_coverage_never_a_finding() {
        let o = Observed { first: histogram(&[([0, 0, 1, 1], 5), ([0, 1, 1, 1], 5), ([1, 1, 1, 1], 5)]), again: None, reruns: 3 };
        let (found, features) = decide(&mp(), &model(), &o);
        assert!(found.is_none());
        assert_eq!(features, ["gpu:ran", "gpu:every-allowed-state-seen"]);
    }

    #[test]
    fn a_forbidden_state_is_a_finding_with_its_counts_and_a_shape_signature() {
        let o = Observed {
            first: histogram(&[([1, 0, 1, 1], 2), ([1, 1, 1, 1], 90)]),
            again: Some(histogram(&[([1, 0, 1, 1], 1)])),
            reruns: 3,
        };
        let (found, features) = decide(&mp(), &model(), &o);
        let f = found.expect("a finding");
        assert_eq!(f.kind, Kind::GpuForbiddenOutcome);
        assert_eq!(f.signature, "2 threads [ld.acquire.gpu, ld.relaxed.gpu, st.relaxed.gpu, st.release.gpu]: state [ld]");
        assert!(
            f.summary.contains("P1:r0=1 P1:r1=0 x=1 flag=1 (seen 2 times in 92 instances, again 1 times in 3 re-runs)"),
            "{}",
            f.summary
        );
        assert_eq!(features, ["gpu:ran", "gpu:condition-seen"]);
    }

    #[test]
    fn the_signature_does_not_depend_on_the_order_of_states_or_values() {
        // The same forbidden state with the names in another order, beside another one.
        let mut h = histogram(&[([1, 0, 1, 1], 2)]);
        let a = decide(&mp(), &model(), &Observed { first: h.clone(), again: None, reruns: 0 }).0.expect("finding").signature;
        h.names = ["flag", "x", "P1:r1", "P1:r0"].map(String::from).to_vec();
        h.states = [(vec![1, 1, 0, 1], 7)].into_iter().collect();
        let b = decide(&mp(), &model(), &Observed { first: h, again: None, reruns: 0 }).0.expect("finding").signature;
        assert_eq!(a, b);
    }

    #[test]
    fn a_racy_program_shows_no_forbidden_state() {
        let racy = Model { races: 1, ..model() };
        let o = Observed { first: histogram(&[([1, 0, 1, 1], 2)]), again: None, reruns: 0 };
        assert!(decide(&mp(), &racy, &o).0.is_none());
    }
}
