//! `gamehub-loadgen`: every load generator and benchmark of gamehub, one subcommand per
//! target. Configured like the services, by environment variables (`REDIS_URL`,
//! `DATABASE_URL`, `GAMEHUB_JWT_SECRET`, `GAMEHUB_*_URL`, …).
#![forbid(unsafe_code)]

use std::process::ExitCode;

use clap::{Parser, Subcommand};
use gamehub_loadgen::{baseline, dealer, followers, ledger, matcher, platform, referee};
use gamehub_platform::config::{CommonConfig, Env};

/// mimalloc, as in the services: an in-process service (`dealer`, `ledger` without
/// `--addr`) and the load generator's own many small buffers run as they do there.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[derive(Debug, Parser)]
#[command(
    name = "gamehub-loadgen",
    version,
    about = "gamehub's load generators and benchmarks, each figure beside a same-run baseline"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// The published load test: players through the whole path (matchmaking → tables →
    /// settlement) at a chosen number of concurrent tables, with a progress line every
    /// second and a final report.
    Platform(platform::Args),
    /// Play N concurrent tables of random games through a running Gomoku referee and
    /// report moves/s, latency and errors, then redis-benchmark's EVAL/s on the same Redis.
    Referee(referee::Args),
    /// Play N tables of random legal deals through the Dou Dizhu dealer API for a while;
    /// report actions/s, p50/p99 latency, errors, and redis-benchmark's EVAL/s on the
    /// same Redis.
    Dealer(dealer::Args),
    /// Settle random games with concurrent clients; report settlements/s, p50/p99 and
    /// the pgbench TPC-B tps of the same PostgreSQL.
    Ledger(ledger::Args),
    /// The matcher alone against the real Redis, with instant in-process eligibility and
    /// table fakes: seated tables/s and enqueue-to-seat p50/p99.
    Matcher(matcher::Args),
    /// Memory per connected player: N players, each on its own connection (to the
    /// referee or the front door), each following a table with Watch; the RSS growth of
    /// the named processes per player.
    Followers(followers::Args),
    /// The baselines alone: redis-benchmark's EVAL/s on REDIS_URL and pgbench's TPC-B
    /// tps on the server of DATABASE_URL.
    Baseline(baseline::Args),
}

#[tokio::main]
async fn main() -> ExitCode {
    match run(Cli::parse()).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("gamehub-loadgen: {e:#}");
            ExitCode::FAILURE
        }
    }
}

async fn run(cli: Cli) -> anyhow::Result<()> {
    let env = Env::process();
    let common = CommonConfig::from_env(&env)?;
    // Quiet unless asked: an in-process service would log every call's warnings.
    let _telemetry = match std::env::var_os("RUST_LOG") {
        Some(_) => Some(gamehub_platform::telemetry::init(
            "gamehub-loadgen",
            &common,
        )?),
        None => None,
    };
    match cli.command {
        Command::Platform(args) => platform::main(&args, &common).await?,
        Command::Referee(args) => print!("{}", referee::run(&args, &common).await?),
        Command::Dealer(args) => {
            let config = gamehub_doudizhu_dealer::DealerConfig::from_env(&env)?;
            println!("{}", dealer::run(&args, &config).await?);
        }
        Command::Ledger(args) => {
            let config = gamehub_ledger::LedgerConfig::from_env(&env)?;
            println!("{}", ledger::run(&args, &config).await?);
        }
        Command::Matcher(args) => {
            let config = gamehub_matchmaking::MatchmakingConfig::from_env(&env)?;
            println!("{}", matcher::run(&args, &config).await?);
        }
        Command::Followers(args) => print!("{}", followers::run(&args, &common).await?),
        Command::Baseline(args) => print!("{}", baseline::run(&args, &common).await?),
    }
    Ok(())
}
