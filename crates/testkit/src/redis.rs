//! The Redis the tests use and key prefixes of their own: every key a service writes
//! starts with its `GAMEHUB_REDIS_PREFIX`, so tests (and load runs) sharing one Redis
//! never see each other's tables, and a prefix's keys can be removed afterwards.
//!
//! The Redis under test is chosen as a deployment chooses it: `REDIS_URL` (one URL, or
//! the seed nodes of a cluster separated by commas) and `GAMEHUB_REDIS_CLUSTER=true`
//! for a Redis Cluster. `.ci/run` runs the suites once on the single Redis and once on a
//! six-node cluster this way.

use gamehub_platform::{RedisConn, RedisTarget};

/// The Redis the tests use: `REDIS_URL` when set, else the laptop default.
pub fn redis_url() -> String {
    std::env::var("REDIS_URL").unwrap_or_else(|_| "redis://127.0.0.1:6379".into())
}

/// Whether the Redis under test is a cluster (`GAMEHUB_REDIS_CLUSTER=true`).
pub fn redis_cluster() -> bool {
    std::env::var("GAMEHUB_REDIS_CLUSTER").is_ok_and(|v| {
        matches!(
            v.trim().to_ascii_lowercase().as_str(),
            "1" | "true" | "yes" | "on"
        )
    })
}

/// The Redis under test, as the services see it.
pub fn redis_target() -> RedisTarget {
    RedisTarget::new(&redis_url(), redis_cluster()).unwrap_or_else(|e| panic!("REDIS_URL {e}"))
}

/// The settings that point a service at the Redis under test (`REDIS_URL` and
/// `GAMEHUB_REDIS_CLUSTER`), for a test's environment pairs.
pub fn redis_env() -> [(&'static str, String); 2] {
    [
        ("REDIS_URL", redis_url()),
        ("GAMEHUB_REDIS_CLUSTER", redis_cluster().to_string()),
    ]
}

/// A connection to the Redis under test.
pub async fn connect() -> RedisConn {
    gamehub_platform::redis_conn::connect(&redis_target())
        .await
        .unwrap_or_else(|e| panic!("cannot reach the Redis under test: {e:#}"))
}

/// A key prefix nobody else uses: `tag` and 16 random hex digits.
pub fn fresh_prefix(tag: &str) -> String {
    format!("{tag}{}", &uuid::Uuid::new_v4().simple().to_string()[..16])
}

/// The servers holding keys: the one Redis, or every master of the cluster (read
/// from `CLUSTER NODES` on the first seed that answers).
async fn key_servers(target: &RedisTarget) -> Vec<String> {
    if !target.is_cluster() {
        return vec![target.first_url().to_owned()];
    }
    for seed in target.urls() {
        let Ok(client) = ::redis::Client::open(seed) else {
            continue;
        };
        let Ok(mut conn) = client.get_multiplexed_async_connection().await else {
            continue;
        };
        let Ok(nodes) = ::redis::cmd("CLUSTER")
            .arg("NODES")
            .query_async::<String>(&mut conn)
            .await
        else {
            continue;
        };
        return masters(&nodes);
    }
    Vec::new()
}

/// The live masters in a `CLUSTER NODES` answer, as `redis://host:port` URLs.
fn masters(nodes: &str) -> Vec<String> {
    nodes
        .lines()
        .filter_map(|line| {
            let fields: Vec<&str> = line.split_whitespace().collect();
            let flags = fields.get(2)?;
            let is_master = flags.split(',').any(|f| f == "master");
            let failed = flags.split(',').any(|f| f == "fail" || f == "fail?");
            let addr = fields.get(1)?.split('@').next()?;
            (is_master && !failed).then(|| format!("redis://{addr}"))
        })
        .collect()
}

/// Deletes every key under `prefix` on `target` (best effort: what is left expires
/// with its table).
pub async fn remove_keys_on(target: &RedisTarget, prefix: &str) {
    for server in key_servers(target).await {
        remove_keys_at(&server, prefix).await;
    }
}

/// Deletes every key under `prefix` on the Redis under test.
pub async fn remove_keys(prefix: &str) {
    remove_keys_on(&redis_target(), prefix).await;
}

/// Deletes every key under `prefix` held by one server, one key per command (keys of
/// different slots cannot share a command on a cluster node).
async fn remove_keys_at(url: &str, prefix: &str) {
    let Ok(client) = ::redis::Client::open(url) else {
        return;
    };
    let Ok(mut conn) = client.get_multiplexed_async_connection().await else {
        return;
    };
    let mut cursor: u64 = 0;
    loop {
        let reply: Result<(u64, Vec<String>), _> = ::redis::cmd("SCAN")
            .arg(cursor)
            .arg("MATCH")
            .arg(format!("{prefix}:*"))
            .arg("COUNT")
            .arg(10_000)
            .query_async(&mut conn)
            .await;
        let Ok((next, keys)) = reply else {
            return;
        };
        if !keys.is_empty() {
            let mut pipe = ::redis::pipe();
            for key in &keys {
                pipe.cmd("UNLINK").arg(key).ignore();
            }
            let _: Result<(), _> = pipe.query_async(&mut conn).await;
        }
        if next == 0 {
            return;
        }
        cursor = next;
    }
}

/// Settlements of `game` (`gomoku`, `doudizhu`) under `prefix` not yet acknowledged by
/// the ledger. Once it is 0 nothing can be delivered again (a settler that read an entry
/// before its acknowledgement finds it gone and skips it).
pub async fn settlement_backlog(prefix: &str, game: &'static str) -> u64 {
    use gamehub_platform::tables::{StoreLimits, TableStore};
    let store = TableStore::new(
        connect().await,
        prefix,
        game,
        StoreLimits::default(),
        gamehub_platform::Clock::system(),
    );
    store.settlement_backlog().await.unwrap()
}

/// How many deliveries of `game`'s settlements this process's settlers have had to
/// retry so far (read it before stopping the ledger, for [`settlers_retried`]).
pub fn settlement_retries(game: &str) -> u64 {
    gamehub_platform::metrics::metrics()
        .settlements
        .with_label_values(&[game, "retry"])
        .get()
}

/// Waits (at most 10 s) until this process's settlers have retried `game`'s deliveries
/// `times` more times than `since` (a [`settlement_retries`] reading): with the ledger
/// stopped, they have tried and failed, instead of the test sleeping and hoping so.
pub async fn settlers_retried(game: &str, since: u64, times: u64) {
    crate::clock::eventually(
        "the settlers retried while the ledger was down",
        std::time::Duration::from_secs(10),
        || async move { (settlement_retries(game) >= since + times).then_some(()) },
    )
    .await;
}

#[cfg(test)]
mod tests {
    #[test]
    fn masters_are_read_from_cluster_nodes() {
        let nodes = "\
a1 127.0.0.1:7000@17000 myself,master - 0 0 1 connected 0-5460
b2 127.0.0.1:7001@17001 master,fail - 0 0 2 connected
c3 127.0.0.1:7003@17003 slave a1 0 0 1 connected
d4 127.0.0.1:7004@17004 master - 0 0 7 connected 5461-10922
";
        assert_eq!(
            super::masters(nodes),
            ["redis://127.0.0.1:7000", "redis://127.0.0.1:7004"]
        );
    }
}
