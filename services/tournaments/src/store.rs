//! Tournaments in PostgreSQL: schema `tournaments` of the platform's database, one row
//! per tournament holding its whole state as a JSON document (`migrations/`). Every
//! change is a compare-and-set on the row's `version` ([`Store::update`]): two replicas
//! (or a registration racing the director) never lose each other's change, the loser
//! reloads and applies its change again.
//!
//! | column | what |
//! | --- | --- |
//! | `tournament_id` | "tn-" and 24 hex digits, from the creating request id |
//! | `request_id`, `request_sha256` | creation's idempotency |
//! | `state`, `game_type`, `created_at_ms` | for listing |
//! | `version` | +1 per change; streams follow it |
//! | `needs_work` | the director has something left to do |
//! | `doc` | [`Tournament`], as JSON |

use std::str::FromStr;
use std::time::Duration;

use anyhow::Context;
use gamehub_platform::error::ApiError;
use sqlx::migrate::MigrateDatabase;
use sqlx::postgres::{PgConnectOptions, PgPool, PgPoolOptions};
use sqlx::{Connection, Row};

use crate::tournament::Tournament;

/// The service's migrations, embedded in the binary.
pub static MIGRATOR: sqlx::migrate::Migrator = sqlx::migrate!("./migrations");

/// The schema the service's tables (and its migration history) live in.
pub const SCHEMA: &str = "tournaments";

/// How many times a change is tried against concurrent changes.
const MAX_ATTEMPTS: u32 = 20;

/// A stored tournament and its version.
pub type Versioned = (Tournament, i64);

/// The tournaments' store.
#[derive(Debug, Clone)]
pub struct Store {
    pool: PgPool,
}

/// A database error as the API shows it: a link that is down is UNAVAILABLE (retry),
/// anything else internal.
pub fn db_error(err: sqlx::Error) -> ApiError {
    match err {
        sqlx::Error::PoolTimedOut | sqlx::Error::Io(_) | sqlx::Error::PoolClosed => {
            ApiError::Unavailable("the tournament database is not answering; retry".into())
        }
        other => ApiError::internal(other),
    }
}

fn decode(row: &sqlx::postgres::PgRow) -> Result<Versioned, ApiError> {
    let doc: serde_json::Value = row.try_get("doc").map_err(db_error)?;
    let version: i64 = row.try_get("version").map_err(db_error)?;
    let tournament = serde_json::from_value(doc).map_err(|e| {
        ApiError::internal(anyhow::anyhow!("a stored tournament does not decode: {e}"))
    })?;
    Ok((tournament, version))
}

impl Store {
    /// Creates the database and the schema if missing, connects, and migrates.
    pub async fn connect(
        url: &str,
        max_connections: u32,
        statement_timeout: Duration,
    ) -> anyhow::Result<Self> {
        let exists = sqlx::Postgres::database_exists(url)
            .await
            .context("cannot reach PostgreSQL at DATABASE_URL")?;
        // Two processes starting at once may race here; the loser sees the database exist.
        if !exists
            && let Err(e) = sqlx::Postgres::create_database(url).await
            && !sqlx::Postgres::database_exists(url).await.unwrap_or(false)
        {
            return Err(anyhow::Error::new(e).context("cannot create the database"));
        }
        let timeout_ms = statement_timeout.as_millis().to_string();
        let options = PgConnectOptions::from_str(url)
            .context("DATABASE_URL is not a PostgreSQL URL")?
            .options([
                ("search_path", SCHEMA),
                ("statement_timeout", timeout_ms.as_str()),
                ("idle_in_transaction_session_timeout", timeout_ms.as_str()),
            ]);
        let mut first = sqlx::PgConnection::connect_with(&options)
            .await
            .context("cannot connect to PostgreSQL")?;
        // Two replicas starting at once: the loser of the race sees the schema exist.
        sqlx::query(&format!("CREATE SCHEMA IF NOT EXISTS {SCHEMA}"))
            .execute(&mut first)
            .await
            .ok();
        first.close().await.ok();
        let pool = PgPoolOptions::new()
            .max_connections(max_connections)
            .acquire_timeout(Duration::from_secs(5))
            .connect_with(options)
            .await
            .context("cannot connect to PostgreSQL")?;
        MIGRATOR
            .run(&pool)
            .await
            .context("cannot apply the tournament migrations")?;
        Ok(Self { pool })
    }

    /// The pool (the director takes its lock on a connection of its own).
    pub fn pool(&self) -> &PgPool {
        &self.pool
    }

    /// Stores a new tournament made by `request_id`, or answers the one that request made
    /// before (`true` = replayed); the id with other settings is ALREADY_EXISTS.
    pub async fn create(
        &self,
        request_id: &str,
        sha256: &[u8; 32],
        tournament: &Tournament,
    ) -> Result<(Versioned, bool), ApiError> {
        let doc = serde_json::to_value(tournament).map_err(ApiError::internal)?;
        let inserted = sqlx::query(
            "INSERT INTO tournaments (tournament_id, request_id, request_sha256, state, game_type, created_at_ms, version, needs_work, doc) \
             VALUES ($1, $2, $3, $4, $5, $6, 1, true, $7) ON CONFLICT DO NOTHING RETURNING version, doc",
        )
        .bind(&tournament.id)
        .bind(request_id)
        .bind(sha256.as_slice())
        .bind(tournament.state.code())
        .bind(tournament.settings.game().game_type as i16)
        .bind(tournament.created_at_ms)
        .bind(doc)
        .fetch_optional(&self.pool)
        .await
        .map_err(db_error)?;
        if let Some(row) = inserted {
            return Ok((decode(&row)?, false));
        }
        let earlier = sqlx::query(
            "SELECT request_sha256, version, doc FROM tournaments WHERE request_id = $1",
        )
        .bind(request_id)
        .fetch_optional(&self.pool)
        .await
        .map_err(db_error)?
        .ok_or_else(|| {
            ApiError::Aborted("a tournament with this id was being made; retry".into())
        })?;
        let stored: Vec<u8> = earlier.try_get("request_sha256").map_err(db_error)?;
        if stored.as_slice() != sha256.as_slice() {
            return Err(ApiError::AlreadyExists(format!(
                "request_id {request_id} already made a tournament with other settings; use a fresh id"
            )));
        }
        Ok((decode(&earlier)?, true))
    }

    /// The tournament `id`.
    pub async fn load(&self, id: &str) -> Result<Option<Versioned>, ApiError> {
        sqlx::query("SELECT version, doc FROM tournaments WHERE tournament_id = $1")
            .bind(id)
            .fetch_optional(&self.pool)
            .await
            .map_err(db_error)?
            .map(|row| decode(&row))
            .transpose()
    }

    /// Loads `id`, applies `change`, and stores it if it changed anything, by
    /// compare-and-set: a concurrent change makes it start over from the new state. An
    /// error from `change` stores nothing. Answers the tournament as stored and what
    /// `change` answered.
    pub async fn update<T>(
        &self,
        id: &str,
        mut change: impl FnMut(&mut Tournament) -> Result<T, ApiError>,
    ) -> Result<(Versioned, T), ApiError> {
        for _ in 0..MAX_ATTEMPTS {
            let (mut tournament, version) = self
                .load(id)
                .await?
                .ok_or_else(|| ApiError::NotFound(format!("no tournament {id}")))?;
            let before = tournament.clone();
            let answer = change(&mut tournament)?;
            if tournament == before {
                return Ok(((tournament, version), answer));
            }
            let doc = serde_json::to_value(&tournament).map_err(ApiError::internal)?;
            let stored = sqlx::query(
                "UPDATE tournaments SET doc = $3, version = version + 1, state = $4, needs_work = $5 \
                 WHERE tournament_id = $1 AND version = $2 RETURNING version",
            )
            .bind(id)
            .bind(version)
            .bind(doc)
            .bind(tournament.state.code())
            .bind(tournament.needs_work())
            .fetch_optional(&self.pool)
            .await
            .map_err(db_error)?;
            if let Some(row) = stored {
                let version: i64 = row.try_get("version").map_err(db_error)?;
                return Ok(((tournament, version), answer));
            }
            tokio::task::yield_now().await;
        }
        Err(ApiError::Aborted(format!(
            "tournament {id} is changing too fast; retry"
        )))
    }

    /// A page of tournaments, newest first, after the cursor `(created_at_ms, id)`.
    pub async fn list(
        &self,
        state: Option<i16>,
        game_type: Option<i16>,
        after: Option<(i64, String)>,
        limit: i64,
    ) -> Result<Vec<Versioned>, ApiError> {
        let (after_ms, after_id) = after.unwrap_or((i64::MAX, String::new()));
        let rows = sqlx::query(
            "SELECT version, doc FROM tournaments \
             WHERE ($1::smallint IS NULL OR state = $1) AND ($2::smallint IS NULL OR game_type = $2) \
               AND (created_at_ms, tournament_id) < ($3, $4) \
             ORDER BY created_at_ms DESC, tournament_id DESC LIMIT $5",
        )
        .bind(state)
        .bind(game_type)
        .bind(after_ms)
        .bind(if after_id.is_empty() { "\u{10FFFF}".to_owned() } else { after_id })
        .bind(limit)
        .fetch_all(&self.pool)
        .await
        .map_err(db_error)?;
        rows.iter().map(decode).collect()
    }

    /// The tournaments the director still has work in.
    pub async fn needing_work(&self) -> Result<Vec<String>, ApiError> {
        sqlx::query_scalar(
            "SELECT tournament_id FROM tournaments WHERE needs_work ORDER BY tournament_id",
        )
        .fetch_all(&self.pool)
        .await
        .map_err(db_error)
    }

    /// The versions of `ids` (those that exist).
    pub async fn versions(&self, ids: &[String]) -> Result<Vec<(String, i64)>, ApiError> {
        sqlx::query_as(
            "SELECT tournament_id, version FROM tournaments WHERE tournament_id = ANY($1)",
        )
        .bind(ids)
        .fetch_all(&self.pool)
        .await
        .map_err(db_error)
    }
}
