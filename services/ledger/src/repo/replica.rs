//! A PostgreSQL streaming replica for the reads that may lag (`DATABASE_READ_URL`).
//!
//! Which RPC reads where (also in the ledger's README and the proto):
//!
//! | RPC | reads |
//! |---|---|
//! | `ListHistory`, `ListGames`, `GetLeaderboard` | the replica while it is usable, else the primary |
//! | `GetGameRecord` | the replica while usable; a game the replica does not have yet is looked up again on the primary |
//! | `GetAccount`, `CheckEligibility`, `SettleGame`, `GrantSilver`, `SetProfessional`, `HoldEntryFee`, `RefundEntryFee`, `PayPrizes` | the primary, always (balances and decisions) |
//!
//! "Usable" is decided by a probe every `GAMEHUB_LEDGER_READ_PROBE_MS`: the replica
//! answers, is in recovery (a standby, not a promoted or unrelated server), and has
//! replayed everything the primary had written when the probe began, or else its last
//! replayed transaction is at most `GAMEHUB_LEDGER_READ_MAX_LAG_MS` old. A replica that
//! is down, refuses, has lost its stream and fallen behind, or lags more than that, is
//! not used: reads fall back to the primary, so a front-end never sees an error or data
//! older than the bound because of the replica — only the primary's load grows. A read
//! the replica fails with connection trouble (or a recovery conflict) is redone on the
//! primary at once and marks the replica unusable until the next probe says otherwise.
//! Transitions are logged; failures count as the `postgres-replica` dependency's errors.

use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use gamehub_platform::server::Shutdown;
use sqlx::postgres::PgPool;

use crate::error::{LedgerError, is_unavailable, sqlstate};

/// The read replica, whether it may be read now, and how reads went.
#[derive(Debug)]
pub struct ReadReplica {
    pool: PgPool,
    max_lag: Duration,
    usable: AtomicBool,
    on_replica: AtomicU64,
    on_primary: AtomicU64,
}

/// What one probe found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReplicaState {
    /// Caught up, or behind by at most the allowed lag: reads go there.
    Usable,
    /// Behind by more than the allowed lag (or its stream is gone and it is behind).
    Lagging,
    /// Not a standby in recovery (promoted, or the wrong server).
    NotAStandby,
    /// Did not answer.
    Down,
}

impl ReadReplica {
    /// A replica over `pool`, not used until a probe finds it usable.
    pub fn new(pool: PgPool, max_lag: Duration) -> Self {
        Self {
            pool,
            max_lag,
            usable: AtomicBool::new(false),
            on_replica: AtomicU64::new(0),
            on_primary: AtomicU64::new(0),
        }
    }

    /// Whether reads go to the replica now.
    pub fn is_usable(&self) -> bool {
        self.usable.load(Ordering::Acquire)
    }

    /// Lag-tolerant reads served by the replica, and by the primary instead, so far.
    pub fn reads(&self) -> (u64, u64) {
        (
            self.on_replica.load(Ordering::Relaxed),
            self.on_primary.load(Ordering::Relaxed),
        )
    }

    /// Checks the replica against `primary` once and records the verdict.
    pub async fn probe(&self, primary: &PgPool) -> ReplicaState {
        let state = self.measure(primary).await;
        let usable = state == ReplicaState::Usable;
        if self.usable.swap(usable, Ordering::AcqRel) != usable {
            if usable {
                tracing::info!("the read replica is usable again; lag-tolerant reads go there");
            } else {
                tracing::warn!(
                    ?state,
                    "the read replica is not usable; reads go to the primary"
                );
            }
        }
        state
    }

    async fn measure(&self, primary: &PgPool) -> ReplicaState {
        // The primary's position first: a replica that has replayed up to it is caught up
        // with everything committed before the probe began.
        let Ok(written) = sqlx::query_scalar::<_, String>("SELECT pg_current_wal_lsn()::text")
            .fetch_one(primary)
            .await
        else {
            // The primary is in trouble; the replica's freshness cannot be judged.
            return ReplicaState::Lagging;
        };
        let row: Result<(bool, bool, Option<f64>), sqlx::Error> = sqlx::query_as(
            "SELECT pg_is_in_recovery(), \
                    COALESCE(pg_last_wal_replay_lsn() >= $1::pg_lsn, false), \
                    EXTRACT(EPOCH FROM now() - pg_last_xact_replay_timestamp())::float8",
        )
        .bind(&written)
        .fetch_one(&self.pool)
        .await;
        match row {
            Err(err) => {
                tracing::debug!(error = %err, "read replica probe failed");
                gamehub_platform::metrics::dependency_error("postgres-replica");
                ReplicaState::Down
            }
            Ok((false, _, _)) => ReplicaState::NotAStandby,
            Ok((true, true, _)) => ReplicaState::Usable,
            Ok((true, false, Some(age_s))) if age_s <= self.max_lag.as_secs_f64() => {
                ReplicaState::Usable
            }
            Ok((true, false, _)) => ReplicaState::Lagging,
        }
    }

    /// Probes every `interval` until `shutdown`.
    pub fn spawn_probe(self: &Arc<Self>, primary: PgPool, interval: Duration, shutdown: Shutdown) {
        let replica = Arc::clone(self);
        let mut stop = shutdown.listener();
        tokio::spawn(async move {
            loop {
                replica.probe(&primary).await;
                tokio::select! {
                    () = stop.wait() => break,
                    () = tokio::time::sleep(interval) => {}
                }
            }
            replica.pool.close().await;
        });
    }

    /// Runs `read` on the replica if it is usable, else on `primary`; a replica failing
    /// with connection trouble or a recovery conflict is marked unusable and the read is
    /// redone on the primary.
    pub async fn read<T, F, Fut>(&self, primary: &PgPool, read: F) -> Result<T, LedgerError>
    where
        F: Fn(PgPool) -> Fut,
        Fut: Future<Output = Result<T, LedgerError>>,
    {
        if self.is_usable() {
            match read(self.pool.clone()).await {
                Err(LedgerError::Database(err)) if replica_trouble(&err) => {
                    gamehub_platform::metrics::dependency_error("postgres-replica");
                    if self.usable.swap(false, Ordering::AcqRel) {
                        tracing::warn!(error = %err, "the read replica failed a read; reads go to the primary");
                    }
                }
                result => {
                    self.on_replica.fetch_add(1, Ordering::Relaxed);
                    return result;
                }
            }
        }
        self.on_primary.fetch_add(1, Ordering::Relaxed);
        read(primary.clone()).await
    }
}

/// Whether a replica's failure is its own (not the query's): worth redoing on the primary.
fn replica_trouble(err: &sqlx::Error) -> bool {
    // 40001 on a hot standby is a query cancelled by a conflict with recovery.
    is_unavailable(err) || sqlstate(err).as_deref() == Some("40001")
}
