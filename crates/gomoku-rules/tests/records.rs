//! Records: the text format, PSQ, the stored state and the replay cursor.

use gomoku_rules::{
    ForbiddenPolicy, Game, GameConfig, GameError, Point, Record, RecordError, RecordInfo, Replay,
    RuleSet, Seat, TimeControl,
};

fn p(text: &str) -> Point {
    Point::parse(text).expect("valid point")
}

fn config(rule_set: RuleSet) -> GameConfig {
    GameConfig {
        rule_set,
        time_control: TimeControl {
            per_move_ms: 60_000,
            total_ms: 900_000,
        },
        black_seat: Seat::ONE,
    }
}

fn info() -> RecordInfo {
    RecordInfo {
        room: "gomoku-renju-swap".into(),
        black: "alice".into(),
        white: "bob \"the rock\"".into(),
        date: "2026-11-30".into(),
        friends_table: false,
    }
}

/// A swap-room game with every kind of action: swap, proposals, choice, offers, a lapse,
/// a decline, and a resignation at the end.
fn eventful_swap_game() -> Game {
    let mut g = Game::new(config(RuleSet::RenjuSwap), 1_700_000_000_000);
    let t = |s: u64| 1_700_000_000_000 + s * 1_000;
    let (b, w) = (Seat::ONE, Seat::ZERO);
    g.place(b, p("h8"), t(1)).expect("1");
    g.place(w, p("i9"), t(3)).expect("2");
    g.place(b, p("j8"), t(6)).expect("3");
    g.swap(w, t(9)).expect("swap"); // seat 0 is black now
    g.offer_draw(w, t(10)).expect("offer by seat 0");
    g.place(b, p("i7"), t(12))
        .expect("4 by seat 1, now white; the offer lapses");
    g.propose_fifth(w, [p("g9"), p("k10")], t(15))
        .expect("5 proposals");
    g.choose_fifth(b, p("k10"), t(20)).expect("choice");
    g.place(b, p("g9"), t(25)).expect("6");
    g.offer_draw(b, t(26)).expect("offer");
    g.decline_draw(w, t(27)).expect("decline");
    g.place(w, p("j9"), t(30)).expect("7");
    g.resign(b, t(40)).expect("resign");
    g
}

#[test]
fn text_record_round_trips_a_swap_game_with_every_action() {
    let game = eventful_swap_game();
    let record = Record::new(info(), game.clone());
    let text = record.to_text();
    assert!(text.contains("[RuleSet \"renju-swap\"]"), "{text}");
    assert!(text.contains("[Result \"1-0\"]"), "{text}");
    assert!(
        text.contains("h8@1000 i9@3000 j8@6000 swap@9000 draw:black@10000 i7@12000"),
        "{text}"
    );
    assert!(
        text.contains("propose:g9,k10@15000 choose:k10@20000"),
        "{text}"
    );
    assert!(
        text.contains("decline:black@27000 j9@30000 resign:white@40000"),
        "{text}"
    );
    let back = Record::from_text(&text).expect("reads back");
    assert_eq!(back.game, game);
    assert_eq!(back.info.black, "alice");
    assert_eq!(back.info.white, "bob 'the rock'");
    assert!(!back.info.friends_table);
    assert!(
        !text.contains("FriendsTable"),
        "only friends' tables' records say so"
    );
}

#[test]
fn a_friends_tables_record_says_so_and_reads_back() {
    let game = eventful_swap_game();
    let info = RecordInfo {
        friends_table: true,
        ..info()
    };
    let text = Record::new(info, game.clone()).to_text();
    assert!(text.contains("[FriendsTable \"yes\"]\n"), "{text}");
    let back = Record::from_text(&text).expect("reads back");
    assert!(back.info.friends_table);
    assert_eq!(back.game, game);
}

#[test]
fn a_hand_written_record_reads_without_times() {
    let text = "[RuleSet \"renju-lose\"]\n\n1. h8 h9 2. i8 a1\nj8 a2 k8 a3 l8\n";
    let record = Record::from_text(text).expect("reads");
    let result = record.game.result().expect("black made five");
    assert_eq!(result.describe(), "black wins: five");
}

#[test]
fn an_illegal_record_is_refused_with_the_ply_and_the_reason() {
    let text = "[RuleSet \"renju-lose\"]\n\nh8@0 h9@1 h8@2\n";
    match Record::from_text(text) {
        Err(RecordError::Illegal {
            ply: 3,
            token,
            error: GameError::Occupied { point },
        }) => {
            assert_eq!((token.as_str(), point), ("h8@2", p("h8")));
        }
        other => panic!("unexpected {other:?}"),
    }
    let err = Record::from_text("[RuleSet \"renju-refuse\"]\nh8 a1 i8 a3 j9 a5 j10 a7 j8")
        .expect_err("forbidden");
    assert_eq!(
        err.to_string(),
        "ply 9 (j8) is illegal: j8 is forbidden for black: double three"
    );
    let err = Record::from_text("[RuleSet \"freestyle\"]\nh8 z9").expect_err("bad point");
    assert!(matches!(err, RecordError::BadToken { ply: 2, .. }), "{err}");
    let err = Record::from_text("h8 h9").expect_err("no rule set");
    assert_eq!(err, RecordError::MissingTag("RuleSet"));
    let err = Record::from_text("[RuleSet \"freestyle\"]\n[Result \"1-0\"]\nh8 h9")
        .expect_err("wrong result");
    assert!(matches!(err, RecordError::ResultMismatch { .. }), "{err}");
    let err = Record::from_text("[RuleSet \"freestyle\"]\nh8@5 h9@4").expect_err("time goes back");
    assert!(matches!(err, RecordError::BadToken { ply: 2, .. }), "{err}");
}

#[test]
fn psq_round_trips_stones_and_times() {
    let mut g = Game::new(config(RuleSet::Renju(ForbiddenPolicy::Lose)), 0);
    let moves = ["h8", "i9", "j8", "a1", "o15", "a15"];
    let mut seat = Seat::ONE;
    for (i, m) in moves.iter().enumerate() {
        g.place(seat, p(m), (i as u64 + 1) * 700).expect("legal");
        seat = seat.other();
    }
    let record = Record::new(info(), g.clone());
    let psq = record.to_psq();
    let lines: Vec<&str> = psq.lines().collect();
    assert_eq!(lines[0], "Piskvorky 15x15, 11:11, 0");
    assert_eq!(lines[1], "8,8,700", "h8 is 8,8");
    assert_eq!(
        lines[4], "1,15,700",
        "a1 is the bottom-left: x 1, y 15 counted from the top"
    );
    assert_eq!(lines[5], "15,1,700", "o15 is the top-right");
    let back = Record::from_psq(
        &format!("{psq}pbrain-one.exe\n-1\n"),
        RuleSet::Renju(ForbiddenPolicy::Lose),
    )
    .expect("reads");
    assert_eq!(back.game.moves(), g.moves());
    let at: Vec<u64> = back.game.log().iter().map(|e| e.at_ms).collect();
    assert_eq!(at, vec![700, 1400, 2100, 2800, 3500, 4200]);
}

#[test]
fn psq_errors_name_the_line_or_ply() {
    let err =
        Record::from_psq("Piskvorky 20x20, 11:11, 0\n", RuleSet::Freestyle).expect_err("size");
    assert!(matches!(err, RecordError::Syntax { line: 1, .. }));
    let err = Record::from_psq(
        "Piskvorky 15x15, 11:11, 0\n8,8,0\n16,1,0\n",
        RuleSet::Freestyle,
    )
    .expect_err("off");
    assert!(matches!(err, RecordError::Syntax { line: 3, .. }), "{err}");
    let err = Record::from_psq("Piskvorky 15x15, 11:11, 0\n1,1,0\n", RuleSet::Freestyle)
        .expect_err("not h8");
    assert!(matches!(
        err,
        RecordError::Illegal {
            ply: 1,
            error: GameError::FirstMoveMustBeCenter { .. },
            ..
        }
    ));
}

#[test]
fn stored_state_round_trips_and_is_compact() {
    let game = eventful_swap_game();
    let bytes = game.to_bytes();
    assert_eq!(Game::from_bytes(&bytes).expect("reads"), game);
    // serde through any format works too.
    let json = serde_json::to_string(&game).expect("serialize");
    assert_eq!(
        serde_json::from_str::<Game>(&json).expect("deserialize"),
        game
    );

    // A 60-ply game with realistic times (a few seconds a move, about 3 minutes in all).
    let mut g = Game::new(config(RuleSet::Freestyle), 1_700_000_000_000);
    let mut t = 1_700_000_000_000;
    let points: Vec<Point> = Point::all()
        .filter(|q| q.x() % 2 == 0 && q.y() % 3 != 2)
        .collect();
    let mut placed = 0;
    g.place(Seat::ONE, Point::CENTER, t).expect("h8");
    for q in points {
        if placed == 59 || g.is_over() {
            break;
        }
        if !g.board().is_empty(q) {
            continue;
        }
        t += 3_217;
        let seat = g.to_act().expect("running");
        if g.place(seat, q, t).is_ok() {
            placed += 1;
        }
    }
    assert_eq!(g.moves().len(), 60);
    let size = g.to_bytes().len();
    println!("stored 60-ply game: {size} bytes");
    assert!(size < 800, "{size} bytes");
}

#[test]
fn stored_state_with_an_illegal_log_is_refused() {
    let game = eventful_swap_game();
    let text = String::from_utf8(game.to_bytes()).expect("json");
    let tampered = text.replace("i9@3000", "h8@3000");
    let err = Game::from_bytes(tampered.as_bytes()).expect_err("tampered");
    assert!(matches!(err, RecordError::Illegal { ply: 2, .. }), "{err}");
    assert!(Game::from_bytes(b"{}").is_err());
    assert!(Game::from_bytes(&vec![b' '; 100_000]).is_err());
}

#[test]
fn replay_cursor_steps_back_and_forth() {
    let game = eventful_swap_game();
    let mut replay = Replay::new(&game);
    assert_eq!((replay.len(), replay.ply()), (7, 7));
    assert_eq!(replay.board(), game.board());
    assert_eq!(replay.backward().map(|m| m.0), Some(p("j9")));
    assert_eq!(replay.ply(), 6);
    assert!(replay.board().is_empty(p("j9")));
    replay.jump(0);
    assert_eq!(replay.board().stone_count(), 0);
    assert_eq!(replay.backward(), None);
    assert_eq!(replay.forward().map(|m| m.0), Some(p("h8")));
    replay.jump(5);
    assert_eq!(replay.board(), &replay.board_at(5));
    assert_eq!(replay.stone(5).map(|m| m.0), Some(p("k10")));
    replay.jump(99);
    assert_eq!(replay.ply(), 7);
    assert_eq!(replay.forward(), None);
}

#[test]
fn an_overlong_move_or_header_value_is_refused_without_quoting_it() {
    let long = "x".repeat(10_000);
    let error = Record::from_text(&format!("[RuleSet \"freestyle\"]\n\nh8 {long}\n")).unwrap_err();
    assert!(
        matches!(error, RecordError::TokenTooLong { ply: 2, .. }),
        "{error:?}"
    );
    assert!(error.to_string().len() < 100, "{error}");

    let error = Record::from_text(&format!("[RuleSet \"{long}\"]\n\nh8\n")).unwrap_err();
    assert!(
        matches!(error, RecordError::Syntax { line: 1, .. }),
        "{error:?}"
    );
    assert!(error.to_string().len() < 100, "{error}");

    // A token just within the bound is read (and refused for what it says).
    let error = Record::from_text(&format!(
        "[RuleSet \"freestyle\"]\n\nh8 {}\n",
        "z".repeat(gomoku_rules::MAX_TOKEN_CHARS)
    ))
    .unwrap_err();
    assert!(
        matches!(error, RecordError::BadToken { ply: 2, .. }),
        "{error:?}"
    );
}
