//! The scrape endpoint of [`crate::metrics`]: `GET /metrics` in the Prometheus text
//! format on `GAMEHUB_METRICS_ADDR`, until the server's [`Shutdown`].
//!
//! Apart from the metrics themselves so that they stay a leaf every module may count
//! into, while this endpoint, like the server, depends on the configuration and the
//! shutdown signal.

use std::net::SocketAddr;

use super::Shutdown;
use crate::config::CommonConfig;
use crate::metrics;

/// Serves `GET /metrics` on `addr` until `shutdown` resolves.
pub async fn serve(
    listener: tokio::net::TcpListener,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    use http_body_util::Full;
    use hyper::body::Bytes;
    use hyper::service::service_fn;
    use hyper_util::rt::TokioIo;

    tokio::pin!(shutdown);
    loop {
        let (stream, _) = tokio::select! {
            accepted = listener.accept() => accepted?,
            () = &mut shutdown => return Ok(()),
        };
        tokio::spawn(async move {
            let service = service_fn(|req: hyper::Request<hyper::body::Incoming>| async move {
                let response = if req.uri().path() == "/metrics" {
                    hyper::Response::builder()
                        .header("content-type", "text/plain; version=0.0.4")
                        .body(Full::new(Bytes::from(metrics::render())))
                } else {
                    hyper::Response::builder()
                        .status(404)
                        .body(Full::new(Bytes::from_static(b"see /metrics\n")))
                };
                response.map_err(|e| std::io::Error::other(e.to_string()))
            });
            let _ = hyper::server::conn::http1::Builder::new()
                .serve_connection(TokioIo::new(stream), service)
                .await;
        });
    }
}

/// Binds `addr` and serves metrics in the background; returns the bound address.
pub async fn spawn(
    addr: SocketAddr,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> std::io::Result<SocketAddr> {
    let listener = tokio::net::TcpListener::bind(addr).await?;
    let bound = listener.local_addr()?;
    tokio::spawn(async move {
        if let Err(e) = serve(listener, shutdown).await {
            tracing::warn!(error = %e, "metrics endpoint stopped");
        }
    });
    Ok(bound)
}

/// Serves metrics at `config.metrics_addr` (when set) until `shutdown` triggers — what
/// every binary calls once at start. Returns the bound address, if any.
pub async fn serve_if_configured(
    config: &CommonConfig,
    shutdown: &Shutdown,
) -> std::io::Result<Option<SocketAddr>> {
    match config.metrics_addr {
        None => Ok(None),
        Some(addr) => {
            let mut listener = shutdown.listener();
            let bound = spawn(addr, async move { listener.wait().await }).await?;
            tracing::info!(%bound, "serving metrics at /metrics");
            Ok(Some(bound))
        }
    }
}
