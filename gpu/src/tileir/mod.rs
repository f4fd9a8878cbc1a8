//! Tile IR programs through NVIDIA's Tile IR compiler (DESIGN §4 `compiler-lowering`, §8): a
//! program becomes Tile IR bytecode ([`module`]), `tileiras` compiles it and the PTX it generates
//! is captured ([`compile`]), and that PTX is lifted back into a litmus program ([`lift`]) that the
//! checker can compare with the Tile IR program.

mod compile;
pub mod lift;
mod module;

pub use compile::Compiled;
pub use module::{CTL_HEADER, Entry, Module, RUN_ENTRY, Runnable, STRESS_ACCESSES, STRESS_LINE_WORDS, STRESS_ROLE, ctl_words};

use thiserror::Error;

use crate::{EmitError, ToolError, Toolchain};

#[derive(Debug, Error)]
pub enum TileError {
    #[error(transparent)]
    Emit(#[from] EmitError),
    #[error("cannot write Tile IR bytecode: {0}")]
    Bytecode(String),
    #[error(transparent)]
    Tool(#[from] ToolError),
}

/// The module of a Tile IR program, as MLIR text (for people; `tileiras` reads bytecode).
pub fn mlir_text(p: &tcfuzz_litmus::Program) -> Result<String, TileError> {
    Ok(module::module(p)?.ir.to_mlir_text())
}

/// The module of a Tile IR program and its bytecode, in the newest format `tileiras` reads.
pub fn bytecode(p: &tcfuzz_litmus::Program, tools: &Toolchain) -> Result<(Module, Vec<u8>), TileError> {
    let m = module::module(p)?;
    let tileiras = tools.tileiras()?;
    let version = cutile_ir::toolchain::negotiate_bytecode_version(tileiras, None).map_err(|e| TileError::Bytecode(e.to_string()))?;
    let bytes = cutile_ir::bytecode::write_bytecode_version(&m.ir, version).map_err(|e| TileError::Bytecode(e.to_string()))?;
    Ok((m, bytes))
}

/// Compiles a Tile IR program with `tileiras` for `arch` (`sm_90`, `sm_100`, ...).
pub fn compile(p: &tcfuzz_litmus::Program, tools: &Toolchain, arch: &str) -> Result<(Module, Compiled), TileError> {
    let (m, bytes) = bytecode(p, tools)?;
    let compiled = compile::compile(tools.tileiras()?, &ptxas_for_tileiras(tools)?, &bytes, arch)?;
    Ok((m, compiled))
}

/// Compiles the [`Runnable`] kernel of a Tile IR program with `tileiras` for `arch`.
pub fn compile_runnable(p: &tcfuzz_litmus::Program, tools: &Toolchain, arch: &str) -> Result<(Runnable, Compiled), TileError> {
    let r = module::runnable(p)?;
    let tileiras = tools.tileiras()?;
    let version = cutile_ir::toolchain::negotiate_bytecode_version(tileiras, None).map_err(|e| TileError::Bytecode(e.to_string()))?;
    let bytes = cutile_ir::bytecode::write_bytecode_version(&r.ir, version).map_err(|e| TileError::Bytecode(e.to_string()))?;
    let compiled = compile::compile(tileiras, &ptxas_for_tileiras(tools)?, &bytes, arch)?;
    Ok((r, compiled))
}

/// The `ptxas` `tileiras` hands its PTX to: the one beside it (the same release: `tileiras` 13.5
/// writes PTX ISA 9.5, which an older `ptxas` found first, e.g. CUDA 13.0's, rejects), else the
/// toolchain's.
fn ptxas_for_tileiras(tools: &Toolchain) -> Result<std::path::PathBuf, ToolError> {
    let beside = tools.tileiras()?.parent().map(|d| d.join("ptxas"));
    match beside {
        Some(p) if p.is_file() => Ok(p),
        _ => Ok(tools.ptxas()?.to_path_buf()),
    }
}
