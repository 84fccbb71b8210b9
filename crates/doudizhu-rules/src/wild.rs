//! Wild cards (癞子) of the `laizi` rule set: what a play with wild cards can mean, which
//! bombs beat which, and every legal play of a hand holding wild cards.
//!
//! The rules of docs/rules.md (SPEC section 8), in one place:
//! - a wild card is played as itself or stands for any rank 3..2, never a joker, so it can
//!   complete any combination, kickers included; what the cards stand for (`meant`) is
//!   read by [`classify`], so every kicker rule of [`crate::combination`] applies to it;
//! - a play made only of wild cards reads at face value: a single, pair or triple of the
//!   wild rank, and four alone are the wild bomb (纯癞子炸弹), nothing else;
//! - a bomb of four real cards is hard (硬炸弹), one with one to three wilds standing in is
//!   soft (软炸弹); rocket > wild bomb > hard bombs > soft bombs, by rank within hard and
//!   within soft, and two soft bombs of one rank do not beat each other;
//! - a reading is kind, main rank, length and bomb class: readings that differ only in
//!   what wild kickers stand for are one reading.
//!
//! Generation ([`wild_plays`]) builds each reading's body from the hand's real cards with
//! wilds making up the shortfall, then its kickers from the real cards left, where a wild
//! kicker stands for a rank nothing else in the play uses (which can break no kicker rule
//! that the real cards keep). Every candidate is confirmed by [`classify`] on its `meant`.
//! Given the reading, the real cards of body ranks are the body and the rest are kickers,
//! so each (cards, reading) is built once and no set is needed to deduplicate. A property
//! test checks the result against brute force over every sub-multiset and substitution.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::card::Rank;
use crate::combination::{Combination, Kind, classify};
use crate::moves::multisets;
use crate::ranks::RankCounts;

/// How a bomb is made in a laizi deal. Order among bombs: rocket > Wild > Hard > Soft.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BombClass {
    /// 软炸弹: one to three wild cards stand in.
    Soft,
    /// 硬炸弹: four real cards of a rank other than the wild rank.
    Hard,
    /// 纯癞子炸弹: the four wild cards played alone.
    Wild,
}

impl BombClass {
    /// The class's name in the judge and in events: `soft`, `hard`, `wild`.
    pub fn name(self) -> &'static str {
        match self {
            BombClass::Soft => "soft",
            BombClass::Hard => "hard",
            BombClass::Wild => "wild",
        }
    }
}

/// One reading of a play: kind, main rank, length and, for a bomb in a laizi deal, its class.
/// Classic deals use `bomb: None` (a classic bomb is its own class).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Reading {
    pub combination: Combination,
    /// Set only for a bomb of a laizi deal; a classic bomb compares as a hard one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bomb: Option<BombClass>,
}

impl Reading {
    /// The reading of a classic play (`bomb: None`).
    pub fn classic(combination: Combination) -> Reading {
        Reading {
            combination,
            bomb: None,
        }
    }

    /// Whether `self` may be played on `previous`. Classic readings (bomb `None`) compare
    /// exactly as [`Combination::beats`]. Laizi bombs: rocket > wild bomb > every hard bomb >
    /// every soft bomb; within hard, or within soft, by rank; two soft bombs of one rank do
    /// not beat each other. Non-bombs as classic: same kind, same length, higher rank.
    pub fn beats(&self, previous: &Reading) -> bool {
        match (self.bomb_strength(), previous.bomb_strength()) {
            (Some(mine), Some(theirs)) => mine > theirs,
            (Some(_), None) => true,
            (None, Some(_)) => false,
            (None, None) => self.combination.beats(&previous.combination),
        }
    }

    /// The factor this play applies to the deal's multiplier: the rocket, a classic bomb
    /// and a soft bomb double it, a hard or wild bomb quadruples it, anything else keeps it.
    pub fn multiplier_factor(&self) -> u64 {
        match (self.combination.kind, self.bomb) {
            (Kind::Rocket, _) | (Kind::Bomb, None | Some(BombClass::Soft)) => 2,
            (Kind::Bomb, Some(BombClass::Hard | BombClass::Wild)) => 4,
            _ => 1,
        }
    }

    /// Where a bomb or the rocket stands in the order of bombs (`None` for anything else):
    /// soft < hard (and classic) < wild < rocket, then by rank.
    fn bomb_strength(&self) -> Option<(u8, Rank)> {
        let combination = self.combination;
        debug_assert!(self.bomb.is_none() || combination.kind == Kind::Bomb);
        let class = match (combination.kind, self.bomb) {
            (Kind::Bomb, Some(BombClass::Soft)) => 1,
            (Kind::Bomb, None | Some(BombClass::Hard)) => 2,
            (Kind::Bomb, Some(BombClass::Wild)) => 3,
            (Kind::Rocket, _) => 4,
            _ => return None,
        };
        Some((class, combination.rank))
    }
}

/// A play in a laizi deal: the cards played (as ranks; wild cards counted under the wild
/// rank), what they stand for (`meant`, same length; non-wild cards stand for themselves,
/// jokers for themselves, each wild card for any rank 3..2), and the reading.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct WildPlay {
    pub cards: RankCounts,
    /// One multiset the cards can stand for with this reading; wild kickers could stand
    /// for other ranks without changing the reading.
    pub meant: RankCounts,
    pub reading: Reading,
}

/// Why a stated reading of some cards is refused. Messages name no card.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
pub enum ReadingError {
    /// `meant` is not what these cards can stand for: another real card, a wild standing
    /// for a joker, another card count, or all-wild cards read other than at face value.
    #[error("the cards cannot stand for the stated ranks")]
    NotReachable,
    /// What the cards stand for is no combination.
    #[error("the stated ranks are not a combination")]
    NotACombination,
}

const ACE: usize = Rank::Ace as usize;
const TWO: usize = Rank::Two as usize;
const SMALL_JOKER: usize = Rank::SmallJoker as usize;
const BIG_JOKER: usize = Rank::BigJoker as usize;
const RANKS: usize = Rank::COUNT;

/// Every distinct reading `cards` allow under `wild` (each once, with one representative
/// `meant`, preferring wild cards standing for themselves), sorted by reading; empty if none.
///
/// Tries every substitution of the wild cards (at most 1,820 for four wilds).
///
/// # Panics
/// If `wild` is a joker (the wild rank is drawn from 3..2).
pub fn readings(cards: &RankCounts, wild: Rank) -> Vec<WildPlay> {
    assert!(!wild.is_joker(), "the wild rank is never a joker");
    let (real, wilds) = split(cards, wild);
    if cards.is_empty() {
        return Vec::new();
    }
    if real.is_empty() {
        return vec![face_value(wild, wilds)];
    }
    let mut found: BTreeMap<Reading, RankCounts> = BTreeMap::new();
    let order = stand_in_order(wild);
    substitutions(&order, usize::from(wilds), &mut |stand_ins| {
        let mut meant = *real.counts();
        for (slot, &n) in meant.iter_mut().zip(stand_ins) {
            *slot += n;
        }
        let Some(meant) = RankCounts::from_counts(meant) else {
            return;
        };
        if let Some(combination) = classify(&meant) {
            let reading = laizi_reading(combination, stand_ins.iter().sum::<u8>() > 0);
            found.entry(reading).or_insert(meant);
        }
    });
    found
        .into_iter()
        .map(|(reading, meant)| WildPlay {
            cards: *cards,
            meant,
            reading,
        })
        .collect()
}

/// Checks a stated reading: `meant` must be reachable from `cards` by letting the wild
/// cards stand for ranks 3..2 (all-wild cards only at face value) and be a combination;
/// returns its reading.
///
/// # Panics
/// If `wild` is a joker.
pub fn read_as(
    cards: &RankCounts,
    wild: Rank,
    meant: &RankCounts,
) -> Result<Reading, ReadingError> {
    assert!(!wild.is_joker(), "the wild rank is never a joker");
    let (real, wilds) = split(cards, wild);
    let stand_ins = meant.checked_sub(&real).ok_or(ReadingError::NotReachable)?;
    let stands_for_joker =
        stand_ins.count(Rank::SmallJoker) > 0 || stand_ins.count(Rank::BigJoker) > 0;
    if stand_ins.len() != usize::from(wilds) || stands_for_joker {
        return Err(ReadingError::NotReachable);
    }
    if real.is_empty() {
        if meant != cards {
            return Err(ReadingError::NotReachable);
        }
        return Ok(face_value(wild, wilds).reading);
    }
    let combination = classify(meant).ok_or(ReadingError::NotACombination)?;
    Ok(laizi_reading(combination, !stand_ins.is_empty()))
}

/// Every legal play from `hand` under `wild`: the leads when `previous` is `None`, else the
/// plays that beat `previous` (passing not included). Complete, each (cards, reading) once,
/// listed kind by kind in the order of [`Kind::ALL`].
///
/// # Panics
/// If `wild` is a joker.
pub fn wild_plays(hand: &RankCounts, wild: Rank, previous: Option<&Reading>) -> Vec<WildPlay> {
    assert!(!wild.is_joker(), "the wild rank is never a joker");
    let mut generator = Generator::new(hand, wild, previous);
    match previous.map(|p| p.combination) {
        None => {
            for kind in Kind::ALL {
                for length in lengths(kind) {
                    generator.kind(kind, length, 0);
                }
            }
        }
        Some(previous) => {
            match previous.kind {
                Kind::Rocket => {}
                Kind::Bomb => generator.kind(Kind::Bomb, 1, 0),
                kind => {
                    let first = previous.rank.index() + 1;
                    generator.kind(kind, usize::from(previous.length), first);
                    generator.kind(Kind::Bomb, 1, 0);
                }
            }
            generator.kind(Kind::Rocket, 1, 0);
        }
    }
    generator.plays
}

/// The real cards of `cards` and how many wild cards it holds.
fn split(cards: &RankCounts, wild: Rank) -> (RankCounts, u8) {
    let wilds = cards.count(wild);
    let mut real = *cards.counts();
    real[wild.index()] = 0;
    let real = RankCounts::from_counts(real).expect("fewer cards than a valid multiset");
    (real, wilds)
}

/// The reading of a play with real cards: a bomb is soft when a wild stands in.
fn laizi_reading(combination: Combination, wild_stands_in: bool) -> Reading {
    let bomb = (combination.kind == Kind::Bomb).then_some(if wild_stands_in {
        BombClass::Soft
    } else {
        BombClass::Hard
    });
    Reading { combination, bomb }
}

/// The one reading of `wilds` (1..=4) wild cards played alone.
fn face_value(wild: Rank, wilds: u8) -> WildPlay {
    debug_assert!((1..=4).contains(&wilds));
    let mut counts = [0u8; RANKS];
    counts[wild.index()] = wilds;
    let cards = RankCounts::from_counts(counts).expect("at most four wild cards");
    let combination = classify(&cards).expect("one to four of a rank is a combination");
    let bomb = (wilds == 4).then_some(BombClass::Wild);
    WildPlay {
        cards,
        meant: cards,
        reading: Reading { combination, bomb },
    }
}

/// The ranks a wild card may stand for, the wild rank itself first, so representatives
/// keep wild cards at face value where the reading allows.
fn stand_in_order(wild: Rank) -> Vec<usize> {
    let wild = wild.index();
    std::iter::once(wild)
        .chain((0..=TWO).filter(|&rank| rank != wild))
        .collect()
}

/// Calls `visit` with every multiset of `size` ranks from `order` (as counts), in the
/// order's lexicographic order.
fn substitutions(order: &[usize], size: usize, visit: &mut impl FnMut(&[u8; RANKS])) {
    fn go(
        order: &[usize],
        left: usize,
        current: &mut [u8; RANKS],
        visit: &mut impl FnMut(&[u8; RANKS]),
    ) {
        if left == 0 {
            visit(current);
            return;
        }
        for (i, &rank) in order.iter().enumerate() {
            current[rank] += 1;
            go(&order[i..], left - 1, current, visit);
            current[rank] -= 1;
        }
    }
    go(order, size, &mut [0; RANKS], visit);
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

/// What a body carries.
#[derive(Debug, Clone, Copy)]
enum Kickers {
    Nothing,
    Singles(usize),
    Pairs(usize),
}

struct Generator<'a> {
    /// The hand's real cards (no card of the wild rank: those are the wilds).
    real: [u8; RANKS],
    /// How many wild cards the hand holds.
    wilds: u8,
    wild: usize,
    /// Ranks a wild may stand for, the wild rank first.
    stand_in_order: Vec<usize>,
    total: usize,
    previous: Option<&'a Reading>,
    plays: Vec<WildPlay>,
}

impl<'a> Generator<'a> {
    fn new(hand: &RankCounts, wild: Rank, previous: Option<&'a Reading>) -> Generator<'a> {
        let (real, wilds) = split(hand, wild);
        Generator {
            real: *real.counts(),
            wilds,
            wild: wild.index(),
            stand_in_order: stand_in_order(wild),
            total: hand.len(),
            previous,
            plays: Vec::new(),
        }
    }

    /// Plays of one kind and length whose main rank is at least `first`.
    fn kind(&mut self, kind: Kind, length: usize, first: usize) {
        if kind.card_count(length as u8) > self.total {
            return;
        }
        // Chains the wilds can complete (most starts of long chains are out of reach).
        let chain_starts = |generator: &Generator<'_>, width: u8| {
            let (real, wilds) = (generator.real, usize::from(generator.wilds));
            (first..(ACE + 2).saturating_sub(length)).filter(move |&start| {
                let missing = real[start..start + length]
                    .iter()
                    .map(|&n| usize::from(width.saturating_sub(n)))
                    .sum::<usize>();
                missing <= wilds
            })
        };
        match kind {
            Kind::Rocket => {
                if self.real[SMALL_JOKER] == 1 && self.real[BIG_JOKER] == 1 {
                    let mut ranks = [0; RANKS];
                    ranks[SMALL_JOKER] = 1;
                    ranks[BIG_JOKER] = 1;
                    let rocket = Combination::new(Kind::Rocket, SMALL_JOKER, 1);
                    self.confirm(ranks, 0, ranks, rocket);
                }
            }
            Kind::Single | Kind::Pair | Kind::Triple | Kind::Bomb => {
                let size = kind.card_count(1);
                let end = if kind == Kind::Single { RANKS } else { TWO + 1 };
                for rank in first..end {
                    self.body(kind, rank, &[(rank, size as u8)], Kickers::Nothing);
                }
                if usize::from(self.wilds) >= size {
                    let play = face_value(Rank::ALL[self.wild], size as u8);
                    self.emit(play);
                }
            }
            Kind::TripleWithSingle | Kind::TripleWithPair => {
                let kickers = if kind == Kind::TripleWithSingle {
                    Kickers::Singles(1)
                } else {
                    Kickers::Pairs(1)
                };
                for rank in first..=TWO {
                    self.body(kind, rank, &[(rank, 3)], kickers);
                }
            }
            Kind::FourWithTwoSingles | Kind::FourWithTwoPairs => {
                let kickers = if kind == Kind::FourWithTwoSingles {
                    Kickers::Singles(2)
                } else {
                    Kickers::Pairs(2)
                };
                for rank in first..=TWO {
                    self.body(kind, rank, &[(rank, 4)], kickers);
                }
            }
            Kind::Straight | Kind::PairStraight | Kind::TripleStraight => {
                let width = match kind {
                    Kind::Straight => 1,
                    Kind::PairStraight => 2,
                    _ => 3,
                };
                for start in chain_starts(self, width) {
                    let body = chain(start, length, width);
                    self.body(kind, start, &body[..length], Kickers::Nothing);
                }
            }
            Kind::AirplaneWithSingles | Kind::AirplaneWithPairs => {
                let kickers = if kind == Kind::AirplaneWithSingles {
                    Kickers::Singles(length)
                } else {
                    Kickers::Pairs(length)
                };
                for start in chain_starts(self, 3) {
                    let body = chain(start, length, 3);
                    self.body(kind, start, &body[..length], kickers);
                }
            }
        }
    }

    /// Every play with this body (rank, count pairs; `rank` is the main rank) and kickers:
    /// each choice of real body cards, wilds making up the rest, then each set of kickers.
    fn body(&mut self, kind: Kind, rank: usize, body: &[(usize, u8)], kickers: Kickers) {
        let length = if body.len() > 1 { body.len() } else { 1 };
        let combination = Combination::new(kind, rank, length);
        let shortfall: usize = body
            .iter()
            .map(|&(r, n)| {
                let missing = n.saturating_sub(self.real[r]);
                // A wild never stands for a joker.
                if r > TWO && missing > 0 {
                    99
                } else {
                    usize::from(missing)
                }
            })
            .sum();
        if shortfall > usize::from(self.wilds) {
            return;
        }
        let mut counts = [0u8; RANKS];
        for &(r, n) in body {
            counts[r] = n;
        }
        let (real, wilds) = (self.real, self.wilds);
        body_parts(body, &real, wilds, &mut |part, stand_ins| {
            let budget = wilds - stand_ins;
            match kickers {
                Kickers::Nothing => self.confirm(*part, stand_ins, counts, combination),
                Kickers::Singles(size) => {
                    self.singles(combination, &counts, part, stand_ins, size, budget)
                }
                Kickers::Pairs(size) => {
                    self.pairs(combination, &counts, part, stand_ins, size, budget)
                }
            }
        });
    }

    /// Single kickers: `size - v` real cards of ranks the body does not use and `v <= budget`
    /// wilds, each standing for a rank nothing else in the play uses.
    fn singles(
        &mut self,
        combination: Combination,
        body: &[u8; RANKS],
        part: &[u8; RANKS],
        stand_ins: u8,
        size: usize,
        budget: u8,
    ) {
        let mut caps = [0u8; RANKS];
        for (rank, cap) in caps.iter_mut().enumerate() {
            if body[rank] == 0 {
                *cap = self.real[rank].min(size as u8);
            }
        }
        for wild_kickers in 0..=size.min(usize::from(budget)) {
            multisets(&caps, size - wild_kickers, &mut |kickers| {
                let mut meant = *body;
                let mut cards = *part;
                for rank in 0..RANKS {
                    meant[rank] += kickers[rank];
                    cards[rank] += kickers[rank];
                }
                let mut left = wild_kickers;
                for &rank in &self.stand_in_order {
                    if left == 0 {
                        break;
                    }
                    if meant[rank] == 0 {
                        meant[rank] = 1;
                        left -= 1;
                    }
                }
                debug_assert_eq!(left, 0, "a 20-card play always leaves a free rank");
                self.confirm(cards, stand_ins + wild_kickers as u8, meant, combination);
            });
        }
    }

    /// Pair kickers of distinct ranks the body does not use: each anchored on one or two
    /// real cards (a wild completing a lone one), or made of two wilds standing for a rank
    /// nothing else in the play uses; at most `budget` wilds in all.
    fn pairs(
        &mut self,
        combination: Combination,
        body: &[u8; RANKS],
        part: &[u8; RANKS],
        stand_ins: u8,
        size: usize,
        budget: u8,
    ) {
        let anchors: Vec<usize> = (0..=TWO)
            .filter(|&rank| body[rank] == 0 && self.real[rank] > 0)
            .collect();
        for wild_pairs in 0..=size.min(usize::from(budget) / 2) {
            let budget = budget - 2 * wild_pairs as u8;
            for_each_subset(&anchors, size - wild_pairs, &mut |chosen| {
                // How many real cards each anchored pair takes: 2 where possible, then 1.
                let mut real_in_pair: Vec<u8> =
                    chosen.iter().map(|&rank| self.real[rank].min(2)).collect();
                loop {
                    let completing: u8 = real_in_pair.iter().map(|&n| 2 - n).sum();
                    if completing <= budget {
                        let mut meant = *body;
                        let mut cards = *part;
                        for (&rank, &n) in chosen.iter().zip(&real_in_pair) {
                            meant[rank] = 2;
                            cards[rank] += n;
                        }
                        let mut left = wild_pairs;
                        for &rank in &self.stand_in_order {
                            if left == 0 {
                                break;
                            }
                            if meant[rank] == 0 {
                                meant[rank] = 2;
                                left -= 1;
                            }
                        }
                        debug_assert_eq!(left, 0, "a 20-card play always leaves a free rank");
                        let wilds = stand_ins + completing + 2 * wild_pairs as u8;
                        self.confirm(cards, wilds, meant, combination);
                    }
                    // Next choice: count down like an odometer, each digit from its most to 1.
                    let Some(i) = real_in_pair.iter().rposition(|&n| n > 1) else {
                        break;
                    };
                    real_in_pair[i] -= 1;
                    for (j, &rank) in chosen.iter().enumerate().skip(i + 1) {
                        real_in_pair[j] = self.real[rank].min(2);
                    }
                }
            });
        }
    }

    /// Emits the play of real cards `real` and `wilds` wild cards, if it has a real card
    /// (all-wild plays read at face value) and `meant` reads as `combination`.
    fn confirm(
        &mut self,
        real: [u8; RANKS],
        wilds: u8,
        meant: [u8; RANKS],
        combination: Combination,
    ) {
        debug_assert_eq!(real[self.wild], 0);
        if real.iter().all(|&n| n == 0) {
            return;
        }
        let Some(meant) = RankCounts::from_counts(meant) else {
            return;
        };
        if classify(&meant) != Some(combination) {
            return;
        }
        let mut cards = real;
        cards[self.wild] = wilds;
        let cards = RankCounts::from_counts(cards).expect("generated plays come from the hand");
        debug_assert_eq!(cards.len(), meant.len());
        let reading = laizi_reading(combination, wilds > 0 && combination.kind == Kind::Bomb);
        self.emit(WildPlay {
            cards,
            meant,
            reading,
        });
    }

    fn emit(&mut self, play: WildPlay) {
        if self.previous.is_none_or(|p| play.reading.beats(p)) {
            self.plays.push(play);
        }
    }
}

/// The body of a chain: `width` cards of each of `length` ranks from `start` (the first
/// `length` entries; a chain has at most 12 ranks).
fn chain(start: usize, length: usize, width: u8) -> [(usize, u8); ACE + 1] {
    debug_assert!(start + length <= ACE + 1);
    let mut body = [(0, 0); ACE + 1];
    for (i, slot) in body.iter_mut().take(length).enumerate() {
        *slot = (start + i, width);
    }
    body
}

/// Calls `visit` with every way to take real cards for a body (`part`, counts) with at most
/// `budget` wilds standing in for the rest (`stand_ins`), most real cards first. Wilds never
/// stand for jokers.
fn body_parts(
    body: &[(usize, u8)],
    real: &[u8; RANKS],
    budget: u8,
    visit: &mut impl FnMut(&[u8; RANKS], u8),
) {
    fn go(
        body: &[(usize, u8)],
        real: &[u8; RANKS],
        budget: u8,
        stand_ins: u8,
        part: &mut [u8; RANKS],
        visit: &mut impl FnMut(&[u8; RANKS], u8),
    ) {
        let Some((&(rank, needed), rest)) = body.split_first() else {
            visit(part, stand_ins);
            return;
        };
        let most = needed.min(real[rank]);
        for take in (0..=most).rev() {
            let short = needed - take;
            if short > budget || (short > 0 && rank > TWO) {
                break;
            }
            part[rank] = take;
            go(rest, real, budget - short, stand_ins + short, part, visit);
        }
        part[rank] = 0;
    }
    go(body, real, budget, 0, &mut [0; RANKS], visit);
}

/// Calls `visit` with every `size`-element subset of `items`, in lexicographic order.
fn for_each_subset(items: &[usize], size: usize, visit: &mut impl FnMut(&[usize])) {
    fn go(
        items: &[usize],
        size: usize,
        current: &mut Vec<usize>,
        visit: &mut impl FnMut(&[usize]),
    ) {
        if current.len() == size {
            visit(current);
            return;
        }
        let needed = size - current.len();
        for i in 0..items.len() {
            if items.len() - i < needed {
                break;
            }
            current.push(items[i]);
            go(&items[i + 1..], size, current, visit);
            current.pop();
        }
    }
    go(items, size, &mut Vec::with_capacity(size), visit);
}

#[cfg(test)]
mod tests {
    use super::*;

    const SEVEN: Rank = Rank::Seven;

    fn ranks(text: &str) -> RankCounts {
        RankCounts::parse(text).expect("valid rank text")
    }

    /// The readings of `cards` under wild 7, as `kind rank xlength class` strings.
    fn read(cards: &str) -> Vec<String> {
        readings(&ranks(cards), SEVEN)
            .iter()
            .map(|play| describe(&play.reading))
            .collect()
    }

    fn describe(reading: &Reading) -> String {
        let c = reading.combination;
        let mut text = format!("{} {} x{}", c.kind, c.rank, c.length);
        if let Some(class) = reading.bomb {
            text += &format!(" {}", class.name());
        }
        text
    }

    #[test]
    fn a_wild_beside_a_real_card_makes_the_pair() {
        assert_eq!(read("3 7"), ["pair 3 x1"]);
    }

    #[test]
    fn wild_cards_alone_read_at_face_value() {
        assert_eq!(read("7"), ["single 7 x1"]);
        assert_eq!(read("7 7"), ["pair 7 x1"]);
        assert_eq!(read("7 7 7"), ["triple 7 x1"]);
        assert_eq!(read("7 7 7 7"), ["bomb 7 x1 wild"]);
    }

    #[test]
    fn three_of_a_rank_and_a_wild_are_a_soft_bomb_or_a_triple_with_a_single() {
        assert_eq!(read("5 5 5 7"), ["triple_single 5 x1", "bomb 5 x1 soft"]);
        let plays = readings(&ranks("5 5 5 7"), SEVEN);
        // The kicker wild stands for itself in the representative.
        assert_eq!(plays[0].meant, ranks("5 5 5 7"));
        assert_eq!(plays[1].meant, ranks("5 5 5 5"));
    }

    #[test]
    fn four_real_cards_are_a_hard_bomb() {
        assert_eq!(read("5 5 5 5"), ["bomb 5 x1 hard"]);
    }

    #[test]
    fn a_wild_in_a_straight_stands_only_where_the_straight_needs_it() {
        // 3 4 5 6 + W: the W as 7 (itself) makes 3..7; as 2 or anything else nothing.
        assert_eq!(read("3 4 5 6 7"), ["straight 3 x5"]);
        // 4 5 6 8 + W: the W fills the gap at 7 only.
        assert_eq!(read("4 5 6 7 8"), ["straight 4 x5"]);
        // 4 5 6 8 9 + W: the W as 7 fills the gap (and nothing lengthens the straight).
        assert_eq!(read("4 5 6 7 8 9"), ["straight 4 x6"]);
        // 9 T J Q + W: the W ends the straight below (8) or above (K).
        assert_eq!(read("9 T J Q 7"), ["straight 8 x5", "straight 9 x5"]);
    }

    #[test]
    fn read_as_checks_what_the_cards_can_stand_for() {
        let cards = ranks("5 5 5 7");
        let soft = read_as(&cards, SEVEN, &ranks("5 5 5 5")).expect("reachable");
        assert_eq!(soft.bomb, Some(BombClass::Soft));
        let triple = read_as(&cards, SEVEN, &ranks("5 5 5 K")).expect("reachable");
        assert_eq!(triple.combination.kind, Kind::TripleWithSingle);
        assert_eq!(
            read_as(&cards, SEVEN, &ranks("5 5 6 6")),
            Err(ReadingError::NotReachable)
        );
        assert_eq!(
            read_as(&cards, SEVEN, &ranks("5 5 5 X")),
            Err(ReadingError::NotReachable)
        );
        assert_eq!(
            read_as(&ranks("3 7"), SEVEN, &ranks("3 7")),
            Err(ReadingError::NotACombination)
        );
        assert_eq!(
            read_as(&ranks("7 7"), SEVEN, &ranks("3 3")),
            Err(ReadingError::NotReachable)
        );
    }

    #[test]
    fn soft_bombs_of_one_rank_do_not_beat_each_other() {
        let three_and_wild = read_as(&ranks("3 3 3 7"), SEVEN, &ranks("3333")).expect("soft");
        let one_and_wilds = read_as(&ranks("3 7 7 7"), SEVEN, &ranks("3333")).expect("soft");
        assert_eq!(three_and_wild, one_and_wilds);
        assert!(!three_and_wild.beats(&one_and_wilds));
        assert!(!one_and_wilds.beats(&three_and_wild));
    }

    #[test]
    fn leads_of_a_small_hand_with_a_wild() {
        let plays = wild_plays(&ranks("3 7"), SEVEN, None);
        let found: Vec<String> = plays
            .iter()
            .map(|p| format!("{} = {}", p.cards, describe(&p.reading)))
            .collect();
        assert_eq!(
            found,
            ["3 = single 3 x1", "7 = single 7 x1", "3 7 = pair 3 x1"]
        );
    }
}
