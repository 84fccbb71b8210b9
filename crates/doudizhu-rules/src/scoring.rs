//! Scoring (积分): points per seat when a deal ends, for every rule set. One rule, here:
//!
//! - base = the winning bid × the room's points base in `classic`; the room's points base
//!   alone in `rob` and `laizi` (nothing is bid);
//! - multiplier starts at 1 and doubles for each rob (抢地主) and for showing the hand
//!   (明牌); each bomb or rocket played (kept ones do not count) multiplies it by its
//!   factor: 2 for the rocket and a bomb of `classic` or `rob`; in `laizi` 2 for a soft
//!   bomb (软炸弹), 4 for a hard bomb (硬炸弹) or the wild bomb (纯癞子炸弹); it doubles
//!   again for a spring (春天: the landlord played out and no farmer played a card) or
//!   an anti-spring (反春: a farmer played out and the landlord played only its opening
//!   play);
//! - farmer i wins or loses base × multiplier × d_i × d_landlord against the landlord,
//!   where d = 2 for a seat that doubled (加倍) and 1 otherwise (always 1 in `classic`);
//!   the landlord gets the opposite of the two farmers' sum. Always zero-sum. In
//!   `classic` this is the familiar landlord ±2 × base × multiplier, farmers ∓ base ×
//!   multiplier.
//! - escape (逃跑): the escaper loses base × multiplier at the time × 3 (doubles not
//!   counted), or 3 points if nobody had bid (`classic`) or called (`rob`, `laizi`) yet
//!   (docs/rules.md#leaving-a-deal: a flat 3, not a multiple of the points base: with
//!   no bid there is no base); the others get 0 (the deal is void for them).

use serde::{Deserialize, Serialize};

use crate::bidding::Bid;
use crate::rule_set::RuleSet;
use crate::seat::Seat;

/// How a deal ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "type")]
pub enum Outcome {
    /// The landlord emptied its hand first.
    LandlordWon,
    /// A farmer (农民) emptied its hand first.
    FarmersWon { seat: Seat },
    /// Everyone passed in bidding (or nobody called): deal again, with the next first
    /// bidder.
    Redeal,
    /// A seat left mid-deal.
    Escaped { seat: Seat },
}

/// The points of a finished deal and how they came about.
///
/// The fields after `multiplier` came with the `rob` and `laizi` rule sets; a settlement
/// stored before reads with their defaults (a `classic` deal).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Settlement {
    pub outcome: Outcome,
    /// Points per seat (index = seat number). Zero-sum except after an escape.
    pub points: [i64; 3],
    pub landlord: Option<Seat>,
    /// The winning bid, or the highest bid so far for an escape during bidding; 0 in
    /// `rob` and `laizi`.
    pub bid: u8,
    /// Bombs played (rockets not included): every bomb in `classic` and `rob`, the hard
    /// bombs (硬炸弹) in `laizi`.
    pub bombs: u8,
    /// Rockets played (0 or 1).
    pub rockets: u8,
    pub spring: bool,
    pub anti_spring: bool,
    /// The whole factor applied to base (before each seat's doubles): 2^robs, × 2 if the
    /// landlord showed its hand, × each bomb's and the rocket's factor, × 2 for a spring
    /// or an anti-spring.
    pub multiplier: u64,
    #[serde(default)]
    pub rule_set: RuleSet,
    /// Robs (抢地主) in the auction.
    #[serde(default)]
    pub robs: u8,
    /// Which seats doubled (加倍), seat 0, 1, 2.
    #[serde(default)]
    pub doubled: [bool; 3],
    /// Whether the landlord showed its hand (明牌).
    #[serde(default)]
    pub shown: bool,
    /// Soft bombs (软炸弹: one to three wilds) played, in `laizi`.
    #[serde(default)]
    pub soft_bombs: u8,
    /// Wild bombs (纯癞子炸弹: four wilds) played, in `laizi`.
    #[serde(default)]
    pub wild_bombs: u8,
}

/// What a deal's rule set adds to the stakes of `classic`: the auction's robs, the
/// doubles, the shown hand, the soft and wild bombs of `laizi`. [`Stakes::default`] is a
/// `classic` deal, which adds nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Stakes {
    pub rule_set: RuleSet,
    pub robs: u8,
    /// Which seats doubled (加倍), seat 0, 1, 2.
    pub doubled: [bool; 3],
    pub shown: bool,
    pub soft_bombs: u8,
    pub wild_bombs: u8,
}

/// What scoring a played-out deal needs to know (with [`Stakes`] beyond `classic`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PlayedOut {
    pub points_base: u32,
    pub landlord: Seat,
    /// The winning bid; ignored in `rob` and `laizi`.
    pub bid: Bid,
    /// The seat that emptied its hand.
    pub winner: Seat,
    /// Bombs played: every bomb in `classic` and `rob`, the hard bombs in `laizi`.
    pub bombs: u8,
    pub rockets: u8,
    /// Plays (not passes) the landlord made.
    pub landlord_plays: u32,
    /// Cards the two farmers played, together.
    pub farmer_cards_played: u32,
}

/// What scoring an escape needs to know (with [`Stakes`] beyond `classic`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Escape {
    pub points_base: u32,
    pub escaper: Seat,
    pub landlord: Option<Seat>,
    /// `classic`: the winning bid, or the highest so far while bidding (`None` or a pass
    /// if nobody had bid).
    pub bid: Option<Bid>,
    /// `rob` and `laizi`: whether a seat had called (叫地主).
    pub called: bool,
    pub bombs: u8,
    pub rockets: u8,
}

/// Amounts stop growing here (far beyond any silver cap, and out of reach in play): a
/// farmer's amount stays below `i64::MAX / 2`, so the landlord's sum cannot overflow.
const MAX_UNIT: i64 = i64::MAX / 16;

/// 2^(bombs + rockets): the `classic` multiplier before spring.
pub fn bomb_multiplier(bombs: u8, rockets: u8) -> u64 {
    1u64 << (u32::from(bombs) + u32::from(rockets)).min(62)
}

/// The multiplier of a deal so far (spring not included): 2^robs, × 2 if shown, × the
/// factor of each bomb and rocket played. `bombs` are the `classic` and `rob` bombs, or
/// the hard bombs of `laizi`.
pub fn multiplier(stakes: &Stakes, bombs: u8, rockets: u8) -> u64 {
    let bomb_doublings = if stakes.rule_set.has_wilds() { 2 } else { 1 };
    let doublings = u32::from(stakes.robs)
        + u32::from(stakes.shown)
        + u32::from(rockets)
        + u32::from(stakes.soft_bombs)
        + 2 * u32::from(stakes.wild_bombs)
        + bomb_doublings * u32::from(bombs);
    1u64 << doublings.min(62)
}

/// The base of a deal: the winning bid × the points base in `classic`, the points base
/// alone in `rob` and `laizi`.
fn base(rule_set: RuleSet, points_base: u32, bid: Bid) -> i64 {
    if rule_set.calls_and_robs() {
        i64::from(points_base)
    } else {
        i64::from(bid.points()) * i64::from(points_base)
    }
}

/// Scores a `classic` deal that ended by a seat emptying its hand.
pub fn settle(deal: &PlayedOut) -> Settlement {
    settle_with(deal, &Stakes::default())
}

/// Scores a deal of any rule set that ended by a seat emptying its hand.
pub fn settle_with(deal: &PlayedOut, stakes: &Stakes) -> Settlement {
    let landlord_won = deal.winner == deal.landlord;
    let spring = landlord_won && deal.farmer_cards_played == 0;
    let anti_spring = !landlord_won && deal.landlord_plays == 1;
    let mut multiplier = multiplier(stakes, deal.bombs, deal.rockets);
    if spring || anti_spring {
        multiplier = multiplier.saturating_mul(2);
    }
    let unit = base(stakes.rule_set, deal.points_base, deal.bid)
        .saturating_mul(i64::try_from(multiplier).unwrap_or(i64::MAX))
        .min(MAX_UNIT);
    let factor = |seat: Seat| if stakes.doubled[seat.index()] { 2 } else { 1 };
    let farmer_sign = if landlord_won { -1 } else { 1 };
    let mut points = [0i64; 3];
    for seat in Seat::ALL.into_iter().filter(|&s| s != deal.landlord) {
        points[seat.index()] = farmer_sign * unit * factor(seat) * factor(deal.landlord);
    }
    points[deal.landlord.index()] = -points.iter().sum::<i64>();
    debug_assert_eq!(points.iter().sum::<i64>(), 0);
    Settlement {
        outcome: if landlord_won {
            Outcome::LandlordWon
        } else {
            Outcome::FarmersWon { seat: deal.winner }
        },
        points,
        landlord: Some(deal.landlord),
        bid: if stakes.rule_set.calls_and_robs() {
            0
        } else {
            deal.bid.points()
        },
        bombs: deal.bombs,
        rockets: deal.rockets,
        spring,
        anti_spring,
        multiplier,
        ..stakes_fields(stakes)
    }
}

/// Points an escape before any bid (or call) costs, whatever the room's points base.
pub const ESCAPE_BEFORE_ANY_BID_POINTS: i64 = 3;

/// Scores an escape from a `classic` deal: `highest_bid` is the winning bid, or the
/// highest so far while bidding (`None` if nobody had bid).
pub fn settle_escape(
    points_base: u32,
    escaper: Seat,
    landlord: Option<Seat>,
    highest_bid: Option<Bid>,
    bombs: u8,
    rockets: u8,
) -> Settlement {
    settle_escape_with(
        &Escape {
            points_base,
            escaper,
            landlord,
            bid: highest_bid,
            called: false,
            bombs,
            rockets,
        },
        &Stakes::default(),
    )
}

/// Scores an escape from a deal of any rule set: base × the multiplier at the time × 3
/// (doubles not counted), or [`ESCAPE_BEFORE_ANY_BID_POINTS`] before any bid or call.
pub fn settle_escape_with(escape: &Escape, stakes: &Stakes) -> Settlement {
    let multiplier = multiplier(stakes, escape.bombs, escape.rockets);
    let bid = escape.bid.unwrap_or(Bid::Pass);
    let started = if stakes.rule_set.calls_and_robs() {
        escape.called
    } else {
        bid != Bid::Pass
    };
    let penalty = if started {
        base(stakes.rule_set, escape.points_base, bid)
            .saturating_mul(i64::try_from(multiplier).unwrap_or(i64::MAX))
            .min(MAX_UNIT)
            * 3
    } else {
        ESCAPE_BEFORE_ANY_BID_POINTS
    };
    let mut points = [0; 3];
    points[escape.escaper.index()] = -penalty;
    Settlement {
        outcome: Outcome::Escaped {
            seat: escape.escaper,
        },
        points,
        landlord: escape.landlord,
        bid: bid.points(),
        bombs: escape.bombs,
        rockets: escape.rockets,
        spring: false,
        anti_spring: false,
        multiplier,
        ..stakes_fields(stakes)
    }
}

/// A redeal: nobody scores.
pub fn settle_redeal() -> Settlement {
    Settlement {
        outcome: Outcome::Redeal,
        points: [0; 3],
        landlord: None,
        bid: 0,
        bombs: 0,
        rockets: 0,
        spring: false,
        anti_spring: false,
        multiplier: 1,
        ..stakes_fields(&Stakes::default())
    }
}

/// A settlement carrying `stakes`, the rest to be filled in.
fn stakes_fields(stakes: &Stakes) -> Settlement {
    Settlement {
        outcome: Outcome::Redeal,
        points: [0; 3],
        landlord: None,
        bid: 0,
        bombs: 0,
        rockets: 0,
        spring: false,
        anti_spring: false,
        multiplier: 1,
        rule_set: stakes.rule_set,
        robs: stakes.robs,
        doubled: stakes.doubled,
        shown: stakes.shown,
        soft_bombs: stakes.soft_bombs,
        wild_bombs: stakes.wild_bombs,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::card::Rank;
    use crate::combination::{Combination, Kind};
    use crate::wild::{BombClass, Reading};

    /// The multiplier of these counts grows by exactly each play's
    /// [`Reading::multiplier_factor`]: the two tables are one rule.
    #[test]
    fn each_bomb_multiplies_by_its_readings_factor() {
        let bomb = |bomb| Reading {
            combination: Combination {
                kind: Kind::Bomb,
                rank: Rank::Seven,
                length: 1,
            },
            bomb,
        };
        let rocket = Reading::classic(Combination {
            kind: Kind::Rocket,
            rank: Rank::SmallJoker,
            length: 1,
        });
        let cases = [
            (RuleSet::Classic, bomb(None)),
            (RuleSet::Rob, bomb(None)),
            (RuleSet::Classic, rocket),
            (RuleSet::Laizi, rocket),
            (RuleSet::Laizi, bomb(Some(BombClass::Soft))),
            (RuleSet::Laizi, bomb(Some(BombClass::Hard))),
            (RuleSet::Laizi, bomb(Some(BombClass::Wild))),
        ];
        for (rule_set, reading) in cases {
            let before = Stakes {
                rule_set,
                robs: 1,
                ..Stakes::default()
            };
            let (mut after, mut bombs, mut rockets) = (before, 1, 0);
            match (reading.combination.kind, reading.bomb) {
                (Kind::Rocket, _) => rockets += 1,
                (_, Some(BombClass::Soft)) => after.soft_bombs += 1,
                (_, Some(BombClass::Wild)) => after.wild_bombs += 1,
                _ => bombs += 1,
            }
            assert_eq!(
                multiplier(&after, bombs, rockets),
                multiplier(&before, 1, 0) * reading.multiplier_factor(),
                "{rule_set}: {reading:?}"
            );
        }
    }
}
