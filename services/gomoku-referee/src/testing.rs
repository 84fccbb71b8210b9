//! Behind the `testing` feature, for tests (this crate's and others'): a Gomoku referee
//! in the test's process, on a free port and a Redis key prefix of the test's own,
//! settling at the ledger it is given.

use gamehub_platform::Clock;
use gamehub_platform::config::Env;
use gamehub_testkit::server::TestServer;

use crate::RefereeConfig;

/// The environment of a test referee (in this process or as a child process): the
/// test's Redis and prefix, its ledger, `addr` to listen on, fast sweeps and settlement
/// retries, no per-player rate limit.
pub fn referee_env(prefix: &str, ledger_url: &str, addr: &str) -> Vec<(String, String)> {
    [
        ("REDIS_URL", gamehub_testkit::redis::redis_url()),
        (
            "GAMEHUB_REDIS_CLUSTER",
            gamehub_testkit::redis::redis_cluster().to_string(),
        ),
        ("GAMEHUB_REDIS_PREFIX", prefix.to_owned()),
        ("GAMEHUB_LEDGER_URL", ledger_url.to_owned()),
        ("GAMEHUB_GOMOKU_ADDR", addr.to_owned()),
        ("GAMEHUB_GOMOKU_BETWEEN_GAMES_MS", "60000".to_owned()),
        ("GAMEHUB_GOMOKU_SETTLE_MAX_BACKOFF_MS", "1000".to_owned()),
        ("GAMEHUB_GOMOKU_SWEEP_INTERVAL_MS", "50".to_owned()),
        ("GAMEHUB_PLAYER_RATE_PER_SECOND", "0".to_owned()),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v))
    .collect()
}

/// Starts a referee with `env` (usually [`referee_env`], adjusted).
pub async fn start(env: Vec<(String, String)>) -> TestServer {
    start_with_clock(env, Clock::system()).await
}

/// [`start`] with the referee telling the time by `clock` (a test's
/// [`gamehub_testkit::clock::ManualClock`], so turn clocks run out only when the test advances it).
pub async fn start_with_clock(env: Vec<(String, String)>, clock: Clock) -> TestServer {
    let mut config = RefereeConfig::from_env(&Env::from_pairs(env))
        .unwrap_or_else(|e| panic!("the test referee's configuration: {e}"));
    config.common.clock = clock;
    TestServer::start(|shutdown| crate::start(config, shutdown)).await
}

/// Starts a referee on a free port over `prefix`, settling at `ledger_url`.
pub async fn start_on(prefix: &str, ledger_url: &str) -> TestServer {
    start(referee_env(prefix, ledger_url, "127.0.0.1:0")).await
}
