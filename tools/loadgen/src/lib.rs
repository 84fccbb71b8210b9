//! gamehub's load generators and benchmarks: what measures the platform, apart from it.
//! No service links this crate; the `gamehub-loadgen` binary runs it, one subcommand per
//! target:
//!
//! - [`platform`]: the whole path (matchmaking → tables → settlement) against running
//!   services, or `--spawn`ed ones whose CPU and memory it reports;
//! - [`referee`]: Gomoku tables against one referee;
//! - [`dealer`]: Dou Dizhu tables against one dealer (or one in this process);
//! - [`ledger`]: settlements against one ledger (or one in this process);
//! - [`matcher`]: the matcher alone on the real Redis, with instant peers;
//! - [`baseline`]: what the machine itself does, printed beside every figure:
//!   `redis-benchmark` EVAL/s, `pgbench` TPC-B tps (and latency quantiles);
//! - [`redis_stats`]: which Redis commands a load ran, per move (`INFO commandstats`).
//!
//! Every load plays through [`players`], the random players over the bots and rule
//! crates. The fakes and scratch databases are the tests' own (`gamehub-testkit`).
#![forbid(unsafe_code)]

pub mod baseline;
pub mod dealer;
pub mod followers;
pub mod ledger;
pub mod matcher;
pub mod platform;
pub mod players;
pub mod redis_stats;
pub mod referee;
