//! `gamehub-loadgen referee`: N concurrent tables of random legal games played through
//! a running Gomoku referee's gRPC API as real clients would (a service token opens
//! each table, player tokens play), reporting moves per second, latency percentiles and
//! errors by status; then the EVAL throughput of the same Redis measured with
//! `redis-benchmark`, so the figure can be read against what Redis itself can do on the
//! machine.
//!
//! Each table plays its games to the end and starts the next one (both players call
//! NextGame), so the number of live tables stays at N. Stones go within two points of
//! the stones already on the board ([`RandomGomoku`]), which makes games of realistic
//! length (a few dozen stones).

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;
use std::time::{Duration, Instant};

use gamehub_platform::auth::{Keys, Role};
use gamehub_platform::client::{OutgoingInterceptor, ServiceChannel, TokenSource};
use gamehub_platform::config::CommonConfig;
use gamehub_proto::common::RoomStakes;
use gamehub_proto::gomoku as pb;
use gamehub_proto::gomoku::gomoku_service_client::GomokuServiceClient;
use gomoku_rules::Action;
use rand::Rng;
use rand::SeedableRng;
use rand::rngs::StdRng;
use tonic::service::interceptor::InterceptedService;
use tonic::transport::Channel;

use crate::baseline::{self, quantile_ms};
use crate::players::gomoku::{self as player, RandomGomoku};
use crate::redis_stats::{CommandCosts, CommandStats};

type Client = GomokuServiceClient<ServiceChannel>;

/// `gamehub-loadgen referee` options.
#[derive(Debug, Clone, clap::Args)]
pub struct Args {
    /// Tables played at once.
    #[arg(long, default_value_t = 500)]
    pub tables: usize,
    /// Seconds to play.
    #[arg(long, default_value_t = 30)]
    pub duration: u64,
    /// The referee's URL; tokens are minted with GAMEHUB_JWT_SECRET.
    #[arg(long, default_value = "http://127.0.0.1:50052")]
    pub addr: String,
    /// Rule set: freestyle, renju-lose (or renju), renju-refuse, renju-claim, renju-swap.
    #[arg(long, default_value = "freestyle")]
    pub rules: String,
    /// Ask for whole answers: each stone's answer carries every stone of the game, as
    /// before `PlaceStoneRequest.known_stones` (to measure what leaving them out saves).
    #[arg(long)]
    pub whole_answers: bool,
    /// HTTP/2 connections shared by the clients.
    #[arg(long, default_value_t = 4)]
    pub connections: usize,
    /// Offered calls per second over all tables (open loop: each table acts at
    /// `rate / tables` per second, so latency is the service time at that load);
    /// 0 = as fast as answered (a closed loop: each table waits only for its previous
    /// answer, so latency then includes all the queueing).
    #[arg(long, default_value_t = 0.0)]
    pub rate: f64,
    /// Requests redis-benchmark makes (0 skips it); it uses REDIS_URL.
    #[arg(long, default_value_t = baseline::REDIS_EVAL_REQUESTS)]
    pub redis_benchmark_requests: u64,
    /// Seconds of the gRPC floor after the play (0 skips it): as many callers as
    /// tables, on the same connections, each calling the referee's
    /// `grpc.health.v1.Health/Check` as fast as answered. That call goes through the
    /// same server stack with nothing to do, so moves/s ÷ checks/s is the share of a
    /// bare gRPC call's throughput a move reaches.
    #[arg(long, default_value_t = 5)]
    pub grpc_floor_secs: u64,
}

/// What a run measured.
#[derive(Debug, Clone, Default)]
pub struct Report {
    /// Tables played at once.
    pub tables: usize,
    /// Offered calls per second (0: closed loop, as fast as answered).
    pub offered_rate: f64,
    /// Wall time of the playing phase.
    pub elapsed: Duration,
    /// Stones placed (successful PlaceStone calls).
    pub moves: u64,
    /// Other successful calls (OpenTable, NextGame).
    pub other_calls: u64,
    /// Games played to the end.
    pub games: u64,
    /// PlaceStone latency percentiles, ms.
    pub p50_ms: f64,
    /// 99th percentile, ms.
    pub p99_ms: f64,
    /// Slowest, ms.
    pub max_ms: f64,
    /// Failed calls by gRPC status code.
    pub errors: BTreeMap<String, u64>,
    /// `redis-benchmark` EVAL requests per second on the same Redis, when measured.
    pub redis_eval_per_second: Option<f64>,
    /// The exact `redis-benchmark` command, when run.
    pub redis_benchmark_command: Option<String>,
    /// Health checks per second through the same connections (the gRPC floor), when
    /// measured.
    pub grpc_checks_per_second: Option<f64>,
    /// What Redis's commands cost during the load (`INFO commandstats`), when read.
    pub redis_commands: Option<CommandCosts>,
}

impl Report {
    /// Stones placed per second.
    pub fn moves_per_second(&self) -> f64 {
        self.moves as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let offered = if self.offered_rate > 0.0 {
            format!("offered {:.0} calls/s (open loop)", self.offered_rate)
        } else {
            "closed loop".to_owned()
        };
        writeln!(f, "{offered}")?;
        writeln!(
            f,
            "tables {}  elapsed {:.1} s  moves {}  games finished {}  other calls {}",
            self.tables,
            self.elapsed.as_secs_f64(),
            self.moves,
            self.games,
            self.other_calls
        )?;
        writeln!(
            f,
            "moves/s {:.0}  PlaceStone latency p50 {:.2} ms  p99 {:.2} ms  max {:.2} ms",
            self.moves_per_second(),
            self.p50_ms,
            self.p99_ms,
            self.max_ms
        )?;
        if self.errors.is_empty() {
            writeln!(f, "errors: none")?;
        } else {
            let list: Vec<String> = self
                .errors
                .iter()
                .map(|(k, v)| format!("{k} {v}"))
                .collect();
            writeln!(f, "errors: {}", list.join(", "))?;
        }
        if let Some(checks) = self.grpc_checks_per_second {
            writeln!(
                f,
                "gRPC floor (Health/Check, same callers and connections) checks/s {checks:.0}"
            )?;
            writeln!(
                f,
                "moves/s ÷ checks/s = {:.3}",
                self.moves_per_second() / checks.max(1e-9)
            )?;
        }
        if let (Some(eval), Some(command)) =
            (self.redis_eval_per_second, &self.redis_benchmark_command)
        {
            writeln!(f, "redis-benchmark EVAL/s {eval:.0}  ({command})")?;
            writeln!(
                f,
                "moves/s ÷ EVAL/s = {:.3}",
                self.moves_per_second() / eval.max(1e-9)
            )?;
        }
        if let Some(commands) = &self.redis_commands {
            let calls = (self.moves + self.other_calls) as f64;
            let calls_per_second = calls / self.elapsed.as_secs_f64().max(1e-9);
            write!(f, "{}", commands.render(calls_per_second, 12))?;
        }
        Ok(())
    }
}

/// What one table's driver measured.
#[derive(Default)]
struct TableTally {
    moves: u64,
    other_calls: u64,
    games: u64,
    latencies_us: Vec<u32>,
    errors: BTreeMap<String, u64>,
}

impl TableTally {
    fn error(&mut self, status: &tonic::Status) {
        *self
            .errors
            .entry(format!("{:?}", status.code()))
            .or_default() += 1;
    }
}

fn client(channel: &Channel, keys: &Keys, subject: &str, role: Role) -> anyhow::Result<Client> {
    let token = keys
        .mint(subject, role, Duration::from_secs(24 * 3600))
        .map_err(|e| anyhow::anyhow!("cannot mint a token: {e}"))?;
    Ok(GomokuServiceClient::new(InterceptedService::new(
        channel.clone(),
        OutgoingInterceptor::new(TokenSource::Static(token)),
    )))
}

/// Plays `args.tables` tables for `args.duration` seconds, then benchmarks the Redis of
/// `config` (the deployment's settings: its signing key and `REDIS_URL`).
pub async fn run(args: &Args, config: &CommonConfig) -> anyhow::Result<Report> {
    let rule_set = gomoku_rules::RuleSet::parse(&args.rules)
        .ok_or_else(|| anyhow::anyhow!("unknown rule set {:?}", args.rules))?;
    let rule_set = gamehub_gomoku_referee::view::rule_set(rule_set);
    let keys = config.keys.clone();
    let mut channels = Vec::new();
    for _ in 0..args.connections.max(1) {
        let channel = tonic::transport::Endpoint::from_shared(args.addr.clone())?
            .tcp_nodelay(true)
            .connect()
            .await?;
        channels.push(channel);
    }
    let run_id = uuid::Uuid::new_v4().simple().to_string();
    let run_id = Arc::<str>::from(&run_id[..8]);
    let commands_before = CommandStats::read(&config.redis)
        .await
        .inspect_err(|e| tracing::warn!(error = %e, "INFO commandstats could not be read"))
        .ok();
    let deadline = Instant::now() + Duration::from_secs(args.duration);
    let started = Instant::now();
    let mut tasks = Vec::new();
    for i in 0..args.tables {
        let channel = channels[i % channels.len()].clone();
        let service = client(
            &channel,
            &keys,
            gamehub_platform::auth::MATCHMAKING_SUBJECT,
            Role::Service,
        )?;
        let a = format!("lg{run_id}-{i}-a");
        let b = format!("lg{run_id}-{i}-b");
        let players = [
            client(&channel, &keys, &a, Role::Player)?,
            client(&channel, &keys, &b, Role::Player)?,
        ];
        let table = TableDriver {
            service,
            players,
            player_ids: [a, b],
            request_id: format!("lg{run_id}-{i}"),
            rule_set,
            player: RandomGomoku::new(rule_set, 2, i as u64)
                .ok_or_else(|| anyhow::anyhow!("no rule set"))?,
            rng: StdRng::seed_from_u64(i as u64),
            deadline,
            tally: TableTally::default(),
            counter: 0,
            whole_answers: args.whole_answers,
            pace: (args.rate > 0.0)
                .then(|| Duration::from_secs_f64(args.tables as f64 / args.rate)),
        };
        tasks.push(tokio::spawn(table.play()));
    }
    let mut report = Report {
        tables: args.tables,
        offered_rate: args.rate,
        ..Report::default()
    };
    let mut latencies: Vec<u32> = Vec::new();
    for task in tasks {
        let tally = task.await?;
        report.moves += tally.moves;
        report.other_calls += tally.other_calls;
        report.games += tally.games;
        latencies.extend(tally.latencies_us);
        for (code, n) in tally.errors {
            *report.errors.entry(code).or_default() += n;
        }
    }
    report.elapsed = started.elapsed();
    if let (Some(before), Ok(after)) = (&commands_before, CommandStats::read(&config.redis).await) {
        report.redis_commands = Some(before.since(&after, report.elapsed.as_secs_f64()));
    }
    latencies.sort_unstable();
    report.p50_ms = quantile_ms(&latencies, 0.50);
    report.p99_ms = quantile_ms(&latencies, 0.99);
    report.max_ms = quantile_ms(&latencies, 1.0);
    if args.grpc_floor_secs > 0 {
        let floor = Duration::from_secs(args.grpc_floor_secs);
        report.grpc_checks_per_second = Some(grpc_floor(&channels, args.tables, floor).await?);
    }
    if args.redis_benchmark_requests > 0 {
        match baseline::redis_eval(&config.redis, args.redis_benchmark_requests).await {
            Ok(eval) => {
                report.redis_eval_per_second = Some(eval.per_second);
                report.redis_benchmark_command = Some(eval.command);
            }
            Err(e) => tracing::warn!(error = %e, "redis-benchmark did not run"),
        }
    }
    Ok(report)
}

/// Health checks per second that `callers` closed-loop callers get through `channels`
/// in `duration`; an error fails the measurement.
async fn grpc_floor(
    channels: &[Channel],
    callers: usize,
    duration: Duration,
) -> anyhow::Result<f64> {
    use tonic_health::pb::HealthCheckRequest;
    use tonic_health::pb::health_client::HealthClient;
    let started = Instant::now();
    let deadline = started + duration;
    let mut tasks = Vec::new();
    for i in 0..callers.max(1) {
        let mut client = HealthClient::new(channels[i % channels.len()].clone());
        tasks.push(tokio::spawn(async move {
            let mut checks = 0u64;
            while Instant::now() < deadline {
                client
                    .check(HealthCheckRequest {
                        service: String::new(),
                    })
                    .await?;
                checks += 1;
            }
            Ok::<_, tonic::Status>(checks)
        }));
    }
    let mut checks = 0;
    for task in tasks {
        checks += task.await??;
    }
    Ok(checks as f64 / started.elapsed().as_secs_f64().max(1e-9))
}

/// Plays one table until the deadline.
struct TableDriver {
    service: Client,
    players: [Client; 2],
    player_ids: [String; 2],
    request_id: String,
    rule_set: pb::RuleSet,
    /// Every seat's choices.
    player: RandomGomoku,
    /// Where the open loop's ticks start.
    rng: StdRng,
    deadline: Instant,
    tally: TableTally,
    counter: u64,
    /// Time between this table's calls (open loop), if paced.
    pace: Option<Duration>,
    /// Stones ask for whole answers (`--whole-answers`).
    whole_answers: bool,
}

impl TableDriver {
    fn next_request_id(&mut self) -> String {
        self.counter += 1;
        format!("{}-{}", self.request_id, self.counter)
    }

    async fn play(mut self) -> TableTally {
        let opened = self
            .service
            .open_table(pb::OpenTableRequest {
                bot_seats: Vec::new(),
                friends_table: false,
                profiles: Vec::new(),
                request_id: self.request_id.clone(),
                stakes: Some(RoomStakes {
                    room_id: "loadgen".into(),
                    points_base: 1,
                    silver_per_point: 0,
                    min_balance_silver: 0,
                    rated: false,
                }),
                rule_set: self.rule_set as i32,
                time_control: Some(pb::TimeControl {
                    per_move_ms: 600_000,
                    total_ms: 0,
                }),
                player_ids: self.player_ids.to_vec(),
                first_black_seat: 0,
                designated_opening: String::new(),
                paired_games: false,
            })
            .await;
        let mut table = match opened {
            Ok(response) => {
                self.tally.other_calls += 1;
                match response.into_inner().table {
                    Some(table) => table,
                    None => return self.tally,
                }
            }
            Err(status) => {
                self.tally.error(&status);
                return self.tally;
            }
        };
        let table_id = table.table_id.clone();
        let mut failures = 0;
        let mut ticker = self.pace.map(|pace| {
            // Tables start at random offsets so their calls spread evenly.
            let offset = pace.mul_f64(self.rng.random_range(0.0..1.0));
            let mut ticker = tokio::time::interval_at(tokio::time::Instant::now() + offset, pace);
            ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Burst);
            ticker
        });
        while Instant::now() < self.deadline && failures < 100 {
            if let Some(ticker) = ticker.as_mut() {
                ticker.tick().await;
            }
            let next = self.step(&table_id, &table).await;
            match next {
                Some(t) => {
                    table = t;
                    failures = 0;
                }
                None => {
                    failures += 1;
                    // Re-read the table after a refusal.
                    let mut service = self.service.clone();
                    match service
                        .get_table(pb::GetTableRequest {
                            table_id: table_id.clone(),
                        })
                        .await
                    {
                        Ok(r) => {
                            if let Some(t) = r.into_inner().table {
                                table = t;
                            }
                        }
                        Err(status) => self.tally.error(&status),
                    }
                }
            }
        }
        self.tally
    }

    /// One call for whoever must act; the table after it, or None after an error.
    async fn step(&mut self, table_id: &str, table: &pb::Table) -> Option<pb::Table> {
        let game = table.game.as_ref()?;
        if table.status == pb::TableStatus::BetweenGames as i32 {
            let mut last = None;
            for seat in 0..2 {
                if table.players.get(seat).is_some_and(|p| p.wants_next_game) {
                    continue;
                }
                let request_id = self.next_request_id();
                match self.players[seat]
                    .next_game(pb::NextGameRequest {
                        table_id: table_id.to_owned(),
                        request_id,
                    })
                    .await
                {
                    Ok(r) => {
                        self.tally.other_calls += 1;
                        last = r.into_inner().table;
                    }
                    Err(status) => {
                        self.tally.error(&status);
                        return None;
                    }
                }
            }
            return last;
        }
        if table.status != pb::TableStatus::Playing as i32 {
            return None;
        }
        let turn = self.player.next(game)?;
        let seat = usize::from(turn.seat.number()).min(1);
        let request_id = self.next_request_id();
        let started = Instant::now();
        let held = (!self.whole_answers).then_some(table);
        let result = player::send(&mut self.players[seat], table_id, request_id, turn, held).await;
        if result.is_ok() {
            self.player.accepted(turn);
            if matches!(turn.action, Action::Place(_)) {
                let us = started.elapsed().as_micros();
                self.tally
                    .latencies_us
                    .push(u32::try_from(us).unwrap_or(u32::MAX));
                self.tally.moves += 1;
            }
        }
        match result {
            Ok(Some(next)) => {
                if next.status == pb::TableStatus::BetweenGames as i32
                    && table.status == pb::TableStatus::Playing as i32
                {
                    self.tally.games += 1;
                }
                Some(next)
            }
            Ok(None) => None,
            Err(status) => {
                self.tally.error(&status);
                None
            }
        }
    }
}
