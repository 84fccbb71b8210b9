//! Combinations (牌型): reading a set of cards as exactly one combination, and beating.
//!
//! The kicker rules of docs/rules.md#combinations, in one place:
//! - a kicker (带的牌) never has a rank the body uses (3334 is a triple with a single,
//!   33334 is nothing);
//! - kickers never hold four cards of one rank (that is a bomb) nor both jokers (that is
//!   the rocket);
//! - a pair kicker is two cards of one rank, never the two jokers; an airplane's pairs are
//!   of different ranks, and so are four-with-two-pairs' pairs (33334444 is nothing);
//! - four with two singles may carry a pair (444455);
//! - an airplane's single kickers may not hold a triple of a rank next to the chain
//!   (333444555+666 is a triple straight of four), except a triple of 2s (which can
//!   never chain).
//!
//! With these rules every valid set reads as exactly one combination
//! (`every_valid_set_reads_as_exactly_one_combination` checks it exhaustively up to 8
//! cards and randomly beyond), so a play is just its cards.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::card::Rank;
use crate::ranks::RankCounts;

/// The kind of a combination. Serialized with the judge's names (`triple_single`, ...).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// 单牌.
    Single,
    /// 对牌.
    Pair,
    /// 三张.
    Triple,
    /// 三带一: a triple and one single of another rank.
    #[serde(rename = "triple_single")]
    TripleWithSingle,
    /// 三带一对: a triple and a pair of another rank.
    #[serde(rename = "triple_pair")]
    TripleWithPair,
    /// 单顺: five or more consecutive ranks within 3..A.
    Straight,
    /// 双顺 (连对): three or more consecutive pairs within 3..A.
    PairStraight,
    /// 三顺 (飞机不带): two or more consecutive triples within 3..A.
    TripleStraight,
    /// 飞机带单: a triple straight and as many single kickers as triples.
    #[serde(rename = "airplane_single")]
    AirplaneWithSingles,
    /// 飞机带对: a triple straight and as many pairs (of different ranks) as triples.
    #[serde(rename = "airplane_pair")]
    AirplaneWithPairs,
    /// 四带二: four of a rank and two single kickers (which may be a pair). Not a bomb.
    #[serde(rename = "four_two")]
    FourWithTwoSingles,
    /// 四带两对: four of a rank and two pairs of different ranks. Not a bomb.
    #[serde(rename = "four_two_pairs")]
    FourWithTwoPairs,
    /// 炸弹: four of a rank.
    Bomb,
    /// 火箭 (王炸): both jokers.
    Rocket,
}

impl Kind {
    /// Every kind, in the order move generation lists them.
    pub const ALL: [Kind; 14] = [
        Kind::Single,
        Kind::Pair,
        Kind::Triple,
        Kind::TripleWithSingle,
        Kind::TripleWithPair,
        Kind::Straight,
        Kind::PairStraight,
        Kind::TripleStraight,
        Kind::AirplaneWithSingles,
        Kind::AirplaneWithPairs,
        Kind::FourWithTwoSingles,
        Kind::FourWithTwoPairs,
        Kind::Bomb,
        Kind::Rocket,
    ];

    /// The judge's name: `single`, `triple_single`, `airplane_pair`, ...
    pub fn name(self) -> &'static str {
        match self {
            Kind::Single => "single",
            Kind::Pair => "pair",
            Kind::Triple => "triple",
            Kind::TripleWithSingle => "triple_single",
            Kind::TripleWithPair => "triple_pair",
            Kind::Straight => "straight",
            Kind::PairStraight => "pair_straight",
            Kind::TripleStraight => "triple_straight",
            Kind::AirplaneWithSingles => "airplane_single",
            Kind::AirplaneWithPairs => "airplane_pair",
            Kind::FourWithTwoSingles => "four_two",
            Kind::FourWithTwoPairs => "four_two_pairs",
            Kind::Bomb => "bomb",
            Kind::Rocket => "rocket",
        }
    }

    /// Cards in a combination of this kind with `length` chained units.
    pub fn card_count(self, length: u8) -> usize {
        let length = usize::from(length);
        match self {
            Kind::Single => 1,
            Kind::Pair | Kind::Rocket => 2,
            Kind::Triple => 3,
            Kind::TripleWithSingle | Kind::Bomb => 4,
            Kind::TripleWithPair => 5,
            Kind::Straight => length,
            Kind::PairStraight => 2 * length,
            Kind::TripleStraight => 3 * length,
            Kind::AirplaneWithSingles => 4 * length,
            Kind::AirplaneWithPairs => 5 * length,
            Kind::FourWithTwoSingles => 6,
            Kind::FourWithTwoPairs => 8,
        }
    }

    /// Whether a play of this kind doubles the deal's multiplier.
    pub fn doubles(self) -> bool {
        matches!(self, Kind::Bomb | Kind::Rocket)
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What a valid set of cards is: its kind, the lowest rank of its body (the chain's first
/// rank, the triple's or the four's rank; the small joker for the rocket) and the number
/// of chained units (5 for a five-card straight, 2 for a two-triple airplane, 1 otherwise).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Combination {
    pub kind: Kind,
    pub rank: Rank,
    pub length: u8,
}

impl Combination {
    pub(crate) fn new(kind: Kind, rank: usize, length: usize) -> Combination {
        Combination {
            kind,
            rank: Rank::ALL[rank],
            length: length as u8,
        }
    }

    /// Number of cards in the combination.
    pub fn card_count(&self) -> usize {
        self.kind.card_count(self.length)
    }

    /// Whether `self` may be played on `previous`: the rocket beats everything; a bomb
    /// beats anything but a higher bomb or the rocket; anything else beats only the same
    /// kind with the same length and a higher body rank (kickers never count).
    pub fn beats(&self, previous: &Combination) -> bool {
        match (self.kind, previous.kind) {
            (Kind::Rocket, Kind::Rocket) => false,
            (Kind::Rocket, _) => true,
            (_, Kind::Rocket) => false,
            (Kind::Bomb, Kind::Bomb) => self.rank > previous.rank,
            (Kind::Bomb, _) => true,
            (_, Kind::Bomb) => false,
            _ => {
                self.kind == previous.kind
                    && self.length == previous.length
                    && self.rank > previous.rank
            }
        }
    }
}

impl fmt::Display for Combination {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} from {}", self.kind, self.rank)?;
        if self.length > 1 {
            write!(f, " x{}", self.length)?;
        }
        Ok(())
    }
}

const ACE: usize = Rank::Ace as usize;
const SMALL_JOKER: usize = Rank::SmallJoker as usize;
const BIG_JOKER: usize = Rank::BigJoker as usize;

/// Reads a multiset of ranks as a combination, or `None` if it is not one.
pub fn classify(ranks: &RankCounts) -> Option<Combination> {
    let counts = ranks.counts();
    let mut total = 0usize;
    // How many ranks hold 1, 2, 3, 4 cards, and the lowest such rank for each count.
    let mut ranks_with = [0usize; 5];
    let mut lowest_with = [usize::MAX; 5];
    let mut lowest = usize::MAX;
    let mut highest = 0usize;
    for (rank, &count) in counts.iter().enumerate() {
        if count == 0 {
            continue;
        }
        let count = usize::from(count);
        total += count;
        ranks_with[count] += 1;
        if lowest_with[count] == usize::MAX {
            lowest_with[count] = rank;
        }
        if lowest == usize::MAX {
            lowest = rank;
        }
        highest = rank;
    }
    let distinct = ranks_with[1] + ranks_with[2] + ranks_with[3] + ranks_with[4];
    let found = match total {
        0 => None,
        1 => Some(Combination::new(Kind::Single, lowest, 1)),
        2 if ranks_with[2] == 1 => Some(Combination::new(Kind::Pair, lowest, 1)),
        2 if lowest == SMALL_JOKER && highest == BIG_JOKER => {
            Some(Combination::new(Kind::Rocket, lowest, 1))
        }
        3 if ranks_with[3] == 1 => Some(Combination::new(Kind::Triple, lowest, 1)),
        4 if ranks_with[4] == 1 => Some(Combination::new(Kind::Bomb, lowest, 1)),
        4 if ranks_with[3] == 1 => {
            Some(Combination::new(Kind::TripleWithSingle, lowest_with[3], 1))
        }
        5 if ranks_with[3] == 1 && ranks_with[2] == 1 => {
            Some(Combination::new(Kind::TripleWithPair, lowest_with[3], 1))
        }
        _ => chain(total, distinct, lowest, highest, &ranks_with)
            .or_else(|| four_with_kickers(counts, total, &ranks_with, &lowest_with))
            .or_else(|| airplane(counts, total, &ranks_with)),
    };
    debug_assert!(found.is_none_or(|c| c.card_count() == total));
    found
}

/// A straight, pair straight or triple straight: one count throughout, consecutive ranks
/// within 3..A.
fn chain(
    total: usize,
    distinct: usize,
    lowest: usize,
    highest: usize,
    ranks_with: &[usize; 5],
) -> Option<Combination> {
    if highest > ACE || highest - lowest + 1 != distinct {
        return None;
    }
    let (kind, min_length) = if ranks_with[1] == distinct {
        (Kind::Straight, 5)
    } else if ranks_with[2] == distinct {
        (Kind::PairStraight, 3)
    } else if ranks_with[3] == distinct {
        (Kind::TripleStraight, 2)
    } else {
        return None;
    };
    debug_assert_eq!(kind.card_count(distinct as u8), total);
    (distinct >= min_length).then(|| Combination::new(kind, lowest, distinct))
}

/// Four with two singles (6 cards) or four with two pairs (8 cards).
fn four_with_kickers(
    counts: &[u8; Rank::COUNT],
    total: usize,
    ranks_with: &[usize; 5],
    lowest_with: &[usize; 5],
) -> Option<Combination> {
    if ranks_with[4] != 1 {
        return None;
    }
    let four = lowest_with[4];
    match total {
        6 if !(counts[SMALL_JOKER] == 1 && counts[BIG_JOKER] == 1) => {
            Some(Combination::new(Kind::FourWithTwoSingles, four, 1))
        }
        8 if ranks_with[2] == 2 => Some(Combination::new(Kind::FourWithTwoPairs, four, 1)),
        _ => None,
    }
}

/// An airplane with singles (4 cards a triple) or with pairs (5 cards a triple).
///
/// The body is a run of ranks holding exactly three cards. A fourth card of a body rank
/// would be a kicker of that rank, and a triple kicker next to the chain is forbidden,
/// so the body must be a whole maximal run of such ranks; at most one run can have the
/// needed length, which is what makes the reading unique.
fn airplane(
    counts: &[u8; Rank::COUNT],
    total: usize,
    ranks_with: &[usize; 5],
) -> Option<Combination> {
    if ranks_with[4] != 0 {
        return None;
    }
    let with_singles = total.is_multiple_of(4) && total >= 8;
    let with_pairs = total.is_multiple_of(5) && total >= 10;
    if !with_singles && !with_pairs {
        return None;
    }
    let mut run_start = 0;
    let mut run_length = 0;
    for rank in 0..=ACE + 1 {
        if rank <= ACE && counts[rank] == 3 {
            if run_length == 0 {
                run_start = rank;
            }
            run_length += 1;
            continue;
        }
        if run_length >= 2 {
            if with_singles
                && run_length == total / 4
                && !(counts[SMALL_JOKER] == 1 && counts[BIG_JOKER] == 1)
            {
                return Some(Combination::new(
                    Kind::AirplaneWithSingles,
                    run_start,
                    run_length,
                ));
            }
            let pairs = total / 5;
            if with_pairs && run_length == pairs && ranks_with[3] == pairs && ranks_with[2] == pairs
            {
                return Some(Combination::new(
                    Kind::AirplaneWithPairs,
                    run_start,
                    run_length,
                ));
            }
        }
        run_length = 0;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Option<Combination> {
        classify(&RankCounts::parse(text).expect("valid rank text"))
    }

    #[test]
    fn the_examples_of_the_judge_read_as_documented() {
        let c = read("3 3 3 4").expect("valid");
        assert_eq!(
            (c.kind, c.rank, c.length),
            (Kind::TripleWithSingle, Rank::Three, 1)
        );
        let c = read("3 4 5 6 7").expect("valid");
        assert_eq!((c.kind, c.rank, c.length), (Kind::Straight, Rank::Three, 5));
        let c = read("333444 5 6").expect("valid");
        assert_eq!((c.kind, c.length), (Kind::AirplaneWithSingles, 2));
    }
}
