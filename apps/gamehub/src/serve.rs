//! `gamehub serve`: the ledger, the Gomoku referee, the Dou Dizhu dealer and
//! matchmaking in one process, each on its own port (the same ports as the distributed
//! deployment, so clients cannot tell the difference), against the local PostgreSQL
//! and Redis. The ledger creates and migrates its database at start. Beside them the
//! browser client is served on `GAMEHUB_WEB_ADDR` ([`crate::web`]). It runs as every
//! service binary does (`gamehub_platform::runner`): telemetry, metrics, then serving
//! until SIGTERM or Ctrl-C.

use std::net::SocketAddr;
use std::path::Path;

use gamehub_platform::config::{CommonConfig, ConfigError, Env};
use gamehub_platform::runner::serve_until_terminated;
use gamehub_platform::server::{Shutdown, Started};
use gamehub_terms::games::{DOUDIZHU, GOMOKU};

use gamehub_drive::api::Endpoints;

/// Where the services listen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ports {
    /// Each service's configured address (`GAMEHUB_*_ADDR`, defaults 50051–50054).
    Configured,
    /// Free ports on 127.0.0.1 (tests, `demo --in-process`).
    Ephemeral,
}

/// The four running services.
#[derive(Debug)]
pub struct Platform {
    /// The ledger.
    pub ledger: Started,
    /// The Gomoku referee.
    pub gomoku: Started,
    /// The Dou Dizhu dealer.
    pub doudizhu: Started,
    /// Matchmaking.
    pub matchmaking: Started,
    /// Tournaments.
    pub tournaments: Started,
    /// The browser client's web server.
    pub web: Started,
    /// Stops them all.
    pub shutdown: Shutdown,
    /// Whether they serve TLS (`GAMEHUB_TLS_CERT`; `gamehub serve --tls`): their URLs are
    /// `https://`.
    pub tls: bool,
}

impl Platform {
    /// How clients reach the services.
    pub fn endpoints(&self) -> Endpoints {
        let url = |addr: SocketAddr| local_url(addr, self.tls);
        Endpoints {
            matchmaking: url(self.matchmaking.addr),
            gomoku: url(self.gomoku.addr),
            doudizhu: url(self.doudizhu.addr),
            ledger: url(self.ledger.addr),
            tournaments: url(self.tournaments.addr),
        }
    }

    /// Triggers shutdown and waits for every service to stop.
    pub async fn stop(self) {
        self.shutdown.trigger();
        for started in [
            self.web,
            self.tournaments,
            self.matchmaking,
            self.gomoku,
            self.doudizhu,
            self.ledger,
        ] {
            let _ = started.task.await;
        }
    }

    /// The five and the web server as one started service: it listens where
    /// matchmaking does and has stopped when all have (with the first error, if any).
    fn into_started(self) -> Started {
        let addr = self.matchmaking.addr;
        let tasks = [
            self.web,
            self.tournaments,
            self.matchmaking,
            self.gomoku,
            self.doudizhu,
            self.ledger,
        ];
        let task = tokio::spawn(async move {
            let mut result = Ok(());
            for started in tasks {
                let stopped = started
                    .task
                    .await
                    .map_err(anyhow::Error::from)
                    .and_then(|r| r);
                if let Err(e) = stopped
                    && result.is_ok()
                {
                    result = Err(e.context(format!("{} stopped", started.name)));
                }
            }
            result
        });
        Started {
            name: "gamehub",
            addr,
            task,
        }
    }
}

/// `gamehub serve`: starts the five services on their configured ports, prints where
/// they listen, and serves until terminated. `tls_ca` is the CA to tell the user about
/// when `gamehub serve --tls` made the certificates.
pub async fn run(env: &Env, config: &CommonConfig, tls_ca: Option<&Path>) -> anyhow::Result<()> {
    serve_until_terminated("gamehub", config, |shutdown| async move {
        let platform = start_all(env, Ports::Configured, shutdown).await?;
        println!(
            "{}",
            banner(
                &platform,
                tls_ca,
                &redact_url(config.database_url.expose()),
                &config
                    .redis
                    .urls()
                    .map(redact_url)
                    .collect::<Vec<_>>()
                    .join(","),
            )
        );
        Ok(platform.into_started())
    })
    .await
}

fn ephemeral() -> SocketAddr {
    SocketAddr::from(([127, 0, 0, 1], 0))
}

/// Starts the five services in dependency order: the ledger, the game services (which
/// settle at the ledger), then matchmaking (which calls all three), then the tournament
/// service (which calls all four), then the web client
/// that calls them all from a browser. Each later one is pointed at the addresses the
/// earlier ones actually bound.
pub async fn start_all(env: &Env, ports: Ports, shutdown: Shutdown) -> anyhow::Result<Platform> {
    let config_error = |e: ConfigError| anyhow::anyhow!(e);

    let mut ledger_config = gamehub_ledger::LedgerConfig::from_env(env).map_err(config_error)?;
    if ports == Ports::Ephemeral {
        ledger_config.listen = ephemeral();
    }
    let tls = ledger_config.common.tls.server.is_some();
    let local_url = |addr| local_url(addr, tls);
    let ledger = gamehub_ledger::start(ledger_config, shutdown.clone()).await?;
    let ledger_url = local_url(ledger.addr);

    let mut gomoku_config =
        gamehub_gomoku_referee::RefereeConfig::from_env(env).map_err(config_error)?;
    gomoku_config.common.ledger_url = ledger_url.clone();
    if ports == Ports::Ephemeral {
        gomoku_config.listen = ephemeral();
    }
    let gomoku = gamehub_gomoku_referee::start(gomoku_config, shutdown.clone()).await?;

    let mut doudizhu_config =
        gamehub_doudizhu_dealer::DealerConfig::from_env(env).map_err(config_error)?;
    doudizhu_config.common.ledger_url = ledger_url.clone();
    if ports == Ports::Ephemeral {
        doudizhu_config.listen = ephemeral();
    }
    let doudizhu = gamehub_doudizhu_dealer::start(doudizhu_config, shutdown.clone()).await?;

    let mut matchmaking_config =
        gamehub_matchmaking::MatchmakingConfig::from_env(env).map_err(config_error)?;
    matchmaking_config.common.ledger_url = ledger_url.clone();
    let game_urls = &mut matchmaking_config.common.game_urls;
    game_urls.set(&GOMOKU, local_url(gomoku.addr));
    game_urls.set(&DOUDIZHU, local_url(doudizhu.addr));
    let game_urls = game_urls.clone();
    if ports == Ports::Ephemeral {
        matchmaking_config.listen = ephemeral();
    }
    let matchmaking = gamehub_matchmaking::start(matchmaking_config, shutdown.clone()).await?;

    let mut tournaments_config =
        gamehub_tournaments::TournamentsConfig::from_env(env).map_err(config_error)?;
    tournaments_config.common.ledger_url = ledger_url;
    tournaments_config.common.matchmaking_url = local_url(matchmaking.addr);
    tournaments_config.common.game_urls = game_urls;
    if ports == Ports::Ephemeral {
        tournaments_config.listen = ephemeral();
    }
    let tournaments = gamehub_tournaments::start(tournaments_config, shutdown.clone()).await?;

    let mut web_config = crate::web::WebConfig::from_env(env).map_err(config_error)?;
    if ports == Ports::Ephemeral {
        web_config.listen = ephemeral();
    }
    let services = Endpoints {
        matchmaking: local_url(matchmaking.addr),
        gomoku: local_url(gomoku.addr),
        doudizhu: local_url(doudizhu.addr),
        ledger: local_url(ledger.addr),
        tournaments: local_url(tournaments.addr),
    };
    let common = CommonConfig::from_env(env).map_err(config_error)?;
    let web = crate::web::start(web_config, common, services, shutdown.clone()).await?;

    Ok(Platform {
        ledger,
        gomoku,
        doudizhu,
        matchmaking,
        tournaments,
        web,
        shutdown,
        tls,
    })
}

/// The URL another service in this process uses to reach `addr`: `https://` when the
/// services serve TLS (the certificate of `gamehub serve --tls` names 127.0.0.1).
fn local_url(addr: SocketAddr, tls: bool) -> String {
    let scheme = if tls { "https" } else { "http" };
    if addr.ip().is_unspecified() {
        format!("{scheme}://127.0.0.1:{}", addr.port())
    } else {
        format!("{scheme}://{addr}")
    }
}

/// What `gamehub serve` prints once everything listens; `tls_ca` is the CA of
/// `gamehub serve --tls`.
pub fn banner(platform: &Platform, tls_ca: Option<&Path>, database: &str, redis: &str) -> String {
    let e = platform.endpoints();
    let grpcurl = match (platform.tls, tls_ca) {
        (false, _) => "-plaintext".to_owned(),
        (true, Some(ca)) => format!("-cacert {}", ca.display()),
        (true, None) => "-cacert CA.pem".to_owned(),
    };
    let tls_note = match tls_ca {
        Some(ca) => format!(
            "\nTLS: every service and the web client serve certificates of the development CA\n\
             {} (trust it in your browser, or pass it as GAMEHUB_TLS_CA to clients).\n",
            ca.display()
        ),
        None => String::new(),
    };
    format!(
        "gamehub is serving: five services in one process, each on its own port\n\
         \n  web client       {} (open it in a browser: play Gomoku and Dou Dizhu)\
         \n  matchmaking      {}\n  gomoku referee   {}\n  doudizhu dealer  {}\n  ledger           {}\n  tournaments      {}\n\
         \n  postgres         {database} (created and migrated)\n  redis            {redis}\n\
         {tls_note}\nEvery service answers gRPC health and reflection (no token needed), e.g.\n\
         \n  grpcurl {grpcurl} {} list\n\
         \nNext: `gamehub demo` plays a Gomoku game and a Dou Dizhu deal with bots;\n\
         `gamehub token alice` mints a development token for a front-end.\n\
         Stop with Ctrl-C (or SIGTERM): services report NOT_SERVING, then drain.",
        web_url(platform.web.addr, platform.tls),
        e.matchmaking,
        e.gomoku,
        e.doudizhu,
        e.ledger,
        e.tournaments,
        e.matchmaking
            .trim_start_matches("http://")
            .trim_start_matches("https://"),
    )
}

/// The web client's address as a person types it in a browser.
fn web_url(addr: SocketAddr, tls: bool) -> String {
    let scheme = if tls { "https" } else { "http" };
    if addr.ip().is_unspecified() || addr.ip().is_loopback() {
        format!("{scheme}://localhost:{}/", addr.port())
    } else {
        format!("{scheme}://{addr}/")
    }
}

/// The database URL with any password hidden, for printing.
pub fn redact_url(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(scheme), Some(at)) if at > scheme => {
            let credentials = &url[scheme + 3..at];
            match credentials.split_once(':') {
                Some((user, _)) => format!("{}{user}:***{}", &url[..scheme + 3], &url[at..]),
                None => url.to_owned(),
            }
        }
        _ => url.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_are_hidden_when_printed() {
        assert_eq!(
            redact_url("postgres://gamehub:secret@db:5432/gamehub"),
            "postgres://gamehub:***@db:5432/gamehub"
        );
        assert_eq!(
            redact_url("postgres://postgres@127.0.0.1:5432/gamehub"),
            "postgres://postgres@127.0.0.1:5432/gamehub"
        );
    }
}
