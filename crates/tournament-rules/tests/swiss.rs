//! Swiss pairing and standings on hand-made tournaments.
#![allow(clippy::unwrap_used)]

use tournament_rules::Seed;
use tournament_rules::swiss::{
    Game, GameResult, Pairing, PlayedRound, SwissError, pair_round, standings,
};

fn game(black: u16, white: u16, result: GameResult) -> Game {
    Game {
        black: Seed(black),
        white: Seed(white),
        result,
    }
}

#[test]
fn round_one_pairs_the_top_half_against_the_bottom_half_alternating_colours() {
    let round = pair_round(8, &[]).unwrap();
    assert_eq!(round.bye, None);
    let boards: Vec<(u16, u16)> = round
        .boards
        .iter()
        .map(|p| (p.black.0, p.white.0))
        .collect();
    assert_eq!(boards, vec![(0, 4), (5, 1), (2, 6), (7, 3)]);
}

#[test]
fn an_odd_field_gives_the_bye_to_the_lowest_seed() {
    let round = pair_round(5, &[]).unwrap();
    assert_eq!(round.bye, Some(Seed(4)));
    assert_eq!(round.boards.len(), 2);
}

#[test]
fn winners_meet_winners_with_colours_reversed() {
    // 0 won with black and 1 with white; 2 and 3 lost. Each winner is due the other colour.
    let played = vec![PlayedRound {
        games: vec![
            game(0, 2, GameResult::BlackWins),
            game(3, 1, GameResult::WhiteWins),
        ],
        bye: None,
    }];
    let round = pair_round(4, &played).unwrap();
    assert_eq!(
        round.boards,
        vec![
            Pairing {
                black: Seed(1),
                white: Seed(0)
            },
            Pairing {
                black: Seed(2),
                white: Seed(3)
            },
        ]
    );
}

#[test]
fn the_bye_goes_to_someone_who_has_not_had_one() {
    let played = vec![PlayedRound {
        games: vec![game(0, 1, GameResult::BlackWins)],
        bye: Some(Seed(2)),
    }];
    let round = pair_round(3, &played).unwrap();
    // Seed 1 is the lowest without a bye (seed 2 had one): it sits out; 2 and 0 meet.
    assert_eq!(round.bye, Some(Seed(1)));
    assert_eq!(
        round.boards,
        vec![Pairing {
            black: Seed(2),
            white: Seed(0)
        }]
    );
}

#[test]
fn ties_are_broken_by_buchholz_then_sonneborn_berger() {
    let played = vec![
        PlayedRound {
            games: vec![
                game(0, 1, GameResult::BlackWins),
                game(2, 3, GameResult::BlackWins),
            ],
            bye: None,
        },
        PlayedRound {
            games: vec![
                game(0, 2, GameResult::Draw),
                game(1, 3, GameResult::BlackWins),
            ],
            bye: None,
        },
        PlayedRound {
            games: vec![
                game(3, 0, GameResult::BlackWins),
                game(2, 1, GameResult::BlackWins),
            ],
            bye: None,
        },
    ];
    let lines = standings(4, &played).unwrap();
    let order: Vec<u16> = lines.iter().map(|l| l.seed.0).collect();
    // C 2½; A 1½; B and D 1 with Buchholz 5 each; D beat A (1½), B beat D (1): D first.
    assert_eq!(order, vec![2, 0, 3, 1]);
    assert_eq!(lines[0].score_halves, 5);
    assert_eq!(
        (lines[2].buchholz_halves, lines[3].buchholz_halves),
        (10, 10)
    );
    assert_eq!(
        (
            lines[2].sonneborn_berger_quarters,
            lines[3].sonneborn_berger_quarters
        ),
        (6, 4)
    );
    assert_eq!(
        lines.iter().map(|l| l.place).collect::<Vec<_>>(),
        vec![1, 2, 3, 4]
    );
}

#[test]
fn a_cycle_with_every_tie_break_equal_falls_back_to_the_seed() {
    // 0 beats 1, 1 beats 2, 2 beats 0, and all three draw with 3.
    let played = vec![
        PlayedRound {
            games: vec![
                game(0, 1, GameResult::BlackWins),
                game(2, 3, GameResult::Draw),
            ],
            bye: None,
        },
        PlayedRound {
            games: vec![
                game(1, 2, GameResult::BlackWins),
                game(3, 0, GameResult::Draw),
            ],
            bye: None,
        },
        PlayedRound {
            games: vec![
                game(2, 0, GameResult::BlackWins),
                game(1, 3, GameResult::Draw),
            ],
            bye: None,
        },
    ];
    let lines = standings(4, &played).unwrap();
    assert!(
        lines
            .iter()
            .all(|l| l.score_halves == 3 && l.direct_halves == 3)
    );
    assert_eq!(
        lines.iter().map(|l| l.seed.0).collect::<Vec<_>>(),
        vec![0, 1, 2, 3]
    );
}

#[test]
fn a_round_that_names_a_player_twice_or_misses_one_is_refused() {
    let twice = vec![PlayedRound {
        games: vec![game(0, 1, GameResult::Draw), game(1, 2, GameResult::Draw)],
        bye: None,
    }];
    assert_eq!(
        pair_round(4, &twice),
        Err(SwissError::Twice {
            round: 1,
            seed: Seed(1)
        })
    );
    let missing = vec![PlayedRound {
        games: vec![game(0, 1, GameResult::Draw)],
        bye: None,
    }];
    assert_eq!(
        standings(3, &missing),
        Err(SwissError::Missing {
            round: 1,
            seed: Seed(2)
        })
    );
    let unknown = vec![PlayedRound {
        games: vec![game(0, 7, GameResult::Draw)],
        bye: None,
    }];
    assert!(matches!(
        pair_round(2, &unknown),
        Err(SwissError::UnknownPlayer { .. })
    ));
    assert_eq!(pair_round(1, &[]), Err(SwissError::Players(1)));
}
