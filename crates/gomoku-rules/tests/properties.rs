//! Property tests: symmetry, a naive reference judge, random games, record round trips,
//! and random input to every parser.

use gomoku_rules::{
    Action, Board, Color, EndReason, ForbiddenKind, Game, GameConfig, GameError, Outcome, Phase,
    Point, Record, RecordInfo, RuleSet, Seat, Symmetry, TimeControl, Verdict,
};
use proptest::prelude::*;

// ---------------------------------------------------------------------------------------
// A naive reference judge, written straight from docs/rules.md#forbidden-moves on a plain grid, to check
// the table-driven, bit-mask one.
// ---------------------------------------------------------------------------------------

type Grid = [[u8; 15]; 15]; // 0 empty, 1 black, 2 white, indexed [x][y]

const DIRS: [(i32, i32); 4] = [(1, 0), (0, 1), (1, 1), (1, -1)];

fn cell(g: &Grid, x: i32, y: i32) -> Option<u8> {
    if (0..15).contains(&x) && (0..15).contains(&y) {
        Some(g[x as usize][y as usize])
    } else {
        None
    }
}

/// The black run through (x, y) along d: (steps back, steps forward).
fn run(g: &Grid, x: i32, y: i32, (dx, dy): (i32, i32)) -> (i32, i32) {
    let mut back = 0;
    while cell(g, x - dx * (back + 1), y - dy * (back + 1)) == Some(1) {
        back += 1;
    }
    let mut fwd = 0;
    while cell(g, x + dx * (fwd + 1), y + dy * (fwd + 1)) == Some(1) {
        fwd += 1;
    }
    (back, fwd)
}

/// Black on empty q makes exactly five along d that contains (x, y).
fn five_through(g: &mut Grid, x: i32, y: i32, qk: i32, d: (i32, i32)) -> bool {
    let (qx, qy) = (x + d.0 * qk, y + d.1 * qk);
    if cell(g, qx, qy) != Some(0) {
        return false;
    }
    g[qx as usize][qy as usize] = 1;
    let (back, fwd) = run(g, x, y, d);
    g[qx as usize][qy as usize] = 0;
    back + fwd + 1 == 5 && -back <= qk && qk <= fwd
}

fn reference_verdict(g: &mut Grid, x: i32, y: i32) -> Verdict {
    g[x as usize][y as usize] = 1;
    let verdict = reference_placed(g, x, y);
    g[x as usize][y as usize] = 0;
    verdict
}

fn reference_placed(g: &mut Grid, x: i32, y: i32) -> Verdict {
    let lengths: Vec<i32> = DIRS
        .iter()
        .map(|&d| run(g, x, y, d))
        .map(|(b, f)| b + f + 1)
        .collect();
    if lengths.contains(&5) {
        return Verdict::Five;
    }
    if lengths.iter().any(|&n| n >= 6) {
        return Verdict::Forbidden(ForbiddenKind::Overline);
    }
    let mut fours = 0;
    let mut threes: Vec<((i32, i32), Vec<i32>)> = Vec::new();
    for &d in &DIRS {
        let five_points: Vec<i32> = (-4..=4)
            .filter(|&k| k != 0 && five_through(g, x, y, k, d))
            .collect();
        if !five_points.is_empty() {
            fours += if five_points.len() == 2 && five_points[1] - five_points[0] == 5 {
                1
            } else {
                five_points.len()
            };
            continue;
        }
        let mut straight = Vec::new();
        for k in -4..=4 {
            let (qx, qy) = (x + d.0 * k, y + d.1 * k);
            if k == 0 || cell(g, qx, qy) != Some(0) {
                continue;
            }
            g[qx as usize][qy as usize] = 1;
            let (back, fwd) = run(g, x, y, d);
            let ok = back + fwd + 1 == 4
                && -back <= k
                && k <= fwd
                && five_through(g, x, y, -back - 1, d)
                && five_through(g, x, y, fwd + 1, d);
            g[qx as usize][qy as usize] = 0;
            if ok {
                straight.push(k);
            }
        }
        if !straight.is_empty() {
            threes.push((d, straight));
        }
    }
    if fours >= 2 {
        return Verdict::Forbidden(ForbiddenKind::DoubleFour);
    }
    let live = threes
        .iter()
        .filter(|(d, ks)| {
            ks.iter().any(|&k| {
                let (qx, qy) = (x + d.0 * k, y + d.1 * k);
                reference_verdict(g, qx, qy) == Verdict::Allowed
            })
        })
        .count();
    if live >= 2 {
        Verdict::Forbidden(ForbiddenKind::DoubleThree)
    } else {
        Verdict::Allowed
    }
}

fn grid_of(board: &Board) -> Grid {
    let mut g = [[0u8; 15]; 15];
    for s in board.stones() {
        g[s.point.x() as usize][s.point.y() as usize] = if s.color == Color::Black { 1 } else { 2 };
    }
    g
}

/// Dense positions in a region, where every shape shows up often.
fn position() -> impl Strategy<Value = Board> {
    (
        2u8..=6,
        8u8..=13,
        prop::collection::vec((0u8..15, 0u8..15, prop::bool::weighted(0.65)), 8..70),
    )
        .prop_map(|(lo, hi, stones)| {
            let mut board = Board::new();
            for (x, y, black) in stones {
                let span = hi - lo + 1;
                let point = Point::new(lo + x % span, lo + y % span).unwrap_or(Point::CENTER);
                let color = if black { Color::Black } else { Color::White };
                let _ = board.place(point, color);
            }
            board
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1024, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn verdicts_match_the_naive_reference(board in position()) {
        let mut grid = grid_of(&board);
        for point in Point::all().filter(|&q| board.is_empty(q)) {
            let expected = reference_verdict(&mut grid, i32::from(point.x()), i32::from(point.y()));
            prop_assert_eq!(board.black_verdict(point), expected, "at {}\n{}", point, board);
        }
    }

    #[test]
    fn verdicts_are_unchanged_under_the_8_symmetries(board in position()) {
        let listed = board.forbidden_points();
        for s in Symmetry::ALL {
            let turned = board.transform(s);
            let mut expected: Vec<_> = listed.iter().map(|&(q, k)| (q.transform(s), k)).collect();
            let mut actual = turned.forbidden_points();
            expected.sort();
            actual.sort();
            prop_assert_eq!(actual, expected);
            for point in Point::all().filter(|&q| board.is_empty(q)) {
                prop_assert_eq!(turned.black_verdict(point.transform(s)), board.black_verdict(point));
            }
        }
    }

    #[test]
    fn the_forbidden_list_never_holds_a_five_point(board in position()) {
        for (point, _) in board.forbidden_points() {
            let mut with = board.clone();
            with.place(point, Color::Black).unwrap();
            prop_assert!(!with.wins(point, Color::Black, gomoku_rules::Rules::Renju));
        }
    }
}

// ---------------------------------------------------------------------------------------
// Random games through the state machine.
// ---------------------------------------------------------------------------------------

fn rule_set() -> impl Strategy<Value = RuleSet> {
    prop::sample::select(RuleSet::ALL.to_vec())
}

/// Plays a game from random choices: stones near the last ones, and sometimes the other
/// actions of each phase. Returns the game; every refused action must leave it unchanged.
fn random_game(rule_set: RuleSet, choices: &[u16], timed: bool) -> Game {
    let tc = if timed {
        TimeControl {
            per_move_ms: 20_000,
            total_ms: 300_000,
        }
    } else {
        TimeControl::UNLIMITED
    };
    let mut game = Game::new(
        GameConfig {
            rule_set,
            time_control: tc,
            black_seat: Seat::ONE,
        },
        10_000,
    );
    let mut now = 10_000u64;
    let mut i = 0;
    let mut next = || {
        i += 1;
        u32::from(choices[i % choices.len()]) ^ (i as u32).wrapping_mul(2_654_435_761)
    };
    for _ in 0..600 {
        if game.is_over() {
            break;
        }
        let seat = game.to_act().expect("running");
        now += u64::from(next() % 2_500);
        let roll = next() % 100;
        let near = |game: &Game, r: u32| -> Point {
            let last = game.moves().last().map_or(Point::CENTER, |m| m.0);
            let dx = (r % 5) as i8 - 2;
            let dy = ((r / 5) % 5) as i8 - 2;
            last.offset(dx, dy, 1).unwrap_or(Point::CENTER)
        };
        let action = match game.phase() {
            Phase::SwapDecision if roll < 40 => Action::Swap,
            Phase::ProposeFifth => Action::ProposeFifth(near(&game, next()), near(&game, next())),
            Phase::ChooseFifth { proposals } => {
                Action::ChooseFifth(proposals[(next() % 2) as usize])
            }
            _ if roll < 2 => Action::OfferDraw,
            _ if roll < 3 && game.draw_offer().is_some() => Action::AcceptDraw,
            _ if roll < 5 && game.draw_offer().is_some() => Action::DeclineDraw,
            _ if roll < 6 && rule_set == RuleSet::Renju(ForbiddenPolicy::Claim) => {
                Action::ClaimForbidden
            }
            _ if next() % 700 == 0 => Action::Resign,
            _ if roll < 75 => Action::Place(near(&game, next())),
            _ => {
                let r = next() as usize % 225;
                Action::Place(Point::from_index(r).unwrap_or(Point::CENTER))
            }
        };
        let actor = match action {
            Action::OfferDraw if next() % 2 == 0 => seat.other(),
            Action::AcceptDraw | Action::DeclineDraw => game.draw_offer().map_or(seat, Seat::other),
            _ => seat,
        };
        let before = game.clone();
        match game.act(actor, action, now) {
            Ok(_) => {}
            Err(GameError::TimeExpired { .. }) => {
                assert_eq!(game, before);
                assert!(!game.check_timeout(now).is_empty());
            }
            Err(_) => assert_eq!(game, before, "a refused {action:?} changed the game"),
        }
    }
    game
}

use gomoku_rules::ForbiddenPolicy;

fn check_consistent(game: &Game) {
    assert_eq!(game.is_over(), game.phase() == Phase::Over);
    assert_eq!(game.board().stone_count(), game.moves().len());
    if let Some(result) = game.result() {
        let black_won = result.outcome == Outcome::BlackWins;
        assert_eq!(result.winner.is_none(), result.outcome == Outcome::Draw);
        if result.reason == EndReason::Five {
            let (point, color) = *game.moves().last().expect("a five needs a stone");
            assert_eq!(black_won, color == Color::Black);
            assert!(game.board().wins(point, color, game.rule_set().rules()));
            if color == Color::Black && game.rule_set() != RuleSet::Freestyle {
                // Black never wins with an overline alone in renju: some line is exactly five.
                let mut board = game.board().clone();
                board.remove(point);
                assert_eq!(board.black_verdict(point), Verdict::Five);
            }
        }
        let points = result.points(7);
        assert_eq!(points.seats[result.black_seat.index()], points.black);
        assert_eq!(
            points.seats[result.black_seat.other().index()],
            points.white
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn random_games_end_consistently_and_round_trip(
        rule_set in rule_set(),
        choices in prop::collection::vec(any::<u16>(), 1..64),
        timed in any::<bool>(),
    ) {
        let game = random_game(rule_set, &choices, timed);
        check_consistent(&game);
        // Stored state and the text record both give the same game back.
        prop_assert_eq!(&Game::from_bytes(&game.to_bytes()).unwrap(), &game);
        let record = Record::new(RecordInfo { room: "r".into(), ..RecordInfo::default() }, game.clone());
        let back = Record::from_text(&record.to_text()).unwrap();
        prop_assert_eq!(&back.game, &game);
        // PSQ keeps the stones of games whose colors simply alternate.
        let alternating = game.moves().iter().enumerate().all(|(i, m)| (m.1 == Color::Black) == (i % 2 == 0));
        if alternating && rule_set != RuleSet::RenjuSwap {
            let psq = Record::from_psq(&record.to_psq(), rule_set).unwrap();
            prop_assert_eq!(psq.game.moves(), game.moves());
        }
    }

    #[test]
    fn random_action_sequences_never_panic(
        rule_set in rule_set(),
        actions in prop::collection::vec((0u8..2, 0u8..11, 0usize..225, 0usize..225, 0u64..30_000), 0..200),
    ) {
        let tc = TimeControl { per_move_ms: 15_000, total_ms: 120_000 };
        let mut game = Game::new(GameConfig { rule_set, time_control: tc, black_seat: Seat::ZERO }, 0);
        let mut now = 0;
        for (seat, kind, a, b, dt) in actions {
            now += dt;
            let (a, b) = (Point::from_index(a).unwrap(), Point::from_index(b).unwrap());
            let action = match kind {
                0 => Action::Place(a),
                1 => Action::ClaimForbidden,
                2 => Action::Swap,
                3 => Action::ProposeFifth(a, b),
                4 => Action::ChooseFifth(a),
                5 => Action::OfferDraw,
                6 => Action::AcceptDraw,
                7 => Action::DeclineDraw,
                8 => Action::Resign,
                9 => Action::Escape,
                _ => Action::Timeout,
            };
            let before = game.clone();
            if game.act(Seat::new(seat).unwrap(), action, now).is_err() {
                prop_assert_eq!(&game, &before);
            }
            check_consistent(&game);
        }
        prop_assert_eq!(&Game::from_bytes(&game.to_bytes()).unwrap(), &game);
    }

    #[test]
    fn parsers_never_panic_on_random_text(text in ".{0,400}", bytes in prop::collection::vec(any::<u8>(), 0..400)) {
        let _ = Record::from_text(&text);
        let _ = Record::from_text(&format!("[RuleSet \"renju-claim\"]\n{text}"));
        let _ = Record::from_psq(&text, RuleSet::Freestyle);
        let _ = Record::from_psq(&format!("Piskvorky 15x15, 11:11, 0\n{text}"), RuleSet::Freestyle);
        let _ = Game::from_bytes(&bytes);
        let _ = Game::from_bytes(text.as_bytes());
        let _ = Point::parse(&text);
    }

    #[test]
    fn parsers_never_panic_on_mangled_records(
        choices in prop::collection::vec(any::<u16>(), 1..32),
        cuts in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..8),
    ) {
        let game = random_game(RuleSet::RenjuSwap, &choices, true);
        let mut text = Record::new(RecordInfo::default(), game.clone()).to_text().into_bytes();
        let mut stored = game.to_bytes();
        for (index, byte) in cuts {
            let i = index.index(text.len());
            text[i] = byte;
            let j = index.index(stored.len());
            stored[j] = byte;
        }
        let _ = Record::from_text(&String::from_utf8_lossy(&text));
        let _ = Record::from_psq(&String::from_utf8_lossy(&text), RuleSet::RenjuSwap);
        let _ = Game::from_bytes(&stored);
    }
}
