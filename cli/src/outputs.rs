//! Output directories given on the command line (`check --dot DIR`, `selftest --out DIR`), and the
//! spinner of long commands.

use anyhow::{Context, bail};
use std::path::Path;

/// Makes sure `dir` is a directory, creating it (and its parents) if it does not exist; `flag`
/// names the option in the error.
pub fn ensure_dir(dir: &Path, flag: &str) -> anyhow::Result<()> {
    match std::fs::metadata(dir) {
        Ok(m) if m.is_dir() => Ok(()),
        Ok(_) => bail!("{flag} {}: exists and is not a directory", dir.display()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            std::fs::create_dir_all(dir).with_context(|| format!("{flag} {}: cannot create the directory", dir.display()))
        }
        Err(e) => Err(e).with_context(|| format!("{flag} {}: cannot use it as a directory", dir.display())),
    }
}

/// A spinner on stderr with `message`, ticking on its own (hidden when stderr is not a terminal).
pub fn spinner(message: &str) -> indicatif::ProgressBar {
    let p = indicatif::ProgressBar::new_spinner();
    p.set_message(message.to_string());
    p.enable_steady_tick(std::time::Duration::from_millis(120));
    p
}
