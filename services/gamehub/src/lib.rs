//! gamehub in one binary. The library half, so tests drive the same code as the CLI:
//!
//! - [`serve`]: all four services in one process, each on its own port;
//! - [`api`]: where the services are and gRPC clients holding a bearer token;
//! - [`token`]: development tokens;
//! - [`web`]: the browser client, its configuration and development tokens on
//!   `GAMEHUB_WEB_ADDR`;
//! - [`drive`]: bots playing a table through the public gRPC API (the strategies are
//!   in `gamehub-bots`; legality always comes from the rule crates);
//! - [`render`]: boards and cards as text;
//! - [`demo`]: one Gomoku game and one Dou Dizhu deal from matchmaking to settlement;
//! - [`bots`]: bots that keep playing in a room, so a lone player finds a game;
//! - [`client`]: the terminal client (`play`, `watch`, `wallet`, `record`);
//! - [`loadgen`]: the published load test over the whole path.
#![forbid(unsafe_code)]

pub mod api;
pub mod bots;
pub mod client;
pub mod demo;
pub mod drive;
pub mod loadgen;
pub mod render;
pub mod serve;
pub mod token;
pub mod web;
