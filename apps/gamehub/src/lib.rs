//! gamehub in one binary. The library half, so tests drive the same code as the CLI.
//!
//! The commands ([`cli`]), each in its module:
//! - `serve` — [`serve`]: all four services in one process, each on its own port;
//! - `demo` — [`demo`]: one Gomoku game and one Dou Dizhu deal from matchmaking to
//!   settlement, played by bots;
//! - `bots` — [`bots`]: bots that keep playing in a room, so a lone player finds a game;
//! - `play`, `watch`, `wallet`, `record` — [`client`]: the terminal client;
//! - `admin` — [`admin`]: the operator's desk (grants, professional dans, player and
//!   table lookups, dead letters), each a thin client of a gRPC API;
//! - `token` — [`token`]: development tokens;
//! - `health` — in [`cli`]: the standard gRPC health check of any service.
//!
//! What they share:
//! - [`api`]: where the services are and gRPC clients holding a bearer token;
//! - [`web`]: the browser client, its configuration and development tokens on
//!   `GAMEHUB_WEB_ADDR`;
//! - [`drive`]: bots playing a table through the public gRPC API (the strategies are
//!   in `gamehub-bots`; legality always comes from the rule crates);
//! - [`render`]: boards and cards as text.
//!
//! The load generators are not here: they are `gamehub-loadgen` (`tools/loadgen`).
#![forbid(unsafe_code)]

pub mod bots;
pub mod cli;
pub mod demo;
pub mod serve;
pub mod web;

/// Where the services are and clients holding a token (for the test kit, which starts
/// the platform in a test).
pub use gamehub_drive::api;
