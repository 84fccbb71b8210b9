//! What a seat can infer from what it sees: which cards are still out (in the other two
//! hands), which of them the landlord surely holds (the kitty cards it has not played),
//! and so whether a combination can still be beaten.

use doudizhu_rules::{Kind, Rank, RankCounts, Seat};

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
    /// Cards the landlord surely holds: the kitty less what it played (empty for the
    /// landlord itself, who knows its hand).
    pub landlord_holds: Counts,
}

impl Knowledge {
    pub fn of(s: &Situation) -> Knowledge {
        let mut unseen = deck();
        for (u, h) in unseen.iter_mut().zip(s.hand.counts()) {
            *u = u.saturating_sub(*h);
        }
        let mut landlord_holds = if s.seat == s.landlord {
            [0; RANKS]
        } else {
            *s.kitty.counts()
        };
        for (seat, ranks) in &s.plays {
            for (r, c) in ranks.counts().iter().enumerate() {
                unseen[r] = unseen[r].saturating_sub(*c);
                if *seat == s.landlord {
                    landlord_holds[r] = landlord_holds[r].saturating_sub(*c);
                }
            }
        }
        for (l, u) in landlord_holds.iter_mut().zip(unseen) {
            *l = (*l).min(u);
        }
        Knowledge {
            unseen,
            landlord_holds,
        }
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

    /// Whether the cards still out hold a bomb or the rocket.
    pub fn bomb_out(&self) -> bool {
        self.unseen[..=TWO].contains(&4) || (self.unseen[SMALL_JOKER] + self.unseen[BIG_JOKER] == 2)
    }

    /// Whether a seat is known to hold this rank (the landlord's kitty cards).
    pub fn landlord_holds(&self, rank: Rank) -> bool {
        self.landlord_holds[rank.index()] > 0
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

/// The seats playing against `seat`.
pub fn opponents(seat: Seat, landlord: Seat) -> Vec<Seat> {
    Seat::ALL
        .into_iter()
        .filter(|&o| o != seat && (seat == landlord || o == landlord))
        .collect()
}

/// Cards of `ranks` by rank, as counts.
pub fn counts(ranks: &RankCounts) -> Counts {
    *ranks.counts()
}
