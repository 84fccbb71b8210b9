//! Eligibility against the real ledger (a fresh database per test): a balance below the
//! room's minimum and a player at the daily cap end their tickets REFUSED with the
//! ledger's reason, while the other player goes back to the queue at its place.

use std::sync::Arc;
use std::time::Duration;

use gamehub_matchmaking::peers::LedgerPeer;
use gamehub_platform::Clock;
use gamehub_platform::auth::Role;
use gamehub_proto::common::{GameType, RoomStakes};
use gamehub_proto::ledger::{
    GameRecord, PlayerOutcome, PlayerResult, Refusal, Role as SeatRole, SettleGameRequest,
};
use gamehub_proto::matchmaking::{GetTicketRequest, TicketState};

use crate::support::*;

async fn matchmaking_on(ledger: &TestLedger) -> (TestMatchmaking, Arc<FakeTables>) {
    let mut config = test_config();
    config.common.ledger_url = ledger.url.clone();
    let peer = Arc::new(LedgerPeer::new(&config.common, Duration::from_secs(5)).unwrap());
    let tables = Arc::new(FakeTables::default());
    (spawn_with(config, peer, tables.clone()).await, tables)
}

#[tokio::test]
async fn a_balance_below_the_minimum_is_refused_and_the_partner_keeps_its_place() {
    let ledger = TestLedger::start(LEDGER_DB_PREFIX).await;
    let (mm, _) = matchmaking_on(&ledger).await;
    ledger.grant("rich", 5_000).await;
    ledger.grant("poor", 200).await;
    ledger.grant("rich2", 5_000).await;

    let mut rich = mm.player("rich");
    let mut poor = mm.player("poor");
    let a = enqueue(&mut rich, "gomoku-renju").await;
    assert_eq!(
        a.rating, 3000,
        "rated rooms carry the ledger's rating (a new player's)"
    );
    let b = enqueue(&mut poor, "gomoku-renju").await;
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
async fn a_player_at_the_daily_loss_cap_is_refused_a_seat() {
    let ledger = TestLedger::start_with(LEDGER_DB_PREFIX, |config| {
        config.caps.daily_loss_silver = 500
    })
    .await;
    let (mm, _) = matchmaking_on(&ledger).await;
    ledger.grant("loser", 10_000).await;
    ledger.grant("winner", 10_000).await;
    // One paid game through the ledger's own API: the loser pays 5 × 100 = 500 silver,
    // today's whole loss cap.
    let now = i64::try_from(Clock::system().now_ms()).unwrap();
    let settled = ledger
        .client(Role::Service)
        .settle_game(SettleGameRequest {
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
                    player_id: "loser".into(),
                    role: SeatRole::Black as i32,
                    outcome: PlayerOutcome::Loss as i32,
                    points: -5,
                    offered_draw: false,
                },
                PlayerResult {
                    player_id: "winner".into(),
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
    assert_eq!(settled.players[0].silver_delta, -500);

    let mut winner = mm.player("winner");
    let mut loser = mm.player("loser");
    let w = enqueue(&mut winner, "gomoku-freestyle").await;
    let l = enqueue(&mut loser, "gomoku-freestyle").await;
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
    drop(mm);
    ledger.finish().await;
}
