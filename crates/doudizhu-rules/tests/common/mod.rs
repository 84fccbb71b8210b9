//! Helpers shared by the integration tests: a literal reading of the spec's combination
//! rules (independent of `classify`) and brute force over sub-multisets.
#![allow(dead_code)]

use doudizhu_rules::{Combination, Kind, Rank, RankCounts, classify};

pub const ACE: usize = Rank::Ace as usize;
pub const TWO: usize = Rank::Two as usize;
pub const SMALL_JOKER: usize = Rank::SmallJoker as usize;
pub const BIG_JOKER: usize = Rank::BigJoker as usize;

pub fn ranks(text: &str) -> RankCounts {
    RankCounts::parse(text).expect("valid rank text")
}

pub fn read(text: &str) -> Option<Combination> {
    classify(&ranks(text))
}

pub fn kind(text: &str) -> Option<Kind> {
    read(text).map(|c| c.kind)
}

fn combination(kind: Kind, rank: usize, length: usize) -> Combination {
    Combination {
        kind,
        rank: Rank::ALL[rank],
        length: length as u8,
    }
}

/// Every way the spec lets these cards be read: a body found in the cards, and the
/// rest checked against the kicker rules of that kind, word for word.
pub fn readings(counts: &[u8; 15]) -> Vec<Combination> {
    let n: usize = counts.iter().map(|&c| usize::from(c)).sum();
    let mut found = Vec::new();
    let both_jokers = |rest: &[u8; 15]| rest[SMALL_JOKER] == 1 && rest[BIG_JOKER] == 1;
    let without = |body: &[(usize, u8)]| -> Option<[u8; 15]> {
        let mut rest = *counts;
        for &(rank, k) in body {
            rest[rank] = rest[rank].checked_sub(k)?;
        }
        Some(rest)
    };
    let rest_len = |rest: &[u8; 15]| rest.iter().map(|&c| usize::from(c)).sum::<usize>();
    // Singles, pairs, triples, bombs, rocket.
    for (rank, &count) in counts.iter().enumerate() {
        for (size, kind) in [
            (1, Kind::Single),
            (2, Kind::Pair),
            (3, Kind::Triple),
            (4, Kind::Bomb),
        ] {
            if n == size && usize::from(count) == size && (size == 1 || rank <= TWO) {
                found.push(combination(kind, rank, 1));
            }
        }
    }
    if n == 2 && counts[SMALL_JOKER] == 1 && counts[BIG_JOKER] == 1 {
        found.push(combination(Kind::Rocket, SMALL_JOKER, 1));
    }
    // Triple with a single or a pair.
    for triple in 0..=TWO {
        let Some(rest) = without(&[(triple, 3)]) else {
            continue;
        };
        if rest[triple] != 0 {
            continue;
        }
        if n == 4 {
            found.push(combination(Kind::TripleWithSingle, triple, 1));
        }
        let pair_ranks: Vec<usize> = (0..=TWO).filter(|&r| rest[r] == 2).collect();
        if n == 5 && pair_ranks.len() == 1 {
            found.push(combination(Kind::TripleWithPair, triple, 1));
        }
    }
    // Chains: straights, pair straights, triple straights.
    for (width, min, kind) in [
        (1u8, 5, Kind::Straight),
        (2, 3, Kind::PairStraight),
        (3, 2, Kind::TripleStraight),
    ] {
        for start in 0..=ACE {
            for length in min..=(ACE + 1 - start) {
                let mut body = [0u8; 15];
                body[start..start + length].fill(width);
                if body == *counts {
                    found.push(combination(kind, start, length));
                }
            }
        }
    }
    // Airplanes.
    for start in 0..=ACE {
        for length in 2..=(ACE + 1 - start) {
            let body: Vec<(usize, u8)> = (start..start + length).map(|r| (r, 3)).collect();
            let Some(rest) = without(&body) else { continue };
            if (start..start + length).any(|r| rest[r] != 0) {
                continue;
            }
            // With singles.
            let next_to_chain = [start.checked_sub(1), Some(start + length)];
            let triple_next_to_chain = next_to_chain
                .iter()
                .flatten()
                .any(|&r| r <= ACE && rest[r] == 3);
            if rest_len(&rest) == length
                && rest.iter().all(|&c| c < 4)
                && !both_jokers(&rest)
                && !triple_next_to_chain
            {
                found.push(combination(Kind::AirplaneWithSingles, start, length));
            }
            // With pairs.
            let pairs = (0..15).filter(|&r| rest[r] == 2).count();
            if rest.iter().all(|&c| c == 0 || c == 2) && pairs == length {
                found.push(combination(Kind::AirplaneWithPairs, start, length));
            }
        }
    }
    // Four with two.
    for four in 0..=TWO {
        let Some(rest) = without(&[(four, 4)]) else {
            continue;
        };
        if n == 6 && !both_jokers(&rest) {
            found.push(combination(Kind::FourWithTwoSingles, four, 1));
        }
        let pairs = (0..15).filter(|&r| rest[r] == 2).count();
        if n == 8 && rest.iter().all(|&c| c == 0 || c == 2) && pairs == 2 {
            found.push(combination(Kind::FourWithTwoPairs, four, 1));
        }
    }
    found
}

/// Calls `visit` with every sub-multiset of `counts` (the empty one included).
pub fn sub_multisets(counts: &[u8; 15], visit: &mut impl FnMut(&[u8; 15])) {
    fn go(
        counts: &[u8; 15],
        rank: usize,
        current: &mut [u8; 15],
        visit: &mut impl FnMut(&[u8; 15]),
    ) {
        if rank == 15 {
            visit(current);
            return;
        }
        for take in 0..=counts[rank] {
            current[rank] = take;
            go(counts, rank + 1, current, visit);
        }
        current[rank] = 0;
    }
    go(counts, 0, &mut [0; 15], visit);
}

/// Every multiset of at most `max_cards` cards from one deck.
pub fn all_multisets(max_cards: usize, visit: &mut impl FnMut(&[u8; 15])) {
    fn go(rank: usize, left: usize, current: &mut [u8; 15], visit: &mut impl FnMut(&[u8; 15])) {
        if rank == 15 {
            visit(current);
            return;
        }
        let cap = if rank >= SMALL_JOKER { 1 } else { 4 };
        for take in 0..=cap.min(left) {
            current[rank] = take as u8;
            go(rank + 1, left - take, current, visit);
        }
        current[rank] = 0;
    }
    go(0, max_cards, &mut [0; 15], visit);
}

pub fn counts(ranks: &RankCounts) -> [u8; 15] {
    *ranks.counts()
}

pub fn from_counts(counts: &[u8; 15]) -> RankCounts {
    RankCounts::from_counts(*counts).expect("counts within one deck")
}
