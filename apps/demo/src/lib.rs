//! Trying gamehub without players: bots at the tables, through the public gRPC API.
//!
//! - [`run`] (`gamehub demo`): one Gomoku game and one Dou Dizhu deal from matchmaking
//!   to settlement, in phases (grants, the game, the deal and its verified shuffle, the
//!   ledger), printed as they happen ([`print`]);
//! - [`bots`] (`gamehub bots`): bots that keep playing in a room, so a lone player
//!   always finds a game.
//!
//! The bots play with `gamehub-drive` (the strategies are in `gamehub-bots`), print with
//! `gamehub-render` and check the shuffle with the rules crate's verifier.
#![forbid(unsafe_code)]

pub mod bots;
mod demo;
pub mod print;

pub use demo::{DemoOptions, DemoReport, run};
