//! `gamehub-gomoku-referee`: serve (default), check health, or generate load.
#![forbid(unsafe_code)]

use std::time::Duration;

/// mimalloc: the services allocate many small, short-lived buffers per call (protobuf,
/// JSON state, HTTP/2 frames), where it is markedly cheaper than the system allocator.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use clap::{Parser, Subcommand};
use gamehub_gomoku_referee::{RefereeConfig, loadgen};
use gamehub_platform::config::Env;
use gamehub_platform::server::{health_exit_code, serve_until_terminated};

#[derive(Parser)]
#[command(
    version,
    about = "The Gomoku referee: authoritative Gomoku/Renju tables"
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Serve the gRPC API (the default).
    Serve,
    /// Exit 0 if the referee at --addr reports SERVING (container healthchecks).
    Health {
        /// The referee's URL; defaults to this configuration's port on 127.0.0.1.
        #[arg(long)]
        addr: Option<String>,
    },
    /// Play N concurrent tables of random games through the API and report moves/s,
    /// latency and errors, then redis-benchmark's EVAL/s on the same Redis.
    Loadgen {
        /// Tables played at once.
        #[arg(long, default_value_t = 500)]
        tables: usize,
        /// Seconds to play.
        #[arg(long, default_value_t = 30)]
        duration: u64,
        /// The referee's URL.
        #[arg(long, default_value = "http://127.0.0.1:50052")]
        addr: String,
        /// Rule set: freestyle, renju-lose, renju-refuse, renju-claim, renju-swap.
        #[arg(long, default_value = "freestyle")]
        rules: String,
        /// HTTP/2 connections shared by the clients.
        #[arg(long, default_value_t = 4)]
        connections: usize,
        /// Offered calls per second over all tables (open loop); 0 = as fast as answered.
        #[arg(long, default_value_t = 0.0)]
        rate: f64,
        /// Requests redis-benchmark makes (0 skips it); it uses REDIS_URL.
        #[arg(long, default_value_t = 200_000)]
        redis_benchmark_requests: u64,
    },
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let cli = Cli::parse();
    let env = Env::process();
    match cli.command.unwrap_or(Command::Serve) {
        Command::Serve => {
            let config = RefereeConfig::from_env(&env)?;
            let common = config.common.clone();
            serve_until_terminated("gomoku-referee", &common, |shutdown| {
                gamehub_gomoku_referee::start(config, shutdown)
            })
            .await
        }
        Command::Health { addr } => {
            let config = RefereeConfig::from_env(&env)?;
            std::process::exit(match health_exit_code(addr, config.listen).await {
                code if code == std::process::ExitCode::SUCCESS => 0,
                _ => 1,
            });
        }
        Command::Loadgen {
            tables,
            duration,
            addr,
            rules,
            connections,
            rate,
            redis_benchmark_requests,
        } => {
            let common = gamehub_platform::config::CommonConfig::from_env(&env)?;
            let rule_set = match rules.as_str() {
                "freestyle" => gamehub_proto::gomoku::RuleSet::Freestyle,
                "renju" | "renju-lose" => gamehub_proto::gomoku::RuleSet::RenjuLose,
                "renju-refuse" => gamehub_proto::gomoku::RuleSet::RenjuRefuse,
                "renju-claim" => gamehub_proto::gomoku::RuleSet::RenjuClaim,
                "renju-swap" => gamehub_proto::gomoku::RuleSet::RenjuSwap,
                other => anyhow::bail!("unknown rule set {other:?}"),
            };
            let report = loadgen::run(loadgen::LoadgenConfig {
                url: addr,
                jwt_secret: common.jwt_secret.clone(),
                tables,
                duration: Duration::from_secs(duration),
                rule_set,
                connections,
                rate,
                redis_url: (redis_benchmark_requests > 0)
                    .then(|| common.redis_url.expose().to_owned()),
                redis_benchmark_requests,
            })
            .await?;
            print!("{report}");
            Ok(())
        }
    }
}
