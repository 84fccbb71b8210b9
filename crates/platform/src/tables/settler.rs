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
//!
//! ## Durable endings only
//! Money must never be ahead of the table: an entry leaves Redis only once the step
//! that wrote it is on disk, so no Redis crash can take the table back to before an
//! ending the ledger has paid. Redis 7.0 has no `WAITAOF`; the settler derives a time
//! gate from Redis's own configuration instead ([`Durability`], read at start and
//! every minute): with `appendfsync always` a step is on disk when it is acknowledged;
//! with `everysec` Redis fsyncs the AOF once a second, so an entry is delivered only
//! once it has been *seen* in the outbox for 1 s plus a margin (seen, not stamped: a
//! step written late after its stamp still waits its full second). With
//! `appendfsync no` or without an AOF there is no bound to wait for: a warning, and
//! delivery at once ([`Durability::Auto`]) or none at all ([`Durability::Strict`]).
//! Where replicas are configured, delivery also waits (`WAIT`) until that many replicas
//! have the step, so a failover cannot lose it either.
//!
//! Should the ledger still answer that a game was settled before with a different result
//! (ALREADY_EXISTS with its first answer attached), the ledger's word stands: the entry
//! is cleared, the table is told to adopt what the ledger paid (its settled event says
//! so), and the case is counted (`gamehub_settlements_total{result="adopted"}`) and
//! logged with both results. Nothing is parked.

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
use crate::error::ApiError;
use crate::metrics::metrics;
use crate::server::ShutdownListener;

/// What the ledger answered for a delivered game.
#[derive(Debug, Clone)]
pub struct Acknowledgement {
    /// What the ledger did; for an adopted game, what it did the first time.
    pub response: SettleGameResponse,
    /// The ledger had settled this game before with a different result: its first
    /// answer stands and the table adopts it (and says so).
    pub adopted: bool,
}

/// Called after the ledger acknowledged a game, before its outbox entry is cleared (to
/// note the settlement at the table and tell its watchers). An UNAVAILABLE error (Redis
/// is down) keeps the entry, so the note is made on the next delivery (a replay at the
/// ledger); any other error is logged and the entry cleared.
pub type OnSettled = Arc<
    dyn Fn(
            OutboxEntry,
            Acknowledgement,
        ) -> Pin<Box<dyn Future<Output = Result<(), ApiError>> + Send>>
        + Send
        + Sync,
>;

/// When a finished game may leave Redis for the ledger (see the module documentation).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Durability {
    /// From Redis's configuration: `appendfsync always` at once; `everysec` once the
    /// entry has been seen for 1 s + `margin`; `appendfsync no` or no AOF: a warning,
    /// and at once (nothing bounds the loss).
    Auto {
        /// Added to the fsync interval (covers a slow fsync).
        margin: Duration,
    },
    /// Like [`Durability::Auto`], but with `appendfsync no` or no AOF nothing is
    /// delivered (an error log every minute; the backlog grows) until Redis is fixed.
    Strict {
        /// Added to the fsync interval.
        margin: Duration,
    },
    /// At once, whatever Redis does: the operator accepts that a Redis crash may take a
    /// table back to before an ending the ledger has paid.
    Off,
}

impl Default for Durability {
    fn default() -> Self {
        Self::Auto {
            margin: Duration::from_secs(1),
        }
    }
}

/// The gate in force, as derived from Redis's configuration.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Gate {
    /// Deliver entries seen at least this long ago.
    After(Duration),
    /// Deliver at once: Redis's persistence bounds nothing (why), said in a warning.
    Unbounded(String),
    /// Deliver nothing (why).
    Hold(String),
}

/// How often Redis's persistence configuration is read again.
const GATE_REFRESH: Duration = Duration::from_secs(60);

/// Reads `appendonly` and `appendfsync` and derives the gate.
async fn gate_from_redis(store: &TableStore, durability: Durability) -> Result<Gate, ApiError> {
    let (margin, strict) = match durability {
        Durability::Off => return Ok(Gate::After(Duration::ZERO)),
        Durability::Auto { margin } => (margin, false),
        Durability::Strict { margin } => (margin, true),
    };
    let mut conn = store.redis();
    // On a cluster every master answers: the weakest of them sets the gate.
    let reply = async {
        let appendonly = conn.config_get("appendonly").await?;
        let appendfsync = conn.config_get("appendfsync").await?;
        Ok::<_, redis::RedisError>((appendonly, appendfsync))
    }
    .await;
    let (appendonly, appendfsync) = match reply {
        Ok(settings) => settings,
        Err(e) if crate::error::redis_transient(&e).is_some() => return Err(e.into()),
        Err(e) => {
            // CONFIG renamed or forbidden (managed Redis): assume the usual everysec.
            tracing::warn!(error = %e, "cannot read Redis's persistence configuration; assuming appendfsync everysec");
            return Ok(Gate::After(Duration::from_secs(1) + margin));
        }
    };
    let gates = appendonly.iter().enumerate().map(|(i, a)| {
        let f = appendfsync.get(i).map_or("", String::as_str);
        gate_for(a, f, margin, strict)
    });
    Ok(weakest(gates).unwrap_or(Gate::After(Duration::from_secs(1) + margin)))
}

/// The gate that holds for every server: a hold over anything, then an unbounded
/// delivery, then the longest wait.
fn weakest(gates: impl Iterator<Item = Gate>) -> Option<Gate> {
    let rank = |gate: &Gate| match gate {
        Gate::After(wait) => (0, *wait),
        Gate::Unbounded(_) => (1, Duration::ZERO),
        Gate::Hold(_) => (2, Duration::ZERO),
    };
    gates.max_by_key(rank)
}

/// Says which gate is in force (when it changes).
fn log_gate(game: &str, gate: &Gate, replicas: u32) {
    match gate {
        Gate::After(after) => tracing::info!(
            game,
            ?after,
            replicas,
            "settlements leave Redis once their ending is durable"
        ),
        Gate::Unbounded(why) => tracing::warn!(
            game,
            why,
            "settlements leave Redis at once, but a Redis crash may lose any ending, so a settlement may get ahead of its table (GAMEHUB_SETTLE_DURABILITY=strict holds them instead)"
        ),
        Gate::Hold(why) => tracing::error!(
            game,
            why,
            "settlements held: GAMEHUB_SETTLE_DURABILITY is strict and Redis persistence bounds nothing"
        ),
    }
}

/// The gate for a Redis persistence configuration.
fn gate_for(appendonly: &str, appendfsync: &str, margin: Duration, strict: bool) -> Gate {
    let unbounded = |why: String| {
        if strict {
            Gate::Hold(why)
        } else {
            Gate::Unbounded(why)
        }
    };
    if !appendonly.eq_ignore_ascii_case("yes") {
        return unbounded(format!(
            "Redis has no append-only file (appendonly {appendonly})"
        ));
    }
    match appendfsync.to_ascii_lowercase().as_str() {
        "always" => Gate::After(Duration::ZERO),
        "everysec" => Gate::After(Duration::from_secs(1) + margin),
        other => unbounded(format!(
            "Redis leaves fsync to the kernel (appendfsync {other})"
        )),
    }
}

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
    /// When an entry may leave Redis (`GAMEHUB_SETTLE_DURABILITY`: `auto`, `strict` or
    /// `off`; `GAMEHUB_SETTLE_FSYNC_MARGIN_MS`, default 1000).
    pub durability: Durability,
    /// Replicas that must have the step that ended a game before it is delivered
    /// (`GAMEHUB_SETTLE_REPLICAS`, default `GAMEHUB_REDIS_WAIT_REPLICAS`, else 0: none).
    pub replicas: u32,
    /// How long one delivery waits for them (`GAMEHUB_SETTLE_REPLICA_TIMEOUT_MS`,
    /// default 1000); too few in time: retried later.
    pub replica_timeout: Duration,
}

impl SettlerConfig {
    /// Reads the durability settings shared by every game service (see the fields).
    pub fn read_durability(
        &mut self,
        env: &crate::config::env::Env,
    ) -> Result<(), crate::config::env::ConfigError> {
        let margin = env.millis("GAMEHUB_SETTLE_FSYNC_MARGIN_MS", Duration::from_secs(1))?;
        let mode = env.string("GAMEHUB_SETTLE_DURABILITY", "auto");
        self.durability = match mode.trim() {
            "auto" => Durability::Auto { margin },
            "strict" => Durability::Strict { margin },
            "off" => Durability::Off,
            _ => {
                return Err(crate::config::env::ConfigError {
                    name: "GAMEHUB_SETTLE_DURABILITY".to_owned(),
                    value: mode,
                    reason: "expected auto, strict or off".to_owned(),
                });
            }
        };
        // Replica acknowledgement of every step implies it for the ending one.
        let step_replicas = env.parse(
            "GAMEHUB_REDIS_WAIT_REPLICAS",
            self.replicas,
            "a number of replicas",
        )?;
        self.replicas = env.parse(
            "GAMEHUB_SETTLE_REPLICAS",
            step_replicas,
            "a number of replicas",
        )?;
        self.replica_timeout =
            env.millis("GAMEHUB_SETTLE_REPLICA_TIMEOUT_MS", self.replica_timeout)?;
        Ok(())
    }
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
            durability: Durability::default(),
            replicas: 0,
            replica_timeout: Duration::from_secs(1),
        }
    }
}

enum Delivery {
    Acknowledged(Box<SettleGameResponse>),
    /// Settled before with a different result; the ledger's first answer.
    Adopted(Box<SettleGameResponse>),
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
    // When this process first saw each pending entry (the durability gate counts from
    // it: the step that wrote an entry happened before the scan that saw it). Keyed by
    // the game and the entry's stamp: an entry a Redis crash lost and a later step
    // wrote again is a new entry, and waits again.
    let mut first_seen: HashMap<(String, u64), Instant> = HashMap::new();
    // The gate in force and when it was derived.
    let mut gate: Option<(Gate, Instant)> = None;
    let mut ticker = tokio::time::interval(config.interval);
    ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            _ = ticker.tick() => {},
            () = shutdown.wait() => return,
        }
        if gate
            .as_ref()
            .is_none_or(|(_, at)| at.elapsed() >= GATE_REFRESH)
        {
            match gate_from_redis(&store, config.durability).await {
                Ok(derived) => {
                    // A hold is said every time (every minute) until Redis is fixed.
                    if gate.as_ref().is_none_or(|(g, _)| *g != derived)
                        || matches!(derived, Gate::Hold(_))
                    {
                        log_gate(store.game(), &derived, config.replicas);
                    }
                    gate = Some((derived, Instant::now()));
                }
                Err(e) => {
                    tracing::warn!(game = store.game(), error = %e, "reading Redis's persistence configuration failed");
                    if gate.is_none() {
                        continue;
                    }
                }
            }
        }
        let hold_for = match gate.as_ref().map(|(g, _)| g) {
            Some(Gate::After(after)) => *after,
            Some(Gate::Unbounded(_)) => Duration::ZERO,
            Some(Gate::Hold(_)) | None => continue,
        };
        let entries = match store.pending_settlements(config.batch_per_shard).await {
            Ok(entries) => entries,
            Err(e) => {
                tracing::warn!(game = store.game(), error = %e, "settlement scan failed");
                // Redis may be restarting: what it has after is seen anew.
                first_seen.clear();
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
        first_seen.retain(|(game_id, _), _| pending.contains(game_id.as_str()));
        let seen_now = Instant::now();
        for entry in &entries {
            first_seen
                .entry((entry.game_id.clone(), entry.created_ms))
                .or_insert(seen_now);
        }
        let due: Vec<OutboxEntry> = entries
            .into_iter()
            .filter(|entry| {
                first_seen
                    .get(&(entry.game_id.clone(), entry.created_ms))
                    .is_some_and(|seen| seen.elapsed() >= hold_for)
                    && backoff
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
                let rules = Rules {
                    lease: config.lease,
                    replicas: config.replicas,
                    replica_timeout: config.replica_timeout,
                };
                async move {
                    let game_id = entry.game_id.clone();
                    let settled =
                        settle_one(&store, ledger, entry, &replica, rules, on_settled).await;
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

/// How one delivery runs.
#[derive(Debug, Clone, Copy)]
struct Rules {
    lease: Duration,
    replicas: u32,
    replica_timeout: Duration,
}

/// Leases one entry, delivers it and records the result.
async fn settle_one(
    store: &TableStore,
    mut ledger: LedgerServiceClient<ServiceChannel>,
    entry: OutboxEntry,
    replica: &str,
    rules: Rules,
    on_settled: Option<OnSettled>,
) -> Settled {
    match take_lease(store, &entry, replica, rules.lease).await {
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
    // The lease was a write on this connection after the step that wrote the entry, so
    // WAIT covers that step.
    if rules.replicas > 0 {
        match replicated(store, &entry, rules.replicas, rules.replica_timeout).await {
            Ok(acked) if acked >= rules.replicas => {}
            Ok(acked) => {
                release_lease(store, &entry).await;
                return Settled::Retry(format!(
                    "{acked} of {} replicas acknowledged the ending in {:?}",
                    rules.replicas, rules.replica_timeout
                ));
            }
            Err(e) => {
                release_lease(store, &entry).await;
                return Settled::Retry(format!("WAIT failed: {e}"));
            }
        }
    }
    let (response, adopted) = match deliver(store, &mut ledger, &entry).await {
        Delivery::Acknowledged(response) => (response, false),
        Delivery::Adopted(response) => {
            // Both results, for the operator: what the table asked and what stands.
            let asked = entry
                .request()
                .map(|r| {
                    r.players
                        .iter()
                        .map(|p| format!("{} {:+}", p.player_id, p.points))
                        .collect::<Vec<_>>()
                        .join(", ")
                        + &format!(" ({})", r.reason)
                })
                .unwrap_or_default();
            let paid = response
                .players
                .iter()
                .map(|p| {
                    format!(
                        "{} {:+} points {:+} silver",
                        p.player_id, p.points_delta, p.silver_delta
                    )
                })
                .collect::<Vec<_>>()
                .join(", ");
            tracing::error!(game_id = %entry.game_id, table_id = %entry.table_id, asked, paid, "the ledger settled this game before with a different result; the table adopts the ledger's");
            (response, true)
        }
        Delivery::Retry(why) => {
            release_lease(store, &entry).await;
            metrics()
                .settlements
                .with_label_values(&[store.game(), "retry"])
                .inc();
            return Settled::Retry(why);
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
            return Settled::Done;
        }
    };
    metrics()
        .settlements
        .with_label_values(&[store.game(), if adopted { "adopted" } else { "ok" }])
        .inc();
    // The table notes the settlement before the entry is cleared: should Redis fail in
    // between, the entry is delivered again (a replay) and the note made then.
    if let Some(callback) = &on_settled {
        let acknowledgement = Acknowledgement {
            response: *response,
            adopted,
        };
        match callback(entry.clone(), acknowledgement).await {
            Ok(()) => {}
            Err(e) if e.code() == tonic::Code::Unavailable => {
                release_lease(store, &entry).await;
                return Settled::Retry(format!("settlement not noted at the table: {e}"));
            }
            Err(e) => {
                tracing::warn!(game_id = %entry.game_id, error = %e, "settlement not noted at the table");
            }
        }
    }
    if let Err(e) = acknowledge(store, &entry).await {
        // The ledger has it; the next scan re-sends and gets a replay (or the same
        // conflict, adopted the same way).
        tracing::warn!(game_id = %entry.game_id, error = %e, "could not clear a settled outbox entry");
    }
    Settled::Done
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
                if status.code() == Code::AlreadyExists
                    && let Some(first) = first_settlement(&status)
                {
                    return Delivery::Adopted(Box::new(first));
                }
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

/// The ledger's first settlement of a game, as attached to its ALREADY_EXISTS answer.
fn first_settlement(status: &tonic::Status) -> Option<SettleGameResponse> {
    use prost::Message;
    let bytes = status
        .metadata()
        .get_bin(crate::error::SETTLED_RESPONSE_BIN)?
        .to_bytes()
        .ok()?;
    let mut response = SettleGameResponse::decode(bytes.as_ref()).ok()?;
    response.replayed = true;
    Some(response)
}

/// How many replicas have every write this connection made so far (`WAIT`).
async fn replicated(
    store: &TableStore,
    entry: &OutboxEntry,
    replicas: u32,
    timeout: Duration,
) -> Result<u32, redis::RedisError> {
    // On a cluster, WAIT goes to the master holding the entry's shard: the one whose
    // replicas must have the step that ended the game.
    let mut conn = store.redis();
    conn.wait_replicas(
        &store.outbox_key(shard_of(&entry.table_id)),
        replicas,
        timeout.max(Duration::from_millis(1)),
    )
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_gate_follows_redis_persistence() {
        let margin = Duration::from_millis(700);
        let after = |d: u64| Gate::After(Duration::from_millis(d));
        for strict in [false, true] {
            assert_eq!(gate_for("yes", "always", margin, strict), after(0));
            assert_eq!(gate_for("yes", "everysec", margin, strict), after(1700));
            assert_eq!(gate_for("YES", "EverySec", margin, strict), after(1700));
        }
        // No bound on what a crash loses: at once with a warning, or held when strict.
        assert!(matches!(
            gate_for("yes", "no", margin, false),
            Gate::Unbounded(why) if why.contains("appendfsync no")
        ));
        assert!(matches!(
            gate_for("no", "everysec", margin, false),
            Gate::Unbounded(why) if why.contains("appendonly no")
        ));
        assert!(matches!(
            gate_for("yes", "no", margin, true),
            Gate::Hold(why) if why.contains("appendfsync no")
        ));
        assert!(matches!(
            gate_for("no", "always", margin, true),
            Gate::Hold(why) if why.contains("appendonly no")
        ));
    }

    #[test]
    fn on_a_cluster_the_weakest_master_sets_the_gate() {
        let after = |d: u64| Gate::After(Duration::from_millis(d));
        let unbounded = Gate::Unbounded("no aof".into());
        let hold = Gate::Hold("strict".into());
        assert_eq!(
            weakest([after(0), after(1700), after(0)].into_iter()),
            Some(after(1700))
        );
        assert_eq!(
            weakest([after(1700), unbounded.clone(), after(0)].into_iter()),
            Some(unbounded.clone())
        );
        assert_eq!(
            weakest([unbounded, hold.clone(), after(9)].into_iter()),
            Some(hold)
        );
        assert_eq!(weakest(std::iter::empty()), None);
    }

    #[test]
    fn durability_is_configured_by_name() {
        use crate::config::env::Env;
        let read = |pairs: &[(&str, &str)]| {
            let mut config = SettlerConfig::default();
            config
                .read_durability(&Env::from_pairs(pairs.iter().copied()))
                .map(|()| config)
        };
        let default = read(&[]).unwrap();
        assert_eq!(
            default.durability,
            Durability::Auto {
                margin: Duration::from_secs(1)
            }
        );
        assert_eq!(default.replicas, 0);
        let strict = read(&[
            ("GAMEHUB_SETTLE_DURABILITY", "strict"),
            ("GAMEHUB_SETTLE_FSYNC_MARGIN_MS", "250"),
            ("GAMEHUB_SETTLE_REPLICAS", "2"),
        ])
        .unwrap();
        assert_eq!(
            strict.durability,
            Durability::Strict {
                margin: Duration::from_millis(250)
            }
        );
        assert_eq!(strict.replicas, 2);
        assert_eq!(
            read(&[("GAMEHUB_SETTLE_DURABILITY", "off")])
                .unwrap()
                .durability,
            Durability::Off
        );
        let err = read(&[("GAMEHUB_SETTLE_DURABILITY", "sometimes")]).unwrap_err();
        assert_eq!(err.name, "GAMEHUB_SETTLE_DURABILITY");
    }
}
