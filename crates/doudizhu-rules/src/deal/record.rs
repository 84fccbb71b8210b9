//! The record of a finished deal ([`DealRecord`]): enough to re-run the shuffle, re-draw
//! the wild rank and replay every decision and play to the settlement.

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::auction::{AuctionCall, SeatCall};
use crate::card::{Card, CardSet, Rank};
use crate::scoring::{Outcome, Settlement};
use crate::seat::Seat;
use crate::shuffle::{self, Commitment, Seed, VerifyError};

use super::{ActionError, Deal, DealRules, NewDealError, PlayView, SeatBid, SeatDouble};

/// A finished deal, complete enough for anyone to re-run the shuffle and replay it.
///
/// The fields after `settlement` came with the `rob` and `laizi` rule sets; a record
/// stored before reads with their defaults (a `classic` deal).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DealRecord {
    pub deal_id: String,
    pub seed: Seed,
    pub commitment: Commitment,
    /// The room settings the deal was scored with (its rule set included).
    pub rules: DealRules,
    pub first_bidder: Seat,
    /// The hands as dealt (before the kitty), seat 0, 1, 2.
    pub hands: [Vec<Card>; 3],
    pub kitty: Vec<Card>,
    /// The bids (`classic`).
    pub bids: Vec<SeatBid>,
    pub landlord: Option<SeatBid>,
    /// Every play and pass, in order.
    pub turns: Vec<PlayView>,
    pub settlement: Settlement,
    /// The auction's calls and robs, in order (`rob`, `laizi`).
    #[serde(default)]
    pub calls: Vec<SeatCall>,
    /// The doubling decisions, in order (`rob`, `laizi`).
    #[serde(default)]
    pub doubles: Vec<SeatDouble>,
    /// Whether the landlord showed its hand; `None` if the deal ended before it decided.
    #[serde(default)]
    pub shown: Option<bool>,
    /// The wild rank (`laizi`, once the landlord was chosen): what [`shuffle::wild_rank`]
    /// draws from the seed.
    #[serde(default)]
    pub wild_rank: Option<Rank>,
}

/// A record that does not replay.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ReplayError {
    #[error(transparent)]
    BadDeal(#[from] NewDealError),
    #[error("step {step} of the record is refused: {error}")]
    Refused { step: usize, error: ActionError },
    #[error("the record ends before the deal does")]
    Unfinished,
}

impl DealRecord {
    /// Replays the record on a fresh deal from the seed, as the seats' own actions: the
    /// bids or the calls and robs, the doubles, the show, the turns, an escape last. It
    /// returns the settlement they lead to; for a true record it equals
    /// [`DealRecord::settlement`].
    pub fn replay(&self) -> Result<Settlement, ReplayError> {
        let (mut deal, _) = Deal::new(&self.deal_id, self.seed, self.first_bidder, self.rules, 0)?;
        let mut step = 0;
        let mut refused = |result: Result<_, ActionError>| {
            step += 1;
            result.map(drop).map_err(|error| ReplayError::Refused {
                step: step - 1,
                error,
            })
        };
        for b in &self.bids {
            refused(deal.bid(b.seat, b.bid, 0))?;
        }
        for c in &self.calls {
            refused(match c.call {
                AuctionCall::Call => deal.call(c.seat, true, 0),
                AuctionCall::Decline => deal.call(c.seat, false, 0),
                AuctionCall::Rob => deal.rob(c.seat, true, 0),
                AuctionCall::NoRob => deal.rob(c.seat, false, 0),
            })?;
        }
        for d in &self.doubles {
            refused(deal.double(d.seat, d.double, 0))?;
        }
        if let (Some(show), Some(landlord)) = (self.shown, self.landlord) {
            refused(deal.show(landlord.seat, show, 0))?;
        }
        for turn in &self.turns {
            refused(if turn.cards.is_empty() {
                deal.pass(turn.seat, 0)
            } else {
                deal.play_as(turn.seat, &turn.cards, turn.meant.as_ref(), 0)
            })?;
        }
        if let Outcome::Escaped { seat } = self.settlement.outcome {
            refused(deal.escape(seat, 0))?;
        }
        deal.settlement.ok_or(ReplayError::Unfinished)
    }

    /// The cards each seat held when the deal ended (seat 0, 1, 2, lowest first): as
    /// dealt, the kitty to the landlord, less every card played. Empty for a redeal.
    pub fn hands_left(&self) -> Vec<Vec<Card>> {
        if self.settlement.outcome == Outcome::Redeal {
            return Vec::new();
        }
        Seat::ALL
            .into_iter()
            .map(|seat| {
                let mut hand: CardSet = self.hands[seat.index()].iter().copied().collect();
                if self.landlord.is_some_and(|l| l.seat == seat) {
                    hand = hand.union(self.kitty.iter().copied().collect());
                }
                for turn in self.turns.iter().filter(|t| t.seat == seat) {
                    for card in &turn.cards {
                        hand.remove(*card);
                    }
                }
                hand.to_vec()
            })
            .collect()
    }

    /// Checks the shuffle: the seed matches the commitment and deals these hands; in
    /// `laizi`, it also draws this wild rank (none before a landlord was chosen).
    pub fn verify(&self) -> Result<(), VerifyError> {
        let hands = [0, 1, 2].map(|i| self.hands[i].iter().copied().collect());
        shuffle::verify(
            &self.seed,
            &self.commitment,
            &self.deal_id,
            &hands,
            self.kitty.iter().copied().collect(),
        )?;
        let drawn = (self.rules.rule_set.has_wilds() && self.landlord.is_some())
            .then(|| shuffle::wild_rank(&self.seed));
        if self.wild_rank != drawn {
            return Err(VerifyError::WildRankMismatch);
        }
        Ok(())
    }
}
