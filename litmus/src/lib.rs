//! The tcfuzz program language: litmus programs for PTX (generic proxy, proxies, mbarriers, bulk
//! async copies, `tcgen05`) and CUDA Tile IR, their text format (a superset of Dat3M's PTX litmus
//! format, documented in `FORMAT.md`), a printer, and validation with precise errors.
//!
//! Pure: no I/O. The caller reads files and names them when rendering errors.
//!
//! ```
//! let src = "PTX SB\n{ x = 0; y = 0; }\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n st.relaxed.gpu x, 1 | st.relaxed.gpu y, 1 ;\n ld.relaxed.gpu r0, y | ld.relaxed.gpu r0, x ;\nexists (P0:r0 == 0 /\\ P1:r0 == 0)\n";
//! let program = tcfuzz_litmus::parse(src).expect("valid program");
//! assert_eq!(program.threads.len(), 2);
//! let printed = tcfuzz_litmus::print(&program);
//! assert!(tcfuzz_litmus::parse(&printed).expect("reparses").same_as(&program));
//! ```

pub mod ast;
mod error;
mod instr;
mod lexer;
mod multicast;
mod parser;
mod printer;
mod tcgen05;
mod tile;
mod validate;

pub use ast::*;
pub use error::{Diagnostic, Diagnostics, ErrorKind};
pub use multicast::multicast_targets;
pub use parser::MAX_CONDITION_DEPTH;
pub use validate::writes as registers_written;

/// Parses and validates a litmus program. On failure, every error found is returned (the parser
/// stops at the first syntax error; validation reports all it finds).
pub fn parse(src: &str) -> Result<Program, Diagnostics> {
    let program = parser::parse(src)?;
    let errors = validate::validate(&program);
    if errors.is_empty() { Ok(program) } else { Err(Diagnostics(errors)) }
}

/// Parses without validating: syntax only. For tools that want to show a program that breaks a
/// semantic rule.
pub fn parse_syntax(src: &str) -> Result<Program, Diagnostics> {
    parser::parse(src)
}

/// Validates a program built in code (by the generator or minimizer).
pub fn validate(program: &Program) -> Result<(), Diagnostics> {
    let errors = validate::validate(program);
    if errors.is_empty() { Ok(()) } else { Err(Diagnostics(errors)) }
}

/// Prints a program in canonical form (`FORMAT.md`, "Canonical printing").
pub fn print(program: &Program) -> String {
    printer::print(program)
}
