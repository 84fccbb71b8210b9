//! The observe layer: a span per call, a child of the caller's trace when the request
//! carries a `traceparent`, and the call's status and latency in the metrics.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Instant;

use tracing::Instrument;

use crate::metrics::metrics;
use crate::telemetry;

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
