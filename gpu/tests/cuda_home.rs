//! `tileiras` under a `CUDA_HOME` that names another toolkit: it looks there for libNVVM and
//! `ptxas` before its own installation, and an H100 machine whose image set `CUDA_HOME` to its
//! older CUDA 13.0 failed every compilation. Alone in its binary: it sets the variable for the
//! whole process.

use tcfuzz_gpu::Toolchain;
use tcfuzz_gpu::tileir::compile;

#[test]
fn a_cuda_home_of_another_toolkit_does_not_change_the_compilation() {
    let tc = Toolchain::discover();
    if tc.tileiras.is_none() || tc.ptxas.is_none() {
        println!("skipped: tileiras / ptxas not found (bash .ci/setup-nvidia installs them)");
        return;
    }
    // A toolkit whose ptxas always fails, and no libNVVM.
    let dir = std::env::temp_dir().join(format!("tcfuzz-cuda-home-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("bin")).expect("temp dir");
    let ptxas = dir.join("bin/ptxas");
    std::fs::write(&ptxas, "#!/bin/sh\necho 'not this ptxas' >&2\nexit 1\n").expect("fake ptxas");
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&ptxas, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    // SAFETY: this test is the only one in its binary; nothing else reads the environment now.
    unsafe { std::env::set_var("CUDA_HOME", &dir) };
    let p = tcfuzz_litmus::parse(include_str!("../../examples/tileir/MP+rel+acq-tokens.litmus")).expect("the example parses");
    let result = compile(&p, &tc, "sm_90");
    let _ = std::fs::remove_dir_all(&dir);
    let (_, compiled) = result.unwrap_or_else(|e| panic!("tileiras under a foreign CUDA_HOME: {e}"));
    assert!(!compiled.cubin.is_empty());
    assert!(compiled.ptx.contains(".entry tb1("), "the PTX was captured");
}
