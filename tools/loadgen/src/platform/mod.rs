//! `gamehub-loadgen platform`: the published load test. Players go the whole path —
//! queue at matchmaking, get seated, play a game or deal to its end, leave, queue
//! again — at a chosen number of concurrent tables, while the report measures moves/s,
//! games settled/s, time from enqueue to seat, move latency, errors by status, and the
//! CPU and memory of each service.
//!
//! Players are generic: a collector groups the seats matchmaking hands out into tables
//! and starts one driver per table that plays every seat of it ([`play`]). Drivers play
//! fast legal moves (a random stone next to the others, judged by the rule crate; a
//! random hint: [`crate::players`]), so the load is the platform's, not the bots'.
//! Settlements are counted from the services' own Prometheus counter
//! (`gamehub_settlements_total{result="ok"}`), i.e. acknowledged by the ledger.
//!
//! With `--spawn` ([`spawn`]) it starts the four service binaries (found next to
//! `gamehub-loadgen`) as separate processes on free ports with a scratch database and
//! key prefix, samples their CPU time and resident memory from `/proc`, and stops them
//! at the end; it also measures the same Redis and PostgreSQL with `redis-benchmark`
//! and `pgbench` in the same run.

mod play;
mod spawn;

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use gamehub_drive::api::{Clients, Endpoints};
use gamehub_platform::auth::Role;
use gamehub_platform::client::TokenSource;
use gamehub_platform::config::CommonConfig;
use gamehub_proto::common::GameType;
use tokio::sync::mpsc;

use crate::baseline::quantile_ms;
use crate::redis_stats::CommandCosts;

pub use spawn::run_spawned;

/// `gamehub-loadgen platform` options.
#[derive(Debug, Clone, clap::Args)]
pub struct Args {
    /// Concurrent tables.
    #[arg(long, default_value_t = 100)]
    pub tables: usize,
    /// Seconds to measure (after a warm-up).
    #[arg(long, default_value_t = 30)]
    pub duration_secs: u64,
    /// Seconds of warm-up before measuring.
    #[arg(long, default_value_t = 5)]
    pub warm_up_secs: u64,
    /// Which games.
    #[arg(long, value_enum, default_value = "both")]
    pub games: Games,
    /// The Gomoku room.
    #[arg(long, default_value = "gomoku-free")]
    pub gomoku_room: String,
    /// The Dou Dizhu room.
    #[arg(long, default_value = "doudizhu-free")]
    pub doudizhu_room: String,
    /// Start the four service binaries (next to this one) as separate processes on
    /// free ports with a scratch database, report their CPU and memory, and measure
    /// redis-benchmark and pgbench baselines in the same run. Without it, load the
    /// platform at GAMEHUB_*_URL.
    #[arg(long)]
    pub spawn: bool,
    /// PostgreSQL server for --spawn (the scratch database is created there).
    #[arg(long, default_value = "postgres://postgres@127.0.0.1:5432")]
    pub postgres: String,
    /// With --spawn: serve and call over TLS, with the certificates of `gamehub tls
    /// generate --dir DIR` (each service its own NAME.pem, everyone trusting ca.pem),
    /// so a run beside a plaintext one shows what TLS costs per move.
    #[arg(long, requires = "spawn")]
    pub tls_dir: Option<std::path::PathBuf>,
    /// With --spawn and --tls-dir: start the players' front door too (Debian's nginx
    /// with this configuration, e.g. deploy/kubernetes/front-door/nginx.conf, its
    /// service addresses and certificates rewritten to the run's) and send every
    /// player's call through it, so its CPU per move shows beside the services'.
    #[arg(long, requires = "tls_dir")]
    pub front_door: Option<std::path::PathBuf>,
    /// Also write the report as JSON to this file.
    #[arg(long)]
    pub json: Option<std::path::PathBuf>,
}

/// Runs what `args` asks for (against the platform at `config`'s URLs, or spawned)
/// and prints the report.
pub async fn main(args: &Args, config: &CommonConfig) -> anyhow::Result<()> {
    let options = LoadOptions {
        tables: args.tables,
        duration: Duration::from_secs(args.duration_secs),
        games: args.games,
        gomoku_room: args.gomoku_room.clone(),
        doudizhu_room: args.doudizhu_room.clone(),
        progress: true,
        end_early: None,
    };
    let warm_up = Duration::from_secs(args.warm_up_secs);
    eprintln!(
        "loadgen: {} tables ({:?}), {} s warm-up, {} s measured",
        args.tables, args.games, args.warm_up_secs, args.duration_secs
    );
    let report = if args.spawn {
        run_spawned(
            config,
            &options,
            warm_up,
            &args.postgres,
            args.tls_dir.as_deref(),
            args.front_door.as_deref(),
        )
        .await?
    } else {
        run(
            &Endpoints::from_config(config),
            config,
            &options,
            warm_up,
            &[],
        )
        .await?
        .0
    };
    println!("{}", report.render());
    if let Some(path) = &args.json {
        std::fs::write(path, serde_json::to_string_pretty(&report)?)?;
    }
    Ok(())
}

/// What to load.
#[derive(Debug, Clone)]
pub struct LoadOptions {
    /// Concurrent tables to keep busy.
    pub tables: usize,
    /// How long to measure (after the warm-up).
    pub duration: Duration,
    /// Gomoku tables only, Dou Dizhu only, or half each.
    pub games: Games,
    /// The Gomoku room.
    pub gomoku_room: String,
    /// The Dou Dizhu room.
    pub doudizhu_room: String,
    /// Print a progress line every second.
    pub progress: bool,
    /// When set, the measurement also ends as soon as this turns true (a test that
    /// stops the load once it has done what it needed under it).
    pub end_early: Option<Arc<AtomicBool>>,
}

/// Which games the load plays.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Games {
    /// Gomoku tables only.
    Gomoku,
    /// Dou Dizhu tables only.
    Doudizhu,
    /// Half the tables each.
    Both,
}

/// Counters shared by every task.
#[derive(Default)]
struct Stats {
    moves: AtomicU64,
    games: AtomicU64,
    seated: AtomicU64,
    move_latency_us: Mutex<Vec<u32>>,
    seat_latency_us: Mutex<Vec<u32>>,
    errors: Mutex<BTreeMap<String, u64>>,
    error_samples: Mutex<BTreeMap<String, String>>,
    retries: Mutex<BTreeMap<String, u64>>,
    refusals: Mutex<BTreeMap<String, u64>>,
    abandoned: AtomicU64,
    measuring: AtomicBool,
}

impl Stats {
    fn record_move(&self, took: Duration) {
        if self.measuring.load(Ordering::Relaxed) {
            self.moves.fetch_add(1, Ordering::Relaxed);
            push(&self.move_latency_us, took);
        }
    }

    /// A call given up on (after its retries), by code.
    fn record_error(&self, status: &tonic::Status) {
        self.count(&self.errors, status);
        if self.measuring.load(Ordering::Relaxed) {
            self.error_samples
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .entry(format!("{:?}", status.code()))
                .or_insert_with(|| status.message().chars().take(200).collect());
        }
    }

    /// Passes a call's result through, counting a retryable answer (the call is then
    /// retried) by code.
    fn retried<T>(&self, result: Result<T, tonic::Status>) -> Result<T, tonic::Status> {
        if let Err(status) = &result
            && matches!(
                status.code(),
                tonic::Code::ResourceExhausted | tonic::Code::Unavailable | tonic::Code::Aborted
            )
        {
            self.count(&self.retries, status);
        }
        result
    }

    /// An action the server refused (the table is read again), by code.
    fn refused(&self, status: &tonic::Status) {
        self.count(&self.refusals, status);
    }

    /// Adds one to `status`'s code in `map`, while measuring.
    fn count(&self, map: &Mutex<BTreeMap<String, u64>>, status: &tonic::Status) {
        if self.measuring.load(Ordering::Relaxed) {
            let mut map = map
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            *map.entry(format!("{:?}", status.code())).or_default() += 1;
        }
    }
}

/// Latency samples kept per metric (a bound on memory: enough for minutes at 10k/s).
const MAX_SAMPLES: usize = 5_000_000;

fn push(samples: &Mutex<Vec<u32>>, took: Duration) {
    let mut samples = samples
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if samples.len() < MAX_SAMPLES {
        samples.push(u32::try_from(took.as_micros()).unwrap_or(u32::MAX));
    }
}

/// What one service process cost during the measurement.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct ProcessCost {
    /// The service.
    pub name: String,
    /// CPU used, in percent of one core, averaged over the measurement.
    pub cpu_percent: f64,
    /// Resident memory at the end, MiB.
    pub rss_mib: f64,
    /// Time its threads were runnable but waited for a core (the kernel's run-queue
    /// delay, `/proc/PID/task/*/schedstat`), in percent of the measurement's wall time:
    /// per move, what the process's work waited for a CPU.
    pub run_queue_percent: f64,
}

/// The final report.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct Report {
    /// Concurrent tables asked for.
    pub tables: usize,
    /// Seconds measured.
    pub seconds: f64,
    /// Moves, bids, plays and passes per second.
    pub moves_per_second: f64,
    /// Games and deals finished per second.
    pub games_per_second: f64,
    /// Games the ledger acknowledged per second (from the services' metrics).
    pub settlements_per_second: f64,
    /// Enqueue → seated, p50 and p99, ms.
    pub seat_p50_ms: f64,
    /// See `seat_p50_ms`.
    pub seat_p99_ms: f64,
    /// Move latency p50 and p99, ms.
    pub move_p50_ms: f64,
    /// See `move_p50_ms`.
    pub move_p99_ms: f64,
    /// Seats handed out per second.
    pub seated_per_second: f64,
    /// Calls given up on (after their retries), by gRPC code.
    pub errors: BTreeMap<String, u64>,
    /// The first message of each code in `errors` (at most 200 characters).
    pub error_samples: BTreeMap<String, String>,
    /// Retryable answers (RESOURCE_EXHAUSTED, UNAVAILABLE, ABORTED), each followed by a
    /// retry, by gRPC code.
    pub retries: BTreeMap<String, u64>,
    /// Actions refused (FAILED_PRECONDITION: a clock or a race was first; the table is
    /// read again), by gRPC code.
    pub refusals: BTreeMap<String, u64>,
    /// Tables given up on (an error, or seats that never all arrived), each left by
    /// every seat that had arrived.
    pub abandoned_tables: u64,
    /// Moves per second of the measurement, one figure per second (a restart shows as
    /// a dip and, for a good client, a recovery).
    pub moves_per_second_series: Vec<u64>,
    /// CPU and memory of each service (spawned mode), and of the load generator.
    pub processes: Vec<ProcessCost>,
    /// `redis-benchmark` EVAL requests/s of the same Redis (spawned mode).
    pub redis_eval_per_second: Option<f64>,
    /// `pgbench` TPC-B transactions/s of the same PostgreSQL (spawned mode).
    pub pgbench_tps: Option<f64>,
    /// What Redis's commands cost during the measurement (spawned mode).
    pub redis_commands: Option<CommandCosts>,
}

/// The load generator's own line among [`Report::processes`].
pub const LOADGEN_PROCESS: &str = "loadgen (this)";

/// The four services' lines among [`Report::processes`] ("services together").
pub const SERVICE_PROCESSES: [&str; 4] =
    ["ledger", "gomoku-referee", "doudizhu-dealer", "matchmaking"];

impl Report {
    /// CPU time per move (moves, bids, plays and passes) of a process that used
    /// `cpu_percent` of a core on average, in microseconds.
    pub fn cpu_micros_per_move(&self, cpu_percent: f64) -> f64 {
        if self.moves_per_second > 0.0 {
            cpu_percent / 100.0 * 1e6 / self.moves_per_second
        } else {
            0.0
        }
    }

    /// The report as a table for people.
    pub fn render(&self) -> String {
        let mut out = String::new();
        out.push_str(&format!(
            "load: {} concurrent tables for {:.0} s\n\
             \n  moves/s            {:>10.0}\n  games finished/s   {:>10.1}\n  settlements/s      {:>10.1}\n  seated/s           {:>10.1}\n\
             \n  seat time          p50 {:>7.1} ms   p99 {:>7.1} ms\n  move latency       p50 {:>7.2} ms   p99 {:>7.2} ms\n",
            self.tables,
            self.seconds,
            self.moves_per_second,
            self.games_per_second,
            self.settlements_per_second,
            self.seated_per_second,
            self.seat_p50_ms,
            self.seat_p99_ms,
            self.move_p50_ms,
            self.move_p99_ms,
        ));
        if self.errors.is_empty() {
            out.push_str("  errors             none\n");
        } else {
            for (code, n) in &self.errors {
                let sample = self.error_samples.get(code).map_or("", String::as_str);
                out.push_str(&format!("  errors {code:<12}{n:>10}   e.g. {sample}\n"));
            }
        }
        for (code, n) in &self.retries {
            out.push_str(&format!("  retried {code:<11}{n:>10}\n"));
        }
        for (code, n) in &self.refusals {
            out.push_str(&format!("  refused {code:<11}{n:>10}\n"));
        }
        if self.abandoned_tables > 0 {
            out.push_str(&format!(
                "  tables abandoned   {:>10}\n",
                self.abandoned_tables
            ));
        }
        if !self.processes.is_empty() {
            out.push_str(
                "\n  process            CPU (% of a core)   CPU µs per move   RSS          waited for a core, µs per move\n",
            );
            for p in &self.processes {
                out.push_str(&format!(
                    "  {:<18} {:>8.1} %        {:>10.1}        {:>6.1} MiB   {:>10.1}\n",
                    p.name,
                    p.cpu_percent,
                    self.cpu_micros_per_move(p.cpu_percent),
                    p.rss_mib,
                    self.cpu_micros_per_move(p.run_queue_percent),
                ));
            }
            let services: f64 = self
                .processes
                .iter()
                .filter(|p| SERVICE_PROCESSES.contains(&p.name.as_str()))
                .map(|p| p.cpu_percent)
                .sum();
            out.push_str(&format!(
                "  {:<18} {:>8.1} %        {:>10.1}\n",
                "services together",
                services,
                self.cpu_micros_per_move(services)
            ));
        }
        if let Some(eval) = self.redis_eval_per_second {
            out.push_str(&format!(
                "\n  redis-benchmark EVAL/s   {eval:>10.0}   (moves/s ÷ EVAL/s = {:.2})\n",
                self.moves_per_second / eval
            ));
        }
        if let Some(tps) = self.pgbench_tps {
            out.push_str(&format!(
                "  pgbench TPC-B tps        {tps:>10.0}   (settlements/s ÷ tps = {:.3})\n",
                self.settlements_per_second / tps
            ));
        }
        if let Some(commands) = &self.redis_commands {
            // Per move as CPU per move is: over the whole sampled time, at the
            // measurement's rate of moves, bids, plays and passes.
            out.push_str(&commands.render(self.moves_per_second, 14));
        }
        out
    }
}

/// How long seats wait at the collector for the rest of their table.
const SEAT_WAIT: Duration = Duration::from_secs(10);

/// Every seat leaves the table (a table another seat closed counts as left) and is
/// free to queue again.
async fn release(seats: Vec<Seated>, table_id: &str, stats: &Stats) {
    for seat in &seats {
        if let Err(status) = play::leave(&seat.clients, seat.game, table_id, stats).await {
            stats.record_error(&status);
        }
    }
    for seat in seats {
        let _ = seat.done.send(());
    }
}

/// A seat handed to the collector: which table, which seat, whose clients.
struct Seated {
    game: GameType,
    table_id: String,
    seat: i32,
    seats_at_table: usize,
    clients: Clients,
    done: tokio::sync::oneshot::Sender<()>,
}

/// Runs the load against `endpoints` and returns the report (process costs and
/// baselines are added by [`run_spawned`]); settlements are counted from the game
/// services' `metrics_urls` (none: not counted).
pub async fn run(
    endpoints: &Endpoints,
    config: &CommonConfig,
    options: &LoadOptions,
    warm_up: Duration,
    metrics_urls: &[String],
) -> anyhow::Result<(Report, Arc<AtomicBool>)> {
    let stats = Arc::new(Stats::default());
    let stop = Arc::new(AtomicBool::new(false));
    let run_id = &uuid::Uuid::new_v4().simple().to_string()[..6];
    let (seat_tx, mut seat_rx) = mpsc::unbounded_channel::<Seated>();

    // The players.
    let (gomoku_tables, doudizhu_tables) = match options.games {
        Games::Gomoku => (options.tables, 0),
        Games::Doudizhu => (0, options.tables),
        Games::Both => (options.tables / 2, options.tables - options.tables / 2),
    };
    let ttl = Duration::from_secs(6 * 3600);
    let mut players = Vec::new();
    for (game, tables, seats, room) in [
        (GameType::Gomoku, gomoku_tables, 2, &options.gomoku_room),
        (
            GameType::Doudizhu,
            doudizhu_tables,
            3,
            &options.doudizhu_room,
        ),
    ] {
        for i in 0..tables * seats {
            let name = format!(
                "lg{run_id}-{}-{i}",
                if game == GameType::Gomoku { "g" } else { "d" }
            );
            let token = TokenSource::Static(gamehub_drive::token::mint(
                config,
                &name,
                Role::Player,
                ttl,
            )?);
            players.push((game, seats, room.clone(), Clients::new(endpoints, token)?));
        }
    }
    for (game, seats, room, clients) in players {
        let tx = seat_tx.clone();
        let stats = stats.clone();
        let stop = stop.clone();
        tokio::spawn(async move {
            while !stop.load(Ordering::Relaxed) {
                let started = Instant::now();
                let seat = match play::queue(&clients, &room, &stats).await {
                    Ok(seat) => seat,
                    Err(status) => {
                        stats.record_error(&status);
                        tokio::time::sleep(Duration::from_millis(200)).await;
                        continue;
                    }
                };
                if stats.measuring.load(Ordering::Relaxed) {
                    stats.seated.fetch_add(1, Ordering::Relaxed);
                    push(&stats.seat_latency_us, started.elapsed());
                }
                let (done_tx, done_rx) = tokio::sync::oneshot::channel();
                let seated = Seated {
                    game,
                    table_id: seat.table_id,
                    seat: seat.seat,
                    seats_at_table: seats,
                    clients: clients.clone(),
                    done: done_tx,
                };
                if tx.send(seated).is_err() {
                    return;
                }
                let _ = done_rx.await;
            }
        });
    }
    drop(seat_tx);

    // The collector: a table starts once all its seats arrived. Seats whose table
    // mates do not all come within SEAT_WAIT (a seat lost to a restart, a table gone)
    // leave it and queue again, rather than wait for ever.
    let collector_stats = stats.clone();
    let collector_stop = stop.clone();
    tokio::spawn(async move {
        let mut waiting: HashMap<String, (Instant, Vec<Seated>)> = HashMap::new();
        loop {
            let seated = match tokio::time::timeout(Duration::from_secs(1), seat_rx.recv()).await {
                Ok(Some(seated)) => Some(seated),
                Ok(None) => return,
                Err(_) => None,
            };
            if let Some(seated) = seated {
                let table_id = seated.table_id.clone();
                let full = {
                    let (_, at) = waiting
                        .entry(table_id.clone())
                        .or_insert_with(|| (Instant::now(), Vec::new()));
                    at.push(seated);
                    at.len() == at[0].seats_at_table
                };
                if full && let Some((_, mut seats)) = waiting.remove(&table_id) {
                    seats.sort_by_key(|s| s.seat);
                    let stats = collector_stats.clone();
                    let stop = collector_stop.clone();
                    tokio::spawn(async move {
                        let clients: Vec<Clients> =
                            seats.iter().map(|s| s.clients.clone()).collect();
                        let result = match seats[0].game {
                            GameType::Gomoku => {
                                play::gomoku(&clients, &table_id, &stats, &stop).await
                            }
                            _ => play::doudizhu(&clients, &table_id, &stats, &stop).await,
                        };
                        if let Err(status) = &result {
                            stats.record_error(status);
                            stats.abandoned.fetch_add(1, Ordering::Relaxed);
                        }
                        release(seats, &table_id, &stats).await;
                    });
                }
            }
            let stale: Vec<String> = waiting
                .iter()
                .filter(|(_, (since, _))| since.elapsed() >= SEAT_WAIT)
                .map(|(table_id, _)| table_id.clone())
                .collect();
            for table_id in stale {
                if let Some((_, seats)) = waiting.remove(&table_id) {
                    collector_stats.abandoned.fetch_add(1, Ordering::Relaxed);
                    let stats = collector_stats.clone();
                    tokio::spawn(async move { release(seats, &table_id, &stats).await });
                }
            }
        }
    });

    // Warm up, then measure.
    let mut report = Report {
        tables: options.tables,
        ..Report::default()
    };
    tokio::time::sleep(warm_up).await;
    stats.measuring.store(true, Ordering::Relaxed);
    let settled_before = spawn::settlements_acknowledged(metrics_urls).await;
    let measure_start = Instant::now();
    let mut last = (0u64, 0u64);
    while measure_start.elapsed() < options.duration
        && !options
            .end_early
            .as_ref()
            .is_some_and(|end| end.load(Ordering::Relaxed))
    {
        tokio::time::sleep(Duration::from_secs(1)).await;
        let moves = stats.moves.load(Ordering::Relaxed);
        report.moves_per_second_series.push(moves - last.0);
        if options.progress {
            let games = stats.games.load(Ordering::Relaxed);
            let errors: u64 = stats
                .errors
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .values()
                .sum();
            eprintln!(
                "  {:>4.0} s  moves/s {:>7}  games/s {:>5}  seated {:>7}  errors {:>5}",
                measure_start.elapsed().as_secs_f64(),
                moves - last.0,
                games - last.1,
                stats.seated.load(Ordering::Relaxed),
                errors
            );
            last.1 = games;
        }
        last.0 = moves;
    }
    stats.measuring.store(false, Ordering::Relaxed);
    let seconds = measure_start.elapsed().as_secs_f64();
    let settled_after = spawn::settlements_acknowledged(metrics_urls).await;
    stop.store(true, Ordering::Relaxed);

    report.seconds = seconds;
    report.moves_per_second = stats.moves.load(Ordering::Relaxed) as f64 / seconds;
    report.games_per_second = stats.games.load(Ordering::Relaxed) as f64 / seconds;
    report.seated_per_second = stats.seated.load(Ordering::Relaxed) as f64 / seconds;
    if let (Some(before), Some(after)) = (settled_before, settled_after) {
        report.settlements_per_second = (after - before) / seconds;
    }
    let mut moves = std::mem::take(
        &mut *stats
            .move_latency_us
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner),
    );
    let mut seats = std::mem::take(
        &mut *stats
            .seat_latency_us
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner),
    );
    moves.sort_unstable();
    seats.sort_unstable();
    report.move_p50_ms = quantile_ms(&moves, 0.50);
    report.move_p99_ms = quantile_ms(&moves, 0.99);
    report.seat_p50_ms = quantile_ms(&seats, 0.50);
    report.seat_p99_ms = quantile_ms(&seats, 0.99);
    let taken = |map: &Mutex<BTreeMap<String, u64>>| {
        map.lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    };
    report.errors = taken(&stats.errors);
    report.error_samples = stats
        .error_samples
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .clone();
    report.retries = taken(&stats.retries);
    report.refusals = taken(&stats.refusals);
    report.abandoned_tables = stats.abandoned.load(Ordering::Relaxed);
    Ok((report, stop))
}
