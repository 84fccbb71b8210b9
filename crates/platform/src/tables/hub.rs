//! Watching tables: a process-wide subscription to the step notifications of one game,
//! fanned out to the watchers of each table, and the watch loop that turns a table's
//! stream into "a snapshot, then every event after it" for one seat or a spectator.
//!
//! Notifications only wake watchers; the events themselves are read from the table's
//! stream, so a missed notification (a reconnect of the pub/sub connection) delays an
//! event by at most the poll interval and never loses it.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::StreamExt;
use tokio::sync::watch;

use super::{Audience, StoredEvent, TableStore};
use crate::error::ApiError;
use crate::server::ShutdownListener;

/// Limits on watchers.
#[derive(Debug, Clone)]
pub struct WatchLimits {
    /// Watchers of one table at once, across seats and spectators.
    pub max_watchers_per_table: usize,
    /// Watchers in this process at once.
    pub max_watchers_per_process: usize,
    /// How often a watcher re-reads its table when no notification arrived.
    pub poll_interval: Duration,
    /// Events read from Redis per round.
    pub batch: usize,
}

impl Default for WatchLimits {
    fn default() -> Self {
        Self {
            max_watchers_per_table: 64,
            max_watchers_per_process: 20_000,
            poll_interval: Duration::from_secs(1),
            batch: 200,
        }
    }
}

struct Entry {
    tx: watch::Sender<u64>,
    watchers: usize,
}

#[derive(Default)]
struct Registry {
    tables: HashMap<String, Entry>,
    total: usize,
}

/// Fans step notifications out to the watchers of each table.
#[derive(Clone)]
pub struct EventHub {
    store: TableStore,
    limits: WatchLimits,
    registry: Arc<Mutex<Registry>>,
}

impl std::fmt::Debug for EventHub {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EventHub")
            .field("game", &self.store.game())
            .finish_non_exhaustive()
    }
}

/// One watcher's registration; dropping it unregisters.
pub struct Subscription {
    hub: EventHub,
    table_id: String,
    rx: watch::Receiver<u64>,
}

impl Drop for Subscription {
    fn drop(&mut self) {
        let mut registry = self.hub.lock();
        registry.total = registry.total.saturating_sub(1);
        if let Some(entry) = registry.tables.get_mut(&self.table_id) {
            entry.watchers = entry.watchers.saturating_sub(1);
            if entry.watchers == 0 {
                registry.tables.remove(&self.table_id);
            }
        }
    }
}

/// What a watch stream yields.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WatchItem {
    /// The table's state as of event `seq` (the first item of a fresh watch, and after a
    /// gap when the events a client resumed from were trimmed).
    Snapshot {
        /// The sequence the state includes.
        seq: u64,
        /// The encoded state.
        state: Vec<u8>,
    },
    /// An event the watcher may see.
    Event(StoredEvent),
}

impl EventHub {
    /// A hub for `store`'s game. Call [`EventHub::run`] in a task to receive notifications.
    pub fn new(store: TableStore, limits: WatchLimits) -> Self {
        Self {
            store,
            limits,
            registry: Arc::new(Mutex::new(Registry::default())),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Registry> {
        self.registry
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Registers a watcher of `table_id`, or refuses past the limits.
    pub fn subscribe(&self, table_id: &str) -> Result<Subscription, ApiError> {
        let mut registry = self.lock();
        if registry.total >= self.limits.max_watchers_per_process {
            return Err(ApiError::ResourceExhausted {
                message: "this server is watching as many tables as it can; retry shortly".into(),
                retry_after: Some(Duration::from_secs(1)),
            });
        }
        let max = self.limits.max_watchers_per_table;
        let entry = registry
            .tables
            .entry(table_id.to_owned())
            .or_insert_with(|| Entry {
                tx: watch::channel(0).0,
                watchers: 0,
            });
        if entry.watchers >= max {
            return Err(ApiError::ResourceExhausted {
                message: format!("table {table_id} already has {max} watchers, the most allowed"),
                retry_after: None,
            });
        }
        entry.watchers += 1;
        let rx = entry.tx.subscribe();
        registry.total += 1;
        Ok(Subscription {
            hub: self.clone(),
            table_id: table_id.to_owned(),
            rx,
        })
    }

    /// Wakes the watchers of `table_id`.
    pub fn notify(&self, table_id: &str) {
        let registry = self.lock();
        if let Some(entry) = registry.tables.get(table_id) {
            entry.tx.send_modify(|n| *n = n.wrapping_add(1));
        }
    }

    fn notify_all(&self) {
        let registry = self.lock();
        for entry in registry.tables.values() {
            entry.tx.send_modify(|n| *n = n.wrapping_add(1));
        }
    }

    /// Receives the game's notifications from Redis pub/sub until shutdown,
    /// reconnecting after failures.
    pub async fn run(self, redis_url: String, mut shutdown: ShutdownListener) {
        let channel = self.store.notify_channel();
        loop {
            let session = async {
                let client = redis::Client::open(redis_url.as_str())?;
                let mut pubsub = client.get_async_pubsub().await?;
                pubsub.subscribe(&channel).await?;
                // Anything published while we were away is in the streams: re-read.
                self.notify_all();
                let mut messages = pubsub.on_message();
                while let Some(message) = messages.next().await {
                    if let Ok(table_id) = message.get_payload::<String>() {
                        self.notify(&table_id);
                    }
                }
                Ok::<(), redis::RedisError>(())
            };
            tokio::select! {
                result = session => {
                    if let Err(e) = result {
                        crate::metrics::dependency_error("redis");
                        tracing::warn!(error = %e, channel, "event notifications interrupted; reconnecting");
                    }
                }
                () = shutdown.wait() => return,
            }
            tokio::select! {
                () = tokio::time::sleep(Duration::from_millis(500)) => {},
                () = shutdown.wait() => return,
            }
        }
    }

    /// Watches a table as `seat` (None: spectator). A fresh watch (`resume_after` None)
    /// starts with a snapshot; a resumed one continues after the given event, or starts
    /// with a snapshot when those events were trimmed. Ends at shutdown or when the
    /// table disappears.
    pub fn watch(
        &self,
        table_id: String,
        seat: Option<u8>,
        resume_after: Option<u64>,
        mut shutdown: ShutdownListener,
    ) -> Result<impl futures::Stream<Item = Result<WatchItem, ApiError>> + Send + 'static, ApiError>
    {
        let mut subscription = self.subscribe(&table_id)?;
        let store = self.store.clone();
        let limits = self.limits.clone();
        Ok(async_stream::try_stream! {
            let mut cursor = match resume_after {
                Some(after) => after,
                None => {
                    let Some(loaded) = store.load_raw(&table_id).await? else {
                        Err(ApiError::NotFound(format!("no table {table_id}")))?;
                        return;
                    };
                    yield WatchItem::Snapshot { seq: loaded.last_seq, state: loaded.state };
                    loaded.last_seq
                }
            };
            let mut first_read = resume_after.is_some();
            loop {
                subscription.rx.borrow_and_update();
                let events = store.events_after(&table_id, cursor, limits.batch).await?;
                if first_read {
                    first_read = false;
                    let gap = match events.first() {
                        Some(first) => first.seq > cursor + 1,
                        None => {
                            // Nothing after the cursor: fine only if the table is exactly
                            // there (a cursor from the future gets a fresh snapshot).
                            match store.load_raw(&table_id).await? {
                                Some(loaded) => loaded.last_seq != cursor,
                                None => {
                                    Err(ApiError::NotFound(format!("no table {table_id}")))?;
                                    return;
                                }
                            }
                        }
                    };
                    if gap {
                        let Some(loaded) = store.load_raw(&table_id).await? else {
                            Err(ApiError::NotFound(format!("no table {table_id}")))?;
                            return;
                        };
                        yield WatchItem::Snapshot { seq: loaded.last_seq, state: loaded.state };
                        cursor = loaded.last_seq;
                        continue;
                    }
                }
                let got = events.len();
                for event in events {
                    cursor = event.seq;
                    if event.audience.admits(seat) {
                        yield WatchItem::Event(event);
                    }
                }
                if got >= limits.batch {
                    continue;
                }
                tokio::select! {
                    changed = subscription.rx.changed() => {
                        if changed.is_err() {
                            return;
                        }
                    }
                    () = tokio::time::sleep(limits.poll_interval) => {}
                    () = shutdown.wait() => return,
                }
            }
        })
    }
}

/// Whether a stored event may go to `seat`; services filtering by hand use it.
pub fn visible_to(event: &StoredEvent, seat: Option<u8>) -> bool {
    matches!(event.audience, Audience::All) || event.audience.admits(seat)
}
