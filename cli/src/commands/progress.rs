//! A progress line on stderr for a check that runs longer than a second: executions so far and
//! their rate, redrawn in place, gone when the check ends.

use std::io::Write;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How long a check runs before its progress line appears.
const QUIET_FOR: Duration = Duration::from_secs(1);
/// How often the line is redrawn.
const EVERY: Duration = Duration::from_millis(250);

/// The progress line of one check; dropping it stops and clears the line.
pub struct Progress {
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Progress {
    /// Shows `label: N executions, R/s, T s` on stderr while `executions` grows.
    pub fn start(label: String, executions: Arc<AtomicU64>) -> Progress {
        let stop = Arc::new(AtomicBool::new(false));
        let thread = Some({
            let stop = stop.clone();
            std::thread::spawn(move || {
                let start = Instant::now();
                let mut drawn = false;
                while !stop.load(Ordering::Relaxed) {
                    std::thread::park_timeout(if drawn { EVERY } else { QUIET_FOR.saturating_sub(start.elapsed()) });
                    let elapsed = start.elapsed();
                    if stop.load(Ordering::Relaxed) || elapsed < QUIET_FOR {
                        continue;
                    }
                    let n = executions.load(Ordering::Relaxed);
                    let rate = n as f64 / elapsed.as_secs_f64();
                    eprint!("\r\x1b[K{label}: {n} executions, {rate:.0}/s, {:.0} s", elapsed.as_secs_f64());
                    let _ = std::io::stderr().flush();
                    drawn = true;
                }
                if drawn {
                    eprint!("\r\x1b[K");
                }
            })
        });
        Progress { stop, thread }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            thread.thread().unpark();
            let _ = thread.join();
        }
    }
}
