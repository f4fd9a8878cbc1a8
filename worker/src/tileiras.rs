//! NVIDIA's Tile IR compiler as a [`Compiler`]: `tileiras` compiles the program for sm_90, the
//! PTX it generates is lifted back into a litmus program (the gpu crate does both: DESIGN §8).

use std::collections::BTreeMap;

use tcfuzz_gpu::{ToolError, Toolchain};
use tcfuzz_litmus::Program;

use crate::oracles::differential::Compiler;

/// The architecture the compiler-lowering check compiles for (as `tcfuzz check --compiler`).
const ARCH: &str = "sm_90";

pub struct Tileiras {
    tools: Toolchain,
}

impl Tileiras {
    /// `tileiras` and `ptxas` where the gpu crate finds them (`.venv` after `.ci/setup-nvidia`,
    /// or `PATH`); the error says which is missing, or what the `tileiras` found lacks.
    pub fn discover() -> Result<Tileiras, ToolError> {
        let tools = Toolchain::discover();
        tools.tileiras()?;
        tools.ptxas()?;
        Ok(Tileiras { tools })
    }
}

impl Compiler for Tileiras {
    fn lower(&self, program: &Program) -> Result<(Program, BTreeMap<String, String>), String> {
        let (module, compiled) = tcfuzz_gpu::tileir::compile(program, &self.tools, ARCH).map_err(|e| e.to_string())?;
        let lifted = tcfuzz_gpu::tileir::lift::lift(program, &module, &compiled.ptx).map_err(|e| e.to_string())?;
        Ok((lifted.program, lifted.names))
    }
}
