//! The whole platform against real PostgreSQL and Redis, over gRPC on real sockets:
//! players queue, are seated, play complete games of both kinds, and the ledger ends
//! exactly as the rules say; the daily cap refuses a seat with its reason; a cancelled
//! ticket is never seated; two matchmaking replicas never seat one ticket twice.
#![allow(clippy::unwrap_used)]

use std::collections::{HashMap, HashSet};
use std::time::Duration;

use futures::future::join_all;
use gamehub_drive as drive;
use gamehub_drive::api::{Clients, request_id};
use gamehub_platform::auth::Role;
use gamehub_platform::config::Env;
use gamehub_platform::server::Shutdown;
use gamehub_proto::common::{GameType, RoomStakes};
use gamehub_proto::gomoku as gm;
use gamehub_proto::ledger as lg;
use gamehub_proto::matchmaking as mm;
use gamehub_testkit::clock::eventually;
use gamehub_testkit_services::platform::TestPlatform;

async fn grant(operator: &mut Clients, player: &str, amount: i64) {
    operator
        .ledger
        .grant_silver(lg::GrantSilverRequest {
            request_id: request_id(),
            player_id: player.into(),
            amount_silver: amount,
            reason: "e2e".into(),
        })
        .await
        .unwrap();
}

async fn room(clients: &mut Clients, id: &str) -> mm::Room {
    clients
        .matchmaking
        .list_rooms(mm::ListRoomsRequest {})
        .await
        .unwrap()
        .into_inner()
        .rooms
        .into_iter()
        .find(|r| r.room_id == id)
        .unwrap()
}

async fn account(clients: &mut Clients, player: &str) -> lg::Account {
    clients
        .ledger
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
        .unwrap()
}

/// Waits until `player` has `games` settled games of `game`.
async fn settled(clients: &Clients, player: &str, game: GameType, games: i64) -> lg::Account {
    let what = format!("{player}'s game settled");
    eventually(&what, Duration::from_secs(15), || {
        let mut clients = clients.clone();
        async move {
            let account = account(&mut clients, player).await;
            (standing(&account, game).games >= games).then_some(account)
        }
    })
    .await
}

/// Queues every player at once and returns their seats.
async fn seat_all(tp: &TestPlatform, room_id: &str, players: &[String]) -> Vec<mm::Seat> {
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

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn players_are_seated_and_games_settle_exactly_as_the_rules_say() {
    let tp = TestPlatform::start(&[]).await.unwrap();
    let mut operator = tp.clients("e2e-operator", Role::Operator);

    // ---- Gomoku: a scripted five in the paid freestyle room.
    let gomoku_room = room(&mut operator, "gomoku-freestyle").await;
    let stakes = gomoku_room.stakes.clone().unwrap();
    let players: Vec<String> = vec!["g-ann".into(), "g-ben".into()];
    for p in &players {
        grant(&mut operator, p, stakes.min_balance_silver * 3).await;
    }
    let seats = seat_all(&tp, "gomoku-freestyle", &players).await;
    assert_eq!(seats[0].table_id, seats[1].table_id, "both at one table");
    assert_eq!(seats[0].game_type(), GameType::Gomoku);
    let table_id = seats[0].table_id.clone();
    let table = tp
        .clients(&players[0], Role::Player)
        .gomoku
        .get_table(gm::GetTableRequest {
            table_id: table_id.clone(),
        })
        .await
        .unwrap()
        .into_inner()
        .table
        .unwrap();
    let game = table.game.unwrap();
    let black = table
        .players
        .iter()
        .find(|p| p.seat == game.black_seat)
        .unwrap()
        .player_id
        .clone();
    let white = table
        .players
        .iter()
        .find(|p| p.seat != game.black_seat)
        .unwrap()
        .player_id
        .clone();
    let before: HashMap<String, i64> = HashMap::from([
        (
            black.clone(),
            account(&mut operator, &black).await.balance_silver,
        ),
        (
            white.clone(),
            account(&mut operator, &white).await.balance_silver,
        ),
    ]);
    for (who, point) in [
        (&black, "h8"),
        (&white, "a1"),
        (&black, "h9"),
        (&white, "a2"),
        (&black, "h10"),
        (&white, "a3"),
        (&black, "h11"),
        (&white, "a4"),
        (&black, "h12"),
    ] {
        tp.clients(who, Role::Player)
            .gomoku
            .place_stone(gm::PlaceStoneRequest {
                table_id: table_id.clone(),
                request_id: request_id(),
                point: Some(gm::Point {
                    text: point.into(),
                    x: 0,
                    y: 0,
                }),
                known_stones: 0,
                known_game: 0,
            })
            .await
            .unwrap();
    }
    let base = stakes.points_base;
    let spp = stakes.silver_per_point;
    let black_account = settled(&operator, &black, GameType::Gomoku, 1).await;
    let white_account = settled(&operator, &white, GameType::Gomoku, 1).await;
    let (b, w) = (
        standing(&black_account, GameType::Gomoku),
        standing(&white_account, GameType::Gomoku),
    );
    assert_eq!(
        (b.points, b.wins),
        (5 * base, 1),
        "black wins five: +5 × base"
    );
    assert_eq!((w.points, w.losses), (-5 * base, 1), "white: −5 × base");
    assert_eq!(
        black_account.balance_silver - before[&black],
        5 * base * spp
    );
    assert_eq!(
        before[&white] - white_account.balance_silver,
        5 * base * spp
    );

    // ---- Dou Dizhu: three bots play one deal in the paid classic room.
    let ddz_room = room(&mut operator, "doudizhu-classic").await;
    let ddz_stakes = ddz_room.stakes.clone().unwrap();
    let players: Vec<String> = vec!["d-cat".into(), "d-dan".into(), "d-eve".into()];
    for p in &players {
        grant(&mut operator, p, ddz_stakes.min_balance_silver * 2).await;
    }
    let before: HashMap<String, i64> = join_all(players.iter().map(|p| {
        let mut operator = operator.clone();
        async move { (p.clone(), account(&mut operator, p).await.balance_silver) }
    }))
    .await
    .into_iter()
    .collect();
    let seats = seat_all(&tp, "doudizhu-classic", &players).await;
    let table_players = seats[0].players.clone();
    assert_eq!(table_players.len(), 3);
    let outcomes = join_all(players.iter().zip(&seats).map(|(p, seat)| {
        let clients = tp.clients(p, Role::Player);
        let table_id = seat.table_id.clone();
        async move {
            drive::doudizhu::play(
                clients.doudizhu.clone(),
                &table_id,
                drive::doudizhu::Options {
                    deals: 1,
                    think: Duration::ZERO,
                },
                |_| {},
            )
            .await
            .unwrap()
        }
    }))
    .await;
    let result = outcomes[0].results[0].clone();
    assert_eq!(result.points.len(), 3);
    assert_eq!(
        result.points.iter().sum::<i64>(),
        0,
        "a played-out deal is zero-sum"
    );
    let mut silver_total = 0;
    for (seat_no, player) in table_players.iter().enumerate() {
        let account = settled(&operator, player, GameType::Doudizhu, 1).await;
        let s = standing(&account, GameType::Doudizhu);
        assert_eq!(
            s.points, result.points[seat_no],
            "{player}'s points are the deal's"
        );
        let moved = account.balance_silver - before[player];
        assert_eq!(
            moved,
            result.points[seat_no] * ddz_stakes.silver_per_point,
            "{player}'s silver"
        );
        silver_total += moved;
    }
    assert_eq!(silver_total, 0, "silver only moved between the players");
    tp.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_rob_and_laizi_rooms_seat_bots_who_call_rob_double_and_play_wilds_to_settled_deals() {
    let tp = TestPlatform::start(&[]).await.unwrap();
    let mut operator = tp.clients("e2e-operator", Role::Operator);
    for (room_id, tag) in [("doudizhu-rob", "r"), ("doudizhu-laizi", "l")] {
        let stakes = room(&mut operator, room_id).await.stakes.unwrap();
        let players: Vec<String> = ["cat", "dan", "eve"]
            .iter()
            .map(|p| format!("{tag}-{p}"))
            .collect();
        for p in &players {
            grant(&mut operator, p, stakes.min_balance_silver * 2).await;
        }
        let seats = seat_all(&tp, room_id, &players).await;
        let table_players = seats[0].players.clone();
        let table_id = seats[0].table_id.clone();
        let outcomes = join_all(players.iter().zip(&seats).map(|(p, seat)| {
            let clients = tp.clients(p, Role::Player);
            let table_id = seat.table_id.clone();
            async move {
                drive::doudizhu::play(
                    clients.doudizhu.clone(),
                    &table_id,
                    drive::doudizhu::Options {
                        deals: 2,
                        think: Duration::ZERO,
                    },
                    |_| {},
                )
                .await
                .unwrap()
            }
        }))
        .await;
        let results = &outcomes[0].results;
        assert_eq!(results.len(), 2, "{room_id}: two deals played out");
        let rule_set = room_id.trim_start_matches("doudizhu-");
        let mut totals = [0i64; 3];
        for result in results {
            assert_eq!(result.rule_set, rule_set);
            assert_eq!(result.bid, 0, "{room_id}: no points are bid");
            assert_eq!(result.doubled.len(), 3);
            assert_eq!(result.points.iter().sum::<i64>(), 0, "zero-sum");
            for (total, points) in totals.iter_mut().zip(&result.points) {
                *total += points;
            }
        }
        // The records carry the rule set (and in laizi the wild rank).
        let mut viewer = tp.clients(&players[0], Role::Player);
        for deal_number in 1..=3 {
            let Ok(record) = viewer
                .doudizhu
                .get_deal_record(gamehub_proto::doudizhu::GetDealRecordRequest {
                    table_id: table_id.clone(),
                    deal_number,
                })
                .await
            else {
                continue;
            };
            let record = record.into_inner().record.unwrap();
            assert_eq!(record.rule_set, rule_set);
            // A laizi deal draws its wild rank once a landlord is known (not in a
            // redeal, where nobody called).
            let drawn = rule_set == "laizi" && record.landlord >= 0;
            assert_eq!(
                !record.wild_rank.is_empty(),
                drawn,
                "{room_id} deal {deal_number}"
            );
        }
        for (seat_no, player) in table_players.iter().enumerate() {
            let account = settled(&operator, player, GameType::Doudizhu, 2).await;
            assert_eq!(
                standing(&account, GameType::Doudizhu).points,
                totals[seat_no],
                "{room_id}: {player}'s points are the deals'"
            );
        }
    }
    tp.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_player_at_the_daily_loss_cap_is_refused_at_the_door_with_the_reason() {
    let tp = TestPlatform::start(&[]).await.unwrap();
    let mut operator = tp.clients("e2e-operator", Role::Operator);
    let mut referee = tp.clients("gomoku-referee", Role::Service);
    let capped = "cap-carl".to_owned();
    grant(&mut operator, &capped, 400_000).await;
    // Three games lost at the per-game cap (50,000 each) reach the daily cap (150,000).
    for (i, winner) in ["w-one", "w-two", "w-three"].iter().enumerate() {
        referee
            .ledger
            .settle_game(lg::SettleGameRequest {
                friends_table: false,
                game_id: format!("cap-game-{i}"),
                game_type: GameType::Gomoku as i32,
                stakes: Some(RoomStakes {
                    room_id: "high-stakes".into(),
                    points_base: 1,
                    silver_per_point: 20_000,
                    min_balance_silver: 0,
                    rated: false,
                }),
                players: vec![
                    lg::PlayerResult {
                        player_id: capped.clone(),
                        role: lg::Role::Black as i32,
                        outcome: lg::PlayerOutcome::Loss as i32,
                        points: -5,
                        offered_draw: false,
                    },
                    lg::PlayerResult {
                        player_id: (*winner).to_owned(),
                        role: lg::Role::White as i32,
                        outcome: lg::PlayerOutcome::Win as i32,
                        points: 5,
                        offered_draw: false,
                    },
                ],
                reason: "five".into(),
                table_id: format!("cap-table-{i}"),
                started_at_unix_ms: 1,
                ended_at_unix_ms: 2,
                record: Some(lg::GameRecord {
                    format: "gomoku-text".into(),
                    content: "h8 a1".into(),
                }),
            })
            .await
            .unwrap();
    }
    let today = account(&mut operator, &capped).await.today.unwrap();
    assert_eq!(today.lost_silver, 150_000);
    assert_eq!(today.remaining_loss_silver, 0);

    // The capped player cannot even join a queue: refused at the door with the
    // reason's code, and no ticket made. (A cap reached while a ticket waits ends it
    // REFUSED at seating: the matchmaking suite's ledger tests.)
    let mut capped_clients = tp.clients(&capped, Role::Player);
    let refused = capped_clients
        .matchmaking
        .enqueue(mm::EnqueueRequest {
            room_id: "gomoku-freestyle".into(),
            request_id: request_id(),
            player_id: String::new(),
        })
        .await
        .unwrap_err();
    assert_eq!(refused.code(), tonic::Code::FailedPrecondition);
    assert!(
        refused
            .message()
            .starts_with("not_eligible: daily_loss_cap: "),
        "{}",
        refused.message()
    );
    let place = capped_clients
        .matchmaking
        .locate_player(mm::LocatePlayerRequest {
            player_id: String::new(),
        })
        .await
        .unwrap()
        .into_inner();
    assert!(place.ticket.is_none() && place.seat.is_none(), "{place:?}");
    tp.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_cancelled_ticket_is_never_seated() {
    let tp = TestPlatform::start(&[]).await.unwrap();
    let mut quitter = tp.clients("quitter", Role::Player);
    let ticket = quitter
        .matchmaking
        .enqueue(mm::EnqueueRequest {
            room_id: "gomoku-free".into(),
            request_id: request_id(),
            player_id: String::new(),
        })
        .await
        .unwrap()
        .into_inner()
        .ticket
        .unwrap();
    let cancelled = quitter
        .matchmaking
        .cancel_ticket(mm::CancelTicketRequest {
            ticket_id: ticket.ticket_id.clone(),
        })
        .await
        .unwrap()
        .into_inner()
        .ticket
        .unwrap();
    assert_eq!(cancelled.state(), mm::TicketState::Cancelled);
    // A newcomer does not get seated with the cancelled player.
    let mut newcomer = tp.clients("newcomer", Role::Player);
    let waiting = newcomer
        .matchmaking
        .enqueue(mm::EnqueueRequest {
            room_id: "gomoku-free".into(),
            request_id: request_id(),
            player_id: String::new(),
        })
        .await
        .unwrap()
        .into_inner()
        .ticket
        .unwrap();
    let waiting = newcomer
        .matchmaking
        .get_ticket(mm::GetTicketRequest {
            ticket_id: waiting.ticket_id,
        })
        .await
        .unwrap()
        .into_inner()
        .ticket
        .unwrap();
    assert_eq!(waiting.state(), mm::TicketState::Waiting);
    assert_eq!(waiting.position, 1, "alone in the queue");
    // The newcomer's first table is with the next player to come, not the quitter: the
    // matcher ran with the newcomer waiting (no sleep needed to be sure it had the chance).
    let mut latecomer = tp.clients("latecomer", Role::Player);
    let late_seat = tokio::time::timeout(
        Duration::from_secs(10),
        drive::matchmaking::seat(&mut latecomer.matchmaking, "gomoku-free", "", |_| {}),
    )
    .await
    .expect("the latecomer is seated")
    .unwrap();
    let seated = eventually("the newcomer seated", Duration::from_secs(10), || {
        let mut newcomer = newcomer.matchmaking.clone();
        let ticket_id = waiting.ticket_id.clone();
        async move {
            let ticket = newcomer
                .get_ticket(mm::GetTicketRequest { ticket_id })
                .await
                .unwrap()
                .into_inner()
                .ticket
                .unwrap();
            (ticket.state() == mm::TicketState::Seated).then_some(ticket)
        }
    })
    .await;
    assert_eq!(seated.seat.unwrap().table_id, late_seat.table_id);
    let quitter_ticket = quitter
        .matchmaking
        .get_ticket(mm::GetTicketRequest {
            ticket_id: ticket.ticket_id,
        })
        .await
        .unwrap()
        .into_inner()
        .ticket
        .unwrap();
    assert_eq!(quitter_ticket.state(), mm::TicketState::Cancelled);
    tp.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn two_matchmaking_replicas_never_seat_a_ticket_twice() {
    let tp = TestPlatform::start(&[]).await.unwrap();
    // A second matchmaking replica on the same Redis, prefix and game services.
    let mut pairs = tp.pairs.clone();
    pairs.push(("GAMEHUB_MATCHMAKING_ADDR".into(), "127.0.0.1:0".into()));
    pairs.push(("GAMEHUB_LEDGER_URL".into(), tp.endpoints.ledger.clone()));
    pairs.push(("GAMEHUB_GOMOKU_URL".into(), tp.endpoints.gomoku.clone()));
    pairs.push(("GAMEHUB_DOUDIZHU_URL".into(), tp.endpoints.doudizhu.clone()));
    let shutdown = Shutdown::new();
    let config = gamehub_matchmaking::MatchmakingConfig::from_env(&Env::from_pairs(pairs)).unwrap();
    let second = gamehub_matchmaking::start(config, shutdown.clone())
        .await
        .unwrap();
    let mut second_endpoints = tp.endpoints.clone();
    second_endpoints.matchmaking = format!("http://{}", second.addr);

    let players: Vec<String> = (0..40).map(|i| format!("rep-{i}")).collect();
    let seats = join_all(players.iter().enumerate().map(|(i, p)| {
        let mut clients = tp.clients(p, Role::Player);
        if i % 2 == 1 {
            clients = Clients::new(
                &second_endpoints,
                gamehub_platform::client::TokenSource::Static(
                    tp.config
                        .keys
                        .clone()
                        .mint(p, Role::Player, Duration::from_secs(600))
                        .unwrap(),
                ),
            )
            .unwrap();
        }
        async move {
            let seat =
                drive::matchmaking::seat(&mut clients.matchmaking, "gomoku-free", "", |_| {})
                    .await
                    .unwrap();
            (p.clone(), seat)
        }
    }))
    .await;
    let mut tables: HashMap<String, HashSet<String>> = HashMap::new();
    for (player, seat) in &seats {
        assert!(
            seat.players.contains(player),
            "{player} sits at its own table"
        );
        tables
            .entry(seat.table_id.clone())
            .or_default()
            .insert(player.clone());
    }
    assert_eq!(tables.len(), 20, "40 players make 20 tables");
    let mut seen = HashSet::new();
    for (table, at) in &tables {
        assert_eq!(at.len(), 2, "table {table} has two players: {at:?}");
        for p in at {
            assert!(seen.insert(p.clone()), "{p} seated twice");
        }
    }
    shutdown.trigger();
    let _ = second.task.await;
    tp.stop().await;
}

/// A rooms file with a Gomoku and a Dou Dizhu room at the largest stakes every service
/// accepts.
fn largest_stakes_rooms() -> String {
    use gamehub_terms::stakes::{MAX_POINTS_BASE, MAX_SILVER_PER_POINT};
    format!(
        r#"
[[rooms]]
id = "gomoku-max"
name = "Gomoku at the largest stakes"
game = "gomoku"
rules = "freestyle"
move_time_ms = 60_000
total_time_ms = 900_000
points_base = {MAX_POINTS_BASE}
silver_per_point = {MAX_SILVER_PER_POINT}

[[rooms]]
id = "doudizhu-max"
name = "Dou Dizhu at the largest stakes"
game = "doudizhu"
rules = "classic"
turn_time_ms = 20_000
points_base = {MAX_POINTS_BASE}
silver_per_point = {MAX_SILVER_PER_POINT}
"#
    )
}

/// Settlements the ledger refused (dead letters) and settlements not yet delivered, in
/// every shard of `game`'s outboxes.
async fn undelivered(tp: &TestPlatform, game: &'static str) -> (u64, u64) {
    use gamehub_platform::tables::{StoreLimits, TableStore};
    let prefix = tp
        .pairs
        .iter()
        .find(|(k, _)| k == "GAMEHUB_REDIS_PREFIX")
        .map(|(_, v)| v.clone())
        .unwrap();
    let store = TableStore::new(
        gamehub_testkit::redis::connect().await,
        &prefix,
        game,
        StoreLimits::default(),
        gamehub_platform::Clock::system(),
    );
    (
        store.dead_letters().await.unwrap(),
        store.settlement_backlog().await.unwrap(),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn tables_at_the_largest_stakes_are_played_and_settled_and_larger_ones_never_open() {
    use gamehub_terms::stakes::{MAX_POINTS_BASE, MAX_SILVER_PER_POINT};
    let rooms_file = std::env::temp_dir().join(format!("rooms-{}.toml", request_id()));
    std::fs::write(&rooms_file, largest_stakes_rooms()).unwrap();
    let tp = TestPlatform::start(&[("GAMEHUB_ROOMS_FILE", rooms_file.to_str().unwrap())])
        .await
        .unwrap();
    let mut operator = tp.clients("e2e-operator", Role::Operator);
    let cap = gamehub_terms::caps::DEFAULT_GAME_LOSS_CAP_SILVER;

    // ---- Gomoku: a scripted five; black is owed 5 × 10^6 points × 10^6 silver.
    let stakes = room(&mut operator, "gomoku-max").await.stakes.unwrap();
    assert_eq!(
        (stakes.points_base, stakes.silver_per_point),
        (MAX_POINTS_BASE, MAX_SILVER_PER_POINT)
    );
    let players: Vec<String> = vec!["max-ann".into(), "max-ben".into()];
    for p in &players {
        grant(&mut operator, p, 4 * cap).await;
    }
    let seats = seat_all(&tp, "gomoku-max", &players).await;
    let table_id = seats[0].table_id.clone();
    let table = tp
        .clients(&players[0], Role::Player)
        .gomoku
        .get_table(gm::GetTableRequest {
            table_id: table_id.clone(),
        })
        .await
        .unwrap()
        .into_inner()
        .table
        .unwrap();
    let black_seat = table.game.unwrap().black_seat;
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
    for (who, point) in [
        (&black, "h8"),
        (&white, "a1"),
        (&black, "h9"),
        (&white, "a2"),
        (&black, "h10"),
        (&white, "a3"),
        (&black, "h11"),
        (&white, "a4"),
        (&black, "h12"),
    ] {
        tp.clients(who, Role::Player)
            .gomoku
            .place_stone(gm::PlaceStoneRequest {
                table_id: table_id.clone(),
                request_id: request_id(),
                point: Some(gm::Point {
                    text: point.into(),
                    x: 0,
                    y: 0,
                }),
                known_stones: 0,
                known_game: 0,
            })
            .await
            .unwrap();
    }
    let black_account = settled(&operator, &black, GameType::Gomoku, 1).await;
    let white_account = settled(&operator, &white, GameType::Gomoku, 1).await;
    assert_eq!(
        standing(&black_account, GameType::Gomoku).points,
        5 * MAX_POINTS_BASE
    );
    assert_eq!(
        black_account.balance_silver,
        4 * cap + cap,
        "the win, capped"
    );
    assert_eq!(
        white_account.balance_silver,
        4 * cap - cap,
        "the loss, capped"
    );
    assert_eq!(undelivered(&tp, "gomoku").await, (0, 0), "no dead letter");

    // ---- Dou Dizhu: three bots play a deal to its end.
    let players: Vec<String> = vec!["max-cat".into(), "max-dan".into(), "max-eve".into()];
    for p in &players {
        grant(&mut operator, p, 4 * cap).await;
    }
    let seats = seat_all(&tp, "doudizhu-max", &players).await;
    let outcomes = join_all(players.iter().zip(&seats).map(|(p, seat)| {
        let clients = tp.clients(p, Role::Player);
        let table_id = seat.table_id.clone();
        async move {
            drive::doudizhu::play(
                clients.doudizhu.clone(),
                &table_id,
                drive::doudizhu::Options {
                    deals: 1,
                    think: Duration::ZERO,
                },
                |_| {},
            )
            .await
            .unwrap()
        }
    }))
    .await;
    let points = outcomes[0].results[0].points.clone();
    let mut silver_total = 0;
    for (seat_no, player) in seats[0].players.iter().enumerate() {
        let account = settled(&operator, player, GameType::Doudizhu, 1).await;
        assert_eq!(
            standing(&account, GameType::Doudizhu).points,
            points[seat_no]
        );
        let moved = account.balance_silver - 4 * cap;
        assert!(
            moved.abs() <= cap && moved.signum() == points[seat_no].signum(),
            "{player} moved {moved} silver for {} points",
            points[seat_no]
        );
        silver_total += moved;
    }
    assert_eq!(silver_total, 0);
    assert_eq!(undelivered(&tp, "doudizhu").await, (0, 0), "no dead letter");

    // ---- One silver per point more: neither game service opens the table.
    let mut service = tp.clients("matchmaking", Role::Service);
    let too_much = RoomStakes {
        room_id: "too-much".into(),
        points_base: 1,
        silver_per_point: MAX_SILVER_PER_POINT + 1,
        min_balance_silver: 0,
        rated: false,
    };
    let status = service
        .gomoku
        .open_table(gm::OpenTableRequest {
            bot_seats: Vec::new(),
            friends_table: false,
            profiles: Vec::new(),
            request_id: request_id(),
            stakes: Some(too_much.clone()),
            rule_set: gm::RuleSet::Freestyle as i32,
            time_control: Some(gm::TimeControl {
                per_move_ms: 0,
                total_ms: 0,
            }),
            player_ids: vec!["p1".into(), "p2".into()],
            first_black_seat: 0,
            designated_opening: String::new(),
            paired_games: false,
        })
        .await
        .unwrap_err();
    assert_eq!(status.code(), tonic::Code::InvalidArgument);
    assert!(
        status.message().contains("stakes.silver_per_point"),
        "{status:?}"
    );
    let status = service
        .doudizhu
        .open_table(gamehub_proto::doudizhu::OpenTableRequest {
            bot_seats: Vec::new(),
            friends_table: false,
            profiles: Vec::new(),
            request_id: request_id(),
            stakes: Some(too_much),
            turn_time_ms: 0,
            player_ids: vec!["p1".into(), "p2".into(), "p3".into()],
            test_seeds: vec![],
            rule_set: String::new(),
        })
        .await
        .unwrap_err();
    assert_eq!(status.code(), tonic::Code::InvalidArgument);
    assert!(
        status.message().contains("stakes.silver_per_point"),
        "{status:?}"
    );
    tp.stop().await;
    let _ = std::fs::remove_file(rooms_file);
}
