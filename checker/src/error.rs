//! Errors of the checker. A program the checker cannot judge gets an error, never a wrong verdict.

use tcfuzz_litmus::Span;

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CheckError {
    /// An instruction (or location kind, or thread kind) whose semantics the checker does not model
    /// yet. `instruction` names it as the user wrote it, roughly.
    #[error("{span}: `{instruction}` is not supported by the checker yet")]
    Unsupported { instruction: String, span: Span },
    /// The program breaks a rule the parser's validation should have caught (the checker also
    /// accepts programs built in code).
    #[error("{span}: {message}")]
    BadProgram { message: String, span: Span },
    /// The program is beyond a documented limit (events per thread, oracle candidates, ...).
    #[error("too large to check: {0}")]
    TooLarge(String),
}

impl CheckError {
    pub(crate) fn unsupported(instruction: impl Into<String>, span: Span) -> Self {
        CheckError::Unsupported { instruction: instruction.into(), span }
    }
    pub(crate) fn bad(message: impl Into<String>, span: Span) -> Self {
        CheckError::BadProgram { message: message.into(), span }
    }
}
