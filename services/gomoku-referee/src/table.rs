//! A table as stored in Redis ([`TableState`]) and its life: consecutive games between
//! two seats, the next-game handshake, leaving, closing, and noting the ledger's answer
//! for a finished game. The rules themselves are all in `gomoku_rules::Game`; this
//! module only decides which game runs and what each step tells.
//!
//! Pure: the state and the rule crate, no protobuf, no store. Every transition is a
//! function of the state and `now_ms` returning a [`Step`]: the [`TableEvent`]s it
//! caused, in the table's words, and the game it ended, if any, so that
//! `TableStore::update` can run it again after losing a race. What the API shows of
//! them is [`crate::view`]'s; what the ledger is sent for an ended game,
//! [`crate::settle`]'s.

use gamehub_terms::{RoomId, Stakes};
use gomoku_rules::{
    Action, Event, Game, GameConfig, GameResult, Opening, OpeningChoice, RuleSet, Seat, TimeControl,
};
use rand::SeedableRng;
use serde::{Deserialize, Serialize};

use crate::error::RefereeError;

/// Finished games listed in the table's state (newest last) with their results and
/// settlements; older ones are at the ledger. Their records live beside the table (see
/// [`crate::record`]), not in the state, so that every move reads and writes a small
/// state.
pub const FINISHED_GAMES_KEPT: usize = 4;

/// A room's rules and stakes, fixed when the table opens.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "StoredRoom")]
pub struct Room {
    /// The money side: room id, points base (底分), silver per point, minimum balance,
    /// rated; the one stakes type every service checks and stores.
    pub stakes: Stakes,
    /// The rules.
    pub rule_set: RuleSet,
    /// The clock.
    pub time_control: TimeControl,
    /// Designated openings (指定打法): how each game starts; None from an empty board.
    /// Absent from tables stored before rooms had openings.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub designated_opening: Option<OpeningChoice>,
    /// The games come in pairs (docs/rules.md#games-in-pairs): leaving between the two
    /// games of a pair is an escape from the second. Absent (false) from tables stored
    /// before rooms had pairs.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub paired_games: bool,
}

/// A room as stored, in either shape: `stakes` whole (since the stakes became one type),
/// or the five loose fields of the tables stored before. Read once into [`Room`]; a
/// table is written back in the new shape at its next step.
#[derive(Deserialize)]
struct StoredRoom {
    #[serde(default)]
    stakes: Option<Stakes>,
    #[serde(default)]
    room_id: Option<RoomId>,
    #[serde(default)]
    points_base: Option<i64>,
    #[serde(default)]
    silver_per_point: Option<i64>,
    #[serde(default)]
    min_balance_silver: Option<i64>,
    #[serde(default)]
    rated: Option<bool>,
    rule_set: RuleSet,
    time_control: TimeControl,
    #[serde(default)]
    designated_opening: Option<OpeningChoice>,
    #[serde(default)]
    paired_games: bool,
}

impl TryFrom<StoredRoom> for Room {
    type Error = String;

    fn try_from(stored: StoredRoom) -> Result<Room, String> {
        let stakes = match stored.stakes {
            Some(stakes) => stakes,
            None => Stakes {
                room_id: stored
                    .room_id
                    .ok_or("a stored room has no stakes nor room_id")?,
                points_base: stored
                    .points_base
                    .ok_or("a stored room has no points_base")?,
                silver_per_point: stored
                    .silver_per_point
                    .ok_or("a stored room has no silver_per_point")?,
                min_balance_silver: stored.min_balance_silver.unwrap_or(0),
                rated: stored.rated.unwrap_or(false),
            },
        };
        Ok(Room {
            stakes,
            rule_set: stored.rule_set,
            time_control: stored.time_control,
            designated_opening: stored.designated_opening,
            paired_games: stored.paired_games,
        })
    }
}

/// A parsed OpenTable request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpenTable {
    /// The caller's idempotency key.
    pub request_id: String,
    /// Rules and stakes.
    pub room: Room,
    /// Seat 0 and seat 1.
    pub players: [String; 2],
    /// Black in game 1.
    pub first_black_seat: Seat,
    /// How each seat's player is shown, when matchmaking said.
    pub profiles: Option<[Profile; 2]>,
    /// The seat the platform's bot plays, if any.
    pub bot_seat: Option<Seat>,
    /// A friends' table (好友房): not listed; its records say so.
    pub friends_table: bool,
}

/// How a player is shown at the table (昵称, 称号, 段位), as it was when the table
/// opened (docs/rules.md#names).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Profile {
    /// The display name; empty: shown by id.
    pub name: String,
    /// The title in Gomoku; empty when unknown.
    pub title: String,
    /// The rating (段位 × 100 + points in the rank).
    pub rating: i64,
    /// The rating's rank name, e.g. "1k".
    pub rank_name: String,
}

/// The seat the referee plays itself with the platform's bot (a friends' table's bot).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Bot {
    /// The bot's seat.
    pub seat: Seat,
    /// How long into its turn the bot acts, ms: fixed when the table opens, so every
    /// replica's sweeper agrees when the bot is due.
    pub move_ms: u64,
}

/// Where a table is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "status")]
pub enum Status {
    /// A game is running.
    Playing,
    /// The last game is over; both players may ask for the next one until `closes_at_ms`.
    BetweenGames {
        /// When the table closes if no next game starts.
        closes_at_ms: u64,
    },
    /// Closed for good.
    Closed,
}

/// Why a table closed: the code beside [`TableState::closed_reason`]'s words.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CloseReason {
    /// A player left during a game, or between the two games of a pair (逃跑).
    Escape,
    /// A player left between games.
    Left,
    /// Nobody restarted the table in time.
    Abandoned,
    /// An operator closed it.
    Operator,
}

/// What the ledger reported for one seat of a settled game.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeatSettled {
    /// The player.
    pub player_id: String,
    /// Points added.
    pub points_delta: i64,
    /// Points after.
    pub points_after: i64,
    /// Silver moved.
    pub silver_delta: i64,
    /// Balance after.
    pub balance_silver: i64,
    /// Which limit clamped the silver, if any.
    pub clamped_by: String,
}

/// A finished game of the table, kept for records and to show its settlement.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FinishedGame {
    /// The game's number at the table.
    pub number: u32,
    /// `<table_id>:<number>`.
    pub game_id: String,
    /// How it ended.
    pub result: GameResult,
    /// The ledger's answer once settled.
    pub settlement: Option<Vec<SeatSettled>>,
    /// The ledger had settled this game before with a different result, and
    /// `settlement` is that first answer (what stands).
    #[serde(default)]
    pub adopted: bool,
}

/// A table as stored: everything the referee knows about it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TableState {
    /// The table's id.
    pub table_id: String,
    /// The idempotency key that opened it (a retried OpenTable is recognised by it).
    pub open_request_id: String,
    /// Rules and stakes.
    pub room: Room,
    /// Seat 0 and seat 1.
    pub players: [String; 2],
    /// When the table opened (Unix ms).
    pub opened_ms: u64,
    /// The current (or last) game's number, from 1.
    pub number: u32,
    /// The current (or last) game, with its full log.
    pub game: Game,
    /// Where the table is in its life.
    pub status: Status,
    /// Between games: which seats asked for the next game.
    pub wants_next: [bool; 2],
    /// Which seats left.
    pub left: [bool; 2],
    /// Finished games, newest last, at most [`FINISHED_GAMES_KEPT`].
    pub finished: Vec<FinishedGame>,
    /// Why the table closed, in words; empty while open.
    pub closed_reason: String,
    /// Why the table closed, as a code; None while open (and for tables closed before
    /// the code was stored).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub close_reason: Option<CloseReason>,
    /// The secret from which each game's random opening is drawn (see
    /// [`TableState::new_game`]); never shown. Drawn from the OS when the table opens.
    #[serde(default)]
    pub opening_seed: u64,
    /// How each seat's player is shown; None when the table opened without profiles
    /// (and for tables stored before profiles).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profiles: Option<[Profile; 2]>,
    /// The seat the referee's bot plays; None at most tables (and at tables stored
    /// before bots).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bot: Option<Bot>,
    /// A friends' table (好友房): not listed, and its records say so. False for tables
    /// stored before friends' tables.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub friends_table: bool,
}

/// Something that happened at the table, as its watchers are told: when, in which
/// game, and what. [`crate::view::event`] turns it into the API's `TableEvent`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableEvent {
    /// When (Unix ms).
    pub at_ms: u64,
    /// The game it belongs to; 0 for the table's own events (opened, closed).
    pub game_number: u32,
    /// What happened.
    pub kind: EventKind,
}

/// What happened at the table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EventKind {
    /// The table opened with these players, in seat order.
    TableOpened {
        /// Seat 0 and seat 1.
        players: [String; 2],
    },
    /// A game started.
    GameStarted {
        /// Who holds black.
        black_seat: Seat,
        /// The first turn's deadline, if the room has a clock.
        turn_deadline_ms: Option<u64>,
        /// The designated opening the game starts from, if any.
        opening: Option<Opening>,
    },
    /// What the rules said of an action or of the clock: every rule-crate event except
    /// the end of the game, which is [`EventKind::GameOver`].
    Rules {
        /// The rule crate's event.
        event: Event,
        /// The deadline of the turn after it, if a clock runs.
        turn_deadline_ms: Option<u64>,
    },
    /// The game ended; the table closes at `closes_at_ms` unless both players ask for
    /// the next game first.
    GameOver {
        /// How it ended.
        result: GameResult,
        /// When the table closes if no next game starts.
        closes_at_ms: u64,
    },
    /// A seat asked for the next game.
    NextGameRequested {
        /// The seat.
        seat: Seat,
    },
    /// A seat left the table.
    PlayerLeft {
        /// The seat.
        seat: Seat,
        /// Whether leaving was an escape (逃跑).
        escaped: bool,
    },
    /// The table closed.
    TableClosed {
        /// Why, in words.
        reason: String,
        /// Why, as a code.
        code: CloseReason,
    },
    /// The ledger settled a finished game.
    GameSettled {
        /// The game's id at the ledger.
        game_id: String,
        /// The game's number at the table.
        number: u32,
        /// What the ledger did for each seat.
        seats: Vec<SeatSettled>,
        /// The ledger had settled the game before with a different result; this is
        /// that first answer, which stands.
        adopted: bool,
    },
}

/// What one transition publishes.
#[derive(Debug, Default)]
pub struct Step {
    /// Events to append, in order.
    pub events: Vec<TableEvent>,
    /// The number of the game this step ended: the table's current game, now among
    /// its finished ones, for [`crate::settle`] to settle.
    pub ended: Option<u32>,
}

/// A player's action at the table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PlayerAction {
    /// Anything the rules judge.
    Game(Action),
    /// Ready for the next game.
    NextGame,
    /// Leave the table (an escape mid-game, and between the two games of a pair).
    Leave,
    /// Leave the table when the ledger no longer lets the player play today: between
    /// the two games of a pair this is not an escape (the player cannot play the
    /// second game); otherwise the same as [`PlayerAction::Leave`].
    LeaveExcused,
}

/// What an applied action reports back to its caller.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Outcome {
    /// A forbidden claim was upheld.
    pub claim_upheld: bool,
    /// Leaving ended a game as an escape.
    pub escaped: bool,
    /// This call started the next game.
    pub started: bool,
}

impl TableState {
    /// A new table with its first game started at `now_ms`; `opening_seed` (random)
    /// draws the games' openings in a designated-opening room.
    /// A bot seat (`open.bot_seat`) acts `bot_move_ms` into each of its turns.
    pub fn open(
        table_id: &str,
        open: &OpenTable,
        now_ms: u64,
        opening_seed: u64,
        bot_move_ms: u64,
    ) -> (TableState, Step) {
        let config = GameConfig {
            rule_set: open.room.rule_set,
            time_control: open.room.time_control,
            black_seat: open.first_black_seat,
        };
        let mut state = TableState {
            table_id: table_id.to_owned(),
            open_request_id: open.request_id.clone(),
            room: open.room.clone(),
            players: open.players.clone(),
            opened_ms: now_ms,
            number: 1,
            game: Game::new(config, now_ms),
            status: Status::Playing,
            wants_next: [false; 2],
            left: [false; 2],
            finished: Vec::new(),
            closed_reason: String::new(),
            close_reason: None,
            opening_seed,
            profiles: open.profiles.clone(),
            bot: open.bot_seat.map(|seat| Bot {
                seat,
                move_ms: bot_move_ms,
            }),
            friends_table: open.friends_table,
        };
        state.game = state.new_game(config, now_ms);
        let mut step = Step::default();
        step.events.push(TableEvent {
            at_ms: now_ms,
            game_number: 0,
            kind: EventKind::TableOpened {
                players: state.players.clone(),
            },
        });
        step.events.push(state.game_started_event(now_ms));
        (state, step)
    }

    /// Whether `open` is the request that opened this table (a retry), as opposed to a
    /// different request under a reused id.
    pub fn opened_by(&self, open: &OpenTable) -> bool {
        self.open_request_id == open.request_id
            && self.room == open.room
            && self.players == open.players
            && self.profiles == open.profiles
            && self.bot.map(|b| b.seat) == open.bot_seat
            && self.friends_table == open.friends_table
    }

    /// Whether the referee's bot plays `seat`.
    pub fn is_bot(&self, seat: Seat) -> bool {
        self.bot.is_some_and(|b| b.seat == seat)
    }

    /// When the bot acts next, if a game runs and it is the bot's turn: its move time
    /// after the turn started. A draw offered to the bot waits for its turn (the bot
    /// declines it then).
    pub fn bot_due_ms(&self) -> Option<u64> {
        let bot = self.bot?;
        (self.status == Status::Playing && self.game.to_act() == Some(bot.seat))
            .then(|| self.game.turn_started_ms().saturating_add(bot.move_ms))
    }

    /// The seat of `player`, if it sits here.
    pub fn seat_of(&self, player: &str) -> Option<Seat> {
        Seat::BOTH
            .into_iter()
            .find(|s| self.players[s.index()] == player)
    }

    /// Game [`TableState::number`] under `config`, started at `now_ms`: from the room's
    /// designated opening when it has one (a random one is drawn from the table's secret
    /// seed and the game's number, so each game's draw is fixed once the table exists and
    /// a transition run again after a lost race starts the same game), else from an
    /// empty board.
    fn new_game(&self, config: GameConfig, now_ms: u64) -> Game {
        let Some(choice) = self.room.designated_opening else {
            return Game::new(config, now_ms);
        };
        let opening = choice.opening(mix(self.opening_seed, self.number));
        // OpenTable accepts openings only under rules that have them.
        Game::with_opening(config, opening, now_ms).unwrap_or_else(|_| Game::new(config, now_ms))
    }

    /// The game id at the ledger of game `number`.
    pub fn game_id(&self, number: u32) -> String {
        format!("{}:{number}", self.table_id)
    }

    /// The next instant something happens on its own: the turn deadline while playing,
    /// the closing time between games, nothing once closed.
    /// While the bot is to act, its move is due first unless its clock runs out before.
    pub fn deadline_ms(&self) -> Option<u64> {
        match self.status {
            Status::Playing => match (self.game.deadline_ms(), self.bot_due_ms()) {
                (Some(clock), Some(bot)) => Some(clock.min(bot)),
                (clock, bot) => clock.or(bot),
            },
            Status::BetweenGames { closes_at_ms } => Some(closes_at_ms),
            Status::Closed => None,
        }
    }

    /// Whether the table is closed.
    pub fn is_closed(&self) -> bool {
        self.status == Status::Closed
    }

    /// Whether the table waits between games (the players may ask for the next one).
    pub fn is_between_games(&self) -> bool {
        matches!(self.status, Status::BetweenGames { .. })
    }

    /// Whether the players owe each other the second game of a pair: the table's games
    /// come in pairs (games 1 and 2, 3 and 4, …) and the first of a pair just ended.
    pub fn owes_second_game(&self) -> bool {
        self.room.paired_games && self.is_between_games() && self.number % 2 == 1
    }

    /// Whether leaving now is an escape: while a game runs, and between the two games of
    /// a pair.
    pub fn leaving_escapes(&self) -> bool {
        self.status == Status::Playing || self.owes_second_game()
    }

    /// An event of the current game at `at_ms`.
    fn event(&self, at_ms: u64, kind: EventKind) -> TableEvent {
        TableEvent {
            at_ms,
            game_number: self.number,
            kind,
        }
    }

    fn game_started_event(&self, now_ms: u64) -> TableEvent {
        self.event(
            now_ms,
            EventKind::GameStarted {
                black_seat: self.game.config().black_seat,
                turn_deadline_ms: self.game.deadline_ms(),
                opening: self.game.opening(),
            },
        )
    }

    /// Applies `action` of `seat` at `now_ms`. On error nothing changed.
    pub fn act(
        &mut self,
        seat: Seat,
        action: PlayerAction,
        now_ms: u64,
        between_games_ms: u64,
    ) -> Result<(Step, Outcome), RefereeError> {
        match action {
            PlayerAction::Game(action) => self.play(seat, action, now_ms, between_games_ms),
            PlayerAction::NextGame => self.next_game(seat, now_ms),
            PlayerAction::Leave => self.leave(seat, false, now_ms, between_games_ms),
            PlayerAction::LeaveExcused => self.leave(seat, true, now_ms, between_games_ms),
        }
    }

    fn play(
        &mut self,
        seat: Seat,
        action: Action,
        now_ms: u64,
        between_games_ms: u64,
    ) -> Result<(Step, Outcome), RefereeError> {
        match self.status {
            Status::Playing => {}
            Status::BetweenGames { .. } => {
                return Err(RefereeError::NoGameInProgress {
                    number: self.number,
                });
            }
            Status::Closed => {
                return Err(RefereeError::TableClosed {
                    reason: self.closed_reason.clone(),
                });
            }
        }
        let events = self.game.act(seat, action, now_ms)?;
        let outcome = Outcome {
            claim_upheld: events
                .iter()
                .any(|e| matches!(e, Event::ForbiddenClaimUpheld { .. })),
            ..Outcome::default()
        };
        let mut step = Step::default();
        self.publish(&events, now_ms, between_games_ms, &mut step);
        Ok((step, outcome))
    }

    /// Applies the clock at `now_ms`: a turn deadline loses the game on time, a
    /// between-games deadline closes the table. Returns None when nothing is due.
    pub fn on_clock(&mut self, now_ms: u64, between_games_ms: u64) -> Option<Step> {
        match self.status {
            Status::Playing => {
                let events = self.game.check_timeout(now_ms);
                if events.is_empty() {
                    return self
                        .bot_due_ms()
                        .filter(|&due| now_ms >= due)
                        .map(|_| self.bot_acts(now_ms, between_games_ms));
                }
                let mut step = Step::default();
                self.publish(&events, now_ms, between_games_ms, &mut step);
                Some(step)
            }
            Status::BetweenGames { closes_at_ms } if now_ms >= closes_at_ms => {
                let mut step = Step::default();
                // Between the two games of a pair, a player who did not come back while
                // the other did escaped from the second game.
                let stayed_away = match self.wants_next {
                    [true, false] => Some(Seat::ONE),
                    [false, true] => Some(Seat::ZERO),
                    _ => None,
                };
                let escaped = match stayed_away {
                    Some(seat) if self.owes_second_game() => self
                        .escape_from_second_game(seat, closes_at_ms, between_games_ms, &mut step)
                        .inspect_err(|e| tracing::error!(table_id = %self.table_id, error = %e, "the second game of a pair refused an escape; the table closes as idle"))
                        .ok()
                        .map(|()| seat),
                    _ => None,
                };
                match escaped {
                    Some(seat) => {
                        let reason = format!(
                            "{} did not come back for the second game of the pair",
                            self.players[seat.index()]
                        );
                        self.close(&reason, CloseReason::Escape, closes_at_ms, &mut step);
                    }
                    _ => self.close(
                        "no next game requested in time",
                        CloseReason::Abandoned,
                        now_ms,
                        &mut step,
                    ),
                }
                Some(step)
            }
            Status::BetweenGames { .. } | Status::Closed => None,
        }
    }

    /// The bot's turn at `now_ms`, as one step: a draw offered to it declined, then its
    /// move as the platform's bot chooses it (never a forbidden point for black; a
    /// resignation only when no move is left to it). Its choices are drawn from the
    /// table's secret seed and the position, so a step run again after a lost race
    /// chooses the same.
    fn bot_acts(&mut self, now_ms: u64, between_games_ms: u64) -> Step {
        let mut step = Step::default();
        let Some(bot) = self.bot else {
            return step;
        };
        let seed = mix(self.opening_seed ^ BOT_SEED, self.number)
            ^ u64::try_from(self.game.log().len()).unwrap_or(u64::MAX);
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        // At most: decline a draw offer, then one action ending the turn.
        for _ in 0..2 {
            if self.status != Status::Playing {
                break;
            }
            let action = if self.game.draw_offer().is_some_and(|by| by != bot.seat) {
                Action::DeclineDraw
            } else if self.game.to_act() == Some(bot.seat) {
                gamehub_bots::gomoku::decide(&self.game, bot.seat, &mut rng)
                    .map(|action| match action {
                        // The referee's bot never takes a draw (decide may).
                        Action::AcceptDraw => Action::DeclineDraw,
                        other => other,
                    })
                    .unwrap_or(Action::Resign)
            } else {
                break;
            };
            match self.game.act(bot.seat, action, now_ms) {
                Ok(events) => self.publish(&events, now_ms, between_games_ms, &mut step),
                Err(e) => {
                    tracing::error!(table_id = %self.table_id, error = %e, ?action, "the bot's move was refused; it resigns");
                    if let Ok(events) = self.game.act(bot.seat, Action::Resign, now_ms) {
                        self.publish(&events, now_ms, between_games_ms, &mut step);
                    }
                    break;
                }
            }
        }
        step
    }

    /// Turns the rule crate's events into table events; a game over also finishes the
    /// game (kept among the finished ones, the step's ended game, between-games status)
    /// and a bot seat asks for the next game at once.
    fn publish(&mut self, events: &[Event], now_ms: u64, between_games_ms: u64, step: &mut Step) {
        let turn_deadline_ms = self.game.deadline_ms();
        for event in events {
            let kind = match *event {
                Event::GameOver { result } => {
                    let closes_at_ms = now_ms.saturating_add(between_games_ms);
                    self.finish_game(result);
                    step.ended = Some(self.number);
                    self.status = Status::BetweenGames { closes_at_ms };
                    self.wants_next = [false; 2];
                    step.events.push(self.event(
                        now_ms,
                        EventKind::GameOver {
                            result,
                            closes_at_ms,
                        },
                    ));
                    if let Some(bot) = self.bot.filter(|b| !self.left[b.seat.index()]) {
                        self.wants_next[bot.seat.index()] = true;
                        step.events.push(
                            self.event(now_ms, EventKind::NextGameRequested { seat: bot.seat }),
                        );
                    }
                    continue;
                }
                event => EventKind::Rules {
                    event,
                    turn_deadline_ms,
                },
            };
            step.events.push(self.event(now_ms, kind));
        }
    }

    /// Keeps the game that just ended among the finished ones, waiting for its
    /// settlement.
    fn finish_game(&mut self, result: GameResult) {
        self.finished.push(FinishedGame {
            number: self.number,
            game_id: self.game_id(self.number),
            result,
            settlement: None,
            adopted: false,
        });
        if self.finished.len() > FINISHED_GAMES_KEPT {
            let excess = self.finished.len() - FINISHED_GAMES_KEPT;
            self.finished.drain(..excess);
        }
    }

    fn next_game(&mut self, seat: Seat, now_ms: u64) -> Result<(Step, Outcome), RefereeError> {
        match self.status {
            Status::Playing => Err(RefereeError::GameInProgress {
                number: self.number,
            }),
            Status::Closed => Err(RefereeError::TableClosed {
                reason: self.closed_reason.clone(),
            }),
            Status::BetweenGames { .. } => {
                let mut step = Step::default();
                if !self.wants_next[seat.index()] {
                    self.wants_next[seat.index()] = true;
                    step.events
                        .push(self.event(now_ms, EventKind::NextGameRequested { seat }));
                }
                if self.wants_next != [true, true] {
                    return Ok((step, Outcome::default()));
                }
                self.start_next_game(now_ms, &mut step);
                Ok((
                    step,
                    Outcome {
                        started: true,
                        ..Outcome::default()
                    },
                ))
            }
        }
    }

    /// Starts the next game at `now_ms`. Colors alternate: whoever opened the last game
    /// as black opens this one as white (in the swap room, the player placing the first
    /// three stones alternates).
    fn start_next_game(&mut self, now_ms: u64, step: &mut Step) {
        let config = GameConfig {
            black_seat: self.game.config().black_seat.other(),
            ..*self.game.config()
        };
        self.number += 1;
        self.game = self.new_game(config, now_ms);
        self.status = Status::Playing;
        self.wants_next = [false; 2];
        step.events.push(self.game_started_event(now_ms));
    }

    /// `seat` escapes from the second game of a pair it owes: that game starts and ends
    /// at once with the escape, scored and settled as any escape; the seat has left.
    fn escape_from_second_game(
        &mut self,
        seat: Seat,
        now_ms: u64,
        between_games_ms: u64,
        step: &mut Step,
    ) -> Result<(), RefereeError> {
        debug_assert!(self.owes_second_game());
        // Refused (never expected of a game just started), nothing of it stays: the
        // table and the step are as they were.
        let (before, events_before) = (self.clone(), step.events.len());
        self.start_next_game(now_ms, step);
        match self.game.escape(seat, now_ms) {
            Ok(events) => self.publish(&events, now_ms, between_games_ms, step),
            Err(e) => {
                *self = before;
                step.events.truncate(events_before);
                return Err(e.into());
            }
        }
        self.left[seat.index()] = true;
        step.events.push(self.event(
            now_ms,
            EventKind::PlayerLeft {
                seat,
                escaped: true,
            },
        ));
        Ok(())
    }

    /// `seat` leaves: an escape while a game runs and, unless `excused` (the ledger no
    /// longer lets it play), between the two games of a pair; either way the table closes.
    fn leave(
        &mut self,
        seat: Seat,
        excused: bool,
        now_ms: u64,
        between_games_ms: u64,
    ) -> Result<(Step, Outcome), RefereeError> {
        let mut step = Step::default();
        let mut outcome = Outcome::default();
        match self.status {
            Status::Closed => return Ok((step, outcome)),
            Status::Playing => {
                let events = self.game.escape(seat, now_ms)?;
                self.publish(&events, now_ms, between_games_ms, &mut step);
                outcome.escaped = true;
            }
            Status::BetweenGames { .. } if self.owes_second_game() && !excused => {
                self.escape_from_second_game(seat, now_ms, between_games_ms, &mut step)?;
                outcome.escaped = true;
            }
            Status::BetweenGames { .. } => {}
        }
        // An escape from a pair's second game has announced the leaving already.
        if !self.left[seat.index()] {
            self.left[seat.index()] = true;
            step.events.push(self.event(
                now_ms,
                EventKind::PlayerLeft {
                    seat,
                    escaped: outcome.escaped,
                },
            ));
        }
        let reason = format!("{} left", self.players[seat.index()]);
        let code = if outcome.escaped {
            CloseReason::Escape
        } else {
            CloseReason::Left
        };
        self.close(&reason, code, now_ms, &mut step);
        Ok((step, outcome))
    }

    /// An operator closes the table (`gamehub admin close-table`) with `reason`: a game
    /// in progress is voided (no settlement is written, so nothing moves at the ledger
    /// and nobody escapes) and the table closes at once. Returns the step and the voided
    /// game's id; a closed table is left as it is (an empty step).
    pub fn close_by_operator(&mut self, reason: &str, now_ms: u64) -> (Step, Option<String>) {
        let mut step = Step::default();
        if self.is_closed() {
            return (step, None);
        }
        let voided = (self.status == Status::Playing).then(|| self.game_id(self.number));
        self.close(reason, CloseReason::Operator, now_ms, &mut step);
        (step, voided)
    }

    fn close(&mut self, reason: &str, code: CloseReason, now_ms: u64, step: &mut Step) {
        self.status = Status::Closed;
        self.wants_next = [false; 2];
        reason.clone_into(&mut self.closed_reason);
        self.close_reason = Some(code);
        step.events.push(TableEvent {
            at_ms: now_ms,
            game_number: 0,
            kind: EventKind::TableClosed {
                reason: reason.to_owned(),
                code,
            },
        });
    }

    /// Notes the ledger's answer for finished game `game_id` (`seats`: what it did for
    /// each seat, as [`crate::settle::seats_settled`] reads it; `adopted`: the ledger's
    /// first answer to a different result of the game, which stands); returns the step
    /// announcing it, or None when the game is no longer kept here or was noted before.
    pub fn settled(
        &mut self,
        game_id: &str,
        seats: Vec<SeatSettled>,
        adopted: bool,
        now_ms: u64,
    ) -> Option<Step> {
        let finished = self.finished.iter_mut().find(|f| f.game_id == game_id)?;
        if finished.settlement.is_some() {
            return None;
        }
        let number = finished.number;
        finished.settlement = Some(seats.clone());
        finished.adopted = adopted;
        Some(Step {
            events: vec![TableEvent {
                at_ms: now_ms,
                game_number: number,
                kind: EventKind::GameSettled {
                    game_id: game_id.to_owned(),
                    number,
                    seats,
                    adopted,
                },
            }],
            ended: None,
        })
    }

    /// A finished game kept here: `number`, or the last one for 0.
    pub fn finished_game(&self, number: u32) -> Result<&FinishedGame, RefereeError> {
        let found = if number == 0 {
            self.finished.last()
        } else {
            self.finished.iter().find(|f| f.number == number)
        };
        found.ok_or_else(|| RefereeError::NoSuchGame {
            table_id: self.table_id.clone(),
            number,
            hint: if number != 0 && number <= self.number {
                "; only the last few games are kept at the table: fetch older ones from the ledger (GetGameRecord)"
            } else {
                ""
            },
        })
    }
}

/// Set apart the bot's draws from the openings' (both come from the table's seed).
const BOT_SEED: u64 = 0x00b0_75ee_db07_5eed;

/// SplitMix64 of `seed` and a game's number: a well-spread number per game, from which
/// [`OpeningChoice::opening`] picks.
fn mix(seed: u64, number: u32) -> u64 {
    let mut z = seed.wrapping_add(u64::from(number).wrapping_mul(0x9e37_79b9_7f4a_7c15));
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Tables for the tests of this module and the ones above it.
#[cfg(test)]
pub(crate) mod fixtures {
    use gomoku_rules::Point;

    use super::*;

    /// A free-clocked table of alice (seat 0, black in game 1) and bob, opened at 1,000
    /// with a 1 s move clock, points base 2 and 10 silver per point.
    pub fn open(rule_set: RuleSet) -> (TableState, Step) {
        open_room(rule_set, false)
    }

    /// [`open`], with games in pairs or not.
    pub fn open_room(rule_set: RuleSet, paired_games: bool) -> (TableState, Step) {
        let room = Room {
            stakes: Stakes {
                room_id: RoomId::parse("gomoku-test").unwrap(),
                points_base: 2,
                silver_per_point: 10,
                min_balance_silver: 0,
                rated: false,
            },
            rule_set,
            time_control: TimeControl {
                per_move_ms: 1000,
                total_ms: 0,
            },
            designated_opening: None,
            paired_games,
        };
        TableState::open(
            "gt-1",
            &OpenTable {
                request_id: "r".into(),
                room,
                players: ["alice".into(), "bob".into()],
                first_black_seat: Seat::ZERO,
                profiles: None,
                bot_seat: None,
                friends_table: false,
            },
            1_000,
            7,
            700,
        )
    }

    /// [`open`] with bob's seat (1, white in game 1) played by the referee's bot
    /// "bot-bob", moving 700 ms into its turns, at a friends' table.
    pub fn open_with_bot(rule_set: RuleSet) -> TableState {
        let (mut state, _) = open(rule_set);
        state.players[1] = "bot-bob".into();
        state.bot = Some(Bot {
            seat: Seat::ONE,
            move_ms: 700,
        });
        state.friends_table = true;
        state
    }

    /// `seat` places a stone on `point` at `now`.
    pub fn place(state: &mut TableState, seat: u8, point: &str, now: u64) -> Step {
        let p = Point::parse(point).unwrap();
        state
            .act(
                Seat::new(seat).unwrap(),
                PlayerAction::Game(Action::Place(p)),
                now,
                60_000,
            )
            .unwrap()
            .0
    }

    /// Black (seat 0) makes five on the h column by 1,200, white playing along a1–a4.
    pub fn black_wins_game_one(state: &mut TableState) -> Step {
        for (i, (b, w)) in [("h8", "a1"), ("h9", "a2"), ("h10", "a3"), ("h11", "a4")]
            .into_iter()
            .enumerate()
        {
            let t = 1_100 + 10 * i as u64;
            place(state, 0, b, t);
            place(state, 1, w, t + 5);
        }
        place(state, 0, "h12", 1_200)
    }

    /// A freestyle table whose games come in pairs, with game 1 won by black (seat 0)
    /// at 1,200 and the table between the two games of the pair.
    pub fn paired_after_game_one() -> TableState {
        let (mut state, _) = open_room(RuleSet::Freestyle, true);
        black_wins_game_one(&mut state);
        assert!(state.owes_second_game() && state.leaving_escapes());
        state
    }

    /// The seats (and whether they escaped) that the step says left.
    pub fn player_left(step: &Step) -> Vec<(u8, bool)> {
        step.events
            .iter()
            .filter_map(|e| match e.kind {
                EventKind::PlayerLeft { seat, escaped } => Some((seat.number(), escaped)),
                _ => None,
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use gomoku_rules::Point;

    use super::fixtures::*;
    use super::*;

    #[test]
    fn a_five_ends_the_game_and_the_next_game_swaps_colors() {
        let (mut state, step) = open(RuleSet::Freestyle);
        assert_eq!(step.events.len(), 2);
        let step = black_wins_game_one(&mut state);
        assert_eq!(step.ended, Some(1), "the five ends game 1");
        assert!(matches!(
            state.status,
            Status::BetweenGames {
                closes_at_ms: 61_200
            }
        ));
        assert_eq!(state.deadline_ms(), Some(61_200));
        assert_eq!(state.finished_game(0).unwrap().number, 1);

        let (_, first) = state
            .act(Seat::ONE, PlayerAction::NextGame, 1_300, 60_000)
            .unwrap();
        assert!(!first.started);
        let (step, second) = state
            .act(Seat::ZERO, PlayerAction::NextGame, 1_400, 60_000)
            .unwrap();
        assert!(second.started);
        assert_eq!(step.events.len(), 2);
        assert_eq!(state.number, 2);
        assert_eq!(state.game.config().black_seat, Seat::ONE);
        assert_eq!(state.deadline_ms(), Some(2_400));
    }

    #[test]
    fn a_player_the_ledger_no_longer_lets_play_leaves_a_pair_without_an_escape() {
        let mut state = paired_after_game_one();
        let (step, outcome) = state
            .act(Seat::ONE, PlayerAction::LeaveExcused, 2_000, 60_000)
            .unwrap();
        assert!(!outcome.escaped);
        assert!(step.ended.is_none());
        assert_eq!(player_left(&step), [(1, false)]);
        assert_eq!(state.close_reason, Some(CloseReason::Left));
        assert_eq!(state.number, 1);
    }

    #[test]
    fn leaving_after_the_second_game_of_a_pair_costs_nothing() {
        let mut state = paired_after_game_one();
        state
            .act(Seat::ZERO, PlayerAction::NextGame, 1_300, 60_000)
            .unwrap();
        state
            .act(Seat::ONE, PlayerAction::NextGame, 1_400, 60_000)
            .unwrap();
        assert!(state.leaving_escapes(), "game 2 runs");
        state
            .act(Seat::ONE, PlayerAction::Game(Action::Resign), 1_500, 60_000)
            .unwrap();
        assert!(!state.owes_second_game() && !state.leaving_escapes());
        let (step, outcome) = state
            .act(Seat::ONE, PlayerAction::Leave, 1_600, 60_000)
            .unwrap();
        assert!(!outcome.escaped && step.ended.is_none());
        assert_eq!(state.close_reason, Some(CloseReason::Left));
    }

    #[test]
    fn without_pairs_leaving_between_games_costs_nothing() {
        let (mut state, _) = open(RuleSet::Freestyle);
        state
            .act(
                Seat::ZERO,
                PlayerAction::Game(Action::Resign),
                1_100,
                60_000,
            )
            .unwrap();
        assert!(!state.owes_second_game() && !state.leaving_escapes());
        let (step, outcome) = state
            .act(Seat::ZERO, PlayerAction::Leave, 1_200, 60_000)
            .unwrap();
        assert!(!outcome.escaped && step.ended.is_none());
        assert_eq!(state.close_reason, Some(CloseReason::Left));
    }

    #[test]
    fn every_way_a_table_closes_has_its_code() {
        let closed_with = |step: &Step| {
            step.events
                .iter()
                .find_map(|e| match e.kind {
                    EventKind::TableClosed { code, .. } => Some(code),
                    _ => None,
                })
                .expect("a TableClosed event")
        };
        let (mut state, _) = open(RuleSet::Freestyle);
        let (step, _) = state
            .act(Seat::ONE, PlayerAction::Leave, 1_100, 60_000)
            .unwrap();
        assert_eq!(closed_with(&step), CloseReason::Escape);
        assert_eq!(state.close_reason, Some(CloseReason::Escape));

        let (mut state, _) = open(RuleSet::Freestyle);
        let (step, _) = state.close_by_operator("closed by operator ops: stuck", 1_100);
        assert_eq!(closed_with(&step), CloseReason::Operator);

        let (mut state, _) = open(RuleSet::Freestyle);
        state.on_clock(2_000, 500).unwrap();
        let step = state.on_clock(2_500, 500).unwrap();
        assert_eq!(closed_with(&step), CloseReason::Abandoned);
    }

    #[test]
    fn a_table_stored_with_loose_stakes_fields_reads_as_one_stakes_and_is_written_anew() {
        let (state, _) = open(RuleSet::Freestyle);
        let mut json = serde_json::to_value(&state).unwrap();
        // The room as tables stored it before the stakes became one type.
        let room = json["room"].as_object_mut().unwrap();
        let stakes = room.remove("stakes").unwrap();
        for (field, value) in stakes.as_object().unwrap() {
            room.insert(field.clone(), value.clone());
        }
        assert!(json["room"].get("points_base").is_some());
        let back: TableState = serde_json::from_value(json).unwrap();
        assert_eq!(back, state, "the old shape reads as the new");
        let again = serde_json::to_value(&back).unwrap();
        assert_eq!(again["room"]["stakes"]["room_id"], "gomoku-test");
        assert!(
            again["room"].get("points_base").is_none(),
            "written in the new shape"
        );
        // A stored room with neither shape is an error, never a default.
        let mut broken = serde_json::to_value(&state).unwrap();
        broken["room"].as_object_mut().unwrap().remove("stakes");
        assert!(serde_json::from_value::<TableState>(broken).is_err());
    }

    #[test]
    fn a_table_stored_before_pairs_and_close_codes_still_loads() {
        let (state, _) = open(RuleSet::Freestyle);
        let json = serde_json::to_value(&state).unwrap();
        assert!(json["room"].get("paired_games").is_none());
        assert!(json.get("close_reason").is_none());
        let back: TableState = serde_json::from_value(json).unwrap();
        assert!(!back.room.paired_games);
        assert_eq!(back.close_reason, None);
    }

    #[test]
    fn the_clock_loses_the_game_then_closes_an_abandoned_table() {
        let (mut state, _) = open(RuleSet::Freestyle);
        assert!(state.on_clock(1_999, 500).is_none());
        let step = state.on_clock(2_000, 500).unwrap();
        assert_eq!(step.ended, Some(1));
        assert_eq!(state.deadline_ms(), Some(2_500));
        assert!(state.on_clock(2_499, 500).is_none());
        state.on_clock(2_500, 500).unwrap();
        assert!(state.is_closed());
    }

    #[test]
    fn a_late_move_is_refused_as_time_expired_and_changes_nothing() {
        let (mut state, _) = open(RuleSet::Freestyle);
        let before = state.clone();
        let err = state
            .act(
                Seat::ZERO,
                PlayerAction::Game(Action::Place(Point::CENTER)),
                5_000,
                60_000,
            )
            .unwrap_err();
        assert!(matches!(err, RefereeError::TimeExpired));
        assert_eq!(state, before);
    }

    #[test]
    fn a_table_stored_before_openings_still_loads() {
        let (state, _) = open(RuleSet::Freestyle);
        let mut json: serde_json::Value = serde_json::to_value(&state).unwrap();
        let object = json.as_object_mut().unwrap();
        object.remove("opening_seed");
        assert!(object["room"].get("designated_opening").is_none());
        let back: TableState = serde_json::from_value(json).unwrap();
        assert_eq!(back.room.designated_opening, None);
        assert_eq!(back.opening_seed, 0);
    }

    #[test]
    fn each_game_of_a_random_opening_table_draws_from_the_seed_and_its_number() {
        let drawn = |seed: u64, number: u32| OpeningChoice::Random.opening(mix(seed, number));
        // Fixed per table and game (a transition run again starts the same game) …
        assert_eq!(drawn(42, 3), drawn(42, 3));
        // … and spread over all 26 across games and tables.
        let openings: std::collections::HashSet<_> =
            (0..2_000).map(|n| drawn(n / 20, (n % 20) as u32)).collect();
        assert_eq!(openings.len(), 26);
    }

    #[test]
    fn the_bot_moves_a_moment_into_its_turn_and_declines_a_draw() {
        let mut state = open_with_bot(RuleSet::Renju(gomoku_rules::ForbiddenPolicy::Lose));
        assert_eq!(
            state.deadline_ms(),
            Some(2_000),
            "black's clock: not the bot's turn"
        );
        place(&mut state, 0, "h8", 1_100);
        assert_eq!(
            state.deadline_ms(),
            Some(1_800),
            "the bot moves 700 ms into its turn"
        );
        assert!(state.on_clock(1_799, 60_000).is_none());
        state
            .act(
                Seat::ZERO,
                PlayerAction::Game(Action::OfferDraw),
                1_200,
                60_000,
            )
            .unwrap();
        let step = state.on_clock(1_800, 60_000).expect("the bot is due");
        let said: Vec<_> = step
            .events
            .iter()
            .filter_map(|e| match &e.kind {
                EventKind::Rules { event, .. } => Some(*event),
                _ => None,
            })
            .collect();
        assert!(
            matches!(
                said.as_slice(),
                [Event::DrawDeclined { .. }, Event::StonePlaced { .. }]
            ),
            "{said:?}"
        );
        assert_eq!(state.game.board().stone_count(), 2);
        assert_eq!(state.game.to_act(), Some(Seat::ZERO));
        assert_eq!(state.deadline_ms(), Some(2_800), "black's clock again");
    }

    #[test]
    fn the_bot_plays_its_seat_only_and_only_on_its_turn() {
        let state = open_with_bot(RuleSet::Freestyle);
        assert!(state.is_bot(Seat::ONE) && !state.is_bot(Seat::ZERO));
        assert!(state.bot_due_ms().is_none(), "black moves first");
    }

    #[test]
    fn the_bot_asks_for_the_next_game_as_the_game_ends() {
        let mut state = open_with_bot(RuleSet::Freestyle);
        let step = state
            .act(
                Seat::ZERO,
                PlayerAction::Game(Action::Resign),
                1_100,
                60_000,
            )
            .unwrap()
            .0;
        assert_eq!(state.wants_next, [false, true]);
        assert!(step.events.iter().any(|e| matches!(
            e.kind,
            EventKind::NextGameRequested { seat } if seat == Seat::ONE
        )));
        let (_, outcome) = state
            .act(Seat::ZERO, PlayerAction::NextGame, 1_200, 60_000)
            .unwrap();
        assert!(outcome.started, "the human's ask starts game 2");
        assert_eq!(
            state.game.config().black_seat,
            Seat::ONE,
            "the bot opens as black"
        );
        assert_eq!(state.deadline_ms(), Some(1_900));
        state
            .on_clock(1_900, 60_000)
            .expect("the bot's first stone");
        assert_eq!(state.game.board().stone_count(), 1);
    }

    #[test]
    fn a_table_stored_before_profiles_bots_and_friends_tables_still_loads() {
        let (state, _) = open(RuleSet::Freestyle);
        let json = serde_json::to_value(&state).unwrap();
        for field in ["profiles", "bot", "friends_table"] {
            assert!(
                json.get(field).is_none(),
                "{field} is not written when unset"
            );
        }
        let back: TableState = serde_json::from_value(json).unwrap();
        assert_eq!(
            (back.profiles, back.bot, back.friends_table),
            (None, None, false)
        );
        let with_bot = open_with_bot(RuleSet::Freestyle);
        let json = serde_json::to_vec(&with_bot).unwrap();
        assert_eq!(
            serde_json::from_slice::<TableState>(&json).unwrap(),
            with_bot
        );
    }

    #[test]
    fn the_state_round_trips_through_json() {
        let (mut state, _) = open(RuleSet::RenjuSwap);
        place(&mut state, 0, "h8", 1_100);
        let json = serde_json::to_vec(&state).unwrap();
        let back: TableState = serde_json::from_slice(&json).unwrap();
        assert_eq!(back, state);
    }
}
