//! Errors with their position: what is wrong, and what would be right.

use crate::ast::Span;
use std::fmt;

/// What kind of mistake a diagnostic reports. Tests match on it; messages may be reworded.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The text does not follow the grammar (unexpected token, missing section).
    Syntax,
    UnknownInstruction,
    UnknownQualifier,
    /// A qualifier combination the ISA forbids (`ld.release`, a scope on a weak access, ...).
    ForbiddenQualifiers,
    /// An operand of the wrong kind or count.
    BadOperand,
    UndeclaredLocation,
    DuplicateThread,
    DuplicateLocation,
    BadPlacement,
    /// `cta_group::2` without a peer CTA in the same cluster.
    NoPeerCta,
    /// `tcgen05.ld/st` outside the warp's TMEM lane quarter.
    LaneQuarter,
    RegisterBeforeWrite,
    TokenBeforeDefinition,
    UndefinedLabel,
    /// The declared object has the wrong kind for this use (an mbarrier where TMEM is needed, ...).
    WrongLocationKind,
    /// A Tile IR instruction in a PTX thread or the reverse.
    WrongThreadKind,
    BadTile,
}

/// One error at one position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    pub span: Span,
    pub kind: ErrorKind,
    /// What is wrong, and where it helps, what would be right.
    pub message: String,
}

impl Diagnostic {
    pub(crate) fn new(span: Span, kind: ErrorKind, message: impl Into<String>) -> Self {
        Diagnostic { span, kind, message: cut_long_quotes(message.into()) }
    }
}

/// Input quoted in a message (between backticks) longer than this is cut: a 1 MB number must not
/// come back whole in its error.
const MAX_QUOTED: usize = 64;

/// `message` with each backtick-quoted piece longer than [`MAX_QUOTED`] characters cut to its
/// start, an ellipsis, and its length.
fn cut_long_quotes(message: String) -> String {
    let pieces: Vec<&str> = message.split('`').collect();
    if !pieces.iter().skip(1).step_by(2).any(|q| q.chars().count() > MAX_QUOTED) {
        return message;
    }
    let mut out = String::new();
    for (i, piece) in pieces.iter().enumerate() {
        let quoted = i % 2 == 1 && i + 1 < pieces.len();
        let n = piece.chars().count();
        if i % 2 == 1 {
            out.push('`');
        }
        if quoted && n > MAX_QUOTED {
            out.extend(piece.chars().take(MAX_QUOTED / 2));
            out.push_str(&format!("…` ({n} characters)"));
        } else {
            out.push_str(piece);
            if quoted {
                out.push('`');
            }
        }
    }
    out
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.span, self.message)
    }
}

/// All errors found in one program.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub struct Diagnostics(pub Vec<Diagnostic>);

impl Diagnostics {
    /// One line per error, `file:line:col: error: message`.
    pub fn render(&self, file: &str) -> String {
        let mut out = String::new();
        for d in &self.0 {
            out.push_str(&format!("{file}:{}:{}: error: {}\n", d.span.line, d.span.col, d.message));
        }
        out
    }
}

impl fmt::Display for Diagnostics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, d) in self.0.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "{d}")?;
        }
        Ok(())
    }
}

impl From<Diagnostic> for Diagnostics {
    fn from(d: Diagnostic) -> Self {
        Diagnostics(vec![d])
    }
}
