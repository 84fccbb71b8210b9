//! The 26 standard Renju openings (指定打法): every position against its published diagram,
//! the properties that make the list right, and games that start from an opening: clocks,
//! records, stored state and the replay cursor.
//!
//! Where the positions come from. The RIF numbers the openings 1D–13D (direct: white
//! orthogonal to h8) and 1I–13I (indirect: white diagonal to h8) and publishes each as a
//! diagram. The names and numbers below are the diagrams' captions as given by the
//! Wikipedia article "Renju opening pattern" (1D 寒星 … 13D 游星, 1I 長星 … 13I 彗星) and by
//! renju.in's "Debuts in Renju" list (Kansei … Yusei, Chosei … Suisei), which agree. The
//! diagrams themselves are pictures; their stones as text come from three independent
//! programs' opening tables, which agree with each other and with the table below stone for
//! stone (after turning white onto h9 or i9):
//! - AbstractPlay/gameslib, `src/games/renju.ts`, `canonicalOpenings`: the 26 positions in
//!   RIF order 1D … 13D, 1I … 13I, white on h9/i9, in this very notation;
//! - a Java renju engine's opening book `BookStr`: Chinese name to stones in this notation
//!   ("寒星局:H8,H9,H10", "溪月局:H8,H9,I10", …, "彗星局:H8,I9,F6");
//! - a C++ gomoku program's `OpenSteps.cpp` (`getD1` … `getI13`, named "D1寒心局" (sic) …
//!   "I13彗星局"): RIF number and Chinese name to (row, column), white on the next row.
//!
//! The tests below also prove the list complete and free of duplicates: every start the
//! RIF allows is exactly one of the 26 up to the board's symmetries. One more table seen
//! while researching, in a Rust `gomoku` crate, puts Kansei's third stone on the far side of
//! h8 and says itself that it does not follow the diagrams; it was not used.

use std::collections::HashSet;

use gomoku_rules::{
    Action, Color, EndReason, ForbiddenKind, ForbiddenPolicy, Game, GameConfig, GameError, Opening,
    OpeningChoice, OpeningError, OpeningFamily, Point, Record, RecordError, RecordInfo, Replay,
    RuleSet, Seat, Symmetry, TimeControl, Verdict,
};
use proptest::prelude::*;

fn p(text: &str) -> Point {
    Point::parse(text).expect("valid point")
}

/// (number, RIF code, id, RIF name, Chinese name, the three stones as on the diagram).
const DIAGRAMS: [(u8, &str, &str, &str, &str, &str); 26] = [
    (1, "1D", "kansei", "Kansei", "寒星", "h8 h9 h10"),
    (2, "2D", "keigetsu", "Keigetsu", "溪月", "h8 h9 i10"),
    (3, "3D", "sosei", "Sosei", "疏星", "h8 h9 j10"),
    (4, "4D", "kagetsu", "Kagetsu", "花月", "h8 h9 i9"),
    (5, "5D", "zangetsu", "Zangetsu", "残月", "h8 h9 j9"),
    (6, "6D", "ugetsu", "Ugetsu", "雨月", "h8 h9 i8"),
    (7, "7D", "kinsei", "Kinsei", "金星", "h8 h9 j8"),
    (8, "8D", "shogetsu", "Shogetsu", "松月", "h8 h9 h7"),
    (9, "9D", "kyugetsu", "Kyugetsu", "丘月", "h8 h9 i7"),
    (10, "10D", "shingetsu", "Shingetsu", "新月", "h8 h9 j7"),
    (11, "11D", "zuisei", "Zuisei", "瑞星", "h8 h9 h6"),
    (12, "12D", "sangetsu", "Sangetsu", "山月", "h8 h9 i6"),
    (13, "13D", "yusei", "Yusei", "游星", "h8 h9 j6"),
    (14, "1I", "chosei", "Chosei", "长星", "h8 i9 j10"),
    (15, "2I", "kyogetsu", "Kyogetsu", "峡月", "h8 i9 j9"),
    (16, "3I", "kosei", "Kosei", "恒星", "h8 i9 j8"),
    (17, "4I", "suigetsu", "Suigetsu", "水月", "h8 i9 j7"),
    (18, "5I", "ryusei", "Ryusei", "流星", "h8 i9 j6"),
    (19, "6I", "ungetsu", "Ungetsu", "云月", "h8 i9 i8"),
    (20, "7I", "hogetsu", "Hogetsu", "浦月", "h8 i9 i7"),
    (21, "8I", "rangetsu", "Rangetsu", "岚月", "h8 i9 i6"),
    (22, "9I", "gingetsu", "Gingetsu", "银月", "h8 i9 h7"),
    (23, "10I", "myojo", "Myojo", "明星", "h8 i9 h6"),
    (24, "11I", "shagetsu", "Shagetsu", "斜月", "h8 i9 g7"),
    (25, "12I", "meigetsu", "Meigetsu", "名月", "h8 i9 g6"),
    (26, "13I", "suisei", "Suisei", "彗星", "h8 i9 f6"),
];

fn stones_text(opening: Opening) -> String {
    opening.stones().map(|s| s.to_string()).join(" ")
}

#[test]
fn every_opening_matches_its_published_diagram() {
    assert_eq!(Opening::ALL.len(), DIAGRAMS.len());
    for (opening, (number, code, id, name, name_zh, stones)) in
        Opening::ALL.into_iter().zip(DIAGRAMS)
    {
        assert_eq!(opening.number(), number, "{id}");
        assert_eq!(opening.code(), code, "{id}");
        assert_eq!(opening.id(), id);
        assert_eq!(opening.name(), name);
        assert_eq!(opening.name_zh(), name_zh);
        assert_eq!(stones_text(opening), stones, "{id} ({name_zh}, {code})");
        assert_eq!(opening.to_string(), id);
    }
}

#[test]
fn the_chinese_names_are_those_of_the_seed_and_spec() {
    // docs/rules.md#designated-openings (from seed 000's 指定打法): 13 direct, then 13 indirect.
    let direct = "寒星 溪月 疏星 花月 残月 雨月 金星 松月 丘月 新月 瑞星 山月 游星";
    let indirect = "长星 峡月 恒星 水月 流星 云月 浦月 岚月 银月 明星 斜月 名月 彗星";
    let names: Vec<&str> = Opening::ALL.iter().map(|o| o.name_zh()).collect();
    assert_eq!(names[..13].join(" "), direct);
    assert_eq!(names[13..].join(" "), indirect);
    // The seed's two examples: 明星局 and 花月局.
    assert_eq!(Opening::parse("明星局"), Ok(Opening::Myojo));
    assert_eq!(Opening::parse("花月局"), Ok(Opening::Kagetsu));
}

#[test]
fn direct_openings_put_white_orthogonal_to_h8_and_indirect_ones_diagonal() {
    for opening in Opening::ALL {
        let [first, white, third] = opening.stones();
        assert_eq!(first, Point::CENTER);
        assert_eq!(white.distance(Point::CENTER), 1, "{opening}");
        let orthogonal = white.x() == Point::CENTER.x() || white.y() == Point::CENTER.y();
        match opening.family() {
            OpeningFamily::Direct => assert!(orthogonal, "{opening}"),
            OpeningFamily::Indirect => assert!(!orthogonal, "{opening}"),
        }
        assert_eq!(
            opening.family() == OpeningFamily::Direct,
            opening.number() <= 13
        );
        assert!(
            third.distance(Point::CENTER) <= 2,
            "{opening}: {third} outside the 5x5"
        );
        assert!(third != first && third != white);
    }
}

#[test]
fn the_26_are_distinct_up_to_the_8_symmetries() {
    for (i, a) in Opening::ALL.into_iter().enumerate() {
        for b in &Opening::ALL[i + 1..] {
            for s in Symmetry::ALL {
                let turned = a.stones().map(|q| q.transform(s));
                assert_ne!(turned, b.stones(), "{a} turned by {s:?} is {b}");
            }
        }
    }
}

/// Every start the RIF allows (h8, any neighbour, any free point of the central 5×5) is
/// exactly one of the 26, and of the family its white stone says: so the list is complete.
#[test]
fn every_legal_three_stone_start_is_exactly_one_opening() {
    let centre_square: Vec<Point> = Point::all()
        .filter(|q| q.distance(Point::CENTER) <= 2)
        .collect();
    let mut seen = HashSet::new();
    let mut starts = 0;
    for &white in centre_square
        .iter()
        .filter(|q| q.distance(Point::CENTER) == 1)
    {
        for &third in &centre_square {
            if third == Point::CENTER || third == white {
                continue;
            }
            starts += 1;
            let stones = [Point::CENTER, white, third];
            let matching: Vec<Opening> = Opening::ALL
                .into_iter()
                .filter(|o| {
                    Symmetry::ALL
                        .iter()
                        .any(|&s| o.stones().map(|q| q.transform(s)) == stones)
                })
                .collect();
            assert_eq!(matching.len(), 1, "{stones:?} matches {matching:?}");
            let opening = matching[0];
            assert_eq!(Opening::identify(stones), Some(opening));
            let orthogonal = white.x() == 7 || white.y() == 7;
            assert_eq!(opening.family() == OpeningFamily::Direct, orthogonal);
            seen.insert(opening);
        }
    }
    assert_eq!(starts, 8 * 23);
    assert_eq!(seen.len(), 26, "some opening is never reached");
    // Not openings: h8 not first, white not touching h8, black outside the 5x5.
    assert_eq!(Opening::identify([p("h9"), p("h8"), p("h10")]), None);
    assert_eq!(Opening::identify([p("h8"), p("h10"), p("h9")]), None);
    assert_eq!(Opening::identify([p("h8"), p("h9"), p("h11")]), None);
}

#[test]
fn every_opening_is_a_legal_start_under_every_renju_rule_set() {
    for opening in Opening::ALL {
        for rule_set in [
            RuleSet::Renju(ForbiddenPolicy::Lose),
            RuleSet::Renju(ForbiddenPolicy::Refuse),
            RuleSet::Renju(ForbiddenPolicy::Claim),
            RuleSet::RenjuSwap,
        ] {
            // Played out stone by stone in an ordinary game (the swap room checks the RIF
            // opening rule: move 2 touches h8, move 3 in the central 5x5).
            let mut game = Game::new(config(rule_set, TimeControl::UNLIMITED), 0);
            for (i, point) in opening.stones().into_iter().enumerate() {
                let seat = game.to_act().expect("running");
                assert_eq!(
                    game.board()
                        .verdict(point, game.color_of(seat), rule_set.rules()),
                    Verdict::Allowed
                );
                game.place(seat, point, 0)
                    .unwrap_or_else(|e| panic!("{opening} move {}: {e}", i + 1));
            }
            assert!(!game.is_over());
        }
    }
}

#[test]
fn openings_are_read_by_id_number_code_or_chinese_name() {
    for opening in Opening::ALL {
        assert_eq!(Opening::parse(opening.id()), Ok(opening));
        assert_eq!(Opening::parse(&opening.id().to_uppercase()), Ok(opening));
        assert_eq!(Opening::parse(opening.name()), Ok(opening));
        assert_eq!(Opening::parse(&opening.number().to_string()), Ok(opening));
        assert_eq!(Opening::parse(opening.code()), Ok(opening));
        assert_eq!(Opening::parse(opening.name_zh()), Ok(opening));
        assert_eq!(
            Opening::parse(&format!(" {}局 ", opening.name_zh())),
            Ok(opening)
        );
        assert_eq!(Opening::from_number(opening.number()), Some(opening));
        let json = serde_json::to_string(&opening).expect("serialises");
        assert_eq!(json, format!("\"{}\"", opening.id()));
        assert_eq!(
            serde_json::from_str::<Opening>(&json).expect("reads"),
            opening
        );
    }
    assert_eq!(Opening::from_number(0), None);
    assert_eq!(Opening::from_number(27), None);
    for bad in ["", "0", "27", "14D", "kansei2", "寒"] {
        assert!(Opening::parse(bad).is_err(), "{bad:?}");
    }
}

#[test]
fn an_unknown_opening_error_quotes_only_a_short_excerpt() {
    let long = "x".repeat(10_000);
    let Err(OpeningError::Unknown(excerpt)) = Opening::parse(&long) else {
        panic!("accepted");
    };
    assert_eq!(excerpt.chars().count(), 24);
    let message = Opening::parse(&long).unwrap_err().to_string();
    assert!(message.len() < 250, "{message}");
    assert!(message.contains("kansei"), "{message}");
}

#[test]
fn pick_maps_every_26_consecutive_numbers_onto_all_26_openings() {
    for start in [0u64, 1, 25, 1_000_003, u64::MAX - 25] {
        let picked: HashSet<Opening> = (start..=start + 25).map(Opening::pick).collect();
        assert_eq!(picked.len(), 26, "from {start}");
    }
    assert_eq!(Opening::pick(0), Opening::Kansei);
    assert_eq!(Opening::pick(25), Opening::Suisei);
    assert_eq!(Opening::pick(26), Opening::Kansei);
    assert_eq!(Opening::pick(u64::MAX), Opening::pick(u64::MAX));
}

// ---------------------------------------------------------------------------------------
// Games that start from an opening.
// ---------------------------------------------------------------------------------------

const START_MS: u64 = 1_700_000_000_000;

fn config(rule_set: RuleSet, time_control: TimeControl) -> GameConfig {
    GameConfig {
        rule_set,
        time_control,
        black_seat: Seat::ONE,
    }
}

fn clock() -> TimeControl {
    TimeControl {
        per_move_ms: 30_000,
        total_ms: 600_000,
    }
}

#[test]
fn a_game_from_an_opening_has_its_three_stones_and_white_to_play_move_4() {
    for opening in Opening::ALL {
        let game = Game::with_opening(config(Opening::RULE_SET, clock()), opening, START_MS)
            .expect("starts");
        assert_eq!(game.opening(), Some(opening));
        let expected: Vec<(Point, Color)> = opening
            .stones()
            .into_iter()
            .zip([Color::Black, Color::White, Color::Black])
            .collect();
        assert_eq!(game.moves(), expected.as_slice());
        assert_eq!(game.board().stone_count(), 3);
        assert_eq!(game.to_move(), Some(Color::White));
        assert_eq!(game.to_act(), Some(Seat::ZERO), "seat 1 holds black");
        assert!(!game.is_over());
        // Seats and colors of the logged stones are those of the game.
        let seats: Vec<Seat> = game.log().iter().map(|e| e.seat).collect();
        assert_eq!(seats, [Seat::ONE, Seat::ZERO, Seat::ONE]);
    }
}

#[test]
fn the_opening_stones_take_no_time_and_white_clock_starts_at_the_game_start() {
    let mut game = Game::with_opening(
        config(Opening::RULE_SET, clock()),
        Opening::Kagetsu,
        START_MS,
    )
    .expect("starts");
    assert!(game.log().iter().all(|e| e.at_ms == 0));
    assert_eq!(game.turn_started_ms(), START_MS);
    assert_eq!(game.remaining_ms(Seat::ZERO), Some(600_000));
    assert_eq!(game.remaining_ms(Seat::ONE), Some(600_000));
    assert_eq!(game.deadline_ms(), Some(START_MS + 30_000));
    // White's move 4 after 12 s is charged to white alone, from the start of the game.
    game.place(Seat::ZERO, p("g7"), START_MS + 12_000)
        .expect("move 4");
    assert_eq!(game.remaining_ms(Seat::ZERO), Some(588_000));
    assert_eq!(game.remaining_ms(Seat::ONE), Some(600_000));
    assert_eq!(game.deadline_ms(), Some(START_MS + 12_000 + 30_000));
    assert_eq!(game.log().last().map(|e| e.at_ms), Some(12_000));
}

#[test]
fn white_loses_on_time_if_move_4_never_comes() {
    let mut game = Game::with_opening(
        config(Opening::RULE_SET, clock()),
        Opening::Suisei,
        START_MS,
    )
    .expect("starts");
    assert!(game.check_timeout(START_MS + 29_999).is_empty());
    assert_eq!(
        game.place(Seat::ZERO, p("g9"), START_MS + 30_000),
        Err(GameError::TimeExpired {
            deadline_ms: START_MS + 30_000
        })
    );
    let events = game.check_timeout(START_MS + 31_000);
    assert!(!events.is_empty());
    let result = game.result().expect("over");
    assert_eq!(result.winner, Some(Seat::ONE), "black wins on white's time");
}

#[test]
fn black_moves_only_after_white_move_4() {
    let mut game = Game::with_opening(
        config(Opening::RULE_SET, clock()),
        Opening::Kansei,
        START_MS,
    )
    .expect("starts");
    assert_eq!(
        game.place(Seat::ONE, p("g7"), START_MS + 1),
        Err(GameError::NotYourTurn)
    );
    assert_eq!(
        game.place(Seat::ZERO, p("h10"), START_MS + 1),
        Err(GameError::Occupied { point: p("h10") })
    );
}

#[test]
fn openings_are_refused_in_freestyle_and_the_swap_room() {
    for rule_set in [RuleSet::Freestyle, RuleSet::RenjuSwap] {
        let refused = Game::with_opening(config(rule_set, clock()), Opening::Kansei, START_MS);
        assert_eq!(refused, Err(GameError::OpeningNotAllowed { rule_set }));
        assert_eq!(
            refused.unwrap_err().code(),
            "opening_not_allowed",
            "{rule_set}"
        );
        assert!(!rule_set.allows_openings());
    }
    for policy in [
        ForbiddenPolicy::Lose,
        ForbiddenPolicy::Refuse,
        ForbiddenPolicy::Claim,
    ] {
        let rule_set = RuleSet::Renju(policy);
        assert!(rule_set.allows_openings());
        assert!(Game::with_opening(config(rule_set, clock()), Opening::Myojo, 0).is_ok());
    }
    assert_eq!(Opening::RULE_SET, RuleSet::Renju(ForbiddenPolicy::Lose));
}

/// 花月 (h8 h9 i9), then black builds g8 and i10 and plays i8: the row g8 h8 i8 and the
/// column i8 i9 i10 are two live threes, so the lose policy ends the game (white wins).
fn finished_opening_game() -> Game {
    let mut game = Game::with_opening(
        config(Opening::RULE_SET, clock()),
        Opening::Kagetsu,
        START_MS,
    )
    .expect("starts");
    let (b, w) = (Seat::ONE, Seat::ZERO);
    let t = |s: u64| START_MS + s * 1_000;
    game.place(w, p("a1"), t(2)).expect("4");
    game.place(b, p("g8"), t(4)).expect("5");
    game.place(w, p("a3"), t(6)).expect("6");
    game.place(b, p("i10"), t(9)).expect("7");
    game.place(w, p("a5"), t(11)).expect("8");
    game.place(b, p("i8"), t(14))
        .expect("9 is played and loses");
    let result = game.result().expect("over");
    assert_eq!(
        result.reason,
        EndReason::ForbiddenMove {
            kind: ForbiddenKind::DoubleThree
        }
    );
    assert_eq!(result.winner, Some(w));
    game
}

#[test]
fn a_record_of_an_opening_game_names_the_opening_and_reads_back() {
    let game = finished_opening_game();
    let record = Record::new(
        RecordInfo {
            room: "gomoku-renju-opening".into(),
            black: "alice".into(),
            white: "bob".into(),
            date: "2026-12-01".into(),
            friends_table: false,
        },
        game.clone(),
    );
    let text = record.to_text();
    assert!(
        text.contains("[RuleSet \"renju-lose\"]\n[Opening \"kagetsu\"]\n"),
        "{text}"
    );
    assert!(
        text.contains("[OpeningName \"花月 Kagetsu (4D)\"]"),
        "{text}"
    );
    assert!(text.contains("\nh8@0 h9@0 i9@0 a1@2000 "), "{text}");
    let back = Record::from_text(&text).expect("reads back");
    assert_eq!(back.game, game);
    assert_eq!(back.opening(), Some(Opening::Kagetsu));
    assert_eq!(back.info.room, "gomoku-renju-opening");
    // The stored state keeps it too.
    let stored = game.to_bytes();
    assert!(String::from_utf8_lossy(&stored).contains("\"opening\":\"kagetsu\""));
    let restored = Game::from_bytes(&stored).expect("restores");
    assert_eq!(restored, game);
    assert_eq!(restored.opening(), Some(Opening::Kagetsu));
}

#[test]
fn a_plain_stored_state_has_no_opening_field_and_old_states_still_read() {
    let mut game = Game::new(config(Opening::RULE_SET, clock()), START_MS);
    game.place(Seat::ONE, p("h8"), START_MS + 500).expect("1");
    let stored = String::from_utf8(game.to_bytes()).expect("utf-8");
    assert!(!stored.contains("opening"), "{stored}");
    assert_eq!(Game::from_bytes(stored.as_bytes()).expect("reads"), game);
}

#[test]
fn stepping_through_an_opening_record_shows_the_opening_stones_first() {
    let game = finished_opening_game();
    let mut replay = Replay::new(&game);
    replay.jump(0);
    assert_eq!(replay.board().stone_count(), 0);
    let first: Vec<Point> = (0..3)
        .filter_map(|_| replay.forward())
        .map(|m| m.0)
        .collect();
    assert_eq!(first, Opening::Kagetsu.stones());
    assert_eq!(replay.ply(), 3);
    assert_eq!(replay.forward().map(|m| m.0), Some(p("a1")));
    assert_eq!(replay.backward().map(|m| m.0), Some(p("a1")));
    assert_eq!(replay.board(), &replay.board_at(3));
}

#[test]
fn psq_holds_the_opening_stones_at_no_time() {
    let game = finished_opening_game();
    let psq = Record::new(RecordInfo::default(), game.clone()).to_psq();
    let lines: Vec<&str> = psq.lines().collect();
    // h8 = (8, 8), h9 = (8, 7), i9 = (9, 7) in PSQ's 1-based, top-down coordinates.
    assert_eq!(&lines[1..4], ["8,8,0", "8,7,0", "9,7,0"]);
    let back = Record::from_psq(&psq, Opening::RULE_SET).expect("reads");
    assert_eq!(back.game.moves(), game.moves());
    assert_eq!(
        back.opening(),
        None,
        "PSQ does not say; the stones are all there"
    );
    assert_eq!(
        Opening::identify([0, 1, 2].map(|i| back.game.moves()[i].0)),
        Some(Opening::Kagetsu)
    );
}

#[test]
fn a_record_whose_moves_do_not_start_with_its_opening_is_refused_with_the_ply() {
    let header = "[RuleSet \"renju-lose\"]\n[Opening \"kansei\"]\n\n";
    let cases = [
        ("h8 h9 i10 g7", 3),
        ("h8 i9 h10 g7", 2),
        ("g7 h8 h9 h10", 1),
        ("h8 h9", 3),
        ("", 1),
        ("h8@0 h9@5 h10@5 g7@6", 2),
    ];
    for (moves, ply) in cases {
        let error = Record::from_text(&format!("{header}{moves}\n")).unwrap_err();
        match &error {
            RecordError::BadToken {
                ply: at, message, ..
            } => {
                assert_eq!(*at, ply, "{moves}: {error}");
                assert!(message.contains("opening"), "{moves}: {error}");
            }
            other => panic!("{moves}: {other}"),
        }
    }
    let good = Record::from_text(&format!("{header}h8 h9 h10 g7\n")).expect("reads");
    assert_eq!(good.opening(), Some(Opening::Kansei));
    assert_eq!(good.game.moves().len(), 4);
}

#[test]
fn a_record_naming_an_unknown_opening_or_one_its_rules_forbid_is_refused_with_the_line() {
    let unknown = Record::from_text("[RuleSet \"renju-lose\"]\n[Opening \"nonesuch\"]\n\nh8\n");
    assert!(
        matches!(unknown, Err(RecordError::Syntax { line: 2, ref message }) if message.contains("nonesuch")),
        "{unknown:?}"
    );
    let freestyle =
        Record::from_text("[RuleSet \"freestyle\"]\n[Opening \"kansei\"]\n\nh8 h9 h10\n");
    assert!(
        matches!(freestyle, Err(RecordError::Syntax { line: 2, ref message }) if message.contains("freestyle")),
        "{freestyle:?}"
    );
    let mut stored: serde_json::Value =
        serde_json::from_slice(&finished_opening_game().to_bytes()).expect("json");
    stored["opening"] = "nonesuch".into();
    let error = Game::from_bytes(stored.to_string().as_bytes()).unwrap_err();
    assert!(matches!(error, RecordError::Stored(_)), "{error}");
}

// ---------------------------------------------------------------------------------------
// Properties over random games from random openings.
// ---------------------------------------------------------------------------------------

/// Plays `choices` as white-first stones near the centre, with the odd draw offer and
/// resignation, from `opening`; returns the game (refused actions must change nothing).
fn random_opening_game(opening: Opening, black_seat: Seat, choices: &[u16]) -> Game {
    let mut game = Game::with_opening(
        GameConfig {
            rule_set: Opening::RULE_SET,
            time_control: clock(),
            black_seat,
        },
        opening,
        START_MS,
    )
    .expect("starts");
    let mut now = START_MS;
    for (i, &choice) in choices.iter().enumerate() {
        let Some(seat) = game.to_act() else { break };
        now += u64::from(choice % 4_000);
        let action = match choice % 50 {
            0 => Action::OfferDraw,
            1 if game.draw_offer().is_some() => Action::DeclineDraw,
            2 if i > 40 => Action::Resign,
            _ => {
                let dx = (choice / 50 % 7) as i8 - 3;
                let dy = (choice / 350 % 7) as i8 - 3;
                Action::Place(Point::CENTER.offset(dx, dy, 1).unwrap_or(Point::CENTER))
            }
        };
        let actor = match action {
            Action::DeclineDraw => game.draw_offer().map_or(seat, Seat::other),
            _ => seat,
        };
        let before = game.clone();
        if game.act(actor, action, now).is_err() {
            assert_eq!(game, before);
        }
    }
    game
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, failure_persistence: None, ..ProptestConfig::default() })]

    /// A game from an opening is exactly the ordinary renju game whose first three moves
    /// were the opening's, made at the start and taking no time, plus the opening's name;
    /// and it survives the stored state and the text record with that name.
    #[test]
    fn an_opening_game_is_the_plain_game_after_its_three_stones(
        number in 1u8..=26,
        black_seat in 0u8..2,
        choices in prop::collection::vec(any::<u16>(), 0..120),
    ) {
        let opening = Opening::from_number(number).expect("1..=26");
        let black_seat = Seat::new(black_seat).expect("0 or 1");
        let game = random_opening_game(opening, black_seat, &choices);

        let mut plain = Game::new(*game.config(), START_MS);
        for entry in game.log() {
            plain.act(entry.seat, entry.action, START_MS + entry.at_ms).expect("same moves replay");
        }
        prop_assert_eq!(plain.moves(), game.moves());
        prop_assert_eq!(plain.result(), game.result());
        prop_assert_eq!(plain.to_act(), game.to_act());
        prop_assert_eq!(plain.deadline_ms(), game.deadline_ms());
        prop_assert_eq!(plain.remaining_ms(Seat::ZERO), game.remaining_ms(Seat::ZERO));
        prop_assert_eq!(plain.opening(), None);

        let restored = Game::from_bytes(&game.to_bytes()).expect("restores");
        prop_assert_eq!(&restored, &game);
        let record = Record::new(RecordInfo::default(), game.clone());
        let back = Record::from_text(&record.to_text()).expect("reads back");
        prop_assert_eq!(&back.game, &game);
        prop_assert_eq!(back.opening(), Some(opening));
        let replay = Replay::new(&game);
        prop_assert_eq!(replay.board_at(3).stone_count(), 3);
        for (i, point) in opening.stones().into_iter().enumerate() {
            prop_assert_eq!(replay.stone(i + 1).map(|m| m.0), Some(point));
        }
    }

    /// Whatever the opening and symmetry, identify finds it again.
    #[test]
    fn identify_sees_through_every_symmetry(number in 1u8..=26, s in 0usize..8) {
        let opening = Opening::from_number(number).expect("1..=26");
        let turned = opening.stones().map(|q| q.transform(Symmetry::ALL[s]));
        prop_assert_eq!(Opening::identify(turned), Some(opening));
    }

    #[test]
    fn parsing_random_text_never_panics_and_never_echoes_much(text in ".{0,200}") {
        match Opening::parse(&text) {
            Ok(opening) => prop_assert!(Opening::ALL.contains(&opening)),
            Err(OpeningError::Unknown(excerpt)) => prop_assert!(excerpt.chars().count() <= 24),
        }
        let _ = Record::from_text(&format!("[RuleSet \"renju-lose\"]\n[Opening \"kansei\"]\n{text}"));
    }
}

/// The players' rules (`docs/rules.md`) list the 26 openings; the list there is this
/// crate's, row for row.
#[test]
fn the_rules_document_lists_the_26_openings_as_the_crate_does() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/rules.md");
    let rules = std::fs::read_to_string(path).expect("docs/rules.md");
    let rows: Vec<Vec<String>> = rules
        .lines()
        .filter(|line| line.starts_with("| ") && line.contains(" | h8 "))
        .map(|line| {
            line.trim_matches('|')
                .split('|')
                .map(|cell| cell.trim().trim_matches('`').to_owned())
                .collect()
        })
        .collect();
    assert_eq!(rows.len(), 26, "{rows:#?}");
    for (row, opening) in rows.iter().zip(Opening::ALL) {
        let expected = [
            opening.number().to_string(),
            opening.code().to_owned(),
            opening.id().to_owned(),
            opening.name().to_owned(),
            opening.name_zh().to_owned(),
            stones_text(opening),
        ];
        assert_eq!(row.as_slice(), expected.as_slice());
    }
}

/// A table's choice: `random` draws each of the 26 equally often over any 26 consecutive
/// numbers; a named opening is always that one; both round-trip through their names.
#[test]
fn an_opening_choice_is_random_or_one_opening() {
    assert_eq!(OpeningChoice::parse("random"), Ok(OpeningChoice::Random));
    assert_eq!(OpeningChoice::parse(" Random "), Ok(OpeningChoice::Random));
    assert_eq!(
        OpeningChoice::parse("花月局"),
        Ok(OpeningChoice::Fixed(Opening::Kagetsu))
    );
    assert_eq!(
        OpeningChoice::parse("10I"),
        Ok(OpeningChoice::Fixed(Opening::Myojo))
    );
    assert!(OpeningChoice::parse("").is_err());
    assert!(OpeningChoice::parse("randomly").is_err());
    for start in [0u64, 7, u64::MAX - 30] {
        let drawn: HashSet<Opening> = (start..start + 26)
            .map(|n| OpeningChoice::Random.opening(n))
            .collect();
        assert_eq!(drawn.len(), 26);
    }
    let fixed = OpeningChoice::Fixed(Opening::Suisei);
    assert!((0..100).all(|n| fixed.opening(n) == Opening::Suisei));
    for choice in [OpeningChoice::Random, fixed] {
        assert_eq!(OpeningChoice::parse(choice.name()), Ok(choice));
        let json = serde_json::to_string(&choice).unwrap();
        assert_eq!(
            serde_json::from_str::<OpeningChoice>(&json).unwrap(),
            choice
        );
    }
    assert_eq!(fixed.name(), "suisei");
}
