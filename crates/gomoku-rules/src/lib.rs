//! Gomoku/Renju rules (五子棋). Work in progress.
#![forbid(unsafe_code)]
