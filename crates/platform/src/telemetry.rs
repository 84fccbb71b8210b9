//! Logs and traces.
//!
//! [`init`] installs a `tracing` subscriber: text or JSON lines filtered by `RUST_LOG`,
//! and an OpenTelemetry layer so every span has a W3C trace id. Spans are exported
//! over OTLP/gRPC when `OTEL_EXPORTER_OTLP_ENDPOINT` is set; without it ids are still
//! made and carried, so logs of one request share a trace id across services.
//!
//! Trace context crosses process boundaries in the `traceparent` metadata: the server
//! layer in [`crate::server`] extracts it ([`extract`]), the client interceptor in
//! [`crate::client`] injects it ([`inject`]), and the settlement outbox stores it
//! ([`current_traceparent`]) so a settlement delivered later joins the game's trace.

use std::collections::HashMap;

use opentelemetry::propagation::{Extractor, Injector, TextMapPropagator};
use opentelemetry::trace::{TraceContextExt, TracerProvider as _};
use opentelemetry_otlp::WithExportConfig;
use opentelemetry_sdk::propagation::TraceContextPropagator;
use opentelemetry_sdk::trace::SdkTracerProvider;
use tracing_opentelemetry::OpenTelemetrySpanExt;
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;
use tracing_subscriber::{EnvFilter, Layer};

use crate::config::{CommonConfig, LogFormat};

/// Keeps the trace exporter alive; flushes pending spans when dropped.
#[derive(Debug)]
pub struct Telemetry {
    provider: Option<SdkTracerProvider>,
}

impl Telemetry {
    /// Flushes spans not yet exported (also done on drop).
    pub fn flush(&self) {
        if let Some(provider) = &self.provider {
            let _ = provider.force_flush();
        }
    }
}

impl Drop for Telemetry {
    fn drop(&mut self) {
        if let Some(provider) = self.provider.take() {
            let _ = provider.force_flush();
            let _ = provider.shutdown();
        }
    }
}

/// The default log filter when `RUST_LOG` is unset.
const DEFAULT_FILTER: &str = "info,h2=warn,hyper=warn,tower=warn,sqlx=warn,opentelemetry=warn";

/// Installs logging and tracing for the process. Call once, first thing in `main`;
/// a second call (tests starting several services) leaves the first in place.
pub fn init(service_name: &str, config: &CommonConfig) -> anyhow::Result<Telemetry> {
    opentelemetry::global::set_text_map_propagator(TraceContextPropagator::new());

    let mut builder = SdkTracerProvider::builder().with_resource(
        opentelemetry_sdk::Resource::builder()
            .with_service_name(service_name.to_owned())
            .build(),
    );
    if let Some(endpoint) = &config.otlp_endpoint {
        let exporter = opentelemetry_otlp::SpanExporter::builder()
            .with_tonic()
            .with_endpoint(endpoint.clone())
            .build()?;
        builder = builder.with_batch_exporter(exporter);
    }
    let provider = builder.build();
    let tracer = provider.tracer("gamehub");
    let otel_layer = tracing_opentelemetry::layer().with_tracer(tracer);

    let filter =
        EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(DEFAULT_FILTER));
    let fmt_layer = match config.log_format {
        LogFormat::Text => tracing_subscriber::fmt::layer().with_target(false).boxed(),
        LogFormat::Json => tracing_subscriber::fmt::layer()
            .json()
            .with_current_span(true)
            .with_span_list(false)
            .flatten_event(true)
            .boxed(),
    };
    let installed = tracing_subscriber::registry()
        .with(filter)
        .with(fmt_layer)
        .with(otel_layer)
        .try_init()
        .is_ok();
    if installed {
        opentelemetry::global::set_tracer_provider(provider.clone());
        Ok(Telemetry {
            provider: Some(provider),
        })
    } else {
        // Another service in this process installed telemetry first; keep it.
        let _ = provider.shutdown();
        Ok(Telemetry { provider: None })
    }
}

struct HeaderExtractor<'a>(&'a http::HeaderMap);

impl Extractor for HeaderExtractor<'_> {
    fn get(&self, key: &str) -> Option<&str> {
        self.0.get(key).and_then(|v| v.to_str().ok())
    }
    fn keys(&self) -> Vec<&str> {
        self.0.keys().map(|k| k.as_str()).collect()
    }
}

struct HeaderInjector<'a>(&'a mut http::HeaderMap);

impl Injector for HeaderInjector<'_> {
    fn set(&mut self, key: &str, value: String) {
        if let (Ok(name), Ok(value)) = (
            http::header::HeaderName::from_bytes(key.as_bytes()),
            http::header::HeaderValue::from_str(&value),
        ) {
            self.0.insert(name, value);
        }
    }
}

/// The remote trace context carried by request headers (empty when absent).
pub fn extract(headers: &http::HeaderMap) -> opentelemetry::Context {
    TraceContextPropagator::new().extract(&HeaderExtractor(headers))
}

/// Writes the current span's trace context into outgoing headers.
pub fn inject(headers: &mut http::HeaderMap) {
    let cx = tracing::Span::current().context();
    TraceContextPropagator::new().inject_context(&cx, &mut HeaderInjector(headers));
}

/// The current span's context as a W3C `traceparent` value, or empty when there is
/// no valid trace (stored with work that continues later, such as settlements).
pub fn current_traceparent() -> String {
    let cx = tracing::Span::current().context();
    let mut carrier = HashMap::new();
    TraceContextPropagator::new().inject_context(&cx, &mut carrier);
    carrier.remove("traceparent").unwrap_or_default()
}

/// Makes `span` a child of the trace named by a stored `traceparent` value.
pub fn set_parent_from_traceparent(span: &tracing::Span, traceparent: &str) {
    if traceparent.is_empty() {
        return;
    }
    let carrier: HashMap<String, String> =
        HashMap::from([("traceparent".to_owned(), traceparent.to_owned())]);
    let cx = TraceContextPropagator::new().extract(&carrier);
    let _ = span.set_parent(cx);
}

/// The trace id of a span as 32 hex digits, or empty when it has none.
pub fn trace_id_of(span: &tracing::Span) -> String {
    let cx = span.context();
    let span_ref = cx.span();
    let sc = span_ref.span_context();
    if sc.is_valid() {
        sc.trace_id().to_string()
    } else {
        String::new()
    }
}
