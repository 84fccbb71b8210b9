//! What one seat may see of a deal: [`SeatView`], and the plays as seen ([`PlayView`]).

use serde::{Deserialize, Serialize};

use crate::auction::SeatCall;
use crate::bidding::Bid;
use crate::card::{Card, Rank};
use crate::combination::Combination;
use crate::ranks::RankCounts;
use crate::rule_set::RuleSet;
use crate::scoring::Settlement;
use crate::seat::Seat;
use crate::shuffle::{Commitment, Seed};
use crate::wild::BombClass;

use super::{Actor, Decision, Phase};

/// A seat's bid, as shown to everyone. In `rob` and `laizi` the landlord's is a pass.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeatBid {
    pub seat: Seat,
    pub bid: Bid,
}

/// A seat's doubling decision (加倍 or not), as shown to everyone.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeatDouble {
    pub seat: Seat,
    pub double: bool,
    /// Who chose it: the seat, a timeout or auto-play.
    #[serde(default, skip_serializing_if = "Actor::is_seat")]
    pub by: Actor,
}

/// A play or pass as a seat sees it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlayView {
    pub seat: Seat,
    /// Empty for a pass.
    pub cards: Vec<Card>,
    /// `None` for a pass.
    pub combination: Option<Combination>,
    pub by: Actor,
    /// In `laizi`, the ranks the cards stand for (wilds replaced); `None` otherwise and
    /// for a pass.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub meant: Option<RankCounts>,
    /// In `laizi`, a bomb's class; `None` otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bomb: Option<BombClass>,
}

/// Everything one seat may know of a deal, and nothing more.
///
/// The fields after `seed` came with the `rob` and `laizi` rule sets; a view stored
/// before reads with their defaults.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeatView {
    pub seat: Seat,
    pub deal_id: String,
    pub commitment: Commitment,
    pub phase: Phase,
    /// This seat's own cards.
    pub hand: Vec<Card>,
    /// How many cards each seat holds.
    pub cards_left: [u8; 3],
    pub first_bidder: Seat,
    /// The bids (`classic`).
    pub bids: Vec<SeatBid>,
    /// The landlord and its winning bid (a pass in `rob` and `laizi`), once chosen.
    pub landlord: Option<SeatBid>,
    /// The kitty, once revealed (when the landlord is chosen).
    pub kitty: Option<Vec<Card>>,
    pub to_act: Option<Seat>,
    pub deadline_ms: Option<u64>,
    /// The play to beat; `None` when the seat to act leads.
    pub trick: Option<PlayView>,
    /// Every play and pass so far.
    pub turns: Vec<PlayView>,
    /// The multiplier so far: 2^robs, × 2 if shown, × each bomb's and rocket's factor
    /// (doubles and spring not included).
    pub multiplier: u64,
    pub auto_play: [bool; 3],
    pub settlement: Option<Settlement>,
    /// Revealed when the deal ends.
    pub seed: Option<Seed>,
    #[serde(default)]
    pub rule_set: RuleSet,
    /// What the seat to act ([`SeatView::to_act`]) must decide; `None` once finished.
    #[serde(default)]
    pub decision: Option<Decision>,
    /// The auction's calls and robs so far (`rob`, `laizi`).
    #[serde(default)]
    pub calls: Vec<SeatCall>,
    /// The doubling decisions so far, in order (`rob`, `laizi`).
    #[serde(default)]
    pub doubles: Vec<SeatDouble>,
    /// Whether the landlord showed its hand (明牌); `None` until it decided.
    #[serde(default)]
    pub shown: Option<bool>,
    /// The landlord's remaining cards, to every seat, once it showed its hand.
    #[serde(default)]
    pub landlord_hand: Option<Vec<Card>>,
    /// The wild rank (癞子) of a `laizi` deal, once the landlord is chosen.
    #[serde(default)]
    pub wild_rank: Option<Rank>,
}
