//! The ledger's integration tests, one binary: each test gets its own PostgreSQL
//! database (created fresh, migrated, dropped at the end).
//!
//! - `settlement`: worked examples of docs/rules.md (points table, Dou Dizhu, titles);
//! - `caps`: per-game and per-day caps for winners and losers, balances, fairness;
//! - `rating`: every case of the Gomoku rating formula, professionals, escapes;
//! - `api`: accounts, grants, idempotency, validation, pagination, leaderboards;
//! - `auth`: who may call what; refused calls change nothing;
//! - `audit`: the operator audit trail: one row per action, retries, append-only,
//!   listing filters and pages;
//! - `names`: display names set and refused, profiles, names on boards and game lists,
//!   friends' tables;
//! - `reports`: a report's checks for each game (no database);
//! - `repository`: cap days, replays, the schema's constraints and triggers;
//! - `concurrency`: 32 clients, thousands of games, every invariant;
//! - `crash`: the binary killed with SIGKILL mid-load and restarted;
//! - `read_replica`: `DATABASE_READ_URL` against a real streaming replica (lagging, down);
//! - `tournament_money`: entry fees, refunds and prizes through a tournament's pool:
//!   idempotency, the rules refusing them, who may call, conservation, concurrency.

#![allow(clippy::unwrap_used)] // test helpers fail loudly on broken fixtures

mod api;
mod audit;
mod auth;
mod caps;
mod concurrency;
mod crash;
mod names;
mod rating;
mod read_replica;
mod reports;
mod repository;
mod settlement;
mod support;
mod tournament_money;
