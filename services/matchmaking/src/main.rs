//! `gamehub-matchmaking`: the matchmaking service (`serve`, the default), its container
//! healthcheck (`health`) and the matcher benchmark (`bench-matcher`).
#![forbid(unsafe_code)]

use std::process::ExitCode;

use clap::{Parser, Subcommand};
use gamehub_matchmaking::MatchmakingConfig;
use gamehub_matchmaking::bench::{self, BenchArgs};
use gamehub_platform::config::Env;
use gamehub_platform::server::{health_exit_code, serve_until_terminated};

/// mimalloc: the services allocate many small, short-lived buffers per call (protobuf,
/// JSON state, HTTP/2 frames), where it is markedly cheaper than the system allocator.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[derive(Debug, Parser)]
#[command(
    name = "gamehub-matchmaking",
    version,
    about = "gamehub's matchmaking: rooms, tickets, seating players at tables"
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Serve the gRPC API and run the matcher (the default). Configured by environment
    /// variables.
    Serve,
    /// Exit 0 if matchmaking answers SERVING on its health service, else 1.
    Health {
        /// Matchmaking's URL; defaults to this configuration's port on 127.0.0.1.
        #[arg(long)]
        addr: Option<String>,
    },
    /// The matcher alone against the real Redis, with instant in-process eligibility and
    /// table fakes: seated tables/s and enqueue-to-seat p50/p99.
    BenchMatcher(BenchArgs),
}

#[tokio::main]
async fn main() -> ExitCode {
    match run(Cli::parse()).await {
        Ok(code) => code,
        Err(e) => {
            eprintln!("gamehub-matchmaking: {e:#}");
            ExitCode::FAILURE
        }
    }
}

async fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    let config = MatchmakingConfig::from_env(&Env::process())?;
    match cli.command.unwrap_or(Command::Serve) {
        Command::Serve => {
            let common = config.common.clone();
            serve_until_terminated("gamehub-matchmaking", &common, |shutdown| {
                gamehub_matchmaking::start(config, shutdown)
            })
            .await?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Health { addr } => Ok(health_exit_code(addr, config.listen).await),
        Command::BenchMatcher(args) => {
            let report = bench::run(&args, &config).await?;
            println!("{report}");
            Ok(ExitCode::SUCCESS)
        }
    }
}
