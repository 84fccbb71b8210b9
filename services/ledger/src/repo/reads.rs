//! What the API reads: accounts (a never-seen player reads as a fresh one), history,
//! games and their records. Players appear with the display name they have now (the
//! `names` table), not the one they had when they played.

use chrono::{DateTime, NaiveDate, Utc};
use sqlx::postgres::PgPool;
use sqlx::{FromRow, Row};

use super::{Repository, dan};
use crate::domain::day::counters_on;
use crate::domain::rating::NEW_PLAYER_RATING;
use crate::domain::{GameType, HistoryKind, PlayerId};
use crate::error::LedgerError;

/// A player's account and standing as stored (defaults when it never played).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AccountRow {
    /// The player.
    pub player_id: PlayerId,
    /// Its display name now; empty when it has none.
    pub name: String,
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
    /// One per game type, in [`GameType::all`] order.
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
    /// Played at a friends' table.
    pub friends_table: bool,
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
    /// The player's display name now; empty when it has none.
    pub name: String,
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

impl Repository {
    /// A player's account as of `today`; a player the ledger never saw reads as a fresh
    /// account (nothing is written).
    pub async fn account(
        &self,
        player: &PlayerId,
        today: NaiveDate,
    ) -> Result<AccountRow, LedgerError> {
        // The balance and the standings as of one snapshot: read apart, a settlement
        // committed between the two reads showed its points without its silver.
        let mut tx = self.pool.begin().await?;
        sqlx::query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            .execute(&mut *tx)
            .await?;
        let row = sqlx::query(
            "SELECT a.balance_silver, p.gomoku_rating, p.rated_games, p.professional_dan, \
                    p.cap_day, p.won_today_silver, p.lost_today_silver \
             FROM accounts a JOIN players p ON p.player_id = a.account_id \
             WHERE a.account_id = $1",
        )
        .bind(player.as_str())
        .fetch_optional(&mut *tx)
        .await?;
        let name: Option<String> =
            sqlx::query_scalar("SELECT name FROM names WHERE player_id = $1")
                .bind(player.as_str())
                .fetch_optional(&mut *tx)
                .await?;
        let name = name.unwrap_or_default();
        let standings: Vec<(i16, i64, i64, i64, i64, i64, i64)> = sqlx::query_as(
            "SELECT game_type, points, wins, losses, draws, escapes, games \
             FROM standings WHERE player_id = $1",
        )
        .bind(player.as_str())
        .fetch_all(&mut *tx)
        .await?;
        tx.commit().await?;
        let standings = GameType::all()
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
                name,
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
            name,
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
        self.lag_tolerant(|pool| async move {
            let rows =
                match kind {
                    None => sqlx::query_as(&format!(
                        "SELECT {COLUMNS} FROM history WHERE player_id = $1 AND history_id < $2 \
                         ORDER BY history_id DESC LIMIT $3"
                    ))
                    .bind(player.as_str())
                    .bind(before_id)
                    .bind(limit)
                    .fetch_all(&pool)
                    .await?,
                    Some(kind) => {
                        sqlx::query_as(&format!(
                            "SELECT {COLUMNS} FROM history WHERE player_id = $1 AND kind = $4 \
                         AND history_id < $2 ORDER BY history_id DESC LIMIT $3"
                        ))
                        .bind(player.as_str())
                        .bind(before_id)
                        .bind(limit)
                        .bind(kind.code())
                        .fetch_all(&pool)
                        .await?
                    }
                };
            Ok(rows)
        })
        .await
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
        self.lag_tolerant(|pool| async move {
            let games: Vec<GameRow> = sqlx::query_as(
                "SELECT g.game_id::text, g.game_seq, g.game_type, g.room_id, g.table_id, g.reason, \
                        g.started_at_unix_ms, g.ended_at_unix_ms, g.response, g.friends_table \
                 FROM game_players gp JOIN games g ON g.game_id = gp.game_id \
                 WHERE gp.player_id = $1 AND gp.game_seq < $2 \
                   AND ($3::smallint IS NULL OR g.game_type = $3) \
                 ORDER BY gp.game_seq DESC LIMIT $4",
            )
            .bind(player.as_str())
            .bind(before_seq)
            .bind(game_type.map(GameType::code))
            .bind(limit)
            .fetch_all(&pool)
            .await?;
            let ids: Vec<&str> = games.iter().map(|g| g.game_id.as_str()).collect();
            let players: Vec<GamePlayerRow> = sqlx::query_as(&format!(
                "SELECT {SEAT_COLUMNS} WHERE gp.game_id = ANY ($1) ORDER BY gp.game_id, gp.seat"
            ))
            .bind(&ids)
            .fetch_all(&pool)
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
        })
        .await
    }

    /// A settled game with its record, if there is one by that id. Read like the other
    /// lag-tolerant reads, except that a game the replica does not have (yet) is looked
    /// up again on the primary: a client that just saw the game end finds its record.
    pub async fn game(&self, game_id: &str) -> Result<Option<GameWithRecord>, LedgerError> {
        let found = self.lag_tolerant(|pool| game_on(pool, game_id)).await?;
        match found {
            None if self.replica.is_some() => game_on(self.pool.clone(), game_id).await,
            found => Ok(found),
        }
    }
}

/// A game's seats ([`GamePlayerRow`]) with each player's name now, up to the `WHERE`.
const SEAT_COLUMNS: &str = "gp.game_id::text, gp.player_id::text, gp.seat, gp.role, gp.outcome, \
     gp.points, gp.offered_draw, coalesce(n.name, '') AS name \
     FROM game_players gp LEFT JOIN names n ON n.player_id = gp.player_id";

/// [`Repository::game`] on one server.
async fn game_on(pool: PgPool, game_id: &str) -> Result<Option<GameWithRecord>, LedgerError> {
    let row = sqlx::query(
        "SELECT g.game_id::text, g.game_seq, g.game_type, g.room_id, g.table_id, g.reason, \
                    g.started_at_unix_ms, g.ended_at_unix_ms, g.response, g.friends_table, \
                    r.format, r.content \
             FROM games g JOIN game_records r ON r.game_id = g.game_id WHERE g.game_id = $1",
    )
    .bind(game_id)
    .fetch_optional(&pool)
    .await?;
    let Some(row) = row else {
        return Ok(None);
    };
    let game = GameRow::from_row(&row)?;
    let players: Vec<GamePlayerRow> = sqlx::query_as(&format!(
        "SELECT {SEAT_COLUMNS} WHERE gp.game_id = $1 ORDER BY gp.seat"
    ))
    .bind(game_id)
    .fetch_all(&pool)
    .await?;
    Ok(Some(GameWithRecord {
        game,
        players,
        record_format: row.try_get("format")?,
        record_content: row.try_get("content")?,
    }))
}
