//! Following a table's event stream across network drops.
//!
//! Both game services stream a table as a snapshot, then events numbered 1, 2, 3, …;
//! a client that lost the stream asks again with the last event id it received and
//! gets what it missed (or a fresh snapshot when those events are gone). [`Resume`]
//! is that bookkeeping, and [`spawn`] a task that keeps a stream going (waiting the
//! drive crate's [`backoff`] between attempts) and hands every item, and every change
//! of the connection, to the screen through a channel.

use std::future::Future;

use gamehub_drive::backoff;
use gamehub_proto::doudizhu as ddz;
use gamehub_proto::gomoku as gm;
use gamehub_render::describe;
use tokio::sync::mpsc;

/// Where to resume a table's stream, and which items are new.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Resume {
    /// The id of the last event applied (0: none yet, so the next watch is fresh).
    last_event_id: u64,
}

impl Resume {
    /// The `after_event_id` of the next Watch call: 0 (a fresh snapshot) until
    /// something was received, then the last event id.
    pub fn after_event_id(&self) -> u64 {
        self.last_event_id
    }

    /// A snapshot replaces everything: events continue after its `last_event_id`.
    pub fn snapshot(&mut self, last_event_id: u64) {
        self.last_event_id = last_event_id;
    }

    /// Whether the event with `event_id` is new (false for one already applied, which
    /// a server may send again right after a resume).
    pub fn event(&mut self, event_id: u64) -> bool {
        if event_id <= self.last_event_id {
            return false;
        }
        self.last_event_id = event_id;
        true
    }
}

/// Statuses that no retry can fix: the table is gone or the token may not watch it.
pub fn is_permanent(status: &tonic::Status) -> bool {
    matches!(
        status.code(),
        tonic::Code::NotFound
            | tonic::Code::PermissionDenied
            | tonic::Code::Unauthenticated
            | tonic::Code::InvalidArgument
    )
}

/// What the follower tells the screen.
#[derive(Debug, Clone)]
pub enum Feed<S, E> {
    /// The table as a whole (first, and after a resume whose events were trimmed).
    Snapshot(S),
    /// The next new event.
    Event(E),
    /// The stream broke; attempt `attempt` starts after a pause.
    Reconnecting {
        /// 1 for the first attempt after the drop.
        attempt: u32,
        /// What went wrong, for the player.
        error: String,
    },
    /// The stream is back after a drop (items follow).
    Live,
    /// The stream cannot be resumed (the table is gone, the token may not see it).
    Ended(String),
}

/// One message of a watch stream: a snapshot with its last event id, or an event with
/// its id.
pub enum Item<S, E> {
    /// A snapshot and the id of the last event it includes.
    Snapshot(S, u64),
    /// An event and its id.
    Event(E, u64),
}

/// A watch stream's message type.
pub trait WatchMessage: Send + 'static {
    /// The table snapshot type.
    type Snapshot: Send + 'static;
    /// The event type.
    type Event: Send + 'static;
    /// What the message holds; `None` for an empty message.
    fn into_item(self) -> Option<Item<Self::Snapshot, Self::Event>>;
}

impl WatchMessage for gm::WatchResponse {
    type Snapshot = gm::Table;
    type Event = gm::TableEvent;
    fn into_item(self) -> Option<Item<gm::Table, gm::TableEvent>> {
        match self.item? {
            gm::watch_response::Item::Table(t) => {
                let id = t.last_event_id;
                Some(Item::Snapshot(t, id))
            }
            gm::watch_response::Item::Event(e) => {
                let id = e.event_id;
                Some(Item::Event(e, id))
            }
        }
    }
}

impl WatchMessage for ddz::WatchResponse {
    type Snapshot = ddz::Table;
    type Event = ddz::TableEvent;
    fn into_item(self) -> Option<Item<ddz::Table, ddz::TableEvent>> {
        match self.item? {
            ddz::watch_response::Item::Snapshot(t) => {
                let id = u64::try_from(t.last_event_id).unwrap_or(0);
                Some(Item::Snapshot(t, id))
            }
            ddz::watch_response::Item::Event(e) => {
                let id = u64::try_from(e.event_id).unwrap_or(0);
                Some(Item::Event(e, id))
            }
        }
    }
}

/// The feed of a watch stream of message type `M`.
pub type FeedOf<M> = Feed<<M as WatchMessage>::Snapshot, <M as WatchMessage>::Event>;

/// Keeps the stream opened by `open(after_event_id)` going until the receiver is
/// dropped or the stream cannot be resumed, sending every new item to `tx`.
pub fn spawn<M, F, Fut>(mut open: F, tx: mpsc::Sender<FeedOf<M>>) -> tokio::task::JoinHandle<()>
where
    M: WatchMessage,
    F: FnMut(u64) -> Fut + Send + 'static,
    Fut: Future<Output = Result<tonic::Streaming<M>, tonic::Status>> + Send,
{
    tokio::spawn(async move {
        let mut resume = Resume::default();
        let mut attempt = 0u32;
        loop {
            let error = match open(resume.after_event_id()).await {
                Ok(mut stream) => {
                    // The server accepted the watch: the screen may say so at once (a
                    // quiet table sends nothing until its next event). The backoff
                    // resets only once something arrives, so a server that accepts and
                    // drops at once is not hammered.
                    if attempt > 0 && tx.send(Feed::Live).await.is_err() {
                        return;
                    }
                    loop {
                        match stream.message().await {
                            Ok(Some(message)) => {
                                attempt = 0;
                                let feed = match message.into_item() {
                                    Some(Item::Snapshot(s, id)) => {
                                        resume.snapshot(id);
                                        Feed::Snapshot(s)
                                    }
                                    Some(Item::Event(e, id)) if resume.event(id) => Feed::Event(e),
                                    _ => continue,
                                };
                                if tx.send(feed).await.is_err() {
                                    return;
                                }
                            }
                            Ok(None) => break "the server closed the stream".to_owned(),
                            Err(status) if is_permanent(&status) => {
                                let _ = tx.send(Feed::Ended(status.message().to_owned())).await;
                                return;
                            }
                            Err(status) => break describe(&status),
                        }
                    }
                }
                Err(status) if is_permanent(&status) => {
                    let _ = tx.send(Feed::Ended(status.message().to_owned())).await;
                    return;
                }
                Err(status) => describe(&status),
            };
            attempt = attempt.saturating_add(1);
            if tx
                .send(Feed::Reconnecting { attempt, error })
                .await
                .is_err()
            {
                return;
            }
            tokio::time::sleep(backoff(attempt)).await;
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fresh_watch_asks_for_a_snapshot_then_resumes_after_the_last_event() {
        let mut resume = Resume::default();
        assert_eq!(resume.after_event_id(), 0);
        resume.snapshot(7);
        assert_eq!(resume.after_event_id(), 7);
        assert!(resume.event(8));
        assert!(resume.event(9));
        assert_eq!(resume.after_event_id(), 9);
    }

    #[test]
    fn events_already_applied_are_skipped_after_a_resume() {
        let mut resume = Resume::default();
        resume.snapshot(3);
        assert!(resume.event(4));
        // The connection dropped; the server replays from 4 again.
        assert!(!resume.event(3));
        assert!(!resume.event(4));
        assert!(resume.event(5));
        assert_eq!(resume.after_event_id(), 5);
    }

    #[test]
    fn a_snapshot_after_trimmed_events_moves_the_resume_point() {
        let mut resume = Resume::default();
        resume.snapshot(3);
        assert!(resume.event(4));
        resume.snapshot(40);
        assert!(!resume.event(39));
        assert!(resume.event(41));
    }

    #[test]
    fn only_a_gone_table_or_a_refused_token_stops_reconnecting() {
        assert!(is_permanent(&tonic::Status::not_found("no table")));
        assert!(is_permanent(&tonic::Status::permission_denied("no")));
        assert!(!is_permanent(&tonic::Status::unavailable("down")));
        assert!(!is_permanent(&tonic::Status::resource_exhausted(
            "slow down"
        )));
        assert!(!is_permanent(&tonic::Status::internal("oops")));
    }
}
