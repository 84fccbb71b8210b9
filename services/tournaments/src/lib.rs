//! Tournaments (比赛): Swiss tournaments of Gomoku and elimination rounds (打立出局) of Dou
//! Dizhu, played at ordinary tables of the game services, with entry fees held and
//! prizes paid by the ledger (docs/rules.md#tournaments). The rules of pairing,
//! standings, elimination and prizes are the `tournament-rules` crate's; this service
//! keeps the state and does the calls.
//!
//! - [`settings`]: what an operator decides, checked once, and the room's terms;
//! - [`tournament`]: a tournament's whole state and every change to it, pure;
//! - [`store`]: tournaments in PostgreSQL (schema `tournaments`), changed by
//!   compare-and-set;
//! - [`peers`]: matchmaking's rooms, the ledger and the game services, over gRPC;
//! - [`director`]: the loop that starts, pairs, seats, reads results and pays prizes;
//! - [`schedule`]: daily tournaments from a schedule file, and the one way any
//!   tournament is created;
//! - [`hub`]: fan-out of changes to `WatchTournament` streams;
//! - [`api`], [`view`]: the gRPC adapter and the answers it gives;
//! - this file: [`TournamentsConfig`] and [`start`], which the `gamehub-tournaments`
//!   binary and the all-in-one `gamehub` binary call.
#![forbid(unsafe_code)]

pub mod api;
pub mod director;
pub mod hub;
pub mod peers;
pub mod schedule;
pub mod settings;
pub mod store;
pub mod tournament;
pub mod view;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use gamehub_platform::config::{CommonConfig, ConfigError, Env, ports};
use gamehub_platform::server::{GrpcServer, Shutdown, Started};
use gamehub_proto::tournament::tournament_service_server::TournamentServiceServer;

use crate::director::{Director, DirectorSettings};
use crate::hub::Hub;
use crate::peers::Peers;
use crate::store::Store;

/// Everything the tournament service needs to run.
#[derive(Debug, Clone)]
pub struct TournamentsConfig {
    /// Settings shared by every service (`DATABASE_URL`, `GAMEHUB_LEDGER_URL`,
    /// `GAMEHUB_MATCHMAKING_URL`, each game's URL, limits, …).
    pub common: CommonConfig,
    /// `GAMEHUB_TOURNAMENTS_ADDR`: where the gRPC API listens (port 0 picks a free one).
    pub listen: SocketAddr,
    /// `GAMEHUB_TOURNAMENTS_DB_POOL_SIZE`: PostgreSQL connections held at most (default 8).
    pub db_pool_size: u32,
    /// `GAMEHUB_TOURNAMENTS_DB_STATEMENT_TIMEOUT_MS`: a statement taking longer is
    /// cancelled (default 5,000 ms).
    pub db_statement_timeout: Duration,
    /// The director: `GAMEHUB_TOURNAMENTS_TICK_MS`, and the daily tournaments of
    /// `GAMEHUB_TOURNAMENTS_SCHEDULE` (a TOML file; unset: none; see [`schedule`]).
    pub director: DirectorSettings,
    /// `GAMEHUB_TOURNAMENTS_MAX_WATCHERS`: WatchTournament streams per process (default
    /// 10,000).
    pub max_watchers: usize,
    /// `GAMEHUB_TOURNAMENTS_PEER_TIMEOUT_MS`: a call to the ledger, matchmaking or a game
    /// service taking longer is abandoned and tried again later (default 5,000 ms).
    pub peer_timeout: Duration,
}

impl TournamentsConfig {
    /// Reads the configuration; an unusable value names its variable.
    pub fn from_env(env: &Env) -> Result<Self, ConfigError> {
        let mut common = CommonConfig::from_env(env)?;
        common.sign_as(gamehub_platform::auth::TOURNAMENTS_SUBJECT)?;
        let listen = env.addr(
            "GAMEHUB_TOURNAMENTS_ADDR",
            &format!("0.0.0.0:{}", ports::TOURNAMENTS),
        )?;
        let db_pool_size = env.positive(
            "GAMEHUB_TOURNAMENTS_DB_POOL_SIZE",
            8,
            "a number of connections",
        )?;
        let default_tick =
            u64::try_from(DirectorSettings::default().tick.as_millis()).unwrap_or(500);
        let tick = Duration::from_millis(env.positive(
            "GAMEHUB_TOURNAMENTS_TICK_MS",
            default_tick,
            "a whole number of milliseconds",
        )?);
        let max_watchers = env.positive(
            "GAMEHUB_TOURNAMENTS_MAX_WATCHERS",
            10_000,
            "a number of streams",
        )?;
        let schedule = match env.raw("GAMEHUB_TOURNAMENTS_SCHEDULE") {
            None => schedule::Schedule::default(),
            Some(path) => std::fs::read_to_string(&path)
                .map_err(|e| format!("cannot read it: {e}"))
                .and_then(|text| schedule::Schedule::parse(&text))
                .map_err(|reason| ConfigError {
                    name: "GAMEHUB_TOURNAMENTS_SCHEDULE".into(),
                    value: path.clone(),
                    reason,
                })?,
        };
        Ok(Self {
            common,
            listen,
            db_pool_size: u32::try_from(db_pool_size).unwrap_or(u32::MAX),
            db_statement_timeout: env.millis(
                "GAMEHUB_TOURNAMENTS_DB_STATEMENT_TIMEOUT_MS",
                Duration::from_secs(5),
            )?,
            director: DirectorSettings { tick, schedule },
            max_watchers: usize::try_from(max_watchers).unwrap_or(usize::MAX),
            peer_timeout: env.millis(
                "GAMEHUB_TOURNAMENTS_PEER_TIMEOUT_MS",
                Duration::from_secs(5),
            )?,
        })
    }

    /// A configuration for tests: laptop defaults, listening on a free local port.
    pub fn for_tests() -> Self {
        let env = Env::from_pairs([("GAMEHUB_TOURNAMENTS_ADDR", "127.0.0.1:0")]);
        Self::from_env(&env)
            .unwrap_or_else(|e| panic!("default tournament configuration must parse: {e}"))
    }
}

/// Starts the tournament service: its database schema, the director and the gRPC server,
/// in the background. Stops when `shutdown` is triggered.
pub async fn start(config: TournamentsConfig, shutdown: Shutdown) -> anyhow::Result<Started> {
    let url = config.common.database_url.expose().to_owned();
    let store = Store::connect(&url, config.db_pool_size, config.db_statement_timeout).await?;
    let peers = Arc::new(Peers::new(&config.common, config.peer_timeout)?);
    let clock = config.common.clock.clone();
    Director::new(
        store.clone(),
        Arc::clone(&peers),
        clock.clone(),
        config.director.clone(),
        url,
    )
    .spawn(&shutdown);
    let hub = Hub::new(store.clone(), config.max_watchers);
    tokio::spawn(hub.clone().run(shutdown.listener()));
    let api = api::TournamentApi::new(store, peers, hub, clock);
    let server = GrpcServer::new("tournaments", &config.common, shutdown);
    let max_message_bytes = server.limits().max_message_bytes;
    let (addr, task) = server
        .add_service(TournamentServiceServer::new(api).max_decoding_message_size(max_message_bytes))
        .spawn(config.listen)
        .await?;
    Ok(Started {
        name: "tournaments",
        addr,
        task,
    })
}

// How the service's binary runs it (`gamehub_platform::runner`).
gamehub_platform::impl_service!(TournamentsConfig, start);
