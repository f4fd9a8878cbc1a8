//! Ctrl-C during `tcfuzz check`: the first one sets the flag the checker polls
//! ([`tcfuzz_checker::Options::cancel`]), so the check in progress stops with its partial counts
//! and the command reports them; a second one ends the process at once, as usual.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};

static FLAG: OnceLock<Arc<AtomicBool>> = OnceLock::new();

/// The flag a Ctrl-C sets, with the handler installed (once per process).
pub fn flag() -> Arc<AtomicBool> {
    FLAG.get_or_init(|| {
        install();
        Arc::new(AtomicBool::new(false))
    })
    .clone()
}

/// Whether Ctrl-C was pressed.
pub fn pressed() -> bool {
    FLAG.get().is_some_and(|f| f.load(Ordering::Relaxed))
}

#[cfg(unix)]
fn install() {
    extern "C" fn on_sigint(_: libc::c_int) {
        // Only async-signal-safe work here: an atomic store, and signal(2) to let the next
        // Ctrl-C end the process.
        if let Some(flag) = FLAG.get() {
            flag.store(true, Ordering::Relaxed);
        }
        // SAFETY: restoring the default disposition of SIGINT is async-signal-safe.
        unsafe {
            libc::signal(libc::SIGINT, libc::SIG_DFL);
        }
    }
    // SAFETY: the handler only stores to an atomic and calls signal(2), both async-signal-safe.
    unsafe {
        libc::signal(libc::SIGINT, on_sigint as extern "C" fn(libc::c_int) as libc::sighandler_t);
    }
}

#[cfg(not(unix))]
fn install() {}
