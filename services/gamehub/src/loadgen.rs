//! `gamehub loadgen`: the published load test. Players go the whole path — queue at
//! matchmaking, get seated, play a game or deal to its end, leave, queue again — at a
//! chosen number of concurrent tables, while the report measures moves/s, games
//! settled/s, time from enqueue to seat, move latency, errors by status, and the CPU
//! and memory of each service.
//!
//! Players are generic: a collector groups the seats matchmaking hands out into tables
//! and starts one driver per table that plays every seat of it. Drivers play fast legal
//! moves chosen from what the server returns (a random stone next to the others that
//! the view does not mark forbidden; a random hint), so the load is the platform's, not
//! the bots'. Settlements are counted from the services' own Prometheus counter
//! (`gamehub_settlements_total{result="ok"}`), i.e. acknowledged by the ledger.
//!
//! With `--spawn` it starts the four service binaries (found next to `gamehub`) as
//! separate processes on free ports with a scratch database and key prefix, samples
//! their CPU time and resident memory from `/proc`, and stops them at the end; it also
//! measures the same Redis and PostgreSQL with `redis-benchmark` and `pgbench` in the
//! same run.

use std::collections::{BTreeMap, HashMap};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use gamehub_platform::auth::Role;
use gamehub_platform::baseline::{self, Pgbench, quantile_ms};
use gamehub_platform::client::TokenSource;
use gamehub_platform::config::CommonConfig;
use gamehub_proto::common::GameType;
use gamehub_proto::doudizhu as ddz;
use gamehub_proto::gomoku as gm;
use gamehub_proto::matchmaking as mm;
use rand::Rng;
use rand::seq::IndexedRandom;
use tokio::sync::mpsc;

use crate::api::{Clients, Endpoints, request_id};

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
    measuring: AtomicBool,
}

impl Stats {
    fn record_move(&self, took: Duration) {
        if self.measuring.load(Ordering::Relaxed) {
            self.moves.fetch_add(1, Ordering::Relaxed);
            push(&self.move_latency_us, took);
        }
    }

    fn record_error(&self, status: &tonic::Status) {
        if self.measuring.load(Ordering::Relaxed) {
            let mut errors = self
                .errors
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            *errors.entry(format!("{:?}", status.code())).or_default() += 1;
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
    /// Errors by gRPC code.
    pub errors: BTreeMap<String, u64>,
    /// CPU and memory of each service (spawned mode), and of the load generator.
    pub processes: Vec<ProcessCost>,
    /// `redis-benchmark` EVAL requests/s of the same Redis (spawned mode).
    pub redis_eval_per_second: Option<f64>,
    /// `pgbench` TPC-B transactions/s of the same PostgreSQL (spawned mode).
    pub pgbench_tps: Option<f64>,
}

impl Report {
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
                out.push_str(&format!("  errors {code:<12}{n:>10}\n"));
            }
        }
        if !self.processes.is_empty() {
            out.push_str("\n  process            CPU (% of a core)   RSS\n");
            for p in &self.processes {
                out.push_str(&format!(
                    "  {:<18} {:>8.0} %        {:>6.1} MiB\n",
                    p.name, p.cpu_percent, p.rss_mib
                ));
            }
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
        out
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
/// baselines are added by [`run_spawned`]).
pub async fn run(
    endpoints: &Endpoints,
    config: &CommonConfig,
    options: &LoadOptions,
    warm_up: Duration,
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
            let token = TokenSource::Static(crate::token::mint(config, &name, Role::Player, ttl)?);
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
                let seat = match queue(&clients, &room).await {
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

    // The collector: a table starts once all its seats arrived.
    let collector_stats = stats.clone();
    let collector_stop = stop.clone();
    tokio::spawn(async move {
        let mut waiting: HashMap<String, Vec<Seated>> = HashMap::new();
        while let Some(seated) = seat_rx.recv().await {
            let table_id = seated.table_id.clone();
            let full = {
                let at = waiting.entry(table_id.clone()).or_default();
                at.push(seated);
                at.len() == at[0].seats_at_table
            };
            if full && let Some(mut seats) = waiting.remove(&table_id) {
                seats.sort_by_key(|s| s.seat);
                let stats = collector_stats.clone();
                let stop = collector_stop.clone();
                tokio::spawn(async move {
                    let clients: Vec<Clients> = seats.iter().map(|s| s.clients.clone()).collect();
                    let result = match seats[0].game {
                        GameType::Gomoku => play_gomoku(&clients, &table_id, &stats, &stop).await,
                        _ => play_doudizhu(&clients, &table_id, &stats, &stop).await,
                    };
                    if let Err(status) = result {
                        stats.record_error(&status);
                    }
                    // Everyone leaves; a table closed by the first leaver is fine.
                    for c in &clients {
                        let _ = leave(c, seats[0].game, &table_id).await;
                    }
                    for seat in seats {
                        let _ = seat.done.send(());
                    }
                });
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
    let settled_before = settlements_acknowledged(endpoints_metrics()).await;
    let measure_start = Instant::now();
    let mut last = (0u64, 0u64);
    while measure_start.elapsed() < options.duration {
        tokio::time::sleep(Duration::from_secs(1)).await;
        if options.progress {
            let moves = stats.moves.load(Ordering::Relaxed);
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
            last = (moves, games);
        }
    }
    stats.measuring.store(false, Ordering::Relaxed);
    let seconds = measure_start.elapsed().as_secs_f64();
    let settled_after = settlements_acknowledged(endpoints_metrics()).await;
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
    report.errors = stats
        .errors
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .clone();
    Ok((report, stop))
}

/// Metrics endpoints of the game services, when known (set by [`run_spawned`]).
static METRICS_URLS: Mutex<Vec<String>> = Mutex::new(Vec::new());

fn endpoints_metrics() -> Vec<String> {
    METRICS_URLS
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .clone()
}

/// Sum of `gamehub_settlements_total{result="ok"}` over the given /metrics URLs.
async fn settlements_acknowledged(urls: Vec<String>) -> Option<f64> {
    if urls.is_empty() {
        return None;
    }
    let mut total = 0.0;
    for url in urls {
        let text = http_get(&url).await?;
        for line in text.lines() {
            if line.starts_with("gamehub_settlements_total") && line.contains("result=\"ok\"") {
                total += line
                    .rsplit(' ')
                    .next()
                    .and_then(|v| v.parse::<f64>().ok())
                    .unwrap_or(0.0);
            }
        }
    }
    Some(total)
}

/// The body of a plain `GET http://host:port/path` (the services' metrics endpoint).
async fn http_get(url: &str) -> Option<String> {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let rest = url.strip_prefix("http://")?;
    let (host, path) = rest
        .split_once('/')
        .map_or((rest, "/".to_owned()), |(h, p)| (h, format!("/{p}")));
    let mut stream =
        tokio::time::timeout(Duration::from_secs(3), tokio::net::TcpStream::connect(host))
            .await
            .ok()?
            .ok()?;
    stream
        .write_all(format!("GET {path} HTTP/1.0\r\nHost: {host}\r\n\r\n").as_bytes())
        .await
        .ok()?;
    let mut response = Vec::new();
    tokio::time::timeout(Duration::from_secs(3), stream.read_to_end(&mut response))
        .await
        .ok()?
        .ok()?;
    let text = String::from_utf8_lossy(&response).into_owned();
    text.split_once("\r\n\r\n").map(|(_, body)| body.to_owned())
}

/// Enqueues and follows the ticket (server push, as a front-end does) until seated.
async fn queue(clients: &Clients, room: &str) -> Result<mm::Seat, tonic::Status> {
    let mut matchmaking = clients.matchmaking.clone();
    crate::drive::matchmaking::seat(&mut matchmaking, room, "", |_| {})
        .await
        .map_err(|e| match e.downcast::<tonic::Status>() {
            Ok(status) => status,
            Err(other) => tonic::Status::failed_precondition(other.to_string()),
        })
}

async fn leave(clients: &Clients, game: GameType, table_id: &str) -> Result<(), tonic::Status> {
    match game {
        GameType::Gomoku => {
            clients
                .gomoku
                .clone()
                .leave(gm::LeaveRequest {
                    table_id: table_id.to_owned(),
                    request_id: request_id(),
                })
                .await?;
        }
        _ => {
            clients
                .doudizhu
                .clone()
                .leave(ddz::LeaveRequest {
                    table_id: table_id.to_owned(),
                    request_id: request_id(),
                })
                .await?;
        }
    }
    Ok(())
}

/// Plays one Gomoku game: each stone next to the others, never on a point the view
/// marks forbidden; a refused point is simply not tried again.
async fn play_gomoku(
    clients: &[Clients],
    table_id: &str,
    stats: &Stats,
    stop: &AtomicBool,
) -> Result<(), tonic::Status> {
    let mut table = clients[0]
        .gomoku
        .clone()
        .get_table(gm::GetTableRequest {
            table_id: table_id.to_owned(),
        })
        .await?
        .into_inner()
        .table
        .unwrap_or_default();
    let mut refused: Vec<(i32, i32)> = Vec::new();
    for _ in 0..400 {
        if stop.load(Ordering::Relaxed) {
            return Ok(());
        }
        let game = table.game.clone().unwrap_or_default();
        if game.phase() == gm::Phase::Over || table.status() != gm::TableStatus::Playing {
            stats.games.fetch_add(
                u64::from(stats.measuring.load(Ordering::Relaxed)),
                Ordering::Relaxed,
            );
            return Ok(());
        }
        let Some(seat) = game.to_act_seat else {
            return Ok(());
        };
        let Some(point) = pick_point(&game, &refused) else {
            return Ok(());
        };
        let mut client = clients[usize::try_from(seat).unwrap_or(0).min(clients.len() - 1)]
            .gomoku
            .clone();
        let started = Instant::now();
        match client
            .place_stone(gm::PlaceStoneRequest {
                table_id: table_id.to_owned(),
                request_id: request_id(),
                point: Some(gm::Point {
                    text: String::new(),
                    x: point.0,
                    y: point.1,
                }),
            })
            .await
        {
            Ok(response) => {
                stats.record_move(started.elapsed());
                refused.clear();
                table = response.into_inner().table.unwrap_or_default();
            }
            Err(status) if status.code() == tonic::Code::FailedPrecondition => {
                refused.push(point);
                table = client
                    .get_table(gm::GetTableRequest {
                        table_id: table_id.to_owned(),
                    })
                    .await?
                    .into_inner()
                    .table
                    .unwrap_or_default();
            }
            Err(status) => return Err(status),
        }
    }
    Ok(())
}

/// A random empty point next to a stone (h8 first), avoiding forbidden and refused points.
fn pick_point(game: &gm::Game, refused: &[(i32, i32)]) -> Option<(i32, i32)> {
    let mut taken = [[false; 15]; 15];
    for stone in &game.stones {
        if let Some(p) = &stone.point
            && (0..15).contains(&p.x)
            && (0..15).contains(&p.y)
        {
            taken[p.y as usize][p.x as usize] = true;
        }
    }
    if game.stones.is_empty() {
        return Some((7, 7));
    }
    let forbidden: Vec<(i32, i32)> = if game.to_move() == gm::Color::Black {
        game.forbidden_points
            .iter()
            .filter_map(|f| f.point.as_ref().map(|p| (p.x, p.y)))
            .collect()
    } else {
        Vec::new()
    };
    let mut candidates = Vec::new();
    for y in 0..15i32 {
        for x in 0..15i32 {
            if taken[y as usize][x as usize]
                || forbidden.contains(&(x, y))
                || refused.contains(&(x, y))
            {
                continue;
            }
            let near = (-1..=1).any(|dy: i32| {
                (-1..=1).any(|dx: i32| {
                    let (nx, ny) = (x + dx, y + dy);
                    (0..15).contains(&nx)
                        && (0..15).contains(&ny)
                        && taken[ny as usize][nx as usize]
                })
            });
            if near {
                candidates.push((x, y));
            }
        }
    }
    if candidates.is_empty() {
        for y in 0..15i32 {
            for x in 0..15i32 {
                if !taken[y as usize][x as usize] && !refused.contains(&(x, y)) {
                    candidates.push((x, y));
                }
            }
        }
    }
    candidates.choose(&mut rand::rng()).copied()
}

/// Plays one Dou Dizhu deal: the first bidder bids 3; each turn plays a random legal
/// play from the server's hint, or passes half the time when it may.
async fn play_doudizhu(
    clients: &[Clients],
    table_id: &str,
    stats: &Stats,
    stop: &AtomicBool,
) -> Result<(), tonic::Status> {
    let mut table = clients[0]
        .doudizhu
        .clone()
        .get_table(ddz::GetTableRequest {
            table_id: table_id.to_owned(),
            as_spectator: false,
        })
        .await?
        .into_inner()
        .table
        .unwrap_or_default();
    for _ in 0..600 {
        if stop.load(Ordering::Relaxed) {
            return Ok(());
        }
        if table.phase() == ddz::Phase::Finished || table.status() == ddz::TableStatus::BetweenDeals
        {
            stats.games.fetch_add(
                u64::from(stats.measuring.load(Ordering::Relaxed)),
                Ordering::Relaxed,
            );
            return Ok(());
        }
        if table.to_act < 0 || table.status() == ddz::TableStatus::NextDealPending {
            tokio::time::sleep(Duration::from_millis(20)).await;
            table = clients[0]
                .doudizhu
                .clone()
                .get_table(ddz::GetTableRequest {
                    table_id: table_id.to_owned(),
                    as_spectator: false,
                })
                .await?
                .into_inner()
                .table
                .unwrap_or_default();
            continue;
        }
        let mut client = clients[usize::try_from(table.to_act)
            .unwrap_or(0)
            .min(clients.len() - 1)]
        .doudizhu
        .clone();
        let started = Instant::now();
        let response = if table.phase() == ddz::Phase::Bidding {
            client
                .bid(ddz::BidRequest {
                    table_id: table_id.to_owned(),
                    request_id: request_id(),
                    points: 3,
                })
                .await
                .map(|r| r.into_inner().table)
        } else {
            let hint = client
                .hint(ddz::HintRequest {
                    table_id: table_id.to_owned(),
                })
                .await?
                .into_inner();
            let pass = hint.can_pass && (hint.plays.is_empty() || rand::rng().random_bool(0.5));
            if pass {
                client
                    .pass(ddz::PassRequest {
                        table_id: table_id.to_owned(),
                        request_id: request_id(),
                    })
                    .await
                    .map(|r| r.into_inner().table)
            } else {
                let play = hint
                    .plays
                    .choose(&mut rand::rng())
                    .map(|h| h.ranks.clone())
                    .unwrap_or_default();
                client
                    .play(ddz::PlayRequest {
                        table_id: table_id.to_owned(),
                        request_id: request_id(),
                        ranks: play,
                        cards: Vec::new(),
                    })
                    .await
                    .map(|r| r.into_inner().table)
            }
        };
        match response {
            Ok(next) => {
                stats.record_move(started.elapsed());
                table = next.unwrap_or_default();
            }
            Err(status) if status.code() == tonic::Code::FailedPrecondition => {
                // The clock played first (or a race): read the table again.
                table = client
                    .get_table(ddz::GetTableRequest {
                        table_id: table_id.to_owned(),
                        as_spectator: false,
                    })
                    .await?
                    .into_inner()
                    .table
                    .unwrap_or_default();
            }
            Err(status) => return Err(status),
        }
    }
    Ok(())
}

/// A service process started by [`run_spawned`].
struct Spawned {
    name: &'static str,
    child: Child,
}

fn free_port() -> anyhow::Result<SocketAddr> {
    let listener = std::net::TcpListener::bind("127.0.0.1:0")?;
    Ok(listener.local_addr()?)
}

/// CPU ticks (user + system) and RSS (KiB) of a process, from /proc.
fn proc_sample(pid: u32) -> Option<(u64, u64)> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let after = stat.rsplit_once(')')?.1;
    let fields: Vec<&str> = after.split_whitespace().collect();
    let ticks = fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let rss = status
        .lines()
        .find(|l| l.starts_with("VmRSS:"))?
        .split_whitespace()
        .nth(1)?
        .parse::<u64>()
        .ok()?;
    Some((ticks, rss))
}

/// Clock ticks per second of /proc CPU times.
const CLOCK_TICKS: f64 = 100.0;

/// Starts the four services as separate processes (binaries next to this one), runs the
/// load, measures the baselines, and stops them.
pub async fn run_spawned(
    config: &CommonConfig,
    options: &LoadOptions,
    warm_up: Duration,
    postgres_server: &str,
) -> anyhow::Result<Report> {
    let dir: PathBuf = std::env::current_exe()?
        .parent()
        .map(Path::to_path_buf)
        .ok_or_else(|| anyhow::anyhow!("cannot locate the service binaries"))?;
    let id = &uuid::Uuid::new_v4().simple().to_string()[..10];
    let database = format!("loadgen_{id}");
    let addrs: Vec<SocketAddr> = (0..4).map(|_| free_port()).collect::<anyhow::Result<_>>()?;
    let metrics: Vec<SocketAddr> = (0..4).map(|_| free_port()).collect::<anyhow::Result<_>>()?;
    let url = |a: SocketAddr| format!("http://{a}");
    let endpoints = Endpoints {
        matchmaking: url(addrs[0]),
        gomoku: url(addrs[1]),
        doudizhu: url(addrs[2]),
        ledger: url(addrs[3]),
    };
    let common: Vec<(String, String)> = vec![
        (
            "DATABASE_URL".into(),
            format!("{postgres_server}/{database}"),
        ),
        ("REDIS_URL".into(), config.redis_url.expose().to_owned()),
        ("GAMEHUB_REDIS_PREFIX".into(), format!("lg{id}")),
        (
            "GAMEHUB_JWT_SECRET".into(),
            config.jwt_secret.expose().to_owned(),
        ),
        (
            "GAMEHUB_MATCHMAKING_URL".into(),
            endpoints.matchmaking.clone(),
        ),
        ("GAMEHUB_GOMOKU_URL".into(), endpoints.gomoku.clone()),
        ("GAMEHUB_DOUDIZHU_URL".into(), endpoints.doudizhu.clone()),
        ("GAMEHUB_LEDGER_URL".into(), endpoints.ledger.clone()),
        ("GAMEHUB_PLAYER_RATE_PER_SECOND".into(), "0".into()),
        ("RUST_LOG".into(), "warn".into()),
    ];
    let services: [(&'static str, &str, &str, usize); 4] = [
        ("ledger", "gamehub-ledger", "GAMEHUB_LEDGER_ADDR", 3),
        (
            "gomoku-referee",
            "gamehub-gomoku-referee",
            "GAMEHUB_GOMOKU_ADDR",
            1,
        ),
        (
            "doudizhu-dealer",
            "gamehub-doudizhu-dealer",
            "GAMEHUB_DOUDIZHU_ADDR",
            2,
        ),
        (
            "matchmaking",
            "gamehub-matchmaking",
            "GAMEHUB_MATCHMAKING_ADDR",
            0,
        ),
    ];
    let mut spawned: Vec<Spawned> = Vec::new();
    for (name, binary, addr_key, index) in services {
        let child = Command::new(dir.join(binary))
            .arg("serve")
            .envs(common.iter().cloned())
            .env(addr_key, addrs[index].to_string())
            .env("GAMEHUB_METRICS_ADDR", metrics[index].to_string())
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .spawn()
            .map_err(|e| {
                anyhow::anyhow!(
                    "starting {}: {e} (build the release binaries first)",
                    dir.join(binary).display()
                )
            })?;
        spawned.push(Spawned { name, child });
        let target = url(addrs[index]);
        let started = Instant::now();
        while !gamehub_platform::client::check_health(&target, "")
            .await
            .unwrap_or(false)
        {
            if started.elapsed() > Duration::from_secs(60) {
                anyhow::bail!("{name} did not become healthy at {target}");
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
    *METRICS_URLS
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner) = vec![
        format!("http://{}/metrics", metrics[1]),
        format!("http://{}/metrics", metrics[2]),
    ];

    let before: Vec<Option<(u64, u64)>> =
        spawned.iter().map(|s| proc_sample(s.child.id())).collect();
    let own_before = proc_sample(std::process::id());
    let wall = Instant::now();
    let result = run(&endpoints, config, options, warm_up).await;
    let elapsed = wall.elapsed().as_secs_f64();
    let after: Vec<Option<(u64, u64)>> =
        spawned.iter().map(|s| proc_sample(s.child.id())).collect();
    let own_after = proc_sample(std::process::id());

    let cost = |name: &str, before: Option<(u64, u64)>, after: Option<(u64, u64)>| ProcessCost {
        name: name.to_owned(),
        cpu_percent: match (before, after) {
            (Some(b), Some(a)) => (a.0.saturating_sub(b.0)) as f64 / CLOCK_TICKS / elapsed * 100.0,
            _ => 0.0,
        },
        rss_mib: after.map_or(0.0, |a| a.1 as f64 / 1024.0),
    };
    let mut processes: Vec<ProcessCost> = spawned
        .iter()
        .zip(before.iter().zip(&after))
        .map(|(s, (b, a))| cost(s.name, *b, *a))
        .collect();
    processes.push(cost("loadgen (this)", own_before, own_after));

    let (mut report, stop) = match result {
        Ok(ok) => ok,
        Err(e) => {
            stop_all(&mut spawned);
            return Err(e);
        }
    };
    stop.store(true, Ordering::Relaxed);
    tokio::time::sleep(Duration::from_millis(500)).await;
    stop_all(&mut spawned);
    report.processes = processes;
    // The baselines, on the same Redis and PostgreSQL, right after the load.
    report.redis_eval_per_second =
        baseline::redis_eval(config.redis_url.expose(), baseline::REDIS_EVAL_REQUESTS)
            .await
            .inspect_err(|e| tracing::warn!(error = %e, "redis-benchmark did not run"))
            .ok()
            .map(|eval| eval.per_second);
    let pgbench = Pgbench {
        scale: 10,
        clients: 32,
        seconds: 20,
    };
    report.pgbench_tps = pgbench
        .run(postgres_server)
        .await
        .inspect_err(|e| tracing::warn!(error = %e, "pgbench did not run"))
        .ok()
        .map(|measured| measured.tps);
    let _ = Command::new("psql")
        .args([
            &format!("{postgres_server}/postgres"),
            "-qc",
            &format!("DROP DATABASE IF EXISTS {database} WITH (FORCE)"),
        ])
        .output();
    Ok(report)
}

fn stop_all(spawned: &mut [Spawned]) {
    for s in spawned.iter_mut() {
        let _ = Command::new("kill")
            .args(["-TERM", &s.child.id().to_string()])
            .status();
    }
    for s in spawned.iter_mut() {
        let _ = s.child.wait();
    }
}
