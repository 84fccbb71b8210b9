//! Watching tables: a process-wide subscription to the step notifications of one game,
//! fanned out to the watchers of each table, and the watch loop that turns a table's
//! stream into "a snapshot, then every event after it" for one seat or a spectator.
//!
//! Notifications only wake watchers; the events themselves are read from the table's
//! stream, so a missed notification (a reconnect of the pub/sub connection) delays an
//! event by at most the poll interval and never loses it.

use std::time::Duration;

use super::{Audience, StoredEvent, TableStore};
use crate::error::ApiError;
use crate::notify::{Notifier, NotifyLimits, Subscription};
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

/// Fans step notifications out to the watchers of each table.
#[derive(Clone)]
pub struct EventHub {
    store: TableStore,
    limits: WatchLimits,
    notifier: Notifier,
}

impl std::fmt::Debug for EventHub {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EventHub")
            .field("game", &self.store.game())
            .finish_non_exhaustive()
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
        let notifier = Notifier::new(
            "table",
            "retry shortly",
            NotifyLimits {
                max_watchers_per_key: limits.max_watchers_per_table,
                max_watchers: limits.max_watchers_per_process,
            },
        );
        Self {
            store,
            limits,
            notifier,
        }
    }

    /// Registers a watcher of `table_id`, or refuses past the limits.
    pub fn subscribe(&self, table_id: &str) -> Result<Subscription, ApiError> {
        self.notifier.subscribe(table_id)
    }

    /// Wakes the watchers of `table_id`.
    pub fn notify(&self, table_id: &str) {
        self.notifier.notify(table_id);
    }

    /// Receives the game's notifications from Redis pub/sub until shutdown,
    /// reconnecting after failures.
    pub async fn run(self, redis_url: String, shutdown: ShutdownListener) {
        let channel = self.store.notify_channel();
        self.notifier.run(redis_url, channel, shutdown).await;
    }

    /// Watches a table as `seat` (None: spectator). A fresh watch (`resume_after` None)
    /// starts with a snapshot; a resumed one continues after the given event, or starts
    /// with a snapshot only when the events after it were trimmed (or the table never
    /// reached it). A watcher that falls more than the kept events behind also gets a
    /// snapshot, never a silent gap. Ends at shutdown or when the table disappears.
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
                        Err(no_table(&table_id))?;
                        return;
                    };
                    yield WatchItem::Snapshot { seq: loaded.last_seq, state: loaded.state };
                    loaded.last_seq
                }
            };
            let mut first_read = true;
            loop {
                subscription.mark_seen();
                // The events after the cursor and the table's last sequence, as of one
                // step. Read apart, a step landing between the two reads looked like
                // trimmed events and cost a resumed watcher a snapshot in place of the
                // events it missed.
                let Some((last_seq, events)) =
                    store.events_at(&table_id, cursor, limits.batch).await?
                else {
                    if first_read && resume_after.is_some() {
                        Err(no_table(&table_id))?;
                    }
                    // The table expired (or closed and expired) while watched.
                    return;
                };
                first_read = false;
                let gap = match events.first() {
                    // The next event is gone: trimmed while the watcher was away.
                    Some(first) => first.seq != cursor + 1,
                    // Nothing after the cursor: fine only if the table is exactly there.
                    // Past it, the events after the cursor were trimmed; before it, the
                    // cursor is from the future (or from a table of the same id before).
                    None => last_seq != cursor,
                };
                if gap {
                    let Some(loaded) = store.load_raw(&table_id).await? else {
                        return;
                    };
                    yield WatchItem::Snapshot { seq: loaded.last_seq, state: loaded.state };
                    cursor = loaded.last_seq;
                    continue;
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
                    () = subscription.changed() => {}
                    () = tokio::time::sleep(limits.poll_interval) => {}
                    () = shutdown.wait() => return,
                }
            }
        })
    }
}

fn no_table(table_id: &str) -> ApiError {
    ApiError::NotFound(format!("no table {table_id}"))
}

/// Whether a stored event may go to `seat`; services filtering by hand use it.
pub fn visible_to(event: &StoredEvent, seat: Option<u8>) -> bool {
    matches!(event.audience, Audience::All) || event.audience.admits(seat)
}
