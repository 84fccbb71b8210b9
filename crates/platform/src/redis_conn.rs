//! The one Redis connection type of every service: a single Redis or a Redis Cluster,
//! chosen by configuration alone (`REDIS_URL`, `GAMEHUB_REDIS_CLUSTER`).
//!
//! [`RedisConn`] is a [`redis::aio::ConnectionLike`], so commands, pipelines and Lua
//! scripts run on it unchanged; in cluster mode the redis crate's own cluster client
//! (`cluster-async`) routes each to the master of its key's slot and follows
//! `MOVED`/`ASK` and failovers. What does not route by a key has a method here:
//! [`RedisConn::wait_replicas`] (to the master holding a given key's slot),
//! [`RedisConn::config_get`] (one answer per master), and [`RedisConn::publish_command`]
//! (sharded `SPUBLISH` on a cluster, so a notification stays on its shard's nodes).
//!
//! Every step keeps its keys in one slot (the hash tags in [`crate::tables`] and the
//! matchmaking store); nothing here moves data between slots.

use std::time::Duration;

use redis::aio::{ConnectionLike, ConnectionManager, ConnectionManagerConfig};
use redis::cluster_async::ClusterConnection;
use redis::cluster_routing::{
    MultipleNodeRoutingInfo, Route, RoutingInfo, SingleNodeRoutingInfo, SlotAddr,
};
use redis::{Cmd, IntoConnectionInfo, Pipeline, RedisFuture, RedisResult, Value};

use crate::config::env::Secret;

/// Where live state is: one Redis, or the seed nodes of a Redis Cluster.
#[derive(Clone)]
pub struct RedisTarget {
    urls: Vec<Secret>,
    cluster: bool,
}

impl std::fmt::Debug for RedisTarget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisTarget")
            .field("nodes", &self.urls.len())
            .field("cluster", &self.cluster)
            .finish()
    }
}

impl RedisTarget {
    /// `urls` as `REDIS_URL` gives them: one URL, or (with `cluster`) one or more seed
    /// nodes separated by commas. Blank entries are ignored.
    pub fn new(urls: &str, cluster: bool) -> Result<Self, String> {
        let list: Vec<Secret> = urls
            .split(',')
            .map(str::trim)
            .filter(|u| !u.is_empty())
            .map(|u| Secret::new(u.to_owned()))
            .collect();
        if list.is_empty() {
            return Err("expected a redis:// URL".into());
        }
        if list.len() > 1 && !cluster {
            return Err(format!(
                "lists {} URLs; a single Redis takes one (set GAMEHUB_REDIS_CLUSTER=true for \
                 the seed nodes of a Redis Cluster)",
                list.len()
            ));
        }
        for url in &list {
            url.expose().into_connection_info().map_err(|e| {
                format!("is not a Redis URL ({e}); expected redis://[user:password@]host[:port]")
            })?;
        }
        Ok(Self {
            urls: list,
            cluster,
        })
    }

    /// One Redis at `url`.
    pub fn single(url: &str) -> Self {
        Self {
            urls: vec![Secret::new(url.to_owned())],
            cluster: false,
        }
    }

    /// Whether this is a Redis Cluster.
    pub fn is_cluster(&self) -> bool {
        self.cluster
    }

    /// The URLs (the one Redis, or the seed nodes).
    pub fn urls(&self) -> impl Iterator<Item = &str> {
        self.urls.iter().map(Secret::expose)
    }

    /// The first URL: the one Redis, or the first seed node.
    pub fn first_url(&self) -> &str {
        self.urls[0].expose()
    }
}

/// Replica acknowledgement of every table step (`GAMEHUB_REDIS_WAIT_REPLICAS`,
/// `GAMEHUB_REDIS_WAIT_TIMEOUT_MS`): Redis replication is asynchronous, so a step a
/// master acknowledged can be lost when its replica takes over. With `replicas` > 0 a
/// step is answered only once that many replicas of its master have it (`WAIT`); fewer
/// in time and the caller gets UNAVAILABLE, to retry with the same request id. Off (0)
/// by default.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReplicaWait {
    /// Replicas that must acknowledge each step (0: none).
    pub replicas: u32,
    /// How long a step waits for them.
    pub timeout: Duration,
}

impl Default for ReplicaWait {
    fn default() -> Self {
        Self {
            replicas: 0,
            timeout: Duration::from_secs(1),
        }
    }
}

/// A shared, multiplexed, self-healing connection to a single Redis or a Redis
/// Cluster. Cheap to clone.
#[derive(Clone)]
pub enum RedisConn {
    /// One Redis, reconnecting on failure (and replaced when it stops answering).
    Single(ClusterHandle<SingleRedis>),
    /// A Redis Cluster: a connection per node, routed by slot.
    Cluster(ClusterHandle),
}

/// Consecutive timed-out commands after which a connection is replaced.
const TIMEOUTS_BEFORE_REBUILD: u32 = 2;

/// What makes the connections a [`ClusterHandle`] holds: the redis crate's cluster
/// client in production, a fake in the unit tests (a connection that wedges).
pub trait Connector: Clone + Send + Sync + 'static {
    /// A multiplexed connection, cheap to clone.
    type Conn: Clone + Send + Sync + 'static;
    /// Makes a fresh connection.
    fn connect(&self) -> impl std::future::Future<Output = RedisResult<Self::Conn>> + Send;
}

/// What makes a single Redis's connection: the redis crate's reconnecting
/// `ConnectionManager`, with this module's timeouts.
#[derive(Clone)]
pub struct SingleRedis {
    client: redis::Client,
    config: ConnectionManagerConfig,
}

impl Connector for SingleRedis {
    type Conn = ConnectionManager;

    fn connect(&self) -> impl std::future::Future<Output = RedisResult<ConnectionManager>> + Send {
        ConnectionManager::new_with_config(self.client.clone(), self.config.clone())
    }
}

impl Connector for redis::cluster::ClusterClient {
    type Conn = ClusterConnection;

    fn connect(&self) -> impl std::future::Future<Output = RedisResult<ClusterConnection>> + Send {
        self.get_async_connection()
    }
}

/// A cluster connection that is replaced when it stops answering: a workaround for a
/// bug of the redis crate, in the open.
///
/// **The bug.** The redis crate's cluster connection (1.8) can wedge after a master is
/// killed: a background reconnection to the dead node queues for the connection map's
/// lock, is then no longer polled while a slot refresh runs, and the refresh (and every
/// command behind it) waits for that lock forever, each command ending in a response
/// timeout although the cluster recovered long ago. `tests/failover.rs` saw it in 2 of 2
/// runs that killed two masters. Upstream: redis-rs/redis-rs#2092 (a reconnection that
/// holds the connection map's lock while it dials blocks every call of the client).
///
/// **The workaround.** After [`TIMEOUTS_BEFORE_REBUILD`] timeouts in a row a fresh
/// connection is made in the background and takes over; commands already running
/// finish (or time out) on the old one. A clone uses the connection current when it was
/// made, until a command finds that one replaced: a step and its `WAIT`
/// ([`RedisConn::wait_replicas`]) on one clone thus go over one connection, which is what
/// `WAIT` counts. The unit tests below drive it with a connection that wedges.
///
/// **When to remove it.** When the redis crate fixes the wedge (the issue above closed
/// with a fix in a release we use): set [`TIMEOUTS_BEFORE_REBUILD`] to `u32::MAX`, run
/// `tests/failover.rs` (it kills two masters under load) ten times; if the games always
/// carry on, hold the crate's `ClusterConnection` directly.
///
/// **A single Redis needs it too.** The crate's `ConnectionManager` reconnects only
/// when it sees its connection dropped (an error, a FIN, a RST), never after timeouts:
/// after a partition that lost packets silently, every command went into the dead
/// connection and timed out, for as long as the operating system kept the socket
/// (`tests/partitions.rs`, the referee–Redis link: no move in 20 s after the heal). So
/// [`RedisConn::Single`] is held here as well, and replaced the same way.
pub struct ClusterHandle<C: Connector = redis::cluster::ClusterClient> {
    conn: C::Conn,
    generation: u64,
    shared: std::sync::Arc<std::sync::Mutex<Shared<C>>>,
}

struct Shared<C: Connector> {
    client: C,
    conn: C::Conn,
    generation: u64,
    timeouts: u32,
    rebuilding: bool,
}

impl<C: Connector> Clone for ClusterHandle<C> {
    fn clone(&self) -> Self {
        let shared = self.lock();
        Self {
            conn: shared.conn.clone(),
            generation: shared.generation,
            shared: self.shared.clone(),
        }
    }
}

impl<C: Connector> ClusterHandle<C> {
    fn new(client: C, conn: C::Conn) -> Self {
        Self {
            conn: conn.clone(),
            generation: 0,
            shared: std::sync::Arc::new(std::sync::Mutex::new(Shared {
                client,
                conn,
                generation: 0,
                timeouts: 0,
                rebuilding: false,
            })),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Shared<C>> {
        self.shared
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The connection to send the next command on: this clone's, or the current one
    /// when this clone's was replaced.
    fn current(&mut self) -> &mut C::Conn {
        let newer = {
            let shared = self.lock();
            (shared.generation != self.generation).then(|| (shared.conn.clone(), shared.generation))
        };
        if let Some((conn, generation)) = newer {
            self.conn = conn;
            self.generation = generation;
        }
        &mut self.conn
    }

    /// Notes how a command on generation `generation` ended; starts a replacement after
    /// enough timeouts in a row.
    fn observe<T>(&self, generation: u64, result: &RedisResult<T>) {
        let mut shared = self.lock();
        if shared.generation != generation {
            return;
        }
        match result {
            Err(e) if e.is_timeout() => shared.timeouts += 1,
            _ => shared.timeouts = 0,
        }
        if shared.timeouts < TIMEOUTS_BEFORE_REBUILD || shared.rebuilding {
            return;
        }
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        shared.rebuilding = true;
        let (client, state) = (shared.client.clone(), self.shared.clone());
        drop(shared);
        tracing::warn!("the Redis connection stopped answering; replacing it with a new one");
        runtime.spawn(async move {
            let fresh = client.connect().await;
            let mut shared = state
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            shared.rebuilding = false;
            match fresh {
                Ok(conn) => {
                    shared.conn = conn;
                    shared.generation += 1;
                    shared.timeouts = 0;
                }
                Err(e) => {
                    tracing::warn!(error = %e, "replacing the Redis connection failed");
                }
            }
        });
    }
}

impl ClusterHandle {
    async fn route_command(&mut self, cmd: Cmd, routing: RoutingInfo) -> RedisResult<Value> {
        let result = self.current().route_command(cmd, routing).await;
        self.observe(self.generation, &result);
        result
    }
}

/// How long to wait for a connection to a node.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(3);
/// How long to wait for one reply.
const RESPONSE_TIMEOUT: Duration = Duration::from_secs(5);

/// The TCP settings of every connection: redis-rs leaves Nagle's algorithm on, and on
/// a multiplexed connection a step's command then waits for the ACK of the previous
/// one (about 40 ms under load).
fn nodelay(info: redis::ConnectionInfo) -> redis::ConnectionInfo {
    let tcp = info.tcp_settings().clone().set_nodelay(true);
    info.set_tcp_settings(tcp)
}

/// Connects to `target` with automatic reconnection (and, on a cluster, slot
/// discovery and failover handling).
pub async fn connect(target: &RedisTarget) -> anyhow::Result<RedisConn> {
    if target.cluster {
        let nodes = target
            .urls()
            .map(|u| u.into_connection_info().map(nodelay))
            .collect::<RedisResult<Vec<_>>>()?;
        let client = redis::cluster::ClusterClientBuilder::new(nodes)
            .connection_timeout(CONNECT_TIMEOUT)
            .response_timeout(RESPONSE_TIMEOUT)
            .retries(6)
            .build()?;
        let conn = client.get_async_connection().await?;
        return Ok(RedisConn::Cluster(ClusterHandle::new(client, conn)));
    }
    let single = SingleRedis {
        client: redis::Client::open(nodelay(target.first_url().into_connection_info()?))?,
        config: ConnectionManagerConfig::new()
            .set_connection_timeout(Some(CONNECT_TIMEOUT))
            .set_response_timeout(Some(RESPONSE_TIMEOUT))
            .set_number_of_retries(3),
    };
    let conn = single.connect().await?;
    Ok(RedisConn::Single(ClusterHandle::new(single, conn)))
}

/// The cluster slot of `key`: CRC16 (XMODEM) of its hash tag (the text between the
/// first `{` and the next `}`, when not empty) or of the whole key, modulo 16384.
pub fn slot_of(key: &str) -> u16 {
    let bytes = key.as_bytes();
    let hashed = bytes
        .iter()
        .position(|&b| b == b'{')
        .and_then(|open| {
            let rest = &bytes[open + 1..];
            rest.iter()
                .position(|&b| b == b'}')
                .filter(|&close| close > 0)
                .map(|close| &rest[..close])
        })
        .unwrap_or(bytes);
    crc16::State::<crc16::XMODEM>::calculate(hashed) % 16384
}

impl RedisConn {
    /// Whether this is a cluster connection.
    pub fn is_cluster(&self) -> bool {
        matches!(self, RedisConn::Cluster(_))
    }

    /// The command a Lua step publishes its notification with: `SPUBLISH` on a cluster
    /// (sharded pub/sub: the message stays on the nodes of the channel's slot, which is
    /// the step's own), `PUBLISH` on a single Redis.
    pub fn publish_command(&self) -> &'static str {
        if self.is_cluster() {
            "SPUBLISH"
        } else {
            "PUBLISH"
        }
    }

    /// One reply per command of `cmds`, each command touching keys of one slot (which
    /// may differ between commands): one pipeline on a single Redis; on a cluster the
    /// commands go at once, each to the master of its slot.
    pub async fn query_each<T: redis::FromRedisValue>(
        &self,
        cmds: impl IntoIterator<Item = Cmd>,
    ) -> RedisResult<Vec<T>> {
        match self {
            RedisConn::Single(_) => {
                let mut pipe = redis::pipe();
                for cmd in cmds {
                    pipe.add_command(cmd);
                }
                if pipe.is_empty() {
                    return Ok(Vec::new());
                }
                pipe.query_async(&mut self.clone()).await
            }
            RedisConn::Cluster(handle) => {
                futures::future::try_join_all(cmds.into_iter().map(|cmd| {
                    let mut conn = RedisConn::Cluster(handle.clone());
                    async move { cmd.query_async::<T>(&mut conn).await }
                }))
                .await
            }
        }
    }

    /// Waits until `replicas` replicas of the master holding `key` have acknowledged
    /// every write this connection sent it, or `timeout` passes; returns how many did.
    pub async fn wait_replicas(
        &mut self,
        key: &str,
        replicas: u32,
        timeout: Duration,
    ) -> RedisResult<u32> {
        let mut wait = redis::cmd("WAIT");
        wait.arg(replicas)
            .arg(u64::try_from(timeout.as_millis()).unwrap_or(u64::MAX));
        let acked: i64 = match self {
            RedisConn::Single(handle) => {
                // On the connection the step went out on, as below.
                let generation = handle.generation;
                let reply = wait.query_async(&mut handle.conn).await;
                handle.observe(generation, &reply);
                reply?
            }
            RedisConn::Cluster(handle) => {
                // On the connection the step went out on (not a replacement made since).
                let route = Route::new(slot_of(key), SlotAddr::Master);
                let generation = handle.generation;
                let reply = handle
                    .conn
                    .route_command(
                        wait,
                        RoutingInfo::SingleNode(SingleNodeRoutingInfo::SpecificNode(route)),
                    )
                    .await;
                handle.observe(generation, &reply);
                // WAIT is not redirected like a keyed command: with a slot map that a
                // failover made stale (the old master back as a replica at the same
                // address) it reaches a replica, which refuses it. Transient, as a
                // READONLY reply is: the caller retries once the map is fresh (seen in
                // `tests/failover.rs`; it was an INTERNAL error).
                let stale = |detail: String| {
                    redis::RedisError::from((
                        redis::ErrorKind::Server(redis::ServerErrorKind::ReadOnly),
                        "WAIT reached a node that is no longer the slot's master",
                        detail,
                    ))
                };
                let reply = match reply {
                    Ok(Value::ServerError(e)) => return Err(stale(format!("{e:?}"))),
                    Err(e) if e.to_string().contains("replica") => {
                        return Err(stale(e.to_string()));
                    }
                    other => other?,
                };
                redis::from_redis_value(reply)?
            }
        };
        Ok(u32::try_from(acked.max(0)).unwrap_or(u32::MAX))
    }

    /// `CONFIG GET name` on the one Redis, or on every master of the cluster: one value
    /// per server that answered (a server without the setting gives an empty string).
    pub async fn config_get(&mut self, name: &str) -> RedisResult<Vec<String>> {
        let mut cmd = redis::cmd("CONFIG");
        cmd.arg("GET").arg(name);
        let one = |reply: Value| -> RedisResult<String> {
            let pairs: Vec<String> = redis::from_redis_value(reply)?;
            Ok(pairs.get(1).cloned().unwrap_or_default())
        };
        match self {
            RedisConn::Single(_) => Ok(vec![one(cmd.query_async(self).await?)?]),
            RedisConn::Cluster(conn) => {
                let reply = conn
                    .route_command(
                        cmd,
                        RoutingInfo::MultiNode((MultipleNodeRoutingInfo::AllMasters, None)),
                    )
                    .await?;
                match reply {
                    Value::Map(per_node) => per_node
                        .into_iter()
                        .map(|(_, value)| match value {
                            Value::ServerError(e) => Err(e.into()),
                            value => one(value),
                        })
                        .collect(),
                    other => Ok(vec![one(other)?]),
                }
            }
        }
    }
}

impl ConnectionLike for RedisConn {
    fn req_packed_command<'a>(&'a mut self, cmd: &'a Cmd) -> RedisFuture<'a, Value> {
        match self {
            RedisConn::Single(handle) => Box::pin(async move {
                let conn = handle.current();
                let result = conn.req_packed_command(cmd).await;
                handle.observe(handle.generation, &result);
                result
            }),
            RedisConn::Cluster(handle) => Box::pin(async move {
                let conn = handle.current();
                let result = conn.req_packed_command(cmd).await;
                handle.observe(handle.generation, &result);
                result
            }),
        }
    }

    fn req_packed_commands<'a>(
        &'a mut self,
        pipeline: &'a Pipeline,
        offset: usize,
        count: usize,
    ) -> RedisFuture<'a, Vec<Value>> {
        match self {
            RedisConn::Single(handle) => Box::pin(async move {
                let conn = handle.current();
                let result = conn.req_packed_commands(pipeline, offset, count).await;
                handle.observe(handle.generation, &result);
                result
            }),
            RedisConn::Cluster(handle) => Box::pin(async move {
                let conn = handle.current();
                let result = conn.req_packed_commands(pipeline, offset, count).await;
                handle.observe(handle.generation, &result);
                result
            }),
        }
    }

    fn get_db(&self) -> i64 {
        match self {
            RedisConn::Single(handle) => handle.conn.get_db(),
            RedisConn::Cluster(handle) => handle.conn.get_db(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fake cluster connection: a wedged one never answers (as the redis crate's
    /// does, every command ends in its response timeout); a healthy one answers at once.
    #[derive(Clone)]
    struct FakeConn {
        id: u32,
        wedged: bool,
    }

    impl FakeConn {
        /// One command, under a response timeout as the real client has.
        async fn command(&self) -> RedisResult<u32> {
            let answer = async {
                if self.wedged {
                    std::future::pending::<()>().await;
                }
                self.id
            };
            tokio::time::timeout(RESPONSE_TIMEOUT, answer)
                .await
                .map_err(|_| {
                    std::io::Error::new(std::io::ErrorKind::TimedOut, "response timed out").into()
                })
        }
    }

    /// Hands out healthy connections numbered from 1, counting them; fails while
    /// `down`.
    #[derive(Clone, Default)]
    struct FakeClient {
        made: std::sync::Arc<std::sync::atomic::AtomicU32>,
        down: std::sync::Arc<std::sync::atomic::AtomicBool>,
    }

    impl Connector for FakeClient {
        type Conn = FakeConn;

        async fn connect(&self) -> RedisResult<FakeConn> {
            use std::sync::atomic::Ordering;
            if self.down.load(Ordering::SeqCst) {
                return Err(
                    std::io::Error::new(std::io::ErrorKind::ConnectionRefused, "down").into(),
                );
            }
            let id = self.made.fetch_add(1, Ordering::SeqCst) + 1;
            Ok(FakeConn { id, wedged: false })
        }
    }

    /// Sends one command on `handle` as `RedisConn` does: on its current connection,
    /// then notes the outcome.
    async fn send(handle: &mut ClusterHandle<FakeClient>) -> RedisResult<u32> {
        let conn = handle.current().clone();
        let result = conn.command().await;
        handle.observe(handle.generation, &result);
        result
    }

    /// Lets the background replacement run.
    async fn settle() {
        for _ in 0..10 {
            tokio::task::yield_now().await;
        }
    }

    fn wedged_handle() -> (ClusterHandle<FakeClient>, FakeClient) {
        let client = FakeClient::default();
        let wedged = FakeConn {
            id: 0,
            wedged: true,
        };
        (ClusterHandle::new(client.clone(), wedged), client)
    }

    #[tokio::test(start_paused = true)]
    async fn a_wedged_connection_is_replaced_after_two_timeouts_in_a_row() {
        let (mut handle, client) = wedged_handle();
        let earlier_clone = handle.clone();
        let first = send(&mut handle).await.unwrap_err();
        assert!(first.is_timeout(), "{first}");
        settle().await;
        assert_eq!(
            client.made.load(std::sync::atomic::Ordering::SeqCst),
            0,
            "one timeout is not a wedge"
        );
        assert!(send(&mut handle).await.unwrap_err().is_timeout());
        settle().await;
        assert_eq!(
            client.made.load(std::sync::atomic::Ordering::SeqCst),
            1,
            "replaced once"
        );
        // The next command goes over the new connection, and so does a clone made
        // before the replacement once it sends.
        assert_eq!(send(&mut handle).await.unwrap(), 1);
        let mut earlier_clone = earlier_clone;
        assert_eq!(send(&mut earlier_clone).await.unwrap(), 1);
    }

    #[tokio::test(start_paused = true)]
    async fn an_answer_between_timeouts_resets_the_count() {
        let client = FakeClient::default();
        let mut handle = ClusterHandle::new(
            client.clone(),
            FakeConn {
                id: 0,
                wedged: false,
            },
        );
        // A timeout, an answer, a timeout: never two in a row.
        handle.observe::<()>(
            0,
            &Err(std::io::Error::new(std::io::ErrorKind::TimedOut, "t").into()),
        );
        assert_eq!(send(&mut handle).await.unwrap(), 0);
        handle.observe::<()>(
            0,
            &Err(std::io::Error::new(std::io::ErrorKind::TimedOut, "t").into()),
        );
        settle().await;
        assert_eq!(client.made.load(std::sync::atomic::Ordering::SeqCst), 0);
        // Other errors are not a wedge either.
        let refused: RedisResult<()> = Err((redis::ErrorKind::Io, "connection refused").into());
        handle.observe(0, &refused);
        handle.observe(0, &refused);
        settle().await;
        assert_eq!(client.made.load(std::sync::atomic::Ordering::SeqCst), 0);
    }

    #[tokio::test(start_paused = true)]
    async fn a_failed_replacement_keeps_the_old_connection_and_tries_again_later() {
        let (mut handle, client) = wedged_handle();
        client.down.store(true, std::sync::atomic::Ordering::SeqCst);
        for _ in 0..2 {
            assert!(send(&mut handle).await.is_err());
        }
        settle().await;
        assert_eq!(handle.generation, 0, "nothing replaced it");
        client
            .down
            .store(false, std::sync::atomic::Ordering::SeqCst);
        // Still wedged: the next timeout in the same run of timeouts tries again.
        assert!(send(&mut handle).await.is_err());
        settle().await;
        assert_eq!(send(&mut handle).await.unwrap(), 1);
    }

    #[tokio::test(start_paused = true)]
    async fn timeouts_of_a_replaced_connection_do_not_count_against_its_successor() {
        let (mut handle, _client) = wedged_handle();
        let stale_generation = handle.generation;
        for _ in 0..2 {
            assert!(send(&mut handle).await.is_err());
        }
        settle().await;
        assert_eq!(send(&mut handle).await.unwrap(), 1);
        let timeout: RedisResult<()> =
            Err(std::io::Error::new(std::io::ErrorKind::TimedOut, "late").into());
        // Late answers of commands sent on the old connection.
        handle.observe(stale_generation, &timeout);
        handle.observe(stale_generation, &timeout);
        settle().await;
        assert_eq!(handle.lock().generation, 1, "the successor stays");
    }

    #[test]
    fn a_single_redis_takes_one_url_and_a_cluster_several_seeds() {
        let single = RedisTarget::new("redis://127.0.0.1:6379", false).unwrap();
        assert!(!single.is_cluster());
        assert_eq!(single.first_url(), "redis://127.0.0.1:6379");
        let cluster =
            RedisTarget::new(" redis://10.0.0.1:6379, redis://10.0.0.2:6379 ,", true).unwrap();
        assert!(cluster.is_cluster());
        assert_eq!(
            cluster.urls().collect::<Vec<_>>(),
            ["redis://10.0.0.1:6379", "redis://10.0.0.2:6379"]
        );
        let refused = RedisTarget::new("redis://a:1,redis://b:2", false).unwrap_err();
        assert!(refused.contains("GAMEHUB_REDIS_CLUSTER=true"), "{refused}");
        assert!(RedisTarget::new(" , ", true).is_err());
        assert!(RedisTarget::new("http://nope", false).is_err());
    }

    #[test]
    fn a_target_never_prints_its_urls() {
        let target = RedisTarget::new("redis://:hunter2@10.0.0.1:6379", true).unwrap();
        assert!(!format!("{target:?}").contains("hunter2"));
    }

    #[test]
    fn keys_with_one_tag_share_a_slot() {
        assert_eq!(
            slot_of("gh:{gomoku:07}:t:abc"),
            slot_of("gh:{gomoku:07}:outbox")
        );
        assert_eq!(slot_of("{gomoku:07}"), slot_of("x{gomoku:07}y"));
        // Redis's own answers (CLUSTER KEYSLOT).
        assert_eq!(slot_of("somekey"), 11058);
        assert_eq!(slot_of("foo{hash_tag}"), 2515);
        assert_eq!(slot_of("foo{{bar}}zap"), slot_of("{bar"));
    }
}
