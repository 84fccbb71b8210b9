//! Live tables in Redis: the one storage pattern of every game's service.
//!
//! A table is a state snapshot with a version, an event stream and a few companions.
//! Every change is **one atomic step** ([`TableStore::commit`], the Lua script
//! `lua/commit.lua` behind a typed wrapper that reads its reply strictly): check
//! the version (and the request's idempotency key), write the new state, append the
//! events, set or clear the next clock deadline, record a settlement in the outbox,
//! and notify watchers. Two replicas racing on one table: exactly one step applies;
//! the other sees a version conflict, reloads and re-judges ([`TableStore::update`]).
//!
//! ## Keys and Redis Cluster
//! A Lua script may only touch keys of one cluster slot, and the deadline index and
//! the settlement outbox must change in the same step as the table. So the hash tag
//! is the table's *shard* (one of [`SHARDS`], derived from the table id), and each
//! shard keeps its own deadline index and outbox beside its tables:
//!
//! | key (prefix `gh`) | type | holds |
//! |---|---|---|
//! | `gh:{G:SS}:t:ID` | hash | `v` version, `s` state, `q` last event sequence, `k` the last writer's token (see below) |
//! | `gh:{G:SS}:t:ID:ev` | stream | events, ids `0-<seq>`, trimmed to a bound: `a` audience (`*` or a seat number; anything else is an error, never "everyone"), `p` payload |
//! | `gh:{G:SS}:t:ID:rq` | sorted set | recent request keys, scored by the sequence they reached (idempotency) |
//! | `gh:{G:SS}:deadlines` | sorted set | table id by next deadline (Unix ms by the store's [`Clock`], the one source of "now" for steps and sweeps) |
//! | `gh:{G:SS}:outbox` | hash | game id → settlement not yet acknowledged |
//! | `gh:{G:SS}:outbox-dead` | hash | game id → settlement the ledger refused (for an operator) |
//! | `gh:{G:SS}:outbox-dead-why` | hash | game id → why and when it was refused (`dead_letters`) |
//! | `gh:{G:SS}:live` | set | open table ids |
//! | `gh:{G:SS}:listed` | sorted set | the shard's listed tables, every score 0, members `ROOM/OPENED_MS/ID` ([`listing`]); the table's own member is its hash's `l` field, so the step that closes it takes it out |
//! | `gh:{G:SS}:t:ID:spectators` | sorted set | the table's spectator watch streams (any replica), scored by when each expires unless its process refreshes it ([`listing`]) |
//! | `gh:{G:SS}:replicated` | counter | bumped by a replayed step before its `WAIT`, when replica acknowledgement is on |
//! | `gh:{G:SS}:events` | pub/sub channel | ids of the shard's tables with new events (`SPUBLISH` on a cluster) |
//!
//! where `G` is the game's registry key (`gomoku`, …; `gamehub_terms::games`) and `SS` the
//! shard. All keys of a table share its tag, so the design runs unchanged on Redis
//! Cluster.
//!
//! ## The state cache
//! [`TableStore::update`] keeps the decoded state each of its steps wrote (per process,
//! at most [`StoreLimits::cached_tables`] tables; closed tables are dropped), and the
//! next step of that table judges on it without reading Redis: one round trip (the
//! commit) per action in the common case, and no state decode. The step then expects
//! both the version and the random writer token (`k`) its previous step left, so a
//! stale entry (another replica stepped the table, or a Redis failover took it back to
//! an older version and another replica forward again) is a conflict, never a step on
//! the wrong state: the step reloads and judges again. A judgement that fails on a
//! cached state is also judged again on a fresh load (the cache may be stale, or the
//! request a duplicate), so callers see exactly the answers of a fresh load.

pub mod dead_letters;
pub mod hub;
pub mod listing;
mod scripts;
pub mod settler;
pub mod sweeper;

pub use scripts::{CommitOutcome, Rescheduled, decode_commit_reply, decode_reschedule_reply};

use std::any::Any;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::clock::Clock;
use crate::error::ApiError;
use crate::redis_conn::{RedisConn, ReplicaWait};

/// How many shards (hash tags) tables spread over. Changing it orphans live tables.
pub const SHARDS: u32 = 32;

/// How many times [`TableStore::update`] retries after losing a race.
const MAX_UPDATE_ATTEMPTS: usize = 8;

/// The shard of a table: FNV-1a of its id, modulo [`SHARDS`]. Stable across
/// processes and versions.
pub fn shard_of(table_id: &str) -> u32 {
    let mut hash: u32 = 0x811c_9dc5;
    for byte in table_id.bytes() {
        hash ^= u32::from(byte);
        hash = hash.wrapping_mul(0x0100_0193);
    }
    hash % SHARDS
}

/// Who may see an event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Audience {
    /// Every seat and spectator.
    All,
    /// Only this seat (e.g. a dealt hand).
    Seat(u8),
}

impl Audience {
    /// Reads an audience as stored beside an event (`*` or a seat number). Anything
    /// else is an error, never "everyone": an event whose audience cannot be read is
    /// shown to nobody.
    pub fn decode(text: &str) -> Result<Self, ApiError> {
        if text == "*" {
            return Ok(Audience::All);
        }
        match text.parse::<u8>() {
            Ok(seat) if seat.to_string() == text => Ok(Audience::Seat(seat)),
            _ => Err(ApiError::internal(anyhow::anyhow!(
                "an event's audience {:?} is neither * nor a seat",
                text.chars().take(16).collect::<String>()
            ))),
        }
    }

    /// Whether a watcher sitting at `seat` (None: a spectator) may see it.
    pub fn admits(self, seat: Option<u8>) -> bool {
        match self {
            Audience::All => true,
            Audience::Seat(s) => seat == Some(s),
        }
    }
}

/// An event to append in a step: who may see it and its encoded payload (the service's
/// protobuf event message).
#[derive(Debug, Clone)]
pub struct NewEvent {
    /// Who may see it.
    pub audience: Audience,
    /// The encoded event.
    pub payload: Vec<u8>,
}

impl NewEvent {
    /// An event every watcher sees.
    pub fn public(payload: Vec<u8>) -> Self {
        Self {
            audience: Audience::All,
            payload,
        }
    }

    /// An event only `seat` sees.
    pub fn private(seat: u8, payload: Vec<u8>) -> Self {
        Self {
            audience: Audience::Seat(seat),
            payload,
        }
    }
}

/// An event as stored: its sequence number (1, 2, … per table), audience and payload.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredEvent {
    /// Position in the table's stream; what clients resume from.
    pub seq: u64,
    /// Who may see it.
    pub audience: Audience,
    /// The encoded event.
    pub payload: Vec<u8>,
}

/// A finished game waiting for the ledger, written in the step that ended it.
#[derive(Debug, Clone, Serialize, serde::Deserialize, PartialEq, Eq)]
pub struct OutboxEntry {
    /// The game id (the ledger's idempotency key).
    pub game_id: String,
    /// The table the game was played at; its shard holds this entry.
    pub table_id: String,
    /// When the game ended, Unix ms (settlement lag is measured from it).
    pub created_ms: u64,
    /// The trace of the action that ended the game, so the settlement joins it.
    pub traceparent: String,
    /// The encoded `gamehub.ledger.v1.SettleGameRequest`, hex.
    pub request_hex: String,
}

impl OutboxEntry {
    /// An entry for `request` (whose `table_id` names the table it is stored beside),
    /// stamped `created_ms` (the step's time, from the service's clock) and with the
    /// current trace.
    pub fn new(request: &gamehub_proto::ledger::SettleGameRequest, created_ms: u64) -> Self {
        use prost::Message;
        Self {
            game_id: request.game_id.clone(),
            table_id: request.table_id.clone(),
            created_ms,
            traceparent: crate::telemetry::current_traceparent(),
            request_hex: hex::encode(request.encode_to_vec()),
        }
    }

    /// The settlement request it carries.
    pub fn request(&self) -> anyhow::Result<gamehub_proto::ledger::SettleGameRequest> {
        use prost::Message;
        let bytes = hex::decode(&self.request_hex)?;
        Ok(gamehub_proto::ledger::SettleGameRequest::decode(
            bytes.as_slice(),
        )?)
    }
}

/// What one step changes besides the state.
#[derive(Debug, Clone)]
pub struct Change<T> {
    /// Events to append, in order.
    pub events: Vec<NewEvent>,
    /// The next clock deadline (Unix ms), or None when no clock runs.
    pub deadline_ms: Option<u64>,
    /// A finished game to settle.
    pub settlement: Option<OutboxEntry>,
    /// The table is over for good: drop it from the live set and let its keys expire.
    pub close: bool,
    /// Whatever the caller wants back from its closure.
    pub output: T,
}

impl<T> Change<T> {
    /// A change with events and the next deadline, returning `output`.
    pub fn new(events: Vec<NewEvent>, deadline_ms: Option<u64>, output: T) -> Self {
        Self {
            events,
            deadline_ms,
            settlement: None,
            close: false,
            output,
        }
    }
}

/// A table as loaded.
#[derive(Debug, Clone)]
pub struct Loaded<S> {
    /// The version the next step must expect.
    pub version: u64,
    /// The sequence of the last event appended.
    pub last_seq: u64,
    /// The state.
    pub state: S,
}

/// The result of [`TableStore::update`].
#[derive(Debug, Clone)]
pub enum Updated<T> {
    /// The step applied.
    Applied {
        /// The table's new version.
        version: u64,
        /// The sequence of the last event appended.
        last_seq: u64,
        /// What the closure returned.
        output: T,
    },
    /// The same request key was applied before; nothing was done this time.
    Duplicate {
        /// The sequence of the last event the first application appended.
        last_seq: u64,
    },
}

/// Sizes and lifetimes of stored tables.
#[derive(Debug, Clone)]
pub struct StoreLimits {
    /// Events kept per table stream (approximately; older ones are trimmed).
    pub max_events_per_table: usize,
    /// Request keys remembered per table for idempotent retries: the newest this many
    /// at least, and at most 16 more (they are trimmed in batches).
    pub max_request_keys: usize,
    /// How long an open table's keys live after their lifetime was last set: when the
    /// table opens, when a key is created, and at every 16th step after that.
    pub idle_table_ttl: Duration,
    /// How long a closed table's keys remain readable.
    pub closed_table_ttl: Duration,
    /// The largest encoded state accepted (a bug guard).
    pub max_state_bytes: usize,
    /// Decoded table states kept in this process for the next step (0: none). Past
    /// it, an arbitrary entry makes room; a missing entry costs one read.
    pub cached_tables: usize,
}

impl Default for StoreLimits {
    fn default() -> Self {
        Self {
            max_events_per_table: 1000,
            max_request_keys: 64,
            idle_table_ttl: Duration::from_secs(24 * 3600),
            closed_table_ttl: Duration::from_secs(3600),
            max_state_bytes: 256 * 1024,
            cached_tables: 10_000,
        }
    }
}

/// The live tables of one game in Redis.
#[derive(Clone)]
pub struct TableStore {
    redis: RedisConn,
    /// `PREFIX:{GAME:SS}` for each shard, by shard: every key of a shard starts so
    /// (built once; a step names six keys).
    shard_prefixes: Arc<[String]>,
    game: &'static str,
    limits: StoreLimits,
    replica_wait: ReplicaWait,
    commit_script: Arc<scripts::CommitScript>,
    reschedule_script: Arc<scripts::RescheduleScript>,
    /// The service's clock: the "now" of every deadline in the index, of the sweeper
    /// and of the settler's lag.
    clock: Clock,
    /// The states this process's steps wrote last (module docs, "The state cache").
    cache: Arc<StateCache>,
}

/// A table's state as this process's last step of it wrote it.
struct Cached {
    version: u64,
    token: String,
    /// Request keys of the latest steps through this entry (at most
    /// [`CACHED_REQUEST_KEYS`]): a retry of one of them is recognised without judging.
    request_keys: Vec<String>,
    state: Box<dyn Any + Send>,
}

/// Request keys remembered per cached table.
const CACHED_REQUEST_KEYS: usize = 16;

/// The decoded states of the tables this process stepped last, bounded.
struct StateCache {
    capacity: usize,
    entries: Mutex<HashMap<String, Cached>>,
}

impl StateCache {
    fn new(capacity: usize) -> Self {
        Self {
            capacity,
            entries: Mutex::new(HashMap::new()),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Cached>> {
        self.entries
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Takes a table's entry out (a concurrent step of the same table then reads Redis).
    fn take<S: 'static>(&self, table_id: &str) -> Option<(Cached, S)> {
        let mut cached = self.lock().remove(table_id)?;
        let state = std::mem::replace(&mut cached.state, Box::new(()));
        let state = state.downcast::<S>().ok()?;
        Some((cached, *state))
    }

    #[allow(clippy::too_many_arguments)]
    fn put<S: Send + 'static>(
        &self,
        table_id: &str,
        version: u64,
        token: String,
        request_keys: Vec<String>,
        state: S,
    ) {
        if self.capacity == 0 {
            return;
        }
        let mut entries = self.lock();
        if entries.len() >= self.capacity && !entries.contains_key(table_id) {
            let victim = entries.keys().next().cloned();
            if let Some(victim) = victim {
                entries.remove(&victim);
            }
        }
        entries.insert(
            table_id.to_owned(),
            Cached {
                version,
                token,
                request_keys,
                state: Box::new(state),
            },
        );
    }

    fn forget(&self, table_id: &str) {
        self.lock().remove(table_id);
    }
}

impl std::fmt::Debug for TableStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TableStore")
            .field("shard_keys", &self.shard_prefixes.first())
            .field("game", &self.game)
            .field("limits", &self.limits)
            .finish_non_exhaustive()
    }
}

impl TableStore {
    /// A store for `game`'s tables (its registry key: `gomoku`, …) on `redis`, under the key
    /// prefix `prefix` (`gh` by default; see `GAMEHUB_REDIS_PREFIX`; tests use their own),
    /// telling the time by `clock` (the service's [`crate::config::CommonConfig::clock`]).
    pub fn new(
        redis: RedisConn,
        prefix: &str,
        game: &'static str,
        limits: StoreLimits,
        clock: Clock,
    ) -> Self {
        Self {
            redis,
            shard_prefixes: (0..SHARDS)
                .map(|shard| format!("{prefix}:{{{game}:{shard:02}}}"))
                .collect(),
            game,
            cache: Arc::new(StateCache::new(limits.cached_tables)),
            limits,
            replica_wait: ReplicaWait::default(),
            commit_script: Arc::new(scripts::CommitScript::new()),
            reschedule_script: Arc::new(scripts::RescheduleScript::new()),
            clock,
        }
    }

    /// This store with every step answered only once `wait.replicas` replicas have it
    /// (the service's [`crate::config::CommonConfig::redis_wait`]).
    pub fn with_replica_wait(mut self, wait: ReplicaWait) -> Self {
        self.replica_wait = wait;
        self
    }

    /// The clock every step, sweep and settlement of this store's tables reads.
    pub fn clock(&self) -> &Clock {
        &self.clock
    }

    /// The game this store holds.
    pub fn game(&self) -> &'static str {
        self.game
    }

    /// The Redis connection (shared, multiplexed).
    pub fn redis(&self) -> RedisConn {
        self.redis.clone()
    }

    /// The limits in force.
    pub fn limits(&self) -> &StoreLimits {
        &self.limits
    }

    /// `PREFIX:{GAME:SS}:name`: a key of `shard`.
    fn shard_key(&self, shard: u32, name: &str) -> String {
        let shard_prefix = &self.shard_prefixes[shard as usize % self.shard_prefixes.len()];
        [shard_prefix.as_str(), ":", name].concat()
    }

    fn table_key(&self, table_id: &str) -> String {
        self.shard_key(shard_of(table_id), &["t:", table_id].concat())
    }

    /// A key of the caller's own beside a table's keys, e.g. `…:t:ID:records`: it shares
    /// the table's hash tag (so one Lua step or MULTI may touch both on Redis Cluster).
    /// The store itself never reads, writes or expires it.
    pub fn companion_key(&self, table_id: &str, name: &str) -> String {
        [self.table_key(table_id).as_str(), ":", name].concat()
    }

    fn events_key(&self, table_id: &str) -> String {
        self.companion_key(table_id, "ev")
    }

    /// The request keys a table's steps applied (a sorted set).
    fn requests_key(&self, table_id: &str) -> String {
        self.companion_key(table_id, "rq")
    }

    pub(crate) fn deadlines_key(&self, shard: u32) -> String {
        self.shard_key(shard, "deadlines")
    }

    pub(crate) fn outbox_key(&self, shard: u32) -> String {
        self.shard_key(shard, "outbox")
    }

    pub(crate) fn dead_letter_key(&self, shard: u32) -> String {
        self.shard_key(shard, "outbox-dead")
    }

    pub(crate) fn lease_key(&self, shard: u32, game_id: &str) -> String {
        self.shard_key(shard, &["lease:", game_id].concat())
    }

    /// The counter a replayed step bumps before its `WAIT` ([`TableStore::replicated`]).
    fn replicated_key(&self, shard: u32) -> String {
        self.shard_key(shard, "replicated")
    }

    pub(crate) fn live_key(&self, shard: u32) -> String {
        self.shard_key(shard, "live")
    }

    /// The shard's listed tables ([`listing`]).
    pub(crate) fn listed_key(&self, shard: u32) -> String {
        self.shard_key(shard, "listed")
    }

    /// The pub/sub channel on which steps of `shard`'s tables announce new events
    /// (payload: table id). It carries the shard's hash tag, so on a cluster the
    /// step's sharded `SPUBLISH` stays on the nodes holding the table.
    pub fn notify_channel(&self, shard: u32) -> String {
        self.shard_key(shard, "events")
    }

    /// Every shard's notification channel.
    pub fn notify_channels(&self) -> Vec<String> {
        (0..SHARDS)
            .map(|shard| self.notify_channel(shard))
            .collect()
    }

    /// Loads a table's raw state; None when it does not exist.
    pub async fn load_raw(&self, table_id: &str) -> Result<Option<Loaded<Vec<u8>>>, ApiError> {
        let mut conn = self.redis.clone();
        let (version, state, last_seq): (Option<u64>, Option<Vec<u8>>, Option<u64>) =
            redis::cmd("HMGET")
                .arg(self.table_key(table_id))
                .arg("v")
                .arg("s")
                .arg("q")
                .query_async(&mut conn)
                .await?;
        Ok(match (version, state) {
            (Some(version), Some(state)) => Some(Loaded {
                version,
                last_seq: last_seq.unwrap_or(0),
                state,
            }),
            _ => None,
        })
    }

    /// Loads and decodes a table; None when it does not exist.
    pub async fn load<S: DeserializeOwned>(
        &self,
        table_id: &str,
    ) -> Result<Option<Loaded<S>>, ApiError> {
        let Some(raw) = self.load_raw(table_id).await? else {
            return Ok(None);
        };
        let state = serde_json::from_slice(&raw.state).map_err(|e| {
            ApiError::internal(anyhow::anyhow!(
                "table {table_id} state does not decode: {e}"
            ))
        })?;
        Ok(Some(Loaded {
            version: raw.version,
            last_seq: raw.last_seq,
            state,
        }))
    }

    /// Whether `request_key` was applied at this table, and at which sequence.
    pub async fn applied_request(
        &self,
        table_id: &str,
        request_key: &str,
    ) -> Result<Option<u64>, ApiError> {
        let mut conn = self.redis.clone();
        let seq: Option<f64> = redis::cmd("ZSCORE")
            .arg(self.requests_key(table_id))
            .arg(request_key)
            .query_async(&mut conn)
            .await?;
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        Ok(seq.map(|s| s as u64))
    }

    /// Loads a table and, in the same round trip, whether `request_key` was applied.
    async fn load_for_update(
        &self,
        table_id: &str,
        request_key: Option<&str>,
    ) -> Result<(Option<Loaded<Vec<u8>>>, Option<u64>), ApiError> {
        let table_key = self.table_key(table_id);
        let mut pipe = redis::pipe();
        pipe.cmd("HMGET").arg(&table_key).arg("v").arg("s").arg("q");
        pipe.cmd("ZSCORE")
            .arg(self.requests_key(table_id))
            .arg(request_key.unwrap_or(""));
        let mut conn = self.redis.clone();
        #[allow(clippy::type_complexity)]
        let ((version, state, last_seq), applied): (
            (Option<u64>, Option<Vec<u8>>, Option<u64>),
            Option<f64>,
        ) = pipe.query_async(&mut conn).await?;
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        let applied = applied.map(|s| s as u64);
        let loaded = match (version, state) {
            (Some(version), Some(state)) => Some(Loaded {
                version,
                last_seq: last_seq.unwrap_or(0),
                state,
            }),
            _ => None,
        };
        Ok((loaded, applied.filter(|_| request_key.is_some())))
    }

    /// The atomic step. See the module documentation.
    pub async fn commit(
        &self,
        table_id: &str,
        expected_version: u64,
        state: &[u8],
        change: &Change<()>,
        request_key: Option<&str>,
    ) -> Result<CommitOutcome, ApiError> {
        // A step from elsewhere invalidates this process's cached state of the table.
        self.cache.forget(table_id);
        self.commit_step(
            table_id,
            expected_version,
            state,
            change,
            request_key,
            None,
            "",
            None,
        )
        .await
    }

    /// [`TableStore::commit`], also expecting the writer token `expected_token` (when
    /// given) and leaving `new_token`.
    #[allow(clippy::too_many_arguments)]
    async fn commit_step(
        &self,
        table_id: &str,
        expected_version: u64,
        state: &[u8],
        change: &Change<()>,
        request_key: Option<&str>,
        expected_token: Option<&str>,
        new_token: &str,
        listing_entry: Option<&str>,
    ) -> Result<CommitOutcome, ApiError> {
        if state.len() > self.limits.max_state_bytes {
            return Err(ApiError::internal(anyhow::anyhow!(
                "table {table_id} state of {} bytes exceeds the {} byte limit",
                state.len(),
                self.limits.max_state_bytes
            )));
        }
        let shard = shard_of(table_id);
        let table_key = self.table_key(table_id);
        let ttl = if change.close {
            self.limits.closed_table_ttl
        } else {
            self.limits.idle_table_ttl
        };
        let outbox = match &change.settlement {
            Some(entry) => Some((
                entry.game_id.clone(),
                serde_json::to_vec(entry).map_err(ApiError::internal)?,
            )),
            None => None,
        };
        let (events_key, requests_key) = (self.events_key(table_id), self.requests_key(table_id));
        let (deadlines_key, outbox_key, live_key) = (
            self.deadlines_key(shard),
            self.outbox_key(shard),
            self.live_key(shard),
        );
        let notify_channel = self.notify_channel(shard);
        let listed_key = self.listed_key(shard);
        let args = scripts::CommitArgs {
            state_key: &table_key,
            events_key: &events_key,
            requests_key: &requests_key,
            deadlines_key: &deadlines_key,
            outbox_key: &outbox_key,
            live_key: &live_key,
            listed_key: &listed_key,
            table_id,
            expected_version,
            state,
            deadline_ms: change.deadline_ms,
            max_events: self.limits.max_events_per_table,
            request_key,
            max_request_keys: self.limits.max_request_keys,
            settlement: outbox
                .as_ref()
                .map(|(game_id, entry)| (game_id.as_str(), entry.as_slice())),
            close: change.close,
            ttl_secs: ttl.as_secs(),
            notify_channel: &notify_channel,
            events: &change.events,
            listing_entry,
        };
        let mut conn = self.redis.clone();
        let outcome = self
            .commit_script
            .run_with_token(&mut conn, &args, expected_token, new_token)
            .await?;
        match outcome {
            // The step went out on this connection: WAIT covers it.
            CommitOutcome::Applied { .. } => self.replicated(&mut conn, table_id, false).await?,
            CommitOutcome::Duplicate { .. } => self.replicated(&mut conn, table_id, true).await?,
            CommitOutcome::Conflict { .. } => {}
        }
        Ok(outcome)
    }

    /// With replica acknowledgement on ([`TableStore::with_replica_wait`]): returns once
    /// enough replicas of the table's master have every write `conn` sent it, or
    /// UNAVAILABLE. A `replay` (a request found applied before, perhaps by another
    /// process and never confirmed) first writes a marker of its own in the table's
    /// slot: replication is in order, so replicas that have the marker have the step.
    async fn replicated(
        &self,
        conn: &mut RedisConn,
        table_id: &str,
        replay: bool,
    ) -> Result<(), ApiError> {
        let ReplicaWait { replicas, timeout } = self.replica_wait;
        if replicas == 0 {
            return Ok(());
        }
        let shard = shard_of(table_id);
        if replay {
            redis::cmd("INCR")
                .arg(self.replicated_key(shard))
                .query_async::<i64>(conn)
                .await?;
        }
        let acked = conn
            .wait_replicas(&self.replicated_key(shard), replicas, timeout)
            .await?;
        if acked < replicas {
            crate::metrics::dependency_error("redis");
            return Err(ApiError::UnavailableFor {
                message: format!(
                    "the step on table {table_id} is recorded, but only {acked} of the \
                     {replicas} Redis replicas required confirmed it within {timeout:?}; \
                     retry with the same request id"
                ),
                retry_after: Duration::from_millis(250),
            });
        }
        Ok(())
    }

    /// Creates a table with its first state, not listed; refuses with ALREADY_EXISTS
    /// when the id is taken, unless `request_key` shows this very request created it
    /// before.
    pub async fn create<S: Serialize>(
        &self,
        table_id: &str,
        state: &S,
        change: Change<()>,
        request_key: Option<&str>,
    ) -> Result<Updated<()>, ApiError> {
        self.create_listed(table_id, state, change, request_key, None)
            .await
    }

    /// [`TableStore::create`], listing the table in its room's table list when
    /// `listing` says so ([`listing`]): the same step adds it, and the step that closes
    /// the table takes it out.
    pub async fn create_listed<S: Serialize>(
        &self,
        table_id: &str,
        state: &S,
        change: Change<()>,
        request_key: Option<&str>,
        listing: Option<listing::Listing<'_>>,
    ) -> Result<Updated<()>, ApiError> {
        let bytes = serde_json::to_vec(state).map_err(ApiError::internal)?;
        let entry = listing
            .filter(|l| l.listed)
            .map(|l| listing::entry(l.room_id, self.clock.now_ms(), table_id))
            .transpose()?;
        self.cache.forget(table_id);
        match self
            .commit_step(
                table_id,
                0,
                &bytes,
                &change,
                request_key,
                None,
                "",
                entry.as_deref(),
            )
            .await?
        {
            CommitOutcome::Applied { version, last_seq } => Ok(Updated::Applied {
                version,
                last_seq,
                output: (),
            }),
            CommitOutcome::Duplicate { last_seq } => Ok(Updated::Duplicate { last_seq }),
            CommitOutcome::Conflict { .. } => Err(ApiError::AlreadyExists(format!(
                "table {table_id} already exists"
            ))),
        }
    }

    /// Loads a table, lets `apply` judge and change it, and commits the result as one
    /// step, retrying from a fresh load when another step won the race.
    ///
    /// `apply` must be a pure function of the state it is given (it may run several
    /// times); an error from it is returned as is and nothing is written. A request key
    /// applied before returns [`Updated::Duplicate`] without calling `apply` when it
    /// was applied in this process (or read from Redis); applied by another replica
    /// since this process's last step of the table, `apply` may run on the cached state
    /// before the step finds out, and its output is dropped.
    pub async fn update<S, T, F>(
        &self,
        table_id: &str,
        request_key: Option<&str>,
        mut apply: F,
    ) -> Result<Updated<T>, ApiError>
    where
        S: Serialize + DeserializeOwned + Send + 'static,
        F: FnMut(&mut S, u64) -> Result<Change<T>, ApiError>,
    {
        let mut cached = self
            .cache
            .take::<S>(table_id)
            // A retry of a step made through the cache is recognised by a fresh load.
            .filter(|(entry, _)| {
                request_key.is_none_or(|key| !entry.request_keys.iter().any(|k| k == key))
            });
        let mut request_keys = Vec::new();
        for attempt in 0..MAX_UPDATE_ATTEMPTS {
            let from_cache = cached.is_some();
            let (version, mut state, expected_token) = match cached.take() {
                Some((entry, state)) => {
                    request_keys = entry.request_keys;
                    (entry.version, state, Some(entry.token))
                }
                None => {
                    request_keys.clear();
                    // Fresh load: no request keys carried (a retry then reads Redis).
                    let (loaded, applied) = self.load_for_update(table_id, request_key).await?;
                    if let Some(last_seq) = applied {
                        self.replicated(&mut self.redis.clone(), table_id, true)
                            .await?;
                        return Ok(Updated::Duplicate { last_seq });
                    }
                    let Some(loaded) = loaded else {
                        return Err(ApiError::NotFound(format!(
                            "no table {table_id}; it never existed or has been closed"
                        )));
                    };
                    let state = serde_json::from_slice(&loaded.state).map_err(|e| {
                        ApiError::internal(anyhow::anyhow!(
                            "table {table_id} state does not decode: {e}"
                        ))
                    })?;
                    (loaded.version, state, None)
                }
            };
            let change = match apply(&mut state, version) {
                Ok(change) => change,
                // Judged on a cached state: judge again on the stored one (the entry
                // may be stale, or the request a duplicate), as a fresh load would.
                Err(_) if from_cache => continue,
                Err(e) => return Err(e),
            };
            let Change {
                events,
                deadline_ms,
                settlement,
                close,
                output,
            } = change;
            let bytes = serde_json::to_vec(&state).map_err(ApiError::internal)?;
            let plain = Change {
                events,
                deadline_ms,
                settlement,
                close,
                output: (),
            };
            let new_token = format!("{:016x}", rand::random::<u64>());
            match self
                .commit_step(
                    table_id,
                    version,
                    &bytes,
                    &plain,
                    request_key,
                    expected_token.as_deref(),
                    &new_token,
                    None,
                )
                .await?
            {
                CommitOutcome::Applied { version, last_seq } => {
                    if !close {
                        if let Some(key) = request_key {
                            if request_keys.len() >= CACHED_REQUEST_KEYS {
                                request_keys.remove(0);
                            }
                            request_keys.push(key.to_owned());
                        }
                        self.cache
                            .put(table_id, version, new_token, request_keys, state);
                    }
                    return Ok(Updated::Applied {
                        version,
                        last_seq,
                        output,
                    });
                }
                CommitOutcome::Duplicate { last_seq } => {
                    return Ok(Updated::Duplicate { last_seq });
                }
                CommitOutcome::Conflict { current_version } => {
                    tracing::debug!(
                        table_id,
                        attempt,
                        expected = version,
                        from_cache,
                        current_version,
                        "lost a race or a stale cached state; reloading"
                    );
                    if !from_cache {
                        let jitter = rand::random::<u64>() % (2 + attempt as u64 * 2);
                        tokio::time::sleep(Duration::from_millis(jitter)).await;
                    }
                }
            }
        }
        Err(ApiError::Aborted(format!(
            "table {table_id} is changing too fast; retry the request"
        )))
    }

    /// Puts the deadline index in line with a loaded table's deadline, unless the table
    /// changed since it was loaded (its own step then set the index). Sweepers use it
    /// when a due entry turns out not to be due.
    pub async fn reschedule(
        &self,
        table_id: &str,
        version_seen: u64,
        deadline_ms: Option<u64>,
    ) -> Result<bool, ApiError> {
        let (state_key, deadlines_key) = (
            self.table_key(table_id),
            self.deadlines_key(shard_of(table_id)),
        );
        let args = scripts::RescheduleArgs {
            state_key: &state_key,
            deadlines_key: &deadlines_key,
            table_id,
            version_seen,
            deadline_ms,
        };
        let mut conn = self.redis.clone();
        let done = self.reschedule_script.run(&mut conn, &args).await?;
        Ok(done == scripts::Rescheduled::Done)
    }

    fn events_range(&self, table_id: &str, after_seq: u64, limit: usize) -> redis::Cmd {
        let mut cmd = redis::cmd("XRANGE");
        cmd.arg(self.events_key(table_id))
            .arg(format!("(0-{after_seq}"))
            .arg("+")
            .arg("COUNT")
            .arg(limit.max(1));
        cmd
    }

    /// Events after sequence `after_seq`, oldest first, at most `limit`.
    pub async fn events_after(
        &self,
        table_id: &str,
        after_seq: u64,
        limit: usize,
    ) -> Result<Vec<StoredEvent>, ApiError> {
        let mut conn = self.redis.clone();
        let reply: redis::streams::StreamRangeReply = self
            .events_range(table_id, after_seq, limit)
            .query_async(&mut conn)
            .await?;
        Self::decode_events(table_id, reply)
    }

    /// The table's last event sequence and the events after `after_seq` (oldest first,
    /// at most `limit`), read together in one transaction: both as of the same step.
    /// None when the table does not exist.
    ///
    /// Read apart, a step committed between the two reads makes the events look
    /// missing (none after the cursor, yet the table is past it); read together, an
    /// empty list with a sequence past `after_seq`, or a first event past
    /// `after_seq + 1`, means those events were really trimmed.
    pub async fn events_at(
        &self,
        table_id: &str,
        after_seq: u64,
        limit: usize,
    ) -> Result<Option<(u64, Vec<StoredEvent>)>, ApiError> {
        let mut pipe = redis::pipe();
        pipe.atomic()
            .cmd("HMGET")
            .arg(self.table_key(table_id))
            .arg("v")
            .arg("q")
            .add_command(self.events_range(table_id, after_seq, limit));
        let mut conn = self.redis.clone();
        let ((version, last_seq), reply): (
            (Option<u64>, Option<u64>),
            redis::streams::StreamRangeReply,
        ) = pipe.query_async(&mut conn).await?;
        if version.is_none() {
            return Ok(None);
        }
        let events = Self::decode_events(table_id, reply)?;
        Ok(Some((last_seq.unwrap_or(0), events)))
    }

    /// Reads a range of table `table_id`'s event stream as the store reads it: each
    /// entry's sequence from its id, its audience and its payload; an entry lacking
    /// either, or with an audience that is neither `*` nor a seat, fails the whole read
    /// (private events fail closed). Public for the fuzz targets (`fuzz/`).
    pub fn decode_events(
        table_id: &str,
        reply: redis::streams::StreamRangeReply,
    ) -> Result<Vec<StoredEvent>, ApiError> {
        let mut events = Vec::with_capacity(reply.ids.len());
        for entry in reply.ids {
            let seq = entry
                .id
                .split_once('-')
                .and_then(|(_, s)| s.parse::<u64>().ok())
                .ok_or_else(|| ApiError::internal(anyhow::anyhow!("bad stream id {}", entry.id)))?;
            // An event without its audience or payload is refused whole, not shown to
            // everybody: private events (a dealt hand) fail closed.
            let (Some(audience), Some(payload)) =
                (entry.get::<String>("a"), entry.get::<Vec<u8>>("p"))
            else {
                return Err(ApiError::internal(anyhow::anyhow!(
                    "table {table_id} event {} lacks its audience or payload",
                    entry.id
                )));
            };
            events.push(StoredEvent {
                seq,
                audience: Audience::decode(&audience)?,
                payload,
            });
        }
        Ok(events)
    }

    /// Open tables (the live sets of every shard).
    pub async fn live_tables(&self) -> Result<u64, ApiError> {
        let counts: Vec<u64> = self
            .redis
            .query_each((0..SHARDS).map(|shard| {
                let mut cmd = redis::cmd("SCARD");
                cmd.arg(self.live_key(shard));
                cmd
            }))
            .await?;
        Ok(counts.iter().sum())
    }

    /// Table ids whose deadline is at or before `now_ms`, at most `limit` per shard.
    pub async fn due_tables(&self, now_ms: u64, limit: usize) -> Result<Vec<String>, ApiError> {
        let per_shard: Vec<Vec<String>> = self
            .redis
            .query_each((0..SHARDS).map(|shard| {
                let mut cmd = redis::cmd("ZRANGEBYSCORE");
                cmd.arg(self.deadlines_key(shard))
                    .arg("-inf")
                    .arg(now_ms)
                    .arg("LIMIT")
                    .arg(0)
                    .arg(limit);
                cmd
            }))
            .await?;
        Ok(per_shard.into_iter().flatten().collect())
    }

    /// The next deadline recorded for a table (Unix ms), if any.
    pub async fn deadline_of(&self, table_id: &str) -> Result<Option<u64>, ApiError> {
        let mut conn = self.redis.clone();
        let score: Option<f64> = redis::cmd("ZSCORE")
            .arg(self.deadlines_key(shard_of(table_id)))
            .arg(table_id)
            .query_async(&mut conn)
            .await?;
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        Ok(score.map(|s| s as u64))
    }

    /// Whether game `game_id` of table `table_id` waits in the outbox: ended, but not yet
    /// acknowledged by the ledger (a settlement the ledger refused has left the outbox
    /// for the dead letters and is not pending).
    pub async fn settlement_pending(
        &self,
        table_id: &str,
        game_id: &str,
    ) -> Result<bool, ApiError> {
        let mut conn = self.redis.clone();
        Ok(redis::cmd("HEXISTS")
            .arg(self.outbox_key(shard_of(table_id)))
            .arg(game_id)
            .query_async(&mut conn)
            .await?)
    }

    /// Settlements not yet acknowledged, across shards (at most `limit` per shard).
    pub async fn pending_settlements(&self, limit: usize) -> Result<Vec<OutboxEntry>, ApiError> {
        /// A page of HSCAN: the next cursor and (field, value) pairs.
        type Page = (u64, Vec<(String, Vec<u8>)>);
        // Every shard's first page at once (one round trip on a single Redis).
        let pages: Vec<Page> = self
            .redis
            .query_each((0..SHARDS).map(|shard| {
                let mut cmd = redis::cmd("HSCAN");
                cmd.arg(self.outbox_key(shard))
                    .arg(0)
                    .arg("COUNT")
                    .arg(limit);
                cmd
            }))
            .await?;
        let mut entries = Vec::new();
        for (shard, (_cursor, pairs)) in (0..SHARDS).zip(pages) {
            for (game_id, value) in pairs.into_iter().take(limit) {
                match serde_json::from_slice::<OutboxEntry>(&value) {
                    Ok(entry) => entries.push(entry),
                    Err(e) => {
                        tracing::error!(game = self.game, game_id, error = %e, "undecodable outbox entry; moving to dead letters");
                        dead_letters::park(
                            self,
                            shard,
                            &game_id,
                            &value,
                            &format!("undecodable outbox entry: {e}"),
                        )
                        .await?;
                    }
                }
            }
        }
        Ok(entries)
    }

    /// Number of settlements waiting, across shards.
    pub async fn settlement_backlog(&self) -> Result<u64, ApiError> {
        self.count_per_shard(|shard| self.outbox_key(shard)).await
    }

    /// The sum of `HLEN` of a hash of every shard.
    async fn count_per_shard(&self, key: impl Fn(u32) -> String) -> Result<u64, ApiError> {
        let counts: Vec<u64> = self
            .redis
            .query_each((0..SHARDS).map(|shard| {
                let mut cmd = redis::cmd("HLEN");
                cmd.arg(key(shard));
                cmd
            }))
            .await?;
        Ok(counts.iter().sum())
    }

    /// Number of settlements the ledger refused, moved to the dead letters for an
    /// operator, across shards.
    pub async fn dead_letters(&self) -> Result<u64, ApiError> {
        self.count_per_shard(|shard| self.dead_letter_key(shard))
            .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_are_stable_and_spread() {
        assert_eq!(shard_of("table-1"), shard_of("table-1"));
        let mut seen = std::collections::HashSet::new();
        for i in 0..1000 {
            seen.insert(shard_of(&format!("t-{i}")));
        }
        assert_eq!(seen.len(), SHARDS as usize);
    }

    #[test]
    fn audiences_round_trip() {
        for audience in [Audience::All, Audience::Seat(0), Audience::Seat(2)] {
            assert_eq!(Audience::decode(&audience.encode()).ok(), Some(audience));
        }
        assert!(Audience::All.admits(None));
        assert!(Audience::Seat(1).admits(Some(1)));
        assert!(!Audience::Seat(1).admits(Some(0)));
        assert!(!Audience::Seat(1).admits(None));
    }

    #[test]
    fn an_unreadable_audience_fails_closed() {
        for text in ["", "all", "-1", "256", "01", " 1", "1 ", "*1", "seat 1"] {
            assert!(Audience::decode(text).is_err(), "{text:?} must not decode");
        }
    }
}
