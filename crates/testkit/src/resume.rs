//! A watcher on a flaky network: it loses its stream over and over and resumes after
//! the last event it received. The resume tests of the platform and of both games drive
//! it while their tables are played hard, then check what it saw.

use std::future::Future;
use std::time::Duration;

use tokio_stream::{Stream, StreamExt};

/// One item of a watch stream, as a resume test needs it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Seen {
    /// A snapshot, as of this event id.
    Snapshot(u64),
    /// The event of this id.
    Event(u64),
}

/// What one watcher saw over its resumes.
#[derive(Debug, Clone)]
pub struct Resumed {
    /// The event id of its first (fresh) watch's snapshot.
    pub start: u64,
    /// Every event id received after it, in order.
    pub seen: Vec<u64>,
    /// Snapshots received on resumes.
    pub snapshots: usize,
}

impl Resumed {
    /// The last event id received.
    pub fn last(&self) -> u64 {
        *self.seen.last().expect("the watcher received events")
    }
}

async fn next<S: Stream<Item = Seen> + Unpin>(stream: &mut S) -> Seen {
    tokio::time::timeout(Duration::from_secs(10), stream.next())
        .await
        .expect("a watch item within 10 s")
        .expect("the stream goes on")
}

/// Watches afresh (`watch(0)`), then resumes `rounds` times after the last event
/// received (`watch(last)`), reading `1 + round % 4` items each time and dropping the
/// stream.
pub async fn resume_repeatedly<S, F, Fut>(mut watch: F, rounds: usize) -> Resumed
where
    F: FnMut(u64) -> Fut,
    Fut: Future<Output = S>,
    S: Stream<Item = Seen> + Unpin,
{
    let mut fresh = watch(0).await;
    let Seen::Snapshot(start) = next(&mut fresh).await else {
        panic!("a fresh watch starts with a snapshot");
    };
    drop(fresh);
    let (mut last, mut seen, mut snapshots) = (start, Vec::new(), 0);
    for round in 0..rounds {
        let mut stream = watch(last).await;
        for _ in 0..=round % 4 {
            match next(&mut stream).await {
                Seen::Event(id) => {
                    seen.push(id);
                    last = id;
                }
                Seen::Snapshot(id) => {
                    snapshots += 1;
                    last = id;
                }
            }
        }
    }
    Resumed {
        start,
        seen,
        snapshots,
    }
}
