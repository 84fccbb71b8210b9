//! Gomoku ratings through SettleGame: every case of the formula, professionals,
//! unrated rooms and escapes.

use gamehub_proto::common::GameType;
use gamehub_proto::ledger::PlayerOutcome::{Draw, Escape, Loss, Win};
use gamehub_proto::ledger::{SetProfessionalRequest, SettleGameRequest};

use crate::support::*;

/// Puts a player at `rating` with `rated_games` behind it (as if it had played).
async fn seed(app: &TestApp, player: &str, rating: i64, rated_games: i64) {
    app.settle(rated(
        &format!("seed-{player}"),
        player,
        &format!("{player}-sparring"),
        Draw,
    ))
    .await;
    sqlx::query("UPDATE players SET gomoku_rating = $2, rated_games = $3 WHERE player_id = $1")
        .bind(player)
        .bind(rating)
        .bind(rated_games)
        .execute(&app.db.pool)
        .await
        .unwrap();
}

async fn ratings(app: &TestApp, request: SettleGameRequest) -> (i64, i64, i64, i64) {
    let r = app.settle(request).await;
    (
        r.players[0].rating_before,
        r.players[0].rating_after,
        r.players[1].rating_before,
        r.players[1].rating_after,
    )
}

#[tokio::test]
async fn every_case_of_the_rating_formula() {
    let app = spawn_app().await;
    // New players start at 3000 (1k) and equal players move 10.
    assert_eq!(
        ratings(&app, rated("r-1", "new-a", "new-b", Win)).await,
        (3000, 3010, 3000, 2990)
    );
    // The higher-rated wins by more than 100: nothing moves.
    seed(&app, "strong", 2150, 10).await;
    seed(&app, "weak", 2000, 10).await;
    assert_eq!(
        ratings(&app, rated("r-2", "strong", "weak", Win)).await,
        (2150, 2150, 2000, 2000)
    );
    // The lower-rated wins: 10 - (2000 - 2150)/10 = 25.
    assert_eq!(
        ratings(&app, rated("r-3", "strong", "weak", Loss)).await,
        (2150, 2125, 2000, 2025)
    );
    // The higher-rated wins by 100 or less: 10 - 100/10 = 0 at exactly 100 apart.
    seed(&app, "c", 2100, 10).await;
    seed(&app, "d", 2000, 10).await;
    assert_eq!(
        ratings(&app, rated("r-4", "c", "d", Win)).await,
        (2100, 2100, 2000, 2000)
    );
    seed(&app, "e", 2045, 10).await;
    seed(&app, "f", 2000, 10).await;
    assert_eq!(
        ratings(&app, rated("r-5", "e", "f", Win)).await,
        (2045, 2051, 2000, 1994)
    );
    // Draws under 10 apart: nothing; 10 or more: the lower gains 10 + diff/10.
    seed(&app, "g", 2009, 10).await;
    seed(&app, "h", 2000, 10).await;
    assert_eq!(
        ratings(&app, rated("r-6", "g", "h", Draw)).await,
        (2009, 2009, 2000, 2000)
    );
    seed(&app, "i", 2250, 10).await;
    seed(&app, "j", 2000, 10).await;
    assert_eq!(
        ratings(&app, rated("r-7", "i", "j", Draw)).await,
        (2250, 2215, 2000, 2035)
    );
    // Both with more than 50 rated games: at most 20 per game.
    seed(&app, "vet-a", 2300, 51).await;
    seed(&app, "vet-b", 2000, 51).await;
    assert_eq!(
        ratings(&app, rated("r-8", "vet-a", "vet-b", Loss)).await,
        (2300, 2280, 2000, 2020)
    );
    // Only one of them past 50: no limit (10 + 280/10 = 38).
    seed(&app, "vet-c", 2280, 51).await;
    seed(&app, "novice", 2000, 50).await;
    assert_eq!(
        ratings(&app, rated("r-9", "vet-c", "novice", Loss)).await,
        (2280, 2242, 2000, 2038)
    );
    let account = app.account("vet-a").await.gomoku_rating.unwrap();
    assert_eq!(
        (account.rating, account.rank, account.rank_name.as_str()),
        (2280, 22, "9k")
    );
    assert_eq!(account.rated_games, 52);
    app.finish().await;
}

#[tokio::test]
async fn professionals_move_no_rating_but_count_wins_and_losses() {
    let app = spawn_app().await;
    let pro = app
        .operator()
        .set_professional(SetProfessionalRequest {
            player_id: "pro".into(),
            professional_dan: 3,
            reason: "test".into(),
            request_id: String::new(),
        })
        .await
        .unwrap()
        .into_inner()
        .account
        .unwrap()
        .gomoku_rating
        .unwrap();
    assert_eq!((pro.professional_dan, pro.rank_name.as_str()), (3, "3p"));
    assert_eq!(
        ratings(&app, rated("p-1", "pro", "amateur", Loss)).await,
        (3000, 3000, 3000, 3000)
    );
    let standing = app.account("pro").await.standings[0].clone();
    assert_eq!((standing.losses, standing.games), (1, 1));
    // Cleared, the player's games move ratings again.
    app.operator()
        .set_professional(SetProfessionalRequest {
            player_id: "pro".into(),
            professional_dan: 0,
            reason: "test".into(),
            request_id: String::new(),
        })
        .await
        .unwrap();
    assert_eq!(
        ratings(&app, rated("p-2", "pro", "amateur", Win)).await,
        (3000, 3010, 3000, 2990)
    );
    let audit: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM operator_actions WHERE kind = 2 AND operator = 'test-operator'",
    )
    .fetch_one(&app.db.pool)
    .await
    .unwrap();
    assert_eq!(audit, 2);
    app.finish().await;
}

#[tokio::test]
async fn only_rated_gomoku_rooms_move_ratings() {
    let app = spawn_app().await;
    // Unrated room.
    let mut unrated = rated("u-1", "a", "b", Win);
    unrated.stakes.as_mut().unwrap().rated = false;
    assert_eq!(ratings(&app, unrated).await, (3000, 3000, 3000, 3000));
    assert_eq!(app.account("a").await.gomoku_rating.unwrap().rated_games, 0);
    // Dou Dizhu, even with `rated` set.
    let mut deal = doudizhu("u-2", 0, "a", ["b", "c"], true, 1);
    deal.stakes.as_mut().unwrap().rated = true;
    let r = app.settle(deal).await;
    assert_eq!(
        (r.players[0].rating_before, r.players[0].rating_after),
        (0, 0)
    );
    assert_eq!(app.account("a").await.gomoku_rating.unwrap().rating, 3000);
    app.finish().await;
}

#[tokio::test]
async fn an_escape_is_a_rated_loss() {
    let app = spawn_app().await;
    let escape = game(
        "esc",
        GameType::Gomoku,
        0,
        true,
        &[
            ("runner", gamehub_proto::ledger::Role::Black, Escape, -10),
            ("stayer", gamehub_proto::ledger::Role::White, Win, 0),
        ],
    );
    assert_eq!(ratings(&app, escape).await, (3000, 2990, 3000, 3010));
    // The rating history chains from game to game.
    assert_eq!(
        ratings(&app, rated("after", "runner", "stayer", Win)).await,
        (2990, 3002, 3010, 2998)
    );
    check_invariants(&app.db.pool, &app.caps).await;
    app.finish().await;
}
