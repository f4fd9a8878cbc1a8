//! The coordinator's errors and their one mapping to gRPC [`Status`] codes (STYLE lesson 7):
//! services return [`ServiceError`] and convert it with `?`/`into()` at the edge, nowhere else.

use tonic::{Code, Status};

/// Why a request failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ServiceError {
    /// No token, or not the coordinator's.
    #[error("missing or wrong token: send the coordinator's token as `authorization: Bearer TOKEN` metadata")]
    Unauthenticated,
    /// A malformed, out-of-range or inconsistent request; nothing was written.
    #[error("{0}")]
    Invalid(String),
    /// The worker id is not registered (the coordinator restarted, or the worker was forgotten).
    #[error("worker `{0}` is not registered here (did the coordinator restart?): call Register again")]
    UnknownWorker(String),
    /// A worker of another tcfuzz build: programs and verdicts are a function of the build.
    #[error(
        "worker version {worker} does not match the coordinator's {coordinator}: a job's programs and verdicts depend on the build (the part after `+` fingerprints its generator and checker sources), so run workers built from the same sources as the coordinator"
    )]
    VersionMismatch { worker: String, coordinator: String },
    /// No such campaign, discrepancy or exploration.
    #[error("{0}")]
    NotFound(String),
    /// The request names a state the coordinator has moved past (a seed-pool epoch that is over).
    #[error("{0}")]
    Outdated(String),
    /// The coordinator is stopping, or its store failed and it refuses further writes.
    #[error("{0}")]
    Unavailable(String),
    /// The corpus refused or failed a write.
    #[error("corpus: {0}")]
    Corpus(#[from] tcfuzz_corpus::CorpusError),
}

impl ServiceError {
    /// The gRPC code of this error.
    pub fn code(&self) -> Code {
        match self {
            ServiceError::Unauthenticated => Code::Unauthenticated,
            ServiceError::Invalid(_) => Code::InvalidArgument,
            ServiceError::UnknownWorker(_) | ServiceError::VersionMismatch { .. } => Code::FailedPrecondition,
            // gRPC's code for a failed sequencer check: what the request expected has moved on.
            ServiceError::Outdated(_) => Code::Aborted,
            ServiceError::NotFound(_) => Code::NotFound,
            ServiceError::Unavailable(_) => Code::Unavailable,
            ServiceError::Corpus(_) => Code::Internal,
        }
    }
}

impl From<ServiceError> for Status {
    fn from(e: ServiceError) -> Status {
        if matches!(e, ServiceError::Corpus(_)) {
            tracing::error!("{e}");
        }
        Status::new(e.code(), e.to_string())
    }
}

/// Shorthand for an [`ServiceError::Invalid`] with a formatted message.
macro_rules! invalid {
    ($($arg:tt)*) => { $crate::error::ServiceError::Invalid(format!($($arg)*)) };
}
pub(crate) use invalid;
