//! The coordinator's settings and fixed limits: how long leases last, how large a request may be,
//! how often a job may lose its worker; and the clock lease deadlines are measured by.

/// Lease and queue settings.
#[derive(Clone, Debug)]
pub struct Settings {
    /// How long a lease lasts after it is granted or extended.
    pub lease_ms: u64,
    /// How long a worker that got no job waits before asking again.
    pub idle_retry_ms: u64,
    /// The largest request the worker protocol accepts, in bytes: [`MIN_MESSAGE_BYTES`] to
    /// [`tcfuzz_proto::MAX_MESSAGE_BYTES`] (the default). Workers are told it when they register
    /// and split their reports to fit.
    pub max_message_bytes: usize,
}

/// The smallest [`Settings::max_message_bytes`]: a result with one largest program and verdict
/// must fit, and a failed job's report (`JobResult.refused`) always does.
pub const MIN_MESSAGE_BYTES: usize = 256 << 10;

impl Default for Settings {
    fn default() -> Settings {
        Settings { lease_ms: 30_000, idle_retry_ms: 500, max_message_bytes: tcfuzz_proto::MAX_MESSAGE_BYTES }
    }
}

/// Leases a job gets at most when its workers keep getting lost before it names a program.
pub(super) const MAX_ATTEMPTS: u32 = 5;

/// The signature of a `checker-crash` found by losing a job's worker twice: the process died, so
/// nothing more is known about the fault (two faults that kill workers share it).
pub const WORKER_LOST_SIGNATURE: &str = "worker-lost-twice";

/// The time now, in ms since the Unix epoch.
pub fn now_ms() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64)
}
