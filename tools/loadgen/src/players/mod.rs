//! The random players every load generator uses: fast legal choices so that the load is
//! the platform's, not the players'. Legality is never judged here: Gomoku stones come
//! from [`gamehub_bots::gomoku::random_move_near`] on a copy of the game
//! (`gomoku_rules::Game`), Dou Dizhu bids from [`gamehub_bots::doudizhu::random_bid`],
//! plays from the rules crate's legal plays or the server's hints.
//!
//! - [`gomoku`]: [`gomoku::RandomGomoku`], every seat of one table;
//! - [`doudizhu`]: a random bid, and a random play or pass among the legal ones.

pub mod doudizhu;
pub mod gomoku;
