//! A clock a test moves by hand ([`ManualClock`]), and waiting on a condition with a
//! bound ([`eventually`]).
//!
//! A service started with `config.common.clock = clock.clock()` reads every "now" from
//! it: its turn clocks, between-games closes, claim and ticket deadlines only run out
//! when the test [`ManualClock::advance`]s it, however slow the machine is. What the
//! service does next (a sweep every few tens of milliseconds) still runs on real time,
//! so a test waits for its effect with [`eventually`] or on a stream, with a bound.

use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use gamehub_platform::Clock;
use gamehub_platform::clock::{SystemTimeSource, TimeSource};

/// A clock that stands still until the test moves it. Cheap to clone; clones share the
/// time.
#[derive(Debug, Clone)]
pub struct ManualClock {
    now_ms: Arc<AtomicU64>,
}

impl ManualClock {
    /// A clock standing at the system clock's time now (so stored Unix times stay
    /// plausible: the ledger and the records see today's date).
    pub fn new() -> Self {
        Self::at(SystemTimeSource.now_ms())
    }

    /// A clock standing at `now_ms` (Unix ms).
    pub fn at(now_ms: u64) -> Self {
        Self {
            now_ms: Arc::new(AtomicU64::new(now_ms)),
        }
    }

    /// The service clock reading this one (for `CommonConfig::clock`, the stores).
    pub fn clock(&self) -> Clock {
        Clock::from_source(Arc::new(self.clone()))
    }

    /// Moves the time forward by `by`; returns the new time.
    pub fn advance(&self, by: Duration) -> u64 {
        let by = u64::try_from(by.as_millis()).unwrap_or(u64::MAX);
        self.now_ms.fetch_add(by, Ordering::SeqCst) + by
    }

    /// Moves the time forward to `at_ms` (never back); returns the new time.
    pub fn advance_to(&self, at_ms: u64) -> u64 {
        self.now_ms.fetch_max(at_ms, Ordering::SeqCst).max(at_ms)
    }

    /// Now, by this clock.
    pub fn now_ms(&self) -> u64 {
        self.now_ms.load(Ordering::SeqCst)
    }
}

impl Default for ManualClock {
    fn default() -> Self {
        Self::new()
    }
}

impl TimeSource for ManualClock {
    fn now_ms(&self) -> u64 {
        ManualClock::now_ms(self)
    }
}

/// How often [`eventually`] looks again.
const POLL: Duration = Duration::from_millis(20);

/// Waits until `check` returns `Some`, looking every 20 ms, and returns it; panics
/// naming `what` when `within` passes first. For effects a service applies in the
/// background (a sweep, a settlement): the bound is a failure, not a time the test
/// counts on.
pub async fn eventually<T, F, Fut>(what: &str, within: Duration, mut check: F) -> T
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Option<T>>,
{
    let waited = tokio::time::timeout(within, async {
        loop {
            if let Some(found) = check().await {
                return found;
            }
            tokio::time::sleep(POLL).await;
        }
    })
    .await;
    waited.unwrap_or_else(|_| panic!("{what}: not reached within {within:?}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_time_moves_only_when_told_and_never_back() {
        let manual = ManualClock::at(1_000);
        let clock = manual.clock();
        assert_eq!(clock.now_ms(), 1_000);
        assert_eq!(manual.advance(Duration::from_millis(250)), 1_250);
        assert_eq!(clock.now_ms(), 1_250, "clones share the time");
        assert_eq!(manual.advance_to(1_100), 1_250, "never back");
        assert_eq!(manual.advance_to(2_000), 2_000);
        assert_eq!(clock.now_ms(), 2_000);
    }

    #[tokio::test]
    async fn eventually_returns_what_the_check_found() {
        let mut calls = 0;
        let found = eventually("the third look", Duration::from_secs(5), || {
            calls += 1;
            let now = calls;
            async move { (now == 3).then_some(now) }
        })
        .await;
        assert_eq!(found, 3);
    }

    #[tokio::test]
    #[should_panic(expected = "never: not reached within")]
    async fn eventually_fails_at_its_bound() {
        eventually("never", Duration::from_millis(50), || async { None::<()> }).await;
    }
}
