//! The terms every gamehub service agrees on, each defined once. Matchmaking writes them
//! into a room, the game services take them in `OpenTable`, the ledger settles by them:
//! when two services check the same term differently, a table can open that the ledger
//! then refuses to settle. So they live here, in a crate all of them depend on.
//!
//! - [`games`]: the game registry, one entry per game: its key, seats, roles and
//!   lineups, rule sets, clock, service; the shared services read games from here only;
//! - [`stakes`]: a room's stakes ([`Stakes`]) and their bounds, checked the same way by
//!   matchmaking's rooms file, every game's service and the ledger;
//! - [`caps`]: the ledger's default win/loss caps, which also size a room's default
//!   minimum balance;
//! - [`ids`]: what an id may hold (players, tables, rooms, requests);
//! - [`names`]: what a player's display name (昵称) may be ([`DisplayName`]);
//! - [`operators`]: the bound on an operator's reason for an audited action;
//! - [`rating`]: the Gomoku rating a new player starts with;
//! - [`rule_sets`]: the codes of Gomoku's rule sets in its API (the names are the rule
//!   crate's, through the registry).
//!
//! No I/O and no runtime here: plain data, checks and conversions.
#![forbid(unsafe_code)]

pub mod caps;
pub mod games;
pub mod ids;
pub mod names;
pub mod operators;
pub mod rating;
pub mod rule_sets;
pub mod stakes;

pub use ids::RoomId;
pub use names::DisplayName;
pub use stakes::{Stakes, StakesError};
