//! Real seating: matchmaking with the real ledger, Gomoku referee and Dou Dizhu dealer,
//! all over gRPC on free ports. Players enqueue, are seated, and the game services show
//! them at the table; a player still at a table cannot enqueue until it leaves.

use std::time::Duration;

use gamehub_platform::auth::Role;
use gamehub_platform::client::{TokenSource, service_channel};
use gamehub_platform::config::Env;
use gamehub_platform::server::Shutdown;
use gamehub_proto::doudizhu::doudizhu_service_client::DoudizhuServiceClient;
use gamehub_proto::gomoku::gomoku_service_client::GomokuServiceClient;
use gamehub_proto::matchmaking::{EnqueueRequest, TicketState};
use gamehub_proto::{doudizhu, gomoku};
use tonic::Code;

use crate::support::*;

struct Platform {
    ledger: TestLedger,
    mm: Mm,
    gomoku_url: String,
    doudizhu_url: String,
    games: Shutdown,
}

async fn platform() -> Platform {
    let ledger = TestLedger::start(LEDGER_DB_PREFIX).await;
    let prefix = format!("test-e2e-{}", uuid::Uuid::new_v4().simple());
    let games = Shutdown::new();
    let referee = gamehub_gomoku_referee::RefereeConfig::from_env(&Env::from_pairs([
        ("GAMEHUB_GOMOKU_ADDR", "127.0.0.1:0"),
        ("GAMEHUB_REDIS_PREFIX", prefix.as_str()),
        ("GAMEHUB_LEDGER_URL", ledger.url.as_str()),
    ]))
    .unwrap();
    let referee = gamehub_gomoku_referee::start(referee, games.clone())
        .await
        .unwrap();
    let dealer = gamehub_doudizhu_dealer::DealerConfig::from_env(&Env::from_pairs([
        ("GAMEHUB_DOUDIZHU_ADDR", "127.0.0.1:0"),
        ("GAMEHUB_REDIS_PREFIX", prefix.as_str()),
        ("GAMEHUB_LEDGER_URL", ledger.url.as_str()),
    ]))
    .unwrap();
    let dealer = gamehub_doudizhu_dealer::start(dealer, games.clone())
        .await
        .unwrap();
    let gomoku_url = format!("http://{}", referee.addr);
    let doudizhu_url = format!("http://{}", dealer.addr);
    let mut config = test_config();
    config.common.ledger_url = ledger.url.clone();
    config.common.gomoku_url = gomoku_url.clone();
    config.common.doudizhu_url = doudizhu_url.clone();
    let mm = spawn_real(config).await;
    Platform {
        ledger,
        mm,
        gomoku_url,
        doudizhu_url,
        games,
    }
}

impl Platform {
    async fn stop(self) {
        drop(self.mm);
        self.games.trigger();
        self.ledger.finish().await;
    }

    fn gomoku(
        &self,
        player: &str,
    ) -> GomokuServiceClient<gamehub_platform::client::ServiceChannel> {
        GomokuServiceClient::new(
            service_channel(
                &self.gomoku_url,
                TokenSource::Static(self.mm.token(player, Role::Player)),
                Duration::from_secs(10),
            )
            .unwrap(),
        )
    }

    fn doudizhu(
        &self,
        player: &str,
    ) -> DoudizhuServiceClient<gamehub_platform::client::ServiceChannel> {
        DoudizhuServiceClient::new(
            service_channel(
                &self.doudizhu_url,
                TokenSource::Static(self.mm.token(player, Role::Player)),
                Duration::from_secs(10),
            )
            .unwrap(),
        )
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
        refused.message().contains(&gomoku_table),
        "{}",
        refused.message()
    );

    // Once she leaves (the table closes), she may queue again.
    p.gomoku("g-alice")
        .leave(gomoku::LeaveRequest {
            table_id: gomoku_table.clone(),
            request_id: "leave-1".into(),
        })
        .await
        .unwrap();
    let again = enqueue(&mut alice, "gomoku-free").await;
    assert_eq!(state(&again), TicketState::Waiting);
    p.stop().await;
}
