//! The bots' behaviour, rule by rule, and their strength against random play.
#![allow(clippy::unwrap_used)]

use doudizhu_rules::{Bid, Combination, Kind, Rank, RankCounts, Seat as DdzSeat, Seed, classify};
use gamehub_bots::arena::{Player, doudizhu_deal, gomoku_game};
use gamehub_bots::doudizhu::{self, Situation};
use gamehub_bots::gomoku;
use gomoku_rules::{
    Action, ForbiddenPolicy, Game, GameConfig, Point, RuleSet, Seat, TimeControl, Verdict,
};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn rng() -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(7)
}

fn p(text: &str) -> Point {
    Point::parse(text).unwrap()
}

/// A game in `rule_set` after the given alternating moves (black first, seat 0 black).
fn game_after(rule_set: RuleSet, moves: &[&str]) -> Game {
    let config = GameConfig {
        rule_set,
        time_control: TimeControl {
            per_move_ms: 0,
            total_ms: 0,
        },
        black_seat: Seat::ZERO,
    };
    let mut game = Game::new(config, 0);
    for (i, m) in moves.iter().enumerate() {
        let seat = if i % 2 == 0 { Seat::ZERO } else { Seat::ONE };
        game.act(seat, Action::Place(p(m)), 0).unwrap();
    }
    game
}

#[test]
fn gomoku_bot_takes_a_five() {
    // Black h8 i8 j8 k8, white far away; black to move wins at g8 or l8.
    let game = game_after(
        RuleSet::Freestyle,
        &["h8", "a1", "i8", "a3", "j8", "a5", "k8", "o15"],
    );
    let action = gomoku::decide(&game, Seat::ZERO, &mut rng()).unwrap();
    assert!(
        matches!(action, Action::Place(q) if q == p("g8") || q == p("l8")),
        "{action:?}"
    );
}

#[test]
fn gomoku_bot_blocks_a_four() {
    // White (seat 1) has i9 j9 k9 l9 closed on the left by black h9: it must block m9.
    let game = game_after(
        RuleSet::Freestyle,
        &["h8", "i9", "h9", "j9", "a1", "k9", "c1", "l9"],
    );
    let action = gomoku::decide(&game, Seat::ZERO, &mut rng()).unwrap();
    assert_eq!(action, Action::Place(p("m9")));
}

#[test]
fn gomoku_bot_blocks_an_open_three() {
    // White has an open three j10 k10 l10 with both ends free; black must stop it.
    let game = game_after(RuleSet::Freestyle, &["h8", "j10", "a1", "k10", "o1", "l10"]);
    let action = gomoku::decide(&game, Seat::ZERO, &mut rng()).unwrap();
    let Action::Place(q) = action else {
        panic!("{action:?}")
    };
    assert!(
        ["h10", "i10", "m10", "n10"].iter().any(|s| p(s) == q),
        "black should block the three's ends, played {q}"
    );
}

#[test]
fn gomoku_bot_never_plays_a_forbidden_point_as_black() {
    let mut rng = rng();
    for policy in [
        ForbiddenPolicy::Lose,
        ForbiddenPolicy::Refuse,
        ForbiddenPolicy::Claim,
    ] {
        for _ in 0..20 {
            let config = GameConfig {
                rule_set: RuleSet::Renju(policy),
                time_control: TimeControl {
                    per_move_ms: 0,
                    total_ms: 0,
                },
                black_seat: Seat::ZERO,
            };
            let mut game = Game::new(config, 0);
            while let Some(seat) = game.to_act() {
                let action = if seat == Seat::ZERO {
                    gomoku::decide(&game, seat, &mut rng)
                } else {
                    gomoku::random_move(&game, seat, &mut rng)
                };
                let Some(action) = action else { break };
                if let (Action::Place(q), Seat::ZERO) = (action, seat) {
                    assert!(
                        !matches!(game.board().black_verdict(q), Verdict::Forbidden(_)),
                        "the bot chose forbidden {q}"
                    );
                }
                game.act(seat, action, 0).unwrap();
            }
        }
    }
}

#[test]
fn gomoku_bots_open_the_swap_room_legally() {
    // Both seats bots: every opening step (h8, move 2 next to h8, move 3 in the centre,
    // the swap decision, two proposals, the choice) must be accepted by the rules.
    let mut rng = rng();
    for black in [Seat::ZERO, Seat::ONE, Seat::ZERO, Seat::ONE] {
        let config = GameConfig {
            rule_set: RuleSet::RenjuSwap,
            time_control: TimeControl {
                per_move_ms: 0,
                total_ms: 0,
            },
            black_seat: black,
        };
        let mut game = Game::new(config, 0);
        while let Some(seat) = game.to_act() {
            let action = gomoku::decide(&game, seat, &mut rng).unwrap();
            game.act(seat, action, 0).unwrap();
        }
        assert!(game.is_over());
        assert!(game.moves().len() >= 5, "the opening was played through");
    }
}

#[test]
fn gomoku_bot_beats_a_random_player_at_least_95_times_in_100() {
    let mut rng = ChaCha8Rng::seed_from_u64(20261130);
    for rule_set in RuleSet::ALL {
        let mut wins = 0;
        for i in 0..100 {
            let black = if i % 2 == 0 { Seat::ZERO } else { Seat::ONE };
            if gomoku_game(rule_set, black, [Player::Bot, Player::Random], &mut rng)
                == Some(Seat::ZERO)
            {
                wins += 1;
            }
        }
        assert!(wins >= 95, "{}: {wins} of 100", rule_set.name());
    }
}

fn ranks(text: &str) -> RankCounts {
    RankCounts::parse(text).unwrap()
}

fn seat(n: u8) -> DdzSeat {
    DdzSeat::new(n).unwrap()
}

#[test]
fn doudizhu_bot_bids_from_hand_strength() {
    assert_eq!(
        doudizhu::bid(&ranks("3 4 5 6 7 8 9 T J Q K 3 4 5 6 7 8"), Bid::Pass),
        Bid::Pass
    );
    assert_eq!(
        doudizhu::bid(&ranks("X D 2 2 A A 3 4 5 6 7 8 9 T J Q K"), Bid::Pass),
        Bid::Three
    );
    assert_eq!(
        doudizhu::bid(&ranks("X D 2 2 A A 3 4 5 6 7 8 9 T J Q K"), Bid::Three),
        Bid::Pass,
        "never bids lower or equal"
    );
    assert_eq!(
        doudizhu::bid(&ranks("2 2 A A 3 4 5 6 7 8 9 T J Q K 3 3"), Bid::Pass),
        Bid::One
    );
}

#[test]
fn doudizhu_bot_does_not_beat_its_partner() {
    let partner_lead = Situation {
        seat: seat(1),
        hand: ranks("4 5 6 7 8 9 T J Q K A"),
        landlord: seat(0),
        to_beat: Some((seat(2), classify(&ranks("3")).unwrap())),
        cards_left: [20, 11, 10],
    };
    assert_eq!(doudizhu::play(&partner_lead), None);
    let landlord_lead = Situation {
        to_beat: Some((seat(0), classify(&ranks("3")).unwrap())),
        ..partner_lead
    };
    assert_eq!(
        doudizhu::play(&landlord_lead),
        Some(ranks("4")),
        "beats the landlord with the smallest card"
    );
}

#[test]
fn doudizhu_bot_goes_out_when_one_play_empties_its_hand() {
    let s = Situation {
        seat: seat(0),
        hand: ranks("5 5 5 9"),
        landlord: seat(0),
        to_beat: None,
        cards_left: [4, 17, 17],
    };
    assert_eq!(doudizhu::play(&s), Some(ranks("5 5 5 9")));
}

#[test]
fn doudizhu_bot_keeps_bombs_unless_an_opponent_is_close_to_going_out() {
    let prev: Combination = classify(&ranks("A")).unwrap();
    let calm = Situation {
        seat: seat(0),
        hand: ranks("7 7 7 7 3 4 9 J"),
        landlord: seat(0),
        to_beat: Some((seat(1), prev)),
        cards_left: [8, 12, 15],
    };
    assert_eq!(doudizhu::play(&calm), None);
    let urgent = Situation {
        cards_left: [8, 2, 15],
        ..calm
    };
    let bomb = doudizhu::play(&urgent).unwrap();
    assert_eq!(classify(&bomb).unwrap().kind, Kind::Bomb);
}

#[test]
fn doudizhu_bot_leads_long_low_combinations_and_avoids_singles_against_a_last_card() {
    let s = Situation {
        seat: seat(0),
        hand: ranks("3 3 3 4 9 T J Q K 2"),
        landlord: seat(0),
        to_beat: None,
        cards_left: [10, 17, 17],
    };
    let lead = classify(&doudizhu::play(&s).unwrap()).unwrap();
    assert_eq!(lead.rank, Rank::Three);
    assert_eq!(lead.kind, Kind::TripleWithSingle);
    let danger = Situation {
        hand: ranks("4 8 8 K"),
        cards_left: [4, 1, 17],
        ..s
    };
    let lead = classify(&doudizhu::play(&danger).unwrap()).unwrap();
    assert_eq!(
        lead.kind,
        Kind::Pair,
        "an opponent holds one card: no single"
    );
}

#[test]
fn doudizhu_bot_as_landlord_beats_two_random_farmers_in_most_deals() {
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let mut won = 0;
    for _ in 0..300 {
        let seed = Seed::from_bytes(rng.random());
        let result = doudizhu_deal(
            seed,
            [Player::Bot, Player::Random, Player::Random],
            true,
            &mut rng,
        )
        .expect("every deal completes with legal plays only");
        assert_eq!(result.landlord, seat(0));
        won += usize::from(result.landlord_won);
    }
    assert!(won > 240, "the bot landlord won {won} of 300");
}

#[test]
fn random_stones_near_the_others_are_legal_and_near() {
    for rule_set in [
        RuleSet::Freestyle,
        RuleSet::Renju(ForbiddenPolicy::Lose),
        RuleSet::Renju(ForbiddenPolicy::Refuse),
        RuleSet::Renju(ForbiddenPolicy::Claim),
        RuleSet::RenjuSwap,
    ] {
        for reach in [1, 2] {
            let mut rng = rng();
            let mut game = game_after(rule_set, &[]);
            let mut actions = 0;
            while let Some(seat) = game.to_act() {
                let action = gomoku::random_move_near(&game, seat, reach, &mut rng).unwrap();
                if let Action::Place(q) = action {
                    let near = game.board().stone_count() == 0
                        || game.board().stones().any(|s| s.point.distance(q) <= reach);
                    assert!(near, "{rule_set:?}: {q} is not within {reach} of a stone");
                    if game.color_of(seat) == gomoku_rules::Color::Black
                        && rule_set.rules() == gomoku_rules::Rules::Renju
                    {
                        assert!(!matches!(
                            game.board().black_verdict(q),
                            Verdict::Forbidden(_)
                        ));
                    }
                }
                game.act(seat, action, 0)
                    .unwrap_or_else(|e| panic!("{rule_set:?}: {action:?} refused: {e}"));
                actions += 1;
                assert!(actions < 300, "{rule_set:?}: the game does not end");
            }
            assert!(game.is_over(), "{rule_set:?}");
        }
    }
}
