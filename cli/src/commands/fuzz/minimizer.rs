//! Minimization of new discrepancies on a background thread (DESIGN §7): the predicate is "the
//! executor finds the same kind with the same signature" ([`Executor::signature`]); the result
//! goes back to the loop, which stores it in the corpus.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, Sender};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use tcfuzz_generator::minimize::{Budget, Size, minimize};
use tcfuzz_worker::{Compiler, Executor, Hooks, Kind, Recheck, Reference};

/// A discrepancy to minimize.
pub(super) struct Task {
    pub kind: Kind,
    pub signature: String,
    pub program: String,
    pub recheck: Recheck,
}

/// What became of it.
pub(super) struct Done {
    pub kind: Kind,
    pub signature: String,
    /// The minimized program (litmus text), or why there is none.
    pub result: Result<Minimized, String>,
}

pub(super) struct Minimized {
    pub program: String,
    pub from: Size,
    pub to: Size,
    pub seconds: f64,
    pub exhausted: bool,
}

pub(super) struct Minimizer {
    tasks: Option<Sender<Task>>,
    done: Receiver<Done>,
    thread: Option<JoinHandle<()>>,
    queued: usize,
}

impl Minimizer {
    /// Starts the thread. `stop` abandons the work in progress (Ctrl-C).
    pub fn start(
        executor: Arc<Executor>,
        budget: Duration,
        stop: Arc<AtomicBool>,
        reference: Option<Arc<dyn Reference + Send>>,
        compiler: Option<Arc<dyn Compiler + Send>>,
    ) -> std::io::Result<Minimizer> {
        let (tasks, inbox) = mpsc::channel::<Task>();
        let (outbox, done) = mpsc::channel::<Done>();
        // (An explorer's thread: the checks run on it, not each on a thread of its own.)
        let thread = tcfuzz_checker::spawn_explorer_thread("tcfuzz-minimize".into(), move || {
            for task in inbox {
                // Every task gets its answer, even one skipped after the stop flag, so that
                // `pending` counts exactly what is still to come.
                if stop.load(Ordering::Relaxed) {
                    if outbox.send(Done { kind: task.kind, signature: task.signature, result: Err("stopped".into()) }).is_err() {
                        break;
                    }
                    continue;
                }
                let hooks = Hooks {
                    cancel: Some(&stop),
                    reference: reference.as_deref().map(|r| r as &dyn Reference),
                    compiler: compiler.as_deref().map(|c| c as &dyn Compiler),
                    gpu: None,
                    on_program: None,
                };
                let result = one(&executor, &hooks, &task, budget, &stop);
                if outbox.send(Done { kind: task.kind, signature: task.signature, result }).is_err() {
                    break;
                }
            }
        })?;
        Ok(Minimizer { tasks: Some(tasks), done, thread: Some(thread), queued: 0 })
    }

    pub fn submit(&mut self, task: Task) {
        if let Some(tx) = &self.tasks
            && tx.send(task).is_ok()
        {
            self.queued += 1;
        }
    }

    /// Tasks submitted and not yet done.
    pub fn pending(&self) -> usize {
        self.queued
    }

    /// A finished task, waiting at most `wait`.
    pub fn next(&mut self, wait: Duration) -> Option<Done> {
        let got = if wait.is_zero() { self.done.try_recv().ok() } else { self.done.recv_timeout(wait).ok() };
        if got.is_some() {
            self.queued = self.queued.saturating_sub(1);
        }
        got
    }

    /// Stops taking tasks and waits for the thread (after the stop flag, it skips what is left).
    pub fn finish(mut self) {
        self.tasks = None;
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn one(executor: &Executor, hooks: &Hooks<'_>, task: &Task, budget: Duration, stop: &AtomicBool) -> Result<Minimized, String> {
    if !task.recheck.minimizable() {
        return Err("nothing to keep: the discrepancy is the absence of a problem, which any smaller program has too".into());
    }
    let program =
        tcfuzz_litmus::parse(&task.program).map_err(|d| format!("the recorded program does not parse: {}", d.render("corpus")))?;
    let start = Instant::now();
    let keeps = |p: &tcfuzz_litmus::Program| {
        !stop.load(Ordering::Relaxed) && executor.signature(&task.recheck, p, hooks).as_deref() == Some(task.signature.as_str())
    };
    let m = minimize(&program, Budget::time(budget), keeps).map_err(|e| format!("not minimized: {e}"))?;
    if stop.load(Ordering::Relaxed) {
        return Err("stopped".into());
    }
    let mut out = m.program.clone();
    let (from, to) = (Size::of(&program), Size::of(&m.program));
    out.comments = vec![tcfuzz_litmus::Comment::header(format!(
        " minimized by tcfuzz fuzz ({from} → {to}), keeping {}: {}",
        task.kind, task.signature
    ))];
    Ok(Minimized { program: tcfuzz_litmus::print(&out), from, to, seconds: start.elapsed().as_secs_f64(), exhausted: m.exhausted })
}
