//! Behind the `testing` feature, for tests (this crate's and others'): a real ledger in
//! the test's process, on a free port, over a scratch database; it can be stopped and
//! started again on the same address and database (an outage).

use std::time::Duration;

use gamehub_platform::auth::{Keys, Role};
use gamehub_platform::client::ServiceChannel;
use gamehub_platform::config::Secret;
use gamehub_platform::server::Shutdown;
use gamehub_proto::ledger as pb;
use gamehub_proto::ledger::ledger_service_client::LedgerServiceClient;
use tokio::task::JoinHandle;

use gamehub_testkit::postgres::ScratchDatabase;

use crate::LedgerConfig;

/// A ledger client of a test.
pub type TestLedgerClient = LedgerServiceClient<ServiceChannel>;

/// A real ledger in this process, on a free port, over a [`ScratchDatabase`].
pub struct TestLedger {
    /// Its URL (`http://127.0.0.1:PORT`).
    pub url: String,
    /// Its address; kept across [`TestLedger::stop`] and [`TestLedger::resume`].
    pub addr: std::net::SocketAddr,
    /// Its database.
    pub database: ScratchDatabase,
    /// Keys of the configuration's JWT secret, to mint tokens for it.
    pub keys: Keys,
    config: LedgerConfig,
    running: Option<(Shutdown, JoinHandle<anyhow::Result<()>>)>,
}

impl std::fmt::Debug for TestLedger {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TestLedger")
            .field("url", &self.url)
            .field("database", &self.database)
            .field("running", &self.running.is_some())
            .finish_non_exhaustive()
    }
}

impl TestLedger {
    /// Starts a ledger with the test defaults over a fresh database under `db_prefix`.
    pub async fn start(db_prefix: &str) -> Self {
        Self::start_with(db_prefix, |_| {}).await
    }

    /// Starts a ledger whose test configuration `adjust` changes.
    pub async fn start_with(db_prefix: &str, adjust: impl FnOnce(&mut LedgerConfig)) -> Self {
        let database = ScratchDatabase::fresh(db_prefix).await;
        let mut config = LedgerConfig::for_tests();
        config.common.database_url = Secret::new(database.url.clone());
        config.db_pool_size = 4;
        adjust(&mut config);
        let keys = config.common.keys.clone();
        let mut ledger = Self {
            url: String::new(),
            addr: config.listen,
            database,
            keys,
            config,
            running: None,
        };
        ledger.resume().await;
        ledger
    }

    /// Starts it (again) on its address and database; the address may take a moment to
    /// be free again after a stop.
    pub async fn resume(&mut self) {
        if self.running.is_some() {
            return;
        }
        let mut last = None;
        for _ in 0..50 {
            let shutdown = Shutdown::new();
            match crate::start(self.config.clone(), shutdown.clone()).await {
                Ok(started) => {
                    self.addr = started.addr;
                    // Later starts reuse the address the first one was given.
                    self.config.listen = started.addr;
                    self.url = format!("http://{}", started.addr);
                    self.running = Some((shutdown, started.task));
                    return;
                }
                Err(e) => {
                    last = Some(e);
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
            }
        }
        panic!("the test ledger does not start: {last:?}");
    }

    /// Stops it and waits until it no longer serves; its database stays.
    pub async fn stop(&mut self) {
        if let Some((shutdown, task)) = self.running.take() {
            shutdown.trigger();
            let _ = tokio::time::timeout(Duration::from_secs(15), task).await;
        }
    }

    /// Stops it and drops its database.
    pub async fn finish(mut self) {
        self.stop().await;
        self.database.drop().await;
    }

    /// A client holding a token for `subject` in `role`.
    pub fn client_as(&self, subject: &str, role: Role) -> TestLedgerClient {
        LedgerServiceClient::new(gamehub_testkit::tokens::channel(
            &self.url, &self.keys, subject, role,
        ))
    }

    /// A client holding a token of `role` (subject `tester`).
    pub fn client(&self, role: Role) -> TestLedgerClient {
        self.client_as("tester", role)
    }

    /// Grants `player` `amount` silver as an operator.
    pub async fn grant(&self, player: &str, amount: i64) {
        self.client(Role::Operator)
            .grant_silver(pb::GrantSilverRequest {
                request_id: uuid::Uuid::new_v4().to_string(),
                player_id: player.into(),
                amount_silver: amount,
                reason: "test".into(),
            })
            .await
            .unwrap_or_else(|e| panic!("granting {amount} silver to {player}: {e}"));
    }

    /// A player's account, read as an operator.
    pub async fn account(&self, player: &str) -> pb::Account {
        self.client(Role::Operator)
            .get_account(pb::GetAccountRequest {
                player_id: player.into(),
            })
            .await
            .unwrap_or_else(|e| panic!("the account of {player}: {e}"))
            .into_inner()
            .account
            .unwrap_or_else(|| panic!("the ledger returned no account for {player}"))
    }
}
