//! Where the services are (their five URLs, and the command-line flags that choose them),
//! and clients that call them with one bearer token.

use std::time::Duration;

use clap::Args;
use gamehub_platform::client::{ServiceChannel, TokenSource, service_channel};
use gamehub_platform::config::{CommonConfig, ports};
use gamehub_proto::doudizhu::doudizhu_service_client::DoudizhuServiceClient;
use gamehub_proto::gomoku::gomoku_service_client::GomokuServiceClient;
use gamehub_proto::ledger::ledger_service_client::LedgerServiceClient;
use gamehub_proto::matchmaking::matchmaking_service_client::MatchmakingServiceClient;
use gamehub_proto::tournament::tournament_service_client::TournamentServiceClient;
use gamehub_terms::games::{DOUDIZHU, GOMOKU};

/// The URL given for a service a setup does not start (a load generator's, a test's
/// rig of some services only): calls to it fail UNAVAILABLE.
pub const NOT_STARTED: &str = "http://127.0.0.1:9";

/// The five services' URLs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Endpoints {
    /// Matchmaking, e.g. `http://127.0.0.1:50051`.
    pub matchmaking: String,
    /// The Gomoku referee.
    pub gomoku: String,
    /// The Dou Dizhu dealer.
    pub doudizhu: String,
    /// The ledger.
    pub ledger: String,
    /// The tournament service.
    pub tournaments: String,
}

impl Endpoints {
    /// The default ports on `host` (what `gamehub serve` uses).
    pub fn on_host(host: &str) -> Self {
        let url = |port: u16| format!("http://{host}:{port}");
        Self {
            matchmaking: url(ports::MATCHMAKING),
            gomoku: url(GOMOKU.service.port),
            doudizhu: url(DOUDIZHU.service.port),
            ledger: url(ports::LEDGER),
            tournaments: url(ports::TOURNAMENTS),
        }
    }

    /// The URLs configured by `GAMEHUB_*_URL` (laptop defaults).
    pub fn from_config(config: &CommonConfig) -> Self {
        Self {
            matchmaking: config.matchmaking_url.clone(),
            gomoku: config.game_urls.get(&GOMOKU).to_owned(),
            doudizhu: config.game_urls.get(&DOUDIZHU).to_owned(),
            ledger: config.ledger_url.clone(),
            tournaments: config.tournaments_url.clone(),
        }
    }
}

/// Where the platform's services are (the player's and the operator's commands).
#[derive(Args, Debug, Clone, Default)]
pub struct Services {
    /// All five services on one host at their default ports (50051-50055), e.g. a
    /// machine running `gamehub serve`. The URL flags below override single services.
    #[arg(long, global = true)]
    pub host: Option<String>,
    /// Matchmaking's URL [default: http://127.0.0.1:50051].
    #[arg(
        long,
        global = true,
        env = "GAMEHUB_MATCHMAKING_URL",
        hide_env_values = true
    )]
    pub matchmaking_url: Option<String>,
    /// The Gomoku referee's URL [default: http://127.0.0.1:50052].
    #[arg(
        long,
        global = true,
        env = "GAMEHUB_GOMOKU_URL",
        hide_env_values = true
    )]
    pub gomoku_url: Option<String>,
    /// The Dou Dizhu dealer's URL [default: http://127.0.0.1:50053].
    #[arg(
        long,
        global = true,
        env = "GAMEHUB_DOUDIZHU_URL",
        hide_env_values = true
    )]
    pub doudizhu_url: Option<String>,
    /// The ledger's URL [default: http://127.0.0.1:50054].
    #[arg(
        long,
        global = true,
        env = "GAMEHUB_LEDGER_URL",
        hide_env_values = true
    )]
    pub ledger_url: Option<String>,
    /// The tournament service's URL [default: http://127.0.0.1:50055].
    #[arg(
        long,
        global = true,
        env = "GAMEHUB_TOURNAMENTS_URL",
        hide_env_values = true
    )]
    pub tournaments_url: Option<String>,
}

impl Services {
    /// The services' URLs: `--host`, else the configured ones, then each URL flag.
    pub fn endpoints(&self, config: &CommonConfig) -> Endpoints {
        let mut endpoints = match &self.host {
            Some(host) => Endpoints::on_host(host),
            None => Endpoints::from_config(config),
        };
        for (flag, slot) in [
            (&self.matchmaking_url, &mut endpoints.matchmaking),
            (&self.gomoku_url, &mut endpoints.gomoku),
            (&self.doudizhu_url, &mut endpoints.doudizhu),
            (&self.ledger_url, &mut endpoints.ledger),
            (&self.tournaments_url, &mut endpoints.tournaments),
        ] {
            if let Some(url) = flag.as_ref().filter(|u| !u.trim().is_empty()) {
                slot.clone_from(url);
            }
        }
        endpoints
    }
}

/// Clients of every service, all sending the same token.
#[derive(Clone, Debug)]
pub struct Clients {
    /// Matchmaking.
    pub matchmaking: MatchmakingServiceClient<ServiceChannel>,
    /// The Gomoku referee.
    pub gomoku: GomokuServiceClient<ServiceChannel>,
    /// The Dou Dizhu dealer.
    pub doudizhu: DoudizhuServiceClient<ServiceChannel>,
    /// The ledger.
    pub ledger: LedgerServiceClient<ServiceChannel>,
    /// The tournament service.
    pub tournaments: TournamentServiceClient<ServiceChannel>,
}

/// Calls (not streams) taking longer than this fail with DEADLINE_EXCEEDED.
const CALL_TIMEOUT: Duration = Duration::from_secs(15);

impl Clients {
    /// Clients of `endpoints` authenticating with `token`. Channels connect lazily.
    pub fn new(endpoints: &Endpoints, token: TokenSource) -> anyhow::Result<Self> {
        let channel = |url: &str| service_channel(url, token.clone(), CALL_TIMEOUT);
        Ok(Self {
            matchmaking: MatchmakingServiceClient::new(channel(&endpoints.matchmaking)?),
            gomoku: GomokuServiceClient::new(channel(&endpoints.gomoku)?),
            doudizhu: DoudizhuServiceClient::new(channel(&endpoints.doudizhu)?),
            ledger: LedgerServiceClient::new(channel(&endpoints.ledger)?),
            tournaments: TournamentServiceClient::new(channel(&endpoints.tournaments)?),
        })
    }
}

/// A fresh request id for a mutating call.
pub fn request_id() -> String {
    uuid::Uuid::new_v4().simple().to_string()
}
