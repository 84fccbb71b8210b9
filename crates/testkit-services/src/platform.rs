//! The whole platform in the test's process, as `gamehub serve` runs it (five services,
//! each on its own free port) over a scratch database and a Redis key prefix of the
//! test's own, and clients holding tokens of any role.

use gamehub::api::{Clients, Endpoints};
use gamehub::serve::{Platform, Ports, start_all};
use gamehub_platform::auth::Role;
use gamehub_platform::client::TokenSource;
use gamehub_platform::config::{CommonConfig, Env};
use gamehub_platform::server::Shutdown;
use gamehub_proto::common::RoomStakes;
use gamehub_proto::gomoku as gm;
use gamehub_proto::ledger as lg;

use gamehub_testkit::postgres::ScratchDatabase;

/// The prefix of these tests' databases.
const TEST_DB_PREFIX: &str = "gamehub_platform_test_";

/// A running platform for one test.
pub struct TestPlatform {
    /// The five services.
    pub platform: Platform,
    /// How to reach them.
    pub endpoints: Endpoints,
    /// The environment they were configured from (add to it for a second replica).
    pub pairs: Vec<(String, String)>,
    /// The shared configuration (signing key, …).
    pub config: CommonConfig,
    /// The test's database.
    pub database: ScratchDatabase,
    /// The test's Redis key prefix, whose keys are removed at the end.
    pub prefix: String,
}

impl TestPlatform {
    /// Starts the five services with a fresh database and key prefix, no per-player
    /// rate limit and a fast matcher and sweeper; `extra` adds or overrides
    /// configuration.
    pub async fn start(extra: &[(&str, &str)]) -> anyhow::Result<TestPlatform> {
        let database = ScratchDatabase::fresh(TEST_DB_PREFIX).await;
        let prefix = gamehub_testkit::redis::fresh_prefix("tp");
        let mut pairs: Vec<(String, String)> = vec![
            ("DATABASE_URL".into(), database.url.clone()),
            ("REDIS_URL".into(), gamehub_testkit::redis::redis_url()),
            (
                "GAMEHUB_REDIS_CLUSTER".into(),
                gamehub_testkit::redis::redis_cluster().to_string(),
            ),
            ("GAMEHUB_REDIS_PREFIX".into(), prefix.clone()),
            ("GAMEHUB_PLAYER_RATE_PER_SECOND".into(), "0".into()),
            ("GAMEHUB_MATCHMAKING_INTERVAL_MS".into(), "20".into()),
            ("GAMEHUB_GOMOKU_SWEEP_INTERVAL_MS".into(), "50".into()),
        ];
        for (k, v) in extra {
            pairs.retain(|(key, _)| key != k);
            pairs.push(((*k).to_owned(), (*v).to_owned()));
        }
        let env = Env::from_pairs(pairs.clone());
        let config = CommonConfig::from_env(&env)?;
        let platform = start_all(&env, Ports::Ephemeral, Shutdown::new()).await?;
        let endpoints = platform.endpoints();
        Ok(TestPlatform {
            platform,
            endpoints,
            pairs,
            config,
            database,
            prefix,
        })
    }

    /// Clients acting as `subject` in `role`.
    pub fn clients(&self, subject: &str, role: Role) -> Clients {
        let token = gamehub_testkit::tokens::token(&self.config.keys, subject, role);
        Clients::new(&self.endpoints, TokenSource::Static(token))
            .unwrap_or_else(|e| panic!("test clients: {e}"))
    }

    /// Grants `player` `amount` silver as an operator.
    pub async fn grant(&self, player: &str, amount: i64) {
        self.clients("test-operator", Role::Operator)
            .ledger
            .grant_silver(lg::GrantSilverRequest {
                request_id: gamehub::api::request_id(),
                player_id: player.into(),
                amount_silver: amount,
                reason: "test".into(),
            })
            .await
            .unwrap_or_else(|e| panic!("granting {amount} silver to {player}: {e}"));
    }

    /// Opens a free freestyle Gomoku table without clocks for `black` (seat 0) and
    /// `white` (seat 1), as matchmaking would; returns its id.
    pub async fn open_free_gomoku_table(&self, black: &str, white: &str) -> String {
        self.clients("matchmaking", Role::Service)
            .gomoku
            .open_table(gm::OpenTableRequest {
                bot_seats: Vec::new(),
                friends_table: false,
                profiles: Vec::new(),
                request_id: gamehub::api::request_id(),
                stakes: Some(RoomStakes {
                    room_id: "gomoku-free".into(),
                    points_base: 1,
                    silver_per_point: 0,
                    min_balance_silver: 0,
                    rated: false,
                }),
                rule_set: gm::RuleSet::Freestyle as i32,
                time_control: Some(gm::TimeControl {
                    per_move_ms: 0,
                    total_ms: 0,
                }),
                player_ids: vec![black.into(), white.into()],
                first_black_seat: 0,
                designated_opening: String::new(),
                paired_games: false,
            })
            .await
            .unwrap_or_else(|e| panic!("opening a test table: {e}"))
            .into_inner()
            .table_id
    }

    /// Stops every service and starts them again on the same database and Redis keys
    /// (new ports): what a restart of the whole platform keeps, it keeps.
    pub async fn restart(self) -> anyhow::Result<TestPlatform> {
        self.platform.stop().await;
        let env = Env::from_pairs(self.pairs.clone());
        let platform = start_all(&env, Ports::Ephemeral, Shutdown::new()).await?;
        let endpoints = platform.endpoints();
        Ok(TestPlatform {
            platform,
            endpoints,
            ..self
        })
    }

    /// Stops the services, drops the test's database and removes its Redis keys.
    pub async fn stop(self) {
        self.platform.stop().await;
        self.database.drop().await;
        gamehub_testkit::redis::remove_keys(&self.prefix).await;
    }
}
