//! The options that say how to reach a coordinator (`--coordinator`, `--token-file`, `--tls-ca`),
//! shared by `worker`, `status` and `campaign`.

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, bail};
use tcfuzz_proto::connect::Target;

#[derive(Debug, Clone, clap::Args)]
pub struct Connection {
    /// The coordinator's URL: http://HOST:PORT, or https://HOST:PORT when it serves TLS.
    #[arg(long, value_name = "URL")]
    pub coordinator: Option<String>,

    /// A file holding the coordinator's token (its first line; the coordinator's --token-file).
    #[arg(long, value_name = "FILE")]
    pub token_file: Option<PathBuf>,

    /// PEM certificate of the authority that signed the coordinator's TLS certificate (for
    /// https:// URLs).
    #[arg(long, value_name = "FILE")]
    pub tls_ca: Option<PathBuf>,

    /// The name the coordinator's certificate is for, when it is not the URL's host.
    #[arg(long, value_name = "NAME")]
    pub tls_domain: Option<String>,
}

/// Reads a token file: its first line, trimmed; it must not be empty.
pub fn read_token(path: &Path, flag: &str) -> anyhow::Result<String> {
    let text = std::fs::read_to_string(path).with_context(|| format!("{flag} {}: cannot read it", path.display()))?;
    let token = text.lines().next().unwrap_or("").trim().to_string();
    if token.is_empty() {
        bail!("{flag} {}: the first line is empty; put the token there", path.display());
    }
    if !token.bytes().all(|b| b.is_ascii_graphic()) {
        bail!("{flag} {}: the token must be printable ASCII without spaces", path.display());
    }
    Ok(token)
}

impl Connection {
    /// The target, if `--coordinator` was given. Call it inside the runtime (the channel is
    /// built to check the URL and TLS settings).
    pub fn target(&self, timeout: Duration) -> anyhow::Result<Option<Target>> {
        let Some(url) = &self.coordinator else {
            if self.token_file.is_some() || self.tls_ca.is_some() {
                bail!(crate::exit::UsageError("--token-file and --tls-ca need --coordinator URL".into()));
            }
            return Ok(None);
        };
        let token = self.token_file.as_deref().map(|p| read_token(p, "--token-file")).transpose()?;
        let tls_ca = match &self.tls_ca {
            Some(p) => Some(std::fs::read(p).with_context(|| format!("--tls-ca {}: cannot read it", p.display()))?),
            None => None,
        };
        let target = Target { url: url.clone(), token, tls_ca, tls_domain: self.tls_domain.clone(), timeout: Some(timeout) };
        // Catch a bad URL or TLS setting now, with the option's name.
        target.channel().with_context(|| format!("--coordinator {url}"))?;
        Ok(Some(target))
    }
}
