//! Gomoku/Renju rules (五子棋): the pure, synchronous, deterministic engine behind the
//! gomoku referee. No I/O, no clocks of its own: every action takes the caller's
//! `now_ms`.
//!
//! - [`point`]: [`Point`] (`h8`, (x, y) from 0), parsing with errors that say what is
//!   wrong, and the 8 [`Symmetry`]s of the board.
//! - [`board`]: the 15×15 [`Board`], fives, and the Renju judgement of a black point
//!   ([`Board::black_verdict`], [`forbidden_points`]) including the recursive live-three
//!   rule (RIF 9.3).
//! - [`game`]: the [`Game`] state machine over two [`Seat`]s: rule sets and forbidden-move
//!   policies, the swap-room opening, draw offers, clocks, results and [`Points`].
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
mod shape;

pub use board::{
    Board, Color, ForbiddenKind, Occupied, Rules, Stone, Verdict, forbidden_points, warm_up,
};
pub use game::{
    Action, EndReason, Event, ForbiddenPolicy, Game, GameConfig, GameError, GameResult, LogEntry,
    Outcome, Phase, Points, RuleSet, Seat, TimeControl, proposals_equivalent,
};
pub use opening::{Opening, OpeningChoice, OpeningError, OpeningFamily};
pub use point::{Point, PointError, Symmetry};
pub use record::{
    MAX_HEADER_VALUE_CHARS, MAX_RECORD_BYTES, MAX_TOKEN_CHARS, Record, RecordError, RecordInfo,
    Replay,
};
