//! Waking watchers across processes: every replica holds one Redis pub/sub subscription
//! to the channels on which changes publish the changed thing's id (a table, a ticket),
//! and fans each notification out to the watchers of that id in this process. There is
//! a channel per shard (tables) or per room (tickets), carrying that shard's hash tag:
//! on a Redis Cluster the subscription is sharded (`SSUBSCRIBE`, each channel on the
//! nodes of its slot, followed across failovers by the redis crate), so no notification
//! is broadcast over the whole cluster.
//!
//! A notification only wakes a watcher, which then re-reads what it watches from
//! Redis; a notification missed while the subscription reconnects delays an update by
//! at most the watcher's poll interval and never loses it. Watchers are bounded per id
//! (where each seat of the id keeps places nobody else can take, and everybody else
//! shares the rest), per caller across ids, and per process.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::StreamExt;
use tokio::sync::watch;

use crate::error::ApiError;
use crate::redis_conn::RedisTarget;
use crate::server::ShutdownListener;

/// How often a single Redis's subscription is checked with a PING.
const SUBSCRIPTION_PING_INTERVAL: Duration = Duration::from_secs(5);
/// How long that PING may take before the subscription is made anew.
const SUBSCRIPTION_PING_TIMEOUT: Duration = Duration::from_secs(3);

/// Bounds on watchers.
#[derive(Debug, Clone, Copy)]
pub struct NotifyLimits {
    /// Watchers of one id at once, the places reserved for its seats included.
    pub max_watchers_per_key: usize,
    /// Seats each id has (a table's seated players; 0 for ids without seats). Each
    /// seat has [`NotifyLimits::max_watchers_per_seat`] places of its own; every other
    /// watcher shares the rest ([`NotifyLimits::shared_places`]).
    pub seats: u8,
    /// Watchers one seat may hold at once, in places nobody else can take.
    pub max_watchers_per_seat: usize,
    /// Watchers one caller may hold at once in this process, across ids.
    pub max_watchers_per_caller: usize,
    /// Watchers in this process at once.
    pub max_watchers: usize,
}

impl NotifyLimits {
    /// The places of one id that watchers without a seat there share: the per-id limit
    /// less the places reserved for its seats.
    pub fn shared_places(&self) -> usize {
        self.max_watchers_per_key
            .saturating_sub(usize::from(self.seats) * self.max_watchers_per_seat)
    }
}

/// Which places of an id a watcher takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place {
    /// One of a seat's reserved places (the caller sits there).
    Seat(u8),
    /// One of the places everybody else shares.
    Shared,
}

struct Entry {
    tx: watch::Sender<u64>,
    shared: usize,
    /// Watchers per seat.
    seated: Vec<usize>,
}

impl Entry {
    fn is_empty(&self) -> bool {
        self.shared == 0 && self.seated.iter().all(|n| *n == 0)
    }

    fn count(&mut self, place: Place) -> &mut usize {
        match place {
            Place::Seat(seat) => &mut self.seated[usize::from(seat)],
            Place::Shared => &mut self.shared,
        }
    }
}

#[derive(Default)]
struct Registry {
    entries: HashMap<String, Entry>,
    /// Watchers per caller (callers with none are removed).
    callers: HashMap<String, usize>,
    total: usize,
}

/// The watchers of one process, keyed by what they watch.
#[derive(Clone)]
pub struct Notifier {
    what: &'static str,
    hint: &'static str,
    limits: NotifyLimits,
    registry: Arc<Mutex<Registry>>,
}

impl std::fmt::Debug for Notifier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Notifier")
            .field("what", &self.what)
            .field("limits", &self.limits)
            .finish_non_exhaustive()
    }
}

/// One watcher's registration; dropping it unregisters.
pub struct Subscription {
    notifier: Notifier,
    key: String,
    caller: String,
    place: Place,
    rx: watch::Receiver<u64>,
}

impl Subscription {
    /// Marks every notification so far as seen.
    pub fn mark_seen(&mut self) {
        self.rx.borrow_and_update();
    }

    /// Resolves at the next notification not yet seen (never, once the notifier is gone).
    pub async fn changed(&mut self) {
        if self.rx.changed().await.is_err() {
            std::future::pending::<()>().await;
        }
    }
}

impl Drop for Subscription {
    fn drop(&mut self) {
        let mut registry = self.notifier.lock();
        registry.total = registry.total.saturating_sub(1);
        if let Some(held) = registry.callers.get_mut(&self.caller) {
            *held = held.saturating_sub(1);
            if *held == 0 {
                registry.callers.remove(&self.caller);
            }
        }
        if let Some(entry) = registry.entries.get_mut(&self.key) {
            let count = entry.count(self.place);
            *count = count.saturating_sub(1);
            if entry.is_empty() {
                registry.entries.remove(&self.key);
            }
        }
    }
}

impl Notifier {
    /// Watchers of `what` (e.g. "table"); `hint` tells a refused client what to do
    /// instead (e.g. "poll GetTicket or retry later").
    pub fn new(what: &'static str, hint: &'static str, limits: NotifyLimits) -> Self {
        Self {
            what,
            hint,
            limits,
            registry: Arc::new(Mutex::new(Registry::default())),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Registry> {
        self.registry
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Registers `caller` as a watcher of `key` in `place` (a seat of its own there, or
    /// the shared places), or refuses with RESOURCE_EXHAUSTED past a limit: the
    /// process's, the caller's, or the place's. A seat beyond the id's seats takes a
    /// shared place.
    pub fn subscribe(
        &self,
        key: &str,
        caller: &str,
        place: Place,
    ) -> Result<Subscription, ApiError> {
        let limits = self.limits;
        let place = match place {
            Place::Seat(seat) if seat < limits.seats => place,
            _ => Place::Shared,
        };
        let mut registry = self.lock();
        if registry.total >= limits.max_watchers {
            return Err(ApiError::ResourceExhausted {
                message: format!(
                    "this server follows {} {}s already, the most it may; {}",
                    limits.max_watchers, self.what, self.hint
                ),
                retry_after: Some(Duration::from_secs(1)),
            });
        }
        let held = registry.callers.get(caller).copied().unwrap_or(0);
        if held >= limits.max_watchers_per_caller {
            return Err(ApiError::ResourceExhausted {
                message: format!(
                    "you hold {} watch streams on this server already, the most one caller \
                     may hold at once (any {}s); close one first",
                    limits.max_watchers_per_caller, self.what
                ),
                retry_after: None,
            });
        }
        let (what, seats) = (self.what, usize::from(limits.seats));
        let entry = registry
            .entries
            .entry(key.to_owned())
            .or_insert_with(|| Entry {
                tx: watch::channel(0).0,
                shared: 0,
                seated: vec![0; seats],
            });
        let (max, refusal) = match place {
            Place::Seat(seat) => (
                limits.max_watchers_per_seat,
                format!(
                    "seat {seat} of {what} {key} has {} watchers already, the most one seat \
                     may hold; close one first",
                    limits.max_watchers_per_seat
                ),
            ),
            Place::Shared if seats == 0 => (
                limits.shared_places(),
                format!(
                    "{what} {key} already has {} watchers, the most allowed; close one first",
                    limits.shared_places()
                ),
            ),
            Place::Shared => (
                limits.shared_places(),
                format!(
                    "{what} {key} already has {} watchers besides its seated players (whose \
                     places are kept for them), the most allowed; retry later",
                    limits.shared_places()
                ),
            ),
        };
        if *entry.count(place) >= max {
            if entry.is_empty() {
                // Only with a limit of 0: keep no entry without watchers.
                registry.entries.remove(key);
            }
            return Err(ApiError::ResourceExhausted {
                message: refusal,
                retry_after: None,
            });
        }
        *entry.count(place) += 1;
        let rx = entry.tx.subscribe();
        registry.total += 1;
        *registry.callers.entry(caller.to_owned()).or_insert(0) += 1;
        Ok(Subscription {
            notifier: self.clone(),
            key: key.to_owned(),
            caller: caller.to_owned(),
            place,
            rx,
        })
    }

    /// Wakes the watchers of `key` in this process.
    pub fn notify(&self, key: &str) {
        let registry = self.lock();
        if let Some(entry) = registry.entries.get(key) {
            entry.tx.send_modify(|n| *n = n.wrapping_add(1));
        }
    }

    fn notify_all(&self) {
        let registry = self.lock();
        for entry in registry.entries.values() {
            entry.tx.send_modify(|n| *n = n.wrapping_add(1));
        }
    }

    /// Receives notifications published on `channels` (payload: the id) until
    /// shutdown, reconnecting after failures; after each (re)connection every watcher is
    /// woken to re-read, since changes may have been published while it was away.
    pub async fn run(
        self,
        redis: RedisTarget,
        channels: Vec<String>,
        mut shutdown: ShutdownListener,
    ) {
        loop {
            let session = async {
                if redis.is_cluster() {
                    self.follow_cluster(&redis, &channels).await
                } else {
                    self.follow_single(redis.first_url(), &channels).await
                }
            };
            tokio::select! {
                result = session => {
                    if let Err(e) = result {
                        crate::metrics::dependency_error("redis");
                        tracing::warn!(error = %e, channels = channels.len(), what = self.what, "notifications interrupted; reconnecting");
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

    /// One subscription to a single Redis, until it fails.
    async fn follow_single(&self, url: &str, channels: &[String]) -> redis::RedisResult<()> {
        let client = redis::Client::open(url)?;
        let mut pubsub = client.get_async_pubsub().await?;
        pubsub.subscribe(channels).await?;
        self.notify_all();
        // A subscription only listens, so a link that lost packets silently would look
        // like a quiet one forever: a PING answered in time proves it alive
        // (`tests/partitions.rs`).
        let (mut sink, mut messages) = pubsub.split();
        // The first PING one interval after subscribing (an interval's first tick is
        // at once).
        let mut heartbeat = tokio::time::interval_at(
            tokio::time::Instant::now() + SUBSCRIPTION_PING_INTERVAL,
            SUBSCRIPTION_PING_INTERVAL,
        );
        loop {
            tokio::select! {
                message = messages.next() => {
                    let Some(message) = message else { return Ok(()) };
                    if let Ok(key) = message.get_payload::<String>() {
                        self.notify(&key);
                    }
                }
                _ = heartbeat.tick() => {
                    // Subscribed, Redis answers a PING with an array (["pong", ""]),
                    // not PONG: any answer in time proves the link alive.
                    let pong = tokio::time::timeout(SUBSCRIPTION_PING_TIMEOUT, sink.ping::<redis::Value>());
                    match pong.await {
                        Ok(reply) => {
                            reply?;
                        }
                        Err(_) => {
                            return Err(redis::RedisError::from(std::io::Error::new(
                                std::io::ErrorKind::TimedOut,
                                "the subscription did not answer a PING",
                            )));
                        }
                    }
                }
            }
        }
    }

    /// Sharded subscriptions on a cluster (RESP3 pushes). The redis crate resubscribes
    /// after a node fails or a slot moves; every watcher is woken then, as after any
    /// reconnection.
    async fn follow_cluster(
        &self,
        redis: &RedisTarget,
        channels: &[String],
    ) -> redis::RedisResult<()> {
        use redis::IntoConnectionInfo;
        let nodes = redis
            .urls()
            .map(IntoConnectionInfo::into_connection_info)
            .collect::<redis::RedisResult<Vec<_>>>()?;
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        let client = redis::cluster::ClusterClientBuilder::new(nodes)
            .use_protocol(redis::ProtocolVersion::RESP3)
            .connection_timeout(Duration::from_secs(3))
            .response_timeout(Duration::from_secs(5))
            .push_sender(tx)
            .build()?;
        let mut conn = client.get_async_connection().await?;
        // One channel per call: channels of different slots cannot share one SSUBSCRIBE.
        for channel in channels {
            conn.ssubscribe(channel).await?;
        }
        self.notify_all();
        while let Some(push) = rx.recv().await {
            match push.kind {
                redis::PushKind::SMessage | redis::PushKind::Message => {
                    if let Some(key) = push
                        .data
                        .get(1)
                        .and_then(|v| redis::from_redis_value_ref::<String>(v).ok())
                    {
                        self.notify(&key);
                    }
                }
                // (Re)subscribed: re-read everything.
                redis::PushKind::SSubscribe => self.notify_all(),
                // A node went away (killed, failed over). The redis crate does not
                // resubscribe its channels on the node that takes over its slots until
                // the connection sends a command, which this one never does: watchers
                // were then woken only by their poll, for good (seen in
                // `tests/failover.rs`). Start over: `run` subscribes anew, on the
                // masters of the moment, once the cluster answers again.
                redis::PushKind::Disconnection => {
                    self.notify_all();
                    return Err(redis::RedisError::from((
                        redis::ErrorKind::Io,
                        "a node of the subscription disconnected",
                    )));
                }
                _ => {}
            }
        }
        drop(conn);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits(per_key: usize, total: usize) -> NotifyLimits {
        NotifyLimits {
            max_watchers_per_key: per_key,
            seats: 0,
            max_watchers_per_seat: 0,
            max_watchers_per_caller: usize::MAX,
            max_watchers: total,
        }
    }

    fn refused(result: Result<Subscription, ApiError>) -> String {
        match result {
            Err(ApiError::ResourceExhausted { message, .. }) => message,
            Err(other) => panic!("expected RESOURCE_EXHAUSTED, got {other:?}"),
            Ok(_) => panic!("expected RESOURCE_EXHAUSTED, got a subscription"),
        }
    }

    #[test]
    fn watchers_are_bounded_per_key_and_per_process() {
        let n = Notifier::new("table", "retry later", limits(2, 3));
        let a = n.subscribe("t", "x", Place::Shared).unwrap();
        let _b = n.subscribe("t", "y", Place::Shared).unwrap();
        refused(n.subscribe("t", "z", Place::Shared));
        let _c = n.subscribe("u", "z", Place::Shared).unwrap();
        refused(n.subscribe("v", "z", Place::Shared));
        drop(a);
        assert!(
            n.subscribe("t", "z", Place::Shared).is_ok(),
            "a freed place can be taken again"
        );
    }

    #[test]
    fn seats_keep_their_places_and_the_others_share_the_rest() {
        let n = Notifier::new(
            "table",
            "retry later",
            NotifyLimits {
                max_watchers_per_key: 7,
                seats: 2,
                max_watchers_per_seat: 2,
                max_watchers_per_caller: usize::MAX,
                max_watchers: 100,
            },
        );
        // Strangers fill the shared places: 7 − 2 × 2 = 3.
        let strangers: Vec<_> = (0..3)
            .map(|i| n.subscribe("t", &format!("s{i}"), Place::Shared).unwrap())
            .collect();
        let message = refused(n.subscribe("t", "s3", Place::Shared));
        assert!(
            message.contains("3 watchers besides its seated players"),
            "{message}"
        );
        // Each seat still gets its own places, and no more.
        let _seat0 = [0, 1].map(|_| n.subscribe("t", "p0", Place::Seat(0)).unwrap());
        let seat1 = [0, 1].map(|_| n.subscribe("t", "p1", Place::Seat(1)).unwrap());
        let message = refused(n.subscribe("t", "p1", Place::Seat(1)));
        assert!(
            message.starts_with("seat 1 of table t has 2 watchers"),
            "{message}"
        );
        // A seat's freed place is its own again, not a stranger's.
        drop(seat1);
        refused(n.subscribe("t", "s3", Place::Shared));
        assert!(n.subscribe("t", "p1", Place::Seat(1)).is_ok());
        // A seat the id does not have takes a shared place.
        refused(n.subscribe("t", "p9", Place::Seat(9)));
        drop(strangers);
        assert!(n.subscribe("t", "p9", Place::Seat(9)).is_ok());
    }

    #[test]
    fn one_caller_holds_at_most_its_share_across_keys() {
        let n = Notifier::new(
            "table",
            "retry later",
            NotifyLimits {
                max_watchers_per_caller: 3,
                ..limits(10, 100)
            },
        );
        let mut held: Vec<_> = (0..3)
            .map(|i| {
                n.subscribe(&format!("t{i}"), "greedy", Place::Shared)
                    .unwrap()
            })
            .collect();
        let message = refused(n.subscribe("t9", "greedy", Place::Shared));
        assert!(message.starts_with("you hold 3 watch streams"), "{message}");
        assert!(
            n.subscribe("t9", "someone else", Place::Shared).is_ok(),
            "other callers are not affected"
        );
        held.pop();
        assert!(n.subscribe("t9", "greedy", Place::Shared).is_ok());
    }

    #[tokio::test(start_paused = true)]
    async fn a_notification_wakes_only_the_watchers_of_its_key() {
        let n = Notifier::new("ticket", "poll", limits(8, 8));
        let mut a = n.subscribe("a", "x", Place::Shared).unwrap();
        let mut b = n.subscribe("b", "x", Place::Shared).unwrap();
        n.notify("a");
        tokio::time::timeout(Duration::from_millis(100), a.changed())
            .await
            .expect("a is woken");
        assert!(
            tokio::time::timeout(Duration::from_millis(50), b.changed())
                .await
                .is_err(),
            "b is not"
        );
    }
}
