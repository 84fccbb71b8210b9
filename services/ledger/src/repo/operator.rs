//! Operators' writes: grants of silver (the only way silver enters) and professional
//! dans, each audited and retried as a whole transaction.

use chrono::NaiveDate;
use sqlx::Row;
use uuid::Uuid;

use super::{Repository, ensure_player};
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
}
