//! The Redis the tests use and key prefixes of their own: every key a service writes
//! starts with its `GAMEHUB_REDIS_PREFIX`, so tests (and load runs) sharing one Redis
//! never see each other's tables, and a prefix's keys can be removed afterwards.

/// The Redis the tests use: `REDIS_URL` when set, else the laptop default.
pub fn redis_url() -> String {
    std::env::var("REDIS_URL").unwrap_or_else(|_| "redis://127.0.0.1:6379".into())
}

/// A key prefix nobody else uses: `tag` and 16 random hex digits.
pub fn fresh_prefix(tag: &str) -> String {
    format!("{tag}{}", &uuid::Uuid::new_v4().simple().to_string()[..16])
}

/// Deletes every key under `prefix` (best effort: what is left expires with its table).
pub async fn remove_keys(redis_url: &str, prefix: &str) {
    let Ok(client) = ::redis::Client::open(redis_url) else {
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
            let _: Result<(), _> = ::redis::cmd("DEL").arg(&keys).query_async(&mut conn).await;
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
    use gamehub_platform::tables::{StoreLimits, TableStore, connect};
    let store = TableStore::new(
        connect(&redis_url()).await.unwrap(),
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
