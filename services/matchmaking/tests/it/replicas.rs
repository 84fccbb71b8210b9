//! Two matchmaking replicas on one Redis under concurrent load: every ticket is seated
//! exactly once, at one table.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::{Duration, Instant};

use gamehub_proto::matchmaking::{EnqueueRequest, GetTicketRequest, TicketState};

use crate::support::*;

#[tokio::test]
async fn two_replicas_never_seat_one_ticket_twice() {
    let mut config = test_config();
    config.matcher.batch_tables = 3; // many small rounds: more races
    config.matcher.interval = Duration::from_millis(5);
    let tables = Arc::new(FakeTables::default());
    let one = spawn_with(
        config.clone(),
        Arc::new(FakeLedger::default()),
        tables.clone(),
    )
    .await;
    let two = spawn_with(
        config.clone(),
        Arc::new(FakeLedger::default()),
        tables.clone(),
    )
    .await;

    let players = 160;
    let enqueues = (0..players).map(|i| {
        let replica = if i % 2 == 0 { &one } else { &two };
        let mut client = replica.player(&format!("racer-{i}"));
        let room = if i % 4 < 2 {
            "gomoku-free"
        } else {
            "doudizhu-free"
        };
        async move {
            let ticket = client
                .enqueue(EnqueueRequest {
                    room_id: room.into(),
                    request_id: format!("race-{i}"),
                    player_id: String::new(),
                })
                .await
                .unwrap()
                .into_inner()
                .ticket
                .unwrap();
            (format!("racer-{i}"), ticket.ticket_id, client)
        }
    });
    let tickets = futures::future::join_all(enqueues).await;

    // Everyone who can make a table is seated (80 Gomoku players: 40 tables; 80 Dou
    // Dizhu players: 26 tables and two left waiting).
    let deadline = Instant::now() + Duration::from_secs(20);
    let mut seats = HashMap::new();
    let mut pending = tickets;
    while seats.len() < 80 + 78 {
        assert!(Instant::now() < deadline, "only {} seated", seats.len());
        let mut still = Vec::new();
        for (player, ticket_id, mut client) in pending {
            let ticket = client
                .get_ticket(GetTicketRequest {
                    ticket_id: ticket_id.clone(),
                })
                .await
                .unwrap()
                .into_inner()
                .ticket
                .unwrap();
            match state(&ticket) {
                TicketState::Seated => {
                    seats.insert(player, ticket.seat.unwrap());
                }
                TicketState::Waiting | TicketState::Matching => {
                    still.push((player, ticket_id, client));
                }
                other => panic!("{player}: unexpected {other:?}"),
            }
        }
        pending = still;
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(pending.len(), 2, "two Dou Dizhu players wait for a third");

    // Each table was opened for one group of players, and each player sits at one table.
    let mut by_match: HashMap<String, Vec<String>> = HashMap::new();
    for call in tables.calls() {
        let previous = by_match.insert(call.match_id.clone(), call.players.clone());
        if let Some(previous) = previous {
            assert_eq!(previous, call.players, "a retry keeps the same players");
        }
    }
    assert_eq!(by_match.len(), 40 + 26);
    let mut seen = HashSet::new();
    for (match_id, players) in &by_match {
        for (seat, player) in players.iter().enumerate() {
            assert!(seen.insert(player.clone()), "{player} opened at two tables");
            let at = &seats[player];
            assert_eq!(at.table_id, FakeTables::table_of(match_id));
            assert_eq!(at.seat as usize, seat);
        }
    }
}
