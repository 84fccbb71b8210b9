//! Settling a game in two round trips: read a snapshot of its players (no locks), run
//! the rules in Rust ([`crate::domain::settle::plan`]), then one call,
//! `ledger_apply_settlement(game, seats, history)`, that in one transaction locks the
//! accounts in order, checks the snapshot still holds and writes everything. Its
//! argument is a typed record ([`SettlementRecord`]: PostgreSQL composite types declared
//! in the schema) carrying every value to write, computed here. When a concurrent
//! settlement changed one of the players in between, nothing is written and the
//! settlement is redone under locks (`BEGIN`, `ledger_lock_for_settlement`, write,
//! `COMMIT`), which cannot go stale.

use chrono::NaiveDate;
use sqlx::FromRow;
use uuid::Uuid;

use super::{Repository, dan};
use crate::domain::caps::Caps;
use crate::domain::day::counters_on;
use crate::domain::rating::NEW_PLAYER_RATING;
use crate::domain::settle::{self, GameReport, PlayerSnapshot, SettlementPlan};
use crate::error::LedgerError;

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

/// One settlement as `ledger_apply_settlement` takes it: the game, its seats in request
/// order, its history rows. Every value is computed in Rust; the SQL only writes them
/// (and checks the seats' snapshot still holds).
#[derive(Debug)]
pub struct SettlementRecord {
    /// The game row, its record and transfer.
    pub game: SettledGame,
    /// One per seat, in request order.
    pub seats: Vec<SettledSeat>,
    /// The history rows, in order.
    pub history: Vec<HistoryEntry>,
}

/// The game part of a [`SettlementRecord`] (SQL type `ledger_settled_game_v2`: 0001's
/// `ledger_settled_game` with `friends_table`, see `migrations/0002_names.sql`).
#[derive(Debug, Clone, sqlx::Type)]
#[sqlx(type_name = "ledger_settled_game_v2")]
pub struct SettledGame {
    /// The idempotency key.
    pub game_id: String,
    /// The game type's code.
    pub game_type: i16,
    /// The room.
    pub room_id: String,
    /// The table.
    pub table_id: String,
    /// How it ended.
    pub reason: String,
    /// Points base.
    pub points_base: i64,
    /// Silver per point.
    pub silver_per_point: i64,
    /// Whether it moved ratings.
    pub rated: bool,
    /// Unix ms.
    pub started_at_unix_ms: i64,
    /// Unix ms.
    pub ended_at_unix_ms: i64,
    /// The day whose caps it counts against.
    pub cap_day: NaiveDate,
    /// SHA-256 of the canonical request.
    pub request_sha256: Vec<u8>,
    /// The encoded answer, stored for retries.
    pub response: Vec<u8>,
    /// Record format.
    pub record_format: String,
    /// Record content.
    pub record_content: String,
    /// The transfer's id, when silver moves.
    pub transfer_id: Option<Uuid>,
    /// Silver the house receives.
    pub house_silver: i64,
    /// The rating of players who get their rows now.
    pub new_player_rating: i64,
    /// Played at a friends' table.
    pub friends_table: bool,
}

/// One seat of a [`SettlementRecord`] (SQL type `ledger_settled_seat`): as reported, as
/// read (the write happens only if the locked rows still hold this), and as planned.
#[derive(Debug, Clone, sqlx::Type)]
#[sqlx(type_name = "ledger_settled_seat")]
pub struct SettledSeat {
    /// The player.
    pub player_id: String,
    /// The snapshot had no rows for the player.
    pub missing: bool,
    /// Role code.
    pub role: i16,
    /// Outcome code.
    pub outcome: i16,
    /// Points scored.
    pub points: i64,
    /// Offered the draw.
    pub offered_draw: bool,
    /// Silver asked for.
    pub silver_requested: i64,
    /// Silver moved (negative: paid).
    pub silver_delta: i64,
    /// Balance as read.
    pub balance_before: i64,
    /// Cap day as read.
    pub cap_day_before: Option<NaiveDate>,
    /// Won counter as read (as stored, whatever its day).
    pub won_before: i64,
    /// Lost counter as read.
    pub lost_before: i64,
    /// Points as read.
    pub points_before: i64,
    /// Rating as read.
    pub rating_before: i64,
    /// Rated games as read.
    pub rated_games_before: i64,
    /// Professional dan as read.
    pub professional_dan: i16,
    /// Today's won counter after the game.
    pub won_today_after: i64,
    /// Today's lost counter after the game.
    pub lost_today_after: i64,
    /// Rating after the game.
    pub rating_after: i64,
    /// Wins the game adds.
    pub wins: i64,
    /// Losses it adds.
    pub losses: i64,
    /// Draws it adds.
    pub draws: i64,
    /// Escapes it adds.
    pub escapes: i64,
    /// Games it adds.
    pub games: i64,
    /// Rated games it adds.
    pub rated_games: i64,
}

/// A history row of a [`SettlementRecord`] (SQL type `ledger_history_row`).
#[derive(Debug, Clone, sqlx::Type)]
#[sqlx(type_name = "ledger_history_row")]
pub struct HistoryEntry {
    /// Whose.
    pub player_id: String,
    /// The history kind's code.
    pub kind: i16,
    /// Value before.
    pub before_value: i64,
    /// Value after.
    pub after_value: i64,
    /// Why.
    pub reason: String,
}

impl SettlementRecord {
    /// The record writing `plan` of `report`, computed from `read` (one per seat).
    fn new(
        report: &GameReport,
        sha256: &[u8; 32],
        today: NaiveDate,
        read: &[SeatRead],
        plan: &SettlementPlan,
        response: &[u8],
    ) -> Self {
        let game = SettledGame {
            game_id: report.game_id.clone(),
            game_type: report.game_type.code(),
            room_id: report.stakes.room_id.to_string(),
            table_id: report.table_id.clone(),
            reason: report.reason.clone(),
            points_base: report.stakes.points_base,
            silver_per_point: report.stakes.silver_per_point,
            rated: report.rated(),
            started_at_unix_ms: report.started_at_unix_ms,
            ended_at_unix_ms: report.ended_at_unix_ms,
            cap_day: today,
            request_sha256: sha256.to_vec(),
            response: response.to_vec(),
            record_format: report.record_format.clone(),
            record_content: report.record_content.clone(),
            transfer_id: plan.moves_silver().then(Uuid::now_v7),
            house_silver: plan.house_silver,
            new_player_rating: NEW_PLAYER_RATING,
            friends_table: report.friends_table,
        };
        let seats = report
            .seats
            .iter()
            .zip(read)
            .zip(&plan.seats)
            .map(|((seat, read), planned)| SettledSeat {
                player_id: seat.player_id.to_string(),
                missing: read.missing,
                role: seat.role.code(),
                outcome: seat.outcome.code(),
                points: seat.points,
                offered_draw: seat.offered_draw,
                silver_requested: planned.silver_requested,
                silver_delta: planned.silver_delta,
                balance_before: read.balance,
                cap_day_before: read.cap_day,
                won_before: read.won,
                lost_before: read.lost,
                points_before: read.points,
                rating_before: read.rating,
                rated_games_before: read.rated_games,
                professional_dan: read.professional_dan,
                won_today_after: planned.won_today_after,
                lost_today_after: planned.lost_today_after,
                rating_after: planned.rating_after,
                wins: planned.counts.wins,
                losses: planned.counts.losses,
                draws: planned.counts.draws,
                escapes: planned.counts.escapes,
                games: planned.counts.games,
                rated_games: planned.rated_games_added,
            })
            .collect();
        let history = plan
            .history(report)
            .into_iter()
            .map(|h| HistoryEntry {
                player_id: h.player_id.to_string(),
                kind: h.kind.code(),
                before_value: h.before,
                after_value: h.after,
                reason: h.reason,
            })
            .collect();
        Self {
            game,
            seats,
            history,
        }
    }

    /// The call writing this record: 1 written, 0 the snapshot is stale, 2 the game was
    /// settled meanwhile.
    fn apply_query(
        &self,
    ) -> sqlx::query::QueryScalar<'_, sqlx::Postgres, i16, sqlx::postgres::PgArguments> {
        sqlx::query_scalar("SELECT ledger_apply_settlement($1, $2, $3)")
            .bind(&self.game)
            .bind(&self.seats)
            .bind(&self.history)
    }
}

impl Repository {
    /// Settles `report` on `today`: the stored answer when the game was settled with the
    /// same payload; [`LedgerError::SettledDifferently`] (carrying that answer) when with
    /// another; else the plan applied and `encode` of it stored as the answer. The first attempt reads without locks;
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
            let rows =
                sqlx::query_as("SELECT * FROM ledger_lock_for_settlement($1, $2, $3, $4, $5)")
                    .bind(&report.game_id)
                    .bind(&ids)
                    .bind(report.game_type.code())
                    .bind(house_may_receive)
                    .bind(NEW_PLAYER_RATING)
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
            let response = first
                .existing_response
                .clone()
                .ok_or_else(|| LedgerError::Corrupt("settled game without a response".into()))?;
            if stored.as_slice() != sha256.as_slice() {
                return Err(LedgerError::SettledDifferently {
                    game_id: report.game_id.clone(),
                    response,
                });
            }
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
        let record = SettlementRecord::new(report, sha256, today, &read, &plan, &response);
        let status: i16 = {
            let apply = record.apply_query();
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
}
