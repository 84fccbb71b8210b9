//! Dead letters: settlements the ledger refused, parked for an operator, and the
//! operator's `TableOperatorService` over them (list, deliver again), which also closes
//! stuck tables through the game service's own closing step ([`CloseTableFn`]).
//!
//! Closes and redeliveries are audited: once the request is checked and there is
//! something to act on, the action is written to the ledger's audit trail
//! (`LedgerService.RecordOperatorAction`, with the service's own token, idempotent by
//! request id) and only then taken. A ledger that cannot record it refuses the action:
//! UNAVAILABLE with a retry hint ([`AUDIT_RETRY_AFTER`]), nothing changed.
//!
//! A refused entry moves, in one atomic step, from the shard's outbox to its dead
//! letters (`…:outbox-dead`, game id → the outbox entry as it was) with the reason and
//! the time beside it (`…:outbox-dead-why`, game id → JSON). Redelivery moves it back
//! into the outbox, where the settler delivers it like any finished game; the ledger
//! settles idempotently by game id, so a game it already has is answered as a replay
//! and never applied twice.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use tonic::{Code, Request, Response, Status};

use super::{OutboxEntry, SHARDS, TableStore};
use crate::auth::{Caller, Role};
use crate::client::ServiceChannel;
use crate::error::{ApiError, invalid};
use gamehub_proto::ledger as lg;
use gamehub_proto::ledger::ledger_service_client::LedgerServiceClient;
use gamehub_proto::operator as pb;

/// Most letters one `ListDeadLetters` returns.
pub const MAX_LIST: usize = 500;
/// Letters returned when the request gives no limit.
pub const DEFAULT_LIST: usize = 100;
/// Most letters read to sort them oldest first; beyond it the listing is a sample
/// (the total is still exact).
const MAX_SCAN: usize = 10_000;
/// Longest game or table id accepted.
const MAX_ID: usize = 64;
/// Longest reason for closing a table or redelivering (the audit trail's bound).
pub const MAX_CLOSE_REASON: usize = gamehub_terms::operators::MAX_REASON_CHARS;
/// The retry hint of an action refused because the ledger could not record it.
pub const AUDIT_RETRY_AFTER: Duration = Duration::from_secs(2);

/// What an operator's close did to a table.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ClosedTable {
    /// It was closed before; nothing changed.
    pub already_closed: bool,
    /// The game in progress that was voided (no settlement), if any.
    pub voided_game_id: Option<String>,
    /// The table's closed reason as its players see it.
    pub closed_reason: String,
}

/// The game service's closing step: closes `table_id` with the reason text given
/// (already "closed by operator NAME: …"), voiding a game in progress.
pub type CloseTableFn = Arc<
    dyn Fn(String, String) -> Pin<Box<dyn Future<Output = Result<ClosedTable, ApiError>> + Send>>
        + Send
        + Sync,
>;

/// Why and when an entry was parked.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
struct Why {
    reason: String,
    at_ms: u64,
}

impl TableStore {
    fn dead_why_key(&self, shard: u32) -> String {
        self.shard_key(shard, "outbox-dead-why")
    }
}

/// Moves `game_id`'s outbox entry (`value`, as stored) of `shard` to the dead letters
/// with `reason`, atomically, and drops its delivery lease.
pub async fn park(
    store: &TableStore,
    shard: u32,
    game_id: &str,
    value: &[u8],
    reason: &str,
) -> Result<(), redis::RedisError> {
    let why = serde_json::to_vec(&Why {
        reason: reason.to_owned(),
        at_ms: store.clock().now_ms(),
    })
    .unwrap_or_default();
    let mut conn = store.redis();
    redis::pipe()
        .atomic()
        .cmd("HSET")
        .arg(store.dead_letter_key(shard))
        .arg(game_id)
        .arg(value)
        .cmd("HSET")
        .arg(store.dead_why_key(shard))
        .arg(game_id)
        .arg(why)
        .cmd("HDEL")
        .arg(store.outbox_key(shard))
        .arg(game_id)
        .cmd("DEL")
        .arg(store.lease_key(shard, game_id))
        .query_async(&mut conn)
        .await
}

/// One parked settlement as stored.
#[derive(Debug, Clone)]
struct Parked {
    shard: u32,
    game_id: String,
    value: Vec<u8>,
}

/// Every dead letter (at most [`MAX_SCAN`]) and the exact total.
async fn scan(store: &TableStore) -> Result<(Vec<Parked>, u64), ApiError> {
    let mut conn = store.redis();
    let mut letters = Vec::new();
    let mut total = 0u64;
    for shard in 0..SHARDS {
        let key = store.dead_letter_key(shard);
        let len: u64 = redis::cmd("HLEN").arg(&key).query_async(&mut conn).await?;
        total += len;
        if len == 0 {
            continue;
        }
        let mut cursor = 0u64;
        loop {
            let (next, pairs): (u64, Vec<(String, Vec<u8>)>) = redis::cmd("HSCAN")
                .arg(&key)
                .arg(cursor)
                .arg("COUNT")
                .arg(100)
                .query_async(&mut conn)
                .await?;
            for (game_id, value) in pairs {
                if letters.len() < MAX_SCAN {
                    letters.push(Parked {
                        shard,
                        game_id,
                        value,
                    });
                }
            }
            cursor = next;
            if cursor == 0 || letters.len() >= MAX_SCAN {
                break;
            }
        }
    }
    Ok((letters, total))
}

/// The dead letters, oldest first, at most `limit`, and how many there are in all.
pub async fn list(
    store: &TableStore,
    limit: usize,
) -> Result<(Vec<pb::DeadLetter>, u64), ApiError> {
    let (parked, total) = scan(store).await?;
    let conn = store.redis();
    let mut letters = Vec::with_capacity(parked.len());
    for chunk in parked.chunks(100) {
        let whys: Vec<Option<Vec<u8>>> = conn
            .query_each(chunk.iter().map(|p| {
                let mut cmd = redis::cmd("HGET");
                cmd.arg(store.dead_why_key(p.shard)).arg(&p.game_id);
                cmd
            }))
            .await?;
        for (p, why) in chunk.iter().zip(whys) {
            let why = why.and_then(|w| serde_json::from_slice::<Why>(&w).ok());
            let entry = serde_json::from_slice::<OutboxEntry>(&p.value).ok();
            letters.push(pb::DeadLetter {
                game_id: p.game_id.clone(),
                table_id: entry
                    .as_ref()
                    .map(|e| e.table_id.clone())
                    .unwrap_or_default(),
                reason: why.as_ref().map(|w| w.reason.clone()).unwrap_or_default(),
                created_at_unix_ms: entry
                    .map_or(0, |e| i64::try_from(e.created_ms).unwrap_or(i64::MAX)),
                dead_at_unix_ms: why.map_or(0, |w| i64::try_from(w.at_ms).unwrap_or(i64::MAX)),
            });
        }
    }
    letters.sort_by(|a, b| {
        (a.created_at_unix_ms, &a.game_id).cmp(&(b.created_at_unix_ms, &b.game_id))
    });
    letters.truncate(limit);
    Ok((letters, total))
}

/// Moves one parked letter back into its shard's outbox, in one atomic step (an entry
/// already pending there is left as it is). False when it was no longer parked
/// (another operator's redelivery took it first; delivering twice would still settle
/// once, the ledger being idempotent by game id).
async fn requeue(store: &TableStore, parked: &Parked) -> Result<bool, ApiError> {
    let mut conn = store.redis();
    let (removed,): (u64,) = redis::pipe()
        .atomic()
        .cmd("HSETNX")
        .arg(store.outbox_key(parked.shard))
        .arg(&parked.game_id)
        .arg(&parked.value)
        .ignore()
        .cmd("HDEL")
        .arg(store.dead_letter_key(parked.shard))
        .arg(&parked.game_id)
        .cmd("HDEL")
        .arg(store.dead_why_key(parked.shard))
        .arg(&parked.game_id)
        .ignore()
        .query_async(&mut conn)
        .await?;
    Ok(removed > 0)
}

/// `game_id`'s dead letter. NOT_FOUND when there is none.
async fn find_parked(store: &TableStore, game_id: &str) -> Result<Parked, ApiError> {
    let values: Vec<Option<Vec<u8>>> = store
        .redis()
        .query_each((0..SHARDS).map(|shard| {
            let mut cmd = redis::cmd("HGET");
            cmd.arg(store.dead_letter_key(shard)).arg(game_id);
            cmd
        }))
        .await?;
    let Some((shard, value)) = (0..SHARDS)
        .zip(values)
        .find_map(|(shard, v)| v.map(|v| (shard, v)))
    else {
        return Err(ApiError::NotFound(format!(
            "no dead letter for game {game_id} in {}",
            store.game()
        )));
    };
    Ok(Parked {
        shard,
        game_id: game_id.to_owned(),
        value,
    })
}

/// Puts `parked` back into the outbox; the game ids moved.
async fn requeue_all(store: &TableStore, parked: &[Parked]) -> Result<Vec<String>, ApiError> {
    let mut moved = Vec::new();
    for p in parked {
        if requeue(store, p).await? {
            moved.push(p.game_id.clone());
        }
    }
    Ok(moved)
}

/// The operator's `TableOperatorService` of one game service.
#[derive(Clone)]
pub struct DeadLetterDesk {
    store: TableStore,
    /// The ledger, called with the service's own token to record each action in the
    /// audit trail before it is taken.
    ledger: LedgerServiceClient<ServiceChannel>,
    closer: Option<CloseTableFn>,
}

impl std::fmt::Debug for DeadLetterDesk {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DeadLetterDesk")
            .field("game", &self.store.game())
            .field("closes_tables", &self.closer.is_some())
            .finish()
    }
}

/// An operator's action about to be taken, as the audit trail records it.
struct Audited {
    request_id: String,
    operator: String,
    reason: String,
}

impl DeadLetterDesk {
    /// The desk over `store`'s dead letters, recording every action through `ledger`
    /// (a client holding the service's token); `closer` closes the service's tables
    /// (None: CloseTable answers UNIMPLEMENTED).
    pub fn new(
        store: TableStore,
        ledger: LedgerServiceClient<ServiceChannel>,
        closer: Option<CloseTableFn>,
    ) -> Self {
        Self {
            store,
            ledger,
            closer,
        }
    }

    /// The gRPC server to add to the game service's router.
    pub fn server(self) -> pb::table_operator_service_server::TableOperatorServiceServer<Self> {
        pb::table_operator_service_server::TableOperatorServiceServer::new(self)
    }

    /// Writes the action to the ledger's audit trail. Refusals that name a field or a
    /// used request id pass on as they are; anything else (the ledger down, slow or
    /// misconfigured) is UNAVAILABLE with a retry hint: the action is not taken.
    async fn record(
        &self,
        audited: &Audited,
        kind: lg::OperatorActionKind,
        table_id: &str,
        game_id: Option<&str>,
    ) -> Result<(), ApiError> {
        let request = lg::RecordOperatorActionRequest {
            request_id: audited.request_id.clone(),
            kind: kind as i32,
            operator: audited.operator.clone(),
            table_id: table_id.to_owned(),
            game_id: game_id.unwrap_or_default().to_owned(),
            all_dead_letters: kind == lg::OperatorActionKind::Redeliver && game_id.is_none(),
            reason: audited.reason.clone(),
        };
        match self.ledger.clone().record_operator_action(request).await {
            Ok(_) => Ok(()),
            Err(status) => match status.code() {
                Code::InvalidArgument => Err(ApiError::InvalidArgument(format!(
                    "audit trail: {}",
                    status.message()
                ))),
                Code::AlreadyExists => Err(ApiError::AlreadyExists(format!(
                    "audit trail: {}",
                    status.message()
                ))),
                code => {
                    crate::metrics::dependency_error("ledger");
                    tracing::warn!(
                        game = self.store.game(),
                        request_id = %audited.request_id,
                        ?code,
                        message = status.message(),
                        "the ledger did not record an operator action; refused"
                    );
                    Err(ApiError::UnavailableFor {
                        message: format!(
                            "the ledger cannot record this action in the audit trail now ({code:?}); nothing was changed; retry in {} ms",
                            AUDIT_RETRY_AFTER.as_millis()
                        ),
                        retry_after: AUDIT_RETRY_AFTER,
                    })
                }
            },
        }
    }
}

/// The operator and the checked audit fields of a request: its reason (required) and
/// request id (a fresh one when empty).
fn audited<T>(
    request: &Request<T>,
    action: &str,
    reason: &str,
    request_id: &str,
) -> Result<Audited, ApiError> {
    let caller = Caller::of(request)?;
    caller.require(&[Role::Operator], action)?;
    let reason = crate::error::required("reason", reason, MAX_CLOSE_REASON)?.to_owned();
    let request_id = if request_id.trim().is_empty() {
        uuid::Uuid::now_v7().to_string()
    } else {
        crate::error::id("request_id", request_id, MAX_ID)?.to_owned()
    };
    Ok(Audited {
        request_id,
        operator: caller.subject.clone(),
        reason,
    })
}

#[tonic::async_trait]
impl pb::table_operator_service_server::TableOperatorService for DeadLetterDesk {
    async fn list_dead_letters(
        &self,
        request: Request<pb::ListDeadLettersRequest>,
    ) -> Result<Response<pb::ListDeadLettersResponse>, Status> {
        Caller::of(&request)?.require(&[Role::Operator], "listing dead letters")?;
        let limit = request.get_ref().limit;
        let limit = match usize::try_from(limit) {
            Err(_) => return Err(invalid("limit", "must not be negative").into()),
            Ok(0) => DEFAULT_LIST,
            Ok(n) => n.min(MAX_LIST),
        };
        let (letters, total) = list(&self.store, limit).await?;
        Ok(Response::new(pb::ListDeadLettersResponse {
            letters,
            total: i64::try_from(total).unwrap_or(i64::MAX),
        }))
    }

    async fn redeliver(
        &self,
        request: Request<pb::RedeliverRequest>,
    ) -> Result<Response<pb::RedeliverResponse>, Status> {
        let m = request.get_ref();
        let audited = audited(
            &request,
            "redelivering settlements",
            &m.reason,
            &m.request_id,
        )?;
        let game_id = m.game_id.trim();
        let kind = lg::OperatorActionKind::Redeliver;
        let game_ids = match (m.all, game_id.is_empty()) {
            (true, false) => {
                return Err(invalid("game_id", "give either game_id or all, not both").into());
            }
            (false, true) => {
                return Err(invalid("game_id", "required unless all is set").into());
            }
            (true, true) => {
                let (parked, _) = scan(&self.store).await?;
                if parked.is_empty() {
                    // Nothing to act on: nothing to record.
                    Vec::new()
                } else {
                    self.record(&audited, kind, "", None).await?;
                    requeue_all(&self.store, &parked).await?
                }
            }
            (false, false) => {
                let game_id = crate::error::id("game_id", game_id, MAX_ID)?;
                let parked = find_parked(&self.store, game_id).await?;
                self.record(&audited, kind, "", Some(game_id)).await?;
                if requeue(&self.store, &parked).await? {
                    vec![game_id.to_owned()]
                } else {
                    Vec::new()
                }
            }
        };
        if !game_ids.is_empty() {
            tracing::info!(
                game = self.store.game(),
                ?game_ids,
                operator = %audited.operator,
                request_id = %audited.request_id,
                "dead letters put back into the outbox by an operator"
            );
        }
        Ok(Response::new(pb::RedeliverResponse { game_ids }))
    }

    async fn close_table(
        &self,
        request: Request<pb::CloseTableRequest>,
    ) -> Result<Response<pb::CloseTableResponse>, Status> {
        let m = request.get_ref();
        let audited = audited(&request, "closing a table", &m.reason, &m.request_id)?;
        let table_id = crate::error::id("table_id", m.table_id.trim(), MAX_ID)?.to_owned();
        let Some(closer) = &self.closer else {
            return Err(Status::unimplemented(format!(
                "closing {} tables is not implemented",
                self.store.game()
            )));
        };
        // A table this service does not hold is NOT_FOUND before anything is recorded
        // (the operator's desk asks every game service).
        if self.store.load_raw(&table_id).await?.is_none() {
            return Err(
                ApiError::NotFound(format!("no {} table {table_id}", self.store.game())).into(),
            );
        }
        self.record(
            &audited,
            lg::OperatorActionKind::CloseTable,
            &table_id,
            None,
        )
        .await?;
        let text = format!(
            "closed by operator {}: {}",
            audited.operator, audited.reason
        );
        let closed = closer(table_id.clone(), text).await?;
        tracing::warn!(
            game = self.store.game(),
            table_id,
            operator = %audited.operator,
            reason = %audited.reason,
            request_id = %audited.request_id,
            voided = closed.voided_game_id.as_deref().unwrap_or(""),
            already_closed = closed.already_closed,
            "table closed by an operator"
        );
        Ok(Response::new(pb::CloseTableResponse {
            already_closed: closed.already_closed,
            voided_game_id: closed.voided_game_id.unwrap_or_default(),
            closed_reason: closed.closed_reason,
        }))
    }
}
