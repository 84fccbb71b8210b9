//! The auction of the `rob` and `laizi` rule sets: calling (叫地主) and robbing (抢地主)
//! the landlord.
//!
//! Starting with the first bidder, each seat in turn says call or not until one calls; if
//! none of the three calls, the cards are dealt again. Once a seat has called, each seat
//! after it in turn order that has not declined to call says, once, rob or not; if anyone
//! robbed, the seat that called may rob once more at the end. A seat that declined never
//! robs. Each rob doubles the deal's multiplier. The last seat to call or rob is the
//! landlord.
//!
//! So there are few sequences (twelve from any first bidder, all listed in the tests):
//! at most three calls and three robs, at most three robs in all.

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::seat::Seat;

/// One decision of the auction. Serialized in snake case.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AuctionCall {
    /// 叫地主.
    Call,
    /// 不叫.
    Decline,
    /// 抢地主.
    Rob,
    /// 不抢.
    NoRob,
}

impl AuctionCall {
    /// Whether the seat took the landlord's place (called or robbed).
    pub fn is_yes(self) -> bool {
        matches!(self, AuctionCall::Call | AuctionCall::Rob)
    }
}

/// A seat's decision, as shown to everyone.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeatCall {
    pub seat: Seat,
    pub call: AuctionCall,
}

/// What the seat to act decides: whether to call, or whether to rob.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AuctionStage {
    /// Nobody has called yet.
    Calling,
    /// A seat has called; the others (and at the end the caller) may rob.
    Robbing,
}

impl std::fmt::Display for AuctionStage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            AuctionStage::Calling => "calling",
            AuctionStage::Robbing => "robbing",
        })
    }
}

/// How the auction ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AuctionOutcome {
    /// `seat` called or robbed last and is landlord; `robs` robs were made (each doubles
    /// the multiplier).
    Landlord { seat: Seat, robs: u8 },
    /// Nobody called: deal again with a fresh seed.
    Redeal,
}

/// Why a decision was refused. The auction is left unchanged.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
pub enum AuctionError {
    #[error("the auction is over")]
    AuctionOver,
    #[error("it is seat {expected}'s turn")]
    NotYourTurn { expected: Seat },
}

/// The auction of one deal: its first bidder and the decisions so far, in order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Auction {
    first_bidder: Seat,
    calls: Vec<SeatCall>,
}

/// Where an auction is: a seat to act at a stage, or over.
enum Progress {
    ToAct(Seat, AuctionStage),
    Over(AuctionOutcome),
}

impl Auction {
    pub fn new(first_bidder: Seat) -> Auction {
        Auction {
            first_bidder,
            calls: Vec::with_capacity(6),
        }
    }

    pub fn first_bidder(&self) -> Seat {
        self.first_bidder
    }

    /// Every decision so far, in order.
    pub fn calls(&self) -> &[SeatCall] {
        &self.calls
    }

    /// The seat that called (叫地主), once one has.
    pub fn caller(&self) -> Option<Seat> {
        self.calls
            .iter()
            .find(|c| c.call == AuctionCall::Call)
            .map(|c| c.seat)
    }

    /// Robs made so far.
    pub fn robs(&self) -> u8 {
        self.calls
            .iter()
            .filter(|c| c.call == AuctionCall::Rob)
            .count() as u8
    }

    /// The seat to act, or `None` once the auction is over.
    pub fn to_act(&self) -> Option<Seat> {
        match self.progress() {
            Progress::ToAct(seat, _) => Some(seat),
            Progress::Over(_) => None,
        }
    }

    /// What the seat to act decides, or `None` once the auction is over.
    pub fn stage(&self) -> Option<AuctionStage> {
        match self.progress() {
            Progress::ToAct(_, stage) => Some(stage),
            Progress::Over(_) => None,
        }
    }

    /// How the auction ended, or `None` while it goes on.
    pub fn outcome(&self) -> Option<AuctionOutcome> {
        match self.progress() {
            Progress::ToAct(..) => None,
            Progress::Over(outcome) => Some(outcome),
        }
    }

    /// Records the decision of `seat`: call or not in the calling stage, rob or not in
    /// the robbing stage. Returns the outcome if this decision ended the auction.
    pub fn act(&mut self, seat: Seat, yes: bool) -> Result<Option<AuctionOutcome>, AuctionError> {
        let (expected, stage) = match self.progress() {
            Progress::ToAct(seat, stage) => (seat, stage),
            Progress::Over(_) => return Err(AuctionError::AuctionOver),
        };
        if seat != expected {
            return Err(AuctionError::NotYourTurn { expected });
        }
        let call = match (stage, yes) {
            (AuctionStage::Calling, true) => AuctionCall::Call,
            (AuctionStage::Calling, false) => AuctionCall::Decline,
            (AuctionStage::Robbing, true) => AuctionCall::Rob,
            (AuctionStage::Robbing, false) => AuctionCall::NoRob,
        };
        self.calls.push(SeatCall { seat, call });
        debug_assert!(self.calls.len() <= 6 && self.robs() <= 3);
        Ok(self.outcome())
    }

    fn progress(&self) -> Progress {
        let order = [
            self.first_bidder,
            self.first_bidder.next(),
            self.first_bidder.next().next(),
        ];
        let Some(caller) = self.calls.iter().position(|c| c.call == AuctionCall::Call) else {
            return match order.get(self.calls.len()) {
                Some(&seat) => Progress::ToAct(seat, AuctionStage::Calling),
                None => Progress::Over(AuctionOutcome::Redeal),
            };
        };
        // The seats before the caller all declined; those after it may rob, once each.
        let robbers = &order[caller + 1..];
        let robbed = &self.calls[caller + 1..];
        if robbed.len() < robbers.len() {
            return Progress::ToAct(robbers[robbed.len()], AuctionStage::Robbing);
        }
        let anyone_robbed = robbed.iter().any(|c| c.call == AuctionCall::Rob);
        if anyone_robbed && robbed.len() == robbers.len() {
            // The caller's last word.
            return Progress::ToAct(order[caller], AuctionStage::Robbing);
        }
        let landlord = self
            .calls
            .iter()
            .rev()
            .find(|c| c.call.is_yes())
            .expect("a seat called")
            .seat;
        Progress::Over(AuctionOutcome::Landlord {
            seat: landlord,
            robs: self.robs(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use AuctionCall::{Call, Decline, NoRob, Rob};

    fn seat(n: u8) -> Seat {
        Seat::new(n).expect("valid seat")
    }

    /// Every sequence from first bidder 0: the decisions (seat, call) and the outcome.
    fn every_sequence() -> Vec<(Vec<(u8, AuctionCall)>, AuctionOutcome)> {
        let landlord = |n: u8, robs: u8| AuctionOutcome::Landlord {
            seat: seat(n),
            robs,
        };
        vec![
            // Seat 0 calls; 1 and 2 may rob; if either robbed, 0 has the last word.
            (vec![(0, Call), (1, NoRob), (2, NoRob)], landlord(0, 0)),
            (
                vec![(0, Call), (1, Rob), (2, NoRob), (0, Rob)],
                landlord(0, 2),
            ),
            (
                vec![(0, Call), (1, Rob), (2, NoRob), (0, NoRob)],
                landlord(1, 1),
            ),
            (
                vec![(0, Call), (1, NoRob), (2, Rob), (0, Rob)],
                landlord(0, 2),
            ),
            (
                vec![(0, Call), (1, NoRob), (2, Rob), (0, NoRob)],
                landlord(2, 1),
            ),
            (
                vec![(0, Call), (1, Rob), (2, Rob), (0, Rob)],
                landlord(0, 3),
            ),
            (
                vec![(0, Call), (1, Rob), (2, Rob), (0, NoRob)],
                landlord(2, 2),
            ),
            // Seat 0 declines, 1 calls: only 2 may rob (0 declined), then 1's last word.
            (vec![(0, Decline), (1, Call), (2, NoRob)], landlord(1, 0)),
            (
                vec![(0, Decline), (1, Call), (2, Rob), (1, Rob)],
                landlord(1, 2),
            ),
            (
                vec![(0, Decline), (1, Call), (2, Rob), (1, NoRob)],
                landlord(2, 1),
            ),
            // Seat 2 calls after both declined: nobody may rob.
            (vec![(0, Decline), (1, Decline), (2, Call)], landlord(2, 0)),
            (
                vec![(0, Decline), (1, Decline), (2, Decline)],
                AuctionOutcome::Redeal,
            ),
        ]
    }

    /// Every sequence the auction accepts, found by saying yes and no at every step.
    fn explore(auction: &Auction, found: &mut Vec<(Vec<SeatCall>, AuctionOutcome)>) {
        if let Some(outcome) = auction.outcome() {
            found.push((auction.calls().to_vec(), outcome));
            return;
        }
        for yes in [true, false] {
            let mut next = auction.clone();
            let seat = next.to_act().expect("running");
            next.act(seat, yes).expect("the seat to act");
            explore(&next, found);
        }
    }

    #[test]
    fn every_sequence_from_every_first_bidder_ends_as_the_rules_say() {
        for first in Seat::ALL {
            let mut found = Vec::new();
            explore(&Auction::new(first), &mut found);
            let rotate = |n: u8| seat((n + first.number()) % 3);
            let expected: Vec<(Vec<SeatCall>, AuctionOutcome)> = every_sequence()
                .into_iter()
                .map(|(calls, outcome)| {
                    let calls = calls
                        .into_iter()
                        .map(|(n, call)| SeatCall {
                            seat: rotate(n),
                            call,
                        })
                        .collect();
                    let outcome = match outcome {
                        AuctionOutcome::Landlord { seat, robs } => AuctionOutcome::Landlord {
                            seat: rotate(seat.number()),
                            robs,
                        },
                        AuctionOutcome::Redeal => AuctionOutcome::Redeal,
                    };
                    (calls, outcome)
                })
                .collect();
            assert_eq!(found.len(), 12, "first bidder {first}");
            for sequence in &expected {
                assert!(found.contains(sequence), "missing {sequence:?}");
            }
        }
    }

    #[test]
    fn the_stage_says_whether_the_seat_to_act_calls_or_robs() {
        let mut auction = Auction::new(seat(1));
        assert_eq!(auction.stage(), Some(AuctionStage::Calling));
        assert_eq!(auction.act(seat(1), false), Ok(None));
        assert_eq!(auction.stage(), Some(AuctionStage::Calling));
        assert_eq!(auction.act(seat(2), true), Ok(None));
        assert_eq!(auction.caller(), Some(seat(2)));
        // Seat 0 has not declined: it may rob; seat 1 declined and never robs.
        assert_eq!(auction.to_act(), Some(seat(0)));
        assert_eq!(auction.stage(), Some(AuctionStage::Robbing));
        assert_eq!(auction.act(seat(0), true), Ok(None));
        assert_eq!(auction.robs(), 1);
        assert_eq!(auction.to_act(), Some(seat(2)), "the caller's last word");
        assert_eq!(
            auction.act(seat(2), true),
            Ok(Some(AuctionOutcome::Landlord {
                seat: seat(2),
                robs: 2
            }))
        );
        assert_eq!((auction.to_act(), auction.stage()), (None, None));
    }

    #[test]
    fn a_decision_out_of_turn_or_after_the_end_is_refused_and_changes_nothing() {
        let mut auction = Auction::new(seat(0));
        assert_eq!(
            auction.act(seat(1), true),
            Err(AuctionError::NotYourTurn { expected: seat(0) })
        );
        assert!(auction.calls().is_empty());
        auction.act(seat(0), false).expect("decline");
        auction.act(seat(1), false).expect("decline");
        auction.act(seat(2), true).expect("call");
        assert_eq!(auction.act(seat(0), true), Err(AuctionError::AuctionOver));
        assert_eq!(auction.calls().len(), 3);
    }

    #[test]
    fn the_calls_serialize_in_snake_case() {
        let mut auction = Auction::new(seat(0));
        auction.act(seat(0), true).expect("call");
        auction.act(seat(1), false).expect("no rob");
        assert_eq!(
            serde_json::to_string(auction.calls()).expect("serializes"),
            r#"[{"seat":0,"call":"call"},{"seat":1,"call":"no_rob"}]"#
        );
    }
}
