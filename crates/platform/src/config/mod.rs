//! Configuration from environment variables, with defaults that run on a laptop
//! (PostgreSQL and Redis on 127.0.0.1, a development signing key).
//!
//! Every service reads the [`CommonConfig`] part; a service adds its own settings with
//! the same [`Env`] reader, so every variable is parsed once, at start, with an error
//! that names the variable and says what it expected.
//!
//! Two layers, pointing one way: [`env`] reads variables (and is all the rest of the
//! platform needs); this module composes every service's shared settings from it.

pub mod env;

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::time::Duration;

use gamehub_terms::games::{self, Game};

pub use env::{ConfigError, Env, Environment, Secret};

/// The signing key used when `GAMEHUB_JWT_SECRET` is not set. Fine on a laptop; a
/// configuration marked production refuses to start with it.
pub const DEVELOPMENT_JWT_SECRET: &str = "gamehub-development-key-do-not-use-in-production";

/// How logs are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogFormat {
    /// Human-readable lines.
    Text,
    /// One JSON object per line, with the trace id of the request.
    Json,
}

/// Limits and timeouts every gRPC server applies (see [`crate::server`]).
#[derive(Debug, Clone)]
pub struct ServerLimits {
    /// A unary call taking longer is cancelled with `DEADLINE_EXCEEDED`.
    pub request_timeout: Duration,
    /// Requests handled at once by one server; the rest wait (bounded by the timeout).
    pub concurrency_limit: usize,
    /// The largest request message accepted (bytes); larger ones get `OUT_OF_RANGE`.
    pub max_message_bytes: usize,
    /// After SIGTERM, how long in-flight calls and streams may take to finish.
    pub shutdown_grace: Duration,
    /// After SIGTERM, how long to report NOT_SERVING before refusing new calls, so load
    /// balancers stop sending traffic first.
    pub shutdown_drain_delay: Duration,
    /// Requests per second each player may make to player-facing RPCs (0 = unlimited).
    pub player_rate_per_second: u32,
    /// Burst of requests a player may make at once above the steady rate.
    pub player_rate_burst: u32,
}

impl Default for ServerLimits {
    fn default() -> Self {
        Self {
            request_timeout: Duration::from_secs(10),
            concurrency_limit: 2048,
            max_message_bytes: 1024 * 1024,
            shutdown_grace: Duration::from_secs(10),
            shutdown_drain_delay: Duration::ZERO,
            player_rate_per_second: 50,
            player_rate_burst: 100,
        }
    }
}

/// Settings every gamehub service shares.
#[derive(Debug, Clone)]
pub struct CommonConfig {
    /// `GAMEHUB_ENV`: `development` (default) or `production`.
    pub environment: Environment,
    /// `DATABASE_URL`: the ledger's PostgreSQL.
    pub database_url: Secret,
    /// `REDIS_URL` and `GAMEHUB_REDIS_CLUSTER`: where live table state, tickets and
    /// outboxes are. One URL for a single Redis; with `GAMEHUB_REDIS_CLUSTER=true`, one
    /// or more seed nodes of a Redis Cluster separated by commas.
    pub redis: crate::redis_conn::RedisTarget,
    /// `GAMEHUB_REDIS_WAIT_REPLICAS` and `GAMEHUB_REDIS_WAIT_TIMEOUT_MS`: replicas that
    /// must acknowledge each table step before it is answered (default 0: none).
    pub redis_wait: crate::redis_conn::ReplicaWait,
    /// `GAMEHUB_REDIS_PREFIX`: the first part of every Redis key (`gh`), so several
    /// deployments or test runs can share one Redis without seeing each other.
    pub redis_prefix: String,
    /// The keys that verify bearer tokens, and sign this process's own when it holds a
    /// private key (`GAMEHUB_JWKS`, `GAMEHUB_JWKS_REFRESH_MS`, `GAMEHUB_TOKEN_KEY`, and in
    /// development `GAMEHUB_JWT_SECRET`; see [`crate::auth::Keys`]). Read at start: a bad
    /// file stops the process with a message naming it.
    pub keys: crate::auth::Keys,
    /// How [`CommonConfig::keys`] were made, so a service can take its own private key
    /// from a directory of keys ([`CommonConfig::sign_as`]).
    pub tokens: crate::auth::TokenSettings,
    /// `GAMEHUB_TIMEZONE`: the zone whose midnight ends a day for the daily caps.
    pub timezone: chrono_tz::Tz,
    /// `GAMEHUB_LOG_FORMAT`: `text` (default) or `json`.
    pub log_format: LogFormat,
    /// `OTEL_EXPORTER_OTLP_ENDPOINT`: where traces go over OTLP/gRPC; unset = no export.
    pub otlp_endpoint: Option<String>,
    /// `GAMEHUB_METRICS_ADDR`: where Prometheus metrics are served; unset = not served.
    pub metrics_addr: Option<SocketAddr>,
    /// Server limits (`GAMEHUB_REQUEST_TIMEOUT_MS`, `GAMEHUB_CONCURRENCY_LIMIT`,
    /// `GAMEHUB_MAX_MESSAGE_BYTES`, `GAMEHUB_SHUTDOWN_GRACE_MS`,
    /// `GAMEHUB_SHUTDOWN_DRAIN_DELAY_MS`, `GAMEHUB_PLAYER_RATE_PER_SECOND`,
    /// `GAMEHUB_PLAYER_RATE_BURST`).
    pub limits: ServerLimits,
    /// `GAMEHUB_LEDGER_URL`: how the game services and matchmaking reach the ledger.
    pub ledger_url: String,
    /// `GAMEHUB_<GAME>_URL`, one per game of the registry (`GAMEHUB_GOMOKU_URL`, …): how
    /// matchmaking reaches each game's service.
    pub game_urls: GameUrls,
    /// `GAMEHUB_MATCHMAKING_URL`: where clients find matchmaking (and the tournament
    /// service its rooms).
    pub matchmaking_url: String,
    /// `GAMEHUB_TOURNAMENTS_URL`: where clients find the tournament service.
    pub tournaments_url: String,
    /// `GAMEHUB_CORS_ORIGINS`: the web pages that may call from a browser (gRPC-Web).
    pub browser_origins: crate::grpc_web::AllowedOrigins,
    /// `GAMEHUB_TLS_*`: what the listeners serve, how calls to `https://` URLs verify
    /// servers and present client certificates, and whether a proxy in front
    /// terminates TLS (see [`crate::tls`]).
    pub tls: crate::tls::TlsConfig,
    /// Where every stored deadline's "now" comes from: the system clock (no variable
    /// sets it); tests put their own manual clock here (see [`crate::clock`]).
    pub clock: crate::clock::Clock,
}

/// Default ports of the shared services (each game's is in its registry entry,
/// [`gamehub_terms::games::Service::port`]).
pub mod ports {
    /// Matchmaking.
    pub const MATCHMAKING: u16 = 50051;
    /// Ledger.
    pub const LEDGER: u16 = 50054;
    /// Tournaments.
    pub const TOURNAMENTS: u16 = 50055;
}

/// The URL of every game's service, by registry key: `GAMEHUB_<GAME>_URL` for each game
/// ([`gamehub_terms::games::Service::url_var`]), by default its port on 127.0.0.1.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameUrls(BTreeMap<&'static str, String>);

impl GameUrls {
    /// Reads every game's variable.
    pub fn from_env(env: &Env) -> Self {
        Self(
            games::GAMES
                .iter()
                .map(|game| {
                    let default = local_url(game.service.port);
                    (game.key, env.string(game.service.url_var, &default))
                })
                .collect(),
        )
    }

    /// Where `game`'s service is.
    pub fn get(&self, game: &Game) -> &str {
        // Every game of the registry has its URL (read in `from_env`).
        self.0.get(game.key).map_or("", String::as_str)
    }

    /// Points `game` at another URL (tests, the all-in-one binary).
    pub fn set(&mut self, game: &'static Game, url: impl Into<String>) {
        self.0.insert(game.key, url.into());
    }
}

/// The token settings: in production public keys only (`GAMEHUB_JWKS` required, the
/// shared HMAC key never used); in development the HMAC key too.
fn token_settings(
    env: &Env,
    environment: Environment,
) -> Result<crate::auth::TokenSettings, ConfigError> {
    let path = |name: &str| {
        env.raw(name)
            .filter(|v| !v.trim().is_empty())
            .map(std::path::PathBuf::from)
    };
    let jwks_file = path("GAMEHUB_JWKS");
    let hmac = match environment {
        Environment::Development => Some(Secret::new(
            env.string("GAMEHUB_JWT_SECRET", DEVELOPMENT_JWT_SECRET),
        )),
        Environment::Production => {
            if jwks_file.is_none() {
                return Err(ConfigError {
                    name: "GAMEHUB_JWKS".into(),
                    value: String::new(),
                    reason: "production verifies tokens with public keys only: set it to a JWKS \
                             file (`gamehub keys generate` makes one); the shared HMAC key \
                             GAMEHUB_JWT_SECRET is for development and is not used"
                        .into(),
                });
            }
            None
        }
    };
    Ok(crate::auth::TokenSettings {
        hmac,
        jwks_file,
        jwks_refresh: env.millis("GAMEHUB_JWKS_REFRESH_MS", Duration::from_secs(10))?,
        signing_key: path("GAMEHUB_TOKEN_KEY"),
    })
}

/// The keys of `settings`; a directory of private keys gives `identity`'s own (none
/// when no identity is known yet).
fn keys_from(
    settings: &crate::auth::TokenSettings,
    identity: Option<&str>,
) -> Result<crate::auth::Keys, ConfigError> {
    let mut settings = settings.clone();
    if let Some(dir) = settings.signing_key.clone().filter(|path| path.is_dir()) {
        settings.signing_key = identity.map(|name| dir.join(format!("{name}.pem")));
    }
    crate::auth::Keys::from_settings(&settings).map_err(|reason| ConfigError {
        name: "GAMEHUB_JWKS / GAMEHUB_TOKEN_KEY".into(),
        value: "[file]".into(),
        reason,
    })
}

/// A service on this machine.
fn local_url(port: u16) -> String {
    format!("http://127.0.0.1:{port}")
}

impl CommonConfig {
    /// Reads the shared settings.
    pub fn from_env(env: &Env) -> Result<Self, ConfigError> {
        let environment = match env.string("GAMEHUB_ENV", "development").as_str() {
            "development" | "dev" => Environment::Development,
            "production" | "prod" => Environment::Production,
            other => {
                return Err(ConfigError {
                    name: "GAMEHUB_ENV".into(),
                    value: other.into(),
                    reason: "expected development or production".into(),
                });
            }
        };
        let tokens = token_settings(env, environment)?;
        let keys = keys_from(&tokens, None)?;
        let tz_name = env.string("GAMEHUB_TIMEZONE", "Asia/Shanghai");
        let timezone = tz_name.parse().map_err(|_| ConfigError {
            name: "GAMEHUB_TIMEZONE".into(),
            value: tz_name.clone(),
            reason: "expected an IANA time zone such as Asia/Shanghai or UTC".into(),
        })?;
        let log_format = match env.string("GAMEHUB_LOG_FORMAT", "text").as_str() {
            "text" => LogFormat::Text,
            "json" => LogFormat::Json,
            other => {
                return Err(ConfigError {
                    name: "GAMEHUB_LOG_FORMAT".into(),
                    value: other.into(),
                    reason: "expected text or json".into(),
                });
            }
        };
        let metrics_addr = match env.raw("GAMEHUB_METRICS_ADDR") {
            None => None,
            Some(_) => Some(env.addr("GAMEHUB_METRICS_ADDR", "127.0.0.1:9090")?),
        };
        let defaults = ServerLimits::default();
        let limits = ServerLimits {
            request_timeout: env.millis("GAMEHUB_REQUEST_TIMEOUT_MS", defaults.request_timeout)?,
            concurrency_limit: env.parse(
                "GAMEHUB_CONCURRENCY_LIMIT",
                defaults.concurrency_limit,
                "a positive whole number",
            )?,
            max_message_bytes: env.parse(
                "GAMEHUB_MAX_MESSAGE_BYTES",
                defaults.max_message_bytes,
                "a number of bytes",
            )?,
            shutdown_grace: env.millis("GAMEHUB_SHUTDOWN_GRACE_MS", defaults.shutdown_grace)?,
            shutdown_drain_delay: env.millis(
                "GAMEHUB_SHUTDOWN_DRAIN_DELAY_MS",
                defaults.shutdown_drain_delay,
            )?,
            player_rate_per_second: env.parse(
                "GAMEHUB_PLAYER_RATE_PER_SECOND",
                defaults.player_rate_per_second,
                "requests per second (0 = unlimited)",
            )?,
            player_rate_burst: env.parse(
                "GAMEHUB_PLAYER_RATE_BURST",
                defaults.player_rate_burst,
                "a number of requests",
            )?,
        };
        if limits.concurrency_limit == 0 {
            return Err(ConfigError {
                name: "GAMEHUB_CONCURRENCY_LIMIT".into(),
                value: "0".into(),
                reason: "expected a positive whole number".into(),
            });
        }
        let browser_origins = crate::grpc_web::AllowedOrigins::from_env(env, environment)?;
        let redis = crate::redis_conn::RedisTarget::new(
            &env.string("REDIS_URL", "redis://127.0.0.1:6379"),
            env.flag("GAMEHUB_REDIS_CLUSTER", false)?,
        )
        .map_err(|reason| ConfigError {
            name: "REDIS_URL".into(),
            value: "[redacted]".into(),
            reason,
        })?;
        Ok(Self {
            environment,
            database_url: Secret::new(
                env.string("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/gamehub"),
            ),
            redis,
            redis_wait: crate::redis_conn::ReplicaWait {
                replicas: env.parse("GAMEHUB_REDIS_WAIT_REPLICAS", 0, "a number of replicas")?,
                timeout: env.millis("GAMEHUB_REDIS_WAIT_TIMEOUT_MS", Duration::from_secs(1))?,
            },
            redis_prefix: env.string("GAMEHUB_REDIS_PREFIX", "gh"),
            keys,
            tokens,
            timezone,
            log_format,
            otlp_endpoint: env.raw("OTEL_EXPORTER_OTLP_ENDPOINT"),
            metrics_addr,
            limits,
            ledger_url: env.string("GAMEHUB_LEDGER_URL", &local_url(ports::LEDGER)),
            game_urls: GameUrls::from_env(env),
            matchmaking_url: env.string("GAMEHUB_MATCHMAKING_URL", &local_url(ports::MATCHMAKING)),
            tournaments_url: env.string("GAMEHUB_TOURNAMENTS_URL", &local_url(ports::TOURNAMENTS)),
            browser_origins,
            tls: crate::tls::TlsConfig::from_env(env)?,
            clock: crate::clock::Clock::system(),
        })
    }

    /// Makes this the configuration of the service named `identity`: when
    /// `GAMEHUB_TOKEN_KEY` names a directory of keys (as `gamehub keys generate` writes
    /// them), its private key is `<directory>/<identity>.pem`. Refuses a service that
    /// could not sign its own service tokens (see
    /// [`crate::auth::Keys::check_signs_as`]).
    pub fn sign_as(&mut self, identity: &str) -> Result<(), ConfigError> {
        if self
            .tokens
            .signing_key
            .as_deref()
            .is_some_and(std::path::Path::is_dir)
        {
            self.keys = keys_from(&self.tokens, Some(identity))?;
        }
        self.keys
            .check_signs_as(identity, crate::auth::Role::Service)
            .map_err(|reason| ConfigError {
                name: "GAMEHUB_TOKEN_KEY".into(),
                value: "[file]".into(),
                reason,
            })
    }

    /// A configuration for tests: laptop defaults, no environment read.
    pub fn for_tests() -> Self {
        // The empty environment always parses: every value takes its default.
        Self::from_env(&Env::from_pairs(Vec::<(String, String)>::new()))
            .unwrap_or_else(|e| panic!("default configuration must parse: {e}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_run_on_a_laptop() {
        let config = CommonConfig::for_tests();
        assert_eq!(config.environment, Environment::Development);
        assert!(config.database_url.expose().contains("127.0.0.1:5432"));
        assert_eq!(config.redis.first_url(), "redis://127.0.0.1:6379");
        assert!(!config.redis.is_cluster());
        assert_eq!(config.timezone, chrono_tz::Asia::Shanghai);
        assert_eq!(config.otlp_endpoint, None);
        for game in games::GAMES {
            assert_eq!(
                config.game_urls.get(game),
                format!("http://127.0.0.1:{}", game.service.port)
            );
        }
    }

    #[test]
    fn each_game_is_found_at_its_own_variable() {
        let env = Env::from_pairs([(games::GOMOKU.service.url_var, "http://referee:1")]);
        let config = CommonConfig::from_env(&env).unwrap();
        assert_eq!(config.game_urls.get(&games::GOMOKU), "http://referee:1");
        assert_eq!(
            env.raw("GAMEHUB_GOMOKU_URL").as_deref(),
            Some("http://referee:1")
        );
        for game in games::GAMES.into_iter().filter(|g| **g != games::GOMOKU) {
            assert!(config.game_urls.get(game).starts_with("http://127.0.0.1:"));
        }
    }

    #[test]
    fn secrets_never_print() {
        let config = CommonConfig::for_tests();
        let printed = format!("{config:?}");
        assert!(!printed.contains(DEVELOPMENT_JWT_SECRET));
        assert!(printed.contains("[redacted]"));
    }

    #[test]
    fn production_verifies_with_public_keys_only() {
        let env = Env::from_pairs([("GAMEHUB_ENV", "production")]);
        let err = CommonConfig::from_env(&env).unwrap_err();
        assert_eq!(err.name, "GAMEHUB_JWKS");
        let dir = std::env::temp_dir().join(format!("gamehub-config-{}", uuid::Uuid::new_v4()));
        std::fs::create_dir_all(&dir).unwrap();
        let jwks = dir.join("jwks.json");
        let key = crate::auth::jwks::generate_key(&crate::auth::jwks::Scope::Issuer).unwrap();
        std::fs::write(
            &jwks,
            serde_json::json!({ "keys": [key.public_jwk] }).to_string(),
        )
        .unwrap();
        let env = Env::from_pairs([
            ("GAMEHUB_ENV", "production"),
            ("GAMEHUB_JWKS", jwks.to_str().unwrap()),
            (
                "GAMEHUB_JWT_SECRET",
                "a-long-shared-secret-that-is-ignored-here",
            ),
        ]);
        let config = CommonConfig::from_env(&env).unwrap();
        assert!(!config.keys.accepts_hmac(), "no HS256 in production");
        assert!(!config.keys.can_mint(), "no private key was given");
        let env = Env::from_pairs([
            ("GAMEHUB_ENV", "production"),
            ("GAMEHUB_JWKS", dir.join("missing.json").to_str().unwrap()),
        ]);
        let err = CommonConfig::from_env(&env).unwrap_err();
        assert!(err.to_string().contains("missing.json"), "{err}");
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn bad_values_name_the_variable() {
        let env = Env::from_pairs([("GAMEHUB_REQUEST_TIMEOUT_MS", "soon")]);
        let err = CommonConfig::from_env(&env).unwrap_err();
        assert_eq!(err.name, "GAMEHUB_REQUEST_TIMEOUT_MS");
        assert!(err.to_string().contains("milliseconds"));
        let env = Env::from_pairs([("GAMEHUB_TIMEZONE", "Mars/Olympus")]);
        assert_eq!(
            CommonConfig::from_env(&env).unwrap_err().name,
            "GAMEHUB_TIMEZONE"
        );
    }
}
