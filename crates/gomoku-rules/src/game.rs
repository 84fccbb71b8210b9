//! The game state machine over two seats: turns, the swap-room opening, designated
//! openings, forbidden-move policies, draw offers, clocks, and the end of the game with its
//! points.
//!
//! Every action takes `now_ms` (wall-clock milliseconds from the caller), returns the
//! [`Event`]s it caused, and on error returns a [`GameError`] with the game unchanged:
//! each action validates everything before it touches the state.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::board::{Board, Color, ForbiddenKind, Verdict};
use crate::opening::Opening;
use crate::point::{Point, Symmetry};
use crate::rule_set::{ForbiddenPolicy, RuleSet};

/// One of the two seats at a table (the players). Colors belong to seats only for a game,
/// and in the swap room they change during it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "u8", into = "u8")]
pub struct Seat(u8);

impl Seat {
    pub const ZERO: Seat = Seat(0);
    pub const ONE: Seat = Seat(1);
    pub const BOTH: [Seat; 2] = [Seat::ZERO, Seat::ONE];

    /// Seat 0 or 1.
    pub const fn new(number: u8) -> Option<Seat> {
        if number < 2 { Some(Seat(number)) } else { None }
    }

    /// 0 or 1.
    pub const fn number(self) -> u8 {
        self.0
    }

    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// The other seat.
    pub const fn other(self) -> Seat {
        Seat(1 - self.0)
    }
}

impl TryFrom<u8> for Seat {
    type Error = String;
    fn try_from(number: u8) -> Result<Self, Self::Error> {
        Seat::new(number).ok_or_else(|| format!("seat {number} does not exist (seats are 0 and 1)"))
    }
}

impl From<Seat> for u8 {
    fn from(seat: Seat) -> u8 {
        seat.0
    }
}

impl fmt::Display for Seat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "seat {}", self.0)
    }
}

/// A room's clock: time per move and total time per player, in ms; 0 means unlimited.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub struct TimeControl {
    pub per_move_ms: u64,
    pub total_ms: u64,
}

impl TimeControl {
    /// No clock at all.
    pub const UNLIMITED: TimeControl = TimeControl {
        per_move_ms: 0,
        total_ms: 0,
    };
}

/// Everything that fixes a game before its first move.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct GameConfig {
    pub rule_set: RuleSet,
    pub time_control: TimeControl,
    /// The seat that starts as black; the table alternates it between games.
    pub black_seat: Seat,
}

/// What the game is waiting for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "phase")]
pub enum Phase {
    /// A stone from the side to move (or, under the claim policy, white's claim).
    Play,
    /// Swap room, after move 3: white either swaps colors or plays move 4.
    SwapDecision,
    /// Swap room: black proposes two fifth moves.
    ProposeFifth,
    /// Swap room: white chooses which proposal stays.
    ChooseFifth { proposals: [Point; 2] },
    /// The game has ended.
    Over,
}

impl fmt::Display for Phase {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Phase::Play => f.write_str("a move"),
            Phase::SwapDecision => f.write_str("white to swap or play move 4"),
            Phase::ProposeFifth => f.write_str("black to propose two fifth moves"),
            Phase::ChooseFifth { proposals: [a, b] } => {
                write!(f, "white to choose the fifth move, {a} or {b}")
            }
            Phase::Over => f.write_str("nothing: the game is over"),
        }
    }
}

/// Something a seat does. [`Game::act`] takes any of them; the named methods are shortcuts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "action", content = "points")]
pub enum Action {
    /// Put a stone of the seat's color.
    Place(Point),
    /// White claims black's last move was forbidden (claim policy).
    ClaimForbidden,
    /// Swap room: white takes black (三手交换).
    Swap,
    /// Swap room: black's two fifth-move proposals (五手两打).
    ProposeFifth(Point, Point),
    /// Swap room: white keeps one proposal as black's fifth stone.
    ChooseFifth(Point),
    OfferDraw,
    AcceptDraw,
    DeclineDraw,
    Resign,
    /// The seat left the table mid-game (逃跑).
    Escape,
    /// The side to act ran out of time; only the clock does this ([`Game::check_timeout`]).
    Timeout,
}

/// One action in the game's log, with its time since the game started.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct LogEntry {
    pub at_ms: u64,
    pub seat: Seat,
    pub action: Action,
}

/// Who won, by color.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    BlackWins,
    WhiteWins,
    Draw,
}

/// Why the game ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "reason")]
pub enum EndReason {
    /// A winning five (连五).
    Five,
    /// Black played a forbidden point under the lose policy.
    ForbiddenMove { kind: ForbiddenKind },
    /// White claimed black's forbidden move under the claim policy.
    ForbiddenClaimed { kind: ForbiddenKind },
    /// `seat` resigned (投降).
    Resignation { seat: Seat },
    /// `seat` ran out of time (超时).
    Timeout { seat: Seat },
    /// `offered_by` offered a draw and the other seat accepted (和棋).
    DrawAgreed { offered_by: Seat },
    /// Neither side can make five any more (和局).
    NaturalDraw,
    /// `seat` left the table mid-game (逃跑).
    Escape { seat: Seat },
}

/// How a game ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct GameResult {
    pub outcome: Outcome,
    #[serde(flatten)]
    pub reason: EndReason,
    /// The winning seat; `None` for a draw.
    pub winner: Option<Seat>,
    /// The seat holding black at the end (after any swap).
    pub black_seat: Seat,
}

/// What an escaper loses, in units of the points base (黑逃跑 黑-10): the most a game
/// costs one player, so it also sizes a room's default minimum balance.
pub const ESCAPE_POINTS: i64 = 10;

/// Points of one game, per seat and per color (docs/rules.md#gomoku-points × the points base).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Points {
    /// Indexed by [`Seat::index`].
    pub seats: [i64; 2],
    pub black: i64,
    pub white: i64,
}

impl GameResult {
    /// The points each side scores, from the table of docs/rules.md#gomoku-points times `points_base`.
    pub fn points(&self, points_base: i64) -> Points {
        let black = self.black_seat;
        let white = black.other();
        // (black, white) in units of the points base.
        let (b, w): (i64, i64) = match self.reason {
            EndReason::Five
            | EndReason::ForbiddenMove { .. }
            | EndReason::ForbiddenClaimed { .. }
            | EndReason::Timeout { .. } => match self.outcome {
                Outcome::BlackWins => (5, -5),
                Outcome::WhiteWins => (-5, 5),
                Outcome::Draw => (0, 0),
            },
            EndReason::Resignation { seat } if seat == black => (-3, 3),
            EndReason::Resignation { .. } => (2, -2),
            EndReason::Escape { seat } if seat == black => (-ESCAPE_POINTS, 0),
            EndReason::Escape { .. } => (0, -ESCAPE_POINTS),
            EndReason::DrawAgreed { offered_by } if offered_by == black => (-1, 1),
            EndReason::DrawAgreed { .. } => (1, -1),
            EndReason::NaturalDraw => (0, 0),
        };
        let (b, w) = (b.saturating_mul(points_base), w.saturating_mul(points_base));
        let mut seats = [0; 2];
        seats[black.index()] = b;
        seats[white.index()] = w;
        Points {
            seats,
            black: b,
            white: w,
        }
    }

    /// A short English description, e.g. `white wins: forbidden move (double three)`.
    pub fn describe(&self) -> String {
        let outcome = match self.outcome {
            Outcome::BlackWins => "black wins",
            Outcome::WhiteWins => "white wins",
            Outcome::Draw => "draw",
        };
        let color = |seat: Seat| {
            if seat == self.black_seat {
                "black"
            } else {
                "white"
            }
        };
        let reason = match self.reason {
            EndReason::Five => "five".to_owned(),
            EndReason::ForbiddenMove { kind } => format!("forbidden move ({kind})"),
            EndReason::ForbiddenClaimed { kind } => format!("forbidden move claimed ({kind})"),
            EndReason::Resignation { seat } => format!("{} resigned", color(seat)),
            EndReason::Timeout { seat } => format!("{} ran out of time", color(seat)),
            EndReason::DrawAgreed { offered_by } => {
                format!("draw agreed, offered by {}", color(offered_by))
            }
            EndReason::NaturalDraw => "no five possible".to_owned(),
            EndReason::Escape { seat } => format!("{} left the table", color(seat)),
        };
        format!("{outcome}: {reason}")
    }
}

/// What an action did, for the referee to publish.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "event")]
pub enum Event {
    /// A stone went on the board; `ply` counts stones from 1.
    StonePlaced {
        ply: u16,
        seat: Seat,
        color: Color,
        point: Point,
    },
    /// White's claim was right: black's last move was forbidden (the game ends).
    ForbiddenClaimUpheld {
        seat: Seat,
        kind: ForbiddenKind,
    },
    /// White's claim was wrong: white loses its turn and black moves again.
    ForbiddenClaimRejected {
        seat: Seat,
    },
    DrawOffered {
        seat: Seat,
    },
    DrawDeclined {
        seat: Seat,
    },
    /// The offer lapsed because the offerer's opponent moved.
    DrawLapsed {
        offered_by: Seat,
    },
    /// `seat` (white) swapped colors; `black_seat` now holds black.
    Swapped {
        seat: Seat,
        black_seat: Seat,
    },
    FifthProposed {
        seat: Seat,
        proposals: [Point; 2],
    },
    FifthChosen {
        seat: Seat,
        point: Point,
        rejected: Point,
    },
    GameOver {
        result: GameResult,
    },
}

/// Why an action was refused. The game is unchanged.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum GameError {
    #[error("the game is already over")]
    GameOver,
    #[error("it is not this seat's turn")]
    NotYourTurn,
    #[error("not possible now: the game is waiting for {phase}")]
    WrongPhase { phase: Phase },
    #[error("{point} is already occupied")]
    Occupied { point: Point },
    #[error("black's first stone must be on h8 (the center), not {point}")]
    FirstMoveMustBeCenter { point: Point },
    #[error("move 2 must touch h8 (one of its 8 neighbours), not {point}")]
    SecondMoveMustTouchCenter { point: Point },
    #[error("move 3 must lie within the central 5x5 square (f6-j10), not {point}")]
    ThirdMoveOutsideCenter { point: Point },
    #[error("{point} is forbidden for black: {kind}")]
    Forbidden { point: Point, kind: ForbiddenKind },
    #[error("there is nothing to claim: forbidden moves are claimed only in renju-claim rooms")]
    NothingToClaim,
    #[error("a draw offer from {by} is already pending")]
    DrawOfferPending { by: Seat },
    #[error("a seat may offer a draw only once per move")]
    DrawOfferTooSoon,
    #[error("there is no draw offer from the opponent to answer")]
    NoDrawOffer,
    #[error("the two fifth-move proposals must be different points")]
    IdenticalProposals,
    #[error(
        "the two fifth-move proposals {a} and {b} give equivalent positions (a rotation or reflection)"
    )]
    EquivalentProposals { a: Point, b: Point },
    #[error("the proposal {point} is forbidden for black: {kind}")]
    ForbiddenProposal { point: Point, kind: ForbiddenKind },
    #[error("{point} is not one of black's two proposals")]
    NotAProposal { point: Point },
    #[error("the clock ran out at {deadline_ms} ms: the game is lost on time (call check_timeout)")]
    TimeExpired { deadline_ms: u64 },
    #[error("no timeout is due")]
    NoTimeoutDue,
    #[error(
        "a {rule_set} game cannot start from a designated opening: openings are played under renju rules without the swap opening"
    )]
    OpeningNotAllowed { rule_set: RuleSet },
}

impl GameError {
    /// A stable snake_case code for the error, for APIs and front-ends.
    pub const fn code(&self) -> &'static str {
        match self {
            GameError::GameOver => "game_over",
            GameError::NotYourTurn => "not_your_turn",
            GameError::WrongPhase { .. } => "wrong_phase",
            GameError::Occupied { .. } => "occupied",
            GameError::FirstMoveMustBeCenter { .. } => "first_move_must_be_center",
            GameError::SecondMoveMustTouchCenter { .. } => "second_move_must_touch_center",
            GameError::ThirdMoveOutsideCenter { .. } => "third_move_outside_center",
            GameError::Forbidden { .. } => "forbidden",
            GameError::NothingToClaim => "nothing_to_claim",
            GameError::DrawOfferPending { .. } => "draw_offer_pending",
            GameError::DrawOfferTooSoon => "draw_offer_too_soon",
            GameError::NoDrawOffer => "no_draw_offer",
            GameError::IdenticalProposals => "identical_proposals",
            GameError::EquivalentProposals { .. } => "equivalent_proposals",
            GameError::ForbiddenProposal { .. } => "forbidden_proposal",
            GameError::NotAProposal { .. } => "not_a_proposal",
            GameError::TimeExpired { .. } => "time_expired",
            GameError::NoTimeoutDue => "no_timeout_due",
            GameError::OpeningNotAllowed { .. } => "opening_not_allowed",
        }
    }
}

/// One game of Gomoku/Renju between two seats.
///
/// Only the configuration, the opening, the start time and the action log are stored (see
/// [`Game::to_bytes`]); everything else is rebuilt by replaying the log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Game {
    config: GameConfig,
    /// The designated opening the game started from (指定打法); its three stones are the
    /// first three entries of `log`.
    opening: Option<Opening>,
    /// Wall-clock time the game started; log times are relative to it.
    started_ms: u64,
    /// Latest time seen, so that a clock stepping back never runs a turn backwards.
    last_ms: u64,
    board: Board,
    /// Stones in the order they were placed.
    moves: Vec<(Point, Color)>,
    /// Every accepted action: the game is a pure function of config, start and this log.
    log: Vec<LogEntry>,
    black_seat: Seat,
    /// The color whose seat acts next (also in the swap and proposal phases).
    to_move: Color,
    phase: Phase,
    turn_started_ms: u64,
    /// Total time left per seat at the start of its current or next turn.
    remaining_ms: [u64; 2],
    draw_offer: Option<Seat>,
    /// Stone count when each seat last offered a draw (one offer per move).
    last_offer_at: [Option<usize>; 2],
    /// Claim policy: black's last move was forbidden and white has not answered yet.
    pending_claim: Option<ForbiddenKind>,
    result: Option<GameResult>,
}

impl Game {
    /// A new game starting at `now_ms`, black to play h8.
    pub fn new(config: GameConfig, now_ms: u64) -> Game {
        let total = config.time_control.total_ms;
        Game {
            config,
            opening: None,
            started_ms: now_ms,
            last_ms: now_ms,
            board: Board::new(),
            moves: Vec::new(),
            log: Vec::new(),
            black_seat: config.black_seat,
            to_move: Color::Black,
            phase: Phase::Play,
            turn_started_ms: now_ms,
            remaining_ms: [total, total],
            draw_offer: None,
            last_offer_at: [None, None],
            pending_claim: None,
            result: None,
        }
    }

    /// A game that starts from a designated opening (指定打法): black's h8, white's stone
    /// and black's second stone are already on the board as moves 1–3, and white plays
    /// move 4.
    ///
    /// The three stones are in [`Game::moves`] and [`Game::log`] like any others (so a
    /// record's move list is the whole game and [`crate::Replay`] steps through them), all
    /// at 0 ms: they take nobody's time. Both clocks start full, and white's turn (and
    /// per-move clock) starts at `now_ms`. No events are returned; the referee announces
    /// the opening with the start of the game.
    ///
    /// Refused with [`GameError::OpeningNotAllowed`] unless
    /// [`RuleSet::allows_openings`]; the designated-opening room plays
    /// [`Opening::RULE_SET`].
    pub fn with_opening(
        config: GameConfig,
        opening: Opening,
        now_ms: u64,
    ) -> Result<Game, GameError> {
        if !config.rule_set.allows_openings() {
            return Err(GameError::OpeningNotAllowed {
                rule_set: config.rule_set,
            });
        }
        let mut game = Game::new(config, now_ms);
        for point in opening.stones() {
            let seat = game.to_act().ok_or(GameError::GameOver)?;
            game.place(seat, point, now_ms)?;
        }
        game.opening = Some(opening);
        debug_assert_eq!(game.to_move(), Some(Color::White));
        debug_assert!(game.log().iter().all(|entry| entry.at_ms == 0));
        Ok(game)
    }

    pub fn config(&self) -> &GameConfig {
        &self.config
    }

    /// The designated opening the game started from, if any.
    pub fn opening(&self) -> Option<Opening> {
        self.opening
    }

    pub fn rule_set(&self) -> RuleSet {
        self.config.rule_set
    }

    pub fn started_ms(&self) -> u64 {
        self.started_ms
    }

    pub fn board(&self) -> &Board {
        &self.board
    }

    /// Stones in the order they were placed, with their colors.
    pub fn moves(&self) -> &[(Point, Color)] {
        &self.moves
    }

    /// Every accepted action with its time since the start.
    pub fn log(&self) -> &[LogEntry] {
        &self.log
    }

    pub fn phase(&self) -> Phase {
        self.phase
    }

    pub fn result(&self) -> Option<&GameResult> {
        self.result.as_ref()
    }

    /// For a game won by a five: the winning line's stones, in order along it (the last
    /// stone placed made it); empty for every other ending and while the game runs.
    pub fn winning_line(&self) -> Vec<Point> {
        match (self.result, self.moves.last()) {
            (
                Some(GameResult {
                    reason: EndReason::Five,
                    ..
                }),
                Some(&(point, color)),
            ) => self
                .board
                .winning_line(point, color, self.config.rule_set.rules()),
            _ => Vec::new(),
        }
    }

    pub fn is_over(&self) -> bool {
        self.result.is_some()
    }

    /// The seat holding `color` now.
    pub fn seat_of(&self, color: Color) -> Seat {
        match color {
            Color::Black => self.black_seat,
            Color::White => self.black_seat.other(),
        }
    }

    /// The color `seat` holds now.
    pub fn color_of(&self, seat: Seat) -> Color {
        if seat == self.black_seat {
            Color::Black
        } else {
            Color::White
        }
    }

    /// The color whose turn it is (`None` once the game is over).
    pub fn to_move(&self) -> Option<Color> {
        if self.is_over() {
            None
        } else {
            Some(self.to_move)
        }
    }

    /// The seat that must act now, whose clock runs (`None` once the game is over).
    pub fn to_act(&self) -> Option<Seat> {
        self.to_move().map(|color| self.seat_of(color))
    }

    /// The pending draw offer's seat, if any.
    pub fn draw_offer(&self) -> Option<Seat> {
        self.draw_offer
    }

    /// Total time `seat` had left when its current (or next) turn started; `None` when
    /// the room has no total time.
    pub fn remaining_ms(&self, seat: Seat) -> Option<u64> {
        (self.config.time_control.total_ms > 0).then(|| self.remaining_ms[seat.index()])
    }

    /// When the current turn started (wall clock).
    pub fn turn_started_ms(&self) -> u64 {
        self.turn_started_ms
    }

    /// The instant at which the side to act loses on time: the earlier of its per-move
    /// limit and its remaining total. `None` when the game is over or untimed.
    pub fn deadline_ms(&self) -> Option<u64> {
        let seat = self.to_act()?;
        let tc = self.config.time_control;
        let per_move = (tc.per_move_ms > 0).then_some(tc.per_move_ms);
        let total = (tc.total_ms > 0).then(|| self.remaining_ms[seat.index()]);
        let limit = match (per_move, total) {
            (Some(a), Some(b)) => a.min(b),
            (a, b) => a.or(b)?,
        };
        Some(self.turn_started_ms.saturating_add(limit))
    }

    /// Ends the game on time if the side to act's deadline has come (`now_ms` ≥ deadline);
    /// otherwise does nothing and returns no events.
    pub fn check_timeout(&mut self, now_ms: u64) -> Vec<Event> {
        match self.to_act() {
            Some(seat) => self.act(seat, Action::Timeout, now_ms).unwrap_or_default(),
            None => Vec::new(),
        }
    }

    /// Places a stone of `seat`'s color.
    pub fn place(
        &mut self,
        seat: Seat,
        point: Point,
        now_ms: u64,
    ) -> Result<Vec<Event>, GameError> {
        self.act(seat, Action::Place(point), now_ms)
    }

    /// White claims black's last move was forbidden (claim policy).
    pub fn claim_forbidden(&mut self, seat: Seat, now_ms: u64) -> Result<Vec<Event>, GameError> {
        self.act(seat, Action::ClaimForbidden, now_ms)
    }

    pub fn resign(&mut self, seat: Seat, now_ms: u64) -> Result<Vec<Event>, GameError> {
        self.act(seat, Action::Resign, now_ms)
    }

    pub fn offer_draw(&mut self, seat: Seat, now_ms: u64) -> Result<Vec<Event>, GameError> {
        self.act(seat, Action::OfferDraw, now_ms)
    }

    pub fn accept_draw(&mut self, seat: Seat, now_ms: u64) -> Result<Vec<Event>, GameError> {
        self.act(seat, Action::AcceptDraw, now_ms)
    }

    pub fn decline_draw(&mut self, seat: Seat, now_ms: u64) -> Result<Vec<Event>, GameError> {
        self.act(seat, Action::DeclineDraw, now_ms)
    }

    /// Swap room, after move 3: the seat holding white takes black.
    pub fn swap(&mut self, seat: Seat, now_ms: u64) -> Result<Vec<Event>, GameError> {
        self.act(seat, Action::Swap, now_ms)
    }

    /// Swap room, move 5: black proposes two points.
    pub fn propose_fifth(
        &mut self,
        seat: Seat,
        proposals: [Point; 2],
        now_ms: u64,
    ) -> Result<Vec<Event>, GameError> {
        self.act(
            seat,
            Action::ProposeFifth(proposals[0], proposals[1]),
            now_ms,
        )
    }

    /// Swap room: white keeps one of black's proposals as the fifth stone, then plays move 6.
    pub fn choose_fifth(
        &mut self,
        seat: Seat,
        point: Point,
        now_ms: u64,
    ) -> Result<Vec<Event>, GameError> {
        self.act(seat, Action::ChooseFifth(point), now_ms)
    }

    /// `seat` left the table mid-game: it loses.
    pub fn escape(&mut self, seat: Seat, now_ms: u64) -> Result<Vec<Event>, GameError> {
        self.act(seat, Action::Escape, now_ms)
    }

    /// Applies any action of `seat` at `now_ms`. On error nothing changes.
    ///
    /// An action (other than [`Action::Timeout`]) arriving at or after the deadline of the
    /// side to act is refused with [`GameError::TimeExpired`]: the game was lost on time
    /// first, and the caller should run [`Game::check_timeout`].
    pub fn act(
        &mut self,
        seat: Seat,
        action: Action,
        now_ms: u64,
    ) -> Result<Vec<Event>, GameError> {
        if self.is_over() {
            return Err(GameError::GameOver);
        }
        let now = now_ms.max(self.last_ms);
        if let Some(deadline_ms) = self
            .deadline_ms()
            .filter(|&d| now >= d && action != Action::Timeout)
        {
            return Err(GameError::TimeExpired { deadline_ms });
        }
        let plan = self.validate(seat, action, now)?;
        let logged_at = match plan {
            Plan::Timeout { deadline } => deadline,
            _ => now,
        };
        // A timeout is logged at its deadline, so that a replay reaches the same state.
        self.last_ms = logged_at;
        self.log.push(LogEntry {
            at_ms: logged_at.saturating_sub(self.started_ms),
            seat,
            action,
        });
        Ok(self.apply(seat, plan, now))
    }

    /// Everything that can refuse an action, without changing anything.
    fn validate(&self, seat: Seat, action: Action, now: u64) -> Result<Plan, GameError> {
        let my_turn = self.to_act() == Some(seat);
        let rule_set = self.config.rule_set;
        match action {
            Action::Place(point) => {
                if !matches!(self.phase, Phase::Play | Phase::SwapDecision) {
                    return Err(GameError::WrongPhase { phase: self.phase });
                }
                if !my_turn {
                    return Err(GameError::NotYourTurn);
                }
                if !self.board.is_empty(point) {
                    return Err(GameError::Occupied { point });
                }
                self.check_opening(point)?;
                let color = self.to_move;
                let verdict = self.board.verdict(point, color, rule_set.rules());
                if let (Verdict::Forbidden(kind), Some(ForbiddenPolicy::Refuse)) =
                    (verdict, rule_set.policy())
                {
                    return Err(GameError::Forbidden { point, kind });
                }
                Ok(Plan::Place { point, verdict })
            }
            Action::ClaimForbidden => {
                if rule_set != RuleSet::Renju(ForbiddenPolicy::Claim) {
                    return Err(GameError::NothingToClaim);
                }
                if !my_turn || self.to_move != Color::White {
                    return Err(GameError::NotYourTurn);
                }
                Ok(Plan::Claim)
            }
            Action::Swap => {
                if self.phase != Phase::SwapDecision {
                    return Err(GameError::WrongPhase { phase: self.phase });
                }
                if !my_turn {
                    return Err(GameError::NotYourTurn);
                }
                Ok(Plan::Swap)
            }
            Action::ProposeFifth(a, b) => {
                if self.phase != Phase::ProposeFifth {
                    return Err(GameError::WrongPhase { phase: self.phase });
                }
                if !my_turn {
                    return Err(GameError::NotYourTurn);
                }
                self.check_proposals(a, b)?;
                Ok(Plan::Propose { proposals: [a, b] })
            }
            Action::ChooseFifth(point) => {
                let Phase::ChooseFifth { proposals } = self.phase else {
                    return Err(GameError::WrongPhase { phase: self.phase });
                };
                if !my_turn {
                    return Err(GameError::NotYourTurn);
                }
                let rejected = match proposals {
                    [a, b] if a == point => b,
                    [a, b] if b == point => a,
                    _ => return Err(GameError::NotAProposal { point }),
                };
                let verdict = self.board.verdict(point, Color::Black, rule_set.rules());
                Ok(Plan::Choose {
                    point,
                    rejected,
                    verdict,
                })
            }
            Action::OfferDraw => {
                if let Some(by) = self.draw_offer {
                    return Err(GameError::DrawOfferPending { by });
                }
                if self.last_offer_at[seat.index()] == Some(self.moves.len()) {
                    return Err(GameError::DrawOfferTooSoon);
                }
                Ok(Plan::OfferDraw)
            }
            Action::AcceptDraw | Action::DeclineDraw => match self.draw_offer {
                Some(by) if by != seat => Ok(if action == Action::AcceptDraw {
                    Plan::AcceptDraw { offered_by: by }
                } else {
                    Plan::DeclineDraw
                }),
                _ => Err(GameError::NoDrawOffer),
            },
            Action::Resign => Ok(Plan::Resign),
            Action::Escape => Ok(Plan::Escape),
            Action::Timeout => {
                if !my_turn {
                    return Err(GameError::NotYourTurn);
                }
                match self.deadline_ms() {
                    Some(deadline) if now >= deadline => Ok(Plan::Timeout { deadline }),
                    _ => Err(GameError::NoTimeoutDue),
                }
            }
        }
    }

    /// Black's first stone on h8; in the swap room also moves 2 and 3.
    fn check_opening(&self, point: Point) -> Result<(), GameError> {
        let ply = self.moves.len() + 1;
        if ply == 1 && point != Point::CENTER {
            return Err(GameError::FirstMoveMustBeCenter { point });
        }
        if self.config.rule_set == RuleSet::RenjuSwap {
            if ply == 2 && point.distance(Point::CENTER) != 1 {
                return Err(GameError::SecondMoveMustTouchCenter { point });
            }
            if ply == 3 && point.distance(Point::CENTER) > 2 {
                return Err(GameError::ThirdMoveOutsideCenter { point });
            }
        }
        Ok(())
    }

    fn check_proposals(&self, a: Point, b: Point) -> Result<(), GameError> {
        for point in [a, b] {
            if !self.board.is_empty(point) {
                return Err(GameError::Occupied { point });
            }
        }
        if a == b {
            return Err(GameError::IdenticalProposals);
        }
        for point in [a, b] {
            if let Some(kind) = self.board.forbidden(point) {
                return Err(GameError::ForbiddenProposal { point, kind });
            }
        }
        if proposals_equivalent(&self.board, a, b) {
            return Err(GameError::EquivalentProposals { a, b });
        }
        Ok(())
    }

    /// Carries out a validated action.
    fn apply(&mut self, seat: Seat, plan: Plan, now: u64) -> Vec<Event> {
        let mut events = Vec::new();
        match plan {
            Plan::Place { point, verdict } => {
                let lapsed = self.end_turn(seat, now);
                self.put_stone(seat, point, verdict, now, lapsed, &mut events);
            }
            Plan::Claim => match self.pending_claim.take() {
                Some(kind) => {
                    events.push(Event::ForbiddenClaimUpheld { seat, kind });
                    self.finish(
                        Some(seat),
                        EndReason::ForbiddenClaimed { kind },
                        &mut events,
                    );
                }
                None => {
                    // A wrong claim costs white its turn (seed 001: 失去一次执子权).
                    let lapsed = self.end_turn(seat, now);
                    events.push(Event::ForbiddenClaimRejected { seat });
                    events.extend(lapsed);
                    self.to_move = Color::Black;
                }
            },
            Plan::Swap => {
                let lapsed = self.end_turn(seat, now);
                self.black_seat = seat;
                events.push(Event::Swapped {
                    seat,
                    black_seat: seat,
                });
                events.extend(lapsed);
                // The new white (the former black) plays move 4.
                self.to_move = Color::White;
                self.phase = Phase::Play;
            }
            Plan::Propose { proposals } => {
                let lapsed = self.end_turn(seat, now);
                events.push(Event::FifthProposed { seat, proposals });
                events.extend(lapsed);
                self.phase = Phase::ChooseFifth { proposals };
                self.to_move = Color::White;
            }
            Plan::Choose {
                point,
                rejected,
                verdict,
            } => {
                let lapsed = self.end_turn(seat, now);
                events.push(Event::FifthChosen {
                    seat,
                    point,
                    rejected,
                });
                self.phase = Phase::Play;
                self.to_move = Color::Black;
                self.put_stone(self.black_seat, point, verdict, now, lapsed, &mut events);
            }
            Plan::OfferDraw => {
                self.draw_offer = Some(seat);
                self.last_offer_at[seat.index()] = Some(self.moves.len());
                events.push(Event::DrawOffered { seat });
            }
            Plan::DeclineDraw => {
                self.draw_offer = None;
                events.push(Event::DrawDeclined { seat });
            }
            Plan::AcceptDraw { offered_by } => {
                self.draw_offer = None;
                self.finish(None, EndReason::DrawAgreed { offered_by }, &mut events);
            }
            Plan::Resign => self.finish(
                Some(seat.other()),
                EndReason::Resignation { seat },
                &mut events,
            ),
            Plan::Escape => {
                self.finish(Some(seat.other()), EndReason::Escape { seat }, &mut events)
            }
            Plan::Timeout { deadline } => {
                let used = deadline.saturating_sub(self.turn_started_ms);
                let left = &mut self.remaining_ms[seat.index()];
                *left = left.saturating_sub(used);
                self.finish(Some(seat.other()), EndReason::Timeout { seat }, &mut events);
            }
        }
        debug_assert_eq!(self.board.stone_count(), self.moves.len());
        debug_assert_eq!(self.result.is_some(), self.phase == Phase::Over);
        events
    }

    /// The acting seat finishes its turn: its clock stops, and an offer from its opponent
    /// lapses (docs/rules.md#draws: an offer lapses when the offerer's opponent moves). Returns the
    /// lapse event for the caller to publish after the action's own event.
    fn end_turn(&mut self, seat: Seat, now: u64) -> Option<Event> {
        let used = now.saturating_sub(self.turn_started_ms);
        let left = &mut self.remaining_ms[seat.index()];
        *left = left.saturating_sub(used);
        self.turn_started_ms = now;
        let offered_by = self.draw_offer.filter(|&by| by != seat)?;
        self.draw_offer = None;
        Some(Event::DrawLapsed { offered_by })
    }

    /// Puts the side to move's stone and settles what it did.
    fn put_stone(
        &mut self,
        seat: Seat,
        point: Point,
        verdict: Verdict,
        now: u64,
        lapsed: Option<Event>,
        events: &mut Vec<Event>,
    ) {
        let color = self.to_move;
        // A validated point is empty; should it not be, refuse quietly rather than panic.
        if self.board.place(point, color).is_err() {
            debug_assert!(false, "validated point {point} is occupied");
            return;
        }
        self.moves.push((point, color));
        self.turn_started_ms = now;
        let ply = u16::try_from(self.moves.len()).unwrap_or(u16::MAX);
        events.push(Event::StonePlaced {
            ply,
            seat,
            color,
            point,
        });
        events.extend(lapsed);
        if color == Color::White {
            // White played instead of claiming: black's forbidden move is forgiven for good.
            self.pending_claim = None;
        }
        match verdict {
            Verdict::Five => return self.finish(Some(seat), EndReason::Five, events),
            Verdict::Forbidden(kind) => match self.config.rule_set.policy() {
                Some(ForbiddenPolicy::Claim) => self.pending_claim = Some(kind),
                _ => {
                    return self.finish(
                        Some(seat.other()),
                        EndReason::ForbiddenMove { kind },
                        events,
                    );
                }
            },
            Verdict::Allowed => {}
        }
        self.to_move = color.opponent();
        self.phase = match (self.config.rule_set, self.moves.len()) {
            (RuleSet::RenjuSwap, 3) => Phase::SwapDecision,
            (RuleSet::RenjuSwap, 4) => Phase::ProposeFifth,
            _ => Phase::Play,
        };
        // While a claim is pending white may still win by claiming; judge the draw after.
        if self.pending_claim.is_none() && self.board.is_dead() {
            self.finish(None, EndReason::NaturalDraw, events);
        }
    }

    fn finish(&mut self, winner: Option<Seat>, reason: EndReason, events: &mut Vec<Event>) {
        let outcome = match winner {
            None => Outcome::Draw,
            Some(seat) if seat == self.black_seat => Outcome::BlackWins,
            Some(_) => Outcome::WhiteWins,
        };
        let result = GameResult {
            outcome,
            reason,
            winner,
            black_seat: self.black_seat,
        };
        self.result = Some(result);
        self.phase = Phase::Over;
        self.draw_offer = None;
        self.pending_claim = None;
        events.push(Event::GameOver { result });
    }

    /// Rebuilds a game by replaying `log` through the rules; the error names the 1-based
    /// entry that was refused. A designated-opening game's log replays to the same game
    /// without the opening's name ([`Game::opening`] is `None`); its stored form
    /// ([`Game::to_bytes`]) and text record keep both.
    pub fn replay(
        config: GameConfig,
        started_ms: u64,
        log: impl IntoIterator<Item = LogEntry>,
    ) -> Result<Game, (usize, LogEntry, GameError)> {
        let mut game = Game::new(config, started_ms);
        for (i, entry) in log.into_iter().enumerate() {
            let at = started_ms.saturating_add(entry.at_ms);
            if let Err(e) = game.act(entry.seat, entry.action, at) {
                return Err((i + 1, entry, e));
            }
        }
        Ok(game)
    }
}

/// A validated action, with what validation learnt.
#[derive(Debug, Clone, Copy)]
enum Plan {
    Place {
        point: Point,
        verdict: Verdict,
    },
    Claim,
    Swap,
    Propose {
        proposals: [Point; 2],
    },
    Choose {
        point: Point,
        rejected: Point,
        verdict: Verdict,
    },
    OfferDraw,
    DeclineDraw,
    AcceptDraw {
        offered_by: Seat,
    },
    Resign,
    Escape,
    Timeout {
        deadline: u64,
    },
}

/// Whether black on `a` and black on `b` give the same position up to a symmetry of the
/// board (the RIF rule for the two fifth-move proposals).
pub fn proposals_equivalent(board: &Board, a: Point, b: Point) -> bool {
    let mut with_a = board.clone();
    let mut with_b = board.clone();
    if with_a.place(a, Color::Black).is_err() || with_b.place(b, Color::Black).is_err() {
        return false;
    }
    Symmetry::ALL.iter().any(|&s| {
        with_a
            .stones()
            .all(|stone| with_b.get(stone.point.transform(s)) == Some(stone.color))
    })
}
