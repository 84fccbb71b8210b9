//! Scoring (积分): points per seat when a deal ends.
//!
//! - base = winning bid × the room's points base;
//! - multiplier starts at 1 and doubles for each bomb or rocket played (kept ones do not
//!   count), and doubles again for a spring (春天: the landlord played out and no farmer
//!   played a card) or an anti-spring (反春: a farmer played out and the landlord played
//!   only its opening play);
//! - landlord wins: landlord +2 × base × multiplier, each farmer −base × multiplier;
//!   landlord loses: the reverse. Always zero-sum.
//! - escape (逃跑): the escaper loses base × multiplier × 3, or 3 points if nobody had bid
//!   yet (docs/rules.md#leaving-a-deal: a flat 3, not a multiple of the points base: with
//!   no bid there is no base); the others get 0 (the deal is void for them).

use serde::{Deserialize, Serialize};

use crate::bidding::Bid;
use crate::seat::Seat;

/// How a deal ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "type")]
pub enum Outcome {
    /// The landlord emptied its hand first.
    LandlordWon,
    /// A farmer (农民) emptied its hand first.
    FarmersWon { seat: Seat },
    /// Everyone passed in bidding: deal again, with the next first bidder.
    Redeal,
    /// A seat left mid-deal.
    Escaped { seat: Seat },
}

/// The points of a finished deal and how they came about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Settlement {
    pub outcome: Outcome,
    /// Points per seat (index = seat number). Zero-sum except after an escape.
    pub points: [i64; 3],
    pub landlord: Option<Seat>,
    /// The winning bid, or the highest bid so far for an escape during bidding.
    pub bid: u8,
    /// Bombs played (rockets not included).
    pub bombs: u8,
    /// Rockets played (0 or 1).
    pub rockets: u8,
    pub spring: bool,
    pub anti_spring: bool,
    /// The whole factor applied to base: 2^(bombs + rockets), doubled for a spring or an
    /// anti-spring.
    pub multiplier: u64,
}

/// What scoring a played-out deal needs to know.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PlayedOut {
    pub points_base: u32,
    pub landlord: Seat,
    pub bid: Bid,
    /// The seat that emptied its hand.
    pub winner: Seat,
    pub bombs: u8,
    pub rockets: u8,
    /// Plays (not passes) the landlord made.
    pub landlord_plays: u32,
    /// Cards the two farmers played, together.
    pub farmer_cards_played: u32,
}

/// 2^(bombs + rockets): the multiplier before spring.
pub fn bomb_multiplier(bombs: u8, rockets: u8) -> u64 {
    1u64 << (u32::from(bombs) + u32::from(rockets)).min(62)
}

/// Scores a deal that ended by a seat emptying its hand.
pub fn settle(deal: &PlayedOut) -> Settlement {
    let landlord_won = deal.winner == deal.landlord;
    let spring = landlord_won && deal.farmer_cards_played == 0;
    let anti_spring = !landlord_won && deal.landlord_plays == 1;
    let mut multiplier = bomb_multiplier(deal.bombs, deal.rockets);
    if spring || anti_spring {
        multiplier *= 2;
    }
    let base = i64::from(deal.bid.points()) * i64::from(deal.points_base);
    // At most 13 bombs + 1 rocket: 2^15 × 3 × u32::MAX × 2 fits an i64.
    let unit = base * multiplier as i64;
    let sign = if landlord_won { 1 } else { -1 };
    let points = std::array::from_fn(|i| {
        if i == deal.landlord.index() {
            2 * unit * sign
        } else {
            -unit * sign
        }
    });
    debug_assert_eq!(points.iter().sum::<i64>(), 0);
    Settlement {
        outcome: if landlord_won {
            Outcome::LandlordWon
        } else {
            Outcome::FarmersWon { seat: deal.winner }
        },
        points,
        landlord: Some(deal.landlord),
        bid: deal.bid.points(),
        bombs: deal.bombs,
        rockets: deal.rockets,
        spring,
        anti_spring,
        multiplier,
    }
}

/// Points an escape before any bid costs, whatever the room's points base.
pub const ESCAPE_BEFORE_ANY_BID_POINTS: i64 = 3;

/// Scores an escape: `highest_bid` is the winning bid, or the highest so far while
/// bidding (`None` if nobody had bid).
pub fn settle_escape(
    points_base: u32,
    escaper: Seat,
    landlord: Option<Seat>,
    highest_bid: Option<Bid>,
    bombs: u8,
    rockets: u8,
) -> Settlement {
    let multiplier = bomb_multiplier(bombs, rockets);
    let points_base = i64::from(points_base);
    let penalty = match highest_bid {
        Some(bid) if bid != Bid::Pass => {
            i64::from(bid.points()) * points_base * multiplier as i64 * 3
        }
        _ => ESCAPE_BEFORE_ANY_BID_POINTS,
    };
    let mut points = [0; 3];
    points[escaper.index()] = -penalty;
    Settlement {
        outcome: Outcome::Escaped { seat: escaper },
        points,
        landlord,
        bid: highest_bid.map_or(0, Bid::points),
        bombs,
        rockets,
        spring: false,
        anti_spring: false,
        multiplier,
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
    }
}
