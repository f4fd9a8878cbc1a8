//! The thread pool jobs run on: one OS thread per core, never the async runtime's threads
//! (DESIGN §5: checking is CPU-bound). Jobs wait in a queue the loop can take them back from: a
//! job the coordinator says is no longer ours, or every unstarted job when the worker stops.

use std::collections::VecDeque;
use std::sync::{Arc, Condvar, Mutex, PoisonError};

/// A queue of tasks shared by the pool's threads.
struct Queue<T> {
    tasks: Mutex<(VecDeque<T>, bool)>,
    ready: Condvar,
}

/// A fixed set of threads running `run` on each task pushed.
pub struct Pool<T> {
    queue: Arc<Queue<T>>,
}

impl<T: Send + 'static> Pool<T> {
    /// Starts `threads` threads named `name-N`.
    pub fn start(threads: usize, name: &str, run: impl Fn(T) + Send + Sync + 'static) -> std::io::Result<Pool<T>> {
        let queue = Arc::new(Queue { tasks: Mutex::new((VecDeque::new(), false)), ready: Condvar::new() });
        let run = Arc::new(run);
        for i in 0..threads.max(1) {
            let (queue, run) = (queue.clone(), run.clone());
            // (Explorers' threads: the checks run on them, not each on a thread of its own.)
            tcfuzz_checker::spawn_explorer_thread(format!("{name}-{i}"), move || {
                while let Some(task) = next(&queue) {
                    run(task);
                }
            })?;
        }
        Ok(Pool { queue })
    }

    pub fn push(&self, task: T) {
        self.queue.tasks.lock().unwrap_or_else(PoisonError::into_inner).0.push_back(task);
        self.queue.ready.notify_one();
    }

    /// Takes back the unstarted tasks `keep` says no to.
    pub fn take_if(&self, mut take: impl FnMut(&T) -> bool) -> Vec<T> {
        let mut guard = self.queue.tasks.lock().unwrap_or_else(PoisonError::into_inner);
        let (taken, kept): (VecDeque<T>, VecDeque<T>) = guard.0.drain(..).partition(|t| take(t));
        guard.0 = kept;
        taken.into()
    }

    /// Lets the threads end once the queue is empty.
    pub fn close(&self) {
        self.queue.tasks.lock().unwrap_or_else(PoisonError::into_inner).1 = true;
        self.queue.ready.notify_all();
    }
}

impl<T> Drop for Pool<T> {
    fn drop(&mut self) {
        self.queue.tasks.lock().unwrap_or_else(PoisonError::into_inner).1 = true;
        self.queue.ready.notify_all();
    }
}

fn next<T>(queue: &Queue<T>) -> Option<T> {
    let mut guard = queue.tasks.lock().unwrap_or_else(PoisonError::into_inner);
    loop {
        if let Some(task) = guard.0.pop_front() {
            return Some(task);
        }
        if guard.1 {
            return None;
        }
        guard = queue.ready.wait(guard).unwrap_or_else(PoisonError::into_inner);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;

    #[test]
    fn tasks_run_on_the_pool_and_unstarted_ones_can_be_taken_back() {
        let (done_tx, done) = mpsc::channel();
        let (gate_tx, gate) = mpsc::channel::<()>();
        let gate = Mutex::new(gate);
        let pool = Pool::start(1, "test-pool", move |n: u32| {
            if n == 0 {
                let _ = gate.lock().unwrap().recv();
            }
            done_tx.send((n, std::thread::current().name().map(str::to_string))).unwrap();
        })
        .unwrap();
        // Task 0 holds the only thread; 1, 2 and 3 wait.
        for n in 0..4 {
            pool.push(n);
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
        assert_eq!(pool.take_if(|&n| n == 2), vec![2]);
        gate_tx.send(()).unwrap();
        let ran: Vec<(u32, Option<String>)> = (0..3).map(|_| done.recv().unwrap()).collect();
        assert_eq!(ran.iter().map(|r| r.0).collect::<Vec<_>>(), vec![0, 1, 3]);
        assert!(ran.iter().all(|r| r.1.as_deref() == Some("test-pool-0")));
        pool.close();
    }
}
