//! Gomoku/Renju rules (五子棋): the pure, synchronous, deterministic engine behind the
//! gomoku referee. No I/O, no clocks of its own: every action takes the caller's
//! `now_ms`.
//!
//! - [`point`]: [`Point`] (`h8`, (x, y) from 0), parsing with errors that say what is
//!   wrong, and the 8 [`Symmetry`]s of the board.
//! - [`board`]: the 15×15 [`Board`], fives, and the Renju judgement of a black point
//!   ([`Board::black_verdict`], [`forbidden_points`]) including the recursive live-three
//!   rule (RIF 9.3).
//! - [`rule_set`]: the [`RuleSet`]s played, by the names rooms and records give them, and
//!   Renju's [`ForbiddenPolicy`]s.
//! - [`game`]: the [`Game`] state machine over two [`Seat`]s: the swap-room opening, the
//!   forbidden-move policies applied, draw offers, clocks, results and [`Points`].
//! - [`opening`]: the 26 standard Renju [`Opening`]s a designated-opening game starts from
//!   ([`Game::with_opening`]).
//! - [`record`]: the text record and Piskvork PSQ (both written and read, replayed through
//!   the rules), the compact stored state ([`Game::to_bytes`]) and the [`Replay`] cursor.
#![forbid(unsafe_code)]

pub mod board;
pub mod game;
pub mod opening;
pub mod point;
pub mod record;
pub mod rule_set;
mod shape;

pub use board::{
    Board, Color, ForbiddenKind, Occupied, Rules, Stone, Verdict, forbidden_points, warm_up,
};
pub use game::{
    Action, ESCAPE_POINTS, EndReason, Event, Game, GameConfig, GameError, GameResult, LogEntry,
    Outcome, Phase, Points, Seat, TimeControl, proposals_equivalent,
};
pub use opening::{Opening, OpeningChoice, OpeningError, OpeningFamily};
pub use point::{Point, PointError, Symmetry};
pub use record::{
    MAX_HEADER_VALUE_CHARS, MAX_RECORD_BYTES, MAX_TOKEN_CHARS, Record, RecordError, RecordInfo,
    Replay,
};
pub use rule_set::{ForbiddenPolicy, RuleSet};
