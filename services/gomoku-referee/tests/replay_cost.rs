//! What reading and writing a stored game costs per move (the referee decodes the table
//! state, which replays the game's log through the rules, on every action). Run with
//! `cargo test -p gamehub-gomoku-referee --test replay_cost -- --ignored --nocapture`.
#![allow(clippy::unwrap_used)]
use gomoku_rules::{Game, GameConfig, Point, RuleSet, Seat, TimeControl};

#[test]
#[ignore = "a measurement, not a check"]
fn stored_game_round_trip_cost() {
    let cfg = GameConfig {
        rule_set: RuleSet::Freestyle,
        time_control: TimeControl {
            per_move_ms: 600000,
            total_ms: 0,
        },
        black_seat: Seat::ZERO,
    };
    let mut g = Game::new(cfg, 0);
    let moves = "h8 j7 l9 j11 l10 f8 j12 h7 k12 i13 l6 k5 k9 g13 i15 i14 n9 f11 m8 h15 l8 j8 e15 k10 h5 j9 j5 i8 k11 l3 k7 n7 j6 h6 l5 n10 h12 m11 g15 j13 g9 g10 i6 n3 n8 m7 k8 o10 j10 i12 k4 i7 i10 e12 c14";
    for (i, m) in moves.split(' ').enumerate() {
        let seat = if i % 2 == 0 { Seat::ZERO } else { Seat::ONE };
        g.place(seat, Point::parse(m).unwrap(), i as u64 * 10)
            .unwrap();
    }
    let bytes = g.to_bytes();
    let n = 2000;
    let t = std::time::Instant::now();
    for _ in 0..n {
        std::hint::black_box(Game::from_bytes(&bytes).unwrap());
    }
    println!(
        "from_bytes {} plies: {:?} each",
        g.moves().len(),
        t.elapsed() / n
    );
    let t = std::time::Instant::now();
    for _ in 0..n {
        std::hint::black_box(g.to_bytes());
    }
    println!("to_bytes: {:?} each", t.elapsed() / n);
    let t = std::time::Instant::now();
    for _ in 0..n {
        std::hint::black_box(g.board().is_dead());
    }
    println!("is_dead: {:?} each", t.elapsed() / n);
}
