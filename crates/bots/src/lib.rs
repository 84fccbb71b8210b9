//! Bot strategies for gamehub, as pure functions of what a seat may see. They never
//! judge a rule themselves: legality comes from the rule crates (a Gomoku move is tried
//! on a copy of the [`gomoku_rules::Game`]; Dou Dizhu plays come from
//! [`doudizhu_rules::legal_plays`]).
//!
//! - [`gomoku`]: a threat-aware Gomoku/Renju player for every rule set (never a
//!   forbidden point as black; takes wins, blocks fives and open threes, builds its own
//!   threats; decides the swap and the fifth-move proposals), and a random player (anywhere
//!   on the board, or near the stones: the load generators' player).
//! - [`doudizhu`]: a Dou Dizhu player (plans its hand into combinations, plays with its
//!   partner, spends bombs when they decide the deal; bids from its plan), also the
//!   dealer's auto-play (托管), and a random player.
//!
//! The `gamehub` binary drives them over the public gRPC API (`gamehub bots`, `gamehub
//! demo`), the Dou Dizhu dealer plays seats on auto-play (托管) with
//! [`doudizhu::AutoPlay`]; `cargo run --release -p gamehub-bots --example strength`
//! measures them against random play, and `arena/` against RLCard's Dou Dizhu rule agent
//! and a published Gomoku engine (see the crate README).
#![forbid(unsafe_code)]

pub mod arena;
pub mod doudizhu;
pub mod gomoku;
