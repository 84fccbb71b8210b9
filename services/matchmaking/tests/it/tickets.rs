//! The ticket API: rooms, enqueue, idempotency, one live ticket and one seat per
//! player, cancel, expiry, polling and watching, limits, authorization.

use std::sync::Arc;
use std::time::Duration;

use gamehub_platform::auth::Role;
use gamehub_proto::common::GameType;
use gamehub_proto::ledger::Refusal;
use gamehub_proto::matchmaking::{
    CancelTicketRequest, EnqueueRequest, GetTicketRequest, ListRoomsRequest, LocatePlayerRequest,
    LocatePlayerResponse, TableStage, TicketState, WatchTicketRequest,
};
use tonic::Code;

use crate::support::*;

async fn with_fakes() -> (TestMatchmaking, Arc<FakeLedger>, Arc<FakeTables>) {
    let ledger = Arc::new(FakeLedger::default());
    let tables = Arc::new(FakeTables::default());
    let mm = spawn_with(test_config(), ledger.clone(), tables.clone()).await;
    (mm, ledger, tables)
}

#[tokio::test]
async fn rooms_list_their_rules_stakes_and_waiting_players() {
    let (mm, _, _) = with_fakes().await;
    let mut alice = mm.player("alice");
    enqueue(&mut alice, "doudizhu-free").await;
    let rooms = alice
        .list_rooms(ListRoomsRequest {})
        .await
        .unwrap()
        .into_inner()
        .rooms;
    let ids: Vec<&str> = rooms.iter().map(|r| r.room_id.as_str()).collect();
    for id in [
        "gomoku-freestyle",
        "gomoku-renju",
        "gomoku-renju-claim",
        "gomoku-renju-refuse",
        "gomoku-renju-swap",
        "gomoku-renju-opening",
        "doudizhu-classic",
        "gomoku-free",
        "doudizhu-free",
    ] {
        assert!(ids.contains(&id), "{id} listed");
    }
    let opening = rooms
        .iter()
        .find(|r| r.room_id == "gomoku-renju-opening")
        .unwrap();
    assert_eq!(
        (
            opening.rule_set.as_str(),
            opening.designated_opening.as_str()
        ),
        ("renju-lose", "random"),
        "the designated-opening room draws each game's opening"
    );
    let renju = rooms.iter().find(|r| r.room_id == "gomoku-renju").unwrap();
    assert_eq!(renju.rule_set, "renju-lose");
    assert_eq!(
        renju.designated_opening, "",
        "games start from an empty board"
    );
    assert_eq!(renju.game_type, GameType::Gomoku as i32);
    assert_eq!(renju.seats, 2);
    let stakes = renju.stakes.as_ref().unwrap();
    assert_eq!(stakes.silver_per_point, 100);
    assert_eq!(stakes.min_balance_silver, 1000);
    assert!(stakes.rated);
    assert!(renju.time_control.as_ref().unwrap().move_time_ms > 0);
    let free = rooms.iter().find(|r| r.room_id == "doudizhu-free").unwrap();
    assert_eq!(free.waiting_players, 1);
    assert_eq!(free.seats, 3);
    assert_eq!(free.stakes.as_ref().unwrap().min_balance_silver, 0);
}

#[tokio::test]
async fn enqueue_is_idempotent_on_the_request_id() {
    let (mm, _, _) = with_fakes().await;
    let mut alice = mm.player("alice");
    let request = EnqueueRequest {
        room_id: "doudizhu-free".into(),
        request_id: "req-1".into(),
        player_id: String::new(),
    };
    let first = alice.enqueue(request.clone()).await.unwrap().into_inner();
    assert!(!first.replayed);
    let ticket = first.ticket.unwrap();
    assert_eq!(state(&ticket), TicketState::Waiting);
    assert_eq!(ticket.player_id, "alice");
    assert_eq!(ticket.position, 1);
    let again = alice.enqueue(request.clone()).await.unwrap().into_inner();
    assert!(again.replayed);
    assert_eq!(again.ticket.unwrap().ticket_id, ticket.ticket_id);

    // The same request id for another room is a different request.
    let other = alice
        .enqueue(EnqueueRequest {
            room_id: "gomoku-free".into(),
            ..request.clone()
        })
        .await
        .unwrap_err();
    assert_eq!(other.code(), Code::AlreadyExists);

    // A replay still answers after the ticket ended.
    alice
        .cancel_ticket(CancelTicketRequest {
            ticket_id: ticket.ticket_id.clone(),
        })
        .await
        .unwrap();
    let replay = alice.enqueue(request).await.unwrap().into_inner();
    assert!(replay.replayed);
    assert_eq!(state(&replay.ticket.unwrap()), TicketState::Cancelled);
}

#[tokio::test]
async fn a_player_has_one_live_ticket_at_a_time() {
    let (mm, _, _) = with_fakes().await;
    let mut bob = mm.player("bob");
    let first = enqueue(&mut bob, "doudizhu-free").await;
    let refused = bob
        .enqueue(EnqueueRequest {
            room_id: "gomoku-renju".into(),
            request_id: "another".into(),
            player_id: String::new(),
        })
        .await
        .unwrap_err();
    assert_eq!(refused.code(), Code::FailedPrecondition);
    assert!(
        refused.message().starts_with("live_ticket: ")
            && refused.message().contains(&first.ticket_id),
        "{}",
        refused.message()
    );

    bob.cancel_ticket(CancelTicketRequest {
        ticket_id: first.ticket_id,
    })
    .await
    .unwrap();
    let second = enqueue(&mut bob, "doudizhu-free").await;
    assert_eq!(state(&second), TicketState::Waiting);
}

/// Leaves the Redis state of an Enqueue that crashed `age` ago, after reserving the
/// player's live slot for a ticket and before making it; returns that ticket's id.
async fn crash_an_enqueue(
    config: &gamehub_matchmaking::MatchmakingConfig,
    player: &str,
    room: &str,
    request_id: &str,
    age: Duration,
) -> String {
    let made_at = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .saturating_sub(age);
    // A UUIDv7, as TicketId::new makes: 48 bits of Unix ms, then version 7 and variant.
    let ticket_id = format!("{room}.{:012x}7abc8def0123456789ab", made_at.as_millis());
    let mut conn = gamehub_testkit::redis::connect().await;
    let base = format!("{}:{{mmp:{player}}}", config.common.redis_prefix);
    let _: () = redis::pipe()
        .cmd("SET")
        .arg(format!("{base}:rq:{request_id}"))
        .arg(&ticket_id)
        .arg("EX")
        .arg(600)
        .ignore()
        .cmd("SET")
        .arg(format!("{base}:live"))
        .arg(&ticket_id)
        .arg("EX")
        .arg(600)
        .ignore()
        .query_async(&mut conn)
        .await
        .unwrap();
    ticket_id
}

fn enqueue_request(room: &str, request_id: &str) -> EnqueueRequest {
    EnqueueRequest {
        room_id: room.into(),
        request_id: request_id.into(),
        player_id: String::new(),
    }
}

#[tokio::test]
async fn a_retry_finishes_the_ticket_its_crashed_enqueue_reserved() {
    let config = test_config();
    let mm = spawn_with(
        config.clone(),
        Arc::new(FakeLedger::default()),
        Arc::new(FakeTables::default()),
    )
    .await;
    let mut hana = mm.player("hana");
    let reserved = crash_an_enqueue(
        &config,
        "hana",
        "doudizhu-free",
        "first",
        Duration::from_secs(1),
    )
    .await;

    // A young reservation may still be in the making: another request waits for it.
    let refused = hana
        .enqueue(enqueue_request("doudizhu-free", "second"))
        .await
        .unwrap_err();
    assert_eq!(refused.code(), Code::FailedPrecondition);
    assert!(
        refused.message().starts_with("live_ticket: ") && refused.message().contains(&reserved),
        "{}",
        refused.message()
    );

    let finished = hana
        .enqueue(enqueue_request("doudizhu-free", "first"))
        .await
        .unwrap()
        .into_inner();
    assert!(finished.replayed);
    let ticket = finished.ticket.unwrap();
    assert_eq!(ticket.ticket_id, reserved);
    assert_eq!(state(&ticket), TicketState::Waiting);
}

#[tokio::test]
async fn an_abandoned_reservation_never_becomes_a_second_live_ticket() {
    let config = test_config();
    let mm = spawn_with(
        config.clone(),
        Arc::new(FakeLedger::default()),
        Arc::new(FakeTables::default()),
    )
    .await;
    let mut ivan = mm.player("ivan");
    let abandoned = crash_an_enqueue(
        &config,
        "ivan",
        "doudizhu-free",
        "first",
        Duration::from_secs(60),
    )
    .await;

    // An old reservation without a ticket is freed by the next request...
    let newer = ivan
        .enqueue(enqueue_request("doudizhu-free", "second"))
        .await
        .unwrap()
        .into_inner()
        .ticket
        .unwrap();
    assert_ne!(newer.ticket_id, abandoned);
    // ...and a late retry of the crashed request does not make it a second live ticket.
    let refused = ivan
        .enqueue(enqueue_request("doudizhu-free", "first"))
        .await
        .unwrap_err();
    assert_eq!(refused.code(), Code::FailedPrecondition);
    assert!(
        refused.message().starts_with("live_ticket: ")
            && refused.message().contains(&newer.ticket_id),
        "{}",
        refused.message()
    );
    let missing = ivan
        .get_ticket(GetTicketRequest {
            ticket_id: abandoned.clone(),
        })
        .await
        .unwrap_err();
    assert_eq!(missing.code(), Code::NotFound);

    // Once the newer ticket ended, the retry enqueues afresh.
    ivan.cancel_ticket(CancelTicketRequest {
        ticket_id: newer.ticket_id,
    })
    .await
    .unwrap();
    let afresh = ivan
        .enqueue(enqueue_request("doudizhu-free", "first"))
        .await
        .unwrap()
        .into_inner();
    assert!(!afresh.replayed);
    let ticket = afresh.ticket.unwrap();
    assert_ne!(ticket.ticket_id, abandoned);
    assert_eq!(state(&ticket), TicketState::Waiting);
}

#[tokio::test]
async fn a_player_still_at_a_table_cannot_enqueue_until_it_leaves() {
    let (mm, _, tables) = with_fakes().await;
    let mut carol = mm.player("carol");
    let mut dave = mm.player("dave");
    let a = enqueue(&mut carol, "gomoku-free").await;
    let b = enqueue(&mut dave, "gomoku-free").await;
    let seated = wait_for(
        &mut carol,
        &a.ticket_id,
        TicketState::Seated,
        Duration::from_secs(5),
    )
    .await;
    wait_for(
        &mut dave,
        &b.ticket_id,
        TicketState::Seated,
        Duration::from_secs(5),
    )
    .await;
    let table_id = seated.seat.unwrap().table_id;

    tables.still_seated.lock().unwrap().insert("carol".into());
    let refused = carol
        .enqueue(EnqueueRequest {
            room_id: "gomoku-free".into(),
            request_id: "next".into(),
            player_id: String::new(),
        })
        .await
        .unwrap_err();
    assert_eq!(refused.code(), Code::FailedPrecondition);
    assert!(
        refused.message().starts_with("already_seated: ") && refused.message().contains(&table_id),
        "{}",
        refused.message()
    );

    // The game service says the table is over for carol: she may queue again.
    tables.still_seated.lock().unwrap().clear();
    let again = enqueue(&mut carol, "gomoku-free").await;
    assert_eq!(state(&again), TicketState::Waiting);
}

#[tokio::test]
async fn two_players_are_seated_together_and_learn_it_by_stream_and_poll() {
    let (mm, _, tables) = with_fakes().await;
    let mut erin = mm.player("erin");
    let mut frank = mm.player("frank");
    let a = enqueue(&mut erin, "gomoku-free").await;
    assert_eq!(a.position, 1);
    assert_eq!(a.waiting_players, 1);
    let mut stream = erin
        .watch_ticket(WatchTicketRequest {
            ticket_id: a.ticket_id.clone(),
        })
        .await
        .unwrap()
        .into_inner();
    let first = stream.message().await.unwrap().unwrap().ticket.unwrap();
    assert_eq!(state(&first), TicketState::Waiting);
    assert_eq!(first.position, 1);

    let b = enqueue(&mut frank, "gomoku-free").await;
    let mut last = first;
    while let Some(update) = tokio::time::timeout(Duration::from_secs(5), stream.message())
        .await
        .unwrap()
        .unwrap()
    {
        last = update.ticket.unwrap();
    }
    assert_eq!(
        state(&last),
        TicketState::Seated,
        "the stream ends after the seat"
    );
    let seat_a = last.seat.unwrap();
    let b = wait_for(
        &mut frank,
        &b.ticket_id,
        TicketState::Seated,
        Duration::from_secs(5),
    )
    .await;
    let seat_b = b.seat.unwrap();
    assert_eq!(seat_a.table_id, seat_b.table_id);
    assert_eq!(seat_a.game_type, GameType::Gomoku as i32);
    assert_ne!(seat_a.seat, seat_b.seat);
    assert_eq!(seat_a.players, seat_b.players);
    assert_eq!(seat_a.players[seat_a.seat as usize], "erin");
    assert_eq!(seat_b.players[seat_b.seat as usize], "frank");
    let calls = tables.calls();
    assert_eq!(calls.len(), 1);
    assert_eq!(FakeTables::table_of(&calls[0].match_id), seat_a.table_id);
    assert_eq!(calls[0].players, seat_a.players);
}

#[tokio::test]
async fn three_players_make_a_dou_dizhu_table() {
    let (mm, _, tables) = with_fakes().await;
    let mut tickets = Vec::new();
    for name in ["p1", "p2", "p3", "p4"] {
        tickets.push((name, enqueue(&mut mm.player(name), "doudizhu-free").await));
    }
    for (name, ticket) in &tickets[..3] {
        let seated = wait_for(
            &mut mm.player(name),
            &ticket.ticket_id,
            TicketState::Seated,
            Duration::from_secs(5),
        )
        .await;
        assert_eq!(seated.seat.unwrap().players.len(), 3);
    }
    let fourth = mm
        .player("p4")
        .get_ticket(GetTicketRequest {
            ticket_id: tickets[3].1.ticket_id.clone(),
        })
        .await
        .unwrap()
        .into_inner()
        .ticket
        .unwrap();
    assert_eq!(state(&fourth), TicketState::Waiting);
    assert_eq!(fourth.position, 1, "the fourth waits first in line");
    assert_eq!(tables.calls().len(), 1);
}

#[tokio::test]
async fn cancelling_a_waiting_ticket_ends_it_once() {
    let (mm, _, _) = with_fakes().await;
    let mut gina = mm.player("gina");
    let ticket = enqueue(&mut gina, "doudizhu-free").await;
    let cancelled = gina
        .cancel_ticket(CancelTicketRequest {
            ticket_id: ticket.ticket_id.clone(),
        })
        .await
        .unwrap()
        .into_inner()
        .ticket
        .unwrap();
    assert_eq!(state(&cancelled), TicketState::Cancelled);
    assert!(cancelled.ended_at_unix_ms > 0);
    // Cancelling again answers the same.
    let again = gina
        .cancel_ticket(CancelTicketRequest {
            ticket_id: ticket.ticket_id.clone(),
        })
        .await
        .unwrap()
        .into_inner()
        .ticket
        .unwrap();
    assert_eq!(state(&again), TicketState::Cancelled);
    let rooms = gina
        .list_rooms(ListRoomsRequest {})
        .await
        .unwrap()
        .into_inner()
        .rooms;
    let room = rooms.iter().find(|r| r.room_id == "doudizhu-free").unwrap();
    assert_eq!(room.waiting_players, 0);
}

#[tokio::test]
async fn a_seated_ticket_cannot_be_cancelled() {
    let (mm, _, _) = with_fakes().await;
    let mut hal = mm.player("hal");
    let a = enqueue(&mut hal, "gomoku-free").await;
    enqueue(&mut mm.player("ivy"), "gomoku-free").await;
    wait_for(
        &mut hal,
        &a.ticket_id,
        TicketState::Seated,
        Duration::from_secs(5),
    )
    .await;
    let refused = hal
        .cancel_ticket(CancelTicketRequest {
            ticket_id: a.ticket_id,
        })
        .await
        .unwrap_err();
    assert_eq!(refused.code(), Code::FailedPrecondition);
    assert!(
        refused.message().starts_with("ticket_ended: ") && refused.message().contains("seated"),
        "{}",
        refused.message()
    );
}

#[tokio::test]
async fn tickets_expire_and_watchers_see_it() {
    let clock = gamehub_testkit::clock::ManualClock::new();
    let mut config = test_config();
    config.store.ticket_ttl = Duration::from_millis(400);
    config.common.clock = clock.clock();
    let mm = spawn_with(
        config,
        Arc::new(FakeLedger::default()),
        Arc::new(FakeTables::default()),
    )
    .await;
    let mut jack = mm.player("jack");
    let ticket = enqueue(&mut jack, "doudizhu-free").await;
    assert!(ticket.expires_at_unix_ms > ticket.created_at_unix_ms);
    // Both told by the service's clock, not the wall clock.
    let now = i64::try_from(clock.now_ms()).unwrap();
    assert_eq!(ticket.created_at_unix_ms, now);
    assert_eq!(ticket.expires_at_unix_ms, now + 400);
    let mut stream = jack
        .watch_ticket(WatchTicketRequest {
            ticket_id: ticket.ticket_id.clone(),
        })
        .await
        .unwrap()
        .into_inner();
    // The ticket lives until its time is up by the service's clock.
    let first = stream.message().await.unwrap().unwrap().ticket.unwrap();
    assert_eq!(state(&first), TicketState::Waiting);
    clock.advance(Duration::from_millis(450));
    let mut last = None;
    while let Some(update) = tokio::time::timeout(Duration::from_secs(5), stream.message())
        .await
        .unwrap()
        .unwrap()
    {
        last = update.ticket;
    }
    assert_eq!(state(&last.unwrap()), TicketState::Expired);
    // The player may queue again at once.
    assert_eq!(
        state(&enqueue(&mut jack, "doudizhu-free").await),
        TicketState::Waiting
    );
}

#[tokio::test]
async fn players_act_only_for_themselves() {
    let (mm, _, _) = with_fakes().await;
    let mut kim = mm.player("kim");
    let ticket = enqueue(&mut kim, "doudizhu-free").await;

    let mut lee = mm.player("lee");
    let err = lee
        .enqueue(EnqueueRequest {
            room_id: "doudizhu-free".into(),
            request_id: "x".into(),
            player_id: "kim".into(),
        })
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::PermissionDenied);
    for err in [
        lee.get_ticket(GetTicketRequest {
            ticket_id: ticket.ticket_id.clone(),
        })
        .await
        .unwrap_err(),
        lee.cancel_ticket(CancelTicketRequest {
            ticket_id: ticket.ticket_id.clone(),
        })
        .await
        .unwrap_err(),
    ] {
        assert_eq!(err.code(), Code::NotFound);
    }

    // An operator may queue any player and read its ticket (services may not: the
    // access table lets no service queue).
    let mut service = client(mm.url(), mm.token("ops", Role::Operator));
    let queued = service
        .enqueue(EnqueueRequest {
            room_id: "doudizhu-free".into(),
            request_id: "bot-1".into(),
            player_id: "bot-1".into(),
        })
        .await
        .unwrap()
        .into_inner()
        .ticket
        .unwrap();
    assert_eq!(queued.player_id, "bot-1");
    service
        .get_ticket(GetTicketRequest {
            ticket_id: ticket.ticket_id,
        })
        .await
        .unwrap();

    let anonymous = client(mm.url(), "not-a-jwt".into())
        .list_rooms(ListRoomsRequest {})
        .await
        .unwrap_err();
    assert_eq!(anonymous.code(), Code::Unauthenticated);
    let _ = mm.token("x", Role::Operator);
}

#[tokio::test]
async fn bad_input_is_refused_with_a_reason() {
    let (mm, _, _) = with_fakes().await;
    let mut max = mm.player("max");
    let unknown_room = max
        .enqueue(EnqueueRequest {
            room_id: "chess".into(),
            request_id: "r".into(),
            player_id: String::new(),
        })
        .await
        .unwrap_err();
    assert_eq!(unknown_room.code(), Code::NotFound);
    assert!(unknown_room.message().contains("ListRooms"));
    assert!(unknown_room.message().contains("\"chess\""));
    // An empty or oversized room id is malformed, named, and never echoed whole.
    for room_id in [
        String::new(),
        " ".into(),
        "r".repeat(33),
        "r".repeat(100_000),
    ] {
        let err = max
            .enqueue(EnqueueRequest {
                room_id: room_id.clone(),
                request_id: "r".into(),
                player_id: String::new(),
            })
            .await
            .unwrap_err();
        assert_eq!(err.code(), Code::InvalidArgument, "{err:?}");
        assert!(err.message().starts_with("room_id: "), "{}", err.message());
        assert!(err.message().len() < 100, "{}", err.message());
    }
    // A malformed ticket id is quoted as a short excerpt.
    let err = max
        .get_ticket(GetTicketRequest {
            ticket_id: "y".repeat(60),
        })
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::InvalidArgument, "{err:?}");
    assert!(
        !err.message().contains(&"y".repeat(25)),
        "{}",
        err.message()
    );
    for request_id in ["", "has space", &"x".repeat(65)] {
        let err = max
            .enqueue(EnqueueRequest {
                room_id: "gomoku-free".into(),
                request_id: request_id.into(),
                player_id: String::new(),
            })
            .await
            .unwrap_err();
        assert_eq!(err.code(), Code::InvalidArgument, "{request_id:?}");
        assert!(err.message().contains("request_id"));
    }
    for ticket_id in [
        "",
        "nonsense",
        "gomoku-free.zz",
        "chess.0123456789abcdef0123456789abcdef",
    ] {
        let err = max
            .get_ticket(GetTicketRequest {
                ticket_id: ticket_id.into(),
            })
            .await
            .unwrap_err();
        assert_eq!(err.code(), Code::InvalidArgument, "{ticket_id:?}");
    }
    let missing = max
        .get_ticket(GetTicketRequest {
            ticket_id: "gomoku-free.0123456789abcdef0123456789abcdef".into(),
        })
        .await
        .unwrap_err();
    assert_eq!(missing.code(), Code::NotFound);
}

#[tokio::test]
async fn a_full_queue_refuses_more_tickets() {
    let mut config = test_config();
    config.store.max_queue = 2;
    let mm = spawn_with(
        config,
        Arc::new(FakeLedger::default()),
        Arc::new(FakeTables::default()),
    )
    .await;
    enqueue(&mut mm.player("q1"), "doudizhu-free").await;
    enqueue(&mut mm.player("q2"), "doudizhu-free").await;
    let mut q3 = mm.player("q3");
    let err = q3
        .enqueue(EnqueueRequest {
            room_id: "doudizhu-free".into(),
            request_id: "r3".into(),
            player_id: String::new(),
        })
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::ResourceExhausted);
    // The refusal left nothing behind: the same player may queue elsewhere.
    assert_eq!(
        state(&enqueue(&mut q3, "gomoku-renju-swap").await),
        TicketState::Waiting
    );
}

#[tokio::test]
async fn watchers_are_limited() {
    let mut config = test_config();
    config.watch.max_watchers_per_ticket = 2;
    let mm = spawn_with(
        config,
        Arc::new(FakeLedger::default()),
        Arc::new(FakeTables::default()),
    )
    .await;
    let mut ned = mm.player("ned");
    let ticket = enqueue(&mut ned, "doudizhu-free").await;
    let request = WatchTicketRequest {
        ticket_id: ticket.ticket_id,
    };
    let _a = ned.watch_ticket(request.clone()).await.unwrap();
    let _b = ned.watch_ticket(request.clone()).await.unwrap();
    let err = ned.watch_ticket(request).await.unwrap_err();
    assert_eq!(err.code(), Code::ResourceExhausted);
}

#[tokio::test]
async fn the_health_subcommand_says_whether_matchmaking_serves() {
    let (mm, _, _) = with_fakes().await;
    let binary = env!("CARGO_BIN_EXE_gamehub-matchmaking");
    let serving = tokio::process::Command::new(binary)
        .args(["health", "--addr", mm.url()])
        .status()
        .await
        .unwrap();
    assert!(serving.success());
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let closed = format!("http://{}", listener.local_addr().unwrap());
    drop(listener);
    let down = tokio::process::Command::new(binary)
        .args(["health", "--addr", &closed])
        .status()
        .await
        .unwrap();
    assert!(!down.success());
}

async fn locate(client: &mut Client, player_id: &str) -> LocatePlayerResponse {
    client
        .locate_player(LocatePlayerRequest {
            player_id: player_id.into(),
        })
        .await
        .unwrap()
        .into_inner()
}

#[tokio::test]
async fn locate_player_shows_the_live_ticket_then_the_seat_until_the_table_is_over() {
    let (mm, _, tables) = with_fakes().await;
    let mut gina = mm.player("gina");
    let mut hank = mm.player("hank");

    let nowhere = locate(&mut gina, "").await;
    assert_eq!(nowhere.player_id, "gina");
    assert!(nowhere.ticket.is_none() && nowhere.seat.is_none());

    // Waiting: the live ticket, no seat.
    let a = enqueue(&mut gina, "gomoku-free").await;
    let waiting = locate(&mut gina, "").await;
    let ticket = waiting.ticket.expect("the live ticket");
    assert_eq!(ticket.ticket_id, a.ticket_id);
    assert_eq!(state(&ticket), TicketState::Waiting);
    assert!(waiting.seat.is_none());

    // Seated: the seat, as the game service reports it; the ticket ended, so none.
    tables
        .still_seated
        .lock()
        .unwrap()
        .extend(["gina".to_owned(), "hank".to_owned()]);
    let b = enqueue(&mut hank, "gomoku-free").await;
    let seated = wait_for(
        &mut gina,
        &a.ticket_id,
        TicketState::Seated,
        Duration::from_secs(5),
    )
    .await
    .seat
    .unwrap();
    wait_for(
        &mut hank,
        &b.ticket_id,
        TicketState::Seated,
        Duration::from_secs(5),
    )
    .await;
    let found = locate(&mut gina, "gina").await;
    assert!(found.ticket.is_none(), "a seated ticket is not live");
    let seat = found.seat.expect("gina's seat");
    assert_eq!(seat.game_type, GameType::Gomoku as i32);
    assert_eq!(seat.table_id, seated.table_id);
    assert_eq!(seat.seat, seated.seat);
    assert_eq!(seat.room_id, "gomoku-free");
    assert_eq!(seat.stage, TableStage::InProgress as i32);
    assert_eq!(seat.players, seated.players);
    assert_eq!(seat.ticket_id, a.ticket_id);

    // The game service says the table is over for gina (she left, it timed out or was
    // closed): no seat, and she may queue again, which locate shows.
    tables.still_seated.lock().unwrap().remove("gina");
    assert!(locate(&mut gina, "").await.seat.is_none());
    let again = enqueue(&mut gina, "gomoku-free").await;
    let now = locate(&mut gina, "").await;
    assert_eq!(now.ticket.unwrap().ticket_id, again.ticket_id);
    assert!(now.seat.is_none());
    // hank still sits there.
    assert_eq!(
        locate(&mut hank, "").await.seat.unwrap().table_id,
        seated.table_id
    );
}

#[tokio::test]
async fn locate_player_reads_only_ones_own_place_unless_operator_or_service() {
    let (mm, _, tables) = with_fakes().await;
    let mut ivy = mm.player("ivy");
    let mut jack = mm.player("jack");
    tables
        .still_seated
        .lock()
        .unwrap()
        .extend(["ivy".to_owned(), "jack".to_owned()]);
    let a = enqueue(&mut ivy, "gomoku-free").await;
    enqueue(&mut jack, "gomoku-free").await;
    let table = wait_for(
        &mut ivy,
        &a.ticket_id,
        TicketState::Seated,
        Duration::from_secs(5),
    )
    .await
    .seat
    .unwrap()
    .table_id;

    // Even her opponent may not read where ivy sits.
    let refused = jack
        .locate_player(LocatePlayerRequest {
            player_id: "ivy".into(),
        })
        .await
        .unwrap_err();
    assert_eq!(refused.code(), Code::PermissionDenied, "{refused:?}");
    assert!(!refused.message().contains(&table), "{}", refused.message());

    let mut operator = client(mm.url(), mm.token("ops", Role::Operator));
    assert_eq!(
        locate(&mut operator, "ivy").await.seat.unwrap().table_id,
        table
    );
    assert_eq!(
        locate(
            &mut client(mm.url(), mm.token("ops", Role::Operator)),
            "jack"
        )
        .await
        .seat
        .unwrap()
        .table_id,
        table
    );

    // A malformed player id names the field; an anonymous call is refused.
    for bad in ["x".repeat(65), "ivy jack".into()] {
        let status = operator
            .locate_player(LocatePlayerRequest { player_id: bad })
            .await
            .unwrap_err();
        assert_eq!(status.code(), Code::InvalidArgument);
        assert!(
            status.message().contains("player_id"),
            "{}",
            status.message()
        );
    }
    let status = client(mm.url(), "not-a-jwt".into())
        .locate_player(LocatePlayerRequest::default())
        .await
        .unwrap_err();
    assert_eq!(status.code(), Code::Unauthenticated);

    // The game service cannot confirm the seat: UNAVAILABLE, not a guess either way.
    tables
        .lookups_down
        .store(true, std::sync::atomic::Ordering::SeqCst);
    let status = ivy
        .locate_player(LocatePlayerRequest::default())
        .await
        .unwrap_err();
    assert_eq!(status.code(), Code::Unavailable);
    tables
        .lookups_down
        .store(false, std::sync::atomic::Ordering::SeqCst);
    assert_eq!(locate(&mut ivy, "").await.seat.unwrap().table_id, table);
}

#[tokio::test]
async fn a_seat_locate_player_confirms_is_remembered_for_another_seat_ttl() {
    let config = test_config();
    let key = format!("{}:{{mmp:kim}}:seat", config.common.redis_prefix);
    let seat_ttl_ms = i64::try_from(config.store.seat_ttl.as_millis()).unwrap();
    let tables = Arc::new(FakeTables::default());
    let mm = spawn_with(config, Arc::new(FakeLedger::default()), tables.clone()).await;
    let mut kim = mm.player("kim");
    let mut lee = mm.player("lee");
    tables.still_seated.lock().unwrap().insert("kim".into());
    let a = enqueue(&mut kim, "gomoku-free").await;
    enqueue(&mut lee, "gomoku-free").await;
    wait_for(
        &mut kim,
        &a.ticket_id,
        TicketState::Seated,
        Duration::from_secs(5),
    )
    .await;

    // A table that outlives the seat record's lifetime: the record is about to go.
    let mut redis = gamehub_testkit::redis::connect().await;
    let pttl = |mut redis: gamehub_platform::RedisConn, key: String| async move {
        redis::cmd("PTTL")
            .arg(key)
            .query_async::<i64>(&mut redis)
            .await
            .unwrap()
    };
    let _: i64 = redis::cmd("PEXPIRE")
        .arg(&key)
        .arg(1000)
        .query_async(&mut redis)
        .await
        .unwrap();
    assert!(pttl(redis.clone(), key.clone()).await <= 1000);

    // The game service confirms the seat: the record lives another seat_ttl.
    assert!(locate(&mut kim, "").await.seat.is_some());
    assert!(pttl(redis.clone(), key.clone()).await > seat_ttl_ms - 60_000);
}

#[tokio::test]
async fn an_enqueue_the_ledger_cannot_judge_is_unavailable_and_leaves_nothing_behind() {
    let (mm, ledger, _) = with_fakes().await;
    let mut una = mm.player("una");
    ledger.down.store(true, std::sync::atomic::Ordering::SeqCst);
    let refused = una
        .enqueue(enqueue_request("gomoku-free", "first"))
        .await
        .unwrap_err();
    assert_eq!(refused.code(), Code::Unavailable, "{refused:?}");
    assert!(
        locate(&mut una, "").await.ticket.is_none(),
        "no ticket made"
    );
    // Once the ledger answers, the same request makes the ticket.
    ledger
        .down
        .store(false, std::sync::atomic::Ordering::SeqCst);
    let made = una
        .enqueue(enqueue_request("gomoku-free", "first"))
        .await
        .unwrap()
        .into_inner();
    assert!(!made.replayed);
    assert!(locate(&mut una, "").await.ticket.is_some());
}

#[tokio::test]
async fn an_enqueue_the_ledger_refuses_is_refused_with_the_reasons_code() {
    let (mm, ledger, _) = with_fakes().await;
    let mut vic = mm.player("vic");
    ledger.refuse(
        "vic",
        Refusal::DailyWinCap as i32,
        "today's wins reached the daily win cap",
    );
    let refused = vic
        .enqueue(enqueue_request("gomoku-free", "first"))
        .await
        .unwrap_err();
    assert_eq!(refused.code(), Code::FailedPrecondition);
    assert!(
        refused
            .message()
            .starts_with("not_eligible: daily_win_cap: "),
        "{}",
        refused.message()
    );
    assert!(locate(&mut vic, "").await.ticket.is_none());
}
