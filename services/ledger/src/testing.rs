//! Test support for this crate's tests and for the services that test against a real
//! ledger: a PostgreSQL database of a test's own, and a ledger serving on a free port
//! over one, which can be stopped and started again on the same address and database.
//!
//! Not used by the service itself.

use std::collections::BTreeSet;
use std::net::SocketAddr;
use std::time::Duration;

use gamehub_platform::auth::{Keys, Role};
use gamehub_platform::client::{ServiceChannel, TokenSource, service_channel};
use gamehub_platform::config::Secret;
use gamehub_platform::server::Shutdown;
use gamehub_proto::ledger as pb;
use gamehub_proto::ledger::ledger_service_client::LedgerServiceClient;
use sqlx::migrate::MigrateDatabase;
use tokio::sync::Mutex;
use tokio::task::JoinHandle;

use crate::LedgerConfig;
use crate::loadgen::scratch_database_url;

/// A ledger client of a test.
pub type TestLedgerClient = LedgerServiceClient<ServiceChannel>;

/// The PostgreSQL server the tests use: `DATABASE_URL` when set, else the laptop default.
pub fn server_url() -> String {
    std::env::var("DATABASE_URL").unwrap_or_else(|_| {
        LedgerConfig::for_tests()
            .common
            .database_url
            .expose()
            .to_owned()
    })
}

/// A database of one test's own, named `PREFIX`, its creation time in Unix seconds and a
/// random id. The first one a process makes with a prefix drops what earlier runs of
/// that prefix left behind (runs that died before cleaning up).
#[derive(Debug)]
pub struct ScratchDatabase {
    /// Its URL (the database is created by whoever connects first, e.g. the ledger).
    pub url: String,
}

impl ScratchDatabase {
    /// A fresh database name under `prefix` (not yet created).
    pub async fn fresh(prefix: &str) -> Self {
        drop_leftovers(prefix).await;
        let id = uuid::Uuid::new_v4().simple().to_string();
        let name = format!("{prefix}{}_{}", unix_now_s(), &id[..16]);
        let url = scratch_database_url(&server_url(), &name)
            .unwrap_or_else(|e| panic!("a test database URL: {e}"));
        Self { url }
    }

    /// Drops the database, closing its connections (best effort: a failure is printed).
    pub async fn drop(self) {
        if let Err(e) = sqlx::Postgres::force_drop_database(&self.url).await {
            eprintln!("could not drop test database {}: {e}", self.url);
        }
    }
}

/// How old a database under a prefix must be before it counts as left behind. A test
/// running in another process may have its database without connections for a while
/// (its ledger stopped or killed, about to start again), so idleness alone does not
/// mark a leftover; no test runs this long.
const LEFTOVER_AGE_S: u64 = 3600;

fn unix_now_s() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// When the database `name` under `prefix` was made, in Unix seconds, read from its
/// name; 0 for the earlier form of name (the prefix and a bare UUID, age unknown);
/// `None` for a name [`ScratchDatabase::fresh`] did not make, such as another prefix
/// that starts with this one.
fn created_unix_s(prefix: &str, name: &str) -> Option<u64> {
    let rest = name.strip_prefix(prefix)?;
    let hex = |s: &str, len: usize| s.len() == len && s.bytes().all(|b| b.is_ascii_hexdigit());
    if hex(rest, 32) {
        return Some(0);
    }
    let (created, id) = rest.split_once('_')?;
    if !hex(id, 16) || created.is_empty() || !created.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    created.parse().ok()
}

/// Drops the databases under `prefix` left by earlier runs, once per process and
/// prefix, before this process makes one. Only databases older than
/// [`LEFTOVER_AGE_S`] are dropped, and of those only ones nobody is connected to.
async fn drop_leftovers(prefix: &str) {
    static CLEANED: Mutex<BTreeSet<String>> = Mutex::const_new(BTreeSet::new());
    let mut cleaned = CLEANED.lock().await;
    if !cleaned.insert(prefix.to_owned()) {
        return;
    }
    let Ok(url) = scratch_database_url(&server_url(), "postgres") else {
        return;
    };
    let Ok(pool) = sqlx::PgPool::connect(&url).await else {
        return;
    };
    let names: Vec<String> =
        sqlx::query_scalar("SELECT datname FROM pg_database WHERE datname LIKE $1")
            .bind(format!("{}%", prefix.replace('_', "\\_")))
            .fetch_all(&pool)
            .await
            .unwrap_or_default();
    let now_s = unix_now_s();
    let left_behind = names.into_iter().filter(|name| {
        created_unix_s(prefix, name).is_some_and(|t| now_s.saturating_sub(t) > LEFTOVER_AGE_S)
    });
    for name in left_behind {
        let quoted = name.replace('"', "\"\"");
        let _ = sqlx::query(&format!("DROP DATABASE IF EXISTS \"{quoted}\""))
            .execute(&pool)
            .await;
    }
    pool.close().await;
}

/// A real ledger in this process, on a free port, over a [`ScratchDatabase`].
pub struct TestLedger {
    /// Its URL (`http://127.0.0.1:PORT`).
    pub url: String,
    /// Its address; kept across [`TestLedger::stop`] and [`TestLedger::resume`].
    pub addr: SocketAddr,
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
        let keys = Keys::new(&config.common.jwt_secret);
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

    /// A client holding a token of `role` (subject `tester`).
    pub fn client(&self, role: Role) -> TestLedgerClient {
        let token = self
            .keys
            .mint("tester", role, Duration::from_secs(3600))
            .unwrap_or_else(|e| panic!("a test token: {e}"));
        let channel = service_channel(
            &self.url,
            TokenSource::Static(token),
            Duration::from_secs(10),
        )
        .unwrap_or_else(|e| panic!("a channel to the test ledger: {e}"));
        LedgerServiceClient::new(channel)
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
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_this_prefixs_own_names_are_leftover_candidates() {
        let p = "gamehub_ledger_test_";
        assert_eq!(
            created_unix_s(p, "gamehub_ledger_test_1700000000_0123456789abcdef"),
            Some(1_700_000_000)
        );
        // The earlier form: age unknown, so old.
        assert_eq!(
            created_unix_s(p, "gamehub_ledger_test_0123456789abcdef0123456789abcdef"),
            Some(0)
        );
        for other in [
            "gamehub_ledger_test_other_1700000000_0123456789abcdef",
            "gamehub_ledger_test_1700000000_0123",
            "gamehub_ledger_test__0123456789abcdef",
            "gamehub_ledger_test_",
            "gamehub_mm_test_1700000000_0123456789abcdef",
        ] {
            assert_eq!(created_unix_s(p, other), None, "{other}");
        }
    }
}
