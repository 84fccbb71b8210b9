//! The referee against a real Redis and a real ledger (PostgreSQL), over gRPC sockets:
//! full games in every room, replicas, clocks, settlement outages, watching, and
//! refusals. Each test has its own Redis prefix and its own ledger database.
#![allow(clippy::unwrap_used)] // tests fail loudly on broken fixtures

mod auth;
mod durability;
mod friends;
mod games;
mod openings;
mod replicas;
mod support;
mod watch;
