//! Where a service's "now" comes from.
//!
//! Every deadline a service stores (a turn clock, a between-games close, a claim's
//! timeout, a ticket's expiry) is wall-clock milliseconds since the Unix epoch, kept in
//! Redis so any replica can judge it. [`Clock`] is the one source of those
//! milliseconds: a service reads the time only through the clock it was configured with
//! ([`crate::config::CommonConfig::clock`]), the system clock unless a test (or an
//! embedding program) hands it another [`TimeSource`]. So a test makes a turn clock
//! run out by advancing its own clock, instead of sleeping until the wall clock has
//! moved far enough.
//!
//! What the clock does not cover: pacing (how often a sweeper or reaper looks, retry
//! backoff, request timeouts) runs on tokio's timers, since it decides when work is
//! looked at, never what the outcome is.

use std::fmt;
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

/// A source of wall-clock time, in milliseconds since the Unix epoch.
pub trait TimeSource: Send + Sync + fmt::Debug + 'static {
    /// Now, in Unix milliseconds.
    fn now_ms(&self) -> u64;
}

/// The operating system's clock.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemTimeSource;

impl TimeSource for SystemTimeSource {
    fn now_ms(&self) -> u64 {
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
            .unwrap_or(0)
    }
}

/// A service's clock: cheap to clone, shared by everything a service runs (handlers,
/// sweeper, settler, matcher, reaper).
#[derive(Clone)]
pub struct Clock {
    source: Arc<dyn TimeSource>,
}

impl Clock {
    /// The operating system's clock (what every service uses unless told otherwise).
    pub fn system() -> Self {
        Self::from_source(Arc::new(SystemTimeSource))
    }

    /// A clock reading `source` (a test's manual clock, for one).
    pub fn from_source(source: Arc<dyn TimeSource>) -> Self {
        Self { source }
    }

    /// Now, in Unix milliseconds.
    pub fn now_ms(&self) -> u64 {
        self.source.now_ms()
    }

    /// Milliseconds from `since_ms` to now (0 when `since_ms` is in the future).
    pub fn elapsed_ms(&self, since_ms: u64) -> u64 {
        self.now_ms().saturating_sub(since_ms)
    }
}

impl Default for Clock {
    fn default() -> Self {
        Self::system()
    }
}

impl fmt::Debug for Clock {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Clock").field(&self.source).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug)]
    struct Fixed(u64);

    impl TimeSource for Fixed {
        fn now_ms(&self) -> u64 {
            self.0
        }
    }

    #[test]
    fn the_system_clock_reads_the_unix_time() {
        // 2024-01-01 in Unix ms: any machine running this is later.
        assert!(Clock::system().now_ms() > 1_704_067_200_000);
    }

    #[test]
    fn a_clock_reads_its_source() {
        let clock = Clock::from_source(Arc::new(Fixed(5_000)));
        assert_eq!(clock.now_ms(), 5_000);
        assert_eq!(clock.elapsed_ms(4_000), 1_000);
        assert_eq!(
            clock.elapsed_ms(6_000),
            0,
            "a future instant is not negative"
        );
    }
}
