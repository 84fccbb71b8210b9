//! Calling other gamehub services: a channel with the caller's bearer token and the
//! current trace context on every call.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use opentelemetry::propagation::{Injector, TextMapPropagator};
use opentelemetry_sdk::propagation::TraceContextPropagator;
use tonic::metadata::{MetadataKey, MetadataMap, MetadataValue};
use tonic::service::interceptor::InterceptedService;
use tonic::transport::{Channel, Endpoint};
use tracing_opentelemetry::OpenTelemetrySpanExt;

use crate::auth::{Keys, Role};
use crate::tls::ClientTlsFiles;

/// Where the bearer token of outgoing calls comes from.
#[derive(Clone)]
pub enum TokenSource {
    /// A fixed token (clients holding a player's token).
    Static(String),
    /// Tokens minted from the shared key and renewed before they expire (services).
    Minted {
        /// The signing keys.
        keys: Keys,
        /// The subject, e.g. "gomoku-referee".
        subject: String,
        /// The role, usually [`Role::Service`].
        role: Role,
        /// The current token and when to renew it.
        cache: Arc<Mutex<Option<(String, Instant)>>>,
    },
}

impl std::fmt::Debug for TokenSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Static(_) => f.write_str("TokenSource::Static([redacted])"),
            Self::Minted { subject, role, .. } => {
                write!(f, "TokenSource::Minted({subject}, {role:?})")
            }
        }
    }
}

/// Minted tokens live this long and are renewed at half-life.
const MINTED_TOKEN_TTL: Duration = Duration::from_secs(3600);

impl TokenSource {
    /// A service identity minting its own tokens.
    pub fn service(keys: Keys, subject: &str) -> Self {
        Self::Minted {
            keys,
            subject: subject.to_owned(),
            role: Role::Service,
            cache: Arc::new(Mutex::new(None)),
        }
    }

    /// The token to send now.
    pub fn token(&self) -> Result<String, tonic::Status> {
        match self {
            Self::Static(token) => Ok(token.clone()),
            Self::Minted {
                keys,
                subject,
                role,
                cache,
            } => {
                let mut cache = cache
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner);
                if let Some((token, renew_at)) = cache.as_ref()
                    && Instant::now() < *renew_at
                {
                    return Ok(token.clone());
                }
                let token = keys
                    .mint(subject, *role, MINTED_TOKEN_TTL)
                    .map_err(tonic::Status::from)?;
                *cache = Some((token.clone(), Instant::now() + MINTED_TOKEN_TTL / 2));
                Ok(token)
            }
        }
    }
}

/// Adds `authorization: Bearer …` and `traceparent` to every outgoing call.
#[derive(Clone, Debug)]
pub struct OutgoingInterceptor {
    token: TokenSource,
}

impl OutgoingInterceptor {
    /// An interceptor sending tokens from `token`.
    pub fn new(token: TokenSource) -> Self {
        Self { token }
    }
}

struct MetadataInjector<'a>(&'a mut MetadataMap);

impl Injector for MetadataInjector<'_> {
    fn set(&mut self, key: &str, value: String) {
        if let (Ok(key), Ok(value)) = (
            MetadataKey::from_bytes(key.as_bytes()),
            MetadataValue::try_from(value.as_str()),
        ) {
            self.0.insert(key, value);
        }
    }
}

impl tonic::service::Interceptor for OutgoingInterceptor {
    fn call(
        &mut self,
        mut request: tonic::Request<()>,
    ) -> Result<tonic::Request<()>, tonic::Status> {
        let token = self.token.token()?;
        let value = MetadataValue::try_from(format!("Bearer {token}"))
            .map_err(|_| tonic::Status::internal("token is not valid metadata"))?;
        request.metadata_mut().insert("authorization", value);
        let cx = tracing::Span::current().context();
        TraceContextPropagator::new()
            .inject_context(&cx, &mut MetadataInjector(request.metadata_mut()));
        Ok(request)
    }
}

/// A channel to another service with the interceptor applied; pass it to a generated
/// client's `new`.
pub type ServiceChannel = InterceptedService<Channel, OutgoingInterceptor>;

/// How long a connection to another service may carry nothing before it is checked
/// with an HTTP/2 PING, and how long that PING may take before the connection is given
/// up and the next call connects anew. A call timing out does not close its connection,
/// so after a partition that lost packets silently these bound how long calls keep
/// going into a dead one (`tests/partitions.rs`: with 30 s and hyper's 20 s, no
/// settlement reached the ledger in 20 s after the heal).
const KEEP_ALIVE_INTERVAL: Duration = Duration::from_secs(5);
/// See [`KEEP_ALIVE_INTERVAL`].
const KEEP_ALIVE_TIMEOUT: Duration = Duration::from_secs(5);

/// A lazily connecting channel to `url` (e.g. `http://127.0.0.1:50054`): the first call
/// connects, and a broken connection is re-established on the next call. An
/// `https://` URL is called over TLS with this process's client settings
/// ([`ClientTlsFiles::process`]: `GAMEHUB_TLS_CA`, `GAMEHUB_TLS_CLIENT_CERT`,
/// `GAMEHUB_TLS_CLIENT_KEY`).
pub fn channel(url: &str, timeout: Duration) -> anyhow::Result<Channel> {
    channel_with_tls(url, timeout, ClientTlsFiles::process())
}

/// [`channel`] with the given TLS client settings (used for `https://` URLs only).
pub fn channel_with_tls(
    url: &str,
    timeout: Duration,
    tls: &ClientTlsFiles,
) -> anyhow::Result<Channel> {
    let mut endpoint = Endpoint::from_shared(url.to_owned())
        .map_err(|e| anyhow::anyhow!("invalid service URL {url:?}: {e}"))?
        .connect_timeout(Duration::from_secs(2))
        .timeout(timeout)
        .tcp_nodelay(true)
        .http2_keep_alive_interval(KEEP_ALIVE_INTERVAL)
        .keep_alive_timeout(KEEP_ALIVE_TIMEOUT)
        .keep_alive_while_idle(true);
    if url.starts_with("https://") {
        endpoint = endpoint
            .tls_config(tls.tonic_config()?)
            .map_err(|e| anyhow::anyhow!("tls settings for {url}: {e}"))?;
    }
    Ok(endpoint.connect_lazy())
}

/// A channel to `url` that authenticates with `token` and carries trace context.
pub fn service_channel(
    url: &str,
    token: TokenSource,
    timeout: Duration,
) -> anyhow::Result<ServiceChannel> {
    Ok(InterceptedService::new(
        channel(url, timeout)?,
        OutgoingInterceptor::new(token),
    ))
}

/// Asks a server's standard health service whether `service` (empty: the whole
/// server) is SERVING. Used by the binaries' `health` subcommand (container
/// healthchecks) and by tests. An `https://` URL is asked over TLS (see [`channel`]).
pub async fn check_health(url: &str, service: &str) -> anyhow::Result<bool> {
    check_health_with_tls(url, service, ClientTlsFiles::process()).await
}

/// [`check_health`] with the given TLS client settings.
pub async fn check_health_with_tls(
    url: &str,
    service: &str,
    tls: &ClientTlsFiles,
) -> anyhow::Result<bool> {
    use tonic_health::pb::HealthCheckRequest;
    use tonic_health::pb::health_check_response::ServingStatus;
    use tonic_health::pb::health_client::HealthClient;
    let mut client = HealthClient::new(channel_with_tls(url, Duration::from_secs(3), tls)?);
    let response = client
        .check(HealthCheckRequest {
            service: service.to_owned(),
        })
        .await?
        .into_inner();
    Ok(response.status == ServingStatus::Serving as i32)
}
