//! Accounts, grants, idempotency, validation, history and games pagination, leaderboards.

use gamehub_proto::common::GameType;
use gamehub_proto::ledger::PlayerOutcome::{Draw, Loss, Win};
use gamehub_proto::ledger::{
    Board, GetAccountRequest, GetLeaderboardRequest, GrantSilverRequest, HistoryKind,
    ListGamesRequest, ListHistoryRequest, SetProfessionalRequest,
};
use tonic::Code;

use crate::support::*;

#[tokio::test]
async fn a_player_that_never_played_has_a_fresh_account() {
    let app = spawn_app().await;
    let account = app
        .player("newcomer")
        .get_account(GetAccountRequest::default())
        .await
        .unwrap()
        .into_inner()
        .account
        .unwrap();
    assert_eq!(account.player_id, "newcomer");
    assert_eq!(account.balance_silver, 0);
    let rating = account.gomoku_rating.unwrap();
    assert_eq!(
        (
            rating.rating,
            rating.rank,
            rating.rank_name.as_str(),
            rating.professional_dan
        ),
        (3000, 30, "1k", 0)
    );
    let kinds: Vec<_> = account.standings.iter().map(|s| s.game_type).collect();
    assert_eq!(
        kinds,
        vec![GameType::Gomoku as i32, GameType::Doudizhu as i32]
    );
    assert_eq!(account.standings[0].title.clone().unwrap().level, 1);
    let today = account.today.unwrap();
    assert_eq!(
        (
            today.won_silver,
            today.remaining_win_silver,
            today.loss_cap_silver
        ),
        (0, 150_000, 150_000)
    );
    assert_eq!(today.day.len(), 10);
    assert!(today.resets_at_unix_ms > chrono::Utc::now().timestamp_millis());
    // Reading wrote nothing.
    let players: i64 = sqlx::query_scalar("SELECT count(*) FROM players")
        .fetch_one(&app.db.pool)
        .await
        .unwrap();
    assert_eq!(players, 0);
    app.finish().await;
}

#[tokio::test]
async fn grants_are_idempotent_and_audited() {
    let app = spawn_app().await;
    let request = GrantSilverRequest {
        request_id: "welcome-alice".into(),
        player_id: "alice".into(),
        amount_silver: 20_000,
        reason: "welcome bonus".into(),
    };
    let first = app
        .operator()
        .grant_silver(request.clone())
        .await
        .unwrap()
        .into_inner();
    assert_eq!((first.balance_silver, first.replayed), (20_000, false));
    let again = app
        .client("another-operator", gamehub_platform::auth::Role::Operator)
        .grant_silver(request.clone())
        .await
        .unwrap()
        .into_inner();
    assert_eq!(
        (
            again.transfer_id.as_str(),
            again.balance_silver,
            again.replayed
        ),
        (first.transfer_id.as_str(), 20_000, true)
    );
    assert_eq!(app.balance("alice").await, 20_000);
    let before = fingerprint(&app.db.pool).await;
    let err = app
        .operator()
        .grant_silver(GrantSilverRequest {
            amount_silver: 30_000,
            ..request.clone()
        })
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::AlreadyExists);
    assert!(err.message().contains("welcome-alice"), "{}", err.message());
    for (bad, field) in [
        (
            GrantSilverRequest {
                amount_silver: 0,
                ..request.clone()
            },
            "amount_silver",
        ),
        (
            GrantSilverRequest {
                amount_silver: -5,
                ..request.clone()
            },
            "amount_silver",
        ),
        (
            GrantSilverRequest {
                amount_silver: 2_000_000_000,
                ..request.clone()
            },
            "amount_silver",
        ),
        (
            GrantSilverRequest {
                reason: String::new(),
                ..request.clone()
            },
            "reason",
        ),
        (
            GrantSilverRequest {
                reason: "x".repeat(201),
                ..request.clone()
            },
            "reason",
        ),
        (
            GrantSilverRequest {
                request_id: String::new(),
                ..request.clone()
            },
            "request_id",
        ),
        (
            GrantSilverRequest {
                player_id: "bad id".into(),
                ..request.clone()
            },
            "player_id",
        ),
    ] {
        let err = app.operator().grant_silver(bad).await.unwrap_err();
        assert_eq!(err.code(), Code::InvalidArgument);
        assert!(err.message().starts_with(field), "{}", err.message());
    }
    assert_eq!(
        fingerprint(&app.db.pool).await,
        before,
        "refused grants change nothing"
    );
    let (granted_by, reason): (String, String) =
        sqlx::query_as("SELECT granted_by, reason FROM grants WHERE request_id = 'welcome-alice'")
            .fetch_one(&app.db.pool)
            .await
            .unwrap();
    assert_eq!(
        (granted_by.as_str(), reason.as_str()),
        ("test-operator", "welcome bonus")
    );
    let history = app
        .player("alice")
        .list_history(ListHistoryRequest::default())
        .await
        .unwrap()
        .into_inner()
        .entries;
    assert_eq!(history.len(), 1);
    assert_eq!(
        (
            history[0].kind,
            history[0].before,
            history[0].after,
            history[0].reason.as_str(),
            history[0].game_id.as_str()
        ),
        (
            HistoryKind::Silver as i32,
            0,
            20_000,
            "grant: welcome bonus",
            ""
        )
    );
    check_invariants(&app.db.pool, &app.caps).await;
    app.finish().await;
}

#[tokio::test]
async fn a_settlement_is_idempotent_by_game_id() {
    let app = spawn_app().await;
    app.grant("a", 10_000).await;
    let request = gomoku("same-game", 100, ("a", Loss, -5), ("b", Win, 5));
    let first = app.settle(request.clone()).await;
    let before = fingerprint(&app.db.pool).await;
    let again = app.settle(request.clone()).await;
    assert!(again.replayed);
    assert_eq!(again.players, first.players);
    assert_eq!(
        fingerprint(&app.db.pool).await,
        before,
        "a replay changes nothing"
    );
    // A different payload under the same id is refused and changes nothing.
    let mut different = request.clone();
    different.players[0].points = -3;
    different.players[1].points = 3;
    let err = app.service().settle_game(different).await.unwrap_err();
    assert_eq!(err.code(), Code::AlreadyExists);
    assert!(err.message().contains("same-game"));
    // The refusal carries what the ledger paid the first time, for the table to adopt.
    let paid = err
        .metadata()
        .get_bin(gamehub_platform::error::SETTLED_RESPONSE_BIN)
        .and_then(|v| v.to_bytes().ok())
        .map(|bytes| {
            <gamehub_proto::ledger::SettleGameResponse as prost::Message>::decode(bytes.as_ref())
                .unwrap()
        })
        .expect("the first settlement beside ALREADY_EXISTS");
    assert_eq!(paid.game_id, "same-game");
    assert_eq!(paid.players, first.players);
    let mut other_record = request.clone();
    other_record.record.as_mut().unwrap().content.push('!');
    let err = app.service().settle_game(other_record).await.unwrap_err();
    assert_eq!(err.code(), Code::AlreadyExists);
    assert_eq!(fingerprint(&app.db.pool).await, before);
    app.finish().await;
}

#[tokio::test]
async fn malformed_settlements_say_what_to_fix_and_change_nothing() {
    let app = spawn_app().await;
    let good = gomoku("g", 100, ("a", Win, 5), ("b", Loss, -5));
    let before = fingerprint(&app.db.pool).await;
    let mut cases = Vec::new();
    let mut r = good.clone();
    r.game_id = String::new();
    cases.push((r, "game_id: is required"));
    let mut r = good.clone();
    r.game_id = "x".repeat(65);
    cases.push((r, "game_id: is longer than 64"));
    let mut r = good.clone();
    r.game_type = 0;
    cases.push((r, "game_type: must be"));
    let mut r = good.clone();
    r.game_type = 99;
    cases.push((r, "game_type: must be"));
    let mut r = good.clone();
    r.stakes = None;
    cases.push((r, "stakes: is required"));
    let mut r = good.clone();
    r.stakes.as_mut().unwrap().points_base = 0;
    cases.push((r, "stakes.points_base: must be 1"));
    let mut r = good.clone();
    r.stakes.as_mut().unwrap().silver_per_point = -1;
    cases.push((r, "stakes.silver_per_point"));
    let mut r = good.clone();
    r.players.truncate(1);
    cases.push((r, "players: a Gomoku game has 2 players"));
    let mut r = good.clone();
    r.players = vec![r.players[0].clone(); 4];
    cases.push((r, "players: at most 3"));
    let mut r = good.clone();
    r.players[1].player_id = "a".into();
    cases.push((r, "players[1].player_id: player a appears twice"));
    let mut r = good.clone();
    r.players[0].role = 0;
    cases.push((r, "players[0].role: must be"));
    let mut r = good.clone();
    r.players[0].outcome = 42;
    cases.push((r, "players[0].outcome: must be"));
    let mut r = good.clone();
    r.players[0].points = 6;
    cases.push((r, "players: points sum to +1"));
    let mut r = good.clone();
    r.players[0].points = 2_000_000_000_000;
    cases.push((r, "players[0].points: at most"));
    let mut r = good.clone();
    r.players[1].outcome = Win as i32;
    cases.push((r, "players[1].points: -5 points do not fit outcome Win"));
    let mut r = good.clone();
    r.reason = String::new();
    cases.push((r, "reason: is required"));
    let mut r = good.clone();
    r.table_id = "t 1".into();
    cases.push((r, "table_id: may contain only"));
    let mut r = good.clone();
    r.ended_at_unix_ms = 1;
    cases.push((r, "ended_at_unix_ms: must not be before"));
    let mut r = good.clone();
    r.record = None;
    cases.push((r, "record: is required"));
    let mut r = good.clone();
    r.record.as_mut().unwrap().content = "x".repeat(256 * 1024 + 1);
    cases.push((r, "record.content: is 262145 bytes"));
    let mut r = doudizhu("d", 100, "a", ["b", "c"], true, 1);
    r.players[1].role = gamehub_proto::ledger::Role::Landlord as i32;
    cases.push((r, "players: a Dou Dizhu deal has one ROLE_LANDLORD"));
    let mut r = good.clone();
    r.players[0].outcome = Draw as i32;
    r.players[0].points = 0;
    cases.push((
        r,
        "players: outcomes Draw and Loss do not make a Gomoku result",
    ));
    for (request, expected) in cases {
        let err = app.service().settle_game(request).await.unwrap_err();
        assert_eq!(
            err.code(),
            Code::InvalidArgument,
            "{expected}: {}",
            err.message()
        );
        assert!(
            err.message().starts_with(expected),
            "{} / {expected}",
            err.message()
        );
    }
    assert_eq!(fingerprint(&app.db.pool).await, before);
    app.finish().await;
}

async fn history_page(
    client: &mut Client,
    kind: HistoryKind,
    size: i32,
    token: &str,
) -> Result<(Vec<(String, i32, i64, i64)>, String), tonic::Status> {
    let r = client
        .list_history(ListHistoryRequest {
            player_id: String::new(),
            kind: kind as i32,
            page_size: size,
            page_token: token.into(),
        })
        .await?
        .into_inner();
    Ok((
        r.entries
            .iter()
            .map(|e| (e.game_id.clone(), e.kind, e.before, e.after))
            .collect(),
        r.next_page_token,
    ))
}

#[tokio::test]
async fn history_is_paginated_newest_first_and_filtered_by_kind() {
    let app = spawn_app().await;
    app.grant("alice", 100_000).await;
    for i in 0..3 {
        app.settle(rated(&format!("h-{i}"), "alice", "bob", Win))
            .await;
        app.settle(gomoku(
            &format!("s-{i}"),
            100,
            ("alice", Loss, -5),
            ("bob", Win, 5),
        ))
        .await;
    }
    // alice: 1 grant, 3 rated games (points + rating each, no silver), 3 paid losses
    // (silver + points each): 13 rows.
    let mut alice = app.player("alice");
    let mut all = Vec::new();
    let mut token = String::new();
    let mut pages = 0;
    loop {
        let (entries, next) = history_page(&mut alice, HistoryKind::Unspecified, 5, &token)
            .await
            .unwrap();
        pages += 1;
        assert!(entries.len() <= 5);
        all.extend(entries);
        if next.is_empty() {
            break;
        }
        token = next;
    }
    assert_eq!((all.len(), pages), (13, 3));
    assert_eq!(all.last().unwrap().0, "", "the grant is the oldest");
    assert_eq!(all[0].0, "s-2", "newest first");
    let (ratings, next) = history_page(&mut alice, HistoryKind::Rating, 0, "")
        .await
        .unwrap();
    assert!(next.is_empty());
    let ratings: Vec<_> = ratings.iter().map(|r| (r.0.as_str(), r.2, r.3)).collect();
    assert_eq!(
        ratings,
        vec![
            ("h-2", 3018, 3025),
            ("h-1", 3010, 3018),
            ("h-0", 3000, 3010)
        ]
    );
    // A token belongs to its query.
    let (_, token) = history_page(&mut alice, HistoryKind::Unspecified, 2, "")
        .await
        .unwrap();
    let err = history_page(&mut alice, HistoryKind::Silver, 2, &token)
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::InvalidArgument);
    assert!(
        err.message()
            .starts_with("page_token: belongs to a different query")
    );
    let err = history_page(&mut alice, HistoryKind::Silver, 2, "garbage")
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::InvalidArgument);
    let err = history_page(&mut alice, HistoryKind::Silver, -1, "")
        .await
        .unwrap_err();
    assert!(err.message().starts_with("page_size"));
    app.finish().await;
}

#[tokio::test]
async fn games_are_listed_newest_first_with_their_results() {
    let app = spawn_app().await;
    for i in 0..5 {
        app.settle(gomoku(
            &format!("go-{i}"),
            0,
            ("alice", Win, 5),
            ("bob", Loss, -5),
        ))
        .await;
    }
    app.settle(doudizhu("ddz-0", 0, "alice", ["bob", "carol"], true, 1))
        .await;
    let mut alice = app.player("alice");
    let page = |game_type: GameType, page_size: i32, page_token: String| ListGamesRequest {
        player_id: String::new(),
        game_type: game_type as i32,
        page_size,
        page_token,
    };
    let first = alice
        .list_games(page(GameType::Unspecified, 4, String::new()))
        .await
        .unwrap()
        .into_inner();
    let ids: Vec<_> = first.games.iter().map(|g| g.game_id.as_str()).collect();
    assert_eq!(ids, vec!["ddz-0", "go-4", "go-3", "go-2"]);
    let second = alice
        .list_games(page(
            GameType::Unspecified,
            4,
            first.next_page_token.clone(),
        ))
        .await
        .unwrap()
        .into_inner();
    let ids: Vec<_> = second.games.iter().map(|g| g.game_id.as_str()).collect();
    assert_eq!(ids, vec!["go-1", "go-0"]);
    assert!(second.next_page_token.is_empty());
    let ddz = alice
        .list_games(page(GameType::Doudizhu, 0, String::new()))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(ddz.games.len(), 1);
    let game = &ddz.games[0];
    assert_eq!(game.results.len(), 3);
    assert_eq!(game.players.len(), 3);
    assert_eq!(game.players[0].points_delta, 2);
    assert_eq!(game.game_type, GameType::Doudizhu as i32);
    app.finish().await;
}

#[tokio::test]
async fn leaderboards_rank_ties_alike_and_show_the_page_around_a_player() {
    let app = spawn_app().await;
    // Dou Dizhu points: p0 +8, p1 +6, p2 and p3 +4 (tied), p4 +2, and the farmers below.
    let wins = [("p0", 4), ("p1", 3), ("p2", 2), ("p3", 2), ("p4", 1)];
    for (i, (lord, each)) in wins.iter().enumerate() {
        app.settle(doudizhu(
            &format!("lb-{i}"),
            0,
            lord,
            [&format!("fa-{i}"), &format!("fb-{i}")],
            true,
            *each,
        ))
        .await;
    }
    let top = app
        .player("p4")
        .get_leaderboard(GetLeaderboardRequest {
            board: Board::DoudizhuPoints as i32,
            limit: 5,
            around_player_id: String::new(),
        })
        .await
        .unwrap()
        .into_inner()
        .rows;
    let rows: Vec<_> = top
        .iter()
        .map(|r| (r.rank, r.player_id.as_str(), r.value))
        .collect();
    assert_eq!(
        rows,
        vec![
            (1, "p0", 8),
            (2, "p1", 6),
            (3, "p2", 4),
            (3, "p3", 4),
            (5, "p4", 2)
        ]
    );
    assert_eq!(top[0].label, "超轻蝇量级");
    // Around p3 with 3 rows: p2, p3, p4; p2 and p3 share rank 3.
    let around = app
        .player("p4")
        .get_leaderboard(GetLeaderboardRequest {
            board: Board::DoudizhuPoints as i32,
            limit: 3,
            around_player_id: "p3".into(),
        })
        .await
        .unwrap()
        .into_inner()
        .rows;
    let rows: Vec<_> = around
        .iter()
        .map(|r| (r.rank, r.player_id.as_str()))
        .collect();
    assert_eq!(rows, vec![(3, "p2"), (3, "p3"), (5, "p4")]);
    // Around the leader: the window shifts down.
    let around = app
        .player("p4")
        .get_leaderboard(GetLeaderboardRequest {
            board: Board::DoudizhuPoints as i32,
            limit: 3,
            around_player_id: "p0".into(),
        })
        .await
        .unwrap()
        .into_inner()
        .rows;
    let rows: Vec<_> = around
        .iter()
        .map(|r| (r.rank, r.player_id.as_str()))
        .collect();
    assert_eq!(rows, vec![(1, "p0"), (2, "p1"), (3, "p2")]);
    // The last places: the farmers; fa-2, fa-3, fb-2, fb-3 tie at -2 behind p4 … and -4,
    // -3 further down. Around the very last one the window shifts up.
    let last = app
        .player("p4")
        .get_leaderboard(GetLeaderboardRequest {
            board: Board::DoudizhuPoints as i32,
            limit: 4,
            around_player_id: "fb-0".into(),
        })
        .await
        .unwrap()
        .into_inner()
        .rows;
    let rows: Vec<_> = last
        .iter()
        .map(|r| (r.rank, r.player_id.as_str(), r.value))
        .collect();
    assert_eq!(
        rows,
        vec![
            (12, "fa-1", -3),
            (12, "fb-1", -3),
            (14, "fa-0", -4),
            (14, "fb-0", -4)
        ]
    );
    // The rating board labels ranks, and professionals as such.
    app.settle(rated("r-1", "p0", "p1", Win)).await;
    app.operator()
        .set_professional(SetProfessionalRequest {
            player_id: "p1".into(),
            professional_dan: 2,
            reason: "test".into(),
            request_id: String::new(),
        })
        .await
        .unwrap();
    let rating = app
        .player("p4")
        .get_leaderboard(GetLeaderboardRequest {
            board: Board::GomokuRating as i32,
            limit: 0,
            around_player_id: String::new(),
        })
        .await
        .unwrap()
        .into_inner()
        .rows;
    let rows: Vec<_> = rating
        .iter()
        .map(|r| (r.rank, r.player_id.as_str(), r.value, r.label.as_str()))
        .collect();
    assert_eq!(rows, vec![(1, "p0", 3010, "1k"), (2, "p1", 2990, "2p")]);
    // Not on a board: NOT_FOUND; an unknown board: INVALID_ARGUMENT.
    let err = app
        .player("p4")
        .get_leaderboard(GetLeaderboardRequest {
            board: Board::GomokuRating as i32,
            limit: 3,
            around_player_id: "p4".into(),
        })
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::NotFound);
    let err = app
        .player("p4")
        .get_leaderboard(GetLeaderboardRequest::default())
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::InvalidArgument);
    app.finish().await;
}
