//! Dou Dizhu (斗地主) rules: everything a deal needs, as plain synchronous functions over
//! plain data. No I/O, no clock (actions take the caller's `now_ms`), no global state.
//! Three rule sets ([`RuleSet`]): `classic` (叫分), `rob` (叫地主/抢地主 with doubling
//! 加倍 and showing 明牌) and `laizi` (癞子, `rob` with a wild rank).
//!
//! Modules:
//! - [`card`]: ranks, suits, the 54 cards, [`CardSet`], card text (`S3 HT BJ RJ`).
//! - [`ranks`]: [`RankCounts`], a multiset of ranks, and rank text (`3 3 3 4`).
//! - [`combination`]: reading a multiset as one [`Combination`] ([`classify`]) and
//!   [`Combination::beats`].
//! - [`moves`]: every distinct lead ([`leads`]) and every reply that beats a play
//!   ([`replies`]).
//! - [`shuffle`]: the seeded shuffle ([`deal()`]), the [`Commitment`], [`verify`] (and
//!   [`verify_published`], the same check on a deal as published: hex and card text),
//!   and the wild rank of a `laizi` deal ([`wild_rank`]).
//! - [`seat`]: [`Seat`] and the first-bidder rotation.
//! - [`bidding`]: the bidding (叫分) state machine of `classic`.
//! - [`auction`]: the calling and robbing (叫地主/抢地主) state machine of `rob` and
//!   `laizi`.
//! - [`scoring`]: points for every rule set, spring, anti-spring, escape
//!   ([`Settlement`]).
//! - [`rule_set`]: the rule sets played, by the name rooms give them ([`RuleSet`]).
//! - [`wild`]: wild cards (癞子) of the `laizi` rule set: every [`Reading`] of a play
//!   ([`readings`], [`read_as`]), the order of soft, hard and wild bombs
//!   ([`Reading::beats`]) and every legal play of a hand with wilds ([`wild_plays`]).
//! - [`mod@deal`]: one deal as a state machine ([`Deal`]) with its phases and decisions
//!   ([`Decision`]), events, errors, timeouts, auto-play (托管), per-seat views and the
//!   record of a finished deal.
#![forbid(unsafe_code)]

pub mod auction;
pub mod bidding;
pub mod card;
pub mod combination;
pub mod deal;
pub mod moves;
pub mod ranks;
pub mod rule_set;
pub mod scoring;
pub mod seat;
pub mod shuffle;
pub mod wild;

pub use auction::{Auction, AuctionCall, AuctionError, AuctionOutcome, AuctionStage, SeatCall};
pub use bidding::{Bid, BidError, BidOutOfRange, Bidding, BiddingOutcome};
pub use card::{Card, CardSet, ParseError, Rank, Suit, parse_card_text};
pub use combination::{Combination, Kind, classify};
pub use deal::{
    ActionError, Actor, Audience, AutoPlayer, Choice, Deal, DealRecord, DealRules, Decision, Event,
    EventBody, NewDealError, Phase, PlayView, ReplayError, SeatBid, SeatDouble, SeatView,
    TimeControl, TimeoutMoves, Trick, Turn, reading_text,
};
pub use moves::{Play, leads, legal_plays, replies};
pub use ranks::RankCounts;
pub use rule_set::RuleSet;
pub use scoring::{
    Escape, Outcome, PlayedOut, Settlement, Stakes, settle, settle_escape, settle_escape_with,
    settle_with,
};
pub use seat::{Seat, first_bidder_of_first_deal, next_first_bidder};
pub use shuffle::{
    Commitment, Dealt, PublishedDealError, Seed, VerifyError, deal, verify, verify_published,
    wild_rank,
};
pub use wild::{BombClass, Reading, ReadingError, WildPlay, read_as, readings, wild_plays};
