//! Waking watchers across processes: every replica holds one Redis pub/sub subscription
//! to a channel on which changes publish the changed thing's id (a table, a ticket),
//! and fans each notification out to the watchers of that id in this process.
//!
//! A notification only wakes a watcher, which then re-reads what it watches from
//! Redis; a notification missed while the subscription reconnects delays an update by
//! at most the watcher's poll interval and never loses it. Watchers are bounded per id
//! and per process.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::StreamExt;
use tokio::sync::watch;

use crate::error::ApiError;
use crate::server::ShutdownListener;

/// Bounds on watchers.
#[derive(Debug, Clone, Copy)]
pub struct NotifyLimits {
    /// Watchers of one id at once.
    pub max_watchers_per_key: usize,
    /// Watchers in this process at once.
    pub max_watchers: usize,
}

struct Entry {
    tx: watch::Sender<u64>,
    watchers: usize,
}

#[derive(Default)]
struct Registry {
    entries: HashMap<String, Entry>,
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
        if let Some(entry) = registry.entries.get_mut(&self.key) {
            entry.watchers = entry.watchers.saturating_sub(1);
            if entry.watchers == 0 {
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

    /// Registers a watcher of `key`, or refuses past the limits.
    pub fn subscribe(&self, key: &str) -> Result<Subscription, ApiError> {
        let mut registry = self.lock();
        if registry.total >= self.limits.max_watchers {
            return Err(ApiError::ResourceExhausted {
                message: format!(
                    "this server follows {} {}s already, the most it may; {}",
                    self.limits.max_watchers, self.what, self.hint
                ),
                retry_after: Some(Duration::from_secs(1)),
            });
        }
        let max = self.limits.max_watchers_per_key;
        let entry = registry
            .entries
            .entry(key.to_owned())
            .or_insert_with(|| Entry {
                tx: watch::channel(0).0,
                watchers: 0,
            });
        if entry.watchers >= max {
            if entry.watchers == 0 {
                // Only with a limit of 0: keep no entry without watchers.
                registry.entries.remove(key);
            }
            return Err(ApiError::ResourceExhausted {
                message: format!(
                    "{} {key} already has {max} watchers, the most allowed; close one first",
                    self.what
                ),
                retry_after: None,
            });
        }
        entry.watchers += 1;
        let rx = entry.tx.subscribe();
        registry.total += 1;
        Ok(Subscription {
            notifier: self.clone(),
            key: key.to_owned(),
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

    /// Receives notifications published on `channel` (payload: the id) until shutdown,
    /// reconnecting after failures; after each (re)connection every watcher is woken to
    /// re-read, since changes may have been published while it was away.
    pub async fn run(self, redis_url: String, channel: String, mut shutdown: ShutdownListener) {
        loop {
            let session = async {
                let client = redis::Client::open(redis_url.as_str())?;
                let mut pubsub = client.get_async_pubsub().await?;
                pubsub.subscribe(&channel).await?;
                self.notify_all();
                let mut messages = pubsub.on_message();
                while let Some(message) = messages.next().await {
                    if let Ok(key) = message.get_payload::<String>() {
                        self.notify(&key);
                    }
                }
                Ok::<(), redis::RedisError>(())
            };
            tokio::select! {
                result = session => {
                    if let Err(e) = result {
                        crate::metrics::dependency_error("redis");
                        tracing::warn!(error = %e, channel, what = self.what, "notifications interrupted; reconnecting");
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
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn watchers_are_bounded_per_key_and_per_process() {
        let n = Notifier::new(
            "table",
            "retry later",
            NotifyLimits {
                max_watchers_per_key: 2,
                max_watchers: 3,
            },
        );
        let a = n.subscribe("t").unwrap();
        let _b = n.subscribe("t").unwrap();
        assert!(matches!(
            n.subscribe("t"),
            Err(ApiError::ResourceExhausted { .. })
        ));
        let _c = n.subscribe("u").unwrap();
        assert!(matches!(
            n.subscribe("v"),
            Err(ApiError::ResourceExhausted { .. })
        ));
        drop(a);
        assert!(n.subscribe("t").is_ok(), "a freed place can be taken again");
    }

    #[tokio::test(start_paused = true)]
    async fn a_notification_wakes_only_the_watchers_of_its_key() {
        let n = Notifier::new(
            "ticket",
            "poll",
            NotifyLimits {
                max_watchers_per_key: 8,
                max_watchers: 8,
            },
        );
        let mut a = n.subscribe("a").unwrap();
        let mut b = n.subscribe("b").unwrap();
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
