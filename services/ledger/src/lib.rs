//! The ledger service: silver (银子) balances with double-entry bookkeeping, win/loss
//! caps (输赢上限), points (积分), titles, Gomoku ratings (段位), history, finished game
//! records and tournaments' entry-fee pools, in PostgreSQL (docs/rules.md: silver and
//! caps, points and titles, rating, tournaments).
//!
//! - [`domain`]: the rules as pure functions (caps clamping, titles, ratings, the cap
//!   day, what settling a game changes, tournament fees, refunds and prizes),
//!   property-tested, no SQL or gRPC;
//! - [`repo`]: every SQL query, the settlement and tournament transactions and their
//!   retries;
//! - [`api`]: the gRPC adapter: authorization, request parsing, answers;
//! - [`error`]: [`error::LedgerError`] and its one mapping to gRPC statuses;
//! - `testing` (feature `testing`, for tests only): `TestLedger`, a real ledger on a free
//!   port over a scratch database;
//! - this file: [`LedgerConfig`] and [`start`], which the `gamehub-ledger` binary and the
//!   all-in-one `gamehub` binary call.
//!
//! The schema is `services/ledger/migrations` (the first release's schema, then one
//! migration per change: `0002_names.sql`, `0003_operator_actions.sql`,
//! `0004_tournaments.sql` for tournament pools), applied by [`start`] (the database is
//! created first if it does not exist).
#![forbid(unsafe_code)]

pub mod api;
pub mod domain;
pub mod error;
pub mod repo;
#[cfg(feature = "testing")]
pub mod testing;

use std::net::SocketAddr;
use std::str::FromStr;
use std::time::Duration;

use anyhow::Context;
use gamehub_platform::config::{CommonConfig, ConfigError, Env, Secret, ports};
use gamehub_platform::server::{GrpcServer, Shutdown, Started};
use gamehub_proto::ledger::ledger_service_server::LedgerServiceServer;
use sqlx::migrate::MigrateDatabase;
use sqlx::postgres::{PgConnectOptions, PgPool, PgPoolOptions};

use crate::domain::caps::Caps;

/// The ledger's migrations, embedded in the binary.
pub static MIGRATOR: sqlx::migrate::Migrator = sqlx::migrate!("./migrations");

/// Everything the ledger needs to run.
#[derive(Debug, Clone)]
pub struct LedgerConfig {
    /// Settings shared by every service (`DATABASE_URL`, `GAMEHUB_TIMEZONE`, limits, …).
    pub common: CommonConfig,
    /// `GAMEHUB_LEDGER_ADDR`: where the gRPC API listens (port 0 picks a free one).
    pub listen: SocketAddr,
    /// `GAMEHUB_LEDGER_{GAME,DAILY}_{WIN,LOSS}_CAP_SILVER`: the win/loss caps; the
    /// defaults are the seeds' 50,000 per game and 150,000 per day.
    pub caps: Caps,
    /// `GAMEHUB_LEDGER_DB_POOL_SIZE`: PostgreSQL connections held at most. Settlements
    /// run one transaction per connection; more connections than cores mainly help group
    /// commit.
    pub db_pool_size: u32,
    /// `GAMEHUB_LEDGER_DB_STATEMENT_TIMEOUT_MS`: a statement (lock waits included) taking
    /// longer is cancelled, so a stuck transaction cannot hold players' rows for long.
    /// The same bound is PostgreSQL's `idle_in_transaction_session_timeout`: a session
    /// whose transaction waits that long for its next statement (the ledger lost its
    /// link mid-transaction, and the server's end of the connection stays open) is ended
    /// by the server, and its locks on players' rows go with it.
    pub db_statement_timeout: Duration,
    /// `DATABASE_READ_URL`: a streaming replica of `DATABASE_URL`'s database for the
    /// reads that may lag by a moment (history, game lists, records, leaderboards; see
    /// [`repo::replica`]). Unset: everything reads the primary.
    pub database_read_url: Option<Secret>,
    /// `GAMEHUB_LEDGER_READ_MAX_LAG_MS`: how far behind the replica may be and still be
    /// read (default 2,000 ms); further behind, reads go to the primary.
    pub read_max_lag: Duration,
    /// `GAMEHUB_LEDGER_READ_PROBE_MS`: how often the replica's state is checked
    /// (default 1,000 ms).
    pub read_probe_interval: Duration,
}

impl LedgerConfig {
    /// Reads the configuration; an unusable value names its variable.
    pub fn from_env(env: &Env) -> Result<Self, ConfigError> {
        let common = CommonConfig::from_env(env)?;
        let listen = env.addr("GAMEHUB_LEDGER_ADDR", &format!("0.0.0.0:{}", ports::LEDGER))?;
        let defaults = Caps::default();
        let silver = |name: &str, default: i64| -> Result<i64, ConfigError> {
            let value = env.parse(name, default, "a whole number of silver")?;
            if value < 0 {
                return Err(ConfigError {
                    name: name.to_owned(),
                    value: value.to_string(),
                    reason: "a cap cannot be negative".into(),
                });
            }
            Ok(value)
        };
        let caps = Caps {
            game_win_silver: silver(
                "GAMEHUB_LEDGER_GAME_WIN_CAP_SILVER",
                defaults.game_win_silver,
            )?,
            game_loss_silver: silver(
                gamehub_terms::caps::GAME_LOSS_CAP_VAR,
                defaults.game_loss_silver,
            )?,
            daily_win_silver: silver(
                "GAMEHUB_LEDGER_DAILY_WIN_CAP_SILVER",
                defaults.daily_win_silver,
            )?,
            daily_loss_silver: silver(
                "GAMEHUB_LEDGER_DAILY_LOSS_CAP_SILVER",
                defaults.daily_loss_silver,
            )?,
        };
        let db_pool_size: u32 = env.parse(
            "GAMEHUB_LEDGER_DB_POOL_SIZE",
            16,
            "a number of connections (1 or more)",
        )?;
        if db_pool_size == 0 {
            return Err(ConfigError {
                name: "GAMEHUB_LEDGER_DB_POOL_SIZE".into(),
                value: "0".into(),
                reason: "expected a number of connections (1 or more)".into(),
            });
        }
        let db_statement_timeout = env.millis(
            "GAMEHUB_LEDGER_DB_STATEMENT_TIMEOUT_MS",
            Duration::from_secs(5),
        )?;
        let read_probe_interval =
            env.millis("GAMEHUB_LEDGER_READ_PROBE_MS", Duration::from_secs(1))?;
        if read_probe_interval.is_zero() {
            return Err(ConfigError {
                name: "GAMEHUB_LEDGER_READ_PROBE_MS".into(),
                value: "0".into(),
                reason: "expected a number of milliseconds (1 or more)".into(),
            });
        }
        Ok(Self {
            common,
            listen,
            caps,
            db_pool_size,
            db_statement_timeout,
            database_read_url: env.raw("DATABASE_READ_URL").map(Secret::new),
            read_max_lag: env.millis("GAMEHUB_LEDGER_READ_MAX_LAG_MS", Duration::from_secs(2))?,
            read_probe_interval,
        })
    }

    /// A configuration for tests: laptop defaults, listening on a free local port.
    pub fn for_tests() -> Self {
        let env = Env::from_pairs([("GAMEHUB_LEDGER_ADDR", "127.0.0.1:0")]);
        Self::from_env(&env)
            .unwrap_or_else(|e| panic!("default ledger configuration must parse: {e}"))
    }
}

/// Creates the database if it is missing, connects a pool and applies the migrations.
pub async fn connect_database(config: &LedgerConfig) -> anyhow::Result<PgPool> {
    let url = config.common.database_url.expose();
    let exists = sqlx::Postgres::database_exists(url)
        .await
        .context("cannot reach PostgreSQL at DATABASE_URL")?;
    if !exists {
        // Two replicas starting at once may race here; the loser sees the database exist.
        if let Err(e) = sqlx::Postgres::create_database(url).await
            && !sqlx::Postgres::database_exists(url).await.unwrap_or(false)
        {
            return Err(anyhow::Error::new(e).context("cannot create the ledger database"));
        }
        tracing::info!("created the ledger database");
    }
    let pool = pool_options(config)
        .connect_with(connect_options(config, url, "DATABASE_URL")?)
        .await
        .context("cannot connect to the ledger database")?;
    MIGRATOR.run(&pool).await.map_err(migration_error)?;
    Ok(pool)
}

/// How long a connection given back to the pool may take to show it still answers.
const RELEASE_CHECK_TIMEOUT: Duration = Duration::from_secs(2);

/// How long an idle connection may take to answer before it is handed out.
const ACQUIRE_CHECK_TIMEOUT: Duration = Duration::from_millis(500);

/// The pool settings the primary and the read replica share.
///
/// A call cancelled mid-query (its deadline passed) gives its connection back in an
/// unknown state, and the pool checks it with a round trip before reusing it; that
/// check has no timeout of its own, so on a link that drops packets silently it would
/// wait forever and hold its pool slot: after a few such calls the pool is exhausted for
/// good (tests/partitions.rs). The same check is made here first, bounded: a connection
/// that does not answer within [`RELEASE_CHECK_TIMEOUT`] is dropped (its slot freed; a
/// new connection is opened when one is needed).
///
/// The check sqlx makes before handing out an idle connection has no timeout either: a
/// connection from before a silent cut, idle since, would hang the call that takes it
/// until the call's deadline. It is replaced by the same bounded ping, so such a
/// connection is dropped within [`ACQUIRE_CHECK_TIMEOUT`] and the next one tried.
fn pool_options(config: &LedgerConfig) -> PgPoolOptions {
    PgPoolOptions::new()
        .max_connections(config.db_pool_size)
        .acquire_timeout(Duration::from_secs(5))
        .test_before_acquire(false)
        .before_acquire(|connection, _| {
            Box::pin(async move {
                use sqlx::Connection as _;
                // A connection that does not answer is dropped (Ok(false)), not an error:
                // the pool then tries another or opens a new one.
                Ok(
                    tokio::time::timeout(ACQUIRE_CHECK_TIMEOUT, connection.ping())
                        .await
                        .is_ok_and(|answered| answered.is_ok()),
                )
            })
        })
        .after_release(|connection, _| {
            Box::pin(async move {
                use sqlx::Connection as _;
                match tokio::time::timeout(RELEASE_CHECK_TIMEOUT, connection.ping()).await {
                    Ok(answered) => answered.map(|()| true),
                    Err(_) => Err(sqlx::Error::Io(std::io::Error::new(
                        std::io::ErrorKind::TimedOut,
                        "a connection given back to the pool did not answer a ping",
                    ))),
                }
            })
        })
}

/// How to connect to `url` (read from the variable `name`), with the statement timeout
/// and the same bound on a transaction left idle (see
/// [`LedgerConfig::db_statement_timeout`]).
fn connect_options(
    config: &LedgerConfig,
    url: &str,
    name: &str,
) -> anyhow::Result<PgConnectOptions> {
    let timeout_ms = config.db_statement_timeout.as_millis().to_string();
    Ok(PgConnectOptions::from_str(url)
        .with_context(|| format!("{name} is not a PostgreSQL URL"))?
        .options([
            ("statement_timeout", timeout_ms.as_str()),
            ("idle_in_transaction_session_timeout", timeout_ms.as_str()),
        ]))
}

/// The read replica of `DATABASE_READ_URL`, if one is configured, probed against
/// `primary` until `shutdown`. Connecting is lazy: a replica that is down at start is
/// simply not used until it answers.
pub fn read_replica(
    config: &LedgerConfig,
    primary: &PgPool,
    shutdown: &Shutdown,
) -> anyhow::Result<Option<std::sync::Arc<repo::replica::ReadReplica>>> {
    let Some(url) = &config.database_read_url else {
        return Ok(None);
    };
    let options = connect_options(config, url.expose(), "DATABASE_READ_URL")?;
    let pool = pool_options(config)
        .acquire_timeout(Duration::from_secs(2))
        .connect_lazy_with(options);
    let replica = std::sync::Arc::new(repo::replica::ReadReplica::new(pool, config.read_max_lag));
    replica.spawn_probe(
        primary.clone(),
        config.read_probe_interval,
        shutdown.clone(),
    );
    Ok(Some(replica))
}

/// What to do about a failed migration. A database made by the unreleased development
/// schema (migrations 0002–0004, since squashed into 0001; today's 0002 and 0004 are
/// other ones) does not match the released history; sqlx refuses it rather than
/// mis-migrate it (0001 as modified), and this says why and what to do.
fn migration_error(error: sqlx::migrate::MigrateError) -> anyhow::Error {
    use sqlx::migrate::MigrateError;
    match error {
        MigrateError::VersionMismatch(_) | MigrateError::VersionMissing(_) => anyhow::anyhow!(
            "{error}: the ledger database was created by a development version of gamehub \
             whose schema history was squashed before the first release; it cannot be \
             migrated. It holds development data only: drop it (e.g. `dropdb gamehub`, or \
             the database named in DATABASE_URL) and start the ledger again to create it \
             afresh"
        ),
        other => anyhow::Error::new(other).context("cannot apply the ledger migrations"),
    }
}

/// Starts the ledger: database, migrations, and the gRPC server in the background.
/// Returns where it listens; it stops when `shutdown` is triggered.
pub async fn start(config: LedgerConfig, shutdown: Shutdown) -> anyhow::Result<Started> {
    let pool = connect_database(&config).await?;
    let mut repository = repo::Repository::new(pool.clone());
    if let Some(replica) = read_replica(&config, &pool, &shutdown)? {
        repository = repository.with_read_replica(replica);
    }
    serve(config, repository, shutdown).await
}

/// Serves the gRPC API over `repository` (connected and migrated) in the background.
pub async fn serve(
    config: LedgerConfig,
    repository: repo::Repository,
    shutdown: Shutdown,
) -> anyhow::Result<Started> {
    let api = api::LedgerApi::new(
        repository,
        config.caps,
        config.common.timezone,
        config.common.clock.clone(),
    );
    let server = GrpcServer::new("ledger", &config.common, shutdown);
    let max_message_bytes = server.limits().max_message_bytes;
    let (addr, task) = server
        .add_service(LedgerServiceServer::new(api).max_decoding_message_size(max_message_bytes))
        .spawn(config.listen)
        .await?;
    Ok(Started {
        name: "ledger",
        addr,
        task,
    })
}

// How the service's binary runs it (`gamehub_platform::runner`).
gamehub_platform::impl_service!(LedgerConfig, start);

#[cfg(test)]
mod tests {
    use super::*;

    fn caps_of(pairs: &[(&str, &str)]) -> Result<Caps, ConfigError> {
        LedgerConfig::from_env(&Env::from_pairs(pairs.iter().copied())).map(|c| c.caps)
    }

    #[test]
    fn caps_default_to_the_seeds_and_each_is_configurable() {
        assert_eq!(
            caps_of(&[]).unwrap(),
            Caps {
                game_win_silver: 50_000,
                game_loss_silver: 50_000,
                daily_win_silver: 150_000,
                daily_loss_silver: 150_000,
            }
        );
        let caps = caps_of(&[
            ("GAMEHUB_LEDGER_GAME_WIN_CAP_SILVER", "1"),
            ("GAMEHUB_LEDGER_GAME_LOSS_CAP_SILVER", "2"),
            ("GAMEHUB_LEDGER_DAILY_WIN_CAP_SILVER", "3"),
            ("GAMEHUB_LEDGER_DAILY_LOSS_CAP_SILVER", "4"),
        ])
        .unwrap();
        assert_eq!(
            (
                caps.game_win_silver,
                caps.game_loss_silver,
                caps.daily_win_silver,
                caps.daily_loss_silver
            ),
            (1, 2, 3, 4)
        );
    }

    #[test]
    fn a_negative_or_malformed_cap_is_refused_by_name() {
        for name in [
            "GAMEHUB_LEDGER_GAME_WIN_CAP_SILVER",
            "GAMEHUB_LEDGER_GAME_LOSS_CAP_SILVER",
            "GAMEHUB_LEDGER_DAILY_WIN_CAP_SILVER",
            "GAMEHUB_LEDGER_DAILY_LOSS_CAP_SILVER",
        ] {
            for value in ["-1", "lots"] {
                let e = caps_of(&[(name, value)]).unwrap_err();
                assert_eq!(e.name, name, "{value}");
            }
        }
    }
}
