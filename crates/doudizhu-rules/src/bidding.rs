//! Bidding (叫分): each seat bids once, in turn from the first bidder: 1, 2, 3 or pass;
//! a bid must be higher than every earlier bid; 3 ends bidding at once; the highest
//! bidder becomes landlord; if all pass the cards are dealt again.

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::seat::Seat;

/// A seat's bid. Serialized as a number: 0 = pass (不叫), 1, 2 or 3 (分).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(into = "u8", try_from = "u8")]
pub enum Bid {
    Pass = 0,
    One = 1,
    Two = 2,
    Three = 3,
}

impl Bid {
    /// The bid's points: 0 for a pass.
    pub fn points(self) -> u8 {
        self as u8
    }
}

impl From<Bid> for u8 {
    fn from(bid: Bid) -> u8 {
        bid.points()
    }
}

/// A bid other than 0 (pass), 1, 2 or 3.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
#[error("a bid is 1, 2, 3 or 0 for pass, not {0}")]
pub struct BidOutOfRange(pub u8);

impl TryFrom<u8> for Bid {
    type Error = BidOutOfRange;
    fn try_from(points: u8) -> Result<Bid, BidOutOfRange> {
        match points {
            0 => Ok(Bid::Pass),
            1 => Ok(Bid::One),
            2 => Ok(Bid::Two),
            3 => Ok(Bid::Three),
            other => Err(BidOutOfRange(other)),
        }
    }
}

/// How bidding ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BiddingOutcome {
    /// The highest bidder became landlord (地主) at this bid.
    Landlord { seat: Seat, bid: Bid },
    /// Everyone passed: deal again with a fresh seed.
    Redeal,
}

/// Why a bid was refused. The bidding is left unchanged.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
pub enum BidError {
    #[error("bidding is over")]
    BiddingOver,
    #[error("it is seat {expected}'s turn to bid")]
    NotYourTurn { expected: Seat },
    #[error("a bid must be higher than {highest}")]
    BidNotHigher { highest: u8 },
}

/// The bidding of one deal.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Bidding {
    /// Bids in turn order; the first is the first bidder's.
    first_bidder: Seat,
    bids: Vec<Bid>,
}

impl Bidding {
    pub fn new(first_bidder: Seat) -> Bidding {
        Bidding {
            first_bidder,
            bids: Vec::with_capacity(3),
        }
    }

    pub fn first_bidder(&self) -> Seat {
        self.first_bidder
    }

    /// The bids so far, in order, with their seats.
    pub fn bids(&self) -> impl Iterator<Item = (Seat, Bid)> + '_ {
        let mut seat = self.first_bidder;
        self.bids.iter().map(move |&bid| {
            let this = seat;
            seat = seat.next();
            (this, bid)
        })
    }

    /// The highest bid so far and its seat (passes are not bids).
    pub fn highest(&self) -> Option<(Seat, Bid)> {
        self.bids()
            .filter(|(_, bid)| *bid != Bid::Pass)
            .max_by_key(|(_, bid)| *bid)
    }

    /// How bidding ended, or `None` while it goes on.
    pub fn outcome(&self) -> Option<BiddingOutcome> {
        let over = self.bids.len() == 3 || self.bids.last() == Some(&Bid::Three);
        if !over {
            return None;
        }
        Some(match self.highest() {
            Some((seat, bid)) => BiddingOutcome::Landlord { seat, bid },
            None => BiddingOutcome::Redeal,
        })
    }

    /// The seat to bid next, or `None` once bidding is over.
    pub fn to_act(&self) -> Option<Seat> {
        if self.outcome().is_some() {
            return None;
        }
        Some(Seat::ALL[(self.first_bidder.index() + self.bids.len()) % 3])
    }

    /// Records `seat`'s bid; returns the outcome if this bid ended the bidding.
    pub fn bid(&mut self, seat: Seat, bid: Bid) -> Result<Option<BiddingOutcome>, BidError> {
        let expected = self.to_act().ok_or(BidError::BiddingOver)?;
        if seat != expected {
            return Err(BidError::NotYourTurn { expected });
        }
        if let Some((_, highest)) = self.highest()
            && bid != Bid::Pass
            && bid <= highest
        {
            return Err(BidError::BidNotHigher {
                highest: highest.points(),
            });
        }
        self.bids.push(bid);
        Ok(self.outcome())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seat(n: u8) -> Seat {
        Seat::new(n).expect("valid seat")
    }

    #[test]
    fn a_bid_of_three_ends_bidding_at_once() {
        let mut bidding = Bidding::new(seat(1));
        assert_eq!(bidding.bid(seat(1), Bid::One), Ok(None));
        assert_eq!(
            bidding.bid(seat(2), Bid::Three),
            Ok(Some(BiddingOutcome::Landlord {
                seat: seat(2),
                bid: Bid::Three
            }))
        );
        assert_eq!(bidding.to_act(), None);
        assert_eq!(bidding.bid(seat(0), Bid::Pass), Err(BidError::BiddingOver));
    }

    #[test]
    fn a_bid_must_be_higher_than_every_earlier_bid() {
        let mut bidding = Bidding::new(seat(0));
        bidding.bid(seat(0), Bid::Two).expect("first bid");
        assert_eq!(
            bidding.bid(seat(1), Bid::Two),
            Err(BidError::BidNotHigher { highest: 2 })
        );
        assert_eq!(
            bidding.bid(seat(2), Bid::Three),
            Err(BidError::NotYourTurn { expected: seat(1) })
        );
        bidding.bid(seat(1), Bid::Pass).expect("pass");
        assert_eq!(
            bidding.bid(seat(2), Bid::Pass),
            Ok(Some(BiddingOutcome::Landlord {
                seat: seat(0),
                bid: Bid::Two
            }))
        );
    }

    #[test]
    fn all_passing_means_a_redeal() {
        let mut bidding = Bidding::new(seat(2));
        bidding.bid(seat(2), Bid::Pass).expect("pass");
        bidding.bid(seat(0), Bid::Pass).expect("pass");
        assert_eq!(
            bidding.bid(seat(1), Bid::Pass),
            Ok(Some(BiddingOutcome::Redeal))
        );
    }
}
