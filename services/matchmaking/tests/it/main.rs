//! Matchmaking against a real Redis (127.0.0.1:6379 or `REDIS_URL`), gRPC over sockets,
//! each test with a Redis prefix of its own: tickets, the matcher and its crash
//! recovery, two replicas racing, the real ledger's refusals (each ledger test with a
//! fresh database), real seating at the Gomoku referee and the Dou Dizhu dealer, and the
//! rooms file game by game.
#![allow(clippy::unwrap_used)] // test helpers fail loudly on broken fixtures

mod e2e;
mod ledger;
mod matcher;
mod replicas;
mod rooms;
mod support;
mod tickets;
