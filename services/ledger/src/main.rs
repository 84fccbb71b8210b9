//! `gamehub-ledger`: the ledger service (`serve`, the default), its container
//! healthcheck (`health`) and the settlement load generator (`loadgen`).
#![forbid(unsafe_code)]

use std::process::ExitCode;

use clap::{Parser, Subcommand};
use gamehub_ledger::LedgerConfig;
use gamehub_ledger::loadgen::{self, LoadgenArgs};
use gamehub_platform::config::Env;
use gamehub_platform::server::{health_exit_code, serve_until_terminated};
use gamehub_platform::telemetry;

/// mimalloc: the services allocate many small, short-lived buffers per call (protobuf,
/// JSON state, HTTP/2 frames), where it is markedly cheaper than the system allocator.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[derive(Debug, Parser)]
#[command(
    name = "gamehub-ledger",
    version,
    about = "gamehub's ledger: silver, caps, points, titles, ratings"
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
    /// Exit 0 if the ledger answers SERVING on its health service, else 1.
    Health {
        /// The ledger's URL; defaults to this configuration's port on 127.0.0.1.
        #[arg(long)]
        addr: Option<String>,
    },
    /// Settle random games with concurrent clients; report settlements/s, p50/p99 and
    /// the pgbench TPC-B tps of the same PostgreSQL.
    Loadgen(LoadgenArgs),
}

#[tokio::main]
async fn main() -> ExitCode {
    match run(Cli::parse()).await {
        Ok(code) => code,
        Err(e) => {
            eprintln!("gamehub-ledger: {e:#}");
            ExitCode::FAILURE
        }
    }
}

async fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    let config = LedgerConfig::from_env(&Env::process())?;
    match cli.command.unwrap_or(Command::Serve) {
        Command::Serve => {
            let common = config.common.clone();
            serve_until_terminated("gamehub-ledger", &common, |shutdown| {
                gamehub_ledger::start(config, shutdown)
            })
            .await?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Health { addr } => Ok(health_exit_code(addr, config.listen).await),
        Command::Loadgen(args) => {
            // Quiet unless asked: the in-process ledger would log every grant.
            let _telemetry = match std::env::var_os("RUST_LOG") {
                Some(_) => Some(telemetry::init("gamehub-ledger-loadgen", &config.common)?),
                None => None,
            };
            let report = loadgen::run(&args, &config).await?;
            println!("{report}");
            Ok(ExitCode::SUCCESS)
        }
    }
}
