//! `gamehub-loadgen matcher`: the matcher alone against the real Redis, with in-process
//! eligibility and table fakes that answer at once ([`InstantLedger`], [`InstantTables`]),
//! so the figures are the matcher's and Redis's own: seated tables per second and the
//! time from enqueue to seat (p50/p99).
//!
//! Enqueuers put tickets in one room through the same two Redis scripts Enqueue uses
//! (the player's reservation, then the room's queue) while the room's matcher loop runs
//! as in production. The run uses a Redis prefix of its own with short lifetimes, so
//! its keys vanish within minutes.

use std::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use anyhow::Context;
use gamehub_matchmaking::MatchmakingConfig;
use gamehub_matchmaking::matcher::Matcher;
use gamehub_matchmaking::peers::{
    BoxFuture, Eligibility, Lineup, OpenedTable, PeerError, TableOpener, TableSeat, Verdict,
};
use gamehub_matchmaking::rooms::{Game, Room};
use gamehub_matchmaking::store::{Reservation, StoreSettings, TicketStore};
use gamehub_matchmaking::tickets::TicketId;
use gamehub_platform::server::Shutdown;
use gamehub_terms::rating::NEW_PLAYER_RATING;

use crate::baseline::quantile;

/// `gamehub-loadgen matcher` options.
#[derive(Debug, Clone, clap::Args)]
pub struct Args {
    /// Tickets to enqueue (and seat).
    #[arg(long, default_value_t = 100_000)]
    pub tickets: usize,
    /// The room to fill (an unrated room seats in queue order; a rated one by rating).
    #[arg(long, default_value = "gomoku-free")]
    pub room: String,
    /// Enqueues per second across all enqueuers; 0 = as fast as they can.
    #[arg(long, default_value_t = 0)]
    pub rate: u64,
    /// Concurrent enqueuers.
    #[arg(long, default_value_t = 64)]
    pub enqueuers: usize,
    /// Tables per matcher round (default: the configured batch).
    #[arg(long)]
    pub batch: Option<usize>,
    /// Enqueue every ticket first, then start the matcher: measures the matcher alone
    /// on a full queue (waits are then counted from the matcher's start).
    #[arg(long)]
    pub prefill: bool,
}

/// The figures of one run.
#[derive(Debug, Clone)]
pub struct BenchReport {
    /// The room.
    pub room: String,
    /// Tickets enqueued.
    pub tickets: usize,
    /// Tables seated.
    pub tables: usize,
    /// From the first enqueue to the last seat.
    pub elapsed: Duration,
    /// How long enqueueing took.
    pub enqueue_elapsed: Duration,
    /// Whether the queue was filled before the matcher started.
    pub prefill: bool,
    /// Enqueue-to-seat times, ms: p50, p99, max.
    pub wait_ms: (u64, u64, u64),
    /// CPU seconds Redis spent while the matcher ran (user + system, from INFO; it
    /// includes other clients of the same Redis, if any).
    pub redis_cpu_seconds: f64,
}

impl BenchReport {
    /// Seated tables per second over the whole run.
    pub fn tables_per_second(&self) -> f64 {
        self.tables as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }
}

impl fmt::Display for BenchReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "matcher: room {} ({})",
            self.room,
            if self.prefill {
                "queue filled first; times from the matcher's start"
            } else {
                "enqueueing while matching"
            }
        )?;
        writeln!(
            f,
            "  tickets {}  tables {}  elapsed {:.2} s (enqueueing {:.2} s, {:.0} tickets/s)",
            self.tickets,
            self.tables,
            self.elapsed.as_secs_f64(),
            self.enqueue_elapsed.as_secs_f64(),
            self.tickets as f64 / self.enqueue_elapsed.as_secs_f64().max(1e-9)
        )?;
        writeln!(
            f,
            "  seated tables/s {:.0}  seated players/s {:.0}",
            self.tables_per_second(),
            self.tables_per_second() * (self.tickets as f64 / self.tables.max(1) as f64)
        )?;
        writeln!(
            f,
            "  enqueue-to-seat ms: p50 {}  p99 {}  max {}",
            self.wait_ms.0, self.wait_ms.1, self.wait_ms.2
        )?;
        let per_table = self.redis_cpu_seconds / self.tables.max(1) as f64;
        write!(
            f,
            "  redis CPU {:.2} s: {:.1} us per table ({:.0} tables/s per Redis core){}",
            self.redis_cpu_seconds,
            per_table * 1e6,
            1.0 / per_table.max(1e-12),
            if self.prefill {
                ""
            } else {
                " (enqueues included)"
            }
        )
    }
}

/// Runs the benchmark against `config`'s Redis.
pub async fn run(args: &Args, config: &MatchmakingConfig) -> anyhow::Result<BenchReport> {
    let room = config
        .rooms
        .get(&args.room)
        .cloned()
        .with_context(|| format!("unknown room {:?}", args.room))?;
    let seats = room.seats();
    let tickets = args.tickets - args.tickets % seats;
    anyhow::ensure!(tickets > 0, "--tickets must be at least {seats}");

    let redis = gamehub_platform::redis_conn::connect(&config.common.redis)
        .await
        .context("cannot reach Redis at REDIS_URL")?;
    let prefix = format!("bench-{}", uuid::Uuid::new_v4().simple());
    let store = TicketStore::new(
        redis,
        &prefix,
        StoreSettings {
            ticket_ttl: Duration::from_secs(600),
            retention: Duration::from_secs(60),
            seat_ttl: Duration::from_secs(60),
            max_queue: u64::try_from(tickets).unwrap_or(u64::MAX),
            ..config.store.clone()
        },
        config.common.clock.clone(),
    );
    let mut settings = config.matcher.clone();
    if let Some(batch) = args.batch {
        settings.batch_tables = batch.clamp(1, 1024);
    }
    let tables = Arc::new(InstantTables::default());
    let matcher = Matcher::new(
        store.clone(),
        config.rooms.clone(),
        Arc::new(InstantLedger),
        Arc::clone(&tables) as Arc<dyn TableOpener>,
        settings,
    );
    let shutdown = Shutdown::new();
    let mut loops = if args.prefill {
        Vec::new()
    } else {
        matcher.spawn(&shutdown)
    };

    let cpu_at_start = redis_cpu(&mut store.redis()).await?;
    let started = Instant::now();
    let next = Arc::new(AtomicUsize::new(0));
    let enqueuers = (0..args.enqueuers.max(1)).map(|_| {
        let store = store.clone();
        let matcher = matcher.clone();
        let next = Arc::clone(&next);
        let room_id = room.id.clone();
        let rate = args.rate;
        async move {
            let mut ids = Vec::new();
            loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= tickets {
                    break;
                }
                if rate > 0 {
                    let due = Duration::from_secs_f64(i as f64 / rate as f64);
                    if let Some(wait) = due.checked_sub(started.elapsed()) {
                        tokio::time::sleep(wait).await;
                    }
                }
                let player = format!("bench-player-{i}");
                let request = format!("rq-{i}");
                let id = TicketId::new(&room_id);
                match store.reserve(&player, &request, &id).await? {
                    Reservation::Reserved => {}
                    other => anyhow::bail!("unexpected reservation {other:?}"),
                }
                store
                    .create(&id, &player, &request, 2000, store.clock().now_ms())
                    .await?;
                matcher.wake(&room_id);
                ids.push(id);
            }
            Ok::<_, anyhow::Error>(ids)
        }
    });
    let mut ids = Vec::with_capacity(tickets);
    for result in futures::future::join_all(enqueuers).await {
        ids.extend(result?);
    }
    let enqueue_elapsed = started.elapsed();
    let mut info = store.redis();
    let cpu_before = if args.prefill {
        redis_cpu(&mut info).await?
    } else {
        cpu_at_start
    };
    let (started, matching_from_ms) = if args.prefill {
        let from = store.clock().now_ms();
        loops = matcher.spawn(&shutdown);
        (Instant::now(), from)
    } else {
        (started, 0)
    };

    let want = tickets / seats;
    let deadline = Instant::now() + Duration::from_secs(300);
    while store.pending(&room.id).await? != (0, 0) {
        anyhow::ensure!(
            Instant::now() < deadline,
            "tickets still waiting after 5 minutes"
        );
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let elapsed = started.elapsed();
    let redis_cpu_seconds = redis_cpu(&mut info).await? - cpu_before;
    shutdown.trigger();
    for task in loops {
        let _ = task.await;
    }

    let mut waits = ticket_waits(&store, &ids, matching_from_ms).await?;
    waits.sort_unstable();
    let pick = |q: f64| quantile(&waits, q).unwrap_or(0);
    Ok(BenchReport {
        room: room.id.to_string(),
        tickets,
        tables: tables.opened.load(Ordering::Relaxed).max(want),
        elapsed,
        enqueue_elapsed,
        prefill: args.prefill,
        redis_cpu_seconds,
        wait_ms: (pick(0.5), pick(0.99), pick(1.0)),
    })
}

async fn ticket_waits(
    store: &TicketStore,
    ids: &[TicketId],
    from_ms: u64,
) -> anyhow::Result<Vec<u64>> {
    let mut waits = Vec::with_capacity(ids.len());
    for chunk in ids.chunks(2000) {
        waits.extend(
            store
                .ticket_times(chunk)
                .await?
                .into_iter()
                .map(|(created, ended)| ended.saturating_sub(created.max(from_ms))),
        );
        anyhow::ensure!(
            store
                .ticket_times(chunk)
                .await?
                .iter()
                .all(|(_, ended)| *ended > 0),
            "a ticket was not seated"
        );
    }
    Ok(waits)
}

/// Redis's CPU seconds so far (user + system).
/// On a cluster, the sum over its masters.
async fn redis_cpu(conn: &mut gamehub_platform::RedisConn) -> anyhow::Result<f64> {
    let reply: redis::Value = redis::cmd("INFO").arg("cpu").query_async(conn).await?;
    let infos: Vec<String> = match reply {
        redis::Value::Map(per_node) => per_node
            .into_iter()
            .map(|(_, info)| redis::from_redis_value(info))
            .collect::<Result<_, _>>()?,
        one => vec![redis::from_redis_value(one)?],
    };
    let field = |info: &str, name: &str| {
        info.lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.trim().parse::<f64>().ok())
            .unwrap_or(0.0)
    };
    Ok(infos
        .iter()
        .map(|info| field(info, "used_cpu_user:") + field(info, "used_cpu_sys:"))
        .sum())
}

/// The matcher benchmark's ledger: everyone may sit; every rating is a new player's plus a little
/// (0–99, from the player id), so a rated room has ratings to pair by. No locks, no
/// counters: the fastest answer there is.
#[derive(Debug, Default)]
pub struct InstantLedger;

impl Eligibility for InstantLedger {
    fn check<'a>(&'a self, _: &'a str, _: &'a Room) -> BoxFuture<'a, Result<Verdict, PeerError>> {
        Box::pin(async { Ok(Verdict::Eligible) })
    }

    fn rating<'a>(&'a self, player_id: &'a str) -> BoxFuture<'a, Result<i64, PeerError>> {
        let spread = player_id.bytes().map(i64::from).sum::<i64>() % 100;
        Box::pin(async move { Ok(NEW_PLAYER_RATING + spread) })
    }
}

/// The matcher benchmark's game services: open every table at once and count them.
#[derive(Debug, Default)]
pub struct InstantTables {
    /// Tables opened.
    pub opened: AtomicUsize,
}

impl TableOpener for InstantTables {
    fn open<'a>(
        &'a self,
        _: &'a Room,
        match_id: &'a str,
        _: &'a [String],
        _: Lineup<'a>,
    ) -> BoxFuture<'a, Result<OpenedTable, PeerError>> {
        self.opened.fetch_add(1, Ordering::Relaxed);
        Box::pin(async move {
            Ok(OpenedTable {
                table_id: format!("t-{match_id}"),
            })
        })
    }

    fn seat_at<'a>(
        &'a self,
        _: &'static Game,
        _: &'a str,
        _: &'a str,
    ) -> BoxFuture<'a, Result<Option<TableSeat>, PeerError>> {
        Box::pin(async { Ok(None) })
    }
}
