//! Display names (昵称): setting and clearing one, and profiles (names with titles and
//! ratings) for many players in one query. Names are checked before they get here
//! ([`DisplayName`]); a player without a row in `names` has none.

use chrono::{DateTime, Utc};
use gamehub_terms::DisplayName;
use sqlx::FromRow;

use super::Repository;
use super::audit;
use crate::domain::audit::{Action, ActionRequest, Audit};
use crate::domain::{GameType, PlayerId};
use crate::error::LedgerError;

/// Who changes a name, and so whether the change is audited.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Renamer<'a> {
    /// The player itself.
    Player,
    /// An operator: the change and its row in the audit trail (`operator_actions`,
    /// dated by the second field) are written in one transaction.
    Operator(&'a Audit, DateTime<Utc>),
}

/// What the ledger holds to show one player: its name and, in one game type, its points
/// and (for every player) its rating. `None` where the player has no row.
#[derive(Debug, Clone, PartialEq, Eq, FromRow)]
pub struct ProfileRow {
    /// The player.
    pub player_id: String,
    /// Its display name.
    pub name: Option<String>,
    /// Its points in the game type asked for.
    pub points: Option<i64>,
    /// Its Gomoku rating.
    pub gomoku_rating: Option<i64>,
    /// Its professional dan (0 when none).
    pub professional_dan: Option<i16>,
}

impl Repository {
    /// Sets `player`'s name, or clears it (`None`), as `renamer` (the caller's id is
    /// `by`). Returns the name it had before. An operator's retry of the same request
    /// changes nothing and returns the name before the first; its id used for something
    /// else is a [`LedgerError::Conflict`].
    pub async fn set_name(
        &self,
        player: &PlayerId,
        name: Option<&DisplayName>,
        renamer: Renamer<'_>,
        by: &str,
    ) -> Result<Option<String>, LedgerError> {
        // A first name set by two calls at once: the second INSERT fails as a unique
        // violation and is retried, and then finds (and locks) the first one's row.
        let action = Action::SetName {
            player_id: player.clone(),
            name: name.map(|n| n.as_str().to_owned()),
        };
        self.retrying("set_name", |_| async {
            let mut tx = self.pool.begin().await?;
            if let Renamer::Operator(audit, _) = renamer {
                let request = ActionRequest {
                    action: &action,
                    reason: &audit.reason,
                };
                if let Some(row) = audit::claim(&mut tx, audit, &request).await? {
                    tx.rollback().await?;
                    let before = row.details.get("name_before").and_then(|v| v.as_str());
                    return Ok(before.map(str::to_owned));
                }
            }
            let before: Option<String> =
                sqlx::query_scalar("SELECT name FROM names WHERE player_id = $1 FOR UPDATE")
                    .bind(player.as_str())
                    .fetch_optional(&mut *tx)
                    .await?;
            match (name, &before) {
                (Some(name), Some(_)) => {
                    sqlx::query(
                        "UPDATE names SET name = $2, updated_at = now(), updated_by = $3 \
                         WHERE player_id = $1",
                    )
                    .bind(player.as_str())
                    .bind(name.as_str())
                    .bind(by)
                    .execute(&mut *tx)
                    .await?;
                }
                (Some(name), None) => {
                    sqlx::query(
                        "INSERT INTO names (player_id, name, updated_by) VALUES ($1, $2, $3)",
                    )
                    .bind(player.as_str())
                    .bind(name.as_str())
                    .bind(by)
                    .execute(&mut *tx)
                    .await?;
                }
                (None, _) => {
                    sqlx::query("DELETE FROM names WHERE player_id = $1")
                        .bind(player.as_str())
                        .execute(&mut *tx)
                        .await?;
                }
            }
            if let Renamer::Operator(audit, at) = renamer {
                audit::write(
                    &mut tx,
                    audit,
                    &action,
                    &audit.operator,
                    at,
                    serde_json::json!({ "name_before": before }),
                )
                .await?;
            }
            tx.commit().await?;
            Ok(before)
        })
        .await
    }

    /// The names of `players` and, with `game_type`, their points in it and their
    /// ratings, in one query on the primary: one row per id asked (ids the ledger never
    /// saw included, with `None`s), in no particular order.
    pub async fn profiles(
        &self,
        players: &[PlayerId],
        game_type: Option<GameType>,
    ) -> Result<Vec<ProfileRow>, LedgerError> {
        let ids: Vec<&str> = players.iter().map(PlayerId::as_str).collect();
        let rows = sqlx::query_as(
            "SELECT ids.id AS player_id, n.name, s.points, p.gomoku_rating, p.professional_dan \
             FROM unnest($1::text[]) AS ids(id) \
             LEFT JOIN names n ON n.player_id = ids.id \
             LEFT JOIN players p ON p.player_id = ids.id AND $2::smallint IS NOT NULL \
             LEFT JOIN standings s ON s.player_id = ids.id AND s.game_type = $2",
        )
        .bind(&ids)
        .bind(game_type.map(GameType::code))
        .fetch_all(&self.pool)
        .await?;
        Ok(rows)
    }
}
