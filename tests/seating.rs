//! Real seating: matchmaking with the real ledger, Gomoku referee and Dou Dizhu dealer,
//! all over gRPC on free ports. Players enqueue, are seated, and the game services show
//! them at the table; a player still at a table cannot enqueue until it leaves.
//!
//! Above the services (it starts four of them), so here rather than in matchmaking's
//! own tests: each service comes from its `testing` feature.
#![allow(clippy::unwrap_used)] // test helpers fail loudly on broken fixtures

use std::time::Duration;

use gamehub_ledger::testing::TestLedger;
use gamehub_matchmaking::testing::{Client, TestMatchmaking, spawn_real, test_config};
use gamehub_platform::auth::Role;
use gamehub_platform::client::ServiceChannel;
use gamehub_proto::doudizhu::doudizhu_service_client::DoudizhuServiceClient;
use gamehub_proto::gomoku::gomoku_service_client::GomokuServiceClient;
use gamehub_proto::matchmaking::{EnqueueRequest, GetTicketRequest, Ticket, TicketState};
use gamehub_proto::{doudizhu, gomoku};
use gamehub_terms::games::{DOUDIZHU, GOMOKU};
use gamehub_testkit::clock::eventually;
use gamehub_testkit::server::TestServer;
use gamehub_testkit::tokens::channel;
use tonic::Code;

/// The database prefix of this suite's test ledgers.
const LEDGER_DB_PREFIX: &str = "gamehub_seating_test_";

/// Enqueues `client`'s player in `room` with a fresh request id.
async fn enqueue(client: &mut Client, room: &str) -> Ticket {
    client
        .enqueue(EnqueueRequest {
            room_id: room.into(),
            request_id: uuid::Uuid::new_v4().to_string(),
            player_id: String::new(),
        })
        .await
        .unwrap()
        .into_inner()
        .ticket
        .unwrap()
}

/// Polls the ticket until it reaches `state` (panics after `within`).
async fn wait_for(
    client: &mut Client,
    ticket_id: &str,
    state: TicketState,
    within: Duration,
) -> Ticket {
    let what = format!("ticket {ticket_id} {state:?}");
    eventually(&what, within, || {
        let mut client = client.clone();
        async move {
            let ticket = client
                .get_ticket(GetTicketRequest {
                    ticket_id: ticket_id.into(),
                })
                .await
                .unwrap()
                .into_inner()
                .ticket
                .unwrap();
            (ticket.state == state as i32).then_some(ticket)
        }
    })
    .await
}

fn state(ticket: &Ticket) -> TicketState {
    TicketState::try_from(ticket.state).unwrap()
}

struct Platform {
    ledger: TestLedger,
    mm: TestMatchmaking,
    gomoku: TestServer,
    doudizhu: TestServer,
}

async fn platform() -> Platform {
    let ledger = TestLedger::start(LEDGER_DB_PREFIX).await;
    let prefix = gamehub_testkit::redis::fresh_prefix("test-e2e-");
    let gomoku = gamehub_gomoku_referee::testing::start_on(&prefix, &ledger.url).await;
    let doudizhu =
        gamehub_doudizhu_dealer::testing::start(&prefix, &ledger.url, &Default::default()).await;
    let mut config = test_config();
    config.common.ledger_url = ledger.url.clone();
    config.common.game_urls.set(&GOMOKU, gomoku.url.clone());
    config.common.game_urls.set(&DOUDIZHU, doudizhu.url.clone());
    let mm = spawn_real(config).await;
    Platform {
        ledger,
        mm,
        gomoku,
        doudizhu,
    }
}

impl Platform {
    async fn stop(self) {
        drop(self.mm);
        self.gomoku.trigger_stop();
        self.doudizhu.trigger_stop();
        self.ledger.finish().await;
    }

    fn gomoku(&self, player: &str) -> GomokuServiceClient<ServiceChannel> {
        GomokuServiceClient::new(channel(
            &self.gomoku.url,
            &self.mm.keys,
            player,
            Role::Player,
        ))
    }

    fn doudizhu(&self, player: &str) -> DoudizhuServiceClient<ServiceChannel> {
        DoudizhuServiceClient::new(channel(
            &self.doudizhu.url,
            &self.mm.keys,
            player,
            Role::Player,
        ))
    }
}

#[tokio::test]
async fn players_are_seated_at_real_gomoku_and_dou_dizhu_tables() {
    let p = platform().await;

    // Gomoku: two players in the free room.
    let mut gomoku_tickets = Vec::new();
    for name in ["g-alice", "g-bob"] {
        let mut client = p.mm.player(name);
        let ticket = enqueue(&mut client, "gomoku-free").await;
        gomoku_tickets.push((name, ticket.ticket_id, client));
    }
    let mut gomoku_table = String::new();
    for (name, ticket_id, client) in &mut gomoku_tickets {
        let seated = wait_for(
            client,
            ticket_id,
            TicketState::Seated,
            Duration::from_secs(10),
        )
        .await;
        let seat = seated.seat.unwrap();
        gomoku_table = seat.table_id.clone();
        let table = p
            .gomoku(name)
            .get_table(gomoku::GetTableRequest {
                table_id: seat.table_id.clone(),
            })
            .await
            .unwrap()
            .into_inner()
            .table
            .unwrap();
        assert_eq!(table.your_seat, Some(seat.seat), "{name}'s seat");
        assert_eq!(table.players[seat.seat as usize].player_id, *name);
        assert_eq!(table.room_id, "gomoku-free");
    }

    // Dou Dizhu: three players in the free room.
    let mut ddz_tickets = Vec::new();
    for name in ["d-carol", "d-dave", "d-erin"] {
        let mut client = p.mm.player(name);
        let ticket = enqueue(&mut client, "doudizhu-free").await;
        ddz_tickets.push((name, ticket.ticket_id, client));
    }
    for (name, ticket_id, client) in &mut ddz_tickets {
        let seated = wait_for(
            client,
            ticket_id,
            TicketState::Seated,
            Duration::from_secs(10),
        )
        .await;
        let seat = seated.seat.unwrap();
        let table = p
            .doudizhu(name)
            .get_table(doudizhu::GetTableRequest {
                table_id: seat.table_id.clone(),
                as_spectator: false,
            })
            .await
            .unwrap()
            .into_inner()
            .table
            .unwrap();
        assert_eq!(table.viewer_seat, seat.seat, "{name}'s seat");
        assert_eq!(table.seats[seat.seat as usize].player_id, *name);
        assert_eq!(table.hand.len(), 17, "{name} sees its own hand");
    }

    // One seat per player: alice still sits at her Gomoku table.
    let mut alice = p.mm.player("g-alice");
    let refused = alice
        .enqueue(EnqueueRequest {
            room_id: "gomoku-free".into(),
            request_id: "second".into(),
            player_id: String::new(),
        })
        .await
        .unwrap_err();
    assert_eq!(refused.code(), Code::FailedPrecondition);
    assert!(
        refused.message().starts_with("already_seated: ")
            && refused.message().contains(&gomoku_table),
        "{}",
        refused.message()
    );

    // Once she leaves (the table closes), she may queue again.
    p.gomoku("g-alice")
        .leave(gomoku::LeaveRequest {
            player_id: String::new(),
            table_id: gomoku_table.clone(),
            request_id: "leave-1".into(),
        })
        .await
        .unwrap();
    let again = enqueue(&mut alice, "gomoku-free").await;
    assert_eq!(state(&again), TicketState::Waiting);
    p.stop().await;
}

/// The designated-opening room (指定打法): matchmaking opens its tables with openings, and
/// the first game starts from one of the 26 with white to play move 4.
#[tokio::test]
async fn the_designated_opening_room_seats_players_at_a_game_started_from_an_opening() {
    let p = platform().await;
    let mut tickets = Vec::new();
    for name in ["o-alice", "o-bob"] {
        p.ledger.grant(name, 10_000).await;
        let mut client = p.mm.player(name);
        let ticket = enqueue(&mut client, "gomoku-renju-opening").await;
        tickets.push((name, ticket.ticket_id, client));
    }
    for (name, ticket_id, client) in &mut tickets {
        let seated = wait_for(
            client,
            ticket_id,
            TicketState::Seated,
            Duration::from_secs(10),
        )
        .await;
        let table = p
            .gomoku(name)
            .get_table(gomoku::GetTableRequest {
                table_id: seated.seat.unwrap().table_id,
            })
            .await
            .unwrap()
            .into_inner()
            .table
            .unwrap();
        assert_eq!(table.room_id, "gomoku-renju-opening");
        assert_eq!(table.rule_set(), gomoku::RuleSet::RenjuLose);
        assert_eq!(table.designated_opening, "random");
        let game = table.game.unwrap();
        let opening = game.opening.clone().expect("the game names its opening");
        let stones: Vec<&str> = game
            .stones
            .iter()
            .map(|s| s.point.as_ref().unwrap().text.as_str())
            .collect();
        let opening_stones: Vec<&str> = opening.stones.iter().map(|p| p.text.as_str()).collect();
        assert_eq!(stones, opening_stones, "{name}: the board is the opening");
        assert_eq!(game.to_move(), gomoku::Color::White, "white plays move 4");
    }
    p.stop().await;
}
