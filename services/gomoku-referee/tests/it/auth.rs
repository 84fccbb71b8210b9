//! Authorization and bad input: the right status, a message that says what to fix, and
//! nothing changed.

use gamehub_platform::auth::Role;
use gamehub_proto::gomoku as pb;
use tonic::Code;

use crate::support::*;

fn expect(result: Result<impl std::fmt::Debug, tonic::Status>, code: Code, words: &str) {
    let status = result.expect_err("refused");
    assert_eq!(status.code(), code, "{status:?}");
    assert!(
        status.message().contains(words),
        "message {:?} should contain {words:?}",
        status.message()
    );
}

#[tokio::test]
async fn refusals_carry_the_right_status_and_change_nothing() {
    let fx = Fixture::new().await;
    let (alice, bob) = (fx.player("alice"), fx.player("bob"));
    let table = fx
        .open(pb::RuleSet::Freestyle, (60_000, 0), ["alice", "bob"])
        .await;
    let other = fx
        .open(pb::RuleSet::Freestyle, (60_000, 0), ["carol", "dave"])
        .await;
    let id = table.table_id.clone();
    let before = alice.place(&id, "h8").await.unwrap();

    // Moving for the opponent: alice's token only moves alice's seat, and it is bob's turn.
    expect(
        alice.place(&id, "h9").await,
        Code::FailedPrecondition,
        "not_your_turn",
    );
    // A table alice does not sit at.
    expect(
        alice.place(&other.table_id, "h8").await,
        Code::PermissionDenied,
        "does not sit at table",
    );
    // A service token cannot play; a player token cannot open tables.
    let service = Player {
        id: "matchmaking".into(),
        client: fx.service(),
    };
    expect(
        service.place(&id, "h9").await,
        Code::PermissionDenied,
        "needs a player token",
    );
    expect(
        alice
            .client
            .clone()
            .open_table(open_request(
                pb::RuleSet::Freestyle,
                (0, 0),
                ["alice", "bob"],
            ))
            .await,
        Code::PermissionDenied,
        "service",
    );
    // No token at all.
    let anonymous =
        gamehub_platform::client::channel(&fx.url(), std::time::Duration::from_secs(5)).unwrap();
    expect(
        pb::gomoku_service_client::GomokuServiceClient::new(anonymous)
            .get_table(pb::GetTableRequest {
                table_id: id.clone(),
            })
            .await,
        Code::Unauthenticated,
        "Bearer",
    );
    // Bad input.
    let off_board = bob
        .client
        .clone()
        .place_stone(pb::PlaceStoneRequest {
            table_id: id.clone(),
            request_id: "r1".into(),
            point: Some(pb::Point {
                text: String::new(),
                x: 15,
                y: 3,
            }),
            known_stones: 0,
            known_game: 0,
        })
        .await;
    expect(
        off_board,
        Code::InvalidArgument,
        "point: coordinates (15, 3) are off the 15x15 board",
    );
    expect(
        bob.place(&id, "p7").await,
        Code::InvalidArgument,
        "point: bad column",
    );
    expect(
        bob.place(&id, "h8").await,
        Code::FailedPrecondition,
        "occupied: h8 is already occupied",
    );
    expect(bob.swap(&id).await, Code::FailedPrecondition, "wrong_phase");
    expect(
        bob.claim(&id).await,
        Code::FailedPrecondition,
        "nothing_to_claim",
    );
    expect(
        bob.answer_draw(&id, true).await,
        Code::FailedPrecondition,
        "no_draw_offer",
    );
    expect(
        bob.next_game(&id).await,
        Code::FailedPrecondition,
        "game_in_progress",
    );
    expect(
        bob.place("gt-000000000000000000000000", "h9").await,
        Code::NotFound,
        "no table",
    );
    expect(
        bob.place("bad table id", "h9").await,
        Code::InvalidArgument,
        "table_id",
    );
    expect(
        bob.place_with(&id, "h9", "").await,
        Code::InvalidArgument,
        "request_id: is required",
    );
    expect(
        bob.client
            .clone()
            .place_stone(pb::PlaceStoneRequest {
                table_id: id.clone(),
                request_id: "r2".into(),
                point: None,
                known_stones: 0,
                known_game: 0,
            })
            .await,
        Code::InvalidArgument,
        "point: is required",
    );
    // None of it changed the table.
    let after = fx.table(&id).await;
    assert_eq!(after.last_event_id, before.last_event_id);
    assert_eq!(game(&after).stones.len(), 1);
    assert_eq!(game(&after).to_act_seat, Some(1));

    // Spectators may read and watch; records load with the ply and reason of an error.
    let carol = fx.client_at(&fx.url(), "carol", Role::Player);
    let seen = carol
        .clone()
        .get_table(pb::GetTableRequest {
            table_id: id.clone(),
        })
        .await
        .unwrap()
        .into_inner()
        .table
        .unwrap();
    assert_eq!(seen.your_seat, None);
    let illegal = carol
        .clone()
        .load_record(pb::LoadRecordRequest {
            format: pb::RecordFormat::Psq as i32,
            content: "Piskvorky 15x15, 11:11, 0\n8,8,0\n8,8,0\n".into(),
            rule_set: pb::RuleSet::Freestyle as i32,
        })
        .await;
    expect(illegal, Code::InvalidArgument, "content: ply 2");
    expect(
        carol
            .clone()
            .export_record(pb::ExportRecordRequest {
                table_id: id.clone(),
                game_number: 0,
                format: pb::RecordFormat::Text as i32,
            })
            .await,
        Code::NotFound,
        "no finished game",
    );
    fx.stop().await;
}

#[tokio::test]
async fn open_table_is_idempotent_by_request_id() {
    let fx = Fixture::new().await;
    let mut service = fx.service();
    let request = open_request(pb::RuleSet::RenjuSwap, (30_000, 600_000), ["alice", "bob"]);
    let first = service
        .open_table(request.clone())
        .await
        .unwrap()
        .into_inner();
    assert!(!first.replayed);
    let again = service
        .open_table(request.clone())
        .await
        .unwrap()
        .into_inner();
    assert!(again.replayed);
    assert_eq!(again.table_id, first.table_id);
    let mut reused = request.clone();
    reused.player_ids = vec!["alice".into(), "carol".into()];
    expect(
        service.open_table(reused).await,
        Code::AlreadyExists,
        "request_id",
    );
    let mut same_players = request;
    same_players.request_id = "another".into();
    same_players.player_ids = vec!["bob".into(), "bob".into()];
    expect(
        service.open_table(same_players).await,
        Code::InvalidArgument,
        "player_ids",
    );
    fx.stop().await;
}
