//! Connecting to a coordinator: the channel (TLS when the URL is `https://`), the token on every
//! call, the message size limits. Shared by workers and admin clients (the CLI).

use std::time::Duration;

use tonic::metadata::MetadataValue;
use tonic::service::interceptor::InterceptedService;
use tonic::transport::{Certificate, Channel, ClientTlsConfig, Endpoint};
use tonic::{Request, Status};

use crate::v1::{admin_client::AdminClient, coordinator_client::CoordinatorClient};
use crate::{MAX_MESSAGE_BYTES, TOKEN_METADATA_KEY};

/// Where a coordinator is and how to talk to it.
#[derive(Clone, Debug, Default)]
pub struct Target {
    /// `http://HOST:PORT`, or `https://HOST:PORT` for TLS.
    pub url: String,
    /// The shared token, sent on every call.
    pub token: Option<String>,
    /// PEM certificate(s) of the authority that signed the coordinator's certificate (for
    /// `https://`; required there, since no system roots are loaded).
    pub tls_ca: Option<Vec<u8>>,
    /// The name the coordinator's certificate is for, if not the URL's host.
    pub tls_domain: Option<String>,
    /// A call that gets no answer in this long fails (and the caller retries).
    pub timeout: Option<Duration>,
}

/// A connection could not be set up (the URL, the token or TLS settings are wrong).
#[derive(Debug, thiserror::Error)]
pub enum ConnectError {
    #[error("`{url}` is not a coordinator URL ({reason}); give http://HOST:PORT or https://HOST:PORT")]
    Url { url: String, reason: String },
    #[error("the token contains characters not allowed in gRPC metadata (give printable ASCII)")]
    Token,
    #[error("`{0}` is https:// but no CA certificate was given (--tls-ca FILE)")]
    NoCa(String),
    #[error("TLS settings: {0}")]
    Tls(tonic::transport::Error),
}

/// Adds the token to every request.
#[derive(Clone)]
pub struct WithToken(Option<MetadataValue<tonic::metadata::Ascii>>);

impl tonic::service::Interceptor for WithToken {
    fn call(&mut self, mut request: Request<()>) -> Result<Request<()>, Status> {
        if let Some(v) = &self.0 {
            request.metadata_mut().insert(TOKEN_METADATA_KEY, v.clone());
        }
        Ok(request)
    }
}

pub type Coordinator = CoordinatorClient<InterceptedService<Channel, WithToken>>;
pub type Admin = AdminClient<InterceptedService<Channel, WithToken>>;

impl Target {
    /// A channel that connects on first use and reconnects by itself after a failure (calls
    /// fail with UNAVAILABLE meanwhile).
    pub fn channel(&self) -> Result<(Channel, WithToken), ConnectError> {
        let bad = |reason: String| ConnectError::Url { url: self.url.clone(), reason };
        let mut endpoint = Endpoint::from_shared(self.url.clone()).map_err(|e| bad(e.to_string()))?;
        match self.url.split_once("://").map(|(scheme, _)| scheme) {
            Some("http") => {}
            Some("https") => {
                let ca = self.tls_ca.as_ref().ok_or_else(|| ConnectError::NoCa(self.url.clone()))?;
                let mut tls = ClientTlsConfig::new().ca_certificate(Certificate::from_pem(ca));
                if let Some(domain) = &self.tls_domain {
                    tls = tls.domain_name(domain.clone());
                }
                endpoint = endpoint.tls_config(tls).map_err(ConnectError::Tls)?;
            }
            _ => return Err(bad("no http:// or https:// scheme".into())),
        }
        endpoint = endpoint
            .connect_timeout(Duration::from_secs(5))
            .tcp_nodelay(true)
            // Finds a dead connection (a coordinator gone, a cut network) without waiting for TCP.
            .http2_keep_alive_interval(Duration::from_secs(5))
            .keep_alive_timeout(Duration::from_secs(5))
            .keep_alive_while_idle(true);
        if let Some(t) = self.timeout {
            endpoint = endpoint.timeout(t);
        }
        let token = match &self.token {
            Some(t) => Some(format!("Bearer {t}").parse().map_err(|_| ConnectError::Token)?),
            None => None,
        };
        Ok((endpoint.connect_lazy(), WithToken(token)))
    }

    pub fn coordinator(&self) -> Result<Coordinator, ConnectError> {
        let (channel, token) = self.channel()?;
        Ok(CoordinatorClient::with_interceptor(channel, token)
            .max_decoding_message_size(MAX_MESSAGE_BYTES)
            .max_encoding_message_size(MAX_MESSAGE_BYTES))
    }

    pub fn admin(&self) -> Result<Admin, ConnectError> {
        let (channel, token) = self.channel()?;
        Ok(AdminClient::with_interceptor(channel, token)
            .max_decoding_message_size(MAX_MESSAGE_BYTES)
            .max_encoding_message_size(MAX_MESSAGE_BYTES))
    }
}
