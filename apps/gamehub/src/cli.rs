//! The `gamehub` command line: each command and the module that does it.

use std::time::Duration;

use clap::{Parser, Subcommand};
use gamehub_platform::auth::Role;
use gamehub_platform::config::{CommonConfig, Env};
use gamehub_platform::server::{Shutdown, termination_signal};

use crate::serve::{self, Ports};
use gamehub_drive::api::Endpoints;

/// `gamehub`: run the whole platform, try it, and talk to it.
#[derive(Parser, Debug)]
#[command(
    name = "gamehub",
    version,
    about = "gamehub: Gomoku and Dou Dizhu as authoritative server-side games"
)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Run all four services in one process, each on its own port (50051 matchmaking,
    /// 50052 gomoku, 50053 doudizhu, 50054 ledger; GAMEHUB_*_ADDR to change), against
    /// PostgreSQL (DATABASE_URL) and Redis (REDIS_URL).
    Serve,
    /// Play one Gomoku game and one Dou Dizhu deal with built-in bots, from
    /// matchmaking to settlement, and show the ledger afterwards.
    Demo {
        /// Matchmaking's address; the other services are found at their configured
        /// URLs (GAMEHUB_*_URL), by default on this host.
        #[arg(
            long,
            env = "GAMEHUB_MATCHMAKING_URL",
            default_value = "http://127.0.0.1:50051"
        )]
        addr: String,
        /// Start a platform in this process on free ports instead of using a running one.
        #[arg(long)]
        in_process: bool,
        /// The Gomoku room.
        #[arg(long, default_value = "gomoku-renju")]
        gomoku_room: String,
        /// The Dou Dizhu room.
        #[arg(long, default_value = "doudizhu-classic")]
        doudizhu_room: String,
        /// Milliseconds each bot waits before acting, so you can follow.
        #[arg(long, default_value_t = 150)]
        think_ms: u64,
    },
    /// Mint a development bearer token (refused when GAMEHUB_ENV=production).
    Token {
        /// The token's subject: a player id, a service or an operator name.
        subject: String,
        /// player, service or operator.
        #[arg(long, default_value = "player")]
        role: Role,
        /// Validity in seconds.
        #[arg(long, default_value_t = 24 * 3600)]
        ttl_secs: u64,
    },
    /// Keep N bots playing in a room through the public API, so a lone player always
    /// finds a game (Ctrl-C stops them).
    Bots {
        /// How many bots.
        #[arg(long, default_value_t = 2)]
        count: usize,
        /// The room, e.g. gomoku-renju or doudizhu-classic.
        #[arg(long)]
        room: String,
        /// Milliseconds a bot waits before each action.
        #[arg(long, default_value_t = 500)]
        think_ms: u64,
    },
    /// Exit 0 if the server at ADDR reports SERVING on the standard gRPC health protocol.
    Health {
        /// The server.
        #[arg(long, default_value = "http://127.0.0.1:50051")]
        addr: String,
    },
    /// The operator's desk: grant silver, professional dans, look up a player or a
    /// table, close a stuck table, list and redeliver dead letters (an operator token:
    /// GAMEHUB_OPERATOR_TOKEN, or minted from the development key on a development
    /// platform).
    Admin(gamehub_admin::AdminArgs),
    /// The terminal client: play, watch, wallet, record.
    #[command(flatten)]
    Client(gamehub_client::ClientCommand),
}

/// Runs the command `cli` names.
pub async fn run(cli: Cli) -> anyhow::Result<std::process::ExitCode> {
    let env = Env::process();
    let config = CommonConfig::from_env(&env)?;
    match cli.command {
        Command::Serve => serve::run(&env, &config).await?,
        Command::Demo {
            addr,
            in_process,
            gomoku_room,
            doudizhu_room,
            think_ms,
        } => {
            let options = crate::demo::DemoOptions {
                gomoku_room,
                doudizhu_room,
                think: Duration::from_millis(think_ms),
                verbose: true,
            };
            if in_process {
                let shutdown = Shutdown::new();
                let platform = serve::start_all(&env, Ports::Ephemeral, shutdown).await?;
                let result = crate::demo::run(&platform.endpoints(), &config, &options).await;
                platform.stop().await;
                result?;
            } else {
                let mut endpoints = Endpoints::from_config(&config);
                endpoints.matchmaking = addr;
                crate::demo::run(&endpoints, &config, &options).await?;
            }
        }
        Command::Token {
            subject,
            role,
            ttl_secs,
        } => {
            let token =
                gamehub_drive::token::mint(&config, &subject, role, Duration::from_secs(ttl_secs))?;
            println!("{token}");
        }
        Command::Bots {
            count,
            room,
            think_ms,
        } => {
            let _telemetry = gamehub_platform::telemetry::init("gamehub-bots", &config)?;
            let shutdown = Shutdown::new();
            let stats = std::sync::Arc::new(crate::bots::BotStats::default());
            let options = crate::bots::BotOptions {
                room: room.clone(),
                count,
                think: Duration::from_millis(think_ms),
                name_prefix: "bot-".into(),
            };
            let task = tokio::spawn(crate::bots::run(
                Endpoints::from_config(&config),
                config.clone(),
                options,
                stats.clone(),
                shutdown.listener(),
            ));
            println!("{count} bots playing in {room}; Ctrl-C to stop");
            termination_signal().await;
            shutdown.trigger();
            let _ = task.await;
            println!(
                "bots finished {} games ({} errors)",
                stats.games.load(std::sync::atomic::Ordering::Relaxed),
                stats.errors.load(std::sync::atomic::Ordering::Relaxed)
            );
        }
        Command::Client(command) => return gamehub_client::run(command, &config).await,
        Command::Admin(args) => return gamehub_admin::run(args, &config).await,
        Command::Health { addr } => {
            let serving = gamehub_platform::client::check_health(&addr, "")
                .await
                .unwrap_or(false);
            if !serving {
                eprintln!("{addr} is not SERVING");
                return Ok(std::process::ExitCode::FAILURE);
            }
            println!("{addr} is SERVING");
        }
    }
    Ok(std::process::ExitCode::SUCCESS)
}
