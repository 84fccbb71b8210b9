//! Fan-out to `WatchTournament` streams: one task per process reads the versions of the
//! tournaments being watched every [`POLL`], and wakes the streams of those that changed
//! (each then reads its tournament once). Any replica's change reaches every replica's
//! streams this way, with one query per poll whatever the number of streams.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use gamehub_platform::error::ApiError;
use gamehub_platform::server::ShutdownListener;
use tokio::sync::{OwnedSemaphorePermit, Semaphore, watch};

use crate::store::Store;

/// How often watched tournaments are looked at.
pub const POLL: Duration = Duration::from_millis(250);

/// Streams following tournaments.
#[derive(Debug, Clone)]
pub struct Hub {
    store: Store,
    /// One version channel per watched tournament.
    watched: Arc<Mutex<HashMap<String, watch::Sender<i64>>>>,
    /// `GAMEHUB_TOURNAMENTS_MAX_WATCHERS`: streams this process serves at most.
    streams: Arc<Semaphore>,
    max_streams: usize,
}

impl Hub {
    pub fn new(store: Store, max_streams: usize) -> Self {
        Self {
            store,
            watched: Arc::default(),
            streams: Arc::new(Semaphore::new(max_streams)),
            max_streams,
        }
    }

    /// A place for one more stream of tournament `id`, and its wake-ups.
    pub fn subscribe(
        &self,
        id: &str,
    ) -> Result<(watch::Receiver<i64>, OwnedSemaphorePermit), ApiError> {
        let permit = Arc::clone(&self.streams).try_acquire_owned().map_err(|_| {
            ApiError::ResourceExhausted {
                message: format!(
                    "this server follows {} tournament streams already; try again later",
                    self.max_streams
                ),
                retry_after: Some(Duration::from_secs(5)),
            }
        })?;
        let mut watched = self
            .watched
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let sender = watched
            .entry(id.to_owned())
            .or_insert_with(|| watch::channel(0).0);
        Ok((sender.subscribe(), permit))
    }

    /// Polls until `stop`.
    pub async fn run(self, mut stop: ShutdownListener) {
        loop {
            tokio::select! {
                () = tokio::time::sleep(POLL) => {}
                () = stop.wait() => return,
            }
            let ids: Vec<String> = {
                let mut watched = self
                    .watched
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner);
                watched.retain(|_, sender| sender.receiver_count() > 0);
                watched.keys().cloned().collect()
            };
            if ids.is_empty() {
                continue;
            }
            let versions = match self.store.versions(&ids).await {
                Ok(versions) => versions,
                Err(e) => {
                    tracing::debug!(error = %e, "cannot read the watched tournaments' versions");
                    continue;
                }
            };
            let watched = self
                .watched
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            for (id, version) in versions {
                if let Some(sender) = watched.get(&id) {
                    sender.send_if_modified(|seen| {
                        let changed = *seen != version;
                        *seen = version;
                        changed
                    });
                }
            }
        }
    }
}
