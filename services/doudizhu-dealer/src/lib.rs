//! The Dou Dizhu (斗地主) dealer: authoritative three-player tables (docs/rules.md#dou-dizhu), a
//! thin gRPC adapter over the `doudizhu-rules` crate with the live state in Redis and
//! the results settled by the ledger.
//!
//! The same files for the same jobs as every game service (the Gomoku referee's too),
//! each layer importing only those below it:
//!
//! - [`table`]: a table as stored (room, players, the crate's `Deal`, the stage between
//!   deals) and its pure transitions, each returning a [`table::Step`] of domain events
//!   ([`table::TableEvent`], each with its audience) and the deal it ended. State, the
//!   rules crate and its bot only: no protobuf;
//! - [`view`]: what the API shows, built from the table: every view starts from the
//!   crate's per-seat view; the table's events as the API's `TableEvent`s; deal records
//!   (the only place that turns the table into protobuf);
//! - [`settle`]: the ledger's `SettleGameRequest` of a deal a step ended (for the
//!   settlement outbox) and the ledger's answer read back for the table;
//! - [`record`]: the "doudizhu-json" deal record, its verification, the per-table archive;
//! - [`parse`]: requests into domain types, once, at the edge;
//! - [`error`]: [`error::DealerError`] and its one mapping to gRPC statuses;
//! - [`service`]: the gRPC API ([`service::Dealer`]): authorization, one atomic store
//!   step per action, watching, the clock handler the sweeper calls and the settler's
//!   acknowledgement;
//! - `testing` (feature `testing`, for tests only): a dealer on a free port and a Redis
//!   key prefix of the test's own, test seeds allowed;
//! - this file: [`DealerConfig`] and [`start`], which the `gamehub-doudizhu-dealer`
//!   binary and the all-in-one `gamehub` binary call.
//!
//! ```text
//! service ─▶ view, settle, record, parse ─▶ table ─▶ error
//!            settle ─▶ view, record;  view ─▶ record;  parse ─▶ error
//! ```
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
use gamehub_platform::config::{CommonConfig, ConfigError, Env, Environment};
use gamehub_platform::server::{GrpcServer, Shutdown, Started};
use gamehub_platform::tables::hub::{EventHub, WatchLimits};
use gamehub_platform::tables::settler::{SettlerConfig, run_settler};
use gamehub_platform::tables::sweeper::{SweepConfig, run_sweeper};
use gamehub_platform::tables::{StoreLimits, TableStore};
use gamehub_proto::doudizhu::doudizhu_service_server::DoudizhuServiceServer;
use gamehub_proto::ledger::ledger_service_client::LedgerServiceClient;
use gamehub_terms::games::DOUDIZHU;

use crate::record::Archive;
use crate::service::{ClockHandler, Dealer};
use crate::table::Timing;

/// The game name of the dealer's tables in Redis keys and metrics.
pub const GAME: &str = "doudizhu";

/// Everything the dealer needs to run.
#[derive(Debug, Clone)]
pub struct DealerConfig {
    /// Settings shared by every service (`REDIS_URL`, `GAMEHUB_LEDGER_URL`, limits, …).
    pub common: CommonConfig,
    /// `GAMEHUB_DOUDIZHU_ADDR`: where the gRPC API listens (port 0 picks a free one).
    pub listen: SocketAddr,
    /// `GAMEHUB_DOUDIZHU_AUTO_TURN_MS` (default 1000): how long a seat on auto-play
    /// (托管) keeps its turn before the server plays for it, so the others can follow;
    /// 0 plays for it in the step that made it its turn.
    pub auto_turn_ms: u64,
    /// `GAMEHUB_DOUDIZHU_REDEAL_PAUSE_MS` (default 0): pause after everyone passed in
    /// bidding before the cards are dealt again.
    pub redeal_pause_ms: u64,
    /// `GAMEHUB_DOUDIZHU_NEXT_DEAL_TIMEOUT_MS` (default 60000): after a deal ended, how
    /// long the three seats have to ask for the next deal before the table closes.
    pub next_deal_timeout_ms: u64,
    /// `GAMEHUB_DOUDIZHU_RECORDS_KEPT` (default 16): finished deals each table keeps
    /// for GetDealRecord (played deals are also kept by the ledger).
    pub records_kept: u32,
    /// `GAMEHUB_DEALER_TEST_SEEDS` (default off): lets OpenTable carry seeds, for tests.
    /// Refused unless `GAMEHUB_ENV=development`.
    pub test_seeds: bool,
    /// Sizes and lifetimes of stored tables.
    pub store: StoreLimits,
    /// Watcher bounds per process: `GAMEHUB_DOUDIZHU_MAX_WATCHERS_PER_TABLE` (default 64)
    /// streams per table, of which `GAMEHUB_DOUDIZHU_MAX_WATCHERS_PER_SEAT` (default 4)
    /// are kept for each seat's player; `GAMEHUB_DOUDIZHU_MAX_WATCHERS_PER_CALLER`
    /// (default 16) streams per caller across tables.
    pub watch: WatchLimits,
    /// How the deadline sweeper runs.
    pub sweep: SweepConfig,
    /// How the settler runs (only once a deal's ending is durable:
    /// `GAMEHUB_SETTLE_DURABILITY`, `…_FSYNC_MARGIN_MS`, `…_REPLICAS`,
    /// `…_REPLICA_TIMEOUT_MS`, see `SettlerConfig`).
    pub settler: SettlerConfig,
}

impl DealerConfig {
    /// Reads the configuration; an unusable value names its variable.
    pub fn from_env(env: &Env) -> Result<Self, ConfigError> {
        let common = CommonConfig::from_env(env)?;
        common.check_signs_as(DOUDIZHU.service.identity)?;
        let service = &DOUDIZHU.service;
        let listen = env.addr(service.addr_var, &format!("0.0.0.0:{}", service.port))?;
        let ms =
            |name: &str, default: u64| env.parse(name, default, "a whole number of milliseconds");
        let test_seeds = env.flag("GAMEHUB_DEALER_TEST_SEEDS", false)?;
        if test_seeds && common.environment != Environment::Development {
            return Err(ConfigError {
                name: "GAMEHUB_DEALER_TEST_SEEDS".into(),
                value: "1".into(),
                reason: "test seeds deal chosen hands: only a development dealer may accept them"
                    .into(),
            });
        }
        let records_kept: u32 = env.parse(
            "GAMEHUB_DOUDIZHU_RECORDS_KEPT",
            16,
            "a number of deals (1 or more)",
        )?;
        let mut settler = SettlerConfig::default();
        settler.read_durability(env)?;
        Ok(Self {
            common,
            listen,
            auto_turn_ms: ms("GAMEHUB_DOUDIZHU_AUTO_TURN_MS", 1000)?,
            redeal_pause_ms: ms("GAMEHUB_DOUDIZHU_REDEAL_PAUSE_MS", 0)?,
            next_deal_timeout_ms: ms("GAMEHUB_DOUDIZHU_NEXT_DEAL_TIMEOUT_MS", 60_000)?,
            records_kept: records_kept.max(1),
            test_seeds,
            store: StoreLimits::default(),
            watch: WatchLimits::from_env(env, "GAMEHUB_DOUDIZHU", 3)?,
            sweep: SweepConfig::default(),
            settler,
        })
    }

    /// A configuration for tests: laptop defaults, listening on a free local port.
    pub fn for_tests() -> Self {
        let env = Env::from_pairs([("GAMEHUB_DOUDIZHU_ADDR", "127.0.0.1:0")]);
        Self::from_env(&env)
            .unwrap_or_else(|e| panic!("default dealer configuration must parse: {e}"))
    }

    fn timing(&self) -> Timing {
        Timing {
            auto_turn_ms: self.auto_turn_ms,
            redeal_pause_ms: self.redeal_pause_ms,
            next_deal_timeout_ms: self.next_deal_timeout_ms,
        }
    }
}

/// Starts the dealer: connects Redis, and runs in the background the gRPC server, the
/// event hub (watch notifications), the deadline sweeper and the settler. Returns where
/// it listens; everything stops when `shutdown` is triggered.
pub async fn start(config: DealerConfig, shutdown: Shutdown) -> anyhow::Result<Started> {
    let conn = gamehub_platform::redis_conn::connect(&config.common.redis).await?;
    let store = TableStore::new(
        conn,
        &config.common.redis_prefix,
        GAME,
        config.store.clone(),
        config.common.clock.clone(),
    )
    .with_replica_wait(config.common.redis_wait);
    let hub = EventHub::new(store.clone(), config.watch.clone());
    tokio::spawn(
        hub.clone()
            .run(config.common.redis.clone(), shutdown.listener()),
    );

    let archive = Archive::new(
        store.clone(),
        config.records_kept,
        config.store.idle_table_ttl,
    );
    let ledger = LedgerServiceClient::new(service_channel(
        &config.common.ledger_url,
        TokenSource::service(
            config.common.keys.clone(),
            gamehub_terms::games::DOUDIZHU.service.identity,
        ),
        Duration::from_secs(10),
    )?);
    let dealer = Dealer::new(
        store.clone(),
        hub,
        archive,
        config.timing(),
        config.test_seeds,
        ledger.clone(),
        shutdown.clone(),
    );
    tokio::spawn(run_sweeper(
        store.clone(),
        Arc::new(ClockHandler {
            dealer: dealer.clone(),
        }),
        config.sweep.clone(),
        shutdown.listener(),
    ));

    tokio::spawn(run_settler(
        store.clone(),
        ledger,
        config.settler.clone(),
        Some(dealer.on_settled()),
        shutdown.listener(),
    ));

    let server = GrpcServer::new("doudizhu-dealer", &config.common, shutdown);
    let max_message_bytes = server.limits().max_message_bytes;
    let (addr, task) = server
        .add_service(
            DoudizhuServiceServer::new(dealer.clone()).max_decoding_message_size(max_message_bytes),
        )
        .add_service(
            gamehub_platform::tables::dead_letters::DeadLetterDesk::new(
                store.clone(),
                Some(dealer.closer()),
            )
            .server()
            .max_decoding_message_size(max_message_bytes),
        )
        .spawn(config.listen)
        .await?;
    Ok(Started {
        name: "doudizhu-dealer",
        addr,
        task,
    })
}

// How the service's binary runs it (`gamehub_platform::runner`).
gamehub_platform::impl_service!(DealerConfig, start);
