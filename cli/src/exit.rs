//! Exit codes of `tcfuzz`, documented in its `--help` and in the README.
//!
//! 0 success; 1 input errors (reported per file, and every other runtime error); 2 usage errors
//! (clap's own, and [`UsageError`]); 3 (`check`) an instruction the checker does not support
//! yet; 4 (`check --differential`) a
//! tileir-weaker-than-ptx violation; 5 (`selftest`) the explorer and the oracle disagree; 6
//! (`gpu`) no GPU here; 7 (`gpu`) the GPU showed a state the model forbids; 8 (`worker --gpu`) the
//! GPU was lost.

use std::fmt;
use std::process::ExitCode;

/// Some input could not be read, parsed or validated, or `fmt --check` found a file to reformat.
pub const INPUT_ERRORS: u8 = 1;
/// Options that cannot go together (clap reports its own usage errors with the same code).
pub const USAGE: u8 = 2;
/// `check`: some program uses an instruction the checker does not model yet (and no input error).
pub const UNSUPPORTED: u8 = 3;
/// `check --differential`: the tileir-weaker-than-ptx check found a violation (and nothing worse).
pub const DIFFERENTIAL_VIOLATION: u8 = 4;
/// `check`: Ctrl-C stopped the check in progress (128 + SIGINT, as shells report it).
pub const INTERRUPTED: u8 = 130;
/// `selftest`: on some generated program the DPOR explorer and the exhaustive oracle disagree (a
/// bug in tcfuzz: DESIGN §4, `explorer-vs-oracle`).
pub const EXPLORER_ORACLE_DISAGREE: u8 = 5;

/// `gpu`: no GPU or no CUDA driver here, or a GPU that cannot run the program's target.
pub const NO_GPU: u8 = 6;
/// `gpu run` / `gpu bench`: the GPU showed a final state the model forbids (DESIGN §4,
/// `gpu-forbidden-outcome`).
pub const GPU_FORBIDDEN: u8 = 7;

/// `worker --gpu`: a kernel hung or faulted and the GPU was given up; the worker stopped (as on
/// SIGTERM) so that a restart gets the GPU back.
pub const GPU_LOST: u8 = 8;

/// Arguments that clap accepts one by one but that make no sense together; `main` maps it to
/// [`USAGE`].
#[derive(Debug)]
pub struct UsageError(pub String);

impl fmt::Display for UsageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for UsageError {}

/// The exit code for an error that reached `main`.
pub fn code_for(err: &anyhow::Error) -> ExitCode {
    if err.is::<UsageError>() { ExitCode::from(USAGE) } else { ExitCode::from(INPUT_ERRORS) }
}

/// 0 when nothing failed, otherwise [`INPUT_ERRORS`].
pub fn from_failures(failures: usize) -> ExitCode {
    if failures == 0 { ExitCode::SUCCESS } else { ExitCode::from(INPUT_ERRORS) }
}

/// Whether the error is a write to a closed pipe.
pub fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|cause| cause.downcast_ref::<std::io::Error>().is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe))
}
