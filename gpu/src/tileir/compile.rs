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

/// Where the wrapper keeps what `ptxas` wrote to stderr.
const PTXAS_ERRORS: &str = "ptxas.stderr";

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
    // ptxas's messages are kept too: tileiras reports a rejection of its PTX only as "failed to
    // compile Tile IR program".
    let script = format!(
        "#!/bin/sh\nfor a in \"$@\"; do case \"$a\" in *.ptx) cp \"$a\" '{}';; esac; done\n'{}' \"$@\" 2> '{}'\nrc=$?\ncat '{}' >&2\nexit $rc\n",
        capture.display(),
        ptxas.display(),
        dir.join(PTXAS_ERRORS).display(),
        dir.join(PTXAS_ERRORS).display(),
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
        let ptxas_said = std::fs::read_to_string(dir.path.join(PTXAS_ERRORS)).unwrap_or_default();
        if !ptxas_said.trim().is_empty() {
            let ptxas_said = ptxas_said.replace(&dir.path.display().to_string(), ".");
            stderr.push_str(&format!("(the PTX tileiras generated was rejected by {}: {})\n", ptxas.display(), ptxas_said.trim()));
        }
        return Err(ToolError::Rejected { tool: "tileiras", what: format!("Tile IR bytecode for {arch}"), stderr });
    }
    let ptx = std::fs::read_to_string(dir.path.join("captured.ptx"))
        .map_err(|e| ToolError::Io(std::io::Error::new(e.kind(), format!("tileiras ran no ptxas through the capture wrapper: {e}"))))?;
    Ok(Compiled { cubin: std::fs::read(&output)?, ptx })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Toolchain;

    /// A `ptxas` that rejects the PTX `tileiras` generates (an older one, say) is named with its
    /// own message, where `tileiras` alone said "failed to compile Tile IR program" (on an H200,
    /// CUDA 13.0's `ptxas` under `tileiras` 13.5 failed every Tile IR program that way).
    #[test]
    fn a_ptxas_rejecting_the_generated_ptx_is_named_with_its_message() {
        let tools = Toolchain::discover();
        let Ok(tileiras) = tools.tileiras() else {
            println!("skipped: tileiras not found (bash .ci/setup-nvidia installs it)");
            return;
        };
        let dir = tempdir().expect("temp dir");
        let old = dir.path.join("ptxas");
        std::fs::write(&old, "#!/bin/sh\necho \"ptxas fatal   : Unsupported .version 9.5; current version is '9.0'\" >&2\nexit 255\n")
            .expect("fake ptxas");
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&old, std::fs::Permissions::from_mode(0o755)).expect("executable");
        let program = tcfuzz_litmus::parse(include_str!("../../../examples/tileir/MP+rel+acq-tokens.litmus")).expect("parses");
        let (_, bytes) = super::super::bytecode(&program, &tools).expect("bytecode");
        let Err(ToolError::Rejected { tool, stderr, .. }) = compile(tileiras, &old, &bytes, "sm_90") else {
            panic!("the fake ptxas must fail the compile");
        };
        assert_eq!(tool, "tileiras");
        let expected = format!(
            "(the PTX tileiras generated was rejected by {}: ptxas fatal   : Unsupported .version 9.5; current version is '9.0')",
            old.display()
        );
        assert!(stderr.contains(&expected), "{stderr}");
    }
}
