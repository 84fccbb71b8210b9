//! Watching tables: a process-wide subscription to the step notifications of one game,
//! fanned out to the watchers of each table, and the watch loop that turns a table's
//! stream into "a snapshot, then every event after it" for one seat or a spectator.
//!
//! Notifications only wake watchers; the events themselves are read from the table's
//! stream, so a missed notification (a reconnect of the pub/sub connection) delays an
//! event by at most the poll interval and never loses it.

use std::time::Duration;

use super::{Audience, StoredEvent, TableStore};
use crate::config::env::{ConfigError, Env};
use crate::error::ApiError;
use crate::notify::{Notifier, NotifyLimits, Place, Subscription};
use crate::server::ShutdownListener;

/// Limits on watchers (per server process).
#[derive(Debug, Clone)]
pub struct WatchLimits {
    /// Watch streams of one table at once, seats and spectators together. Each seat
    /// keeps [`WatchLimits::max_watchers_per_seat`] of them for its player; spectators
    /// share the rest.
    pub max_watchers_per_table: usize,
    /// Seats at a table of this game (its registry entry's `seats`).
    pub seats: u8,
    /// Watch streams the player of one seat may hold on its table, in places kept for
    /// it: no spectator can take them.
    pub max_watchers_per_seat: usize,
    /// Watch streams one caller may hold at once, across tables.
    pub max_watchers_per_caller: usize,
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
            seats: 2,
            max_watchers_per_seat: 4,
            max_watchers_per_caller: 16,
            max_watchers_per_process: 20_000,
            poll_interval: Duration::from_secs(1),
            batch: 200,
        }
    }
}

impl WatchLimits {
    /// The defaults for a game of `seats` seats, changed by `{prefix}_MAX_WATCHERS_PER_TABLE`,
    /// `{prefix}_MAX_WATCHERS_PER_SEAT` and `{prefix}_MAX_WATCHERS_PER_CALLER` (e.g. the
    /// prefix `GAMEHUB_GOMOKU`). The places kept for the seats must fit in the table's.
    pub fn from_env(env: &Env, prefix: &str, seats: u8) -> Result<Self, ConfigError> {
        let defaults = Self {
            seats,
            ..Self::default()
        };
        let per_table = format!("{prefix}_MAX_WATCHERS_PER_TABLE");
        let limits = Self {
            max_watchers_per_table: env.parse(
                &per_table,
                defaults.max_watchers_per_table,
                "a number of watch streams",
            )?,
            max_watchers_per_seat: env.parse(
                &format!("{prefix}_MAX_WATCHERS_PER_SEAT"),
                defaults.max_watchers_per_seat,
                "a number of watch streams",
            )?,
            max_watchers_per_caller: env.parse(
                &format!("{prefix}_MAX_WATCHERS_PER_CALLER"),
                defaults.max_watchers_per_caller,
                "a number of watch streams",
            )?,
            ..defaults
        };
        let reserved = usize::from(seats) * limits.max_watchers_per_seat;
        if limits.max_watchers_per_table < reserved {
            return Err(ConfigError {
                name: per_table,
                value: limits.max_watchers_per_table.to_string(),
                reason: format!(
                    "expected at least the {reserved} places kept for the {seats} seats \
                     ({prefix}_MAX_WATCHERS_PER_SEAT each)"
                ),
            });
        }
        Ok(limits)
    }

    /// The places of a table its spectators share.
    pub fn spectator_places(&self) -> usize {
        self.notify_limits().shared_places()
    }

    fn notify_limits(&self) -> NotifyLimits {
        NotifyLimits {
            max_watchers_per_key: self.max_watchers_per_table,
            seats: self.seats,
            max_watchers_per_seat: self.max_watchers_per_seat,
            max_watchers_per_caller: self.max_watchers_per_caller,
            max_watchers: self.max_watchers_per_process,
        }
    }
}

/// Who watches a table.
#[derive(Debug, Clone)]
pub struct Watcher {
    /// The caller (its subject), for the per-caller limit.
    pub caller: String,
    /// The seat the caller holds at the table, if any: its stream takes one of the
    /// places kept for that seat, even when it watches as a spectator.
    pub seated: Option<u8>,
    /// Whose events it sees: a seat's (its own and the public ones), or None for a
    /// spectator's (the public ones).
    pub sees_as: Option<u8>,
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
        let notifier = Notifier::new("table", "retry shortly", limits.notify_limits());
        Self {
            store,
            limits,
            notifier,
        }
    }

    /// Registers `caller` as a watcher of `table_id` (in a place kept for its seat
    /// when `seated`), or refuses with RESOURCE_EXHAUSTED past the limits.
    pub fn subscribe(
        &self,
        table_id: &str,
        caller: &str,
        seated: Option<u8>,
    ) -> Result<Subscription, ApiError> {
        let place = seated.map_or(Place::Shared, Place::Seat);
        self.notifier.subscribe(table_id, caller, place)
    }

    /// The limits in force.
    pub fn limits(&self) -> &WatchLimits {
        &self.limits
    }

    /// Wakes the watchers of `table_id`.
    pub fn notify(&self, table_id: &str) {
        self.notifier.notify(table_id);
    }

    /// Receives the game's notifications from Redis pub/sub until shutdown,
    /// reconnecting after failures.
    pub async fn run(self, redis: crate::RedisTarget, shutdown: ShutdownListener) {
        let channels = self.store.notify_channels();
        self.notifier.run(redis, channels, shutdown).await;
    }

    /// Watches a table as `watcher` sees it. A fresh watch (`resume_after` None)
    /// starts with a snapshot; a resumed one continues after the given event, or starts
    /// with a snapshot only when the events after it were trimmed (or the table never
    /// reached it). A watcher that falls more than the kept events behind also gets a
    /// snapshot, never a silent gap. Ends at shutdown or when the table disappears.
    /// A watcher holding no seat is counted among the table's spectators in the table
    /// list while its stream lives (`listing`).
    pub fn watch(
        &self,
        table_id: String,
        watcher: &Watcher,
        resume_after: Option<u64>,
        mut shutdown: ShutdownListener,
    ) -> Result<impl futures::Stream<Item = Result<WatchItem, ApiError>> + Send + use<>, ApiError>
    {
        let mut subscription = self.subscribe(&table_id, &watcher.caller, watcher.seated)?;
        let seat = watcher.sees_as;
        let store = self.store.clone();
        let limits = self.limits.clone();
        let spectator = watcher.seated.is_none();
        Ok(async_stream::try_stream! {
            let _counted = spectator.then(|| store.count_spectator(&table_id));
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn watch_limits_are_read_by_name_and_the_seats_places_must_fit() {
        let read = |pairs: &[(&str, &str)]| {
            WatchLimits::from_env(&Env::from_pairs(pairs.iter().copied()), "GAMEHUB_X", 3)
        };
        let defaults = read(&[]).unwrap();
        assert_eq!(
            (
                defaults.max_watchers_per_table,
                defaults.max_watchers_per_seat,
                defaults.max_watchers_per_caller,
                defaults.spectator_places()
            ),
            (64, 4, 16, 64 - 3 * 4)
        );
        let set = read(&[
            ("GAMEHUB_X_MAX_WATCHERS_PER_TABLE", "10"),
            ("GAMEHUB_X_MAX_WATCHERS_PER_SEAT", "2"),
            ("GAMEHUB_X_MAX_WATCHERS_PER_CALLER", "5"),
        ])
        .unwrap();
        assert_eq!(set.spectator_places(), 4);
        assert_eq!(set.max_watchers_per_caller, 5);
        let error = read(&[("GAMEHUB_X_MAX_WATCHERS_PER_TABLE", "11")]).unwrap_err();
        assert_eq!(error.name, "GAMEHUB_X_MAX_WATCHERS_PER_TABLE");
        assert!(
            error.reason.contains("12 places kept for the 3 seats"),
            "{}",
            error.reason
        );
    }
}
