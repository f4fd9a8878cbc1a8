//! Every example program is emitted for its target and assembled by NVIDIA's `ptxas`: an
//! assembler error on an emitted program is an emission bug. Skipped, with the reason printed,
//! where `ptxas` is not installed (`bash .ci/setup-nvidia` installs it).

use std::path::{Path, PathBuf};

use tcfuzz_gpu::{EmitError, Target, Toolchain, emit_ptx};

fn examples() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples");
    let mut out = Vec::new();
    let mut stack = vec![root];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).expect("examples/ is readable").flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "litmus") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

fn toolchain() -> Option<Toolchain> {
    let tc = Toolchain::discover();
    if tc.ptxas.is_none() {
        println!("skipped: ptxas not found (bash .ci/setup-nvidia installs it)");
        return None;
    }
    Some(tc)
}

#[test]
fn every_ptx_example_assembles() {
    let Some(tc) = toolchain() else { return };
    let mut failures = Vec::new();
    let mut assembled = 0;
    let mut refused = Vec::new();
    for path in examples() {
        let src = std::fs::read_to_string(&path).expect("example is readable");
        let program = tcfuzz_litmus::parse(&src).expect("example parses");
        if program.threads.iter().any(|t| t.kind() == tcfuzz_litmus::ThreadKind::TileBlock) {
            continue;
        }
        let target = Target::for_program(&program);
        match emit_ptx(&program, target) {
            Ok(k) => match tc.assemble(&k.ptx, target.arch()) {
                Ok(cubin) => {
                    assert!(!cubin.is_empty());
                    assembled += 1;
                }
                Err(e) => failures.push(format!("{}: {e}", path.display())),
            },
            Err(EmitError::Unsupported { message, .. }) => refused.push(format!("{}: {message}", path.display())),
        }
    }
    for r in &refused {
        println!("not emitted: {r}");
    }
    // The one example a single-GPU kernel cannot express.
    refused.retain(|r| !r.contains("MP+rel+acq-sys-diffgpu.litmus: P1 runs on gpu 1: a kernel runs on one GPU"));
    assert!(failures.is_empty(), "{} example(s) failed to assemble:\n{}", failures.len(), failures.join("\n"));
    println!("{assembled} examples assembled");
    assert!(refused.is_empty(), "examples the emitter refuses: {refused:?}");
}

/// Generated programs of every PTX family, emitted and assembled. Those emission refuses must be
/// refused for a reason a kernel really cannot express; the counts are printed.
#[test]
fn generated_programs_assemble() {
    use tcfuzz_generator::random::{Family, random_program};
    let Some(tc) = toolchain() else { return };
    const PER_FAMILY: u64 = 60;
    // What the ISA itself cannot express or leaves undefined (the litmus language and its
    // generators allow them).
    let expected_refusals = [
        "no PTX equivalent",
        "cta_group::1 and cta_group::2",
        "computed at run time",
        "waits are .shared::cta only",
        "twice without a wait",
        "no arrive since its last wait",
    ];
    for family in [Family::Ptx, Family::Sync, Family::Tcgen05, Family::Assume] {
        let (mut assembled, mut refused) = (0, std::collections::BTreeMap::<&str, u32>::new());
        for seed in 0..PER_FAMILY {
            let program = random_program(family, seed);
            let target = Target::for_program(&program);
            match emit_ptx(&program, target) {
                Ok(k) => {
                    if let Err(e) = tc.assemble(&k.ptx, target.arch()) {
                        panic!("{} seed {seed}: {e}\n{}\n{}", family.name(), tcfuzz_litmus::print(&program), k.ptx);
                    }
                    assembled += 1;
                }
                Err(EmitError::Unsupported { message, .. }) => {
                    let Some(reason) = expected_refusals.iter().find(|r| message.contains(*r)) else {
                        panic!("{} seed {seed}: unexpected refusal: {message}\n{}", family.name(), tcfuzz_litmus::print(&program));
                    };
                    *refused.entry(reason).or_default() += 1;
                }
            }
        }
        println!("{}: {assembled} assembled, refused: {refused:?}", family.name());
        // The sync family's cluster-barrier sequences are often ones the harness cannot close
        // (a wait with no arrive before it, two arrives in a row: 14 of its 60 here), beside
        // Dat3M's quorum barrier (18): it emits 27; the others nearly all.
        assert!(assembled >= PER_FAMILY as usize * 2 / 5, "{}: only {assembled} of {PER_FAMILY} emitted", family.name());
    }
}

/// Program 892 of `tcfuzz fuzz --seed 5` (shrunk): TMEM regions declared, no `tcgen05`
/// instruction. The prologue allocates the regions with `tcgen05.alloc`, so the kernel is an
/// sm_100a one; emitted for sm_90a, ptxas rejected it on an H200 worker.
#[test]
fn declared_tensor_memory_makes_an_sm_100a_kernel() {
    let program = tcfuzz_litmus::parse(
        "PTX t\n{ d0 @ tmem cta 0 gpu 0 lanes 0-31 cols 0-31 = 1; s @ shared cta 0 gpu 0 = 4; }\n P0@warp 0,cta 0,gpu 0 ;\n st.shared::cta.b32 [s], 12 ;\nexists (true)\n",
    )
    .expect("the program parses");
    assert_eq!(Target::for_program(&program), Target::Sm100a);
    let kernel = emit_ptx(&program, Target::Sm100a).expect("emitted");
    assert!(kernel.ptx.contains("tcgen05.alloc"), "{}", kernel.ptx);
    let Some(tc) = toolchain() else { return };
    if let Err(e) = tc.assemble(&kernel.ptx, "sm_100a") {
        panic!("{e}\n{}", kernel.ptx);
    }
}
