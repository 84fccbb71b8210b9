//! Watching tickets: one Redis pub/sub subscription per process (every ticket change
//! publishes the ticket id, see [`crate::store`]) fanned out to the watchers of each
//! ticket. Notifications only wake watchers, which then re-read the ticket; a missed
//! notification delays an update by at most the poll interval, never loses it. The
//! poll also catches queue positions that moved because other tickets left.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::StreamExt;
use gamehub_platform::ApiError;
use gamehub_platform::server::ShutdownListener;
use tokio::sync::watch;

/// Limits on watchers.
#[derive(Debug, Clone)]
pub struct WatchLimits {
    /// Watchers in this process at once.
    pub max_watchers: usize,
    /// Watchers of one ticket at once.
    pub max_watchers_per_ticket: usize,
    /// How often a watcher re-reads its ticket without a notification.
    pub poll_interval: Duration,
}

impl Default for WatchLimits {
    fn default() -> Self {
        Self {
            max_watchers: 20_000,
            max_watchers_per_ticket: 8,
            poll_interval: Duration::from_secs(1),
        }
    }
}

struct Entry {
    tx: watch::Sender<u64>,
    watchers: usize,
}

#[derive(Default)]
struct Registry {
    tickets: HashMap<String, Entry>,
    total: usize,
}

/// Fans ticket notifications out to watchers.
#[derive(Clone)]
pub struct TicketHub {
    limits: WatchLimits,
    registry: Arc<Mutex<Registry>>,
}

impl std::fmt::Debug for TicketHub {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TicketHub")
            .field("limits", &self.limits)
            .finish_non_exhaustive()
    }
}

/// One watcher's registration; dropping it unregisters.
pub struct Subscription {
    hub: TicketHub,
    ticket_id: String,
    rx: watch::Receiver<u64>,
}

impl Subscription {
    /// Resolves at the next notification for the ticket.
    pub async fn changed(&mut self) {
        if self.rx.changed().await.is_err() {
            std::future::pending::<()>().await;
        }
    }
}

impl Drop for Subscription {
    fn drop(&mut self) {
        let mut registry = self.hub.lock();
        registry.total = registry.total.saturating_sub(1);
        if let Some(entry) = registry.tickets.get_mut(&self.ticket_id) {
            entry.watchers = entry.watchers.saturating_sub(1);
            if entry.watchers == 0 {
                registry.tickets.remove(&self.ticket_id);
            }
        }
    }
}

impl TicketHub {
    /// A hub with these limits.
    pub fn new(limits: WatchLimits) -> Self {
        Self {
            limits,
            registry: Arc::new(Mutex::new(Registry::default())),
        }
    }

    /// The limits in force.
    pub fn limits(&self) -> &WatchLimits {
        &self.limits
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Registry> {
        self.registry
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Registers a watcher of `ticket_id`, within the limits.
    pub fn subscribe(&self, ticket_id: &str) -> Result<Subscription, ApiError> {
        let mut registry = self.lock();
        if registry.total >= self.limits.max_watchers {
            return Err(ApiError::ResourceExhausted {
                message: format!(
                    "this server follows {} tickets already; poll GetTicket or retry later",
                    self.limits.max_watchers
                ),
                retry_after: Some(Duration::from_secs(5)),
            });
        }
        let max_per_ticket = self.limits.max_watchers_per_ticket;
        let entry = registry
            .tickets
            .entry(ticket_id.to_owned())
            .or_insert_with(|| Entry {
                tx: watch::channel(0).0,
                watchers: 0,
            });
        if entry.watchers >= max_per_ticket {
            return Err(ApiError::ResourceExhausted {
                message: format!(
                    "ticket {ticket_id} has {max_per_ticket} watchers already; close one first"
                ),
                retry_after: None,
            });
        }
        entry.watchers += 1;
        let rx = entry.tx.subscribe();
        registry.total += 1;
        Ok(Subscription {
            hub: self.clone(),
            ticket_id: ticket_id.to_owned(),
            rx,
        })
    }

    /// Wakes the watchers of `ticket_id`.
    pub fn notify(&self, ticket_id: &str) {
        let registry = self.lock();
        if let Some(entry) = registry.tickets.get(ticket_id) {
            entry.tx.send_modify(|n| *n = n.wrapping_add(1));
        }
    }

    fn notify_all(&self) {
        let registry = self.lock();
        for entry in registry.tickets.values() {
            entry.tx.send_modify(|n| *n = n.wrapping_add(1));
        }
    }

    /// Receives ticket notifications from `channel` until shutdown, reconnecting after
    /// failures.
    pub async fn run(self, redis_url: String, channel: String, mut shutdown: ShutdownListener) {
        loop {
            let session = async {
                let client = redis::Client::open(redis_url.as_str())?;
                let mut pubsub = client.get_async_pubsub().await?;
                pubsub.subscribe(&channel).await?;
                // Anything that changed while we were away: re-read.
                self.notify_all();
                let mut messages = pubsub.on_message();
                while let Some(message) = messages.next().await {
                    if let Ok(ticket_id) = message.get_payload::<String>() {
                        self.notify(&ticket_id);
                    }
                }
                Ok::<(), redis::RedisError>(())
            };
            tokio::select! {
                result = session => {
                    if let Err(e) = result {
                        gamehub_platform::metrics::dependency_error("redis");
                        tracing::warn!(error = %e, channel, "ticket notifications interrupted; reconnecting");
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
