//! Matchmaking against a real Redis (127.0.0.1:6379 or `REDIS_URL`), gRPC over sockets,
//! each test with a Redis prefix of its own: tickets, the matcher and its crash
//! recovery, two replicas racing, the real ledger's refusals (each ledger test with a
//! fresh database) and the rooms file game by game. Real seating at the Gomoku referee
//! and the Dou Dizhu dealer is tested above the services, in the workspace's
//! `tests/seating.rs`.
#![allow(clippy::unwrap_used)] // test helpers fail loudly on broken fixtures

mod ledger;
mod matcher;
mod replicas;
mod rooms;
mod support;
mod tickets;
