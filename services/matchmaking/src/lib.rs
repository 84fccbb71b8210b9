//! Matchmaking: the rooms players choose, tickets, and seating players at the game
//! services' tables (docs/rules.md#rooms; the README's architecture). Games come from
//! the registry (`gamehub_terms::games`).
//!
//! - [`rooms`]: rooms as data, the shipped `rooms.toml` and its validation by each
//!   game's registry entry;
//! - [`tickets`]: ticket ids, states and what a ticket holds;
//! - [`store`]: tickets, claims and per-player indexes in Redis, one Lua script per change;
//! - [`pairing`]: who sits with whom (queue order, or close ratings in rated rooms), pure;
//! - [`matcher`]: the matcher (claim → eligibility → open → seat) and the reaper
//!   (expiry, crash recovery), running in every replica;
//! - [`peers`]: the ledger and the game services behind small traits, and their gRPC clients;
//! - [`friends`]: friends' tables (好友房): codes, seats, ready, the owner's controls,
//!   and the sweeper that starts and reconciles them;
//! - [`hub`]: fan-out of ticket notifications to `WatchTicket` streams;
//! - [`api`]: the gRPC adapter; [`error`]: its errors and their one mapping to statuses;
//! - `testing` (feature `testing`, for tests only): matchmaking on a free port with
//!   in-process fakes of its peers, or against the real services;
//! - this file: [`MatchmakingConfig`] and [`start`], which the `gamehub-matchmaking`
//!   binary and the all-in-one `gamehub` binary call.
#![forbid(unsafe_code)]

pub mod api;
pub mod error;
pub mod friends;
pub mod hub;
pub mod matcher;
pub mod pairing;
pub mod peers;
pub mod rooms;
pub mod store;
#[cfg(feature = "testing")]
pub mod testing;
pub mod tickets;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use gamehub_platform::config::{CommonConfig, ConfigError, Env, ports};
use gamehub_platform::server::{GrpcServer, Shutdown, Started};
use gamehub_proto::matchmaking::matchmaking_service_server::MatchmakingServiceServer;

use crate::api::friends::{Friends, FriendsSettings};
use crate::friends::store::FriendsStore;
use crate::hub::{TicketHub, WatchLimits};
use crate::matcher::{Matcher, MatcherSettings};
use crate::pairing::RatingWindow;
use crate::peers::{Eligibility, GamePeers, LedgerPeer, TableOpener};
use crate::rooms::{DEFAULT_GAME_LOSS_CAP_SILVER, DEFAULT_ROOMS, Rooms};
use crate::store::{StoreSettings, TicketStore};

/// Everything matchmaking needs to run.
#[derive(Debug, Clone)]
pub struct MatchmakingConfig {
    /// Settings shared by every service (`REDIS_URL`, `GAMEHUB_LEDGER_URL`, limits, …).
    pub common: CommonConfig,
    /// `GAMEHUB_MATCHMAKING_ADDR`: where the gRPC API listens (port 0 picks a free one).
    pub listen: SocketAddr,
    /// The rooms: `GAMEHUB_ROOMS_FILE`, or the shipped `rooms.toml`. Default minimum
    /// balances are capped at `GAMEHUB_LEDGER_GAME_LOSS_CAP_SILVER` (the ledger's
    /// per-game loss cap, 50,000 by default).
    pub rooms: Rooms,
    /// Ticket lifetimes and limits: `GAMEHUB_MATCHMAKING_TICKET_TTL_MS`,
    /// `_TICKET_RETENTION_MS`, `_MAX_QUEUE`, `_CLAIM_TIMEOUT_MS`.
    pub store: StoreSettings,
    /// The matcher: `GAMEHUB_MATCHMAKING_INTERVAL_MS`, `_REAPER_INTERVAL_MS`,
    /// `_BATCH_TABLES`, `_RATING_WINDOW`, `_RATING_WINDOW_GROWTH_PER_S`.
    pub matcher: MatcherSettings,
    /// `GAMEHUB_MATCHMAKING_MAX_WATCHERS`: WatchTicket streams per process.
    pub watch: WatchLimits,
    /// `GAMEHUB_MATCHMAKING_PEER_TIMEOUT_MS`: a call to the ledger or a game service
    /// taking longer is abandoned (its outcome then counts as unknown).
    pub peer_timeout: Duration,
    /// Friends' tables: `GAMEHUB_FRIENDS_IDLE_CLOSE_MS`, `_PAID_TABLES`, `_MAX_TABLES`,
    /// `_CODE_MISSES`, `_CODE_WINDOW_MS`, `_RECONCILE_MS` (docs/rules.md#friends-tables).
    pub friends: FriendsSettings,
}

impl MatchmakingConfig {
    /// Reads the configuration; an unusable value names its variable.
    pub fn from_env(env: &Env) -> Result<Self, ConfigError> {
        let mut common = CommonConfig::from_env(env)?;
        common.sign_as(gamehub_platform::auth::MATCHMAKING_SUBJECT)?;
        let listen = env.addr(
            "GAMEHUB_MATCHMAKING_ADDR",
            &format!("0.0.0.0:{}", ports::MATCHMAKING),
        )?;
        let cap = env.parse(
            gamehub_terms::caps::GAME_LOSS_CAP_VAR,
            DEFAULT_GAME_LOSS_CAP_SILVER,
            "a whole number of silver",
        )?;
        if cap < 0 {
            // The ledger refuses to start with it; here it would make every default
            // minimum balance negative, which the ledger then refuses on every seat.
            return Err(ConfigError {
                name: gamehub_terms::caps::GAME_LOSS_CAP_VAR.into(),
                value: cap.to_string(),
                reason: "a cap cannot be negative".into(),
            });
        }
        let rooms = match env.raw("GAMEHUB_ROOMS_FILE") {
            None => Rooms::parse(DEFAULT_ROOMS, cap),
            Some(path) => {
                let text = std::fs::read_to_string(&path).map_err(|e| ConfigError {
                    name: "GAMEHUB_ROOMS_FILE".into(),
                    value: path.clone(),
                    reason: format!("cannot read the rooms file: {e}"),
                })?;
                Rooms::parse(&text, cap)
            }
        }
        .map_err(|e| ConfigError {
            name: "GAMEHUB_ROOMS_FILE".into(),
            value: env.string("GAMEHUB_ROOMS_FILE", "(the shipped rooms.toml)"),
            reason: e.to_string(),
        })?;
        let sd = StoreSettings::default();
        let store = StoreSettings {
            ticket_ttl: env.millis("GAMEHUB_MATCHMAKING_TICKET_TTL_MS", sd.ticket_ttl)?,
            retention: env.millis("GAMEHUB_MATCHMAKING_TICKET_RETENTION_MS", sd.retention)?,
            max_queue: env.positive(
                "GAMEHUB_MATCHMAKING_MAX_QUEUE",
                sd.max_queue,
                "a number of tickets",
            )?,
            claim_timeout: env.millis("GAMEHUB_MATCHMAKING_CLAIM_TIMEOUT_MS", sd.claim_timeout)?,
            ..sd
        };
        let md = MatcherSettings::default();
        let matcher = MatcherSettings {
            interval: env.millis("GAMEHUB_MATCHMAKING_INTERVAL_MS", md.interval)?,
            reaper_interval: env
                .millis("GAMEHUB_MATCHMAKING_REAPER_INTERVAL_MS", md.reaper_interval)?,
            batch_tables: usize::try_from(env.positive(
                "GAMEHUB_MATCHMAKING_BATCH_TABLES",
                md.batch_tables as u64,
                "a number of tables",
            )?)
            .unwrap_or(md.batch_tables)
            .min(1024),
            window: RatingWindow {
                base: env.parse(
                    "GAMEHUB_MATCHMAKING_RATING_WINDOW",
                    md.window.base,
                    "a rating gap",
                )?,
                growth_per_second: env.parse(
                    "GAMEHUB_MATCHMAKING_RATING_WINDOW_GROWTH_PER_S",
                    md.window.growth_per_second,
                    "a rating gap per second",
                )?,
            },
            ..md
        };
        let wd = WatchLimits::default();
        let watch = WatchLimits {
            max_watchers: env.parse(
                "GAMEHUB_MATCHMAKING_MAX_WATCHERS",
                wd.max_watchers,
                "a number of streams",
            )?,
            ..wd
        };
        let peer_timeout = env.millis(
            "GAMEHUB_MATCHMAKING_PEER_TIMEOUT_MS",
            Duration::from_secs(5),
        )?;
        if store.claim_timeout <= peer_timeout * 2 {
            return Err(ConfigError {
                name: "GAMEHUB_MATCHMAKING_CLAIM_TIMEOUT_MS".into(),
                value: store.claim_timeout.as_millis().to_string(),
                reason: format!(
                    "must exceed twice GAMEHUB_MATCHMAKING_PEER_TIMEOUT_MS ({} ms): a claim lives through an eligibility check and an OpenTable call",
                    peer_timeout.as_millis()
                ),
            });
        }
        let fd = FriendsSettings::default();
        let friends = FriendsSettings {
            idle_close: env.millis("GAMEHUB_FRIENDS_IDLE_CLOSE_MS", fd.idle_close)?,
            paid_tables: env.flag("GAMEHUB_FRIENDS_PAID_TABLES", fd.paid_tables)?,
            max_tables: env.positive(
                "GAMEHUB_FRIENDS_MAX_TABLES",
                fd.max_tables,
                "a number of tables",
            )?,
            code_misses: env.positive(
                "GAMEHUB_FRIENDS_CODE_MISSES",
                fd.code_misses,
                "a number of codes",
            )?,
            code_window: env.millis("GAMEHUB_FRIENDS_CODE_WINDOW_MS", fd.code_window)?,
            reconcile_every: env.millis("GAMEHUB_FRIENDS_RECONCILE_MS", fd.reconcile_every)?,
            ..fd
        };
        Ok(Self {
            common,
            listen,
            rooms,
            store,
            matcher,
            watch,
            peer_timeout,
            friends,
        })
    }

    /// A configuration for tests: laptop defaults, a free local port, a Redis prefix of
    /// its own (so tests sharing a Redis never see each other's tickets).
    pub fn for_tests() -> Self {
        let prefix = format!("test-mm-{}", uuid::Uuid::new_v4().simple());
        let env = Env::from_pairs([
            ("GAMEHUB_MATCHMAKING_ADDR", "127.0.0.1:0"),
            ("GAMEHUB_REDIS_PREFIX", prefix.as_str()),
        ]);
        Self::from_env(&env)
            .unwrap_or_else(|e| panic!("default matchmaking configuration must parse: {e}"))
    }
}

/// Starts matchmaking against the real ledger and game services (at
/// `GAMEHUB_LEDGER_URL` and each game's `GAMEHUB_<GAME>_URL`): the gRPC server, the
/// matcher loops and the reaper, in the background. Stops when `shutdown` is triggered.
pub async fn start(config: MatchmakingConfig, shutdown: Shutdown) -> anyhow::Result<Started> {
    let eligibility = Arc::new(LedgerPeer::new(&config.common, config.peer_timeout)?);
    let tables = Arc::new(GamePeers::new(&config.common, config.peer_timeout)?);
    start_with(config, shutdown, eligibility, tables).await
}

/// [`start`] with other implementations of the ledger and the game services (tests,
/// benchmarks, embedded setups).
pub async fn start_with(
    config: MatchmakingConfig,
    shutdown: Shutdown,
    eligibility: Arc<dyn Eligibility>,
    tables: Arc<dyn TableOpener>,
) -> anyhow::Result<Started> {
    let redis = gamehub_platform::redis_conn::connect(&config.common.redis).await?;
    let store = TicketStore::new(
        redis,
        &config.common.redis_prefix,
        config.store.clone(),
        config.common.clock.clone(),
    );
    let matcher = Matcher::new(
        store.clone(),
        config.rooms.clone(),
        Arc::clone(&eligibility),
        Arc::clone(&tables),
        config.matcher.clone(),
    );
    let hub = TicketHub::new(config.watch.clone());
    tokio::spawn(
        hub.clone().run(
            config.common.redis.clone(),
            config
                .rooms
                .iter()
                .map(|room| store.channel(&room.id))
                .collect(),
            shutdown.listener(),
        ),
    );
    matcher.spawn(&shutdown);
    let friends = Friends::new(
        FriendsStore::new(store.redis(), &config.common.redis_prefix),
        config.friends.clone(),
    );
    tokio::spawn(
        friends
            .clone()
            .run_notifications(config.common.redis.clone(), shutdown.listener()),
    );
    let api = api::MatchmakingApi::new(
        matcher,
        hub,
        api::ReservationTimes::for_peer_timeout(config.peer_timeout),
        shutdown.clone(),
        friends,
    );
    tokio::spawn(api.clone().sweep_friends(shutdown.listener()));
    let server = GrpcServer::new("matchmaking", &config.common, shutdown);
    let max_message_bytes = server.limits().max_message_bytes;
    let (addr, task) = server
        .add_service(
            MatchmakingServiceServer::new(api).max_decoding_message_size(max_message_bytes),
        )
        .spawn(config.listen)
        .await?;
    Ok(Started {
        name: "matchmaking",
        addr,
        task,
    })
}

// How the service's binary runs it (`gamehub_platform::runner`).
gamehub_platform::impl_service!(MatchmakingConfig, start);

#[cfg(test)]
mod tests {
    use super::*;

    fn from_pairs(pairs: &[(&str, &str)]) -> Result<MatchmakingConfig, ConfigError> {
        MatchmakingConfig::from_env(&Env::from_pairs(pairs.iter().copied()))
    }

    #[test]
    fn a_negative_loss_cap_is_refused_by_name() {
        let e = from_pairs(&[("GAMEHUB_LEDGER_GAME_LOSS_CAP_SILVER", "-1")]).unwrap_err();
        assert_eq!(e.name, "GAMEHUB_LEDGER_GAME_LOSS_CAP_SILVER");
    }
}
