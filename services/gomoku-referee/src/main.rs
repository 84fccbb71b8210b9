//! `gamehub-gomoku-referee`: the Gomoku referee (`serve`, the default), its container
//! healthcheck (`health`) and the load generator (`loadgen`).
#![forbid(unsafe_code)]

use std::process::ExitCode;
use std::time::Duration;

use clap::{Parser, Subcommand};
use gamehub_gomoku_referee::{RefereeConfig, convert, loadgen};
use gamehub_platform::config::Env;
use gamehub_platform::server::{health_exit_code, serve_until_terminated};

/// mimalloc: the services allocate many small, short-lived buffers per call (protobuf,
/// JSON state, HTTP/2 frames), where it is markedly cheaper than the system allocator.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[derive(Debug, Parser)]
#[command(
    name = "gamehub-gomoku-referee",
    version,
    about = "The Gomoku referee: authoritative Gomoku/Renju tables"
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Serve the gRPC API (the default), and /metrics when GAMEHUB_METRICS_ADDR is set.
    /// Configured by environment variables.
    Serve,
    /// Exit 0 if the referee answers SERVING on its health service, else 1.
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
async fn main() -> ExitCode {
    match run(Cli::parse()).await {
        Ok(code) => code,
        Err(e) => {
            eprintln!("gamehub-gomoku-referee: {e:#}");
            ExitCode::FAILURE
        }
    }
}

async fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    let config = RefereeConfig::from_env(&Env::process())?;
    match cli.command.unwrap_or(Command::Serve) {
        Command::Serve => {
            let common = config.common.clone();
            serve_until_terminated("gamehub-gomoku-referee", &common, |shutdown| {
                gamehub_gomoku_referee::start(config, shutdown)
            })
            .await?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Health { addr } => Ok(health_exit_code(addr, config.listen).await),
        Command::Loadgen {
            tables,
            duration,
            addr,
            rules,
            connections,
            rate,
            redis_benchmark_requests,
        } => {
            let rule_set = gomoku_rules::RuleSet::parse(&rules)
                .ok_or_else(|| anyhow::anyhow!("unknown rule set {rules:?}"))?;
            let common = config.common;
            let report = loadgen::run(loadgen::LoadgenConfig {
                url: addr,
                jwt_secret: common.jwt_secret.clone(),
                tables,
                duration: Duration::from_secs(duration),
                rule_set: convert::rule_set(rule_set),
                connections,
                rate,
                redis_url: (redis_benchmark_requests > 0)
                    .then(|| common.redis_url.expose().to_owned()),
                redis_benchmark_requests,
            })
            .await?;
            print!("{report}");
            Ok(ExitCode::SUCCESS)
        }
    }
}
