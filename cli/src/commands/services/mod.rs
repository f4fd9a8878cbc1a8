//! The distributed commands (DESIGN §5): `tcfuzz coordinator`, `tcfuzz worker`, `tcfuzz status`
//! and `tcfuzz campaign` (a coordinator and its workers in one process, or a campaign on a running
//! coordinator). Each builds a tokio runtime of its own; checking runs on the workers' threads.

pub mod campaign;
mod connection;
pub mod coordinator;
mod report;
pub mod status;
pub mod worker;

use std::future::Future;

/// A tokio runtime for a command: two threads carry the network; checking has its own threads.
fn runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    use anyhow::Context;
    tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().context("cannot start the async runtime")
}

/// Completes on SIGTERM or Ctrl-C (SIGINT).
fn stop_signal() -> impl Future<Output = ()> {
    async {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{SignalKind, signal};
            match signal(SignalKind::terminate()) {
                Ok(mut term) => {
                    tokio::select! {
                        _ = term.recv() => {}
                        _ = tokio::signal::ctrl_c() => {}
                    }
                }
                Err(_) => {
                    let _ = tokio::signal::ctrl_c().await;
                }
            }
        }
        #[cfg(not(unix))]
        {
            let _ = tokio::signal::ctrl_c().await;
        }
    }
}
