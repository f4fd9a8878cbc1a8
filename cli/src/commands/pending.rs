//! Commands that exist in the interface but not yet in the code: they accept any arguments and fail
//! with exit code 3, naming the command.

use crate::exit::NotImplemented;
use std::ffi::OsString;
use std::process::ExitCode;

#[derive(Debug, clap::Args)]
pub struct Pending {
    /// Arguments for the future command (ignored for now).
    #[arg(trailing_var_arg = true, allow_hyphen_values = true, value_name = "ARGS")]
    pub args: Vec<OsString>,
}

pub fn run(command: &'static str, args: &Pending) -> anyhow::Result<ExitCode> {
    tracing::debug!(?args.args, "placeholder command called");
    Err(NotImplemented { command }.into())
}
