//! What gamehub's tests share, in one place, naming no service: this crate depends on no
//! service crate, so every service may use it to test itself without an arrow pointing
//! back up from the shared crates to the services. Tests and tools link it (services as
//! a dev-dependency, or through their `testing` feature); no binary that ships does. The
//! load generator (`tools/loadgen`) uses it too, as it runs against the same fakes and
//! scratch databases.
//!
//! - [`black_hole`]: a TCP proxy a test cuts silently (packets dropped, sockets held
//!   open) and heals, to partition one link between two services;
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
//! - [`settling`]: asking for the next game again while the last one is settling;
//! - `grpc_web` (feature `web`): calls as a browser page makes them (gRPC-Web over
//!   HTTP/1.1, CORS).
//!
//! Elsewhere, above: each service's own spawner is its `testing` module behind its
//! `testing` feature (`gamehub_ledger::testing::TestLedger`, a real ledger over a scratch
//! database; `gamehub_gomoku_referee::testing`; `gamehub_doudizhu_dealer::testing`;
//! `gamehub_matchmaking::testing`, matchmaking with fakes of its peers), and the whole
//! platform as `gamehub serve` runs it is `gamehub-testkit-services`.
#![forbid(unsafe_code)]
// Test support fails loudly on a broken fixture.
#![allow(clippy::unwrap_used)]

pub mod black_hole;
pub mod clock;
#[cfg(feature = "web")]
pub mod grpc_web;
pub mod pg_cluster;
pub mod postgres;
pub mod redis;
pub mod redis_cluster;
pub mod redis_server;
pub mod resume;
pub mod server;
pub mod settlements;
pub mod settling;
pub mod stub_ledger;
pub mod tokens;
