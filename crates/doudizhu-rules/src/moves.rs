//! Legal-move generation: every distinct lead, and every distinct play that beats a given
//! one, from a hand. "Distinct" is as rank multisets: suits never make two plays differ.
//!
//! Each kind has its own generator that builds bodies and kicker sets directly (no
//! filtering of sub-multisets), under the same kicker rules as [`crate::classify`]; the
//! uniqueness of readings means no multiset comes out twice. A property test checks the
//! result against brute force over all sub-multisets.

use serde::{Deserialize, Serialize};

use crate::card::Rank;
use crate::combination::{Combination, Kind};
use crate::ranks::RankCounts;

/// One legal play: its ranks and what they read as.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Play {
    pub combination: Combination,
    pub ranks: RankCounts,
}

const ACE: usize = Rank::Ace as usize;
const TWO: usize = Rank::Two as usize;
const SMALL_JOKER: usize = Rank::SmallJoker as usize;
const BIG_JOKER: usize = Rank::BigJoker as usize;
const RANKS: usize = Rank::COUNT;

/// Every distinct combination `hand` can lead.
pub fn leads(hand: &RankCounts) -> Vec<Play> {
    let mut generator = Generator::new(hand);
    for kind in Kind::ALL {
        for length in lengths(kind) {
            generator.kind(kind, length, None);
        }
    }
    generator.plays
}

/// Every distinct combination from `hand` that beats `previous` (passing not included).
pub fn replies(hand: &RankCounts, previous: &Combination) -> Vec<Play> {
    let mut generator = Generator::new(hand);
    match previous.kind {
        Kind::Rocket => {}
        Kind::Bomb => {
            generator.kind(Kind::Bomb, 1, Some(previous.rank.index()));
            generator.kind(Kind::Rocket, 1, None);
        }
        kind => {
            generator.kind(
                kind,
                usize::from(previous.length),
                Some(previous.rank.index()),
            );
            generator.kind(Kind::Bomb, 1, None);
            generator.kind(Kind::Rocket, 1, None);
        }
    }
    generator.plays
}

/// [`leads`] when `previous` is `None`, else [`replies`].
pub fn legal_plays(hand: &RankCounts, previous: Option<&Combination>) -> Vec<Play> {
    match previous {
        None => leads(hand),
        Some(previous) => replies(hand, previous),
    }
}

/// The lengths (chained units) a kind can have in a hand of at most 20 cards.
fn lengths(kind: Kind) -> std::ops::RangeInclusive<usize> {
    match kind {
        Kind::Straight => 5..=12,
        Kind::PairStraight => 3..=10,
        Kind::TripleStraight => 2..=6,
        Kind::AirplaneWithSingles => 2..=5,
        Kind::AirplaneWithPairs => 2..=4,
        _ => 1..=1,
    }
}

struct Generator {
    hand: [u8; RANKS],
    total: usize,
    plays: Vec<Play>,
}

impl Generator {
    fn new(hand: &RankCounts) -> Generator {
        Generator {
            hand: *hand.counts(),
            total: hand.len(),
            plays: Vec::new(),
        }
    }

    fn push(&mut self, kind: Kind, rank: usize, length: usize, ranks: [u8; RANKS]) {
        let combination = Combination::new(kind, rank, length);
        let ranks = RankCounts::from_counts(ranks).expect("generated plays come from the hand");
        debug_assert_eq!(crate::classify(&ranks), Some(combination), "{ranks}");
        self.plays.push(Play { combination, ranks });
    }

    /// Plays of one kind and length whose body rank is above `above`.
    fn kind(&mut self, kind: Kind, length: usize, above: Option<usize>) {
        if kind.card_count(length as u8) > self.total {
            return;
        }
        let first = above.map_or(0, |rank| rank + 1);
        match kind {
            Kind::Single => self.sets_of(1, first, RANKS, Kind::Single),
            Kind::Pair => self.sets_of(2, first, TWO + 1, Kind::Pair),
            Kind::Triple => self.sets_of(3, first, TWO + 1, Kind::Triple),
            Kind::Bomb => self.sets_of(4, first, TWO + 1, Kind::Bomb),
            Kind::Rocket => {
                if self.hand[SMALL_JOKER] == 1 && self.hand[BIG_JOKER] == 1 {
                    let mut ranks = [0; RANKS];
                    ranks[SMALL_JOKER] = 1;
                    ranks[BIG_JOKER] = 1;
                    self.push(Kind::Rocket, SMALL_JOKER, 1, ranks);
                }
            }
            Kind::TripleWithSingle | Kind::TripleWithPair => {
                let kicker_size = if kind == Kind::TripleWithSingle { 1 } else { 2 };
                for triple in first..=TWO {
                    if self.hand[triple] < 3 {
                        continue;
                    }
                    for kicker in 0..RANKS {
                        if kicker != triple && self.hand[kicker] >= kicker_size {
                            let mut ranks = [0; RANKS];
                            ranks[triple] = 3;
                            ranks[kicker] = kicker_size;
                            self.push(kind, triple, 1, ranks);
                        }
                    }
                }
            }
            Kind::Straight => self.chains(1, length, first),
            Kind::PairStraight => self.chains(2, length, first),
            Kind::TripleStraight => self.chains(3, length, first),
            Kind::AirplaneWithSingles => self.airplanes_with_singles(length, first),
            Kind::AirplaneWithPairs => self.airplanes_with_pairs(length, first),
            Kind::FourWithTwoSingles => self.fours_with_two_singles(first),
            Kind::FourWithTwoPairs => self.fours_with_two_pairs(first),
        }
    }

    fn sets_of(&mut self, size: u8, first: usize, end: usize, kind: Kind) {
        for rank in first..end {
            let enough = if kind == Kind::Bomb {
                self.hand[rank] == 4
            } else {
                self.hand[rank] >= size
            };
            if enough {
                let mut ranks = [0; RANKS];
                ranks[rank] = size;
                self.push(kind, rank, 1, ranks);
            }
        }
    }

    /// Start ranks (at least `first`) of every run of `length` ranks within 3..A that
    /// each hold at least `width` cards.
    fn chain_starts(&self, width: u8, length: usize, first: usize) -> Vec<usize> {
        let mut starts = Vec::new();
        let mut run = 0;
        for rank in 0..=ACE {
            run = if self.hand[rank] >= width { run + 1 } else { 0 };
            if run >= length && rank + 1 - length >= first {
                starts.push(rank + 1 - length);
            }
        }
        starts
    }

    fn chains(&mut self, width: u8, length: usize, first: usize) {
        let kind = match width {
            1 => Kind::Straight,
            2 => Kind::PairStraight,
            _ => Kind::TripleStraight,
        };
        for start in self.chain_starts(width, length, first) {
            let mut ranks = [0; RANKS];
            ranks[start..start + length].fill(width);
            self.push(kind, start, length, ranks);
        }
    }

    fn airplanes_with_singles(&mut self, length: usize, first: usize) {
        for start in self.chain_starts(3, length, first) {
            let end = start + length;
            // How many cards of each rank may go in the wings.
            let mut caps = [0u8; RANKS];
            for (rank, cap) in caps.iter_mut().enumerate() {
                if !(start..end).contains(&rank) {
                    *cap = self.hand[rank].min(3);
                }
            }
            // A triple next to the chain would extend it: not a wing.
            if start > 0 {
                caps[start - 1] = caps[start - 1].min(2);
            }
            if end <= ACE {
                caps[end] = caps[end].min(2);
            }
            let mut body = [0u8; RANKS];
            body[start..end].fill(3);
            let mut wings = Vec::new();
            multisets(&caps, length, &mut |kickers| {
                if kickers[SMALL_JOKER] == 1 && kickers[BIG_JOKER] == 1 {
                    return;
                }
                let mut ranks = body;
                for (slot, k) in ranks.iter_mut().zip(kickers) {
                    *slot += k;
                }
                wings.push(ranks);
            });
            for ranks in wings {
                self.push(Kind::AirplaneWithSingles, start, length, ranks);
            }
        }
    }

    fn airplanes_with_pairs(&mut self, length: usize, first: usize) {
        for start in self.chain_starts(3, length, first) {
            let end = start + length;
            let candidates: Vec<usize> = (0..=TWO)
                .filter(|&rank| !(start..end).contains(&rank) && self.hand[rank] >= 2)
                .collect();
            let mut body = [0u8; RANKS];
            body[start..end].fill(3);
            for pairs in subsets(&candidates, length) {
                let mut ranks = body;
                for rank in pairs {
                    ranks[rank] = 2;
                }
                self.push(Kind::AirplaneWithPairs, start, length, ranks);
            }
        }
    }

    fn fours_with_two_singles(&mut self, first: usize) {
        for four in first..=TWO {
            if self.hand[four] != 4 {
                continue;
            }
            let mut caps = [0u8; RANKS];
            for (rank, cap) in caps.iter_mut().enumerate() {
                if rank != four {
                    *cap = self.hand[rank].min(2);
                }
            }
            let mut found = Vec::new();
            multisets(&caps, 2, &mut |kickers| {
                if kickers[SMALL_JOKER] == 1 && kickers[BIG_JOKER] == 1 {
                    return;
                }
                let mut ranks = *kickers;
                ranks[four] = 4;
                found.push(ranks);
            });
            for ranks in found {
                self.push(Kind::FourWithTwoSingles, four, 1, ranks);
            }
        }
    }

    fn fours_with_two_pairs(&mut self, first: usize) {
        for four in first..=TWO {
            if self.hand[four] != 4 {
                continue;
            }
            let candidates: Vec<usize> = (0..=TWO)
                .filter(|&rank| rank != four && self.hand[rank] >= 2)
                .collect();
            for pairs in subsets(&candidates, 2) {
                let mut ranks = [0u8; RANKS];
                ranks[four] = 4;
                for rank in pairs {
                    ranks[rank] = 2;
                }
                self.push(Kind::FourWithTwoPairs, four, 1, ranks);
            }
        }
    }
}

/// Calls `visit` with every multiset of `size` cards taking at most `caps[r]` of rank `r`.
pub(crate) fn multisets(caps: &[u8; RANKS], size: usize, visit: &mut impl FnMut(&[u8; RANKS])) {
    fn go(
        caps: &[u8; RANKS],
        rank: usize,
        left: usize,
        room: usize,
        current: &mut [u8; RANKS],
        visit: &mut impl FnMut(&[u8; RANKS]),
    ) {
        if left == 0 {
            visit(current);
            return;
        }
        if rank == RANKS || room < left {
            return;
        }
        let cap = usize::from(caps[rank]);
        let room_after = room - cap;
        for take in (0..=cap.min(left)).rev() {
            if left - take > room_after {
                break;
            }
            current[rank] = take as u8;
            go(caps, rank + 1, left - take, room_after, current, visit);
        }
        current[rank] = 0;
    }
    let room = caps.iter().map(|&c| usize::from(c)).sum();
    let mut current = [0u8; RANKS];
    go(caps, 0, size, room, &mut current, visit);
}

/// Every `size`-element subset of `items`, in lexicographic order.
fn subsets(items: &[usize], size: usize) -> Vec<Vec<usize>> {
    fn go(
        items: &[usize],
        size: usize,
        from: usize,
        current: &mut Vec<usize>,
        out: &mut Vec<Vec<usize>>,
    ) {
        if current.len() == size {
            out.push(current.clone());
            return;
        }
        for i in from..items.len() {
            if items.len() - i < size - current.len() {
                break;
            }
            current.push(items[i]);
            go(items, size, i + 1, current, out);
            current.pop();
        }
    }
    let mut out = Vec::new();
    go(items, size, 0, &mut Vec::with_capacity(size), &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(plays: &[Play]) -> Vec<String> {
        plays.iter().map(|p| p.ranks.to_string()).collect()
    }

    #[test]
    fn replies_to_a_pair_are_higher_pairs_bombs_and_the_rocket() {
        let hand = RankCounts::parse("4 4 5 5 5 5 X D 9").expect("valid");
        let previous = crate::classify(&RankCounts::parse("4 4").expect("valid")).expect("pair");
        assert_eq!(texts(&replies(&hand, &previous)), ["5 5", "5 5 5 5", "X D"]);
    }
}
