//! What a deal tells its seats: [`Event`]s, each tagged with who may see it.

use serde::{Deserialize, Serialize};

use crate::bidding::Bid;
use crate::card::{Card, Rank};
use crate::combination::Combination;
use crate::ranks::RankCounts;
use crate::scoring::Settlement;
use crate::seat::Seat;
use crate::shuffle::{Commitment, Seed};
use crate::wild::BombClass;

use super::Phase;

/// Who chose an action: the seat itself, the server because the seat's time ran out, or
/// the server for a seat on auto-play.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Actor {
    #[default]
    Seat,
    Timeout,
    AutoPlay,
}

impl Actor {
    pub(super) fn is_seat(&self) -> bool {
        *self == Actor::Seat
    }
}

/// Who may see an event.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Audience {
    All,
    Seat(Seat),
}

/// Something that happened, with who may see it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Event {
    pub audience: Audience,
    pub body: EventBody,
}

impl Event {
    pub(super) fn public(body: EventBody) -> Event {
        Event {
            audience: Audience::All,
            body,
        }
    }

    /// Whether `seat` may see this event.
    pub fn visible_to(&self, seat: Seat) -> bool {
        match self.audience {
            Audience::All => true,
            Audience::Seat(only) => only == seat,
        }
    }
}

/// What happened. Serialized with a `type` tag in snake case. Only `hand_dealt` is
/// private (to its seat); every other event is public.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "type")]
pub enum EventBody {
    /// The cards are dealt; the commitment to the seed is published.
    DealStarted {
        deal_id: String,
        commitment: Commitment,
        first_bidder: Seat,
        points_base: u32,
    },
    /// A seat's own 17 cards. Private to that seat.
    HandDealt {
        seat: Seat,
        cards: Vec<Card>,
    },
    /// `seat` is to act until `deadline_ms`, in `phase`; `lead` when it must play (no
    /// pass).
    TurnStarted {
        seat: Seat,
        phase: Phase,
        deadline_ms: u64,
        lead: bool,
    },
    /// A bid (`classic`).
    BidMade {
        seat: Seat,
        bid: Bid,
        by: Actor,
    },
    /// A seat called the landlord (叫地主, `call`) or declined (不叫).
    Called {
        seat: Seat,
        call: bool,
        by: Actor,
    },
    /// A seat robbed the landlord (抢地主, `rob`) or did not (不抢).
    Robbed {
        seat: Seat,
        rob: bool,
        by: Actor,
    },
    /// Bidding is over: `seat` is landlord, takes the kitty, which is shown to all.
    /// `bid` is the winning bid in `classic`, a pass in `rob` and `laizi`, where `robs`
    /// counts the robs of the auction.
    LandlordChosen {
        seat: Seat,
        bid: Bid,
        kitty: Vec<Card>,
        #[serde(default)]
        robs: u8,
    },
    /// The wild rank (癞子) of a `laizi` deal, drawn from the seed once the landlord is
    /// known.
    WildRankDrawn {
        rank: Rank,
    },
    /// A seat doubled (加倍, `double`) or not.
    Doubled {
        seat: Seat,
        double: bool,
        by: Actor,
    },
    /// The landlord showed its hand (明牌, `show`) or not; a `hand_shown` follows a show.
    Showed {
        seat: Seat,
        show: bool,
        by: Actor,
    },
    /// The landlord's 20 cards, shown to all (明牌).
    HandShown {
        seat: Seat,
        cards: Vec<Card>,
    },
    Played {
        seat: Seat,
        cards: Vec<Card>,
        combination: Combination,
        by: Actor,
        cards_left: u8,
        /// In `laizi`, the ranks the cards stand for (wilds replaced); absent otherwise.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        meant: Option<RankCounts>,
        /// In `laizi`, a bomb's class (`soft`, `hard`, `wild`); absent otherwise.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        bomb: Option<BombClass>,
    },
    Passed {
        seat: Seat,
        by: Actor,
    },
    /// A rob, a show, a bomb or the rocket changed the multiplier.
    MultiplierChanged {
        multiplier: u64,
    },
    AutoPlayChanged {
        seat: Seat,
        on: bool,
    },
    Escaped {
        seat: Seat,
    },
    /// The deal is over; the seed is revealed so anyone can check the shuffle, and every
    /// seat's remaining cards are shown (摊牌), seat 0, 1, 2 (empty for a redeal, and in
    /// events stored before they were shown).
    DealEnded {
        settlement: Settlement,
        seed: Seed,
        #[serde(default)]
        hands_left: Vec<Vec<Card>>,
    },
}
