//! Tournament money: entry fees into a tournament's pool (the account
//! `#tournament:<id>`, kind `tournament`), refunds out of it and prizes paying it out.
//!
//! Each call is one transaction, retried as a whole like the others
//! ([`Repository::retrying`]): the pool's account is made if missing, the players' rows
//! too, then the pool and the players are locked in account-id order (`'#'` sorts before
//! any player id, so the pool first, as grants lock `#issuance` and settlements
//! `#house`), so it queues behind settlements and grants of the same players instead of
//! deadlocking with them; every call of one tournament queues on its pool. Under those
//! locks: the request id is looked up in `tournament_requests` (same payload: the stored
//! answer; another: [`LedgerError::Conflict`]), the rule is checked
//! ([`crate::domain::tournament`]), and one transfer with its balanced entries, a
//! history row per player and the request's row with its encoded answer are written. A
//! refused call writes nothing (its transaction is rolled back).

use chrono::NaiveDate;
use sqlx::{Postgres, Row, Transaction};
use uuid::Uuid;

use super::{Repository, ensure_player};
use crate::domain::tournament::{
    self, FeeMove, FeeRequest, PrizesRequest, TournamentId, TournamentKind,
};
use crate::domain::{HistoryKind, PlayerId};
use crate::error::LedgerError;

/// What an entry fee or a refund did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FeeMoved {
    /// The transfer that moved the silver.
    pub transfer_id: Uuid,
    /// The player's balance after it.
    pub balance_after_silver: i64,
    /// The pool's balance after it.
    pub pool_after_silver: i64,
}

/// One prize paid.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PrizePaid {
    /// Who.
    pub player_id: PlayerId,
    /// How much.
    pub amount_silver: i64,
    /// The player's balance right after.
    pub balance_after_silver: i64,
}

/// What paying the prizes did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PrizesPaid {
    /// The transfer; `None` when the pool was empty and no prize asked (nothing moved).
    pub transfer_id: Option<Uuid>,
    /// The prizes in the request's order.
    pub paid: Vec<PrizePaid>,
}

/// A tournament call's answer as stored (encoded by the API), and whether it was stored
/// by an earlier call with this request id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TournamentAnswer {
    /// The encoded response.
    pub response: Vec<u8>,
    /// True when an earlier call with the same request id and payload stored it.
    pub replayed: bool,
}

/// The request's row in `tournament_requests`.
struct RequestRow<'a> {
    request_id: &'a str,
    tournament: &'a TournamentId,
    kind: TournamentKind,
    player: Option<&'a PlayerId>,
    amount_silver: i64,
    transfer_id: Option<Uuid>,
    sha256: &'a [u8; 32],
    response: &'a [u8],
}

impl Repository {
    /// Holds (`FeeMove::Hold`: player → pool) or refunds (`FeeMove::Refund`: pool →
    /// player) a tournament entry fee on `today`, storing `encode` of what it did as the
    /// answer; or returns the answer stored under the request id. Refused, moving
    /// nothing: a fee above the balance ([`LedgerError::NotEligible`]), a refund above
    /// what the player paid in net of refunds or above the pool
    /// ([`LedgerError::Precondition`]), the id used for another payload
    /// ([`LedgerError::Conflict`]).
    pub async fn move_entry_fee(
        &self,
        request: &FeeRequest,
        today: NaiveDate,
        encode: impl Fn(&FeeMoved) -> Vec<u8>,
    ) -> Result<TournamentAnswer, LedgerError> {
        let sha256 = request.sha256();
        let what = match request.direction {
            FeeMove::Hold => "hold_entry_fee",
            FeeMove::Refund => "refund_entry_fee",
        };
        self.retrying(what, |_| {
            self.move_entry_fee_once(request, &sha256, today, &encode)
        })
        .await
    }

    async fn move_entry_fee_once(
        &self,
        request: &FeeRequest,
        sha256: &[u8; 32],
        today: NaiveDate,
        encode: &impl Fn(&FeeMoved) -> Vec<u8>,
    ) -> Result<TournamentAnswer, LedgerError> {
        let pool = request.tournament_id.pool_account();
        let player = request.player_id.as_str();
        let mut tx = self.pool.begin().await?;
        let balances = lock_pool_and_players(&mut tx, &pool, &[player]).await?;
        if let Some(response) = earlier(&mut tx, &request.request_id, sha256).await? {
            tx.rollback().await?;
            return Ok(TournamentAnswer {
                response,
                replayed: true,
            });
        }
        let pool_before = balance_of(&balances, &pool)?;
        let player_before = balance_of(&balances, player)?;
        let amount = request.amount_silver;
        let kind = request.direction.kind();
        let (player_delta, pool_delta) = match request.direction {
            FeeMove::Hold => {
                tournament::check_fee(player_before, amount)?;
                (-amount, amount)
            }
            FeeMove::Refund => {
                let refundable: i64 = sqlx::query_scalar(
                    "SELECT coalesce(sum(CASE kind WHEN 'entry_fee' THEN amount_silver \
                                                 ELSE -amount_silver END), 0)::bigint \
                     FROM tournament_requests \
                     WHERE tournament_id = $1 AND player_id = $2 \
                       AND kind IN ('entry_fee', 'refund')",
                )
                .bind(request.tournament_id.as_str())
                .bind(player)
                .fetch_one(&mut *tx)
                .await?;
                tournament::check_refund(
                    &request.tournament_id,
                    &request.player_id,
                    amount,
                    refundable,
                    pool_before,
                )?;
                (amount, -amount)
            }
        };

        let transfer_id = Uuid::now_v7();
        let after = move_silver(
            &mut tx,
            transfer_id,
            kind,
            today,
            &[
                (pool.clone(), pool_delta),
                (player.to_owned(), player_delta),
            ],
        )
        .await?;
        let moved = FeeMoved {
            transfer_id,
            balance_after_silver: balance_of(&after, player)?,
            pool_after_silver: balance_of(&after, &pool)?,
        };
        if moved.balance_after_silver != player_before + player_delta
            || moved.pool_after_silver != pool_before + pool_delta
        {
            return Err(LedgerError::Corrupt(format!(
                "{} {}: the locked balances moved under the lock",
                kind.code(),
                request.request_id
            )));
        }
        write_history(
            &mut tx,
            &[(
                player,
                player_before,
                moved.balance_after_silver,
                kind.history_reason(&request.reason),
            )],
        )
        .await?;
        let response = encode(&moved);
        record(
            &mut tx,
            &RequestRow {
                request_id: &request.request_id,
                tournament: &request.tournament_id,
                kind,
                player: Some(&request.player_id),
                amount_silver: amount,
                transfer_id: Some(transfer_id),
                sha256,
                response: &response,
            },
        )
        .await?;
        tx.commit().await?;
        Ok(TournamentAnswer {
            response,
            replayed: false,
        })
    }

    /// Pays a tournament's prizes out of its pool on `today`, in one transfer, storing
    /// `encode` of what it did as the answer; or returns the answer stored under the
    /// request id. Refused, moving nothing: prizes not summing to exactly the pool
    /// ([`LedgerError::Precondition`]), the id used for another payload
    /// ([`LedgerError::Conflict`]). An empty pool and no prizes: done, with no transfer.
    pub async fn pay_prizes(
        &self,
        request: &PrizesRequest,
        today: NaiveDate,
        encode: impl Fn(&PrizesPaid) -> Vec<u8>,
    ) -> Result<TournamentAnswer, LedgerError> {
        let sha256 = request.sha256();
        self.retrying("pay_prizes", |_| {
            self.pay_prizes_once(request, &sha256, today, &encode)
        })
        .await
    }

    async fn pay_prizes_once(
        &self,
        request: &PrizesRequest,
        sha256: &[u8; 32],
        today: NaiveDate,
        encode: &impl Fn(&PrizesPaid) -> Vec<u8>,
    ) -> Result<TournamentAnswer, LedgerError> {
        let pool = request.tournament_id.pool_account();
        let players: Vec<&str> = request
            .prizes
            .iter()
            .map(|p| p.player_id.as_str())
            .collect();
        let mut tx = self.pool.begin().await?;
        let balances = lock_pool_and_players(&mut tx, &pool, &players).await?;
        if let Some(response) = earlier(&mut tx, &request.request_id, sha256).await? {
            tx.rollback().await?;
            return Ok(TournamentAnswer {
                response,
                replayed: true,
            });
        }
        let pool_before = balance_of(&balances, &pool)?;
        let total = request.total_silver();
        tournament::check_prizes(&request.tournament_id, total, pool_before)?;

        let kind = TournamentKind::Prizes;
        let paid = if request.prizes.is_empty() {
            PrizesPaid {
                transfer_id: None,
                paid: Vec::new(),
            }
        } else {
            let transfer_id = Uuid::now_v7();
            let mut moves = vec![(pool.clone(), -total)];
            moves.extend(
                request
                    .prizes
                    .iter()
                    .map(|p| (p.player_id.to_string(), p.amount_silver)),
            );
            let after = move_silver(&mut tx, transfer_id, kind, today, &moves).await?;
            let mut paid = Vec::with_capacity(request.prizes.len());
            let mut history = Vec::with_capacity(request.prizes.len());
            for prize in &request.prizes {
                let id = prize.player_id.as_str();
                let before = balance_of(&balances, id)?;
                let after = balance_of(&after, id)?;
                if after != before + prize.amount_silver {
                    return Err(LedgerError::Corrupt(format!(
                        "prizes {}: {id}'s locked balance moved under the lock",
                        request.request_id
                    )));
                }
                history.push((id, before, after, kind.history_reason(&request.reason)));
                paid.push(PrizePaid {
                    player_id: prize.player_id.clone(),
                    amount_silver: prize.amount_silver,
                    balance_after_silver: after,
                });
            }
            if balance_of(&after, &pool)? != 0 {
                return Err(LedgerError::Corrupt(format!(
                    "prizes {}: the pool did not end empty",
                    request.request_id
                )));
            }
            write_history(&mut tx, &history).await?;
            PrizesPaid {
                transfer_id: Some(transfer_id),
                paid,
            }
        };
        let response = encode(&paid);
        record(
            &mut tx,
            &RequestRow {
                request_id: &request.request_id,
                tournament: &request.tournament_id,
                kind,
                player: None,
                amount_silver: total,
                transfer_id: paid.transfer_id,
                sha256,
                response: &response,
            },
        )
        .await?;
        tx.commit().await?;
        Ok(TournamentAnswer {
            response,
            replayed: false,
        })
    }
}

/// Makes the pool's account and the players' rows if missing (in account-id order: the
/// pool, then the players sorted), then locks them all in account-id order and returns
/// their balances.
async fn lock_pool_and_players(
    tx: &mut Transaction<'_, Postgres>,
    pool: &str,
    players: &[&str],
) -> Result<Vec<(String, i64)>, LedgerError> {
    sqlx::query(
        "INSERT INTO accounts (account_id, kind) VALUES ($1, 'tournament') ON CONFLICT DO NOTHING",
    )
    .bind(pool)
    .execute(&mut **tx)
    .await?;
    let mut sorted = players.to_vec();
    sorted.sort_unstable();
    for player in &sorted {
        ensure_player(tx, player).await?;
    }
    let mut ids: Vec<&str> = Vec::with_capacity(sorted.len() + 1);
    ids.push(pool);
    ids.extend(sorted);
    let locked: Vec<(String, i64)> = sqlx::query_as(
        "SELECT account_id::text, balance_silver FROM accounts WHERE account_id = ANY ($1) \
         ORDER BY account_id FOR UPDATE",
    )
    .bind(&ids)
    .fetch_all(&mut **tx)
    .await?;
    if locked.len() != ids.len() {
        return Err(LedgerError::Corrupt(format!(
            "locked {} accounts, expected {}",
            locked.len(),
            ids.len()
        )));
    }
    Ok(locked)
}

fn balance_of(balances: &[(String, i64)], account: &str) -> Result<i64, LedgerError> {
    balances
        .iter()
        .find(|(id, _)| id == account)
        .map(|(_, balance)| *balance)
        .ok_or_else(|| LedgerError::Corrupt(format!("no balance read for {account}")))
}

/// The answer stored under `request_id` when its payload is this one; a
/// [`LedgerError::Conflict`] when it is another's.
async fn earlier(
    tx: &mut Transaction<'_, Postgres>,
    request_id: &str,
    sha256: &[u8; 32],
) -> Result<Option<Vec<u8>>, LedgerError> {
    let Some(row) = sqlx::query(
        "SELECT request_sha256, response, kind, tournament_id::text AS tournament_id \
         FROM tournament_requests WHERE request_id = $1",
    )
    .bind(request_id)
    .fetch_optional(&mut **tx)
    .await?
    else {
        return Ok(None);
    };
    let stored: Vec<u8> = row.try_get("request_sha256")?;
    if stored.as_slice() != sha256.as_slice() {
        let kind: String = row.try_get("kind")?;
        let tournament: String = row.try_get("tournament_id")?;
        return Err(LedgerError::Conflict(format!(
            "request_id {request_id} was already used for a different request ({kind} of \
             tournament {tournament}); a retry must repeat the request exactly, a new request \
             needs a fresh id"
        )));
    }
    Ok(Some(row.try_get("response")?))
}

/// One transfer of `kind` moving `moves` (account, signed amount; summing to zero, each
/// account once), with its entries; returns each account's balance after it.
async fn move_silver(
    tx: &mut Transaction<'_, Postgres>,
    transfer_id: Uuid,
    kind: TournamentKind,
    today: NaiveDate,
    moves: &[(String, i64)],
) -> Result<Vec<(String, i64)>, LedgerError> {
    sqlx::query("INSERT INTO transfers (transfer_id, kind, cap_day) VALUES ($1, $2, $3)")
        .bind(transfer_id)
        .bind(kind.code())
        .bind(today)
        .execute(&mut **tx)
        .await?;
    let (accounts, deltas): (Vec<&str>, Vec<i64>) = moves
        .iter()
        .map(|(id, delta)| (id.as_str(), *delta))
        .unzip();
    let after: Vec<(String, i64)> = sqlx::query_as(
        "WITH moves AS (SELECT * FROM unnest($2::text[], $3::bigint[]) AS m(account_id, delta)), \
         moved AS ( \
             UPDATE accounts a SET balance_silver = a.balance_silver + moves.delta \
             FROM moves WHERE a.account_id = moves.account_id AND a.account_id = ANY ($2) \
             RETURNING a.account_id, moves.delta, a.balance_silver) \
         INSERT INTO entries (transfer_id, account_id, amount_silver, balance_after_silver) \
         SELECT $1, account_id, delta, balance_silver FROM moved \
         RETURNING account_id::text, balance_after_silver",
    )
    .bind(transfer_id)
    .bind(&accounts)
    .bind(&deltas)
    .fetch_all(&mut **tx)
    .await?;
    if after.len() != moves.len() {
        return Err(LedgerError::Corrupt(format!(
            "{} transfer {transfer_id} moved {} accounts, expected {}",
            kind.code(),
            after.len(),
            moves.len()
        )));
    }
    Ok(after)
}

/// Silver history rows (player, before, after, reason), in the order given.
async fn write_history(
    tx: &mut Transaction<'_, Postgres>,
    rows: &[(&str, i64, i64, String)],
) -> Result<(), LedgerError> {
    let players: Vec<&str> = rows.iter().map(|r| r.0).collect();
    let before: Vec<i64> = rows.iter().map(|r| r.1).collect();
    let after: Vec<i64> = rows.iter().map(|r| r.2).collect();
    let reasons: Vec<&str> = rows.iter().map(|r| r.3.as_str()).collect();
    sqlx::query(
        "INSERT INTO history (player_id, kind, before_value, after_value, reason) \
         SELECT h.player_id, $1, h.before_value, h.after_value, h.reason \
         FROM unnest($2::text[], $3::bigint[], $4::bigint[], $5::text[]) \
              WITH ORDINALITY AS h(player_id, before_value, after_value, reason, n) \
         ORDER BY h.n",
    )
    .bind(HistoryKind::Silver.code())
    .bind(&players)
    .bind(&before)
    .bind(&after)
    .bind(&reasons)
    .execute(&mut **tx)
    .await?;
    Ok(())
}

/// The request's row: its idempotency key, what it did and its answer.
async fn record(
    tx: &mut Transaction<'_, Postgres>,
    row: &RequestRow<'_>,
) -> Result<(), LedgerError> {
    sqlx::query(
        "INSERT INTO tournament_requests (request_id, tournament_id, kind, player_id, \
             amount_silver, transfer_id, request_sha256, response) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
    )
    .bind(row.request_id)
    .bind(row.tournament.as_str())
    .bind(row.kind.code())
    .bind(row.player.map(PlayerId::as_str))
    .bind(row.amount_silver)
    .bind(row.transfer_id)
    .bind(row.sha256.as_slice())
    .bind(row.response)
    .execute(&mut **tx)
    .await?;
    Ok(())
}
