//! The gRPC server every gamehub service runs, one tower layer per module, stacked in
//! one place ([`GrpcServer::serve`]):
//!
//! ```text
//! request ─▶ CORS, gRPC-Web → gRPC ─▶ timeout ─▶ global concurrency limit ─▶ observe
//!   ─▶ authenticate ─▶ per-player rate limit ─▶ routes
//! ```
//!
//! - CORS and gRPC-Web: [`crate::grpc_web`], outermost, so a browser's call meets every
//!   layer below exactly as a native call does;
//! - timeout and the concurrency limit: tonic's and tower's own;
//! - [`observe`]: a span per call with the remote trace context, and metrics;
//! - [`authenticate`]: the bearer token verified, a typed `Caller` in the request;
//! - [`rate_limit`]: a token bucket per player;
//! - [`shutdown`]: graceful shutdown: on the signal every service reports NOT_SERVING,
//!   streams are told to end ([`ShutdownListener`]), and in-flight calls get a bounded
//!   grace period before the server stops;
//!
//! Under it all, the transport: plaintext HTTP/2 (and HTTP/1.1 for gRPC-Web), or TLS
//! when `GAMEHUB_TLS_CERT` and `GAMEHUB_TLS_KEY` are set ([`crate::tls`]: certificate
//! reloaded when its files change, client certificates required when
//! `GAMEHUB_TLS_CLIENT_CA` is set); `GAMEHUB_ENV=production` refuses to serve
//! plaintext unless `GAMEHUB_TLS_TERMINATED_BY_PROXY=true`.
//!
//! plus standard gRPC health (`grpc.health.v1.Health`) and reflection on every server,
//! and beside it [`metrics_endpoint`]: the Prometheus scrape endpoint a binary serves
//! on its own address.
//! How a service binary runs the server until it is terminated is [`crate::runner`].

pub mod authenticate;
pub mod metrics_endpoint;
pub mod observe;
pub mod rate_limit;
pub mod shutdown;

use std::future::Future;
use std::net::SocketAddr;
use std::time::Duration;

use tokio::net::TcpListener;
use tonic::server::NamedService;
use tonic::service::Routes;
use tonic_health::ServingStatus;
use tonic_health::server::HealthReporter;
use tower::ServiceBuilder;
use tower::limit::GlobalConcurrencyLimitLayer;

pub use authenticate::{AuthLayer, AuthService};
pub use observe::{ObserveLayer, ObserveService};
pub use rate_limit::{RateLimitLayer, RateLimitService, RateLimiter};
pub use shutdown::{Shutdown, ShutdownListener, termination_signal};

use crate::auth::Keys;
use crate::config::{CommonConfig, Environment, ServerLimits};
use crate::tls::{ServerTls, TlsConfig};

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
    /// What the listener serves: TLS from files, or plaintext.
    tls: TlsConfig,
    /// Production refuses a plaintext listener (see [`TlsConfig::check_listener`]).
    environment: Environment,
}

impl GrpcServer {
    /// A server for the service named `name` (used in logs), configured by `config`.
    /// `shutdown` is the signal its streams and background work listen to.
    pub fn new(name: &str, config: &CommonConfig, shutdown: Shutdown) -> Self {
        crate::metrics::install();
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
            keys: config.keys.clone(),
            routes,
            health,
            service_names: Vec::new(),
            shutdown,
            browser_origins: config.browser_origins.clone(),
            tls: config.tls.clone(),
            environment: config.environment,
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
    /// Fails at once if the TLS files do not load, or if this is a production
    /// configuration without TLS (and without a proxy that terminates it).
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
            tls,
            environment,
        } = self;
        tls.check_listener(environment)?;
        let server_tls = match &tls.server {
            Some(files) => Some(ServerTls::load(files).map_err(|e| {
                e.context(format!(
                    "{name}: cannot serve TLS (GAMEHUB_TLS_CERT, GAMEHUB_TLS_KEY)"
                ))
            })?),
            None => None,
        };
        for service in &service_names {
            health
                .set_service_status(*service, ServingStatus::Serving)
                .await;
        }
        health.set_service_status("", ServingStatus::Serving).await;

        // The stack, outermost first (the timeout is set on the builder below).
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
        let stopped = async {
            let _ = stop_rx.await;
        };
        let router = tonic::transport::Server::builder()
            .timeout(limits.request_timeout)
            .tcp_nodelay(true)
            .accept_http1(true) // gRPC-Web from browsers
            .http2_keepalive_interval(Some(Duration::from_secs(30)))
            .http2_keepalive_timeout(Some(Duration::from_secs(10)))
            .layer(layers)
            .add_routes(routes);
        // `tcp_nodelay` above applies only to listeners tonic binds itself: it is set on
        // the accepted connections too (by `with_nodelay`, and by `ServerTls::incoming`),
        // or small replies wait out Nagle's algorithm against the client's delayed ACK
        // (about 40 ms each).
        let server: std::pin::Pin<
            Box<dyn Future<Output = Result<(), tonic::transport::Error>> + Send>,
        > = match &server_tls {
            None => Box::pin(router.serve_with_incoming_shutdown(
                tonic::transport::server::TcpIncoming::from(listener).with_nodelay(Some(true)),
                stopped,
            )),
            Some(server_tls) => Box::pin(
                router.serve_with_incoming_shutdown(server_tls.incoming(listener), stopped),
            ),
        };
        let scheme = if server_tls.is_some() {
            "tls"
        } else {
            "plaintext"
        };
        tracing::info!(service = %name, %addr, transport = scheme, "serving gRPC");
        let mut server = server;

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
