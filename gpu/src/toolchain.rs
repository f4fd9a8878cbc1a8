//! NVIDIA's assembler and Tile IR compiler, found where a user or CI put them.
//!
//! Search order for each tool: `$TCFUZZ_CUDA_BIN`, then `PATH`, then the `bin/` folder of the pip
//! packages `nvidia-cuda-nvcc` / `nvidia-cuda-tileiras` in `$VIRTUAL_ENV`, `./.venv` or `../.venv`
//! (where `.ci/setup-nvidia` installs them). Neither needs a GPU or a driver.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use thiserror::Error;

#[derive(Debug, Error)]
pub enum ToolError {
    #[error(
        "`{0}` not found: install NVIDIA's pip packages (`bash .ci/setup-nvidia`, or `pip install nvidia-cuda-nvcc nvidia-cuda-tileiras`) or set TCFUZZ_CUDA_BIN to the folder holding it"
    )]
    NotFound(&'static str),
    /// `tileiras` lowers through libNVVM, which it looks for beside its own installation (its
    /// `CUDA_HOME` is set to that, see `tileir::compile`). Without one it fails every module with
    /// nothing but "failed to compile Tile IR program": on an H200, a `tileiras` copied alone
    /// into a folder did, and every Tile IR program read as a tcfuzz bug.
    #[error(
        "`tileiras` at {0} has no libNVVM beside it (looked for ../lib/libnvvm.so* and ../nvvm/lib64/libnvvm.so*), and without it every compile fails: keep the folder that holds bin/tileiras whole (`bash .ci/setup-nvidia` installs it)"
    )]
    NoNvvm(PathBuf),
    /// (The I/O error is in the message, not a `source()`: `main` prints the chain.)
    #[error("could not run {tool}: {error}")]
    Spawn { tool: String, error: std::io::Error },
    #[error("{tool} rejected the {what}:\n{stderr}")]
    Rejected { tool: &'static str, what: String, stderr: String },
    #[error("{0}")]
    Io(#[from] std::io::Error),
}

/// Where the tools are.
#[derive(Clone, Debug)]
pub struct Toolchain {
    pub ptxas: Option<PathBuf>,
    pub tileiras: Option<PathBuf>,
}

fn executable(p: &Path) -> bool {
    p.is_file()
}

fn venv_bins() -> Vec<PathBuf> {
    let mut roots: Vec<PathBuf> = Vec::new();
    if let Some(v) = std::env::var_os("VIRTUAL_ENV") {
        roots.push(PathBuf::from(v));
    }
    roots.push(PathBuf::from(".venv"));
    roots.push(PathBuf::from("../.venv"));
    if let Some(m) = option_env!("CARGO_MANIFEST_DIR") {
        roots.push(Path::new(m).join("../.venv"));
    }
    let mut out = Vec::new();
    for root in roots {
        let Ok(libs) = std::fs::read_dir(root.join("lib")) else { continue };
        for lib in libs.flatten() {
            let nvidia = lib.path().join("site-packages/nvidia");
            for sub in ["cu13/bin", "cuda_nvcc/bin", "cu12/bin"] {
                let bin = nvidia.join(sub);
                if bin.is_dir() {
                    out.push(bin);
                }
            }
        }
    }
    out
}

fn find(tool: &str) -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("TCFUZZ_CUDA_BIN") {
        let p = Path::new(&dir).join(tool);
        if executable(&p) {
            return Some(p);
        }
    }
    if let Some(path) = std::env::var_os("PATH") {
        for dir in std::env::split_paths(&path) {
            let p = dir.join(tool);
            if executable(&p) {
                return Some(p);
            }
        }
    }
    venv_bins().into_iter().map(|d| d.join(tool)).find(|p| executable(p))
}

/// Whether `BIN/tileiras`'s installation holds a libNVVM where `tileiras` looks for one:
/// `../lib/libnvvm.so*` (NVIDIA's pip packages) or `../nvvm/lib64/libnvvm.so*` (a CUDA toolkit).
fn has_nvvm(tileiras: &Path) -> bool {
    let Ok(real) = std::fs::canonicalize(tileiras) else { return false };
    let Some(install) = real.parent().and_then(Path::parent) else { return false };
    [install.join("lib"), install.join("nvvm/lib64")].iter().any(|dir| {
        std::fs::read_dir(dir)
            .map(|entries| entries.flatten().any(|e| e.file_name().to_string_lossy().starts_with("libnvvm.so")))
            .unwrap_or(false)
    })
}

impl Toolchain {
    pub fn discover() -> Toolchain {
        Toolchain { ptxas: find("ptxas"), tileiras: find("tileiras") }
    }

    pub fn ptxas(&self) -> Result<&Path, ToolError> {
        self.ptxas.as_deref().ok_or(ToolError::NotFound("ptxas"))
    }

    /// The `tileiras` found, where it has the libNVVM it needs beside it ([`ToolError::NoNvvm`]).
    pub fn tileiras(&self) -> Result<&Path, ToolError> {
        let tileiras = self.tileiras.as_deref().ok_or(ToolError::NotFound("tileiras"))?;
        if !has_nvvm(tileiras) {
            return Err(ToolError::NoNvvm(tileiras.to_path_buf()));
        }
        Ok(tileiras)
    }

    /// Assembles PTX text for `arch` (`sm_90a`, `sm_100a`) and returns the cubin.
    pub fn assemble(&self, ptx: &str, arch: &str) -> Result<Vec<u8>, ToolError> {
        let ptxas = self.ptxas()?;
        let dir = tempdir()?;
        let input = dir.path.join("kernel.ptx");
        let output = dir.path.join("kernel.cubin");
        std::fs::write(&input, ptx)?;
        let out = Command::new(ptxas)
            .arg(format!("-arch={arch}"))
            .arg(&input)
            .arg("-o")
            .arg(&output)
            .stdin(Stdio::null())
            .output()
            .map_err(|error| ToolError::Spawn { tool: ptxas.display().to_string(), error })?;
        if !out.status.success() {
            return Err(ToolError::Rejected {
                tool: "ptxas",
                what: format!("PTX for {arch}"),
                stderr: String::from_utf8_lossy(&out.stderr).replace(&input.display().to_string(), "kernel.ptx"),
            });
        }
        Ok(std::fs::read(&output)?)
    }
}

/// A temporary directory removed on drop (no extra dependency for one folder).
pub(crate) struct TempDir {
    pub path: PathBuf,
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}

pub(crate) fn tempdir() -> std::io::Result<TempDir> {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    let path = std::env::temp_dir().join(format!("tcfuzz-gpu-{}-{}", std::process::id(), N.fetch_add(1, Ordering::Relaxed)));
    std::fs::create_dir_all(&path)?;
    Ok(TempDir { path })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A `tileiras` without libNVVM beside it is refused with a message that says so (on an H200
    /// one copied alone failed every module as "failed to compile Tile IR program"); the pip
    /// layout (`lib/`) and a CUDA toolkit's (`nvvm/lib64/`) are both accepted. The files are
    /// empty: nothing is run.
    #[test]
    fn a_tileiras_without_libnvvm_beside_it_is_named_and_refused() {
        let dir = tempdir().expect("temp dir");
        std::fs::create_dir_all(dir.path.join("bin")).expect("bin");
        let tileiras = dir.path.join("bin/tileiras");
        std::fs::write(&tileiras, "").expect("tileiras");
        let tools = Toolchain { ptxas: None, tileiras: Some(tileiras.clone()) };
        let err = tools.tileiras().expect_err("no libNVVM");
        assert_eq!(
            err.to_string(),
            format!(
                "`tileiras` at {} has no libNVVM beside it (looked for ../lib/libnvvm.so* and ../nvvm/lib64/libnvvm.so*), and without it every compile fails: keep the folder that holds bin/tileiras whole (`bash .ci/setup-nvidia` installs it)",
                tileiras.display()
            )
        );
        for (sub, file) in [("nvvm/lib64", "libnvvm.so"), ("lib", "libnvvm.so.4")] {
            let _ = std::fs::remove_dir_all(dir.path.join("nvvm"));
            std::fs::create_dir_all(dir.path.join(sub)).expect("lib dir");
            std::fs::write(dir.path.join(sub).join(file), "").expect("libnvvm");
            assert_eq!(tools.tileiras().expect("libNVVM beside it"), tileiras.as_path(), "{sub}/{file}");
        }
    }
}
