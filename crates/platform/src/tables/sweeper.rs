//! Clock deadlines: every replica sweeps the deadline index of every shard and hands
//! each due table to the game service, which re-judges it in an atomic step. Because
//! the step checks the table's version, a timeout is applied once however many
//! replicas sweep at the same moment, and no client needs to be connected.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt;

use super::TableStore;
use crate::metrics::metrics;
use crate::server::ShutdownListener;

/// What a game service does with a table whose deadline has come.
pub trait DeadlineHandler: Send + Sync + 'static {
    /// Re-judge `table_id` at `now_ms` (the store's clock at the sweep): apply the
    /// timeout if the table's own clock says so, else put the deadline index right with
    /// [`TableStore::reschedule`].
    fn on_deadline(&self, table_id: String, now_ms: u64) -> impl Future<Output = ()> + Send;
}

/// How the sweeper runs.
#[derive(Debug, Clone)]
pub struct SweepConfig {
    /// Time between sweeps.
    pub interval: Duration,
    /// Due tables taken per shard per sweep.
    pub batch_per_shard: usize,
    /// Due tables handled at once.
    pub concurrency: usize,
    /// How often the live-table and backlog gauges are refreshed.
    pub gauge_interval: Duration,
}

impl Default for SweepConfig {
    fn default() -> Self {
        Self {
            interval: Duration::from_millis(100),
            batch_per_shard: 100,
            concurrency: 32,
            gauge_interval: Duration::from_secs(5),
        }
    }
}

/// Sweeps until shutdown.
pub async fn run_sweeper<H: DeadlineHandler>(
    store: TableStore,
    handler: Arc<H>,
    config: SweepConfig,
    mut shutdown: ShutdownListener,
) {
    let mut ticker = tokio::time::interval(config.interval);
    ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut last_gauges = tokio::time::Instant::now() - config.gauge_interval;
    loop {
        tokio::select! {
            _ = ticker.tick() => {},
            () = shutdown.wait() => return,
        }
        let now = store.clock().now_ms();
        match store.due_tables(now, config.batch_per_shard).await {
            Ok(due) if !due.is_empty() => {
                futures::stream::iter(due)
                    .for_each_concurrent(config.concurrency, |table_id| {
                        let handler = handler.clone();
                        async move { handler.on_deadline(table_id, now).await }
                    })
                    .await;
            }
            Ok(_) => {}
            Err(e) => tracing::warn!(game = store.game(), error = %e, "deadline sweep failed"),
        }
        if last_gauges.elapsed() >= config.gauge_interval {
            last_gauges = tokio::time::Instant::now();
            refresh_gauges(&store).await;
        }
    }
}

async fn refresh_gauges(store: &TableStore) {
    let m = metrics();
    if let Ok(live) = store.live_tables().await {
        m.live_tables
            .with_label_values(&[store.game()])
            .set(i64::try_from(live).unwrap_or(i64::MAX));
    }
    if let Ok(backlog) = store.settlement_backlog().await {
        m.settlement_backlog
            .with_label_values(&[store.game()])
            .set(i64::try_from(backlog).unwrap_or(i64::MAX));
    }
    if let Ok(dead) = store.dead_letters().await {
        m.dead_letters
            .with_label_values(&[store.game()])
            .set(i64::try_from(dead).unwrap_or(i64::MAX));
    }
}
