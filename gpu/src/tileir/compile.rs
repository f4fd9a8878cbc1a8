//! `tileiras` on a module, keeping the PTX it generates on the way.
//!
//! `tileiras` lowers Tile IR through libNVVM to PTX and hands that PTX to the `ptxas` beside it
//! (it finds `../lib/libnvvm.so` and `ptxas` relative to its own path). Running it from a
//! directory that mirrors its installation — `bin/tileiras` hard-linked (or copied), `lib` and
//! `nvvm` linked, and `bin/ptxas` a wrapper that copies the `.ptx` it is given before running the
//! real `ptxas` — captures NVIDIA's own PTX lowering of the program.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::toolchain::{TempDir, ToolError, tempdir};

/// The cubin and the PTX of a compiled module.
pub struct Compiled {
    pub cubin: Vec<u8>,
    pub ptx: String,
}

fn mirror(tileiras: &Path, ptxas: &Path, dir: &Path) -> Result<PathBuf, ToolError> {
    // Links from elsewhere need absolute targets.
    let tileiras = &std::fs::canonicalize(tileiras)?;
    let ptxas = &std::fs::canonicalize(ptxas)?;
    let install = tileiras.parent().and_then(Path::parent).ok_or(ToolError::NotFound("tileiras"))?;
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin)?;
    let local = bin.join("tileiras");
    if std::fs::hard_link(tileiras, &local).is_err() {
        std::fs::copy(tileiras, &local)?;
    }
    for sub in ["lib", "nvvm"] {
        let target = install.join(sub);
        if target.exists() {
            std::os::unix::fs::symlink(&target, dir.join(sub))?;
        }
    }
    let capture = dir.join("captured.ptx");
    let script = format!(
        "#!/bin/sh\nfor a in \"$@\"; do case \"$a\" in *.ptx) cp \"$a\" '{}';; esac; done\nexec '{}' \"$@\"\n",
        capture.display(),
        ptxas.display()
    );
    let wrapper = bin.join("ptxas");
    std::fs::write(&wrapper, script)?;
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755))?;
    Ok(local)
}

/// Compiles bytecode for `arch` (`sm_90`, `sm_100`, ...).
pub fn compile(tileiras: &Path, ptxas: &Path, bytecode: &[u8], arch: &str) -> Result<Compiled, ToolError> {
    let dir: TempDir = tempdir()?;
    let local = mirror(tileiras, ptxas, &dir.path)?;
    let input = dir.path.join("program.bc");
    let output = dir.path.join("program.cubin");
    std::fs::write(&input, bytecode)?;
    let out = Command::new(&local)
        // tileiras looks for libNVVM and ptxas under $CUDA_HOME before its own installation: on
        // a machine whose CUDA toolkit is older (an H100 image with CUDA 13.0 sets it), it failed
        // every program ("failed to compile Tile IR program"), and it would bypass the capture.
        .env("CUDA_HOME", &dir.path)
        .arg(format!("--gpu-name={arch}"))
        .arg("-o")
        .arg(&output)
        .arg(&input)
        .stdin(Stdio::null())
        .output()
        .map_err(|error| ToolError::Spawn { tool: local.display().to_string(), error })?;
    if !out.status.success() {
        let mut stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        stderr.push_str(&String::from_utf8_lossy(&out.stdout));
        return Err(ToolError::Rejected { tool: "tileiras", what: format!("Tile IR bytecode for {arch}"), stderr });
    }
    let ptx = std::fs::read_to_string(dir.path.join("captured.ptx"))
        .map_err(|e| ToolError::Io(std::io::Error::new(e.kind(), format!("tileiras ran no ptxas through the capture wrapper: {e}"))))?;
    Ok(Compiled { cubin: std::fs::read(&output)?, ptx })
}
