//! Authorization: who may call what, and refused calls change nothing.

use gamehub_platform::auth::{Keys, Role};
use gamehub_platform::config::Secret;
use gamehub_proto::common::RoomStakes;
use gamehub_proto::ledger::PlayerOutcome::{Loss, Win};
use gamehub_proto::ledger::{
    CheckEligibilityRequest, GetAccountRequest, GetGameRecordRequest, GrantSilverRequest,
    ListGamesRequest, ListHistoryRequest, SetProfessionalRequest,
};
use tonic::Code;

use crate::support::*;

fn denied<T: std::fmt::Debug>(result: Result<T, tonic::Status>, code: Code, what: &str) {
    let err = result.expect_err(what);
    assert_eq!(err.code(), code, "{what}: {}", err.message());
    assert!(!err.message().is_empty());
}

#[tokio::test]
async fn players_act_only_for_themselves() {
    let app = spawn_app().await;
    app.grant("alice", 10_000).await;
    app.settle(gomoku("g-1", 100, ("alice", Win, 5), ("bob", Loss, -5)))
        .await;
    let before = fingerprint(&app.db.pool).await;
    let mut mallory = app.player("mallory");

    denied(
        mallory
            .settle_game(gomoku("g-2", 100, ("mallory", Win, 5), ("alice", Loss, -5)))
            .await,
        Code::PermissionDenied,
        "a player cannot settle",
    );
    denied(
        mallory
            .grant_silver(GrantSilverRequest {
                request_id: "free-money".into(),
                player_id: "mallory".into(),
                amount_silver: 1_000_000,
                reason: "because".into(),
            })
            .await,
        Code::PermissionDenied,
        "a player cannot grant",
    );
    denied(
        mallory
            .set_professional(SetProfessionalRequest {
                player_id: "mallory".into(),
                professional_dan: 9,
                reason: "test".into(),
                request_id: String::new(),
            })
            .await,
        Code::PermissionDenied,
        "a player cannot make itself a professional",
    );
    denied(
        mallory
            .get_account(GetAccountRequest {
                player_id: "alice".into(),
            })
            .await,
        Code::PermissionDenied,
        "a player cannot read another's account",
    );
    denied(
        mallory
            .list_history(ListHistoryRequest {
                player_id: "alice".into(),
                ..Default::default()
            })
            .await,
        Code::PermissionDenied,
        "a player cannot read another's history",
    );
    denied(
        mallory
            .list_games(ListGamesRequest {
                player_id: "alice".into(),
                ..Default::default()
            })
            .await,
        Code::PermissionDenied,
        "a player cannot list another's games",
    );
    denied(
        mallory
            .check_eligibility(CheckEligibilityRequest {
                player_id: "alice".into(),
                stakes: Some(RoomStakes {
                    room_id: "gomoku-renju".into(),
                    points_base: 1,
                    silver_per_point: 1,
                    min_balance_silver: 0,
                    rated: false,
                }),
            })
            .await,
        Code::PermissionDenied,
        "a player cannot check another's eligibility",
    );
    denied(
        mallory
            .get_game_record(GetGameRecordRequest {
                game_id: "g-1".into(),
            })
            .await,
        Code::PermissionDenied,
        "a player cannot read a game it did not play",
    );
    // Services settle but do not read records or history; operators do not settle.
    denied(
        app.service()
            .get_game_record(GetGameRecordRequest {
                game_id: "g-1".into(),
            })
            .await,
        Code::PermissionDenied,
        "a service cannot read game records",
    );
    denied(
        app.service()
            .list_history(ListHistoryRequest {
                player_id: "alice".into(),
                ..Default::default()
            })
            .await,
        Code::PermissionDenied,
        "a service cannot read history",
    );
    denied(
        app.operator()
            .settle_game(gomoku("g-3", 100, ("alice", Win, 5), ("bob", Loss, -5)))
            .await,
        Code::PermissionDenied,
        "an operator cannot settle",
    );
    denied(
        app.service()
            .grant_silver(GrantSilverRequest {
                request_id: "svc".into(),
                player_id: "alice".into(),
                amount_silver: 1,
                reason: "x".into(),
            })
            .await,
        Code::PermissionDenied,
        "a service cannot grant",
    );
    // Matchmaking reads accounts (ratings), and must name the player.
    denied(
        app.client("matchmaking", Role::Service)
            .get_account(GetAccountRequest::default())
            .await,
        Code::InvalidArgument,
        "a service must name the player",
    );
    assert_eq!(
        fingerprint(&app.db.pool).await,
        before,
        "refused calls change nothing"
    );

    // What players may do.
    let mut alice = app.player("alice");
    alice
        .get_account(GetAccountRequest {
            player_id: "alice".into(),
        })
        .await
        .unwrap();
    alice
        .get_game_record(GetGameRecordRequest {
            game_id: "g-1".into(),
        })
        .await
        .unwrap();
    app.player("bob")
        .get_game_record(GetGameRecordRequest {
            game_id: "g-1".into(),
        })
        .await
        .unwrap();
    app.operator()
        .get_game_record(GetGameRecordRequest {
            game_id: "g-1".into(),
        })
        .await
        .unwrap();
    app.operator()
        .list_history(ListHistoryRequest {
            player_id: "alice".into(),
            ..Default::default()
        })
        .await
        .unwrap();
    denied(
        alice
            .get_game_record(GetGameRecordRequest {
                game_id: "no-such-game".into(),
            })
            .await,
        Code::NotFound,
        "an unknown game",
    );
    app.finish().await;
}

#[tokio::test]
async fn calls_without_a_valid_token_are_unauthenticated() {
    let app = spawn_app().await;
    let before = fingerprint(&app.db.pool).await;
    let forged = Keys::new(&Secret::new("not-the-ledger-key"));
    let mut forger = client(&app.url, &forged, "test-referee", Role::Service);
    denied(
        forger
            .settle_game(gomoku("g", 100, ("a", Win, 5), ("b", Loss, -5)))
            .await,
        Code::Unauthenticated,
        "a token signed with another key",
    );
    let channel = tonic::transport::Endpoint::from_shared(app.url.clone())
        .unwrap()
        .connect()
        .await
        .unwrap();
    let mut anonymous =
        gamehub_proto::ledger::ledger_service_client::LedgerServiceClient::new(channel);
    denied(
        anonymous.get_account(GetAccountRequest::default()).await,
        Code::Unauthenticated,
        "no token",
    );
    assert_eq!(fingerprint(&app.db.pool).await, before);
    // Health needs no token.
    assert!(
        gamehub_platform::client::check_health(&app.url, "")
            .await
            .unwrap()
    );
    assert!(
        gamehub_platform::client::check_health(&app.url, "gamehub.ledger.v1.LedgerService")
            .await
            .unwrap()
    );
    app.finish().await;
}
