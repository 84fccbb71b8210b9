//! One deal (一局) as a state machine, for every rule set: bidding (叫分) or the auction
//! (叫地主/抢地主), doubling (加倍), showing the hand (明牌), play, timeouts and
//! auto-play (托管), escape, scoring, per-seat views and the record of a finished deal.
//!
//! The dealer service keeps a [`Deal`] serialized between calls. Each action takes the
//! caller's clock (`now_ms`) and returns the [`Event`]s it caused, each tagged with who
//! may see it; a refused action returns an [`ActionError`] and leaves the deal unchanged.
//!
//! The phases: [`Phase::Bidding`] (the bids of `classic`, the calls and robs of `rob`
//! and `laizi`), then in `rob` and `laizi` [`Phase::Doubling`] (each farmer from the seat
//! after the landlord, then the landlord) and [`Phase::Showing`] (the landlord), then
//! [`Phase::Playing`] (the landlord leads) and [`Phase::Finished`]. [`Deal::decision`]
//! says who is to act and what it must decide.
//!
//! Files: `events` (what seats are told), `view` (what a seat may see), `record` (the
//! finished deal and its replay), `auto` (who decides for a seat on auto-play),
//! `reading` (what a play reads as, wild cards included).

mod auto;
mod events;
mod reading;
mod record;
mod view;

pub use auto::{AutoPlayer, Choice, TimeoutMoves};
pub use events::{Actor, Audience, Event, EventBody};
pub use reading::reading_text;
pub use record::{DealRecord, ReplayError};
pub use view::{PlayView, SeatBid, SeatDouble, SeatView};

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::auction::{Auction, AuctionError, AuctionOutcome, AuctionStage, SeatCall};
use crate::bidding::{Bid, BidError, BidOutOfRange, Bidding, BiddingOutcome};
use crate::card::{Card, CardSet, Rank};
use crate::combination::{Combination, Kind, classify};
use crate::moves::{Play, legal_plays};
use crate::ranks::RankCounts;
use crate::rule_set::RuleSet;
use crate::scoring::{self, Escape, Outcome, PlayedOut, Settlement, Stakes};
use crate::seat::Seat;
use crate::shuffle::{self, Commitment, Seed};
use crate::wild::{self, BombClass, Reading, WildPlay};

/// Longest deal id accepted, in bytes.
pub const MAX_DEAL_ID_LEN: usize = 128;

/// Upper bound on server moves one `check_timeout` or `auto_play_pending` call makes:
/// a deal is over long before (each lead removes a card).
const MAX_SERVER_MOVES: usize = 512;

/// The turn clock of a room.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct TimeControl {
    /// Time a seat has for each turn (each bid, call, rob, double, show or play).
    pub turn_ms: u64,
    /// Time a seat on auto-play (托管) has before the server plays for it. Short so play
    /// keeps moving, not zero so the others can follow what happens.
    pub auto_turn_ms: u64,
}

impl Default for TimeControl {
    fn default() -> TimeControl {
        TimeControl {
            turn_ms: 20_000,
            auto_turn_ms: 1_000,
        }
    }
}

/// The room settings a deal needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct DealRules {
    /// The room's points base (底分): base = winning bid × this in `classic`, this alone
    /// in `rob` and `laizi`.
    pub points_base: u32,
    pub time: TimeControl,
    /// The rule set played; deals stored before rule sets existed are `classic`.
    #[serde(default)]
    pub rule_set: RuleSet,
}

/// Where a deal is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// The bids of `classic`, or the calls and robs of `rob` and `laizi`.
    Bidding,
    /// `rob` and `laizi`: each farmer, then the landlord, says double (加倍) or not.
    Doubling,
    /// `rob` and `laizi`: the landlord says show its hand (明牌) or not.
    Showing,
    Playing,
    Finished,
}

impl std::fmt::Display for Phase {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Phase::Bidding => "bidding",
            Phase::Doubling => "doubling",
            Phase::Showing => "showing",
            Phase::Playing => "playing",
            Phase::Finished => "finished",
        })
    }
}

/// What the seat to act must decide, and the action that decides it. Serialized in
/// snake case.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Decision {
    /// Bid 1, 2, 3 or pass ([`Deal::bid`], `classic`).
    Bid,
    /// Call the landlord or not ([`Deal::call`]).
    Call,
    /// Rob the landlord or not ([`Deal::rob`]).
    Rob,
    /// Double or not ([`Deal::double`]).
    Double,
    /// Show the hand or not ([`Deal::show`]).
    Show,
    /// Play or pass ([`Deal::play`], [`Deal::play_as`], [`Deal::pass`]).
    Play,
}

impl Decision {
    /// The phase in which this decision is made.
    pub const fn phase(self) -> Phase {
        match self {
            Decision::Bid | Decision::Call | Decision::Rob => Phase::Bidding,
            Decision::Double => Phase::Doubling,
            Decision::Show => Phase::Showing,
            Decision::Play => Phase::Playing,
        }
    }

    pub const fn name(self) -> &'static str {
        match self {
            Decision::Bid => "bid",
            Decision::Call => "call",
            Decision::Rob => "rob",
            Decision::Double => "double",
            Decision::Show => "show",
            Decision::Play => "play",
        }
    }
}

impl std::fmt::Display for Decision {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// One turn of the play phase: a play, or a pass (no cards).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Turn {
    pub seat: Seat,
    /// The cards played; empty for a pass.
    pub cards: CardSet,
    #[serde(default, skip_serializing_if = "Actor::is_seat")]
    pub by: Actor,
    /// In `laizi`, the ranks the cards stand for; `None` otherwise and for a pass.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub meant: Option<RankCounts>,
    /// In `laizi`, a bomb's class.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bomb: Option<BombClass>,
}

impl Turn {
    fn view(&self) -> PlayView {
        PlayView {
            seat: self.seat,
            cards: self.cards.to_vec(),
            // What the cards stand for reads as the play's combination (in `laizi` the
            // reading's, as `wild::read_as` classifies `meant`).
            combination: classify(&self.meant.unwrap_or(self.cards.rank_counts())),
            by: self.by,
            meant: self.meant,
            bomb: self.bomb,
        }
    }
}

/// The play on the table that the seat to act must beat.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Trick {
    pub seat: Seat,
    pub combination: Combination,
    pub cards: CardSet,
    #[serde(default, skip_serializing_if = "Actor::is_seat")]
    pub by: Actor,
    /// In `laizi`, the ranks the cards stand for; `None` otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub meant: Option<RankCounts>,
    /// In `laizi`, a bomb's class.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bomb: Option<BombClass>,
}

impl Trick {
    /// What the play reads as, for beating it.
    pub fn reading(&self) -> Reading {
        Reading {
            combination: self.combination,
            bomb: self.bomb,
        }
    }

    fn view(&self) -> PlayView {
        PlayView {
            seat: self.seat,
            cards: self.cards.to_vec(),
            combination: Some(self.combination),
            by: self.by,
            meant: self.meant,
            bomb: self.bomb,
        }
    }
}

/// Why an action was refused. The deal is unchanged. Messages never name cards.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ActionError {
    #[error("the deal is over")]
    GameOver,
    #[error("not possible during {phase}")]
    WrongPhase { phase: Phase },
    #[error("the decision now is to {expected}")]
    WrongDecision { expected: Decision },
    #[error("not your turn: seat {expected} is to act")]
    NotYourTurn { expected: Seat },
    #[error("a play needs at least one card; pass instead")]
    EmptyPlay,
    #[error("a card is listed twice")]
    DuplicateCard,
    #[error("those cards are not all in your hand")]
    CardsNotInHand,
    #[error("those cards are not a combination")]
    InvalidCombination,
    #[error("those cards cannot stand for those ranks")]
    ReadingNotPossible,
    /// The cards allow more than one reading (`laizi`) and the play stated none; each
    /// reading with one `meant` that states it.
    #[error("say which: those cards read as {}", reading::readings_text(.readings))]
    AmbiguousReading { readings: Vec<WildPlay> },
    #[error("that does not beat the {previous} on the table")]
    DoesNotBeat { previous: Combination },
    #[error("you lead: play something, passing is not allowed")]
    CannotPassOnLead,
    #[error("a bid must be higher than {highest}")]
    BidNotHigher { highest: u8 },
    #[error(transparent)]
    BidOutOfRange(#[from] BidOutOfRange),
}

impl ActionError {
    /// A stable snake_case code for the refusal, for APIs and front-ends (which localize
    /// on it, not on the sentence).
    pub const fn code(&self) -> &'static str {
        match self {
            ActionError::GameOver => "deal_over",
            ActionError::WrongPhase { .. } => "wrong_phase",
            ActionError::WrongDecision { .. } => "wrong_decision",
            ActionError::NotYourTurn { .. } => "not_your_turn",
            ActionError::EmptyPlay => "empty_play",
            ActionError::DuplicateCard => "duplicate_card",
            ActionError::CardsNotInHand => "cards_not_in_hand",
            ActionError::InvalidCombination => "invalid_combination",
            ActionError::ReadingNotPossible => "reading_not_possible",
            ActionError::AmbiguousReading { .. } => "ambiguous_reading",
            ActionError::DoesNotBeat { .. } => "does_not_beat",
            ActionError::CannotPassOnLead => "cannot_pass_on_lead",
            ActionError::BidNotHigher { .. } => "bid_not_higher",
            ActionError::BidOutOfRange(_) => "bid_out_of_range",
        }
    }
}

/// A deal could not be started.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
pub enum NewDealError {
    #[error("a deal id is 1 to {MAX_DEAL_ID_LEN} bytes")]
    BadDealId,
}

/// One deal, from the shuffle to the settlement.
///
/// Its `Debug` form and its serialized form show every hand and the seed: they are for
/// the dealer's store, never for a player or a shared log. Players get [`Deal::view`].
/// The fields after `settlement` came with the `rob` and `laizi` rule sets; a deal
/// stored before reads with their defaults (a `classic` deal).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Deal {
    /// Identifies the deal in the commitment, so one seed cannot be reused unnoticed.
    deal_id: String,
    /// Secret until the deal ends; the hands come from it.
    seed: Seed,
    rules: DealRules,
    /// Current hands (the landlord's includes the kitty once taken).
    hands: [CardSet; 3],
    /// Kept apart from the hands so it can be shown once revealed.
    kitty: CardSet,
    /// The bids of `classic` (kept in every rule set for its first bidder).
    bidding: Bidding,
    /// Set when bidding or the auction chose a landlord (with a pass for its bid in
    /// `rob` and `laizi`).
    landlord: Option<SeatBid>,
    /// Whose turn it is; meaningless once finished.
    to_act: Seat,
    /// When the current turn began, for its deadline.
    turn_started_ms: u64,
    /// The play to beat; `None` when the seat to act leads.
    trick: Option<Trick>,
    /// Passes since the last play (two passes give the lead back).
    passes: u8,
    /// Every turn of the play phase, in order.
    turns: Vec<Turn>,
    /// Bombs played: every bomb in `classic` and `rob`, the hard bombs in `laizi`.
    bombs: u8,
    rockets: u8,
    /// Consecutive timeouts per seat; two put the seat on auto-play.
    timeouts: [u8; 3],
    /// Seats on auto-play (托管).
    auto_play: [bool; 3],
    settlement: Option<Settlement>,
    /// The calls and robs (`rob`, `laizi`); `None` in `classic`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    auction: Option<Auction>,
    /// The doubling decisions so far, in turn order (`rob`, `laizi`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    doubles: Vec<SeatDouble>,
    /// Whether the landlord showed its hand; `None` until it decided.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    shown: Option<bool>,
    /// The wild rank (`laizi`), drawn from the seed once the landlord is chosen.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    wild_rank: Option<Rank>,
    /// Soft bombs (`laizi`) played.
    #[serde(default, skip_serializing_if = "is_zero")]
    soft_bombs: u8,
    /// Wild bombs (`laizi`) played.
    #[serde(default, skip_serializing_if = "is_zero")]
    wild_bombs: u8,
}

fn is_zero(n: &u8) -> bool {
    *n == 0
}

impl Deal {
    /// Shuffles and deals from `seed`, and opens bidding (or the auction, in `rob` and
    /// `laizi`) with `first_bidder`. Returns the deal and its opening events: the public
    /// start (with the commitment), each seat's private hand, the first bidder's turn.
    pub fn new(
        deal_id: &str,
        seed: Seed,
        first_bidder: Seat,
        rules: DealRules,
        now_ms: u64,
    ) -> Result<(Deal, Vec<Event>), NewDealError> {
        if deal_id.is_empty() || deal_id.len() > MAX_DEAL_ID_LEN {
            return Err(NewDealError::BadDealId);
        }
        let dealt = shuffle::deal(&seed);
        let deal = Deal {
            deal_id: deal_id.to_owned(),
            seed,
            rules,
            hands: dealt.hands,
            kitty: dealt.kitty,
            bidding: Bidding::new(first_bidder),
            landlord: None,
            to_act: first_bidder,
            turn_started_ms: now_ms,
            trick: None,
            passes: 0,
            turns: Vec::new(),
            bombs: 0,
            rockets: 0,
            timeouts: [0; 3],
            auto_play: [false; 3],
            settlement: None,
            auction: rules
                .rule_set
                .calls_and_robs()
                .then(|| Auction::new(first_bidder)),
            doubles: Vec::new(),
            shown: None,
            wild_rank: None,
            soft_bombs: 0,
            wild_bombs: 0,
        };
        let mut events = vec![Event::public(EventBody::DealStarted {
            deal_id: deal.deal_id.clone(),
            commitment: deal.commitment(),
            first_bidder,
            points_base: rules.points_base,
        })];
        for seat in Seat::ALL {
            events.push(Event {
                audience: Audience::Seat(seat),
                body: EventBody::HandDealt {
                    seat,
                    cards: deal.hands[seat.index()].to_vec(),
                },
            });
        }
        events.push(deal.turn_started());
        Ok((deal, events))
    }

    // ---- what anyone may ask -------------------------------------------------------

    pub fn deal_id(&self) -> &str {
        &self.deal_id
    }

    pub fn rules(&self) -> &DealRules {
        &self.rules
    }

    pub fn rule_set(&self) -> RuleSet {
        self.rules.rule_set
    }

    pub fn commitment(&self) -> Commitment {
        Commitment::new(&self.seed, &self.deal_id)
    }

    pub fn phase(&self) -> Phase {
        if self.settlement.is_some() {
            Phase::Finished
        } else if self.landlord.is_none() {
            Phase::Bidding
        } else if !self.rules.rule_set.calls_and_robs() {
            Phase::Playing
        } else if self.doubles.len() < 3 {
            Phase::Doubling
        } else if self.shown.is_none() {
            Phase::Showing
        } else {
            Phase::Playing
        }
    }

    /// Who is to act and what it must decide, or `None` once finished.
    pub fn decision(&self) -> Option<(Seat, Decision)> {
        let decision = match self.phase() {
            Phase::Finished => return None,
            Phase::Bidding => match self.auction.as_ref().and_then(Auction::stage) {
                None => Decision::Bid,
                Some(AuctionStage::Calling) => Decision::Call,
                Some(AuctionStage::Robbing) => Decision::Rob,
            },
            Phase::Doubling => Decision::Double,
            Phase::Showing => Decision::Show,
            Phase::Playing => Decision::Play,
        };
        Some((self.to_act, decision))
    }

    /// The seat to act, or `None` once finished.
    pub fn to_act(&self) -> Option<Seat> {
        (self.settlement.is_none()).then_some(self.to_act)
    }

    /// When the seat to act runs out of time (shorter for a seat on auto-play), or
    /// `None` once finished.
    pub fn deadline_ms(&self) -> Option<u64> {
        self.to_act().map(|seat| {
            let allowed = if self.auto_play[seat.index()] {
                self.rules.time.auto_turn_ms
            } else {
                self.rules.time.turn_ms
            };
            self.turn_started_ms.saturating_add(allowed)
        })
    }

    pub fn landlord(&self) -> Option<Seat> {
        self.landlord.map(|l| l.seat)
    }

    /// The auction's calls and robs so far (empty in `classic`).
    pub fn calls(&self) -> &[SeatCall] {
        self.auction.as_ref().map_or(&[], Auction::calls)
    }

    /// Robs made in the auction so far.
    pub fn robs(&self) -> u8 {
        self.auction.as_ref().map_or(0, Auction::robs)
    }

    /// The doubling decisions so far, in order.
    pub fn doubles(&self) -> &[SeatDouble] {
        &self.doubles
    }

    /// Whether the landlord showed its hand; `None` until it decided (and in `classic`).
    pub fn shown(&self) -> Option<bool> {
        self.shown
    }

    /// The wild rank (癞子) of a `laizi` deal, once the landlord is chosen.
    pub fn wild_rank(&self) -> Option<Rank> {
        self.wild_rank
    }

    /// The multiplier so far: 2^robs, × 2 if shown, × each bomb's and rocket's factor
    /// (doubles and spring not included; see [`scoring`]).
    pub fn multiplier(&self) -> u64 {
        scoring::multiplier(&self.stakes(), self.bombs, self.rockets)
    }

    pub fn is_on_auto_play(&self, seat: Seat) -> bool {
        self.auto_play[seat.index()]
    }

    pub fn settlement(&self) -> Option<&Settlement> {
        self.settlement.as_ref()
    }

    /// The play the seat to act must beat; `None` when it leads.
    pub fn trick(&self) -> Option<&Trick> {
        self.trick.as_ref()
    }

    /// Once the deal is over, every seat's remaining cards (seat 0, 1, 2, lowest first),
    /// which the end of a deal shows to all (摊牌); empty while it runs and for a redeal.
    pub fn hands_left(&self) -> Vec<Vec<Card>> {
        match self.settlement {
            Some(s) if s.outcome != Outcome::Redeal => Seat::ALL
                .into_iter()
                .map(|s| self.hand(s).to_vec())
                .collect(),
            _ => Vec::new(),
        }
    }

    /// A seat's own hand. Only for that seat's eyes (or the dealer's).
    pub fn hand(&self, seat: Seat) -> CardSet {
        self.hands[seat.index()]
    }

    /// Every distinct play the seat to act may make now (as rank multisets; pick real
    /// cards with [`CardSet::pick`]). Passing is allowed exactly when [`Deal::trick`] is
    /// `Some`.
    ///
    /// In `laizi` these are the cards of [`Deal::wild_plays`] with their readings'
    /// combinations, so the same cards may come more than once and a play of them
    /// without its `meant` may be ambiguous: choose from [`Deal::wild_plays`] there.
    pub fn legal_plays(&self, seat: Seat) -> Result<Vec<Play>, ActionError> {
        self.check_decision(seat, Decision::Play)?;
        let hand = self.hands[seat.index()].rank_counts();
        Ok(match self.wild_rank {
            Some(_) => self
                .wild_plays(seat)?
                .into_iter()
                .map(|p| Play {
                    combination: p.reading.combination,
                    ranks: p.cards,
                })
                .collect(),
            None => legal_plays(&hand, self.trick.as_ref().map(|t| &t.combination)),
        })
    }

    /// Every distinct play the seat to act may make now, as cards (ranks), what they
    /// stand for and their reading; play one with [`Deal::play_as`] and its `meant`. In
    /// every rule set: without wild cards `meant` is the cards themselves and the
    /// reading classic. Passing is allowed exactly when [`Deal::trick`] is `Some`.
    pub fn wild_plays(&self, seat: Seat) -> Result<Vec<WildPlay>, ActionError> {
        self.check_decision(seat, Decision::Play)?;
        let hand = self.hands[seat.index()].rank_counts();
        let previous = self.trick.as_ref().map(Trick::reading);
        Ok(match self.wild_rank {
            Some(wild) => wild::wild_plays(&hand, wild, previous.as_ref()),
            None => legal_plays(&hand, previous.as_ref().map(|r| &r.combination))
                .into_iter()
                .map(|p| WildPlay {
                    cards: p.ranks,
                    meant: p.ranks,
                    reading: Reading::classic(p.combination),
                })
                .collect(),
        })
    }

    // ---- actions by a seat ---------------------------------------------------------

    /// `seat` bids (or passes, `Bid::Pass`), in `classic`.
    pub fn bid(&mut self, seat: Seat, bid: Bid, now_ms: u64) -> Result<Vec<Event>, ActionError> {
        self.check_decision(seat, Decision::Bid)?;
        self.act(seat, |deal, events| {
            deal.apply_bid(seat, bid, Actor::Seat, now_ms, events)
        })
    }

    /// `seat` bids by points: 0 = pass, 1, 2, 3.
    pub fn bid_points(
        &mut self,
        seat: Seat,
        points: u8,
        now_ms: u64,
    ) -> Result<Vec<Event>, ActionError> {
        let bid = Bid::try_from(points)?;
        self.bid(seat, bid, now_ms)
    }

    /// `seat` calls the landlord (叫地主, `yes`) or declines (不叫), in `rob` and `laizi`
    /// while nobody has called.
    pub fn call(&mut self, seat: Seat, yes: bool, now_ms: u64) -> Result<Vec<Event>, ActionError> {
        self.check_decision(seat, Decision::Call)?;
        self.act(seat, |deal, events| {
            deal.apply_auction(seat, yes, Actor::Seat, now_ms, events)
        })
    }

    /// `seat` robs the landlord (抢地主, `yes`) or not (不抢), once a seat has called.
    pub fn rob(&mut self, seat: Seat, yes: bool, now_ms: u64) -> Result<Vec<Event>, ActionError> {
        self.check_decision(seat, Decision::Rob)?;
        self.act(seat, |deal, events| {
            deal.apply_auction(seat, yes, Actor::Seat, now_ms, events)
        })
    }

    /// `seat` doubles (加倍, `yes`) or not, in the doubling phase.
    pub fn double(
        &mut self,
        seat: Seat,
        yes: bool,
        now_ms: u64,
    ) -> Result<Vec<Event>, ActionError> {
        self.check_decision(seat, Decision::Double)?;
        self.act(seat, |deal, events| {
            deal.apply_double(seat, yes, Actor::Seat, now_ms, events)
        })
    }

    /// The landlord shows its hand (明牌, `yes`) or not, before its first lead.
    pub fn show(&mut self, seat: Seat, yes: bool, now_ms: u64) -> Result<Vec<Event>, ActionError> {
        self.check_decision(seat, Decision::Show)?;
        self.act(seat, |deal, events| {
            deal.apply_show(seat, yes, Actor::Seat, now_ms, events)
        })
    }

    /// `seat` plays these cards: [`Deal::play_as`] with no stated meaning.
    pub fn play(
        &mut self,
        seat: Seat,
        cards: &[Card],
        now_ms: u64,
    ) -> Result<Vec<Event>, ActionError> {
        self.play_as(seat, cards, None, now_ms)
    }

    /// `seat` plays these cards, meaning `meant`: in `laizi`, the ranks the cards stand
    /// for (needed when they allow more than one reading); in `classic` and `rob`,
    /// `meant` must be `None` or the cards' own ranks.
    pub fn play_as(
        &mut self,
        seat: Seat,
        cards: &[Card],
        meant: Option<&RankCounts>,
        now_ms: u64,
    ) -> Result<Vec<Event>, ActionError> {
        self.check_decision(seat, Decision::Play)?;
        let set: CardSet = cards.iter().copied().collect();
        if set.len() != cards.len() {
            return Err(ActionError::DuplicateCard);
        }
        let meant = meant.copied();
        self.act(seat, |deal, events| {
            deal.apply_play(seat, set, meant, Actor::Seat, now_ms, events)
        })
    }

    /// `seat` passes (不出) on the play on the table.
    pub fn pass(&mut self, seat: Seat, now_ms: u64) -> Result<Vec<Event>, ActionError> {
        self.check_decision(seat, Decision::Play)?;
        self.act(seat, |deal, events| {
            deal.apply_pass(seat, Actor::Seat, now_ms, events)
        })
    }

    /// `seat` leaves mid-deal (逃跑): the deal ends, the seat pays the escape penalty and
    /// the deal is void for the others.
    pub fn escape(&mut self, seat: Seat, _now_ms: u64) -> Result<Vec<Event>, ActionError> {
        if self.settlement.is_some() {
            return Err(ActionError::GameOver);
        }
        let bid = match self.landlord {
            Some(l) => Some(l.bid),
            None => self.bidding.highest().map(|(_, bid)| bid),
        };
        let settlement = scoring::settle_escape_with(
            &Escape {
                points_base: self.rules.points_base,
                escaper: seat,
                landlord: self.landlord(),
                bid,
                called: self.auction.as_ref().is_some_and(|a| a.caller().is_some()),
                bombs: self.bombs,
                rockets: self.rockets,
            },
            &self.stakes(),
        );
        let mut events = vec![Event::public(EventBody::Escaped { seat })];
        self.finish(settlement, &mut events);
        Ok(events)
    }

    /// A client's 托管 button: put `seat` on auto-play, or take it off. (`now_ms` is
    /// unused, like in [`Deal::escape`]; every action takes the clock.)
    pub fn set_auto_play(
        &mut self,
        seat: Seat,
        on: bool,
        _now_ms: u64,
    ) -> Result<Vec<Event>, ActionError> {
        if self.settlement.is_some() {
            return Err(ActionError::GameOver);
        }
        let mut events = Vec::new();
        self.timeouts[seat.index()] = 0;
        self.set_auto(seat, on, &mut events);
        Ok(events)
    }

    // ---- the server's moves --------------------------------------------------------

    /// Acts for the seat to act if its deadline has passed, and again for each next
    /// seat whose deadline has also passed: a timeout (a pass in bidding, no to a call,
    /// a rob, a double or a show, the smallest lead when leading, a pass when
    /// following), or for a seat on auto-play the same moves. Two timeouts in a row put
    /// a seat on auto-play. Returns no events if no deadline has passed.
    /// [`Deal::check_timeout_with`] lets a player decide for seats on auto-play.
    pub fn check_timeout(&mut self, now_ms: u64) -> Vec<Event> {
        self.check_timeout_with(now_ms, &TimeoutMoves)
    }

    /// [`Deal::check_timeout`], with `auto` deciding for seats on auto-play (a seat that
    /// merely timed out still gets the timeout move).
    pub fn check_timeout_with(&mut self, now_ms: u64, auto: &dyn AutoPlayer) -> Vec<Event> {
        let mut events = Vec::new();
        for _ in 0..MAX_SERVER_MOVES {
            match self.deadline_ms() {
                Some(deadline) if deadline <= now_ms => {}
                _ => break,
            }
            let seat = self.to_act;
            let actor = if self.auto_play[seat.index()] {
                Actor::AutoPlay
            } else {
                Actor::Timeout
            };
            self.server_move(seat, actor, auto, now_ms, &mut events);
            if actor == Actor::Timeout && self.settlement.is_none() {
                let count = &mut self.timeouts[seat.index()];
                *count = count.saturating_add(1);
                if *count >= 2 {
                    self.set_auto(seat, true, &mut events);
                }
            }
        }
        events
    }

    /// Acts at once for the seat to act while it is on auto-play, without waiting for
    /// its (short) deadline. For a caller that prefers no pause for such seats.
    pub fn auto_play_pending(&mut self, now_ms: u64) -> Vec<Event> {
        self.auto_play_pending_with(now_ms, &TimeoutMoves)
    }

    /// [`Deal::auto_play_pending`], with `auto` deciding.
    pub fn auto_play_pending_with(&mut self, now_ms: u64, auto: &dyn AutoPlayer) -> Vec<Event> {
        let mut events = Vec::new();
        for _ in 0..MAX_SERVER_MOVES {
            match self.to_act() {
                Some(seat) if self.auto_play[seat.index()] => {
                    self.server_move(seat, Actor::AutoPlay, auto, now_ms, &mut events);
                }
                _ => break,
            }
        }
        events
    }

    /// What the server does for `seat`. For a seat on auto-play, what `auto` decides
    /// from the seat's view, if the rules accept it. Otherwise (and on a timeout) the
    /// timeout move: pass in bidding; no to a call, a rob, a double or a show; when
    /// leading, the smallest lead, which is one card of the lowest rank held (its lowest
    /// suit, ♠ ♥ ♣ ♦); when following, pass.
    fn server_move(
        &mut self,
        seat: Seat,
        actor: Actor,
        auto: &dyn AutoPlayer,
        now_ms: u64,
        events: &mut Vec<Event>,
    ) {
        let Some((_, decision)) = self.decision() else {
            return;
        };
        if actor == Actor::AutoPlay && self.auto_decides(seat, decision, auto, now_ms, events) {
            return;
        }
        let result = match decision {
            Decision::Bid => self.apply_bid(seat, Bid::Pass, actor, now_ms, events),
            Decision::Call | Decision::Rob => {
                self.apply_auction(seat, false, actor, now_ms, events)
            }
            Decision::Double => self.apply_double(seat, false, actor, now_ms, events),
            Decision::Show => self.apply_show(seat, false, actor, now_ms, events),
            Decision::Play if self.trick.is_some() => self.apply_pass(seat, actor, now_ms, events),
            Decision::Play => {
                let lowest = self.hands[seat.index()]
                    .iter()
                    .next()
                    .expect("a seat still playing holds a card");
                let cards = CardSet::from_iter([lowest]);
                self.apply_play(seat, cards, None, actor, now_ms, events)
            }
        };
        debug_assert!(result.is_ok(), "a server move is always legal");
    }

    /// Lets `auto` decide for `seat`; true if it did and the rules accepted it (a
    /// refused decision changes nothing, and the timeout move follows). A pass by the
    /// auto-player when following is its decision too.
    fn auto_decides(
        &mut self,
        seat: Seat,
        decision: Decision,
        auto: &dyn AutoPlayer,
        now_ms: u64,
        events: &mut Vec<Event>,
    ) -> bool {
        let view = self.view(seat);
        let by = Actor::AutoPlay;
        let result = match decision {
            Decision::Bid => match auto.bid(&view) {
                Bid::Pass => return false,
                bid => self.apply_bid(seat, bid, by, now_ms, events),
            },
            Decision::Call if auto.call(&view) => {
                self.apply_auction(seat, true, by, now_ms, events)
            }
            Decision::Rob if auto.rob(&view) => self.apply_auction(seat, true, by, now_ms, events),
            Decision::Double if auto.double(&view) => {
                self.apply_double(seat, true, by, now_ms, events)
            }
            Decision::Show if auto.show(&view) => self.apply_show(seat, true, by, now_ms, events),
            Decision::Call | Decision::Rob | Decision::Double | Decision::Show => return false,
            Decision::Play => match auto.choose(&view) {
                Some(choice) => match self.hands[seat.index()].pick(&choice.cards) {
                    Some(cards) => self.apply_play(seat, cards, choice.meant, by, now_ms, events),
                    None => return false,
                },
                None if self.trick.is_some() => self.apply_pass(seat, by, now_ms, events),
                None => return false,
            },
        };
        result.is_ok()
    }

    // ---- views and record ----------------------------------------------------------

    /// What `seat` may see of the deal.
    pub fn view(&self, seat: Seat) -> SeatView {
        let finished = self.settlement.is_some();
        SeatView {
            seat,
            deal_id: self.deal_id.clone(),
            commitment: self.commitment(),
            phase: self.phase(),
            hand: self.hands[seat.index()].to_vec(),
            cards_left: self.hands.map(|h| h.len() as u8),
            first_bidder: self.bidding.first_bidder(),
            bids: self.bids(),
            landlord: self.landlord,
            kitty: self.landlord.map(|_| self.kitty.to_vec()),
            to_act: self.to_act(),
            deadline_ms: self.deadline_ms(),
            trick: self.trick.map(|t| t.view()),
            turns: self.turns.iter().map(Turn::view).collect(),
            multiplier: self.multiplier(),
            auto_play: self.auto_play,
            settlement: self.settlement,
            seed: finished.then_some(self.seed),
            rule_set: self.rules.rule_set,
            decision: self.decision().map(|(_, decision)| decision),
            calls: self.calls().to_vec(),
            doubles: self.doubles.clone(),
            shown: self.shown,
            landlord_hand: match (self.shown, self.landlord) {
                (Some(true), Some(landlord)) => Some(self.hand(landlord.seat).to_vec()),
                _ => None,
            },
            wild_rank: self.wild_rank,
        }
    }

    /// The full record of a finished deal (seed, hands, kitty, every decision and play,
    /// settlement), so anyone can check the shuffle and replay it. `None` while the deal
    /// goes on.
    pub fn record(&self) -> Option<DealRecord> {
        let settlement = self.settlement?;
        let dealt = shuffle::deal(&self.seed);
        Some(DealRecord {
            deal_id: self.deal_id.clone(),
            seed: self.seed,
            commitment: self.commitment(),
            rules: self.rules,
            first_bidder: self.bidding.first_bidder(),
            hands: dealt.hands.map(CardSet::to_vec),
            kitty: dealt.kitty.to_vec(),
            bids: self.bids(),
            landlord: self.landlord,
            turns: self.turns.iter().map(Turn::view).collect(),
            settlement,
            calls: self.calls().to_vec(),
            doubles: self.doubles.clone(),
            shown: self.shown,
            wild_rank: self.wild_rank,
        })
    }

    fn bids(&self) -> Vec<SeatBid> {
        self.bidding
            .bids()
            .map(|(seat, bid)| SeatBid { seat, bid })
            .collect()
    }

    // ---- the rules -----------------------------------------------------------------

    /// Whether `seat` may make `wanted` now: the deal runs, it is the phase for it, the
    /// decision of the moment (a call is not a rob, a bid is not a call), `seat`'s turn.
    fn check_decision(&self, seat: Seat, wanted: Decision) -> Result<(), ActionError> {
        let Some((to_act, expected)) = self.decision() else {
            return Err(ActionError::GameOver);
        };
        if wanted.phase() != expected.phase() {
            return Err(ActionError::WrongPhase {
                phase: self.phase(),
            });
        }
        if wanted != expected {
            return Err(ActionError::WrongDecision { expected });
        }
        if seat != to_act {
            return Err(ActionError::NotYourTurn { expected: to_act });
        }
        Ok(())
    }

    /// What this deal's rule set adds to the stakes, so far.
    fn stakes(&self) -> Stakes {
        let mut doubled = [false; 3];
        for d in &self.doubles {
            doubled[d.seat.index()] = d.double;
        }
        Stakes {
            rule_set: self.rules.rule_set,
            robs: self.robs(),
            doubled,
            shown: self.shown == Some(true),
            soft_bombs: self.soft_bombs,
            wild_bombs: self.wild_bombs,
        }
    }

    /// Runs a seat's own action. Acting clears the seat's timeouts and auto-play first,
    /// so the turn that follows (its own, when its bid made it landlord) gets the full
    /// time; a refused action restores them.
    fn act(
        &mut self,
        seat: Seat,
        action: impl FnOnce(&mut Deal, &mut Vec<Event>) -> Result<(), ActionError>,
    ) -> Result<Vec<Event>, ActionError> {
        let saved = (self.timeouts, self.auto_play);
        let mut events = Vec::new();
        self.timeouts[seat.index()] = 0;
        self.set_auto(seat, false, &mut events);
        match action(self, &mut events) {
            Ok(()) => Ok(events),
            Err(error) => {
                (self.timeouts, self.auto_play) = saved;
                Err(error)
            }
        }
    }

    fn set_auto(&mut self, seat: Seat, on: bool, events: &mut Vec<Event>) {
        if self.auto_play[seat.index()] != on {
            self.auto_play[seat.index()] = on;
            events.push(Event::public(EventBody::AutoPlayChanged { seat, on }));
        }
    }

    fn apply_bid(
        &mut self,
        seat: Seat,
        bid: Bid,
        by: Actor,
        now_ms: u64,
        events: &mut Vec<Event>,
    ) -> Result<(), ActionError> {
        let outcome = self.bidding.bid(seat, bid).map_err(|e| match e {
            BidError::BiddingOver => ActionError::WrongPhase {
                phase: self.phase(),
            },
            BidError::NotYourTurn { expected } => ActionError::NotYourTurn { expected },
            BidError::BidNotHigher { highest } => ActionError::BidNotHigher { highest },
        })?;
        events.push(Event::public(EventBody::BidMade { seat, bid, by }));
        match outcome {
            None => self.start_turn(seat.next(), now_ms, events),
            Some(BiddingOutcome::Landlord { seat, bid }) => {
                self.choose_landlord(seat, bid, now_ms, events);
            }
            Some(BiddingOutcome::Redeal) => self.finish(self.redeal(), events),
        }
        Ok(())
    }

    /// A call or a rob, whichever the auction's stage asks for (the caller checked).
    fn apply_auction(
        &mut self,
        seat: Seat,
        yes: bool,
        by: Actor,
        now_ms: u64,
        events: &mut Vec<Event>,
    ) -> Result<(), ActionError> {
        let auction = self.auction.as_mut().ok_or(ActionError::WrongDecision {
            expected: Decision::Bid,
        })?;
        let stage = auction.stage();
        let outcome = auction.act(seat, yes).map_err(|e| match e {
            AuctionError::AuctionOver => ActionError::WrongPhase {
                phase: self.phase(),
            },
            AuctionError::NotYourTurn { expected } => ActionError::NotYourTurn { expected },
        })?;
        if stage == Some(AuctionStage::Robbing) {
            events.push(Event::public(EventBody::Robbed { seat, rob: yes, by }));
            if yes {
                events.push(Event::public(EventBody::MultiplierChanged {
                    multiplier: self.multiplier(),
                }));
            }
        } else {
            events.push(Event::public(EventBody::Called {
                seat,
                call: yes,
                by,
            }));
        }
        match outcome {
            None => {
                let next = self.auction.as_ref().and_then(Auction::to_act);
                self.start_turn(next.expect("the auction goes on"), now_ms, events);
            }
            Some(AuctionOutcome::Landlord { seat, .. }) => {
                self.choose_landlord(seat, Bid::Pass, now_ms, events);
            }
            Some(AuctionOutcome::Redeal) => self.finish(self.redeal(), events),
        }
        Ok(())
    }

    /// The landlord takes the kitty, shown to all; in `laizi` the wild rank is drawn;
    /// then doubling (`rob`, `laizi`) or play (`classic`) begins.
    fn choose_landlord(&mut self, seat: Seat, bid: Bid, now_ms: u64, events: &mut Vec<Event>) {
        self.landlord = Some(SeatBid { seat, bid });
        self.hands[seat.index()] = self.hands[seat.index()].union(self.kitty);
        events.push(Event::public(EventBody::LandlordChosen {
            seat,
            bid,
            kitty: self.kitty.to_vec(),
            robs: self.robs(),
        }));
        if self.rules.rule_set.has_wilds() {
            let rank = shuffle::wild_rank(&self.seed);
            self.wild_rank = Some(rank);
            events.push(Event::public(EventBody::WildRankDrawn { rank }));
        }
        let first = if self.rules.rule_set.calls_and_robs() {
            self.doubling_order()[0]
        } else {
            seat
        };
        self.start_turn(first, now_ms, events);
    }

    /// Who doubles, in order: the farmers from the seat after the landlord, then the
    /// landlord.
    fn doubling_order(&self) -> [Seat; 3] {
        let landlord = self.landlord().expect("doubling follows the landlord");
        [landlord.next(), landlord.next().next(), landlord]
    }

    fn apply_double(
        &mut self,
        seat: Seat,
        double: bool,
        by: Actor,
        now_ms: u64,
        events: &mut Vec<Event>,
    ) -> Result<(), ActionError> {
        let order = self.doubling_order();
        debug_assert_eq!(order.get(self.doubles.len()), Some(&seat));
        self.doubles.push(SeatDouble { seat, double, by });
        events.push(Event::public(EventBody::Doubled { seat, double, by }));
        // After the landlord's double, its own turn to show.
        let next = order.get(self.doubles.len()).copied().unwrap_or(order[2]);
        self.start_turn(next, now_ms, events);
        Ok(())
    }

    fn apply_show(
        &mut self,
        seat: Seat,
        show: bool,
        by: Actor,
        now_ms: u64,
        events: &mut Vec<Event>,
    ) -> Result<(), ActionError> {
        debug_assert_eq!(self.landlord(), Some(seat));
        self.shown = Some(show);
        events.push(Event::public(EventBody::Showed { seat, show, by }));
        if show {
            events.push(Event::public(EventBody::HandShown {
                seat,
                cards: self.hand(seat).to_vec(),
            }));
            events.push(Event::public(EventBody::MultiplierChanged {
                multiplier: self.multiplier(),
            }));
        }
        self.start_turn(seat, now_ms, events);
        Ok(())
    }

    fn apply_play(
        &mut self,
        seat: Seat,
        cards: CardSet,
        meant: Option<RankCounts>,
        by: Actor,
        now_ms: u64,
        events: &mut Vec<Event>,
    ) -> Result<(), ActionError> {
        if cards.is_empty() {
            return Err(ActionError::EmptyPlay);
        }
        let hand = self.hands[seat.index()];
        if !cards.is_subset(hand) {
            return Err(ActionError::CardsNotInHand);
        }
        let (reading, meant) =
            reading::read_play(&cards.rank_counts(), self.wild_rank, meant.as_ref())?;
        if let Some(trick) = &self.trick
            && !reading.beats(&trick.reading())
        {
            return Err(ActionError::DoesNotBeat {
                previous: trick.combination,
            });
        }
        let Reading { combination, bomb } = reading;
        let left = hand.difference(cards);
        self.hands[seat.index()] = left;
        self.turns.push(Turn {
            seat,
            cards,
            by,
            meant,
            bomb,
        });
        self.trick = Some(Trick {
            seat,
            combination,
            cards,
            by,
            meant,
            bomb,
        });
        self.passes = 0;
        events.push(Event::public(EventBody::Played {
            seat,
            cards: cards.to_vec(),
            combination,
            by,
            cards_left: left.len() as u8,
            meant,
            bomb,
        }));
        if self.count_bomb(&reading) {
            events.push(Event::public(EventBody::MultiplierChanged {
                multiplier: self.multiplier(),
            }));
        }
        if left.is_empty() {
            let settlement = self.settle_played_out(seat);
            self.finish(settlement, events);
        } else {
            self.start_turn(seat.next(), now_ms, events);
        }
        Ok(())
    }

    /// Counts a bomb or the rocket by its class (a hard bomb of `laizi` is counted with
    /// the bombs of `classic`, scored by the rule set); true if `reading` is one.
    fn count_bomb(&mut self, reading: &Reading) -> bool {
        let count = match (reading.combination.kind, reading.bomb) {
            (Kind::Rocket, _) => &mut self.rockets,
            (Kind::Bomb, Some(BombClass::Soft)) => &mut self.soft_bombs,
            (Kind::Bomb, Some(BombClass::Wild)) => &mut self.wild_bombs,
            (Kind::Bomb, None | Some(BombClass::Hard)) => &mut self.bombs,
            _ => return false,
        };
        *count += 1;
        debug_assert!(reading.multiplier_factor() > 1);
        true
    }

    fn apply_pass(
        &mut self,
        seat: Seat,
        by: Actor,
        now_ms: u64,
        events: &mut Vec<Event>,
    ) -> Result<(), ActionError> {
        if self.trick.is_none() {
            return Err(ActionError::CannotPassOnLead);
        }
        self.turns.push(Turn {
            seat,
            cards: CardSet::EMPTY,
            by,
            meant: None,
            bomb: None,
        });
        self.passes += 1;
        events.push(Event::public(EventBody::Passed { seat, by }));
        if self.passes == 2 {
            // Both others passed: the last player leads anything.
            self.trick = None;
            self.passes = 0;
        }
        self.start_turn(seat.next(), now_ms, events);
        Ok(())
    }

    fn settle_played_out(&self, winner: Seat) -> Settlement {
        let landlord = self
            .landlord
            .expect("cards are only played once a landlord is chosen");
        let landlord_plays = self
            .turns
            .iter()
            .filter(|t| t.seat == landlord.seat && !t.cards.is_empty())
            .count() as u32;
        let farmer_cards_played = self
            .turns
            .iter()
            .filter(|t| t.seat != landlord.seat)
            .map(|t| t.cards.len() as u32)
            .sum();
        scoring::settle_with(
            &PlayedOut {
                points_base: self.rules.points_base,
                landlord: landlord.seat,
                bid: landlord.bid,
                winner,
                bombs: self.bombs,
                rockets: self.rockets,
                landlord_plays,
                farmer_cards_played,
            },
            &self.stakes(),
        )
    }

    fn redeal(&self) -> Settlement {
        Settlement {
            rule_set: self.rules.rule_set,
            ..scoring::settle_redeal()
        }
    }

    fn start_turn(&mut self, seat: Seat, now_ms: u64, events: &mut Vec<Event>) {
        self.to_act = seat;
        self.turn_started_ms = now_ms;
        events.push(self.turn_started());
    }

    fn turn_started(&self) -> Event {
        Event::public(EventBody::TurnStarted {
            seat: self.to_act,
            phase: self.phase(),
            deadline_ms: self.deadline_ms().unwrap_or(self.turn_started_ms),
            lead: self.phase() == Phase::Playing && self.trick.is_none(),
        })
    }

    fn finish(&mut self, settlement: Settlement, events: &mut Vec<Event>) {
        self.settlement = Some(settlement);
        self.trick = None;
        events.push(Event::public(EventBody::DealEnded {
            settlement,
            seed: self.seed,
            hands_left: self.hands_left(),
        }));
    }
}
