//! A table as stored in Redis: the room, the three players, the current deal (the
//! rules crate's [`Deal`], kept whole) and where the table is between deals.
//!
//! Every function here is pure (the state, the rules crate and its bot; no protobuf, no
//! store): it takes the caller's clock and returns a [`Step`]: the [`TableEvent`]s it
//! caused, each with its audience, in the table's words, and the deal it ended with a
//! result to settle. The service wraps each in one atomic store step; what the API
//! shows of the events is [`crate::view`]'s, the ledger's request [`crate::settle`]'s.
//! No rule is decided here: bids, plays, passes, timeouts, auto-play, escape and
//! scoring are the crate's. The plays of a seat on auto-play (托管) are the bots crate's
//! Dou Dizhu bot ([`AutoPlay`]), chosen from that seat's view and checked by the crate;
//! it is deterministic, so a step re-run after a lost race plays the same.
//!
//! A bot seat (a friends' table's owner added the platform's bot, [`Table::bots`]) is on
//! auto-play for good: put on it as each deal is dealt (announced once, at the opening),
//! never taken off it (its own bids, plays, passes and `SetAutoPlay(off)` are refused),
//! and ready for the next deal from the step that ended the last one.

use doudizhu_rules::{
    Actor, Audience, AutoPlayer, Bid, Card, Choice, Deal, DealRules, Event, EventBody, Outcome,
    RankCounts, RuleSet, Seat, Seed, TimeControl, next_first_bidder,
};
use gamehub_bots::doudizhu::{AutoPlay, BotSeat};
use serde::{Deserialize, Serialize};

use crate::error::DealerError;

/// The money side of the room, as the table keeps it for its settlements: the one
/// stakes type every service checks and stores. Tables stored before it kept a shape of
/// their own (no `rated`, which a Dou Dizhu room never is) still read as it.
pub use gamehub_terms::Stakes;

/// A deal's rules at a table with these stakes, clock and rule set. The points base
/// fits 32 bits: OpenTable refuses any other.
fn deal_rules(stakes: &Stakes, time: TimeControl, rule_set: RuleSet) -> DealRules {
    DealRules {
        points_base: u32::try_from(stakes.points_base).unwrap_or(u32::MAX),
        time,
        rule_set,
    }
}

/// The plays and decisions the server makes for seats: a bot seat's are the platform
/// bot's ([`BotSeat`]: it bids, calls, robs, doubles and shows from its cards), a seat on
/// auto-play's (托管) are [`AutoPlay`]'s (it passes in bidding and declines every other
/// decision, docs/rules.md#timeouts-and-auto-play).
struct ServerPlayers {
    bots: [bool; 3],
}

impl ServerPlayers {
    fn player(&self, view: &doudizhu_rules::SeatView) -> &'static dyn AutoPlayer {
        if self.bots[view.seat.index()] {
            &BotSeat
        } else {
            &AutoPlay
        }
    }
}

impl AutoPlayer for ServerPlayers {
    fn choose(&self, view: &doudizhu_rules::SeatView) -> Option<Choice> {
        self.player(view).choose(view)
    }

    fn bid(&self, view: &doudizhu_rules::SeatView) -> Bid {
        self.player(view).bid(view)
    }

    fn call(&self, view: &doudizhu_rules::SeatView) -> bool {
        self.player(view).call(view)
    }

    fn rob(&self, view: &doudizhu_rules::SeatView) -> bool {
        self.player(view).rob(view)
    }

    fn double(&self, view: &doudizhu_rules::SeatView) -> bool {
        self.player(view).double(view)
    }

    fn show(&self, view: &doudizhu_rules::SeatView) -> bool {
        self.player(view).show(view)
    }
}

/// Server-side timing of every table (from the dealer's configuration).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timing {
    /// Time a seat on auto-play gets before the server plays for it; 0 plays for it in
    /// the very step that made it its turn.
    pub auto_turn_ms: u64,
    /// Pause between a redeal (all passed) and the next deal.
    pub redeal_pause_ms: u64,
    /// Time the three seats have, after a deal ended, to ask for the next one before
    /// the table closes.
    pub next_deal_timeout_ms: u64,
}

/// Where the table is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "stage")]
pub enum Stage {
    /// The deal is being bid or played.
    Dealing,
    /// The deal ended; waiting for every seat's NextDeal until `until_ms`.
    BetweenDeals { ready: [bool; 3], until_ms: u64 },
    /// The next deal is due at `at_ms` (all seats ready, or a redeal). It is dealt by a
    /// separate step that first archives the finished deal.
    NextDealDue { at_ms: u64 },
    /// The table is over.
    Closed { reason: CloseReason, at_ms: u64 },
}

/// Why a table closed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CloseReason {
    /// A player left during a deal (逃跑).
    Escape,
    /// A player left between deals.
    Left,
    /// The seats did not all ask for the next deal in time.
    Abandoned,
    /// An operator closed it (`closed_note` says who and why).
    Operator,
}

/// What the ledger did for one seat, once it acknowledged the deal.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeatSettled {
    pub points_delta: i64,
    pub silver_delta: i64,
}

/// How a seat's player is shown at the table: what OpenTable gave (the name, title and
/// rating it had when the table opened), kept as is for the table's life.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Profile {
    /// Display name (昵称); empty: shown by its id.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub name: String,
    /// Title (称号) in Dou Dizhu; empty when unknown.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub title: String,
    /// A rating, as given (Gomoku's; 0 for Dou Dizhu).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub rating: i64,
    /// The rating's rank name, as given.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub rank_name: String,
}

fn is_zero(n: &i64) -> bool {
    *n == 0
}

fn all_default<T: Default + PartialEq>(items: &[T; 3]) -> bool {
    items.iter().all(|item| *item == T::default())
}

/// One table, as stored.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Table {
    pub id: String,
    pub stakes: Stakes,
    pub time: TimeControl,
    /// Player ids by seat.
    pub players: [String; 3],
    /// Digest of the OpenTable request, so a retry is told apart from a reuse of its id.
    pub open_digest: String,
    pub opened_ms: u64,
    /// The current deal's number, from 1; redeals count.
    pub deal_number: u32,
    /// The current deal's first bidder (the next deal's is the seat after it).
    pub first_bidder: Seat,
    /// The current deal, whole: hands and seed included. Never sent to anyone as is.
    pub deal: Deal,
    pub deal_started_ms: u64,
    #[serde(default)]
    pub deal_ended_ms: u64,
    /// Who chose each bid (classic), or each call and rob (the other rule sets), of the
    /// current deal, in order (the crate's view keeps only the bids and calls).
    #[serde(default)]
    pub bid_actors: Vec<Actor>,
    pub stage: Stage,
    /// The ledger's answer for the current deal, once settled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub settled: Option<[SeatSettled; 3]>,
    /// `settled` is the ledger's first answer to a different result of this deal (it
    /// stands; see [`Table::settled`]).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub settled_adopted: bool,
    /// Redeals in a row in which no seat bid or called itself (all by timeout or
    /// auto-play); two close the table, whose players are evidently gone.
    #[serde(default)]
    pub idle_redeals: u8,
    /// Test hook (refused in production): seeds for the next deals, first one next.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub test_seeds: Vec<Seed>,
    /// An operator's close: "closed by operator NAME: REASON".
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub closed_note: String,
    /// How each seat's player is shown, by seat. Tables stored before profiles have
    /// none: their players are shown by id.
    #[serde(default, skip_serializing_if = "all_default")]
    pub profiles: [Profile; 3],
    /// Seats the platform's bot plays (at most two): on auto-play (托管) for good and
    /// always ready for the next deal.
    #[serde(default, skip_serializing_if = "all_default")]
    pub bots: [bool; 3],
    /// A friends' table (好友房): its deals' records and settlements say so.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub friends_table: bool,
    /// The seat whose player left (the table closed then); tables stored before this
    /// was kept do not say.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub left: Option<usize>,
    /// The room's rule set; tables stored before rule sets are classic.
    #[serde(default, skip_serializing_if = "is_classic")]
    pub rule_set: RuleSet,
}

fn is_classic(rule_set: &RuleSet) -> bool {
    *rule_set == RuleSet::Classic
}

/// Something that happened at the table, as its watchers are told: when, in which
/// deal, who may see it, and what. [`crate::view::event`] turns it into the API's
/// `TableEvent`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableEvent {
    /// When (Unix ms).
    pub at_ms: u64,
    /// The deal it belongs to.
    pub deal_number: u32,
    /// Everyone, or one seat only (its own hand).
    pub audience: Audience,
    /// What happened.
    pub kind: EventKind,
}

/// What happened at the table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EventKind {
    /// The table opened.
    TableOpened {
        /// Player ids by seat.
        players: [String; 3],
        /// The room's money side.
        stakes: Stakes,
        /// Time per turn.
        turn_ms: u64,
    },
    /// What the rules crate said happened in the deal (bids, plays, passes, hands dealt,
    /// the end of the deal, …).
    Deal(EventBody),
    /// A seat asked for the next deal (准备).
    ReadyForNextDeal {
        /// The seat.
        seat: Seat,
    },
    /// The table closed.
    TableClosed {
        /// Why.
        reason: CloseReason,
        /// An operator's note ("closed by operator NAME: REASON"), else empty.
        note: String,
    },
    /// The ledger settled a deal.
    DealSettled {
        /// The deal's id at the ledger.
        game_id: String,
        /// What the ledger did for each seat.
        seats: [SeatSettled; 3],
        /// The ledger's first answer to a different result of the deal, which stands.
        adopted: bool,
    },
}

/// What one action changed besides the state.
#[derive(Debug, Default)]
pub struct Step {
    /// Events to append, with their audiences.
    pub events: Vec<TableEvent>,
    /// The number of the deal this step ended with a result for the ledger (not a
    /// redeal): the table's current deal, for [`crate::settle`] to settle.
    pub ended: Option<u32>,
    /// The next deal is due now: the service deals it in a step of its own.
    pub advance: bool,
}

/// The cards of a play, as the request gave them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PlayCards {
    /// Ranks only: the server picks the cards from the hand, lowest suit first.
    Ranks(RankCounts),
    /// Exact cards.
    Cards(Vec<Card>),
}

/// The yes-or-no decisions of the rule sets that call and rob.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum YesOrNo {
    /// 叫地主 or 不叫.
    Call,
    /// 抢地主 or 不抢.
    Rob,
    /// 加倍 or not.
    Double,
    /// 明牌 or not.
    Show,
}

/// What the clock did to a table.
#[derive(Debug)]
pub enum Clock {
    /// Nothing is due yet.
    NotDue,
    /// A timeout or an abandonment was applied.
    Applied(Step),
    /// The next deal is due; deal it with [`Table::start_next_deal`].
    AdvanceDue,
}

/// Everything needed to open a table.
#[derive(Debug, Clone)]
pub struct Opening {
    pub table_id: String,
    pub stakes: Stakes,
    pub turn_ms: u64,
    pub players: [String; 3],
    pub open_digest: String,
    pub first_bidder: Seat,
    /// Seeds for the deals, first one first (only the first is required).
    pub seeds: Vec<Seed>,
    /// How each seat's player is shown.
    pub profiles: [Profile; 3],
    /// Seats the platform's bot plays (at most two).
    pub bots: [bool; 3],
    /// A friends' table.
    pub friends_table: bool,
    /// The room's rule set.
    pub rule_set: RuleSet,
}

/// Redeals in a row without any seat's own bid that close a table as abandoned.
const MAX_IDLE_REDEALS: u8 = 2;

/// The deal id (and ledger game id) of a table's deal: `<table_id>:<deal_number>`.
pub fn deal_id(table_id: &str, deal_number: u32) -> String {
    format!("{table_id}:{deal_number}")
}

/// The deal number of a [`deal_id`], if it is one.
pub fn deal_number_of(deal_id: &str) -> Option<u32> {
    deal_id
        .rsplit_once(':')
        .and_then(|(_, n)| n.parse::<u32>().ok())
}

/// Appends events of one deal, stamped with the time and the deal number.
struct Emitter {
    now_ms: u64,
    deal_number: u32,
}

impl Emitter {
    fn new(table: &Table, now_ms: u64) -> Emitter {
        Emitter {
            now_ms,
            deal_number: table.deal_number,
        }
    }

    fn event(&self, audience: Audience, kind: EventKind) -> TableEvent {
        TableEvent {
            at_ms: self.now_ms,
            deal_number: self.deal_number,
            audience,
            kind,
        }
    }

    fn public(&self, step: &mut Step, kind: EventKind) {
        step.events.push(self.event(Audience::All, kind));
    }
}

impl Table {
    /// Opens a table and deals its first deal.
    pub fn open(
        opening: Opening,
        timing: Timing,
        now_ms: u64,
    ) -> Result<(Table, Step), DealerError> {
        let mut seeds = opening.seeds.into_iter();
        let first_seed = seeds.next().ok_or(DealerError::NoSeed)?;
        let time = TimeControl {
            turn_ms: opening.turn_ms,
            auto_turn_ms: timing.auto_turn_ms,
        };
        let rules = deal_rules(&opening.stakes, time, opening.rule_set);
        debug_assert!(
            opening.bots.iter().filter(|b| **b).count() < 3,
            "a table has a human seat"
        );
        let (deal, mut deal_events) = Deal::new(
            &deal_id(&opening.table_id, 1),
            first_seed,
            opening.first_bidder,
            rules,
            now_ms,
        )?;
        let mut table = Table {
            id: opening.table_id,
            stakes: opening.stakes,
            time,
            players: opening.players,
            open_digest: opening.open_digest,
            opened_ms: now_ms,
            deal_number: 1,
            first_bidder: opening.first_bidder,
            deal,
            deal_started_ms: now_ms,
            deal_ended_ms: 0,
            bid_actors: Vec::new(),
            stage: Stage::Dealing,
            settled: None,
            settled_adopted: false,
            idle_redeals: 0,
            test_seeds: seeds.collect(),
            closed_note: String::new(),
            profiles: opening.profiles,
            bots: opening.bots,
            friends_table: opening.friends_table,
            left: None,
            rule_set: opening.rule_set,
        };
        table.bots_on_auto_play(&mut deal_events, now_ms, true);
        let mut step = Step::default();
        let emit = Emitter::new(&table, now_ms);
        emit.public(
            &mut step,
            EventKind::TableOpened {
                players: table.players.clone(),
                stakes: table.stakes.clone(),
                turn_ms: table.time.turn_ms,
            },
        );
        table.after(deal_events, now_ms, timing, &mut step);
        Ok((table, step))
    }

    /// Whether the platform's bot plays `seat`.
    pub fn is_bot(&self, seat: Seat) -> bool {
        self.bots[seat.index()]
    }

    /// Refuses an action only the seat's player makes: a bot seat's moves are auto-play's.
    fn played_by_its_player(&self, seat: Seat) -> Result<(), DealerError> {
        if self.is_bot(seat) {
            return Err(DealerError::BotSeat(seat.number()));
        }
        Ok(())
    }

    /// Who chooses for the seats the server plays: the bot at bot seats, auto-play at
    /// the others.
    fn server_players(&self) -> ServerPlayers {
        ServerPlayers { bots: self.bots }
    }

    /// Puts the bot seats of a deal just dealt on auto-play (every deal starts with it
    /// off), before its first turn: `events` are the deal's opening events, whose turn
    /// deadline becomes a bot's when a bot bids first. Watchers hear of it only when
    /// `announce` (the table's opening): a bot seat stays on auto-play for good.
    fn bots_on_auto_play(&mut self, events: &mut Vec<Event>, now_ms: u64, announce: bool) {
        let mut changed = Vec::new();
        let bots = self.bots;
        for seat in Seat::ALL.into_iter().filter(|s| bots[s.index()]) {
            // A deal just dealt is not over, so the crate never refuses this.
            if let Ok(on) = self.deal.set_auto_play(seat, true, now_ms) {
                changed.extend(on);
            }
        }
        if changed.is_empty() {
            return;
        }
        let deadline = self.deal.deadline_ms();
        let mut at = events.len();
        for (i, event) in events.iter_mut().enumerate() {
            if let EventBody::TurnStarted { deadline_ms, .. } = &mut event.body {
                *deadline_ms = deadline.unwrap_or(*deadline_ms);
                at = at.min(i);
            }
        }
        if announce {
            events.splice(at..at, changed);
        }
    }

    /// The seat of `player_id`, if seated here.
    pub fn seat_of(&self, player_id: &str) -> Option<Seat> {
        Seat::ALL
            .into_iter()
            .find(|seat| self.players[seat.index()] == player_id)
    }

    pub fn is_closed(&self) -> bool {
        matches!(self.stage, Stage::Closed { .. })
    }

    /// When the sweeper must look at the table next (Unix ms), if ever.
    pub fn deadline_ms(&self) -> Option<u64> {
        match self.stage {
            Stage::Dealing => self.deal.deadline_ms(),
            Stage::BetweenDeals { until_ms, .. } => Some(until_ms),
            Stage::NextDealDue { at_ms } => Some(at_ms),
            Stage::Closed { .. } => None,
        }
    }

    /// Whether the table's deadline has come.
    pub fn is_due(&self, now_ms: u64) -> bool {
        self.deadline_ms().is_some_and(|d| d <= now_ms)
    }

    fn dealing(&self) -> Result<(), DealerError> {
        match self.stage {
            Stage::Dealing => Ok(()),
            Stage::Closed { .. } => Err(DealerError::TableClosed),
            Stage::BetweenDeals { .. } | Stage::NextDealDue { .. } => Err(DealerError::DealOver),
        }
    }

    // ---- a seat's actions ------------------------------------------------------------

    pub fn bid(
        &mut self,
        seat: Seat,
        bid: Bid,
        now_ms: u64,
        timing: Timing,
    ) -> Result<Step, DealerError> {
        self.dealing()?;
        self.played_by_its_player(seat)?;
        let events = self.deal.bid(seat, bid, now_ms)?;
        Ok(self.step(events, now_ms, timing))
    }

    /// A yes-or-no decision of the rule sets that call and rob: call (叫地主), rob
    /// (抢地主), double (加倍) or show (明牌). The rules crate refuses one that is not
    /// the seat's decision now.
    pub fn decide(
        &mut self,
        seat: Seat,
        decision: YesOrNo,
        yes: bool,
        now_ms: u64,
        timing: Timing,
    ) -> Result<Step, DealerError> {
        self.dealing()?;
        self.played_by_its_player(seat)?;
        let events = match decision {
            YesOrNo::Call => self.deal.call(seat, yes, now_ms)?,
            YesOrNo::Rob => self.deal.rob(seat, yes, now_ms)?,
            YesOrNo::Double => self.deal.double(seat, yes, now_ms)?,
            YesOrNo::Show => self.deal.show(seat, yes, now_ms)?,
        };
        Ok(self.step(events, now_ms, timing))
    }

    /// `seat` plays `cards`; in a laizi deal `meant` says what they stand for when they
    /// can be read more than one way.
    pub fn play(
        &mut self,
        seat: Seat,
        cards: &PlayCards,
        meant: Option<&RankCounts>,
        now_ms: u64,
        timing: Timing,
    ) -> Result<Step, DealerError> {
        self.dealing()?;
        self.played_by_its_player(seat)?;
        let cards = match cards {
            PlayCards::Cards(cards) => cards.clone(),
            PlayCards::Ranks(ranks) => match self.deal.hand(seat).pick(ranks) {
                Some(set) => set.to_vec(),
                None => {
                    // Report turn and phase first, as for exact cards.
                    self.deal.legal_plays(seat)?;
                    return Err(doudizhu_rules::ActionError::CardsNotInHand.into());
                }
            },
        };
        let events = self.deal.play_as(seat, &cards, meant, now_ms)?;
        Ok(self.step(events, now_ms, timing))
    }

    pub fn pass(&mut self, seat: Seat, now_ms: u64, timing: Timing) -> Result<Step, DealerError> {
        self.dealing()?;
        self.played_by_its_player(seat)?;
        let events = self.deal.pass(seat, now_ms)?;
        Ok(self.step(events, now_ms, timing))
    }

    /// 托管 on or off; a bot seat's stays on (turning it on again changes nothing).
    pub fn set_auto_play(
        &mut self,
        seat: Seat,
        on: bool,
        now_ms: u64,
        timing: Timing,
    ) -> Result<Step, DealerError> {
        self.dealing()?;
        if !on {
            self.played_by_its_player(seat)?;
        }
        let events = self.deal.set_auto_play(seat, on, now_ms)?;
        Ok(self.step(events, now_ms, timing))
    }

    /// Leaves the table: an escape during a deal, a plain leave between deals. Returns
    /// the step and whether it was an escape.
    pub fn leave(
        &mut self,
        seat: Seat,
        now_ms: u64,
        timing: Timing,
    ) -> Result<(Step, bool), DealerError> {
        match self.stage {
            Stage::Closed { .. } => Err(DealerError::TableClosed),
            Stage::Dealing => {
                let events = self.deal.escape(seat, now_ms)?;
                self.left = Some(seat.index());
                Ok((self.step(events, now_ms, timing), true))
            }
            Stage::BetweenDeals { .. } | Stage::NextDealDue { .. } => {
                self.left = Some(seat.index());
                let mut step = Step::default();
                self.close(CloseReason::Left, now_ms, &mut step);
                Ok((step, false))
            }
        }
    }

    /// The seat asks for the next deal (准备).
    pub fn ready(&mut self, seat: Seat, now_ms: u64) -> Result<Step, DealerError> {
        let mut step = Step::default();
        match &mut self.stage {
            Stage::Closed { .. } => return Err(DealerError::TableClosed),
            Stage::Dealing => return Err(DealerError::DealInProgress),
            Stage::NextDealDue { .. } => step.advance = true,
            Stage::BetweenDeals { ready, .. } => {
                if !ready[seat.index()] {
                    ready[seat.index()] = true;
                    let all = ready.iter().all(|r| *r);
                    Emitter::new(self, now_ms)
                        .public(&mut step, EventKind::ReadyForNextDeal { seat });
                    if all {
                        self.stage = Stage::NextDealDue { at_ms: now_ms };
                        step.advance = true;
                    }
                }
            }
        }
        Ok(step)
    }

    // ---- the server's moves ----------------------------------------------------------

    /// Applies what the clock says at `now_ms`: timeouts (the crate plays for the seat;
    /// the bot for a seat on auto-play), or the close of a table whose seats were not
    /// ready in time.
    pub fn on_clock(&mut self, now_ms: u64, timing: Timing) -> Clock {
        if !self.is_due(now_ms) {
            return Clock::NotDue;
        }
        match self.stage {
            Stage::Dealing => {
                let events = self.deal.check_timeout_with(now_ms, &self.server_players());
                Clock::Applied(self.step(events, now_ms, timing))
            }
            Stage::BetweenDeals { .. } => {
                let mut step = Step::default();
                self.close(CloseReason::Abandoned, now_ms, &mut step);
                Clock::Applied(step)
            }
            Stage::NextDealDue { .. } => Clock::AdvanceDue,
            Stage::Closed { .. } => Clock::NotDue,
        }
    }

    /// Deals the next deal with `seed` (a queued test seed takes precedence), the first
    /// bidder one seat along. Only when the next deal is due.
    pub fn start_next_deal(
        &mut self,
        seed: Seed,
        now_ms: u64,
        timing: Timing,
    ) -> Result<Step, DealerError> {
        if !matches!(self.stage, Stage::NextDealDue { .. }) {
            return Err(DealerError::NotDue);
        }
        let seed = if self.test_seeds.is_empty() {
            seed
        } else {
            self.test_seeds.remove(0)
        };
        let number = self.deal_number + 1;
        let first_bidder = next_first_bidder(self.first_bidder);
        let rules = deal_rules(&self.stakes, self.time, self.rule_set);
        let (deal, mut events) = Deal::new(
            &deal_id(&self.id, number),
            seed,
            first_bidder,
            rules,
            now_ms,
        )?;
        self.deal_number = number;
        self.first_bidder = first_bidder;
        self.deal = deal;
        self.deal_started_ms = now_ms;
        self.deal_ended_ms = 0;
        self.bid_actors.clear();
        self.settled = None;
        self.settled_adopted = false;
        self.stage = Stage::Dealing;
        self.bots_on_auto_play(&mut events, now_ms, false);
        let mut step = Step::default();
        self.after(events, now_ms, timing, &mut step);
        Ok(step)
    }

    // ---- bookkeeping -----------------------------------------------------------------

    fn step(&mut self, events: Vec<Event>, now_ms: u64, timing: Timing) -> Step {
        let mut step = Step::default();
        self.after(events, now_ms, timing, &mut step);
        step
    }

    /// Records the crate's events (and, with no auto-play pause, the bot's moves for
    /// seats on auto-play), and what follows when the deal ended.
    fn after(&mut self, mut events: Vec<Event>, now_ms: u64, timing: Timing, step: &mut Step) {
        if timing.auto_turn_ms == 0 && self.stage == Stage::Dealing {
            let players = self.server_players();
            events.extend(self.deal.auto_play_pending_with(now_ms, &players));
        }
        let emit = Emitter::new(self, now_ms);
        let mut ended = false;
        for event in events {
            match &event.body {
                EventBody::BidMade { by, .. }
                | EventBody::Called { by, .. }
                | EventBody::Robbed { by, .. } => self.bid_actors.push(*by),
                EventBody::DealEnded { .. } => ended = true,
                _ => {}
            }
            step.events
                .push(emit.event(event.audience, EventKind::Deal(event.body)));
        }
        if ended {
            self.deal_ended(now_ms, timing, step);
        }
        debug_assert!(
            self.stage != Stage::Dealing
                || Seat::ALL
                    .into_iter()
                    .all(|s| !self.is_bot(s) || self.deal.is_on_auto_play(s)),
            "a bot seat is on auto-play for good"
        );
    }

    fn deal_ended(&mut self, now_ms: u64, timing: Timing, step: &mut Step) {
        self.deal_ended_ms = now_ms;
        let Some(settlement) = self.deal.settlement().copied() else {
            return;
        };
        match settlement.outcome {
            Outcome::Redeal => {
                if self.bid_actors.contains(&Actor::Seat) {
                    self.idle_redeals = 0;
                } else {
                    self.idle_redeals = self.idle_redeals.saturating_add(1);
                }
                if self.idle_redeals >= MAX_IDLE_REDEALS {
                    self.close(CloseReason::Abandoned, now_ms, step);
                    return;
                }
                self.stage = Stage::NextDealDue {
                    at_ms: now_ms.saturating_add(timing.redeal_pause_ms),
                };
                step.advance = timing.redeal_pause_ms == 0;
            }
            Outcome::Escaped { .. } => {
                step.ended = Some(self.deal_number);
                self.close(CloseReason::Escape, now_ms, step);
            }
            Outcome::LandlordWon | Outcome::FarmersWon { .. } => {
                self.idle_redeals = 0;
                step.ended = Some(self.deal_number);
                // A bot seat is ready at once; the humans' NextDeal deals the next one.
                self.stage = Stage::BetweenDeals {
                    ready: self.bots,
                    until_ms: now_ms.saturating_add(timing.next_deal_timeout_ms),
                };
            }
        }
    }

    /// An operator closes the table (`gamehub admin close-table`) with `note`: a deal
    /// in progress is voided (no settlement is written, so nothing moves at the ledger
    /// and nobody escapes) and the table closes at once. Returns the step and the voided
    /// deal's id; a closed table is left as it is (an empty step).
    pub fn close_by_operator(&mut self, note: &str, now_ms: u64) -> (Step, Option<String>) {
        let mut step = Step::default();
        if self.is_closed() {
            return (step, None);
        }
        let voided = (self.stage == Stage::Dealing).then(|| deal_id(&self.id, self.deal_number));
        note.clone_into(&mut self.closed_note);
        self.close(CloseReason::Operator, now_ms, &mut step);
        (step, voided)
    }

    fn close(&mut self, reason: CloseReason, now_ms: u64, step: &mut Step) {
        self.stage = Stage::Closed {
            reason,
            at_ms: now_ms,
        };
        let note = self.closed_note.clone();
        Emitter::new(self, now_ms).public(step, EventKind::TableClosed { reason, note });
    }

    /// Records the ledger's answer for deal `deal_number` (`by_seat`: what it did for
    /// each seat, as [`crate::settle::seats_settled`] reads it; `adopted`: its first
    /// answer to a different result of the deal, which stands) and returns the public
    /// event announcing it.
    pub fn settled(
        &mut self,
        deal_number: u32,
        game_id: &str,
        by_seat: [SeatSettled; 3],
        adopted: bool,
        now_ms: u64,
    ) -> Step {
        let mut step = Step::default();
        let emit = Emitter {
            now_ms,
            deal_number,
        };
        emit.public(
            &mut step,
            EventKind::DealSettled {
                game_id: game_id.to_owned(),
                seats: by_seat.clone(),
                adopted,
            },
        );
        if deal_number == self.deal_number {
            self.settled = Some(by_seat);
            self.settled_adopted = adopted;
        }
        step
    }
}

/// Tables for the tests of this module and the ones above it.
#[cfg(test)]
pub(crate) mod fixtures {
    use super::*;

    /// How the tests time a table: no auto-play pause, no redeal pause.
    pub const TIMING: Timing = Timing {
        auto_turn_ms: 0,
        redeal_pause_ms: 0,
        next_deal_timeout_ms: 60_000,
    };

    /// A table of alice, bob and carol (seats 0–2), opened at 1,000 with seed 7…7,
    /// seat 0 bidding first.
    pub fn open() -> (Table, Step) {
        Table::open(
            Opening {
                table_id: "dt-1".into(),
                stakes: Stakes {
                    room_id: gamehub_terms::RoomId::parse("doudizhu-test").unwrap(),
                    points_base: 2,
                    silver_per_point: 10,
                    min_balance_silver: 0,
                    rated: false,
                },
                turn_ms: 20_000,
                players: ["alice".into(), "bob".into(), "carol".into()],
                open_digest: "digest".into(),
                first_bidder: Seat::ALL[0],
                seeds: vec![Seed::from_bytes([7; 32])],
                profiles: Default::default(),
                bots: [false; 3],
                friends_table: false,
                rule_set: RuleSet::Classic,
            },
            TIMING,
            1_000,
        )
        .unwrap()
    }

    /// A friends' table of alice (seat 0, named 阿丽) and two bots, opened like
    /// [`open`] with `timing`: alice bids first.
    pub fn open_with_bots(timing: Timing) -> (Table, Step) {
        open_with_bots_dealt(
            timing,
            vec![Seed::from_bytes([7; 32]), Seed::from_bytes([8; 32])],
        )
    }

    /// [`open_with_bots`], its deals from `seeds`.
    pub fn open_with_bots_dealt(timing: Timing, seeds: Vec<Seed>) -> (Table, Step) {
        Table::open(
            Opening {
                table_id: "dt-2".into(),
                stakes: Stakes {
                    room_id: gamehub_terms::RoomId::parse("doudizhu-free").unwrap(),
                    points_base: 1,
                    silver_per_point: 0,
                    min_balance_silver: 0,
                    rated: false,
                },
                turn_ms: 20_000,
                players: ["alice".into(), "bot-1".into(), "bot-2".into()],
                open_digest: "digest".into(),
                first_bidder: Seat::ALL[0],
                seeds,
                profiles: [
                    Profile {
                        name: "阿丽".into(),
                        title: "新手".into(),
                        ..Profile::default()
                    },
                    Profile::default(),
                    Profile::default(),
                ],
                bots: [false, true, true],
                friends_table: true,
                rule_set: RuleSet::Classic,
            },
            timing,
            1_000,
        )
        .unwrap()
    }
}

#[cfg(test)]
mod tests {
    use super::fixtures::*;
    use super::*;

    #[test]
    fn a_table_stored_with_the_dealers_own_stakes_shape_still_loads() {
        let (table, _) = open();
        let mut json = serde_json::to_value(&table).unwrap();
        // The dealer's stakes before they became the one type: no `rated`.
        json["stakes"].as_object_mut().unwrap().remove("rated");
        let back: Table = serde_json::from_value(json).unwrap();
        assert_eq!(back.stakes, table.stakes);
        assert!(!back.stakes.rated);
    }

    #[test]
    fn a_table_stored_before_profiles_bots_and_friends_tables_still_loads() {
        let (table, _) = open();
        let json = serde_json::to_value(&table).unwrap();
        // Nothing new is written for a table without them: a stored table of before is
        // exactly this shape.
        for key in ["profiles", "bots", "friends_table"] {
            assert!(json.get(key).is_none(), "{key} written");
        }
        let back: Table = serde_json::from_value(json).unwrap();
        assert_eq!(back.profiles, <[Profile; 3]>::default());
        assert_eq!(back.bots, [false; 3]);
        assert!(!back.friends_table);

        let (table, _) = open_with_bots(TIMING);
        let back: Table = serde_json::from_str(&serde_json::to_string(&table).unwrap()).unwrap();
        assert_eq!(back.profiles, table.profiles);
        assert_eq!(back.bots, [false, true, true]);
        assert!(back.friends_table);
    }

    /// Alice (seat 0) bids 3 and plays her smallest play each turn until the deal ends;
    /// the bots play in the same steps (no auto-play pause).
    fn alice_plays_a_deal_out(table: &mut Table, now_ms: u64) -> Vec<TableEvent> {
        let alice = Seat::ALL[0];
        let mut events = table.bid(alice, Bid::Three, now_ms, TIMING).unwrap().events;
        while table.stage == Stage::Dealing {
            assert_eq!(table.deal.to_act(), Some(alice), "the bots play at once");
            let step = match table.deal.legal_plays(alice).unwrap().first() {
                Some(smallest) => table.play(
                    alice,
                    &PlayCards::Ranks(smallest.ranks),
                    None,
                    now_ms,
                    TIMING,
                ),
                None => table.pass(alice, now_ms, TIMING),
            }
            .unwrap();
            events.extend(step.events);
        }
        events
    }

    fn auto_play_changes(events: &[TableEvent]) -> Vec<(Seat, bool)> {
        events
            .iter()
            .filter_map(|e| match e.kind {
                EventKind::Deal(EventBody::AutoPlayChanged { seat, on }) => Some((seat, on)),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn bot_seats_are_on_auto_play_from_the_opening_announced_once() {
        let (mut table, opened) = open_with_bots(TIMING);
        assert!(
            table.deal.is_on_auto_play(Seat::ALL[1]) && table.deal.is_on_auto_play(Seat::ALL[2])
        );
        assert!(!table.deal.is_on_auto_play(Seat::ALL[0]));
        assert_eq!(
            auto_play_changes(&opened.events),
            [(Seat::ALL[1], true), (Seat::ALL[2], true)]
        );
        // Announced before the first turn, whose deadline is the human's.
        let kinds: Vec<&EventKind> = opened.events.iter().map(|e| &e.kind).collect();
        assert!(matches!(
            kinds.last(),
            Some(EventKind::Deal(EventBody::TurnStarted {
                deadline_ms: 21_000,
                ..
            }))
        ));

        let played = alice_plays_a_deal_out(&mut table, 2_000);
        assert!(auto_play_changes(&played).is_empty(), "no change in play");
        // Between deals the bots are ready already; alice's NextDeal deals the next.
        assert!(matches!(
            table.stage,
            Stage::BetweenDeals {
                ready: [false, true, true],
                ..
            }
        ));
        let step = table.ready(Seat::ALL[0], 3_000).unwrap();
        assert!(step.advance);
        let step = table
            .start_next_deal(Seed::from_bytes([9; 32]), 3_000, TIMING)
            .unwrap();
        assert_eq!(table.deal_number, 2);
        assert!(
            table.deal.is_on_auto_play(Seat::ALL[1]) && table.deal.is_on_auto_play(Seat::ALL[2])
        );
        assert!(
            auto_play_changes(&step.events).is_empty(),
            "a bot seat stays on auto-play without a word"
        );
    }

    #[test]
    fn a_bot_that_bids_first_has_the_auto_play_turn() {
        let timing = Timing {
            auto_turn_ms: 1_000,
            ..TIMING
        };
        // Cards on which neither bot bids (a bot seat bids from its cards).
        let weak = (0..=u8::MAX)
            .map(|b| Seed::from_bytes([b; 32]))
            .find(|seed| {
                let dealt = doudizhu_rules::deal(seed);
                [1, 2].iter().all(|&s| {
                    let hand = dealt.hand(Seat::ALL[s]).rank_counts();
                    gamehub_bots::doudizhu::bid(&hand, Bid::Pass) == Bid::Pass
                })
            })
            .unwrap();
        let (mut table, _) = open_with_bots_dealt(timing, vec![weak, Seed::from_bytes([8; 32])]);
        table.bid(Seat::ALL[0], Bid::Pass, 2_000, timing).unwrap();
        // Bidding goes on to bot-1, played for after the auto-play turn, never by a timeout.
        assert_eq!(table.deal.deadline_ms(), Some(3_000));
        let Clock::Applied(step) = table.on_clock(3_000, timing) else {
            panic!("bot-1's turn is due");
        };
        assert!(step.events.iter().any(|e| matches!(
            e.kind,
            EventKind::Deal(EventBody::BidMade {
                by: Actor::AutoPlay,
                ..
            })
        )));
        // All passed: a redeal, whose first bidder is bot-1, on auto-play from the start.
        let Clock::Applied(step) = table.on_clock(4_000, timing) else {
            panic!("bot-2's turn is due");
        };
        assert!(step.advance);
        let step = table
            .start_next_deal(Seed::from_bytes([9; 32]), 4_000, timing)
            .unwrap();
        assert_eq!(table.deal.to_act(), Some(Seat::ALL[1]));
        assert!(step.events.iter().any(|e| matches!(
            e.kind,
            EventKind::Deal(EventBody::TurnStarted {
                deadline_ms: 5_000,
                ..
            })
        )));
        assert_eq!(table.idle_redeals, 0, "alice passed herself");
    }

    #[test]
    fn a_bot_seat_never_leaves_auto_play() {
        // With an auto-play pause, so a human on auto-play is not played for at once.
        let timing = Timing {
            auto_turn_ms: 1_000,
            ..TIMING
        };
        let (mut table, _) = open_with_bots(timing);
        let bot = Seat::ALL[1];
        let refused = |r: Result<Step, DealerError>| matches!(r, Err(DealerError::BotSeat(1)));
        assert!(refused(table.set_auto_play(bot, false, 2_000, timing)));
        assert!(refused(table.bid(bot, Bid::One, 2_000, timing)));
        assert!(refused(table.pass(bot, 2_000, timing)));
        let on = table.set_auto_play(bot, true, 2_000, timing).unwrap();
        assert!(on.events.is_empty(), "already on");
        table.bid(Seat::ALL[0], Bid::Three, 2_000, timing).unwrap();
        let any = PlayCards::Cards(table.deal.hand(bot).iter().take(1).collect());
        assert!(matches!(
            table.play(bot, &any, None, 2_000, timing),
            Err(DealerError::BotSeat(1))
        ));
        assert!(table.deal.is_on_auto_play(bot));
        // The human's own switch works as ever.
        table
            .set_auto_play(Seat::ALL[0], true, 2_000, timing)
            .unwrap();
        table
            .set_auto_play(Seat::ALL[0], false, 2_000, timing)
            .unwrap();
    }

    #[test]
    fn opening_deals_each_hand_to_its_own_seat_only() {
        let (_, step) = open();
        assert!(matches!(
            step.events[0].kind,
            EventKind::TableOpened {
                turn_ms: 20_000,
                ..
            }
        ));
        let hands: Vec<Audience> = step
            .events
            .iter()
            .filter(|e| matches!(e.kind, EventKind::Deal(EventBody::HandDealt { .. })))
            .map(|e| e.audience)
            .collect();
        assert_eq!(hands, Seat::ALL.map(Audience::Seat));
        assert!(
            step.events
                .iter()
                .filter(|e| !matches!(e.kind, EventKind::Deal(EventBody::HandDealt { .. })))
                .all(|e| e.audience == Audience::All && e.deal_number == 1 && e.at_ms == 1_000)
        );
        assert_eq!(step.ended, None);
    }

    #[test]
    fn an_escape_ends_the_deal_for_the_ledger_and_closes_the_table() {
        let (mut table, _) = open();
        let (step, escaped) = table.leave(Seat::ALL[1], 2_000, TIMING).unwrap();
        assert!(escaped);
        assert_eq!(step.ended, Some(1));
        assert!(matches!(
            table.stage,
            Stage::Closed {
                reason: CloseReason::Escape,
                ..
            }
        ));
        assert!(matches!(
            step.events.last().map(|e| &e.kind),
            Some(EventKind::TableClosed {
                reason: CloseReason::Escape,
                ..
            })
        ));
    }

    #[test]
    fn the_ledgers_answer_is_kept_for_the_current_deal_and_announced() {
        let (mut table, _) = open();
        table.leave(Seat::ALL[1], 2_000, TIMING).unwrap();
        let by_seat = [
            SeatSettled {
                points_delta: 4,
                silver_delta: 40,
            },
            SeatSettled {
                points_delta: -8,
                silver_delta: -80,
            },
            SeatSettled {
                points_delta: 4,
                silver_delta: 40,
            },
        ];
        let step = table.settled(1, "dt-1:1", by_seat.clone(), false, 3_000);
        assert_eq!(table.settled, Some(by_seat));
        assert!(matches!(
            &step.events[..],
            [TableEvent {
                audience: Audience::All,
                deal_number: 1,
                kind: EventKind::DealSettled { adopted: false, .. },
                ..
            }]
        ));
        assert_eq!(deal_number_of("dt-1:1"), Some(1));
    }
}
