//! The Swiss system (瑞士制) of Gomoku tournaments.
//!
//! Every player plays every round (one sits out with a bye when the number is odd). A
//! win scores 1, a draw ½, a loss 0, a bye 1; escape or no-show loses that game, and a
//! game neither player came to is lost by both. Scores are kept in half points.
//!
//! **Pairing** ([`pair_round`]). Players are ranked by score, then seed. The top unpaired
//! player takes the opponent nearest in score who keeps the rest of the round pairable,
//! preferring, at equal score, the player half a score group below (the top half meets
//! the bottom half) and an opponent whose colour due differs. Three levels are tried in
//! order, and the first that pairs everyone is kept:
//!
//! 1. no rematch, and no player two games ahead in one colour;
//! 2. no rematch;
//! 3. anything (only when every pairing repeats a game, e.g. more rounds than opponents).
//!
//! With an odd number, the bye goes to the lowest-ranked player who has had the fewest
//! byes and for whom the rest can still be paired at that level.
//!
//! **Colours**. Of two paired players, black goes to the one who has had black less often
//! (blacks − whites), then to the one who had white last, then, between equals, to the
//! higher-ranked player on even boards and the lower-ranked on odd boards (boards are
//! numbered from 0 in rank order, so round 1 alternates down the field).
//!
//! **Standings** ([`standings`]): score, then Buchholz (the sum of the opponents' scores;
//! a bye adds nothing), then Sonneborn–Berger (the scores of the opponents beaten plus
//! half the scores of those drawn), then the direct game (the points scored in games
//! among the players still tied), then the seed.

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::{MAX_PLAYERS, Seed};

/// The most rounds a Swiss tournament plays.
pub const MAX_ROUNDS: u16 = 64;

/// How many pairing steps one level of [`pair_round`] may try before it gives up on
/// that level (a bound on the backtracking search; ample for the default rounds).
const SEARCH_STEPS: u32 = 2_000_000;

/// How a game of the tournament ended, as the referee reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum GameResult {
    BlackWins,
    WhiteWins,
    Draw,
    /// Neither player came (or both escaped): a loss for each.
    BothLose,
}

/// Two players of one round and their colours.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pairing {
    pub black: Seed,
    pub white: Seed,
}

/// A game played, with its result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Game {
    pub black: Seed,
    pub white: Seed,
    pub result: GameResult,
}

/// A round's pairings, boards in order, and the player with the bye.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct PairedRound {
    pub boards: Vec<Pairing>,
    pub bye: Option<Seed>,
}

/// A round played.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct PlayedRound {
    pub games: Vec<Game>,
    pub bye: Option<Seed>,
}

#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum SwissError {
    #[error("a Swiss tournament needs 2 to {MAX_PLAYERS} players, not {0}")]
    Players(u16),
    #[error("a Swiss tournament plays 1 to {MAX_ROUNDS} rounds, not {0}")]
    Rounds(u16),
    #[error("round {round}: player {seed} is not in this tournament of {players}")]
    UnknownPlayer {
        round: usize,
        seed: Seed,
        players: u16,
    },
    #[error("round {round}: player {seed} appears twice")]
    Twice { round: usize, seed: Seed },
    #[error("round {round}: player {seed} is missing (every player plays or has the bye)")]
    Missing { round: usize, seed: Seed },
}

/// The number of rounds when the tournament does not say: ⌈log2 players⌉ + 1.
pub fn default_rounds(players: u16) -> u16 {
    let players = players.max(2);
    let log2_ceil = u16::try_from(u32::BITS - u32::from(players - 1).leading_zeros()).unwrap_or(0);
    log2_ceil + 1
}

/// Checks a tournament's shape: the number of players and of rounds.
pub fn check_shape(players: u16, rounds: u16) -> Result<(), SwissError> {
    if !(2..=MAX_PLAYERS).contains(&players) {
        return Err(SwissError::Players(players));
    }
    if !(1..=MAX_ROUNDS).contains(&rounds) {
        return Err(SwissError::Rounds(rounds));
    }
    Ok(())
}

/// Points a result gives black and white, in half points.
fn halves(result: GameResult) -> (u32, u32) {
    match result {
        GameResult::BlackWins => (2, 0),
        GameResult::WhiteWins => (0, 2),
        GameResult::Draw => (1, 1),
        GameResult::BothLose => (0, 0),
    }
}

const BYE_HALVES: u32 = 2;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Colour {
    Black,
    White,
}

/// What the pairing needs to know of one player.
#[derive(Debug, Clone, Default)]
struct Record {
    score_halves: u32,
    /// Games with black minus games with white.
    balance: i32,
    last: Option<Colour>,
    byes: u32,
    opponents: Vec<u16>,
}

impl Record {
    fn met(&self, other: usize) -> bool {
        self.opponents.iter().any(|&o| usize::from(o) == other)
    }

    /// Higher wants black more: who had white last, then nobody, then who had black.
    fn black_due(&self) -> i32 {
        match self.last {
            Some(Colour::White) => 1,
            None => 0,
            Some(Colour::Black) => -1,
        }
    }

    /// The colour this player should get next, if any.
    fn due(&self) -> Option<Colour> {
        match self.balance.cmp(&0) {
            std::cmp::Ordering::Greater => Some(Colour::White),
            std::cmp::Ordering::Less => Some(Colour::Black),
            std::cmp::Ordering::Equal => match self.last {
                Some(Colour::Black) => Some(Colour::White),
                Some(Colour::White) => Some(Colour::Black),
                None => None,
            },
        }
    }
}

/// Every seed in every round once, every seed known.
fn check_rounds<'a>(
    players: u16,
    rounds: impl Iterator<Item = (Vec<(Seed, Seed)>, Option<Seed>)> + 'a,
) -> Result<(), SwissError> {
    for (round, (pairs, bye)) in rounds.enumerate() {
        let mut seen = vec![false; usize::from(players)];
        let seeds = pairs.iter().flat_map(|&(b, w)| [b, w]).chain(bye);
        for seed in seeds {
            let slot = seen
                .get_mut(seed.index())
                .ok_or(SwissError::UnknownPlayer {
                    round: round + 1,
                    seed,
                    players,
                })?;
            if *slot {
                return Err(SwissError::Twice {
                    round: round + 1,
                    seed,
                });
            }
            *slot = true;
        }
        if let Some(missing) = seen.iter().position(|s| !s) {
            let seed = Seed(u16::try_from(missing).unwrap_or(u16::MAX));
            return Err(SwissError::Missing {
                round: round + 1,
                seed,
            });
        }
    }
    Ok(())
}

fn records(players: u16, played: &[PlayedRound]) -> Result<Vec<Record>, SwissError> {
    check_shape(players, 1)?;
    check_rounds(
        players,
        played
            .iter()
            .map(|r| (r.games.iter().map(|g| (g.black, g.white)).collect(), r.bye)),
    )?;
    let mut records = vec![Record::default(); usize::from(players)];
    for round in played {
        for game in &round.games {
            let (black_halves, white_halves) = halves(game.result);
            let black = &mut records[game.black.index()];
            black.score_halves += black_halves;
            black.balance += 1;
            black.last = Some(Colour::Black);
            black.opponents.push(game.white.0);
            let white = &mut records[game.white.index()];
            white.score_halves += white_halves;
            white.balance -= 1;
            white.last = Some(Colour::White);
            white.opponents.push(game.black.0);
        }
        if let Some(bye) = round.bye {
            let record = &mut records[bye.index()];
            record.score_halves += BYE_HALVES;
            record.byes += 1;
        }
    }
    Ok(records)
}

/// How strict a pairing is (see the module's documentation).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Level {
    NoRematchColoursWithinOne,
    NoRematch,
    Any,
}

enum Found {
    Yes,
    No,
    OutOfSteps,
}

struct Search<'a> {
    records: &'a [Record],
    level: Level,
    steps: u32,
}

impl Search<'_> {
    fn allowed(&self, a: usize, b: usize) -> bool {
        let (ra, rb) = (&self.records[a], &self.records[b]);
        match self.level {
            Level::Any => true,
            Level::NoRematch => !ra.met(b),
            Level::NoRematchColoursWithinOne => {
                // The lower balance takes black: both stay within one iff lower ≤ 0 ≤ higher.
                !ra.met(b) && ra.balance.min(rb.balance) <= 0 && ra.balance.max(rb.balance) >= 0
            }
        }
    }

    /// Pairs `unpaired` (in rank order) into `out`, top player first.
    fn pair(&mut self, unpaired: &[usize], out: &mut Vec<(usize, usize)>) -> Found {
        let Some((&top, rest)) = unpaired.split_first() else {
            return Found::Yes;
        };
        let top_record = &self.records[top];
        let group = unpaired
            .iter()
            .filter(|&&p| self.records[p].score_halves == top_record.score_halves)
            .count();
        let ideal = (group / 2).saturating_sub(1);
        let mut candidates: Vec<(u32, bool, usize, usize)> = rest
            .iter()
            .enumerate()
            .filter(|&(_, &p)| self.allowed(top, p))
            .map(|(i, &p)| {
                let record = &self.records[p];
                let score_gap = top_record.score_halves.abs_diff(record.score_halves);
                let same_due = top_record.due().is_some() && top_record.due() == record.due();
                (score_gap, same_due, i.abs_diff(ideal), i)
            })
            .collect();
        candidates.sort_unstable();
        for (_, _, _, i) in candidates {
            self.steps += 1;
            if self.steps > SEARCH_STEPS {
                return Found::OutOfSteps;
            }
            let remaining: Vec<usize> = rest
                .iter()
                .enumerate()
                .filter(|&(j, _)| j != i)
                .map(|(_, &p)| p)
                .collect();
            out.push((top, rest[i]));
            match self.pair(&remaining, out) {
                Found::Yes => return Found::Yes,
                Found::OutOfSteps => return Found::OutOfSteps,
                Found::No => {
                    out.pop();
                }
            }
        }
        Found::No
    }
}

/// Pairs the next round of a Swiss tournament of `players` from the rounds played.
pub fn pair_round(players: u16, played: &[PlayedRound]) -> Result<PairedRound, SwissError> {
    let records = records(players, played)?;
    let mut ranked: Vec<usize> = (0..records.len()).collect();
    ranked.sort_by(|&a, &b| {
        records[b]
            .score_halves
            .cmp(&records[a].score_halves)
            .then(a.cmp(&b))
    });

    let fewest_byes = records.iter().map(|r| r.byes).min().unwrap_or(0);
    let bye_candidates: Vec<Option<usize>> = if ranked.len().is_multiple_of(2) {
        vec![None]
    } else {
        ranked
            .iter()
            .rev()
            .filter(|&&p| records[p].byes == fewest_byes)
            .map(|&p| Some(p))
            .collect()
    };

    for level in [
        Level::NoRematchColoursWithinOne,
        Level::NoRematch,
        Level::Any,
    ] {
        let mut search = Search {
            records: &records,
            level,
            steps: 0,
        };
        for &bye in &bye_candidates {
            let unpaired: Vec<usize> = ranked.iter().copied().filter(|&p| Some(p) != bye).collect();
            let mut pairs = Vec::with_capacity(unpaired.len() / 2);
            match search.pair(&unpaired, &mut pairs) {
                Found::Yes => return Ok(boards(&records, &ranked, pairs, bye)),
                Found::No => {}
                Found::OutOfSteps => break,
            }
        }
    }
    // Level::Any pairs any even set of players; unreachable unless the search is broken.
    unreachable_pairing(players)
}

#[cold]
fn unreachable_pairing(players: u16) -> Result<PairedRound, SwissError> {
    debug_assert!(false, "the unconstrained level always pairs");
    Err(SwissError::Players(players))
}

fn seed(index: usize) -> Seed {
    Seed(u16::try_from(index).unwrap_or(u16::MAX))
}

/// Orders the pairs into boards (by their higher-ranked player) and gives colours.
fn boards(
    records: &[Record],
    ranked: &[usize],
    mut pairs: Vec<(usize, usize)>,
    bye: Option<usize>,
) -> PairedRound {
    let mut rank = vec![0usize; records.len()];
    for (r, &p) in ranked.iter().enumerate() {
        rank[p] = r;
    }
    for pair in &mut pairs {
        if rank[pair.1] < rank[pair.0] {
            *pair = (pair.1, pair.0);
        }
    }
    pairs.sort_by_key(|&(higher, _)| rank[higher]);
    let boards = pairs
        .into_iter()
        .enumerate()
        .map(|(board, (higher, lower))| {
            let (h, l) = (&records[higher], &records[lower]);
            let higher_black = match l.balance.cmp(&h.balance) {
                std::cmp::Ordering::Greater => true,
                std::cmp::Ordering::Less => false,
                std::cmp::Ordering::Equal => match h.black_due().cmp(&l.black_due()) {
                    std::cmp::Ordering::Greater => true,
                    std::cmp::Ordering::Less => false,
                    std::cmp::Ordering::Equal => board % 2 == 0,
                },
            };
            let (black, white) = if higher_black {
                (higher, lower)
            } else {
                (lower, higher)
            };
            Pairing {
                black: seed(black),
                white: seed(white),
            }
        })
        .collect();
    PairedRound {
        boards,
        bye: bye.map(seed),
    }
}

/// One player's line of the standings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Standing {
    /// 1 for the winner; no two players share a place.
    pub place: u16,
    pub seed: Seed,
    pub score_halves: u32,
    pub buchholz_halves: u32,
    pub sonneborn_berger_quarters: u32,
    /// Points scored in games among the players tied with this one on score, Buchholz and
    /// Sonneborn–Berger (half points; 0 when nobody is tied).
    pub direct_halves: u32,
    pub wins: u16,
    pub draws: u16,
    pub losses: u16,
    pub byes: u16,
}

/// The standings after the rounds played, first place first.
pub fn standings(players: u16, played: &[PlayedRound]) -> Result<Vec<Standing>, SwissError> {
    let records = records(players, played)?;
    let mut lines: Vec<Standing> = (0..records.len())
        .map(|p| Standing {
            place: 0,
            seed: seed(p),
            score_halves: records[p].score_halves,
            buchholz_halves: 0,
            sonneborn_berger_quarters: 0,
            direct_halves: 0,
            wins: 0,
            draws: 0,
            losses: 0,
            byes: u16::try_from(records[p].byes).unwrap_or(u16::MAX),
        })
        .collect();
    let games = played.iter().flat_map(|r| &r.games);
    for game in games.clone() {
        let (black_halves, white_halves) = halves(game.result);
        for (me, opponent, mine) in [
            (game.black, game.white, black_halves),
            (game.white, game.black, white_halves),
        ] {
            let opponent_halves = records[opponent.index()].score_halves;
            let line = &mut lines[me.index()];
            line.buchholz_halves += opponent_halves;
            match mine {
                2 => {
                    line.wins += 1;
                    line.sonneborn_berger_quarters += 2 * opponent_halves;
                }
                1 => {
                    line.draws += 1;
                    line.sonneborn_berger_quarters += opponent_halves;
                }
                _ => line.losses += 1,
            }
        }
    }
    let key = |l: &Standing| {
        (
            l.score_halves,
            l.buchholz_halves,
            l.sonneborn_berger_quarters,
        )
    };
    lines.sort_by(|a, b| key(b).cmp(&key(a)).then(a.seed.cmp(&b.seed)));

    // The direct game, within each group still tied.
    let mut start = 0;
    while start < lines.len() {
        let end = start
            + lines[start..]
                .iter()
                .take_while(|l| key(l) == key(&lines[start]))
                .count();
        if end - start > 1 {
            let tied: Vec<Seed> = lines[start..end].iter().map(|l| l.seed).collect();
            for game in games
                .clone()
                .filter(|g| tied.contains(&g.black) && tied.contains(&g.white))
            {
                let (black_halves, white_halves) = halves(game.result);
                for (who, got) in [(game.black, black_halves), (game.white, white_halves)] {
                    if let Some(line) = lines[start..end].iter_mut().find(|l| l.seed == who) {
                        line.direct_halves += got;
                    }
                }
            }
            lines[start..end].sort_by(|a, b| {
                b.direct_halves
                    .cmp(&a.direct_halves)
                    .then(a.seed.cmp(&b.seed))
            });
        }
        start = end;
    }
    for (i, line) in lines.iter_mut().enumerate() {
        line.place = u16::try_from(i + 1).unwrap_or(u16::MAX);
    }
    Ok(lines)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_rounds_are_log2_plus_one() {
        assert_eq!(default_rounds(2), 2);
        assert_eq!(default_rounds(3), 3);
        assert_eq!(default_rounds(4), 3);
        assert_eq!(default_rounds(5), 4);
        assert_eq!(default_rounds(16), 5);
        assert_eq!(default_rounds(17), 6);
        assert_eq!(default_rounds(1024), 11);
    }
}
