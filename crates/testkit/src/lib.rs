//! What gamehub's tests share, in one place. A dev-dependency only: no service, nor the
//! `gamehub` binary, links it (`cargo tree -e normal` of each shows none), so nothing
//! here ships. The load generator (`tools/loadgen`) uses the parts without a feature,
//! as it runs against the same fakes and scratch databases.
//!
//! Always there:
//! - [`clock`]: [`clock::ManualClock`], a clock a test advances instead of sleeping,
//!   and [`clock::eventually`], waiting on a condition with a bound;
//! - [`postgres`]: a PostgreSQL database of a test's own ([`postgres::ScratchDatabase`]),
//!   leftovers of killed runs dropped on the next run;
//! - [`pg_cluster`]: PostgreSQL servers of a test's own (a primary, streaming replicas),
//!   for tests that stop, pause or lag a server;
//! - [`redis`]: the Redis the tests use, key prefixes of their own, and removing them;
//! - [`redis_server`]: a `redis-server` of a test's own, to kill, cut back and restart;
//! - [`redis_cluster`]: a six-node Redis Cluster of a test's own, to kill a master of
//!   and watch its replica take over;
//! - [`tokens`]: the development signing key, and channels carrying a token of any role;
//! - [`server`]: a service running in the test's process ([`server::TestServer`]);
//! - [`stub_ledger`]: a ledger that settles every game at once and answers everyone
//!   eligible, with switches for an outage, refused games, slow delivery and caps;
//! - [`settlements`]: random finished games as a game service reports them;
//! - [`resume`]: a watcher that loses its stream over and over and resumes;
//! - [`settling`]: asking for the next game again while the last one is settling.
//!
//! Behind a feature named after the service (each brings a dependency on it):
//! - `ledger`: [`ledger::TestLedger`], a real ledger on a free port over a scratch database;
//! - `referee`: [`referee`], a Gomoku referee on a key prefix of the test's own;
//! - `dealer`: [`dealer`], a Dou Dizhu dealer likewise;
//! - `matchmaking`: [`matchmaking`], matchmaking with in-process fakes of its peers, or
//!   with the real services;
//! - `platform`: [`platform::TestPlatform`], all four services as `gamehub serve` runs them;
//! - `web`: [`grpc_web`], calls as a browser page makes them (gRPC-Web over HTTP/1.1, CORS).
#![forbid(unsafe_code)]
// Test support fails loudly on a broken fixture.
#![allow(clippy::unwrap_used)]

pub mod clock;
#[cfg(feature = "dealer")]
pub mod dealer;
#[cfg(feature = "web")]
pub mod grpc_web;
#[cfg(feature = "ledger")]
pub mod ledger;
#[cfg(feature = "matchmaking")]
pub mod matchmaking;
pub mod pg_cluster;
#[cfg(feature = "platform")]
pub mod platform;
pub mod postgres;
pub mod redis;
pub mod redis_cluster;
pub mod redis_server;
#[cfg(feature = "referee")]
pub mod referee;
pub mod resume;
pub mod server;
pub mod settlements;
pub mod settling;
pub mod stub_ledger;
pub mod tokens;
