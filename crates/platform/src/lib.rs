//! The shared runtime of gamehub's services. Each service crate is a thin adapter
//! between its `.proto` API and a rule crate; everything they have in common is here:
//!
//! - [`config`]: settings from environment variables, laptop defaults, secrets that never print;
//! - [`clock`]: [`clock::Clock`], the one source of "now" for every deadline a service stores
//!   (the system clock, or a test's own);
//! - [`telemetry`]: `tracing` logs (text or JSON), OpenTelemetry traces over OTLP, W3C
//!   trace context in and out of every call;
//! - [`auth`]: JWT bearer tokens, the typed [`auth::Caller`] the server puts into each
//!   request, and what each role may do;
//! - [`server`]: the gRPC server, one tower layer per module stacked in one place
//!   (observe, authenticate, per-player rate limit), health, reflection, graceful shutdown,
//!   and the metrics scrape endpoint;
//! - [`runner`]: how every service binary runs: `serve` and `health`, telemetry,
//!   configuration, serving until terminated;
//! - [`grpc_web`]: gRPC-Web for browsers in front of every server, with CORS;
//! - [`client`]: channels to other services carrying a service token and the trace;
//! - [`tls`]: TLS on every listener (certificates reloaded when their files change,
//!   optional client certificates) and on calls to `https://` URLs;
//! - [`error`]: [`error::ApiError`], the one mapping from service errors to gRPC statuses;
//! - [`metrics`]: Prometheus metrics, a leaf every module counts into (the scrape
//!   endpoint is the server's: [`server::metrics_endpoint`]);
//! - [`lua`]: Redis Lua scripts as typed boundaries (strict reply readers);
//! - [`notify`]: waking watchers in every replica through Redis pub/sub;
//! - [`tables`]: live tables in Redis: the atomic step, event streams, watchers,
//!   clock deadlines and the settlement outbox;
//! - [`game_api`]: what the game services' handlers do the same way (callers, request
//!   keys, OpenTable's create-once step, watch items decoded);
//! - [`eligibility`]: whether the ledger lets a player play (asked before a next game).
#![forbid(unsafe_code)]

pub mod access;
pub mod auth;
pub mod client;
pub mod clock;
pub mod config;
pub mod eligibility;
pub mod error;
pub mod game_api;
pub mod grpc_web;
pub mod lua;
pub mod metrics;
pub mod notify;
pub mod redis_conn;
pub mod runner;
pub mod server;
pub mod tables;
pub mod telemetry;
pub mod tls;

pub use auth::{Caller, Role};
pub use clock::Clock;
pub use error::ApiError;
pub use redis_conn::{RedisConn, RedisTarget};
