//! Worked examples of docs/rules.md: every Gomoku result of the points table, Dou Dizhu
//! wins and losses with bombs, springs and anti-springs, escapes, titles.

use gamehub_proto::common::GameType;
use gamehub_proto::ledger::PlayerOutcome::{Draw, Escape, Loss, Void, Win};
use gamehub_proto::ledger::Role as Seat;
use gamehub_proto::ledger::{GetGameRecordRequest, HistoryKind, ListHistoryRequest};

use crate::support::*;

/// (name, black outcome, black points, white outcome, white points, black offered draw)
const GOMOKU_TABLE: [(
    &str,
    gamehub_proto::ledger::PlayerOutcome,
    i64,
    gamehub_proto::ledger::PlayerOutcome,
    i64,
    bool,
); 10] = [
    ("black wins with five", Win, 5, Loss, -5, false),
    ("white wins with five", Loss, -5, Win, 5, false),
    ("black resigns", Loss, -3, Win, 3, false),
    ("white resigns", Win, 2, Loss, -2, false),
    ("black escapes", Escape, -10, Win, 0, false),
    ("white escapes", Win, 0, Escape, -10, false),
    (
        "black offers a draw, white accepts",
        Draw,
        -1,
        Draw,
        1,
        true,
    ),
    (
        "white offers a draw, black accepts",
        Draw,
        1,
        Draw,
        -1,
        false,
    ),
    ("natural draw", Draw, 0, Draw, 0, false),
    ("black loses on time", Loss, -5, Win, 5, false),
];

#[tokio::test]
async fn every_gomoku_result_of_the_points_table() {
    let app = spawn_app().await;
    let spp = 100;
    for (i, (name, bo, bp, wo, wp, black_offered)) in GOMOKU_TABLE.into_iter().enumerate() {
        let (black, white) = (format!("black-{i}"), format!("white-{i}"));
        app.grant(&black, 10_000).await;
        app.grant(&white, 10_000).await;
        let mut request = gomoku(&format!("g-{i}"), spp, (&black, bo, bp), (&white, wo, wp));
        if bo == Draw && bp != 0 {
            let offerer = if black_offered { 0 } else { 1 };
            request.players[offerer].offered_draw = true;
        }
        let response = app.settle(request).await;
        assert!(!response.replayed);
        let [b, w] = [&response.players[0], &response.players[1]];
        assert_eq!((b.points_delta, w.points_delta), (bp, wp), "{name}: points");
        assert_eq!(
            (b.points_after, w.points_after),
            (bp, wp),
            "{name}: points after"
        );
        assert_eq!(
            (b.silver_requested, w.silver_requested),
            (bp * spp, wp * spp),
            "{name}: silver requested"
        );
        assert_eq!(
            (b.silver_delta, w.silver_delta),
            (bp * spp, wp * spp),
            "{name}: nothing clamps a small game"
        );
        assert_eq!((b.clamped_by.as_str(), w.clamped_by.as_str()), ("", ""));
        // An escaper's penalty has no counterparty: it goes to the house.
        assert_eq!(response.house_silver, -(bp + wp) * spp, "{name}: house");
        assert_eq!(
            (b.balance_silver, w.balance_silver),
            (10_000 + bp * spp, 10_000 + wp * spp),
            "{name}: balances"
        );
        assert_eq!(app.balance(&black).await, 10_000 + bp * spp);

        let counts = |o| {
            let mut c = [0i64; 4];
            match o {
                Win => c[0] = 1,
                Loss => c[1] = 1,
                Draw => c[2] = 1,
                Escape => c[3] = 1,
                _ => {}
            }
            c
        };
        for (player, outcome) in [(&black, bo), (&white, wo)] {
            let standing = app.account(player).await.standings[0].clone();
            assert_eq!(standing.game_type, GameType::Gomoku as i32);
            assert_eq!(
                [
                    standing.wins,
                    standing.losses,
                    standing.draws,
                    standing.escapes
                ],
                counts(outcome),
                "{name}: counts of {player}"
            );
            assert_eq!(standing.games, 1);
        }
    }
    check_invariants(&app.db.pool, &app.caps).await;
    app.finish().await;
}

#[tokio::test]
async fn doudizhu_landlord_wins_with_two_bombs() {
    let app = spawn_app().await;
    for p in ["lord", "f1", "f2"] {
        app.grant(p, 100_000).await;
    }
    // Bid 3 × points base 1, two bombs: multiplier 4, so each farmer loses 12 points and
    // the landlord wins 24.
    let response = app
        .settle(doudizhu("d-1", 100, "lord", ["f1", "f2"], true, 3 * 4))
        .await;
    let deltas: Vec<_> = response
        .players
        .iter()
        .map(|p| (p.points_delta, p.silver_delta, p.balance_silver))
        .collect();
    assert_eq!(
        deltas,
        vec![
            (24, 2_400, 102_400),
            (-12, -1_200, 98_800),
            (-12, -1_200, 98_800)
        ]
    );
    assert_eq!(
        response.players[0].rating_before, 0,
        "no rating in Dou Dizhu"
    );
    let standing = app.account("lord").await.standings[1].clone();
    assert_eq!(standing.game_type, GameType::Doudizhu as i32);
    assert_eq!((standing.points, standing.wins, standing.games), (24, 1, 1));
    let f1 = app.account("f1").await.standings[1].clone();
    assert_eq!((f1.points, f1.losses), (-12, 1));
    check_invariants(&app.db.pool, &app.caps).await;
    app.finish().await;
}

#[tokio::test]
async fn doudizhu_landlord_loses_with_a_rocket_and_a_bomb() {
    let app = spawn_app().await;
    for p in ["lord", "f1", "f2"] {
        app.grant(p, 100_000).await;
    }
    // Bid 2, a rocket and a bomb: multiplier 4; each farmer wins 8, the landlord loses 16.
    let response = app
        .settle(doudizhu("d-2", 1_000, "lord", ["f1", "f2"], false, 2 * 4))
        .await;
    let silver: Vec<_> = response.players.iter().map(|p| p.silver_delta).collect();
    assert_eq!(silver, vec![-16_000, 8_000, 8_000]);
    let farmers = app.account("f2").await.standings[1].clone();
    assert_eq!((farmers.points, farmers.wins), (8, 1));
    app.finish().await;
}

#[tokio::test]
async fn spring_and_anti_spring_double_the_stakes() {
    let app = spawn_app().await;
    for p in ["lord", "f1", "f2"] {
        app.grant(p, 1_000_000).await;
    }
    // Spring: bid 3, one bomb, spring: 3 × 2 × 2 = 12 per farmer; at 1,000 silver a point
    // the farmers owe 12,000 each and the landlord receives 24,000.
    let spring = app
        .settle(doudizhu("spring", 1_000, "lord", ["f1", "f2"], true, 12))
        .await;
    let silver: Vec<_> = spring.players.iter().map(|p| p.silver_delta).collect();
    assert_eq!(silver, vec![24_000, -12_000, -12_000]);
    // Anti-spring: bid 1, no bomb, anti-spring ×2: the landlord loses 2 × 2.
    let anti = app
        .settle(doudizhu(
            "anti-spring",
            1_000,
            "lord",
            ["f1", "f2"],
            false,
            2,
        ))
        .await;
    let silver: Vec<_> = anti.players.iter().map(|p| p.silver_delta).collect();
    assert_eq!(silver, vec![-4_000, 2_000, 2_000]);
    assert_eq!(anti.players[0].points_after, 24 - 4);
    // A huge spring (bid 3, three bombs and the rocket: 3 × 16 × 2 = 96 per farmer) at
    // 1,000 silver a point: the landlord's per-game cap binds and the farmers share it.
    let huge = app
        .settle(doudizhu(
            "huge-spring",
            1_000,
            "lord",
            ["f1", "f2"],
            true,
            96,
        ))
        .await;
    let moved: Vec<_> = huge
        .players
        .iter()
        .map(|p| (p.silver_requested, p.silver_delta, p.clamped_by.as_str()))
        .collect();
    assert_eq!(
        moved,
        vec![
            (192_000, 50_000, "game_cap"),
            (-96_000, -25_000, "counterparty"),
            (-96_000, -25_000, "counterparty"),
        ]
    );
    // Points are never clamped.
    assert_eq!(huge.players[0].points_after, 20 + 192);
    check_invariants(&app.db.pool, &app.caps).await;
    app.finish().await;
}

#[tokio::test]
async fn doudizhu_escapes_pay_the_house() {
    let app = spawn_app().await;
    for p in ["a", "b", "c"] {
        app.grant(p, 100_000).await;
    }
    // After bidding 2 with one bomb: the escaper loses 2 × 2 × 3 = 12 points.
    let response = app
        .settle(game(
            "escape-1",
            GameType::Doudizhu,
            100,
            false,
            &[
                ("a", Seat::Landlord, Void, 0),
                ("b", Seat::Farmer, Escape, -12),
                ("c", Seat::Farmer, Void, 0),
            ],
        ))
        .await;
    let silver: Vec<_> = response.players.iter().map(|p| p.silver_delta).collect();
    assert_eq!(silver, vec![0, -1_200, 0]);
    assert_eq!(response.house_silver, 1_200);
    // During bidding: 3 points.
    let response = app
        .settle(game(
            "escape-2",
            GameType::Doudizhu,
            100,
            false,
            &[
                ("a", Seat::Bidder, Escape, -3),
                ("b", Seat::Bidder, Void, 0),
                ("c", Seat::Bidder, Void, 0),
            ],
        ))
        .await;
    assert_eq!(response.house_silver, 300);
    let a = app.account("a").await.standings[1].clone();
    assert_eq!(
        (a.escapes, a.losses, a.games),
        (1, 0, 1),
        "void counts nothing"
    );
    let c = app.account("c").await.standings[1].clone();
    assert_eq!((c.games, c.wins, c.losses), (0, 0, 0));
    let house: i64 =
        sqlx::query_scalar("SELECT balance_silver FROM accounts WHERE account_id = '#house'")
            .fetch_one(&app.db.pool)
            .await
            .unwrap();
    assert_eq!(house, 1_500);
    check_invariants(&app.db.pool, &app.caps).await;
    app.finish().await;
}

#[tokio::test]
async fn titles_change_at_the_table_boundaries() {
    let app = spawn_app().await;
    // Free room: points only. The landlord wins 2 × 500 = 1000 points: still level 1.
    let r = app
        .settle(doudizhu("t-1", 0, "lord", ["f1", "f2"], true, 500))
        .await;
    let lord = &r.players[0];
    assert_eq!(lord.points_after, 1_000);
    let title = lord.title.clone().unwrap();
    assert_eq!((title.level, title.name.as_str()), (1, "超轻蝇量级"));
    assert!(!lord.title_changed);
    assert_eq!(
        r.players[1].title.clone().unwrap().level,
        1,
        "negative points are level 1"
    );
    assert_eq!(r.players[0].silver_delta, 0, "a free room moves no silver");
    // +2 → 1002: level 2.
    let r = app
        .settle(doudizhu("t-2", 0, "lord", ["f1", "f2"], true, 1))
        .await;
    let lord = &r.players[0];
    assert_eq!(lord.points_after, 1_002);
    assert!(lord.title_changed);
    let title = lord.title.clone().unwrap();
    assert_eq!(
        (
            title.level,
            title.name.as_str(),
            title.min_points,
            title.max_points
        ),
        (2, "次蝇量级", 1_001, 3_000)
    );
    // +1998 → 3000: still level 2; +2 → 3002: level 3.
    let r = app
        .settle(doudizhu("t-3", 0, "lord", ["f1", "f2"], true, 999))
        .await;
    assert_eq!(
        (r.players[0].points_after, r.players[0].title_changed),
        (3_000, false)
    );
    let r = app
        .settle(doudizhu("t-4", 0, "lord", ["f1", "f2"], true, 1))
        .await;
    assert_eq!(r.players[0].title.clone().unwrap().level, 3);
    // The title changes are in the history, with their games.
    let titles = app
        .player("lord")
        .list_history(ListHistoryRequest {
            player_id: String::new(),
            kind: HistoryKind::Title as i32,
            page_size: 10,
            page_token: String::new(),
        })
        .await
        .unwrap()
        .into_inner()
        .entries;
    let changes: Vec<_> = titles
        .iter()
        .map(|e| (e.game_id.as_str(), e.before, e.after))
        .collect();
    assert_eq!(changes, vec![("t-4", 2, 3), ("t-2", 1, 2)]);
    check_invariants(&app.db.pool, &app.caps).await;
    app.finish().await;
}

#[tokio::test]
async fn the_game_record_is_kept_for_its_players() {
    let app = spawn_app().await;
    app.grant("alice", 5_000).await;
    let mut request = gomoku("rec-1", 10, ("alice", Win, 5), ("bob", Loss, -5));
    request.record.as_mut().unwrap().content = "h8 i9 j7 ...".into();
    request.reason = "five".into();
    let settled = app.settle(request).await;
    let got = app
        .player("bob")
        .get_game_record(GetGameRecordRequest {
            game_id: "rec-1".into(),
        })
        .await
        .unwrap()
        .into_inner();
    let record = got.record.unwrap();
    assert_eq!(
        (record.format.as_str(), record.content.as_str()),
        ("gomoku-text", "h8 i9 j7 ...")
    );
    let game = got.game.unwrap();
    assert_eq!(game.reason, "five");
    assert_eq!(game.room_id, "gomoku-renju");
    assert_eq!(game.table_id, "table-1");
    assert_eq!(game.players, settled.players);
    let roles: Vec<_> = game
        .results
        .iter()
        .map(|r| (r.player_id.as_str(), r.role))
        .collect();
    assert_eq!(
        roles,
        vec![("alice", Seat::Black as i32), ("bob", Seat::White as i32)]
    );
    assert_eq!(game.started_at_unix_ms, 1_700_000_000_000);
    app.finish().await;
}
