//! A Redis Cluster master dies under live games (issue 16 §1): the whole platform runs
//! on a six-node cluster of the test's own (three masters, one replica each) with
//! replica acknowledgement of every table step (`GAMEHUB_REDIS_WAIT_REPLICAS=1`). A
//! Gomoku game and a Dou Dizhu deal are seated through matchmaking and played a few
//! moves; every action the API acknowledged is written down. Then the master holding
//! the Gomoku table's shard is killed (SIGKILL), and the Dou Dizhu table's too when it
//! is another; the replicas take over. With its only replica promoted, a master has no
//! replica left, so a step on it is refused UNAVAILABLE until the dead node is back, as
//! a replica of the new master; so is a retry of that step (a replay is confirmed by
//! the replicas as the step itself is). The players carry on as a well-behaved client does (retrying UNAVAILABLE with the same
//! request id, a bounded number of times) to each game's end.
//!
//! Afterwards: each game ended and the ledger settled it exactly once, with the points
//! and silver its result says; no acknowledged action was lost (each is in the table's
//! final record, in order).
#![allow(clippy::unwrap_used)]

use std::collections::HashMap;
use std::time::{Duration, Instant};

use futures::future::join_all;
use gamehub_drive as drive;
use gamehub_drive::api::{Clients, request_id};
use gamehub_platform::auth::Role;
use gamehub_platform::redis_conn::slot_of;
use gamehub_platform::tables::shard_of;
use gamehub_proto::common::GameType;
use gamehub_proto::doudizhu as ddz;
use gamehub_proto::gomoku as gm;
use gamehub_proto::ledger as lg;
use gamehub_proto::matchmaking as mm;
use gamehub_testkit::clock::eventually;
use gamehub_testkit::redis_cluster::OwnCluster;
use gamehub_testkit_services::platform::TestPlatform;
use tokio::task::block_in_place;

/// This test's cluster: six ports from 7100 on (the shared test cluster is on
/// 7000–7005), the next ten up when a run of the test elsewhere holds them.
const BASE_PORTS: std::ops::Range<u16> = 7100..7200;

/// How long a game may take to finish once the cluster has recovered.
const GAME_BOUND: Duration = Duration::from_secs(90);

/// The key of `table_id` of `game` (`gomoku`, `doudizhu`) under `prefix`: its slot is
/// its shard's (see `gamehub_platform::tables`).
fn table_key(prefix: &str, game: &str, table_id: &str) -> String {
    format!("{prefix}:{{{game}:{:02}}}:t:{table_id}", shard_of(table_id))
}

/// Queues every player at once and returns their seats, in the players' order.
async fn seat_all(tp: &TestPlatform, room_id: &str, players: &[&str]) -> Vec<mm::Seat> {
    join_all(players.iter().map(|p| {
        let mut clients = tp.clients(p, Role::Player);
        let room_id = room_id.to_owned();
        async move {
            drive::matchmaking::seat(&mut clients.matchmaking, &room_id, "", |_| {})
                .await
                .unwrap()
        }
    }))
    .await
}

async fn account(operator: &Clients, player: &str) -> lg::Account {
    operator
        .ledger
        .clone()
        .get_account(lg::GetAccountRequest {
            player_id: player.into(),
        })
        .await
        .unwrap()
        .into_inner()
        .account
        .unwrap()
}

fn standing(account: &lg::Account, game: GameType) -> lg::GameStanding {
    account
        .standings
        .iter()
        .find(|s| s.game_type() == game)
        .cloned()
        .unwrap_or_default()
}

/// A stone placed as a good client does: the same request (same request id) until an
/// answer other than "try again", a bounded number of times.
async fn place(
    tp: &TestPlatform,
    who: &str,
    table_id: &str,
    point: &str,
) -> Result<gm::PlaceStoneResponse, tonic::Status> {
    let request = gm::PlaceStoneRequest {
        table_id: table_id.to_owned(),
        request_id: request_id(),
        point: Some(gm::Point {
            text: point.into(),
            x: 0,
            y: 0,
        }),
        known_stones: 0,
        known_game: 0,
    };
    let client = tp.clients(who, Role::Player).gomoku;
    drive::retry(|| {
        let (mut client, request) = (client.clone(), request.clone());
        async move { client.place_stone(request).await }
    })
    .await
    .map(tonic::Response::into_inner)
}

/// The Dou Dizhu table as `who` sees it (with its hand).
async fn ddz_view(tp: &TestPlatform, who: &str, table_id: &str, spectator: bool) -> ddz::Table {
    tp.clients(who, Role::Player)
        .doudizhu
        .get_table(ddz::GetTableRequest {
            table_id: table_id.to_owned(),
            as_spectator: spectator,
        })
        .await
        .unwrap()
        .into_inner()
        .table
        .unwrap()
}

/// The games the ledger settled for `player` at `table_id`, one entry per settled game
/// (a game settled twice would be listed twice).
async fn ledger_games(operator: &Clients, player: &str, table_id: &str) -> Vec<String> {
    operator
        .ledger
        .clone()
        .list_games(lg::ListGamesRequest {
            player_id: player.into(),
            game_type: GameType::Unspecified as i32,
            page_size: 200,
            page_token: String::new(),
        })
        .await
        .unwrap()
        .into_inner()
        .games
        .into_iter()
        .filter(|g| g.table_id == table_id)
        .map(|g| g.game_id)
        .collect()
}

/// A Dou Dizhu action the API acknowledged before the failover.
#[derive(Debug, Clone, PartialEq, Eq)]
enum DdzAction {
    Bid { seat: i32, points: i32 },
    Play { seat: i32, cards: Vec<String> },
    Pass { seat: i32 },
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_killed_master_loses_no_acknowledged_action_and_every_game_settles_once() {
    let started = Instant::now();
    let mut cluster =
        block_in_place(|| OwnCluster::start_free("gamehub-failover", BASE_PORTS.step_by(10)));
    println!("cluster up in {:?}", started.elapsed());
    let urls = cluster.urls();
    let tp = TestPlatform::start(&[
        ("REDIS_URL", urls.as_str()),
        ("GAMEHUB_REDIS_CLUSTER", "true"),
        ("GAMEHUB_REDIS_WAIT_REPLICAS", "1"),
        ("GAMEHUB_REDIS_WAIT_TIMEOUT_MS", "500"),
    ])
    .await
    .unwrap();
    // The services' logs, when asked for (`RUST_LOG=warn`).
    let _telemetry = std::env::var_os("RUST_LOG")
        .map(|_| gamehub_platform::telemetry::init("failover", &tp.config).unwrap());
    let operator = tp.clients("fo-operator", Role::Operator);

    // ---- Gomoku: two players are seated in the paid freestyle room and play 5 plies.
    let (ann, ben) = ("fo-ann", "fo-ben");
    for p in [ann, ben] {
        tp.grant(p, 100_000).await;
    }
    let seats = seat_all(&tp, "gomoku-freestyle", &[ann, ben]).await;
    let gomoku_table = seats[0].table_id.clone();
    assert_eq!(seats[1].table_id, gomoku_table, "both at one table");
    let table = tp
        .clients(ann, Role::Player)
        .gomoku
        .get_table(gm::GetTableRequest {
            table_id: gomoku_table.clone(),
        })
        .await
        .unwrap()
        .into_inner()
        .table
        .unwrap();
    let gomoku_stakes = table.stakes.clone().unwrap();
    let black_seat = table.game.as_ref().unwrap().black_seat;
    let player_at = |black: bool| {
        table
            .players
            .iter()
            .find(|p| (p.seat == black_seat) == black)
            .unwrap()
            .player_id
            .clone()
    };
    let (black, white) = (player_at(true), player_at(false));
    // Black makes five down the h file; white plays along the edge.
    let script: Vec<(&str, &str)> = vec![
        (&black, "h8"),
        (&white, "a1"),
        (&black, "h9"),
        (&white, "a2"),
        (&black, "h10"),
        (&white, "a3"),
        (&black, "h11"),
        (&white, "a4"),
        (&black, "h12"),
    ];
    let mut gomoku_acked: Vec<String> = Vec::new();
    for (who, point) in &script[..5] {
        place(&tp, who, &gomoku_table, point).await.unwrap();
        gomoku_acked.push((*point).to_owned());
    }

    // ---- Dou Dizhu: three players are seated in the paid classic room; the first
    // bidder bids 3 (landlord at once), leads one card, and both others pass.
    let ddz_players = ["fo-cat", "fo-dan", "fo-eve"];
    for p in ddz_players {
        tp.grant(p, 100_000).await;
    }
    let ddz_seats = seat_all(&tp, "doudizhu-classic", &ddz_players).await;
    let ddz_table = ddz_seats[0].table_id.clone();
    let by_seat: Vec<String> = ddz_seats[0].players.clone();
    assert_eq!(by_seat.len(), 3);
    let ddz_stakes = ddz_view(&tp, &by_seat[0], &ddz_table, true)
        .await
        .stakes
        .unwrap();
    let before: HashMap<String, i64> = join_all(
        [black.as_str(), white.as_str()]
            .into_iter()
            .chain(by_seat.iter().map(String::as_str))
            .map(|p| {
                let operator = operator.clone();
                async move { (p.to_owned(), account(&operator, p).await.balance_silver) }
            }),
    )
    .await
    .into_iter()
    .collect();
    let first = eventually(
        "the first deal waits for a bid",
        Duration::from_secs(20),
        || {
            let tp = &tp;
            let (who, table_id) = (by_seat[0].clone(), ddz_table.clone());
            async move {
                let view = ddz_view(tp, &who, &table_id, true).await;
                (view.phase() == ddz::Phase::Bidding && view.to_act >= 0).then_some(view.to_act)
            }
        },
    )
    .await;
    let landlord = usize::try_from(first).unwrap();
    let seat_player = |seat: usize| by_seat[seat % 3].clone();
    let mut ddz_acked: Vec<DdzAction> = Vec::new();
    let ddz_client = |who: &str| tp.clients(who, Role::Player).doudizhu;
    let request = ddz::BidRequest {
        table_id: ddz_table.clone(),
        request_id: request_id(),
        points: 3,
    };
    let client = ddz_client(&seat_player(landlord));
    drive::retry(|| {
        let (mut client, request) = (client.clone(), request.clone());
        async move { client.bid(request).await }
    })
    .await
    .unwrap();
    ddz_acked.push(DdzAction::Bid {
        seat: first,
        points: 3,
    });
    let hand = eventually("the landlord leads", Duration::from_secs(20), || {
        let tp = &tp;
        let (who, table_id) = (seat_player(landlord), ddz_table.clone());
        async move {
            let view = ddz_view(tp, &who, &table_id, false).await;
            (view.phase() == ddz::Phase::Playing && view.to_act == first && view.must_lead)
                .then_some(view.hand)
        }
    })
    .await;
    let lead = vec![hand[0].clone()];
    let request = ddz::PlayRequest {
        table_id: ddz_table.clone(),
        request_id: request_id(),
        ranks: String::new(),
        cards: lead.clone(),
        meant: String::new(),
    };
    drive::retry(|| {
        let (mut client, request) = (client.clone(), request.clone());
        async move { client.play(request).await }
    })
    .await
    .unwrap();
    ddz_acked.push(DdzAction::Play {
        seat: first,
        cards: lead,
    });
    for next in [landlord + 1, landlord + 2] {
        let request = ddz::PassRequest {
            table_id: ddz_table.clone(),
            request_id: request_id(),
        };
        let client = ddz_client(&seat_player(next));
        drive::retry(|| {
            let (mut client, request) = (client.clone(), request.clone());
            async move { client.pass(request).await }
        })
        .await
        .unwrap();
        ddz_acked.push(DdzAction::Pass {
            seat: i32::try_from(next % 3).unwrap(),
        });
    }
    println!(
        "acknowledged before the failover: gomoku {gomoku_acked:?}, doudizhu {ddz_acked:?} ({:?})",
        started.elapsed()
    );

    // ---- The failover: kill the master of the Gomoku table's shard, then (when it is
    // another) the Dou Dizhu table's, each once the cluster took over from the last.
    let gomoku_slot = slot_of(&table_key(&tp.prefix, "gomoku", &gomoku_table));
    let ddz_slot = slot_of(&table_key(&tp.prefix, "doudizhu", &ddz_table));
    let targets: Vec<(&str, u16, u16)> = [("gomoku", gomoku_slot), ("doudizhu", ddz_slot)]
        .into_iter()
        .map(|(game, slot)| (game, slot, block_in_place(|| cluster.master_of_slot(slot))))
        .collect();
    let mut killed = Vec::new();
    for (game, slot, master) in targets {
        if killed.contains(&master) {
            println!("{game}: slot {slot} was on master {master} too");
            continue;
        }
        let at = Instant::now();
        block_in_place(|| cluster.kill9(master));
        killed.push(master);
        let promoted = block_in_place(|| cluster.wait_promoted(slot));
        println!(
            "{game}: killed master {master} of slot {slot}; {promoted} took over in {:?}",
            at.elapsed()
        );
    }

    // The promoted master has no replica: the next Gomoku step is refused, not
    // acknowledged unreplicated.
    let (who, point) = script[5];
    let probe = gm::PlaceStoneRequest {
        table_id: gomoku_table.clone(),
        request_id: request_id(),
        point: Some(gm::Point {
            text: point.into(),
            x: 0,
            y: 0,
        }),
        known_stones: 0,
        known_game: 0,
    };
    let mut white_client = tp.clients(who, Role::Player).gomoku;
    let refused = white_client.place_stone(probe.clone()).await;
    let status = refused.expect_err("a step is acknowledged with no replica to confirm it");
    assert_eq!(
        status.code(),
        tonic::Code::Unavailable,
        "a step on a master without its replica: {status:?}"
    );
    println!("with no replica: {status:?}");
    // The same request again, the replica still gone: the step is written, but a
    // replay is acknowledged no sooner than the step itself would be.
    let again = white_client.place_stone(probe.clone()).await;
    let status = again.expect_err("a replay is acknowledged with no replica to confirm it");
    assert_eq!(
        status.code(),
        tonic::Code::Unavailable,
        "a replay on a master without its replica: {status:?}"
    );

    // The dead nodes come back (as replicas of the masters that took over) while the
    // players carry on, retrying what is refused meanwhile.
    let recovered_at = Instant::now();
    let ports = killed.clone();
    let restart = tokio::task::spawn_blocking(move || {
        for port in ports {
            cluster.restart(port);
        }
        cluster.wait_ready();
        println!("the dead nodes are back as replicas");
        cluster
    });
    let gomoku = async {
        let white_client = white_client.clone();
        drive::retry(|| {
            let (mut client, request) = (white_client.clone(), probe.clone());
            async move { client.place_stone(request).await }
        })
        .await
        .unwrap();
        gomoku_acked.push(point.to_owned());
        println!("gomoku: {point} acknowledged ({:?})", started.elapsed());
        for (who, point) in &script[6..] {
            place(&tp, who, &gomoku_table, point).await.unwrap();
            gomoku_acked.push((*point).to_owned());
            println!("gomoku: {point} acknowledged ({:?})", started.elapsed());
        }
    };
    let seen_events = std::sync::atomic::AtomicU32::new(0);
    let seen_events = &seen_events;
    let doudizhu = join_all(by_seat.iter().enumerate().map(|(seat, p)| {
        let client = tp.clients(p, Role::Player).doudizhu;
        let table_id = ddz_table.clone();
        async move {
            // The bot watches again, as a good client does, when its stream could not
            // start or broke off (UNAVAILABLE while the cluster recovers).
            tokio::time::timeout(
                GAME_BOUND,
                drive::doudizhu::play(
                    client,
                    &table_id,
                    drive::doudizhu::Options {
                        deals: 1,
                        think: Duration::ZERO,
                    },
                    |update| {
                        if seat == 0 && matches!(update, drive::doudizhu::Update::Event(_)) {
                            seen_events.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        }
                    },
                ),
            )
            .await
            .expect("the deal ends in time")
            .unwrap_or_else(|e| panic!("seat {seat}: {e:#}"))
        }
    }));
    let ((), outcomes) = tokio::time::timeout(GAME_BOUND, async { tokio::join!(gomoku, doudizhu) })
        .await
        .expect("both games end in time");
    let played_for = recovered_at.elapsed();
    let cluster = restart.await.unwrap();
    println!(
        "both games ended {played_for:?} after the dead nodes were restarted; the deal's \
         watcher saw {} events meanwhile",
        seen_events.load(std::sync::atomic::Ordering::Relaxed)
    );

    // ---- (a) Each game ended and the ledger settled it exactly once.
    for (game, table_id, players) in [
        ("gomoku", &gomoku_table, vec![black.clone(), white.clone()]),
        ("doudizhu", &ddz_table, by_seat.clone()),
    ] {
        let mut settled = Vec::new();
        for player in &players {
            let games = eventually(
                &format!("{player}'s {game} game is settled"),
                GAME_BOUND,
                || {
                    let operator = &operator;
                    async move {
                        let games = ledger_games(operator, player, table_id).await;
                        (!games.is_empty()).then_some(games)
                    }
                },
            )
            .await;
            assert_eq!(
                games.len(),
                1,
                "{player}: one {game} game, settled once: {games:?}"
            );
            settled.extend(games);
        }
        settled.dedup();
        assert_eq!(
            settled.len(),
            1,
            "{game}: one game for all its players: {settled:?}"
        );
        let metrics = &gamehub_platform::metrics::metrics().settlements;
        assert_eq!(
            metrics.with_label_values(&[game, "adopted"]).get(),
            0,
            "{game}: the ledger paid a result its table no longer had"
        );
        assert_eq!(
            metrics.with_label_values(&[game, "dead"]).get(),
            0,
            "{game}: dead letter"
        );
    }

    // ---- (b) No acknowledged action was lost: each is in the table's final record,
    // in order. Gomoku: the game's stones, by ply.
    let table = tp
        .clients(&black, Role::Player)
        .gomoku
        .get_table(gm::GetTableRequest {
            table_id: gomoku_table.clone(),
        })
        .await
        .unwrap()
        .into_inner()
        .table
        .unwrap();
    let game = table.game.clone().unwrap();
    assert_eq!(game.phase(), gm::Phase::Over, "the Gomoku game is over");
    let mut stones = game.stones.clone();
    stones.sort_by_key(|s| s.ply);
    let played: Vec<String> = stones
        .iter()
        .map(|s| s.point.as_ref().unwrap().text.to_ascii_lowercase())
        .collect();
    assert_eq!(played, gomoku_acked, "every acknowledged stone, in order");
    let result = game.result.clone().unwrap();
    // Dou Dizhu: the deal's bids and turns, as a spectator sees them.
    let view = ddz_view(&tp, &by_seat[0], &ddz_table, true).await;
    let deal_result = view.result.clone().expect("the deal has a result");
    assert!(
        view.bids.iter().any(|b| b.seat == first && b.points == 3),
        "the acknowledged bid: {:?}",
        view.bids
    );
    let turns: Vec<DdzAction> = view
        .turns
        .iter()
        .map(|t| {
            if t.cards.is_empty() && t.ranks.is_empty() {
                DdzAction::Pass { seat: t.seat }
            } else {
                DdzAction::Play {
                    seat: t.seat,
                    cards: t.cards.clone(),
                }
            }
        })
        .collect();
    assert!(
        turns.len() > 3 && turns[..3] == ddz_acked[1..],
        "the acknowledged play and passes open the deal's turns: {turns:?}"
    );

    // ---- (c) Points and silver are the results'. Gomoku: black's five.
    let (base, spp) = (gomoku_stakes.points_base, gomoku_stakes.silver_per_point);
    let black_seat_index = usize::try_from(black_seat).unwrap();
    assert_eq!(result.points[black_seat_index], 5 * base, "black wins five");
    for (player, points) in [(&black, 5 * base), (&white, -5 * base)] {
        let account = account(&operator, player).await;
        let s = standing(&account, GameType::Gomoku);
        assert_eq!(
            (s.games, s.points),
            (1, points),
            "{player}'s Gomoku standing"
        );
        assert_eq!(
            account.balance_silver - before[player.as_str()],
            points * spp,
            "{player}'s silver"
        );
    }
    // Dou Dizhu: the deal's points, zero-sum, and the silver they are worth.
    assert_eq!(outcomes[0].results.len(), 1);
    assert_eq!(outcomes[0].results[0].points, deal_result.points);
    assert_eq!(deal_result.points.iter().sum::<i64>(), 0, "zero-sum");
    let mut silver_total = 0;
    for (seat, player) in by_seat.iter().enumerate() {
        let account = account(&operator, player).await;
        let s = standing(&account, GameType::Doudizhu);
        assert_eq!(
            (s.games, s.points),
            (1, deal_result.points[seat]),
            "{player}'s Dou Dizhu standing"
        );
        let moved = account.balance_silver - before[player];
        assert_eq!(
            moved,
            deal_result.points[seat] * ddz_stakes.silver_per_point,
            "{player}'s silver"
        );
        silver_total += moved;
    }
    assert_eq!(silver_total, 0, "silver only moved between the players");

    println!("the whole test took {:?}", started.elapsed());
    tp.platform.stop().await;
    tp.database.drop().await;
    drop(cluster);
}
