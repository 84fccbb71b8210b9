//! `gamehub-doudizhu-dealer`: the Dou Dizhu dealer (`serve`, the default), its container
//! healthcheck (`health`), the load generator (`loadgen`) and the deal-record checker
//! (`verify`).
#![forbid(unsafe_code)]

use std::process::ExitCode;

use clap::{Parser, Subcommand};
use gamehub_doudizhu_dealer::DealerConfig;
use gamehub_doudizhu_dealer::loadgen::{self, LoadgenArgs};
use gamehub_doudizhu_dealer::record::RecordDoc;
use gamehub_platform::config::Env;
use gamehub_platform::server::{health_exit_code, serve_until_terminated};

/// mimalloc: the services allocate many small, short-lived buffers per call (protobuf,
/// JSON state, HTTP/2 frames), where it is markedly cheaper than the system allocator.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[derive(Debug, Parser)]
#[command(
    name = "gamehub-doudizhu-dealer",
    version,
    about = "gamehub's Dou Dizhu dealer: authoritative three-player tables"
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Serve the gRPC API (the default). Configured by environment variables.
    Serve,
    /// Exit 0 if the dealer answers SERVING on its health service, else 1.
    Health {
        /// The dealer's URL; defaults to this configuration's port on 127.0.0.1.
        #[arg(long)]
        addr: Option<String>,
    },
    /// Play N tables of random legal deals through the API for a while; report
    /// actions/s, p50/p99 latency, errors, and redis-benchmark's EVAL/s on the same Redis.
    Loadgen(LoadgenArgs),
    /// Check a finished deal's record: the seed against the commitment, the shuffle
    /// against the hands and kitty, the plays against the result. Reads the
    /// "doudizhu-json" document (GetDealRecord's `record_json`, or the ledger's record)
    /// from the file, or from standard input when no file is given.
    Verify {
        /// The record file.
        file: Option<std::path::PathBuf>,
    },
}

#[tokio::main]
async fn main() -> ExitCode {
    match run(Cli::parse()).await {
        Ok(code) => code,
        Err(e) => {
            eprintln!("gamehub-doudizhu-dealer: {e:#}");
            ExitCode::FAILURE
        }
    }
}

async fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    let config = DealerConfig::from_env(&Env::process())?;
    match cli.command.unwrap_or(Command::Serve) {
        Command::Serve => {
            let common = config.common.clone();
            serve_until_terminated("gamehub-doudizhu-dealer", &common, |shutdown| {
                gamehub_doudizhu_dealer::start(config, shutdown)
            })
            .await?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Health { addr } => Ok(health_exit_code(addr, config.listen).await),
        Command::Loadgen(args) => {
            let report = loadgen::run(&args, &config).await?;
            println!("{report}");
            Ok(ExitCode::SUCCESS)
        }
        Command::Verify { file } => {
            let text = match file {
                Some(path) => std::fs::read_to_string(path)?,
                None => std::io::read_to_string(std::io::stdin())?,
            };
            let doc = RecordDoc::from_json(&text)?;
            match doc.verify() {
                Ok(()) => {
                    println!(
                        "ok: deal {} of table {}: the seed matches the commitment {}, deals these hands and kitty, and the plays replay to the recorded result",
                        doc.deal_number, doc.table_id, doc.record.commitment
                    );
                    Ok(ExitCode::SUCCESS)
                }
                Err(e) => {
                    println!("FAILED: {e}");
                    Ok(ExitCode::FAILURE)
                }
            }
        }
    }
}
