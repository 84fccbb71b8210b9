//! The Gomoku referee: authoritative Gomoku/Renju (五子棋) tables on Redis, a thin,
//! stateless gRPC adapter around `gomoku_rules`.
//!
//! The same files for the same jobs as every game service (the Dou Dizhu dealer's too),
//! each layer importing only those below it:
//!
//! - [`table`]: [`table::TableState`], the stored table, and its pure transitions:
//!   consecutive games, the next-game handshake, leaving, closing, noting a settlement;
//!   each returns a [`table::Step`] of domain events ([`table::TableEvent`]) and the game
//!   it ended. State and the rule crate only: no protobuf;
//! - [`view`]: what the API shows, built from the table: the table as a viewer sees it,
//!   its events as the API's `TableEvent`s, results and records (the only place that
//!   turns the table into protobuf);
//! - [`settle`]: the ledger's `SettleGameRequest` of a game a step ended (for the
//!   settlement outbox) and the ledger's answer read back for the table;
//! - [`record`]: the "gomoku-text" record of a finished game and the archive of recent
//!   records beside each table (GetRecord, ExportRecord);
//! - [`parse`]: requests into domain types (ids, points, rule sets, clocks, stakes),
//!   errors naming the field;
//! - [`error`]: [`error::RefereeError`] and its one mapping to gRPC statuses;
//! - [`service`]: [`service::Referee`], the `GomokuService` implementation: one atomic
//!   store step per action, the clock handler for the deadline sweeper and the
//!   settler's acknowledgement;
//! - `testing` (feature `testing`, for tests only): a referee on a free port and a Redis
//!   key prefix of the test's own;
//! - this file: [`RefereeConfig`] and [`start`], which the binary and the all-in-one
//!   `gamehub` binary call.
//!
//! ```text
//! service ─▶ view, settle, record, parse ─▶ table ─▶ error
//!            settle ─▶ view, record;  record, parse ─▶ error
//! ```
//!
//! Live state, events, deadlines and the settlement outbox are the platform's
//! `TableStore` (one atomic Lua step per action); watchers go through its `EventHub`,
//! clocks through its sweeper, settlements through its settler.
#![forbid(unsafe_code)]

pub mod error;
pub mod parse;
pub mod record;
pub mod service;
pub mod settle;
pub mod table;
#[cfg(feature = "testing")]
pub mod testing;
pub mod view;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use gamehub_platform::client::{TokenSource, service_channel};
use gamehub_platform::config::{CommonConfig, ConfigError, Env};
use gamehub_platform::server::{GrpcServer, Shutdown, Started};
use gamehub_platform::tables::hub::{EventHub, WatchLimits};
use gamehub_platform::tables::settler::{SettlerConfig, run_settler};
use gamehub_platform::tables::sweeper::{SweepConfig, run_sweeper};
use gamehub_platform::tables::{StoreLimits, TableStore};
use gamehub_proto::gomoku::gomoku_service_server::GomokuServiceServer;
use gamehub_proto::ledger::ledger_service_client::LedgerServiceClient;
use gamehub_terms::games::GOMOKU;

pub use service::Referee;

/// The game name of the referee's Redis keys (`<prefix>:{gomoku:SS}:…`).
pub const GAME: &str = "gomoku";

/// Everything the referee needs to run.
#[derive(Debug, Clone)]
pub struct RefereeConfig {
    /// Settings shared by every service (`REDIS_URL`, `GAMEHUB_REDIS_PREFIX`,
    /// `GAMEHUB_LEDGER_URL`, `GAMEHUB_JWT_SECRET`, limits, …).
    pub common: CommonConfig,
    /// `GAMEHUB_GOMOKU_ADDR`: where the gRPC API listens (port 0 picks a free one).
    pub listen: SocketAddr,
    /// `GAMEHUB_GOMOKU_BETWEEN_GAMES_MS`: how long a table waits after a game for both
    /// players to ask for the next one before it closes (default 10 minutes), so
    /// abandoned tables do not live forever.
    pub between_games: Duration,
    /// `GAMEHUB_GOMOKU_BOT_MOVE_MS`: how long into its turn a bot seat (a friends'
    /// table's bot) moves (default 700 ms). A table keeps the value it opened with.
    pub bot_move: Duration,
    /// Event stream, idempotency and key lifetime bounds of the table store.
    pub store_limits: StoreLimits,
    /// Watcher bounds per process: `GAMEHUB_GOMOKU_MAX_WATCHERS_PER_TABLE` (default 64)
    /// streams per table, of which `GAMEHUB_GOMOKU_MAX_WATCHERS_PER_SEAT` (default 4) are
    /// kept for each seat's player; `GAMEHUB_GOMOKU_MAX_WATCHERS_PER_CALLER` (default 16)
    /// streams per caller across tables.
    pub watch_limits: WatchLimits,
    /// How often deadlines are swept (`GAMEHUB_GOMOKU_SWEEP_INTERVAL_MS`, default 100).
    pub sweep: SweepConfig,
    /// How settlements reach the ledger (`GAMEHUB_GOMOKU_SETTLE_MAX_BACKOFF_MS`: the
    /// longest wait between retries while the ledger is down, default 30 s; only once
    /// the game's ending is durable: `GAMEHUB_SETTLE_DURABILITY`, `…_FSYNC_MARGIN_MS`,
    /// `…_REPLICAS`, `…_REPLICA_TIMEOUT_MS`, see `SettlerConfig`).
    pub settler: SettlerConfig,
}

impl RefereeConfig {
    /// Reads the configuration; an unusable value names its variable.
    pub fn from_env(env: &Env) -> Result<Self, ConfigError> {
        let common = CommonConfig::from_env(env)?;
        common.check_signs_as(GOMOKU.service.identity)?;
        let service = &GOMOKU.service;
        let listen = env.addr(service.addr_var, &format!("0.0.0.0:{}", service.port))?;
        let between_games =
            env.millis("GAMEHUB_GOMOKU_BETWEEN_GAMES_MS", Duration::from_secs(600))?;
        let bot_move = env.millis("GAMEHUB_GOMOKU_BOT_MOVE_MS", Duration::from_millis(700))?;
        let watch_limits = WatchLimits::from_env(env, "GAMEHUB_GOMOKU", 2)?;
        let mut sweep = SweepConfig::default();
        sweep.interval = env.millis("GAMEHUB_GOMOKU_SWEEP_INTERVAL_MS", sweep.interval)?;
        let mut settler = SettlerConfig::default();
        settler.max_backoff =
            env.millis("GAMEHUB_GOMOKU_SETTLE_MAX_BACKOFF_MS", settler.max_backoff)?;
        settler.read_durability(env)?;
        Ok(Self {
            common,
            listen,
            between_games,
            bot_move,
            store_limits: StoreLimits::default(),
            watch_limits,
            sweep,
            settler,
        })
    }

    /// A configuration for tests: laptop defaults, listening on a free local port.
    pub fn for_tests() -> Self {
        let env = Env::from_pairs([("GAMEHUB_GOMOKU_ADDR", "127.0.0.1:0")]);
        Self::from_env(&env)
            .unwrap_or_else(|e| panic!("default referee configuration must parse: {e}"))
    }
}

/// Starts the referee: Redis, the gRPC server, the event hub, the deadline sweeper and
/// the settler, all in the background. Returns where it listens; everything stops
/// when `shutdown` is triggered.
pub async fn start(config: RefereeConfig, shutdown: Shutdown) -> anyhow::Result<Started> {
    gomoku_rules::warm_up();
    let common = &config.common;
    let redis = gamehub_platform::redis_conn::connect(&common.redis).await?;
    let store = TableStore::new(
        redis,
        &common.redis_prefix,
        GAME,
        config.store_limits.clone(),
        common.clock.clone(),
    )
    .with_replica_wait(common.redis_wait);
    let hub = EventHub::new(store.clone(), config.watch_limits.clone());
    let between_games_ms = u64::try_from(config.between_games.as_millis()).unwrap_or(u64::MAX);
    let bot_move_ms = u64::try_from(config.bot_move.as_millis()).unwrap_or(u64::MAX);
    let ledger = LedgerServiceClient::new(service_channel(
        &common.ledger_url,
        TokenSource::service(
            common.keys.clone(),
            gamehub_terms::games::GOMOKU.service.identity,
        ),
        Duration::from_secs(10),
    )?);
    let referee = Referee::new(
        store.clone(),
        hub.clone(),
        ledger.clone(),
        between_games_ms,
        bot_move_ms,
        shutdown.clone(),
    );

    let server = GrpcServer::new("gomoku-referee", common, shutdown.clone());
    let max_message_bytes = server.limits().max_message_bytes;
    let (addr, task) = server
        .add_service(
            GomokuServiceServer::new(referee.clone()).max_decoding_message_size(max_message_bytes),
        )
        .add_service(
            gamehub_platform::tables::dead_letters::DeadLetterDesk::new(
                store.clone(),
                Some(referee.closer()),
            )
            .server()
            .max_decoding_message_size(max_message_bytes),
        )
        .spawn(config.listen)
        .await?;

    tokio::spawn(hub.run(common.redis.clone(), shutdown.listener()));
    tokio::spawn(run_sweeper(
        store.clone(),
        Arc::new(referee.clone()),
        config.sweep.clone(),
        shutdown.listener(),
    ));
    tokio::spawn(run_settler(
        store,
        ledger,
        config.settler.clone(),
        Some(referee.on_settled()),
        shutdown.listener(),
    ));
    Ok(Started {
        name: "gomoku-referee",
        addr,
        task,
    })
}

// How the service's binary runs it (`gamehub_platform::runner`).
gamehub_platform::impl_service!(RefereeConfig, start);
