//! GenMC run beside the explorer (`tcfuzz bench --genmc-bin`): which of GenMC's own test programs
//! each family is, the command line that runs it, its peak memory, and what its output says.
//!
//! The programs and flags are those of `shared/bench/GENMC-SHAPES.md` (GenMC v0.11.0):
//! `genmc -<model> --disable-estimation -- -DN=<n> tests/correct/synthetic/<dir>/variants/<x>0.c`.

use anyhow::{Context, Result, anyhow, bail};
use std::ffi::OsStr;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::time::Instant;
use tcfuzz_checker::ModelKind;

/// GenMC's own test program for a family: its folder under `tests/correct/synthetic/`, the file
/// under that folder's `variants/`, and the macro that sizes it. `None`: GenMC has no such
/// benchmark (sb, iriw, mp-chain, tc-pipeline).
fn test_program(family: &str) -> Option<(&'static str, &'static str, &'static str)> {
    Some(match family {
        "readers" => ("readers", "readers0.c", "N"),
        "n-writers" => ("N-writers", "N_writers_a_reader0.c", "N"),
        "casrot" => ("casrot", "casrot0.c", "N"),
        "lastzero" => ("lastzero", "lastzero0.c", "N"),
        "ainc" => ("ainc", "ainc0.c", "N"),
        "binc" => ("binc", "binc0.c", "N"),
        "wcas" => ("wcas", "wcas0.c", "N"),
        "casw" => ("casw", "casw0.c", "N"),
        "coa" => ("CoA", "coa0.c", "N"),
        "fib" => ("fib_bench", "fib_bench0.c", "NUM"),
        "indexer" => ("indexer", "indexer0.c", "N"),
        "szymanski" => ("szymanski", "szymanski0.c", "N"),
        _ => return None,
    })
}

/// GenMC's model flag for a run: `-sc` under SC; under PTX (all accesses at one scope) `-rc11`,
/// the model whose counts the PTX model's are compared with (shared/bench/README.md).
fn model_flag(kind: ModelKind) -> &'static str {
    if kind == ModelKind::Sc { "-sc" } else { "-rc11" }
}

/// A GenMC binary and the source tree whose `tests/correct/synthetic/` holds its test programs.
pub struct Genmc {
    bin: PathBuf,
    synthetic: PathBuf,
}

/// One GenMC run: its counts, its wall time (spawn to exit, compilation of the test program
/// included, as a user sees it) and its peak resident memory: the larger of GenMC's own and that
/// of the clang it runs (`std::system`, in its `main.cpp`) to compile the program, which is what
/// `wait4` reports for a process and the children it waited for. Below about 100 MB that is
/// often clang's.
#[derive(Clone, Copy, Debug)]
pub struct GenmcRun {
    pub complete: u64,
    pub blocked: u64,
    pub seconds: f64,
    pub peak_rss_kb: Option<u64>,
}

impl Genmc {
    /// Checks that `bin` is a file and that the test programs are there, so that a wrong path is
    /// a usage error before anything runs. `tests` defaults to the binary's folder, where GenMC's
    /// in-tree build leaves it.
    pub fn new(bin: &Path, tests: Option<&Path>) -> Result<Genmc, String> {
        if !bin.is_file() {
            return Err(format!("--genmc-bin {}: no such file", bin.display()));
        }
        let root = match tests {
            Some(dir) => dir.to_path_buf(),
            None => bin.parent().map_or_else(|| PathBuf::from("."), Path::to_path_buf),
        };
        let synthetic = root.join("tests/correct/synthetic");
        if !synthetic.is_dir() {
            let flag = if tests.is_some() { "--genmc-tests" } else { "--genmc-bin's folder (give --genmc-tests DIR)" };
            return Err(format!("{flag} {}: not GenMC's source tree ({} is not a directory)", root.display(), synthetic.display()));
        }
        Ok(Genmc { bin: bin.to_path_buf(), synthetic })
    }

    /// The command that runs GenMC on its test program for `family` at size `n`; `None` where
    /// GenMC has no such benchmark.
    pub fn command(&self, family: &str, n: u32, kind: ModelKind) -> Option<Command> {
        let (dir, file, define) = test_program(family)?;
        let program = self.synthetic.join(dir).join("variants").join(file);
        let mut command = Command::new(&self.bin);
        command.args([model_flag(kind), "--disable-estimation", "--"]).arg(format!("-D{define}={n}")).arg(program);
        Some(command)
    }

    /// Runs GenMC on `family` at size `n`; `Ok(None)` where GenMC has no such benchmark. Every
    /// failure (test program missing, cannot start, nonzero exit, output without the counts) is
    /// an error that names the command.
    pub fn run(&self, family: &str, n: u32, kind: ModelKind) -> Result<Option<GenmcRun>> {
        let Some(mut command) = self.command(family, n, kind) else { return Ok(None) };
        let shown = show(&command);
        if let Some(program) = command.get_args().last().map(Path::new)
            && !program.is_file()
        {
            bail!("GenMC's test program {} is not there (for `{shown}`)", program.display());
        }
        // At exec, Linux copies the peak RSS of the memory the child leaves (ours: std spawns with
        // vfork semantics) into the child's `ru_maxrss`. Resetting our peak to our current RSS
        // first bounds that copy by our peak once `spawn` returns (after the exec): `floor`. A
        // figure not above it says nothing of GenMC's own.
        super::reset_peak_rss();
        let start = Instant::now();
        let mut child = command
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .with_context(|| format!("cannot run `{shown}`"))?;
        let floor = super::peak_rss_kb();
        // stderr on a thread of its own, so that neither pipe can fill while the other is read.
        let mut err_pipe = child.stderr.take().ok_or_else(|| anyhow!("[tcfuzz internal bug] GenMC's stderr not piped"))?;
        let stderr_reader = std::thread::spawn(move || {
            let mut text = Vec::new();
            err_pipe.read_to_end(&mut text).map(|_| text)
        });
        let mut stdout = Vec::new();
        let read = child.stdout.take().map(|mut pipe| pipe.read_to_end(&mut stdout));
        let (status, peak_rss_kb) = wait_with_peak_rss(&mut child).with_context(|| format!("waiting for `{shown}`"))?;
        let seconds = start.elapsed().as_secs_f64();
        if let Some(Err(e)) = read {
            return Err(e).with_context(|| format!("reading the output of `{shown}`"));
        }
        let stderr = match stderr_reader.join() {
            Ok(Ok(text)) => text,
            Ok(Err(e)) => return Err(e).with_context(|| format!("reading the errors of `{shown}`")),
            Err(_) => bail!("[tcfuzz internal bug] the thread reading GenMC's stderr panicked"),
        };
        let stdout = String::from_utf8_lossy(&stdout);
        if !status.success() {
            let stderr = String::from_utf8_lossy(&stderr);
            // Its last word on stderr (clang's errors, GenMC's own), else on stdout.
            let said = |text: &str| text.lines().rfind(|l| !l.trim().is_empty()).map(str::to_string);
            let last = said(&stderr).or_else(|| said(&stdout));
            let exit = status.code().map_or_else(|| "was killed by a signal".to_string(), |c| format!("exited with status {c}"));
            match last {
                Some(line) => bail!("`{shown}` {exit}: {}", line.trim()),
                None => bail!("`{shown}` {exit}"),
            }
        }
        let (complete, blocked) = parse_output(&stdout).map_err(|e| anyhow!("`{shown}`: {e}"))?;
        let peak_rss_kb = match (peak_rss_kb, floor) {
            (Some(peak), Some(floor)) if peak <= floor => {
                tracing::info!("GenMC's peak RSS unknown: {peak} KiB is not above our peak at the spawn ({floor} KiB) for `{shown}`");
                None
            }
            (peak, _) => peak,
        };
        Ok(Some(GenmcRun { complete, blocked, seconds, peak_rss_kb }))
    }
}

/// A command as a user would type it (arguments with spaces quoted).
pub fn show(command: &Command) -> String {
    let word = |w: &OsStr| {
        let w = w.to_string_lossy();
        if w.contains(' ') { format!("'{w}'") } else { w.into_owned() }
    };
    std::iter::once(word(command.get_program())).chain(command.get_args().map(word)).collect::<Vec<_>>().join(" ")
}

/// GenMC's counts from its output: `Number of complete executions explored: C` (maybe followed
/// by ` (K exceeded bound)`), and `Number of blocked executions seen: B`, which GenMC prints only
/// where B is not 0 (its `src/main.cpp`, `printVerificationResults`).
pub fn parse_output(stdout: &str) -> Result<(u64, u64), String> {
    const COMPLETE: &str = "Number of complete executions explored:";
    const BLOCKED: &str = "Number of blocked executions seen:";
    let count = |label: &str| -> Result<Option<u64>, String> {
        let Some(line) = stdout.lines().find(|l| l.trim_start().starts_with(label)) else { return Ok(None) };
        let rest = line.trim_start()[label.len()..].trim_start();
        let digits = rest.split(|c: char| !c.is_ascii_digit()).next().unwrap_or("");
        digits.parse().map(Some).map_err(|_| format!("cannot read the count in `{}`", line.trim()))
    };
    let complete = count(COMPLETE)?.ok_or_else(|| format!("no `{COMPLETE}` line in GenMC's output"))?;
    Ok((complete, count(BLOCKED)?.unwrap_or(0)))
}

/// Waits for `child` and returns its exit status and its peak resident memory in KiB.
///
/// The peak comes from `wait4(2)`, which reports the resource usage of exactly that child (its
/// `ru_maxrss`: the largest of the child's and those of the descendants it waited for). `getrusage(RUSAGE_CHILDREN)` would not do: its `ru_maxrss` is
/// the largest peak of every child reaped so far, so a small run after a large one would show
/// the large one's figure; polling `/proc/PID/status` could miss a short-lived peak.
#[cfg(unix)]
fn wait_with_peak_rss(child: &mut std::process::Child) -> std::io::Result<(ExitStatus, Option<u64>)> {
    use std::os::unix::process::ExitStatusExt;
    let pid = libc::pid_t::try_from(child.id()).map_err(|_| std::io::Error::other("[tcfuzz internal bug] child pid out of range"))?;
    loop {
        let mut status: libc::c_int = 0;
        // SAFETY: zeroed memory is a valid `rusage`.
        let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
        // SAFETY: `status` and `usage` are valid for writes; `pid` is our own unreaped child
        // (std's `Child` never waited for it, and is not used to wait after this).
        let reaped = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
        if reaped == pid {
            // Linux reports ru_maxrss in KiB, macOS in bytes.
            let max = u64::try_from(usage.ru_maxrss).ok();
            let kb = if cfg!(target_os = "macos") { max.map(|b| b / 1024) } else { max };
            return Ok((ExitStatus::from_raw(status), kb));
        }
        let e = std::io::Error::last_os_error();
        if e.kind() != std::io::ErrorKind::Interrupted {
            return Err(e);
        }
    }
}

#[cfg(not(unix))]
fn wait_with_peak_rss(child: &mut std::process::Child) -> std::io::Result<(ExitStatus, Option<u64>)> {
    Ok((child.wait()?, None))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// GenMC v0.11.0's output (LLVM 19.1.7, built from its repository) for readers N=2 under SC,
    /// byte for byte: `genmc -sc --disable-estimation -- -DN=2 .../readers/variants/readers0.c`.
    const READERS: &str = "GenMC v0.11.0 (LLVM 19.1.7)\nCopyright (C) 2024 MPI-SWS. All rights reserved.\n\n\
        *** Compilation complete.\n*** Transformation complete.\n*** Verification complete.\n\
        No errors were detected.\nNumber of complete executions explored: 4\nTotal wall-clock time: 0.10s\n";

    #[test]
    fn complete_count_without_a_blocked_line_means_no_blocked_executions() {
        assert_eq!(parse_output(READERS), Ok((4, 0)));
    }

    /// The same GenMC for szymanski N=1 under RC11 (`-rc11`), byte for byte.
    #[test]
    fn blocked_count_is_read_where_genmc_prints_it() {
        let out = "GenMC v0.11.0 (LLVM 19.1.7)\nCopyright (C) 2024 MPI-SWS. All rights reserved.\n\n\
            *** Compilation complete.\n*** Transformation complete.\n*** Verification complete.\n\
            No errors were detected.\nNumber of complete executions explored: 6\n\
            Number of blocked executions seen: 25\nTotal wall-clock time: 0.04s\n";
        assert_eq!(parse_output(out), Ok((6, 25)));
    }

    #[test]
    fn a_bound_note_after_the_count_is_ignored() {
        let out = "Number of complete executions explored: 120 (3 exceeded bound)\n";
        assert_eq!(parse_output(out), Ok((120, 0)));
    }

    #[test]
    fn output_without_the_counts_is_an_error_naming_the_line_looked_for() {
        assert_eq!(
            parse_output("*** Compilation complete.\n"),
            Err("no `Number of complete executions explored:` line in GenMC's output".to_string())
        );
        assert_eq!(
            parse_output("Number of complete executions explored: many\n"),
            Err("cannot read the count in `Number of complete executions explored: many`".to_string())
        );
    }

    /// Bounded fuzz-style run: the parser never panics on mangled GenMC output, and reads the
    /// count back wherever the line survives intact.
    #[test]
    fn mangled_output_never_panics() {
        let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
        for _ in 0..2000 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let bytes = READERS.as_bytes();
            let cut = usize::try_from(seed % bytes.len() as u64).unwrap_or(0);
            let text = String::from_utf8_lossy(&bytes[..cut]).into_owned() + &String::from_utf8_lossy(&bytes[cut..]).replacen('4', "x", 1);
            let _ = parse_output(&text);
            let _ = parse_output(&READERS[..cut.min(READERS.len())]);
        }
    }

    #[test]
    fn command_is_genmcs_own_test_program_with_the_size_and_model() {
        let genmc = Genmc { bin: PathBuf::from("/opt/genmc/genmc"), synthetic: PathBuf::from("/opt/genmc/tests/correct/synthetic") };
        let shown = |f, n, k| genmc.command(f, n, k).map(|c| show(&c));
        assert_eq!(
            shown("n-writers", 8, ModelKind::Sc).as_deref(),
            Some(
                "/opt/genmc/genmc -sc --disable-estimation -- -DN=8 /opt/genmc/tests/correct/synthetic/N-writers/variants/N_writers_a_reader0.c"
            )
        );
        assert_eq!(
            shown("fib", 5, ModelKind::Ptx).as_deref(),
            Some(
                "/opt/genmc/genmc -rc11 --disable-estimation -- -DNUM=5 /opt/genmc/tests/correct/synthetic/fib_bench/variants/fib_bench0.c"
            )
        );
        assert_eq!(shown("sb", 3, ModelKind::Sc), None, "GenMC has no SB benchmark");
    }
}
