//! PostgreSQL databases of a test's own, on the server of `DATABASE_URL` (or the laptop
//! default): named per suite, created by whoever connects first (the ledger creates its
//! database), dropped at the end; what a killed run left behind is dropped by the next
//! run of the same suite.

use std::collections::BTreeSet;

use anyhow::Context;
use gamehub_platform::config::CommonConfig;
use sqlx::migrate::MigrateDatabase;
use tokio::sync::Mutex;

/// The PostgreSQL server the tests use: `DATABASE_URL` when set, else the laptop default.
pub fn server_url() -> String {
    std::env::var("DATABASE_URL")
        .unwrap_or_else(|_| CommonConfig::for_tests().database_url.expose().to_owned())
}

/// `url` (a `postgres://` URL) with its database name replaced by `database`, its query
/// options kept: a scratch database on the same server.
pub fn scratch_database_url(url: &str, database: &str) -> anyhow::Result<String> {
    let (base, query) = match url.split_once('?') {
        Some((base, query)) => (base, Some(query)),
        None => (url, None),
    };
    let rest = base
        .strip_prefix("postgres://")
        .or_else(|| base.strip_prefix("postgresql://"))
        .context("DATABASE_URL must start with postgres://")?;
    let authority = rest.split('/').next().unwrap_or(rest);
    let mut scratch = format!("postgres://{authority}/{database}");
    if let Some(query) = query {
        scratch.push('?');
        scratch.push_str(query);
    }
    Ok(scratch)
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

    #[test]
    fn scratch_urls_keep_the_server_and_options() {
        assert_eq!(
            scratch_database_url("postgres://postgres@127.0.0.1:5432/gamehub", "x").unwrap(),
            "postgres://postgres@127.0.0.1:5432/x"
        );
        assert_eq!(
            scratch_database_url("postgresql://u:p@h/db?sslmode=disable", "x").unwrap(),
            "postgres://u:p@h/x?sslmode=disable"
        );
        assert_eq!(
            scratch_database_url("postgres://postgres@127.0.0.1:5432", "x").unwrap(),
            "postgres://postgres@127.0.0.1:5432/x"
        );
    }
}
