//! The `gamehub` command: run the whole platform, try it, and talk to it.

use std::time::Duration;

use clap::{Parser, Subcommand};
use gamehub::api::Endpoints;
use gamehub::serve::{self, Ports};
use gamehub_platform::auth::Role;
use gamehub_platform::config::{CommonConfig, Env};
use gamehub_platform::server::{Shutdown, termination_signal};

/// mimalloc: the services allocate many small, short-lived buffers per call (protobuf,
/// JSON state, HTTP/2 frames), where it is markedly cheaper than the system allocator.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[derive(Parser, Debug)]
#[command(
    name = "gamehub",
    version,
    about = "gamehub: Gomoku and Dou Dizhu as authoritative server-side games"
)]
struct Cli {
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
    /// The published load test: players through the whole path (matchmaking → tables →
    /// settlement) at a chosen number of concurrent tables, with a progress line every
    /// second and a final report.
    Loadgen {
        /// Concurrent tables.
        #[arg(long, default_value_t = 100)]
        tables: usize,
        /// Seconds to measure (after a warm-up).
        #[arg(long, default_value_t = 30)]
        duration_secs: u64,
        /// Seconds of warm-up before measuring.
        #[arg(long, default_value_t = 5)]
        warm_up_secs: u64,
        /// Which games.
        #[arg(long, value_enum, default_value = "both")]
        games: gamehub::loadgen::Games,
        /// The Gomoku room.
        #[arg(long, default_value = "gomoku-free")]
        gomoku_room: String,
        /// The Dou Dizhu room.
        #[arg(long, default_value = "doudizhu-free")]
        doudizhu_room: String,
        /// Start the four service binaries (next to this one) as separate processes on
        /// free ports with a scratch database, report their CPU and memory, and measure
        /// redis-benchmark and pgbench baselines in the same run. Without it, load the
        /// platform at GAMEHUB_*_URL.
        #[arg(long)]
        spawn: bool,
        /// PostgreSQL server for --spawn (the scratch database is created there).
        #[arg(long, default_value = "postgres://postgres@127.0.0.1:5432")]
        postgres: String,
        /// Also write the report as JSON to this file.
        #[arg(long)]
        json: Option<std::path::PathBuf>,
    },
    /// Exit 0 if the server at ADDR reports SERVING on the standard gRPC health protocol.
    Health {
        /// The server.
        #[arg(long, default_value = "http://127.0.0.1:50051")]
        addr: String,
    },
    /// The terminal client: play, watch, wallet, record.
    #[command(flatten)]
    Client(gamehub::client::ClientCommand),
}

fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("gamehub: cannot start the async runtime: {e}");
            return std::process::ExitCode::FAILURE;
        }
    };
    match runtime.block_on(run(cli)) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("gamehub: {e:#}");
            std::process::ExitCode::FAILURE
        }
    }
}

async fn run(cli: Cli) -> anyhow::Result<std::process::ExitCode> {
    let env = Env::process();
    let config = CommonConfig::from_env(&env)?;
    match cli.command {
        Command::Serve => {
            let _telemetry = gamehub_platform::telemetry::init("gamehub", &config)?;
            let shutdown = Shutdown::new();
            gamehub_platform::metrics::serve_if_configured(&config, &shutdown).await?;
            let platform = serve::start_all(&env, Ports::Configured, shutdown.clone()).await?;
            println!(
                "{}",
                serve::banner(
                    &platform,
                    &serve::redact_url(config.database_url.expose()),
                    &serve::redact_url(config.redis_url.expose()),
                )
            );
            termination_signal().await;
            platform.stop().await;
        }
        Command::Demo {
            addr,
            in_process,
            gomoku_room,
            doudizhu_room,
            think_ms,
        } => {
            let options = gamehub::demo::DemoOptions {
                gomoku_room,
                doudizhu_room,
                think: Duration::from_millis(think_ms),
                verbose: true,
            };
            if in_process {
                let shutdown = Shutdown::new();
                let platform = serve::start_all(&env, Ports::Ephemeral, shutdown).await?;
                let result = gamehub::demo::run(&platform.endpoints(), &config, &options).await;
                platform.stop().await;
                result?;
            } else {
                let mut endpoints = Endpoints::from_config(&config);
                endpoints.matchmaking = addr;
                gamehub::demo::run(&endpoints, &config, &options).await?;
            }
        }
        Command::Token {
            subject,
            role,
            ttl_secs,
        } => {
            let token =
                gamehub::token::mint(&config, &subject, role, Duration::from_secs(ttl_secs))?;
            println!("{token}");
        }
        Command::Bots {
            count,
            room,
            think_ms,
        } => {
            let _telemetry = gamehub_platform::telemetry::init("gamehub-bots", &config)?;
            let shutdown = Shutdown::new();
            let stats = std::sync::Arc::new(gamehub::bots::BotStats::default());
            let options = gamehub::bots::BotOptions {
                room: room.clone(),
                count,
                think: Duration::from_millis(think_ms),
                name_prefix: "bot-".into(),
            };
            let task = tokio::spawn(gamehub::bots::run(
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
        Command::Loadgen {
            tables,
            duration_secs,
            warm_up_secs,
            games,
            gomoku_room,
            doudizhu_room,
            spawn,
            postgres,
            json,
        } => {
            let options = gamehub::loadgen::LoadOptions {
                tables,
                duration: Duration::from_secs(duration_secs),
                games,
                gomoku_room,
                doudizhu_room,
                progress: true,
            };
            let warm_up = Duration::from_secs(warm_up_secs);
            eprintln!(
                "loadgen: {tables} tables ({games:?}), {warm_up_secs} s warm-up, {duration_secs} s measured"
            );
            let report = if spawn {
                gamehub::loadgen::run_spawned(&config, &options, warm_up, &postgres).await?
            } else {
                gamehub::loadgen::run(&Endpoints::from_config(&config), &config, &options, warm_up)
                    .await?
                    .0
            };
            println!("{}", report.render());
            if let Some(path) = json {
                std::fs::write(&path, serde_json::to_string_pretty(&report)?)?;
            }
        }
        Command::Client(command) => return gamehub::client::run(command, &config).await,
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
