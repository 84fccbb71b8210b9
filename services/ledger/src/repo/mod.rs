//! The ledger's SQL, over a PostgreSQL pool, one module per feature:
//!
//! - [`settlement`]: settling a game (the snapshot, the typed settlement record and the
//!   one call that writes it);
//! - [`operator`]: operators' writes: grants and professional dans;
//! - [`audit`]: the operator audit trail, written with each operator's change and
//!   listed;
//! - [`names`]: display names, set by players and operators, and profiles;
//! - [`reads`]: accounts, history, games and records as the API reads them;
//! - [`leaderboards`]: the points and rating boards;
//! - [`tournament`]: tournament money: entry fees into a tournament's pool, refunds,
//!   prizes, each idempotent by request id;
//! - [`replica`]: the optional read replica the lag-tolerant reads use.
//!
//! Writes lock the players' `accounts` rows first, always in account-id order (the
//! `COLLATE "C"` order Rust's sort agrees with; system accounts such as `#issuance`,
//! `#house` and tournament pools start with `#` and so come first), so concurrent
//! settlements, grants, tournament calls and flag changes of the same players queue
//! instead of deadlocking. Whatever still fails
//! with a serialization failure, a deadlock or a lost race on an idempotency key is
//! retried as a whole transaction, a bounded number of times ([`MAX_ATTEMPTS`]).
//!
//! The SQL computes nothing the rules decide: a new player's rating, a game's counts,
//! balances and caps are computed in Rust and passed in (see `migrations/0001_schema.sql`;
//! `0002_names.sql` adds names and friends' tables, `0003_operator_actions.sql` the audit
//! trail, `0004_tournaments.sql` tournament pools and their requests).

pub mod audit;
pub mod leaderboards;
pub mod names;
pub mod operator;
pub mod reads;
pub mod replica;
pub mod settlement;
pub mod tournament;

use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use sqlx::postgres::PgPool;

use crate::domain::rating::NEW_PLAYER_RATING;
use crate::error::{LedgerError, is_retryable};
use replica::ReadReplica;

pub use audit::{ActionFilter, ActionRow};
pub use leaderboards::{Board, BoardRow};
pub use names::{ProfileRow, Renamer};
pub use operator::Granted;
pub use reads::{AccountRow, GamePlayerRow, GameRow, GameWithRecord, HistoryRecord, StandingRow};
pub use settlement::Settled;
pub use tournament::{FeeMoved, PrizePaid, PrizesPaid, TournamentAnswer};

/// How many times a transaction is tried before its error is returned.
pub const MAX_ATTEMPTS: u32 = 10;

/// The ledger's data in PostgreSQL.
#[derive(Debug, Clone)]
pub struct Repository {
    pool: PgPool,
    /// The read replica for lag-tolerant reads, if one is configured.
    replica: Option<Arc<ReadReplica>>,
    /// Settlements whose unlocked snapshot went stale and were redone under locks.
    stale_snapshots: Arc<AtomicU64>,
}

impl Repository {
    /// A repository over `pool` (already migrated).
    pub fn new(pool: PgPool) -> Self {
        Self {
            pool,
            replica: None,
            stale_snapshots: Arc::default(),
        }
    }

    /// The same repository with lag-tolerant reads going to `replica` while it is usable.
    pub fn with_read_replica(mut self, replica: Arc<ReadReplica>) -> Self {
        self.replica = Some(replica);
        self
    }

    /// The read replica, if one is configured.
    pub fn read_replica(&self) -> Option<&Arc<ReadReplica>> {
        self.replica.as_ref()
    }

    /// Runs a read that may lag by a moment (history, game lists, records, boards): on
    /// the read replica when one is configured and usable, else on the primary (see
    /// [`replica`]). Balances and anything a decision needs never come through here.
    async fn lag_tolerant<T, F, Fut>(&self, read: F) -> Result<T, LedgerError>
    where
        F: Fn(PgPool) -> Fut,
        Fut: Future<Output = Result<T, LedgerError>>,
    {
        match &self.replica {
            Some(replica) => replica.read(&self.pool, read).await,
            None => read(self.pool.clone()).await,
        }
    }

    /// How many settlements were redone under locks because their snapshot went stale.
    pub fn stale_snapshots(&self) -> u64 {
        self.stale_snapshots.load(Ordering::Relaxed)
    }

    /// The pool.
    pub fn pool(&self) -> &PgPool {
        &self.pool
    }

    /// Runs `attempt` until it succeeds, fails for good, or [`MAX_ATTEMPTS`] are used,
    /// backing off a little more after each retryable failure.
    /// The closure gets the attempt's number, from 1.
    async fn retrying<T, F, Fut>(&self, what: &str, mut attempt: F) -> Result<T, LedgerError>
    where
        F: FnMut(u32) -> Fut,
        Fut: Future<Output = Result<T, LedgerError>>,
    {
        let mut tries = 0;
        loop {
            tries += 1;
            match attempt(tries).await {
                Err(LedgerError::Contended(why)) if tries < MAX_ATTEMPTS => {
                    // Redone at once, under locks.
                    self.stale_snapshots.fetch_add(1, Ordering::Relaxed);
                    tracing::debug!(what, attempt = tries, why, "snapshot went stale");
                }
                Err(err) if tries < MAX_ATTEMPTS && is_retryable(&err) => {
                    tracing::debug!(what, attempt = tries, error = %err, "retrying transaction");
                    let jitter = rand::random_range(0..=1u64 << tries.min(6));
                    tokio::time::sleep(Duration::from_millis(jitter)).await;
                }
                result => return result,
            }
        }
    }
}

/// Gives a player its rows if it has none yet (no lock is taken on existing rows); a new
/// player starts at [`NEW_PLAYER_RATING`].
async fn ensure_player(
    tx: &mut sqlx::Transaction<'_, sqlx::Postgres>,
    player: &str,
) -> Result<(), LedgerError> {
    sqlx::query(
        "INSERT INTO accounts (account_id, kind) VALUES ($1, 'player') ON CONFLICT DO NOTHING",
    )
    .bind(player)
    .execute(&mut **tx)
    .await?;
    sqlx::query(
        "INSERT INTO players (player_id, gomoku_rating) VALUES ($1, $2) ON CONFLICT DO NOTHING",
    )
    .bind(player)
    .bind(NEW_PLAYER_RATING)
    .execute(&mut **tx)
    .await?;
    Ok(())
}

/// A stored professional dan (0–9 by the schema's CHECK).
pub fn dan(code: i16) -> u8 {
    u8::try_from(code).unwrap_or(0)
}
