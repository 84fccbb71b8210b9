//! What the cross-service tests share: a whole platform on free ports with its own
//! database and Redis key prefix, and clients holding tokens of any role.

use std::time::Duration;

pub mod grpc_web_client;

use gamehub::api::{Clients, Endpoints};
use gamehub::serve::{Platform, Ports, start_all};
use gamehub_ledger::testing::ScratchDatabase;
use gamehub_platform::auth::{Keys, Role};
use gamehub_platform::client::TokenSource;
use gamehub_platform::config::{CommonConfig, Env};
use gamehub_platform::server::Shutdown;

/// A running platform for one test.
pub struct TestPlatform {
    /// The four services.
    pub platform: Platform,
    /// How to reach them.
    pub endpoints: Endpoints,
    /// The environment they were configured from (add to it for a second replica).
    pub pairs: Vec<(String, String)>,
    /// The shared configuration (signing key, …).
    pub config: CommonConfig,
    /// The test's database.
    pub database: ScratchDatabase,
}

/// The prefix of these tests' databases.
const TEST_DB_PREFIX: &str = "gamehub_e2e_";

/// The Redis the tests use.
pub fn redis_url() -> String {
    std::env::var("REDIS_URL").unwrap_or_else(|_| "redis://127.0.0.1:6379".into())
}

impl TestPlatform {
    /// Starts the four services with a fresh database and key prefix; `extra` adds or
    /// overrides configuration.
    pub async fn start(extra: &[(&str, &str)]) -> anyhow::Result<TestPlatform> {
        let id = uuid::Uuid::new_v4().simple().to_string();
        let database = ScratchDatabase::fresh(TEST_DB_PREFIX).await;
        let mut pairs: Vec<(String, String)> = vec![
            ("DATABASE_URL".into(), database.url.clone()),
            ("REDIS_URL".into(), redis_url()),
            ("GAMEHUB_REDIS_PREFIX".into(), format!("e2e{}", &id[..12])),
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
        })
    }

    /// Clients acting as `subject` in `role`.
    pub fn clients(&self, subject: &str, role: Role) -> Clients {
        let token = Keys::new(&self.config.jwt_secret)
            .mint(subject, role, Duration::from_secs(3600))
            .unwrap_or_else(|e| panic!("minting a test token: {e}"));
        Clients::new(&self.endpoints, TokenSource::Static(token))
            .unwrap_or_else(|e| panic!("test clients: {e}"))
    }

    /// Opens a free freestyle Gomoku table without clocks for `black` (seat 0) and
    /// `white` (seat 1), as matchmaking would; returns its id.
    pub async fn open_free_gomoku_table(&self, black: &str, white: &str) -> String {
        use gamehub_proto::common::RoomStakes;
        use gamehub_proto::gomoku as gm;
        self.clients("e2e-matchmaker", Role::Service)
            .gomoku
            .open_table(gm::OpenTableRequest {
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
            })
            .await
            .unwrap_or_else(|e| panic!("opening a test table: {e}"))
            .into_inner()
            .table_id
    }

    /// Stops the services and drops the test's database.
    pub async fn stop(self) {
        self.platform.stop().await;
        self.database.drop().await;
    }
}
