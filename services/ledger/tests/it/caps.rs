//! The caps and balances clamp silver, for winners and losers, per game and per day.

use gamehub_proto::common::RoomStakes;
use gamehub_proto::ledger::PlayerOutcome::{Escape, Loss, Win};
use gamehub_proto::ledger::{CheckEligibilityRequest, Refusal};

use crate::support::*;

fn stakes(min_balance_silver: i64) -> Option<RoomStakes> {
    Some(RoomStakes {
        room_id: "gomoku-renju".into(),
        points_base: 1,
        silver_per_point: 1_000,
        min_balance_silver,
        rated: false,
    })
}

async fn eligibility(app: &TestApp, player: &str, min_balance: i64) -> (bool, i32, String) {
    let r = app
        .service()
        .check_eligibility(CheckEligibilityRequest {
            player_id: player.into(),
            stakes: stakes(min_balance),
        })
        .await
        .unwrap()
        .into_inner();
    (r.eligible, r.refusal, r.message)
}

#[tokio::test]
async fn the_per_game_cap_binds_the_winner() {
    let app = spawn_app().await;
    for p in ["lord", "f1", "f2"] {
        app.grant(p, 1_000_000).await;
    }
    // Each farmer owes 40,000 (under its own 50,000 cap); the landlord would receive
    // 80,000 but wins at most 50,000: the farmers pay 25,000 each, alike.
    let r = app
        .settle(doudizhu("g", 1_000, "lord", ["f1", "f2"], true, 40))
        .await;
    let moved: Vec<_> = r
        .players
        .iter()
        .map(|p| (p.silver_delta, p.clamped_by.as_str()))
        .collect();
    assert_eq!(
        moved,
        vec![
            (50_000, "game_cap"),
            (-25_000, "counterparty"),
            (-25_000, "counterparty")
        ]
    );
    check_invariants(&app.db.pool, &app.caps).await;
    app.finish().await;
}

#[tokio::test]
async fn the_per_game_cap_binds_the_loser() {
    let app = spawn_app().await;
    for p in ["lord", "f1", "f2"] {
        app.grant(p, 1_000_000).await;
    }
    // The landlord owes 2 × 40,000 but loses at most 50,000; each farmer is owed 40,000
    // and gets 25,000.
    let r = app
        .settle(doudizhu("g", 1_000, "lord", ["f1", "f2"], false, 40))
        .await;
    let moved: Vec<_> = r
        .players
        .iter()
        .map(|p| (p.silver_delta, p.clamped_by.as_str()))
        .collect();
    assert_eq!(
        moved,
        vec![
            (-50_000, "game_cap"),
            (25_000, "counterparty"),
            (25_000, "counterparty")
        ]
    );
    // Gomoku: 100 points at 1,000 silver both ways capped at 50,000 each side.
    app.grant("a", 1_000_000).await;
    let r = app
        .settle(gomoku("g2", 20_000, ("a", Loss, -5), ("b", Win, 5)))
        .await;
    assert_eq!(
        (r.players[0].silver_delta, r.players[0].clamped_by.as_str()),
        (-50_000, "game_cap")
    );
    assert_eq!(
        (r.players[1].silver_delta, r.players[1].clamped_by.as_str()),
        (50_000, "game_cap")
    );
    app.finish().await;
}

#[tokio::test]
async fn configured_caps_apply() {
    let app = spawn_app_with(|c| {
        c.caps.game_win_silver = 30_000;
        c.caps.game_loss_silver = 80_000;
    })
    .await;
    app.grant("a", 1_000_000).await;
    let r = app
        .settle(gomoku("g", 20_000, ("a", Loss, -5), ("b", Win, 5)))
        .await;
    assert_eq!(
        (r.players[0].silver_delta, r.players[0].clamped_by.as_str()),
        (-30_000, "counterparty")
    );
    assert_eq!(
        (r.players[1].silver_delta, r.players[1].clamped_by.as_str()),
        (30_000, "game_cap")
    );
    app.finish().await;
}

#[tokio::test]
async fn configured_daily_caps_bind_each_counter_and_refuse_seats() {
    let app = spawn_app_with(|c| {
        c.caps.daily_win_silver = 60_000;
        c.caps.daily_loss_silver = 70_000;
    })
    .await;
    for p in ["loser", "rich-0", "rich-1"] {
        app.grant(p, 1_000_000).await;
    }
    // The winner's second 50,000 game pays only the 10,000 left of its 60,000 day.
    for (i, expected) in [(0, 50_000), (1, 10_000)] {
        let r = app
            .settle(gomoku(
                &format!("w-{i}"),
                10_000,
                ("winner", Win, 5),
                (&format!("rich-{i}"), Loss, -5),
            ))
            .await;
        assert_eq!(r.players[0].silver_delta, expected, "win {i}");
    }
    let today = app.account("winner").await.today.unwrap();
    assert_eq!(
        (today.win_cap_silver, today.remaining_win_silver),
        (60_000, 0)
    );
    let (eligible, refusal, message) = eligibility(&app, "winner", 0).await;
    assert!(!eligible);
    assert_eq!(refusal, Refusal::DailyWinCap as i32);
    assert!(message.contains("daily win cap of 60000"), "{message}");

    // The loss counter is separate and has its own configured cap: 50,000 + 20,000.
    for (i, expected) in [(0, -50_000), (1, -20_000)] {
        let r = app
            .settle(gomoku(
                &format!("l-{i}"),
                10_000,
                ("loser", Loss, -5),
                (&format!("lucky-{i}"), Win, 5),
            ))
            .await;
        assert_eq!(r.players[0].silver_delta, expected, "loss {i}");
    }
    let (eligible, refusal, message) = eligibility(&app, "loser", 0).await;
    assert!(!eligible);
    assert_eq!(refusal, Refusal::DailyLossCap as i32);
    assert!(message.contains("daily loss cap of 70000"), "{message}");
    // Winning 50,000 today touched only the winners' win counters.
    let (eligible, _, _) = eligibility(&app, "lucky-0", 0).await;
    assert!(eligible);
    check_invariants(&app.db.pool, &app.caps).await;
    app.finish().await;
}

#[tokio::test]
async fn the_daily_cap_binds_the_winner() {
    let app = spawn_app().await;
    for i in 0..5 {
        app.grant(&format!("rich-{i}"), 1_000_000).await;
    }
    // Three full wins of 50,000 reach the 150,000 daily win cap.
    for i in 0..3 {
        let r = app
            .settle(gomoku(
                &format!("w-{i}"),
                10_000,
                ("winner", Win, 5),
                (&format!("rich-{i}"), Loss, -5),
            ))
            .await;
        assert_eq!(r.players[0].silver_delta, 50_000);
    }
    let account = app.account("winner").await;
    let today = account.today.unwrap();
    assert_eq!((today.won_silver, today.remaining_win_silver), (150_000, 0));
    let (eligible, refusal, message) = eligibility(&app, "winner", 0).await;
    assert!(!eligible);
    assert_eq!(refusal, Refusal::DailyWinCap as i32);
    assert!(message.contains("daily win cap of 150000"), "{message}");
    // A game anyway (it was seated before): the winner gets nothing, the loser pays nothing.
    let r = app
        .settle(gomoku(
            "w-3",
            10_000,
            ("winner", Win, 5),
            ("rich-3", Loss, -5),
        ))
        .await;
    assert_eq!(
        (r.players[0].silver_delta, r.players[0].clamped_by.as_str()),
        (0, "daily_cap")
    );
    assert_eq!(
        (r.players[1].silver_delta, r.players[1].clamped_by.as_str()),
        (0, "counterparty")
    );
    assert_eq!(r.players[0].points_delta, 5, "points are never clamped");
    check_invariants(&app.db.pool, &app.caps).await;
    app.finish().await;
}

#[tokio::test]
async fn the_daily_cap_binds_partly() {
    let app = spawn_app().await;
    for i in 0..4 {
        app.grant(&format!("rich-{i}"), 1_000_000).await;
    }
    app.grant("loser", 1_000_000).await;
    // The winner wins 140,000 (50k + 50k + 40k), then a 50,000 game pays only 10,000.
    for (i, spp) in [(0, 10_000), (1, 10_000), (2, 8_000)] {
        app.settle(gomoku(
            &format!("w-{i}"),
            spp,
            ("winner", Win, 5),
            (&format!("rich-{i}"), Loss, -5),
        ))
        .await;
    }
    let r = app
        .settle(gomoku(
            "w-3",
            10_000,
            ("winner", Win, 5),
            ("rich-3", Loss, -5),
        ))
        .await;
    assert_eq!(
        (r.players[0].silver_delta, r.players[0].clamped_by.as_str()),
        (10_000, "daily_cap")
    );
    // The loser loses 120,000 (3 × 40,000), then at most 30,000 more today.
    for i in 0..3 {
        app.settle(gomoku(
            &format!("l-{i}"),
            8_000,
            ("loser", Loss, -5),
            (&format!("other-{i}"), Win, 5),
        ))
        .await;
    }
    let r = app
        .settle(gomoku(
            "l-3",
            10_000,
            ("loser", Loss, -5),
            ("other-3", Win, 5),
        ))
        .await;
    assert_eq!(
        (r.players[0].silver_delta, r.players[0].clamped_by.as_str()),
        (-30_000, "daily_cap")
    );
    assert_eq!(r.players[1].clamped_by, "counterparty");
    check_invariants(&app.db.pool, &app.caps).await;
    app.finish().await;
}

#[tokio::test]
async fn the_daily_cap_binds_the_loser_and_penalties_count() {
    let app = spawn_app().await;
    app.grant("loser", 1_000_000).await;
    // Two lost games of 50,000 and an escape penalty of 50,000: the daily loss cap.
    for i in 0..2 {
        app.settle(gomoku(
            &format!("l-{i}"),
            10_000,
            ("loser", Loss, -5),
            (&format!("w-{i}"), Win, 5),
        ))
        .await;
    }
    let r = app
        .settle(gomoku(
            "l-esc",
            5_000,
            ("loser", Escape, -10),
            ("w-2", Win, 0),
        ))
        .await;
    assert_eq!(
        (r.players[0].silver_delta, r.house_silver),
        (-50_000, 50_000)
    );
    let (eligible, refusal, message) = eligibility(&app, "loser", 0).await;
    assert!(!eligible);
    assert_eq!(refusal, Refusal::DailyLossCap as i32);
    assert!(message.contains("daily loss cap"), "{message}");
    let r = app
        .settle(gomoku("l-3", 10_000, ("loser", Loss, -5), ("w-3", Win, 5)))
        .await;
    assert_eq!(
        (r.players[0].silver_delta, r.players[0].clamped_by.as_str()),
        (0, "daily_cap")
    );
    assert_eq!(app.balance("loser").await, 850_000);
    check_invariants(&app.db.pool, &app.caps).await;
    app.finish().await;
}

#[tokio::test]
async fn a_balance_too_small_to_pay() {
    let app = spawn_app().await;
    app.grant("poor", 1_200).await;
    let r = app
        .settle(gomoku("g-1", 1_000, ("poor", Loss, -5), ("rich", Win, 5)))
        .await;
    assert_eq!(
        (
            r.players[0].silver_delta,
            r.players[0].clamped_by.as_str(),
            r.players[0].balance_silver
        ),
        (-1_200, "balance", 0)
    );
    assert_eq!(
        (r.players[1].silver_delta, r.players[1].clamped_by.as_str()),
        (1_200, "counterparty")
    );
    // Broke: the next loss moves nothing, and the balance never goes negative.
    let r = app
        .settle(gomoku("g-2", 1_000, ("poor", Loss, -5), ("rich", Win, 5)))
        .await;
    assert_eq!(
        (r.players[0].silver_delta, r.players[0].balance_silver),
        (0, 0)
    );
    let (eligible, refusal, message) = eligibility(&app, "poor", 5_000).await;
    assert!(!eligible);
    assert_eq!(refusal, Refusal::InsufficientBalance as i32);
    assert_eq!(
        message,
        "balance 0 silver is below the room's minimum of 5000 silver"
    );
    let (eligible, _, _) = eligibility(&app, "rich", 1_200).await;
    assert!(eligible);
    check_invariants(&app.db.pool, &app.caps).await;
    app.finish().await;
}

#[tokio::test]
async fn farmers_are_treated_alike_unless_their_limits_differ() {
    let app = spawn_app().await;
    app.grant("lord", 30_001).await;
    // The landlord owes 2 × 40,000 but holds 30,001: the farmers share it, the odd silver
    // to the farmer listed first.
    let r = app
        .settle(doudizhu("alike", 1_000, "lord", ["f1", "f2"], false, 40))
        .await;
    let silver: Vec<_> = r.players.iter().map(|p| p.silver_delta).collect();
    assert_eq!(silver, vec![-30_001, 15_001, 15_000]);
    assert_eq!(r.players[0].clamped_by, "balance");

    // A farmer close to its daily win cap gets only what remains; the other gets the rest.
    app.grant("lord2", 1_000_000).await;
    app.grant("rich", 1_000_000).await;
    for i in 0..3 {
        let spp = if i == 2 { 9_000 } else { 10_000 };
        app.settle(gomoku(
            &format!("pre-{i}"),
            spp,
            ("g1", Win, 5),
            ("rich", Loss, -5),
        ))
        .await;
    }
    // g1 won 145,000 today: 5,000 remain.
    let r = app
        .settle(doudizhu("differ", 1_000, "lord2", ["g1", "g2"], false, 30))
        .await;
    let moved: Vec<_> = r
        .players
        .iter()
        .map(|p| (p.silver_delta, p.clamped_by.as_str()))
        .collect();
    assert_eq!(
        moved,
        vec![
            (-35_000, "counterparty"),
            (5_000, "daily_cap"),
            (30_000, "")
        ]
    );
    check_invariants(&app.db.pool, &app.caps).await;
    app.finish().await;
}

/// The cap day is read from the ledger's clock, as every "now" of the platform is: a
/// test moves it past midnight (Asia/Shanghai) and the day's counters start over.
#[tokio::test]
async fn the_daily_counters_start_over_at_midnight_by_the_ledgers_clock() {
    use chrono::TimeZone;
    // 23:00 in Shanghai on 1 March 2026.
    let evening = chrono_tz::Asia::Shanghai
        .with_ymd_and_hms(2026, 3, 1, 23, 0, 0)
        .unwrap()
        .timestamp_millis();
    let clock = gamehub_testkit::clock::ManualClock::at(u64::try_from(evening).unwrap());
    let app = spawn_app_with(|config| {
        config.common.clock = clock.clock();
        config.caps.daily_loss_silver = 5_000;
    })
    .await;
    for p in ["ann", "bo"] {
        app.grant(p, 100_000).await;
    }
    app.settle(gomoku("night-1", 1_000, ("ann", Loss, -5), ("bo", Win, 5)))
        .await;
    let today = app.account("ann").await.today.unwrap();
    assert_eq!((today.lost_silver, today.remaining_loss_silver), (5_000, 0));
    let (eligible, refusal, _) = eligibility(&app, "ann", 0).await;
    assert_eq!((eligible, refusal), (false, Refusal::DailyLossCap as i32));

    // Two hours later it is the next day in Shanghai: nothing lost yet.
    clock.advance(std::time::Duration::from_secs(2 * 3600));
    let today = app.account("ann").await.today.unwrap();
    assert_eq!((today.lost_silver, today.remaining_loss_silver), (0, 5_000));
    assert!(eligibility(&app, "ann", 0).await.0);
    app.finish().await;
}
