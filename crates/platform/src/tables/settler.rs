//! Delivering finished games to the ledger.
//!
//! The step that ends a game writes its settlement into the shard's outbox (see
//! [`super::OutboxEntry`]). Settlers in every replica scan the outboxes, take a short
//! lease on an entry so replicas do not send it twice at once, call
//! `Ledger.SettleGame` (idempotent on the game id), and delete the entry once the
//! ledger acknowledges it. A ledger that is down only delays delivery: entries wait and
//! are retried with exponential backoff, so each game is settled exactly once however
//! often it is sent. A request the ledger refuses as invalid is moved to the shard's
//! dead letters (`…:outbox-dead`) for an operator, with its reason, an error log and a
//! metric; operators list and redeliver them through [`super::dead_letters`].

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures::StreamExt;
use gamehub_proto::ledger::SettleGameResponse;
use gamehub_proto::ledger::ledger_service_client::LedgerServiceClient;
use tracing::Instrument;

use super::{OutboxEntry, TableStore, shard_of};
use crate::client::ServiceChannel;
use crate::metrics::metrics;
use crate::server::ShutdownListener;

/// Called after the ledger acknowledged a game (e.g. to tell the table's watchers).
pub type OnSettled = Arc<
    dyn Fn(OutboxEntry, SettleGameResponse) -> Pin<Box<dyn Future<Output = ()> + Send>>
        + Send
        + Sync,
>;

/// How the settler runs.
#[derive(Debug, Clone)]
pub struct SettlerConfig {
    /// Time between scans of the outboxes.
    pub interval: Duration,
    /// Entries read per shard per scan.
    pub batch_per_shard: usize,
    /// First retry delay after a failed delivery; doubles up to `max_backoff`.
    pub min_backoff: Duration,
    /// Longest retry delay.
    pub max_backoff: Duration,
    /// How long a replica holds an entry while delivering it.
    pub lease: Duration,
    /// Deliveries in flight at once.
    pub concurrency: usize,
}

impl Default for SettlerConfig {
    fn default() -> Self {
        Self {
            interval: Duration::from_millis(200),
            batch_per_shard: 100,
            min_backoff: Duration::from_millis(250),
            max_backoff: Duration::from_secs(30),
            lease: Duration::from_secs(15),
            concurrency: 32,
        }
    }
}

enum Delivery {
    Acknowledged(Box<SettleGameResponse>),
    Retry(String),
    Refused(String),
}

/// Runs the settler until shutdown.
pub async fn run_settler(
    store: TableStore,
    ledger: LedgerServiceClient<ServiceChannel>,
    config: SettlerConfig,
    on_settled: Option<OnSettled>,
    mut shutdown: ShutdownListener,
) {
    let replica = uuid::Uuid::new_v4().to_string();
    // Per-process retry schedule: game id → (next attempt, current backoff).
    let mut backoff: HashMap<String, (Instant, Duration)> = HashMap::new();
    let mut ticker = tokio::time::interval(config.interval);
    ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            _ = ticker.tick() => {},
            () = shutdown.wait() => return,
        }
        let entries = match store.pending_settlements(config.batch_per_shard).await {
            Ok(entries) => entries,
            Err(e) => {
                tracing::warn!(game = store.game(), error = %e, "settlement scan failed");
                continue;
            }
        };
        let oldest = entries.iter().map(|e| e.created_ms).min();
        metrics()
            .settlement_lag_seconds
            .with_label_values(&[store.game()])
            .set(oldest.map_or(0, |t| {
                i64::try_from(store.clock().elapsed_ms(t) / 1000).unwrap_or(i64::MAX)
            }));
        let pending: std::collections::HashSet<&str> =
            entries.iter().map(|e| e.game_id.as_str()).collect();
        backoff.retain(|game_id, _| pending.contains(game_id.as_str()));
        let due: Vec<OutboxEntry> = entries
            .into_iter()
            .filter(|entry| {
                backoff
                    .get(&entry.game_id)
                    .is_none_or(|(next, _)| Instant::now() >= *next)
            })
            .collect();
        // Deliveries run concurrently (bounded): one at a time would cap settlement at
        // one ledger round trip each, far below what the ledger takes. None starts
        // after shutdown: with the ledger down, the rest of the batch would otherwise
        // keep shutdown waiting for one call timeout per wave of `concurrency`.
        let stopping = shutdown.clone();
        let mut results = futures::stream::iter(due)
            .take_while(move |_| std::future::ready(!stopping.is_triggered()))
            .map(|entry| {
                let store = store.clone();
                let ledger = ledger.clone();
                let replica = replica.clone();
                let on_settled = on_settled.clone();
                let lease = config.lease;
                async move {
                    let game_id = entry.game_id.clone();
                    let settled =
                        settle_one(&store, ledger, entry, &replica, lease, on_settled).await;
                    (game_id, settled)
                }
            })
            .buffer_unordered(config.concurrency.max(1));
        while let Some((game_id, settled)) = results.next().await {
            match settled {
                Settled::Skipped => {}
                Settled::Done => {
                    backoff.remove(&game_id);
                }
                Settled::Retry(why) => {
                    let previous = backoff.get(&game_id).map_or(Duration::ZERO, |(_, d)| *d);
                    let delay = if previous.is_zero() {
                        config.min_backoff
                    } else {
                        (previous * 2).min(config.max_backoff)
                    };
                    backoff.insert(game_id.clone(), (Instant::now() + delay, delay));
                    tracing::warn!(game_id, retry_in = ?delay, why, "settlement retry scheduled");
                }
            }
        }
        if shutdown.is_triggered() {
            return;
        }
    }
}

/// What became of one outbox entry.
enum Settled {
    /// Leased by another replica, or already delivered.
    Skipped,
    /// Acknowledged, or refused and moved to the dead letters.
    Done,
    /// Not delivered; retry after a backoff.
    Retry(String),
}

/// Leases one entry, delivers it and records the result.
async fn settle_one(
    store: &TableStore,
    mut ledger: LedgerServiceClient<ServiceChannel>,
    entry: OutboxEntry,
    replica: &str,
    lease: Duration,
    on_settled: Option<OnSettled>,
) -> Settled {
    match take_lease(store, &entry, replica, lease).await {
        Ok(true) => {}
        Ok(false) => return Settled::Skipped,
        Err(e) => {
            tracing::warn!(error = %e, "settlement lease failed");
            return Settled::Skipped;
        }
    }
    // Another replica may have delivered it between our scan and our lease.
    match still_pending(store, &entry).await {
        Ok(true) => {}
        Ok(false) => {
            release_lease(store, &entry).await;
            return Settled::Skipped;
        }
        Err(e) => {
            tracing::warn!(error = %e, "settlement outbox check failed");
            release_lease(store, &entry).await;
            return Settled::Skipped;
        }
    }
    match deliver(store, &mut ledger, &entry).await {
        Delivery::Acknowledged(response) => {
            if let Err(e) = acknowledge(store, &entry).await {
                // The ledger has it; the next scan re-sends and gets a replay.
                tracing::warn!(game_id = %entry.game_id, error = %e, "could not clear a settled outbox entry");
            }
            metrics()
                .settlements
                .with_label_values(&[store.game(), "ok"])
                .inc();
            if let Some(callback) = &on_settled {
                callback(entry, *response).await;
            }
            Settled::Done
        }
        Delivery::Retry(why) => {
            release_lease(store, &entry).await;
            metrics()
                .settlements
                .with_label_values(&[store.game(), "retry"])
                .inc();
            Settled::Retry(why)
        }
        Delivery::Refused(why) => {
            metrics()
                .settlements
                .with_label_values(&[store.game(), "dead"])
                .inc();
            tracing::error!(game_id = %entry.game_id, why, "the ledger refused a settlement; moved to dead letters");
            if let Err(e) = dead_letter(store, &entry, &why).await {
                tracing::error!(game_id = %entry.game_id, error = %e, "could not move a refused settlement");
            }
            Settled::Done
        }
    }
}

async fn deliver(
    store: &TableStore,
    ledger: &mut LedgerServiceClient<ServiceChannel>,
    entry: &OutboxEntry,
) -> Delivery {
    let request = match entry.request() {
        Ok(request) => request,
        Err(e) => return Delivery::Refused(format!("undecodable request: {e}")),
    };
    let span = tracing::info_span!("settle", game = store.game(), game_id = %entry.game_id, otel.kind = "client");
    crate::telemetry::set_parent_from_traceparent(&span, &entry.traceparent);
    async move {
        match ledger.settle_game(request).await {
            Ok(response) => Delivery::Acknowledged(Box::new(response.into_inner())),
            Err(status) => {
                use tonic::Code;
                match status.code() {
                    Code::InvalidArgument | Code::AlreadyExists => {
                        Delivery::Refused(format!("{:?}: {}", status.code(), status.message()))
                    }
                    _ => {
                        crate::metrics::dependency_error("ledger");
                        Delivery::Retry(format!("{:?}: {}", status.code(), status.message()))
                    }
                }
            }
        }
    }
    .instrument(span)
    .await
}

async fn take_lease(
    store: &TableStore,
    entry: &OutboxEntry,
    replica: &str,
    lease: Duration,
) -> Result<bool, redis::RedisError> {
    let mut conn = store.redis();
    let set: Option<String> = redis::cmd("SET")
        .arg(store.lease_key(shard_of(&entry.table_id), &entry.game_id))
        .arg(replica)
        .arg("NX")
        .arg("PX")
        .arg(u64::try_from(lease.as_millis()).unwrap_or(u64::MAX))
        .query_async(&mut conn)
        .await?;
    Ok(set.is_some())
}

async fn still_pending(store: &TableStore, entry: &OutboxEntry) -> Result<bool, redis::RedisError> {
    let mut conn = store.redis();
    redis::cmd("HEXISTS")
        .arg(store.outbox_key(shard_of(&entry.table_id)))
        .arg(&entry.game_id)
        .query_async(&mut conn)
        .await
}

async fn release_lease(store: &TableStore, entry: &OutboxEntry) {
    let mut conn = store.redis();
    let _: Result<(), _> = redis::cmd("DEL")
        .arg(store.lease_key(shard_of(&entry.table_id), &entry.game_id))
        .query_async(&mut conn)
        .await;
}

async fn acknowledge(store: &TableStore, entry: &OutboxEntry) -> Result<(), redis::RedisError> {
    let shard = shard_of(&entry.table_id);
    let mut conn = store.redis();
    redis::pipe()
        .atomic()
        .cmd("HDEL")
        .arg(store.outbox_key(shard))
        .arg(&entry.game_id)
        .cmd("DEL")
        .arg(store.lease_key(shard, &entry.game_id))
        .query_async(&mut conn)
        .await
}

async fn dead_letter(
    store: &TableStore,
    entry: &OutboxEntry,
    why: &str,
) -> Result<(), redis::RedisError> {
    let value = serde_json::to_vec(entry).unwrap_or_default();
    super::dead_letters::park(
        store,
        shard_of(&entry.table_id),
        &entry.game_id,
        &value,
        why,
    )
    .await
}
