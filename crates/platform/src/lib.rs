//! The shared runtime of gamehub's services. Each service crate is a thin adapter
//! between its `.proto` API and a rule crate; everything they have in common is here:
//!
//! - [`config`]: settings from environment variables, laptop defaults, secrets that never print;
//! - [`telemetry`]: `tracing` logs (text or JSON), OpenTelemetry traces over OTLP, W3C
//!   trace context in and out of every call;
//! - [`auth`]: JWT bearer tokens, the [`auth::AuthLayer`] that puts a typed
//!   [`auth::Caller`] into each request, and what each role may do;
//! - [`server`]: the gRPC server with its tower layers in one place, health, reflection,
//!   graceful shutdown, per-player rate limits;
//! - [`client`]: channels to other services carrying a service token and the trace;
//! - [`error`]: [`error::ApiError`], the one mapping from service errors to gRPC statuses;
//! - [`metrics`]: Prometheus metrics and their scrape endpoint;
//! - [`lua`]: Redis Lua scripts as typed boundaries (strict reply readers);
//! - [`notify`]: waking watchers in every replica through Redis pub/sub;
//! - [`tables`]: live tables in Redis: the atomic step, event streams, watchers,
//!   clock deadlines and the settlement outbox;
//! - [`baseline`]: what the load generators measure beside their own figures:
//!   `redis-benchmark` EVAL/s, `pgbench` TPC-B tps, latency quantiles.
#![forbid(unsafe_code)]

pub mod auth;
pub mod baseline;
pub mod client;
pub mod config;
pub mod eligibility;
pub mod error;
pub mod lua;
pub mod metrics;
pub mod notify;
pub mod server;
pub mod tables;
pub mod telemetry;

pub use auth::{Caller, Role};
pub use error::ApiError;
