//! Gomoku/Renju rules (五子棋).
#![forbid(unsafe_code)]

pub mod board;
pub mod point;
mod shape;

pub use board::{Board, Color, ForbiddenKind, Occupied, Rules, Stone, Verdict, forbidden_points};
pub use point::{Point, PointError, Symmetry};
