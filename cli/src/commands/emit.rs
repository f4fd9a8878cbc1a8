//! `tcfuzz emit`: a litmus program as a real kernel, assembled by NVIDIA's tools when they are
//! installed.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use tcfuzz_gpu::{EmitError, Target, Toolchain, emit_ptx};

use crate::exit;

/// Emit a litmus program as a GPU kernel and assemble it.
///
/// `--target sm_90a` (the default for programs without tcgen05) writes a PTX kernel for Hopper:
/// generic loads, stores and atomics with their semantics and scopes, fences, proxy fences, CTA and
/// cluster barriers, mbarriers and bulk async copies. `--target sm_100a` (the default for programs
/// with tcgen05) adds the tcgen05 instructions with real operands (TMEM addresses from
/// `tcgen05.alloc`, shared-memory matrix descriptors, mbarrier addresses). Each litmus thread is
/// one warp; many instances of the test run per launch (the layout is described at the top of the
/// kernel). The kernel declares the lowest PTX ISA version it needs.
///
/// `--target tileir` (the default for Tile IR programs) builds Tile IR: one entry per tile block,
/// each tile access a pointer operation with its ordering, scope and tokens. Its MLIR text goes to
/// stdout; with --out, the bytecode `tileiras` reads goes to the file instead. Where `tileiras` is
/// installed it is compiled for sm_90 (`tcfuzz lower --compiler` shows its PTX read back).
///
/// The kernel goes to stdout, or to --out. When `ptxas` is installed (on PATH, in TCFUZZ_CUDA_BIN,
/// or in ./.venv from `bash .ci/setup-nvidia`) the kernel is also assembled, and an assembler error
/// is reported as a tcfuzz bug.
///
/// Exit codes: 0 emitted (and assembled, where ptxas is installed); 1 the file cannot be read or
/// does not parse, or ptxas rejected the kernel (a tcfuzz bug); 3 the program uses something a
/// kernel cannot express (multiple GPUs, virtual aliases, texture proxies, ...).
#[derive(Debug, clap::Args)]
pub struct Args {
    /// A litmus file.
    #[arg(value_name = "FILE")]
    pub file: PathBuf,

    /// sm_90a, sm_100a or tileir (default: tileir for Tile IR programs, sm_100a if the program
    /// uses tcgen05, else sm_90a).
    #[arg(long, value_name = "TARGET")]
    pub target: Option<String>,

    /// Write the kernel to this file instead of stdout.
    #[arg(long, short, value_name = "FILE")]
    pub out: Option<PathBuf>,

    /// Do not assemble, even where ptxas is installed.
    #[arg(long)]
    pub no_assemble: bool,
}

pub fn run(args: &Args, quiet: bool) -> anyhow::Result<ExitCode> {
    let name = args.file.display().to_string();
    let Some(program) = crate::inputs::load(&args.file) else {
        return Ok(ExitCode::from(exit::INPUT_ERRORS));
    };
    let tile = program.threads.iter().any(|t| t.kind() == tcfuzz_litmus::ThreadKind::TileBlock);
    let target = match args.target.as_deref() {
        Some("tileir") => return emit_tileir(&name, &program, args, quiet),
        None if tile => return emit_tileir(&name, &program, args, quiet),
        Some(t) => match t.parse::<Target>() {
            Ok(t) => t,
            Err(e) => return Err(crate::exit::UsageError(format!("--target: {e} or tileir")).into()),
        },
        None => Target::for_program(&program),
    };
    let kernel = match emit_ptx(&program, target) {
        Ok(k) => k,
        Err(EmitError::Unsupported { span, message }) => {
            eprintln!("{name}:{span}: error: cannot emit: {message}");
            return Ok(ExitCode::from(exit::UNSUPPORTED));
        }
    };
    match &args.out {
        Some(path) => std::fs::write(path, &kernel.ptx).with_context(|| format!("cannot write {}", path.display()))?,
        None => print!("{}", kernel.ptx),
    }
    if args.no_assemble {
        return Ok(ExitCode::SUCCESS);
    }
    let tools = Toolchain::discover();
    let Some(ptxas) = tools.ptxas.clone() else {
        if !quiet {
            eprintln!("{name}: emitted for {} (not assembled: ptxas not found; `bash .ci/setup-nvidia` installs it)", target.arch());
        }
        return Ok(ExitCode::SUCCESS);
    };
    match tools.assemble(&kernel.ptx, target.arch()) {
        Ok(cubin) => {
            if !quiet {
                eprintln!(
                    "{name}: emitted for {} (PTX ISA {}.{}), assembled by {}: {} bytes of cubin",
                    target.arch(),
                    kernel.version / 10,
                    kernel.version % 10,
                    ptxas.display(),
                    cubin.len()
                );
            }
            Ok(ExitCode::SUCCESS)
        }
        Err(e) => {
            eprintln!("{name}: error: [tcfuzz internal bug] the emitted kernel does not assemble: {e}");
            Ok(ExitCode::from(exit::INPUT_ERRORS))
        }
    }
}

fn emit_tileir(name: &str, program: &tcfuzz_litmus::Program, args: &Args, quiet: bool) -> anyhow::Result<ExitCode> {
    let unsupported = |e: &dyn std::fmt::Display| {
        eprintln!("{name}: error: cannot emit: {e}");
        Ok(ExitCode::from(exit::UNSUPPORTED))
    };
    let text = match tcfuzz_gpu::tileir::mlir_text(program) {
        Ok(t) => t,
        Err(e) => return unsupported(&e),
    };
    let tools = Toolchain::discover();
    if let Err(e) = tools.tileiras() {
        if args.out.is_some() {
            eprintln!("{name}: error: writing Tile IR bytecode needs tileiras (its bytecode version): {e}");
            return Ok(ExitCode::from(exit::UNSUPPORTED));
        }
        print!("{text}");
        if !quiet {
            eprintln!("{name}: Tile IR emitted (not compiled: {e})");
        }
        return Ok(ExitCode::SUCCESS);
    }
    let (_, bytes) = match tcfuzz_gpu::tileir::bytecode(program, &tools) {
        Ok(b) => b,
        Err(e) => return unsupported(&e),
    };
    match &args.out {
        Some(path) => std::fs::write(path, &bytes).with_context(|| format!("cannot write {}", path.display()))?,
        None => print!("{text}"),
    }
    if args.no_assemble {
        return Ok(ExitCode::SUCCESS);
    }
    match tcfuzz_gpu::tileir::compile(program, &tools, crate::commands::differential::COMPILER_ARCH) {
        Ok((_, c)) => {
            if !quiet {
                eprintln!(
                    "{name}: Tile IR emitted ({} bytes of bytecode), compiled by tileiras for {}: {} bytes of cubin",
                    bytes.len(),
                    crate::commands::differential::COMPILER_ARCH,
                    c.cubin.len()
                );
            }
            Ok(ExitCode::SUCCESS)
        }
        Err(e) => {
            eprintln!("{name}: error: [tcfuzz internal bug] the emitted Tile IR does not compile: {e}");
            Ok(ExitCode::from(exit::INPUT_ERRORS))
        }
    }
}
