//! The points table of docs/rules.md#gomoku-points, read from the document and held
//! against games played to each ending: every ending is listed under the outcome it
//! really has, with the points it really scores. A front-end may show the table as it
//! is written, so a row under the wrong outcome is a bug.

use std::path::Path;

use gomoku_rules::{
    Action, EndReason, ForbiddenPolicy, Game, GameConfig, GameResult, Outcome, Point, RuleSet,
    Seat, TimeControl,
};

/// One row of the table: its label and black's and white's points.
#[derive(Debug)]
struct Row {
    label: String,
    black: i64,
    white: i64,
}

fn points(cell: &str) -> i64 {
    let cell = cell.trim().replace('−', "-").replace('+', "");
    cell.parse()
        .unwrap_or_else(|_| panic!("a points cell: {cell:?}"))
}

/// The rows of the table under `### Gomoku points`.
fn table() -> Vec<Row> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/rules.md");
    let text = std::fs::read_to_string(path).expect("docs/rules.md");
    let section = text
        .split("\n### Gomoku points\n")
        .nth(1)
        .expect("a Gomoku points section")
        .split("\n#")
        .next()
        .unwrap_or_default();
    section
        .lines()
        .filter(|l| l.starts_with('|') && !l.starts_with("|---") && !l.contains("| black |"))
        .map(|l| {
            let cells: Vec<&str> = l.trim_matches('|').split('|').collect();
            assert_eq!(cells.len(), 3, "a row of three cells: {l}");
            Row {
                label: cells[0].trim().to_owned(),
                black: if cells[1].contains("loser") {
                    0
                } else {
                    points(cells[1])
                },
                white: if cells[2].contains("winner") {
                    0
                } else {
                    points(cells[2])
                },
            }
        })
        .collect()
}

/// The reasons a row lists in parentheses after its outcome, e.g. `black wins (five,
/// white's time out)` → `["five", "white's time out"]`, with the outcome.
fn outcome_and_reasons(label: &str) -> (&str, Vec<&str>) {
    match label.split_once(" (") {
        Some((outcome, rest)) => (
            outcome.trim(),
            rest.trim_end_matches(')')
                .split(", ")
                .map(str::trim)
                .collect(),
        ),
        None => (label.trim(), Vec::new()),
    }
}

fn p(text: &str) -> Point {
    Point::parse(text).expect("a point")
}

fn game(rule_set: RuleSet) -> Game {
    Game::new(
        GameConfig {
            rule_set,
            time_control: TimeControl {
                per_move_ms: 10_000,
                total_ms: 0,
            },
            black_seat: Seat::ZERO,
        },
        0,
    )
}

fn play(game: &mut Game, moves: &str) {
    for (i, m) in moves.split_whitespace().enumerate() {
        let seat = game.to_act().expect("the game runs");
        game.place(seat, p(m), 1_000 * (i as u64 + 1))
            .unwrap_or_else(|e| panic!("{m}: {e}"));
    }
}

fn over(game: &Game) -> GameResult {
    *game.result().expect("the game is over")
}

/// Black's j8 after these moves is a double three.
const BEFORE_DOUBLE_THREE: &str = "h8 a1 i8 a3 j9 a5 j10 a7";

/// Each decisive ending played to its end, with the phrase the table lists it by.
fn decisive_endings() -> Vec<(&'static str, GameResult)> {
    let mut endings = Vec::new();

    let mut g = game(RuleSet::Freestyle);
    play(&mut g, "h8 a1 i8 a2 j8 a3 k8 a4 l8");
    endings.push(("five", over(&g)));

    let mut g = game(RuleSet::Freestyle);
    play(&mut g, "h8 a1 i8 a2 j8 a3 k8 a4 b9 b1 c9 c1 d9 d1 e9 e1");
    endings.push(("five", over(&g)));

    let mut g = game(RuleSet::Renju(ForbiddenPolicy::Lose));
    play(&mut g, BEFORE_DOUBLE_THREE);
    g.place(Seat::ZERO, p("j8"), 9_000).expect("played");
    endings.push(("black's forbidden move", over(&g)));

    let mut g = game(RuleSet::Renju(ForbiddenPolicy::Claim));
    play(&mut g, BEFORE_DOUBLE_THREE);
    g.place(Seat::ZERO, p("j8"), 9_000)
        .expect("the move stands");
    g.act(Seat::ONE, Action::ClaimForbidden, 10_000)
        .expect("white claims");
    endings.push(("forbidden move claimed", over(&g)));

    // Black (seat 0) runs out of time on move 1; white (seat 1) on move 2.
    let mut g = game(RuleSet::Freestyle);
    g.check_timeout(10_000);
    endings.push(("black's time out", over(&g)));
    let mut g = game(RuleSet::Freestyle);
    play(&mut g, "h8");
    g.check_timeout(20_000);
    endings.push(("white's time out", over(&g)));
    endings
}

#[test]
fn every_decisive_ending_is_listed_under_its_true_outcome_with_its_points() {
    let rows = table();
    assert!(rows.len() >= 9, "the table has its rows: {rows:?}");
    for (phrase, result) in decisive_endings() {
        assert!(!matches!(result.outcome, Outcome::Draw), "{phrase}");
        let outcome = match result.outcome {
            Outcome::BlackWins => "black wins",
            Outcome::WhiteWins => "white wins",
            Outcome::Draw => "draw",
        };
        let listed: Vec<&Row> = rows
            .iter()
            .filter(|r| outcome_and_reasons(&r.label).1.contains(&phrase))
            .collect();
        // A five wins for either color and is listed under both outcomes; every other
        // ending belongs to one outcome only.
        let elsewhere: Vec<&str> = listed
            .iter()
            .map(|r| r.label.as_str())
            .filter(|label| outcome_and_reasons(label).0 != outcome)
            .collect();
        if phrase != "five" {
            assert!(
                elsewhere.is_empty(),
                "{phrase:?} ({}) is listed under {elsewhere:?}",
                result.describe()
            );
        }
        let row = listed
            .iter()
            .find(|r| outcome_and_reasons(&r.label).0 == outcome)
            .unwrap_or_else(|| {
                panic!(
                    "{phrase:?} ({}) is in no {outcome:?} row of {rows:?}",
                    result.describe()
                )
            });
        let scored = result.points(1);
        assert_eq!(
            (row.black, row.white),
            (scored.black, scored.white),
            "{:?}",
            row.label
        );
    }
}

#[test]
fn resignations_escapes_and_draws_score_as_their_rows_say() {
    let rows = table();
    let row = |label: &str| {
        rows.iter()
            .find(|r| r.label.starts_with(label))
            .unwrap_or_else(|| panic!("a row {label:?} in {rows:?}"))
    };
    let check = |label: &str, result: GameResult| {
        let scored = result.points(1);
        let r = row(label);
        assert_eq!((r.black, r.white), (scored.black, scored.white), "{label}");
    };

    for (label, seat) in [("black resigns", Seat::ZERO), ("white resigns", Seat::ONE)] {
        let mut g = game(RuleSet::Freestyle);
        g.resign(seat, 500).expect("resigns");
        check(label, over(&g));
    }
    for (label, seat) in [("black escapes", Seat::ZERO), ("white escapes", Seat::ONE)] {
        let mut g = game(RuleSet::Freestyle);
        g.escape(seat, 500).expect("leaves");
        check(label, over(&g));
    }
    for (label, offerer) in [
        ("draw by agreement (和棋), black offered", Seat::ZERO),
        ("draw by agreement (和棋), white offered", Seat::ONE),
    ] {
        let mut g = game(RuleSet::Freestyle);
        play(&mut g, "h8");
        g.act(offerer, Action::OfferDraw, 1_500).expect("offers");
        g.act(offerer.other(), Action::AcceptDraw, 1_600)
            .expect("accepts");
        let result = over(&g);
        assert_eq!(
            result.reason,
            EndReason::DrawAgreed {
                offered_by: offerer
            }
        );
        check(label, result);
    }
}
