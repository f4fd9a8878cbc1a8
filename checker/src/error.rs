//! Errors of the checker. A program the checker cannot judge gets an error, never a wrong verdict.

use std::fmt;

use tcfuzz_litmus::Span;

use crate::stats::Stats;

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
    /// The check passed [`crate::Options::deadline`] or saw [`crate::Options::cancel`] set
    /// before it finished. `partial` counts what it had explored by then (executions, not final
    /// states: a partial exploration says nothing about the states it did not reach).
    #[error("{cause} after {} executions ({} complete, {} blocked, {} assume failed)", partial.complete + partial.blocked + partial.assume_failed, partial.complete, partial.blocked, partial.assume_failed)]
    Interrupted { cause: Interruption, partial: Stats },
    /// The explorer passed [`crate::Options::max_executions`]. `partial` counts what it had
    /// explored by then, the execution that passed the budget included (as for
    /// [`CheckError::Interrupted`], executions, not final states). The message is the one of the
    /// other limits ([`CheckError::TooLarge`]): to a user, the program is too large to check.
    #[error("too large to check: more than {max_executions} executions (raise Options::max_executions)")]
    TooManyExecutions { max_executions: u64, partial: Stats },
    /// A [`crate::Subtree`] that is not one of this check's: made for another program, model or
    /// options, or naming a graph the exploration does not reach.
    #[error("not a subtree of this check: {0}")]
    ForeignSubtree(String),
}

/// Why a check stopped before it finished ([`CheckError::Interrupted`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Interruption {
    /// [`crate::Options::deadline`] passed.
    Deadline,
    /// [`crate::Options::cancel`] was set.
    Cancelled,
}

impl fmt::Display for Interruption {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Interruption::Deadline => "stopped at the deadline",
            Interruption::Cancelled => "cancelled",
        })
    }
}

impl CheckError {
    pub(crate) fn unsupported(instruction: impl Into<String>, span: Span) -> Self {
        CheckError::Unsupported { instruction: instruction.into(), span }
    }
    pub(crate) fn bad(message: impl Into<String>, span: Span) -> Self {
        CheckError::BadProgram { message: message.into(), span }
    }
}
