//! Tournament rules (比赛): the pure, synchronous, deterministic part of gamehub's
//! tournaments. No I/O and no clock: the tournament service keeps the state in its
//! stores, seats players at ordinary tables of the game services, and asks this crate
//! who meets whom, who goes on, and who is paid what.
//!
//! Players are named by their [`Seed`]: their place in the seeding order fixed when the
//! tournament starts (0 is the top seed). The service maps seeds to player ids.
//!
//! - [`swiss`]: the Swiss system of Gomoku tournaments: [`swiss::pair_round`] pairs the
//!   next round from the rounds played (no rematch while one can be avoided, colours
//!   kept within one, byes to different players), [`swiss::standings`] ranks by score,
//!   Buchholz, Sonneborn–Berger and the direct game.
//! - [`elimination`]: Dou Dizhu's elimination rounds (打立出局): the field cut to whole
//!   tables, tables of three drawn each round from a seed, the lowest by chips out after
//!   each round until the final table, and the places.
//! - [`prizes`]: a [`prizes::PrizeTable`] of shares and the split of a pool into whole
//!   silver that sums to the pool exactly.
#![forbid(unsafe_code)]

pub mod elimination;
pub mod prizes;
pub mod swiss;

use serde::{Deserialize, Serialize};

/// A player's place in the seeding order of one tournament, 0 being the top seed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Seed(pub u16);

impl Seed {
    /// The seed as an index into per-player arrays.
    pub fn index(self) -> usize {
        usize::from(self.0)
    }
}

impl std::fmt::Display for Seed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "#{}", self.0 + 1)
    }
}

/// The most players one tournament takes (a bound on every per-player array and on the
/// pairing search).
pub const MAX_PLAYERS: u16 = 1024;
