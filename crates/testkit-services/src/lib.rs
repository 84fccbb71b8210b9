//! Test support that starts the services themselves, above them in the graph of crates:
//! only test crates and tools use it, as a dev-dependency (the workspace's `tests/`,
//! `tools/loadgen`, and the all-in-one `gamehub` app's own tests). No service depends
//! on it, not even to test itself, so no arrow points from the services back up here.
//!
//! - [`platform`]: [`platform::TestPlatform`], all five services as `gamehub serve` runs
//!   them, over a scratch database and a Redis key prefix of the test's own.
//!
//! The generic parts (scratch databases, Redis helpers, clocks, tokens, fakes of a peer)
//! are `gamehub-testkit`'s, which depends on no service; each service's own spawner is
//! that service's `testing` module, behind its `testing` feature
//! (`gamehub_ledger::testing::TestLedger`, `gamehub_gomoku_referee::testing`,
//! `gamehub_doudizhu_dealer::testing`, `gamehub_matchmaking::testing`).
#![forbid(unsafe_code)]
// Test support fails loudly on a broken fixture.
#![allow(clippy::unwrap_used)]

pub mod platform;
