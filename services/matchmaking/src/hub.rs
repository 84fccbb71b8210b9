//! Watching tickets: every ticket change publishes the ticket id (see
//! [`crate::store`]); the platform's [`Notifier`] holds one Redis pub/sub subscription
//! per process and wakes the watchers of that ticket, which then re-read it. A missed
//! notification delays an update by at most the poll interval, never loses it; the
//! poll also catches queue positions that moved because other tickets left.

use std::time::Duration;

use gamehub_platform::ApiError;
use gamehub_platform::notify::{Notifier, NotifyLimits, Place, Subscription};
use gamehub_platform::server::ShutdownListener;

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

/// Fans ticket notifications out to watchers.
#[derive(Clone, Debug)]
pub struct TicketHub {
    limits: WatchLimits,
    notifier: Notifier,
}

impl TicketHub {
    /// A hub with these limits.
    pub fn new(limits: WatchLimits) -> Self {
        let notifier = Notifier::new(
            "ticket",
            "poll GetTicket or retry later",
            NotifyLimits {
                max_watchers_per_key: limits.max_watchers_per_ticket,
                // Only its owner (or a service or operator) may watch a ticket, so
                // nobody can take the owner's places, and a player has one live
                // ticket: the per-ticket bound is the per-caller one.
                seats: 0,
                max_watchers_per_seat: 0,
                max_watchers_per_caller: usize::MAX,
                max_watchers: limits.max_watchers,
            },
        );
        Self { limits, notifier }
    }

    /// The limits in force.
    pub fn limits(&self) -> &WatchLimits {
        &self.limits
    }

    /// Registers `caller` as a watcher of `ticket_id`, within the limits.
    pub fn subscribe(&self, ticket_id: &str, caller: &str) -> Result<Subscription, ApiError> {
        self.notifier.subscribe(ticket_id, caller, Place::Shared)
    }

    /// Wakes the watchers of `ticket_id`.
    pub fn notify(&self, ticket_id: &str) {
        self.notifier.notify(ticket_id);
    }

    /// Receives ticket notifications from `channels` (one per room) until shutdown, reconnecting after
    /// failures.
    pub async fn run(
        self,
        redis: gamehub_platform::RedisTarget,
        channels: Vec<String>,
        shutdown: ShutdownListener,
    ) {
        self.notifier.run(redis, channels, shutdown).await;
    }
}
