//! The reference checker of `reference-disagrees`: the user's command template run on each
//! program written to a temporary litmus file (`{file}` in the template), its herd7-style
//! `Observation` line read back.

use std::io::Read;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use tcfuzz_checker::Observation;
use tcfuzz_litmus::Program;
use tcfuzz_worker::{Reference, parse_observation};

pub(crate) struct CommandReference {
    template: String,
    timeout: Duration,
    dir: PathBuf,
    next: AtomicU64,
}

impl CommandReference {
    /// A reference running `template` (with `{file}` replaced by a litmus file's path) under `sh -c`.
    pub fn new(template: &str, timeout: Duration) -> std::io::Result<CommandReference> {
        let dir = std::env::temp_dir().join(format!("tcfuzz-reference-{}", std::process::id()));
        std::fs::create_dir_all(&dir)?;
        Ok(CommandReference { template: template.to_string(), timeout, dir, next: AtomicU64::new(0) })
    }
}

impl Drop for CommandReference {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// `'path'` for `sh`, with any `'` in it escaped.
fn quoted(path: &str) -> String {
    format!("'{}'", path.replace('\'', "'\\''"))
}

impl Reference for CommandReference {
    fn judge(&self, program: &Program, text: &str) -> Result<(Observation, String), String> {
        let file = self.dir.join(format!("{}-{}.litmus", program.name, self.next.fetch_add(1, Ordering::Relaxed)));
        std::fs::write(&file, text).map_err(|e| format!("cannot write {}: {e}", file.display()))?;
        let command = self.template.replace("{file}", &quoted(&file.display().to_string()));
        let result = run(&command, self.timeout);
        let _ = std::fs::remove_file(&file);
        let output = result?;
        match parse_observation(&output) {
            Some(o) => Ok((o, output)),
            None => Err(format!("`{command}` printed no `Observation NAME Never|Sometimes|Always` line")),
        }
    }
}

/// Runs `command` under `sh -c` and returns its stdout; an error past `timeout` (the process is
/// killed) or on a failed start.
fn run(command: &str, timeout: Duration) -> Result<String, String> {
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(command)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("cannot run `{command}`: {e}"))?;
    let mut stdout = child.stdout.take().ok_or("no stdout")?;
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stdout.read_to_string(&mut s);
        s
    });
    let start = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(_)) => break,
            Ok(None) if start.elapsed() > timeout => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!("`{command}` ran past {} ms", timeout.as_millis()));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(5)),
            Err(e) => return Err(format!("`{command}`: {e}")),
        }
    }
    reader.join().map_err(|_| "the reader thread panicked".to_string())
}
