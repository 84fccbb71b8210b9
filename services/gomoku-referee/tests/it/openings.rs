//! Designated openings (指定打法) through the API: every one of the 26 opens a game from
//! its published diagram with white to play move 4; a random table draws one per game,
//! announces it, records it and loads it back; bad choices are refused naming the field.

use std::collections::HashSet;
use std::time::Duration;

use futures::StreamExt;
use gamehub_platform::auth::Role;
use gamehub_proto::gomoku as pb;
use tonic::Code;

use crate::support::*;

/// (number, RIF code, id, Chinese name, the three stones) as the RIF diagrams show them,
/// written out here again so the API is checked against the diagrams, not against the
/// rules crate's own table.
const DIAGRAMS: [(i32, &str, &str, &str, &str); 26] = [
    (1, "1D", "kansei", "寒星", "h8 h9 h10"),
    (2, "2D", "keigetsu", "溪月", "h8 h9 i10"),
    (3, "3D", "sosei", "疏星", "h8 h9 j10"),
    (4, "4D", "kagetsu", "花月", "h8 h9 i9"),
    (5, "5D", "zangetsu", "残月", "h8 h9 j9"),
    (6, "6D", "ugetsu", "雨月", "h8 h9 i8"),
    (7, "7D", "kinsei", "金星", "h8 h9 j8"),
    (8, "8D", "shogetsu", "松月", "h8 h9 h7"),
    (9, "9D", "kyugetsu", "丘月", "h8 h9 i7"),
    (10, "10D", "shingetsu", "新月", "h8 h9 j7"),
    (11, "11D", "zuisei", "瑞星", "h8 h9 h6"),
    (12, "12D", "sangetsu", "山月", "h8 h9 i6"),
    (13, "13D", "yusei", "游星", "h8 h9 j6"),
    (14, "1I", "chosei", "长星", "h8 i9 j10"),
    (15, "2I", "kyogetsu", "峡月", "h8 i9 j9"),
    (16, "3I", "kosei", "恒星", "h8 i9 j8"),
    (17, "4I", "suigetsu", "水月", "h8 i9 j7"),
    (18, "5I", "ryusei", "流星", "h8 i9 j6"),
    (19, "6I", "ungetsu", "云月", "h8 i9 i8"),
    (20, "7I", "hogetsu", "浦月", "h8 i9 i7"),
    (21, "8I", "rangetsu", "岚月", "h8 i9 i6"),
    (22, "9I", "gingetsu", "银月", "h8 i9 h7"),
    (23, "10I", "myojo", "明星", "h8 i9 h6"),
    (24, "11I", "shagetsu", "斜月", "h8 i9 g7"),
    (25, "12I", "meigetsu", "名月", "h8 i9 g6"),
    (26, "13I", "suisei", "彗星", "h8 i9 f6"),
];

fn opening_request(rule_set: pb::RuleSet, opening: &str) -> pb::OpenTableRequest {
    pb::OpenTableRequest {
        designated_opening: opening.to_owned(),
        ..open_request(rule_set, (60_000, 600_000), ["alice", "bob"])
    }
}

fn texts(points: &[pb::Point]) -> String {
    points
        .iter()
        .map(|p| p.text.as_str())
        .collect::<Vec<_>>()
        .join(" ")
}

fn board(game: &pb::Game) -> String {
    game.stones
        .iter()
        .map(|s| s.point.as_ref().unwrap().text.as_str())
        .collect::<Vec<_>>()
        .join(" ")
}

#[tokio::test]
async fn every_opening_starts_a_game_from_its_diagram_with_white_to_play_move_4() {
    let fx = Fixture::new().await;
    let mut service = fx.service();
    for (number, code, id, name_zh, stones) in DIAGRAMS {
        // Named by id, number, code or Chinese name alike.
        let name = match number % 3 {
            0 => id.to_owned(),
            1 => number.to_string(),
            _ => format!("{name_zh}局"),
        };
        let table = service
            .open_table(opening_request(pb::RuleSet::RenjuLose, &name))
            .await
            .unwrap()
            .into_inner()
            .table
            .unwrap();
        assert_eq!(table.designated_opening, id, "{name}");
        let game = game(&table);
        let opening = game.opening.as_ref().expect("the game names its opening");
        assert_eq!(
            (opening.number, opening.code.as_str(), opening.id.as_str()),
            (number, code, id)
        );
        assert_eq!(opening.name_zh, name_zh);
        assert_eq!(texts(&opening.stones), stones, "{id}: the diagram's stones");
        assert_eq!(board(game), stones, "{id}: the board is the diagram");
        let colors: Vec<_> = game.stones.iter().map(pb::Stone::color).collect();
        assert_eq!(
            colors,
            [pb::Color::Black, pb::Color::White, pb::Color::Black]
        );
        assert_eq!(game.to_move(), pb::Color::White, "{id}: white plays move 4");
        assert_eq!(game.to_act_seat, Some(1));
        assert!(
            game.clocks.iter().all(|c| c.remaining_ms == 600_000),
            "{id}: the opening took nobody's time"
        );
    }
    fx.stop().await;
}

#[tokio::test]
async fn a_random_opening_is_announced_played_recorded_and_drawn_again_for_the_next_game() {
    let fx = Fixture::new().await;
    fx.grant(&["alice", "bob"]).await;
    let (alice, bob) = (fx.player("alice"), fx.player("bob"));
    let mut service = fx.service();
    let table = service
        .open_table(opening_request(pb::RuleSet::RenjuLose, "random"))
        .await
        .unwrap()
        .into_inner()
        .table
        .unwrap();
    let id = table.table_id.clone();
    assert_eq!(table.designated_opening, "random");
    let opening = game(&table).opening.clone().expect("drawn at once");
    let diagram = DIAGRAMS.iter().find(|d| d.2 == opening.id).unwrap();
    assert_eq!(texts(&opening.stones), diagram.4);

    // The GameStarted event names it (watchers see no StonePlaced for its stones).
    let mut watcher = fx.client_at(&fx.url(), "carol", Role::Player);
    let mut stream = watcher
        .watch(pb::WatchRequest {
            table_id: id.clone(),
            after_event_id: 1,
        })
        .await
        .unwrap()
        .into_inner();
    let item = tokio::time::timeout(Duration::from_secs(5), stream.next())
        .await
        .unwrap()
        .unwrap()
        .unwrap()
        .item
        .unwrap();
    let pb::watch_response::Item::Event(pb::TableEvent {
        kind: Some(pb::table_event::Kind::GameStarted(started)),
        ..
    }) = item
    else {
        panic!("event 2 is the game's start, got {item:?}");
    };
    assert_eq!(started.opening.as_ref(), Some(&opening));
    drop(stream);

    // Black may not play move 4; white does, then resigns.
    let refused = alice.place(&id, "a1").await.unwrap_err();
    assert_eq!(refused.code(), Code::FailedPrecondition);
    assert!(
        refused.message().starts_with("not_your_turn"),
        "{}",
        refused.message()
    );
    let after = bob.place(&id, "a1").await.unwrap();
    assert_eq!(game(&after).stones[3].ply, 4);
    let over = bob.resign(&id).await.unwrap();
    assert_eq!(
        result(&over).points,
        vec![2, -2],
        "white resigned: black +2"
    );

    // The record names the opening: its stones are moves 1-3 at 0 ms.
    let record = service
        .get_record(pb::GetRecordRequest {
            table_id: id.clone(),
            game_number: 1,
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(record.opening.as_ref(), Some(&opening));
    let first: Vec<_> = record.entries[..3]
        .iter()
        .map(|e| (e.point.as_ref().unwrap().text.clone(), e.at_ms))
        .collect();
    let expected: Vec<_> = opening.stones.iter().map(|p| (p.text.clone(), 0)).collect();
    assert_eq!(first, expected);
    let text = service
        .export_record(pb::ExportRecordRequest {
            table_id: id.clone(),
            game_number: 1,
            format: pb::RecordFormat::Text as i32,
        })
        .await
        .unwrap()
        .into_inner()
        .content;
    assert!(
        text.contains(&format!("[Opening \"{}\"]", opening.id)),
        "{text}"
    );
    let loaded = service
        .load_record(pb::LoadRecordRequest {
            format: pb::RecordFormat::Text as i32,
            content: text,
            rule_set: 0,
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(loaded.opening.as_ref(), Some(&opening));
    assert_eq!(loaded.stones.len(), 4);

    // Game 2: colors swapped, again from an opening.
    alice.next_game(&id).await.unwrap();
    let next = bob.next_game(&id).await.unwrap();
    assert!(next.started);
    let table = next.table.unwrap();
    let second = game(&table);
    assert_eq!((second.number, second.black_seat), (2, 1));
    let opening2 = second.opening.as_ref().expect("game 2 has its opening");
    assert_eq!(board(second), texts(&opening2.stones));
    assert_eq!(
        second.to_act_seat,
        Some(0),
        "alice, now white, plays move 4"
    );
    fx.stop().await;
}

#[tokio::test]
async fn random_tables_draw_different_openings() {
    let fx = Fixture::new().await;
    let mut service = fx.service();
    let mut drawn = HashSet::new();
    for _ in 0..40 {
        let table = service
            .open_table(opening_request(pb::RuleSet::RenjuClaim, "random"))
            .await
            .unwrap()
            .into_inner()
            .table
            .unwrap();
        drawn.insert(game(&table).opening.clone().unwrap().id);
    }
    // 40 draws of 26 equally likely openings: fewer than 10 distinct would happen with
    // a probability below 1e-9.
    assert!(drawn.len() >= 10, "{drawn:?}");
    fx.stop().await;
}

#[tokio::test]
async fn a_bad_designated_opening_is_refused_naming_the_field() {
    let fx = Fixture::new().await;
    let mut service = fx.service();
    for (rule_set, opening, says) in [
        (pb::RuleSet::Freestyle, "random", "freestyle"),
        (pb::RuleSet::RenjuSwap, "kagetsu", "renju-swap"),
        (pb::RuleSet::RenjuLose, "nope", "unknown opening"),
        (pb::RuleSet::RenjuLose, "27", "unknown opening"),
        (pb::RuleSet::RenjuLose, &"x".repeat(33), "longer than 32"),
    ] {
        let refused = service
            .open_table(opening_request(rule_set, opening))
            .await
            .unwrap_err();
        assert_eq!(refused.code(), Code::InvalidArgument, "{opening}");
        assert!(
            refused.message().starts_with("designated_opening: ")
                && refused.message().contains(says),
            "{}",
            refused.message()
        );
        assert!(refused.message().len() < 400, "{}", refused.message());
    }
    // Without one, a renju game starts from the empty board.
    let table = fx
        .open(pb::RuleSet::RenjuLose, (60_000, 0), ["alice", "bob"])
        .await;
    assert_eq!(table.designated_opening, "");
    assert!(game(&table).opening.is_none() && game(&table).stones.is_empty());
    fx.stop().await;
}
