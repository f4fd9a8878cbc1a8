//! Errors of the corpus. Damage is always reported with the tree and the key it was found at, and
//! never repaired silently: a record that does not decode is an error, not a skipped entry.

use std::path::PathBuf;

use crate::store::{StoreError, Tree};

#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CorpusError {
    /// A stored value (or key) that does not decode: too short, checksum mismatch, bad field.
    #[error("corrupt record in tree `{tree}` at key {key}: {reason}")]
    Corrupt { tree: Tree, key: String, reason: String },

    /// A value written in a format version this build does not read.
    #[error(
        "record in tree `{tree}` at key {key} has format version {found}, but this tcfuzz reads version {known}; it was written by another tcfuzz version"
    )]
    UnknownVersion { tree: Tree, key: String, found: u8, known: u8 },

    /// The corpus as a whole has a schema version this build does not read.
    #[error("{}: corpus schema version {found}, but this tcfuzz reads schema version {expected} (tree `meta`, key `schema`); open it with the tcfuzz that wrote it, or export it there and import it here", dir.display())]
    Schema { dir: PathBuf, found: u32, expected: u32 },

    /// The database holds fewer commits than were acknowledged to callers: writes were lost (a
    /// truncated or damaged file, or a store that did not keep a flushed write).
    #[error("{}: the database holds {found} commits, but {acknowledged} were acknowledged as durable (`{}`): acknowledged records are missing; the database file was truncated or damaged", dir.display(), crate::acked::FILE_NAME)]
    LostWrites { dir: PathBuf, acknowledged: u64, found: u64 },

    /// The directory is not a corpus (or is missing a part of one).
    #[error("{}: {reason}", dir.display())]
    NotACorpus { dir: PathBuf, reason: String },

    /// The storage engine failed (I/O, or damage the engine itself detected). (The engine's
    /// error is in the message, not a `source()`: `main` prints the chain, which would say it
    /// twice.)
    #[error("{context}: {engine}")]
    Store { context: String, engine: StoreError },

    /// A file outside the database (the acknowledgement file, an export) could not be used.
    #[error("{}: {error}", path.display())]
    Io { path: PathBuf, error: std::io::Error },

    /// Input that is not acceptable: a record whose program is not a valid litmus program, an
    /// export file that does not parse, an import into a corpus that is not empty.
    #[error("{0}")]
    Invalid(String),
}

impl CorpusError {
    pub(crate) fn store(context: impl Into<String>) -> impl FnOnce(StoreError) -> CorpusError {
        let context = context.into();
        move |engine| CorpusError::Store { context, engine }
    }

    pub(crate) fn io(path: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> CorpusError {
        let path = path.into();
        move |error| CorpusError::Io { path, error }
    }
}

pub type Result<T, E = CorpusError> = std::result::Result<T, E>;
