//! The ledger's SQL: every query it runs, over a PostgreSQL pool.
//!
//! Writes lock the players' `accounts` rows first, always in account-id order (the
//! `COLLATE "C"` order Rust's sort agrees with), so concurrent settlements, grants and
//! flag changes of the same players queue instead of deadlocking. Whatever still fails
//! with a serialization failure, a deadlock or a lost race on an idempotency key is
//! retried as a whole transaction, a bounded number of times.
//!
//! A settlement takes two round trips (see migrations 0002 and 0003): read a snapshot of its
//! players, run the rules in Rust, then one call that in one transaction locks the
//! accounts in order, checks the snapshot still holds and writes everything. When a
//! concurrent settlement changed one of the players in between, nothing is written and
//! the settlement is redone under locks (`BEGIN`, snapshot with locks, write, `COMMIT`),
//! which cannot go stale.

use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use chrono::{DateTime, NaiveDate, Utc};
use sqlx::postgres::PgPool;
use sqlx::{FromRow, Row};
use uuid::Uuid;

use crate::domain::caps::Caps;
use crate::domain::day::counters_on;
use crate::domain::grant::Grant;
use crate::domain::rating::NEW_PLAYER_RATING;
use crate::domain::settle::{self, GameReport, PlayerSnapshot, SettlementPlan};
use crate::domain::{GameType, HistoryKind, PlayerId};
use crate::error::{LedgerError, is_retryable};

/// How many times a transaction is tried before its error is returned.
pub const MAX_ATTEMPTS: u32 = 10;

/// The ledger's data in PostgreSQL.
#[derive(Debug, Clone)]
pub struct Repository {
    pool: PgPool,
    /// Settlements whose unlocked snapshot went stale and were redone under locks.
    stale_snapshots: Arc<AtomicU64>,
}

/// What settling a game did.
#[derive(Debug, Clone)]
pub enum Settled {
    /// The game was settled now.
    Applied {
        /// What changed.
        plan: SettlementPlan,
        /// The stored response.
        response: Vec<u8>,
    },
    /// The game had been settled before with the same payload; the stored response.
    Replayed {
        /// The response stored when it was settled.
        response: Vec<u8>,
    },
}

/// What a grant did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Granted {
    /// The transfer that moved the silver.
    pub transfer_id: Uuid,
    /// The balance right after the grant.
    pub balance_after_silver: i64,
    /// True when an earlier grant with this request id is returned.
    pub replayed: bool,
}

/// A player's account and standing as stored (defaults when it never played).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AccountRow {
    /// The player.
    pub player_id: PlayerId,
    /// Silver held.
    pub balance_silver: i64,
    /// Today's won counter (zero if the stored one is of an earlier day).
    pub won_today_silver: i64,
    /// Today's lost counter, likewise.
    pub lost_today_silver: i64,
    /// Gomoku rating.
    pub gomoku_rating: i64,
    /// Rated games played.
    pub rated_games: i64,
    /// Professional dan or 0.
    pub professional_dan: u8,
    /// One per game type, in [`GameType::ALL`] order.
    pub standings: Vec<StandingRow>,
}

/// Points and counts in one game type.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct StandingRow {
    /// Points (积分).
    pub points: i64,
    /// Wins.
    pub wins: i64,
    /// Losses (escapes not included).
    pub losses: i64,
    /// Draws.
    pub draws: i64,
    /// Escapes.
    pub escapes: i64,
    /// Games counted (voided ones excluded).
    pub games: i64,
}

/// One history row as stored.
#[derive(Debug, Clone, PartialEq, Eq, FromRow)]
pub struct HistoryRecord {
    /// Its id (the cursor).
    pub history_id: i64,
    /// [`HistoryKind`] code.
    pub kind: i16,
    /// [`GameType`] code, if a game caused it.
    pub game_type: Option<i16>,
    /// The game that caused it.
    pub game_id: Option<String>,
    /// Value before.
    pub before_value: i64,
    /// Value after.
    pub after_value: i64,
    /// Why.
    pub reason: String,
    /// When.
    pub at: DateTime<Utc>,
}

/// A settled game as stored (without its record).
#[derive(Debug, Clone, PartialEq, Eq, FromRow)]
pub struct GameRow {
    /// The game.
    pub game_id: String,
    /// Its position in settlement order (the cursor).
    pub game_seq: i64,
    /// [`GameType`] code.
    pub game_type: i16,
    /// The room.
    pub room_id: String,
    /// The table.
    pub table_id: String,
    /// How it ended.
    pub reason: String,
    /// Unix ms.
    pub started_at_unix_ms: i64,
    /// Unix ms.
    pub ended_at_unix_ms: i64,
    /// The stored SettleGame response.
    pub response: Vec<u8>,
}

/// One player's reported part in a stored game.
#[derive(Debug, Clone, PartialEq, Eq, FromRow)]
pub struct GamePlayerRow {
    /// The game.
    pub game_id: String,
    /// The player.
    pub player_id: String,
    /// Seat index (request order).
    pub seat: i16,
    /// Role code.
    pub role: i16,
    /// Outcome code.
    pub outcome: i16,
    /// Points.
    pub points: i64,
    /// Offered the draw.
    pub offered_draw: bool,
}

/// A game with its record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameWithRecord {
    /// The game.
    pub game: GameRow,
    /// Its players in seat order.
    pub players: Vec<GamePlayerRow>,
    /// Record format.
    pub record_format: String,
    /// Record content.
    pub record_content: String,
}

/// Which leaderboard. The codes are the proto's `Board` and the `leaderboard` view's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Board {
    /// Points in one game type.
    Points(GameType),
    /// Gomoku rating.
    GomokuRating,
}

impl Board {
    fn code(self) -> i16 {
        match self {
            Board::Points(GameType::Gomoku) => 1,
            Board::Points(GameType::Doudizhu) => 2,
            Board::GomokuRating => 3,
        }
    }
}

/// One leaderboard row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BoardRow {
    /// 1 for first; equal values share a rank.
    pub rank: i64,
    /// The player.
    pub player_id: String,
    /// Points or rating.
    pub value: i64,
    /// Professional dan (rating board), else 0.
    pub professional_dan: u8,
}

#[derive(FromRow)]
struct BoardEntry {
    player_id: String,
    value: i64,
    professional_dan: i16,
}

#[derive(FromRow)]
struct SnapshotRow {
    existing_sha256: Option<Vec<u8>>,
    existing_response: Option<Vec<u8>>,
    player_id: Option<String>,
    balance_silver: Option<i64>,
    cap_day: Option<NaiveDate>,
    won_today_silver: Option<i64>,
    lost_today_silver: Option<i64>,
    points: Option<i64>,
    gomoku_rating: Option<i64>,
    rated_games: Option<i64>,
    professional_dan: Option<i16>,
}

/// One seat's player as the snapshot read it, stored values as they are (a player
/// without rows reads as the rows it will get).
struct SeatRead {
    missing: bool,
    balance: i64,
    cap_day: Option<NaiveDate>,
    won: i64,
    lost: i64,
    points: i64,
    rating: i64,
    rated_games: i64,
    professional_dan: i16,
}

impl SeatRead {
    fn of(row: Option<&SnapshotRow>) -> Self {
        match row {
            Some(r) => Self {
                missing: r.points.is_none()
                    || r.balance_silver.is_none()
                    || r.gomoku_rating.is_none(),
                balance: r.balance_silver.unwrap_or(0),
                cap_day: r.cap_day,
                won: r.won_today_silver.unwrap_or(0),
                lost: r.lost_today_silver.unwrap_or(0),
                points: r.points.unwrap_or(0),
                rating: r.gomoku_rating.unwrap_or(NEW_PLAYER_RATING),
                rated_games: r.rated_games.unwrap_or(0),
                professional_dan: r.professional_dan.unwrap_or(0),
            },
            None => Self {
                missing: true,
                balance: 0,
                cap_day: None,
                won: 0,
                lost: 0,
                points: 0,
                rating: NEW_PLAYER_RATING,
                rated_games: 0,
                professional_dan: 0,
            },
        }
    }
}

/// The call of `ledger_apply_settlement` writing `plan` (see migration 0002).
fn apply_query<'a>(
    report: &'a GameReport,
    ids: &'a [&'a str],
    sha256: &'a [u8; 32],
    today: NaiveDate,
    read: &[SeatRead],
    plan: &SettlementPlan,
    response: &'a [u8],
) -> sqlx::query::QueryScalar<'a, sqlx::Postgres, i16, sqlx::postgres::PgArguments> {
    let seats = &report.seats;
    let history = plan.history(report);
    let transfer_id = plan.moves_silver().then(Uuid::now_v7);
    sqlx::query_scalar(
        "SELECT ledger_apply_settlement($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, \
         $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24, $25, $26, $27, $28, \
         $29, $30, $31, $32, $33, $34, $35, $36, $37, $38, $39, $40, $41)",
    )
    .bind(&report.game_id)
    .bind(report.game_type.code())
    .bind(&report.stakes.room_id)
    .bind(&report.table_id)
    .bind(&report.reason)
    .bind(report.stakes.points_base)
    .bind(report.stakes.silver_per_point)
    .bind(report.rated())
    .bind(report.started_at_unix_ms)
    .bind(report.ended_at_unix_ms)
    .bind(today)
    .bind(sha256.as_slice())
    .bind(response)
    .bind(&report.record_format)
    .bind(&report.record_content)
    .bind(transfer_id)
    .bind(plan.house_silver)
    .bind(ids)
    .bind(read.iter().map(|r| r.missing).collect::<Vec<_>>())
    .bind(seats.iter().map(|s| s.role.code()).collect::<Vec<_>>())
    .bind(seats.iter().map(|s| s.outcome.code()).collect::<Vec<_>>())
    .bind(seats.iter().map(|s| s.points).collect::<Vec<_>>())
    .bind(seats.iter().map(|s| s.offered_draw).collect::<Vec<_>>())
    .bind(
        plan.seats
            .iter()
            .map(|s| s.silver_requested)
            .collect::<Vec<_>>(),
    )
    .bind(
        plan.seats
            .iter()
            .map(|s| s.silver_delta)
            .collect::<Vec<_>>(),
    )
    .bind(read.iter().map(|r| r.balance).collect::<Vec<_>>())
    .bind(read.iter().map(|r| r.cap_day).collect::<Vec<_>>())
    .bind(read.iter().map(|r| r.won).collect::<Vec<_>>())
    .bind(read.iter().map(|r| r.lost).collect::<Vec<_>>())
    .bind(read.iter().map(|r| r.points).collect::<Vec<_>>())
    .bind(read.iter().map(|r| r.rating).collect::<Vec<_>>())
    .bind(read.iter().map(|r| r.rated_games).collect::<Vec<_>>())
    .bind(read.iter().map(|r| r.professional_dan).collect::<Vec<_>>())
    .bind(
        plan.seats
            .iter()
            .map(|s| s.won_today_after)
            .collect::<Vec<_>>(),
    )
    .bind(
        plan.seats
            .iter()
            .map(|s| s.lost_today_after)
            .collect::<Vec<_>>(),
    )
    .bind(
        plan.seats
            .iter()
            .map(|s| s.rating_after)
            .collect::<Vec<_>>(),
    )
    .bind(
        history
            .iter()
            .map(|h| h.player_id.to_string())
            .collect::<Vec<_>>(),
    )
    .bind(history.iter().map(|h| h.kind.code()).collect::<Vec<_>>())
    .bind(history.iter().map(|h| h.before).collect::<Vec<_>>())
    .bind(history.iter().map(|h| h.after).collect::<Vec<_>>())
    .bind(history.into_iter().map(|h| h.reason).collect::<Vec<_>>())
}

fn dan(code: i16) -> u8 {
    u8::try_from(code).unwrap_or(0)
}

impl Repository {
    /// A repository over `pool` (already migrated).
    pub fn new(pool: PgPool) -> Self {
        Self {
            pool,
            stale_snapshots: Arc::default(),
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

    /// Settles `report` on `today`: the stored answer when the game was settled with the
    /// same payload; [`LedgerError::Conflict`] when with another; else the plan applied
    /// and `encode` of it stored as the answer. The first attempt reads without locks;
    /// later ones lock first.
    pub async fn settle(
        &self,
        report: &GameReport,
        today: NaiveDate,
        caps: &Caps,
        encode: impl Fn(&SettlementPlan) -> Vec<u8>,
    ) -> Result<Settled, LedgerError> {
        let sha256 = report.sha256();
        self.retrying("settle", |attempt| {
            self.settle_once(report, &sha256, today, caps, &encode, attempt > 1)
        })
        .await
    }

    async fn settle_once(
        &self,
        report: &GameReport,
        sha256: &[u8; 32],
        today: NaiveDate,
        caps: &Caps,
        encode: &impl Fn(&SettlementPlan) -> Vec<u8>,
        locked: bool,
    ) -> Result<Settled, LedgerError> {
        let ids: Vec<&str> = report.seats.iter().map(|s| s.player_id.as_str()).collect();
        let requested: i64 = (0..report.seats.len())
            .map(|i| report.silver_requested(i))
            .sum();
        let house_may_receive = requested < 0;

        // One row per seat (NULLs where the ledger has no rows yet), carrying the stored
        // hash and answer when the game was settled already.
        let (mut tx, rows): (_, Vec<SnapshotRow>) = if locked {
            let mut tx = self.pool.begin().await?;
            let rows = sqlx::query_as("SELECT * FROM ledger_lock_for_settlement($1, $2, $3, $4)")
                .bind(&report.game_id)
                .bind(&ids)
                .bind(report.game_type.code())
                .bind(house_may_receive)
                .fetch_all(&mut *tx)
                .await?;
            (Some(tx), rows)
        } else {
            let rows = sqlx::query_as(
                "SELECT g.request_sha256 AS existing_sha256, g.response AS existing_response, \
                        ids.id AS player_id, a.balance_silver, p.cap_day, p.won_today_silver, \
                        p.lost_today_silver, s.points, p.gomoku_rating, p.rated_games, \
                        p.professional_dan \
                 FROM unnest($2::text[]) AS ids(id) \
                 LEFT JOIN games g ON g.game_id = $1 \
                 LEFT JOIN accounts a ON a.account_id = ids.id \
                 LEFT JOIN players p ON p.player_id = ids.id \
                 LEFT JOIN standings s ON s.player_id = ids.id AND s.game_type = $3",
            )
            .bind(&report.game_id)
            .bind(&ids)
            .bind(report.game_type.code())
            .fetch_all(&self.pool)
            .await?;
            (None, rows)
        };

        if let Some(first) = rows.first()
            && let Some(stored) = &first.existing_sha256
        {
            if let Some(tx) = tx {
                tx.rollback().await?;
            }
            if stored.as_slice() != sha256.as_slice() {
                return Err(LedgerError::Conflict(format!(
                    "game {} was already settled with a different request; a game id settles one game",
                    report.game_id
                )));
            }
            let response = first
                .existing_response
                .clone()
                .ok_or_else(|| LedgerError::Corrupt("settled game without a response".into()))?;
            return Ok(Settled::Replayed { response });
        }

        // As read (for the check at write time), and as the rules see it.
        let mut read = Vec::with_capacity(report.seats.len());
        let mut snapshots = Vec::with_capacity(report.seats.len());
        for seat in &report.seats {
            let row = rows
                .iter()
                .find(|r| r.player_id.as_deref() == Some(seat.player_id.as_str()));
            let seen = SeatRead::of(row);
            let (won, lost) = counters_on(today, seen.cap_day, seen.won, seen.lost);
            snapshots.push(PlayerSnapshot {
                player_id: seat.player_id.clone(),
                balance_silver: seen.balance,
                won_today_silver: won,
                lost_today_silver: lost,
                points: seen.points,
                gomoku_rating: seen.rating,
                rated_games: seen.rated_games,
                professional_dan: dan(seen.professional_dan),
            });
            read.push(seen);
        }
        if locked && read.iter().any(|r| r.missing) {
            return Err(LedgerError::Corrupt(format!(
                "game {}: a locked player has no rows",
                report.game_id
            )));
        }

        let plan = settle::plan(report, &snapshots, caps);
        let response = encode(&plan);
        let status: i16 = {
            let apply = apply_query(report, &ids, sha256, today, &read, &plan, &response);
            match tx.as_mut() {
                Some(tx) => apply.fetch_one(&mut **tx).await?,
                None => apply.fetch_one(&self.pool).await?,
            }
        };
        match (status, tx) {
            (1, Some(tx)) => tx.commit().await?,
            (1, None) => {}
            (0, _) if !locked => {
                return Err(LedgerError::Contended(
                    "a player changed since the snapshot".into(),
                ));
            }
            (2, _) => {
                return Err(LedgerError::Contended(
                    "the game was settled meanwhile".into(),
                ));
            }
            (other, _) => {
                return Err(LedgerError::Corrupt(format!(
                    "game {}: apply answered {other} under locks",
                    report.game_id
                )));
            }
        }
        Ok(Settled::Applied { plan, response })
    }

    /// Applies `grant` by `operator` on `today`, or returns the earlier grant with the
    /// same request id; a different payload under that id is a [`LedgerError::Conflict`].
    pub async fn grant(
        &self,
        grant: &Grant,
        operator: &str,
        today: NaiveDate,
    ) -> Result<Granted, LedgerError> {
        let sha256 = grant.sha256();
        self.retrying("grant", |_| {
            self.grant_once(grant, &sha256, operator, today)
        })
        .await
    }

    async fn grant_once(
        &self,
        grant: &Grant,
        sha256: &[u8; 32],
        operator: &str,
        today: NaiveDate,
    ) -> Result<Granted, LedgerError> {
        let mut tx = self.pool.begin().await?;
        let player = grant.player_id.as_str();
        ensure_player(&mut tx, player).await?;
        // Every grant locks the issuance account ('#' sorts before any player id), so
        // grants queue here and the check below sees any earlier one with this id.
        sqlx::query(
            "SELECT account_id FROM accounts WHERE account_id IN ('#issuance', $1) \
             ORDER BY account_id FOR UPDATE",
        )
        .bind(player)
        .fetch_all(&mut *tx)
        .await?;
        let earlier = sqlx::query(
            "SELECT request_sha256, transfer_id, balance_after_silver FROM grants WHERE request_id = $1",
        )
        .bind(&grant.request_id)
        .fetch_optional(&mut *tx)
        .await?;
        if let Some(earlier) = earlier {
            tx.rollback().await?;
            let stored: Vec<u8> = earlier.try_get("request_sha256")?;
            if stored.as_slice() != sha256.as_slice() {
                return Err(LedgerError::Conflict(format!(
                    "request_id {} was already used for a different grant",
                    grant.request_id
                )));
            }
            return Ok(Granted {
                transfer_id: earlier.try_get("transfer_id")?,
                balance_after_silver: earlier.try_get("balance_after_silver")?,
                replayed: true,
            });
        }

        let transfer_id = Uuid::now_v7();
        sqlx::query(
            "INSERT INTO transfers (transfer_id, kind, grant_request_id, cap_day) \
             VALUES ($1, 'grant', $2, $3)",
        )
        .bind(transfer_id)
        .bind(&grant.request_id)
        .bind(today)
        .execute(&mut *tx)
        .await?;
        let balances: Vec<(String, i64, i64)> = sqlx::query_as(
            "WITH moves (account_id, delta) AS (VALUES ('#issuance', -$2::bigint), ($1, $2::bigint)), \
             moved AS ( \
                 UPDATE accounts a SET balance_silver = a.balance_silver + moves.delta \
                 FROM moves WHERE a.account_id = moves.account_id \
                 RETURNING a.account_id, moves.delta, a.balance_silver) \
             INSERT INTO entries (transfer_id, account_id, amount_silver, balance_after_silver) \
             SELECT $3, account_id, delta, balance_silver FROM moved \
             RETURNING account_id::text, amount_silver, balance_after_silver",
        )
        .bind(player)
        .bind(grant.amount_silver)
        .bind(transfer_id)
        .fetch_all(&mut *tx)
        .await?;
        let balance_after = balances
            .iter()
            .find(|(account, _, _)| account == player)
            .map(|(_, _, after)| *after)
            .ok_or_else(|| LedgerError::Corrupt(format!("grant to {player} moved nothing")))?;
        sqlx::query(
            "INSERT INTO grants (request_id, player_id, amount_silver, reason, granted_by, \
             transfer_id, balance_after_silver, request_sha256) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
        )
        .bind(&grant.request_id)
        .bind(player)
        .bind(grant.amount_silver)
        .bind(&grant.reason)
        .bind(operator)
        .bind(transfer_id)
        .bind(balance_after)
        .bind(sha256.as_slice())
        .execute(&mut *tx)
        .await?;
        sqlx::query(
            "INSERT INTO history (player_id, kind, before_value, after_value, reason) \
             VALUES ($1, $2, $3, $4, $5)",
        )
        .bind(player)
        .bind(HistoryKind::Silver.code())
        .bind(balance_after - grant.amount_silver)
        .bind(balance_after)
        .bind(format!("grant: {}", grant.reason))
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(Granted {
            transfer_id,
            balance_after_silver: balance_after,
            replayed: false,
        })
    }

    /// Sets (1–9) or clears (0) a player's professional dan, audited.
    pub async fn set_professional(
        &self,
        player: &PlayerId,
        professional_dan: u8,
        operator: &str,
    ) -> Result<(), LedgerError> {
        self.retrying("set_professional", |_| async {
            let mut tx = self.pool.begin().await?;
            ensure_player(&mut tx, player.as_str()).await?;
            let before: i16 = sqlx::query_scalar(
                "SELECT p.professional_dan FROM accounts a JOIN players p ON p.player_id = a.account_id \
                 WHERE a.account_id = $1 FOR UPDATE OF a",
            )
            .bind(player.as_str())
            .fetch_one(&mut *tx)
            .await?;
            sqlx::query("UPDATE players SET professional_dan = $2 WHERE player_id = $1")
                .bind(player.as_str())
                .bind(i16::from(professional_dan))
                .execute(&mut *tx)
                .await?;
            sqlx::query(
                "INSERT INTO audit_log (actor, action, player_id, detail) \
                 VALUES ($1, 'set_professional', $2, $3)",
            )
            .bind(operator)
            .bind(player.as_str())
            .bind(serde_json::json!({ "before": before, "after": professional_dan }))
            .execute(&mut *tx)
            .await?;
            tx.commit().await?;
            Ok(())
        })
        .await
    }

    /// A player's account as of `today`; a player the ledger never saw reads as a fresh
    /// account (nothing is written).
    pub async fn account(
        &self,
        player: &PlayerId,
        today: NaiveDate,
    ) -> Result<AccountRow, LedgerError> {
        let row = sqlx::query(
            "SELECT a.balance_silver, p.gomoku_rating, p.rated_games, p.professional_dan, \
                    p.cap_day, p.won_today_silver, p.lost_today_silver \
             FROM accounts a JOIN players p ON p.player_id = a.account_id \
             WHERE a.account_id = $1",
        )
        .bind(player.as_str())
        .fetch_optional(&self.pool)
        .await?;
        let standings: Vec<(i16, i64, i64, i64, i64, i64, i64)> = sqlx::query_as(
            "SELECT game_type, points, wins, losses, draws, escapes, games \
             FROM standings WHERE player_id = $1",
        )
        .bind(player.as_str())
        .fetch_all(&self.pool)
        .await?;
        let standings = GameType::ALL
            .iter()
            .map(|game_type| {
                standings
                    .iter()
                    .find(|s| s.0 == game_type.code())
                    .map(|s| StandingRow {
                        points: s.1,
                        wins: s.2,
                        losses: s.3,
                        draws: s.4,
                        escapes: s.5,
                        games: s.6,
                    })
                    .unwrap_or_default()
            })
            .collect();
        let Some(row) = row else {
            return Ok(AccountRow {
                player_id: player.clone(),
                balance_silver: 0,
                won_today_silver: 0,
                lost_today_silver: 0,
                gomoku_rating: NEW_PLAYER_RATING,
                rated_games: 0,
                professional_dan: 0,
                standings,
            });
        };
        let (won, lost) = counters_on(
            today,
            row.try_get("cap_day")?,
            row.try_get("won_today_silver")?,
            row.try_get("lost_today_silver")?,
        );
        Ok(AccountRow {
            player_id: player.clone(),
            balance_silver: row.try_get("balance_silver")?,
            won_today_silver: won,
            lost_today_silver: lost,
            gomoku_rating: row.try_get("gomoku_rating")?,
            rated_games: row.try_get("rated_games")?,
            professional_dan: dan(row.try_get("professional_dan")?),
            standings,
        })
    }

    /// Up to `limit` history rows of `player` older than `before_id`, newest first,
    /// optionally of one kind.
    pub async fn history(
        &self,
        player: &PlayerId,
        kind: Option<HistoryKind>,
        before_id: i64,
        limit: i64,
    ) -> Result<Vec<HistoryRecord>, LedgerError> {
        const COLUMNS: &str =
            "history_id, kind, game_type, game_id::text, before_value, after_value, reason, at";
        let rows = match kind {
            None => {
                sqlx::query_as(&format!(
                    "SELECT {COLUMNS} FROM history WHERE player_id = $1 AND history_id < $2 \
                     ORDER BY history_id DESC LIMIT $3"
                ))
                .bind(player.as_str())
                .bind(before_id)
                .bind(limit)
                .fetch_all(&self.pool)
                .await?
            }
            Some(kind) => {
                sqlx::query_as(&format!(
                    "SELECT {COLUMNS} FROM history WHERE player_id = $1 AND kind = $4 \
                     AND history_id < $2 ORDER BY history_id DESC LIMIT $3"
                ))
                .bind(player.as_str())
                .bind(before_id)
                .bind(limit)
                .bind(kind.code())
                .fetch_all(&self.pool)
                .await?
            }
        };
        Ok(rows)
    }

    /// Up to `limit` games of `player` settled before `before_seq`, newest first,
    /// optionally of one type, each with its players.
    pub async fn games(
        &self,
        player: &PlayerId,
        game_type: Option<GameType>,
        before_seq: i64,
        limit: i64,
    ) -> Result<Vec<(GameRow, Vec<GamePlayerRow>)>, LedgerError> {
        let games: Vec<GameRow> = sqlx::query_as(
            "SELECT g.game_id::text, g.game_seq, g.game_type, g.room_id, g.table_id, g.reason, \
                    g.started_at_unix_ms, g.ended_at_unix_ms, g.response \
             FROM game_players gp JOIN games g ON g.game_id = gp.game_id \
             WHERE gp.player_id = $1 AND gp.game_seq < $2 \
               AND ($3::smallint IS NULL OR g.game_type = $3) \
             ORDER BY gp.game_seq DESC LIMIT $4",
        )
        .bind(player.as_str())
        .bind(before_seq)
        .bind(game_type.map(GameType::code))
        .bind(limit)
        .fetch_all(&self.pool)
        .await?;
        let ids: Vec<&str> = games.iter().map(|g| g.game_id.as_str()).collect();
        let players: Vec<GamePlayerRow> = sqlx::query_as(
            "SELECT game_id::text, player_id::text, seat, role, outcome, points, offered_draw \
             FROM game_players WHERE game_id = ANY ($1) ORDER BY game_id, seat",
        )
        .bind(&ids)
        .fetch_all(&self.pool)
        .await?;
        Ok(games
            .into_iter()
            .map(|game| {
                let seats = players
                    .iter()
                    .filter(|p| p.game_id == game.game_id)
                    .cloned()
                    .collect();
                (game, seats)
            })
            .collect())
    }

    /// A settled game with its record, if there is one by that id.
    pub async fn game(&self, game_id: &str) -> Result<Option<GameWithRecord>, LedgerError> {
        let row = sqlx::query(
            "SELECT g.game_id::text, g.game_seq, g.game_type, g.room_id, g.table_id, g.reason, \
                    g.started_at_unix_ms, g.ended_at_unix_ms, g.response, r.format, r.content \
             FROM games g JOIN game_records r ON r.game_id = g.game_id WHERE g.game_id = $1",
        )
        .bind(game_id)
        .fetch_optional(&self.pool)
        .await?;
        let Some(row) = row else {
            return Ok(None);
        };
        let game = GameRow::from_row(&row)?;
        let players: Vec<GamePlayerRow> = sqlx::query_as(
            "SELECT game_id::text, player_id::text, seat, role, outcome, points, offered_draw \
             FROM game_players WHERE game_id = $1 ORDER BY seat",
        )
        .bind(game_id)
        .fetch_all(&self.pool)
        .await?;
        Ok(Some(GameWithRecord {
            game,
            players,
            record_format: row.try_get("format")?,
            record_content: row.try_get("content")?,
        }))
    }

    /// The top `limit` rows of `board`.
    pub async fn leaderboard_top(
        &self,
        board: Board,
        limit: i64,
    ) -> Result<Vec<BoardRow>, LedgerError> {
        let rows: Vec<(String, i64, i16, i64)> = sqlx::query_as(
            "SELECT player_id::text, value, professional_dan, rank() OVER (ORDER BY value DESC) \
             FROM leaderboard WHERE board = $1 ORDER BY value DESC, player_id LIMIT $2",
        )
        .bind(board.code())
        .bind(limit)
        .fetch_all(&self.pool)
        .await?;
        Ok(rows
            .into_iter()
            .map(|(player_id, value, professional_dan, rank)| BoardRow {
                rank,
                player_id,
                value,
                professional_dan: dan(professional_dan),
            })
            .collect())
    }

    /// `limit` rows of `board` centred on `player` (fewer at the ends of the board), or
    /// `None` when the player is not on the board.
    pub async fn leaderboard_around(
        &self,
        board: Board,
        player: &PlayerId,
        limit: i64,
    ) -> Result<Option<Vec<BoardRow>>, LedgerError> {
        let me: Option<BoardEntry> = sqlx::query_as(
            "SELECT player_id::text, value, professional_dan FROM leaderboard \
             WHERE board = $1 AND player_id = $2",
        )
        .bind(board.code())
        .bind(player.as_str())
        .fetch_optional(&self.pool)
        .await?;
        let Some(me) = me else {
            return Ok(None);
        };
        let side = (limit - 1).max(0);
        let mut above: Vec<BoardEntry> = sqlx::query_as(
            "SELECT player_id::text, value, professional_dan FROM leaderboard \
             WHERE board = $1 AND (value > $2 OR (value = $2 AND player_id < $3)) \
             ORDER BY value ASC, player_id DESC LIMIT $4",
        )
        .bind(board.code())
        .bind(me.value)
        .bind(&me.player_id)
        .bind(side)
        .fetch_all(&self.pool)
        .await?;
        let below: Vec<BoardEntry> = sqlx::query_as(
            "SELECT player_id::text, value, professional_dan FROM leaderboard \
             WHERE board = $1 AND (value < $2 OR (value = $2 AND player_id > $3)) \
             ORDER BY value DESC, player_id ASC LIMIT $4",
        )
        .bind(board.code())
        .bind(me.value)
        .bind(&me.player_id)
        .bind(side)
        .fetch_all(&self.pool)
        .await?;
        // Centre on the player; a short side gives its places to the other.
        let wanted_above = usize::try_from((limit - 1) / 2).unwrap_or(0);
        let wanted_below = usize::try_from(limit - 1).unwrap_or(0) - wanted_above;
        let take_above = if below.len() < wanted_below {
            (wanted_above + wanted_below - below.len()).min(above.len())
        } else {
            wanted_above.min(above.len())
        };
        let take_below = (wanted_above + wanted_below - take_above).min(below.len());
        above.truncate(take_above);
        above.reverse();
        let window: Vec<BoardEntry> = above
            .into_iter()
            .chain(std::iter::once(me))
            .chain(below.into_iter().take(take_below))
            .collect();

        // Ranks: the first row's rank and position, then counting down the window.
        let first = &window[0];
        let (greater, equal_before): (i64, i64) = sqlx::query_as(
            "SELECT count(*) FILTER (WHERE value > $2), \
                    count(*) FILTER (WHERE value = $2 AND player_id < $3) \
             FROM leaderboard WHERE board = $1 AND value >= $2",
        )
        .bind(board.code())
        .bind(first.value)
        .bind(&first.player_id)
        .fetch_one(&self.pool)
        .await?;
        let first_position = greater + equal_before + 1;
        let mut rows: Vec<BoardRow> = Vec::with_capacity(window.len());
        for (i, entry) in window.into_iter().enumerate() {
            let rank = match rows.last() {
                None => greater + 1,
                Some(previous) if previous.value == entry.value => previous.rank,
                Some(_) => first_position + i64::try_from(i).unwrap_or(i64::MAX),
            };
            rows.push(BoardRow {
                rank,
                player_id: entry.player_id,
                value: entry.value,
                professional_dan: dan(entry.professional_dan),
            });
        }
        Ok(Some(rows))
    }
}

/// Gives a player its rows if it has none yet (no lock is taken on existing rows).
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
    sqlx::query("INSERT INTO players (player_id) VALUES ($1) ON CONFLICT DO NOTHING")
        .bind(player)
        .execute(&mut **tx)
        .await?;
    Ok(())
}
