//! Behind the `testing` feature, for tests (this crate's and others'): a Dou Dizhu dealer
//! in the test's process, on a free port and a Redis key prefix of the test's own,
//! settling at the ledger it is given; test seeds allowed, so a test can choose the hands.

use std::time::Duration;

use gamehub_platform::Clock;
use gamehub_platform::config::Env;
use gamehub_testkit::server::TestServer;

use crate::DealerConfig;

/// Dealer settings a test may change.
#[derive(Debug, Clone)]
pub struct Options {
    /// `GAMEHUB_DOUDIZHU_AUTO_TURN_MS`: an auto-playing seat's turn; 0 plays at once.
    pub auto_turn_ms: u64,
    /// `GAMEHUB_DOUDIZHU_NEXT_DEAL_TIMEOUT_MS`: how long a finished deal waits for all
    /// three to ask for the next.
    pub next_deal_timeout_ms: u64,
    /// `GAMEHUB_DOUDIZHU_REDEAL_PAUSE_MS`: the pause before a redeal.
    pub redeal_pause_ms: u64,
    /// The dealer's clock (in this process only; a child process runs on the system
    /// clock): a test's [`gamehub_testkit::clock::ManualClock`] makes turns run out only when the
    /// test advances it.
    pub clock: Clock,
    /// More environment variables (e.g. watcher limits), after the ones above.
    pub env: Vec<(String, String)>,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            auto_turn_ms: 0,
            next_deal_timeout_ms: 60_000,
            redeal_pause_ms: 0,
            clock: Clock::system(),
            env: Vec::new(),
        }
    }
}

/// The environment of a test dealer (in this process or as a child process).
pub fn dealer_env(
    prefix: &str,
    ledger_url: &str,
    options: &Options,
    addr: &str,
) -> Vec<(String, String)> {
    [
        ("GAMEHUB_ENV", "development".to_owned()),
        ("REDIS_URL", gamehub_testkit::redis::redis_url()),
        (
            "GAMEHUB_REDIS_CLUSTER",
            gamehub_testkit::redis::redis_cluster().to_string(),
        ),
        ("GAMEHUB_REDIS_PREFIX", prefix.to_owned()),
        ("GAMEHUB_LEDGER_URL", ledger_url.to_owned()),
        ("GAMEHUB_DOUDIZHU_ADDR", addr.to_owned()),
        ("GAMEHUB_DEALER_TEST_SEEDS", "1".to_owned()),
        ("GAMEHUB_PLAYER_RATE_PER_SECOND", "0".to_owned()),
        (
            "GAMEHUB_DOUDIZHU_AUTO_TURN_MS",
            options.auto_turn_ms.to_string(),
        ),
        (
            "GAMEHUB_DOUDIZHU_NEXT_DEAL_TIMEOUT_MS",
            options.next_deal_timeout_ms.to_string(),
        ),
        (
            "GAMEHUB_DOUDIZHU_REDEAL_PAUSE_MS",
            options.redeal_pause_ms.to_string(),
        ),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v))
    .chain(options.env.iter().cloned())
    .collect()
}

/// Starts a dealer on a free port over `prefix`, settling at `ledger_url`, with fast
/// sweeps and settlement retries.
pub async fn start(prefix: &str, ledger_url: &str, options: &Options) -> TestServer {
    let env = Env::from_pairs(dealer_env(prefix, ledger_url, options, "127.0.0.1:0"));
    let mut config = DealerConfig::from_env(&env)
        .unwrap_or_else(|e| panic!("the test dealer's configuration: {e}"));
    config.sweep.interval = Duration::from_millis(50);
    config.settler.interval = Duration::from_millis(50);
    config.settler.min_backoff = Duration::from_millis(100);
    config.settler.max_backoff = Duration::from_millis(500);
    config.settler.lease = Duration::from_secs(2);
    config.common.clock = options.clock.clone();
    TestServer::start(|shutdown| crate::start(config, shutdown)).await
}
