//! gamehub in one binary, for development: the whole platform (`serve`), tokens
//! (`token`), health checks (`health`), and every app's subcommands in one command
//! line ([`cli`]). The library half, so tests drive the same code as the CLI.
//!
//! Here:
//! - `serve` — [`serve`]: all five services in one process, each on its own port, and
//!   beside them [`web`]: the browser client, its configuration and development tokens
//!   on `GAMEHUB_WEB_ADDR`;
//! - `tls generate` — [`tls`]: a CA and a certificate per service (also what
//!   `serve --tls` uses);
//! - `token` and `health` — in [`cli`]; `keys` — [`keys`]: a production platform's key
//!   pairs and JWKS.
//!
//! The apps it bundles, each a crate of its own under `apps/`:
//! - `demo`, `bots` — `gamehub-demo`: a game and a deal played by bots to settlement,
//!   and bots that keep a room playing;
//! - `play`, `watch`, `wallet`, `record` — `gamehub-client`: the terminal client;
//! - `admin` — `gamehub-admin`: the operator's desk;
//! - and what they share: `gamehub-drive` (where the services are, tokens, retries,
//!   seating, bots at a seat) and `gamehub-render` (boards, cards, the ledger as text).
//!
//! The load generators are not here: they are `gamehub-loadgen` (`tools/loadgen`).
#![forbid(unsafe_code)]

pub mod cli;
pub mod keys;
pub mod serve;
pub mod tls;
pub mod web;

/// Where the services are and clients holding a token (for the test kit, which starts
/// the platform in a test).
pub use gamehub_drive::api;
