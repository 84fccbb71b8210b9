//! A tournament's whole state ([`Tournament`], stored as one document) and every change
//! to it, as plain functions: no I/O, no clock (the caller passes `now_ms`). The
//! director ([`crate::director`]) and the API load the document, call one of these, and
//! store it back by compare-and-set; what a change needs done outside (a fee to hold, a
//! table to open, prizes to pay) is read off the document afterwards, so a process that
//! dies between the two finds it still to do.
//!
//! Money: an entrant's fee is `Paying` until the ledger holds it, `Refunding` until the
//! ledger gave it back. The pool is what the ledger holds: the fees paid and not yet
//! refunded.

use std::collections::HashMap;

use gamehub_game_clients::GameEnd;
use gamehub_platform::error::ApiError;
use serde::{Deserialize, Serialize};
use tournament_rules::Seed;
use tournament_rules::elimination::{self, Entrant as Chips};
use tournament_rules::swiss::{self, GameResult, PlayedRound};

use crate::settings::{Format, RoomTerms, Settings};

/// Where a tournament is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum State {
    Registering,
    Running,
    Finished,
    Cancelled,
}

impl State {
    /// The API's code (also the `state` column).
    pub fn code(self) -> i16 {
        match self {
            Self::Registering => 1,
            Self::Running => 2,
            Self::Finished => 3,
            Self::Cancelled => 4,
        }
    }
}

/// Where an entrant's fee is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Money {
    /// Asked of the ledger, not yet confirmed.
    Paying,
    /// In the pool.
    Paid,
    /// To be given back.
    Refunding,
    /// Given back (or never taken: a free tournament).
    Refunded,
}

/// One registration.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entrant {
    pub player_id: String,
    /// Numbers the registrations of the tournament from 1: the fee's and the refund's
    /// request ids carry it, so a player who registers again pays a new fee.
    pub entry: u32,
    pub registered_at_ms: i64,
    pub fee_silver: i64,
    pub money: Money,
    /// Unregistered, or cut from the field at the start: not a player of the tournament.
    pub withdrawn: bool,
    /// From the start: the seed (0 the top).
    pub seed: Option<u16>,
    /// Gomoku seeding: the rating at the start.
    pub rating: i64,
    /// Elimination: tournament chips.
    pub chips: i64,
    /// Elimination: the round after which the player went out.
    pub out_after_round: Option<u16>,
}

/// One table of a round.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Match {
    /// From 1.
    pub board: u16,
    /// Seat order: Swiss, black then white.
    pub players: Vec<String>,
    /// The table being played at now (elimination: the current deal's); None until it
    /// is open, and between deals.
    pub table_id: Option<String>,
    /// Elimination: deals finished.
    pub deals_played: u16,
    /// Swiss: the result.
    pub result: Option<GameResult>,
    /// Elimination: chips won this round, per seat.
    pub chips_won: Vec<i64>,
    pub finished: bool,
}

impl Match {
    /// The idempotency key of the table this match plays at now.
    pub fn table_request_id(&self, tournament_id: &str, round: u16) -> String {
        if self.chips_won.is_empty() {
            format!("{tournament_id}:r{round}:b{}", self.board)
        } else {
            format!(
                "{tournament_id}:r{round}:b{}:d{}",
                self.board,
                self.deals_played + 1
            )
        }
    }
}

/// A round.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Round {
    pub number: u16,
    /// When it was paired.
    pub started_at_ms: i64,
    pub matches: Vec<Match>,
    pub bye: Option<String>,
    pub finished: bool,
}

/// A prize to pay.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Prize {
    pub place: u16,
    pub player_id: String,
    pub amount_silver: i64,
}

/// A tournament, whole.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tournament {
    pub id: String,
    pub settings: Settings,
    pub room: RoomTerms,
    pub state: State,
    pub created_at_ms: i64,
    pub started_at_ms: i64,
    pub ended_at_ms: i64,
    pub entrants: Vec<Entrant>,
    pub rounds_total: u16,
    pub rounds: Vec<Round>,
    /// The seed of the elimination draws (drawn at creation).
    pub draw_seed: u64,
    pub cancel_reason: String,
    /// Set when the last round ended; paid when `state` is `Finished`.
    pub prizes: Vec<Prize>,
}

/// The most registrations a tournament keeps (players who come and go included).
pub const MAX_ENTRIES: usize = 4 * tournament_rules::MAX_PLAYERS as usize;

fn precondition(message: impl Into<String>) -> ApiError {
    ApiError::FailedPrecondition(message.into())
}

impl Tournament {
    /// A new tournament, open for registration.
    pub fn new(
        id: String,
        settings: Settings,
        room: RoomTerms,
        draw_seed: u64,
        now_ms: i64,
    ) -> Self {
        Self {
            id,
            settings,
            room,
            state: State::Registering,
            created_at_ms: now_ms,
            started_at_ms: 0,
            ended_at_ms: 0,
            entrants: Vec::new(),
            rounds_total: 0,
            rounds: Vec::new(),
            draw_seed,
            cancel_reason: String::new(),
            prizes: Vec::new(),
        }
    }

    /// The players: not withdrawn, in registration order before the start and in seed
    /// order after it.
    pub fn players(&self) -> Vec<&Entrant> {
        let mut players: Vec<&Entrant> = self.entrants.iter().filter(|e| !e.withdrawn).collect();
        if self.started_at_ms > 0 {
            players.sort_by_key(|e| e.seed);
        }
        players
    }

    /// The player's current registration.
    pub fn entrant(&self, player_id: &str) -> Option<&Entrant> {
        self.entrants
            .iter()
            .rev()
            .find(|e| e.player_id == player_id && !e.withdrawn)
    }

    /// Silver the ledger holds in the pool.
    pub fn pool_silver(&self) -> i64 {
        self.entrants
            .iter()
            .filter(|e| matches!(e.money, Money::Paid | Money::Refunding))
            .map(|e| e.fee_silver)
            .sum()
    }

    /// The round being played (or the last one).
    pub fn current_round(&self) -> Option<&Round> {
        self.rounds.last()
    }

    /// Whether the director has anything left to do here.
    pub fn needs_work(&self) -> bool {
        match self.state {
            State::Registering | State::Running => true,
            State::Finished | State::Cancelled => self
                .entrants
                .iter()
                .any(|e| matches!(e.money, Money::Paying | Money::Refunding)),
        }
    }

    /// The fee's idempotency key at the ledger.
    pub fn fee_request_id(&self, entry: u32) -> String {
        format!("{}:fee:{entry}", self.id)
    }

    /// The refund's idempotency key at the ledger.
    pub fn refund_request_id(&self, entry: u32) -> String {
        format!("{}:refund:{entry}", self.id)
    }

    /// The prizes' idempotency key at the ledger.
    pub fn prizes_request_id(&self) -> String {
        format!("{}:prizes", self.id)
    }

    /// Registers `player_id`; answers its entry number, or None when it was registered
    /// already.
    pub fn register(&mut self, player_id: &str, now_ms: i64) -> Result<Option<u32>, ApiError> {
        if self.state != State::Registering {
            return Err(precondition(format!(
                "not_registering: the tournament is {}",
                self.state_words()
            )));
        }
        if let Some(entrant) = self.entrant(player_id) {
            if entrant.money == Money::Paying {
                return Ok(Some(entrant.entry));
            }
            return Ok(None);
        }
        let players = self.entrants.iter().filter(|e| !e.withdrawn).count();
        if players >= usize::from(self.settings.max_players) {
            return Err(precondition(format!(
                "full: all {} places are taken",
                self.settings.max_players
            )));
        }
        if self.entrants.len() >= MAX_ENTRIES {
            return Err(precondition("full: too many registrations came and went"));
        }
        let entry = u32::try_from(self.entrants.len() + 1).unwrap_or(u32::MAX);
        let free = self.settings.entry_fee_silver == 0;
        self.entrants.push(Entrant {
            player_id: player_id.to_owned(),
            entry,
            registered_at_ms: now_ms,
            fee_silver: self.settings.entry_fee_silver,
            money: if free { Money::Paid } else { Money::Paying },
            withdrawn: false,
            seed: None,
            rating: 0,
            chips: 0,
            out_after_round: None,
        });
        Ok(Some(entry))
    }

    fn entry_mut(&mut self, entry: u32) -> Option<&mut Entrant> {
        self.entrants.iter_mut().find(|e| e.entry == entry)
    }

    /// The ledger holds the fee of `entry`.
    pub fn fee_held(&mut self, entry: u32) {
        if let Some(e) = self.entry_mut(entry)
            && e.money == Money::Paying
        {
            e.money = Money::Paid;
        }
    }

    /// The ledger refused the fee of `entry` (the balance is short): the registration is
    /// gone, as if never made.
    pub fn fee_refused(&mut self, entry: u32) {
        if let Some(e) = self.entry_mut(entry)
            && e.money == Money::Paying
        {
            e.withdrawn = true;
            e.money = Money::Refunded;
            e.fee_silver = 0;
        }
    }

    /// The ledger gave the fee of `entry` back.
    pub fn refunded(&mut self, entry: u32) {
        if let Some(e) = self.entry_mut(entry)
            && e.money == Money::Refunding
        {
            e.money = Money::Refunded;
        }
    }

    fn give_back(entrant: &mut Entrant) {
        entrant.money = match entrant.money {
            Money::Paid if entrant.fee_silver > 0 => Money::Refunding,
            Money::Paid => Money::Refunded,
            other => other,
        };
    }

    /// Takes `player_id` off before the start; answers the fee it gets back.
    pub fn unregister(&mut self, player_id: &str) -> Result<i64, ApiError> {
        if self.state != State::Registering {
            return Err(precondition(format!(
                "not_registering: the tournament is {}; a player who does not come to a game loses it",
                self.state_words()
            )));
        }
        let entrant = self
            .entrants
            .iter_mut()
            .rev()
            .find(|e| e.player_id == player_id && !e.withdrawn)
            .ok_or_else(|| ApiError::NotFound(format!("{player_id} is not registered")))?;
        if entrant.money == Money::Paying {
            return Err(ApiError::UnavailableFor {
                message: "the entry fee is still being taken; ask again in a moment".into(),
                retry_after: std::time::Duration::from_millis(500),
            });
        }
        entrant.withdrawn = true;
        Self::give_back(entrant);
        Ok(entrant.fee_silver)
    }

    /// Cancels the tournament: every fee to be given back.
    pub fn cancel(&mut self, reason: &str, now_ms: i64) -> Result<(), ApiError> {
        match self.state {
            State::Cancelled => return Ok(()),
            State::Finished => {
                return Err(precondition("the tournament finished: its prizes are paid"));
            }
            State::Registering | State::Running => {}
        }
        if !self.prizes.is_empty() {
            return Err(precondition(
                "the tournament is over and its prizes are being paid",
            ));
        }
        self.state = State::Cancelled;
        self.cancel_reason = reason.to_owned();
        self.ended_at_ms = now_ms;
        for entrant in &mut self.entrants {
            Self::give_back(entrant);
        }
        Ok(())
    }

    fn state_words(&self) -> &'static str {
        match self.state {
            State::Registering => "open for registration",
            State::Running => "running",
            State::Finished => "finished",
            State::Cancelled => "cancelled",
        }
    }

    /// Whether the start is due: the time came (or, without one, the field is full) and
    /// no fee is on its way.
    pub fn start_due(&self, now_ms: i64) -> bool {
        if self.state != State::Registering
            || self.entrants.iter().any(|e| e.money == Money::Paying)
        {
            return false;
        }
        let players = self.players().len();
        if self.settings.starts_at_ms > 0 {
            now_ms >= self.settings.starts_at_ms
        } else {
            players >= usize::from(self.settings.max_players)
        }
    }

    /// Starts: seeds the players (by `ratings`, higher first, then registration), cuts
    /// an elimination field to whole tables (the latest registered are refunded), fixes
    /// the number of rounds; too few players cancels instead.
    pub fn start(&mut self, ratings: &HashMap<String, i64>, now_ms: i64) {
        let mut players: Vec<usize> = (0..self.entrants.len())
            .filter(|&i| !self.entrants[i].withdrawn)
            .collect();
        let field = match self.settings.format {
            Format::Swiss => players.len(),
            Format::Elimination => usize::from(elimination::field_size(
                u16::try_from(players.len()).unwrap_or(u16::MAX),
            )),
        };
        if field < usize::from(self.settings.min_players) {
            let reason = format!(
                "too few players at the start: {} of the {} needed{}",
                players.len(),
                self.settings.min_players,
                if field < players.len() {
                    " (in whole tables of three)"
                } else {
                    ""
                }
            );
            let _ = self.cancel(&reason, now_ms);
            return;
        }
        // An elimination field is whole tables: the latest registered get their fee back.
        for &i in &players[field..] {
            self.entrants[i].withdrawn = true;
            Self::give_back(&mut self.entrants[i]);
        }
        players.truncate(field);
        for &i in &players {
            self.entrants[i].rating = ratings
                .get(&self.entrants[i].player_id)
                .copied()
                .unwrap_or(0);
        }
        if self.settings.format == Format::Swiss {
            // Stable: equal ratings keep registration order.
            players.sort_by_key(|&i| std::cmp::Reverse(self.entrants[i].rating));
        }
        for (seed, &i) in players.iter().enumerate() {
            let entrant = &mut self.entrants[i];
            entrant.seed = Some(u16::try_from(seed).unwrap_or(u16::MAX));
            entrant.chips = self.settings.starting_chips;
        }
        let n = u16::try_from(players.len()).unwrap_or(u16::MAX);
        self.rounds_total = match self.settings.format {
            Format::Swiss if self.settings.rounds > 0 => self.settings.rounds,
            Format::Swiss => swiss::default_rounds(n),
            Format::Elimination => {
                elimination::plan(n).map_or(1, |p| u16::try_from(p.len()).unwrap_or(1))
            }
        };
        self.state = State::Running;
        self.started_at_ms = now_ms;
    }

    fn seed_of(&self) -> HashMap<&str, Seed> {
        self.entrants
            .iter()
            .filter(|e| !e.withdrawn)
            .filter_map(|e| Some((e.player_id.as_str(), Seed(e.seed?))))
            .collect()
    }

    fn player_of_seed(&self) -> HashMap<Seed, &str> {
        self.seed_of().into_iter().map(|(p, s)| (s, p)).collect()
    }

    /// The Swiss rounds played, in seeds, for the rules.
    fn played_swiss(&self) -> Vec<PlayedRound> {
        let seeds = self.seed_of();
        let seed = |p: &str| seeds.get(p).copied().unwrap_or(Seed(0));
        self.rounds
            .iter()
            .filter(|r| r.finished)
            .map(|r| PlayedRound {
                games: r
                    .matches
                    .iter()
                    .map(|m| swiss::Game {
                        black: seed(&m.players[0]),
                        white: seed(&m.players[1]),
                        result: m.result.unwrap_or(GameResult::BothLose),
                    })
                    .collect(),
                bye: r.bye.as_deref().map(seed),
            })
            .collect()
    }

    fn field(&self) -> u16 {
        u16::try_from(self.entrants.iter().filter(|e| !e.withdrawn).count()).unwrap_or(u16::MAX)
    }

    /// Pairs the next round when the last one finished and rounds remain; answers
    /// whether it did.
    pub fn pair_next_round(&mut self, now_ms: i64) -> Result<bool, ApiError> {
        if self.state != State::Running || !self.prizes.is_empty() {
            return Ok(false);
        }
        if self.rounds.last().is_some_and(|r| !r.finished) {
            return Ok(false);
        }
        let number = u16::try_from(self.rounds.len() + 1).unwrap_or(u16::MAX);
        if number > self.rounds_total {
            return Ok(false);
        }
        let players = self.player_of_seed();
        let id = |s: Seed| players.get(&s).map(|p| (*p).to_owned()).unwrap_or_default();
        let round = match self.settings.format {
            Format::Swiss => {
                let paired =
                    swiss::pair_round(self.field(), &self.played_swiss()).map_err(|e| {
                        ApiError::internal(anyhow::anyhow!("pairing round {number}: {e}"))
                    })?;
                Round {
                    number,
                    started_at_ms: now_ms,
                    matches: paired
                        .boards
                        .iter()
                        .enumerate()
                        .map(|(i, p)| Match {
                            board: u16::try_from(i + 1).unwrap_or(u16::MAX),
                            players: vec![id(p.black), id(p.white)],
                            table_id: None,
                            deals_played: 0,
                            result: None,
                            chips_won: Vec::new(),
                            finished: false,
                        })
                        .collect(),
                    bye: paired.bye.map(id),
                    finished: false,
                }
            }
            Format::Elimination => {
                let still_in: Vec<Seed> = self
                    .entrants
                    .iter()
                    .filter(|e| !e.withdrawn && e.out_after_round.is_none())
                    .filter_map(|e| e.seed.map(Seed))
                    .collect();
                Round {
                    number,
                    started_at_ms: now_ms,
                    matches: elimination::draw_tables(&still_in, self.draw_seed, number)
                        .iter()
                        .enumerate()
                        .map(|(i, table)| Match {
                            board: u16::try_from(i + 1).unwrap_or(u16::MAX),
                            players: table.iter().map(|&s| id(s)).collect(),
                            table_id: None,
                            deals_played: 0,
                            result: None,
                            chips_won: vec![0; table.len()],
                            finished: false,
                        })
                        .collect(),
                    bye: None,
                    finished: false,
                }
            }
        };
        self.rounds.push(round);
        Ok(true)
    }

    /// The match at `board` of the current round.
    pub fn match_mut(&mut self, round: u16, board: u16) -> Option<&mut Match> {
        self.rounds
            .iter_mut()
            .find(|r| r.number == round)?
            .matches
            .iter_mut()
            .find(|m| m.board == board)
    }

    /// The table of a match was opened.
    pub fn table_opened(&mut self, round: u16, board: u16, table_id: &str) {
        if let Some(m) = self.match_mut(round, board)
            && !m.finished
            && m.table_id.is_none()
        {
            m.table_id = Some(table_id.to_owned());
        }
    }

    /// The game (elimination: the deal) at a match's table ended.
    pub fn game_ended(&mut self, round: u16, board: u16, table_id: &str, end: &GameEnd) {
        let deals = self.settings.deals_per_round;
        let Some(m) = self.match_mut(round, board) else {
            return;
        };
        if m.finished || m.table_id.as_deref() != Some(table_id) {
            return;
        }
        let mut chips: Vec<(String, i64)> = Vec::new();
        if m.chips_won.is_empty() {
            m.result = Some(match end {
                GameEnd::Voided => GameResult::BothLose,
                GameEnd::Played { winners, .. } => match winners.as_slice() {
                    [0] => GameResult::BlackWins,
                    [1] => GameResult::WhiteWins,
                    _ => GameResult::Draw,
                },
            });
            m.finished = true;
        } else {
            if let GameEnd::Played { points, .. } = end {
                for (seat, won) in m.chips_won.iter_mut().enumerate() {
                    let delta = points.get(seat).copied().unwrap_or(0);
                    *won += delta;
                    chips.push((m.players[seat].clone(), delta));
                }
            }
            m.deals_played += 1;
            m.table_id = None;
            m.finished = m.deals_played >= deals;
        }
        for (player, delta) in chips {
            if let Some(e) = self
                .entrants
                .iter_mut()
                .find(|e| e.player_id == player && !e.withdrawn)
            {
                e.chips += delta;
            }
        }
        self.close_round_if_done(round);
    }

    fn close_round_if_done(&mut self, round: u16) {
        let Some(r) = self.rounds.iter_mut().find(|r| r.number == round) else {
            return;
        };
        if r.finished || r.matches.iter().any(|m| !m.finished) {
            return;
        }
        r.finished = true;
        if self.settings.format == Format::Elimination
            && round < self.rounds_total
            && let Ok(plan) = elimination::plan(self.field())
        {
            let keep = plan
                .get(usize::from(round))
                .copied()
                .unwrap_or(elimination::TABLE_SEATS);
            let mut chips = self.chips();
            elimination::eliminate(&mut chips, round, keep);
            self.apply_chips(&chips);
        }
        if round >= self.rounds_total {
            self.prizes = self.prizes_by_place();
        }
    }

    fn chips(&self) -> Vec<Chips> {
        self.entrants
            .iter()
            .filter(|e| !e.withdrawn)
            .filter_map(|e| {
                Some(Chips {
                    seed: Seed(e.seed?),
                    chips: e.chips,
                    out_after_round: e.out_after_round,
                })
            })
            .collect()
    }

    fn apply_chips(&mut self, chips: &[Chips]) {
        for c in chips {
            if let Some(e) = self
                .entrants
                .iter_mut()
                .find(|e| !e.withdrawn && e.seed == Some(c.seed.0))
            {
                e.out_after_round = c.out_after_round;
            }
        }
    }

    /// The players in order of place, first first (standings so far).
    pub fn places(&self) -> Vec<String> {
        let players = self.player_of_seed();
        let id = |s: &Seed| players.get(s).map(|p| (*p).to_owned()).unwrap_or_default();
        match self.settings.format {
            Format::Swiss => swiss::standings(self.field(), &self.played_swiss())
                .map(|lines| lines.iter().map(|l| id(&l.seed)).collect())
                .unwrap_or_default(),
            Format::Elimination => elimination::places(&self.chips()).iter().map(id).collect(),
        }
    }

    /// The Swiss standings so far, in seeds (empty for elimination).
    pub fn swiss_standings(&self) -> Vec<(String, swiss::Standing)> {
        if self.settings.format != Format::Swiss || self.started_at_ms == 0 {
            return Vec::new();
        }
        let players = self.player_of_seed();
        swiss::standings(self.field(), &self.played_swiss())
            .unwrap_or_default()
            .into_iter()
            .map(|l| {
                (
                    players
                        .get(&l.seed)
                        .map(|p| (*p).to_owned())
                        .unwrap_or_default(),
                    l,
                )
            })
            .collect()
    }

    /// The pool the prizes share: the fees of the players (what the ledger holds once
    /// the refunds owed to those cut from the field are made).
    fn prize_pool(&self) -> i64 {
        self.entrants
            .iter()
            .filter(|e| !e.withdrawn && e.money == Money::Paid)
            .map(|e| e.fee_silver)
            .sum()
    }

    fn prizes_by_place(&self) -> Vec<Prize> {
        let places = self.places();
        let pool = u64::try_from(self.prize_pool()).unwrap_or(0);
        self.settings
            .prize_table()
            .split(pool, places.len())
            .into_iter()
            .zip(places)
            .enumerate()
            .filter(|(_, (amount, _))| *amount > 0)
            .map(|(i, (amount, player_id))| Prize {
                place: u16::try_from(i + 1).unwrap_or(u16::MAX),
                player_id,
                amount_silver: i64::try_from(amount).unwrap_or(i64::MAX),
            })
            .collect()
    }

    /// Whether the prizes can be paid now: the last round ended and no refund is owed
    /// (the pool then holds exactly the fees of the players).
    pub fn prizes_due(&self) -> bool {
        self.state == State::Running
            && self.rounds.len() == usize::from(self.rounds_total)
            && self.rounds.last().is_some_and(|r| r.finished)
            && !self
                .entrants
                .iter()
                .any(|e| matches!(e.money, Money::Paying | Money::Refunding))
    }

    /// The ledger paid the prizes: the tournament is over.
    pub fn prizes_paid(&mut self, now_ms: i64) {
        if self.prizes_due() {
            self.state = State::Finished;
            self.ended_at_ms = now_ms;
        }
    }

    /// The table `player_id` plays at now, if any.
    pub fn table_of(&self, player_id: &str) -> Option<&str> {
        if self.state != State::Running {
            return None;
        }
        let round = self.rounds.last()?;
        round
            .matches
            .iter()
            .find(|m| !m.finished && m.players.iter().any(|p| p == player_id))?
            .table_id
            .as_deref()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::settings::Settings;
    use gamehub_proto::common::GameType;
    use gamehub_proto::tournament as pb;

    fn terms() -> RoomTerms {
        RoomTerms {
            rule_set: "renju-lose".into(),
            move_time_ms: 1000,
            total_time_ms: 60_000,
            turn_time_ms: 0,
            points_base: 1,
            rated: true,
            designated_opening: String::new(),
        }
    }

    fn swiss(players: i32, fee: i64) -> Tournament {
        let settings = Settings::parse(&pb::TournamentSettings {
            name: "t".into(),
            game_type: GameType::Gomoku as i32,
            room_id: "gomoku-renju".into(),
            min_players: 2,
            max_players: players,
            entry_fee_silver: fee,
            prize_shares_bp: vec![7000, 3000],
            ..Default::default()
        })
        .expect("valid");
        Tournament::new("tn-1".into(), settings, terms(), 7, 0)
    }

    fn play_all(t: &mut Tournament, winner_seat: u32) {
        let round = t.rounds.last().expect("a round").number;
        let boards: Vec<u16> = t
            .rounds
            .last()
            .expect("a round")
            .matches
            .iter()
            .map(|m| m.board)
            .collect();
        for board in boards {
            let table = format!("gt-{round}-{board}");
            t.table_opened(round, board, &table);
            t.game_ended(
                round,
                board,
                &table,
                &GameEnd::Played {
                    points: vec![0, 0],
                    winners: vec![winner_seat],
                },
            );
        }
    }

    #[test]
    fn a_swiss_runs_from_registration_to_prizes() {
        let mut t = swiss(4, 100);
        for p in ["a", "b", "c", "d"] {
            let entry = t.register(p, 1).expect("open").expect("new");
            assert!(!t.start_due(2), "a fee is on its way");
            t.fee_held(entry);
        }
        assert_eq!(
            t.register("e", 1).expect_err("full").to_string(),
            "full: all 4 places are taken"
        );
        assert_eq!(t.register("a", 1).expect("again"), None);
        assert!(t.start_due(2));
        let ratings = HashMap::from([("c".to_owned(), 3200), ("a".to_owned(), 3000)]);
        t.start(&ratings, 2);
        assert_eq!(t.state, State::Running);
        assert_eq!(t.rounds_total, 3);
        assert_eq!(
            t.players()
                .iter()
                .map(|e| e.player_id.as_str())
                .collect::<Vec<_>>(),
            ["c", "a", "b", "d"]
        );
        for _ in 0..3 {
            assert!(t.pair_next_round(3).expect("pairs"));
            assert!(!t.pair_next_round(3).expect("waits"), "one round at a time");
            play_all(&mut t, 0);
        }
        assert!(!t.pair_next_round(4).expect("done"));
        assert!(t.prizes_due());
        let paid: i64 = t.prizes.iter().map(|p| p.amount_silver).sum();
        assert_eq!(paid, 400);
        assert_eq!(t.prizes[0].amount_silver, 280);
        t.prizes_paid(9);
        assert_eq!(t.state, State::Finished);
        assert!(!t.needs_work());
    }

    #[test]
    fn cancelling_gives_every_fee_back_and_unregistering_one() {
        let mut t = swiss(4, 50);
        for p in ["a", "b", "c"] {
            let entry = t.register(p, 1).expect("open").expect("new");
            t.fee_held(entry);
        }
        assert_eq!(t.unregister("b").expect("registered"), 50);
        assert_eq!(
            t.pool_silver(),
            150,
            "the refund is owed until the ledger makes it"
        );
        t.refunded(2);
        assert_eq!(t.pool_silver(), 100);
        assert!(matches!(t.unregister("b"), Err(ApiError::NotFound(_))));
        t.cancel("storm", 5).expect("cancels");
        assert!(
            t.entrants
                .iter()
                .filter(|e| !e.withdrawn)
                .all(|e| e.money == Money::Refunding)
        );
        assert!(t.needs_work());
        for entry in [1, 3] {
            t.refunded(entry);
        }
        assert_eq!(t.pool_silver(), 0);
        assert!(!t.needs_work());
        assert!(t.register("z", 6).is_err());
    }

    #[test]
    fn an_elimination_field_is_cut_to_whole_tables_and_the_latest_refunded() {
        let settings = Settings::parse(&pb::TournamentSettings {
            name: "t".into(),
            game_type: GameType::Doudizhu as i32,
            room_id: "doudizhu-free".into(),
            min_players: 3,
            max_players: 12,
            entry_fee_silver: 10,
            starts_at_unix_ms: 100,
            deals_per_round: 1,
            ..Default::default()
        })
        .expect("valid");
        let mut t = Tournament::new("tn-2".into(), settings, terms(), 7, 0);
        for i in 0..11 {
            let entry = t.register(&format!("p{i}"), i).expect("open").expect("new");
            t.fee_held(entry);
        }
        assert!(t.start_due(100));
        t.start(&HashMap::new(), 100);
        assert_eq!(t.state, State::Running);
        let cut: Vec<&str> = t
            .entrants
            .iter()
            .filter(|e| e.withdrawn)
            .map(|e| e.player_id.as_str())
            .collect();
        assert_eq!(cut, ["p9", "p10"]);
        assert!(
            t.entrants
                .iter()
                .filter(|e| e.withdrawn)
                .all(|e| e.money == Money::Refunding)
        );
        assert_eq!(t.rounds_total, 3, "9, 6, then the final table");
        assert!(!t.prizes_due(), "refunds owed first");
        assert!(t.pair_next_round(101).expect("pairs"));
        let seated: usize = t.rounds[0].matches.iter().map(|m| m.players.len()).sum();
        assert_eq!(seated, 9);
        // A deal at board 1 moves chips; its table is gone until the next deal opens.
        let table = "ddz-1";
        t.table_opened(1, 1, table);
        t.game_ended(
            1,
            1,
            table,
            &GameEnd::Played {
                points: vec![-4, 2, 2],
                winners: vec![1, 2],
            },
        );
        let m = &t.rounds[0].matches[0];
        assert_eq!(
            (m.deals_played, m.finished, m.table_id.clone()),
            (1, true, None)
        );
        let first = t.entrant(&m.players[0].clone()).expect("in").chips;
        assert_eq!(first, 996);
    }

    #[test]
    fn too_few_players_at_the_start_time_cancels() {
        let mut t = swiss(8, 0);
        t.settings.starts_at_ms = 100;
        t.settings.min_players = 3;
        t.register("a", 1).expect("open");
        assert!(!t.start_due(99));
        assert!(t.start_due(100));
        t.start(&HashMap::new(), 100);
        assert_eq!(t.state, State::Cancelled);
        assert!(t.cancel_reason.contains("too few players"));
    }
}
