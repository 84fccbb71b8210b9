//! `gamehub-loadgen dealer`: N tables playing random legal deals through the Dou Dizhu
//! dealer's gRPC API at once, as fast as the dealer answers (or at an offered rate).
//! Each table is one task holding its three players' tokens; bids are random valid bids,
//! plays random legal plays chosen with the rules crate from the seat's own hand (what
//! its own views show), a pass 30% of the time when passing is allowed
//! ([`crate::players::doudizhu`]); finished deals are followed by NextDeal from all three.
//!
//! It reports actions per second (Bid, Play, Pass, NextDeal), their latency p50/p99,
//! refusals by status code, and, for scale, `redis-benchmark`'s EVAL throughput on the
//! same Redis measured in the same run (before the load) with the ratio of the two.
//!
//! Without `--addr` it starts a dealer in this process on a key prefix of its own (and
//! removes that prefix's keys afterwards), whose settler delivers finished deals to a
//! stub ledger in this process that acknowledges each at once
//! ([`gamehub_testkit::stub_ledger`]): the figures are the dealer's own, settlement
//! delivery included, without PostgreSQL's work.

use std::collections::BTreeMap;
use std::fmt;
use std::time::{Duration, Instant};

use doudizhu_rules::{Card, CardSet, classify, legal_plays};
use gamehub_doudizhu_dealer::DealerConfig;
use gamehub_platform::auth::Role;
use gamehub_platform::client::{OutgoingInterceptor, ServiceChannel, TokenSource};
use gamehub_platform::server::Shutdown;
use gamehub_proto::common::RoomStakes;
use gamehub_proto::doudizhu as pb;
use gamehub_proto::doudizhu::doudizhu_service_client::DoudizhuServiceClient;
use gamehub_testkit::redis::remove_keys_on;
use gamehub_testkit::stub_ledger::StubLedger;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use tonic::service::interceptor::InterceptedService;

use crate::baseline::{self, quantile_ms};
use crate::players::doudizhu::{Turn, random_bid, random_turn};

type Client = DoudizhuServiceClient<ServiceChannel>;

/// `gamehub-loadgen dealer` options.
#[derive(Debug, Clone, clap::Args)]
pub struct Args {
    /// Tables playing at once.
    #[arg(long, default_value_t = 300)]
    pub tables: usize,
    /// How long to run, in seconds.
    #[arg(long, default_value_t = 20)]
    pub duration: u64,
    /// A running dealer (e.g. http://127.0.0.1:50053); without it one is started in
    /// this process. Tokens are minted with this configuration's GAMEHUB_JWT_SECRET.
    #[arg(long)]
    pub addr: Option<String>,
    /// HTTP/2 connections the tables share.
    #[arg(long, default_value_t = 4)]
    pub connections: usize,
    /// Skip the redis-benchmark baseline.
    #[arg(long)]
    pub no_baseline: bool,
    /// Offered actions per second over all tables (open loop: each table acts every
    /// `tables / rate` seconds, so latency is the service time at that load); 0 = as
    /// fast as answered (closed loop).
    #[arg(long, default_value_t = 0.0)]
    pub rate: f64,
}

/// What a run measured.
#[derive(Debug, Clone, Default)]
pub struct Report {
    pub tables: usize,
    pub seconds: f64,
    /// Bid, Play, Pass and NextDeal calls answered OK.
    pub actions: u64,
    pub actions_per_second: f64,
    pub p50_ms: f64,
    pub p99_ms: f64,
    pub max_ms: f64,
    /// GetTable calls (each seat's hand at the start of a deal, resyncs).
    pub reads: u64,
    /// Deals that ended (redeals included).
    pub deals: u64,
    /// Refused or failed calls by gRPC status code.
    pub errors: BTreeMap<String, u64>,
    /// `redis-benchmark` EVAL requests per second on the same Redis, if measured.
    pub redis_eval_per_second: Option<f64>,
}

impl Report {
    /// Dealer actions per Redis EVAL per second.
    pub fn ratio(&self) -> Option<f64> {
        self.redis_eval_per_second
            .map(|r| self.actions_per_second / r)
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "tables            {}", self.tables)?;
        writeln!(f, "duration          {:.1} s", self.seconds)?;
        writeln!(
            f,
            "actions           {} ({:.0}/s)",
            self.actions, self.actions_per_second
        )?;
        writeln!(
            f,
            "latency           p50 {:.2} ms, p99 {:.2} ms, max {:.1} ms",
            self.p50_ms, self.p99_ms, self.max_ms
        )?;
        writeln!(f, "reads             {}", self.reads)?;
        writeln!(f, "deals ended       {}", self.deals)?;
        if self.errors.is_empty() {
            writeln!(f, "errors            none")?;
        } else {
            let list: Vec<String> = self
                .errors
                .iter()
                .map(|(k, v)| format!("{k} {v}"))
                .collect();
            writeln!(f, "errors            {}", list.join(", "))?;
        }
        match (self.redis_eval_per_second, self.ratio()) {
            (Some(redis), Some(ratio)) => write!(
                f,
                "redis EVAL        {redis:.0}/s (redis-benchmark, same Redis); dealer actions / EVAL = {ratio:.3}"
            ),
            _ => write!(f, "redis EVAL        not measured"),
        }
    }
}

/// Per-table tallies.
#[derive(Debug, Default)]
struct Tally {
    actions: u64,
    reads: u64,
    deals: u64,
    latencies_us: Vec<u32>,
    errors: BTreeMap<String, u64>,
}

/// Runs the load and reports.
pub async fn run(args: &Args, config: &DealerConfig) -> anyhow::Result<Report> {
    let keys = config.common.keys.clone();
    let redis_eval_per_second = if args.no_baseline {
        None
    } else {
        baseline::redis_eval(&config.common.redis, baseline::REDIS_EVAL_REQUESTS)
            .await
            .inspect_err(|e| tracing::warn!(error = %e, "redis-benchmark did not run"))
            .ok()
            .map(|eval| eval.per_second)
    };

    let shutdown = Shutdown::new();
    let mut local_prefix = None;
    let url = match &args.addr {
        Some(addr) => addr.clone(),
        None => {
            let mut local = config.clone();
            local.listen = "127.0.0.1:0".parse()?;
            let prefix = format!("ghload{}", &uuid::Uuid::new_v4().simple().to_string()[..12]);
            local.common.redis_prefix = prefix.clone();
            local.common.limits.player_rate_per_second = 0;
            local.common.ledger_url = StubLedger::default().serve(shutdown.clone()).await?;
            local_prefix = Some(prefix);
            let started = gamehub_doudizhu_dealer::start(local, shutdown.clone()).await?;
            format!("http://{}", started.addr)
        }
    };
    let channels = (0..args.connections.max(1))
        .map(|_| gamehub_platform::client::channel(&url, Duration::from_secs(10)))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let run_id = &uuid::Uuid::new_v4().simple().to_string()[..8];
    let started = Instant::now();
    let until = started + Duration::from_secs(args.duration);
    let mut tasks = Vec::with_capacity(args.tables);
    for t in 0..args.tables {
        let channel = channels[t % channels.len()].clone();
        let client = |subject: &str, role: Role| -> anyhow::Result<Client> {
            let token = keys.mint(subject, role, Duration::from_secs(3600))?;
            Ok(DoudizhuServiceClient::new(InterceptedService::new(
                channel.clone(),
                OutgoingInterceptor::new(TokenSource::Static(token)),
            )))
        };
        let service = client(gamehub_platform::auth::MATCHMAKING_SUBJECT, Role::Service)?;
        let players = [0, 1, 2].map(|s| format!("lg-{run_id}-{t}-{s}"));
        let seats = [
            client(&players[0], Role::Player)?,
            client(&players[1], Role::Player)?,
            client(&players[2], Role::Player)?,
        ];
        let pace =
            (args.rate > 0.0).then(|| Duration::from_secs_f64(args.tables as f64 / args.rate));
        tasks.push(tokio::spawn(play_table(
            service, players, seats, until, t as u64, pace,
        )));
    }
    let mut total = Tally::default();
    for task in tasks {
        let tally = task.await?;
        total.actions += tally.actions;
        total.reads += tally.reads;
        total.deals += tally.deals;
        total.latencies_us.extend(tally.latencies_us);
        for (code, n) in tally.errors {
            *total.errors.entry(code).or_default() += n;
        }
    }
    let seconds = started.elapsed().as_secs_f64();
    shutdown.trigger();
    if let Some(prefix) = local_prefix {
        remove_keys_on(&config.common.redis, &prefix).await;
    }
    total.latencies_us.sort_unstable();
    Ok(Report {
        tables: args.tables,
        seconds,
        actions: total.actions,
        actions_per_second: total.actions as f64 / seconds,
        p50_ms: quantile_ms(&total.latencies_us, 0.50),
        p99_ms: quantile_ms(&total.latencies_us, 0.99),
        max_ms: quantile_ms(&total.latencies_us, 1.0),
        reads: total.reads,
        deals: total.deals,
        errors: total.errors,
        redis_eval_per_second,
    })
}

fn cards_of(texts: &[String]) -> CardSet {
    texts
        .iter()
        .filter_map(|t| t.parse::<Card>().ok())
        .collect()
}

/// One table's task: opens it, then plays random legal deals until `until`.
async fn play_table(
    mut service: Client,
    players: [String; 3],
    mut seats: [Client; 3],
    until: Instant,
    seed: u64,
    pace: Option<Duration>,
) -> Tally {
    let mut tally = Tally::default();
    let mut rng = StdRng::seed_from_u64(seed ^ 0x5eed_d0d0);
    // Open loop: tables start at random offsets so their calls spread evenly.
    let mut ticker = pace.map(|pace| {
        let offset = pace.mul_f64(rng.random_range(0.0..1.0));
        let mut ticker = tokio::time::interval_at(tokio::time::Instant::now() + offset, pace);
        ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Burst);
        ticker
    });
    let opened = service
        .open_table(pb::OpenTableRequest {
            bot_seats: Vec::new(),
            friends_table: false,
            rule_set: String::new(),
            profiles: Vec::new(),
            request_id: format!("open-{}", players[0]),
            stakes: Some(RoomStakes {
                room_id: "doudizhu-classic".into(),
                points_base: 1,
                silver_per_point: 0,
                min_balance_silver: 0,
                rated: false,
            }),
            turn_time_ms: 600_000,
            player_ids: players.to_vec(),
            test_seeds: vec![],
        })
        .await;
    let (table_id, mut view) = match opened {
        Ok(r) => {
            let r = r.into_inner();
            (r.table_id, r.table.unwrap_or_default())
        }
        Err(status) => {
            *tally
                .errors
                .entry(format!("{:?}", status.code()))
                .or_default() += 1;
            return tally;
        }
    };
    let mut hands = [CardSet::EMPTY; 3];
    let mut hands_of_deal = 0;
    let mut last_deal_seen = view.deal_number;
    while Instant::now() < until {
        if view.deal_number != last_deal_seen {
            tally.deals += 1;
            last_deal_seen = view.deal_number;
        }
        let status = pb::TableStatus::try_from(view.status).unwrap_or(pb::TableStatus::Unspecified);
        if status == pb::TableStatus::Dealing && hands_of_deal != view.deal_number {
            for s in 0..3 {
                match seats[s].get_table(get(&table_id)).await {
                    Ok(r) => {
                        tally.reads += 1;
                        view = r.into_inner().table.unwrap_or_default();
                        hands[s] = cards_of(&view.hand);
                    }
                    Err(status) => {
                        *tally
                            .errors
                            .entry(format!("{:?}", status.code()))
                            .or_default() += 1
                    }
                }
            }
            hands_of_deal = view.deal_number;
            continue;
        }
        if let Some(ticker) = ticker.as_mut() {
            ticker.tick().await;
        }
        let started = Instant::now();
        let (actor, reply) = match status {
            pb::TableStatus::Dealing => {
                let Ok(s) = usize::try_from(view.to_act) else {
                    hands_of_deal = 0;
                    continue;
                };
                let s = s.min(2);
                let reply = if view.phase == pb::Phase::Bidding as i32 {
                    let highest = view.bids.iter().map(|b| b.points).max().unwrap_or(0);
                    let points = random_bid(highest, &mut rng);
                    seats[s]
                        .bid(pb::BidRequest {
                            table_id: table_id.clone(),
                            request_id: request_id(&mut rng),
                            points,
                        })
                        .await
                        .map(|r| r.into_inner().table)
                } else {
                    let previous = view
                        .trick
                        .as_ref()
                        .and_then(|t| classify(&cards_of(&t.cards).rank_counts()));
                    let plays = legal_plays(&hands[s].rank_counts(), previous.as_ref());
                    match random_turn(&plays, previous.is_some(), 0.3, &mut rng) {
                        Turn::Pass => seats[s]
                            .pass(pb::PassRequest {
                                table_id: table_id.clone(),
                                request_id: request_id(&mut rng),
                            })
                            .await
                            .map(|r| r.into_inner().table),
                        Turn::Stuck => {
                            hands_of_deal = 0;
                            continue;
                        }
                        Turn::Play(play) => {
                            let ranks: String = play.ranks.iter().map(|r| r.symbol()).collect();
                            seats[s]
                                .play(pb::PlayRequest {
                                    table_id: table_id.clone(),
                                    request_id: request_id(&mut rng),
                                    ranks,
                                    cards: vec![],
                                    meant: String::new(),
                                })
                                .await
                                .map(|r| r.into_inner().table)
                        }
                    }
                };
                (Some(s), reply)
            }
            pb::TableStatus::BetweenDeals => {
                let Some(s) = (0..3).find(|s| !view.seats.get(*s).is_some_and(|seat| seat.ready))
                else {
                    hands_of_deal = 0;
                    continue;
                };
                let reply = seats[s]
                    .next_deal(pb::NextDealRequest {
                        table_id: table_id.clone(),
                        request_id: request_id(&mut rng),
                    })
                    .await
                    .map(|r| r.into_inner().table);
                (None, reply)
            }
            _ => {
                // A deal about to start, or a closed table: look again.
                tokio::time::sleep(Duration::from_millis(5)).await;
                let reply = seats[0]
                    .get_table(get(&table_id))
                    .await
                    .map(|r| r.into_inner().table);
                tally.reads += 1;
                match reply {
                    Ok(Some(table)) if table.status == pb::TableStatus::Closed as i32 => break,
                    Ok(Some(table)) => view = table,
                    Ok(None) => break,
                    Err(status) => {
                        *tally
                            .errors
                            .entry(format!("{:?}", status.code()))
                            .or_default() += 1
                    }
                }
                continue;
            }
        };
        match reply {
            Ok(Some(table)) => {
                tally.actions += 1;
                tally
                    .latencies_us
                    .push(u32::try_from(started.elapsed().as_micros()).unwrap_or(u32::MAX));
                if let Some(s) = actor
                    && table.deal_number == view.deal_number
                {
                    hands[s] = cards_of(&table.hand);
                }
                view = table;
            }
            Ok(None) => break,
            Err(status) => {
                *tally
                    .errors
                    .entry(format!("{:?}", status.code()))
                    .or_default() += 1;
                hands_of_deal = 0;
                match seats[0].get_table(get(&table_id)).await {
                    Ok(r) => {
                        tally.reads += 1;
                        view = r.into_inner().table.unwrap_or_default();
                    }
                    Err(_) => tokio::time::sleep(Duration::from_millis(10)).await,
                }
            }
        }
    }
    tally
}

fn get(table_id: &str) -> pb::GetTableRequest {
    pb::GetTableRequest {
        table_id: table_id.to_owned(),
        as_spectator: false,
    }
}

fn request_id(rng: &mut StdRng) -> String {
    format!("{:016x}", rng.random::<u64>())
}
