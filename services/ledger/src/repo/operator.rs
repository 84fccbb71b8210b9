//! Operators' writes: grants of silver (the only way silver enters) and professional
//! dans, each retried as a whole transaction that also writes the action's row in the
//! audit trail ([`super::audit`]): never a change without its row.

use chrono::{DateTime, NaiveDate, Utc};
use sqlx::Row;
use uuid::Uuid;

use super::audit::{self, ActionRow};
use super::{Repository, ensure_player};
use crate::domain::audit::{Action, ActionRequest, Audit};
use crate::domain::grant::Grant;
use crate::domain::{HistoryKind, PlayerId};
use crate::error::LedgerError;

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

impl Repository {
    /// Applies `grant` by `operator` on `today` (its audit row dated `at`), or returns
    /// the earlier grant with the same request id; a different payload under that id, or
    /// an id another operator action used, is a [`LedgerError::Conflict`].
    pub async fn grant(
        &self,
        grant: &Grant,
        operator: &str,
        today: NaiveDate,
        at: DateTime<Utc>,
    ) -> Result<Granted, LedgerError> {
        let sha256 = grant.sha256();
        self.retrying("grant", |_| {
            self.grant_once(grant, &sha256, operator, today, at)
        })
        .await
    }

    async fn grant_once(
        &self,
        grant: &Grant,
        sha256: &[u8; 32],
        operator: &str,
        today: NaiveDate,
        at: DateTime<Utc>,
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

        let action = Action::GrantSilver {
            player_id: grant.player_id.clone(),
            amount_silver: grant.amount_silver,
        };
        let audit = Audit {
            request_id: grant.request_id.clone(),
            operator: operator.to_owned(),
            reason: grant.reason.clone(),
        };
        let request = ActionRequest {
            action: &action,
            reason: &grant.reason,
        };
        // No grant has this id; an audit row with it is another action's.
        if audit::claim(&mut tx, &audit, &request).await?.is_some() {
            return Err(LedgerError::Conflict(format!(
                "request_id {} was already used for a different operator action; use a fresh id",
                grant.request_id
            )));
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
        // Before the grant's row, so the migration's copy of grants for a previous
        // version finds its id taken.
        audit::write(
            &mut tx,
            &audit,
            &action,
            operator,
            at,
            serde_json::json!({ "transfer_id": transfer_id.to_string() }),
        )
        .await?;
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

    /// Sets (1–9) or clears (0) a player's professional dan for `audit` (dated `at`),
    /// writing its audit row in the same transaction. A retry of the same request
    /// changes nothing and returns the first row; the id used for something else is a
    /// [`LedgerError::Conflict`].
    pub async fn set_professional(
        &self,
        player: &PlayerId,
        professional_dan: u8,
        audit: &Audit,
        at: DateTime<Utc>,
    ) -> Result<(ActionRow, bool), LedgerError> {
        let action = Action::SetProfessional {
            player_id: player.clone(),
            professional_dan,
        };
        let request = ActionRequest {
            action: &action,
            reason: &audit.reason,
        };
        self.retrying("set_professional", |_| async {
            let mut tx = self.pool.begin().await?;
            if let Some(row) = audit::claim(&mut tx, audit, &request).await? {
                tx.rollback().await?;
                return Ok((row, true));
            }
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
            let row = audit::write(
                &mut tx,
                audit,
                &action,
                &audit.operator,
                at,
                serde_json::json!({ "professional_dan_before": before }),
            )
            .await?;
            tx.commit().await?;
            Ok((row, false))
        })
        .await
    }
}
