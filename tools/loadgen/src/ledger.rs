//! `gamehub-loadgen ledger`: concurrent clients settle random games (Gomoku and Dou
//! Dizhu, every outcome, stakes that make the caps and balances bind:
//! [`gamehub_testkit::settlements::random_game`], what the ledger's concurrency tests
//! settle too) against a ledger and report settlements per second and latency
//! percentiles, next to the pgbench TPC-B figure of the same PostgreSQL measured in the
//! same run.
//!
//! Without `--addr` a ledger is started in this process on a fresh scratch database,
//! which is dropped afterwards.

use std::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use anyhow::Context;
use gamehub_ledger::LedgerConfig;
use gamehub_platform::auth::{Keys, Role};
use gamehub_platform::client::{ServiceChannel, TokenSource, service_channel};
use gamehub_platform::server::Shutdown;
use gamehub_proto::ledger::GrantSilverRequest;
use gamehub_proto::ledger::ledger_service_client::LedgerServiceClient;
use gamehub_testkit::postgres::scratch_database_url;
use gamehub_testkit::settlements::random_game;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use sqlx::migrate::MigrateDatabase;

use crate::baseline::{Pgbench, quantile};

/// `gamehub-loadgen ledger` options.
#[derive(Debug, Clone, clap::Args)]
pub struct Args {
    /// Concurrent clients, each with its own connection.
    #[arg(long, default_value_t = 32)]
    pub clients: usize,
    /// Settlements to make in total.
    #[arg(long, default_value_t = 20_000)]
    pub games: usize,
    /// The ledger to load (e.g. http://127.0.0.1:50054); tokens are minted with
    /// GAMEHUB_JWT_SECRET. Without it a ledger runs in this process on a scratch database.
    #[arg(long)]
    pub addr: Option<String>,
    /// Distinct players the games draw from.
    #[arg(long, default_value_t = 5_000)]
    pub players: usize,
    /// Fraction of settlements sent a second time (they must come back as replays).
    #[arg(long, default_value_t = 0.0)]
    pub duplicate_rate: f64,
    /// Skip the pgbench comparison.
    #[arg(long)]
    pub no_pgbench: bool,
    /// How long pgbench runs, in seconds.
    #[arg(long, default_value_t = 20)]
    pub pgbench_seconds: u32,
    /// pgbench clients (-c); threads (-j) are 2.
    #[arg(long, default_value_t = 32)]
    pub pgbench_clients: u32,
    /// Seed of the random games (random when not given).
    #[arg(long)]
    pub seed: Option<u64>,
}

impl Default for Args {
    fn default() -> Self {
        Self {
            clients: 32,
            games: 20_000,
            addr: None,
            players: 5_000,
            duplicate_rate: 0.0,
            no_pgbench: false,
            pgbench_seconds: 20,
            pgbench_clients: 32,
            seed: None,
        }
    }
}

/// What a load run measured.
#[derive(Debug, Clone)]
pub struct LoadReport {
    /// Clients used.
    pub clients: usize,
    /// Settlements applied (first sends that succeeded).
    pub settlements: usize,
    /// Duplicate sends answered as replays.
    pub replays: usize,
    /// Calls that failed.
    pub errors: usize,
    /// The first failure, if any.
    pub first_error: Option<String>,
    /// Wall time of the settlement phase.
    pub elapsed: Duration,
    /// Median latency of a settlement.
    pub p50: Duration,
    /// 99th percentile latency.
    pub p99: Duration,
    /// Slowest settlement.
    pub max: Duration,
    /// pgbench TPC-B transactions per second of the same PostgreSQL, if measured.
    pub pgbench_tps: Option<f64>,
    /// pgbench's average transaction latency, for comparison with p50/p99.
    pub pgbench_latency: Option<Duration>,
}

impl LoadReport {
    /// Settlements per second.
    pub fn per_second(&self) -> f64 {
        self.settlements as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }
}

impl fmt::Display for LoadReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ms = |d: Duration| d.as_secs_f64() * 1000.0;
        writeln!(
            f,
            "settlements: {} by {} clients in {:.2} s = {:.0} settlements/s",
            self.settlements,
            self.clients,
            self.elapsed.as_secs_f64(),
            self.per_second()
        )?;
        writeln!(
            f,
            "latency: p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms",
            ms(self.p50),
            ms(self.p99),
            ms(self.max)
        )?;
        writeln!(f, "replays: {}, errors: {}", self.replays, self.errors)?;
        if let Some(error) = &self.first_error {
            writeln!(f, "first error: {error}")?;
        }
        match self.pgbench_tps {
            Some(tps) => write!(
                f,
                "pgbench TPC-B: {tps:.0} tps (latency average {:.2} ms); ledger/pgbench = {:.2}",
                self.pgbench_latency.map_or(f64::NAN, ms),
                self.per_second() / tps
            ),
            None => write!(f, "pgbench: not measured"),
        }
    }
}

/// A ledger client authenticating with a token of `role` minted from `keys`.
pub fn client(
    url: &str,
    keys: &Keys,
    subject: &str,
    role: Role,
) -> anyhow::Result<LedgerServiceClient<ServiceChannel>> {
    let token = keys
        .mint(subject, role, Duration::from_secs(24 * 3600))
        .map_err(|e| anyhow::anyhow!("cannot mint a token: {e}"))?;
    let channel = service_channel(url, TokenSource::Static(token), Duration::from_secs(30))?;
    Ok(LedgerServiceClient::new(channel))
}

/// Runs the load: grants every player some silver, settles `args.games` random games
/// with `args.clients` clients, then measures pgbench on the same PostgreSQL.
pub async fn run(args: &Args, config: &LedgerConfig) -> anyhow::Result<LoadReport> {
    anyhow::ensure!(args.clients > 0, "--clients must be at least 1");
    anyhow::ensure!(args.players >= 3, "--players must be at least 3");
    let run_id = &uuid::Uuid::new_v4().simple().to_string()[..8];
    let keys = config.common.keys.clone();

    // The ledger: the given one, or one in this process on a scratch database.
    let shutdown = Shutdown::new();
    let mut in_process = None;
    let url = match &args.addr {
        Some(addr) => addr.clone(),
        None => {
            let db_url = scratch_database_url(
                config.common.database_url.expose(),
                &format!("gamehub_loadgen_{run_id}"),
            )?;
            let mut ledger_config = config.clone();
            ledger_config.common.database_url =
                gamehub_platform::config::Secret::new(db_url.clone());
            ledger_config.listen = "127.0.0.1:0".parse()?;
            let started = gamehub_ledger::start(ledger_config, shutdown.clone()).await?;
            let url = format!("http://{}", started.addr);
            in_process = Some((db_url, started.task));
            url
        }
    };
    let result = load(args, &keys, &url, run_id).await;
    shutdown.trigger();
    if let Some((db_url, task)) = in_process {
        // Its pool closes when it has stopped (the drop below forces any straggler out).
        if tokio::time::timeout(Duration::from_secs(15), task)
            .await
            .is_err()
        {
            tracing::warn!("the in-process ledger did not stop within 15 s");
        }
        if let Err(e) = sqlx::Postgres::force_drop_database(&db_url).await {
            tracing::warn!(error = %e, "could not drop the scratch database");
        }
    }
    let mut report = result?;
    if !args.no_pgbench {
        let pgbench = Pgbench {
            scale: 1,
            clients: args.pgbench_clients,
            seconds: args.pgbench_seconds,
        };
        let measured = pgbench
            .run(config.common.database_url.expose())
            .await
            .context("pgbench")?;
        report.pgbench_tps = Some(measured.tps);
        report.pgbench_latency = measured.latency_average;
    }
    Ok(report)
}

async fn load(args: &Args, keys: &Keys, url: &str, run_id: &str) -> anyhow::Result<LoadReport> {
    let players: Arc<Vec<String>> = Arc::new(
        (0..args.players)
            .map(|i| format!("lg-{run_id}-p{i}"))
            .collect(),
    );
    let seed = args.seed.unwrap_or_else(rand::random);

    // Every player starts with 20,000 to 1,000,000 silver.
    let next = Arc::new(AtomicUsize::new(0));
    let mut tasks = Vec::new();
    for _ in 0..args.clients {
        let mut operator = client(url, keys, "loadgen-operator", Role::Operator)?;
        let (players, next) = (players.clone(), next.clone());
        let run_id = run_id.to_owned();
        tasks.push(tokio::spawn(async move {
            loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(player) = players.get(i) else {
                    return anyhow::Ok(());
                };
                let mut rng = StdRng::seed_from_u64(seed ^ (i as u64).rotate_left(32));
                operator
                    .grant_silver(GrantSilverRequest {
                        request_id: format!("lg-{run_id}-grant-{i}"),
                        player_id: player.clone(),
                        amount_silver: rng.random_range(20_000..=1_000_000),
                        reason: "load test".into(),
                    })
                    .await?;
            }
        }));
    }
    for task in tasks {
        task.await??;
    }

    let next = Arc::new(AtomicUsize::new(0));
    let started = Instant::now();
    let mut tasks = Vec::new();
    for _ in 0..args.clients {
        // Each game is settled by its own game's service (the ledger refuses others).
        let mut settlers = std::collections::HashMap::new();
        for game in gamehub_terms::games::GAMES {
            let settler = client(url, keys, game.service.identity, Role::Service)?;
            settlers.insert(game.game_type as i32, settler);
        }
        let (players, next) = (players.clone(), next.clone());
        let (games, duplicate_rate) = (args.games, args.duplicate_rate);
        let run_id = run_id.to_owned();
        tasks.push(tokio::spawn(async move {
            let mut latencies = Vec::new();
            let (mut replays, mut errors) = (0usize, 0usize);
            let mut first_error = None;
            loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= games {
                    break;
                }
                let mut rng = StdRng::seed_from_u64(seed.wrapping_add(i as u64));
                let game = random_game(&mut rng, format!("lg-{run_id}-g{i}"), &players);
                let Some(service) = settlers.get_mut(&game.game_type) else {
                    errors += 1;
                    continue;
                };
                let sent = Instant::now();
                match service.settle_game(game.clone()).await {
                    Ok(_) => latencies.push(sent.elapsed()),
                    Err(status) => {
                        errors += 1;
                        first_error.get_or_insert_with(|| {
                            format!("{:?}: {}", status.code(), status.message())
                        });
                        continue;
                    }
                }
                if rng.random_bool(duplicate_rate.clamp(0.0, 1.0)) {
                    match service.settle_game(game).await {
                        Ok(r) if r.get_ref().replayed => replays += 1,
                        _ => errors += 1,
                    }
                }
            }
            (latencies, replays, errors, first_error)
        }));
    }
    let mut latencies = Vec::with_capacity(args.games);
    let (mut replays, mut errors, mut first_error) = (0, 0, None);
    for task in tasks {
        let (l, r, e, first) = task.await?;
        latencies.extend(l);
        replays += r;
        errors += e;
        first_error = first_error.or(first);
    }
    let elapsed = started.elapsed();
    latencies.sort_unstable();
    Ok(LoadReport {
        clients: args.clients,
        settlements: latencies.len(),
        replays,
        errors,
        first_error,
        elapsed,
        p50: quantile(&latencies, 0.50).unwrap_or_default(),
        p99: quantile(&latencies, 0.99).unwrap_or_default(),
        max: latencies.last().copied().unwrap_or_default(),
        pgbench_tps: None,
        pgbench_latency: None,
    })
}
