//! What a seat can infer from what it sees: which cards are still out (in the other two
//! hands), and so whether a combination can still be beaten.

use doudizhu_rules::{Kind, Rank};

use super::Situation;
use super::plan::{Counts, Group, RANKS};

const ACE: usize = Rank::Ace as usize;
const TWO: usize = Rank::Two as usize;
const SMALL_JOKER: usize = Rank::SmallJoker as usize;
const BIG_JOKER: usize = Rank::BigJoker as usize;

/// Cards of each rank in the whole deck.
fn deck() -> Counts {
    let mut counts = [4u8; RANKS];
    counts[SMALL_JOKER] = 1;
    counts[BIG_JOKER] = 1;
    counts
}

/// The seat's inferences.
#[derive(Debug, Clone)]
pub struct Knowledge {
    /// Cards in the other two hands.
    pub unseen: Counts,
}

impl Knowledge {
    pub fn of(s: &Situation) -> Knowledge {
        let mut unseen = deck();
        for (u, h) in unseen.iter_mut().zip(s.hand.counts()) {
            *u = u.saturating_sub(*h);
        }
        for (_, ranks) in &s.plays {
            for (u, c) in unseen.iter_mut().zip(ranks.counts()) {
                *u = u.saturating_sub(*c);
            }
        }
        Knowledge { unseen }
    }

    /// Whether cards still out could beat `group` without a bomb. `holders_max` is the
    /// most cards any seat that might beat it holds (a seat with fewer cards than the
    /// group cannot answer it).
    pub fn beatable(&self, group: &Group, holders_max: u8) -> bool {
        if usize::from(holders_max) < group.card_count() {
            return false;
        }
        beatable_from(&self.unseen, group)
    }

    /// Whether cards still out could beat the combination `ranks` (of `kind`, body rank
    /// `rank`, `length` units) without a bomb.
    pub fn beatable_play(&self, kind: Kind, rank: Rank, length: u8, holders_max: u8) -> bool {
        let group = Group {
            kind,
            rank: rank.index(),
            length,
            kickers: [0; RANKS],
        };
        let cards = kind.card_count(length);
        if usize::from(holders_max) < cards {
            return false;
        }
        beatable_from(&self.unseen, &group)
    }
}

/// Whether `pool` holds a same-shaped combination higher than `group` (bombs aside).
fn beatable_from(pool: &Counts, group: &Group) -> bool {
    let width = group.width();
    let length = usize::from(group.length);
    match group.kind {
        Kind::Rocket => false,
        Kind::Bomb => (group.rank + 1..=TWO).any(|r| pool[r] == 4),
        Kind::Single => (group.rank + 1..RANKS).any(|r| pool[r] >= 1),
        Kind::Pair
        | Kind::Triple
        | Kind::TripleWithSingle
        | Kind::TripleWithPair
        | Kind::FourWithTwoSingles
        | Kind::FourWithTwoPairs => (group.rank + 1..=TWO).any(|r| pool[r] >= width),
        Kind::Straight
        | Kind::PairStraight
        | Kind::TripleStraight
        | Kind::AirplaneWithSingles
        | Kind::AirplaneWithPairs => (group.rank + 1..=ACE + 1 - length)
            .any(|start| pool[start..start + length].iter().all(|&c| c >= width)),
    }
}

#[cfg(test)]
mod tests {
    use doudizhu_rules::{RankCounts, Seat, classify};

    use super::*;

    fn know(hand: &str, played: &[&str]) -> Knowledge {
        let seat = Seat::new(0).expect("seat");
        Knowledge::of(&Situation {
            seat,
            hand: RankCounts::parse(hand).expect("ranks"),
            landlord: seat,
            kitty: RankCounts::EMPTY,
            plays: played
                .iter()
                .map(|t| {
                    (
                        Seat::new(1).expect("seat"),
                        RankCounts::parse(t).expect("ranks"),
                    )
                })
                .collect(),
            to_beat: None,
            cards_left: [20, 17, 17],
        })
    }

    fn beatable(k: &Knowledge, text: &str, holders: u8) -> bool {
        let c = classify(&RankCounts::parse(text).expect("ranks")).expect("combination");
        k.beatable_play(c.kind, c.rank, c.length, holders)
    }

    #[test]
    fn what_is_still_out_decides_whether_a_play_can_be_beaten() {
        let k = know("2 2 X", &["2", "D"]);
        // One 2 is still out: nothing pairs above a pair of 2s; the small joker cannot be
        // beaten once the big one is played; a single A can.
        assert!(!beatable(&k, "2 2", 17));
        assert!(!beatable(&k, "X", 17));
        assert!(beatable(&k, "A", 17));
        assert!(beatable(&k, "3 4 5 6 7", 17));
        // A seat with fewer cards than the play cannot answer it.
        assert!(!beatable(&k, "3 4 5 6 7", 4));
        assert!(!beatable(&know("", &[]), "X D", 17), "the rocket");
    }
}
