//! `gamehub-ledger`: the ledger service (`serve`, the default), its container
//! healthcheck (`health`) and the settlement load generator (`loadgen`).
#![forbid(unsafe_code)]

use std::process::ExitCode;

use clap::{Parser, Subcommand};
use gamehub_ledger::LedgerConfig;
use gamehub_ledger::loadgen::{self, LoadgenArgs};
use gamehub_platform::client::check_health;
use gamehub_platform::config::Env;
use gamehub_platform::server::{Shutdown, termination_signal};
use gamehub_platform::telemetry;

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
    /// Serve the gRPC API (the default). Configured by environment variables.
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
            let _telemetry = telemetry::init("gamehub-ledger", &config.common)?;
            let shutdown = Shutdown::new();
            let mut started = gamehub_ledger::start(config, shutdown.clone()).await?;
            tokio::select! {
                () = termination_signal() => shutdown.trigger(),
                result = &mut started.task => return result?.map(|()| ExitCode::SUCCESS),
            }
            started.task.await??;
            Ok(ExitCode::SUCCESS)
        }
        Command::Health { addr } => {
            let url = addr.unwrap_or_else(|| format!("http://127.0.0.1:{}", config.listen.port()));
            Ok(match check_health(&url, "").await {
                Ok(true) => ExitCode::SUCCESS,
                _ => ExitCode::FAILURE,
            })
        }
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
