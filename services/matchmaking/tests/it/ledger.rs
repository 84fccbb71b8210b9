//! Eligibility against the real ledger (a fresh database per test): a player the ledger
//! would not seat (a balance below the room's minimum, a daily cap reached) is refused
//! at Enqueue with the reason's code and no ticket; one who became so while its ticket
//! waited ends REFUSED with the ledger's reason at seating, while the other player goes
//! back to the queue at its place.

use std::sync::Arc;
use std::time::Duration;

use gamehub_matchmaking::peers::LedgerPeer;
use gamehub_platform::Clock;
use gamehub_platform::auth::Role;
use gamehub_proto::common::{GameType, RoomStakes};
use gamehub_proto::ledger::{
    GameRecord, PlayerOutcome, PlayerResult, Refusal, Role as SeatRole, SettleGameRequest,
};
use gamehub_proto::matchmaking::{
    EnqueueRequest, GetTicketRequest, LocatePlayerRequest, TicketState,
};

use crate::support::*;

async fn matchmaking_on(ledger: &TestLedger) -> (TestMatchmaking, Arc<FakeTables>) {
    let mut config = test_config();
    config.common.ledger_url = ledger.url.clone();
    let peer = Arc::new(LedgerPeer::new(&config.common, Duration::from_secs(5)).unwrap());
    let tables = Arc::new(FakeTables::default());
    (spawn_with(config, peer, tables.clone()).await, tables)
}

/// Settles one paid Gomoku game through the ledger's own API in which `loser` loses 5
/// points (× 100 silver) to `winner`.
async fn settle_a_loss(ledger: &TestLedger, loser: &str, winner: &str) -> i64 {
    let now = i64::try_from(Clock::system().now_ms()).unwrap();
    let settled = ledger
        .client(Role::Service)
        .settle_game(SettleGameRequest {
            friends_table: false,
            game_id: format!("g-{}", uuid::Uuid::new_v4().simple()),
            game_type: GameType::Gomoku as i32,
            stakes: Some(RoomStakes {
                room_id: "gomoku-freestyle".into(),
                points_base: 1,
                silver_per_point: 100,
                min_balance_silver: 1000,
                rated: true,
            }),
            players: vec![
                PlayerResult {
                    player_id: loser.into(),
                    role: SeatRole::Black as i32,
                    outcome: PlayerOutcome::Loss as i32,
                    points: -5,
                    offered_draw: false,
                },
                PlayerResult {
                    player_id: winner.into(),
                    role: SeatRole::White as i32,
                    outcome: PlayerOutcome::Win as i32,
                    points: 5,
                    offered_draw: false,
                },
            ],
            reason: "five".into(),
            table_id: "t-cap".into(),
            started_at_unix_ms: now - 60_000,
            ended_at_unix_ms: now,
            record: Some(GameRecord {
                format: "gomoku-text".into(),
                content: String::new(),
            }),
        })
        .await
        .unwrap()
        .into_inner();
    settled.players[0].silver_delta
}

/// An Enqueue the ledger would not seat: FAILED_PRECONDITION with the reason's code, and
/// no ticket made.
async fn refused_at_the_door(client: &mut Client, player: &str, room: &str, code: &str) {
    let refused = client
        .enqueue(EnqueueRequest {
            room_id: room.into(),
            request_id: uuid::Uuid::new_v4().to_string(),
            player_id: String::new(),
        })
        .await
        .unwrap_err();
    assert_eq!(
        refused.code(),
        tonic::Code::FailedPrecondition,
        "{refused:?}"
    );
    assert!(
        refused
            .message()
            .starts_with(&format!("not_eligible: {code}: ")),
        "{}",
        refused.message()
    );
    let place = client
        .locate_player(LocatePlayerRequest {
            player_id: player.into(),
        })
        .await
        .unwrap()
        .into_inner();
    assert!(place.ticket.is_none(), "no ticket was made: {place:?}");
}

#[tokio::test]
async fn a_balance_below_the_minimum_is_refused_at_the_door() {
    let ledger = TestLedger::start(LEDGER_DB_PREFIX).await;
    let (mm, _) = matchmaking_on(&ledger).await;
    ledger.grant("poor", 200).await;
    let mut poor = mm.player("poor");
    refused_at_the_door(&mut poor, "poor", "gomoku-renju", "insufficient_balance").await;
    // A free room asks for no balance.
    enqueue(&mut poor, "gomoku-free").await;
    drop(mm);
    ledger.finish().await;
}

#[tokio::test]
async fn a_balance_that_fell_while_waiting_is_refused_at_the_seat_and_the_partner_keeps_its_place()
{
    let ledger = TestLedger::start(LEDGER_DB_PREFIX).await;
    let (mm, _) = matchmaking_on(&ledger).await;
    ledger.grant("rich", 5_000).await;
    ledger.grant("poor", 1_400).await;
    ledger.grant("rich2", 5_000).await;

    // poor may sit down when it enqueues (1,400 ≥ 1,000)...
    let mut poor = mm.player("poor");
    let b = enqueue(&mut poor, "gomoku-renju").await;
    // ...and loses 500 at another table while its ticket waits.
    assert_eq!(settle_a_loss(&ledger, "poor", "rich2").await, -500);

    let mut rich = mm.player("rich");
    let a = enqueue(&mut rich, "gomoku-renju").await;
    assert_eq!(
        a.rating, 3000,
        "rated rooms carry the ledger's rating (a new player's)"
    );
    let refused = wait_for(
        &mut poor,
        &b.ticket_id,
        TicketState::Refused,
        Duration::from_secs(10),
    )
    .await;
    assert_eq!(refused.refusal, Refusal::InsufficientBalance as i32);
    assert!(refused.message.contains("1000"), "{}", refused.message);

    let back = rich
        .get_ticket(GetTicketRequest {
            ticket_id: a.ticket_id.clone(),
        })
        .await
        .unwrap()
        .into_inner()
        .ticket
        .unwrap();
    assert_eq!((state(&back), back.position), (TicketState::Waiting, 1));

    let c = enqueue(&mut mm.player("rich2"), "gomoku-renju").await;
    let seated = wait_for(
        &mut rich,
        &a.ticket_id,
        TicketState::Seated,
        Duration::from_secs(10),
    )
    .await;
    let seat = seated.seat.unwrap();
    let mut players = seat.players.clone();
    players.sort();
    assert_eq!(players, ["rich", "rich2"]);
    wait_for(
        &mut mm.player("rich2"),
        &c.ticket_id,
        TicketState::Seated,
        Duration::from_secs(5),
    )
    .await;
    drop(mm);
    ledger.finish().await;
}

#[tokio::test]
async fn a_player_at_the_daily_loss_cap_is_refused_at_the_door_and_at_the_seat() {
    let ledger = TestLedger::start_with(LEDGER_DB_PREFIX, |config| {
        config.caps.daily_loss_silver = 500
    })
    .await;
    let (mm, _) = matchmaking_on(&ledger).await;
    ledger.grant("loser", 10_000).await;
    ledger.grant("winner", 10_000).await;

    // At the seat: the loser's ticket waits, then one paid game elsewhere costs it
    // 5 × 100 = 500 silver, today's whole loss cap.
    let mut loser = mm.player("loser");
    let l = enqueue(&mut loser, "gomoku-freestyle").await;
    assert_eq!(settle_a_loss(&ledger, "loser", "winner").await, -500);
    let mut winner = mm.player("winner");
    let w = enqueue(&mut winner, "gomoku-freestyle").await;
    let refused = wait_for(
        &mut loser,
        &l.ticket_id,
        TicketState::Refused,
        Duration::from_secs(10),
    )
    .await;
    assert_eq!(refused.refusal, Refusal::DailyLossCap as i32);
    assert!(
        refused.message.contains("daily loss cap"),
        "{}",
        refused.message
    );
    let back = winner
        .get_ticket(GetTicketRequest {
            ticket_id: w.ticket_id,
        })
        .await
        .unwrap()
        .into_inner()
        .ticket
        .unwrap();
    assert_eq!((state(&back), back.position), (TicketState::Waiting, 1));

    // At the door: any room, free ones too, refuses it for the rest of the day.
    for room in ["gomoku-freestyle", "doudizhu-free"] {
        refused_at_the_door(&mut loser, "loser", room, "daily_loss_cap").await;
    }
    drop(mm);
    ledger.finish().await;
}
