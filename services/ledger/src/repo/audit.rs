//! The operator audit trail (`operator_actions`, append-only): writing an action's row
//! inside the transaction that makes the change ([`claim`], [`write`]), recording an
//! action a game service is about to take ([`Repository::record_operator_action`]), and
//! listing the trail ([`Repository::operator_actions`]).
//!
//! A request id names one row whatever its kind: a retry with the same payload finds
//! the row (a replay, nothing written), a different payload is a
//! [`LedgerError::Conflict`]. Two writers of one id at once: the second's INSERT fails
//! as a unique violation, its transaction is retried and finds the first's row.

use chrono::{DateTime, Utc};
use sqlx::FromRow;

use super::Repository;
use crate::domain::audit::{Action, ActionKind, ActionRequest, Audit};
use crate::error::LedgerError;

/// One row of the audit trail as stored.
#[derive(Debug, Clone, PartialEq, FromRow)]
pub struct ActionRow {
    /// Its id, in write order.
    pub action_id: i64,
    /// The request id it was made under.
    pub request_id: String,
    /// The kind's code.
    pub kind: i16,
    /// Who asked.
    pub operator: String,
    /// Who wrote the row.
    pub recorded_by: String,
    /// When.
    pub at: DateTime<Utc>,
    /// Why.
    pub reason: String,
    /// The player acted on.
    pub player_id: Option<String>,
    /// The table closed.
    pub table_id: Option<String>,
    /// The game redelivered.
    pub game_id: Option<String>,
    /// The details by kind (see the migration).
    pub details: serde_json::Value,
}

/// What to list: every filter given must match.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ActionFilter {
    /// Only this operator's actions.
    pub operator: Option<String>,
    /// Only actions on this player, table or game.
    pub target: Option<String>,
    /// Only this kind.
    pub kind: Option<ActionKind>,
    /// Only at or after this time.
    pub since: Option<DateTime<Utc>>,
    /// Only before this time.
    pub until: Option<DateTime<Utc>>,
}

/// A row with the payload hash it was written with.
#[derive(FromRow)]
struct Claimed {
    #[sqlx(flatten)]
    row: ActionRow,
    request_sha256: Option<Vec<u8>>,
}

const COLUMNS: &str = "action_id, request_id, kind, operator, recorded_by, at, reason, \
     player_id::text, table_id::text, game_id::text, details";

/// The row already written under `audit`'s request id, when it is this same action (a
/// replay); a [`LedgerError::Conflict`] when the id names something else.
pub async fn claim(
    tx: &mut sqlx::Transaction<'_, sqlx::Postgres>,
    audit: &Audit,
    request: &ActionRequest<'_>,
) -> Result<Option<ActionRow>, LedgerError> {
    let earlier: Option<Claimed> = sqlx::query_as(&format!(
        "SELECT {COLUMNS}, request_sha256 FROM operator_actions WHERE request_id = $1"
    ))
    .bind(&audit.request_id)
    .fetch_optional(&mut **tx)
    .await?;
    let Some(Claimed {
        row,
        request_sha256: stored,
    }) = earlier
    else {
        return Ok(None);
    };
    if stored.as_deref() != Some(request.sha256().as_slice()) {
        return Err(LedgerError::Conflict(format!(
            "request_id {} was already used for a different operator action; use a fresh id",
            audit.request_id
        )));
    }
    Ok(Some(row))
}

/// Writes `action`'s row for `audit`, recorded by `recorded_by` at `at`, with `extra`
/// details beside the request's (the outcome: a grant's transfer, the dan or name
/// before). Call [`claim`] first in the same transaction.
pub async fn write(
    tx: &mut sqlx::Transaction<'_, sqlx::Postgres>,
    audit: &Audit,
    action: &Action,
    recorded_by: &str,
    at: DateTime<Utc>,
    extra: serde_json::Value,
) -> Result<ActionRow, LedgerError> {
    let request = ActionRequest {
        action,
        reason: &audit.reason,
    };
    let (player_id, table_id, game_id, mut details) = match action {
        Action::GrantSilver {
            player_id,
            amount_silver,
        } => (
            Some(player_id.as_str()),
            None,
            None,
            serde_json::json!({ "amount_silver": amount_silver }),
        ),
        Action::SetProfessional {
            player_id,
            professional_dan,
        } => (
            Some(player_id.as_str()),
            None,
            None,
            serde_json::json!({ "professional_dan": professional_dan }),
        ),
        Action::SetName { player_id, name } => (
            Some(player_id.as_str()),
            None,
            None,
            serde_json::json!({ "name": name }),
        ),
        Action::CloseTable { table_id } => {
            (None, Some(table_id.as_str()), None, serde_json::json!({}))
        }
        Action::Redeliver { game_id } => (
            None,
            None,
            game_id.as_deref(),
            serde_json::json!({ "all_dead_letters": game_id.is_none() }),
        ),
    };
    if let (Some(details), serde_json::Value::Object(extra)) = (details.as_object_mut(), extra) {
        details.extend(extra);
    }
    let row = sqlx::query_as(&format!(
        "INSERT INTO operator_actions (request_id, kind, operator, recorded_by, at, reason, \
         player_id, table_id, game_id, details, request_sha256) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING {COLUMNS}"
    ))
    .bind(&audit.request_id)
    .bind(action.kind().code())
    .bind(&audit.operator)
    .bind(recorded_by)
    .bind(at)
    .bind(&audit.reason)
    .bind(player_id)
    .bind(table_id)
    .bind(game_id)
    .bind(details)
    .bind(request.sha256().as_slice())
    .fetch_one(&mut **tx)
    .await?;
    Ok(row)
}

impl Repository {
    /// Writes an action a game service (`recorded_by`) is about to take, at `at`; or
    /// finds it when this request was recorded before (`true`: a replay, nothing written).
    pub async fn record_operator_action(
        &self,
        audit: &Audit,
        action: &Action,
        recorded_by: &str,
        at: DateTime<Utc>,
    ) -> Result<(ActionRow, bool), LedgerError> {
        let request = ActionRequest {
            action,
            reason: &audit.reason,
        };
        self.retrying("record_operator_action", |_| async {
            let mut tx = self.pool.begin().await?;
            if let Some(row) = claim(&mut tx, audit, &request).await? {
                tx.rollback().await?;
                return Ok((row, true));
            }
            let row = write(
                &mut tx,
                audit,
                action,
                recorded_by,
                at,
                serde_json::json!({}),
            )
            .await?;
            tx.commit().await?;
            Ok((row, false))
        })
        .await
    }

    /// At most `limit` rows matching `filter` written before the row `before` (exclusive),
    /// newest first; read on the primary (the trail is small and must be complete).
    pub async fn operator_actions(
        &self,
        filter: &ActionFilter,
        before: i64,
        limit: i64,
    ) -> Result<Vec<ActionRow>, LedgerError> {
        let rows = sqlx::query_as(&format!(
            "SELECT {COLUMNS} FROM operator_actions \
             WHERE action_id < $1 \
               AND ($2::text IS NULL OR operator = $2) \
               AND ($3::text IS NULL OR player_id = $3 OR table_id = $3 OR game_id = $3) \
               AND ($4::smallint IS NULL OR kind = $4) \
               AND ($5::timestamptz IS NULL OR at >= $5) \
               AND ($6::timestamptz IS NULL OR at < $6) \
             ORDER BY action_id DESC LIMIT $7"
        ))
        .bind(before)
        .bind(filter.operator.as_deref())
        .bind(filter.target.as_deref())
        .bind(filter.kind.map(ActionKind::code))
        .bind(filter.since)
        .bind(filter.until)
        .bind(limit)
        .fetch_all(&self.pool)
        .await?;
        Ok(rows)
    }
}
