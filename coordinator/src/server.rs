//! The server: both services and gRPC health on one listener, behind the token check, with TLS
//! when given, message size limits, and a graceful stop that drains the ledger.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use tcfuzz_corpus::Corpus;
use tcfuzz_proto::MAX_MESSAGE_BYTES;
use tcfuzz_proto::v1::{admin_server::AdminServer, coordinator_server::CoordinatorServer};
use tokio_stream::wrappers::TcpListenerStream;
use tonic::service::interceptor::InterceptedService;
use tonic::transport::{Identity, Server, ServerTlsConfig};
use tonic::{Request, Status};

use crate::error::ServiceError;
use crate::ledger::Ledger;
use crate::reports::{ReportSchedule, run_schedule};
use crate::service::{AdminService, CoordinatorService};
use crate::state::{MIN_MESSAGE_BYTES, Settings};

/// A certificate chain and its private key, both PEM.
#[derive(Clone)]
pub struct TlsIdentity {
    pub cert_pem: Vec<u8>,
    pub key_pem: Vec<u8>,
}

/// How the coordinator runs.
#[derive(Clone, Default)]
pub struct Config {
    /// The shared token workers and admin clients present; `None` accepts every client (only
    /// sensible on loopback: the CLI refuses it elsewhere).
    pub token: Option<String>,
    /// Serve TLS with this identity.
    pub tls: Option<TlsIdentity>,
    pub settings: Settings,
    /// Write the discrepancy report on this schedule.
    pub reports: Option<ReportSchedule>,
}

/// Why the coordinator could not start or stopped on its own.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    #[error(transparent)]
    Service(#[from] ServiceError),
    #[error("gRPC transport: {0}")]
    Transport(#[from] tonic::transport::Error),
    #[error(
        "the coordinator's store failed; it stopped so that nothing unrecorded is acknowledged (restart it: it resumes from the corpus)"
    )]
    StoreFailed,
    #[error("max_message_bytes: {0} is not in {MIN_MESSAGE_BYTES}..={MAX_MESSAGE_BYTES}")]
    MessageLimit(usize),
}

/// How often leases are checked for expiry and queues topped up when no request comes.
const TICK: Duration = Duration::from_millis(200);

/// The token check every request but health checks passes through.
#[derive(Clone)]
pub struct TokenCheck {
    /// `Bearer TOKEN`, as the metadata value must read.
    expected: Option<Arc<[u8]>>,
}

impl TokenCheck {
    pub fn new(token: Option<&str>) -> TokenCheck {
        TokenCheck { expected: token.map(|t| Arc::from(format!("Bearer {t}").into_bytes())) }
    }
}

impl tonic::service::Interceptor for TokenCheck {
    fn call(&mut self, request: Request<()>) -> Result<Request<()>, Status> {
        let Some(expected) = &self.expected else { return Ok(request) };
        let given = request.metadata().get(tcfuzz_proto::TOKEN_METADATA_KEY).map(|v| v.as_bytes()).unwrap_or_default();
        // Constant time in the token's content: no early exit on the first differing byte.
        let same = given.len() == expected.len() && given.iter().zip(expected.iter()).fold(0u8, |acc, (a, b)| acc | (a ^ b)) == 0;
        if same { Ok(request) } else { Err(ServiceError::Unauthenticated.into()) }
    }
}

/// Serves until `shutdown` completes (or the store fails), then stops taking requests, lets those
/// in flight finish — their results reach the disk before they are answered — and returns.
pub async fn serve(
    corpus: Corpus,
    listener: tokio::net::TcpListener,
    config: Config,
    shutdown: impl Future<Output = ()> + Send,
) -> Result<(), ServeError> {
    let limit = config.settings.max_message_bytes;
    if !(MIN_MESSAGE_BYTES..=MAX_MESSAGE_BYTES).contains(&limit) {
        return Err(ServeError::MessageLimit(limit));
    }
    let corpus = Arc::new(corpus);
    let (ledger, thread) = {
        let corpus = corpus.clone();
        let settings = config.settings.clone();
        tokio::task::spawn_blocking(move || Ledger::start(corpus, settings))
            .await
            .map_err(|e| ServiceError::Unavailable(format!("[tcfuzz internal bug] {e}")))??
    };
    let ticker = {
        let ledger = ledger.clone();
        tokio::spawn(async move {
            let mut every = tokio::time::interval(TICK);
            every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                every.tick().await;
                if !ledger.tick() {
                    break;
                }
            }
        })
    };
    let reporter = config.reports.clone().map(|schedule| tokio::spawn(run_schedule(schedule, corpus.clone(), ledger.clone())));
    let (health, health_service) = tonic_health::server::health_reporter();
    health.set_serving::<CoordinatorServer<CoordinatorService>>().await;
    health.set_serving::<AdminServer<AdminService>>().await;

    let check = TokenCheck::new(config.token.as_deref());
    // Workers learn the limit when they register (RegisterResponse.max_message_bytes).
    let coordinator = CoordinatorServer::new(CoordinatorService { ledger: ledger.clone() })
        .max_decoding_message_size(limit)
        .max_encoding_message_size(MAX_MESSAGE_BYTES);
    let admin = AdminServer::new(AdminService { ledger: ledger.clone(), corpus })
        .max_decoding_message_size(MAX_MESSAGE_BYTES)
        .max_encoding_message_size(MAX_MESSAGE_BYTES);
    drop(ledger);

    let mut builder = Server::builder().concurrency_limit_per_connection(256).tcp_nodelay(true);
    if let Some(tls) = &config.tls {
        builder = builder.tls_config(ServerTlsConfig::new().identity(Identity::from_pem(&tls.cert_pem, &tls.key_pem)))?;
    }
    let mut failed = thread.failed.clone();
    let stop = async move {
        tokio::select! {
            () = shutdown => tracing::info!("stopping: finishing the requests in flight"),
            _ = failed.wait_for(|f| *f) => tracing::error!("stopping: the store failed"),
        }
    };
    // `tcp_nodelay` above applies to addresses tonic binds itself, not to streams handed to it:
    // without it here, Nagle's algorithm meets the peer's delayed ACK and holds small answers
    // back (tens of ms per request/answer on loopback).
    let incoming = tokio_stream::StreamExt::map(TcpListenerStream::new(listener), |s| s.and_then(|s| s.set_nodelay(true).map(|()| s)));
    let served = builder
        .add_service(health_service)
        .add_service(InterceptedService::new(coordinator, check.clone()))
        .add_service(InterceptedService::new(admin, check))
        .serve_with_incoming_shutdown(incoming, stop)
        .await;
    // The services (and their ledger handles) are gone: the ledger answers what it has and ends.
    ticker.abort();
    let _ = ticker.await;
    if let Some(r) = reporter {
        r.abort();
        let _ = r.await;
    }
    let store_failed = *thread.failed.borrow();
    let ended = tokio::task::spawn_blocking(move || thread.join())
        .await
        .map_err(|e| ServiceError::Unavailable(format!("[tcfuzz internal bug] {e}")))?;
    served?;
    ended?;
    if store_failed {
        return Err(ServeError::StoreFailed);
    }
    Ok(())
}
