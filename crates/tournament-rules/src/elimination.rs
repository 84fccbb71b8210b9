//! Dou Dizhu elimination rounds (打立出局).
//!
//! Every player starts with the same tournament chips (not silver). Each round seats the
//! players still in at tables of three, drawn anew, and plays a fixed number of deals;
//! the deals move chips by the game's own scoring. After a round, the players lowest in
//! chips go out so that two thirds stay, rounded down to whole tables ([`survivors_after`]),
//! until three are left: the final table, which plays its deals for first, second and
//! third place.
//!
//! - The field is whole tables: when a tournament starts with a number of players that
//!   is not a multiple of three, the latest to register are refunded ([`field_size`]).
//! - Ties in chips: the higher seed stays; among players out after the same round, more
//!   chips place higher, then the higher seed.
//! - The draw is a seeded shuffle ([`draw_tables`]): the same seed and round give the
//!   same tables, so a restarted service draws what it drew before.

use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha20Rng;
use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::{MAX_PLAYERS, Seed};

/// Players at a Dou Dizhu table.
pub const TABLE_SEATS: u16 = 3;

#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum EliminationError {
    #[error(
        "an elimination tournament needs 3 to {MAX_PLAYERS} players in whole tables of three, not {0}"
    )]
    Field(u16),
}

/// How many of `registered` players can play: the largest multiple of three.
pub fn field_size(registered: u16) -> u16 {
    registered / TABLE_SEATS * TABLE_SEATS
}

/// How many of `players` in a round play the next one: two thirds, rounded down to whole
/// tables, and never fewer than the final table.
pub fn survivors_after(players: u16) -> u16 {
    (TABLE_SEATS * (2 * players / (3 * TABLE_SEATS))).max(TABLE_SEATS)
}

/// Players in each round, the final last: 9 players play `[9, 6, 3]`.
pub fn plan(field: u16) -> Result<Vec<u16>, EliminationError> {
    if !(TABLE_SEATS..=MAX_PLAYERS).contains(&field) || !field.is_multiple_of(TABLE_SEATS) {
        return Err(EliminationError::Field(field));
    }
    let mut rounds = vec![field];
    let mut players = field;
    while players > TABLE_SEATS {
        players = survivors_after(players);
        rounds.push(players);
    }
    Ok(rounds)
}

/// Seats `players` at tables of three for round `round`, from the tournament's draw seed.
/// The order of `players` does not matter.
pub fn draw_tables(players: &[Seed], draw_seed: u64, round: u16) -> Vec<[Seed; 3]> {
    debug_assert_eq!(players.len() % 3, 0, "whole tables only");
    let mut shuffled = players.to_vec();
    shuffled.sort_unstable();
    let mut rng = ChaCha20Rng::seed_from_u64(draw_seed);
    rng.set_stream(u64::from(round));
    shuffled.shuffle(&mut rng);
    shuffled
        .chunks_exact(3)
        .map(|t| [t[0], t[1], t[2]])
        .collect()
}

/// A player of an elimination tournament.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entrant {
    pub seed: Seed,
    /// Tournament chips; frozen when the player goes out.
    pub chips: i64,
    /// The round after which the player went out (1 = the first), or `None` while in.
    pub out_after_round: Option<u16>,
}

/// Puts out the lowest players still in, so that `keep` stay; returns who went out,
/// lowest first.
pub fn eliminate(entrants: &mut [Entrant], round: u16, keep: u16) -> Vec<Seed> {
    let mut still_in: Vec<usize> = (0..entrants.len())
        .filter(|&i| entrants[i].out_after_round.is_none())
        .collect();
    // Lowest first: fewer chips, then the lower seed (a larger number).
    still_in.sort_by(|&a, &b| {
        entrants[a]
            .chips
            .cmp(&entrants[b].chips)
            .then(entrants[b].seed.cmp(&entrants[a].seed))
    });
    let out = still_in.len().saturating_sub(usize::from(keep));
    still_in[..out]
        .iter()
        .map(|&i| {
            entrants[i].out_after_round = Some(round);
            entrants[i].seed
        })
        .collect()
}

/// Everyone's place, first place first: the players still in by chips, then those out
/// later before those out earlier.
pub fn places(entrants: &[Entrant]) -> Vec<Seed> {
    let mut order: Vec<&Entrant> = entrants.iter().collect();
    order.sort_by(|a, b| {
        let stayed = |e: &Entrant| e.out_after_round.map_or(u32::MAX, u32::from);
        stayed(b)
            .cmp(&stayed(a))
            .then(b.chips.cmp(&a.chips))
            .then(a.seed.cmp(&b.seed))
    });
    order.into_iter().map(|e| e.seed).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nine_players_play_three_rounds_to_the_final_table() {
        assert_eq!(plan(9), Ok(vec![9, 6, 3]));
        assert_eq!(plan(3), Ok(vec![3]));
        assert_eq!(plan(30), Ok(vec![30, 18, 12, 6, 3]));
        assert_eq!(plan(10), Err(EliminationError::Field(10)));
        assert_eq!(plan(0), Err(EliminationError::Field(0)));
    }

    #[test]
    fn the_field_is_whole_tables() {
        assert_eq!(field_size(11), 9);
        assert_eq!(field_size(2), 0);
        assert_eq!(field_size(12), 12);
    }

    #[test]
    fn the_draw_is_the_same_for_the_same_seed_and_round() {
        let players: Vec<Seed> = (0..9).map(Seed).collect();
        let mut reversed = players.clone();
        reversed.reverse();
        assert_eq!(draw_tables(&players, 42, 1), draw_tables(&reversed, 42, 1));
        let tables = draw_tables(&players, 42, 1);
        let mut seated: Vec<Seed> = tables.iter().flatten().copied().collect();
        seated.sort();
        assert_eq!(seated, players);
        // Another round draws anew (with these players, the chance of the same draw is tiny).
        assert_ne!(draw_tables(&players, 42, 2), tables);
    }

    #[test]
    fn the_lowest_in_chips_go_out_and_ties_keep_the_higher_seed() {
        let mut entrants: Vec<Entrant> = [500, 1000, 1000, 1500, 400, 1000]
            .iter()
            .enumerate()
            .map(|(i, &chips)| Entrant {
                seed: Seed(i as u16),
                chips,
                out_after_round: None,
            })
            .collect();
        let out = eliminate(&mut entrants, 1, 3);
        assert_eq!(out, vec![Seed(4), Seed(0), Seed(5)]);
        entrants[1].chips = 100;
        entrants[2].chips = 2000;
        entrants[3].chips = 1200;
        assert_eq!(
            places(&entrants),
            vec![Seed(2), Seed(3), Seed(1), Seed(5), Seed(0), Seed(4)]
        );
    }
}
