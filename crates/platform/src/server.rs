//! The gRPC server every gamehub service runs, with its layers stacked in one place:
//!
//! ```text
//! request ─▶ CORS, gRPC-Web → gRPC ([`crate::grpc_web`]) ─▶ timeout ─▶ global concurrency limit ─▶ observe (span with the remote
//!   trace context, metrics) ─▶ auth (typed Caller) ─▶ per-player rate limit ─▶ routes
//! ```
//!
//! plus standard gRPC health (`grpc.health.v1.Health`) and reflection on every server,
//! and graceful shutdown: on the shutdown signal every service reports NOT_SERVING,
//! streams are told to end ([`ShutdownListener`]), and in-flight calls get a bounded
//! grace period before the server stops.

use std::collections::HashMap;
use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use tokio::net::TcpListener;
use tokio::sync::watch;
use tonic::server::NamedService;
use tonic::service::Routes;
use tonic_health::ServingStatus;
use tonic_health::server::HealthReporter;
use tower::ServiceBuilder;
use tower::limit::GlobalConcurrencyLimitLayer;
use tracing::Instrument;

use crate::auth::{AuthLayer, Caller, Keys, Role};
use crate::config::{CommonConfig, ServerLimits};
use crate::error::ApiError;
use crate::metrics::metrics;
use crate::telemetry;

/// Tells long-running work (streams, sweepers, settlers) that the process is stopping.
#[derive(Debug, Clone)]
pub struct Shutdown {
    tx: Arc<watch::Sender<bool>>,
}

impl Default for Shutdown {
    fn default() -> Self {
        Self::new()
    }
}

impl Shutdown {
    /// A fresh, untriggered signal.
    pub fn new() -> Self {
        let (tx, _) = watch::channel(false);
        Self { tx: Arc::new(tx) }
    }

    /// Triggers it; every listener wakes.
    pub fn trigger(&self) {
        self.tx.send_replace(true);
    }

    /// Whether it was triggered.
    pub fn is_triggered(&self) -> bool {
        *self.tx.borrow()
    }

    /// A listener to await.
    pub fn listener(&self) -> ShutdownListener {
        ShutdownListener {
            rx: self.tx.subscribe(),
        }
    }
}

/// Awaits a [`Shutdown`].
#[derive(Debug, Clone)]
pub struct ShutdownListener {
    rx: watch::Receiver<bool>,
}

impl ShutdownListener {
    /// Resolves once shutdown is triggered (at once if it already was).
    pub async fn wait(&mut self) {
        let _ = self.rx.wait_for(|triggered| *triggered).await;
    }

    /// Whether shutdown was triggered.
    pub fn is_triggered(&self) -> bool {
        *self.rx.borrow()
    }
}

/// Resolves on SIGTERM or Ctrl-C.
pub async fn termination_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {},
        () = term => {},
    }
    tracing::info!("termination signal received");
}

/// A gRPC server under construction: add services, then [`GrpcServer::serve`].
pub struct GrpcServer {
    name: String,
    limits: ServerLimits,
    keys: Keys,
    routes: Routes,
    health: HealthReporter,
    service_names: Vec<&'static str>,
    shutdown: Shutdown,
    browser_origins: crate::grpc_web::AllowedOrigins,
}

impl GrpcServer {
    /// A server for the service named `name` (used in logs), configured by `config`.
    /// `shutdown` is the signal its streams and background work listen to.
    pub fn new(name: &str, config: &CommonConfig, shutdown: Shutdown) -> Self {
        let (health, health_service) = tonic_health::server::health_reporter();
        // Reflection in both protocol versions: v1, and v1alpha that many tools
        // (grpcurl releases, grpcio-reflection) still speak.
        let reflection = || {
            tonic_reflection::server::Builder::configure()
                .register_encoded_file_descriptor_set(gamehub_proto::FILE_DESCRIPTOR_SET)
                .register_encoded_file_descriptor_set(tonic_health::pb::FILE_DESCRIPTOR_SET)
        };
        let mut routes = Routes::new(health_service);
        match (reflection().build_v1(), reflection().build_v1alpha()) {
            (Ok(v1), Ok(v1alpha)) => routes = routes.add_service(v1).add_service(v1alpha),
            (Err(e), _) | (_, Err(e)) => tracing::warn!(error = %e, "reflection unavailable"),
        }
        Self {
            name: name.to_owned(),
            limits: config.limits.clone(),
            keys: Keys::new(&config.jwt_secret),
            routes,
            health,
            service_names: Vec::new(),
            shutdown,
            browser_origins: config.browser_origins.clone(),
        }
    }

    /// The limits in force (services use `max_message_bytes` on their generated servers).
    pub fn limits(&self) -> &ServerLimits {
        &self.limits
    }

    /// Adds a generated tonic service. It reports SERVING once the server runs.
    pub fn add_service<S>(mut self, service: S) -> Self
    where
        S: tower_service::Service<
                http::Request<tonic::body::Body>,
                Response = http::Response<tonic::body::Body>,
                Error = std::convert::Infallible,
            > + NamedService
            + Clone
            + Send
            + Sync
            + 'static,
        S::Future: Send + 'static,
    {
        self.service_names.push(S::NAME);
        self.routes = self.routes.add_service(service);
        self
    }

    /// Serves on `listener` until `signal` resolves, then shuts down gracefully:
    /// NOT_SERVING, the drain delay, then at most the grace period for in-flight calls.
    pub async fn serve(
        self,
        listener: TcpListener,
        signal: impl Future<Output = ()> + Send + 'static,
    ) -> anyhow::Result<()> {
        let addr = listener.local_addr()?;
        let Self {
            name,
            limits,
            keys,
            routes,
            health,
            service_names,
            shutdown,
            browser_origins,
        } = self;
        for service in &service_names {
            health
                .set_service_status(*service, ServingStatus::Serving)
                .await;
        }
        health.set_service_status("", ServingStatus::Serving).await;

        let layers = ServiceBuilder::new()
            .layer(crate::grpc_web::browser_layer(&browser_origins))
            .layer(GlobalConcurrencyLimitLayer::new(limits.concurrency_limit))
            .layer(ObserveLayer)
            .layer(AuthLayer::new(keys))
            .layer(RateLimitLayer::new(
                limits.player_rate_per_second,
                limits.player_rate_burst,
            ))
            .into_inner();

        let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
        let server = tonic::transport::Server::builder()
            .timeout(limits.request_timeout)
            .tcp_nodelay(true)
            .accept_http1(true) // gRPC-Web from browsers
            .http2_keepalive_interval(Some(Duration::from_secs(30)))
            .http2_keepalive_timeout(Some(Duration::from_secs(10)))
            .layer(layers)
            .add_routes(routes)
            // `tcp_nodelay` above applies only to listeners tonic binds itself: set it
            // on the accepted connections too, or small replies wait out Nagle's
            // algorithm against the client's delayed ACK (about 40 ms each).
            .serve_with_incoming_shutdown(
                tonic::transport::server::TcpIncoming::from(listener).with_nodelay(Some(true)),
                async {
                    let _ = stop_rx.await;
                },
            );
        tracing::info!(service = %name, %addr, "serving gRPC");
        tokio::pin!(server);

        let mut shutdown_listener = shutdown.listener();
        tokio::select! {
            result = &mut server => return result.map_err(Into::into),
            () = signal => shutdown.trigger(),
            () = shutdown_listener.wait() => {},
        }

        tracing::info!(service = %name, "shutting down: reporting NOT_SERVING");
        for service in &service_names {
            health
                .set_service_status(*service, ServingStatus::NotServing)
                .await;
        }
        health
            .set_service_status("", ServingStatus::NotServing)
            .await;
        // Keep serving (health checks included) while load balancers notice.
        tokio::select! {
            result = &mut server => return result.map_err(Into::into),
            () = tokio::time::sleep(limits.shutdown_drain_delay) => {},
        }
        let _ = stop_tx.send(());
        match tokio::time::timeout(limits.shutdown_grace, &mut server).await {
            Ok(result) => {
                tracing::info!(service = %name, "stopped");
                result.map_err(Into::into)
            }
            Err(_) => {
                tracing::warn!(service = %name, grace = ?limits.shutdown_grace, "grace period over; dropping remaining connections");
                Ok(())
            }
        }
    }

    /// Binds `addr` (port 0 picks a free one) and serves in a background task.
    /// Returns the bound address and the task.
    pub async fn spawn(
        self,
        addr: SocketAddr,
    ) -> anyhow::Result<(SocketAddr, tokio::task::JoinHandle<anyhow::Result<()>>)> {
        let listener = TcpListener::bind(addr).await?;
        let bound = listener.local_addr()?;
        let mut listener_shutdown = self.shutdown.listener();
        let task = tokio::spawn(self.serve(listener, async move {
            listener_shutdown.wait().await;
        }));
        Ok((bound, task))
    }
}

/// Opens a span per call (child of the caller's trace when the request carries a
/// `traceparent`) and records the call's status and latency.
#[derive(Clone, Copy, Debug, Default)]
pub struct ObserveLayer;

impl<S> tower_layer::Layer<S> for ObserveLayer {
    type Service = ObserveService<S>;
    fn layer(&self, inner: S) -> Self::Service {
        ObserveService { inner }
    }
}

/// The service [`ObserveLayer`] makes.
#[derive(Clone, Debug)]
pub struct ObserveService<S> {
    inner: S,
}

type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send>>;

impl<S, B, ResBody> tower_service::Service<http::Request<B>> for ObserveService<S>
where
    S: tower_service::Service<http::Request<B>, Response = http::Response<ResBody>>,
    S::Future: Send + 'static,
    S::Error: Send + 'static,
    ResBody: Send + 'static,
{
    type Response = S::Response;
    type Error = S::Error;
    type Future = BoxFuture<Result<S::Response, S::Error>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, req: http::Request<B>) -> Self::Future {
        use tracing_opentelemetry::OpenTelemetrySpanExt;
        let rpc = req.uri().path().to_owned();
        let parent = telemetry::extract(req.headers());
        let span = tracing::info_span!(
            "grpc",
            otel.name = %rpc,
            otel.kind = "server",
            rpc = %rpc,
            code = tracing::field::Empty,
            caller = tracing::field::Empty,
            trace_id = tracing::field::Empty,
        );
        let _ = span.set_parent(parent);
        span.record("trace_id", telemetry::trace_id_of(&span).as_str());
        let started = Instant::now();
        let future = {
            let _entered = span.enter();
            self.inner.call(req)
        };
        Box::pin(
            async move {
                let result = future.await;
                let code = match &result {
                    Ok(response) => grpc_code_name(response.headers()),
                    Err(_) => "UNKNOWN",
                };
                tracing::Span::current().record("code", code);
                let m = metrics();
                m.rpc_requests
                    .with_label_values(&[rpc.as_str(), code])
                    .inc();
                m.rpc_duration
                    .with_label_values(&[rpc.as_str()])
                    .observe(started.elapsed().as_secs_f64());
                if code != "OK" {
                    tracing::debug!(rpc, code, "call refused");
                }
                result
            }
            .instrument(span),
        )
    }
}

/// The gRPC status a response carries in its headers (errors are sent trailers-only);
/// a response without one is `OK` so far.
fn grpc_code_name(headers: &http::HeaderMap) -> &'static str {
    let code = headers
        .get("grpc-status")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<i32>().ok())
        .unwrap_or(0);
    match tonic::Code::from_i32(code) {
        tonic::Code::Ok => "OK",
        tonic::Code::Cancelled => "CANCELLED",
        tonic::Code::Unknown => "UNKNOWN",
        tonic::Code::InvalidArgument => "INVALID_ARGUMENT",
        tonic::Code::DeadlineExceeded => "DEADLINE_EXCEEDED",
        tonic::Code::NotFound => "NOT_FOUND",
        tonic::Code::AlreadyExists => "ALREADY_EXISTS",
        tonic::Code::PermissionDenied => "PERMISSION_DENIED",
        tonic::Code::ResourceExhausted => "RESOURCE_EXHAUSTED",
        tonic::Code::FailedPrecondition => "FAILED_PRECONDITION",
        tonic::Code::Aborted => "ABORTED",
        tonic::Code::OutOfRange => "OUT_OF_RANGE",
        tonic::Code::Unimplemented => "UNIMPLEMENTED",
        tonic::Code::Internal => "INTERNAL",
        tonic::Code::Unavailable => "UNAVAILABLE",
        tonic::Code::DataLoss => "DATA_LOSS",
        tonic::Code::Unauthenticated => "UNAUTHENTICATED",
    }
}

/// A token bucket per player: `rate` calls per second with bursts of `burst`.
/// Only player tokens are limited; services and operators are trusted.
#[derive(Clone, Debug)]
pub struct RateLimitLayer {
    limiter: Option<Arc<RateLimiter>>,
}

impl RateLimitLayer {
    /// `rate` 0 turns the limit off.
    pub fn new(rate: u32, burst: u32) -> Self {
        Self {
            limiter: (rate > 0).then(|| Arc::new(RateLimiter::new(rate, burst.max(1)))),
        }
    }
}

impl<S> tower_layer::Layer<S> for RateLimitLayer {
    type Service = RateLimitService<S>;
    fn layer(&self, inner: S) -> Self::Service {
        RateLimitService {
            inner,
            limiter: self.limiter.clone(),
        }
    }
}

/// The service [`RateLimitLayer`] makes.
#[derive(Clone, Debug)]
pub struct RateLimitService<S> {
    inner: S,
    limiter: Option<Arc<RateLimiter>>,
}

impl<S, B, ResBody> tower_service::Service<http::Request<B>> for RateLimitService<S>
where
    S: tower_service::Service<http::Request<B>, Response = http::Response<ResBody>>,
    S::Future: Send + 'static,
    ResBody: Default + Send + 'static,
{
    type Response = S::Response;
    type Error = S::Error;
    type Future = futures::future::Either<
        S::Future,
        futures::future::Ready<Result<http::Response<ResBody>, S::Error>>,
    >;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, req: http::Request<B>) -> Self::Future {
        if let (Some(limiter), Some(caller)) = (&self.limiter, req.extensions().get::<Caller>())
            && caller.role == Role::Player
            && let Err(retry_after) = limiter.check(&caller.subject, Instant::now())
        {
            metrics().rate_limited.inc();
            let status: tonic::Status = ApiError::ResourceExhausted {
                message: format!(
                    "too many requests from player {}: at most {} per second; retry after {} ms",
                    caller.subject,
                    limiter.rate,
                    retry_after.as_millis().max(1)
                ),
                retry_after: Some(retry_after),
            }
            .into();
            return futures::future::Either::Right(futures::future::ready(Ok(status.into_http())));
        }
        futures::future::Either::Left(self.inner.call(req))
    }
}

/// Per-player token buckets, bounded in number.
#[derive(Debug)]
pub struct RateLimiter {
    rate: u32,
    burst: u32,
    buckets: Mutex<HashMap<String, Bucket>>,
}

#[derive(Debug, Clone, Copy)]
struct Bucket {
    tokens: f64,
    updated: Instant,
}

/// The most players tracked at once; past it, full buckets are forgotten.
const MAX_TRACKED_PLAYERS: usize = 100_000;

impl RateLimiter {
    /// A limiter of `rate` per second with bursts of `burst`.
    pub fn new(rate: u32, burst: u32) -> Self {
        Self {
            rate,
            burst,
            buckets: Mutex::new(HashMap::new()),
        }
    }

    /// Takes a token for `key`, or says how long until one is available.
    pub fn check(&self, key: &str, now: Instant) -> Result<(), Duration> {
        let rate = f64::from(self.rate);
        let burst = f64::from(self.burst);
        let mut buckets = self
            .buckets
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if buckets.len() >= MAX_TRACKED_PLAYERS && !buckets.contains_key(key) {
            buckets.retain(|_, b| {
                let refilled =
                    b.tokens + now.saturating_duration_since(b.updated).as_secs_f64() * rate;
                refilled < burst
            });
        }
        let bucket = buckets.entry(key.to_owned()).or_insert(Bucket {
            tokens: burst,
            updated: now,
        });
        let elapsed = now.saturating_duration_since(bucket.updated).as_secs_f64();
        bucket.tokens = (bucket.tokens + elapsed * rate).min(burst);
        bucket.updated = now;
        if bucket.tokens >= 1.0 {
            bucket.tokens -= 1.0;
            Ok(())
        } else {
            Err(Duration::from_secs_f64((1.0 - bucket.tokens) / rate))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bucket_allows_its_burst_then_refills_at_the_rate() {
        let limiter = RateLimiter::new(10, 3);
        let t0 = Instant::now();
        for _ in 0..3 {
            assert!(limiter.check("p", t0).is_ok());
        }
        let wait = limiter.check("p", t0).unwrap_err();
        assert!(wait <= Duration::from_millis(100));
        assert!(
            limiter.check("q", t0).is_ok(),
            "players are limited separately"
        );
        assert!(limiter.check("p", t0 + Duration::from_millis(100)).is_ok());
    }

    #[tokio::test]
    async fn shutdown_wakes_every_listener() {
        let shutdown = Shutdown::new();
        let mut a = shutdown.listener();
        let mut b = shutdown.listener();
        shutdown.trigger();
        a.wait().await;
        b.wait().await;
        assert!(shutdown.is_triggered());
    }
}

/// A service started in the background: where it listens and the task serving it.
#[derive(Debug)]
pub struct Started {
    /// The service's name, e.g. "ledger".
    pub name: &'static str,
    /// The bound address.
    pub addr: SocketAddr,
    /// Resolves when the service stopped (after shutdown), with its result.
    pub task: tokio::task::JoinHandle<anyhow::Result<()>>,
}

/// The `serve` subcommand of every service binary: telemetry, metrics, `start`, then
/// run until SIGTERM/Ctrl-C (graceful shutdown) or until the service stops by itself.
pub async fn serve_until_terminated<F, Fut>(
    service: &str,
    config: &CommonConfig,
    start: F,
) -> anyhow::Result<()>
where
    F: FnOnce(Shutdown) -> Fut,
    Fut: Future<Output = anyhow::Result<Started>>,
{
    let _telemetry = telemetry::init(service, config)?;
    let shutdown = Shutdown::new();
    crate::metrics::serve_if_configured(config, &shutdown).await?;
    let mut started = start(shutdown.clone()).await?;
    tokio::select! {
        () = termination_signal() => shutdown.trigger(),
        result = &mut started.task => return result?,
    }
    started.task.await?
}

/// The `health` subcommand of every service binary (container healthchecks): SUCCESS
/// iff the server at `addr` — by default this configuration's port on 127.0.0.1 —
/// answers SERVING on the standard gRPC health protocol.
pub async fn health_exit_code(addr: Option<String>, listen: SocketAddr) -> std::process::ExitCode {
    let url = addr.unwrap_or_else(|| format!("http://127.0.0.1:{}", listen.port()));
    match crate::client::check_health(&url, "").await {
        Ok(true) => std::process::ExitCode::SUCCESS,
        _ => std::process::ExitCode::FAILURE,
    }
}
