//! One deal (一局) as a state machine: bidding, play, timeouts and auto-play (托管),
//! escape, scoring, per-seat views and the record of a finished deal.
//!
//! The dealer service keeps a [`Deal`] serialized between calls. Each action takes the
//! caller's clock (`now_ms`) and returns the [`Event`]s it caused, each tagged with who
//! may see it; a refused action returns an [`ActionError`] and leaves the deal unchanged.

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::bidding::{Bid, BidError, BidOutOfRange, Bidding, BiddingOutcome};
use crate::card::{Card, CardSet};
use crate::combination::{Combination, classify};
use crate::moves::{Play, legal_plays};
use crate::ranks::RankCounts;
use crate::scoring::{self, Outcome, PlayedOut, Settlement, bomb_multiplier};
use crate::seat::Seat;
use crate::shuffle::{self, Commitment, Seed, VerifyError};

/// Longest deal id accepted, in bytes.
pub const MAX_DEAL_ID_LEN: usize = 128;

/// Upper bound on server moves one `check_timeout` or `auto_play_pending` call makes:
/// a deal is over long before (each lead removes a card).
const MAX_SERVER_MOVES: usize = 512;

/// Chooses the plays of a seat on auto-play (托管), from that seat's view only. The deal
/// checks a choice like a seat's own play; a refused one, and `None` when the seat leads,
/// get the timeout move instead. The dealer passes its bot (the rule crate knows none).
pub trait AutoPlayer {
    /// The ranks to play for the seat whose view this is (in the play phase, its turn),
    /// or `None` to pass.
    fn choose(&self, view: &SeatView) -> Option<RankCounts>;

    /// The bid for the seat whose view this is (in bidding, its turn). Auto-play passes
    /// in bidding (the default); a player that bids for a seat (the dealer's bot seats)
    /// says so here. A bid the rules refuse (not above the highest) becomes a pass.
    fn bid(&self, _view: &SeatView) -> Bid {
        Bid::Pass
    }
}

/// Auto-play by the timeout moves: the smallest lead when leading, a pass when following.
#[derive(Debug, Clone, Copy, Default)]
pub struct TimeoutMoves;

impl AutoPlayer for TimeoutMoves {
    fn choose(&self, _view: &SeatView) -> Option<RankCounts> {
        None
    }
}

/// The turn clock of a room.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct TimeControl {
    /// Time a seat has for each turn.
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
    /// The room's points base (底分 multiplier): base = winning bid × this.
    pub points_base: u32,
    pub time: TimeControl,
}

/// Where a deal is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    Bidding,
    Playing,
    Finished,
}

impl std::fmt::Display for Phase {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Phase::Bidding => "bidding",
            Phase::Playing => "playing",
            Phase::Finished => "finished",
        })
    }
}

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
    fn is_seat(&self) -> bool {
        *self == Actor::Seat
    }
}

/// A seat's bid, as shown to everyone.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeatBid {
    pub seat: Seat,
    pub bid: Bid,
}

/// One turn of the play phase: a play, or a pass (no cards).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Turn {
    pub seat: Seat,
    /// The cards played; empty for a pass.
    pub cards: CardSet,
    #[serde(default, skip_serializing_if = "Actor::is_seat")]
    pub by: Actor,
}

impl Turn {
    fn view(&self) -> PlayView {
        PlayView {
            seat: self.seat,
            cards: self.cards.to_vec(),
            combination: classify(&self.cards.rank_counts()),
            by: self.by,
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
    fn public(body: EventBody) -> Event {
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

/// What happened. Serialized with a `type` tag in snake case.
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
    /// `seat` is to act until `deadline_ms`; `lead` when it must play (no pass).
    TurnStarted {
        seat: Seat,
        phase: Phase,
        deadline_ms: u64,
        lead: bool,
    },
    BidMade {
        seat: Seat,
        bid: Bid,
        by: Actor,
    },
    /// Bidding is over: `seat` is landlord, takes the kitty, which is shown to all.
    LandlordChosen {
        seat: Seat,
        bid: Bid,
        kitty: Vec<Card>,
    },
    Played {
        seat: Seat,
        cards: Vec<Card>,
        combination: Combination,
        by: Actor,
        cards_left: u8,
    },
    Passed {
        seat: Seat,
        by: Actor,
    },
    /// A bomb or rocket doubled the multiplier.
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

/// Why an action was refused. The deal is unchanged. Messages never name cards.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
pub enum ActionError {
    #[error("the deal is over")]
    GameOver,
    #[error("not possible during {phase}")]
    WrongPhase { phase: Phase },
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
            ActionError::NotYourTurn { .. } => "not_your_turn",
            ActionError::EmptyPlay => "empty_play",
            ActionError::DuplicateCard => "duplicate_card",
            ActionError::CardsNotInHand => "cards_not_in_hand",
            ActionError::InvalidCombination => "invalid_combination",
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
    bidding: Bidding,
    /// Set when bidding chose a landlord.
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
    bombs: u8,
    rockets: u8,
    /// Consecutive timeouts per seat; two put the seat on auto-play.
    timeouts: [u8; 3],
    /// Seats on auto-play (托管).
    auto_play: [bool; 3],
    settlement: Option<Settlement>,
}

impl Deal {
    /// Shuffles and deals from `seed`, and opens bidding with `first_bidder`.
    /// Returns the deal and its opening events: the public start (with the commitment),
    /// each seat's private hand, the first bidder's turn.
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

    pub fn commitment(&self) -> Commitment {
        Commitment::new(&self.seed, &self.deal_id)
    }

    pub fn phase(&self) -> Phase {
        if self.settlement.is_some() {
            Phase::Finished
        } else if self.landlord.is_some() {
            Phase::Playing
        } else {
            Phase::Bidding
        }
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

    /// The multiplier so far: 2^(bombs + rockets played).
    pub fn multiplier(&self) -> u64 {
        bomb_multiplier(self.bombs, self.rockets)
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
    pub fn legal_plays(&self, seat: Seat) -> Result<Vec<Play>, ActionError> {
        self.check_turn(seat, Phase::Playing)?;
        let hand = self.hands[seat.index()].rank_counts();
        Ok(legal_plays(
            &hand,
            self.trick.as_ref().map(|t| &t.combination),
        ))
    }

    // ---- actions by a seat ---------------------------------------------------------

    /// `seat` bids (or passes, `Bid::Pass`).
    pub fn bid(&mut self, seat: Seat, bid: Bid, now_ms: u64) -> Result<Vec<Event>, ActionError> {
        self.check_turn(seat, Phase::Bidding)?;
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

    /// `seat` plays these cards.
    pub fn play(
        &mut self,
        seat: Seat,
        cards: &[Card],
        now_ms: u64,
    ) -> Result<Vec<Event>, ActionError> {
        self.check_turn(seat, Phase::Playing)?;
        let set: CardSet = cards.iter().copied().collect();
        if set.len() != cards.len() {
            return Err(ActionError::DuplicateCard);
        }
        self.act(seat, |deal, events| {
            deal.apply_play(seat, set, Actor::Seat, now_ms, events)
        })
    }

    /// `seat` passes (不出) on the play on the table.
    pub fn pass(&mut self, seat: Seat, now_ms: u64) -> Result<Vec<Event>, ActionError> {
        self.check_turn(seat, Phase::Playing)?;
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
        let (landlord, bid) = match self.landlord {
            Some(l) => (Some(l.seat), Some(l.bid)),
            None => (None, self.bidding.highest().map(|(_, bid)| bid)),
        };
        let settlement = scoring::settle_escape(
            self.rules.points_base,
            seat,
            landlord,
            bid,
            self.bombs,
            self.rockets,
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

    /// Plays for the seat to act if its deadline has passed, and again for each next
    /// seat whose deadline has also passed: a timeout (a pass in bidding, the smallest
    /// lead when leading, a pass when following), or for a seat on auto-play the same
    /// moves. Two timeouts in a row put a seat on auto-play. Returns no events if no
    /// deadline has passed. [`Deal::check_timeout_with`] lets a player choose the plays of
    /// seats on auto-play.
    pub fn check_timeout(&mut self, now_ms: u64) -> Vec<Event> {
        self.check_timeout_with(now_ms, &TimeoutMoves)
    }

    /// [`Deal::check_timeout`], with `auto` choosing the plays of seats on auto-play (a
    /// seat that merely timed out still gets the timeout move).
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

    /// Plays at once for the seat to act while it is on auto-play, without waiting for
    /// its (short) deadline. For a caller that prefers no pause for such seats.
    pub fn auto_play_pending(&mut self, now_ms: u64) -> Vec<Event> {
        self.auto_play_pending_with(now_ms, &TimeoutMoves)
    }

    /// [`Deal::auto_play_pending`], with `auto` choosing the plays.
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

    /// What the server does for `seat`. For a seat on auto-play, the bid or play `auto`
    /// chooses from the seat's view, if the rules accept it. Otherwise (and on a
    /// timeout) the timeout move: pass in bidding; when leading, the smallest lead, which
    /// is one card of the lowest rank held (its lowest suit, ♠ ♥ ♣ ♦); when following,
    /// pass.
    fn server_move(
        &mut self,
        seat: Seat,
        actor: Actor,
        auto: &dyn AutoPlayer,
        now_ms: u64,
        events: &mut Vec<Event>,
    ) {
        if actor == Actor::AutoPlay && self.phase() == Phase::Bidding {
            let bid = auto.bid(&self.view(seat));
            // A refused bid changes nothing; the pass follows.
            if bid != Bid::Pass && self.apply_bid(seat, bid, actor, now_ms, events).is_ok() {
                return;
            }
        }
        if actor == Actor::AutoPlay && self.phase() == Phase::Playing {
            let chosen = auto
                .choose(&self.view(seat))
                .and_then(|ranks| self.hands[seat.index()].pick(&ranks));
            if let Some(cards) = chosen {
                // A refused play changes nothing; the timeout move follows.
                if self.apply_play(seat, cards, actor, now_ms, events).is_ok() {
                    return;
                }
            } else if self.trick.is_some() {
                let passed = self.apply_pass(seat, actor, now_ms, events);
                debug_assert!(passed.is_ok(), "following, a pass is legal");
                return;
            }
        }
        let result = match self.phase() {
            Phase::Bidding => self.apply_bid(seat, Bid::Pass, actor, now_ms, events),
            Phase::Playing if self.trick.is_some() => self.apply_pass(seat, actor, now_ms, events),
            Phase::Playing => {
                let lowest = self.hands[seat.index()]
                    .iter()
                    .next()
                    .expect("a seat still playing holds a card");
                self.apply_play(seat, CardSet::from_iter([lowest]), actor, now_ms, events)
            }
            Phase::Finished => Ok(()),
        };
        debug_assert!(result.is_ok(), "a server move is always legal");
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
            bids: self
                .bidding
                .bids()
                .map(|(seat, bid)| SeatBid { seat, bid })
                .collect(),
            landlord: self.landlord,
            kitty: self.landlord.map(|_| self.kitty.to_vec()),
            to_act: self.to_act(),
            deadline_ms: self.deadline_ms(),
            trick: self.trick.map(|t| PlayView {
                seat: t.seat,
                cards: t.cards.to_vec(),
                combination: Some(t.combination),
                by: t.by,
            }),
            turns: self.turns.iter().map(Turn::view).collect(),
            multiplier: self.multiplier(),
            auto_play: self.auto_play,
            settlement: self.settlement,
            seed: finished.then_some(self.seed),
        }
    }

    /// The full record of a finished deal (seed, hands, kitty, bids, plays, settlement),
    /// so anyone can check the shuffle. `None` while the deal goes on.
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
            bids: self
                .bidding
                .bids()
                .map(|(seat, bid)| SeatBid { seat, bid })
                .collect(),
            landlord: self.landlord,
            turns: self.turns.iter().map(Turn::view).collect(),
            settlement,
        })
    }

    // ---- the rules -----------------------------------------------------------------

    fn check_turn(&self, seat: Seat, phase: Phase) -> Result<(), ActionError> {
        let now = self.phase();
        if now == Phase::Finished {
            return Err(ActionError::GameOver);
        }
        if now != phase {
            return Err(ActionError::WrongPhase { phase: now });
        }
        if seat != self.to_act {
            return Err(ActionError::NotYourTurn {
                expected: self.to_act,
            });
        }
        Ok(())
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
                self.landlord = Some(SeatBid { seat, bid });
                self.hands[seat.index()] = self.hands[seat.index()].union(self.kitty);
                events.push(Event::public(EventBody::LandlordChosen {
                    seat,
                    bid,
                    kitty: self.kitty.to_vec(),
                }));
                self.start_turn(seat, now_ms, events);
            }
            Some(BiddingOutcome::Redeal) => self.finish(scoring::settle_redeal(), events),
        }
        Ok(())
    }

    fn apply_play(
        &mut self,
        seat: Seat,
        cards: CardSet,
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
        let combination = classify(&cards.rank_counts()).ok_or(ActionError::InvalidCombination)?;
        if let Some(trick) = &self.trick
            && !combination.beats(&trick.combination)
        {
            return Err(ActionError::DoesNotBeat {
                previous: trick.combination,
            });
        }
        let left = hand.difference(cards);
        self.hands[seat.index()] = left;
        self.turns.push(Turn { seat, cards, by });
        self.trick = Some(Trick {
            seat,
            combination,
            cards,
            by,
        });
        self.passes = 0;
        events.push(Event::public(EventBody::Played {
            seat,
            cards: cards.to_vec(),
            combination,
            by,
            cards_left: left.len() as u8,
        }));
        if combination.kind.doubles() {
            if combination.kind == crate::Kind::Rocket {
                self.rockets += 1;
            } else {
                self.bombs += 1;
            }
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
        scoring::settle(&PlayedOut {
            points_base: self.rules.points_base,
            landlord: landlord.seat,
            bid: landlord.bid,
            winner,
            bombs: self.bombs,
            rockets: self.rockets,
            landlord_plays,
            farmer_cards_played,
        })
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

/// A play or pass as a seat sees it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlayView {
    pub seat: Seat,
    /// Empty for a pass.
    pub cards: Vec<Card>,
    /// `None` for a pass.
    pub combination: Option<Combination>,
    pub by: Actor,
}

/// Everything one seat may know of a deal, and nothing more.
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
    pub bids: Vec<SeatBid>,
    /// The landlord and its winning bid, once chosen.
    pub landlord: Option<SeatBid>,
    /// The kitty, once revealed (when the landlord is chosen).
    pub kitty: Option<Vec<Card>>,
    pub to_act: Option<Seat>,
    pub deadline_ms: Option<u64>,
    /// The play to beat; `None` when the seat to act leads.
    pub trick: Option<PlayView>,
    /// Every play and pass so far.
    pub turns: Vec<PlayView>,
    /// 2^(bombs and rockets played).
    pub multiplier: u64,
    pub auto_play: [bool; 3],
    pub settlement: Option<Settlement>,
    /// Revealed when the deal ends.
    pub seed: Option<Seed>,
}

/// A finished deal, complete enough for anyone to re-run the shuffle and replay it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DealRecord {
    pub deal_id: String,
    pub seed: Seed,
    pub commitment: Commitment,
    /// The room settings the deal was scored with.
    pub rules: DealRules,
    pub first_bidder: Seat,
    /// The hands as dealt (before the kitty), seat 0, 1, 2.
    pub hands: [Vec<Card>; 3],
    pub kitty: Vec<Card>,
    pub bids: Vec<SeatBid>,
    pub landlord: Option<SeatBid>,
    /// Every play and pass, in order.
    pub turns: Vec<PlayView>,
    pub settlement: Settlement,
}

/// A record that does not replay.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
pub enum ReplayError {
    #[error(transparent)]
    BadDeal(#[from] NewDealError),
    #[error("step {step} of the record is refused: {error}")]
    Refused { step: usize, error: ActionError },
    #[error("the record ends before the deal does")]
    Unfinished,
}

impl DealRecord {
    /// Replays the bids and turns on a fresh deal from the seed, as the seats' own
    /// actions (an escape last), and returns the settlement they lead to; for a true
    /// record it equals [`DealRecord::settlement`].
    pub fn replay(&self) -> Result<Settlement, ReplayError> {
        let (mut deal, _) = Deal::new(&self.deal_id, self.seed, self.first_bidder, self.rules, 0)?;
        let refused = |step: usize| move |error| ReplayError::Refused { step, error };
        for (step, b) in self.bids.iter().enumerate() {
            deal.bid(b.seat, b.bid, 0).map_err(refused(step))?;
        }
        for (i, turn) in self.turns.iter().enumerate() {
            let step = self.bids.len() + i;
            if turn.cards.is_empty() {
                deal.pass(turn.seat, 0).map_err(refused(step))?;
            } else {
                deal.play(turn.seat, &turn.cards, 0)
                    .map_err(refused(step))?;
            }
        }
        if let Outcome::Escaped { seat } = self.settlement.outcome {
            let step = self.bids.len() + self.turns.len();
            deal.escape(seat, 0).map_err(refused(step))?;
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

    /// Checks the shuffle: the seed matches the commitment and deals these hands.
    pub fn verify(&self) -> Result<(), VerifyError> {
        let hands = [0, 1, 2].map(|i| self.hands[i].iter().copied().collect());
        shuffle::verify(
            &self.seed,
            &self.commitment,
            &self.deal_id,
            &hands,
            self.kitty.iter().copied().collect(),
        )
    }
}
