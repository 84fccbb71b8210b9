//! `cargo bench -p gomoku-rules`: the referee's hot paths.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use gomoku_rules::{Board, Color, Point, Rules};

/// A mid-game renju position (34 stones) with threes and fours about, and the point to
/// judge: the first forbidden point (h3, a double three, which needs the recursive check
/// of its straight-four points).
fn mid_game() -> (Board, Point) {
    let diagram = "
        . . . . . . . . . . . . . . .
        . . . . . . . . . . . . . . .
        . . . . . . . . . . . . . . .
        . . . . . O . . . . . . . . .
        . . . . . . X . O . . . . . .
        . . . . . X O X X O . . . . .
        . . . . O X X O X . . . . . .
        . . . . . . X X O X O . . . .
        . . . . X O . X O X . . . . .
        . . . O X . O X O . X . . . .
        . . . . . X O . O . . . . . .
        . . . . . . . O X . . . . . .
        . . . . . . . . . . . . . . .
        . . . . . . . . . . . . . . .
        . . . . . . . . . . . . . . .";
    let (board, _) =
        Board::from_diagram(Point::parse("a15").expect("a15"), diagram).expect("diagram");
    let point = board
        .forbidden_points()
        .first()
        .map(|&(p, _)| p)
        .expect("a forbidden point");
    (board, point)
}

fn benches(c: &mut Criterion) {
    gomoku_rules::warm_up();
    let (board, point) = mid_game();
    eprintln!(
        "bench position ({} stones), {point} is {:?}:\n{board}",
        board.stone_count(),
        board.black_verdict(point)
    );
    eprintln!("forbidden points: {:?}", board.forbidden_points());

    c.bench_function(
        "forbidden check of one point (mid-game, recursive double three)",
        |b| b.iter(|| black_box(&board).black_verdict(black_box(point))),
    );
    let quiet = Point::parse("l4").expect("l4");
    c.bench_function("forbidden check of one quiet point (mid-game)", |b| {
        b.iter(|| black_box(&board).black_verdict(black_box(quiet)))
    });
    c.bench_function("forbidden-point list (mid-game)", |b| {
        b.iter(|| black_box(&board).forbidden_points())
    });
    let win_point = Point::parse("c12").expect("c12");
    c.bench_function("place + win check", |b| {
        b.iter_batched_ref(
            || board.clone(),
            |board| {
                let _ = board.place(black_box(win_point), Color::White);
                black_box(board.wins(win_point, Color::White, Rules::Renju))
            },
            criterion::BatchSize::SmallInput,
        )
    });
    c.bench_function("place + verdict + win check + take back", |b| {
        let mut board = board.clone();
        b.iter(|| {
            let verdict = board.verdict(black_box(quiet), Color::Black, Rules::Renju);
            let _ = board.place(quiet, Color::Black);
            let won = board.wins(quiet, Color::Black, Rules::Renju);
            board.remove(quiet);
            black_box((verdict, won))
        })
    });
}

criterion_group!(rules, benches);
criterion_main!(rules);
