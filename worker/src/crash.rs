//! `checker-crash` (DESIGN §4): a panic of the checker on a valid generated program is a finding,
//! caught per program so that the job goes on.
//!
//! The signature is where the panic happened and its message with numbers replaced by `N` (two
//! programs that trip one assertion collapse; two assertions never share one). The location comes
//! from the panic hook ([`install_panic_hook`]): a panic in the explorer's own thread reaches the
//! caller as a payload without its location, so the hook records `message → location` for the
//! catching side to look up.

use std::any::Any;
use std::collections::HashMap;
use std::sync::{Mutex, Once, OnceLock};

static LOCATIONS: OnceLock<Mutex<HashMap<String, String>>> = OnceLock::new();
static INSTALL: Once = Once::new();

/// Installs (once per process) a panic hook that records each panic's location under its message
/// for [`signature`], and silences the default report of panics that [`caught`] will report as
/// findings (they would break a progress display); other panics are reported as before.
pub fn install_panic_hook() {
    INSTALL.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let payload = info.payload();
            let message = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "(no message)".to_string());
            let location = info.location().map_or_else(|| "unknown location".to_string(), |l| format!("{}:{}", l.file(), l.line()));
            if let Ok(mut m) = LOCATIONS.get_or_init(Default::default).lock() {
                // Bounded: a campaign that crashes in many ways keeps the first thousand.
                if m.len() < 1000 {
                    m.insert(message, location);
                }
            }
            if !QUIET.with(|q| q.get()) && std::thread::current().name() != Some("tcfuzz-explorer") {
                previous(info);
            }
        }));
    });
}

thread_local! {
    /// Set while this thread runs a program whose panics become findings.
    static QUIET: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Runs `f` with this thread's panics reported as findings, not on stderr.
pub(crate) fn caught<T>(f: impl FnOnce() -> T) -> Result<T, Box<dyn Any + Send>> {
    // (Nested: the outer call's setting comes back.)
    let outer = QUIET.with(|q| q.replace(true));
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
    QUIET.with(|q| q.set(outer));
    r
}

/// A panic payload's message.
pub fn payload_message(payload: &(dyn Any + Send)) -> String {
    payload
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_else(|| "(no message)".to_string())
}

/// `LOCATION: MESSAGE` with every run of digits in the message replaced by `N` and the message
/// cut to its first line (at most 160 characters).
pub fn signature(message: &str) -> String {
    let location = location(message).unwrap_or_else(|| "unknown location".to_string());
    format!("{location}: {}", normalize(message))
}

/// Where the panic with `message` happened (`file:line`), where the hook of
/// [`install_panic_hook`] saw it.
pub fn location(message: &str) -> Option<String> {
    LOCATIONS.get().and_then(|m| m.lock().ok()?.get(message).cloned())
}

pub(crate) fn normalize(message: &str) -> String {
    let first = message.lines().next().unwrap_or("");
    let mut out = String::new();
    let mut in_digits = false;
    for c in first.chars() {
        if c.is_ascii_digit() {
            if !in_digits {
                out.push('N');
            }
            in_digits = true;
        } else {
            out.push(c);
            in_digits = false;
        }
    }
    let out = out.split_whitespace().collect::<Vec<_>>().join(" ");
    out.chars().take(160).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One assertion, tripped with different numbers.
    fn out_of_bounds(len: usize, index: usize) {
        panic!("index out of bounds: the len is {len} but the index is {index}");
    }

    #[test]
    fn numbers_do_not_split_a_crash_and_locations_do() {
        install_panic_hook();
        let sig = |f: &dyn Fn()| signature(&payload_message(caught(f).unwrap_err().as_ref()));
        let (a, b) = (sig(&|| out_of_bounds(3, 7)), sig(&|| out_of_bounds(4, 9)));
        assert!(a.starts_with("worker/src/crash.rs:"), "{a}");
        assert!(a.ends_with(": index out of bounds: the len is N but the index is N"), "{a}");
        assert_eq!(a, b);
        // The same message from another place: another crash.
        let c = sig(&|| panic!("index out of bounds: the len is {} but the index is {}", 1, 2));
        assert_ne!(a, c);
        assert_eq!(normalize("x 12 y\nsecond line"), "x N y");
    }
}
