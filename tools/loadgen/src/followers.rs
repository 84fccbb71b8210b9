//! `gamehub-loadgen followers`: what a connected player costs in memory. N players, each
//! on its own connection (TLS when the URL is `https://`, trusting `GAMEHUB_TLS_CA`),
//! each following one of T Gomoku tables with `Watch`, as a spectator in a portal's
//! lobby follows a game. The URL is the referee's own or the players' front door
//! (docs/front-door.md), so the same run measures either way in.
//!
//! The resident memory (VmRSS) of every process whose name is given with `--process`
//! (all of its processes summed: nginx's master and workers) is read from `/proc` once
//! the tables are open and again once every player follows; the difference divided by N
//! is the memory per connected player. While they follow, the tables' own players place
//! stones (`--moves-per-second` over all tables), so every stream carries events, and
//! the run counts the events the followers received.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use gamehub_platform::auth::{Keys, MATCHMAKING_SUBJECT, Role};
use gamehub_platform::client::{OutgoingInterceptor, ServiceChannel, TokenSource};
use gamehub_platform::config::CommonConfig;
use gamehub_platform::tls::ClientTlsFiles;
use gamehub_proto::common::RoomStakes;
use gamehub_proto::gomoku as pb;
use gamehub_proto::gomoku::gomoku_service_client::GomokuServiceClient;
use tokio::sync::Semaphore;
use tonic::service::interceptor::InterceptedService;
use tonic::transport::{Channel, Endpoint};

use crate::players::gomoku::{RandomGomoku, send};

type Client = GomokuServiceClient<ServiceChannel>;

/// The most players one run connects (each holds a socket here and one or two at the
/// other end).
const MAX_PLAYERS: usize = 50_000;

/// The most tables one run opens.
const MAX_TABLES: usize = 10_000;

/// How long a follower may take to connect and get its stream's answer.
const OPEN_TIMEOUT: Duration = Duration::from_secs(60);

/// `gamehub-loadgen followers` options.
#[derive(Debug, Clone, clap::Args)]
pub struct Args {
    /// Connected players, each on its own connection, each following a table.
    #[arg(long, default_value_t = 10_000)]
    pub players: usize,
    /// Gomoku tables the players follow (players are spread evenly; a table takes 56
    /// spectators by default, GAMEHUB_GOMOKU_MAX_WATCHERS_PER_TABLE).
    #[arg(long, default_value_t = 250)]
    pub tables: usize,
    /// Where players connect: the referee's URL or the front door's.
    #[arg(long, default_value = "https://127.0.0.1:8443")]
    pub url: String,
    /// Process names (as in /proc/PID/comm) whose memory is measured, each summed over
    /// all its processes: e.g. `--process nginx --process gamehub`.
    #[arg(long = "process")]
    pub processes: Vec<String>,
    /// Connections opened at once while connecting.
    #[arg(long, default_value_t = 200)]
    pub connect_concurrency: usize,
    /// Seconds every player keeps following once all follow.
    #[arg(long, default_value_t = 10)]
    pub hold_secs: u64,
    /// Stones placed per second over all tables while the players follow.
    #[arg(long, default_value_t = 20.0)]
    pub moves_per_second: f64,
}

/// The resident memory of each measured process name, in KiB.
pub type Memory = BTreeMap<String, (u64, usize)>;

/// What a run measured.
#[derive(Debug, Default)]
pub struct Report {
    /// Players asked for.
    pub players: usize,
    /// Players that followed their table to the end of the hold.
    pub following: usize,
    /// Tables followed.
    pub tables: usize,
    /// Where the players connected.
    pub url: String,
    /// Seconds until every player followed (or failed).
    pub connect_secs: f64,
    /// Each measured process name's RSS (KiB) and process count, tables open.
    pub before: Memory,
    /// The same, every player following.
    pub after: Memory,
    /// Events the followers received while holding.
    pub events_received: u64,
    /// Stones placed while holding.
    pub moves: u64,
    /// Failures by gRPC code or by the follower's error.
    pub errors: BTreeMap<String, u64>,
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "followers: {} of {} players following {} tables through {} (connected in {:.1} s)",
            self.following, self.players, self.tables, self.url, self.connect_secs
        )?;
        writeln!(
            f,
            "events received by the followers while holding: {} ({} stones placed)",
            self.events_received, self.moves
        )?;
        let mut total = 0i64;
        for (name, (after_kib, processes)) in &self.after {
            let before_kib = self.before.get(name).map_or(0, |(kib, _)| *kib);
            let grown = *after_kib as i64 - before_kib as i64;
            total += grown;
            writeln!(
                f,
                "  {name:<28} {processes} process(es): RSS {:.1} → {:.1} MiB, {:+.1} KB per player",
                before_kib as f64 / 1024.0,
                *after_kib as f64 / 1024.0,
                per_player_kb(grown, self.following)
            )?;
        }
        writeln!(
            f,
            "memory per connected player, the measured processes together: {:.1} KB",
            per_player_kb(total, self.following)
        )?;
        if self.errors.is_empty() {
            writeln!(f, "errors: none")
        } else {
            writeln!(f, "errors: {:?}", self.errors)
        }
    }
}

fn per_player_kb(grown_kib: i64, players: usize) -> f64 {
    grown_kib as f64 * 1024.0 / 1000.0 / players.max(1) as f64
}

/// Each named process's summed VmRSS (KiB) and how many processes carry the name.
fn memory(names: &[String]) -> Memory {
    let mut out: Memory = names.iter().map(|n| (n.clone(), (0, 0))).collect();
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return out;
    };
    for entry in dir.flatten() {
        let path = entry.path();
        let Ok(comm) = std::fs::read_to_string(path.join("comm")) else {
            continue;
        };
        let Some(slot) = out.get_mut(comm.trim()) else {
            continue;
        };
        let Ok(status) = std::fs::read_to_string(path.join("status")) else {
            continue;
        };
        let rss = status
            .lines()
            .find_map(|l| l.strip_prefix("VmRSS:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok());
        if let Some(kib) = rss {
            slot.0 += kib;
            slot.1 += 1;
        }
    }
    out
}

async fn connect(url: &str) -> anyhow::Result<Channel> {
    let mut endpoint = Endpoint::from_shared(url.to_owned())?
        .tcp_nodelay(true)
        .connect_timeout(Duration::from_secs(10));
    if url.starts_with("https://") {
        endpoint = endpoint.tls_config(ClientTlsFiles::process().tonic_config()?)?;
    }
    Ok(endpoint.connect().await?)
}

fn client(channel: Channel, keys: &Keys, subject: &str, role: Role) -> anyhow::Result<Client> {
    let token = keys
        .mint(subject, role, Duration::from_secs(24 * 3600))
        .map_err(|e| anyhow::anyhow!("cannot mint a token: {e}"))?;
    Ok(GomokuServiceClient::new(InterceptedService::new(
        channel,
        OutgoingInterceptor::new(TokenSource::Static(token)),
    )))
}

/// Opens the tables, connects the followers, holds, and measures.
pub async fn run(args: &Args, config: &CommonConfig) -> anyhow::Result<Report> {
    if args.players == 0 || args.players > MAX_PLAYERS || !(1..=MAX_TABLES).contains(&args.tables) {
        anyhow::bail!("--players must be 1..={MAX_PLAYERS} and --tables 1..={MAX_TABLES}");
    }
    let keys = config.keys.clone();
    let run_id = uuid::Uuid::new_v4().simple().to_string();
    let run_id = &run_id[..8];

    // The tables, opened and played over one connection of their own.
    let table_channel = connect(&args.url).await?;
    let service = client(
        table_channel.clone(),
        &keys,
        MATCHMAKING_SUBJECT,
        Role::Service,
    )?;
    let rule_set = gamehub_gomoku_referee::view::rule_set(gomoku_rules::RuleSet::Freestyle);
    let mut tables = Vec::new();
    for i in 0..args.tables {
        let seats = [format!("fl{run_id}-{i}-a"), format!("fl{run_id}-{i}-b")];
        let opened = service
            .clone()
            .open_table(pb::OpenTableRequest {
                request_id: format!("fl{run_id}-{i}"),
                player_ids: seats.to_vec(),
                rule_set: rule_set as i32,
                stakes: Some(RoomStakes {
                    room_id: "loadgen".into(),
                    points_base: 1,
                    ..RoomStakes::default()
                }),
                time_control: Some(pb::TimeControl {
                    per_move_ms: 600_000,
                    total_ms: 0,
                }),
                ..pb::OpenTableRequest::default()
            })
            .await?
            .into_inner()
            .table
            .ok_or_else(|| anyhow::anyhow!("OpenTable answered no table"))?;
        tables.push((opened.table_id.clone(), seats, opened));
    }
    let before = memory(&args.processes);

    // The followers: one connection each, a Watch on table i % T.
    let events = Arc::new(AtomicU64::new(0));
    let settled = Arc::new(AtomicUsize::new(0));
    let gate = Arc::new(Semaphore::new(args.connect_concurrency.max(1)));
    let (stop_tx, stop) = tokio::sync::watch::channel(false);
    let started = Instant::now();
    let mut followers = Vec::with_capacity(args.players);
    for i in 0..args.players {
        let table_id = tables[i % tables.len()].0.clone();
        let (url, keys, gate, events, stop, settled) = (
            args.url.clone(),
            keys.clone(),
            gate.clone(),
            events.clone(),
            stop.clone(),
            settled.clone(),
        );
        followers.push(tokio::spawn(async move {
            let opening = async {
                let _slot = gate.acquire().await?;
                let channel = connect(&url).await?;
                let mut watcher = client(channel.clone(), &keys, &format!("fw{i}"), Role::Player)?;
                let stream = watcher
                    .watch(pb::WatchRequest {
                        table_id,
                        after_event_id: 0,
                    })
                    .await?
                    .into_inner();
                anyhow::Ok((channel, stream))
            };
            let opened = match tokio::time::timeout(OPEN_TIMEOUT, opening).await {
                Ok(opened) => opened,
                Err(_) => Err(anyhow::anyhow!("no stream within {OPEN_TIMEOUT:?}")),
            };
            settled.fetch_add(1, Ordering::Relaxed);
            let (channel, mut stream) = opened?;
            // Following: the snapshot first, then every event, until told to stop.
            let follow = async {
                while let Some(item) = stream.message().await? {
                    if matches!(item.item, Some(pb::watch_response::Item::Event(_))) {
                        events.fetch_add(1, Ordering::Relaxed);
                    }
                }
                anyhow::Ok(())
            };
            let ready = Instant::now();
            let mut stop = stop;
            tokio::select! {
                r = follow => r?,
                _ = stop.changed() => {}
            }
            drop(channel);
            anyhow::Ok(ready)
        }));
    }
    // Every follower connected (or failed).
    while settled.load(Ordering::Relaxed) < args.players {
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let connect_secs = started.elapsed().as_secs_f64();

    // The tables' players move while the followers hold.
    let mut moves = 0u64;
    let mut errors: BTreeMap<String, u64> = BTreeMap::new();
    let pace = Duration::from_secs_f64(1.0 / args.moves_per_second.max(0.1));
    let mut games: Vec<(RandomGomoku, [Client; 2])> = Vec::new();
    for (i, (_, seats, _)) in tables.iter().enumerate() {
        let player = RandomGomoku::new(rule_set, 2, i as u64)
            .ok_or_else(|| anyhow::anyhow!("no rule set"))?;
        let clients = [
            client(table_channel.clone(), &keys, &seats[0], Role::Player)?,
            client(table_channel.clone(), &keys, &seats[1], Role::Player)?,
        ];
        games.push((player, clients));
    }
    let hold_until = Instant::now() + Duration::from_secs(args.hold_secs);
    let mut turn = 0usize;
    let mut measured = false;
    let mut after = Memory::new();
    while Instant::now() < hold_until {
        let t = turn % tables.len();
        turn += 1;
        let (table_id, _, view) = &mut tables[t];
        let (player, clients) = &mut games[t];
        match step(
            player,
            clients,
            table_id,
            view,
            &format!("fl{run_id}-{t}-{turn}"),
        )
        .await
        {
            Ok(Some(table)) => {
                moves += 1;
                *view = table;
            }
            Ok(None) => {}
            Err(status) => *errors.entry(format!("{:?}", status.code())).or_default() += 1,
        }
        if !measured && Instant::now() + Duration::from_secs(args.hold_secs) / 2 > hold_until {
            after = memory(&args.processes);
            measured = true;
        }
        tokio::time::sleep(pace).await;
    }
    if !measured {
        after = memory(&args.processes);
    }
    let _ = stop_tx.send(true);
    let mut following = 0;
    for follower in followers {
        match follower.await? {
            Ok(_) => following += 1,
            Err(e) => {
                *errors
                    .entry(format!("follower: {}", short(&e)))
                    .or_default() += 1
            }
        }
    }
    Ok(Report {
        players: args.players,
        following,
        tables: tables.len(),
        url: args.url.clone(),
        connect_secs,
        before,
        after,
        events_received: events.load(Ordering::Relaxed),
        moves,
        errors,
    })
}

/// One action at a table: the next stone, or both seats asking for the next game once
/// one ended. The table after it, when it changed.
async fn step(
    player: &mut RandomGomoku,
    clients: &mut [Client; 2],
    table_id: &str,
    view: &pb::Table,
    request_id: &str,
) -> Result<Option<pb::Table>, tonic::Status> {
    if view.status == pb::TableStatus::BetweenGames as i32 {
        let mut last = None;
        for (seat, client) in clients.iter_mut().enumerate() {
            last = client
                .next_game(pb::NextGameRequest {
                    table_id: table_id.to_owned(),
                    request_id: format!("{request_id}-{seat}"),
                })
                .await?
                .into_inner()
                .table;
        }
        return Ok(last);
    }
    let Some(turn) = view.game.as_ref().and_then(|game| player.next(game)) else {
        return Ok(None);
    };
    let seat = usize::from(turn.seat.number()).min(1);
    let table = send(
        &mut clients[seat],
        table_id,
        request_id.to_owned(),
        turn,
        Some(view),
    )
    .await?;
    player.accepted(turn);
    Ok(table)
}

/// How a follower's error is tallied: a refusal by its gRPC code, anything else by its
/// first words.
fn short(e: &anyhow::Error) -> String {
    match e.downcast_ref::<tonic::Status>() {
        Some(status) => format!("{:?}", status.code()),
        None => format!("{e:#}").chars().take(60).collect(),
    }
}
